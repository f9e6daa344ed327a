"""The marker on deliberately broken copies of our programs: each fault is
reported as what it is, within the time limit, and the marker is unharmed."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from exactmark.kit.cases import ROOT, load_cases
from exactmark.running.limits import WALL_FACTOR
from tests.interrupt import BACKSTOP_SECONDS, sigint_as_at_a_terminal, started_under

TIMEOUT = 3


def submission(tmp_path, program="solitaire_1.py", old=None, new=None):
    """A copy of our programs, with `old` replaced by `new` in `program`."""
    folder = tmp_path / "submission"
    folder.mkdir()
    for name in ("solitaire_1.py", "solitaire_2.py", "hoyle_cli.py"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, folder / name)
    for package in ("common", "hoyle"):
        if (ROOT / package).exists():
            shutil.copytree(ROOT / package, folder / package,
                            ignore=shutil.ignore_patterns("__pycache__"))
    if old is not None:
        source = (folder / program).read_text(encoding="utf-8")
        assert old in source, f"the fault cannot be made: {old!r} is not in {program}"
        (folder / program).write_text(source.replace(old, new, 1), encoding="utf-8")
    return folder


def mark(folder, *options, assignment="seeded"):
    """Run the marker; return its exit status, its report and its results.json tests by name
    (what ended a run is in its verdict, never in the seconds the marking took: a loaded
    machine stretches those).
    Afterwards nothing of this marking is left: no folder, no process of its users, no
    process started for it (bubblewrap's run as root)."""
    results = folder.parent / "results.json"
    scratch = open_scratch()
    try:
        done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(folder), "--assignment",
                               str(assignment), "--json", str(results), "--timeout", str(TIMEOUT),
                               "--jobs", "2", *options],
                              cwd=ROOT, capture_output=True, timeout=300,
                              env=dict(os.environ, TMPDIR=str(scratch)))
        assert b"Traceback" not in done.stderr, done.stderr.decode()
        written = json.loads(results.read_text())
        assert_nothing_left(scratch, written["extra_data"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    tests = {test["name"]: test for test in written["tests"]}
    return done.returncode, done.stdout.decode(), tests


def spun(cpu_seconds: int) -> tuple:
    """How the verdict of a run that spins begins: its CPU limit ended it, or, where a
    loaded machine gave it less than 1/WALL_FACTOR of a core, the wall-clock cap did first
    (the marker's own rule: exactmark.running.limits)."""
    return (f"timeout: over the CPU time limit of {cpu_seconds} s",
            f"timeout: no end within the wall-clock cap of {WALL_FACTOR * cpu_seconds} s")


def open_scratch() -> Path:
    """The marker's TMPDIR: a folder other users may cross, since in the fallback each
    run's throwaway user must reach its home there (pytest's own tmp_path is 0700)."""
    scratch = Path(tempfile.mkdtemp(prefix="marker-tmpdir-", dir="/tmp"))
    scratch.chmod(0o755)
    return scratch


def assert_nothing_left(scratch: Path, extra_data: dict) -> None:
    """No folder, control group or process of this marking (its `extra_data` in results.json
    names its users and groups; its processes name its scratch folder)."""
    assert not list(scratch.iterdir()), f"the marker left {list(scratch.iterdir())}"
    groups = [group for group in extra_data["cgroups"] if Path(group).exists()]
    assert not groups, f"the marker left its control groups {groups}"
    left = processes_of(set(extra_data["users"]), str(scratch))
    assert not left, f"processes of this marking left behind: {left}"


def processes_of(users: set, scratch: str = None) -> list:
    """The live processes of `users`, or that name `scratch` (bubblewrap runs as root).
    Not zombies: those have ended, and wait only for init to collect their status (here
    PID 1 reaps the orphans of a fork-heavy run a while after the marker gave up)."""
    return [f"{pid}: {_cmdline(pid)}" for pid in os.listdir("/proc")
            if pid.isdigit() and _state(pid) not in "ZX"
            and (_owner(pid) in users or scratch and scratch in _cmdline(pid, 100_000))]


def _state(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return "X"  # gone


def _cmdline(pid: str, most: int = 200) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")[:most]
    except OSError:
        return "?"


def _owner(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


@pytest.mark.parametrize("assignment, total", [("seeded", 13), ("calculation", 20),
                                               ("patience", 20)])
def test_our_own_programs_get_full_marks(assignment, total):
    status, report, tests = mark(ROOT, assignment=assignment)
    assert status == 0, report
    assert all(test["score"] == test["max_score"] for test in tests.values())
    assert f"Score: {total:.2f}/{total:.2f}" in report


def assignment_of(path: Path, program: str, cases: list, compare=None) -> Path:
    """An assignment file of a test's own: these cases of one program, a mark each; every
    other case of the program the kit's own; `compare` as the group says (default both)."""
    others = [case.name for case in load_cases(program) if case.name not in cases]
    path.write_text("\n".join([
        'title = "a test\'s own"', f"marks = {len(cases)}", "cpu_seconds = 30", "[[programs]]",
        f'name = "{program}"', f"kit_only = {json.dumps(others)}", "[[programs.groups]]",
        'name = "the cases"', f"marks = {len(cases)}", f"cases = {json.dumps(cases)}",
        'visibility = "visible"', *([f"compare = {json.dumps(compare)}"] if compare is not None else [])
    ]) + "\n")
    return path


def case_line(kind: str, case_id: str) -> str:
    """How the report names a case's verdict: its kind, its marks, the case."""
    return rf"{re.escape(kind)} +[0-9.]+  {re.escape(case_id)}"


@pytest.mark.parametrize("fault, program, old, new, only, kind, shown", [
    ("one trailing space", "solitaire_1.py", 'ready to start!"', 'ready to start! "',
     "solitaire_1/seed_0", "wrong output", "start!␠⏎"),
    ("an extra blank line", "solitaire_1.py", "    print()\n", "    print()\n    print()\n",
     "solitaire_1/seed_27", "wrong output", "+⏎"),
    ("wrong simulate rounding", "common/tables.py", ":>8.2f}", ":>8.1f}",
     "solitaire_1/simulate_500_10", "wrong output", "␠19.0%"),
    ("a missing U+FE0F", "solitaire_2.py", 'SMILE = "\\U0001F60A\\uFE0F"', 'SMILE = "\\U0001F60A"',
     "solitaire_2/seed_0_full", "wrong output", "want U+FE0F VARIATION SELECTOR-16"),
    ("a crash", "solitaire_1.py", "    seed = console.read_seed()",
     "    raise ValueError('boom')", "solitaire_1/seed_0", "crash", "ValueError: boom"),
])
def test_a_fault_is_reported_with_what_differs(tmp_path, fault, program, old, new, only, kind,
                                               shown):
    status, report, tests = mark(submission(tmp_path, program, old, new), "--only", only)
    assert status == 1
    assert re.search(case_line(kind, only), report), report
    assert shown in report and tests[only]["score"] == 0 and tests[only]["output"].startswith(kind)


@pytest.mark.parametrize("fault, code, kind", [
    ("an infinite loop", "while True:\n        pass\n", "timeout"),
    ("a sleep after closing its output", "import os, time\n    os.close(1)\n    os.close(2)\n"
     "    time.sleep(60)\n", "timeout"),
    ("100 MB of output", "sys.stdout.write('x' * 100_000_000)\n", "output too large"),
    ("a fork bomb attempt", "import os\n    while True:\n        try:\n            os.fork()\n"
     "        except OSError:\n            pass\n", "timeout"),
    ("a read of the golden outputs", "from pathlib import Path\n    for folder in (Path(__file__)"
     ".parent, Path.cwd(), Path.cwd().parent, Path.home()):\n        answer = folder / "
     "'expected_outputs/solitaire_1/seed_0.out'\n        if answer.exists():\n"
     "            sys.stdout.buffer.write(answer.read_bytes())\n    return\n",
     "wrong output"),
])
def test_hostile_code_is_contained(tmp_path, fault, code, kind):
    broken = submission(tmp_path, "solitaire_1.py", "def main() -> None:\n",
                        "def main() -> None:\n    import sys\n    " + code)
    status, report, tests = mark(broken, "--only", "solitaire_1/seed_0")
    verdict = tests["solitaire_1/seed_0"]
    assert status == 1 and verdict["score"] == 0, report
    assert verdict["output"].startswith(kind), verdict["output"]


def test_links_and_stats_files_in_a_submission_stay_out_of_the_runs(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"private\n")
    outside.chmod(0o600)
    broken = submission(tmp_path, "solitaire_1.py", "def main() -> None:\n",
                        "def main() -> None:\n    import pathlib\n"
                        "    for link in ('link', 'folder/link'):\n"
                        "        if pathlib.Path(link).exists():\n"
                        "            open(link, 'a').write('written')\n")
    (broken / "link").symlink_to(outside)
    (broken / "folder").mkdir()
    (broken / "folder" / "link").symlink_to(outside)
    (broken / "dangling").symlink_to(tmp_path / "nowhere")
    (broken / "hoyle_stats.txt").write_bytes(b"5\n5\n")  # left over from the student's own games
    status, report, tests = mark(broken, "--only", "solitaire_1/seed_27")
    assert tests["solitaire_1/seed_27"]["score"] > 0, report
    status, report, tests = mark(broken, "--only", "hoyle_cli/stats*", assignment="calculation")
    assert outside.read_bytes() == b"private\n"
    stats_cases = [name for name in tests if name.startswith("hoyle_cli/stats")]
    assert stats_cases and all(tests[name]["score"] > 0 for name in stats_cases), report


def test_a_traceback_after_the_right_output_passes_with_a_word_on_it(tmp_path):
    """Where the assignment compares stdout alone, the traceback costs nothing but is said;
    the shipped assignment compares stderr too, and the case then fails."""
    broken = submission(tmp_path, "solitaire_1.py", '    print("\\n".join(narrate(play(new_deck(seed)))))\n',
                        '    print("\\n".join(narrate(play(new_deck(seed)))))\n    sys.stdout.flush()\n'
                        '    raise RuntimeError("after the game")\n')
    broken.joinpath("solitaire_1.py").write_text("import sys\n" + broken.joinpath("solitaire_1.py").read_text())
    stdout_only = assignment_of(tmp_path / "stdout_only.toml", "solitaire_1", ["seed_0"],
                                compare=[])
    status, report, tests = mark(broken, assignment=stdout_only)
    assert status == 0 and tests["solitaire_1/seed_0"]["score"] > 0, report
    assert re.search(case_line("pass", "solitaire_1/seed_0")
                     + ": but stderr ends: RuntimeError: after the game", report), report
    status, report, tests = mark(broken, "--only", "solitaire_1/seed_0")
    assert status == 1 and re.search(case_line("wrong exit status", "solitaire_1/seed_0"), report), report


def test_the_submission_s_files_never_run_as_the_marker(tmp_path):
    """`ast.py` would shadow the launcher's own import if it ran from the submission's folder;
    it runs only in the submission's own program, as the run's user."""
    broken = submission(tmp_path)
    (broken / "ast.py").write_text("import os\nraise ImportError(f'ast.py ran as uid {os.getuid()}')\n")
    os.mkfifo(broken / "pipe")  # never copied: reading it would hang
    status, report, tests = mark(broken, "--only", "solitaire_1/seed_0")
    ran_as = re.search(r"ast\.py ran as uid (\d+)", report)
    assert ran_as, f"the submission's ast.py never ran:\n{report}"
    if os.getuid() == 0:
        assert ran_as[1] != "0", "a submission's file ran as root"
    assert "Traceback" not in report and "1 not a plain file" in report


@pytest.mark.parametrize("option", [["--timeout", "0"], ["--timeout", "inf"], ["--timeout", "nan"],
                                    ["--json", "/nonexistent/r.json"], ["--only", "no_such_program/*"],
                                    ["--assignment", "chess"], ["--submitted", "yesterday"],
                                    ["--jobs", "0"]])
def test_bad_options_are_refused_before_any_marking(option):
    done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(ROOT), "--assignment", "seeded",
                           *option], cwd=ROOT, capture_output=True, timeout=60)
    assert done.returncode == 2 and done.stdout == b"" and b"Traceback" not in done.stderr


def test_without_an_assignment_the_marker_says_which_there_are():
    done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(ROOT)], cwd=ROOT,
                          capture_output=True, timeout=60)
    assert done.returncode == 2 and (b"the assignments are: calculation, calculation_cpp, golf_tests, "
                                     b"patience, seeded") in done.stderr


