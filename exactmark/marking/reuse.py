"""Verdicts kept from an earlier marking of the same submission: `exactmark mark --reuse
RESULTS_JSON`. Each golden case's key hashes what decides its verdicts: its files (input,
expected outputs, status), its program's declaration (language, entry, the files handed in,
flags), how it is run and compared (CPU and wall limits, memory, the interpreter, what it
compares and forgives, the modes), and the submission's fingerprint. A case whose key is the
one the earlier results.json recorded is not run again: its verdicts stand, scored with the
marks and shown with the visibility the assignment gives now, so a change to marks or
visibility alone runs nothing. A verdict that is no verdict (not run, a marker error, not
built) is never kept. The earlier results are the instructor's own file, as the marker
wrote it (the class marker's OUT/instructor/NAME/results.json), never a student's: a
verdict kept is shown as it was written, escaped then."""

import hashlib
import json
from dataclasses import astuple
from pathlib import Path

from exactmark.base.visible import VisibleDiff
from exactmark.marking import records
from exactmark.marking.near_miss import NearMiss
from exactmark.marking.report import CaseResult
from exactmark.marking.verdicts import Kind, Verdict

NOT_KEPT = (Kind.NOT_RUN, Kind.MARKER_ERROR, Kind.NOT_BUILT)  # no verdict on the program
UNREADABLE = "--reuse: {path}: not a results.json the marker wrote ({problem})"
KEPT = ("{kept} of {total} cases kept from the earlier marking (their files, their program's "
        "declaration and the submission unchanged), not run again")


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
    case, language = marked.case, program.language
    declared = [language.name, language.compile, language.run, language.flags,
                language.compiled, language.simulate, program.entry,
                [astuple(submitted) for submitted in program.submit], program.flags]
    digest = hashlib.sha256(json.dumps(
        [case.id, declared, sorted(marked.compare), runs, submission], sort_keys=True,
        default=str).encode())
    for path in sorted(case.folder.glob(f"{case.name}.*")):
        digest.update(path.name.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def earlier_cases(path: Path) -> dict:
    """case id -> records.Case of an earlier results.json; ValueError, a line, when it
    cannot be read as one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        marking = records.MarkingRecord.from_dict(data["extra_data"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as problem:
        raise ValueError(UNREADABLE.format(path=path, problem=problem)) from None
    return {case.case: case for case in marking.cases}


def kept(marked, key: str, earlier, modes: list):
    """The CaseResult the earlier marking's `earlier` (a records.Case, or None) gives
    `marked` when its key is `key` and its verdicts are whole, in `modes`; else None."""
    if earlier is None or not earlier.key or earlier.key != key:
        return None
    if [verdict.mode for verdict in earlier.verdicts] != modes or any(
            verdict.kind in NOT_KEPT or verdict.detail is None or verdict.credit is None
            for verdict in earlier.verdicts):
        return None
    return CaseResult(marked, [Verdict(
        marked.case.id, verdict.mode, verdict.kind, verdict.detail, verdict.diff,
        NearMiss(*verdict.near_miss) if verdict.near_miss else None, verdict.credit,
        VisibleDiff.from_json(verdict.diff_lines) if verdict.diff_lines else None,
        tuple(verdict.regions), tuple(verdict.runaway), verdict.bound)
        for verdict in earlier.verdicts])
