"""Failures that differ the same way, gathered so that each way of failing is said once,
with how many cases and which: one word a student changed makes the same difference in
every case that prints it, at another line in each, and is one mistake to fix, not thirteen.

Two failures differ the same way when they are of the same kind, in the same mode, and
a wrong output's (or stderr's) diffs replace, leave out or add the same lines wherever
those fall in the outputs; any other failure (a wrong exit status, a crash, a run stopped
by a limit) when its detail is the same: the same traceback's last line, the same limit.
Lines on stderr where a case expects none are one way of failing for all the cases of a
folder (a program's, or a group's the student wrote), whatever the lines say: a debug line
that prints the seed differs in every case, and is one line to remove.
The report groups its verdicts by `difference`, and a student's page its cases by the
differences stored with each verdict (exactmark/marking/records.py)."""

import hashlib

from exactmark.base.visible import SAME
from exactmark.marking.near_miss import KINDS, ON_STDERR
from exactmark.marking.verdicts import Kind

# The kinds whose detail quotes the output at a line of its own: their diff's changed lines
# say the difference without the line numbers.
SAID_BY_THE_DIFF = (Kind.WRONG, Kind.WRONG_STDERR)


def difference(verdict) -> str:
    """What a failed verdict shares with every failure that differs the same way, as a short
    digest (kept in results.json, where a page reads it)."""
    said = verdict.detail
    if verdict.near_miss and verdict.near_miss.kind == KINDS[ON_STDERR]:
        said = (verdict.case_id.rpartition("/")[0], verdict.near_miss.kind)  # its folder
    elif verdict.kind in SAID_BY_THE_DIFF and verdict.diff_lines:
        said = tuple((line.tag, line.text, line.newline, line.cut)
                     for hunk in verdict.diff_lines.hunks for line in hunk.lines
                     if line.tag != SAME)
    key = (str(verdict.kind), verdict.mode, said)
    return hashlib.sha256(repr(key).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def grouped(items, key) -> list:
    """`items` in lists of those with the same `key(item)`, each list in the order of its
    items and the lists in the order of their first items."""
    groups = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return list(groups.values())
