"""A run stopped for its time says whether it had read all its input (a loop at end of
input is the commonest way to run out of time), and its reproduce command ends by itself.

The runs are cheap: a CPU limit of 1 s for the loop, and a sleeper that uses none. Every
wait is a guard against a hang, never a measure: what is checked is what the run read
and what the sentences say. The sleeper is stopped once it has used no CPU for
IDLE_SECONDS: a hundred times the CPU Python needs to start and read its input, so that
a machine that starves it for a moment does not stop it before it reads."""

import shutil
import subprocess
import sys

import pytest

from exactmark.kit.assignment import load
from exactmark.kit.cases import ROOT
from exactmark.marking.report import reproduce
from exactmark.marking.verdicts import (NOT_ALL_READ, PIPE, READ_ALL, REPRODUCE_MARGIN, Kind,
                                        Rules, judge)
from exactmark.pack.check import Runner
from exactmark.running.limits import Budget
from exactmark.running.record import Limit, Ran

CPU_SECONDS = 1  # of CPU time: the loop's limit
IDLE_SECONDS = 3  # without CPU: the sleeper's limit
GUARD_SECONDS = 600  # against a hang only
AT_END = "import sys\nsys.stdin.read()\n"  # reads to end of input, then:
LOOP = "while True: pass\n"
SLEEP = "import time\ntime.sleep(3600)\n"


def seeded_case(name: str):
    seeded = load("seeded")
    return seeded, next(marked.case for marked in seeded.marked_cases["solitaire_1"]
                        if marked.case.name == name)


@pytest.mark.parametrize("code, read_all, limit, idle_seconds", [
    (AT_END + LOOP, True, Limit.CPU, GUARD_SECONDS),
    (LOOP, False, Limit.CPU, GUARD_SECONDS),
    (AT_END + SLEEP, True, Limit.IDLE, IDLE_SECONDS),
], ids=["a loop at end of input", "a loop before reading", "a sleep at end of input"])
def test_a_run_stopped_for_its_time_says_whether_it_had_read_all_its_input(
        code, read_all, limit, idle_seconds):
    ran = Runner().run([sys.executable, "-c", code], "/", b"x\n", {},
                       Budget(CPU_SECONDS, GUARD_SECONDS, idle_seconds))
    assert (ran.limit, ran.read_all_input) == (limit, read_all)
    _, case = seeded_case("end_after_bad_seed")
    verdict = judge(case, PIPE, ran, Rules(cpu_seconds=CPU_SECONDS, idle_seconds=idle_seconds))
    assert verdict.kind == Kind.TIMEOUT
    said = READ_ALL if read_all else NOT_ALL_READ
    assert said in verdict.detail, verdict.detail
    if limit is Limit.CPU:
        assert verdict.detail.startswith(f"over the CPU time limit of 1 s{said}"), verdict.detail
    assert verdict.bound == (CPU_SECONDS if limit is Limit.CPU else idle_seconds) + REPRODUCE_MARGIN


def test_a_timeouts_reproduce_command_is_bounded_and_ends_by_itself(tmp_path):
    """Pasted in the student's folder, with the case's files as their feedback lays them
    out, the command of a program that sleeps at end of input ends: `timeout` stops it."""
    seeded, case = seeded_case("end_after_bad_seed")
    verdict = judge(case, PIPE, Ran(b"", limit=Limit.IDLE, read_all_input=True),
                    Rules(idle_seconds=1))
    command = reproduce(case, seeded.programs["solitaire_1"], verdict.kind, bound=verdict.bound)
    bound = 1 + REPRODUCE_MARGIN
    assert command == (f"{{ timeout {bound} python3 solitaire_1.py "
                       "< expected_outputs/solitaire_1/end_after_bad_seed.in; "
                       f'[ $? -ne 124 ] || echo "still running after {bound} s: stopped" >&2; }} '
                       "| diff - expected_outputs/solitaire_1/end_after_bad_seed.out"), command
    (tmp_path / "solitaire_1.py").write_text(AT_END + SLEEP, encoding="utf-8")
    cases = tmp_path / "expected_outputs" / "solitaire_1"
    cases.mkdir(parents=True)
    for suffix in (".in", ".out"):
        shutil.copy(ROOT / "expected_outputs" / "solitaire_1" / f"end_after_bad_seed{suffix}",
                    cases)
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True,
                          timeout=GUARD_SECONDS)
    assert done.returncode == 1, done  # diff's: the sleeper printed nothing
    assert done.stderr.decode() == f"still running after {bound} s: stopped\n", done
