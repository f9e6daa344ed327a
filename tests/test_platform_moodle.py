"""Moodle's "Download all submissions" (folders and flat) and its grading worksheet, read
as they come, and the worksheet written back for "Upload grading worksheet".

The downloads are built by tests/platforms/moodle_download.py from Moodle's own naming
(mod/assign/classes/downloader.php, commit da5455238d1a24a0246b11f4b682b73664993c0b; the
worksheet from mod/assign/gradingtable.php, commit 1494620bfbb33538251bc1a222027f665b7da2ea):
see its docstring for each rule and where Moodle has it."""

import re
import unicodedata
import zipfile
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from exactmark.platforms import moodle
from exactmark.platforms.download import Context, Download, Person, Returned
from tests.platforms import moodle_download as md

ZONE = ZoneInfo("Europe/London")
SUBMITTED = datetime(2027, 3, 11, 14, 30, tzinfo=ZONE)
GRADED = datetime(2027, 3, 12, 9, 5, tzinfo=ZONE)
PROGRAM = b"print('hello')\n"

# (full name as Moodle has it, participant id, email, the student's files)
STUDENTS = (
    ("José Álvarez", 1001, "jose@example.edu", {"solitaire_1.py": PROGRAM}),
    ("Seán O'Brien", 1002, "sean@example.edu", {"solitaire_1.py": PROGRAM,
                                                "lib/helper.py": b"X = 1\n"}),
    ("Ann Lee", 1003, "ann.lee@example.edu", {"solitaire_1.py": PROGRAM}),
    ("Ann Lee", 1004, "ann.lee2@example.edu", {"solitaire_1.py": b"print('other')\n"}),
    ("ann lee", 1005, "ann@example.edu", {"solitaire_1.py": PROGRAM}),
    ("Mary_Jane Watts", 1006, "mj@example.edu", {"solitaire_1.py": PROGRAM}),
)
NO_SHOW = ("Zoë Brontë", 1007, "zoe@example.edu")


def _row(name, number, email, submitted="-", **more):
    row = {"Identifier": f"Participant {number}", "Full name": name, "Email address": email,
           "Status": "Submitted for grading" if submitted != "-" else "No submission",
           "Maximum Grade": "100.00", "Grade can be changed": "Yes",
           "Last modified (submission)": submitted}
    row.update(more)
    return row


def _class_rows():
    rows = [_row(name, number, email, md.userdate(SUBMITTED)) for name, number, email, _ in
            STUDENTS]
    rows[4]["Last modified (submission)"] = "jeudi 11 mars 2027, 14:30"  # a French download
    rows[5]["Grade can be changed"] = "No"
    rows[1]["Grade"] = "55.00"
    rows[1]["Last modified (grade)"] = md.userdate(GRADED)
    rows.append(_row(*NO_SHOW))
    return rows


def _class_download(folders):
    download = {}
    for name, number, _, files in STUDENTS:
        # Zoë-style names come decomposed from a Mac's zip: José's folder is so.
        shown = unicodedata.normalize("NFD", name) if number == 1001 else name
        download.update(md.entries(md.student_prefix(shown, number), files, folders))
    download.update(md.entries(md.student_prefix("Ann Lee", 1003),
                               {"onlinetext.html": b"<p>see my file</p>"}, folders, "onlinetext"))
    download.update(md.entries(md.student_prefix("Someone Else", 9999), {"a.py": PROGRAM}, folders))
    download["notes.txt"] = b"stray"
    return download


def _context(worksheet=None):
    return Context(expected=frozenset({"solitaire_1.py"}), zone=ZONE, assignment="seeded",
                   worksheet=worksheet)


def _read(tmp_path, folders=True, rows=None, columns=md.INDIVIDUAL, download=None):
    folder = md.write_folder(tmp_path / "download",
                             _class_download(folders) if download is None else download)
    sheet = tmp_path / "worksheet.csv"
    sheet.write_bytes(md.worksheet(_class_rows() if rows is None else rows, columns))
    return moodle.read(folder, _context(sheet)), folder


