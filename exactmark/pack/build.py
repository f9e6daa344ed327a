"""The student pack: what an instructor publishes with the handout, so that students can
check their work before they submit it, as the marking will run it.

    exactmark pack --assignment NAME|FILE.toml OUT     (make student-pack ASSIGNMENT=NAME OUT=DIR)

Writes OUT/ and OUT.zip (the same files, in one folder) holding the assignment's visible
cases alone, laid out as the handouts cite them (expected_outputs/FOLDER/NAME.*, no
terminal screens: students check piped, as the marking marks), the checker check.py (one
file, standard library only: the marker's own comparison and sentences, bundled as `make
standalone` bundles the sample solutions), its data pack.json and a README for students.
Where a program has its wrong programs' signatures, pack.json holds them on the visible
cases alone, so that the checker names a student's mistake as the marker names it to a
student before the deadline (`known_mistakes`). A case that is hidden, or shown only after
the deadline or once published, is in no file of the pack: not its input, its output, its
name, nor how a wrong program fails it. Where the assignment marks cases its
students write, pack.json says where each group's cases go and their limits (not what they
are marked against: the wrong programs are hidden, as the reference is), and the pack
holds each group's worked example: the checker reads a student's cases as the marker
does and runs their program on them.
"""

import argparse
import os
import shutil
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

from exactmark.base import visible
from exactmark.diagnosis.known import knowledge
from exactmark.kit.cases import SUFFIXES
from exactmark.base import from_make
from exactmark.base.exits import Exit
from exactmark.marking.report import reproduce
from exactmark.kit.assignment import AssignmentError, load, names
from exactmark.running.limits import MEMORY_BYTES, OPEN_FILES, mebibytes, time_caps
from exactmark.pack import manifest
from exactmark.kit.bundle import BundleError, bundle
from exactmark.verify.signatures import stale

PACKAGES = ("exactmark",)  # what the checker is made of
CHECKER = "check.py"
README = "README.md"
README_TEMPLATE = Path(__file__).resolve().parent / "README.template.md"
PACKED_SUFFIXES = tuple(suffix for suffix in SUFFIXES if suffix != ".tty")
ZIP_TIME = (2020, 1, 1, 0, 0, 0)  # every entry's: the same pack, the same bytes
HEADER = ("The student pack's checker, written by `make student-pack` from {path} and the "
          "parts of the kit it uses ({sources}): standard library only. Run it as "
          "`python3 check.py [FOLDER]`.")

NO_ASSIGNMENT = "give the assignment and the folder: --assignment NAME OUT (make student-pack ASSIGNMENT=NAME OUT=DIR)"
EXAMPLE = "example: exactmark pack --assignment seeded seeded-pack"
PROGRAM_LINE = "- {program}: {count} visible case{s}, in `{folder}/`"
PROGRAM_ONLY_WRITTEN = "- {program}: no case of the marking's own; the cases you write (below)"
PROGRAM_UNCHECKED = "- {program}: no visible case: this pack cannot check it"
CHECKS_VISIBLE = "the assignment's **visible** cases"
CHECKS_WRITTEN = "the cases you write"
# What passing means: where some cases are not in the pack, which, and what they are worth.
PASSING_UNSEEN = """Passing every visible case does **not** promise the mark: the marking also uses
cases you cannot see, worth {unseen:g} of the {marks:g} marks:

{groups}

Read the handout for what your program must do, and test more than these cases."""
UNSEEN_GROUP = "- {program}, {group}: {marks:g} mark{s}, {when}"
UNSEEN_FRESH = ("- {program}, {group}: {marks:g} mark{s}, {count} fresh case{cs}: inputs drawn "
                "for you alone when you are marked, the same at every marking of your work, "
                "which no pack can hold (a program that prints a stored answer passes none of "
                "them); {when}")
UNSEEN_WHEN = {"after_due_date": "shown in your feedback once late submissions close",
               "after_published": "shown in your feedback once your instructor publishes them",
               "hidden": "never shown: your feedback says how many pass, and what they earn"}
PASSING_ALL_SEEN = ("Every case the marking runs is in this pack: passing them all here means "
                    "passing them in the marking, unless your program reaches what the "
                    "marking's sandbox does not (above). Read the handout for what your "
                    "program must do.")
PASSING_WRITTEN_ONLY = ("The marking marks no case of its own: your marks are for the cases "
                        "you write, and for your program passing them. Below: what this checker "
                        "can and cannot say of them.")
