"""The marker's report: one line per case, the diffs, a total per program, on a
terminal; the same as Gradescope's results.json. Every text that came from a
run is escaped already (see `marking.verdicts`)."""

import json
import os
import tempfile
from pathlib import Path

from marking.verdicts import PASS, PIPE

MISSING = "missing"
NOT_SUBMITTED = "{program}.py is not in the submission (a link does not count)"
WHAT_DIFFERS = "What differs"
PROGRAM_TOTAL = "  {program}: {passed}/{total} cases pass"
SCORE = "Score: {score:.2f}/{total:.2f} in {seconds:.1f} s"
PARTIAL = "Interrupted: {not_run} of {total} cases not run; a partial report, not a mark"
LEFT_OUT = "Left out of the copy: {what}"
JSON_IS_A_FOLDER = "{path} is a folder"
JSON_NO_FOLDER = "cannot write in {folder}"


def case_line(case_id: str, verdict) -> str:
    mode = "" if verdict.mode == PIPE else f" [{verdict.mode}]"
    detail = f": {verdict.detail}" if verdict.detail else ""
    return f"  {verdict.kind:<16} {case_id}{mode}{detail}"


def report(results: dict, shares: dict, seconds: float, header: list, out,
           not_run: int = 0) -> dict:
    """Print the report; return it in Gradescope's results.json shape. `results`
    maps each program to {case id: [verdicts]}, or to None when it was not submitted."""
    tests, failures, score, total = [], [], 0.0, 0
    for line in header:
        print(line, file=out)
    for program, verdicts_by_case in results.items():
        print(program, file=out)
        if verdicts_by_case is None:
            missing = NOT_SUBMITTED.format(program=program)
            print(f"  {MISSING:<16} {missing}", file=out)
            tests.append({"name": f"{program}.py", "score": 0, "max_score": shares[program],
                          "output": missing, "visibility": "visible"})
            continue
        each = shares[program] / max(1, len(verdicts_by_case))
        passed = 0
        for case_id, verdicts in verdicts_by_case.items():
            total += 1
            ok = bool(verdicts) and all(verdict.passed for verdict in verdicts)
            passed += ok
            for verdict in verdicts:
                print(case_line(case_id, verdict), file=out)
                if not verdict.passed and verdict.diff:
                    failures.append(verdict.diff)
            tests.append({"name": case_id, "score": each if ok else 0, "max_score": each,
                          "output": "\n\n".join(f"{v.kind}: {v.detail}\n{v.diff}".strip()
                                                for v in verdicts if not v.passed) or PASS,
                          "visibility": "visible"})
        score += each * passed
        print(PROGRAM_TOTAL.format(program=program, passed=passed, total=len(verdicts_by_case)),
              file=out)
    if failures:
        print(f"\n{WHAT_DIFFERS}", file=out)
        print("\n\n".join(failures), file=out)
    print("", file=out)
    if not_run:
        print(PARTIAL.format(not_run=not_run, total=total), file=out)
    print(SCORE.format(score=score, total=sum(shares.values()), seconds=seconds), file=out)
    return {"score": round(score, 4), "max_score": sum(shares.values()),
            "execution_time": round(seconds, 3), "tests": tests, "visibility": "visible",
            "output": "\n".join(header + ([PARTIAL.format(not_run=not_run, total=total)]
                                          if not_run else []))}


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
