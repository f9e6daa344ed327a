"""An assignment as data: the file `assignments/NAME.toml` says which golden
cases count and what each is worth, who may see it, the time limit, the
deadline and the late rule, and what is forgiven at a cost. The JSON Schema
beside the files checks their shape; this module checks what a schema cannot
(the marks add up, every golden case is either marked or the kit's own) and
turns the file into the cases the marker runs.
"""

import fnmatch
import json
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import jsonschema

from exactmark.kit import fresh
from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT, Case
from exactmark.kit.late import (MARKS_DIGITS, NO_LATE_SUBMISSIONS, Late, LateDays, LateRule,
                                Terms, closes, countable, judge, longest_window, rule_of,
                                sentence)
from exactmark.kit.programs import MOST_SOURCES, PYTHON, Program, Submitted, is_glob
from exactmark.kit.languages import language as golden_language
from exactmark.kit.rules import RuleError, rule_map
from exactmark.kit.variants import VariantError, read_variant
from exactmark.base.visible import escaped
from exactmark.kit.submission import skip_reason

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ASSIGNMENTS = ROOT / "assignments"
WRONG = ROOT / "tests" / "wrong"  # the kit's wrong programs, one folder per program
SCHEMA = ASSIGNMENTS / "assignment.schema.json"
COMPARED = ("status", "stderr")
KIT_ONLY = "kit_only"  # what holds a golden case the assignment does not mark
VISIBLE = "visible"  # the visibility of a case students see from the start
STUDENT_CASES = "student_cases"  # the kind of a group of cases the student writes
FRESH = "fresh"  # the kind of a group of cases drawn for each student at marking time
NOT_GOLDEN = (STUDENT_CASES, FRESH)  # the kinds of group that hold no golden case
COUNTS = ("valid", "thorough", "own_code")  # what a student's cases are marked on
MOST_CASES, MOST_CASE_BYTES = 25, 64 << 10  # a group of student cases', by default
# The isolation an assignment (`require = [...]`) or a marker (`--require`) may insist on;
# a machine that cannot give it is refused before anything runs.
REQUIREMENTS = {
    "network-off": "no run reaches the network (namespaces, or seccomp)",
    "files-hidden": "no run reads a file it was not given (namespaces, or Landlock)",
    "own-user": "each run has a throwaway user of its own (the marker runs as root)",
    "cgroup": "each run's memory, processes and CPU time are held for the whole run",
}

NO_SUCH = ("no assignment {name!r}; the assignments are: {names}; or give the path of an "
           "assignment file of your own, FILE.toml{nearby}")
NEARBY = " (did you mean ./{file}?)"  # NAME.toml is in the current folder
UNREADABLE = "{path}: {problem}"
MARKS_DO_NOT_ADD_UP = "{path}: the groups' marks add up to {total:g}, not the assignment's {marks:g}"
UNCLASSIFIED = ("{path}: {program}: golden cases neither marked nor kit-only: {cases} "
                "(add them to a group or to kit_only)")
EMPTY_GROUP = "{path}: {program}: group {group!r} matches no golden case"
NO_PROGRAM = "{path}: {program}: no golden cases in {folder}"
ENTRY_NOT_SUBMITTED = "{path}: {program}: its entry {entry} is none of the files it must submit"
BAD_COUNTS = ("{path}: {program}: {files}: at least {least} and at most {most} cannot be "
              "(a name without a wildcard is one file)")
BAD_DEADLINE = "{path}: deadline {deadline!r} is not a date and time such as 2027-03-09T09:00:00"
BAD_ZONE = "{path}: unknown time zone {zone!r}"
DEADLINE_SAID = "deadline {deadline!r}"  # as late.UNCOUNTABLE starts
NO_SUCH_FILE = "no such file: {path}"
NOT_A_FILE = "{path} is not an assignment file"
UNKNOWN_WEIGHT = "{path}: {program}: group {group!r} weighs cases it does not hold: {cases}"
NO_MISTAKE = "{path}: {program}: group {group!r}: no wrong program {glob} in {folder}"
UNKNOWN_MISTAKE_WEIGHT = "{path}: {program}: group {group!r} weighs mistakes it does not name: {names}"
NO_KIT_CASE = "{path}: {program}: group {group!r}: its {what} {glob} is no golden case of it"
FOLDER_LEFT_OUT = ("{path}: {program}: group {group!r}: the marker's copy of a submission "
                   "leaves {folder} out ({why})")
