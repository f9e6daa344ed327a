"""Diffs in which nothing hides: spaces, tabs, line ends, invisible code points
and bytes that are not UTF-8 are all drawn, so a marker sees the one wrong space."""

import difflib
import os.path
import unicodedata

SHOWN = {" ": "␠", "\t": "→", "\r": "␍"}
END_OF_LINE = "⏎"
NO_FINAL_NEWLINE = "(no newline at end)"
CONTEXT_LINES = 2
MOST_LINES = 40
MOST_LINE_CHARS = 300  # of one drawn line; a run's output can be one 4 MiB line
MOST_TEXT_CHARS = 300  # of a message quoted from a run (the last line of its stderr)
CUT = "…⟨{count} more⟩"
CONTROL_NAMES = {"\n": "LINE FEED", "\t": "TAB", "\r": "CARRIAGE RETURN"}


def _invisible(char: str) -> bool:
    """Control, format (U+FE0F, zero-width...), combining and unassigned characters."""
    return unicodedata.category(char)[0] in "CMZ" and char != " "


def show_char(char: str) -> str:
    if char in SHOWN:
        return SHOWN[char]
    if "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8, kept by surrogateescape
        return f"⟨\\x{ord(char) - 0xDC00:02x}⟩"
    if _invisible(char):
        return f"⟨U+{ord(char):04X}⟩"
    return char


def show_line(line: str) -> str:
    """A line drawn visibly; its `\\n`, if it has one, as ⏎; a very long one cut."""
    body, newline = (line[:-1], END_OF_LINE) if line.endswith("\n") else (line, "")
    drawn = "".join(show_char(char) for char in body[:MOST_LINE_CHARS]) + newline
    if len(body) > MOST_LINE_CHARS:
        drawn += CUT.format(count=len(body) - MOST_LINE_CHARS)
    return drawn


def escaped(data, most: int = MOST_TEXT_CHARS) -> str:
    """Text a run wrote, safe to print on a terminal or put in a page: every control
    (escape sequences included), format and unassigned code point, and every byte
    that is not UTF-8, drawn as ⟨...⟩; spaces stay spaces; cut after `most` characters."""
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    shown = "".join(char if char == " " else show_char(char) for char in text[:most])
    return shown + (CUT.format(count=len(text) - most) if len(text) > most else "")


def describe(char: str) -> str:
    if "\udc80" <= char <= "\udcff":
        return f"byte 0x{ord(char) - 0xDC00:02X} (not UTF-8)"
    return f"U+{ord(char):04X} {unicodedata.name(char, CONTROL_NAMES.get(char, 'control'))}"


def split_lines(text: str) -> list:
    """Lines with their `\n`; only `\n` ends a line (str.splitlines also splits at \r, \f...)."""
    *lines, last = text.split("\n")
    return [line + "\n" for line in lines] + ([last] if last else [])


def first_difference(got: str, want: str) -> str:
    """Where the two texts part, by line and column, with the code points there."""
    start = _common_prefix(got, want)
    line = 1 + want.count("\n", 0, start)
    column = start - (want.rfind("\n", 0, start) + 1) + 1
    got_char = describe(got[start]) if start < len(got) else "end of output"
    want_char = describe(want[start]) if start < len(want) else "end of output"
    return f"first difference at line {line}, column {column}: got {got_char}, want {want_char}"


def _common_prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def _window(lines: list, start: int) -> list:
    """The lines a diff starting at `start` can show: its cost stays bounded
    however long the outputs are."""
    return lines[start:start + 2 * MOST_LINES]


def visible_diff(got: bytes, want: bytes, label: str = "output") -> str:
    """A short report of how `got` differs from `want`; empty when they are equal.
    Only the lines around the first difference are compared and drawn."""
    if got == want:
        return ""
    got_text = got.decode("utf-8", "surrogateescape")
    want_text = want.decode("utf-8", "surrogateescape")
    lines = [f"{label}: {first_difference(got_text, want_text)}"]
    start = max(0, want_text.count("\n", 0, _common_prefix(got_text, want_text)) - CONTEXT_LINES)
    want_lines, got_lines = split_lines(want_text), split_lines(got_text)
    diff = difflib.unified_diff(
        [show_line(line) for line in _window(want_lines, start)],
        [show_line(line) for line in _window(got_lines, start)],
        "expected", "got", n=CONTEXT_LINES, lineterm="")
    shown = list(diff)
    if start:
        lines.append(f"(the {start} lines before are the same)")
    lines += shown[:MOST_LINES]
    if len(shown) > MOST_LINES:
        lines.append(f"... {len(shown) - MOST_LINES} more diff lines")
    elif max(len(want_lines), len(got_lines)) > start + 2 * MOST_LINES:
        lines.append(f"... compared up to line {start + 2 * MOST_LINES}; more may differ")
    for text, name in ((want_text, "expected"), (got_text, "got")):
        if text and not text.endswith("\n"):
            lines.append(f"{name}: {NO_FINAL_NEWLINE}")
    return "\n".join(lines)
