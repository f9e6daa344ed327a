"""How fast a whole class is marked, and what share of that time is the marker's
own, not the students' programs': to know whether marking a class spends its
time running the students' code or around it.

A synthetic class of N students is made in a temporary folder: copies of the
sample solutions (`make standalone`: solitaire_1.py and solitaire_2.py), and,
every student but one in three, one program made wrong by a variant of
tests/wrong/ (a mistake students make). Two measurements then alternate in one
process, the order turning each repeat, so that a noisy machine slows both alike:

    class run   `python -m classroom.mark_class CLASS --assignment seeded --out OUT
                --jobs J --force`, end to end (a fresh OUT each repeat): every
                marked case of every student in the sandbox, then the grade
                sheet, the feedback pages, the similarity scan and the summary
    bare runs   every marked case of every student run straight, as
                golden.run.run_piped does (a fresh folder, stdin piped, no
                sandbox, no marker), J at once: the time the students' programs
                themselves take

J is the machine's cores (--jobs); --class-jobs gives the class marker another
number of students at once, the bare runs keeping J. The bare runs start the
programs as the sandbox does:
with the interpreter it picks (this one's base: never a virtual environment's,
which may lie in the kit the sandbox hides, and whose start-up may differ) and
the environment it gives (marking.limits.scrubbed_environment: compiled modules
are not written, so each run compiles the programs, as a sandboxed run must, and
the students' folders stay as the class marker finds them).
Prints the medians of the repeats: students per minute, the ratio class run /
bare runs, and the overhead, the share of the class run spent outside the
students' programs (1 - bare / class run); then where the class run's time went,
from the files it wrote: the marking of the students (each marker's own time,
from its results.json, against the bare time of its cases) and what follows it
(grade sheet, similarity scan, summary); and, for scale, how long an empty
program takes with that interpreter, and with this one.
--profile also marks one right student alone (--jobs 1) and times each case from
the marker's progress lines, against the same case run bare.

    python3 bench/mark_class.py [--students 8] [--repeats 3] [--jobs CORES] [--class-jobs N]
                                [--profile]
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
import time
import unittest.mock
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import golden.run  # noqa: E402 (the project root is on the path only now)
from golden.run import run_piped  # noqa: E402
from marking.assignment import load  # noqa: E402
from marking.limits import scrubbed_environment  # noqa: E402
from marking.tree import remove_tree  # noqa: E402
from standalone.bundle import write_program  # noqa: E402
from verify.variants import read_variant  # noqa: E402

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


def make_class(folder: Path, count: int, scratch: Path) -> dict:
    """`count` student folders under `folder`: student name -> what they hold (RIGHT,
    or the id of the variant that makes one of their programs wrong)."""
    solutions = {}  # program -> its files: name -> text
    for program in load(ASSIGNMENT).declared.values():
        written = write_program(program, scratch / "samples" / program.name)
        solutions[program.name] = {path.name: path.read_text(encoding="utf-8")
                                   for path, _ in written}
    variants = [read_variant(WRONG / program / f"{name}.toml") for program, name in VARIANTS]
    folder.mkdir()
    students, wrong = {}, 0
    for number in range(1, count + 1):
        texts = dict(solutions)
        kind = RIGHT
        if number % 3 != 1:  # students 1, 4, 7, ... are right
            variant = variants[wrong % len(variants)]
            wrong += 1
            texts[variant.program] = variant.applied_to(solutions[variant.program])
            kind = variant.id
        name = f"student_{number:02d}"
        (folder / name).mkdir()
        for files in texts.values():
            for file, text in files.items():
                (folder / name / file).write_text(text, encoding="utf-8")
        students[name] = kind
    return students


def class_run(class_folder: Path, out: Path, jobs: int) -> dict:
    """The class marker end to end: its wall time, and what its files say of where it went.
    A student's instructor/NAME/programs/ folder is written just before their marker
    starts, their state.json just after it ends; each results.json gives
    the marker's own time (from its snapshot to its last case)."""
    command = [sys.executable, "-m", "classroom.mark_class", str(class_folder), "--assignment",
               ASSIGNMENT, "--out", str(out), "--jobs", str(jobs), "--force"]
    started_at, started = time.time(), time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
        raise SystemExit(f"the class marker ended with status {done.returncode}: {said[-1500:]}")
    folders = sorted((out / "instructor").iterdir())
    results = [json.loads((folder / "results.json").read_text(encoding="utf-8"))
               for folder in folders]
    begun = [(folder / "programs").stat().st_mtime - started_at for folder in folders]
    ended = [(folder / "state.json").stat().st_mtime - started_at for folder in folders]
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        grades = {row["student"]: row for row in csv.DictReader(file)}
    return {"wall": wall, "start": min(begun), "after": wall - max(ended),
            "spans": sum(end - begin for begin, end in zip(begun, ended)),
            "markers": sum(result["execution_time"] for result in results), "grades": grades,
            "python": results[0]["extra_data"]["isolation"][-1].rsplit("; ", 1)[-1]}


