"""The students whose programs give the same wrong output on the same case, for the class's
summary: beside the code similarity scan, a second flag for a person to look at. Programs
written apart rarely go wrong in the very same way, byte for byte; a common slip makes
many go wrong alike. So a wrong output counts more the fewer students give it: shared by
n students, it adds 1 / (n - 1) to each pair of them (only the two: 1; three: a half; four:
a third), and a pair is listed when the two share at least one wrong output no third
student gives.

Every failed case counts, hidden ones too (the summary is the instructor's), by its
record's digest of what the run printed. Two failures are left out: a run that printed
what the case expects (it failed on its exit status, its stderr or its time, so its
`lines` changed are none), and a run that printed nothing, which any two programs that stop
before their first line give alike.

Pairs are found from the outputs no third student gives, and only they are scored: a
wrong output a crowd gives would make every pair of the crowd, a class's size squared.
"""

from dataclasses import dataclass

from exactmark.marking.verdicts import digest

NOTHING = digest(b"")  # what a run that printed nothing wrote, named

FLAG = ("A flag for a person to look at, never a verdict and never a mark, like the "
        "similarity scan: programs written apart rarely give the very same wrong output, but "
        "a common slip, or the same wrong reading of the handout, makes them.")
RANKED = ("Each pair of students that gives the same wrong output on a case, hidden cases "
          "included, where no third student gives it. Ranked by how rare what the two share "
          "is: a wrong output counts 1 when only the two give it, and 1 / (n - 1) when n "
          "students do (three: a half, four: a third). Not counted: a run that printed what "
          "the case expects (it failed on its exit status, stderr or time), or nothing at "
          "all.")
NONE = "No two students give the same wrong output on a case that no third student gives."
ONLY_THE_TWO = "{case}: only these two"
SHARED_BY = "{case}: {count} students"
CODE_SIMILAR = "{program}: {percent:.1f}%"
# The scan lists no code the two share beyond the shared code (with a score of at least S).
NO_CODE_SIMILAR, NO_CODE_SIMILAR_FROM = "none listed", "none listed of at least {least}"


@dataclass(frozen=True)
class Output:
    """A wrong output of one case, and the students whose programs gave it."""
    case: str  # PROGRAM/NAME
    digest: str
    students: tuple  # their names, sorted

    @property
    def said(self) -> str:
        count = len(self.students)
        return (ONLY_THE_TWO if count == 2 else SHARED_BY).format(case=self.case, count=count)


@dataclass(frozen=True)
class Pair:
    """Two students and the wrong outputs they share, rarest first."""
    first: str
    second: str
    score: float
    outputs: tuple  # of Output


def wrong_outputs(cases_of: dict) -> list:
    """Each wrong output that two or more students gave, in the order the cases first come;
    `cases_of`: student -> their case records (marking.records.Case: case, passed, digest,
    lines)."""
    given = {}
    for student, cases in cases_of.items():
        for case in cases:
            if not case.passed and case.digest and case.digest != NOTHING and case.lines:
                given.setdefault((case.case, case.digest), set()).add(student)
    return [Output(case, printed, tuple(sorted(students)))
            for (case, printed), students in given.items() if len(students) > 1]


def pairs(cases_of: dict) -> list:
    """The pairs of students that share a wrong output no third student gives, each scored
    over every wrong output the two share, highest first."""
    outputs = wrong_outputs(cases_of)
    order = {output: at for at, output in enumerate(outputs)}
    of_student = {}
    for output in outputs:
        for student in output.students:
            of_student.setdefault(student, set()).add(output)
    found = []
    for first, second in sorted({output.students for output in outputs
                                 if len(output.students) == 2}):
        shared = sorted(of_student[first] & of_student[second],
                        key=lambda output: (len(output.students), order[output]))
        found.append(Pair(first, second,
                          sum(1 / (len(output.students) - 1) for output in shared),
                          tuple(shared)))
    return sorted(found, key=lambda pair: (-pair.score, pair.first, pair.second))


def code_similarity(pair: Pair, scanned_pairs: list, least: float = 0.0) -> list:
    """What the similarity scan (classroom/similarity.py, its pairs of a score of at least
    `least`) found of the same two students: (its words, its page or "") for each program it
    lists them in; that it lists none."""
    found = [(CODE_SIMILAR.format(program=scanned.program, percent=100 * scanned.score),
              scanned.view) for scanned in scanned_pairs
             if {scanned.first, scanned.second} == {pair.first, pair.second}]
    return found or [(NO_CODE_SIMILAR_FROM.format(least=least) if least else NO_CODE_SIMILAR, "")]
