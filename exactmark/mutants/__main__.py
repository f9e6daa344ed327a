"""make mutants [ASSIGNMENT=NAME|FILE.toml] [PROGRAM=NAME]

    exactmark mutants [--assignment NAME|FILE.toml] [--program NAME] [--jobs N] [--write]

Mutation analysis: which behaviours of a reference no marked case pins. Each reference
file of each program (for a kit program, its entry and the modules of the kit's packages
it imports) is changed in every small way cosmic-ray's operators make (a + for a -, a <
for a <=, a number one more, a condition negated); each such mutant is run on the
assignment's marked cases that reach its line (coverage.py, one run per case of the
unmutated reference), through the marker's comparison, stopping at its second failed
case. A mutant ends killed by >= 2 cases, pinned once (a single case stands between it
and full marks), survived, equivalent (listed, with why, in the program's reviewed
file, PROGRAM.mutants.toml beside its rule map), or unmarked (survived in code that file
says no marked case may pin, with why). Prints a line per program, then each mutant
neither killed twice, equivalent nor unmarked: its place, the change, the rule whose
sentence its line implements (from the wrong programs' `find` texts) and the cases that
reach it; then a line per unmarked part, and the figures. --write rewrites the reviewed
file's [files] and [figures], keeping the equivalents whose ids still exist. Exit status
0 only when every mutant is killed twice, equivalent or unmarked; 1 otherwise; 2 for bad
input.
"""

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

from exactmark.base import from_make, streams
from exactmark.base.exits import Exit
from exactmark.kit.assignment import AssignmentError, load, names, wrong_folder
from exactmark.kit.bundle import BundleError, read_by
from exactmark.kit.programs import built_reference
from exactmark.kit.variants import VariantError, read_variants
from exactmark.marking.verdicts import Rules
from exactmark.mutants import reviewed as reviewed_file
from exactmark.mutants.model import Verdict, ranked
from exactmark.mutants.reach import ReachError, Reached, first_lines, reached
from exactmark.mutants.runner import Outcome, run_all, run_mutant, with_reference, write_tree

EXAMPLE = "example: exactmark mutants --assignment seeded --program solitaire_1 --jobs 2"
STARTED = ("{program} ({assignment}): {mutants} mutants of {files} file(s), {reached} on lines "
           "its {cases} marked cases reach; {jobs} at once")
PROGRESS = "  {done}/{total} mutants run, {seconds:.0f} s"
PROGRESS_EVERY = 200
MUTANT = "{file}:{line}: {before} -> {after}  [{verdict}]"
MUTANT_ID = "    id: {id}"  # what a reviewer copies into an [[equivalent]] entry
RULES = "    rule: {rules}"
REACH = "    reached by: {cases}"
NO_REACH = "    no marked case reaches this line"
FAILED = "    failed: {cases}"
MORE = " and {count} more"
SHOWN = 4  # cases named before "and N more"
SCORE = ("{program}: {mutants} mutants: {killed} killed by ≥ 2 cases, {pinned} pinned once, "
         "{survived} survived, {equivalent} equivalent{unmarked}{uncompiled}; "
         "score {score:.1f}%; {seconds:.0f} s")
UNMARKED = ", {count} unmarked"
UNMARKED_PART = "{where}: {count} mutant{s} unmarked: {reason}"
UNCOMPILED = ", {count} did not compile (not counted)"
STALE_SAID = "{message}: the equivalents listed are kept where their ids still exist"
WROTE = "wrote {path}"
DROPPED = "  dropped from {path}: no such mutant now: {id}"
NO_TOOL = ("{program} ({assignment}): no mutation tool for {language} here: exactmark's C "
           "family mutants are not installed; its wrong programs (make verify) stand instead")
