"""A student pack's pack.json: what its checker needs to run an assignment's visible cases
as the marker runs them. Each program's language (its build and run templates), the files
a student hands in, its visible cases and what each compares besides stdout; the time
limits and what is forgiven. Written by `make student-pack`, read by the checker, which
holds this module (standard library only). Nothing of a case that is not visible is
written: no name, no input, no output, not how many there are.
"""

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from golden.cases import load_cases
from golden.programs import Language, Program, Submitted

MANIFEST = "pack.json"
CASES = "expected_outputs"  # the cases, as the handouts cite them: CASES/FOLDER/NAME.*
FORMAT = 1
UNREADABLE = "{path} is not a pack this checker reads: {problem}"


@dataclass(frozen=True)
class Checked:
    """A visible case, as the marking compares it."""
    case: object  # golden.cases.Case
    compare: frozenset  # besides stdout: "status", "stderr"


@dataclass(frozen=True)
class Pack:
    assignment: str
    title: str
    cpu_seconds: float
    wall_seconds: float
    idle_seconds: float
    normalise: dict  # normalisation name -> share of a case's marks deducted
    python: str  # the Python version (X.Y) the marking runs, or ""
    programs: tuple  # of (golden.programs.Program, [Checked])


def written(assignment, wall_seconds: float, idle_seconds: float, folders: dict) -> dict:
    """pack.json's data: the assignment's visible cases of each program, which
    `folders` (program -> CASES/FOLDER) says where the pack holds."""
    programs = []
    for name, marked in assignment.programs.items():
        program = assignment.declared[name]
        programs.append({
            "name": name, "language": asdict(program.language),
            "submit": [asdict(kind) for kind in program.submit], "entry": program.entry,
            "flags": None if program.flags is None else list(program.flags),
            "warnings": program.warnings_cost, "cases": folders[name],
            "visible": [{"name": m.case.name, "compare": sorted(m.compare)}
                        for m in marked if m.visibility == "visible"]})
    return {"format": FORMAT, "assignment": assignment.name, "title": assignment.title,
            "cpu_seconds": assignment.cpu_seconds, "wall_seconds": wall_seconds,
            "idle_seconds": idle_seconds, "normalise": dict(assignment.normalise or {}),
            "python": assignment.python or "", "programs": programs}


def read(folder: Path) -> Pack:
    """The pack in `folder`; ValueError, saying why, for one this checker cannot read."""
    path = folder / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["format"] != FORMAT:
            raise ValueError(f"format {data['format']}, not {FORMAT}")
        programs = tuple(_program(folder, entry) for entry in data["programs"])
        return Pack(data["assignment"], data["title"], data["cpu_seconds"],
                    data["wall_seconds"], data["idle_seconds"], data["normalise"],
                    data["python"], programs)
    except (OSError, ValueError, KeyError, TypeError) as problem:
        raise ValueError(UNREADABLE.format(path=path, problem=problem)) from None


def _program(folder: Path, entry: dict) -> tuple:
    language = entry["language"]
    language = Language(**{key: tuple(value) if isinstance(value, list) else value
                           for key, value in language.items()})
    cases_folder = folder / entry["cases"]
    program = Program(entry["name"], language,
                      tuple(Submitted(**kind) for kind in entry["submit"]), entry["entry"],
                      None, cases_folder, None,
                      None if entry["flags"] is None else tuple(entry["flags"]),
                      entry["warnings"])
    visible = entry["visible"]
    cases = {case.name: case for case in load_cases(program.name, folder=cases_folder)} \
        if visible else {}
    return program, [Checked(cases[case["name"]], frozenset(case["compare"])) for case in visible]


def dumps(data: dict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
