"""Cases the student writes (a group of `kind = "student_cases"`): read from the marker's
own copy of the submission, each refused with its reason or marked on three counts:

- valid: the reference, run in the sandbox like any submission, gives exactly what the
  case expects (stdout, and the exit status and stderr where it gives them);
- thorough: the hidden wrong programs the group names (variants of the sample solution,
  tests/wrong/PROGRAM/) run on the valid cases, each until one case fails it: caught;
- own code: the student's program passes its own valid cases.

Valid and own code are shared over at least the number of cases the handout asks for
(`asked`), so that a few cases do not earn what many do. A case counts only when it shows
mostly screens of its own: one that is mostly a worked example (a copy, renamed, cut
short, with a command put before or after its moves), or the start of a longer case of
the student's, is not counted, and not marked, with the reason.

A student's case is hostile input like any other: its name, its bytes and its size are
checked before anything runs it (exactmark.kit.written_cases, which reads the cases, and which
the student pack's checker bundles to read them as the marker does), and every run of it
is a sandboxed run with the marking's limits and budget.
"""

import math
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

from exactmark.base.visible import escaped, first_difference
from exactmark.marking import records
from exactmark.kit.assignment import COUNTS, MarkedCase
from exactmark.kit.bundle import BundleError, write_program
from exactmark.kit.variants import VariantError, read_variant
from exactmark.marking.build import build
from exactmark.marking.report import reproduce, shown_input
from exactmark.marking.near_miss import missed, regions
from exactmark.marking.verdicts import PIPE, STATUS_DIFFERS, Kind, Verdict, how, judge
from exactmark.kit.written_cases import NONE_MARKED, Read, Refusal, Written, read_cases

# The report, the feedback and results.json: a group's marks, per count, and its cases.
GROUP_HEAD = "  {group} ({folder}/): {earned:.2f} of {marks:.2f} marks"
COUNT_LINE = "    {count:<9} {earned:5.2f} of {marks:5.2f}  {said}"
COUNT_NAMES = {"valid": "valid", "thorough": "thorough", "own_code": "own code"}
VALID_SAID = "{valid} of {marked} {cases} exactly what the reference gives"
ASKED = " (shared over the {asked} cases asked for)"
THOROUGH_SAID = "{caught} of {total} mistakes caught"
WEIGHED = ", {share:.0%} of their weight"
OWN_SAID = "your program passes {passed} of your {valid} valid case{s}"
NO_VALID = "no valid case: nothing to catch a mistake with, or to run your program on"
CASE_LINE = "{verdict:<9} {case}{detail}"
# The reference's verdicts whose detail quotes nothing it printed: a limit's, the marker's.
SAID_WITHHELD = (Kind.TIMEOUT, Kind.TOO_LARGE, Kind.OUT_OF_MEMORY, Kind.NOT_RUN, Kind.MARKER_ERROR)
VALID, INVALID, REFUSED, NOT_COUNTED = "valid", "invalid", "refused", "not counted"
REPEATED = 3 / 4  # the share of a case's .out that, shown first by another, repeats it
RUN_LINES = 10  # lines a worked example shows in a row: its screens, wherever a case puts them
# Why a case is not counted: what it shows is mostly another's (a worked example's, or a
# longer case of the student's), from its first byte. An empty .out shows its exit status
# and stderr: it repeats another empty one with the same.
REPEATS_EXAMPLE = ("three quarters of its .out or more are the worked example {example}'s (the "
                   "start of its .out, or runs of {lines} lines or more it shows in a row): a "
                   "worked example counts for nothing as your case")
REPEATS_CASE = ("three quarters of its .out or more are the start of {case}'s, which counts: a "
                "case counts when it shows mostly screens of its own")
NONE_COUNTED = "no case counts: each shows mostly what another shows (below)"
REPEATS_EMPTY = ("its .out is empty, as {case}'s, which counts, with the same exit status and "
                 "stderr: it shows nothing more")
