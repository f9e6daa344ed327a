"""Sample solutions: each of the kit's Python programs as one file, standard library only;
or, for an assignment, exactly what its student hands in (each program's
modules bundled into its one file).

    exactmark standalone [OUT]                       (make standalone [OUT=solutions])
    exactmark standalone --assignment NAME|FILE.toml OUT   (make standalone ASSIGNMENT=NAME)"""

import argparse
import sys
from pathlib import Path

from exactmark.base.exits import Exit
from exactmark.kit.assignment import AssignmentError, load
from exactmark.kit.bundle import BundleError, write_all, write_assignment

DEFAULT_OUT = "solutions"
WROTE = "wrote {path} ({lines} lines)"
FAILED = "standalone: {problem}"
EXAMPLE = "example: exactmark standalone --assignment solitaire_1 solutions"


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="exactmark standalone", description=__doc__.split("\n\n")[0],
                                    epilog=EXAMPLE)
    parse.add_argument("--assignment", metavar="NAME|FILE.toml",
                       help="write what a student of this assignment hands in (default: every "
                       "Python program of the kit's own assignments)")
    parse.add_argument("out", nargs="?", default=DEFAULT_OUT, type=Path,
                       help=f"the folder to write in (default {DEFAULT_OUT})")
    return parse


def main(argv=None) -> int:
    parse = parser()
    options = parse.parse_args(argv)
    try:
        assignment = load(options.assignment) if options.assignment else None
    except AssignmentError as problem:
        parse.error(str(problem))
    try:
        written = write_assignment(assignment, options.out) if assignment else write_all(options.out)
    except BundleError as problem:
        print(FAILED.format(problem=problem), file=sys.stderr)
        return Exit.FAILED
    for path, lines in written:
        print(WROTE.format(path=path, lines=lines))
    return Exit.PASSED


if __name__ == "__main__":
    sys.exit(main())
