"""A course's round trip, end to end: a class's download as each platform gives it, marked
with `python -m exactmark class DOWNLOAD --from PLATFORM` as a user runs it, and grades.csv,
canvas-grades.csv and moodle-worksheet.csv read back cell by cell against marks worked out
by hand below.

Every download is built by the builders in tests/platforms/ from the platform's documented
naming, never by the code under test:
  - Canvas: tests/platforms/canvas_download.py, from lib/content_zipper.rb (instructure/
    canvas-lms, commit 05e9653c12ef7afc65815ca84e5da7aa2e4c3bd3). A group assignment's zip
    holds one submission per group, its representative's (zip_assignment:
    assignment.representatives), named from the group's name ("pulling out of this hash to get
    group names for group assignments", get_user_name); its members come from the API's
    submissions, include[]=group. The API is tests/platforms/canvas_server.py on 127.0.0.1.
  - Moodle: tests/platforms/moodle_download.py, from mod/assign/classes/downloader.php (commit
    da5455238d1a24a0246b11f4b682b73664993c0b) and the worksheet from mod/assign/gradingtable.php
    (commit 1494620bfbb33538251bc1a222027f665b7da2ea).
  - Gradescope: tests/platforms/gradescope_download.py, the export's layout as
    exactmark/platforms/gradescope_export.py cites it.

The class (the same people on every platform, each with the platform's own ids), from the
sample solutions (exactmark.kit.bundle.write_all) and tests/wrong/ variants applied by
exactmark.kit.variants. The assignment is tests/test_mark_class.py's: 10 marks (solitaire_1:
seed_0 and seed_27 shown, 2 marks each; seed_43 and seed_705 kept back, 2 each; solitaire_2:
seed_0_full, 2), due 2027-03-09 09:00 Sydney, 10% of the 10 marks off the maximum per day late
(any part of a day a day), up to 5 days. Worked by hand:

  Zoë Martin (her name decomposed, as a Mac types it; composed on Moodle's Windows zip, which
      cannot hold a combining mark in cp437): right, on time: 8 + 2 = 10.
  José Núñez: eigth_misspelt, which fails seed_27 alone (the only case with an eighth stack):
      6 + 2 = 8, 4/5 cases.
  Seán O'Brien: right, 25 hours late: 2 days, the maximum 10 * (1 - 2 * 0.1) = 8:
      min(10, 8) = 8.
  Ann Lee and Ann Lee (two ids): the first right, 10; the second nineth_misspelt, which fails
      seed_705 alone (the only case with a ninth stack): 6 + 2 = 8, 4/5.
  Al McDonald and Al Mcdonald (names that differ only in case): right, 10; and
      eigth_misspelt with solitaire_2's first_round_not_announced (it fails seed_0_full):
      6 + 0 = 6, 3/5.
  Mary Ann de la Cruz (spaces), with a notes file named with a space: right, 10.
  Rick Roe: a resubmission: eigth_misspelt first, then right: the right one is marked, 10.
  Team Red (Ann Tan, Bob O'Neil, Cy Wu): right, 12 hours late: 1 day, the maximum
      10 * (1 - 0.1) = 9: min(10, 9) = 9, on each member's row.
  Dee No: listed by the platform, nothing handed in: 0, "no submission".
"""

import csv
import io
import json
import os
import struct
import subprocess
import sys
import unicodedata
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from exactmark.kit.bundle import write_all
from exactmark.kit.cases import ROOT
from exactmark.kit.variants import read_variant
from tests.platforms import canvas_download as cd
from tests.platforms import canvas_server
from tests.platforms import gradescope_download as gd
from tests.platforms import moodle_download as md
from tests.test_mark_class import ASSIGNMENT, HIDDEN, VISIBLE, others

SYDNEY = ZoneInfo("Australia/Sydney")
DEADLINE = datetime(2027, 3, 9, 9, tzinfo=SYDNEY)
ON_TIME = DEADLINE - timedelta(hours=13)
LATE_1_DAY = DEADLINE + timedelta(hours=12)
LATE_2_DAYS = DEADLINE + timedelta(hours=25)
ZOE = unicodedata.normalize("NFD", "Zoë Martin")
ZOE_SHOWN = "Zoë Martin"  # composed: how the sheet shows it
TEAM = "Team Red"
SHARED = "the mark of Team Red, shared by its members"

# The late rule's line on a row handed back, as the handout says it.
ON_TIME_SAID = "on time"
ONE_DAY_SAID = ("submitted 12 hours after the deadline: 1 day late (at most 24 hours); "
                "the mark is capped at 9.00 of 10.00")
TWO_DAYS_SAID = ("submitted 25 hours after the deadline: 2 days late (more than 24, at most "
                 "48 hours); the mark is capped at 8.00 of 10.00")