BUILT_WITH = "; built as the marking builds it: `{command}`"
LINK_REFUSED = "{out} is a link: give the folder itself"
NOT_EMPTY = "{out} holds files that are not a student pack: give a new folder, or an empty one"
SHARED_FOLDER = "{first} and {second} keep their cases in two folders of one name, {name}"
WROTE = "wrote {out}/ and {zip}: {cases} visible case{s} of {programs}, {files} files"
NO_VISIBLE = "note: {program} has no visible case: the pack cannot check it"
NO_VISIBLE_WRITTEN = ("note: {program} has no visible case: the pack checks only the cases "
                      "a student writes of it")
STALE = "warning: {program}: the pack names none of its mistakes: {why}"
SUGGESTS = ("\n\nWhere your failures are those of a mistake students make, it says which, under "
            "\u201c{heading}\u201d, with the handout's sentence that the mistake breaks; then, "
            "for each of the handout's rules that your failed cases break, which cases break "
            "it. It reads the visible cases alone: where they cannot tell one mistake from "
            "another, it names none.")
EXIT_VISIBLE = "The exit status is 0 only when every visible case passes."
EXIT_WRITTEN = ("The exit status is 0 only when every visible case passes, and so does every "
                "case you\nwrite, none of them refused, and each group of them has a case "
                "(see [The cases you write](#the-cases-you-write)): a group without one earns "
                "none of its marks.")
WRITTEN = """
## The cases you write

The marking also marks the test cases you write, in its own case format, each group in
its folder of your work:

{groups}

A case NAME is `NAME.in` (what is typed, one line per command) or `NAME.args` (the
command-line arguments, one per line), or both, with `NAME.out` (exactly what is printed
on stdout), and optionally `NAME.status` (the exit status) and `NAME.err` (exactly what is
printed on stderr). NAME is letters, digits, `_` and `-`, at most 100 of them; a case that
is not so is refused, with the reason. Each case is marked valid when the marking's
reference prints exactly what it expects, then run on programs that make the mistakes
students make, and on your own program.

What the checker does with them: it reads each group's folder, in its copy of your work,
with the marking's own code, so that it refuses each case and each file the marking would
refuse, for the same reason and in the same words: a name that is not plain, a link, a
hidden file, a file over the limit, a case without its `.out` or without its input, a bad
`.status`, an empty `.out` without a `.status` or an `.err`, a folder or a file of another
kind in the group's folder, the cases beyond the group's limit in name order. Then it
runs your program on each case it does not refuse, as it runs a visible case, and says
`pass` or what went wrong; for each that fails, it shows the diff and a command that
reproduces it in your folder, such as this one for the worked example once copied there:

    {command}

What it cannot do: say whether a case is valid, or thorough. The marking checks each case
against the reference, and runs the valid ones on the programs that make the mistakes;
this pack holds neither. So a case your program passes may still be invalid (your program
and your case may share a misreading of the handout), and a case your program fails is
wrong in one of the two: the case or your program. Read the handout again for each case
before you hand it in.
"""
WRITTEN_GROUP = ("- {group}: in `{folder}/`, {asked}at most {most} cases, each file at most "
                 "{bytes} bytes{example}")
WRITTEN_ASKED = "at least {asked} and "  # the cases the handout asks for, where it asks
WRITTEN_EXAMPLE = ("; a worked example: `{cases}/{name}.*` in this pack, which, copied into "
                   "`{folder}/`, is one such case, but counts for nothing in the marking, nor "
                   "does a case that is mostly its screens")


def pack_folders(assignment) -> dict:
    """program -> where the pack keeps its cases: expected_outputs/FOLDER, as the handouts
    and the students' feedback cite them."""
    folders, sources = {}, {}
    for name, program in assignment.programs.items():
        folder = program.cases_folder.name
        if sources.setdefault(folder, (name, program.cases_folder))[1] != program.cases_folder:
            raise ValueError(SHARED_FOLDER.format(first=sources[folder][0], second=name,
                                                  name=folder))
        folders[name] = f"{manifest.CASES}/{folder}"
    return folders


