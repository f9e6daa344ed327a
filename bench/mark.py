"""What the marker's sandbox costs per case, against no sandbox at all, and where
that time goes: to know what isolation adds to a marking run, and which piece
to make cheaper first.

The kit is a perfect submission: it is snapshotted once, as exactmark/marking/mark.py
does, and a fixed sample of golden cases (the first seed cases of the seeded
assignment's first program and the first cases of calculation's, by name, as the
assignments declare them) is marked one case at a time (--jobs 1) three ways,
alternately in one process, the order turning each repeat, so that a noisy
machine slows all alike:

    baseline     each case's command run straight in a fresh temporary folder,
                 as exactmark.running.run.run_piped does: no sandbox at all
    fallback     Sandbox(isolation="fallback"), through exactmark.marking.mark.Marking, a fresh
                 sandbox per case (--sandbox-per case)
    namespaces   Sandbox(isolation="namespaces") (bubblewrap), where it starts, the same
    .../student  the same sandboxes, each program's cases in one sandbox
                 (exactmark.marking.mark.Sessions: --sandbox-per student, the default)

The baseline runs on the snapshot with PYTHONDONTWRITEBYTECODE=1: it compiles
the programs each run, as a sandboxed run must (the snapshot holds no
__pycache__ and a run writes none), and it leaves the snapshot as the marker
took it. The sandboxes judge as an assignment that compares stdout, the exit
status and stderr (exactmark.marking.verdicts.Rules' defaults). Prints the median
milliseconds per case, the median of the ratios of each repeat, and the CPU
time per case of the marker and of its children.

    python3 bench/mark.py [--cases 10] [--repeats 7] [--python PATH]
"""

import os
import resource
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
from exactmark.running.run import DEFAULT_TIMEOUT, run_piped  # noqa: E402
from exactmark.kit.assignment import MarkedCase, declarations  # noqa: E402
from exactmark.marking.mark import Marking, Sessions, skip_reason  # noqa: E402
from exactmark.sandbox.sandbox import FALLBACK, NAMESPACES, STUDENT, Sandbox  # noqa: E402
from exactmark.base.tree import Limits, copy_tree, remove_tree  # noqa: E402
from exactmark.marking.verdicts import PIPE, Rules  # noqa: E402

SAMPLE = (("seeded", "seed_"), ("calculation", ""))  # an assignment, the names' start
BASELINE = "baseline"


def programs() -> dict:
    """The first program each assignment of SAMPLE declares: name -> exactmark.kit.programs.Program."""
    return {program.name: program for program in
            (next(iter(declarations(assignment).values())) for assignment, _ in SAMPLE)}


def sample(count: int) -> list:
    """The first `count` cases by name of each program of SAMPLE: the same every run."""
    chosen = []
    for program, (_, start) in zip(programs().values(), SAMPLE):
        chosen += [case for case in program.cases() if case.name.startswith(start)][:count]
    return chosen


def baseline_passes(case, snapshot: Path, env: dict) -> bool:
    run = run_piped(case, snapshot, env=env)
    return (run.stdout == case.stdout and (case.status is None or run.status == case.status)
            and (case.stderr is None or run.stderr == case.stderr))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured(mark_one, cases: list) -> tuple:
    """(wall, the marker's CPU, its children's CPU) in seconds, for the whole sample."""
    cpu, children = time.process_time(), children_cpu()
    wall = timed(lambda: [mark_one(case) for case in cases])
    return wall, time.process_time() - cpu, children_cpu() - children


