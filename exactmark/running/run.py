"""Run a golden case against an implementation (a folder holding PROGRAM.py),
the way an automarker does: in a fresh empty folder, with stdin piped, or in a
real terminal."""

import os
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from exactmark.kit.cases import STATS_FILE, STATS_VARIABLE, Case
from exactmark.running.record import Limit, Ran

DEFAULT_TIMEOUT = 30.0


def command(case: Case, implementation: Path, python: str = sys.executable,
            program=None) -> list:
    """The case's command, as `program` (a exactmark.kit.programs.Program; by default the Python
    program the case is named after) runs from `implementation`, its folder."""
    from exactmark.kit.languages import python_program

    return (program or python_program(case.program)).run_argv(case, implementation, python)


@contextmanager
def workspace(case: Case, env: dict = None):
    """A fresh empty current folder, holding the stats file when the case has one."""
    with tempfile.TemporaryDirectory(prefix="case-") as folder:
        stats = Path(folder) / STATS_FILE
        if case.stats is not None:
            stats.write_bytes(case.stats)
        environment = dict(os.environ if env is None else env, **{STATS_VARIABLE: str(stats)})
        environment.pop("PYTHONUNBUFFERED", None)  # a prompt left unflushed must show
        yield folder, environment


def run_piped(case: Case, implementation: Path, timeout: float = DEFAULT_TIMEOUT,
              env: dict = None, program=None) -> Ran:
    with workspace(case, env) as (folder, environment):
        return run_argv(case, command(case, implementation, program=program), folder,
                        environment, timeout)


def run_argv(case: Case, argv: list, folder, environment: dict, timeout: float) -> Ran:
    """`argv` run as the case's program is, in `folder`: the case's stdin piped, its
    stdout read whole or, for a .head case, as `| head -c K` reads it."""
    if case.head is not None:
        return run_into_head(case, argv, folder, environment, timeout)
    try:
        done = subprocess.run(argv, input=case.stdin, capture_output=True, cwd=folder,
                              env=environment, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        return Ran(expired.stdout or b"", expired.stderr or b"", limit=Limit.WALL)
    return Ran(done.stdout, done.stderr, done.returncode)


def run_into_head(case: Case, argv: list, folder, environment, timeout: float) -> Ran:
    """stdout read as `| head -c K` reads it: K bytes, then the read end closed."""
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stderr:
        stdin.write(case.stdin)
        stdin.seek(0)
        process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr,
                                   cwd=folder, env=environment)
        killed = threading.Event()
        timer = threading.Timer(timeout, lambda: (killed.set(), process.kill()))
        timer.start()
        try:
            stdout = read_head(process.stdout.fileno(), case.head)
            process.stdout.close()
            status = process.wait()
        finally:
            timer.cancel()
        stderr.seek(0)
        return Ran(stdout, stderr.read(), None if killed.is_set() else status,
                   Limit.WALL if killed.is_set() else None)


def read_head(fd: int, count: int) -> bytes:
    """At most `count` bytes of the pipe `fd`, never one more (the rest stays unread)."""
    taken = bytearray()
    while len(taken) < count:
        chunk = os.read(fd, count - len(taken))
        if not chunk:
            break
        taken += chunk
    return bytes(taken)


def run_on_terminal(case: Case, implementation: Path, timeout: float = DEFAULT_TIMEOUT,
                    env: dict = None, program=None):
    """The case's run at a terminal: a `Ran` whose stdout is the screen."""
    from exactmark.running.terminal import run_in_terminal  # pexpect is needed only here

    with workspace(case, env) as (folder, environment):
        return run_in_terminal(command(case, implementation, program=program), case.stdin,
                               folder, environment, timeout)
