"""Collect: the only writer of a student's marking in OUT/instructor/NAME/.

A result (exactmark.distributed.jobs) is unpacked into a folder of its own inside the
student's folder, checked (its kit's commit and digest, the assignment's fingerprint, the job's key:
those of this run, else it is refused in one line), and what the marker gave moves in by
rename: REPORT, then MARKED, then STATE (the key, the mark, the seconds the marking took,
the worker), so that a stop at any point leaves either the last run's results with no
state (marked again next run) or this run's whole. Which outcome the class marker shows
is its own to say; here, what kind of end the marking had.
"""

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from exactmark.base.exits import Exit
from exactmark.base.tree import remove_tree
from exactmark.marking import records
from exactmark.marking.verdicts import Kind
from exactmark.distributed import jobs

STATE = "state.json"
MARKED = "marked.json"  # the marker's own results, kept: overrides apply to them every run
REPORT = "report.txt"
MARKED_NORMALLY = (Exit.PASSED, Exit.FAILED, Exit.MARKER_ERROR)  # the marker's ends with results
# How a marking ended, as collect tells the class marker.
REFUSED, FAILED, MARKER_ERROR, MARKED_WHOLE = "refused", "failed", "marker error", "marked"
OF_ANOTHER_KIT = ("result for {job} refused: marked with the kit at {commit} (digest {digest}), "
                  "this run's is at {here} (digest {here_digest}); not marked")
OF_ANOTHER_ASSIGNMENT = ("result for {job} refused: marked on another assignment (fingerprint "
                         "{fingerprint}, this run's {here}); not marked")
OF_ANOTHER_KEY = ("result for {job} refused: marked for another submission or other terms "
                  "than this run's; not marked")
NOT_A_RESULT = "result for {job} refused: {problem}; not marked"
DIGEST_SHOWN = 12


class Rejected(Exception):
    """A result this run does not take: its one line."""


@dataclass
class Taken:
    """A result taken in: how the marking ended, the marker's results (as moved in as
    MARKED), and what the worker said of it (result.json)."""
    end: str  # REFUSED, FAILED, MARKER_ERROR or MARKED_WHOLE
    result: dict
    marked: dict = None


def take(archive: Path, folder: Path, job: str, key: dict, coordinator: dict) -> Taken:
    """The result at `archive` for the job `job` (the student's folder `folder`, planned
    with `key`) checked against `coordinator` ({"kit": identity, "fingerprint"}) and moved
    in. Rejected (its line) when it is not this run's; the student's folder is then as it
    was, with no state (the next run marks them)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".result-", dir=folder))
    try:
        try:
            result = jobs.read_result(archive, scratch / "result")
        except jobs.FormatError as problem:
            raise Rejected(NOT_A_RESULT.format(job=job, problem=problem)) from None
        check(result, job, key, coordinator)
        return moved_in(result, scratch / "result", folder, key)
    except Rejected:
        (folder / STATE).unlink(missing_ok=True)
        raise
    finally:
        remove_tree(scratch)


def check(result: dict, job: str, key: dict, coordinator: dict) -> None:
    kit = result.get("kit") if isinstance(result.get("kit"), dict) else {}
    if kit.get("digest") != coordinator["kit"]["digest"] \
            or kit.get("commit") != coordinator["kit"]["commit"]:  # both, as the issue asks
        raise Rejected(OF_ANOTHER_KIT.format(
            job=job, commit=str(kit.get("commit"))[:7], digest=str(kit.get("digest"))[:DIGEST_SHOWN],
            here=coordinator["kit"]["commit"][:7],
            here_digest=coordinator["kit"]["digest"][:DIGEST_SHOWN]))
    if result.get("fingerprint") != coordinator["fingerprint"]:
        raise Rejected(OF_ANOTHER_ASSIGNMENT.format(
            job=job, fingerprint=str(result.get("fingerprint"))[:DIGEST_SHOWN],
            here=coordinator["fingerprint"][:DIGEST_SHOWN]))
    if result.get("job") != job or result.get("key") != key:
        raise Rejected(OF_ANOTHER_KEY.format(job=job))


def moved_in(result: dict, unpacked: Path, folder: Path, key: dict) -> Taken:
    """The marker's report and results moved into `folder` where it ended as a marker ends
    (a refusal, or a failure, leaves the last good ones, with no state)."""
    status = result["status"]
    if result.get("refusal") is not None and status == Exit.REFUSED:
        (folder / STATE).unlink(missing_ok=True)
        return Taken(REFUSED, result)
    try:
        marked = jobs.read_json(unpacked / jobs.MARKED, "{problem}", jobs.MARKED_MOST)
    except jobs.FormatError:
        marked = None  # none, or cut short: the disk filled, say
    if status not in MARKED_NORMALLY or marked is None:
        (folder / STATE).unlink(missing_ok=True)
        return Taken(FAILED, result)
    (folder / STATE).unlink(missing_ok=True)  # no state stands for the results replaced
    report = unpacked / jobs.REPORT
    if not report.is_file():
        report.write_bytes(b"")
    os.replace(report, folder / REPORT)
    os.replace(unpacked / jobs.MARKED, folder / MARKED)
    if status == Exit.MARKER_ERROR or holds_marker_error(marked):
        return Taken(MARKER_ERROR, result, marked)
    write_state(folder, {"key": key, "mark": marked.get("score"), "seconds": result.get("seconds"),
                         "worker": result.get("worker")})
    return Taken(MARKED_WHOLE, result, marked)


def write_state(folder: Path, state: dict) -> None:
    (folder / STATE).write_text(json.dumps(state), encoding="utf-8")


def holds_marker_error(results: dict) -> bool:
    """Whether a marking's results hold a marker error, in any case or any group's case:
    such results are never kept, and the next run marks the student again."""
    data = records.MarkingRecord.from_dict(results.get("extra_data", {}))
    verdicts = [verdict for case in data.cases for verdict in case.verdicts] + [
        verdict for group in data.student_groups for case in group.cases
        for verdict in (case.reference, case.own) if verdict is not None]
    return any(verdict.kind == Kind.MARKER_ERROR for verdict in verdicts)
