"""solitaire_2 at the console: the seed prompt, end of input at both prompts,
Ctrl-C at the viewer, a closed pipe (locale, import and Ctrl-C at the first
prompt: tests/test_every_program.py)."""

import os
import signal
import subprocess
import sys

import pexpect
import pytest

from common.console import EXIT_END_OF_INPUT, EXIT_INTERRUPTED, NOT_AN_INTEGER, SEED_PROMPT
from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT
from common.viewer import MENU, PROMPT
from tests.bytes_check import expect_same
from tests.interrupt import sigint_as_at_a_terminal

PROGRAM = str(ROOT / "solitaire_2.py")
CASES = EXPECTED_OUTPUTS / "solitaire_2"
SEED_4_QUERIES = (CASES / "seed_4_queries.in").read_bytes()
VIEWER_PROMPT = (MENU.format(count=1065) + "\n" + PROMPT).encode()  # seed 4 collects 1065 lines


def run(stdin: bytes, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, PROGRAM], input=stdin, capture_output=True,
                          timeout=30, env={**os.environ, **env})


def test_a_bad_seed_line_is_named_on_stderr_then_asked_again():
    done = run(b"abc\n\xff\n4\nq\n")
    expect_same(done.stderr, (NOT_AN_INTEGER.format(line="abc") + "\n"
                              + NOT_AN_INTEGER.format(line="\udcff") + "\n").encode(), "stderr")
    expect_same(done.stdout, SEED_PROMPT.encode() * 2 + run(b"4\nq\n").stdout, "stdout")
    assert done.returncode == 0


@pytest.mark.parametrize("stdin", [b"", b"abc\n", b"\n\n"])
def test_end_of_input_at_the_seed_prompt_exits_1_and_prints_nothing_more(stdin):
    done = run(stdin)
    assert done.returncode == EXIT_END_OF_INPUT
    expect_same(done.stdout, SEED_PROMPT.encode() * (stdin.count(b"\n") + 1), "stdout")
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("stdin", [b"4\n", b"4\n-1\n", b"4\n-1"])
def test_end_of_input_at_the_viewer_exits_0_after_the_prompt(stdin):
    done = run(stdin)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.endswith(VIEWER_PROMPT)


def test_q_exits_0_at_once_and_later_lines_are_not_read():
    done = run(b"4\n q \n-1\n")
    assert (done.returncode, done.stderr) == (0, b"")
    expect_same(done.stdout, run(b"4\n").stdout, "stdout")


def test_non_utf8_input_under_an_ascii_locale_is_incorrect_not_a_crash():
    done = run(b"4\n\xff\n\xe3\x80\x802\nq\n", LC_ALL="C", PYTHONIOENCODING="ascii")
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.count(VIEWER_PROMPT) == 3


def test_a_closed_pipe_ends_the_program_quietly():
    reader = subprocess.Popen([sys.executable, PROGRAM], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader.stdin.write(b"0\n" + b"1--1140\n" * 50 + b"q\n")
    reader.stdin.close()
    reader.stdout.read(10)
    reader.stdout.close()  # like `| head -c 10`
    assert reader.wait(timeout=30) in (0, -signal.SIGPIPE)
    assert reader.stderr.read() == b""


def test_ctrl_c_at_the_viewer_exits_130_without_traceback():
    child = pexpect.spawn(sys.executable, [PROGRAM], timeout=30, preexec_fn=sigint_as_at_a_terminal)
    child.expect_exact(SEED_PROMPT)
    child.sendline("4")
    child.expect_exact(VIEWER_PROMPT.decode().replace("\n", "\r\n"))
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == EXIT_INTERRUPTED
    assert b"Traceback" not in child.before


def test_simulate_returns_none_and_prints_only_the_table(capsys):
    from solitaire_2 import simulate

    assert simulate(1, 4) is None
    expect_same(capsys.readouterr().out.encode(), (CASES / "simulate_1_4.out").read_bytes(),
                "simulate(1, 4)")


def test_simulate_rows_are_32_characters_decreasing_and_above_zero(capsys):
    from solitaire_2 import simulate

    simulate(300, 7)
    heading, rule, *rows = capsys.readouterr().out.splitlines()
    assert heading == "Number of cards left | Frequency" and rule == "-" * 32
    assert all(len(row) == 32 for row in rows)
    counts = [int(row.split("|")[0]) for row in rows]
    assert counts == sorted(counts, reverse=True) and counts[-1] == 0
    percentages = [float(row.split("|")[1].rstrip("%")) for row in rows]
    assert all(percentage > 0 for percentage in percentages)
    assert sum(percentages) == pytest.approx(100, abs=0.01 * len(rows))
