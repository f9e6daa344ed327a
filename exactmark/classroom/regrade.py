"""Regrades in a class run: who is marked again and why, and the marks that changed.

`--students a,b` re-marks only the students named (by the name the class gives them, or a
platform's id), whole; everyone else keeps what the last run left them, even where their
submission or the golden cases changed since (said, with how many). Without it, a student
whose key (the submission, its time, the assignment and its golden cases, the budget) is
unchanged is kept; one whose golden cases changed is marked again by the marker of one
submission given their earlier results.json (`exactmark mark --reuse`), which runs only
the golden cases whose own key changed, and the groups of cases the student writes whole
where anything of theirs changed (exactmark/marking/reuse.py), and scores them all with
the assignment's marks as they are now. A mark that differs from the one the last run gave
(kept in the student's state.json) is listed in OUT/changed-marks.csv and the summary, so
that the instructor can tell the student."""

import csv
import difflib
import dataclasses
from dataclasses import dataclass
from pathlib import Path

from exactmark.base.spreadsheet import replaced, spreadsheet_text
from exactmark.base.visible import escaped
from exactmark.classroom.sheet import shown_marks
from exactmark.classroom.unpack import name_key

CHANGED_MARKS = "changed-marks.csv"
CHANGED_COLUMNS = ("student", "id", "before", "after", "why")
NEAR_NAMES = 5  # names offered for those the class does not have, the closest first
NEAR = 0.6  # how alike (difflib's ratio, of the names as the class compares them) is near

UNKNOWN = "--students: {names}: not a student of this class (near: {near})"
NO_NEAR = "none"
NO_NAMES = "--students: give the names of the students to re-mark, as a,b"
NOT_NAMED = ("not marked: not named by --students, and no results of an earlier run to keep "
             "(name them to mark them)")
# Why a student was marked again, each a phrase of the summary and of changed-marks.csv.
NAMED = "named by --students"
FORCED = "all marked again (--force)"
SUBMISSION = "submission changed"
CASES = "cases changed: {cases}"
OVERRIDES_CHANGED = "overrides changed"  # kept, and its mark changed all the same
WHOLE_WITH_BUDGET = ("the assignment or its golden cases changed: marked whole (with a student "
                     "budget, every case runs again)")
MARKS_ONLY = "the assignment changed, no golden case of it: none run again"
GROUPS = "the cases the student writes run again: {groups}"
PART_CHANGED = {"submitted": "submission time changed", "budget": "budget changed",
                "terms": "own terms changed (a deadline, an extension or late days left)"}
OTHER_PART = "{part} changed"
ASSIGNMENT = "assignment"  # the key's part that the golden cases change
# Said on stderr once the class is marked.
REMARKED = "re-marked {count} student(s): {whys}"
WHY_NAMES = "{why}: {names}"
LEFT_STALE = ("{count} student(s) not named by --students changed since the last run (their "
              "submission, its time, their terms or the golden cases) and were not re-marked: "
              "kept as the last run left them, with the time and terms it marked: {names}")
LEFT_UNMARKED = "{count} student(s) not marked (not named by --students, no earlier results): {names}"
CHANGED = "{count} mark(s) changed since the last run: {path}"


def named(students: list, text: str) -> set:
    """The folders of the students `text` (a,b) names, by the name the class gives them or
    their platform's id (a team member's too); ValueError, a line, naming those it does not
    know and the nearest names it does."""
    wanted = [name.strip() for name in text.split(",") if name.strip()]
    if not wanted:
        raise ValueError(NO_NAMES)
    known = {}
    for student in students:
        for name in [student.name, student.id,
                     *(part for person in student.members for part in (person.name, person.id))]:
            if name:
                known.setdefault(name_key(name), (name, set()))[1].add(student.folder)
    unknown = [name for name in wanted if name_key(name) not in known]
    if unknown:
        def closeness(key: str) -> float:
            return max(difflib.SequenceMatcher(None, name_key(name), key).ratio()
                       for name in unknown)
        near = sorted((key for key in known if closeness(key) >= NEAR), key=lambda key: (
            -closeness(key), known[key][0]))[:NEAR_NAMES]
        raise ValueError(UNKNOWN.format(names=", ".join(escaped(name) for name in unknown),
                                        near=", ".join(escaped(known[key][0]) for key in near) or NO_NEAR))
    return {folder for name in wanted for folder in known[name_key(name)][1]}


