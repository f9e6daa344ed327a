"""Marks a person corrects (`--overrides CSV`): an instructor's file of rows `student, what,
mark, reason, who`, checked against the assignment before any marking, then applied to the
marker's own results (results.json's dict, Gradescope's format) by a pure function, every
run: the marker's results are kept as the marker wrote them, so that a re-run or a re-mark
keeps the overrides and a changed file never re-runs a case.

`what` is a case as the report names it (PROGRAM/NAME), a group (PROGRAM/GROUP NAME: a
group of golden cases, or of the cases students write), a program, or `total`; `mark` a
number from 0 to what that thing is worth, or `pass` (all of it) or `fail` (none). Cases
first, then groups, then programs change the raw score, each from where the one before left
it (a group's override after a case's in it sets the group whatever the case got); the late
rule then applies to the raw score as overridden; `total` last sets the mark itself."""

import copy
import difflib
import math
from dataclasses import asdict, dataclass

from exactmark.base.instructor_csv import BAD_ROW, name_key, read_table
from exactmark.base.visible import escaped
from exactmark.marking import records
from exactmark.marking.report import late_record

COLUMNS = ("student", "what", "mark", "reason", "who")
CASE, GROUP, PROGRAM, TOTAL = "case", "group", "program", "total"
ORDER = (CASE, GROUP, PROGRAM, TOTAL)  # the order they apply in
VERDICTS = {"pass": 1.0, "fail": 0.0}  # a verdict's share of the thing's marks
NEARBY = 3  # the names said beside one that does not exist
SHOWN = "visible"  # the one visibility whose case Gradescope's summary may name

MISSING_COLUMNS = ("{path}: an overrides file needs the columns student, what, mark, reason "
                   "and who")
NO_SUCH_THING = "no {what!r} in {assignment}; nearby: {nearby}"
NO_SUCH_STUDENT = "no student {student!r} in the class; nearby: {nearby}"
BAD_MARK = "mark {mark!r} is neither a number nor pass or fail"
OUT_OF_RANGE = "mark {mark!r} is not from 0 to {marks:g}, what {what} is worth"
TWICE = "a second override of {what} for {student} (the first on line {first})"
ALREADY = "these results are overridden already: apply overrides to the marker's own"
# The instructor's words (grades.csv, the report, a page that shows the thing).
OVERRIDDEN = "overridden: {what} {before:.2f} → {after:.2f} ({reason}, by {who})"
# A page, or Gradescope's summary, where the case is not shown: the case not named.
HIDDEN_OVERRIDDEN = "a hidden case's mark was changed by your instructor: {reason}"
OUTPUT_MARK = "Mark, overridden: {mark:.2f}"  # results.json's output, after the overrides
TEST_OUTPUT = "overridden by {who}: {reason}"  # a test's output, before what the marker said
OVERRIDE_TEST = "{what}: overridden"  # a test worth nothing, holding what no test of its own can
NONE_FOR = "no override names {student} in {path}"


@dataclass(frozen=True)
class Override:
    """One row of the file, checked: the thing it names, what that is worth, the mark."""
    line: int
    student: str  # as the file writes it
    what: str  # as the assignment names it (a case id, PROGRAM/GROUP, a program, "total")
    level: str  # of ORDER
    program: str  # "" for the total
    marks: float  # what the thing is worth
    mark: float  # the mark it gets
    reason: str  # escaped
    who: str  # escaped
    visibility: str = ""  # a case's


