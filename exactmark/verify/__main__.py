"""make verify [ASSIGNMENT=NAME|FILE.toml] [ARGS="--only 'solitaire_1/*'"]

    exactmark verify [--assignment NAME|FILE.toml] [--only GLOB]... [--jobs N]
                     [--isolation auto|namespaces|fallback]

Marks, with the marker and each program's assignment, as a course would:
  1. the reference programs: every marked case must pass;
  2. honest variants: other faithful readings of the handouts (input() for a
     line): every marked case must pass, piped and at a terminal;
  3. wrong variants: programs with a mistake students make: each must fail at
     least two marked cases (one case alone is a single point of failure);
  4. the rule map of each handout (the rules its text states): every rule pinned by two
     marked cases or more, each shown by a wrong program that breaks that rule
     alone (`rule` in its file): such a program is marked on its rule's cases,
     and on the others only when fewer than two of those fail;
  5. each group of cases the students write (kind = "student_cases"): its kit
     cases, handed in as a student's cases with the sample solution, are all
     valid and catch every wrong program the group names (else its thorough mark
     could never be full); only those a team could write, every line of their
     screens shown by the student pack or the handouts, and no
     worked example, which counts for nothing as a student's case.
A program's fresh cases (kind = "fresh") count among its marked cases: the marker draws
them for each variant's folder name, as for a student of that name, and the reference
makes what they expect.
Each of them, piped, is also checked by the assignment's student pack (`make
student-pack`): on every visible case its checker must say what the marker says (but
for a variant whose output is `undefined`: it depends on more than its input).
The kit's assignments by default, their variants in tests/honest/PROGRAM/ and
tests/wrong/PROGRAM/; an instructor's own assignment file (--assignment FILE.toml)
with its variants in honest/PROGRAM/ and wrong/PROGRAM/ beside the file.
Prints a line per program as it is marked, then the score; exit status 0 only
when nothing is missed.
"""

import argparse
import fnmatch
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from exactmark.kit.cases import SUFFIXES
from exactmark.base.visible import escaped
from exactmark.base import from_make, streams
from exactmark.base.exits import Exit
from exactmark.marking import records
from exactmark.kit.assignment import AssignmentError
from exactmark.kit.written_cases import CASE_FILES
from exactmark.marking.student_cases import copied, examples_of
from exactmark.pack import build as pack_build, manifest
from exactmark.kit.bundle import BundleError
from exactmark.kit.rules import RuleError, checked, report, rule_map
from exactmark.verify import signatures
from exactmark.verify.documented import documents, shapes, unshown
from exactmark.kit.variants import VariantError
from exactmark.verify.marker import (MARKED, MarkerFailed, assignment_of_each_program,
                                     assignments_to_verify, marked_by_the_marker,
                                     sample_solution, submission_of, variants)

AT_LEAST = 2  # marked cases a wrong program must fail
WRONG_AT_ONCE = 2  # wrong programs marked at once: most mark a few cases, and a marker's
# start-up is a core's work alone

REFERENCE = "{verdict:<7} reference   {name:<40} {passed}/{total} marked cases pass"
NO_REFERENCE = "verify: {problem}"
HONEST_LINE = "{verdict:<7} honest      {name:<40} {passed}/{total} pass, {mode}"
WRONG_LINE = "{verdict:<7} wrong       {name:<40} fails {failed:>3} of {total}: {mistake}"
FAILED_CASES = "          failed: {cases}"
SCORE = "Wrong programs caught: {caught}/{total}; marked cases failed per wrong program: " \
        "fewest {fewest}, median {median:g}, most {most}"
