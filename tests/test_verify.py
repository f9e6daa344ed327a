"""`make verify`'s variants: a wrong or honest program is the sample solution
with changes, and a change that no longer applies fails loudly."""

import shutil

import pytest

from exactmark.kit.rules import rule_map
from exactmark.kit.variants import VariantError, read_variant, read_variants
from exactmark.verify.__main__ import HONEST, WRONG, assignment_of_each_program

SOLUTION = {"solitaire_1.py": 'print("Eighth (and last) card")\nprint("done")\nprint("done")\n'}
SOURCES = {"main.cpp": '#include "game.h"\nint main() { return play(); }\n',
           "game.cpp": 'int play() { return 0; }\n'}


def variant_file(tmp_path, text, program="solitaire_1", name="a_mistake"):
    folder = tmp_path / program
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_variant_is_the_solution_with_its_changes(tmp_path):
    variant = read_variant(variant_file(tmp_path, """
mistake = "no space before (and last)"
[[change]]
find = 'Eighth (and last)'
replace = 'Eighth(and last)'
[[change]]
find = '"done"'
replace = '"Done"'
count = 2
"""))
    assert (variant.id, variant.mistake) == ("solitaire_1/a_mistake", "no space before (and last)")
    assert variant.applied_to(SOLUTION) == {
        "solitaire_1.py": 'print("Eighth(and last) card")\nprint("Done")\nprint("Done")\n'}


def test_a_variant_whose_output_is_undefined_says_on_what(tmp_path):
    """Its runs in two environments may differ: verify compares none of them."""
    variant = read_variant(variant_file(tmp_path, """
mistake = "prints one slot past the top"
undefined = "memory it never wrote"
[[change]]
find = '"done"'
replace = '"Done"'
count = 2
"""))
    assert variant.undefined == "memory it never wrote"
    with pytest.raises(VariantError):
        read_variant(variant_file(tmp_path, """
mistake = "m"
undefined = true
[[change]]
find = 'a'
replace = 'b'
"""))


def test_a_variant_that_spins_may_be_marked_with_a_lower_cpu_limit(tmp_path):
    """Its own `cpu_seconds`, which verify gives the marker as --timeout; none by default."""
    text = 'mistake = "spins"\n[[change]]\nfind = "a"\nreplace = "b"\n'
    assert read_variant(variant_file(tmp_path, text)).cpu_seconds is None
    assert read_variant(variant_file(tmp_path, "cpu_seconds = 3\n" + text)).cpu_seconds == 3
    for wrong in ("0", "-1", "true", '"3"'):
        with pytest.raises(VariantError, match="cpu_seconds must be a number of seconds above 0"):
            read_variant(variant_file(tmp_path, f"cpu_seconds = {wrong}\n" + text))


def test_only_the_kits_variants_that_say_so_are_undefined():
    undefined = [variant.id for variant in read_variants(WRONG) if variant.undefined]
    assert undefined == ["calculation_cpp/waste_pile_shown_from_one_past_the_top",
                         "patience/unknown_game_plays_golf"]


def test_a_change_to_a_program_of_several_files_names_its_file(tmp_path):
    variant = read_variant(variant_file(tmp_path, """
mistake = "play returns 1"
[[change]]
file = "game.cpp"
find = 'return 0;'
replace = 'return 1;'
""", program="calculation_cpp"))
    assert variant.applied_to(SOURCES) == {**SOURCES, "game.cpp": 'int play() { return 1; }\n'}


@pytest.mark.parametrize("which", ["", 'file = "other.cpp"\n'])
def test_a_change_that_names_no_file_of_several_is_refused(tmp_path, which):
    variant = read_variant(variant_file(tmp_path, f"""
mistake = "x"
[[change]]
{which}find = 'return 0;'
replace = 'return 1;'
""", program="calculation_cpp"))
    with pytest.raises(VariantError, match="change 1: say which file it changes .*game.cpp, main.cpp"):
        variant.applied_to(SOURCES)


@pytest.mark.parametrize("change, problem", [
    ("find = 'Ninth'\nreplace = 'Nineth'", "occurs 0 times, not 1"),
    ("find = '\"done\"'\nreplace = '\"Done\"'", "occurs 2 times, not 1"),
    ("find = 'done'\nreplace = 'done'\ncount = 2", "leave the sample solution as it was"),
])
def test_a_change_that_does_not_apply_as_written_is_refused(tmp_path, change, problem):
    variant = read_variant(variant_file(tmp_path, f'mistake = "x"\n[[change]]\n{change}\n'))
    with pytest.raises(VariantError, match=problem):
        variant.applied_to(SOLUTION)


