"""A program's Knowledge read from the kit's files: its signatures file, beside its rule
map (written by `make signatures`), and the rule map itself."""

import json

from exactmark.diagnosis.diagnose import Knowledge
from exactmark.diagnosis.signatures_file import parsed
from exactmark.kit.rules import RuleError, beside_rule_map, rule_map

SUFFIX = ".signatures.json"  # a program's, beside its rule map


def knowledge(assignment, program):
    """The program's Knowledge (kit.programs.Program), or None when it has no signatures,
    or they or its rule map cannot be read: nothing to say. Without a rule map, a mistake
    is named without the handout's sentence."""
    path = beside_rule_map(assignment, program, SUFFIX)
    if not path.is_file():
        return None
    try:
        found = rule_map(program)
        stored = parsed(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RuleError):
        return None
    return Knowledge(stored, found.rules if found else {}, found.claims if found else {})