USELESS = "Marked cases no wrong program fails ({count}): {cases}"
VERDICT = "verify: {problems} problem(s): {summary}"
# The last line when nothing is wrong: only what was checked (--only checks no reference; an
# assignment may have no honest variant, or no wrong one).
ALL_GOOD = "verify: {parts}"
PASS_EVERYTHING = "{who} pass everything"
REFERENCES, HONEST_VARIANTS = "the references", "honest variants"
NO_HONEST = "no honest variant to try"
CAUGHT, NO_WRONG = "every wrong program is caught", "no wrong program to catch"
NO_VARIANT = "verify: no variant matches {patterns}"
NOT_SUBMITTED = "none: the program's files are not there (a wrong name?)"
NOT_BUILT = "none: it does not build (a variant must still compile)"
NO_CASE = "none: the assignment marks no case of it"
NO_RULE = "wrong {name}: its file names no `rule` of {program}'s rule map"
UNKNOWN_RULE = "wrong {name}: its rule {rule} is not in {program}'s rule map"
ELSEWHERE = "          fails {count} of its rule's {claimed} cases; elsewhere: {cases}"
UNDEFINED = "          not checked with the student pack: its output depends on {what}"
DISAGREES = "          the student pack says otherwise on {case}: the marker {marker}, the pack {pack}"
CHECKER_FAILED = "the student pack's checker ended with status {status} on {name}:\n{stderr}"
PIPED = "stdout, stdin piped"
MODES = {False: "stdin piped", True: "at a terminal"}
SHOWN_CASES = 6
WRITTEN_LINE = ("{verdict:<7} cases       {name:<40} {valid}/{total} kit cases valid, "
                "{caught}/{mistakes} mistakes caught")
EXAMPLE = "example: exactmark verify --only 'solitaire_1/*'"
NOT_CAUGHT = "          caught by none of its kit cases: {name}: {mistake}"
LEFT_OUT = "          not handed in: {why}"
AN_EXAMPLE = ("{case}: a worked example, or mostly one, which counts for nothing as a student's "
              "case")
NOT_VALID = "          not valid: {case}: {why}"
UNSIGNED = ("verify: no signatures of {programs} (make signatures): their wrong programs' "
            "failures are not checked against them")
NO_SIGNATURE = "wrong {name}: no signature of it: {command}"
UNLIKE = "wrong {name}: unlike its signature on {cases}: {command}"
UNLIKE_CASE = "{case} ({kind} here, {stored} there)"
PASSED = "pass"
NO_KIT_CASES = ("{assignment}: group {group!r} names no kit_cases: nothing shows that its "
                "thorough mark can be full")


@dataclass(frozen=True)
class Marked:
    total: int
    failed: tuple  # names of the marked cases that did not pass
    unmarked: str = ""  # why none of its cases could pass: not submitted, not built
    disagreements: tuple = ()  # lines: where the student pack's checker says otherwise
    kinds: dict = None  # case name -> the kind word of each case marked, "" where it passed

    @property
    def passes(self) -> bool:
        return not self.unmarked and self.total > 0 and not self.failed

    @property
    def caught(self) -> bool:
        """A mistake shown by its cases: the program built, ran and failed AT_LEAST of them."""
        return not self.unmarked and len(self.failed) >= AT_LEAST


def mark(folder: Path, assignment, program: str, options, tty: bool = False,
         pack: Path = None, cases: list = None, cpu_seconds: float = None) -> Marked:
    """Mark `folder` as the marker does, the cases of `program` only (of those named in
    `cases`, if given); with `pack`, check it with that student pack too, and say where
    the two disagree on a visible case (where the marker marked one)."""
    with tempfile.TemporaryDirectory(prefix="verify-") as scratch:
        written = marked_by_the_marker(folder, assignment,
                                       [f"{program}/{case}" for case in (cases or ["*"])],
                                       options.jobs, Path(scratch), options.isolation, tty,
                                       cpu_seconds)
        marking = records.MarkingRecord.from_dict(written.get("extra_data", {}))
        compared = {case.case.split("/", 1)[1] for case in marking.cases
                    if case.program == program and case.visibility == "visible"}
        if not compared:
            pack = None  # nothing to compare
        elif pack is not None and cases:
            pack = narrowed(pack, program, compared, Path(scratch) / "pack")
        checked = checked_by(pack, folder, Path(scratch)) if pack else None
    cases = [case for case in marking.cases if case.program == program]
    data = marking.programs.get(program)
    unmarked = (NOT_SUBMITTED if data is None or not data.submitted
                else NOT_BUILT if data.build is not None and not data.build.ok else "")
    return Marked(total=len(cases), unmarked=unmarked,
                  failed=tuple(case.case for case in cases if not case.passed),
                  kinds={case.name: "" if case.passed else str(case.kind) for case in cases},
                  disagreements=disagreements(marking, program, checked) if pack else ())


