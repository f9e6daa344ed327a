"""make signatures [ASSIGNMENT=NAME|FILE.toml] [PROGRAM=NAME] [ARGS="--jobs 1"]

    exactmark signatures [--assignment NAME|FILE.toml] [--program NAME] [--jobs N]

Each wrong program's signature: every marked case it fails, with the kind of the failure,
the kind of its near miss and the digest of what it printed, as the marker marks it as a
student's program on every marked case (no fresh case: their names are drawn per
student). A program's are written to PROGRAM.signatures.json beside its rule map, with
`inputs`, a digest of what they depend on (its wrong programs, the assignment file, the
rule map, its marked cases' files and the reference's), which a test compares with the
checkout's. A diagnosis of a student's failed cases rests on them; `make verify` checks
them on every case it marks. Prints a line per wrong program, then one per program
written, with the time it took.
"""

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from exactmark.base import from_make, streams
from exactmark.diagnosis import evidence, known
from exactmark.base.exits import Exit
from exactmark.kit.assignment import ASSIGNMENTS, AssignmentError, wrong_folder
from exactmark.kit.bundle import BundleError, read_by
from exactmark.kit.cases import ROOT
from exactmark.kit.rules import RuleError, beside_rule_map, rule_map
from exactmark.kit.variants import VariantError
from exactmark.marking import records
from exactmark.marking.verdicts import Kind
from exactmark.verify.marker import (MarkerFailed, assignment_of_each_program,
                                     assignments_to_verify, marked_by_the_marker,
                                     sample_solution, submission_of, variants)

SUFFIX = known.SUFFIX
EVIDENCE_NAME = "exactmark/diagnosis/evidence.py"  # hashed under this name, wherever installed
EXAMPLE = "example: exactmark signatures --program solitaire_2 --jobs 1"
WRONG_LINE = "  {name:<50} fails {failed:>3} of {total}"
WROTE = "{program} ({assignment}): {count} wrong programs on {cases} cases in {seconds:.0f} s: wrote {path}"
NO_PROGRAM = "signatures: no program {program!r} with wrong programs in {assignments}"
BAD = "signatures: {problem}"
# What a stale or missing file says: the command that writes it again.
REMAKE = "make signatures PROGRAM={program}"
REMAKE_OWN = "make signatures ASSIGNMENT={assignment} PROGRAM={program}"
MISSING = "{path}: no signatures of {program}'s wrong programs: {command}"
STALE = ("{path}: written from other files than the checkout's (a wrong program, the "
         "assignment, the rule map, a case or the reference changed): {command}")
NOT_BUILT = {"kind": str(Kind.NOT_BUILT), "near_miss": "", "digest": "", "lines": []}
MAKE = "MARK_PROGRAM"  # set (maybe empty) by make signatures alone


def path_of(assignment, program) -> Path:
    """Where the signatures of `program` (a exactmark.kit.programs.Program) lie."""
    return beside_rule_map(assignment, program, SUFFIX)


def remake(assignment, program: str) -> str:
    """The command that writes the program's signatures again."""
    if assignment.path.parent == ASSIGNMENTS:
        return REMAKE.format(program=program)
    return REMAKE_OWN.format(assignment=assignment.path, program=program)


def inputs(assignment, program) -> str:
    """sha256 of what the signatures depend on, each file by its path (from the kit's
    folder, or the assignment file's) and its bytes, in path order: the program's wrong
    programs, the assignment file, its rule lists, its marked cases' files and the
    reference's files; and the code that finds a run's changed lines, by its name in the
    package, since the lines stored must be found as a student's are."""
    base = (ROOT if assignment.path.parent == ASSIGNMENTS else assignment.path.parent).resolve()
    found = rule_map(program)
    paths = [*wrong_folder(assignment.path, program.name).glob("*.toml"), assignment.path,
             *(path for path in (found.read if found else ()) if path.suffix == ".toml"),
             *(path for marked in assignment.marked_cases[program.name]
               for path in marked.case.folder.glob(f"{marked.case.name}.*")),
             *read_by(program)]
    named = sorted({**{os.path.relpath(Path(path).resolve(), base): Path(path) for path in paths},
                    EVIDENCE_NAME: Path(evidence.__file__)}.items())
    digest = hashlib.sha256()
    for name, path in named:
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def read(assignment, program) -> dict:
    """The program's signatures as written, or None where there is no file."""
    path = path_of(assignment, program)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def stale(assignment, program) -> str:
    """Why the program's signatures do not stand for the checkout, and the command that
    writes them again; "" when they do."""
    path, written = path_of(assignment, program), read(assignment, program)
    command = remake(assignment, program.name)
    if written is None:
        return MISSING.format(path=path, program=program.name, command=command)
    if written.get("inputs") != inputs(assignment, program):
        return STALE.format(path=path, command=command)
    return ""


