"""Supervising one piped run, wherever it runs: a sandbox's run, a session's case (through
its driver), a student's checker's. The program started in a session of its own and
reaped as it ends (`Piped`); its stdin fed, stdout and stderr read within their caps,
the run killed at the wall-clock cap or an output over its cap (`gather`); its CPU time
and idleness watched (`CpuWatch`); and the record of how it ended (`piped_ran`). Each
caller says how its run starts, how it is killed and how its CPU time is read. Standard
library only: the student pack's checker is bundled from it."""

import os
import select
import selectors
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from exactmark.running.limits import Budget
from exactmark.running.record import STDERR, STDOUT, Limit, Ran

REAP_POLL_SECONDS = 0.01
ENDED_POLL_SECONDS = 0.05  # how often `collect` looks whether the program has ended
DRAIN_SECONDS = 0.1  # what it still reads once it has: what the pipes hold already
BUSY_CPU_SECONDS = 0.02  # less CPU than this over a whole idle allowance is waiting, not
# working: a program that wakes every second to sleep again is idle, one that works a few
# milliseconds every 0.2 s is not
RESCAN_POLLS = 10  # ProcessesCpu: a full look for a run's processes every this many reads
FEED_BYTES = 1 << 16  # written into a run's stdin at a time, and counted
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def collect(process, stdin: bytes, deadline: float, most_stdout: int, most_stderr: int,
            head: int = None, ended=None) -> tuple:
    """Feed `stdin` to a started process (its three streams pipes) and read stdout and
    stderr until both close, `deadline` (of time.monotonic) passes or one goes over its cap;
    stdout up to `head` bytes, then its read end closed, as `| head -c` does. Once `ended`
    (a threading.Event) is set, the program has ended: what it wrote is read, and a process
    it left holding the pipes is not waited for, as a sandbox whose last process is gone
    does not wait. (stdout, stderr, whether the deadline passed, "stdout" or "stderr" when
    one overflowed, or "", and whether the program had read all of its stdin when it
    overflowed, else when the reading stopped (a run stopped for its time: was it at end
    of input?): None where that is not known)."""
    unread = Unread(process.stdin, len(stdin))
    threading.Thread(target=feed, args=(process.stdin, stdin, unread), daemon=True).start()
    outputs = {process.stdout: bytearray(), process.stderr: bytearray()}
    caps = {process.stdout: (STDOUT, most_stdout), process.stderr: (STDERR, most_stderr)}
    timed_out, too_large, read_all = False, "", None
    with selectors.DefaultSelector() as selector:
        for stream in outputs:
            selector.register(stream, selectors.EVENT_READ)
        drained = None  # when, once the program has ended, reading stops
        while selector.get_map() and not too_large:
            now = time.monotonic()
            remaining = deadline - now
            if remaining <= 0:
                timed_out = True
                break
            if ended is not None and ended.is_set():
                drained = drained or now + DRAIN_SECONDS
                if now >= drained:
                    break
                remaining = min(remaining, drained - now)
            elif ended is not None:
                remaining = min(remaining, ENDED_POLL_SECONDS)
            for key, _ in selector.select(remaining):
                heading = head is not None and key.fileobj is process.stdout
                chunk = os.read(key.fd, head - len(outputs[process.stdout]) if heading
                                else 1 << 16)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                outputs[key.fileobj] += chunk
                if heading and len(outputs[process.stdout]) == head:
                    selector.unregister(process.stdout)
                    process.stdout.close()  # the reader is gone: the program meets EPIPE
                name, most = caps[key.fileobj]
                if len(outputs[key.fileobj]) > most:
                    too_large, read_all = name, unread.none_left()
    if not too_large:
        read_all = unread.none_left()
    for stream in outputs:
        stream.close()
    unread.close()
    return (bytes(outputs[process.stdout][:most_stdout]),
            bytes(outputs[process.stderr][:most_stderr]), timed_out, too_large, read_all)


