"""The build of a program in a compiled language: a step of the marking, once per program
per submission, in the same sandbox as its runs (every layer a run has, no network), with
limits of its own. It sees the program's submitted files alone, not the rest of the
submission: what it compiles is what the marker marks and the similarity scan reads. The
compiler writes the program in the build's home; the build's last command writes it to
stdout, so that the marker takes the built program as bytes from a pipe, into a file it
names itself: no link is followed, no name the build chose trusted.

Whether a build's warnings were turned off is judged on what the preprocessor makes of
each compiled file, not on how its source spells it (`%:pragma`, `_Pragma` in a macro,
a backslash-newline...): before the compile, in the same run, each is preprocessed with
the same flags and macros (its output never seen by the compile, so that no `__has_include` can
tell the two apart), and its `#pragma GCC diagnostic` lines (clang's too) and line
markers are read, each attributed by the markers to the file it comes from. A pragma
in a student's file counts; one in a real system header counts only when it is not
undone (pop) before a student's file goes on. A student's file made a system header
(`#pragma GCC system_header`, an include through a system folder) counts; so does a
line marker written in a source (the preprocessor warns of each, -Wpedantic), which
could claim any file, system or not.
"""

import os
import re
import shlex
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

from exactmark.kit.programs import BINARY, OUTPUT
from exactmark.running.record import Limit
from exactmark.base.visible import escaped, split_lines
from exactmark.marking import records
from exactmark.sandbox.confine import ENTRY_FAILED
from exactmark.running.limits import Budget
from exactmark.sandbox.errors import Stopped
from exactmark.marking.verdicts import Kind

BUILD_CPU_SECONDS = 60
BUILD_WALL_FACTOR = 4
MOST_BINARY = 64 << 20  # a built program of a student's few files is far smaller
MOST_MESSAGES = 1 << 20  # of the compiler's messages: far more than a person reads
SHOWN_LINES = 20  # of the compiler's messages, on the report and to the student
# The build, a shell script: its folder (as named and as it is), then each compiled file's
# preprocessing (CHECK_SCRIPT), then the compile, its messages to stderr, then the program
# to stdout (by /bin/cat: a student's PATH may hold only the compiler); the tools it needs
# besides, from /usr/bin or /bin.
BUILD_START = r"""tool() {
    for folder in /usr/bin /bin; do
        if [ -x "$folder/$1" ]; then name=$1; shift; "$folder/$name" "$@"; return; fi
    done
    return 127
}
printf '%s\n%s\n' "$PWD" "$(pwd -P)"
checks=$(tool mktemp -d) || exit
"""
# Whether the compiler that preprocesses is clang (macOS's g++, which refuses gcc's words).
CLANG_SCRIPT = 'case $({compiler} --version 2>&1) in *clang*) clang=1;; *) clang=;; esac\n'
# One file's preprocessing, by clang or by gcc, then these lines: its status, how many line
# markers its source holds (gcc warns of each, -Wpedantic), the size of its `#` lines and
# of those that hold a `"` (where a raw string may start or end: `silenced` reads which
# `#` lines are a raw string's text), those lines; nothing left behind.
CHECK_SCRIPT = r""": >"$checks/out"
if [ ! "$clang" ]; then
{macros}fi
if [ "$clang" ]; then {clang}; else {gcc}; fi 2>"$checks/said"; status=$?
tool grep -a -e '^#' -e '"' "$checks/out" >"$checks/lines" 2>/dev/null
markers=$(tool grep -a -c -E -e 'style of line directive is a (GCC|GNU) extension' "$checks/said")
printf '%s %s %s\n' "$status" "${{markers:-0}}" $(($(tool wc -c <"$checks/lines")))
/bin/cat -- "$checks/lines"
tool rm -f -- "$checks/out" "$checks/lines" "$checks/said" "$checks/restore.h"
"""
# gcc's check preprocesses as the compile does, to the macro: -Wpedantic (which it needs to
# warn of line markers) leaves g++'s __cpp_runtime_arrays undefined, and a source could turn
# warnings off under `#ifdef __cpp_runtime_arrays`, unseen. So the macros the compile
# defines for an empty file and the check's are compared, and each that differs is put
# back as the compile has it by a file the check includes first (-include): RESTORE_H.
MACROS_SCRIPT = r"""    : >{empty}
    {compile} 2>/dev/null; {check} 2>/dev/null
    {{ tool grep -v -x -F -f "$checks/compile.h" "$checks/check.h"
      tool grep -v -x -F -f "$checks/check.h" "$checks/compile.h"; }} |
      tool sed -e 's/^#define \([^ (]*\).*/#undef \1/' >"$checks/restore.h"
    tool grep -v -x -F -f "$checks/check.h" "$checks/compile.h" >>"$checks/restore.h"
    tool rm -f -- {empty} "$checks/compile.h" "$checks/check.h"
"""
RESTORE_H = '"$checks/restore.h"'
BUILD_END = r"""tool rm -r -- "$checks"
printf 'end\n'
{compile} >&2 || exit
exec /bin/cat -- {binary}
"""
CHECKS_OUTPUT = '"$checks/out"'
CHECKED = re.compile(rb"(\d+) (\d+) (\d+)\n")
CHECKS_END = b"end\n"
WARNING = b"warning:"
# In what the preprocessor writes: a line marker (# LINE "FILE" FLAGS; flag 1 opens a file,
# 2 returns to one, 3 makes it a system header), a #pragma that turns warnings off or
# makes a system header.
MARKER = re.compile(rb'# (\d+) "((?:[^"\\]|\\.)*)"((?: \d+)*)')
SILENCES = re.compile(rb"#\s*pragma\s+(GCC|clang)\s+(diagnostic|system_header)\b\s*(\w*)")
# Of a student's diagnostic pragmas, the kind that turns a warning off; the others (push,
# pop, warning, error, fatal) leave it on, or make it an error, and cost nothing.
QUIETING = {b"ignored"}
# Where a system header lies: Linux's /usr; macOS's developer tools, Xcode and Homebrew's
# gcc, for a student's checker there.
HEADER_FOLDERS = (b"/usr/", b"/Library/Developer/", b"/Applications/", b"/opt/homebrew/")
ESCAPE = re.compile(rb'\\(?:([0-7]{1,3})|(.))', re.DOTALL)
# C++'s tokens that hold a `"` or could be taken for one that does, in what the preprocessor
# writes: a raw string's start (R"DELIM(, its end `)DELIM"`, maybe lines below, where a line
# that begins with # is the string's, not the preprocessor's), a string, a character, a
# number (1'000), a name (fooR"x" is a name and a string).
CODE_TOKEN = re.compile(rb"""(?P<raw>(?:u8|[uUL])?R"(?P<delimiter>[^ ()\\\t\v\f\n]{0,16})\()"""
                        rb"""|(?:u8|[uUL])?"(?:[^"\\]|\\.)*"|(?:u8|[uUL])?'(?:[^'\\]|\\.)*'"""
                        rb"""|\.?[0-9](?:[\w.]|'\w|[eEpP][+-])*|[A-Za-z_]\w*|.""", re.DOTALL)
