"""The last step before a submission's code runs, inside the sandbox.

The sandbox passes this file's text to the submission's interpreter as
`python -I -S -c SOURCE JOB`, started in "/": nothing of the kit is visible there
and nothing of the submission is on its path, so it uses the standard library
only. As root it fills the run's home from the snapshot and hands it to the
run's throwaway user; then it drops to that user, sets the limits and becomes
the submission's program.

JOB is JSON: {"home", "snapshot" (or null), "files": {name: hex}, "uid" (-1: stay),
"limits": [[name, value]], "argv"}.
"""

import ctypes
import json
import os
import resource
import shutil
import sys

PR_SET_NO_NEW_PRIVS = 38


def fill_home(home: str, snapshot: str, files: dict) -> None:
    """The snapshot holds plain files and folders, a bounded depth: a plain copy is safe."""
    shutil.copytree(snapshot, home, dirs_exist_ok=True)
    for name, content in files.items():
        with open(os.path.join(home, name), "wb") as file:
            file.write(bytes.fromhex(content))


def hand_over(home: str, snapshot: str, files: dict, uid: int) -> None:
    """Give the run's user what `fill_home` made, and nothing else: the names are
    the snapshot's, so no mistake about `home` can reach beyond it."""
    os.chown(home, uid, uid)
    for folder, folders, names in os.walk(snapshot):
        relative = os.path.relpath(folder, snapshot)
        for name in folders + names:
            os.chown(os.path.join(home, relative, name), uid, uid, follow_symlinks=False)
    for name in files:
        os.chown(os.path.join(home, name), uid, uid, follow_symlinks=False)


def become(uid: int) -> None:
    """Drop to the run's user, for good: no setuid program can raise it again (bubblewrap
    does this too; the fallback has only this)."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def set_limits(limits: list, uid: int) -> None:
    for name, value in limits:
        if name == "RLIMIT_NPROC" and uid < 0:  # our own user's processes count too
            value += sum(1 for pid in os.listdir("/proc") if pid.isdigit()
                         and _owner(pid) == os.getuid())
        resource.setrlimit(getattr(resource, name), (value, value))


def _owner(pid: str):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def main(job: dict) -> None:
    if job["snapshot"]:
        fill_home(job["home"], job["snapshot"], job["files"])
        if job["uid"] >= 0:
            hand_over(job["home"], job["snapshot"], job["files"], job["uid"])
    if job["uid"] >= 0:
        become(job["uid"])
    set_limits(job["limits"], job["uid"])
    os.chdir(job["home"])
    os.execv(job["argv"][0], job["argv"])


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
