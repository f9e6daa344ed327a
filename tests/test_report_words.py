"""The marker's report says what is true, each thing once, in columns that line up:
its sentences tried one at a time, without marking anything."""

import re
from types import SimpleNamespace

import pytest

from exactmark.kit.assignment import load
from exactmark.kit.cases import ROOT
from exactmark.marking.report import (CASE_LINE, KIND_WIDTH, MISSING, MISSING_LINE,
                                      NOT_BUILT_LINE, reproduce, verdict_data)
from exactmark.marking.verdicts import PIPE, TERMINAL, Kind, Rules, how, judge
from exactmark.running.record import Limit, Ran

TABLE = b"a\nb\n"  # a case's expected stdout


def case(stdout: bytes = TABLE, status: int = 0):
    return SimpleNamespace(id="p/c", stdout=stdout, screen=None, stderr=None, status=status)


@pytest.mark.parametrize("kind", list(Kind), ids=str)
def test_every_verdict_word_fits_its_column(kind):
    line = CASE_LINE.format(kind=kind, width=KIND_WIDTH, marks=0.5, case="p/c", detail="")
    column = len("  ") + KIND_WIDTH + 1  # the marks', five characters wide
    assert line[:column] == f"  {kind!s}".ljust(column) and line[column:column + 5] == " 0.50", \
        f"{kind!s} ({len(kind.value)} characters) pushes the marks out of their column: {line!r}"


def test_a_missing_program_and_an_unbuilt_one_keep_the_column():
    missing = MISSING_LINE.format(program="p", missing=MISSING, width=KIND_WIDTH, why="why")
    unbuilt = NOT_BUILT_LINE.format(kind=Kind.NOT_BUILT, width=KIND_WIDTH, count=3)
    column = len("  ") + KIND_WIDTH + 1
    assert missing.splitlines()[1].index("why") == column, missing
    assert unbuilt.index("(all") == column, unbuilt


@pytest.mark.parametrize("ran, said", [
    (Ran(b"debug\n" + TABLE, b"", 0), "1 line too many at line 1, otherwise as expected: `debug`"),
    (Ran(b"debug\n" + TABLE, b"oops\n", 2),
     "1 line too many at line 1: `debug`; and exit status 2, want 0; stderr ends: oops"),
    (Ran(b"debug\n" + TABLE, b"Traceback (most recent call last):\nValueError: boom\n", 1),
     "ValueError: boom; 1 line too many at line 1: `debug`"),
    (Ran(b"debug\n" + TABLE, b"", None, Limit.CPU),
     "over the CPU time limit of 30 s; 1 line too many at line 1: `debug`"),
], ids=["alone", "then an exit status", "then a crash", "then a timeout"])
def test_otherwise_as_expected_only_when_nothing_else_differs(ran, said):
    assert how(judge(case(), PIPE, ran)) == said


@pytest.mark.parametrize("stderr, expected, said, kind", [
    (b"debug\n", b"", "1 line on stderr, where the case expects none (stderr is checked "
     "too): `debug`", "lines on stderr"),
    (b"Bad seed\ndebug\n", b"Bad seed\n",
     "1 extra line after the expected end, from line 2: `debug`",
     "on stderr: output goes on too long"),
], ids=["where none is expected", "after the expected"])
def test_lines_on_stderr_are_said_to_be_on_stderr(stderr, expected, said, kind):
    wrong = case()
    wrong.stderr = expected
    verdict = judge(wrong, PIPE, Ran(TABLE, stderr, 0))
    assert (verdict.kind, verdict.detail, verdict.near_miss.kind) == (Kind.WRONG_STDERR, said, kind)


def test_a_terminal_case_is_reproduced_at_a_terminal_not_piped():
    seeded = load("seeded")
    seed_0 = next(marked.case for marked in seeded.marked_cases["solitaire_1"]
                  if marked.case.name == "seed_0")
    program = seeded.programs["solitaire_1"]
    piped = reproduce(seed_0, program, Kind.WRONG)
    at_a_terminal = reproduce(seed_0, program, Kind.WRONG, mode=TERMINAL)
    assert piped == ("python3 solitaire_1.py < expected_outputs/solitaire_1/seed_0.in | "
                     "diff - expected_outputs/solitaire_1/seed_0.out")
    assert at_a_terminal == (
        "python3 solitaire_1.py  # at a terminal: the screen should read as "
        "expected_outputs/solitaire_1/seed_0.tty, typing each line of "
        "expected_outputs/solitaire_1/seed_0.in as it asks")
    verdict = judge(seed_0, TERMINAL, Ran(b"not the screen\n"))
    assert verdict_data(seed_0, program, verdict).reproduce == at_a_terminal


