"""Gradescope's "Export Submissions" read as it comes. Each export below is built by
tests/platforms/gradescope_download.py from Gradescope's layout (its docstring cites the
sources), then read; every hand-in is checked cell by cell: key, name, members, files, time
with its offset, notes; then what is refused and why."""

import os
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

pytest.importorskip("yaml", reason="reading a Gradescope export needs PyYAML: "
                    "pip install -r requirements-class.txt")

from exactmark.base.tree import Refused  # noqa: E402
from exactmark.platforms import gradescope_export as gradescope  # noqa: E402
from exactmark.platforms.download import Context  # noqa: E402
from tests.platforms.gradescope_download import (METADATA, Submission, Submitter,  # noqa: E402
                                                 export_folder_name, write_export, zip_export,
                                                 zip_name)

ZONE = ZoneInfo("America/Toronto")
CONTEXT = Context(expected=frozenset({"solitaire_1.py"}), zone=ZONE, assignment="solitaire_1")
EST = timezone(timedelta(hours=-5))
IST = timezone(timedelta(hours=5, minutes=30))
PROGRAM = b"print('hello')\n"
FILES = {"solitaire_1.py": PROGRAM}

ANN = Submitter("Ann Lee", "1001", "ann@example.edu")
BO = Submitter("Bo Chen", "1002", "bo@example.edu")
CY = Submitter("Cy D'Arcy", "1003", "cy@example.edu")


def rows(download):
    """Each hand-in as the cells the class marker uses, files by where they lie in the export."""
    return [(handin.key, handin.name,
             [(person.id, person.name, person.email) for person in handin.members],
             {name: path.relative_to(path.parents[len(Path(name).parts)]).as_posix()
              for name, path in handin.files.items()},
             handin.submitted.isoformat() if handin.submitted else None,
             handin.notes)
            for handin in download.handins]


def refusals(download):
    return [(refusal.name, refusal.reason) for refusal in download.refused]


def class_of_three():
    return [
        Submission(1, [ANN], datetime(2026, 3, 1, 23, 59, 30, 123456, EST),
                   {"solitaire_1.py": PROGRAM}),
        Submission(2, [BO, CY, Submitter("Dee Park", "1004", "dee@example.edu")],
                   datetime(2026, 3, 2, 4, 0, 1, tzinfo=timezone.utc),
                   {"solitaire_1.py": PROGRAM, "src/cards.py": b"# cards\n"}),
        Submission(3, [Submitter("Eve Ng", "1005", "eve@example.edu")],
                   datetime(2026, 3, 2, 10, 30, tzinfo=IST), {"solitaire_1.py": PROGRAM},
                   history=[datetime(2026, 3, 1, 9, 0, tzinfo=IST)]),
    ]


EXPECTED_THREE = [
    ("1", "Ann Lee", [("1001", "Ann Lee", "ann@example.edu")],
     {"solitaire_1.py": "submission_1/solitaire_1.py"},
     "2026-03-01T23:59:30.123456-05:00", []),
    ("2", "Bo Chen, Cy D'Arcy, Dee Park",
     [("1002", "Bo Chen", "bo@example.edu"), ("1003", "Cy D'Arcy", "cy@example.edu"),
      ("1004", "Dee Park", "dee@example.edu")],
     {"solitaire_1.py": "submission_2/solitaire_1.py", "src/cards.py": "submission_2/src/cards.py"},
     "2026-03-02T04:00:01+00:00", []),
    ("3", "Eve Ng", [("1005", "Eve Ng", "eve@example.edu")],
     {"solitaire_1.py": "submission_3/solitaire_1.py"},
     "2026-03-02T10:30:00+05:30", []),
]


def test_the_export_folder_reads_one_handin_per_submission_with_its_team_and_time(tmp_path):
    export = write_export(tmp_path, class_of_three())
    download = gradescope.read(export, CONTEXT)
    assert download.platform == "gradescope"
    assert rows(download) == EXPECTED_THREE
    assert refusals(download) == []
    assert [person.id for person in download.roster] == ["1001", "1002", "1003", "1004", "1005"]
    assert download.handins[1].files["src/cards.py"].read_bytes() == b"# cards\n"


