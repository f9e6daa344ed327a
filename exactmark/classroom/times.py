"""The class's submission times: a CSV with the columns `student` and `submitted`, as an
instructor exports it from a learning platform or a spreadsheet (Excel's "CSV UTF-8"
starts with a byte-order mark; some locales separate with `;` or a tab). A file that
cannot be read whole is refused with one line saying where and why: a mark must never
rest on half a times file."""

import csv
import io
from datetime import datetime

from exactmark.base.visible import escaped

COLUMNS = ("student", "submitted")
SEPARATORS = (",", ";", "\t")

NO_TIMES = "{path}: not a CSV with the columns student and submitted"
NOT_TEXT = "{path}: not UTF-8 text (save it as CSV UTF-8)"
UNREADABLE = "{path}: cannot be read: {problem}"
BAD_ROW = "{path}, line {line}: {problem}"
SHORT_ROW = "no {column} on this row"
TOO_LONG = "a cell longer than any name or time: {problem}"
BAD_TIME = "{text} is not a date and time such as 2027-03-11T14:30"
TWICE = ("{student} is given two different times, on lines {first} and {second}: keep the one "
         "that counts")


def read_times(path, zone, key) -> dict:
    """key(student) -> (student as written, when submitted, aware). `zone` is the
    assignment's time zone, for a time that gives none; `key` says when two names are
    one student (the class's own rule), so that "José" typed on Windows finds the folder
    a Mac named in decomposed form. Raises ValueError with a one-line message."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as problem:
        raise ValueError(UNREADABLE.format(path=path,
                                           problem=problem.strerror or problem)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(NOT_TEXT.format(path=path)) from None
    separator = _separator(text.partition("\n")[0])
    if separator is None:
        raise ValueError(NO_TIMES.format(path=path))
    rows = csv.DictReader(io.StringIO(text, newline=""), delimiter=separator)
    times, where = {}, {}
    try:
        rows.fieldnames = [name.strip().casefold() for name in rows.fieldnames]
        for row in rows:
            if not any((value or "").strip() for value in row.values() if isinstance(value, str)):
                continue  # a blank line, or a row of empty cells
            line = rows.line_num
            student, when = (_cell(path, line, row, column) for column in COLUMNS)
            submitted = _time(path, line, when, zone)
            found = key(student)
            if found in times and times[found][1] != submitted:
                raise ValueError(TWICE.format(student=escaped(student), first=where[found],
                                              second=line))
            times[found], where[found] = (student, submitted), where.get(found, line)
    except csv.Error as problem:
        raise ValueError(BAD_ROW.format(path=path, line=rows.line_num + 1,  # the one not read
                                        problem=TOO_LONG.format(problem=problem)
                                        if "limit" in str(problem) else problem)) from None
    return times


def _separator(header: str):
    """The separator that splits the header into both columns, or None."""
    for separator in SEPARATORS:
        names = {name.strip().strip('"').casefold() for name in header.split(separator)}
        if set(COLUMNS) <= names:
            return separator
    return None


def _cell(path, line: int, row: dict, column: str) -> str:
    value = row.get(column)
    if value is None or not value.strip():
        raise ValueError(BAD_ROW.format(path=path, line=line,
                                        problem=SHORT_ROW.format(column=column)))
    return value.strip()


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