def _shown(handin, folder):
    return (handin.key, handin.name, [(p.id, p.name, p.email) for p in handin.members],
            {name: path.relative_to(folder).as_posix() for name, path in handin.files.items()},
            handin.submitted, handin.notes)


def test_moodles_naming_gives_each_rule_as_the_builder_applies_it():
    assert md.student_prefix("Seán O'Brien", 1002) == "Seán OBrien_1002"
    assert md.student_prefix("Mary_Jane Watts", 1006) == "Mary Jane Watts_1006"
    assert md.student_prefix("Mary Watts", 1006, blind=True) == "Participant_1006"
    assert md.team_prefix("Team_Alpha", 42) == "Team Alpha_42"
    assert md.team_prefix() == "Default group"
    assert md.team_prefix("R&D", 43) == "Ramp;D_43"
    assert md.entries("Ann Lee_1003", {"lib/a.py": b""}) == {
        "Ann Lee_1003_assignsubmission_file/lib/a.py": b""}
    assert md.entries("Ann Lee_1003", {"lib/a.py": b""}, folders=False) == {
        "Ann Lee_1003_assignsubmission_file_a.py": b""}
    assert md.userdate(SUBMITTED) == "Thursday, 11 March 2027, 2:30 PM"


def test_a_download_in_folders_is_one_hand_in_per_participant_with_the_worksheets_people(tmp_path):
    download, folder = _read(tmp_path, folders=True)
    folder_of = {number: f"{md.student_prefix(name, number)}_assignsubmission_file"
                 for name, number, _, _ in STUDENTS}
    folder_of[1001] = unicodedata.normalize("NFD", folder_of[1001])
    assert [_shown(handin, folder) for handin in download.handins] == [
        ("1003", "Ann Lee", [("1003", "Ann Lee", "ann.lee@example.edu")],
         {"solitaire_1.py": f"{folder_of[1003]}/solitaire_1.py"}, SUBMITTED,
         ["Moodle's onlinetext submission (onlinetext.html) is not a program: left out"]),
        ("1004", "Ann Lee", [("1004", "Ann Lee", "ann.lee2@example.edu")],
         {"solitaire_1.py": f"{folder_of[1004]}/solitaire_1.py"}, SUBMITTED, []),
        ("1001", "José Álvarez", [("1001", "José Álvarez", "jose@example.edu")],
         {"solitaire_1.py": f"{folder_of[1001]}/solitaire_1.py"}, SUBMITTED, []),
        ("1006", "Mary_Jane Watts", [("1006", "Mary_Jane Watts", "mj@example.edu")],
         {"solitaire_1.py": f"{folder_of[1006]}/solitaire_1.py"}, SUBMITTED, [moodle.LOCKED]),
        ("1002", "Seán O'Brien", [("1002", "Seán O'Brien", "sean@example.edu")],
         {"lib/helper.py": f"{folder_of[1002]}/lib/helper.py",
          "solitaire_1.py": f"{folder_of[1002]}/solitaire_1.py"}, SUBMITTED, []),
        ("1005", "ann lee", [("1005", "ann lee", "ann@example.edu")],
         {"solitaire_1.py": f"{folder_of[1005]}/solitaire_1.py"}, None,
         [moodle.UNREADABLE_TIME.format(text="jeudi 11 mars 2027, 14:30")]),
    ]
    assert [(refusal.name, refusal.reason) for refusal in download.refused] == [
        ("Someone Else_9999_assignsubmission_file",
         moodle.NOT_IN_WORKSHEET.format(id=9999)),
        ("notes.txt", moodle.NOT_MOODLE),
    ]
    assert [(p.id, p.name) for p in download.roster] == [
        (str(number), name) for name, number, _, _ in STUDENTS] + [("1007", "Zoë Brontë")]


