"""The marker's diagnosis of a student with a known mistake, on the tiny assignment of
tests/mutants_fixture/ (its wrong program says "too many" at a count of exactly 3, so it
fails the case `three` alone): named where the reader sees `three`, and nowhere a reader
cannot see it. Its signatures are made by `exactmark signatures`, as an instructor makes
them."""

import shutil
from pathlib import Path

import pytest

from exactmark.diagnosis import diagnose
from exactmark.kit.assignment import load
from exactmark.marking import records
from exactmark.marking.report import WHAT_IT_SUGGESTS
from exactmark.verify import signatures
from exactmark.verify.marker import (marked_by_the_marker, sample_solution, submission_of,
                                     variants)

FIXTURE = Path(__file__).resolve().parent / "mutants_fixture"
MISTAKE = "refuses a count of exactly LIMIT"
NAMED = f"Your program fails 1 case (three) as does a program that {MISTAKE}."
GROUPS = '''
  [[programs.groups]]
  name = "greetings"
  marks = 4
  cases = ["five", "one", "two", "zero"]
  visibility = "visible"

  [[programs.groups]]
  name = "the limit"
  marks = 1
  cases = ["three"]
  visibility = "{visibility}"
'''


def tiny_with_three(tmp_path, visibility: str):
    """The tiny assignment with the case `three` in a group of its own, of `visibility`,
    signed."""
    shutil.copytree(FIXTURE, tmp_path / "tiny")
    path = tmp_path / "tiny" / "tiny.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:text.index("  [[programs.groups]]")]
                    + GROUPS.format(visibility=visibility), encoding="utf-8")
    assignment = load(str(path))
    assert signatures.main(["--assignment", str(path), "--jobs", "2"]) == 0
    return assignment


def marked(assignment, tmp_path, wrong=True) -> dict:
    """results.json of the wrong program (or the sample solution) as a student's."""
    [variant], _ = variants([assignment])
    solution = sample_solution(assignment.programs["greet"], tmp_path)
    folder = submission_of(variant, solution, tmp_path / "student") if wrong else None
    if folder is None:
        folder = tmp_path / "student"
        folder.mkdir()
        for name, text in solution.items():
            (folder / name).write_text(text, encoding="utf-8")
    return marked_by_the_marker(folder, assignment, ["greet/*"], 2, tmp_path)


def said_at(written: dict, level: str) -> tuple:
    found = diagnose.at(records.MarkingRecord.from_dict(written["extra_data"]).diagnoses,
                        "greet", level)
    return found.said if found else ()


def test_a_mistake_that_only_a_hidden_case_shows_is_named_to_the_instructor_alone(tmp_path):
    written = marked(tiny_with_three(tmp_path, "hidden"), tmp_path)
    assert said_at(written, "visible") == ()
    assert said_at(written, "after_published") == ()
    assert said_at(written, "hidden") == (NAMED,)
    assert WHAT_IT_SUGGESTS not in written["output"]
    assert not [test for test in written["tests"] if "suggest" in test["name"]]


def test_a_mistake_shown_after_the_due_date_is_named_in_a_test_of_that_visibility(tmp_path):
    written = marked(tiny_with_three(tmp_path, "after_due_date"), tmp_path)
    assert said_at(written, "visible") == ()
    assert WHAT_IT_SUGGESTS not in written["output"]
    [test] = [test for test in written["tests"] if "suggest" in test["name"]]
    assert (test["name"], test["visibility"], test["output"], "score" in test) == \
        ("greet: what your failures suggest", "after_due_date", NAMED, False)


def test_a_mistake_a_visible_case_shows_is_named_in_the_output_every_student_sees(tmp_path):
    written = marked(tiny_with_three(tmp_path, "visible"), tmp_path)
    assert said_at(written, "visible") == (NAMED,)
    assert f"{WHAT_IT_SUGGESTS}\ngreet:\n  {NAMED}\n" in written["output"]


def test_a_program_that_prints_something_else_entirely_is_not_named(tmp_path):
    """At a count of 3 it prints "way too many": every line of the case changed, as the
    wrong program's "too many" changes them, but not the same bytes. A run that got
    everything wrong tells which mistake only where it printed what the mistake prints."""
    assignment = tiny_with_three(tmp_path, "visible")
    folder = tmp_path / "student"
    folder.mkdir()
    for name, text in sample_solution(assignment.programs["greet"], tmp_path).items():
        (folder / name).write_text(text.replace(
            "    if count > LIMIT:",
            '    if count == LIMIT:\n        print("way too many")\n        return\n'
            "    if count > LIMIT:"), encoding="utf-8")
    written = marked_by_the_marker(folder, assignment, ["greet/*"], 2, tmp_path)
    assert written["score"] == 4 and said_at(written, "hidden") == ()


def test_the_sample_solution_gets_no_diagnosis(tmp_path):
    written = marked(tiny_with_three(tmp_path, "visible"), tmp_path, wrong=False)
    assert said_at(written, "hidden") == ()
    assert WHAT_IT_SUGGESTS not in written["output"]


@pytest.mark.parametrize("broken", ["{", '{"program": "greet"}', '{"wrong": 3}', "[]",
                                    '{"program": "greet", "cases": 1, "visibility": {}, "wrong": {}}'])
def test_signatures_that_cannot_be_read_name_nothing_and_mark_as_before(tmp_path, broken):
    assignment = tiny_with_three(tmp_path, "visible")
    (assignment.path.parent / "greet.signatures.json").write_text(broken, encoding="utf-8")
    written = marked(assignment, tmp_path)
    assert (written["score"], said_at(written, "hidden")) == (4, ())
