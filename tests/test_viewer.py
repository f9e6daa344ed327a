"""The line viewer: its grammar as a table, the same grammar against an
independent reading of docs/solitaire_2.md section 6 on random lines, and the
loop's output."""

import io
import sys
from contextlib import redirect_stdout
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.viewer import MENU, PROMPT, QUIT, parse_request, view

N = 1140  # the number of lines in spec section 6's examples


def lines(first: int, last: int) -> range:
    return range(first, last + 1)


GRAMMAR = [
    # spec section 6, accepted
    ("5", lines(1, 5)),
    ("   1", lines(1, 1)),
    ("-1140", lines(1, 1140)),
    ("  -4  ", lines(1137, 1140)),
    ("1--3", lines(1, 3)),
    ("1 -- 3", lines(1, 3)),
    ("007", lines(1, 7)),
    ("\t2\t", lines(1, 2)),
    (" q ", QUIT),
    # spec section 6, rejected
    ("Q", None), ("+1", None), ("0", None), ("-0", None), ("1141", None), ("- 4", None),
    ("1---3", None), ("1- -3", None), ("3--2", None), ("0--2", None), ("-1--2", None),
    ("", None), ("abc", None), ("1.0", None),
    # the edges of the ranges
    ("q", QUIT), ("1140", lines(1, 1140)), ("-1", lines(1140, 1140)),
    ("1140--1140", lines(1140, 1140)), ("1--1140", lines(1, 1140)), ("4--4", lines(4, 4)),
    ("1--1141", None), ("-1141", None), ("1141--1141", None), ("00", None), ("-00", None),
    # whitespace: only around numbers, around `--` and around q; Unicode whitespace counts
    ("  2--  5   ", lines(2, 5)), ("\u30005\u3000", lines(1, 5)), ("\xa0-2\xa0", lines(1139, 1140)),
    ("1\u2003--\u20033", lines(1, 3)), ("\x1c4\x1f", lines(1, 4)), ("\x0b2\x0c", lines(1, 2)),
    ("\x852\u2028", lines(1, 2)), ("2\r", lines(1, 2)), ("\u1680q\u202f", QUIT),
    ("1 - - 3", None), ("- 1", None), ("1 2", None), ("q 5", None), ("qq", None), ("quit", None),
    # not whitespace, not an ASCII digit, not a hyphen-minus
    ("\u200b5", None), ("\ufeff5", None), ("5\xad", None), ("\uff15", None), ("\u0665", None),
    ("\u00b2", None), ("1\u20143", None), ("\u22123", None), ("1--\u22123", None),
    # signs, other bases, separators, half-written ranges
    ("+1--2", None), ("1--+2", None), ("0x10", None), ("1_0", None), ("1e3", None), ("1,2", None),
    ("2-3", None), ("-", None), ("--", None), ("1--", None), ("--3", None), ("--1--3", None),
    # bytes that are not UTF-8, as surrogateescape decodes them
    ("\udcff", None), ("5\udcff", None), ("q\udcff", None), ("\udca05", None),
    # huge numbers and thousands of leading zeros
    ("0" * 5000 + "3", lines(1, 3)), ("-" + "0" * 5000 + "2", lines(1139, 1140)),
    ("0" * 5000 + "1--" + "0" * 5000 + "2", lines(1, 2)), ("0" * 5000, None),
    ("9" * 5000, None), ("-" + "9" * 5000, None), ("1--" + "9" * 5000, None),
    ("1" + "0" * 100_000, None),
]


@pytest.mark.parametrize("line, wanted", GRAMMAR, ids=[repr(line)[:40] for line, _ in GRAMMAR])
def test_the_grammar(line, wanted):
    assert parse_request(line, N) == wanted


@pytest.mark.parametrize("line, count, wanted", [("3", 3, lines(1, 3)), ("4", 3, None),
                                                 ("-3", 3, lines(1, 3)), ("1--1", 1, lines(1, 1)),
                                                 ("10", 9, None), ("09", 9, lines(1, 9))])
def test_the_bounds_follow_the_number_of_lines(line, count, wanted):
    assert parse_request(line, count) == wanted


def test_a_number_of_a_million_digits_is_answered_at_once():
    """int() on it would be slow, or raise under Python's default digit limit."""
    assert parse_request("7" * 1_000_000, N) is None
    assert parse_request("0" * 1_000_000 + "7", N) == lines(1, 7)


def test_the_menu():
    assert MENU.format(count=12) == (
        "Enter: q to quit\n"
        "       a last line number (between 1 and 12)\n"
        "       a first line number (between -1 and -12)\n"
        "       a range of line numbers (of the form m--n with 1 <= m <= n <= 12)")
    assert PROMPT == "       "


# --- The grammar on random lines, against an independent reading ----------

