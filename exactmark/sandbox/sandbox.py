"""Run untrusted code (a student's submission) the way a marker must.

`with Sandbox(...) as box:` runs each case on its own (`box.run`); `with
box.session(snapshot) as session:` runs one student's cases one after another in one
sandbox (exactmark.sandbox.session). Each closes what it made; a sandbox or session
that cannot be made raises exactmark.sandbox.errors.SandboxError, saying why. The
interpreter the runs use is chosen in exactmark.sandbox.interpreter, what they see of
the file system in exactmark.sandbox.mounts.

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
gives of the run's own processes (exactmark.running.supervise.ProcessesCpu): those of its
throwaway user, and those below the process it started (bubblewrap's, under
namespaces). RLIMIT_CPU, a second over the limit, stays as a backstop per process.
"""

import itertools
import os
import random
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

from exactmark.base.tree import remove_tree
from exactmark.running.limits import (FILE_BYTES, MEMORY_BYTES, PROCESSES, SAFE_PATH,
                                      WRITTEN_BYTES, Budget, descendants, mebibytes, processes_of,
                                      rlimits, scrubbed_environment, time_caps)
from exactmark.running.record import FILES, Limit, Ran
from exactmark.running.supervise import (CpuWatch, Gathered, Piped, ProcessesCpu, gather,
                                         kill_group, limit_hit, piped_ran)
from exactmark.sandbox import disk, launcher
from exactmark.sandbox.cgroups import Groups, Unavailable, Usage, enclosing_limits, kill_user
from exactmark.sandbox.confine import DEVICES, Access, Confinement
from exactmark.sandbox.errors import SandboxError, Stopped
from exactmark.sandbox.interpreter import clean_environment, interpreters, none_runs, \
    runs_in_fallback
from exactmark.sandbox.mounts import (HOME_ROOM_FILES, SANDBOX_FILES, SANDBOX_HOME, SANDBOX_PYTHON,
                                      SANDBOX_SNAPSHOT, SYSTEM_FILES, SYSTEM_FOLDERS, TMP_BYTES,
                                      TMP_FILES, bwrap_argv, bwrap_options, snapshot_bytes,
                                      snapshot_files, world_writable_folders)
from exactmark.sandbox.session import Session

CPU_POLL_SECONDS = 0.05  # how often the run's CPU time is read: it may go over by this per core
MARKER_ROOM_BYTES = 256 << 20  # left to the marker under a container's memory limit
MARKER_PROCESSES = 64  # left to the marker under a container's process limit
LEAST_MEMORY_BYTES, LEAST_PROCESSES = 64 << 20, 4  # below these no program starts
# Throwaway user ids: above the ranges that systemd and container tools hand out,
# below 2**31; each marker starts at a random place, so that two markers at
# once do not share (and kill) each other's users.
FIRST_SANDBOX_UID = 2_000_000_000
SANDBOX_UIDS = 1_000_000
# Run as the run's own user after a fallback run: its home and tmp emptied, then what it
# left in the folders every user may write to, then its System V IPC objects.
CLEANER = """home=$1 tmp=$2; shift 2
chmod -R u+rwx -- "$home" "$tmp" 2>/dev/null
find "$home" "$tmp" -mindepth 1 -delete 2>/dev/null
find "$@" -xdev -mindepth 1 -maxdepth 1 -user "$(id -u)" \\
    -exec chmod -R u+rwx {} + -exec rm -rf --one-file-system {} + 2>/dev/null
ipcrm --all 2>/dev/null
exit 0"""
OWN_PROC = "/proc/self"  # in the fallback a run reads its own /proc, as under namespaces

NAMESPACES = "namespaces"
STUDENT, CASE = "student", "case"  # a sandbox per student and program, or per case
FALLBACK = "fallback"
AUTO = "auto"

NO_BWRAP = "bubblewrap (bwrap) is not installed"
HOME_NOT_FILLED = "the run's home could not be filled ({tool} ended with status {status})"
NO_TOOLS = "the sandbox needs {tools} (util-linux and coreutils), which are not on the PATH"
FALLBACK_ASKED = "--isolation fallback"
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