SAME_FOLDER = "{path}: {program}: groups {first!r} and {second!r} read the same folder {folder}"
NO_DEFAULT_MISTAKE = ("{path}: {program}: group {group!r}: no wrong program in {folder} is named "
                      "{game}_* or breaks a rule of the handout's section of that game: name its "
                      "mistakes")


class AssignmentError(ValueError):
    """An assignment file that cannot be marked with; the message says where and why."""


@dataclass(frozen=True)
class MarkedCase:
    """A golden case as this assignment marks it."""
    case: Case
    marks: float
    group: str
    visibility: str
    compare: frozenset  # of COMPARED: what besides stdout, where the case gives it

    @property
    def visible(self) -> bool:
        """Shown to students from the start: the student pack holds it."""
        return self.visibility == VISIBLE


@dataclass(frozen=True)
class StudentCases:
    """A group of cases the student writes (`kind = "student_cases"`), each marked on three
    counts: valid (the reference gives exactly what it expects), thorough (the share of the
    hidden wrong programs its valid cases catch) and own code (the share of its valid
    cases the student's program passes)."""
    program: str
    name: str
    folder: str  # where the cases sit in the submission, as cases/golf
    marks: dict  # of COUNTS -> marks
    visibility: str  # when the mistakes caught and missed are named (before: how many)
    compare: frozenset  # of COMPARED: what besides stdout, where the case gives it
    mistakes: tuple  # names of the program's wrong programs the cases must catch
    wrong_folder: Path  # where those wrong programs lie, NAME.toml
    weights: dict  # mistake -> weight (default 1)
    most: int = MOST_CASES  # cases marked; those beyond are refused
    most_bytes: int = MOST_CASE_BYTES  # a case any of whose files is larger is refused
    kit_cases: tuple = ()  # golden cases that play what these cases play (make verify)
    example: Case = None  # a golden case shown to everyone as a worked example
    game_mistakes: bool = False  # the mistakes are the game's (no `mistakes` in the file)
    asked: int = 1  # cases the handout asks for: valid and own code are shared over as many

    @property
    def total(self) -> float:
        return sum(self.marks.values())

    def weight(self, mistake: str) -> float:
        return self.weights.get(mistake, 1)


@dataclass(frozen=True)
class Submissions:
    """How many submissions count on Gradescope (`[submissions]`): at most `most` within
    any `window` (the whole assignment when None), and of those, only the first
    `feedback_first` show their tests before the due date. None: no limit."""
    most: int = None
    window: timedelta = None
    window_said: str = ""  # as the file says it: "24 hours"
    feedback_first: int = None

    def settings(self) -> dict:
        """What Gradescope's autograder reads (exactmark/gradescope/run.py imports nothing)."""
        return {"most": self.most, "window": self.window_said or None,
                "window_seconds": self.window.total_seconds() if self.window else None,
                "feedback_first": self.feedback_first}


WINDOW_UNITS = {"hour": timedelta(hours=1), "day": timedelta(days=1)}


def _submissions(data: dict):
    """The file's `[submissions]` (its schema checks the window's shape: "24 hours")."""
    limit = data.get("submissions")
    if limit is None:
        return None
    window = limit.get("window")
    count, unit = window.split() if window else (0, "")
    return Submissions(limit.get("most"), int(count) * WINDOW_UNITS[unit.rstrip("s")]
                       if window else None, window or "", limit.get("feedback_first"))


