"""The term's late-day ledger (exactmark/classroom/ledger.py, `exactmark class --ledger CSV`):
a term of three assignments with 5 late days, at most 3 on one, spent 2, 3, then 1 over (the
penalty on the 1); a re-run that spends nothing twice; an instructor's grant honoured;
marking out of order said; every other row kept byte for byte, the file replaced whole."""

import csv
import subprocess
import sys
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from exactmark.classroom import ledger
from exactmark.kit.assignment import load
from exactmark.kit.cases import ROOT
from tests.test_class_terms import CAP, grades, hand_in, mark_class, tiny_assignment

SYDNEY = ZoneInfo("Australia/Sydney")
BANK = CAP + """
[late_days]
free = 5
most = 3
"""
# Three assignments a week apart; ann hands in 25 hours late (2 days), 49 hours late (3 days)
# and 1 hour late (1 day); bob an hour early each time.
TERM = {"echo_a1": "2027-03-09T09:00:00", "echo_a2": "2027-03-16T09:00:00",
        "echo_a3": "2027-03-23T09:00:00"}
TIMES = {"echo_a1": "student,submitted\nann,2027-03-10T10:00\nbob,2027-03-09T08:00\n",
         "echo_a2": "student,submitted\nann,2027-03-18T10:00\nbob,2027-03-16T08:00\n",
         "echo_a3": "student,submitted\nann,2027-03-23T10:00\nbob,2027-03-23T08:00\n"}


def rows_of(path) -> list:
    with open(path, newline="", encoding="utf-8") as file:
        return [(row["student"], row["assignment"], row["days"], row["reason"])
                for row in csv.DictReader(file)]


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """The three assignment files, the class, a times file each; no ledger yet."""
    root = tmp_path_factory.mktemp("term")
    for name, deadline in TERM.items():
        tiny_assignment(root, BANK, name, deadline)
        (root / f"{name}.csv").write_text(TIMES[name], encoding="utf-8")
    klass = hand_in(root / "class", "ann", "bob")
    return root, klass


def mark(term, name: str, book, *options):
    root, klass = term
    return mark_class(klass, root / f"{name}.toml", root / f"out_{name}", "--times",
                      root / f"{name}.csv", "--ledger", book, *options)


def test_a_term_spends_2_then_3_then_the_penalty_falls_on_the_1_over(term):
    """Worked by hand (13 marks; 5% off the maximum per day late beyond the late days):
    echo_a1: ann 2 days late, 2 of her 5 spent, 3 left: 13 stands. echo_a2: 3 days late, 3
    spent (at most 3 on one), 0 left: 13. echo_a3: 1 day late, none left: the rule counts the
    1, 13 × 0.95 = 12.35. bob: on time, 0 spent each time. A second run of echo_a3 spends
    nothing twice: the ledger stays byte for byte, the mark 12.35. Then the instructor grants
    ann a day back: echo_a3's run spends it, 13."""
    root, _ = term
    book = root / "ledger.csv"
    for name in TERM:
        done = mark(term, name, book)
        assert done.returncode == 0, done.stderr
        assert "out of order" not in done.stderr
    assert rows_of(book) == [
        ("ann", "echo_a1", "2", "2 of 5 late days spent here, 3 left"),
        ("bob", "echo_a1", "0", "0 of 5 late days spent here, 5 left"),
        ("ann", "echo_a2", "3", "3 of 5 late days spent here, 0 left"),
        ("bob", "echo_a2", "0", "0 of 5 late days spent here, 5 left"),
        ("ann", "echo_a3", "0", "0 of 5 late days spent here, 0 left"),
        ("bob", "echo_a3", "0", "0 of 5 late days spent here, 5 left")]
    marks = {name: grades(root / f"out_{name}")["ann"]["mark"] for name in TERM}
    assert marks == {"echo_a1": "13.00", "echo_a2": "13.00", "echo_a3": "12.35"}
    third = grades(root / "out_echo_a3")["ann"]
    assert third["days late"] == "1"
    assert "0 of your 5 late days spent here, 0 left" in third["note"]
    page = (root / "out_echo_a1" / "students" / "ann" / "feedback.txt").read_text(
        encoding="utf-8")
    assert "Your terms: 2 of your 5 late days spent here, 3 left." in page

    before = book.read_bytes()
    again = mark(term, "echo_a3", book)
    assert again.returncode == 0, again.stderr
    assert book.read_bytes() == before, "a re-run spends nothing twice"
    assert grades(root / "out_echo_a3")["ann"]["mark"] == "12.35"

    with open(book, "a", newline="", encoding="utf-8") as file:
        file.write("ann,grant,-1,,the lecturer,ill for the third week\r\n")
    granted = mark(term, "echo_a3", book)
    assert granted.returncode == 0, granted.stderr
    assert grades(root / "out_echo_a3")["ann"]["mark"] == "13.00"
    assert rows_of(book)[4:] == [
        ("ann", "echo_a3", "1", "1 of 5 late days spent here, 0 left"),
        ("bob", "echo_a3", "0", "0 of 5 late days spent here, 5 left"),
        ("ann", "grant", "-1", "ill for the third week")]


