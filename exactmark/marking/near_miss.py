"""Near misses said in one sentence a student can act on ("only letter case differs:
line 2 has ... where ... is expected"), read from the two outputs, to go with the
diff; and a sentence per region that differs, in the same words. And the named
normalisations an assignment's comparison policy may forgive: a sentence saying two
outputs are equal but for X tests the very function the policy names X, so the
sentence and the policy cannot disagree.

`explain` computes no diff: the outputs are compared as bytes, at C speed, and only the
lines from the first that differs to the last are read further, so a 4 MiB output or
one of 100,000 lines costs a few passes over its bytes. `regions` diffs lines, at most
MOST_COMPARED of each output from the first that differs."""

import re
import string
from collections import Counter
from difflib import SequenceMatcher
from typing import NamedTuple

from exactmark.base.visible import END_OF_LINE, escaped, show_line

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
VARIATION_SELECTOR = ("only variation selectors (as U+FE0F after an emoji) differ: "
                      "line {line} has {got} where {want} is expected")
SPACING = ("only the spacing within lines differs, on {count}: "
           "line {line} has {got} where {want} is expected")
ORDER = "the lines are in another order: line {line} has {got} where {want} is expected"
NUMBERS = "only numbers differ: line {line} has {got} where {want} is expected"
NO_OUTPUT = "the output is empty{why}; the expected output has {total}"
STOPS_AFTER = "the output stops after line {line} of {total}{why}"
STOPS_WITHIN = "the output stops partway through line {line} of {total}{why}"
WHY = " ({stopped} ended the run)"  # said right after "stops" or "empty"
EXTRA_LINES = "{count} after the expected end, from line {line}: {first}"
GOES_ON = "the output goes on after the expected end of line {line}: {rest}"
TOO_MANY = "{count} too many at line {line}, otherwise as expected: {first}"
MISSING = "{count} missing at line {line}, otherwise as expected: {first}"
PARTS_AND_STOPS = ("the output parts from the expected after line {line} and stops{why}: {got} "
                   "({count}) where the expected output goes on for {total}, from {want}")
ONE_LINE = "line {line}: replace {got} with {want}"
# Said of one region among others (line numbers are the output's, where a line is or
# would be); a region at the end is said as above, and one line as ONE_LINE.
TOO_MANY_AT = "{count} too many at line {line}: {first}"
MISSING_AT = "{count} missing at line {line}: {first}"
SPACING_AT = ("the spacing within {count} differs, from line {line}: "
              "{got} where {want} is expected")
LINES_DIFFER = ("different lines from line {line} ({count} for {total} expected): "
                "{got} where {want} is expected")
# Said of stderr: where the case expects nothing on it, and the kind of any other near miss
# there, so that a class's count does not take a debug line for output that goes on too long.
ON_STDERR = "{count} on stderr, where the case expects none (stderr is checked too): {first}"
STDERR_KIND = "on stderr: {kind}"
# Said after the regions: not near misses, so of no kind.
MORE_REGIONS = "and {count} more regions differ, from line {line}"
COMPARED_UP_TO = ("compared up to line {got} of the output and line {want} of the expected; "
                  "more may differ")
QUOTED = "`{}`"
A_BLANK_LINE = "a blank line"  # quoted: a line with nothing on it
CUT_BEFORE = "…"
UNKNOWN = "unknown normalisation: {names} (known: {known})"

# Each near miss's kind, for counting near misses across a class.
KINDS = {TRAILING_SPACES: "spaces or tabs at line ends", LINE_ENDS: "line ends",
         FINAL_NEWLINE: "the final newline", LETTER_CASE: "letter case",
         BLANK_TOO_MANY: "blank lines", BLANK_MISSING: "blank lines",
         VARIATION_SELECTOR: "variation selectors", SPACING: "spacing within lines",
         ORDER: "the order of lines", NUMBERS: "numbers only", NO_OUTPUT: "no output at all",
         STOPS_AFTER: "output cut short", STOPS_WITHIN: "output cut short",
         EXTRA_LINES: "output goes on too long", GOES_ON: "output goes on too long",
         TOO_MANY: "extra lines", MISSING: "missing lines", TOO_MANY_AT: "extra lines",
         MISSING_AT: "missing lines",
         PARTS_AND_STOPS: "output ends early with lines of its own", ONE_LINE: "one line differs",
         ON_STDERR: "lines on stderr"}

