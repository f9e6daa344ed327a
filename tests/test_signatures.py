"""Each wrong program's signature (exactmark signatures): the marked cases it fails, how, and
a digest of what it printed, which a diagnosis compares with a student's failures (#40).
The kit's must stand for the checkout; the tiny assignment of tests/mutants_fixture/ (a
wrong program that says "too many" at a count of exactly 3) makes its own in a second."""

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from exactmark.kit.assignment import load
from exactmark.marking import records
from exactmark.verify import signatures
from exactmark.verify.__main__ import UNSIGNED, main as verify
from exactmark.verify.marker import (assignment_of_each_program, marked_by_the_marker,
                                     sample_solution, submission_of, variants)

FIXTURE = Path(__file__).resolve().parent / "mutants_fixture"
TOO_MANY = hashlib.sha256(b"too many\n").hexdigest()[:16]  # what it prints for `three`
KIT = assignment_of_each_program()
SIGNED = sorted({variant.program for variant in variants(list({a.path: a for a in KIT.values()}
                                                                .values()))[0]})


@pytest.mark.parametrize("program", SIGNED)
def test_the_kit_s_signatures_stand_for_the_checkout(program):
    """A wrong program, a case, the rule map or the reference changed since they were
    written: the message names the command that writes them again."""
    assignment = KIT[program]
    assert signatures.stale(assignment, assignment.programs[program]) == ""


@pytest.fixture
def tiny(tmp_path):
    """A copy of the tiny assignment, loaded."""
    shutil.copytree(FIXTURE, tmp_path / "tiny")
    return load(str(tmp_path / "tiny" / "tiny.toml"))


def signed(assignment) -> dict:
    """The tiny assignment's signatures, made with `exactmark signatures` and read back."""
    assert signatures.main(["--assignment", str(assignment.path), "--jobs", "2"]) == 0
    return signatures.read(assignment, assignment.programs["greet"])


def test_a_tiny_assignment_s_wrong_program_fails_one_case_so(tiny):
    written = signed(tiny)
    assert written == {
        "program": "greet", "inputs": signatures.inputs(tiny, tiny.programs["greet"]),
        "cases": ["five", "one", "three", "two", "zero"],
        "visibility": dict.fromkeys(["five", "one", "three", "two", "zero"], "visible"),
        "wrong": {"greet/too_many_at_the_limit": {
            "rule": "limit", "mistake": "refuses a count of exactly LIMIT",
            "failed": {"three": {"kind": "wrong output", "near_miss": "", "digest": TOO_MANY,
                                 "lines": [[0, 3]]}}}}}
    assert (tiny.path.parent / "greet.signatures.json").read_text(encoding="utf-8") == \
        signatures.dumped(written)
    assert json.loads(signatures.dumped(written)) == written


def test_a_changed_wrong_program_makes_its_signatures_stale(tiny):
    program = tiny.programs["greet"]
    signed(tiny)
    assert signatures.stale(tiny, program) == ""
    wrong = tiny.path.parent / "wrong" / "greet" / "too_many_at_the_limit.toml"
    wrong.write_text(wrong.read_text(encoding="utf-8").replace("refuses", "Refuses"),
                     encoding="utf-8")
    assert signatures.stale(tiny, program) == signatures.STALE.format(
        path=tiny.path.parent / "greet.signatures.json",
        command=f"make signatures ASSIGNMENT={tiny.path} PROGRAM=greet")
    (tiny.path.parent / "greet.signatures.json").unlink()
    assert signatures.stale(tiny, program).startswith(
        f"{tiny.path.parent / 'greet.signatures.json'}: no signatures of greet's wrong programs")


def test_results_json_names_what_a_failed_case_printed_and_nothing_for_a_pass(tiny, tmp_path):
    [wrong], _ = variants([tiny])
    folder = submission_of(wrong, sample_solution(tiny.programs["greet"], tmp_path), tmp_path / "s")
    written = marked_by_the_marker(folder, tiny, ["greet/three", "greet/two"], 2, tmp_path)
    cases = {case.name: case for case in
             records.MarkingRecord.from_dict(written["extra_data"]).cases}
    # "too many" for the three lines "0: hello cy" to "2: hello cy"
    assert (cases["three"].passed, cases["three"].digest, cases["three"].lines) == \
        (False, TOO_MANY, ((0, 3),))
    assert (cases["two"].passed, cases["two"].digest, cases["two"].lines) == (True, "", ())


def test_a_results_json_from_before_digests_reads_with_none():
    case = {"case": "greet/three", "program": "greet", "name": "three", "group": "greetings",
            "visibility": "visible", "marks": 1.0, "earned": 0.0, "passed": False,
            "kind": "wrong output", "near_miss": "", "near_miss_kind": "", "verdicts": []}
    assert (records.Case.from_dict(case).digest, records.Case.from_dict(case).lines) == ("", ())


def test_verify_proves_the_signatures_on_the_cases_it_marks(tiny, capsys):
    """The same failures: nothing said. A signature that says otherwise of a case (as if
    written before the wrong program changed): a problem naming the case and the command.
    (verify fails either way: this wrong program fails one case, not two.)"""
    signed(tiny)
    verify(["--assignment", str(tiny.path)])
    assert verify_said(capsys, "wrong greet/too_many_at_the_limit: unlike") == []
    path = tiny.path.parent / "greet.signatures.json"
    written = json.loads(path.read_text(encoding="utf-8"))
    failed = written["wrong"]["greet/too_many_at_the_limit"]["failed"]
    failed["two"] = failed.pop("three")
    path.write_text(json.dumps(written), encoding="utf-8")
    verify(["--assignment", str(tiny.path)])
    assert verify_said(capsys, "wrong greet/too_many_at_the_limit: unlike") == [
        "wrong greet/too_many_at_the_limit: unlike its signature on three (wrong output here, "
        "pass there), two (pass here, wrong output there): make signatures "
        f"ASSIGNMENT={tiny.path} PROGRAM=greet"]


def test_verify_without_signatures_says_once_it_does_not_check_them(tiny, capsys):
    verify(["--assignment", str(tiny.path)])
    assert verify_said(capsys, "verify: no signatures") == [UNSIGNED.format(programs="greet")]


def verify_said(capsys, start: str) -> list:
    return [line for line in capsys.readouterr().out.splitlines() if line.startswith(start)]