CAUGHT, MISSED, UNDECIDED = "caught", "missed", "not decided"
THE_REFERENCE = "the reference: {how}"
# An invalid case's sentence is said from the case's side (the case is what the team
# changes): its `got` is what the case expects, its `want` what the reference prints.
TO_MATCH = "for your case to match it, {how}"
CASE_TO_MATCH = "the reference: {kind}; " + TO_MATCH
YOUR_PROGRAM = "your program: {how}"
MISTAKE_LINE = "    {verdict:<9} {name}{by}: {mistake}"
CAUGHT_BY = " (by {case})"
REFERENCE_DIFF = "  (got: what the reference prints; expected: what your case's files say)"
REFERENCE_FAILED = "the reference could not be made: {why}"
WRONG_FAILED = "this wrong program could not be made: {why}"
TEST_NAME = "{program}: {group}: {count}"
MISTAKES = "mistakes"
# What the reference prints on an invalid case is the reference's output: shown with the
# group's visibility, as the mistakes are (else a platform that marks each submission at
# once would hand every team the reference, and the valid mark with it).
REFERENCE_OUTPUT = "what the reference prints"
REFERENCE_LATER = "what the reference prints on each invalid case: in the test \"{test}\", {when}"
WHEN_SHOWN = {"visible": "shown at once", "after_due_date": "shown after the due date",
              "after_published": "shown once the marks are published", "hidden": "not shown"}
ALL_VALID = "every case is valid: the reference prints exactly what each expects"
INPUT = "  input: {text}"
REPRODUCE = "  reproduce, in your folder: {command}"
PROGRESS = "[{group}] {what}: {said}"


def part(program: str, group, count: str) -> str:
    """One count of a group, as a part of a submission's budget (exactmark.marking.mark.Share) and as
    its test's name: its runs share what the count is worth."""
    return TEST_NAME.format(program=program, group=group.name, count=COUNT_NAMES[count])


def in_words(verdict: Verdict) -> str:
    """A verdict in a line: what the run came to, and how close it came."""
    return ": ".join(filter(None, (str(verdict.kind), how(verdict))))


def in_words_to_match(verdict: Verdict) -> str:
    """The reference's verdict on an invalid case in a line, its sentence saying what the
    case must change to (`judged_from_the_case`)."""
    said = how(verdict)
    return CASE_TO_MATCH.format(kind=verdict.kind, how=said) if said else THE_REFERENCE.format(
        how=verdict.kind)


def judged_from_the_case(case, mode: str, outcome, rules) -> Verdict:
    """The reference's run on a case a student wrote, judged as any run is (the same
    kind, diff and limits), but with its sentence turned round: what the case must change
    to, to expect what the reference prints (judged as a program's run, it would say what
    the reference must change to, to print what the case expects)."""
    verdict = judge(case, mode, outcome, rules)
    if verdict.kind == Kind.WRONG:
        return turned(verdict, case.stdout, outcome.stdout)
    if verdict.kind == Kind.WRONG_STDERR:
        return turned(verdict, case.stderr, outcome.stderr)
    if verdict.kind == Kind.WRONG_STATUS:
        return replace(verdict, detail=STATUS_DIFFERS.format(got=case.status,
                                                             want=outcome.status))
    return verdict


def turned(verdict: Verdict, expected: bytes, printed: bytes) -> Verdict:
    near = missed(expected, printed)
    detail = near.sentence if near else first_difference(
        expected.decode("utf-8", "surrogateescape"), printed.decode("utf-8", "surrogateescape"))
    return replace(verdict, detail=detail, near_miss=near,
                   regions=tuple(regions(expected, printed)))


def in_words_withheld(verdict: Verdict) -> str:
    """A verdict of the reference in a line that quotes nothing it printed (on stdout or
    stderr): what the run came to, and, where a limit or the marker stopped it, which."""
    said = verdict.detail if verdict.kind in SAID_WITHHELD else ""
    return ": ".join(filter(None, (str(verdict.kind), said)))


@dataclass
class Marked:
    """One of a group's cases, marked: the reference's run judged against the case, and,
    when it is valid, the student's own program's."""
    case: Written
    reference: Verdict
    own: Verdict = None

    @property
    def valid(self) -> bool:
        return self.reference.kind == Kind.PASS