@dataclass(frozen=True)
class Assignment:
    name: str
    title: str
    marks: float
    cpu_seconds: float
    wall_seconds: float  # None: the sandbox's own cap, well above the CPU limit
    marked_cases: dict  # program -> [MarkedCase], most marks first
    kit_only: dict  # program -> [Case]
    deadline: datetime = None  # aware
    late: LateRule = None
    normalise: dict = None  # normalisation name -> share of a case's marks deducted
    path: Path = None  # the file it was read from
    python: str = None  # the Python version (X.Y) that runs the submissions, where one is installed
    groups: dict = None  # program -> its golden and fresh groups' names, in the file's order
    require: tuple = ()  # of REQUIREMENTS: isolation the marking insists on
    programs: dict = None  # program -> exactmark.kit.programs.Program: its language, files, reference
    student_budget: float = None  # CPU seconds of all a student's cases in a class run
    unmarked_rules: dict = None  # program -> {rule id: why this assignment does not mark it}
    student_cases: dict = None  # program -> (StudentCases, ...), in the file's order
    submissions: Submissions = None  # how many count on Gradescope; None: every one
    late_days: LateDays = None  # the term's bank of late days; None: no bank
    fresh: dict = None  # program -> (exactmark.kit.fresh.FreshGroup, ...), in the file's order

    def program_marks(self, program: str) -> float:
        return round(sum(marked.marks for marked in self.marked_cases[program])
                     + sum(group.total for group in self.student_groups(program))
                     + sum(group.marks for group in self.fresh_groups(program)), MARKS_DIGITS)

    def fresh_groups(self, program: str) -> tuple:
        """The program's groups of cases drawn for each student at marking time."""
        return (self.fresh or {}).get(program, ())

    def case_count(self, program: str) -> int:
        """The cases a student's marking runs of the program: golden and fresh."""
        return (len(self.marked_cases[program])
                + sum(group.count for group in self.fresh_groups(program)))

    def student_groups(self, program: str) -> tuple:
        """The program's groups of cases the student writes."""
        return (self.student_cases or {}).get(program, ())

    def chosen_mistakes(self) -> dict:
        """{program: {group: [its wrong programs]}} of the programs with groups of cases the
        student writes: what an autograder built here must choose again where it runs."""
        return {program: {group.name: list(group.mistakes)
                          for group in self.student_groups(program)}
                for program in self.marked_cases if self.student_groups(program)}

    @property
    def every_student_group(self) -> tuple:
        """Every program's groups of cases the student writes, in the file's order."""
        return tuple(group for program in self.marked_cases for group in self.student_groups(program))

    def due(self, terms: Terms = None):
        """The student's due date: their own, else the assignment's deadline (None: no
        deadline)."""
        if self.deadline is None:
            return None
        return terms.due if terms is not None and terms.due is not None else self.deadline

    def closes(self, terms: Terms = None):
        """The last moment this student's submission can still be accepted (grace, the
        rule's window and the late days they may spend here included); None: no deadline."""
        if self.deadline is None:
            return None
        return closes(self.late or NO_LATE_SUBMISSIONS, self.late_days, self.due(terms),
                      terms or Terms())

    def mark_after_deadline(self, raw: float, submitted: datetime = None,
                            terms: Terms = None) -> Late:
        """The late rule's verdict, counted from the student's due date, or None when the
        assignment has no deadline or the submission's time is unknown."""
        if self.deadline is None or submitted is None:
            return None
        return judge(self.late or NO_LATE_SUBMISSIONS, self.late_days, raw, self.marks,
                     self.due(terms), submitted, terms or Terms(), self.deadline.tzinfo)

    def late_sentence(self) -> str:
        """The late rule in the handout's words (the summary, pages, README); "" without a
        deadline."""
        if self.deadline is None:
            return ""
        return sentence(self.late or NO_LATE_SUBMISSIONS, self.late_days)


def names() -> list:
    return sorted(path.stem for path in ASSIGNMENTS.glob("*.toml"))


def load(name: str, folder: Path = ASSIGNMENTS) -> Assignment:
    """The assignment NAME of `folder`, or the file NAME when it ends in .toml (an
    instructor's own, kept anywhere)."""
    path, data = _read(name, folder)
    return _assignment(path.stem, path, data)


def declarations(name: str, folder: Path = ASSIGNMENTS) -> dict:
    """{program: exactmark.kit.programs.Program} as the assignment declares them, its golden
    cases not read: what `make expected` needs before the cases exist."""
    path, data = _read(name, folder)
    return {program["name"]: _program(path, program) for program in data["programs"]}


def _read(name: str, folder: Path) -> tuple:
    """(the assignment file's path, its data, checked against the schema)."""
    own = name.endswith(".toml")
    path = Path(name) if own else folder / f"{name}.toml"
    if own and not path.exists():
        raise AssignmentError(NO_SUCH_FILE.format(path=escaped(str(path))))
    if own and not path.is_file():
        raise AssignmentError(NOT_A_FILE.format(path=escaped(str(path))))
    if not path.is_file():
        nearby = Path(f"{name}.toml")
        raise AssignmentError(NO_SUCH.format(
            name=escaped(name), names=", ".join(names()) or "none",
            nearby=NEARBY.format(file=escaped(nearby.name)) if nearby.is_file() else ""))
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as problem:
        raise AssignmentError(UNREADABLE.format(path=path, problem=problem)) from None
    if isinstance(data.get("deadline"), datetime):
        data["deadline"] = data["deadline"].isoformat()
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "the file"
        raise AssignmentError(f"{path}: {where}: {error.message}")
    return path.absolute(), data


