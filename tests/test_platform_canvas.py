"""Canvas's "Download Submissions" read as Canvas names it, canvas-grades.csv as its
gradebook import takes it, and its API asked on a local server that answers as Canvas does.

The downloads are built by tests/platforms/canvas_download.py from Canvas's naming
(lib/content_zipper.rb, instructure/canvas-lms commit 05e9653c12ef7afc65815ca84e5da7aa2e4c3bd3);
the sheet's layout is Canvas's gradebook export (lib/gradebook_exporter.rb, commit
0140a2effa6366ea3b73aeefa4bbc384b943934f), read back by lib/gradebook_importer.rb."""

import socket
import traceback
import unicodedata
import zipfile
from datetime import datetime, timezone

import pytest

from exactmark.platforms import canvas, canvas_api
from exactmark.platforms.download import Context, Download, Handin, Person, Returned
from tests.platforms import canvas_server
from tests.platforms.canvas_server import ASSIGNMENT, COURSE, TOKEN, url
from tests.platforms.canvas_download import (LINK, TEXT, Submitter, entries, write_folder,
                                             write_zip)

CONTEXT = Context(expected=frozenset({"solitaire_1.py", "solitaire_2.py"}), zone=timezone.utc,
                  assignment="solitaires")

CLASS = [
    # a resubmission: Canvas stored the second upload as "solitaire_1-1.py"
    Submitter("Doe, Jane", 101, files=[(501, "solitaire_1.py", b"first\n"),
                                       (502, "solitaire_1-1.py", b"second\n"),
                                       (503, "solitaire_2.py", b"two\n")]),
    Submitter("Doe, Jane", 102, late=True, files=[(504, "solitaire_1.py", b"other jane\n")]),
    Submitter("Núñez, José", 103, files=[(505, "solitaire_1.py", b"jose\n")]),
    Submitter("O'Brien, Seán", 104, files=[(506, "my game.py", b"spaces\n"),
                                          (507, "game-2.py", b"named so\n"),
                                          (508, 'a:b?.py', b"sanitized\n")]),
    Submitter("McDonald, Al", 105, files=[(509, "Solitaire_1.py", b"upper\n"),
                                         (510, "solitaire_1.py", b"lower\n")]),
    Submitter("Mcdonald, Al", 106, files=[(511, "solitaire_1.py", b"other al\n")]),
    Submitter("Lee, Ann", 107, kind=TEXT),
    Submitter("Roe, Rick", 108, kind=LINK),
    # uploaded three times under one name not declared: suffixes collide with each other
    Submitter("Poe, Ed", 109, files=[(512, "notes.txt", b"1\n"), (513, "notes-1.txt", b"2\n"),
                                     (514, "notes-2.txt", b"3\n")]),
]


def summary(download: Download) -> dict:
    """Each hand-in as a row a reader can check: key -> name, late, files, older, notes."""
    return {handin.key: (handin.name, handin.late,
                         {name: path.read_bytes() for name, path in handin.files.items()},
                         [path.name for path in handin.older], handin.notes)
            for handin in download.handins}


EXPECTED = {
    "101": ("doejane", False, {"solitaire_1.py": b"second\n", "solitaire_2.py": b"two\n"},
            ["doejane_101_501_solitaire_1.py"], []),
    "102": ("doejane", True, {"solitaire_1.py": b"other jane\n"}, [], []),
    "103": ("núñezjosé", False, {"solitaire_1.py": b"jose\n"}, [], []),
    "104": ("obrienseán", False, {"my game.py": b"spaces\n", "game-2.py": b"named so\n",
                                  "a_b_.py": b"sanitized\n"}, [], []),
    "105": ("mcdonaldal", False, {"Solitaire_1.py": b"upper\n", "solitaire_1.py": b"lower\n"},
            [], []),
    "106": ("mcdonaldal", False, {"solitaire_1.py": b"other al\n"}, [], []),
    "107": ("leeann", False, {}, [], [canvas.NO_PROGRAM_NOTE.format(kind="a text entry")]),
    "108": ("roerick", False, {}, [], [canvas.NO_PROGRAM_NOTE.format(kind="a web address")]),
    "109": ("poeed", False, {"notes.txt": b"3\n"},
            ["poeed_109_512_notes.txt", "poeed_109_513_notes-1.txt"], []),
}