@dataclass
class Hunted:
    """One hidden wrong program, and the first valid case that it failed, if one did."""
    name: str
    mistake: str  # what the student did, in its file's words
    weight: float
    by: str = ""  # the case that caught it
    undecided: str = ""  # why it is not known: a run the budget or a fault of the marker stopped
    marker_error: bool = False  # not known for a fault of the marker's


@dataclass
class GroupResult:
    """A group of the student's cases, marked on its three counts."""
    group: object  # exactmark.kit.assignment.StudentCases
    read: Read
    cases: list = field(default_factory=list)  # of Marked, in name order
    mistakes: list = field(default_factory=list)  # of Hunted, in the group's order
    missing: str = ""  # why the student's program is not there to run
    not_counted: tuple = ()  # of Refusal: the cases that repeat another's screens
    key: str = ""  # what decides its verdicts (exactmark.marking.reuse.group_key)
    kept: bool = False  # its verdicts kept from an earlier marking, not run again

    @property
    def valid(self) -> list:
        return [marked for marked in self.cases if marked.valid]

    def shares(self) -> dict:
        """count -> the share of its marks earned: valid, the valid cases over the cases
        marked, or over the cases asked for when fewer are marked; own code, the passed over
        the valid cases, or over the cases asked for when fewer are valid. No valid case: no
        thorough or own-code share either, since there is nothing to catch a mistake with or
        to run."""
        valid, asked = self.valid, self.group.asked
        weights = sum(hunted.weight for hunted in self.mistakes)
        return {"valid": len(valid) / max(asked, len(self.cases)) if self.cases else 0.0,
                "thorough": sum(h.weight for h in self.mistakes if h.by) / weights
                if valid and weights else 0.0,
                "own_code": sum(marked.own.credit for marked in valid if marked.own)
                / max(asked, len(valid)) if valid else 0.0}

    def earned(self) -> dict:
        shares = self.shares()
        return {count: self.group.marks[count] * shares[count] for count in COUNTS}

    @property
    def total(self) -> float:
        return sum(self.earned().values())

    @property
    def complete(self) -> bool:
        """Full marks on every count."""
        return all(share == 1 for share in self.shares().values())

    @property
    def marker_failed(self) -> bool:
        verdicts = [verdict for marked in self.cases for verdict in (marked.reference, marked.own)
                    if verdict is not None]
        return (any(verdict.kind == Kind.MARKER_ERROR for verdict in verdicts)
                or any(hunted.marker_error for hunted in self.mistakes))

    def said(self) -> dict:
        """count -> what it came to, in a sentence."""
        valid, marked = len(self.valid), len(self.cases)
        caught = [hunted for hunted in self.mistakes if hunted.by]
        weighed = len({hunted.weight for hunted in self.mistakes}) > 1
        passed = sum(1 for marked_case in self.valid if marked_case.own and marked_case.own.passed)
        asked = ASKED.format(asked=self.group.asked)
        return {"valid": VALID_SAID.format(valid=valid, marked=marked,
                                           cases="cases expect" if marked != 1 else "case expects")
                + (asked if marked < self.group.asked else "")
                if marked else self.read.missing or (NONE_COUNTED if self.not_counted
                                                     else NONE_MARKED),
                "thorough": THOROUGH_SAID.format(caught=len(caught), total=len(self.mistakes))
                + (WEIGHED.format(share=self.shares()["thorough"]) if weighed else "")
                if valid else NO_VALID,
                "own_code": (self.missing or OWN_SAID.format(passed=passed, valid=valid,
                                                            s="s" * (valid != 1))
                             + (asked if valid < self.group.asked else ""))
                if valid else NO_VALID}

    def where(self, name: str) -> str:
        """A case as the student finds it: its path in their folder."""
        return f"{self.group.folder}/{name}"

    def lines(self) -> list:
        """The report's lines on this group: its marks per count, its cases, and the
        mistakes caught and missed."""
        earned, said = self.earned(), self.said()
        lines = [GROUP_HEAD.format(group=self.group.name, folder=self.group.folder,
                                   earned=self.total, marks=self.group.total)]
        lines += [COUNT_LINE.format(count=COUNT_NAMES[count], earned=earned[count],
                                    marks=self.group.marks[count], said=said[count])
                  for count in COUNTS]
        return lines + [f"    {line}" for line in self.case_lines(own=True) + self.mistake_lines()]

    def case_lines(self, own: bool, reference_shown: bool = True) -> list:
        """A line per case: valid, invalid (what the reference does instead; without
        `reference_shown`, nothing that quotes what it prints) or refused (why), and with
        `own`, what the student's program did on a valid one."""
        lines = []
        for marked in self.cases:
            if not marked.valid:
                detail = (in_words_to_match(marked.reference) if reference_shown
                          else THE_REFERENCE.format(how=in_words_withheld(marked.reference)))
            elif own and marked.own is not None:
                detail = YOUR_PROGRAM.format(how=in_words(marked.own))
            else:
                detail = ""
            lines.append(CASE_LINE.format(verdict=VALID if marked.valid else INVALID,
                                          case=self.where(marked.case.name),
                                          detail=f": {detail}" if detail else ""))
        return lines + [CASE_LINE.format(verdict=NOT_COUNTED, case=self.where(repeat.name),
                                         detail=f": {repeat.why}")
                        for repeat in self.not_counted] + [
            CASE_LINE.format(verdict=REFUSED, case=self.where(refusal.name),
                             detail=f": {refusal.why}") for refusal in self.read.refused]

    def own_lines(self) -> list:
        """A line per valid case: what the student's program did on it."""
        return [CASE_LINE.format(verdict=str(marked.own.kind), case=self.where(marked.case.name),
                                 detail=f": {how(marked.own)}" if how(marked.own) else "")
                for marked in self.valid if marked.own is not None]

    def mistake_lines(self) -> list:
        """A line per wrong program: caught (by which case), missed, or not decided (why)."""
        lines = []
        for hunted in self.mistakes:
            verdict = CAUGHT if hunted.by else UNDECIDED if hunted.undecided else MISSED
            by = (CAUGHT_BY.format(case=self.where(hunted.by)) if hunted.by
                  else f" ({hunted.undecided})" if hunted.undecided else "")
            lines.append(MISTAKE_LINE.format(verdict=verdict, name=hunted.name, by=by,
                                             mistake=hunted.mistake).strip())
        return lines

    def differences(self, program, valid: bool) -> list:
        """(title, lines) for each case whose run differs: with `valid` False, each invalid
        case (the reference's run against the case's files, and its input; no command,
        since the student has no reference); with `valid`, each valid case the student's
        program fails (and the command that shows it in their folder)."""
        found = []
        for marked in self.cases:
            if marked.valid != valid:
                continue
            verdict = marked.own if valid else marked.reference
            if verdict is None or verdict.kind in (Kind.PASS, Kind.NOT_RUN, Kind.NOT_BUILT):
                continue
            lines = [f"  - {region}" for region in verdict.regions if len(verdict.regions) > 1]
            lines.append(INPUT.format(text=shown_input(marked.case)))
            if valid:
                lines.append(REPRODUCE.format(command=reproduce(
                    marked.case, program, verdict.kind, self.group.folder, bound=verdict.bound)))
            elif verdict.diff:
                lines.append(REFERENCE_DIFF)
            if verdict.diff:
                lines.append(verdict.diff)
            found.append((f"{self.where(marked.case.name)}: "
                          + (YOUR_PROGRAM.format(how=in_words(verdict)) if valid
                             else in_words_to_match(verdict)), lines))
        return found

    def tests(self, program) -> list:
        """results.json's tests of this group: one per count, each case said in it; and two
        worth nothing with the group's visibility: the mistakes caught and missed (before
        they show, the thorough test says only how many), and what the reference prints
        on each invalid case (before, the valid test says only how each differs)."""
        earned, said, shares = self.earned(), self.said(), self.shares()
        name = {count: TEST_NAME.format(program=program.name, group=self.group.name, count=count)
                for count in (*COUNT_NAMES.values(), MISTAKES, REFERENCE_OUTPUT)}
        invalid = [line for title, lines in self.differences(program, False)
                   for line in ["", title, *lines]]
        details = {"valid": self.case_lines(own=False, reference_shown=False)
                   + ([REFERENCE_LATER.format(test=name[REFERENCE_OUTPUT],
                                              when=WHEN_SHOWN[self.group.visibility])]
                      if invalid else []),
                   "thorough": [],
                   "own_code": self.own_lines() + [
                       line for title, lines in self.differences(program, True)
                       for line in ["", title, *lines]]}
        tests = [{"name": name[COUNT_NAMES[count]],
                  "score": round(earned[count], 4), "max_score": round(self.group.marks[count], 4),
                  "status": "passed" if shares[count] == 1 else "failed", "visibility": "visible",
                  "output": "\n".join([said[count], *details[count]])} for count in COUNTS]
        tests.append({"name": name[MISTAKES], "score": 0, "max_score": 0,
                      "status": "passed" if shares["thorough"] == 1 else "failed",
                      "visibility": self.group.visibility,
                      "output": "\n".join(self.mistake_lines()) or said["thorough"]})
        tests.append({"name": name[REFERENCE_OUTPUT], "score": 0, "max_score": 0,
                      "status": "passed" if shares["valid"] == 1 else "failed",
                      "visibility": self.group.visibility,
                      "output": "\n".join(invalid).strip("\n") or (
                          ALL_VALID if self.cases else said["valid"])})
        return tests

    def record(self, program) -> records.StudentGroup:
        """The group as data, for the class's pages."""
        def verdict_data(marked, verdict, own: bool):
            if verdict is None:
                return None
            failed = verdict.kind not in (Kind.PASS, Kind.NOT_RUN)
            return records.Verdict(
                verdict.mode, verdict.kind, how(verdict), tuple(verdict.regions),
                shown_input(marked.case),
                reproduce(marked.case, program, verdict.kind, self.group.folder,
                          bound=verdict.bound)
                if own and failed else "", verdict.diff,
                verdict.diff_lines.to_json() if verdict.diff_lines else None, verdict.runaway,
                detail=verdict.detail, near_miss=tuple(verdict.near_miss or ()),
                credit=verdict.credit, bound=verdict.bound, digest=verdict.digest,
                lines=verdict.lines)
        return records.StudentGroup(
            program.name, self.group.name, self.group.folder, self.group.visibility,
            {count: round(marks, 4) for count, marks in self.group.marks.items()},
            {count: round(marks, 4) for count, marks in self.earned().items()}, self.said(),
            tuple(records.StudentCase(marked.case.name, marked.valid, "",
                                      verdict_data(marked, marked.reference, False),
                                      verdict_data(marked, marked.own, True))
                  for marked in self.cases)
            + tuple(records.StudentCase(repeat.name, False, f"{NOT_COUNTED}: {repeat.why}")
                    for repeat in self.not_counted)
            + tuple(records.StudentCase(refusal.name, False, refusal.why)
                    for refusal in self.read.refused),
            tuple(records.Mistake(hunted.name, hunted.mistake, hunted.weight,
                                  hunted.by, hunted.undecided) for hunted in self.mistakes),
            self.key, self.kept)


