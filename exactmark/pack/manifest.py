"""A student pack's pack.json: what its checker needs to run an assignment's visible cases
as the marker runs them. Each program's language (its build and run templates), the files
a student hands in, its visible cases and what each compares besides stdout; the time
limits and what is forgiven; and the groups of cases the student writes (where they go,
how many, how large, what is compared), so that the checker reads them as the marker
does; and what names a student's mistake as the marker names it, where the pack ships it
(exactmark.pack.build.known_mistakes): the wrong programs' signatures on the visible cases
alone, with the handout's rules. Written by `make student-pack`, read by the checker, which
holds this module (standard library only). Nothing of a case that is not visible is
written: no name, no input, no output, no failure or digest of a wrong program's, not how
many there are, only the marks they carry in all (so that the checker says there are such
cases only where there are); nor what a group's cases are marked against (its mistakes,
their weights).
"""

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from exactmark.diagnosis.diagnose import Knowledge
from exactmark.kit.cases import Case
from exactmark.kit.programs import Language, Program, Submitted

MANIFEST = "pack.json"
CASES = "expected_outputs"  # the cases, as the handouts cite them: CASES/FOLDER/NAME.*
FORMAT = 4
# The heading of the checker's diagnosis (to the student: report.py's WHAT_IT_SUGGESTS),
# which the README names.
WHAT_IT_SUGGESTS = "What your failures suggest"
UNREADABLE = "{path} is not a pack this checker reads: {problem}"
NO_CASE = "its case {case} has no {path}"


@dataclass(frozen=True)
class Checked:
    """A visible case, as the marking compares it."""
    case: object  # exactmark.kit.cases.Case
    compare: frozenset  # besides stdout: "status", "stderr"


@dataclass(frozen=True)
class Group:
    """A group of cases the student writes, as far as the checker reads it: what
    exactmark.kit.written_cases.read_cases uses of a exactmark.kit.assignment.StudentCases, and what
    the marking compares besides stdout."""
    program: str
    name: str
    folder: str  # where the cases sit in the student's folder, as cases/golf
    most: int  # cases marked; those beyond, in name order, are refused
    most_bytes: int  # a case any of whose files is larger is refused
    compare: frozenset  # besides stdout: "status", "stderr"
    marks: float = 0.0  # its counts' marks in all
    asked: int = 1  # cases the handout asks for


@dataclass(frozen=True)
class Pack:
    assignment: str
    title: str
    cpu_seconds: float
    wall_seconds: float
    idle_seconds: float
    normalise: dict  # normalisation name -> share of a case's marks deducted
    python: str  # the Python version (X.Y) the marking runs, or ""
    programs: tuple  # of (exactmark.kit.programs.Program, [Checked])
    groups: dict = field(default_factory=dict)  # program name -> (Group, ...)
    unseen_marks: float = 0.0  # of the golden cases the pack does not hold, and the fresh
    fresh_cases: int = 0  # cases drawn for each student when marked: no pack holds them
    known: dict = field(default_factory=dict)  # program name -> diagnose.Knowledge of its
    # visible cases, where the pack ships it


def written(assignment, wall_seconds: float, idle_seconds: float, folders: dict,
            known: dict) -> dict:
    """pack.json's data: the assignment's visible cases of each program, which
    `folders` (program -> CASES/FOLDER) says where the pack holds, its groups of cases
    the student writes, and what `known` (program -> diagnose.Knowledge of its visible
    cases alone) holds of it, or None."""
    programs = []
    for name, marked in assignment.marked_cases.items():
        program = assignment.programs[name]
        programs.append({
            "name": name, "language": asdict(program.language),
            "submit": [asdict(kind) for kind in program.submit], "entry": program.entry,
            "flags": None if program.flags is None else list(program.flags),
            "warnings": program.warnings_cost, "cases": folders[name],
            "visible": [{"name": m.case.name, "compare": sorted(m.compare)}
                        for m in marked if m.visible],
            "groups": [{"name": group.name, "folder": group.folder, "most": group.most,
                        "most_bytes": group.most_bytes, "compare": sorted(group.compare),
                        "marks": group.total, "asked": group.asked}
                       for group in assignment.student_groups(name)],
            "diagnosis": known[name].to_dict() if name in known else None})
    return {"format": FORMAT, "assignment": assignment.name, "title": assignment.title,
            "cpu_seconds": assignment.cpu_seconds, "wall_seconds": wall_seconds,
            "idle_seconds": idle_seconds, "normalise": dict(assignment.normalise or {}),
            "python": assignment.python or "", "programs": programs,
            "unseen_marks": unseen_marks(assignment),
            "fresh_cases": sum(group.count for program in assignment.marked_cases
                               for group in assignment.fresh_groups(program))}


def unseen_marks(assignment) -> float:
    """The marks of the cases a student cannot see before they submit: the golden cases
    not visible, and the fresh ones, drawn only when they are marked."""
    return round(sum(marked.marks for cases in assignment.marked_cases.values()
                     for marked in cases if not marked.visible)
                 + sum(group.marks for program in assignment.marked_cases
                       for group in assignment.fresh_groups(program)), 4)


def read(folder: Path) -> Pack:
    """The pack in `folder`; ValueError, saying why, for one this checker cannot read."""
    path = folder / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["format"] != FORMAT:
            raise ValueError(f"format {data['format']}, not {FORMAT}")
        programs = tuple(_program(folder, entry) for entry in data["programs"])
        groups = {entry["name"]: tuple(
            Group(entry["name"], group["name"], group["folder"], int(group["most"]),
                  int(group["most_bytes"]), frozenset(group["compare"]), float(group["marks"]),
                  int(group["asked"]))
            for group in entry["groups"]) for entry in data["programs"]}
        return Pack(data["assignment"], data["title"], data["cpu_seconds"],
                    data["wall_seconds"], data["idle_seconds"], data["normalise"],
                    data["python"], programs, groups, float(data["unseen_marks"]),
                    int(data["fresh_cases"]),
                    {entry["name"]: Knowledge.from_dict(entry["diagnosis"])
                     for entry in data["programs"] if entry["diagnosis"] is not None})
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as problem:
        raise ValueError(UNREADABLE.format(path=path, problem=problem)) from None


def _program(folder: Path, entry: dict) -> tuple:
    """(the program, its visible cases): the files of the cases pack.json names, and only
    those (a folder a file manager wrote a .DS_Store in still reads)."""
    language = Language(**{key: tuple(value) if isinstance(value, list) else value
                           for key, value in entry["language"].items()})
    cases_folder = folder / entry["cases"]
    program = Program(entry["name"], language,
                      tuple(Submitted(**kind) for kind in entry["submit"]), entry=entry["entry"],
                      reference=None, cases_folder=cases_folder,
                      flags=None if entry["flags"] is None else tuple(entry["flags"]),
                      warnings_cost=entry["warnings"])
    cases = []
    for case in entry["visible"]:
        found = Case(program.name, case["name"], cases_folder)
        if not found.file(".out").is_file():
            raise ValueError(NO_CASE.format(case=found.id, path=found.file(".out")))
        cases.append(Checked(found, frozenset(case["compare"])))
    return program, cases


def dumps(data: dict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
