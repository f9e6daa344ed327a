"""Mark a whole class: `make mark-class SUBMISSIONS=DIR ASSIGNMENT=NAME [OUT=DIR]`.

    exactmark class DIR|DOWNLOAD.zip --assignment NAME|FILE.toml [--out DIR] [--times CSV]
                    [--from canvas|moodle|gradescope] [--worksheet CSV] [--roster CSV]
                    [--canvas-url URL --canvas-course ID --canvas-assignment ID]
                    [--jobs N] [--force] [--students A,B] [--isolation ...]
                    [--sandbox-per student|case] [--student-budget S]
                    [--as-of TIME] [--published] [--similarity-min S] [--ledger CSV]
                    [--overrides CSV] [--anonymous]
                    [--engine local|dask-local|dask|parallel ...] [--plan-only DIR | --collect DIR]

Each entry of DIR is one student (a folder, or a .zip/.tar.gz archive, unpacked
safely). Or DIR (or the zip itself) is a learning platform's download as it comes:
--from canvas|moodle|gradescope reads it as that platform writes it (without --from, a
download exactly one platform recognises is read so, and the run's first line says so):
each hand-in is one student (a team's, one row per member), keeping the platform's id and
name; its submission times feed the late rule (a times file, when given too, wins for the
students it names: matched by the platform's id, else by name); Moodle's times come from
its grading worksheet (--worksheet), Canvas's from its API (--canvas-url, --canvas-course,
--canvas-assignment; the token from CANVAS_TOKEN in the environment, never an option).
--roster CSV (columns student, id, email, team) makes each team's hand-in everyone's in
it. Everyone the platform lists gets a row, "no submission" if nothing came, and the
marks go back in the platform's own import format beside grades.csv (canvas-grades.csv,
moodle-worksheet.csv, and moodle-feedback.zip: each student's pages as Moodle's feedback
files). grades.csv's last columns are the platform's id and the student's
folder of pages. Students are marked in parallel, each by the marker of one submission
(`exactmark mark`, in its sandbox), and each student's results are kept as soon as
they are known: an interrupted run keeps what it finished, and the next run skips
a student whose submission, submission time, assignment and golden cases are
unchanged (--force marks everyone again); after the golden cases change, only the cases
whose files changed are run again, and --students a,b re-marks only those named (the
summary says who was re-marked and why, and OUT/changed-marks.csv lists each mark that
changed). Then OUT gets grades.csv, similarity.csv,
summary.html, and per student what they may see (OUT/students/NAME/: their
feedback, and the files of the cases it shows, each case as its visibility says at
--as-of) apart from what only the instructor may see (OUT/instructor/NAME/: the
full report and results.json). Every run writes every student's pages again:
marks are kept, pages follow the clock.

A student's own terms: the times file (or the roster) may give a student a `deadline` of
their own or an `extension` (3 days, 36 hours); the late rule counts from it, and cases
shown after the due date wait for the last window of the class to close (--published
shows them at once). An assignment with a term's late days ([late_days]) is marked with
the term's ledger (--ledger CSV: columns student, assignment, days, due, who, reason): the
days each student has left are read from it, and the days spent here written back; a
row of yours with the assignment `grant` and days -1 gives a student a day back.

--overrides CSV (columns student, what, mark, reason, who) changes marks a person
corrects after the marking, every run, on the marker's own results (marked.json, kept):
changing the file never marks a student again, and a re-run or --force keeps them.

--anonymous names each student by a pseudonym kept
in OUT/instructor/pseudonyms.csv on their pages (OUT/students/PSEUDONYM/), the summary and
the similarity pages; grades.csv keeps the names.

Beyond one machine (docs/guide/engines.md): the run plans here (a job per student), an
engine marks each job on a worker anywhere (--engine dask-local, dask --scheduler ADDRESS,
parallel --hosts FILE; --plan-only DIR and --collect DIR around `exactmark mark-one` for
Slurm), and the results are collected here: the same sheet, pages and similarity as a local
run. A worker refuses to mark otherwise than here (--allow-fallback, --host-margin).
"""

import argparse
import dataclasses
import functools
import importlib
import json
import os
import platform
import signal
import socket
import stat
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from tqdm import tqdm

from exactmark.classroom import anonymous, kept_programs, ledger, pages, platform_class, \
    regrade, sheet
from exactmark.classroom.roster import NO_TIME_GIVEN, class_of, unknown_in_times
from exactmark.classroom.times import extension_text, read_times
from exactmark.classroom.unpack import name_key, student_name, unpack
from exactmark.base.visible import escaped
from exactmark.sandbox import disk
from exactmark.base import from_make
from exactmark.base import messages
from exactmark.base.exits import Exit
from exactmark.distributed import collect, identity
from exactmark.distributed.collect import MARKED, STATE, holds_marker_error
from exactmark.distributed.engine import ENGINES, EngineError, Events, Job, Work, engine
from exactmark.distributed.identity import assignment_fingerprint
from exactmark.distributed.jobs import write_job
from exactmark.distributed.shipment import write_atomically, write_kit
from exactmark.marking import overrides, records
from exactmark.marking.report import write_json
from exactmark.marking.reuse import fingerprint
from exactmark.kit.assignment import REQUIREMENTS, AssignmentError, load, names
from exactmark.kit.late import Terms, extended, extension_of, instant
from exactmark.kit.submission import marked_folder, skip_reason
from exactmark.base.tree import Limits, Refused, copy_tree, remove_tree
from exactmark.pack.published import pack_url
from exactmark.kit.bundle import write_assignment
from exactmark.sandbox.sandbox import run_limits

RESULTS = "results.json"  # the instructor's: the marker's, as overridden
PROGRAMS = "programs"
STUDENTS = "students"  # what each student may see
INSTRUCTOR = "instructor"  # what only the instructor may see
SIMILARITY = "exactmark.classroom.similarity"  # a second to import (copydetect brings matplotlib)
JOBS, RESULTS_FOLDER = "jobs", "results"  # of a plan's folder (--plan-only DIR, --collect DIR)
PLAN = "plan.json"
# What a worker's results.json says of it (extra_data.worker), where it is not this machine.
WORKER_FIELDS = ("host", "cpu", "python", "bwrap", "layers", "kit")
SHOWN_PAGES = 20  # pairs with a side-by-side page
# The bar's size on a terminal that says none (0 by 0, as `script` in a pipe gives): tqdm
# would draw nothing.
BAR_COLUMNS, BAR_ROWS = 80, 24

NO_DEADLINE_PLATFORM = ("{name} has no deadline: {platform}'s submission times are not used "
                        "(no late rule to apply)")
NO_DEADLINE = "--times: {name} has no deadline, so no late rule to apply"
UNKNOWN_STUDENTS = "warning: the times file names students not in the class: {names}"
UNTIMED = ("warning: the times file does not name {count} student(s), marked without the late "
           "rule: {names}")
TERMS_UNTIMED = ("warning: the times file gives {count} student(s) terms of their own and no "
                 "submission time, marked without the late rule: {names}")
UNTIMED_HANDINS = ("warning: {count} hand-in(s) have no submission time, marked without the late "
                   "rule (each row says why): {names}")
LATE_UNMARKED = ("warning: {platform} marks {count} of them late, and the late rule cannot "
                 "apply without their times: give them before uploading the marks back, or a "
                 "late student's full mark goes back: {names}")
SKIPPED = "{count} student(s) unchanged since the last run: kept (--force marks them again)"
WROTE = ("Wrote {grades}, {similarity}, {summary}, and per student their feedback in {students} "
         "(theirs to see) and the marker's report in {instructor} (yours only)")
NO_SUBMISSIONS = ("give the folder of the class's submissions: make mark-class SUBMISSIONS=DIR "
                  "ASSIGNMENT=NAME")
NO_ASSIGNMENT = ("say which assignment to mark against: --assignment NAME|FILE.toml "
                 "(make mark-class ASSIGNMENT=NAME|FILE.toml); the assignments are: {names}")
NO_SUCH_CLASS = "{path}: no such file or folder"
STOPPED = "exactmark class: error: {problem}"
NOT_WRITTEN = "warning: {said}"
LEDGER_NOT_WRITTEN = ("exactmark class: error: the ledger {path} is as it was, not written: "
                      "{problem}; run again to write it")
