"""Which marked cases reach each line of a Python reference: each case run once on the
unmutated reference under coverage.py (traced.py), in a copy laid out as the reference
is. A mutant on a line no marked case reaches needs no run: nothing can kill it."""

import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from exactmark.marking.verdicts import Kind, Rules, judge
from exactmark.running.run import command, run_argv, workspace

TRACED = Path(__file__).with_name("traced.py")
REFERENCE_FAILS = ("{program}: the reference fails its own marked case {case} ({kind}): "
                   "mutants of it would prove nothing")
TIMEOUT = 600.0  # seconds: the unmutated reference's run of one case, measured


class ReachError(ValueError):
    pass


@dataclass(frozen=True)
class Reached:
    """A marked case as the unmutated reference runs it."""
    marked: object  # exactmark.kit.assignment.MarkedCase
    seconds: float  # its run under coverage: more than the reference's own time
    lines: dict  # file (relative, posix) -> frozenset of the first lines of the statements run


def first_lines(text: str) -> dict:
    """line -> the first line of its statement, as coverage.py counts a statement's lines."""
    from coverage.parser import PythonParser

    parser = PythonParser(text=text)
    parser.parse_source()
    return {line: parser.first_line(line) for line in range(1, text.count("\n") + 2)}


def traced(marked, program, root: Path, files: tuple, rules: Rules, scratch: Path) -> Reached:
    """One marked case run on the reference copied in `root`, under coverage."""
    from coverage import CoverageData

    case = marked.case
    data = scratch / f"{case.name}.coverage"
    argv = command(case, root, program=program)
    with workspace(case) as (folder, environment):
        started = time.monotonic()
        ran = run_argv(case, [sys.executable, str(TRACED), str(data), str(root), *argv[1:]],
                       folder, environment, TIMEOUT)
        seconds = time.monotonic() - started
    verdict = judge(case, "piped", ran, rules)
    if verdict.kind != Kind.PASS:
        raise ReachError(REFERENCE_FAILS.format(program=program.name, case=case.name,
                                                kind=verdict.kind))
    found = CoverageData(basename=str(data))
    found.read()
    lines = {}
    for measured in found.measured_files():
        path = Path(measured).resolve().relative_to(root.resolve()).as_posix()
        if path in files:
            lines[path] = frozenset(found.lines(measured) or ())
    return Reached(marked, seconds, lines)


def reached(cases: list, program, root: Path, files: tuple, rules_of, jobs: int) -> list:
    """Each marked case (a MarkedCase) of `program` run once on its reference in `root`
    (its `files` there), `jobs` at once: fastest first."""
    with tempfile.TemporaryDirectory(prefix="reach-") as scratch, ThreadPoolExecutor(jobs) as pool:
        found = list(pool.map(lambda marked: traced(marked, program, root, files,
                                                    rules_of(marked), Path(scratch)), cases))
    return sorted(found, key=lambda reach: reach.seconds)
