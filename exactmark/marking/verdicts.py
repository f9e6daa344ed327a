"""The verdict on one run of a case: what differs, said with the run's bytes escaped."""

from dataclasses import dataclass, field
from enum import Enum

from exactmark.base.visible import diff_lines, escaped, first_difference
from exactmark.marking.near_miss import NearMiss, missed, missed_on_stderr, normalise, regions
from exactmark.running.record import FILES, Limit
from exactmark.running.limits import MEMORY_BYTES, MOST_OUTPUT, WRITTEN_BYTES, mebibytes


class Kind(str, Enum):
    """What a run of a case came to; its value is the word the report, the pages and
    results.json say (a string, so that results.json and what reads it keep the word)."""
    PASS = "pass"
    FORGIVEN = "pass, forgiven"
    WRONG = "wrong output"
    WRONG_STATUS = "wrong exit status"
    WRONG_STDERR = "wrong stderr"
    CRASH = "crash"
    TIMEOUT = "timeout"
    TOO_LARGE = "output too large"
    OUT_OF_MEMORY = "out of memory"
    NOT_RUN = "not run"
    NOT_BUILT = "not built"
    MARKER_ERROR = "marker error"

    def __str__(self) -> str:
        return self.value

    @property
    def passed(self) -> bool:
        return self in (Kind.PASS, Kind.FORGIVEN)


PIPE = "stdout, stdin piped"
TERMINAL = "terminal screen"

TRACEBACK_AFTER_PASS = "but stderr ends: {line}"
STATUS_DIFFERS = "exit status {got}, want {want}"
STDERR_SAID = "; stderr ends: {line}"
STDERR_ENDS = "; exit status {status}, stderr ends: {line}"
KILLED = "killed by signal {signal}"
NO_END = "no end within the wall-clock cap of {seconds:g} s"
USED_CPU = " (it used {seconds:.1f} s of CPU)"
OVER_CPU = "over the CPU time limit of {seconds:g} s"
IDLE_DETAIL = "next to no CPU time used for {seconds:g} s: sleeping or waiting, not working"
FORGIVEN_DETAIL = "equal once {name} are ignored, at a cost of {share:.0%} of its marks"
NORMALISATION_WORDS = {"trailing_spaces": "trailing spaces", "line_ends": "\\r\\n line ends",
                       "final_newline": "the final newline", "blank_lines": "blank lines",
                       "letter_case": "letter case",
                       "variation_selectors": "variation selectors (U+FE0F)"}
A_CRASH = "a crash"
THE_TIME_LIMIT = "the time limit"
THE_SCREEN = "the screen"
THE_MEMORY_LIMIT = "the memory limit"
OVERFLOW = "{stream} over {most} "
WROTE_FILES = ("it wrote more than {most} of files, or more files than it may make, beyond "
               "its own program's: stopped there")
MEMORY = "the run went over {memory} of memory"
INTERRUPTED = "the marking was interrupted"
BUDGET_SPENT = ("budget: the cases before it used their share of the submission's CPU ({part}: "
                "{seconds:.1f} s)")
WAITED_OUT = ("budget: the cases before it waited their share of the submission's waiting ({part}: "
              "{seconds:.1f} s), sleeping or waiting, not working")
NOT_BUILT_DETAIL = "the program did not build: its build says why"


@dataclass(frozen=True)
class Verdict:
    case_id: str
    mode: str
    kind: Kind
    detail: str = ""  # escaped: safe on a terminal, in JSON and in HTML once HTML-escaped
    diff: str = ""  # drawn for a terminal
    near_miss: NearMiss = None  # how close the output came, in a sentence and its kind
    credit: float = 0.0  # the share of the case's marks it earns
    diff_lines: object = None  # exactmark.base.visible.VisibleDiff: the diff as data, for a page
    regions: tuple = ()  # a sentence per region that differs (exactmark.marking.near_miss.regions)

    @property
    def passed(self) -> bool:
        return self.kind.passed


def last_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "surrogateescape").strip().splitlines()
    return escaped(lines[-1]) if lines else ""


@dataclass(frozen=True)
class Rules:
    """How an assignment compares: what besides stdout, what it forgives at what cost,
    and the time limits, for the verdict's words."""
    compare: frozenset = frozenset({"status", "stderr"})
    normalise: dict = field(default_factory=dict)  # name -> share of the marks deducted
    cpu_seconds: float = 30.0
    wall_seconds: float = 120.0
    idle_seconds: float = 30.0
    memory_bytes: int = MEMORY_BYTES  # a run's, as the sandbox set it


