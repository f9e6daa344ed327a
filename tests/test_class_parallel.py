"""GNU parallel's engine (--engine parallel, exactmark/distributed/parallel_engine.py), as
examples, on loopback only: hosts are this machine, as ":" slots or through an ssh stand-in
(tests/ssh_standin.py) that runs each command here in the host's own home folder. A class
of three (right, wrong, a folder named with a space, an accent and a quote) marked through
the engine gives the sheet, the pages and the similarity scan of the local run, byte for
byte: on two local slots, on two hosts, on a dead host, a host whose power is cut in the
middle of a student and a good one, and beside a host that refuses. A job that kills its
worker on two hosts is lost, naming them; parallel not installed is one line.

The class is planned once (`exactmark class --plan-only`), each test's engine marks the
jobs into its own copy of the plan, and `--collect` writes what a run would."""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

from exactmark.distributed import parallel_engine, worker
from exactmark.distributed.engine import EngineError, Events, Job, Work
from exactmark.distributed.parallel_engine import Hosts, ParallelEngine
from exactmark.kit.bundle import write_all
from exactmark.kit.cases import ROOT, load_cases

IN_CI = bool(os.environ.get("KIT_CI"))  # .ci/run installs parallel: nothing skips there
needs_parallel = pytest.mark.skipif(shutil.which("parallel") is None and not IN_CI,
                                    reason="GNU parallel is not installed: apt-get install parallel")
STANDIN = Path(__file__).parent / "ssh_standin.py"
STUDENTS = ("ann", "bob", "cé l'x")  # right; "Eigth" for "Eighth"; a name to quote
SHOWN = {"solitaire_1": ["seed_0", "seed_27"], "solitaire_2": ["seed_0_full"]}
ASSIGNMENT = """title = "The parallel engine's test"
marks = 10
cpu_seconds = 30

[[programs]]
name = "solitaire_1"
kit_only = {kit_only_1}

  [[programs.groups]]
  name = "shown"
  marks = 8
  cases = ["seed_0", "seed_27"]
  visibility = "visible"

[[programs]]
name = "solitaire_2"
kit_only = {kit_only_2}

  [[programs.groups]]
  name = "one game"
  marks = 2
  cases = ["seed_0_full"]
  visibility = "visible"
"""


