"""The marker's report, for a person at a terminal and as Gradescope's
results.json: by program, the cases that carry the most marks first; failures
that differ the same way drawn once; for each, a sentence on how close it came,
its input, and a command that reproduces it. Every text that came from a run is
escaped already (see `exactmark.marking.verdicts`)."""

import base64
import json
import math
import os
import re
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from exactmark.diagnosis import diagnose
from exactmark.diagnosis.evidence import as_set
from exactmark.diagnosis.matching import Failure, whole
from exactmark.kit.cases import STATS_VARIABLE, SUFFIXES
from exactmark.marking import grouping, records
from exactmark.marking.verdicts import PIPE, TERMINAL, Kind, expected, how

MISSING = "missing"
MISSING_LINE = "{program}\n  {missing:<{width}} {why}"
NOT_SUBMITTED = "{why}: 0 of {marks:.2f} marks"
BUILD_LINE = "  build: {said}"
NOT_BUILT_LINE = "  {kind:<{width}} (all {count} cases: 0)"
WARNINGS_COST = "its warnings cost {share:.0%} of what the program's cases earn: -{marks:.2f}"
BUILD_TEST = "{program}: build"  # never a case's PROGRAM/CASE
PROGRAM_HEAD = "{program}: {passed}/{total} cases pass, {earned:.2f} of {marks:.2f} marks"
PROGRAM_MARKS = "{program}: {earned:.2f} of {marks:.2f} marks"  # it marks no golden case
CASE_LINE = "  {kind:<{width}} {marks:5.2f}  {case}{detail}"
KIND_WIDTH = max(len(kind.value) for kind in Kind)  # every verdict's word fits its column
WHAT_DIFFERS = "What differs"
SAME_WAY = "{count} cases differ the same way: {cases}"
AS_IN = "  as in {case}: {how}"
ALONE = "{case}: {how}"
INPUT = "  input: {text}"
WHAT_IT_SUGGESTS = "What the failures suggest"
SUGGESTS = "{program}:"
SUGGESTED = "  {line}"
# Gradescope: a test worth nothing that says the diagnosis once more cases are shown
SUGGESTS_TEST = "{program}: what your failures suggest"
REGION = "  - {sentence}"
REPRODUCE = "  reproduce: {command}"
REPRODUCE_THERE = "  reproduce, in the submission's folder: {command}"
RUNAWAY = "  {line}"  # a line of what an output stopped for size showed
REPRODUCE_PAST_BYTES = 2000  # what a too-large output's reproduce shows beyond the expected
AT_A_TERMINAL = "{run}  # at a terminal: the screen should read as {screen}"
TIMEOUT = "timeout {seconds:g}"  # coreutils': ends the run after that long
# 124: what timeout exits with when it stopped the run.
STOPPED_AFTER = ('{{ {run}; [ $? -ne 124 ] || echo "still running after {seconds:g} s: '
                 'stopped" >&2; }}')
TYPING = ", typing each line of {input} as it asks"
SCORE = "Score: {score:.2f}/{total:.2f} in {seconds:.1f} s"
LATE = "Late rule: {explanation}"
MARK = "Mark: {mark:.2f}/{total:.2f}"
PARTIAL = "Partial run: {run} of {total} cases marked (--only); the others count 0: not a mark"
INTERRUPTED = "Interrupted: {not_run} of {total} cases not run; a partial report, not a mark"
JSON_IS_A_FOLDER = "{path} is a folder"
JSON_NO_FOLDER = "cannot write in {folder}"
SHOWN_INPUT_BYTES = 200
CASES_FOLDER = "expected_outputs"
SHELL_SAFE = re.compile(r"[A-Za-z0-9_./+-]+")
# results.json's marks are multiples of 2**-13 (about 0.0001): sums of such floats are exact
# in any order, so the tests' maxima add up to the assignment's marks however Gradescope
# adds them (13 marks over 92 cases, each rounded to 4 decimals, added up to 13.0005).
# Marks that are no multiple of it (7.3) leave one maximum the difference (`spread`): every
# maximum then a multiple of the total's last bit, which keeps each sum exact still.
MARKS_QUANTUM = 2 ** -13
MARKS_DECIMALS = 6  # the total of the marks, as an instructor writes it (0.1 * 3 is 0.3)


