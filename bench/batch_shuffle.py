"""How much faster `common.batch_shuffle.shuffled_batch` deals than the bare
`seed(s); shuffle(deck)` loop: both over the same seeds, in the same process,
alternately, so that a noisy machine slows both alike. Prints microseconds per
seed and the median ratio of the repeats.

    python3 bench/batch_shuffle.py [--sizes 4 5 6] [--repeats 3] [--cards 32 48]
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common.batch_shuffle import available, shuffled_batch  # noqa: E402


def floor(cards: list, seeds: range) -> None:
    seed, shuffle = random.seed, random.shuffle
    for s in seeds:
        deck = list(cards)
        seed(s)
        shuffle(deck)


def timed(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def bench(size: int, n: int, repeats: int) -> str:
    cards = list(range(size))
    floors, batches, ratios = [], [], []
    for repeat in range(repeats):
        seeds = range(repeat * n, (repeat + 1) * n)  # fresh seeds each repeat
        floors.append(timed(floor, cards, seeds))
        batches.append(timed(shuffled_batch, cards, seeds))
        ratios.append(floors[-1] / batches[-1])
    per_seed = 1e6 / n
    return (f"{size} cards n=10^{len(str(n)) - 1}  floor {statistics.median(floors) * per_seed:6.2f} us"
            f"  batch {statistics.median(batches) * per_seed:5.2f} us"
            f"  ratio {statistics.median(ratios):5.2f}  (repeats: "
            + " ".join(f"{ratio:.2f}" for ratio in ratios) + ")")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 5, 6], help="powers of ten")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cards", type=int, nargs="+", default=[32, 48])
    options = parser.parse_args()
    if not available():
        sys.exit("numpy is not installed: pip install -r requirements-fast.txt")
    print(f"Python {sys.version.split()[0]}; medians of {options.repeats} repeats")
    for size in options.cards:
        for power in options.sizes:
            print(bench(size, 10 ** power, options.repeats), flush=True)


if __name__ == "__main__":
    main()
