"""Calculation (Goren's Hoyle), the interactive console game of a C++ class
assignment, byte for byte: `python3 hoyle_cli.py`.

Specification: docs/hoyle_cli.md. The game lives in the `hoyle` package; this file
is the edge of the process: stdin read as bytes, one line at a time, from fd 0;
stdout written as UTF-8 and flushed before every read; the stats file named by
HOYLE_STATS_FILE; and the ending, always quiet with status 0: menu item 3, end
of input, Ctrl-C, or a closed stdout pipe. `import hoyle_cli` starts nothing.
"""

import os
import signal
import sys

from hoyle.cin import Cin
from hoyle.session import Session
from hoyle.stats import stats_path

EXIT_STATUS = 0


def end_at_once(*_signal) -> None:
    """Ctrl-C: the program ends at once, no traceback, no message (docs/hoyle_cli.md §8)."""
    os._exit(EXIT_STATUS)


def next_line(stdin) -> bytes:
    """The next line of stdin, b"" at its end; a terminal that hangs up ends the input too."""
    if stdin is None:
        return b""
    try:
        return stdin.readline()
    except OSError:
        return b""


def silence_stdout() -> None:
    """After a failed write (a closed pipe), fd 1 becomes /dev/null, so that what is still
    buffered goes nowhere when the interpreter flushes it at exit, with no message."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


def main() -> None:
    signal.signal(signal.SIGINT, end_at_once)
    stdin = sys.stdin.buffer if sys.stdin is not None else None
    stdout = sys.stdout.buffer if sys.stdout is not None else open(os.devnull, "wb")  # fd 1 closed
    cin = Cin(lambda: next_line(stdin), tie=stdout.flush)
    try:
        Session(cin, lambda text: stdout.write(text.encode("utf-8")), stats_path()).run()
        stdout.flush()
    except OSError:  # stdout only: the reads and the stats file handle their own errors
        silence_stdout()


if __name__ == "__main__":
    main()
