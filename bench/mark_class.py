"""How fast a whole class is marked, what share of that time is the marker's own, not
the students' programs', and what a bad student costs the class (#24): to know whether
marking spends its time running the students' code or around it, and how much one
student who sleeps, loops, crashes or floods takes from everyone else.

A synthetic class is made in a temporary folder: N students with copies of the sample
solutions (`make standalone`), every one but one in three with one program made wrong
by a variant of tests/wrong/; and (unless --no-bad) one bad student of each kind, the
sample solutions with solitaire_1.py changed: the sleeper sleeps 10 minutes at the
start of main() (every case that runs the program: the simulate cases import it), the
loop reads stdin again while it gets nothing (busy where the program meets the end of
its input: the end-of-input cases), the crash raises at the start of main(), the flood
prints far over the output cap there; the missing one hands in no solitaire_2.py.
Two measurements then alternate in one process, the order turning each repeat, so
that a noisy machine slows both alike:

    class run   `python -m exactmark.classroom.mark_class CLASS --assignment seeded --out OUT
                --jobs J --sandbox-per P --force`, end to end (a fresh OUT each repeat):
                every marked case of every student in the sandbox, then the grade
                sheet, the feedback pages, the similarity scan and the summary
    bare runs   every marked case of every right and wrong student run straight, as
                exactmark.running.run.run_piped does (a fresh folder, stdin piped, no sandbox, no
                marker), J at once. The bad students' programs are not run bare: they
                would hang

J is the machine's cores (--jobs; --class-jobs gives the class marker another number).
The bare runs start the programs as the sandbox does: with the interpreter it picks
(this one's base), from a virtual environment over it with no package of its own
(exactmark.sandbox.interpreter.clean_environment: the installation's .pth files cost each start tens
of ms here), in the environment it gives (exactmark.running.limits.scrubbed_environment: no
compiled modules written, so each run compiles the programs, as a sandboxed run must).

A student's wall seconds in the class run are their worker's, from their
instructor/NAME/programs/ folder (written just before their marker starts) to their
state.json (just after it ends); their CPU seconds are what the control groups of their
runs (results.json's cgroups) count, read every POLL_SECONDS during the class run, the
last reading before the marker removes them: every process of every run, the killed
ones too, none of the marker's own Python (without such groups, no CPU is shown). The
bad students would swamp the class's wall time, so the ratio and the overhead (1 - bare
/ class run; #24's aim: at most 10% for a class of sample solutions) are those of the
right and wrong students alone, in worker-seconds: their workers' seconds and their
share of the class marker's own (before the first student, after the last) against
their bare runs' seconds. Each bad student's wall and CPU are set against an honest
(right) student's, and the sleeper's wall against the class run's. --profile also marks
one right student alone and times each case against the same case run bare.

--quick (under a minute) marks QUICK_STUDENTS right and wrong students and the bad
ones, once, on QUICK_CASES alone (a copy of the assignment, the other cases kit_only),
QUICK_CPU_SECONDS per case and a budget of QUICK_BUDGET s per student: the loop is cut
after its first end-of-input case, its other cases "not run: budget".

    python3 bench/mark_class.py [--students 6] [--repeats 2] [--jobs CORES] [--class-jobs N]
                                [--sandbox-per student|case] [--student-budget S]
                                [--no-bad] [--quick] [--profile]
"""

import argparse
import contextlib
import csv
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest.mock
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import exactmark.running.run  # noqa: E402 (the project root is on the path only now)
from exactmark.running.run import run_piped  # noqa: E402
from exactmark.kit.assignment import load  # noqa: E402
from exactmark.sandbox.cgroups import (CGROUP_ROOT, CPU_CONTROLLER, CPU_FILE, Unavailable,  # noqa: E402
                             cpu_seconds_of, own_paths)
from exactmark.running.limits import scrubbed_environment  # noqa: E402
from exactmark.sandbox.interpreter import clean_environment  # noqa: E402
from exactmark.base.tree import remove_tree  # noqa: E402
from exactmark.kit.bundle import write_program  # noqa: E402
from exactmark.kit.variants import Variant, read_variant  # noqa: E402