@dataclass
class CaseResult:
    marked: object  # exactmark.kit.assignment.MarkedCase
    verdicts: list

    @property
    def earned_all(self) -> bool:
        """Every mode passed, and with all its marks: a forgiven case earns less (a
        verdict's `passed` counts it)."""
        return bool(self.verdicts) and all(verdict.kind == Kind.PASS for verdict in self.verdicts)

    @property
    def earned(self) -> float:
        return self.marked.marks * min((verdict.credit for verdict in self.verdicts), default=0)

    @property
    def failed(self) -> list:
        return [verdict for verdict in self.verdicts if verdict.kind != Kind.PASS]


@dataclass
class Results:
    assignment: object  # exactmark.kit.assignment.Assignment
    header: list
    programs: dict  # program -> [CaseResult], or None when the program is missing
    seconds: float = 0.0
    selected: int = None  # cases chosen by --only: None when every case was
    late: object = None  # exactmark.kit.late.Late
    missing: dict = field(default_factory=dict)  # program -> (why missing, look-alike sentences)
    builds: dict = field(default_factory=dict)  # program -> exactmark.marking.build.Build
    student: dict = field(default_factory=dict)  # program -> [exactmark.marking.student_cases.GroupResult]
    notes: list = field(default_factory=list)  # the header's lines on the submission itself
    header_said: int = 0  # the header's first lines, printed already (before the progress)
    keys: dict = field(default_factory=dict)  # case id -> its key (exactmark.marking.reuse)
    kept: set = field(default_factory=set)  # ids of the cases kept from an earlier marking
    diagnoses: list = field(default_factory=list)  # of exactmark.diagnosis.diagnose.Diagnosis

    def golden_marks(self, program: str) -> float:
        """What the program's golden and fresh cases are worth (its groups of student cases
        aside)."""
        return (sum(marked.marks for marked in self.assignment.marked_cases[program])
                + sum(group.marks for group in self.assignment.fresh_groups(program)))

    def not_submitted(self, program: str) -> str:
        """Why a program scores 0 on its cases (those the student wrote included), and which
        of the submission's files look like it."""
        why, alike = self.missing.get(program, ([], []))
        marks = self.golden_marks(program) + sum(
            group.marks["own_code"] for group in self.assignment.student_groups(program))
        return "; ".join([NOT_SUBMITTED.format(why="; ".join(why), marks=marks), *alike])

    def deducted(self, program: str) -> float:
        """What the program's build's warnings cost: the assignment's share of what its
        cases earn."""
        built = self.builds.get(program)
        if not (built and built.ok and built.warnings):
            return 0.0
        cases = sum(result.earned for result in self.programs.get(program) or [])
        return cases * self.assignment.programs[program].warnings_cost

    def warnings_cost(self, program: str) -> str:
        """The sentence that states the deduction, or "" when there is none."""
        deducted = self.deducted(program)
        return WARNINGS_COST.format(share=self.assignment.programs[program].warnings_cost,
                                    marks=deducted) if deducted else ""

    def earned(self, program: str) -> float:
        """The program's marks: its cases', less what its build's warnings cost, and its
        groups of student cases'."""
        cases = sum(result.earned for result in self.programs.get(program) or [])
        return (cases - self.deducted(program)
                + sum(group.total for group in self.student.get(program, ())))

    @property
    def score(self) -> float:
        return sum(self.earned(program) for program in self.programs)

    @property
    def mark(self) -> float:
        return self.late.mark if self.late else self.score

    @property
    def not_run(self) -> int:
        return sum(1 for results in self.programs.values() if results for result in results
                   if any(verdict.kind == Kind.NOT_RUN for verdict in result.verdicts))

    @property
    def cases(self) -> int:
        return sum(len(results) for results in self.programs.values() if results)

    def summary(self) -> list:
        lines = []
        total = sum(map(self.assignment.case_count, self.assignment.marked_cases))
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


