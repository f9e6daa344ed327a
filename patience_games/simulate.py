"""`python3 patience.py simulate GAME N I`: how many of the deals I..I+N-1 are won,
proven lost, or undecided within the search's budget, as a table in the style of
the assignment's `simulate(n, i)`. Deals are searched in parallel, one process per
core; the table is pure data turned into lines."""

import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from patience_games import assist, messages as text, solver
from patience_games.games import dealt

OUTCOMES = ((solver.WON, text.TABLE_WON), (solver.LOST, text.TABLE_LOST),
            (solver.GAVE_UP, text.TABLE_UNDECIDED))
PROGRESS_EVERY = 0.2  # seconds between two updates of the progress line


def verdict_of(job) -> tuple:
    """A deal's verdict and the seconds its search took: a --ms deal for FreeCell, a
    seed otherwise, as `patience.py GAME --ms/--seed` deals it."""
    name, number = job
    game, position = dealt(name, ms=number) if name == "freecell" else dealt(name, seed=number)
    started = time.perf_counter()
    outcome, problem = assist.search(game, position)
    return (outcome.verdict if outcome else problem), time.perf_counter() - started


def table(counts: Counter, deals: int) -> list:
    """The lines of the table: every outcome, its count and its share of the deals."""
    width = max(len(label) for _, label in OUTCOMES)
    heading = f"{text.TABLE_OUTCOME:<{width}} | {text.TABLE_COUNT:>6} | {text.TABLE_FREQUENCY}"
    rows = [f"{label:<{width}} | {counts[verdict]:>6} | {counts[verdict] / deals * 100:>8.2f}%"
            for verdict, label in OUTCOMES]
    return [heading, "-" * len(heading), *rows]


def simulate(name: str, count: int, first: int, jobs: int = None, progress=sys.stderr) -> list:
    """The table's lines, then the time a deal took on average, for the deals
    first..first+count-1; a progress line on `progress` when it is a terminal."""
    jobs = jobs or os.cpu_count() or 1
    counts, seconds, shown = Counter(), 0.0, 0.0
    with ProcessPoolExecutor(jobs) as pool:
        work = [(name, number) for number in range(first, first + count)]
        for done, (verdict, took) in enumerate(pool.map(verdict_of, work, chunksize=4), 1):
            if verdict not in dict(OUTCOMES):
                return [verdict]  # no search could run: what to install
            counts[verdict] += 1
            seconds += took
            if progress is not None and progress.isatty() and time.monotonic() - shown > PROGRESS_EVERY:
                shown = time.monotonic()
                progress.write(text.TABLE_PROGRESS.format(done=done, count=count) + "\r")
                progress.flush()
    return [*table(counts, count), text.TABLE_TIME.format(milliseconds=seconds / count * 1000)]
