"""`pip install '.[mark]'` into a fresh virtual environment, then the command from another
folder: its help and each command's, a sample solution written and marked, as a user of
the installed tool types them; `exactmark class` asks for its extra, then works with it
(`exactmark dask-worker` asks for its own).
For this interpreter, and for Python 3.10 and 3.13 where they are on this machine. The
wheel carries the kit as data (setup.py): every file the tool reads is in it, and a run
the installed marker marks cannot read the installed golden cases."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from exactmark.base.exits import Exit
from exactmark.cli import COMMANDS, EXTRA

CHECKOUT = Path(__file__).resolve().parents[1]
IN_CI = bool(os.environ.get("KIT_CI"))  # .ci/run: this interpreter's install never skips
INTERPRETERS = {"this": sys.executable,
                "3.10": "/root/.pyenv/versions/3.10.13/bin/python3",
                "3.13": "/root/.pyenv/versions/3.13.0/bin/python3"}
INSTALL_TIMEOUT = 1200
TIMEOUT = 300
# What the tool never reads: the wheel leaves them out. Every other tracked file is in it.
NOT_READ_FILES = {".gitignore", "Makefile", "README.md", "pytest.ini", "pyproject.toml",
                  "setup.py", "requirements-class.txt", "requirements-dev.txt",
                  "requirements-fast.txt", "requirements-dask.txt", "requirements-mutants.txt"}
NOT_READ_TREES = (".ci/", "bench/", "tests/oracles/", "tests/platforms/", "tests/mutants_fixture/",
                  "tests/mutants_c_fixture/")
MARKED = ["solitaire_1/seed_27", "solitaire_2/seed_4_full"]


def not_read(path: str) -> bool:
    """A tracked file the tool never reads: a developer's file, a benchmark, a test (the
    variants in tests/wrong/ and tests/honest/ are the tool's data)."""
    return (path in NOT_READ_FILES or path.startswith(NOT_READ_TREES)
            or (path.startswith("tests/") and path.count("/") == 1))


def tracked() -> list:
    """The checkout's files as a commit would hold them: tracked, or new and not ignored."""
    done = subprocess.run(["git", "-C", str(CHECKOUT), "ls-files", "--cached", "--others",
                           "--exclude-standard"], capture_output=True, text=True, check=True)
    return [path for path in done.stdout.splitlines() if (CHECKOUT / path).is_file()]


