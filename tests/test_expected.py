"""`make expected` on an instructor's own assignment: what a new case compares (stdout and
the exit status; stderr only where the reference writes to it) and says it does, a
program that reads until end of input, the options make hands it, a missing file."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from exactmark.kit.cases import ROOT, load_cases

ASSIGNMENT = """\
title = "An instructor's own"
marks = 2
cpu_seconds = 5

[[programs]]
name = "echo"
reference = "."
cases = "cases"

  [[programs.groups]]
  name = "plain"
  marks = 1
  cases = ["plain_*"]
  visibility = "visible"
  compare = []

  [[programs.groups]]
  name = "all"
  marks = 1
  cases = ["all_*"]
  visibility = "visible"
"""
# Reads lines until end of input, echoes each; a line "warn" also goes to stderr, a line
# "fail N" ends with exit status N.
ECHO = """\
import sys

for line in sys.stdin:
    print(line, end="")
    if line.strip() == "warn":
        print("warned", file=sys.stderr)
    if line.startswith("fail"):
        sys.exit(int(line.split()[1]))
"""
END_OF_INPUT = "ends at end of input (it asked for more after the last line)"


@pytest.fixture
def course(tmp_path) -> Path:
    """An assignment of one Python program in a folder of its own, with a space in its name."""
    folder = tmp_path / "my course"
    folder.mkdir()
    (folder / "echo.py").write_text(ECHO)
    (folder / "own.toml").write_text(ASSIGNMENT)
    return folder


def expected(course: Path, *argv) -> tuple:
    """(exit status, {case: what the line written for it says after its id}, all output).
    git looks for a work tree no higher than the course's folder (wherever the test runs)."""
    done = subprocess.run([sys.executable, "-m", "exactmark.expected", "echo", "--assignment",
                           str(course / "own.toml"), *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "GIT_CEILING_DIRECTORIES": str(course.parent)})
    said = dict(line.split()[1:2] + [line.split(" ", 5)[-1]] for line in done.stdout.splitlines()
                if line.startswith("wrote "))
    return done.returncode, said, done.stdout + done.stderr


def stdin(course: Path, name: str, text: str) -> str:
    (course / name).write_text(text)
    return str(course / name)


def written(course: Path, name: str) -> list:
    return sorted(path.suffix for path in (course / "cases").glob(f"{name}.*"))


def test_git_is_named_only_where_the_cases_are_in_a_git_work_tree(course):
    status, _, output = expected(course, "--input", "one", stdin(course, "one", "a\n"))
    assert status == 0, output
    assert output.splitlines()[-1] == f"Review the new files in {course / 'cases'} before you " \
                                      "mark with them.", output
    subprocess.run(["git", "init", "-q", str(course)], check=True, timeout=60)
    status, _, output = expected(course, "--input", "two", stdin(course, "two", "b\n"))
    assert status == 0, output
    assert output.splitlines()[-1] == "Review the new files (git status, git diff) before " \
                                      "committing them.", output


def test_a_reference_that_stops_reading_its_input_is_a_normal_end(course):
    """More input than a pipe holds, of which the reference reads one line: writing the
    rest meets a closed pipe, which ends the writing, never the tool (SIGPIPE)."""
    (course / "echo.py").write_text("import sys\nprint(sys.stdin.readline(), end='')\n")
    status, said, output = expected(course, "--input", "all_first",
                                    stdin(course, "first", "a\n" * 100_000))
    assert status == 0, output
    assert (course / "cases" / "all_first.out").read_bytes() == b"a\n"


