"""The class's submission times: a CSV with the columns `student` and `submitted`, read as
every instructor's CSV is (exactmark/base/instructor_csv.py)."""

from datetime import datetime

from exactmark.base.visible import escaped
from exactmark.base.instructor_csv import BAD_ROW, read_table

COLUMNS = ("student", "submitted")

NO_TIMES = "{path}: not a CSV with the columns student and submitted"
BAD_TIME = "{text} is not a date and time such as 2027-03-11T14:30"
TWICE = ("{student} is given two different times, on lines {first} and {second}: keep the one "
         "that counts")


def read_times(path, zone, key) -> dict:
    """key(student) -> (student as written, when submitted, aware). `zone` is the
    assignment's time zone, for a time that gives none; `key` says when two names are
    one student (the class's own rule), so that "José" typed on Windows finds the folder
    a Mac named in decomposed form. Raises ValueError with a one-line message."""
    times, where = {}, {}
    for line, cells in read_table(path, COLUMNS, NO_TIMES):
        student = cells["student"]
        submitted = _time(path, line, cells["submitted"], zone)
        found = key(student)
        if found in times and times[found][1] != submitted:
            raise ValueError(TWICE.format(student=escaped(student), first=where[found],
                                          second=line))
        times[found], where[found] = (student, submitted), where.get(found, line)
    return times


def _time(path, line: int, text: str, zone) -> datetime:
    """ISO 8601 (a `Z` for UTC too, which Python 3.10 does not read), in `zone` unless
    it says its own offset."""
    try:
        when = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        raise ValueError(BAD_ROW.format(path=path, line=line, problem=BAD_TIME.format(
            text=repr(escaped(text))))) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone)
    return when
