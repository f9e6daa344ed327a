"""The exit statuses of the kit's tools, written once: a tool that reads another's status
(the class marker, verify and Gradescope's run read the marker's) reads what it meant.
Standard library only: Gradescope's run imports it where nothing else may work."""

from enum import IntEnum


class Exit(IntEnum):
    """What a tool's exit status says, for a person and for the tool that started it."""
    PASSED = 0  # all it was asked holds: every case marked passes (the marker, a student
    # pack's check), nothing missed (verify), everything written (the other tools)
    FAILED = 1  # it ran to its end and something fell short: a case failed or a program is
    # missing, a problem found, a case or a file it could not write
    REFUSED = 2  # nothing done: a bad option (argparse's own status), a submission the
    # marker refuses, an assignment, a pack or a program that cannot be read
    MARKER_ERROR = 3  # the marker failed on a case: not the student's fault; mark again
    ENTRY_FAILED = 125  # inside the sandbox, the marker's own step before a run's code
    # (the launcher, the driver, the confinement, joining a control group) failed: never
    # a status the run gave (the driver, run from its source alone, keeps a pinned copy)
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as a shell says it): what was done is kept
