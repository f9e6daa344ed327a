"""The cases a student writes, read from the marker's copy of the submission: each file
that makes no case, and each case that breaks a rule, refused with its reason; the rest
kept to mark (exactmark.marking.student_cases marks them).

A student's case is hostile input like any other: its name, its bytes and its size are
checked here, before anything runs it. No link is followed: the copy holds none, and
says which it left out (exactmark.base.tree.Copied.named), so that a case that was one is
refused so. The student pack's checker reads a team's cases with this module too, so that
it refuses what the marker refuses, in the marker's words; it is bundled into that one
file of the standard library (exactmark/kit/bundle.py), so it imports only what the bundler
can carry.
"""

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from exactmark.kit.cases import SIMULATE_NAME, Case
from exactmark.base.visible import escaped
from exactmark.base.tree import LINK

PLAIN_NAME = re.compile(r"[A-Za-z0-9_-]{1,100}")  # a case's name: no dot, no space, no path
CASE_FILES = (".in", ".args", ".out", ".status", ".err", ".stats")  # the kit's, piped
STATUS = re.compile(rb"[0-9]{1,3}\n?")
MOST_STATUS = 255

# Why a file or a case is refused; NAME and the file names are the student's, escaped.
NO_FOLDER = "the submission has no folder {folder}: no case to mark"
FOLDER_LEFT_OUT = "no case is read: {folder} is {why}"
LEFT_OUT = {LINK: "a link: the marker follows no link, so its copy of the submission left it "
                  "out",
            "hidden": "hidden: the marker's copy of the submission leaves hidden files out"}
LEFT_OUT_OTHER = "{why}: the marker's copy of the submission left it out"
A_FOLDER = "a folder: a group's cases sit in its folder itself"
NOT_A_CASE_FILE = ("not a case file: a case is NAME.in (or NAME.args) with NAME.out, and "
                   "optionally NAME.args, NAME.status and NAME.err")
NOT_PLAIN = "not a plain name: a case's name is letters, digits, _ and -, at most 100 of them"
FILE_LEFT_OUT = "{file} is {why}"
TOO_LARGE = "{file} holds {size} bytes, more than the {most} a case's file may"
NO_OUT = "no {name}.out: what the program must print"
NO_INPUT = "no {name}.in or {name}.args: the case's input"
SIMULATE = "named as the kit's simulate(n, i) calls are: name it otherwise"
BAD_STATUS = "{name}.status is not an exit status: a whole number from 0 to 255"
BAD_ARGS = "{name}.args is not UTF-8 text without NUL bytes"
EMPTY_OUT = ("an empty {name}.out needs {name}.status or {name}.err too: else an empty program "
             "passes")
NONE_MARKED = "no case to mark"  # a group of which no case is read, or none kept
BEYOND = "beyond the {most} cases this group marks (the first {most} in name order are)"


@dataclass(frozen=True)
class Written(Case):
    """A case the student wrote, named by where it sits in their folder (cases/golf/won).
    It is made of CASE_FILES alone: a golden case's other files (NAME.head, which would
    compare only the first bytes of what is printed; NAME.tty, a terminal's screen) are
    refused beside it, and never read."""
    where: str = ""

    @property
    def id(self) -> str:
        return self.where

    @property
    def head(self):
        return None

    @property
    def screen(self):
        return None


@dataclass(frozen=True)
class Refusal:
    name: str  # the file or case, as the submission names it below the group's folder, escaped
    why: str


@dataclass(frozen=True)
class Read:
    """A group's cases as the submission holds them: those to mark, those refused."""
    cases: tuple = ()  # of Written, in name order
    refused: tuple = ()  # of Refusal, in name order
    missing: str = ""  # why there is no case at all


def left_out_below(named: dict, top: Path) -> dict:
    """What a copy left out (exactmark.base.tree.Copied.named, relative to the copy's top), relative
    to `top`, a folder of the copy relative to its top (Path() for the top itself)."""
    return {path.relative_to(top): why for path, why in named.items()
            if top == Path() or top in path.parents}


