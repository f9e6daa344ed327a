"""solitaire_1 at the prompt: seeds as int() reads them, bad lines, end of input,
a closed pipe, huge seeds, and the screens of the golden cases (locale, import
and Ctrl-C: tests/test_every_program.py)."""

import os
import re
import signal
import subprocess
import sys

import pytest

from common.console import EXIT_END_OF_INPUT, NOT_AN_INTEGER, SEED_PROMPT
from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT, load_cases
from tests.bytes_check import expect_same

PROGRAM = str(ROOT / "solitaire_1.py")
PROMPT = SEED_PROMPT.encode()


def run(stdin: bytes, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, PROGRAM], input=stdin, capture_output=True,
                          timeout=30, env={**os.environ, **env})


def game_after_prompt(seed: int) -> bytes:
    """The seed's game as stdout holds it after the prompt."""
    return run(f"{seed}\n".encode()).stdout[len(PROMPT):]


@pytest.mark.parametrize("line, seed", [(" 12 ", 12), ("+12", 12), ("-3", -3), ("1_0", 10),
                                        ("\t7\r", 7), ("0012", 12)])
def test_a_seed_line_is_what_int_reads(line, seed):
    done = run(f"{line}\n".encode())
    assert done.returncode == 0 and done.stderr == b""
    expect_same(done.stdout, PROMPT + game_after_prompt(seed), f"seed line {line!r}")


@pytest.mark.parametrize("line", ["abc", "", "12.0", "0x1b", "1 2", "١٢x", "\udcff"])
def test_a_line_that_is_not_an_integer_is_named_on_stderr_then_asked_again(line):
    done = run(line.encode("utf-8", "surrogateescape") + b"\n5\n")
    expect_same(done.stderr, (NOT_AN_INTEGER.format(line=line) + "\n").encode(), "stderr")
    expect_same(done.stdout, PROMPT + PROMPT + game_after_prompt(5), "stdout")
    assert done.returncode == 0


@pytest.mark.parametrize("stdin", [b"", b"abc\n", b"\n\n"])
def test_end_of_input_at_the_prompt_exits_1_and_prints_nothing_more(stdin):
    done = run(stdin)
    assert done.returncode == EXIT_END_OF_INPUT
    assert done.stdout == PROMPT * (stdin.count(b"\n") + 1)
    assert b"Traceback" not in done.stderr


def test_a_huge_seed_is_what_int_makes_of_it():
    """CPython 3.11 and later refuse more than 4300 digits by default; 3.10 reads them."""
    digits = "9" * 5000
    try:
        int(digits)
    except ValueError:
        refused = (NOT_AN_INTEGER.format(line=digits) + "\n").encode()
        expected = (PROMPT + PROMPT + game_after_prompt(5), refused)
    else:
        expected = (PROMPT + game_after_prompt(int(digits)), b"")
    done = run(f"{digits}\n5\n".encode())
    assert (done.stdout, done.stderr) == expected and done.returncode == 0


def test_a_closed_pipe_ends_the_program_quietly():
    reader = subprocess.Popen([sys.executable, PROGRAM], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader.stdout.close()  # like `| head` that has already gone
    reader.stdin.write(b"0\n")
    reader.stdin.close()
    assert reader.wait(timeout=30) == -signal.SIGPIPE
    assert reader.stderr.read() == b""


def test_simulate_returns_none_and_prints_only_the_table(capsys):
    import solitaire_1

    assert solitaire_1.simulate(1, 0) is None
    expect_same(capsys.readouterr().out.encode(),
                (EXPECTED_OUTPUTS / "solitaire_1" / "simulate_1_0.out").read_bytes(), "simulate(1, 0)")


def screen_from_stdout(stdout: bytes, stdin: bytes) -> bytes:
    """The terminal of docs/solitaire_1.md §7 by hand: each typed line echoed after its prompt,
    the message of a line that is not an integer under it."""
    screen, rest = b"", stdout
    for typed in re.findall(rb"[^\n]*\n|[^\n]+$", stdin):
        before, prompt, rest = rest.partition(PROMPT)
        screen += before + prompt + typed
        line = typed.rstrip(b"\n").decode("utf-8", "surrogateescape")
        try:
            int(line)
            break
        except ValueError:
            screen += (NOT_AN_INTEGER.format(line=line) + "\n").encode()
    return screen + rest


@pytest.mark.parametrize("case", [case for case in load_cases("solitaire_1") if case.screen],
                         ids=lambda case: case.name)
def test_each_screen_is_stdout_with_the_typing_echoed(case):
    expect_same(case.screen, screen_from_stdout(case.stdout, case.stdin), f"{case.id} screen")
