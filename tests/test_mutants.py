"""Mutation analysis (exactmark mutants) on a tiny assignment of its own,
tests/mutants_fixture/: greet.py, twenty-five lines, five marked cases (counts 0, 1, 2, 3
and 5 against a LIMIT of 3), one wrong program, whose rule maps the limit's line, and a
`banner` the handout does not ask for, listed as unmarked. The
verdicts below are worked out by hand from the reference and its cases; then the reviewed
files of the kit's programs are checked against their references."""

import contextlib
import io
import shutil
from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray", reason="mutation analysis needs requirements-mutants.txt")

from exactmark.kit.assignment import load, names  # noqa: E402
from exactmark.mutants import reviewed  # noqa: E402
from exactmark.mutants.__main__ import main, texts_of  # noqa: E402
from exactmark.mutants.model import Verdict  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "mutants_fixture"
ALL_CASES = "reached by: five, one, three, two and 1 more"
NOT_FIVE = "reached by: one, three, two, zero"  # five returns before line 13
EQUIVALENT_ID = "greet.py:core/ReplaceComparisonOperator_Eq_LtE:897395ddd9:0"
DROPPED_ID = "greet.py:core/NumberReplacer:0000000000:0"


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """(exit status, printed lines, the folder) of one run with --write on a copy of the
    fixture, two mutants at once."""
    folder = tmp_path_factory.mktemp("mutants") / "tiny"
    shutil.copytree(FIXTURE, folder)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = main(["--assignment", str(folder / "tiny.toml"), "--jobs", "2", "--write"])
    return status, printed.getvalue().splitlines(), folder


def block(lines: list, first: str) -> list:
    """The report's lines on one mutant: its first line and those indented below it."""
    start = lines.index(first)
    end = next((index for index in range(start + 1, len(lines))
                if not lines[index].startswith("    ")), len(lines))
    return lines[start:end]


def test_a_boundary_one_case_pins_is_named_with_its_rule_and_cases(analysed):
    """count >= LIMIT fails only `three` (count 3 = LIMIT): pinned once. The wrong program
    too_many_at_the_limit finds `if count > LIMIT:`, so its rule names the line."""
    _, lines, _ = analysed
    assert block(lines, "greet.py:10: if count > LIMIT: -> if count >= LIMIT:  [pinned once]") == [
        "greet.py:10: if count > LIMIT: -> if count >= LIMIT:  [pinned once]",
        "    id: greet.py:core/ReplaceComparisonOperator_Gt_GtE:97f8b089e1:0",
        "    rule: limit", "    " + ALL_CASES, "    failed: three"]


def test_a_limit_no_case_reaches_survives(analysed):
    """LIMIT = 4 changes only a count of 4, which no case gives: survived."""
    _, lines, _ = analysed
    assert block(lines, "greet.py:4: LIMIT = 3 -> LIMIT = 4  [survived]") == [
        "greet.py:4: LIMIT = 3 -> LIMIT = 4  [survived]",
        "    id: greet.py:core/NumberReplacer:003ef2484b:0", "    " + ALL_CASES]


def test_a_line_no_case_reaches_survives_without_a_run(analysed):
    """No case gives a negative count: `raise SystemExit(2)` is never run."""
    _, lines, _ = analysed
    for rank, after in enumerate(("raise SystemExit( 3)", "raise SystemExit( 1)")):
        first = f"greet.py:14: raise SystemExit(2) -> {after}  [survived]"
        assert block(lines, first) == [first, f"    id: greet.py:core/NumberReplacer:124690d754:{rank}",
                                       "    no marked case reaches this line"]


def test_only_zero_pins_the_last_test(analysed):
    """count == 0 -> count < 0 (or == -1) loses "no greeting" in `zero` alone."""
    _, lines, _ = analysed
    for after, made in (("if count < 0:", "ReplaceComparisonOperator_Eq_Lt:897395ddd9:0"),
                        ("if count == -1:", "NumberReplacer:897395ddd9:1")):
        first = f"greet.py:17: if count == 0: -> {after}  [pinned once]"
        assert block(lines, first) == [first, f"    id: greet.py:core/{made}",
                                       "    " + NOT_FIVE, "    failed: zero"]


def test_killed_twice_and_equivalent_mutants_are_not_listed(analysed):
    """The empty loop fails one, two and three; the listed count <= 0 is equivalent."""
    _, lines, _ = analysed
    assert not [line for line in lines if "for number in range(count)" in line]
    assert not [line for line in lines if line.startswith("greet.py:17: if count == 0: -> "
                                                          "if count <= 0:")]


def test_the_figures_and_the_exit_status(analysed):
    """53 mutants, counted by hand: lines 10 (7 killed, >= pinned), 13 (4 killed; == 0,
    <= 0 and < 1 pinned; < -1 survived), 15 (killed), 17 (5 killed, 2 pinned, <= 0
    equivalent), 4 (2 pinned, 4 survived), 14 (2 survived) and banner's 24 (unmarked,
    outside the score). Some survive: status 1."""
    status, lines, _ = analysed
    assert lines[-1].startswith("greet: 53 mutants: 17 killed by ≥ 2 cases, 7 pinned once, "
                                "4 survived, 1 equivalent, 24 unmarked; score 60.7%; ")
    assert status == 1


