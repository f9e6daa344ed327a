"""A class marked on Dask (#38): `--engine dask-local` (a LocalCluster of two workers) and
`--engine dask` against a real `dask scheduler` with two `exactmark dask-worker` processes on
127.0.0.1, started here, give the grade sheet, the pages and the similarity scan of the local
run byte for byte; a worker SIGKILLed in the middle of a student gets that student marked on
another, once; a worker at another kit commit refuses with its sentence and its students are
marked by the other; a plain tcp:// scheduler off this machine is refused, and one that does
not answer is said in one line.

The class: a tiny assignment of its own (solitaire_1, two cases, the others kit-only) and
four entries: ann right, bob wrong ("Eigth"), dee right in her own words, and a stray file
(refused). Everything listens on 127.0.0.1 alone, with no dashboard."""

import csv
import difflib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the Dask engines need distributed: "
                    "pip install -r requirements-dask.txt")
pytest.importorskip("copydetect", reason="a class run needs the class's extra")

import distributed  # noqa: E402

from exactmark.distributed import dask_engine  # noqa: E402
from exactmark.distributed.engine import EngineError  # noqa: E402
from exactmark.kit.bundle import write_all  # noqa: E402
from exactmark.kit.cases import ROOT, load_cases  # noqa: E402

TIMEOUT = 600
CHECKOUT = Path(__file__).resolve().parents[1]
CHECKOUT_PACKAGE = {**os.environ, "PYTHONPATH": str(CHECKOUT)}  # a worker's exactmark
MARKED = ["seed_0", "seed_27"]
ASSIGNMENT = """title = "A class on Dask"
marks = 10
cpu_seconds = 30

[[programs]]
name = "solitaire_1"
kit_only = {kit_only}

  [[programs.groups]]
  name = "shown"
  marks = 10
  cases = {marked}
  visibility = "visible"
"""
# The sleeper: the right program, which first sleeps in short naps for NAPS * NAP seconds a
# case, working for WORK seconds of CPU after each (0.2 s in any 5 s: far above the 0.02 s
# below which the marker's idle limit would stop it as waiting, not working).
NAPS, NAP, WORK = 40, 0.25, 0.01
SLEEPS = ("def main() -> None:\n"
          "    import time\n"
          f"    for _ in range({NAPS}):\n"
          f"        time.sleep({NAP})\n"
          "        begun = time.process_time()\n"
          f"        while time.process_time() - begun < {WORK}:\n"
          "            pass\n")
# What a class run writes that must be the same whatever engine marked it.
SAME = ("grades.csv", "similarity.csv", "summary.html", "students")
AS_OF = "2027-03-01T09:00"
# How long the test waits for a cluster to come up, a job to start: counts of POLL.
POLL = 0.2
POLLS = 600  # 120 s of waiting at most, whatever the machine's load


