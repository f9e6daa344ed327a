"""The marking as data, results.json's extra_data (`MarkingRecord`), as typed records with
to_dict and from_dict, so that no module parses another's sentences: what the class
marker's grade sheet and pages, verify and Gradescope's run read back. (What a marker
says as it marks, to the process that started it, is exactmark.base.messages'.)
"""

from dataclasses import asdict, dataclass, fields

from exactmark.diagnosis.diagnose import Diagnosis
from exactmark.marking.verdicts import Kind


@dataclass(frozen=True)
class Build:
    ok: bool
    warnings: bool
    seconds: float
    messages: str  # the compiler's first lines, escaped
    said: str  # the build's line of the report


@dataclass(frozen=True)
class Program:
    marks: float
    earned: float
    submitted: bool
    missing: str = ""  # why it counts 0, when it is not submitted
    build: Build = None  # for a program of a compiled language, once built or not
    deduction: str = ""  # what its build's warnings cost, said, when they cost marks

    @classmethod
    def from_dict(cls, data: dict) -> "Program":
        build = data.get("build")
        return cls(**{**data, "build": Build(**build) if build else None})


@dataclass(frozen=True)
class Verdict:
    mode: str
    kind: Kind
    how: str
    regions: tuple  # a sentence per region that differs
    input: str
    reproduce: str  # the command that shows it from the student's folder, when failed
    diff: str  # drawn for a terminal
    diff_lines: dict = None  # exactmark.base.visible.VisibleDiff.to_json(), for a page
    runaway: tuple = ()  # an output stopped for size: its first lines and what it repeated
    difference: str = ""  # the same for failures that differ the same way (marking/grouping.py)
    # The verdict whole, for a later marking to keep it (exactmark/marking/reuse.py); None in
    # a results.json from before them: that case is run again.
    detail: str = None
    near_miss: tuple = ()  # (sentence, kind) of how close it came, or empty
    credit: float = None  # the share of the case's marks it earns
    bound: float = None  # the seconds its reproduce command gives a run stopped for its time
    digest: str = ""  # what a failed run wrote, named (exactmark.marking.verdicts.digest)
    lines: tuple = ()  # the expected output's lines a failed run changed, as [start, stop]

    @classmethod
    def from_dict(cls, data: dict) -> "Verdict":
        return cls(**{**data, "kind": Kind(data["kind"]), "regions": tuple(data["regions"]),
                      "runaway": tuple(data.get("runaway", ())),
                      "near_miss": tuple(data.get("near_miss", ())),
                      "lines": tuple(map(tuple, data.get("lines", ())))})


@dataclass(frozen=True)
class Case:
    case: str  # PROGRAM/NAME
    program: str
    name: str
    group: str
    visibility: str
    marks: float
    earned: float
    passed: bool
    kind: Kind  # its worst verdict's
    near_miss: str
    near_miss_kind: str
    verdicts: tuple  # of Verdict
    key: str = ""  # its files, its program's declaration, the submission (marking/reuse.py)
    kept: bool = False  # its verdicts kept from an earlier marking (--reuse), not run again
    # A fresh case's files, suffix -> their bytes in base64: they lived in its marking's
    # scratch alone, and a student's page holds the files of each case it shows.
    files: dict = None
    # Its worst verdict's digest: what the run that decided its kind wrote; "" when it
    # passed, or when nothing ran. Two programs' wrong outputs compare by it.
    digest: str = ""
    lines: tuple = ()  # its worst verdict's: the expected lines it changed, as [start, stop]
    whole: bool = False  # those lines are nearly all the case expects (matching.whole)

    @classmethod
    def from_dict(cls, data: dict) -> "Case":
        return cls(**{**data, "kind": Kind(data["kind"]),
                      "verdicts": tuple(Verdict.from_dict(verdict) for verdict in data["verdicts"]),
                      "lines": tuple(map(tuple, data.get("lines", ())))})


@dataclass(frozen=True)
class StudentCase:
    """One case a student wrote: valid or not (the reference's run judged against it), or
    refused and why; what the student's program did on it."""
    name: str  # below its group's folder, as the submission names it (escaped)
    valid: bool
    refused: str = ""  # why it is not marked, when it is not
    reference: Verdict = None  # the reference's run, judged against the case's files
    own: Verdict = None  # the student's program's, on a valid case

    @classmethod
    def from_dict(cls, data: dict) -> "StudentCase":
        return cls(**{**data, **{name: Verdict.from_dict(data[name]) if data.get(name) else None
                                 for name in ("reference", "own")}})


