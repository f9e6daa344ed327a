"""The golden-case format: what the loader accepts and refuses, and `make expected`."""

import shutil
import subprocess
import sys

import pytest

from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT, Case, CaseError, load_cases, programs
from exactmark.running.run import run_piped


def make_folder(tmp_path, files):
    folder = tmp_path / "prog"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_bytes(content)
    return tmp_path


def test_a_case_is_its_files(tmp_path):
    root = make_folder(tmp_path, {"seed_1.in": b"1\n", "seed_1.out": b"x", "seed_1.tty": b"1\nx",
                                  "simulate_5_-2.out": b"t", "README.md": b"notes",
                                  "seed_1.args": b"golf\n--seed\n-4\n"})
    seed, table = load_cases("prog", root)
    assert (seed.name, seed.stdin, seed.stdout, seed.screen, seed.stats, seed.simulate) == \
        ("seed_1", b"1\n", b"x", b"1\nx", None, None)
    assert seed.args == ["golf", "--seed", "-4"] and table.args == []
    assert (table.name, table.simulate, table.stdin, table.screen) == ("simulate_5_-2", (5, -2), b"", None)


@pytest.mark.parametrize("files, problem", [
    ({"a.in": b""}, "a: no .out"),
    ({"a.out": b""}, "a: no .in"),
    ({"simulate_1_0.in": b"", "simulate_1_0.out": b""}, "takes no .in"),
    ({"a.in": b"", "a.out": b"", "a.txt": b""}, "a.txt: not a case file"),
    ({"a.in": b"", "a.out": b""}, r"an empty \.out needs a \.status or \.err"),
    ({"a.in": b"1\r\n", "a.out": b"x", "a.tty": b"1\n\nx"}, r"a \.tty for a stdin that holds a CR"),
    ({"a.in": b"", "a.out": b"abc", "a.head": b"2\n"}, r"its \.out holds exactly K bytes"),
    ({"a.in": b"", "a.out": b"ab", "a.head": b"2\n", "a.tty": b"ab"}, r"and it has no \.tty"),
    ({"a.in": b"", "a.out": b"", "a.head": b"0\n", "a.status": b"0\n"}, r"reads K >= 1 bytes"),
])
def test_a_folder_that_does_not_hold_whole_cases_is_refused(tmp_path, files, problem):
    with pytest.raises(CaseError, match=problem):
        load_cases("prog", make_folder(tmp_path, files))


def test_every_committed_folder_loads():
    for program in programs():
        assert load_cases(program), program


def test_make_expected_writes_a_new_case_and_keeps_existing_ones(tmp_path):
    kit_copy(tmp_path, "solitaire_1")
    (tmp_path / "expected_outputs" / "solitaire_1").mkdir(parents=True)
    command = [sys.executable, "-m", "exactmark.expected", "solitaire_1", "--seed", "27"]
    first = subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=60)
    assert first.returncode == 0, first.stderr
    written = tmp_path / "expected_outputs" / "solitaire_1"
    golden = EXPECTED_OUTPUTS / "solitaire_1"
    for suffix in (".in", ".out", ".tty"):
        assert (written / f"seed_27{suffix}").read_bytes() == (golden / f"seed_27{suffix}").read_bytes()
    (written / "seed_27.out").write_bytes(b"reviewed")
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=60)
    assert b"kept" in again.stdout and (written / "seed_27.out").read_bytes() == b"reviewed"


def test_make_expected_writes_nothing_for_a_run_that_crashes(tmp_path):
    """An instructor's own program, declared by their own assignment file outside the kit."""
    (tmp_path / "broken.py").write_text("raise ValueError('boom')\n")
    (tmp_path / "stdin").write_bytes(b"1\n")
    (tmp_path / "broken.toml").write_text(OWN_ASSIGNMENT)
    done = subprocess.run([sys.executable, "-m", "exactmark.expected", "broken", "--assignment",
                           str(tmp_path / "broken.toml"), "--input", "a", str(tmp_path / "stdin")],
                          cwd=ROOT, capture_output=True, timeout=60)
    assert done.returncode == 1 and b"FAILED   broken/a: ValueError: boom" in done.stdout, done
    assert not list((tmp_path / "cases").iterdir())


OWN_ASSIGNMENT = """title = "An instructor's own"
marks = 1
cpu_seconds = 5

[[programs]]
name = "broken"
reference = "."
cases = "cases"

  [[programs.groups]]
  name = "all"
  marks = 1
  cases = ["*"]
  visibility = "visible"
"""


def kit_copy(tmp_path, *programs):
    """The kit's programs, packages and assignments in a scratch folder, with an empty
    expected_outputs/ (the assignments declare their programs relative to themselves)."""
    for part in (*[f"{program}.py" for program in programs], "common", "exactmark", "hoyle",
                 "patience_games", "assignments"):
        (shutil.copytree if (ROOT / part).is_dir() else shutil.copy)(ROOT / part, tmp_path / part)
    return tmp_path