def known_mistakes(assignment) -> tuple:
    """(program -> diagnose.Knowledge of its visible cases alone, warnings): what the checker
    names a student's mistakes from, as the marker does before the deadline, for each
    program with signatures of a wrong program that fails a visible case. No other case's
    name, failure or digest; of the handout's rules, only those it can say (a wrong
    program's, a visible case's): another's quote may name a case the pack leaves out.
    None of a program whose students write cases: its wrong programs are what those cases
    are marked against, and the pack would list them. None from stale signatures
    (exactmark.verify.signatures.stale), written from other cases, another reference or
    other wrong programs than the marking's: a mistake they name may be one the student
    did not make, and saying nothing beats a wrong guess. The pack is built all the same,
    with a warning naming the command that writes them again: what the checker says of
    each case does not rest on them."""
    known, warnings = {}, []
    for name, marked in assignment.marked_cases.items():
        program = assignment.programs[name]
        found = knowledge(assignment, program)
        if found is None or assignment.student_groups(name):
            continue
        shown = found.restricted([m.case.name for m in marked if m.visible])
        if not shown.stored.signatures:
            continue
        said = {signature.rule for signature in shown.stored.signatures}.union(
            *shown.claims.values())
        shown = replace(shown, rules={rule: said_as for rule, said_as in shown.rules.items()
                                      if rule in said})
        why = stale(assignment, program)
        if why:
            warnings.append(STALE.format(program=name, why=why))
        else:
            known[name] = shown
    return known, warnings


def contents(assignment, known: dict = None) -> dict:
    """The pack's files: path inside the pack -> bytes; `known`, what names the mistakes
    (`known_mistakes`), found here when not given."""
    if known is None:
        known = known_mistakes(assignment)[0]
    folders = pack_folders(assignment)
    wall, idle = time_caps(assignment.cpu_seconds, assignment.wall_seconds)
    files = {}
    for name, marked in assignment.marked_cases.items():
        examples = [group.example for group in assignment.student_groups(name) if group.example]
        for case in [m.case for m in marked if m.visible] + examples:
            for suffix in PACKED_SUFFIXES:
                path = case.file(suffix)
                if path.exists():
                    files[f"{folders[name]}/{path.name}"] = path.read_bytes()
    data = manifest.written(assignment, wall, idle, folders, known)
    files[manifest.MANIFEST] = (manifest.dumps(data)).encode("utf-8")
    files[CHECKER] = bundle("exactmark.pack.check", PACKAGES, HEADER).encode("utf-8")
    files[README] = readme(assignment, data).encode("utf-8")
    return files


def program_line(entry: dict, program) -> str:
    """What the pack checks of one program: its visible cases, or why none."""
    count = len(entry["visible"])
    if not count:
        return PROGRAM_ONLY_WRITTEN.format(program=entry["name"]) if entry["groups"] else \
            PROGRAM_UNCHECKED.format(program=entry["name"])
    return PROGRAM_LINE.format(program=entry["name"], count=count, s="s" * (count != 1),
                               folder=entry["cases"]) + (
        BUILT_WITH.format(command=program.shell_build()) if program.built else "")


def passing(assignment, data: dict) -> str:
    """What passing here means: the groups of cases the pack does not hold and their marks,
    where there are some; that it holds every case, where it does; that the marking marks
    only the cases a student writes, where it does."""
    if not any(marked for marked in assignment.marked_cases.values()):
        return PASSING_WRITTEN_ONLY
    if not data["unseen_marks"]:
        return PASSING_ALL_SEEN
    groups = {(program, group): [] for program in assignment.marked_cases
              for group in assignment.groups[program]}  # in the assignment's order
    for program, cases in assignment.marked_cases.items():
        for marked in cases:
            if not marked.visible:
                groups[program, marked.group].append(marked)
    drawn = {(program, group.name): group for program in assignment.marked_cases
             for group in assignment.fresh_groups(program)}
    return PASSING_UNSEEN.format(unseen=data["unseen_marks"], marks=assignment.marks,
                                 groups="\n".join(
        UNSEEN_GROUP.format(program=program, group=group, marks=round(marks, 4),
                            s="s" * (round(marks, 4) != 1),
                            when=UNSEEN_WHEN[members[0].visibility])
        if (program, group) not in drawn else UNSEEN_FRESH.format(
            program=program, group=group, marks=marks, s="s" * (marks != 1),
            count=drawn[program, group].count, cs="s" * (drawn[program, group].count != 1),
            when=UNSEEN_WHEN[drawn[program, group].visibility])
        for (program, group), members in groups.items() if members or (program, group) in drawn
        for marks in [drawn[program, group].marks if (program, group) in drawn
                      else sum(marked.marks for marked in members)]))


