"""The layers that confine a run from inside, where a container refuses namespaces (as
Gradescope's and Docker's do) and, for seccomp, where it does not: what an unprivileged
process may still do to itself before it runs a student's code.

- A seccomp filter, compiled once with libseccomp: no socket of any kind (a connected
  pair of UNIX stream sockets aside: a datagram pair could send to any socket path), no
  connect, bind or listen, no namespace (unshare, setns, clone with a CLONE_NEW* flag;
  clone3 answers ENOSYS so that threads and fork fall back to clone), no ptrace or
  reading another process's memory, no keyrings, no bpf, perf, userfaultfd or io_uring,
  no mount, no POSIX message queue, System V IPC object or memfd (channels between runs,
  or memory beyond the rlimits). Under bubblewrap it is handed over by `--seccomp FD`; in the
  fallback it is loaded by the run's own process before it becomes the launcher.
- Landlock (in the fallback): the file system as the namespace sandbox shows it, read
  only (the system's programs and libraries, the interpreter, two files of /etc, the
  devices a program opens) but for the run's own home and tmp; from ABI 4 no TCP bind
  or connect, from ABI 6 no abstract UNIX socket or signal outside the run.

The filter is compiled with pyseccomp, ctypes bindings with the API of libseccomp's own
Python module, over the system's libseccomp (Debian's and Ubuntu's libseccomp2, which
apt itself needs): it imports in any virtual environment on CPython 3.10 to 3.13, where
Debian's python3-seccomp serves only Debian's interpreter. Landlock needs no library:
three system calls.

What runs in the child between fork and exec (`Confinement.entering`) is a handful of
system calls on values prepared in the parent, so that no lock another thread of the
marker held at the fork is ever needed.
"""

import ctypes
import errno
import os
import platform
import socket
import subprocess
import tempfile
from dataclasses import dataclass

from exactmark.base.exits import Exit

LANDLOCK_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
ENTRY_FAILED = Exit.ENTRY_FAILED  # the marker's fault, never the run's

# Landlock's file system rights, by the ABI that brought them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
MAKE_AND_REMOVE = sum(1 << bit for bit in range(4, 13))  # remove dir/file, make char..sym
REFER, TRUNCATE = 1 << 13, 1 << 14
FS_RIGHTS = {1: EXECUTE | WRITE_FILE | READ_FILE | READ_DIR | MAKE_AND_REMOVE, 2: REFER,
             3: TRUNCATE}  # IOCTL_DEV (ABI 5) is left unhandled: a terminal needs its ioctls
NET_TCP = (1 << 0) | (1 << 1)  # bind and connect (ABI 4)
SCOPES = (1 << 0) | (1 << 1)  # abstract UNIX sockets and signals outside the domain (ABI 6)
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE  # what a rule on a file may grant
READ_ONLY = EXECUTE | READ_FILE | READ_DIR
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")

# The filter: what is refused, and how.
REFUSED = ("socket", "connect", "bind", "listen", "unshare", "setns", "ptrace",
           "process_vm_readv", "process_vm_writev", "keyctl", "add_key", "request_key", "bpf",
           "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
           "io_uring_register", "mount", "umount2", "pivot_root", "fsopen", "fsconfig", "fsmount",
           "fspick", "move_mount", "open_tree", "mount_setattr", "name_to_handle_at",
           "open_by_handle_at",
           # Channels between two runs at once, or left behind, that no folder mode stops:
           # POSIX message queues (made before Landlock refuses their opening), System V IPC,
           # and memory no address-space limit counts.
           "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
           "mq_getsetattr", "shmget", "semget", "msgget", "memfd_create")
SOCK_TYPES_REFUSED = (2, 3, 4, 5, 6, 10)  # DGRAM, RAW, RDM, SEQPACKET, DCCP, PACKET: a datagram
# pair can sendto() any socket path on the machine
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                   0x40000000)  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET

NO_LANDLOCK = "the kernel has no Landlock ({why})"
NO_SECCOMP = "no seccomp filter ({why})"
# Where the marker runs without `exactmark` (python3 -m ...), which refuses to mark without it.
NO_PYSECCOMP = "pyseccomp is not installed: pip install '.[mark]'"
LOAD_FAILS = "entering it fails here"
LANDLOCK_LAYER = "Landlock ABI {abi}"
SECCOMP_LAYER = "seccomp"


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)


