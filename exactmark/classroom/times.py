"""The class's submission times: a CSV with the columns `student` and `submitted`, and, for a
student with terms of their own, `deadline` (their own due date, read as `submitted` is) or
`extension` (3 days, 36 hours: the deadline pushed back by it), read as every instructor's
CSV is (exactmark/base/instructor_csv.py). A row may give terms and no time: a student
who has not handed in yet."""

from datetime import datetime, timedelta
from typing import NamedTuple

from exactmark.base.visible import escaped
from exactmark.base.instructor_csv import BAD_ROW, SHORT_ROW, read_table
from exactmark.kit.late import Terms, countable, extended, extension_of, instant

COLUMNS = ("student",)
TIMED = ("submitted", "deadline", "extension")  # a times file has one of these at least

NO_TIMES = "{path}: not a CSV with the columns student and submitted"
BAD_TIME = "{text} is not a date and time such as 2027-03-11T14:30"
TWICE = ("{student} is given two different times, on lines {first} and {second}: keep the one "
         "that counts")
TERMS_TWICE = ("{student} is given two different terms, on lines {first} and {second}: keep the "
               "one that counts")
BOTH_TERMS = "both a deadline and an extension: give one"
# An extension as the marker's --extension takes it, in the largest unit that holds it whole.
EXTENSION_UNITS = (("day", timedelta(days=1)), ("hour", timedelta(hours=1)),
                   ("minute", timedelta(minutes=1)))


class Timed(NamedTuple):
    """A student's row of the times file."""
    student: str  # as written
    submitted: datetime = None  # aware; None: not handed in yet, or no time given
    terms: Terms = None  # None: the assignment's


def read_times(path, zone, key, deadline: datetime = None) -> dict:
    """key(student) -> Timed. `zone` is the assignment's time zone, for a time that gives
    none; `deadline` the assignment's, which an extension pushes back; `key` says when two
    names are one student (the class's own rule), so that "José" typed on Windows finds the
    folder a Mac named in decomposed form. Raises ValueError with a one-line message."""
    times, where = {}, {}
    for line, cells in read_table(path, COLUMNS, NO_TIMES):
        if not gives_times(cells):
            raise ValueError(NO_TIMES.format(path=path))
        student, terms = cells["student"], terms_of(path, line, cells, zone, deadline)
        if not cells.get("submitted") and terms is None:
            raise ValueError(BAD_ROW.format(path=path, line=line,
                                            problem=SHORT_ROW.format(column="submitted")))
        submitted = _time(path, line, cells["submitted"], zone) if cells.get("submitted") \
            else None
        found = key(student)
        if found in times:
            earlier = times[found]
            for said, first, second in ((TWICE, earlier.submitted, submitted),
                                        (TERMS_TWICE, earlier.terms, terms)):
                if None not in (first, second) and first != second:
                    raise ValueError(f"{path}: " + said.format(
                        student=escaped(student), first=where[found], second=line))
            submitted, terms = submitted or earlier.submitted, terms or earlier.terms
            student = earlier.student
        times[found], where[found] = Timed(student, submitted, terms), where.get(found, line)
    return times


def gives_times(cells: dict) -> bool:
    """Whether a row's header gives a time or terms (a file of names alone is no times file)."""
    return any(column in cells for column in TIMED)


def terms_of(path, line: int, cells: dict, zone, deadline: datetime):
    """The row's own terms (`deadline`, `extension`, or neither: None), as read_times reads
    them; ValueError saying the file and line."""
    own, extension = cells.get("deadline"), cells.get("extension")
    if own and extension:
        raise ValueError(BAD_ROW.format(path=path, line=line, problem=BOTH_TERMS))
    if own:
        return Terms(due=_time(path, line, own, zone))
    if extension:
        try:
            pushed = extension_of(extension)
        except ValueError as problem:
            raise ValueError(BAD_ROW.format(path=path, line=line, problem=problem)) from None
        if deadline is None:
            return Terms(extension=pushed)
        try:
            return extended(deadline, pushed)
        except ValueError as problem:
            raise ValueError(BAD_ROW.format(path=path, line=line, problem=problem)) from None
    return None


def extension_text(extension: timedelta) -> str:
    """An extension as `extension` columns and the marker's --extension say it: 3 days,
    36 hours, 90 minutes."""
    unit, size = next((unit, size) for unit, size in EXTENSION_UNITS
                      if not extension % size or unit == "minute")  # extension_of: whole minutes
    count = extension // size
    return f"{count} {unit}{'s' * (count != 1)}"


def _time(path, line: int, text: str, zone) -> datetime:
    """ISO 8601 (a `Z` for UTC too, which Python 3.10 does not read), in `zone` unless
    it says its own offset; one the late rule can count from (late.countable)."""
    try:
        when = instant(text, zone)
    except ValueError:
        raise ValueError(BAD_ROW.format(path=path, line=line, problem=BAD_TIME.format(
            text=repr(escaped(text))))) from None
    try:
        return countable(when, repr(escaped(text)), zone)
    except ValueError as problem:
        raise ValueError(BAD_ROW.format(path=path, line=line, problem=problem)) from None
