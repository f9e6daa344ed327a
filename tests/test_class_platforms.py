"""A platform's download marked as a class (exactmark/classroom/platform_class.py): each
hand-in one student, a team's mark on each member's row, a row for everyone the platform
lists, its times under the late rule, the refusals on rows of their own, and the marks handed
back through the platform's write_back. The platform here is tests/platform_fake.py, which
builds its Download directly: these tests check the wiring; each platform's own tests check
its format."""

import argparse
import contextlib
import csv
import dataclasses
import io
import json
import os
import sys
import types
import unicodedata
import zipfile
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from exactmark.base.tree import Limits, Refused
from exactmark.classroom import mark_class, platform_class, sheet
from exactmark.classroom.times import Timed
from exactmark.kit.assignment import load
from exactmark.kit.bundle import write_all
from exactmark.platforms.download import Download, Handin, Person
from tests.test_mark_class import ASSIGNMENT, HIDDEN, VISIBLE, others

FAKE = platform_class.Platform("tests.platform_fake", "Fake", "the fake keeps them in fake.json",
                                "fake.json")
SYDNEY = ZoneInfo("Australia/Sydney")
DEADLINE = datetime(2027, 3, 9, 9, tzinfo=SYDNEY)
ZOE = unicodedata.normalize("NFD", "Zoë Martin")  # as a Mac writes it
ZOE_SHOWN = unicodedata.normalize("NFC", ZOE)  # as the sheet and the pages show it
GRADE_COLUMNS = ["student", "solitaire_1", "solitaire_2", "raw total", "days late", "mark",
                 "status", "cases passed", "note", "id", "page"]


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    """The fake platform registered, as a platform module is, for every test here."""
    monkeypatch.setitem(platform_class.PLATFORMS, "fake", FAKE)


def run(argv: list) -> tuple:
    """mark_class.main in this process (so that the fake platform is registered): (status,
    stdout, stderr); the process's umask as it was before."""
    said, errors, umask = io.StringIO(), io.StringIO(), os.umask(0o022)
    os.umask(umask)
    try:
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(errors):
            try:
                status = mark_class.main([str(arg) for arg in argv])
            except SystemExit as stop:
                status = stop.code
    finally:
        os.umask(umask)
    return status, said.getvalue(), errors.getvalue()


def download_of(root: Path) -> Path:
    """The download: zoë (right, on time yet marked late by the platform, an older file), a
    team of three (one zip, 25 hours late), two students named Ann Lee (301 right, on time;
    302 solitaire_1 alone, no time), a stray file, and Dee No, listed with no hand-in."""
    solutions, download = root / "solutions", root / "download"
    write_all(solutions)
    download.mkdir()
    right = {program: (solutions / f"{program}.py").read_bytes()
             for program in ("solitaire_1", "solitaire_2")}
    for prefix in ("zoe_501_", "ann301_"):
        for program, text in right.items():
            (download / f"{prefix}{program}.py").write_bytes(text)
    (download / "zoe_501_solitaire_1-old.py").write_bytes(b"print('draft')\n")
    (download / "ann302_solitaire_1.py").write_bytes(right["solitaire_1"])
    with zipfile.ZipFile(download / "rocket.zip", "w") as archive:
        for program, text in right.items():
            archive.writestr(f"rocket/{program}.py", text)
    (download / "stray.txt").write_text("no one's\n")
    both = {f"{program}.py": f"{{}}{program}.py" for program in right}
    (download / "fake.json").write_text(json.dumps({
        "handins": [
            {"key": "501", "name": ZOE, "members": [["501", ZOE]],
             "files": {name: file.format("zoe_501_") for name, file in both.items()},
             "submitted": "2027-03-08T12:00:00+11:00", "late": True,
             "older": ["zoe_501_solitaire_1-old.py"]},
            {"key": "g7", "name": "Team Rocket",
             "members": [["201", "Ann Tan"], ["202", "Bob O'Neil"], ["203", "Cy Wu"]],
             "files": {"rocket.zip": "rocket.zip"}, "submitted": "2027-03-10T10:00:00+11:00"},
            {"key": "301", "name": "Ann Lee", "members": [["301", "Ann Lee"]],
             "files": {name: file.format("ann301_") for name, file in both.items()},
             "submitted": "2027-03-09T08:00:00+11:00"},
            {"key": "302", "name": "Ann Lee", "members": [["302", "Ann Lee"]],
             "files": {"solitaire_1.py": "ann302_solitaire_1.py"}}],
        "refused": [["stray.txt", "belongs to no student"]],
        "roster": [["501", ZOE], ["201", "Ann Tan"], ["202", "Bob O'Neil"], ["203", "Cy Wu"],
                   ["301", "Ann Lee"], ["302", "Ann Lee"], ["401", "Dee No"]]}),
        encoding="utf-8")
    return download


