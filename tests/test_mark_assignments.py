"""The marker marks what an assignment marks, the way it marks it: its cases and
marks, its visibility, its late rule, what it forgives, and a report a student
can act on."""

import json
import re
import shlex
import shutil
import subprocess
import sys
import textwrap

import pytest

from exactmark.kit.cases import ROOT
from exactmark.kit.assignment import load
from exactmark.running.limits import time_caps
from tests.test_mark import TIMEOUT, open_scratch, submission


def run_marker(folder, *options, assignment="seeded"):
    """(exit status, report, stderr, results.json) of one marking."""
    results = folder.parent / "results.json"
    scratch = open_scratch()
    try:
        done = subprocess.run([sys.executable, "-m", "exactmark.marking.mark", str(folder), "--assignment",
                               str(assignment), "--json", str(results), "--timeout", str(TIMEOUT),
                               "--jobs", "2", *options], cwd=ROOT, capture_output=True,
                              timeout=300, env={"TMPDIR": str(scratch), "PATH": "/usr/bin:/bin"})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    return (done.returncode, done.stdout.decode(), done.stderr.decode(),
            json.loads(results.read_text()) if results.exists() else {})


def trailing_space(tmp_path):
    return submission(tmp_path, "solitaire_1.py", 'ready to start!"', 'ready to start! "')


def test_a_perfect_standalone_solitaire_1_gets_its_share_and_fails_for_the_missing_program(tmp_path):
    folder = submission(tmp_path)
    (folder / "solitaire_2.py").unlink()
    status, report, _, written = run_marker(folder, "--only", "solitaire_1/seed_*")
    assert status == 1
    assert "solitaire_2.py is not in the submission: 0 of 6.50 " \
           "marks" in report
    seeded = load("seeded")
    earned = sum(m.marks for m in seeded.marked_cases["solitaire_1"] if m.case.name.startswith("seed_"))
    # the worked examples, "more games" (2.5 marks less the half its fresh games took), and
    # seed_without_newline's share of its group
    assert earned == pytest.approx(1.5 + 2.0 + 0.5 / 8)
    assert written["score"] == pytest.approx(earned, abs=1e-4) and f"Score: {earned:.2f}/13.00" in report
    seeds = sum(marked.case.name.startswith("seed_") for marked in seeded.marked_cases["solitaire_1"])
    total = sum(map(seeded.case_count, seeded.marked_cases))  # the fresh cases too
    assert f"Partial run: {seeds} of {total} cases marked (--only); the others count 0" in report


def test_failures_that_differ_the_same_way_are_drawn_once_with_how_to_reproduce_them(tmp_path):
    status, report, stderr, written = run_marker(trailing_space(tmp_path), "--only",
                                                 "solitaire_1/seed_*")
    seeds = sum(marked.case.name.startswith("seed_") for marked in load("seeded").marked_cases["solitaire_1"])
    assert f"\n{seeds} cases differ the same way: solitaire_1/seed_0, solitaire_1/seed_27, " \
           in report, report
    assert "\n  as in solitaire_1/seed_0: only spaces or tabs at line ends differ: line 2 " \
           "ends with `␠` where no space is expected" in report
    assert report.count("--- expected") == 1
    assert "  input: '0\\n'" in report
    cases = shlex.quote(str(ROOT / "expected_outputs" / "solitaire_1"))
    assert ("  reproduce, in the submission's folder: python3 solitaire_1.py < "
            f"{cases}/seed_0.in | diff - {cases}/seed_0.out") in report
    assert re.search(rf"^\[{seeds}/{seeds}\] wrong output +solitaire_1/seed_", stderr, re.M), stderr
    cases = re.findall(r"^  wrong output +[0-9.]+  (\S+):", report, re.M)
    assert cases[:3] == ["solitaire_1/seed_0", "solitaire_1/seed_27", "solitaire_1/seed_705"], \
        "the worked examples carry the most marks: they come first"