NOT_BACK = "exactmark class: error: no marks written back for {platform}: {problem}"
NOT_A_CLASS = "{path}: not a folder of submissions, nor a platform's download (.zip)"
OUT_IN_CLASS = ("--out {out} lies inside the class folder {submissions}: it would be marked as a "
                "student's, or inside one; give a folder outside it")
BAD_AS_OF = "--as-of: {text!r} is not a date and time such as 2027-03-20T09:00"
BAD_JOBS = "a number of students from 1 to 64"
BAD_SHARE = "a score from 0 to 1"
BAD_BUDGET = "a number of CPU seconds from 1 to 3600"
INTERRUPTED = ("interrupted: {done} of {total} students marked or kept, their results in {out}; "
               "nothing else was written. Run the same command again to go on{unforced}")
UNFORCED = ", without --force (with it, every student is marked again)"
READ_INTERRUPTED = ("interrupted while the class was read (a download unpacked): nothing was "
                    "written. Run the same command again")
EXAMPLE = ("example: exactmark class submissions --assignment seeded --out marked "
           "--times times.csv\n"
           "example: exactmark class moodle.zip --from moodle --worksheet Grades.csv "
           "--assignment seeded\n"
           "example: make mark-class SUBMISSIONS=submissions.zip ASSIGNMENT=seeded "
           "ARGS=\"--from canvas\"")
WROTE_BACK = "; and {path}, the marks in {platform}'s import format"
WROTE_PAGES = "; and {path}, {said}"
WROTE_KEY = "; and {path}, the key from each pseudonym to its student (yours only)"
MARKER_FAILED = "the marker ended with status {status}: {said}"
MARKER_ERROR = "the marker failed on a case (its report says which): mark this student again"
LOST = "marker error: {why} (on {hosts}): mark this student again"
ENGINE_STOPPED = "not marked: the {engine} engine stopped ({problem}); mark this student again"
ENGINE_FAILED = "exactmark class: error: {problem}"
NO_RESULT = "no result for {job} in {folder}: not marked"
NO_PLAN = "--collect {folder}: no plan there (plan.json, which --plan-only {folder} writes)"
PLAN_OF_ANOTHER = ("--collect {folder}: that plan is of another assignment, or of {name} "
                   "before its file or golden cases changed: plan again")
PLAN_MOST = 64 << 20  # bytes of plan.json read
MARKED_ON = "marked on {host} ({cpu})"
PLANNED = ("planned {jobs} job(s) in {folder} (the kit {kit}, the jobs in {jobs_folder}, "
           "{plan}); {decided} student(s) need no marking. Mark them (exactmark mark-one --share "
           "K/N {folder}), then: exactmark class ... --collect {folder}")
BAD_MARGIN = "a percentage from 0 up, or off"
OFF = "off"  # --host-margin off
OWN_FILES_FAILED = "the class marker's own work failed ({problem}): mark this student again"
# Off a terminal (a log, a CI job) the bar is not drawn: a line per student instead.
STUDENT_DONE = "{done}/{total} students: {name} {how} in {seconds:.1f} s"
HOW_DONE = {"marked": "marked", "kept": "kept from the last run", "refused": "refused",
            "failed": "not marked (grades.csv says why)", "interrupted": "interrupted"}
# Said once the class is marked, on a terminal too, where the bar does not name students.
ENTRY_REFUSED = "refused: {name}: {reason}"
NOTHING_HANDED_IN = "handed in none of the programs ({count}): {names}"
STILL_OPEN = ("{count} student(s) have handed nothing in and their own window is still open: "
              "their marks go back empty, not 0; mark again once it has closed: {names}")
TEAM_OVERRIDDEN = ("warning: the overrides name {count} team(s) or a member of one: a team's "
                   "hand-in has one mark, so each member's changes: {names}")
OVERRIDES_DROPPED = ("warning: {count} student(s) had overrides in the last run, and no "
                     "--overrides is given: their marks are the marker's again (give the file "
                     "to keep them): {names}")
DISK_FILLED = ("the disk filled during the run: {count} student(s)' cases are marker errors, "
               "marked again next run")


@dataclass
class Outcome:
    """One student's marking: the marker's results (None when it gave none), why the
    submission was refused or the marker failed, and whether the results were kept from
    an earlier run."""
    student: object  # exactmark.classroom.roster.Student
    results: dict = None
    refused: str = ""
    failed: str = ""
    kept: bool = False
    interrupted: bool = False
    disk_full: bool = False  # the disk was full for one of its runs, or for the class's copy
    why: list = field(default_factory=list)  # why it was marked again (regrade.py's phrases)
    before: float = None  # the mark the last run gave, when it gave one
    stale: bool = False  # kept, not named by --students, though its key changed
    unmarked: str = ""  # why it has no mark: not named by --students, and none kept
    worker: dict = None  # the worker that marked it (WORKER_FIELDS), where not this machine

    @functools.cached_property
    def marking(self) -> records.MarkingRecord:
        """The marking as data (results.json's extra_data); empty where there is none."""
        return records.MarkingRecord.from_dict((self.results or {}).get("extra_data", {}))


@dataclass
class Planned:
    """A student planned to be marked: their job, the key it was planned with, the last
    run's state, and whether the marker keeps its unchanged cases (`reuse`)."""
    student: object
    folder: Path  # OUT/instructor/NAME
    key: dict
    state: dict  # the last run's, or None
    reuse: bool
    job: Path  # the job archive
    estimate: float = None  # the seconds the last marking took


