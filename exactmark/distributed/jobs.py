"""The job format and the result format: what crosses from the coordinator to a worker and
back, each one .tar.gz.

A job (plan writes it, a worker reads it): JOB_FILE, the student's key and everything the
marker is asked for them (their submission time, terms, the name the report gives them,
the run's options), the coordinator's kit identity, the assignment's fingerprint, the
Python and bubblewrap the coordinator has, the reference's CPU seconds when calibrating;
SUBMISSION/, the submission as plan copied it (the marker's limits, no link); and EARLIER
when the marker keeps an earlier marking's unchanged cases (its marked.json, as kept).

A result (a worker writes it, collect reads it): RESULT_FILE (what the worker saw: status,
refusal, notices, the host), MARKED (the marker's results.json) and REPORT (its report),
when the marker gave them.

Both come from another machine: they are unpacked by exactmark.base.archives (no absolute
path, no '..', no link, sizes bounded) and their JSON read with bounds.
"""

import json
import os
from pathlib import Path

from exactmark.base.archives import unpack
from exactmark.base.tree import Limits, Refused
from exactmark.distributed.shipment import tar_bytes, write_atomically

FORMAT = 1  # of jobs and results: a worker refuses another
JOB_FILE = "job.json"
SUBMISSION = "submission"
EARLIER = "earlier.json"
RESULT_FILE = "result.json"
MARKED = "marked.json"
REPORT = "report.txt"
JSON_MOST = 16 << 20  # bytes of a job's or a result's own JSON
MARKED_MOST = 64 << 20  # bytes of the marker's results.json (a result's, a kept one)
# A job: the submission within the marker's limits, below one more folder, and its files.
JOB_LIMITS = Limits(files=Limits().files + 3, depth=Limits().depth + 1,
                    bytes=Limits().bytes + JSON_MOST + MARKED_MOST)
RESULT_LIMITS = Limits(files=4, depth=1, bytes=256 << 20)
PLAIN = 0o100644
NOT_A_JOB = "not a job of this kit's format: {problem}"
NOT_A_RESULT = "not a result of this kit's format: {problem}"


class FormatError(ValueError):
    """A job or a result that is not one: its one line."""


def write_job(path: Path, job: dict, submission: Path, earlier: bytes = None) -> None:
    """The job archive at `path` (written under a temporary name, then renamed): `job` as
    JOB_FILE, the files and folders of `submission` below SUBMISSION/, `earlier` as EARLIER."""
    files = {JOB_FILE: (json.dumps({**job, "format": FORMAT}, sort_keys=True).encode(), PLAIN)}
    if earlier is not None:
        files[EARLIER] = (earlier, PLAIN)
    folders = [SUBMISSION]
    for folder, names, found in os.walk(submission, followlinks=False):
        relative = Path(folder).relative_to(submission)
        for name in names:
            if not os.path.islink(os.path.join(folder, name)):
                folders.append(f"{SUBMISSION}/{(relative / name).as_posix()}")
        for name in found:
            source = Path(folder) / name
            if not source.is_symlink() and source.is_file():
                mode = PLAIN | (os.lstat(source).st_mode & 0o100)
                files[f"{SUBMISSION}/{(relative / name).as_posix()}"] = (source.read_bytes(), mode)
    write_atomically(path, tar_bytes(files, folders))


def read_job(archive: Path, into: Path) -> dict:
    """The job at `archive` unpacked into the new folder `into`: its JOB_FILE's fields.
    FormatError when it is none (unsafe, too large, another format)."""
    job = unpacked(archive, into, JOB_LIMITS, JOB_FILE, NOT_A_JOB)
    if job.get("format") != FORMAT or not isinstance(job.get("job"), str) \
            or not isinstance(job.get("key"), dict) or not (into / SUBMISSION).is_dir():
        raise FormatError(NOT_A_JOB.format(problem=f"format {job.get('format')!r}"))
    return job


def result_bytes(result: dict, marked: Path = None, report: Path = None) -> bytes:
    """The result archive: `result` as RESULT_FILE, and the marker's files where it gave them."""
    files = {RESULT_FILE: (json.dumps({**result, "format": FORMAT}, sort_keys=True).encode(),
                           PLAIN)}
    for name, path in ((MARKED, marked), (REPORT, report)):
        if path is not None and path.is_file():
            files[name] = (path.read_bytes(), PLAIN)
    return tar_bytes(files)


def read_result(archive: Path, into: Path) -> dict:
    """The result at `archive` unpacked into the new folder `into`: its RESULT_FILE's
    fields. FormatError when it is none."""
    result = unpacked(archive, into, RESULT_LIMITS, RESULT_FILE, NOT_A_RESULT)
    if result.get("format") != FORMAT or not isinstance(result.get("job"), str) \
            or not isinstance(result.get("status"), int):
        raise FormatError(NOT_A_RESULT.format(problem=f"format {result.get('format')!r}"))
    return result


def unpacked(archive: Path, into: Path, limits, name: str, said: str) -> dict:
    """`archive` unpacked safely into the new folder `into`, within `limits`: the fields of
    its JSON file `name`. FormatError (`said`) when it is unsafe, too large or holds none."""
    try:
        unpack(archive, into, limits)
    except Refused as problem:
        raise FormatError(said.format(problem=problem)) from None
    return read_json(into / name, said)


def read_json(path: Path, said: str, most: int = JSON_MOST) -> dict:
    """A JSON object of at most `most` bytes; FormatError (`said`) otherwise."""
    try:
        with open(path, "rb") as file:
            data = file.read(most + 1)
        if len(data) > most:
            raise ValueError(f"{path.name} holds more than {most} bytes")
        found = json.loads(data)
        if not isinstance(found, dict):
            raise ValueError(f"{path.name} holds no object")
        return found
    except (OSError, ValueError) as problem:
        raise FormatError(said.format(problem=problem)) from None
