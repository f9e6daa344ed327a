"""A control group per run: one memory and one process limit for the whole run,
however many processes it starts. The real ones need root and a machine that
lets us make groups (as ours and CI's do); the parsing needs neither."""

import os
import subprocess
import sys

import pytest

from marking.cgroups import Groups, Unavailable, _own_paths

V1 = "12:pids:/ours\n4:memory:/ours/deeper\n1:name=systemd:/\n0::/\n"


def test_the_marker_s_own_groups_are_read_per_controller():
    assert _own_paths(V1) == {"pids": "/ours", "memory": "/ours/deeper", "name=systemd": "/",
                              "": "/"}


def test_groups_are_made_below_the_marker_s_own(tmp_path):
    for controller, own in (("memory", "ours/deeper"), ("pids", "ours")):
        (tmp_path / controller / own).mkdir(parents=True)
    groups = Groups(tmp_path, V1)
    assert groups.version == 1
    assert [parent.parent for parent in groups.parents] == [tmp_path / "memory/ours/deeper",
                                                            tmp_path / "pids/ours"]
    run = groups.new(64 << 20, 8)
    memory, pids = run.folders
    assert (memory / "memory.limit_in_bytes").read_text() == f"{64 << 20}\n"
    assert (pids / "pids.max").read_text() == "8\n"


def test_no_controllers_means_no_groups_and_says_why(tmp_path):
    with pytest.raises(Unavailable, match="no memory and pids controllers"):
        Groups(tmp_path, "0::/\n")


def test_entering_a_group_happens_before_the_program_starts(tmp_path):
    (tmp_path / "memory" / "ours" / "deeper").mkdir(parents=True)
    (tmp_path / "pids" / "ours").mkdir(parents=True)
    run = Groups(tmp_path, V1).new(1 << 30, 8)
    done = subprocess.run(run.enter_argv([sys.executable, "-c", "import os; print(os.getpid())"]),
                          capture_output=True, text=True, timeout=30)
    pid = done.stdout.strip()  # the shell that entered the group became the program
    assert [(folder / "cgroup.procs").read_text().strip() for folder in run.folders] == [pid, pid]


def alive(pid: int) -> bool:
    """Running, not a zombie waiting for whoever adopted it to read its status."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def real_groups():
    if os.geteuid() != 0:
        pytest.skip("making control groups needs root (CI runs as root)")
    try:
        return Groups()
    except Unavailable as problem:
        pytest.skip(f"this machine lets us make no control group: {problem}")


def run_in_a_group(memory_bytes: int, processes: int, code: str, check) -> None:
    """Run Python `code` in a new group of its own with these limits, then `check(group,
    its stdout)`; every group made is removed."""
    groups = real_groups()
    try:
        run = groups.new(memory_bytes, processes)
        done = subprocess.run(run.enter_argv([sys.executable, "-c", code]), capture_output=True,
                              text=True, timeout=60)
        check(run, done.stdout)
        run.remove()
    finally:
        groups.remove()


def test_memory_is_limited_for_the_whole_run_not_per_process():
    def check(run, stdout):
        assert int(stdout) >= 1, "four children of 150 MiB each fitted in 256 MiB"
        assert run.out_of_memory()

    run_in_a_group(256 << 20, 16, "import os\nfor _ in range(4):\n    if os.fork() == 0:\n"
                   "        block = bytearray(150 << 20)\n        os._exit(0)\n"
                   "statuses = [os.wait()[1] for _ in range(4)]\n"
                   "print(sum(os.WIFSIGNALED(s) for s in statuses))", check)


def test_processes_are_limited_for_the_whole_run():
    def check(run, stdout):
        assert int(stdout) < 6
        left = run.processes()
        assert left, "the sleeping children are not in the group"
        run.remove()
        assert not [pid for pid in left if alive(pid)], "the run's sleeping children were not killed"

    run_in_a_group(1 << 30, 6, "import os, time\nmade = 0\nfor _ in range(20):\n    try:\n"
                   "        if os.fork() == 0:\n            os.closerange(0, 3)\n"
                   "            time.sleep(30)\n            os._exit(0)\n"
                   "        made += 1\n    except OSError:\n        break\nprint(made)", check)
