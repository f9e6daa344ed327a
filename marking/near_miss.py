"""Near misses said in one sentence a student can act on ("only letter case differs:
line 2 has ... where ... is expected"), read from the two outputs, to go with the
diff. And the named normalisations an assignment's comparison policy may forgive: a
sentence saying two outputs are equal but for X tests the very function the policy
names X, so the sentence and the policy cannot disagree.

No diff is computed: the outputs are compared as bytes, at C speed, and only the lines
from the first that differs to the last are read further, so a 4 MiB output or one of
100,000 lines costs a few passes over its bytes."""

import re
import string
from collections import Counter
from typing import NamedTuple

from golden.visible import END_OF_LINE, escaped, show_line

TRAILING_SPACES = ("only spaces or tabs at line ends differ: "
                   "line {line} ends with {got} where {want} is expected")
NO_SPACE = "no space"
LINE_ENDS = "only line ends differ: line {line} ends with {got} where {want} is expected"
CRLF = "\\r\\n"
LF = "\\n"
FINAL_NEWLINE = ("only the final newline differs: "
                 "the output ends with {got}, the expected output with {want}")
LETTER_CASE = "only letter case differs: line {line} has {got} where {want} is expected"
BLANK_TOO_MANY = "only blank lines differ: line {line} is a blank line too many"
BLANK_MISSING = "only blank lines differ: a blank line is missing at line {line}"
VARIATION_SELECTOR = ("only an emoji's variation selector (U+FE0F) differs: "
                      "line {line} has {got} where {want} is expected")
ORDER = "the lines are in another order: line {line} has {got} where {want} is expected"
NUMBERS = "only numbers differ: line {line} has {got} where {want} is expected"
NO_OUTPUT = "the output is empty; the expected output has {total}{why}"
STOPS_AFTER = "the output stops after line {line} of {total}{why}"
STOPS_WITHIN = "the output stops partway through line {line} of {total}{why}"
WHY = " ({stopped})"
EXTRA_LINES = "{count} after the expected end, from line {line}: {first}"
GOES_ON = "the output goes on after the expected end of line {line}: {rest}"
ONE_LINE = "line {line}: replace {got} with {want}"
QUOTED = "`{}`"
CUT_BEFORE = "…"
UNKNOWN = "unknown normalisation: {names} (known: {known})"

# Each sentence's kind, for counting near misses across a class.
KINDS = {TRAILING_SPACES: "spaces or tabs at line ends", LINE_ENDS: "line ends",
         FINAL_NEWLINE: "the final newline", LETTER_CASE: "letter case",
         BLANK_TOO_MANY: "blank lines", BLANK_MISSING: "blank lines",
         VARIATION_SELECTOR: "an emoji's variation selector", ORDER: "the order of lines",
         NUMBERS: "numbers only", NO_OUTPUT: "no output at all", STOPS_AFTER: "output cut short",
         STOPS_WITHIN: "output cut short", EXTRA_LINES: "output goes on too long",
         GOES_ON: "output goes on too long", ONE_LINE: "one line differs"}
OTHER_KIND = "other"

MOST_SHOWN = 80  # characters of a line quoted in a sentence
CONTEXT_CHARS = 30  # quoted before the first difference when it lies further in
ESCAPE = "surrogateescape"  # bytes that are not UTF-8 survive decoding, and come back
NUMBER = re.compile(rb"([-+]?[0-9]+(?:\.[0-9]+)?)")  # a group: re.split keeps the numbers
NUMBER_BYTES = b"+-.0123456789"
WHITE_SPACE = string.whitespace.encode()  # what bytes.strip() strips
VARIATION_SELECTOR_16 = "\ufe0f".encode()


