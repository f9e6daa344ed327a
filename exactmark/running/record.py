"""What one run of a program came to: what it wrote and how it ended. Apart from the
code that runs programs, so that each floor above (the terminal, the sandbox, the
verdicts) reads the same record without importing the others."""

from dataclasses import dataclass
from enum import Enum

# Ran.overflowed: what went over its cap, with Limit.OUTPUT
STDOUT, STDERR = "stdout", "stderr"
SCREEN = "screen"  # at a terminal, stdout and stderr together
FILES = "files"  # a run stopped over its share of the disk (exactmark.sandbox.disk)


class Limit(Enum):
    """What ended a run that did not end by itself."""
    CPU = "cpu"  # the CPU seconds of all its processes together
    IDLE = "idle"  # next to no CPU time used for too long: waiting, not working
    WALL = "wall"  # the wall-clock cap (a timeout, where nothing counts CPU time)
    OUTPUT = "output"  # an output over its cap: `Ran.overflowed` says which


@dataclass(frozen=True)
class Ran:
    """One run of a program, piped or at a terminal, sandboxed or not: what it wrote and
    how it ended. At a terminal `stdout` is the screen, stdout and stderr together."""
    stdout: bytes
    stderr: bytes = b""
    status: int = None  # the exit status, -N when killed by signal N; None when stopped
    limit: Limit = None  # the limit that ended it, if one did
    overflowed: str = ""  # with Limit.OUTPUT: STDOUT, STDERR, SCREEN or FILES
    out_of_memory: bool = False  # its control group killed a process for want of memory
    cpu_seconds: float = None  # its CPU time, where that is known
    read_past_input: bool = False  # at a terminal: it asked for more after the last line
    read_all_input: bool = None  # it had read all of its stdin (True) when it went over an
    # output cap, else when it ended or was stopped for its time; some was still unread
    # (False); or that is not known (None)

    @property
    def timed_out(self) -> bool:
        return self.limit in (Limit.CPU, Limit.IDLE, Limit.WALL)

    @property
    def too_large(self) -> bool:
        return self.limit is Limit.OUTPUT