def seccomp_program() -> bytes:
    """The filter as a BPF program (what bubblewrap's --seccomp reads and prctl loads);
    raises OSError or RuntimeError where libseccomp cannot be had."""
    import pyseccomp

    refuse = pyseccomp.ERRNO(errno.EPERM)
    rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    for name in REFUSED:
        rules.add_rule(refuse, name)
    rules.add_rule(refuse, "socketpair", pyseccomp.Arg(0, pyseccomp.NE, socket.AF_UNIX))
    for kind in SOCK_TYPES_REFUSED:  # the low bits of the type (NONBLOCK, CLOEXEC above them)
        rules.add_rule(refuse, "socketpair", pyseccomp.Arg(1, pyseccomp.MASKED_EQ, 0xF, kind))
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(refuse, "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
    rules.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    with tempfile.TemporaryFile() as file:
        rules.export_bpf(file)
        file.seek(0)
        return file.read()


def landlock_abi() -> tuple:
    """(the kernel's Landlock ABI, 0 when none; why not)."""
    numbers = LANDLOCK_SYSCALLS.get(platform.machine())
    if numbers is None:
        return 0, f"no Landlock system call numbers for {platform.machine()}"
    abi = _libc.syscall(numbers[0], None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    if abi < 0:
        return 0, os.strerror(ctypes.get_errno())
    return abi, ""


@dataclass(frozen=True)
class Access:
    """What one run may reach of the file system: paths read only, paths in full."""
    read: tuple = ()
    write: tuple = ()  # folders: every right; files: read, write, truncate


class Confinement:
    """The layers this machine gives, probed once; and what enters them in a run."""

    def __init__(self, landlock: bool = True):
        self.program, self.why_no_seccomp = None, ""
        try:
            self.program = seccomp_program()
        except ModuleNotFoundError as missing:
            if missing.name != "pyseccomp":
                raise
            self.why_no_seccomp = NO_PYSECCOMP
        except (ImportError, OSError, RuntimeError, ValueError) as problem:
            self.why_no_seccomp = str(problem) or type(problem).__name__
        self.abi, self.why_no_landlock = landlock_abi() if landlock else (0, "not used")
        self._fprog = None
        if self.program:
            self._buffer = ctypes.create_string_buffer(self.program, len(self.program))
            self._fprog = _SockFprog(len(self.program) // 8,
                                     ctypes.cast(self._buffer, ctypes.c_void_p))
        if self.program and not self._works(None):
            self.program, self.why_no_seccomp, self._fprog = None, LOAD_FAILS, None
        if self.abi and not self._works(Access(read=("/usr", "/bin", "/lib"))):
            self.abi, self.why_no_landlock = 0, LOAD_FAILS

    @property
    def seccomp(self) -> bool:
        return self.program is not None

    def layers(self) -> list:
        """The layers a fallback run gets, in the report's words."""
        return [LANDLOCK_LAYER.format(abi=self.abi)] * bool(self.abi) + \
            [SECCOMP_LAYER] * self.seccomp

    def missing(self) -> list:
        return ([NO_LANDLOCK.format(why=self.why_no_landlock)] * (not self.abi)
                + [NO_SECCOMP.format(why=self.why_no_seccomp)] * (not self.seccomp))

    def entering(self, access: Access = None):
        """A function for a child between fork and exec: no new privileges, then Landlock
        with `access` (None: no Landlock), then the seccomp filter. A step that fails ends
        the child with ENTRY_FAILED, never runs it unconfined."""
        ruleset = self._ruleset(access) if access is not None and self.abi else None
        fprog = self._fprog
        numbers = LANDLOCK_SYSCALLS.get(platform.machine(), (0, 0, 0))

        def enter():
            if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
                os._exit(ENTRY_FAILED)
            if ruleset is not None:
                attr, size, rules = ruleset
                fd = _libc.syscall(numbers[0], ctypes.byref(attr), size, 0)
                if fd < 0:
                    os._exit(ENTRY_FAILED)
                for path, allowed in rules:
                    target = os.open(path, os.O_PATH | os.O_CLOEXEC)
                    rule = _PathBeneath(allowed, target)
                    if _libc.syscall(numbers[1], fd, LANDLOCK_RULE_PATH_BENEATH,
                                     ctypes.byref(rule), 0):
                        os._exit(ENTRY_FAILED)
                    os.close(target)
                if _libc.syscall(numbers[2], fd, 0):
                    os._exit(ENTRY_FAILED)
                os.close(fd)
            if fprog is not None and _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                                                 ctypes.byref(fprog), 0, 0):
                os._exit(ENTRY_FAILED)
        return enter if (ruleset is not None or fprog is not None) else None

    def _ruleset(self, access: Access):
        """(the ruleset's attributes, their size for this ABI, (path, rights) per rule):
        everything prepared before the fork. Paths that do not exist are left out."""
        fs = sum(rights for since, rights in FS_RIGHTS.items() if self.abi >= since)
        attr = _RulesetAttr(fs, NET_TCP if self.abi >= 4 else 0, SCOPES if self.abi >= 6 else 0)
        size = 24 if self.abi >= 6 else 16 if self.abi >= 4 else 8
        rules = []
        for paths, rights in ((access.read, READ_ONLY), (access.write, fs)):
            for path in paths:
                if os.path.isdir(path):
                    rules.append((path, rights & fs))
                elif os.path.exists(path):
                    rules.append((path, rights & fs & FILE_RIGHTS))
        return attr, size, rules

    def _works(self, access: Access) -> bool:
        """Whether a child confined so still starts a program here."""
        try:
            done = subprocess.run(["/bin/sh", "-c", "exit 0"], preexec_fn=self.entering(access),
                                  capture_output=True, timeout=30, cwd="/")
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0


if __name__ == "__main__":  # what this machine gives, for a person setting a course up
    found = Confinement()
    print(*(found.layers() + found.missing()), sep="\n")