def test_results_json_carries_the_assignment_s_marks_and_visibility(tmp_path):
    _, _, _, written = run_marker(trailing_space(tmp_path), "--only", "solitaire_1/seed_0",
                                  "--only", "solitaire_1/seed_4", "--only", "solitaire_1/simulate_500_10")
    tests = {test["name"]: test for test in written["tests"]}
    assert tests["solitaire_1/seed_0"]["visibility"] == "visible"
    assert tests["solitaire_1/seed_4"]["visibility"] == "after_due_date"
    assert tests["solitaire_1/seed_0"]["max_score"] == 0.5
    assert tests["solitaire_1/simulate_500_10"]["status"] == "passed"
    assert tests["solitaire_1/seed_0"]["output"].startswith(
        "wrong output: only spaces or tabs at line ends differ")


def test_the_late_rule_is_applied_and_explained(tmp_path):
    """49.5 hours late is three days late: the maximum mark falls to 11.05."""
    status, report, _, written = run_marker(submission(tmp_path), "--only", "solitaire_*/seed_0*",
                                            "--submitted", "2027-03-11T10:30")
    assert "Late rule: submitted 49 hours 30 minutes after the deadline: 3 days late (more " \
           "than 48, at most 72 hours); the maximum mark falls by 3 × 5% to 11.05, so 1.00 " \
           "stands" in report, report
    assert written["score"] == 1


def test_a_submission_past_the_late_limit_gets_nothing(tmp_path):
    _, report, _, written = run_marker(submission(tmp_path), "--only", "solitaire_1/seed_0",
                                       "--submitted", "2027-03-20T09:00+11:00")
    assert "more than 5 days late (more than 120 hours), past what is accepted: 0" in report
    assert written["score"] == 0


def test_a_download_holding_one_folder_is_entered(tmp_path):
    inner = submission(tmp_path)
    outer = tmp_path / "download"
    outer.mkdir()
    inner.rename(outer / "z1234567")
    status, report, _, _ = run_marker(outer, "--only", "solitaire_1/seed_0")
    assert status == 0
    assert "The submission folder holds one folder, z1234567: marking what it holds" in report


def test_an_assignment_may_forgive_trailing_spaces_at_a_stated_cost(tmp_path):
    policy = tmp_path / "forgiving.toml"
    policy.write_text((ROOT / "assignments" / "seeded.toml").read_text()
                      + textwrap.dedent("""
                          [normalise]
                          trailing_spaces = 0.25
                          """))
    status, report, _, written = run_marker(trailing_space(tmp_path), "--only",
                                            "solitaire_1/seed_0", assignment=policy)
    tests = {test["name"]: test for test in written["tests"]}
    assert tests["solitaire_1/seed_0"]["score"] == 0.375
    assert "pass, forgiven" in report
    assert "equal once trailing spaces are ignored, at a cost of 25% of its marks" in report


def test_a_program_that_only_sleeps_ends_at_its_idle_allowance_not_the_wall_cap(tmp_path):
    """Its stdin was given at once: using next to no CPU for as long as its idle allowance,
    it is waiting, not working, and the marking does not wait for the wall-clock cap."""
    sleeper = submission(tmp_path, "solitaire_1.py", "def main() -> None:\n",
                         "def main() -> None:\n    import time\n    time.sleep(600)\n")
    status, report, _, written = run_marker(sleeper, "--only", "solitaire_1/seed_0")
    if not written["extra_data"]["cgroups"]:
        pytest.skip("no control group measures the CPU here (not root): the wall-clock cap ends it")
    output = {test["name"]: test for test in written["tests"]}["solitaire_1/seed_0"]["output"]
    idle = time_caps(TIMEOUT)[1]
    assert output.startswith(f"timeout: next to no CPU time used for {idle:g} s"), output


def variant_submission(tmp_path, program: str, mistake: str):
    """The sample solutions, one program made wrong by a variant of tests/wrong/."""
    from exactmark.kit.bundle import write_all
    from exactmark.kit.variants import read_variant

    folder = tmp_path / "variant"
    write_all(folder)
    variant = read_variant(ROOT / "tests" / "wrong" / program / f"{mistake}.toml")
    path = folder / f"{program}.py"
    changed = variant.applied_to({path.name: path.read_text(encoding="utf-8")})
    path.write_text(changed[path.name], encoding="utf-8")
    return folder