def narrowed(pack: Path, program: str, cases: set, out: Path) -> Path:
    """A copy of the student pack `pack` in `out` whose checker runs only these visible
    `cases` of `program`: the ones a marking of some cases compares. Each case runs on
    its own, within its own limits, so the checker says of each what the whole pack's
    says; the others would run only to be ignored."""
    data = json.loads((pack / manifest.MANIFEST).read_text(encoding="utf-8"))
    for entry in data["programs"]:
        entry["visible"] = [case for case in entry["visible"]
                            if entry["name"] == program and case["name"] in cases]
        (out / entry["cases"]).mkdir(parents=True, exist_ok=True)
        for case in entry["visible"]:
            for suffix in SUFFIXES:
                source = pack / entry["cases"] / f"{case['name']}{suffix}"
                if source.is_file():
                    shutil.copyfile(source, out / entry["cases"] / source.name)
    (out / manifest.MANIFEST).write_text(manifest.dumps(data), encoding="utf-8")
    shutil.copyfile(pack / pack_build.CHECKER, out / pack_build.CHECKER)
    return out


def checked_by(pack: Path, folder: Path, scratch: Path) -> dict:
    """case id -> {"kind", "how"}: what the pack's checker says of `folder`."""
    said = scratch / "checked.json"
    done = subprocess.run([sys.executable, str(pack / pack_build.CHECKER), str(folder),
                           "--json", str(said)], cwd=scratch, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    if done.returncode not in MARKED or not said.exists():
        raise MarkerFailed(CHECKER_FAILED.format(
            status=done.returncode, name=folder.name,
            stderr=escaped(done.stderr[-2000:].decode("utf-8", "replace"))))
    return json.loads(said.read_text(encoding="utf-8"))


def disagreements(marking, program: str, checked: dict) -> tuple:
    """Where the checker's verdict on a visible case of `program` is not the marker's piped
    one, kind and sentence."""
    marked = {case.case: (str(verdict.kind), verdict.how) for case in marking.cases
              if case.program == program and case.visibility == "visible"
              for verdict in case.verdicts if verdict.mode == PIPED}
    found = []
    for case, (kind, how) in sorted(marked.items()):
        said = checked.get(case)
        pack = (said["kind"], said["how"]) if said else ("nothing", "")
        if pack != (kind, how):
            found.append(DISAGREES.format(case=case, marker=": ".join(filter(None, (kind, how))),
                                          pack=": ".join(filter(None, pack))))
    return tuple(found)


def say(line: str) -> None:
    print(line, flush=True)


def disagreed(marked: Marked, name: str) -> list:
    """The lines where the student pack disagrees with the marker, said; the problem."""
    for line in marked.disagreements:
        say(line)
    return [f"the student pack disagrees with the marker on {name}"] if marked.disagreements else []


def check_references(assignments: dict, options, packs: dict) -> list:
    problems = []
    for program, assignment in sorted(assignments.items()):
        marked = mark(assignment.programs[program].reference, assignment, program, options,
                      pack=packs[program])
        verdict = "ok" if marked.passes else "FAILS"
        say(REFERENCE.format(verdict=verdict, name=f"{program} ({assignment.name})",
                             passed=marked.total - len(marked.failed), total=marked.total))
        if not marked.passes:
            say(FAILED_CASES.format(cases=marked.unmarked or ", ".join(marked.failed)
                                    or NO_CASE))
            problems.append(f"reference {program} fails")
        problems += disagreed(marked, f"reference {program}")
    return problems


def check_honest(variants, assignments, solutions, scratch, options, packs: dict) -> list:
    problems = []
    for variant in variants:
        folder = submission_of(variant, solutions[variant.program],
                               scratch / "honest" / variant.id)
        for tty in (False, True):
            marked = mark(folder, assignments[variant.program], variant.program, options, tty,
                          pack=None if tty else packs[variant.program])
            verdict = "ok" if marked.passes else "FAILS"
            say(HONEST_LINE.format(verdict=verdict, name=variant.id, mode=MODES[tty],
                                   passed=marked.total - len(marked.failed), total=marked.total))
            if not marked.passes:
                say(FAILED_CASES.format(cases=marked.unmarked or ", ".join(marked.failed)
                                        or NO_CASE))
                problems.append(f"honest {variant.id} fails {MODES[tty]}")
            problems += disagreed(marked, f"honest {variant.id}")
    return problems


def marked_variant(variant, assignments, solutions, scratch, options, packs: dict,
                   maps: dict) -> tuple:
    """(the problem with its rule or "", the claimed cases, the marking on them or None,
    the marking that decides): marked on its rule's cases first, on all only when fewer
    than AT_LEAST of those fail."""
    folder = submission_of(variant, solutions[variant.program], scratch / "wrong" / variant.id)
    assignment, found = assignments[variant.program], maps.get(variant.program)
    pack = None if variant.undefined else packs[variant.program]
    problem, claimed = "", []
    if found is not None and variant.rule not in found.rules:
        problem = (UNKNOWN_RULE if variant.rule else NO_RULE).format(
            name=variant.id, rule=variant.rule, program=variant.program)
    elif found is not None:
        marked_here = {m.case.name for m in assignment.marked_cases[variant.program]}
        claimed = [case for case in found.cases_of(variant.rule) if case in marked_here]
    first = mark(folder, assignment, variant.program, options, pack=pack, cases=claimed,
                 cpu_seconds=variant.cpu_seconds) if claimed else None
    if first is None or (not first.unmarked and len(first.failed) < AT_LEAST):
        return problem, claimed, first, mark(folder, assignment, variant.program, options,
                                             pack=pack, cpu_seconds=variant.cpu_seconds)
    return problem, claimed, first, first


def check_wrong(variants, assignments, solutions, scratch, options, packs: dict, maps: dict,
                stored: dict):
    """(problems, cases failed per variant, the cases any variant failed, rule -> the
    cases its variants failed), WRONG_AT_ONCE variants marked at once, said in order; each
    checked against its signature in `stored` (program -> its signatures)."""
    problems, counts, failing, by_rule = [], [], set(), {}
    with ThreadPoolExecutor(WRONG_AT_ONCE) as pool:
        done = pool.map(lambda variant: marked_variant(variant, assignments, solutions,
                                                       scratch, options, packs, maps),
                        variants)
        for variant, (problem, claimed, first, marked) in zip(variants, done):
            found = maps.get(variant.program)
            if problem:
                problems.append(problem)
            if found is not None and variant.rule in found.rules and not marked.unmarked:
                failed = set((first or marked).failed) | set(marked.failed)
                by_rule.setdefault(found.rules[variant.rule], set()).update(
                    name.split("/", 1)[1] for name in failed)
            caught = marked.caught
            counts.append(len(marked.failed) if not marked.unmarked else 0)
            if not marked.unmarked:
                failing.update(marked.failed)
            say(WRONG_LINE.format(verdict="caught" if caught else "MISSED", name=variant.id,
                                  failed=len(marked.failed), total=marked.total,
                                  mistake=variant.mistake))
            if first is not None and marked is not first and not marked.unmarked:
                elsewhere = sorted(set(marked.failed) - set(first.failed))
                say(ELSEWHERE.format(count=len(first.failed), claimed=len(claimed),
                                     cases=", ".join(elsewhere) or "none"))
            shown = ", ".join(marked.failed[:SHOWN_CASES]) + (
                " ..." if len(marked.failed) > SHOWN_CASES else "")
            if not caught:
                say(FAILED_CASES.format(cases=marked.unmarked or shown or "none"))
                problems.append(f"wrong {variant.id}: " + (marked.unmarked or
                                                          f"fails {len(marked.failed)} case(s)"))
            if variant.undefined:
                say(UNDEFINED.format(what=variant.undefined))
            problems += disagreed(marked, f"wrong {variant.id}")
            problems += unlike_signature(variant, marked, assignments[variant.program],
                                         stored.get(variant.program))
    return problems, counts, failing, by_rule


def unlike_signature(variant, marked: Marked, assignment, stored: dict) -> list:
    """The line, said, where a wrong program's marking differs from its stored signature
    (`stored`, its program's, or None where there is none) on a case both hold: a case
    failed the other did not, or with another kind; its problem. So every verify proves
    the signatures on the cases it marks. A program that did not build, or whose output
    depends on more than its input, is left out."""
    if stored is None or marked.unmarked or variant.undefined:
        return []
    command = signatures.remake(assignment, variant.program)
    entry = stored["wrong"].get(variant.id)
    if entry is None:
        problem = NO_SIGNATURE.format(name=variant.id, command=command)
        say(problem)
        return [problem]
    held = set(stored["cases"])
    unlike = [UNLIKE_CASE.format(case=case, kind=kind or PASSED, stored=said or PASSED)
              for case, kind in sorted(marked.kinds.items()) if case in held
              for said in [entry["failed"].get(case, {}).get("kind", "")] if said != kind]
    if not unlike:
        return []
    problem = UNLIKE.format(name=variant.id, cases=", ".join(unlike), command=command)
    say(problem)
    return [problem]


def signatures_stored(assignments: dict, wrong: list) -> dict:
    """program -> its signatures as written, for each program of the wrong programs to mark
    that has them; those that have none are said once."""
    stored, unsigned = {}, []
    for program in sorted({variant.program for variant in wrong}):
        assignment = assignments[program]
        found = signatures.read(assignment, assignment.programs[program])
        if found is None:
            unsigned.append(program)
        else:
            stored[program] = found
    if unsigned:
        say(UNSIGNED.format(programs=", ".join(unsigned)))
    return stored


def check_student_cases(chosen: list, scratch: Path, options) -> list:
    """Each group of cases the students write, marked with its kit cases as a student's
    cases and the sample solution as their program: every kit case valid, every wrong
    program the group names caught by one of them. Only the kit cases a team could write
    are handed in: no worked example, and none with a line no document shows."""
    problems = []
    for assignment in chosen:
        pack = pack_build.contents(assignment) if assignment.every_student_group else {}
        for program, declared in assignment.programs.items():
            groups = assignment.student_groups(program)
            if not groups:
                continue
            known = shapes(documents(assignment, program, pack))
            golden = {case.name: case for case in declared.cases()}
            folder = scratch / "student-cases" / assignment.name / program
            folder.mkdir(parents=True)
            for name, text in sample_solution(declared, folder.parent / "solution").items():
                (folder / name).write_text(text, encoding="utf-8")
            handed, left_out = {}, {}
            for group in groups:
                (folder / group.folder).mkdir(parents=True)
                handed[group.name], left_out[group.name] = [], []
                for case in group.kit_cases:
                    why = (AN_EXAMPLE.format(case=case) if copied(golden[case], examples_of(group))
                           else unshown(golden[case], known))
                    if why:
                        left_out[group.name].append(why)
                        continue
                    handed[group.name].append(case)
                    for source in declared.cases_folder.glob(f"{case}.*"):
                        if source.suffix in CASE_FILES:
                            shutil.copyfile(source, folder / group.folder / source.name)
            with tempfile.TemporaryDirectory(prefix="verify-") as marking:
                written = marked_by_the_marker(folder, assignment,
                                               [f"{program}/{group.folder}" for group in groups],
                                               options.jobs, Path(marking), options.isolation)
            marked = {record.group: record for record in
                      records.MarkingRecord.from_dict(written.get("extra_data", {})).student_groups}
            for group in groups:
                problems += said_of_group(assignment, group, marked.get(group.name),
                                          handed[group.name], left_out[group.name])
    return problems


def said_of_group(assignment, group, record, handed: list, left_out: list) -> list:
    """The line on one group of student cases as verify marked it with its kit cases
    (`handed` in; `left_out`, why each other was not); its problems."""
    if not group.kit_cases:
        say(NO_KIT_CASES.format(assignment=assignment.name, group=group.name))
        return [NO_KIT_CASES.format(assignment=assignment.name, group=group.name)]
    cases = record.cases if record else ()
    valid = [case for case in cases if case.valid]
    caught = [mistake for mistake in (record.mistakes if record else ()) if mistake.caught_by]
    good = len(valid) == len(handed) == len(cases) and len(caught) == len(group.mistakes)
    say(WRITTEN_LINE.format(verdict="ok" if good else "FAILS", valid=len(valid),
                            name=f"{group.name} ({assignment.name})", total=len(handed),
                            caught=len(caught), mistakes=len(group.mistakes)))
    for why in left_out:
        say(LEFT_OUT.format(why=why))
    for case in cases:
        if not case.valid:
            say(NOT_VALID.format(case=case.name, why=case.refused or case.reference.how
                                 or case.reference.kind))
    for mistake in (record.mistakes if record else ()):
        if not mistake.caught_by:
            say(NOT_CAUGHT.format(name=mistake.name, mistake=mistake.mistake))
    return [] if good else [f"the kit cases of {assignment.name}'s group {group.name!r} "
                            f"do not show its thorough mark can be full"]


def rule_maps(assignments: dict) -> dict:
    """program -> its rule map, for the programs whose handout has one."""
    maps = {}
    for program, assignment in assignments.items():
        found = rule_map(assignment.programs[program])
        if found is not None:
            maps[program] = found
    return maps


def map_problems(maps: dict, assignments: dict) -> list:
    return [problem for program, found in sorted(maps.items())
            for problem in checked(found, {m.case.name for m in assignments[program].marked_cases[program]},
                                   assignments[program].unmarked_rules.get(program, {}))]


def show_maps(maps: dict, assignments: dict, by_rule: dict, run: list, every: list,
              options) -> list:
    """Each program's rule map, said; its problems. With --only, the rules whose wrong
    programs (of `every`) all ran (are in `run`): a rule some of whose wrong programs did
    not run may be pinned by those; with one assignment, the rules some wrong program of
    the run breaks and the rules of its own handouts (another's, which its map takes, are
    shown by that one's wrong programs)."""
    problems = []
    for program, found in sorted(maps.items()):
        broken = {variant.rule for variant in run if variant.program == program}
        broken |= {rule for rule, entry in found.rules.items() if entry in by_rule}
        own = {rule for rule, entry in found.rules.items() if entry.handout == found.handout}
        left = {variant.rule for variant in every if variant.program == program
                and variant not in run}
        only = broken - left if options.only else broken | own if options.assignment else None
        failed = {rule: by_rule.get(entry, set()) for rule, entry in found.rules.items()}
        lines, said = report(found, {m.case.name for m in assignments[program].marked_cases[program]},
                             assignments[program].unmarked_rules.get(program, {}), failed,
                             broken, only=only)
        for line in lines:
            say(line)
        problems += said
    return problems


def student_packs(chosen: list, assignments: dict, folder: Path) -> dict:
    """program -> the student pack of the assignment that marks it, as `make student-pack`
    writes it."""
    written = {}
    for assignment in chosen:
        written[assignment.path] = folder / assignment.name
        pack_build.write(written[assignment.path], pack_build.contents(assignment))
    return {program: written[assignment.path] for program, assignment in assignments.items()}


def selected(variants, patterns):
    return [v for v in variants if not patterns or any(fnmatch.fnmatchcase(v.id, p) for p in patterns)]


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="exactmark verify", description=__doc__.split("\n\n")[1],
                                    epilog=EXAMPLE)
    parse.add_argument("--assignment", metavar="NAME|FILE.toml",
                       help="one assignment (a name, or FILE.toml) instead of the kit's")
    parse.add_argument("--only", metavar="GLOB", action="append",
                       help="only the variants PROGRAM/NAME that match, no reference check")
    parse.add_argument("--jobs", type=int, default=2, help="cases marked at once (default 2)")
    parse.add_argument("--isolation", default="auto", choices=("auto", "namespaces", "fallback"))
    return parse


