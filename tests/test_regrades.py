"""Regrades (exactmark/classroom/regrade.py, exactmark/marking/reuse.py): after a golden case
changes, only it is run again and the changed marks are listed with before and after; a
change to the marks alone runs nothing; --students re-marks only those named. A tiny
assignment of its own, copied into tmp_path: one program, `up`, that shouts its input; three
cases worth 2 marks each."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from exactmark.classroom import regrade
from exactmark.classroom.roster import Student
from exactmark.platforms.download import Person
from exactmark.kit.cases import ROOT
from exactmark.marking import reuse
from exactmark.marking.report import CASE_LINE, KIND_WIDTH

ASSIGNMENT = """title = "Shouting"
marks = {marks}
cpu_seconds = 10

[[programs]]
name = "up"
reference = "reference"
cases = "cases/up"

  [[programs.groups]]
  name = "words"
  marks = {marks}
  cases = ["*"]
  visibility = "visible"
"""
SHOUT = "import sys\nsys.stdout.write(sys.stdin.read().upper())\n"
# ann shouts; bob drops an E from BEE; cy moos where a cow is.
STUDENTS = {"ann": SHOUT,
            "bob": "import sys\nsys.stdout.write(sys.stdin.read().upper().replace('BEE', 'BE'))\n",
            "cy": "import sys\nsys.stdout.write(sys.stdin.read().upper().replace('COW', 'MOO'))\n"}
CASES = {"ant": "ANT\n", "bee": "BEE\n", "cow": "COW\n"}


@pytest.fixture
def course(tmp_path):
    """The assignment (6 marks), its cases, the class, and the first run's results."""
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "up.py").write_text(SHOUT, encoding="utf-8")
    cases = tmp_path / "cases" / "up"
    cases.mkdir(parents=True)
    for name, out in CASES.items():
        (cases / f"{name}.in").write_text(name + "\n", encoding="utf-8")
        (cases / f"{name}.out").write_text(out, encoding="utf-8")
    (tmp_path / "up.toml").write_text(ASSIGNMENT.format(marks=6), encoding="utf-8")
    for student, program in STUDENTS.items():
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "up.py").write_text(program, encoding="utf-8")
    first = mark_class(tmp_path)
    assert first.returncode == 0, first.stderr
    # ann 3 of 3, bob 2 of 3 (bee), cy 2 of 3 (cow): 2 marks a case
    assert marks(tmp_path) == {"ann": "6.00", "bob": "4.00", "cy": "4.00"}
    assert not (tmp_path / "marked" / regrade.CHANGED_MARKS).exists()  # no mark before a first
    return tmp_path


