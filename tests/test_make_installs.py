"""What each make target installs (the Makefile's stamps): a tool the marker's extra alone,
make mark-class the class's, make test everything; and an install holding more stands for
the lesser ones, so that nothing is installed twice. make runs for real, with a stand-in
for python3 that makes a virtual environment whose python writes down what it was asked
(pip included) and does nothing: no network, no install, in a folder of the test's own."""

import os
import stat
import subprocess
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
TIMEOUT = 120
# python3 for make: `-m venv DIR` makes DIR/bin/python, itself; any other command is written
# to $ASKED, a line each.
STAND_IN = """#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0
fi
echo "$*" >> "$ASKED"
"""
INSTALL = "-m pip install --quiet --disable-pip-version-check --editable .[{extra}]"
# Each target with what it needs to run, and the extra it installs in a fresh environment.
TARGETS = {"standalone": ([], "mark"),
           "student-pack": (["ASSIGNMENT=seeded", "OUT=pack"], "mark"),
           "expected": (["PROGRAM=solitaire_1", "SEEDS=3"], "mark"),
           "verify": ([], "mark"),
           "gradescope": (["ASSIGNMENT=seeded"], "mark"),
           "check-isolation": (["ASSIGNMENT=seeded"], "mark"),
           "mark": (["SUBMISSION=student", "ASSIGNMENT=seeded"], "mark"),
           "mark-class": (["SUBMISSIONS=class", "ASSIGNMENT=seeded"], "class"),
           "dask-worker": (["SCHEDULER=tcp://127.0.0.1:8786"], "dask"),
           "test": ([], "test")}


class Make:
    """make in the checkout, its virtual environment in `folder`."""

    def __init__(self, folder: Path):
        self.python, self.asked = folder / "python3", folder / "asked.txt"
        self.python.write_text(STAND_IN, encoding="utf-8")
        self.python.chmod(self.python.stat().st_mode | stat.S_IXUSR)
        self.venv = folder / "venv"

    def __call__(self, target: str) -> list:
        """The extras `make TARGET` installed, in order."""
        self.asked.write_text("", encoding="utf-8")
        done = subprocess.run(["make", "-s", "-C", str(CHECKOUT), target, *TARGETS[target][0],
                               f"PYTHON={self.python}", f"VENV={self.venv}"],
                              env={**os.environ, "ASKED": str(self.asked)},
                              capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        asked = self.asked.read_text(encoding="utf-8").splitlines()
        assert any(line.startswith(("-m exactmark ", "-m pytest ")) for line in asked), asked
        return [extra for extra in ("mark", "class", "dask", "test")
                if INSTALL.format(extra=extra) in asked]


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_fresh_target_installs_only_its_own_extra(target, tmp_path):
    assert Make(tmp_path)(target) == [TARGETS[target][1]]


def test_a_target_needing_more_installs_more_and_none_installs_twice(tmp_path):
    make = Make(tmp_path)
    assert make("standalone") == ["mark"]
    assert make("mark") == []
    assert make("mark-class") == ["class"]
    assert make("verify") == [] and make("mark-class") == []
    assert make("dask-worker") == ["dask"] and make("mark-class") == []
    assert make("test") == ["test"]


def test_after_make_test_no_tool_installs_again(tmp_path):
    make = Make(tmp_path)
    assert make("test") == ["test"]
    assert [make(target) for target in sorted(TARGETS)] == [[]] * len(TARGETS)