def test_the_names_canvas_writes_are_the_ones_its_code_makes():
    """The builder itself, against names worked out by hand from content_zipper.rb."""
    names = [name for name, _ in entries(CLASS)]
    assert names[:5] == ["doejane_101_501_solitaire_1.py", "doejane_101_502_solitaire_1-1.py",
                         "doejane_101_503_solitaire_2.py", "doejane_LATE_102_504_solitaire_1.py",
                         "núñezjosé_103_505_solitaire_1.py"]
    assert "obrienseán_104_508_a_b_.py" in names
    assert "leeann_107_text.html" in names and "roerick_108_link.html" in names


def test_each_student_is_read_by_id_with_the_files_own_names(tmp_path):
    download = canvas.read(write_folder(tmp_path / "download", CLASS), CONTEXT)
    assert download.platform == "canvas" and download.refused == []
    assert summary(download) == EXPECTED
    members = {handin.key: handin.members for handin in download.handins}
    assert members["102"] == [Person("102", "doejane")]


def test_a_download_unpacked_on_a_mac_decomposed_reads_the_same(tmp_path):
    folder = write_folder(tmp_path / "download", CLASS, decomposed=True)
    assert any(unicodedata.normalize("NFC", p.name) != p.name for p in folder.iterdir())
    assert summary(canvas.read(folder, CONTEXT)) == EXPECTED


def test_a_declared_name_is_restored_even_alone(tmp_path):
    """Canvas kept "solitaire_2-1.py" after the student deleted the first upload: the
    assignment declares solitaire_2.py, so that is its name."""
    folder = write_folder(tmp_path / "download", [
        Submitter("Doe, Jane", 101, files=[(600, "solitaire_2-1.py", b"x\n"),
                                           (601, "helper-1.py", b"h\n")])])
    (handin,) = canvas.read(folder, CONTEXT).handins
    assert sorted(handin.files) == ["helper-1.py", "solitaire_2.py"]


def test_anonymous_grading_names_each_by_its_anonymous_id(tmp_path):
    folder = write_folder(tmp_path / "download", [
        Submitter("Doe, Jane", 101, files=[(700, "solitaire_1.py", b"a\n")],
                  anonymous_id="d8Ffe"),
        Submitter("Roe, Rick", 102, late=True, files=[(701, "solitaire_1.py", b"b\n")],
                  anonymous_id="12345")])
    assert sorted(p.name for p in folder.iterdir()) == [
        "LATE_anon_12345_701_solitaire_1.py", "anon_d8Ffe_700_solitaire_1.py"]
    assert summary(canvas.read(folder, CONTEXT)) == {
        "anon_12345": ("anon_12345", True, {"solitaire_1.py": b"b\n"}, [], []),
        "anon_d8Ffe": ("anon_d8Ffe", False, {"solitaire_1.py": b"a\n"}, [], [])}


def test_what_belongs_to_no_student_is_refused_with_why(tmp_path):
    folder = write_folder(tmp_path / "download", CLASS[:1])
    (folder / "notes.txt").write_text("mine\n")
    (folder / ".DS_Store").write_bytes(b"\0")
    (folder / "__MACOSX").mkdir()
    (folder / "doejane_101_solitaire_1.py").write_text("no attachment id\n")
    (folder / "doejane_101_502_..").write_text("a dot name\n")
    download = canvas.read(folder, CONTEXT)
    assert [(r.name, r.reason) for r in download.refused] == [
        (".DS_Store", canvas.HIDDEN_REASON),
        ("__MACOSX", canvas.FOLDER_REASON),
        ("doejane_101_502_..", canvas.STRAY_REASON),
        ("doejane_101_solitaire_1.py", canvas.STRAY_REASON),
        ("notes.txt", canvas.STRAY_REASON)]
    assert [h.key for h in download.handins] == ["101"]