def reasons(earlier: dict, key: dict, force: bool, was_named: bool) -> list:
    """Why a student is marked again: `earlier` the key of the last run's state (None:
    none), `key` today's. The golden cases' part is said once the marker has said which
    cases it ran (`cases_said`)."""
    if was_named:
        return [NAMED]
    if force:
        return [FORCED]
    if earlier is None:  # marked for the first time: no regrade
        return []
    if earlier.get("submission") != key.get("submission"):
        return [SUBMISSION]
    return [PART_CHANGED.get(part, OTHER_PART.format(part=part)) for part in key
            if part != ASSIGNMENT and earlier.get(part) != key[part]]


def cases_said(marking) -> list:
    """What a re-marking with --reuse ran again, from its results.json's data (a
    records.MarkingRecord): the golden cases and the groups of cases the student writes
    not kept."""
    run = [case.case for case in marking.cases if not case.kept]
    groups = [f"{group.program}/{group.folder}" for group in marking.student_groups
              if not group.kept]
    said = ([CASES.format(cases=", ".join(run))] if run else []) + (
        [GROUPS.format(groups=", ".join(groups))] if groups else [])
    return said or [MARKS_ONLY]


@dataclass
class Changed:
    """One mark that differs from the last run's."""
    student: str
    id: str
    before: float
    after: float
    why: str


def changed_marks(outcomes: list) -> list:
    """Each marked student whose mark differs (to the sheet's two decimals) from the mark
    the last run gave them."""
    return [Changed(outcome.student.name, outcome.student.id, outcome.before,
                    outcome.results["score"], "; ".join(outcome.why) or OVERRIDES_CHANGED)
            for outcome in outcomes
            if outcome.results and outcome.before is not None
            and shown_marks(outcome.before) != shown_marks(outcome.results["score"])]


def write_changed(path: Path, changed: list, outcomes: list) -> None:
    """OUT/changed-marks.csv, written by every run that follows one (a header alone when
    no mark changed: the last run's list never stands for this one's); none after a first
    run, which changes no mark."""
    if not any(outcome.kept or outcome.before is not None for outcome in outcomes):
        path.unlink(missing_ok=True)
        return
    with replaced(path) as file:
        sheet = csv.writer(file)
        sheet.writerow(CHANGED_COLUMNS)
        for row in changed:
            sheet.writerow([spreadsheet_text(cell) for cell in (
                row.student, row.id, shown_marks(row.before), shown_marks(row.after), row.why)])


def remarked(outcomes: list) -> list:
    """(student, why) of each student marked again, in the class's order."""
    return [(outcome.student.name, "; ".join(outcome.why)) for outcome in outcomes if outcome.why]


def said(outcomes: list, changed: list, path: Path) -> list:
    """The lines on stderr: who was re-marked and why, who was left as the last run left
    them though they changed, who is not marked at all, and how many marks changed."""
    lines, by_why = [], {}
    for name, why in remarked(outcomes):
        by_why.setdefault(why, []).append(name)
    if by_why:
        lines.append(REMARKED.format(count=sum(map(len, by_why.values())), whys="; ".join(
            WHY_NAMES.format(why=why, names=", ".join(names)) for why, names in by_why.items())))
    stale = [outcome.student.name for outcome in outcomes if outcome.stale]
    if stale:
        lines.append(LEFT_STALE.format(count=len(stale), names=", ".join(stale)))
    unmarked = [outcome.student.name for outcome in outcomes  # the others say their own
                if outcome.unmarked == NOT_NAMED]
    if unmarked:
        lines.append(LEFT_UNMARKED.format(count=len(unmarked), names=", ".join(unmarked)))
    if changed:
        lines.append(CHANGED.format(count=len(changed), path=path))
    return lines


def summary(outcomes: list, changed: list, shown: dict = None) -> dict:
    """The summary's section on regrades, as data for its template; `shown` maps a
    student's name to the name the summary gives them (a pseudonym: --anonymous)."""
    def name(student: str) -> str:
        return (shown or {}).get(student, student)
    return {"remarked": [(name(student), why) for student, why in remarked(outcomes)],
            "changed": [dataclasses.replace(row, student=name(row.student), id="")
                        if shown else row for row in changed],
            "stale": [name(outcome.student.name) for outcome in outcomes if outcome.stale],
            "unmarked": [name(outcome.student.name) for outcome in outcomes
                         if outcome.unmarked]}
