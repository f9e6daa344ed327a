"""What a run in the fallback may write on the disk (exactmark/sandbox/disk.py), and a full disk:
never the student's verdict, never kept by the next class run.

A run over its share (its program's files and 128 MiB more, in as many files as its home
and /tmp hold under namespaces) is stopped and judged so, however it writes: large
files, many small ones, a removed file held open, the shared /tmp. A disk without room
for the runs makes each case a marker error, said once for the class, and the next run
marks those students again. The disk here is a small tmpfs the test mounts (as root)."""

import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path

import pytest

from exactmark.kit.cases import ROOT, load_cases
from exactmark.kit.assignment import load
from exactmark.sandbox.disk import DiskFull
from exactmark.running.limits import WRITTEN_BYTES, mebibytes
from exactmark.marking.verdicts import PIPE, Kind, judge
from exactmark.kit.bundle import write_assignment
from tests.test_mark import open_scratch
from tests.test_mark_cpu_limit import sandbox
from tests.test_mark_hostile import REPLICA, markings, needs_root  # noqa: F401 (a fixture)

CASES = ["seed_0", "seed_27"]
ASSIGNMENT = """title = "A full disk"
marks = 2
cpu_seconds = 30

[[programs]]
name = "solitaire_1"
kit_only = {kit_only}

  [[programs.groups]]
  name = "shown"
  marks = 2
  cases = {cases}
  visibility = "visible"
"""
WROTE_TOO_MUCH = f"it wrote more than {mebibytes(WRITTEN_BYTES)} of files"
# Each way of writing too much: what it writes, in its home unless it says otherwise.
WRITERS = {
    "large files": """\
        chunk = b"x" * (1 << 20)
        for i in range(40):
            with open("big-%d" % i, "wb") as file:
                for _ in range(15):
                    file.write(chunk)
        """,
    "many empty files in its TMPDIR": """\
        import tempfile
        for i in range(30_000):
            open(os.path.join(tempfile.gettempdir(), "f%d" % i), "w").close()
        """,
    "the shared /tmp, without Landlock": """\
        for i in range(10):
            with open("/tmp/fill-%d-%d" % (os.getpid(), i), "wb") as file:
                for _ in range(15):
                    file.write(b"x" * (1 << 20))
        """,
    "removed files held open": """\
        chunk, held = b"x" * (1 << 20), []
        for i in range(40):
            file = open("gone-%d" % i, "wb")
            os.unlink("gone-%d" % i)
            held.append(file)
            for _ in range(15):
                file.write(chunk)
                file.flush()
        """,
}
EXIT_125 = "import sys\nprint('hello')\nsys.exit(125)\n"
# Writes until the disk is full (many small files in its home, then in the shared /tmp,
# then large files in its home), and holds the disk full a while.
FILLER = """\
    import os, sys, time
    chunk = b"x" * (1 << 20)
    try:
        os.mkdir("small")
        for i in range(3000):
            with open("small/%d" % i, "wb") as file:
                file.write(b"y" * 4096)
        for i in range(4):
            with open("/tmp/fill-%d-%d" % (os.getpid(), i), "wb") as file:
                for _ in range(15):
                    file.write(chunk)
        for i in range(10_000):
            with open("big-%d" % i, "wb") as file:
                for _ in range(15):
                    file.write(chunk)
    except OSError as problem:
        print(problem.strerror, file=sys.stderr)
        time.sleep(60)  # until it is stopped, idle
    """


