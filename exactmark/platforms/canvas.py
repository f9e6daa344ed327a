"""Canvas's "Download Submissions" read as it comes, and the marks written back as the
gradebook import takes them (OUT/canvas-grades.csv).

The download is one flat zip (the class marker unpacks it; this reads the folder). Canvas
names every file in lib/content_zipper.rb (instructure/canvas-lms, commit
05e9653c12ef7afc65815ca84e5da7aa2e4c3bd3):

    PREFIX_ATTACHMENTID_DISPLAYNAME       a file the student uploaded (add_upload_submission)
    PREFIX_text.html, PREFIX_link.html    a text entry or a URL (add_text_or_url): no program

where PREFIX is [sortable name, "LATE" when late, user id].join("_") with every character
that is not a letter, mark, digit or "_" removed (get_filename, sanitize_file_name), the
sortable name downcased and its "_digits_" closed up (sanitize_user_name), and the user id
"anon_<anonymous id>" with no name when the assignment grades anonymously. The display name
has runs of \\x00 / \\ : * ? " < > | made "_" (sanitize_attachment_filename). A file a
student uploaded again under the same name has Canvas's "-1", "-2" before its extension
(Attachment.make_unique_filename, app/models/attachment.rb).

So the reader groups the files by user id (two students with one name, or names that differ
only in case, are two ids), restores each file's own name, and, where a student's files
restore to one name, keeps the newest (the highest attachment id) and lists the others as
older. The download has no real name, no time and no roster: canvas_api.with_times adds them
from Canvas's API.

The sheet back follows Canvas's gradebook export, which its import reads
(lib/gradebook_exporter.rb, commit 0140a2effa6366ea3b73aeefa4bbc384b943934f; the import:
lib/gradebook_importer.rb, GRADEBOOK_IMPORTER_RESERVED_NAMES and update_column_count):
Student, ID, SIS User ID, SIS Login ID, Section, then the assignment as
Assignment#title_with_id names it, "Title (id)"; the second row "    Points Possible".
The import matches a row on ID first, then the SIS ids, then the name.
"""

import csv
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from exactmark.base.spreadsheet import replaced, spreadsheet_text
from exactmark.base.visible import escaped
from exactmark.platforms.download import Download, Handin, Person, Refusal

NAME = "canvas"
NOT_WRITTEN = ""  # canvas-grades.csv is always written
SHEET = "canvas-grades.csv"

# A Canvas name: what get_filename and add_upload_submission / add_text_or_url write.
# In an anonymous download (every file "anon_..." or "LATE_anon_...") the anonymous form is
# tried first, "anon_12345_..." being otherwise a student named "anon"; in one that names its
# students, "anon_777_888_..." is the file of user 777, whose sortable name is "Anon".
ANONYMOUS = re.compile(r"(?P<late>LATE_)?(?P<id>anon_[0-9A-Za-z]+)_(?P<rest>.+)")
NAMED = re.compile(r"(?P<name>.*?)_(?P<late>LATE_)?(?P<id>[0-9]+)_(?P<rest>.+)")
UPLOADED = re.compile(r"(?P<attachment>[0-9]+)_(?P<display>.+)")
ONLINE_PAGES = ("text.html", "link.html")
# make_unique_filename's "-N" before the extension: the extension is one or more dot parts
# (Canvas's current form puts "-1" before ".tar.gz", its older form before ".gz").
UNIQUE_SUFFIX = re.compile(r"(?P<base>.+?)-(?P<n>[0-9]+)(?P<extension>(?:\.[0-9A-Za-z]+)*)")

HIDDEN_REASON = "a hidden file, not a Canvas submission file"
FOLDER_REASON = "a folder: Canvas's download holds files only, named after the student"
STRAY_REASON = ("not named as Canvas names a submission's files "
                "(name_[LATE_]userid_attachmentid_file)")
NO_PROGRAM_NOTE = "handed in on Canvas as {kind}, not as a file: no program file"
ONLINE_KINDS = {"text.html": "a text entry", "link.html": "a web address"}
# A sortable name such as "A_ 5_ 9" comes as "a_5_9_777_...": read as Canvas reads it, user 5.
NAMES_DIFFER = ("Canvas's download names user {id} {names}: a file of another student's "
                "named to pass for this one's?")

IDENTIFYING = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
POINTS_POSSIBLE = "    Points Possible"  # as the export writes it; the import looks for it
ASSIGNMENT_COLUMN = "{name} ({id})"  # Assignment#title_with_id


@dataclass(frozen=True)
class CanvasFile:
    """One entry of the download, read from its name."""
    path: Path
    key: str  # the user id, or anon_<anonymous id>
    name: str  # the sortable-name part as written ("" when anonymous)
    late: bool
    attachment: int  # 0 for a text entry or a URL
    display: str  # the file's name as Canvas stored it; the page for a text entry or URL


@dataclass(frozen=True)
class CanvasAssignment:
    """What the import needs of the assignment: Download.sheet once the API was asked."""
    id: str
    name: str
    points: float


def parsed(path: Path, anonymous: bool = True):
    """The CanvasFile a name stands for, or None when Canvas would not write it (`anonymous`:
    whether the download may be an anonymous one)."""
    name = unicodedata.normalize("NFC", path.name)
    match = anonymous and ANONYMOUS.fullmatch(name) or NAMED.fullmatch(name)
    if not match or not all(word(c) for c in match.groupdict().get("name") or ""):
        return None
    name_part = match.groupdict().get("name") or ""
    rest = match["rest"]
    uploaded = UPLOADED.fullmatch(rest)
    if uploaded and uploaded["display"] not in (".", ".."):
        return CanvasFile(path, match["id"], name_part, bool(match["late"]),
                          int(uploaded["attachment"]), uploaded["display"])
    if rest in ONLINE_PAGES:
        return CanvasFile(path, match["id"], name_part, bool(match["late"]), 0, rest)
    return None


