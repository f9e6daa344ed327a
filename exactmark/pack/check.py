"""Check your programs against the assignment's visible cases, as the marker runs them.

    python3 check.py [FOLDER]

FOLDER is the folder that holds your work (by default the folder you are in). Nothing is
written into it: a copy of it is checked, in a temporary folder. Each program runs as
the marker runs it: its input piped in, its output, exit status and stderr compared with
the case's byte for byte, within the marking's time limit; a program in a compiled
language is built first, as the marking builds it. Your own code runs as you, on your
own machine: it is your code, so no sandbox is needed here (the marker has one). Where
the assignment marks the cases you write, they are read as the marker reads them (each
one it would refuse is refused, with its reason) and your program runs on each of the
others as on a visible case; whether a case is valid or thorough it cannot say, since
that takes the reference, which it does not hold. The exit status is 0 only when every
visible case passes and so does every case you wrote, none refused, and each group of
them has a case. Where the marking also uses cases you cannot see, it says so: passing the
visible ones then does not promise the mark. Where your failures of the visible cases are
those of a mistake students make, it names the mistake and the handout's sentence it
breaks, as the marking does before the deadline.
"""

import argparse
import functools
import json
import os
import secrets
import shlex
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from exactmark.base.exits import Exit
from exactmark.diagnosis import diagnose
from exactmark.kit.cases import STATS_FILE, STATS_VARIABLE
from exactmark.running.record import Ran
from exactmark.running.supervise import CpuWatch, Piped, gather, kill_group, piped_ran
from exactmark.base.visible import escaped
from exactmark.marking.build import budget as build_budget
from exactmark.sandbox.cgroups import kill_every
from exactmark.marking.build import build_command, build_record, keep_binary, sources_of
from exactmark.running.limits import (MEMORY_BYTES, PROCESSES, SAFE_PATH, Budget, children_of,
                                      descendants, processes_of, rlimits, scrubbed_environment)
from exactmark.marking.grouping import difference, grouped
from exactmark.marking.report import (INPUT, KIND_WIDTH, REGION, RUNAWAY, WHAT_DIFFERS, failure,
                                      reproduce, said_once, shown_input, suggested)
from exactmark.kit.submission import marked_folder, skip_reason, why_missing
from exactmark.base.tree import Limits, Refused, copy_tree, remove_tree
from exactmark.marking.verdicts import NOT_BUILT_DETAIL, PIPE, Kind, Rules, Verdict, how, judge
from exactmark.kit.written_cases import NONE_MARKED, Written, left_out_below, read_cases
from exactmark.pack.manifest import CASES, MANIFEST, WHAT_IT_SUGGESTS, Checked, read

# Before any definition of the kit's: on Windows, or an older Python, one line, no traceback.
if sys.platform == "win32":
    print("check.py runs on Linux and macOS, not on Windows: run it in WSL (the Windows "
          "Subsystem for Linux), where the marker's commands work as they do in the marking",
          file=sys.stderr)
    sys.exit(2)
if sys.version_info < (3, 10):
    print(f"check.py needs Python 3.10 or newer, and this is Python {sys.version.split()[0]}: "
          "run it with a newer python3 (python3.10, python3.11, ...)", file=sys.stderr)
    sys.exit(2)

PACK = Path(__file__).resolve().parent
EXIT_PROBLEM = Exit.REFUSED
CPU_POLL_SECONDS = 0.1
RUN_VARIABLE = "CHECK_PY_RUN"  # marks a run's processes where the checker cannot keep them
PR_SET_CHILD_SUBREAPER = 36  # prctl(2): Linux makes the checker the parent of a run's orphans
ENDING_SECONDS = 10  # how long it goes on killing what a run left, before it says it cannot
ENDING_POLL_SECONDS = 0.005
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # Ctrl-C, `kill`, a closed terminal
MOST_SHOWN = 4000  # characters of a line drawn from what a student wrote (a command, a reason)

CHECKING = "Checking {folder} against {title}: its visible cases, as the marking runs them"
CHECKING_ONLY_WRITTEN = ("Checking {folder} against {title}: the cases you write ({folders}), "
                         "as the marking runs them")
