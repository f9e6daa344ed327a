"""What a worker needs, sent as one archive of fixed bytes: the worker kit.

The kit holds the marker's code (every module of the floors up to the marker's, as
Gradescope's autograder.zip holds it), this floor's own modules (the worker runs from the
kit, on a host that has none installed), the assignment file and its golden cases laid out
as the kit lays them out, what marking the cases students write needs, what a diagnosis
reads (each program's signatures and rule map), and KIT_FILE: the
coordinator's kit commit and where the assignment file lies in the kit. Its entries are
sorted, with fixed times, owners and modes, so the same kit and assignment give the same
bytes, and its name is kit-<sha256 of those bytes>.tar.gz: a worker that has it unpacked
under that name needs it never again.

exactmark.gradescope.build takes the marker's and the assignment's files from here.
"""

import gzip
import hashlib
import io
import json
import os
import tarfile
import tempfile
from pathlib import Path

from exactmark import FLOORS
from exactmark.diagnosis import known
from exactmark.kit.cases import EXPECTED_OUTPUTS, PACKAGE_HOME, ROOT, SUFFIXES
from exactmark.kit.rules import RuleError, beside_rule_map, rule_map

ELSEWHERE = ("{program}: its {what} ({path}) lies neither below the assignment's folder nor "
             "where the kit keeps it: move it below the assignment file")
WRONG_IN_ZIP = "tests/wrong/{program}/{name}.toml"  # where the loader looks, from assignments/
# The marker: every module of the floors below the tools (so whatever any of them imports,
# at once or when needed), the package's own __init__.py, the languages it reads, and
# what it imports from outside the package (a test holds these to its imports).
MARKER_FLOORS = [top for floor in FLOORS[:FLOORS.index(("exactmark.marking",)) + 1] for top in floor]
SHIPPED = ["exactmark/__init__.py", "exactmark/kit/languages.toml"]
DATA = ["assignments/assignment.schema.json", "requirements-mark.txt"]
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: no build time in the bytes
EXECUTABLE, PLAIN = 0o100755, 0o100644  # regular files; what unzip restores
WORKER_PACKAGE = "exactmark/distributed"
KIT_FILE = "kit.json"  # in the kit: {"commit": the coordinator's, "assignment": its file there}
KIT_NAME = "kit-{digest}.tar.gz"
TAR_TIME = 315532800  # 1980-01-01, as the autograder's zip: no build time in the bytes


def marker_files(home: Path = PACKAGE_HOME) -> list:
    """The marker's files, relative to `home`, the folder that holds the package: every
    module of the floors up to the marker's own, and SHIPPED."""
    return sorted({*(path.relative_to(home).as_posix() for top in MARKER_FLOORS
                     for path in (home / top.replace(".", "/")).glob("*.py")), *SHIPPED})


def code_files(home: Path = PACKAGE_HOME) -> list:
    """The worker kit's code, relative to `home`: the marker's files and this floor's own
    (the worker, which runs from the kit on a host that has none installed)."""
    return sorted({*marker_files(home), *(path.relative_to(home).as_posix()
                                          for path in (home / WORKER_PACKAGE).glob("*.py"))})


def case_files(folder: Path) -> list:
    """Every case file of a golden folder (the notes for the reviewer stay out)."""
    return sorted(path for path in folder.iterdir() if path.is_file() and path.suffix in SUFFIXES)


def assignment_files(assignment) -> dict:
    """{name in the zip: path} of the assignment file and its programs' golden cases, laid
    out so that the file's relative paths still lead to them: what lies in the kit as in
    the kit; an instructor's own file as assignments/NAME.toml, with the cases that lie in
    its folder below assignments/ as they lie below it."""
    placed = {(assignment.path.relative_to(ROOT).as_posix() if ROOT in assignment.path.parents
               else f"assignments/{assignment.path.name}"): assignment.path}
    for program in assignment.programs.values():
        by_kit = program.cases_folder == EXPECTED_OUTPUTS / program.name
        for path in case_files(program.cases_folder):
            placed[placed_at(path, assignment, by_kit, program.name, "golden cases")] = path
    return placed


def placed_at(path: Path, assignment, by_kit: bool, program: str, what: str) -> str:
    """Where `path` goes in the zip: where the kit keeps it when the assignment is the
    kit's, or when the loader finds it in the kit by default (`by_kit`); else below
    assignments/ as it lies below an instructor's own file."""
    own = assignment.path.parent
    if ROOT in path.parents and (ROOT in assignment.path.parents or by_kit):
        return path.relative_to(ROOT).as_posix()
    if own in path.parents:
        return f"assignments/{path.relative_to(own).as_posix()}"
    raise ValueError(ELSEWHERE.format(program=program, what=what, path=path))