ESCAPED = {b"n": b"\n", b"t": b"\t", b"r": b"\r"}

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
RENAMED = ("{name} is compiled as {safe}: a file name that begins with {first} reads as an "
           "option to the compiler")
SILENCING = "{file}: a #pragma turns the compiler's warnings off: counted as warnings"
SYSTEM_HEADER = ("{file}: made a system header (by a #pragma, a line marker or an include "
                 "through a system folder), whose warnings the compiler hides: counted as "
                 "warnings")
LINE_MARKERS = ("{file}: a line marker (# LINE \"FILE\" FLAGS), in it or in a header it "
                "includes, can make a system header of the rest, whose warnings the compiler "
                "hides: counted as warnings")
UNCHECKED = ("{file}: the preprocessor could not check it for warnings turned off ({why}): "
             "counted as warnings")
PREPROCESSOR_FAILED = "its exit status {status}"
UNREADABLE = "its output unreadable"
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
    built = build_record(program, files, outcome, time.monotonic() - started,
                    sandbox.memory)
    return keep_binary(built, outcome, scratch / f"built-{program.name}") if built.ok else built


def build_command(program, files: list) -> list:
    """The build's command: each compiled file's preprocessing, judged by `build_record`, then
    the compiler's, its messages to stderr, then the program to stdout."""
    script = [BUILD_START]
    if program.language.preprocess:
        script.append(CLANG_SCRIPT.format(compiler=shlex.quote(program.language.preprocess[0])))
        for name in program.compiled(files).values():
            commands = {compiler: [CHECKS_OUTPUT if part == OUTPUT else shlex.quote(part)
                                   for part in program.preprocess_argv(name, compiler == "clang")]
                        for compiler in ("clang", "gcc")}
            empty = f'"$checks/empty"{shlex.quote(Path(name).suffix)}'
            check = [empty if part == shlex.quote(f"./{name}") else
                     '"$checks/check.h"' if part == CHECKS_OUTPUT else part
                     for part in commands["gcc"]]
            macros = MACROS_SCRIPT.format(
                empty=empty, check=" ".join([*check, "-dM"]),
                compile=" ".join(empty if part == "EMPTY" else '"$checks/compile.h"'
                                 if part == "COMPILE_H" else shlex.quote(part)
                                 for part in program.macros_argv("EMPTY", "COMPILE_H")))
            commands["gcc"][1:1] = ["-include", RESTORE_H]
            script.append(CHECK_SCRIPT.format(macros=macros, **{
                compiler: " ".join(command) for compiler, command in commands.items()}))
    script.append(BUILD_END.format(compile=" ".join(map(shlex.quote, program.build_argv(files))),
                                   binary=shlex.quote(BINARY)))
    return ["/bin/sh", "-c", "".join(script), "build"]


