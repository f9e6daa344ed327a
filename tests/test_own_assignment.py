"""README's "Set your own assignment", step by step, as a new instructor follows it: an
assignment of one Python and one C program made in a folder outside the kit, its golden
cases written by `make expected` from input files (and checked here against outputs
worked out by hand), `make verify`, `make standalone`, `make mark` on a right and a wrong
submission, `make mark-class`, `make gradescope`, `make student-pack` and a student's check
with it; and not one file of the kit changed."""

import csv
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from exactmark.kit.cases import ROOT

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("make") is None,
                                reason="the C program needs gcc, the steps make")

FIZZBUZZ = '''\
"""FizzBuzz: read n, print 1 to n, Fizz for a multiple of 3, Buzz of 5, FizzBuzz of both;
--upper prints them in capitals."""

import sys


def said(number: int) -> str:
    return "Fizz" * (number % 3 == 0) + "Buzz" * (number % 5 == 0) or str(number)


def main() -> None:
    upper = "--upper" in sys.argv[1:]
    for number in range(1, int(input()) + 1):
        print(said(number).upper() if upper else said(number))


if __name__ == "__main__":
    main()
'''
TALLY = '''\
#include <stdio.h>

/* Tally: read a count n, then n integers; print how many and their sum. */
int main(void) {
    int count = 0, number;
    long sum = 0;
    if (scanf("%d", &count) != 1)
        return 0;
    for (int i = 0; i < count && scanf("%d", &number) == 1; i++)
        sum += number;
    printf("count %d, sum %ld\\n", count, sum);
    return 0;
}
'''
ASSIGNMENT = '''\
title = "Warm-up: FizzBuzz in Python, Tally in C"
marks = 10
cpu_seconds = 5

[[programs]]
name = "fizzbuzz"
reference = "reference"
cases = "cases/fizzbuzz"

  [[programs.groups]]
  name = "counting"
  marks = 6
  cases = ["*"]
  visibility = "visible"

[[programs]]
name = "tally"
language = "c"
submit = [{ files = "tally.c" }]
reference = "reference"
cases = "cases/tally"

  [[programs.groups]]
  name = "sums"
  marks = 4
  cases = ["*"]
  visibility = "visible"
'''
INPUTS = {  # program -> case -> (stdin, args or None, stdout worked out by hand)
    "fizzbuzz": {
        "three": ("3\n", None, "1\n2\nFizz\n"),
        "fifteen": ("15\n", None, "1\n2\nFizz\n4\nBuzz\nFizz\n7\n8\nFizz\nBuzz\n11\nFizz\n13\n14\n"
                                  "FizzBuzz\n"),
        "sixteen_upper": ("16\n", "--upper\n", "1\n2\nFIZZ\n4\nBUZZ\nFIZZ\n7\n8\nFIZZ\nBUZZ\n11\n"
                                               "FIZZ\n13\n14\nFIZZBUZZ\n16\n"),
    },
    "tally": {
        "three": ("3\n1 2 3\n", None, "count 3, sum 6\n"),
        "negative": ("2\n-5\n10\n", None, "count 2, sum 5\n"),
        "none": ("0\n", None, "count 0, sum 0\n"),
    },
}
WRONG = {
    "fizzbuzz/fizz_buzz_spaced.toml": '''\
mistake = "prints Fizz Buzz, with a space, for a multiple of 15"
[[change]]
find = '"Fizz" * (number % 3 == 0) + "Buzz"'
replace = '"Fizz" * (number % 3 == 0) + " " * (number % 15 == 0) + "Buzz"'
''',
    "tally/sum_starts_at_one.toml": '''\
mistake = "starts the sum at 1"
[[change]]
find = "long sum = 0;"
replace = "long sum = 1;"
''',
}


def make(target: str, **variables) -> subprocess.CompletedProcess:
    """`make TARGET NAME=VALUE...` in the kit, as the instructor types it (with this
    interpreter instead of the kit's .venv)."""
    done = subprocess.run(["make", "-s", "-C", str(ROOT), target, "STAMP=",
                           f"VENV_PYTHON={sys.executable}",
                           *(f"{name}={value}" for name, value in variables.items())],
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def put(folder: Path, files: dict) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def kit_state() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True).stdout


