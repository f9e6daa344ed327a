"""The C++ sample solution of Calculation (references/calculation_cpp/, its handout
docs/calculation_cpp.md): built once with g++ as the handout says, it passes every
golden case of hoyle_cli (docs/hoyle_cli.md), piped (stdout, exit status, stderr, and
the stats file after the run, as the clean-room oracle leaves it) and at a terminal;
so does each honest C++ variant (tests/honest/calculation_cpp/), piped; and every
C++ variant, honest or wrong, still applies to the sample as written.

A variant names the file each change is made in (`file = "main.cpp"`); the changes
are applied by exactmark/kit/variants.py, as `make verify` applies them."""

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from exactmark.kit.cases import ROOT, load_cases
from exactmark.kit.cases import STATS_FILE
from exactmark.running.run import read_head, workspace
from tests.bytes_check import expect_same
from tests.oracles import hoyle_oracle as oracle
from exactmark.kit.variants import read_variant

SAMPLE = ROOT / "references" / "calculation_cpp"
WRONG = ROOT / "tests" / "wrong" / "calculation_cpp"
HONEST = ROOT / "tests" / "honest" / "calculation_cpp"
BUILD = ["g++", "-std=c++17", "-O2", "-Wall", "-o", "program"]  # then *.cpp, as the handout says
CASES = load_cases("hoyle_cli")
SCREENS = [case for case in CASES if case.screen is not None]
HONEST_VARIANTS = sorted(HONEST.glob("*.toml"))
ALL_VARIANTS = sorted(WRONG.glob("*.toml")) + HONEST_VARIANTS
TIMEOUT = 20.0
MOST_OUTPUT = 4 << 20  # a runaway program is cut here, as the marker cuts it

pytestmark = pytest.mark.skipif(shutil.which("g++") is None,
                                reason="g++ is not installed: the C++ sample solution cannot be built")


# --- Building -------------------------------------------------------------------------

def changed_sources(variant: Path) -> dict:
    """The sample's files (name -> text) with the variant's changes made, as verify does."""
    sources = {path.name: path.read_text(encoding="utf-8") for path in sorted(SAMPLE.iterdir())
               if path.suffix in (".cpp", ".h")}
    return read_variant(variant).applied_to(sources)


def build(sources: dict, folder: Path) -> Path:
    """The program built from `sources` in `folder`, as a student's is: every .cpp at the top."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in sources.items():
        (folder / name).write_text(text, encoding="utf-8")
    compiled = sorted(name for name in sources if name.endswith(".cpp"))
    done = subprocess.run(BUILD + compiled, cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"g++ failed in {folder}:\n{done.stderr[-3000:]}"
    assert done.stderr == "", f"g++ warned in {folder}:\n{done.stderr[-3000:]}"
    return folder / "program"


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    sources = {path.name: path.read_text(encoding="utf-8") for path in SAMPLE.iterdir()}
    return build(sources, tmp_path_factory.mktemp("calculation_cpp"))


# --- Running a case -------------------------------------------------------------------

def run_piped(case, program: Path):
    """(stdout, stderr, exit status or None when stopped, stats file after or None)."""
    with workspace(case) as (folder, environment), \
            tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stderr:
        stdin.write(case.stdin)
        stdin.seek(0)
        process = subprocess.Popen([str(program)], stdin=stdin, stdout=subprocess.PIPE,
                                   stderr=stderr, cwd=folder, env=environment)
        try:
            # As `| head -c K` for a closed-stdout case; else everything, up to a cap.
            stdout = read_head(process.stdout.fileno(), case.head or MOST_OUTPUT)
            process.stdout.close()
            status = process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            status = None
        stderr.seek(0)
        stats = Path(folder) / STATS_FILE
        return stdout, stderr.read(), status, stats.read_bytes() if stats.exists() else None


def expect_case_passes(case, program: Path, who: str) -> None:
    stdout, stderr, status, stats = run_piped(case, program)
    assert status is not None, f"{case.id}: {who} did not end within {TIMEOUT:g} s"
    expect_same(stdout, case.stdout, f"{case.id} stdout of {who}, stdin piped")
    if case.status is not None:
        assert status == case.status, f"{case.id}: {who} exit status {status}, want {case.status}"
    if case.stderr is not None:
        expect_same(stderr, case.stderr, f"{case.id} stderr of {who}, stdin piped")
    if case.head is None:  # a closed stdout ends the program before any game is scored
        want = oracle.transcript(case.stdin, case.stats)[1]
        if want is None:
            assert stats is None, f"{case.id}: {who} wrote a stats file where no game ended"
        else:
            expect_same(stats if stats is not None else b"", want, f"{case.id} stats file after {who}")


# --- The tests ------------------------------------------------------------------------

def test_the_sample_is_plain_cpp17_without_vector():
    sources = sorted(path.name for path in SAMPLE.iterdir())
    assert 2 <= len(sources) <= 3 and all(name.endswith((".cpp", ".h")) for name in sources), sources
    for path in SAMPLE.iterdir():
        code = path.read_text(encoding="utf-8")
        assert not re.search(r"\bvector\b", code), f"{path.name}: the course's brief forbids std::vector"
        headers = set(re.findall(r'#include\s*<([^>]+)>', code))
        assert headers <= {"climits", "csignal", "cstdlib", "fstream", "iomanip", "iostream",
                           "sstream", "string"}, f"{path.name}: {headers}"


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_sample_passes_every_case_piped(sample, case):
    expect_case_passes(case, sample, "the C++ sample")


@pytest.mark.parametrize("case", SCREENS, ids=lambda case: case.name)
def test_the_sample_passes_every_case_at_a_terminal(sample, case):
    from exactmark.running.terminal import run_in_terminal  # pexpect is needed only here

    with workspace(case) as (folder, environment):
        screen = run_in_terminal([str(sample)], case.stdin, folder, environment, TIMEOUT)
    assert not screen.timed_out, f"{case.id}: no answer in time at a terminal"
    expect_same(screen.stdout, case.screen, f"{case.id} terminal screen of the C++ sample")
    assert screen.status == 0, f"{case.id}: exit status {screen.status} at a terminal"


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=lambda path: f"{path.parent.parent.name}/{path.stem}")
def test_every_cpp_variant_applies_to_the_sample_as_written(variant):
    sources = changed_sources(variant)
    original = {path.name: path.read_text(encoding="utf-8") for path in SAMPLE.iterdir()}
    assert sources != original, f"{variant.name}: the changes leave the sample as it was"


def test_there_are_wrong_cpp_variants_and_an_honest_one():
    assert len(list(WRONG.glob("*.toml"))) >= 8 and HONEST_VARIANTS


@pytest.mark.parametrize("variant", HONEST_VARIANTS, ids=lambda path: path.stem)
def test_each_honest_variant_passes_every_case_piped(variant, tmp_path):
    program = build(changed_sources(variant), tmp_path / variant.stem)
    failed = []
    for case in CASES:
        try:
            expect_case_passes(case, program, f"honest variant {variant.stem}")
        except (AssertionError, pytest.fail.Exception) as failure:
            failed.append(f"{case.name}:\n{failure}")
    assert not failed, f"{len(failed)} case(s) fail:\n" + "\n".join(failed)[:20000]