def _assignment(name: str, path: Path, data: dict) -> Assignment:
    marked_cases, kit_only, programs, student, drawn = {}, {}, {}, {}, {}
    for program in data["programs"]:
        programs[program["name"]] = _program(path, program)
        marked_cases[program["name"]], kit_only[program["name"]] = _cases(
            path, program, programs[program["name"]])
        stored = [marked.case for marked in marked_cases[program["name"]]] + kit_only[
            program["name"]]
        student[program["name"]] = _student_groups(path, program, stored,
                                                   programs[program["name"]])
        drawn[program["name"]] = _fresh_groups(path, program, stored, programs[program["name"]])
    total = (sum(marked.marks for cases in marked_cases.values() for marked in cases)
             + sum(group.total for groups in student.values() for group in groups)
             + sum(group.marks for groups in drawn.values() for group in groups))
    if round(total, MARKS_DIGITS) != round(data["marks"], MARKS_DIGITS):
        raise AssignmentError(MARKS_DO_NOT_ADD_UP.format(path=path, total=total,
                                                         marks=data["marks"]))
    late, bank = data.get("late"), data.get("late_days")
    rule = rule_of(late) if late else None
    bank = LateDays(bank["free"], bank.get("most", bank["free"])) if bank else None
    deadline = _deadline(path, data, rule or NO_LATE_SUBMISSIONS, bank)
    cpu = data["cpu_seconds"]
    wall = data.get("wall_seconds")
    return Assignment(name, data["title"], data["marks"], cpu,
                      None if wall is None else max(cpu, wall), marked_cases, kit_only,
                      deadline, rule,
                      data.get("normalise", {}), path.absolute(), data.get("python"),
                      {program["name"]: tuple(group["name"] for group in program["groups"]
                                              if group.get("kind") != STUDENT_CASES)
                       for program in data["programs"]}, tuple(data.get("require", ())),
                      programs, data.get("student_budget"),
                      {program["name"]: program.get("unmarked_rules", {})
                       for program in data["programs"]}, student,
                      submissions=_submissions(data), late_days=bank, fresh=drawn)


def _deadline(path: Path, data: dict, rule: LateRule, bank: LateDays):
    """The deadline, aware; refused when the late rule cannot count from it to the close of
    its longest window (a student's own due date so late is a window that never closes;
    the assignment's is everyone's, and an extension is counted from it)."""
    if "deadline" not in data:
        return None
    try:
        zone = ZoneInfo(data["time_zone"])
    except (ZoneInfoNotFoundError, ValueError):
        raise AssignmentError(BAD_ZONE.format(path=path, zone=data["time_zone"])) from None
    try:
        local = datetime.fromisoformat(data["deadline"])
    except ValueError:
        raise AssignmentError(BAD_DEADLINE.format(path=path, deadline=data["deadline"])) from None
    deadline = local.replace(tzinfo=zone) if local.tzinfo is None else local
    try:
        return countable(deadline, DEADLINE_SAID.format(deadline=data["deadline"]), zone,
                         longest_window(rule, bank))
    except ValueError as problem:
        raise AssignmentError(f"{path}: {problem}") from None


