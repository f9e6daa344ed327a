"""The one command, `exactmark COMMAND` (exactmark/cli.py): its commands are the make
targets' tools, each with its own help and an example, its exit status is its tool's, and
`make mark` ends as the marking guide's table of statuses says (docs/guide/marking.md), a
mark below full included."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from exactmark.base.exits import Exit
from exactmark.cli import COMMANDS, NOT_INSTALLED
from exactmark.kit.assignment import load
from exactmark.kit.bundle import write_assignment

CHECKOUT = Path(__file__).resolve().parents[1]
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(CHECKOUT)}  # the checkout's package, anywhere
ONE_CASE = "solitaire_1/seed_27"
RECIPE = re.compile(r"^\t.*-m exactmark (\S+)", re.MULTILINE)
TARGET = re.compile(r"^([a-z-]+):.*## ", re.MULTILINE)
WRONG = 'print("hello")\n'  # solitaire_1 that loses every mark
TIMEOUT = 300
MARKING_GUIDE = "docs/guide/marking.md"  # its table of exit statuses


def exactmark(*arguments, cwd: Path) -> subprocess.CompletedProcess:
    """`python3 -m exactmark ARGUMENTS` run in `cwd`, this checkout's package."""
    return subprocess.run([sys.executable, "-m", "exactmark", *map(str, arguments)], cwd=cwd,
                          env=ENVIRONMENT, capture_output=True, text=True, timeout=TIMEOUT)


def makefile_targets() -> dict:
    """target -> the command its recipe runs, for each listed target whose recipe runs one."""
    text = (CHECKOUT / "Makefile").read_text(encoding="utf-8")
    found = {}
    for target in TARGET.finditer(text):
        recipe = text[target.end():].split("\n\n")[0]
        command = RECIPE.search(recipe)
        if command:
            found[target.group(1)] = command.group(1)
    return found


def guide_make_status(status: int) -> int:
    """What the marking guide's table says `make mark` exits with when the marker exits
    `status`."""
    text = (CHECKOUT / MARKING_GUIDE).read_text(encoding="utf-8")
    row = re.search(rf"^\| {status} \|.*\| (\d+)[^|]*\|$", text, re.MULTILINE)
    assert row, f"{MARKING_GUIDE}: no row for the exit status {status} in the table of statuses"
    return int(row.group(1))


def test_the_commands_are_what_the_make_targets_run():
    targets = makefile_targets()
    assert sorted(targets.values()) == sorted(COMMANDS)  # each command, from one target
    assert {"mark", "mark-class", "student-pack", "check-isolation"} <= set(targets)
    assert "-m exactmark." not in (CHECKOUT / "Makefile").read_text(encoding="utf-8")


def test_exactmark_alone_lists_every_command_with_a_line(tmp_path):
    alone, helped = exactmark(cwd=tmp_path), exactmark("--help", cwd=tmp_path)
    assert alone.returncode == helped.returncode == 0 and alone.stdout == helped.stdout
    for name, (_, said) in COMMANDS.items():
        assert re.search(rf"^  {re.escape(name)} +{re.escape(said)}$", alone.stdout,
                         re.MULTILINE), name


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_s_help_is_its_own_with_an_example(command, tmp_path):
    done = exactmark(command, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: exactmark {command} ")
    assert f"\nexample: exactmark {command} " in done.stdout


# What a user's --help must not show: a module's command line, a source file's path, an
# --assignment that seems to take a name alone (a FILE.toml works everywhere).
NOT_FOR_USERS = {"a module's command line": re.compile(r"python3? -m exactmark"),
                 "a source path": re.compile(r"exactmark/\S+\.py|exactmark\.[a-z_]+\.[a-z_]+"),
                 "--assignment without FILE.toml": re.compile(r"--assignment NAME(?!\|FILE\.toml)")}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_s_help_speaks_of_the_command_not_the_source(command, tmp_path):
    done = exactmark(command, "--help", cwd=tmp_path)
    for what, pattern in NOT_FOR_USERS.items():
        found = [line for line in done.stdout.splitlines() if pattern.search(line)]
        assert not found, f"exactmark {command} --help shows {what}:\n" + "\n".join(found)


def test_an_unknown_command_is_refused_with_the_list(tmp_path):
    done = exactmark("marks", cwd=tmp_path)
    assert done.returncode == 2 and "invalid choice: 'marks'" in done.stderr
    assert all(name in done.stderr for name in COMMANDS)


def test_the_marker_s_refusal_and_status_pass_through_unchanged(tmp_path):
    missing = tmp_path / "no such folder"
    command = exactmark("mark", missing, "--assignment", "seeded", cwd=tmp_path)
    module = subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(missing),
                             "--assignment", "seeded"], cwd=tmp_path, env=ENVIRONMENT,
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert command.returncode == module.returncode == 2
    assert command.stderr == module.stderr and "is not a folder" in command.stderr


def test_check_isolation_is_the_marker_s_with_its_assignment(tmp_path):
    done = exactmark("check-isolation", "--assignment", "seeded", cwd=tmp_path)
    marker = exactmark("mark", "--check-isolation", "--assignment", "seeded", cwd=tmp_path)
    assert done.returncode == marker.returncode == 0, done.stderr
    isolation = done.stdout.splitlines()[0]
    assert isolation.startswith("Isolation: ") and isolation == marker.stdout.splitlines()[0]


