"""Marking a whole class: the grade sheet, the late rule from a times file, what a
student sees, and a second run that keeps what did not change."""

import argparse
import csv
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from exactmark.classroom.mark_class import ClassMarking, Outcome
from exactmark.classroom.roster import Student
from exactmark.kit.assignment import load
from exactmark.kit.cases import ROOT, load_cases
from exactmark.kit.bundle import write_all

VISIBLE, HIDDEN = ["seed_0", "seed_27"], ["seed_43", "seed_705"]
ASSIGNMENT = """title = "A class's test"
marks = 10
cpu_seconds = 30
deadline = 2027-03-09T09:00:00
time_zone = "Australia/Sydney"

[late]
days = 5
cap_per_day = 0.1

[[programs]]
name = "solitaire_1"
kit_only = {kit_only_1}

  [[programs.groups]]
  name = "shown"
  marks = 4
  cases = {visible}
  visibility = "visible"

  [[programs.groups]]
  name = "kept back"
  marks = 4
  cases = {hidden}
  visibility = "after_due_date"

[[programs]]
name = "solitaire_2"
kit_only = {kit_only_2}

  [[programs.groups]]
  name = "one game"
  marks = 2
  cases = ["seed_0_full"]
  visibility = "visible"
"""
TIMES = "student,submitted\nann,2027-03-10T10:00\nbob,2027-03-20T10:00\n"


def others(program, marked):
    return json.dumps([case.name for case in load_cases(program) if case.name not in marked])


@pytest.fixture(scope="module")
def marked_class(tmp_path_factory):
    """ann: right, 25 hours late (two days); bob: "Eigth", ten days late; cal: an archive
    holding solitaire_1 alone, not in the times file; a stray file; all marked once."""
    root = tmp_path_factory.mktemp("class")
    solutions, klass = root / "solutions", root / "submissions"
    write_all(solutions)
    for student in ("ann", "bob"):
        (klass / student).mkdir(parents=True)
        for program in ("solitaire_1", "solitaire_2"):
            text = (solutions / f"{program}.py").read_text(encoding="utf-8")
            if student == "bob" and program == "solitaire_1":
                text = text.replace('"Eighth"', '"Eigth"')
            (klass / student / f"{program}.py").write_text(text, encoding="utf-8")
    with zipfile.ZipFile(klass / "cal.zip", "w") as archive:
        archive.write(solutions / "solitaire_1.py", "cal/solitaire_1.py")
    (klass / "notes.txt").write_text("not a submission\n")
    assignment = root / "class_test.toml"
    assignment.write_text(ASSIGNMENT.format(
        visible=json.dumps(VISIBLE), hidden=json.dumps(HIDDEN),
        kit_only_1=others("solitaire_1", VISIBLE + HIDDEN),
        kit_only_2=others("solitaire_2", ["seed_0_full"])), encoding="utf-8")
    (root / "times.csv").write_text(TIMES, encoding="utf-8")
    out = root / "marked"
    done = mark_class(klass, assignment, out, "--times", str(root / "times.csv"))
    return root, klass, assignment, out, done


def mark_class(klass, assignment, out, *options):
    return subprocess.run([sys.executable, "-m", "exactmark.classroom.mark_class", str(klass),
                           "--assignment", str(assignment), "--out", str(out), "--jobs", "2",
                           *options], cwd=ROOT, capture_output=True, text=True, timeout=600)


def sheet(out):
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def test_the_grade_sheet_has_a_row_per_student_with_the_late_rule_applied(marked_class):
    _, _, _, out, done = marked_class
    assert done.returncode == 0, done.stderr
    rows = sheet(out)
    assert list(rows) == ["ann", "bob", "cal", "notes.txt"]
    ann, bob, cal, stray = rows["ann"], rows["bob"], rows["cal"], rows["notes.txt"]
    assert (ann["raw total"], ann["days late"], ann["mark"], ann["status"], ann["cases passed"]) \
        == ("10.00", "2", "8.00", "marked", "5/5")  # two days late: the maximum is 80%
    assert (bob["days late"], bob["mark"], bob["status"]) == ("12", "0.00", "late beyond the limit")
    assert float(bob["raw total"]) < 10 and bob["solitaire_2"] == "2.00"
    assert (cal["solitaire_1"], cal["solitaire_2"], cal["status"], cal["days late"]) == \
        ("8.00", "0.00", "missing program; no submission time", "")
    assert stray["status"] == "refused" and "neither a folder nor" in stray["note"]


def test_a_student_sees_the_visible_cases_in_full_and_the_others_only_counted(marked_class):
    _, _, _, out, _ = marked_class
    feedback = (out / "students" / "bob" / "feedback.txt").read_text(encoding="utf-8")
    assert "Student: bob" in feedback
    assert "solitaire_1/seed_27: failed" in feedback
    assert "-Eighth␠(and␠last)" in feedback and "+Eigth␠(and␠last)" in feedback
    assert "seed_43" not in feedback and "seed_705" not in feedback
    assert "2 cases (solitaire_1, kept back) shown from 2027-03-14 09:00 (Australia/Sydney), " \
           "once no late submission can be accepted" in feedback
    assert "more than 5 days late" in feedback
    page = (out / "students" / "bob" / "feedback.html").read_text(encoding="utf-8")
    assert '<pre class="diff">' in page and "seed_43" not in page


