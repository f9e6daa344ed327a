"""C++ `cin` over a buffer of bytes, as the game's reads need it (docs/hoyle_cli.md §6).

The reader takes one line at a time (up to and including its LF, or the last
bytes before the end of input) and takes the next line only when a read needs
more, so at a terminal it never waits for a line the game has not asked for.
Bytes are never decoded: any byte is a possible answer and nothing raises,
except `EndOfInput` when a read finds no more input while skipping whitespace.
"""

from typing import Callable, NamedTuple, Optional

WHITESPACE = b" \t\n\x0b\x0c\r"  # the C locale's isspace(); not str.isspace()
DIGITS = b"0123456789"  # ASCII only; not str.isdigit()
PLUS, MINUS, NEWLINE = b"+"[0], b"-"[0], b"\n"[0]
INT_MIN, INT_MAX = -2**31, 2**31 - 1
IGNORE_LIMIT = 1000  # cin.ignore(1000, '\n')


class EndOfInput(Exception):
    """A read found no more input while skipping whitespace: the program ends quietly."""


class IntRead(NamedTuple):
    """What `cin >> n` leaves: whether it succeeded, and the value n holds either way."""

    ok: bool
    value: int


class Cin:
    def __init__(self, next_line: Callable[[], bytes], tie: Callable[[], None] = lambda: None):
        """`next_line()` returns the next line with its LF, the last bytes without one, or
        b"" at the end of input; `tie()` runs before every read, as cin flushes cout."""
        self._next_line = next_line
        self._tie = tie
        self._line = b""
        self._position = 0
        self._ended = False

    def read_int(self) -> IntRead:
        """`cin >> n` for a 32-bit int: sign and digits are consumed even when the read fails;
        the byte that stops it is left for the next read."""
        self._tie()
        self._skip_whitespace()
        negative = self._peek() == MINUS
        if self._peek() in (PLUS, MINUS):
            self._position += 1
        magnitude, digits = 0, 0
        ceiling = -INT_MIN + 1  # enough to tell an overflow, however many digits follow
        while (byte := self._peek()) is not None and byte in DIGITS:
            magnitude = min(magnitude * 10 + byte - DIGITS[0], ceiling)
            digits += 1
            self._position += 1
        if not digits:
            return IntRead(False, 0)
        value = -magnitude if negative else magnitude
        if value > INT_MAX:
            return IntRead(False, INT_MAX)
        if value < INT_MIN:
            return IntRead(False, INT_MIN)
        return IntRead(True, value)

    def read_char(self) -> int:
        """`cin >> c`: the first byte that is not whitespace."""
        self._tie()
        self._skip_whitespace()
        byte = self._line[self._position]
        self._position += 1
        return byte

    def discard(self) -> None:
        """`cin.ignore(1000, '\\n')` after `cin.clear()`: never ends the program."""
        self._tie()
        for _ in range(IGNORE_LIMIT):
            byte = self._peek()
            if byte is None:
                return
            self._position += 1
            if byte == NEWLINE:
                return

    def _skip_whitespace(self) -> None:
        while (byte := self._peek()) is not None:
            if byte not in WHITESPACE:
                return
            self._position += 1
        raise EndOfInput

    def _peek(self) -> Optional[int]:
        """The next byte, taking the next line once this one is used up; None at the end of input."""
        while self._position >= len(self._line):
            if self._ended:
                return None
            self._line, self._position = self._next_line(), 0
            self._ended = not self._line.endswith(b"\n")  # only the last bytes of the input lack an LF
        return self._line[self._position]
