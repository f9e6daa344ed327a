"""What reading a run's CPU time from /proc costs per case, where no control group
counts it (a container such as Gradescope's): the marker then sums the CPU times of
the run's processes every 50 ms (exactmark.running.supervise.ProcessesCpu), with a full
look for its user's processes every RESCAN_POLLS reads. Measured in the fallback, one case at a
time, each program's cases in one sandbox (--sandbox-per student), on the sample of
bench/mark.py (the seeded assignment's first seed cases, calculation's first cases),
three ways, alternately in one process, the order turning each repeat:

    rlimits    no control group, and the CPU time not watched (RLIMIT_CPU alone, as
               before /proc was read): the floor
    /proc      no control group: the run's processes' CPU times read from /proc
    cgroup     the run's control group read, where one can be made here

Prints the median milliseconds per case, the median of the ratios of each repeat to
the floor, and the marker's own CPU time per case.

    python3 bench/proc_cpu.py [--cases 10] [--repeats 7]
"""

import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import exactmark.sandbox.sandbox  # noqa: E402 (the project root is on the path only now)
from bench.measure import marking_options  # noqa: E402
from bench.mark import measured, programs, sample  # noqa: E402
from exactmark.kit.cases import EXPECTED_OUTPUTS  # noqa: E402
from exactmark.running.run import DEFAULT_TIMEOUT  # noqa: E402
from exactmark.kit.assignment import MarkedCase  # noqa: E402
from exactmark.sandbox.cgroups import Unavailable  # noqa: E402
from exactmark.marking.mark import Marking, Sessions, skip_reason  # noqa: E402
from exactmark.sandbox.sandbox import FALLBACK, Sandbox  # noqa: E402
from exactmark.base.tree import Limits, copy_tree, remove_tree  # noqa: E402
from exactmark.marking.verdicts import PIPE, Rules  # noqa: E402

FLOOR, PROC, GROUP = "rlimits", "/proc", "cgroup"


def sandbox(scratch: Path, hidden: list, how: str) -> Sandbox:
    """A fallback sandbox that measures the CPU time as `how` says."""
    groups = exactmark.sandbox.sandbox.Groups
    if how != GROUP:
        def refused():
            raise Unavailable("refused for this measurement")
        exactmark.sandbox.sandbox.Groups = refused
    try:
        box = Sandbox(DEFAULT_TIMEOUT, scratch, hidden, isolation=FALLBACK)
    finally:
        exactmark.sandbox.sandbox.Groups = groups
    box.measures_cpu = how != FLOOR
    return box


def bench(cases: list, repeats: int, scratch: Path) -> None:
    snapshot = scratch / "snapshot"
    snapshot.mkdir(mode=0o700)
    copy_tree(ROOT, snapshot, skip=skip_reason, limits=Limits())
    hidden = [ROOT, EXPECTED_OUTPUTS, scratch]
    declared = programs()
    setups, boxes, opened = {}, [], []
    try:
        for how in (FLOOR, PROC, GROUP):
            box = sandbox(scratch, hidden, how)
            boxes.append(box)
            if how == GROUP and not box.cpu_by_group:
                print(f"{GROUP}: skipped (no control group counts CPU here)")
                continue
            print(f"{how}: {box.describe()[2].split(';')[0]}")
            rules = Rules(cpu_seconds=box.timeout, wall_seconds=box.wall_seconds,
                          idle_seconds=box.idle_seconds)
            sessions = Sessions(box)
            opened.append(sessions)
            marker = Marking(box, dict.fromkeys(declared, snapshot), declared, [PIPE],
                             lambda marked, rules=rules: rules, sessions=sessions)
            setups[how] = lambda case, marker=marker: marker.case(
                MarkedCase(case, 1, "", "visible", Rules.compare)).earned_all
        for how, mark_one in setups.items():  # a first pass, untimed: caches warm, results checked
            failing = [case.id for case in cases if not mark_one(case)]
            if failing:
                print(f"note: {how} fails {len(failing)} cases, e.g. {failing[0]}")
        results = {how: [] for how in setups}
        labels = list(setups)
        for repeat in range(repeats):
            turn = repeat % len(labels)
            for how in labels[turn:] + labels[:turn]:
                results[how].append(measured(setups[how], cases))
        per_case = 1000 / len(cases)
        print(f"{'setup':<8} {'ms/case':>8} {'ratio':>6}  {'marker CPU':>10}  (ratio of each repeat)")
        for how, runs in results.items():
            ratios = [run[0] / floor[0] for run, floor in zip(runs, results[FLOOR])]
            print(f"{how:<8} {statistics.median(run[0] for run in runs) * per_case:8.1f} "
                  f"{statistics.median(ratios):6.2f}  "
                  f"{statistics.median(run[1] for run in runs) * per_case:8.1f}ms  ("
                  + " ".join(f"{ratio:.2f}" for ratio in ratios) + ")")
    finally:
        for sessions in opened:
            sessions.close()
        for box in boxes:
            box.close()


def main() -> None:
    parser = marking_options(__doc__)
    options = parser.parse_args()
    cases = sample(options.cases)
    print(f"Python {sys.version.split()[0]}; {len(cases)} cases, one at a time; medians of "
          f"{options.repeats} repeats; {os.cpu_count()} CPUs")
    scratch = Path(tempfile.mkdtemp(prefix="marking-"))
    try:
        bench(cases, options.repeats, scratch)
    finally:
        remove_tree(scratch)


if __name__ == "__main__":
    main()
