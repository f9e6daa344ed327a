"""What the fallback's watch on the disk (exactmark.sandbox.disk.Watch) costs per case: the seeded
assignment's cases, marked in the fallback sandbox as a class marks them (a sandbox per
student), with the watch and with a stand-in that watches nothing, alternately in one
process, the order turning each repeat, so that a noisy machine slows both alike.

The submission is what a student of the seeded assignment hands in (its two programs,
as `make standalone` writes them). Prints the median milliseconds per case and the
marker's own CPU time per case (the watch's thread runs in the marker), and the median
of the ratios watch / no watch of each repeat.

    python3 bench/disk_watch.py [--cases 10] [--repeats 7]
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import marking_options, timed  # noqa: E402 (the project root is on the path only now)
from exactmark.kit.cases import EXPECTED_OUTPUTS  # noqa: E402
from exactmark.running.run import DEFAULT_TIMEOUT  # noqa: E402
from exactmark.sandbox import disk  # noqa: E402
from exactmark.kit.assignment import MarkedCase, load  # noqa: E402
from exactmark.marking.mark import Marking, Sessions  # noqa: E402
from exactmark.sandbox.sandbox import FALLBACK, Sandbox  # noqa: E402
from exactmark.base.tree import remove_tree  # noqa: E402
from exactmark.marking.verdicts import PIPE, Rules  # noqa: E402
from exactmark.kit.bundle import write_assignment  # noqa: E402

WATCH, NO_WATCH = "watch", "no watch"


class Unwatched:
    """disk.Watch's stand-in: watches nothing."""

    filled = False

    def __init__(self, *arguments):
        pass

    def stop(self) -> bool:
        return False


def bench(count: int, repeats: int, scratch: Path) -> str:
    assignment = load("seeded")
    snapshot = scratch / "snapshot"
    write_assignment(assignment, snapshot)
    cases = [marked.case for program in assignment.marked_cases.values() for marked in program[:count]]
    box = Sandbox(DEFAULT_TIMEOUT, scratch, [ROOT, EXPECTED_OUTPUTS, scratch], isolation=FALLBACK)
    sessions = Sessions(box)
    watched = disk.Watch
    try:
        rules = Rules(cpu_seconds=box.timeout, wall_seconds=box.wall_seconds,
                      idle_seconds=box.idle_seconds)
        marking = Marking(box, dict.fromkeys(assignment.programs, snapshot), assignment.programs,
                          [PIPE], lambda marked: rules, sessions=sessions)

        def mark_all() -> None:
            for case in cases:
                if not marking.case(MarkedCase(case, 1, "", "visible", Rules.compare)).earned_all:
                    raise SystemExit(f"{case.id} does not pass: the bench measures nothing")

        results = {WATCH: [], NO_WATCH: []}  # (wall, marker CPU) per repeat
        for repeat in range(repeats + 1):  # the first, untimed: caches warm
            for label in (WATCH, NO_WATCH) if repeat % 2 else (NO_WATCH, WATCH):
                disk.Watch = watched if label == WATCH else Unwatched
                cpu = time.process_time()
                wall = timed(mark_all)
                if repeat:
                    results[label].append((wall, time.process_time() - cpu))
    finally:
        disk.Watch = watched
        sessions.close()
        box.close()
    per_case = 1000 / len(cases)
    lines = [f"{len(cases)} cases of the seeded assignment, fallback, a sandbox per student; "
             f"medians of {repeats} repeats",
             f"{'setup':<10} {'ms/case':>8} {'marker CPU ms/case':>19}"]
    for label, runs in results.items():
        lines.append(f"{label:<10} {statistics.median(run[0] for run in runs) * per_case:8.1f} "
                     f"{statistics.median(run[1] for run in runs) * per_case:19.2f}")
    ratios = [on[0] / off[0] for on, off in zip(results[WATCH], results[NO_WATCH])]
    lines.append(f"watch / no watch: {statistics.median(ratios):.3f}  ("
                 + " ".join(f"{ratio:.3f}" for ratio in ratios) + ")")
    return "\n".join(lines)


def main() -> None:
    parser = marking_options(__doc__)
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="marking-"))
    scratch.chmod(0o711)
    try:
        print(bench(options.cases, options.repeats, scratch), flush=True)
    finally:
        remove_tree(scratch)


if __name__ == "__main__":
    main()