def fresh_files(case) -> dict:
    """A fresh case's files as a record keeps them: suffix -> base64 of the bytes."""
    return {suffix: base64.b64encode(case.file(suffix).read_bytes()).decode("ascii")
            for suffix in SUFFIXES if case.file(suffix).is_file()}


def shell_bytes(data: bytes) -> str:
    """A printf argument that gives back `data` exactly, for a command to paste at a shell."""
    text = "".join(chr(byte) if 0x20 <= byte < 0x7F and byte not in b"\\%'" else
                   "\\n" if byte == 0x0A else f"\\{byte:03o}" for byte in data)
    return f"'{text}'"


def case_folder(case) -> str:
    """Where a student's feedback puts a case's files, as the handouts cite them: under the
    name of the folder the cases come from (two programs may share one)."""
    return f"{CASES_FOLDER}/{case.folder.name}"


def reproduce(case, program, kind: Kind = Kind.WRONG, folder: str = None,
              mode: str = PIPE, bound: float = None) -> str:
    """The command that reruns the case at a shell, in the submission's folder, and shows
    what cost the marks: the stdout's diff, the exit status (stderr left on the terminal,
    where its traceback explains it), a crash's traceback alone, the stderr's diff, or an output too large up to a
    little past the expected (head ends the program once it has that much); a compiled
    `program` is built first. Its input and expected output are the case's files in
    `folder` (by default `expected_outputs/CASES`, as a student's feedback lays them out),
    never a long printf. A case at a TERMINAL is the program run there, its input typed as
    it asks (no shell tool types a line only once a program waits for it), its screen to
    compare. A run stopped for its time is given `bound` seconds (`timeout`), so that the
    command ends by itself."""
    at = (folder or case_folder(case)).rstrip("/")

    def file(suffix: str) -> str:
        path = f"{at}/{case.name}{suffix}"
        return path if SHELL_SAFE.fullmatch(path) else shlex.quote(path)
    run = shlex.join(program.shell_run(case))
    if bound is not None:
        run = f"{TIMEOUT.format(seconds=bound)} {run}"
    typed = case.simulate is None
    if typed and mode != TERMINAL:
        run = f"{run} < {file('.in')}"
    if case.stats is not None:
        run = (f'stats="$(mktemp)" && cp {file(".stats")} "$stats" && '
               f'{STATS_VARIABLE}="$stats" {run}')
    head = f" | head -c {case.head}" if case.head is not None else ""
    if program.built:
        run = f"{program.shell_build()} && {run}"
    if bound is not None:  # says that it was stopped: a diff alone would not
        run = STOPPED_AFTER.format(run=run, seconds=bound)
    if kind == Kind.TOO_LARGE:  # what it writes, to a little past the expected: it ends there
        most = case.head if case.head is not None else len(case.stdout) + REPRODUCE_PAST_BYTES
        run = f"{run} 2>&1 | head -c {most}"
        if mode != TERMINAL:
            return run
    if mode == TERMINAL:
        return AT_A_TERMINAL.format(run=run, screen=file(".tty")) + (
            TYPING.format(input=file(".in")) if typed else "")
    if kind == Kind.WRONG_STATUS:
        if head:
            return f'{{ {run}; echo "exit status $?, want {case.status}" >&2; }}{head} > /dev/null'
        return f'{run} > /dev/null; echo "exit status $?, want {case.status}"'
    if kind == Kind.CRASH:
        return f"{run}{head} > /dev/null"
    if kind == Kind.WRONG_STDERR:
        if head:
            return f"{{ {run}{head} > /dev/null; }} 2>&1 | diff - {file('.err')}"
        return f"{run} 2>&1 >/dev/null | diff - {file('.err')}"
    return f"{run}{head} | diff - {file('.out')}"