def _program(path: Path, entry: dict) -> Program:
    """The program as the file declares it; paths are relative to the file, so that an
    instructor's assignment may live anywhere. What it leaves out is a Python program as
    the kit's are: NAME.py, the kit as its reference, expected_outputs/NAME its cases,
    its handout the one in docs/ named after it."""
    name = entry["name"]
    try:
        language = golden_language(entry.get("language", PYTHON))
    except ValueError as problem:
        raise AssignmentError(f"{path}: {name}: {problem}") from None
    here = path.parent
    reference = (here / entry["reference"]).resolve() if "reference" in entry else ROOT
    handout = ROOT / "docs" / f"{name}.md" if reference == ROOT else None
    entry_file = entry.get("entry", "" if language.built else f"{name}.py")
    default = [Submitted(glob, 1 if glob == language.sources[0] else 0, MOST_SOURCES)
               for glob in language.sources] if language.built else [Submitted(entry_file)]
    submit = tuple(Submitted(kind["files"], kind.get("least", 1),
                             kind.get("most", MOST_SOURCES if is_glob(kind["files"]) else 1))
                   for kind in entry["submit"]) if "submit" in entry else tuple(default)
    for kind in submit:
        if kind.least > kind.most or (not is_glob(kind.glob) and kind.most > 1):
            raise AssignmentError(BAD_COUNTS.format(path=path, program=name, files=kind.glob,
                                                    least=kind.least, most=kind.most))
    if not language.built and not any(kind.least and fnmatch.fnmatchcase(entry_file, kind.glob)
                                      for kind in submit):
        raise AssignmentError(ENTRY_NOT_SUBMITTED.format(path=path, program=name,
                                                         entry=entry_file))
    return Program(name, language, submit, entry_file, reference,
                   (here / entry["cases"]).resolve() if "cases" in entry
                   else EXPECTED_OUTPUTS / name,
                   (here / entry["handout"]).resolve() if "handout" in entry
                   else handout if handout and handout.is_file() else None,
                   tuple(entry["flags"]) if "flags" in entry else None,
                   entry.get("warnings", 0.0))


def _cases(path: Path, program: dict, declared: Program):
    """The program's marked cases, most marks first, and its kit-only ones; every
    golden case must be one or the other."""
    name = program["name"]
    golden = [group for group in program["groups"] if group.get("kind") not in NOT_GOLDEN]
    try:
        cases = declared.cases()
    except FileNotFoundError:
        if golden:
            raise AssignmentError(NO_PROGRAM.format(path=path, program=name,
                                                    folder=declared.cases_folder)) from None
        cases = []  # only cases the students write: the program needs no golden case
    held = [[] for _ in golden]
    kit_only, left = [], []
    for case in cases:
        holder = _holder(program, case.name)
        if holder == KIT_ONLY:
            kit_only.append(case)
        else:
            (left if holder is None else held[golden.index(holder)]).append(case)
    marked = []
    for group, members in zip(golden, held):
        if not members:
            raise AssignmentError(EMPTY_GROUP.format(path=path, program=name, group=group["name"]))
        weights = group.get("weights", {})
        unknown = sorted(set(weights) - {case.name for case in members})
        if unknown:
            raise AssignmentError(UNKNOWN_WEIGHT.format(path=path, program=name,
                                                        group=group["name"], cases=unknown))
        total = sum(weights.get(case.name, 1) for case in members)
        compare = frozenset(group.get("compare", COMPARED))
        marked += [MarkedCase(case, group["marks"] * weights.get(case.name, 1) / total,
                              group["name"], group["visibility"], compare) for case in members]
    if left:
        raise AssignmentError(UNCLASSIFIED.format(path=path, program=name,
                                                  cases=", ".join(case.name for case in left)))
    marked.sort(key=lambda marked: -marked.marks)  # stable: the file's order among equals
    return marked, kit_only


def _holder(entry: dict, case: str):
    """What holds the golden case `case` of the program `entry`: KIT_ONLY when kit_only
    matches it, else the first golden group whose globs match it (its entry), else None."""
    if _matches(case, entry.get("kit_only", [])):
        return KIT_ONLY
    return next((group for group in entry["groups"] if group.get("kind") not in NOT_GOLDEN
                 and _matches(case, group["cases"])), None)


def compared(name: str, program: str, case: str, folder: Path = ASSIGNMENTS):
    """What the assignment NAME compares of `program`'s golden case `case` besides stdout
    (its group's `compare`), read before the case exists: `make expected` says it of each
    case it writes. KIT_ONLY for a case the assignment does not mark; None when nothing
    holds it (loading would refuse the assignment)."""
    entry = next(entry for entry in _read(name, folder)[1]["programs"] if entry["name"] == program)
    holder = _holder(entry, case)
    return holder if holder in (KIT_ONLY, None) else frozenset(holder.get("compare", COMPARED))


def wrong_folder(path: Path, program: str) -> Path:
    """Where the wrong programs of an assignment's program lie: the kit's in tests/wrong/,
    those of an instructor's own file in wrong/ beside it."""
    return (WRONG if path.parent == ASSIGNMENTS else path.parent / "wrong") / program


