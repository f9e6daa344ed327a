"""Run untrusted code (a student's submission) the way a marker must.

Namespaces, where the machine allows them: each run starts under bubblewrap
in its own mount namespace, which holds read-only the system's programs and
the interpreter, the run's home (a fresh size-capped tmpfs filled from the
snapshot of the submission) and a private size-capped /tmp, and nothing else:
no kit, no golden outputs, no other run, no other user's files. Its own PID
namespace (every process dies with the run), network namespace (no network),
IPC and UTS namespaces, and no new privileges.

The fallback, where namespaces are refused (bubblewrap missing, or a container
that forbids them): the run's home is a folder of its own on the disk (what it
writes held to its share by a watch: exactmark.sandbox.disk), and files every user may
read stay readable. The report says which one held.

Both add: a throwaway user per run when the marker is root (so that the
process limit holds and the run can touch nothing of the marker's), a control
group per run where one can be made (one memory and one process limit for the
whole run, and its CPU time), rlimits per process, a scrubbed environment, a
time limit, output capped, and every process of the run killed at its end.

The time limit is CPU time, so that it does not depend on the machine's load:
the run's control group is asked for the CPU time of all its processes together
(children included) every CPU_POLL_SECONDS by a small thread, which kills the
whole run once it is over the limit, or once it has used next to none for its
idle allowance (a sleeper); a wall-clock cap, well above it, stops a run that
waits while using a little CPU now and then. Without a group that measures CPU
(a container such as Gradescope's), the same thread sums the CPU times /proc
gives of the run's own processes (exactmark.running.run.ProcessesCpu): those of its
throwaway user, and those below the process it started (bubblewrap's, under
namespaces). RLIMIT_CPU, a second over the limit, stays as a backstop per process.
"""

import functools
import itertools
import json
import os
import random
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from exactmark.running.record import FILES, Limit, Ran
from exactmark.running.run import CpuWatch, ProcessesCpu, collect, kill_group, limit_hit, reap
from exactmark.sandbox import disk, driver, launcher
from exactmark.sandbox.cgroups import Groups, Unavailable, enclosing_limits, kill_every
from exactmark.sandbox.confine import DEVICES, Access, Confinement
from exactmark.running.limits import (FILE_BYTES, MEMORY_BYTES, PROCESSES, SAFE_PATH, WRITTEN_BYTES, Budget,
                            mebibytes, processes_of, rlimits, scrubbed_environment, time_caps)
from exactmark.base.tree import remove_tree, tree_bytes

CPU_POLL_SECONDS = 0.05  # how often the run's CPU time is read: it may go over by this per core
MARKER_ROOM_BYTES = 256 << 20  # left to the marker under a container's memory limit
MARKER_PROCESSES = 64  # left to the marker under a container's process limit
LEAST_MEMORY_BYTES, LEAST_PROCESSES = 64 << 20, 4  # below these no program starts
TMP_BYTES = 64 << 20
SHM_BYTES = 1 << 20  # a fresh /dev/shm per case, which only the sandbox's root may write
DRIVER_ROOM_BYTES = 32 << 20  # a session's bubblewrap and driver, beside the run's memory
DRIVER_PROCESSES = 8  # bubblewrap's two, the driver, and the next case's first process before it moves
HOME_ROOM_FILES = 10_000  # files a case may make in its home, beside the submission's
TMP_FILES, SHM_FILES = 10_000, 64  # and in /tmp and /dev/shm: their teardown stays quick
DRIVER_SECONDS = 30  # what the driver may take to answer once its case has ended
DRIVER_SOURCE = Path(driver.__file__).read_text(encoding="utf-8")
HOME_ROOM_BYTES = 64 << 20  # what a run may write in its home, beside the submission
# Throwaway user ids: above the ranges that systemd and container tools hand out,
# below 2**31; each marker starts at a random place, so that two markers at
# once do not share (and kill) each other's users.
FIRST_SANDBOX_UID = 2_000_000_000
SANDBOX_UIDS = 1_000_000
SANDBOX_HOME = "/home/student"
SANDBOX_SNAPSHOT = "/snapshot"
SYSTEM_FOLDERS = ("bin", "lib", "lib32", "lib64", "libx32", "sbin")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")
SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock", "/dev/mqueue")
MOST_SHARED_FOLDERS = 10_000  # looked at, once per marking
# Run as the run's own user after a fallback run: its home and tmp emptied, then what it
# left in the folders every user may write to, then its System V IPC objects.
CLEANER = """home=$1 tmp=$2; shift 2
chmod -R u+rwx -- "$home" "$tmp" 2>/dev/null
find "$home" "$tmp" -mindepth 1 -delete 2>/dev/null
find "$@" -xdev -mindepth 1 -maxdepth 1 -user "$(id -u)" \\
    -exec chmod -R u+rwx {} + -exec rm -rf --one-file-system {} + 2>/dev/null
ipcrm --all 2>/dev/null
exit 0"""
SANDBOX_PYTHON = "/python"  # under namespaces: where the runs' stdlib-only environment is
# What an interpreter says it is (Identity's fields): asked as root, then as a fallback
# run's user, which must see the same (the version and the standard library's place included).
IDENTITY = ("import json, os, sys; print(json.dumps([os.path.realpath(sys.executable), "
            "sys.base_prefix, sys.base_exec_prefix, sys.version, os.__file__, "
            "'%d.%d' % sys.version_info[:2]]))")
SANDBOX_FILES = "/case-files"  # the case's own files, read-only, for the launcher to copy
OWN_PROC = "/proc/self"  # in the fallback a run reads its own /proc, as under namespaces

NAMESPACES = "namespaces"
STUDENT, CASE = "student", "case"  # a sandbox per student and program, or per case
FALLBACK = "fallback"
AUTO = "auto"

NO_BWRAP = "bubblewrap (bwrap) is not installed"
DRIVER_FAILED = "the sandbox's driver did not start"
DRIVER_GONE = "the sandbox's driver has gone"
HOME_NOT_FILLED = "the run's home could not be filled ({tool} ended with status {status})"
NO_TOOLS = "the sandbox needs {tools} (util-linux and coreutils), which are not on the PATH"
FALLBACK_ASKED = "--isolation fallback"
NO_INTERPRETER = "no Python interpreter that the sandbox can run; give --python"
INTERPRETER_FAILS = "{python} does not run in the sandbox"
INTERPRETER_IN_KIT = "{python} lives inside the kit, which the sandbox hides: give another --python"
NAMESPACES_REFUSED = "namespaces were asked for, but {reason}"
DESCRIBE_NAMESPACES = "namespaces (bubblewrap)"
DESCRIBE_FALLBACK = "FALLBACK, no namespaces ({reason})"
DESCRIBE_USERS = "a throwaway user per run"
DESCRIBE_OWN_USER = "your own user id (not root: no throwaway users)"
SEES_OWN_FILES = ("the run sees only the system's programs, the interpreter and its own files "
                  "({how})")