def indented(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())


def shown_input(case) -> str:
    if case.simulate is not None:
        return f"simulate{case.simulate}"
    data = case.stdin[:SHOWN_INPUT_BYTES]
    more = len(case.stdin) - len(data)
    return shell_bytes(data) + (f" and {more} more bytes" if more else "")


def shown_case(verdict) -> str:
    """A verdict's case as the report names it, with its mode unless it was piped."""
    return verdict.case_id + ("" if verdict.mode == PIPE else f" [{verdict.mode}]")


def said_once(verdicts: list, said: str, name=shown_case) -> list:
    """The head of one way of failing: its case, or how many cases and which, and what
    differs, in the words of the first (whose input, command and diff follow)."""
    if len(verdicts) == 1:
        return [ALONE.format(case=name(verdicts[0]), how=said)]
    return [SAME_WAY.format(count=len(verdicts), cases=", ".join(map(name, verdicts))),
            AS_IN.format(case=name(verdicts[0]), how=said)]


def failure(verdict, case) -> Failure:
    """A failed run of `case` as the diagnosis weighs it, as its signatures were stored,
    and whether it changed (nearly) every line the case expects."""
    lines, want = as_set(verdict.lines), expected(case, verdict.mode) or b""
    return Failure(str(verdict.kind), verdict.near_miss.kind if verdict.near_miss else "",
                   verdict.digest, lines,
                   whole(lines, len(want.split(b"\n")) - want.endswith(b"\n")))


def diagnosed(results: Results, known_of: dict) -> list:
    """Each program's diagnosis at each level of what a reader sees (diagnose.LEVELS), on
    the cases that ran: none for a program missing or unbuilt, or without signatures
    (`known_of`: program -> its diagnose.Knowledge, or None)."""
    found = []
    for program, program_results in results.programs.items():
        built = results.builds.get(program)
        known = known_of.get(program)
        if not program_results or (built is not None and not built.ok) or known is None:
            continue
        ran = [result for result in program_results
               if not any(verdict.kind == Kind.NOT_RUN for verdict in result.verdicts)]
        failures = {result.marked.case.name: failure(result.failed[0], result.marked.case)
                    for result in ran if not result.earned_all}
        found += diagnose.at_each_level(known, failures, {result.marked.case.name:
                                                          result.marked.visibility for result in ran})
    return found


def suggested(diagnoses: list, level: str) -> list:
    """The report's lines on what the failures suggest, at `level`: by program, the
    mistakes named, then the failures by rule."""
    lines = []
    for program in dict.fromkeys(diagnosis.program for diagnosis in diagnoses):
        diagnosis = diagnose.at(diagnoses, program, level)
        if diagnosis and (diagnosis.said or diagnosis.by_rule):
            lines += [SUGGESTS.format(program=program),
                      *(SUGGESTED.format(line=line) for line in (*diagnosis.said, *diagnosis.by_rule))]
    return lines


