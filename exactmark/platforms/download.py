"""A platform's download as data: who handed in what and when, what belongs to no one, and
everyone the platform lists (so that a student with no submission gets a row).

Each platform module (canvas.py, moodle.py, gradescope_export.py) gives:

    NAME                      "canvas", "moodle" or "gradescope" (what --from takes)
    looks_like(folder)        whether an unpacked download is this platform's (for --from's
                              detection: used only when exactly one platform says yes)
    read(folder, context)     a Download (context: Context, below)
    write_back(out, download, returned, context)
                              the marks (Returned, one per Person of the roster and of every
                              hand-in) in the platform's import format, in OUT; returns the
                              file written, or None where the platform needs none or
                              cannot write one (ValueError: a line to say)
    NOT_WRITTEN               what the run says when write_back wrote nothing ("" where the
                              platform takes nothing back)
    write_feedback_zip(out, download, pages, context)
                              optional (Moodle's): the students' pages (pages: a platform id
                              -> the folder of that student's page) in a file the platform
                              takes back as feedback files; returns (the file or None, the
                              ids whose page is in it), and the comments say those attached

`folder` is the download already unpacked by the class marker (or given as a folder): a
reader only reads names and the platform's own sheets in it, and names every file of a
hand-in by where it lies, never copying it.
"""

from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path


@dataclass(frozen=True)
class Context:
    """What a reader or writer needs to know of the marking beyond the download itself."""
    expected: frozenset  # the file names the assignment's programs declare
    zone: tzinfo  # the assignment's time zone: for a time a platform writes without one
    assignment: str  # the kit assignment's name (a column's name where the platform has none)
    worksheet: Path = None  # Moodle's grading worksheet (--worksheet), when given
    platform_assignment: str = ""  # the platform's id of the assignment, when given
    marks: float = None  # the kit assignment's total: a platform's own maximum is checked
    # against it as the download is read, before any marking (None: not checked)


@dataclass(frozen=True)
class Person:
    """A student as the platform knows them: its id (the key its import matches on), their
    name as it writes it, and what else it gives for the sheet it takes back."""
    id: str
    name: str
    email: str = ""
    extra: tuple = ()  # (column, value) pairs a platform's import wants back as it gave them


@dataclass
class Handin:
    """One submission as the platform gave it: a student's, or a team's."""
    key: str  # unique in the download: the platform's id of the submission or submitter
    name: str  # as the platform writes the submitter (or team): shown on the row and page
    members: list  # Person: everyone the mark goes to (one, or a team)
    files: dict  # name in the submission folder ("solitaire_1.py", "src/a.c") -> Path
    submitted: datetime = None  # as the platform has it; None when it gives none
    late: bool = None  # the platform's own late marker (Canvas's LATE), None when it has none
    older: list = field(default_factory=list)  # files a later resubmission replaced
    notes: list = field(default_factory=list)  # what the row says about how it was read


@dataclass
class Refusal:
    """Something in the download that belongs to no student, and why: a row of its own."""
    name: str  # as shown (escaped)
    reason: str


@dataclass
class Download:
    platform: str
    handins: list  # Handin
    refused: list = field(default_factory=list)  # Refusal
    roster: list = field(default_factory=list)  # Person: all the platform lists, handed in or not
    sheet: object = None  # what write_back needs of the platform's own sheet (Moodle's worksheet)


@dataclass
class Returned:
    """One student's mark as it goes back: None where no mark stands (a marker error: the
    platform's cell is left empty, never 0)."""
    person: Person
    mark: float
    possible: float
    comment: str  # the status, the late rule's line, and the student's page (or: attached)
