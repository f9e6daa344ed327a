"""The verdict on one run of a case: what differs, said with the run's bytes escaped."""

from dataclasses import dataclass

from golden.visible import escaped, first_difference, visible_diff
from marking.sandbox import MEMORY_BYTES, MOST_OUTPUT, mebibytes

PASS = "pass"
WRONG = "wrong output"
WRONG_STATUS = "wrong exit status"
WRONG_STDERR = "wrong stderr"
CRASH = "crash"
TIMEOUT = "timeout"
TOO_LARGE = "output too large"
OUT_OF_MEMORY = "out of memory"
NOT_RUN = "not run"
MARKER_ERROR = "marker error"

PIPE = "stdout, stdin piped"
TERMINAL = "terminal screen"

TRACEBACK_AFTER_PASS = "but stderr ends: {line}"
STATUS_DIFFERS = "exit status {got}, want {want}"
STDERR_ENDS = "; exit status {status}, stderr ends: {line}"
KILLED = "killed by signal {signal}"
NO_END = "no end in {seconds:g} s"
OVERFLOW = "{stream} over {most} "
MEMORY = "the run went over {memory} of memory"
INTERRUPTED = "the marking was interrupted"


@dataclass(frozen=True)
class Verdict:
    case_id: str
    mode: str
    kind: str
    detail: str = ""  # escaped: safe on a terminal, in JSON and in HTML once HTML-escaped
    diff: str = ""

    @property
    def passed(self) -> bool:
        return self.kind == PASS


def last_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "surrogateescape").strip().splitlines()
    return escaped(lines[-1]) if lines else ""


def judge(case, mode: str, outcome, timeout: float) -> Verdict:
    """The verdict on one run (an `Outcome`, or a terminal `Screen` for TERMINAL)."""
    terminal = mode == TERMINAL
    got = outcome.output if terminal else outcome.stdout
    want = case.screen if terminal else case.stdout
    stderr = outcome.output if terminal else outcome.stderr
    if outcome.too_large:
        stream = "the screen" if terminal else outcome.too_large
        return Verdict(case.id, mode, TOO_LARGE, OVERFLOW.format(stream=stream,
                                                                 most=mebibytes(MOST_OUTPUT)))
    if outcome.timed_out:
        return Verdict(case.id, mode, TIMEOUT, NO_END.format(seconds=timeout))
    if getattr(outcome, "out_of_memory", False) and got != want:
        return Verdict(case.id, mode, OUT_OF_MEMORY, MEMORY.format(memory=mebibytes(MEMORY_BYTES)))
    status = outcome.status
    traceback = b"Traceback" in stderr and last_line(stderr)
    if got == want:
        if not terminal and case.status is not None and status != case.status:
            return Verdict(case.id, mode, WRONG_STATUS, STATUS_DIFFERS.format(got=status,
                                                                               want=case.status))
        if not terminal and case.stderr is not None and stderr != case.stderr:
            diff = visible_diff(stderr, case.stderr, f"{case.id} (stderr)")
            return Verdict(case.id, mode, WRONG_STDERR, diff.splitlines()[0].partition(": ")[2],
                           diff)
        detail = TRACEBACK_AFTER_PASS.format(line=traceback) if traceback else ""
        return Verdict(case.id, mode, PASS, detail)
    diff = visible_diff(got, want, f"{case.id} ({mode})")
    if status is not None and status != 0 and (traceback or status < 0):
        reason = traceback or KILLED.format(signal=-status)
        return Verdict(case.id, mode, CRASH, reason, diff)
    detail = first_difference(got.decode("utf-8", "surrogateescape"),
                              want.decode("utf-8", "surrogateescape"))
    line = last_line(stderr)
    if status and line and not terminal:
        detail += STDERR_ENDS.format(status=status, line=line)
    return Verdict(case.id, mode, WRONG, detail, diff)
