"""A student's own terms on Gradescope (#37): the due date Gradescope gives each member in
submission_metadata.json, the extensions file built into the zip, which wins, a file that
cannot be trusted, and what results.json says of `after_due_date` tests. Marked as the
platform runs it, with tests/test_gradescope.py's root and helpers.

The metadata is as Gradescope writes it: beside the assignment's due date, each member's
own under users[].assignment, as posted in
https://github.com/gradescope/autograder_samples/issues/60 and in
github.com/burturt/go-autograder-example's submission_metadata.json (Gradescope's
documentation, https://gradescope-autograders.readthedocs.io/en/latest/submission_metadata/,
lists no per-user dates). The figures are worked by hand: the late rule is the seed
handout's shape (the maximum falls 5% of the marks per day late, any part of 24 hours a day),
on 13 marks."""

import hashlib
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from exactmark.gradescope import build, run as autograder_run
from exactmark.kit.cases import ROOT, load_cases
from tests import test_gradescope
from tests.test_gradescope import by_name, setup, solution

autograder, kit = test_gradescope.autograder, test_gradescope.kit  # its fixtures, here too

ASSIGNMENT = """title = "Own terms on Gradescope"
marks = 13
cpu_seconds = 2
deadline = 2027-03-09T09:00:00
time_zone = "Australia/Sydney"

[late]
days = 5
cap_per_day = 0.05

[[programs]]
name = "solitaire_1"
kit_only = {kit_only}

  [[programs.groups]]
  name = "shown"
  marks = 9
  cases = ["seed_0", "seed_27"]
  visibility = "visible"

  [[programs.groups]]
  name = "after the due date"
  marks = 4
  cases = ["seed_705"]
  visibility = "after_due_date"
"""
EXTENSIONS = """student,extension,deadline,late_days_left
Filed@Example.edu,3 days,,
later@example.edu,1 day,,
4242,,2027-03-13T09:00,
"""
# The common due date, as Gradescope says it (Sydney keeps daylight saving time in March: +11).
DUE = datetime(2027, 3, 9, 9, 0, tzinfo=timezone(timedelta(hours=11)))
DAY, HOUR = timedelta(days=1), timedelta(hours=1)