def write_report(results: Results, out) -> None:
    for line in results.header[results.header_said:]:
        print(line, file=out)
    failures = []  # (result, verdict) of each failed run
    for program, program_results in results.programs.items():
        marks = results.assignment.program_marks(program)
        student = results.student.get(program, ())
        print("", file=out)
        if program_results is None:
            print(MISSING_LINE.format(program=program, missing=MISSING, width=KIND_WIDTH,
                                      why=results.not_submitted(program)), file=out)
            for group in student:
                print("\n".join(group.lines()), file=out)
            continue
        passed = sum(result.earned_all for result in program_results)
        print(PROGRAM_HEAD.format(program=program, passed=passed, total=len(program_results),
                                  earned=results.earned(program), marks=marks)
              if program_results or not student else
              PROGRAM_MARKS.format(program=program, earned=results.earned(program), marks=marks),
              file=out)
        for group in student:
            print("\n".join(group.lines()), file=out)
        built = results.builds.get(program)
        if built is not None:
            print(BUILD_LINE.format(said=built.said()), file=out)
            if results.warnings_cost(program):
                print(BUILD_LINE.format(said=results.warnings_cost(program)), file=out)
            if built.messages:
                print(indented(built.messages), file=out)
        if built is not None and built.cases == Kind.NOT_BUILT and not built.ok:
            print(NOT_BUILT_LINE.format(kind=Kind.NOT_BUILT, width=KIND_WIDTH,
                                         count=len(program_results)), file=out)
            continue
        for result in program_results:
            for verdict in result.verdicts:
                said = how(verdict)
                print(CASE_LINE.format(kind=verdict.kind, width=KIND_WIDTH,
                                       marks=result.marked.marks, case=shown_case(verdict),
                                       detail=f": {said}" if said else ""), file=out)
                if verdict.kind not in (Kind.PASS, Kind.NOT_RUN):
                    failures.append((result, verdict))
    differences = [difference for program, student in results.student.items()
                   for group in student for valid in (False, True)
                   for difference in group.differences(results.assignment.programs[program], valid)]
    if failures or differences:
        print(f"\n{WHAT_DIFFERS}", file=out)
    for members in grouping.grouped(failures, lambda failure: grouping.difference(failure[1])):
        result, verdict = members[0]
        said = how(verdict) or str(verdict.kind)
        print("", *said_once([member for _, member in members], said, shown_case),
              sep="\n", file=out)
        case, kind = result.marked.case, verdict.kind
        if len(verdict.regions) > 1:
            for region in verdict.regions:
                print(REGION.format(sentence=region), file=out)
        print(INPUT.format(text=shown_input(case)), file=out)
        print(REPRODUCE_THERE.format(command=reproduce(
            case, results.assignment.programs[case.program], kind, str(case.folder),
            verdict.mode, verdict.bound)), file=out)
        if verdict.diff:
            print(verdict.diff, file=out)
        for line in verdict.runaway:
            print(RUNAWAY.format(line=line), file=out)
    for title, lines in differences:
        print(f"\n{title}", *lines, sep="\n", file=out)
    said = suggested(results.diagnoses, diagnose.LEVELS[-1])
    if said:
        print(f"\n{WHAT_IT_SUGGESTS}", *said, sep="\n", file=out)
    print("", file=out)
    for line in results.summary():
        print(line, file=out)


def gradescope(results: Results, confined: dict) -> dict:
    """Gradescope's results.json: a test per case, with the assignment's visibility; its
    extra_data the marking as data (`exactmark.marking.records.MarkingRecord`), with `confined`: what
    confined the runs (isolation, python, users, cgroups). The tests' maxima add up to the
    assignment's marks exactly; a test worth nothing shows no marks at all (not "0/0")."""
    tests, exact = [], []  # exact: each test's (max_score, score) before rounding

    def add(test: dict, most: float, earned: float) -> None:
        tests.append(test)
        exact.append((most, earned))
    for program, program_results in results.programs.items():
        declared = results.assignment.programs[program]
        student = [test for group in results.student.get(program, ())
                   for test in group.tests(declared)]
        if program_results is None:
            add({"name": (declared.exact_names() or [program])[0], "status": "failed",
                 "visibility": "visible", "output": results.not_submitted(program)},
                results.golden_marks(program), 0)
            for test in student:
                add(test, test["max_score"], test["score"])
            continue
        built = results.builds.get(program)
        if built is not None:
            add({"name": BUILD_TEST.format(program=program),
                 "status": "passed" if built.ok else "failed", "visibility": "visible",
                 "output": "\n".join(filter(None, [built.said(), results.warnings_cost(program),
                                                   built.messages]))},
                0, -results.deducted(program))
        for result in program_results:
            case = result.marked.case
            text = "\n\n".join(
                f"{verdict.kind}: {how(verdict)}" if verdict.kind == Kind.NOT_BUILT else
                "\n".join(filter(None, [f"{verdict.kind}: {how(verdict)}",
                                        INPUT.format(text=shown_input(case)).strip(),
                                        REPRODUCE.format(command=reproduce(
                                            case, declared, verdict.kind,
                                            mode=verdict.mode, bound=verdict.bound)).strip(),
                                        verdict.diff, *verdict.runaway]))
                for verdict in result.failed) or Kind.PASS
            add({"name": case.id, "status": "passed" if result.earned_all else "failed",
                 "visibility": result.marked.visibility, "output": text},
                result.marked.marks, result.earned)
        for test in student:
            add(test, test["max_score"], test["score"])
    for level in diagnose.LEVELS[1:-1]:  # the visible level is said in the output, hidden never
        for test in later_suggestions(results.diagnoses, level):
            add(test, 0, 0)
    maxima = spread([most for most, _ in exact])
    for number, (test, (most, earned), quantised) in enumerate(zip(tests, exact, maxima), 1):
        test["number"] = str(number)
        if most == 0 and earned == 0:  # worth nothing: it says, it does not score
            test.pop("score", None)
            test.pop("max_score", None)
        else:
            test["score"] = (quantised if earned == most else  # full marks: all of its maximum
                             round(earned / most * quantised if most else earned, 4))
            test["max_score"] = quantised
    return {"score": round(results.mark, 4), "execution_time": round(results.seconds, 3),
            "output": "\n".join([*results.header, *said_before(results.diagnoses),
                                  *results.summary()]),
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests,
            "extra_data": marking_data(results, **confined).to_dict()}


