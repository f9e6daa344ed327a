"""What the marker's processes tell each other is typed records (exactmark/marking/records.py,
exactmark/base/messages.py):
results.json's extra_data reads back as the record it was written from, and a marker
started with a messages pipe says its progress, warnings and refusal there."""

import json
import os
import subprocess
import sys

import pytest

from exactmark.kit.cases import ROOT
from exactmark.base import messages
from exactmark.marking import records
from exactmark.marking.verdicts import Kind
from tests.test_mark import TIMEOUT, submission


@pytest.mark.parametrize("record", [messages.Progress(3, 33, "hoyle_cli/short_game", "pass"),
                                    messages.Notice("warning: ⟨U+001B⟩ shown"),
                                    messages.Notice("the disk is full", messages.DISK_FULL),
                                    messages.Refusal("no such folder: /tmp/a\nb")])
def test_a_message_reads_back_as_the_record_it_was(record):
    line = messages.message_line(record)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert messages.read_message(line) == record


@pytest.mark.parametrize("line", [b"[1/33] pass  solitaire_1/seed_0\n", b"{}\n", b"[]\n",
                                  b'{"message": "Progress", "done": 1}\n',
                                  b'{"message": "Exec", "argv": ["sh"]}\n', b"\xff\n"])
def test_a_line_that_is_not_a_message_is_none(line):
    assert messages.read_message(line) is None


def marked_with_messages(folder, *options):
    """(exit status, results.json, the messages) of a marking whose messages come on a pipe."""
    results = folder.parent / "results.json"
    reading, writing = os.pipe()
    process = subprocess.Popen([sys.executable, "-m", "exactmark.marking.mark", str(folder),
                                "--assignment", "seeded", "--json", str(results),
                                "--timeout", str(TIMEOUT), *options], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, messages.MESSAGES_FD: str(writing)},
                               pass_fds=(writing,))
    os.close(writing)
    with os.fdopen(reading, "rb") as pipe:
        said = [messages.read_message(line) for line in pipe]
    status = process.wait(timeout=300)
    return status, json.loads(results.read_text()) if results.exists() else {}, said


def test_a_marker_says_each_case_as_a_progress_record_and_its_data_reads_back(tmp_path):
    folder = submission(tmp_path)
    status, written, said = marked_with_messages(
        folder, "--only", "solitaire_1/seed_0", "--only", "solitaire_1/seed_27")
    assert status == 0 and None not in said, said
    progress = [message for message in said if isinstance(message, messages.Progress)]
    assert sorted((p.done, p.total, p.kind) for p in progress) == [(1, 2, "pass"), (2, 2, "pass")]
    assert {p.case for p in progress} == {"solitaire_1/seed_0", "solitaire_1/seed_27"}
    extra = written["extra_data"]
    marking = records.MarkingRecord.from_dict(extra)
    assert json.loads(json.dumps(marking.to_dict())) == extra
    case = next(case for case in marking.cases if case.case == "solitaire_1/seed_0")
    assert case.kind is Kind.PASS and case.verdicts[0].kind is Kind.PASS and case.passed
    assert marking.programs["solitaire_1"].submitted and marking.python


def test_a_refusal_is_a_record_and_results_json_says_it(tmp_path):
    status, written, said = marked_with_messages(tmp_path / "no such folder")
    refusals = [message for message in said if isinstance(message, messages.Refusal)]
    assert status == 2 and len(refusals) == 1 and "no such folder" in refusals[0].reason
    assert (written["score"], written["output"], written["tests"]) == (0, refusals[0].reason, [])
    assert records.MarkingRecord.from_dict(written["extra_data"]).refused == refusals[0].reason


def test_the_header_s_notes_and_a_near_miss_s_kind_travel_as_fields(tmp_path):
    """The header's lines on the submission (the folder entered, what the copy left out) and
    each near miss's kind are fields of the record, not sentences to match back."""
    inner = submission(tmp_path, "solitaire_1.py", "ready to start", "READY to start")
    folder = tmp_path / "download"
    folder.mkdir()
    inner.rename(folder / "z1234567")
    (folder / "z1234567" / "elsewhere").symlink_to("/etc/passwd")
    status, written, _ = marked_with_messages(folder, "--only", "solitaire_1/seed_0")
    marking = records.MarkingRecord.from_dict(written["extra_data"])
    assert status == 1 and marking.notes == (
        "The submission folder holds one folder, z1234567: marking what it holds",
        "Left out of the copy: 1 link")
    assert set(marking.notes) <= set(written["output"].splitlines())
    [case] = marking.cases
    assert (case.near_miss_kind, case.near_miss.split(":")[0]) == ("letter case",
                                                                   "only letter case differs")
