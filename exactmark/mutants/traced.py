"""Run a case's Python command under coverage.py, recording the lines of the files under
ROOT that it runs: `python traced.py DATA ROOT ARGV...`, where ARGV is the case's command
without its python (`script args...` or `-c CODE`). Run as a script, by path: it imports
nothing of the kit, so that the program's own imports are the only ones measured."""

import runpy
import sys

import coverage


def run(argv: list) -> None:
    """Run ARGV as python runs it: `-c CODE ARGS...` or `SCRIPT ARGS...`."""
    if argv[0] == "-c":
        sys.argv, sys.path[0] = ["-c", *argv[2:]], ""
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv, sys.path[0] = argv, argv[0].rpartition("/")[0]
        runpy.run_path(argv[0], run_name="__main__")


def main() -> None:
    data, root, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    measured = coverage.Coverage(data_file=data, source=[root])
    measured.start()
    try:
        run(argv)
    finally:
        measured.stop()
        measured.save()


if __name__ == "__main__":
    main()
