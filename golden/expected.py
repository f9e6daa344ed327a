"""Write golden cases from the reference program: `make expected` calls this.

    python3 -m golden.expected PROGRAM [--seed N]... [--simulate N I]...
                               [--input NAME FILE]... [--stats FILE] [--args "ARGS"]
                               [--status N] [--end-of-input] [--head K] [--force]

A seed case NAME is seed_N with stdin "N\\n"; --input makes a case of any
stdin (the interactive programs, hoyle_cli and patience, take only that).
Existing cases are kept unless --force (a case that has no terminal screen
yet gets one): a new expected output is a change of behaviour, to be reviewed
in `git diff` like code. Nothing is written for what the kit cannot vouch for:
a crash, an exit status other than 0 (unless --status says it), a program
that asks for more input after the last line (unless --end-of-input), a
simulate(n, i) with n < 1.
"""

import argparse
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from common import console
from golden.cases import EXPECTED_OUTPUTS, ROOT, SUFFIXES, Case
from golden.run import run_on_terminal, run_piped


UNFINISHED_SCREEN = "the terminal run did not end in time; nothing written"
NONZERO_STATUS = ("exit status {status}, stderr ends: {said}; nothing written (give --status "
                  "{status} if that is the point of the case)")
RAN_OUT_OF_INPUT = ("the program asked for more input after the last line, so the case ends at "
                    "end of input; nothing written (give --end-of-input if that is its point)")
PIPE_CAPACITY = 1 << 16  # what a Linux pipe holds by default: written, never read
TOO_SHORT_FOR_HEAD = ("the program writes {size} bytes piped: with --head {head} it could end "
                      "before it meets the closed pipe (it must write more than {most}); "
                      "nothing written")
NO_SIMULATE = "simulate({n}, {i}): n must be 1 or more (the specification excludes n < 1)"
INTERACTIVE = {"hoyle_cli", "patience"}  # a seed alone is not a game of theirs
SEED_FOR_INTERACTIVE = ("{program} is interactive: give a whole input file with --input NAME "
                        "FILE, not --seed")


def finished_screen(case: Case):
    """The case's terminal screen, or None when the run did not end."""
    screen = run_on_terminal(case, ROOT)
    return None if screen.timed_out or screen.too_large else screen.output


def typed_cr(case: Case) -> bool:
    """A CR typed at a terminal is a line end of its own, and the screen a race: no .tty."""
    return b"\r" in case.stdin


def write_case(program: str, name: str, stdin, stats, args, force: bool, status=None,
               end_of_input: bool = False, head: int = None) -> str:
    """Run the case in a scratch folder; only a run that ends as the case says (without a
    traceback or a time-out, with exit status 0 or `status`, at end of input only when
    `end_of_input`) replaces the case's files, all of them, its exit status and stderr
    included. With `head`, stdout's reader goes away after that many bytes."""
    folder = EXPECTED_OUTPUTS / program
    folder.mkdir(parents=True, exist_ok=True)
    case = Case(program, name, folder)
    if case.file(".out").exists() and not force:
        if case.simulate is None and case.screen is None and not typed_cr(case):
            screen = finished_screen(case)
            if screen is None:
                return f"FAILED   {case.id}: {UNFINISHED_SCREEN}"
            case.file(".tty").write_bytes(screen)
            return f"wrote    {case.id} .tty (its other files kept)"
        return f"kept     {case.id} (exists; --force to write it again)"
    with tempfile.TemporaryDirectory() as scratch:
        trial = Case(program, name, Path(scratch))
        for suffix, content in ((".in", stdin), (".stats", stats), (".args", args)):
            if content is not None:
                trial.file(suffix).write_bytes(content)
        piped = run_piped(trial, ROOT)
        if head is not None and len(piped.stdout) <= head + PIPE_CAPACITY:
            return f"FAILED   {case.id}: " + TOO_SHORT_FOR_HEAD.format(
                size=len(piped.stdout), head=head, most=head + PIPE_CAPACITY)
        if head is not None:
            trial.file(".head").write_bytes(f"{head}\n".encode())
            piped = run_piped(trial, ROOT)
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
            trial.file(".err").write_bytes(piped.stderr)
        if case.simulate is None and head is None and not typed_cr(trial):
            screen = run_on_terminal(trial, ROOT)
            if screen.timed_out or screen.too_large:
                return f"FAILED   {case.id}: {UNFINISHED_SCREEN}"
            if screen.read_past_input and not end_of_input:
                return f"FAILED   {case.id}: {RAN_OUT_OF_INPUT}"
            trial.file(".tty").write_bytes(screen.output)
        for suffix in SUFFIXES:
            case.file(suffix).unlink(missing_ok=True)
            if trial.file(suffix).exists():
                shutil.copyfile(trial.file(suffix), case.file(suffix))
    written = " ".join(suffix for suffix in SUFFIXES if case.file(suffix).exists())
    return f"wrote    {case.id} {written} (exit status {piped.status})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m golden.expected", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program", help="a program of the kit: solitaire_1, solitaire_2, hoyle_cli, patience")
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
    parser.add_argument("--end-of-input", action="store_true",
                        help="the cases are meant to end at end of input, asking for more")
    options = parser.parse_args(argv)
    console.end_silently_on_closed_pipe()
    if not (ROOT / f"{options.program}.py").exists():
        parser.error(f"no program {options.program}.py in {ROOT}")
    stats = options.stats.read_bytes() if options.stats else None
    args = "".join(f"{arg}\n" for arg in options.args).encode() if options.args else None
    jobs = [(f"seed_{seed}", f"{seed}\n".encode(), None, args) for seed in options.seed]
    jobs += [(f"simulate_{n}_{i}", None, None, None) for n, i in options.simulate]
    jobs += [(name, Path(file).read_bytes(), stats, args) for name, file in options.input]
    if not jobs:
        parser.error("nothing to write: give --seed, --simulate or --input")
    if options.seed and options.program in INTERACTIVE:
        parser.error(SEED_FOR_INTERACTIVE.format(program=options.program))
    for n, i in options.simulate:
        if n < 1:
            parser.error(NO_SIMULATE.format(n=n, i=i))
    if options.head is not None and (options.head < 1 or options.seed or options.simulate):
        parser.error("--head K takes K >= 1 and --input cases only")
    reports = [write_case(options.program, name, stdin, case_stats, case_args, options.force,
                          options.status, options.end_of_input, options.head)
               for name, stdin, case_stats, case_args in jobs]
    print("\n".join(reports))
    print("Review the new files (git status, git diff) before committing them.")
    return 1 if any(report.startswith("FAILED") for report in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
