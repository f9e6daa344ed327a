"""Run untrusted code (a student's submission) with limits, the way a marker must.

Each run gets: a scrubbed environment; limits on CPU time, memory, file size,
open files and processes; its own process group, killed whole on timeout; its
output capped. When the marker runs as root, each run also gets a throwaway
user id, so that the process limit holds (Linux does not apply it to root),
the run cannot signal the marker or write its files, and every process it left
behind can be found and killed. This is not a container: see the README.
"""

import os
import random
import selectors
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

CPU_SECONDS_OVER_TIMEOUT = 1
MEMORY_BYTES = 1 << 30
FILE_BYTES = 16 << 20
OPEN_FILES = 256
PROCESSES = 32  # more than the run's own: the throwaway user has no other
MOST_OUTPUT = 4 << 20
# Throwaway user ids: above the ranges that systemd and container tools hand out,
# below 2**31; each marker starts at a random place, so that two markers at
# once do not share (and kill) each other's users.
FIRST_SANDBOX_UID = 2_000_000_000
SANDBOX_UIDS = 1_000_000
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"

# Run by the marker's interpreter in the child, isolated (-I: nothing of the
# submission's folder on its path) and started in "/": become the throwaway
# user, set the limits, go to the run's folder, become the submission's interpreter.
LAUNCHER = """
import ast, os, resource, sys
uid, limits, folder, argv = int(sys.argv[1]), ast.literal_eval(sys.argv[2]), sys.argv[3], sys.argv[4:]
if uid >= 0:
    os.setgroups([]); os.setgid(uid); os.setuid(uid)
for name, value in limits:
    if name == "RLIMIT_NPROC" and uid < 0:
        value += sum(1 for p in os.listdir("/proc") if p.isdigit() and os.stat("/proc/" + p).st_uid == os.getuid())
    resource.setrlimit(getattr(resource, name), (value, value))
os.chdir(folder)
os.execv(argv[0], argv)
"""


@dataclass(frozen=True)
class Outcome:
    stdout: bytes
    stderr: bytes
    status: int  # None when killed by the marker
    timed_out: bool = False
    too_large: str = ""  # the stream that overflowed


def scrubbed_environment(home: str, **extra) -> dict:
    """Only what a program needs to start: no tokens, no paths of the marker."""
    return {"PATH": SAFE_PATH, "HOME": home, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
            **extra}


class Sandbox:
    """Hands out throwaway users (when root) and wraps commands in the limits."""

    def __init__(self, timeout: float, python: str = None):
        self.timeout = timeout
        self.as_root = hasattr(os, "geteuid") and os.geteuid() == 0
        self._next = random.randrange(SANDBOX_UIDS)
        self._lock = threading.Lock()
        self.python = python or self._python_for_sandbox()
        if python and not self._runs(python):
            raise RuntimeError(f"{python} does not run in the sandbox")

    def limits(self) -> list:
        return [("RLIMIT_CPU", int(self.timeout) + CPU_SECONDS_OVER_TIMEOUT),
                ("RLIMIT_AS", MEMORY_BYTES), ("RLIMIT_FSIZE", FILE_BYTES),
                ("RLIMIT_NOFILE", OPEN_FILES), ("RLIMIT_NPROC", PROCESSES),
                ("RLIMIT_CORE", 0)]

    def new_user(self) -> int:
        """A user id no other run holds at the same time; -1 when not root."""
        if not self.as_root:
            return -1
        with self._lock:
            while True:
                self._next += 1
                uid = FIRST_SANDBOX_UID + self._next % SANDBOX_UIDS
                if not processes_of(uid):
                    return uid

    def wrap(self, argv: list, uid: int, folder: str) -> list:
        """The command that runs `argv` in `folder` as `uid`, within the limits; start it in "/"."""
        return [sys.executable, "-I", "-c", LAUNCHER, str(uid), repr(self.limits()), folder, *argv]

    def _python_for_sandbox(self) -> str:
        """An interpreter the throwaway user may run (root's own may sit in a private folder)."""
        candidates = [sys.executable, "/usr/local/bin/python3", "/usr/bin/python3"]
        for python in candidates:
            if os.path.exists(python) and self._runs(python):
                return python
        raise RuntimeError("no Python interpreter that the sandbox user can run; give --python")

    def _runs(self, python: str) -> bool:
        uid = self.new_user()
        try:
            done = subprocess.run(self.wrap([python, "-c", "pass"], uid, "/"), capture_output=True,
                                  timeout=30, env=scrubbed_environment("/"), cwd="/")
        finally:
            kill_user(uid)
        return done.returncode == 0


def processes_of(uid: int) -> list:
    pids = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.stat(f"/proc/{name}").st_uid == uid:
                pids.append(int(name))
        except OSError:
            pass  # the process ended meanwhile
    return pids


def kill_user(uid: int) -> None:
    """Kill every process of a throwaway user, forks that left the process group included."""
    if uid < 0:
        return
    for _ in range(100):
        pids = processes_of(uid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)


def hand_over(folder: str, uid: int) -> None:
    """Give the run's folder to its throwaway user."""
    if uid < 0:
        return
    for path, folders, files in os.walk(folder):
        for name in [".", *folders, *files]:
            os.chown(os.path.join(path, name), uid, uid, follow_symlinks=False)


def run_limited(sandbox: Sandbox, argv: list, stdin: bytes, cwd: str, env: dict,
                uid: int, most_output: int = MOST_OUTPUT) -> Outcome:
    """Pipe stdin in, collect stdout and stderr up to `most_output` bytes each,
    kill the whole process group at the time limit or when output overflows."""
    process = subprocess.Popen(sandbox.wrap(argv, uid, cwd), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/", env=env,
                               start_new_session=True)
    threading.Thread(target=_feed, args=(process.stdin, stdin), daemon=True).start()
    outputs = {process.stdout: bytearray(), process.stderr: bytearray()}
    deadline = time.monotonic() + sandbox.timeout
    timed_out, too_large = False, ""
    with selectors.DefaultSelector() as selector:
        for stream in outputs:
            selector.register(stream, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(remaining):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                outputs[key.fileobj] += chunk
                if len(outputs[key.fileobj]) > most_output:
                    too_large = "stdout" if key.fileobj is process.stdout else "stderr"
            if too_large:
                break
    if not (timed_out or too_large):
        try:  # its output closed, the program may still be running
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    if timed_out or too_large:
        _kill_group(process)
    status = process.wait()
    kill_user(uid)
    for stream in outputs:
        stream.close()
    return Outcome(bytes(outputs[process.stdout][:most_output]),
                   bytes(outputs[process.stderr][:most_output]),
                   None if timed_out or too_large else status, timed_out, too_large)


def _feed(pipe, data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except OSError:
        pass  # the program ended without reading all its input


def _kill_group(process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
