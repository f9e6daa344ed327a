"""The sample solutions `make standalone` writes: one file each, the standard
library only, and every golden case passes, piped and at a terminal."""

import ast
import shutil
import subprocess
import sys

import pytest

from exactmark.kit.cases import ROOT, load_cases
from exactmark.running.run import run_on_terminal, run_piped
from exactmark.kit.bundle import KIT_PACKAGES, kit_programs, write_all
from tests.bytes_check import expect_case_passes, expect_same

PROGRAMS = [program.name for program in kit_programs()]
CASES = [case for program in PROGRAMS for case in load_cases(program)]
SCREENS = [case for case in CASES if case.screen is not None]


@pytest.fixture(scope="module")
def solutions(tmp_path_factory):
    """A folder holding nothing but the four sample solutions."""
    folder = tmp_path_factory.mktemp("solutions")
    write_all(folder)
    return folder


@pytest.mark.parametrize("program", PROGRAMS)
def test_a_solution_imports_the_standard_library_only(solutions, program):
    tree = ast.parse((solutions / f"{program}.py").read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom)}
    assert imported <= set(sys.stdlib_module_names), f"{program}: {imported - set(sys.stdlib_module_names)}"
    assert not imported & set(KIT_PACKAGES)


@pytest.mark.parametrize("program", PROGRAMS)
def test_a_solution_says_what_it_was_written_from(solutions, program):
    text = (solutions / f"{program}.py").read_text(encoding="utf-8")
    assert text.startswith('"""'), f"{program}: the program's own docstring comes first"
    assert f"written by `make standalone` from {program}.py" in text


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_solution_passes_every_case_piped(solutions, case):
    expect_case_passes(run_piped(case, solutions), case, "the sample solution")


@pytest.mark.parametrize("case", SCREENS, ids=lambda case: case.id)
def test_a_solution_passes_every_case_at_a_terminal(solutions, case):
    screen = run_on_terminal(case, solutions)
    assert not screen.timed_out, f"{case.id}: no answer in time"
    expect_same(screen.stdout, case.screen, f"{case.id} terminal screen of the sample solution")


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_make_standalone_of_an_assignment_writes_what_its_student_hands_in(tmp_path):
    """`make standalone ASSIGNMENT=calculation_cpp OUT=DIR`: the C++ files alone, at the top
    of DIR, and `make mark` on DIR gives full marks."""
    out = tmp_path / "hand in"
    common = ["make", "-s", "-C", str(ROOT), "STAMP=", f"VENV_PYTHON={sys.executable}",
              "ASSIGNMENT=calculation_cpp"]
    done = subprocess.run([*common, "standalone", f"OUT={out}"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in out.iterdir()) == \
        sorted(path.name for path in (ROOT / "references" / "calculation_cpp").iterdir())
    done = subprocess.run([*common, "mark", f"SUBMISSION={out}", "ARGS=--jobs 2"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "Score: 20.00/20.00" in done.stdout, done.stdout + done.stderr
