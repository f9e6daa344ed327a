"""Mark a submission the way the automarker does: `make mark SUBMISSION=DIR`.

    python3 -m marking.mark DIR [--tty] [--jobs N] [--timeout S] [--json FILE]
                               [--weight PROGRAM=MARKS]... [--python PATH] [--only GLOB]...

For each program of expected_outputs/ present in DIR, every golden case runs
against a copy of the submission in a fresh folder, stdin piped, stdout
compared byte for byte (--tty: the terminal screen too), under the limits of
marking/sandbox.py. Exit status 0 only when every case of every program present
passes.
"""

import argparse
import fnmatch
import importlib.util
import json
import os
import shutil
import stat
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from common import console
from golden.cases import EXPECTED_OUTPUTS, load_cases, programs
from golden.run import DEFAULT_TIMEOUT, STATS_FILE, command, workspace
from marking.sandbox import (MOST_OUTPUT, Sandbox, hand_over, kill_user, run_limited,
                            scrubbed_environment)
from golden.visible import first_difference, visible_diff

TOTAL_MARKS = 13
NOT_COPIED = {"expected_outputs", "tests", "__pycache__", STATS_FILE}
MOST_SUBMISSION_BYTES = 64 << 20  # copied once per case
MOST_SECONDS = 3600

PASS = "pass"
WRONG = "wrong output"
CRASH = "crash"
TIMEOUT = "timeout"
TOO_LARGE = "output too large"
MISSING = "missing"
NOT_SUBMITTED = "{program}.py is not in the submission (a link does not count)"
GOLDEN_READABLE = ("warning: any user can read {folder}, so a submission could print the expected "
                   "outputs; for real marking, run from a copy in a folder only you can read")

PIPE = "stdout, stdin piped"
TERMINAL = "terminal screen"


@dataclass(frozen=True)
class Verdict:
    case_id: str
    mode: str
    kind: str
    detail: str = ""
    diff: str = ""

    @property
    def passed(self) -> bool:
        return self.kind == PASS


def submission_size(submission: Path) -> int:
    """The bytes each case copies: what `copy_submission` takes."""
    size = 0
    for folder, folders, files in os.walk(submission):
        folders[:] = [name for name in folders if not left_out(folder, name)]
        size += sum(os.path.getsize(os.path.join(folder, name)) for name in files
                    if not left_out(folder, name))
    return size


def left_out(folder: str, name: str) -> bool:
    """Hidden files, golden outputs, tests, and all but plain files and folders:
    links could lead the sandbox's user outside, a FIFO or device never ends."""
    if name.startswith(".") or name in NOT_COPIED:
        return True
    try:
        mode = os.lstat(os.path.join(folder, name)).st_mode
    except OSError:
        return True
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def copy_submission(submission: Path, folder: Path) -> None:
    """The submission as `left_out` filters it."""
    shutil.copytree(submission, folder, dirs_exist_ok=True,
                    ignore=lambda directory, names: [name for name in names
                                                     if left_out(directory, name)])


def judge(case, mode: str, got: bytes, want: bytes, status, stderr: bytes,
          timed_out: bool, too_large: str, timeout: float) -> Verdict:
    """The verdict on one run; `stderr` is where a traceback would show (the
    screen itself in a terminal), `too_large` the stream that overflowed."""
    if too_large:
        return Verdict(case.id, mode, TOO_LARGE, f"{too_large} over {MOST_OUTPUT >> 20} MiB")
    if timed_out:
        return Verdict(case.id, mode, TIMEOUT, f"no end in {timeout:g} s")
    text = stderr.decode("utf-8", "replace").strip().splitlines()
    traceback = b"Traceback" in stderr and text
    if got == want:  # what the automarker compares; a traceback after it is still worth a look
        return Verdict(case.id, mode, PASS, f"but stderr ends: {text[-1]}" if traceback else "")
    diff = visible_diff(got, want, f"{case.id} ({mode})")
    if status != 0 and (traceback or status < 0):
        reason = text[-1] if traceback else f"killed by signal {-status}"
        return Verdict(case.id, mode, CRASH, reason, diff)
    detail = first_difference(got.decode("utf-8", "surrogateescape"),
                              want.decode("utf-8", "surrogateescape"))
    if status and text:
        detail += f"; exit status {status}, stderr ends: {text[-1]}"
    return Verdict(case.id, mode, WRONG, detail, diff)


def mark_case(case, submission: Path, sandbox: Sandbox, modes: list) -> list:
    verdicts = []
    for mode in modes:
        if mode == TERMINAL and case.screen is None:
            continue
        with workspace(case, scrubbed_environment("/nonexistent")) as (folder, env):
            env["HOME"] = folder
            copy_submission(submission, Path(folder))
            uid = sandbox.new_user()
            hand_over(folder, uid)
            program = command(case, Path(folder), sandbox.python)
            try:
                if mode == PIPE:
                    run = run_limited(sandbox, program, case.stdin, folder, env, uid)
                    verdicts.append(judge(case, mode, run.stdout, case.stdout, run.status,
                                          run.stderr, run.timed_out, run.too_large, sandbox.timeout))
                else:
                    from golden.terminal import run_in_terminal

                    screen = run_in_terminal(sandbox.wrap(program, uid, folder), case.stdin, "/",
                                             env, sandbox.timeout)
                    verdicts.append(judge(case, mode, screen.output, case.screen, screen.status,
                                          screen.output, screen.timed_out,
                                          "the screen" if screen.too_large else "", sandbox.timeout))
            finally:
                kill_user(uid)
    return verdicts


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


