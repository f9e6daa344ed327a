"""What every CSV the kit writes for a spreadsheet obeys: no cell a spreadsheet could run (a
student's folder named `=HYPERLINK(...)`, or `mallory;=1+1` in a sheet that splits on `;`,
is text wherever the file is split), and a file replaced whole, never left half written.
The class's sheets and the sheets a platform takes back (Canvas, Moodle) all write so."""

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path

FORMULA_STARTS = "=+-@\t\r"
SEPARATORS = ",;\t\n"
# A formula may start a cell, or any piece a spreadsheet splits a cell into.
FORMULA = re.compile(f"(^|[{re.escape(SEPARATORS)}])([{re.escape(FORMULA_STARTS)}])")


def spreadsheet_text(text: str) -> str:
    """A cell a spreadsheet shows as text: wherever it starts, or wherever a split on a
    comma, semicolon, tab or line end would start a piece, a character that starts a
    formula (`=`, `+`, `-`, `@`, a tab, a CR) gets an apostrophe before it."""
    return FORMULA.sub(lambda match: f"{match[1]}'{match[2]}", text)


@contextmanager
def replaced(path: Path):
    """A new file, renamed over `path` once whole: an interrupted run leaves the last
    sheet, never half of one."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as file:
            yield file
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