def test_the_zip_unpacked_into_a_folder_reads_the_same_as_its_own_top_folder(tmp_path):
    export = write_export(tmp_path / "built", class_of_three())
    archive = zip_export(export, tmp_path / zip_name())
    with zipfile.ZipFile(archive) as opened:
        assert f"{export_folder_name()}/{METADATA}" in opened.namelist()
        assert f"{export_folder_name()}/submission_2/src/cards.py" in opened.namelist()
        opened.extractall(tmp_path / "unpacked")
    unpacked = tmp_path / "unpacked"
    assert gradescope.looks_like(unpacked)
    assert gradescope.looks_like(unpacked / export_folder_name())
    assert gradescope.export_folder(unpacked) == unpacked / export_folder_name()
    assert rows(gradescope.read(unpacked, CONTEXT)) == EXPECTED_THREE
    assert rows(gradescope.read(unpacked / export_folder_name(), CONTEXT)) == EXPECTED_THREE


def test_other_downloads_do_not_look_like_gradescope(tmp_path):
    (tmp_path / "canvas").mkdir()
    (tmp_path / "canvas" / "leeann_1001_2002_solitaire_1.py").write_bytes(PROGRAM)
    deep = tmp_path / "deep" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / METADATA).write_text("{}\n")
    assert not gradescope.looks_like(tmp_path / "canvas")
    assert not gradescope.looks_like(tmp_path / "deep")
    with pytest.raises(Refused) as refused:
        gradescope.read(tmp_path / "canvas", CONTEXT)
    assert str(refused.value) == gradescope.NO_METADATA.format(folder=tmp_path / "canvas")


def test_times_keep_their_offset_and_a_time_without_one_is_read_in_the_assignment_zone(tmp_path):
    submissions = [
        Submission(1, [ANN], datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)),
        Submission(2, [BO], "'2026-03-01 23:59:59.5 -05:00'"),
        Submission(3, [CY], "2026-03-01 23:59:59"),
        Submission(4, [Submitter("Dee Park", "1004")], "soon"),
        Submission(5, [Submitter("Eve Ng", "1005")], "2026-03-01 23:59:59 +09:45"),
    ]
    download = gradescope.read(write_export(tmp_path, submissions), CONTEXT)
    assert [(handin.key, handin.submitted and handin.submitted.isoformat(), handin.notes)
            for handin in download.handins] == [
        ("1", "2026-03-01T12:00:00+00:00", []),
        ("2", "2026-03-01T23:59:59.500000-05:00", []),
        ("3", "2026-03-01T23:59:59-05:00",
         [gradescope.NO_OFFSET.format(value="2026-03-01 23:59:59", zone=ZONE)]),
        ("4", None, [gradescope.NOT_A_TIME.format(value="soon")]),
        ("5", "2026-03-01T23:59:59+09:45", []),
    ]
    assert all(handin.submitted.utcoffset() is not None
               for handin in download.handins if handin.submitted)


def test_a_submission_with_no_time_at_all_says_so(tmp_path):
    metadata = "submission_7:\n  :submitters:\n  - :name: Ann Lee\n    :sid: '1001'\n"
    export = write_export(tmp_path, [], metadata=metadata)
    (export / "submission_7").mkdir()
    (export / "submission_7" / "solitaire_1.py").write_bytes(PROGRAM)
    download = gradescope.read(export, CONTEXT)
    assert rows(download) == [("7", "Ann Lee", [("1001", "Ann Lee", "")],
                               {"solitaire_1.py": "submission_7/solitaire_1.py"}, None,
                               [gradescope.NO_TIME])]


def test_names_as_gradescope_writes_them_are_kept_byte_for_byte(tmp_path):
    composed, decomposed = "Zo\u00eb Fran\u00e7ois", "Zoe\u0308 Franc\u0327ois"
    people = [Submitter(composed, "2001", "z1@example.edu"),
              Submitter(decomposed, "2002", "z2@example.edu"),
              Submitter("Ann Lee", "2003", "ann2@example.edu"),  # same name as 1001, not her
              Submitter("ann lee", "2004", "ann3@example.edu"),  # differs only in case
              Submitter("Mary-Kate O'Brien  Smith", "2005", "mk@example.edu"),
              Submitter("No Sid", None, "nosid@example.edu"),
              Submitter("Empty Sid", "", "emptysid@example.edu")]
    submissions = [Submission(1, [ANN], datetime(2026, 3, 1, tzinfo=EST))]
    submissions += [Submission(10 + number, [person], datetime(2026, 3, 1, tzinfo=EST))
                    for number, person in enumerate(people)]
    download = gradescope.read(write_export(tmp_path, submissions), CONTEXT)
    assert [(handin.key, handin.name, handin.members[0].id) for handin in download.handins] == [
        ("1", "Ann Lee", "1001"),
        ("10", composed, "2001"),
        ("11", decomposed, "2002"),
        ("12", "Ann Lee", "2003"),
        ("13", "ann lee", "2004"),
        ("14", "Mary-Kate O'Brien  Smith", "2005"),
        ("15", "No Sid", "nosid@example.edu"),
        ("16", "Empty Sid", "emptysid@example.edu"),
    ]
    assert download.handins[2].name.encode() == b"Zoe\xcc\x88 Franc\xcc\xa7ois"
    assert refusals(download) == []


