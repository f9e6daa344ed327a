"""The console edge of the programs: UTF-8 streams whatever the locale, the
seed prompt, and quiet exits on end of input, Ctrl-C and a closed pipe."""

import os
import signal
import sys

SEED_PROMPT = "Please enter an integer to feed the seed() function: "
NOT_AN_INTEGER = "Not an integer: {line!r}"

EXIT_END_OF_INPUT = 1
EXIT_INTERRUPTED = 130


def use_utf8_streams() -> None:
    """Speak UTF-8 on every stream whatever the locale; a stream that was closed
    when the program started (`>&-`) becomes /dev/null, so writing to it is no error."""
    if sys.stdin is not None:
        sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    for name in "stdout", "stderr":
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
        getattr(sys, name).reconfigure(encoding="utf-8", errors="backslashreplace")


def end_silently_on_closed_pipe() -> None:
    """A closed stdout pipe (`... | head`) ends the program at once, silently, as it ends a C program."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def read_line(prompt: str) -> str:
    """What `input(prompt)` does with a pipe, at a terminal too: CPython's
    terminal path drops the last character of a line ended by Ctrl-D, not Enter."""
    if sys.stdin is None:
        raise EOFError
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line[:-1] if line.endswith("\n") else line


def read_seed() -> int:
    """Ask until a line converts with `int()`; say on stderr what was wrong with each other line."""
    while True:
        line = read_line(SEED_PROMPT)
        try:
            return int(line)
        except ValueError:
            print(NOT_AN_INTEGER.format(line=line), file=sys.stderr, flush=True)


def run(main) -> None:
    """Run `main()` as a console program: end of input at a seed prompt exits
    with status 1, Ctrl-C with 130, never with a traceback."""
    use_utf8_streams()
    end_silently_on_closed_pipe()
    try:
        main()
    except EOFError:
        sys.exit(EXIT_END_OF_INPUT)
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