def readme(assignment, data: dict) -> str:
    programs = "\n".join(program_line(entry, assignment.programs[entry["name"]])
                          for entry in data["programs"])
    checks = CHECKS_VISIBLE if any(entry["visible"] for entry in data["programs"]) or not any(
        entry["groups"] for entry in data["programs"]) else CHECKS_WRITTEN
    return README_TEMPLATE.read_text(encoding="utf-8").format(
        title=assignment.title, programs=programs, written=written(assignment, data),
        checks=checks, passing=passing(assignment, data),
        suggests=SUGGESTS.format(heading=manifest.WHAT_IT_SUGGESTS) if any(
            entry["diagnosis"] for entry in data["programs"]) else "",
        exit=EXIT_WRITTEN if any(entry["groups"] for entry in data["programs"]) else EXIT_VISIBLE,
        cpu=assignment.cpu_seconds,
        memory=mebibytes(MEMORY_BYTES), files=OPEN_FILES,
        removed=visible.REMOVED, added=visible.ADDED, from_file=visible.FROM_FILE,
        to_file=visible.TO_FILE, space=visible.SHOWN[" "], tab=visible.SHOWN["\t"],
        cr=visible.SHOWN["\r"], end=visible.END_OF_LINE, no_newline=visible.NO_FINAL_NEWLINE,
        code_point=visible.CODE_POINT_DRAWN.format(code=0xA0),
        byte=visible.BYTE_DRAWN.format(byte=0xFF))


def written(assignment, data: dict) -> str:
    """The README's section on the cases students write, where the assignment marks some:
    each group's folder, limits and worked example, the case format, what the checker
    does with them (refuses what the marking refuses, runs the others) and what it cannot
    (say whether a case is valid or thorough)."""
    folders = {entry["name"]: entry["cases"] for entry in data["programs"]}
    groups = [(name, group) for name in assignment.marked_cases
              for group in assignment.student_groups(name)]
    if not groups:
        return ""
    example = next(((name, group) for name, group in groups if group.example), None)
    command = (reproduce(example[1].example, assignment.programs[example[0]],
                         folder=example[1].folder) if example else "")
    return WRITTEN.format(command=command, groups="\n".join(
        WRITTEN_GROUP.format(group=group.name, folder=group.folder, most=group.most,
                             asked=WRITTEN_ASKED.format(asked=group.asked)
                             if group.asked > 1 else "",
                             bytes=group.most_bytes, example=WRITTEN_EXAMPLE.format(
                                 cases=folders[name], name=group.example.name,
                                 folder=group.folder) if group.example else "")
        for name, group in groups))


def is_pack(folder: Path) -> bool:
    return (folder / manifest.MANIFEST).is_file() and (folder / CHECKER).is_file()


def write(out: Path, files: dict) -> Path:
    """OUT/ (replacing a pack written there before) and OUT.zip; the zip's path."""
    if out.is_symlink():
        raise ValueError(LINK_REFUSED.format(out=out))
    if out.is_dir() and any(out.iterdir()) and not is_pack(out):
        raise ValueError(NOT_EMPTY.format(out=out))
    if out.is_dir():
        shutil.rmtree(out)
    for path, data in sorted(files.items()):
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    archive = out.with_name(out.name + ".zip")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path, data in sorted(files.items()):
            entry = zipfile.ZipInfo(f"{out.name}/{path}", ZIP_TIME)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            zipped.writestr(entry, data)
    return archive


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="exactmark pack", description=__doc__, epilog=EXAMPLE,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("--assignment", metavar="NAME|FILE.toml",
                       help=f"one of: {', '.join(names())}; or an assignment file of your own")
    parse.add_argument("out", nargs="?", type=Path, help="the pack's folder; OUT.zip beside it")
    return parse


def main(argv=None) -> int:
    parse = parser()
    options = parse.parse_args(argv)
    if not options.assignment or options.out is None:
        parse.error(NO_ASSIGNMENT)
    try:
        assignment = load(options.assignment)
        known, warnings = known_mistakes(assignment)
        files = contents(assignment, known)
        archive = write(options.out.absolute(), files)
    except (AssignmentError, BundleError, ValueError, OSError) as problem:
        parse.error(str(problem))
    for warning in warnings:
        print(warning, file=sys.stderr)
    for name, marked in assignment.marked_cases.items():
        if not any(m.visible for m in marked):
            print((NO_VISIBLE_WRITTEN if assignment.student_groups(name) else NO_VISIBLE)
                  .format(program=name), file=sys.stderr)
    cases = sum(m.visible for marked in assignment.marked_cases.values() for m in marked)
    print(WROTE.format(out=options.out, zip=archive.name, cases=cases, s="s" * (cases != 1),
                       programs=", ".join(assignment.marked_cases), files=len(files)))
    return Exit.PASSED


if __name__ == "__main__":
    sys.exit(main(from_make.arguments(parser(), [("MARK_ASSIGNMENT", "--assignment")],
                                      "MARK_OUT", NO_ASSIGNMENT)
                  if "MARK_OUT" in os.environ or "MARK_ASSIGNMENT" in os.environ else None))