def test_an_assignment_with_late_days_and_times_needs_the_ledger(term, tmp_path):
    root, klass = term
    done = mark_class(klass, root / "echo_a1.toml", tmp_path / "out", "--times",
                      root / "echo_a1.csv")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "exactmark class: error: echo_a1 has a term's late days ([late_days]): give the ledger "
        "the term's assignments share, --ledger CSV (make mark-class LEDGER=FILE); a file that "
        "does not exist yet starts one")
    assert not (tmp_path / "out").exists()


def test_a_ledger_for_an_assignment_without_late_days_is_refused(tmp_path):
    assignment = tiny_assignment(tmp_path)
    klass = hand_in(tmp_path / "class", "ann")
    done = mark_class(klass, assignment, tmp_path / "out", "--ledger", tmp_path / "ledger.csv")
    assert done.returncode == 2
    assert "--ledger: echo_class has no term's late days ([late_days]) to count" in done.stderr


def test_make_mark_class_passes_ledger_as_data(term, tmp_path):
    """`make mark-class LEDGER=FILE` reaches --ledger, the path unread by any shell: a new
    ledger in a folder whose name has a space and a quote is started there."""
    root, klass = term
    folder = tmp_path / "term's ledgers"
    folder.mkdir()
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "mark-class", "STAMP=",
                           f"VENV_PYTHON={sys.executable}", f"SUBMISSIONS={klass}",
                           f"ASSIGNMENT={root / 'echo_a1.toml'}", f"OUT={tmp_path / 'out'}",
                           f"TIMES={root / 'echo_a1.csv'}", f"LEDGER={folder / 'a b.csv'}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert rows_of(folder / "a b.csv")[0] == (
        "ann", "echo_a1", "2", "2 of 5 late days spent here, 3 left")


# --- the file itself ---------------------------------------------------------------------------

def assignment_named(tmp_path, name: str, deadline: str = "2027-03-16T09:00:00"):
    return load(str(tiny_assignment(tmp_path, BANK, name, deadline)))


def test_marking_out_of_order_is_said_in_one_line(tmp_path):
    book = tmp_path / "ledger.csv"
    book.write_text("student,assignment,days,due,who,reason\n"
                    "ann,echo_a3,1,2027-03-23T09:00:00+11:00,exactmark,\n"
                    "bob,echo_a3,0,2027-03-26T09:00:00+11:00,exactmark,\n"
                    "ann,echo_a1,2,2027-03-09T09:00:00+11:00,exactmark,\n"
                    "ann,grant,-1,,lecturer,ill\n", encoding="utf-8")
    said = ledger.out_of_order(ledger.read_ledger(book), assignment_named(tmp_path, "echo_a2"))
    assert said == ("warning: marking out of order: the ledger holds echo_a3, due after echo_a2 "
                    "(2027-03-16T09:00:00+11:00); the days spent there are counted as spent "
                    "before this one")


