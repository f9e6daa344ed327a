"""The time limit of a run is CPU time, for all its processes together, with a
wall-clock cap well above it: a run that burns CPU is stopped near the limit
however many processes it spreads over, one that waits is stopped at the cap,
and an honest program passes however loaded the machine is.

Each test runs `Sandbox` itself on a snapshot of one program, `prog.py`, in
both isolations, piped and in a terminal. What ended a run is asserted by the limit
it names and the CPU time it used, never by the wall-clock seconds it took, which
other work on the machine stretches: a cap the CPU limit must beat is set out of any
load's reach (FAR), and a doze's CPU is counted, not timed."""

import os
import shutil
import subprocess
import sys
import textwrap
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

import exactmark.running.limits
import exactmark.sandbox.sandbox
from exactmark.kit.cases import ROOT
from exactmark.sandbox.cgroups import Unavailable
from exactmark.running.record import Limit
from exactmark.running.supervise import BUSY_CPU_SECONDS
from exactmark.sandbox.sandbox import Sandbox
from tests.test_mark import open_scratch

IS_ROOT = os.geteuid() == 0
NAMESPACES = pytest.param("namespaces", id="namespaces", marks=pytest.mark.skipif(
    shutil.which("bwrap") is None or not IS_ROOT,
    reason="--isolation namespaces is tested here with bubblewrap (bwrap) installed, as root"))
FALLBACK = pytest.param("fallback", id="fallback")
BOTH = [NAMESPACES, FALLBACK]
TERMINAL = pytest.param(True, id="terminal")
PIPED = pytest.param(False, id="piped")
BUSY = "while True:\n    pass\n"
FAR = 600  # a wall-clock cap no load reaches before a CPU limit of a second or two

BURN_IN_THREE = """\
    import os
    for _ in range(2):  # three processes, each burning CPU until the run is killed
        if os.fork() == 0:
            break
    while True:
        pass
    """
SLEEP = """\
    import time
    print("asleep", flush=True)
    time.sleep(120)
    """
DOZE = f"""\
    import time
    print("asleep", flush=True)
    for _ in range(600):  # a little CPU now and then: waiting for something, not idle
        end = time.process_time() + {BUSY_CPU_SECONDS}  # each nap's CPU alone is busy
        while time.process_time() < end:
            pass
        time.sleep(0.2)
    """
HALF_A_SECOND = """\
    import time
    started = time.process_time()
    while time.process_time() - started < 0.5:
        pass
    print("done", flush=True)
    """


