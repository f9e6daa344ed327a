"""make verify [ARGS="--only 'solitaire_1/*'"]

    python3 -m verify [--only GLOB]... [--jobs N] [--isolation auto|namespaces|fallback]

Marks, with the marker and each program's assignment, as a course would:
  1. the reference programs: every marked case must pass;
  2. tests/honest/: other faithful readings of the handouts (input() for a
     line): every marked case must pass, piped and at a terminal;
  3. tests/wrong/: programs with a mistake students make: each must fail at
     least two marked cases (one case alone is a single point of failure).
Prints a line per program as it is marked, then the score; exit status 0 only
when nothing is missed.
"""

import argparse
import fnmatch
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from common import console
from golden.cases import ROOT
from golden.visible import escaped
from marking.assignment import load, names
from standalone.bundle import write_all
from verify.variants import VariantError, read_variants

WRONG = ROOT / "tests" / "wrong"
HONEST = ROOT / "tests" / "honest"
AT_LEAST = 2  # marked cases a wrong program must fail
PASSED = "passed"

REFERENCE = "{verdict:<7} reference   {name:<40} {passed}/{total} marked cases pass"
HONEST_LINE = "{verdict:<7} honest      {name:<40} {passed}/{total} pass, {mode}"
WRONG_LINE = "{verdict:<7} wrong       {name:<40} fails {failed:>3} of {total}: {mistake}"
FAILED_CASES = "          failed: {cases}"
SCORE = "Wrong programs caught: {caught}/{total}; marked cases failed per wrong program: " \
        "fewest {fewest}, median {median:g}, most {most}"
USELESS = "Marked cases no wrong program fails ({count}): {cases}"
VERDICT = "verify: {problems} problem(s): {summary}"
ALL_GOOD = "verify: the references and honest variants pass everything; every wrong program is caught"
MARKER_FAILED = "the marker ended with status {status} on {name}:\n{stderr}"
NO_VARIANT = "verify: no variant matches {patterns}"
MODES = {False: "stdin piped", True: "at a terminal"}
SHOWN_CASES = 6


@dataclass(frozen=True)
class Marked:
    total: int
    failed: tuple  # names of the marked cases that did not pass


class MarkerFailed(RuntimeError):
    pass


def assignment_of_each_program() -> dict:
    return {program: name for name in names() for program in load(name).programs}


def mark(folder: Path, assignment: str, program: str, options, tty: bool = False) -> Marked:
    """Mark `folder` as the marker does, the cases of `program` only."""
    with tempfile.TemporaryDirectory(prefix="verify-") as scratch:
        results = Path(scratch) / "results.json"
        command = [sys.executable, "-m", "marking.mark", str(folder), "--assignment", assignment,
                   "--only", f"{program}/*", "--json", str(results), "--jobs", str(options.jobs),
                   "--isolation", options.isolation, *(["--tty"] if tty else [])]
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode not in (0, 1) or not results.exists():
            raise MarkerFailed(MARKER_FAILED.format(
                status=done.returncode, name=folder.name,
                stderr=escaped(done.stderr[-2000:].decode("utf-8", "replace"))))
        tests = [test for test in json.loads(results.read_text(encoding="utf-8"))["tests"]
                 if test["name"].startswith(f"{program}/")]  # not another program's absence
    return Marked(total=len(tests),
                  failed=tuple(test["name"] for test in tests if test["status"] != PASSED))


def submission_of(variant, solutions: Path, folder: Path) -> Path:
    """A folder holding the variant's program alone, as a student hands it in."""
    folder.mkdir(parents=True)
    solution = (solutions / f"{variant.program}.py").read_text(encoding="utf-8")
    (folder / f"{variant.program}.py").write_text(variant.applied_to(solution), encoding="utf-8")
    return folder


def say(line: str) -> None:
    print(line, flush=True)