@dataclass(frozen=True)
class Expected:
    """What a case expects, read once: its .out, and its exit status and stderr where it
    gives them."""
    case: object  # a Written, or a worked example's exactmark.kit.cases.Case
    out: bytes
    status: int = None
    stderr: bytes = None

    @classmethod
    def of(cls, case) -> "Expected":
        return cls(case, case.stdout, case.status, case.stderr)


def repeats(case: Expected, other: Expected) -> bool:
    """Whether `case` shows mostly what `other` shows: REPEATED (three quarters) of its
    .out or more are the start of other's; for an empty .out, other's is empty too, with
    the same exit status and stderr (where `case` gives them)."""
    if not case.out:
        return not other.out and all(mine is None or mine == theirs for mine, theirs in (
            (case.status, other.status), (case.stderr, other.stderr)))
    shared = math.ceil(REPEATED * len(case.out))
    return other.out[:shared] == case.out[:shared]


def copies(case: Expected, example: Expected) -> bool:
    """Whether `case` is mostly the worked example's: it repeats it, or REPEATED of its
    lines or more sit in runs of RUN_LINES lines or more that the example shows in a row
    (its screens, moved: a copy with a command put before its moves)."""
    if repeats(case, example):
        return True
    lines, theirs = case.out.splitlines(), example.out.splitlines()
    runs = {tuple(theirs[at:at + RUN_LINES]) for at in range(len(theirs) - RUN_LINES + 1)}
    shown = set()
    for at in range(len(lines) - RUN_LINES + 1):
        if tuple(lines[at:at + RUN_LINES]) in runs:
            shown.update(range(at, at + RUN_LINES))
    return bool(lines) and len(shown) >= REPEATED * len(lines)