def mark_class(root, *options):
    return subprocess.run([sys.executable, "-m", "exactmark.classroom.mark_class",
                           str(root / "class"), "--assignment", str(root / "up.toml"),
                           "--out", str(root / "marked"), "--jobs", "2", *options],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def grades(root) -> dict:
    with open(root / "marked" / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def marks(root) -> dict:
    return {student: row["mark"] for student, row in grades(root).items()}


def changed(root) -> list:
    with open(root / "marked" / regrade.CHANGED_MARKS, newline="", encoding="utf-8") as file:
        return list(csv.reader(file))


def report(root, student) -> str:
    return (root / "marked" / "instructor" / student / "report.txt").read_text(encoding="utf-8")


def results(root, student) -> dict:
    path = root / "marked" / "instructor" / student / "results.json"
    return json.loads(path.read_text(encoding="utf-8"))


def runs(root, student) -> str:
    """The report's line that counts the cases the marker ran."""
    return next(line for line in report(root, student).splitlines()
                if line.endswith(", 1 at once"))


def test_a_changed_golden_case_alone_is_run_again_and_the_changed_marks_are_listed(course):
    # The earlier verdict of a case left alone is the one that stands, not a new run's:
    # a word written into ann's earlier marked.json (the marker's own results, kept in the
    # instructor's folder) shows through.
    kept = course / "marked" / "instructor" / "ann" / "marked.json"
    earlier = json.loads(kept.read_text(encoding="utf-8"))
    ant = next(case for case in earlier["extra_data"]["cases"] if case["case"] == "up/ant")
    ant["verdicts"][0]["detail"] = "as kept"
    kept.write_text(json.dumps(earlier), encoding="utf-8")
    (course / "cases" / "up" / "cow.out").write_text("MOO\n", encoding="utf-8")
    done = mark_class(course)
    assert done.returncode == 0, done.stderr
    for student in STUDENTS:
        assert reuse.KEPT.format(kept=2, total=3) in report(course, student), report(course, student)
        assert runs(course, student) == "1 cases, 1 at once"
        assert [case["case"] for case in results(course, student)["extra_data"]["cases"]
                if not case["kept"]] == ["up/cow"]
    assert CASE_LINE.format(kind="pass", width=KIND_WIDTH, marks=2, case="up/ant",
                            detail=": as kept") in report(course, "ann")
    # cow now wants MOO: ann 2 + 2 + 0, bob 2 + 0 + 0, cy 2 + 2 + 2
    assert marks(course) == {"ann": "4.00", "bob": "2.00", "cy": "6.00"}
    why = regrade.CASES.format(cases="up/cow")
    assert changed(course) == [list(regrade.CHANGED_COLUMNS), ["ann", "", "6.00", "4.00", why],
                               ["bob", "", "4.00", "2.00", why], ["cy", "", "4.00", "6.00", why]]
    said = regrade.REMARKED.format(count=3, whys=regrade.WHY_NAMES.format(why=why,
                                                                          names="ann, bob, cy"))
    assert said in done.stderr.splitlines(), done.stderr
    summary = (course / "marked" / "summary.html").read_text(encoding="utf-8")
    assert "<h2>Regrades</h2>" in summary
    assert f"<tr><td>cy</td><td></td><td class=\"number\">4.00</td><td class=\"number\">6.00</td>" \
           f"<td>{why}</td></tr>" in summary


def test_marks_changed_in_the_assignment_file_rescore_without_running_a_case(course):
    (course / "up.toml").write_text(ASSIGNMENT.format(marks=9), encoding="utf-8")
    done = mark_class(course)
    assert done.returncode == 0, done.stderr
    for student in STUDENTS:
        assert reuse.KEPT.format(kept=3, total=3) in report(course, student)
        assert runs(course, student) == "0 cases, 1 at once"
    # 3 marks a case now: ann 3 of 3, bob and cy 2 of 3
    assert marks(course) == {"ann": "9.00", "bob": "6.00", "cy": "6.00"}
    assert changed(course)[1:] == [["ann", "", "6.00", "9.00", regrade.MARKS_ONLY],
                                   ["bob", "", "4.00", "6.00", regrade.MARKS_ONLY],
                                   ["cy", "", "4.00", "6.00", regrade.MARKS_ONLY]]


def test_students_re_marks_only_those_named_and_says_who_was_left(course):
    (course / "cases" / "up" / "cow.out").write_text("MOO\n", encoding="utf-8")
    (course / "class" / "dee").mkdir()  # joins late, never marked
    (course / "class" / "dee" / "up.py").write_text(SHOUT, encoding="utf-8")
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "mark-class", "STAMP=",
                           f"VENV_PYTHON={sys.executable}", f"SUBMISSIONS={course / 'class'}",
                           f"ASSIGNMENT={course / 'up.toml'}", f"OUT={course / 'marked'}",
                           "STUDENTS=Ann", "ARGS=--jobs 2"],
                          cwd=course, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kept from the earlier marking" not in report(course, "ann")  # re-marked whole
    assert runs(course, "ann") == "3 cases, 1 at once"
    rows = grades(course)
    # ann: 2 + 2 + 0 against the new cow; bob and cy as the first run left them
    assert {student: row["mark"] for student, row in rows.items()} == \
        {"ann": "4.00", "bob": "4.00", "cy": "4.00", "dee": "not marked"}
    assert (rows["dee"]["status"], rows["dee"]["note"], rows["dee"]["page"]) == \
        ("not marked", regrade.NOT_NAMED, "")
    assert not (course / "marked" / "students" / "dee").exists()  # no page says 0
    assert changed(course)[1:] == [["ann", "", "6.00", "4.00", regrade.NAMED]]
    lines = done.stderr.splitlines()
    assert regrade.LEFT_STALE.format(count=2, names="bob, cy") in lines, done.stderr
    assert regrade.LEFT_UNMARKED.format(count=1, names="dee") in lines, done.stderr


def test_a_student_the_class_does_not_have_is_refused_in_one_line_with_the_nearest(course):
    done = mark_class(course, "--students", "ann,bobb")
    assert done.returncode == 2
    assert done.stderr == "exactmark class: error: " + regrade.UNKNOWN.format(
        names="bobb", near="bob") + "\n"


# A program that fails each case its own way: bee in lower case (a near miss), a crash on
# cow, and a loop on ant that only the CPU limit ends.
FAILING = """import sys
text = sys.stdin.read()
if text == "cow\\n":
    raise ValueError("no cows")
while text == "ant\\n":
    pass
sys.stdout.write(text if text == "bee\\n" else text.upper())
"""


def test_a_kept_verdict_reads_as_the_run_that_gave_it(course):
    """The marker given its own results.json keeps every case, and says each as the run
    did: the report's cases and differences, and results.json's, unchanged."""
    (course / "up.toml").write_text(ASSIGNMENT.format(marks=6).replace(
        "cpu_seconds = 10", "cpu_seconds = 1"), encoding="utf-8")
    (course / "failing").mkdir()
    (course / "failing" / "up.py").write_text(FAILING, encoding="utf-8")

    def marker(*options):
        return subprocess.run([sys.executable, "-m", "exactmark.marking.mark",
                               str(course / "failing"), "--assignment", str(course / "up.toml"),
                               *options], cwd=ROOT, capture_output=True, text=True, timeout=600)
    first = marker("--json", str(course / "first.json"))
    again = marker("--json", str(course / "again.json"), "--reuse", str(course / "first.json"))
    assert first.returncode == again.returncode == 1, first.stderr + again.stderr
    assert again.stderr == ""  # no case ran: no progress line
    kinds = {case["case"]: case["kind"] for case in results_of(course / "first.json")}
    assert kinds == {"up/ant": "timeout", "up/bee": "wrong output", "up/cow": "crash"}
    assert [{**case, "kept": False} for case in results_of(course / "again.json")] == \
        results_of(course / "first.json")
    header = reuse.KEPT.format(kept=3, total=3)
    assert header in again.stdout.splitlines()
    assert body(again.stdout.replace(header + "\n", "")) == body(first.stdout)


def results_of(path) -> list:
    return json.loads(path.read_text(encoding="utf-8"))["extra_data"]["cases"]


def body(report: str) -> list:
    """A report's lines but the count of cases run and the seconds the marking took."""
    return [line for line in report.splitlines()
            if not line.endswith(", 1 at once") and not line.startswith("Score: ")]


def test_students_are_named_as_the_class_names_them_or_by_a_platform_s_id():
    """A hand-in a platform gave: by its id, or by a member's name or id (their team's
    hand-in); names compare as the class compares them (case, white space)."""
    alone = Student("Ann Lee", Path("ann"), "handin", folder="Ann_Lee", id="u101")
    team = Student("Team 4", Path("team"), "handin", folder="Team_4", id="g4",
                   members=[Person("u102", "Zoë Ng"), Person("u103", "Bo Yu")])
    klass = [alone, team]
    assert regrade.named(klass, "u101") == {"Ann_Lee"}
    assert regrade.named(klass, " ZOË  NG ,u103") == {"Team_4"}
    with pytest.raises(ValueError) as refused:
        regrade.named(klass, "ann le,u10l")
    # annle is 10/11 of annlee; u10l is 3/4 of u101, u102 and u103, then in name order
    assert str(refused.value) == regrade.UNKNOWN.format(names="ann le, u10l",
                                                        near="Ann Lee, u101, u102, u103")
    with pytest.raises(ValueError) as refused:
        regrade.named(klass, "zed")
    assert str(refused.value) == regrade.UNKNOWN.format(names="zed", near=regrade.NO_NEAR)
    with pytest.raises(ValueError) as refused:
        regrade.named(klass, " , ")
    assert str(refused.value) == regrade.NO_NAMES


GROUP = """
  [[programs.groups]]
  name = "your cases"
  kind = "student_cases"
  folder = "mine"
  mistakes = ["no_shout"]
  marks = { valid = 1, thorough = 1, own_code = 1 }
  visibility = "visible"
"""
NO_SHOUT = 'mistake = "{said}"\n[[change]]\nfind = ".upper()"\nreplace = ""\n'


def test_a_group_of_the_student_s_cases_is_kept_whole_until_something_of_its_own_changes(course):
    """ann writes one case, dog, which the reference passes, and which catches the one wrong
    program (it echoes): valid, thorough and own code, 1 mark each."""
    whole = ASSIGNMENT.format(marks=6).replace("marks = 6", "marks = 9", 1)  # 6 + 3
    (course / "up.toml").write_text(whole + GROUP, encoding="utf-8")
    (course / "wrong" / "up").mkdir(parents=True)
    wrong = course / "wrong" / "up" / "no_shout.toml"
    wrong.write_text(NO_SHOUT.format(said="echoes its input"), encoding="utf-8")
    (course / "class" / "ann" / "mine").mkdir()
    (course / "class" / "ann" / "mine" / "dog.in").write_text("dog\n", encoding="utf-8")
    (course / "class" / "ann" / "mine" / "dog.out").write_text("DOG\n", encoding="utf-8")
    assert mark_class(course).returncode == 0
    assert marks(course)["ann"] == "9.00"  # 3 cases of 2, and 1 + 1 + 1
    marked = results(course, "ann")["extra_data"]["student_groups"]

    (course / "cases" / "up" / "cow.out").write_text("MOO\n", encoding="utf-8")
    done = mark_class(course)
    assert done.returncode == 0, done.stderr
    assert reuse.KEPT_GROUPS.format(kept=1, total=1) in report(course, "ann")
    kept = results(course, "ann")["extra_data"]["student_groups"]
    assert [group["kept"] for group in kept] == [True]
    assert [{**group, "kept": False} for group in kept] == marked  # as the run that gave it
    assert marks(course)["ann"] == "7.00"  # cow fails now: 2 + 2 + 0, and 3 for the group
    assert changed(course)[1] == ["ann", "", "9.00", "7.00", regrade.CASES.format(cases="up/cow")]

    wrong.write_text(NO_SHOUT.format(said="echoes what it reads"), encoding="utf-8")
    done = mark_class(course)
    assert done.returncode == 0, done.stderr
    assert reuse.KEPT.format(kept=3, total=3) in report(course, "ann")
    assert "groups of the student's cases kept" not in report(course, "ann")
    assert "echoes what it reads" in report(course, "ann")
    assert marks(course)["ann"] == "7.00" and changed(course) == [list(regrade.CHANGED_COLUMNS)]
    said = regrade.REMARKED.format(count=3, whys=regrade.WHY_NAMES.format(
        why=regrade.GROUPS.format(groups="up/mine"), names="ann, bob, cy"))
    assert said in done.stderr.splitlines(), done.stderr


def test_with_a_student_budget_a_changed_case_marks_the_student_whole(course):
    """A budget cuts cases by the time of every case run before them, kept ones too: with
    one, a changed golden case marks each student whole (3 cases run, none kept), and says so."""
    assert mark_class(course, "--student-budget", "60").returncode == 0  # a new budget: whole
    (course / "cases" / "up" / "cow.out").write_text("MOO\n", encoding="utf-8")
    done = mark_class(course, "--student-budget", "60")
    assert done.returncode == 0, done.stderr
    for student in STUDENTS:
        assert runs(course, student) == "3 cases, 1 at once", report(course, student)
    assert regrade.WHOLE_WITH_BUDGET in done.stderr, done.stderr
    # cow now wants MOO: ann 2 + 2 + 0, bob 2 + 0 + 0, cy 2 + 2 + 2
    assert marks(course) == {"ann": "4.00", "bob": "2.00", "cy": "6.00"}


def test_mark_refuses_reuse_with_a_budget_in_one_line(course):
    done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark",
                           str(course / "class" / "ann"),
                           "--assignment", str(course / "up.toml"), "--student-budget", "60",
                           "--reuse", str(course / "marked" / "instructor" / "ann" / "marked.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "--reuse with --student-budget" in done.stderr, done.stderr
