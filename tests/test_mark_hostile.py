"""The marker against deliberately hostile submissions, the attacks of the
hardening issue (numbered as there). Each test is one attack, and asserts that
it earns no mark it did not earn and does no damage: files outside untouched,
nothing left running, nothing left in /tmp by the marking's users, the
marker's exit status, report and scratch folder intact, no Traceback on its
stderr.

Every victim outside a submission is a file the test makes itself.
"""

import ctypes
import errno
import json
import os
import re
import resource
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT
from exactmark.kit.assignment import load, names
from exactmark.running.limits import WRITTEN_BYTES, mebibytes
from exactmark.marking.mark import GOLDEN_READABLE, golden_copies_readable
from exactmark.marking.report import WHAT_IT_SUGGESTS
from exactmark.base.tree import remove_tree
from tests.test_mark import TIMEOUT, assignment_of, processes_of, submission

IS_ROOT = os.geteuid() == 0
IN_CI = bool(os.environ.get("KIT_CI"))  # .ci/run: every layer must be there, nothing skips
needs_root = pytest.mark.skipif(not IS_ROOT, reason="only as root does the marker run each case "
                                "as a throwaway user in a control group")
NAMESPACES = pytest.param("namespaces", id="namespaces", marks=pytest.mark.skipif(
    not os.environ.get("KIT_CI") and (shutil.which("bwrap") is None or not IS_ROOT),
    reason="--isolation namespaces is tested here with bubblewrap (bwrap) installed, as root"))
FALLBACK = pytest.param("fallback", id="fallback")
CONTAINER = pytest.param("container", id="container", marks=pytest.mark.skipif(
    not os.environ.get("KIT_CI") and (not IS_ROOT or shutil.which("unshare") is None),
    reason="the container replica (tests/container.py) is built as root with util-linux's unshare"))
ISOLATIONS = [NAMESPACES, FALLBACK, CONTAINER]  # the last: the fallback in a Docker-like container
REPLICA = ["unshare", "--mount", "--propagation", "private", sys.executable, "-m",
           "tests.container"]
FILES_HIDDEN = "Reach: the run sees only the system's programs"
SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm")  # what the fallback promises to clean
SCORE_LINE = re.compile(r"^Score: \d+\.\d\d/\d+\.\d\d in \d+\.\d s$")
ESCAPES = {"\x1b": "ESC", "\x07": "BEL", "\x9b": "U+009B (CSI)", "\u202e": "U+202E (right-to-left)"}


def write_program(folder: Path, name: str, code: str, **values) -> Path:
    """`folder/name` holding `code`, after a line `NAME = value` for each of `values`."""
    constants = "".join(f"{key.upper()} = {value!r}\n" for key, value in values.items())
    path = folder / name
    path.write_text(constants + textwrap.dedent(code), encoding="utf-8")
    return path


def children_cpu_seconds() -> float:
    """The CPU time of this process's children that have ended, and of all they waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


@dataclass
class Marked:
    """One marking: what the marker said and wrote."""
    case: str  # the attack, to name in failures
    status: int
    report: str  # the marker's stdout
    stderr: str
    written: dict  # results.json, {} when none was written
    cpu_seconds: float = None  # of the marker and all it waited for, where it ran alone (`mark`)

    @property
    def tests(self) -> dict:
        return {test["name"]: test for test in self.written.get("tests", [])}

    @property
    def users(self) -> set:
        return set(self.written.get("extra_data", {}).get("users", []))

    @property
    def everything(self) -> str:
        """The report, the marker's stderr and results.json, to search for a leak."""
        return "\n".join([self.report, self.stderr, json.dumps(self.written, ensure_ascii=False)])

    def output(self, case_id: str) -> str:
        assert case_id in self.tests, f"{self.case}: no verdict on {case_id}:\n{self.report}"
        return self.tests[case_id]["output"]

    def assert_reported(self, status: int = 1) -> None:
        """The marker ended on its own, with its whole report and results.json."""
        assert self.status == status, \
            f"{self.case}: the marker's exit status is {self.status}, want {status}:\n" \
            f"{self.report[-3000:]}\n{self.stderr[-3000:]}"
        last = self.report.rstrip("\n").rsplit("\n", 1)[-1]
        assert SCORE_LINE.match(last), f"{self.case}: the report does not end with its score:\n" \
                                       f"{self.report[-3000:]}"
        assert "Interrupted" not in self.report, f"{self.case}: the marking was interrupted"
        assert "marker error" not in self.report, f"{self.case}: the marker failed:\n{self.report}"
        assert self.written, f"{self.case}: no results.json"

    def assert_refused(self, message: str) -> None:
        """Refused before anything ran: exit status 2, a message, no report, and a
        results.json (where one was asked for) of 0 marks that says why, no test in it."""
        assert self.status == 2, f"{self.case}: exit status {self.status}, want 2 (refused):\n" \
                                 f"{self.report[-2000:]}\n{self.stderr[-2000:]}"
        assert message in self.stderr, f"{self.case}: the refusal does not say {message!r}:\n" \
                                       f"{self.stderr[-2000:]}"
        assert self.report == "", f"{self.case}: something was marked"
        assert not self.written or (self.written["score"] == 0 and not self.written.get("tests")
                                    and message in self.written["output"]), \
            f"{self.case}: results.json marks something: {self.written}"


@dataclass
class Running:
    process: subprocess.Popen
    scratch: Path
    results: Path