def expected(tmp_path, *argv):
    done = subprocess.run([sys.executable, "-m", "exactmark.expected", *argv], cwd=tmp_path,
                          capture_output=True, timeout=120)
    return done.returncode, (done.stdout + done.stderr).decode()


@pytest.mark.parametrize("argv, said", [
    (["patience", "--seed", "5"], "exit status 2, stderr ends: patience.py: error: the "
                                  "following arguments are required: game"),
    (["fizzbuzz", "--seed", "5"], "no assignment declares a program 'fizzbuzz'"),
    (["solitaire_1", "--simulate", "0", "5"], "simulate(0, 5): n must be 1 or more"),
    (["patience", "--input", "bad", "stdin", "--args=chess"], "exit status 2, stderr ends: "
                                                              "patience.py: error: argument game"),
])
def test_make_expected_refuses_what_it_cannot_vouch_for(tmp_path, argv, said):
    kit_copy(tmp_path, "solitaire_1", "solitaire_2", "hoyle_cli", "patience")
    (tmp_path / "stdin").write_bytes(b"quit\n")
    status, output = expected(tmp_path, *argv)
    assert status != 0 and said in output, output
    written = [path.name for path in (tmp_path / "expected_outputs").rglob("*") if path.is_file()] \
        if (tmp_path / "expected_outputs").exists() else []
    assert not written, f"written all the same: {written}"


def test_a_case_about_its_exit_status_says_so_and_ends_at_end_of_input(tmp_path):
    kit_copy(tmp_path, "solitaire_1")
    (tmp_path / "nothing").write_bytes(b"")
    status, output = expected(tmp_path, "solitaire_1", "--input", "no_input", "nothing")
    assert status == 1 and "exit status 1" in output, output
    status, output = expected(tmp_path, "solitaire_1", "--input", "no_input", "nothing",
                              "--status", "1")
    assert status == 0, output
    assert "; ends at end of input (it asked for input and got none)" in output
    folder = tmp_path / "expected_outputs" / "solitaire_1"
    assert (folder / "no_input.status").read_bytes() == b"1\n"
    assert (folder / "no_input.out").read_bytes() == (EXPECTED_OUTPUTS / "solitaire_1" / "no_input.out").read_bytes()


def test_make_expected_adds_no_screen_for_a_typed_cr(tmp_path):
    """A kept case without a .tty gets one, but not when its stdin holds a CR."""
    kit_copy(tmp_path, "hoyle_cli")
    folder = tmp_path / "expected_outputs" / "hoyle_cli"
    folder.mkdir(parents=True)
    for suffix in (".in", ".out", ".status", ".err"):
        shutil.copy(EXPECTED_OUTPUTS / "hoyle_cli" / f"whitespace_bytes{suffix}", folder)
    status, output = expected(tmp_path, "hoyle_cli", "--input", "whitespace_bytes",
                              str(folder / "whitespace_bytes.in"))
    assert status == 0 and "kept" in output, output
    assert not (folder / "whitespace_bytes.tty").exists()


def test_make_expected_writes_a_closed_stdout_case_only_where_the_program_meets_the_closed_pipe(
        tmp_path):
    """`| head -c K`: the case keeps K bytes and the status (stderr where the reference
    writes any); a program that writes too little to meet the closed pipe is refused."""
    kit_copy(tmp_path, "hoyle_cli")
    (tmp_path / "short").write_bytes(b"3\n")
    status, output = expected(tmp_path, "hoyle_cli", "--input", "short", "short", "--head", "10")
    assert status == 1 and "it could end before it meets the closed pipe" in output, output
    (tmp_path / "long").write_bytes(b"9\n" * 2000 + b"3\n")
    status, output = expected(tmp_path, "hoyle_cli", "--input", "long", "long", "--head", "10")
    assert status == 0, output
    case = next(case for case in load_cases("hoyle_cli", tmp_path / "expected_outputs"))
    assert (case.head, case.stdout, case.status, case.stderr, case.screen) == \
        (10, b"Welcome to", 0, None, None)


def test_a_closed_stdout_case_is_read_as_head_reads_it(tmp_path):
    """The reader takes exactly K bytes and goes away: a program that does not
    handle the closed pipe shows it in its exit status and stderr."""
    (tmp_path / "noisy.py").write_text("import sys\nfor i in range(100000): print(i)\n")
    (tmp_path / "cases").mkdir()
    root = make_folder(tmp_path / "cases", {"a.in": b"", "a.out": b"0\n1\n", "a.head": b"4\n"})
    case = load_cases("prog", root)[0]
    run = run_piped(Case("noisy", case.name, case.folder), tmp_path)
    assert run.stdout == b"0\n1\n"
    assert run.status != 0 and b"BrokenPipeError" in run.stderr
