"""Each mutant of a reference run on the marked cases that reach its line, in a scratch
copy of the reference laid out as it is, through the marker's own run and comparison
(run_piped, judge): fastest case first, stopped at its second failed case. No sandbox:
the reference is ours. Mutants run `jobs` at once."""

import dataclasses
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from exactmark.marking.verdicts import Kind, judge
from exactmark.mutants.model import Verdict
from exactmark.running.run import run_piped

KILLED_AT = 2  # failed cases that kill a mutant
LEAST_TIMEOUT = 5.0  # seconds: a mutant's run of a case stops at this, or at
TIMES_REFERENCE = 10  # this many times the reference's own run of the case
NOT_COMPILED = "did not compile"


@dataclass(frozen=True)
class Outcome:
    """What became of one mutant."""
    mutant: object  # exactmark.mutants.model.Mutant
    verdict: Verdict
    reaching: tuple  # names of the marked cases that reach its line
    failed: tuple = ()  # names of the cases it failed (KILLED_AT at most)
    runs: int = 0
    compiled: bool = True  # False: a C or C++ mutant that did not build (not a mutant)


def write_tree(folder: Path, texts: dict) -> Path:
    """The files `texts` (relative path -> text) written under `folder`."""
    for path, text in texts.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    return folder


def run_mutant(mutant, reaching: list, texts: dict, program, rules_of, scratch: Path,
               build=None) -> Outcome:
    """The mutant (texts: the reference's files with it applied) run on `reaching`, a
    list of Reached (fastest first). `build(folder) -> folder or None` builds a compiled
    program (None: it did not compile)."""
    names = tuple(reach.marked.case.name for reach in reaching)
    folder = Path(tempfile.mkdtemp(prefix="mutant-", dir=scratch))
    try:
        home = write_tree(folder / "source", texts)
        if build is not None:
            home = build(home)
            if home is None:
                return Outcome(mutant, Verdict.SURVIVED, names, compiled=False)
        failed, runs = [], 0
        for reach in reaching:
            case = reach.marked.case
            timeout = max(LEAST_TIMEOUT, TIMES_REFERENCE * reach.seconds)
            ran = run_piped(case, home, timeout, program=program)
            runs += 1
            if judge(case, "piped", ran, rules_of(reach.marked)).kind != Kind.PASS:
                failed.append(case.name)
                if len(failed) == KILLED_AT:
                    break
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    verdict = (Verdict.KILLED_TWICE if len(failed) >= KILLED_AT
               else Verdict.PINNED_ONCE if failed else Verdict.SURVIVED)
    return Outcome(mutant, verdict, names, tuple(failed), runs)


def run_all(work: list, jobs: int, said=None) -> list:
    """Outcome of each (mutant, function -> Outcome) in `work`, `jobs` at once, in order;
    `said(done, total)` after each."""
    done = []
    with ThreadPoolExecutor(jobs) as pool:
        for outcome in pool.map(lambda item: item(), work):
            done.append(outcome)
            if said is not None:
                said(len(done), len(work))
    return done


def with_reference(program, folder: Path):
    """`program` as if its reference were `folder` (to build a mutant's copy)."""
    return dataclasses.replace(program, reference=folder)