CHECKING_WRITTEN = ("Checking {folder} against {title}: its visible cases and the cases you "
                    "write ({folders}), as the marking runs them")
AS_YOU = ("Your programs run as you, here, without a sandbox (it is your own code), with the "
          "marking's limits: {cpu:g} s of CPU per case")
NOT_KEPT = ("This system does not let the checker keep every process your programs start: "
            "one that leaves its process group (a daemon) may outlive the check, and print "
            "after its last line")
NOT_ENDED = ("check.py: {count} process{es} your program started could not be ended in "
             "{seconds} s: {pids}")
PYTHON_DIFFERS = ("Python programs run with the Python that runs this checker, {here}; the "
                  "marking uses Python {there}")
ENTERED = "{folder} holds one folder, {name}: checking what it holds, as the marking does"
LEFT_OUT = "Left out, as the marking leaves it out: {what}"
MISSING = "{program}: missing: {why}"
MISSING_DETAIL = "the program is not in the folder"
NO_COMPILER = ("{program}: cannot be built here: {compiler} is not installed (the marking "
               "builds it with: {command}); install it, or check on a machine that has it")
NO_COMPILER_DETAIL = "{compiler} is not installed here"
BUILD_LINE = "  build: {said}"
WARNINGS_COST = ("  the marking deducts {share:.0%} of what this program's cases earn when "
                 "its build has warnings")
NOT_BUILT_LINE = "  {kind:<{width}} (its {count} visible case{s})"
PROGRAM_HEAD = "{program}: {passed} of {total} visible case{s} pass"
PROGRAM_ONLY_WRITTEN = "{program}: no visible case; the cases you write:"
PROGRAM_WRITTEN_ALONE = "{program}: the cases you write:"  # where no golden case is marked
CASE_LINE = "  {kind:<{width}} {case}{detail}"
GROUP_HEAD = "  {group} ({folder}/): {passed} of {total} of your cases pass{refused}"
GROUP_REFUSED = ", {count} refused"
GROUP_NO_CASE = "  {group} ({folder}/): {why}"
WRITTEN_LINE = "    {kind:<{width}} {case}{detail}"
REFUSED = "refused"  # a case or file of the student's the marking would not mark
NO_CASE = "no case"  # in --json: a group of which no case is read, and why
CANNOT_JUDGE = ("This checker cannot say whether the cases you write are valid or thorough: "
                "the marking checks each case against the reference, which this pack does "
                "not hold, and runs the valid ones on programs that make the mistakes "
                "students make, which it does not hold either. So a case your program passes "
                "may still be invalid (your program and your case may share a misreading of "
                "the handout), and a case your program fails is wrong in one of the two: the "
                "case or the program.")
REPRODUCE = "  reproduce, in your folder: {command}"
SUMMARY = ("{passed} of {total} visible cases pass; the marking also uses cases you cannot "
           "see, worth {unseen:.2f} marks")
SUMMARY_ALL_SEEN = "{passed} of {total} cases pass: the marking uses these cases and no others"
SUMMARY_FRESH = ("; {count} of those are fresh cases, drawn for you when you are marked: no "
                 "pack can hold them, and only a program that does what the handout says "
                 "passes them")
NO_CASE_YET = ("{folder}/ ({group}) has no case yet: as it is, the group earns none of its "
               "{marks:.2f} marks, since each of its counts is a share of its cases{asked}")
ASKED_FOR = "; the handout asks for at least {asked}"
WRITTEN_SUMMARY = ("{passed} of {total} of the cases you write pass on your program"
                   "{refused}{empty}")
WRITTEN_SUMMARY_REFUSED = "; {count} refused"
WRITTEN_SUMMARY_EMPTY = "; {count} group{s} without a case"
INTERRUPTED = "Interrupted: {done} of {total} visible cases checked"
INTERRUPTED_ONLY_WRITTEN = "Interrupted: {own_done} of {own_total} of the cases you write checked"
INTERRUPTED_WRITTEN = ("Interrupted: {done} of {total} visible cases and {own_done} of "
                       "{own_total} of the cases you write checked")
NO_FOLDER = "check.py: there is no folder {folder}: give the folder that holds your work"
NOT_A_FOLDER = "check.py: {folder} is not a folder: give the folder that holds your work"
THE_PACK_ITSELF = ("check.py: {folder} is the pack itself: give the folder that holds your "
                   "work: python3 {check} FOLDER")