@pytest.mark.parametrize("text", ['mistake = "x"\n', '[[change]]\nfind = "a"\nreplace = "b"\n',
                                  'mistake = "x"\n[[change]]\nfind = "a"\n', "mistake = \n"])
def test_a_variant_file_without_its_mistake_or_changes_is_refused(tmp_path, text):
    with pytest.raises(VariantError, match="a_mistake.toml"):
        read_variant(variant_file(tmp_path, text))


def test_the_kit_s_variants_cover_every_program_and_read():
    wrong, honest = read_variants(WRONG), read_variants(HONEST)
    programs = set(assignment_of_each_program())
    assert {v.program for v in wrong} == programs, "a program without known-wrong variants"
    assert len(wrong) >= 60
    assert {v.program for v in honest} == {"solitaire_1", "solitaire_2", "patience",
                                           "calculation_cpp"}


def test_each_kit_variant_still_applies_to_its_sample_solution(tmp_path):
    """A reference rewritten under a wrong program's `find` text: found here, in seconds,
    not only by `make verify` (which stops at it)."""
    from exactmark.verify.__main__ import sample_solution

    programs = {program: assignment.programs[program]
                for program, assignment in assignment_of_each_program().items()}
    solutions = {}
    for variant in read_variants(WRONG) + read_variants(HONEST):
        if variant.program not in solutions:
            solutions[variant.program] = sample_solution(programs[variant.program], tmp_path)
        variant.applied_to(solutions[variant.program])  # VariantError names the variant


def verify_one_wrong_variant(tmp_path, monkeypatch, capsys, text, program, name) -> str:
    """What verify says of the one wrong variant `text` alone; it must find a problem."""
    import exactmark.verify.__main__ as verify

    found = rule_map(assignment_of_each_program()[program].programs[program])
    if found is not None:  # it names a rule it breaks, as every wrong program must
        text = f'rule = "{next(iter(found.rules))}"\n' + text
    variant_file(tmp_path, text, program=program, name=name)
    monkeypatch.setattr(verify, "WRONG", tmp_path)
    monkeypatch.setattr(verify, "HONEST", tmp_path / "none")
    assert verify.main(["--only", f"{program}/{name}"]) == 1
    said = capsys.readouterr().out
    assert f"MISSED  wrong       {program}/{name}" in said
    return said


def test_verify_fails_on_a_wrong_program_that_no_case_catches(tmp_path, monkeypatch, capsys):
    """A "mistake" that changes only a comment passes every case: verify must say MISSED."""
    said = verify_one_wrong_variant(tmp_path, monkeypatch, capsys, '''
mistake = "changes a comment only"
[[change]]
find = "# --- solitaire_1.py: the program itself"
replace = "# --- solitaire_1.py: my program"
''', "solitaire_1", "harmless")
    assert "Wrong programs caught: 0/1" in said
    assert "wrong solitaire_1/harmless: fails 0 case(s)" in said


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_a_wrong_variant_that_does_not_build_is_missed_not_caught(tmp_path, monkeypatch, capsys):
    """Every case of a program that does not build fails: that shows no mistake."""
    said = verify_one_wrong_variant(tmp_path, monkeypatch, capsys, '''
mistake = "a semicolon lost"
[[change]]
file = "main.cpp"
find = "int main() {"
replace = "int main() {;;}"
''', "calculation_cpp", "broken")
    assert "none: it does not build (a variant must still compile)" in said


def test_a_reference_that_is_not_there_fails_verify(tmp_path, capsys):
    import exactmark.verify.__main__ as verify

    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "one.in").write_text("1\n")
    (tmp_path / "cases" / "one.out").write_text("1\n")
    (tmp_path / "reference").mkdir()  # but no echo.py in it
    (tmp_path / "own.toml").write_text('''
title = "Echo"
marks = 1
cpu_seconds = 5
[[programs]]
name = "echo"
reference = "reference"
cases = "cases"
  [[programs.groups]]
  name = "all"
  marks = 1
  cases = ["*"]
  visibility = "visible"
''')
    assert verify.main(["--assignment", str(tmp_path / "own.toml")]) == 1
    said = capsys.readouterr().out
    assert "FAILS   reference   echo (own)" in said
    assert "none: the program's files are not there (a wrong name?)" in said


