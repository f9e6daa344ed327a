"""The students who give the same wrong output (exactmark/classroom/same_output.py), as
examples: each student's failed cases as the marker records them, reduced to what counts
(the case, whether it passed, the digest of what the run printed, the expected lines it
changed)."""

from dataclasses import dataclass

from exactmark.classroom import same_output
from exactmark.classroom.similarity import Pair as Similar

CHANGED = ((2, 3),)  # the expected output's line 3: what a wrong output changed


@dataclass(frozen=True)
class Ran:
    """A case of a student's record (marking.records.Case), what counts of it."""
    case: str
    digest: str
    passed: bool = False
    lines: tuple = CHANGED


def names(pairs: list) -> list:
    return [(pair.first, pair.second) for pair in pairs]


def test_an_output_only_two_give_makes_a_pair_scored_over_every_output_they_share():
    """ann and bob share seed_0's output with no one (1) and seed_27's with cy (a half);
    ann, bob and cy share seed_27's, so cy is in no pair: no output is theirs alone."""
    class_ = {"ann": [Ran("s1/seed_0", "aa"), Ran("s1/seed_27", "bb")],
              "bob": [Ran("s1/seed_0", "aa"), Ran("s1/seed_27", "bb")],
              "cy": [Ran("s1/seed_0", "cc"), Ran("s1/seed_27", "bb")]}
    [pair] = same_output.pairs(class_)
    assert (pair.first, pair.second, pair.score) == ("ann", "bob", 1.5)
    assert [(output.case, output.students, output.said) for output in pair.outputs] == [
        ("s1/seed_0", ("ann", "bob"), "s1/seed_0: only these two"),
        ("s1/seed_27", ("ann", "bob", "cy"), "s1/seed_27: 3 students")]


def test_the_same_case_failed_another_way_is_no_shared_output():
    class_ = {"ann": [Ran("s1/seed_0", "aa")], "bob": [Ran("s1/seed_0", "ab")]}
    assert same_output.pairs(class_) == []


def test_pairs_come_rarest_first():
    """dee and eve share two outputs no one else gives; ann and bob one."""
    class_ = {"ann": [Ran("s1/seed_0", "aa")], "bob": [Ran("s1/seed_0", "aa")],
              "dee": [Ran("s1/seed_0", "dd"), Ran("s1/seed_8", "d8")],
              "eve": [Ran("s1/seed_0", "dd"), Ran("s1/seed_8", "d8")]}
    assert [(pair.first, pair.second, pair.score) for pair in same_output.pairs(class_)] == [
        ("dee", "eve", 2.0), ("ann", "bob", 1.0)]


def test_no_output_counts_that_is_right_empty_or_unknown():
    """Passed; printed what the case expects (it failed on its status: no line changed);
    printed nothing; no digest (nothing ran): none of these is a shared wrong output."""
    for ran in (Ran("s1/seed_0", "", passed=True), Ran("s1/seed_0", "aa", lines=()),
                Ran("s1/seed_0", same_output.NOTHING), Ran("s1/seed_0", "")):
        assert same_output.pairs({"ann": [ran], "bob": [ran]}) == [], ran


def test_a_crowd_s_output_is_scored_without_pairing_the_crowd():
    """40 students give seed_0's output; two of them also share seed_8's: one pair, whose
    seed_0 counts 1/39."""
    class_ = {f"s{at:02d}": [Ran("s1/seed_0", "aa")] for at in range(40)}
    class_["s00"].append(Ran("s1/seed_8", "b8"))
    class_["s01"].append(Ran("s1/seed_8", "b8"))
    [pair] = same_output.pairs(class_)
    assert names([pair]) == [("s00", "s01")] and pair.score == 1 + 1 / 39


def test_beside_a_pair_the_code_similarity_the_scan_found_of_the_two():
    pair = same_output.Pair("ann", "bob", 1.0, ())
    scanned = [Similar("bob", "ann", "solitaire_1", 0.875, "similarity/pair-001.html", 0.9),
               Similar("ann", "cy", "solitaire_1", 0.5, "similarity/pair-002.html", 0.5),
               Similar("ann", "bob", "solitaire_2", 0.25, "", 0.3)]
    assert same_output.code_similarity(pair, scanned) == [
        ("solitaire_1: 87.5%", "similarity/pair-001.html"), ("solitaire_2: 25.0%", "")]
    assert same_output.code_similarity(pair, scanned[1:2]) == [("none listed", "")]
    assert same_output.code_similarity(pair, [], 0.3) == [("none listed of at least 0.3", "")]