NO_PACK = ("check.py: no {manifest} beside it in {pack}: run the check.py of an unzipped "
           "student pack, where its {manifest} and {cases} are")
PROBLEM = "check.py: {problem}"
BAD_JSON_TARGET = "check.py: --json {path}: {why}"


class Stopped(Exception):
    """The check was stopped by a signal: Ctrl-C, a closed terminal, `kill`."""

    def __init__(self, number: int):
        super().__init__(number)
        self.number = number


class Runner:
    """Runs one command at a time as the marker's sandbox runs a case: stdin piped, its
    output capped, the marking's rlimits, its CPU time watched (where Linux's /proc tells
    it), a run that waits without working ended, and nothing it started left running
    once it ends (where `kept`, the checker is the parent of every orphan, so none
    escapes; elsewhere its process group, and on Linux its marked environment)."""

    def __init__(self, kept: bool = False):
        self.running = None  # the marker of the run under way, to stop it
        self.kept = kept  # every process a run starts stays below the checker

    def run(self, argv: list, folder: Path, stdin: bytes, env: dict, budget: Budget,
            head: int = None) -> Ran:
        import resource  # here, not at the top: Windows has none, and is told so first

        linux = os.path.isdir("/proc")
        limits = rlimits(budget, len(processes_of(os.getuid())) if linux else None)

        def limited():
            for name, value in limits:
                try:
                    resource.setrlimit(getattr(resource, name),
                                       value if isinstance(value, tuple) else (value, value))
                except (ValueError, OSError, AttributeError):
                    pass  # macOS refuses some: that limit of the marking's is not held here

        token = secrets.token_hex(8)

        def started(pid: int) -> None:
            self.running = (pid, token)
        piped = Piped(argv, folder, {**env, RUN_VARIABLE: token}, limited, started=started)
        kill = functools.partial(kill_group, piped.pid)
        watch = CpuWatch(functools.partial(cpu_seconds_of, piped.pid), budget.cpu_seconds,
                         budget.idle_seconds, kill, CPU_POLL_SECONDS)
        try:
            gathered = gather(piped.process, stdin, budget, piped.ended, kill, head)
        finally:
            self.stop()
            reaped = piped.finish()
            watch.stop()
        status, usage = reaped
        cpu_seconds = usage.ru_utime + usage.ru_stime if usage else None
        return piped_ran(gathered, status, budget, watch, cpu_seconds, status == -signal.SIGXCPU)

    def stop(self) -> None:
        """Kill the run under way and every process it started (where `kept`, every process
        below the checker: whatever a run left, even between runs)."""
        pid = None
        if self.running is not None:
            pid, token = self.running
            kill_group(pid)
            if not self.kept:
                kill_every(lambda: marked_processes(f"{RUN_VARIABLE}={token}".encode()))
        self.running = None
        if self.kept:
            left = end_below(pid)
            if left:
                print(NOT_ENDED.format(count=len(left), es="es" * (len(left) != 1),
                                       seconds=ENDING_SECONDS,
                                       pids=" ".join(map(str, left))), file=sys.stderr)


def keep_orphans() -> bool:
    """Make the checker the parent of every process its runs orphan (Linux's child
    subreaper), so that a daemon's double fork, new session or process group, cleared
    environment or new name cannot take it out of the checker's reach; False where the
    system has no such thing (macOS), refuses it, or hides the orphans it would keep (a
    Linux without /proc's children lists: then none is kept, and none left unreaped)."""
    if not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"):
        return False
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
        return prctl(*map(ctypes.c_ulong, (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))) == 0
    except (ImportError, OSError, AttributeError):
        return False


def end_below(run: int = None) -> list:
    """Kill every process below the checker, and reap those that become its own, round
    after round until none is left (a process forking as it is killed leaves a child for
    the next round); the run's own process `run` is killed but left to its waiter to reap.
    The processes still there after ENDING_SECONDS: none, unless the system cannot kill
    them."""
    ending = time.monotonic() + ENDING_SECONDS
    while True:
        for child in children_of(os.getpid()):
            if child != run:
                try:
                    os.waitpid(child, os.WNOHANG)
                except ChildProcessError:
                    pass  # not ours to reap: a thread's waiter reaped it
        below = descendants(os.getpid())
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # it has ended
        if not [pid for pid in below if pid != run]:
            return []
        if time.monotonic() > ending:
            return below
        time.sleep(ENDING_POLL_SECONDS)