SEES_EVERYTHING = "the run can read every file that all users may read ({why})"
BY_NAMESPACES = "own mount, PID, network, IPC and UTS namespaces"
NO_NETWORK = "it reaches no network and makes no namespace (seccomp)"
NETWORK_OPEN = "it can reach the network ({why})"
NAMESPACES_CUT = "it reaches no network"
STDLIB_ONLY = "{python} (Python {version}, its standard library alone, as `python3 file.py`)"
NO_SIZE = "a private /tmp (this bubblewrap has no --size: /tmp and home are capped by memory)"
LANDLOCK_STOPS_PYTHON = "the interpreter does not start under it"
PER_STUDENT_NAMESPACES = ("Sandbox: one per student and program (bubblewrap, its control group and "
                          "its user, entered once); fresh per case: home, /tmp, /dev/shm, the "
                          "case's files, its processes (all killed and seen gone after it), its "
                          "CPU time and memory kills; cases at a terminal: a sandbox each")
PER_STUDENT_FALLBACK = ("Sandbox: one user{group} per student and program; fresh "
                        "per case: home and TMPDIR (new folders), the case's files, its "
                        "processes (all killed and seen gone after it), what it left in shared "
                        "folders (removed by its user), its CPU time and memory kills")
FALLBACK_GROUP = " and one control group"  # where the fallback can make one
PER_CASE = "Sandbox: a fresh one per case{why}"
NOT_ROOT_PER_CASE = " (not root: no throwaway user to keep the cases' driver out of reach)"
DESCRIBE_GROUP = "{memory} of memory and {processes} processes for the whole run ({cgroup})"
DESCRIBE_NO_GROUP = ("{memory} of memory per process and {processes} processes (rlimits only; "
                     "no cgroup: {reason})")
DESCRIBE_CPU_GROUP = "{cpu:g} s of CPU for the whole run ({cgroup}), wall-clock cap {wall:g} s"
DESCRIBE_CPU_PROCESSES = ("{cpu:g} s of CPU for the whole run (its processes' CPU times, read from "
                          "/proc: no cgroup counts them, {reason}), wall-clock cap {wall:g} s")
DESCRIBE_CPU_PER_PROCESS = ("{cpu:g} s of CPU per process (rlimits only, the whole run's CPU time "
                            "is not measured: {reason}), wall-clock cap {wall:g} s")


class Identity(NamedTuple):
    """An interpreter as it describes itself (IDENTITY)."""
    executable: str
    base_prefix: str
    base_exec_prefix: str
    version: str  # sys.version, whole
    os_module: str  # where its standard library's os.py lies
    minor: str  # "3.11"


class Stopped(Exception):
    """The marker is stopping: no new run starts."""


