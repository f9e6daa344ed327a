"""Assignments as data: the shipped files load, say what their handouts say, and
a file with a mistake is refused with a message that names it."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from exactmark.kit.assignment import ASSIGNMENTS, AssignmentError, load, names


def test_the_five_assignments_are_shipped():
    assert names() == ["calculation", "calculation_cpp", "golf_tests", "patience", "seeded"]


@pytest.mark.parametrize("name", ["calculation", "calculation_cpp", "golf_tests", "patience", "seeded"])
def test_every_golden_case_is_marked_or_the_kit_s_own(name):
    assignment = load(name)
    for program, marked in assignment.marked_cases.items():
        classified = {m.case.name for m in marked} | {case.name for case in assignment.kit_only[program]}
        assert classified == {case.name for case in assignment.programs[program].cases()}, \
            f"{name}: {program}"
        assert [m.marks for m in marked] == sorted((m.marks for m in marked), reverse=True)
    assert sum(assignment.program_marks(program) for program in assignment.marked_cases) == \
        pytest.approx(assignment.marks)


def test_the_seeded_assignment_is_its_handout():
    seeded = load("seeded")
    assert list(seeded.marked_cases) == ["solitaire_1", "solitaire_2"]
    assert (seeded.marks, seeded.cpu_seconds) == (13, 30)
    assert seeded.deadline == datetime(2027, 3, 9, 9, 0, tzinfo=ZoneInfo("Australia/Sydney"))
    assert (seeded.late.days, seeded.late.cap_per_day) == (5, 0.05)
    assert {case.name for case in seeded.kit_only["solitaire_1"]} == {"bytes_not_utf8"}
    input_group = {m.case.name: m.compare for m in seeded.marked_cases["solitaire_1"]
                   if m.group == "input and its end"}
    assert input_group["no_input"] == {"status", "stderr"}, "handout section 7: exit status 1"
    assert "bad_seed_lines" in input_group, "handout section 7: Not an integer: ... on stderr"


HANDOUT_LATE_RULE = (
    "The maximum mark obtainable reduces by 5% per full late day, for up to 5 days. Thus if "
    "students A and B hand in assignments worth 12 and 11, both two days late (that is, more "
    "than 24 hours late and no more than 48 hours late), then the maximum mark obtainable is 11.7")
# The handout's example is the definition: days late = the ceiling of hours late / 24.
LATE_FIGURES = [  # time after the deadline, days late, the mark of a 13/13 submission
    (-timedelta(days=3), 0, 13),
    (timedelta(0), 0, 13),  # at the deadline: on time
    (timedelta(seconds=1), 1, 12.35),  # any moment after it: one day
    (timedelta(hours=1), 1, 12.35),
    (timedelta(hours=24), 1, 12.35),
    (timedelta(hours=24, seconds=1), 2, 11.7),
    (timedelta(hours=30), 2, 11.7),
    (timedelta(hours=48), 2, 11.7),
    (timedelta(hours=51), 3, 11.05),
    (timedelta(hours=119), 5, 9.75),
    (timedelta(hours=120), 5, 9.75),  # the fifth day, still accepted
]


def test_the_handout_s_late_example():
    """A and B, worth 12 and 11, both two days late: the maximum mark obtainable is 11.7."""
    seeded = load("seeded")
    assert "more than 24 hours late and no more than 48 hours late" in HANDOUT_LATE_RULE
    for two_days_late in (timedelta(hours=24, seconds=1), timedelta(hours=30),
                          timedelta(hours=48)):
        when = seeded.deadline + two_days_late
        a, b = seeded.mark_after_deadline(12, when), seeded.mark_after_deadline(11, when)
        assert (a.days, a.cap, a.mark, b.mark) == (2, 11.7, 11.7, 11), two_days_late


@pytest.mark.parametrize("late, days, mark", LATE_FIGURES,
                         ids=[f"{late.total_seconds() / 3600:g}h" for late, _, _ in LATE_FIGURES])
def test_the_late_rule_counts_days_as_the_handout_does(late, days, mark):
    seeded = load("seeded")
    verdict = seeded.mark_after_deadline(13, seeded.deadline + late)
    assert (verdict.days, verdict.mark, verdict.accepted) == (days, pytest.approx(mark), True)


@pytest.mark.parametrize("late", [timedelta(hours=120, seconds=1), timedelta(hours=121),
                                  timedelta(days=10)])
def test_more_than_five_days_late_is_not_accepted(late):
    seeded = load("seeded")
    verdict = seeded.mark_after_deadline(13, seeded.deadline + late)
    assert (verdict.mark, verdict.accepted) == (0, False)


def test_days_late_are_counted_in_elapsed_time_across_a_daylight_saving_change(tmp_path):
    """Sydney's clocks go back an hour at 3 am on 4 April 2027: from 9 am on the 2nd to
    8:30 am on the 5th is 71.5 hours on the clock but 72.5 hours elapsed, so 4 days late."""
    text = GOOD.read_text().replace("cpu_seconds = 30", 'cpu_seconds = 30\n'
                                    'deadline = 2027-04-02T09:00:00\n'
                                    'time_zone = "Australia/Sydney"')
    text += "\n[late]\ndays = 5\ncap_per_day = 0.05\n"
    (tmp_path / "autumn.toml").write_text(text)
    autumn = load(str(tmp_path / "autumn.toml"))
    sydney = ZoneInfo("Australia/Sydney")
    verdict = autumn.mark_after_deadline(20, datetime(2027, 4, 5, 8, 30, tzinfo=sydney))
    assert (verdict.late, verdict.days, verdict.mark) == (timedelta(hours=72, minutes=30), 4, 16)
    same_instant = datetime(2027, 4, 4, 22, 30, tzinfo=ZoneInfo("UTC"))
    assert autumn.mark_after_deadline(20, same_instant).days == 4


def test_no_deadline_no_late_rule():
    assert load("patience").mark_after_deadline(20, datetime(2030, 1, 1)) is None


def test_a_deadline_without_a_late_rule_takes_no_late_submission(tmp_path):
    text = GOOD.read_text().replace("cpu_seconds = 30", 'cpu_seconds = 30\n'
                                    'deadline = 2027-01-01T09:00:00\ntime_zone = "UTC"')
    (tmp_path / "strict.toml").write_text(text)
    strict = load(str(tmp_path / "strict.toml"))
    for late, said in ((timedelta(seconds=1), "submitted 1 second after the deadline: late "
                                              "submissions are not accepted: 0"),
                       (timedelta(days=3), "submitted 72 hours after the deadline: late "
                                           "submissions are not accepted: 0"),
                       (-timedelta(hours=1), "on time: 20.00 stands")):
        verdict = strict.mark_after_deadline(20, strict.deadline + late)
        assert verdict.explain(20) == said, late


@pytest.mark.parametrize("late, raw, said", [
    (timedelta(hours=1), 12, "submitted 1 hour after the deadline: 1 day late (at most 24 "
                             "hours); the maximum mark falls by 1 × 5% to 12.35, so 12.00 stands"),
    (timedelta(hours=30), 12, "submitted 30 hours after the deadline: 2 days late (more than 24, "
                              "at most 48 hours); the maximum mark falls by 2 × 5% to 11.70, so "
                              "12.00 becomes 11.70"),
    (timedelta(hours=51, minutes=20), 4.56013, "submitted 51 hours 20 minutes after the "
     "deadline: 3 days late (more than 48, at most 72 hours); the maximum mark falls by 3 × 5% "
     "to 11.05, so 4.56 stands"),
    (timedelta(hours=121), 12, "submitted 121 hours after the deadline: more than 5 days late "
                               "(more than 120 hours), past what is accepted: 0"),
])
def test_the_late_rule_says_what_it_did_in_the_handout_s_words(late, raw, said):
    seeded = load("seeded")
    verdict = seeded.mark_after_deadline(raw, seeded.deadline + late)
    assert verdict.explain(raw) == said
    assert "full day" not in verdict.explain(raw) + verdict.summary()


def test_the_late_rule_without_the_raw_score():
    seeded = load("seeded")
    verdict = seeded.mark_after_deadline(12, seeded.deadline + timedelta(hours=30))
    assert verdict.summary() == ("submitted 30 hours after the deadline: 2 days late (more than "
                                 "24, at most 48 hours); the mark is capped at 11.70 of 13.00")


def test_the_normalisations_are_named_alike_everywhere():
    """The schema's names, the functions that apply them, and the words the feedback uses."""
    import json

    from exactmark.kit.assignment import SCHEMA
    from exactmark.marking.near_miss import NORMALISATIONS
    from exactmark.marking.verdicts import NORMALISATION_WORDS

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


