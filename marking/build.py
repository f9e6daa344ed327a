"""The build of a program in a compiled language: a step of the marking, once per program
per submission, in the same sandbox as its runs (every layer a run has, no network), with
limits of its own. It sees the program's submitted files alone, not the rest of the
submission: what it compiles is what the marker marks and the similarity scan reads. The
compiler writes the program in the build's home; the build's last command writes it to
stdout, so that the marker takes the built program as bytes from a pipe, into a file it
names itself: no link is followed, no name the build chose trusted.
"""

import os
import re
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

from golden.programs import BINARY
from golden.run import Limit
from golden.visible import escaped, split_lines
from marking import records
from marking.confine import ENTRY_FAILED
from marking.limits import Budget
from marking.sandbox import Stopped
from marking.verdicts import Kind

BUILD_CPU_SECONDS = 60
BUILD_WALL_FACTOR = 4
MOST_BINARY = 64 << 20  # a built program of a student's few files is far smaller
MOST_MESSAGES = 1 << 20  # of the compiler's messages: far more than a person reads
SHOWN_LINES = 20  # of the compiler's messages, on the report and to the student
# $1: the program's file; then the compiler's command. Its messages go to stderr, and the
# program, once built, to stdout (by /bin/cat: a student's PATH may hold only the compiler).
BUILD_SCRIPT = 'binary=$1; shift; "$@" >&2 || exit; exec /bin/cat -- "$binary"'
WARNING = b"warning:"
# What turns the compiler's warnings off from inside a source, where warnings cost marks.
SILENCED = re.compile(rb"(#\s*pragma|_Pragma\s*\(\s*\")\s*(GCC|clang)\s+(diagnostic|system_header)")

BUILT = "built in {seconds:.1f} s"
WITH_WARNINGS = "built in {seconds:.1f} s, with warnings"
NOT_BUILT = "did not build ({why})"
FAILED = "the compiler's exit status {status}"
OVER_CPU = "over its {seconds:g} s of CPU"
NO_END = "no end within {seconds:g} s"
IDLE = "no CPU time used for {seconds:g} s: waiting, not compiling"
TOO_LARGE = "the built program is larger than {mib} MiB"
TOO_MANY_MESSAGES = "the compiler wrote more than {mib} MiB of messages"
OUT_OF_MEMORY = "over its {mib} MiB of memory"
NOTHING_MADE = "the build made no program"
STOPPED = "the marking was stopped"
MARKER_FAILED = "the marker failed to run the build: {problem}"
SILENCING = "a #pragma turns the compiler's warnings off: counted as warnings"
MORE_LINES = "... {count} more lines"


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
    cases: Kind = Kind.NOT_BUILT  # what its cases are when it did not build

    def said(self) -> str:
        if not self.ok:
            return NOT_BUILT.format(why=self.why)
        return (WITH_WARNINGS if self.warnings else BUILT).format(seconds=self.seconds)

    def record(self) -> records.Build:
        return records.Build(self.ok, self.warnings, round(self.seconds, 3), self.messages,
                             self.said())


def budget(memory: int, processes: int) -> Budget:
    """A build's own limits: a minute of CPU, the run's memory (at most 1 GiB, less under a
    container), its processes (a compiler starts a few), room for the program on stdout and
    in the files it writes, and a megabyte of messages."""
    return Budget(BUILD_CPU_SECONDS, BUILD_WALL_FACTOR * BUILD_CPU_SECONDS, BUILD_CPU_SECONDS,
                  memory, processes, MOST_BINARY, MOST_MESSAGES, MOST_BINARY)


def build(sandbox, program, root: Path, scratch: Path) -> Build:
    """Build `program` from the submission folder `root` (its files at the top). Never
    raises: a stop or a fault of the marker is a Build whose cases are not run, or the
    marker's error."""
    started = time.monotonic()
    try:
        files, sources = sources_of(program, root, scratch)
        outcome = sandbox.run(sources, lambda home: build_command(program, files), b"", {},
                              budget=budget(sandbox.memory, sandbox.processes))
    except Stopped:
        return Build(program.name, False, False, "", time.monotonic() - started, STOPPED,
                     cases=Kind.NOT_RUN)
    except Exception as problem:  # a fault of the marker must not cost the report
        return Build(program.name, False, False, "", time.monotonic() - started,
                     MARKER_FAILED.format(problem=escaped(f"{type(problem).__name__}: {problem}")),
                     cases=Kind.MARKER_ERROR)
    built = came_to(program, files, sources, outcome, time.monotonic() - started,
                    sandbox.memory)
    return kept(built, outcome, scratch / f"built-{program.name}") if built.ok else built


