"""What runs one student's cases, one after another, inside that student's one bubblewrap
sandbox (marking.sandbox.Session), as the sandbox's root: it never runs a student's code
itself, and the student's throwaway user cannot reach it (another user's process: no
signal; seccomp: no ptrace; the run's descriptors are 0, 1 and 2 alone).

Started as `python3 -I -S -c SOURCE FD` with this file's source, so it needs the standard
library alone, as the interpreter the sandbox shows has it. FD is a SOCK_SEQPACKET socket
to the marker. The first message is the setup (JSON: the seccomp filter in hex, the
mounts each case gets fresh); the driver answers "ready". Then each message is a case (JSON:
its program's argv and environment, its user, home and rlimits) with its descriptors: the
run's stdin, stdout and stderr, then the cgroup.procs files of the case's own control
group. The driver mounts a fresh home, /tmp and /dev/shm over the last case's (fresh
mounts, their files capped in number: nothing a case left is ever followed or removed),
and forks the case's first process, which does in itself what marking/launcher.py does
with five programs (a case would pay for each): it joins the case's group (its CPU
time, memory and memory kills apart from the driver's), fills the home from the snapshot
and the case's files (the marker's own plain files) and hands it to the case's throwaway
user, sets the rlimits, drops to that user for good (no groups, no new privileges, the
seccomp filter), leads a session of its own, and becomes the program. The driver answers
with the case's exit status once that process ends. /proc is mounted again with hidepid, so that a case
sees its own processes alone: not bubblewrap's or the driver's, whose command lines and
counters would tell it of the marker or of the case before. The marker kills every
process of the case before it sends the next one. End of the socket: the driver ends,
and the sandbox with it.
"""

import ctypes
import json
import os
import resource
import shutil
import socket
import sys

MOST_MESSAGE = 1 << 20
MOST_DESCRIPTORS = 8  # stdin, stdout, stderr, and a cgroup.procs per controller
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 2, 4, 8, 32
HIDEPID = (b"hidepid=invisible", b"hidepid=2")  # Linux 5.8 and later; before
MNT_DETACH = 2
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
ENTRY_FAILED = 125  # as the launcher's: the marker's fault, never the run's
READY = b"ready"


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def hide_processes(libc) -> None:
    """/proc showing each user its own processes alone."""
    flags = MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC
    if all(libc.mount(b"proc", b"/proc", b"proc", flags, option) for option in HIDEPID):
        raise OSError(ctypes.get_errno(), "cannot mount /proc with hidepid")


def fresh_mounts(libc, mounts: list) -> None:
    """Each of `mounts` ([path, bytes, files, mode]) a new tmpfs over the one before, which
    is detached (its files go once no process holds them, and none is left)."""
    for path, size, files, mode in mounts:
        libc.umount2(path.encode(), MNT_DETACH)
        options = f"size={size},nr_inodes={files},mode={mode}".encode()
        if libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options):
            raise OSError(ctypes.get_errno(), f"cannot mount a tmpfs on {path}")


def filled(home: str, sources: list, uid: int) -> None:
    """`home` holding a copy of each of `sources` (modes and times kept), all of it the
    case's user's: what `cp -R --preserve=mode,timestamps` and `chown -R` did."""
    for source in sources:
        shutil.copytree(source, home, symlinks=True, dirs_exist_ok=True)
    if uid < 0:
        return
    for folder, folders, files in os.walk(home):
        for name in [*folders, *files]:
            os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)
    os.chown(home, uid, uid)


def start(libc, fprog, case: dict, fds: list) -> int:
    """Fork the case's first process: into the case's control group (its pid written to
    each cgroup.procs of `fds[3:]`), its home filled, its rlimits, its user, its
    descriptors 0, 1 and 2 (`fds[:3]`) and no other, a session of its own, no new
    privileges, the seccomp filter, then the program; any failure ends the child with
    ENTRY_FAILED, before any of the case's code has run."""
    pid = os.fork()
    if pid:
        return pid
    try:
        for procs in fds[3:]:
            os.write(procs, str(os.getpid()).encode())
        uid, home = case["uid"], case["home"]
        filled(home, [case["snapshot"], *([case["files"]] if case["files"] else [])], uid)
        os.chdir(home)
        for name, soft, hard in case["limits"]:
            resource.setrlimit(getattr(resource, name), (soft, hard))
        if uid >= 0:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        os.setsid()
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
            os._exit(ENTRY_FAILED)
        if fprog is not None and libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                                            ctypes.byref(fprog), 0, 0):
            os._exit(ENTRY_FAILED)
        os.execvpe(case["argv"][0], case["argv"], case["env"])
    finally:
        os._exit(ENTRY_FAILED)


def main(fd: int) -> None:
    channel = socket.socket(fileno=fd)
    channel.set_inheritable(False)
    libc = ctypes.CDLL(None, use_errno=True)
    setup = json.loads(channel.recv(MOST_MESSAGE))
    program = bytes.fromhex(setup["seccomp"])
    fprog = None
    if program:
        buffer = ctypes.create_string_buffer(program, len(program))
        fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    hide_processes(libc)
    channel.send(READY)
    while True:
        message, fds, _, _ = socket.recv_fds(channel, MOST_MESSAGE, MOST_DESCRIPTORS)
        if not message:
            return
        case = json.loads(message)
        try:
            fresh_mounts(libc, setup["mounts"])
            pid = start(libc, fprog, case, fds)
        except OSError:
            status = ENTRY_FAILED
        else:
            _, waited = os.waitpid(pid, 0)
            status = os.waitstatus_to_exitcode(waited)
        finally:
            for received in fds:
                os.close(received)
        channel.send(json.dumps({"status": status}).encode())


if __name__ == "__main__":
    main(int(sys.argv[1]))