class Unread:
    """How much of its stdin a run has not read yet: what is still to be written into the
    pipe (`left`, which `feed` counts down) and what waits in it, counted (FIONREAD) through
    a read end of the pipe's own that Linux's /proc/self/fd opens (only writers hold an end
    of input back: this end does not). Where that cannot be opened (no /proc), not known.
    While it is open, a run that ends with its stdin unread leaves `feed` waiting, not
    failing: `close` ends that wait."""

    def __init__(self, pipe, size: int):
        self.left = size
        try:
            self.fd = os.open(f"/proc/self/fd/{pipe.fileno()}", os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            self.fd = None

    def none_left(self):
        """True once the run has read all of its stdin, False while it has not; None when
        that is not known."""
        if self.fd is None:
            return None
        import fcntl  # here: the student's checker runs on systems without it, and says so
        import termios
        waiting = bytearray(4)
        try:
            fcntl.ioctl(self.fd, termios.FIONREAD, waiting)
        except OSError:
            return None
        return self.left == 0 and not int.from_bytes(waiting, sys.byteorder)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class ProcessesCpu:
    """A run's CPU time where no control group counts it, read from Linux's /proc: the sum,
    over the run's processes, of each one's CPU time and its waited-for children's
    (/proc/PID/stat's utime, stime, cutime and cstime). `find(whole)` names the run's
    processes: with `whole`, every RESCAN_POLLS reads, all of them (a scan of /proc for a
    user's, say); between, a cheap look (the processes known and their children). A
    process that ends keeps counting what it had used at the last read when no process
    of the run was its parent to wait for it (one that left its parent, or whose parent
    is outside the run); what it used after that read is lost, as is all of a process
    that started and ended between two reads and that no process of the run waited for:
    the CPU limit may then hold a little late, never the idle one, since a process that
    works is seen working. Each call gives the total so far, which never goes down."""

    def __init__(self, find, rescan: int = None):
        self.find, self.rescan = find, rescan or RESCAN_POLLS
        self.known = {}  # pid -> (its parent's pid, its CPU seconds at the last read)
        self.gone = 0.0  # what the processes that ended unwaited had used
        self.reads, self.total = 0, 0.0

    def __call__(self) -> float:
        pids = set(self.find(self.reads % self.rescan == 0)) | set(self.known)
        self.reads += 1
        seen = {}
        for pid in pids:
            stat = process_stat(pid)
            if stat is not None:
                seen[pid] = stat
        for pid, (parent, seconds) in self.known.items():
            if pid not in seen and parent not in seen:
                self.gone += seconds
        self.known = seen
        self.total = max(self.total, self.gone + sum(seconds for _, seconds in seen.values()))
        return self.total


def process_stat(pid: int):
    """(parent's pid, CPU seconds of `pid` and its waited-for children), or None once it
    is gone (or where /proc does not tell it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        return int(fields[1]), sum(int(value) for value in fields[11:15]) / CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return None


class CpuWatch:
    """A thread that reads a run's CPU time every `poll` seconds (`read()`: its seconds, or
    None once the run is gone) and kills the run (`kill()`) once it is over `limit`
    seconds, or has used less than BUSY_CPU_SECONDS in `idle` seconds: waiting, not
    working. The marker reads a control group's, or, without one, its processes'
    (ProcessesCpu); a student's checker, where /proc tells it, the process's."""

    def __init__(self, read, limit: float, idle: float, kill, poll: float):
        self.read, self.limit, self.idle_limit, self.kill = read, limit, idle, kill
        self.poll = poll
        self.hit = False  # the run was killed for its CPU time
        self.idle = False  # the run was killed for using none for as long as its allowance
        self.excused = lambda: False  # the run waits on the marker (`excuse`): never idle
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        last, since = -1.0, time.monotonic()
        while not self._done.wait(self.poll):
            seconds = self.read()
            if seconds is None:
                return  # the run has ended
            now = time.monotonic()
            if seconds - last >= BUSY_CPU_SECONDS:
                last, since = seconds, now
            if now - since > self.idle_limit and self.excused():
                since = now  # the marker owes it input, however loaded the machine
            if seconds > self.limit or now - since > self.idle_limit:
                self.hit, self.idle = seconds > self.limit, seconds <= self.limit
                self.kill()
                return

    def excuse(self, waiting_on_the_marker) -> None:
        """Never idle while `waiting_on_the_marker()` holds: a program at a terminal that
        waits for the line the marker types is waiting on the marker, not sleeping."""
        self.excused = waiting_on_the_marker

    def stop(self):
        """Stop watching (a kill under way ends first); the run's CPU time, None if unknown."""
        self._done.set()
        self._thread.join()
        return self.read()


def limit_hit(watch, cpu_seconds, cpu_limit: float, killed_by_rlimit: bool, timed_out: bool):
    """Which limit ended a run whose output stayed under its cap, if one did: the CPU time
    (its watch killed it, it ended past the limit between two looks, or RLIMIT_CPU stopped
    it), then using none for too long, then the wall-clock cap."""
    if (watch and watch.hit) or killed_by_rlimit or (cpu_seconds is not None
                                                     and cpu_seconds > cpu_limit):
        return Limit.CPU
    if watch and watch.idle:
        return Limit.IDLE
    return Limit.WALL if timed_out else None