# What each student's programs earn, worked out in the module's docstring:
# (solitaire_1, solitaire_2, raw total, days late, mark, status, cases passed).
RIGHT = ("8.00", "2.00", "10.00", "0", "10.00", "marked", "5/5")
EIGTH = ("6.00", "2.00", "8.00", "0", "8.00", "marked", "4/5")
TWO_DAYS_LATE = ("8.00", "2.00", "10.00", "2", "8.00", "marked", "5/5")
NINETH = EIGTH
EIGTH_AND_NO_GAME = ("6.00", "0.00", "6.00", "0", "6.00", "marked", "3/5")
TEAM_ROW = ("8.00", "2.00", "10.00", "1", "9.00", "marked", "5/5")
NOTHING = ("0.00", "0.00", "0.00", "", "0.00", "no submission", "")
COLUMNS = ("solitaire_1", "solitaire_2", "raw total", "days late", "mark", "status",
           "cases passed")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The assignment file and each program a student hands in: {kind: {file: bytes}}."""
    root = tmp_path_factory.mktemp("course")
    solutions = root / "solutions"
    write_all(solutions)
    right = {name: (solutions / name).read_text(encoding="utf-8")
             for name in ("solitaire_1.py", "solitaire_2.py")}

    def wrong(program: str, variant: str) -> str:
        changed = read_variant(ROOT / "tests" / "wrong" / program / f"{variant}.toml")
        return changed.applied_to({f"{program}.py": right[f"{program}.py"]})[f"{program}.py"]

    def handed(solitaire_1: str, solitaire_2: str, **more) -> dict:
        return {"solitaire_1.py": solitaire_1.encode(), "solitaire_2.py": solitaire_2.encode(),
                **more}

    eigth = wrong("solitaire_1", "eigth_misspelt")
    kinds = {"right": handed(right["solitaire_1.py"], right["solitaire_2.py"]),
             "eigth": handed(eigth, right["solitaire_2.py"]),
             "nineth": handed(wrong("solitaire_1", "nineth_misspelt"), right["solitaire_2.py"]),
             "eigth, no game": handed(eigth, wrong("solitaire_2", "first_round_not_announced")),
             "right, notes": handed(right["solitaire_1.py"], right["solitaire_2.py"],
                                    **{"my notes.txt": b"Mary Ann's notes\n"})}
    assignment = root / "class_test.toml"
    assignment.write_text(ASSIGNMENT.format(
        visible=json.dumps(VISIBLE), hidden=json.dumps(HIDDEN),
        kit_only_1=others("solitaire_1", VISIBLE + HIDDEN),
        kit_only_2=others("solitaire_2", ["seed_0_full"])), encoding="utf-8")
    return root, assignment, kinds


def mark(download: Path, assignment: Path, out: Path, *options, token: str = None):
    """`python -m exactmark class` as a user runs it; CANVAS_TOKEN only when given."""
    environ = {name: value for name, value in os.environ.items() if name != "CANVAS_TOKEN"}
    if token is not None:
        environ["CANVAS_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "exactmark", "class", str(download),
                           "--assignment", str(assignment), "--out", str(out), "--jobs", "2",
                           *map(str, options)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=environ)


def grades(out: Path) -> dict:
    """grades.csv: {(student, id): row}."""
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return {(row["student"], row["id"]): row for row in csv.DictReader(file)}


def differences(rows: dict, expected: dict) -> list:
    """Each cell of grades.csv that is not the mark worked out by hand, said with its student
    and column; and any row expected and missing, or there and not expected."""
    said = [f"{student} ({id_}): no row in grades.csv" for student, id_ in expected
            if (student, id_) not in rows]
    said += [f"{student} ({id_}): a row not expected: {rows[student, id_]}"
             for student, id_ in rows if (student, id_) not in expected]
    for key, cells in expected.items():
        row = rows.get(key)
        for column, want in zip(COLUMNS, cells) if row else ():
            if row[column] != want:
                said.append(f"{key[0]} ({key[1]}): {column} is {row[column]!r}, worked out "
                            f"{want!r}")
    return said


def pages_of(rows: dict) -> dict:
    return {key: row["page"] for key, row in rows.items()}


def comment(status_and_late: str, page: str) -> str:
    """A comment handed back: the status, the late rule's line, the student's page."""
    return f"{status_and_late}; {page}/feedback.html"


def attached(status_and_late: str) -> str:
    """A comment handed back with the student's page in moodle-feedback.zip."""
    return f"{status_and_late}; your feedback page is attached as a feedback file (feedback.html)"


# Canvas: the zip as "Download Submissions" gives it, the times, roster and group from the
# API (a server error on the first request, then answers), marks back in canvas-grades.csv.

CANVAS_IDS = {"ann": 104, "ann2": 105, "zoe": 101, "al": 106, "al2": 107, "dee": 113,
              "jose": 102, "sean": 103, "bob": 111, "rick": 109, "tan": 110, "cy": 112,
              "mary": 108}


def canvas_user(key: str, name: str, sortable: str, section: int = 1) -> dict:
    number = CANVAS_IDS[key]
    return {"id": number, "name": name, "sortable_name": sortable,
            "sis_user_id": f"S{number}", "login_id": f"{key}@example.edu",
            "email": f"{key}@example.edu", "enrollments": [{"course_section_id": section}]}


