"""A Python program that dies before printing anything (a SyntaxError: `print("hi"`) is
one crash, said once for all its cases, with the file and line Python names, and no diff
against an output it never printed: in the student's checker and in the marker's report.

The program ends at once in every case: the checker's and the marker's runs of it cost
hundredths of a second each."""

import re
import subprocess
import sys

import pytest

from exactmark.kit.assignment import load
from exactmark.marking.verdicts import PIPE, Kind, judge
from exactmark.pack import build as pack_build
from exactmark.running.record import Ran
from tests.test_mark_assignments import run_marker

BROKEN = 'print("hi"\n'
SAID = "SyntaxError: '(' was never closed (solitaire_2.py, line 1)"
SYNTAX_ERROR = (b'  File "/somewhere/run-3/solitaire_2.py", line 1\n    print("hi"\n         ^\n'
                b"SyntaxError: '(' was never closed\n")
GUARD_SECONDS = 600  # against a hang only


def solitaire_2_cases() -> list:
    return [marked.case for marked in load("seeded").marked_cases["solitaire_2"]]


@pytest.mark.parametrize("stderr, said", [
    (SYNTAX_ERROR, SAID),
    (b'Traceback (most recent call last):\n  File "/x/y/solitaire_2.py", line 7, in <module>\n'
     b"    main()\nValueError: no\n", "ValueError: no (solitaire_2.py, line 7)"),
    (b"Traceback (most recent call last):\nKeyboardInterrupt\n", "KeyboardInterrupt"),
    (b'Traceback (most recent call last):\n  File "/x/solitaire_2.py", line 9, in <module>\n'
     b'  File "/usr/lib/python3.11/subprocess.py", line 1883, in _execute_child\n'
     b"BlockingIOError: [Errno 11] Resource temporarily unavailable\n",
     "BlockingIOError: [Errno 11] Resource temporarily unavailable (solitaire_2.py, line 9)"),
], ids=["a SyntaxError, without a Traceback line", "a traceback", "a traceback without a place",
        "a traceback through Python's library"])
def test_a_python_error_is_a_crash_named_with_its_file_and_line(stderr, said):
    case = solitaire_2_cases()[0]
    verdict = judge(case, PIPE, Ran(b"", stderr, 1))
    assert (verdict.kind, verdict.detail, verdict.diff) == (Kind.CRASH, said, "")


def test_a_bad_seed_line_on_stderr_is_no_python_error():
    case = next(case for case in solitaire_2_cases() if case.status == 1)
    assert judge(case, PIPE, Ran(b"", b"Bad seed: it must be a number\n", 1)).kind != Kind.CRASH


def what_differs(report: str) -> str:
    return report.partition("\nWhat differs\n")[2]


def said_once(report: str, cases: int) -> None:
    """Every case (each of its runs) a crash with SAID; one way of failing, with no diff."""
    table = report.partition("\nWhat differs\n")[0]
    lines = [line for line in table.splitlines() if re.match(r"^  \S.* solitaire_2/", line)]
    assert len({re.search(r"solitaire_2/[^\s:]+", line)[0] for line in lines}) == cases and all(line.lstrip().startswith("crash ") and SAID in line
                                       for line in lines), report
    differs = what_differs(report)
    assert len(re.findall(r"^\d+ cases differ the same way: solitaire_2/", differs, re.M)) == 1, \
        differs
    assert "  as in solitaire_2/" in differs and SAID in differs, differs
    assert "--- expected" not in differs, differs


def test_the_checker_says_a_syntax_error_once(tmp_path):
    assert pack_build.main(["--assignment", "seeded", str(tmp_path / "pack")]) == 0
    student = tmp_path / "student"
    student.mkdir()
    (student / "solitaire_2.py").write_text(BROKEN, encoding="utf-8")
    done = subprocess.run([sys.executable, str(tmp_path / "pack" / "check.py"), str(student)],
                          capture_output=True, text=True, timeout=GUARD_SECONDS)
    assert done.returncode == 1, done.stderr
    visible = int(re.search(r"^solitaire_2: 0 of (\d+) visible cases? pass$", done.stdout,
                            re.M)[1])
    said_once(done.stdout, visible)


def test_the_marker_says_a_syntax_error_once(tmp_path):
    from tests.test_mark import submission
    folder = submission(tmp_path, "solitaire_2.py")
    (folder / "solitaire_2.py").write_text(BROKEN, encoding="utf-8")
    status, report, _, _ = run_marker(folder, "--only", "solitaire_2/*")
    assert status == 1, report
    said_once(report, load("seeded").case_count("solitaire_2"))  # its fresh games too
    assert re.search(r"reproduce, in the submission's folder: python3 solitaire_2.py < \S+ "
                     r"> /dev/null$", report, re.M), report