def reap(process: subprocess.Popen, deadline: float = None):
    """(exit status as subprocess gives it, resource usage) once `process` ends, which
    it reaps, so that its CPU time and its waited-for children's are known; (None, None)
    if it is still running at `deadline`."""
    while True:
        try:
            pid, status, usage = os.wait4(process.pid, 0 if deadline is None else os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere: no usage to give
            return process.wait(), None
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, usage
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None, None
        until_ended(process.pid, remaining)


def until_ended(pid: int, seconds: float) -> None:
    """Wait until `pid` ends or `seconds` pass: woken by its pidfd where Linux gives one
    (a run's last output often comes a moment before its end), else a short sleep."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        time.sleep(min(REAP_POLL_SECONDS, seconds))
        return
    try:
        select.select([pidfd], [], [], seconds)
    finally:
        os.close(pidfd)


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass  # it has ended, and every process it started


def feed(pipe, data: bytes, unread: Unread = None) -> None:
    """Write `data` into the stdin pipe `pipe`, then close it: the run's end of input.
    `unread.left` counts what is still to be written."""
    view = memoryview(data)
    try:
        while view:
            written = os.write(pipe.fileno(), view[:FEED_BYTES])
            view = view[written:]
            if unread is not None:
                unread.left -= written
    except OSError:
        pass  # the program ended without reading all its input: a normal end
    finally:
        pipe.close()  # nothing is buffered in it: os.write wrote past its buffer


class Piped:
    """A program started with its three streams piped, in a session of its own, and
    reaped by a thread as it ends (`ended`), so that its exit status and resource usage
    are known (`finish`). `started(pid)` is told its process before that thread starts."""

    def __init__(self, argv: list, cwd, env: dict, preexec_fn=None, pass_fds=(),
                 started=None):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, cwd=cwd, env=env,
                                        start_new_session=True, preexec_fn=preexec_fn,
                                        pass_fds=pass_fds)
        self.pid = self.process.pid
        if started:
            started(self.pid)
        self.ended, self._reaped = threading.Event(), []  # once it ends, what it left
        # holding its pipes is not waited for (as bubblewrap's end ends all it holds)
        self._waiter = threading.Thread(target=self._reap, daemon=True)
        self._waiter.start()

    def _reap(self) -> None:
        self._reaped.extend(reap(self.process))
        self.ended.set()

    def finish(self) -> list:
        """[exit status as subprocess gives it, resource usage], once it has ended."""
        self._waiter.join()
        return self._reaped


@dataclass(frozen=True)
class Gathered:
    """What a piped run wrote, and what ended the gathering."""
    stdout: bytes
    stderr: bytes
    timed_out: bool  # the wall-clock cap passed
    overflowed: str  # STDOUT or STDERR, when one went over its cap; else ""
    read_all_input: bool = None  # the run had read all of its stdin (see `collect`)


def gather(streams, stdin: bytes, budget: Budget, ended: threading.Event, kill,
           head: int = None, stopping: threading.Event = None) -> Gathered:
    """What a piped run wrote (`streams`: its stdin, stdout and stderr pipe ends, as
    `collect` reads them, within the budget's caps), once it has ended (`ended`), or
    `kill()`ed at the wall-clock cap, at an output over its cap, or once `stopping` is set."""
    deadline = time.monotonic() + budget.wall_seconds
    stdout, stderr, timed_out, too_large, read_all = collect(
        streams, stdin, deadline, budget.most_output, budget.most_stderr, head, ended)
    if not (timed_out or too_large):  # its output closed, the program may still be running
        timed_out = not ended.wait(max(0.0, deadline - time.monotonic()))
    if timed_out or too_large or (stopping is not None and stopping.is_set()):
        kill()
    return Gathered(stdout, stderr, timed_out, too_large, read_all)


def piped_ran(gathered: Gathered, status: int, budget: Budget, watch, cpu_seconds,
              killed_by_rlimit: bool, stopped: bool = False, out_of_memory: bool = False) -> Ran:
    """A piped run's record: the limit that ended it, if one did (an output over its cap,
    else as `limit_hit` tells it), and its exit status unless a limit or a stop ended it."""
    limit = Limit.OUTPUT if gathered.overflowed else limit_hit(
        watch, cpu_seconds, budget.cpu_seconds, killed_by_rlimit, gathered.timed_out)
    return Ran(gathered.stdout, gathered.stderr, None if limit or stopped else status, limit,
               gathered.overflowed, out_of_memory, cpu_seconds,
               read_all_input=gathered.read_all_input)