@pytest.fixture(scope="module")
def marked(tmp_path_factory):
    root = tmp_path_factory.mktemp("platform")
    download = download_of(root)
    assignment = root / "class_test.toml"
    assignment.write_text(ASSIGNMENT.format(
        visible=json.dumps(VISIBLE), hidden=json.dumps(HIDDEN),
        kit_only_1=others("solitaire_1", VISIBLE + HIDDEN),
        kit_only_2=others("solitaire_2", ["seed_0_full"])), encoding="utf-8")
    out = root / "marked"
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(platform_class.PLATFORMS, "fake", FAKE)
        done = run([download, "--from", "fake", "--assignment", assignment, "--out", out,
                    "--jobs", "2"])
    return root, download, assignment, out, done


def grades(out: Path) -> list:
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return list(csv.reader(file))


def test_each_hand_in_is_a_student_each_member_a_row_and_everyone_listed_a_row(marked):
    """Worked by hand (10 marks: solitaire_1 8, solitaire_2 2; due 2027-03-09 09:00 Sydney,
    10% off the maximum per day late): right and on time, 10; right and 25 hours late, two
    days, capped at 8; solitaire_1 alone, 8, untimed."""
    _, _, _, out, (status, said, errors) = marked
    assert status == 0, errors
    assert errors.splitlines()[0] == "read as a Fake download"
    header, *rows = grades(out)
    assert header == GRADE_COLUMNS
    pages = {row[0]: row[10] for row in rows}
    team = pages["Ann Tan"]
    team_note = "the mark of Team Rocket, shared by its members"
    assert rows == [
        ["Ann Lee (301)", "8.00", "2.00", "10.00", "0", "10.00", "marked", "5/5", "", "301",
         pages["Ann Lee (301)"]],
        ["Ann Lee (302)", "8.00", "0.00", "8.00", "", "8.00",
         "missing program; no submission time", "4/4", rows[1][8], "302",
         pages["Ann Lee (302)"]],
        ["Ann Tan", "8.00", "2.00", "10.00", "2", "8.00", "marked", "5/5", team_note, "201", team],
        ["Bob O'Neil", "8.00", "2.00", "10.00", "2", "8.00", "marked", "5/5", team_note, "202",
         team],
        ["Cy Wu", "8.00", "2.00", "10.00", "2", "8.00", "marked", "5/5", team_note, "203", team],
        ["Dee No", "0.00", "0.00", "0.00", "", "0.00", "no submission", "", "", "401", ""],
        ["stray.txt", "0.00", "0.00", "0.00", "", "0.00", "refused", "", "belongs to no student",
         "", "students/stray.txt"],
        [ZOE_SHOWN, "8.00", "2.00", "10.00", "0", "10.00", "marked", "5/5",
         "handed in again: the newest is marked, not zoe_501_solitaire_1-old.py; "
         "Fake marks "
         "this hand-in late, yet its time is before the deadline", "501", pages[ZOE_SHOWN]]]
    assert rows[1][8].endswith("; Fake gives no submission time for this hand-in: marked "
                               "without the late rule"), rows[1][8]
    assert len({pages["Ann Lee (301)"], pages["Ann Lee (302)"], team, pages[ZOE_SHOWN]}) == 4
    for name in ("Ann Lee (301)", "Ann Lee (302)", ZOE_SHOWN):
        assert f"Student: {name}\n" in (out / pages[name] / "feedback.txt").read_text("utf-8")


