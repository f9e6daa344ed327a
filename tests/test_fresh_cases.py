"""Fresh cases (a group of `kind = "fresh"`): drawn for each student when marked, what each
expects made by the reference in the sandbox, so that no stored answer passes them."""

import json

import pytest

from exactmark.gradescope import run as gradescope_run
from exactmark.kit.assignment import AssignmentError, load
from exactmark.kit.cases import ROOT, load_cases
from exactmark.marking.fresh_cases import drawn_for
from exactmark.pack import build as pack_build, manifest
from tests.test_mark import mark, perfect_seeded

STORED = ["seed_0", "simulate_500_10"]  # what the handout prints, and the pack holds


def assignment_with(path, generator: str, count: int = 4, marks: float = 2):
    """An assignment of solitaire_1: seed_0 and simulate_500_10 a mark each (visible, as
    the handout prints them), every other stored case the kit's own, and a fresh group."""
    others = [case.name for case in load_cases("solitaire_1") if case.name not in STORED]
    path.write_text("\n".join([
        'title = "fresh cases"', f"marks = {2 + marks}", "cpu_seconds = 30", "[[programs]]",
        'name = "solitaire_1"', f"kit_only = {json.dumps(others)}",
        *[line for case in STORED for line in (
            "[[programs.groups]]", f'name = "{case}"', "marks = 1", f'cases = ["{case}"]',
            'visibility = "visible"')],
        "[[programs.groups]]", 'name = "fresh"', 'kind = "fresh"', f"marks = {marks}",
        f"count = {count}", 'visibility = "after_due_date"', generator]) + "\n")
    return path


BOTH = ("generator.seeds = {from = 0, to = 999999}\n"
        "generator.simulate = {n = {from = 100, to = 300}, i = {from = 0, to = 999999}}")


def stored_answers(folder):
    """A student's solitaire_1 that prints stored answers: seed_0's transcript whatever the
    seed, and simulate_500_10's table whatever simulate is asked."""
    game = (ROOT / "expected_outputs/solitaire_1/seed_0.out").read_text(encoding="utf-8")
    table = (ROOT / "expected_outputs/solitaire_1/simulate_500_10.out").read_text(encoding="utf-8")
    folder.mkdir()
    (folder / "solitaire_1.py").write_text(
        f"import sys\n\n\ndef simulate(n, i):\n    sys.stdout.write({table!r})\n\n\n"
        f"if __name__ == '__main__':\n    input()\n    sys.stdout.write({game!r})\n",
        encoding="utf-8")
    return folder


def fresh_tests(tests: dict) -> dict:
    return {name: test for name, test in tests.items() if "/fresh_" in name}


def test_stored_answers_lose_the_fresh_marks_and_keep_the_rest(tmp_path):
    assignment = assignment_with(tmp_path / "fresh.toml", BOTH)
    status, report, tests = mark(stored_answers(tmp_path / "cheat"), "--student", "ann",
                                 assignment=assignment)
    fresh = fresh_tests(tests)
    assert status == 1, report
    assert sorted(name.split("/")[1].split("_")[1] for name in fresh) == [
        "seed", "seed", "simulate", "simulate"], report
    for name in STORED:
        assert tests[f"solitaire_1/{name}"]["score"] == 1, (name, report)
    for name, test in fresh.items():
        assert (test["score"], test["max_score"], test["status"]) == (0, 0.5, "failed"), (
            name, test["output"])
        assert test["visibility"] == "after_due_date", name
    assert "Score: 2.00/4.00" in report, report