def marked_processes(mark: bytes) -> list:
    """Our processes whose environment holds `mark` (Linux's /proc; elsewhere none known)."""
    if not os.path.isdir("/proc"):
        return []
    found = []
    for pid in processes_of(os.getuid()):
        try:
            if mark in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                found.append(pid)
        except OSError:
            pass  # it ended meanwhile
    return found


def cpu_seconds_of(pid: int):
    """The CPU time of `pid` and of its children it has waited for, or None where /proc
    does not tell it (macOS: there RLIMIT_CPU and the wall-clock cap stop a run) or the
    process is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class Check:
    """One check of a student's folder against the pack: what the marker would say of
    each visible case; and of each case the student wrote, as far as a pack can say it:
    why the marking would refuse it, or what their own program does on it."""

    def __init__(self, pack, root: Path, scratch: Path, out, left_out: dict = None,
                 kept: bool = False):
        self.pack, self.root, self.scratch, self.out = pack, root, scratch, out
        self.left_out = left_out or {}  # what the copy left out, relative to `root`
        self.runner = Runner(kept)
        self.path = os.environ.get("PATH", SAFE_PATH)  # the student's own: their compiler
        self.verdicts = {}  # case id -> Verdict, as the marker's
        self.written = {}  # a case the student wrote, by its path (cases/golf/won) -> Verdict
        self.reads = {}  # program -> [(exactmark.pack.manifest.Group, exactmark.kit.written_cases.Read)]
        self.build_lines = []  # how the program's build went, said under its head line
        self.ran = set()  # the programs whose cases ran: neither missing nor unbuilt
        self.runs = 0

    def total(self) -> int:
        return sum(len(cases) for _, cases in self.pack.programs)

    def passed(self) -> int:
        return sum(verdict.kind == Kind.PASS for verdict in self.verdicts.values())

    def groups(self) -> list:
        """(group, what was read of it) of every program, in the pack's order."""
        return [pair for reads in self.reads.values() for pair in reads]

    def written_total(self) -> int:
        return sum(len(found.cases) for _, found in self.groups())

    def written_passed(self) -> int:
        return sum(verdict.kind == Kind.PASS for verdict in self.written.values())

    def refused(self) -> int:
        return sum(len(found.refused) for _, found in self.groups())

    def without_a_case(self) -> int:
        return sum(not found.cases for _, found in self.groups())

    def complete(self) -> bool:
        """Every visible case passes; every group has cases, all pass, none is refused."""
        return (self.passed() == self.total() and not self.refused()
                and not self.without_a_case() and self.written_passed() == self.written_total())

    def say(self, line: str = "") -> None:
        print(line, file=self.out, flush=True)

    def read_written(self) -> None:
        """Each group's cases, read from the copy with the marker's own code (as
        exactmark.marking.mark reads them, with the copy's Copied.named): refused where the marker
        refuses them, for its reasons, in its words."""
        self.reads = {program.name: [(group, read_cases(self.root, group, self.left_out))
                                     for group in self.pack.groups.get(program.name, ())]
                      for program, _ in self.pack.programs}

    def every_program(self) -> None:
        """Each program's cases, a line each, then what differs, as the marker's report;
        after a program's visible cases, each group of the cases the student wrote."""
        failures = []  # (program, case, verdict, the folder whose files reproduce it)
        for program, cases in self.pack.programs:
            reads = self.reads.get(program.name, [])
            written = [Checked(case, group.compare) for group, found in reads
                       for case in found.cases]
            self.say()
            folder = self.runs_from(program, cases, written)
            if folder is not None:
                self.ran.add(program.name)
                verdicts = [self.case(program, checked, folder) for checked in cases]
                self.say(PROGRAM_HEAD.format(program=program.name, total=len(cases),
                                             s="s" * (len(cases) != 1),
                                             passed=sum(v.kind == Kind.PASS for v in verdicts))
                         if cases or not reads else
                         (PROGRAM_ONLY_WRITTEN if self.pack.unseen_marks
                          else PROGRAM_WRITTEN_ALONE).format(program=program.name))
                for line in self.build_lines:
                    self.say(line)
                for checked, verdict in zip(cases, verdicts):
                    said = how(verdict)
                    self.say(CASE_LINE.format(kind=verdict.kind, width=KIND_WIDTH,
                                              case=verdict.case_id,
                                              detail=f": {said}" if said else ""))
                    if verdict.kind != Kind.PASS:
                        failures.append((program, checked.case, verdict, str(checked.case.folder)))
            for group, found in reads:
                failures += self.group(program, group, found, folder)
        if self.groups():
            self.say(f"\n{CANNOT_JUDGE}")
        if failures:
            self.say(f"\n{WHAT_DIFFERS}")
        # failures that differ the same way, drawn once, as the marker does
        for members in grouped(failures, lambda member: difference(member[2])):
            program, case, verdict, at = members[0]
            kind, said = verdict.kind, how(verdict) or str(verdict.kind)
            said = escaped(said, most=MOST_SHOWN) if isinstance(case, Written) else said
            self.say()
            for line in said_once([member[2] for member in members], said,
                                  lambda verdict: escaped(verdict.case_id)):
                self.say(line)
            if len(verdict.regions) > 1:
                for region in verdict.regions:
                    self.say(REGION.format(sentence=region))
            self.say(INPUT.format(text=shown_input(case)))
            command = reproduce(case, program, kind, at, bound=verdict.bound)
            self.say(REPRODUCE.format(command=escaped(command, most=MOST_SHOWN)
                                      if isinstance(case, Written) else command))
            if verdict.diff:
                self.say(verdict.diff)
            for line in verdict.runaway:
                self.say(RUNAWAY.format(line=line))
        said = suggested(self.diagnoses(), diagnose.LEVELS[0])
        if said:
            self.say(f"\n{WHAT_IT_SUGGESTS}")
            for line in said:
                self.say(escaped(line, most=MOST_SHOWN))

    def diagnoses(self) -> list:
        """Each program's diagnosis as the marker makes it for a student before the deadline
        (exactmark.marking.report.diagnosed): its failed visible cases, each weighed as the
        marker weighs it, against the wrong programs' signatures on the visible cases; none
        of a program missing or unbuilt, or of which the pack holds no signatures."""
        found = []
        for program, cases in self.pack.programs:
            known = self.pack.known.get(program.name)
            if known is None or program.name not in self.ran:
                continue
            verdicts = {checked.case.name: (self.verdicts[checked.case.id], checked.case)
                        for checked in cases}
            found.append(diagnose.diagnose(
                known, {name: failure(verdict, case) for name, (verdict, case) in verdicts.items()
                        if verdict.kind != Kind.PASS}, list(verdicts), diagnose.LEVELS[0]))
        return found

    def group(self, program, group, found, folder) -> list:
        """A group of the student's cases: its head line, a line per case (what their
        program did on it, or why the marking refuses it); its failures, to show."""
        if not (found.cases or found.refused):
            self.say(GROUP_NO_CASE.format(group=group.name, folder=group.folder,
                                          why=found.missing or NONE_MARKED))
            return []
        verdicts = [self.case(program, Checked(case, group.compare), folder)
                    if folder is not None else self.written[case.id] for case in found.cases]
        self.say(GROUP_HEAD.format(
            group=group.name, folder=group.folder, total=len(found.cases),
            passed=sum(v.kind == Kind.PASS for v in verdicts),
            refused=GROUP_REFUSED.format(count=len(found.refused)) if found.refused else ""))
        failures = []
        for case, verdict in zip(found.cases, verdicts):
            said = escaped(how(verdict), most=MOST_SHOWN)
            self.say(WRITTEN_LINE.format(kind=verdict.kind, width=KIND_WIDTH, case=escaped(case.id),
                                         detail=f": {said}" if said else ""))
            if verdict.kind != Kind.PASS and folder is not None:
                failures.append((program, case, verdict, group.folder))
        for refusal in found.refused:
            self.say(WRITTEN_LINE.format(kind=REFUSED, width=KIND_WIDTH,
                                         case=escaped(f"{group.folder}/{refusal.name}"),
                                         detail=f": {escaped(refusal.why, most=MOST_SHOWN)}"))
        return failures

    def runs_from(self, program, cases, written=()):
        """The folder the program's cases run from: the student's, or its build's; None,
        said, when it is missing or does not build (its cases, the visible ones and the
        `written` ones, then do not pass). A build that went well is said under the
        program's head line (`build_lines`), which names the program once."""
        every = [*cases, *written]
        self.build_lines = []
        if not program.present(self.root):
            why, alike = why_missing(self.root, program, [p for p, _ in self.pack.programs],
                                     self.left_out)
            self.say(MISSING.format(program=program.name, why="; ".join([*why, *alike])))
            return self.unpassed(every, Kind.NOT_RUN, MISSING_DETAIL)
        if not program.built:
            return self.root
        compiler = program.language.compile[0]
        if shutil.which(compiler, path=self.path) is None:
            self.say(NO_COMPILER.format(program=program.name, compiler=compiler,
                                        command=program.shell_build()))
            return self.unpassed(every, Kind.NOT_BUILT,
                                 NO_COMPILER_DETAIL.format(compiler=compiler))
        started = time.monotonic()
        files, sources = sources_of(program, self.root, self.scratch)
        outcome = self.runner.run(build_command(program, files), sources, b"",
                                  scrubbed_environment(str(sources), self.path),
                                  build_budget(MEMORY_BYTES, PROCESSES))
        built = build_record(program, files, outcome, time.monotonic() - started,
                        MEMORY_BYTES)
        said = [BUILD_LINE.format(said=built.said())]
        if built.ok and built.warnings and program.warnings_cost:
            said.append(WARNINGS_COST.format(share=program.warnings_cost))
        if built.messages:
            said += [f"    {line}" for line in built.messages.splitlines()]
        if built.ok:
            self.build_lines = said
        else:
            self.say(f"{program.name}:")
            for line in said:
                self.say(line)
            if cases:
                self.say(NOT_BUILT_LINE.format(kind=Kind.NOT_BUILT, width=KIND_WIDTH,
                                               count=len(cases), s="s" * (len(cases) != 1)))
            return self.unpassed(every, Kind.NOT_BUILT, NOT_BUILT_DETAIL)
        return keep_binary(built, outcome, self.scratch / f"built-{program.name}").folder

    def unpassed(self, cases, kind: Kind, detail: str) -> None:
        for checked in cases:
            self.kept(checked.case)[checked.case.id] = Verdict(checked.case.id, PIPE, kind,
                                                               detail)

    def kept(self, case) -> dict:
        """Where the verdict on `case` is kept: a case the student wrote apart."""
        return self.written if isinstance(case, Written) else self.verdicts

    def case(self, program, checked, snapshot: Path) -> Verdict:
        """The marker's verdict on one run of the case, from a fresh copy of `snapshot`."""
        case = checked.case
        self.runs += 1
        home, tmp = self.scratch / f"run-{self.runs}", self.scratch / f"tmp-{self.runs}"
        home.mkdir()
        tmp.mkdir()
        copy_tree(snapshot, home)
        if case.stats is not None:
            (home / STATS_FILE).write_bytes(case.stats)
        env = scrubbed_environment(str(home), self.path, TMPDIR=str(tmp),
                                   **{STATS_VARIABLE: str(home / STATS_FILE)})
        pack = self.pack
        outcome = self.runner.run(program.run_argv(case, home, sys.executable), home,
                                  case.stdin, env, Budget(pack.cpu_seconds, pack.wall_seconds,
                                                          pack.idle_seconds), case.head)
        verdict = judge(case, PIPE, outcome, Rules(checked.compare, pack.normalise,
                                                   pack.cpu_seconds, pack.wall_seconds,
                                                   pack.idle_seconds, MEMORY_BYTES))
        self.kept(case)[case.id] = verdict
        remove_tree(home)
        remove_tree(tmp)
        return verdict