def wait_for(condition, what: str):
    for _ in range(POLLS):
        found = condition()
        if found:
            return found
        time.sleep(POLL)
    raise AssertionError(f"never came: {what}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def assignment_file(folder: Path) -> Path:
    path = folder / "dask_class.toml"
    others = [case.name for case in load_cases("solitaire_1") if case.name not in MARKED]
    path.write_text(ASSIGNMENT.format(kit_only=json.dumps(others), marked=json.dumps(MARKED)),
                    encoding="utf-8")
    return path


def hand_in(folder: Path, sleeper: bool = False) -> Path:
    solutions, klass = folder / "solutions", folder / "class"
    write_all(solutions)
    right = (solutions / "solitaire_1.py").read_text(encoding="utf-8")
    entries = {"ann": right, "bob": right.replace('"Eighth"', '"Eigth"'),
               "dee": right.replace("def main() -> None:\n",
                                    "def main() -> None:\n    # my own words\n")}
    if sleeper:
        entries["sam"] = right.replace("def main() -> None:\n", SLEEPS)
    for student, text in entries.items():
        (klass / student).mkdir(parents=True)
        (klass / student / "solitaire_1.py").write_text(text, encoding="utf-8")
    (klass / "notes.txt").write_text("not a submission\n", encoding="utf-8")
    return klass


def class_run(klass: Path, assignment: Path, out: Path, *options) -> list:
    """`exactmark class`'s command line, as of AS_OF (the pages say when they were written)."""
    return [sys.executable, "-m", "exactmark", "class", str(klass), "--assignment",
            str(assignment), "--out", str(out), "--jobs", "2", "--as-of", AS_OF,
            *map(str, options)]


def mark_class(klass: Path, assignment: Path, out: Path, *options):
    return subprocess.run(class_run(klass, assignment, out, *options), cwd=ROOT,
                          capture_output=True, text=True, timeout=TIMEOUT)


def written(out: Path) -> dict:
    """Each file of SAME under `out`, by its path there: its bytes."""
    found = {}
    for name in SAME:
        path = out / name
        paths = sorted(path.rglob("*")) if path.is_dir() else [path]
        found.update({str(each.relative_to(out)): each.read_bytes()
                      for each in paths if each.is_file()})
    return found


def assert_same(out: Path, local: dict, said: str):
    """`out` holds what the local run wrote, byte for byte; a difference is named."""
    there = written(out)
    assert sorted(there) == sorted(local), said
    differ = [name for name in local if there[name] != local[name]]
    assert not differ, f"{said}: differ from the local run: {differ}\n" + "".join(
        line for name in differ[:2] for line in difflib.unified_diff(
            local[name].decode(errors="replace").splitlines(keepends=True),
            there[name].decode(errors="replace").splitlines(keepends=True),
            f"local/{name}", f"{said}/{name}", n=0))


def grades(out: Path) -> dict:
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """The class, its assignment, and what the local engine wrote of it."""
    root = tmp_path_factory.mktemp("dask_class")
    assignment, klass = assignment_file(root), hand_in(root)
    done = mark_class(klass, assignment, root / "local")
    assert done.returncode == 0, done.stderr
    rows = grades(root / "local")
    assert {name: row["status"] for name, row in rows.items()} == {
        "ann": "marked", "bob": "marked", "dee": "marked", "notes.txt": "refused"}
    assert rows["ann"]["mark"] == rows["dee"]["mark"] == "10.00" and rows["bob"]["mark"] != "10.00"
    return root, klass, assignment, written(root / "local")


class Cluster:
    """A `dask scheduler` on 127.0.0.1 (no dashboard) and workers joined to it, each in a
    process group of its own, all stopped at the end whatever happens."""

    def __init__(self, folder: Path):
        self.folder, self.processes = folder, []
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.start([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                    "--port", self.address.rsplit(":", 1)[1], "--no-dashboard"], "scheduler")
        self.client = wait_for(self.connect, f"the scheduler at {self.address}")

    def start(self, command: list, name: str, env=None) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "wb")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=self.folder,
                                   env=env, start_new_session=True)
        log.close()
        self.processes.append(process)
        return process

    def connect(self):
        try:
            return distributed.Client(self.address, timeout=2, set_as_default=False)
        except OSError:
            return None

    def worker(self, name: str, env=None, slots: bool = True) -> None:
        """One more worker, `exactmark dask-worker` (or a plain `dask worker` without the
        slots resource); back once the scheduler has it."""
        before = len(self.client.scheduler_info(n_workers=-1)["workers"])
        command = ([sys.executable, "-m", "exactmark", "dask-worker", self.address] if slots else
                   [sys.executable, "-m", "dask", "worker", self.address, "--no-dashboard",
                    "--nthreads", "1"])
        process = self.start([*command, "--name", name], name, env=env or CHECKOUT_PACKAGE)

        def joined():
            assert process.poll() is None, (self.folder / f"{name}.log").read_text()
            return len(self.client.scheduler_info(n_workers=-1)["workers"]) > before
        wait_for(joined, f"worker {name} joining")

    def pid_running(self, student: str) -> int:
        """The process id of the worker running `student`'s job (the key the engine
        gives it: exactmark-STUDENT-TRY), once it has started."""
        def running():
            for address, keys in self.client.processing().items():
                if any(str(key).startswith(f"exactmark-{student}-") for key in keys):
                    executing = self.client.run(lambda dask_worker: [
                        str(task.key) for task in dask_worker.state.executing], workers=[address])
                    if any(key.startswith(f"exactmark-{student}-")
                           for key in executing.get(address, [])):
                        return self.client.run(os.getpid, workers=[address])[address]
            return None
        return wait_for(running, f"{student}'s job running on a worker")

    def stop(self) -> None:
        self.client.close()
        for process in reversed(self.processes):
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture
def cluster(tmp_path):
    running = Cluster(tmp_path)
    try:
        yield running
    finally:
        running.stop()