def test_folders_as_moodle_before_4_1_named_them_are_read_as_today_s(tmp_path):
    """Moodle 3.1 to 4.0 ended each folder's name with "_": the same hand-ins."""
    given = {"solitaire_1.py": PROGRAM, "lib/helper.py": b"x = 1\n"}
    now, before = (moodle.read(md.write_folder(tmp_path / str(old), md.entries(
        md.student_prefix("Seán O'Brien", 1002), given, before_4_1=old)), _context(None))
        for old in (False, True))
    assert before.refused == [] and [
        (h.key, h.name, sorted(h.files)) for h in before.handins] == [
        (h.key, h.name, sorted(h.files)) for h in now.handins] == [
        ("1002", "Seán OBrien", ["lib/helper.py", "solitaire_1.py"])]


def test_a_flat_download_is_read_as_the_folders_are_each_file_by_its_own_name(tmp_path):
    download, folder = _read(tmp_path, folders=False)
    assert {handin.key: sorted(handin.files) for handin in download.handins} == {
        "1001": ["solitaire_1.py"], "1002": ["helper.py", "solitaire_1.py"],
        "1003": ["solitaire_1.py"], "1004": ["solitaire_1.py"], "1005": ["solitaire_1.py"],
        "1006": ["solitaire_1.py"]}
    assert download.handins[0].files["solitaire_1.py"] == (
        folder / "Ann Lee_1003_assignsubmission_file_solitaire_1.py")
    assert download.handins[0].notes == [
        "Moodle's onlinetext submission (onlinetext.html) is not a program: left out"]
    assert [refusal.name for refusal in download.refused] == [
        "Someone Else_9999_assignsubmission_file_a.py", "notes.txt"]


def test_a_team_submission_goes_to_every_member_the_worksheet_puts_in_its_group(tmp_path):
    download = {**md.entries(md.team_prefix("Team_Alpha", 42), {"solitaire_1.py": PROGRAM}),
                **md.entries(md.team_prefix("R&D", 43), {"solitaire_1.py": PROGRAM}),
                **md.entries(md.team_prefix(), {"solitaire_1.py": PROGRAM}, folders=False)}
    when = md.userdate(SUBMITTED)
    rows = [_row("Ann Lee", 2001, "a@x", when, Group="Team_Alpha"),
            _row("Bo Chen", 2002, "b@x", when, Group="Team_Alpha"),
            _row("Cy Dar", 2003, "c@x", when, Group="Team_Alpha"),
            _row("Di Eve", 2004, "d@x", when, Group="Default group"),
            _row("Ed Fox", 2005, "e@x", Group="Not a member of any group"),
            _row("Flo Gee", 2006, "f@x", when, Group="R&D")]
    read, _ = _read(tmp_path, rows=rows, columns=md.TEAM, download=download)
    assert [(h.key, h.name, [p.id for p in h.members], sorted(h.files), h.submitted)
            for h in read.handins] == [
        ("Default group", "Default group", ["2004"], ["solitaire_1.py"], SUBMITTED),
        ("43", "R&D", ["2006"], ["solitaire_1.py"], SUBMITTED),
        ("42", "Team_Alpha", ["2001", "2002", "2003"], ["solitaire_1.py"], SUBMITTED)]
    assert [p.id for p in read.roster] == ["2001", "2002", "2003", "2004", "2005", "2006"]
    assert read.refused == []


def test_blind_marking_names_each_participant_by_its_identifier(tmp_path):
    download = md.entries(md.student_prefix("Ann Lee", 5001, blind=True),
                          {"solitaire_1.py": PROGRAM})
    rows = [{"Identifier": "Participant 5001", "Status": "Submitted for grading",
             "Last modified (submission)": md.userdate(SUBMITTED)}]
    read, _ = _read(tmp_path, rows=rows, columns=md.BLIND, download=download)
    assert [(h.key, h.name, h.members[0].name, h.submitted) for h in read.handins] == [
        ("5001", "Participant 5001", "Participant 5001", SUBMITTED)]