def test_an_unquoted_sid_is_its_digits(tmp_path):
    metadata = ("submission_8:\n  :submitters:\n  - :name: Ann Lee\n    :sid: 1001\n"
                "  :created_at: 2026-03-01 12:00:00.000000000 Z\n")
    export = write_export(tmp_path, [], metadata=metadata)
    (export / "submission_8").mkdir()
    assert [person.id for person in gradescope.read(export, CONTEXT).roster] == ["1001"]


def test_what_belongs_to_no_student_is_refused_with_why(tmp_path):
    submissions = class_of_three()
    export = write_export(tmp_path / "unpacked", submissions)
    (export / "submission_99").mkdir()  # a folder the metadata does not name
    (export / "submission_99" / "solitaire_1.py").write_bytes(PROGRAM)
    (export / "notes.txt").write_text("stray\n")
    (export / ".DS_Store").write_bytes(b"\0")
    (tmp_path / "unpacked" / "readme.txt").write_text("beside\n")
    download = gradescope.read(tmp_path / "unpacked", CONTEXT)
    beside = gradescope.BESIDE_EXPORT.format(export=export_folder_name())
    assert refusals(download) == [
        ("readme.txt", beside),
        (".DS_Store", gradescope.STRAY_FILE),
        ("notes.txt", gradescope.STRAY_FILE),
        ("submission_99", gradescope.UNNAMED_FOLDER),
    ]
    assert rows(download) == EXPECTED_THREE


def test_an_entry_with_no_folder_is_a_student_with_no_files_and_keeps_their_row(tmp_path):
    export = write_export(tmp_path, class_of_three())
    for path in sorted((export / "submission_1").rglob("*"), reverse=True):
        path.unlink()
    (export / "submission_1").rmdir()
    download = gradescope.read(export, CONTEXT)
    assert rows(download)[0] == ("1", "Ann Lee", [("1001", "Ann Lee", "ann@example.edu")], {},
                                 "2026-03-01T23:59:30.123456-05:00", [gradescope.NO_FOLDER])
    assert refusals(download) == []


def test_entries_that_name_no_one_or_no_folder_are_refused(tmp_path):
    metadata = "\n".join([
        "---",
        "../evil:",
        "  :submitters:",
        "  - :name: Ann Lee",
        "    :sid: '1001'",
        "submission_2: just text",
        "submission_3:",
        "  :submitters: []",
        "submission_4:",
        "  :submitters:",
        "  - :name: Bo Chen",
        "    :sid: '1002'",
        "  - :name: Nobody",
        "submission_5:",
        "  :created_at: 2026-03-01 12:00:00.000000000 Z",
        ""])
    export = write_export(tmp_path, [], metadata=metadata)
    for number in (2, 3, 4, 5):
        (export / f"submission_{number}").mkdir()
    download = gradescope.read(export, CONTEXT)
    assert download.handins == [] and download.roster == []
    assert refusals(download) == [
        ("../evil", gradescope.NOT_A_FOLDER_NAME),
        ("submission_2", gradescope.NOT_AN_ENTRY),
        ("submission_3", gradescope.NO_SUBMITTERS),
        ("submission_4", gradescope.NO_ONE.format(number=2)),
        ("submission_5", gradescope.NO_SUBMITTERS),
    ]