MOST_SHOWN = 80  # characters of a line quoted in a sentence
MOST_COMPARED = 2_000  # lines of each output `regions` diffs: with difflib's autojunk
# (a line in more than 1% of them is matched only next to others), a fraction of a second
CONTEXT_CHARS = 30  # quoted before the first difference when it lies further in
ESCAPE = "surrogateescape"  # bytes that are not UTF-8 survive decoding, and come back
NUMBER = re.compile(rb"([-+]?[0-9]+(?:\.[0-9]+)?)")  # a group: re.split keeps the numbers
NUMBER_BYTES = b"+-.0123456789"
WHITE_SPACE = string.whitespace.encode()  # what bytes.strip() strips
SPACES_AND_TABS = b" \t"
VARIATION_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
VARIATION_SELECTOR_STARTS = ("\ufe00".encode()[:2], "\U000e0100".encode()[:2])  # in UTF-8,
# every selector starts with one of these two pairs of bytes


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


def _variation_selectors(data: bytes) -> bytes:
    """U+FE0E (text) and U+FE0F (emoji) go, and the other selectors, U+FE00..U+FE0D and
    U+E0100..U+E01EF: a 😊 is right with or without its U+FE0F. Two searches first spare
    decoding an output that has none, as most have."""
    if not any(start in data for start in VARIATION_SELECTOR_STARTS):
        return data
    return VARIATION_SELECTORS.sub("", _text(data)).encode("utf-8", ESCAPE)


