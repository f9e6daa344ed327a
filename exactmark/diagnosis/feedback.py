"""What a student reads of a diagnosis: the mistakes named with the handout's sentence of
each, and the failed cases grouped by the rules they pin. Lines of plain text; the report,
the pages and the student pack's checker each escape and lay them out as they do a case's
other text (the mistake and quote are the kit's words, the case names the assignment's)."""

import re

NAMED = "Your program fails {cases} as does a program that {mistake}."
OR_ONE_THAT = ", or one that "  # between mistakes that no case seen tells apart
NAMED_TOGETHER = "Your program fails {cases} as does a program that {first}, and that {second}."
HANDOUT = "The handout ({section}) says: \u201c{quote}\u201d"
BY_RULE = "{count} {verb} the handout's {section}: \u201c{quote}\u201d ({names})"
CASES = "{count} ({names})"
ONE_CASE, MANY_CASES = "1 case", "{count} cases"
BREAKS, BREAK = "breaks", "break"
NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\. (.+)")


def section_of(heading: str) -> str:
    """"4.7 Play the drawn card" -> "§4.7 (Play the drawn card)"; another heading as it is."""
    numbered = NUMBERED.fullmatch(heading)
    return f"\u00a7{numbered[1]} ({numbered[2]})" if numbered else heading


def counted(names: list) -> str:
    return ONE_CASE if len(names) == 1 else MANY_CASES.format(count=len(names))


def cases_said(names: list) -> str:
    return CASES.format(count=counted(names), names=", ".join(names))


def _plain(text: str) -> str:
    return " ".join(text.split())


def named(found: tuple, rules: dict) -> list:
    """The lines naming the mistakes `found` (matching.diagnosed), then the handout's
    sentence each breaks; `rules`: rule id -> the rule map's Rule."""
    if not found:
        return []
    cases = sorted({case for match in found for case in match.cases},
                   key=lambda case: min(match.cases.index(case) for match in found
                                        if case in match.cases))
    mistakes = [OR_ONE_THAT.join(signature.mistake for signature in (match.signature, *match.alike))
                for match in found]
    if len(found) == 1:
        lines = [NAMED.format(cases=cases_said(cases), mistake=mistakes[0])]
    else:
        lines = [NAMED_TOGETHER.format(cases=cases_said(cases), first=mistakes[0],
                                       second=mistakes[1])]
    for rule_id in dict.fromkeys(signature.rule for match in found
                                 for signature in (match.signature, *match.alike)):
        rule = rules.get(rule_id)
        if rule is not None:
            lines.append(HANDOUT.format(section=section_of(rule.section),
                                        quote=_plain(rule.quote)))
    return lines


def by_rule(failed_cases, broken: dict, rules: dict) -> list:
    """A line per rule that a failed case breaks, the rules in the handout's order: the
    failures read as the sentences they break. `broken`: case -> rule ids
    (matching.broken_rules)."""
    lines = []
    for rule_id, rule in rules.items():
        breaking = [case for case in failed_cases if rule_id in broken.get(case, ())]
        if breaking:
            lines.append(BY_RULE.format(count=counted(breaking),
                                        verb=BREAKS if len(breaking) == 1 else BREAK,
                                        section=section_of(rule.section),
                                        quote=_plain(rule.quote), names=", ".join(breaking)))
    return lines