def build_record(program, files: list, outcome, seconds: float, memory: int) -> Build:
    """What a finished build came to (`outcome`, a exactmark.running.run.Ran of `build_command`), in
    the marker's sandbox or in a student's checker alike: built or why not, its
    warnings (turning them off counts), its messages as shown, after our notes."""
    checks, binary = split(outcome.stdout)
    notes = [RENAMED.format(name=escaped(name), safe=escaped(safe), first=name[0])
             for name, safe in program.compiled(files).items() if safe != name]
    why, cases = failure(outcome, binary, memory)
    silenced = [] if why or not program.language.preprocess else judged(program, files, checks)
    messages = compiler_messages(outcome.stderr, notes + silenced)
    warnings = WARNING in outcome.stderr or bool(silenced)
    return Build(program.name, not why, warnings, messages, seconds, why,
                 cases=cases or Kind.NOT_BUILT)


def split(stdout: bytes) -> tuple:
    """(the build's folder, as named and as it is, and each compiled file's check: its
    preprocessor's status, the line markers in its source, its `#` lines; the program's
    bytes) from the build's stdout. The checks are None when they cannot be read, and
    the program then b""."""
    parts = stdout.split(b"\n", 2)
    if len(parts) < 3:
        return None, b""
    *folders, rest = parts
    checks, at = [], 0
    while not rest.startswith(CHECKS_END, at):
        found = CHECKED.match(rest, at)
        if not found:
            return None, b""
        at = found.end() + int(found[3])
        if at > len(rest):
            return None, b""
        checks.append((int(found[1]), int(found[2]), rest[found.end():at]))
    return (folders, checks), rest[at + len(CHECKS_END):]


def judged(program, files: list, checks) -> list:
    """Our notes on each compiled file whose warnings were turned off, or could not be
    checked; none when the build left them on."""
    compiled = list(program.compiled(files).values())
    if checks is None or len(checks[1]) != len(compiled):
        return [UNCHECKED.format(file=escaped(", ".join(compiled)), why=UNREADABLE)]
    folders, notes = checks[0], []
    for name, (status, markers, lines) in zip(compiled, checks[1]):
        source = f"./{name}".encode("utf-8", "surrogateescape")
        if status:
            notes.append(UNCHECKED.format(file=shown_name(source),
                                          why=PREPROCESSOR_FAILED.format(status=status)))
        elif markers:
            notes.append(LINE_MARKERS.format(file=shown_name(source)))
        else:
            notes += filter(None, [silenced(lines, source, folders)])
    return notes


def silenced(lines: bytes, source: bytes, folders: list) -> str:
    """Why the preprocessed file `source` has warnings turned off where a student wrote
    it ("" when it has not), from its `#` lines, where every line marker is the
    compiler's own (a source that holds one is counted before), and its lines that hold
    a `"`, which say which `#` lines are a raw string's text instead. The markers before the
    source's own first are the compiler's prelude. A file they open is a student's
    unless it is a system header in a system folder (`system`). A pragma in a student's
    file that ignores a warning or makes a system header counts; in a system header, one
    that is not undone (pop) before a student's file goes on."""
    started = prelude = False
    files = [(True, source)]  # each file open: whether it is a student's, its path
    pushed = 0  # diagnostic pushes of system headers not yet popped
    raw = None  # the end of the raw string the line is in: b')DELIM"'
    for line in lines.split(b"\n"):
        if raw is not None:  # a line of a raw string's text, up to its end: not ours to read
            end = line.find(raw)
            if end >= 0:
                raw = raw_string_open(line[end + len(raw):])
            continue
        if not line.startswith(b"#"):
            raw = raw_string_open(line)
            continue
        marker = MARKER.fullmatch(line)
        if marker:
            path, flags = unquoted(marker[2]), marker[3].split()
            if not started:
                prelude = prelude or path.startswith(b"<")
                started = prelude and path == source
                continue
            if b"1" in flags:
                files.append((not (b"3" in flags and system(path, folders)), path))
            elif b"2" in flags and len(files) > 1:
                files.pop()
            if files[-1][0] and pushed:
                return SILENCING.format(file=shown_name(files[-1][1]))
            if files[-1][0] and b"3" in flags:
                return SYSTEM_HEADER.format(file=shown_name(files[-1][1]))
            continue
        pragma = SILENCES.match(line)
        if not (started and pragma):
            continue
        if files[-1][0]:
            if pragma[2] == b"system_header" or pragma[3] in QUIETING:
                return SILENCING.format(file=shown_name(files[-1][1]))
            continue
        if pragma[2] == b"diagnostic":
            if pragma[3] == b"push":
                pushed += 1
            elif pragma[3] == b"pop":
                pushed = max(0, pushed - 1)
            elif not pushed:
                return SILENCING.format(file=shown_name(files[-1][1]))
    if not started:
        return UNCHECKED.format(file=shown_name(source), why=UNREADABLE)
    return ""


