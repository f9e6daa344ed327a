"""A class file as a careless or hostile class makes it: names that are one name, a
formula after a `;`, a hidden entry, Excel's times file; and options that cannot be
honoured. None of them ends the run with a traceback or a wrong page; each is said on
the student's row, or refused in one line before anything is marked. Ctrl-C stops the
whole run at once, writes nothing false, and the next run goes on from there."""

import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("jinja2", reason="marking a class needs requirements-class.txt")

from exactmark.classroom.roster import folder_name  # noqa: E402
from exactmark.base.spreadsheet import FORMULA_STARTS, spreadsheet_text  # noqa: E402
from exactmark.classroom.times import read_times  # noqa: E402
from exactmark.classroom.unpack import name_key  # noqa: E402
from exactmark.kit.cases import ROOT  # noqa: E402
from exactmark.kit.bundle import write_all  # noqa: E402
from tests.interrupt import BACKSTOP_SECONDS, sigint_as_at_a_terminal  # noqa: E402
from tests.test_mark_class import ASSIGNMENT, HIDDEN, VISIBLE, others  # noqa: E402

ANN_LEE_HASHED = f"Ann_Lee-{hashlib.sha256('Ann Lee'.encode()).hexdigest()[:8]}"
MALLORY = "mallory;=1+1"
TIMEOUT = 600


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """The sample solutions, and a small assignment (5 cases, 10 marks) to mark them with."""
    root = tmp_path_factory.mktemp("kit")
    write_all(root / "solutions")
    assignment = root / "small.toml"
    assignment.write_text(ASSIGNMENT.format(
        visible=json.dumps(VISIBLE), hidden=json.dumps(HIDDEN),
        kit_only_1=others("solitaire_1", VISIBLE + HIDDEN),
        kit_only_2=others("solitaire_2", ["seed_0_full"])), encoding="utf-8")
    return root, assignment


def sample(kit, folder: Path, wrong: bool = False) -> Path:
    folder.mkdir(parents=True)
    for name in ("solitaire_1.py", "solitaire_2.py"):
        text = (kit[0] / "solutions" / name).read_text(encoding="utf-8")
        if wrong and name == "solitaire_1.py":
            text = text.replace('"Eighth"', '"Eigth"')
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def mark_class(kit, klass, out, *options, **popen):
    return subprocess.run([sys.executable, "-m", "exactmark.classroom.mark_class", str(klass),
                           "--assignment", str(kit[1]), "--out", str(out), *options],
                          cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT, **popen)


def sheet(out):
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


@pytest.fixture(scope="module")
def careless(kit, tmp_path_factory):
    """A class whose entries a spreadsheet, a shell and a reader could each get wrong."""
    root = tmp_path_factory.mktemp("careless")
    klass = root / "class"
    sample(kit, klass / "Ann Lee")
    sample(kit, klass / ANN_LEE_HASHED, wrong=True)  # Ann Lee's folder name, were it plain
    sample(kit, klass / MALLORY)
    sample(kit, klass / "alice")
    sample(kit, klass / "al\u200bice")
    sample(kit, klass / ".hidden")
    sample(kit, klass / "untimed")
    times = root / "times.csv"
    times.write_text("\ufeffstudent;submitted\nAnn Lee;2027-03-09T08:00\n"
                     f"{ANN_LEE_HASHED};2027-03-09T08:00\n\"{MALLORY}\";2027-03-09T08:00\n"
                     "Ann Lee;2027-03-09T08:00\n", encoding="utf-8")
    out = root / "out"
    done = mark_class(kit, klass, out, "--jobs", "2", "--times", str(times))
    return root, klass, out, done


def test_a_careless_class_is_marked_whole(careless):
    _, _, out, done = careless
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    rows = sheet(out)
    assert set(rows) == {"Ann Lee", ANN_LEE_HASHED, "mallory;'=1+1",
                         "alice", "al⟨U+200B⟩ice", ".hidden", "untimed"}, rows


def test_two_names_for_one_folder_get_two_folders(careless):
    _, _, out, _ = careless
    rows = sheet(out)
    assert rows["Ann Lee"]["mark"] == "10.00" and rows[ANN_LEE_HASHED]["mark"] != "10.00"
    assert folder_name("Ann Lee") != folder_name(ANN_LEE_HASHED)
    for student in ("Ann Lee", ANN_LEE_HASHED):
        page = (out / "students" / folder_name(student) / "feedback.txt").read_text("utf-8")
        assert f"Student: {student}\n" in page
    assert "Ann Lee" not in (out / "similarity.csv").read_text(encoding="utf-8")


