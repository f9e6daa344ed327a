"""A stand-in for an unprivileged Docker container (Gradescope's, say), built without
Docker, for the marker's tests: run as root,

    unshare --mount --propagation private python3 -m tests.container [--no-landlock] -- ARGV...

makes /sys/fs/cgroup read-only (in this mount namespace only), loads a seccomp filter that
refuses to make namespaces or mounts as Docker's default profile does (so bubblewrap
cannot start), cuts the capability bounding set to Docker's default 14, and becomes ARGV.
--no-landlock also refuses Landlock's system calls, as Docker before 23.0 did.
"""

import ctypes
import errno
import os
import sys

import pyseccomp

DOCKER_CAPABILITIES = {0, 1, 3, 4, 5, 6, 7, 8, 10, 13, 18, 27, 29, 31}  # chown, dac_override,
# fowner, fsetid, kill, setgid, setuid, setpcap, net_bind_service, net_raw, sys_chroot,
# mknod, audit_write, setfcap
LAST_CAPABILITY = 40
PR_CAPBSET_DROP = 24
MS_REMOUNT, MS_BIND, MS_RDONLY = 32, 4096, 1
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                   0x40000000)
REFUSED = ("unshare", "setns", "mount", "umount2", "pivot_root")
LANDLOCK = ("landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self")

_libc = ctypes.CDLL(None, use_errno=True)


def cgroups_read_only() -> None:
    mounts = [line.split()[4] for line in open("/proc/self/mountinfo")]
    for target in mounts:
        if target == "/sys/fs/cgroup" or target.startswith("/sys/fs/cgroup/"):
            if _libc.mount(None, target.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None):
                sys.exit(f"container: cannot make {target} read-only: "
                         f"{os.strerror(ctypes.get_errno())}")


def docker_seccomp(landlock: bool) -> None:
    rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    refuse = pyseccomp.ERRNO(errno.EPERM)
    for name in REFUSED + (() if landlock else LANDLOCK):
        rules.add_rule(refuse if name not in LANDLOCK else pyseccomp.ERRNO(errno.ENOSYS), name)
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(refuse, "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
    rules.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.set_attr(pyseccomp.Attr.CTL_NNP, 0)  # Docker sets no "no new privileges"
    rules.load()


def docker_capabilities() -> None:
    for capability in range(LAST_CAPABILITY + 1):
        if capability not in DOCKER_CAPABILITIES and _libc.prctl(PR_CAPBSET_DROP, capability, 0,
                                                                 0, 0):
            if ctypes.get_errno() != errno.EINVAL:  # a capability this kernel does not have
                sys.exit(f"container: cannot drop capability {capability}")


def main(argv: list) -> None:
    landlock = "--no-landlock" not in argv[:argv.index("--")]
    command = argv[argv.index("--") + 1:]
    cgroups_read_only()
    docker_seccomp(landlock)
    docker_capabilities()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