class Markings:
    """Runs the marker as `tests.test_mark.mark` does, each run with a TMPDIR of its own
    (its scratch folder must be gone afterwards), with two differences. The TMPDIRs lie
    in `world`, a folder in /tmp that other users may cross: in the fallback the runs'
    throwaway users must reach their homes in the scratch folder, and tmp_path, under
    pytest's 0700 folder, is out of their reach. And a zombie is not a process left
    running (see `processes_of`)."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.world = Path(tempfile.mkdtemp(prefix="hostile-", dir="/tmp"))
        self.world.chmod(0o755)
        self.users, self.groups, self.count = set(), set(), 0

    def folder(self, name: str, mode: int) -> Path:
        path = self.world / name
        path.mkdir()
        path.chmod(mode)
        return path

    def start(self, folder: Path, *options, env: dict = None, assignment="seeded",
              replica: tuple = ()) -> Running:
        """`--isolation container` is the fallback as a Docker-like container forces it: the
        marker runs in tests/container.py's replica (with `replica`'s options), asked for
        --isolation auto."""
        self.count += 1
        scratch = self.folder(f"tmpdir-{self.count}", 0o755)
        results = self.tmp_path / f"results-{self.count}.json"
        options, contained = list(options), False
        if "container" in options and options[options.index("container") - 1] == "--isolation":
            options[options.index("container")], contained = "auto", True
        argv = [sys.executable, "-m", "exactmark.marking.mark", str(folder), "--assignment", str(assignment),
                "--json", str(results), "--timeout", str(TIMEOUT), "--jobs", "2", *options]
        if contained:
            argv = [*REPLICA, *replica, "--", *argv]
        process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env={**os.environ, "TMPDIR": str(scratch), **(env or {})})
        return Running(process, scratch, results)

    def finish(self, running: Running, case: str) -> Marked:
        """Wait for the marker; assert it left nothing behind."""
        stdout, stderr = running.process.communicate(timeout=300)
        written = json.loads(running.results.read_text()) if running.results.exists() else {}
        marked = Marked(case, running.process.returncode, stdout.decode("utf-8", "replace"),
                        stderr.decode("utf-8", "replace"), written)
        self.users |= marked.users
        assert "Traceback" not in marked.stderr, \
            f"{case}: a Traceback on the marker's stderr:\n{marked.stderr[-3000:]}"
        assert marked.status >= 0, f"{case}: the marker was killed by signal {-marked.status}"
        left = processes_of(marked.users, str(running.scratch))
        assert not left, f"{case}: processes of this marking left running: {left}"
        self.groups.update(written.get("extra_data", {}).get("cgroups", []))
        groups = [group for group in written.get("extra_data", {}).get("cgroups", [])
                  if Path(group).exists()]
        assert not groups, f"{case}: the marker left its control groups: {sorted(groups)}"
        stray = sorted(str(path) for path in running.scratch.iterdir())
        assert not stray, f"{case}: the marker left its scratch folder behind: {stray[:5]}"
        stray = owned_by(marked.users, SHARED_TMP)
        assert not stray, f"{case}: the marking's users left in the shared temporary " \
                          f"folders: {stray}"
        return marked

    def mark(self, folder: Path, *options, case: str, env: dict = None,
             assignment="seeded", replica: tuple = ()) -> Marked:
        """One marking, alone: its CPU time is what this process's children used meanwhile
        (a test waits on one marking at a time), a cost a loaded machine does not stretch."""
        before = children_cpu_seconds()
        marked = self.finish(self.start(folder, *options, env=env, assignment=assignment,
                                        replica=replica), case)
        return replace(marked, cpu_seconds=children_cpu_seconds() - before)

    def clean(self) -> None:
        """Whatever the marking's users left, should a test have failed: their processes,
        their files in the shared folders, their System V IPC objects; the control groups
        the markings named (results.json's extra_data); the world folder."""
        for uid in self.users:
            if processes_of({uid}):
                subprocess.run(["kill", "-KILL", "-1"], user=uid, group=uid, extra_groups=[],
                               capture_output=True)  # every process of that user, at once
        for path in owned_by(self.users, SHARED_TMP + ("/run/lock",)):
            remove_tree(Path(path))
        for kind, remove in IPC_REMOVERS.items():
            for number in ipc_objects(kind, self.users):
                remove(number)
        for group in map(Path, self.groups):
            for run in group.glob("run-*"):
                _rmdir(run)
            _rmdir(group)
        remove_tree(self.world)


@pytest.fixture
def markings(tmp_path):
    markings = Markings(tmp_path)
    yield markings
    markings.clean()


def owned_by(users: set, folders) -> list:
    found = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid in users:
                    found.append(entry.path)
            except OSError:
                pass
    return found


def ipc_objects(kind: str, users: set) -> list:
    """The ids of System V IPC objects ("shm", "sem", "msg") that belong to `users`."""
    try:
        header, *rows = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
    except OSError:
        return []
    names = header.split()
    return [int(row.split()[1]) for row in rows if int(row.split()[names.index("uid")]) in users]


_libc = ctypes.CDLL(None, use_errno=True)
IPC_RMID = 0
IPC_REMOVERS = {"shm": lambda number: _libc.shmctl(number, IPC_RMID, None),
                "sem": lambda number: _libc.semctl(number, 0, IPC_RMID),
                "msg": lambda number: _libc.msgctl(number, IPC_RMID, None)}


def _rmdir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def strings(value) -> list:
    """Every text in a JSON value, decoded (JSON writes ESC as \\u001b: a reader gets ESC)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    return [text for item in value for text in strings(item)] if isinstance(value, list) else []


def a_file(path: Path, text: str, mode: int) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def state(path: Path) -> tuple:
    """What must not change of a victim: its owner, mode, and content."""
    info = os.lstat(path)
    content = path.read_bytes() if stat.S_ISREG(info.st_mode) else sorted(os.listdir(path))
    return info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode), stat.S_IFMT(info.st_mode), content


# 1. Root's file operations racing the student


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_subfolder_swapped_for_a_link_leads_root_nowhere(markings, tmp_path, isolation):
    """Attack 1: the submission folder is open to all (0777). Its program, run in a case,
    swaps the ORIGINAL folder's subfolder `sub` for a link to a root-only folder (or to the
    kit's golden outputs), again and again, while later cases run and while a second
    marking copies that folder, hoping that root copies, chowns or hands over what the
    link points to. It prints whatever its own copy of `sub` holds."""
    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    token = "SECRET-7d1f0c"
    a_file(secret / "secret.txt", f"{token}\n", 0o600)
    golden = EXPECTED_OUTPUTS / "solitaire_1"
    before = {path: state(path) for path in (secret, secret / "secret.txt", golden)}
    folder = submission(markings.folder("open", 0o755))
    folder.chmod(0o777)
    (folder / "sub").mkdir()
    a_file(folder / "sub" / "notes.txt", "the student's own notes\n", 0o644)
    write_program(folder, "solitaire_1.py", """\
        import os, sys, time
        for name in ("sub/seed_0.out", "sub/secret.txt"):  # what this case's copy holds
            if os.path.exists(name):
                text = open(name).read()
                sys.stdout.write(text)
                print("GOT", name, text.splitlines()[0], file=sys.stderr)
        if not os.path.isdir(ORIGINAL):
            sys.exit("the original submission is out of sight")
        try:
            open(os.path.join(ORIGINAL, "started"), "x").close()
        except FileExistsError:  # an earlier case's
            pass
        sub, aside = os.path.join(ORIGINAL, "sub"), os.path.join(ORIGINAL, "aside-%d" % os.getpid())
        deadline = time.time() + 1.2
        while time.time() < deadline:
            for target in TARGETS:
                try:
                    os.rename(sub, aside)
                    os.symlink(target, sub)
                    time.sleep(0.0005)
                    os.unlink(sub)
                    os.rename(aside, sub)
                except OSError:
                    pass
        """, original=str(folder), targets=[str(secret), str(golden)])
    first = markings.start(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                           "--only", "solitaire_1/seed_27", "--only", "solitaire_1/seed_4")
    # Until a run has reached the original folder, or the marking has ended without one
    # (where files are hidden): a moment seen, not a guessed number of seconds.
    while not (folder / "started").exists() and first.process.poll() is None:
        time.sleep(0.01)
    reached = (folder / "started").exists()  # the fallback's clean-up removes it after the run
    second = markings.start(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0")
    for marked in (markings.finish(first, "attack 1, the marking that runs the swapping"),
                   markings.finish(second, "attack 1, a marking that copies during the swapping")):
        marked.assert_reported()
        assert marked.written["score"] == 0, \
            f"{marked.case}: scored {marked.written['score']} with golden outputs or a " \
            f"secret reached through a link:\n{marked.report[:3000]}"
        assert token not in marked.everything, f"{marked.case}: the secret reached a run"
    for path, was in before.items():
        assert state(path) == was, f"attack 1: {path} changed: {was} -> {state(path)}"
    hidden = FILES_HIDDEN in marked.report
    assert reached == (not hidden), \
        "attack 1: the program reaches the original folder only where files are not hidden"


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_removing_a_home_cannot_be_led_into_another_folder(markings, isolation):
    """Attack 1, second form: case A leaves a home holding a/b/c (all 0777, c full of
    names) and tells where it is; case B, running at the same time under another user,
    waits until root, removing A's home, has entered b, then moves b into a folder open
    to all (here `shared`, a 1777 folder the test made, standing in for /tmp). Root
    climbs from b by '..': does it then empty `shared`? (The fallback has its runs' homes
    emptied by their own users, who can remove nothing they could not remove anyway.)"""
    shared = markings.folder("shared", 0o1777)
    precious = a_file(shared / "precious.txt", "root's own file\n", 0o600)
    (shared / "records").mkdir(mode=0o700)
    ledger = a_file(shared / "records" / "ledger.txt", "root's records\n", 0o600)
    before = {path: state(path) for path in (precious, shared / "records", ledger)}
    folder = markings.folder("submission", 0o700)
    write_program(folder, "solitaire_1.py", """\
        import os, sys, time
        home = os.getcwd()
        try:
            os.mkdir(os.path.join(SHARED, "case-a"))
        except FileExistsError:
            case_a = False
        except OSError:
            sys.exit("nothing shared to be seen")
        else:
            case_a = True
        if case_a:  # a home to be removed, and where it is
            os.chmod(home, 0o711)
            b = os.path.join(home, "a", "b")
            os.makedirs(os.path.join(b, "c"))
            open(os.path.join(b, "c", "0"), "w").close()
            for i in range(1, 20000):  # names of one file: quick to make, a while to remove
                os.link(os.path.join(b, "c", "0"), os.path.join(b, "c", str(i)))
            open(os.path.join(b, "flag"), "w").close()
            for path in (os.path.join(home, "a"), b, os.path.join(b, "c")):
                os.chmod(path, 0o777)
            with open(os.path.join(SHARED, "where.new"), "w") as note:
                note.write(b)
            os.rename(os.path.join(SHARED, "where.new"), os.path.join(SHARED, "where"))
            sys.exit(0)
        deadline = time.time() + 2.8
        while not os.path.exists(os.path.join(SHARED, "where")):
            if time.time() > deadline:
                sys.exit("case A never said where its home is")
            time.sleep(0.001)
        b = open(os.path.join(SHARED, "where")).read()
        while os.path.lexists(os.path.join(b, "flag")):  # root removes it on entering b
            if time.time() > deadline:
                sys.exit("root never entered b")
        os.rename(b, os.path.join(SHARED, "b"))
        sys.exit("moved b while root was inside")
        """, shared=str(shared))
    marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                           "--only", "solitaire_1/seed_27", case="attack 1, removal led astray")
    after = {path: state(path) if os.path.lexists(path) else "removed" for path in before}
    assert after == before, f"{marked.case}: root removed or changed files of a folder it was " \
                            f"led into: {sorted(str(p) for p in before if after[p] != before[p])}" \
                            f"\n{marked.report[:1500]}"
    marked.assert_reported()


# 2. Golden outputs, and another submission, out of reach


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_the_golden_outputs_are_out_of_reach(markings, tmp_path, isolation):
    """Attack 2: the program looks for expected_outputs/solitaire_1/seed_0.out where the kit
    is, in /work, in a second checkout of the kit that every user may read (the test makes
    one, and tells the program where), in a walk from / (bounded), and through `git show`
    of the kit, and prints it if found. Where files are hidden (namespaces, or Landlock in
    the fallback) it finds nothing: 0 for the case. Where they are not, the marker must say
    that other users can read the golden outputs."""
    copy = markings.folder("second-checkout", 0o755) / "expected_outputs" / "solitaire_1"
    copy.mkdir(parents=True)
    for path in (copy.parent, copy):
        path.chmod(0o755)
    a_file(copy / "seed_0.out", (EXPECTED_OUTPUTS / "solitaire_1" / "seed_0.out").read_text(),
           0o644)
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import os, subprocess, sys
        WANT = os.path.join("expected_outputs", "solitaire_1", "seed_0.out")

        def walk(top, depth=6, budget=60000):
            pending = [(top, 0)]
            while pending and budget > 0:
                folder, level = pending.pop()
                try:
                    entries = list(os.scandir(folder))
                except OSError:
                    continue
                for entry in entries:
                    budget -= 1
                    if entry.path.endswith(WANT):
                        yield entry.path
                    elif (level < depth and entry.path not in ("/proc", "/sys", "/dev")
                          and entry.is_dir(follow_symlinks=False)):
                        pending.append((entry.path, level + 1))

        def places():
            yield os.path.join(KIT, WANT)
            yield os.path.join(COPY, "seed_0.out")
            yield os.path.join("/work", "main", WANT)
            yield from walk("/")

        for path in places():
            try:
                sys.stdout.write(open(path).read())
                sys.exit(0)
            except OSError:
                pass
        try:
            shown = subprocess.run(["git", "-C", KIT, "show", "HEAD:" + WANT],
                                   capture_output=True, timeout=2)
            sys.stdout.write(shown.stdout.decode())
        except (OSError, subprocess.SubprocessError):
            pass
        """, kit=str(ROOT), copy=str(copy))
    marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                           case=f"attack 2, golden outputs ({isolation})")
    if IN_CI:
        assert FILES_HIDDEN in marked.report, f"{marked.case}: CI must hide files:\n" \
                                              f"{marked.report[:600]}"
    if FILES_HIDDEN in marked.report:
        assert marked.tests["solitaire_1/seed_0"]["score"] == 0, \
            f"{marked.case}: the program found the golden output:\n{marked.report[:2000]}"
    else:
        warning = GOLDEN_READABLE.format(path=EXPECTED_OUTPUTS)
        assert EXPECTED_OUTPUTS not in golden_copies_readable() or warning in marked.stderr, \
            f"{marked.case}: other users can read the golden outputs, and the marker does not " \
            f"warn:\n{marked.stderr}"
    marked.assert_reported(status=0 if marked.written["score"] else 1)