def test_dask_local_with_two_workers_writes_what_the_local_run_wrote(klass, tmp_path):
    _, students, assignment, local = klass
    done = mark_class(students, assignment, tmp_path / "out", "--engine", "dask-local",
                      "--workers", "2")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert_same(tmp_path / "out", local, "--engine dask-local --workers 2")


def test_a_scheduler_and_two_workers_on_loopback_write_what_the_local_run_wrote(klass, cluster,
                                                                                tmp_path):
    _, students, assignment, local = klass
    cluster.worker("one")
    cluster.worker("two")
    done = mark_class(students, assignment, tmp_path / "out", "--engine", "dask",
                      "--scheduler", cluster.address)
    assert done.returncode == 0, done.stderr
    assert_same(tmp_path / "out", local, "--engine dask, two workers")
    workers = cluster.client.scheduler_info(n_workers=-1)["workers"].values()
    assert all(worker["resources"] == {"slots": 2} for worker in workers), workers


def test_a_worker_killed_in_the_middle_of_a_student_gets_the_student_marked_once(cluster,
                                                                                 tmp_path):
    """sam's program naps NAPS * NAP = 10 s a case: the worker running sam is SIGKILLed
    while sam's job runs there; the other worker (or the one its nanny starts again) marks
    sam; sam's row is there once, marked in full."""
    assignment, students = assignment_file(tmp_path), hand_in(tmp_path, sleeper=True)
    cluster.worker("one")
    cluster.worker("two")
    run = subprocess.Popen(class_run(students, assignment, tmp_path / "out", "--engine", "dask",
                                     "--scheduler", cluster.address),
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        os.kill(cluster.pid_running("sam"), signal.SIGKILL)
        _, stderr = run.communicate(timeout=TIMEOUT)
    finally:
        run.kill()
        run.wait()
    assert run.returncode == 0, stderr
    with open(tmp_path / "out" / "grades.csv", newline="", encoding="utf-8") as file:
        rows = [row for row in csv.DictReader(file) if row["student"] == "sam"]
    assert [(row["status"], row["mark"]) for row in rows] == [("marked", "10.00")], rows


def changed_kit(folder: Path) -> Path:
    """A copy of the exactmark package with one byte changed (a comment's letter)."""
    copy = folder / "other_kit"
    shutil.copytree(CHECKOUT / "exactmark", copy / "exactmark",
                    ignore=shutil.ignore_patterns("__pycache__"))
    mark = copy / "exactmark" / "marking" / "mark.py"
    text = mark.read_text(encoding="utf-8")
    at = text.index("#") + 2
    mark.write_text(text[:at] + ("x" if text[at] != "x" else "y") + text[at + 1:],
                    encoding="utf-8")
    return copy


def test_a_worker_at_another_kit_refuses_and_its_students_are_marked_by_the_other(
        klass, cluster, tmp_path):
    """Three workers: `right`; `other`, whose exactmark has one byte changed (its PYTHONPATH),
    which refuses with its sentence; `plain`, a `dask worker` started by hand without the
    slots resource, said to get no student and how to start it. The class is marked by
    `right` alone, as the local run marked it."""
    _, students, assignment, local = klass
    cluster.worker("right")
    cluster.worker("other", env={**os.environ, "PYTHONPATH": str(changed_kit(tmp_path))})
    cluster.worker("plain", slots=False)
    done = mark_class(students, assignment, tmp_path / "out", "--engine", "dask",
                      "--scheduler", cluster.address)
    assert done.returncode == 0, done.stderr
    refused = [line for line in done.stderr.splitlines() if " refused: its kit is at commit " in line]
    assert len(refused) == 1 and f"worker {socket.gethostname()} refused" in refused[0], done.stderr
    assert "has no `slots` resource, so it is given no student: start it with exactmark " \
           f"dask-worker {cluster.address}" in done.stderr, done.stderr
    assert_same(tmp_path / "out", local, "--engine dask, a refusing worker")


def test_a_plain_tcp_scheduler_off_this_machine_is_refused_saying_how(klass, tmp_path):
    _, students, assignment, _ = klass
    done = mark_class(students, assignment, tmp_path / "out", "--engine", "dask",
                      "--scheduler", "tcp://192.0.2.7:8786")
    assert done.returncode == 2
    said = [line for line in done.stderr.splitlines() if line.startswith("exactmark class: error:")]
    assert said == ["exactmark class: error: " + dask_engine.PLAIN_OFF_LOOPBACK.format(
        address="tcp://192.0.2.7:8786")], done.stderr


def test_a_scheduler_that_does_not_answer_is_said_in_one_line(klass, tmp_path):
    _, students, assignment, _ = klass
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    done = mark_class(students, assignment, tmp_path / "out", "--engine", "dask",
                      "--scheduler", address)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("exactmark class: error:")]
    assert len(said) == 1 and said[0].startswith(
        f"exactmark class: error: no Dask scheduler answered at {address} within "
        f"{dask_engine.CONNECT_SECONDS} s"), done.stderr


