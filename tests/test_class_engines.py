"""A class run split into plan, mark one and collect (exactmark/distributed): the local engine
and the Slurm recipe's parts (--plan-only, `exactmark mark-one --share`, --collect) write the
same sheet, pages and similarity scan; collect takes each result once, refuses one of
another kit, names the hosts of a job that killed its workers, and the worker that marked a
student where it is not this machine; jobs start longest first."""

import csv
import io
import json
import socket
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from exactmark.classroom import mark_class
from exactmark.classroom.mark_class import Planned, longest_first
from exactmark.distributed import engine as engines, jobs, worker
from exactmark.distributed.engine import Engine
from exactmark.distributed.shipment import tar_bytes, write_atomically
from exactmark.kit.bundle import write_all
from exactmark.kit.cases import ROOT, load_cases

AS_OF = "2027-03-20T09:00:00+00:00"  # the pages as seen then, in every run
TINY = """title = "A tiny class"
marks = 4
cpu_seconds = {cpu}

[[programs]]
name = "solitaire_1"
kit_only = {kit_only_1}

  [[programs.groups]]
  name = "shown"
  marks = 2
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


def others(program, marked):
    return json.dumps([case.name for case in load_cases(program) if case.name not in marked])


def tiny_assignment(folder: Path, cpu: int = 30) -> Path:
    """Three cases: two of solitaire_1, one of solitaire_2 (a student marked in seconds)."""
    path = folder / "tiny.toml"
    path.write_text(TINY.format(cpu=cpu, kit_only_1=others("solitaire_1", ["seed_0", "seed_27"]),
                                kit_only_2=others("solitaire_2", ["seed_0_full"])),
                    encoding="utf-8")
    return path


def tiny_class(folder: Path) -> Path:
    """ann: right; bob: "Eigth" for "Eighth" (solitaire_1's cases fail); cy.txt: no
    submission (refused as an entry); dee: a copy of ann's, for the similarity scan."""
    solutions, klass = folder / "solutions", folder / "class"
    write_all(solutions)
    for student in ("ann", "bob", "dee"):
        (klass / student).mkdir(parents=True)
        for program in ("solitaire_1", "solitaire_2"):
            text = (solutions / f"{program}.py").read_text(encoding="utf-8")
            if student == "bob" and program == "solitaire_1":
                text = text.replace('"Eighth"', '"Eigth"')
            (klass / student / f"{program}.py").write_text(text, encoding="utf-8")
    (klass / "cy.txt").write_text("not a submission\n", encoding="utf-8")
    return klass


def run_class(klass, assignment, out, *options, check=True):
    done = subprocess.run([sys.executable, "-m", "exactmark", "class", str(klass), "--assignment",
                           str(assignment), "--out", str(out), "--jobs", "2", "--as-of", AS_OF,
                           *options], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert not check or done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done


def sheet(out):
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def written(out: Path) -> dict:
    """{path: bytes} of what a run writes for everyone to compare: the sheet, the
    similarity scan and every student's pages."""
    return {path.relative_to(out).as_posix(): path.read_bytes()
            for path in [out / "grades.csv", out / "similarity.csv",
                         *sorted((out / "students").rglob("*"))] if path.is_file()}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("engines")
    klass, assignment = tiny_class(root), tiny_assignment(root)
    out = root / "local"
    run_class(klass, assignment, out)
    return root, klass, assignment, out


def test_the_slurm_recipe_s_parts_write_what_the_local_engine_writes(local_run, tmp_path):
    """--plan-only, two shares of `exactmark mark-one`, --collect: the same sheet, pages and
    similarity scan, byte for byte, as the local engine's run."""
    _, klass, assignment, local = local_run
    plan, out = tmp_path / "plan", tmp_path / "out"
    planned = run_class(klass, assignment, out, "--plan-only", str(plan))
    assert sorted(path.name for path in (plan / "jobs").iterdir()) == [
        "ann.tar.gz", "bob.tar.gz", "dee.tar.gz"], planned.stdout  # cy.txt: refused at once
    assert not (out / "grades.csv").exists()
    for share in ("1/2", "2/2"):
        done = subprocess.run([sys.executable, "-m", "exactmark", "mark-one", "--share", share,
                               str(plan), "--cache", str(tmp_path / "cache")], cwd=ROOT,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0 and done.stdout == "", done.stderr
    assert sorted(path.name for path in (plan / "results").iterdir()) == [
        "ann.tar.gz", "bob.tar.gz", "dee.tar.gz"]
    run_class(klass, assignment, out, "--collect", str(plan))
    expected, found = written(local), written(out)
    assert sorted(found) == sorted(expected)
    for name in expected:
        assert found[name] == expected[name], name
    rows = sheet(out)
    assert [rows[name]["mark"] for name in ("ann", "bob", "cy.txt", "dee")] == [
        "4.00", "3.00", "0.00", "4.00"]


def test_a_broken_job_fails_alone_and_the_share_marks_its_others(local_run, tmp_path):
    """A job damaged on a shared disk (cut short) fails in a line naming it, with status 4;
    the share's other jobs are marked, and the next --collect names the student unmarked."""
    _, klass, assignment, _ = local_run
    plan, out = tmp_path / "plan", tmp_path / "out"
    run_class(klass, assignment, out, "--plan-only", str(plan), "--host-margin", "off")
    bob = plan / "jobs" / "bob.tar.gz"
    bob.write_bytes(bob.read_bytes()[:100])
    done = subprocess.run([sys.executable, "-m", "exactmark", "mark-one", "--share", "1/1",
                           str(plan), "--cache", str(tmp_path / "cache")], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 4, done.stderr
    assert "mark-one: bob.tar.gz: failed, the share's other jobs marked:" in done.stderr
    assert "2 marked, 0 already had a result, 1 failed, of 3" in done.stderr
    assert sorted(path.name for path in (plan / "results").iterdir()) == [
        "ann.tar.gz", "dee.tar.gz"]
    run_class(klass, assignment, out, "--collect", str(plan))
    rows = sheet(out)
    assert rows["ann"]["mark"] == "4.00" and rows["bob"]["mark"] == "not marked"


@pytest.mark.parametrize("options, said", [
    (["--collect", "{tmp}/nowhere"], "--collect {tmp}/nowhere: no plan there"),
    (["--engine", "dask"], "--engine dask needs --scheduler ADDRESS"),
    (["--engine", "dask", "--scheduler", "tcp://10.1.2.3:8786"], "over plain tcp://"),
    (["--engine", "parallel"], "--engine parallel needs --hosts FILE"),
    (["--engine", "parallel", "--hosts", "{tmp}/no-hosts.txt"], "no such file"),
])
def test_what_the_engine_or_the_plan_can_tell_at_once_is_said_before_any_planning(
        local_run, tmp_path, options, said):
    """A missing option or file stops the run in one line, exit status 2, before a student
    is copied: no OUT, no sheet of students "not marked", no folder made for --collect."""
    _, klass, assignment, _ = local_run
    out = tmp_path / "out"
    done = run_class(klass, assignment, out, *[part.format(tmp=tmp_path) for part in options],
                     check=False)
    errors = [line for line in done.stderr.splitlines() if line.startswith("exactmark class: error:")]
    assert done.returncode == 2 and len(errors) == 1, done.stderr
    assert said.format(tmp=tmp_path) in errors[0], done.stderr
    assert not out.exists() and not (tmp_path / "nowhere").exists()


def test_collect_refuses_a_plan_of_another_assignment(local_run, tmp_path):
    _, klass, assignment, _ = local_run
    plan = tmp_path / "plan"
    run_class(klass, assignment, tmp_path / "out", "--plan-only", str(plan), "--host-margin", "off")
    other = assignment.with_name("other.toml")
    other.write_text(assignment.read_text(encoding="utf-8").replace(
        'title = ', 'title = "Another" # ', 1), encoding="utf-8")
    done = run_class(klass, other, tmp_path / "out2", "--collect", str(plan), check=False)
    assert done.returncode == 2 and "that plan is of another assignment" in done.stderr, done.stderr
    assert not (tmp_path / "out2").exists()


def test_a_result_of_another_kit_is_refused_in_a_line_and_its_student_left_unmarked(
        local_run, tmp_path):
    _, klass, assignment, _ = local_run
    plan, out = tmp_path / "plan", tmp_path / "out"
    run_class(klass, assignment, out, "--plan-only", str(plan))
    kit = worker.unpack_kit(next(plan.glob("kit-*.tar.gz")), tmp_path / "cache")
    (plan / "results").mkdir(exist_ok=True)
    digest = json.loads((plan / "plan.json").read_text())["kit"]["digest"]
    for job in ("ann", "bob", "dee"):
        data = worker.mark_job((plan / "jobs" / f"{job}.tar.gz").read_bytes(), kit,
                               cache=tmp_path / "cache")
        if job == "bob":
            data = changed(data, kit={"commit": "1a2b3c4" + "0" * 33, "digest": "5f" * 32})
        if job == "dee":  # the same code, said to be at another commit: refused all the same
            data = changed(data, kit={"commit": "0" * 40, "digest": digest})
        write_atomically(plan / "results" / f"{job}.tar.gz", data)
    done = run_class(klass, assignment, out, "--collect", str(plan))
    lines = done.stderr.splitlines()
    assert sorted(line for line in lines if line.startswith("result for")) == [
        "result for bob refused: marked with the kit at 1a2b3c4 (digest 5f5f5f5f5f5f), this "
        f"run's is at {line_kit(plan)}; not marked",
        f"result for dee refused: marked with the kit at 0000000 (digest {digest[:12]}), this "
        f"run's is at {line_kit(plan)}; not marked"], done.stderr
    rows = sheet(out)
    assert rows["ann"]["mark"] == "4.00"
    assert rows["bob"]["mark"] == "not marked" and "refused: marked with the kit" in rows["bob"]["note"]
    assert rows["dee"]["mark"] == "not marked"
    assert not (out / "instructor" / "bob" / "state.json").exists()  # the next run marks bob


def line_kit(plan: Path) -> str:
    """This run's kit as OF_ANOTHER_KIT says it, from the plan it wrote."""
    said = json.loads((plan / "plan.json").read_text(encoding="utf-8"))["kit"]
    return f"{said['commit'][:7]} (digest {said['digest'][:12]})"


def changed(result: bytes, **fields) -> bytes:
    """A result archive with result.json's `fields` changed (as another machine might send)."""
    members = {}
    with tarfile.open(fileobj=io.BytesIO(result), mode="r:gz") as archive:
        for member in archive:
            members[member.name] = archive.extractfile(member).read()
    said = json.loads(members[jobs.RESULT_FILE])
    said.update(fields)
    members[jobs.RESULT_FILE] = json.dumps(said).encode()
    return tar_bytes({name: (data, jobs.PLAIN) for name, data in members.items()})


class Faulty(Engine):
    """A stand-in engine: ann marked on "lab3" and delivered twice (the second from "lab9"),
    bob lost (his job killed lab3's and lab4's workers), dee marked here."""
    name = "faulty"

    def run(self, work, events):
        kit = worker.unpack_kit(work.kit, work.results.parent / "kits")
        events.workers(2)
        for job in work.jobs:
            if job.name == "bob":
                events.lost("bob", ["lab3", "lab4"], "marking this student killed its worker twice")
                continue
            events.started(job.name, "lab3")
            data = worker.mark_job(job.archive.read_bytes(), kit, cache=kit.parent)
            if job.name == "ann":
                first = worker_named(data, "lab3")
                write_atomically(work.result_path("ann"), first)
                events.delivered("ann", work.result_path("ann"))
                data = worker_named(data, "lab9")
            write_atomically(work.result_path(job.name), data)
            events.delivered(job.name, work.result_path(job.name))


def worker_named(result: bytes, host: str) -> bytes:
    with tarfile.open(fileobj=io.BytesIO(result), mode="r:gz") as archive:
        said = json.loads(archive.extractfile(jobs.RESULT_FILE).read())
    return changed(result, worker={**said["worker"], "host": host, "cpu": "Lab CPU 3000"})


def test_collect_takes_a_result_once_names_the_worker_and_the_hosts_a_job_killed(
        local_run, tmp_path, monkeypatch, capsys):
    _, klass, assignment, _ = local_run
    monkeypatch.setitem(engines.ENGINES, "faulty", (__name__, "Faulty"))
    out = tmp_path / "out"
    status = mark_class.main([str(klass), "--assignment", str(assignment), "--out", str(out),
                              "--engine", "faulty", "--as-of", AS_OF])
    assert status == 0, capsys.readouterr().err
    rows = sheet(out)
    assert rows["ann"]["mark"] == "4.00"
    assert rows["ann"]["note"] == "marked on lab3 (Lab CPU 3000)"  # the first result, once
    page = "".join(path.read_text(encoding="utf-8")
                   for path in (out / "students" / "ann").rglob("*.html"))
    assert "lab3" not in page and "Lab CPU" not in page  # the sheet's alone: no student sees it
    results = json.loads((out / "instructor" / "ann" / "results.json").read_text())
    assert results["extra_data"]["worker"]["host"] == "lab3"
    assert rows["bob"]["note"] == ("marker error: marking this student killed its worker twice "
                                   "(on lab3, lab4): mark this student again")
    assert not (out / "instructor" / "bob" / "state.json").exists()  # marked again next run
    assert rows["dee"]["note"] == ""  # marked on this machine: no note, as a local run's
    assert socket.gethostname() not in json.dumps(rows)
    dee = json.loads((out / "instructor" / "dee" / "results.json").read_text())
    assert "worker" not in dee["extra_data"]


def test_a_local_run_keeps_the_seconds_each_marking_took(local_run):
    _, _, _, out = local_run
    for name in ("ann", "bob", "dee"):
        state = json.loads((out / "instructor" / name / "state.json").read_text())
        assert state["seconds"] > 0 and "worker" in state, name


def planned(name: str, estimate):
    return Planned(name, Path(name), {}, None, False, Path(f"{name}.tar.gz"), estimate)


def test_jobs_start_longest_first_new_students_first_of_all():
    """Last run's seconds: ann 5, bob 9, cy 9, dee never marked, eve never marked: dee and
    eve first (unknown, in the class's order), then bob and cy (9 s, in the class's order),
    then ann."""
    jobs_in = [planned("ann", 5.0), planned("bob", 9.0), planned("cy", 9.0),
               planned("dee", None), planned("eve", None)]
    assert [job.student for job in longest_first(jobs_in)] == ["dee", "eve", "bob", "cy", "ann"]


def test_a_plan_orders_its_jobs_by_the_last_run_s_seconds(local_run, tmp_path):
    """The plan's jobs, after a run whose states say ann took 5 s and bob 9 s (written here),
    dee none: dee, bob, ann."""
    _, klass, assignment, local = local_run
    out = tmp_path / "out"
    run_class(klass, assignment, out)
    for name, seconds in (("ann", 5.0), ("bob", 9.0)):
        path = out / "instructor" / name / "state.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "seconds": seconds}))
    (out / "instructor" / "dee" / "state.json").unlink()
    run_class(klass, assignment, out, "--force", "--plan-only", str(tmp_path / "plan"))
    plan = json.loads((tmp_path / "plan" / "plan.json").read_text())
    assert [job["job"] for job in plan["jobs"]] == ["dee", "bob", "ann"]
    assert [job["estimate"] for job in plan["jobs"]] == [None, 9.0, 5.0]


def test_the_kit_is_the_same_bytes_each_time_sorted_with_fixed_times_and_modes(tmp_path):
    """Two kits of one assignment: one name (the sha256 of the same bytes); inside, sorted
    entries of 1980-01-01 (315532800 s), owned by 0:0, mode 0644, the marker's code and
    this floor's, the assignment file and its golden cases."""
    from exactmark.distributed.shipment import write_kit
    from exactmark.kit.assignment import load
    assignment = load(str(tiny_assignment(tmp_path)))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = write_kit(assignment, "c0ffee", tmp_path / "a"), write_kit(assignment,
                                                                             "c0ffee", tmp_path / "b")
    assert first.name == second.name and first.read_bytes() == second.read_bytes()
    with tarfile.open(first, mode="r:gz") as archive:
        members = archive.getmembers()
    names = [member.name for member in members]
    assert names == sorted(names)
    assert {(member.mtime, member.uid, member.gid, member.mode) for member in members} == {
        (315532800, 0, 0, 0o644)}
    assert {"kit.json", "assignments/tiny.toml", "exactmark/marking/mark.py",
            "exactmark/distributed/worker.py", "expected_outputs/solitaire_1/seed_0.out"} <= set(names)