def failures(marking, program: str, cases: list) -> dict:
    """case name -> its failure (kind, near miss's kind, digest), of the marked `cases` a
    marking (a records.MarkingRecord) of `program` did not pass; every one "not built" where
    the program was not submitted or did not build."""
    data = marking.programs.get(program)
    if data is None or not data.submitted or (data.build is not None and not data.build.ok):
        return {case: NOT_BUILT for case in cases}
    return {case.name: {"kind": str(case.kind), "near_miss": case.near_miss_kind,
                        "digest": case.digest, "lines": [list(lines) for lines in case.lines]}
            for case in marking.cases if case.program == program and not case.passed
            and case.name in cases}


def marked_as_a_student(variant, assignment, solution: dict, scratch: Path,
                        jobs: int) -> tuple:
    """(the marking record, the marked cases' names) of `variant` marked by the marker as a
    student's program on every marked case."""
    folder = submission_of(variant, solution, scratch / "wrong" / variant.id)
    cases = [marked.case.name for marked in assignment.marked_cases[variant.program]]
    with tempfile.TemporaryDirectory(prefix="signatures-") as marking:
        written = marked_by_the_marker(folder, assignment,
                                       [f"{variant.program}/{case}" for case in cases], jobs,
                                       Path(marking), cpu_seconds=variant.cpu_seconds)
    return records.MarkingRecord.from_dict(written.get("extra_data", {})), cases


def signature(variant, assignment, solution: dict, scratch: Path, jobs: int) -> dict:
    """The variant's entry: its rule, its mistake and the marked cases it fails."""
    record, cases = marked_as_a_student(variant, assignment, solution, scratch, jobs)
    failed = failures(record, variant.program, cases)
    say(WRONG_LINE.format(name=variant.id, failed=len(failed), total=len(cases)))
    return {"rule": variant.rule, "mistake": variant.mistake, "failed": failed}


def written(assignment, program, wrong: list, scratch: Path, jobs: int) -> Path:
    """Mark the program's wrong programs and write their signatures; the file."""
    started = time.monotonic()
    solution = sample_solution(program, scratch)
    marked = assignment.marked_cases[program.name]
    data = {"program": program.name, "inputs": inputs(assignment, program),
            "cases": [case.case.name for case in marked],
            "visibility": {case.case.name: case.visibility for case in marked},
            "wrong": {variant.id: signature(variant, assignment, solution, scratch, jobs)
                      for variant in wrong}}
    path = path_of(assignment, program)
    path.write_text(dumped(data),
                    encoding="utf-8")
    say(WROTE.format(program=program.name, assignment=assignment.name, count=len(wrong),
                     cases=len(marked), seconds=time.monotonic() - started, path=path))
    return path


def dumped(data: dict) -> str:
    """The file's text: JSON, a key a line and a wrong program a line, so that a change to
    one shows as that line in a diff, and the lines of a run stay ranges, not a number a
    line."""
    def one_line(value) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    head = [f" {one_line(key)}: {one_line(value)}," for key, value in sorted(data.items())
            if key != "wrong"]
    wrong = [f"  {one_line(name)}: {one_line(entry)}" for name, entry in sorted(data["wrong"].items())]
    return "\n".join(["{", *head, ' "wrong": {', ",\n".join(wrong), " }", "}"]) + "\n"


def say(line: str) -> None:
    print(line, flush=True)


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="exactmark signatures",
                                    description=__doc__.split("\n\n", 2)[2], epilog=EXAMPLE,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("--assignment", metavar="NAME|FILE.toml",
                       help="one assignment (a name, or FILE.toml) instead of the kit's")
    parse.add_argument("--program", metavar="NAME", help="one program of it")
    parse.add_argument("--jobs", type=int, default=2, metavar="N",
                       help="cases marked at once (default 2)")
    return parse


def main(argv=None) -> int:
    options = parser().parse_args(argv)
    try:
        chosen = assignments_to_verify(options.assignment)
        assignments = assignment_of_each_program(chosen)
        wrong, _ = variants(chosen)
    except (AssignmentError, VariantError) as problem:
        say(BAD.format(problem=problem))
        return Exit.REFUSED
    programs = [name for name in assignments if options.program in (None, name)
                and any(variant.program == name for variant in wrong)]
    if not programs:
        say(NO_PROGRAM.format(program=options.program,
                              assignments=", ".join(assignment.name for assignment in chosen)))
        return Exit.REFUSED
    with tempfile.TemporaryDirectory(prefix="signatures-") as scratch:
        try:
            for name in programs:
                assignment = assignments[name]
                written(assignment, assignment.programs[name],
                        [variant for variant in wrong if variant.program == name],
                        Path(scratch), options.jobs)
        except (MarkerFailed, VariantError, BundleError, RuleError, OSError) as problem:
            say(BAD.format(problem=problem))
            return Exit.REFUSED
    return Exit.PASSED


if __name__ == "__main__":
    streams.speak_utf8()
    try:
        sys.exit(main(from_make.arguments(parser(), [("MARK_ASSIGNMENT", "--assignment"),
                                                     (MAKE, "--program")])
                      if len(sys.argv) == 1 and MAKE in os.environ else None))
    except KeyboardInterrupt:
        sys.exit(Exit.INTERRUPTED)
