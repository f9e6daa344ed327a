"""The rule map of a handout (#25): each rule a sentence of the handout, quoted as it
stands under a stable id, and each marked case the rules it exercises, so that `make
verify` can say how many cases pin each rule, and prove it: a case counts for a rule
only when a wrong program breaking that rule alone (its `rule`, tests/wrong/) fails it.

A handout's rules sit beside it, in `rules/NAME.toml` (docs/solitaire_1.md:
docs/rules/solitaire_1.toml); a student reads the handout, never this file, so no word
they read changes:

    also = ["hoyle_cli.toml"]   # optional: another handout's rules that hold here too

    [[rule]]
    id = "deal-last-is-top"
    section = "2. Shuffle and deal"
    quote = "The LAST element of `cards` is the top of the face-down deck."

    [cases]  # each marked case: the rules it exercises
    seed_0 = ["deal-last-is-top", "stacks-line"]

A quote must be in the handout word for word (line breaks are spaces) and its section
a heading of it. An assignment may leave a rule unmarked, with the reason, as it leaves
a case kit_only: `[programs.unmarked_rules]` in its file.
"""

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

AT_LEAST = 2  # cases that must pin each rule
RULES_FOLDER = "rules"

BAD_FILE = "{path}: {problem}"
NO_QUOTE = "{path}: rule {rule}: its quote is not in {handout}: {quote!r}"
NO_SECTION = "{path}: rule {rule}: {handout} has no section {section!r}"
SAME_ID = "{path}: rule {rule} is listed twice"
UNKNOWN_RULE = "{path}: case {case} claims {rule}, which no rule list of {program} has"
UNKNOWN_CASE = "{path}: {case} is not a case of {program}"
UNCLAIMED = "{program}: marked cases that claim no rule: {cases}"
NEEDS = "{path}: each [[rule]] needs an id, a section and a quote; [cases] lists of rule ids"
UNMARKED_UNKNOWN = "{program}: the assignment leaves {rule} unmarked, but no rule list has it"

MAP_HEADER = "Rule map of {program} ({handout}): cases pinning each rule, proven by its wrong programs"
MAP_LINE = "{verdict:<7} {rule:<42} {count} of {claimed} claimed{cases}"
MAP_UNMARKED = "{verdict:<7} {rule:<42} unmarked here: {why}"
MAP_UNCHECKED = "{verdict:<7} {rule:<42} not checked: no wrong program of it in this run"
UNSUPPORTED = "          claimed, but no wrong program of {rule} fails: {cases}"
NO_WRONG = "          no wrong program breaks it alone"
UNDER = "rule {program}/{rule}: pinned by {count} case(s), not {least}"
CLAIM_UNSUPPORTED = "rule {program}/{rule}: claimed by {cases}, which no wrong program of it fails"


class RuleError(ValueError):
    pass


@dataclass(frozen=True)
class Rule:
    id: str
    section: str
    quote: str
    handout: Path


@dataclass
class RuleMap:
    """A program's rules (its handout's, and those its list takes from others) and the
    rules each of its cases claims."""
    program: str
    handout: Path
    rules: dict  # id -> Rule, in the lists' order
    claims: dict = field(default_factory=dict)  # case name -> set of rule ids
    read: list = field(default_factory=list)  # the rule lists and handouts it was read from

    def cases_of(self, rule: str) -> list:
        return sorted(case for case, rules in self.claims.items() if rule in rules)


def rules_file(handout: Path) -> Path:
    return handout.parent / RULES_FOLDER / f"{handout.stem}.toml"


def beside_rule_map(assignment, program, suffix: str) -> Path:
    """Where a file the kit keeps of `program` (its name and `suffix`) lies: beside its rule
    map, or beside the assignment's file where its handout has none."""
    if program.handout is not None and rules_file(program.handout).is_file():
        return rules_file(program.handout).with_name(program.name + suffix)
    return assignment.path.with_name(program.name + suffix)


def _plain(text: str) -> str:
    return " ".join(text.split())


def _sections(text: str) -> set:
    return {line.lstrip("#").strip() for line in text.splitlines() if re.match(r"#+ ", line)}