class Sandbox:
    """Runs commands from a snapshot of a submission, one isolated run at a time per call.
    `timeout` is the seconds of CPU a whole run may use, all its processes together;
    `wall_seconds` its wall-clock cap (WALL_FACTOR times `timeout` unless given, and
    never below `timeout`)."""

    def __init__(self, timeout: float, scratch: Path, hidden: list, python: str = None,
                 isolation: str = AUTO, wall_seconds: float = None, runs_at_once: int = 1,
                 markers: int = 1):
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
        self.users = []
        missing = [tool for tool in launcher.TOOLS if not shutil.which(tool, path=SAFE_PATH)]
        if missing:
            raise SandboxError(NO_TOOLS.format(tools=", ".join(missing)))
        self.bwrap = shutil.which("bwrap")
        self.bwrap_options = bwrap_options(self.bwrap) if self.bwrap else set()
        self.memory, self.processes = run_limits(runs_at_once, markers)
        self.runs_at_once = max(1, runs_at_once) * max(1, markers)  # the disk's room is for all
        self.budget = Budget(self.timeout, self.wall_seconds, self.idle_seconds, self.memory,
                             self.processes)
        self.confinement = Confinement()
        candidates = interpreters(python, self.hidden)  # asked one at a time, as far as needed
        first = next(candidates, None)
        if first is None:
            raise none_runs(python)
        self.python, self.prefixes, self.identity = first
        self.environment = None  # the stdlib-only environment the runs start from, made below
        self.namespaces, self.why_not = False, FALLBACK_ASKED if isolation == FALLBACK else NO_BWRAP
        if isolation != FALLBACK and self.bwrap:
            self.namespaces, self.why_not = self._namespaces_work()
        if isolation == NAMESPACES and not self.namespaces:
            raise SandboxError(NAMESPACES_REFUSED.format(reason=self.why_not))
        if not self.namespaces:  # the run's user must reach the interpreter on the machine itself
            runnable = next((found for found in itertools.chain([first], candidates)
                             if runs_in_fallback(self, found[0], found[2])), None)
            if runnable is None:
                raise none_runs(python)
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
        elif self.namespaces:  # the fallback's Reach line says it: here nothing else would
            found.append(self.confinement.missing()[-1])
        found.append(self.groups.describe() if self.groups else f"no cgroup ({self.why_no_group})")
        found.append(DESCRIBE_USERS if self.as_root else DESCRIBE_OWN_USER)
        return found

    def describe(self, python: bool = True) -> list:
        """The header's lines on what confines each run; the Python interpreter named
        only where a program runs in it (`python`): a C program's runs have none."""
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
        interpreter = [STDLIB_ONLY.format(python=self.base_python,
                                          version=self.identity.version.split()[0])] * python
        return [f"Isolation: {', '.join(self.layers())}",
                f"Reach: {'; '.join(reach)}",
                "Limits per run: " + "; ".join([time_limit, limits, f"{mebibytes(FILE_BYTES)} per file",
                                                tmp, *interpreter])]

    def one_per(self, asked: str) -> str:
        """What a sandbox is made for, as asked: per student only as root, where the
        cases' user is not the marker's."""
        return STUDENT if asked == STUDENT and self.as_root else CASE

    def describe_one_per(self, asked: str) -> str:
        if self.one_per(asked) == CASE:
            return PER_CASE.format(why=NOT_ROOT_PER_CASE if asked == STUDENT else "")
        if self.namespaces:
            return PER_STUDENT_NAMESPACES
        return PER_STUDENT_FALLBACK.format(group=FALLBACK_GROUP if self.groups else "")

    # Running

    def run(self, snapshot: Path, command, stdin: bytes, files: dict, environment=lambda home: {},
            terminal: bool = False, head: int = None, budget: Budget = None, held=None) -> Ran:
        """Run `command(home)` (an argv) with `stdin` and `environment(home)` added to a
        scrubbed environment, its home filled from `snapshot` plus `files` ({name: bytes});
        a `exactmark.running.record.Ran` (at a terminal: its screen). With `head`, stdout's
        reader goes away after that many bytes. `budget`: what the run may use (the
        marking's by default). `held`: a fallback Session's user and control group, kept
        after the run, instead of fresh ones. A run that meets a full disk is the marker's
        error (disk.DiskFull, which tells whoever runs the marking)."""
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
            wrapped = self.bubblewrap(snapshot, given, seccomp) + wrapped
        env = {**scrubbed_environment(home, TMPDIR=tmp or "/tmp", **environment(Path(home))),
               **where}
        access = None if self.namespaces else self.access(snapshot, given, home, tmp)
        entering = self._entering(group, access)
        passed = (seccomp,) if seccomp is not None else ()
        run_id = object()
        watch = written = None
        try:
            if folder is not None:
                written = self._filled(folder, snapshot, given, files, uid,
                                       lambda: self._kill_run(run_id, uid, group))
            watch = self.watch(usage, lambda whole: self._run_processes(run_id, uid, whole),
                               lambda: self._kill_run(run_id, uid, group), budget)
            started = lambda pid: self.note_run(run_id, pid, uid, group)  # noqa: E731
            if terminal:
                from exactmark.running.terminal import run_in_terminal

                screen = run_in_terminal(wrapped, stdin, "/", env, budget.wall_seconds,
                                         depth=2 if self.namespaces else 0, started=started,
                                         preexec_fn=entering, pass_fds=passed, watch=watch)
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
            self.forget_run(run_id)
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

    def session(self, snapshot: Path) -> Session:
        """One student's program: its cases run one after another in one sandbox."""
        return Session(self, snapshot)

    def limits(self, uid: int = -1, budget: Budget = None) -> list:
        """The rlimits of each process of a run of `uid`; without a throwaway user
        (-1), the process limit counts our own user's processes too."""
        return rlimits(budget or self.budget,
                       len(processes_of(os.getuid())) if uid < 0 else 0)

    def access(self, snapshot: Path, given, home: str, tmp: str) -> Access:
        """What a fallback run may reach of the file system: what bubblewrap would show it
        (exactmark.sandbox.interpreter proves the interpreter starts within it)."""
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

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exception) -> None:
        self.close()

    def note_run(self, run_id, pid: int, uid: int, group) -> None:
        """A run under way (`pid`, the process it started), for `stop_all` to kill: killed
        at once when the marker is stopping already. A Session notes each of its cases."""
        with self._lock:
            self._running[run_id] = (pid, uid, group)
        if self.stopping.is_set():
            kill_group(pid)

    def forget_run(self, run_id) -> None:
        """The run is over: `stop_all` has nothing of it left to kill."""
        with self._lock:
            self._running.pop(run_id, None)

    def watch(self, usage: Usage, processes, kill, budget: Budget):
        """The watch on a run's CPU time and idleness (exactmark.running.supervise.CpuWatch),
        which `kill()`s it: its control group's CPU time, or the sum over its processes,
        `processes(whole)`, as /proc gives them; None where neither is measured (RLIMIT_CPU
        alone holds it). The sandbox's runs and a Session's cases are watched alike."""
        if not self.measures_cpu:
            return None
        read = usage.cpu_seconds if self.cpu_by_group else ProcessesCpu(processes)
        return CpuWatch(read, budget.cpu_seconds, budget.idle_seconds, kill, CPU_POLL_SECONDS)

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

    def _terminal_outcome(self, screen: Ran, watch, usage: Usage, budget: Budget) -> Ran:
        """The terminal's run, with the limit that ended it as the run's limits say."""
        cpu_seconds = watch.stop() if watch else None
        limit = screen.limit if screen.too_large else limit_hit(
            watch, cpu_seconds, budget.cpu_seconds, self._killed_by_rlimit(screen.status),
            screen.timed_out)
        return Ran(screen.stdout, status=None if limit else screen.status, limit=limit,
                   overflowed=screen.overflowed, out_of_memory=usage.out_of_memory(),
                   cpu_seconds=cpu_seconds, read_past_input=screen.read_past_input,
                   read_all_input=screen.read_all_input)

    def _piped(self, argv: list, stdin: bytes, env: dict, started, used: Usage, watch,
               head: int, entering, passed: tuple, budget: Budget) -> Ran:
        """Pipe stdin in, collect stdout and stderr up to the budget's cap each (stdout
        up to `head` bytes, then its read end closed, as `| head -c` does), kill the whole
        run at the wall-clock cap or when output overflows (`watch` kills it at the CPU
        limit)."""
        piped = Piped(argv, "/", env, entering, passed, started)

        def kill():
            kill_group(piped.pid)
            if used.group:
                used.group.kill()
        gathered = gather(piped.process, stdin, budget, piped.ended, kill, head, self.stopping)
        status, usage = piped.finish()
        cpu_seconds = watch.stop() if watch else None
        if usage and not self.namespaces and not self.cpu_by_group:
            # What the marker sees of the program it started once it reaps it: its CPU time and
            # its waited-for children's, which /proc's last read may have missed. (Not under
            # namespaces: bubblewrap's own, not its PID namespace's.)
            cpu_seconds = max(cpu_seconds or 0.0, usage.ru_utime + usage.ru_stime)
        return self.piped_outcome(gathered, status, watch, cpu_seconds, used, budget)

    def piped_outcome(self, gathered: Gathered, status: int, watch, cpu_seconds, used: Usage,
                      budget: Budget) -> Ran:
        """A piped run's Ran, as this sandbox tells it (RLIMIT_CPU's signal as bubblewrap
        reports it; a run a stop killed has no status). A Session's cases are told alike."""
        return piped_ran(gathered, status, budget, watch, cpu_seconds,
                         self._killed_by_rlimit(status),
                         stopped=status < 0 and self.stopping.is_set(),
                         out_of_memory=used.out_of_memory())

    # Setting up

    @property
    def sizes_capped(self) -> bool:
        return "--size" in self.bwrap_options

    def bubblewrap(self, snapshot: Path, files: Path = None, seccomp: int = None,
                   cgroup_namespace: bool = True) -> list:
        """bubblewrap's command line up to its `--`, for a run from `snapshot` with the
        case's `files`: a run's, and a Session's driver's (without a cgroup namespace, so
        that each case can join its own group)."""
        return bwrap_argv(self.bwrap, self.bwrap_options, self.as_root, self.prefixes,
                          self.environment, self.hidden, snapshot, files, seccomp,
                          cgroup_namespace)

    def _namespaces_work(self):
        """(True, "") when bubblewrap can start the interpreter here, with the seccomp
        filter where there is one, else (False, why not)."""
        empty = Path(tempfile.mkdtemp(prefix="probe-", dir=self.scratch))
        seccomp = self._seccomp_fd()
        try:
            done = subprocess.run(self.bubblewrap(empty, seccomp=seccomp) + [self.python, "-I",
                                                                              "-S", "-c", "pass"],
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