def test_a_team_s_page_names_its_members(marked):
    _, _, _, out, _ = marked
    page = (out / grades(out)[3][10] / "feedback.txt").read_text(encoding="utf-8")
    assert page.splitlines()[1:3] == [
        "Student: Team Rocket",
        "Team: a team of Ann Tan (201), Bob O'Neil (202), Cy Wu (203): each gets this mark"]


def test_the_summary_names_who_the_platform_lists_with_no_submission(marked):
    _, _, _, out, _ = marked
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert ("<p>1 student listed by the platform handed nothing in (0 in grades.csv, not counted "
            "in the mean or the chart): Dee No.</p>") in summary


def test_the_marks_go_back_one_per_person_with_the_status_the_late_rule_and_the_page(marked):
    _, _, _, out, (_, said, _) = marked
    back = json.loads((out / "fake-grades.json").read_text(encoding="utf-8"))
    assert said.rstrip().endswith(f"; and {out / 'fake-grades.json'}, the marks in Fake's "
                                  "import format")
    assert back["assignment"] == "class_test"
    assert back["expected"] == ["solitaire_1.py", "solitaire_2.py"]
    pages = {row[9]: row[10] for row in grades(out)[1:]}
    late = ("submitted 25 hours after the deadline: 2 days late (more than 24, at most 48 "
            "hours); the mark is capped at 8.00 of 10.00")
    assert back["returned"] == [
        ["301", 10.0, 10.0, f"marked; on time; {pages['301']}/feedback.html"],
        ["302", 8.0, 10.0, f"missing program; no submission time; {pages['302']}/feedback.html"],
        *[[member, 8.0, 10.0, f"marked; {late}; {pages[member]}/feedback.html"]
          for member in ("201", "202", "203")],
        ["401", 0.0, 10.0, "no submission"],
        ["501", 10.0, 10.0, f"marked; on time; {pages['501']}/feedback.html"]]


def test_the_download_zipped_is_detected_and_a_second_run_keeps_every_hand_in(marked, tmp_path):
    """The zip as the platform gives it, without --from: unpacked in the run's scratch
    folder, recognised by the one platform that knows it; nothing changed, nothing marked."""
    _, download, assignment, out, _ = marked
    before = (out / "grades.csv").read_bytes()
    zipped = tmp_path / "submissions.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for path in sorted(download.iterdir()):
            archive.write(path, path.name)
    status, _, errors = run([zipped, "--assignment", assignment, "--out", out, "--jobs", "2"])
    assert status == 0, errors
    assert errors.splitlines()[0] == "read as a Fake download (detected): --from fake to say so"
    assert "4 student(s) unchanged since the last run" in errors
    assert (out / "grades.csv").read_bytes() == before


def test_a_download_zipped_again_in_a_folder_of_its_own_is_read_inside_it(marked, tmp_path):
    """Windows' "Compressed folder" of the unpacked download, as a Mac zips it (with
    __MACOSX beside): the one folder is stepped into, with --from and without."""
    _, download, assignment, out, _ = marked
    before = (out / "grades.csv").read_bytes()
    zipped = tmp_path / "Assignment 1 Submissions.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for path in sorted(download.iterdir()):
            archive.write(path, f"Assignment 1 Submissions/{path.name}")
        archive.writestr("__MACOSX/Assignment 1 Submissions/._fake.json", b"\0")
    for given in ([], ["--from", "fake"]):
        status, _, errors = run([zipped, *given, "--assignment", assignment, "--out", out])
        assert status == 0, errors
        assert "4 student(s) unchanged since the last run" in errors
        assert (out / "grades.csv").read_bytes() == before


