"""Mark a submission against an assignment: `make mark SUBMISSION=DIR ASSIGNMENT=NAME`.

    exactmark mark DIR --assignment NAME|FILE.toml [--tty] [--jobs N] [--json FILE]
                   [--submitted TIME [--due TIME | --extension TEXT]
                    [--late-days-left N]] [--only GLOB]... [--timeout S]
                   [--python PATH] [--isolation auto|namespaces|fallback]
                   [--student-budget S [--waiting-budget S]] [--reuse RESULTS_JSON]
                   [--student NAME] [--overrides CSV]

The assignment (one of the kit's by its NAME, or an assignment file of your own) says which golden cases count and what
each is worth. The submission is copied once, before any of its code runs,
into a folder only the marker can read (a folder holding just one folder, as a
download from a learning platform does, is entered); every marked case of each
program runs against a fresh copy in a sandbox (its own processes, files and
limits, no network: --check-isolation says which layers this machine has), stdin
piped, stdout compared byte for byte, and the exit status and stderr where the
case gives them (--tty: the terminal screen too). Exit status
0 only when every program is there and every case marked passes, else 1; 2 for a
refused submission or option; 3 when the marker failed on a case; 130 when
interrupted (Ctrl-C kills every run and prints what was marked). With --overrides,
the rows of the file naming --student change the marks after the marking (the report
says each; the exit status stays the marking's). --reuse keeps the verdicts of an
earlier marking's results.json for the cases whose files, program declaration and
submission are unchanged. An assignment's fresh cases (kind = "fresh" groups) are drawn
for --student, else for the name of the submission's folder, and what each expects is
made by the reference in the sandbox before the cases run.
"""

import argparse
import fnmatch
import importlib.util
import os
import signal
import stat
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import closing, contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT, STATS_FILE, STATS_VARIABLE
from exactmark.running.record import Limit
from exactmark.base.visible import escaped
from exactmark.base import from_make, messages, streams
from exactmark.base.exits import Exit
from exactmark.kit import written_cases
from exactmark.diagnosis import known
from exactmark.marking import fresh_cases, overrides, records, request, reuse, student_cases
from exactmark.kit.assignment import COUNTS, REQUIREMENTS, AssignmentError, load, names
from exactmark.kit.late import Terms, countable, extended, extension_of, instant
from exactmark.running.limits import Budget
from exactmark.marking.report import CaseResult, Results, check_json_target, gradescope, refused, \
    diagnosed, write_json, write_report
from exactmark.sandbox.errors import Stopped
from exactmark.sandbox.sandbox import AUTO, CASE, FALLBACK, NAMESPACES, STUDENT, Sandbox
from exactmark.kit.submission import marked_folder, skip_reason, why_missing
from exactmark.base.tree import Limits, Refused, copy_tree, remove_tree
from exactmark.marking.build import build
from exactmark.marking.verdicts import (BUDGET_SPENT, INTERRUPTED, NOT_BUILT_DETAIL, PIPE, TERMINAL,
                              WAITED_OUT, Kind, Rules, Verdict, judge)

UNBUILT_DETAILS = {Kind.NOT_BUILT: NOT_BUILT_DETAIL, Kind.NOT_RUN: INTERRUPTED,
                   Kind.MARKER_ERROR: NOT_BUILT_DETAIL}

MOST_SECONDS = 3600
PYTHON_RUN = "{python}"  # in a language's run command: the sandbox's interpreter (languages.toml)

MARKING = "Marking {submission} against {assignment}: {title} ({marks:.2f} marks)"
RUNS = "{cases} cases, {jobs} at once"
WRITTEN = "and the cases the student wrote, of {groups}"
BUDGET = ("A budget of {seconds:g} s of CPU, and {waiting:g} s of waiting, for all the cases "
          "together, shared in proportion to marks ({shares}): what one part leaves is not "
          "another's; most marks run first")
SHARE = "{part} {share:.0%}"
SESSIONS_REFUSED = "A sandbox per student could not be made here ({why}): each case had its own"
WAITING_SECONDS = 30  # with a budget, unless --waiting-budget says: what a submission's cases
# may spend sleeping, all together
# With a budget, each part's runs go in two passes, most marks first in each: the first
# gives every run FIRST_PASS_SECONDS of CPU, or FIRST_PASS_FRACTION of the limit where that
# is more (never above the limit), so that a program that spins in some cases is decided on
# all the others before its spinning runs spend the budget; the second runs again, from
# scratch and with the whole limit, those the first pass's cap stopped, while the budget
# lasts. The marker cannot know what each case needs; the limit, which an assignment sets
# well above what an honest program needs, stands in for it. An honest program needs a
# second or less of CPU in a case (the seeded and calculation_cpp samples: under 0.1 s
# each), and CPU time, unlike wall-clock time, hardly grows on a loaded machine: 3 s leaves
# a slow one ten times its need, and one that needs more still gets its whole limit in the
# second pass, at the cost of those 3 s more.
FIRST_PASS_SECONDS = 3
FIRST_PASS_FRACTION = 0.1
ENTERED = "The submission folder holds one folder, {name}: marking what it holds"
LEFT_OUT = "Left out of the copy: {what}"
GOLDEN_READABLE = ("warning: other users can read {path}, and in the fallback a submission runs "
                   "as another user: for real marking, mark from a copy only you can read")
RUNS_AS_YOU = ("warning: without namespaces and without root, the submission runs as you and can "
               "read all you can, the golden outputs included: fine for checking your own work, "
               "not for marking")
