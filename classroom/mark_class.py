"""Mark a whole class: `make mark-class SUBMISSIONS=DIR ASSIGNMENT=NAME [OUT=DIR]`.

    python3 -m classroom.mark_class DIR --assignment NAME [--out DIR] [--times CSV]
                                    [--jobs N] [--force] [--isolation ...]

Each entry of DIR is one student (a folder, or a .zip/.tar.gz archive, unpacked
safely). Students are marked in parallel, each by the marker of one submission
(`marking.mark`, in its sandbox), and each student's results are written as soon
as they are known: an interrupted run keeps what it did, and the next run skips
a student whose submission, assignment and golden cases are unchanged (--force
marks everyone again). Then OUT gets grades.csv, a feedback page per student
(HTML and text: the assignment's visible cases only) and summary.html (marks,
the cases the class fails, the near misses, the most similar submissions).
"""

import argparse
import csv
import hashlib
import importlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from tqdm import tqdm

from classroom import pages
from classroom.unpack import entries, unpack
from golden.cases import ROOT
from marking.assignment import AssignmentError, load, names
from marking.tree import Limits, Refused, copy_tree, remove_tree
from standalone.bundle import write_all

STATE = "state.json"
RESULTS = "results.json"
REPORT = "report.txt"
PROGRAMS = "programs"
PROGRESS_LINE = re.compile(r"^\[(\d+)/(\d+)\]")
SIMILARITY = "classroom.similarity"  # a second to import (copydetect brings matplotlib)

MARKED, MISSING, REFUSED, TOO_LATE, FAILED = (
    "marked", "missing program", "refused", "late beyond the limit", "marker error")
NO_TIMES = "{path}: not a CSV with the columns student and submitted"
BAD_TIME = "{path}, line {line}: {text!r} is not a date and time such as 2027-03-11T14:30"
UNKNOWN_STUDENTS = "warning: submission times for students not in the class: {names}"
SKIPPED = "{count} student(s) unchanged since the last run: kept (--force marks them again)"
WROTE = "Wrote {grades}, {summary} and a feedback page per student in {students}"
NO_SUBMISSIONS = ("give the folder of the class's submissions: make mark-class SUBMISSIONS=DIR "
                  "ASSIGNMENT=NAME")
NO_ASSIGNMENT = ("say which assignment to mark against: --assignment NAME (make mark-class "
                 "ASSIGNMENT=NAME); the assignments are: {names}")
BAD_ARGS = "ARGS cannot be read as options: {problem}"
INTERRUPTED = "interrupted: the students marked so far are kept in {out}; run again to go on"
MARKER_FAILED = "the marker ended with status {status}: {said}"


@dataclass
class Student:
    name: str
    entry: Path
    kind: str  # folder, archive or refused
    reason: str = ""
    submitted: datetime = None


def slug(name: str) -> str:
    """A folder name for the student's files: their name where it is plain, else a
    plain form of it and a hash, so that no two students share a folder."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}", name):
        return name
    plain = re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:40].strip("._") or "student"
    return f"{plain}-{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"


def read_times(path: Path, assignment) -> dict:
    """student -> when submitted, in the assignment's time zone unless the CSV says one."""
    zone = assignment.deadline.tzinfo if assignment.deadline else None
    times = {}
    with open(path, newline="", encoding="utf-8") as file:
        rows = csv.DictReader(file)
        if not rows.fieldnames or {"student", "submitted"} - set(rows.fieldnames):
            raise ValueError(NO_TIMES.format(path=path))
        for row in rows:
            try:
                when = datetime.fromisoformat(row["submitted"].strip())
            except ValueError:
                raise ValueError(BAD_TIME.format(path=path, line=rows.line_num,
                                                 text=row["submitted"])) from None
            times[row["student"].strip()] = when.replace(tzinfo=zone) if when.tzinfo is None \
                and zone else when
    return times


