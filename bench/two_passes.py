"""What the two passes of a part's runs (exactmark.marking.mark.FIRST_PASS_SECONDS) cost and save:
marks one submission with the marker of each kit given (say, one checked out before the
two passes, then this one), with a budget as Gradescope gives one (216 s of CPU and of
waiting: 540 s on one core), and prints for each its wall seconds, its score and passing
tests, and the ratio of its wall seconds to the first kit's. Median of the repeats. (The
runs' CPU time is not the marker's children's: each run's processes are the sandbox's.)

    python3 bench/two_passes.py SUBMISSION ASSIGNMENT KIT [KIT...] [--budget 216]
                                [--jobs 1] [--repeats 1] [--only GLOB]...
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINE = "{kit}: {wall:.1f} s wall, score {score:g}, {passed}/{cases} tests pass"
RATIO = "  against the first: wall x{wall:.2f}"


def marked(kit: Path, submission: Path, assignment: str, options: list) -> tuple:
    """(wall seconds, results.json) of one marking."""
    with tempfile.TemporaryDirectory() as scratch:
        written = Path(scratch) / "results.json"
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(submission), "--assignment",
                        assignment, "--json", str(written), *options], cwd=kit,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        wall = time.monotonic() - started
        results = json.loads(written.read_text(encoding="utf-8"))
    return wall, results


def main() -> int:
    parse = argparse.ArgumentParser(description=__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("submission", type=Path)
    parse.add_argument("assignment")
    parse.add_argument("kits", type=Path, nargs="+")
    parse.add_argument("--budget", type=float, default=216.0)
    parse.add_argument("--jobs", type=int, default=1)
    parse.add_argument("--repeats", type=int, default=1)
    parse.add_argument("--only", action="append", default=[])
    options = parse.parse_args()
    argv = ["--jobs", str(options.jobs), "--student-budget", f"{options.budget:g}",
            "--waiting-budget", f"{options.budget:g}"]
    for pattern in options.only:
        argv += ["--only", pattern]
    first = None
    for kit in options.kits:
        runs = [marked(kit.resolve(), options.submission.resolve(), options.assignment, argv)
                for _ in range(options.repeats)]
        wall = statistics.median(run[0] for run in runs)
        tests = runs[-1][1]["tests"]
        print(LINE.format(kit=kit, wall=wall, score=runs[-1][1]["score"],
                          passed=sum(test.get("status") == "passed" for test in tests),
                          cases=len(tests)), flush=True)
        if first is None:
            first = wall
        else:
            print(RATIO.format(wall=wall / first), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
