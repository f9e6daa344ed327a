"""One sandbox per student and program (exactmark.sandbox.session.Session): the cases of a program
run one after another in it, and no case can hand anything to the next one. Each way a
case could carry state is tried by a program that plants it in one case and looks for
it in the next: a daemon (in a session of its own, so that no process group holds it), a
file in home, /tmp and /dev/shm, a System V shared-memory segment, a POSIX message queue;
then the same cases in the other order give the same outcomes, and those of a fresh
sandbox per case. And the sandbox's own driver stays out of a case's reach.

Sessions are made as root only (without root there is no throwaway user to keep the
driver out of the cases' reach), so every test here runs as root, in both isolations."""

import json
import math
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from exactmark.kit.cases import ROOT
from exactmark.running.record import FILES, Limit
from exactmark.running.limits import OPEN_FILES
from exactmark.sandbox.sandbox import CASE, STUDENT, Sandbox
from tests.test_mark import open_scratch
from tests.test_mark_assignments import run_marker
from tests.test_mark_cpu_limit import BOTH, NAMESPACES

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="sessions are made as root only")

# "plant" leaves every kind of state it can; "look" says which it finds. Each way is
# tried whether or not the sandbox refuses it (seccomp refuses the IPC): what counts is
# what the next case finds.
CARRIER = r'''
import ctypes, os, sys, time
what = sys.stdin.read().strip()
home, tmp = os.path.expanduser("~"), os.environ.get("TMPDIR", "/tmp")
places = {"home": os.path.join(home, "left.txt"), "tmp": os.path.join(tmp, "left.txt"),
          "/tmp": "/tmp/left-by-a-case.txt", "shm": "/dev/shm/left-by-a-case"}
libc = ctypes.CDLL(None, use_errno=True)
KEY = 0x5eed
if what == "plant":
    for path in places.values():
        try:
            with open(path, "w") as file:
                file.write("left")
        except OSError:
            pass
    libc.shmget(KEY, 4096, 0o1666)  # IPC_CREAT | 0666
    libc.mq_open(b"/left-by-a-case", 0o100 | 0o2, 0o666, None)  # O_CREAT | O_RDWR
    reader, writer = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.close(1)
            os.close(2)
            os.write(writer, str(os.getpid()).encode())
            time.sleep(600)
        os._exit(0)
    os.wait()
    print("planted", os.read(reader, 20).decode())
else:
    found = sorted(name for name, path in places.items() if os.path.exists(path))
    if libc.shmget(KEY, 0, 0) >= 0:
        found.append("shared memory")
    if libc.mq_open(b"/left-by-a-case", 0) >= 0:
        found.append("message queue")
    try:
        pids = [int(pid) for pid in os.listdir("/proc") if pid.isdigit()]
    except OSError:  # the fallback's Landlock shows a run its own /proc/self alone
        pids = []
    for pid in set(pids) - {os.getpid()}:
        try:
            if os.stat(f"/proc/{pid}").st_uid == os.getuid():
                found.append("a process of mine")
                break
        except OSError:
            pass
    print("found:", ", ".join(found) or "nothing")
'''


