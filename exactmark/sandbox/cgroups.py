"""One control group per run: one memory limit and one process limit for the
whole run, however many processes it starts (rlimits hold per process only),
the CPU time of the whole run (children included, those that ended too), and
a list of every process it left, to kill.

cgroup v1 (a hierarchy per controller) and v2 (one hierarchy) are both
handled; the groups are made below the marker's own, so a container's limits
still hold. Where neither can be made, `Groups()` raises `Unavailable`, which
says why. The CPU accounting is optional: v1's cpuacct controller (mounted on
its own or with cpu) when there is one, v2's cpu.stat (in every v2 group); where
it is missing the groups still limit memory and processes, `Groups.why_no_cpu`
says why, and `Group.cpu_seconds()` raises `Unavailable` saying the same. `Usage` is
what one run has used of its group; `kill_user` kills a throwaway user's processes.
"""

import os
import secrets
import signal
import time
from pathlib import Path

from exactmark.base.exits import Exit
from exactmark.running.limits import processes_of

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids")
CPU_CONTROLLER = "cpuacct"  # v1 only: v2 accounts CPU time in every group (cpu.stat)
CPU_FILE = {1: "cpuacct.usage", 2: "cpu.stat"}
NO_CPU_CONTROLLER = "the cpuacct controller is not mounted"
KILL_ROUNDS = 200
ENTRY_FAILED = Exit.ENTRY_FAILED  # the marker's fault, never the run's


class Unavailable(RuntimeError):
    """No control group can be made here; the message says why."""


def own_paths(proc_cgroup: str) -> dict:
    """{controller: path} for v1 lines, {"": path} for the v2 line of /proc/self/cgroup."""
    paths = {}
    for line in proc_cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def enclosing_limits(root: Path = CGROUP_ROOT, proc_cgroup: str = None) -> tuple:
    """(memory in bytes, processes) that the marker's own control group and those above it
    allow, None for no limit: a container's (Gradescope's 768 MB, say), which a run must
    stay under, with room left for the marker. Read whether or not groups can be made."""
    try:
        own = own_paths(Path("/proc/self/cgroup").read_text() if proc_cgroup is None
                        else proc_cgroup)
    except (OSError, ValueError):
        return None, None
    v1 = {"memory": ("memory", "memory.limit_in_bytes"), "pids": ("pids", "pids.max")}
    found = []
    for controller, (folder, file) in v1.items():
        if controller in own:
            start = root / folder / own[controller].lstrip("/")
        elif "" in own:
            start = root / own[""].lstrip("/")
            file = "memory.max" if controller == "memory" else "pids.max"
        else:
            found.append(None)
            continue
        found.append(_least(start, root, file))
    return tuple(found)


def _least(folder: Path, root: Path, file: str):
    """The lowest limit in `file` from `folder` up to `root`; None when there is none."""
    least = None
    for path in [folder, *folder.parents]:
        if root not in (path, *path.parents):
            break
        try:
            text = (path / file).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < (1 << 62):  # v1 writes "no limit" as a huge number
            least = int(text) if least is None else min(least, int(text))
    return least


