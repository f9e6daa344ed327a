"""C and C++ mutants (exactmark/mutants/c_family.py, universalmutator's rules), as examples
on a fifteen-line C++ program (tests/mutants_c_fixture/total.cpp: it prints 1+2+3+4): each
mutant changes one line and nothing else, `mutated` makes that change, an id survives a
line added above, and the mutant that turns `i < n` into `i <= n` builds and prints 15."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from exactmark.mutants.c_family import c_mutants, mutated

FIXTURE = Path(__file__).parent / "mutants_c_fixture"
FILES = {"total.cpp": (FIXTURE / "total.cpp").read_text(encoding="utf-8")}
ADDED_ABOVE = "int unused = 7;\n"  # a line of code, with mutants of its own
LOOP = "for (int i = 1; i < n; i++) {"


def changed_lines(mutant) -> tuple:
    """(the original's lines, the mutant's lines that stand in the changed line's place),
    asserting that every line before and after it is the original's."""
    old = FILES[mutant.file].split("\n")
    new = mutated(FILES, mutant)[mutant.file].split("\n")
    added = len(new) - len(old)
    at = mutant.line - 1
    assert new[:at] == old[:at], f"{mutant.id}: a line before line {mutant.line} changed"
    assert new[at + 1 + added:] == old[at + 1:], f"{mutant.id}: a line after {mutant.line} changed"
    return old, new[at:at + 1 + added]


def test_each_mutant_changes_its_line_alone_as_it_says():
    mutants = c_mutants("total", FILES)
    assert len(mutants) > 20, [mutant.id for mutant in mutants]
    for mutant in mutants:
        old, made = changed_lines(mutant)
        assert old[mutant.line - 1].strip() == mutant.before, mutant.id
        assert made != [old[mutant.line - 1]], f"{mutant.id}: the line is unchanged"
        assert " ".join(line.strip() for line in made) == mutant.after, mutant.id
        assert mutant.program == "total"


def test_the_comment_and_the_include_are_not_mutated():
    lines = {mutant.line for mutant in c_mutants("total", FILES)}
    assert 1 not in lines and 2 not in lines, sorted(lines)


def test_the_loops_comparison_is_among_the_mutants():
    afters = {mutant.after for mutant in c_mutants("total", FILES) if mutant.before == LOOP}
    assert "for (int i = 1; i <= n; i++) {" in afters, sorted(afters)
    assert "for (int i = 1; i < n; i--) {" in afters, sorted(afters)


def test_ids_are_unique_and_stable_when_a_line_is_added_above():
    before = c_mutants("total", FILES)
    grown = {"total.cpp": ADDED_ABOVE + FILES["total.cpp"]}
    after = {mutant.id: mutant for mutant in c_mutants("total", grown)}
    assert len({mutant.id for mutant in before}) == len(before)
    for mutant in before:
        moved = after.get(mutant.id)
        assert moved is not None, f"{mutant.id} is gone once a line is added above"
        assert ((moved.line, moved.before, moved.after)
                == (mutant.line + 1, mutant.before, mutant.after)), mutant.id


def test_a_mutant_of_a_changed_file_is_refused():
    mutant = next(mutant for mutant in c_mutants("total", FILES) if mutant.before == LOOP)
    with pytest.raises(ValueError, match=f"total.cpp:{mutant.line} reads 'int sum = 0;'"):
        mutated({"total.cpp": ADDED_ABOVE + FILES["total.cpp"]}, mutant)


@pytest.mark.skipif(shutil.which("g++") is None and not os.environ.get("KIT_CI"),
                    reason="g++ is not installed: the mutant cannot be built")
def test_the_mutant_builds_and_prints_what_the_change_makes(tmp_path):
    mutant = next(mutant for mutant in c_mutants("total", FILES)
                  if mutant.after == "for (int i = 1; i <= n; i++) {")
    printed = {}
    for name, files in (("original", FILES), ("mutant", mutated(FILES, mutant))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "total.cpp").write_text(files["total.cpp"], encoding="utf-8")
        subprocess.run(["g++", "-O0", "-o", "program", "total.cpp"], cwd=tmp_path / name,
                       check=True)
        printed[name] = subprocess.run(["./program"], cwd=tmp_path / name, capture_output=True,
                                       text=True, check=True).stdout
    assert printed == {"original": "10\n", "mutant": "15\n"}
