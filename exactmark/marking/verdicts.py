"""The verdict on one run of a case: what differs, said with the run's bytes escaped."""

import hashlib
import re
from dataclasses import dataclass, field, replace
from enum import Enum

from exactmark.base.visible import (SPACING, TERMINAL_SPACING, diff_lines, escaped,
                                    first_difference)
from exactmark.diagnosis import evidence
from exactmark.marking.near_miss import NearMiss, missed, missed_on_stderr, normalise, regions
from exactmark.running.record import FILES, STDERR, Limit
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
ERROR_AT = "{error} ({file}, line {line})"  # Python's error, where its report places it
STATUS_DIFFERS = "exit status {got}, want {want}"
STDERR_SAID = "; stderr ends: {line}"
STDERR_ENDS = "; exit status {status}, stderr ends: {line}"
# After a wrong output, each other comparison that failed too
STATUS_TOO = "; and exit status {got}, want {want}"
STDERR_TOO = "; and its stderr differs from the case's"
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
OVERFLOW = "{stream} over {most}, stopped there"
REPEATING = ", repeating {line}{more} again and again"
QUOTED = '"{line}"'
A_BLANK_LINE = "a blank line"
BLANK_LINE = "(a blank line)"  # as a line shown
REPEATING_MORE = " and the {count} line{s} after it"
READ_ALL = "; it had read all its input and went on after end of input"
NOT_ALL_READ = "; it had not read all its input yet"
FIRST_LINES_SAID = "its first lines:"
LINES_BETWEEN = "  … {count} more line{s}"
THEN_AGAIN = "then, from line {line} on, again and again:"
WROTE_FILES = ("it wrote more than {most} of files, or more files than it may make, beyond "
               "its own program's: stopped there")
MEMORY = "the run went over {memory} of memory"
INTERRUPTED = "the marking was interrupted"
BUDGET_SPENT = ("budget: the cases before it used their share of the submission's CPU ({part}: "
                "{seconds:.1f} s)")
WAITED_OUT = ("budget: the cases before it waited their share of the submission's waiting ({part}: "
              "{seconds:.1f} s), sleeping or waiting, not working")
NOT_BUILT_DETAIL = "the program did not build: its build says why"


# What an output stopped for size shows: its first lines, the last before what its end
# repeats, and the lines it repeats: the shortest block, at most MOST_BLOCK bytes, that its
# last TAIL_BYTES repeat REPEATS times or more. Each line cut to SHOWN_CHARS.
FIRST_LINES = 10
LAST_LINES = 5
REPEATED_LINES = 10
SHOWN_CHARS = 200
TAIL_BYTES = 1 << 16
MOST_BLOCK = 4096
REPEATS = 3
BACK_STEP = 1 << 16  # bytes compared at a time, looking back for where the repeating began
REPRODUCE_MARGIN = 5  # seconds a timeout's reproduce command gives a run beyond its limit
DIGEST_DIGITS = 16  # hex digits of sha256 that name what a run wrote: 2**64, no clash in a kit


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
    runaway: tuple = ()  # an output stopped for size: its first lines and what it repeated,
    # escaped, as lines to show (`runaway_lines`)
    bound: float = None  # a run stopped for its time: the seconds its reproduce command
    # gives it (the limit and REPRODUCE_MARGIN), so that the command ends by itself
    # Of a failed run (exactmark.diagnosis.evidence), what a diagnosis sets against a wrong
    # program's: the digest of its stdout, and the expected output's lines it changed, as
    # ranges; "" and () for a pass or no run.
    digest: str = ""
    lines: tuple = ()

    @property
    def passed(self) -> bool:
        return self.kind.passed


def last_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "surrogateescape").strip().splitlines()
    return escaped(lines[-1]) if lines else ""


# Python's report of an error: a traceback's frames, or a SyntaxError's one place, each a
# `File "...", line N` line; then the error's name and message on the last line. A place
# in Python's own library (or frozen in the interpreter) is no line of the program's.
PYTHON_PLACE = re.compile(r'^ *File "(.*)", line ([0-9]+)')
PYTHONS_OWN = re.compile(r"^<|/lib/python[0-9.]*/")
PYTHON_ERROR = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b")