def test_no_sheet_back_is_said_and_one_the_platform_cannot_take_fails_the_run(marked,
                                                                              monkeypatch):
    """Moodle without its worksheet writes nothing back: a warning; a sheet the platform
    would take wrongly (another maximum) is refused: a line and status 2, grades.csv kept."""
    from tests import platform_fake

    _, download, assignment, out, _ = marked
    again = [download, "--from", "fake", "--assignment", assignment, "--out", out, "--jobs", "2"]
    monkeypatch.setattr(platform_fake, "write_back", lambda *given: None)
    monkeypatch.setattr(platform_fake, "NOT_WRITTEN", "fake-grades.json needs the fake's sheet")
    status, _, errors = run(again)
    assert (status, errors.splitlines()[-1]) == (
        0, "warning: fake-grades.json needs the fake's sheet"), errors

    def refused(*given):
        raise ValueError("the fake's maximum is 20, the kit marks out of 10")

    monkeypatch.setattr(platform_fake, "write_back", refused)
    status, said, errors = run(again)
    assert (status, errors.splitlines()[-1]) == (
        2, "exactmark class: error: no marks written back for Fake: the fake's maximum is 20, "
           "the kit marks out of 10"), errors
    assert "Wrote " in said and (out / "grades.csv").is_file()


def test_from_a_platform_whose_download_it_is_not_is_said_in_one_line(tmp_path):
    (tmp_path / "class" / "ann").mkdir(parents=True)
    status, _, errors = run([tmp_path / "class", "--from", "fake", "--assignment", "seeded",
                             "--out", tmp_path / "out"])
    assert status == 2
    assert errors.splitlines() == [
        f"exactmark class: error: {tmp_path / 'class'} does not look like a Fake download "
        "(fake.json): give the download as it came"], errors  # one line: no usage, which was not wrong
    assert not (tmp_path / "out").exists()


def test_from_a_platform_whose_download_it_is_not_says_whose_it_looks_like(tmp_path):
    (tmp_path / "submission_metadata.yml").write_text("{}\n")
    with pytest.raises(ValueError) as said:
        platform_class.take(options(tmp_path, platform="canvas"), None, tmp_path / "scratch")
    assert str(said.value).endswith("give the download as it came; it looks like a Gradescope "
                                    "download"), said.value


def test_a_late_hand_in_with_no_time_is_warned_of_before_marking(tmp_path, monkeypatch):
    """Canvas's LATE with neither its API nor --times: the mark going back would be full."""
    monkeypatch.setattr(platform_class, "PLATFORMS", {"fake": FAKE})
    download = tmp_path / "download"
    download.mkdir()
    (download / "fake.json").write_text(json.dumps({
        "handins": [{"key": "7", "name": "Al Bo", "members": [["7", "Al Bo"]], "files": {},
                     "late": True}], "refused": [], "roster": []}), encoding="utf-8")
    status, _, errors = run([download, "--from", "fake", "--assignment", "seeded", "--out",
                             tmp_path / "out", "--jobs", "1"])
    assert status == 0, errors
    assert ("warning: Fake marks 1 of them late, and the late rule cannot apply without their "
            "times: give them before uploading the marks back, or a late student's full mark "
            "goes back: Al Bo") in errors.splitlines(), errors


def test_a_download_that_is_not_there_is_said_so(tmp_path):
    status, _, errors = run([tmp_path / "submissions.zip", "--assignment", "seeded", "--out",
                             tmp_path / "out"])
    assert (status, errors.splitlines()) == (
        2, [f"exactmark class: error: {tmp_path / 'submissions.zip'}: no such file or folder"])


def options(submissions: Path, **given) -> argparse.Namespace:
    return argparse.Namespace(**{"submissions": submissions, "platform": None, "worksheet": None,
                                 "roster": None, "canvas_url": None, "canvas_course": None,
                                 "canvas_assignment": None, **given})


def test_a_class_folder_no_platform_recognises_is_a_class_folder(tmp_path):
    (tmp_path / "ann").mkdir()
    assert platform_class.take(options(tmp_path), None, tmp_path / "scratch") is None


def test_a_folder_two_platforms_recognise_is_a_class_folder_and_said_so(monkeypatch, tmp_path):
    monkeypatch.setitem(platform_class.PLATFORMS, "other", FAKE._replace(label="Other"))
    (tmp_path / "fake.json").write_text("{}")
    with pytest.raises(platform_class.Ambiguous) as said:
        platform_class.take(options(tmp_path), None, tmp_path / "scratch")
    assert "looks like a download of Fake and Other: read as a class folder" in str(said.value)


