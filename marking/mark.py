"""Mark a submission the way the automarker does: `make mark SUBMISSION=DIR`.

    python3 -m marking.mark DIR [--tty] [--jobs N] [--timeout S] [--json FILE]
                                [--weight PROGRAM=MARKS]... [--python PATH] [--only GLOB]...
                                [--isolation auto|namespaces|fallback]

The submission is copied once, before any of its code runs, into a folder only
the marker can read; for each program of expected_outputs/ present in it,
every golden case runs against a fresh copy in the sandbox (marking/sandbox.py),
stdin piped, stdout compared byte for byte, and the exit status and stderr
where the case gives them (--tty: the terminal screen too). Exit status 0 only
when every case of every program present passes; 2 for a refused submission
or option; 130 when interrupted (Ctrl-C kills every run and prints what was marked).
"""

import argparse
import fnmatch
import importlib.util
import os
import shlex
import signal
import stat
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common import console
from golden.cases import EXPECTED_OUTPUTS, ROOT, load_cases, programs
from golden.run import DEFAULT_TIMEOUT, STATS_FILE, STATS_VARIABLE, command
from golden.visible import escaped
from marking.report import check_json_target, report, write_json
from marking.sandbox import AUTO, FALLBACK, NAMESPACES, Sandbox, Stopped
from marking.tree import Copied, Limits, Refused, copy_tree, remove_tree
from marking.verdicts import MARKER_ERROR, NOT_RUN, PIPE, TERMINAL, INTERRUPTED, Verdict, judge

TOTAL_MARKS = 13
NOT_COPIED = {"expected_outputs", "tests", "__pycache__", STATS_FILE}
MOST_SECONDS = 3600
EXIT_INTERRUPTED = 130

MARKING = "Marking {submission}: {cases} cases, {jobs} at once"
GOLDEN_READABLE = ("warning: other users can read {path}, and in the fallback a submission runs "
                   "as another user: for real marking, mark from a copy only you can read")
RUNS_AS_YOU = ("warning: without namespaces and without root, the submission runs as you and can "
               "read all you can, the golden outputs included: fine for checking your own work, "
               "not for marking")
NO_SUBMISSION = "give the folder to mark: make mark SUBMISSION=DIR"
BAD_ARGS = "ARGS cannot be read as options: {problem}"
NOTHING_MATCHES = "no golden case matches {patterns}"


def skip_reason(name: str):
    """Why a name of the submission stays out of the copy, or None: hidden files, the
    golden outputs, tests, and a stats file of its own (each case brings its own)."""
    if name.startswith("."):
        return "hidden"
    if name in NOT_COPIED:
        return name
    return None


def describe_left_out(copied: Copied) -> str:
    return ", ".join(f"{count} {reason}" for reason, count in sorted(copied.left_out.items()))


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


def jobs(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError("a number of cases from 1 to 64")
    return value


def weights(requested: list, marked: list) -> dict:
    """Marks per program: TOTAL_MARKS shared equally, unless PROGRAM=MARKS says otherwise."""
    shares = {program: TOTAL_MARKS / len(marked) for program in marked}
    for item in requested:
        program, _, marks = item.partition("=")
        if program not in shares:
            raise ValueError(f"--weight: no program {program!r} is marked ({', '.join(marked)})")
        try:
            shares[program] = float(marks)
        except ValueError:
            raise ValueError(f"--weight {item}: the marks must be a number") from None
        if not 0 <= shares[program] < float("inf"):
            raise ValueError(f"--weight {item}: the marks must be zero or more")
    return shares


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="python3 -m marking.mark", description=__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("submission", type=Path)
    parse.add_argument("--tty", action="store_true", help="also compare the terminal screens")
    parse.add_argument("--jobs", type=jobs, default=1, help="cases run at once")
    parse.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                       help=f"seconds per case, up to {MOST_SECONDS} (default {DEFAULT_TIMEOUT:g})")
    parse.add_argument("--json", type=Path, help="write Gradescope's results.json here")
    parse.add_argument("--weight", action="append", default=[], metavar="PROGRAM=MARKS",
                       help=f"marks of a program (default: {TOTAL_MARKS} shared equally)")
    parse.add_argument("--python", help="interpreter that runs the submission")
    parse.add_argument("--only", metavar="GLOB", action="append",
                       help="only the cases whose PROGRAM/NAME matches (may be given again)")
    parse.add_argument("--isolation", choices=[AUTO, NAMESPACES, FALLBACK], default=AUTO,
                       help="namespaces where the machine allows them (auto), always "
                            "(namespaces: refuse to mark without), or never (fallback)")
    return parse


class Marking:
    """One marking run: its cases, the sandbox, and what Ctrl-C must stop."""

    def __init__(self, sandbox: Sandbox, snapshot: Path, modes: list):
        self.sandbox, self.snapshot, self.modes = sandbox, snapshot, modes

    def case(self, case) -> list:
        verdicts = []
        for mode in self.modes:
            if mode == TERMINAL and case.screen is None:
                continue
            verdicts.append(self.run(case, mode))
        return verdicts

    def run(self, case, mode: str) -> Verdict:
        files = {STATS_FILE: case.stats} if case.stats is not None else {}
        try:
            outcome = self.sandbox.run(
                self.snapshot, lambda home: command(case, home, self.sandbox.python), case.stdin,
                files, lambda home: {STATS_VARIABLE: str(home / STATS_FILE)},
                terminal=mode == TERMINAL)
        except Stopped:
            return Verdict(case.id, mode, NOT_RUN, INTERRUPTED)
        except Exception as problem:  # a fault of the marker must not cost the report
            return Verdict(case.id, mode, MARKER_ERROR, escaped(f"{type(problem).__name__}: "
                                                                f"{problem}"))
        if self.sandbox.stopping.is_set():
            return Verdict(case.id, mode, NOT_RUN, INTERRUPTED)
        return judge(case, mode, outcome, self.sandbox.timeout)