class Groups:
    """The marker's parent group for this run, and a child group per run of a case."""

    def __init__(self, root: Path = CGROUP_ROOT, proc_cgroup: str = None):
        if proc_cgroup is None:
            proc_cgroup = Path("/proc/self/cgroup").read_text()
        own = own_paths(proc_cgroup)
        name = f"marker-{os.getpid()}-{secrets.token_hex(4)}"
        self.cpu_parent, self.why_no_cpu = None, ""
        if all((root / controller).is_dir() and controller in own for controller in CONTROLLERS):
            self.version = 1
            self.parents = [root / controller / own[controller].lstrip("/") / name
                            for controller in CONTROLLERS]
            if (root / CPU_CONTROLLER).is_dir() and CPU_CONTROLLER in own:
                self.cpu_parent = root / CPU_CONTROLLER / own[CPU_CONTROLLER].lstrip("/") / name
            else:
                self.why_no_cpu = NO_CPU_CONTROLLER
        elif "" in own and (root / "cgroup.controllers").exists():
            self.version = 2
            self.parents = [root / own[""].lstrip("/") / name]
        else:
            raise Unavailable("no memory and pids controllers are mounted")
        made = []
        try:
            for parent in self.parents:
                parent.mkdir()
                made.append(parent)
            if self.version == 2:
                self._delegate(self.parents[0])
        except OSError as error:
            for parent in reversed(made):
                _rmdir(parent)
            raise Unavailable(f"cannot make a control group ({error.strerror})") from None
        self._add_cpu_accounting()

    def _add_cpu_accounting(self) -> None:
        """The CPU time of each run, where it can be had; without it the groups still work."""
        if self.version == 2:
            if (self.parents[0] / CPU_FILE[2]).exists():
                self.cpu_parent = self.parents[0]
            else:
                self.why_no_cpu = f"this kernel's cgroup v2 has no {CPU_FILE[2]}"
            return
        if self.cpu_parent is None:
            return
        if self.cpu_parent.resolve() in [parent.resolve() for parent in self.parents]:
            return  # cpuacct mounted with memory or pids: the same folder, made already
        try:
            self.cpu_parent.mkdir()
        except OSError as error:
            self.cpu_parent = None
            self.why_no_cpu = f"cannot make a cpuacct group ({error.strerror})"
            return
        self.parents.append(self.cpu_parent)

    @staticmethod
    def _delegate(parent: Path) -> None:
        available = (parent / "cgroup.controllers").read_text().split()
        if not all(controller in available for controller in CONTROLLERS):
            try:  # the marker's own group may hand them down, if it holds no process itself
                (parent.parent / "cgroup.subtree_control").write_text(
                    " ".join(f"+{c}" for c in CONTROLLERS))
            except OSError:
                pass
            available = (parent / "cgroup.controllers").read_text().split()
        missing = [controller for controller in CONTROLLERS if controller not in available]
        if missing:
            raise OSError(0, f"the {' and '.join(missing)} controller is not delegated")
        (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in CONTROLLERS))

    def describe(self) -> str:
        return f"cgroup v{self.version}"

    @property
    def measures_cpu(self) -> bool:
        return self.cpu_parent is not None

    def new(self, memory_bytes: int, processes: int) -> "Group":
        return Group(self, f"run-{secrets.token_hex(6)}", memory_bytes, processes)

    def remove(self) -> None:
        """The marker's groups, and any run's group still in them (a run's own removal
        failed): their processes killed first."""
        for parent in self.parents:
            for left in parent.glob("run-*"):
                for inner in sorted(left.glob("*/"), reverse=True):  # a session's driver, a case
                    kill_every(lambda inner=inner: _processes(inner))
                    _rmdir(inner)
                kill_every(lambda: _processes(left))
                _rmdir(left)
            _rmdir(parent)