def test_a_requirement_not_installed_is_named_with_the_extra_that_installs_it(tmp_path):
    """As a fresh `pip install .` without the extra would have it: tqdm cannot be imported."""
    done = subprocess.run([sys.executable, "-c", "import sys; sys.modules['tqdm'] = None; "
                           "from exactmark.cli import main; sys.exit(main(['class', '--help']))"],
                          cwd=tmp_path, env=ENVIRONMENT, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == Exit.REFUSED != 1  # never a mark below full
    assert "exactmark class: it needs tqdm" in done.stderr and "'.[class]'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command, extra", [("mark", "mark"), ("check-isolation", "mark"),
                                            ("class", "class")])
def test_a_linux_python_without_pyseccomp_is_refused_not_marked_without_seccomp(command, extra,
                                                                                tmp_path):
    """A system python3 with jsonschema but not the whole `mark` extra: the marker would run
    every case with no seccomp filter, so it is refused with the extra to install."""
    submission = tmp_path / "student"
    write_assignment(load("seeded"), submission)
    arguments = [command, *([str(submission)] if command != "check-isolation" else []),
                 "--assignment", "seeded"]
    done = subprocess.run([sys.executable, "-c", "import sys; sys.modules['pyseccomp'] = None; "
                           "sys.platform = 'linux'; from exactmark.cli import main; "
                           f"sys.exit(main({arguments!r}))"],
                          cwd=tmp_path, env=ENVIRONMENT, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == Exit.REFUSED, done.stdout + done.stderr
    assert done.stderr.splitlines() == [NOT_INSTALLED.format(command=command, module="pyseccomp",
                                                             extra=extra)]
    assert done.stdout == ""


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> str:
    """A fresh virtual environment's interpreter: the standard library alone, as a plain
    `python3` without the kit's extras has it."""
    folder = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True,
                   timeout=TIMEOUT)
    return str(folder / "bin" / "python")


@pytest.mark.parametrize("command, module, extra", [("mark", "jsonschema", "mark"),
                                                    ("class", "jsonschema", "class")])
def test_a_python_without_the_extras_is_told_which_to_install(command, module, extra,
                                                               bare_python, tmp_path):
    """The kit's own folder on the path, its libraries not installed: one line, no
    traceback, and `exactmark --help`, which imports no tool, still works."""
    assert subprocess.run([bare_python, "-c", f"import {module}"],
                          capture_output=True).returncode != 0
    done = subprocess.run([bare_python, "-m", "exactmark", command, str(tmp_path),
                           "--assignment", "seeded"], cwd=tmp_path, env=ENVIRONMENT,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == Exit.REFUSED, done.stderr
    assert done.stderr.splitlines() == [NOT_INSTALLED.format(command=command, module=module,
                                                             extra=extra)]
    helped = subprocess.run([bare_python, "-m", "exactmark", "--help"], cwd=tmp_path,
                            env=ENVIRONMENT, capture_output=True, text=True, timeout=TIMEOUT)
    assert helped.returncode == 0 and "commands:" in helped.stdout


@pytest.fixture(scope="module")
def submissions(tmp_path_factory) -> dict:
    """The marker's status -> a submission it ends with on ONE_CASE."""
    folder = tmp_path_factory.mktemp("submissions")
    write_assignment(load("seeded"), folder / "right")
    (folder / "wrong").mkdir()
    (folder / "wrong" / "solitaire_1.py").write_text(WRONG, encoding="utf-8")
    return {0: folder / "right", 1: folder / "wrong", 2: folder / "not there"}


@pytest.mark.parametrize("status", [0, 1, 2])
def test_make_mark_ends_as_the_marking_guide_s_table_says(status, submissions, tmp_path):
    submission = submissions[status]
    marked = exactmark("mark", submission, "--assignment", "seeded", "--only", ONE_CASE,
                       cwd=tmp_path)
    assert marked.returncode == status, marked.stdout + marked.stderr
    made = subprocess.run(["make", "-s", "-C", str(CHECKOUT), "mark", "STAMP=",
                           f"VENV_PYTHON={sys.executable}", f"SUBMISSION={submission}",
                           "ASSIGNMENT=seeded", f"ARGS=--only '{ONE_CASE}'"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT)
    assert made.returncode == guide_make_status(status), made.stdout + made.stderr
    said = "the marker's exit status is 1, a mark below full"
    assert (said in made.stderr) == (status == 1)
    if status == 2:
        assert "mark] Error 2" in made.stderr and "is not a folder" in made.stderr
    else:
        score = re.search(r"^Score: .*/13\.00", marked.stdout, re.MULTILINE).group()
        assert score in made.stdout


def test_the_marker_run_as_a_module_without_pyseccomp_says_so_in_its_isolation(tmp_path):
    """`python3 -m exactmark.marking.mark` is not refused (Gradescope's run is such a one):
    whichever sandbox it finds, what it shows first says what is missing and how to get it."""
    done = subprocess.run([sys.executable, "-c", "import runpy, sys; sys.modules['pyseccomp'] "
                           "= None; sys.argv[1:] = ['--check-isolation', '--assignment', "
                           "'seeded']; runpy.run_module('exactmark.marking.mark', "
                           "run_name='__main__')"], cwd=tmp_path, env=ENVIRONMENT,
                          capture_output=True, text=True, timeout=TIMEOUT)
    shown = done.stdout.splitlines()[:2]
    assert any("no seccomp filter (pyseccomp is not installed: pip install '.[mark]')" in line
               for line in shown), done.stdout + done.stderr
