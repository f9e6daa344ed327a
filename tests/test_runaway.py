"""A program stopped for the size of its output, as the commonest fault of real C++
programs makes one: at the end of input `cin >>` fails, nothing checks it, and the prompt
is printed for ever. Its verdict says what it repeated and whether it had read all its
input by then (end of input); the report and the student's page show its first lines and
the lines it repeated; its reproduce command ends by itself at a shell.

The runs here are cheap in CPU: a cap of a few kilobytes where the test runs the program
itself, and two cases of the C++ program (each stopped at 4 MiB, some hundredths of a
second of CPU) where the marker does. Each wait is a guard against a hang, never a
measure: what is measured is bytes and lines."""

import re
import shutil
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from exactmark.kit.cases import ROOT, Case
from exactmark.kit.variants import read_variant
from exactmark.marking.verdicts import (FIRST_LINES, LAST_LINES, NOT_ALL_READ, OVERFLOW, PIPE,
                                        READ_ALL, REPEATED_LINES, TERMINAL, Kind, judge,
                                        repeated, runaway_lines)
from exactmark.running.limits import MOST_OUTPUT, Budget, mebibytes
from exactmark.running.record import SCREEN, STDERR, STDOUT, Limit, Ran
from exactmark.running.supervise import Piped, gather, kill_group, piped_ran
from tests.test_mark_assignments import run_marker

SAMPLE = ROOT / "references" / "calculation_cpp"
LOOPING = ROOT / "tests" / "wrong" / "calculation_cpp" / "loop_at_end_of_input.toml"
CASES = ("eof_at_main_menu", "eof_at_action_menu")
CAP = 4000  # bytes: a run the test supervises itself is stopped at this much output
BUDGET = Budget(cpu_seconds=10, wall_seconds=60, idle_seconds=10, most_output=CAP,
                most_stderr=CAP)
GUARD_SECONDS = 300  # against a hang only: a reproduce command needs a build and a moment
needs_gpp = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")

MENU = b"1. Start Game\n2. Options\n3. Quit\n"
LOOPED = MENU + b"That is not a valid choice.\n"  # eof_at_main_menu, without the EOF check


def case() -> Case:
    return Case("calculation_cpp", "eof_at_main_menu", ROOT / "expected_outputs" / "hoyle_cli")


def stopped(output: bytes, read_all=True, overflowed=STDOUT) -> Ran:
    return Ran(output, limit=Limit.OUTPUT, overflowed=overflowed, read_all_input=read_all)


# --- what the verdict says, from the bytes a run kept ---------------------------------------

def test_a_menu_printed_for_ever_at_end_of_input_is_said_in_one_sentence_and_shown():
    output = (b"Welcome!\n" + LOOPED * 200_000)[:MOST_OUTPUT]
    verdict = judge(case(), PIPE, stopped(output))
    assert verdict.kind == Kind.TOO_LARGE
    assert verdict.detail == (
        OVERFLOW.format(stream="stdout", most=mebibytes(MOST_OUTPUT))
        + ', repeating "1. Start Game" and the 3 lines after it again and again' + READ_ALL)
    assert "end of input" in verdict.detail and verdict.detail == verdict.detail.strip()
    assert verdict.runaway == ("its first lines:", "  Welcome!",
                               "then, from line 2 on, again and again:", "  1. Start Game",
                               "  2. Options", "  3. Quit", "  That is not a valid choice.")


def test_a_run_with_input_left_unread_says_so_and_one_not_known_says_nothing():
    output = b"x = " * 10_000
    unread = judge(case(), PIPE, stopped(output, read_all=False)).detail
    assert unread.endswith(', repeating "x =␠" again and again' + NOT_ALL_READ), unread
    unknown = judge(case(), PIPE, stopped(output, read_all=None)).detail
    assert unknown.endswith('repeating "x =␠" again and again'), unknown


def test_a_stderr_over_its_cap_shows_what_stderr_repeated():
    ran = Ran(b"Welcome!\n", b"debug: tick\n" * 1000, limit=Limit.OUTPUT, overflowed=STDERR,
              read_all_input=True)
    verdict = judge(case(), PIPE, ran)
    assert verdict.detail.startswith(OVERFLOW.format(stream="stderr", most=mebibytes(MOST_OUTPUT))
                                     + ', repeating "debug: tick" again and again'), verdict
    assert verdict.runaway == ("then, from line 1 on, again and again:", "  debug: tick")


def test_a_blank_line_repeated_is_said_and_a_long_block_is_cut():
    verdict = judge(case(), PIPE, stopped(b"\n" * 5000))
    assert ", repeating a blank line again and again;" in verdict.detail, verdict.detail
    assert verdict.runaway == ("then, from line 1 on, again and again:", "  (a blank line)")
    board = b"".join(b"row %d\n" % number for number in range(REPEATED_LINES + 4))
    shown = judge(case(), PIPE, stopped(board * 500)).runaway
    assert shown[-2:] == (f"  row {REPEATED_LINES - 1}", "  … 4 more lines"), shown