@pytest.mark.parametrize("given, said", [
    ({"worksheet": Path("w.csv")}, "--worksheet needs a platform's download"),
    ({"canvas_url": "https://canvas.example"}, "with --canvas-assignment: give all three"),
    ({"canvas_assignment": "77"}, "--canvas-assignment needs a platform's download"),
])
def test_a_platform_s_option_without_its_download_is_refused(tmp_path, given, said):
    (tmp_path / "ann").mkdir()
    with pytest.raises(ValueError, match=said):
        platform_class.take(options(tmp_path, **given), None, tmp_path / "scratch")


def test_the_canvas_assignment_alone_names_the_sheet_s_column_and_asks_no_api():
    platform_class.check_options(options(Path("d"), canvas_assignment="77"), "canvas")
    with pytest.raises(ValueError, match="--canvas-assignment is for a Canvas download"):
        platform_class.check_options(options(Path("d"), canvas_assignment="77"), "moodle")


def test_a_moodle_worksheet_with_another_platform_s_download_is_refused():
    with pytest.raises(ValueError, match="--worksheet is Moodle's grading worksheet, for a Moodle "
                                         "download"):
        platform_class.check_options(options(Path("d"), worksheet=Path("w.csv")), "canvas")


def test_a_class_zip_that_holds_a_link_is_refused_in_one_line_before_any_marking(tmp_path):
    zipped = tmp_path / "submissions.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        link = zipfile.ZipInfo("fake.json")
        link.external_attr = (0o120777) << 16  # a symbolic link, as Info-ZIP stores one
        archive.writestr(link, "/etc/passwd")
    (tmp_path / "scratch").mkdir()
    with pytest.raises(ValueError) as said:
        platform_class.take(options(zipped), None, tmp_path / "scratch")
    assert str(said.value) == (f"{zipped}: member 'fake.json' is a symbolic link: a submission "
                               "holds plain files and folders")
    assert not any((tmp_path / "scratch").iterdir())


def test_canvas_times_come_from_its_api_module_as_called_here(monkeypatch, tmp_path):
    """The call the Canvas helper's module answers: fetch(url, course, assignment), then
    with_times(download, fetched); the token is its business (CANVAS_TOKEN), never an option."""
    calls = []
    api = types.ModuleType("fake_canvas_api")
    api.fetch = lambda url, course, assignment: calls.append((url, course, assignment)) or "fetched"
    api.with_times = lambda download, fetched, marks: calls.append(fetched) or dataclasses.replace(
        download, handins=[dataclasses.replace(handin, submitted=DEADLINE)
                           for handin in download.handins])
    monkeypatch.setitem(sys.modules, "fake_canvas_api", api)
    monkeypatch.setattr(platform_class, "CANVAS_API", "fake_canvas_api")
    monkeypatch.setitem(platform_class.PLATFORMS, "canvas", FAKE._replace(label="Canvas"))
    (tmp_path / "fake.json").write_text(json.dumps({"handins": [
        {"key": "1", "name": "Al", "members": [["1", "Al"]], "files": {}}],
        "refused": [], "roster": []}))
    found = platform_class.take(options(tmp_path, platform="canvas",
                                        canvas_url="https://canvas.example", canvas_course="7",
                                        canvas_assignment="42"),
                                load("seeded"), tmp_path / "scratch")
    assert calls == [("https://canvas.example", "7", "42"), "fetched"]
    assert [handin.submitted for handin in found.handins] == [DEADLINE]
    assert found.context.platform_assignment == "42"


# Teams from a roster file, times, and the copy of a hand-in, without marking.

def handin(key: str, name: str, files: dict = None, submitted: datetime = None, late=None):
    return Handin(key, name, [Person(key, name)], files or {}, submitted, late)