ASSIGNMENT = "seeded"
WRONG = ROOT / "tests" / "wrong"
# Mistakes of a line or two each, in output, exit status and simulate: taken in turn by
# the wrong students. None makes a program that runs much longer or shorter than the
# right one, so the class's running time stays that of the sample solutions.
VARIANTS = (
    ("solitaire_1", "and_last_without_its_space"),
    ("solitaire_2", "cannot_place_spelled_can_not"),
    ("solitaire_1", "end_of_input_not_caught"),
    ("solitaire_2", "only_two_rounds"),
    ("solitaire_1", "simulate_seeds_shifted_by_one"),
    ("solitaire_2", "end_of_input_at_seed_not_caught"),
)
RIGHT = "right"
CLASS, BARE = "class run", "bare runs"

# The bad students: each the sample solutions, solitaire_1.py changed as the variants of
# tests/wrong/ change it (each text to find occurs once), or a program left out.
BAD_PROGRAM, MISSING_PROGRAM = "solitaire_1", "solitaire_2"
SLEEPER, MISSING = "sleeper", "missing"  # MISSING hands in no MISSING_PROGRAM.py
MAIN = "def main() -> None:\n"
AT_END_OF_INPUT = "    line = sys.stdin.readline()\n    if not line:\n        raise EOFError\n"
BAD_CHANGES = {
    SLEEPER: ("sleeps 10 minutes at the start of main()",
              MAIN, MAIN + "    import time\n    time.sleep(600)\n"),
    "loop": ("reads stdin again while it gets nothing: busy for ever at the end of its input",
             AT_END_OF_INPUT,
             "    line = sys.stdin.readline()\n    while not line:\n"
             "        line = sys.stdin.readline()\n"),
    "crash": ("raises at the start of main()",
              MAIN, MAIN + '    raise RuntimeError("not finished yet")\n'),
    "flood": ("prints lines of 1000 x's for ever at the start of main()",
              MAIN, MAIN + '    while True:\n        print("x" * 1000)\n'),
}
BAD = (*BAD_CHANGES, MISSING)
BAD_KIND = "bad/{kind}"
BAD_KINDS = {BAD_KIND.format(kind=kind) for kind in BAD}

QUICK_STUDENTS = 2
QUICK_CASES = {"solitaire_1": ("seed_27", "end_after_bad_seed", "simulate_500_10"),
               "solitaire_2": ("seed_0_full", "no_input", "simulate_1000_0")}
QUICK_CPU_SECONDS = 10
QUICK_BUDGET = 5
QUICK_ASSIGNMENT = """\
title = {title}
marks = {marks}
cpu_seconds = {cpu_seconds}
student_budget = {budget}
"""
QUICK_PROGRAM = """
[[programs]]
name = "{name}"
kit_only = {left_out}

  [[programs.groups]]
  name = "bench/mark_class.py --quick"
  marks = 1
  cases = {cases}
  visibility = "visible"
"""
QUICK_TITLE = "{title}: {cases} of its cases (bench/mark_class.py --quick)"

POLL_SECONDS = 0.1  # how often the control groups' CPU time is read

MARKER_FAILED = "the class marker ended with status {status}: {said}"
NOT_MARKED = "{name}: not marked ({status})"
MARKER_PASSES = "{name}: the marker passes {passed}"
BARE_PASSES = "{name}: the bare runs pass {passed}/{cases}"
BAD_PASSES = "{name}: a bad student ({kind}) passes every case"
OTHER_PYTHON = "the class marker's sandbox used {python}"
OTHER_SANDBOX = "the class marker made a sandbox per {used}, not per {asked}"
MARKER_TRACEBACK = "the class marker printed a traceback on stderr"
TRACEBACK = "Traceback (most recent call last)"
NOTE = "note: {problem}"
NO_HONEST = "--students: at least 1 (the right ones are what the bad ones are set against)"
NO_CPU = "(no CPU per student: the marker's runs had no control group counting CPU time here)"
BAD_LINE = ("  {kind:<8} {wall:7.1f} s wall, {cpu} CPU: {wall_ratio:5.1f}x an honest "
            "student's wall, {cpu_ratio} its CPU  ({kinds})")