@needs_root
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_build_cannot_compile_the_golden_outputs_in(markings, tmp_path, isolation):
    """Attack 2 at build time: a C++ file that has the assembler copy the golden output
    into the program (.incbin), from the kit or from a second checkout every user may
    read, and prints it. The build runs under the layers a run has: where files are
    hidden, the compiler finds neither, and the case earns nothing."""
    golden = EXPECTED_OUTPUTS / "hoyle_cli" / "short_game.out"
    copy = markings.folder("second-checkout", 0o755) / "short_game.out"
    a_file(copy, golden.read_text(encoding="utf-8"), 0o644)
    folder = tmp_path / "submission"
    folder.mkdir()
    branches = "".join(f'#{"if" if number == 0 else "elif"} __has_include("{path}")\n'
                       f'asm(".section .rodata\\n.global golden\\ngolden:\\n'
                       f'.incbin \\"{path}\\"\\n.byte 0\\n.text");\n'
                       for number, path in enumerate((golden, copy)))
    a_file(folder / "main.cpp", "#include <iostream>\n" + branches +
           '#else\nconst char golden[] = "";\n#endif\nextern const char golden[];\n'
           'int main() { std::cout << golden; }\n', 0o644)
    marked = markings.mark(folder, "--isolation", isolation, "--only", "calculation_cpp/short_game",
                           assignment="calculation_cpp",
                           case=f"attack 2 at build time, golden outputs ({isolation})")
    if IN_CI:
        assert FILES_HIDDEN in marked.report, f"{marked.case}: CI must hide files"
    if FILES_HIDDEN in marked.report:
        assert marked.tests["calculation_cpp/short_game"]["score"] == 0, \
            f"{marked.case}: the build compiled the golden output in:\n{marked.report[:2000]}"
    marked.assert_reported(status=0 if marked.written["score"] else 1)


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_two_markers_at_once_neither_sees_the_other(markings, tmp_path, isolation):
    """Attacks 2 and 10: two markings at once. One marks a correct (if slow) submission that
    holds a private file; the other marks a program that hunts for that file for as long
    as it may: homes named in /proc/*/cmdline, /proc/*/cwd and /proc/*/root, the markers'
    scratch folders. Both finish with the right scores; the hunt finds nothing."""
    (tmp_path / "victim").mkdir()
    (tmp_path / "hunter").mkdir()
    victim = submission(tmp_path / "victim", "solitaire_1.py", "def main() -> None:\n",
                        "def main() -> None:\n    __import__('time').sleep(0.5)\n")
    token = "PRIVATE-5c2e9a"
    a_file(victim / "private_notes.txt", f"{token}\n", 0o644)
    hunter = submission(tmp_path / "hunter")
    write_program(hunter, "solitaire_1.py", """\
        import glob, os, sys, time
        def places():
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                yield "/proc/%s/cwd" % pid
                yield "/proc/%s/root/home/student" % pid
                try:
                    argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\\0")
                except OSError:
                    continue
                for arg in argv:
                    if arg.startswith(b"/"):  # the launcher names the home and the snapshot,
                        path = arg.decode(errors="replace")  # a run's program lies in its home
                        for folder in (path, os.path.dirname(path)):
                            named.add(folder)
                            yield folder
            yield from glob.glob(os.path.join(WORLD, "*", "marking-*", "*"))  # their TMPDIRs
        found, tried, named, deadline = set(), set(), set(), time.time() + 2.5
        while time.time() < deadline and not found:
            for place in places():
                tried.add(place)
                try:
                    if TOKEN in open(os.path.join(place, "private_notes.txt")).read():
                        found.add(place)
                except (OSError, UnicodeDecodeError):
                    pass
        if found:
            sys.exit("FOUND %s in %s" % (TOKEN, sorted(found)))
        sys.exit("nothing found in %d places, %d named by a program" % (len(tried), len(named)))
        """, token=token, world=str(markings.world))
    only = [option for seed in (0, 27, 4, 8) for option in ("--only", f"solitaire_1/seed_{seed}")]
    victims = markings.start(victim, "--isolation", isolation, *only)
    hunting = markings.start(hunter, "--isolation", isolation, "--only", "solitaire_1/seed_0")
    hunted = markings.finish(hunting, f"attack 2, the hunting marking ({isolation})")
    marked = markings.finish(victims, f"attack 10, the hunted marking ({isolation})")
    assert token not in hunted.everything, \
        f"{hunted.case}: a run read another marking's private file:\n" \
        f"{hunted.output('solitaire_1/seed_0')[:1000]}"
    hunted.assert_reported()
    assert hunted.written["score"] == 0
    marked.assert_reported(status=0)
    assert all(test["score"] == test["max_score"] for test in marked.tests.values()) \
        and len(marked.tests) == 4, \
        f"{marked.case}: a correct submission lost marks to a marking beside it:\n{marked.report}"
    assert not marked.users & hunted.users, "two markings at once shared a throwaway user"


