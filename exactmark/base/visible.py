"""Diffs in which nothing hides: spaces, tabs, line ends, invisible code points
and bytes that are not UTF-8 are all drawn, so a marker sees the one wrong space.

A diff is data first (`diff_lines`), kept in results.json, so that a page may draw
it otherwise than a terminal does; `visible_diff` is its terminal drawing."""

import difflib
import os.path
import unicodedata
from dataclasses import dataclass, replace

SHOWN = {" ": "␠", "\t": "→", "\r": "␍"}
END_OF_LINE = "⏎"
NO_FINAL_NEWLINE = "(no newline at end)"
LABELLED = "{label}: {sentence}"
SAME_BEFORE = "(the {count} lines before are the same)"
SAME_LINE_BEFORE = "(the line before is the same)"
FROM_FILE = "--- expected"
TO_FILE = "+++ got"
HUNK = "@@ -{expected} +{got} @@"
RANGE = "{start},{count}"
MORE_DIFF_LINES = "... {count} more diff lines"
COMPARED_UP_TO = "... compared up to line {line}; more may differ"
COMPARED_UP_TO_EACH = ("... compared up to line {want} of the expected and line {got} of the "
                       "output; more may differ")
NO_NEWLINE_AT_END = "{name}: " + NO_FINAL_NEWLINE
EXPECTED = "expected"
GOT = "got"
SAME, REMOVED, ADDED = " ", "-", "+"  # a diff line's tag: in both, expected only, got only
SPACING = " \t"  # left raw in a DiffLine's text: the renderer draws them
TERMINAL_SPACING = str.maketrans({char: SHOWN[char] for char in SPACING})
NO_SPACING = str.maketrans("", "", SPACING)
FIRST_DIFFERENCE = "first difference at line {line}, column {column}: got {got}, want {want}"
END_OF_OUTPUT = "end of output"
BYTE = "byte 0x{byte:02X} (not UTF-8)"
CODE_POINT = "U+{code:04X} {name}"
BYTE_DRAWN = "⟨\\x{byte:02x}⟩"
CODE_POINT_DRAWN = "⟨U+{code:04X}⟩"
CONTEXT_LINES = 2
MOST_LINES = 40
MOST_LINE_CHARS = 300  # of one drawn line; a run's output can be one 4 MiB line
MOST_TEXT_CHARS = 300  # of a message quoted from a run (the last line of its stderr)
CUT = "…⟨{count} more⟩"
CONTROL_NAMES = {"\n": "LINE FEED", "\t": "TAB", "\r": "CARRIAGE RETURN"}
CONTROL = "control"  # the name of a control code point that has none of its own


def _invisible(char: str) -> bool:
    """Control, format (U+FE0F, zero-width...), combining and unassigned characters."""
    return unicodedata.category(char)[0] in "CMZ" and char != " "


def show_char(char: str) -> str:
    if char in SHOWN:
        return SHOWN[char]
    if "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8, kept by surrogateescape
        return BYTE_DRAWN.format(byte=ord(char) - 0xDC00)
    if _invisible(char):
        return CODE_POINT_DRAWN.format(code=ord(char))
    return char


def show_line(line: str) -> str:
    """A line drawn visibly; its `\\n`, if it has one, as ⏎; a very long one cut."""
    return _diff_line(SAME, line).drawn()


def escaped(data, most: int = MOST_TEXT_CHARS) -> str:
    """Text a run wrote, safe to print on a terminal or put in a page: every control
    (escape sequences included), format and unassigned code point, and every byte
    that is not UTF-8, drawn as ⟨...⟩; spaces stay spaces; cut after `most` characters."""
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    shown = "".join(char if char == " " else show_char(char) for char in text[:most])
    return shown + (CUT.format(count=len(text) - most) if len(text) > most else "")


def describe(char: str) -> str:
    if "\udc80" <= char <= "\udcff":
        return BYTE.format(byte=ord(char) - 0xDC00)
    name = unicodedata.name(char, CONTROL_NAMES.get(char, CONTROL))
    return CODE_POINT.format(code=ord(char), name=name)


def split_lines(text: str) -> list:
    """Lines with their `\n`; only `\n` ends a line (str.splitlines also splits at \r, \f...)."""
    *lines, last = text.split("\n")
    return [line + "\n" for line in lines] + ([last] if last else [])


def first_difference(got: str, want: str) -> str:
    """Where the two texts part, by line and column, with the code points there."""
    start = _common_prefix(got, want)
    line = 1 + want.count("\n", 0, start)
    column = start - (want.rfind("\n", 0, start) + 1) + 1
    got_char = describe(got[start]) if start < len(got) else END_OF_OUTPUT
    want_char = describe(want[start]) if start < len(want) else END_OF_OUTPUT
    return FIRST_DIFFERENCE.format(line=line, column=column, got=got_char, want=want_char)


