"""A diagnosis names a mistake in its wrong program's own words, before the deadline too:
those words must never give away a case students cannot see yet. No mistake of the kit may
quote a line a hidden case types, or a number a hidden case prints, that no visible case
and no line of the handout shows."""

import re

import pytest

from exactmark.kit.assignment import load, names
from exactmark.kit.cases import ROOT
from exactmark.kit.variants import read_variants

WORD = re.compile(r"[^\s,;:()`'\"]+")
PRINTED_NUMBER = re.compile(r"-?\d+\.\d+%?|-?\d{3,}")  # 14.75, 58.13%, 2147483647
WRONG = read_variants(ROOT / "tests" / "wrong")


def text(marked, suffix: str) -> str:
    path = marked.case.file(suffix)
    return path.read_bytes().decode("utf-8", "replace") if path.exists() else ""


def programs():
    for assignment in map(load, names()):
        for program, marked in assignment.marked_cases.items():
            if any(variant.program == program for variant in WRONG):
                yield pytest.param(assignment, program, id=f"{assignment.name}/{program}")


def given_away(assignment, program: str, mistakes: dict) -> dict:
    """Mistake name -> the words of its mistake that only hidden cases show."""
    marked = assignment.marked_cases[program]
    handout = assignment.programs[program].handout
    shown = set(WORD.findall(handout.read_text(encoding="utf-8") if handout else ""))
    for case in marked:
        if case.visible:
            shown |= set(WORD.findall(text(case, ".in") + text(case, ".args") + text(case, ".out")))
    typed = {line.strip() for case in marked if not case.visible
             for line in (text(case, ".in") + "\n" + text(case, ".args")).splitlines()
             if len(line.strip()) >= 2} - shown
    printed = {word for case in marked if not case.visible
               for word in WORD.findall(text(case, ".out")) if PRINTED_NUMBER.fullmatch(word)} - shown
    found = {name: sorted(set(WORD.findall(mistake)) & (typed | printed))
             for name, mistake in mistakes.items()}
    return {name: words for name, words in found.items() if words}


@pytest.mark.parametrize("assignment, program", programs())
def test_no_mistake_gives_away_a_hidden_case(assignment, program):
    assert given_away(assignment, program, {variant.id: variant.mistake for variant in WRONG
                                            if variant.program == program}) == {}


def test_a_mistake_quoting_a_hidden_input_is_found():
    assignment = load("seeded")
    assert given_away(assignment, "solitaire_1", {
        "made_up": "converts the seed line with int(line, 0), so 0o17 is taken as a seed"}) == {
        "made_up": ["0o17"]}
