"""The conversation run in-process (no terminal, no subprocess): what the golden cases cannot
show, the stats file after a run, and that the in-process session is the program itself."""

import pytest

from exactmark.kit.cases import load_cases
from hoyle.cin import Cin
from hoyle.session import Session, upper
from tests.bytes_check import expect_same

CASES = load_cases("hoyle_cli")
START = b"1\ny\n13\n27\n28\n42\n"


class Lines:
    """A stdin that hands out one line (ended by LF only) per call."""

    def __init__(self, data: bytes):
        *lines, last = data.split(b"\n")
        self.lines = [line + b"\n" for line in lines] + ([last] if last else [])

    def __call__(self) -> bytes:
        return self.lines.pop(0) if self.lines else b""


def play(stdin: bytes, stats_path) -> bytes:
    """Everything the session writes for `stdin`, as stdout's bytes."""
    written = []
    Session(Cin(Lines(stdin)), written.append, str(stats_path)).run()
    return "".join(written).encode("utf-8")


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_in_process_the_session_prints_what_the_program_prints(case, tmp_path):
    stats = tmp_path / "hoyle_stats.txt"
    if case.stats is not None:
        stats.write_bytes(case.stats)
    expect_same(case.as_read(play(case.stdin, stats)), case.stdout, f"{case.id} in-process")


def test_each_finished_game_adds_its_score_and_an_unfinished_game_nothing(tmp_path):
    stats = tmp_path / "stats.txt"
    play(START + b"-1\ny\n13 27 28 42\n1 14 1 w 1\n-1\ny\n13 27 28 42\n1 0\n", stats)
    assert stats.read_bytes() == b"48\n48\n"


def test_a_won_game_adds_zero(tmp_path):
    stats = tmp_path / "stats.txt"
    winning = next(case for case in CASES if case.name == "winning_game")
    play(winning.stdin, stats)
    assert stats.read_bytes() == b"0\n"


def test_a_stats_file_that_cannot_be_written_changes_nothing_on_screen(tmp_path):
    stdin = START + b"-1\nn\n2\n2\n3\n"
    writable = play(stdin, tmp_path / "stats.txt")
    assert b"Games Lost: 1\nAverage Score: 48.00\n" in writable
    no_stats = writable.replace(b"Games Lost: 1\nAverage Score: 48.00", b"Games Lost: 0\nAverage Score: 0.00")
    assert play(stdin, tmp_path / "no" / "folder" / "stats.txt") == no_stats
    assert play(stdin, tmp_path) == no_stats  # a folder at that path


def test_stats_are_read_again_each_time(tmp_path):
    stats = tmp_path / "stats.txt"
    stats.write_bytes(b"5\n")
    written = []
    lines = Lines(b"2\n2\n2\n2\n3\n")

    def next_line():
        if len(lines.lines) == 3:  # between the two Display Stats
            stats.write_bytes(b"5\n0\n")
        return lines()

    Session(Cin(next_line), written.append, str(stats)).run()
    text = "".join(written)
    assert "Games Won: 0\nGames Lost: 1\nAverage Score: 5.00\n" in text
    assert "Games Won: 1\nGames Lost: 1\nAverage Score: 2.50\n" in text


def test_answers_are_upper_cased_for_a_to_z_only():
    assert bytes(map(upper, b"aynfwzAZ`{\xe9\xff-1")) == b"AYNFWZAZ`{\xe9\xff-1"