@contextmanager
def small_disk(folder: Path, size: str):
    """A tmpfs of `size` on `folder`: a disk that fills, and leaves nothing behind."""
    folder.mkdir(mode=0o755)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs",
                              str(folder)], capture_output=True, text=True)
    if mounted.returncode:
        pytest.skip(f"a tmpfs cannot be mounted here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], capture_output=True)
        folder.rmdir()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A two-case assignment of solitaire_1, and an honest student's program for it."""
    root = tmp_path_factory.mktemp("tiny")
    assignment = root / "full_disk.toml"
    assignment.write_text(ASSIGNMENT.format(
        cases=json.dumps(CASES), kit_only=json.dumps(
            [case.name for case in load_cases("solitaire_1") if case.name not in CASES])),
        encoding="utf-8")
    honest = root / "honest"
    write_assignment(load(str(assignment)), honest)
    return assignment, honest


def a_class(folder: Path, honest: Path, filler: str = None) -> Path:
    """bb and cc hand in the honest program; aa, when there is `filler`, that program."""
    folder.mkdir(mode=0o755)
    for student in ("bb", "cc"):
        shutil.copytree(honest, folder / student)
    if filler is not None:
        (folder / "aa").mkdir()
        (folder / "aa" / "solitaire_1.py").write_text(textwrap.dedent(filler), encoding="utf-8")
    return folder


def mark_class(klass: Path, assignment: Path, out: Path, tmpdir: Path, markings,
               isolation: str, replica: tuple = ()):
    argv = [sys.executable, "-m", "exactmark.classroom.mark_class", str(klass), "--assignment",
            str(assignment), "--out", str(out), "--jobs", "2", "--isolation", isolation]
    if replica:
        argv = [*REPLICA, *replica, "--", *argv]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TMPDIR": str(tmpdir)})
    for results in out.glob("instructor/*/results.json"):  # removed by the fixture, should a
        markings.users |= set(json.loads(results.read_text())["extra_data"]["users"])  # test fail
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def grades(out: Path) -> dict:
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def verdicts(out: Path, student: str) -> dict:
    results = json.loads((out / "instructor" / student / "results.json").read_text())
    return {test["name"]: test["output"] for test in results["tests"]}


@needs_root
@pytest.mark.parametrize("writes", list(WRITERS))
def test_a_run_that_writes_past_its_share_is_stopped_and_judged_so(writes):
    """In the fallback (Landlock keeps it in its home and TMPDIR, but for the shared /tmp
    case: as where the kernel or the container has no Landlock), a run that writes more
    than its share is stopped, and its verdict says so: not wrong output, not a crash."""
    scratch = open_scratch()
    try:
        snapshot = scratch / "snapshot"
        snapshot.mkdir()
        (snapshot / "prog.py").write_text("import os\n" + textwrap.dedent(WRITERS[writes]) +
                                          "print('all written')\n", encoding="utf-8")
        case = load_cases("solitaire_1")[0]
        with sandbox(scratch, "fallback", 20) as box:
            if "without Landlock" in writes:
                box.confinement.abi = 0
            outcome = box.run(snapshot, lambda home: [box.python, str(home / "prog.py")], b"",
                              {})
        verdict = judge(case, PIPE, outcome)
        assert (verdict.kind, verdict.detail.startswith(WROTE_TOO_MUCH)) == (
            Kind.TOO_LARGE, True), f"{writes}: {verdict.kind}: {verdict.detail} " \
                                   f"({outcome.stdout[-200:]!r}, {outcome.stderr[-300:]!r})"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@needs_root
def test_a_disk_without_room_for_a_run_is_the_markers_error_and_an_exit_125_the_students(
        tmp_path):
    """The marker's scratch folder on a disk of 64 MiB: no run starts, each is a marker
    error that says why. With room, a program that ends with status 125 (as the launcher
    did when it could not copy the home) gets its own verdict: it cannot pass for one."""
    with small_disk(tmp_path / "disk", "64m") as disk:
        snapshot = disk / "snapshot"
        snapshot.mkdir()
        (snapshot / "prog.py").write_text(EXIT_125)
        with sandbox(disk, "fallback", 5) as box:
            with pytest.raises(DiskFull, match=r"^the disk is full: \d+ MiB free where the "
                                                r"marker keeps its runs, \d+ MiB needed for "
                                                r"1 run\(s\) at once"):
                box.run(snapshot, lambda home: [box.python, str(home / "prog.py")], b"", {})
    scratch = open_scratch()
    try:
        (scratch / "snapshot").mkdir()
        (scratch / "snapshot" / "prog.py").write_text(EXIT_125)
        with sandbox(scratch, "fallback", 5) as box:
            outcome = box.run(scratch / "snapshot",
                              lambda home: [box.python, str(home / "prog.py")], b"", {})
        assert (outcome.status, outcome.stdout) == (125, b"hello\n"), outcome
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@needs_root
def test_a_student_filling_the_disk_costs_an_honest_neighbour_nothing(markings, tiny):
    """The whole story, in the fallback as a Docker container without Landlock forces it:
    aa writes until the disk is full (many small files in its home, then the shared
    /tmp, then its home) and holds it full; bb and cc, honest, are marked beside it. aa
    is stopped over its share, and says so; bb and cc each get full marks, or a marker
    error (never a verdict of theirs) that the next run marks again."""
    assignment, honest = tiny
    klass = a_class(markings.world / "class", honest, FILLER)
    out = markings.world / "marked"
    with small_disk(markings.world / "disk", "1g") as disk:
        mark_class(klass, assignment, out, disk, markings, "auto", ("--no-landlock",))
        before = grades(out)
        for student in ("bb", "cc"):
            row = before[student]
            assert (row["mark"], row["status"]) in (("2.00", "marked"),
                                                   ("not marked", "marker error")), \
                f"{student} after the first run: {row}\n{verdicts(out, student)}"
        filled = verdicts(out, "aa")
        for case in CASES:
            said = filled[f"solitaire_1/{case}"]
            assert said.startswith(f"output too large: {WROTE_TOO_MUCH}"), f"aa {case}: {said}"
        second = mark_class(klass, assignment, out, disk, markings, "auto", ("--no-landlock",))
    after = grades(out)
    for student in ("bb", "cc"):
        assert (after[student]["mark"], after[student]["status"]) == ("2.00", "marked"), \
            f"{student} after the second run: {after[student]}\n{second.stderr[-2000:]}"
    remarked = sum(before[student]["status"] != "marked" for student in ("bb", "cc"))
    kept = 3 - remarked
    assert f"{kept} student(s) unchanged since the last run: kept" in second.stderr, \
        second.stderr[-2000:]


@needs_root
def test_a_full_disk_is_said_once_and_its_students_are_marked_again(markings, tiny, tmp_path):
    """The marker's TMPDIR on a disk of 160 MiB, short of what two runs at once may
    write: no case runs, each is a marker error; the class run says so once, and
    grades.csv scores no one. The next run, with room, marks both again (nothing kept)
    and they get full marks."""
    assignment, honest = tiny
    klass = a_class(markings.world / "class", honest)
    out = markings.world / "marked"
    with small_disk(markings.world / "disk", "160m") as disk:
        full = mark_class(klass, assignment, out, disk, markings, "fallback")
    said = [line for line in full.stderr.splitlines() if "the disk filled" in line]
    assert said == ["the disk filled during the run: 2 student(s)' cases are marker errors, "
                    "marked again next run"], full.stderr[-2000:]
    for student, row in grades(out).items():
        assert (row["mark"], row["status"]) == ("not marked", "marker error"), row
        for case, output in verdicts(out, student).items():
            assert output.startswith("marker error: DiskFull: the disk is full: "), \
                f"{student} {case}: {output}"
    again = mark_class(klass, assignment, out, markings.folder("roomy", 0o755), markings,
                       "fallback")
    assert "unchanged since the last run" not in again.stderr, again.stderr[-2000:]
    for student, row in grades(out).items():
        assert (row["mark"], row["status"]) == ("2.00", "marked"), row


@needs_root
def test_results_holding_a_marker_error_are_never_kept(markings, tiny):
    """A class marker stopped between writing a student's results and removing its state
    (or an older kit's state) leaves a marker error standing beside a state that matches:
    the next run marks that student again all the same."""
    assignment, honest = tiny
    klass = a_class(markings.world / "class", honest)
    shutil.rmtree(klass / "cc")
    out = markings.world / "marked"
    tmpdir = markings.folder("tmpdir", 0o755)
    mark_class(klass, assignment, out, tmpdir, markings, "fallback")
    results = out / "instructor" / "bb" / "marked.json"  # the marker's own, kept
    written = json.loads(results.read_text())
    case = written["extra_data"]["cases"][0]
    case["kind"] = case["verdicts"][0]["kind"] = str(Kind.MARKER_ERROR)
    results.write_text(json.dumps(written))
    again = mark_class(klass, assignment, out, tmpdir, markings, "fallback")
    assert "unchanged since the last run" not in again.stderr, again.stderr[-2000:]
    assert json.loads(results.read_text())["extra_data"]["cases"][0]["kind"] == "pass"
