"""Write golden cases from the reference program: `make expected` calls this.

    exactmark expected PROGRAM [--assignment NAME|FILE.toml] [--seed N]...
                       [--simulate N I]... [--input NAME FILE]... [--inputs DIR]
                       [--stats FILE] [--args "ARGS"] [--status N] [--head K]
                       [--force]

    make expected PROGRAM=NAME [ASSIGNMENT=NAME|FILE.toml] [SEEDS="3 14"]
                  [SIMULATE="1000,0"] [INPUTS=DIR] [ARGS="--status 1 --force ..."]

The program is one an assignment declares (by default the kit's assignment that
declares PROGRAM): its reference runs each case (built first where its language
builds), and the cases are written where the declaration says. A seed case NAME is
seed_N with stdin "N\\n"; --input makes a case of any stdin; --inputs DIR one case
per DIR/NAME.in, with NAME.args and NAME.stats where present.
Existing cases are kept unless --force (a case that has no terminal screen
yet gets one): a new expected output is a change of behaviour, to be reviewed
in `git diff` like code. Nothing is written for what the kit cannot vouch for:
a crash, an exit status other than 0 (unless --status says it), a
simulate(n, i) with n < 1. A program that reads until end of input has its
cases written as any other: the piped case ends at end of input, and the
line written says so.

A case compares stdout and its exit status (NAME.status), and stderr (NAME.err)
only where the reference writes to it: a student's debug line on stderr costs
nothing unless the reference's own stderr is part of the case. What its group
compares (the assignment's `compare`) has the last word, and the line written
for each case says what it compares.
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from exactmark.base import from_make, streams
from exactmark.base.exits import Exit
from exactmark.kit.cases import SUFFIXES, Case
from exactmark.kit.programs import built_reference
from exactmark.running.run import run_on_terminal, run_piped
from exactmark.kit.assignment import KIT_ONLY, AssignmentError, compared, declarations, names


UNFINISHED_SCREEN = "the terminal run did not end in time; nothing written"
NONZERO_STATUS = ("exit status {status}, stderr ends: {said}; nothing written (give --status "
                  "{status} if that is the point of the case)")
COMPARES = "compares {parts}"
STDOUT, STATUS, STDERR = "stdout", "the exit status", "stderr"
NO_STDERR = " (not stderr: the reference writes none)"
NOT_MARKED = "kit-only: {assignment} does not mark it"
HELD_BY_NONE = "no group of {assignment} holds it: add it to one, or to kit_only"
ENDS_AT_END_OF_INPUT = "; ends at end of input (it asked for more after the last line)"
ENDS_AT_NO_INPUT = "; ends at end of input (it asked for input and got none)"  # an empty .in
PIPE_CAPACITY = 1 << 16  # what a Linux pipe holds by default: written, never read
TOO_SHORT_FOR_HEAD = ("the program writes {size} bytes piped: with --head {head} it could end "
                      "before it meets the closed pipe (it must write more than {most}); "
                      "nothing written")
# The last line: git's commands only where the cases are in a git work tree.
REVIEW_IN_GIT = "Review the new files (git status, git diff) before committing them."
REVIEW = "Review the new files in {folder} before you mark with them."
WROTE = "wrote "  # how the line of a case written begins: only then is there something to review
EXAMPLE = "example: exactmark expected solitaire_1 --seed 3 --seed 14 --simulate 1000 0"
NO_SIMULATE = "simulate({n}, {i}): n must be 1 or more (the specification excludes n < 1)"
NO_SIMULATE_IN = "--simulate calls simulate(n, i) by import, which {language} does not have"
NO_SUCH_PROGRAM = "no assignment declares a program {program!r}: give --assignment FILE.toml"
NOT_DECLARED = "{assignment} declares no program {program!r} (it declares: {declared})"
NO_INPUTS = "{folder}: no NAME.in file to make a case of"
NO_PROGRAM_GIVEN = "give the program: make expected PROGRAM=NAME"
MAKE_SEEDS, MAKE_SIMULATE = "MARK_SEEDS", "MARK_SIMULATE"  # make's SEEDS and SIMULATE


def finished_screen(case: Case, program, folder: Path):
    """The case's terminal screen, or None when the run did not end."""
    screen = run_on_terminal(case, folder, program=program)
    return None if screen.limit else screen.stdout


def typed_cr(case: Case) -> bool:
    """A CR typed at a terminal is a line end of its own, and the screen a race: no .tty."""
    return b"\r" in case.stdin


def said_compared(case: Case, compare, assignment: str) -> str:
    """What the written case compares, in words: stdout, and its .status and .err where it
    has them and its group (`compare`, of exactmark.kit.assignment.compared) compares them."""
    if compare == KIT_ONLY:
        return NOT_MARKED.format(assignment=assignment)
    if compare is None:
        return HELD_BY_NONE.format(assignment=assignment)
    parts = [STDOUT] + [said for suffix, kind, said in ((".status", "status", STATUS),
                                                         (".err", "stderr", STDERR))
                        if kind in compare and case.file(suffix).exists()]
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    text = COMPARES.format(parts=listed)
    if case.simulate is None and "stderr" in compare and not case.file(".err").exists():
        text += NO_STDERR
    return text


