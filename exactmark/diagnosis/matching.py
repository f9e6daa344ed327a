"""Which known mistakes explain a student's failed cases: the student's failures set
against each wrong program's signature (the marked cases it fails, how, and which lines of
the expected output it changes), on the cases the reader can see at that moment and no
other.

A mistake is named only on a strong match, stated as two shares, each a mean over cases:
  explained: over the student's failed cases, the share of the lines the student changed
             that the wrong program changes too (0 where it passes the case): at least
             EXPLAINED, most of what the student got wrong is this mistake's doing;
  absent:    over the wrong program's failed cases, the share of its changed lines the
             student left right (all of them where the student passes): at most ABSENT,
             the mistake would have shown there too.
A failure that changes no line (a wrong exit status, stderr alone) counts as fully
explained by a wrong program that fails the same case. A student with two mistakes changes
the lines of both: when a second mistake explains LEFT_EXPLAINED of the lines the first
leaves, and the two together explain enough, both are named.

Matches are ranked by their score: likeness, plus explained, less absent. Likeness: a case
both fail counts BOTH_FAIL, SAME_KIND more when it fails the same way (the marker's kind
and near miss), up to SAME_LINES more, the share of lines both changed among those either
changed, and SAME_OUTPUT more when the student printed the very bytes the wrong program
printed; the sum is divided by the cases either fails. What is named must stand out from
every match of another rule, by MARGIN of score or by cases the student printed
exactly as it and not as the other; two wrong programs that fail every seen case exactly
alike cannot be told apart, and are named together, as alternatives.
Anything weaker names nothing: saying nothing beats a wrong guess."""

import hashlib
from dataclasses import dataclass, field, replace

EXPLAINED = 0.8
ABSENT = 0.2
LEFT_EXPLAINED = 0.5
MARGIN = 0.02  # of score: by how much the first named must beat another rule's match
WHOLE = 0.9  # of the expected lines: a run that changed this many tells which mistake only
# where it printed the very bytes the wrong program did
NOTHING = hashlib.sha256(b"").hexdigest()[:16]  # the digest of an empty output, as the marker's
BREAKS = 0.5  # a failed case breaks the rules of the wrong programs that fail it most alike,
# sharing at least this share of the lines either changes
BOTH_FAIL, SAME_KIND, SAME_LINES, SAME_OUTPUT = 0.25, 0.2, 0.45, 0.1


@dataclass(frozen=True)
class Failure:
    """How a case failed: the marker's kind word, its near-miss kind, the digest of the
    output ("" when unknown), the expected output's lines it changed (a frozenset), and
    whether those are nearly all of them (`whole`: a student's run, known to the marker)."""
    kind: str
    near_miss: str = ""
    digest: str = ""
    lines: frozenset = field(default_factory=frozenset)
    whole: bool = False


def whole(lines: frozenset, total: int) -> bool:
    """Whether `lines` are WHOLE or more of an expected output's `total` lines: a run that
    got (nearly) everything wrong, as every program that prints something else does."""
    return total > 0 and len(lines) >= WHOLE * total


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

    @property
    def score(self) -> float:
        """What ranks the matches: how alike the failures are, how much of the student's
        it explains, how little of its own is absent."""
        return self.likeness + self.explained - self.absent


def _covered(lines: frozenset, by: frozenset) -> float:
    """The share of `lines` also in `by`; all of none."""
    return len(lines & by) / len(lines) if lines else 1.0


def contradicts(student: Failure, wrong: Failure) -> bool:
    """Whether the two failures of a case cannot be the same mistake's: each output differs
    from the expected one in ONE way alone (its near miss: "only line ends differ", "the
    output is empty"), and not the same way. Lines alone cannot tell: a program that prints
    nothing and one that ends every line with CRLF both change every line."""
    return bool(student.near_miss and wrong.near_miss and student.near_miss != wrong.near_miss)