def ascii_number(text: str):
    return int(text) if text and all("0" <= char <= "9" for char in text) else None


def expected_request(line: str, count: int):
    """Spec section 6 read without regular expressions: str.strip() drops exactly
    the characters that `\\s` matches (str.isspace)."""
    body = line.strip()
    if body == "q":
        return QUIT
    if "--" in body:
        first, last = (ascii_number(part.strip()) for part in body.split("--", 1))
        if first is None or last is None:
            return None
        return lines(first, last) if 1 <= first <= last <= count else None
    shown = ascii_number(body[1:]) if body.startswith("-") else None
    if shown is not None:
        return lines(count - shown + 1, count) if 1 <= shown <= count else None
    last = ascii_number(body)
    return lines(1, last) if last is not None and 1 <= last <= count else None


WHITESPACE = " \t\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2003\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_WHITESPACE = "\u200b\ufeff\xad\u180e\udcff"
SPACE = st.one_of(st.text(alphabet=WHITESPACE, max_size=2),
                  st.text(alphabet=WHITESPACE + NOT_WHITESPACE, max_size=2))
NUMBER = st.one_of(
    st.integers(0, 1200).map(str),
    st.tuples(st.text(alphabet="0", max_size=4), st.integers(0, 12).map(str)).map("".join),
    st.text(alphabet="0123456789\uff11\u0661\xb2", min_size=1, max_size=25),
)
SIGN = st.sampled_from(["", "", "-", "+", "--", "\u2212"])
SEPARATOR = st.sampled_from(["--", "--", "-", "---", "- -", "\u2014", "-\u2212"])
STRUCTURED = st.one_of(
    st.tuples(SPACE, SIGN, NUMBER, SPACE).map("".join),
    st.tuples(SPACE, NUMBER, SPACE, SEPARATOR, SPACE, NUMBER, SPACE).map("".join),
    st.tuples(SPACE, st.sampled_from(["q", "Q", "qq", "q-"]), SPACE).map("".join),
)
RAW_BYTES = st.binary(max_size=20).map(lambda data: data.decode("utf-8", "surrogateescape"))
ANY_LINE = st.one_of(STRUCTURED, st.text(max_size=20), RAW_BYTES)


@settings(max_examples=400, deadline=None)
@given(line=ANY_LINE, count=st.sampled_from([1, 2, 9, 10, 1140]))
def test_exactly_the_lines_of_the_grammar_are_accepted(line, count):
    assert parse_request(line, count) == expected_request(line, count)


# --- The loop -------------------------------------------------------------

def run_viewer(stdin: bytes, shown: list) -> str:
    """What `view` prints for this stdin, read as the program reads it."""
    fake_stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="surrogateescape")
    out = io.StringIO()
    with mock.patch.object(sys, "stdin", fake_stdin), redirect_stdout(out):
        view(shown)
    return out.getvalue()


def expected_output(requests: list, shown: list) -> str:
    """Spec section 6 step by step: the menu and the prompt before every read, then
    nothing (q), or an empty line, the requested lines and an empty line, or one empty line."""
    menu = MENU.format(count=len(shown)) + "\n" + PROMPT
    out = ""
    for line in requests:
        out += menu
        request = expected_request(line, len(shown))
        if request is QUIT:
            return out
        out += "\n"
        if request is not None:
            out += "".join(shown[number - 1] + "\n" for number in request) + "\n"
    return out + menu  # end of input


SHOWN = ["first line", "", "third\tline", "fourth 😊\ufe0f", "fifth"]


@pytest.mark.parametrize("stdin, requests", [
    (b"2\n-1\n2--3\nq\n5\n", ["2", "-1", "2--3", "q"]),
    (b"6\n\n", ["6", ""]),
    (b"3", ["3"]),
    (b"", []),
    (b"\xff\n1\r\n 4 -- 5 \n", ["\udcff", "1", " 4 -- 5 "]),
])
def test_the_loop_answers_each_line_until_q_or_end_of_input(stdin, requests):
    assert run_viewer(stdin, SHOWN) == expected_output(requests, SHOWN)


def test_q_ends_the_output_with_the_prompt():
    assert run_viewer(b"1\nq\n", SHOWN).endswith("\n\n" + MENU.format(count=5) + "\n       ")


@settings(max_examples=150, deadline=None)
@given(requests=st.lists(st.one_of(STRUCTURED, RAW_BYTES), max_size=6))
def test_random_input_never_crashes_the_loop(requests):
    # `\r` and `\n` end a line as Python reads it (universal newlines), so they are kept out of lines.
    requests = [line.replace("\r", "").replace("\n", "") for line in requests]
    stdin = "".join(line + "\n" for line in requests).encode("utf-8", "surrogateescape")
    assert run_viewer(stdin, SHOWN) == expected_output(requests, SHOWN)
