"""What `make verify` and `make signatures` both do: find each program's assignment and
its variants, turn a variant into the folder a student would hand in, and mark that
folder with the real marker, as a course would."""

import json
import os
import subprocess
from pathlib import Path

from exactmark.base.exits import Exit
from exactmark.base.visible import escaped
from exactmark.kit.assignment import ASSIGNMENTS, WRONG, load, names
from exactmark.kit.bundle import write_program
from exactmark.kit.cases import ROOT
from exactmark.kit.variants import read_variants
from exactmark.marking.request import MarkRequest, marker_environment

HONEST = ROOT / "tests" / "honest"
MARKED = (Exit.PASSED, Exit.FAILED)  # the marker's, and a pack checker's, ends with results
MARKER_FAILED = "the marker ended with status {status} on {name}:\n{stderr}"


class MarkerFailed(RuntimeError):
    pass


def assignments_to_verify(chosen: str = None) -> list:
    """The kit's assignments, or the one chosen (a name, or an instructor's FILE.toml)."""
    return [load(chosen)] if chosen else [load(name) for name in names()]


def assignment_of_each_program(assignments: list = None) -> dict:
    """program -> the first assignment that marks golden cases of it (its file, which the
    marker reads)."""
    found = {}
    for assignment in assignments or assignments_to_verify():
        for program, cases in assignment.marked_cases.items():
            if cases:
                found.setdefault(program, assignment)
    return found


def variants(assignments: list) -> tuple:
    """(the wrong variants, the honest ones) of the assignments' programs: the kit's, in
    tests/; those of an assignment file kept outside the kit, in wrong/ and honest/ beside
    it (a program named as one of the kit's is still the instructor's own)."""
    wrong, honest = [], []
    for assignment in assignments:
        kit = assignment.path.parent == ASSIGNMENTS
        for found, folder in ((wrong, WRONG if kit else assignment.path.parent / "wrong"),
                              (honest, HONEST if kit else assignment.path.parent / "honest")):
            found += [variant for variant in read_variants(folder)
                      if variant.program in assignment.marked_cases and variant not in found]
    return wrong, honest


def marked_by_the_marker(folder: Path, assignment, patterns: list, jobs: int, scratch: Path,
                         isolation: str = "auto", tty: bool = False,
                         cpu_seconds: float = None) -> dict:
    """The results.json of the marker on `folder`, the cases of `patterns` only (with
    `cpu_seconds` as each run's CPU limit, where given)."""
    results = scratch / "results.json"
    asked = MarkRequest(str(assignment.path), str(folder), json=str(results), jobs=jobs,
                        isolation=isolation, only=tuple(patterns), tty=tty,
                        timeout=cpu_seconds)
    done = subprocess.run(asked.argv(), cwd=ROOT, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=marker_environment(os.environ))
    if done.returncode not in MARKED or not results.exists():
        raise MarkerFailed(MARKER_FAILED.format(
            status=done.returncode, name=folder.name,
            stderr=escaped(done.stderr[-2000:].decode("utf-8", "replace"))))
    return json.loads(results.read_text(encoding="utf-8"))


def sample_solution(program, scratch: Path) -> dict:
    """What a student of `program` hands in when right (`make standalone`): name -> text."""
    folder = scratch / "solutions" / program.name
    return {path.name: path.read_text(encoding="utf-8")
            for path, _ in write_program(program, folder)}


def submission_of(variant, solution: dict, folder: Path) -> Path:
    """A folder holding the variant's program alone, as a student hands it in."""
    folder.mkdir(parents=True)
    for name, text in variant.applied_to(solution).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