@dataclass(frozen=True)
class Overrides:
    """An overrides file, read and checked against an assignment."""
    path: str
    rows: tuple  # of Override, in the file's order

    def of(self, known: tuple) -> list:
        """The rows naming one student, in the order they apply. `known`: the names and
        ids the student goes by (a platform's id, each team member's name and id), a
        name matched as the times file matches names."""
        keys = {name_key(name) for name in known if name}
        return sorted((row for row in self.rows if name_key(row.student) in keys),
                      key=lambda row: ORDER.index(row.level))

    def check_class(self, everyone: list) -> None:
        """ValueError, one line, for the first row naming no student of the class, or
        naming a thing a row before named for the same student by another name (their id)
        (`everyone`: what each student is `known` by, their name first)."""
        keys = {name_key(name) for known in everyone for name in known if name}
        for row in self.rows:
            if name_key(row.student) not in keys:
                raise ValueError(BAD_ROW.format(path=self.path, line=row.line, problem=(
                    NO_SUCH_STUDENT.format(student=escaped(row.student), nearby=nearby(
                        row.student, [known[0] for known in everyone])))))
        for known in everyone:
            first = {}
            for row in sorted(self.of(known), key=lambda row: row.line):
                if row.what in first:
                    raise ValueError(BAD_ROW.format(path=self.path, line=row.line, problem=(
                        TWICE.format(what=escaped(row.what), student=escaped(row.student),
                                     first=first[row.what]))))
                first[row.what] = row.line


def nearby(what: str, names: list) -> str:
    """The names most like `what`, for a line that says it does not exist."""
    return ", ".join(escaped(name) for name in difflib.get_close_matches(
        what, names, n=NEARBY, cutoff=0)) or "none"


def things(assignment) -> dict:
    """What a row may name: name -> (level, program, marks, visibility)."""
    found = {TOTAL: (TOTAL, "", assignment.marks, "")}
    for program, marked_cases in assignment.marked_cases.items():
        found[program] = (PROGRAM, program, assignment.program_marks(program), "")
        drawn = {group.name: group.marks for group in assignment.fresh_groups(program)}
        for group in assignment.groups.get(program, ()):
            found[f"{program}/{group}"] = (GROUP, program, round(drawn.get(group, sum(
                marked.marks for marked in marked_cases if marked.group == group)), 6), "")
        for group in assignment.student_groups(program):
            found[f"{program}/{group.name}"] = (GROUP, program, group.total, "")
        for marked in marked_cases:  # a case's id wins over a group's of the same spelling
            found[marked.case.id] = (CASE, program, marked.marks, marked.visibility)
    return found


def read(path, assignment) -> Overrides:
    """The file's rows, each checked against the assignment; ValueError with one line
    saying file and line on the first that cannot be applied."""
    named = things(assignment)
    rows, first = [], {}
    for line, cells in read_table(path, COLUMNS, MISSING_COLUMNS):
        def refuse(problem: str):
            return ValueError(BAD_ROW.format(path=path, line=line, problem=problem))
        what = TOTAL if cells["what"].casefold() == TOTAL else cells["what"]
        if what not in named:
            raise refuse(NO_SUCH_THING.format(what=escaped(what), assignment=assignment.name,
                                              nearby=nearby(what, list(named))))
        level, program, marks, visibility = named[what]
        mark = mark_of(cells["mark"], marks)
        if mark is None:
            raise refuse(BAD_MARK.format(mark=escaped(cells["mark"])))
        if not 0 <= mark <= marks:
            raise refuse(OUT_OF_RANGE.format(mark=escaped(cells["mark"]), marks=marks,
                                             what=escaped(what)))
        key = (name_key(cells["student"]), what)
        if key in first:
            raise refuse(TWICE.format(what=escaped(what), student=escaped(cells["student"]),
                                      first=first[key]))
        first[key] = line
        rows.append(Override(line, cells["student"], what, level, program, marks, mark,
                             escaped(cells["reason"]), escaped(cells["who"]), visibility))
    return Overrides(str(path), tuple(rows))