def test_without_a_worksheet_the_names_come_from_the_download_and_nothing_goes_back(tmp_path):
    folder = md.write_folder(tmp_path / "d", {
        **md.entries(md.student_prefix("Seán O'Brien", 1002), {"solitaire_1.py": PROGRAM}),
        **md.entries(md.team_prefix(), {"solitaire_1.py": PROGRAM})})
    assert moodle.looks_like(folder)
    read = moodle.read(folder, _context())
    assert [(h.key, h.name, [p.id for p in h.members], h.submitted) for h in read.handins] == [
        ("1002", "Seán OBrien", ["1002"], None)]
    assert [(r.name, r.reason) for r in read.refused] == [
        ("Default group_assignsubmission_file", moodle.DEFAULT_NEEDS_WORKSHEET)]
    assert moodle.write_back(tmp_path, read, [], _context()) is None


def test_only_moodles_naming_looks_like_moodle(tmp_path):
    canvas = md.write_folder(tmp_path / "canvas", {"leeann_1234_5678_solitaire_1.py": b""})
    gradescope = md.write_folder(tmp_path / "gs", {"submission_123/solitaire_1.py": b""})
    assert not moodle.looks_like(canvas)
    assert not moodle.looks_like(gradescope)


@pytest.mark.parametrize("text, want", [
    ("Thursday, 11 March 2027, 2:30 PM", datetime(2027, 3, 11, 14, 30, tzinfo=ZONE)),
    ("Monday, 1 March 2027, 12:05 AM", datetime(2027, 3, 1, 0, 5, tzinfo=ZONE)),
    ("Monday, 1 March 2027, 12:05 PM", datetime(2027, 3, 1, 12, 5, tzinfo=ZONE)),
    ("Sunday, 28 March 2027, 9:00 AM", datetime(2027, 3, 28, 9, 0, tzinfo=ZONE)),
    ("-", None),
])
def test_a_time_is_read_as_moodles_userdate_writes_it_in_the_downloaders_zone(text, want):
    got = moodle.parse_time(text, ZONE)
    assert got == want
    assert got is None or got.utcoffset() == want.utcoffset()


@pytest.mark.parametrize("text", ["jeudi 11 mars 2027, 14:30", "2027-03-11 14:30",
                                  "Thursday, 11 March 2027, 14:30"])
def test_a_time_not_as_moodle_writes_it_in_english_is_refused(text):
    with pytest.raises(ValueError):
        moodle.parse_time(text, ZONE)


# The worksheet as Moodle writes it, and as it must come back: every cell the kit leaves
# alone byte for byte (here a cell Moodle would not quote, quoted, and CRLF endings, as a
# spreadsheet may leave them), Grade and Feedback comments filled for those returned.
SHEET = (b"\xef\xbb\xbf"
         b'Identifier,"Full name","Email address",Status,Grade,"Maximum Grade",'
         b'"Grade can be changed","Last modified (submission)","Last modified (grade)",'
         b'"Feedback comments"\r\n'
         b'"Participant 1001","Jos\xc3\xa9 \xc3\x81lvarez",jose@example.edu,'
         b'"Submitted for grading",'
         b',100.00,Yes,"Thursday, 11 March 2027, 2:30 PM",-,\r\n'
         b'"Participant 1002","Se\xc3\xa1n O\'Brien",sean@example.edu,"Submitted for grading",'
         b'55.00,100.00,Yes,"Thursday, 11 March 2027, 2:30 PM","Friday, 12 March 2027, 9:05 AM",'
         b'"Good ""start"""\r\n'
         b'"Participant 1003","Ann Lee",ann@example.edu,"No submission",,100.00,Yes,-,-,\r\n'
         b'"Participant 1004","Bo Chen",bo@example.edu,"No submission",,100.00,Yes,-,-,\r\n')
BACK = (b"\xef\xbb\xbf"
        b'Identifier,"Full name","Email address",Status,Grade,"Maximum Grade",'
        b'"Grade can be changed","Last modified (submission)","Last modified (grade)",'
        b'"Feedback comments"\r\n'
        b'"Participant 1001","Jos\xc3\xa9 \xc3\x81lvarez",jose@example.edu,"Submitted for grading",'
        b'87.44,100.00,Yes,"Thursday, 11 March 2027, 2:30 PM",-,'
        b'"late by 2 days: -10%\nSee jose.html"\r\n'
        b'"Participant 1002","Se\xc3\xa1n O\'Brien",sean@example.edu,"Submitted for grading",'
        b',100.00,Yes,"Thursday, 11 March 2027, 2:30 PM","Friday, 12 March 2027, 9:05 AM",'
        b'"\'=marker error, mark again"\r\n'
        b'"Participant 1003","Ann Lee",ann@example.edu,"No submission",0,100.00,Yes,-,-,'
        b'"no submission"\r\n'
        b'"Participant 1004","Bo Chen",bo@example.edu,"No submission",,100.00,Yes,-,-,\r\n')