def _student_groups(path: Path, program: dict, cases: list, declared: Program) -> tuple:
    """The program's groups of cases its students write. Their folder must reach the
    marker's copy; their mistakes name wrong programs that exist (by default those of the
    game the folder's last part names: cases/golf, golf_*, and those that break a rule of
    the handout's section of that game); their example and kit cases are golden cases of
    the program."""
    name, groups, folders = program["name"], [], {}
    folder = wrong_folder(path, name)
    wrong = sorted(found.stem for found in folder.glob("*.toml")) if folder.is_dir() else []
    by_name = {case.name: case for case in cases}
    for group in program["groups"]:
        if group.get("kind") != STUDENT_CASES:
            continue
        where = dict(group=group["name"], path=path, program=name)
        why = next(filter(None, map(skip_reason, group["folder"].split("/"))), None)
        if why:
            raise AssignmentError(FOLDER_LEFT_OUT.format(folder=group["folder"], why=why, **where))
        if group["folder"] in folders:
            raise AssignmentError(SAME_FOLDER.format(path=path, program=name,
                                                     first=folders[group["folder"]],
                                                     second=group["name"], folder=group["folder"]))
        folders[group["folder"]] = group["name"]
        mistakes = []
        for glob in group.get("mistakes", []):
            found = [mistake for mistake in wrong if fnmatch.fnmatchcase(mistake, glob)]
            if not found:
                raise AssignmentError(NO_MISTAKE.format(glob=glob, folder=folder, **where))
            mistakes += [mistake for mistake in found if mistake not in mistakes]
        if "mistakes" not in group:
            game = group["folder"].rsplit("/", 1)[-1]
            mistakes = _of_the_game(game, declared, folder, wrong, where)
            if not mistakes:
                raise AssignmentError(NO_DEFAULT_MISTAKE.format(folder=folder, game=game,
                                                                **where))
        weights = group.get("weights", {})
        unknown = sorted(set(weights) - set(mistakes))
        if unknown:
            raise AssignmentError(UNKNOWN_MISTAKE_WEIGHT.format(names=unknown, **where))
        for glob in group.get("kit_cases", []):
            if not any(fnmatch.fnmatchcase(case, glob) for case in by_name):
                raise AssignmentError(NO_KIT_CASE.format(what="kit case", glob=glob, **where))
        example = group.get("example")
        if example is not None and example not in by_name:
            raise AssignmentError(NO_KIT_CASE.format(what="example", glob=example, **where))
        groups.append(StudentCases(
            name, group["name"], group["folder"], dict(group["marks"]), group["visibility"],
            frozenset(group.get("compare", COMPARED)), tuple(mistakes), folder, weights,
            group.get("most", MOST_CASES), group.get("most_bytes", MOST_CASE_BYTES),
            tuple(case for case in by_name if _matches(case, group.get("kit_cases", []))),
            by_name.get(example), "mistakes" not in group, group.get("asked", 1)))
    return tuple(groups)


def _fresh_groups(path: Path, program: dict, stored: list, declared: Program) -> tuple:
    """The program's groups of fresh cases, their generators checked against its language
    and its `stored` cases, whose inputs they never draw."""
    found = []
    for group in program["groups"]:
        if group.get("kind") != FRESH:
            continue
        try:
            generators = fresh.generators(path, program["name"], group, declared.language, stored)
        except ValueError as problem:
            raise AssignmentError(str(problem)) from None
        found.append(fresh.FreshGroup(program["name"], group["name"], group["marks"],
                                      group["visibility"],
                                      frozenset(group.get("compare", COMPARED)), group["count"],
                                      generators))
    return tuple(found)


def _of_the_game(game: str, declared: Program, folder: Path, wrong: list, where: dict) -> list:
    """The wrong programs of the game `game` (golf, little_spider): named after it, or
    breaking a rule (their `rule`) of the handout's section of that name (Golf, Little
    Spider), where the handout has a rule list (exactmark/kit/rules.py)."""
    try:
        found = rule_map(declared)
        rules = {rule for rule, entry in (found.rules.items() if found else ())
                 if "_".join(entry.section.casefold().split()) == game}
        return [mistake for mistake in wrong if fnmatch.fnmatchcase(mistake, f"{game}_*")
                or rules and read_variant(folder / f"{mistake}.toml").rule in rules]
    except (RuleError, VariantError) as problem:
        raise AssignmentError(f"{where['path']}: {where['program']}: {problem}") from None


def _matches(name: str, patterns: list) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