def copied(folder: Path, snapshot: Path, programs: list, out, own_folders=()) -> tuple:
    """The student's folder copied as the marker copies a submission (no links, no hidden
    files, no golden outputs); the folder whose programs are checked, chosen as the marker
    would choose it in what was copied (where `own_folders` are the top folders of the
    cases the student writes), and then the pack left out when it lies inside; and what
    the copy left out, as the marker names it to read the student's cases (relative to
    that folder: exactmark.base.tree.Copied.named)."""
    snapshot.mkdir(mode=0o700)
    done = copy_tree(folder, snapshot, skip=skip_reason, limits=Limits())
    root = marked_folder(snapshot, programs, own_folders)
    if PACK.is_relative_to(folder):
        inside = PACK.relative_to(folder)
        remove_tree(snapshot / inside)
        done.named = {path: why for path, why in done.named.items()
                      if path != inside and inside not in path.parents}
        if (PACK / CASES).is_dir() and done.left_out.get(CASES):  # the pack's own cases
            done.left_out[CASES] -= 1
            if not done.left_out[CASES]:
                del done.left_out[CASES]
    if done.left_out:
        print(LEFT_OUT.format(what=done.described()), file=out)
    root = root if root.is_dir() else snapshot
    return root, left_out_below(done.named, root.relative_to(snapshot))


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="python3 check.py", description=__doc__.split("\n\n")[0],
                                    epilog=__doc__.split("\n\n", 2)[2])
    parse.add_argument("folder", nargs="?", type=Path, default=Path("."),
                       help="the folder that holds your work (default: the one you are in)")
    parse.add_argument("--json", type=Path, metavar="FILE",
                       help="also write each case's verdict here, as JSON (for tools)")
    return parse