NO_PROGRAM = "mutants: no program {program!r} in {assignments}"
NOTHING = "mutants: no program with marked cases to mutate"
BAD = "mutants: {problem}"
PYTHON = "python3"
INIT = "__init__.py"
MAKE = "MARK_PROGRAM"  # set (maybe empty) by make mutants alone


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(
        prog="exactmark mutants", description=__doc__.split("\n\n", 2)[2], epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("--assignment", metavar="NAME|FILE.toml",
                       help="one assignment (default: every assignment of the kit)")
    parse.add_argument("--program", metavar="NAME", help="one program of it")
    parse.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                       help="mutants run at once (default: the cores here)")
    parse.add_argument("--write", action="store_true",
                       help="rewrite each program's reviewed file ([files], [figures])")
    return parse


def say(line: str = "") -> None:
    print(line, flush=True)


def chosen(options) -> list:
    """(assignment, program) pairs to analyse: each program once, in the first assignment
    that marks cases of it."""
    assignments = [load(options.assignment)] if options.assignment else [load(name) for name in names()]
    found, seen = [], set()
    for assignment in assignments:
        for name, program in assignment.programs.items():
            if assignment.marked_cases.get(name) and name not in seen and (
                    options.program in (None, name)):
                seen.add(name)
                found.append((assignment, program))
    return found


def texts_of(program) -> dict:
    """The reference's files: relative path (posix) -> text; with the __init__.py of each
    package they lie in (without it, a copy's package would be a namespace package, which
    a package of the same name elsewhere on the path takes the place of)."""
    root = program.reference.resolve()
    paths = {path.resolve() for path in read_by(program)}
    paths |= {folder / INIT for path in paths for folder in path.relative_to(root).parents
              for folder in [root / folder] if folder != root and (folder / INIT).is_file()}
    return {path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(paths)}


def rule_lines(assignment, program, texts: dict) -> dict:
    """(file, line) -> the rules of the wrong programs whose `find` text spans that line."""
    found = {}
    folder = wrong_folder(assignment.path, program.name)
    for variant in read_variants(folder.parent):
        if variant.program != program.name or not variant.rule:
            continue
        for _, find, _, _ in variant.changes:
            for path, text in texts.items():
                start = text.find(find)
                while find and start >= 0:
                    first = text.count("\n", 0, start) + 1
                    for line in range(first, first + find.count("\n") + 1):
                        found.setdefault((path, line), set()).add(variant.rule)
                    start = text.find(find, start + 1)
    return found


def named(cases) -> str:
    cases = list(cases)
    return ", ".join(cases[:SHOWN]) + (MORE.format(count=len(cases) - SHOWN)
                                       if len(cases) > SHOWN else "")


def told(outcome: Outcome, rules: dict) -> list:
    """The report's lines on a mutant neither killed twice nor equivalent."""
    mutant = outcome.mutant
    lines = [MUTANT.format(file=mutant.file, line=mutant.line, before=mutant.before,
                           after=mutant.after, verdict=outcome.verdict.value),
             MUTANT_ID.format(id=mutant.id)]
    if rules.get((mutant.file, mutant.line)):
        lines.append(RULES.format(rules=", ".join(sorted(rules[(mutant.file, mutant.line)]))))
    lines.append(REACH.format(cases=named(sorted(outcome.reaching))) if outcome.reaching
                 else NO_REACH)
    if outcome.failed:
        lines.append(FAILED.format(cases=named(outcome.failed)))
    return lines


def figures(outcomes: list, seconds: float) -> dict:
    counted = [outcome for outcome in outcomes if outcome.compiled]
    count = {verdict: sum(1 for outcome in counted if outcome.verdict == verdict)
             for verdict in Verdict}
    return {"mutants": len(counted), "killed_twice": count[Verdict.KILLED_TWICE],
            "pinned_once": count[Verdict.PINNED_ONCE], "survived": count[Verdict.SURVIVED],
            "equivalent": count[Verdict.EQUIVALENT], "unmarked": count[Verdict.UNMARKED],
            "seconds": round(seconds, 1)}