# 4. A submission that is a link


def test_a_linked_submission_is_refused(markings, tmp_path):
    """Attack 4: the folder given to mark is a symbolic link (to a folder the marker should
    not read, or one that changes under it): refused, with a clear message, nothing marked."""
    link = tmp_path / "link"
    link.symlink_to(submission(tmp_path), target_is_directory=True)
    marked = markings.mark(link, case="attack 4, a linked submission")
    marked.assert_refused("is a link; give the folder itself")


# 6. The marker never dies


def test_a_program_that_ignores_a_large_stdin_does_not_stop_the_marker(markings, tmp_path):
    """Attack 6a: the program exits at once, without reading its stdin, while the case feeds
    it 300 KB (hoyle_cli/many_digits): the marker's write to the closed pipe fails, and
    the marker goes on to its report (exit status 1, not a signal)."""
    folder = submission(tmp_path)
    write_program(folder, "hoyle_cli.py", "raise SystemExit(3)\n")
    cases = ["hoyle_cli/many_digits", "hoyle_cli/long_lines", "hoyle_cli/eof_at_main_menu"]
    assert len((EXPECTED_OUTPUTS / "hoyle_cli" / "many_digits.in").read_bytes()) > 1 << 16
    assignment = assignment_of(tmp_path / "large_inputs.toml", "hoyle_cli",  # these kit cases
                               [case.split("/")[1] for case in cases])  # alone
    marked = markings.mark(folder, case="attack 6a, a large stdin never read",
                           assignment=assignment)
    marked.assert_reported()
    for case in cases:
        assert marked.output(case).startswith("wrong"), \
            f"{marked.case}: {case}: {marked.output(case)[:300]}"


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_tree_3000_folders_deep_is_removed(markings, tmp_path, isolation):
    """Attack 6b: the program makes a tree 3,000 folders deep in its home and in its TMPDIR
    (too deep for any recursive removal, and for paths): the marker does not crash, and
    removes both."""
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import os, tempfile
        for top in (os.getcwd(), tempfile.gettempdir()):  # its home, its TMPDIR
            os.chdir(top)
            os.mkdir("deep-%d" % os.getpid())
            os.chdir("deep-%d" % os.getpid())
            for _ in range(3000):
                os.mkdir("d")
                os.chdir("d")
        print("3000 deep, twice")
        """)
    marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                           case=f"attack 6b, a tree 3000 deep ({isolation})")
    marked.assert_reported()
    assert marked.output("solitaire_1/seed_0").startswith("wrong output"), \
        marked.output("solitaire_1/seed_0")[:300]


def test_a_submission_1200_folders_deep_is_refused(markings, tmp_path):
    """Attack 6c: the submission itself is 1,200 folders deep: refused clearly (exit 2),
    with no RecursionError, before anything runs."""
    folder = submission(tmp_path)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(1200):
            os.mkdir("deep", dir_fd=fd)
            deeper = os.open("deep", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
    finally:
        os.close(fd)
    try:
        marked = markings.mark(folder, case="attack 6c, a submission 1200 deep")
        marked.assert_refused("has folders nested more than 20 deep")
        assert "RecursionError" not in marked.stderr
        assert marked.cpu_seconds < 10, \
            f"{marked.case}: refused after {marked.cpu_seconds:.1f} s of CPU"
    finally:
        remove_tree(folder / "deep")  # pytest's own cleanup recurses, and fails that deep


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_daemon_dies_with_its_run(markings, tmp_path, isolation):
    """Attack 6d: the program daemonises (double fork, setsid, its output closed) and
    sleeps; a second daemon keeps forking to change its process id. Nothing of either
    is left running once the marker ends (the helper checks every process of the
    marking's users)."""
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import os, time
        def daemon(life):
            if os.fork():
                return
            os.setsid()
            if os.fork():
                os._exit(0)
            quiet = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(quiet, fd)
            life()
            os._exit(0)

        def sleep():
            time.sleep(60)

        def hop():  # a new process id all the time, in a new session each time
            end = time.time() + 60
            while time.time() < end:
                try:
                    if os.fork():
                        os._exit(0)
                    os.setsid()
                except OSError:
                    pass

        daemon(sleep)
        daemon(hop)
        print("daemons started")
        """)
    marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                           case=f"attack 6d, daemons ({isolation})")
    marked.assert_reported()
    assert marked.output("solitaire_1/seed_0").startswith("wrong output")
    assert marked.cpu_seconds < TIMEOUT + 15, \
        f"{marked.case}: marking took {marked.cpu_seconds:.1f} s of CPU"


# 7. Cost outside the limits


@needs_root
def test_eight_children_of_600_mb_each_are_killed(markings, tmp_path):
    """Attack 7a: 8 children, each filling 600 MB (every page touched): 4.8 GB in all, far
    over the run's 1 GiB. The run is killed (out of memory, or a crash); the marker,
    outside the run's control group, lives on."""
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import os, time
        children = []
        for _ in range(8):
            pid = os.fork()
            if pid == 0:
                block = b"x" * (600 << 20)
                time.sleep(0.2)
                os._exit(0)
            children.append(pid)
        for pid in children:
            os.waitpid(pid, 0)
        print("4.8 GB held")
        """)
    marked = markings.mark(folder, "--only", "solitaire_1/seed_0", "--timeout", "6",
                           case="attack 7a, 4.8 GB in 8 children")  # ~2 s, even when slowed
    marked.assert_reported()
    verdict = marked.output("solitaire_1/seed_0")
    assert verdict.startswith(("out of memory", "crash")), f"{marked.case}: {verdict[:300]}"
    assert "4.8 GB held" not in verdict


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_300_mib_written_to_tmp_are_capped_and_removed(markings, tmp_path, isolation):
    """Attack 7b: the program writes 300 MiB to its TMPDIR, in files under the 16 MiB limit
    per file. Under namespaces the private /tmp's size cap stops it; in the fallback the
    marker's watch stops the run over its share of the disk, and says so; in every
    isolation, nothing of it is left once the marker ends."""
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import os, sys, tempfile
        written, chunk = 0, b"x" * (1 << 20)
        try:
            for i in range(20):
                name = os.path.join(tempfile.gettempdir(), "fill-%d-%d" % (os.getpid(), i))
                with open(name, "wb") as file:
                    for _ in range(15):
                        file.write(chunk)
                        written += 1
        except OSError as problem:
            sys.exit("stopped after %d MiB: %s" % (written, problem.strerror))
        sys.exit("wrote %d MiB" % written)
        """)
    marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                           case=f"attack 7b, 300 MiB in TMPDIR ({isolation})")
    marked.assert_reported()
    verdict = marked.output("solitaire_1/seed_0")
    if isolation == "namespaces":
        stopped = re.search(r"stopped after (\d+) MiB: No space left on device", verdict)
        assert stopped and int(stopped[1]) <= 64, f"{marked.case}: not capped: {verdict[:400]}"
    else:
        assert verdict.startswith(f"output too large: it wrote more than "
                                  f"{mebibytes(WRITTEN_BYTES)} of files"), \
            f"{marked.case}: not stopped over its share: {verdict[:400]}"


