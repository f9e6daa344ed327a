"""Assignments as data: the shipped files load, say what their handouts say, and
a file with a mistake is refused with a message that names it."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from golden.cases import load_cases
from marking.assignment import ASSIGNMENTS, AssignmentError, load, names


def test_the_three_assignments_are_shipped():
    assert names() == ["calculation", "patience", "seeded"]


@pytest.mark.parametrize("name", ["calculation", "patience", "seeded"])
def test_every_golden_case_is_marked_or_the_kit_s_own(name):
    assignment = load(name)
    for program, marked in assignment.programs.items():
        classified = {m.case.name for m in marked} | {case.name for case in assignment.kit_only[program]}
        assert classified == {case.name for case in load_cases(program)}, f"{name}: {program}"
        assert [m.marks for m in marked] == sorted((m.marks for m in marked), reverse=True)
    assert sum(assignment.program_marks(program) for program in assignment.programs) == \
        pytest.approx(assignment.marks)


def test_the_seeded_assignment_is_its_handout():
    seeded = load("seeded")
    assert list(seeded.programs) == ["solitaire_1", "solitaire_2"]
    assert (seeded.marks, seeded.cpu_seconds) == (13, 30)
    assert seeded.deadline == datetime(2027, 3, 9, 9, 0, tzinfo=ZoneInfo("Australia/Sydney"))
    assert (seeded.late.days, seeded.late.cap_per_day) == (5, 0.05)
    assert {case.name for case in seeded.kit_only["solitaire_1"]} == {"bytes_not_utf8"}
    input_group = {m.case.name: m.compare for m in seeded.programs["solitaire_1"]
                   if m.group == "input and its end"}
    assert input_group["no_input"] == {"status", "stderr"}, "handout section 7: exit status 1"
    assert "bad_seed_lines" in input_group, "handout section 7: Not an integer: ... on stderr"


def test_the_handout_s_late_example():
    """Two submissions worth 12 and 11, both two days late, get 11.7 and 11."""
    seeded = load("seeded")
    two_days_late = seeded.deadline + timedelta(days=2, hours=5)
    assert seeded.mark_after_deadline(12, two_days_late).mark == 11.7
    assert seeded.mark_after_deadline(11, two_days_late).mark == 11


@pytest.mark.parametrize("late, raw, mark, accepted", [
    (timedelta(0), 13, 13, True),
    (timedelta(hours=23, minutes=59), 13, 13, True),  # not yet a full day
    (timedelta(days=1), 13, 12.35, True),
    (timedelta(days=5), 13, 9.75, True),
    (timedelta(days=5, seconds=1), 13, 0, False),  # past the five days accepted
    (-timedelta(days=3), 12.5, 12.5, True),
])
def test_the_late_rule(late, raw, mark, accepted):
    seeded = load("seeded")
    verdict = seeded.mark_after_deadline(raw, seeded.deadline + late)
    assert (verdict.mark, verdict.accepted) == (pytest.approx(mark), accepted)


def test_no_deadline_no_late_rule():
    assert load("patience").mark_after_deadline(20, datetime(2030, 1, 1)) is None


def test_a_deadline_without_a_late_rule_takes_no_late_submission(tmp_path):
    text = GOOD.read_text().replace("cpu_seconds = 30", 'cpu_seconds = 30\n'
                                    'deadline = 2027-01-01T09:00:00\ntime_zone = "UTC"')
    (tmp_path / "strict.toml").write_text(text)
    strict = load(str(tmp_path / "strict.toml"))
    for late, said in ((timedelta(hours=1), "more than 0 full days late, past what is accepted: 0"),
                       (timedelta(days=3), "more than 0 full days late, past what is accepted: 0"),
                       (-timedelta(hours=1), "on time: 20 stands")):
        verdict = strict.mark_after_deadline(20, strict.deadline + late)
        assert verdict.explain(20) == said, late


def test_the_late_rule_says_what_it_did():
    seeded = load("seeded")
    for late, said in ((timedelta(hours=5), "late by less than a full day: 12 stands"),
                       (timedelta(days=2, hours=1), "2 full days late: the maximum mark falls by "
                                                    "2 × 5% to 11.7, so 12 becomes 11.7"),
                       (timedelta(days=6), "more than 5 full days late, past what is accepted: 0")):
        assert seeded.mark_after_deadline(12, seeded.deadline + late).explain(12) == said


def test_the_normalisations_are_named_alike_everywhere():
    """The schema's names, the functions that apply them, and the words the feedback uses."""
    import json

    from marking.assignment import SCHEMA
    from marking.near_miss import NORMALISATIONS
    from marking.verdicts import NORMALISATION_WORDS

    in_schema = set(json.loads(SCHEMA.read_text())["properties"]["normalise"]["properties"])
    assert in_schema == set(NORMALISATIONS) == set(NORMALISATION_WORDS)


GOOD = ASSIGNMENTS / "patience.toml"


@pytest.mark.parametrize("change, message", [
    (lambda text: text.replace('title = ', 'titel = '), "('titel' was unexpected)"),
    (lambda text: text.replace('visibility = "visible"', 'visibility = "public"', 1),
     "programs/0/groups/0/visibility: 'public' is not one of"),
    (lambda text: text.replace("marks = 20", "marks = 21"), "add up to 20, not the assignment's 21"),
    (lambda text: text.replace('cases = ["golf_*"]', 'cases = ["golf_won_*"]'),
     "neither marked nor kit-only: golf_bad_commands_end_of_input"),
    (lambda text: text.replace('cases = ["golf_*"]', 'cases = ["golf_*", "chess_*"]')
     .replace('cases = ["little_spider_*"]', 'cases = ["nothing_*"]'), "matches no golden case"),
    (lambda text: text.replace("cpu_seconds = 30", 'cpu_seconds = 30\ndeadline = "tomorrow"\n'
                                                   'time_zone = "Australia/Sydney"'),
     "deadline: 'tomorrow' does not match"),
    (lambda text: text.replace("cpu_seconds = 30", 'cpu_seconds = 30\ndeadline = 2027-01-01T09:00:00Z\n'
                                                   'time_zone = "Australia/Sydney"'),
     "deadline: '2027-01-01T09:00:00+00:00' does not match"),
    (lambda text: text.replace("[[programs.groups]]\n  name = \"Golf\"",
                               "[[programs.groups]]\n  name = \"Golf\"\n  compare = [\"exit\"]"),
     "compare/0: 'exit' is not one of"),
    (lambda text: text.replace("cpu_seconds = 30", 'cpu_seconds = 30\ndeadline = 2027-01-01T09:00:00\n'
                                                   'time_zone = "Mars/Olympus"'),
     "unknown time zone 'Mars/Olympus'"),
    (lambda text: text.replace("cpu_seconds = 30", "cpu_seconds = [30"), "patience.toml"),
])
def test_a_mistake_in_an_assignment_is_named(tmp_path, change, message):
    (tmp_path / "patience.toml").write_text(change(GOOD.read_text()))
    with pytest.raises(AssignmentError) as refused:
        load("patience", tmp_path)
    assert message in str(refused.value), str(refused.value)


def test_an_unknown_assignment_lists_those_there_are():
    with pytest.raises(AssignmentError, match="no assignment 'chess'; the assignments are: "
                                              "calculation, patience, seeded"):
        load("chess")
