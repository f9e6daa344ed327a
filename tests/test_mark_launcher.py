"""The launcher (exactmark/sandbox/launcher.py), seen from inside a run: what the submission's
program finds when it starts. Its home holds the snapshot and the case's files,
given to the run's user; it runs as that user, with no groups and no new
privileges; and every limit the sandbox lists is set, soft and hard alike."""

import json
import os
import shutil
import textwrap

import pytest

from exactmark.sandbox import launcher
from exactmark.running.limits import PROCESSES
from exactmark.sandbox.mounts import SANDBOX_HOME
from tests.test_mark import open_scratch
from tests.test_mark_cpu_limit import BOTH, IS_ROOT, sandbox

LOOK_AROUND = """\
    import json, os, resource
    limits = {name: resource.getrlimit(getattr(resource, name))
              for name in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE",
                           "RLIMIT_NPROC", "RLIMIT_CORE")}
    status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines()
                  if ":\\t" in line)
    home = os.getcwd()
    print(json.dumps({
        "uid": os.getresuid(), "gid": os.getresgid(), "groups": os.getgroups(),
        "no_new_privs": status["NoNewPrivs"].strip(), "cwd": home, "limits": limits,
        "files": {name: [os.stat(os.path.join(home, name)).st_uid,
                         open(os.path.join(home, name), "rb").read().hex()]
                  for name in sorted(os.listdir(home)) if name != "sub"},
        "nested": os.stat(os.path.join(home, "sub", "deep.txt")).st_uid,
        "home_owner": os.stat(home).st_uid,
    }))
    """


@pytest.fixture
def scratch():
    folder = open_scratch()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_limits_become_prlimit_options():
    assert launcher.argv("/h", 7, [("RLIMIT_CPU", (3, 4)), ("RLIMIT_NOFILE", 256)],
                         ["prog", "--x"]) == [
        "/bin/sh", "-c", launcher.LAUNCHER, "launcher", "/h", "7",
        "--cpu=3:4", "--nofile=256", "--", "prog", "--x"]


def test_the_snapshot_is_named_by_the_environment_never_the_command_line():
    assert launcher.environment("/s", "") == {"MARK_SNAPSHOT": "/s", "MARK_FILES": ""}
    assert "unset MARK_SNAPSHOT MARK_FILES" in launcher.LAUNCHER


@pytest.mark.parametrize("isolation", BOTH)
def test_the_program_starts_in_its_own_home_as_the_runs_user_within_its_limits(scratch, isolation):
    snapshot = scratch / "snapshot"
    (snapshot / "sub").mkdir(parents=True)
    (snapshot / "prog.py").write_text(textwrap.dedent(LOOK_AROUND), encoding="utf-8")
    (snapshot / "sub" / "deep.txt").write_bytes(b"down\n")
    (snapshot / "-dash.txt").write_bytes(b"a name like an option\n")
    with sandbox(scratch, isolation, 2) as box:
        outcome = box.run(snapshot, lambda home: [box.python, str(home / "prog.py")], b"",
                          {"stats.txt": b"3 1\n"})
        limits = dict(box.limits(0 if IS_ROOT else -1))
    assert outcome.status == 0 and outcome.stderr == b"", outcome
    seen = json.loads(outcome.stdout)
    files = {name: bytes.fromhex(content) for name, (_, content) in seen["files"].items()}
    assert files == {"-dash.txt": b"a name like an option\n", "prog.py": textwrap.dedent(
        LOOK_AROUND).encode(), "stats.txt": b"3 1\n"}
    if isolation == "namespaces":
        assert seen["cwd"] == SANDBOX_HOME
    if not IS_ROOT:  # the process limit counts our own user's processes, which come and go
        del limits["RLIMIT_NPROC"]
    for name, value in limits.items():
        assert seen["limits"][name] == (list(value) if isinstance(value, tuple)
                                        else [value, value]), name
    if IS_ROOT:
        uid = seen["uid"][0]
        assert uid != 0 and seen["uid"] == [uid] * 3 and seen["gid"] == [uid] * 3, seen
        assert seen["groups"] == [] and seen["no_new_privs"] == "1", seen
        assert limits["RLIMIT_NPROC"] == PROCESSES
        owners = {owner for owner, _ in seen["files"].values()}
        assert owners == {uid} and seen["nested"] == uid and seen["home_owner"] == uid, seen
    else:
        assert seen["uid"][0] == os.getuid()
