"""What every run of a case is given, in the marker's sandbox and in a student's checker
alike: its environment and the caps on what it may write and use; and where its
processes are found (Linux's /proc), to count and to kill them. Kept apart from the
sandbox, so that the student pack's checker (standard library only) says the same."""

import math
import os
from dataclasses import dataclass

MEMORY_BYTES = 1 << 30  # a run's, at most; less where a container allows less
MOST_OUTPUT = 4 << 20  # of each of stdout and stderr
FILE_BYTES = 16 << 20  # a file a run writes
WRITTEN_BYTES = 128 << 20  # all a run writes in files, beyond its own program's (its home's
# room and its /tmp under namespaces; in the fallback, exactmark.sandbox.disk's watch holds it to that)
CPU_SECONDS_OVER_TIMEOUT = 1  # RLIMIT_CPU per process: a backstop behind the run's own limit
OPEN_FILES = 256
PROCESSES = 32  # a run's, where the marker can hold them (a throwaway user's, a group's)
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
# The wall-clock cap, as a multiple of the CPU limit. It only has to stop a run
# that waits without using CPU (a sleep, a read that never comes), so it can sit
# well above the limit: at 4, a run that needs all of its CPU limit still ends
# within the cap while it gets a quarter of a core (a load of 4 per core), one
# that needs half of it while it gets an eighth; and a run that only sleeps
# holds up the marking for no more than 4 times the limit. Busier than that,
# fewer --jobs at once is the cure, not a higher cap.
# A run that uses next to no CPU (exactmark.running.supervise.BUSY_CPU_SECONDS) for
# IDLE_SECONDS, its stdin all given at once, is sleeping or waiting, not working: it ends
# then, not at the wall-clock cap, so that a sleeper costs a class seconds per case, not
# the whole cap. No honest program of a course waits so long: one that sleeps up to
# HONEST_SLEEP_SECONDS in a case passes (tests/test_mark_cpu_limit.py), which leaves 3 s
# for a loaded machine.
WALL_FACTOR = 4
IDLE_FLOOR_SECONDS = 2
IDLE_SECONDS = 5
HONEST_SLEEP_SECONDS = 2


def time_caps(cpu_seconds: float, wall_seconds: float = None) -> tuple:
    """(the wall-clock cap, the idle allowance) of a run with `cpu_seconds` of CPU time:
    the cap never below the CPU limit; the allowance IDLE_SECONDS, or the CPU limit where
    that is shorter (never under IDLE_FLOOR_SECONDS)."""
    wall = max(cpu_seconds, WALL_FACTOR * cpu_seconds if wall_seconds is None else wall_seconds)
    return wall, max(IDLE_FLOOR_SECONDS, min(cpu_seconds, IDLE_SECONDS))


@dataclass(frozen=True)
class Budget:
    """What one run may use: the CPU seconds of all its processes together, the wall-clock
    cap, how long it may use no CPU at all, its memory and processes, each output's cap and
    the size of a file it writes. A case's runs have the marking's; a build has its own
    (exactmark.marking.build.budget)."""
    cpu_seconds: float
    wall_seconds: float
    idle_seconds: float
    memory: int = MEMORY_BYTES
    processes: int = PROCESSES
    most_output: int = MOST_OUTPUT  # stdout's
    most_stderr: int = MOST_OUTPUT
    file_bytes: int = FILE_BYTES


def rlimits(budget: Budget, own_processes: int = None) -> list:
    """The rlimits of each process of a run: CPU time (SIGXCPU a second past the limit,
    SIGKILL a second later, each said as the time limit), memory, a file's size, open
    files, processes and no core file. A run as a user that has `own_processes` already
    may start PROCESSES more; None: no process limit (where they cannot be counted)."""
    soft = math.ceil(budget.cpu_seconds) + CPU_SECONDS_OVER_TIMEOUT
    limits = [("RLIMIT_CPU", (soft, soft + 1)), ("RLIMIT_AS", budget.memory),
              ("RLIMIT_FSIZE", budget.file_bytes), ("RLIMIT_NOFILE", OPEN_FILES)]
    if own_processes is not None:
        limits.append(("RLIMIT_NPROC", budget.processes + own_processes))
    return limits + [("RLIMIT_CORE", 0)]


def processes_of(uid: int) -> list:
    """The processes of `uid`, from Linux's /proc."""
    pids = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.stat(f"/proc/{name}").st_uid == uid:
                pids.append(int(name))
        except OSError:
            pass  # the process ended meanwhile
    return pids


def children_of(pid: int) -> list:
    """The processes whose parent is `pid`, each of its threads' (Linux's /proc)."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found  # it has ended
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                found += [int(child) for child in listing.read().split()]
        except OSError:
            pass  # the thread has ended
    return found


def descendants(pid: int) -> list:
    """Every process below `pid`, the dead ones not yet reaped among them (those a
    sandboxed run left hang below bubblewrap's first process, which adopts them)."""
    found, pending = [], [pid]
    while pending:
        children = children_of(pending.pop())
        found += children
        pending += children
    return found


def scrubbed_environment(home: str, path: str = SAFE_PATH, **extra) -> dict:
    """Only what a program needs to start: no tokens, no paths of the marker."""
    return {"PATH": path, "HOME": home, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
            **extra}


def mebibytes(count: int) -> str:
    return f"{count >> 30} GiB" if count >= 1 << 30 else f"{count >> 20} MiB"
