"""Each student's own terms in a class run (#37): a deadline or an extension of their own from
the times file or the roster, the late rule counted from it, grades.csv, the page and the
marks going back saying so; cases shown after the due date held back from every page until
the last window of the class has closed; a student with a window still open and nothing
handed in given no mark, not 0. The assignment is a tiny one of its own (one program that
echoes a line), so that a class costs a few cheap runs."""

import csv
import json
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from exactmark.classroom import platform_class
from exactmark.classroom.times import extension_text, read_times
from exactmark.classroom.unpack import name_key
from exactmark.classroom.visibility import is_shown, shown_from
from exactmark.kit.assignment import load
from exactmark.kit.cases import ROOT
from exactmark.kit.late import Terms, extended
from tests.test_class_platforms import FAKE, run

SYDNEY = ZoneInfo("Australia/Sydney")
DEADLINE = datetime(2027, 3, 9, 9, 0, tzinfo=SYDNEY)
# 13 marks: the cap rule, 5% of the maximum off per day late, accepted up to 5 days late.
ASSIGNMENT = """title = "Echo"
marks = 13
cpu_seconds = 5
deadline = {deadline}
time_zone = "Australia/Sydney"
{late}
[[programs]]
name = "echo"
reference = "reference"
cases = "cases"

  [[programs.groups]]
  name = "shown"
  marks = 6.5
  cases = ["first"]
  visibility = "visible"

  [[programs.groups]]
  name = "kept back"
  marks = 6.5
  cases = ["second"]
  visibility = "after_due_date"
"""
CAP = """
[late]
days = 5
cap_per_day = 0.05
"""
ECHO = "print(input())\n"


def tiny_assignment(folder: Path, late: str = CAP, name: str = "echo_class",
                    deadline: str = "2027-03-09T09:00:00") -> Path:
    """The assignment file NAME.toml in `folder`, its reference and its two cases beside it."""
    (folder / "reference").mkdir(parents=True, exist_ok=True)
    (folder / "reference" / "echo.py").write_text(ECHO, encoding="utf-8")
    (folder / "cases").mkdir(exist_ok=True)
    for case, line in (("first", "hello"), ("second", "again")):
        (folder / "cases" / f"{case}.in").write_text(f"{line}\n", encoding="utf-8")
        (folder / "cases" / f"{case}.out").write_text(f"{line}\n", encoding="utf-8")
    path = folder / f"{name}.toml"
    path.write_text(ASSIGNMENT.format(late=late, deadline=deadline), encoding="utf-8")
    return path


def hand_in(klass: Path, *students: str) -> Path:
    for student in students:
        (klass / student).mkdir(parents=True)
        (klass / student / "echo.py").write_text(ECHO, encoding="utf-8")
    return klass


