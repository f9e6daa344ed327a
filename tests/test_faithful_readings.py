"""A terminal screen is pinned only where every faithful reading of the
specification (docs/solitaire_1.md §7, docs/solitaire_2.md §5-§6) agrees. The
specifications say "read a line"; a student reads it with `input()`, the kit
with `sys.stdin.readline()` (which keeps the last character of a line ended by
Ctrl-D). A copy of solitaire_1 and solitaire_2 whose reader is `input()` must
pass every golden case, piped and at a terminal."""

import shutil
from pathlib import Path

import pytest

from exactmark.kit.cases import ROOT, load_cases
from exactmark.running.run import run_on_terminal, run_piped
from tests.bytes_check import expect_same

PROGRAMS = ("solitaire_1", "solitaire_2")
READER = '''def read_line(prompt: str) -> str:
    """The student's way: input()."""
    return input(prompt)


def read_seed'''


@pytest.fixture(scope="module")
def with_input(tmp_path_factory) -> Path:
    """The kit, its console reading lines with input()."""
    folder = tmp_path_factory.mktemp("input_reader")
    for program in PROGRAMS:
        shutil.copy(ROOT / f"{program}.py", folder)
    shutil.copytree(ROOT / "common", folder / "common", ignore=shutil.ignore_patterns("__pycache__"))
    console = folder / "common" / "console.py"
    source = console.read_text(encoding="utf-8")
    start, end = source.index("def read_line("), source.index("def read_seed")
    console.write_text(source[:start] + READER + source[end + len("def read_seed"):],
                       encoding="utf-8")
    return folder


CASES = [case for program in PROGRAMS for case in load_cases(program)]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_program_reading_with_input_passes(with_input, case):
    run = run_piped(case, with_input)
    expect_same(run.stdout, case.stdout, f"{case.id} stdout, read with input()")
    if case.screen is not None:
        screen = run_on_terminal(case, with_input)
        expect_same(screen.stdout, case.screen, f"{case.id} terminal screen, read with input()")