def test_a_submission_of_20000_files_is_refused_fast(markings, tmp_path):
    """Attack 7c: 20,000 empty files in the submission (names of one empty file: as many
    to walk, quicker to make): refused clearly (exit 2) in under 10 s of CPU, copying nothing."""
    folder = submission(tmp_path)
    many = folder / "many"
    many.mkdir()
    (many / "0").touch()
    for number in range(1, 20_000):
        os.link(many / "0", many / str(number))
    marked = markings.mark(folder, case="attack 7c, 20000 files")
    marked.assert_refused("holds more than 2000 files and folders")
    assert marked.cpu_seconds < 10, \
        f"{marked.case}: refused after {marked.cpu_seconds:.1f} s of CPU"


def test_4_mib_of_nul_bytes_keep_the_report_small(markings, tmp_path):
    """Attack 7d: 4 MiB of NUL bytes on stdout, in one line (just within the output cap):
    the report and results.json stay small, and the marker ends fast."""
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import sys
        sys.stdout.buffer.write(b"\\0" * (4 << 20))
        """)
    marked = markings.mark(folder, "--only", "solitaire_1/seed_0", case="attack 7d, 4 MiB of NULs")
    marked.assert_reported()
    assert marked.output("solitaire_1/seed_0").startswith("wrong output")
    size = len(json.dumps(marked.written))
    assert len(marked.report) < 200_000 and size < 200_000, \
        f"{marked.case}: a report of {len(marked.report)} characters, results.json of {size}"
    assert marked.cpu_seconds < TIMEOUT + 15, \
        f"{marked.case}: marking took {marked.cpu_seconds:.1f} s of CPU"


# 8. The report shows the student's bytes, never runs them


def test_escape_sequences_of_a_run_are_shown_not_run(markings, tmp_path):
    """Attack 8: the program writes, on stdout and stderr, a line that would erase the line
    above and print a false "pass" on a terminal, an OSC that retitles it, an 8-bit CSI,
    a right-to-left override; then it crashes with them in its message. Even its folder's
    name holds an escape, and a byte that is not UTF-8. The report and results.json hold
    none of these characters, and show them escaped (⟨U+001B⟩ ..., ⟨\\xff⟩)."""
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import sys
        print(EVIL)
        sys.stdout.flush()
        sys.stderr.write(EVIL + "\\n")
        raise RuntimeError(EVIL)
        """, evil="\x1b[2K\x1b[1A  pass             solitaire_1/seed_0 \x1b]0;title\x07 "
                  "\x9b31m red \u202eevil")
    folder = folder.rename(tmp_path / os.fsdecode(b"sub\xff\x1b]0;pwned\x07mission"))
    marked = markings.mark(folder, "--only", "solitaire_1/seed_0", case="attack 8, escapes")
    marked.assert_reported()
    results_text = "\n".join(strings(marked.written))  # as Gradescope shows them
    for where, text in (("the report", marked.report), ("results.json", results_text)):
        found = [name for char, name in ESCAPES.items() if char in text]
        assert not found, f"{marked.case}: {where} holds {', '.join(found)}"
        for shown in ("⟨U+001B⟩", "⟨U+0007⟩", "⟨U+009B⟩", "⟨U+202E⟩", "⟨\\xff⟩"):
            assert shown in text, f"{marked.case}: {where} does not show {shown}"
    assert not re.search(r"^  pass", marked.report, re.M), \
        f"{marked.case}: a pass line in the report:\n{marked.report[:2000]}"
    assert marked.output("solitaire_1/seed_0").startswith("crash")