class Sandbox:
    """Runs commands from a snapshot of a submission, one isolated run at a time per call.
    `timeout` is the seconds of CPU a whole run may use, all its processes together;
    `wall_seconds` its wall-clock cap (WALL_FACTOR times `timeout` unless given, and
    never below `timeout`). `notify(text)` is told what whoever runs the marking must hear
    (disk.FULL_NOTICE, as a run meets a full disk): the marker passes it on."""

    def __init__(self, timeout: float, scratch: Path, hidden: list, python: str = None,
                 isolation: str = AUTO, wall_seconds: float = None, runs_at_once: int = 1,
                 markers: int = 1, notify=lambda text: None):
        self.timeout = timeout  # seconds of CPU for a whole run
        self.wall_seconds, self.idle_seconds = time_caps(timeout, wall_seconds)  # idle: where
        # the CPU time is measured
        self.scratch = scratch
        self.hidden = [Path(path) for path in hidden]
        self.as_root = os.geteuid() == 0
        self._next_uid = random.randrange(SANDBOX_UIDS)
        self._lock = threading.Lock()
        self._running = {}  # run id -> (pid, uid, group)
        self.stopping = threading.Event()
        self.notify = notify
        self.users = []
        missing = [tool for tool in launcher.TOOLS if not shutil.which(tool, path=SAFE_PATH)]
        if missing:
            raise RuntimeError(NO_TOOLS.format(tools=", ".join(missing)))
        self.bwrap = shutil.which("bwrap")
        self.bwrap_options = bwrap_options(self.bwrap) if self.bwrap else set()
        self.memory, self.processes = run_limits(runs_at_once, markers)
        self.runs_at_once = max(1, runs_at_once) * max(1, markers)  # the disk's room is for all
        self.budget = Budget(self.timeout, self.wall_seconds, self.idle_seconds, self.memory,
                             self.processes)
        self.confinement = Confinement()
        interpreters = self._interpreters(python)  # asked one at a time, as far as needed
        first = next(interpreters, None)
        if first is None:
            raise RuntimeError(INTERPRETER_FAILS.format(python=python) if python else NO_INTERPRETER)
        self.python, self.prefixes, self.identity = first
        self.environment = None  # the stdlib-only environment the runs start from, made below
        self.namespaces, self.why_not = False, FALLBACK_ASKED if isolation == FALLBACK else NO_BWRAP
        if isolation != FALLBACK and self.bwrap:
            self.namespaces, self.why_not = self._namespaces_work()
        if isolation == NAMESPACES and not self.namespaces:
            raise RuntimeError(NAMESPACES_REFUSED.format(reason=self.why_not))
        if not self.namespaces:  # the run's user must reach the interpreter on the machine itself
            runnable = next((found for found in itertools.chain([first], interpreters)
                             if self._runs_in_fallback(found[0], found[2])), None)
            if runnable is None:
                raise RuntimeError(INTERPRETER_FAILS.format(python=python) if python
                                   else NO_INTERPRETER)
            self.python, self.prefixes, self.identity = runnable
        if not self.namespaces and self.as_root:
            scratch.chmod(0o711)  # each run's user reaches its own home, and lists nothing
            self.shared_folders = world_writable_folders()
        self.base_python = self.python  # what the driver runs on, and the report names
        self.environment = clean_environment(Path(tempfile.mkdtemp(prefix="python-", dir=scratch)),
                                             self.python, self.identity.minor)
        self.python = str((Path(SANDBOX_PYTHON) if self.namespaces else self.environment)
                          / "bin" / Path(self.python).name)
        self.groups, self.why_no_group = None, "not root"
        if self.as_root:
            try:
                self.groups = Groups()
            except Unavailable as problem:
                self.why_no_group = str(problem)
        self.cpu_by_group = bool(self.groups and self.groups.measures_cpu)
        self.measures_cpu = self.cpu_by_group or os.path.isdir("/proc")  # else: rlimits only

    # What the report says

    @property
    def landlock(self) -> bool:
        """Landlock holds the fallback's runs (under namespaces the mounts do its work)."""
        return not self.namespaces and bool(self.confinement.abi)

    @property
    def files_hidden(self) -> bool:
        return self.namespaces or self.landlock

    @property
    def network_off(self) -> bool:
        return self.namespaces or self.confinement.seccomp

    def has(self, requirement: str) -> bool:
        """Whether each run gets one of exactmark.kit.assignment's REQUIREMENTS."""
        return {"network-off": self.network_off, "files-hidden": self.files_hidden,
                "own-user": self.as_root, "cgroup": self.groups is not None}[requirement]

    def layers(self) -> list:
        """What confines each run, in the report's words."""
        found = [DESCRIBE_NAMESPACES if self.namespaces
                 else DESCRIBE_FALLBACK.format(reason=self.why_not)]
        if self.landlock:
            found += self.confinement.layers()[:1]
        if self.confinement.seccomp:
            found.append(self.confinement.layers()[-1])
        found.append(self.groups.describe() if self.groups else f"no cgroup ({self.why_no_group})")
        found.append(DESCRIBE_USERS if self.as_root else DESCRIBE_OWN_USER)
        return found

    def describe(self) -> list:
        if self.files_hidden:
            how = BY_NAMESPACES if self.namespaces else self.confinement.layers()[0]
            reach = [SEES_OWN_FILES.format(how=how)]
        else:
            reach = [SEES_EVERYTHING.format(why=self.confinement.missing()[0])]
        reach.append(NO_NETWORK if self.confinement.seccomp else NAMESPACES_CUT if self.namespaces
                     else NETWORK_OPEN.format(why=self.confinement.missing()[-1]))
        sizes = dict(memory=mebibytes(self.memory), processes=self.processes)
        limits = (DESCRIBE_GROUP.format(cgroup=self.groups.describe(), **sizes) if self.groups
                  else DESCRIBE_NO_GROUP.format(reason=self.why_no_group, **sizes))
        times = dict(cpu=self.timeout, wall=self.wall_seconds)
        reason = self.groups.why_no_cpu if self.groups else self.why_no_group
        if self.cpu_by_group:
            time_limit = DESCRIBE_CPU_GROUP.format(cgroup=self.groups.describe(), **times)
        elif self.measures_cpu:
            time_limit = DESCRIBE_CPU_PROCESSES.format(reason=reason, **times)
        else:
            time_limit = DESCRIBE_CPU_PER_PROCESS.format(reason=reason, **times)
        if not self.namespaces:
            tmp = "a folder of its own as TMPDIR"
        elif self.sizes_capped:
            tmp = f"a private /tmp of {mebibytes(TMP_BYTES)}"
        else:
            tmp = NO_SIZE
        return [f"Isolation: {', '.join(self.layers())}",
                f"Reach: {'; '.join(reach)}",
                f"Limits per run: {time_limit}; {limits}; {mebibytes(FILE_BYTES)} per file; {tmp}; "
                + STDLIB_ONLY.format(python=self.base_python,
                                     version=self.identity.version.split()[0])]

    def per(self, asked: str) -> str:
        """What a sandbox is made for, as asked: per student only as root, where the
        cases' user is not the marker's."""
        return STUDENT if asked == STUDENT and self.as_root else CASE

    def describe_per(self, asked: str) -> str:
        if self.per(asked) == CASE:
            return PER_CASE.format(why=NOT_ROOT_PER_CASE if asked == STUDENT else "")
        if self.namespaces:
            return PER_STUDENT_NAMESPACES
        return PER_STUDENT_FALLBACK.format(group=FALLBACK_GROUP if self.groups else "")

    # Running

    def run(self, snapshot: Path, command, stdin: bytes, files: dict, environment=lambda home: {},
            terminal: bool = False, head: int = None, budget: Budget = None, held=None):
        """Run `command(home)` (an argv) with `stdin` and `environment(home)` added to a
        scrubbed environment, its home filled from `snapshot` plus `files` ({name: bytes});
        a `exactmark.running.record.Ran` (at a terminal: its screen). With `head`, stdout's reader goes away after that many bytes.
        `budget`: what the run may use (the marking's by default). `held`: a fallback
        Session's user and control group, kept after the run, instead of fresh ones.
        A run that meets a full disk is the marker's error (disk.DiskFull), and noticed."""
        try:
            return self._run(snapshot, command, stdin, files, environment, terminal, head,
                             budget, held)
        except disk.DiskFull:
            self.notify(disk.FULL_NOTICE)
            raise

    def _run(self, snapshot: Path, command, stdin: bytes, files: dict, environment, terminal: bool,
             head, budget: Budget, held) -> Ran:
        if self.stopping.is_set():
            raise Stopped
        budget = budget or self.budget
        if not self.namespaces:  # before anything is made: room on the disk for every run at once
            disk.ensure_room(self.scratch, self._share(snapshot, files), self.runs_at_once)
        if held is None:
            group = self.groups.new(budget.memory, budget.processes + 2) if self.groups else None
            usage = Usage(self.new_user(), group)
        else:
            usage = held.usage()
        uid, group = usage.uid, usage.group
        given = self._case_files(files)
        if self.namespaces:
            folder, home, tmp = None, SANDBOX_HOME, ""
            where = launcher.environment(SANDBOX_SNAPSHOT, SANDBOX_FILES if given else "")
        else:
            folder = Path(tempfile.mkdtemp(prefix="run-", dir=self.scratch))
            folder.chmod(0o711)  # its user reaches its home and tmp, and lists nothing
            home, tmp = str(folder / "home"), str(folder / "tmp")
            for made in (home, tmp):
                os.mkdir(made, 0o700)
            where = launcher.environment("", "")  # the marker fills the home (`_filled`)
        wrapped = launcher.argv(home, uid, self.limits(uid, budget), command(Path(home)))
        seccomp = self._seccomp_fd() if self.namespaces else None
        if self.namespaces:
            wrapped = self._bwrap(snapshot, given, seccomp) + wrapped
        env = {**scrubbed_environment(home, TMPDIR=tmp or "/tmp", **environment(Path(home))),
               **where}
        access = None if self.namespaces else self._access(snapshot, given, home, tmp)
        entering = self._entering(group, access)
        passed = (seccomp,) if seccomp is not None else ()
        run_id = object()
        watch = written = None
        try:
            if folder is not None:
                written = self._filled(folder, snapshot, given, files, uid,
                                       lambda: self._kill_run(run_id, uid, group))
            if self.measures_cpu:
                read = usage.cpu_seconds if self.cpu_by_group else ProcessesCpu(
                    lambda whole: self._run_processes(run_id, uid, whole))
                watch = CpuWatch(read, budget.cpu_seconds, budget.idle_seconds,
                                 lambda: self._kill_run(run_id, uid, group), CPU_POLL_SECONDS)
            started = lambda pid: self._started(run_id, pid, uid, group)  # noqa: E731
            if terminal:
                from exactmark.running.terminal import run_in_terminal

                screen = run_in_terminal(wrapped, stdin, "/", env, budget.wall_seconds,
                                         depth=2 if self.namespaces else 0, started=started,
                                         preexec_fn=entering, pass_fds=passed)
                return self._within_share(self._terminal_outcome(screen, watch, usage, budget),
                                          written)
            return self._within_share(self._piped(wrapped, stdin, env, started, usage, watch, head,
                                                  entering, passed, budget), written)
        finally:
            if seccomp is not None:
                os.close(seccomp)
            if watch:
                watch.stop()
            if written:
                written.stop()
            with self._lock:
                self._running.pop(run_id, None)
            self._end(uid, group)
            if group and held is None:
                group.remove()
            if folder is not None:
                self._clean_after(uid, folder)
            if given:
                remove_tree(given)

    def _share(self, snapshot: Path, files: dict) -> tuple:
        """(bytes, files) a fallback run may hold on the disk: its program's and case's
        files, and WRITTEN_BYTES more in as many files as its home and /tmp hold under
        namespaces."""
        return (WRITTEN_BYTES + snapshot_bytes(snapshot) + sum(map(len, files.values())),
                HOME_ROOM_FILES + TMP_FILES + snapshot_files(snapshot) + len(files))

    def _filled(self, folder: Path, snapshot: Path, given, files: dict, uid: int, kill):
        """A fallback run's home filled, and with its tmp handed to its user, by the marker
        itself before the launcher starts (a failure is then the marker's error, never a
        status the program could give too: a full disk one's, a DiskFull); then the watch
        on what the run writes (exactmark.sandbox.disk.Watch). cp and chown, as root, as the launcher
        does under namespaces: a copy in Python would cost the marker far more per file."""
        home, tmp = folder / "home", folder / "tmp"
        steps = [["cp", "-R", "--preserve=mode,timestamps", "--", f"{snapshot}/.",
                  *([f"{given}/."] if given else []), f"{home}/"]]
        if uid >= 0:
            steps.append(["chown", "-R", "--", f"{uid}:{uid}", str(home), str(tmp)])
        for step in steps:
            done = subprocess.run(step, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=scrubbed_environment("/"),
                                  cwd="/")
            if done.returncode:
                room, _ = disk.free(self.scratch)
                if room < self._share(snapshot, files)[0]:
                    raise disk.DiskFull(disk.DISK_FILLED)
                raise RuntimeError(HOME_NOT_FILLED.format(tool=step[0], status=done.returncode))
        start = (snapshot_bytes(snapshot) + sum(map(len, files.values())),
                 snapshot_files(snapshot) + len(files))
        return disk.Watch(uid, [str(home), str(tmp)], self.shared_folders if uid >= 0 else [],
                          (WRITTEN_BYTES, HOME_ROOM_FILES + TMP_FILES), start, kill, self.scratch)

    @staticmethod
    def _within_share(ran: Ran, written) -> Ran:
        """A fallback run stopped over its share of the disk is judged so; one during which
        the disk filled is the marker's error, not the student's."""
        if written is None:
            return ran
        if written.stop():
            return replace(ran, status=None, limit=Limit.OUTPUT, overflowed=FILES)
        if written.filled:
            raise disk.DiskFull(disk.DISK_FILLED)
        return ran

    def session(self, snapshot: Path) -> "Session":
        """One student's program: its cases run one after another in one sandbox."""
        return Session(self, snapshot)

    def limits(self, uid: int = -1, budget: Budget = None) -> list:
        """The rlimits of each process of a run of `uid`; without a throwaway user
        (-1), the process limit counts our own user's processes too."""
        return rlimits(budget or self.budget,
                       len(processes_of(os.getuid())) if uid < 0 else 0)

    def _access(self, snapshot: Path, given, home: str, tmp: str) -> Access:
        """What a fallback run may reach of the file system: what bubblewrap would show it."""
        system = ["/usr", *(f"/{name}" for name in SYSTEM_FOLDERS), *SYSTEM_FILES,
                  *map(str, self.prefixes), *([str(self.environment)] if self.environment else []),
                  str(snapshot), *([str(given)] if given else [])]
        return Access(read=tuple(system + [OWN_PROC]), write=(home, tmp, *DEVICES))

    def _entering(self, group, access):
        """What the run's first process does before it becomes the launcher: join its
        control group, then (in the fallback) enter Landlock and seccomp."""
        steps = [step for step in (group.enter if group else None,
                                   self.confinement.entering(access) if access else None) if step]
        if not steps:
            return None

        def enter():
            for step in steps:
                step()
        return enter

    def _seccomp_fd(self):
        """The compiled filter, as a file bubblewrap reads (one per run: it reads it to the end)."""
        if not self.confinement.seccomp or "--seccomp" not in self.bwrap_options:
            return None
        fd = os.memfd_create("seccomp", 0)
        os.write(fd, self.confinement.program)
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    def _case_files(self, files: dict):
        """A folder of the marker's own holding the case's files, for the launcher to
        copy into the run's home; None when there are none."""
        if not files:
            return None
        folder = Path(tempfile.mkdtemp(prefix="files-", dir=self.scratch))
        for name, data in files.items():
            (folder / name).write_bytes(data)
        return folder

    def new_user(self) -> int:
        """A user id no other run holds at the same time; -1 when not root."""
        if not self.as_root:
            return -1
        with self._lock:
            while True:
                self._next_uid += 1
                uid = FIRST_SANDBOX_UID + self._next_uid % SANDBOX_UIDS
                if not processes_of(uid):
                    self.users.append(uid)
                    return uid

    def stop_all(self) -> None:
        """Ctrl-C: start nothing more, kill every run under way."""
        self.stopping.set()
        with self._lock:
            running = list(self._running.values())
        for pid, uid, group in running:
            kill_group(pid)
            self._end(uid, group)

    def close(self) -> None:
        if self.groups:
            self.groups.remove()
        remove_tree(self.environment)

    def _started(self, run_id, pid: int, uid: int, group) -> None:
        with self._lock:
            self._running[run_id] = (pid, uid, group)
        if self.stopping.is_set():
            kill_group(pid)

    def _end(self, uid: int, group) -> None:
        if group:
            group.kill()
        kill_user(uid)

    def _run_processes(self, run_id, uid: int, whole: bool) -> set:
        """The processes of one run: the one it started and those below it, and with
        `whole`, every one of its user's (one that left the tree, and a fallback run's)."""
        with self._lock:
            running = self._running.get(run_id)
        found = {running[0], *descendants(running[0])} if running else set()
        if whole and uid >= 0:
            found.update(processes_of(uid))
        return found

    def _kill_run(self, run_id, uid: int, group) -> None:
        """Kill every process of one run (from the CPU watcher's thread)."""
        with self._lock:
            running = self._running.get(run_id)
        if running:
            kill_group(running[0])
        self._end(uid, group)

    def _killed_by_rlimit(self, status) -> bool:
        """Stopped by RLIMIT_CPU (SIGXCPU; bubblewrap reports a signal N as 128 + N), where
        no control group counts its CPU time."""
        return status in (-signal.SIGXCPU, 128 + signal.SIGXCPU) if self.namespaces \
            else status == -signal.SIGXCPU

    def _terminal_outcome(self, screen: Ran, watch, usage: "Usage", budget: Budget) -> Ran:
        """The terminal's run, with the limit that ended it as the run's limits say."""
        cpu_seconds = watch.stop() if watch else None
        limit = screen.limit if screen.too_large else self._limit(
            watch, cpu_seconds, screen.status, budget, screen.timed_out)
        return Ran(screen.stdout, status=None if limit else screen.status, limit=limit,
                   overflowed=screen.overflowed, out_of_memory=usage.out_of_memory(),
                   cpu_seconds=cpu_seconds, read_past_input=screen.read_past_input)

    def _limit(self, watch, cpu_seconds, status, budget: Budget, timed_out: bool):
        """Which limit ended a run whose output stayed under its cap, if one did."""
        return limit_hit(watch, cpu_seconds, budget.cpu_seconds, self._killed_by_rlimit(status),
                         timed_out)

    def _piped(self, argv: list, stdin: bytes, env: dict, started, used: "Usage", watch=None,
               head: int = None, entering=None, passed=(), budget: Budget = None) -> Ran:
        """Pipe stdin in, collect stdout and stderr up to the budget's cap each (stdout
        up to `head` bytes, then its read end closed, as `| head -c` does), kill the whole
        run at the wall-clock cap or when output overflows (`watch` kills it at the CPU
        limit)."""
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, cwd="/", env=env, start_new_session=True,
                                   preexec_fn=entering, pass_fds=passed)
        started(process.pid)
        budget = budget or self.budget
        ended, reaped = threading.Event(), []  # once the program ends, what it left holding
        # its pipes is not waited for (as bubblewrap's end ends all it holds)
        waiter = threading.Thread(target=lambda: (reaped.extend(reap(process)), ended.set()),
                                  daemon=True)
        waiter.start()
        def kill():
            kill_group(process.pid)
            if used.group:
                used.group.kill()
        outputs = self._gathered(process, stdin, head, ended, kill, budget)
        waiter.join()
        status, usage = reaped
        cpu_seconds = watch.stop() if watch else None
        if usage and not self.namespaces and not self.cpu_by_group:
            # What the marker sees of the program it started once it reaps it: its CPU time and
            # its waited-for children's, which /proc's last read may have missed. (Not under
            # namespaces: bubblewrap's own, not its PID namespace's.)
            cpu_seconds = max(cpu_seconds or 0.0, usage.ru_utime + usage.ru_stime)
        return self._outcome(outputs, status, watch, cpu_seconds, used, budget)

    def _gathered(self, streams, stdin: bytes, head, ended: threading.Event, kill,
                  budget: Budget) -> tuple:
        """What a piped run wrote, once it has ended (`ended`), or `kill()`ed at the
        wall-clock cap, at an output over its cap, or on a stop: (stdout, stderr, whether
        the cap passed, which output overflowed)."""
        deadline = time.monotonic() + budget.wall_seconds
        stdout, stderr, timed_out, too_large = collect(
            streams, stdin, deadline, budget.most_output, budget.most_stderr, head, ended)
        if not (timed_out or too_large):  # its output closed, the program may still be running
            timed_out = not ended.wait(max(0.0, deadline - time.monotonic()))
        if timed_out or too_large or self.stopping.is_set():
            kill()
        return stdout, stderr, timed_out, too_large

    def _outcome(self, outputs: tuple, status, watch, cpu_seconds, used: "Usage",
                 budget: Budget) -> Ran:
        """A piped run's Ran, with the limit that ended it, if one did."""
        stdout, stderr, timed_out, too_large = outputs
        limit = Limit.OUTPUT if too_large else self._limit(watch, cpu_seconds, status, budget,
                                                           timed_out)
        stopped = limit is not None or (status < 0 and self.stopping.is_set())
        return Ran(stdout, stderr, None if stopped else status, limit, too_large,
                   used.out_of_memory(), cpu_seconds)

    # Setting up

    @property
    def sizes_capped(self) -> bool:
        return "--size" in self.bwrap_options

    def _bwrap(self, snapshot: Path, files: Path = None, seccomp: int = None,
               cgroup_namespace: bool = True) -> list:
        """bubblewrap's options, those this version of it has (0.6.1, Ubuntu 22.04's, lacks
        --size and --disable-userns: the seccomp filter refuses user namespaces anyway)."""
        argv = [self.bwrap, "--die-with-parent", "--unshare-ipc", "--unshare-pid", "--unshare-net",
                "--unshare-uts", *["--unshare-cgroup-try"] * cgroup_namespace,
                "--hostname", "sandbox"]
        if not self.as_root:
            argv += ["--unshare-user"] + ["--disable-userns"] * (
                "--disable-userns" in self.bwrap_options)
        if seccomp is not None:
            argv += ["--seccomp", str(seccomp)]
        size = (lambda count: ["--size", str(count)]) if self.sizes_capped else (lambda count: [])
        bound = [Path("/usr")]
        argv += ["--ro-bind", "/usr", "/usr"]
        for name in SYSTEM_FOLDERS:
            path = Path("/", name)
            if path.is_symlink():
                argv += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                argv += ["--ro-bind", str(path), str(path)]
                bound.append(path)
        argv += _open_folders(Path(SYSTEM_FILES[0]).parent)
        for path in SYSTEM_FILES:
            argv += ["--ro-bind-try", path, path]
        for prefix in self.prefixes:
            if not any(_under(prefix, folder) for folder in bound):
                argv += _open_folders(prefix.parent) + ["--ro-bind", str(prefix), str(prefix)]
                bound.append(prefix)
        argv += ["--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", *size(TMP_BYTES), "--tmpfs", "/tmp",
                 *size(HOME_ROOM_BYTES + snapshot_bytes(snapshot)), "--tmpfs", SANDBOX_HOME,
                 "--ro-bind", str(snapshot), SANDBOX_SNAPSHOT]
        if files:
            argv += ["--ro-bind", str(files), SANDBOX_FILES]
        if self.environment:
            argv += ["--ro-bind", str(self.environment), SANDBOX_PYTHON]
        for path in self.hidden:  # the kit, say, if it lies under a folder bound above
            if any(_under(path, folder) for folder in bound):
                argv += ["--tmpfs", str(path)]
        return argv + ["--chdir", "/", "--"]

    def _interpreters(self, python):
        """(interpreter, the folders it needs, what it says it is), asked of each candidate
        itself when the one before would not do; never a virtual environment's (its folder
        may lie inside the kit, which is hidden)."""
        candidates = [python] if python else [getattr(sys, "_base_executable", sys.executable),
                                              sys.executable, "/usr/local/bin/python3",
                                              "/usr/bin/python3"]
        found = set()
        for candidate in dict.fromkeys(candidates):
            try:
                done = subprocess.run([candidate, "-I", "-S", "-c", IDENTITY], capture_output=True,
                                      timeout=30, env=scrubbed_environment("/"), cwd="/")
                identity = Identity(*json.loads(done.stdout))
                executable, prefixes = identity.executable, identity[1:3]
            except (OSError, ValueError, TypeError, subprocess.SubprocessError):
                continue
            folders = {Path(os.path.realpath(prefix)) for prefix in prefixes}
            folders.add(Path(executable).parent.parent)
            if any(_under(folder, hidden) for folder in folders for hidden in self.hidden):
                raise RuntimeError(INTERPRETER_IN_KIT.format(python=candidate))
            if executable not in found:
                found.add(executable)
                yield executable, sorted(folders), identity

    def _namespaces_work(self):
        """(True, "") when bubblewrap can start the interpreter here, with the seccomp
        filter where there is one, else (False, why not)."""
        empty = Path(tempfile.mkdtemp(prefix="probe-", dir=self.scratch))
        seccomp = self._seccomp_fd()
        try:
            done = subprocess.run(self._bwrap(empty, seccomp=seccomp) + [self.python, "-I", "-S",
                                                                          "-c", "pass"],
                                  capture_output=True, timeout=60, env=scrubbed_environment("/"),
                                  cwd="/", pass_fds=(seccomp,) if seccomp is not None else ())
        except (OSError, subprocess.SubprocessError) as problem:
            return False, f"bubblewrap did not start: {problem}"
        finally:
            empty.rmdir()
            if seccomp is not None:
                os.close(seccomp)
        if done.returncode:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return False, said[-1] if said else f"bwrap exited with status {done.returncode}"
        return True, ""

    def _runs_in_fallback(self, python: str, identity: Identity) -> bool:
        """Whether `python` starts whole as a fallback run: its user, its limits, its layers,
        and the same interpreter as the marker saw (where its user cannot read the
        installation, as under a 0700 /root, the dynamic loader may take another one's
        library, and that one's standard library). Should Landlock be what stops it, the
        fallback goes on without Landlock, and says so."""
        home = tempfile.mkdtemp(prefix="probe-", dir=self.scratch)
        try:
            if self._starts(python, self._access(Path(home), None, home, home), identity):
                return True
        finally:
            os.rmdir(home)
        if self.confinement.abi and self._starts(python, None, identity):
            self.confinement.abi, self.confinement.why_no_landlock = 0, LANDLOCK_STOPS_PYTHON
            return True
        return False

    def _starts(self, python: str, access, identity: Identity) -> bool:
        uid = self.new_user()
        entering = self.confinement.entering(access)
        try:
            done = subprocess.run(launcher.argv("/", uid, self.limits(uid),
                                                [python, "-I", "-S", "-c", IDENTITY]),
                                  capture_output=True, timeout=30, preexec_fn=entering,
                                  env={**scrubbed_environment("/"),
                                       **launcher.environment("", "")}, cwd="/")
        finally:
            kill_user(uid)
        try:
            return done.returncode == 0 and Identity(*json.loads(done.stdout)) == identity
        except (ValueError, TypeError):
            return False

    def _clean_after(self, uid: int, folder: Path) -> None:
        """In the fallback, what a run left: removed by its own user, since a path its user
        controls could lead root anywhere, while that user can remove only what it could
        have removed itself. Root then removes the empty home and tmp from its own folder."""
        home, tmp = folder / "home", folder / "tmp"
        if uid < 0:
            remove_tree(folder)
            return
        cleaner = ["/bin/sh", "-c", CLEANER, "sh", str(home), str(tmp), *self.shared_folders]
        try:
            subprocess.run(launcher.argv("/", uid, [], cleaner),
                           capture_output=True, timeout=self.timeout + 60,
                           env={**scrubbed_environment("/"), **launcher.environment("", "")},
                           cwd="/")
        except subprocess.TimeoutExpired:
            pass
        kill_user(uid)
        for left in (home, tmp, folder):
            try:
                left.rmdir()
            except OSError:
                pass  # removed with the scratch folder at the end, when no run is left