def student_case_files(assignment) -> dict:
    """{name in the zip: path} of what marking the cases students write needs, for each
    program that has such groups: the files its sample solution is made from (which a
    program's fresh cases need too: the reference makes what they expect), the wrong
    programs its groups name, where the loader looks for them, and, for a group whose
    mistakes are its game's, the rule lists and handouts that say which those are (the
    loader reads them to choose the same ones here)."""
    placed = {}
    for name in assignment.marked_cases:
        groups = assignment.student_groups(name)
        if not groups and not assignment.fresh_groups(name):
            continue
        program = assignment.programs[name]
        for path in sources_of(program):
            placed[placed_at(path, assignment, program.reference == ROOT, name,
                             "sample solution's file")] = path
        for group in groups:
            for mistake in group.mistakes:
                placed[WRONG_IN_ZIP.format(program=name, name=mistake)] = (
                    group.wrong_folder / f"{mistake}.toml")
        if any(group.game_mistakes for group in groups):
            try:
                found = rule_map(program)
            except RuleError as problem:
                raise ValueError(str(problem)) from None
            for path in found.read if found else ():
                placed[placed_at(path, assignment, program.handout == ROOT / "docs"
                                 / f"{name}.md", name, "handout or rule list")] = path
    return placed


def diagnosis_files(assignment, program) -> dict:
    """{name in the zip: path} of what the marker names `program`'s mistakes from
    (exactmark.diagnosis.known.knowledge): its wrong programs' signatures, and the rule
    map and handouts whose sentences they quote, where the loader finds them; none where
    it has no signatures, or no rule map to read them with."""
    path = beside_rule_map(assignment, program, known.SUFFIX)
    try:
        found = rule_map(program) if path.is_file() else None
    except RuleError as problem:
        raise ValueError(str(problem)) from None
    if found is None:
        return {}
    by_kit = program.handout == ROOT / "docs" / f"{program.name}.md"
    return {placed_at(file, assignment, by_kit, program.name, "signatures, rule list or handout"):
            file for file in [path, *found.read]}


def sources_of(program) -> list:
    """The files the program's sample solution is made from (ValueError: they cannot be
    read). The bundler is imported here: it needs the marker's libraries, and a worker
    without them still unpacks a kit, to refuse in a sentence (exactmark.distributed.worker)."""
    from exactmark.kit.bundle import BundleError, read_by
    try:
        return read_by(program)
    except BundleError as problem:
        raise ValueError(str(problem)) from None


def reference_files(assignment) -> dict:
    """{name in the kit: path} of every program's sample solution's files, where the loader
    finds them: a worker marks the reference (the sample solutions, as a submission) to time
    its CPU against the coordinator's (exactmark.distributed.identity.reference_cpu)."""
    return {placed_at(path, assignment, program.reference == ROOT, name,
                      "sample solution's file"): path
            for name, program in assignment.programs.items() for path in sources_of(program)}


def kit_files(assignment, commit: str, references: bool = False) -> dict:
    """{name in the kit: (bytes, mode)}: the code, the data the marker reads, the assignment
    with its golden cases, what its students' cases need, with `references` the sample
    solutions, and KIT_FILE."""
    files = {name: ((PACKAGE_HOME / name).read_bytes(), PLAIN) for name in code_files()}
    for name in DATA:
        files[name] = ((ROOT / name).read_bytes(), PLAIN)
    own = assignment_files(assignment)
    for name, path in [*own.items(), *(reference_files(assignment).items() if references else ()),
                       *student_case_files(assignment).items(),
                       *(placed for name in assignment.marked_cases for placed in
                         diagnosis_files(assignment, assignment.programs[name]).items())]:
        files[name] = (path.read_bytes(), PLAIN)
    placed = next(name for name, path in own.items() if path == assignment.path)
    files[KIT_FILE] = (json.dumps({"commit": commit, "assignment": placed},
                                  sort_keys=True).encode() + b"\n", PLAIN)
    return files


def tar_bytes(files: dict, folders: list = ()) -> bytes:
    """The .tar.gz of `files` ({name: (bytes, mode)}) and `folders` (entries of their own,
    an empty one too), sorted, with fixed times, owners and modes, and no name or time in
    the gzip header: the same files, the same bytes."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name in sorted({*files, *folders}):
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = TAR_TIME, 0, 0, "", ""
            if name in files:
                data, mode = files[name]
                info.size, info.mode = len(data), mode & 0o7777
                archive.addfile(info, io.BytesIO(data))
            else:
                info.type, info.mode = tarfile.DIRTYPE, 0o700
                archive.addfile(info)
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=0, compresslevel=9) as out:
        out.write(raw.getvalue())
    return packed.getvalue()


def write_kit(assignment, commit: str, folder: Path, references: bool = False) -> Path:
    """The worker kit for `assignment` written in `folder` as kit-<sha256>.tar.gz (a
    temporary name, then renamed: never half a kit), unless it is there already."""
    data = tar_bytes(kit_files(assignment, commit, references))
    path = folder / KIT_NAME.format(digest=hashlib.sha256(data).hexdigest())
    if not path.is_file():
        write_atomically(path, data)
    return path


def write_atomically(path: Path, data: bytes) -> None:
    """`data` as `path`: written under a temporary name beside it, then renamed over it."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
