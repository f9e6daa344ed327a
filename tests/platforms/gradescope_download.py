"""A Gradescope "Export Submissions" built as Gradescope lays it out, for the tests that read
one (the reader's own, and the class marked end to end with --from gradescope).

The layout, from the sources exactmark/platforms/gradescope_export.py cites:
  - the zip holds one top folder, "assignment_<id>_export/" (hazelgrove/hazel,
    src/haz3lschool/Gradescope-Utils-2023.02.17/bin/join.pl,
    commit 4b387236f2c7c126e9e666cc287578e0c87c7d5c);
  - in it, submission_metadata.yml and a folder per submission, "submission_<id>/", holding the
    files as submitted (S. Pai's run_offline.py reads "submission_<id>" keys and folders);
  - submission_metadata.yml maps each "submission_<id>" to Ruby-symbol keys: ":submitters" (a
    list of ":name", ":sid" quoted as Ruby quotes digits, ":email"), ":created_at" as Ruby writes a
    Time ("2019-09-04 21:03:57.297916000 Z", or with its offset), ":score", and for programming
    assignments ":history" (ucbds-infra/otter-grader,
    test/sample-metadata/gradescope-export/submission_metadata.yml, commit
    8c439a2acf51487ed530248378285de03c49d82b; Gradescope's "Submission Metadata" page of its
    autograder documentation for the same record in JSON).
The name of the zip itself is not documented in these sources: assumed "assignment_<id>_export.zip".
"""

import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import yaml

ASSIGNMENT_ID = 123456
METADATA = "submission_metadata.yml"


@dataclass
class Submitter:
    name: str
    sid: str = None  # None: no ":sid" line at all
    email: str = ""


@dataclass
class Submission:
    id: int
    submitters: list  # Submitter
    created_at: object  # a datetime (written as Ruby writes a Time), or the YAML text itself
    files: dict = field(default_factory=dict)  # name in the folder ("a.py", "src/b.c") -> bytes
    score: float = 0.0
    history: list = field(default_factory=list)  # the older submissions' datetimes

    @property
    def folder(self) -> str:
        return f"submission_{self.id}"


def export_folder_name(assignment_id: int = ASSIGNMENT_ID) -> str:
    return f"assignment_{assignment_id}_export"


def ruby_time(when: datetime) -> str:
    """A time as Ruby's YAML writes it: nanoseconds, then "Z" at UTC or the offset."""
    offset = when.utcoffset()
    if offset == timedelta(0):
        zone = "Z"
    else:
        minutes = int(offset.total_seconds()) // 60
        sign = "-" if minutes < 0 else "+"
        zone = f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return f"{when:%Y-%m-%d %H:%M:%S}.{when.microsecond:06d}000 {zone}"


def scalar(text: str) -> str:
    """A string as a YAML writer quotes it: plain where it can be, quoted where it must."""
    return yaml.safe_dump(text, allow_unicode=True, width=1 << 20).split("\n", 1)[0]


def metadata_yaml(submissions) -> str:
    lines = ["---"]
    for submission in submissions:
        lines.append(f"{submission.folder}:")
        lines.append("  :submitters:")
        for person in submission.submitters:
            lines.append(f"  - :name: {scalar(person.name)}")
            if person.sid is not None:
                lines.append(f"    :sid: {scalar(person.sid)}")
            lines.append(f"    :email: {scalar(person.email)}")
        lines.append(f"  :created_at: {_when(submission.created_at)}")
        lines.append(f"  :score: {submission.score!r}")
        if submission.history:
            lines.append("  :history:")
            for when in submission.history:
                lines.append(f"  - :created_at: {_when(when)}")
                lines.append("    :score: 0.0")
        else:
            lines.append("  :history: []")
    return "\n".join(lines) + "\n"


def _when(created_at) -> str:
    return ruby_time(created_at) if isinstance(created_at, datetime) else created_at


def write_export(into: Path, submissions, assignment_id: int = ASSIGNMENT_ID,
                 metadata: str = None) -> Path:
    """The export as its zip unpacks: into/assignment_<id>_export/ with the metadata (given, or
    written from the submissions) and each submission's folder. Returns the export's folder."""
    export = Path(into) / export_folder_name(assignment_id)
    export.mkdir(parents=True)
    text = metadata_yaml(submissions) if metadata is None else metadata
    (export / METADATA).write_text(text, encoding="utf-8")
    for submission in submissions:
        folder = export / submission.folder
        folder.mkdir()
        for name, data in submission.files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
    return export


def zip_export(export: Path, zip_path: Path) -> Path:
    """The export's folder as Gradescope's zip: every member under the folder's own name."""
    export = Path(export)
    with zipfile.ZipFile(zip_path, "w") as archive:
        for path in sorted(export.rglob("*")):
            if path.is_file():
                archive.write(path, (Path(export.name) / path.relative_to(export)).as_posix())
    return zip_path


def zip_name(assignment_id: int = ASSIGNMENT_ID) -> str:
    return f"{export_folder_name(assignment_id)}.zip"