def examples_of(group) -> tuple:
    """The worked examples published for `group` (its `example`), each counting for
    nothing as a student's case."""
    return (group.example,) if group.example is not None else ()


def copied(case, examples: tuple):
    """The worked example of `examples` (golden cases) that `case` (a case) copies, or
    None."""
    expected = Expected.of(case)
    return next((example for example in examples if copies(expected, Expected.of(example))),
                None)


def counted(read: Read, examples: tuple) -> tuple:
    """(the Read of the cases that count, the Refusal of each that does not): a case that
    copies a worked example, or repeats a case of the student's that counts and is at
    least as long (the longest first, then in name order), is not counted."""
    shown = [Expected.of(example) for example in examples]
    kept, repeated = [], []
    for case in sorted(map(Expected.of, read.cases), key=lambda case: (-len(case.out),
                                                                       case.case.name)):
        example = next((example for example in shown if copies(case, example)), None)
        longer = next((other for other in kept if repeats(case, other)), None)
        if example is not None:
            repeated.append(Refusal(case.case.name, REPEATS_EXAMPLE.format(
                example=example.case.name, lines=RUN_LINES)))
        elif longer is not None:
            repeated.append(Refusal(case.case.name, (REPEATS_CASE if case.out else REPEATS_EMPTY)
                                    .format(case=longer.case.where)))
        else:
            kept.append(case)
    return (Read(tuple(sorted((case.case for case in kept), key=lambda case: case.name)),
                 read.refused, read.missing),
            tuple(sorted(repeated, key=lambda repeat: repeat.name)))


