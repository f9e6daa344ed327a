"""C and C++ mutants made with universalmutator's rules: every change its rules make to each
line of each file, and the text of a file with one of them made.

universalmutator is a list of regular-expression rules (`LHS ==> RHS`) and a scan that
applies each rule at each place it matches on each line, skipping comments, #include lines
and changes inside string literals alone. Its library is used here (`mutants_regexp`), not
its `mutate` command: the command writes every mutant to a file and, for C and C++, keeps
them all uncompiled unless given a shell command; here the mutants stay in memory and the
runner builds each one with the program's own build. A mutant is one line replaced; the
rules that add a `break;` or `continue;` after a line replace it with two lines.
universalmutator is imported when a mutant is made: it is an extra (requirements-mutants.txt)."""

import contextlib
import io
from functools import lru_cache

from exactmark.mutants.model import Mutant, ranked

# The rules `mutate FILE cpp` applies, in its order, for C as for C++: universalmutator's
# c.rules is empty, and cpp.rules renames C++ library calls a C program does not make
# (any_of, accumulate), or turns the argument of a call ending in `at` into 0 (a C call
# such as strcat then fails to compile, and the runner drops it).
RULES = ("universal.rules", "cpp.rules", "c_like.rules")

NO_RULE = "universalmutator has no rule {rule!r}: the mutant was made by another version"
NO_MATCH = "rule {rule!r} has no match {occurrence} on line {line!r}"
CHANGED = ("{file}:{number} reads {found!r}, not {before!r}: the file changed since the "
           "mutant was made")


@lru_cache(maxsize=None)
def _rules() -> dict:
    """{a rule's text: (its compiled left side, its right side)}, as the tool parses them."""
    from universalmutator.mutator import parseRules

    rules, _, _ = parseRules(list(RULES))
    return {text: (lhs, rhs) for (lhs, rhs), (text, _) in rules}


def _changes(rule: str, line: str):
    """Each text `rule` makes of `line`, a match at a time from the left, as the tool makes
    them: the line up to the match, then the rest with its first match replaced."""
    if rule not in _rules():
        raise ValueError(NO_RULE.format(rule=rule))
    lhs, rhs = _rules()[rule]
    found = lhs.search(line, 0)
    while found:
        text = line[:found.start()] + lhs.sub(rhs, line[found.start():], count=1)
        yield text if text.endswith("\n") else text + "\n"
        found = lhs.search(line, found.start() + 1)


def _made(rule: str, line: str, occurrence: int) -> str:
    """The text of `line` with `rule`'s `occurrence`th match changed."""
    for index, text in enumerate(_changes(rule, line)):
        if index == occurrence:
            return text
    raise ValueError(NO_MATCH.format(rule=rule, occurrence=occurrence, line=line))


def _lines(text: str) -> list:
    """The lines of `text`, each with its \\n (the last without, if the text ends without):
    split at \\n alone, as a C compiler counts lines (a form feed is no line's end)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _flat(text: str) -> str:
    """A mutant's line as one line: a rule that adds a line after it gives two."""
    return " ".join(part.strip() for part in text.splitlines())


def c_mutants(program: str, files: dict) -> list:
    """Every mutant of `files` (path relative to the reference's root -> text), by file in
    name order, then in the tool's order (by line, then rule); `occurrence` is the match
    of the rule on the line, counted from the left as the tool counts them."""
    from universalmutator.mutator import mutants_regexp

    found = []
    for path, text in sorted(files.items()):
        lines = _lines(text)
        # The tool prints its progress as it goes; the runner prints the kit's.
        with contextlib.redirect_stdout(io.StringIO()):
            made = mutants_regexp(lines, ruleFiles=list(RULES), ignorePatterns=[],
                                  ignoreStringOnly=True)
        for number, after, (rule, _), _ in made:
            occurrence = list(_changes(rule, lines[number - 1])).index(after)
            found.append(Mutant(program, path, number, rule, occurrence,
                                lines[number - 1].strip(), _flat(after)))
    return ranked(found)


def mutated(files: dict, mutant: Mutant) -> dict:
    """The texts of `files` with `mutant` applied."""
    lines = _lines(files[mutant.file])
    line = lines[mutant.line - 1] if mutant.line <= len(lines) else ""
    if line.strip() != mutant.before:
        raise ValueError(CHANGED.format(file=mutant.file, number=mutant.line,
                                        found=line.strip(), before=mutant.before))
    lines[mutant.line - 1] = _made(mutant.operator, line, mutant.occurrence)
    return {**files, mutant.file: "".join(lines)}