def gradescope_time(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.%f%z")[:-2] + ":" + when.strftime("%z")[-2:]


def metadata(submitted: datetime, *members) -> dict:
    """submission_metadata.json for `members`, each (email, user id, own due date)."""
    return {"id": 1, "created_at": gradescope_time(submitted), "assignment_id": None,
            "assignment": {"id": 3, "title": "Own terms", "due_date": gradescope_time(DUE),
                           "late_due_date": gradescope_time(DUE + 5 * DAY),
                           "release_date": gradescope_time(DUE - 14 * DAY),
                           "group_submission": len(members) > 1, "group_size": None,
                           "total_points": "13.0", "course_id": 4},
            "users": [{"id": user_id, "email": email, "name": email.split("@")[0], "sid": "",
                       "assignment": {"release_date": gradescope_time(DUE - 14 * DAY),
                                      "due_date": gradescope_time(own),
                                      "late_due_date": gradescope_time(own + 5 * DAY)}}
                      for email, user_id, own in members],
            "submission_method": "upload", "previous_submissions": []}


@pytest.fixture(scope="module")
def terms_zip(tmp_path_factory):
    """The 13-mark assignment's autograder, with the extensions file built in."""
    folder = tmp_path_factory.mktemp("gradescope-terms")
    others = [case.name for case in load_cases("solitaire_1")
              if case.name not in ("seed_0", "seed_27", "seed_705")]
    assignment = folder / "gs_terms.toml"
    assignment.write_text(ASSIGNMENT.format(kit_only=json.dumps(others)), encoding="utf-8")
    extensions = folder / "extensions.csv"
    extensions.write_text(EXTENSIONS, encoding="utf-8")
    out = folder / "autograder.zip"
    done = subprocess.run([sys.executable, "-m", "exactmark.gradescope.build", str(assignment),
                           "--out", str(out), "--extensions", str(extensions)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"the own terms of 3 students from {extensions}" in done.stdout
    return assignment, out


def marked(autograder, kit, terms_zip, data: dict):
    make, run = autograder
    return run(make(solution(kit), zipped=terms_zip[1], metadata=data))


def asked(done) -> str:
    """The marker's command line, as the log shows it."""
    return next(line for line in done.stdout.splitlines() if line.startswith("run_autograder: $ "))


# Gradescope's own due date for the student


@pytest.mark.parametrize("own, after, score, days", [
    # A 3-day extension on Gradescope, submitted 70 hours after the common due date: before
    # their own (72 hours after it), so on time: the mark stands.
    (DUE + 3 * DAY, 70 * HOUR, 13, 0),
    # The same 3-day extension, submitted 80 hours after the common due date: 8 hours after
    # their own, any part of a day a day, so 1 day late: at most 13 * (1 - 0.05) = 12.35.
    # (The issue calls 80 hours on time for a 3-day extension: 3 days are 72 hours.)
    (DUE + 3 * DAY, 80 * HOUR, 12.35, 1),
    # No extension: 80 hours are 3 days 8 hours, so 4 days late: 13 * (1 - 4 * 0.05) = 10.40.
    (DUE, 80 * HOUR, 10.40, 4),
])
def test_the_late_rule_counts_from_the_due_date_gradescope_gives_the_student(
        autograder, kit, terms_zip, own, after, score, days):
    results, done = marked(autograder, kit, terms_zip,
                           metadata(DUE + after, ("ann@example.edu", 11, own)))
    assert (results["score"], results["extra_data"]["late"]["days"]) == (score, days), \
        results["output"]
    command = asked(done)
    if own != DUE:
        assert f"--due {own.isoformat()}" in command, command
        assert f"own terms: due {own.isoformat()}, as Gradescope gives it for ann@example.edu" \
            in done.stdout
    else:
        assert "--due" not in command and "--extension" not in command, command


def test_a_student_s_extension_leaves_after_due_date_tests_to_gradescope(autograder, kit,
                                                                         terms_zip):
    """results.json says the same visibility for a student with an extension as for any:
    Gradescope shows the test after its due date (the late due date, where late
    submissions are allowed), and the summary says so."""
    results, _ = marked(autograder, kit, terms_zip,
                        metadata(DUE + 70 * HOUR, ("ann@example.edu", 11, DUE + 3 * DAY)))
    tests = by_name(results)
    assert tests["solitaire_1/seed_705"]["visibility"] == "after_due_date"
    assert tests["solitaire_1/seed_0"]["visibility"] == "visible"
    assert ("1 more test (4 marks) counts too: Gradescope shows it after the due date (the late "
            "due date, where late submissions are allowed)") in results["output"], results["output"]


def own_terms(tmp_path, monkeypatch, data: dict, listed: dict = None) -> dict:
    """What run.py asks the marker for, without marking: the terms of `data`'s members,
    with `listed` standing for the extensions file built in (its digest is tested below)."""
    (tmp_path / "submission_metadata.json").write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(autograder_run, "extensions_of", lambda config: listed or {})
    return autograder_run.own_terms(autograder_run.Paths(tmp_path),
                                    {"deadline": DUE.isoformat()})


def test_of_a_group_the_latest_of_its_members_due_dates_counts(tmp_path, monkeypatch):
    members = [("ann@example.edu", 11, DUE), ("bo@example.edu", 12, DUE + 2 * DAY),
               ("cy@example.edu", 13, DUE + DAY)]
    assert own_terms(tmp_path, monkeypatch, metadata(DUE, *members)) == {
        "due": (DUE + 2 * DAY).isoformat()}
    assert own_terms(tmp_path, monkeypatch, metadata(DUE, ("ann@example.edu", 11, DUE))) == {}
    # A due date of their own before the assignment's is theirs too.
    assert own_terms(tmp_path, monkeypatch, metadata(DUE, ("ann@example.edu", 11, DUE - DAY))) == {
        "due": (DUE - DAY).isoformat()}


# The extensions file built into the zip


def test_the_extensions_file_gives_a_student_named_by_email_or_id_their_terms(
        autograder, kit, terms_zip):
    # Filed@Example.edu (3 days in the file, any case of the email), 70 hours after the
    # common due date: before 72 hours, on time; the request says the extension itself.
    results, done = marked(autograder, kit, terms_zip,
                           metadata(DUE + 70 * HOUR, ("filed@example.EDU", 11, DUE)))
    assert results["score"] == 13 and results["extra_data"]["late"]["days"] == 0
    assert "--extension '3 days'" in asked(done) or "--extension 3 days" in asked(done)
    # User 4242, given 2027-03-13T09:00 in Sydney (4 days), 80 hours after: on time.
    results, done = marked(autograder, kit, terms_zip,
                           metadata(DUE + 80 * HOUR, ("dee@example.edu", 4242, DUE)))
    assert results["score"] == 13, results["output"]
    assert f"--due {(DUE + 4 * DAY).isoformat()}" in asked(done)


def test_the_late_days_left_reach_the_marker_the_least_of_a_group_s(tmp_path, monkeypatch):
    listed = {"banked@example.edu": {"due": None, "extension": None, "late_days_left": 2},
              "13": {"due": None, "extension": None, "late_days_left": 1}}
    assert own_terms(tmp_path, monkeypatch, metadata(DUE, ("Banked@example.edu", 11, DUE)),
                     listed) == {"late_days_left": 2}
    assert own_terms(tmp_path, monkeypatch, metadata(DUE, ("banked@example.edu", 11, DUE),
                                                     ("cy@example.edu", 13, DUE)),
                     listed) == {"late_days_left": 1}


def test_gradescope_s_own_due_date_wins_over_the_file_s(autograder, kit, terms_zip):
    """Filed@Example.edu has 3 days in the file, but Gradescope gives them 1: Gradescope's
    counts (the one it showed them). 80 hours after the common due date are 56 hours after
    theirs, so 3 days late: 13 * (1 - 3 * 0.05) = 11.05."""
    results, done = marked(autograder, kit, terms_zip,
                           metadata(DUE + 80 * HOUR, ("filed@example.edu", 11, DUE + DAY)))
    assert results["score"] == 11.05 and results["extra_data"]["late"]["days"] == 3
    assert f"--due {(DUE + DAY).isoformat()}" in asked(done) and "--extension" not in asked(done)
    assert ("own terms: Gradescope's due date for filed@example.edu (2027-03-10T09:00:00+11:00) "
            "counts, not extensions.json's (3 days)") in done.stdout


@pytest.mark.parametrize("row, said", [
    ("ann@example.edu,3 days,2027-03-12T09:00,", "give a deadline or an extension, not both"),
    ("ann@example.edu,2d,,", "extension '2d' is not one such as \"3 days\""),
    ("ann@example.edu,,12 March,", "'12 March' is not a date and time such as 2027-03-12T09:00"),
    ("Ann Smith,3 days,,", "'Ann Smith' is neither an email nor Gradescope's user id"),
    ("ann@example.edu,,,-1", "late_days_left '-1' is not a whole number of days"),
    ("ann@example.edu,,,", "no deadline, extension or late_days_left on this row"),
    ("ann@example.edu,,,2", "late_days_left, but seeded has no term's late days ([late_days]) "
     "to spend"),
])
def test_a_malformed_extensions_file_is_refused_by_the_build_in_one_line(
        tmp_path, capsys, row, said):
    extensions = tmp_path / "extensions.csv"
    extensions.write_text(f"student,extension,deadline,late_days_left\n{row}\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        build.main(["seeded", "--out", str(tmp_path / "autograder.zip"),
                    "--extensions", str(extensions)])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"exactmark gradescope: error: {extensions}, line 2: ")
    assert said in last, last
    assert not (tmp_path / "autograder.zip").exists()


def test_a_student_given_terms_twice_is_refused_saying_both_lines(tmp_path, capsys):
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student;extension\nann@example.edu;3 days\nANN@example.edu;2 days\n",
                          encoding="utf-8")
    with pytest.raises(SystemExit):
        build.main(["seeded", "--out", str(tmp_path / "autograder.zip"),
                    "--extensions", str(extensions)])
    assert "line 3: 'ANN@example.edu' is given terms on lines 2 and 3: keep one" in \
        capsys.readouterr().err


