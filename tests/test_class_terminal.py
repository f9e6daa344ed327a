"""`exactmark class` at a terminal (docs/guide/marking.md): the bar advances with the cases
done, the elapsed and remaining time, even on a terminal that says no size (0 by 0, as
`script` in a pipe gives), and the entries marked as nothing are said once at the end:
today they were only in grades.csv."""

import os
import pty
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from exactmark.kit.assignment import load
from exactmark.kit.bundle import write_assignment

CHECKOUT = Path(__file__).resolve().parents[1]
TIMEOUT = 600
SEEDED = load("seeded")
# The bar counts every case a student's marking runs (fresh ones too), for each of 3 entries.
CASES = 3 * sum(SEEDED.case_count(program) for program in SEEDED.programs)


def at_a_terminal(argv: list, cwd: Path) -> tuple:
    """(exit status, what the terminal showed: stdout and stderr, `\\r` kept) for `argv`
    run with both on a fresh pseudo-terminal, whose size is 0 by 0 until someone sets it."""
    leader, follower = pty.openpty()
    shown = bytearray()

    def read():
        while True:
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # EIO: every holder of the follower end has closed it
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        done = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=follower,
                              stderr=follower, timeout=TIMEOUT,
                              env={**os.environ, "PYTHONPATH": str(CHECKOUT)})
    finally:
        os.close(follower)
        reader.join(TIMEOUT)
        os.close(leader)
    return done.returncode, shown.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def shown(tmp_path_factory) -> str:
    """A class of three at a terminal: a right student, an empty folder, a stray file."""
    folder = tmp_path_factory.mktemp("terminal")
    write_assignment(SEEDED, folder / "class" / "ann")
    (folder / "class" / "empty").mkdir()
    (folder / "class" / "notes.txt").write_text("not a submission\n", encoding="utf-8")
    status, text = at_a_terminal([sys.executable, "-m", "exactmark", "class", "class",
                                  "--assignment", "seeded", "--out", "marked"], folder)
    assert status == 0, text
    return text


def test_the_bar_shows_and_advances_on_a_terminal_that_says_no_size(shown):
    bars = [line for line in re.split(r"[\r\n]+", shown) if " students:" in line]
    assert bars, f"no bar was drawn; the terminal showed:\n{shown}"
    assert re.search(rf"^0/3 students: +0%\|.*\| 0/{CASES} \[00:00<\?", bars[0]), bars[0]
    assert re.search(rf"^3/3 students: 100%\|.*\| {CASES}/{CASES} \[\d\d:\d\d<00:00",
                     bars[-1]), bars[-1]


def test_the_entries_marked_as_nothing_are_said_once_at_the_end(shown):
    lines = shown.replace("\r", "\n").splitlines()
    refused = [line for line in lines if line.startswith("refused: ")]
    assert refused == ["refused: notes.txt: 'notes.txt' is neither a folder nor a .zip, .tar.gz "
                       "or .tgz archive"], shown
    assert [line for line in lines if line.startswith("handed in none")] == [
        "handed in none of the programs (1): empty"], shown
