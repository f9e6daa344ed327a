"""Which lines of the expected output a run got wrong: finer evidence than a failed case.
Two mistakes in one program fail many of the same cases, but each changes its own lines;
the lines a student's run changed, set against each wrong program's, tell them apart.

Lines are counted in the expected output, from 0. A line the run changed or left out is
one; a line the run added is counted as the expected line it comes before (the last one
at the end), so that the same mistake gives the same lines wherever it shifts the rest.
The lines both outputs begin and end with are set aside first; of the rest, only the first
MOST_LINES lines of each are compared line by line (with difflib's autojunk, so that a
run of one line repeated costs no more than other lines), and past them the rest of the
expected output counts as changed when the rests differ."""

import difflib

MOST_LINES = 2_000


def changed_lines(got: bytes, want: bytes) -> tuple:
    """The expected output's lines the run changed, as (start, stop) ranges in order."""
    if got == want:
        return ()
    want_lines, got_lines = want.split(b"\n"), got.split(b"\n")
    total = len(want_lines)
    head = _same_start(want_lines, got_lines)
    tail = _same_start(want_lines[head:][::-1], got_lines[head:][::-1])
    want_rest = want_lines[head:total - tail]
    got_rest = got_lines[head:len(got_lines) - tail]
    matcher = difflib.SequenceMatcher(None, want_rest[:MOST_LINES], got_rest[:MOST_LINES])
    ranges = [(head + start, head + max(stop, start + 1))
              for tag, start, stop, _, _ in matcher.get_opcodes() if tag != "equal"]
    if want_rest[MOST_LINES:] != got_rest[MOST_LINES:]:
        ranges.append((head + MOST_LINES, head + max(len(want_rest), MOST_LINES + 1)))
    return tuple(_merged([(min(start, total - 1), min(stop, total)) for start, stop in ranges]))


def _same_start(one: list, other: list) -> int:
    """How many lines the two lists begin with alike."""
    count = 0
    for mine, theirs in zip(one, other):
        if mine != theirs:
            break
        count += 1
    return count


def _merged(ranges: list) -> list:
    merged = []
    for start, stop in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], stop))
        else:
            merged.append((start, stop))
    return merged


def as_set(ranges) -> frozenset:
    """The lines of (start, stop) ranges, as a set."""
    return frozenset(line for start, stop in ranges for line in range(start, stop))