# In Canvas's order (its sortable names), as its users list gives them.
CANVAS_USERS = [
    canvas_user("mary", "Mary Ann de la Cruz", "de la Cruz, Mary Ann"),
    canvas_user("ann", "Ann Lee", "Lee, Ann"),
    canvas_user("ann2", "Ann Lee", "Lee, Ann", section=2),
    canvas_user("zoe", ZOE, unicodedata.normalize("NFD", "Martin, Zoë")),
    canvas_user("al", "Al McDonald", "McDonald, Al"),
    canvas_user("al2", "Al Mcdonald", "Mcdonald, Al", section=2),
    canvas_user("dee", "Dee No", "No, Dee"),
    canvas_user("jose", "José Núñez", "Núñez, José"),
    canvas_user("sean", "Seán O'Brien", "O'Brien, Seán"),
    canvas_user("bob", "Bob O'Neil", "O'Neil, Bob"),
    canvas_user("rick", "Rick Roe", "Roe, Rick"),
    canvas_user("tan", "Ann Tan", "Tan, Ann"),
    canvas_user("cy", "Cy Wu", "Wu, Cy"),
]
CANVAS_TIMES = {"mary": ON_TIME, "ann": ON_TIME, "ann2": ON_TIME, "zoe": ON_TIME,
                "al": ON_TIME, "al2": ON_TIME, "jose": ON_TIME, "sean": LATE_2_DAYS,
                "rick": ON_TIME, "bob": LATE_1_DAY, "tan": LATE_1_DAY, "cy": LATE_1_DAY}
CANVAS_TEAM = ("tan", "bob", "cy")


def canvas_submission(user: dict) -> dict:
    """The API's submission of a user (include[]=user, include[]=group): its time in UTC as
    Canvas gives it, its late flag, and the group (none: id and name null)."""
    key = next(key for key, number in CANVAS_IDS.items() if number == user["id"])
    when = CANVAS_TIMES.get(key)
    return {"user_id": user["id"], "user": user, "attempt": 2 if key == "rick" else 1,
            "submitted_at": when and when.astimezone(timezone.utc).strftime(
                "%Y-%m-%dT%H:%M:%SZ"),
            "late": bool(when and when > DEADLINE),
            "group": {"id": 40, "name": TEAM} if key in CANVAS_TEAM else
            {"id": None, "name": None}}


def canvas_submitters(kinds: dict) -> list:
    def files(kind: str, first: int) -> list:
        return [(first + place, name, data) for place, (name, data) in
                enumerate(sorted(kinds[kind].items()))]

    rick_first, rick = kinds["eigth"], kinds["right"]
    return [
        cd.Submitter("de la Cruz, Mary Ann", 108, files=files("right, notes", 500)),
        cd.Submitter("Lee, Ann", 104, files=files("right", 510)),
        cd.Submitter("Lee, Ann", 105, files=files("nineth", 520)),
        cd.Submitter(unicodedata.normalize("NFD", "Martin, Zoë"), 101, files=files("right", 530)),
        cd.Submitter("McDonald, Al", 106, files=files("right", 540)),
        cd.Submitter("Mcdonald, Al", 107, files=files("eigth, no game", 550)),
        cd.Submitter("Núñez, José", 102, files=files("eigth", 560)),
        cd.Submitter("O'Brien, Seán", 103, late=True, files=files("right", 570)),
        # Rick uploaded solitaire_1.py twice: Canvas stored the second as "solitaire_1-1.py"
        cd.Submitter("Roe, Rick", 109, files=[
            (580, "solitaire_1.py", rick_first["solitaire_1.py"]),
            (581, "solitaire_2.py", rick["solitaire_2.py"]),
            (590, "solitaire_1-1.py", rick["solitaire_1.py"])]),
        # the group's one submission, its representative's (Ann Tan), named from the group
        cd.Submitter(TEAM, 110, late=True, files=files("right", 600)),
    ]


CANVAS_EXPECTED = {
    ("Al McDonald (106)", "106"): RIGHT,
    ("Al Mcdonald (107)", "107"): EIGTH_AND_NO_GAME,
    ("Ann Lee (104)", "104"): RIGHT,
    ("Ann Lee (105)", "105"): NINETH,
    ("Ann Tan", "110"): TEAM_ROW,
    ("Bob O'Neil", "111"): TEAM_ROW,
    ("Cy Wu", "112"): TEAM_ROW,
    ("Dee No", "113"): NOTHING,
    ("José Núñez", "102"): EIGTH,
    ("Mary Ann de la Cruz", "108"): RIGHT,
    ("Rick Roe", "109"): RIGHT,
    ("Seán O'Brien", "103"): TWO_DAYS_LATE,
    (ZOE_SHOWN, "101"): RIGHT,
}


