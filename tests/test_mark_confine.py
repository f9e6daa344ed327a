"""The layers a fallback run enters before any of its code (exactmark/sandbox/confine.py), seen from
inside a child that entered them: each system call the seccomp filter refuses, what it
lets through (threads, fork, a pair of UNIX sockets), and the file system and network as
Landlock leaves them. Every victim is a file or a listener this test makes."""

import ctypes
import json
import os
import socket
import subprocess
import sys
import textwrap

import pytest

from exactmark.sandbox.confine import ENTRY_FAILED, REFUSED, Access, Confinement, _SockFprog

CONFINEMENT = Confinement()
needs_seccomp = pytest.mark.skipif(not CONFINEMENT.seccomp and not os.environ.get("KIT_CI"),
                                   reason=f"no seccomp here: {CONFINEMENT.why_no_seccomp}")
needs_landlock = pytest.mark.skipif(not CONFINEMENT.abi and not os.environ.get("KIT_CI"),
                                    reason=f"no Landlock here: {CONFINEMENT.why_no_landlock}")
PYTHON = os.path.realpath(sys.executable)
PREFIXES = tuple(dict.fromkeys([sys.base_prefix, sys.prefix, os.path.dirname(os.path.dirname(
    PYTHON))]))

SYSCALLS = """\
    import ctypes, errno, json, os, socket, threading
    libc = ctypes.CDLL(None, use_errno=True)
    NUMBERS = {"ptrace": 101, "keyctl": 250, "bpf": 321, "perf_event_open": 298,
               "userfaultfd": 323, "io_uring_setup": 425, "mount": 165, "setns": 308,
               "unshare": 272, "clone3": 435, "process_vm_readv": 310, "add_key": 248,
               "pivot_root": 155, "open_by_handle_at": 304}
    said = {}
    for name, number in NUMBERS.items():
        result = libc.syscall(number, 0, 0, 0, 0, 0, 0)
        said[name] = errno.errorcode.get(ctypes.get_errno(), "?") if result < 0 else "ALLOWED"
    def attempt(name, action):
        try:
            action()
            said[name] = "ALLOWED"
        except OSError as problem:
            said[name] = errno.errorcode.get(problem.errno, "?")
    attempt("socket_inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
    attempt("socket_unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
    attempt("socketpair_unix", lambda: [s.close() for s in socket.socketpair()])
    attempt("socketpair_inet", lambda: socket.socketpair(socket.AF_INET))
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    said["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    thread = threading.Thread(target=lambda: said.__setitem__("thread", "ran"))
    thread.start()
    thread.join()
    print(json.dumps(said))
    """