def fingerprint(folder: Path) -> str:
    """A hash of every file below `folder` (a copy the marker owns): names and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(str(path.relative_to(folder)).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def assignment_fingerprint(assignment) -> str:
    """The assignment file and every golden case it marks: a regrade changes it."""
    digest = hashlib.sha256(assignment.path.read_bytes())
    for cases in assignment.programs.values():
        for marked in cases:
            for path in sorted(marked.case.folder.glob(f"{marked.case.name}.*")):
                digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


class ClassMarking:
    """One run over a class: its students, the bars, and where each result goes."""

    def __init__(self, options, assignment, out: Path, scratch: Path):
        self.options, self.assignment, self.out, self.scratch = options, assignment, out, scratch
        self.cases_each = sum(len(cases) for cases in assignment.programs.values())
        self.regrade_key = assignment_fingerprint(assignment)
        self.lock = threading.Lock()
        self.bar = None

    def folder_of(self, student: Student) -> Path:
        return self.folder_of_name(student.name)

    def folder_of_name(self, name: str) -> Path:
        return self.out / "students" / slug(name)

    def copy_in(self, student: Student) -> Path:
        """The submission in a folder of ours, unpacked or copied without following a link."""
        into = self.scratch / slug(student.name)
        if student.kind == "archive":
            unpack(student.entry, into, Limits())
        else:
            into.mkdir(mode=0o700)
            copy_tree(student.entry, into, skip=lambda name: None, limits=Limits())
        return into

    def mark(self, student: Student) -> dict:
        """Mark one student, unless nothing changed since the last run; the row for the sheet."""
        folder = self.folder_of(student)
        folder.mkdir(parents=True, exist_ok=True)
        if student.kind == "refused":
            return self.finish(student, folder, None, REFUSED, student.reason)
        try:
            copy = self.copy_in(student)
        except Refused as problem:
            return self.finish(student, folder, None, REFUSED, str(problem))
        self.keep_programs(copy, folder)
        key = {"submission": fingerprint(copy), "assignment": self.regrade_key,
               "submitted": student.submitted.isoformat() if student.submitted else None}
        state = folder / STATE
        if not self.options.force and state.exists() and (folder / RESULTS).exists():
            kept = json.loads(state.read_text(encoding="utf-8"))
            if kept.get("key") == key:
                remove_tree(copy)
                self.advance(self.cases_each)
                kept["row"]["kept"] = True
                return kept["row"]
        results, problem = self.run_marker(copy, folder, student)
        remove_tree(copy)
        if results is None:
            return self.finish(student, folder, None, FAILED, problem)
        data = results["extra_data"]
        late = data.get("late")
        status = (MISSING if not all(p["submitted"] for p in data["programs"].values())
                  else TOO_LATE if late and not late["accepted"] else MARKED)
        row = self.finish(student, folder, results, status, "")
        (folder / STATE).write_text(json.dumps({"key": key, "row": row}), encoding="utf-8")
        return row

    def keep_programs(self, copy: Path, folder: Path) -> None:
        """The student's programs, kept beside their results for the similarity scan."""
        kept = folder / PROGRAMS
        kept.mkdir(mode=0o700, exist_ok=True)
        for program in self.assignment.programs:
            source, target = copy / f"{program}.py", kept / f"{program}.py"
            target.unlink(missing_ok=True)
            if source.is_file() and not source.is_symlink():
                target.write_bytes(source.read_bytes())

    def run_marker(self, copy: Path, folder: Path, student: Student):
        """The marker of one submission, its progress lines moving the class's bar."""
        command = [sys.executable, "-m", "marking.mark", str(copy), "--assignment",
                   str(self.assignment.path), "--json", str(folder / RESULTS), "--jobs", "1",
                   "--isolation", self.options.isolation]
        if student.submitted is not None:
            command += ["--submitted", student.submitted.isoformat()]
        (folder / RESULTS).unlink(missing_ok=True)
        with open(folder / REPORT, "wb") as report:
            process = subprocess.Popen(command, cwd=ROOT, stdout=report, stderr=subprocess.PIPE)
            said, moved = [], 0
            for line in process.stderr:
                text = line.decode("utf-8", "replace").rstrip("\n")
                if PROGRESS_LINE.match(text):
                    moved += 1
                    self.advance(1)
                else:
                    said.append(text)
            status = process.wait()
        self.advance(self.cases_each - moved)
        if status not in (0, 1) or not (folder / RESULTS).exists():
            return None, MARKER_FAILED.format(status=status, said=" ".join(said)[-300:])
        return json.loads((folder / RESULTS).read_text(encoding="utf-8")), ""

    def advance(self, cases: int) -> None:
        if self.bar is not None and cases > 0:
            with self.lock:
                self.bar.update(cases)

    def finish(self, student: Student, folder: Path, results, status: str, reason: str) -> dict:
        """The grade-sheet row, and the student's feedback pages."""
        row = pages.grade_row(student.name, self.assignment, results, status, reason)
        pages.write_feedback(folder, student.name, self.assignment, results, row)
        return row

    def run(self, students: list) -> list:
        total = len(students) * self.cases_each
        rows = []
        with tqdm(total=total, unit="case", file=sys.stderr, dynamic_ncols=True,
                  disable=None, desc="0/{} students".format(len(students))) as self.bar:
            with ThreadPoolExecutor(self.options.jobs) as pool:
                futures = [pool.submit(self.mark, student) for student in students]
                for done, future in enumerate(as_completed(futures), 1):
                    rows.append(future.result())
                    with self.lock:
                        self.bar.set_description(f"{done}/{len(students)} students")
        return sorted(rows, key=lambda row: row["student"])