def test_an_unmarked_part_is_one_line_with_its_count_and_why(analysed):
    """No case reaches banner's line (11 operators for each of `*` and `+`, and 4 one more
    or less): its survivors are not listed mutant by mutant."""
    _, lines, _ = analysed
    assert lines[-2] == ("greet.py:banner: 24 mutants unmarked: the kit's poster banner: the "
                         "handout does not ask for it, so no case marks it")
    assert not [line for line in lines if line.startswith("greet.py:23:")]


def test_only_a_survivor_in_unmarked_code_is_unmarked():
    """What a case fails there is judged as any mutant: the code is the kit's extra, what
    the case sees is not."""
    from exactmark.mutants.__main__ import as_listed
    from exactmark.mutants.model import Mutant
    from exactmark.mutants.runner import Outcome

    inside, outside, by_id = (Mutant("greet", "greet.py", line, "core/NumberReplacer", 0, before,
                                     "a") for line, before in ((23, "b"), (4, "b"), (4, "c")))
    listed = {("greet.py", 23): {"file": "greet.py", "scope": "banner", "reason": "extra"},
              by_id.id: {"file": "greet.py", "id": by_id.id, "reason": "one mutant"}}
    for verdict, became in ((Verdict.SURVIVED, Verdict.UNMARKED),
                            (Verdict.PINNED_ONCE, Verdict.PINNED_ONCE),
                            (Verdict.KILLED_TWICE, Verdict.KILLED_TWICE)):
        assert as_listed(Outcome(inside, verdict, ()), listed).verdict == became
        assert as_listed(Outcome(by_id, verdict, ()), listed).verdict == became
        assert as_listed(Outcome(outside, verdict, ()), listed).verdict == verdict


def test_an_unmarked_part_the_reference_lacks_is_refused(tmp_path, capsys):
    """A list that names what is gone would let it go stale unseen: status 2, one line."""
    folder = tmp_path / "tiny"
    shutil.copytree(FIXTURE, folder)
    path = folder / "greet.mutants.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('scope = "banner"',
                                                             'scope = "poster"'),
                    encoding="utf-8")
    assert main(["--assignment", str(folder / "tiny.toml")]) == 2
    assert capsys.readouterr().out.splitlines() == [
        f"mutants: {path}: [[unmarked]] names 'poster' in greet.py, which has no such "
        "function, class or name"]


def test_write_keeps_the_reasons_and_drops_what_is_gone(analysed):
    _, lines, folder = analysed
    path = folder / "greet.mutants.toml"
    assert f"  dropped from {path}: no such mutant now: {DROPPED_ID}" in lines
    written = reviewed.read(path)
    assert list(written.equivalent) == [EQUIVALENT_ID]
    assert written.equivalent[EQUIVALENT_ID]["reason"].startswith("a negative count has already")
    assert [(entry["file"], entry["scope"]) for entry in written.unmarked] == [("greet.py", "banner")]
    assert {key: written.figures[key] for key in ("mutants", "killed_twice", "pinned_once",
                                                  "survived", "equivalent", "unmarked")} == {
        "mutants": 53, "killed_twice": 17, "pinned_once": 7, "survived": 4, "equivalent": 1,
        "unmarked": 24}


def test_each_mutant_is_the_text_cosmic_rays_own_mutate_code_gives():
    """The maker splices each change into the text rather than parse the file again per
    mutant: the texts must be cosmic-ray's, byte for byte."""
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    from exactmark.mutants.python import mutated, python_mutants

    texts = {"greet.py": (FIXTURE / "reference" / "greet.py").read_text(encoding="utf-8")}
    mutants = python_mutants("greet", texts)
    assert len(mutants) == 53
    for mutant in mutants:
        assert mutated(texts, mutant)["greet.py"] == mutate_code(
            texts["greet.py"], get_operator(mutant.operator)(), mutant.occurrence), mutant


def test_the_mutants_a_verdict_names():
    assert [verdict.value for verdict in Verdict] == [
        "killed by ≥ 2 cases", "pinned once", "survived", "equivalent", "unmarked"]


def test_the_reviewed_file_goes_stale_when_the_reference_changes(tmp_path):
    folder = tmp_path / "tiny"
    shutil.copytree(FIXTURE, folder)
    assignment = load(str(folder / "tiny.toml"))
    program = assignment.programs["greet"]
    found = reviewed.read(reviewed.path_of(assignment, program))
    assert reviewed.stale(found, texts_of(program)) == []
    source = folder / "reference" / "greet.py"
    source.write_text(source.read_text().replace("LIMIT = 3", "LIMIT = 4"))
    assert reviewed.stale(found, texts_of(program)) == ["greet.py"]


def test_an_unknown_program_is_refused(capsys):
    assert main(["--assignment", str(FIXTURE / "tiny.toml"), "--program", "nothing"]) == 2
    assert "no program 'nothing'" in capsys.readouterr().out


def kit_programs() -> list:
    """(assignment, program) of each kit program with a reviewed file."""
    found = {}
    for name in names():
        assignment = load(name)
        for program in assignment.programs.values():
            path = reviewed.path_of(assignment, program)
            if assignment.marked_cases.get(program.name) and path.is_file():
                found.setdefault(program.name, (assignment, program, path))
    return sorted(found.values(), key=lambda found: found[1].name)


@pytest.mark.parametrize("assignment, program, path", kit_programs(),
                         ids=lambda value: getattr(value, "name", None))
def test_each_kit_reviewed_file_matches_its_reference(assignment, program, path):
    found = reviewed.read(path)
    assert reviewed.stale_message(found, texts_of(program), program.name) == ""