def said_before(diagnoses: list) -> list:
    """What the failures of the visible cases suggest, for the output every student sees."""
    said = suggested(diagnoses, diagnose.LEVELS[0])
    return ["", WHAT_IT_SUGGESTS, *said, ""] if said else []


def later_suggestions(diagnoses: list, level: str) -> list:
    """Gradescope's tests, worth nothing and of visibility `level`, that say what the
    failures suggest once the cases of that level are shown too: one a program whose
    diagnosis there says something and differs from the level before's."""
    tests = []
    for program in dict.fromkeys(diagnosis.program for diagnosis in diagnoses):
        before = diagnose.at(diagnoses, program, diagnose.LEVELS[diagnose.LEVELS.index(level) - 1])
        now = diagnose.at(diagnoses, program, level)
        if now is not None and now.level == level and (now.said or now.by_rule) and \
                (before is None or (before.said, before.by_rule) != (now.said, now.by_rule)):
            tests.append({"name": SUGGESTS_TEST.format(program=program), "status": "failed",
                          "visibility": level, "output": "\n".join((*now.said, *now.by_rule))})
    return tests


def spread(marks: list) -> list:
    """`marks`, each to a multiple of MARKS_QUANTUM, adding up exactly to their total (to
    MARKS_DECIMALS: the assignment's marks, when every case is marked), in any order:
    each rounded down, then the quanta left given one each to those that lost the most
    (the earlier first among equals), then what the quanta cannot make of the total (less
    than one) given to the largest of those that are no multiple of it already (a case
    worth 0.5 stays 0.5), else to the largest: any maximum can take it, since every
    maximum and every partial sum is then a multiple of the total's last bit."""
    total = round(math.fsum(marks), MARKS_DECIMALS)
    units = [math.floor(most / MARKS_QUANTUM + 1e-6) for most in marks]
    left = round(total / MARKS_QUANTUM) - sum(units)
    losses = sorted((index for index, most in enumerate(marks) if most > 0),
                    key=lambda index: units[index] - marks[index] / MARKS_QUANTUM)
    for index in losses[:max(0, left)]:
        units[index] += 1
    maxima = [unit * MARKS_QUANTUM for unit in units]
    if maxima:
        inexact = [index for index, most in enumerate(marks) if most != maxima[index]] or \
            list(range(len(marks)))
        largest = max(inexact, key=lambda index: maxima[index])
        maxima[largest] += total - math.fsum(maxima)
    return maxima