class Unmade(Exception):
    """The reference or a wrong program could not be made: the marker's fault, not the student's."""


class Programs:
    """The reference and the wrong programs of one program, made once per marking from its
    sample solution (`make standalone`), each in a folder of its own, built in the sandbox
    where the language builds, as a student's program is."""

    def __init__(self, sandbox, program, scratch: Path):
        self.sandbox, self.program, self.scratch = sandbox, program, scratch
        self.scratch.mkdir(mode=0o700)
        try:
            written = write_program(program, self.scratch / "solution")
        except (BundleError, OSError, ValueError) as problem:
            raise Unmade(REFERENCE_FAILED.format(why=escaped(str(problem)))) from None
        self.solution = {path.name: path.read_text(encoding="utf-8") for path, _ in written}
        self.reference = self._made(self.solution, "reference", REFERENCE_FAILED)

    def wrong(self, name: str, folder: Path):
        """The snapshot of the wrong program NAME (folder/NAME.toml), or Unmade."""
        try:
            texts = read_variant(folder / f"{name}.toml").applied_to(self.solution)
        except VariantError as problem:
            raise Unmade(WRONG_FAILED.format(why=escaped(str(problem)))) from None
        return self._made(texts, f"wrong-{name}", WRONG_FAILED)

    def mistake(self, name: str, folder: Path) -> str:
        """What the wrong program NAME's student did, in its file's words."""
        try:
            return read_variant(folder / f"{name}.toml").mistake
        except VariantError as problem:
            return escaped(str(problem))

    def _made(self, texts: dict, name: str, failed: str) -> Path:
        folder = self.scratch / name
        folder.mkdir(mode=0o700)
        for file, text in texts.items():
            (folder / file).write_text(text, encoding="utf-8")
        if not self.program.built:
            return folder
        built = build(self.sandbox, self.program, folder, self.scratch / f"{name}-build")
        if not built.ok:
            raise Unmade(failed.format(why=built.said()))
        return built.folder