@pytest.mark.parametrize("address, tls, said", [
    ("tcp://10.0.0.5:8786", (None, None, None), "over plain tcp://"),
    ("10.0.0.5:8786", (None, None, None), "over plain tcp://"),
    ("tls://lab1:8786", (None, None, None), "needs this coordinator's certificate"),
    ("tls://127.0.0.1:8786", ("ca.pem", None, None), "needs this coordinator's certificate"),
    ("ws://127.0.0.1:8786", (None, None, None), "is not a Dask address"),
    ("tcp://127.0.0.1:notaport", (None, None, None), "is not a Dask address"),
])
def test_an_address_the_engine_cannot_use_safely_is_refused(address, tls, said):
    with pytest.raises(EngineError, match=said):
        dask_engine.checked_address(address, tls)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "localhost:8786", "tcp://[::1]:8786",
                                     "tls://lab1:8786"])
def test_loopback_or_tls_with_certificates_is_taken(address):
    tls = ("ca.pem", "me.pem", "me.key")
    assert dask_engine.checked_address(address, tls).split("://")[1] == address.split("://")[-1]


@pytest.mark.parametrize("cores, gib, slots", [
    (8, 6, 6),    # min(8 cores, 6 GiB // 1 GiB) = 6
    (2, 16, 2),   # min(2, 16) = 2
    (4, 4.5, 4),  # min(4, 4.5 GiB // 1 GiB = 4) = 4
])
def test_dask_worker_takes_a_student_a_core_within_its_memory(cores, gib, slots):
    options = dask_engine.worker_parser().parse_args(
        ["tls://lab1:8786", "--tls-ca", "ca.pem", "--tls-cert", "w.pem", "--tls-key", "w.key"])
    command = dask_engine.worker_command(options, cores, int(gib * (1 << 30)))
    assert command[command.index("--nthreads") + 1] == str(slots)
    assert command[command.index("--resources") + 1] == f"slots={slots}"
    assert "--no-dashboard" in command and command[command.index("--tls-ca-file") + 1] == "ca.pem"


def test_dask_worker_with_less_memory_than_a_student_is_refused(tmp_path):
    options = dask_engine.worker_parser().parse_args(["tcp://127.0.0.1:8786"])
    with pytest.raises(EngineError, match="less than one student's marking may hold"):
        dask_engine.worker_command(options, 4, (1 << 30) - 1)