def test_days_left_are_the_bank_less_the_other_assignments_and_a_grant_gives_back(tmp_path):
    """5 free; ann: 2 on echo_a1, 3 on echo_a3, a grant of 1 (-1), and 2 on echo_a2 itself,
    which its own run replaces: 5 - 2 - 3 + 1 = 1. Zoë found by her name however written."""
    book = tmp_path / "ledger.csv"
    book.write_text("student,assignment,days,due,who,reason\n"
                    "ann,echo_a1,2,,exactmark,\nANN,echo_a3,3,,exactmark,\n"
                    "ann,grant,'-1,,lecturer,ill\nann,echo_a2,2,,exactmark,\n"
                    "Zoe\u0308,echo_a1,4,,exactmark,\n", encoding="utf-8")
    read = ledger.read_ledger(book)
    assignment = assignment_named(tmp_path, "echo_a2")
    assert ledger.days_left(read, assignment, ("", "ann")) == 5 - 2 - 3 + 1
    assert ledger.days_left(read, assignment, ("", "Zo\u00eb")) == 5 - 4


OTHERS = ("\ufeffStudent;Assignment;Days;Due;Who;Reason;Note\r\n"
          "ann;echo_a1;2;2027-03-09T09:00:00+11:00;exactmark;\"spent; as said\";\r\n"
          "\r\n"
          "bob;grant;-2;;\"the lecturer\";\"two lines\r\nof reason\";kept as typed\r\n"
          "ann;echo_a2;9;;exactmark;an earlier run's;\r\n"
          "cy;echo_a1;0;;exactmark;;")  # no line end at the end of the file


def test_the_other_rows_are_kept_byte_for_byte_and_the_run_s_replace_its_own(tmp_path):
    book = tmp_path / "ledger.csv"
    book.write_bytes(OTHERS.encode("utf-8"))
    assignment = assignment_named(tmp_path, "echo_a2")
    ledger.write_ledger(book, assignment, [
        {"student": "ann", "assignment": "echo_a2", "days": "1",
         "due": "2027-03-16T09:00:00+11:00", "who": "exactmark", "reason": "=1 of 5"}])
    expected = OTHERS.replace(
        "ann;echo_a2;9;;exactmark;an earlier run's;\r\n",
        "ann;echo_a2;1;2027-03-16T09:00:00+11:00;exactmark;'=1 of 5;\r\n")
    assert book.read_bytes().decode("utf-8") == expected


def test_a_run_replaces_only_the_rows_of_the_students_it_marks(tmp_path):
    """Section B marked after section A (one assignment, two class folders, one ledger):
    A's ann and the lecturer's row for dora stand; erin's row is added."""
    book = tmp_path / "ledger.csv"
    kept = ("student,assignment,days,due,who,reason\r\n"
            "ann,echo_a1,2,2027-03-09T09:00:00+11:00,exactmark,\r\n"
            "dora,echo_a1,1,,the lecturer,a paper hand-in\r\n")
    book.write_bytes(kept.encode("utf-8"))
    ledger.write_ledger(book, assignment_named(tmp_path, "echo_a1"), [
        {"student": "erin", "assignment": "echo_a1", "days": "1", "due": "", "who": "exactmark",
         "reason": ""}])
    assert book.read_bytes().decode("utf-8") == kept + "erin,echo_a1,1,,exactmark,\r\n"


def test_a_new_ledger_is_started_and_an_assignment_s_rows_go_at_its_end(tmp_path):
    book = tmp_path / "ledger.csv"
    assignment = assignment_named(tmp_path, "echo_a1")
    row = {"student": "ann", "assignment": "echo_a1", "days": "0", "due": "", "who": "exactmark",
           "reason": ""}
    ledger.write_ledger(book, assignment, [row])
    ledger.write_ledger(book, assignment_named(tmp_path, "echo_a2"),
                        [{**row, "assignment": "echo_a2"}])
    assert book.read_bytes().decode("utf-8") == (
        "student,assignment,days,due,who,reason\r\nann,echo_a1,0,,exactmark,\r\n"
        "ann,echo_a2,0,,exactmark,\r\n")


def test_a_write_cut_short_leaves_the_ledger_as_it_was(tmp_path):
    book = tmp_path / "ledger.csv"
    book.write_bytes(OTHERS.encode("utf-8"))
    with pytest.raises(TypeError):  # a cell that is no text: the writer stops half way
        ledger.write_ledger(book, assignment_named(tmp_path, "echo_a2"),
                            [{"student": "ann"}, {"student": None}])
    assert book.read_bytes() == OTHERS.encode("utf-8")
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".ledger")] == []


