"""The class's data for a spreadsheet: grades.csv (a row per student: each member of a
team its own, and a platform's student with no submission too) and similarity.csv
(a row per pair of programs that share code), UTF-8, every cell by the formula rule of
exactmark/base/spreadsheet.py."""

import csv
from dataclasses import dataclass, field

from exactmark.base.spreadsheet import replaced, spreadsheet_text

# id and page last: added after sheets were made with the columns before them.
GRADE_COLUMNS = ("student", "{program}", "raw total", "days late", "mark", "status",
                 "cases passed", "note", "id", "page")
SIMILARITY_COLUMNS = ("program", "student_a", "student_b", "score", "share_in_full",
                      "also_high_in")
SCORE_DIGITS = 4
ALSO_HIGH = "{program} {score}"  # a cell of also_high_in, each program with its score, by "; "

MARKED, MISSING, NOT_BUILT, REFUSED, TOO_LATE, FAILED, UNTIMED, NO_SUBMISSION = (
    "marked", "missing program", "did not build", "refused", "late beyond the limit",
    "marker error", "no submission time", "no submission")
STILL_OPEN = "window still open"  # nothing handed in, and their own window has not closed
NOT_MARKED = "not marked"  # a marker error's mark: no score stands for it until marked again
NOT_BUILT_NOTE = "{program}: {said}"
NO_TIME = "the times file does not name this student: marked without the late rule"


@dataclass
class Row:
    """One student's line of the grade sheet, as data."""
    student: str
    programs: dict  # program -> marks earned
    raw: float = 0.0
    days_late: int = None  # None: no submission time known
    mark: float = 0.0
    statuses: list = field(default_factory=list)  # every reason that applies, MARKED if none
    passed: int = 0
    cases: int = 0
    notes: list = field(default_factory=list)
    terms: list = field(default_factory=list)  # their own terms, and their late days: said first
    id: str = ""  # the platform's id of the student (a download's), else empty
    page: str = ""  # the student's folder of pages in OUT (students/NAME), if any
    overridden: list = field(default_factory=list)  # each override, in the instructor's
    # words: the note's, never the page's (a page does not name a case it does not show)

    @property
    def status(self) -> str:
        return "; ".join(self.statuses) or MARKED

    @property
    def note(self) -> str:
        return "; ".join([*self.terms, *self.notes, *self.overridden])

    @property
    def no_mark(self) -> bool:
        """No mark stands for it: a marker error, not marked at all (--students), or
        nothing handed in while their own window is still open."""
        return bool({FAILED, NOT_MARKED, STILL_OPEN} & set(self.statuses))


def shown_marks(value: float) -> str:
    """Marks to two decimals, everywhere the class's files show them."""
    return f"{value:.2f}"


def write_grades(path, programs: list, rows: list) -> None:
    with replaced(path) as file:
        sheet = csv.writer(file)
        sheet.writerow([column.format(program=program) for column in GRADE_COLUMNS
                        for program in (programs if "{program}" in column else [None])])
        for row in rows:
            sheet.writerow([spreadsheet_text(cell) for cell in (
                row.student, *[shown_marks(row.programs.get(p, 0)) for p in programs],
                shown_marks(row.raw), "" if row.days_late is None else str(row.days_late),
                "" if STILL_OPEN in row.statuses else NOT_MARKED if row.no_mark
                else shown_marks(row.mark), row.status,
                f"{row.passed}/{row.cases}" if row.cases else "", row.note, row.id,
                row.page)])


def write_similarity(path, pairs: list) -> None:
    """Every pair of one program's versions that share code beyond the shared code, most
    similar first (exactmark.classroom.similarity: the score weighs code by how few versions
    hold it, the share in full does not); students named as the pages name them (by
    pseudonym when marking is anonymous, exactmark.classroom.anonymous)."""
    with replaced(path) as file:
        sheet = csv.writer(file)
        sheet.writerow(SIMILARITY_COLUMNS)
        for pair in pairs:
            sheet.writerow([spreadsheet_text(cell) for cell in (
                pair.program, pair.first, pair.second, f"{pair.score:.{SCORE_DIGITS}f}",
                f"{pair.share:.{SCORE_DIGITS}f}",
                "; ".join(ALSO_HIGH.format(program=program, score=f"{score:.{SCORE_DIGITS}f}")
                          for program, score in pair.also))])