class Installed:
    """A fresh virtual environment with the package installed from a copy of the checkout."""

    def __init__(self, python: str, folder: Path):
        self.kit = folder / "kit"
        for path in tracked():
            (self.kit / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(CHECKOUT / path, self.kit / path)
        self.venv = folder / "venv"
        subprocess.run([python, "-m", "venv", str(self.venv)], check=True, timeout=TIMEOUT)
        self.pip_install("mark")

    def pip_install(self, extra: str) -> None:
        done = subprocess.run([str(self.venv / "bin" / "python"), "-m", "pip", "install",
                               "--quiet", "--disable-pip-version-check", f"{self.kit}[{extra}]"],
                              capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr

    def run(self, *arguments, cwd: Path, program: str = "exactmark",
            stdin: str = "") -> subprocess.CompletedProcess:
        """The installed `program` in `cwd`, with none of this test's import paths."""
        environment = {name: value for name, value in os.environ.items()
                       if name not in ("PYTHONPATH", "PYTHONHOME")}
        return subprocess.run([str(self.venv / "bin" / program), *map(str, arguments)],
                              cwd=cwd, env=environment, input=stdin, capture_output=True,
                              text=True, timeout=TIMEOUT)

    @property
    def package(self) -> Path:
        done = self.run("-c", "import exactmark; print(exactmark.__file__)", cwd=self.venv,
                        program="python")
        return Path(done.stdout.strip()).parent


def interpreter(name: str) -> str:
    """The interpreter's path, or a skip (with the reason) where it is not on this machine."""
    python = INTERPRETERS[name]
    if name != "this" and not Path(python).is_file():
        pytest.skip(f"Python {name} is not at {python} on this machine")
    return python


@pytest.fixture(scope="module", params=list(INTERPRETERS))
def installed(request, tmp_path_factory) -> Installed:
    python = interpreter(request.param)
    return Installed(python, tmp_path_factory.mktemp(f"install-{request.param}"))


def test_the_command_and_each_command_s_help_work_from_any_folder(installed, tmp_path):
    listed = installed.run("--help", cwd=tmp_path)
    assert listed.returncode == 0 and all(f"\n  {name} " in listed.stdout for name in COMMANDS)
    assert installed.run("-m", "exactmark", "--help", cwd=tmp_path, program="python").stdout \
        == listed.stdout
    for command in sorted(set(COMMANDS) - set(EXTRA)):  # each asks for its extra (below)
        done = installed.run(command, "--help", cwd=tmp_path)
        assert done.returncode == 0, f"{command}: {done.stderr}"
        assert f"\nexample: exactmark {command} " in done.stdout


def test_a_sample_solution_the_installed_command_writes_passes_its_cases(installed, tmp_path):
    written = installed.run("standalone", "--assignment", "seeded", "sample", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    marked = installed.run("mark", "sample", "--assignment", "seeded",
                           *[part for case in MARKED for part in ("--only", case)], cwd=tmp_path)
    assert marked.returncode == 0, marked.stdout + marked.stderr
    assert all(re.search(rf"^  pass +[\d.]+  {case}$", marked.stdout, re.MULTILINE)
               for case in MARKED), marked.stdout


def test_exactmark_class_asks_for_its_extra_then_works_with_it(installed, tmp_path):
    asked = installed.run("class", "--help", cwd=tmp_path)
    if asked.returncode:  # the class's extra not installed yet in this environment
        assert asked.returncode == Exit.REFUSED and "'.[class]'" in asked.stderr
        installed.pip_install("class")
    done = installed.run("class", "--help", cwd=tmp_path)
    assert done.returncode == 0 and "\nexample: exactmark class " in done.stdout, done.stderr


def test_exactmark_dask_worker_asks_for_its_extra(installed, tmp_path):
    asked = installed.run("dask-worker", "--help", cwd=tmp_path)
    assert asked.returncode == Exit.REFUSED and "'.[dask]'" in asked.stderr, asked.stderr


@pytest.mark.parametrize("installed", ["this"], indirect=True)
def test_the_wheel_carries_every_file_the_tool_reads(installed):
    """Each tracked file is in the package as it is in the checkout, the kit's below
    exactmark/kit_copy/ (the programs' packages too: never on sys.path of their own), or
    is one the tool never reads; and none of those is carried."""
    package = installed.package
    carried = {path: package / path.removeprefix("exactmark/") if path.startswith("exactmark/")
               else package / "kit_copy" / path for path in tracked()}
    missing = [path for path, copy in carried.items()
               if not not_read(path) and not (copy.is_file()
                                              and copy.read_bytes() == (CHECKOUT / path).read_bytes())]
    assert not missing, f"tracked files the wheel lacks (or holds otherwise): {missing}"
    extra = [path for path, copy in carried.items() if not_read(path) and copy.exists()]
    assert not extra, f"files called never read, yet in the wheel: {extra}"
    top_level = {path.name for path in package.parent.iterdir()}
    assert not top_level & {"common", "hoyle", "patience_games", "solitaire_1.py", "assignments"}


@pytest.mark.parametrize("installed", ["this"], indirect=True)
def test_a_run_cannot_read_the_installed_golden_cases(installed, tmp_path):
    """A submission that prints the golden output it finds in the installed kit would pass:
    it does not, where each run's files are hidden (KIT_CI: everywhere)."""
    hidden = installed.run("check-isolation", "--assignment", "seeded", "--require",
                           "files-hidden", cwd=tmp_path)
    if hidden.returncode and not IN_CI:
        pytest.skip(f"no run here has its files hidden: {hidden.stderr.strip()}")
    golden = installed.package / "kit_copy" / "expected_outputs" / "solitaire_1" / "seed_27.out"
    (tmp_path / "spy").mkdir()
    (tmp_path / "spy" / "solitaire_1.py").write_text(
        f"input()\nprint(open({str(golden)!r}).read(), end='')\n", encoding="utf-8")
    spying = installed.run("spy/solitaire_1.py", cwd=tmp_path, program="python", stdin="27\n")
    assert spying.returncode == 0 and spying.stdout.encode() == golden.read_bytes()  # outside
    marked = installed.run("mark", "spy", "--assignment", "seeded", "--only", MARKED[0],
                           "--require", "files-hidden", cwd=tmp_path)
    verdict = re.search(rf"^  (\S.*?) +[\d.]+  {MARKED[0]}", marked.stdout, re.MULTILINE)
    assert marked.returncode == 1 and verdict.group(1) != "pass", marked.stdout