def write_case(program, reference: Path, name: str, stdin, stats, args, force: bool,
               status=None, head: int = None, compare=None, assignment: str = "") -> str:
    """Run the case of `program` (a exactmark.kit.programs.Program) from `reference` (the folder its
    reference runs from) in a scratch folder; only a run that ends as the case says (without
    a traceback or a time-out, with exit status 0 or `status`) replaces the case's files, all
    of them: its exit status always, its stderr where the reference writes any or the case
    compared it before (--force keeps what a case compares). With
    `head`, stdout's reader goes away after that many bytes. The line it returns says
    what the case compares under `assignment`, whose group compares `compare`."""
    folder = program.cases_folder
    folder.mkdir(parents=True, exist_ok=True)
    case = Case(program.name, name, folder)
    if case.file(".out").exists() and not force:
        if case.simulate is None and case.screen is None and not typed_cr(case):
            screen = finished_screen(case, program, reference)
            if screen is None:
                return f"FAILED   {case.id}: {UNFINISHED_SCREEN}"
            case.file(".tty").write_bytes(screen)
            return f"wrote    {case.id} .tty (its other files kept)"
        return f"kept     {case.id} (exists; --force to write it again)"
    ends = ""
    with tempfile.TemporaryDirectory() as scratch:
        trial = Case(program.name, name, Path(scratch))
        for suffix, content in ((".in", stdin), (".stats", stats), (".args", args)):
            if content is not None:
                trial.file(suffix).write_bytes(content)
        piped = run_piped(trial, reference, program=program)
        if head is not None and len(piped.stdout) <= head + PIPE_CAPACITY:
            return f"FAILED   {case.id}: " + TOO_SHORT_FOR_HEAD.format(
                size=len(piped.stdout), head=head, most=head + PIPE_CAPACITY)
        if head is not None:
            trial.file(".head").write_bytes(f"{head}\n".encode())
            piped = run_piped(trial, reference, program=program)
        if piped.timed_out or b"Traceback" in piped.stderr:
            reason = "no answer in time" if piped.timed_out else \
                piped.stderr.decode("utf-8", "replace").strip().splitlines()[-1]
            return f"FAILED   {case.id}: {reason}; nothing written"
        if piped.status != (status or 0):
            said = piped.stderr.decode("utf-8", "replace").strip().splitlines() or ["(nothing)"]
            return f"FAILED   {case.id}: {NONZERO_STATUS.format(status=piped.status, said=said[-1])}"
        trial.file(".out").write_bytes(piped.stdout)
        if case.simulate is None:
            trial.file(".status").write_bytes(f"{piped.status}\n".encode())
            if piped.stderr or case.file(".err").exists():  # written again: still compared
                trial.file(".err").write_bytes(piped.stderr)
        if case.simulate is None and head is None and not typed_cr(trial):
            screen = run_on_terminal(trial, reference, program=program)
            if screen.limit:
                return f"FAILED   {case.id}: {UNFINISHED_SCREEN}"
            ends = "" if not screen.read_past_input else \
                ENDS_AT_END_OF_INPUT if trial.stdin else ENDS_AT_NO_INPUT
            trial.file(".tty").write_bytes(screen.stdout)
        for suffix in SUFFIXES:
            case.file(suffix).unlink(missing_ok=True)
            if trial.file(suffix).exists():
                shutil.copyfile(trial.file(suffix), case.file(suffix))
    written = " ".join(suffix for suffix in SUFFIXES if case.file(suffix).exists())
    return (f"wrote    {case.id} {written} (exit status {piped.status}): "
            f"{said_compared(case, compare, assignment)}{ends}")


def kit_programs() -> dict:
    """Each program the kit's assignments declare, and the assignment that does."""
    return {program: name for name in names() for program in declarations(name)}


def in_git_work_tree(folder: Path) -> bool:
    """Whether git (if there is one) has `folder` in a work tree."""
    try:
        asked = subprocess.run(["git", "-C", str(folder), "rev-parse", "--is-inside-work-tree"],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True)
    except OSError:
        return False
    return asked.returncode == 0 and asked.stdout.strip() == "true"


def declared(program: str, assignment=None) -> tuple:
    """(the assignment, the program as it declares it): its cases need not exist yet."""
    if assignment is None:
        owner = kit_programs().get(program)
        if owner is None:
            raise ValueError(NO_SUCH_PROGRAM.format(program=program))
        assignment = owner
    found = declarations(assignment)
    if program not in found:
        raise ValueError(NOT_DECLARED.format(assignment=assignment, program=program,
                                             declared=", ".join(found)))
    return assignment, found[program]


def optional(input_file: Path, suffix: str):
    """NAME.args or NAME.stats beside NAME.in, as bytes, or None."""
    path = input_file.with_suffix(suffix)
    return path.read_bytes() if path.is_file() else None


def first_given(*values):
    """The first that is not None: an empty NAME.stats is a stats file, and empty."""
    return next((value for value in values if value is not None), None)


