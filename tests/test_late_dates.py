"""Dates no late rule can count from, refused in one line by each reader (#37): elapsed time
is counted in UTC, and the calendar holds years 1 to 9999 only, so 0001-01-01T00:00 in
Sydney (13:00 on 31 December of year 0 in UTC) and 9999-12-31T23:59 pushed back by 4 days
do not exist. A student's own due date of 9999-12-31 still works: a window that never closes.
And an instructor's CSV that is not a file, or is larger than any class's, is refused before
it is read (/dev/zero and a FIFO would hang the run)."""

import os
import subprocess
import sys
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from exactmark.base.instructor_csv import MOST_BYTES, read_table
from exactmark.classroom.times import read_times
from exactmark.classroom.unpack import name_key
from exactmark.gradescope import build
from exactmark.kit.assignment import AssignmentError, load
from exactmark.kit.cases import ROOT
from exactmark.kit.late import NEVER, Terms, extended, extension_of
from tests.test_class_terms import hand_in, mark_class, tiny_assignment

SYDNEY = ZoneInfo("Australia/Sydney")
YEAR_1 = "'0001-01-01T00:00': it, in UTC or in the assignment's time zone, falls outside the " \
         "calendar (years 1 to 9999), so the late rule cannot count from it"
# 9999-12-31T23:59 in Sydney is 12:59 that day in UTC: 4 days on is in the year 10000.
PAST_9999 = ("the deadline 31 December 9999 23:59: 4 days after it falls outside the calendar "
             "(years 1 to 9999), so the late rule cannot count from it")
NO_LATE = ""  # a deadline with no [late]: nothing late accepted, a window of 0


def refused_line(done: subprocess.CompletedProcess) -> str:
    """The one line a command refused with; no traceback, nothing on stdout."""
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done.stderr.strip().splitlines()[-1]


def test_an_extension_past_the_year_9999_is_refused_not_an_overflow():
    with pytest.raises(ValueError) as refused:
        extended(datetime(9999, 12, 31, 23, 59, tzinfo=SYDNEY), timedelta(days=4))
    assert str(refused.value) == PAST_9999


def test_a_student_s_own_due_date_of_9999_12_31_still_never_closes(tmp_path):
    assignment = load(str(tiny_assignment(tmp_path)))
    own = Terms(due=datetime(9999, 12, 31, 23, 59, tzinfo=SYDNEY))
    assert assignment.closes(own) == NEVER
    late = assignment.mark_after_deadline(13.0, datetime(2027, 3, 20, 9, 0, tzinfo=SYDNEY), own)
    assert (late.accepted, late.mark) == (True, 13.0)


@pytest.mark.parametrize("text, said", [
    ("1000000 days", "'1000000 days' is too large an extension: at most 99999 days"),
    ("99999 days 1 minute", "'99999 days 1 minute' is too large an extension: at most 99999 days"),
    ("9" * 5000 + " days", "is too large an extension: at most 99999 days"),  # int() refuses it
])
def test_an_extension_too_large_says_so(text, said):
    with pytest.raises(ValueError) as refused:
        extension_of(text)
    assert said in str(refused.value) and "not an extension such as" not in str(refused.value)


def test_99999_days_is_the_largest_extension():
    assert extension_of("99999 days") == timedelta(days=99999)


# --- the assignment's deadline -----------------------------------------------------------------

@pytest.mark.parametrize("deadline, said", [
    # the cap's window is 5 days: 9999-12-31 12:59 UTC + 5 days is in the year 10000
    ("9999-12-31T23:59:00", "deadline '9999-12-31T23:59:00': 5 days after it falls outside"),
    ("0001-01-01T00:00:00", "deadline '0001-01-01T00:00:00': it, in UTC or in the assignment's "
     "time zone, falls outside"),
])
def test_an_assignment_deadline_no_late_rule_can_count_from_is_refused(tmp_path, deadline, said):
    path = tiny_assignment(tmp_path, deadline=deadline)
    with pytest.raises(AssignmentError) as refused:
        load(str(path))
    assert str(refused.value) == (f"{path}: {said} the calendar (years 1 to 9999), so the late "
                                  "rule cannot count from it")


def test_a_deadline_of_9999_12_31_without_a_late_rule_loads_but_takes_no_extension(tmp_path):
    path = tiny_assignment(tmp_path, late=NO_LATE, deadline="9999-12-31T23:59:00")
    assert load(str(path)).closes() == datetime(9999, 12, 31, 23, 59, tzinfo=SYDNEY)


# --- the times file (exactmark class) ----------------------------------------------------------

@pytest.mark.parametrize("text, said", [
    ("student,submitted\nann,0001-01-01T00:00\n", f"line 2: {YEAR_1}"),
    ("student,deadline\nann,0001-01-01T00:00\n", f"line 2: {YEAR_1}"),
    ("student,submitted,extension\nann,2027-03-10T10:00,4 days\n", f"line 2: {PAST_9999}"),
    ("student,extension\nann,1000000 days\n",
     "line 2: '1000000 days' is too large an extension: at most 99999 days"),
])
def test_exactmark_class_refuses_a_times_file_s_date_in_one_line(tmp_path, text, said):
    assignment = tiny_assignment(tmp_path, late=NO_LATE, deadline="9999-12-31T23:59:00")
    klass = hand_in(tmp_path / "class", "ann")
    (tmp_path / "times.csv").write_text(text, encoding="utf-8")
    done = mark_class(klass, assignment, tmp_path / "out", "--times", tmp_path / "times.csv")
    assert refused_line(done).endswith(f"{tmp_path / 'times.csv'}, {said}"), done.stderr
    assert not (tmp_path / "out").exists()