def test_at_a_terminal_the_screen_is_what_went_over():
    verdict = judge(case(), TERMINAL, stopped(LOOPED * 1000, overflowed=SCREEN))
    assert verdict.detail.startswith(OVERFLOW.format(stream="the screen",
                                                     most=mebibytes(MOST_OUTPUT)))


def test_an_output_that_repeats_nothing_shows_its_first_lines_and_counts_the_rest():
    output = b"".join(b"%d\n" % number for number in range(100_000))
    start, block = repeated(output)
    assert (start, block) == (len(output), b"")
    shown = runaway_lines(output, start, block)
    assert shown == ("its first lines:", *(f"  {number}" for number in range(FIRST_LINES)),
                     f"  … {100_000 - FIRST_LINES} more lines"), shown


def test_the_lines_just_before_the_repeating_are_shown_too():
    before = b"".join(b"line %d\n" % number for number in range(1, 31))
    output = before + b"again\n" * 1000
    shown = runaway_lines(output, *repeated(output))
    assert shown == ("its first lines:", *(f"  line {number}" for number in range(1, 11)),
                     f"  … {30 - FIRST_LINES - LAST_LINES} more lines",
                     *(f"  line {number}" for number in range(26, 31)),
                     "then, from line 31 on, again and again:", "  again"), shown


def test_a_prompt_repeated_on_one_line_is_shown_as_it_is_and_a_students_bytes_escaped():
    output = b"Score: 3\n" + b"\x1b[2JAgain? " * 1000
    verdict = judge(case(), PIPE, stopped(output))
    assert verdict.runaway == ("its first lines:", "  Score: 3",
                               "then, from line 2 on, again and again:",
                               "  ⟨U+001B⟩[2JAgain?␠"), verdict.runaway
    assert "\x1b" not in verdict.detail


# --- whether a run had read all its input when it went over ---------------------------------

def supervised(code: str, stdin: bytes) -> Ran:
    piped = Piped([sys.executable, "-c", code], "/", {}, started=lambda pid: None)
    gathered = gather(piped.process, stdin, BUDGET, piped.ended, lambda: kill_group(piped.pid))
    status, _ = piped.finish()
    return piped_ran(gathered, status, BUDGET, None, None, killed_by_rlimit=False)


@pytest.mark.parametrize("code, stdin, read_all", [
    ("import sys\nsys.stdin.read()\nwhile True: print('again?')", b"1\n2\n", True),
    ("while True: print('again?')", b"1\n2\n", False),  # it never reads its input
    # a line read of more than a pipe holds: the rest is still being fed
    ("import sys\nsys.stdin.readline()\nwhile True: print('again?')", b"1\n" * 100_000, False),
], ids=["all read, then a loop", "none read", "one line read of many"])
def test_a_piped_run_over_its_cap_says_whether_it_had_read_all_its_input(code, stdin, read_all):
    ran = supervised(code, stdin)
    assert (ran.limit, ran.overflowed, ran.read_all_input) == (Limit.OUTPUT, STDOUT, read_all)
    assert ran.stdout == (b"again?\n" * CAP)[:CAP]


def test_a_run_that_ends_without_reading_its_input_still_ends_with_its_status():
    """The pipe's own read end, which counts what is unread, never keeps a run's input
    waiting once the run has ended: more input than a pipe holds, none of it read."""
    ran = supervised("print('done')", b"x" * 1_000_000)
    assert (ran.stdout, ran.status, ran.limit, ran.read_all_input) == (b"done\n", 0, None, False)


def test_at_a_terminal_a_run_that_read_past_its_input_had_read_it_all(tmp_path):
    from exactmark.running.terminal import run_in_terminal

    code = "import sys\nsys.stdin.read()\nwhile True: print('again?')"
    ran = run_in_terminal([sys.executable, "-c", code], b"1\n", tmp_path, {},
                          timeout=GUARD_SECONDS, most_output=CAP)
    assert (ran.limit, ran.overflowed, ran.read_all_input) == (Limit.OUTPUT, SCREEN, True)


# --- the looping C++ program, marked: its report, its page, its reproduce command -----------

