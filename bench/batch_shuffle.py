"""How much faster `common.batch_shuffle.shuffled_batch` deals than the bare
`seed(s); shuffle(deck)` loop: both over the same seeds, in the same process,
alternately, so that a noisy machine slows both alike. Prints microseconds per
seed and the median ratio of the repeats.

    python3 bench/batch_shuffle.py [--sizes 4 5 6] [--repeats 3] [--cards 32 48]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import against_floor  # noqa: E402 (the project root is on the path only now)
from common.batch_shuffle import available, shuffled_batch  # noqa: E402


def bench(size: int, n: int, repeats: int) -> str:
    cards = list(range(size))
    return against_floor(f"{size} cards", cards, n, repeats, lambda seeds: shuffled_batch(cards, seeds))


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