def word(character: str) -> bool:
    """Ruby's [[:word:]], what sanitize_file_name keeps."""
    category = unicodedata.category(character)
    return category[0] in "LM" or category in ("Nd", "Pc")


def looks_like(folder: Path) -> bool:
    """A Canvas download: more than half of the entries that are not hidden are named as
    Canvas names a submission's files (a stray notes file or two does not make it
    something else; a folder of student folders is not Canvas's)."""
    shown = [entry for entry in Path(folder).iterdir() if not entry.name.startswith(".")]
    named = [entry for entry in shown if entry.is_file() and parsed(entry)]
    return 2 * len(named) > len(shown)


def read(folder: Path, context) -> Download:
    by_key, refused = {}, []
    entries = sorted(Path(folder).iterdir())
    anonymous = all(ANONYMOUS.fullmatch(unicodedata.normalize("NFC", entry.name))
                    for entry in entries if not refusal(entry))
    for entry in entries:
        reason = refusal(entry)
        file = None if reason else parsed(entry, anonymous)
        if file is None:
            refused.append(Refusal(entry.name, reason or STRAY_REASON))
        else:
            by_key.setdefault(file.key, []).append(file)
    handins = [handin(files, context) for files in by_key.values()]
    handins.sort(key=lambda h: (h.name, h.key))
    return Download(NAME, handins, refused)


def refusal(entry: Path) -> str:
    """Why an entry belongs to no student, or "" when it is a student's file."""
    if entry.name.startswith("."):
        return HIDDEN_REASON
    if entry.is_dir():
        return FOLDER_REASON
    if not entry.is_file() or not parsed(entry):
        return STRAY_REASON
    return ""


def handin(files: list, context) -> Handin:
    first = files[0]
    shown = first.name or first.key
    notes = [NO_PROGRAM_NOTE.format(kind=ONLINE_KINDS[file.display])
             for file in files if not file.attachment]
    names = sorted({file.name for file in files})
    if len(names) > 1:
        notes.append(NAMES_DIFFER.format(id=first.key, names=", ".join(map(escaped, names))))
    uploads = [file for file in files if file.attachment]
    restored = {}
    for file in uploads:
        restored.setdefault(own_name(file, uploads, context.expected), []).append(file)
    kept, older = {}, []
    for name, same in sorted(restored.items()):
        same.sort(key=lambda file: (file.attachment, file.display))
        kept[name] = same[-1].path
        older.extend(file.path for file in same[:-1])
    return Handin(key=first.key, name=shown, members=[Person(first.key, shown)], files=kept,
                  late=any(file.late for file in files), older=older, notes=notes)


def own_name(file: CanvasFile, uploads: list, expected: frozenset) -> str:
    """The file's name as the student gave it: Canvas's "-N" undone only where the name
    without it is one the assignment declares, or another of the student's files has it
    (so "game-2.py" a student named so stays "game-2.py")."""
    shown = file.display
    suffixed = UNIQUE_SUFFIX.fullmatch(shown)
    if not suffixed:
        return shown
    plain = suffixed["base"] + suffixed["extension"]
    others = {name for other in uploads if other is not file
              for name in (other.display, unsuffixed(other.display))}
    return plain if plain in expected or plain in others else shown


def unsuffixed(name: str) -> str:
    suffixed = UNIQUE_SUFFIX.fullmatch(name)
    return suffixed["base"] + suffixed["extension"] if suffixed else name


def write_back(out: Path, download: Download, returned: list, context) -> Path:
    """OUT/canvas-grades.csv: the roster's students in its order, then anyone else marked;
    a blank cell where no mark stands (a marker error), never 0."""
    column, points = assignment_column(download, returned, context)
    roster = {person.id: person for person in download.roster}
    order = {person.id: index for index, person in enumerate(download.roster)}
    rows = sorted(returned, key=lambda r: order.get(r.person.id, len(order)))
    path = Path(out) / SHEET
    with replaced(path) as file:
        sheet = csv.writer(file)
        sheet.writerow([spreadsheet_text(cell) for cell in (*IDENTIFYING, column)])
        sheet.writerow([spreadsheet_text(cell) for cell in (
            POINTS_POSSIBLE, *[""] * (len(IDENTIFYING) - 1), number(points))])
        for one in rows:
            person = roster.get(one.person.id, one.person)
            extra = dict(person.extra)
            cells = (extra.get("Student", person.name), person.id, extra.get("SIS User ID", ""),
                     extra.get("SIS Login ID", ""), extra.get("Section", ""),
                     "" if one.mark is None else number(one.mark))
            sheet.writerow([spreadsheet_text(cell) for cell in cells])
    return path


def assignment_column(download: Download, returned: list, context) -> tuple:
    """The assignment's column and its points: as Canvas's API gave them (title_with_id),
    else the kit's assignment with the id given (Context.platform_assignment), else the kit's name
    alone (the import then matches the column by title, or makes a new assignment)."""
    if isinstance(download.sheet, CanvasAssignment):
        assignment = download.sheet
        return ASSIGNMENT_COLUMN.format(name=assignment.name, id=assignment.id), assignment.points
    points = max((one.possible for one in returned), default=0)
    if context.platform_assignment:
        return ASSIGNMENT_COLUMN.format(name=context.assignment,
                                        id=context.platform_assignment), points
    return context.assignment, points


def number(value: float) -> str:
    """At most two decimals, as the export writes a score (format_numbers, precision 2),
    no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")