class ClassMarking:
    """One run over a class: plan (each student's submission copied, their key, what the
    last run left; a job for each one to mark), an engine that marks the jobs, and collect
    (each result checked and moved in, the only writer of OUT/instructor/NAME/); the bar
    as they go."""

    def __init__(self, options, assignment, out: Path, scratch: Path, corrected=None):
        self.options, self.assignment, self.out, self.scratch = options, assignment, out, scratch
        self.corrected = corrected  # the overrides file read (overrides.Overrides), or None
        written = [group for program in assignment.marked_cases
                   for group in assignment.student_groups(program)]
        # The bar counts each golden and fresh case, and each group of the student's own cases
        # once.
        self.cases_each = sum(map(assignment.case_count, assignment.marked_cases)) + len(written)
        self.own_folders = [group.folder.split("/")[0] for group in written]
        self.regrade_key = assignment_fingerprint(assignment)
        self.budget = options.student_budget or assignment.student_budget  # a new one marks again
        self.named = None  # with --students: the folders of the students it names
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.bar = None
        self.done = 0  # students marked or kept, when the run was interrupted
        self.students = 0  # in the class
        self.finished = 0  # students marked, kept or refused so far
        self.warned = set()
        self.dropped = []  # students whose overrides of the last run no file gives now
        self.plan = None  # where the kit, the jobs and the results go (plan_to)
        self.kit = self.coordinator = None  # the kit archive; {"kit", "fingerprint"} of this run
        self.counting_cases = True  # the bar counts cases (the local engine), else students
        self.refusals = set()  # hosts whose refusal was said
        self.unmarked_said = []  # results --collect refused, or found none of
        self.host = None  # this machine: host, python, bwrap
        self.writes_jobs, self.reference_cpu = True, None
        self.engine_failed = ""  # the engine's EngineError, when it stopped

    def instructor_folder(self, student) -> Path:
        return self.out / INSTRUCTOR / student.folder

    def copy_in(self, student) -> Path:
        """The submission in a folder of ours, unpacked or copied without following a link,
        leaving out what the marker leaves out."""
        into = self.scratch / student.folder
        if student.kind == platform_class.HANDIN:
            platform_class.copy_handin(student, into, Limits())
        elif student.kind == "archive":
            unpack(student.entry, into, Limits())
        else:
            into.mkdir(mode=0o700)
            copy_tree(student.entry, into, skip=skip_reason, limits=Limits())
        return into

    def mark(self, student):
        """Plan one student: an Outcome where nothing is to mark (kept, refused, failed),
        said off a terminal in a line with the time it took; else their Planned job."""
        started = time.monotonic()
        planned = self.mark_one(student)
        if isinstance(planned, Outcome):
            self.said_done(planned, time.monotonic() - started)
        return planned

    def said_done(self, outcome: Outcome, seconds: float) -> None:
        """Off a terminal, a line for a student done."""
        if self.bar is not None and self.bar.disable and not outcome.interrupted:
            with self.lock:
                self.finished += 1
                print(STUDENT_DONE.format(done=self.finished, total=self.students,
                                          name=outcome.student.name, how=HOW_DONE[how_done(outcome)],
                                          seconds=seconds),
                      file=sys.stderr, flush=True)

    def mark_one(self, student):
        """Plan one student: an Outcome unless they are to be marked (nothing changed since
        the last run, refused, not named by --students), else their Planned job."""
        if self.stopping.is_set():
            return Outcome(student, interrupted=True)
        folder = self.instructor_folder(student)
        try:
            if student.kind == "refused":
                raise Refused(student.reason)
            copy = self.copy_in(student)
        except Refused as problem:
            self.advance(self.cases_each)
            remove_tree(folder)  # nothing of an earlier run stands for it
            return Outcome(student, refused=str(problem))
        except OSError as problem:
            remove_tree(self.scratch / student.folder)  # what of the copy was made
            return self.own_failure(student, folder, problem)
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            key = {"submission": fingerprint(copy), "assignment": self.regrade_key,
                   "submitted": student.submitted.isoformat() if student.submitted else None,
                   "budget": self.budget, "terms": terms_asked(student.terms)}
            state, results = self.earlier(folder)
            if self.named is not None and student.folder not in self.named:
                self.advance(self.cases_each)  # left as the last run left them
                if results is None:
                    return Outcome(student, unmarked=regrade.NOT_NAMED)
                self.as_kept(student, state["key"])
                return Outcome(student, results, kept=True, stale=state["key"] != key,
                               before=state.get("mark"), worker=self.worker_of(state))
            self.keep_programs(marked_folder(copy, self.assignment.programs.values(),
                                             self.own_folders), folder)
            if results is not None and state["key"] == key and not self.options.force \
                    and self.named is None:
                self.advance(self.cases_each)
                return Outcome(student, results, kept=True, before=state.get("mark"),
                               worker=self.worker_of(state))
            return self.remark(copy, folder, student, key, state)
        except OSError as problem:
            return self.own_failure(student, folder, problem)
        finally:
            remove_tree(copy)

    def as_kept(self, student, key: dict) -> None:
        """The student's time and terms as the kept results were marked with (a student
        left as the last run left them by --students): their sheet's row, page and ledger
        row say what their mark was given for, not what the files say now."""
        try:
            submitted = key.get("submitted")
            student.submitted = datetime.fromisoformat(submitted) if submitted else None
            student.terms = terms_from(key.get("terms") or {}, self.assignment.deadline)
        except (ValueError, TypeError, AttributeError):
            pass  # a state of an older kit: the files' terms stand

    def overridden(self, outcome: Outcome) -> Outcome:
        """Once the class is marked: the marker's results with the student's overrides
        applied (the late rule applied again with their terms), and the worker that marked
        them where it was not this machine's local engine, written as the instructor's
        results.json; without either, the marker's own. A disk that fails it fails the
        student, marked again next run."""
        if outcome.results is None:
            return outcome
        student = outcome.student
        rows = self.corrected.of(known_as(student)) if self.corrected else []
        results = overrides.apply(outcome.results, rows, lambda raw: (
            self.assignment.mark_after_deadline(raw, student.submitted, student.terms)))
        if outcome.worker:
            results = {**results, "extra_data": {**results.get("extra_data", {}),
                                                 "worker": outcome.worker}}
        folder = self.instructor_folder(student)
        if self.corrected is None and overridden_before(folder / RESULTS):
            self.dropped.append(student.name)
        try:
            write_json(folder / RESULTS, results)
            mark_kept(folder, results["score"])
        except OSError as problem:
            (folder / STATE).unlink(missing_ok=True)
            return dataclasses.replace(outcome, failed=OWN_FILES_FAILED.format(
                problem=escaped(problem.strerror or str(problem))),
                disk_full=disk.full_error(problem))
        return dataclasses.replace(outcome, results=results)

    def remark(self, copy: Path, folder: Path, student, key: dict, state: dict) -> Planned:
        """The student's job: marked whole when new, named by --students or forced; else
        given their earlier results, whose cases the marker keeps where their key is
        unchanged (with a student budget, whole: which cases it cuts depends on every run
        before them, and a kept case's time would not count)."""
        earlier, named = (state or {}).get("key"), self.named is not None
        reuse = bool(earlier and not named and not self.options.force and self.budget is None)
        job = self.plan / JOBS / f"{student.folder}.tar.gz"
        if self.writes_jobs:
            write_job(job, self.job_of(student, key), copy,
                      (folder / MARKED).read_bytes() if reuse else None)
        return Planned(student, folder, key, state, reuse, job, seconds_before(folder))

    def job_of(self, student, key: dict) -> dict:
        """What the worker is asked for the student (jobs.py), beside their submission."""
        return {"job": student.folder, "key": key, "assignment": self.assignment.name,
                **self.coordinator, "python": self.host["python"], "bwrap": self.host["bwrap"],
                "reference_cpu": self.reference_cpu, "machine": identity.machine_id(),
                "options": {"markers": self.options.jobs, "isolation": self.options.isolation,
                            "sandbox_per": self.options.sandbox_per,
                            "require": list(self.options.require), "student_budget": self.budget},
                "student": {"submitted": student.submitted.isoformat() if student.submitted
                            else None, "named": str(student.entry),
                            "student": fresh_key(student), **terms_asked(student.terms)}}

    def collected(self, planned: Planned, archive: Path) -> Outcome:
        """The student's result taken in (exactmark.distributed.collect), as the Outcome the
        class marker shows; with why they were marked again, and the mark the last run gave."""
        student, folder = planned.student, planned.folder
        try:
            taken = collect.take(archive, folder, student.folder, planned.key, self.coordinator)
        except collect.Rejected as rejected:
            with self.lock:
                self.unmarked_said.append(str(rejected))
            return Outcome(student, unmarked=str(rejected))
        except OSError as problem:
            return self.own_failure(student, folder, problem, advance=False)
        result = taken.result
        for text in result.get("notices", ()):
            self.warn(text)
        disk_full = bool(result.get("disk_full"))
        worker = self.worker_of(result)
        if taken.end == collect.REFUSED:
            return Outcome(student, refused=escaped(result["refusal"], most=300))
        if taken.end == collect.FAILED:
            return Outcome(student, failed=MARKER_FAILED.format(
                status=result["status"], said=escaped(str(result.get("said", ""))[-300:])),
                disk_full=disk_full)
        if taken.end == collect.MARKER_ERROR:
            return Outcome(student, taken.marked, failed=MARKER_ERROR, disk_full=disk_full,
                           worker=worker)
        outcome = Outcome(student, taken.marked, worker=worker)
        earlier, named = (planned.state or {}).get("key"), self.named is not None
        outcome.before = (planned.state or {}).get("mark")
        outcome.why = regrade.reasons(earlier, planned.key, self.options.force, named)
        if earlier and not named and not self.options.force \
                and earlier["assignment"] != planned.key["assignment"] \
                and earlier["submission"] == planned.key["submission"]:
            outcome.why += (regrade.cases_said(outcome.marking) if planned.reuse
                            else [regrade.WHOLE_WITH_BUDGET])
        return outcome

    def worker_of(self, result: dict):
        """The worker a result (or a state kept) names, where it is not this machine (a
        local run's results say nothing of it, as before engines)."""
        worker = result.get("worker")
        if not isinstance(worker, dict) or worker.get("host") == self.host["host"]:
            return None
        return {name: worker.get(name) for name in WORKER_FIELDS}

    def own_failure(self, student, folder: Path, problem: OSError, advance: bool = True) -> Outcome:
        """The class marker's own files failed it (a full disk, say): the student is not
        marked, and the next run marks them."""
        if advance:
            self.advance(self.cases_each)
        (folder / STATE).unlink(missing_ok=True)
        return Outcome(student, failed=OWN_FILES_FAILED.format(
            problem=escaped(problem.strerror or str(problem))), disk_full=disk.full_error(problem))

    def earlier(self, folder: Path) -> tuple:
        """(state, results) of the last run that marked this student whole: its state
        (its key, and the mark it gave) and its results; (None, None) where there are none,
        or they hold a marker error."""
        try:
            state = json.loads((folder / STATE).read_text(encoding="utf-8"))
            results = json.loads((folder / MARKED).read_text(encoding="utf-8"))
            if isinstance(state.get("key"), dict) and not holds_marker_error(results):
                return state, results
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            pass
        return None, None

    def keep_programs(self, marked: Path, folder: Path) -> None:
        """The programs the marker marks (or their look-alikes), kept beside their results
        for the similarity scan (exactmark.classroom.kept_programs)."""
        kept_programs.keep(marked, folder / PROGRAMS, self.assignment.programs)

    def warn(self, text: str) -> None:
        """A marker's warning, said once for the class (each student's marker says it)."""
        with self.lock:
            if text in self.warned:
                return
            self.warned.add(text)
        (self.bar.write if self.bar is not None else print)(text, file=sys.stderr)

    def advance(self, cases: int) -> None:
        """The bar moved by `cases` cases (a student's whole count where the bar counts
        students: once a student is done)."""
        if self.bar is not None and cases > 0:
            with self.lock:
                self.bar.update(cases if self.counting_cases else cases // self.cases_each)

    def plan_to(self, plan: Path, writes_jobs: bool = True) -> None:
        """Where the kit, the jobs (when written) and the results of this run go; this
        run's kit identity, the assignment's fingerprint, this host's facts, and with a
        host margin, off the local engine or for a plan that other machines mark, the
        reference's CPU seconds (once per run)."""
        self.plan, self.writes_jobs = plan, writes_jobs
        for folder in (plan, plan / JOBS, plan / RESULTS_FOLDER):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.coordinator = {"kit": identity.kit_identity(), "fingerprint": self.regrade_key}
        self.host = {"host": socket.gethostname(), "python": platform.python_version(),
                     "bwrap": identity.bwrap_version()}
        calibrate = (getattr(self.options, "engine", "local") != "local"
                     or getattr(self.options, "plan_only", None) is not None) \
            and getattr(self.options, "host_margin", None) is not None
        self.reference_cpu = identity.reference_cpu(self.assignment, isolation=self.options.isolation) \
            if calibrate and writes_jobs else None

    def write_kit(self) -> None:
        """The worker kit, in the plan's folder (once a student is to be marked), with the
        sample solutions when the workers time the reference. ValueError: a file of the
        assignment's lies where no kit can hold it (the line says where to move it)."""
        self.kit = write_kit(self.assignment, self.coordinator["kit"]["commit"], self.plan,
                             references=self.reference_cpu is not None)

    def run(self, students: list) -> list:
        """Every student's Outcome, in the class's order: planned (in --jobs threads), the
        jobs marked by the engine, longest first, each result collected as it comes;
        KeyboardInterrupt once the markers in flight have stopped, when the run is
        interrupted (what was collected stays)."""
        outcomes = {}
        self.students = len(students)
        if self.plan is None:
            self.plan_to(self.scratch / "plan")
        with tqdm(total=len(students) * self.cases_each, unit="case", file=sys.stderr,
                  disable=None, desc=f"0/{len(students)} students", **bar_width()) as self.bar:
            try:
                planned = self.planned(students, outcomes)
                self.marked(planned, outcomes)
            except KeyboardInterrupt:
                self.stopping.set()
                self.done = sum(outcome is not None and not outcome.interrupted  # None: being
                                for outcome in outcomes.values())  # collected as it stopped
                raise
        return [outcomes.get(student.folder) or Outcome(student, interrupted=True)
                for student in students]

    def planned(self, students: list, outcomes: dict) -> list:
        """Each student planned, in --jobs threads: those decided already go in `outcomes`;
        the Planned jobs, longest first."""
        pool = ThreadPoolExecutor(self.options.jobs)
        futures = {pool.submit(self.mark, student): student for student in students}
        jobs = []
        try:
            for future in as_completed(futures):
                found = future.result()
                if isinstance(found, Outcome):
                    self.took(found, outcomes)
                else:
                    jobs.append(found)
        except KeyboardInterrupt:
            self.stopping.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            pool.shutdown(wait=True)
        return longest_first(jobs)

    def took(self, outcome: Outcome, outcomes: dict) -> None:
        with self.lock:
            outcomes[outcome.student.folder] = outcome
            self.bar.set_description(f"{len(outcomes)}/{self.students} students")

    def marked(self, planned: list, outcomes: dict) -> None:
        """The planned jobs marked by the engine the options name, each result collected
        as it is delivered; the engine's EngineError said as one line, the jobs it did not
        deliver left unmarked."""
        if not planned:
            return
        name = getattr(self.options, "engine", "local")
        try:
            self.write_kit()
        except ValueError as problem:  # a file of the assignment's where no kit can hold it
            return self.stopped(planned, outcomes, name, str(problem))
        events = Coordinating(self, {job.student.folder: job for job in planned}, outcomes)
        self.counting_cases = name == "local"
        if not self.counting_cases:
            self.bar.reset(total=self.students)
            self.bar.unit = "student"
            self.bar.update(len(outcomes))
        work = Work(self.kit, [Job(job.student.folder, job.job, job.estimate) for job in planned],
                    self.plan / RESULTS_FOLDER,
                    allow_fallback=getattr(self.options, "allow_fallback", False),
                    host_margin=(self.options.host_margin / 100
                                 if self.reference_cpu is not None else None),
                    slots_memory=slots_memory())
        try:
            engine(name, self.options).run(work, events)
        except EngineError as problem:
            return self.stopped(planned, outcomes, name, str(problem))
        if self.stopping.is_set() or any(job.student.folder not in outcomes for job in planned):
            raise KeyboardInterrupt  # Ctrl-C, or an engine that returned on it

    def stopped(self, planned: list, outcomes: dict, name: str, problem: str) -> None:
        """The engine could not go on (`problem`, one line): what it delivered stays, the
        students it did not are left unmarked, and the run says the line and exits 2."""
        self.engine_failed = problem
        for job in planned:
            if job.student.folder not in outcomes:
                self.took(Outcome(job.student, unmarked=ENGINE_STOPPED.format(
                    engine=name, problem=escaped(problem, most=300))), outcomes)

    def plan_only(self, folder: Path, students: list) -> tuple:
        """--plan-only DIR: each student planned, the kit and the jobs written in DIR, with
        DIR/PLAN (the kit, the jobs longest first); (jobs, students needing none)."""
        self.plan_to(folder)
        outcomes = {}
        self.students = len(students)
        with tqdm(total=len(students) * self.cases_each, unit="case", file=sys.stderr,
                  disable=None, desc=f"0/{len(students)} students", **bar_width()) as self.bar:
            planned = self.planned(students, outcomes)
        self.write_kit()
        write_atomically(folder / PLAN, json.dumps({
            "kit": self.kit.name, **self.coordinator,
            "jobs": [{"job": job.student.folder, "estimate": job.estimate} for job in planned]},
            indent=2).encode())
        return len(planned), len(outcomes)

    def collect_from(self, folder: Path, students: list) -> list:
        """--collect DIR: every student planned again (nothing written for them), and each
        result DIR/results holds collected as if an engine had delivered it; a student
        with none is left unmarked, and said."""
        self.plan_to(folder, writes_jobs=False)
        outcomes = {}
        self.students = len(students)
        with tqdm(total=len(students) * self.cases_each, unit="case", file=sys.stderr,
                  disable=None, desc=f"0/{len(students)} students", **bar_width()) as self.bar:
            planned = self.planned(students, outcomes)
            events = Coordinating(self, {job.student.folder: job for job in planned}, outcomes)
            for job in planned:
                archive = folder / RESULTS_FOLDER / f"{job.student.folder}.tar.gz"
                if archive.is_file():
                    events.delivered(job.student.folder, archive)
                else:
                    said = NO_RESULT.format(job=job.student.folder, folder=folder / RESULTS_FOLDER)
                    self.unmarked_said.append(said)
                    self.took(Outcome(job.student, unmarked=said), outcomes)
        return [outcomes[student.folder] for student in students]


class Coordinating(Events):
    """The coordinator's side of an engine (exactmark.distributed.engine.Events): a result
    delivered is collected here, once; the bar moves and its postfix says queued, running,
    done, workers and the time left."""

    def __init__(self, marking: ClassMarking, planned: dict, outcomes: dict):
        super().__init__()
        self.marking, self.planned, self.outcomes = marking, planned, outcomes
        self.started_at = {}  # job -> when a worker took it (its last start)
        self.moved = {}  # job -> cases its messages moved the bar
        self.count = 0  # workers usable
        self.begun = time.monotonic()
        self.collected = 0

    def started(self, job: str, host: str) -> None:
        with self.lock:
            self.started_at[job] = time.monotonic()
        self.show()

    def message(self, job: str, record) -> None:
        if isinstance(record, messages.Progress):
            with self.lock:
                self.moved[job] = self.moved.get(job, 0) + 1
            self.marking.advance(1)
        elif isinstance(record, messages.Notice) and record.kind != messages.DISK_FULL:
            self.marking.warn(record.text)

    def delivered(self, job: str, archive: Path) -> None:
        with self.lock:
            if job in self.outcomes or job not in self.planned:
                return  # a second result: the first was collected
            self.outcomes[job] = None  # taken: a second delivery from now on is dropped
        self.done(self.marking.collected(self.planned[job], archive))

    def lost(self, job: str, hosts: list, why: str) -> None:
        self.unmarked(job, LOST.format(why=escaped(why, most=300),
                                       hosts=", ".join(escaped(str(host)) for host in hosts)))

    def failed(self, job: str, why: str) -> None:
        self.unmarked(job, OWN_FILES_FAILED.format(problem=escaped(why)))

    def unmarked(self, job: str, said: str) -> None:
        """The job ends without a result (`said` its row's note): no state stands for it,
        so the next run marks the student; once only, as a delivery is."""
        with self.lock:
            if job in self.outcomes:
                return
            self.outcomes[job] = None
        planned = self.planned[job]
        (planned.folder / STATE).unlink(missing_ok=True)
        self.done(Outcome(planned.student, failed=said))

    def refused(self, host: str, sentence: str) -> None:
        with self.lock:
            if host in self.marking.refusals:
                return
            self.marking.refusals.add(host)
        (self.marking.bar.write if self.marking.bar is not None else print)(
            escaped(sentence, most=1000), file=sys.stderr)

    def workers(self, count: int) -> None:
        self.count = count
        self.show()

    def stopping(self) -> bool:
        return self.marking.stopping.is_set()

    def done(self, outcome: Outcome) -> None:
        """A student's marking over: the bar moved by what their messages did not move."""
        job = outcome.student.folder
        with self.lock:
            moved = self.moved.pop(job, 0)
            started = self.started_at.pop(job, self.begun)
            self.collected += 1
        self.marking.advance(self.marking.cases_each - moved if self.marking.counting_cases
                             else self.marking.cases_each)
        self.marking.took(outcome, self.outcomes)
        self.marking.said_done(outcome, time.monotonic() - started)
        self.show()

    def show(self) -> None:
        """The bar's postfix: queued, running, done, workers, and the time left at the pace
        so far (students done a second, not cases)."""
        bar = self.marking.bar
        if bar is None or bar.disable:
            return
        with self.lock:
            running, done = len(self.started_at), self.collected
            queued = len(self.planned) - done - running
            elapsed = time.monotonic() - self.begun
            left = elapsed / done * (len(self.planned) - done) if done else None
            bar.set_postfix(queued=queued, running=running, done=done, workers=self.count,
                            left=tqdm.format_interval(left) if left is not None else "?")


def longest_first(planned: list) -> list:
    """The jobs in the order they start: the students whose last marking took longest
    first, so that no long one starts last and holds the run up; those never marked
    (no time known: a new student may be the longest) before all of them; equals in the
    class's order."""
    return sorted(planned, key=lambda job: (job.estimate is not None, -(job.estimate or 0)))


def seconds_before(folder: Path):
    """The seconds the student's last marking took (its state's), or None."""
    try:
        seconds = json.loads((folder / STATE).read_text(encoding="utf-8")).get("seconds")
    except (OSError, ValueError, AttributeError):
        return None
    return float(seconds) if isinstance(seconds, (int, float)) and seconds >= 0 else None


def slots_memory() -> int:
    """Bytes one student's marking may hold: the memory limit of its one run at a time."""
    return run_limits(1)[0]


def fresh_key(student) -> str:
    """Whose fresh cases the marker draws (exactmark/marking/fresh_cases.py): the platform's
    id of a hand-in, else the student's name as their entry gives it (ann for ann.zip)."""
    return student.id or student_name(student.entry)


def terms_asked(terms) -> dict:
    """A student's own terms as the marker is asked them (MarkRequest's due, extension and
    late_days_left): an extension as an extension, so that the report says it so."""
    if terms is None:
        return {}
    asked = {"late_days_left": terms.late_days_left}
    if terms.extension is not None:
        asked["extension"] = extension_text(terms.extension)
    elif terms.due is not None:
        asked["due"] = terms.due.isoformat()
    return {name: value for name, value in asked.items() if value is not None}


def terms_from(asked: dict, deadline):
    """terms_asked read back (None: the common terms)."""
    left = asked.get("late_days_left")
    if "extension" in asked:
        return extended(deadline, extension_of(asked["extension"]), left)
    if "due" in asked:
        return Terms(datetime.fromisoformat(asked["due"]), None, left)
    return None if left is None else Terms(late_days_left=left)


def bar_width() -> dict:
    """tqdm's size: the terminal's, followed as it changes, where it says one."""
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError):
        columns = 0
    return {"dynamic_ncols": True} if columns else {"ncols": BAR_COLUMNS, "nrows": BAR_ROWS}


