"""The lines a run changed, counted in the expected output: the same mistake gives the
same lines wherever it shifts the rest."""

import pytest

from exactmark.diagnosis.evidence import MOST_LINES, as_set, changed_lines

EXPECTED = b"first\nsecond\nthird\n"


@pytest.mark.parametrize("got, lines", [
    (EXPECTED, ()),
    (b"first\nSECOND\nthird\n", ((1, 2),)),
    (b"first\nthird\n", ((1, 2),)),  # a line left out
    (b"first\nsecond\nadded\nthird\n", ((2, 3),)),  # a line added: the one it comes before
    (b"first\nsecond\nthird\nadded\n", ((3, 4),)),  # added at the end: the end
    (b"first\nsecond\nthird", ((3, 4),)),  # no final newline: the end
    (b"", ((0, 3),)),  # nothing printed: every line
])
def test_changed_lines(got, lines):
    assert changed_lines(got, EXPECTED) == lines


def test_a_shift_does_not_change_the_lines_after_it():
    expected = b"".join(b"line %d\n" % number for number in range(50))
    shifted = expected.replace(b"line 10\n", b"line 10\nextra\n").replace(b"line 40", b"LINE 40")
    assert changed_lines(shifted, expected) == ((11, 12), (40, 41))


def test_the_same_start_and_end_are_set_aside_and_past_the_lines_compared_the_rest_counts_whole():
    expected = [b"line %d" % number for number in range(MOST_LINES + 1000)]
    near_the_end = [*expected[:-5], b"changed", *expected[-4:]]
    assert changed_lines(b"\n".join(near_the_end), b"\n".join(expected)) == \
        ((MOST_LINES + 995, MOST_LINES + 996),)
    both_ends = [b"changed", *expected[1:-100], b"changed", *expected[-99:]]
    assert changed_lines(b"\n".join(both_ends), b"\n".join(expected)) == \
        ((0, 1), (MOST_LINES, MOST_LINES + 901))
    assert as_set(((0, 2), (5, 6))) == {0, 1, 5}


def test_a_line_repeated_through_both_outputs_is_junk_to_difflib():
    """Every other line changed in 2,000 of one line repeated: difflib's autojunk takes the
    repeated line as junk, so the changes come as one block (matched line by line, the pair
    took 85 s here)."""
    assert changed_lines(b"same\nother\n" * 1000, b"same\n" * 2000) == ((1, 2000),)
