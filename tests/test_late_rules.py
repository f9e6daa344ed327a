"""Late rules as data (exactmark/kit/late.py), each shape at its boundaries with figures
worked by hand: the seed handout's cap, a deduction per day or per hour, a grace period,
no late submission at all, and a term's bank of late days spent before any of them; a
student's own terms (an extension, their own due date), in elapsed time across a
daylight-saving change; and `exactmark mark --extension` end to end."""

import subprocess
import sys
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from exactmark.classroom.pages import late_rule
from exactmark.kit.assignment import ASSIGNMENTS, AssignmentError, load
from exactmark.kit.cases import ROOT
from exactmark.kit.late import (Cap, Deduct, LateDays, NoLate, Terms, extended, extension_of,
                                judge)
from exactmark.marking import records
from tests.test_mark import perfect_seeded
from tests.test_mark_assignments import run_marker

SYDNEY = ZoneInfo("Australia/Sydney")
DUE = datetime(2027, 3, 9, 9, 0, tzinfo=SYDNEY)  # seeded's deadline
HOURS, MINUTES = timedelta(hours=1), timedelta(minutes=1)
DAYS, SECOND, MICROSECOND = timedelta(days=1), timedelta(seconds=1), timedelta(microseconds=1)
CAP = Cap(5, 0.05)  # the seed handout's


