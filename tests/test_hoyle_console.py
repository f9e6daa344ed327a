"""hoyle_cli.py as a process (docs/hoyle_cli.md §8): status 0 and an empty stderr
whatever happens, stdout flushed before each read, the stats file's path (locale,
import and Ctrl-C at the first prompt: tests/test_every_program.py)."""

import os
import select
import subprocess
import sys
import time

import pexpect
import pytest

from exactmark.kit.cases import ROOT, load_cases
from exactmark.running.run import run_piped
from tests.bytes_check import expect_same
from tests.interrupt import sigint_as_at_a_terminal

PROGRAM = str(ROOT / "hoyle_cli.py")
CASES = load_cases("hoyle_cli")
SHORT_GAME = next(case for case in CASES if case.name == "short_game")
START = b"1\ny\n13\n27\n28\n42\n"


def environment(folder, changes=None) -> dict:
    """The stats file in `folder`; stdout buffered as usual, so that a missing flush shows."""
    env = dict(os.environ, HOYLE_STATS_FILE=str(folder / "stats.txt"), PYTHONUNBUFFERED=None)
    env.update(changes or {})
    return {name: value for name, value in env.items() if value is not None}


def run(stdin: bytes, folder, env_changes=None, args=()) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, PROGRAM, *args], input=stdin, capture_output=True, cwd=folder,
                          env=environment(folder, env_changes), timeout=30)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_every_case_ends_with_status_0_and_nothing_on_stderr(case):
    done = run_piped(case, ROOT)
    assert (done.status, done.stderr) == (0, b"")


def test_arguments_are_ignored(tmp_path):
    expect_same(run(SHORT_GAME.stdin, tmp_path, args=("--help", "3")).stdout, SHORT_GAME.stdout, "with arguments")


def test_the_stats_file_defaults_to_hoyle_stats_txt_in_the_current_folder(tmp_path):
    for value in ("", None):
        run(START + b"-1\nn\n3\n", tmp_path, {"HOYLE_STATS_FILE": value})
    assert (tmp_path / "hoyle_stats.txt").read_bytes() == b"48\n48\n"


def test_a_folder_at_the_stats_path_stops_nothing(tmp_path):
    (tmp_path / "stats.txt").mkdir()
    done = run(START + b"-1\nn\n2\n2\n3\n", tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.endswith(b"Games Won: 0\nGames Lost: 0\nAverage Score: 0.00\n"
                                b"Welcome to Calculation!\n1. Start Game\n2. Options\n3. Quit\n")


def test_closed_standard_streams_end_quietly(tmp_path):
    for redirect in ("<&-", ">&-", "<&- >&-", "2>&-"):
        done = subprocess.run(f"{sys.executable} {PROGRAM} {redirect}", shell=True, capture_output=True,
                              cwd=tmp_path, env=environment(tmp_path), timeout=30, input=b"3\n")
        assert (done.returncode, done.stderr) == (0, b""), redirect


def read_until(stream, text: bytes, seconds: float = 120) -> bytes:
    """What the program writes until `text` appears, failing if it does not within `seconds`
    (a backstop for a program that never writes it, far beyond a loaded machine's delay)."""
    got, deadline = b"", time.monotonic() + seconds
    while text not in got:
        ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"no {text!r} in time; got {got!r}"
        chunk = os.read(stream.fileno(), 4096)
        assert chunk, f"output ended before {text!r}; got {got!r}"
        got += chunk
    return got


def test_a_closed_pipe_ends_quietly_with_status_0(tmp_path):
    stdin = tmp_path / "stdin"
    stdin.write_bytes(START + b"1\n14\n1\nw\n1\n" + b"3\n1\n" * 50_000)  # a long run of waste pile shows
    with open(stdin, "rb") as typed:
        program = subprocess.Popen([sys.executable, PROGRAM], stdin=typed, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, cwd=tmp_path, env=environment(tmp_path))
        read_until(program.stdout, b"Remaining Cards (48)")
        program.stdout.close()
        assert program.wait(timeout=30) == 0
    assert program.stderr.read() == b""
    assert not (tmp_path / "stats.txt").exists()  # the game never reached its end


def test_each_prompt_is_flushed_before_the_program_waits(tmp_path):
    program = subprocess.Popen([sys.executable, PROGRAM], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=tmp_path, env=environment(tmp_path))
    try:
        for answer, prompt in ((b"", b"3. Quit\n"), (b"1\n", b"Are you ready to play? "),
                               (b"y\n", b"starting A: "), (b"13\n", b"starting 2: ")):
            program.stdin.write(answer)
            program.stdin.flush()
            assert read_until(program.stdout, prompt).endswith(prompt)
    finally:
        program.kill()
        program.wait()


def test_ctrl_c_in_a_game_ends_at_once_with_status_0_and_no_message(tmp_path):
    child = pexpect.spawn(sys.executable, [PROGRAM], cwd=str(tmp_path), env=environment(tmp_path),
                          timeout=120, preexec_fn=sigint_as_at_a_terminal)
    try:
        for line in (START + b"1\n14\n").splitlines():
            child.sendline(line)
        child.expect_exact(b"1. Play Drawn Card\r\n")  # the game's last line before it reads
        child.sendintr()
        child.expect(pexpect.EOF)
        assert child.before.replace(b"\r\n", b"\n").strip(b"\n") in (b"^C", b"")
    finally:
        child.close(force=True)
    assert (child.exitstatus, child.signalstatus) == (0, None)
    assert not (tmp_path / "stats.txt").exists()
