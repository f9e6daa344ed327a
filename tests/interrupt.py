"""Ctrl-C in a test, wherever pytest runs and however busy the machine is.

A background job (`make test &`, nohup, a CI runner's shell) starts with SIGINT ignored,
every process it starts inherits that, and Python then installs no handler of its own: a
program a test interrupts would never see its Ctrl-C. Each process a test means to
interrupt starts with SIGINT back at its default, as under a terminal.

And a test presses Ctrl-C at a moment it can see (the run it interrupts has started), not
after a guessed number of seconds, which a loaded machine outlasts."""

import os
import signal
import time
from pathlib import Path

BACKSTOP_SECONDS = 300  # only a fault waits so long: the moment never comes


def sigint_as_at_a_terminal() -> None:
    """preexec_fn (subprocess, pexpect): SIGINT at its default in the child, before it
    starts its program."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def started_under(process, text: str) -> None:
    """Wait until a process started by `process` (a Popen), at any depth, has `text` in its
    command line; fail if `process` ends first, or after BACKSTOP_SECONDS."""
    backstop = time.monotonic() + BACKSTOP_SECONDS
    while not any(text in command for command in _descendants(process.pid)):
        assert process.poll() is None, f"it ended before {text!r} ran: {process.communicate()}"
        assert time.monotonic() < backstop, f"no {text!r} under it in {BACKSTOP_SECONDS} s"
        time.sleep(0.1)


def _descendants(pid: int) -> list:
    """The command lines of the processes below `pid`, read from Linux's /proc."""
    parents, commands = {}, {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
            command = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue  # gone
        parents[int(name)] = int(stat.rpartition(")")[2].split()[1])
        commands[int(name)] = command.replace(b"\0", b" ").decode(errors="replace")
    below, found = {pid}, True
    while found:
        found = {child for child, parent in parents.items()
                 if parent in below and child not in below}
        below |= found
    return [commands[child] for child in below - {pid}]
