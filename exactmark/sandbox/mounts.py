"""What a run sees of the file system. Under namespaces: bubblewrap's command line (the
system's programs and the interpreter read-only, a size-capped home and /tmp, the
snapshot, the case's files and the runs' Python environment, the kit hidden) and the
fresh mounts a session's driver gives each case. In the fallback: the folders every
user may write to, where a run's user can leave files."""

import functools
import os
import re
import stat
import subprocess
from pathlib import Path

from exactmark.base.tree import tree_bytes
from exactmark.running.limits import scrubbed_environment

SANDBOX_HOME = "/home/student"
SANDBOX_SNAPSHOT = "/snapshot"
SANDBOX_FILES = "/case-files"  # the case's own files, read-only, for the launcher to copy
SANDBOX_PYTHON = "/python"  # under namespaces: where the runs' stdlib-only environment is
SYSTEM_FOLDERS = ("bin", "lib", "lib32", "lib64", "libx32", "sbin")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")
SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock", "/dev/mqueue")
MOST_SHARED_FOLDERS = 10_000  # looked at, once per marking
TMP_BYTES = 64 << 20
SHM_BYTES = 1 << 20  # a fresh /dev/shm per case, which only the sandbox's root may write
HOME_ROOM_BYTES = 64 << 20  # what a run may write in its home, beside the submission
HOME_ROOM_FILES = 10_000  # files a case may make in its home, beside the submission's
TMP_FILES, SHM_FILES = 10_000, 64  # and in /tmp and /dev/shm: their teardown stays quick


def bwrap_argv(bwrap: str, options: set, as_root: bool, prefixes: list, environment,
               hidden: list, snapshot: Path, files: Path = None, seccomp: int = None,
               cgroup_namespace: bool = True) -> list:
    """bubblewrap's command line up to its `--`: `options` are those this bubblewrap has
    (0.6.1, Ubuntu 22.04's, lacks --size and --disable-userns: the seccomp filter refuses
    user namespaces anyway); `prefixes` the interpreter's folders, `environment` the runs'
    Python environment (None: not made yet), `hidden` what must not be seen (the kit)."""
    argv = [bwrap, "--die-with-parent", "--unshare-ipc", "--unshare-pid", "--unshare-net",
            "--unshare-uts", *["--unshare-cgroup-try"] * cgroup_namespace,
            "--hostname", "sandbox"]
    if not as_root:
        argv += ["--unshare-user"] + ["--disable-userns"] * ("--disable-userns" in options)
    if seccomp is not None:
        argv += ["--seccomp", str(seccomp)]
    size = (lambda count: ["--size", str(count)]) if "--size" in options else (lambda count: [])
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
    for prefix in prefixes:
        if not any(under(prefix, folder) for folder in bound):
            argv += _open_folders(prefix.parent) + ["--ro-bind", str(prefix), str(prefix)]
            bound.append(prefix)
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", *size(TMP_BYTES), "--tmpfs", "/tmp",
             *size(HOME_ROOM_BYTES + snapshot_bytes(snapshot)), "--tmpfs", SANDBOX_HOME,
             "--ro-bind", str(snapshot), SANDBOX_SNAPSHOT]
    if files:
        argv += ["--ro-bind", str(files), SANDBOX_FILES]
    if environment:
        argv += ["--ro-bind", str(environment), SANDBOX_PYTHON]
    for path in hidden:  # the kit, say, if it lies under a folder bound above
        if any(under(path, folder) for folder in bound):
            argv += ["--tmpfs", str(path)]
    return argv + ["--chdir", "/", "--"]


def case_mounts(snapshot: Path) -> list:
    """The fresh mounts a session's driver gives each case ([path, bytes, files, mode]):
    its home (the snapshot, and HOME_ROOM_BYTES and HOME_ROOM_FILES more), /tmp, /dev/shm."""
    return [[SANDBOX_HOME, HOME_ROOM_BYTES + snapshot_bytes(snapshot),
             HOME_ROOM_FILES + snapshot_files(snapshot), "0755"],
            ["/tmp", TMP_BYTES, TMP_FILES, "1777"], ["/dev/shm", SHM_BYTES, SHM_FILES, "0755"]]


def bwrap_options(bwrap: str) -> set:
    """The options this bubblewrap has, from its --help: versions differ (Ubuntu 22.04's
    0.6.1 has no --size), and an option it lacks must not be passed."""
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, timeout=30,
                              env=scrubbed_environment("/"))
    except (OSError, subprocess.SubprocessError):
        return set()
    return set(re.findall(r"(?m)^\s+(--[a-z][a-z-]*)", done.stdout.decode("utf-8", "replace")))


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


def under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