# 9. No free marks


def test_empty_programs_score_nothing(markings, tmp_path):
    """Attack 9: an EMPTY file for each file a program needs (a Python program prints
    nothing and exits 0; an empty main.cpp does not build): 0 on every case, those whose
    stdout is empty included."""
    folder = tmp_path / "empty"
    folder.mkdir()
    for name in names():
        for program in load(name).programs.values():
            for kind in program.submit:
                if kind.least:
                    (folder / kind.glob.replace("*", "empty")).write_text("")
    for name in names():
        marked = markings.mark(folder, "--isolation", "fallback", "--jobs", "4",
                               case=f"attack 9, empty programs, {name}", assignment=name)
        marked.assert_reported()
        free = [test for test, verdict in marked.tests.items() if verdict.get("score")]
        assert not free, f"{marked.case}: an empty program scores on {free}"
        assert WHAT_IT_SUGGESTS not in marked.report, \
            f"{marked.case}: an empty program is said to make a known mistake:\n{marked.report}"
        assignment = load(name)
        marked_cases = sum(map(assignment.case_count, assignment.marked_cases))  # fresh too
        builds = sum(program.built for program in assignment.programs.values())
        # A group of the cases students write has a test per count, one of its mistakes
        # and one of what the reference prints on its invalid cases.
        written = 5 * sum(len(assignment.student_groups(program)) for program in assignment.marked_cases)
        assert len(marked.tests) == marked_cases + builds + written, \
            f"{marked.case}: {len(marked.tests)} of {marked_cases} cases ran"
        assert marked.written["score"] == 0