def _common_prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def _window(lines: list, start: int) -> list:
    """The lines a diff starting at `start` can show: its cost stays bounded
    however long the outputs are."""
    return lines[start:start + 2 * MOST_LINES]


@dataclass(frozen=True)
class DiffLine:
    """One line of a diff, drawn but for its spaces and tabs: a terminal draws them
    as ␠ and →, a page may shade them instead."""
    tag: str  # SAME, REMOVED or ADDED
    text: str  # without its `\n`, cut after MOST_LINE_CHARS; invisible code points and
    # bytes not UTF-8 drawn as in `show_char`
    newline: bool  # it ended with `\n`
    cut: int = 0  # characters left out after the first MOST_LINE_CHARS
    spacing_only: bool = False  # its partner on the other side differs only in spaces and tabs

    def drawn(self) -> str:
        """As a terminal shows it, without the tag."""
        return (self.text.translate(TERMINAL_SPACING) + (END_OF_LINE if self.newline else "")
                + (CUT.format(count=self.cut) if self.cut else ""))

    def to_json(self) -> dict:
        return {"tag": self.tag, "text": self.text, "newline": self.newline, "cut": self.cut,
                "spacing_only": self.spacing_only}


@dataclass(frozen=True)
class Hunk:
    """Lines around differences, numbered as in the outputs: the numbers of its header
    (`@@ -3,4 +3,5 @@`), where an empty side starts at the line before it."""
    expected_start: int
    expected_count: int
    got_start: int
    got_count: int
    lines: tuple  # of DiffLine

    @property
    def header(self) -> str:
        return HUNK.format(expected=_range(self.expected_start, self.expected_count),
                           got=_range(self.got_start, self.got_count))

    def to_json(self) -> dict:
        return {"header": self.header, "expected_start": self.expected_start,
                "expected_count": self.expected_count, "got_start": self.got_start,
                "got_count": self.got_count, "lines": [line.to_json() for line in self.lines]}


@dataclass(frozen=True)
class VisibleDiff:
    """How two outputs differ, as data: what `visible_diff` draws, for results.json."""
    first_difference: str  # the sentence of `first_difference`
    same_before: int  # lines before the first hunk's window, the same in both outputs
    hunks: tuple  # of Hunk; the last may be cut short, as a note then says
    notes: tuple  # of str: what was cut, and which output lacks a final newline

    def to_json(self) -> dict:
        """Plain dicts, lists, str, int and bool; a hunk's "header" is there for a page to
        show, and is not read back."""
        return {"first_difference": self.first_difference, "same_before": self.same_before,
                "hunks": [hunk.to_json() for hunk in self.hunks], "notes": list(self.notes)}

    @classmethod
    def from_json(cls, data: dict) -> "VisibleDiff":
        hunks = tuple(Hunk(hunk["expected_start"], hunk["expected_count"], hunk["got_start"],
                           hunk["got_count"], tuple(DiffLine(**line) for line in hunk["lines"]))
                      for hunk in data["hunks"])
        return cls(data["first_difference"], data["same_before"], hunks, tuple(data["notes"]))

    def drawn(self, label: str = "output") -> str:
        """As a terminal shows it: `visible_diff`."""
        lines = [LABELLED.format(label=label, sentence=self.first_difference)]
        if self.same_before:
            lines.append(SAME_BEFORE.format(count=self.same_before) if self.same_before > 1
                         else SAME_LINE_BEFORE)
        if self.hunks:
            lines += [FROM_FILE, TO_FILE]
        for hunk in self.hunks:
            lines.append(hunk.header)
            lines += [line.tag + line.drawn() for line in hunk.lines]
        return "\n".join(lines + list(self.notes))


def _range(start: int, count: int) -> str:
    """One side of a hunk header, as difflib.unified_diff writes it."""
    return str(start) if count == 1 else RANGE.format(start=start, count=count)


def _diff_line(tag: str, line: str, spacing_only: bool = False) -> DiffLine:
    body = line.removesuffix("\n")
    text = "".join(char if char in SPACING else show_char(char)
                   for char in body[:MOST_LINE_CHARS])
    return DiffLine(tag, text, line.endswith("\n"), max(0, len(body) - MOST_LINE_CHARS),
                    spacing_only)