def arguments_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="exactmark expected", description=__doc__,
                                     epilog=EXAMPLE,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program", help="a program an assignment declares (the kit's: "
                        f"{', '.join(sorted(kit_programs()))})")
    parser.add_argument("--assignment", metavar="NAME|FILE.toml",
                        help="the assignment that declares it (default: the kit's that does)")
    parser.add_argument("--inputs", type=Path, metavar="DIR",
                        help="a case NAME per DIR/NAME.in (with NAME.args and NAME.stats where "
                             "they are)")
    parser.add_argument("--seed", type=int, action="append", default=[],
                        help="a case seed_N whose stdin is the seed N (may be given again)")
    parser.add_argument("--simulate", type=int, nargs=2, action="append", default=[],
                        metavar=("N", "I"), help="a case simulate_N_I: the call simulate(N, I)")
    parser.add_argument("--input", nargs=2, action="append", default=[], metavar=("NAME", "FILE"),
                        help="a case NAME whose stdin is the content of FILE")
    parser.add_argument("--stats", type=Path, help="stats file content before the --input runs")
    parser.add_argument("--args", type=shlex.split, help='command-line arguments of the --seed and --input runs, '
                        'as a shell writes them: --args="GAME --seed 5"')
    parser.add_argument("--force", action="store_true", help="write existing cases again")
    parser.add_argument("--status", type=int, help="the exit status the cases end with, when "
                        "not 0 (recorded in NAME.status and compared)")
    parser.add_argument("--head", type=int, metavar="K",
                        help="stdout's reader takes K bytes and closes its end, as `| head -c K` "
                        "does (the program must write more than K + 64 KiB)")
    return parser


def make_arguments(parser: argparse.ArgumentParser) -> list:
    """The command line `make expected` stands for (exactmark.base.from_make): a --seed per
    word of SEEDS, a --simulate N I per N,I of SIMULATE, then ARGS, ASSIGNMENT, INPUTS and
    PROGRAM."""
    seeds = [f"--seed={seed}" for seed in os.environ.get(MAKE_SEEDS, "").split()]
    simulate = [part for pair in os.environ.get(MAKE_SIMULATE, "").split()
                for part in ("--simulate", *pair.split(",", 1))]
    return seeds + simulate + from_make.arguments(
        parser, [("MARK_ASSIGNMENT", "--assignment"), ("MARK_INPUTS", "--inputs")],
        "MARK_PROGRAM", NO_PROGRAM_GIVEN)


def main(argv=None) -> int:
    return streams.quiet_on_closed_stdout(lambda: write_cases(argv))


def write_cases(argv) -> int:
    parser = arguments_parser()
    options = parser.parse_args(argv)
    try:
        assignment, program = declared(options.program, options.assignment)
    except (AssignmentError, ValueError) as problem:
        parser.error(str(problem))
    shown = Path(assignment).stem
    stats = options.stats.read_bytes() if options.stats else None
    args = "".join(f"{arg}\n" for arg in options.args).encode() if options.args else None
    jobs = [(f"seed_{seed}", f"{seed}\n".encode(), None, args) for seed in options.seed]
    jobs += [(f"simulate_{n}_{i}", None, None, None) for n, i in options.simulate]
    jobs += [(name, Path(file).read_bytes(), stats, args) for name, file in options.input]
    if options.inputs:
        found = sorted(options.inputs.glob("*.in"))
        if not found:
            parser.error(NO_INPUTS.format(folder=options.inputs))
        jobs += [(path.stem, path.read_bytes(), first_given(optional(path, ".stats"), stats),
                  first_given(optional(path, ".args"), args)) for path in found]
    if not jobs:
        parser.error("nothing to write: give --seed, --simulate, --input or --inputs")
    if options.simulate and not program.language.simulate:
        parser.error(NO_SIMULATE_IN.format(language=program.language.title))
    for n, i in options.simulate:
        if n < 1:
            parser.error(NO_SIMULATE.format(n=n, i=i))
    if options.head is not None and (options.head < 1 or options.seed or options.simulate):
        parser.error("--head K takes K >= 1 and --input cases only")
    with tempfile.TemporaryDirectory(prefix="reference-") as scratch:
        try:
            reference = built_reference(program, Path(scratch) / "built")
        except ValueError as problem:
            parser.error(str(problem))
        reports = [write_case(program, reference, name, stdin, case_stats, case_args,
                              options.force, options.status, options.head,
                              compared(assignment, program.name, name), shown)
                   for name, stdin, case_stats, case_args in jobs]
    print("\n".join(reports))
    folder = program.cases_folder
    if any(report.startswith(WROTE) for report in reports):
        print(REVIEW_IN_GIT if in_git_work_tree(folder) else REVIEW.format(folder=folder))
    return Exit.FAILED if any(report.startswith("FAILED") for report in reports) else Exit.PASSED


if __name__ == "__main__":
    sys.exit(main(make_arguments(arguments_parser())
                  if len(sys.argv) == 1 and "MARK_PROGRAM" in os.environ else None))