def entries_said(outcomes: list) -> list:
    """The entries marked as nothing: each refused with its reason, then those that handed
    in none of the assignment's programs (an empty folder, say)."""
    lines = [ENTRY_REFUSED.format(name=outcome.student.name, reason=outcome.refused)
             for outcome in outcomes if outcome.refused]
    empty = [outcome.student.name for outcome in outcomes
             if not outcome.refused and outcome.marking.programs
             and not any(program.submitted for program in outcome.marking.programs.values())]
    if empty:
        lines.append(NOTHING_HANDED_IN.format(count=len(empty), names=", ".join(empty)))
    return lines


def how_done(outcome: Outcome) -> str:
    """How one student's marking ended, as HOW_DONE names it."""
    if outcome.interrupted:
        return "interrupted"
    if outcome.refused:
        return "refused"
    if outcome.failed or outcome.unmarked:
        return "failed"
    return "kept" if outcome.kept else "marked"


def similar_pairs(out: Path, assignment, outcomes: list, options, scratch: Path,
                  masks: dict):
    """The pairs of the class's programs that share code, as copydetect finds them; the
    sample solutions are the code everyone may share. With `masks` (anonymous marking:
    each student's folder -> anonymous.Mask), students go by their pseudonyms, and their
    names are blotted out of the code the pages show."""
    from exactmark.classroom.similarity import scan  # imported by then, while the students were marked

    shared = scratch / "shared"
    write_assignment(assignment, shared)
    shown = {outcome.student.folder: masks[outcome.student.folder].pseudonym.pseudonym
             if masks else outcome.student.name for outcome in outcomes}
    submissions = {shown[outcome.student.folder]: out / INSTRUCTOR / outcome.student.folder
                   / PROGRAMS for outcome in outcomes if not outcome.refused and not outcome.unmarked}
    declared = assignment.programs
    return scan(submissions, list(declared),
                {name: [shared / file for file in program.files(shared)[0]]
                 for name, program in declared.items()}, out, most=SHOWN_PAGES,
                least=options.similarity_min,
                languages={name: program.language.similar for name, program in declared.items()},
                blotted=anonymous.blotters(list(masks.values())))