# Anything else an attacker would try


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_run_cannot_read_the_marker_signal_it_or_reach_the_test(markings, tmp_path, isolation):
    """The program reads /proc/1/environ and hunts the marker's environment (which holds a
    token) in /proc/*/environ, sends SIGTERM to its parent (in the fallback, the marker
    itself), and connects to a port this test listens on at 127.0.0.1. It reads nothing,
    stops nothing, and reaches no port (a network namespace, or seccomp's refusal of
    socket())."""
    token = "MARKER-ENV-93b1"
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    accepted, marked_already = [], threading.Event()

    def accept():
        while not marked_already.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                pass

    waiter = threading.Thread(target=accept, daemon=True)
    waiter.start()
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import os, signal, socket, sys
        said = []

        def attempt(name, action):
            try:
                said.append("%s=%s" % (name, action()))
            except OSError as problem:
                said.append("%s=denied(%s)" % (name, problem.__class__.__name__))

        def marker_environment():
            for pid in os.listdir("/proc"):
                try:
                    with open(f"/proc/{pid}/environ", "rb") as environ:
                        if TOKEN.encode() in environ.read():
                            return "FOUND"
                except OSError:
                    pass
            raise PermissionError

        attempt("init_environ", lambda: len(open("/proc/1/environ", "rb").read()) and "READ")
        attempt("marker_environ", marker_environment)
        attempt("signal_parent", lambda: os.kill(os.getppid(), signal.SIGTERM) or "SENT")
        attempt("test_port",
                lambda: socket.create_connection(("127.0.0.1", PORT), 1).close() or "CONNECTED")
        sys.exit(" ".join(said))
        """, token=token, port=listener.getsockname()[1])
    try:
        marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                               env={"MARKER_TOKEN": token}, case=f"poking around ({isolation})")
    finally:
        marked_already.set()
        waiter.join()
        listener.close()
        for connection in accepted:
            connection.close()
    marked.assert_reported()
    said = marked.output("solitaire_1/seed_0")
    for attempt in ("init_environ", "marker_environ", "signal_parent"):
        assert f"{attempt}=denied" in said, f"{marked.case}: {attempt} succeeded: {said[:600]}"
    assert token not in marked.everything
    assert "test_port=denied" in said and not accepted, \
        f"{marked.case}: a run reached a port of the machine: {said[:600]}"
    assert "reach the network" not in marked.report


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_nothing_a_run_leaves_outlives_the_marking(markings, tmp_path, isolation):
    """The program leaves what a process need not be alive to keep: a System V shared
    memory segment (1 MiB), a file in /run/lock, the other folder open to all users, and
    one in a folder open to all inside /tmp (one the test made, as /tmp/.X11-unix is on a
    desktop). Once the marker ends, none of these is left."""
    drop = markings.folder("drop", 0o1777)
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmget(0, 1 << 20, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
        for place in ("/run/lock", DROP):
            try:
                open(os.path.join(place, "left-by-%d" % os.getuid()), "w").write("still here\\n")
            except OSError:
                pass
        """, drop=str(drop))
    marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                           case=f"leftovers ({isolation})")
    marked.assert_reported()
    left = [f"shared memory segment {number}" for number in ipc_objects("shm", marked.users)]
    left += owned_by(marked.users, ("/run/lock", drop))
    assert not left, f"{marked.case}: left behind by the run's user: {left}"