def test_an_unknown_assignment_lists_those_there_are_and_says_a_file_works(tmp_path,
                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssignmentError) as refused:
        load("chess")
    assert str(refused.value) == ("no assignment 'chess'; the assignments are: calculation, "
                                  "calculation_cpp, golf_tests, patience, seeded; or give the "
                                  "path of an assignment file of your own, FILE.toml")


def test_an_unknown_assignment_whose_file_is_here_asks_for_the_file(tmp_path, monkeypatch):
    """`make mark ASSIGNMENT=warm-up` beside warm-up.toml: the name is the kit's, the file
    the instructor's."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "warm-up.toml").write_text(GOOD.read_text())
    with pytest.raises(AssignmentError) as refused:
        load("warm-up")
    assert str(refused.value).endswith("FILE.toml (did you mean ./warm-up.toml?)"), refused.value


STUDENT_CASES = '''title = "Golf tests"
marks = 10
cpu_seconds = 10

[[programs]]
name = "patience"
cases = "{cases}"
kit_only = ["*"]

  [[programs.groups]]
  name = "your Golf cases"
  kind = "student_cases"
  folder = "cases/golf"
  marks = {{ valid = 2, thorough = 5, own_code = 3 }}
  visibility = "after_due_date"
'''


def student_cases_assignment(tmp_path, change=lambda text: text, wrong=("golf_a", "golf_b",
                                                                         "prompt_c")):
    from exactmark.kit.cases import EXPECTED_OUTPUTS

    for name in wrong:
        (tmp_path / "wrong" / "patience").mkdir(parents=True, exist_ok=True)
        (tmp_path / "wrong" / "patience" / f"{name}.toml").write_text(
            f'mistake = "{name}"\n[[change]]\nfind = "a"\nreplace = "b"\n')
    (tmp_path / "golf.toml").write_text(change(STUDENT_CASES.format(
        cases=EXPECTED_OUTPUTS / "patience")))
    return load(str(tmp_path / "golf.toml"))


def test_a_group_of_cases_the_student_writes(tmp_path):
    golf = student_cases_assignment(tmp_path)
    assert golf.marked_cases == {"patience": []}, "kit_only = ['*']: no golden case is marked"
    assert golf.program_marks("patience") == 10 and golf.groups == {"patience": ()}
    (group,) = golf.student_groups("patience")
    assert (group.folder, group.most, group.most_bytes, group.total) == ("cases/golf", 25,
                                                                         65536, 10)
    assert group.mistakes == ("golf_a", "golf_b"), "by default the wrong programs named " \
                                                   "after the folder's last part"
    assert group.wrong_folder == tmp_path / "wrong" / "patience"
    named = student_cases_assignment(tmp_path, lambda text: text.replace(
        'visibility = "after_due_date"', 'visibility = "after_due_date"\n'
        '  mistakes = ["prompt_*", "golf_b"]\n  weights = { golf_b = 2 }\n'
        '  example = "golf_won_seed_1"\n  kit_cases = ["golf_*"]'))
    (group,) = named.student_groups("patience")
    assert (group.mistakes, group.weight("golf_b"), group.weight("prompt_c")) == (
        ("prompt_c", "golf_b"), 2, 1)
    assert group.example.name == "golf_won_seed_1" and "golf_rules_seed_5" in group.kit_cases


@pytest.mark.parametrize("change, message", [
    (lambda text: text.replace("own_code = 3", "own_code = 4"), "add up to 11, not the "
                                                                 "assignment's 10"),
    (lambda text: text.replace(", own_code = 3", ""), "'own_code' is a required property"),
    (lambda text: text.replace('"cases/golf"', '"cases/../golf"'), "does not match"),
    (lambda text: text.replace('"cases/golf"', '"tests/golf"'), "the marker's copy of a "
                                                                "submission leaves tests/golf out"),
    (lambda text: text.replace('"after_due_date"', '"after_due_date"\n  mistakes = ["spider_*"]'),
     "group 'your Golf cases': no wrong program spider_* in"),
    (lambda text: text.replace('"after_due_date"', '"after_due_date"\n  weights = { golf_z = 2 }'),
     "weighs mistakes it does not name: ['golf_z']"),
    (lambda text: text.replace('"after_due_date"', '"after_due_date"\n  example = "golf_lost"'),
     "its example golf_lost is no golden case of it"),
    (lambda text: text.replace('"after_due_date"', '"after_due_date"\n  kit_cases = ["chess_*"]'),
     "its kit case chess_* is no golden case of it"),
    (lambda text: text.replace('kit_only = ["*"]', ''), "golden cases neither marked nor kit-only"),
    (lambda text: text + text[text.index("  [[programs.groups]]"):].replace(
        "valid = 2", "valid = 0").replace("thorough = 5", "thorough = 0").replace(
        "own_code = 3", "own_code = 0").replace("your Golf", "more Golf"),
     "groups 'your Golf cases' and 'more Golf cases' read the same folder cases/golf"),
])
def test_a_mistake_in_a_group_of_student_cases_is_named(tmp_path, change, message):
    with pytest.raises(AssignmentError) as refused:
        student_cases_assignment(tmp_path, change)
    assert message in str(refused.value), str(refused.value)


def test_by_default_a_group_s_mistakes_are_those_of_its_game(tmp_path):
    """cases/golf: the wrong programs named golf_*, and those whose `rule` is a rule of the
    handout's section Golf (its rule list, exactmark/kit/rules.py); not another game's."""
    (tmp_path / "golf.md").write_text("# Golf\n\nCards never leave the homecell.\n\n"
                                      "# Spider\n\nAn empty pile takes any card.\n")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "golf.toml").write_text(
        '[[rule]]\nid = "homecell-keeps"\nsection = "Golf"\n'
        'quote = "Cards never leave the homecell."\n\n'
        '[[rule]]\nid = "empty-takes-any"\nsection = "Spider"\n'
        'quote = "An empty pile takes any card."\n')
    wrong = tmp_path / "wrong" / "patience"
    wrong.mkdir(parents=True)
    for name, rule in (("golf_no_wrap", ""), ("homecell_gives", "homecell-keeps"),
                       ("spider_empty_pile", "empty-takes-any"), ("prompt", "")):
        (wrong / f"{name}.toml").write_text(f'mistake = "{name}"\nrule = "{rule}"\n'
                                            '[[change]]\nfind = "a"\nreplace = "b"\n')
    golf = student_cases_assignment(tmp_path, lambda text: text.replace(
        'kit_only = ["*"]', 'kit_only = ["*"]\nhandout = "golf.md"'), wrong=())
    assert golf.student_groups("patience")[0].mistakes == ("golf_no_wrap", "homecell_gives")
