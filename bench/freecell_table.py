"""Microsoft FreeCell's numbered deals through the solver (patience_games/freecell_solver.py,
Freecell Solver's fc-solve), in parallel over the cores: how many are won, proven
lost or left undecided, as counts and percentages, the time per deal, and the
deals not won. Every won line has been checked move by move on the rules engine
and ends in a won position. Known result: deals 1 to 32,000 are all won except
11982. The default is a sample, deals 1 to 1,000; `--count 32000` is the full table.

    python3 bench/freecell_table.py [--first 1] [--count 1000] [--jobs N] [--iterations N]
"""

import argparse
import os
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# noqa: E402 below: the project root is on the path only now
from patience_games import freecell_solver as solver  # noqa: E402
from patience_games.engine import deal  # noqa: E402
from patience_games.freecell_ms import ms_deck  # noqa: E402
from patience_games.games import FREECELL_GAME as GAME  # noqa: E402

ROWS = ((solver.WON, "won"), (solver.LOST, "proven lost"), (solver.GAVE_UP, "undecided"))
LABEL = "Outcome"
PROGRESS_EVERY = 1000


def one_deal(job: tuple) -> tuple:
    """Deal `number` solved: (number, verdict, why not decided, moves, states, seconds)."""
    number, iterations = job
    started = time.perf_counter()
    outcome, why = solver.solve_and_explain(GAME, deal(GAME, ms_deck(number)), iterations)
    return (number, outcome.verdict, why, len(outcome.line), outcome.nodes,
            time.perf_counter() - started)


def table(counts: Counter, deals: int) -> list:
    width = max(len(LABEL), *(len(name) for _, name in ROWS))
    heading = f"{LABEL:<{width}} | {'Count':>6} | Frequency"
    rows = [f"{name:<{width}} | {counts[verdict]:>6} | {counts[verdict] / deals * 100:>8.3f}%"
            for verdict, name in ROWS]
    return [heading, "-" * len(heading), *rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--first", type=int, default=1, help="the first deal (default 1)")
    parser.add_argument("--count", type=int, default=1000, help="how many deals (default 1000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes (default: the cores)")
    parser.add_argument("--iterations", type=int, default=solver.DEFAULT_ITERATIONS,
                        help="fc-solve's budget of states per deal")
    options = parser.parse_args()
    if not solver.available():
        sys.exit(solver.MISSING)
    numbers = range(options.first, options.first + options.count)
    print(f"Microsoft FreeCell deals {numbers.start} to {numbers[-1]}, "
          f"{options.jobs} processes, at most {options.iterations} states a deal", flush=True)
    started = time.perf_counter()
    results = []
    with Pool(options.jobs) as pool:
        jobs = ((number, options.iterations) for number in numbers)
        for done in pool.imap_unordered(one_deal, jobs, chunksize=8):
            results.append(done)
            if len(results) % PROGRESS_EVERY == 0:
                print(f"  {len(results)} deals, {time.perf_counter() - started:.0f} s",
                      file=sys.stderr, flush=True)
    wall = time.perf_counter() - started
    results.sort()
    counts = Counter(verdict for _, verdict, *_ in results)
    seconds = [each[5] for each in results]
    won = [each for each in results if each[1] == solver.WON]
    print("\n".join(table(counts, len(results))))
    print()
    print(f"wall time {wall:.1f} s: {wall / len(results) * 1000:.1f} ms a deal on {options.jobs} "
          f"processes; one deal {sum(seconds) / len(seconds) * 1000:.1f} ms on average, "
          f"{max(seconds) * 1000:.0f} ms at most")
    if won:
        print(f"won lines: {sum(each[3] for each in won) / len(won):.1f} moves on average, "
              f"{max(each[3] for each in won)} at most; fc-solve checked "
              f"{sum(each[4] for each in results) / len(results):.0f} states a deal on average")
    slowest = sorted(results, key=lambda each: each[5], reverse=True)[:5]
    print("slowest: " + ", ".join(f"{each[0]} ({each[5] * 1000:.0f} ms)" for each in slowest))
    not_won = [each for each in results if each[1] != solver.WON]
    print(f"not won: {len(not_won)}" + ("" if not_won else " (none)"))
    for number, verdict, why, _, states, took in not_won:
        print(f"  deal {number}: {verdict} after {states} states, {took:.2f} s"
              + (f" ({why})" if why else ""))


if __name__ == "__main__":
    main()
