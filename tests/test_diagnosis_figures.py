"""The figures the README states, on made-up signatures: how each wrong program, and each
student with two mistakes, is counted."""

from exactmark.diagnosis.matching import Failure, Signature, diagnosed
from exactmark.diagnosis.signatures_file import Stored
from exactmark.verify import diagnosis as figures

CASES = ("seen", "hidden_a", "hidden_b")


def wrong(variant, rule, failed):
    return Signature(variant, rule, f"the mistake of {variant}",
                     {case: Failure("wrong output", "", f"{variant}/{case}") for case in failed})


def test_each_wrong_program_counted_once_as_it_is_named():
    own = wrong("own", "rule-a", ["seen", "hidden_a"])
    twin = Signature("twin", "rule-b", "the twin's", own.failed)  # fails exactly alike
    hidden = wrong("hidden", "rule-c", ["hidden_b"])
    stored = Stored("p", CASES, {"seen": "visible", "hidden_a": "hidden", "hidden_b": "hidden"},
                    [own, twin, hidden])
    after = figures.figures(stored, CASES)
    assert {key: after[key] for key in ("total", "first", "alternative", "wrong", "none")} == \
        {"total": 3, "first": 2, "alternative": 1, "wrong": 0, "none": 0}
    before = figures.figures(stored, ("seen",))
    assert before["total"] == 2  # the wrong program of hidden cases alone is not shown


def test_a_student_of_two_mistakes_counted_by_what_is_named():
    first, second, other = (wrong(name, f"rule-{name}", [case])
                            for name, case in (("a", "seen"), ("b", "hidden_a"), ("c", "hidden_b")))
    both = {**first.failed, **second.failed}
    found = diagnosed(both, [first, second, other], CASES)
    assert figures.pair_standing(found, {"rule-a", "rule-b"}) == "both"
    assert figures.pair_standing(found[:1], {"rule-a", "rule-b"}) == "one"
    assert figures.pair_standing(found, {"rule-a", "rule-c"}) == "one and a wrong one"
    assert figures.pair_standing(found, {"rule-c", "rule-d"}) == "wrong"
    assert figures.pair_standing((), {"rule-a", "rule-b"}) == "none"