def refused(assignment, reason: str) -> dict:
    """results.json for a submission the marker refuses whole: 0, and why."""
    return {"score": 0, "execution_time": 0, "output": reason, "visibility": "visible",
            "stdout_visibility": "hidden", "tests": [],
            "extra_data": records.MarkingRecord(assignment.name, (), "", (), (), 0.0, {}, None, (),
                                          refused=reason).to_dict()}


def marking_data(results: Results, isolation=(), python="", users=(),
                 cgroups=(), sandbox_per="") -> records.MarkingRecord:
    """What a class's grade sheet and pages need, as data: each program's marks (and why a
    missing one is missing, or how its build went), the raw score, the late rule applied,
    and each case's marks, group, visibility and verdicts, each with its sentences, the
    command that reproduces it from a student's folder and its diff (drawn, and as lines
    for a page); and what confined the runs."""
    late, declared = results.late, results.assignment.programs
    fresh = {program: {group.name for group in results.assignment.fresh_groups(program)}
             for program in declared}
    cases = []
    for program_results in results.programs.values():
        for result in program_results or []:
            marked, worst = result.marked, next(iter(result.failed), None)
            near_miss = worst.near_miss if worst else None
            cases.append(records.Case(
                marked.case.id, marked.case.program, marked.case.name, marked.group,
                marked.visibility, round(marked.marks, 4), round(result.earned, 4),
                result.earned_all, worst.kind if worst else Kind.PASS,
                near_miss.sentence if near_miss else "", near_miss.kind if near_miss else "",
                tuple(verdict_data(marked.case, declared[marked.case.program], verdict)
                      for verdict in result.verdicts),
                results.keys.get(marked.case.id, ""), marked.case.id in results.kept,
                fresh_files(marked.case) if marked.group in fresh.get(marked.case.program, ())
                else None, worst.digest if worst else "", worst.lines if worst else (),
                bool(worst) and failure(worst, marked.case).whole))
    programs = {program: records.Program(
        results.assignment.program_marks(program), round(results.earned(program), 4),
        program_results is not None,
        "" if program_results is not None else results.not_submitted(program),
        results.builds[program].record() if program in results.builds else None,
        results.warnings_cost(program))
        for program, program_results in results.programs.items()}
    return records.MarkingRecord(
        results.assignment.name, tuple(isolation), python, tuple(users), tuple(cgroups),
        round(results.score, 4), programs,
        None if late is None else late_record(late, results.score),
        tuple(cases), sandbox_per,
        tuple(group.record(declared[program]) for program, student in results.student.items()
              for group in student), notes=tuple(results.notes),
        diagnoses=tuple(results.diagnoses))


def late_record(late, raw: float) -> records.Late:
    """The late rule applied (exactmark.kit.assignment.Late) to the raw score `raw`, as
    data: the marker's, and again after an override changes the raw score."""
    return records.Late(late.days, late.accepted, late.cap, late.mark,
                        round(late.late.total_seconds() / 3600, 4), late.explain(raw),
                        late.summary(), late.due.isoformat(), late.terms_said,
                        None if late.free is None else late.days_spent, late.days_left,
                        late.free)


def verdict_data(case, program, verdict) -> records.Verdict:
    failed = verdict.kind not in (Kind.PASS, Kind.NOT_RUN)
    return records.Verdict(verdict.mode, verdict.kind, how(verdict), tuple(verdict.regions),
                           shown_input(case),
                           reproduce(case, program, verdict.kind, mode=verdict.mode,
                                     bound=verdict.bound)
                           if failed else "",
                           verdict.diff,
                           verdict.diff_lines.to_json() if verdict.diff_lines else None,
                           verdict.runaway,
                           grouping.difference(verdict) if failed else "",
                           verdict.detail, tuple(verdict.near_miss or ()), verdict.credit,
                           verdict.bound, verdict.digest, verdict.lines)


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
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
