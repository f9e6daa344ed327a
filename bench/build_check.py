"""What judging a build's warnings on the preprocessor's output costs (exactmark/marking/build.py):
the C++ sample's build as the marker runs it (each compiled file preprocessed, then the
compile) against the compile alone, alternately in fresh copies of the sample, so that
a noisy machine slows both alike. Outside the sandbox, whose cost is the same for both.
Prints the median CPU seconds of each (the build's processes', user and system: what a
shared machine's load does not inflate) and the median of the ratios.

    python3 bench/build_check.py [--repeats 5] [--assignment calculation_cpp]
"""

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from exactmark.kit.assignment import load  # noqa: E402 (the project root is on the path only now)
from exactmark.marking.build import build_command, split  # noqa: E402

LINE = "{label:<28} {seconds:6.2f} s of CPU"


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(command: list, sources: Path, scratch: Path, number: int) -> float:
    folder = scratch / f"build-{number}"
    shutil.copytree(sources, folder)
    started = cpu()
    done = subprocess.run(command, cwd=folder, capture_output=True)
    seconds = cpu() - started
    if done.returncode:
        raise SystemExit(f"the build failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--assignment", default="calculation_cpp")
    options = parser.parse_args()
    program = next(p for p in load(options.assignment).programs.values() if p.built)
    files, _ = program.files(program.reference)
    checked = build_command(program, files)
    alone = program.build_argv(files)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        done = subprocess.run(checked, cwd=shutil.copytree(program.reference, scratch / "once"),
                              capture_output=True)
        assert split(done.stdout)[1], "the checked build made no program"
        both = {"compile alone": [], "preprocessed, then compiled": []}
        for repeat in range(options.repeats):
            both["compile alone"].append(timed(alone, program.reference, scratch, 2 * repeat))
            both["preprocessed, then compiled"].append(
                timed(checked, program.reference, scratch, 2 * repeat + 1))
    for label, seconds in both.items():
        print(LINE.format(label=label, seconds=statistics.median(seconds)))
    ratios = [after / before for before, after in zip(*both.values())]
    print(f"ratio (median of {options.repeats}): {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