def check_references(assignments: dict, options) -> list:
    problems = []
    for program, assignment in sorted(assignments.items()):
        marked = mark(ROOT, assignment, program, options)
        verdict = "ok" if not marked.failed else "FAILS"
        say(REFERENCE.format(verdict=verdict, name=f"{program}.py ({assignment})",
                             passed=marked.total - len(marked.failed), total=marked.total))
        if marked.failed:
            say(FAILED_CASES.format(cases=", ".join(marked.failed)))
            problems.append(f"reference {program} fails")
    return problems


def check_honest(variants, assignments, solutions, scratch, options) -> list:
    problems = []
    for variant in variants:
        folder = submission_of(variant, solutions, scratch / "honest" / variant.id)
        for tty in (False, True):
            marked = mark(folder, assignments[variant.program], variant.program, options, tty)
            verdict = "ok" if not marked.failed else "FAILS"
            say(HONEST_LINE.format(verdict=verdict, name=variant.id, mode=MODES[tty],
                                   passed=marked.total - len(marked.failed), total=marked.total))
            if marked.failed:
                say(FAILED_CASES.format(cases=", ".join(marked.failed)))
                problems.append(f"honest {variant.id} fails {MODES[tty]}")
    return problems


def check_wrong(variants, assignments, solutions, scratch, options):
    problems, counts, failing = [], [], set()
    for variant in variants:
        folder = submission_of(variant, solutions, scratch / "wrong" / variant.id)
        marked = mark(folder, assignments[variant.program], variant.program, options)
        caught = len(marked.failed) >= AT_LEAST
        counts.append(len(marked.failed))
        failing.update(marked.failed)
        say(WRONG_LINE.format(verdict="caught" if caught else "MISSED", name=variant.id,
                              failed=len(marked.failed), total=marked.total,
                              mistake=variant.mistake))
        shown = ", ".join(marked.failed[:SHOWN_CASES]) + (" ..." if len(marked.failed) > SHOWN_CASES else "")
        if not caught:
            say(FAILED_CASES.format(cases=shown or "none"))
            problems.append(f"wrong {variant.id} fails {len(marked.failed)} case(s)")
    return problems, counts, failing


def selected(variants, patterns):
    return [v for v in variants if not patterns or any(fnmatch.fnmatchcase(v.id, p) for p in patterns)]


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="python3 -m verify", description=__doc__.split("\n\n")[1])
    parse.add_argument("--only", metavar="GLOB", action="append",
                       help="only the variants PROGRAM/NAME that match, no reference check")
    parse.add_argument("--jobs", type=int, default=2, help="cases marked at once (default 2)")
    parse.add_argument("--isolation", default="auto", choices=("auto", "namespaces", "fallback"))
    return parse


def main(argv=None) -> int:
    options = parser().parse_args(argv)
    try:
        wrong = selected(read_variants(WRONG), options.only)
        honest = selected(read_variants(HONEST), options.only)
    except VariantError as problem:
        say(f"verify: {problem}")
        return 2
    if options.only and not wrong + honest:
        say(NO_VARIANT.format(patterns=" or ".join(options.only)))
        return 2
    assignments = assignment_of_each_program()
    with tempfile.TemporaryDirectory(prefix="verify-") as folder:
        scratch = Path(folder)
        solutions = scratch / "solutions"
        write_all(solutions)
        try:
            problems = [] if options.only else check_references(assignments, options)
            problems += check_honest(honest, assignments, solutions, scratch, options)
            missed, counts, failing = check_wrong(wrong, assignments, solutions, scratch, options)
        except (MarkerFailed, VariantError) as problem:
            say(f"verify: {problem}")
            return 2
    problems += missed
    if counts:
        say(SCORE.format(caught=sum(c >= AT_LEAST for c in counts), total=len(counts),
                         fewest=min(counts), median=statistics.median(counts), most=max(counts)))
    if not options.only:
        marked = {f"{program}/{m.case.name}" for name in set(assignments.values())
                  for program, cases in load(name).programs.items() for m in cases}
        useless = sorted(marked - failing)
        say(USELESS.format(count=len(useless), cases=", ".join(useless) or "none"))
    say(VERDICT.format(problems=len(problems), summary="; ".join(problems)) if problems else ALL_GOOD)
    return 1 if problems else 0


if __name__ == "__main__":
    console.use_utf8_streams()
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