def pseudonyms(key, outcomes: list, submissions: Path) -> dict:
    """{each student's folder: their anonymous.Mask}, the key written with any new
    pseudonym before a page names one."""
    masks = {outcome.student.folder: anonymous.mask_of(outcome.student, key.of(outcome.student),
                                                       submissions) for outcome in outcomes}
    key.write()
    return masks


def student_pages(out: Path, outcomes: list, rows: list, view, masks: dict, key) -> list:
    """Each student's pages written, in the folder their row's page names: by name, or with
    `masks` (anonymous marking) by pseudonym. What an earlier run left in OUT/students/ that
    this one does not write again is removed, and said (anonymous.stale_pages). The (outcome,
    row) pairs as the pages show them, for the summary, in the order of their names shown."""
    shown, everyone = [], anonymous.class_words(masks.values())
    for outcome, row in zip(outcomes, rows):
        mask = masks.get(outcome.student.folder)
        if not outcome.unmarked:  # not marked (--students): no page stands for them
            row.page = f"{STUDENTS}/{mask.pseudonym.folder if mask else outcome.student.folder}"
        shown.append(anonymous.masked(outcome, row, mask, everyone) if mask else (outcome, row))
        if row.page:
            pages.write_feedback(out / row.page, *shown[-1], view)
    stale, said = anonymous.stale_pages(out / STUDENTS, {Path(row.page).name for row in rows
                                                         if row.page}, key, view.anonymous)
    for folder in stale:
        remove_tree(folder)
    if said:
        print(said, file=sys.stderr)
    if masks:  # the class's order would show the order of the names through
        shown.sort(key=lambda page: page[0].student.name)
    return shown