def test_a_student_in_two_submissions_is_marked_in_the_later(tmp_path):
    submissions = [
        Submission(1, [ANN], datetime(2026, 3, 1, 10, 0, tzinfo=EST), FILES),
        Submission(2, [ANN, BO], datetime(2026, 3, 1, 11, 0, tzinfo=EST), FILES),
        Submission(3, [CY, Submitter("Dee Park", "1004")], datetime(2026, 3, 1, 9, 0, tzinfo=EST),
                   FILES),
        Submission(4, [CY], datetime(2026, 3, 1, 12, 0, tzinfo=EST), FILES),
    ]
    download = gradescope.read(write_export(tmp_path, submissions), CONTEXT)
    assert [(handin.key, handin.name, [person.id for person in handin.members], handin.notes)
            for handin in download.handins] == [
        ("2", "Ann Lee, Bo Chen", ["1001", "1002"], []),
        ("3", "Dee Park", ["1004"],
         [gradescope.SUBMITTED_LATER.format(person="Cy D'Arcy", later="4")]),
        ("4", "Cy D'Arcy", ["1003"], []),
    ]
    assert refusals(download) == [("1", gradescope.ALL_SUBMITTED_LATER.format(later="2"))]
    assert [person.id for person in download.roster] == ["1001", "1002", "1004", "1003"]


def test_links_in_a_submission_are_left_out_and_said(tmp_path):
    export = write_export(tmp_path, class_of_three())
    (export / "submission_1" / "passwd").symlink_to("/etc/passwd")
    (export / "submission_1" / "up").symlink_to("..")
    handin = gradescope.read(export, CONTEXT).handins[0]
    assert sorted(handin.files) == ["solitaire_1.py"]
    assert handin.notes == [gradescope.LEFT_OUT.format(name="up"),
                            gradescope.LEFT_OUT.format(name="passwd")]


def test_a_linked_submission_folder_is_refused(tmp_path):
    export = write_export(tmp_path, class_of_three())
    outside = tmp_path / "outside"
    outside.mkdir()
    (export / "submission_3" / "solitaire_1.py").unlink()
    (export / "submission_3").rmdir()
    (export / "submission_3").symlink_to(outside)
    download = gradescope.read(export, CONTEXT)
    assert [handin.key for handin in download.handins] == ["1", "2"]
    assert refusals(download) == [("submission_3", gradescope.LINKED_ENTRY)]


def hostile(tmp_path, data: bytes):
    export = tmp_path / export_folder_name()
    export.mkdir()
    (export / METADATA).write_bytes(data)
    with pytest.raises(Refused) as refused:
        gradescope.read(export, CONTEXT)
    return str(refused.value).replace(str(export / METADATA), METADATA)


@pytest.mark.parametrize("data, said", [
    (b"submission_1:\n  :submitters: [\n", gradescope.METADATA_MALFORMED.format(
        file=METADATA, line=3, column=1,
        problem="expected the node content, but found '<stream end>'")),
    (b"submission_1: !!python/object/apply:os.system ['true']\n",
     gradescope.METADATA_MALFORMED.format(
        file=METADATA, line=1, column=15,
        problem="could not determine a constructor for the tag "
                "'tag:yaml.org,2002:python/object/apply:os.system'")),
    (b"submission_1: !ruby/object:Submission {}\n", gradescope.METADATA_MALFORMED.format(
        file=METADATA, line=1, column=15,
        problem="could not determine a constructor for the tag '!ruby/object:Submission'")),
    (b"a: \xc3(\n", gradescope.METADATA_UNDECODABLE.format(
        file=METADATA, position=3, problem="invalid continuation byte")),
    (b"- submission_1\n", gradescope.METADATA_NOT_MAPPING.format(file=METADATA)),
    (b"", gradescope.METADATA_NOT_MAPPING.format(file=METADATA)),
    (b"[" * 20000, gradescope.METADATA_TOO_DEEP.format(file=METADATA)),
], ids=["unclosed", "python-tag", "ruby-tag", "not-utf8", "a-list", "empty", "too-deep"])
def test_a_metadata_file_it_cannot_read_is_refused_in_one_line_saying_where(tmp_path, data, said):
    message = hostile(tmp_path, data)
    assert message == said
    assert "\n" not in message


def test_a_metadata_file_past_the_limit_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(gradescope, "METADATA_MOST", 100)
    assert hostile(tmp_path, b"#" * 101) == gradescope.METADATA_TOO_LARGE.format(
        file=METADATA, size=101, most=100)


