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
both fail counts BOTH_FAIL, and SAME_KIND more when it fails the same way (the marker's
kind and near miss), SAME_OUTPUT more when the student printed the very bytes the wrong
program printed; the sum is divided by the cases either fails. Two wrong programs of
different rules that fail alike on every seen case cannot be told apart: both are named,
as alternatives."""

from dataclasses import dataclass, replace

EXPLAINED = 0.8
ABSENT = 0.2
MARGIN = 0.02  # of likeness: by how much the first named must beat another rule's match
BOTH_FAIL, SAME_KIND, SAME_OUTPUT = 0.5, 0.25, 0.25


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
    alike: tuple = ()  # Signatures of other rules that fail exactly as this one, here

    @property
    def strong(self) -> bool:
        return self.explained >= EXPLAINED and self.absent <= ABSENT


def _alike(student: Failure, wrong: Failure) -> float:
    return (BOTH_FAIL
            + SAME_KIND * ((student.kind, student.near_miss) == (wrong.kind, wrong.near_miss))
            + SAME_OUTPUT * bool(student.digest and student.digest == wrong.digest))


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
    match is strong or none stands out. `seen`: the cases the reader can see now, in the
    order to show them."""
    student = [case for case in seen if case in failed]
    if not student:
        return ()
    matches = [match for match in ranked_matches(failed, signatures, seen)
               if match.absent <= ABSENT]
    if not matches or not _stands_out(matches[0], matches, failed, seen):
        return ()
    first = _with_alike(matches[0], matches, seen)
    second = _second(first, matches, student)
    if second is not None:
        return (first, _with_alike(second, matches, seen))
    return (first,) if first.strong else ()


def _fail_alike(one: Signature, other: Signature, seen: tuple) -> bool:
    """Whether the two wrong programs fail the same seen cases in the same way, printing
    the same: then no case the reader sees tells them apart."""
    return ([one.failed.get(case) for case in seen] == [other.failed.get(case) for case in seen])


def _exactly_as(failed: dict, one: Signature, other: Signature, seen: tuple) -> int:
    """The seen cases where the student failed exactly as `one` does and not as `other`."""
    return sum(failed.get(case) is not None and failed[case] == one.failed.get(case)
               != other.failed.get(case) for case in seen)


def _stands_out(first: Match, matches: list, failed: dict, seen: tuple) -> bool:
    """Whether `first` explains the student's failures better than any match of another
    rule that does not fail exactly as it does: by MARGIN of likeness, or by cases where
    the student printed what `first` prints and the other does not (and none the other
    way). Else the evidence cannot choose between the mistakes, and naming one would be
    a guess."""
    def better(other: Match) -> bool:
        if first.likeness - other.likeness >= MARGIN:
            return True
        return (_exactly_as(failed, first.signature, other.signature, seen) > 0
                and _exactly_as(failed, other.signature, first.signature, seen) == 0)
    return all(better(other) for other in matches[1:]
               if other.signature.rule != first.signature.rule
               and not _fail_alike(first.signature, other.signature, seen))


def _with_alike(match: Match, matches: list, seen: tuple) -> Match:
    """`match` with the wrong programs of other rules that no seen case tells from it."""
    alike = tuple(other.signature for other in matches
                  if other.signature.rule != match.signature.rule
                  and _fail_alike(match.signature, other.signature, seen))
    return replace(match, alike=alike)


def _second(first: Match, matches: list, student: list):
    """The mistake that explains what `first` leaves: at least half of it, and two cases
    or more where `first` alone is strong (one case more is no evidence of a second
    mistake), enough with `first` where it is not; else None."""
    left = [case for case in student if case not in first.cases]
    for match in matches:
        if match.signature.rule == first.signature.rule:
            continue
        explains = sum(case in match.cases for case in left)
        together = (len(first.cases) + explains) / len(student)
        if explains >= len(left) / 2 and (explains >= 2 if first.strong else
                                          explains and together >= EXPLAINED):
            return match
    return None
