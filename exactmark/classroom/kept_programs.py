"""What of each student's programs is kept beside their results for the class's similarity
scan, once the copy the marker marked is gone: each program's files as one text, named after
the program; and, for a program not handed in under its exact name, the file that looks like
it (`Solitaire_2.py` for solitaire_2.py, exactmark.kit.submission.lookalikes). The marker marks
only the exact name, but a copy handed in under a look-alike name is still a copy: the scan
compares it and says which file it took. Light to import: the class marker keeps programs
while copydetect is still loading."""

import json
from pathlib import Path

from exactmark.kit.submission import lookalikes

LOOKALIKE = "{program}.look-alike"  # a program name has no "." or "-": never a program's text
TAKEN = "look-alikes.json"  # {program: [[a look-alike's path in the submission, the name]]}


def keep(marked: Path, kept: Path, programs: dict) -> None:
    """Keep each of `programs` ({name: Program}) from the folder the marker marked into
    `kept`: its files in name order as one text; or, when none of them is there, for each
    name it must have, the file that looks most like it. What an earlier run kept goes first."""
    kept.mkdir(mode=0o700, exist_ok=True)
    (kept / TAKEN).unlink(missing_ok=True)
    taken = {}
    for name, program in programs.items():
        for old in (name, LOOKALIKE.format(program=name)):
            (kept / old).unlink(missing_ok=True)
        files, _ = program.files(marked)
        if files:
            (kept / name).write_bytes(b"".join((marked / file).read_bytes() for file in files))
            continue
        found = [[first, exact] for exact in program.exact_names()
                 for first in lookalikes(marked, exact, programs.values())[:1]]
        if found:
            (kept / LOOKALIKE.format(program=name)).write_bytes(
                b"".join((marked / path).read_bytes() for path, _ in found))
            taken[name] = found
    if taken:
        (kept / TAKEN).write_text(json.dumps(taken), encoding="utf-8")


def taken(kept: Path) -> dict:
    """{program: [(a look-alike's path, the exact name it stands for)]}: what `kept` holds
    for programs not handed in under their exact names; empty when there is none."""
    try:
        found = json.loads((kept / TAKEN).read_text(encoding="utf-8"))
        return {program: [(str(path), str(exact)) for path, exact in pairs]
                for program, pairs in found.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}
