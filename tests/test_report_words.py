"""The marker's report says what is true, each thing once, in columns that line up:
its sentences tried one at a time, without marking anything."""

import pytest

from exactmark.marking.report import (CASE_LINE, KIND_WIDTH, MISSING, MISSING_LINE,
                                      NOT_BUILT_LINE)
from exactmark.marking.verdicts import Kind


@pytest.mark.parametrize("kind", list(Kind), ids=str)
def test_every_verdict_word_fits_its_column(kind):
    line = CASE_LINE.format(kind=kind, width=KIND_WIDTH, marks=0.5, case="p/c", detail="")
    column = len("  ") + KIND_WIDTH + 1  # the marks', five characters wide
    assert line[:column] == f"  {kind!s}".ljust(column) and line[column:column + 5] == " 0.50", \
        f"{kind!s} ({len(kind.value)} characters) pushes the marks out of their column: {line!r}"


def test_a_missing_program_and_an_unbuilt_one_keep_the_column():
    missing = MISSING_LINE.format(program="p", missing=MISSING, width=KIND_WIDTH, why="why")
    unbuilt = NOT_BUILT_LINE.format(kind=Kind.NOT_BUILT, width=KIND_WIDTH, count=3)
    column = len("  ") + KIND_WIDTH + 1
    assert missing.splitlines()[1].index("why") == column, missing
    assert unbuilt.index("(all") == column, unbuilt