def _returned(sheet):
    """The worksheet read, and three students' marks: a late one, a marker error (no mark:
    the Grade cell left empty, and a comment a spreadsheet would run), no submission."""
    return moodle.read_worksheet(sheet), [
        # 87.4375 goes back to two decimals, as the student's page shows it: 87.44
        Returned(Person("1001", "José Álvarez"), 87.4375, 100,
                 "late by 2 days: -10%\nSee jose.html"),
        Returned(Person("1002", "Seán O'Brien"), None, 100, "=marker error, mark again"),
        Returned(Person("1003", "Ann Lee"), 0.0, 100, "no submission")]


def test_the_worksheet_goes_back_as_moodle_gave_it_with_the_grades_and_comments_filled(tmp_path):
    sheet = tmp_path / "worksheet.csv"
    sheet.write_bytes(SHEET)
    people, returned = _returned(sheet)
    (tmp_path / "out").mkdir()
    written = moodle.write_back(tmp_path / "out", Download(moodle.NAME, [], sheet=people),
                                returned, _context(sheet))
    assert written == tmp_path / "out" / "moodle-worksheet.csv"
    assert written.read_bytes() == BACK


def test_a_worksheet_with_no_byte_order_mark_goes_back_with_none(tmp_path):
    sheet = tmp_path / "worksheet.csv"
    sheet.write_bytes(SHEET[3:])
    people, returned = _returned(sheet)
    written = moodle.write_back(tmp_path, Download(moodle.NAME, [], sheet=people), returned,
                                _context(sheet))
    assert written.read_bytes() == BACK[3:]


def test_the_builders_worksheet_reads_back_cell_by_cell(tmp_path):
    sheet = tmp_path / "w.csv"
    sheet.write_bytes(md.worksheet(_class_rows()))
    people = moodle.read_worksheet(sheet)
    assert people.bom
    assert people.records[0].values == list(md.INDIVIDUAL)
    assert people.records[2].values == [
        "Participant 1002", "Seán O'Brien", "sean@example.edu", "Submitted for grading",
        "55.00", "100.00", "Yes", "Thursday, 11 March 2027, 2:30 PM",
        "Friday, 12 March 2027, 9:05 AM", ""]
    assert list(people.rows) == ["1001", "1002", "1003", "1004", "1005", "1006", "1007"]


@pytest.mark.parametrize("body, problem", [
    (b"Identifier,Grade\nParticipant 1,5,extra\n", "line 2: 3 cells where the header has 2"),
    (b'Identifier,Grade\n"Participant 1,5\n', "line 2: a quoted cell that never ends"),
    (b'Identifier,Grade\n"Participant 1"x,5\n',
     "line 2: text after a quoted cell's closing quote"),
    (b"Identifier,Grade\nsomeone,5\n",
     "line 2: the Identifier cell someone has no participant number"),
    (b"Identifier,Grade\nParticipant 1,5\nParticipant 1,6\n",
     "line 3: participant 1 again (first on line 2)"),
    (b"Name,Grade\nAnn,5\n", "no Identifier column: not Moodle's grading worksheet (in English)"),
    (b"Identifier\n\xe9\n", "not UTF-8 text, as Moodle writes its worksheet"),
    (b"", "empty: not Moodle's grading worksheet"),
])
def test_a_malformed_worksheet_is_refused_in_one_line_saying_where(tmp_path, body, problem):
    sheet = tmp_path / "w.csv"
    sheet.write_bytes(body)
    with pytest.raises(ValueError) as refused:
        moodle.read_worksheet(sheet)
    assert str(refused.value) in (f"{sheet}, {problem}", f"{sheet}: {problem}")