def python_error(stderr: bytes) -> str:
    """What a Python program's stderr says of the error that ended it, escaped: its last
    line, and the file (its name alone: the folder a run is in differs from run to run)
    and line of the last place it names in the program's files (a SyntaxError has no
    "Traceback" line, only its place); "" when stderr holds no such report."""
    lines = stderr.decode("utf-8", "surrogateescape").strip().splitlines()
    places = [found for found in map(PYTHON_PLACE.match, lines) if found]
    traceback = any(line.startswith("Traceback") for line in lines)
    if not (traceback or (places and PYTHON_ERROR.match(lines[-1]))):
        return ""
    places = [found for found in places if not PYTHONS_OWN.search(found[1])]
    error = escaped(lines[-1])
    if not places:
        return error
    file, line = places[-1].groups()
    return ERROR_AT.format(error=error, file=escaped(file.rpartition("/")[2]), line=line)


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


def digest(output: bytes) -> str:
    """What a run wrote, named: two programs' wrong outputs compared without keeping them."""
    return hashlib.sha256(output).hexdigest()[:DIGEST_DIGITS]


def judge(case, mode: str, outcome, rules: Rules = Rules()) -> Verdict:
    """The verdict on one run (a `exactmark.running.record.Ran`; at a TERMINAL, its stdout is
    the screen), with the digest of that stdout and the lines it changed when it did not
    pass."""
    verdict = _judged(case, mode, outcome, rules)
    if verdict.kind is Kind.PASS:
        return verdict
    return replace(verdict, digest=digest(outcome.stdout),
                   lines=evidence.changed_lines(outcome.stdout, expected(case, mode) or b""))


def expected(case, mode: str) -> bytes:
    """What the run must print: at a TERMINAL, the screen."""
    return case.screen if mode == TERMINAL else case.stdout


def _judged(case, mode: str, outcome, rules: Rules) -> Verdict:
    terminal = mode == TERMINAL
    got = outcome.stdout  # at a terminal, the screen
    want = expected(case, mode)
    stderr = outcome.stdout if terminal else outcome.stderr
    verdict = _limit_hit(case, mode, outcome, got, want, rules)
    if verdict is not None:
        return verdict
    status = outcome.status
    traceback = python_error(stderr)
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
                       **(differences if got else {}))  # no diff against nothing printed
    line = last_line(stderr)
    status_differs = (not terminal and "status" in rules.compare and case.status is not None
                      and status != case.status)
    stderr_differs = (not terminal and "stderr" in rules.compare and case.stderr is not None
                      and stderr != case.stderr)
    said_after = bool(status and line and not terminal)  # how the run ended, after the output
    near_miss = missed(got, want, alone=not (said_after or status_differs or stderr_differs))
    detail = near_miss.sentence if near_miss else first_difference(
        got.decode("utf-8", "surrogateescape"), want.decode("utf-8", "surrogateescape"))
    if status_differs:
        detail += STATUS_TOO.format(got=status, want=case.status) + (
            STDERR_SAID.format(line=line) if line else "")
    elif said_after:
        detail += STDERR_ENDS.format(status=status, line=line)
    if stderr_differs:
        detail += STDERR_TOO
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
        return _too_large(case, mode, outcome)
    if outcome.timed_out:
        used = outcome.cpu_seconds
        if outcome.limit is Limit.CPU:
            limit, detail = rules.cpu_seconds, OVER_CPU.format(seconds=rules.cpu_seconds)
        elif outcome.limit is Limit.IDLE:
            limit, detail = rules.idle_seconds, IDLE_DETAIL.format(seconds=rules.idle_seconds)
        else:
            limit, detail = rules.wall_seconds, NO_END.format(seconds=rules.wall_seconds) + (
                USED_CPU.format(seconds=used) if used is not None else "")
        if outcome.read_all_input is not None:
            detail += READ_ALL if outcome.read_all_input else NOT_ALL_READ
        return Verdict(case.id, mode, Kind.TIMEOUT, detail,
                       near_miss=missed(got, want, THE_TIME_LIMIT),
                       bound=limit + REPRODUCE_MARGIN, **_differences(got, want, case.id))
    if outcome.out_of_memory and got != want:
        return Verdict(case.id, mode, Kind.OUT_OF_MEMORY, MEMORY.format(memory=mebibytes(rules.memory_bytes)),
                       near_miss=missed(got, want, THE_MEMORY_LIMIT),
                       **_differences(got, want, case.id))
    return None