def _shows(failed: dict, signature: Signature, case: str) -> bool:
    """Whether the student's failure of `case` may show `signature`'s mistake there: they
    do not contradict each other, and where the student changed (nearly) every line, it
    printed exactly what the wrong program printed (a program that prints "hello" changes
    every line, as does one that shuffles the deck another way)."""
    if case not in failed or case not in signature.failed:
        return False
    student, wrong = failed[case], signature.failed[case]
    if student.whole and student.digest != wrong.digest:
        return False
    return not contradicts(student, wrong)


def explained_by(failed: dict, signatures: tuple, seen: tuple) -> float:
    """The mean share of the student's changed lines, over its failed seen cases, that
    `signatures` change too (together: a line any of them changes), where the two failures
    do not contradict each other."""
    student = [case for case in seen if case in failed]
    shares = []
    for case in student:
        covering = [signature.failed[case] for signature in signatures
                    if _shows(failed, signature, case)]
        shares.append(_covered(failed[case].lines, frozenset().union(
            *(failure.lines for failure in covering))) if covering else 0.0)
    return sum(shares) / len(shares) if shares else 0.0


def _absent(failed: dict, signature: Signature, seen: tuple) -> float:
    wrong = [case for case in seen if case in signature.failed]
    shares = [1 - _covered(signature.failed[case].lines, failed[case].lines)
              if _shows(failed, signature, case) else 1.0 for case in wrong]
    return sum(shares) / len(shares) if shares else 1.0


