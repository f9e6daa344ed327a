"""Every golden case of every program present, in a pipe and in a terminal."""

import pytest

from exactmark.kit.cases import ROOT, load_cases, programs
from exactmark.running.run import run_on_terminal, run_piped
from tests.bytes_check import expect_case_passes, expect_same

CASES = [case for program in programs() if (ROOT / f"{program}.py").exists()
         for case in load_cases(program)]
SCREENS = [case for case in CASES if case.screen is not None]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_piped_stdout(case):
    run = run_piped(case, ROOT)
    assert b"Traceback" not in run.stderr, run.stderr.decode("utf-8", "replace")
    expect_case_passes(run, case, "the reference program")


@pytest.mark.parametrize("case", SCREENS, ids=lambda case: case.id)
def test_terminal_screen(case):
    screen = run_on_terminal(case, ROOT)
    assert not screen.timed_out, f"{case.id}: no answer in time"
    expect_same(screen.stdout, case.screen, f"{case.id} terminal screen")


def test_every_program_has_cases_and_every_case_its_program():
    scripts = {script.stem for script in ROOT.glob("*.py")} - {"setup"}  # the wheel's build step
    assert scripts == set(programs()), "a program without golden cases, or cases without their program"
    for program in scripts:
        assert load_cases(program), f"no golden case for {program}.py"