class Session:
    """One student's program: its piped cases run one after another in one sandbox, with
    what makes a case independent of the one before kept per case.

    Under namespaces: one bubblewrap, one control group and one throwaway user, entered
    once; exactmark.sandbox.driver, the sandbox's root, mounts a fresh home, /tmp and /dev/shm and
    starts the launcher for each case, which the marker hands it with its three pipes. In
    the fallback: one throwaway user and one control group; each case gets a fresh home
    and TMPDIR (new folders), and what it left is removed by its user, as in a run of its
    own. Either way, every process of a case is killed and seen gone before the next case
    starts (by the group, or by the user and the sandbox's processes where there is no
    group), and its CPU time, idle time and memory kills are counted from its own start.
    Cases at a terminal run in a fresh sandbox of their own (`Sandbox.run`)."""

    def __init__(self, sandbox: Sandbox, snapshot: Path):
        self.sandbox, self.snapshot = sandbox, snapshot
        self.uid = sandbox.new_user()
        memory, processes = sandbox.budget.memory, sandbox.budget.processes
        self.group = self.driver_group = self.next_group = None
        if sandbox.groups and sandbox.namespaces:  # the driver and each case in groups of their own
            self.group = sandbox.groups.new(memory + DRIVER_ROOM_BYTES,
                                            processes + 2 + DRIVER_PROCESSES)
            self.driver_group = self.group.child("driver", DRIVER_ROOM_BYTES, DRIVER_PROCESSES)
        elif sandbox.groups:
            self.group = sandbox.groups.new(memory, processes + 2)
        self.files = Path(tempfile.mkdtemp(prefix="files-", dir=sandbox.scratch))
        self.process = self.channel = None
        self.cases = 0  # case groups made so far: each is named by its number
        self.keep = set()  # the sandbox's own processes: bubblewrap's and the driver
        self.broken = False  # the driver is gone: the session marks no more case
        if sandbox.namespaces:
            try:
                self._start_driver()
            except BaseException:
                self.close()
                raise

    def usage(self) -> "Usage":
        return Usage(self.uid, self.group)

    def run(self, command, stdin: bytes, files: dict, environment=lambda home: {},
            terminal: bool = False, head: int = None, budget: Budget = None) -> Ran:
        """As `Sandbox.run`, in this session."""
        sandbox = self.sandbox
        if terminal and sandbox.namespaces:
            return sandbox.run(self.snapshot, command, stdin, files, environment, terminal, head,
                               budget)
        if not sandbox.namespaces:
            return sandbox.run(self.snapshot, command, stdin, files, environment, terminal, head,
                               budget, held=self)
        if sandbox.stopping.is_set():
            raise Stopped
        if self.broken:
            raise SessionLost(DRIVER_GONE)
        return self._piped(command, stdin, files, environment, head, budget or sandbox.budget)

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
        if self.process is not None:
            try:
                self.process.wait(timeout=DRIVER_SECONDS)
            except subprocess.TimeoutExpired:
                kill_group(self.process.pid)
                self.process.wait()
        for group in (self.next_group, self.driver_group, self.group):
            if group:
                group.remove()
        kill_user(self.uid)
        remove_tree(self.files)

    def _start_driver(self) -> None:
        sandbox = self.sandbox
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # No cgroup namespace: each case's process joins its case's group, beside the
        # driver's, which a namespace rooted at the driver's group would not reach.
        argv = sandbox._bwrap(self.snapshot, self.files, cgroup_namespace=False) + [
            sandbox.base_python, "-I", "-S", "-c", DRIVER_SOURCE, str(theirs.fileno())]
        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd="/", env=scrubbed_environment("/"),
                start_new_session=True, pass_fds=(theirs.fileno(),),
                preexec_fn=self.driver_group.enter if self.driver_group else None)
        finally:
            theirs.close()
        self.channel = ours
        home_files = HOME_ROOM_FILES + snapshot_files(self.snapshot)
        mounts = [[SANDBOX_HOME, HOME_ROOM_BYTES + snapshot_bytes(self.snapshot), home_files,
                   "0755"], ["/tmp", TMP_BYTES, TMP_FILES, "1777"],
                  ["/dev/shm", SHM_BYTES, SHM_FILES, "0755"]]
        program = sandbox.confinement.program or b""
        self.next_group = self._case_group()
        ours.settimeout(DRIVER_SECONDS)
        try:
            self._send(json.dumps({"seccomp": program.hex(), "mounts": mounts}).encode(), [],
                       self.next_group)
            ready = ours.recv(64)
        except OSError:
            ready = b""
        ours.settimeout(None)
        if ready != driver.READY:
            raise RuntimeError(DRIVER_FAILED)
        self.keep = {self.process.pid, *descendants(self.process.pid)}

    def _case_processes(self, group) -> set:
        """Every process of the case under way, wherever it went: its group's, or the
        sandbox's and the user's, the sandbox's own processes left out."""
        if group:
            return group.processes()
        found = set(descendants(self.process.pid))
        if self.uid >= 0:
            found.update(processes_of(self.uid))
        return found - self.keep

    def _case_pids(self, group, whole: bool) -> set:
        """The case's processes, for its CPU time: with `whole`, every one
        (`_case_processes`); else, cheaply, those below the driver."""
        if whole or group:
            return self._case_processes(group)
        return set(descendants(self.process.pid)) - self.keep

    def _piped(self, command, stdin: bytes, files: dict, environment, head,
               budget: Budget) -> Ran:
        """A case through the driver: its pipes handed over, its status read back, the
        marker's own collect() reading what it wrote."""
        sandbox = self.sandbox
        for old in self.files.iterdir():
            old.unlink()
        for name, data in files.items():
            (self.files / name).write_bytes(data)
        home = Path(SANDBOX_HOME)
        case = {"argv": command(home), "uid": self.uid, "home": SANDBOX_HOME,
                "snapshot": SANDBOX_SNAPSHOT, "files": SANDBOX_FILES if files else "",
                "env": scrubbed_environment(SANDBOX_HOME, TMPDIR="/tmp", **environment(home)),
                "limits": [[name, *(value if isinstance(value, tuple) else (value, value))]
                           for name, value in sandbox.limits(self.uid, budget)]}
        group, self.next_group = self.next_group, None
        try:
            self.next_group = self._case_group()
            return self._through_driver(group, case, stdin, head, budget)
        finally:
            if group:
                group.remove()

    def _case_group(self):
        """The next case's own control group, made a case ahead: its first process joins
        it while the case before runs (exactmark.sandbox.driver)."""
        if not self.group:
            return None
        self.cases += 1
        return self.group.child(f"case-{self.cases}", self.sandbox.budget.memory,
                                self.sandbox.budget.processes + 2)

    def _send(self, message: bytes, fds: list, group) -> None:
        """`message` to the driver with `fds` and the cgroup.procs files of `group`."""
        entries = [os.open(entry, os.O_WRONLY | os.O_CLOEXEC) for entry in
                   (group.entries if group else [])]
        try:
            socket.send_fds(self.channel, [message], [*fds, *entries])
        finally:
            for fd in entries:
                os.close(fd)

    def _through_driver(self, group, case: dict, stdin: bytes, head, budget: Budget) -> Ran:
        sandbox = self.sandbox
        usage = Usage(self.uid, group)
        kill_case = lambda: kill_every(lambda: self._case_processes(group))  # noqa: E731
        pipes = [os.pipe() for _ in range(3)]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        try:
            self._send(json.dumps(case).encode(), theirs, self.next_group)
        except OSError as problem:
            self.broken = True
            raise SessionLost(DRIVER_GONE) from problem
        finally:
            for fd in theirs:
                os.close(fd)
        streams = _Streams(open(pipes[0][1], "wb"), open(pipes[1][0], "rb"),
                           open(pipes[2][0], "rb"))
        answer, ended = {}, threading.Event()
        threading.Thread(target=self._answer, args=(answer, ended), daemon=True).start()
        run_id = object()
        sandbox._started(run_id, self.process.pid, self.uid, None)
        watch = None
        try:
            if sandbox.measures_cpu:
                read = usage.cpu_seconds if sandbox.cpu_by_group else ProcessesCpu(
                    lambda whole: self._case_pids(group, whole))
                watch = CpuWatch(read, budget.cpu_seconds, budget.idle_seconds, kill_case,
                                 CPU_POLL_SECONDS)
            outputs = sandbox._gathered(streams, stdin, head, ended, kill_case, budget)
            if not ended.wait(DRIVER_SECONDS):
                self.broken = True
            cpu_seconds = watch.stop() if watch else None
        finally:
            if watch:
                watch.stop()
            kill_case()
            with sandbox._lock:
                sandbox._running.pop(run_id, None)
        status = answer.get("status")
        if status is None:
            self.broken = True
            raise Stopped if sandbox.stopping.is_set() else SessionLost(DRIVER_GONE)
        return sandbox._outcome(outputs, status, watch, cpu_seconds, usage, budget)

    def _answer(self, answer: dict, ended: threading.Event) -> None:
        """The driver's word that the case's launcher has ended, with its status."""
        try:
            said = self.channel.recv(driver.MOST_MESSAGE)
            answer.update(json.loads(said) if said else {})
        except (OSError, ValueError):
            pass
        ended.set()


