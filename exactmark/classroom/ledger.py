"""The term's late-day ledger (`exactmark class --ledger CSV`, `make mark-class LEDGER=FILE`):
for an assignment with a bank of late days (`[late_days]`), the days each student spent on
each assignment of the term, one row each:

    student, assignment, days, due, who, reason

The class run reads it before marking, each student's days left being the bank less the
days their rows of the other assignments hold (an instructor's grant: a row whose
assignment is `grant` and whose days are negative, which gives days back), and writes its
own assignment's rows after: those of an earlier run of it replaced, so that marking an
assignment again never spends twice, every other row kept byte for byte, the file replaced
whole (an interrupted run leaves the ledger as it was). Students are found in it as the
times file finds them: by the platform's id where a platform gives one, else by name."""

import csv
import io
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from exactmark.base.spreadsheet import FORMULA_STARTS, replaced, spreadsheet_text
from exactmark.base.visible import escaped
from exactmark.base.instructor_csv import BAD_ROW, NOT_TEXT, SEPARATORS, read_table
from exactmark.classroom.unpack import name_key, student_name
from exactmark.kit.late import Terms

COLUMNS = ("student", "assignment", "days", "due", "who", "reason")
REQUIRED = ("student", "assignment", "days")  # on every row; a grant has no due date
GRANT = "grant"  # the assignment of an instructor's row that gives days back
WRITER = "exactmark"  # `who` on the class run's own rows
NEWLINE = "\r\n"  # a new ledger's line end: csv's, as grades.csv's

NO_LEDGER = "{path}: not a CSV with the columns " + ", ".join(COLUMNS)
NO_FOLDER = "--ledger {path}: no folder {folder} to keep it in"
BAD_DAYS = "days {text!r} is not a whole number (a grant gives days back: -2)"
NEEDS_LEDGER = ("{name} has a term's late days ([late_days]): give the ledger the term's "
                "assignments share, --ledger CSV (make mark-class LEDGER=FILE); a file that does "
                "not exist yet starts one")
POSITIVE_GRANT = ("a grant of {days} days would spend them: a grant gives days back, so its "
                  "days are negative (-{days})")
NO_BANK = "--ledger: {name} has no term's late days ([late_days]) to count"
OUT_OF_ORDER = ("warning: marking out of order: the ledger holds {names}, due after {name} "
                "({due}); the days spent there are counted as spent before this one")
SPENT = "{spent} of {free} late days spent here, {left} left"  # the reason on the run's rows


@dataclass(frozen=True)
class Entry:
    """One row of the ledger: `text` as the file holds it, kept byte for byte."""
    text: str
    student: str = None  # None: a blank row
    assignment: str = ""
    days: int = 0
    due: str = ""


@dataclass(frozen=True)
class Ledger:
    path: Path
    entries: tuple  # of Entry, in the file's order
    header: str = ""  # as the file holds it; "": a ledger not started yet
    separator: str = ","
    bom: bool = False
    newline: str = NEWLINE

    @property
    def columns(self) -> list:
        """The header's columns in its order (an instructor may add their own)."""
        if not self.header:
            return list(COLUMNS)
        return [name.strip().casefold() for name in
                next(csv.reader([self.header.rstrip("\r\n")], delimiter=self.separator))]


def read_ledger(path: Path) -> Ledger:
    """The ledger at `path`, an empty one when the file does not exist yet; ValueError with
    one line saying where, for a file that cannot be read whole."""
    if not path.parent.is_dir():
        raise ValueError(NO_FOLDER.format(path=escaped(str(path)),
                                          folder=escaped(str(path.parent))))
    if not path.exists():
        return Ledger(path, ())
    cells = dict(read_table(path, REQUIRED, NO_LEDGER))  # line -> cells: the checks said once
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(NOT_TEXT.format(path=path)) from None
    lines = io.StringIO(text, newline="").readlines()
    separator = next((separator for separator in SEPARATORS if set(COLUMNS) <= {
        name.strip().strip('"').casefold() for name in lines[0].split(separator)}), None)
    if separator is None:
        raise ValueError(NO_LEDGER.format(path=path))
    records = csv.reader(io.StringIO(text, newline=""), delimiter=separator)
    entries, start = [], 0
    for _ in records:
        end = records.line_num
        raw = "".join(lines[start:end])
        if start and end in cells:
            entries.append(_entry(path, end, cells[end], raw))
        elif start:
            entries.append(Entry(raw))
        start = end
    newline = lines[0][len(lines[0].rstrip("\r\n")):] or NEWLINE
    return Ledger(path, tuple(entries), lines[0], separator, data.startswith(b"\xef\xbb\xbf"),
                  newline)


def _entry(path, line: int, cells: dict, raw: str) -> Entry:
    days = as_written(cells["days"])
    try:
        count = int(days)
    except ValueError:
        raise ValueError(BAD_ROW.format(path=path, line=line,
                                        problem=BAD_DAYS.format(text=escaped(days)))) from None
    if as_written(cells["assignment"]) == GRANT and count > 0:
        raise ValueError(BAD_ROW.format(path=path, line=line,
                                        problem=POSITIVE_GRANT.format(days=count)))
    return Entry(raw, as_written(cells["student"]), as_written(cells["assignment"]), count,
                 cells["due"])