def _alike(student: Failure, wrong: Failure) -> float:
    either = student.lines | wrong.lines
    return (BOTH_FAIL
            + SAME_KIND * ((student.kind, student.near_miss) == (wrong.kind, wrong.near_miss))
            + SAME_LINES * (len(student.lines & wrong.lines) / len(either) if either else 1.0)
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
    return Match(signature, both, explained=explained_by(failed, (signature,), seen),
                 absent=_absent(failed, signature, seen),
                 likeness=likeness / len(set(student) | set(wrong)))


def _ranked(matches: list) -> list:
    return sorted(matches, key=lambda match: (-match.score, -len(match.cases),
                                              match.signature.variant))


def ranked_matches(failed: dict, signatures: list, seen: tuple) -> list:
    """Every wrong program that fails a case the student fails, the best match first."""
    return _ranked([match for match in (matched(failed, signature, seen)
                                        for signature in signatures) if match is not None])


def diagnosed(failed: dict, signatures: list, seen: tuple) -> tuple:
    """The mistakes to name for these failures (one, or two together), or () when no
    match is strong or none stands out. `seen`: the cases the reader can see now, in the
    order to show them."""
    if not any(case in failed for case in seen):
        return ()
    matches = [match for match in ranked_matches(failed, signatures, seen)
               if match.absent <= ABSENT]
    if not matches:
        return ()
    first = matches[0]
    second = _second(first, matches, failed, seen)
    named = (first,) if second is None else (first, second)
    if not _stands_out(first, matches, failed, seen, {match.signature.rule for match in named}):
        return ()
    if second is None and not first.strong:
        return ()
    return tuple(_with_alike(match, matches, seen) for match in named)


def _fail_alike(one: Signature, other: Signature, seen: tuple) -> bool:
    """Whether the two wrong programs fail the same seen cases in the same way, printing
    the same: then no case the reader sees tells them apart."""
    return [one.failed.get(case) for case in seen] == [other.failed.get(case) for case in seen]


def _exactly_as(failed: dict, one: Signature, other: Signature, seen: tuple) -> int:
    """The seen cases where the student failed exactly as `one` does and not as `other`."""
    return sum(failed.get(case) is not None and failed[case] == one.failed.get(case)
               != other.failed.get(case) for case in seen)


def _stands_out(first: Match, matches: list, failed: dict, seen: tuple, named: set) -> bool:
    """Whether `first` explains the student's failures better than any match of a rule
    not `named` that does not fail exactly as it does: by MARGIN of score, or by cases
    where the student printed what `first` prints and the other does not (and none the
    other way). Else the evidence cannot choose between the mistakes, and naming one would
    be a guess."""
    def better(other: Match) -> bool:
        if first.score - other.score >= MARGIN:
            return True
        return (_exactly_as(failed, first.signature, other.signature, seen) > 0
                and _exactly_as(failed, other.signature, first.signature, seen) == 0)
    return all(better(other) for other in matches[1:]
               if other.signature.rule not in named
               and not _fail_alike(first.signature, other.signature, seen))


def _with_alike(match: Match, matches: list, seen: tuple) -> Match:
    """`match` with the wrong programs of other rules that no seen case tells from it."""
    alike = tuple(other.signature for other in matches
                  if other.signature.rule != match.signature.rule
                  and _fail_alike(match.signature, other.signature, seen))
    return replace(match, alike=alike)


def _second(first: Match, matches: list, failed: dict, seen: tuple):
    """The mistake of another rule that explains LEFT_EXPLAINED or more of the lines
    `first` leaves, the two together EXPLAINED of the student's, whose own lines beyond
    the first's are hardly absent (at most ABSENT): the one that explains the most with
    `first` (the best match among equals); else None."""
    left = _left(failed, first.signature, seen)
    if not left:
        return None
    found = []
    for match in matches:
        if match.signature.rule == first.signature.rule:
            continue
        together = explained_by(failed, (first.signature, match.signature), seen)
        if (together >= EXPLAINED and explained_by(left, (match.signature,), seen) >= LEFT_EXPLAINED
                and _absent_beyond(failed, match.signature, first.signature, seen) <= ABSENT):
            found.append((together, match))
    return max(found, key=lambda pair: pair[0])[1] if found else None


def _absent_beyond(failed: dict, second: Signature, first: Signature, seen: tuple) -> float:
    """Over the seen cases where `second` fails, but for those where `first` changes every
    line `second` does (there it shows nothing of its own): the mean share of the lines it
    changes beyond `first` that the student left right, all of them where the student
    passes. A second mistake must show where the first cannot hide it."""
    shares = []
    for case in seen:
        if case not in second.failed:
            continue
        hiding = _shows(failed, first, case)
        beyond = second.failed[case].lines - (first.failed[case].lines if hiding else frozenset())
        if hiding and not beyond:
            continue  # the first changes every line the second does here
        shares.append(1 - _covered(beyond, failed[case].lines)
                      if _shows(failed, second, case) else 1.0)
    return sum(shares) / len(shares) if shares else 1.0


def _left(failed: dict, signature: Signature, seen: tuple) -> dict:
    """The student's failures as `signature` leaves them: each failed case with the lines
    it does not change (the case whole where it passes), the cases it explains dropped."""
    left = {}
    for case in seen:
        if case not in failed:
            continue
        if not _shows(failed, signature, case):
            left[case] = failed[case]
        elif failed[case].lines - signature.failed[case].lines:
            left[case] = replace(failed[case], lines=failed[case].lines - signature.failed[case].lines)
    return left


def _same_lines(student: Failure, wrong: Failure) -> float:
    """The share of the lines both changed among those either changed; where neither
    changed a line (a wrong status, stderr alone), 1 for the same kind, else 0."""
    either = student.lines | wrong.lines
    if not either:
        return float(student.kind == wrong.kind)
    return len(student.lines & wrong.lines) / len(either)


def broken_rules(failed: dict, signatures: list, seen: tuple, claims: dict) -> dict:
    """Which rules each failed seen case breaks: of the rules the case pins (`claims`:
    case -> rule ids; a case the map does not name pins any), those whose wrong programs
    fail it most like the student did, BREAKS of the lines or more. A case pins many
    rules (every sentence its output shows); the lines tell which of them it broke. A run
    that printed nothing tells none: any program that stops before its first line, or is
    empty, prints that."""
    broken = {}
    for case in seen:
        if case not in failed or failed[case].digest == NOTHING:
            continue
        pinned = claims.get(case)
        alike = [(_same_lines(failed[case], signature.failed[case]), signature.rule)
                 for signature in signatures if _shows(failed, signature, case)
                 and (pinned is None or signature.rule in pinned)]
        best = max((share for share, _ in alike), default=0.0)
        if best >= BREAKS:
            broken[case] = {rule for share, rule in alike if share == best}
    return broken
