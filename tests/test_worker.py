"""The worker (exactmark/distributed/worker.py), the same on every engine: the checks it makes
before its first student and the sentence each refusal says, the result archive it
returns, the kit it unpacks (and refuses when it is not one), and its marker stopped when
the process that started it dies."""

import hashlib
import io
import json
import signal
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from exactmark import cli
from exactmark.distributed import identity, jobs, worker
from exactmark.distributed.shipment import KIT_FILE, tar_bytes
from exactmark.kit.cases import ROOT
from tests.test_class_engines import run_class, tiny_assignment, tiny_class

BACKSTOP_SECONDS = 300  # only a fault waits so long


def a_job(**changes) -> dict:
    """What a job says of the coordinator, as the worker compares it."""
    job = {"job": "ann", "assignment": "tiny", "kit": identity.kit_identity(),
           "fingerprint": "ab" * 32, "python": "3.11.7", "bwrap": "0.8.0",
           "reference_cpu": None, "options": {"require": []}}
    job.update(changes)
    return job


def facts(**host) -> dict:
    """What a worker found of itself and its kit (identity.facts_of)."""
    return {"kit": identity.kit_identity(), "fingerprint": "ab" * 32, "cpu_seconds": None,
            "host": {"host": "lab3", "cpu": "Lab CPU", "python": "3.11.7", "bwrap": "0.8.0",
                     "layers": ["namespaces (bubblewrap)"], "fallback": False, "sandbox": "",
                     "has": {"network-off": True, "files-hidden": True, "own-user": True,
                             "cgroup": True}, **host}}


def refusal(job: dict, found: dict, allow_fallback=False, host_margin=None) -> str:
    with pytest.raises(worker.WorkerRefused) as refused:
        worker.check(job, found, allow_fallback, host_margin)
    return str(refused.value)


def test_a_worker_like_the_coordinator_marks():
    worker.check(a_job(), facts(), False, None)


def test_a_worker_refuses_bubblewrap_python_and_a_layer_that_differ():
    assert refusal(a_job(bwrap="0.6.1"), facts()) == \
        "worker lab3 refused: bubblewrap 0.8.0 there, 0.6.1 here"
    assert refusal(a_job(python="3.11.2"), facts()) == \
        "worker lab3 refused: Python 3.11.7 there, 3.11.2 here"
    assert refusal(a_job(options={"require": ["files-hidden"]}),
                   facts(has={"files-hidden": False})) == \
        "worker lab3 refused: it cannot give each run files-hidden, which this marking requires"


def test_a_worker_refuses_the_fallback_unless_allowed():
    fallback = facts(fallback=True, layers=["fallback (no user namespaces)"])
    assert refusal(a_job(), fallback) == (
        "worker lab3 refused: it would mark in the fallback sandbox (fallback (no user "
        "namespaces)); give --allow-fallback to let it")
    worker.check(a_job(), fallback, True, None)


def test_a_worker_refuses_another_kit_and_another_assignment():
    other = {"commit": "1a2b3c4" + "0" * 33, "digest": "5f" * 32}
    found = facts()
    found["kit"] = other
    here = identity.kit_identity()
    assert refusal(a_job(), found) == (
        f"worker lab3 refused: its kit is at commit 1a2b3c4 (digest 5f5f5f5f5f5f), the "
        f"coordinator's at {here['commit'][:7]} (digest {here['digest'][:12]}): install the "
        "coordinator's kit there")
    assert refusal(a_job(fingerprint="cd" * 32), facts()) == (
        "worker lab3 refused: its assignment tiny is not the coordinator's (fingerprint "
        "abababababab, the coordinator's cdcdcdcdcdcd): send it the coordinator's kit")


def test_a_worker_whose_reference_cpu_time_is_past_the_margin_refuses():
    """Here 2.95 s, there 4.10 s: (4.10 - 2.95) / 2.95 = 39% more, past 25%; 3.60 s is 22%
    more, within it."""
    assert refusal(a_job(reference_cpu=2.95), facts() | {"cpu_seconds": 4.10},
                   host_margin=0.25) == (
        "worker lab3 refused: the reference's cases took 4.10 s of CPU there, 2.95 s here "
        "(39% more, --host-margin 25%)")
    worker.check(a_job(reference_cpu=2.95), facts() | {"cpu_seconds": 3.60}, False, 0.25)


def test_the_worker_checks_the_libraries_the_mark_command_checks():
    assert worker.LIBRARIES == cli.MARK_LIBRARIES