def raw_string_open(code: bytes):
    """The end (b')DELIM"') of a C++ raw string that `code`, a line of what the preprocessor
    wrote, leaves open; None when it leaves none."""
    at = 0
    while at < len(code):
        token = CODE_TOKEN.match(code, at)
        at = token.end()
        if token["raw"] is not None:
            end = b")" + token["delimiter"] + b'"'
            closed = code.find(end, at)
            if closed < 0:
                return end
            at = closed + len(end)
    return None


def system(path: bytes, folders: list) -> bool:
    """Whether `path`, a header the compiler found in a system folder, is one: a file
    that is where it says (as the marker sees it: the sandbox shows /usr as it is) in
    HEADER_FOLDERS, not in the build's folder (`folders`, as named and as it is), and
    not reached through /proc or /dev, whose links lead elsewhere for each process
    (/proc/self/cwd: the build's folder)."""
    real = os.path.realpath(path)
    return (path.startswith(b"/") and not {b"proc", b"dev"} & set(path.split(b"/"))
            and real.startswith(HEADER_FOLDERS) and os.path.isfile(real)
            and not any(inside(name, folder) for name in (path, real) for folder in folders))


def inside(path: bytes, folder: bytes) -> bool:
    return path.startswith(folder.rstrip(b"/") + b"/")


def unquoted(name: bytes) -> bytes:
    """A file's name as a line marker quotes it (C's escapes), as the compiler opened it."""
    return ESCAPE.sub(lambda found: bytes([int(found[1], 8) & 0xFF]) if found[1]
                      else ESCAPED.get(found[2], found[2]), name)


def shown_name(path: bytes) -> str:
    return escaped(path.decode("utf-8", "surrogateescape"))


def keep_binary(built: Build, outcome, folder: Path) -> Build:
    """The build, its program written from the build's stdout into the new `folder`, alone,
    under a name the marker chose (O_EXCL, O_NOFOLLOW): the snapshot its cases run from."""
    folder.mkdir(mode=0o700)
    fd = os.open(folder / BINARY, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755)
    with os.fdopen(fd, "wb") as file:
        file.write(split(outcome.stdout)[1])
    return replace(built, folder=folder)


def sources_of(program, root: Path, scratch: Path) -> tuple:
    """(the program's submitted files, a folder holding them alone, each compiled file
    under the name `program.compiled` gives it): the build's snapshot."""
    files, _ = program.files(root)
    compiled = program.compiled(files)
    folder = scratch / f"sources-{program.name}"
    folder.mkdir(mode=0o700)
    for name in files:
        shutil.copyfile(root / name, folder / compiled.get(name, name), follow_symlinks=False)
    return files, folder


def failure(outcome, binary: bytes, memory: int) -> tuple:
    """(why the build made no program, `binary` the one it made, what its cases are then);
    ("", None) when it did."""
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
           else NOTHING_MADE if not binary else "")
    return why, Kind.NOT_BUILT if why else None


def compiler_messages(stderr: bytes, notes: list) -> str:
    """The compiler's first lines, escaped as every byte a student caused is (only \\n ends
    a line: a \\r or a form feed is shown, not obeyed), after our own notes."""
    lines = split_lines(stderr.decode("utf-8", "surrogateescape"))
    kept = notes + [escaped(line.rstrip("\n"), most=300) for line in lines[:SHOWN_LINES]]
    if len(lines) > SHOWN_LINES:
        kept.append(MORE_LINES.format(count=len(lines) - SHOWN_LINES))
    return "\n".join(kept)