def exactmark_class(*arguments, env=None):
    return subprocess.run([sys.executable, "-m", "exactmark", "class", *map(str, arguments)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)


def others(program: str) -> str:
    return str([case.name for case in load_cases(program) if case.name not in SHOWN[program]]
               ).replace("'", '"')


@pytest.fixture(autouse=True)
def no_shell_said(monkeypatch):
    """No SHELL in the coordinator's environment, as under CI's `bash .ci/run`: the hosts'
    come from their logins (the stand-in sets it as sshd does), parallel's from the engine."""
    monkeypatch.delenv("SHELL", raising=False)


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    """(the class, its assignment, the local run's OUT, the plan): the class marked by
    the local engine, and planned (jobs and kit, nothing marked) for the engines."""
    root = tmp_path_factory.mktemp("parallel")
    solutions, klass = root / "solutions", root / "class"
    write_all(solutions)
    for student in STUDENTS:
        (klass / student).mkdir(parents=True)
        for program in SHOWN:
            text = (solutions / f"{program}.py").read_text(encoding="utf-8")
            if student == "bob" and program == "solitaire_1":
                text = text.replace('"Eighth"', '"Eigth"')
            (klass / student / f"{program}.py").write_text(text, encoding="utf-8")
    assignment = root / "parallel_test.toml"
    assignment.write_text(ASSIGNMENT.format(kit_only_1=others("solitaire_1"),
                                            kit_only_2=others("solitaire_2")), encoding="utf-8")
    local = exactmark_class(klass, "--assignment", assignment, "--out", root / "local")
    assert local.returncode == 0, local.stderr
    plan = exactmark_class(klass, "--assignment", assignment, "--out", root / "unused",
                           "--plan-only", root / "plan")
    assert plan.returncode == 0, plan.stderr
    return klass, assignment, root / "local", root / "plan"


def host_folders(root: Path, hosts: dict) -> Path:
    """A home folder for each host that answers, its python3 the Python named."""
    for host, python in hosts.items():
        (root / host / "bin").mkdir(parents=True)
        (root / host / "bin" / "python3").write_text(f'#!/bin/sh\nexec {python} "$@"\n')
        (root / host / "bin" / "python3").chmod(0o755)
    return root


def hosts_file(path: Path, lines: list) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def through_standin(root: Path, host: str, slots: int = 1) -> str:
    """A hosts file's line for `host` reached through the ssh stand-in."""
    return f"{slots}/{sys.executable} {STANDIN} --root {root} {host}"


def engine_run(planned, tmp_path: Path, hosts: list, events=None, python=None,
               only: int = None) -> tuple:
    """The plan's jobs (its first `only`) marked by the engine on `hosts` (a hosts file's
    lines), into a copy of the plan: (the Work, the events)."""
    mine = tmp_path / "plan"
    shutil.copytree(planned[3], mine)
    jobs = [Job(path.name[:-len(".tar.gz")], path) for path in sorted((mine / "jobs").glob("*"))]
    work = Work(next(mine.glob("kit-*.tar.gz")), jobs[:only], mine / "results")
    events = events or Events()
    options = argparse.Namespace(hosts=hosts_file(tmp_path / "hosts", hosts),
                                 worker_python=python or sys.executable, out=tmp_path / "out")
    ParallelEngine(options).run(work, events)
    return work, events


def mark(planned, tmp_path: Path, hosts: list, events=None, python=None) -> tuple:
    """The plan's jobs marked by the engine on `hosts`, then collected: (the events, the
    OUT written, the collect's run)."""
    klass, assignment, _, _ = planned
    work, events = engine_run(planned, tmp_path, hosts, events, python)
    collected = exactmark_class(klass, "--assignment", assignment, "--out", tmp_path / "out",
                                "--collect", work.results.parent)
    return events, tmp_path / "out", collected


def same_as_local(local: Path, out: Path) -> None:
    """grades.csv, every student's pages and similarity.csv: byte for byte the local run's."""
    for name in ("grades.csv", "similarity.csv"):
        assert (out / name).read_bytes() == (local / name).read_bytes(), name
    pages = sorted(path.relative_to(local) for path in (local / "students").rglob("*")
                   if path.is_file())
    assert pages == sorted(path.relative_to(out) for path in (out / "students").rglob("*")
                           if path.is_file())
    for page in pages:
        assert (out / page).read_bytes() == (local / page).read_bytes(), page


def delivered_once(events: Events, planned) -> None:
    names = sorted(path.name[:-len(".tar.gz")] for path in (planned[3] / "jobs").iterdir())
    assert sorted(job for job, _ in events.told("delivered")) == names
    assert events.told("lost") == []


@needs_parallel
def test_two_local_slots_give_the_local_run_s_sheet_pages_and_similarity(planned, tmp_path):
    """The worker's Python named by a path with a space, a quote and an accent: quoted
    wherever it goes."""
    python = tmp_path / "l'été des pythons" / "python 3"
    python.parent.mkdir()
    python.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    events, out, collected = mark(planned, tmp_path, ["2/:"], python=python)
    assert collected.returncode == 0, collected.stderr
    delivered_once(events, planned)
    same_as_local(planned[2], out)
    log = (out / "instructor" / ".engine" / "joblog").read_text().splitlines()
    assert log[0].split("\t")[:2] == ["Seq", "Host"]
    assert sorted(line.split("\t")[6] for line in log[1:]) == ["0", "0", "0"]  # exit statuses


@needs_parallel
def test_two_hosts_over_the_ssh_standin_give_the_same_rows(planned, tmp_path):
    root = host_folders(tmp_path / "hosts-root", {"lab1": sys.executable, "lab2": sys.executable})
    events, out, collected = mark(planned, tmp_path, [through_standin(root, "lab1"),
                                                      through_standin(root, "lab2")],
                                  python="python3")
    assert collected.returncode == 0, collected.stderr
    delivered_once(events, planned)
    assert {host for _, host in events.told("started")} == {"lab1", "lab2"}
    same_as_local(planned[2], out)
    assert not list((root / "lab1" / parallel_engine.WORKING).glob("*/job-*")), \
        "what was sent and returned is cleaned up"
    assert list((root / "lab1" / parallel_engine.WORKING / parallel_engine.KITS).glob("kit-*"))


@needs_parallel
def test_a_dead_host_and_a_power_cut_leave_their_students_to_the_good_host(planned, tmp_path):
    """dead never answers: left out from the start. cut's power goes in the middle of its
    first student (started, then the connection drops): that student is marked on good,
    once, and cut is left out from then on."""
    root = host_folders(tmp_path / "hosts-root", {"cut": sys.executable, "good": sys.executable})
    (root / "cut" / "POWER_CUT").touch()
    events, out, collected = mark(planned, tmp_path, [
        through_standin(root, "dead"), through_standin(root, "cut"),
        through_standin(root, "good")], python="python3")
    assert collected.returncode == 0, collected.stderr
    delivered_once(events, planned)
    cut = [job for job, host in events.told("started") if host == "cut"]
    assert len(cut) == 1 and (root / "cut" / "DOWN").exists()
    assert [host for job, host in events.told("started") if job == cut[0]] == ["cut", "good"]
    assert "dead" not in {host for _, host in events.told("started")}
    same_as_local(planned[2], out)


@needs_parallel
def test_a_host_that_refuses_is_said_and_its_students_are_marked_on_the_other(planned,
                                                                             tmp_path):
    """bare's python3 is one without the marker's libraries: a virtual environment of this
    Python with nothing installed."""
    venv.create(tmp_path / "bare", with_pip=False)
    bare = tmp_path / "bare" / "bin" / "python"
    root = host_folders(tmp_path / "hosts-root", {"bare": bare, "lab1": sys.executable})
    events, out, collected = mark(planned, tmp_path, [through_standin(root, "bare"),
                                                      through_standin(root, "lab1")],
                                  python="python3")
    assert collected.returncode == 0, collected.stderr
    delivered_once(events, planned)
    [(host, sentence)] = events.told("refused")
    pattern = re.escape(worker.LIBRARIES_MISSING).replace(r"\{python\}", re.escape(str(bare)))
    pattern = pattern.replace(r"\{names\}", "(?P<names>[a-z ]+)", 1).replace(r"\{names\}",
                                                                            "(?P=names)")
    said = re.fullmatch(r"worker \S+ refused: " + pattern, sentence)
    assert host == "bare" and said, sentence
    assert set(said["names"].split()) <= set(worker.LIBRARIES), sentence
    assert {host for job, host in events.told("started")} <= {"bare", "lab1"}
    same_as_local(planned[2], out)


@needs_parallel
def test_hosts_added_to_and_removed_from_the_hosts_file_while_it_runs(planned, tmp_path):
    """The file names lab1 alone; as lab1's first student starts, the instructor replaces
    it with lab2 (the stand-in edits the file, and that student waits until the engine's
    copy for parallel follows). lab2, added, marks students; every student is delivered once
    (whether lab1 took a second before parallel read the file again is parallel's timing)."""
    root = host_folders(tmp_path / "hosts-root", {"lab1": sys.executable, "lab2": sys.executable})
    (root / "lab1" / "REWRITE").write_text(json.dumps({
        "file": str(tmp_path / "hosts"), "lines": [through_standin(root, "lab2")],
        "copy": str(tmp_path / "plan" / "parallel" / "sshloginfile")}))
    work, events = engine_run(planned, tmp_path, [through_standin(root, "lab1")],
                              python="python3")
    started = events.told("started")  # parallel reads the new file when a job ends, at most
    assert started[0][1] == "lab1" and "lab2" in {host for _, host in started[1:]}  # once a s
    assert sorted(job for job, _ in events.told("delivered")) == \
        sorted(job.name for job in work.jobs)


@needs_parallel
def test_a_job_whose_worker_dies_on_two_hosts_is_lost_naming_them(planned, tmp_path):
    """One student, two hosts, each losing its power under the first student it starts:
    the student dies on cut1, is tried on cut2, dies again, and is lost naming both."""
    root = host_folders(tmp_path / "hosts-root", {"cut1": sys.executable, "cut2": sys.executable})
    for host in ("cut1", "cut2"):
        (root / host / "POWER_CUT").touch()
    work, events = engine_run(planned, tmp_path, [through_standin(root, "cut1"),
                                                  through_standin(root, "cut2")],
                              python="python3", only=1)
    [(job, hosts, why)] = events.told("lost")
    assert job == work.jobs[0].name and sorted(hosts) == ["cut1", "cut2"]
    assert why.startswith("marking this student killed its worker twice"), why
    assert events.told("delivered") == []


@needs_parallel
def test_a_stop_asked_for_stops_parallel_and_counts_no_death(planned, tmp_path):
    """Ctrl-C on the coordinator (events.stopping()) once the first result is in: the
    engine returns, nothing more is delivered, no job is lost; the next run's plan has the
    others (collected students are not planned again)."""
    class StopAfterOne(Events):
        def delivered(self, job, archive):
            super().delivered(job, archive)
            self.stop.set()

    work, events = engine_run(planned, tmp_path, ["1/:"], events=StopAfterOne())
    [(job, _)] = events.told("delivered")
    assert events.told("lost") == []
    assert [path.name for path in work.results.iterdir()] == [f"{job}.tar.gz"]


@needs_parallel
def test_a_host_without_the_worker_python_refuses_and_the_engine_says_so_in_one_line(
        planned, tmp_path):
    """The only host has no such Python: it refuses, its students cannot be marked, and
    the engine stops in one line naming the refusal."""
    missing = tmp_path / "no such" / "python 3"
    events = Events()
    with pytest.raises(EngineError) as stopped:
        engine_run(planned, tmp_path, ["1/:"], events=events, python=missing)
    [(host, sentence)] = events.told("refused")
    assert sentence.endswith(f" refused: it has no {missing}"), sentence
    assert str(stopped.value) == f"no host of {tmp_path / 'hosts'} is left to mark 3 " \
                                 f"student(s): {sentence}"


def test_parallel_not_installed_is_one_line_naming_the_package(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no parallel on it
    work = Work(tmp_path / "kit.tar.gz", [], tmp_path / "results")
    options = argparse.Namespace(hosts=tmp_path / "hosts", worker_python="python3", out=None)
    with pytest.raises(EngineError) as refused:
        ParallelEngine(options).run(work, Events())
    assert str(refused.value) == "GNU parallel is not installed here: apt-get install parallel"


def test_the_copy_parallel_reads_is_the_hosts_file_without_refused_or_silent_hosts(tmp_path):
    """Each copy's time is two seconds past the last (parallel re-reads a copy whose time
    moved by more than one); a host added to the file goes into the copy, one that refused
    never again, one whose connection dropped until it is asked again. Each host is in a
    hostgroup of its own (a job tried again goes to the groups of the others), beside the
    instructor's."""
    file = hosts_file(tmp_path / "hosts", ["# the lab", "4/lab3", "2/me@lab4", "", "lab6"])
    hosts = Hosts(file, tmp_path / "copy")
    assert hosts.read()
    hosts.write()
    assert (tmp_path / "copy").read_text() == "@h0/4/lab3\n@h1/2/me@lab4\n@h2/lab6\n"
    first = (tmp_path / "copy").stat().st_mtime
    assert hosts.refuse("me@lab4", "worker lab4 refused: bubblewrap 0.8.0 there, 0.6.1 here")
    assert not hosts.refuse("me@lab4", "said once")
    hosts.went_down("lab6")
    assert (tmp_path / "copy").read_text() == "@h0/4/lab3\n"
    assert (tmp_path / "copy").stat().st_mtime >= first + 2 + 2  # two copies written since
    assert not hosts.read()  # the file did not change
    hosts_file(file, ["4/lab3", "2/me@lab4", "@fast/8/lab5"])
    os.utime(file, (time.time() + 5, time.time() + 5))  # the same second, a new time
    assert hosts.read()
    hosts.write()
    assert (tmp_path / "copy").read_text() == "@h0/4/lab3\n@h3+fast/8/lab5\n"


@needs_parallel
def test_a_host_that_does_not_answer_is_left_out_and_said(tmp_path):
    """Asked with parallel itself (--nonall true): ":" answers, a stand-in host without a
    home folder does not; it is said once, until it is found silent again."""
    file = hosts_file(tmp_path / "hosts", ["1/:", through_standin(tmp_path, "gone")])
    hosts = Hosts(file, tmp_path / "copy")
    hosts.read()
    assert hosts.probe() == [f"{sys.executable} {STANDIN} --root {tmp_path} gone"]
    assert (tmp_path / "copy").read_text() == "@h0/1/:\n"
    assert hosts.probe() == []


@pytest.mark.parametrize("line, login, host", [
    ("lab3", "lab3", "lab3"),
    ("4/me@lab3.example.edu", "me@lab3.example.edu", "lab3.example.edu"),
    ("@lab+fast/8/ssh -p 2222 lab4", "ssh -p 2222 lab4", "lab4"),
    ("2//usr/bin/ssh -i key lab5", "/usr/bin/ssh -i key lab5", "lab5"),
])
def test_a_hosts_line_s_sshlogin_and_host_as_parallel_names_them(line, login, host):
    assert parallel_engine.sshlogin(line) == login
    assert parallel_engine.host_of(login) == host


def test_the_boot_has_no_brace_parallel_would_replace():
    """parallel replaces {}, {1}, {.} and the like in a command: the boot has no brace."""
    assert "{" not in parallel_engine.BOOT and "}" not in parallel_engine.BOOT


@needs_parallel
def test_the_citation_is_the_one_parallel_asks_for_and_said_only_where_it_would_be(
        tmp_path, monkeypatch):
    """parallel shows its notice on a terminal unless its will-cite file is there; so does
    the engine, with the citation parallel's own help gives."""
    help_text = subprocess.run(["parallel", "--help"], capture_output=True, text=True).stdout
    cited = parallel_engine.citation()
    assert cited != parallel_engine.CITATION_DEFAULT and " ".join(help_text.split()).find(
        cited) >= 0, cited
    monkeypatch.setenv("PARALLEL_HOME", str(tmp_path))
    assert not parallel_engine.will_cite()
    (tmp_path / "will-cite").touch()
    assert parallel_engine.will_cite()