def all_good(references: bool, honest: bool, wrong: bool) -> str:
    """The last line of a verify that found nothing wrong, saying only what it checked."""
    who = [REFERENCES] * references + [("the " * (not references)) + HONEST_VARIANTS] * honest
    parts = [PASS_EVERYTHING.format(who=" and ".join(who))] * bool(who)
    parts += [NO_HONEST] * (not honest) + [CAUGHT if wrong else NO_WRONG]
    return ALL_GOOD.format(parts="; ".join(parts))


def main(argv=None) -> int:
    options = parser().parse_args(argv)
    try:
        chosen = assignments_to_verify(options.assignment)
        assignments = assignment_of_each_program(chosen)
        wrong, honest = ([variant for variant in found if variant.program in assignments]
                         for found in variants(chosen))
    except (AssignmentError, VariantError) as problem:
        say(f"verify: {problem}")
        return Exit.REFUSED
    try:
        maps = rule_maps(assignments)
    except RuleError as problem:
        say(f"verify: {problem}")
        return Exit.REFUSED
    every = wrong
    wrong, honest = selected(wrong, options.only), selected(honest, options.only)
    if options.only and not wrong + honest:
        say(NO_VARIANT.format(patterns=" or ".join(options.only)))
        return Exit.REFUSED
    with tempfile.TemporaryDirectory(prefix="verify-") as folder:
        scratch = Path(folder)
        try:
            solutions = {program: sample_solution(assignment.programs[program], scratch)
                         for program, assignment in assignments.items()
                         if any(v.program == program for v in wrong + honest)}
        except (BundleError, OSError) as problem:
            say(NO_REFERENCE.format(problem=problem))
            return Exit.REFUSED
        try:
            packs = student_packs(chosen, assignments, scratch / "packs")
            problems = [] if options.only else check_references(assignments, options, packs)
            problems += [] if options.only else check_student_cases(chosen, scratch, options)
            problems += check_honest(honest, assignments, solutions, scratch, options, packs)
            missed, counts, failing, by_rule = check_wrong(wrong, assignments, solutions, scratch,
                                                           options, packs, maps,
                                                           signatures_stored(assignments, wrong))
        except (MarkerFailed, VariantError, BundleError, ValueError) as problem:
            say(f"verify: {problem}")
            return Exit.REFUSED
    problems += missed + map_problems(maps, assignments)
    problems += show_maps(maps, assignments, by_rule, wrong, every, options)
    if counts:
        say(SCORE.format(caught=sum(c >= AT_LEAST for c in counts), total=len(counts),
                         fewest=min(counts), median=statistics.median(counts), most=max(counts)))
    if not options.only:
        marked = {f"{program}/{m.case.name}" for assignment in chosen
                  for program, cases in assignment.marked_cases.items() for m in cases}
        useless = sorted(marked - failing)
        say(USELESS.format(count=len(useless), cases=", ".join(useless) or "none"))
    say(VERDICT.format(problems=len(problems), summary="; ".join(problems)) if problems
        else all_good(not options.only, bool(honest), bool(wrong)))
    return Exit.FAILED if problems else Exit.PASSED


if __name__ == "__main__":
    streams.speak_utf8()
    try:
        sys.exit(main(from_make.arguments(parser(), [("MARK_ASSIGNMENT", "--assignment")])
                      if len(sys.argv) == 1 and "MARK_ASSIGNMENT" in os.environ else None))
    except KeyboardInterrupt:
        sys.exit(Exit.INTERRUPTED)
