"""The console edge of the tool's commands: UTF-8 streams whatever the locale, and a quiet
end on a closed pipe. The programs have their own (common/console.py); the tool does not
import it, since an installed tool carries the programs as data, never as packages."""

import os
import signal
import sys


def use_utf8_streams() -> None:
    """Speak UTF-8 on every stream whatever the locale; a stream that was closed when the
    command started (`>&-`) becomes /dev/null, so writing to it is no error."""
    if sys.stdin is not None:
        sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    for name in "stdout", "stderr":
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
        getattr(sys, name).reconfigure(encoding="utf-8", errors="backslashreplace")


def end_silently_on_closed_pipe() -> None:
    """A closed stdout pipe (`... | head`) ends the command at once, silently."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
