"""The matcher on small, made-up signatures: what it names, and when it names nothing."""

from exactmark.diagnosis.feedback import by_rule, named as said
from exactmark.diagnosis.matching import NOTHING, Failure, Signature, broken_rules, diagnosed
from exactmark.marking.verdicts import digest
from exactmark.kit.rules import Rule

WRONG = Failure("wrong output", "", "")
SEEN = tuple(f"case_{number}" for number in range(10))


def signature(variant, rule, cases, digest=""):
    return Signature(variant, rule, f"the mistake of {variant}",
                     {case: Failure("wrong output", "", digest + case) for case in cases})


def failures(cases, digest=""):
    return {case: Failure("wrong output", "", digest + case) for case in cases}


ACE = signature("ace_alone", "line-c-ace-alone", ["case_1", "case_2", "case_3", "case_4"], "a")
SPACE = signature("no_space", "stacks-line", ["case_5", "case_6", "case_7"], "s")
BROAD = signature("every_line", "output-utf8", SEEN, "u")
SIGNATURES = [ACE, SPACE, BROAD]


def named(found):
    return [match.signature.variant for match in found]


def test_the_program_with_the_same_failures_is_named():
    assert named(diagnosed(failures(ACE.failed, "a"), SIGNATURES, SEEN)) == ["ace_alone"]


def test_the_same_output_outranks_the_same_cases():
    twin = signature("ace_twin", "line-c-ace-many", ACE.failed, "t")
    assert named(diagnosed(failures(ACE.failed, "t"), [ACE, twin], SEEN)) == ["ace_twin"]
    assert named(diagnosed(failures(ACE.failed, "a"), [twin, ACE], SEEN)) == ["ace_alone"]


def test_two_mistakes_are_named_together():
    both = {**failures(ACE.failed, "x"), **failures(SPACE.failed, "y")}
    assert sorted(named(diagnosed(both, SIGNATURES, SEEN))) == ["ace_alone", "no_space"]


def test_a_weak_match_names_nothing():
    # half of the wrong program's failures absent: not this mistake
    assert diagnosed(failures(["case_1", "case_2"]), SIGNATURES, SEEN) == ()
    # failures no wrong program explains
    assert diagnosed(failures(["case_8", "case_9"]), [ACE, SPACE], SEEN) == ()


def test_nothing_failed_names_nothing():
    assert diagnosed({}, SIGNATURES, SEEN) == ()


def test_only_the_seen_cases_count():
    """Before the deadline a student sees case_1 and case_2 alone: the mistake that shows
    only on hidden cases is not named, and one that shows on both is named from the seen
    ones."""
    hidden_only = signature("hidden_only", "late-rule", ["case_8", "case_9"])
    student = failures(["case_8", "case_9"])
    assert named(diagnosed(student, [hidden_only], SEEN)) == ["hidden_only"]
    assert diagnosed(student, [hidden_only], ("case_1", "case_2")) == ()
    student = failures(ACE.failed, "a")
    found = diagnosed(student, SIGNATURES, ("case_1", "case_2"))
    assert named(found) == ["ace_alone"] and found[0].cases == ("case_1", "case_2")


def test_a_named_mistake_is_said_with_the_handout_sentence_it_breaks():

    rules = {"line-c-ace-alone": Rule("line-c-ace-alone", "5. Output, in order",
                                      "LINE C, when the Ace is\nalone", None)}
    found = diagnosed(failures(ACE.failed, "a"), SIGNATURES, SEEN)
    assert said(found, rules) == [
        "Your program fails 4 cases (case_1, case_2, case_3, case_4) as does a program that "
        "the mistake of ace_alone.",
        "The handout (\u00a75 (Output, in order)) says: \u201cLINE C, when the Ace is alone\u201d"]


def test_failures_read_as_the_rules_they_break():
    rules = {"card-suits": Rule("card-suits", "1. Cards", "Suit = `c // 8`", None),
             "stacks-line": Rule("stacks-line", "Terms", "a stack a line", None)}
    broken = {"case_1": {"card-suits", "stacks-line"}, "case_2": {"stacks-line"}}
    assert by_rule(["case_1", "case_2", "case_3"], broken, rules) == [
        "1 case breaks the handout's \u00a71 (Cards): \u201cSuit = `c // 8`\u201d (case_1)",
        "2 cases break the handout's Terms: \u201ca stack a line\u201d (case_1, case_2)"]