@pytest.fixture(scope="module")
def canvas_marked(course):
    root, assignment, kinds = course
    download = cd.write_zip(root / "canvas-submissions.zip", canvas_submitters(kinds))
    server = canvas_server.start(CANVAS_USERS, [canvas_submission(u) for u in CANVAS_USERS],
                                 {"name": "Solitaires", "points_possible": 10.0})
    server.failures = 1  # a server error first: tried again, then answered
    try:
        out = root / "canvas-marked"
        done = mark(download, assignment, out, "--from", "canvas",
                    "--canvas-url", canvas_server.url(server),
                    "--canvas-course", canvas_server.COURSE,
                    "--canvas-assignment", canvas_server.ASSIGNMENT, token=canvas_server.TOKEN)
        yield root, download, assignment, out, done, server
    finally:
        canvas_server.stop(server)


def test_canvas_marks_each_student_as_worked_out_by_hand(canvas_marked):
    *_, out, done, _ = canvas_marked
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "read as a Canvas download", done.stderr
    assert differences(grades(out), CANVAS_EXPECTED) == []


def test_canvas_asked_every_page_and_was_tried_again_after_a_server_error(canvas_marked):
    *_, server = canvas_marked
    course = f"/api/v1/courses/{canvas_server.COURSE}"
    paths = [path for path, _ in server.asked]
    assert paths[:2] == [course, course]  # the 500, then the same request answered
    pages = -(-len(CANVAS_USERS) // canvas_server.PAGE)
    assert paths.count(f"{course}/search_users") == pages
    assert paths.count(f"{course}/assignments/{canvas_server.ASSIGNMENT}/submissions") == pages


def test_canvas_rows_say_the_resubmission_the_team_and_the_two_of_one_name(canvas_marked):
    *_, out, _, _ = canvas_marked
    rows = grades(out)
    rick = rows["Rick Roe", "109"]["note"]
    assert "handed in again: the newest is marked, not roerick_109_580_solitaire_1.py" in rick, \
        rick
    for member in ("Ann Tan", "Bob O'Neil", "Cy Wu"):
        key = (member, str(CANVAS_IDS[{"Ann Tan": "tan", "Bob O'Neil": "bob",
                                        "Cy Wu": "cy"}[member]]))
        assert SHARED in rows[key]["note"], (member, rows[key]["note"])
    team_pages = {rows[member]["page"] for member in rows if rows[member]["mark"] == "9.00"}
    assert len(team_pages) == 1, team_pages  # one page for the team
    page = (out / team_pages.pop() / "feedback.txt").read_text(encoding="utf-8")
    # its members in Canvas's order (the API's submissions, by sortable name)
    assert "Team: a team of Bob O'Neil (111), Ann Tan (110), Cy Wu (112)" in page, page
    distinct = [rows[key]["page"] for key in rows if key[0].startswith(("Ann Lee", "Al Mc"))]
    assert len(set(distinct)) == 4, distinct


def test_canvas_grades_csv_is_the_gradebook_import_with_each_mark(canvas_marked):
    """Canvas's order (the roster's), its identifying columns as the API gave them, the
    assignment's column as title_with_id names it, then each mark worked out by hand."""
    *_, out, _, _ = canvas_marked
    marks = {"mary": "10", "ann": "10", "ann2": "8", "zoe": "10", "al": "10", "al2": "6",
             "dee": "0", "jose": "8", "sean": "8", "bob": "9", "rick": "10", "tan": "9",
             "cy": "9"}
    with open(out / "canvas-grades.csv", newline="", encoding="utf-8") as file:
        header, points, *rows = list(csv.reader(file))
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                      "Solitaires (77)"]
    assert points == ["    Points Possible", "", "", "", "", "10"]
    sections = {1: "Section A", 2: "Section B"}
    expected = [[user["sortable_name"], str(user["id"]), user["sis_user_id"], user["login_id"],
                 sections[user["enrollments"][0]["course_section_id"]],
                 marks[user["login_id"].split("@")[0]]] for user in CANVAS_USERS]
    wrong = [f"{want[0]} ({want[1]}): {column} is {got[place]!r}, worked out {want[place]!r}"
             for got, want in zip(rows, expected)
             for place, column in enumerate(header) if got[place] != want[place]]
    assert wrong == [] and len(rows) == len(expected), (wrong, rows)


def test_canvas_refuses_a_bad_token_in_one_line_that_never_holds_it(canvas_marked, tmp_path):
    root, download, assignment, _, _, server = canvas_marked
    wrong_token = "7~wrong-token-not-to-be-shown"
    done = mark(download, assignment, tmp_path / "out", "--from", "canvas",
                "--canvas-url", canvas_server.url(server), "--canvas-course",
                canvas_server.COURSE, "--canvas-assignment", canvas_server.ASSIGNMENT,
                token=wrong_token)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1].endswith(
        "Canvas refused the token in CANVAS_TOKEN (HTTP 401): it is wrong, expired, or not a "
        "teacher's of this course"), done.stderr
    assert wrong_token not in done.stdout + done.stderr and "wrong-token" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_canvas_token_is_in_no_file_the_run_wrote(canvas_marked):
    *_, out, _, _ = canvas_marked
    written = [path for path in out.rglob("*") if path.is_file()
               if canvas_server.TOKEN.encode() in path.read_bytes()]
    assert written == []


