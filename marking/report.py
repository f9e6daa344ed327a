"""The marker's report, for a person at a terminal and as Gradescope's
results.json: by program, the cases that carry the most marks first; failures
that differ the same way drawn once; for each, a sentence on how close it came,
its input, and a command that reproduces it. Every text that came from a run is
escaped already (see `marking.verdicts`)."""

import json
import os
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path

from marking.near_miss import kind_of
from marking.verdicts import NOT_RUN, PASS, PIPE, WRONG, WRONG_STDERR

MISSING = "missing"
MISSING_LINE = "{program}\n  {missing:<16} {why}"
NOT_SUBMITTED = "{program}.py is not in the submission (a link does not count): 0 of {marks:g} marks"
PROGRAM_HEAD = "{program}: {passed}/{total} cases pass, {earned:.2f} of {marks:g} marks"
CASE_LINE = "  {kind:<16} {marks:5.2f}  {case}{mode}{detail}"
WHAT_DIFFERS = "What differs"
SAME_WAY = "{case} and {more} more case{s} differ the same way: {how}"
ALONE = "{case}: {how}"
INPUT = "  input: {text}"
REPRODUCE = "  reproduce: {command}"
SCORE = "Score: {score:.2f}/{total:.2f} in {seconds:.1f} s"
LATE = "Late rule: {explanation}"
MARK = "Mark: {mark:.2f}/{total:.2f}"
PARTIAL = "Partial run: {run} of {total} cases marked (--only); the others count 0: not a mark"
INTERRUPTED = "Interrupted: {not_run} of {total} cases not run; a partial report, not a mark"
JSON_IS_A_FOLDER = "{path} is a folder"
JSON_NO_FOLDER = "cannot write in {folder}"
SHOWN_INPUT_BYTES = 200


@dataclass
class CaseResult:
    marked: object  # marking.assignment.MarkedCase
    verdicts: list

    @property
    def passed(self) -> bool:
        """Every mode passed, and with all its marks: a forgiven case earns less."""
        return bool(self.verdicts) and all(verdict.kind == PASS for verdict in self.verdicts)

    @property
    def earned(self) -> float:
        return self.marked.marks * min((verdict.credit for verdict in self.verdicts), default=0)

    @property
    def failed(self) -> list:
        return [verdict for verdict in self.verdicts if verdict.kind != PASS]


@dataclass
class Results:
    assignment: object  # marking.assignment.Assignment
    header: list
    programs: dict  # program -> [CaseResult], or None when the program is missing
    seconds: float = 0.0
    selected: int = None  # cases chosen by --only: None when every case was
    late: object = None  # marking.assignment.Late

    @property
    def score(self) -> float:
        return sum(result.earned for results in self.programs.values() if results
                   for result in results)

    @property
    def mark(self) -> float:
        return self.late.mark if self.late else self.score

    @property
    def not_run(self) -> int:
        return sum(1 for results in self.programs.values() if results for result in results
                   if any(verdict.kind == NOT_RUN for verdict in result.verdicts))

    @property
    def cases(self) -> int:
        return sum(len(results) for results in self.programs.values() if results)

    def summary(self) -> list:
        lines = []
        total = sum(len(cases) for cases in self.assignment.programs.values())
        if self.selected is not None and self.selected < total:
            lines.append(PARTIAL.format(run=self.selected, total=total))
        if self.not_run:
            lines.append(INTERRUPTED.format(not_run=self.not_run, total=self.cases))
        lines.append(SCORE.format(score=self.score, total=self.assignment.marks,
                                  seconds=self.seconds))
        if self.late:
            lines.append(LATE.format(explanation=self.late.explain(self.score)))
            lines.append(MARK.format(mark=self.mark, total=self.assignment.marks))
        return lines


def shell_bytes(data: bytes) -> str:
    """A printf argument that gives back `data` exactly, for a command to paste at a shell."""
    text = "".join(chr(byte) if 0x20 <= byte < 0x7F and byte not in b"\\%'" else
                   "\\n" if byte == 0x0A else f"\\{byte:03o}" for byte in data)
    return f"'{text}'"


def reproduce(case) -> str:
    """The command that reruns the case at a shell, in the submission's folder."""
    expected = f"expected_outputs/{case.program}/{case.name}.out"
    if case.simulate is not None:
        run = shlex.join(["python3", "-c", f"from {case.program} import simulate; "
                                           f"simulate{case.simulate}"])
    else:
        run = shlex.join(["python3", f"{case.program}.py", *case.args])
        run = f"printf {shell_bytes(case.stdin)} | {run}"
    if case.head is not None:
        run = f"{run} | head -c {case.head}"
    return f"{run} | diff - {expected}"


def shown_input(case) -> str:
    if case.simulate is not None:
        return f"simulate{case.simulate}"
    data = case.stdin[:SHOWN_INPUT_BYTES]
    more = len(case.stdin) - len(data)
    return shell_bytes(data) + (f" and {more} more bytes" if more else "")


def how(verdict) -> str:
    """What the report says of a verdict: what happened, then how close it came (a wrong
    output's detail is that sentence already)."""
    if verdict.kind in (WRONG, WRONG_STDERR):
        return verdict.detail
    return "; ".join(part for part in (verdict.detail, verdict.near_miss) if part)


