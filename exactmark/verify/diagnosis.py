"""make diagnosis [PROGRAM=NAME] [ARGS="--pairs 24"]

    exactmark diagnosis [--pairs K] [--jobs N] [PROGRAM ...]

How well the matcher names the kit's own mistakes. Each wrong program marked as a student
(its signature is that marking) is diagnosed on every marked case (after the window) and
on the visible cases alone (before the deadline): named first (a wrong program of its
rule comes first), named beside an equal alternative (one of another rule that fails
alike on every case seen), in the top three, wrongly named (only other rules named),
nothing named. With --pairs K, K students with two mistakes a program, made from two
wrong programs of different rules (drawn with a fixed seed, their changes applied
together) and marked by the marker on every case: how many get both named, one, or a
wrong one. Prints a line per program and moment; exit status 0, 2 for a program that has
no signatures."""

import argparse
import os
import random
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from exactmark.base import from_make, streams
from exactmark.base.exits import Exit
from exactmark.diagnosis import matching
from exactmark.diagnosis.signatures_file import failure_of, parsed
from exactmark.kit.variants import VariantError
from exactmark.verify.signatures import failures, marked_as_a_student, read as written
from exactmark.verify.marker import (assignment_of_each_program, assignments_to_verify,
                                     sample_solution, variants)

LINE = ("{program:<16} {moment:<20} {total:>3} wrong programs: named first {first} "
        "({first_share:.0%}), named with an equal alternative {alternative}, in the top three "
        "{top} ({top_share:.0%}), wrongly named {wrong}, nothing named {none}")
MOMENTS = {"after the window": lambda stored: tuple(stored.cases),
           "before the deadline": lambda stored: tuple(case for case in stored.cases
                                                       if stored.visibility[case] == "visible")}

KIT = assignment_of_each_program()


def read(program: str):
    """The kit program's signatures, as the matcher reads them."""
    assignment = KIT[program]
    return parsed(written(assignment, assignment.programs[program]))


def standing(signature, signatures: list, seen: tuple) -> str:
    """How one wrong program, as a student, is diagnosed: "first" (a program of its rule
    is named first), "alternative" (named beside one of another rule that fails alike),
    "wrong" (only other rules are named) or "none"."""
    found = matching.diagnosed(signature.failed, signatures, seen)
    named = {other.rule for match in found for other in (match.signature, *match.alike)}
    if found and found[0].signature.rule == signature.rule:
        return "first"
    return "alternative" if signature.rule in named else "wrong" if found else "none"


def in_top_three(signature, signatures: list, seen: tuple) -> bool:
    ranked = matching.ranked_matches(signature.failed, signatures, seen)[:3]
    return any(match.signature.rule == signature.rule for match in ranked)


def figures(stored, seen: tuple) -> dict:
    """Each wrong program that fails a seen case, diagnosed as a student."""
    shown = [signature for signature in stored.signatures
             if any(case in signature.failed for case in seen)]
    said = [standing(signature, stored.signatures, seen) for signature in shown]
    top = sum(in_top_three(signature, stored.signatures, seen) for signature in shown)
    total = len(shown) or 1
    return dict(total=len(shown), first=said.count("first"),
                first_share=said.count("first") / total, alternative=said.count("alternative"),
                top=top, top_share=top / total, wrong=said.count("wrong"),
                none=said.count("none"))


PAIRS_LINE = ("{program:<16} {moment:<20} {total:>3} students with two mistakes: both named "
              "{both} ({both_share:.0%}), one alone {one}, one and a wrong one {one_wrong}, "
              "only wrong ones {wrong}, nothing named {none}")
PAIRS_SEED = 40
EXAMPLE = "example: exactmark diagnosis --pairs 24 solitaire_1"
MAKE = "MARK_PROGRAM"  # set (maybe empty) by make diagnosis alone
NO_SIGNATURES = "exactmark diagnosis: no signatures of {programs}: the kit's are {known}"


def two_mistakes(first, second):
    """A student's program with the mistakes of two wrong programs: both changes made."""
    return replace(first, name=f"{first.name}+{second.name}",
                   mistake=f"{first.mistake}; and {second.mistake}",
                   changes=first.changes + second.changes)