def mark_of(text: str, marks: float):
    """A row's mark: a number as written, or a verdict's share of `marks`; None if neither."""
    if text.casefold() in VERDICTS:
        return VERDICTS[text.casefold()] * marks
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def apply(results: dict, rows: list, late=None) -> dict:
    """The marker's `results` (results.json's dict) with `rows` applied, a new dict; the
    input is never changed. `late(raw)`: the late rule for this student (their terms
    included), an exactmark.kit.assignment.Late or None, applied again to the raw score as
    overridden. Each override is recorded in extra_data's `overrides`; a case's test takes
    its new score and says so; a group's, a program's (or a case no test holds) adds a test
    worth nothing that carries the difference, as a build's warnings do."""
    if (results.get("extra_data") or {}).get("overrides"):
        raise ValueError(ALREADY)
    done = copy.deepcopy(results)
    data = done.setdefault("extra_data", {})
    cases = {case["case"]: case for case in data.get("cases", [])}
    tests = {test["name"]: test for test in done.get("tests", [])}
    programs = data.get("programs", {})
    raw = data.get("raw_score", 0.0)
    mark = done.get("score", 0.0)
    applied = []
    for row in sorted(rows, key=lambda row: ORDER.index(row.level)):
        if row.level == TOTAL:
            before, mark = mark, row.mark
        else:
            before = earned(row, data, cases)
            change = row.mark - before
            raw += change
            if row.program in programs:
                programs[row.program]["earned"] = round(programs[row.program]["earned"] + change, 4)
            if row.level == CASE and row.what in cases:
                cases[row.what]["earned"] = round(row.mark, 4)
                cases[row.what]["passed"] = row.mark >= row.marks
            test = tests.get(row.what) if row.level == CASE else None
            if test is not None and "max_score" in test:
                test["score"] = test["max_score"] if row.mark >= row.marks else round(
                    row.mark / row.marks * test["max_score"], 4)
                test["status"] = "passed" if row.mark >= row.marks else "failed"
                test["output"] = "\n\n".join([said_on_test(row), test.get("output", "")])
            else:
                done.setdefault("tests", []).append({
                    "name": OVERRIDE_TEST.format(what=row.what), "score": round(change, 4),
                    "max_score": 0, "status": "passed", "visibility": row.visibility or SHOWN,
                    "output": said_on_test(row)})
            if late is not None:
                lateness = late(round(raw, 4))
                if lateness is not None:
                    data["late"] = asdict(late_record(lateness, raw))
                mark = lateness.mark if lateness is not None else raw
            else:
                mark = raw
        applied.append(records.Override(row.what, row.level, round(before, 4),
                                        round(row.mark, 4), row.marks, row.reason, row.who,
                                        row.visibility))
    data["raw_score"] = round(raw, 4)
    done["score"] = round(mark, 4)
    data["overrides"] = [asdict(override) for override in applied]
    if applied:  # the marker's summary said the mark before: the last line says it after
        done["output"] = "\n".join([done.get("output", ""), *(
            said(override) if override.visibility in ("", SHOWN)
            else said_to_student(override, shown=False) for override in applied),
            OUTPUT_MARK.format(mark=mark)])
    return done


def earned(row: Override, data: dict, cases: dict) -> float:
    """What the thing a row names earns now (the overrides before it applied)."""
    if row.level == CASE:
        return cases[row.what]["earned"] if row.what in cases else 0.0
    if row.level == PROGRAM:
        return data.get("programs", {}).get(row.program, {}).get("earned", 0.0)
    group = row.what[len(row.program) + 1:]
    written = [sum(record["earned"].values()) for record in data.get("student_groups", [])
               if (record["program"], record["group"]) == (row.program, group)]
    return sum(written) if written else sum(
        case["earned"] for case in cases.values()
        if (case["program"], case["group"]) == (row.program, group))


def said(override) -> str:
    """An override in the instructor's words (a records.Override)."""
    return OVERRIDDEN.format(what=override.what, before=override.before, after=override.after,
                             reason=override.reason, who=override.who)


def said_to_student(override, shown: bool) -> str:
    """An override as a student's page says it: a case it does not show now is not named."""
    return said(override) if shown else HIDDEN_OVERRIDDEN.format(reason=override.reason)


def said_on_test(row: Override) -> str:
    return TEST_OUTPUT.format(who=row.who, reason=row.reason)