# Moodle: "Download all submissions" in folders, zipped again on Windows (cp437 names, no
# UTF-8 flag, backslashes), with its grading worksheet; then a team submission, flat.

MOODLE_IDS = {"zoe": 2001, "jose": 2002, "sean": 2003, "ann": 2004, "ann2": 2005, "al": 2006,
              "al2": 2007, "mary": 2008, "rick": 2009, "dee": 2013}
# (key, full name, what they handed in, when): Rick's resubmission cannot happen here:
# Moodle's download holds each participant's latest attempt only (downloader.php,
# get_student_submission: get_user_submission($student->id, false), whose attempt number
# defaults to the latest).
MOODLE_CLASS = [
    ("zoe", "Zoë Martin", "right", ON_TIME),
    ("jose", "José Núñez", "eigth", ON_TIME),
    ("sean", "Seán O'Brien", "right", LATE_2_DAYS),
    ("ann", "Ann Lee", "right", ON_TIME),
    ("ann2", "Ann Lee", "nineth", ON_TIME),
    ("al", "Al McDonald", "right", ON_TIME),
    ("al2", "Al Mcdonald", "eigth, no game", ON_TIME),
    ("mary", "Mary Ann de la Cruz", "right, notes", ON_TIME),
    ("rick", "Rick Roe", "right", ON_TIME),
    ("dee", "Dee No", None, None),
]


def moodle_row(key: str, name: str, when, group: str = None) -> dict:
    number = MOODLE_IDS.get(key) or TEAM_IDS[key]
    row = {"Identifier": f"Participant {number}", "Full name": name,
           "Email address": f"{key}@example.edu",
           "Status": "Submitted for grading" if when else "No submission",
           "Maximum Grade": "10.00", "Grade can be changed": "Yes",
           "Last modified (submission)": md.userdate(when) if when else "-"}
    if group is not None:
        row["Group"] = group
    return row


def windows_zip(path: Path, members: dict) -> Path:
    """A zip as Windows's own tools write one, byte by byte (zipfile would set the UTF-8
    flag on a name it cannot write in cp437, and writes '/'): each name in cp437 with the
    UTF-8 flag (general purpose bit 11) clear, '\\' between folders, a folder's entry of its
    own, MS-DOS attributes (made by MS-DOS: no Unix mode), stored (APPNOTE.TXT 4.3.7, 4.3.12,
    4.3.16)."""
    body, central, count = b"", b"", 0
    folders = sorted({name.rsplit("/", 1)[0] + "/" for name in members if "/" in name})
    for name, data in [*((folder, None) for folder in folders), *members.items()]:
        raw = name.replace("/", "\\").encode("cp437")
        data = data or b""
        crc, size = zlib.crc32(data), len(data)
        attributes = 0x10 if name.endswith("/") else 0x20  # a folder, or an archive's file
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, crc,
                               size, size, len(raw), 0, 0, 0, 0, attributes, len(body)) + raw
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, crc, size, size,
                            len(raw), 0) + raw + data
        count += 1
    path.write_bytes(body + central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count,
                                                  len(central), len(body), 0))
    return path


MOODLE_EXPECTED = {
    ("Al McDonald (2006)", "2006"): RIGHT,
    ("Al Mcdonald (2007)", "2007"): EIGTH_AND_NO_GAME,
    ("Ann Lee (2004)", "2004"): RIGHT,
    ("Ann Lee (2005)", "2005"): NINETH,
    ("Dee No", "2013"): NOTHING,
    ("José Núñez", "2002"): EIGTH,
    ("Mary Ann de la Cruz", "2008"): RIGHT,
    ("Rick Roe", "2009"): RIGHT,
    ("Seán O'Brien", "2003"): TWO_DAYS_LATE,
    (ZOE_SHOWN, "2001"): RIGHT,
}
MOODLE_SAID = {"2001": ("10", ON_TIME_SAID), "2002": ("8", ON_TIME_SAID),
               "2003": ("8", TWO_DAYS_SAID), "2004": ("10", ON_TIME_SAID),
               "2005": ("8", ON_TIME_SAID), "2006": ("10", ON_TIME_SAID),
               "2007": ("6", ON_TIME_SAID), "2008": ("10", ON_TIME_SAID),
               "2009": ("10", ON_TIME_SAID)}


@pytest.fixture(scope="module")
def moodle_marked(course):
    root, assignment, kinds = course
    download = {}
    for key, name, kind, _ in MOODLE_CLASS:
        if kind:
            download.update(md.entries(md.student_prefix(name, MOODLE_IDS[key]), kinds[kind]))
    zipped = windows_zip(root / "moodle-submissions.zip", download)
    worksheet = root / "Grades-Solitaires.csv"
    worksheet.write_bytes(md.worksheet([moodle_row(key, name, when)
                                        for key, name, _, when in MOODLE_CLASS]))
    out = root / "moodle-marked"
    done = mark(zipped, assignment, out, "--from", "moodle", "--worksheet", worksheet)
    return root, zipped, worksheet, out, done


