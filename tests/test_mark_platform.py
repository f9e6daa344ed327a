"""The marker on the platforms courses use: Ubuntu 22.04's bubblewrap (0.6.1, without
options newer releases have), a container's memory and process limits, and a machine
that cannot give a layer of isolation an assignment requires."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import exactmark.sandbox.sandbox
from exactmark.kit.cases import ROOT
from exactmark.kit.assignment import REQUIREMENTS, SCHEMA
from exactmark.sandbox.cgroups import enclosing_limits
from exactmark.running.limits import MEMORY_BYTES, PROCESSES
from exactmark.sandbox.sandbox import MARKER_ROOM_BYTES, run_limits
from tests.test_mark import open_scratch, spun, submission
from tests.test_mark_class import ASSIGNMENT, HIDDEN, VISIBLE, others

IS_ROOT = os.geteuid() == 0
REAL_BWRAP = shutil.which("bwrap")
needs_bwrap = pytest.mark.skipif(REAL_BWRAP is None or not IS_ROOT,
                                 reason="bubblewrap, as root, is what this stands in for")
REPLICA = ["unshare", "--mount", "--propagation", "private", sys.executable, "-m",
           "tests.container"]
needs_replica = pytest.mark.skipif(not IS_ROOT or shutil.which("unshare") is None,
                                   reason="the container replica is built as root")
BWRAP_0_6_1 = """\
    #!/bin/sh
    # bubblewrap 0.6.1 (Ubuntu 22.04): no --size, no --disable-userns
    for arg in "$@"; do
        case "$arg" in
            --size|--disable-userns) echo "bwrap: Unknown option $arg" >&2; exit 1 ;;
        esac
    done
    if [ "$1" = --help ]; then
        {real} --help | grep -v -e --size -e --disable-userns
        exit 0
    fi
    exec {real} "$@"
    """


def mark(folder: Path, *options, env=None, replica=None, assignment="seeded", timeout=300):
    scratch = open_scratch()
    argv = [sys.executable, "-m", "exactmark.marking.mark", str(folder), "--assignment", str(assignment),
            *options]
    if replica is not None:
        argv = [*REPLICA, *replica, "--", *argv]
    try:
        return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "TMPDIR": str(scratch), **(env or {})})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@needs_bwrap
def test_namespaces_work_with_ubuntu_22_04_s_bubblewrap(tmp_path):
    """A stand-in for bubblewrap 0.6.1 refuses --size and --disable-userns, as that release
    does: the marker still isolates each run in namespaces, and says that /tmp is capped
    by memory only."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text(textwrap.dedent(BWRAP_0_6_1).format(real=REAL_BWRAP))
    (fake / "bwrap").chmod(0o755)
    done = mark(submission(tmp_path), "--only", "solitaire_1/seed_0", "--isolation",
                "namespaces", env={"PATH": f"{fake}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Isolation: namespaces (bubblewrap), seccomp" in done.stdout, done.stdout[:1000]
    assert "this bubblewrap has no --size" in done.stdout
    assert "  pass " in done.stdout and "solitaire_1/seed_0" in done.stdout


def test_a_run_stays_under_a_container_s_memory_leaving_the_marker_room(monkeypatch):
    """Gradescope's default container has 768 MB: a run gets what is left once the marker
    has its own, shared among the runs at once."""
    container = 768 << 20
    monkeypatch.setattr(exactmark.sandbox.sandbox, "enclosing_limits", lambda: (container, 100))
    memory, processes = run_limits(1)
    assert memory == container - MARKER_ROOM_BYTES and memory < MEMORY_BYTES
    assert run_limits(2)[0] == (container - MARKER_ROOM_BYTES) // 2
    assert processes == min(PROCESSES, 100 - exactmark.sandbox.sandbox.MARKER_PROCESSES)
    two_markers = run_limits(1, markers=2)[0]  # a class marking two students at once
    assert two_markers == (container - 2 * MARKER_ROOM_BYTES) // 2
    monkeypatch.setattr(exactmark.sandbox.sandbox, "enclosing_limits", lambda: (None, None))
    assert run_limits(4) == (MEMORY_BYTES, PROCESSES)


@pytest.mark.parametrize("version", [1, 2])
def test_the_container_s_limits_are_read_from_its_control_groups(tmp_path, version):
    """The lowest limit from the marker's own group up to the hierarchy's root."""
    if version == 2:
        (tmp_path / "docker" / "box").mkdir(parents=True)
        (tmp_path / "memory.max").write_text("max\n")
        (tmp_path / "docker" / "memory.max").write_text(f"{768 << 20}\n")
        (tmp_path / "docker" / "box" / "memory.max").write_text("max\n")
        (tmp_path / "docker" / "box" / "pids.max").write_text("512\n")
        proc = "0::/docker/box\n"
    else:
        (tmp_path / "memory" / "docker").mkdir(parents=True)
        (tmp_path / "pids" / "docker").mkdir(parents=True)
        (tmp_path / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
        (tmp_path / "memory" / "docker" / "memory.limit_in_bytes").write_text(f"{768 << 20}\n")
        (tmp_path / "pids" / "docker" / "pids.max").write_text("max\n")
        proc = "5:memory:/docker\n4:pids:/docker\n"
    memory, processes = enclosing_limits(tmp_path, proc)
    assert memory == 768 << 20
    assert processes == (512 if version == 2 else None)


def test_the_requirements_are_those_the_schema_allows():
    schema = json.loads(SCHEMA.read_text())
    assert set(schema["properties"]["require"]["items"]["enum"]) == set(REQUIREMENTS)


@needs_replica
def test_a_required_layer_the_machine_lacks_refuses_the_marking(tmp_path):
    """In a container whose seccomp profile refuses Landlock (Docker before 23.0), files
    cannot be hidden in the fallback: `--require files-hidden` refuses to mark, saying what
    the machine has; without it the marking goes on, with a warning."""
    folder = submission(tmp_path)
    refused = mark(folder, "--only", "solitaire_1/seed_0", "--require", "files-hidden",
                   replica=["--no-landlock"])
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert "cannot give each run files-hidden" in refused.stderr
    assert "it has: Isolation: FALLBACK" in refused.stderr and refused.stdout == ""
    marked = mark(folder, "--only", "solitaire_1/seed_0", "--require", "network-off",
                  replica=["--no-landlock"])
    assert marked.returncode == 0, marked.stderr[-2000:]
    assert "warning: neither namespaces nor Landlock hide files here" in marked.stderr
    assert "it reaches no network and makes no namespace (seccomp)" in marked.stdout


@needs_replica
def test_an_assignment_may_require_its_layers(tmp_path):
    assignment = tmp_path / "strict.toml"
    assignment.write_text('require = ["files-hidden", "network-off"]\n'
                          + (ROOT / "assignments" / "seeded.toml").read_text())
    folder = submission(tmp_path)
    done = mark(folder, "--check-isolation", replica=["--no-landlock"], assignment=assignment)
    assert done.returncode == 2 and "files-hidden" in done.stderr, done.stderr[-1000:]
    done = mark(folder, "--check-isolation", replica=[], assignment=assignment)
    assert done.returncode == 0, done.stderr[-1000:]
    assert done.stdout.startswith("Isolation: FALLBACK, no namespaces"), done.stdout
    assert "Landlock ABI" in done.stdout and "seccomp" in done.stdout


@needs_replica
def test_the_class_says_each_marker_warning_once(tmp_path):
    """Three students marked where files cannot be hidden: each student's marker warns;
    the class run says it once."""
    klass = tmp_path / "class"
    for name in ("ann", "bob", "cal"):
        (klass / name).mkdir(parents=True)
        (klass / name / "solitaire_1.py").write_text("print()\n")
    small = tmp_path / "small.toml"
    small.write_text(ASSIGNMENT.format(
        visible=json.dumps(VISIBLE), hidden=json.dumps(HIDDEN),
        kit_only_1=others("solitaire_1", VISIBLE + HIDDEN),
        kit_only_2=others("solitaire_2", ["seed_0_full"])), encoding="utf-8")
    scratch = open_scratch()
    try:
        done = subprocess.run([*REPLICA, "--no-landlock", "--", sys.executable, "-m",
                               "exactmark.classroom.mark_class", str(klass), "--assignment",
                               str(small), "--out",
                               str(tmp_path / "out"), "--jobs", "2"],
                              cwd=ROOT, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "TMPDIR": str(scratch)})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count("warning: neither namespaces nor Landlock hide files") == 1, \
        done.stderr[-3000:]


def marked_in_replica(folder: Path, *options, assignment="seeded", timeout=300):
    """The marker in the container replica (no control group, no namespaces): its report,
    and its results.json's tests by name."""
    written = folder.parent / "results.json"
    done = mark(folder, "--json", str(written), *options, replica=[], assignment=assignment,
                timeout=timeout)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    results = json.loads(written.read_text(encoding="utf-8"))
    return done.stdout, {test["name"]: test for test in results["tests"]}


@needs_replica
def test_a_looping_program_costs_its_own_cases_alone_where_no_cgroup_is(tmp_path):
    """A solitaire_1.py that loops beside a right solitaire_2.py, in the container, with a
    budget the loops would spend: solitaire_1's share (in proportion to its marks) is spent
    on its first cases, and each of solitaire_2's cases still runs and earns its marks."""
    folder = submission(tmp_path, "solitaire_1.py", "def main() -> None:\n",
                        "def main() -> None:\n    while True:\n        pass\n")
    report, tests = marked_in_replica(folder, "--only", "solitaire_1/seed_*", "--only",
                                      "solitaire_2/seed_*", "--timeout", "1", "--jobs", "1",
                                      "--student-budget", "4")
    second = {name: test for name, test in tests.items() if name.startswith("solitaire_2/")}
    assert len(second) == 3 and all(test["score"] == test["max_score"] > 0
                                     for test in second.values()), \
        {name: test["output"][:300] for name, test in second.items()}
    assert "shared in proportion to marks (solitaire_1 70%, solitaire_2 30%)" in report, report
    first = [test["output"].split("\n")[0] for name, test in tests.items()
             if name.startswith("solitaire_1/")]
    cut = [said for said in first if said.startswith("not run: budget: the cases before it "
                                                     "used their share")]
    assert cut and all(said.endswith("(solitaire_1: 2.8 s)") for said in cut), first
    assert all(said.startswith("timeout") for said in first if said not in cut), first


SPIN_AT_END_OF_INPUT = ("    if (cin.eof()) {\n        exit(0);\n    }\n",
                        "    while (cin.eof()) {  // asks again for ever\n        cin.clear();\n"
                        "        cin >> ws;\n    }\n")


def spinning_at_end_of_input(tmp_path: Path) -> Path:
    """The C++ sample, changed only to ask again for ever at end of input."""
    folder = tmp_path / "submission"
    folder.mkdir()
    for path in sorted((ROOT / "references" / "calculation_cpp").iterdir()):
        shutil.copy(path, folder / path.name)
    main = (folder / "main.cpp").read_text(encoding="utf-8")
    assert SPIN_AT_END_OF_INPUT[0] in main
    (folder / "main.cpp").write_text(main.replace(*SPIN_AT_END_OF_INPUT), encoding="utf-8")
    return folder


@needs_replica
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the C++ sample")
def test_the_c_plus_plus_sample_spinning_at_end_of_input_keeps_its_passing_cases(tmp_path):
    """The C++ sample changed only to ask again for ever at end of input: each eof_* case
    spins to its CPU limit (1 s here), and the *_checks cases, seven of which come after
    them, pass. A budget of 1.5 s per spinning case holds them where the whole run is held
    at its limit, as it now is in the container; RLIMIT_CPU alone let each run 2 s. (A
    waiting budget of 300 s: a loaded machine counts a starved spinner's wall as waiting.)"""
    folder = spinning_at_end_of_input(tmp_path)
    report, tests = marked_in_replica(folder, "--only", "calculation_cpp/eof_*", "--only",
                                      "calculation_cpp/*_checks", "--timeout", "1", "--jobs",
                                      "1", "--student-budget", f"{11 * 1.5:g}",
                                      "--waiting-budget", "300", assignment="calculation_cpp")
    spinning = {name: test for name, test in tests.items() if "/eof_" in name}
    checks = {name: test for name, test in tests.items() if name.endswith("_checks")}
    assert len(spinning) == 11 and len(checks) == 13, sorted(tests)
    assert all(test["score"] == test["max_score"] > 0 for test in checks.values()), \
        {name: test["output"][:300] for name, test in checks.items()}
    assert all(test["output"].startswith(spun(1))
               for test in spinning.values()), {name: test["output"][:200]
                                                for name, test in spinning.items()}


@needs_replica
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the C++ sample")
def test_the_spinning_c_plus_plus_sample_earns_every_passing_case_within_a_budget(tmp_path):
    """The same spinning sample with a limit of 10 s of CPU a case (the shipped 30 s has
    the same first-pass cap, FIRST_PASS_SECONDS, and costs twice the CPU here), nine
    end-of-input cases, then seven *_checks after them, two runs at once, and a CPU budget
    of three spinners (30 s; Gradescope's default 540 s gives the runs 216 s, about seven
    spinners at 30 s, and the assignment has eleven end-of-input cases: the same story,
    longer).
    In one pass the first spinners spend the budget and the checks after them are not run;
    in two, the first pass's short cap (3 s) decides every check first, and the spinners
    use what is left."""
    folder = spinning_at_end_of_input(tmp_path)
    report, tests = marked_in_replica(
        folder, "--only", "calculation_cpp/eof_after_*", "--only",
        "calculation_cpp/eof_at_[d-r]*", "--only", "calculation_cpp/*_checks", "--jobs", "2",
        "--timeout", "10", "--student-budget", "30", "--waiting-budget", "300",
        assignment="calculation_cpp", timeout=900)
    assert "10 s of CPU for the whole run" in report, report[:2000]
    spinning = {name: test for name, test in tests.items() if "/eof_" in name}
    checks = {name: test for name, test in tests.items() if name.endswith("_checks")}
    assert len(spinning) == 9 and len(checks) == 13, sorted(tests)
    lost = {name: test["output"][:300] for name, test in checks.items()
            if not test["score"] == test["max_score"] > 0}
    assert not lost, lost
    said = {name: test["output"].split("\n")[0] for name, test in spinning.items()}
    assert all(line.startswith((*spun(10),
                                "not run: budget: the cases before it used their share"))
               for line in said.values()), said