def report(results: dict, shares: dict, seconds: float, out) -> dict:
    """Print the report; return it in Gradescope's results.json shape."""
    tests, failures, score = [], [], 0.0
    for program, verdicts_by_case in results.items():
        print(program, file=out)
        if verdicts_by_case is None:
            print(f"  {MISSING:<16} {NOT_SUBMITTED.format(program=program)}", file=out)
            tests.append({"name": f"{program}.py", "score": 0, "max_score": shares[program],
                          "output": NOT_SUBMITTED.format(program=program), "visibility": "visible"})
            continue
        each = shares[program] / len(verdicts_by_case)
        passed = 0
        for case_id, verdicts in verdicts_by_case.items():
            ok = all(verdict.passed for verdict in verdicts)
            passed += ok
            for verdict in verdicts:
                mode = "" if verdict.mode == PIPE else f" [{verdict.mode}]"
                detail = f": {verdict.detail}" if verdict.detail else ""
                print(f"  {verdict.kind:<16} {case_id}{mode}{detail}", file=out)
                if not verdict.passed and verdict.diff:
                    failures.append(verdict.diff)
            tests.append({"name": case_id, "score": each if ok else 0, "max_score": each,
                          "output": "\n\n".join(f"{v.kind}: {v.detail}\n{v.diff}".strip()
                                                for v in verdicts if not v.passed) or PASS,
                          "visibility": "visible"})
        score += each * passed
        print(f"  {program}: {passed}/{len(verdicts_by_case)} cases pass", file=out)
    if failures:
        print("\nWhat differs", file=out)
        print("\n\n".join(failures), file=out)
    print(f"\nScore: {score:.2f}/{sum(shares.values()):.2f} in {seconds:.1f} s", file=out)
    return {"score": round(score, 4), "max_score": sum(shares.values()), "tests": tests,
            "visibility": "visible"}


def readable_by_anyone(path: Path) -> bool:
    """Whether any user could read `path`: the folder and every folder above it open to others."""
    folders = [path, *path.parents]
    return all(os.stat(folder).st_mode & stat.S_IXOTH for folder in folders) and bool(
        os.stat(path).st_mode & stat.S_IROTH)


def seconds(text: str) -> float:
    value = float(text)
    if not 0 < value <= MOST_SECONDS:
        raise argparse.ArgumentTypeError(f"a number of seconds above 0, up to {MOST_SECONDS}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m marking.mark", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submission", type=Path)
    parser.add_argument("--tty", action="store_true", help="also compare the terminal screens")
    parser.add_argument("--jobs", type=int, default=1, help="cases run at once")
    parser.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                        help=f"seconds per case, up to {MOST_SECONDS} (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--json", type=Path, help="write Gradescope's results.json here")
    parser.add_argument("--weight", action="append", default=[], metavar="PROGRAM=MARKS",
                        help=f"marks of a program (default: {TOTAL_MARKS} shared equally)")
    parser.add_argument("--python", help="interpreter that runs the submission")
    parser.add_argument("--only", metavar="GLOB", action="append",
                        help="only the cases whose PROGRAM/NAME matches (may be given again)")
    options = parser.parse_args(argv)
    console.end_silently_on_closed_pipe()
    if not options.submission.is_dir():
        parser.error(f"{options.submission} is not a folder")
    if options.json and not os.access(options.json.resolve().parent, os.W_OK):
        parser.error(f"--json: cannot write in {options.json.resolve().parent}")
    if options.tty and importlib.util.find_spec("pexpect") is None:
        parser.error("--tty needs pexpect (make mark installs it)")
    submission = options.submission.resolve()
    if submission_size(submission) > MOST_SUBMISSION_BYTES:
        parser.error(f"{submission} holds more than {MOST_SUBMISSION_BYTES >> 20} MiB "
                     "(each case copies it): leave the data out")
    started = time.monotonic()
    try:
        sandbox = Sandbox(options.timeout, options.python)
    except RuntimeError as problem:
        parser.error(str(problem))
    modes = [PIPE, TERMINAL] if options.tty else [PIPE]
    patterns = options.only or ["*"]
    selected = {program: [case for case in load_cases(program)
                          if any(fnmatch.fnmatchcase(case.id, pattern) for pattern in patterns)]
                for program in programs()}
    marked = [program for program, cases in selected.items() if cases]
    if not marked:
        parser.error(f"no golden case matches {' or '.join(patterns)}")
    try:
        shares = weights(options.weight, marked)
    except ValueError as problem:
        parser.error(str(problem))
    present = [program for program in marked if (submission / f"{program}.py").exists()
               and not left_out(str(submission), f"{program}.py")]
    cases = [case for program in present for case in selected[program]]
    with ThreadPoolExecutor(max(1, options.jobs)) as pool:
        verdicts = list(pool.map(lambda case: mark_case(case, submission, sandbox, modes), cases))
    results = {program: {} if program in present else None for program in marked}
    for case, case_verdicts in zip(cases, verdicts):
        results[case.program][case.id] = case_verdicts
    print(f"Marking {submission}: {len(cases)} cases, {options.timeout:g} s each, "
          f"{options.jobs} at once, {sandbox.python}")
    if readable_by_anyone(EXPECTED_OUTPUTS):
        print(GOLDEN_READABLE.format(folder=EXPECTED_OUTPUTS), file=sys.stderr)
    gradescope = report(results, shares, time.monotonic() - started, sys.stdout)
    if options.json:
        options.json.write_text(json.dumps(gradescope, indent=2, ensure_ascii=False) + "\n")
    every_case = [verdict for program in present for case_verdicts in results[program].values()
                  for verdict in case_verdicts]
    return 0 if present and all(verdict.passed for verdict in every_case) else 1


if __name__ == "__main__":
    sys.exit(main())