def refusal(options):
    """Why the check cannot start, in one line; None when it can."""
    if not (PACK / MANIFEST).is_file():
        return NO_PACK.format(manifest=MANIFEST, cases=CASES, pack=escaped(str(PACK)))
    try:
        folder = options.folder.resolve()
    except (OSError, RuntimeError):  # a loop of links
        folder = None
    if folder is None or not folder.exists():
        return NO_FOLDER.format(folder=escaped(str(options.folder)))
    if not folder.is_dir():
        return NOT_A_FOLDER.format(folder=escaped(str(options.folder)))
    if folder.is_relative_to(PACK):
        return THE_PACK_ITSELF.format(folder=escaped(str(folder)),
                                      check=escaped(shlex.quote(str(PACK / "check.py"))))
    target = options.json
    if target is not None and (target.is_dir() or not target.absolute().parent.is_dir()):
        return BAD_JSON_TARGET.format(path=escaped(str(target)),
                                      why="a folder" if target.is_dir() else "no such folder")
    return None


def main(argv=None) -> int:
    for name in ("stdout", "stderr"):
        getattr(sys, name).reconfigure(encoding="utf-8", errors="backslashreplace")
    options = parser().parse_args(argv)
    refused = refusal(options)
    if refused:
        print(refused, file=sys.stderr)
        return EXIT_PROBLEM
    try:
        pack = read(PACK)
    except ValueError as problem:
        print(PROBLEM.format(problem=escaped(str(problem))), file=sys.stderr)
        return EXIT_PROBLEM

    def stopped(number, frame):
        raise Stopped(number)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, stopped)

    def ending() -> None:
        """From here the checker only ends what its runs left and removes its folder: a
        held Ctrl-C's repeats (or a second stop) would cut that short into a traceback,
        leaving a process or the folder behind."""
        for number in STOPS:
            signal.signal(number, signal.SIG_IGN)
    kept = keep_orphans()
    scratch = Path(tempfile.mkdtemp(prefix="check-"))
    check = None
    try:
        folder = options.folder.resolve()
        out = sys.stdout
        groups = [group for chosen in pack.groups.values() for group in chosen]
        checking = (CHECKING if not groups else CHECKING_WRITTEN if any(
            cases for _, cases in pack.programs) else CHECKING_ONLY_WRITTEN)
        print(checking.format(folder=escaped(str(folder)), title=pack.title,
                              folders=", ".join(f"{group.folder}/" for group in groups)), file=out)
        print(AS_YOU.format(cpu=pack.cpu_seconds), file=out)
        if not kept:
            print(NOT_KEPT, file=out)
        here = f"{sys.version_info[0]}.{sys.version_info[1]}"
        if pack.python and pack.python != here and any(
                not program.built for program, _ in pack.programs):
            print(PYTHON_DIFFERS.format(here=here, there=pack.python), file=out)
        snapshot = scratch / "snapshot"
        try:
            root, left_out = copied(folder, snapshot, [program for program, _ in pack.programs],
                                    out, [group.folder.split("/")[0] for group in groups])
        except Refused as problem:
            print(PROBLEM.format(problem=escaped(str(problem), most=1000)), file=sys.stderr)
            return EXIT_PROBLEM
        if root != snapshot:
            print(ENTERED.format(folder=escaped(str(folder)), name=escaped(root.name)), file=out)
        check = Check(pack, root, scratch, out, left_out, kept)
        check.read_written()
        check.every_program()
        check.runner.stop()  # nothing a run left may print after the last line
        print(file=out)
        if check.total() or not groups:
            print((SUMMARY if pack.unseen_marks else SUMMARY_ALL_SEEN).format(
                passed=check.passed(), total=check.total(), unseen=pack.unseen_marks)
                  + (SUMMARY_FRESH.format(count=pack.fresh_cases) if pack.fresh_cases else ""),
                  file=out)
        if groups:
            print(summary_of_written(check), file=out)
            for group, found in check.groups():
                if not found.cases:
                    print(NO_CASE_YET.format(group=group.name, folder=group.folder,
                                             marks=group.marks, asked=ASKED_FOR.format(
                                                 asked=group.asked) if group.asked > 1 else ""),
                          file=out)
        return Exit.PASSED if check.complete() else Exit.FAILED
    except (KeyboardInterrupt, Stopped) as stop:
        ending()
        if check is not None:
            check.runner.stop()
            written = INTERRUPTED_WRITTEN if check.total() else INTERRUPTED_ONLY_WRITTEN
            print("\n" + (written.format(
                done=len(check.verdicts), total=check.total(), own_done=len(check.written),
                own_total=check.written_total()) if check.groups() else INTERRUPTED.format(
                done=len(check.verdicts), total=check.total())), file=sys.stderr)
        return 128 + getattr(stop, "number", signal.SIGINT)
    except BrokenPipeError:  # its reader went away (`| head`): the check ends, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as problem:  # a full disk, an unwritable terminal
        ending()
        if check is not None:
            check.runner.stop()
        print(PROBLEM.format(problem=escaped(str(problem))), file=sys.stderr)
        return EXIT_PROBLEM
    finally:
        ending()
        if check is not None:
            check.runner.stop()
            if options.json:
                write_verdicts(options.json, check)
        try:
            remove_tree(scratch)
        except OSError:
            pass  # what a program made that we cannot remove stays in the temporary folder