def mark_groups(marking, pool, program, groups: list, root: Path, left_out: dict,
                scratch: Path, missing: str, progress, kept=lambda result: False) -> list:
    """Each of `groups` (of `program`, a exactmark.kit.programs.Program), its cases read from `root`
    and marked: the reference on every case, then the group's wrong programs on the valid
    ones, each until a case fails it, then the student's program (unless `missing` says why
    it is not there): ours first, which are quick and decide the counts the student's
    program cannot touch. Each run is one of `marking` (a exactmark.marking.mark.Marking), through its
    `pool`, in its sandbox and within its count's share of its budget, in two passes
    (exactmark.marking.mark.Marking.two_passes; a wrong program's, within its hunt).
    `kept(result)`, once a group's cases are read: whether it filled the result from an
    earlier marking (exactmark.marking.reuse.kept_group), which then runs nothing."""
    every_group = [GroupResult(group, read_cases(root, group, left_out), missing=missing)
                   for group in groups]
    for result in every_group:
        result.read, result.not_counted = counted(result.read, examples_of(result.group))
    results = [result for result in every_group if not kept(result)]  # those marked now
    if not any(result.read.cases for result in results):
        return every_group
    try:
        made = Programs(marking.sandbox, program, scratch / f"student-cases-{program.name}")
    except Unmade as problem:
        for result in results:
            result.cases = [Marked(case, Verdict(case.id, PIPE, Kind.MARKER_ERROR, str(problem)))
                            for case in result.read.cases]
        return every_group

    def on(result, case) -> MarkedCase:
        return MarkedCase(case, 0.0, result.group.name, result.group.visibility,
                          result.group.compare)

    every = [(result, case) for result in results for case in result.read.cases]
    verdicts = marking.in_two_passes(
        pool, lambda item, first, _: marking.run(on(*item), PIPE, made.reference,
                                                 part(program.name, item[0].group, "valid"), first,
                                                 judged=judged_from_the_case),
        every)
    for (result, case), verdict in zip(every, verdicts):
        result.cases.append(Marked(case, verdict))
        progress(PROGRESS.format(group=result.group.name, what=result.where(case.name),
                                 said=VALID if verdict.kind == Kind.PASS else INVALID))
    names = list(dict.fromkeys(name for result in results if result.valid
                               for name in result.group.mistakes))
    hunts = {name: [result for result in results if result.valid and name in result.group.mistakes]
             for name in names}
    lock = threading.Lock()

    def hunt(name: str) -> None:
        folder = hunts[name][0].group.wrong_folder
        try:
            snapshot, unmade = made.wrong(name, folder), ""
        except Unmade as problem:
            snapshot, unmade = None, f"{Kind.MARKER_ERROR}: {problem}"
        for result in hunts[name]:
            hunted = Hunted(name, made.mistake(name, folder), result.group.weight(name),
                            undecided=unmade, marker_error=bool(unmade))
            tries = [(marked, True) for marked in result.valid] if snapshot else []
            for marked, first in tries:  # the first pass's, then those its cap stopped
                verdict = marking.run(on(result, marked.case), PIPE, snapshot,
                                      part(program.name, result.group, "thorough"), first)
                if verdict is None:
                    tries.append((marked, False))
                    continue
                if verdict.kind in (Kind.NOT_RUN, Kind.MARKER_ERROR):
                    hunted.undecided = f"{verdict.kind}: {verdict.detail}"
                    hunted.marker_error = verdict.kind == Kind.MARKER_ERROR
                    break
                if verdict.kind != Kind.PASS:
                    hunted.by = marked.case.name
                    break
            with lock:
                result.mistakes.append(hunted)
            progress(PROGRESS.format(group=result.group.name, what=name,
                                     said=CAUGHT + CAUGHT_BY.format(case=result.where(hunted.by))
                                     if hunted.by else hunted.undecided or MISSED))
        if snapshot is not None:
            marking.done_with(snapshot)
    list(pool.map(hunt, names))
    valid = [(result, marked) for result in results for marked in result.valid]
    if not missing:
        for (result, marked), own in zip(valid, marking.in_two_passes(
                pool, lambda item, first, earlier: marking.case(
                    on(item[0], item[1].case), part(program.name, item[0].group, "own_code"),
                    first, earlier), valid)):
            marked.own = own.verdicts[0]
    for result in results:
        order = {name: index for index, name in enumerate(result.group.mistakes)}
        result.mistakes.sort(key=lambda hunted: order[hunted.name])
    return every_group