def score_line(program: str, found: dict, uncompiled: int) -> str:
    """The score is the share killed twice of the mutants a case may pin and can tell from
    the reference."""
    judged = found["mutants"] - found["equivalent"] - found["unmarked"]
    return SCORE.format(program=program, mutants=found["mutants"], killed=found["killed_twice"],
                        pinned=found["pinned_once"], survived=found["survived"],
                        equivalent=found["equivalent"], seconds=found["seconds"],
                        unmarked=UNMARKED.format(count=found["unmarked"]) if found["unmarked"]
                        else "",
                        uncompiled=UNCOMPILED.format(count=uncompiled) if uncompiled else "",
                        score=100.0 * found["killed_twice"] / judged if judged else 100.0)


def unmarked_parts(outcomes: list, unmarked: dict, listed: list) -> list:
    """A line for each [[unmarked]] entry: its place, how many mutants it holds, why."""
    lines = []
    for entry in listed:
        count = sum(1 for outcome in outcomes if outcome.verdict == Verdict.UNMARKED
                    and outcome.compiled
                    and listed_for(outcome.mutant, unmarked) is entry)
        where = entry.get("id") or entry["file"] + (":" + entry["scope"] if entry["scope"] else "")
        lines.append(UNMARKED_PART.format(where=where, count=count, s="" if count == 1 else "s",
                                          reason=entry["reason"]))
    return lines


def maker(program):
    """(mutants(program, files), mutated(files, mutant)) for the program's language, or
    None where no tool is here."""
    if program.language.name == PYTHON:
        from exactmark.mutants.python import mutated, python_mutants

        return python_mutants, mutated
    try:
        from exactmark.mutants.c_family import c_mutants, mutated
    except ImportError:
        return None
    return c_mutants, mutated


def builder(program):
    """For a compiled program: folder -> the folder its build went into, or None when it
    does not compile."""
    def build(source: Path):
        try:
            return built_reference(with_reference(program, source), source.parent / "built")
        except ValueError:
            return None
    return build if program.built else None


def analyse(assignment, program, options) -> tuple:
    """(the program's outcomes, its figures, the rules by line, the lines on its unmarked
    parts)."""
    started = time.monotonic()
    made = maker(program)
    if made is None:
        say(NO_TOOL.format(program=program.name, assignment=assignment.name,
                           language=program.language.title))
        return None
    make_mutants, mutated = made
    texts = texts_of(program)
    reviewed = reviewed_file.read(reviewed_file.path_of(assignment, program))
    stale = reviewed_file.stale_message(reviewed, texts, program.name) if reviewed.files else ""
    if stale:
        say(STALE_SAID.format(message=stale))
    rules = rule_lines(assignment, program, texts)
    unmarked = reviewed_file.unmarked_places(reviewed, texts)
    compares = {}

    def rules_of(marked):
        return compares.setdefault(marked.compare, Rules(marked.compare, assignment.normalise or {}))

    mutants = ranked(make_mutants(program.name, texts))
    cases = assignment.marked_cases[program.name]
    with tempfile.TemporaryDirectory(prefix="mutants-") as scratch:
        scratch = Path(scratch)
        if program.built:  # no coverage: every case reaches every line
            traced, starts = [Reached(marked, 0.0, {}) for marked in cases], None
        else:
            root = write_tree(scratch / "reference", texts)
            traced = reached(cases, program, root, tuple(texts), rules_of, options.jobs)
            starts = {path: first_lines(text) for path, text in texts.items()}
        work, outcomes = [], {}
        for index, mutant in enumerate(mutants):
            reach = reaching(traced, starts, mutant)
            if mutant.id in reviewed.equivalent:
                outcomes[index] = Outcome(mutant, Verdict.EQUIVALENT, names_of(reach))
            elif not reach:
                outcomes[index] = Outcome(mutant, Verdict.SURVIVED, ())
            else:
                work.append((index, partial(run_mutant, mutant, reach, mutated(texts, mutant),
                                            program, rules_of, scratch,
                                            builder(program))))
        say(STARTED.format(program=program.name, assignment=assignment.name,
                           mutants=len(mutants), files=len(texts), reached=len(work) + sum(
                               1 for outcome in outcomes.values() if outcome.reaching),
                           cases=len(cases), jobs=options.jobs))
        clock = time.monotonic()
        ran = run_all([item for _, item in work], options.jobs,
                      lambda done, total: done % PROGRESS_EVERY == 0 and say(PROGRESS.format(
                          done=done, total=total, seconds=time.monotonic() - clock)))
        outcomes.update((index, outcome) for (index, _), outcome in zip(work, ran))
    done = [as_listed(outcomes[index], unmarked) for index in range(len(mutants))]
    found = figures(done, time.monotonic() - started)
    if options.write:
        for key in reviewed_file.write(reviewed, program.name, texts, found, mutants):
            say(DROPPED.format(path=reviewed.path, id=key))
        say(WROTE.format(path=reviewed.path))
    return done, found, rules, unmarked_parts(done, unmarked, reviewed.unmarked)


