"""The kit's tools as one command: `exactmark COMMAND ...` (`python3 -m exactmark` is the
same). Each command runs its tool as `python3 -m MODULE` runs it: the tool's own command
line and help, the variables `make` hands it (exactmark.base.from_make, read where the
tool starts), its exit status unchanged. So the command, the make targets and the module
cannot differ, and `exactmark --help` imports no tool.
"""

import argparse
import importlib.util
import runpy
import sys

from exactmark.base.exits import Exit

# command -> (the module that is the tool, what it does): the one place that names them.
COMMANDS = {
    "mark": ("exactmark.marking.mark", "mark one submission: a line per case, the report, the score"),
    "class": ("exactmark.classroom.mark_class",
              "mark a class: each student's report and feedback, grades, similarity, pages"),
    "gradescope": ("exactmark.gradescope.build", "Gradescope's autograder.zip for an assignment"),
    "pack": ("exactmark.pack.build",
             "the student pack: the visible cases and the checker students run"),
    "verify": ("exactmark.verify",
               "the golden cases against the references, honest and wrong programs"),
    "signatures": ("exactmark.verify.signatures",
                   "each wrong program's failed cases on every marked case, for diagnoses"),
    "diagnosis": ("exactmark.verify.diagnosis",
                  "how well the diagnosis names the kit's mistakes: its figures"),
    "expected": ("exactmark.expected", "write golden cases from the reference program"),
    "mutants": ("exactmark.mutants",
                "mutation analysis: which behaviours of a reference no marked case pins"),
    "standalone": ("exactmark.standalone",
                   "sample solutions: one file per program, or what a student hands in"),
    "mark-one": ("exactmark.distributed.worker",
                 "mark one job of a class run on this machine, as a worker (--share K/N DIR)"),
    "check-isolation": ("exactmark.marking.mark",
                        "what would confine each run on this machine: marks nothing"),
    "dask-worker": ("exactmark.distributed.dask_engine",
                    "start a Dask worker for `exactmark class --engine dask`, its slots this machine's"),
}
CHECK_ISOLATION = "--check-isolation"  # the marker's option that check-isolation stands for
TOOL = __name__.split(".")[0]
# What each command needs installed beyond the standard library: pyproject.toml's extras.
EXTRA = {"class": "class", "dask-worker": "dask", "mutants": "mutants"}
EXTRA_OTHERWISE = "mark"
# The libraries of its extra that a command running students' code checks for before it
# starts. pyseccomp is imported only when the sandbox starts, and a marker without it would
# mark with no seccomp filter: so the commands that mark, and check-isolation, which says how
# they would mark, refuse instead. (tzdata is left out: only a system without zoneinfo reads it.)
MARK_LIBRARIES = ("jsonschema", "pexpect",
                  *(("pyseccomp",) if sys.platform.startswith("linux") else ()),
                  *(("tomli",) if sys.version_info < (3, 11) else ()))
CHECKED = {"mark": MARK_LIBRARIES, "check-isolation": MARK_LIBRARIES, "mark-one": MARK_LIBRARIES,
           "class": (*MARK_LIBRARIES, "copydetect", "jinja2", "tqdm"),
           "dask-worker": (*MARK_LIBRARIES, "distributed"),
           "mutants": ("cosmic_ray", "coverage")}
NOT_INSTALLED = ("exactmark {command}: it needs {module}, which is not installed here: "
                 "pip install 'exactmark[{extra}]' (in the kit's folder: pip install '.[{extra}]')")

DESCRIPTION = "The kit's tools: golden cases, sample solutions, marking, packs, autograders."
LISTING = "commands:\n{commands}\n\n{after}"
COMMAND_LINE = "  {name:<17}{said}"
AFTER = ("Each command's own options: exactmark COMMAND --help. The make targets run these "
         "commands\n(make alone lists them).\n\n"
         "example: exactmark mark path/to/student --assignment seeded")
CHECK_DESCRIPTION = ("Say what would confine each run of the assignment's programs on this "
                     "machine, and mark nothing: the marker's --check-isolation. The marker's "
                     "options apply: --assignment NAME|FILE.toml (required), --isolation, "
                     "--require LAYER, --python (exactmark mark --help). Exit status 0 when "
                     "the assignment's and --require's layers are there, 2 when one is missing.")
CHECK_EXAMPLE = "example: exactmark check-isolation --assignment seeded --require files-hidden"


def parser() -> argparse.ArgumentParser:
    commands = "\n".join(COMMAND_LINE.format(name=name, said=said)
                         for name, (_, said) in COMMANDS.items())
    parse = argparse.ArgumentParser(prog="exactmark", description=DESCRIPTION,
                                    epilog=LISTING.format(commands=commands, after=AFTER),
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("command", choices=COMMANDS, metavar="COMMAND",
                       help="one of the commands below")
    parse.add_argument("arguments", nargs=argparse.REMAINDER, metavar="...",
                       help="the command's own")
    return parse


def check_isolation(arguments: list) -> list:
    """The marker's command line for `exactmark check-isolation ARGUMENTS`; its --help is
    its own (the marker's would describe marking)."""
    argparse.ArgumentParser(prog="exactmark check-isolation", description=CHECK_DESCRIPTION,
                            epilog=CHECK_EXAMPLE).parse_known_args(arguments)
    return [CHECK_ISOLATION, *arguments]


def not_installed(command: str):
    """The first library `command` checks for that cannot be imported here, or None."""
    return next((name for name in CHECKED.get(command, ())
                 if importlib.util.find_spec(name) is None), None)


def refuse(command: str, module: str) -> int:
    print(NOT_INSTALLED.format(command=command, module=module,
                               extra=EXTRA.get(command, EXTRA_OTHERWISE)), file=sys.stderr)
    return Exit.REFUSED


def run(module: str, arguments: list) -> None:
    """Run `module` as `python3 -m MODULE ARGUMENTS` runs it: a SystemExit it raises is the
    command's exit status."""
    sys.argv = [sys.argv[0], *arguments]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


def main(argv=None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not arguments:
        parser().print_help()
        return Exit.PASSED
    if arguments[0] in COMMANDS:  # passed on as given: a `--` is the tool's to read
        command, rest = arguments[0], arguments[1:]
    else:
        options = parser().parse_args(arguments)  # --help, or the error naming the commands
        command, rest = options.command, options.arguments
    if command == "check-isolation":
        rest = check_isolation(rest)
    missing = not_installed(command)
    if missing:
        return refuse(command, missing)
    try:
        run(COMMANDS[command][0], rest)
    except ModuleNotFoundError as missing:
        if not missing.name or missing.name.split(".")[0] == TOOL:
            raise  # the tool's own module: a fault of the tool, with its traceback
        return refuse(command, missing.name)
    return Exit.PASSED