def test_a_failed_case_breaks_the_rules_it_pins_whose_mistakes_change_its_lines():
    """Case 0 pins three rules. The student changed lines 3 and 4: the suits' mistake
    changes line 3 and 4 too, the stacks' line 9; the header's, which changes 3 and 4 as
    well, is not a rule case 0 pins. Case 1, where no mistake changes a line the student
    changed, breaks no rule that can be named."""
    def failing(case_lines):
        return {case: Failure("wrong output", "", "", frozenset(lines))
                for case, lines in case_lines.items()}
    suits = Signature("suits", "card-suits", "", failing({"case_0": {3, 4}, "case_1": {5}}))
    stacks = Signature("stacks", "stacks-line", "", failing({"case_0": {9}}))
    header = Signature("header", "header", "", failing({"case_0": {3, 4}}))
    claims = {"case_0": {"card-suits", "stacks-line", "final-newline"}, "case_1": {"card-suits"}}
    student = failing({"case_0": {3, 4}, "case_1": {8}})
    assert broken_rules(student, [suits, stacks, header], SEEN, claims) == {
        "case_0": {"card-suits"}}


def test_two_mistakes_in_the_same_cases_are_told_apart_by_their_lines():
    """A deck of four cases where both mistakes fail every case: one changes line 3 of
    each, the other line 7. A student with both changes both lines everywhere."""
    cases = SEEN[:4]

    def changing(*lines):
        return {case: Failure("wrong output", "", "", frozenset(lines)) for case in cases}
    third = Signature("third_line", "rule-3", "gets line 3 wrong", changing(3))
    seventh = Signature("seventh_line", "rule-7", "gets line 7 wrong", changing(7))
    everything = Signature("every_line", "rule-all", "gets everything wrong",
                           changing(*range(20)))
    found = diagnosed(changing(3, 7), [third, seventh, everything], SEEN)
    assert sorted(named(found)) == ["seventh_line", "third_line"]
    assert named(diagnosed(changing(7), [third, seventh, everything], SEEN)) == ["seventh_line"]


def test_a_program_that_prints_nothing_is_not_named_as_one_that_changes_every_line():
    """Ending every line with CRLF changes every line; so does printing nothing. The lines
    cannot tell them apart, the near misses can: each output differs in one way alone,
    and not the same way. A student whose lines end with CRLF is named."""
    every = frozenset(range(12))
    crlf = Signature("crlf", "lf-alone", "ends its lines with CRLF",
                     {case: Failure("wrong output", "line ends", "c" + case, every)
                      for case in SEEN[:4]})
    empty = {case: Failure("wrong output", "no output at all", NOTHING, every)
             for case in SEEN[:4]}
    assert diagnosed(empty, [crlf], SEEN) == ()
    assert broken_rules(empty, [crlf], SEEN, {}) == {}
    own_crlf = {case: Failure("wrong output", "line ends", "s" + case, every)
                for case in SEEN[:4]}
    assert named(diagnosed(own_crlf, [crlf], SEEN)) == ["crlf"]
    assert broken_rules(own_crlf, [crlf], SEEN, {}) == dict.fromkeys(SEEN[:4], {"lf-alone"})


def test_a_case_where_the_student_printed_nothing_breaks_no_rule_that_can_be_named():
    """Any program that stops before its first line prints nothing, as does a wrong
    program that does so there: the case says nothing of which rule was broken."""
    silent = Signature("silent", "ready-prompt", "", {
        "case_0": Failure("wrong output", "no output at all", NOTHING, frozenset({0, 1}))})
    student = {"case_0": Failure("wrong output", "no output at all", NOTHING, frozenset({0, 1}))}
    assert broken_rules(student, [silent], SEEN, {}) == {}


def test_the_digest_of_nothing_is_the_marker_s():
    assert NOTHING == digest(b"")