def test_what_belongs_to_no_one_is_refused_each_with_why(tmp_path):
    when = md.userdate(SUBMITTED)
    download = {
        **md.entries("Ann Lee_1003", {"solitaire_1.py": PROGRAM}),
        **md.entries("Ann Lee_1003", {"solitaire_1.py": PROGRAM}, folders=False),
        "Ann Lee_1003_assignsubmission_file_x.py/a.py": PROGRAM,
        "Bo Chen_1004_assignsubmission_file": PROGRAM,
        "__MACOSX/._x": b"",
    }
    rows = [_row("Ann Lee", 1003, "a@x", when), _row("Bo Chen", 1004, "b@x", "-")]
    read, _ = _read(tmp_path, rows=rows, download=download)
    assert [(r.name, r.reason) for r in read.refused] == [
        ("Ann Lee_1003_assignsubmission_file_solitaire_1.py",
         moodle.TWICE.format(first="Ann Lee_1003_assignsubmission_file/solitaire_1.py")),
        ("Ann Lee_1003_assignsubmission_file_x.py", moodle.FOLDER_AS_FILE),
        ("Bo Chen_1004_assignsubmission_file", moodle.FILE_AS_FOLDER),
        ("__MACOSX", moodle.NOT_MOODLE)]
    assert [(h.key, sorted(h.files), h.notes) for h in read.handins] == [
        ("1003", ["solitaire_1.py"], [])]


def test_a_team_the_worksheet_cannot_place_is_refused(tmp_path):
    download = {**md.entries(md.team_prefix("Red", 7), {"a.py": PROGRAM}),
                **md.entries(md.team_prefix("Red", 8), {"a.py": PROGRAM}),
                **md.entries(md.team_prefix("Blue", 9), {"a.py": PROGRAM})}
    rows = [_row("Ann Lee", 2001, "a@x", Group="Red")]
    read, _ = _read(tmp_path, rows=rows, columns=md.TEAM, download=download)
    assert read.handins == []
    assert [(r.name, r.reason) for r in read.refused] == [
        ("Blue_9_assignsubmission_file", moodle.NO_SUCH_GROUP.format(group="Blue")),
        ("Red_7_assignsubmission_file", moodle.TWO_GROUPS.format(group="Red", ids="7, 8")),
        ("Red_8_assignsubmission_file", moodle.TWO_GROUPS.format(group="Red", ids="7, 8"))]


def test_files_with_no_time_in_the_worksheet_say_so_and_the_worksheet_itself_is_no_ones(
        tmp_path):
    folder = md.write_folder(tmp_path / "download", md.entries("Bo Chen_1004", {"a.py": PROGRAM}))
    sheet = folder / "worksheet.csv"
    sheet.write_bytes(md.worksheet([_row("Bo Chen", 1004, "b@x", "-")]))
    read = moodle.read(folder, _context(sheet))
    assert [(h.key, h.submitted, h.notes) for h in read.handins] == [
        ("1004", None, [moodle.NO_SUBMISSION_TIME])]
    assert read.refused == []


def test_the_builders_zip_holds_the_download_by_moodles_names(tmp_path):
    download = _class_download(folders=True)
    with zipfile.ZipFile(md.write_zip(tmp_path / "moodle.zip", download)) as archive:
        assert {name: archive.read(name) for name in archive.namelist()} == download


@pytest.mark.parametrize("body, problem", [
    (b"Identifier,Grade,Maximum Grade\nParticipant 1001,,10.00\n",
     moodle.OTHER_MAXIMUM.format(path="{path}", moodle="10.00", kit="100")),
    (b"Identifier,Grade,Scale\nParticipant 1001,,\"Pass\nFail\"\n",
     moodle.NOT_POINTS.format(path="{path}")),
])
def test_marks_out_of_another_total_than_moodles_are_refused_never_skipped_unsaid(
        tmp_path, body, problem):
    sheet = tmp_path / "w.csv"
    sheet.write_bytes(body)
    people = moodle.read_worksheet(sheet)
    returned = [Returned(Person("1001", "José Álvarez"), 87.5, 100, "")]
    with pytest.raises(ValueError) as refused:
        moodle.write_back(tmp_path, Download(moodle.NAME, [], sheet=people), returned,
                          _context(sheet))
    assert str(refused.value) == problem.format(path=sheet)
    assert not (tmp_path / moodle.WRITTEN).exists()