def test_looks_like_a_canvas_download_when_most_entries_are_named_so(tmp_path):
    folder = write_folder(tmp_path / "download", CLASS[:2])
    (folder / "notes.txt").write_text("a stray\n")
    (folder / ".DS_Store").write_bytes(b"\0")
    assert canvas.looks_like(folder)
    students = tmp_path / "students"
    for name in ("jane", "rick", "doejane_101_501_a.py"):
        (students / name).mkdir(parents=True)
    assert not canvas.looks_like(students)
    (tmp_path / "empty").mkdir()
    assert not canvas.looks_like(tmp_path / "empty")


def roster_person(pid, name, sortable, sis="", login="", section=""):
    return Person(pid, name, login, (("Student", sortable), ("SIS User ID", sis),
                                     ("SIS Login ID", login), ("Section", section)))


def test_canvas_grades_csv_is_the_gradebook_import_layout(tmp_path):
    jane = roster_person("101", "Jane Doe", "Doe, Jane", "S1", "jdoe", "Section A")
    nobody = roster_person("102", "Rick Roe", "Roe, Rick", "S2", "rroe", "Section A and Section B")
    broken = roster_person("103", "=Eve", "=cmd|' /C calc'!A0", "", "eve", "Section B")
    download = Download("canvas", [], roster=[jane, nobody, broken],
                        sheet=canvas.CanvasAssignment("77", "Solitaires, part 1", 20.0))
    dropped = Person("999", "Dropped Student")
    returned = [Returned(dropped, 5.5, 20, "marked"), Returned(broken, None, 20, "marker error"),
                Returned(Person("101", "doejane"), 17.25, 20, "marked"),
                Returned(nobody, 0, 20, "no submission")]
    path = canvas.write_back(tmp_path, download, returned, CONTEXT)
    assert path == tmp_path / "canvas-grades.csv"
    assert path.read_bytes() == (
        b'Student,ID,SIS User ID,SIS Login ID,Section,"Solitaires, part 1 (77)"\r\n'
        b"    Points Possible,,,,,20\r\n"
        b'"Doe, Jane",101,S1,jdoe,Section A,17.25\r\n'
        b'"Roe, Rick",102,S2,rroe,Section A and Section B,0\r\n'
        b"'=cmd|' /C calc'!A0,103,,eve,Section B,\r\n"
        b"Dropped Student,999,,,,5.5\r\n")


def test_without_the_api_the_column_is_named_from_the_assignment_id_given(tmp_path):
    context = Context(CONTEXT.expected, timezone.utc, "solitaires", platform_assignment="77")
    returned = [Returned(Person("101", "doejane"), 12, 15, "marked")]
    path = canvas.write_back(tmp_path, Download("canvas", []), returned, context)
    assert path.read_bytes() == (b"Student,ID,SIS User ID,SIS Login ID,Section,solitaires (77)\r\n"
                                 b"    Points Possible,,,,,15\r\n"
                                 b"doejane,101,,,,12\r\n")
    path = canvas.write_back(tmp_path, Download("canvas", []), returned, CONTEXT)
    assert path.read_bytes().splitlines()[0] == (
        b"Student,ID,SIS User ID,SIS Login ID,Section,solitaires")  # matched by title


# The Canvas API, answered on 127.0.0.1 as Canvas documents it: tests/platforms/canvas_server.py.

