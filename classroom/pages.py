"""What a class's marking writes: the grade sheet, a feedback page per student
(HTML and plain text) and the class summary. Pages come from jinja2 templates
with auto-escaping on, so no byte a student wrote reaches a page as markup."""

import csv
import json
from collections import Counter
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

SHOWN_SPACE = "␠"  # how the marker's diffs show a space: few fonts draw it


def shown_marks(value: float) -> str:
    """Marks as people read them: at most two decimals, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def spaces_drawn(text: str) -> Markup:
    """A diff for a page: escaped, each shown space drawn as a dot of its own colour."""
    return Markup(str(escape(text)).replace(
        SHOWN_SPACE, '<span class="space" title="a space">\u00b7</span>'))


TEMPLATES = Environment(loader=PackageLoader("classroom", "templates"),
                        autoescape=select_autoescape(["html"]), trim_blocks=True,
                        lstrip_blocks=True, keep_trailing_newline=True)
TEMPLATES.filters.update(marks=shown_marks, spaces_drawn=spaces_drawn)
VISIBLE = "visible"
PASSED = "passed"
BINS = 10
SHOWN_PAIRS = 20
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_COLUMNS = ("student", "{program}", "raw total", "days late", "mark", "status",
               "cases passed", "note")


def grade_row(student: str, assignment, results, status: str, reason: str) -> dict:
    """One student's line of the grade sheet, as data."""
    data = (results or {}).get("extra_data", {})
    late = data.get("late") or {}
    tests = [test for test in (results or {}).get("tests", []) if "/" in test["name"]]
    return {
        "student": student,
        "programs": {program: data.get("programs", {}).get(program, {}).get("earned", 0)
                     for program in assignment.programs},
        "raw": data.get("raw_score", 0),
        "days_late": late.get("days", 0),
        "mark": results["score"] if results else 0,
        "status": status,
        "passed": sum(test["status"] == PASSED for test in tests),
        "cases": sum(len(cases) for cases in assignment.programs.values()),
        "note": reason,
    }


def spreadsheet_text(text: str) -> str:
    """A cell a spreadsheet shows as text: one that starts like a formula (`=`, `+`, `-`,
    `@`, a tab or a CR) gets a leading apostrophe, so that a student's folder named
    `=HYPERLINK(...)` is never run when the sheet is opened."""
    return "'" + text if text[:1] in FORMULA_STARTS else text


def write_grades(path: Path, assignment, rows: list) -> None:
    programs = list(assignment.programs)
    with open(path, "w", newline="", encoding="utf-8") as file:
        sheet = csv.writer(file)
        sheet.writerow([column.format(program=program) for column in CSV_COLUMNS
                        for program in (programs if "{program}" in column else [None])])
        for row in rows:
            sheet.writerow([spreadsheet_text(row["student"]),
                            *[shown_marks(row["programs"][p]) for p in programs],
                            shown_marks(row["raw"]), row["days_late"], shown_marks(row["mark"]),
                            row["status"], f"{row['passed']}/{row['cases']}",
                            spreadsheet_text(row["note"])])


def feedback_of(student: str, assignment, results, row: dict) -> dict:
    """What a student may see: the visible cases in full, the others only counted."""
    tests = (results or {}).get("tests", [])
    shown = [test for test in tests if test.get("visibility") == VISIBLE and "/" in test["name"]]
    others = [test for test in tests if test.get("visibility") != VISIBLE and "/" in test["name"]]
    missing = [test["output"] for test in tests if "/" not in test["name"]]
    late = ((results or {}).get("extra_data") or {}).get("late")
    return {"student": student, "assignment": assignment, "row": row, "shown": shown,
            "missing": missing,
            "others": len(others), "others_passed": sum(t["status"] == PASSED for t in others),
            "late": late}


def write_feedback(folder: Path, student: str, assignment, results, row: dict) -> None:
    page = feedback_of(student, assignment, results, row)
    for name in ("feedback.html", "feedback.txt"):
        (folder / name).write_text(TEMPLATES.get_template(name).render(**page), encoding="utf-8")


def histogram(marks: list, total: float) -> list:
    """BINS bars over 0..total: (low, high, count), the last bar holding full marks."""
    width = total / BINS
    counts = Counter(min(int(mark / width), BINS - 1) if width else 0 for mark in marks)
    return [(round(i * width, 2), round((i + 1) * width, 2), counts[i]) for i in range(BINS)]


def class_results(out: Path, rows: list, folder_of) -> list:
    found = []
    for row in rows:
        path = folder_of(row["student"]) / "results.json"
        if path.exists():
            found.append(json.loads(path.read_text(encoding="utf-8")))
    return found


def case_failures(results: list) -> tuple:
    """(case, failed, out of) for each case someone fails, the case most of the class
    fails first (out of those who handed its program in); and how many nobody fails."""
    failed, seen = Counter(), Counter()
    for result in results:
        for case in result["extra_data"]["cases"]:
            seen[case["case"]] += 1
            failed[case["case"]] += not case["passed"]
    failing = sorted(((case, failed[case], seen[case]) for case in seen if failed[case]),
                     key=lambda item: (-item[1] / item[2], item[0]))
    return failing, len(seen) - len(failing)


def near_miss_kinds(results: list) -> list:
    """The most common ways a failed case came close, by kind of near miss."""
    kinds = Counter(case["near_miss_kind"] for result in results
                    for case in result["extra_data"]["cases"]
                    if not case["passed"] and case["near_miss_kind"])
    return kinds.most_common(10)


def write_summary(out: Path, assignment, rows: list, folder_of, pairs: list) -> None:
    results = class_results(out, rows, folder_of)
    marks = [row["mark"] for row in rows]
    bars = histogram(marks, assignment.marks)
    page = {"assignment": assignment, "rows": rows, "bars": bars,
            "tallest": max([count for _, _, count in bars] + [1]),
            "failures": case_failures(results)[0], "nobody_fails": case_failures(results)[1],
            "kinds": near_miss_kinds(results),
            "pairs": pairs[:SHOWN_PAIRS], "links": {row["student"]: folder_of(row["student"])
                                                   .relative_to(out).as_posix() for row in rows},
            "mean": sum(marks) / len(marks) if marks else 0}
    (out / "summary.html").write_text(TEMPLATES.get_template("summary.html").render(**page),
                                      encoding="utf-8")