def mark_class(klass: Path, assignment: Path, out: Path, *options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "exactmark.classroom.mark_class", str(klass),
                           "--assignment", str(assignment), "--out", str(out), "--jobs", "2",
                           *map(str, options)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def grades(out: Path) -> dict:
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


# 80 hours after the common deadline (9:00 on 9 March): 17:00 on 12 March.
TIMES = """student,submitted,deadline,extension
ann,2027-03-12T17:00,,4 days
bob,2027-03-12T17:00,,
cy,2027-03-12T17:00,,3 days
dee,2027-03-12T17:00,2027-03-13T09:00Z,
eve,,,2 days
"""


@pytest.fixture(scope="module")
def termed(tmp_path_factory):
    """ann: 4 days' extension; bob: none; cy: 3 days' extension; dee: her own deadline, in
    UTC; eve: 2 days' extension and no time given. All hand in the right program; all but
    eve 80 hours after the common deadline. Marked once, as of the common close + 1 day."""
    root = tmp_path_factory.mktemp("terms")
    assignment = tiny_assignment(root)
    klass = hand_in(root / "class", "ann", "bob", "cy", "dee", "eve")
    (root / "times.csv").write_text(TIMES, encoding="utf-8")
    out = root / "marked"
    done = mark_class(klass, assignment, out, "--times", root / "times.csv",
                      "--as-of", "2027-03-15T09:00")
    return root, klass, assignment, out, done


def test_each_student_s_late_rule_counts_from_their_own_due_date(termed):
    """Worked by hand (13 marks, the maximum falls 5% a day late, any part of a day a day):
    ann, 4 days' extension (due 13 March 9:00), 80 hours after the common deadline: on time,
    13 stands. bob, no extension: 80 hours is more than 72, at most 96: 4 days late, the
    maximum 13 × (1 − 4 × 0.05) = 10.40. cy, 3 days' extension (due 12 March 9:00): 8 hours
    after it, 1 day late, 13 × 0.95 = 12.35. dee, her own deadline 2027-03-13T09:00Z (20:00
    in Sydney): on time, 13. eve: terms and no time: marked without the late rule."""
    _, _, _, out, done = termed
    assert done.returncode == 0, done.stderr
    rows = grades(out)
    assert {name: (row["days late"], row["mark"]) for name, row in rows.items()} == {
        "ann": ("0", "13.00"), "bob": ("4", "10.40"), "cy": ("1", "12.35"),
        "dee": ("0", "13.00"), "eve": ("", "13.00")}
    assert rows["ann"]["note"] == "extension of 4 days: due 13 March 2027 9:00"
    assert rows["cy"]["note"] == "extension of 3 days: due 12 March 2027 9:00"
    assert rows["dee"]["note"] == "own deadline: due 13 March 2027 20:00"
    assert rows["bob"]["note"] == ""
    assert rows["eve"]["status"] == "no submission time"
    assert rows["eve"]["note"] == ("extension of 2 days: due 11 March 2027 9:00; the times "
                                   "file gives this student terms and no submission time: "
                                   "marked without the late rule")
    assert ("warning: the times file gives 1 student(s) terms of their own and no submission "
            "time, marked without the late rule: eve") in done.stderr
    assert "does not name" not in done.stderr


def test_the_page_and_results_json_say_the_student_s_terms(termed):
    _, _, _, out, _ = termed
    page = (out / "students" / "ann" / "feedback.txt").read_text(encoding="utf-8")
    assert "2 of 2.\nYour terms: extension of 4 days: due 13 March 2027 9:00.\n" in page
    html = (out / "students" / "cy" / "feedback.html").read_text(encoding="utf-8")
    assert '<p class="terms">Your terms: extension of 3 days: due 12 March 2027 9:00.</p>' \
        in html
    late = json.loads((out / "instructor" / "cy" / "results.json").read_text(
        encoding="utf-8"))["extra_data"]["late"]
    assert (late["days"], late["mark"], late["terms"]) == (
        1, 12.35, "extension of 3 days: due 12 March 2027 9:00")
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "extension of 3 days: due 12 March 2027 9:00" in summary


def kept_back_shown(out: Path, student: str) -> bool:
    """Whether the student's page lists the after_due_date case (echo/second)."""
    return "echo/second" in (out / "students" / student / "feedback.txt").read_text(
        encoding="utf-8")


def test_cases_after_the_due_date_wait_for_the_last_window_of_the_class(termed):
    """The common window closes 5 days after the deadline, 14 March 9:00; ann's, 4 days'
    extension later, 18 March 9:00; dee's, her own deadline 13 March 20:00 in Sydney and 5
    days, 18 March 20:00, the last (eve's 2 days close 16 March). At the common close and a
    day, no page shows the kept-back case, bob's neither: ann and dee may still hand in."""
    root, klass, assignment, out, _ = termed
    assert not kept_back_shown(out, "bob") and not kept_back_shown(out, "ann")
    page = (out / "students" / "bob" / "feedback.txt").read_text(encoding="utf-8")
    assert ("shown from 2027-03-18 20:00 (Australia/Sydney), once no late submission can be "
            "accepted") in page
    times = ["--times", root / "times.csv"]
    second = mark_class(klass, assignment, out, *times, "--as-of", "2027-03-18T19:59")
    assert second.returncode == 0 and not kept_back_shown(out, "bob"), second.stderr
    third = mark_class(klass, assignment, out, *times, "--as-of", "2027-03-18T20:00")
    assert third.returncode == 0 and kept_back_shown(out, "bob") and kept_back_shown(out, "ann")
    assert "5 student(s) unchanged since the last run" in third.stderr, "only the pages change"


def test_a_student_whose_terms_change_is_marked_again_the_others_kept(termed, tmp_path):
    """The kept results' key holds the terms: bob given 4 days is marked again, on time."""
    root, klass, assignment, out, _ = termed
    times = tmp_path / "times.csv"
    times.write_text(TIMES.replace("bob,2027-03-12T17:00,,\n", "bob,2027-03-12T17:00,,4 days\n"),
                     encoding="utf-8")
    again = mark_class(klass, assignment, out, "--times", times, "--as-of", "2027-03-15T09:00")
    assert again.returncode == 0, again.stderr
    assert "4 student(s) unchanged since the last run" in again.stderr
    assert (grades(out)["bob"]["days late"], grades(out)["bob"]["mark"]) == ("0", "13.00")
    mark_class(klass, assignment, out, "--times", root / "times.csv", "--as-of",
               "2027-03-15T09:00")  # as the module's other tests expect it


def test_published_shows_them_at_once(termed, tmp_path):
    root, klass, assignment, _, _ = termed
    out = tmp_path / "published"
    done = mark_class(klass, assignment, out, "--times", root / "times.csv",
                      "--as-of", "2027-03-10T09:00", "--published")
    assert done.returncode == 0, done.stderr
    assert kept_back_shown(out, "bob") and kept_back_shown(out, "ann")


def test_the_last_window_is_the_latest_of_the_class():
    """seeded: due 2027-03-09 9:00 in Sydney, accepted up to 5 days late."""
    seeded = load("seeded")
    three = extended(seeded.deadline, timedelta(days=3))
    assert shown_from(seeded) == datetime(2027, 3, 14, 9, 0, tzinfo=SYDNEY)
    assert shown_from(seeded, [None, three]) == datetime(2027, 3, 17, 9, 0, tzinfo=SYDNEY)
    early = Terms(due=datetime(2027, 3, 2, 9, 0, tzinfo=SYDNEY))  # sits it a week early
    assert shown_from(seeded, [early]) == datetime(2027, 3, 14, 9, 0, tzinfo=SYDNEY), \
        "an earlier deadline of one student's never shows the cases before the common close"
    as_of = datetime(2027, 3, 15, 9, 0, tzinfo=SYDNEY)
    assert not is_shown("after_due_date", seeded, as_of, False, [three])
    assert is_shown("after_due_date", seeded, as_of, True, [three])


def test_a_student_of_the_times_file_yet_to_hand_in_holds_the_cases_back(tmp_path):
    """fay has no folder yet, and 5 days' extension: the last window closes 14 March 9:00 + 5
    days, 19 March 9:00; ann's page, as of 15 March, does not show the kept-back case."""
    assignment = tiny_assignment(tmp_path)
    klass = hand_in(tmp_path / "class", "ann")
    (tmp_path / "times.csv").write_text("student,submitted,extension\nann,2027-03-09T08:00,\n"
                                        "fay,,5 days\n", encoding="utf-8")
    done = mark_class(klass, assignment, tmp_path / "out", "--times", tmp_path / "times.csv",
                      "--as-of", "2027-03-15T09:00")
    assert done.returncode == 0, done.stderr
    assert not kept_back_shown(tmp_path / "out", "ann")
    page = (tmp_path / "out" / "students" / "ann" / "feedback.txt").read_text(encoding="utf-8")
    assert "shown from 2027-03-19 09:00 (Australia/Sydney)" in page


# --- the times file's terms, read ----------------------------------------------------------------

def times_of(tmp_path, text: str) -> dict:
    path = tmp_path / "times.csv"
    path.write_text(text, encoding="utf-8")
    return read_times(path, SYDNEY, name_key, DEADLINE)


@pytest.mark.parametrize("text, said", [
    ("student,submitted,deadline,extension\nann,2027-03-10T10:00,2027-03-12T09:00,3 days\n",
     "times.csv, line 2: both a deadline and an extension: give one"),
    ("student,extension\nann,3d\n", "times.csv, line 2: '3d' is not an extension"),
    ("student,deadline\nann,friday\n", "times.csv, line 2: 'friday' is not a date and time"),
    ("student,submitted,extension\nann,,\n", "times.csv, line 2: no submitted on this row"),
    ("student,extension\nann,3 days\nann,2 days\n",
     "times.csv: ann is given two different terms, on lines 2 and 3"),
])
def test_terms_that_cannot_be_read_are_refused_in_one_line(tmp_path, text, said):
    with pytest.raises(ValueError) as refused:
        times_of(tmp_path, text)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_row_may_give_terms_and_no_time_and_a_second_row_the_time(tmp_path):
    times = times_of(tmp_path, "student;submitted;extension\nann;;36 hours\n"
                               "ann;2027-03-10T10:00;\n")
    timed = times[name_key("ann")]
    assert timed.submitted == datetime(2027, 3, 10, 10, 0, tzinfo=SYDNEY)
    assert timed.terms.due == datetime(2027, 3, 10, 21, 0, tzinfo=SYDNEY)  # 9:00 + 36 hours


@pytest.mark.parametrize("hours, text", [(72, "3 days"), (36, "36 hours"), (1.5, "90 minutes")])
def test_an_extension_goes_to_the_marker_as_an_extension_reads(hours, text):
    assert extension_text(timedelta(hours=hours)) == text


def test_a_bad_times_file_stops_the_run_before_marking(tmp_path):
    assignment = tiny_assignment(tmp_path)
    klass = hand_in(tmp_path / "class", "ann")
    (tmp_path / "times.csv").write_text("student,submitted,extension\nann,2027-03-10T10:00,"
                                        "soon\n", encoding="utf-8")
    done = mark_class(klass, assignment, tmp_path / "out", "--times", tmp_path / "times.csv")
    assert done.returncode == 2 and "line 2: 'soon' is not an extension" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


# --- a platform's class: the roster's terms, and a window still open --------------------------

def test_a_window_still_open_with_nothing_handed_in_goes_back_empty_not_0(tmp_path, monkeypatch):
    """A fake platform lists ann (handed in 80 hours after the common deadline, her roster
    row an extension of 4 days: on time, 13), bob (nothing, no terms: 0, as ever) and cy
    (nothing yet, the times file gives him 10 days: his window is open at 2027-03-15)."""
    monkeypatch.setitem(platform_class.PLATFORMS, "fake", FAKE)
    assignment = tiny_assignment(tmp_path)
    download = tmp_path / "download"
    download.mkdir()
    (download / "ann.py").write_text(ECHO, encoding="utf-8")
    (download / "fake.json").write_text(json.dumps({
        "handins": [{"key": "1", "name": "Ann", "members": [["1", "Ann"]],
                     "files": {"echo.py": "ann.py"}, "submitted": "2027-03-12T17:00:00+11:00"}],
        "refused": [], "roster": [["1", "Ann"], ["2", "Bob"], ["3", "Cy"]]}), encoding="utf-8")
    roster = tmp_path / "roster.csv"
    roster.write_text("student,id,team,extension\nAnn,1,a,4 days\nBob,2,b,\nCy,3,c,\n",
                      encoding="utf-8")
    times = tmp_path / "times.csv"
    times.write_text("student,extension\n3,10 days\n", encoding="utf-8")
    status, _, errors = run([download, "--from", "fake", "--assignment", assignment,
                             "--out", tmp_path / "out", "--roster", roster, "--times", times,
                             "--as-of", "2027-03-15T09:00", "--jobs", "1"])
    assert status == 0, errors
    back = {person: (mark, comment) for person, mark, _, comment in json.loads(
        (tmp_path / "out" / "fake-grades.json").read_text(encoding="utf-8"))["returned"]}
    assert back["1"][0] == 13 and "extension of 4 days: due 13 March 2027 9:00" in back["1"][1]
    assert back["2"] == (0, "no submission")
    assert back["3"][0] is None
    assert back["3"][1].startswith("no submission; window still open; extension of 10 days: "
                                   "due 19 March 2027 9:00")
    assert ("1 student(s) have handed nothing in and their own window is still open: their "
            "marks go back empty, not 0; mark again once it has closed: Cy") in errors
    rows = grades(tmp_path / "out")
    assert (rows["Cy"]["mark"], rows["Cy"]["status"]) == ("", "no submission; window still open")
    assert "a submission is accepted until 2027-03-24T09:00:00+11:00" in rows["Cy"]["note"]
    assert "warning: the times file names students not in the class" not in errors
    page = (tmp_path / "out" / "students" / "Ann" / "feedback.txt").read_text(encoding="utf-8")
    assert "echo/second" not in page and "shown from 2027-03-24 09:00 (Australia/Sydney)" in page, \
        "Cy, who has not handed in, may still: his window holds the kept-back case back"


def test_a_team_s_terms_are_its_most_generous_member_s(tmp_path):
    """A team hands in once: the latest due date among its members' own is the team's."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student,id,team,deadline,extension\nAl,7,t,,1 day\nBo,8,t,,3 days\n"
                      "Cy,9,t,,\n", encoding="utf-8")
    terms = platform_class.roster_terms(roster, SYDNEY, DEADLINE)
    assert sorted(terms) == ["7", "8"]
    team = platform_class.team_terms([terms.get(person) for person in ("7", "8", "9")])
    assert team.due == datetime(2027, 3, 12, 9, 0, tzinfo=SYDNEY)  # 9 March 9:00 + 3 days
    assert platform_class.team_terms([None, None]) is None


def test_a_student_left_by_students_keeps_the_terms_their_mark_was_given_for(termed, tmp_path):
    """On a copy of the class: ann's extension cut to 1 day, then only bob re-marked. ann is
    left as the last run left her: on time under her 4 days (13.00), and her row says those 4
    days, not the 1 the file says now (under which she would be 1 day late: 12.35)."""
    import shutil
    root, klass, assignment, out, _ = termed
    copy = tmp_path / "marked"
    shutil.copytree(out, copy)
    times = tmp_path / "times.csv"
    times.write_text(TIMES.replace("ann,2027-03-12T17:00,,4 days", "ann,2027-03-12T17:00,,1 day"),
                     encoding="utf-8")
    done = mark_class(klass, assignment, copy, "--times", times, "--students", "bob",
                      "--as-of", "2027-03-15T09:00")
    assert done.returncode == 0, done.stderr[-3000:]
    ann = grades(copy)["ann"]
    assert (ann["days late"], ann["mark"]) == ("0", "13.00"), ann
    assert "extension of 4 days: due 13 March 2027 9:00" in ann["note"], ann["note"]
    assert "extension of 1 day" not in ann["note"], ann["note"]


def test_a_submission_past_the_limit_says_the_terms_once(tmp_path):
    """An extension of 1 day, handed in 7 days after the deadline: 6 days after her own, past
    the 5 accepted: 0, and the note says her terms once."""
    assignment = tiny_assignment(tmp_path)
    klass = hand_in(tmp_path / "class", "ann")
    (tmp_path / "times.csv").write_text("student,submitted,extension\nann,2027-03-16T09:00,1 day\n",
                                        encoding="utf-8")
    done = mark_class(klass, assignment, tmp_path / "out", "--times", tmp_path / "times.csv")
    assert done.returncode == 0, done.stderr[-3000:]
    ann = grades(tmp_path / "out")["ann"]
    assert ann["mark"] == "0.00" and "late beyond the limit" in ann["status"], ann
    assert ann["note"].count("extension of 1 day: due 10 March 2027 9:00") == 1, ann["note"]
