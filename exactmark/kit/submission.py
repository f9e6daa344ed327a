"""What of a submission folder is marked: which names stay out of the marker's copy,
which folder holds the programs (a learning platform's download wraps them in one
folder), and, when a program is missing, which files look like it. One definition, so
that the marker and the class's similarity scan look at the same files."""

import difflib
import os
import re
import stat
from pathlib import Path

from exactmark.kit.cases import STATS_FILE
from exactmark.base.tree import LINK
from exactmark.base.visible import escaped

NOT_COPIED = {"expected_outputs", "tests", "__pycache__", "__MACOSX", STATS_FILE}
LOOKALIKE_DEPTH = 3  # folders below the marked one searched for a misplaced program
LOOKALIKE_MOST = 3  # files named
LOOKALIKE_RATIO = 0.85  # difflib's ratio of two names once copy marks and case are gone
COPY_MARKS = re.compile(r"\s*\(\d+\)|[\s_-]*copy(?:\s*\d+)?$|^copy of\s+", re.IGNORECASE)
LOOKS_LIKE = "{files} look{s} like it, but only the exact name {name} is marked: rename it"
PROGRAM_LIKE_SUFFIXES = ("", ".py", ".txt", ".py.txt", ".ipynb", ".c", ".cpp", ".cc", ".h",
                         ".java")
# How a look-alike differs from the exact name (likeness), in words.
IN_FOLDER = "in the folder {folder}"
SAME_NAME = "the exact name"
SAME_BUT_MARKS = ("the same name but for letter case, spaces, punctuation or a copy mark such as "
                  "(1)")
NEAR_NAME = "a name spelt nearly like it"


def skip_reason(name: str):
    """Why a name of the submission stays out of the copy, or None: hidden files, the
    golden outputs, tests, and a stats file of its own (each case brings its own)."""
    if name.startswith("."):
        return "hidden"
    if name in NOT_COPIED:
        return name
    return None


def marked_folder(folder: Path, programs, own_folders=()) -> Path:
    """The folder whose programs are marked: `folder`, or the one folder it holds when it
    holds nothing else the marker copies, no file of the programs (`exactmark.kit.programs.
    Program`s) and is none of `own_folders` (where a submission keeps what is marked, as
    its cases/): a download from a learning platform, `ann/ann/solitaire_1.py`, or a zip
    of a folder."""
    kept = [entry for entry in folder.iterdir() if skip_reason(entry.name) is None]
    if (len(kept) == 1 and kept[0].is_dir() and not kept[0].is_symlink()
            and kept[0].name not in own_folders
            and not any(program.files(folder)[0] for program in programs)):
        return kept[0]
    return folder


def why_missing(folder: Path, program, programs, left_out: dict = None) -> tuple:
    """(why `program` is not in `folder`, a sentence per kind of file; a sentence per exact
    name that files of the folder look like): what the marker's report and a student's
    checker say of a program that is not there. `left_out`: what the copy that `folder` is
    left out (exactmark.base.tree.Copied.named, relative to `folder`), its links named."""
    links = tuple(str(path) for path, why in (left_out or {}).items()
                  if why == LINK and len(path.parts) == 1)
    return program.files(folder, links)[1], [
        LOOKS_LIKE.format(files=" and ".join(f"`{escaped(path)}`" for path in found),
                          s="s" * (len(found) == 1), name=name)
        for name in program.exact_names()
        for found in [lookalikes(folder, name, programs)] if found]


def lookalikes(folder: Path, wanted_name: str, programs) -> list:
    """Files below `folder` that look like `wanted_name` (a file a program's student must
    name so: `solitaire_1.py`) but are not it (`Solitaire_1.py`, `solitaire_1 (1).py`,
    `src/solitaire_1.py`, `solitare_1.py`), as paths relative to `folder`, closest first.
    The marker still marks only the exact name: this says why a program a student did
    hand in is "missing". Never a file another of the `programs` is, and never through a
    link."""
    stem, _ = _split(wanted_name)
    wanted = _key(stem)
    exact = {name for program in programs for name in program.exact_names()}
    found = []
    for relative in _files(folder):
        name = relative.name
        if len(relative.parts) == 1 and name in exact:
            continue
        stem, suffix = _split(name)
        if suffix not in PROGRAM_LIKE_SUFFIXES or (suffix == "" and "." in name):
            continue
        key = _key(stem)
        if name == wanted_name:
            closeness = 2.0  # the right name in the wrong folder
        elif key == wanted:
            closeness = 1.5
        elif _digits(key) == _digits(wanted):
            closeness = difflib.SequenceMatcher(None, key, wanted).ratio()
        else:
            continue
        if closeness >= LOOKALIKE_RATIO:
            found.append((-closeness, len(relative.parts), str(relative)))
    return [path for _, _, path in sorted(found)[:LOOKALIKE_MOST]]


def likeness(path: str, wanted_name: str) -> str:
    """Why `path` (one of lookalikes(), relative to the folder) looks like `wanted_name`, in
    words: "the same name but for letter case, ... , in the folder src"."""
    relative = Path(path)
    if relative.name == wanted_name:
        how = SAME_NAME
    elif _key(_split(relative.name)[0]) == _key(_split(wanted_name)[0]):
        how = SAME_BUT_MARKS
    else:
        how = NEAR_NAME
    if len(relative.parts) > 1:
        how += ", " + IN_FOLDER.format(folder=relative.parent.as_posix())
    return how


def _files(folder: Path):
    """Plain files below `folder` (relative paths), at most LOOKALIKE_DEPTH folders down,
    leaving out what the marker leaves out; links are neither followed nor listed."""
    pending = [Path()]
    while pending:
        below = pending.pop()
        try:
            listing = sorted(os.scandir(folder / below), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in listing:
            if skip_reason(entry.name) is not None:
                continue
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISREG(mode):
                yield below / entry.name
            elif stat.S_ISDIR(mode) and len(below.parts) < LOOKALIKE_DEPTH:
                pending.append(below / entry.name)


def _split(name: str):
    lowered = name.lower()
    for suffix in sorted(PROGRAM_LIKE_SUFFIXES, key=len, reverse=True):
        if suffix and lowered.endswith(suffix):
            return name[:-len(suffix)], suffix
    return name, ""


def _key(stem: str) -> str:
    """A name without copy marks ("(1)", "copy", "Copy of "), case or punctuation."""
    return re.sub(r"[^0-9a-z]", "", COPY_MARKS.sub("", stem).casefold())


def _digits(key: str) -> str:
    """solitaire_1 and solitaire_2 are two programs, not a typo of each other."""
    return re.sub(r"[^0-9]", "", key)