def test_the_summary_lists_the_failing_cases_worst_first_and_links_each_student(marked_class):
    _, _, _, out, _ = marked_class
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert '<a href="students/bob/feedback.html">bob</a>' in summary
    assert summary.index("solitaire_1, shown (2 cases") < summary.index("solitaire_1, kept back")
    assert "solitaire_1/seed_27</td><td class=\"number\">1 of 3" in summary
    assert "one line differs" in summary and "<svg" in summary


def test_a_second_run_keeps_unchanged_students_and_marks_a_changed_one(marked_class, tmp_path):
    _, klass, assignment, out, _ = marked_class
    before = (out / "grades.csv").read_bytes()
    again = mark_class(klass, assignment, out, "--times", str(out.parent / "times.csv"))
    assert again.returncode == 0, again.stderr
    assert "3 student(s) unchanged since the last run" in again.stderr
    assert (out / "grades.csv").read_bytes() == before
    copy = tmp_path / "class"
    subprocess.run(["cp", "-r", str(klass), str(copy)], check=True)
    fixed = copy / "bob" / "solitaire_1.py"
    fixed.write_text(fixed.read_text(encoding="utf-8").replace('"Eigth"', '"Eighth"'),
                     encoding="utf-8")
    third = mark_class(copy, assignment, out)
    assert "1 student(s) unchanged" in third.stderr  # cal; ann and bob lost their times
    assert sheet(out)["bob"]["cases passed"] == "5/5"


@pytest.mark.parametrize("times, said", [
    ("name,when\nann,2027-03-10T10:00\n", "not a CSV with the columns student and submitted"),
    ("student,submitted\nann,next tuesday\n", "line 2: 'next tuesday' is not a date and time"),
])
def test_a_times_file_that_cannot_be_read_is_refused_before_marking(marked_class, tmp_path,
                                                                    times, said):
    _, klass, assignment, _, _ = marked_class
    (tmp_path / "times.csv").write_text(times, encoding="utf-8")
    done = mark_class(klass, assignment, tmp_path / "out", "--times", str(tmp_path / "times.csv"))
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_each_report_names_the_student_s_entry_not_the_copy_that_was_marked(marked_class):
    """(A second run, above, may have marked ann again from another class folder.)"""
    _, _, _, out, _ = marked_class
    for student, entry in (("ann", "ann"), ("cal", "cal.zip")):
        first = (out / "instructor" / student / "report.txt").read_text().splitlines()[0]
        named = Path(first.partition(" against ")[0].removeprefix("Marking "))
        assert named.name == entry and named.exists(), first


def test_a_program_not_handed_in_is_said_so_and_its_cases_not_counted(marked_class):
    """cal handed in solitaire_1 alone: its 4 cases pass, and solitaire_2's case was never
    run, so it is not "4 of 5"."""
    _, _, _, out, _ = marked_class
    page = (out / "students" / "cal" / "feedback.txt").read_text(encoding="utf-8").splitlines()
    status = next(line for line in page if line.startswith("Status: "))
    assert status.startswith("Status: missing program") and status.endswith(
        " Cases passed: 4 of 4."), status
    assert any(line.startswith("- solitaire_2.py is not in the submission") for line in page), page
    assert f"<p>{status}</p>" in (out / "students" / "cal" / "feedback.html").read_text()


class Instant(ClassMarking):
    """The class marker with each student's marking stubbed: what it says as it goes."""

    def mark_one(self, student):
        return Outcome(student, refused="not a folder") if student.kind == "refused" else \
            Outcome(student, {"score": 1, "extra_data": {}}, kept=student.name == "bob")


def test_off_a_terminal_each_student_gets_a_line_with_its_time(tmp_path, capsys):
    """A log or a CI job draws no bar: it gets a line per student as each is done (the
    order of the lines is the order they finish in; two at once may end either way)."""
    students = [Student(name, tmp_path / name, kind, folder=name)
                for name, kind in (("ann", "folder"), ("bob", "folder"), ("cy.txt", "refused"))]
    options = argparse.Namespace(student_budget=None, jobs=2)
    outcomes = Instant(options, load("seeded"), tmp_path / "out", tmp_path).run(students)
    assert [outcome.student.name for outcome in outcomes] == ["ann", "bob", "cy.txt"]
    lines = capsys.readouterr().err.splitlines()
    assert sorted(re.sub(r"^\d/3 students: | in \d+\.\d s$", "", line) for line in lines) == [
        "ann marked", "bob kept from the last run", "cy.txt refused"], lines
    assert [line.split(":")[0] for line in lines] == ["1/3 students", "2/3 students",
                                                      "3/3 students"]