@pytest.mark.parametrize("name, plain", [("Łukasz Wójcik", "Lukasz_Wojcik"),
                                         ("Zoë O'Brien", "Zoe_O_Brien"),
                                         ("Ana María", "Ana_Maria"),
                                         ("Søren Ærø", "Soren_AEro"),
                                         ("Straße Œuvre Þór Đorđe", "Strasse_OEuvre_Thor_Dorde"),
                                         ("李雷", "student")])
def test_a_name_with_letters_beyond_ascii_keeps_them_readable_in_its_folder(name, plain):
    """Spelled in ASCII, not dropped; the hash of the whole name still keeps names apart."""
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    assert folder_name(name) == f"{plain}-{digest}"


def test_names_that_are_one_name_are_both_refused_and_shown_visibly(careless):
    _, _, out, _ = careless
    rows = sheet(out)
    for student in ("alice", "al⟨U+200B⟩ice"):
        assert rows[student]["status"] == "refused"
        assert "one name once accents, letter case, invisible characters and spaces are set " \
               "aside" in rows[student]["note"]
    page = (out / "summary.html").read_text(encoding="utf-8")
    assert "al⟨U+200B⟩ice" in page and "al\u200bice" not in page


def test_a_hidden_entry_has_a_row(careless):
    rows = sheet(careless[2])
    assert rows[".hidden"]["status"] == "refused" and "is hidden" in rows[".hidden"]["note"]


def test_a_student_the_times_file_does_not_name_is_said_so(careless):
    _, _, out, done = careless
    rows = sheet(out)
    assert rows["untimed"]["status"] == "no submission time"
    assert rows["untimed"]["days late"] == "" and rows["untimed"]["mark"] == "10.00"
    assert "does not name 1 student(s), marked without the late rule: untimed" in done.stderr


@pytest.mark.parametrize("separator", [",", ";", "\t"])
def test_no_piece_of_the_sheet_starts_like_a_formula(careless, separator):
    """However a spreadsheet splits the file (comma, semicolon or tab), no piece starts with
    =, +, -, @, a tab or a CR (a quote a CSV writer put first aside)."""
    _, _, out, _ = careless
    for name in ("grades.csv", "similarity.csv"):
        for line in (out / name).read_text(encoding="utf-8").splitlines():
            for piece in line.split(separator):
                assert not piece.lstrip('"')[:1] or piece.lstrip('"')[0] not in FORMULA_STARTS, \
                    (name, line, piece)


@pytest.mark.parametrize("text, cell", [
    ("ann", "ann"), ('=HYPERLINK("x")', "'=HYPERLINK(\"x\")"), ("+1", "'+1"), ("@SUM(A1)",
                                                                           "'@SUM(A1)"),
    ("-2", "'-2"), ("mallory;=1+1", "mallory;'=1+1"), ("a,b\t-c", "a,b\t'-c"),
    ("late; -5%", "late; -5%"),  # a space after the separator: no piece starts with "-"
])
def test_a_cell_that_would_start_a_formula_anywhere_is_text(text, cell):
    assert spreadsheet_text(text) == cell


# --- times files, as instructors export them ---------------------------------------------------

def times_of(tmp_path, text: str, encoding="utf-8"):
    path = tmp_path / "times.csv"
    path.write_bytes(text.encode(encoding))
    from zoneinfo import ZoneInfo
    return read_times(path, ZoneInfo("Australia/Sydney"), name_key)


def test_excel_s_csv_utf8_with_its_byte_order_mark_is_read(tmp_path):
    times = times_of(tmp_path, "\ufeffstudent,submitted\r\nJosé,2027-03-10T10:00\r\n")
    (written, when, terms), = times.values()
    assert written == "José" and when.isoformat() == "2027-03-10T10:00:00+11:00"
    assert terms is None, "no deadline or extension column: the assignment's terms"
    assert name_key("Jose\u0301") in times, "a Mac's decomposed name finds it"


