"""A CSV an instructor saves from a learning platform or a spreadsheet (the times file, the
roster of teams, the overrides), read one way: Excel's "CSV UTF-8" starts with a byte-order
mark, some locales separate with `;` or a tab, headers are matched whatever their case and
spacing. A file that cannot be read whole is refused with one line saying where and why: a
mark must never rest on half a file. Its names are matched one way too (`name_key`). On
the lowest floor, so that the marker of one submission reads the overrides as the class
run does."""

import csv
import io
import os
import stat
import unicodedata

SEPARATORS = (",", ";", "\t")

NOT_TEXT = "{path}: not UTF-8 text (save it as CSV UTF-8)"
UNREADABLE = "{path}: cannot be read: {problem}"
BAD_ROW = "{path}, line {line}: {problem}"
SHORT_ROW = "no {column} on this row"
TOO_LONG = "a cell longer than any name or time: {problem}"
MOST_BYTES = 64 * 1024 * 1024  # far above any class's CSV; /dev/zero would never end
NOT_A_FILE = "{path}: not a file (a device or a pipe): save the CSV to a file"
TOO_LARGE = "{path}: larger than {most} MiB: not a CSV a platform or a spreadsheet saves"


def read_table(path, columns: tuple, missing: str) -> list:
    """(line, {column: its cell, stripped}) for each row that is not blank, each of
    `columns` given; ValueError with one line, `missing` (formatted with the path) when the
    header lacks one of them."""
    try:
        data = _whole(path)
    except OSError as problem:
        raise ValueError(UNREADABLE.format(path=path,
                                           problem=problem.strerror or problem)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(NOT_TEXT.format(path=path)) from None
    separator = _separator(text.partition("\n")[0], columns)
    if separator is None:
        raise ValueError(missing.format(path=path))
    rows = csv.DictReader(io.StringIO(text, newline=""), delimiter=separator)
    found = []
    try:
        rows.fieldnames = [name.strip().casefold() for name in rows.fieldnames]
        for row in rows:
            cells = {column: (value or "").strip() for column, value in row.items()
                     if column is not None}  # None: the cells past the header's, a list
            if not any(cells.values()):
                continue  # a blank line, or a row of empty cells
            for column in columns:
                if not cells.get(column):
                    raise ValueError(BAD_ROW.format(path=path, line=rows.line_num,
                                                    problem=SHORT_ROW.format(column=column)))
            found.append((rows.line_num, cells))
    except csv.Error as problem:
        raise ValueError(BAD_ROW.format(path=path, line=rows.line_num + 1,  # the one not read
                                        problem=TOO_LONG.format(problem=problem)
                                        if "limit" in str(problem) else problem)) from None
    return found


def _whole(path) -> bytes:
    """The file's bytes; ValueError, before reading, for what is not a regular file (a FIFO
    or /dev/zero would hang the run) or is over MOST_BYTES. Opened without blocking, so
    that a FIFO with no writer is refused rather than waited on."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(descriptor, "rb") as file:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode):
            raise ValueError(NOT_A_FILE.format(path=path))
        # the size first, so that nothing is read; the read is bounded for one still growing
        if found.st_size > MOST_BYTES or len(data := file.read(MOST_BYTES + 1)) > MOST_BYTES:
            raise ValueError(TOO_LARGE.format(path=path, most=MOST_BYTES // (1024 * 1024)))
        return data


def _separator(header: str, columns: tuple):
    """The separator that splits the header into all the columns, or None."""
    for separator in SEPARATORS:
        names = {name.strip().strip('"').casefold() for name in header.split(separator)}
        if set(columns) <= names:
            return separator
    return None


def name_key(name: str) -> str:
    """When two names are one student's: equal once NFKC-normalised, case-folded, and
    stripped of format characters (Unicode Cf: zero-width spaces, bidi overrides) and
    white space. `José` typed precomposed and `José` decomposed by a Mac, `Ann` and
    `ann`, `alice` and `al\u200bice` are one name."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return "".join(char for char in folded
                   if unicodedata.category(char) != "Cf" and not char.isspace())
