"""The tool's own output: its reports quote what students wrote, escaped into visible marks
(⏎, ␠, ⟨U+0007⟩), so they are UTF-8 whatever the locale; a C locale never turns a report
into a traceback. The programs have their own such edge (common/console.py): the tool
imports nothing of theirs."""

import signal
import sys


def speak_utf8() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")


def end_on_closed_pipe() -> None:
    """`| head` ends the tool quietly, as it ends a C program."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
