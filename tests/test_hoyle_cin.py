"""C++ `cin` semantics over bytes (docs/hoyle_cli.md §6), one case per rule."""

import pytest

from hoyle.cin import Cin, EndOfInput, IntRead


class Lines:
    """A stdin that hands out one line per call and counts the calls."""

    def __init__(self, data: bytes):
        *lines, last = data.split(b"\n")  # only LF ends a line (bytes.splitlines also splits at CR)
        self.lines = [line + b"\n" for line in lines] + ([last] if last else [])
        self.calls = 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.lines.pop(0) if self.lines else b""


def cin(data: bytes) -> Cin:
    return Cin(Lines(data))


FAILED = IntRead(False, 0)


# --- Whitespace and digits ------------------------------------------------------

@pytest.mark.parametrize("space", [b" ", b"\t", b"\n", b"\x0b", b"\x0c", b"\r"])
def test_the_six_whitespace_bytes_are_skipped(space):
    reader = cin(space * 3 + b"7" + space + b"x\n")
    assert reader.read_int() == IntRead(True, 7)
    assert reader.read_char() == ord("x")


@pytest.mark.parametrize("other", [b"\x1c", b"\x85", b"\xa0", "\u3000".encode(), b"\x00"])
def test_other_bytes_str_isspace_may_accept_are_not_whitespace(other):
    assert cin(other + b"7\n").read_int() == FAILED
    assert cin(other + b"\n").read_char() == other[0]


@pytest.mark.parametrize("digit", ["\u0663", "\uff13", "\u00b3"])  # Arabic-Indic 3, fullwidth 3, superscript 3
def test_only_ascii_digits_are_digits(digit):
    assert cin(digit.encode() + b"\n").read_int() == FAILED


# --- Char reads -----------------------------------------------------------------

def test_a_char_read_skips_blank_lines_and_takes_one_byte():
    reader = cin(b"\n   \n\t\nyes\n")
    assert [reader.read_char() for _ in range(3)] == [ord("y"), ord("e"), ord("s")]


def test_a_multibyte_character_is_several_answers():
    reader = cin("é\n".encode())
    assert [reader.read_char(), reader.read_char()] == [0xC3, 0xA9]


def test_yes_is_y_and_leaves_es_to_fail_the_next_int_read():
    reader = cin(b"yes\n")
    assert reader.read_char() == ord("y")
    assert reader.read_int() == FAILED


# --- Int reads ------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    (b"2", IntRead(True, 2)), (b"+1", IntRead(True, 1)), (b"007", IntRead(True, 7)),
    (b"-1", IntRead(True, -1)), (b"-0", IntRead(True, 0)),
    (b"2147483647", IntRead(True, 2147483647)), (b"-2147483648", IntRead(True, -2147483648)),
    (b"2147483648", IntRead(False, 2147483647)), (b"-2147483649", IntRead(False, -2147483648)),
    (b"99999999999", IntRead(False, 2147483647)), (b"-99999999999", IntRead(False, -2147483648)),
    (b"000000000002147483647", IntRead(True, 2147483647)),
    (b"abc", FAILED), (b"+", FAILED), (b"-", FAILED), (b"+-5", FAILED), (b"--5", FAILED), (b" - 5", FAILED),
])
def test_int_read_values(text, expected):
    assert cin(text + b"\n").read_int() == expected


def test_unlimited_digits_make_one_failed_read_and_are_all_consumed():
    reader = cin(b"9" * 100_000 + b"x\n" + b"-" + b"9" * 100_000 + b"\n" + b"0" * 100_000 + b"3\n")
    assert reader.read_int() == IntRead(False, 2147483647)
    assert reader.read_char() == ord("x")
    assert reader.read_int() == IntRead(False, -2147483648)
    assert reader.read_int() == IntRead(True, 3)


def test_the_byte_that_stops_a_read_is_left_for_the_next_one():
    reader = cin(b"2x\n")
    assert reader.read_int() == IntRead(True, 2)
    assert reader.read_int() == FAILED
    assert reader.read_char() == ord("x")


def test_a_sign_is_consumed_even_when_the_read_fails():
    reader = cin(b"-x\n")
    assert reader.read_int() == FAILED
    assert reader.read_char() == ord("x")


def test_one_line_answers_several_reads_without_taking_the_next_line():
    lines = Lines(b"1 y\n3\n")
    reader = Cin(lines)
    assert reader.read_int() == IntRead(True, 1)
    assert reader.read_char() == ord("y")
    assert lines.calls == 1
    assert reader.read_int() == IntRead(True, 3)
    assert lines.calls == 2


# --- Discard ----------------------------------------------------------------------

def failures_before(line: bytes) -> int:
    """How many failed int reads, each followed by the discard, before the `3` on the next line."""
    reader, failures = cin(line + b"\n3\n"), 0
    while not (read := reader.read_int()).ok:
        failures += 1
        reader.discard()
    assert read.value == 3
    return failures


@pytest.mark.parametrize("line, failures", [
    (b"x", 1), (b"x" + b"a" * 998, 1), (b"x" + b"a" * 999, 1), (b"x" + b"a" * 1000, 2),
    (b"x" + b"a" * 1100, 2), (b"x" + b"a" * 1999, 2), (b"x" + b"a" * 2000, 3),
])
def test_the_discard_drops_at_most_1000_bytes_the_lf_counted(line, failures):
    assert failures_before(line) == failures


def test_the_discard_stops_at_the_end_of_input_and_never_ends_the_program():
    reader = cin(b"abc")
    assert reader.read_int() == FAILED
    reader.discard()
    with pytest.raises(EndOfInput):
        reader.read_int()


# --- End of input ------------------------------------------------------------------

@pytest.mark.parametrize("data", [b"", b"\n", b"  \t\r\n\n\x0b"])
def test_end_of_input_while_skipping_whitespace_ends_the_reads(data):
    with pytest.raises(EndOfInput):
        cin(data).read_int()
    with pytest.raises(EndOfInput):
        cin(data).read_char()


def test_a_last_token_without_lf_is_read_normally():
    reader = cin(b"n\n3")
    assert reader.read_char() == ord("n")
    assert reader.read_int() == IntRead(True, 3)
    with pytest.raises(EndOfInput):
        reader.read_char()


def test_a_read_failing_at_the_very_end_is_an_ordinary_failed_read():
    reader = cin(b"-")
    assert reader.read_int() == FAILED
    with pytest.raises(EndOfInput):
        reader.read_int()


def test_the_end_of_input_is_not_asked_for_again():
    lines = Lines(b"5")
    reader = Cin(lines)
    assert reader.read_int() == IntRead(True, 5)
    for _ in range(3):
        with pytest.raises(EndOfInput):
            reader.read_int()
    assert lines.calls == 1  # "5" had no LF: it was the end


def test_the_tie_runs_before_every_read():
    events = []
    lines = Lines(b"1 x\n\n")

    def next_line():
        events.append("line")
        return lines()

    reader = Cin(next_line, tie=lambda: events.append("flush"))
    reader.read_int()
    reader.read_char()
    reader.discard()
    with pytest.raises(EndOfInput):
        reader.read_int()
    assert events == ["flush", "line", "flush", "flush", "flush", "line", "line"]