def _too_large(case, mode, outcome) -> Verdict:
    """An output stopped at its cap: which one, what its end repeated, whether it had read
    all its input by then; and its first lines and the lines it repeated, to show."""
    stream = THE_SCREEN if mode == TERMINAL else outcome.overflowed
    output = outcome.stderr if outcome.overflowed == STDERR else outcome.stdout
    start, block = repeated(output)
    detail = OVERFLOW.format(stream=stream, most=mebibytes(MOST_OUTPUT))
    lines = shown_lines(block)
    if lines:
        more = len(lines) - 1
        detail += REPEATING.format(
            line=A_BLANK_LINE if lines[0] == BLANK_LINE else QUOTED.format(line=lines[0]),
            more=REPEATING_MORE.format(count=more, s="s" * (more != 1)) if more else "")
    if outcome.read_all_input is not None:
        detail += READ_ALL if outcome.read_all_input else NOT_ALL_READ
    return Verdict(case.id, mode, Kind.TOO_LARGE, detail,
                   runaway=runaway_lines(output, start, block))


def repeated(output: bytes) -> tuple:
    """(where it begins, the block) of what the end of `output` repeats: the shortest block
    its last bytes repeat REPEATS times or more, from where the repeating begins, moved on
    to the start of a line when the block holds a line's end (the lines it repeats, whole);
    (len(output), b"") when its end repeats no block."""
    tail = output[-TAIL_BYTES:]
    for size in range(1, min(MOST_BLOCK, len(tail) // REPEATS) + 1):
        span = REPEATS * size
        if tail[-span:-size] == tail[-span + size:]:
            break
    else:
        return len(output), b""
    start = len(output) - span
    while start > 0:  # back a step at a time while the bytes a block apart agree
        step = min(BACK_STEP, start)
        if output[start - step:start] == output[start - step + size:start + size]:
            start -= step
            continue
        while start > 0 and output[start - 1] == output[start - 1 + size]:
            start -= 1
        break
    if b"\n" in output[start:start + size]:
        while start and output[start - 1] != ord("\n"):
            start += 1
    return start, output[start:start + size]


def shown_lines(data: bytes) -> list:
    """`data`'s lines (a last one without its end too), each escaped and cut to SHOWN_CHARS,
    its trailing spaces and tabs drawn as a diff draws them, a blank one said."""
    lines = data.split(b"\n")
    shown = [escaped(line, SHOWN_CHARS) for line in lines[:-1] + [lines[-1]] * bool(lines[-1])]
    return [text.rstrip(SPACING) + text[len(text.rstrip(SPACING)):].translate(TERMINAL_SPACING)
            if text else BLANK_LINE for text in shown]


def runaway_lines(output: bytes, start: int, block: bytes) -> tuple:
    """What an output stopped for size shows: its first FIRST_LINES lines and the
    LAST_LINES before the block its end repeats (how many are between), then that block,
    its first REPEATED_LINES lines, from the line where the repeating began; or without
    a block, its first lines. No more of the output than those lines is split out."""
    first_end = 0
    for _ in range(FIRST_LINES):
        end = output.find(b"\n", first_end, start)
        first_end = start if end < 0 else end + 1
    last_start = start
    for _ in range(LAST_LINES if block else 0):
        last_start = output.rfind(b"\n", 0, max(0, last_start - 1)) + 1
    last_start = max(first_end, last_start)
    between = output.count(b"\n", first_end, last_start)
    shown = [FIRST_LINES_SAID] * bool(start) + [
        f"  {line}" for line in shown_lines(output[:first_end])]
    if between:
        shown.append(LINES_BETWEEN.format(count=between, s="s" * (between != 1)))
    shown += [f"  {line}" for line in shown_lines(output[last_start:start])]
    if block:
        shown.append(THEN_AGAIN.format(line=output.count(b"\n", 0, start) + 1))
        lines = shown_lines(block)
        shown += [f"  {line}" for line in lines[:REPEATED_LINES]]
        if len(lines) > REPEATED_LINES:
            left = len(lines) - REPEATED_LINES
            shown.append(LINES_BETWEEN.format(count=left, s="s" * (left != 1)))
    return tuple(shown)


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