def select_cases(patterns: list) -> dict:
    return {program: [case for case in load_cases(program)
                      if any(fnmatch.fnmatchcase(case.id, pattern) for pattern in patterns)]
            for program in programs()}


def arguments_from_make() -> list:
    """`make mark` hands SUBMISSION and ARGS over in the environment, so that no shell
    or make re-reads them: a path may hold any byte."""
    submission = os.environ.get("MARK_SUBMISSION", "")
    if not submission:
        parser().error(NO_SUBMISSION)
    try:
        options = shlex.split(os.environ.get("MARK_ARGS", ""))
    except ValueError as problem:
        parser().error(BAD_ARGS.format(problem=problem))
    return [*options, "--", submission]


def main(argv=None) -> int:
    console.use_utf8_streams()
    parse = parser()
    options = parse.parse_args(argv)
    if options.json:
        try:
            check_json_target(options.json.absolute())
        except ValueError as problem:
            parse.error(f"--json: {problem}")
    if options.tty and importlib.util.find_spec("pexpect") is None:
        parse.error("--tty needs pexpect (make mark installs it)")
    patterns = options.only or ["*"]
    selected = select_cases(patterns)
    marked = [program for program, cases in selected.items() if cases]
    if not marked:
        parse.error(NOTHING_MATCHES.format(patterns=" or ".join(patterns)))
    try:
        shares = weights(options.weight, marked)
    except ValueError as problem:
        parse.error(str(problem))
    scratch = Path(tempfile.mkdtemp(prefix="marking-"))
    try:
        return mark(options, parse, scratch, selected, marked, shares)
    finally:
        remove_tree(scratch)


def mark(options, parse, scratch: Path, selected: dict, marked: list, shares: dict) -> int:
    started = time.monotonic()
    submission = options.submission.absolute()
    snapshot = scratch / "snapshot"
    snapshot.mkdir(mode=0o700)
    try:
        copied = copy_tree(submission, snapshot, skip=skip_reason, limits=Limits())
    except Refused as problem:
        parse.error(escaped(str(problem), most=1000))
    try:
        sandbox = Sandbox(options.timeout, scratch, [ROOT, EXPECTED_OUTPUTS, scratch, submission],
                          options.python, options.isolation)
    except RuntimeError as problem:
        parse.error(str(problem))
    try:
        with stopped_by_signals(sandbox):
            return mark_in(sandbox, options, snapshot, copied, selected, marked, shares, started,
                           submission)
    finally:
        sandbox.close()


def mark_in(sandbox, options, snapshot, copied, selected, marked, shares, started,
            submission) -> int:
    present = [program for program in marked if (snapshot / f"{program}.py").is_file()]
    cases = [case for program in present for case in selected[program]]
    modes = [PIPE, TERMINAL] if options.tty else [PIPE]
    marking = Marking(sandbox, snapshot, modes)
    with ThreadPoolExecutor(options.jobs) as pool:
        verdicts = list(pool.map(marking.case, cases))
    results = {program: {} if program in present else None for program in marked}
    for case, case_verdicts in zip(cases, verdicts):
        results[case.program][case.id] = case_verdicts
    header = [MARKING.format(submission=escaped(str(submission), most=1000), cases=len(cases),
                             jobs=options.jobs), *sandbox.describe()]
    if copied.left_out:
        header.append(f"Left out of the copy: {describe_left_out(copied)}")
    if not sandbox.namespaces and not sandbox.as_root:
        print(RUNS_AS_YOU, file=sys.stderr)
    elif not sandbox.namespaces:
        for path in golden_copies_readable():
            print(GOLDEN_READABLE.format(path=path), file=sys.stderr)
    not_run = sum(1 for case_verdicts in verdicts for verdict in case_verdicts
                  if verdict.kind == NOT_RUN)
    out = Terminal(sys.stdout)
    gradescope = report(results, shares, time.monotonic() - started, header, out, not_run)
    gradescope["extra_data"] = {"isolation": sandbox.describe(), "users": sandbox.users,
                                "cgroups": [str(parent) for parent in sandbox.groups.parents]
                                if sandbox.groups else []}
    if options.json:
        try:
            write_json(options.json.absolute(), gradescope)
        except OSError as problem:
            print(f"--json: {problem}", file=sys.stderr)
            return 1
    if sandbox.stopping.is_set():
        return EXIT_INTERRUPTED
    every = [verdict for case_verdicts in verdicts for verdict in case_verdicts]
    return 0 if present and every and all(verdict.passed for verdict in every) else 1


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


if __name__ == "__main__":
    sys.exit(main(arguments_from_make() if "MARK_SUBMISSION" in os.environ else None))