@pytest.fixture(scope="module")
def looping(tmp_path_factory):
    """The sample solution without its check for the end of input (tests/wrong/), marked on
    two cases that end at the end of input, by an assignment that shows them to the
    student: (its folder, the report, results.json, the assignment file)."""
    root = tmp_path_factory.mktemp("looping")
    sources = {path.name: path.read_text(encoding="utf-8") for path in SAMPLE.iterdir()}
    folder = root / "student"
    folder.mkdir()
    for name, text in read_variant(LOOPING).applied_to(sources).items():
        (folder / name).write_text(text, encoding="utf-8")
    text = (ROOT / "assignments" / "calculation_cpp.toml").read_text(encoding="utf-8")
    shown = text.replace('"../', f'"{ROOT}/').replace('visibility = "hidden"',
                                                      'visibility = "visible"')
    assignment = root / "calculation_cpp.toml"
    assignment.write_text(shown, encoding="utf-8")
    status, report, _, written = run_marker(
        folder, *(option for name in CASES for option in ("--only", f"calculation_cpp/{name}")),
        assignment=assignment)
    assert status == 1, report
    return folder, report, written, assignment


@needs_gpp
def test_the_report_shows_the_lines_repeated_at_end_of_input(looping):
    _, report, _, _ = looping
    said = (f"calculation_cpp/eof_at_main_menu: "
            f"{OVERFLOW.format(stream='stdout', most=mebibytes(MOST_OUTPUT))}, repeating "
            f'"1. Start Game" and the 3 lines after it again and again{READ_ALL}')
    assert re.search(rf"\n  output too large +[0-9.]+  {re.escape(said)}\n", report), report
    assert (f"\n{said}\n"  # under What differs, with what it showed
            "  input: ''\n") in report, report
    assert ("  its first lines:\n"
            "    Welcome to Calculation!\n"
            "  then, from line 2 on, again and again:\n"
            "    1. Start Game\n"
            "    2. Options\n"
            "    3. Quit\n"
            "    That is not a valid choice.\n") in report, report
    assert "calculation_cpp/eof_at_action_menu: " in report
    assert '"That is an invalid choice" again and again' in report
    assert not [line for line in report.splitlines() if line.endswith(" ")
                and line.lstrip().startswith(("output too large", "calculation_cpp/"))]


@needs_gpp
def test_the_students_page_shows_the_lines_repeated_at_end_of_input(looping, tmp_path):
    pytest.importorskip("jinja2", reason="the class's pages need jinja2")
    from exactmark.classroom import pages
    from exactmark.classroom.mark_class import Outcome
    from exactmark.classroom.roster import Student
    from exactmark.kit.assignment import load

    folder, _, written, assignment_file = looping
    assignment = load(str(assignment_file))
    outcome = Outcome(Student("Sam", folder, "folder", folder="Sam"), written)
    view = pages.View(assignment, datetime.now(timezone.utc), published=False)
    pages.write_feedback(tmp_path / "Sam", outcome, pages.grade_row(outcome, assignment), view)
    page = (tmp_path / "Sam" / "feedback.html").read_text(encoding="utf-8")
    assert ('<pre class="runaway">its first lines:\n'
            "  Welcome to Calculation!\n"
            "then, from line 2 on, again and again:\n"
            "  1. Start Game\n  2. Options\n  3. Quit\n"
            "  That is not a valid choice.</pre>") in page, page
    assert "it had read all its input and went on after end of input" in page
    text = (tmp_path / "Sam" / "feedback.txt").read_text(encoding="utf-8")
    assert "  then, from line 2 on, again and again:\n    1. Start Game\n" in text, text


@needs_gpp
def test_the_reproduce_command_ends_by_itself_and_shows_the_repeated_lines(looping, tmp_path):
    """Pasted at a shell in the student's folder, with the case's files beside it as their
    page lays them out, the command shows the output to a little past the expected one,
    then ends: head stops reading, and the program ends at its next write."""
    folder, _, written, _ = looping
    at = tmp_path / "student"
    shutil.copytree(folder, at)
    cases = at / "expected_outputs" / "hoyle_cli"
    cases.mkdir(parents=True)
    for name in CASES:
        for suffix in (".in", ".out"):
            shutil.copy(ROOT / "expected_outputs" / "hoyle_cli" / f"{name}{suffix}", cases)
    verdicts = {case["case"]: case["verdicts"][0] for case in written["extra_data"]["cases"]}
    command = verdicts["calculation_cpp/eof_at_main_menu"]["reproduce"]
    expected = (cases / "eof_at_main_menu.out").read_bytes()
    most = int(command.rpartition("head -c ")[2])
    assert command.endswith(f" 2>&1 | head -c {most}") and most > len(expected), command
    done = subprocess.run(["bash", "-c", command], cwd=at, capture_output=True,
                          timeout=GUARD_SECONDS)
    assert done.returncode == 0, done.stderr.decode()
    assert len(done.stdout) == most and done.stdout.startswith(b"Welcome to Calculation!\n")
    assert LOOPED * 3 in done.stdout, done.stdout.decode()
