"""An ssh stand-in for the parallel engine's tests: `ssh_standin.py --root DIR [ssh's options]
HOST [--] COMMAND...` runs COMMAND on this machine as ssh would run it on HOST: joined by
spaces, by /bin/sh, in HOST's own home folder DIR/HOST (its HOME), with DIR/HOST/bin first
on PATH (a host's own python3, say). Written into a hosts file as GNU parallel allows:
"2//usr/bin/python3 tests/ssh_standin.py --root DIR lab1".

What a host's folder holds makes it behave as a machine can:
- no folder DIR/HOST, or a file DIR/HOST/DOWN: the host does not answer (exit 255, as ssh);
- a file DIR/HOST/POWER_CUT: the first job that starts there (its command prints its start
  line) is killed with everything it started, the host goes down (DOWN written) and the
  connection drops (exit 255): a power cut in the middle of a student.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

UNREACHABLE = 255  # ssh's status when it cannot reach the host or the connection drops
# ssh's options that take a value (the others are flags)
WITH_VALUE = set("BbcDEeFIiJLlmOopQRSWw")
STARTED = b"exactmark-started"  # the parallel engine's start line


def split(arguments: list) -> tuple:
    """(host, the remote command) from ssh's command line."""
    at = 0
    while at < len(arguments) and arguments[at].startswith("-") and arguments[at] != "--":
        flag = arguments[at]
        at += 2 if len(flag) == 2 and flag[1] in WITH_VALUE else 1
    if arguments[at:at + 1] == ["--"]:
        at += 1
    host, rest = arguments[at], arguments[at + 1:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    return host, " ".join(rest)


def descendants(pid: int) -> list:
    """`pid` and every process below it, from /proc."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo.extend(children.get(found[-1], []))
    return found


def power_cut(command: str, home: Path, environment: dict) -> int:
    """Run `command`, passing its output on; if it prints a job's start line, kill it and
    all it started, and go down."""
    process = subprocess.Popen(["/bin/sh", "-c", command], cwd=home, env=environment,
                               stdout=subprocess.PIPE, start_new_session=True)
    for line in process.stdout:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
        if STARTED in line:
            (home / "DOWN").touch()
            (home / "POWER_CUT").unlink()
            for pid in descendants(process.pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            process.wait()
            return UNREACHABLE
    return process.wait()


def main(arguments: list) -> int:
    """arguments: --root DIR, then ssh's own."""
    root = Path(arguments[1])
    host, command = split(arguments[2:])
    home = root / host
    if not home.is_dir() or (home / "DOWN").exists():
        print(f"ssh: connect to host {host} port 22: No route to host", file=sys.stderr)
        return UNREACHABLE
    environment = {**os.environ, "HOME": str(home),
                   "PATH": f"{home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    if (home / "POWER_CUT").exists() and "GNU_Parallel_worker" in command:
        return power_cut(command, home, environment)
    return subprocess.call(["/bin/sh", "-c", command], cwd=home, env=environment)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