USERS = [
    {"id": 101, "name": "Jane Doe", "sortable_name": "Doe, Jane", "sis_user_id": "S1",
     "login_id": "jdoe", "email": "jane@example.edu", "enrollments": [{"course_section_id": 1}]},
    {"id": 102, "name": "Jane Doe", "sortable_name": "Doe, Jane", "sis_user_id": "S2",
     "login_id": "jdoe2", "email": "jane2@example.edu",
     "enrollments": [{"course_section_id": 2}, {"course_section_id": 1}]},
    {"id": 103, "name": "José Núñez", "sortable_name": "Núñez, José", "sis_user_id": None,
     "login_id": "jnunez", "enrollments": [{"course_section_id": 1}]},
    {"id": 110, "name": "Never Submitted", "sortable_name": "Submitted, Never",
     "sis_user_id": "S10", "login_id": "never", "enrollments": [{"course_section_id": 2}]},
]
TEAM = {"id": 40, "name": "Team Red"}
SUBMISSIONS = [
    {"user_id": 101, "submitted_at": "2026-03-01T22:00:00Z", "late": True, "attempt": 2,
     "group": {"id": None, "name": None}, "user": USERS[0]},
    {"user_id": 102, "submitted_at": "2026-03-02T09:30:00Z", "late": True, "attempt": 1,
     "group": {"id": None, "name": None}, "user": USERS[1]},
    {"user_id": 103, "submitted_at": "2026-03-01T10:00:00Z", "late": False, "attempt": 1,
     "group": {"id": None, "name": None}, "user": USERS[2]},
    {"user_id": 110, "submitted_at": None, "late": False, "attempt": None,
     "group": {"id": None, "name": None}, "user": USERS[3]},
]
@pytest.fixture
def server():
    """A Canvas on 127.0.0.1 for one test; shut down when the test ends, whatever it did."""
    httpd = canvas_server.start(USERS, SUBMISSIONS, {"name": "Solitaires", "points_possible": 20.0})
    yield httpd
    canvas_server.stop(httpd)


def fetch(server, token=TOKEN):
    return canvas_api.fetch(url(server), COURSE, ASSIGNMENT, environ={"CANVAS_TOKEN": token},
                            backoff=0)


def test_the_api_gives_every_page_of_times_and_roster(server):
    fetched = fetch(server)
    assert (fetched.assignment_id, fetched.name, fetched.points) == ("77", "Solitaires", 20.0)
    assert [p.id for p in fetched.roster] == ["101", "102", "103", "110"]
    assert fetched.roster[1] == Person("102", "Jane Doe", "jane2@example.edu", (
        ("Student", "Doe, Jane"), ("SIS User ID", "S2"), ("SIS Login ID", "jdoe2"),
        ("Section", "Section A and Section B")))
    assert fetched.roster[2].email == "jnunez"  # no email given: the login
    assert fetched.submissions["101"].submitted_at == datetime(2026, 3, 1, 22, tzinfo=timezone.utc)
    assert fetched.submissions["101"].attempt == 2 and fetched.submissions["101"].late
    assert fetched.submissions["110"].submitted_at is None
    asked = [(path, query) for path, query in server.asked]
    paths = [path for path, _ in asked]
    assert paths.count(f"/api/v1/courses/{COURSE}/search_users") == 2  # two pages of users
    submissions = [q for p, q in asked if p.endswith("/submissions")]
    assert len(submissions) == 2 and submissions[0]["include[]"] == ["user", "group"]
    users = [q for p, q in asked if p.endswith("/search_users")]
    assert users[0]["enrollment_type[]"] == ["student"]
    assert users[0]["include[]"] == ["enrollments", "email"]


def test_no_token_in_the_environment_is_said_before_any_request(server):
    with pytest.raises(ValueError) as refused:
        canvas_api.fetch(url(server), COURSE, ASSIGNMENT, environ={}, backoff=0)
    assert str(refused.value) == canvas_api.NO_TOKEN and server.asked == []


def test_a_refused_token_is_one_line_that_never_holds_the_token(server):
    server.token = "the right one"
    with pytest.raises(ValueError) as refused:
        fetch(server)
    assert str(refused.value) == canvas_api.REFUSED.format(status=401)
    shown = "".join(traceback.format_exception(refused.value))
    assert TOKEN not in shown and "secret" not in shown
    assert len(server.asked) == 1  # refused: never tried again


def test_a_token_without_the_right_to_the_course_is_one_line(server):
    server.forbidden = True
    with pytest.raises(ValueError) as refused:
        fetch(server)
    assert str(refused.value) == canvas_api.REFUSED.format(status=403)
    assert TOKEN not in "".join(traceback.format_exception(refused.value))


