"""Which lines of the expected output a run got wrong: finer evidence than a failed case.
Two mistakes in one program fail many of the same cases, but each changes its own lines;
the lines a student's run changed, set against each wrong program's, tell them apart.

Lines are counted in the expected output, from 0. A line the run changed or left out is
one; a line the run added is counted as the expected line it comes before (the last one
at the end), so that the same mistake gives the same lines wherever it shifts the rest.
Only the first MOST_LINES lines of each output are compared line by line; past them, the
rest of the expected output counts as changed when the rests differ."""

import difflib

MOST_LINES = 2_000


def changed_lines(got: bytes, want: bytes) -> tuple:
    """The expected output's lines the run changed, as (start, stop) ranges in order."""
    if got == want:
        return ()
    want_lines, got_lines = want.split(b"\n"), got.split(b"\n")
    total = len(want_lines)
    matcher = difflib.SequenceMatcher(None, want_lines[:MOST_LINES], got_lines[:MOST_LINES],
                                      autojunk=False)
    ranges = [(start, min(max(stop, start + 1), total))
              for tag, start, stop, _, _ in matcher.get_opcodes() if tag != "equal"]
    if want_lines[MOST_LINES:] != got_lines[MOST_LINES:] and total > MOST_LINES:
        ranges.append((MOST_LINES, total))
    return tuple(_merged([(min(start, total - 1), stop) for start, stop in ranges]))


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