# "Upload multiple feedback files in a zip": Moodle's importer, mod/assign/feedback/file/
# importziplib.php (commit 3769c65a97032618f944597d0d827ea2145c7cdc, and 0203d8f26027201de1d7d1
# ec8d8aa3cdcc4f5d5d before team submissions were mapped by group), is_valid_filename_for_import,
# in Python: what the zip is checked against, never the code under test.
NUMERIC = re.compile(r"[ \t\n\r\v\f]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")  # PHP is_numeric
PLUGINS = {("assignsubmission", "file"), ("assignsubmission", "onlinetext"),
           ("assignfeedback", "file"), ("assignfeedback", "comments")}


def importer_match(member: str, participants: dict):
    """(whom Moodle gives the file to, the feedback file's name), or None when it skips it:
    a folder, a hidden file; else the first path part split at "_" (five pieces at most)
    whose second piece is a listed participant's number and whose third and fourth a
    plugin's; the rest of the path is the name."""
    if member.endswith("/"):
        return None
    parts = ("/import/" + member).split("/")
    if parts[-1].startswith((".", "~")):
        return None
    while parts:
        info = parts.pop(0).split("_", 4)
        if len(info) < 4 or not NUMERIC.fullmatch(info[1]):
            continue
        whom = participants.get(int(float(info[1])))
        if whom is None or (info[2], info[3]) not in PLUGINS:
            continue
        parts.insert(0, info[4] if len(info) == 5 else "")
        return whom, "/".join(parts)
    return None


def _page(folder, text):
    """A student's page folder as the class marker writes it: the pages and a case's files."""
    (folder / "cases" / "seed_0").mkdir(parents=True)
    (folder / "feedback.html").write_text(f"<p>{text}</p>\n", encoding="utf-8")
    (folder / "feedback.txt").write_text(f"{text}\n", encoding="utf-8")
    (folder / "cases" / "seed_0" / "seed_0.in").write_bytes(b"0\n")
    return folder


def _zip(path):
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def test_the_feedback_zip_gives_each_page_to_its_participant_as_moodles_importer_matches_it(
        tmp_path):
    read, _ = _read(tmp_path)
    out = tmp_path / "out"
    (out / "instructor" / "José Álvarez").mkdir(parents=True)
    (out / "instructor" / "José Álvarez" / "report.txt").write_text("the marker's report")
    pages = {"1001": _page(out / "students" / "José Álvarez", "José"),
             "1002": _page(out / "students" / "Seán O'Brien", "Seán"),
             "1006": _page(out / "students" / "Mary_Jane Watts", "Mary Jane")}
    written, attached = moodle.write_feedback_zip(out, read, pages, _context())
    assert written == out / "moodle-feedback.zip" and attached == {"1001", "1002", "1006"}
    held = _zip(written)
    folders = {"1001": "José Álvarez_1001_assignsubmission_file_",  # composed, as the sheet
               "1002": "Seán OBrien_1002_assignsubmission_file_",  # clean_filename drops '
               "1006": "Mary Jane Watts_1006_assignsubmission_file_"}  # "_" made " "
    assert sorted(held) == sorted(f"{folders[number]}/{name}" for number in folders for name in
                                  ("cases/seed_0/seed_0.in", "feedback.html", "feedback.txt"))
    participants = {int(number): number for number in ("1001", "1002", "1003", "1006", "1007")}
    for name, data in held.items():
        number = name.split("_")[1]
        assert importer_match(name, participants) == (
            number, "/" + name.split("/", 1)[1]), name
        assert data == (pages[number] / name.split("/", 1)[1]).read_bytes(), name
    # the same pages, the same bytes: fixed times, sorted names
    first = written.read_bytes()
    assert moodle.write_feedback_zip(out, read, pages, _context())[0].read_bytes() == first
    with zipfile.ZipFile(written) as archive:
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert [info.filename for info in archive.infolist()] == sorted(held)