def test_a_worker_lacking_a_library_names_it_and_the_pip_command(monkeypatch):
    monkeypatch.setattr(worker, "LIBRARIES", ("jsonschema", "no_such_library_here"))
    with pytest.raises(worker.WorkerRefused) as refused:
        worker.missing()
    assert str(refused.value) == (
        f"worker {socket.gethostname()} refused: it lacks no_such_library_here for "
        f"{sys.executable}: {sys.executable} -m pip install no_such_library_here")


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    """A tiny class planned: its kit and jobs (ann right, bob wrong, dee ann's copy)."""
    root = tmp_path_factory.mktemp("worker")
    klass, assignment = tiny_class(root), tiny_assignment(root)
    plan = root / "plan"
    run_class(klass, assignment, root / "out", "--plan-only", str(plan))
    return root, plan, next(plan.glob("kit-*.tar.gz"))


def test_a_result_holds_what_the_marker_gave_and_who_marked(planned, tmp_path):
    _, plan, kit = planned
    unpacked = worker.unpack_kit(kit, tmp_path / "cache")
    result = worker.mark_job((plan / "jobs" / "bob.tar.gz").read_bytes(), unpacked,
                             cache=tmp_path / "cache")
    with tarfile.open(fileobj=io.BytesIO(result), mode="r:gz") as archive:
        names = sorted(archive.getnames())
        said = json.loads(archive.extractfile(jobs.RESULT_FILE).read())
        marked = json.loads(archive.extractfile(jobs.MARKED).read())
        report = archive.extractfile(jobs.REPORT).read().decode()
    assert names == sorted([jobs.MARKED, jobs.REPORT, jobs.RESULT_FILE])
    assert said["job"] == "bob" and said["status"] == 1 and said["refusal"] is None  # failed
    assert said["progress"] == 3  # 3 cases
    assert said["worker"]["host"] == socket.gethostname()
    assert said["kit"] == identity.kit_identity()
    assert marked["score"] == 3.0 and "Score: 3.00/4.00" in report


def test_a_worker_times_the_reference_as_the_coordinator_did(planned, tmp_path, monkeypatch):
    """A plan for other machines carries the coordinator's CPU seconds for the reference's
    cases; a worker on another machine (this one, as another boot would name it) given a
    margin times them too (once: its facts are cached) and marks within it. The margin here
    is 10000%: this test is not about the figures, which a busy machine moves."""
    monkeypatch.setattr(identity, "machine_id", lambda: "another machine")
    _, plan, kit = planned
    with tarfile.open(plan / "jobs" / "ann.tar.gz", mode="r:gz") as archive:
        assert json.loads(archive.extractfile(jobs.JOB_FILE).read())["reference_cpu"] > 0
    unpacked = worker.unpack_kit(kit, tmp_path / "cache")
    worker.mark_job((plan / "jobs" / "ann.tar.gz").read_bytes(), unpacked, host_margin=100.0,
                    cache=tmp_path / "cache")
    cached = [json.loads(path.read_text()) for path in (tmp_path / "cache").glob("facts-*.json")]
    assert [found["cpu_seconds"] > 0 for found in cached] == [True]


def test_a_kit_is_unpacked_once_and_refused_when_its_name_is_not_its_digest(planned, tmp_path):
    _, _, kit = planned
    first = worker.unpack_kit(kit, tmp_path / "cache")
    assert first.name == kit.name[:-len(".tar.gz")] and (first / KIT_FILE).is_file()
    (first / "seen").write_text("")
    assert worker.unpack_kit(kit, tmp_path / "cache") == first and (first / "seen").exists()
    renamed = tmp_path / f"kit-{'0' * 64}.tar.gz"
    renamed.write_bytes(kit.read_bytes())
    with pytest.raises(ValueError, match="its bytes"):
        worker.unpack_kit(renamed, tmp_path / "cache")


def test_a_kit_that_climbs_out_is_refused(tmp_path):
    data = tar_bytes({"../evil.py": (b"", 0o100644), KIT_FILE: (b"{}", 0o100644)})
    kit = tmp_path / f"kit-{hashlib.sha256(data).hexdigest()}.tar.gz"
    kit.write_bytes(data)
    with pytest.raises(ValueError, match="climbs out"):
        worker.unpack_kit(kit, tmp_path / "cache")
    assert not (tmp_path / "evil.py").exists() and not (tmp_path / "cache" / "evil.py").exists()


