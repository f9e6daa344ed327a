"""Verdicts kept from an earlier marking of the same submission: `exactmark mark --reuse
RESULTS_JSON`. Each golden case's key hashes what decides its verdicts: its files (input,
expected outputs, status), its program's declaration (language, entry, the files handed in,
flags), how it is run and compared (CPU and wall limits, memory, the interpreter, what it
compares and forgives, the modes), and the submission's fingerprint; a fresh case's files
are the student's draw and what the reference made of it, so the same student's re-run
draws the same files and keeps its verdicts, and another's never matches. A case whose key is the
one the earlier results.json recorded is not run again: its verdicts stand, scored with the
marks and shown with the visibility the assignment gives now, so a change to marks or
visibility alone runs nothing. A group of cases the student writes is kept or run whole:
its key is its declaration (folder, compare, mistakes, most, example), the reference and
the wrong programs it runs, how it runs, and the submission. A verdict that is no verdict
(not run, a marker error, not built, a mistake not decided) is never kept. The earlier
results are the instructor's own file, as the marker wrote it (the class marker's
OUT/instructor/NAME/results.json), never a student's: a verdict kept is shown as it was
written, escaped then."""

import hashlib
import json
import tempfile
from dataclasses import astuple
from pathlib import Path

from exactmark.base.visible import VisibleDiff
from exactmark.kit.bundle import write_program
from exactmark.marking import records
from exactmark.marking.near_miss import NearMiss
from exactmark.marking.report import CaseResult
from exactmark.marking.student_cases import Hunted, Marked
from exactmark.marking.verdicts import Kind, Verdict

NOT_KEPT = (Kind.NOT_RUN, Kind.MARKER_ERROR, Kind.NOT_BUILT)  # no verdict on the program
UNREADABLE = "--reuse: {path}: not a results.json the marker wrote ({problem})"
KEPT = ("{kept} of {total} cases kept from the earlier marking (their files, their program's "
        "declaration and the submission unchanged), not run again")
KEPT_GROUPS = ("{kept} of {total} groups of the student's cases kept whole from the earlier "
               "marking (their declaration, the programs they run and the submission "
               "unchanged), not run again")


def fingerprint(folder: Path) -> str:
    """A hash of every file below `folder` (a copy the marker owns): names and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(str(path.relative_to(folder)).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def case_key(marked, program, runs: dict, submission: str) -> str:
    """The key of one golden case (`marked`, a MarkedCase) of `program` (its declaration),
    run as `runs` says (limits, interpreter, compare rules, modes: plain data), in the
    submission whose fingerprint is `submission`. Its marks, group and visibility are left
    out: they score a verdict, they do not decide it."""
    case = marked.case
    digest = hashlib.sha256(json.dumps(
        [case.id, declaration(program), sorted(marked.compare), runs, submission],
        sort_keys=True, default=str).encode())
    for path in sorted(case.folder.glob(f"{case.name}.*")):
        files(digest, path)
    return digest.hexdigest()


def reference(program) -> str:
    """A hash of the reference's files, as a group's cases are run on them."""
    digest = hashlib.sha256()
    with tempfile.TemporaryDirectory(prefix="group-key-") as folder:
        for path, _ in sorted(write_program(program, Path(folder))):
            files(digest, path)
    return digest.hexdigest()


def group_key(group, program, runs: dict, submission: str, made: str) -> str:
    """The key of one group of cases the students write (a StudentCases) of `program`:
    its declaration but its marks, visibility, weights and the cases asked for (which score
    its verdicts), the reference it runs the cases on (`made`: `reference`'s hash), the
    wrong programs it hunts, its worked example's files; run as `runs` says, in the
    submission `submission`."""
    digest = hashlib.sha256(json.dumps(
        [group.program, group.folder, sorted(group.compare), list(group.mistakes), group.most,
         group.most_bytes, declaration(program), runs, submission, made],
        sort_keys=True, default=str).encode())
    for name in group.mistakes:
        files(digest, group.wrong_folder / f"{name}.toml")
    if group.example is not None:
        for path in sorted(group.example.folder.glob(f"{group.example.name}.*")):
            files(digest, path)
    return digest.hexdigest()


def declaration(program) -> list:
    """What of a program's declaration decides how it is built and run, as plain data."""
    language = program.language
    return [language.name, language.compile, language.run, language.flags, language.compiled,
            language.simulate, program.entry,
            [astuple(submitted) for submitted in program.submit], program.flags]


def files(digest, path: Path) -> None:
    digest.update(path.name.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(hashlib.sha256(path.read_bytes()).digest())


def earlier(path: Path) -> records.MarkingRecord:
    """An earlier results.json's marking; ValueError, a line, when it cannot be read as
    one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return records.MarkingRecord.from_dict(data["extra_data"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as problem:
        raise ValueError(UNREADABLE.format(path=path, problem=problem)) from None


def whole(verdict) -> bool:
    """Whether a verdict's record can stand again: a verdict, recorded whole."""
    return verdict.kind not in NOT_KEPT and verdict.detail is not None \
        and verdict.credit is not None


def rebuilt(case_id: str, verdict) -> Verdict:
    """The Verdict a records.Verdict (`whole`) was written from."""
    return Verdict(case_id, verdict.mode, verdict.kind, verdict.detail, verdict.diff,
                   NearMiss(*verdict.near_miss) if verdict.near_miss else None, verdict.credit,
                   VisibleDiff.from_json(verdict.diff_lines) if verdict.diff_lines else None,
                   tuple(verdict.regions), tuple(verdict.runaway), verdict.bound,
                   verdict.digest, tuple(map(tuple, verdict.lines)))


def kept(marked, key: str, earlier, modes: list):
    """The CaseResult the earlier marking's `earlier` (a records.Case, or None) gives
    `marked` when its key is `key` and its verdicts are whole, in `modes`; else None."""
    if earlier is None or not earlier.key or earlier.key != key:
        return None
    if [verdict.mode for verdict in earlier.verdicts] != modes \
            or not all(map(whole, earlier.verdicts)):
        return None
    return CaseResult(marked, [rebuilt(marked.case.id, verdict) for verdict in earlier.verdicts])


def kept_group(result, key: str, earlier) -> bool:
    """Fill `result` (a student_cases.GroupResult, its cases read and counted) from the
    earlier marking's `earlier` (a records.StudentGroup, or None) when its key is `key`, it
    marked the same cases, and every verdict and mistake of it is decided; whether it did.
    Its weights are the group's as it is now."""
    result.key = key
    if earlier is None or not earlier.key or earlier.key != key:
        return False
    marked = [case for case in earlier.cases if not case.refused]
    if [case.name for case in marked] != [case.name for case in result.read.cases] \
            or any(case.reference is None for case in marked) \
            or not all(whole(verdict) for case in marked for verdict in (case.reference, case.own)
                       if verdict is not None) \
            or any(mistake.undecided for mistake in earlier.mistakes):
        return False
    result.cases = [Marked(written, rebuilt(written.id, case.reference),
                           rebuilt(written.id, case.own) if case.own is not None else None)
                    for written, case in zip(result.read.cases, marked)]
    result.mistakes = [Hunted(mistake.name, mistake.mistake, result.group.weight(mistake.name),
                              mistake.caught_by) for mistake in earlier.mistakes]
    result.kept = True
    return True