def test_make_s_extensions_variable_reaches_the_build(tmp_path):
    extensions = tmp_path / "odd name.csv"
    extensions.write_text("student,extension\nann@example.edu,soon\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "exactmark.gradescope.build"], cwd=ROOT,
                          env={**os.environ, "MARK_ASSIGNMENT": "seeded",
                               "MARK_OUT": str(tmp_path / "autograder.zip"),
                               "MARK_EXTENSIONS": str(extensions)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert f"{extensions}, line 2: extension 'soon'" in done.stderr, done.stderr


def test_a_damaged_extensions_file_fails_setup_s_check_and_marks_nothing(
        autograder, kit, terms_zip):
    make, run = autograder
    root = make(solution(kit), zipped=terms_zip[1], metadata=metadata(
        DUE + 70 * HOUR, ("filed@example.edu", 11, DUE)))
    assert "check: the own terms of 3 students (extensions.json)" in setup(root, "check").stdout
    built = root / "source" / "exactmark" / "gradescope" / "extensions.json"
    built.write_text(built.read_text(encoding="utf-8").replace("3 days", "30 days"),
                     encoding="utf-8")
    with pytest.raises(subprocess.CalledProcessError) as failed:
        setup(root, "check")
    assert ("check: extensions.json is not the one the autograder was built with (its digest "
            "differs): build it again with --extensions") in failed.value.stdout
    results, done = run(root)
    assert results is None and "extensions.json is not the one" in done.stdout


def test_own_terms_for_an_assignment_without_a_deadline_are_refused(tmp_path, capsys):
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student,extension\nann@example.edu,3 days\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        build.main(["calculation", "--out", str(tmp_path / "autograder.zip"),
                    "--extensions", str(extensions)])
    assert (f"{extensions}: calculation has no deadline, so no student's own terms to apply"
            in capsys.readouterr().err)


def test_a_gradescope_due_date_that_is_not_the_file_s_deadline_is_logged(tmp_path, monkeypatch,
                                                                         capsys):
    data = metadata(DUE, ("ann@example.edu", 11, DUE + DAY))
    data["assignment"]["due_date"] = gradescope_time(DUE + 15 * HOUR)  # 23:59 would be usual
    data["users"][0]["assignment"]["due_date"] = gradescope_time(DUE + 15 * HOUR)
    assert own_terms(tmp_path, monkeypatch, data) == {}
    assert ("Gradescope's due date (2027-03-10T00:00:00+11:00) is not the assignment file's "
            "deadline (2027-03-09T09:00:00+11:00): the late rule counts from the file's"
            in capsys.readouterr().out)


@pytest.mark.parametrize("terms", [
    {"due": "2027-03-12T09:00:00", "extension": None, "late_days_left": None},  # no offset
    {"due": None, "extension": "3 days", "late_days_left": None},  # an extension, no due date
    {"due": None, "extension": None, "late_days_left": -1},
    {"due": None, "extension": None, "late_days_left": None, "note": "more"},
])
def test_terms_the_build_never_writes_fail_the_autograder_even_with_their_digest(
        tmp_path, monkeypatch, terms):
    data = json.dumps({"ann@example.edu": terms}).encode()
    (tmp_path / autograder_run.EXTENSIONS_NAME).write_bytes(data)
    monkeypatch.setattr(autograder_run, "HERE", tmp_path)
    config = {"extensions": {"students": 1, "sha256": hashlib.sha256(data).hexdigest()}}
    with pytest.raises(ValueError, match="extensions.json: 'ann@example.edu' holds no terms the "
                                         "build writes"):
        autograder_run.extensions_of(config)
