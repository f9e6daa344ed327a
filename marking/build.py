"""The build of a program in a compiled language: a step of the marking, once per program
per submission, in the same sandbox as its runs (every layer a run has, no network), with
limits of its own. The compiler writes the program in the build's home; the build's last
command writes it to stdout, so that the marker takes the built program as bytes from a
pipe, into a file it names itself: no link is followed, no name the build chose trusted.
"""

import os
import time
from dataclasses import dataclass
from pathlib import Path

from golden.programs import BINARY
from golden.visible import escaped
from marking.sandbox import Budget

BUILD_CPU_SECONDS = 60
BUILD_WALL_FACTOR = 4
MOST_BINARY = 64 << 20  # a built program of a student's few files is far smaller
SHOWN_LINES = 20  # of the compiler's messages, on the report and to the student
# $1: the program's file; then the compiler's command. Its messages go to stderr, and the
# program, once built, to stdout.
BUILD_SCRIPT = 'binary=$1; shift; "$@" >&2 || exit; exec cat -- "$binary"'

BUILT = "built in {seconds:.1f} s"
WITH_WARNINGS = "built in {seconds:.1f} s, with warnings"
NOT_BUILT = "did not build ({why})"
FAILED = "the compiler's exit status {status}"
TIMED_OUT = "over its {seconds:g} s of CPU"
TOO_LARGE = "the built program is larger than {mib} MiB"
NOTHING_MADE = "the build made no program"
MORE_LINES = "... {count} more lines"
WARNING = "warning:"


@dataclass(frozen=True)
class Build:
    """What one program's build came to."""
    program: str
    ok: bool
    warnings: bool
    messages: str  # the compiler's, escaped, the first SHOWN_LINES lines
    seconds: float
    why: str = ""  # why it did not build
    folder: Path = None  # the built program, alone, as the snapshot its cases run from

    def said(self) -> str:
        if not self.ok:
            return NOT_BUILT.format(why=self.why)
        return (WITH_WARNINGS if self.warnings else BUILT).format(seconds=self.seconds)

    def to_json(self) -> dict:
        return {"ok": self.ok, "warnings": self.warnings, "seconds": round(self.seconds, 3),
                "messages": self.messages, "said": self.said()}


def budget(sandbox) -> Budget:
    """A build's own limits: a minute of CPU, the run's memory (at most 1 GiB, less under a
    container), its processes (a compiler starts a few), room for the program on stdout."""
    return Budget(BUILD_CPU_SECONDS, BUILD_WALL_FACTOR * BUILD_CPU_SECONDS, BUILD_CPU_SECONDS,
                  sandbox.memory, sandbox.processes, MOST_BINARY)


def build(sandbox, program, root: Path, scratch: Path) -> Build:
    """Build `program` from the submission folder `root` (its files at the top)."""
    files, _ = program.files(root)
    started = time.monotonic()
    outcome = sandbox.run(root, lambda home: ["/bin/sh", "-c", BUILD_SCRIPT, "build", BINARY,
                                              *program.build_argv(files)],
                          b"", {}, budget=budget(sandbox))
    seconds = time.monotonic() - started
    messages = shown(outcome.stderr)
    warnings = WARNING.encode() in outcome.stderr
    why = (TIMED_OUT.format(seconds=BUILD_CPU_SECONDS) if outcome.timed_out
           else TOO_LARGE.format(mib=MOST_BINARY >> 20) if outcome.too_large
           else FAILED.format(status=outcome.status) if outcome.status
           else NOTHING_MADE if not outcome.stdout else "")
    if why:
        return Build(program.name, False, warnings, messages, seconds, why)
    folder = scratch / f"built-{program.name}"
    folder.mkdir(mode=0o700)
    fd = os.open(folder / BINARY, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755)
    with os.fdopen(fd, "wb") as file:
        file.write(outcome.stdout)
    return Build(program.name, True, warnings, messages, seconds, folder=folder)


def shown(stderr: bytes) -> str:
    """The compiler's first lines, escaped as every byte a student caused is."""
    lines = stderr.decode("utf-8", "surrogateescape").splitlines()
    kept = [escaped(line, most=300) for line in lines[:SHOWN_LINES]]
    if len(lines) > SHOWN_LINES:
        kept.append(MORE_LINES.format(count=len(lines) - SHOWN_LINES))
    return "\n".join(kept)