class SessionLost(RuntimeError):
    """A session's driver has gone: the case is the marker's error, and a new session
    marks the next one."""


@dataclass
class _Streams:
    """The three ends of a case's pipes, as `collect` reads a process's."""
    stdin: object
    stdout: object
    stderr: object


def descendants(pid: int) -> list:
    """Every process below `pid`, from Linux's /proc (those a run left still hang below
    bubblewrap's first process, which adopts them)."""
    found, pending = [], [pid]
    while pending:
        parent = pending.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as listing:
                    children = [int(child) for child in listing.read().split()]
            except OSError:
                continue
            found += children
            pending += children
    return found


def clean_environment(folder: Path, python: str, version: str) -> Path:
    """A virtual environment over `python` with no package of its own: site.py then puts
    only its empty site-packages on sys.path (not the installation's, whose .pth files cost
    each run tens of milliseconds and whose packages a student's machine lacks), while
    sys.flags, exit() and the program's own folder on sys.path stay as `python3 file.py`
    has them. Readable by every user: a fallback run's user starts from it."""
    name = Path(python).name
    (folder / "lib" / f"python{version}" / "site-packages").mkdir(parents=True)
    (folder / "bin").mkdir()
    (folder / "bin" / name).symlink_to(python)
    if name != "python3":
        (folder / "bin" / "python3").symlink_to(name)
    (folder / "pyvenv.cfg").write_text(f"home = {Path(python).parent}\n"
                                       "include-system-site-packages = false\n"
                                       f"version = {version}\n", encoding="utf-8")
    for path in (folder, *folder.rglob("*")):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def bwrap_options(bwrap: str) -> set:
    """The options this bubblewrap has, from its --help: versions differ (Ubuntu 22.04's
    0.6.1 has no --size), and an option it lacks must not be passed."""
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, timeout=30,
                              env=scrubbed_environment("/"))
    except (OSError, subprocess.SubprocessError):
        return set()
    return set(re.findall(r"(?m)^\s+(--[a-z][a-z-]*)", done.stdout.decode("utf-8", "replace")))