def own_assignment(tmp_path, blocks: str, name="own"):
    """patience.toml (20 marks), due 9 March 2027 9:00 in Sydney, with `blocks` after."""
    text = (ASSIGNMENTS / "patience.toml").read_text().replace(
        "cpu_seconds = 30", 'cpu_seconds = 30\ndeadline = 2027-03-09T09:00:00\n'
        'time_zone = "Australia/Sydney"', 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(text + "\n" + blocks)
    return load(str(path))


def test_the_cap_never_falls_below_0():
    """30 days at 5% a day, 25 days late (before Sydney's clocks go back on 4 April): 1 - 25
    × 5% = -25%, so the cap is 0, not -2.50."""
    verdict = judged(Cap(30, 0.05), 25 * 24 * HOURS)
    assert (verdict.days, verdict.accepted, verdict.cap, verdict.mark) == (25, True, 0.0, 0.0)


def judged(rule, late: timedelta, raw=10.0, marks=10.0, bank=None, left=None):
    """The rule applied to a submission `late` after DUE, out of `marks`."""
    return judge(rule, bank, raw, marks, DUE, DUE + late, Terms(late_days_left=left), SYDNEY)


# The cap: the seed handout's. Any part of 24 hours is a day; 13 marks, at most 5 days.
@pytest.mark.parametrize("late, days, mark", [
    (24 * HOURS, 1, 12.35),  # 13 × (1 - 1 × 5%)
    (24 * HOURS + MICROSECOND, 2, 11.70),  # 13 × (1 - 2 × 5%)
    (120 * HOURS, 5, 9.75),  # 13 × (1 - 5 × 5%): the last day accepted
], ids=["exactly 24 h: 1 day", "24 h + 1 µs: 2 days", "5 days: accepted"])
def test_the_cap_counts_any_part_of_a_day_as_a_day(late, days, mark):
    seeded = load("seeded")
    verdict = seeded.mark_after_deadline(13, seeded.deadline + late)
    assert (verdict.days, verdict.accepted, verdict.mark) == (days, True, pytest.approx(mark))


def test_the_cap_refuses_five_days_and_a_second():
    seeded = load("seeded")
    verdict = seeded.mark_after_deadline(13, seeded.deadline + 120 * HOURS + SECOND)
    assert (verdict.days, verdict.accepted, verdict.mark) == (6, False, 0)
    assert verdict.explain(13) == ("submitted 120 hours 1 second after the deadline: more than 5 "
                                   "days late (more than 120 hours), past what is accepted: 0")


def test_seeded_and_golf_tests_keep_the_seed_handout_s_rule():
    assert load("seeded").late == CAP and load("golf_tests").late == CAP
    assert load("seeded").late_days is None and load("golf_tests").late_days is None


def test_the_seed_handout_s_sentence_stays_word_for_word():
    assert late_rule(load("seeded")) == (
        "Due 2027-03-09 09:00 (Australia/Sydney). The maximum mark obtainable reduces by 5% "
        "per late day, for up to 5 days; a day late is any part of 24 hours after the deadline "
        "(more than 24 and at most 48 hours late is two days late).")


DEDUCT_DAY = '[late]\nrule = "deduct"\nper = "day"\ndeduct = 1.3\naccepted = 5\n'


@pytest.mark.parametrize("late, raw, mark", [
    (SECOND, 10, 8.70),  # 1 day: 10 - 1 × 1.3
    (48 * HOURS, 10, 7.40),  # 2 days: 10 - 2 × 1.3
    (48 * HOURS, 2, 0.0),  # 2 - 2.6 is below 0: 0
    (120 * HOURS, 10, 3.50),  # 5 days, the last accepted: 10 - 5 × 1.3
], ids=["1 s: 1 day", "2 days", "never below 0", "5 days: accepted"])
def test_a_deduction_per_day(tmp_path, late, raw, mark):
    deduct = own_assignment(tmp_path, DEDUCT_DAY)
    assert deduct.late == Deduct("day", 1.3, 5)
    verdict = deduct.mark_after_deadline(raw, deduct.deadline + late)
    assert (verdict.accepted, verdict.mark) == (True, pytest.approx(mark))


def test_a_deduction_per_day_says_its_arithmetic_and_past_what_is_accepted_gives_0(tmp_path):
    deduct = own_assignment(tmp_path, DEDUCT_DAY)
    verdict = deduct.mark_after_deadline(10, deduct.deadline + 48 * HOURS)
    assert verdict.explain(10) == ("submitted 48 hours after the deadline: 2 days late (more "
                                   "than 24, at most 48 hours); 2 × 1.3 marks taken: 10.00 "
                                   "becomes 7.40")
    past = deduct.mark_after_deadline(10, deduct.deadline + 120 * HOURS + SECOND)
    assert (past.accepted, past.mark) == (False, 0)
    assert past.explain(10).endswith("more than 5 days late (more than 120 hours), past what is "
                                     "accepted: 0")


@pytest.mark.parametrize("late, hours, mark", [
    (HOURS, 1, 9.50),  # 10 - 1 × 0.5
    (HOURS + SECOND, 2, 9.00),  # any part of an hour is an hour: 10 - 2 × 0.5
    (5 * HOURS, 5, 7.50),  # the last hour accepted: 10 - 5 × 0.5
], ids=["1 h", "1 h 1 s: 2 hours", "5 h: accepted"])
def test_a_deduction_per_hour(tmp_path, late, hours, mark):
    hourly = own_assignment(tmp_path, '[late]\nrule = "deduct"\nper = "hour"\ndeduct = 0.5\n'
                                      'accepted = 5\n')
    verdict = hourly.mark_after_deadline(10, hourly.deadline + late)
    assert (verdict.units, verdict.accepted, verdict.mark) == (hours, True, pytest.approx(mark))


def test_a_deduction_per_hour_past_its_hours_gives_0():
    hourly = Deduct("hour", 0.5, 5)
    assert judged(hourly, 2 * HOURS).explain(10) == (
        "submitted 2 hours after the deadline: 2 hours late; 2 × 0.5 marks taken: 10.00 "
        "becomes 9.00")
    past = judged(hourly, 5 * HOURS + SECOND)
    assert (past.accepted, past.mark) == (False, 0)
    assert past.explain(10) == ("submitted 5 hours 1 second after the deadline: more than 5 "
                                "hours late, past what is accepted: 0")


def test_a_grace_period_is_on_time_and_then_late_from_the_due_date(tmp_path):
    graced = own_assignment(tmp_path, "[late]\ndays = 5\ncap_per_day = 0.05\ngrace_minutes = 10\n")
    assert graced.late == Cap(5, 0.05, 10)
    within = graced.mark_after_deadline(20, graced.deadline + 10 * MINUTES)
    assert (within.days, within.mark) == (0, 20)
    assert within.explain(20) == ("submitted 10 minutes after the deadline: within the 10 "
                                  "minutes' grace, on time: 20.00 stands")
    past = graced.mark_after_deadline(20, graced.deadline + 10 * MINUTES + SECOND)
    assert (past.days, past.mark) == (1, 19)  # 20 × (1 - 1 × 5%)
    counted_from_due = graced.mark_after_deadline(20, graced.deadline + 24 * HOURS + 5 * MINUTES)
    assert (counted_from_due.days, counted_from_due.mark) == (2, 18)  # 20 × (1 - 2 × 5%)


def test_no_late_submission_at_all(tmp_path):
    strict = own_assignment(tmp_path, '[late]\nrule = "none"\ngrace_minutes = 10\n')
    assert strict.late == NoLate(10)
    assert strict.mark_after_deadline(20, strict.deadline).mark == 20
    assert strict.mark_after_deadline(20, strict.deadline + 10 * MINUTES).mark == 20
    refused = strict.mark_after_deadline(20, strict.deadline + 10 * MINUTES + SECOND)
    assert (refused.accepted, refused.mark) == (False, 0)
    assert refused.explain(20) == ("submitted 10 minutes 1 second after the deadline: late "
                                   "submissions are not accepted: 0")
    assert judged(NoLate(), MICROSECOND).mark == 0


def test_each_shape_has_its_sentence(tmp_path):
    hourly = own_assignment(tmp_path, '[late]\nrule = "deduct"\nper = "hour"\ndeduct = 0.5\n'
                                      'accepted = 5\ngrace_minutes = 10\n', "hourly")
    assert hourly.late_sentence() == (
        "0.5 marks are taken from the mark per late hour, to no less than 0, for up to 5 hours; "
        "an hour late is any part of an hour after the deadline; a later submission gets 0. A "
        "submission at most 10 minutes after the deadline is on time; a later one is late from "
        "the deadline.")
    banked = own_assignment(tmp_path, "[late_days]\nfree = 5\nmost = 3\n", "banked")
    assert banked.late_days == LateDays(5, 3)
    assert banked.late_sentence() == (
        "No late submission is accepted. Each student has 5 late days for the term, spent on "
        "the days late before any penalty, at most 3 on one assignment; the rule counts only "
        "the days late beyond them.")


def test_a_term_of_5_late_days_spent_2_then_3_then_1_over():
    """Three assignments of 10 marks under the cap rule, a raw 10 each: 2 days late (5
    left: 2 spent, 3 left), 3 days late (3 spent, 0 left), 1 day late (none left: the day
    is penalised, the cap 10 × (1 - 1 × 5%) = 9.5)."""
    bank = LateDays(5, 5)
    first = judged(CAP, 48 * HOURS, bank=bank, left=5)
    assert (first.days_spent, first.days_left, first.mark) == (2, 3, 10)
    second = judged(CAP, 72 * HOURS, bank=bank, left=3)
    assert (second.days_spent, second.days_left, second.mark) == (3, 0, 10)
    assert second.explain(10) == ("submitted 72 hours after the deadline: 3 days late (more than "
                                  "48, at most 72 hours); 3 of your 5 late days spent here, 0 "
                                  "left; 10.00 stands")
    third = judged(CAP, 24 * HOURS, bank=bank, left=0)
    assert (third.days_spent, third.days_left, third.cap, third.mark) == (0, 0, 9.5, 9.5)
    assert third.explain(10) == ("submitted 24 hours after the deadline: 1 day late (at most 24 "
                                 "hours); 0 of your 5 late days spent here, 0 left; 1 day late "
                                 "beyond them (at most 24 hours); the maximum mark falls by 1 × "
                                 "5% to 9.50, so 10.00 becomes 9.50")


def test_at_most_most_late_days_on_one_assignment():
    """most = 3, 5 left, 4 days late: 3 spent, 2 left, 1 day penalised (10 × 95% = 9.5)."""
    verdict = judged(CAP, 96 * HOURS, bank=LateDays(5, 3), left=5)
    assert (verdict.days, verdict.days_spent, verdict.days_left, verdict.units, verdict.mark) \
        == (4, 3, 2, 1, 9.5)
    assert verdict.summary() == ("submitted 96 hours after the deadline: 4 days late (more than "
                                 "72, at most 96 hours); 3 of your 5 late days spent here, 2 "
                                 "left; 1 day late beyond them (at most 24 hours); the mark is "
                                 "capped at 9.50 of 10.00")


def test_a_bank_without_a_late_rule_accepts_nothing_beyond_its_days(tmp_path):
    """1 day left, 2 days late: the 1 day would leave 1 day late, which no rule accepts:
    refused, and the day is not spent on a 0 (1 left still)."""
    banked = own_assignment(tmp_path, "[late_days]\nfree = 5\n")
    terms = Terms(late_days_left=1)
    verdict = banked.mark_after_deadline(20, banked.deadline + 48 * HOURS, terms)
    assert (verdict.days_spent, verdict.days_left, verdict.accepted, verdict.mark) == (0, 1, False, 0)
    on_time = banked.mark_after_deadline(20, banked.deadline + 24 * HOURS, terms)
    assert (on_time.days_spent, on_time.days_left, on_time.accepted, on_time.mark) == (1, 0, True, 20)
    assert banked.closes(terms) == banked.deadline + DAYS  # the one day left, nothing after


def test_without_the_days_left_the_whole_bank_is_assumed_and_said():
    verdict = judged(CAP, 48 * HOURS, bank=LateDays(5, 5))
    assert (verdict.days_spent, verdict.days_left, verdict.bank_assumed) == (2, 3, True)
    assert "2 of your 5 late days spent here, 3 left (no days spent before were given: the " \
           "whole bank was assumed)" in verdict.explain(10)


# The example: seeded (13 marks), due 9 March 2027 9:00 in Sydney. A 3-day
# extension makes it 12 March 9:00 (72 hours on).
@pytest.mark.parametrize("after, extension, said, mark", [
    (64 * HOURS, "3 days", "extension of 3 days: due 12 March 2027 9:00; on time: 13.00 stands",
     13),  # 8 hours before their own due date
    (80 * HOURS, "3 days", "extension of 3 days: due 12 March 2027 9:00; submitted 8 hours after "
     "it: 1 day late (at most 24 hours); the maximum mark falls by 1 × 5% to 12.35, so 13.00 "
     "becomes 12.35", 12.35),  # 80 - 72 = 8 hours after it: 13 × 95%
    (80 * HOURS, "4 days", "extension of 4 days: due 13 March 2027 9:00; on time: 13.00 stands",
     13),  # 16 hours before it
    (80 * HOURS, None, "submitted 80 hours after the deadline: 4 days late (more than 72, at "
     "most 96 hours); the maximum mark falls by 4 × 5% to 10.40, so 13.00 becomes 10.40",
     10.40),  # without one: 13 × 80%
], ids=["3 days, 64 h after", "3 days, 80 h after", "4 days, 80 h after", "no extension"])
def test_an_extension_moves_the_due_date(after, extension, said, mark):
    seeded = load("seeded")
    terms = extended(seeded.deadline, extension_of(extension)) if extension else None
    verdict = seeded.mark_after_deadline(13, seeded.deadline + after, terms)
    assert (verdict.explain(13), verdict.mark) == (said, pytest.approx(mark))


def test_a_student_s_own_deadline():
    seeded = load("seeded")
    own = Terms(datetime(2027, 3, 16, 9, 0, tzinfo=SYDNEY))
    assert seeded.due(own) == own.due and seeded.due() == seeded.deadline
    verdict = seeded.mark_after_deadline(13, own.due + HOURS, own)
    assert verdict.summary() == ("own deadline: due 16 March 2027 9:00; submitted 1 hour after "
                                 "it: 1 day late (at most 24 hours); the mark is capped at 12.35 "
                                 "of 13.00")
    assert seeded.closes(own) == own.due + 5 * DAYS


def test_an_extension_is_elapsed_time_across_sydney_s_april_change():
    """9:00 on 2 April 2027 (UTC+11); the clocks go back an hour at 3:00 on 4 April; 72
    elapsed hours on is 8:00 on 5 April (UTC+10), not 9:00."""
    deadline = datetime(2027, 4, 2, 9, 0, tzinfo=SYDNEY)
    terms = extended(deadline, extension_of("3 days"))
    assert terms.said(SYDNEY) == "extension of 3 days: due 5 April 2027 8:00"
    late = judge(CAP, None, 13, 13, terms.due, datetime(2027, 4, 5, 8, 30, tzinfo=SYDNEY), terms,
                 SYDNEY)
    assert (late.late, late.days) == (30 * MINUTES, 1)


@pytest.mark.parametrize("text, extension", [
    ("3 days", 3 * DAYS), ("36 hours", 36 * HOURS), ("90 minutes", 90 * MINUTES),
    ("1 day 12 hours", 36 * HOURS), ("1 Day", DAYS)])
def test_an_extension_as_an_instructor_writes_it(text, extension):
    assert extension_of(text) == extension


@pytest.mark.parametrize("text", ["2d", "3", "days", "three days", "1 day 1 day", "-1 days",
                                  "", "1.5 days", "3 weeks"])
def test_anything_else_is_refused_in_one_line(text):
    with pytest.raises(ValueError) as refused:
        extension_of(text)
    assert "\n" not in str(refused.value) and "is not an extension such as" in str(refused.value)


def test_when_a_submission_closes():
    seeded = load("seeded")
    assert seeded.closes() == seeded.deadline + 5 * DAYS
    assert seeded.closes(extended(seeded.deadline, 3 * DAYS)) == seeded.deadline + 8 * DAYS
    assert load("patience").closes() is None


def test_a_rule_of_no_shape_is_refused_by_the_schema(tmp_path):
    with pytest.raises(AssignmentError, match="late"):
        own_assignment(tmp_path, '[late]\nrule = "deduct"\nper = "week"\ndeduct = 1\naccepted = 2\n')
    with pytest.raises(AssignmentError, match="late"):
        own_assignment(tmp_path, '[late]\nrule = "none"\ndays = 5\n')


def test_an_old_results_json_s_late_still_reads():
    old = {"days": 2, "accepted": True, "cap": 11.7, "mark": 11.7, "hours": 30.0,
           "explanation": "…", "summary": "…"}
    record = records.MarkingRecord.from_dict({"late": old})
    assert (record.late.terms, record.late.late_days_left) == ("", None)


@pytest.mark.parametrize("options, said", [
    (["--due", "2027-03-12T09:00", "--extension", "3 days"], "--due and --extension together"),
    (["--extension", "2d"], "--extension: '2d' is not an extension such as"),
    (["--late-days-left", "2"], "--late-days-left: seeded has no late days ([late_days]) to spend"),
    (["--due", "soon"], "--due: 'soon' is not a date and time"),
])
def test_terms_that_cannot_apply_are_refused_in_one_line(options, said):
    done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(ROOT),
                           "--assignment", "seeded", *options], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert said in done.stderr.splitlines()[-1], done.stderr


def test_terms_on_an_assignment_without_a_deadline_are_refused():
    done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(ROOT),
                           "--assignment", "patience", "--extension", "3 days"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(
        "--extension: patience has no deadline, so no late rule to apply")


def test_exactmark_mark_with_an_extension(tmp_path):
    """80 hours after the deadline with 3 days' extension: 8 hours after their own due date,
    1 day late; seed_0 alone is worth 0.50, under the cap of 13 × 95% = 12.35."""
    _, report, _, written = run_marker(perfect_seeded(tmp_path / "ann"), "--only",
                                       "solitaire_1/seed_0", "--extension", "3 days",
                                       "--submitted", "2027-03-12T17:00")
    assert ("Late rule: extension of 3 days: due 12 March 2027 9:00; submitted 8 hours after it: "
            "1 day late (at most 24 hours); the maximum mark falls by 1 × 5% to 12.35, so 0.50 "
            "stands") in report, report
    late = written["extra_data"]["late"]
    assert (late["due"], late["terms"], late["days"], late["late_days_spent"]) == (
        "2027-03-12T09:00:00+11:00", "extension of 3 days: due 12 March 2027 9:00", 1, None)