def sandbox_python() -> str:
    """The interpreter the sandbox picks unless told (its first candidate), as it finds it."""
    base = getattr(sys, "_base_executable", sys.executable)
    ask = "import os, sys; print(os.path.realpath(sys.executable))"
    done = subprocess.run([base, "-I", "-c", ask], capture_output=True, text=True,
                          env=scrubbed_environment("/"), cwd="/")
    return done.stdout.strip() or base


@contextlib.contextmanager
def started_with(python: str):
    """golden.run starting the programs with `python` instead of this interpreter, each
    in a session of its own as the sandbox starts them: with the kernel's autogroups a
    session gets its own share of the CPU, so on a machine busy with other work the bare
    runs would otherwise get less of it than the sandboxed ones."""
    in_a_session = functools.partial(subprocess.Popen, start_new_session=True)
    with unittest.mock.patch.object(golden.run.command, "__defaults__", (python, None)), \
            unittest.mock.patch.object(golden.run.subprocess, "Popen", in_a_session):
        yield


def passes(marked, run) -> bool:
    """Roughly the marker's verdict: stdout byte for byte, the status and stderr where
    the case gives them and the assignment compares them."""
    case, compared = marked.case, marked.compare
    return (not run.timed_out and run.stdout == case.stdout
            and (case.status is None or "status" not in compared or run.status == case.status)
            and (case.stderr is None or "stderr" not in compared or run.stderr == case.stderr))


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


def check(students: dict, cases: int, first: dict, bare: dict) -> list:
    """Lines on what each student got, from the marker and from the bare runs: both must
    see the same class (the right students pass every case, the wrong ones do not)."""
    lines = [f"{'student':<11} {'programs':<46} {'mark':>7} {'marker':>7} {'bare':>7}"]
    problems = []
    for name, kind in students.items():
        row = first["grades"].get(name)
        marker = row["cases passed"] if row else "-"
        lines.append(f"{name:<11} {kind:<46} {row['mark'] if row else '-':>7} {marker:>7} "
                     f"{bare['passed'][name]:>3}/{cases}")
        if row is None or row["status"] != "marked":
            problems.append(f"{name}: not marked ({row['status'] if row else 'no row'})")
        elif (kind == RIGHT) != (row["cases passed"] == f"{cases}/{cases}"):
            problems.append(f"{name}: the marker passes {row['cases passed']}")
        elif (kind == RIGHT) != (bare["passed"][name] == cases):
            problems.append(f"{name}: the bare runs pass {bare['passed'][name]}/{cases}")
    return lines + [f"note: {problem}" for problem in problems]


def start_up(python: str, env: dict, repeats: int = 15) -> tuple:
    """Median seconds to run an empty program with `python`, and with this interpreter,
    alternately, in the environment of the runs."""
    theirs, ours = [], []
    for _ in range(repeats):
        for interpreter, times in ((python, theirs), (sys.executable, ours)):
            started = time.perf_counter()
            subprocess.run([interpreter, "-c", "pass"], env=env, cwd="/", capture_output=True)
            times.append(time.perf_counter() - started)
    return statistics.median(theirs), statistics.median(ours)