def test_the_windows_zip_is_as_windows_writes_it(moodle_marked):
    """The test's own zip, checked: cp437 names, no UTF-8 flag, backslashes."""
    import zipfile
    _, zipped, *_ = moodle_marked
    with zipfile.ZipFile(zipped) as archive:
        infos = archive.infolist()
    assert all(not info.flag_bits & 0x800 for info in infos)
    names = [info.filename.encode("cp437").decode("cp437") for info in infos]
    assert "Seán OBrien_2003_assignsubmission_file\\solitaire_1.py" in names, names
    assert "Mary Ann de la Cruz_2008_assignsubmission_file\\my notes.txt" in names, names


def test_moodle_marks_each_student_as_worked_out_by_hand(moodle_marked):
    *_, out, done = moodle_marked
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "read as a Moodle download"
    assert differences(grades(out), MOODLE_EXPECTED) == []
    assert done.stdout.splitlines()[-1].endswith(
        f"; and {out / 'moodle-worksheet.csv'}, the marks in Moodle's import format; and "
        f"{out / 'moodle-feedback.zip'}, each student's page for Moodle's 'Upload multiple "
        f"feedback files in a zip'"), done.stdout


def worksheet_rows(path: Path) -> list:
    data = path.read_bytes()
    assert data.startswith(md.BOM), data[:10]
    return list(csv.reader(io.StringIO(data[len(md.BOM):].decode("utf-8"), newline="")))


def test_moodle_worksheet_goes_back_with_each_grade_and_comment(moodle_marked):
    """Every cell as Moodle gave it, but Grade and Feedback comments: the mark worked out
    by hand, and the status, the late rule's line and the student's page."""
    _, _, worksheet, out, _ = moodle_marked
    given = worksheet_rows(worksheet)
    back = worksheet_rows(out / "moodle-worksheet.csv")
    header = given[0]
    grade, comments = header.index("Grade"), header.index("Feedback comments")
    pages = {row["id"]: row["page"] for row in grades(out).values()}
    expected = [header]
    for row in given[1:]:
        number = row[0].removeprefix("Participant ")
        mark_, said = MOODLE_SAID.get(number, ("0", None))
        expected.append([*row[:grade], mark_, *row[grade + 1:comments],
                         attached(f"marked; {said}") if said else "no submission",
                         *row[comments + 1:]])
    wrong = [f"{want[1]} ({want[0]}): {column} is {got[place]!r}, worked out {want[place]!r}"
             for got, want in zip(back, expected)
             for place, column in enumerate(header) if got[place] != want[place]]
    assert wrong == [] and len(back) == len(expected), (wrong, back)
    # moodle-feedback.zip: each page under the folder Moodle's importer gives to its student
    # (mod/assign/feedback/file/importziplib.php, is_valid_filename_for_import, commit
    # 3769c65a97032618f944597d0d827ea2145c7cdc: the first path part "name_id_plugintype_
    # plugin[_]" whose id is a participant's), every file of the page, byte for byte
    import zipfile
    with zipfile.ZipFile(out / "moodle-feedback.zip") as archive:
        held = {info.filename: archive.read(info) for info in archive.infolist()}
    want = {}
    for key, name, kind, _ in MOODLE_CLASS:
        number = str(MOODLE_IDS[key])
        if kind is None:
            assert number not in pages or not pages[number], (name, pages)
            continue
        folder = unicodedata.normalize("NFC", md.student_prefix(name, MOODLE_IDS[key]))
        page = out / pages[number]
        for inside in sorted(page.rglob("*")):
            if inside.is_file():
                want[f"{folder}_assignsubmission_file_/{inside.relative_to(page).as_posix()}"] \
                    = inside.read_bytes()
    assert sorted(held) == sorted(want)
    for number in MOODLE_SAID:
        (folder,) = [name for name in held if f"_{number}_assignsubmission_file_/" in name
                     and name.endswith("/feedback.html")]
        assert held[folder] == (out / pages[number] / "feedback.html").read_bytes(), folder
    assert not any(name.startswith("instructor") or "/instructor/" in name for name in held)


TEAM_IDS = {"tan": 3001, "bob": 3002, "cy": 3003, "di": 3004, "ed": 3005}
DI = unicodedata.normalize("NFD", "Di Brontë")
# A team submission assignment (TEAM columns: Group after Status): Team Red's one submission
# for its three members; Di, in no group, in Moodle's "Default group" alone (every student in
# no group shares its one submission); Ed, in Team Blue, which handed nothing in.
TEAM_CLASS = [("tan", "Ann Tan", TEAM, LATE_1_DAY), ("bob", "Bob O'Neil", TEAM, LATE_1_DAY),
              ("cy", "Cy Wu", TEAM, LATE_1_DAY), ("di", DI, "Default group", ON_TIME),
              ("ed", "Ed Fox", "Team Blue", None)]