SLEEPER_LINE = ("The sleeper held one of the {jobs} workers for {wall:.1f} s of the class run's "
                "{class_wall:.1f} s ({share:.0%} of it)")


def make_class(folder: Path, count: int, bad: bool, scratch: Path) -> dict:
    """`count` student folders under `folder`, then (with `bad`) one bad student of each
    kind: student name -> what they hold (RIGHT, the id of the variant that makes one of
    their programs wrong, or BAD_KIND)."""
    solutions = {}  # program -> its files: name -> text
    for program in load(ASSIGNMENT).programs.values():
        written = write_program(program, scratch / "samples" / program.name)
        solutions[program.name] = {path.name: path.read_text(encoding="utf-8")
                                   for path, _ in written}
    variants = [read_variant(WRONG / program / f"{name}.toml") for program, name in VARIANTS]
    folder.mkdir()
    kinds, wrong = [], 0
    for number in range(count):
        if number % 3 == 0:  # students 1, 4, 7, ... are right
            kinds.append((RIGHT, solutions))
        else:
            variant = variants[wrong % len(variants)]
            wrong += 1
            kinds.append((variant.id, {**solutions, variant.program:
                                       variant.applied_to(solutions[variant.program])}))
    for kind in BAD if bad else ():
        kinds.append((BAD_KIND.format(kind=kind), bad_programs(kind, solutions)))
    students = {}
    for number, (kind, texts) in enumerate(kinds, 1):
        name = f"student_{number:02d}"
        (folder / name).mkdir()
        for files in texts.values():
            for file, text in files.items():
                (folder / name / file).write_text(text, encoding="utf-8")
        students[name] = kind
    return students


def bad_programs(kind: str, solutions: dict) -> dict:
    """The programs of a bad student of `kind`: program -> its files."""
    if kind == MISSING:
        return {program: files for program, files in solutions.items()
                if program != MISSING_PROGRAM}
    mistake, find, replace = BAD_CHANGES[kind]
    variant = Variant(BAD_PROGRAM, kind, mistake, ((None, find, replace, 1),), Path(__file__))
    return {**solutions, BAD_PROGRAM: variant.applied_to(solutions[BAD_PROGRAM])}


def is_bad(kind: str) -> bool:
    return kind in BAD_KINDS


def quick_assignment(scratch: Path) -> Path:
    """A copy of the assignment that marks only QUICK_CASES, the other cases kit_only."""
    assignment = load(ASSIGNMENT)
    text = QUICK_ASSIGNMENT.format(
        title=json.dumps(QUICK_TITLE.format(title=assignment.title, cases=sum(
            len(cases) for cases in QUICK_CASES.values()))),
        marks=len(QUICK_CASES), cpu_seconds=QUICK_CPU_SECONDS, budget=QUICK_BUDGET)
    for name, cases in QUICK_CASES.items():
        left_out = [case.name for case in assignment.programs[name].cases()
                    if case.name not in cases]
        text += QUICK_PROGRAM.format(name=name, left_out=json.dumps(left_out),
                                     cases=json.dumps(list(cases)))
    path = scratch / "quick.toml"
    path.write_text(text, encoding="utf-8")
    return path


def cpu_folder():
    """(the folder of this process's own control group that counts CPU time, its cgroup
    version), or None: the marker's groups are made below it."""
    try:
        own = own_paths(Path("/proc/self/cgroup").read_text())
    except (OSError, ValueError):
        return None
    if CPU_CONTROLLER in own and (CGROUP_ROOT / CPU_CONTROLLER).is_dir():
        return CGROUP_ROOT / CPU_CONTROLLER / own[CPU_CONTROLLER].lstrip("/"), 1
    if "" in own and (CGROUP_ROOT / "cgroup.controllers").exists():
        return CGROUP_ROOT / own[""].lstrip("/"), 2
    return None