def report(results: dict, count: int, cases: int, jobs: int, python: str, starts: tuple) -> list:
    classes, bares = results[CLASS], results[BARE]
    ratios = [run["wall"] / bare["wall"] for run, bare in zip(classes, bares)]
    overheads = [1 - bare["wall"] / run["wall"] for run, bare in zip(classes, bares)]

    def median(key, runs=classes):
        return statistics.median(run[key] for run in runs)

    wall, bare_wall = median("wall"), median("wall", bares)
    runs, markers, spans = median("runs", bares), median("markers"), median("spans")
    start, after = median("start"), median("after")
    per_student, per_case = 1 / count, 1000 / (count * cases)
    return [
        f"{'':<10} {'seconds':>8} {'students/min':>13}  (each repeat)",
        f"{CLASS:<10} {wall:8.1f} {count / wall * 60:13.1f}  ("
        + " ".join(f"{run['wall']:.1f}" for run in classes) + ")",
        f"{BARE:<10} {bare_wall:8.1f} {count / bare_wall * 60:13.1f}  ("
        + " ".join(f"{bare['wall']:.1f}" for bare in bares) + ")",
        f"class run / bare runs: {statistics.median(ratios):.2f}  ("
        + " ".join(f"{ratio:.2f}" for ratio in ratios) + ")",
        f"overhead, 1 - bare / class run: {statistics.median(overheads):.0%}  ("
        + " ".join(f"{overhead:.0%}" for overhead in overheads) + "); the aim: under 20%",
        "",
        f"Where the class run's time went (medians), per student in worker-seconds "
        f"({jobs} workers x {wall:.1f} s / {count} students = {jobs * wall / count:.2f} s):",
        f"  the programs themselves, run bare               {runs * per_student:6.2f} s "
        f"({runs * per_case:4.0f} ms per case)",
        "  the marker's sandboxed cases beyond that        "
        f"{(markers - runs) * per_student:6.2f} s "
        f"({(markers - runs) * per_case:4.0f} ms per case; with its snapshot and Sandbox())",
        "  each marker outside that, and its pages         "
        f"{(spans - markers) * per_student:6.2f} s "
        "(interpreter, imports, assignment, report)",
        "  the class marker's own, and waiting workers     "
        f"{(jobs * wall - spans) * per_student:6.2f} s (before the first student "
        f"{start:.1f} s; after the last: grade sheet, similarity scan, summary {after:.1f} s)",
        "",
        f"Both start the programs with {python}: an empty program takes "
        f"{starts[0] * 1000:.0f} ms with it here, {starts[1] * 1000:.0f} ms with {sys.executable}",
    ] + ([] if classes[0]["python"] == python else
         [f"note: the class marker's sandbox used {classes[0]['python']}"])


def profile(folder: Path, cases: list, python: str, env: dict, scratch: Path) -> list:
    """One right student marked alone (--jobs 1), each case timed from the marker's
    progress lines; then each case run bare, one at a time, in the same order."""
    command = [sys.executable, "-m", "marking.mark", str(folder), "--assignment", ASSIGNMENT,
               "--json", str(scratch / "profile.json"), "--jobs", "1"]
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
    parser.add_argument("--students", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="students marked at once, and bare runs at once (default: the cores)")
    parser.add_argument("--class-jobs", type=int,
                        help="students the class marker marks at once (default: --jobs)")
    parser.add_argument("--profile", action="store_true",
                        help="also time each case of one student marked alone")
    options = parser.parse_args()
    began = time.perf_counter()
    assignment = load(ASSIGNMENT)
    cases = [marked for program in assignment.programs.values() for marked in program]
    class_jobs = options.class_jobs or options.jobs
    print(f"Python {sys.version.split()[0]}; {options.students} students, {len(cases)} marked "
          f"cases each ({ASSIGNMENT}); {class_jobs} students at once, {options.jobs} bare runs "
          f"at once; medians of {options.repeats} repeats; {os.cpu_count()} CPUs", flush=True)
    scratch = Path(tempfile.mkdtemp(prefix="bench-class-"))
    python = sandbox_python()
    env = scrubbed_environment(str(scratch))  # golden.run adds the stats file's variable
    try:
        class_folder = scratch / "class"
        students = make_class(class_folder, options.students, scratch)
        names = list(students)
        measure = {
            CLASS: lambda repeat: class_run(class_folder, scratch / f"out-{repeat}", class_jobs),
            BARE: lambda repeat: bare_runs(class_folder, names, cases, options.jobs, python, env),
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
        print("\n".join(check(students, len(cases), results[CLASS][0], results[BARE][0])))
        starts = start_up(python, env)
        print("\n".join(report(results, options.students, len(cases), class_jobs, python,
                                starts)), flush=True)
        if options.profile:
            right = next(name for name, kind in students.items() if kind == RIGHT)
            print("\n".join(profile(class_folder / right, cases, python, env, scratch)), flush=True)
    finally:
        remove_tree(scratch)
    print(f"took {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
