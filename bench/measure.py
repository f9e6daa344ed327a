"""What the benchmarks share: the floor (a bare `seed(s); shuffle(deck)` loop),
and the line that times something against it over the same seeds, alternately
in one process, so that a noisy machine slows both alike."""

import argparse
import contextlib
import io
import random
import statistics
import time


def floor(cards: list, seeds: range) -> None:
    seed, shuffle = random.seed, random.shuffle
    for s in seeds:
        deck = list(cards)
        seed(s)
        shuffle(deck)


def marking_options(description: str) -> argparse.ArgumentParser:
    """The options every bench that marks cases takes: how many cases of each program, and
    how many repeats."""
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=10, help="cases of each program")
    parser.add_argument("--repeats", type=int, default=7)
    return parser


def timed(function, *args) -> float:
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        function(*args)
    return time.perf_counter() - started


def against_floor(label: str, cards: list, n: int, repeats: int, run) -> str:
    """`run(seeds)` against the floor, fresh seeds each repeat: microseconds per
    seed, and the median of the ratios run / floor. The repeats share the
    process, so a cache the program keeps (solitaire_1's outcome of each Ace
    pattern) is cold in the first repeat only, as for a user's first call."""
    floors, runs, ratios = [], [], []
    for repeat in range(repeats):
        seeds = range(repeat * n, (repeat + 1) * n)
        floors.append(timed(floor, cards, seeds))
        runs.append(timed(run, seeds))
        ratios.append(runs[-1] / floors[-1])
    per_seed = 1e6 / n
    return (f"{label:<22} n=10^{len(str(n)) - 1}  floor {statistics.median(floors) * per_seed:6.2f} us"
            f"  this {statistics.median(runs) * per_seed:6.2f} us"
            f"  ratio {statistics.median(ratios):5.2f}  (repeats: "
            + " ".join(f"{ratio:.2f}" for ratio in ratios) + ")")