# The network, namespaces, other students: what the fallback of a container must hold too


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_run_reaches_no_listener_on_the_machine(markings, tmp_path, isolation):
    """The program sends the case's input (what a hidden case would give away) to a TCP and
    a UDP listener on 127.0.0.1, to an abstract UNIX socket, and, through a datagram pair of
    UNIX sockets (which needs no socket()), to a datagram socket at a path every user may
    write to, all opened by this test. None of them receives a byte, in any isolation."""
    tcp = socket.create_server(("127.0.0.1", 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract = f"\0kit-test-{os.getpid()}-{time.monotonic_ns()}"
    unix.bind(abstract)
    unix.listen()
    datagrams = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(markings.world / "listener.sock")
    datagrams.bind(path)
    os.chmod(path, 0o777)
    for listener in (tcp, udp, unix, datagrams):
        listener.setblocking(False)
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import socket, sys
        data = sys.stdin.buffer.read() or b"nothing"
        said = []
        def attempt(name, action):
            try:
                action()
                said.append(name + "=SENT")
            except OSError as problem:
                said.append("%s=denied(%s)" % (name, problem.__class__.__name__))
        def tcp():
            with socket.create_connection(("127.0.0.1", TCP), 2) as connection:
                connection.sendall(data)
        def udp():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
                sender.sendto(data, ("127.0.0.1", UDP))
        def unix():
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sender:
                sender.connect(ABSTRACT)
                sender.sendall(data)
        def pair():
            one, _ = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            one.sendto(data, PATH)
        for name, action in (("tcp", tcp), ("udp", udp), ("unix", unix), ("pair", pair)):
            attempt(name, action)
        sys.exit(" ".join(said))
        """, tcp=tcp.getsockname()[1], udp=udp.getsockname()[1], abstract=abstract, path=path)
    try:
        marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                               case=f"the network ({isolation})")
        received = []
        for listener, read in ((tcp, lambda: tcp.accept()[0].recv(100)),
                               (udp, lambda: udp.recv(100)),
                               (unix, lambda: unix.accept()[0].recv(100)),
                               (datagrams, lambda: datagrams.recv(100))):
            try:
                received.append(read())
            except (BlockingIOError, OSError):
                pass
    finally:
        for listener in (tcp, udp, unix, datagrams):
            listener.close()
    marked.assert_reported()
    said = marked.output("solitaire_1/seed_0")
    assert received == [], f"{marked.case}: the machine received {received} ({said[:300]})"
    for name in ("tcp", "udp", "unix", "pair"):
        assert f"{name}=denied" in said, f"{marked.case}: {name}: {said[:300]}"


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_run_makes_no_namespace(markings, tmp_path, isolation):
    """The usual first step of a container escape: become root in a user namespace of one's
    own (with a mount or a network namespace too), by unshare(2) and by clone(2). Every
    attempt is refused; fork and threads still work."""
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import ctypes, os, sys, threading
        libc = ctypes.CDLL(None, use_errno=True)
        NEWUSER, NEWNS, NEWNET, SIGCHLD = 0x10000000, 0x00020000, 0x40000000, 17
        said = []
        for name, flags in (("user", NEWUSER), ("user+mount", NEWUSER | NEWNS),
                            ("user+net", NEWUSER | NEWNET), ("net", NEWNET)):
            said.append("unshare-%s=%s" % (name, "MADE" if libc.unshare(flags) == 0
                                                  else "denied"))
        pid = libc.syscall(56, NEWUSER | SIGCHLD, 0, 0, 0, 0)  # clone, on x86_64
        if pid == 0:
            os._exit(0)
        said.append("clone-user=%s" % ("MADE" if pid > 0 else "denied"))
        if pid > 0:
            os.waitpid(pid, 0)
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        said.append("fork+thread=ok")
        sys.exit(" ".join(said))
        """)
    marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                           case=f"namespaces inside ({isolation})")
    marked.assert_reported()
    said = marked.output("solitaire_1/seed_0")
    assert "MADE" not in said and "fork+thread=ok" in said, f"{marked.case}: {said[:400]}"
    if sys.platform == "linux" and os.uname().machine == "x86_64":
        assert "clone-user=denied" in said, said[:400]


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_student_reads_no_report_of_the_class(markings, isolation):
    """mark-class, one student at a time: `aa` hands in empty programs; `zz`, marked after,
    hunts what the class marker wrote of `aa` (report.txt, results.json: their diffs hold
    expected output) by the paths on every command line in /proc, and by a walk of the
    folder this test gave the class (its OUT and TMPDIR: not the rest of the disk, where
    other reports may lie), and prints every expected line it finds. It finds none, and
    scores 0."""
    klass = markings.folder("class", 0o755)
    (klass / "aa").mkdir()
    for name in ("solitaire_1.py", "solitaire_2.py"):
        (klass / "aa" / name).write_text("")
    hunter = klass / "zz"
    hunter.mkdir()
    write_program(hunter, "solitaire_1.py", """\
        import os, sys
        found, seen = [], set()
        def read(path):
            try:
                text = open(path, errors="replace").read()
            except OSError:
                return
            found.append(path)
            for line in text.splitlines():
                if line.startswith("-") and not line.startswith("---"):
                    print(line[1:].replace("\\u2420", " ").replace("\\u23ce", ""))
        def hunt(folder, depth=0):
            if depth > 8 or folder in seen or not folder.startswith(WORLD):
                return  # what lies outside the test's folder is no report of this class
            seen.add(folder)
            try:
                entries = list(os.scandir(folder))
            except OSError:
                return
            for entry in entries:
                if entry.name in ("report.txt", "results.json", "feedback.txt"):
                    read(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    hunt(entry.path, depth + 1)
        try:
            processes = os.listdir("/proc")
        except OSError:
            processes = []
        for pid in processes:
            try:
                argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\\0")
            except OSError:
                continue
            for arg in argv:
                path = arg.decode(errors="replace")
                if path.startswith("/"):
                    for above in (path, os.path.dirname(path), os.path.dirname(os.path.dirname(path))):
                        hunt(above)
        hunt(WORLD)

        sys.exit("found %d" % len(found))
        """, world=str(markings.world))
    out = markings.world / "marked"
    scratch = markings.folder("class-tmpdir", 0o755)
    argv = [sys.executable, "-m", "exactmark.classroom.mark_class", str(klass), "--assignment", "seeded",
            "--out", str(out), "--jobs", "1",
            "--isolation", "auto" if isolation == "container" else isolation]
    if isolation == "container":
        argv = [*REPLICA, "--", *argv]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TMPDIR": str(scratch)})
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {row.split(",")[0]: row for row in (out / "grades.csv").read_text().splitlines()}
    results = json.loads((out / "instructor" / "zz" / "results.json").read_text())
    assert results["extra_data"]["programs"]["solitaire_1"]["earned"] == 0, rows["zz"]
    seed_0 = next(test for test in results["tests"] if test["name"] == "solitaire_1/seed_0")
    assert "stderr ends: found 0" in seed_0["output"], seed_0["output"][:600]
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    for path in out.rglob("*"):
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode & 0o077 == 0, f"{path} is {oct(mode)}: others may read the class's files"


@needs_root
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_no_channel_between_runs_and_nothing_left_in_ipc(markings, tmp_path, isolation):
    """Two runs at once (a hidden case's and a visible one's) could pass an input through
    what no folder mode stops, or leave it for a later marking: a POSIX message queue (made
    before Landlock would refuse to open it), a System V segment open to all, a memfd (memory
    the address-space limit does not count). Each is refused, and no queue is left."""
    queue = f"/kit-test-{os.getpid()}-{time.monotonic_ns()}"
    folder = submission(tmp_path)
    write_program(folder, "solitaire_1.py", """\
        import ctypes, os, sys
        rt = ctypes.CDLL("librt.so.1", use_errno=True)
        libc = ctypes.CDLL(None, use_errno=True)
        said = []
        said.append("mq=%s" % ("MADE" if rt.mq_open(QUEUE.encode(), os.O_CREAT | os.O_RDWR,
                                                     0o666, None) >= 0 else "denied"))
        said.append("shm=%s" % ("MADE" if libc.shmget(0, 4096, 0o1000 | 0o666) >= 0
                                else "denied"))
        try:
            os.memfd_create("held")
            said.append("memfd=MADE")
        except OSError:
            said.append("memfd=denied")
        sys.exit(" ".join(said))
        """, queue=queue)
    marked = markings.mark(folder, "--isolation", isolation, "--only", "solitaire_1/seed_0",
                           case=f"channels ({isolation})")
    marked.assert_reported()
    said = marked.output("solitaire_1/seed_0")
    assert "MADE" not in said, f"{marked.case}: {said[:300]}"
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    opened = rt.mq_open(queue.encode(), os.O_RDONLY, 0, None)
    if opened >= 0:
        rt.mq_close(opened)
        rt.mq_unlink(queue.encode())
    assert opened < 0 and ctypes.get_errno() == errno.ENOENT, \
        f"{marked.case}: the message queue {queue} outlives the marking"