@pytest.mark.parametrize("text, said", [
    ("student,submitted\nann\n", "line 2: no submitted on this row"),
    ("student,submitted\nann,\n", "line 2: no submitted on this row"),
    ("student,submitted\n" + "x" * 200_000 + ",2027-03-10T10:00\n", "line 2: a cell longer than"),
    ("student,submitted\nann,2027-03-10T10:00\nann,2027-03-11T10:00\n",
     "times.csv: ann is given two different times, on lines 2 and 3"),
    ("name,when\nann,2027-03-10T10:00\n", "not a CSV with the columns student and submitted"),
    ("student,submitted\nann,next tuesday\n", "line 2: 'next tuesday' is not a date and time"),
], ids=["short row", "empty time", "huge cell", "two times", "no columns", "bad time"])
def test_a_times_file_that_cannot_be_read_whole_is_refused_in_one_line(tmp_path, text, said):
    with pytest.raises(ValueError) as refused:
        times_of(tmp_path, text)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_times_file_not_in_utf8_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not UTF-8 text"):
        times_of(tmp_path, "student,submitted\nJosé,2027-03-10T10:00\n", "latin-1")


def test_the_same_row_twice_is_read_once(tmp_path):
    times = times_of(tmp_path, "student,submitted\nann,2027-03-10T10:00\n\nann,2027-03-10T10:00\n")
    assert len(times) == 1


# --- refused before anything is marked ---------------------------------------------------------

@pytest.mark.parametrize("options, said", [
    (["--jobs", "0"], "a number of students from 1 to 64"),
    (["--jobs", "many"], "a number of students from 1 to 64"),
    (["--similarity-min", "2"], "a score from 0 to 1"),
    (["--as-of", "tomorrow"], "'tomorrow' is not a date and time"),
])
def test_options_that_cannot_be_honoured_are_refused_in_one_line(kit, tmp_path, options, said):
    sample(kit, tmp_path / "class" / "ann")
    done = mark_class(kit, tmp_path / "class", tmp_path / "out", *options)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, \
        done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("where", ["marked", "ann/marked", "."])
def test_an_out_folder_inside_the_class_is_refused(kit, tmp_path, where):
    sample(kit, tmp_path / "class" / "ann")
    done = mark_class(kit, tmp_path / "class", tmp_path / "class" / where)
    assert done.returncode == 2 and "lies inside the class folder" in done.stderr, done.stderr
    assert sorted(path.name for path in (tmp_path / "class").iterdir()) == ["ann"]


def test_a_times_file_with_a_short_row_is_refused_before_marking(kit, tmp_path):
    sample(kit, tmp_path / "class" / "ann")
    (tmp_path / "times.csv").write_text("student,submitted\nann\n", encoding="utf-8")
    done = mark_class(kit, tmp_path / "class", tmp_path / "out", "--times",
                      str(tmp_path / "times.csv"))
    assert done.returncode == 2 and "line 2: no submitted on this row" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


# --- Ctrl-C ------------------------------------------------------------------------------------

SLOW = "import time\ntime.sleep(1)\n"  # each run of the program takes a second more


def test_one_ctrl_c_stops_the_whole_run_and_the_next_run_goes_on(kit, tmp_path):
    klass = tmp_path / "class"
    for number in range(8):
        folder = sample(kit, klass / f"student{number}")
        for name in ("solitaire_1.py", "solitaire_2.py"):
            program = folder / name
            program.write_text(SLOW + program.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    marker = subprocess.Popen([sys.executable, "-m", "exactmark.classroom.mark_class", str(klass),
                               "--assignment", str(kit[1]), "--out", str(out), "--jobs", "2"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              start_new_session=True, text=True,
                              preexec_fn=sigint_as_at_a_terminal)
    backstop = time.monotonic() + BACKSTOP_SECONDS
    while len(list(out.glob("instructor/*/state.json"))) < 2:  # two students marked
        assert time.monotonic() < backstop and marker.poll() is None, marker.communicate()
        time.sleep(0.2)
    os.killpg(marker.pid, signal.SIGINT)  # as a terminal does: the whole foreground group
    _, stderr = marker.communicate(timeout=BACKSTOP_SECONDS)  # it stops: students left unmarked
    assert marker.returncode == 130, stderr[-2000:]
    assert "interrupted:" in stderr and "Traceback" not in stderr, stderr[-2000:]
    assert not (out / "grades.csv").exists(), "no sheet of a half-marked class"
    kept = {path.parent.name for path in out.glob("instructor/*/state.json")}
    assert 2 <= len(kept) < 8
    for page in out.glob("students/*/feedback.txt"):
        assert "marker error" not in page.read_text(encoding="utf-8"), page
    again = mark_class(kit, klass, out, "--jobs", "2")
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"{len(kept)} student(s) unchanged since the last run" in again.stderr
    assert all(row["mark"] == "10.00" for row in sheet(out).values())