def taken(*handins, roster=(), teams=None) -> platform_class.Taken:
    download = Download("fake", list(handins), roster=list(roster))
    return platform_class.Taken("fake", None, download, None, "", list(roster),
                                platform_class.teamed(download, teams or {}))


def test_a_roster_file_makes_a_team_s_latest_hand_in_everyone_s(tmp_path):
    """Excel's "CSV UTF-8" (a byte-order mark), `;` as a French locale separates."""
    roster = tmp_path / "roster.csv"
    roster.write_bytes("\ufeffStudent;ID;Email;Team\nAnn Tan;201;ann@x;Rocket\n"
                       "Bob O'Neil;202;;Rocket\nCy Wu;203;;Rocket\nDee No;401;;Solo\n"
                       .encode("utf-8"))
    teams = platform_class.read_teams(roster)
    assert [person.id for person in teams["Rocket"]] == ["201", "202", "203"]
    early = handin("201", "Ann Tan", submitted=datetime(2027, 3, 8, tzinfo=SYDNEY))
    late = handin("202", "Bob O'Neil", submitted=datetime(2027, 3, 10, tzinfo=SYDNEY))
    alone = handin("501", "Zoë")
    (team, single) = sorted(platform_class.teamed(Download("fake", [early, alone, late]), teams),
                            key=lambda found: found.name)
    assert (team.name, team.key, team.submitted) == ("Rocket", "202", late.submitted)
    assert [person.name for person in team.members] == ["Ann Tan", "Bob O'Neil", "Cy Wu"]
    assert team.notes == ["team Rocket: handed in by Bob O'Neil",
                          "team Rocket: also handed in by Ann Tan, replaced by the latest"]
    assert single is alone


