"""A control group per run: one memory and one process limit for the whole run,
however many processes it starts. The real ones need root and a machine that
lets us make groups (as ours and CI's do); the parsing needs neither."""

import os
import subprocess
import sys

import pytest

from exactmark.sandbox.cgroups import Groups, Unavailable, own_paths, cpu_seconds_of

V1 = "12:pids:/ours\n4:memory:/ours/deeper\n1:name=systemd:/\n0::/\n"
V1_CPU = V1 + "3:cpu,cpuacct:/ours/cpu\n"


def test_the_marker_s_own_groups_are_read_per_controller():
    assert own_paths(V1) == {"pids": "/ours", "memory": "/ours/deeper", "name=systemd": "/",
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


def test_cpu_time_is_read_from_the_cpuacct_group_of_the_run(tmp_path):
    for controller, own in (("memory", "ours/deeper"), ("pids", "ours"), ("cpuacct", "ours/cpu")):
        (tmp_path / controller / own).mkdir(parents=True)
    groups = Groups(tmp_path, V1_CPU)
    assert groups.measures_cpu and groups.cpu_parent.parent == tmp_path / "cpuacct/ours/cpu"
    run = groups.new(64 << 20, 8)
    memory, pids, cpu = run.folders
    assert cpu == run.cpu_folder and (memory / "memory.limit_in_bytes").exists()
    (cpu / "cpuacct.usage").write_text("1500000000\n")  # nanoseconds
    assert run.cpu_seconds() == 1.5


def test_without_cpuacct_the_groups_still_work_and_say_why_there_is_no_cpu_time(tmp_path):
    for controller, own in (("memory", "ours/deeper"), ("pids", "ours")):
        (tmp_path / controller / own).mkdir(parents=True)
    groups = Groups(tmp_path, V1_CPU)  # listed in /proc/self/cgroup, but not mounted
    assert not groups.measures_cpu and groups.why_no_cpu == "the cpuacct controller is not mounted"
    run = groups.new(64 << 20, 8)
    assert len(run.folders) == 2 and (run.folders[1] / "pids.max").read_text() == "8\n"
    with pytest.raises(Unavailable, match="the cpuacct controller is not mounted"):
        run.cpu_seconds()


def test_cpu_time_of_cgroup_v2_is_cpu_stat_s_usage():
    assert cpu_seconds_of(2, "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n") == 2.5
    assert cpu_seconds_of(1, "42000000\n") == 0.042
    with pytest.raises(Unavailable, match="usage_usec"):
        cpu_seconds_of(2, "user_usec 1\n")


def test_entering_a_group_happens_before_the_program_starts(tmp_path):
    (tmp_path / "memory" / "ours" / "deeper").mkdir(parents=True)
    (tmp_path / "pids" / "ours").mkdir(parents=True)
    run = Groups(tmp_path, V1).new(1 << 30, 8)
    for folder in run.folders:  # as the kernel makes them in a group
        (folder / "cgroup.procs").touch()
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          preexec_fn=run.enter, capture_output=True, text=True, timeout=30)
    pid = done.stdout.strip()  # the child that entered the group became the program
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
        done = subprocess.run([sys.executable, "-c", code], preexec_fn=run.enter,
                              capture_output=True, text=True, timeout=60)
        check(run, done.stdout)
        run.remove()
    finally:
        groups.remove()


def test_memory_is_limited_for_the_whole_run_not_per_process():
    def check(run, stdout):
        assert int(stdout) >= 1, "four children of 150 MiB each fitted in 256 MiB"
        assert run.oom_kills() >= 1

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


def test_cpu_time_is_the_whole_run_s_children_that_ended_included():
    def check(run, stdout):
        if not run.cpu_folder:
            run.remove()
            pytest.skip(f"no CPU accounting in this machine's groups: {run.why_no_cpu}")
        assert stdout.strip() == "both burnt"
        assert 0.6 <= run.cpu_seconds() < 30, "two processes of 0.3 s of CPU each"

    run_in_a_group(1 << 30, 8, "import os, time\npid = os.fork()\nstarted = time.process_time()\n"
                   "while time.process_time() - started < 0.3:\n    pass\n"
                   "if pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\nprint('both burnt')", check)