def as_written(cell: str) -> str:
    """A cell as meant, without the apostrophe a spreadsheet-safe file (ours) puts before a
    character that would start a formula: '-2 is -2."""
    return cell[1:] if cell[:1] == "'" and cell[1:2] and cell[1] in FORMULA_STARTS else cell


def people(student) -> list:
    """(id, name) of each person a student of the class stands for: a platform's members,
    else the name of their entry in the class folder."""
    if student.members:
        return [(person.id, person.name) for person in student.members]
    return [("", student_name(student.entry))]


def is_theirs(entry: Entry, person: tuple) -> bool:
    identity, name = person
    return entry.student is not None and (
        (identity and entry.student == identity) or name_key(entry.student) == name_key(name))


def days_left(ledger: Ledger, assignment, person: tuple) -> int:
    """The bank less what the person's rows of every other assignment hold (a grant's
    negative days give some back), never below 0."""
    spent = sum(entry.days for entry in ledger.entries
                if entry.assignment != assignment.name and is_theirs(entry, person))
    return max(0, assignment.late_days.free - spent)


def give_days_left(ledger: Ledger, assignment, students: list) -> None:
    """Each student's terms with the days left to them (a team's: its member with fewest)."""
    for student in students:
        left = min(days_left(ledger, assignment, person) for person in people(student))
        student.terms = replace(student.terms or Terms(), late_days_left=left)


def out_of_order(ledger: Ledger, assignment) -> str:
    """The warning when the ledger holds an assignment due after this one (its earliest due
    date: a student's extension does not make it later), else ""."""
    earliest = {}
    for entry in ledger.entries:
        if entry.student is None or entry.assignment in (assignment.name, GRANT):
            continue
        try:
            due = datetime.fromisoformat(entry.due)
        except ValueError:
            continue  # an instructor's row without a due date says no order
        if due.tzinfo is None:
            due = due.replace(tzinfo=assignment.deadline.tzinfo)
        earliest[entry.assignment] = min(due, earliest.get(entry.assignment, due))
    later = sorted(name for name, due in earliest.items() if due > assignment.deadline)
    if not later:
        return ""
    return OUT_OF_ORDER.format(names=", ".join(escaped(name) for name in later),
                               name=assignment.name, due=assignment.deadline.isoformat())


def spent_rows(assignment, students: list, rows: list, book: Ledger = None) -> list:
    """The run's rows: for each person of each student whose late rule applied (a time
    known), the late days spent here, the due date they were counted from, and the bank's
    sentence. A team spends as its member with the fewest days left (Terms.late_days_left);
    each member's row says what they have left of their own (`book`: the ledger read)."""
    found = []
    for student, row in zip(students, rows):
        late = assignment.mark_after_deadline(row.raw, student.submitted, student.terms)
        if late is None:
            continue
        for person in people(student):
            left = late.days_left if book is None or len(people(student)) == 1 else max(
                0, days_left(book, assignment, person) - late.days_spent)
            found.append({"student": person[0] or person[1], "assignment": assignment.name,
                          "days": str(late.days_spent), "due": late.due.isoformat(),
                          "who": WRITER, "reason": SPENT.format(spent=late.days_spent,
                                                                free=late.free, left=left)})
    return found


def timed_people(assignment, students: list) -> list:
    """(id, name) of each person spent_rows writes a row for: whose rows of `assignment`
    the run replaces, however they are keyed (an id, a name)."""
    return [person for student in students
            if assignment.deadline is not None and student.submitted is not None
            for person in people(student)]


def write_ledger(path: Path, assignment, rows: list, replaced_for: list = None) -> None:
    """The ledger read again (another run may have written since), its rows of `assignment`
    for the people the run writes rows for replaced by `rows`, where the first of them stood
    (at the end for a new assignment); every other row as it was (another section's
    students, marked by another run, keep theirs); the file replaced whole: a run that
    spends as the last one did leaves it byte for byte. `replaced_for`: those people as
    (id, name), so that a row of theirs keyed by either goes (by default, each row's
    student by name)."""
    ledger = read_ledger(path)
    ours = io.StringIO(newline="")
    sheet = csv.writer(ours, delimiter=ledger.separator, lineterminator=ledger.newline)
    for row in rows:
        sheet.writerow([spreadsheet_text(row.get(column, "")) for column in ledger.columns])
    theirs = replaced_for if replaced_for is not None else [("", row["student"]) for row in rows]
    texts = [ledger.header or ",".join(COLUMNS) + NEWLINE]
    for entry in ledger.entries:
        if entry.assignment != assignment.name or not any(is_theirs(entry, person)
                                                          for person in theirs):
            texts.append(entry.text)
        elif ours.getvalue():
            texts.append(ours.getvalue())
            ours = io.StringIO()  # written once, where the first of its rows stood
    texts.append(ours.getvalue())
    with replaced(path) as file:
        file.write("\ufeff" * ledger.bom)
        for text, following in zip(texts, texts[1:] + [""]):
            ends = text.endswith(("\n", "\r"))
            file.write(text + (ledger.newline if following and text and not ends else ""))