def test_a_times_file_s_own_deadline_of_9999_12_31_is_read(tmp_path):
    (tmp_path / "times.csv").write_text("student,deadline\nann,9999-12-31T23:59\n",
                                        encoding="utf-8")
    read = read_times(tmp_path / "times.csv", SYDNEY, name_key,
                      datetime(2027, 3, 9, 9, 0, tzinfo=SYDNEY))
    assert read["ann"].terms == Terms(due=datetime(9999, 12, 31, 23, 59, tzinfo=SYDNEY))


# --- exactmark mark ------------------------------------------------------------------------------

def mark(*arguments) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(ROOT), *arguments],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("option", ["--due", "--submitted"])
def test_exactmark_mark_refuses_a_year_1_time(option):
    """seeded is due in Sydney: year 1's first minute there is in year 0 in UTC."""
    line = refused_line(mark("--assignment", "seeded", option, "0001-01-01T00:00"))
    assert line.endswith(f"{option}: {YEAR_1}"), line


def test_exactmark_mark_refuses_an_extension_past_the_year_9999(tmp_path):
    path = tiny_assignment(tmp_path, late=NO_LATE, deadline="9999-12-31T23:59:00")
    line = refused_line(mark("--assignment", str(path), "--extension", "4 days"))
    assert line.endswith(f"--extension: {PAST_9999}"), line


def test_exactmark_mark_says_an_extension_is_too_large():
    line = refused_line(mark("--assignment", "seeded", "--extension", "1000000 days"))
    assert line.endswith("--extension: '1000000 days' is too large an extension: at most 99999 "
                         "days"), line


# --- exactmark gradescope --extensions --------------------------------------------------------

@pytest.mark.parametrize("row, said", [
    ("ann@example.edu,,0001-01-01T00:00", YEAR_1),
    ("ann@example.edu,4 days,", PAST_9999),
    ("ann@example.edu,1000000 days,", "'1000000 days' is too large an extension: at most 99999 "
     "days"),
])
def test_exactmark_gradescope_refuses_an_extensions_file_s_date_in_one_line(
        tmp_path, capsys, row, said):
    path = tiny_assignment(tmp_path, late=NO_LATE, deadline="9999-12-31T23:59:00")
    extensions = tmp_path / "extensions.csv"
    extensions.write_text(f"student,extension,deadline\n{row}\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        build.main([str(path), "--out", str(tmp_path / "autograder.zip"),
                    "--extensions", str(extensions)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (f"exactmark gradescope: error: {extensions}, line 2: "
                                            f"{said}")
    assert not (tmp_path / "autograder.zip").exists()


# --- an instructor's CSV that is no file ----------------------------------------------------

def refused_csv(path) -> str:
    with pytest.raises(ValueError) as refused:
        read_table(path, ("student",), "{path}: no student column")
    return str(refused.value)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_dev_zero_is_refused_not_read_for_ever():
    assert refused_csv("/dev/zero") == ("/dev/zero: not a file (a device or a pipe): save the "
                                        "CSV to a file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_with_no_writer_is_refused_not_waited_on(tmp_path):
    os.mkfifo(tmp_path / "times.csv")
    assert refused_csv(tmp_path / "times.csv") == (f"{tmp_path / 'times.csv'}: not a file (a "
                                                   "device or a pipe): save the CSV to a file")


def test_a_csv_over_64_mib_is_refused_before_it_is_read(tmp_path):
    """A sparse file: 64 MiB and one byte long, no disk spent on it."""
    assert MOST_BYTES == 64 * 1024 * 1024
    with open(tmp_path / "times.csv", "wb") as file:
        file.truncate(64 * 1024 * 1024 + 1)
    assert refused_csv(tmp_path / "times.csv") == (
        f"{tmp_path / 'times.csv'}: larger than 64 MiB: not a CSV a platform or a spreadsheet "
        "saves")


def test_a_csv_of_exactly_64_mib_is_read(tmp_path):
    """Read, and refused for what it holds: after its header and a row, NUL bytes to 64 MiB,
    one cell longer than any name."""
    with open(tmp_path / "times.csv", "wb") as file:
        file.write(b"student\nann\n")
        file.truncate(64 * 1024 * 1024)
    said = refused_csv(tmp_path / "times.csv")
    assert said.startswith(f"{tmp_path / 'times.csv'}, line 3: a cell longer than any name or "
                           "time"), said


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_exactmark_class_refuses_dev_zero_as_its_times_file(tmp_path):
    assignment = tiny_assignment(tmp_path)
    klass = hand_in(tmp_path / "class", "ann")
    done = mark_class(klass, assignment, tmp_path / "out", "--times", "/dev/zero")
    assert refused_line(done).endswith("/dev/zero: not a file (a device or a pipe): save the "
                                       "CSV to a file"), done.stderr