def build_command(program, files: list) -> list:
    """The build's command: the compiler's, its messages to stderr, then the program to stdout."""
    return ["/bin/sh", "-c", BUILD_SCRIPT, "build", BINARY, *program.build_argv(files)]


def came_to(program, files: list, sources: Path, outcome, seconds: float, memory: int) -> Build:
    """What a finished build came to (`outcome`, a golden.run.Ran of `build_command`), in
    the marker's sandbox or in a student's checker alike: built or why not, its
    warnings (a #pragma that silences them counts), its messages as shown."""
    silenced = any(SILENCED.search((sources / name).read_bytes()) for name in files)
    messages = shown(outcome.stderr, [SILENCING] if silenced else [])
    warnings = WARNING in outcome.stderr or silenced
    why, cases = failure(outcome, memory)
    return Build(program.name, not why, warnings, messages, seconds, why,
                 cases=cases or Kind.NOT_BUILT)


def kept(built: Build, outcome, folder: Path) -> Build:
    """The build, its program written from the build's stdout into the new `folder`, alone,
    under a name the marker chose (O_EXCL, O_NOFOLLOW): the snapshot its cases run from."""
    folder.mkdir(mode=0o700)
    fd = os.open(folder / BINARY, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755)
    with os.fdopen(fd, "wb") as file:
        file.write(outcome.stdout)
    return replace(built, folder=folder)


def sources_of(program, root: Path, scratch: Path) -> tuple:
    """(the program's submitted files, a folder holding them alone): the build's snapshot."""
    files, _ = program.files(root)
    folder = scratch / f"sources-{program.name}"
    folder.mkdir(mode=0o700)
    for name in files:
        shutil.copyfile(root / name, folder / name, follow_symlinks=False)
    return files, folder


def failure(outcome, memory: int) -> tuple:
    """(why the build made no program, what its cases are then); ("", None) when it did."""
    if outcome.status is None and not outcome.limit:
        return STOPPED, Kind.NOT_RUN
    if outcome.status == ENTRY_FAILED:
        return MARKER_FAILED.format(problem=FAILED.format(status=ENTRY_FAILED)), Kind.MARKER_ERROR
    why = (OVER_CPU.format(seconds=BUILD_CPU_SECONDS) if outcome.limit is Limit.CPU
           else IDLE.format(seconds=BUILD_CPU_SECONDS) if outcome.limit is Limit.IDLE
           else NO_END.format(seconds=BUILD_WALL_FACTOR * BUILD_CPU_SECONDS)
           if outcome.limit is Limit.WALL
           else TOO_MANY_MESSAGES.format(mib=MOST_MESSAGES >> 20)
           if outcome.overflowed == "stderr"
           else TOO_LARGE.format(mib=MOST_BINARY >> 20) if outcome.too_large
           else OUT_OF_MEMORY.format(mib=memory >> 20) if outcome.out_of_memory
           else FAILED.format(status=outcome.status) if outcome.status
           else NOTHING_MADE if not outcome.stdout else "")
    return why, Kind.NOT_BUILT if why else None


def shown(stderr: bytes, notes: list) -> str:
    """The compiler's first lines, escaped as every byte a student caused is (only \\n ends
    a line: a \\r or a form feed is shown, not obeyed), after our own notes."""
    lines = split_lines(stderr.decode("utf-8", "surrogateescape"))
    kept = notes + [escaped(line.rstrip("\n"), most=300) for line in lines[:SHOWN_LINES]]
    if len(lines) > SHOWN_LINES:
        kept.append(MORE_LINES.format(count=len(lines) - SHOWN_LINES))
    return "\n".join(kept)