TEAM_EXPECTED = {
    ("Ann Tan", "3001"): TEAM_ROW,
    ("Bob O'Neil", "3002"): TEAM_ROW,
    ("Cy Wu", "3003"): TEAM_ROW,
    ("Di Brontë", "3004"): RIGHT,
    ("Ed Fox", "3005"): NOTHING,
}


@pytest.fixture(scope="module")
def moodle_team_marked(course):
    root, assignment, kinds = course
    download = {**md.entries(md.team_prefix(TEAM, 40), kinds["right"], folders=False),
                **md.entries(md.team_prefix(), kinds["right"], folders=False)}
    zipped = md.write_zip(root / "moodle-team.zip", download)
    worksheet = root / "Grades-Team.csv"
    worksheet.write_bytes(md.worksheet([moodle_row(key, name, when, group)
                                        for key, name, group, when in TEAM_CLASS],
                                       columns=md.TEAM))
    out = root / "moodle-team-marked"
    done = mark(zipped, assignment, out, "--from", "moodle", "--worksheet", worksheet)
    return root, zipped, worksheet, out, done


def test_moodle_team_submission_marks_each_member(moodle_team_marked):
    *_, out, done = moodle_team_marked
    assert done.returncode == 0, done.stderr
    rows = grades(out)
    assert differences(rows, TEAM_EXPECTED) == []
    for member in ("Ann Tan", "Bob O'Neil", "Cy Wu"):
        (note,) = [row["note"] for key, row in rows.items() if key[0] == member]
        assert SHARED in note, (member, note)
    # Moodle's Default group, Di alone in it: her row, under her name, says how it came
    di = rows["Di Brontë", "3004"]["note"]
    assert di == "handed in as Default group, of which this student is the one member", di


def test_moodle_team_worksheet_goes_back_with_the_team_s_mark_on_each_member(
        moodle_team_marked):
    _, _, worksheet, out, _ = moodle_team_marked
    back = worksheet_rows(out / "moodle-worksheet.csv")
    header = back[0]
    pages = {row["id"]: row["page"] for row in grades(out).values()}
    cells = {row[0]: (row[header.index("Grade")], row[header.index("Feedback comments")])
             for row in back[1:]}
    # A team assignment's pages go back by hand (moodle._feedback_folders: Moodle's importer
    # reads a folder's number as a group's or a participant's, by its version): no zip, and
    # each comment names the page
    assert cells == {
        "Participant 3001": ("9", comment(f"marked; {ONE_DAY_SAID}", pages["3001"])),
        "Participant 3002": ("9", comment(f"marked; {ONE_DAY_SAID}", pages["3002"])),
        "Participant 3003": ("9", comment(f"marked; {ONE_DAY_SAID}", pages["3003"])),
        "Participant 3004": ("10", comment(f"marked; {ON_TIME_SAID}", pages["3004"])),
        "Participant 3005": ("0", "no submission")}
    assert not (out / "moodle-feedback.zip").exists()


# Gradescope: "Export Submissions" as its zip comes. It lists only who submitted, so a
# student with no submission cannot be in it: Dee No is not there, and gets no row.

GS_SIDS = {"zoe": "1001", "jose": "1002", "sean": "1003", "ann": "1004", "ann2": "1005",
           "al": "1006", "al2": "1007", "mary": "1008", "rick": "1009", "tan": "1010",
           "bob": "1011", "cy": "1012"}


def gradescope_export(kinds: dict) -> list:
    def one(number: int, people: list, kind: str, when, history=()):
        return gd.Submission(number, [gd.Submitter(name, GS_SIDS[key], f"{key}@example.edu")
                                      for key, name in people], when, dict(kinds[kind]),
                             history=list(history))

    utc = timezone.utc
    return [
        one(9001, [("zoe", ZOE)], "right", ON_TIME),
        one(9002, [("jose", "José Núñez")], "eigth", ON_TIME.astimezone(utc)),
        one(9003, [("sean", "Seán O'Brien")], "right",
            LATE_2_DAYS.astimezone(timezone(timedelta(hours=-5)))),
        one(9004, [("ann", "Ann Lee")], "right", ON_TIME),
        one(9005, [("ann2", "Ann Lee")], "nineth", ON_TIME),
        one(9006, [("al", "Al McDonald")], "right", ON_TIME),
        one(9007, [("al2", "Al Mcdonald")], "eigth, no game", ON_TIME),
        one(9008, [("mary", "Mary Ann de la Cruz")], "right, notes", ON_TIME),
        # Rick resubmitted: the export's folder holds the active submission, the older one
        # is in :history only
        one(9009, [("rick", "Rick Roe")], "right", ON_TIME,
            history=[ON_TIME - timedelta(hours=30)]),
        one(9010, [("tan", "Ann Tan"), ("bob", "Bob O'Neil"), ("cy", "Cy Wu")], "right",
            LATE_1_DAY),
    ]