def known_as(student) -> tuple:
    """What an overrides row may name a student by, as a times file may: the name shown,
    their entry's name in a class folder, a platform's id, each team member's name and id."""
    return (student.name, student.id,
            student_name(student.entry) if student.kind in ("folder", "archive") else "",
            *(part for person in student.members for part in (person.name, person.id)))


def own_only(out: Path) -> None:
    """OUT and all in it for its owner only (a folder from an earlier kit may be open to
    all), through descriptors that follow no link."""
    for folder, folders, files in os.walk(out, followlinks=False):
        for path in [folder, *(os.path.join(folder, name) for name in folders + files)]:
            try:
                mode = os.lstat(path).st_mode
                if not stat.S_ISLNK(mode) and mode & 0o077:
                    os.chmod(path, stat.S_IMODE(mode) & 0o700)
            except OSError:
                pass


def moment(text: str, zone) -> datetime:
    """An ISO 8601 time, in the assignment's time zone unless it says its own."""
    return instant(text, zone)


def inside(path: Path, folder: Path) -> bool:
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents


def within(kind, low, high, said: str):
    """An argparse type: a number of `kind` from `low` to `high`, else `said`."""
    def read(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(said) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(said)
        return value
    return read


def margin(text: str):
    """--host-margin: a percentage, 0 or more, or OFF (None: no calibration)."""
    return None if text == OFF else within(float, 0, float("inf"), BAD_MARGIN)(text)


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="exactmark class", description=__doc__, epilog=EXAMPLE,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("submissions", type=Path,
                       help="one entry per student, or a platform's download (folder or zip)")
    parse.add_argument("--assignment", metavar="NAME|FILE.toml",
                       help=f"one of: {', '.join(names())}; or an assignment file of your own")
    parse.add_argument("--out", type=Path, default=Path("marked"), help="where the results go")
    parse.add_argument("--times", type=Path, metavar="CSV",
                       help="submission times (columns student, submitted; and deadline or "
                            "extension, a student's own terms): applies the late rule")
    parse.add_argument("--ledger", type=Path, metavar="CSV",
                       help="the term's late-day ledger (columns student, assignment, days, "
                            "due, who, reason), read and written: for an assignment with "
                            "[late_days]; a file that does not exist yet starts one")
    parse.add_argument("--from", dest="platform", choices=sorted(platform_class.PLATFORMS),
                       help="read SUBMISSIONS as this platform's download (default: the one "
                            "platform that recognises it, else a class folder)")
    parse.add_argument("--worksheet", type=Path, metavar="CSV",
                       help="Moodle's grading worksheet: the submission times, the class "
                            "list (a row for who handed nothing in), and the sheet the marks go "
                            "back in (moodle-worksheet.csv)")
    parse.add_argument("--roster", type=Path, metavar="CSV",
                       help="with a platform's download: teams (columns student, id, email, "
                            "team; and deadline or extension, a student's own terms): each "
                            "team's hand-in marked once, the mark given to each member (a class "
                            "folder's terms go in --times)")
    parse.add_argument("--canvas-url", metavar="URL",
                       help="Canvas's address, for the submission times its download lacks "
                            "(the token from CANVAS_TOKEN in the environment)")
    parse.add_argument("--canvas-course", metavar="ID", help="the Canvas course's id")
    parse.add_argument("--canvas-assignment", metavar="ID",
                       help="the Canvas assignment's id: with --canvas-url, for its API; "
                            "alone, it names canvas-grades.csv's column as Canvas does")
    parse.add_argument("--jobs", type=within(int, 1, 64, BAD_JOBS), default=min(os.cpu_count() or 1, 64),
                       help="students marked at once (default: the machine's cores)")
    parse.add_argument("--force", action="store_true", help="mark unchanged students again")
    parse.add_argument("--students", metavar="A,B",
                       help="re-mark only these students (as the class names them, or a "
                            "platform's id); the others keep the last run's results as they "
                            "are")
    parse.add_argument("--isolation", choices=["auto", "namespaces", "fallback"], default="auto")
    parse.add_argument("--sandbox-per", choices=["student", "case"], default="student",
                       help="one sandbox for each student's program, its cases one after "
                            "another (student), or a fresh one per case (case)")
    parse.add_argument("--student-budget", type=within(float, 1, 3600, BAD_BUDGET), metavar="S",
                       help="CPU seconds all of one student's cases may use (default: the "
                            "assignment's student_budget, else none): past them, the cases "
                            "left are not run, most marks run first")
    parse.add_argument("--require", action="append", default=[], metavar="LAYER",
                       choices=sorted(REQUIREMENTS),
                       help="refuse to mark unless each run has it (as the assignment's "
                            f"`require`): {', '.join(sorted(REQUIREMENTS))}")
    parse.add_argument("--as-of", metavar="TIME",
                       help="write the pages as they are to be seen at TIME (ISO 8601; default: "
                            "now): cases shown after the deadline appear once it has passed")
    parse.add_argument("--published", action="store_true",
                       help="show the cases whose visibility is after_published, and those "
                            "after_due_date at once, windows still open or not")
    parse.add_argument("--pack-url", type=pack_url, metavar="URL",
                       help="where the student pack (make student-pack) is published: each "
                            "student's page says how to check their work with it")
    parse.add_argument("--overrides", type=Path, metavar="CSV",
                       help="marks a person corrects (columns student, what, mark, reason, "
                            "who; what: a case, PROGRAM/GROUP, a program or total): applied "
                            "after the marking, every run, never marking a student again")
    parse.add_argument("--anonymous", action="store_true",
                       help="name each student by a pseudonym on their pages, the summary and "
                            "the similarity pages, kept from run to run in "
                            f"OUT/{INSTRUCTOR}/{anonymous.KEY} (pseudonym, student, id); "
                            "grades.csv keeps the names")
    parse.add_argument("--similarity-min", type=within(float, 0, 1, BAD_SHARE), default=0.0,
                       metavar="S",
                       help="similarity.csv lists the pairs scoring at least S (default 0: all "
                            "that share code beyond the shared code)")
    spread = parse.add_argument_group(
        "marking beyond this machine", "plan each student's job here, mark the jobs on an "
        "engine's workers, collect each result here")
    spread.add_argument("--engine", choices=list(ENGINES), default="local",
                        help="local: this machine, --jobs students at once (the default); "
                             "dask-local: a Dask LocalCluster here; dask: the Dask cluster at "
                             "--scheduler; parallel: GNU parallel over ssh to --hosts")
    spread.add_argument("--workers", type=within(int, 1, 1024, BAD_JOBS), metavar="N",
                        help="dask-local: the workers it starts (default: the machine's cores)")
    spread.add_argument("--scheduler", metavar="ADDRESS",
                        help="dask: the scheduler's address (tcp://127.0.0.1:8786, "
                             "tls://host:8786)")
    spread.add_argument("--tls-ca", type=Path, metavar="FILE",
                        help="dask: the certificate authority of the cluster's certificates")
    spread.add_argument("--tls-cert", type=Path, metavar="FILE",
                        help="dask: this coordinator's client certificate")
    spread.add_argument("--tls-key", type=Path, metavar="FILE",
                        help="dask: its private key (TLS is required off loopback)")
    spread.add_argument("--hosts", type=Path, metavar="FILE",
                        help="parallel: GNU parallel's sshloginfile, read again while it runs")
    spread.add_argument("--worker-python", default="python3", metavar="PATH",
                        help="parallel: the Python the hosts run the worker with (default "
                             "python3)")
    spread.add_argument("--allow-fallback", action="store_true",
                        help="let workers mark in the fallback sandbox (no namespaces)")
    spread.add_argument("--host-margin", type=margin, default=25.0, metavar="PCT|off",
                        help="refuse a worker whose CPU time for the reference's cases differs "
                             "from this machine's by more than PCT percent (default 25; with "
                             "an engine other than local, and in a --plan-only's jobs; off: "
                             "no such check, and no reference marked)")
    ends = spread.add_mutually_exclusive_group()
    ends.add_argument("--plan-only", type=Path, metavar="DIR",
                      help="plan and mark nothing: the worker kit, DIR/jobs/*.tar.gz and "
                           f"DIR/{PLAN}, for `exactmark mark-one --share K/N DIR`")
    ends.add_argument("--collect", type=Path, metavar="DIR",
                      help="collect DIR/results/*.tar.gz as if an engine had delivered them, "
                           "then write the sheet, the pages and the similarity scan")
    return parse


def main(argv=None) -> int:
    parse = parser()
    options = parse.parse_args(argv)
    if not options.assignment:
        parse.error(NO_ASSIGNMENT.format(names=", ".join(names())))
    if not options.submissions.exists() and not options.submissions.is_symlink():
        print(STOPPED.format(problem=NO_SUCH_CLASS.format(path=escaped(str(
            options.submissions)))), file=sys.stderr)  # a typing slip: no usage to read
        return Exit.REFUSED
    if (not options.submissions.is_dir() or options.submissions.is_symlink()) \
            and not platform_class.is_download_archive(options.submissions):
        parse.error(NOT_A_CLASS.format(path=escaped(str(options.submissions))))
    if inside(options.out, options.submissions):
        parse.error(OUT_IN_CLASS.format(out=escaped(str(options.out)),
                                        submissions=escaped(str(options.submissions))))
    try:
        assignment = load(options.assignment)
        zone = assignment.deadline.tzinfo if assignment.deadline else None
        if options.times and assignment.deadline is None:
            raise ValueError(NO_DEADLINE.format(name=assignment.name))
        if options.ledger and assignment.late_days is None:
            raise ValueError(ledger.NO_BANK.format(name=assignment.name))
        times = read_times(options.times, zone, name_key, assignment.deadline) \
            if options.times else None
        term = ledger.read_ledger(options.ledger) if options.ledger else None
        corrected = overrides.read(options.overrides, assignment) if options.overrides else None
        key = anonymous.Key(options.out / INSTRUCTOR / anonymous.KEY)
    except (AssignmentError, ValueError) as problem:
        parse.error(str(problem))
    try:
        as_of = moment(options.as_of, zone) if options.as_of else datetime.now().astimezone()
    except ValueError:
        parse.error(BAD_AS_OF.format(text=options.as_of))
    try:  # what the engine or the plan to collect can tell at once, before any planning
        if options.collect is not None:
            plan_to_collect(options.collect, assignment)
        elif options.plan_only is None:
            engine(options.engine, options).check()
    except (EngineError, ValueError) as problem:
        print(STOPPED.format(problem=escaped(str(problem), most=600)), file=sys.stderr)
        return Exit.REFUSED
    # From here a stop (Ctrl-C, SIGTERM, SIGHUP) is a KeyboardInterrupt, even if inherited as
    # ignored: the scratch folder (a class's whole download, unpacked) is removed on the way out.
    before = {number: signal.signal(number, signal.default_int_handler)
              for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    scratch = Path(tempfile.mkdtemp(prefix="mark-class-"))
    try:
        taken, students = the_class(options, assignment, times, scratch)
        bank(assignment, students, term)
        if corrected is not None:
            corrected.check_class([known_as(student) for student in students])
            teams = [student.name for student in students
                     if len(student.members) > 1 and corrected.of(known_as(student))]
            if teams:
                print(TEAM_OVERRIDDEN.format(count=len(teams), names=", ".join(teams)),
                      file=sys.stderr)
        named = regrade.named(students, options.students) if options.students else None
    except BaseException as problem:
        remove_tree(scratch)
        handlers_back(before)
        if isinstance(problem, ValueError):  # the download said so: no usage, not wrong
            print(STOPPED.format(problem=problem), file=sys.stderr)
            return Exit.REFUSED
        if isinstance(problem, KeyboardInterrupt):
            print(READ_INTERRUPTED, file=sys.stderr)
            return Exit.INTERRUPTED
        raise
    out = options.out.absolute()
    os.umask(0o077)  # the class's files are the instructor's alone: a run never reads them
    (out / INSTRUCTOR).mkdir(mode=0o700, parents=True, exist_ok=True)
    own_only(out)
    if not options.plan_only:  # a plan writes no scan (and would end while it imports)
        threading.Thread(target=importlib.import_module, args=(SIMILARITY,), daemon=True).start()
    marking = ClassMarking(options, assignment, out, scratch, corrected)
    marking.named = named
    try:
        if options.plan_only:
            folder = options.plan_only.absolute()
            try:
                jobs, decided = marking.plan_only(folder, students)
            except ValueError as problem:  # the assignment's files: where no kit holds them
                print(STOPPED.format(problem=problem), file=sys.stderr)
                return Exit.REFUSED
            print(PLANNED.format(jobs=jobs, folder=folder, kit=marking.kit.name,
                                 jobs_folder=folder / JOBS, plan=folder / PLAN, decided=decided))
            return Exit.PASSED
        marked = marking.collect_from(options.collect.absolute(), students) if options.collect \
            else marking.run(students)
        outcomes = [marking.overridden(outcome) for outcome in marked]
        for line in marking.unmarked_said:
            print(line, file=sys.stderr)
        if marking.dropped:
            print(OVERRIDES_DROPPED.format(count=len(marking.dropped),
                                           names=", ".join(marking.dropped)), file=sys.stderr)
        full = sum(outcome.disk_full for outcome in outcomes)
        if full:
            print(DISK_FILLED.format(count=full), file=sys.stderr)
        for line in entries_said(outcomes):
            print(line, file=sys.stderr)
        kept = sum(outcome.kept and not outcome.stale for outcome in outcomes)
        if kept:
            print(SKIPPED.format(count=kept), file=sys.stderr)
        changed = regrade.changed_marks(outcomes)
        regrade.write_changed(out / regrade.CHANGED_MARKS, changed, outcomes)
        for line in regrade.said(outcomes, changed, out / regrade.CHANGED_MARKS):
            print(line, file=sys.stderr)
        masks = pseudonyms(key, outcomes, options.submissions) if options.anonymous else {}
        scanned = similar_pairs(out, assignment, outcomes, options, scratch, masks)
        rows = [pages.grade_row(outcome, assignment) for outcome in outcomes]
        view = pages.View(assignment, as_of, options.published, options.pack_url or "",
                          tuple(student.terms for student in students)  # and those who have
                          + tuple(taken.terms.values() if taken else ())  # not handed in yet
                          + tuple(timed.terms for timed in (times or {}).values()),
                          anonymous=options.anonymous)
        shown = student_pages(out, outcomes, rows, view, masks, key)
        for outcome, row in zip(outcomes, rows):  # the sheet's alone: no page names a host
            if outcome.worker:
                row.notes.append(MARKED_ON.format(host=escaped(str(outcome.worker["host"])),
                                                  cpu=escaped(str(outcome.worker["cpu"]))))
        pairs = platform_class.member_rows(taken, outcomes, rows, list(assignment.marked_cases),
                                           assignment, as_of) \
            if taken else [(None, row) for row in rows]
        still_open = [row.student for _, row in pairs if sheet.STILL_OPEN in row.statuses]
        if still_open:
            print(STILL_OPEN.format(count=len(still_open), names=", ".join(still_open)),
                  file=sys.stderr)
        sheet.write_grades(out / "grades.csv", list(assignment.marked_cases),
                           [row for _, row in pairs])
        sheet.write_similarity(out / "similarity.csv", scanned.pairs)
        pages.write_summary(out, [outcome for outcome, _ in shown], [row for _, row in shown],
                            scanned, view,
                            {row.student: row.page for _, row in shown},
                            options.similarity_min,
                            [row.student for _, row in pairs if sheet.NO_SUBMISSION in row.statuses],
                            regrade.summary(outcomes, changed, {
                                outcome.student.name: masks[outcome.student.folder].pseudonym.pseudonym
                                for outcome in outcomes if outcome.student.folder in masks}))
        back, not_back, zipped, not_kept = None, "", None, ""
        if taken:
            zipped, attached = platform_class.feedback_files(taken, out, pairs)
            try:
                back = taken.module.write_back(out, taken.download, platform_class.returned(
                    pairs, assignment, {row.page: outcome.student
                                        for outcome, row in zip(outcomes, rows)}, attached),
                    taken.context)
            except ValueError as problem:
                not_back = str(problem)
        spent = ledger.spent_rows(assignment, students, rows, term) if term is not None else []
        if spent:  # none: no time known, so nothing spent; the ledger stays as it was
            try:
                ledger.write_ledger(options.ledger, assignment, spent,
                                    ledger.timed_people(assignment, students))
            except (OSError, ValueError) as problem:
                not_kept = str(problem)
    except KeyboardInterrupt:
        print(INTERRUPTED.format(done=marking.done, total=len(students), out=escaped(str(out)),
                                 unforced=UNFORCED if options.force else ""),
              file=sys.stderr)
        return Exit.INTERRUPTED
    finally:
        handlers_back(before)
        remove_tree(scratch)
    print(WROTE.format(grades=out / "grades.csv", similarity=out / "similarity.csv",
                       summary=out / "summary.html", students=out / STUDENTS,
                       instructor=out / INSTRUCTOR)
          + (WROTE_BACK.format(platform=taken.platform, path=back) if back else "")
          + (WROTE_PAGES.format(path=zipped, said=taken.module.FEEDBACK_ZIP_SAID)
             if zipped else "")
          + (WROTE_KEY.format(path=out / INSTRUCTOR / anonymous.KEY) if options.anonymous
             else ""))
    if taken and back is None and taken.module.NOT_WRITTEN and not not_back:
        print(NOT_WRITTEN.format(said=taken.module.NOT_WRITTEN), file=sys.stderr)
    if not_back:
        print(NOT_BACK.format(platform=taken.platform, problem=not_back), file=sys.stderr)
        return Exit.REFUSED
    if marking.engine_failed:
        print(ENGINE_FAILED.format(problem=marking.engine_failed), file=sys.stderr)
        return Exit.REFUSED
    if not_kept:
        print(LEDGER_NOT_WRITTEN.format(path=escaped(str(options.ledger)),
                                        problem=escaped(not_kept)), file=sys.stderr)
        return Exit.REFUSED
    return Exit.PASSED


def plan_to_collect(folder: Path, assignment) -> None:
    """--collect DIR: ValueError (a line) unless DIR holds a plan (--plan-only) of this
    assignment as it is now."""
    try:
        with open(folder / PLAN, "rb") as file:
            plan = json.loads(file.read(PLAN_MOST))
        fingerprint = plan["fingerprint"]
    except (OSError, ValueError, TypeError, KeyError):
        raise ValueError(NO_PLAN.format(folder=escaped(str(folder)))) from None
    if fingerprint != assignment_fingerprint(assignment):
        raise ValueError(PLAN_OF_ANOTHER.format(folder=escaped(str(folder)),
                                                name=assignment.name))


def bank(assignment, students: list, term) -> None:
    """Each student's late days left, from the term's ledger `term`, for an assignment with
    a bank; ValueError (a line that stops the run) when a time is known and no ledger given."""
    if assignment.late_days is None:
        return
    if term is None:
        if any(student.submitted for student in students):
            raise ValueError(ledger.NEEDS_LEDGER.format(name=assignment.name))
        return
    ledger.give_days_left(term, assignment, students)
    said = ledger.out_of_order(term, assignment)
    if said:
        print(said, file=sys.stderr)


def overridden_before(path: Path) -> bool:
    """Whether the instructor's results.json of the last run held an override."""
    try:
        return bool(json.loads(path.read_text(encoding="utf-8"))["extra_data"]["overrides"])
    except (OSError, ValueError, TypeError, KeyError):
        return False


def mark_kept(folder: Path, mark: float) -> None:
    """The mark a run gave, overrides applied, kept in the student's state: the next run
    lists it as `before` where it changes (exactmark.classroom.regrade)."""
    try:
        state = json.loads((folder / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # no state: the next run marks the student whole, and has no before
    if isinstance(state, dict) and state.get("mark") != mark:
        (folder / STATE).write_text(json.dumps({**state, "mark": mark}), encoding="utf-8")


def handlers_back(before: dict) -> None:
    """The signal handlers as they were before the run (main in a test's process)."""
    for number, handler in before.items():
        signal.signal(number, handler)


def the_class(options, assignment, times, scratch: Path) -> tuple:
    """(the platform's download as taken, or None for a class folder; the students), what
    is said of them said first. ValueError: a line that stops the run."""
    try:
        taken = platform_class.take(options, assignment, scratch)
    except platform_class.Ambiguous as said:
        print(said, file=sys.stderr)
        taken = None
    if taken is None:
        students = class_of(options.submissions, times)
        warn(students, times)
        return None, students
    print(taken.said, file=sys.stderr)
    if assignment.deadline is None and any(handin.submitted for handin in taken.handins):
        print(NO_DEADLINE_PLATFORM.format(name=assignment.name, platform=taken.platform),
              file=sys.stderr)
    students, unknown = platform_class.students_of(taken, options.submissions, times,
                                                   assignment.deadline)
    warn(students, times, unknown, untimed_said=UNTIMED_HANDINS)
    late = [student.name for student in students if student.untimed_note
            == platform_class.LATE_UNTIMED.format(platform=taken.platform)]
    if late:
        print(LATE_UNMARKED.format(count=len(late), platform=taken.platform,
                                   names=", ".join(late)), file=sys.stderr)
    return taken, students


def warn(students: list, times, unknown: list = None, untimed_said: str = UNTIMED) -> None:
    """What the times and the class do not agree on, said before marking (`unknown`: the
    names of the times file no student has, when the class says them itself)."""
    if times is not None:
        unknown = unknown_in_times(students, times) if unknown is None else unknown
        if unknown:
            print(UNKNOWN_STUDENTS.format(names=", ".join(escaped(name) for name in unknown)),
                  file=sys.stderr)
    untimed = [student.name for student in students
               if student.untimed and student.untimed_note != NO_TIME_GIVEN]
    if untimed:
        print(untimed_said.format(count=len(untimed), names=", ".join(untimed)),
              file=sys.stderr)
    waiting = [student.name for student in students if student.untimed_note == NO_TIME_GIVEN]
    if waiting:
        print(TERMS_UNTIMED.format(count=len(waiting), names=", ".join(waiting)),
              file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main(from_make.arguments(parser(), [("MARK_ASSIGNMENT", "--assignment"),
                                                 ("MARK_OUT", "--out"), ("MARK_TIMES", "--times"),
                                                 ("MARK_LEDGER", "--ledger"),
                                                 ("MARK_OVERRIDES", "--overrides"),
                                                 ("MARK_STUDENTS", "--students"),
                                                 ("MARK_ENGINE", "--engine"),
                                                 ("MARK_SCHEDULER", "--scheduler"),
                                                 ("MARK_HOSTS", "--hosts")],
                                      "MARK_SUBMISSIONS", NO_SUBMISSIONS,
                                      flags=[("MARK_ANONYMOUS", "--anonymous")])
                  if "MARK_SUBMISSIONS" in os.environ else None))