def test_a_linked_metadata_file_is_refused(tmp_path):
    real = tmp_path / "elsewhere.yml"
    real.write_text("{}\n")
    export = tmp_path / export_folder_name()
    export.mkdir()
    (export / METADATA).symlink_to(real)
    with pytest.raises(Refused) as refused:
        gradescope.read(export, CONTEXT)
    assert str(refused.value) == gradescope.METADATA_LINK.format(file=export / METADATA)


def test_two_exports_in_one_folder_are_refused(tmp_path):
    write_export(tmp_path, class_of_three(), assignment_id=1)
    write_export(tmp_path, class_of_three(), assignment_id=2)
    assert gradescope.looks_like(tmp_path)
    with pytest.raises(Refused) as refused:
        gradescope.read(tmp_path, CONTEXT)
    assert str(refused.value) == gradescope.SEVERAL_EXPORTS.format(
        folder=tmp_path, names="assignment_1_export, assignment_2_export")


def test_gradescope_needs_nothing_written_back(tmp_path):
    download = gradescope.read(write_export(tmp_path / "in", class_of_three()), CONTEXT)
    out = tmp_path / "out"
    out.mkdir()
    assert gradescope.write_back(out, download, [], CONTEXT) is None
    assert os.listdir(out) == []


def test_a_submitter_listed_twice_in_one_submission_is_one_member(tmp_path):
    export = write_export(tmp_path, [Submission(1, [ANN, BO, ANN], datetime(2026, 3, 1, tzinfo=EST),
                                                FILES)])
    handin = gradescope.read(export, CONTEXT).handins[0]
    assert (handin.name, [person.id for person in handin.members]) == ("Ann Lee, Bo Chen",
                                                                       ["1001", "1002"])


def test_a_folder_named_in_another_case_is_not_the_entry_s_folder(tmp_path):
    export = write_export(tmp_path, class_of_three())
    (export / "submission_3").rename(export / "Submission_3")
    download = gradescope.read(export, CONTEXT)
    assert rows(download)[2] == ("3", "Eve Ng", [("1005", "Eve Ng", "eve@example.edu")], {},
                                 "2026-03-02T10:30:00+05:30", [gradescope.NO_FOLDER])
    assert refusals(download) == [("Submission_3", gradescope.UNNAMED_FOLDER)]


def test_an_entry_named_by_another_s_digits_keeps_its_whole_name_as_key(tmp_path):
    metadata = "".join(f"{key}:\n  :submitters:\n  - :name: {name}\n    :sid: '{sid}'\n"
                       for key, name, sid in (("submission_5", "Ann Lee", "1001"),
                                              ("5", "Bo Chen", "1002")))
    export = write_export(tmp_path, [], metadata=metadata)
    (export / "submission_5").mkdir()
    (export / "5").mkdir()
    assert [handin.key for handin in gradescope.read(export, CONTEXT).handins] == ["submission_5",
                                                                                   "5"]


def test_a_metadata_fifo_is_refused_without_waiting_on_it(tmp_path):
    export = tmp_path / export_folder_name()
    export.mkdir()
    os.mkfifo(export / METADATA)
    with pytest.raises(Refused) as refused:
        gradescope.read(export, CONTEXT)
    assert str(refused.value) == gradescope.METADATA_NOT_A_FILE.format(file=export / METADATA)


def test_a_refused_name_is_shown_escaped(tmp_path):
    export = write_export(tmp_path, class_of_three())
    (export / "evil\x1b[2J").mkdir()
    (shown, reason), = refusals(gradescope.read(export, CONTEXT))
    assert "\x1b" not in shown and shown.startswith("evil") and reason == gradescope.UNNAMED_FOLDER


def test_an_entry_naming_a_file_as_a_pdf_assignment_s_export_does_is_a_handin_of_it(tmp_path):
    metadata = ("file1.pdf:\n  :submitters:\n  - :name: Some Student\n    :email: s@example.edu\n"
                "    :sid: '12345'\n  :created_at: 2019-09-04 21:03:57.297916000 Z\n"
                "  :score: 10.0\n  :original_filename: hw01.pdf\n")
    export = write_export(tmp_path, [], metadata=metadata)
    (export / "file1.pdf").write_bytes(b"%PDF-1.4\n")
    assert rows(gradescope.read(export, CONTEXT)) == [
        ("file1.pdf", "Some Student", [("12345", "Some Student", "s@example.edu")],
         {"file1.pdf": f"{export_folder_name()}/file1.pdf"}, "2019-09-04T21:03:57.297916+00:00",
         [gradescope.ONE_FILE])]
