"""The line viewer: the user reads a program's collected lines by asking for
line ranges at a menu, until `q` or end of input.

Specification: docs/solitaire_2.md section 6. The grammar of a request is the pure
function `parse_request`; `view` is the loop at the console edge.
"""

import re

from common import console

MENU_HEAD = "Enter: "
INDENT = " " * len(MENU_HEAD)
PROMPT = INDENT  # the input is read under the menu's text
MENU = "\n".join([
    MENU_HEAD + "q to quit",
    INDENT + "a last line number (between 1 and {count})",
    INDENT + "a first line number (between -1 and -{count})",
    INDENT + "a range of line numbers (of the form m--n with 1 <= m <= n <= {count})",
])

# The requests, as full-line patterns: `\s` is Unicode whitespace, digits are
# ASCII only, leading zeros are allowed.
QUIT_REQUEST = re.compile(r"\s*q\s*")
FIRST_LINES_REQUEST = re.compile(r"\s*([0-9]+)\s*")  # n: lines 1..n
LAST_LINES_REQUEST = re.compile(r"\s*-([0-9]+)\s*")  # -n: the last n lines
RANGE_REQUEST = re.compile(r"\s*([0-9]+)\s*--\s*([0-9]+)\s*")  # m--n: lines m..n


class _Quit:
    """The request to leave the viewer."""

    def __repr__(self) -> str:
        return "QUIT"


QUIT = _Quit()


def line_number(digits: str, count: int):
    """The value of `digits` when it is a line number (1..count), else None.

    Leading zeros are dropped before `int()` sees the digits, and a number with
    more digits than `count` is out of range without being converted: thousands
    of zeros are fine, and a huge number costs nothing and never hits int()'s limit.
    """
    significant = digits.lstrip("0")
    if len(significant) > len(str(count)):
        return None
    value = int(significant or "0")
    return value if 1 <= value <= count else None


def parse_request(line: str, count: int):
    """What `line` asks of a viewer holding `count` lines: QUIT, the range of
    line numbers (1-based) to show, or None when the line is not a correct request."""
    if QUIT_REQUEST.fullmatch(line):
        return QUIT
    match = FIRST_LINES_REQUEST.fullmatch(line)
    if match:
        last = line_number(match[1], count)
        return None if last is None else range(1, last + 1)
    match = LAST_LINES_REQUEST.fullmatch(line)
    if match:
        shown = line_number(match[1], count)
        return None if shown is None else range(count - shown + 1, count + 1)
    match = RANGE_REQUEST.fullmatch(line)
    if match:
        first, last = line_number(match[1], count), line_number(match[2], count)
        if first is None or last is None or first > last:
            return None
        return range(first, last + 1)
    return None


def view(lines: list) -> None:
    """Show the menu and answer requests until `q` or end of input, which both
    end the viewer at once: nothing more is printed after the prompt."""
    menu = MENU.format(count=len(lines))
    while True:
        print(menu)
        try:
            request = parse_request(console.read_line(PROMPT), len(lines))
        except EOFError:
            return
        if request is QUIT:
            return
        print()
        if request is not None:
            print("\n".join(lines[request.start - 1:request.stop - 1]))
            print()
