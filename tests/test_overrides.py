"""Overrides (`--overrides CSV`): marks a person corrects, applied after the marking, kept
across re-runs and re-marks, said in grades.csv's note, on the student's page (a hidden
case never named) and in results.json. The figures are worked by hand in each test."""

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from exactmark.classroom import regrade
from exactmark.classroom.mark_class import OVERRIDES_DROPPED
from exactmark.kit.assignment import load
from exactmark.kit.bundle import write_all
from exactmark.kit.cases import ROOT
from exactmark.marking import overrides
from tests.test_mark_class import others

TIMEOUT = 600
# 10 marks: solitaire_1's shown cases 1.5 each, its kept-back cases 2.5 each (shown after
# the deadline), solitaire_2's one case 2. Late: the maximum falls 10% a day, 5 days.
ASSIGNMENT = """title = "Overrides"
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
  marks = 3
  cases = ["seed_0", "seed_27"]
  visibility = "visible"

  [[programs.groups]]
  name = "kept back"
  marks = 5
  cases = ["seed_43", "seed_705"]
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
# ann and bob on time; cal 25 hours late: two days, so at most 10 * (1 - 2 * 0.1) = 8.
TIMES = ("student,submitted\nann,2027-03-09T08:00\nbob,2027-03-09T08:00\n"
         "cal,2027-03-10T10:00\n")
HTML_REASON = "<b>typo</b> in the case"
FORMULA_REASON = "regraded;=1+1"
OVERRIDES = ("student,what,mark,reason,who\n"
             f"bob,solitaire_1/seed_27,pass,{FORMULA_REASON},Dr Lee\n"
             f"ann,solitaire_1/seed_43,1,\"{HTML_REASON}\",Dr Lee\n"
             "cal,total,9,marks agreed at the hearing,Dr Lee\n")
BEFORE_DEADLINE = "2027-03-01T09:00"  # the kept-back cases are hidden on the pages


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """The assignment, and a class: ann right; bob's solitaire_1 says "Eigth" (which only
    seed_27 prints: 1.5 lost) and no solitaire_2 (2 lost), raw 10 - 1.5 - 2 = 6.5; cal right
    but late."""
    root = tmp_path_factory.mktemp("overrides")
    write_all(root / "solutions")
    assignment = root / "overrides.toml"
    assignment.write_text(ASSIGNMENT.format(
        kit_only_1=others("solitaire_1", ["seed_0", "seed_27", "seed_43", "seed_705"]),
        kit_only_2=others("solitaire_2", ["seed_0_full"])), encoding="utf-8")
    klass = root / "class"
    for student in ("ann", "bob", "cal"):
        (klass / student).mkdir(parents=True)
        for program in ("solitaire_1", "solitaire_2"):
            text = (root / "solutions" / f"{program}.py").read_text(encoding="utf-8")
            if student == "bob" and program == "solitaire_2":
                continue
            if student == "bob":
                text = text.replace('"Eighth"', '"Eigth"')
            (klass / student / f"{program}.py").write_text(text, encoding="utf-8")
    (root / "times.csv").write_text(TIMES, encoding="utf-8")
    (root / "overrides.csv").write_text(OVERRIDES, encoding="utf-8")
    return root


def mark_class(root: Path, out: Path, *options):
    return subprocess.run([sys.executable, "-m", "exactmark.classroom.mark_class",
                           str(root / "class"), "--assignment", str(root / "overrides.toml"),
                           "--out", str(out), "--times", str(root / "times.csv"),
                           "--as-of", BEFORE_DEADLINE, "--jobs", "2", *options],
                          cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)


def grades(out: Path) -> dict:
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def figures(out: Path) -> dict:
    """student -> (raw total, mark) as grades.csv says them."""
    return {name: (row["raw total"], row["mark"]) for name, row in grades(out).items()}


# bob: 6.5 + 1.5 (seed_27 passed) = 8.0, on time; ann: 10 - 2.5 + 1 (seed_43 set to 1) = 8.5,
# on time; cal: raw 10, held at 8 by the late rule, the total set to 9.
OVERRIDDEN = {"bob": ("8.00", "8.00"), "ann": ("8.50", "8.50"), "cal": ("10.00", "9.00")}


@pytest.fixture(scope="module")
def marked(kit, tmp_path_factory):
    """The class marked with the overrides, then run again as it is, then with --force."""
    out = tmp_path_factory.mktemp("marked") / "out"
    overridden = str(kit / "overrides.csv")
    runs = [mark_class(kit, out, "--overrides", overridden)]
    first = {name: (out / "students" / name / "feedback.html").read_text(encoding="utf-8")
             for name in ("ann", "bob")}
    first_grades = figures(out)
    runs.append(mark_class(kit, out, "--overrides", overridden))
    again = figures(out)
    runs.append(mark_class(kit, out, "--overrides", overridden, "--force"))
    return out, runs, first, first_grades, again


def test_a_case_and_a_total_are_overridden_with_the_late_rule_between(marked):
    out, runs, _, first, _ = marked
    assert runs[0].returncode == 0, runs[0].stderr[-3000:]
    assert first == OVERRIDDEN
    assert grades(out)["bob"]["solitaire_1"] == "8.00"  # 1.5 + 1.5 + 2.5 + 2.5


def test_overrides_survive_a_re_run_and_a_re_mark(marked):
    out, runs, _, _, again = marked
    assert runs[1].returncode == 0 and "3 student(s) unchanged since the last run: kept" \
        in runs[1].stderr, runs[1].stderr[-3000:]
    assert again == OVERRIDDEN, "a re-run applies them to the kept results, once"
    assert runs[2].returncode == 0 and "unchanged since the last run" not in runs[2].stderr
    assert figures(out) == OVERRIDDEN, "a re-mark (--force) applies them again"


def test_the_note_says_each_override_with_its_formula_escaped(marked):
    out = marked[0]
    note = grades(out)["bob"]["note"]
    assert "overridden: solitaire_1/seed_27 0.00 → 1.50 (regraded;'=1+1, by Dr Lee)" in note, note
    assert "overridden: total 8.00 → 9.00 (marks agreed at the hearing, by Dr Lee)" \
        in grades(out)["cal"]["note"]


def test_results_json_carries_the_overridden_scores(marked):
    out = marked[0]
    results = json.loads((out / "instructor" / "bob" / "results.json").read_text("utf-8"))
    test = next(test for test in results["tests"] if test["name"] == "solitaire_1/seed_27")
    assert (results["score"], test["score"], test["max_score"]) == (8.0, 1.5, 1.5)
    assert test["output"].startswith(f"overridden by Dr Lee: {FORMULA_REASON}")
    assert results["output"].endswith("\n" + overrides.OUTPUT_MARK.format(mark=8.0)), \
        "the summary a student reads ends with the mark as overridden, as the score says"
    assert results["extra_data"]["overrides"] == [{
        "what": "solitaire_1/seed_27", "level": "case", "before": 0.0, "after": 1.5,
        "marks": 1.5, "reason": FORMULA_REASON, "who": "Dr Lee", "visibility": "visible"}]
    kept = json.loads((out / "instructor" / "bob" / "marked.json").read_text("utf-8"))
    assert (kept["score"], kept["extra_data"]["overrides"]) == (6.5, []), \
        "the marker's own results are kept as it wrote them"


def test_a_hidden_case_s_override_does_not_name_it_and_its_reason_is_escaped(marked):
    out, _, first, _, _ = marked
    for page in (first["ann"], *(out / "students" / "ann" / name for name in
                                 ("feedback.html", "feedback.txt"))):
        text = page if isinstance(page, str) else page.read_text(encoding="utf-8")
        assert "seed_43" not in text, "a case the page does not show is never named"
    html = first["ann"]
    assert "mark was changed by your instructor: &lt;b&gt;typo&lt;/b&gt; in the case" in html
    assert HTML_REASON not in html
    assert "overridden: solitaire_1/seed_27 0.00 → 1.50" in first["bob"], \
        "a case the page shows is named, with its marks"


def test_changing_the_overrides_marks_no_one_again(marked, kit, tmp_path):
    out = marked[0]
    fewer = tmp_path / "fewer.csv"
    fewer.write_text("\n".join(OVERRIDES.splitlines()[:1] + OVERRIDES.splitlines()[2:]) + "\n",
                     encoding="utf-8")  # bob's row gone
    done = mark_class(kit, out, "--overrides", str(fewer))
    assert done.returncode == 0 and "3 student(s) unchanged" in done.stderr, done.stderr[-3000:]
    assert figures(out)["bob"] == ("6.50", "6.50"), "the marker's own marks again"
    assert figures(out)["cal"] == OVERRIDDEN["cal"]


def test_a_mark_an_override_changes_is_listed_and_one_left_off_is_said(marked, kit, tmp_path):
    """On a copy of the class marked with the overrides: bob's row taken out, then the
    file left off. Nobody is marked again, yet each mark that moves is listed, and a run
    without the file says whose overrides it no longer applies."""
    out = tmp_path / "out"
    shutil.copytree(marked[0], out)
    done = mark_class(kit, out, "--overrides", str(kit / "overrides.csv"))  # as marked, whatever
    assert figures(out) == OVERRIDDEN, done.stderr[-3000:]  # another test did to the class since
    fewer = tmp_path / "fewer.csv"
    fewer.write_text("\n".join(OVERRIDES.splitlines()[:1] + OVERRIDES.splitlines()[2:]) + "\n",
                     encoding="utf-8")  # bob's row gone
    done = mark_class(kit, out, "--overrides", str(fewer))
    assert done.returncode == 0, done.stderr[-3000:]
    # bob: 8.00 with his override, 6.50 without (his row of the sheet, worked out above)
    assert changed(out) == [["bob", "", "8.00", "6.50", regrade.OVERRIDES_CHANGED]]
    done = mark_class(kit, out)
    assert done.returncode == 0, done.stderr[-3000:]
    assert OVERRIDES_DROPPED.format(count=2, names="ann, cal") in done.stderr, done.stderr
    # ann: 8.50 → 10.00 (her seed_43 passes: 2.5, not the 1 set); cal: 9.00 → 8.00 (the
    # late rule's cap, 10 × (1 - 2 × 0.1))
    assert changed(out) == [["ann", "", "8.50", "10.00", regrade.OVERRIDES_CHANGED],
                            ["cal", "", "9.00", "8.00", regrade.OVERRIDES_CHANGED]]


def changed(out: Path) -> list:
    with open(out / regrade.CHANGED_MARKS, newline="", encoding="utf-8") as file:
        return list(csv.reader(file))[1:]


@pytest.mark.parametrize("row, said", [
    ("bob,solitaire_1/seed_44,pass,x,y", "line 2: no 'solitaire_1/seed_44' in overrides; "
                                         "nearby: solitaire_1/seed_43"),
    ("bob,solitaire_1/kept back,6,x,y", "line 2: mark '6' is not from 0 to 5"),
    ("bob,total,lots,x,y", "line 2: mark 'lots' is neither a number nor pass or fail"),
    ("bob,total,9,,y", "line 2: no reason on this row"),
])
def test_a_row_that_cannot_apply_is_refused_in_one_line_before_marking(kit, tmp_path, row, said):
    (tmp_path / "bad.csv").write_text(f"student,what,mark,reason,who\n{row}\n", encoding="utf-8")
    done = mark_class(kit, tmp_path / "out", "--overrides", str(tmp_path / "bad.csv"))
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert f"{tmp_path / 'bad.csv'}, {said}" in done.stderr, "it says the file"
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


def test_a_row_naming_no_student_of_the_class_is_refused(kit, tmp_path):
    (tmp_path / "bad.csv").write_text("student,what,mark,reason,who\nann,total,1,x,y\n"
                                      "bbo,total,1,x,y\n", encoding="utf-8")
    done = mark_class(kit, tmp_path / "out", "--overrides", str(tmp_path / "bad.csv"))
    assert done.returncode == 2, done.stderr
    assert "bad.csv, line 3: no student 'bbo' in the class; nearby: bob" in done.stderr
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_two_rows_for_one_student_and_thing_are_refused(kit, tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("student,what,mark,reason,who\nbob,total,1,x,y\nBob,Total,2,x,y\n",
                    encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 3: a second override of total for Bob "
                                         r"\(the first on line 2\)"):
        overrides.read(path, load(str(kit / "overrides.toml")))


def test_a_student_named_twice_by_name_and_by_id_is_refused(kit, tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("student,what,mark,reason,who\nbob,total,1,x,y\nu42,total,2,x,y\n",
                    encoding="utf-8")
    corrected = overrides.read(path, load(str(kit / "overrides.toml")))
    with pytest.raises(ValueError, match=r"line 3: a second override of total for u42 "
                                         r"\(the first on line 2\)"):
        corrected.check_class([("ann", "u41"), ("bob", "u42")])


def test_a_group_then_its_program_apply_in_order(kit, tmp_path):
    """On bob's results: the shown group 1.5 of 3 set to 3 (raw 6.5 + 1.5 = 8), then
    solitaire_2 (not handed in, 0) set to 1 (raw 8 + 1 = 9); the late rule not applied
    (on time, so the mark is the raw score)."""
    path = tmp_path / "order.csv"
    path.write_text("student,what,mark,reason,who\nbob,solitaire_2,1,b,y\n"
                    "bob,solitaire_1/shown,pass,a,y\n", encoding="utf-8")
    corrected = overrides.read(path, load(str(kit / "overrides.toml")))
    results = {"score": 6.5, "tests": [], "extra_data": {
        "raw_score": 6.5, "programs": {"solitaire_1": {"earned": 6.5},
                                       "solitaire_2": {"earned": 0.0}},
        "cases": [{"case": f"solitaire_1/{name}", "program": "solitaire_1", "group": group,
                   "earned": earned, "passed": earned > 0}
                  for name, group, earned in (("seed_0", "shown", 1.5), ("seed_27", "shown", 0.0),
                                              ("seed_43", "kept back", 2.5),
                                              ("seed_705", "kept back", 2.5))]}}
    done = overrides.apply(results, corrected.of(("bob",)), lambda raw: None)
    assert (done["score"], done["extra_data"]["raw_score"]) == (9.0, 9.0)
    assert [(o["what"], o["before"], o["after"]) for o in done["extra_data"]["overrides"]] == [
        ("solitaire_1/shown", 1.5, 3.0), ("solitaire_2", 0.0, 1.0)]
    assert [(test["name"], test["score"]) for test in done["tests"]] == [
        ("solitaire_1/shown: overridden", 1.5), ("solitaire_2: overridden", 1.0)]
    assert results["score"] == 6.5 and "overrides" not in results["extra_data"], "pure"
    with pytest.raises(ValueError, match="overridden already"):
        overrides.apply(done, corrected.of(("bob",)), lambda raw: None)


def test_mark_applies_the_rows_naming_its_student_and_says_each(kit, tmp_path):
    done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark",
                           str(kit / "class" / "bob"), "--assignment", str(kit / "overrides.toml"),
                           "--submitted", "2027-03-09T08:00", "--overrides",
                           str(kit / "overrides.csv"), "--student", "Bob",
                           "--json", str(tmp_path / "results.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 1, done.stderr[-3000:]  # the marking's: a case failed
    assert (f"Overrides of Bob, from {kit / 'overrides.csv'}:\n"
            f"  overridden: solitaire_1/seed_27 0.00 → 1.50 ({FORMULA_REASON}, by Dr Lee)\n"
            "Mark, overridden: 8.00/10.00\n") in done.stdout, done.stdout[-2000:]
    assert json.loads((tmp_path / "results.json").read_text("utf-8"))["score"] == 8.0


def test_make_mark_class_passes_overrides_as_written(kit, tmp_path):
    """OVERRIDES= reaches the class run through the environment, no shell reading it: a
    file named with a `$` is that file, refused here for its row."""
    path = tmp_path / "bad $HOME.csv"
    path.write_text("student,what,mark,reason,who\nbob,solitaire_3,1,x,y\n", encoding="utf-8")
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "mark-class", "STAMP=",
                           f"VENV_PYTHON={sys.executable}", f"SUBMISSIONS={kit / 'class'}",
                           f"ASSIGNMENT={kit / 'overrides.toml'}", f"OUT={tmp_path / 'out'}",
                           f"OVERRIDES={path}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT)
    assert f"{path}, line 2: no 'solitaire_3' in overrides; nearby: solitaire_2, " \
        in done.stderr, done.stderr
    assert done.returncode != 0 and not (tmp_path / "out").exists()