@pytest.mark.parametrize("text, said", [
    ("student,assignment,days\nann,echo_a1,2\n", "not a CSV with the columns student, "
     "assignment, days, due, who, reason"),
    ("student,assignment,days,due,who,reason\nann,grant,two,,me,\n",
     "ledger.csv, line 2: days 'two' is not a whole number (a grant gives days back: -2)"),
    ("student,assignment,days,due,who,reason\ncarl,grant,2,,me,two more days\n",
     "ledger.csv, line 2: a grant of 2 days would spend them: a grant gives days back, so its "
     "days are negative (-2)"),
])
def test_a_ledger_that_cannot_be_read_is_refused_in_one_line(tmp_path, text, said):
    book = tmp_path / "ledger.csv"
    book.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        ledger.read_ledger(book)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_ledger_in_no_folder_is_refused_before_marking(tmp_path):
    with pytest.raises(ValueError, match="no folder"):
        ledger.read_ledger(tmp_path / "nowhere" / "ledger.csv")


def test_the_run_s_rows_name_a_platform_s_student_by_id(tmp_path):
    """A team of two (ids 7 and 8) handing in 25 hours late: 2 days, spent by each."""
    from exactmark.classroom.roster import Student
    from exactmark.classroom.sheet import Row
    from exactmark.platforms.download import Person
    assignment = assignment_named(tmp_path, "echo_a1", "2027-03-09T09:00:00")
    team = Student("Team", tmp_path, "handin", members=[Person("7", "Al"), Person("8", "Bo")],
                   submitted=datetime(2027, 3, 10, 10, 0, tzinfo=SYDNEY))
    rows = ledger.spent_rows(assignment, [team], [Row("Team", {}, raw=13.0)])
    assert [(row["student"], row["days"], row["due"]) for row in rows] == [
        ("7", "2", "2027-03-09T09:00:00+11:00"), ("8", "2", "2027-03-09T09:00:00+11:00")]


def test_a_person_s_row_keyed_by_name_is_replaced_by_their_row_keyed_by_id(tmp_path):
    """Ann Lee marked first from a class folder (her row by name), then from the platform's
    download (id 1001): one row of hers stands for the assignment, never both (she would
    be charged twice on the next)."""
    book = tmp_path / "ledger.csv"
    book.write_bytes(b"student,assignment,days,due,who,reason\r\n"
                     b"Ann Lee,echo_a1,3,,exactmark,\r\n")
    ledger.write_ledger(book, assignment_named(tmp_path, "echo_a1"), [
        {"student": "1001", "assignment": "echo_a1", "days": "3", "due": "", "who": "exactmark",
         "reason": ""}], [("1001", "Ann Lee")])
    assert book.read_bytes() == (b"student,assignment,days,due,who,reason\r\n"
                                 b"1001,echo_a1,3,,exactmark,\r\n")


def test_a_team_spends_as_its_member_with_fewest_days_and_each_row_says_their_own(tmp_path):
    """Al (7) has 0 days left (5 spent on echo_a0), Bo (8) all 5: the team, 25 hours late (2
    days), spends none (Al has none) and is penalised 2 days; Bo's row says his 5 left."""
    from exactmark.classroom.roster import Student
    from exactmark.classroom.sheet import Row
    from exactmark.kit.late import Terms
    from exactmark.platforms.download import Person
    book = tmp_path / "ledger.csv"
    book.write_text("student,assignment,days,due,who,reason\n7,echo_a0,5,,exactmark,\n",
                    encoding="utf-8")
    read = ledger.read_ledger(book)
    assignment = assignment_named(tmp_path, "echo_a1", "2027-03-09T09:00:00")
    team = Student("Team", tmp_path, "handin", members=[Person("7", "Al"), Person("8", "Bo")],
                   submitted=datetime(2027, 3, 10, 10, 0, tzinfo=SYDNEY),
                   terms=Terms(late_days_left=0))
    rows = ledger.spent_rows(assignment, [team], [Row("Team", {}, raw=13.0)], read)
    assert [(row["student"], row["days"], row["reason"]) for row in rows] == [
        ("7", "0", "0 of 5 late days spent here, 0 left"),
        ("8", "0", "0 of 5 late days spent here, 5 left")]
