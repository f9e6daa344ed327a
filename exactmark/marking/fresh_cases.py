"""Fresh cases at marking time (a group of `kind = "fresh"`, exactmark/kit/fresh.py): the
student's inputs drawn, and what each expects made by the reference, written as the kit
writes a sample solution and run in the marking's sandbox as the student cases' valid check
runs it (exactmark.marking.student_cases.Programs): the same confinement and limits, since
the reference's run is as much a run of code on input as any other. Each fresh case is then
a golden case like any other (its files in the marker's scratch, which no run sees), marked
with the same comparison, verdicts and diffs.

Whose draw it is (the student's key): `exactmark mark --student NAME` (the class marker
passes the student's platform id, else their name; Gradescope's autograder the submission's
users' ids); without it, the name of the folder marked, which is the student's name in a
class's download, so that `exactmark mark class/ann` draws what the class run drew for ann.
"""

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from exactmark.base.visible import escaped
from exactmark.kit import fresh
from exactmark.kit.assignment import MarkedCase
from exactmark.kit.cases import Case
from exactmark.marking.student_cases import Programs, Unmade
from exactmark.sandbox.errors import Stopped

HEADER = ("{count} fresh case{s} drawn for this submission ({groups}): what each expects "
          "made by the reference, in the sandbox")
GROUP = "{program}, {group}"
LIMIT_HIT = "the reference was stopped at its {limit} limit"
STOPPED = "the reference's run was stopped"
NO_LINES = ("the reference's output on the seed alone has no {pattern} whose group is a "
            "number: no {{lines}} to type")


def drawn_for(assignment, student: str) -> dict:
    """program -> the student's fresh inputs (exactmark.kit.fresh.Drawn) of each of its
    fresh groups, in the file's order."""
    drawn = {}
    for program, groups in (assignment.fresh or {}).items():
        stored = [marked.case for marked in assignment.marked_cases[program]] + list(
            assignment.kit_only[program])
        drawn[program] = [one for group in groups
                          for one in fresh.draw(group, assignment.title, student, stored)]
    return drawn


def header(drawn: dict) -> str:
    """The report's line on the fresh cases, or "" without any."""
    every = [one for chosen in drawn.values() for one in chosen]
    if not every:
        return ""
    groups = dict.fromkeys(GROUP.format(program=one.group.program, group=one.group.name)
                           for one in every)
    return HEADER.format(count=len(every), s="s" * (len(every) != 1), groups="; ".join(groups))


def made(sandbox, assignment, drawn: dict, scratch: Path, jobs: int) -> tuple:
    """(program -> [MarkedCase] of its drawn cases, case id -> why the reference could not
    make what it expects): each case's files written to scratch/fresh/PROGRAM/, what it
    expects (stdout, exit status, stderr) the reference's run in `sandbox`."""
    cases, unmade = {}, {}
    for program, chosen in drawn.items():
        if not chosen:
            continue
        declared = assignment.programs[program]
        folder = scratch / "fresh" / program
        folder.mkdir(parents=True, mode=0o700)
        cases[program] = [marked(one, folder) for one in chosen]
        try:
            reference = Programs(sandbox, declared, scratch / f"fresh-{program}").reference
        except Unmade as problem:
            unmade.update((one.id, str(problem)) for one in chosen)
            continue
        with ThreadPoolExecutor(jobs) as pool:
            said = pool.map(lambda one: expected(sandbox, declared, reference, one, folder),
                            chosen)
            unmade.update((one.id, why) for one, why in zip(chosen, said) if why)
    return cases, unmade


def marked(one, folder: Path) -> MarkedCase:
    """The fresh case `one` as the assignment marks it, its files in `folder`: an equal share
    of its group's marks."""
    group = one.group
    return MarkedCase(Case(group.program, one.name, folder), group.marks / group.count,
                      group.name, group.visibility, group.compare)


def expected(sandbox, program, reference: Path, one, folder: Path) -> str:
    """Write the case `one`'s files in `folder`, what it expects the reference's run; ""
    when done, else why not."""
    if one.simulate is None:
        lines = None
        if one.counts_lines:
            (folder / f"{one.name}.in").write_bytes(one.seed_line)
            ran = run(sandbox, program, reference, Case(program.name, one.name, folder))
            found = None if isinstance(ran, str) else re.search(
                one.lines, ran.stdout.decode("utf-8", "surrogateescape"))
            if found is None or not found[1].isdigit():
                return ran if isinstance(ran, str) else NO_LINES.format(pattern=one.lines)
            lines = int(found[1])
        (folder / f"{one.name}.in").write_bytes(one.stdin(lines))
    ran = run(sandbox, program, reference, Case(program.name, one.name, folder))
    if isinstance(ran, str):
        return ran
    (folder / f"{one.name}.out").write_bytes(ran.stdout)
    (folder / f"{one.name}.status").write_text(f"{ran.status}\n", encoding="utf-8")
    (folder / f"{one.name}.err").write_bytes(ran.stderr)
    return ""


def run(sandbox, program, reference: Path, case: Case):
    """The reference's run on `case` (exactmark.running.record.Ran), or why it is none."""
    try:
        ran = sandbox.run(reference, lambda home: program.run_argv(case, home, sandbox.python),
                          case.stdin, {})
    except Stopped:
        return STOPPED
    except Exception as problem:  # the marker's fault: said on the case, not a traceback
        return escaped(f"{type(problem).__name__}: {problem}")
    if ran.limit is not None:
        return LIMIT_HIT.format(limit=ran.limit.value)
    if ran.status is None:
        return STOPPED
    return ran