@pytest.mark.parametrize("ran, compare, stderr, said", [
    (Ran(TABLE + b"extra\n", b"", 0), {"status"}, None,
     "1 extra line after the expected end, from line 3: `extra`; and exit status 0, want 1"),
    (Ran(TABLE + b"extra\n", b"why\n", 0), {"status", "stderr"}, b"",
     "1 extra line after the expected end, from line 3: `extra`; and exit status 0, want 1; "
     "stderr ends: why; and its stderr differs from the case's"),
    (Ran(TABLE + b"extra\n", b"why\n", 0), set(), b"",
     "1 extra line after the expected end, from line 3: `extra`"),
], ids=["the status compared", "the status and stderr compared", "neither compared"])
def test_a_wrong_output_says_each_other_comparison_that_failed(ran, compare, stderr, said):
    """A group that compares the exit status makes it the point: a wrong output beside a
    wrong status says both."""
    wrong = case(status=1)
    wrong.stderr = stderr
    verdict = judge(wrong, PIPE, ran, Rules(compare=frozenset(compare)))
    assert (verdict.kind, how(verdict)) == (Kind.WRONG, said)


def test_every_mark_the_report_and_the_checker_say_has_two_decimals():
    """The guide says so: 6.5 marks read 6.50, 6 marks 6.00, beside 2.19 earned."""
    from exactmark.marking.mark import MARKING
    from exactmark.marking.report import PROGRAM_HEAD, PROGRAM_MARKS
    from exactmark.pack.check import NO_CASE_YET, SUMMARY
    said = [PROGRAM_HEAD.format(program="p", passed=14, total=50, earned=2.1875, marks=6.5),
            PROGRAM_MARKS.format(program="p", earned=6, marks=6),
            MARKING.format(submission="s", assignment="a", title="t", marks=13),
            SUMMARY.format(passed=1, total=2, unseen=1),
            NO_CASE_YET.format(folder="f", group="g", marks=10, asked="")]
    assert [re.findall(r"\b[0-9]+(?:\.[0-9]+)?(?= marks)", line) for line in said] == [
        ["6.50"], ["6.00"], ["13.00"], ["1.00"], ["10.00"]], said
    assert said[0].endswith("2.19 of 6.50 marks"), said[0]


def test_in_a_log_of_stdout_and_stderr_the_header_comes_before_the_progress(tmp_path):
    """`exactmark mark ... >log 2>&1`: the report's header is printed (and flushed) before
    the first progress line on stderr, and said once."""
    import subprocess
    import sys
    from tests.test_mark import submission

    folder = submission(tmp_path, "solitaire_2.py")
    with open(tmp_path / "log", "wb") as log:
        subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(folder),
                        "--assignment", "seeded", "--only", "solitaire_2/no_input"],
                       cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, timeout=300)
    lines = (tmp_path / "log").read_text(encoding="utf-8").splitlines()
    marking = [index for index, line in enumerate(lines) if line.startswith("Marking ")]
    progress = [index for index, line in enumerate(lines) if line.startswith("[1/1] ")]
    assert len(marking) == 1 and len(progress) == 1 and marking[0] < progress[0], lines
    assert sum(line.startswith("Limits per run: ") for line in lines) == 1, lines


def test_lines_on_stderr_where_none_is_expected_are_one_way_of_failing_per_program():
    """Whatever the lines say (the seed, in a debug line): one way for a program's cases,
    another for another program's."""
    from exactmark.marking.grouping import difference

    def debugged(case_id: str, seed: int):
        quiet = SimpleNamespace(id=case_id, stdout=TABLE, screen=None, stderr=b"", status=0)
        return judge(quiet, PIPE, Ran(TABLE, f"DEBUG: seed is {seed}\n".encode(), 0))
    first, second, other = debugged("p/a", 1), debugged("p/b", 2), debugged("q/a", 1)
    assert first.kind == Kind.WRONG_STDERR
    assert difference(first) == difference(second) != difference(other)