def test_a_canvas_that_does_not_answer_is_tried_a_bounded_number_of_times():
    with socket.socket() as listener:  # a port nothing listens on once closed
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
    address = f"http://127.0.0.1:{port}"
    with pytest.raises(ValueError) as failed:
        canvas_api.fetch(address, COURSE, ASSIGNMENT, environ={"CANVAS_TOKEN": TOKEN}, backoff=0)
    assert str(failed.value) == canvas_api.UNREACHABLE.format(url=address, why="ConnectionError")


def test_a_server_error_is_tried_again_then_answers(server):
    server.failures = 2
    assert fetch(server).name == "Solitaires"
    assert [path for path, _ in server.asked[:3]] == [f"/api/v1/courses/{COURSE}"] * 3


def test_a_server_error_that_lasts_is_tried_a_bounded_number_of_times(server):
    server.failures = 10 ** 6
    with pytest.raises(ValueError) as failed:
        fetch(server)
    assert str(failed.value) == canvas_api.SERVER_FAILED.format(url=url(server))
    assert len(server.asked) == canvas_api.RETRIES


def test_an_unknown_assignment_is_said_in_one_line(server):
    with pytest.raises(ValueError) as missing:
        canvas_api.fetch(url(server), COURSE, "78", environ={"CANVAS_TOKEN": TOKEN}, backoff=0)
    assert str(missing.value) == canvas_api.NOT_FOUND.format(course=COURSE, assignment="78",
                                                             url=url(server))


def test_with_times_gives_times_names_roster_and_a_late_disagreement(server, tmp_path):
    folder = write_folder(tmp_path / "download", CLASS[:3])
    download = canvas_api.with_times(canvas.read(folder, CONTEXT), fetch(server))
    by_key = {h.key: h for h in download.handins}
    assert [p.id for p in download.roster] == ["101", "102", "103", "110"]
    assert download.sheet == canvas.CanvasAssignment("77", "Solitaires", 20.0)
    # 101: the download has no LATE, the API says late: said on the row
    assert by_key["101"].name == "Jane Doe"
    assert by_key["101"].submitted == datetime(2026, 3, 1, 22, tzinfo=timezone.utc)
    assert by_key["101"].notes[-1] == canvas_api.LATE_DISAGREES.format(
        download="on time", api="late")
    assert by_key["102"].late and by_key["102"].notes == []  # both say late
    assert by_key["103"].members == [download.roster[2]] and by_key["103"].notes == []


def test_a_group_assignment_gives_the_mark_to_every_member(server, tmp_path):
    server.submissions = [dict(s, group=TEAM) for s in SUBMISSIONS[:3]] + SUBMISSIONS[3:]
    folder = write_folder(tmp_path / "download", [CLASS[0]])  # the group's representative
    download = canvas_api.with_times(canvas.read(folder, CONTEXT), fetch(server))
    (team,) = download.handins
    assert team.name == "Team Red" and [m.id for m in team.members] == ["101", "102", "103"]
    assert team.notes[-1] == canvas_api.GROUP_NOTE.format(
        group="Team Red", members="Jane Doe, Jane Doe, José Núñez")


def test_a_handin_the_api_does_not_know_is_left_as_read():
    handin = Handin("anon_d8Ffe", "anon_d8Ffe", [Person("anon_d8Ffe", "anon_d8Ffe")], {})
    fetched = canvas_api.Fetched("77", "Solitaires", 20.0, {}, [])
    assert canvas_api.with_times(Download("canvas", [handin]), fetched).handins == [handin]


def test_the_zip_holds_the_same_names_utf8_flagged(tmp_path):
    """The end-to-end tests hand the class marker the zip itself: the names and bytes of
    the folder form, non-ASCII names flagged UTF-8 as rubyzip writes them."""
    with zipfile.ZipFile(write_zip(tmp_path / "submissions.zip", CLASS)) as archive:
        members = [(info.filename, archive.read(info)) for info in archive.infolist()]
        assert all(info.flag_bits & 0x800 for info in archive.infolist()
                   if not info.filename.isascii())
    assert members == entries(CLASS)