def _line_ends(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n")


def _trailing_spaces(data: bytes) -> bytes:
    """Spaces and tabs go before each `\\n`, and at the end of a last line without one.
    Three searches first spare splitting an output that has none, as most have."""
    if b" \n" not in data and b"\t\n" not in data and not data.endswith((b" ", b"\t")):
        return data
    return b"\n".join([line.rstrip(b" \t") for line in data.split(b"\n")])


def _blank_lines(data: bytes) -> bytes:
    """Lines of white space only go, a last line without `\\n` too; as in `split_lines`,
    only `\\n` ends a line."""
    *lines, last = data.split(b"\n")
    return b"\n".join([*filter(bytes.strip, lines), b""]) + (last if last.strip() else b"")


def _final_newline(data: bytes) -> bytes:
    return data.rstrip(b"\n") + b"\n" if data else data


def _letter_case(data: bytes) -> bytes:
    return _text(data).lower().encode("utf-8", ESCAPE)


NORMALISATIONS = {  # in the order `normalise` applies them
    "line_ends": _line_ends,  # first: the others then see only `\n` end a line
    "trailing_spaces": _trailing_spaces,  # before final_newline, which would end a last "  "
    "blank_lines": _blank_lines,
    "final_newline": _final_newline,
    "letter_case": _letter_case,
}


def normalise(data: bytes, names) -> bytes:
    """`data` under the named normalisations, applied in the order of NORMALISATIONS
    whatever the order of `names`, so that a policy means one thing."""
    names = set(names)
    unknown = sorted(names - NORMALISATIONS.keys())
    if unknown:
        raise ValueError(UNKNOWN.format(names=", ".join(map(repr, unknown)),
                                        known=", ".join(NORMALISATIONS)))
    for name, normalisation in NORMALISATIONS.items():
        if name in names:
            data = normalisation(data)
    return data


class _Outputs(NamedTuple):
    """The two outputs, and the part of each that differs: whole lines, from the first
    line that differs to the last; before and after it, the two are the same."""
    got: bytes
    want: bytes
    stopped: str
    index: int  # of the first line that differs
    got_part: bytes
    want_part: bytes
    spacing_only: bool  # the parts are equal once their white space is deleted


def explain(got: bytes, want: bytes, stopped: str = "") -> str:
    """One sentence on how `got` nearly matches `want`, or "" when none fits (the diff
    then speaks alone). The kinds are tried from the narrowest ("only X differs") to the
    broadest, so the first that holds is the most precise true statement. `stopped`
    ("a crash", "the time limit", "end of input") says why a run ended early; an output
    cut short is then said first, as the end of the run is what to fix (not, say, the
    final newline it never printed)."""
    if got == want:
        return ""
    start = got.rfind(b"\n", 0, _common_prefix(got, want)) + 1
    same_end = len(got) - _common_prefix(got[start:][::-1], want[start:][::-1])
    line_end = got.find(b"\n", same_end)
    tail = len(got) - line_end - 1 if line_end >= 0 else 0  # whole lines, the same in both
    got_part, want_part = got[start:len(got) - tail], want[start:len(want) - tail]
    spacing_only = got_part.translate(None, WHITE_SPACE) == want_part.translate(None, WHITE_SPACE)
    outputs = _Outputs(got, want, stopped, got.count(b"\n", 0, start), got_part, want_part,
                       spacing_only)
    checks = ((_stops_early,) if stopped else ()) + CHECKS
    return next(filter(None, (check(outputs) for check in checks)), "")


def _only_trailing_spaces(outputs: _Outputs) -> str:
    if not (outputs.spacing_only and _equal_after("trailing_spaces", outputs)):
        return ""
    got, want = (_trailing(line) for line in _first_lines(outputs))
    return TRAILING_SPACES.format(line=outputs.index + 1, got=got, want=want)


def _trailing(line: str) -> str:
    """The spaces and tabs that end a line, drawn; NO_SPACE for none."""
    body = line.removesuffix("\n")
    tail = body[len(body.rstrip(" \t")):]
    return QUOTED.format(show_line(tail)) if tail else NO_SPACE


def _only_line_ends(outputs: _Outputs) -> str:
    if not (outputs.spacing_only and _equal_after("line_ends", outputs)):
        return ""
    got, want = (CRLF if line.endswith("\r\n") else LF for line in _first_lines(outputs))
    return LINE_ENDS.format(line=outputs.index + 1, got=got, want=want)


def _only_final_newline(outputs: _Outputs) -> str:
    if not (outputs.spacing_only and _equal_after("final_newline", outputs)):
        return ""
    got, want = (_count(len(data) - len(data.rstrip(b"\n")), "newline")
                 for data in (outputs.got, outputs.want))
    return FINAL_NEWLINE.format(got=got, want=want)


def _only_letter_case(outputs: _Outputs) -> str:
    return _line_sentence(LETTER_CASE, outputs) if _equal_after("letter_case", outputs) else ""


def _only_blank_lines(outputs: _Outputs) -> str:
    """Said at the first line that differs, blank in one output and not in the other: were
    neither blank, the lines before being the same, more than blank lines would differ."""
    if not (outputs.spacing_only and _equal_after("blank_lines", outputs)):
        return ""
    got, want = (bool(part) and not _first_line(part).strip()  # as in _blank_lines
                 for part in (outputs.got_part, outputs.want_part))
    if got == want:
        return ""  # both blank, in other white space
    return (BLANK_TOO_MANY if got else BLANK_MISSING).format(line=outputs.index + 1)


def _only_variation_selectors(outputs: _Outputs) -> str:
    got, want = (part.replace(VARIATION_SELECTOR_16, b"")
                 for part in (outputs.got_part, outputs.want_part))
    return _line_sentence(VARIATION_SELECTOR, outputs) if got == want else ""


def _in_another_order(outputs: _Outputs) -> str:
    """Before numbers: rows of a table swapped differ only in their numbers too."""
    got, want = outputs.got_part, outputs.want_part
    same = len(got) == len(want) and Counter(got.split(b"\n")) == Counter(want.split(b"\n"))
    return _line_sentence(ORDER, outputs) if same else ""


def _only_numbers(outputs: _Outputs) -> str:
    """The texts between the numbers are equal: said at the first number that differs.
    Deleting every digit, sign and point first is a quick test most outputs fail."""
    got, want = outputs.got_part, outputs.want_part
    if got.translate(None, NUMBER_BYTES) != want.translate(None, NUMBER_BYTES):
        return ""
    got, want = NUMBER.split(got), NUMBER.split(want)
    if got[::2] != want[::2]:
        return ""
    index = next(index for index in range(1, len(got), 2) if got[index] != want[index])
    line = outputs.index + 1 + sum(text.count(b"\n") for text in got[:index:2])
    return NUMBERS.format(line=line, got=got[index].decode(), want=want[index].decode())


def _stops_early(outputs: _Outputs) -> str:
    got, want = outputs.got, outputs.want
    if not want.startswith(got):
        return ""
    why = WHY.format(stopped=outputs.stopped) if outputs.stopped else ""
    total = _line_count(want)
    if not got:
        return NO_OUTPUT.format(total=_count(total, "line"), why=why)
    if got.endswith(b"\n"):
        return STOPS_AFTER.format(line=got.count(b"\n"), total=total, why=why)
    return STOPS_WITHIN.format(line=got.count(b"\n") + 1, total=total, why=why)


def _extra_lines(outputs: _Outputs) -> str:
    got, want = outputs.got, outputs.want
    if not got.startswith(want):
        return ""
    first, newline, _ = got[len(want):].partition(b"\n")
    if want and not want.endswith(b"\n"):
        return GOES_ON.format(line=_line_count(want),
                              rest=_quoted(_text(first), newline=bool(newline)))
    return EXTRA_LINES.format(count=_count(_line_count(got) - _line_count(want), "extra line"),
                              line=_line_count(want) + 1, first=_quoted(_text(first)))


def _one_line(outputs: _Outputs) -> str:
    """The parts that differ are one line each: the lines around them are the same."""
    parts = (outputs.got_part, outputs.want_part)
    one_line = all(part and b"\n" not in part[:-1] for part in parts)
    return _line_sentence(ONE_LINE, outputs) if one_line else ""


CHECKS = (_only_trailing_spaces, _only_line_ends, _only_final_newline, _only_letter_case,
          _only_blank_lines, _only_variation_selectors, _in_another_order, _only_numbers,
          _stops_early, _extra_lines, _one_line)


def _equal_after(name: str, outputs: _Outputs) -> bool:
    normalisation = NORMALISATIONS[name]
    return normalisation(outputs.got) == normalisation(outputs.want)


def _first_lines(outputs: _Outputs) -> tuple:
    """The first line that differs, in each output, with its `\\n` if it has one."""
    return _text(_first_line(outputs.got_part)), _text(_first_line(outputs.want_part))


def _first_line(part: bytes) -> bytes:
    line, newline, _ = part.partition(b"\n")
    return line + newline


def _line_sentence(template: str, outputs: _Outputs) -> str:
    """`template` said of the first line that differs, both versions quoted."""
    got, want = _quoted_pair(*_first_lines(outputs))
    return template.format(line=outputs.index + 1, got=got, want=want)


def _quoted_pair(got: str, want: str) -> tuple:
    """Two versions of a line, quoted from a little before their first difference when it
    lies far in; a `\\n` is drawn only on the one that has it when the other has not."""
    got_body, want_body = got.removesuffix("\n"), want.removesuffix("\n")
    differ = _common_prefix(got_body, want_body)
    start = differ - CONTEXT_CHARS if differ > MOST_SHOWN - CONTEXT_CHARS else 0
    drawn = got.endswith("\n") != want.endswith("\n")
    return (_quoted(got_body, start, drawn and got.endswith("\n")),
            _quoted(want_body, start, drawn and want.endswith("\n")))


def _quoted(text: str, start: int = 0, newline: bool = False) -> str:
    """`text` escaped from `start`, cut after MOST_SHOWN characters; ⏎ when `newline`."""
    shown = (CUT_BEFORE if start else "") + escaped(text[start:], MOST_SHOWN)
    return QUOTED.format(shown + (END_OF_LINE if newline else ""))


def _common_prefix(a, b) -> int:
    """The length of the common start of two strings or bytes, found by halving: each step
    one slice comparison at C speed, where a loop over characters takes a second on 4 MiB."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _text(data: bytes) -> str:
    return data.decode("utf-8", ESCAPE)


def _line_count(data: bytes) -> int:
    """As many lines as `golden.visible.split_lines` gives, without splitting."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _count(number: int, noun: str) -> str:
    return f"{number or 'no'} {noun}{'s' if number > 1 else ''}"


def kind_of(sentence: str) -> str:
    """The kind of near miss a sentence of this module says (OTHER_KIND for any other)."""
    for template, kind in KINDS.items():
        literal_parts = re.split(r"\{[a-z]+\}", template)
        if re.fullmatch(".*".join(map(re.escape, literal_parts)), sentence, re.S):
            return kind
    return OTHER_KIND