@pytest.fixture
def scratch():
    folder = open_scratch()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def snapshot_of(scratch: Path, code: str, name: str = "snapshot") -> Path:
    folder = scratch / name
    folder.mkdir()
    (folder / "prog.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return folder


def in_one_session(scratch: Path, isolation: str, code: str, inputs: list) -> list:
    """The outcome of each of `inputs`, run in this order in one session of a program."""
    with Sandbox(30, scratch, [ROOT], isolation=isolation) as box:
        return cases(box, snapshot_of(scratch, code), inputs)


def cases(box: Sandbox, snapshot: Path, inputs: list, per: str = STUDENT) -> list:
    """The outcome of each of `inputs`, run in this order in one session (or each in a
    fresh sandbox)."""
    command = lambda home: [box.python, str(home / "prog.py")]  # noqa: E731
    if per == CASE:
        return [box.run(snapshot, command, stdin, {}) for stdin in inputs]
    with box.session(snapshot) as session:
        return [session.run(command, stdin, {}) for stdin in inputs]


@pytest.mark.parametrize("isolation", BOTH)
def test_a_sandbox_and_its_session_close_what_they_made_as_their_blocks_end(scratch, isolation):
    with Sandbox(30, scratch, [ROOT], isolation=isolation) as box:
        with box.session(snapshot_of(scratch, "print('in a session')")) as session:
            ran = session.run(lambda home: [box.python, str(home / "prog.py")], b"", {})
            assert session.files.is_dir()
        assert ran.stdout == b"in a session\n", ran
        assert not session.files.exists(), "the session's folder outlived its block"
        if session.process is not None:  # under namespaces: its bubblewrap and driver
            assert session.process.poll() is not None, "the session's driver outlived its block"
        assert box.environment.is_dir()
    assert not box.environment.exists(), "the sandbox's Python environment outlived its block"


@pytest.mark.parametrize("isolation", BOTH)
def test_nothing_a_case_leaves_reaches_the_next_case(scratch, isolation):
    planted, looked = in_one_session(scratch, isolation, CARRIER, [b"plant", b"look"])
    said, daemon = planted.stdout.split()
    assert said == b"planted", planted
    if isolation == "fallback":  # under namespaces "look" sees the sandbox's processes itself
        assert not Path(f"/proc/{int(daemon)}").exists(), "the daemon outlived its case"
    assert looked.stdout == b"found: nothing\n", looked


@pytest.mark.parametrize("isolation", BOTH)
def test_the_order_of_the_cases_changes_no_outcome(scratch, isolation):
    inputs = [b"look", b"plant", b"look", b"plant", b"plant", b"look"]
    box = Sandbox(30, scratch, [ROOT], isolation=isolation)
    snapshot = snapshot_of(scratch, CARRIER)
    try:
        forwards = cases(box, snapshot, inputs)
        backwards = cases(box, snapshot, inputs[::-1])[::-1]
        fresh = cases(box, snapshot, inputs, per=CASE)
    finally:
        box.close()
    said = lambda outcomes: [(o.stdout.split()[0], o.status) for o in outcomes]  # noqa: E731
    assert said(forwards) == said(backwards) == said(fresh)
    assert said(forwards) == [(b"found:", 0), (b"planted", 0)] * 3 or \
        [o.stdout for o in forwards].count(b"found: nothing\n") == 3, forwards


@pytest.mark.parametrize("isolation", BOTH)
def test_each_case_has_its_own_cpu_time_and_home(scratch, isolation):
    """Two cases of 0.6 s of CPU each under a limit of 1 s: each passes, the limit is per
    case; the home each starts from is the snapshot, whatever the case before wrote."""
    code = """\
        import os, sys, time
        names = sorted(os.listdir("."))
        open("written.txt", "w").close()
        started = time.process_time()
        while time.process_time() - started < 0.6:
            pass
        print(names)
        """
    box = Sandbox(1, scratch, [ROOT], isolation=isolation, wall_seconds=60)
    try:
        if not box.measures_cpu:
            pytest.skip("no control group measures the CPU time here")
        first, second = cases(box, snapshot_of(scratch, code), [b"", b""])
    finally:
        box.close()
    for outcome in (first, second):
        assert outcome.limit is None and outcome.status == 0, outcome
        assert outcome.stdout == b"['prog.py']\n", outcome
        assert 0.6 <= outcome.cpu_seconds < 1, outcome


@pytest.mark.parametrize("isolation", BOTH)
def test_a_case_over_its_memory_does_not_mark_the_next_one(scratch, isolation):
    code = """\
        import sys
        if sys.stdin.read() == "big":
            block = bytearray(2 << 30)
        print("ok")
        """
    big, small = in_one_session(scratch, isolation, code, [b"big", b"small"])
    assert big.status != 0 and big.stdout == b"", big
    assert small.status == 0 and small.stdout == b"ok\n" and not small.out_of_memory, small


@pytest.mark.parametrize("isolation", BOTH)
def test_a_case_that_kills_all_it_can_reach_does_not_end_the_session(scratch, isolation):
    """kill(-1): every process it may signal. The sandbox's own (its driver, bubblewrap)
    belong to another user, so the next case runs as if nothing happened."""
    code = """\
        import os, signal, sys
        if sys.stdin.read() == "kill":
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        print("still here")
        """
    killer, after = in_one_session(scratch, isolation, code, [b"kill", b"after"])
    assert killer.stdout == b"still here\n", killer
    assert after.stdout == b"still here\n" and after.status == 0, after


def test_a_sleeper_ends_once_idle_and_an_honest_nap_passes(scratch):
    """With the handout's 30 s of CPU, a program that sleeps is ended after the idle
    allowance (5 s), not at the wall-clock cap; one that sleeps 2 s (HONEST_SLEEP_SECONDS)
    passes."""
    from exactmark.running.limits import HONEST_SLEEP_SECONDS, IDLE_SECONDS

    code = f"""\
        import sys, time
        time.sleep({HONEST_SLEEP_SECONDS} if sys.stdin.read() == "nap" else 600)
        print("awake")
        """
    box = Sandbox(30, scratch, [ROOT])
    try:
        if not box.measures_cpu:
            pytest.skip("no control group measures the CPU time here")
        assert box.idle_seconds == IDLE_SECONDS
        nap, sleep = cases(box, snapshot_of(scratch, code), [b"nap", b"sleep"])
    finally:
        box.close()
    assert nap.status == 0 and nap.stdout == b"awake\n", nap
    assert sleep.limit is Limit.IDLE, sleep


def test_the_report_says_which_sandbox_each_case_had(tmp_path):
    from tests.test_mark import submission

    folder = submission(tmp_path)
    _, per_student, _, written = run_marker(folder, "--only", "solitaire_1/seed_0")
    assert "Sandbox: one per student and program" in per_student
    assert written["extra_data"]["sandbox_per"] == STUDENT
    _, per_case, _, written = run_marker(folder, "--only", "solitaire_1/seed_0",
                                         "--sandbox-per", "case")
    assert "Sandbox: a fresh one per case\n" in per_case
    assert written["extra_data"]["sandbox_per"] == CASE


def test_the_budget_cuts_the_same_cases_every_time_most_marks_first(tmp_path):
    """A program that loops: its first case uses its 3 s of CPU, and a budget of 2 s
    leaves every other case not run, said so; twice, the same cases. (The timeout's own
    words may differ: a loaded machine may end the loop at the wall-clock cap first, and
    say how much CPU it had by then.)"""
    from tests.test_mark import submission

    folder = submission(tmp_path, "solitaire_1.py", "def main() -> None:\n",
                        "def main() -> None:\n    while True:\n        pass\n")
    outcomes = []
    for _ in range(2):
        _, report, _, written = run_marker(folder, "--only", "solitaire_1/*", "--jobs", "1",
                                           "--student-budget", "2")
        tests = {test["name"]: test["output"].split("\n")[0] for test in written["tests"]}
        outcomes.append(tests)
        assert "A budget of 2 s of CPU, and 30 s of waiting, for all the cases together" in report
    kinds = [{name: said if said.startswith("not run") else said.split(":")[0]
              for name, said in outcome.items()} for outcome in outcomes]
    assert kinds[0] == kinds[1]
    not_run = [name for name, said in outcomes[0].items() if said.startswith("not run: budget")]
    timed_out = [name for name, said in outcomes[0].items() if said.startswith("timeout")]
    assert len(timed_out) == 1 and len(not_run) == len(outcomes[0]) - 1, \
        json.dumps(outcomes[0], indent=1)


WAITING = 6  # seconds of waiting: two idle cases' allowance (the default, WAITING_SECONDS,
# is in the report of the test above)


def test_a_sleeper_waits_out_its_budget_and_its_other_cases_are_not_run(tmp_path):
    """It uses no CPU, so the CPU budget never ends it; each case ends idle, and once they
    have waited the waiting budget in all, the cases left are not run, said so."""
    from exactmark.running.limits import time_caps
    from tests.test_mark import TIMEOUT, submission

    folder = submission(tmp_path, "solitaire_1.py", "def main() -> None:\n",
                        "def main() -> None:\n    import time\n    time.sleep(600)\n")
    _, _, _, written = run_marker(folder, "--only", "solitaire_1/seed_*", "--jobs", "1",
                                  "--student-budget", "300", "--waiting-budget", str(WAITING))
    said = [test["output"].split("\n")[0] for test in written["tests"]]
    idle = [line for line in said if line.startswith("timeout")]
    waited = [line for line in said if line.startswith("not run: budget: the cases before it "
                                                       "waited")]
    if not written["extra_data"]["cgroups"]:
        pytest.skip("no control group measures the CPU here: nothing ends idle")
    each = time_caps(TIMEOUT)[1]  # the idle allowance of a case
    assert len(idle) == math.ceil(WAITING / each) and waited, said
    assert len(idle) + len(waited) == len(said), said


LITTER = """\
    import os, socket, sys, time
    what = sys.stdin.read()
    if what == "files":  # as many files as its home and /tmp hold: their teardown costs CPU
        for folder in (os.path.expanduser("~"), os.environ.get("TMPDIR", "/tmp")):
            try:
                for number in range(1_000_000):
                    open(os.path.join(folder, str(number)), "w").close()
            except OSError:
                pass
    elif what == "sockets":  # memory no process owns: data queued in socket buffers
        for _ in range(26):
            if os.fork() == 0:
                pairs = []
                try:
                    while True:
                        pairs.append(socket.socketpair())
                        pairs[-1][0].setblocking(False)
                        while True:
                            pairs[-1][0].send(bytes(1 << 16))
                except OSError:
                    pass
                time.sleep(5)
                os._exit(0)
        time.sleep(6)
    else:
        started = time.process_time()
        while time.process_time() - started < 0.6:
            pass
    print("done")
    """


@pytest.mark.parametrize("isolation", BOTH)
def test_what_a_case_leaves_to_tear_down_or_to_hold_costs_the_next_case_nothing(scratch,
                                                                                isolation):
    """The teardown of a case's files is the driver's CPU time, not the next case's; memory a
    case holds in socket buffers is counted, and killed for, in that case's own group: the
    driver survives it, and the next case passes within its 1 s of CPU."""
    box = Sandbox(1, scratch, [ROOT], isolation=isolation, wall_seconds=60)
    try:
        if not box.cpu_by_group:
            pytest.skip("no control group measures the CPU time here")
        files, after_files, sockets, after_sockets = cases(
            box, snapshot_of(scratch, LITTER), [b"files", b"work", b"sockets", b"work"])
    finally:
        box.close()
    # the litter ends at its own limits: its CPU, or in the fallback its share of the disk's
    # files, whichever the watch sees first (a loaded machine gives it more looks a CPU second)
    assert files.status == 0 or files.limit is Limit.CPU or files.overflowed == FILES, files
    for outcome in (after_files, after_sockets):
        assert outcome.status == 0 and outcome.limit is None and not outcome.out_of_memory, outcome
        assert outcome.cpu_seconds < 1, outcome
    assert sockets.status is not None or sockets.limit is not None, sockets  # not the marker's


@pytest.mark.parametrize("isolation", [NAMESPACES])
def test_a_case_sees_no_process_but_its_own(scratch, isolation):
    """Under namespaces /proc hides the sandbox's own processes (bubblewrap's command line
    names the marker's folders; the driver's counters grow with each case it reaps), and
    the next case's first process, which waits in its group while this case runs."""
    code = """\
        import os
        print([int(pid) for pid in os.listdir("/proc") if pid.isdigit()] == [os.getpid()])
        for pid in (1, 2):
            try:
                open(f"/proc/{pid}/cmdline").read()
                print("read", pid)
            except OSError:
                pass
        """
    (outcome,) = in_one_session(scratch, isolation, code, [b""])
    assert outcome.stdout == b"True\n", outcome


@pytest.mark.parametrize("isolation", [NAMESPACES])
def test_the_next_case_s_first_process_waits_in_its_own_group_and_goes_with_the_session(
        scratch, isolation):
    """Forked a case ahead, it joins its case's group while the case before runs; once the
    session ends, it and every group of the session are gone."""
    box = Sandbox(30, scratch, [ROOT], isolation=isolation)
    try:
        if box.groups is None:
            pytest.skip(f"no control groups here: {box.why_no_group}")
        session = box.session(snapshot_of(scratch, 'print("hi")\n'))
        try:
            ran = session.run(lambda home: [box.python, str(home / "prog.py")], b"", {})
            waiting = session.next_group
            assert ran.stdout == b"hi\n", ran
            assert waiting is not None and len(waiting.processes()) == 1
            folders = [*session.group.folders, *waiting.folders]
        finally:
            session.close()
        assert not [folder for folder in folders if folder.exists()]
    finally:
        box.close()


def test_where_no_session_can_be_made_each_case_gets_a_sandbox_and_the_report_says_why():
    from exactmark.marking.mark import Sessions

    class Refusing:
        def session(self, snapshot):
            raise RuntimeError("cannot make a control group inside another")

    sessions = Sessions(Refusing())
    for _ in range(2):
        with sessions.one(Path("snapshot")) as session:
            assert session is None
    assert sessions.refused == "cannot make a control group inside another"


@pytest.mark.parametrize("isolation", BOTH)
def test_a_case_runs_as_its_own_user_with_its_limits_and_no_privilege(scratch, isolation):
    code = """\
        import os, resource
        status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines()
                      if ":\\t" in line)
        print(os.getuid() != 0, os.getgid() != 0, os.getgroups() == [], status["CapEff"].strip(),
              status["NoNewPrivs"].strip(), status["Seccomp"].strip(),
              resource.getrlimit(resource.RLIMIT_NOFILE), resource.getrlimit(resource.RLIMIT_CORE),
              os.stat(".").st_uid == os.getuid(), os.stat("prog.py").st_uid == os.getuid())
        """
    first, second = in_one_session(scratch, isolation, code, [b"", b""])
    assert first.stdout == second.stdout, (first, second)
    said = first.stdout.decode().split(maxsplit=6)
    assert said[:6] == ["True", "True", "True", "0000000000000000", "1", "2"], first
    assert said[6].startswith(f"({OPEN_FILES}, {OPEN_FILES}) (0, 0) True True"), first