def test_a_team_submission_s_pages_go_back_by_hand_never_in_the_zip(tmp_path):
    """Moodle's importer reads a folder's number as a group's id since it maps groups, as a
    participant's before (importziplib.php at 0203d8f26027201de1d7d1ec8d8aa3cdcc4f5d5d): in
    a team assignment a team's page could reach a student of that number, so none goes."""
    download = {**md.entries(md.team_prefix("Team_Alpha", 42), {"solitaire_1.py": PROGRAM}),
                **md.entries(md.team_prefix("R&D", 43), {"solitaire_1.py": PROGRAM})}
    when = md.userdate(SUBMITTED)
    rows = [_row("Ann Lee", 2001, "a@x", when, Group="Team_Alpha"),
            _row("Bo Chen", 2002, "b@x", when, Group="Team_Alpha"),
            _row("Flo Gee", 2006, "f@x", when, Group="R&D")]
    read, _ = _read(tmp_path, rows=rows, columns=md.TEAM, download=download)
    out = tmp_path / "out"
    alpha = _page(out / "students" / "Team_Alpha", "Alpha")
    pages = {"2001": alpha, "2002": alpha, "2006": _page(out / "students" / "R&D", "R&D")}
    (out / moodle.FEEDBACK_ZIP).write_bytes(b"an earlier run's")
    assert moodle.write_feedback_zip(out, read, pages, _context()) == (None, set())
    assert not (out / moodle.FEEDBACK_ZIP).exists()


@pytest.mark.parametrize("name", ["../../etc/passwd", "..", "a/b\\c", "x\x00y\x1b[31m\u202ez",
                                  "_7_assignsubmission_file_", "/", ".hidden", "~x", "n" * 5000],
                         ids=["a path up", "..", "slashes", "control characters",
                              "another participant's folder", "/", "hidden", "~", "long"])
def test_a_hostile_name_cannot_make_a_member_outside_its_folder_or_another_s(tmp_path, name):
    """The folder comes from the participant's number, and the name only as Moodle cleans it:
    no "/", "\\", "_" or control character, and short; a page's own files only."""
    out = tmp_path / "out"
    page = _page(out / "students" / "them", "theirs")
    (out / "instructor").mkdir()
    (out / "instructor" / "report.txt").write_text("yours only")
    (page / "report.txt").symlink_to(out / "instructor" / "report.txt")
    other = _page(out / "students" / "other", "another's")
    read = Download(moodle.NAME, [], roster=[Person("3001", name), Person("7", "Other One")])
    written, attached = moodle.write_feedback_zip(
        out, read, {"3001": page, "7": other, "not-a-number": other}, _context())
    assert attached == {"3001", "7"}
    held = _zip(written)
    theirs = [member for member in held if importer_match(member, {3001: "3001", 7: "7"})[0]
              == "3001"]
    assert sorted(member.split("/", 1)[1] for member in theirs) == [
        "cases/seed_0/seed_0.in", "feedback.html", "feedback.txt"]
    for member in held:
        parts = member.split("/")
        assert not any(part in ("", ".", "..") for part in parts), member
        assert not any(ord(character) < 32 or character in "\\\x7f\u202e"
                       for character in member), repr(member)
        assert len(parts[0]) <= 150 and parts[0].endswith("_assignsubmission_file_"), member
    assert held[theirs[1]] == (page / "feedback.html").read_bytes()


def test_no_page_to_give_back_writes_no_zip_and_removes_an_earlier_run_s(tmp_path):
    (tmp_path / "moodle-feedback.zip").write_bytes(b"an earlier class's")
    read = Download(moodle.NAME, [], roster=[Person("3001", "Ann")])
    assert moodle.write_feedback_zip(tmp_path, read, {}, _context()) == (None, set())
    assert not (tmp_path / "moodle-feedback.zip").exists()
