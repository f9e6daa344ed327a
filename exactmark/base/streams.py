"""The tool's own output: its reports quote what students wrote, escaped into visible marks
(⏎, ␠, ⟨U+0007⟩), so they are UTF-8 whatever the locale; a C locale never turns a report
into a traceback. The programs have their own such edge (common/console.py): the tool
imports nothing of theirs."""

import os
import signal
import sys

CLOSED_STDOUT = 128 + getattr(signal, "SIGPIPE", 13)  # as `| head` ends a C program


def speak_utf8() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")


def quiet_on_closed_stdout(run) -> int:
    """`run()`'s status; `| head` ends the tool quietly, with the status a C program has
    there (128 + SIGPIPE). Only its own stdout counts: SIGPIPE stays ignored, since the
    tool writes to its programs' stdin too, and a program that stops reading its input
    is a normal end, never the tool's."""
    try:
        status = run()
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error
        return CLOSED_STDOUT
