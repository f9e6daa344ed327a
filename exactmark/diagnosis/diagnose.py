"""A student's failures said as the known mistakes they match and the handout's sentences
they break, resting on the cases a reader sees and no other.

What a reader sees grows with time, by the cases' visibility (Gradescope's words): the
visible cases before the deadline, those shown after the due date, those shown once
published, and, for the instructor alone, the hidden ones too. A marking diagnoses each
program at each of these LEVELS, so that every reader's diagnosis is ready in the record:
a page, the platform and the student pack each take the level of what they show."""

from dataclasses import asdict, dataclass

from exactmark.diagnosis import feedback, matching
from exactmark.diagnosis.signatures_file import Stored, parsed

# Each level sees the cases of its visibility and of those before it.
LEVELS = ("visible", "after_due_date", "after_published", "hidden")


def ranges(lines: frozenset) -> list:
    """A set of lines as [start, stop] ranges, as signatures files store them."""
    found = []
    for line in sorted(lines):
        if found and found[-1][1] == line:
            found[-1][1] = line + 1
        else:
            found.append([line, line + 1])
    return found


@dataclass(frozen=True)
class Sentence:
    """A rule of the handout as a diagnosis quotes it (kit.rules.Rule reads the same)."""
    section: str
    quote: str


@dataclass(frozen=True)
class Knowledge:
    """What diagnosing one program takes: its wrong programs' signatures, the handout's
    rules they break (id -> a Sentence, or a kit.rules.Rule) and the rules each case pins
    (case -> ids). Loaded by diagnosis.known; this module stays free of the kit's files, so
    that the student pack's one-file checker carries it."""
    stored: Stored
    rules: dict
    claims: dict

    def to_dict(self) -> dict:
        """As the student pack carries it (the handout's path left out)."""
        stored = self.stored
        return {"program": stored.program, "cases": list(stored.cases),
                "visibility": stored.visibility,
                "wrong": {signature.variant: {
                    "rule": signature.rule, "mistake": signature.mistake,
                    "failed": {case: {"kind": failure.kind, "near_miss": failure.near_miss,
                                      "digest": failure.digest,
                                      "lines": ranges(failure.lines)}
                               for case, failure in signature.failed.items()}}
                    for signature in stored.signatures},
                "rules": {rule_id: {"section": rule.section, "quote": rule.quote}
                          for rule_id, rule in self.rules.items()},
                "claims": {case: sorted(rules) for case, rules in self.claims.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> "Knowledge":
        return cls(parsed(data), {rule_id: Sentence(rule["section"], rule["quote"])
                                  for rule_id, rule in data["rules"].items()},
                   {case: set(rules) for case, rules in data["claims"].items()})

    def restricted(self, cases) -> "Knowledge":
        """What may be said of `cases` alone (the student pack's visible cases): no other
        case's name, failure or digest, and no wrong program that fails none of them."""
        keep = [case for case in self.stored.cases if case in set(cases)]
        signatures = [matching.Signature(signature.variant, signature.rule, signature.mistake,
                                         {case: signature.failed[case] for case in keep
                                          if case in signature.failed})
                      for signature in self.stored.signatures]
        stored = Stored(self.stored.program, tuple(keep),
                        {case: self.stored.visibility[case] for case in keep},
                        [signature for signature in signatures if signature.failed])
        return Knowledge(stored, self.rules,
                         {case: rules for case, rules in self.claims.items() if case in keep})


@dataclass(frozen=True)
class Diagnosis:
    """One program's diagnosis at one level: the wrong programs named (for the instructor),
    the lines a student reads naming them with the handout's sentences, and the lines
    grouping the failed cases by the rules they pin."""
    program: str
    level: str  # one of LEVELS: it rests on the cases of this visibility and those before
    mistakes: tuple  # the wrong programs named, each "PROGRAM/VARIANT"
    rules: tuple  # the rules they break
    said: tuple
    by_rule: tuple

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Diagnosis":
        return cls(**{name: tuple(value) if isinstance(value, list) else value
                      for name, value in data.items()})


def seen_at(level: str, visibility: dict) -> set:
    """The cases a reader at `level` sees, of `visibility` (case -> its visibility)."""
    upto = LEVELS[:LEVELS.index(level) + 1]
    return {case for case, shown in visibility.items() if shown in upto}


def diagnose(known: Knowledge, failures: dict, seen, level: str = LEVELS[-1]) -> Diagnosis:
    """The diagnosis of a program's `failures` (case -> matching.Failure), resting on the
    `seen` cases alone, those the signatures know, in the assignment's order. A case drawn
    for this student (a fresh case) is in no signature, so it is left out of the evidence."""
    order = tuple(case for case in known.stored.cases if case in set(seen))
    found = matching.diagnosed(failures, known.stored.signatures, order)
    failed = [case for case in order if case in failures]
    named = [signature for match in found for signature in (match.signature, *match.alike)]
    return Diagnosis(known.stored.program, level,
                     tuple(signature.variant for signature in named),
                     tuple(dict.fromkeys(signature.rule for signature in named)),
                     tuple(feedback.named(found, known.rules)),
                     tuple(feedback.by_rule(failed, matching.broken_rules(
                         failures, known.stored.signatures, order, known.claims), known.rules)))


def at_each_level(known: Knowledge, failures: dict, visibility: dict) -> list:
    """The program's diagnosis at each level that sees a case not seen before it."""
    diagnoses, before = [], None
    for level in LEVELS:
        seen = seen_at(level, visibility)
        if seen != before:
            diagnoses.append(diagnose(known, failures, seen, level))
        before = seen
    return diagnoses


def at(diagnoses, program: str, level: str):
    """The program's diagnosis for a reader at `level`: the widest at or below it, or None."""
    upto = LEVELS[:LEVELS.index(level) + 1]
    found = [diagnosis for diagnosis in diagnoses
             if diagnosis.program == program and diagnosis.level in upto]
    return max(found, key=lambda diagnosis: LEVELS.index(diagnosis.level)) if found else None