def test_a_roster_file_without_the_team_column_is_refused_in_one_line(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,id\nAnn,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a CSV with the columns student, id and team"):
        platform_class.read_teams(roster)


@pytest.mark.parametrize("body, said", [
    ("student;id;team\nAnn;;Red\n", "line 2: no id on this row"),
    ("student,id,team\nAnn,1,Red\nBo,2,\"" + "x" * 200_000 + "\"\n",
     "line 3: a cell longer than any name or time"),
    ("student,id,team\nAnn,1,Red\nAnn,1,Blue\n", "line 3: 1 is already in team Red"),
], ids=["a cell missing", "a cell past csv's limit", "a student twice"])
def test_a_roster_file_that_cannot_be_read_whole_says_where(tmp_path, body, said):
    """Read as the times file is (instructor_csv): Excel's `;` too, and one line, never a
    traceback."""
    roster = tmp_path / "roster.csv"
    roster.write_text(body, encoding="utf-8-sig")
    with pytest.raises(ValueError) as refused:
        platform_class.read_teams(roster)
    assert str(refused.value).startswith(f"{roster}, {said}"), refused.value


def test_a_times_file_wins_matched_by_the_platform_id_then_by_name():
    """301 by id, Bea by name (the file's time wins over the platform's); Cy in neither; a
    name the class does not have is said."""
    platform_time = datetime(2027, 3, 8, tzinfo=SYDNEY)
    by_id, by_name = datetime(2027, 3, 10, tzinfo=SYDNEY), datetime(2027, 3, 11, tzinfo=SYDNEY)
    times = {"301": Timed("301", by_id), "bea": Timed("Bea", by_name),
             "nobody": Timed("Nobody", by_id)}
    students, unknown = platform_class.students_of(
        taken(handin("301", "Al"), handin("302", "Bea", submitted=platform_time),
              handin("303", "Cy", submitted=platform_time, late=True)),
        Path("download.zip"), times, DEADLINE)
    assert [(s.name, s.id, s.submitted, s.untimed) for s in students] == [
        ("Al", "301", by_id, False), ("Bea", "302", by_name, False),
        ("Cy", "303", platform_time, False)]
    assert students[2].notes == ["Fake marks this hand-in late, yet its time is before the "
                                 "deadline"]
    assert unknown == ["Nobody"]


def test_a_hand_in_without_a_time_where_the_platform_gives_times_is_untimed():
    students, _ = platform_class.students_of(
        taken(handin("1", "Al", submitted=DEADLINE), handin("2", "Bo")), Path("d"), None, DEADLINE)
    assert [(s.untimed, s.untimed_note) for s in students] == [
        (False, ""), (True, "Fake gives no submission time for this hand-in: marked without "
                            "the late rule")]


def test_without_the_platform_s_times_each_hand_in_is_untimed_and_says_where_they_are():
    """A Canvas download without its API's times: the LATE in a file's name is all there is,
    and a row without it says where the times would come from."""
    students, _ = platform_class.students_of(
        taken(handin("1", "Al", late=True), handin("2", "Bo")), Path("d"), None, DEADLINE)
    assert [(s.untimed, s.untimed_note) for s in students] == [
        (True, "Fake marks this hand-in late, and no time for it is given (the platform's, or "
               "--times): marked without the late rule"),
        (True, "no hand-in has a submission time: the fake keeps them in fake.json, or --times; "
               "marked without the late rule")]


def test_without_a_deadline_the_platform_s_times_are_not_used():
    """calculation has no deadline: a platform's times would otherwise refuse every student
    (the marker's --submitted needs a deadline)."""
    students, _ = platform_class.students_of(
        taken(handin("1", "Al", submitted=DEADLINE, late=True), handin("2", "Bo")), Path("d"),
        None, None)
    assert [(s.submitted, s.untimed, s.notes) for s in students] == [
        (None, False, []), (None, False, [])]


def test_a_hand_in_s_files_are_copied_under_the_platform_s_names(tmp_path):
    (tmp_path / "a_1_solitaire_1.py").write_text("one")
    (tmp_path / "a_1_notes.txt").write_text("two")
    student = platform_class.students_of(taken(handin("1", "Al", {
        "solitaire_1.py": tmp_path / "a_1_solitaire_1.py",
        "docs/notes.txt": tmp_path / "a_1_notes.txt",
        ".hidden": tmp_path / "a_1_notes.txt"})), tmp_path, None, None)[0][0]
    platform_class.copy_handin(student, tmp_path / "copy", Limits())
    assert sorted(str(path.relative_to(tmp_path / "copy")) for path in
                  (tmp_path / "copy").rglob("*")) == ["docs", "docs/notes.txt", "solitaire_1.py"]
    assert (tmp_path / "copy" / "solitaire_1.py").read_text() == "one"


@pytest.mark.parametrize("files, said", [
    ({"../up.py": "a"}, "not a plain path below the submission"),
    ({"/abs.py": "a"}, "not a plain path below the submission"),
    ({"x": "a", "x/y.py": "a"}, "twice, or as a file and a folder"),
    ({"link.py": "link"}, "cannot be copied from the download"),
])
def test_a_hand_in_whose_files_cannot_be_copied_as_named_is_refused(tmp_path, files, said):
    (tmp_path / "a").write_text("a")
    (tmp_path / "link").symlink_to(tmp_path / "a")
    student = platform_class.students_of(taken(handin("1", "Al", {
        name: tmp_path / file for name, file in files.items()})), tmp_path, None, None)[0][0]
    with pytest.raises(Refused, match=said):
        platform_class.copy_handin(student, tmp_path / "copy", Limits())


def test_a_hand_in_past_the_limits_is_refused(tmp_path):
    (tmp_path / "a").write_text("a" * 10)
    student = platform_class.students_of(taken(handin("1", "Al", {
        "a.py": tmp_path / "a", "b.py": tmp_path / "a"})), tmp_path, None, None)[0][0]
    with pytest.raises(Refused, match="more than 0 MiB"):
        platform_class.copy_handin(student, tmp_path / "copy", Limits(bytes=15))


def test_a_row_for_no_submission_scores_nothing():
    """The sheet says a marker error's mark as "not marked"; a no-submission row scores 0."""
    pairs = platform_class.member_rows(taken(roster=[Person("9", "Dee")]), [], [], ["p"])
    assert [(person.id, row.student, row.mark, row.status) for person, row in pairs] == [
        ("9", "Dee", 0, sheet.NO_SUBMISSION)]
