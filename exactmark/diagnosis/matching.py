"""Which known mistakes explain a student's failed cases: the student's failures set
against each wrong program's signature (the marked cases it fails, and how), on the
cases the reader can see at that moment and no other.

A mistake is named only on a strong match, stated as two shares of the seen cases:
  explained: of the student's failures, those the wrong program fails too, at least
             EXPLAINED (most of what the student got wrong is this mistake's doing);
  absent:    of the wrong program's failures, those the student passes, at most ABSENT
             (the mistake would have shown there too).
A student with two mistakes fails the cases of both: when no single mistake explains
enough, a second one that explains what the first leaves (and is itself hardly absent)
is named with it. Anything weaker names nothing: saying nothing beats a wrong guess.

Among matches, the one whose failures look most like the student's comes first: a case
both fail counts SAME_OUTPUT when the student printed the very bytes the wrong program
printed, SAME_KIND when the failures are of the same kind (wrong output, crash, ...) and
near miss, OTHER otherwise; the sum is divided by the cases either fails."""

from dataclasses import dataclass

EXPLAINED = 0.8
ABSENT = 0.2
SAME_OUTPUT, SAME_KIND, OTHER = 1.0, 0.75, 0.5
MOST_NAMED = 2  # mistakes named together


@dataclass(frozen=True)
class Failure:
    """How a case failed: the marker's kind word, its near-miss kind, the digest of the
    output ("" when unknown)."""
    kind: str
    near_miss: str = ""
    digest: str = ""


@dataclass(frozen=True)
class Signature:
    """A wrong program of the kit: its mistake in its own words, the rule it breaks, and
    the marked cases it fails (case -> Failure); a case it does not name, it passes."""
    variant: str
    rule: str
    mistake: str
    failed: dict


@dataclass(frozen=True)
class Match:
    signature: Signature
    cases: tuple  # seen cases both fail, in the order given
    explained: float
    absent: float
    likeness: float

    @property
    def strong(self) -> bool:
        return self.explained >= EXPLAINED and self.absent <= ABSENT


def _alike(student: Failure, wrong: Failure) -> float:
    if student.digest and student.digest == wrong.digest:
        return SAME_OUTPUT
    if (student.kind, student.near_miss) == (wrong.kind, wrong.near_miss):
        return SAME_KIND
    return OTHER


def matched(failed: dict, signature: Signature, seen: tuple) -> Match:
    """`signature` set against the student's failures (case -> Failure), both read on the
    `seen` cases alone; None when the wrong program fails none of the student's."""
    student = [case for case in seen if case in failed]
    wrong = [case for case in seen if case in signature.failed]
    both = tuple(case for case in student if case in signature.failed)
    if not both:
        return None
    likeness = sum(_alike(failed[case], signature.failed[case]) for case in both)
    return Match(signature, both, explained=len(both) / len(student),
                 absent=1 - len(both) / len(wrong),
                 likeness=likeness / len(set(student) | set(wrong)))


def _ranked(matches: list) -> list:
    return sorted(matches, key=lambda match: (-match.likeness, -len(match.cases),
                                              match.signature.variant))


def ranked_matches(failed: dict, signatures: list, seen: tuple) -> list:
    """Every wrong program that fails a case the student fails, the likest first."""
    return _ranked([match for match in (matched(failed, signature, seen)
                                        for signature in signatures) if match is not None])


def diagnosed(failed: dict, signatures: list, seen: tuple) -> tuple:
    """The mistakes to name for these failures (one, or two together), or () when no
    match is strong. `seen`: the cases the reader can see now, in the order to show them."""
    student = [case for case in seen if case in failed]
    if not student:
        return ()
    matches = [match for match in ranked_matches(failed, signatures, seen)
               if match.absent <= ABSENT]
    if not matches:
        return ()
    first = matches[0]
    if first.explained >= EXPLAINED and len(first.cases) == len(student):
        return (first,)
    second = _second(failed, first, matches, student)
    if second is not None:
        return (first, second)
    return (first,) if first.strong else ()


def _second(failed: dict, first: Match, matches: list, student: list):
    """The mistake that best explains what `first` leaves, when the two together explain
    enough and each explains a case the other does not; else None."""
    left = [case for case in student if case not in first.cases]
    others = [match for match in matches
              if match.signature.rule != first.signature.rule
              and any(case in left for case in match.cases)]
    for match in _ranked(others):
        together = set(first.cases) | set(match.cases)
        if len(together) / len(student) >= EXPLAINED:
            return match
    return None
