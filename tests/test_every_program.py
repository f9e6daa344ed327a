"""What every program of the kit does alike at its edge: an import starts
nothing, the output is UTF-8 whatever the locale, and Ctrl-C at the first
prompt ends it without a traceback, with the status its handout in docs/ gives."""

import os
import subprocess
import sys

import pexpect
import pytest

from exactmark.kit.cases import ROOT, Case, EXPECTED_OUTPUTS
from exactmark.running.run import run_piped
from tests.bytes_check import expect_same
from tests.interrupt import sigint_as_at_a_terminal

# program: (a case that prints every kind of character it uses, its arguments,
#           its first prompt, its exit status on Ctrl-C)
PROGRAMS = {
    "solitaire_1": ("seed_27", [], b"function: ", 130),
    "solitaire_2": ("seed_4_queries", [], b"function: ", 130),
    "hoyle_cli": ("ascii_game", [], b"3. Quit\r\n", 0),
    "patience": ("freecell_won_ms_617", ["freecell", "--ms", "617"], b"> ", 130),
}
HOSTILE_LOCALES = [{"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii"},
                   {"LC_ALL": "POSIX", "PYTHONIOENCODING": "latin-1", "PYTHONUTF8": "0"}]


@pytest.mark.parametrize("program", PROGRAMS)
def test_importing_the_program_starts_nothing(program):
    done = subprocess.run([sys.executable, "-c", f"import {program}"], cwd=ROOT, input=b"1\n",
                          capture_output=True, timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


@pytest.mark.parametrize("locale", HOSTILE_LOCALES, ids=["C ascii", "POSIX latin-1"])
@pytest.mark.parametrize("program", PROGRAMS)
def test_output_is_utf8_whatever_the_locale(program, locale):
    case = Case(program, PROGRAMS[program][0], EXPECTED_OUTPUTS / program)
    run = run_piped(case, ROOT, env={**os.environ, **locale})
    expect_same(run.stdout, case.stdout, f"{case.id} with {locale}")
    assert run.stderr == b""


@pytest.mark.parametrize("program", PROGRAMS)
def test_ctrl_c_at_the_first_prompt_ends_quietly(program, tmp_path):
    _, args, prompt, status = PROGRAMS[program]
    child = pexpect.spawn(sys.executable, [str(ROOT / f"{program}.py"), *args], cwd=str(tmp_path),
                          env={**os.environ, "HOYLE_STATS_FILE": str(tmp_path / "stats")}, timeout=30,
                          preexec_fn=sigint_as_at_a_terminal)
    child.expect_exact(prompt)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert (child.exitstatus, child.signalstatus) == (status, None)
    assert b"Traceback" not in child.before


@pytest.mark.parametrize("program", PROGRAMS)
def test_a_stdout_closed_from_the_start_is_no_error(program, tmp_path):
    case = Case(program, PROGRAMS[program][0], EXPECTED_OUTPUTS / program)
    done = subprocess.run([sys.executable, str(ROOT / f"{program}.py"), *case.args],
                          input=case.stdin, capture_output=True, timeout=30, cwd=tmp_path,
                          env={**os.environ, "HOYLE_STATS_FILE": str(tmp_path / "stats")},
                          preexec_fn=lambda: os.close(1))  # as `python3 PROGRAM >&-` does
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