class GroupsCpu:
    """While it runs, the CPU seconds of each control group just below this process's own,
    read every POLL_SECONDS: the last reading of each, by the group's name (a group is
    gone once its marker is done with it)."""

    def __init__(self):
        self.found, self.seconds = cpu_folder(), {}
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stopping.set()
        self.thread.join()

    def watch(self) -> None:
        if self.found is None:
            return
        folder, version = self.found
        while not self.stopping.wait(POLL_SECONDS):
            for path in folder.glob(f"*/{CPU_FILE[version]}"):
                try:
                    self.seconds[path.parent.name] = cpu_seconds_of(version, path.read_text())
                except (OSError, Unavailable):
                    pass  # the group went meanwhile, or it counts no CPU time

    def of(self, groups: list):
        """The CPU seconds of a marker's groups (results.json's cgroups), or None."""
        counted = [self.seconds[Path(group).name] for group in groups
                   if Path(group).name in self.seconds]
        return max(counted) if counted else None


def class_run(class_folder: Path, out: Path, jobs: int, assignment: str, sandbox_per: str,
              budget) -> dict:
    """The class marker end to end: its wall time, and what its files say of each student."""
    command = [sys.executable, "-m", "exactmark.classroom.mark_class", str(class_folder), "--assignment",
               assignment, "--out", str(out), "--jobs", str(jobs), "--sandbox-per", sandbox_per,
               "--force", *(["--student-budget", f"{budget:g}"] if budget else [])]
    started_at, started = time.time(), time.perf_counter()
    with GroupsCpu() as cpu:
        done = subprocess.run(command, cwd=ROOT, capture_output=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
        raise SystemExit(MARKER_FAILED.format(status=done.returncode, said=said[-1500:]))
    students = {}
    for folder in sorted((out / "instructor").iterdir()):
        result = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        extra = result["extra_data"]
        begun = (folder / "programs").stat().st_mtime - started_at
        ended = (folder / "state.json").stat().st_mtime - started_at
        students[folder.name] = {
            "begun": begun, "ended": ended, "wall": ended - begun,
            "marker": result["execution_time"], "cpu": cpu.of(extra["cgroups"]),
            "verdicts": Counter(case["kind"] for case in extra["cases"]),
            "python": extra["python"],
            "sandbox_per": extra["sandbox_per"]}
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        grades = {row["student"]: row for row in csv.DictReader(file)}
    return {"wall": wall, "start": min(student["begun"] for student in students.values()),
            "after": wall - max(student["ended"] for student in students.values()),
            "students": students, "grades": grades,
            "traceback": TRACEBACK in done.stderr.decode("utf-8", "replace")}


def sandbox_python(scratch: Path) -> tuple:
    """The interpreter the sandbox picks unless told (its first candidate), as it finds it,
    and the same as the sandbox starts the runs: from a virtual environment over it with
    no package of its own (exactmark.sandbox.interpreter.clean_environment: the installation's
    site-packages, whose .pth files may cost each start tens of milliseconds, left out)."""
    base = getattr(sys, "_base_executable", sys.executable)
    ask = "import os, sys; print(os.path.realpath(sys.executable)); print(*sys.version_info[:2])"
    done = subprocess.run([base, "-I", "-c", ask], capture_output=True, text=True,
                          env=scrubbed_environment("/"), cwd="/")
    python, version = done.stdout.split("\n")[:2]
    environment = clean_environment(scratch / "python", python, version.replace(" ", "."))
    return python, str(environment / "bin" / Path(python).name)


@contextlib.contextmanager
def started_with(python: str):
    """exactmark.running.run starting the programs with `python` instead of this interpreter, each
    in a session of its own as the sandbox starts them: with the kernel's autogroups a
    session gets its own share of the CPU, so on a machine busy with other work the bare
    runs would otherwise get less of it than the sandboxed ones."""
    in_a_session = functools.partial(subprocess.Popen, start_new_session=True)
    with unittest.mock.patch.object(exactmark.running.run.command, "__defaults__", (python, None)), \
            unittest.mock.patch.object(exactmark.running.run.subprocess, "Popen", in_a_session):
        yield


def passes(marked, run) -> bool:
    """Roughly the marker's verdict: stdout byte for byte, the status and stderr where
    the case gives them and the assignment compares them."""
    case, compared = marked.case, marked.compare
    return (not run.timed_out and run.stdout == case.stdout
            and (case.status is None or "status" not in compared or run.status == case.status)
            and (case.stderr is None or "stderr" not in compared or run.stderr == case.stderr))


def every_case(passed: str, cases: int) -> bool:
    """Whether a grade sheet's "cases passed" (P/N) is every one of the `cases` golden cases
    and more: N counts a student's fresh cases too, which the bare runs do not have, and
    leaves out a program not handed in."""
    done, _, total = passed.partition("/")
    return done == total and int(total) >= cases


def bare_runs(class_folder: Path, students: list, cases: list, jobs: int, python: str,
              env: dict) -> dict:
    """Every marked case of every student run straight by `python`, `jobs` at once: the wall
    time, the sum of the runs' own times, and the cases each student passes."""
    work = [(student, marked) for student in students for marked in cases]

    def one(item):
        student, marked = item
        started = time.perf_counter()
        run = run_piped(marked.case, class_folder / student, env=env)
        return student, time.perf_counter() - started, passes(marked, run)

    started = time.perf_counter()
    with started_with(python), ThreadPoolExecutor(jobs) as pool:
        done = list(pool.map(one, work))
    wall = time.perf_counter() - started
    passed = {student: 0 for student in students}
    for student, _, ok in done:
        passed[student] += ok
    return {"wall": wall, "runs": sum(seconds for _, seconds, _ in done), "passed": passed}


def check(students: dict, cases: int, first: dict, bare: dict, sandbox_per: str,
          python: str) -> list:
    """Lines on what each student got, from the marker and from the bare runs: both must
    see the same class (the right students pass every case, the wrong and bad ones do not;
    the bad ones are not run bare), and the class marker must have run as asked."""
    lines = [f"{'student':<11} {'programs':<46} {'mark':>7} {'marker':>7} {'bare':>7}"]
    problems = []
    for name, kind in students.items():
        row = first["grades"].get(name)
        marker = row["cases passed"] if row else "-"
        bare_passed = f"{bare['passed'][name]:>3}/{cases}" if name in bare["passed"] else "-"
        lines.append(f"{name:<11} {kind:<46} {row['mark'] if row else '-':>7} {marker:>7} "
                     f"{bare_passed:>7}")
        if row is None:
            problems.append(NOT_MARKED.format(name=name, status="no row"))
        elif is_bad(kind):  # the missing one's status says so
            if every_case(row["cases passed"], cases):
                problems.append(BAD_PASSES.format(name=name, kind=kind))
        elif row["status"] != "marked":
            problems.append(NOT_MARKED.format(name=name, status=row["status"]))
        elif (kind == RIGHT) != every_case(row["cases passed"], cases):
            problems.append(MARKER_PASSES.format(name=name, passed=row["cases passed"]))
        elif (kind == RIGHT) != (bare["passed"][name] == cases):
            problems.append(BARE_PASSES.format(name=name, passed=bare["passed"][name],
                                               cases=cases))
    if first["traceback"]:
        problems.append(MARKER_TRACEBACK)
    marked = first["students"].values()
    problems += sorted({OTHER_SANDBOX.format(used=student["sandbox_per"], asked=sandbox_per)
                        for student in marked if student["sandbox_per"] != sandbox_per})
    problems += sorted({OTHER_PYTHON.format(python=student["python"])
                        for student in marked if student["python"] != python})
    return lines + [NOTE.format(problem=problem) for problem in problems]


def start_up(interpreters: tuple, env: dict, repeats: int = 15) -> tuple:
    """Median seconds to run an empty program with each of `interpreters`, in turn, in the
    environment of the runs."""
    times = [[] for _ in interpreters]
    for _ in range(repeats):
        for interpreter, its in zip(interpreters, times):
            started = time.perf_counter()
            subprocess.run([interpreter, "-c", "pass"], env=env, cwd="/", capture_output=True)
            its.append(time.perf_counter() - started)
    return tuple(statistics.median(its) for its in times)


def honest_time(run: dict, honest: list) -> dict:
    """The right and wrong students' seconds in one class run, in worker-seconds: their
    workers' (each from the start of their marking to its end), their markers' own, and
    their share of the class marker's own (before the first student and after the last)."""
    students = run["students"]
    own = (run["start"] + run["after"]) * len(honest) / len(students)
    spans = sum(students[name]["wall"] for name in honest)
    return {"total": spans + own, "spans": spans, "own": own,
            "markers": sum(students[name]["marker"] for name in honest)}


def report(results: dict, students: dict, cases: int, jobs: int, python: str,
           starts: tuple) -> list:
    classes, bares = results[CLASS], results[BARE]
    honest = [name for name, kind in students.items() if not is_bad(kind)]
    times = [honest_time(run, honest) for run in classes]
    ratios = [spent["total"] / bare["runs"] for spent, bare in zip(times, bares)]
    overheads = [1 - bare["runs"] / spent["total"] for spent, bare in zip(times, bares)]
    median = statistics.median

    wall, bare_wall = median(run["wall"] for run in classes), median(bare["wall"] for bare in bares)
    runs = median(bare["runs"] for bare in bares)
    markers, spans = median(t["markers"] for t in times), median(t["spans"] for t in times)
    own = median(t["own"] for t in times)
    start, after = median(run["start"] for run in classes), median(run["after"] for run in classes)
    per_student, per_case = 1 / len(honest), 1000 / (len(honest) * cases)
    lines = [
        f"{'':<10} {'seconds':>8} {'students/min':>13}  (each repeat)",
        f"{CLASS:<10} {wall:8.1f} {len(students) / wall * 60:13.1f}  ("
        + " ".join(f"{run['wall']:.1f}" for run in classes) + f"): all {len(students)} students",
        f"{BARE:<10} {bare_wall:8.1f} {len(honest) / bare_wall * 60:13.1f}  ("
        + " ".join(f"{bare['wall']:.1f}" for bare in bares)
        + f"): the {len(honest)} right and wrong students' programs",
        f"The {len(honest)} right and wrong students in worker-seconds: class run "
        f"{median(t['total'] for t in times):.1f} s, bare runs {runs:.1f} s",
        f"class run / bare runs: {median(ratios):.2f}  ("
        + " ".join(f"{ratio:.2f}" for ratio in ratios) + ")",
        f"overhead, 1 - bare / class run: {median(overheads):.0%}  ("
        + " ".join(f"{overhead:.0%}" for overhead in overheads) + "); the aim: at most 10%",
        "",
        "Where their time went (medians), per right or wrong student in worker-seconds:",
        f"  the programs themselves, run bare               {runs * per_student:6.2f} s "
        f"({runs * per_case:4.0f} ms per case)",
        "  the marker's sandboxed cases beyond that        "
        f"{(markers - runs) * per_student:6.2f} s "
        f"({(markers - runs) * per_case:4.0f} ms per case; with its snapshot and Sandbox())",
        "  each marker outside that, and its pages         "
        f"{(spans - markers) * per_student:6.2f} s "
        "(interpreter, imports, assignment, report)",
        "  the class marker's own, their share             "
        f"{own * per_student:6.2f} s (before the first student {start:.1f} s; after the "
        f"last: grade sheet, similarity scan, summary {after:.1f} s)",
    ]
    bad = {name: kind for name, kind in students.items() if is_bad(kind)}
    if bad:
        lines += ["", *bad_report(classes, students, bad, jobs)]
    return lines + [
        "",
        f"Both start the programs with {python}, from a virtual environment with no package of "
        f"its own as the sandbox does: an empty program takes {starts[0] * 1000:.0f} ms so here, "
        f"{starts[1] * 1000:.0f} ms with the installation's packages, {starts[2] * 1000:.0f} ms "
        f"with {sys.executable}",
    ]


def bad_report(classes: list, students: dict, bad: dict, jobs: int) -> list:
    """Each bad student's wall and CPU seconds in the class run against an honest (right)
    student's, medians of the repeats; and the sleeper's share of the class run's wall."""
    rights = [name for name, kind in students.items() if kind == RIGHT]

    def median(name, key):
        values = [run["students"][name][key] for run in classes]
        return None if None in values else statistics.median(values)

    honest_wall = statistics.median(median(name, "wall") for name in rights)
    honest_cpus = [median(name, "cpu") for name in rights]
    honest_cpu = None if None in honest_cpus else statistics.median(honest_cpus)
    lines = [f"The bad students, against an honest (right) student's {honest_wall:.1f} s of wall"
             + ("" if honest_cpu is None else f" and {honest_cpu:.1f} s of CPU")
             + " (medians):"]
    for name, kind in bad.items():
        wall, cpu = median(name, "wall"), median(name, "cpu")
        verdicts = classes[0]["students"][name]["verdicts"]
        lines.append(BAD_LINE.format(
            kind=kind.split("/", 1)[1], wall=wall, wall_ratio=wall / honest_wall,
            cpu="-" if cpu is None else f"{cpu:5.1f} s",
            cpu_ratio="-" if cpu is None or not honest_cpu else f"{cpu / honest_cpu:5.2f}x",
            kinds=", ".join(f"{count} {verdict}" for verdict, count in verdicts.most_common())))
    if honest_cpu is None:
        lines.append(NO_CPU)
    sleepers = [name for name, kind in bad.items() if kind == BAD_KIND.format(kind=SLEEPER)]
    if sleepers:
        wall = median(sleepers[0], "wall")
        class_wall = statistics.median(run["wall"] for run in classes)
        lines.append(SLEEPER_LINE.format(jobs=jobs, wall=wall, class_wall=class_wall,
                                         share=wall / class_wall))
    return lines


def profile(folder: Path, assignment: str, cases: list, python: str, env: dict,
            sandbox_per: str, scratch: Path) -> list:
    """One right student marked alone (--jobs 1), each case timed from the marker's
    progress lines; then each case run bare, one at a time, in the same order."""
    command = [sys.executable, "-m", "exactmark.marking.mark", str(folder), "--assignment", assignment,
               "--json", str(scratch / "profile.json"), "--jobs", "1", "--sandbox-per",
               sandbox_per]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lines = []
    for line in process.stderr:
        if line.startswith(b"["):
            case = line.decode("utf-8", "replace").split()[-1]
            lines.append((time.perf_counter() - started, case))
    process.wait()
    total = time.perf_counter() - started
    results = json.loads((scratch / "profile.json").read_text(encoding="utf-8"))
    marker_seconds = results["execution_time"]
    bare = {}
    with started_with(python):
        for marked in cases:
            begun = time.perf_counter()
            run_piped(marked.case, folder, env=env)
            bare[marked.case.id] = time.perf_counter() - begun
    gaps, last = {}, None
    for moment, case in lines:
        gaps[case] = moment - (last if last is not None else 0)
        last = moment
    first = lines[0][1]
    extras = {case: gap - bare[case] for case, gap in gaps.items() if case != first}
    values = sorted(extras.values())
    worst = sorted(extras.items(), key=lambda item: -item[1])[:5]
    start = gaps[first] - bare[first] - statistics.median(values)
    return [
        f"Profile: {folder.name} alone, --jobs 1: {total:.1f} s ({len(lines)} cases; the marker's "
        f"own count {marker_seconds:.1f} s), bare {sum(bare.values()):.1f} s, ratio "
        f"{total / sum(bare.values()):.2f}",
        f"  start-up to the first case (interpreter, imports, snapshot, Sandbox()): about "
        f"{start * 1000:.0f} ms",
        f"  per case beyond the bare run: median {statistics.median(values) * 1000:.0f} ms, "
        f"mean {statistics.mean(values) * 1000:.0f} ms, from {values[0] * 1000:.0f} to "
        f"{values[-1] * 1000:.0f} ms; {sum(values):.1f} s in all",
        "  most beyond the bare run: " + ", ".join(f"{case} +{extra * 1000:.0f} ms (bare "
                                                   f"{bare[case] * 1000:.0f})"
                                                   for case, extra in worst),
        f"  after the last case (report, results.json, exit): {(total - last) * 1000:.0f} ms",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=6,
                        help="right and wrong students (default 6; --quick: "
                             f"{QUICK_STUDENTS})")
    parser.add_argument("--repeats", type=int, default=2, help="default 2; --quick: 1")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="students marked at once, and bare runs at once (default: the cores)")
    parser.add_argument("--class-jobs", type=int,
                        help="students the class marker marks at once (default: --jobs)")
    parser.add_argument("--sandbox-per", choices=["student", "case"], default="student",
                        help="the class marker's: one sandbox per student's program, or a "
                             "fresh one per case")
    parser.add_argument("--student-budget", type=float, metavar="S",
                        help="the class marker's (default: the assignment's; --quick: "
                             f"{QUICK_BUDGET})")
    parser.add_argument("--bad", action=argparse.BooleanOptionalAction, default=True,
                        help="one bad student of each kind in the class (default: yes)")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_STUDENTS} right and wrong students, once, a few cases each")
    parser.add_argument("--profile", action="store_true",
                        help="also time each case of one student marked alone")
    options = parser.parse_args()
    if options.quick:
        options.students, options.repeats = QUICK_STUDENTS, 1
    if options.students < 1:
        parser.error(NO_HONEST)
    began = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="bench-class-"))
    try:
        assignment_name = str(quick_assignment(scratch)) if options.quick else ASSIGNMENT
        assignment = load(assignment_name)
        budget = options.student_budget or assignment.student_budget
        cases = [marked for program in assignment.marked_cases.values() for marked in program]
        class_jobs = options.class_jobs or options.jobs
        print(f"Python {sys.version.split()[0]}; {options.students} right and wrong students"
              + (f" and {len(BAD)} bad ones" if options.bad else "")
              + f", {len(cases)} marked cases each ({assignment.name}); {class_jobs} students "
              f"at once, a sandbox per {options.sandbox_per}, "
              + (f"a budget of {budget:g} s of CPU per student" if budget else "no budget")
              + f"; {options.jobs} bare runs at once; medians of {options.repeats} repeats; "
              f"{os.cpu_count()} CPUs", flush=True)
        python, runs_python = sandbox_python(scratch)
        env = scrubbed_environment(str(scratch))  # exactmark.running.run adds the stats file's variable
        class_folder = scratch / "class"
        students = make_class(class_folder, options.students, options.bad, scratch)
        honest = [name for name, kind in students.items() if not is_bad(kind)]
        measure = {
            CLASS: lambda repeat: class_run(class_folder, scratch / f"out-{repeat}", class_jobs,
                                            assignment_name, options.sandbox_per,
                                            options.student_budget),
            BARE: lambda repeat: bare_runs(class_folder, honest, cases, options.jobs,
                                           runs_python, env),
        }
        results = {label: [] for label in measure}
        labels = list(measure)
        for repeat in range(options.repeats):
            turn = repeat % len(labels)
            for label in labels[turn:] + labels[:turn]:
                results[label].append(measure[label](repeat))
                print(f"  repeat {repeat + 1}: {label} {results[label][-1]['wall']:.1f} s",
                      flush=True)
            shutil.rmtree(scratch / f"out-{repeat}", ignore_errors=True)
        print("\n".join(check(students, len(cases), results[CLASS][0], results[BARE][0],
                              options.sandbox_per, python)))
        starts = start_up((runs_python, python, sys.executable), env)
        print("\n".join(report(results, students, len(cases), class_jobs, python, starts)),
              flush=True)
        if options.profile:
            right = next(name for name, kind in students.items() if kind == RIGHT)
            print("\n".join(profile(class_folder / right, assignment_name, cases, runs_python, env,
                                    options.sandbox_per, scratch)), flush=True)
    finally:
        remove_tree(scratch)
    print(f"took {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