def _read(path: Path, handout: Path) -> tuple:
    """(rules of one list, its claims, the lists it takes rules from too)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        text = handout.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as problem:
        raise RuleError(BAD_FILE.format(path=path, problem=problem)) from None
    entries, claims = data.get("rule", []), data.get("cases", {})
    if not all(isinstance(entry.get(key), str) and entry[key]
               for entry in entries for key in ("id", "section", "quote")) \
            or not all(isinstance(rules, list) and all(isinstance(rule, str) for rule in rules)
                       for rules in claims.values()):
        raise RuleError(NEEDS.format(path=path))
    plain, sections, rules = _plain(text), _sections(text), {}
    for entry in entries:
        rule = entry["id"]
        if rule in rules:
            raise RuleError(SAME_ID.format(path=path, rule=rule))
        if _plain(entry["quote"]) not in plain:
            raise RuleError(NO_QUOTE.format(path=path, rule=rule, handout=handout.name,
                                            quote=entry["quote"]))
        if entry["section"] not in sections:
            raise RuleError(NO_SECTION.format(path=path, rule=rule, handout=handout.name,
                                              section=entry["section"]))
        rules[rule] = Rule(rule, entry["section"], entry["quote"], handout)
    also = [path.parent / name for name in data.get("also", [])]
    return rules, {case: set(claimed) for case, claimed in claims.items()}, also


def rule_map(program) -> RuleMap:
    """The rule map of a exactmark.kit.programs.Program, or None when its handout has no rule
    list. Every case it claims must be the program's, every rule it names listed."""
    if program.handout is None or not rules_file(program.handout).is_file():
        return None
    found = RuleMap(program.name, program.handout, {})
    cases = {case.name for case in program.cases()}
    pending, seen = [(rules_file(program.handout), program.handout)], set()
    while pending:
        path, handout = pending.pop(0)
        if path in seen:
            continue
        seen.add(path)
        rules, claims, also = _read(path, handout)
        found.read += [path, handout]
        for rule, entry in rules.items():
            found.rules.setdefault(rule, entry)
        for case, claimed in claims.items():
            if case not in cases:
                raise RuleError(UNKNOWN_CASE.format(path=path, case=case, program=program.name))
            found.claims.setdefault(case, set()).update(claimed)
        pending += [(other, handout.parent / f"{other.stem}.md") for other in also]
    for case, claimed in sorted(found.claims.items()):
        for rule in sorted(claimed - set(found.rules)):
            raise RuleError(UNKNOWN_RULE.format(path=rules_file(program.handout), case=case,
                                                rule=rule, program=program.name))
    return found


def checked(found: RuleMap, marked: set, unmarked: dict) -> list:
    """Problems of the map itself, before any wrong program runs: a marked case that
    claims nothing, an unmarked rule that is no rule."""
    problems = []
    silent = sorted(marked - {case for case, rules in found.claims.items() if rules})
    if silent:
        problems.append(UNCLAIMED.format(program=found.program, cases=", ".join(silent)))
    problems += [UNMARKED_UNKNOWN.format(program=found.program, rule=rule)
                 for rule in sorted(set(unmarked) - set(found.rules))]
    return problems


def report(found: RuleMap, marked: set, unmarked: dict, failed: dict, wrong_rules: set,
           only: set = None) -> tuple:
    """(lines, problems): each rule with the marked cases that claim it and that a wrong
    program of that rule fails (`failed`: rule -> set of case names); under AT_LEAST
    such cases, or a claim none supports, is a problem, but for a rule the assignment
    leaves unmarked. With `only` (rule ids), those rules alone are checked: a partial run
    of verify."""
    lines = [MAP_HEADER.format(program=found.program, handout=found.handout.name)]
    problems = []
    for rule in found.rules:
        if rule in unmarked:
            lines.append(MAP_UNMARKED.format(verdict="ok", rule=rule, why=unmarked[rule]))
            continue
        if only is not None and rule not in only:
            lines.append(MAP_UNCHECKED.format(verdict="-", rule=rule))
            continue
        claimed = [case for case in found.cases_of(rule) if case in marked]
        pinned = [case for case in claimed if case in failed.get(rule, set())]
        unsupported = [case for case in claimed if case not in pinned]
        good = len(pinned) >= AT_LEAST and not unsupported
        lines.append(MAP_LINE.format(verdict="ok" if good else "SHORT", rule=rule,
                                     count=len(pinned), claimed=len(claimed),
                                     cases=": " + ", ".join(pinned) if pinned else ""))
        if rule not in wrong_rules:
            lines.append(NO_WRONG)
        if unsupported:
            lines.append(UNSUPPORTED.format(rule=rule, cases=", ".join(unsupported)))
            problems.append(CLAIM_UNSUPPORTED.format(program=found.program, rule=rule,
                                                     cases=", ".join(unsupported)))
        if len(pinned) < AT_LEAST:
            problems.append(UNDER.format(program=found.program, rule=rule, count=len(pinned),
                                         least=AT_LEAST))
    return lines, problems