def run_limits(runs_at_once: int, markers: int = 1) -> tuple:
    """(memory, processes) per run: the kit's own limits, or less where the container (its
    control groups) allows less, leaving each of the `markers` that share it room of its
    own (a class marks several students at once, a marker each)."""
    memory, processes = enclosing_limits()
    markers = max(1, markers)
    runs = max(1, runs_at_once) * markers
    if memory is not None:
        memory = max(LEAST_MEMORY_BYTES, min(MEMORY_BYTES,
                                             (memory - markers * MARKER_ROOM_BYTES) // runs))
    if processes is not None:
        processes = max(LEAST_PROCESSES, min(PROCESSES,
                                             (processes - markers * MARKER_PROCESSES) // runs))
    return memory or MEMORY_BYTES, processes or PROCESSES


def world_writable_folders(tops=SHARED_FOLDERS, most: int = MOST_SHARED_FOLDERS) -> list:
    """The folders every user may write to, in and below the usual shared ones
    (looking at `most` folders at most): where a fallback run's user can leave files."""
    found, pending, seen = [], [Path(top) for top in tops], 0
    while pending and seen < most:
        folder = pending.pop()
        seen += 1
        try:
            if not folder.is_symlink() and folder.stat().st_mode & stat.S_IWOTH:
                found.append(str(folder))
            with os.scandir(folder) as listing:
                pending += [Path(entry.path) for entry in listing
                            if entry.is_dir(follow_symlinks=False)]
        except OSError:
            continue
    return sorted(found)


def _open_folders(folder: Path) -> list:
    """Make `folder` and those above it in the sandbox, open to all (bubblewrap would
    copy the modes of the machine's own, such as a 0700 /root above an interpreter)."""
    argv = []
    for path in [*reversed(folder.parents), folder][1:]:
        argv += ["--perms", "0755", "--dir", str(path)]
    return argv


@functools.lru_cache(maxsize=64)
def snapshot_files(snapshot: Path) -> int:
    return sum(1 for _ in snapshot.rglob("*"))


@functools.lru_cache(maxsize=64)
def snapshot_bytes(snapshot: Path) -> int:
    """Once per snapshot, not once per run: nothing writes in a snapshot after it is taken."""
    return tree_bytes(snapshot)


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class Usage:
    """What one run of a case has used of its user's control group, counted from its
    start: a Session's group lives through many cases, each measured on its own."""

    def __init__(self, uid: int, group):
        self.uid, self.group = uid, group
        self.cpu_before = (self._group_cpu() or 0.0) if group else 0.0
        self.oom_before = group.oom_kills() if group else 0

    def _group_cpu(self):
        if self.group is None:
            return None
        try:
            return self.group.cpu_seconds()
        except Unavailable:
            return None

    def cpu_seconds(self):
        """The run's CPU time so far, or None once its group is gone."""
        seconds = self._group_cpu()
        return None if seconds is None else seconds - self.cpu_before

    def out_of_memory(self) -> bool:
        return bool(self.group) and self.group.oom_kills() > self.oom_before


def kill_user(uid: int) -> None:
    """Kill every process of a throwaway user, forks that left the process group included."""
    if uid >= 0:
        kill_every(lambda: processes_of(uid))


