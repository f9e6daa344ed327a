"""How close `simulate(n, i)` comes to the floor: the bare `seed(s); shuffle(deck)`
loop over the same seeds, measured in the same process, alternately, so that a
noisy machine slows both alike. Prints microseconds per game and the median
ratio of several repeats, on the standard-library path and, when numpy is
installed, on the batch path (common/batch_shuffle.py, taken from
deal.BATCH_FROM games on); then each program's time to its first prompt against
a bare interpreter start.

With --crossover, where the batch path starts to pay: `simulate(n, i)` batched
against one by one, alternately in one process, for n about deal.BATCH_FROM,
and what importing numpy costs a run once (a fresh interpreter's).

    python3 bench/simulate.py [--sizes 4 5 6] [--repeats 3] [--programs solitaire_1 ...]
    python3 bench/simulate.py --crossover [--repeats 5]
"""

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time
import unittest.mock
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import against_floor, timed  # noqa: E402 (the root is on the path only now)
from common import batch_shuffle, console, deal  # noqa: E402

PATHS = {"stdlib": lambda: False, "numpy": batch_shuffle.available}
CROSSOVER_SIZES = (2_000, 5_000, 10_000, 20_000, 50_000)

DECKS = {  # what each program shuffles, as its spec writes it
    "solitaire_1": list(range(32)),
    "solitaire_2": sorted(set(range(52)) - {6, 19, 32, 45}),
}
FIRST_PROMPTS = {  # program: its arguments, and the end of its first prompt
    "solitaire_1": ([], b"function: "),
    "solitaire_2": ([], b"function: "),
    "hoyle_cli": ([], b"3. Quit\n"),
    "patience": (["golf", "--seed", "1"], b"> "),
}
# As on a user's machine, compiled modules are cached (a run first writes them).
CACHED = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def bench_simulate(program: str, n: int, repeats: int, path: str) -> str:
    simulate = importlib.import_module(program).simulate

    def run(seeds: range) -> None:
        with unittest.mock.patch.object(batch_shuffle, "available", PATHS[path]):
            simulate(len(seeds), seeds.start)

    return against_floor(f"{program} {path}", DECKS[program], n, repeats, run)


def bench_crossover(program: str, n: int, repeats: int, import_seconds: float) -> str:
    """simulate(n, i) batched against one by one over the same seeds, alternately: the
    median seconds of each and of their ratios (numpy imported and the program's caches
    warm: the first repeat is not timed); then what batching adds to a whole run, numpy's
    import included."""
    simulate = importlib.import_module(program).simulate
    batched, one_by_one, ratios = [], [], []
    for repeat in range(repeats + 1):
        first = repeat * 1_000_003
        with unittest.mock.patch.object(deal, "BATCH_FROM", 0):
            batched.append(timed(simulate, n, first))
        with unittest.mock.patch.object(batch_shuffle, "available", PATHS["stdlib"]):
            one_by_one.append(timed(simulate, n, first))
        ratios.append(batched[-1] / one_by_one[-1])
    del batched[0], one_by_one[0], ratios[0]
    added = statistics.median(batched) + import_seconds - statistics.median(one_by_one)
    return (f"{program:<12} n={n:<6}  one by one {statistics.median(one_by_one):6.3f} s"
            f"  batched {statistics.median(batched):6.3f} s"
            f"  ratio {statistics.median(ratios):5.2f}  a run {added:+6.3f} s  (repeats: "
            + " ".join(f"{ratio:.2f}" for ratio in ratios) + ")")


def numpy_import_seconds(repeats: int) -> float:
    """What the batch path adds to a run once: a fresh interpreter's `import numpy`."""
    def started(code: str) -> float:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=CACHED)
        return time.perf_counter() - began

    bare = statistics.median(started("pass") for _ in range(repeats))
    loaded = statistics.median(started("import numpy") for _ in range(repeats))
    return loaded - bare


def first_prompt_seconds(argv: list, prompt: bytes) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, cwd=ROOT, env=CACHED)
    seen = b""
    while prompt not in seen:
        chunk = process.stdout.read1(4096)
        if not chunk:
            break
        seen += chunk
    elapsed = time.perf_counter() - started
    process.kill()
    process.communicate()
    return elapsed


def bench_start(program: str, repeats: int) -> str:
    args, prompt = FIRST_PROMPTS[program]
    command = [sys.executable, f"{program}.py", *args]
    first_prompt_seconds(command, prompt)  # writes the compiled modules
    bare, mine = [], []
    for _ in range(repeats):
        bare.append(first_prompt_seconds([sys.executable, "-c", "print('> ')"], b"> "))
        mine.append(first_prompt_seconds(command, prompt))
    return (f"{program:<12} first prompt {statistics.median(mine) * 1000:6.1f} ms"
            f"  bare interpreter {statistics.median(bare) * 1000:6.1f} ms"
            f"  ratio {statistics.median(mine) / statistics.median(bare):5.2f}")


def main() -> None:
    console.end_silently_on_closed_pipe()
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[4, 5, 6], help="powers of ten")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--programs", nargs="+", default=list(FIRST_PROMPTS))
    parser.add_argument("--crossover", action="store_true",
                        help="batched against one by one about deal.BATCH_FROM games (needs numpy)")
    options = parser.parse_args()
    present = [program for program in options.programs if (ROOT / f"{program}.py").exists()]
    print(f"Python {sys.version.split()[0]}; medians of {options.repeats} repeats")
    if options.crossover:
        if not batch_shuffle.available():
            parser.error("--crossover measures the batch path: it needs numpy "
                         "(requirements-fast.txt)")
        import_seconds = numpy_import_seconds(max(options.repeats, 5))
        print(f"import numpy: {import_seconds:.3f} s a run (a fresh interpreter's)", flush=True)
        for program in (program for program in present if program in DECKS):
            for size in CROSSOVER_SIZES:
                print(bench_crossover(program, size, options.repeats, import_seconds), flush=True)
        return
    paths = ["stdlib", "numpy"] if batch_shuffle.available() else ["stdlib"]
    for program in present:
        if program in DECKS:
            for path in paths:
                for size in options.sizes:
                    if path == "stdlib" or 10 ** size >= deal.BATCH_FROM:
                        print(bench_simulate(program, 10 ** size, options.repeats, path), flush=True)
    for program in present:
        print(bench_start(program, max(options.repeats, 5)), flush=True)


if __name__ == "__main__":
    main()
