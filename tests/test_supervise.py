"""The run loop the sandbox, a session and the student's checker share
(exactmark.running.supervise): a program started piped, what it wrote gathered within the
budget's caps, the run killed at a cap, and the record of how it ended. Each caller adds
how its run starts, how it is killed and how its CPU time is read; here, the plainest."""

import dataclasses
import functools
import sys

from exactmark.running.limits import Budget
from exactmark.running.record import STDOUT, Limit
from exactmark.running.supervise import Piped, gather, kill_group, piped_ran
from tests.interrupt import BACKSTOP_SECONDS

# A wall-clock cap no load reaches: a run ends by itself or at the cap a test means (a
# loaded machine may take seconds to start Python at all).
BUDGET = Budget(cpu_seconds=10, wall_seconds=600, idle_seconds=10, most_output=1000,
                most_stderr=1000)


def supervised(code: str, stdin: bytes = b"", head: int = None, budget: Budget = BUDGET):
    piped = Piped([sys.executable, "-c", code], "/", {}, started=lambda pid: None)
    gathered = gather(piped.process, stdin, budget, piped.ended,
                      functools.partial(kill_group, piped.pid), head)
    status, _ = piped.finish()
    return piped_ran(gathered, status, budget, None, None, killed_by_rlimit=False)


def test_a_run_that_ends_by_itself_keeps_what_it_wrote_and_its_status():
    ran = supervised("import sys; print(sys.stdin.read().upper()); sys.exit(3)", b"typed")
    assert (ran.stdout, ran.status, ran.limit) == (b"TYPED\n", 3, None), ran


def test_a_run_over_its_output_cap_is_killed_and_says_which_output():
    ran = supervised("import time\nprint('x' * 5000, flush=True)\ntime.sleep(600)")
    assert (ran.limit, ran.overflowed, ran.status) == (Limit.OUTPUT, STDOUT, None), ran
    assert ran.stdout == b"x" * BUDGET.most_output


def test_a_run_that_never_ends_is_killed_at_the_wall_clock_cap():
    """A cap of 5 s: Python's start (some 0.05 s of CPU) has printed by then at a
    fortieth of a core."""
    ran = supervised("import time; print('waiting', flush=True); time.sleep(600)",
                     budget=dataclasses.replace(BUDGET, wall_seconds=5))
    assert (ran.stdout, ran.limit, ran.status) == (b"waiting\n", Limit.WALL, None), ran


def test_with_a_head_the_reader_goes_away_after_that_many_bytes():
    ran = supervised("import sys\nfor _ in range(10**6): sys.stdout.write('y' * 100)",
                     head=10)
    assert ran.stdout == b"y" * 10, ran
    assert ran.limit is None and ran.status != 0, ran  # it met a closed pipe, and ended


def test_a_run_waiting_on_the_marker_is_never_idle_however_late_the_watch_looks():
    """A program at a terminal blocked on the line the marker is slow to type, on a loaded
    machine: no CPU used, yet not idle while it waits on the marker; idle once it does not."""
    import threading

    from exactmark.running.supervise import CpuWatch

    killed, waiting, looks = threading.Event(), threading.Event(), []
    waiting.set()

    def read():
        looks.append(1)
        if len(looks) == 20:  # well past the allowance: still waiting on the marker
            waiting.clear()
        return 0.0
    watch = CpuWatch(read, limit=60, idle=0.01, kill=killed.set, poll=0.02)
    watch.excuse(waiting.is_set)
    assert killed.wait(BACKSTOP_SECONDS), "never idle, even once it no longer waited on the marker"
    assert len(looks) >= 20 and watch.idle and not watch.hit
    watch.stop()
