"""The stats file (docs/hoyle_cli.md §7): what a file says, and how finished games
are added to it."""

import os
import subprocess
import sys
import time

import pytest

from exactmark.kit.cases import ROOT
from hoyle.stats import Stats, append_score, parse, read_stats, stats_path


def shown(content: bytes) -> str:
    return parse(content).text()


def test_the_spec_example():
    assert shown(b"47\n0\n12\n\nabc\n0\n") == "Games Won: 2\nGames Lost: 2\nAverage Score: 14.75\n"


def test_no_counted_line_averages_zero():
    assert shown(b"") == shown(b"\n\nabc\n") == "Games Won: 0\nGames Lost: 0\nAverage Score: 0.00\n"


@pytest.mark.parametrize("scores, average", [
    (b"1\n" + b"0\n" * 7, "0.12"),  # 1/8 = 0.125 exactly: the tie goes to even
    (b"3\n" + b"0\n" * 7, "0.38"),  # 3/8 = 0.375 exactly: to even again
    (b"107\n" + b"0\n" * 37, "2.82"),  # 107/38 = 2.8157...
    (b"2675\n" + b"0\n" * 999, "2.67"),  # 2.675 is a little less as a double
    (b"55\n0\n", "27.50"), (b"7\n0\n48\n", "18.33"),
])
def test_the_average_is_the_double_rounded_to_two_places(scores, average):
    assert parse(scores).text().endswith(f"Average Score: {average}\n")


def test_crlf_and_whitespace_around_a_number_read_the_same():
    assert parse(b"12\r\n\t7 \r\n\x0b0\x0c\n") == parse(b"12\n7\n0\n") == Stats(won=1, lost=2, total=19)


@pytest.mark.parametrize("line", [b"-3", b"+5", b"1.5", b"abc", b"1 2", b"0x10", b"1e3", "\u0663".encode(),
                                  b"\xff9", b"\xa05", "\u00a05".encode(), "\u2003".encode() + b"5", b"5\x1c"])
def test_other_lines_are_ignored(line):
    assert parse(b"4\n" + line + b"\n") == Stats(won=0, lost=1, total=4)


def test_leading_zeros_and_a_last_line_without_lf():
    assert parse(b"0000\n0007\n" + b"0" * 100_000 + b"5\n3") == Stats(won=1, lost=3, total=15)


def test_huge_numbers_average_to_inf_quickly():
    """Within a second of this process's CPU (a loaded machine stretches the wall clock)."""
    started = time.process_time()
    assert shown(b"0\n" + b"9" * 100_000 + b"\n").endswith("Average Score: inf\n")
    assert time.process_time() - started < 1
    assert shown(b"2" + b"0" * 308 + b"\n").endswith("Average Score: inf\n")  # 2e308 > the largest double


def test_only_the_quotient_must_fit_a_double():
    ten_to_308 = b"1" + b"0" * 308
    text = shown(ten_to_308 + b"\n" + ten_to_308 + b"\n")  # the sum does not fit, the average does
    assert text == f"Games Won: 0\nGames Lost: 2\nAverage Score: {1e308:.2f}\n"


# --- The file ---------------------------------------------------------------------

def test_path_from_the_environment_or_the_default():
    assert stats_path({}) == "hoyle_stats.txt"
    assert stats_path({"HOYLE_STATS_FILE": ""}) == "hoyle_stats.txt"
    assert stats_path({"HOYLE_STATS_FILE": "/x/y.txt"}) == "/x/y.txt"


def test_scores_are_appended_one_line_each(tmp_path):
    path = tmp_path / "stats.txt"
    append_score(path, 47)
    append_score(path, 0)
    assert path.read_bytes() == b"47\n0\n"
    assert read_stats(path) == Stats(won=1, lost=1, total=47)


def test_a_last_line_without_lf_is_ended_first(tmp_path):
    path = tmp_path / "stats.txt"
    path.write_bytes(b"12")
    append_score(path, 48)
    assert path.read_bytes() == b"12\n48\n"
    path.write_bytes(b"")
    append_score(path, 3)
    assert path.read_bytes() == b"3\n"


def test_a_write_only_file_never_gets_a_score_glued_to_its_last_line(tmp_path, monkeypatch):
    """`5` with no LF, in a file the program may write but not read (mode 0222): a game of
    48 must not make it `548`. An LF goes first, an empty line at worst, which reading
    ignores. (Root reads any file, so the refusal to read is made at os.open.)"""
    path = tmp_path / "stats.txt"
    for before, after in ((b"5", b"5\n48\n"), (b"5\n", b"5\n\n48\n"), (b"", b"48\n")):
        path.write_bytes(before)
        opening = os.open

        def write_only(file, flags, *args, **keywords):
            if not flags & (os.O_WRONLY | os.O_RDWR):
                raise PermissionError(13, "Permission denied", str(file))
            return opening(file, flags, *args, **keywords)

        monkeypatch.setattr(os, "open", write_only)
        append_score(path, 48)
        monkeypatch.undo()
        assert path.read_bytes() == after, before
        assert read_stats(path).lost == len(after.split()) == (2 if before.strip() else 1)


def test_a_file_that_cannot_be_read_counts_as_no_games(tmp_path):
    assert read_stats(tmp_path / "missing.txt") == Stats()
    assert read_stats(tmp_path) == Stats()  # a folder
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert read_stats(fifo) == Stats()  # and no wait for a writer


def test_a_file_that_cannot_be_written_is_ignored(tmp_path):
    append_score(tmp_path / "no" / "such" / "folder.txt", 5)
    append_score(tmp_path, 5)  # a folder
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    append_score(fifo, 5)  # no reader: no wait
    assert sorted(path.name for path in tmp_path.iterdir()) == ["fifo"]


APPENDER = """
import sys
sys.path.insert(0, {root!r})
from hoyle.stats import append_score
for score in range({first}, {first} + {count}):
    append_score({path!r}, score)
"""


def test_two_programs_appending_at_once_lose_nothing(tmp_path):
    path, count = str(tmp_path / "stats.txt"), 5000
    writers = [subprocess.Popen([sys.executable, "-c", APPENDER.format(root=str(ROOT), first=first,
                                                                        count=count, path=path)])
               for first in (0, 100_000)]
    assert [writer.wait(timeout=60) for writer in writers] == [0, 0]
    content = open(path, "rb").read()
    assert content.endswith(b"\n")
    # An empty line may appear (see `append_score`); no line may hold two scores or part of one.
    scores = [int(line) for line in content.split(b"\n") if line]
    assert sorted(scores) == [*range(count), *range(100_000, 100_000 + count)]