def as_listed(outcome: Outcome, unmarked: dict) -> Outcome:
    """A survivor in code no marked case may pin is unmarked; a mutant a case fails there
    is judged as any other (the code may be the kit's extra, what the cases see is not)."""
    if outcome.verdict == Verdict.SURVIVED and listed_for(outcome.mutant, unmarked):
        return replace(outcome, verdict=Verdict.UNMARKED)
    return outcome


def listed_for(mutant, unmarked: dict):
    """The [[unmarked]] entry that lists the mutant, by its id or its line, or None."""
    return unmarked.get(mutant.id) or unmarked.get((mutant.file, mutant.line))


def reaching(traced: list, starts: dict, mutant) -> list:
    """The Reached whose run ran the mutant's line (its statement's first line); all of
    them where no coverage was measured (`starts` None)."""
    if starts is None:
        return traced
    line = starts[mutant.file].get(mutant.line, mutant.line)
    return [reach for reach in traced if line in reach.lines.get(mutant.file, ())]


def names_of(reach: list) -> tuple:
    return tuple(found.marked.case.name for found in reach)


def make_arguments() -> list:
    """The command line `make mutants` stands for (its variables in the environment)."""
    return from_make.arguments(parser(), (("MARK_ASSIGNMENT", "--assignment"),
                                          ("MARK_PROGRAM", "--program")))


def main(argv=None) -> int:
    parse = parser()
    options = parse.parse_args(argv)
    if options.jobs < 1:
        parse.error("--jobs must be 1 or more")
    try:
        pairs = chosen(options)
        if not pairs:
            say(NO_PROGRAM.format(program=options.program, assignments=options.assignment or
                                  "the kit's assignments") if options.program else NOTHING)
            return Exit.REFUSED
        everything, lines = True, []
        for assignment, program in pairs:
            analysed = analyse(assignment, program, options)
            if analysed is None:  # no tool for its language here: said, nothing judged
                continue
            outcomes, found, rules, parts = analysed
            for outcome in outcomes:
                if outcome.compiled and outcome.verdict not in (
                        Verdict.KILLED_TWICE, Verdict.EQUIVALENT, Verdict.UNMARKED):
                    everything = False
                    lines += told(outcome, rules)
            lines += parts
            lines.append(score_line(program.name, found,
                                    sum(1 for outcome in outcomes if not outcome.compiled)))
    except (AssignmentError, BundleError, VariantError, ReachError,
            reviewed_file.ReviewedError, OSError) as problem:
        say(BAD.format(problem=problem))
        return Exit.REFUSED
    for line in lines:
        say(line)
    return Exit.PASSED if everything else Exit.FAILED


if __name__ == "__main__":
    streams.speak_utf8()
    try:
        sys.exit(main(make_arguments() if len(sys.argv) == 1 and MAKE in os.environ else None))
    except KeyboardInterrupt:
        sys.exit(Exit.INTERRUPTED)
