"""hoyle_cli against tests/oracles/hoyle_oracle.py, an implementation written
from its specification, docs/hoyle_cli.md, alone: every golden case, the stats
file after real runs, and random token streams fed to the real program."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from exactmark.kit.cases import ROOT, load_cases
from tests.bytes_check import expect_same
from tests.oracles import hoyle_oracle as oracle

PROGRAM = ROOT / "hoyle_cli.py"
CASES = load_cases("hoyle_cli")
STATS_CASES = ["stats_no_file", "stats_display", "stats_malformed", "complete_foundation_won_holding",
               "lost_game", "ascii_more", "eof_at_action_menu", "eof_at_play_again"]


def run_program(stdin: bytes, stats):
    """(stdout, stats file after or None) of the real program, piped, in a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="hoyle-oracle-") as folder:
        stats_path = Path(folder) / "stats.txt"
        if stats is not None:
            stats_path.write_bytes(stats)
        env = dict(os.environ, HOYLE_STATS_FILE=str(stats_path))
        env.pop("PYTHONUNBUFFERED", None)
        done = subprocess.run([sys.executable, str(PROGRAM)], input=stdin, capture_output=True,
                              cwd=folder, env=env, timeout=30)
        assert (done.returncode, done.stderr) == (0, b""), done.stderr[-2000:]
        return done.stdout, stats_path.read_bytes() if stats_path.exists() else None


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_every_golden_case_is_what_the_oracle_prints(case):
    stdout, _ = oracle.transcript(case.stdin, case.stats)
    expect_same(case.stdout, case.as_read(stdout), f"{case.id} against the oracle")


@pytest.mark.parametrize("name", STATS_CASES)
def test_stats_file_after_a_real_run_is_the_oracle_s(name):
    case = next(case for case in CASES if case.name == name)
    stdout, stats = run_program(case.stdin, case.stats)
    want_stdout, want_stats = oracle.transcript(case.stdin, case.stats)
    expect_same(stdout, want_stdout, f"{case.id} stdout against the oracle")
    assert stats == want_stats, f"{case.id}: stats file after the run"


def test_the_oracle_s_stats_rules():
    """Section 7's own example, and an append after a last line without LF."""
    stats = b"47\n0\n12\n\nabc\n0\n"
    stdout, after = oracle.transcript(b"2\n2\n3\n", stats)
    assert b"Games Won: 2\nGames Lost: 2\nAverage Score: 14.75\n" in stdout
    assert after == stats
    quit_at_once = b"1\ny\n13\n27\n28\n42\n-1\nn\n3\n"
    assert oracle.transcript(quit_at_once, b"3")[1] == b"3\n48\n"
    assert oracle.transcript(quit_at_once, None)[1] == b"48\n"
    assert oracle.transcript(quit_at_once[:-7], None)[1] is None  # ends at the action menu


# ---------------------------------------------------------------- random token streams

START_GAME = b"1\ny\n13\n27\n28\n42\n"
TOKENS = st.one_of(
    st.sampled_from([b"1", b"2", b"3", b"4", b"0", b"-1", b"+2", b"007"]),        # menu numbers
    st.integers(0, 51).map(lambda n: str(n).encode()),                           # card numbers
    st.sampled_from([b"52", b"99", b"-5", b"2147483648", b"-2147483649"]),        # out of range
    st.sampled_from([b"y", b"n", b"f", b"w", b"Y", b"N", b"F", b"W", b"yes", b"fw", b"2x"]),
    st.sampled_from([b"", b"   ", b"\t"]),                                       # blank-ish lines
    st.binary(min_size=1, max_size=3),                                           # junk bytes
    st.integers(11, 60).map(lambda n: b"9" * n),                                 # long digit strings
    st.just(b"x" + b"a" * 1100),                                                 # longer than the discard
)
PILE = st.integers(0, 5).map(lambda n: str(n).encode())
TURNS = st.one_of(  # whole turns, so that games get somewhere
    st.tuples(st.integers(0, 51), st.sampled_from([b"f", b"w"]), PILE).map(
        lambda t: b"1\n%d\n1\n%s\n%s" % t),                                    # draw, then play it
    st.tuples(PILE, PILE).map(lambda t: b"2\n%s\n%s" % t),                         # waste to foundation
    PILE.map(lambda w: b"3\n" + w),                                              # show a waste pile
)
SEPARATORS = st.sampled_from([b"\n", b"\n", b"\n", b" ", b"\r\n", b"\x0b", b"\t"])
STATS = st.sampled_from([None, b"", b"0\n7\n", b"3", b"abc\n12\r\n"])


@st.composite
def token_streams(draw):
    head = draw(st.sampled_from([b"", START_GAME, b"2\n1\n" + START_GAME]))
    body = b"".join(token + draw(SEPARATORS)
                    for token in draw(st.lists(st.one_of(TOKENS, TURNS, TURNS), max_size=120)))
    tail = draw(st.sampled_from([b"", b"-1\nn\n2\n2\n3\n", b"3"]))
    return head + body + tail


@settings(max_examples=40, deadline=None, database=None)
@given(stdin=token_streams(), stats=STATS)
def test_random_token_streams_match_the_oracle(stdin, stats):
    stdout, after = run_program(stdin, stats)
    want_stdout, want_after = oracle.transcript(stdin, stats)
    expect_same(stdout, want_stdout, f"stdin {stdin!r}, stats {stats!r}")
    assert after == want_after, f"stats file after stdin {stdin!r}"
