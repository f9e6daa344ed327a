"""Students' own terms built into Gradescope's autograder: `exactmark gradescope NAME
--extensions CSV` (`make gradescope ... EXTENSIONS=FILE`).

The CSV is read as every instructor's CSV is (exactmark/base/instructor_csv.py: a BOM,
`;` or tabs, headers in any case), one row a student:

    student            an email (matched whatever its case) or Gradescope's user id (a
                       number), as submission_metadata.json's `users` give them. Not a name:
                       two students may share one, and a name changes on the roster
    deadline           their own due date (ISO 8601, in the assignment's time zone unless it
                       says its own offset), or
    extension          an extension of the deadline: "3 days", "36 hours", "1 day 12 hours"
    late_days_left     optional: the term's late days left to them before this assignment

Gradescope's own extensions need no file: its submission metadata gives each student's own
due date (exactmark/gradescope/run.py). The build refuses a file it cannot read whole in
one line saying where; what it read goes into the zip as run.EXTENSIONS_NAME, JSON the
autograder reads with the standard library, its digest in autograder.json so that
setup.sh's check fails on a damaged or replaced one."""

import hashlib
import json
import re

from exactmark.base.visible import escaped
from exactmark.base.instructor_csv import BAD_ROW, read_table
from exactmark.kit.late import ExtensionTooLarge, countable, extension_of, instant
from exactmark.kit.late import extended as pushed_back

COLUMNS = ("student",)
TERMS = ("deadline", "extension", "late_days_left")
EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
DIGITS = re.compile(r"[0-9]+")  # a user id, a count of days

NOT_EXTENSIONS = ("{path}: not a CSV with the columns student and deadline or extension "
                  "(late_days_left optional)")
NO_TERMS_COLUMN = "{path}: no column deadline, extension or late_days_left: nothing to apply"
NO_DEADLINE = "{path}: {name} has no deadline, so no student's own terms to apply"
NOT_A_STUDENT = ("{student} is neither an email nor Gradescope's user id (a number): names "
                 "are not matched, as two students may share one")
NO_BANK = ("late_days_left, but {name} has no term's late days ([late_days]) to spend: "
           "leave the column empty")
BOTH = "give a deadline or an extension, not both"
NOTHING = "no deadline, extension or late_days_left on this row"
BAD_TIME = "{text} is not a date and time such as 2027-03-12T09:00"
BAD_EXTENSION = 'extension {text} is not one such as "3 days", "36 hours" or "1 day 12 hours"'
BAD_DAYS = "late_days_left {text} is not a whole number of days, 0 or more"
TWICE = "{student} is given terms on lines {first} and {second}: keep one"


def student_key(text: str) -> str:
    """How submission_metadata.json's users are looked up: an email casefolded, or a
    user id as its digits; ValueError otherwise."""
    if EMAIL.fullmatch(text):
        return text.casefold()
    if DIGITS.fullmatch(text):
        return str(int(text))
    raise ValueError(NOT_A_STUDENT.format(student=repr(escaped(text))))


def read_extensions(path, assignment) -> dict:
    """{student key: {"due": ISO 8601 or None, "extension": text or None,
    "late_days_left": int or None}}: an extension's due date is the deadline and it (the
    autograder compares a group's); ValueError with one line."""
    if assignment.deadline is None:
        raise ValueError(NO_DEADLINE.format(path=path, name=assignment.name))
    rows = read_table(path, COLUMNS, NOT_EXTENSIONS)
    if rows and not any(column in rows[0][1] for column in TERMS):
        raise ValueError(NO_TERMS_COLUMN.format(path=path))
    found, where = {}, {}
    for line, cells in rows:
        try:
            key = student_key(cells["student"])
            if key in found:
                raise ValueError(TWICE.format(student=repr(escaped(cells["student"])),
                                              first=where[key], second=line))
            found[key], where[key] = row_terms(cells, assignment.deadline), line
            if found[key]["late_days_left"] is not None and assignment.late_days is None:
                raise ValueError(NO_BANK.format(name=assignment.name))
        except ValueError as problem:
            raise ValueError(BAD_ROW.format(path=path, line=line, problem=problem)) from None
    return found


def row_terms(cells: dict, common) -> dict:
    """One row's terms, `common` the assignment's deadline; ValueError saying what is
    wrong with the row."""
    deadline, extension, days = (cells.get(column, "") for column in TERMS)
    if deadline and extension:
        raise ValueError(BOTH)
    if not (deadline or extension or days):
        raise ValueError(NOTHING)
    due = (due_of(deadline, common.tzinfo) if deadline else
           # in elapsed time, as the marker counts it: 3 days are 72 hours across a clock change
           pushed_back(common, extended(extension)).due.isoformat() if extension else None)
    return {"due": due, "extension": extension or None,
            "late_days_left": days_of(days) if days else None}


def due_of(text: str, zone) -> str:
    """ISO 8601 (a `Z` for UTC too), in `zone` unless it says its own offset; one the late
    rule can count from (late.countable: ValueError otherwise)."""
    try:
        when = instant(text, zone)
    except ValueError:
        raise ValueError(BAD_TIME.format(text=repr(escaped(text)))) from None
    return countable(when, repr(escaped(text)), zone).isoformat()


def extended(text: str):
    """The extension, as the marker reads it (one too large said so)."""
    try:
        return extension_of(text)
    except ExtensionTooLarge:
        raise
    except ValueError:
        raise ValueError(BAD_EXTENSION.format(text=repr(escaped(text)))) from None


def days_of(text: str) -> int:
    if not DIGITS.fullmatch(text):
        raise ValueError(BAD_DAYS.format(text=repr(escaped(text))))
    return int(text)


def extensions_bytes(found: dict) -> bytes:
    """What the zip holds: the same terms, the same bytes."""
    return json.dumps(found, indent=2, sort_keys=True).encode() + b"\n"


def record(data: bytes, found: dict) -> dict:
    """autograder.json's record of the file: how many students, and its digest."""
    return {"students": len(found), "sha256": hashlib.sha256(data).hexdigest()}