def summary_of_written(check: Check) -> str:
    refused, empty = check.refused(), check.without_a_case()
    return WRITTEN_SUMMARY.format(
        passed=check.written_passed(), total=check.written_total(),
        refused=WRITTEN_SUMMARY_REFUSED.format(count=refused) if refused else "",
        empty=WRITTEN_SUMMARY_EMPTY.format(count=empty, s="s" * (empty != 1)) if empty else "")


def verdicts_of(check: Check) -> dict:
    """--json's data: each case's verdict, by its id (PROGRAM/NAME) or, for a case the
    student wrote, its path in their folder (cases/golf/NAME); each refused case or file
    of theirs, by its path, and each group of which no case is read, by its folder."""
    said = {case: {"kind": str(verdict.kind), "how": how(verdict)}
            for verdicts in (check.verdicts, check.written) for case, verdict in verdicts.items()}
    for group, found in check.groups():
        said.update({f"{group.folder}/{refusal.name}": {"kind": REFUSED, "how": refusal.why}
                     for refusal in found.refused})
        if not (found.cases or found.refused):
            said[group.folder] = {"kind": NO_CASE, "how": found.missing or NONE_MARKED}
    return said


def write_verdicts(path: Path, check: Check) -> None:
    try:
        path.write_text(json.dumps(verdicts_of(check), indent=1) + "\n", encoding="utf-8")
    except OSError as problem:
        print(PROBLEM.format(problem=escaped(str(problem))), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