def similar_pairs(out: Path, assignment, rows: list, folder_of, scratch: Path) -> list:
    """The most similar pairs of the class's programs; the sample solutions are the
    code everyone may share."""
    from classroom.similarity import scan  # imported by then, while the students were marked

    shared = scratch / "shared"
    write_all(shared)
    submissions = {row["student"]: folder_of(row["student"]) / PROGRAMS for row in rows
                   if (folder_of(row["student"]) / PROGRAMS).is_dir()}
    programs = [f"{program}.py" for program in assignment.programs]
    return scan(submissions, programs, [shared / name for name in programs], out)


def class_of(folder: Path, times: dict) -> list:
    students = [Student(name, path, kind, reason) for name, path, kind, reason in entries(folder)]
    for student in students:
        student.submitted = times.get(student.name)
    return students


def arguments_from_make() -> list:
    """`make mark-class` hands its variables over in the environment, so that no shell or
    make re-reads them: a path may hold any byte."""
    try:
        options = shlex.split(os.environ.get("MARK_ARGS", ""))
    except ValueError as problem:
        parser().error(BAD_ARGS.format(problem=problem))
    for variable, option in (("MARK_ASSIGNMENT", "--assignment"), ("MARK_OUT", "--out"),
                             ("MARK_TIMES", "--times")):
        if os.environ.get(variable):
            options += [option, os.environ[variable]]
    if not os.environ.get("MARK_SUBMISSIONS"):
        parser().error(NO_SUBMISSIONS)
    return [*options, "--", os.environ["MARK_SUBMISSIONS"]]


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="python3 -m classroom.mark_class", description=__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("submissions", type=Path, help="one entry per student")
    parse.add_argument("--assignment", metavar="NAME",
                       help="an assignment of assignments/, or the path of a FILE.toml")
    parse.add_argument("--out", type=Path, default=Path("marked"), help="where the results go")
    parse.add_argument("--times", type=Path, metavar="CSV",
                       help="submission times (columns student, submitted): applies the late rule")
    parse.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                       help="students marked at once (default: the machine's cores)")
    parse.add_argument("--force", action="store_true", help="mark unchanged students again")
    parse.add_argument("--isolation", choices=["auto", "namespaces", "fallback"], default="auto")
    return parse


def main(argv=None) -> int:
    parse = parser()
    options = parse.parse_args(argv)
    if not options.assignment:
        parse.error(NO_ASSIGNMENT.format(names=", ".join(names())))
    if not options.submissions.is_dir() or options.submissions.is_symlink():
        parse.error(f"{options.submissions}: not a folder of submissions")
    try:
        assignment = load(options.assignment)
        times = read_times(options.times, assignment) if options.times else {}
    except (AssignmentError, ValueError, OSError) as problem:
        parse.error(str(problem))
    students = class_of(options.submissions, times)
    unknown = sorted(set(times) - {student.name for student in students})
    if unknown:
        print(UNKNOWN_STUDENTS.format(names=", ".join(map(repr, unknown))), file=sys.stderr)
    out = options.out.absolute()
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="mark-class-"))
    threading.Thread(target=importlib.import_module, args=(SIMILARITY,), daemon=True).start()
    try:
        marking = ClassMarking(options, assignment, out, scratch)
        rows = marking.run(students)
        kept = sum(bool(row.get("kept")) for row in rows)
        if kept:
            print(SKIPPED.format(count=kept), file=sys.stderr)
        pages.write_grades(out / "grades.csv", assignment, rows)
        pages.write_summary(out, assignment, rows, marking.folder_of_name,
                            similar_pairs(out, assignment, rows, marking.folder_of_name, scratch))
    except KeyboardInterrupt:
        print(INTERRUPTED.format(out=out), file=sys.stderr)
        return 130
    finally:
        remove_tree(scratch)
    print(WROTE.format(grades=out / "grades.csv", summary=out / "summary.html",
                       students=out / "students"))
    return 0


if __name__ == "__main__":
    sys.exit(main(arguments_from_make() if "MARK_SUBMISSIONS" in os.environ else None))