def bench(cases: list, repeats: int, scratch: Path, python: str) -> None:
    snapshot = scratch / "snapshot"
    snapshot.mkdir(mode=0o700)
    copy_tree(ROOT, snapshot, skip=skip_reason, limits=Limits())  # as exactmark/marking/mark.py does
    hidden = [ROOT, EXPECTED_OUTPUTS, scratch, ROOT]  # as exactmark/marking/mark.py's: the submission is the kit
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    setups = {BASELINE: lambda case: baseline_passes(case, snapshot, env)}
    sandboxes, opened = {}, []
    try:
        for isolation in (FALLBACK, NAMESPACES):
            started = time.perf_counter()
            try:
                box = Sandbox(DEFAULT_TIMEOUT, scratch, hidden, python, isolation)
            except RuntimeError as problem:
                print(f"{isolation}: skipped ({problem})")
                continue
            print(f"{isolation}: Sandbox() {(time.perf_counter() - started) * 1000:.0f} ms; "
                  + "; ".join(box.describe()))
            sandboxes[isolation] = box
            rules = Rules(cpu_seconds=box.timeout, wall_seconds=box.wall_seconds,
                          idle_seconds=box.idle_seconds)
            declared = programs()
            for label, sessions in ((isolation, None), (f"{isolation}/{STUDENT}", Sessions(box))):
                marking = Marking(box, dict.fromkeys(declared, snapshot), declared, [PIPE],
                                  lambda marked, rules=rules: rules, sessions=sessions)
                setups[label] = lambda case, marking=marking: marking.case(
                    MarkedCase(case, 1, "", "visible", Rules.compare)).earned_all
                if sessions:
                    opened.append(sessions)
        for label, mark_one in setups.items():  # a first pass, untimed: caches warm, results checked
            failing = [case.id for case in cases if not mark_one(case)]
            if failing:
                print(f"note: {label} fails {len(failing)} cases, e.g. {failing[0]}")
        results = {label: [] for label in setups}  # label: [(wall, cpu, children)] per repeat
        labels = list(setups)
        for repeat in range(repeats):
            turn = repeat % len(labels)
            for label in labels[turn:] + labels[:turn]:
                results[label].append(measured(setups[label], cases))
        print(table(results, len(cases)), flush=True)
    finally:
        for sessions in opened:
            sessions.close()
        for box in sandboxes.values():
            box.close()


def table(results: dict, count: int) -> str:
    """ms per case, the median ratio of the repeats to the baseline, the CPU per case."""
    per_case = 1000 / count
    base = results[BASELINE]
    lines = [f"{'setup':<18} {'ms/case':>8} {'ratio':>6}  {'marker CPU':>10} {'children CPU':>12}"
             "  (ratio of each repeat)"]
    for label, runs in results.items():
        ratios = [run[0] / floor[0] for run, floor in zip(runs, base)]
        lines.append(f"{label:<18} {statistics.median(run[0] for run in runs) * per_case:8.1f} "
                     f"{statistics.median(ratios):6.2f}  "
                     f"{statistics.median(run[1] for run in runs) * per_case:8.1f}ms "
                     + (f"{'-':>12}" if label.startswith(NAMESPACES) else
                        f"{statistics.median(run[2] for run in runs) * per_case:10.1f}ms")
                     + "  ("
                     + " ".join(f"{ratio:.2f}" for ratio in ratios) + ")")
    if FALLBACK in results and NAMESPACES in results:
        ratios = [spaced[0] / fallen[0]
                  for spaced, fallen in zip(results[NAMESPACES], results[FALLBACK])]
        lines.append(f"namespaces / fallback: {statistics.median(ratios):.2f}  ("
                     + " ".join(f"{ratio:.2f}" for ratio in ratios) + ")")
    if NAMESPACES in results:
        lines.append("(children CPU: the kernel's count for the processes the marker reaped; "
                     "what runs in bwrap's PID namespace never reaches it: -)")
    return "\n".join(lines)


def main() -> None:
    parser = marking_options(__doc__)
    parser.add_argument("--python", help="interpreter of both sandboxes, as exactmark/marking/mark.py's "
                                         "--python (default: the one the sandbox picks)")
    options = parser.parse_args()
    cases = sample(options.cases)
    print(f"Python {sys.version.split()[0]}; {len(cases)} cases "
          f"({', '.join(programs())}), one at a time; "
          f"medians of {options.repeats} repeats; {os.cpu_count()} CPUs")
    scratch = Path(tempfile.mkdtemp(prefix="marking-"))
    try:
        bench(cases, options.repeats, scratch, options.python)
    finally:
        remove_tree(scratch)


if __name__ == "__main__":
    main()