@pytest.fixture
def scratch():
    """The marker's scratch folder: in /tmp, crossable by the fallback's run users."""
    folder = open_scratch()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def snapshot_of(scratch: Path, code: str) -> Path:
    folder = scratch / "snapshot"
    folder.mkdir()
    (folder / "prog.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return folder


@contextmanager
def sandbox(scratch: Path, isolation: str, timeout: float, **options):
    box = Sandbox(timeout, scratch, [ROOT], isolation=isolation, **options)
    try:
        yield box
    finally:
        box.close()


def run(box: Sandbox, snapshot: Path, terminal: bool):
    """The run's outcome, and the wall-clock seconds it took."""
    if terminal:
        pytest.importorskip("pexpect", reason="the terminal runs need pexpect")
    started = time.monotonic()
    outcome = box.run(snapshot, lambda home: [box.python, str(home / "prog.py")], b"", {},
                      terminal=terminal)
    return outcome, time.monotonic() - started


def needs_cpu_measured(box: Sandbox) -> None:
    if not box.cpu_by_group:
        reason = box.groups.why_no_cpu if box.groups else box.why_no_group
        pytest.skip(f"no control group measures the run's CPU time here ({reason}): "
                    "test_without_a_group_the_whole_run_is_measured_from_proc tests /proc's")


@pytest.mark.parametrize("terminal", [PIPED, TERMINAL])
@pytest.mark.parametrize("isolation", BOTH)
def test_three_processes_burning_cpu_are_killed_at_the_limit_of_the_whole_run(scratch, isolation,
                                                                             terminal):
    with sandbox(scratch, isolation, 1, wall_seconds=FAR) as box:
        needs_cpu_measured(box)
        assert "1 s of CPU for the whole run (cgroup v" in box.describe()[2]
        assert f"wall-clock cap {FAR} s" in box.describe()[2]
        outcome, _ = run(box, snapshot_of(scratch, BURN_IN_THREE), terminal)
    assert outcome.timed_out and outcome.limit is Limit.CPU and outcome.status is None, outcome
    assert outcome.cpu_seconds >= 1, outcome
    # Three processes held to 1 s each (the rlimits alone) would use 3 s; the backstop, 6 s.
    assert outcome.cpu_seconds < 2, f"{outcome.cpu_seconds:.2f} s of CPU for a limit of 1 s"


@pytest.mark.parametrize("terminal", [PIPED, TERMINAL])
@pytest.mark.parametrize("isolation", BOTH)
def test_a_run_that_dozes_is_killed_at_the_wall_clock_cap(scratch, isolation, terminal):
    with sandbox(scratch, isolation, 1) as box:
        assert box.wall_seconds == exactmark.running.limits.WALL_FACTOR * 1
        outcome, seconds = run(box, snapshot_of(scratch, DOZE), terminal)
    assert outcome.timed_out and outcome.limit is Limit.WALL and outcome.status is None, outcome
    assert seconds >= box.wall_seconds - 0.1, f"killed after {seconds:.1f} s"
    assert outcome.stdout.startswith(b"asleep")
    if box.measures_cpu:
        assert outcome.cpu_seconds < 1, outcome


@pytest.mark.parametrize("terminal", [PIPED, TERMINAL])
@pytest.mark.parametrize("isolation", BOTH)
def test_a_run_that_only_sleeps_ends_once_idle_for_its_cpu_allowance(scratch, isolation, terminal):
    """No CPU used for as long as its whole allowance (2 s here): it ends then, before
    the wall-clock cap (the limit that ended it says so), where the CPU time is measured."""
    with sandbox(scratch, isolation, 2) as box:
        outcome, _ = run(box, snapshot_of(scratch, SLEEP), terminal)
    assert outcome.timed_out and outcome.status is None, outcome
    if not box.measures_cpu:
        assert outcome.limit is Limit.WALL, outcome
        return
    assert outcome.limit is Limit.IDLE, outcome


@pytest.mark.parametrize("terminal", [PIPED, TERMINAL])
@pytest.mark.parametrize("isolation", BOTH)
def test_an_honest_program_passes_on_a_loaded_machine(scratch, isolation, terminal):
    """0.5 s of CPU under a 2 s limit, while 4 busy processes of this test share one core
    with the run: at a fifth of a core it needs some 2.5 s of wall clock, more than
    the limit, and passes all the same (the wall-clock cap is set out of reach, so that
    other work on the machine cannot reach it)."""
    everywhere = os.sched_getaffinity(0)
    busy = []
    with sandbox(scratch, isolation, 2, wall_seconds=FAR) as box:
        try:
            os.sched_setaffinity(0, {min(everywhere)})  # this thread, and what it starts
            # Each in a session of its own, as each run is: with the kernel's autogroups,
            # the processes of one session share a single fair share of the core.
            busy = [subprocess.Popen([sys.executable, "-c", BUSY], start_new_session=True)
                    for _ in range(4)]
            outcome, seconds = run(box, snapshot_of(scratch, HALF_A_SECOND), terminal)
        finally:
            os.sched_setaffinity(0, everywhere)
            for process in busy:
                process.kill()
            for process in busy:
                process.wait()
    got = outcome.stdout  # at a terminal, the screen
    assert not outcome.timed_out and outcome.limit is None and outcome.status == 0, \
        f"{outcome} after {seconds:.1f} s"
    assert got.endswith(b"done\n")
    if box.measures_cpu:
        assert 0.5 <= outcome.cpu_seconds < 2, outcome


def test_the_wall_clock_cap_is_never_below_the_cpu_limit(scratch):
    with sandbox(scratch, "fallback", 3, wall_seconds=1) as box:
        assert box.wall_seconds == 3
    with sandbox(scratch, "fallback", 3) as box:
        assert box.wall_seconds == 3 * exactmark.running.limits.WALL_FACTOR
        assert ("RLIMIT_CPU", (4, 5)) in box.limits()  # SIGXCPU a second past it, SIGKILL after


def no_groups(monkeypatch) -> None:
    def refused():
        raise Unavailable("none here (this test)")

    monkeypatch.setattr(exactmark.sandbox.sandbox, "Groups", refused)


@pytest.mark.parametrize("terminal", [PIPED, TERMINAL])
@pytest.mark.parametrize("isolation", BOTH)
def test_without_a_group_the_whole_run_is_measured_from_proc(scratch, monkeypatch, isolation,
                                                             terminal):
    """No control group (not root, or none can be made, as in Gradescope's container): the
    CPU times of the run's processes, read from /proc, hold the whole run to its limit (three
    processes held to 1 s each by their rlimits alone would use 3 s)."""
    no_groups(monkeypatch)
    with sandbox(scratch, isolation, 1, wall_seconds=FAR) as box:
        assert box.measures_cpu and not box.cpu_by_group
        assert ("1 s of CPU for the whole run (its processes' CPU times, read from /proc: no "
                "cgroup counts them, none here (this test))") in box.describe()[2]
        outcome, _ = run(box, snapshot_of(scratch, BURN_IN_THREE), terminal)
    assert outcome.timed_out and outcome.limit is Limit.CPU and outcome.status is None, outcome
    assert 1 <= outcome.cpu_seconds < 2, f"{outcome.cpu_seconds:.2f} s of CPU for a limit of 1 s"


@pytest.mark.parametrize("terminal", [PIPED, TERMINAL])
@pytest.mark.parametrize("isolation", BOTH)
def test_without_a_group_a_sleeper_ends_once_idle(scratch, monkeypatch, isolation, terminal):
    """What a sleeper costs where no control group is: its idle allowance (2 s here), not the
    wall-clock cap (FAR): the limit that ended it says which."""
    no_groups(monkeypatch)
    with sandbox(scratch, isolation, 2, wall_seconds=FAR) as box:
        outcome, _ = run(box, snapshot_of(scratch, SLEEP), terminal)
    assert outcome.limit is Limit.IDLE and outcome.status is None, outcome


@pytest.mark.parametrize("isolation", BOTH)
@pytest.mark.parametrize("terminal", [PIPED, TERMINAL])
def test_where_nothing_measures_the_run_each_process_is_held_by_its_rlimit(
        scratch, monkeypatch, isolation, terminal):
    """Neither a control group nor /proc (which the marker then cannot read): the report says
    the limit holds per process, and a loop that runs into RLIMIT_CPU (SIGXCPU, which
    bubblewrap passes on as status 152) is a timeout, never a crash or a wrong output."""
    no_groups(monkeypatch)
    with sandbox(scratch, isolation, 1, wall_seconds=FAR) as box:
        box.measures_cpu = False
        assert "1 s of CPU per process (rlimits only" in box.describe()[2]
        outcome, _ = run(box, snapshot_of(scratch, BUSY), terminal)
    assert outcome.timed_out and outcome.limit is Limit.CPU and outcome.status is None, outcome
    if isolation == "fallback" and not terminal:
        assert outcome.cpu_seconds >= 1, outcome