GRADESCOPE_EXPECTED = {
    ("Al McDonald (1006)", "1006"): RIGHT,
    ("Al Mcdonald (1007)", "1007"): EIGTH_AND_NO_GAME,
    ("Ann Lee (1004)", "1004"): RIGHT,
    ("Ann Lee (1005)", "1005"): NINETH,
    ("Ann Tan", "1010"): TEAM_ROW,
    ("Bob O'Neil", "1011"): TEAM_ROW,
    ("Cy Wu", "1012"): TEAM_ROW,
    ("José Núñez", "1002"): EIGTH,
    ("Mary Ann de la Cruz", "1008"): RIGHT,
    ("Rick Roe", "1009"): RIGHT,
    ("Seán O'Brien", "1003"): TWO_DAYS_LATE,
    (ZOE_SHOWN, "1001"): RIGHT,
}


@pytest.fixture(scope="module")
def gradescope_marked(course):
    root, assignment, kinds = course
    export = gd.write_export(root / "gradescope", gradescope_export(kinds))
    zipped = gd.zip_export(export, root / gd.zip_name())
    out = root / "gradescope-marked"
    done = mark(zipped, assignment, out, "--from", "gradescope")
    return root, zipped, out, done


def test_gradescope_marks_each_submitter_as_worked_out_by_hand(gradescope_marked):
    *_, out, done = gradescope_marked
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "read as a Gradescope download"
    assert differences(grades(out), GRADESCOPE_EXPECTED) == []


def test_gradescope_needs_nothing_back(gradescope_marked):
    *_, out, done = gradescope_marked
    assert sorted(path.name for path in out.glob("*.csv")) == ["grades.csv", "similarity.csv"]
    assert "import format" not in done.stdout


def test_canvas_points_other_than_the_kit_s_marks_are_refused_before_marking(canvas_marked,
                                                                             tmp_path):
    """Canvas's import takes a score as points of the assignment's own total: 8 of the
    kit's 10 would go in as 8 of 20. Said in one line, before any student is marked."""
    _, download, assignment, _, _, server = canvas_marked
    server.assignment["points_possible"] = 20.0
    try:
        done = mark(download, assignment, tmp_path / "out", "--from", "canvas",
                    "--canvas-url", canvas_server.url(server), "--canvas-course",
                    canvas_server.COURSE, "--canvas-assignment", canvas_server.ASSIGNMENT,
                    token=canvas_server.TOKEN)
    finally:
        server.assignment["points_possible"] = 10.0
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1].endswith(
        "Canvas's assignment Solitaires (77) is out of 20 points, the kit marks out of 10: its "
        "import would take each mark as points of 20; make them the same"), done.stderr
    assert not (tmp_path / "out").exists()


def test_moodle_maximum_other_than_the_kit_s_marks_is_refused_before_marking(moodle_marked,
                                                                            tmp_path):
    """Moodle's upload skips a grade above its maximum unsaid: a worksheet out of 20 is
    refused in one line as it is read, never after the class is marked (it was a
    traceback once every student had been marked)."""
    root, zipped, worksheet, _, _ = moodle_marked
    other = tmp_path / "Grades-out-of-20.csv"
    other.write_bytes(worksheet.read_bytes().replace(b",10.00,", b",20.00,"))
    done = mark(zipped, root / "class_test.toml", tmp_path / "out", "--from", "moodle",
                "--worksheet", other)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1].endswith(
        f"{other}: Moodle's maximum grade is 20.00, the kit marks out of 10: Moodle's upload "
        "would skip every mark above its maximum and take the rest as they are; make them the "
        "same and download the worksheet again"), done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


def test_canvas_over_plain_http_is_refused_before_the_token_leaves(canvas_marked, tmp_path):
    """http:// elsewhere than this machine would carry the token unencrypted: refused in one
    line before any request (.invalid never resolves: no network either way)."""
    _, download, assignment, *_ = canvas_marked
    done = mark(download, assignment, tmp_path / "out", "--from", "canvas",
                "--canvas-url", "http://canvas.invalid", "--canvas-course", "5",
                "--canvas-assignment", "77", token=canvas_server.TOKEN)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1].endswith(
        "--canvas-url http://canvas.invalid is not an https:// address: the token in "
        "CANVAS_TOKEN would cross the network unencrypted; give Canvas's https:// address"), \
        done.stderr
    assert canvas_server.TOKEN not in done.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("platform", ["moodle", "gradescope"])
def test_without_from_the_download_is_detected_and_a_second_run_keeps_everyone(
        request, platform):
    """The same download again, --from left out: recognised by its one platform, said in
    the run's first line, and nothing marked again (grades.csv byte for byte as it was)."""
    if platform == "moodle":
        root, zipped, worksheet, out, _ = request.getfixturevalue("moodle_marked")
        options, name, count = ["--worksheet", worksheet], "Moodle", 9
    else:
        root, zipped, out, _ = request.getfixturevalue("gradescope_marked")
        options, name, count = [], "Gradescope", 10
    before = (out / "grades.csv").read_bytes()
    done = mark(zipped, root / "class_test.toml", out, *options)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == (f"read as a {name} download (detected): --from "
                                           f"{platform} to say so"), done.stderr
    assert f"{count} student(s) unchanged since the last run" in done.stderr, done.stderr
    assert (out / "grades.csv").read_bytes() == before
