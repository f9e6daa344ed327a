"""What `make` hands a tool: its variables in the environment, unexpanded (the Makefile's
`export MARK_X = $(value X)`), so that no shell or make function re-reads a byte of them:
a path may hold any byte. ARGS alone is split, as a shell splits words."""

import os
import shlex

ARGS = "MARK_ARGS"
BAD_ARGS = "ARGS cannot be read as options: {problem}"


def arguments(parser, options=(), positional: str = None, missing: str = None,
              flags=()) -> list:
    """The command line `make` stands for: ARGS, then OPTION VALUE for each (variable,
    option) whose variable is set, then OPTION alone for each of `flags` (variable, option)
    whose variable is set to anything but 0 (ANONYMOUS=1), then `--` and the positional
    variable's value. Where that is unset, `missing` (when given) is the error."""
    try:
        found = shlex.split(os.environ.get(ARGS, ""))
    except ValueError as problem:
        parser.error(BAD_ARGS.format(problem=problem))
    for variable, option in options:
        if os.environ.get(variable):
            found += [option, os.environ[variable]]
    for variable, option in flags:
        if os.environ.get(variable, "").strip() not in ("", "0"):
            found.append(option)
    if positional and os.environ.get(positional):
        found += ["--", os.environ[positional]]
    elif positional and missing:
        parser.error(missing)
    return found