def in_child(code: str, entering, cwd="/") -> dict:
    done = subprocess.run([PYTHON, "-c", textwrap.dedent(code)], preexec_fn=entering, cwd=cwd,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@needs_seccomp
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the system call numbers are x86_64's")
def test_the_filter_refuses_what_a_run_never_needs_and_keeps_what_it_does():
    said = in_child(SYSCALLS, CONFINEMENT.entering())
    refused = {name: said[name] for name in said if name not in (
        "socket_unix_pair", "socketpair_unix", "fork", "thread", "clone3")}
    assert all(result == "EPERM" for result in refused.values()), refused
    assert said["clone3"] == "ENOSYS", "threads fall back to clone, which the filter reads"
    assert (said["socketpair_unix"], said["fork"], said["thread"]) == ("ALLOWED", 7, "ran"), said


def test_the_filter_names_every_call_the_issue_lists():
    assert {"socket", "unshare", "setns", "ptrace", "process_vm_readv", "process_vm_writev",
            "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
            "io_uring_setup", "io_uring_enter", "io_uring_register", "mount", "umount2",
            "pivot_root"} <= set(REFUSED)


@needs_seccomp
def test_the_filter_is_a_bpf_program_bubblewrap_can_read():
    assert CONFINEMENT.program and len(CONFINEMENT.program) % 8 == 0  # sock_filter: 8 bytes


def landlocked(tmp_path) -> Access:
    home = tmp_path / "home"
    home.mkdir()
    return home, Access(read=("/usr", "/bin", "/lib", "/lib64", *PREFIXES, "/etc/ld.so.cache",
                              "/proc/self"), write=(str(home), "/dev/null"))


FILES = """\
    import json, os, socket
    said = {}
    def attempt(name, action):
        try:
            action()
            said[name] = "ALLOWED"
        except OSError as problem:
            said[name] = problem.strerror
    attempt("read_secret", lambda: open(SECRET).read())
    attempt("list_above", lambda: os.listdir(ABOVE))
    attempt("write_home", lambda: open("made.txt", "w").write("mine\\n"))
    attempt("write_tmp", lambda: open(os.path.join(ABOVE, "planted.txt"), "w").write("x"))
    attempt("read_own_proc", lambda: open("/proc/self/status").read())
    attempt("read_init_proc", lambda: open("/proc/1/cmdline").read())
    attempt("devnull", lambda: open("/dev/null", "w").write("x"))
    attempt("tcp", lambda: socket.create_connection(("127.0.0.1", PORT), 2).close())
    print(json.dumps(said))
    """


@needs_landlock
def test_landlock_shows_a_run_its_home_and_the_system_only(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root's\n")
    secret.chmod(0o644)
    home, access = landlocked(tmp_path)
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        code = f"SECRET, ABOVE, PORT = {str(secret)!r}, {str(tmp_path)!r}, " \
               f"{listener.getsockname()[1]}\n" + textwrap.dedent(FILES)
        only_landlock = Confinement()
        only_landlock._fprog = None  # Landlock alone: its own refusal of TCP, not seccomp's
        said = in_child(code, only_landlock.entering(access), cwd=home)
    finally:
        listener.close()
    assert said["read_secret"] == said["list_above"] == said["write_tmp"] == \
        said["read_init_proc"] == "Permission denied", said
    assert said["write_home"] == said["read_own_proc"] == said["devnull"] == "ALLOWED", said
    assert (home / "made.txt").read_text() == "mine\n"
    assert not (tmp_path / "planted.txt").exists()
    if CONFINEMENT.abi >= 4:
        assert said["tcp"] == "Permission denied", said


@needs_seccomp
def test_a_step_that_fails_ends_the_child_and_never_runs_it_unconfined():
    """A filter the kernel refuses (one instruction that returns nothing): the child ends
    with the marker's own status, 125, and the program never starts."""
    broken = Confinement()
    broken._buffer = ctypes.create_string_buffer(b"\0" * 8, 8)
    broken._fprog = _SockFprog(1, ctypes.cast(broken._buffer, ctypes.c_void_p))
    done = subprocess.run(["/bin/sh", "-c", "echo started"], preexec_fn=broken.entering(),
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (ENTRY_FAILED, "")


def test_a_path_that_does_not_exist_is_left_out_of_the_rules():
    if not CONFINEMENT.abi:
        pytest.skip("no Landlock here")
    access = Access(read=("/usr", "/bin", "/lib", "/lib64"),
                    write=("/nonexistent-folder-of-the-test",))
    assert subprocess.run(["/bin/true"], preexec_fn=CONFINEMENT.entering(access)).returncode == 0


def test_the_layers_are_said_as_the_report_says_them():
    layers, missing = CONFINEMENT.layers(), CONFINEMENT.missing()
    assert len(layers) + len(missing) == 2
    if CONFINEMENT.abi:
        assert layers[0] == f"Landlock ABI {CONFINEMENT.abi}"
    if CONFINEMENT.seccomp:
        assert layers[-1] == "seccomp"


def test_without_pyseccomp_the_isolation_says_which_extra_installs_it(monkeypatch):
    """The marker run as a module (python3 -m ...), which no extra check stops."""
    monkeypatch.setitem(sys.modules, "pyseccomp", None)
    confinement = Confinement(landlock=False)
    assert not confinement.seccomp
    assert "no seccomp filter (pyseccomp is not installed: pip install '.[mark]')" \
        in confinement.missing(), confinement.missing()
