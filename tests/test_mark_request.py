"""The marker's request (exactmark/marking/request.py), the one builder of its command line:
each of its fields is an option the marker reads back as it was given, and a request in
the marker's environment (the class marker's way) brings any path whole."""

import json
import os
import subprocess
from dataclasses import fields
from pathlib import Path

import pytest

from exactmark.base.exits import Exit
from exactmark.kit.cases import ROOT
from exactmark.marking import mark
from exactmark.marking.request import MAKE_VARIABLES, REQUEST, MarkRequest, taken
from tests.test_mark import perfect_seeded

EVERY_FIELD = MarkRequest("seeded", "--tty", json="results.json", jobs=3, markers=2,
                          isolation="fallback", sandbox_per="case", require=("cgroup", "own-user"),
                          only=("solitaire_1/*", "solitaire_2/seed_0"), tty=True, timeout=3.0,
                          submitted="2027-03-11T14:30", due="2027-03-12T09:00",
                          extension="3 days", late_days_left=2, student_budget=12.5,
                          waiting_budget=7.0,
                          check_isolation=True, named="submissions/ann.zip")


def read_back(options: list) -> dict:
    """The marker's parsed options, as a request's fields say them."""
    parsed = vars(mark.parser().parse_args(options))
    return {name: (str(value) if isinstance(value, Path) else
                   tuple(value) if isinstance(value, list) else value)
            for name, value in parsed.items()}


def test_every_field_is_an_option_the_marker_reads_back_as_it_was():
    """A folder named like an option stays the folder: it comes after `--`."""
    read = read_back(EVERY_FIELD.options())
    assert {field.name: read[field.name] for field in fields(MarkRequest)} == {
        field.name: getattr(EVERY_FIELD, field.name) for field in fields(MarkRequest)}


def test_what_a_request_leaves_out_the_marker_takes_as_its_default():
    assert read_back(MarkRequest("seeded", "folder").options()) == read_back(
        ["--assignment", "seeded", "folder"])


def test_a_request_in_the_environment_reads_back_as_it_was_and_leaves_no_trace():
    command, environment = EVERY_FIELD.hidden({"PATH": "/bin", "MARK_ARGS": "--tty",
                                               "MARK_SUBMISSION": "elsewhere"})
    assert command[1:] == ["-m", "exactmark.marking.mark"]
    assert not any(name.startswith(MAKE_VARIABLES) for name in environment if name != REQUEST)
    assert taken(environment) == EVERY_FIELD and REQUEST not in environment
    assert taken(environment) is None


@pytest.mark.parametrize("text", ["not json", "[]", json.dumps({"assignment": "a", "who": 1})])
def test_a_request_that_cannot_be_read_is_refused(text):
    with pytest.raises(ValueError):
        taken({REQUEST: text})


def test_a_path_of_any_bytes_arrives_whole_by_the_environment(tmp_path):
    """Quotes, a newline, a byte that is not UTF-8, a name like an option: the submission
    is marked and results.json written where asked, and neither path stands on the
    marker's command line."""
    folder = perfect_seeded(tmp_path / os.fsdecode(b"-it's \"a\"\nnew line \xff"))
    results = tmp_path / os.fsdecode(b"r\xfe $(x) 's'.json")
    command, environment = MarkRequest("seeded", str(folder), json=str(results),
                                       only=("solitaire_1/seed_0",)).hidden(os.environ)
    done = subprocess.run(command, env=environment, cwd=ROOT, capture_output=True, timeout=120)
    report = done.stdout.decode()
    assert done.returncode == Exit.PASSED, report + done.stderr.decode()
    assert "Score: 0.50/13.00" in report and "⟨U+000A⟩new line ⟨\\xff⟩" in report
    assert json.loads(results.read_text(encoding="utf-8"))["score"] == 0.5
    assert not any(os.fsencode(str(tmp_path)) in part for part in map(os.fsencode, command))
