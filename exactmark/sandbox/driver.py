"""What runs one student's cases, one after another, inside that student's one bubblewrap
sandbox (exactmark.sandbox.session.Session), as the sandbox's root: it never runs a student's code
itself, and the student's throwaway user cannot reach it (another user's process: no
signal; seccomp: no ptrace; the run's descriptors are 0, 1 and 2 alone).

Started as `python3 -I -S -c SOURCE FD` with this file's source, so it needs the standard
library alone, as the interpreter the sandbox shows has it. FD is a SOCK_SEQPACKET socket
to the marker. The first message is the setup (JSON: the seccomp filter in hex, the
mounts each case gets fresh) with the cgroup.procs files of the first case's control
group; the driver answers "ready". Then each message is a case (JSON: its program's argv
and environment, its user, home and rlimits) with its descriptors: the run's stdin,
stdout and stderr, then the cgroup.procs files of the next case's group. The driver
mounts a fresh home, /tmp and /dev/shm over the last case's (fresh mounts, their files
capped in number: nothing a case left is ever followed or removed) and hands the case to
its first process, forked one case ahead: that process joins its case's group while the
case before runs, since under cgroup v1 a move waits out an RCU grace period (13 ms here,
a quarter of a typical case). Given its case, it does in itself what exactmark/sandbox/launcher.py
does with five programs (a case would pay for each): it fills the home from the snapshot
and the case's files (the marker's own plain files) and hands it to the case's throwaway
user, sets the rlimits, drops to that user for good (no groups, no new privileges, the
seccomp filter), leads a session of its own, and becomes the program. The driver answers
with the case's exit status once that process ends. /proc is mounted again with hidepid,
so that a case sees its own processes alone: not bubblewrap's, the driver's or the next
case's first process, whose command lines and counters would tell it of the marker or of
the case before. The marker kills every process of the case before it sends the next
one. End of the socket: the driver ends, and the sandbox with it.
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
ENTRY_FAILED = 125  # exactmark.base.exits.Exit.ENTRY_FAILED, copied (this file runs from its
# source alone) and pinned to it by a test: the marker's fault, never the run's
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


class FirstProcess:
    """A case's first process, forked before its case comes: it joins the case's control
    group (its pid written to each cgroup.procs of `entries`; its CPU time, memory and
    memory kills apart from the driver's) and waits on a socket of its own for the case.
    Any failure ends it with ENTRY_FAILED, before any of the case's code has run."""

    def __init__(self, libc, fprog, channel: socket.socket, entries: list):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.pid = os.fork()
        if self.pid:
            theirs.close()
            self.socket = ours
            return
        try:
            channel.close()
            ours.close()
            for procs in entries:
                os.write(procs, str(os.getpid()).encode())
                os.close(procs)
            message, fds, _, _ = socket.recv_fds(theirs, MOST_MESSAGE, 3)
            if message and len(fds) == 3:
                become(libc, fprog, json.loads(message), fds)
        finally:
            os._exit(ENTRY_FAILED)

    def give(self, case: dict, fds: list) -> None:
        try:
            socket.send_fds(self.socket, [json.dumps(case).encode()], fds)
        finally:
            self.socket.close()  # without its case, the process ends

    def status(self) -> int:
        _, waited = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(waited)


def become(libc, fprog, case: dict, fds: list) -> None:
    """The case's program, from its first process: its home filled, its rlimits, its
    user, its descriptors 0, 1 and 2 (`fds`) and no other, a session of its own, no new
    privileges, the seccomp filter."""
    uid, home = case["uid"], case["home"]
    filled(home, [case["snapshot"], *([case["files"]] if case["files"] else [])], uid)
    os.chdir(home)
    for name, soft, hard in case["limits"]:
        resource.setrlimit(getattr(resource, name), (soft, hard))
    if uid >= 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    os.setsid()
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
        return
    if fprog is not None and libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                                        ctypes.byref(fprog), 0, 0):
        return
    os.execvpe(case["argv"][0], case["argv"], case["env"])


def main(fd: int) -> None:
    channel = socket.socket(fileno=fd)
    channel.set_inheritable(False)
    libc = ctypes.CDLL(None, use_errno=True)
    message, entries, _, _ = socket.recv_fds(channel, MOST_MESSAGE, MOST_DESCRIPTORS)
    setup = json.loads(message)
    program = bytes.fromhex(setup["seccomp"])
    fprog = None
    if program:
        buffer = ctypes.create_string_buffer(program, len(program))
        fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    hide_processes(libc)
    ahead = FirstProcess(libc, fprog, channel, entries) if entries else None
    for procs in entries:
        os.close(procs)
    channel.send(READY)
    while True:
        message, fds, _, _ = socket.recv_fds(channel, MOST_MESSAGE, MOST_DESCRIPTORS)
        if not message:
            return
        pipes, entries = fds[:3], fds[3:]
        first, ahead = ahead or FirstProcess(libc, fprog, channel, []), None
        failed = False
        try:
            fresh_mounts(libc, setup["mounts"])
            first.give(json.loads(message), pipes)
        except OSError:
            failed = True
        finally:
            first.socket.close()
            for received in pipes:
                os.close(received)
        if entries:  # the next case's first process joins its group while this case runs
            ahead = FirstProcess(libc, fprog, channel, entries)
            for procs in entries:
                os.close(procs)
        status = first.status()
        channel.send(json.dumps({"status": ENTRY_FAILED if failed else status}).encode())

if __name__ == "__main__":
    main(int(sys.argv[1]))