def read_cases(root: Path, group, left_out: dict) -> Read:
    """The cases of `group` (exactmark.kit.assignment.StudentCases) in the marker's copy `root`, of
    which `left_out` names what the copy left out, relative to `root`. Each file that makes
    no case, and each case that breaks a rule, is refused with its reason; the rest are
    marked, the first `group.most` in name order."""
    folder = root / group.folder
    parts = Path(group.folder).parts
    for depth in range(1, len(parts) + 1):
        why = left_out.get(Path(*parts[:depth]))
        if why:
            return Read(missing=FOLDER_LEFT_OUT.format(folder="/".join(parts[:depth]),
                                                       why=_left_out(why)))
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return Read(missing=NO_FOLDER.format(folder=group.folder))
    files, refused = {}, []  # files: name -> {suffix: size, or why it was left out}
    gone = {path.name: why for path, why in left_out.items()
            if path.parent == Path(group.folder)}
    for name, why in gone.items():
        stem, suffix = os.path.splitext(name)
        if suffix in CASE_FILES and PLAIN_NAME.fullmatch(stem):
            files.setdefault(stem, {})[suffix] = why
        else:
            refused.append(Refusal(escaped(name), _left_out(why)))
    for entry in entries:
        mode = entry.stat(follow_symlinks=False).st_mode
        stem, suffix = os.path.splitext(entry.name)
        if stat.S_ISDIR(mode):
            refused.append(Refusal(escaped(entry.name), A_FOLDER))
        elif suffix not in CASE_FILES:
            refused.append(Refusal(escaped(entry.name), NOT_A_CASE_FILE))
        elif not PLAIN_NAME.fullmatch(stem):
            refused.append(Refusal(escaped(entry.name), NOT_PLAIN))
        else:
            files.setdefault(stem, {})[suffix] = entry.stat(follow_symlinks=False).st_size
    cases = []
    for name, found in sorted(files.items()):
        why = _refused(name, found, folder, group.most_bytes)
        if why:
            refused.append(Refusal(name, why))
        else:
            cases.append(Written(group.program, name, folder, f"{group.folder}/{name}"))
    refused += [Refusal(case.name, BEYOND.format(most=group.most)) for case in cases[group.most:]]
    return Read(tuple(cases[:group.most]), tuple(sorted(refused, key=lambda r: r.name)))


def _refused(name: str, found: dict, folder: Path, most_bytes: int) -> str:
    """Why the case NAME (its files: suffix -> size, or why the copy left it out) is not
    marked, every reason that applies; "" when it is marked."""
    problems = [FILE_LEFT_OUT.format(file=f"{name}{suffix}", why=_left_out(why))
                for suffix, why in found.items() if isinstance(why, str)]
    problems += [TOO_LARGE.format(file=f"{name}{suffix}", size=size, most=most_bytes)
                 for suffix, size in found.items() if isinstance(size, int) and size > most_bytes]
    if problems:
        return "; ".join(problems)
    if ".out" not in found:
        problems.append(NO_OUT.format(name=name))
    if ".in" not in found and ".args" not in found:
        problems.append(NO_INPUT.format(name=name))
    if SIMULATE_NAME.fullmatch(name):
        problems.append(SIMULATE)
    read = {suffix: (folder / f"{name}{suffix}").read_bytes() for suffix in found}
    status = read.get(".status")
    if status is not None and not (STATUS.fullmatch(status) and int(status) <= MOST_STATUS):
        problems.append(BAD_STATUS.format(name=name))
    if ".args" in read:
        try:
            if "\0" in read[".args"].decode("utf-8"):
                raise ValueError
        except ValueError:
            problems.append(BAD_ARGS.format(name=name))
    if (not read.get(".out", b"x") and not read.get(".err")
            and (status is None or STATUS.fullmatch(status) and int(status) == 0)):
        problems.append(EMPTY_OUT.format(name=name))
    return "; ".join(problems)


def _left_out(why: str) -> str:
    """Why the marker's copy left a file out, said (exactmark.base.tree's and skip_reason's word)."""
    return LEFT_OUT.get(why, LEFT_OUT_OTHER.format(why=why))
