"""docs/guide/assignment.md, step by step, as a new instructor follows it: each file it
shows written where it says, each command it shows run in the kit's folder in order, with
a home whose path has a space, and each line of output it shows found in what the command
printed. Between its steps, what the guide leaves to the reader is checked: the golden
cases against outputs worked out by hand, a wrong student and one who writes a debug line
on stderr marked, the class's grades, the autograder and the pack. Not one file of the
kit changes."""

import csv
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from exactmark.kit.cases import ROOT

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("make") is None,
                                reason="the C program needs gcc, the steps make")

GUIDE = ROOT / "docs" / "guide" / "assignment.md"
BLOCK = re.compile(r"^```(\w+)(?: file=(\S+))?\n(.*?)^```$", re.MULTILINE | re.DOTALL)
ANYTHING = "..."  # in a line of output shown: any text; a line of it alone: any lines
CASES = {  # program -> case -> (args or None, stdout worked out by hand, exit status)
    "fizzbuzz": {
        "three": (None, "1\n2\nFizz\n", 0),
        "fifteen": (None, "1\n2\nFizz\n4\nBuzz\nFizz\n7\n8\nFizz\nBuzz\n11\nFizz\n13\n14\n"
                          "FizzBuzz\n", 0),
        "sixteen_upper": ("--upper\n", "1\n2\nFIZZ\n4\nBUZZ\nFIZZ\n7\n8\nFIZZ\nBUZZ\n11\nFIZZ\n"
                                        "13\n14\nFIZZBUZZ\n16\n", 0),
    },
    "tally": {
        "three": (None, "count 3, sum 6\n", 0),
        "negative": (None, "count 2, sum 5\n", 0),
        "none": (None, "count 0, sum 0\n", 0),
        "letters": (None, "", 1),
    },
}
DEBUG_LINE = 'print("debug: reading n", file=sys.stderr)'


def steps() -> list:
    """The guide's steps in order: ("file", path under ~/warm-up, text) for a block with
    file=PATH, ("command", command, [output lines shown]) for each `$ ` line of a console
    block."""
    found = []
    for language, path, text in BLOCK.findall(GUIDE.read_text(encoding="utf-8")):
        if path:
            found.append(("file", path, text))
        elif language == "console":
            for line in text.splitlines():
                if line.startswith("$ "):
                    found.append(("command", line[2:], []))
                else:
                    found[-1][2].append(line)
    return found


def shows(output: str, shown: list) -> list:
    """The lines shown that are not found, in order, among the lines printed."""
    printed = iter(output.splitlines())
    missing = []
    for line in shown:
        if line == ANYTHING:
            continue
        pattern = re.compile(".*".join(map(re.escape, line.split(ANYTHING))))
        if not any(pattern.fullmatch(candidate) for candidate in printed):
            missing.append(line)
            printed = iter(output.splitlines())
    return missing


def shell(command: str, home: Path) -> subprocess.CompletedProcess:
    """The command as an instructor types it, in the kit's folder: with this interpreter
    as python3 and instead of the kit's .venv, and nothing installed (make's STAMP=)."""
    environment = dict(os.environ, HOME=str(home),
                       MAKEFLAGS=f"STAMP= VENV_PYTHON={sys.executable}",
                       PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def kit_state() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True).stdout


def more_students(right: Path) -> tuple:
    """Beside the right student the guide makes: Bo, whose tally starts the sum at 1, and
    Cy, whose right FizzBuzz writes a debug line on stderr."""
    wrong = shutil.copytree(right, right.parent / "Bo")
    source = (wrong / "tally.c").read_text()
    assert "long sum = 0;" in source
    (wrong / "tally.c").write_text(source.replace("long sum = 0;", "long sum = 1;"))
    noisy = shutil.copytree(right, right.parent / "Cy")
    source = (noisy / "fizzbuzz.py").read_text()
    assert "    upper = " in source
    (noisy / "fizzbuzz.py").write_text(source.replace("    upper = ", f"    {DEBUG_LINE}\n    upper = "))
    return wrong, noisy


def test_an_instructor_follows_the_guide_to_set_mark_and_publish_an_assignment(tmp_path):
    before = kit_state()
    home = tmp_path / "my home"
    course, right = home / "warm-up", home / "class" / "Ana María"
    targets = []
    for kind, what, shown in steps():
        if kind == "file":
            (course / what).parent.mkdir(parents=True, exist_ok=True)
            (course / what).write_text(shown, encoding="utf-8")
            continue
        if what.startswith("make mark-class"):
            wrong, noisy = more_students(right)
        done = shell(what, home)
        output = done.stdout + done.stderr
        assert done.returncode == 0, f"$ {what}\n{output}"
        missing = shows(output, shown)
        assert not missing, (f"$ {what}\nthe guide shows lines it did not print:\n"
                             + "\n".join(missing) + f"\nit printed:\n{output}")
        targets += what.split()[1:2] if what.startswith("make ") else []
    assert targets == ["expected"] * 3 + ["verify", "standalone", "mark", "mark-class",
                                          "gradescope", "student-pack"], targets

    # The golden cases: as worked out by hand; stderr kept only where the reference writes it.
    for program, cases in CASES.items():
        folder = course / "cases" / program
        assert sorted(path.stem for path in folder.glob("*.in")) == sorted(cases), program
        for name, (args, stdout, status) in cases.items():
            written = folder / name
            assert written.with_suffix(".out").read_text(encoding="utf-8") == stdout, f"{program}/{name}"
            assert written.with_suffix(".status").read_text() == f"{status}\n", f"{program}/{name}"
            assert (written.with_suffix(".args").read_text() if args else None) == args
            assert written.with_suffix(".err").exists() == (name == "letters"), f"{program}/{name}"

    # A wrong student, and one whose debug line on stderr costs nothing.
    assignment = f"ASSIGNMENT={shlex.quote(str(course / 'warm-up.toml'))}"
    done = shell(f"make mark SUBMISSION={shlex.quote(str(wrong))} {assignment}", home)
    assert done.returncode == 0 and "Score: 7.00/10.00" in done.stdout, done.stdout + done.stderr
    assert "the marker's exit status is 1, a mark below full" in done.stderr  # no failure of make
    assert "tally/negative: only numbers differ: line 1 has 6 where 5 is expected" in done.stdout
    done = shell(f"make mark SUBMISSION={shlex.quote(str(noisy))} {assignment}", home)
    assert done.returncode == 0 and "Score: 10.00/10.00" in done.stdout, done.stdout + done.stderr
    with open(home / "marked" / "grades.csv", newline="", encoding="utf-8") as file:
        grades = {row["student"]: row["mark"] for row in csv.DictReader(file)}
    assert grades == {"Ana María": "10.00", "Bo": "7.00", "Cy": "10.00"}, grades

    # Gradescope's autograder holds the assignment and its cases, and installs gcc.
    with zipfile.ZipFile(course / "autograder.zip") as zipped:
        names = zipped.namelist()
        assert "assignments/warm-up.toml" in names and "assignments/cases/tally/negative.out" in names
        assert "gcc" in zipped.read("setup.sh").decode()

    # The pack: a student with a wrong tally sees what the marker says.
    assert (course / "pack.zip").is_file()
    checked = subprocess.run([sys.executable, str(course / "pack" / "check.py"), str(wrong)],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "tally/negative: only numbers differ: line 1 has 6 where 5 is expected" in checked.stdout

    assert kit_state() == before, "the steps changed the kit's own files"
