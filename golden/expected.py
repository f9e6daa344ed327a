"""Write golden cases from the reference program: `make expected` calls this.

    python3 -m golden.expected PROGRAM [--seed N]... [--simulate N I]...
                               [--input NAME FILE]... [--stats FILE] [--args "ARGS"]
                               [--force]

A seed case NAME is seed_N with stdin "N\\n"; --input makes a case of any
stdin. Existing cases are kept unless --force (a case that has no terminal
screen yet gets one): a new expected output is a change of behaviour, to be
reviewed in `git diff` like code.
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


def finished_screen(case: Case):
    """The case's terminal screen, or None when the run did not end."""
    screen = run_on_terminal(case, ROOT)
    return None if screen.timed_out or screen.too_large else screen.output


def write_case(program: str, name: str, stdin, stats, args, force: bool) -> str:
    """Run the case in a scratch folder; only a run that ends without a
    traceback or a time-out replaces the case's files, all of them."""
    folder = EXPECTED_OUTPUTS / program
    folder.mkdir(parents=True, exist_ok=True)
    case = Case(program, name, folder)
    if case.file(".out").exists() and not force:
        if case.simulate is None and case.screen is None:
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
        if piped.timed_out or b"Traceback" in piped.stderr:
            reason = "no answer in time" if piped.timed_out else \
                piped.stderr.decode("utf-8", "replace").strip().splitlines()[-1]
            return f"FAILED   {case.id}: {reason}; nothing written"
        trial.file(".out").write_bytes(piped.stdout)
        if case.simulate is None:
            screen = finished_screen(trial)
            if screen is None:
                return f"FAILED   {case.id}: {UNFINISHED_SCREEN}"
            trial.file(".tty").write_bytes(screen)
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
    reports = [write_case(options.program, name, stdin, case_stats, case_args, options.force)
               for name, stdin, case_stats, case_args in jobs]
    print("\n".join(reports))
    print("Review the new files (git status, git diff) before committing them.")
    return 1 if any(report.startswith("FAILED") for report in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