def test_its_own_stdout_closed_ends_the_tool_quietly_as_a_c_program_ends(course):
    """`make expected ... | head -0`: the reader is gone before the tool says a word."""
    writer = subprocess.Popen([sys.executable, "-m", "exactmark.expected", "echo", "--assignment",
                               str(course / "own.toml"), "--input", "all_one",
                               stdin(course, "one", "a\n")], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    writer.stdout.close()  # before the reference has run, let alone the tool printed
    _, errors = writer.communicate(timeout=120)
    assert (writer.returncode, errors) == (128 + signal.SIGPIPE, ""), errors


def test_nothing_written_is_nothing_to_review(course):
    expected(course, "--input", "one", stdin(course, "one", "a\n"))
    status, said, output = expected(course, "--input", "one", stdin(course, "one", "a\n"))
    assert status == 0 and not said, output
    assert output.splitlines()[-1].startswith("kept     echo/one"), output


def test_a_case_written_again_keeps_comparing_an_empty_stderr(course):
    """As the kit's own cases do (an empty NAME.err: nothing may go to stderr): --force
    rewrites the case, not what it compares."""
    expected(course, "--input", "all_again", stdin(course, "again", "a\n"))
    (course / "cases" / "all_again.err").write_bytes(b"")
    status, said, output = expected(course, "--force", "--input", "all_again",
                                    stdin(course, "again", "a\n"))
    assert status == 0, output
    assert (course / "cases" / "all_again.err").read_bytes() == b""
    assert said["echo/all_again"].startswith(
        ".in .out .tty .status .err (exit status 0): compares stdout, the exit status and "
        "stderr"), said


def test_a_case_compares_stderr_only_where_the_reference_writes_to_it(course):
    status, said, output = expected(course, "--input", "all_quiet", stdin(course, "quiet", "a\n"),
                                    "--input", "all_warned", stdin(course, "warned", "warn\n"))
    assert status == 0, output
    assert written(course, "all_quiet") == [".in", ".out", ".status", ".tty"]
    assert written(course, "all_warned") == [".err", ".in", ".out", ".status", ".tty"]
    assert said == {
        "echo/all_quiet": ".in .out .tty .status (exit status 0): compares stdout and the exit "
                          "status (not stderr: the reference writes none); " + END_OF_INPUT,
        "echo/all_warned": ".in .out .tty .status .err (exit status 0): compares stdout, the "
                           "exit status and stderr; " + END_OF_INPUT}, output


def test_the_line_written_says_what_the_cases_group_compares(course):
    """The group `plain` has `compare = []`: its cases compare stdout alone."""
    status, said, output = expected(course, "--input", "plain_warned",
                                    stdin(course, "warned", "warn\n"), "--input", "nowhere",
                                    stdin(course, "again", "a\n"))
    assert status == 0, output
    assert said == {
        "echo/plain_warned": ".in .out .tty .status .err (exit status 0): compares stdout; "
                             + END_OF_INPUT,
        "echo/nowhere": ".in .out .tty .status (exit status 0): no group of own holds it: add "
                        "it to one, or to kit_only; " + END_OF_INPUT}, output


def test_a_program_that_reads_until_end_of_input_has_its_cases_written(course):
    """No flag: the piped case ends at end of input, as the terminal's does."""
    status, said, output = expected(course, "--input", "all_lines",
                                    stdin(course, "lines", "a\nb\n"))
    assert status == 0 and said["echo/all_lines"].endswith(END_OF_INPUT), output
    case = next(case for case in load_cases("cases", course) if case.name == "all_lines")
    assert (case.stdout, case.screen, case.status, case.stderr) == \
        (b"a\nb\n", b"a\na\nb\nb\n", 0, None)  # the screen: each line typed, then echoed


def test_the_end_of_input_option_is_gone(course):
    status, _, output = expected(course, "--input", "all_lines", stdin(course, "lines", "a\n"),
                                 "--end-of-input")
    assert status == 2 and "unrecognized arguments: --end-of-input" in output, output


def make_expected(**variables) -> subprocess.CompletedProcess:
    """`make expected NAME=VALUE...` in the kit, with this interpreter and nothing installed;
    no variable of a make the tests run under reaches it."""
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return subprocess.run(["make", "-s", "-C", str(ROOT), "expected", "STAMP=",
                           f"VENV_PYTHON={sys.executable}",
                           *(f"{name}={value}" for name, value in variables.items())],
                          capture_output=True, text=True, timeout=300, env=environment)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_expected_hands_args_to_the_tool_unexpanded(course):
    """ARGS reaches `exactmark expected` as a shell splits it, and no shell reads it: the
    `$(...)` in a file name is a file name."""
    odd = course / "$(touch pwned) fail"
    odd.mkdir()
    (odd / "all_fails.in").write_text("a\nfail 3\n")
    done = make_expected(ASSIGNMENT=course / "own.toml", PROGRAM="echo",
                         ARGS=f"--status 3 --input all_failed '{odd / 'all_fails.in'}'",
                         INPUTS=odd)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("all_failed", "all_fails"):
        assert (course / "cases" / f"{name}.status").read_text() == "3\n", name
        assert f"wrote    echo/{name} .in .out .tty .status (exit status 3)" in done.stdout
    assert not (ROOT / "pwned").exists() and not (course / "pwned").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_expected_takes_seeds_and_simulate(tmp_path):
    """SEEDS and SIMULATE become --seed and --simulate: a program that prints its seed."""
    (tmp_path / "seeded.py").write_text(textwrap.dedent("""\
        def simulate(n, i):
            print(n * i)


        if __name__ == "__main__":
            print(int(input()) * 2)
        """))
    (tmp_path / "own.toml").write_text(ASSIGNMENT.replace('"echo"', '"seeded"')
                                       .replace('"plain_*"', '"seed_*"')
                                       .replace('"all_*"', '"simulate_*"'))
    done = make_expected(ASSIGNMENT=tmp_path / "own.toml", PROGRAM="seeded", SEEDS="3 4",
                         SIMULATE="10,2 5,-1")
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = {path.name: path.read_text() for path in (tmp_path / "cases").glob("*.out")}
    assert outputs == {"seed_3.out": "6\n", "seed_4.out": "8\n", "simulate_10_2.out": "20\n",
                       "simulate_5_-1.out": "-5\n"}, outputs


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_expected_without_a_program_says_to_give_one(course):
    done = make_expected(ASSIGNMENT=course / "own.toml")
    assert done.returncode != 0
    assert "give the program: make expected PROGRAM=NAME" in done.stderr, done.stderr


def test_a_missing_assignment_file_is_no_such_file(tmp_path):
    missing, folder = tmp_path / "warm-up.toml", tmp_path / "folder.toml"
    folder.mkdir()
    for given, said in ((missing, f"no such file: {missing}"),
                        (folder, f"{folder} is not an assignment file")):
        done = subprocess.run([sys.executable, "-m", "exactmark.expected", "echo",
                               "--assignment", str(given), "--seed", "1"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and said in done.stderr, done.stderr


def test_an_empty_input_is_said_to_end_at_once_not_after_a_last_line(course):
    """With no line to read, the program asked for input and got none: no "last line"."""
    status, said, output = expected(course, "--input", "all_none", stdin(course, "none", ""))
    assert status == 0, output
    assert said["echo/all_none"].endswith(
        "; ends at end of input (it asked for input and got none)"), output