NORMALISATIONS = {  # in the order `normalise` applies them
    "line_ends": _line_ends,  # first: the others then see only `\n` end a line
    "variation_selectors": _variation_selectors,  # before trailing_spaces: one may follow them
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


class NearMiss(NamedTuple):
    """A near miss said: its sentence, and its kind (KINDS'), which travels with it so that
    no reader matches it back out of the sentence."""
    sentence: str
    kind: str


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
    to_the_end: bool  # the parts are the ends of the outputs
    alone: bool = True  # the output is all that differs: the run ended as expected


def _outputs(got: bytes, want: bytes, stopped: str, alone: bool = True) -> _Outputs:
    start = got.rfind(b"\n", 0, _common_prefix(got, want)) + 1
    same_end = len(got) - _common_prefix(got[start:][::-1], want[start:][::-1])
    line_end = got.find(b"\n", same_end)
    tail = len(got) - line_end - 1 if line_end >= 0 else 0  # whole lines, the same in both
    got_part, want_part = got[start:len(got) - tail], want[start:len(want) - tail]
    spacing_only = got_part.translate(None, WHITE_SPACE) == want_part.translate(None, WHITE_SPACE)
    return _Outputs(got, want, stopped, got.count(b"\n", 0, start), got_part, want_part,
                    spacing_only, not tail, alone and not stopped)


def missed(got: bytes, want: bytes, stopped: str = "", alone: bool = True) -> NearMiss:
    """How `got` nearly matches `want`, in one sentence and its kind, or None when none fits
    (the diff then speaks alone). The kinds are tried from the narrowest ("only X
    differs") to the broadest, so the first that holds is the most precise true statement.
    `stopped` ("a crash", "the time limit", "end of input") says why a run ended early; an
    output cut short is then said first, as the end of the run is what to fix (not, say,
    the final newline it never printed). Unless the output is all that differs (`alone`,
    and no `stopped`), no sentence says the rest is "as expected": the verdict goes on to
    say what else does."""
    if got == want:
        return None
    outputs = _outputs(got, want, stopped, alone)
    checks = ((_stops_early,) if stopped else ()) + CHECKS
    return next(filter(None, (check(outputs) for check in checks)), None)


def missed_on_stderr(got: bytes, want: bytes) -> NearMiss:
    """`missed` of what a run wrote on stderr against the case's: lines where it expects
    nothing said as lines on stderr, and any other near miss's kind said to be on stderr."""
    if got and not want:
        return _said(ON_STDERR, count=_count(_line_count(got), "line"),
                     first=_quoted(_text(_first_line(got)).removesuffix("\n")))
    found = missed(got, want)
    return found._replace(kind=STDERR_KIND.format(kind=found.kind)) if found else None


def explain(got: bytes, want: bytes, stopped: str = "") -> str:
    """`missed`'s sentence, or "" when none fits."""
    found = missed(got, want, stopped)
    return found.sentence if found else ""


def _only_trailing_spaces(outputs: _Outputs) -> NearMiss:
    if not (outputs.spacing_only and _equal_after("trailing_spaces", outputs)):
        return None
    got, want = (_trailing(line) for line in _first_lines(outputs))
    return _said(TRAILING_SPACES, line=outputs.index + 1, got=got, want=want)


def _trailing(line: str) -> str:
    """The spaces and tabs that end a line, drawn; NO_SPACE for none."""
    body = line.removesuffix("\n")
    tail = body[len(body.rstrip(" \t")):]
    return QUOTED.format(show_line(tail)) if tail else NO_SPACE


def _only_line_ends(outputs: _Outputs) -> NearMiss:
    if not (outputs.spacing_only and _equal_after("line_ends", outputs)):
        return None
    got, want = (CRLF if line.endswith("\r\n") else LF for line in _first_lines(outputs))
    return _said(LINE_ENDS, line=outputs.index + 1, got=got, want=want)


def _only_final_newline(outputs: _Outputs) -> NearMiss:
    if not (outputs.spacing_only and _equal_after("final_newline", outputs)):
        return None
    got, want = (_count(len(data) - len(data.rstrip(b"\n")), "newline")
                 for data in (outputs.got, outputs.want))
    return _said(FINAL_NEWLINE, got=got, want=want)


def _only_letter_case(outputs: _Outputs) -> NearMiss:
    return _line_sentence(LETTER_CASE, outputs) if _equal_after("letter_case", outputs) else None


def _only_blank_lines(outputs: _Outputs) -> NearMiss:
    """Said at the first line that differs, blank in one output and not in the other: were
    neither blank, the lines before being the same, more than blank lines would differ."""
    if not (outputs.spacing_only and _equal_after("blank_lines", outputs)):
        return None
    got, want = (bool(part) and not _first_line(part).strip()  # as in _blank_lines
                 for part in (outputs.got_part, outputs.want_part))
    if got == want:
        return None  # both blank, in other white space
    return _said(BLANK_TOO_MANY if got else BLANK_MISSING, line=outputs.index + 1)


def _only_variation_selectors(outputs: _Outputs) -> NearMiss:
    if not _equal_after("variation_selectors", outputs):
        return None
    return _line_sentence(VARIATION_SELECTOR, outputs)


def _only_spacing(outputs: _Outputs) -> NearMiss:
    """Column widths: the lines are equal once their spaces and tabs are deleted (more
    than at their ends, or TRAILING_SPACES would have been said)."""
    got, want = outputs.got_part, outputs.want_part
    if not (outputs.spacing_only and _without_spacing(got) == _without_spacing(want)):
        return None
    count = sum(got_line != want_line
                for got_line, want_line in zip(got.split(b"\n"), want.split(b"\n")))
    return _line_sentence(SPACING, outputs, count=_count(count, "line"))


def _without_spacing(data: bytes) -> bytes:
    return data.translate(None, SPACES_AND_TABS)


def _in_another_order(outputs: _Outputs) -> NearMiss:
    """Before numbers: rows of a table swapped differ only in their numbers too."""
    got, want = outputs.got_part, outputs.want_part
    same = len(got) == len(want) and Counter(got.split(b"\n")) == Counter(want.split(b"\n"))
    return _line_sentence(ORDER, outputs) if same else None


def _only_numbers(outputs: _Outputs) -> NearMiss:
    """The texts between the numbers are equal: said at the first number that differs.
    Deleting every digit, sign and point first is a quick test most outputs fail."""
    got, want = outputs.got_part, outputs.want_part
    if got.translate(None, NUMBER_BYTES) != want.translate(None, NUMBER_BYTES):
        return None
    got, want = NUMBER.split(got), NUMBER.split(want)
    if got[::2] != want[::2]:
        return None
    index = next(index for index in range(1, len(got), 2) if got[index] != want[index])
    line = outputs.index + 1 + sum(text.count(b"\n") for text in got[:index:2])
    return _said(NUMBERS, line=line, got=got[index].decode(), want=want[index].decode())


def _stops_early(outputs: _Outputs) -> NearMiss:
    got, want = outputs.got, outputs.want
    if not want.startswith(got):
        return None
    why = _why(outputs)
    total = _line_count(want)
    if not got:
        return _said(NO_OUTPUT, total=_count(total, "line"), why=why)
    if got.endswith(b"\n"):
        return _said(STOPS_AFTER, line=got.count(b"\n"), total=total, why=why)
    return _said(STOPS_WITHIN, line=got.count(b"\n") + 1, total=total, why=why)


def _extra_lines(outputs: _Outputs) -> NearMiss:
    got, want = outputs.got, outputs.want
    if not got.startswith(want):
        return None
    first, newline, _ = got[len(want):].partition(b"\n")
    if want and not want.endswith(b"\n"):
        return _said(GOES_ON, line=_line_count(want),
                              rest=_quoted(_text(first), newline=bool(newline)))
    return _said(EXTRA_LINES, count=_count(_line_count(got) - _line_count(want), "extra line"),
                              line=_line_count(want) + 1, first=_quoted(_text(first)))


def _too_many(outputs: _Outputs) -> NearMiss:
    """Whole lines printed before a part that is as expected: a debug line before a table.
    (At the end they are EXTRA_LINES, said before.)"""
    return _inserted(TOO_MANY if outputs.alone else TOO_MANY_AT, outputs.got_part,
                     outputs.want_part, outputs.index)


def _missing(outputs: _Outputs) -> NearMiss:
    """Whole expected lines missing before a part that is as expected."""
    return _inserted(MISSING if outputs.alone else MISSING_AT, outputs.want_part,
                     outputs.got_part, outputs.index)


def _inserted(template: str, longer: bytes, shorter: bytes, index: int) -> NearMiss:
    """`template` said of the whole lines `longer` has before it goes on as `shorter`."""
    lines = longer[:len(longer) - len(shorter)]
    if not (longer.endswith(shorter) and lines.endswith(b"\n")):
        return None
    return _said(template, count=_count(lines.count(b"\n"), "line"), line=index + 1,
                           first=_quoted(_text(_first_line(lines)).removesuffix("\n")))


def _parts_and_stops(outputs: _Outputs) -> NearMiss:
    """After lines as expected, the run ends with lines of its own (none of them, blank
    ones aside, expected there), fewer than the expected output goes on for: a game over
    too soon ("You won!" after stage 1)."""
    got, want = outputs.got_part, outputs.want_part
    if not (outputs.index and outputs.to_the_end and _line_count(got) < _line_count(want)):
        return None
    if set(filter(bytes.strip, got.split(b"\n"))) & set(want.split(b"\n")):
        return None  # expected lines among them: not a run's own end, and the diff shows more
    got_line, want_line = _quoted_pair(*_first_lines(outputs))
    return _said(PARTS_AND_STOPS, line=outputs.index, got=got_line,
                                  count=_count(_line_count(got), "line"),
                                  total=_count(_line_count(want), "line"), want=want_line,
                                  why=_why(outputs))


def _one_line(outputs: _Outputs) -> NearMiss:
    """The parts that differ are one line each: the lines around them are the same."""
    parts = (outputs.got_part, outputs.want_part)
    one_line = all(part and b"\n" not in part[:-1] for part in parts)
    return _line_sentence(ONE_LINE, outputs) if one_line else None


CHECKS = (_only_trailing_spaces, _only_line_ends, _only_final_newline, _only_letter_case,
          _only_blank_lines, _only_variation_selectors, _only_spacing, _in_another_order,
          _only_numbers, _stops_early, _extra_lines, _too_many, _missing, _parts_and_stops,
          _one_line)


def regions(got: bytes, want: bytes, most: int = 3) -> list:
    """A sentence for each region in which `got` differs from `want`, in the words of
    `explain` (its very sentence when there is one region only), the first `most` of
    them, then one counting the rest (a last region is said rather than counted). The
    lines are diffed from the first that differs to the last, at most MOST_COMPARED of
    each, so that the cost stays bounded; a last sentence says where the comparison
    stopped when it did."""
    if got == want:
        return []
    outputs = _outputs(got, want, "")
    (got_lines, got_cut), (want_lines, want_cut) = map(_lines, (outputs.got_part,
                                                               outputs.want_part))
    cut = got_cut or want_cut
    opcodes = SequenceMatcher(None, want_lines, got_lines).get_opcodes()
    if cut and len(opcodes) > 1 and opcodes[-1][0] != "equal":
        opcodes.pop()  # a region the cut may have split, or made up from lines not compared
    differing = [opcode for opcode in opcodes if opcode[0] != "equal"]
    said = differing if len(differing) == most + 1 else differing[:most]
    at_end = outputs.to_the_end and not cut
    sentences = [_region(outputs, opcode, got_lines, want_lines,
                         at_end and opcode == opcodes[-1]) for opcode in said]
    if len(differing) == 1 and not cut:  # explain's words, when it has some, say more
        return [explain(got, want) or sentences[0]]
    if len(said) < len(differing):
        first_unsaid = differing[len(said)]
        sentences.append(MORE_REGIONS.format(count=len(differing) - len(said),
                                             line=outputs.index + first_unsaid[3] + 1))
    if cut:
        _, _, want_end, _, got_end = opcodes[-1]
        sentences.append(COMPARED_UP_TO.format(got=outputs.index + got_end,
                                               want=outputs.index + want_end))
    return sentences


def _lines(part: bytes) -> tuple:
    """The first MOST_COMPARED lines of a part with their `\\n` (a last line may have none),
    and whether the part has more."""
    *lines, rest = part.split(b"\n", MOST_COMPARED)
    lines = [line + b"\n" for line in lines]
    if len(lines) == MOST_COMPARED:
        return lines, bool(rest)
    return lines + ([rest] if rest else []), False


def _region(outputs: _Outputs, opcode: tuple, got_lines: list, want_lines: list,
            at_end: bool) -> str:
    """One of difflib's opcodes (expected lines i1..i2 become got lines j1..j2) said as
    `explain` says it of its lines, but for "otherwise as expected"."""
    _, want_start, want_end, got_start, got_end = opcode
    got, want = got_lines[got_start:got_end], want_lines[want_start:want_end]
    line = outputs.index + got_start + 1
    ending = at_end and (_stops_early(outputs) or _extra_lines(outputs))  # the only region
    if ending:
        return ending.sentence
    if not got:
        if at_end:
            return STOPS_AFTER.format(line=line - 1, total=_line_count(outputs.want), why="")
        return MISSING_AT.format(count=_count(len(want), "line"), line=line,
                                 first=_quoted(_text(want[0]).removesuffix("\n")))
    if not want:
        template, noun = (EXTRA_LINES, "extra line") if at_end else (TOO_MANY_AT, "line")
        return template.format(count=_count(len(got), noun), line=line,
                               first=_quoted(_text(got[0]).removesuffix("\n")))
    changed = [pair for pair in zip(got, want) if pair[0] != pair[1]] or [(got[0], want[0])]
    quoted_got, quoted_want = _quoted_pair(*map(_text, changed[0]))
    if len(got) == len(want) and all(_without_spacing(got_line) == _without_spacing(want_line)
                                     for got_line, want_line in changed):
        return SPACING_AT.format(count=_count(len(changed), "line"), line=line,
                                 got=quoted_got, want=quoted_want)
    if len(got) == len(want) == 1:
        return ONE_LINE.format(line=line, got=quoted_got, want=quoted_want)
    if at_end and len(got) < len(want) and line > 1:
        return PARTS_AND_STOPS.format(line=line - 1, got=quoted_got,
                                      count=_count(len(got), "line"),
                                      total=_count(len(want), "line"), want=quoted_want, why="")
    return LINES_DIFFER.format(line=line, count=_count(len(got), "line"), total=len(want),
                               got=quoted_got, want=quoted_want)


def _equal_after(name: str, outputs: _Outputs) -> bool:
    normalisation = NORMALISATIONS[name]
    return normalisation(outputs.got) == normalisation(outputs.want)


def _first_lines(outputs: _Outputs) -> tuple:
    """The first line that differs, in each output, with its `\\n` if it has one."""
    return _text(_first_line(outputs.got_part)), _text(_first_line(outputs.want_part))


def _first_line(part: bytes) -> bytes:
    line, newline, _ = part.partition(b"\n")
    return line + newline


def _line_sentence(template: str, outputs: _Outputs, **more) -> NearMiss:
    """`template` said of the first line that differs, both versions quoted."""
    got, want = _quoted_pair(*_first_lines(outputs))
    return _said(template, line=outputs.index + 1, got=got, want=want, **more)


def _said(template: str, **values) -> NearMiss:
    return NearMiss(template.format(**values), KINDS[template])


def _why(outputs: _Outputs) -> str:
    return WHY.format(stopped=outputs.stopped) if outputs.stopped else ""


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
    """`text` escaped from `start`, cut after MOST_SHOWN characters; ⏎ when `newline`; a
    blank line said as one (a quote of nothing, "``", reads as a slip)."""
    shown = (CUT_BEFORE if start else "") + escaped(text[start:], MOST_SHOWN)
    if not (shown or newline):
        return A_BLANK_LINE
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
    """As many lines as `exactmark.base.visible.split_lines` gives, without splitting."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _count(number: int, noun: str) -> str:
    return f"{number or 'no'} {noun}{'s' if number > 1 else ''}"