def test_a_re_run_draws_the_same_cases_and_another_student_others(tmp_path):
    """The right program passes every fresh case; ann's second marking, given her first
    one's results.json, draws the same and keeps their verdicts; bob's draws others."""
    assignment = assignment_with(tmp_path / "fresh.toml", BOTH)
    right = perfect_seeded(tmp_path / "right")
    first = tmp_path / "first.json"
    drawn = {}
    for run, student, reused in (("first", "ann", []), ("again", "ann", ["--reuse", first]),
                                 ("other", "bob", [])):
        status, report, tests = mark(right, "--student", student, "--only",
                                     "solitaire_1/fresh_*", *reused, assignment=assignment)
        assert status == 0 and "Score: 2.00/4.00" in report, report  # the fresh marks, all
        drawn[run] = sorted(fresh_tests(tests))
        assert len(drawn[run]) == 4, report
        assert ("4 of 4 cases kept from the earlier marking" in report) == bool(reused), report
        if run == "first":
            (tmp_path / "results.json").rename(first)
    assert drawn["again"] == drawn["first"]
    assert not set(drawn["other"]) & set(drawn["first"]), drawn


def test_a_draw_is_distinct_and_never_a_stored_input(tmp_path):
    """Seeds 0 to 10: the kit stores seeds 0, 1, 4, 8 and 10, so six are left, each drawn
    once; a seventh cannot be."""
    path = assignment_with(tmp_path / "fresh.toml", "generator.seeds = {from = 0, to = 10}",
                           count=6)
    drawn = drawn_for(load(str(path)), "ann")["solitaire_1"]
    assert sorted(one.seed for one in drawn) == [2, 3, 5, 6, 7, 9]
    assert [one.name for one in drawn] == [f"fresh_seed_{one.seed}" for one in drawn]
    path = assignment_with(tmp_path / "fresh.toml", "generator.seeds = {from = 0, to = 10}",
                           count=7)
    with pytest.raises(AssignmentError, match=r"gives 7 of its 7 cases but holds only 6 inputs"):
        load(str(path))


@pytest.mark.parametrize("generator, said", [
    ("generator.dice = {from = 1, to = 6}", "Additional properties are not allowed ('dice'"),
    ("generator.seeds = {from = 10, to = 5}", "seeds from 10 to 5 is empty"),
    ("generator.simulate = {n = {from = 5, to = 9}, i = {from = 3, to = 2}}",
     "i from 3 to 2 is empty"),
    ("generator.simulate = {n = {from = 0, to = 9}, i = {from = 0, to = 2}}",
     "0 is less than the minimum of 1"),
    ('generator.seeds = {from = 0, to = 99, then = ["1--{lines}"]}',
     "a `then` line holds {lines}, so `lines` must say where the reference states it"),
    ('generator.seeds = {from = 0, to = 99, then = ["1--{lines}"], lines = "There are"}',
     "seeds: lines: it has no group"),
    ('generator.seeds = {from = 0, to = 99, then = ["1--{lines}"], lines = "There are ("}',
     "seeds: lines: missing ), unterminated subpattern"),
])
def test_a_bad_generator_is_one_line_naming_the_file(tmp_path, generator, said):
    path = assignment_with(tmp_path / "fresh.toml", generator)
    with pytest.raises(AssignmentError) as refused:
        load(str(path))
    message = str(refused.value)
    assert "\n" not in message and message.startswith(str(path)) and said in message, message


@pytest.mark.parametrize("users, key", [
    ([{"email": "Ann@Uni.example", "id": 1234}, {"email": "bob@uni.example", "id": "987"}],
     "1234+987"),
    ([{"email": "Ann@Uni.example"}], "ann@uni.example"),
    ([], None),
])
def test_gradescope_draws_for_the_submission_s_users(tmp_path, users, key):
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": users}))
    assert gradescope_run.student_key(gradescope_run.Paths(tmp_path)) == key


def test_the_student_pack_says_its_fresh_cases_exist_and_it_cannot_hold_them():
    files = pack_build.contents(load("seeded"))
    readme = files["README.md"].decode()
    assert ("- solitaire_1, fresh games and simulations: 1 mark, 4 fresh cases: inputs drawn for "
            "you alone when you are marked") in readme, readme
    assert "- solitaire_2, fresh games: 0.5 marks, 2 fresh cases: " in readme, readme
    assert not any("fresh_" in name for name in files)
    assert json.loads(files[manifest.MANIFEST])["fresh_cases"] == 6