@dataclass(frozen=True)
class Mistake:
    """One hidden wrong program a group's cases were run on."""
    name: str
    mistake: str  # what the student did, in its file's words
    weight: float
    caught_by: str  # the case that caught it; "" when none did
    undecided: str = ""  # why it is not known


@dataclass(frozen=True)
class StudentGroup:
    """A group of cases the student wrote, marked on its three counts."""
    program: str
    group: str
    folder: str
    visibility: str  # when the mistakes caught and missed are named
    marks: dict  # count -> marks
    earned: dict  # count -> marks earned
    said: dict  # count -> what it came to, in a sentence
    cases: tuple  # of StudentCase, the marked ones in name order, then the refused
    mistakes: tuple  # of Mistake
    key: str = ""  # its declaration, the programs it runs, the submission (marking/reuse.py)
    kept: bool = False  # kept whole from an earlier marking (--reuse), not run again

    @classmethod
    def from_dict(cls, data: dict) -> "StudentGroup":
        return cls(**{**data, "cases": tuple(StudentCase.from_dict(case) for case in data["cases"]),
                      "mistakes": tuple(Mistake(**mistake) for mistake in data["mistakes"])})


@dataclass(frozen=True)
class Late:
    days: int
    accepted: bool
    cap: float
    mark: float
    hours: float
    explanation: str
    summary: str
    due: str = ""  # ISO 8601, the student's due date
    terms: str = ""  # their own terms: "extension of 3 days: due 12 March 2027 9:00"
    late_days_spent: int = None  # None: no bank of late days
    late_days_left: int = None
    late_days_free: int = None


@dataclass(frozen=True)
class Override:
    """A mark a person changed after the marking (exactmark.marking.overrides): what, from
    what to what, why and by whom."""
    what: str  # a case id, PROGRAM/GROUP, a program, or "total"
    level: str  # case, group, program or total
    before: float
    after: float
    marks: float  # what the thing is worth
    reason: str  # escaped, as the instructor wrote it
    who: str
    visibility: str = ""  # a case's: a page that does not show the case does not name it


@dataclass(frozen=True)
class MarkingRecord:
    """results.json's extra_data."""
    assignment: str
    isolation: tuple  # the report's lines on what confined each run
    python: str  # the interpreter the runs had
    users: tuple  # the throwaway users the runs had
    cgroups: tuple  # the control groups the marking made
    raw_score: float
    programs: dict  # program -> Program
    late: Late  # the late rule applied, or None
    cases: tuple  # of Case
    sandbox_per: str = ""  # "student" or "case": what each sandbox was made for
    student_groups: tuple = ()  # of StudentGroup: the cases the student wrote, marked
    refused: str = ""  # why the marker refused the submission whole, when it did
    notes: tuple = ()  # the report's header on the submission itself: the folder entered,
    # what the copy left out (what Gradescope's summary shows the student of the header)
    overrides: tuple = ()  # of Override, in the order applied: the marks above include them
    # of exactmark.diagnosis.diagnose.Diagnosis: each program's at each level of what a
    # reader sees; a reader takes the one of what it shows (diagnose.at)
    diagnoses: tuple = ()

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "MarkingRecord":
        """The record of a results.json (an empty one where the marker wrote none)."""
        known = {field.name for field in fields(cls)}
        data = {name: value for name, value in data.items() if name in known}
        late = data.get("late")
        return cls(data.get("assignment", ""), tuple(data.get("isolation", ())),
                   data.get("python", ""), tuple(data.get("users", ())),
                   tuple(data.get("cgroups", ())), data.get("raw_score", 0.0),
                   {name: Program.from_dict(program)
                    for name, program in data.get("programs", {}).items()},
                   Late(**late) if late else None,
                   tuple(Case.from_dict(case) for case in data.get("cases", ())),
                   data.get("sandbox_per", ""),
                   tuple(StudentGroup.from_dict(group) for group in data.get("student_groups", ())),
                   data.get("refused", ""), tuple(data.get("notes", ())),
                   tuple(Override(**override) for override in data.get("overrides", ())),
                   tuple(Diagnosis.from_dict(found) for found in data.get("diagnoses", ())))