def test_golden_outputs_that_other_users_can_reach_are_pointed_out(tmp_path):
    """A 0711 folder hides nothing: names can be guessed."""
    from exactmark.marking.mark import reachable_by_others

    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        case = folder / "seed_0.out"
        case.write_text("answer\n")
        case.chmod(0o644)
        for mode, reachable in ((0o755, True), (0o711, True), (0o700, False)):
            folder.chmod(mode)
            assert reachable_by_others(case) is reachable, oct(mode)
        folder.chmod(0o755)
        case.chmod(0o600)
        assert not reachable_by_others(case)
    finally:
        shutil.rmtree(folder)


def perfect_seeded(folder: Path) -> Path:
    """Our solitaire_1 and solitaire_2: a perfect submission of the seeded assignment."""
    folder.mkdir()
    shutil.copy(ROOT / "solitaire_1.py", folder)
    shutil.copy(ROOT / "solitaire_2.py", folder)
    shutil.copytree(ROOT / "common", folder / "common", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.mark.parametrize("name", ["x`touch INJECTED`y", 'q";touch INJECTED;"q', "new\nline",
                                  "$(shell touch INJECTED)", "it's $HOME -x"])
def test_make_mark_passes_the_folder_as_data(tmp_path, name):
    """`make mark SUBMISSION=...`: no shell and no make function reads the path."""
    folder = perfect_seeded(tmp_path / name)
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "mark", "STAMP=",
                           f"VENV_PYTHON={sys.executable}", f"SUBMISSION={folder}",
                           "ASSIGNMENT=seeded", "ARGS=--only solitaire_1/seed_0 --timeout 10"],
                          cwd=tmp_path, capture_output=True, timeout=120)
    injected = list(tmp_path.rglob("INJECTED")) + list(ROOT.glob("INJECTED"))
    assert not injected, f"{name!r}: a command ran"
    report = done.stdout.decode()
    assert done.returncode == 0 and "Score: 0.50/13.00" in report, report + done.stderr.decode()
    assert "new⟨U+000A⟩line" in report or "\n" not in name