FILES_OPEN = ("warning: neither namespaces nor Landlock hide files here ({why}): each run can "
              "read every file that all users may read")
LAYERS_MISSING = ("this machine cannot give each run {layers}, which this marking requires; "
                  "it has: {isolation}")
NO_SUBMISSION = "give the folder to mark: make mark SUBMISSION=DIR ASSIGNMENT=NAME"
NO_ASSIGNMENT = ("say which assignment to mark against: --assignment NAME|FILE.toml "
                 "(make mark ASSIGNMENT=NAME|FILE.toml); the assignments are: {names}")
NOTHING_MATCHES = "no case of {assignment} matches {patterns}"
BAD_TIME = "{option}: {text!r} is not a date and time such as 2027-03-11T14:30"
NO_DEADLINE = "{option}: {name} has no deadline, so no late rule to apply"
DUE_AND_EXTENSION = ("--due and --extension together: give one (the student's own due date, "
                     "or an extension of the deadline)")
OPTION_PROBLEM = "{option}: {problem}"
NO_LATE_DAYS = "--late-days-left: {name} has no late days ([late_days]) to spend"
NEEDS_PEXPECT = "--tty needs pexpect (make mark installs it)"
JSON_PROBLEM = "--json: {problem}"
REUSE_WITH_BUDGET = ("--reuse with --student-budget: a kept case's time would not count against "
                     "the budget, so the cases it cuts could differ from a whole marking's; "
                     "mark whole (without --reuse)")
WAITING_ALONE = "--waiting-budget shares a budget: give --student-budget too"
BAD_REQUEST = f"{request.REQUEST} cannot be read as a request: {{problem}}"
PROGRESS = "[{done}/{total}] {kind:<16} {case}"
BUILD_PROGRESS = "[build] {program}: {said}"
GROUP_MARKED = "marked"  # a group of the student's cases, as a progress record says it
OVERRIDES_ALONE = "--overrides needs --student: whose rows of the file to apply"
OVERRIDES_OF = "Overrides of {student}, from {path}:"
OVERRIDE_LINE = "  {said}"
OVERRIDDEN_MARK = "Mark, overridden: {mark:.2f}/{total:.2f}"
EXAMPLE = "example: exactmark mark path/to/student --assignment seeded --jobs 2"


def reachable_by_others(path: Path) -> bool:
    """Whether another user could open `path`: every folder above it open to others
    (a 0711 folder is: names can be guessed), and the path itself readable."""
    try:
        if not all(os.stat(folder).st_mode & stat.S_IXOTH for folder in path.parents):
            return False
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_IXOTH if stat.S_ISDIR(mode) else stat.S_IROTH))


def golden_copies_readable(root: Path = ROOT) -> list:
    """What of the golden outputs another user could read: a case file, or git's copy."""
    found = []
    case_file = next((path for path in EXPECTED_OUTPUTS.glob("*/*.out")), None)
    if case_file and reachable_by_others(case_file.parent) and reachable_by_others(case_file):
        found.append(EXPECTED_OUTPUTS)
    git = root / ".git"
    if reachable_by_others(git) and reachable_by_others(git / "HEAD"):
        found.append(git)
    return found


def seconds(text: str) -> float:
    value = float(text)
    if not 0 < value <= MOST_SECONDS:
        raise argparse.ArgumentTypeError(f"a number of seconds above 0, up to {MOST_SECONDS}")
    return value