def _hunk(group: list, want: list, got: list, offset: int) -> Hunk:
    """A group of difflib opcodes over the windows, numbered from line `offset` + 1."""
    lines = []
    for tag, want_start, want_end, got_start, got_end in group:
        if tag == "equal":
            lines += [_diff_line(SAME, line) for line in want[want_start:want_end]]
            continue
        removed, added = want[want_start:want_end], got[got_start:got_end]
        flags = [_spacing_only(*pair) for pair in zip(removed, added)]
        flags += [False] * abs(len(removed) - len(added))  # the lines left unpaired
        lines += [_diff_line(REMOVED, line, flag) for line, flag in zip(removed, flags)]
        lines += [_diff_line(ADDED, line, flag) for line, flag in zip(added, flags)]
    (_, want_start, _, got_start, _), (_, _, want_end, _, got_end) = group[0], group[-1]
    return Hunk(*_header_numbers(offset + want_start, offset + want_end),
                *_header_numbers(offset + got_start, offset + got_end), tuple(lines))


def _spacing_only(removed: str, added: str) -> bool:
    """A removed line and the added line in its place differ only in spaces and tabs
    (column widths, say); the n-th removed line of a change pairs with the n-th added."""
    return removed != added and removed.translate(NO_SPACING) == added.translate(NO_SPACING)


def _header_numbers(start: int, end: int) -> tuple:
    """(start, count) of lines start..end (from 0) as a hunk header says them: counted
    from 1, and an empty range from the line before it."""
    return (start + 1 if end > start else start), end - start


def _cut(hunks: list) -> tuple:
    """The hunks cut to MOST_LINES lines as a terminal shows them (the two lines naming
    the files and each header included), and how many lines were left out."""
    shown = 2 + sum(1 + len(hunk.lines) for hunk in hunks) if hunks else 0
    room, kept = MOST_LINES - 2, []
    for hunk in hunks:
        if room <= 0:
            break
        kept.append(replace(hunk, lines=hunk.lines[:room - 1]))
        room -= 1 + len(kept[-1].lines)
    return kept, max(0, shown - MOST_LINES)


def diff_lines(got: bytes, want: bytes) -> VisibleDiff | None:
    """How `got` differs from `want` as a VisibleDiff, None when they are equal. Only a
    window of lines from a little before the first difference is compared, so that a
    huge output costs little; hunks are numbered by the outputs' own lines. Lines are
    compared as written, not as drawn: a literal ␠, or a difference past the cut of a
    long line, still differs."""
    if got == want:
        return None
    got_text = got.decode("utf-8", "surrogateescape")
    want_text = want.decode("utf-8", "surrogateescape")
    start = max(0, want_text.count("\n", 0, _common_prefix(got_text, want_text)) - CONTEXT_LINES)
    want_lines, got_lines = split_lines(want_text), split_lines(got_text)
    want_window, got_window = _aligned_windows(want_lines, got_lines, start)
    groups = difflib.SequenceMatcher(None, want_window, got_window).get_grouped_opcodes(
        CONTEXT_LINES)
    hunks, left_out = _cut([_hunk(group, want_window, got_window, start) for group in groups])
    notes = []
    want_end, got_end = start + len(want_window), start + len(got_window)
    if left_out:
        notes.append(MORE_DIFF_LINES.format(count=left_out))
    elif len(want_lines) > want_end or len(got_lines) > got_end:
        notes.append(COMPARED_UP_TO.format(line=want_end) if want_end == got_end else
                     COMPARED_UP_TO_EACH.format(want=want_end, got=got_end))
    unended = {name: bool(text) and not text.endswith("\n")
               for text, name in ((want_text, EXPECTED), (got_text, GOT))}
    if unended[EXPECTED] != unended[GOT]:  # both alike, the diff's own lines show it
        notes += [NO_NEWLINE_AT_END.format(name=name) for name, lacks in unended.items() if lacks]
    return VisibleDiff(first_difference(got_text, want_text), start, tuple(hunks), tuple(notes))


def _aligned_windows(want_lines: list, got_lines: list, start: int) -> tuple:
    """The windows of both outputs, each cut at its own line where the two last agree when
    both go on past their windows: cut at the same line numbers, an output shifted by lines
    it adds would show the expected lines at the window's end as missing, though it prints
    them a few lines further on."""
    want_window, got_window = _window(want_lines, start), _window(got_lines, start)
    if len(want_lines) > start + len(want_window) and len(got_lines) > start + len(got_window):
        same = [block for block in difflib.SequenceMatcher(
            None, want_window, got_window).get_matching_blocks() if block.size]
        if same:
            want_window = want_window[:same[-1].a + same[-1].size]
            got_window = got_window[:same[-1].b + same[-1].size]
    return want_window, got_window


def visible_diff(got: bytes, want: bytes, label: str = "output") -> str:
    """A short report of how `got` differs from `want`; empty when they are equal.
    Only the lines around the first difference are compared and drawn."""
    diff = diff_lines(got, want)
    return diff.drawn(label) if diff else ""