def write_report(results: Results, out) -> None:
    for line in results.header:
        print(line, file=out)
    groups = {}  # (kind, how) -> [(result, verdict)]
    for program, program_results in results.programs.items():
        marks = results.assignment.program_marks(program)
        print("", file=out)
        if program_results is None:
            print(MISSING_LINE.format(program=program, missing=MISSING,
                                      why=NOT_SUBMITTED.format(program=program, marks=marks)),
                  file=out)
            continue
        passed = sum(result.passed for result in program_results)
        print(PROGRAM_HEAD.format(program=program, passed=passed, total=len(program_results),
                                  earned=sum(result.earned for result in program_results),
                                  marks=marks), file=out)
        for result in program_results:
            for verdict in result.verdicts:
                mode = "" if verdict.mode == PIPE else f" [{verdict.mode}]"
                said = how(verdict)
                print(CASE_LINE.format(kind=verdict.kind, marks=result.marked.marks,
                                       case=verdict.case_id, mode=mode,
                                       detail=f": {said}" if said else ""), file=out)
                if verdict.kind not in (PASS, NOT_RUN) and verdict.diff:
                    groups.setdefault((verdict.kind, verdict.mode, said), []).append(
                        (result, verdict))
    if groups:
        print(f"\n{WHAT_DIFFERS}", file=out)
    for (kind, _, said), members in groups.items():
        result, verdict = members[0]
        print("", file=out)
        print(SAME_WAY.format(case=verdict.case_id, more=len(members) - 1,
                              s="s" * (len(members) > 2), how=said or kind) if len(members) > 1
              else ALONE.format(case=verdict.case_id, how=said or kind), file=out)
        case = result.marked.case
        print(INPUT.format(text=shown_input(case)), file=out)
        print(REPRODUCE.format(command=reproduce(case)), file=out)
        print(verdict.diff, file=out)
    print("", file=out)
    for line in results.summary():
        print(line, file=out)


def gradescope(results: Results, extra_data: dict) -> dict:
    """Gradescope's results.json: a test per case, with the assignment's visibility."""
    tests = []
    for program, program_results in results.programs.items():
        if program_results is None:
            marks = results.assignment.program_marks(program)
            tests.append({"name": f"{program}.py", "score": 0, "max_score": marks,
                          "status": "failed", "visibility": "visible",
                          "output": NOT_SUBMITTED.format(program=program, marks=marks)})
            continue
        for result in program_results:
            case = result.marked.case
            text = "\n\n".join(
                "\n".join(filter(None, [f"{verdict.kind}: {how(verdict)}",
                                        INPUT.format(text=shown_input(case)).strip(),
                                        REPRODUCE.format(command=reproduce(case)).strip(),
                                        verdict.diff]))
                for verdict in result.failed) or PASS
            tests.append({"name": case.id, "score": round(result.earned, 4),
                          "max_score": round(result.marked.marks, 4),
                          "status": "passed" if result.passed else "failed",
                          "visibility": result.marked.visibility, "output": text})
    for number, test in enumerate(tests, 1):
        test["number"] = str(number)
    return {"score": round(results.mark, 4), "execution_time": round(results.seconds, 3),
            "output": "\n".join(results.header + results.summary()),
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {**extra_data, **marking_data(results)}}


def marking_data(results: Results) -> dict:
    """What a class's grade sheet and summary need, as data: each program's marks, the
    raw score, the late rule applied, and each case's worst verdict and near miss."""
    late = results.late
    cases = []
    for program_results in results.programs.values():
        for result in program_results or []:
            worst = next(iter(result.failed), None)
            cases.append({"case": result.marked.case.id, "visibility": result.marked.visibility,
                          "passed": result.passed, "kind": worst.kind if worst else PASS,
                          "near_miss": worst.near_miss if worst else "",
                          "near_miss_kind": kind_of(worst.near_miss)
                          if worst and worst.near_miss else ""})
    return {
        "raw_score": round(results.score, 4),
        "programs": {program: {"marks": results.assignment.program_marks(program),
                               "earned": round(sum(r.earned for r in program_results), 4)
                               if program_results is not None else 0, "submitted":
                               program_results is not None}
                     for program, program_results in results.programs.items()},
        "late": None if late is None else {"days": late.days, "accepted": late.accepted,
                                           "cap": late.cap, "mark": late.mark,
                                           "explanation": late.explain(results.score)},
        "cases": cases,
    }


def check_json_target(path: Path) -> None:
    """Refuse, before any marking, a results.json that cannot be written."""
    folder = path.parent
    if path.is_dir() and not path.is_symlink():
        raise ValueError(JSON_IS_A_FOLDER.format(path=path))
    if not (folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)):
        raise ValueError(JSON_NO_FOLDER.format(folder=folder))


def write_json(path: Path, results: dict) -> None:
    """Write a new file beside `path`, then rename it over `path`: a link or FIFO planted
    there is replaced, never followed, and a reader never sees half a file."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(results, file, indent=2, ensure_ascii=False)
            file.write("\n")
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
