"""One student's program in one sandbox (`Session`): its piped cases run one after another
through exactmark.sandbox.driver, the sandbox's root, which the marker talks to over a
socket: the case and its three pipes handed over, its exit status read back."""

import json
import os
import socket
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from exactmark.base.tree import remove_tree
from exactmark.running.limits import Budget, descendants, processes_of, scrubbed_environment
from exactmark.running.record import Ran
from exactmark.running.supervise import gather, kill_group
from exactmark.sandbox import driver
from exactmark.sandbox.cgroups import Usage, kill_every, kill_user
from exactmark.sandbox.errors import SandboxError, SessionLost, Stopped
from exactmark.sandbox.mounts import SANDBOX_FILES, SANDBOX_HOME, SANDBOX_SNAPSHOT, case_mounts

DRIVER_ROOM_BYTES = 32 << 20  # a session's bubblewrap and driver, beside the run's memory
DRIVER_PROCESSES = 8  # bubblewrap's two, the driver, and the next case's first process before it moves
DRIVER_SECONDS = 30  # what the driver may take to answer once its case has ended
DRIVER_SOURCE = Path(driver.__file__).read_text(encoding="utf-8")

DRIVER_FAILED = "the sandbox's driver did not start"
DRIVER_GONE = "the sandbox's driver has gone"


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
    Cases at a terminal run in a fresh sandbox of their own (`Sandbox.run`). Made by
    `sandbox.session(snapshot)`, a context manager that closes it; it uses the sandbox's
    public methods alone."""

    def __init__(self, sandbox, snapshot: Path):
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

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exception) -> None:
        self.close()

    def usage(self) -> Usage:
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
        argv = sandbox.bubblewrap(self.snapshot, self.files, cgroup_namespace=False) + [
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
        program = sandbox.confinement.program or b""
        self.next_group = self._case_group()
        ours.settimeout(DRIVER_SECONDS)
        try:
            self._send(json.dumps({"seccomp": program.hex(),
                                   "mounts": case_mounts(self.snapshot)}).encode(), [],
                       self.next_group)
            ready = ours.recv(64)
        except OSError:
            ready = b""
        ours.settimeout(None)
        if ready != driver.READY:
            raise SandboxError(DRIVER_FAILED)
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
        marker's own `gather` reading what it wrote."""
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
        sandbox.note_run(run_id, self.process.pid, self.uid, None)
        watch = None
        try:
            watch = sandbox.watch(usage, lambda whole: self._case_pids(group, whole), kill_case,
                                  budget)
            gathered = gather(streams, stdin, budget, ended, kill_case, head, sandbox.stopping)
            if not ended.wait(DRIVER_SECONDS):
                self.broken = True
            cpu_seconds = watch.stop() if watch else None
        finally:
            if watch:
                watch.stop()
            kill_case()
            sandbox.forget_run(run_id)
        status = answer.get("status")
        if status is None:
            self.broken = True
            raise Stopped if sandbox.stopping.is_set() else SessionLost(DRIVER_GONE)
        return sandbox.piped_outcome(gathered, status, watch, cpu_seconds, usage, budget)

    def _answer(self, answer: dict, ended: threading.Event) -> None:
        """The driver's word that the case's launcher has ended, with its status."""
        try:
            said = self.channel.recv(driver.MOST_MESSAGE)
            answer.update(json.loads(said) if said else {})
        except (OSError, ValueError):
            pass
        ended.set()


@dataclass
class _Streams:
    """The three ends of a case's pipes, as `collect` reads a process's."""
    stdin: object
    stdout: object
    stderr: object