def test_results_json_replaces_what_was_planted_at_its_path(tmp_path):
    """A link at the --json path is replaced, not followed; a FIFO there does not hang
    the marker; a folder there is refused before any marking."""
    victim = tmp_path / "victim"
    victim.write_text("do not touch\n")
    folder = perfect_seeded(tmp_path / "submission")
    for planted, make in (("link.json", lambda path: path.symlink_to(victim)),
                          ("fifo.json", os.mkfifo)):
        make(tmp_path / planted)
        done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(folder), "--assignment",
                               "seeded", "--only", "solitaire_1/seed_0", "--json",
                               str(tmp_path / planted)],
                              cwd=ROOT, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        assert (tmp_path / planted).is_file() and not (tmp_path / planted).is_symlink()
        assert json.loads((tmp_path / planted).read_text())["score"] == 0.5
    assert victim.read_text() == "do not touch\n"
    (tmp_path / "folder.json").mkdir()
    done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(folder), "--assignment",
                           "seeded", "--json", str(tmp_path / "folder.json")], cwd=ROOT,
                          capture_output=True, timeout=60)
    assert done.returncode == 2 and b"is a folder" in done.stderr and done.stdout == b""


def test_ctrl_c_stops_at_once_cleans_up_and_reports_what_was_marked(tmp_path):
    broken = submission(tmp_path, "solitaire_1.py", "def main() -> None:\n",
                        "def main() -> None:\n    import time\n    time.sleep(600)\n")
    scratch = open_scratch()
    results = tmp_path / "results.json"
    marker = subprocess.Popen([sys.executable, "-m", "exactmark.marking.mark", str(broken), "--assignment",
                               "seeded", "--only",
                               "solitaire_1/seed_*", "--timeout", "300", "--jobs", "2", "--json",
                               str(results)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=dict(os.environ, TMPDIR=str(scratch)),
                              preexec_fn=sigint_as_at_a_terminal)
    started_under(marker, "solitaire_1.py")  # a case is sleeping now
    marker.send_signal(signal.SIGINT)
    out, err = marker.communicate(timeout=BACKSTOP_SECONDS)  # "at once": the cases left not run
    assert marker.returncode == 130 and b"Traceback" not in err, err.decode()
    report = out.decode()
    assert "Interrupted:" in report and "not run" in report and "Score:" in report, report
    assert_nothing_left(scratch, json.loads(results.read_text())["extra_data"])
    scratch.rmdir()