def test_verify_fails_where_the_student_pack_says_otherwise_than_the_marker(monkeypatch, capsys):
    """A pack whose checker passes every visible case of a wrong program: verify says where."""
    import exactmark.verify.__main__ as verify

    contents = verify.pack_build.contents

    def lying(assignment):
        files = contents(assignment)
        files[verify.pack_build.CHECKER] = (
            b"import json, sys\n"
            b"cases = json.load(open(__file__.replace('check.py', 'pack.json')))['programs']\n"
            b"said = {f\"{p['name']}/{c['name']}\": {'kind': 'pass', 'how': ''}\n"
            b"        for p in cases for c in p['visible']}\n"
            b"json.dump(said, open(sys.argv[sys.argv.index('--json') + 1], 'w'))\n")
        return files
    monkeypatch.setattr(verify.pack_build, "contents", lying)
    assert verify.main(["--assignment", "seeded",
                        "--only", "solitaire_1/and_last_without_its_space"]) == 1
    said = capsys.readouterr().out
    assert ("the student pack says otherwise on solitaire_1/seed_27: the marker wrong output: "
            in said), said
    assert "the pack pass" in said
    assert "the student pack disagrees with the marker on wrong solitaire_1/and_last_without_its_space" in said


def test_verify_says_only_what_it_checked_when_nothing_is_wrong(tmp_path, monkeypatch, capsys):
    """One wrong variant alone (--only: no reference checked), no honest variant: the last
    line claims neither the references nor honest variants."""
    import exactmark.verify.__main__ as verify

    name = "ace_and_the_0_cards_after"
    shutil.copytree(WRONG / "solitaire_1", tmp_path / "solitaire_1",
                    ignore=lambda _, files: [file for file in files if file != f"{name}.toml"])
    monkeypatch.setattr(verify, "WRONG", tmp_path)
    monkeypatch.setattr(verify, "HONEST", tmp_path / "none")
    assert verify.main(["--assignment", "seeded", "--only", f"solitaire_1/{name}"]) == 0
    said = capsys.readouterr().out
    assert f"caught  wrong       solitaire_1/{name}" in said, said
    assert said.splitlines()[-1] == ("verify: no honest variant to try; every wrong program is "
                                     "caught"), said


def test_a_marking_of_some_cases_is_checked_with_the_pack_narrowed_to_its_visible_cases(
        tmp_path):
    """A wrong program marked on its rule's cases is checked by a copy of the pack that
    holds only those of them that are visible (solitaire_1's seed_27 of its four), byte for
    byte: the checker runs each case on its own, so it says of it what the whole pack says."""
    import exactmark.verify.__main__ as verify
    from exactmark.kit.assignment import load
    from exactmark.pack import manifest

    pack = tmp_path / "pack"
    verify.pack_build.write(pack, verify.pack_build.contents(load("seeded")))
    whole = manifest.read(pack)
    assert [(program.name, len(cases)) for program, cases in whole.programs] == [
        ("solitaire_1", 4), ("solitaire_2", 4)]
    narrowed = manifest.read(verify.narrowed(pack, "solitaire_1", {"seed_27"}, tmp_path / "narrow"))
    assert [(program.name, [checked.case.name for checked in cases])
            for program, cases in narrowed.programs] == [("solitaire_1", ["seed_27"]),
                                                         ("solitaire_2", [])]
    (_, [seed_27]), _ = narrowed.programs
    [kept] = [checked for checked in whole.programs[0][1] if checked.case.name == "seed_27"]
    assert seed_27.compare == kept.compare
    files = sorted(path.name for path in kept.case.folder.iterdir()
                   if path.name.startswith("seed_27."))
    assert files and sorted(path.name for path in seed_27.case.folder.iterdir()) == files
    assert all((seed_27.case.folder / name).read_bytes() == (kept.case.folder / name).read_bytes()
               for name in files)
    assert (narrowed.cpu_seconds, narrowed.wall_seconds, narrowed.normalise) == (
        whole.cpu_seconds, whole.wall_seconds, whole.normalise)
    assert (tmp_path / "narrow" / "check.py").read_bytes() == (pack / "check.py").read_bytes()


def test_a_wrong_program_whose_output_is_undefined_is_marked_on_its_rule_s_cases_unchecked(
        capsys):
    """patience/unknown_game_plays_golf says its output depends on more than its input: it
    is marked on its rule's cases (a visible one among them) and caught, and the pack's
    checker is not asked (there is no pack to narrow)."""
    import exactmark.verify.__main__ as verify

    assert verify.main(["--assignment", "patience",
                        "--only", "patience/unknown_game_plays_golf"]) == 0
    said = capsys.readouterr().out
    assert "caught  wrong       patience/unknown_game_plays_golf" in said, said
    assert "          not checked with the student pack: its output depends on " in said, said