def pairs_of(program: str, count: int, solution: dict) -> list:
    """`count` pairs of wrong programs of different rules whose changes apply together."""
    wrong, _ = variants(assignments_to_verify())
    wrong = [variant for variant in wrong if variant.program == program]
    draw, pairs = random.Random(f"{PAIRS_SEED}/{program}"), []
    for _ in range(count * 20):
        first, second = draw.sample(wrong, 2)
        if first.rule == second.rule:
            continue
        try:
            two_mistakes(first, second).applied_to(solution)
        except VariantError:
            continue
        pairs.append((first, second))
        if len(pairs) == count:
            break
    return pairs


def student_failures(variant, assignment, solution: dict, scratch: Path, jobs: int) -> dict:
    """The failures of `variant` marked as a student's program on every marked case, as the
    marker weighs them (with `whole`, which a signature does not keep)."""
    record, cases = marked_as_a_student(variant, assignment, solution, scratch, jobs)
    whole = {case.name for case in record.cases if case.whole}
    return {case: replace(failure_of(failure), whole=case in whole)
            for case, failure in failures(record, variant.program, cases).items()}


def pair_standing(found: tuple, rules: set) -> str:
    """How a student with the mistakes of `rules` is diagnosed: "both" named, "one" named
    alone, "one and a wrong one", "wrong" (only mistakes of other rules) or "none". A
    mistake named with its alternatives is right when one of them is."""
    right = sum(bool(rules & {other.rule for other in (match.signature, *match.alike)})
                for match in found)
    wrong = len(found) - right
    return ("none" if not found else "wrong" if not right else "both" if right == 2
            else "one and a wrong one" if wrong else "one")


def pairs_figures(program: str, count: int, jobs: int) -> dict:
    """Each moment's figures for `count` students with two mistakes, really marked."""
    assignment = KIT[program]
    stored = read(program)
    said = {moment: [] for moment in MOMENTS}
    with tempfile.TemporaryDirectory(prefix="diagnosis-") as scratch:
        solution = sample_solution(assignment.programs[program], Path(scratch))
        for first, second in pairs_of(program, count, solution):
            failed = student_failures(two_mistakes(first, second), assignment, solution,
                                      Path(scratch), jobs)
            for moment, seen in MOMENTS.items():
                shown = seen(stored)
                if any(case in failed for case in shown):
                    found = matching.diagnosed(failed, stored.signatures, shown)
                    said[moment].append(pair_standing(found, {first.rule, second.rule}))
    return {moment: dict(total=len(standings), both=standings.count("both"),
                         both_share=standings.count("both") / (len(standings) or 1),
                         one=standings.count("one"),
                         one_wrong=standings.count("one and a wrong one"),
                         wrong=standings.count("wrong"), none=standings.count("none"))
            for moment, standings in said.items()}


def signed() -> list:
    """The kit's programs with signatures."""
    return [program for program, assignment in KIT.items()
            if written(assignment, assignment.programs[program])]


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="exactmark diagnosis",
                                    description=__doc__.split("\n\n", 2)[2], epilog=EXAMPLE,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("programs", nargs="*", metavar="PROGRAM",
                       help="programs of the kit with signatures (default: all of them)")
    parse.add_argument("--pairs", type=int, default=0, metavar="K",
                       help="students with two mistakes to mark, a program")
    parse.add_argument("--jobs", type=int, default=2, metavar="N", help="cases marked at once")
    return parse


def main(argv=None) -> int:
    options = parser().parse_args(argv)
    known = signed()
    unknown = [program for program in options.programs if program not in known]
    if unknown:
        print(NO_SIGNATURES.format(programs=", ".join(unknown), known=", ".join(known)),
              file=sys.stderr)
        return Exit.REFUSED
    for program in options.programs or known:
        stored = read(program)
        for moment, seen in MOMENTS.items():
            print(LINE.format(program=program, moment=moment, **figures(stored, seen(stored))),
                  flush=True)
        if options.pairs:
            for moment, found in pairs_figures(program, options.pairs, options.jobs).items():
                print(PAIRS_LINE.format(program=program, moment=moment, **found), flush=True)
    return Exit.PASSED


if __name__ == "__main__":
    streams.speak_utf8()
    try:
        sys.exit(streams.quiet_on_closed_stdout(lambda: main(
            from_make.arguments(parser(), positional=MAKE)
            if len(sys.argv) == 1 and MAKE in os.environ else None)))
    except KeyboardInterrupt:
        sys.exit(Exit.INTERRUPTED)