class Group:
    """The group of one run: enter it with `enter`, read what it hit, kill and remove it."""

    def __init__(self, groups: Groups, name: str, memory_bytes: int, processes: int):
        self.version = groups.version
        self.folders = [parent / name for parent in groups.parents]
        self._procs = [str(folder / "cgroup.procs") for folder in self.folders]  # for `enter`
        self.cpu_folder = groups.cpu_parent / name if groups.cpu_parent else None
        self.why_no_cpu = groups.why_no_cpu
        for folder in self.folders:
            folder.mkdir()
        try:
            if self.version == 1:
                memory, pids = self.folders[:2]
                _write(memory / "memory.limit_in_bytes", memory_bytes)
                if (memory / "memory.memsw.limit_in_bytes").exists():
                    _write(memory / "memory.memsw.limit_in_bytes", memory_bytes)  # no swapping past it
                _write(pids / "pids.max", processes)
            else:
                folder = self.folders[0]
                _write(folder / "memory.max", memory_bytes)
                if (folder / "memory.swap.max").exists():
                    _write(folder / "memory.swap.max", 0)
                _write(folder / "pids.max", processes)
        except OSError:
            self.remove()
            raise

    def enter(self) -> None:
        """Move the calling process into the group. Called in a run's first process between
        fork and exec, so that every process of the run is in it from its first instruction;
        a group it cannot join ends that process (status 125: the marker's fault)."""
        pid = str(os.getpid()).encode()
        for procs in self._procs:
            try:
                fd = os.open(procs, os.O_WRONLY)
                try:
                    os.write(fd, pid)
                finally:
                    os.close(fd)
            except OSError:
                os._exit(ENTRY_FAILED)

    def oom_kills(self) -> int:
        """How many processes of the group the kernel has killed for want of memory: a
        count since the group was made, which a Session reads before each case."""
        folder = self.folders[0]
        events = folder / ("memory.oom_control" if self.version == 1 else "memory.events")
        try:
            for line in events.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def cpu_seconds(self) -> float:
        """The CPU time (user and system) the run's processes have used so far, all of
        them together, those that have ended included; `Unavailable` when not accounted."""
        if self.cpu_folder is None:
            raise Unavailable(self.why_no_cpu)
        try:
            text = (self.cpu_folder / CPU_FILE[self.version]).read_text()
        except OSError as error:
            raise Unavailable(f"cannot read {CPU_FILE[self.version]} ({error.strerror})") from None
        return cpu_seconds_of(self.version, text)

    def processes(self) -> set:
        return set().union(*(_processes(folder) for folder in self.folders))

    def kill(self) -> None:
        """Kill every process of the run, those that left its process group or session included."""
        kill_every(self.processes)

    def child(self, name: str, memory_bytes: int, processes: int) -> "Group":
        """A group inside this one, with limits and counts of its own: a session's holds its
        driver in one and each case in another, so that neither's memory, CPU time or memory
        kills are the other's. (Under v2 no process may sit beside them: none is in this one.)"""
        if self.version == 2:
            _write(self.folders[0] / "cgroup.subtree_control", " ".join(f"+{c}" for c in CONTROLLERS))
        return Group(_Inside(self), name, memory_bytes, processes)

    @property
    def entries(self) -> list:
        """The cgroup.procs files a process writes its own pid to, to join the group."""
        return list(self._procs)

    def remove(self) -> None:
        self.kill()
        for folder in self.folders:
            _rmdir(folder)


class _Inside:
    """A group seen as the parent of groups inside it, as `Group` reads a `Groups`."""

    def __init__(self, group: Group):
        self.version, self.parents = group.version, group.folders
        self.cpu_parent, self.why_no_cpu = group.cpu_folder, group.why_no_cpu


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


def cpu_seconds_of(version: int, text: str) -> float:
    """Seconds of CPU from v1's cpuacct.usage (nanoseconds) or v2's cpu.stat (usage_usec)."""
    if version == 1:
        return int(text) / 1e9
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "usage_usec":
            return int(value) / 1e6
    raise Unavailable("cpu.stat has no usage_usec")


def kill_every(processes) -> None:
    """Kill the processes `processes()` lists until it lists none: a process that forks
    while it is being killed leaves a child for the next round."""
    for _ in range(KILL_ROUNDS):
        pids = processes()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.005)


def kill_user(uid: int) -> None:
    """Kill every process of a throwaway user, forks that left the process group included."""
    if uid >= 0:
        kill_every(lambda: processes_of(uid))


def _processes(folder: Path) -> set:
    try:
        return {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
    except OSError:
        return set()


def _write(path: Path, value) -> None:
    path.write_text(f"{value}\n")


def _rmdir(folder: Path) -> None:
    for _ in range(KILL_ROUNDS):  # a killed process leaves its group a moment later
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.005)