def test_a_worker_whose_kit_was_changed_refuses_in_one_line_and_writes_nothing(planned, tmp_path):
    """A byte of the marker changed in the unpacked kit: exit status 3, its sentence alone on
    stderr, nothing on stdout."""
    _, plan, kit = planned
    unpacked = worker.unpack_kit(kit, tmp_path / "cache")
    marker = unpacked / "exactmark" / "marking" / "mark.py"
    marker.write_text(marker.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "exactmark", "mark-one", "--kit", str(kit),
                           "--cache", str(tmp_path / "cache")],
                          input=(plan / "jobs" / "ann.tar.gz").read_bytes(), cwd=ROOT,
                          capture_output=True, timeout=600)
    assert done.returncode == worker.REFUSED_STATUS and done.stdout == b""
    said = done.stderr.decode().splitlines()
    assert len(said) == 1 and said[0].startswith(f"worker {socket.gethostname()} refused: its "
                                                 "kit is at commit"), said


LOOPS = "while True:\n    pass\n"


def test_a_worker_whose_parent_dies_stops_its_marker(tmp_path):
    """The worker's parent killed (SIGKILL) while a student's program loops: the worker and
    its marker end. Margin: the program's CPU limit is 300 s, its run would end there; the
    test waits at most BACKSTOP_SECONDS of wall time, and asks that they end before the
    program has used its limit (the marker would not end before)."""
    klass = tmp_path / "class"
    (klass / "loop").mkdir(parents=True)
    (klass / "loop" / "solitaire_1.py").write_text(LOOPS, encoding="utf-8")
    plan = tmp_path / "plan"
    run_class(klass, tiny_assignment(tmp_path, cpu=300), tmp_path / "out", "--plan-only",
              str(plan))
    kit = next(plan.glob("kit-*.tar.gz"))
    parent = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys\n"
         "worker = subprocess.Popen(sys.argv[1:-1], stdin=open(sys.argv[-1], 'rb'), "
         "stdout=subprocess.DEVNULL)\nprint(worker.pid, flush=True)\nworker.wait()\n",
         sys.executable, "-m", "exactmark.distributed.worker", "--kit", str(kit), "--cache",
         str(tmp_path / "cache"), str(plan / "jobs" / "loop.tar.gz")],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    pid = int(parent.stdout.readline())
    backstop = time.monotonic() + BACKSTOP_SECONDS
    while not looping(pid):
        assert time.monotonic() < backstop, "the student's program never ran"
        time.sleep(0.2)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    while alive(pid):
        assert time.monotonic() < backstop, "the worker outlived its parent"
        time.sleep(0.2)
    assert not looping(pid)


def descendants(pid: int) -> list:
    found, queue = [], [pid]
    while queue:
        try:
            children = Path(f"/proc/{queue.pop()}/task").glob("*/children")
            for path in children:
                for child in path.read_text().split():
                    found.append(int(child))
                    queue.append(int(child))
        except OSError:
            pass
    return found


def looping(pid: int) -> bool:
    """Whether a descendant of `pid` runs the student's program (python3 solitaire_1.py)."""
    for child in descendants(pid):
        try:
            if b"solitaire_1.py" in Path(f"/proc/{child}/cmdline").read_bytes():
                return True
        except OSError:
            pass
    return False


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("text, fraction", [("25", 0.25), ("0", 0.0), ("150", 1.5)])
def test_mark_one_takes_the_host_margin_in_percent_as_the_class_run_does(text, fraction):
    assert worker.percentage(text) == fraction


@pytest.mark.parametrize("text", ["-5", "abc", "nan", "inf"])
def test_a_host_margin_that_is_no_percentage_is_refused_in_one_line(text, capsys):
    with pytest.raises(SystemExit) as stopped:
        worker.main(["--kit", "kit.tar.gz", "--host-margin", text])
    assert stopped.value.code == 2
    assert worker.BAD_PERCENTAGE in capsys.readouterr().err


def test_a_worker_on_the_coordinator_s_machine_is_not_timed_against_it():
    """dask-local's workers and parallel's ':' slots run where the coordinator timed the
    reference: the same CPU, whose two timings differ only by the load of the moment. A
    job from another machine (another boot) is compared as ever."""
    here = identity.machine_id()
    worker.check(a_job(reference_cpu=2.95, machine=here), facts() | {"cpu_seconds": 4.10},
                 False, 0.25)
    assert refusal(a_job(reference_cpu=2.95, machine=here + "-elsewhere"),
                   facts() | {"cpu_seconds": 4.10}, host_margin=0.25).endswith(
        "(39% more, --host-margin 25%)")
