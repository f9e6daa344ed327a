"""An ssh stand-in for the parallel engine's tests: `ssh_standin.py --root DIR [ssh's options]
HOST [--] COMMAND...` runs COMMAND on this machine as ssh would run it on HOST: joined by
spaces, by /bin/sh, in HOST's own home folder DIR/HOST (its HOME), with DIR/HOST/bin first
on PATH (a host's own python3, say) and SHELL the user's login shell, as sshd sets it
(parallel's remote side runs each job with $SHELL). Written into a hosts file as GNU parallel allows:
"2//usr/bin/python3 tests/ssh_standin.py --root DIR lab1".

What a host's folder holds makes it behave as a machine can:
- no folder DIR/HOST, or a file DIR/HOST/DOWN: the host does not answer (exit 255, as ssh);
- a file DIR/HOST/POWER_CUT: the first job that starts there (its command prints its start
  line) is killed with everything it started, the host goes down (DOWN written) and the
  connection drops (exit 255): a power cut in the middle of a student;
- a file DIR/HOST/REWRITE (JSON: file, lines, copy): once the first job there starts, the
  hosts file `file` is written with `lines`, as an instructor edits it during a run, and the
  job's end waits until the engine's copy for parallel (`copy`) holds them.
"""

import json
import os
import pwd
import signal
import subprocess
import sys
import time
from pathlib import Path

UNREACHABLE = 255  # ssh's status when it cannot reach the host or the connection drops
# ssh's options that take a value (the others are flags)
WITH_VALUE = set("BbcDEeFIiJLlmOopQRSWw")
STARTED = b"exactmark-started"  # the parallel engine's start line
JOB = "GNU_Parallel_worker"  # in the command parallel sends for a job (not for rsync, mkdir)
WAITS = 3000  # times 0.1 s: how long a job waits for the engine's copy of the hosts file


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


def job(command: str, home: Path, environment: dict) -> int:
    """Run a job's command, passing its output on; once it prints its start line, edit the
    hosts file if asked (REWRITE), or cut the power (POWER_CUT): kill the job and all it
    started, go down and drop the connection."""
    process = subprocess.Popen(["/bin/sh", "-c", command], cwd=home, env=environment,
                               stdout=subprocess.PIPE, start_new_session=True)
    for line in process.stdout:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
        if STARTED in line and (home / "REWRITE").exists():
            rewrite(home / "REWRITE")
        if STARTED in line and (home / "POWER_CUT").exists():
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


def rewrite(asked: Path) -> None:
    """The hosts file written as `asked` says; back once the engine's copy follows it."""
    edit = json.loads(asked.read_text())
    asked.unlink()
    text = "".join(line + "\n" for line in edit["lines"])
    Path(edit["file"]).write_text(text)
    for _ in range(WAITS):  # the copy names each host with its group: @GROUP+...LINE
        copied = Path(edit["copy"]).read_text().splitlines()
        if len(copied) == len(edit["lines"]) and all(
                any(line.endswith(asked) for line in copied) for asked in edit["lines"]):
            return
        time.sleep(0.1)


def main(arguments: list) -> int:
    """arguments: --root DIR, then ssh's own."""
    root = Path(arguments[1])
    host, command = split(arguments[2:])
    home = root / host
    if not home.is_dir() or (home / "DOWN").exists():
        print(f"ssh: connect to host {host} port 22: No route to host", file=sys.stderr)
        return UNREACHABLE
    environment = {**os.environ, "HOME": str(home), "SHELL": pwd.getpwuid(os.getuid()).pw_shell or "/bin/sh",
                   "PATH": f"{home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    if JOB in command and any((home / name).exists() for name in ("REWRITE", "POWER_CUT")):
        return job(command, home, environment)
    return subprocess.call(["/bin/sh", "-c", command], cwd=home, env=environment)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
