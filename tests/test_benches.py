"""The marking benchmarks still run, at their smallest, and still measure what they
say: a benchmark that broke when the marker changed went unnoticed once. No time is
asserted here (the machine is shared); `make bench-mark` and `make bench-class`
give the figures."""

import re
import subprocess
import sys

import pytest

from exactmark.kit.cases import ROOT


def bench(script: str, *options: str) -> str:
    done = subprocess.run([sys.executable, f"bench/{script}", *options], cwd=ROOT,
                          capture_output=True, timeout=600)
    said = done.stdout.decode("utf-8", "replace")
    assert done.returncode == 0, f"bench/{script} {' '.join(options)}:\n{said}\n" \
                                 f"{done.stderr.decode('utf-8', 'replace')}"
    return said


def test_bench_mark_times_every_setup_and_each_passes_the_cases():
    said = bench("mark.py", "--cases", "1", "--repeats", "1")
    rows = [line.split()[0] for line in said.splitlines() if line.split()[:1] in (
        ["baseline"], ["fallback"], ["namespaces"])]
    assert rows[0] == "baseline" and "fallback" in rows, said
    assert "note:" not in said, said  # a setup failed a golden case of the kit itself


def test_bench_class_marks_a_class_the_way_the_bare_runs_see_it():
    """The whole assignment, one right student: a wrong student's agreement with its bare
    runs is the quick bench's to show (below), on fewer cases."""
    said = bench("mark_class.py", "--students", "1", "--repeats", "1", "--no-bad")
    assert "student_01  right" in said and "overhead, 1 - bare / class run:" in said, said
    assert "bad/" not in said, said
    assert "note:" not in said, said  # the marker and the bare runs disagree on a student


def test_bench_class_quick_sets_each_bad_student_against_an_honest_one():
    said = bench("mark_class.py", "--quick")
    assert "student_01  right" in said and "overhead, 1 - bare / class run:" in said, said
    for kind in ("sleeper", "loop", "crash", "flood", "missing"):
        assert f"bad/{kind}" in said, said  # in the table of what each student got
        assert re.search(rf"^  {kind} .* s wall, .* an honest student's wall", said,
                         re.MULTILINE), said
    assert "The sleeper held one of the" in said, said
    assert "note:" not in said, said  # a bad student passed, or the marker ran otherwise


def test_bench_class_engines_quick_sets_one_worker_beside_two():
    pytest.importorskip("distributed", reason="the Dask engines need requirements-dask.txt")
    said = bench("class_engines.py", "--engine", "dask-local", "--quick")
    assert re.search(r"^students a minute \(median\): 1 worker [0-9.]+ \| 2 workers [0-9.]+ \| "
                     r"ratio [0-9.]+ ", said, re.MULTILINE), said
    rows = [line.split()[:2] for line in said.splitlines() if re.match(r" +[12] +[12] +1 ", line)]
    assert rows == [["1", "1"], ["2", "2"]], said  # each worker one core
