"""The console edge of the programs: UTF-8 streams whatever the locale, the
seed prompt, and quiet exits on end of input, Ctrl-C and a closed pipe."""

import signal
import sys

SEED_PROMPT = "Please enter an integer to feed the seed() function: "
NOT_AN_INTEGER = "Not an integer: {line!r}"

EXIT_END_OF_INPUT = 1
EXIT_INTERRUPTED = 130


def use_utf8_streams() -> None:
    """Speak UTF-8 on every stream whatever the locale, and accept integers of any length."""
    if sys.stdin is not None:
        sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    for stream in sys.stdout, sys.stderr:
        if stream is not None:
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)


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


def run(main, end_of_input_status: int = EXIT_END_OF_INPUT) -> None:
    """Run `main()` as a console program: never a traceback for end of input or Ctrl-C."""
    use_utf8_streams()
    end_silently_on_closed_pipe()
    try:
        main()
    except EOFError:
        sys.exit(end_of_input_status)
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