def test_an_instructor_sets_marks_and_publishes_an_assignment_of_their_own(tmp_path):
    before = kit_state()
    course = put(tmp_path / "my course", {"reference/fizzbuzz.py": FIZZBUZZ,
                                          "reference/tally.c": TALLY,
                                          "warm-up.toml": ASSIGNMENT})
    for program, cases in INPUTS.items():
        for name, (stdin, args, _) in cases.items():
            put(course / "inputs" / program, {f"{name}.in": stdin, **({f"{name}.args": args} if args else {})})
    assignment = course / "warm-up.toml"

    # 1. The golden cases, from the inputs: checked against what was worked out by hand.
    for program, cases in INPUTS.items():
        done = make("expected", ASSIGNMENT=assignment, PROGRAM=program, INPUTS=course / "inputs" / program)
        assert done.returncode == 0, done.stdout + done.stderr
        for name, (_, args, stdout) in cases.items():
            written = course / "cases" / program / name
            assert written.with_suffix(".out").read_text(encoding="utf-8") == stdout, f"{program}/{name}"
            assert written.with_suffix(".status").read_text() == "0\n"
            assert (written.with_suffix(".args").read_text() if args else None) == args

    # 2. verify: the references pass, each wrong variant (beside the assignment) is caught.
    put(course / "wrong", WRONG)
    done = make("verify", ASSIGNMENT=assignment)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok      reference   fizzbuzz (warm-up)" in done.stdout
    assert "ok      reference   tally (warm-up)" in done.stdout
    assert "caught  wrong       fizzbuzz/fizz_buzz_spaced" in done.stdout
    assert "Wrong programs caught: 2/2" in done.stdout, done.stdout

    # 3. What a student hands in, right; and a wrong one.
    right = tmp_path / "class" / "Ana María"
    done = make("standalone", ASSIGNMENT=assignment, OUT=right)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in right.iterdir()) == ["fizzbuzz.py", "tally.c"]
    wrong = shutil.copytree(right, tmp_path / "class" / "Bo")
    (wrong / "tally.c").write_text(TALLY.replace("long sum = 0;", "long sum = 1;"))

    done = make("mark", SUBMISSION=right, ASSIGNMENT=assignment, ARGS="--jobs 2")
    assert done.returncode == 0 and "Score: 10.00/10.00" in done.stdout, done.stdout + done.stderr
    done = make("mark", SUBMISSION=wrong, ASSIGNMENT=assignment, ARGS="--jobs 2")
    assert done.returncode == 0 and "Score: 6.00/10.00" in done.stdout, done.stdout
    assert "the marker's exit status is 1, a mark below full" in done.stderr  # no failure of make
    assert "tally/negative: only numbers differ: line 1 has 6 where 5 is expected" in done.stdout

    # 4. The class, and Gradescope's autograder.
    marked = tmp_path / "marked"
    done = make("mark-class", SUBMISSIONS=tmp_path / "class", ASSIGNMENT=assignment, OUT=marked)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(marked / "grades.csv", newline="", encoding="utf-8") as file:
        grades = {row["student"]: row for row in csv.DictReader(file)}
    assert (grades["Ana María"]["mark"], grades["Bo"]["mark"]) == ("10.00", "6.00"), grades
    zipped = tmp_path / "autograder.zip"
    done = make("gradescope", ASSIGNMENT=assignment, OUT=zipped)
    assert done.returncode == 0, done.stdout + done.stderr
    names = zipfile.ZipFile(zipped).namelist()
    assert "assignments/warm-up.toml" in names and "assignments/cases/tally/negative.out" in names
    assert "gcc" in zipfile.ZipFile(zipped).read("setup.sh").decode()

    # 5. The student pack, published with the handout: a student checks their work with it.
    pack = tmp_path / "published" / "warm-up pack"
    done = make("student-pack", ASSIGNMENT=assignment, OUT=pack)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (pack.parent / "warm-up pack.zip").is_file()
    checked = subprocess.run([sys.executable, str(pack / "check.py")], cwd=right,
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "6 of 6 visible cases pass; the marking also uses cases you cannot see" in checked.stdout
    checked = subprocess.run([sys.executable, str(pack / "check.py"), str(wrong)],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 1
    assert "tally/negative: only numbers differ: line 1 has 6 where 5 is expected" in checked.stdout

    assert kit_state() == before, "the steps changed the kit's own files"