def days_left(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("a number of days from 0")
    return value


def jobs(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError("a number of cases from 1 to 64")
    return value


class Parser(argparse.ArgumentParser):
    """argparse's, whose refusals also reach the process that started the marker."""

    def error(self, message: str):
        messages.send(messages.Refusal(message))
        super().error(message)


def parser() -> argparse.ArgumentParser:
    parse = Parser(prog="exactmark mark", description=__doc__, epilog=EXAMPLE,
                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("submission", type=Path, nargs="?",
                       help="the folder of the student's programs (unpack an archive first, "
                            "or mark it with exactmark class)")
    parse.add_argument("--assignment", metavar="NAME|FILE.toml",
                       help=f"one of: {', '.join(names())}; or the path of an assignment file "
                            "of your own, FILE.toml")
    parse.add_argument("--tty", action="store_true",
                       help="also compare the terminal screens (NAME.tty): a screen shows "
                            "stderr too, so a line on stderr changes it whatever the case's "
                            "compare")
    parse.add_argument("--jobs", type=jobs, default=1, help="cases run at once")
    parse.add_argument("--timeout", type=seconds,
                       help="CPU seconds per case, instead of the assignment's")
    parse.add_argument("--json", type=Path, help="write Gradescope's results.json here")
    parse.add_argument("--submitted", metavar="TIME",
                       help="when it was submitted (ISO 8601; the assignment's time zone unless "
                            "it says one): applies the late rule")
    parse.add_argument("--due", metavar="TIME",
                       help="the student's own due date (ISO 8601, as --submitted): the late "
                            "rule counts from it")
    parse.add_argument("--extension", metavar="TEXT",
                       help="the student's extension of the deadline, as \"3 days\", \"36 "
                            "hours\" or \"1 day 12 hours\" (elapsed time)")
    parse.add_argument("--late-days-left", type=days_left, metavar="N",
                       help="the term's late days ([late_days]) left to the student before "
                            "this assignment (default: the whole bank, and the report says so)")
    parse.add_argument("--python", help="interpreter that runs the submission")
    parse.add_argument("--named", metavar="NAME",
                       help="what the report calls the submission when the folder marked is a "
                            "copy of it that will be gone (the class marker's: the student's "
                            "entry)")
    parse.add_argument("--only", metavar="GLOB", action="append",
                       help="only the cases whose PROGRAM/NAME matches (may be given again); "
                            "the total stays the assignment's")
    parse.add_argument("--isolation", choices=[AUTO, NAMESPACES, FALLBACK], default=AUTO,
                       help="namespaces where the machine allows them (auto), always "
                            "(namespaces: refuse to mark without), or never (fallback)")
    parse.add_argument("--require", action="append", default=[], metavar="LAYER",
                       choices=sorted(REQUIREMENTS),
                       help="refuse to mark unless each run has it, besides what the "
                            f"assignment requires: {', '.join(sorted(REQUIREMENTS))}")
    parse.add_argument("--markers", type=jobs, default=1, metavar="N",
                       help="markers sharing this machine's (or container's) memory, this one "
                            "included: make mark-class passes its --jobs")
    parse.add_argument("--sandbox-per", choices=[STUDENT, CASE], default=STUDENT,
                       help="one sandbox for each program's cases, one after another, each "
                            "with a fresh home, /tmp and processes (student), or a fresh "
                            "sandbox for every case (case: for a disputed mark)")
    parse.add_argument("--student-budget", type=seconds, metavar="S",
                       help="CPU seconds all the submission's cases may use together, shared "
                            "by its programs and the counts of its groups of cases in "
                            "proportion to their marks: past its share, a part's cases left "
                            "are not run (most marks run first)")
    parse.add_argument("--waiting-budget", type=seconds, metavar="S",
                       help="with --student-budget: the seconds its cases may spend waiting "
                            f"(ended idle or at the wall-clock cap), shared alike (default "
                            f"{WAITING_SECONDS})")
    parse.add_argument("--overrides", metavar="CSV",
                       help="marks a person corrects (columns student, what, mark, reason, "
                            "who): the rows naming --student applied after the marking")
    parse.add_argument("--student", metavar="NAME",
                       help="whose submission it is, a name or a platform's id: whose rows of "
                            "--overrides to apply, and whose fresh cases are drawn (default: "
                            "the name of the submission's folder)")
    parse.add_argument("--reuse", type=Path, metavar="RESULTS_JSON",
                       help="an earlier marking's results.json of this submission (your own, "
                            "never a student's): the cases whose files, program declaration "
                            "and submission are unchanged keep its verdicts, not run again; "
                            "marks and visibility are the assignment's as it is now")
    parse.add_argument("--check-isolation", action="store_true",
                       help="say what would confine each run here, and mark nothing: exit "
                            "status 0 when the assignment's and --require's layers are there, "
                            "2 when one is missing")
    return parse


@dataclass
class Share:
    """One part of a submission's runs (a program's golden cases, or one count of a group of
    the cases a student wrote: the reference's runs, the wrong programs', the student's
    program's) and its share of the budget: CPU seconds, and seconds of waiting."""
    part: str
    cpu: float
    waiting: float
    spent: float = 0.0  # CPU seconds of its runs so far
    waited: float = 0.0  # wall seconds of those that ended idle or at the wall-clock cap


def first_pass_cap(cpu_seconds: float) -> float:
    """The CPU seconds of a run's first pass, where its limit is `cpu_seconds`: no less than
    the limit means no second pass."""
    return min(cpu_seconds, max(FIRST_PASS_SECONDS, FIRST_PASS_FRACTION * cpu_seconds))


def first_pass_budget(budget: Budget):
    """What a run may use in the first pass, or None where its cap is the whole limit: the
    CPU cap and the wall-clock cap cut in the same proportion, the idle allowance as it is,
    since a run that ends idle in the first pass is judged there."""
    cap = first_pass_cap(budget.cpu_seconds)
    if cap >= budget.cpu_seconds:
        return None
    return replace(budget, cpu_seconds=cap,
                   wall_seconds=max(budget.idle_seconds,
                                    budget.wall_seconds * cap / budget.cpu_seconds))


def undecided(result) -> bool:
    """Whether the first pass's cap stopped a run of `result` (a Verdict, or a CaseResult)."""
    return result is None or any(verdict is None for verdict in getattr(result, "verdicts", ()))


def budget_parts(cases: dict, groups: dict, present: dict) -> dict:
    """part -> its marks: each present program's `cases` (golden, those marked), and each
    count of each of its `groups` of cases a student wrote (own code where it is present)."""
    parts = {program: sum(marked.marks for marked in chosen)
             for program, chosen in cases.items() if chosen and present[program]}
    for program, chosen in groups.items():
        for group in chosen:
            for count in COUNTS:
                if count != "own_code" or present[program]:
                    parts[student_cases.part(program, group, count)] = group.marks[count]
    return parts


def shares(parts: dict, cpu: float, waiting: float) -> dict:
    """part -> its Share of `cpu` and `waiting` seconds, in proportion to its marks. A part
    worth none weighs as the least that is worth some: a group's reference runs decide its
    other counts, whatever the valid count is worth."""
    least = min((marks for marks in parts.values() if marks > 0), default=1.0)
    weights = {part: marks if marks > 0 else least for part, marks in parts.items()}
    total = sum(weights.values())
    return {part: Share(part, cpu * weight / total, waiting * weight / total)
            for part, weight in weights.items()}


class Marking:
    """One marking run: its cases, the sandbox, and what Ctrl-C must stop. Each program's
    cases run from its snapshot: the submission, or the program its build made; in the
    sessions of `sessions` (a sandbox per student and program) or, without, a fresh sandbox
    each. With a `budget` (part -> Share), a run starts only while its part's runs before
    it have used less than its share of CPU seconds, and have waited (ended idle, or at the
    wall-clock cap) less than its share of waiting: a sleeper uses no CPU, yet holds the
    class up. What a part leaves is not handed to another: which runs the budget cuts
    depends on their own part's runs alone, the same every time, and a program that hangs
    costs its own cases, never another program's or another count's. Within a part, the
    runs go in two passes (`two_passes`, FIRST_PASS_SECONDS): the first pass's capped
    runs, then those its cap stopped again with their whole limits."""

    def __init__(self, sandbox: Sandbox, snapshots: dict, programs: dict, modes: list, rules_of,
                 builds: dict = None, sessions: "Sessions" = None, budget: dict = None):
        self.sandbox, self.snapshots, self.programs = sandbox, snapshots, programs
        self.modes, self.rules_of, self.builds = modes, rules_of, builds or {}
        self.sessions, self.budget = sessions, budget
        self.first_pass = first_pass_budget(sandbox.budget)
        self._lock = threading.Lock()

    def case(self, marked, part: str = None, first: bool = False,
             earlier: CaseResult = None) -> CaseResult:
        """The case marked in each mode; `first`: in the first pass, where a verdict the
        first pass's cap stopped is None; `earlier`: the first pass's result, whose verdicts
        stand."""
        built = self.builds.get(marked.case.program)
        if built is not None and not built.ok:
            return CaseResult(marked, [Verdict(marked.case.id, PIPE, built.cases,
                                               UNBUILT_DETAILS[built.cases])])
        modes = case_modes(self.modes, marked)
        verdicts = [self.run(marked, mode, part=part, first=first)
                    if earlier is None or earlier.verdicts[index] is None
                    else earlier.verdicts[index] for index, mode in enumerate(modes)]
        return CaseResult(marked, verdicts)

    def two_passes(self, pool, mark, items: list):
        """(index, result) of each of `items` as it is decided: `mark(item, first, earlier)`
        of each through `pool`, then again, in their order, of those whose first result
        `undecided` says the first pass's cap stopped (`earlier` that result)."""
        futures = {pool.submit(mark, item, True, None): index for index, item in enumerate(items)}
        again = []
        for future in as_completed(futures):
            index, result = futures[future], future.result()
            if undecided(result):
                again.append((index, result))
            else:
                yield index, result
        futures = {pool.submit(mark, items[index], False, result): index
                   for index, result in sorted(again, key=lambda pair: pair[0])}
        for future in as_completed(futures):
            yield futures[future], future.result()

    def in_two_passes(self, pool, mark, items: list) -> list:
        """`two_passes`' results, in the order of `items`."""
        results = dict(self.two_passes(pool, mark, items))
        return [results[index] for index in range(len(items))]

    def run(self, marked, mode: str, snapshot: Path = None, part: str = None,
            first: bool = False, judged=judge) -> Verdict:
        """A run of the case, from the program's snapshot (or another: the reference or a
        wrong program, run on a case the student wrote), judged; within the budget of its
        `part` (by default its program's golden cases). `first`: with the first pass's cap,
        where the part has a budget; None where that cap stopped it, which is no verdict.
        `judged` judges it (the reference's run on a student's case is said from the case's
        side)."""
        case = marked.case
        program = self.programs[case.program]
        files = {STATS_FILE: case.stats} if case.stats is not None else {}
        share = (self.budget or {}).get(part or case.program)
        budget = self.first_pass if first and share is not None else None
        if share is not None and share.spent >= share.cpu:
            return Verdict(case.id, mode, Kind.NOT_RUN, BUDGET_SPENT.format(part=share.part,
                                                                           seconds=share.cpu))
        if share is not None and share.waited >= share.waiting:
            return Verdict(case.id, mode, Kind.NOT_RUN, WAITED_OUT.format(part=share.part,
                                                                         seconds=share.waiting))
        arguments = (lambda home: program.run_argv(case, home, self.sandbox.python), case.stdin,
                     files, lambda home: {STATS_VARIABLE: str(home / STATS_FILE)})
        try:
            outcome = self.sandboxed(snapshot or self.snapshots[case.program], arguments,
                                     terminal=mode == TERMINAL, head=case.head, budget=budget)
        except Stopped:
            return Verdict(case.id, mode, Kind.NOT_RUN, INTERRUPTED)
        except Exception as problem:  # a fault of the marker must not cost the report
            return Verdict(case.id, mode, Kind.MARKER_ERROR, escaped(f"{type(problem).__name__}: "
                                                                f"{problem}"))
        if self.sandbox.stopping.is_set():
            return Verdict(case.id, mode, Kind.NOT_RUN, INTERRUPTED)
        if share is not None:
            given = budget or self.sandbox.budget
            with self._lock:
                share.spent += outcome.cpu_seconds or 0.0
                if outcome.limit in (Limit.IDLE, Limit.WALL):
                    share.waited += (given.idle_seconds if outcome.limit is Limit.IDLE
                                     else given.wall_seconds)
        if budget is not None and outcome.limit in (Limit.CPU, Limit.WALL):
            return None
        return judged(case, mode, outcome, self.rules_of(marked))

    def sandboxed(self, snapshot: Path, arguments: tuple, **how):
        """A run in this student's session, or in a sandbox of its own where there is none."""
        if self.sessions is None:
            return self.sandbox.run(snapshot, *arguments, **how)
        with self.sessions.one(snapshot) as session:
            if session is None:
                return self.sandbox.run(snapshot, *arguments, **how)
            return session.run(*arguments, **how)

    def done_with(self, snapshot: Path) -> None:
        """No more runs from `snapshot`: its sessions may go."""
        if self.sessions is not None:
            self.sessions.close_idle(snapshot)


class Sessions:
    """The sessions of one marking, one per program's snapshot and case under way at
    once: a case takes an idle one or opens one, and gives it back; one whose driver has
    gone is closed, and the next case opens another."""

    def __init__(self, sandbox: Sandbox):
        self.sandbox, self.idle, self.every = sandbox, {}, []
        self.refused = ""  # why a session could not be made here: the cases get one each
        self._lock = threading.Lock()

    @contextmanager
    def one(self, snapshot: Path):
        """A session of `snapshot`'s, or None where none can be made."""
        if self.refused:
            yield None
            return
        with self._lock:
            waiting = self.idle.setdefault(snapshot, [])
            session = waiting.pop() if waiting else None
        if session is None:
            try:
                session = self.sandbox.session(snapshot)
            except (OSError, RuntimeError) as problem:
                self.refused = str(problem) or type(problem).__name__
                yield None
                return
            with self._lock:
                self.every.append(session)
        try:
            yield session
        finally:
            with self._lock:
                if session.broken:
                    self.every.remove(session)
                    session.close()
                else:
                    self.idle[snapshot].append(session)

    def close_idle(self, snapshot: Path) -> None:
        with self._lock:
            done = self.idle.pop(snapshot, [])
            self.every = [session for session in self.every if session not in done]
        for session in done:
            session.close()

    def close(self) -> None:
        for session in self.every:
            session.close()
        self.every, self.idle = [], {}


def moment(option: str, text: str, assignment):
    """The time an option gives, in the assignment's time zone unless it says one."""
    if assignment.deadline is None:
        raise ValueError(NO_DEADLINE.format(option=option, name=assignment.name))
    zone = assignment.deadline.tzinfo
    try:
        when = instant(text, zone)
    except ValueError:
        raise ValueError(BAD_TIME.format(option=option, text=text)) from None
    try:
        return countable(when, repr(text), zone)
    except ValueError as problem:
        raise ValueError(OPTION_PROBLEM.format(option=option, problem=problem)) from None


def terms_of(options, assignment) -> Terms:
    """The student's own terms (--due, --extension, --late-days-left), each refused in one
    line where it cannot apply."""
    if options.due is not None and options.extension is not None:
        raise ValueError(DUE_AND_EXTENSION)
    for option, value in (("--extension", options.extension),
                          ("--late-days-left", options.late_days_left)):
        if value is not None and assignment.deadline is None:
            raise ValueError(NO_DEADLINE.format(option=option, name=assignment.name))
    if options.late_days_left is not None and assignment.late_days is None:
        raise ValueError(NO_LATE_DAYS.format(name=assignment.name))
    if options.extension is not None:
        try:
            return extended(assignment.deadline, extension_of(options.extension),
                            options.late_days_left)
        except ValueError as problem:
            raise ValueError(OPTION_PROBLEM.format(option="--extension", problem=problem)) \
                from None
    due = None if options.due is None else moment("--due", options.due, assignment)
    return Terms(due, None, options.late_days_left)


def main(argv=None) -> int:
    streams.speak_utf8()
    messages.listener()  # before any run starts: no run inherits it
    parse = parser()
    options = parse.parse_args(argv)
    if not options.assignment:
        parse.error(NO_ASSIGNMENT.format(names=", ".join(names())))
    if options.submission is None and not options.check_isolation:
        parse.error(NO_SUBMISSION)
    try:
        assignment = load(options.assignment)
        submitted = (None if options.submitted is None
                     else moment("--submitted", options.submitted, assignment))
        terms = terms_of(options, assignment)
        earlier = reuse.earlier(options.reuse) if options.reuse else None
    except (AssignmentError, ValueError) as problem:
        parse.error(str(problem))
    if options.json:
        try:
            check_json_target(options.json.absolute())
        except ValueError as problem:
            parse.error(JSON_PROBLEM.format(problem=problem))
    if options.tty and importlib.util.find_spec("pexpect") is None:
        parse.error(NEEDS_PEXPECT)
    if options.waiting_budget and not options.student_budget:
        parse.error(WAITING_ALONE)
    if options.reuse and options.student_budget:
        parse.error(REUSE_WITH_BUDGET)
    if options.overrides and not options.student:
        parse.error(OVERRIDES_ALONE)
    try:
        corrected = (overrides.read(options.overrides, assignment) if options.overrides
                     else None)
    except ValueError as problem:
        parse.error(str(problem))
    patterns = options.only or ["*"]
    selected = {program: [marked for marked in cases
                          if any(fnmatch.fnmatchcase(marked.case.id, pattern) for pattern in patterns)]
                for program, cases in assignment.marked_cases.items()}
    groups = {program: [group for group in assignment.student_groups(program)  # PROGRAM/FOLDER
                        if any(fnmatch.fnmatchcase(f"{program}/{group.folder}", pattern)
                               for pattern in patterns)]
              for program in assignment.marked_cases}
    drawn = {program: [one for one in chosen
                       if any(fnmatch.fnmatchcase(one.id, pattern) for pattern in patterns)]
             for program, chosen in fresh_cases.drawn_for(assignment, student_key(options)).items()}
    if not any(selected.values()) and not any(groups.values()) and not any(drawn.values()):
        parse.error(NOTHING_MATCHES.format(assignment=assignment.name,
                                           patterns=" or ".join(patterns)))
    scratch = Path(tempfile.mkdtemp(prefix="marking-"))
    try:
        if options.check_isolation:
            return check_isolation(options, parse, scratch, assignment)
        return mark(options, parse, scratch, assignment, selected, groups, submitted, terms,
                    earlier, corrected, drawn)
    finally:
        remove_tree(scratch)


def student_key(options) -> str:
    """Whose fresh cases are drawn: --student, else the name of the folder marked (the
    student's, in a class's download); a request's --named, which the class marker gives,
    names the entry the folder marked was copied from."""
    if options.student:
        return options.student
    return Path(options.named or options.submission or "").name


def kept_apart(assignment) -> list:
    """What no run may see: the kit, and the assignment's own folder and its programs'
    references and golden cases, wherever they lie."""
    folders = [ROOT, EXPECTED_OUTPUTS, assignment.path.parent]
    for program in assignment.programs.values():
        folders += [program.reference, program.cases_folder]
    return list(dict.fromkeys(folders))


def open_sandbox(options, parse, scratch: Path, assignment, hidden: list) -> Sandbox:
    """The sandbox, or a refusal (exit status 2) when it cannot be made or lacks a layer
    that the assignment or --require insists on."""
    cpu, wall = ((options.timeout, None) if options.timeout  # the sandbox's own cap for it
                 else (assignment.cpu_seconds, assignment.wall_seconds))
    try:
        sandbox = Sandbox(cpu, scratch, hidden, options.python, options.isolation,
                          wall_seconds=wall, runs_at_once=options.jobs, markers=options.markers)
    except RuntimeError as problem:
        parse.error(str(problem))
    missing = [layer for layer in dict.fromkeys([*assignment.require, *options.require])
               if not sandbox.has(layer)]
    if missing:
        sandbox.close()
        parse.error(LAYERS_MISSING.format(layers=", ".join(
            f"{layer} ({REQUIREMENTS[layer]})" for layer in missing),
            isolation="; ".join(sandbox.describe()[:2])))
    return sandbox


def check_isolation(options, parse, scratch: Path, assignment) -> int:
    """What would confine each run here: for a person setting a machine up, and for
    Gradescope's setup.sh, which fails when a required layer is missing."""
    sandbox = open_sandbox(options, parse, scratch, assignment, [*kept_apart(assignment), scratch])
    try:
        for line in sandbox.describe(python=runs_python(assignment, assignment.programs)):
            print(line)
    finally:
        sandbox.close()
    return Exit.PASSED


def runs_python(assignment, programs) -> bool:
    """Whether any of the `programs` runs in the sandbox's Python (its language's command
    names it), for the header to name that interpreter only then."""
    return any(PYTHON_RUN in assignment.programs[program].language.run for program in programs)


def mark(options, parse, scratch: Path, assignment, selected: dict, groups: dict,
         submitted, terms: Terms, earlier: dict = None, corrected=None,
         drawn: dict = None) -> int:
    """Mark the submission; `corrected`: the overrides file read (overrides.Overrides), whose
    rows naming --student change the results once marked."""
    started = time.monotonic()
    submission = options.submission.absolute()
    snapshot = scratch / "snapshot"
    snapshot.mkdir(mode=0o700)
    try:
        copied = copy_tree(submission, snapshot, skip=skip_reason, limits=Limits())
    except Refused as problem:
        reason = escaped(str(problem), most=1000)
        if options.json:
            write_json(options.json.absolute(), refused(assignment, reason))
        parse.error(reason)
    root, notes = entered(snapshot, [assignment.programs[program] for program in selected],
                          [group.folder.split("/")[0] for chosen in groups.values()
                           for group in chosen])
    left_out = written_cases.left_out_below(copied.named, root.relative_to(snapshot))
    sandbox = open_sandbox(options, parse, scratch, assignment,
                           [*kept_apart(assignment), scratch, submission])
    if copied.left_out:
        notes.append(LEFT_OUT.format(what=copied.described()))
    header = [MARKING.format(submission=escaped(options.named or str(submission), most=1000),
                             assignment=assignment.name, title=assignment.title,
                             marks=assignment.marks),
              *sandbox.describe(python=runs_python(assignment, selected)), *notes]
    warn(sandbox)
    # the golden and fresh cases chosen, those of a program not handed in too (each counts 0)
    chosen_count = (sum(map(len, selected.values()))
                    + sum(len(chosen) for chosen in (drawn or {}).values()))
    drawn = {program: chosen for program, chosen in (drawn or {}).items()
             if chosen and assignment.programs[program].present(root)}
    if drawn:
        header.append(fresh_cases.header(drawn))
    try:
        with stopped_by_signals(sandbox):
            made, unmade = fresh_cases.made(sandbox, assignment, drawn, scratch, options.jobs)
            selected = {program: chosen + made.get(program, [])
                        for program, chosen in selected.items()}
            results = mark_cases(sandbox, options, root, assignment, selected, header, scratch,
                                 groups, left_out, earlier, unmade)
    finally:
        sandbox.close()
    results.seconds = time.monotonic() - started
    results.notes = notes
    results.selected = chosen_count
    results.late = assignment.mark_after_deadline(results.score, submitted, terms)
    results.diagnoses = diagnosed(results, {program: known.knowledge(assignment, declared)
                                            for program, declared in assignment.programs.items()})
    write_report(results, Terminal(sys.stdout))
    confined = {"isolation": sandbox.describe(), "python": sandbox.base_python,
                "sandbox_per": sandbox.one_per(options.sandbox_per),
                "users": sandbox.users, "cgroups": [str(parent) for parent in
                                                    sandbox.groups.parents]
                if sandbox.groups else []}
    marked = gradescope(results, confined)
    if corrected is not None:
        marked = overridden(marked, corrected, options.student, assignment, submitted, terms,
                            Terminal(sys.stdout))
    if options.json:
        try:
            write_json(options.json.absolute(), marked)
        except OSError as problem:
            print(JSON_PROBLEM.format(problem=problem), file=sys.stderr)
            return Exit.FAILED
    if sandbox.stopping.is_set():
        return Exit.INTERRUPTED
    every = [result for cases in results.programs.values() if cases is not None for result in cases]
    written = [group for student in results.student.values() for group in student]
    if (any(verdict.kind == Kind.MARKER_ERROR for result in every for verdict in result.verdicts)
            or any(group.marker_failed for group in written)):
        return Exit.MARKER_ERROR
    complete = all(cases is not None for cases in results.programs.values())
    passed = complete and (every or written) and all(result.earned_all for result in every)
    return Exit.PASSED if passed and all(group.complete for group in written) else Exit.FAILED


def overridden(marked: dict, corrected, student: str, assignment, submitted, terms,
               out) -> dict:
    """results.json's `marked` with the rows of `corrected` naming `student` applied, the
    late rule applied again to the raw score they change; each said on `out`."""
    rows = corrected.of((student,))
    print("", file=out)
    if not rows:
        print(overrides.NONE_FOR.format(student=escaped(student), path=corrected.path), file=out)
        return marked
    done = overrides.apply(marked, rows,
                           lambda raw: assignment.mark_after_deadline(raw, submitted, terms))
    print(OVERRIDES_OF.format(student=escaped(student), path=corrected.path), file=out)
    for record in done["extra_data"]["overrides"]:
        print(OVERRIDE_LINE.format(said=overrides.said(records.Override(**record))), file=out)
    print(OVERRIDDEN_MARK.format(mark=done["score"], total=assignment.marks), file=out)
    return done


def entered(snapshot: Path, programs: list, own_folders: list = ()):
    """The folder to mark (see `exactmark.kit.submission.marked_folder`), and a note when it
    is the one folder the submission holds."""
    root = marked_folder(snapshot, programs, own_folders)
    return root, [] if root == snapshot else [ENTERED.format(name=escaped(root.name))]


def warn(sandbox: Sandbox) -> None:
    warnings = []
    if not sandbox.files_hidden and not sandbox.as_root:
        warnings.append(RUNS_AS_YOU)
    elif not sandbox.files_hidden:
        warnings.append(FILES_OPEN.format(why=sandbox.confinement.missing()[0]))
        warnings += [GOLDEN_READABLE.format(path=path) for path in golden_copies_readable()]
    for text in warnings:
        print(text, file=sys.stderr)
        messages.send(messages.Notice(text))


def mark_cases(sandbox, options, root: Path, assignment, selected: dict, header: list,
               scratch: Path, groups: dict, left_out: dict, earlier, unmade: dict = None) \
        -> Results:
    """Run the selected cases of each program present, streaming a line per case to
    stderr as it finishes; results in the assignment's order, most marks first. Then the
    selected `groups` of cases the student wrote, read from `root` (of which `left_out`
    names what the copy left out). A case or group that `earlier` (a records.MarkingRecord,
    --reuse) marked under the same key keeps its verdicts and is not run. A fresh case of
    `unmade` (case id -> why) is the marker's error: the reference made nothing to expect."""
    declared = assignment.programs
    present = {program: declared[program].present(root) for program in selected}
    selected = {program: chosen for program, chosen in selected.items()  # a missing one always
                if chosen or not present[program] or groups[program]}
    cases = [marked for program, chosen in selected.items() if present[program] for marked in chosen]
    cases.sort(key=lambda marked: -marked.marks)  # the budget cuts the same cases every time
    modes = [PIPE, TERMINAL] if options.tty else [PIPE]
    keys, group_keys = case_keys(sandbox, options, root, assignment, selected, groups)
    earlier_cases = {case.case: case for case in earlier.cases} if earlier else {}
    earlier_groups = {(group.program, group.folder): group
                      for group in earlier.student_groups} if earlier else {}
    done = {}
    for marked in cases if earlier else ():
        result = reuse.kept(marked, keys[marked.case.id], earlier_cases.get(marked.case.id),
                            case_modes(modes, marked))
        if result is not None:
            done[marked.case.id] = result
    kept = set(done)
    for marked in cases:
        if marked.case.id in (unmade or {}):
            done[marked.case.id] = CaseResult(marked, [Verdict(
                marked.case.id, PIPE, Kind.MARKER_ERROR, unmade[marked.case.id])])
    if kept:
        header.append(reuse.KEPT.format(kept=len(kept), total=len(cases)))
    cases = [marked for marked in cases if marked.case.id not in done]
    header.append(RUNS.format(cases=len(cases), jobs=options.jobs))
    written = [f"{group.name} ({group.folder}/)" for program in selected for group in groups[program]]
    if written:
        header[-1] += f", {WRITTEN.format(groups=', '.join(written))}"
    header.append(sandbox.describe_one_per(options.sandbox_per))
    budget = None
    if options.student_budget:
        waiting = options.waiting_budget or WAITING_SECONDS
        budget = shares(budget_parts(selected, groups, present), options.student_budget, waiting)
        split = ", ".join(SHARE.format(part=share.part, share=share.cpu / options.student_budget)
                          for share in budget.values())
        header.append(BUDGET.format(seconds=options.student_budget, waiting=waiting, shares=split))
    said = len(header)  # the header so far, printed before the first progress line: in a log
    report = Terminal(sys.stdout)  # of stdout and stderr together, it comes first
    for line in header:
        print(line, file=report)
    rules = {}

    def rules_of(marked):
        return rules.setdefault(marked.compare, Rules(marked.compare, assignment.normalise,
                                                      sandbox.timeout, sandbox.wall_seconds,
                                                      sandbox.idle_seconds, sandbox.memory))
    builds = {}
    for program in selected:
        if present[program] and declared[program].built and (selected[program]
                                                              or groups[program]):
            builds[program] = build(sandbox, declared[program], root, scratch)
            progress(BUILD_PROGRESS.format(program=program, said=builds[program].said()))
    snapshots = {program: builds[program].folder if program in builds else root
                 for program in selected}
    sessions = Sessions(sandbox) if sandbox.one_per(options.sandbox_per) == STUDENT else None
    marking = Marking(sandbox, snapshots, declared, modes, rules_of, builds, sessions, budget)
    with ThreadPoolExecutor(options.jobs) as pool, closing(sessions) if sessions else nullcontext():
        passes = marking.two_passes(pool, lambda marked, first, earlier: marking.case(
            marked, first=first, earlier=earlier), cases)
        for count, (index, result) in enumerate(passes, 1):
            done[cases[index].case.id] = result
            worst = next((verdict for verdict in result.verdicts if not verdict.passed),
                         result.verdicts[0] if result.verdicts else None)
            kind, case_id = worst.kind if worst else "", cases[index].case.id
            progress(PROGRESS.format(done=count, total=len(cases), kind=kind, case=case_id))
            messages.send(messages.Progress(count, len(cases), case_id, str(kind)))
        missing = {program: why_missing(root, declared[program], declared.values(), left_out)
                   for program in selected if not present[program]}
        student = {program: student_cases.mark_groups(
            marking, pool, declared[program], groups[program], root, left_out, scratch,
            "; ".join(missing[program][0]) if program in missing else "", progress,
            lambda result: reuse.kept_group(
                result, group_keys[(result.group.program, result.group.folder)],
                earlier_groups.get((result.group.program, result.group.folder))))
            for program in selected if groups[program]}
        written = [(program, group) for program, marked in student.items() for group in marked]
        for count, (program, group) in enumerate(written, 1):
            messages.send(messages.Progress(count, len(written),
                                            f"{program}/{group.group.folder}", GROUP_MARKED))
    kept_groups = sum(group.kept for _, group in written)
    if kept_groups:
        header.append(reuse.KEPT_GROUPS.format(kept=kept_groups, total=len(written)))
    if sessions and sessions.refused:
        header.append(SESSIONS_REFUSED.format(why=escaped(sessions.refused)))
    programs = {program: [done[marked.case.id] for marked in chosen] if present[program] else None
                for program, chosen in selected.items()}
    return Results(assignment, header, programs, missing=missing, builds=builds, student=student,
                   header_said=said, keys=keys,
                   kept=kept)


def case_modes(modes: list, marked) -> list:
    """The modes `marked` runs in: piped, and at a terminal where it has a screen."""
    return [mode for mode in modes if mode == PIPE or marked.case.screen is not None]


def case_keys(sandbox, options, root: Path, assignment, selected: dict, groups: dict) -> tuple:
    """(case id -> its key, (program, folder) -> a group's key) of every selected case and
    group of cases the student writes (exactmark.marking.reuse)."""
    submission = reuse.fingerprint(root)
    runs = {"cpu": sandbox.timeout, "wall": sandbox.wall_seconds, "memory": sandbox.memory,
            "python": sandbox.base_python, "tty": options.tty,
            "normalise": sorted((assignment.normalise or {}).items())}
    declared = assignment.programs
    made = {program: reuse.reference(declared[program]) for program, chosen in groups.items()
            if chosen}
    return ({marked.case.id: reuse.case_key(marked, declared[program], runs, submission)
             for program, chosen in selected.items() for marked in chosen},
            {(program, group.folder): reuse.group_key(group, declared[program], runs, submission,
                                                      made[program])
             for program, chosen in groups.items() for group in chosen})


def progress(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (BrokenPipeError, ValueError):
        pass


class Terminal:
    """The report's stream: a reader that went away (`| head`) ends the printing, not the marking."""

    def __init__(self, stream):
        self.stream, self.closed = stream, False

    def write(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError):
            self.closed = True


class stopped_by_signals:
    """Ctrl-C (or SIGTERM, SIGHUP) kills every run at once; the marking then ends
    with a partial report."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self, sandbox: Sandbox):
        self.sandbox, self.before = sandbox, {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for number in self.SIGNALS:
                self.before[number] = signal.signal(number, self.stop)
        return self

    def stop(self, number, frame) -> None:
        threading.Thread(target=self.sandbox.stop_all, daemon=True).start()

    def __exit__(self, *exception):
        for number, handler in self.before.items():
            signal.signal(number, handler)
        return False


def arguments():
    """What the marker is asked: by the process that started it, in its environment
    (exactmark.marking.request), by `make mark`'s variables, or else on its command line
    (None)."""
    try:
        asked = request.taken()
    except ValueError as problem:
        parser().error(BAD_REQUEST.format(problem=problem))
    if asked is not None:
        return asked.options()
    if "MARK_SUBMISSION" in os.environ:
        return from_make.arguments(parser(), [("MARK_ASSIGNMENT", "--assignment")],
                                   "MARK_SUBMISSION", NO_SUBMISSION)
    return None


if __name__ == "__main__":
    sys.exit(main(arguments()))
