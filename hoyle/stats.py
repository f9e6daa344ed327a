"""The stats file: one line per finished game, the score (docs/hoyle_cli.md §7).

Writing appends one line with one write to a file opened with O_APPEND, so
games that end at the same moment in two programs keep both lines. Reading
forgives everything: a line counts only when, stripped of whitespace, it is
ASCII digits alone, and a file that cannot be read counts as no games.
Neither ever raises.
"""

import math
import os
import stat
from dataclasses import dataclass

from hoyle.cin import DIGITS, WHITESPACE
from hoyle.messages import STATS

ENVIRONMENT_VARIABLE = "HOYLE_STATS_FILE"
DEFAULT_PATH = "hoyle_stats.txt"
# A value of more digits than this makes the average overflow a double whatever the
# number of games (at most the file's size), so it is kept as this power of ten:
# no slow conversion of a huge number, and the average still prints `inf`.
MOST_DIGITS = 400


def stats_path(environment=os.environ) -> str:
    return environment.get(ENVIRONMENT_VARIABLE) or DEFAULT_PATH


@dataclass(frozen=True)
class Stats:
    won: int = 0
    lost: int = 0
    total: int = 0  # the sum of the scores

    @property
    def games(self) -> int:
        return self.won + self.lost

    @property
    def average(self) -> float:
        """`total / games` as a double; 0.0 without games, inf when too large for a double."""
        if not self.games:
            return 0.0
        try:
            return self.total / self.games
        except OverflowError:
            return math.inf

    def text(self) -> str:
        return STATS.format(won=self.won, lost=self.lost, average=f"{self.average:.2f}")


def score_of(line: bytes):
    """The score a line holds, or None for a line that does not count."""
    digits = line.strip(WHITESPACE)
    if not digits or any(byte not in DIGITS for byte in digits):
        return None
    significant = digits.lstrip(b"0")
    return int(significant or b"0") if len(significant) <= MOST_DIGITS else 10 ** MOST_DIGITS


def parse(content: bytes) -> Stats:
    scores = [score for score in map(score_of, content.split(b"\n")) if score is not None]
    won = scores.count(0)
    return Stats(won=won, lost=len(scores) - won, total=sum(scores))


def read_file(path) -> bytes:
    """The file's bytes; b"" when it is missing, unreadable or not a regular file
    (opened without blocking, so that a FIFO at that path cannot stop the game)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        with os.fdopen(fd, "rb") as file:
            return file.read() if stat.S_ISREG(os.fstat(file.fileno()).st_mode) else b""
    except OSError:
        return b""


def read_stats(path) -> Stats:
    return parse(read_file(path))


def append_score(path, score: int) -> None:
    """Add `score` as one line; on a file whose last line has no LF, end that line first.
    Any error is ignored: the game goes on.

    The line goes in one write, so another program appending at the same moment cannot
    split it. The last-byte check is not locked: while another write is under way it may
    see that write half done and add an LF too many, an empty line, which reading ignores.
    For the same reason a file that is not empty but cannot be read (write-only) gets an
    LF first: an empty line at worst, never a score glued to the last line.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666)
    except OSError:
        return
    try:
        line = f"{score}\n".encode()
        if os.fstat(fd).st_size > 0 and _last_byte(path) != b"\n":
            line = b"\n" + line
        os.write(fd, line)
    except OSError:
        pass
    finally:
        os.close(fd)


def _last_byte(path):
    """The file's last byte; None when it is empty or cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        return os.pread(fd, 1, size - 1) if size > 0 else None
    except OSError:
        return None
    finally:
        os.close(fd)