def run_reproduce(submission, command: str) -> str:
    """The reproduce command pasted in the submission's folder; what the student sees."""
    done = subprocess.run(["sh", "-c", command], cwd=submission, capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin"})
    return done.stdout + done.stderr


def test_a_wrong_exit_status_says_how_stderr_ends_and_reproduces_the_status(tmp_path):
    folder = variant_submission(tmp_path, "solitaire_1", "end_of_input_exits_0")
    _, report, _, written = run_marker(folder, "--only", "solitaire_1/no_input")
    cases = shlex.quote(str(ROOT / "expected_outputs" / "solitaire_1"))
    command = (f"python3 solitaire_1.py < {cases}/no_input.in > /dev/null; "
               'echo "exit status $?, want 1"')
    assert f"  reproduce, in the submission's folder: {command}" in report, report
    assert "exit status 0, want 1" in run_reproduce(folder, command)
    [case] = written["extra_data"]["cases"]
    assert case["verdicts"][0]["reproduce"] == (
        "python3 solitaire_1.py < expected_outputs/solitaire_1/no_input.in > /dev/null; "
        'echo "exit status $?, want 1"')


def test_a_wrong_stderr_is_diffed_and_its_command_diffs_stderr(tmp_path):
    """End of input not caught: the status is 1 as it should be, and stderr holds the
    traceback that the report and the command both show."""
    folder = variant_submission(tmp_path, "solitaire_1", "end_of_input_not_caught")
    _, report, _, written = run_marker(folder, "--only", "solitaire_1/no_input")
    [case] = written["extra_data"]["cases"]
    verdict = case["verdicts"][0]
    assert verdict["kind"] == "wrong stderr"
    assert "+EOFError" in verdict["diff"], verdict["diff"]
    cases = shlex.quote(str(ROOT / "expected_outputs" / "solitaire_1"))
    command = f"python3 solitaire_1.py < {cases}/no_input.in 2>&1 >/dev/null | diff - " \
              f"{cases}/no_input.err"
    assert command in report
    assert "EOFError" in run_reproduce(folder, command)


def test_an_assignment_may_forgive_a_missing_variation_selector_at_a_stated_cost(tmp_path):
    """The handout asks for U+FE0F after ☹; an instructor may forgive its absence for 10%."""
    folder = variant_submission(tmp_path, "solitaire_2", "frown_without_variation_selector")
    exact = run_marker(folder, "--only", "solitaire_2/seed_0_full")[3]
    policy = tmp_path / "forgiving.toml"
    policy.write_text((ROOT / "assignments" / "seeded.toml").read_text()
                      + "\n[normalise]\nvariation_selectors = 0.1\n")
    _, report, _, forgiving = run_marker(folder, "--only", "solitaire_2/seed_0_full",
                                         assignment=policy)
    assert "\u2639\ufe0f".encode() in (ROOT / "expected_outputs" / "solitaire_2" /
                                       "seed_0_full.out").read_bytes()
    [strict], [forgiven] = exact["tests"], forgiving["tests"]
    assert (strict["status"], strict["score"]) == ("failed", 0)
    assert forgiven["score"] == pytest.approx(0.9 * forgiven["max_score"])
    assert "equal once variation selectors (U+FE0F) are ignored, at a cost of 10% of its " \
           "marks" in report


def test_a_submission_without_one_of_its_programs_is_a_whole_marking_not_a_partial_one(tmp_path):
    """Every case chosen: those of the missing program count 0, its fresh cases are never
    drawn, and the report says no `--only` was given."""
    folder = submission(tmp_path)
    (folder / "solitaire_1.py").unlink()
    _, report, _, written = run_marker(folder)
    assert "solitaire_1.py is not in the submission" in report
    assert "Partial run" not in report
    assert written["score"] == pytest.approx(6.5, abs=1e-4)