def judge(case, mode: str, outcome, rules: Rules = Rules()) -> Verdict:
    """The verdict on one run (a `exactmark.running.record.Ran`; at a TERMINAL, its stdout is the screen)."""
    terminal = mode == TERMINAL
    got = outcome.stdout  # at a terminal, the screen
    want = case.screen if terminal else case.stdout
    stderr = outcome.stdout if terminal else outcome.stderr
    verdict = _limit_hit(case, mode, outcome, got, want, rules)
    if verdict is not None:
        return verdict
    status = outcome.status
    traceback = b"Traceback" in stderr and last_line(stderr)
    if got == want or _forgiven(got, want, rules):
        extra = None if terminal else _status_and_stderr(case, mode, status, stderr, rules)
        if extra is not None:
            return extra
        if got != want:
            name, share = _forgiven(got, want, rules)
            return Verdict(case.id, mode, Kind.FORGIVEN, FORGIVEN_DETAIL.format(name=name, share=share),
                           near_miss=missed(got, want), credit=1 - share,
                           **_differences(got, want, f"{case.id} ({mode})"))
        detail = TRACEBACK_AFTER_PASS.format(line=traceback) if traceback else ""
        return Verdict(case.id, mode, Kind.PASS, detail, credit=1.0)
    differences = _differences(got, want, f"{case.id} ({mode})")
    if status is not None and status != 0 and (traceback or status < 0):
        reason = traceback or KILLED.format(signal=-status)
        return Verdict(case.id, mode, Kind.CRASH, reason, near_miss=missed(got, want, A_CRASH),
                       **differences)
    line = last_line(stderr)
    said_after = bool(status and line and not terminal)  # how the run ended, after the output
    near_miss = missed(got, want, alone=not said_after)
    detail = near_miss.sentence if near_miss else first_difference(
        got.decode("utf-8", "surrogateescape"), want.decode("utf-8", "surrogateescape"))
    if said_after:
        detail += STDERR_ENDS.format(status=status, line=line)
    return Verdict(case.id, mode, Kind.WRONG, detail, near_miss=near_miss, **differences)


def _differences(got: bytes, want: bytes, label: str) -> dict:
    """The diff, drawn and as data, and a sentence per region that differs."""
    lines = diff_lines(got, want)
    return {"diff": lines.drawn(label) if lines else "", "diff_lines": lines,
            "regions": tuple(regions(got, want))}


def _limit_hit(case, mode, outcome, got, want, rules):
    if outcome.too_large and outcome.overflowed == FILES:
        return Verdict(case.id, mode, Kind.TOO_LARGE, WROTE_FILES.format(
            most=mebibytes(WRITTEN_BYTES)))
    if outcome.too_large:
        stream = THE_SCREEN if mode == TERMINAL else outcome.overflowed
        return Verdict(case.id, mode, Kind.TOO_LARGE, OVERFLOW.format(stream=stream,
                                                                 most=mebibytes(MOST_OUTPUT)))
    if outcome.timed_out:
        used = outcome.cpu_seconds
        if outcome.limit is Limit.CPU:
            detail = OVER_CPU.format(seconds=rules.cpu_seconds)
        elif outcome.limit is Limit.IDLE:
            detail = IDLE_DETAIL.format(seconds=rules.idle_seconds)
        else:
            detail = NO_END.format(seconds=rules.wall_seconds) + (
                USED_CPU.format(seconds=used) if used is not None else "")
        return Verdict(case.id, mode, Kind.TIMEOUT, detail,
                       near_miss=missed(got, want, THE_TIME_LIMIT),
                       **_differences(got, want, case.id))
    if outcome.out_of_memory and got != want:
        return Verdict(case.id, mode, Kind.OUT_OF_MEMORY, MEMORY.format(memory=mebibytes(rules.memory_bytes)),
                       near_miss=missed(got, want, THE_MEMORY_LIMIT),
                       **_differences(got, want, case.id))
    return None


def _status_and_stderr(case, mode, status, stderr, rules):
    """A wrong exit status or stderr, where the case gives one and the assignment compares it.
    A wrong status says how stderr ends (a traceback there is usually why) and, where the
    case gives its stderr and it differs too, shows that diff."""
    stderr_differs = case.stderr is not None and stderr != case.stderr
    if "status" in rules.compare and case.status is not None and status != case.status:
        line = last_line(stderr)
        detail = STATUS_DIFFERS.format(got=status, want=case.status) + (
            STDERR_SAID.format(line=line) if line else "")
        return Verdict(case.id, mode, Kind.WRONG_STATUS, detail,
                       **(_differences(stderr, case.stderr, f"{case.id} (stderr)")
                          if stderr_differs else {}))
    if "stderr" in rules.compare and stderr_differs:
        differences = _differences(stderr, case.stderr, f"{case.id} (stderr)")
        near_miss = missed_on_stderr(stderr, case.stderr)
        return Verdict(case.id, mode, Kind.WRONG_STDERR, near_miss.sentence if near_miss
                       else differences["diff"].splitlines()[0].partition(": ")[2],
                       near_miss=near_miss, **differences)
    return None


def _forgiven(got: bytes, want: bytes, rules: Rules):
    """(name, share deducted) of the cheapest normalisation the assignment allows under
    which the outputs are equal; all of them together as a last resort; else None."""
    for name, share in sorted(rules.normalise.items(), key=lambda item: item[1]):
        if normalise(got, [name]) == normalise(want, [name]):
            return NORMALISATION_WORDS[name], share
    names = list(rules.normalise)
    if len(names) > 1 and normalise(got, names) == normalise(want, names):
        return (" and ".join(NORMALISATION_WORDS[name] for name in names),
                min(1.0, sum(rules.normalise.values())))
    return None


def how(verdict) -> str:
    """What the report says of a verdict: what happened, then how close it came (a wrong
    output's detail is that sentence already)."""
    if verdict.kind in (Kind.WRONG, Kind.WRONG_STDERR):
        return verdict.detail
    near_miss = verdict.near_miss.sentence if verdict.near_miss else ""
    return "; ".join(part for part in (verdict.detail, near_miss) if part)
