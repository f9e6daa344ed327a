"""Anonymous marking (`exactmark class --anonymous`, exactmark/classroom/anonymous.py): the pages,
the summary and the similarity pages name each student by a pseudonym, kept from run to run in
OUT/instructor/pseudonyms.csv; grades.csv keeps the names, its page column the pseudonym's
folder. The class: accented names, names with spaces, an archive, an entry refused by its name,
and a copy that carries both authors' names in its code."""

import csv
import json
import re
import shutil
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path

import pytest

from exactmark.base import from_make
from exactmark.classroom import anonymous, mark_class, platform_class
from exactmark.classroom.anonymous import Key, Pseudonym, mask_of
from exactmark.classroom.roster import Student, ascii_spelling, folder_name
from exactmark.kit.bundle import write_all
from exactmark.kit.cases import ROOT
from exactmark.platforms.download import Person
from tests import platform_fake
from tests.test_class_platforms import FAKE, download_of, run
from tests.test_mark_class import ASSIGNMENT, HIDDEN, VISIBLE, others

ZOE, LUKASZ, JOSE, ANN, BOB = ("Zoë Ångström", "Łukasz Wójcik", "José María Núñez", "Ann O'Neil",
                               "bob smith")
ENTRIES = {ZOE: ZOE, LUKASZ: LUKASZ, JOSE: f"{JOSE}.zip", ANN: f"{ANN}.rar", BOB: BOB}
# Code the reference does not hold, so that the two copies make a pair of the scan's.
SHARED = "\n".join(f"def tally_{i}(cards):\n    total = 0\n    for card in cards[{i}:]:\n"
                   f"        if card % {i + 2} == 1:\n            total += card * {i + 3}\n"
                   f"    return total\n" for i in range(12))
PSEUDONYM = re.compile(r"Student [BCDFGHJKMNPQRSTVWXZ2-9]{4}")


def assignment_file(root: Path) -> Path:
    path = root / "class_test.toml"
    path.write_text(ASSIGNMENT.format(
        visible=json.dumps(VISIBLE), hidden=json.dumps(HIDDEN),
        kit_only_1=others("solitaire_1", VISIBLE + HIDDEN),
        kit_only_2=others("solitaire_2", ["seed_0_full"])), encoding="utf-8")
    return path


def class_of_five(root: Path) -> Path:
    """Zoë Ångström: right, her name in a comment and a string; Łukasz Wójcik: her code
    copied whole, his name above it; José María Núñez: an archive of solitaire_1 alone, in a
    folder named after him; Ann O'Neil: a .rar, refused by its name; bob smith: solitaire_1,
    one word wrong, and solitaire_2 in a folder named after him (a look-alike, not marked)."""
    solutions, klass = root / "solutions", root / "class"
    write_all(solutions)
    right = {program: (solutions / f"{program}.py").read_text(encoding="utf-8")
             for program in ("solitaire_1", "solitaire_2")}
    zoes = {program: f"# {ZOE}, assignment 1\nAUTHOR = '{ZOE}'\n{text}\n{SHARED}"
            for program, text in right.items()}
    for student, files in ((ZOE, zoes),
                           (LUKASZ, {program: f"# {LUKASZ}\n{text}"
                                     for program, text in zoes.items()}),
                           (BOB, {"solitaire_1": right["solitaire_1"].replace('"Eighth"',
                                                                              '"Eigth"')})):
        (klass / student).mkdir(parents=True)
        for program, text in files.items():
            (klass / student / f"{program}.py").write_text(text, encoding="utf-8")
    (klass / BOB / BOB).mkdir()  # a look-alike the pages name: `bob smith/solitaire_2.py`
    (klass / BOB / BOB / "solitaire_2.py").write_text(right["solitaire_2"], encoding="utf-8")
    with zipfile.ZipFile(klass / ENTRIES[JOSE], "w") as archive:
        archive.writestr(f"{JOSE}/solitaire_1.py", right["solitaire_1"])
    (klass / ENTRIES[ANN]).write_bytes(b"Rar!\x1a\x07\x00")
    return klass


def mark(klass: Path, assignment: Path, out: Path, *options) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "exactmark.classroom.mark_class", str(klass),
                           "--assignment", str(assignment), "--out", str(out), "--jobs", "2",
                           *options], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def anonymous_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("anonymous")
    klass, assignment = class_of_five(root), assignment_file(root)
    done = mark(klass, assignment, root / "marked", "--anonymous")
    return root, klass, assignment, root / "marked", done


def read_csv(path: Path) -> list:
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def name_forms(name: str, entry: str) -> set:
    """What would say who a student is: the name as written, composed and decomposed, in
    ASCII letters, the entry's file name, the folder a run by name gives it, and each word of
    the name of three letters or more."""
    forms = {name, entry, unicodedata.normalize("NFD", name), ascii_spelling(name),
             folder_name(name), folder_name(entry, hashed=True)}
    return forms | {word for form in (name, ascii_spelling(name))
                    for word in re.split(r"[\W_]+", form) if len(word) >= 3}


def shown_files(out: Path) -> list:
    """Every file a reader other than the instructor may be given."""
    return [path for path in sorted((out / "students").rglob("*")) if path.is_file()] + [
        out / "summary.html", out / "similarity.csv",
        *sorted((out / "similarity").glob("*.html"))]


def names_in(out: Path, names: dict) -> list:
    """(file, form) for each form of a name found in a file shown, as a word, whatever its
    case: none, or the test says where."""
    found = []
    for path in shown_files(out):
        text = path.read_text(encoding="utf-8")
        for name, entry in names.items():
            for form in name_forms(name, entry):
                if re.search(rf"(?<![^\W_]){re.escape(form)}(?![^\W_])", text, re.IGNORECASE):
                    found.append((str(path.relative_to(out)), form))
    return found


def test_no_page_of_an_anonymous_class_holds_a_name(anonymous_class):
    _, _, _, out, _ = anonymous_class
    shown = shown_files(out)
    assert len([path for path in shown if path.name == "feedback.html"]) == 5
    assert len([path for path in shown if path.parent.name == "similarity"]) == 2  # one a program
    assert names_in(out, ENTRIES) == []


def test_the_key_maps_each_pseudonym_to_its_student_and_to_grades_page_column(anonymous_class):
    _, _, _, out, done = anonymous_class
    assert done.stdout.rstrip().endswith(f"; and {out / 'instructor' / 'pseudonyms.csv'}, the "
                                         "key from each pseudonym to its student (yours only)")
    key = read_csv(out / "instructor" / "pseudonyms.csv")
    assert sorted(row["student"] for row in key) == sorted([ENTRIES[ANN], BOB, JOSE, ZOE,
                                                            LUKASZ])  # a refused entry: its file
    assert all(PSEUDONYM.fullmatch(row["pseudonym"]) and row["id"] == "" for row in key)
    assert len({row["pseudonym"] for row in key}) == 5
    grades = {row["student"]: row for row in read_csv(out / "grades.csv")}
    assert sorted(grades) == sorted(row["student"] for row in key)  # grades.csv: the names
    for row in key:
        folder = row["pseudonym"].replace(" ", "-")
        assert grades[row["student"]]["page"] == f"students/{folder}"
        page = (out / "students" / folder / "feedback.txt").read_text(encoding="utf-8")
        assert f"Student: {row['pseudonym']}\n" in page
    assert sorted(path.name for path in (out / "students").iterdir()) == sorted(
        row["pseudonym"].replace(" ", "-") for row in key)


def test_a_refused_entry_is_refused_by_its_pseudonym(anonymous_class):
    _, _, _, out, done = anonymous_class
    key = {row["student"]: row["pseudonym"] for row in read_csv(out / "instructor" /
                                                                "pseudonyms.csv")}
    page = (out / "students" / key[ENTRIES[ANN]].replace(" ", "-") / "feedback.txt"
            ).read_text("utf-8")
    assert (f"- \"{key[ENTRIES[ANN]]}'s hand-in\" is neither a folder nor a .zip, .tar.gz or .tgz "
            "archive\n") in page
    assert f"refused: {ENTRIES[ANN]}:" in done.stderr  # the instructor's terminal names it
    grades = {row["student"]: row for row in read_csv(out / "grades.csv")}
    assert grades[ENTRIES[ANN]]["note"].startswith(f'"{ENTRIES[ANN]}" is neither a folder')


def test_a_look_alike_in_a_folder_named_after_the_student_is_named_by_pseudonym(
        anonymous_class):
    _, _, _, out, _ = anonymous_class
    key = {row["student"]: row["pseudonym"] for row in read_csv(out / "instructor" /
                                                                "pseudonyms.csv")}
    page = (out / "students" / key[BOB].replace(" ", "-") / "feedback.txt").read_text("utf-8")
    assert (f"  solitaire_2: solitaire_2.py is not in the submission: 0 of 2.00 marks; "
            f"`{key[BOB]}/solitaire_2.py` looks like it, but only the exact name "
            "solitaire_2.py is marked: rename it\n") in page


def test_the_similarity_pages_name_the_pair_by_pseudonym_and_blot_names_in_the_code(
        anonymous_class):
    _, _, _, out, _ = anonymous_class
    key = {row["student"]: row["pseudonym"] for row in read_csv(out / "instructor" /
                                                                "pseudonyms.csv")}
    pair = sorted([key[ZOE], key[LUKASZ]])
    assert [(row["program"], row["student_a"], row["student_b"])
            for row in read_csv(out / "similarity.csv")] == [
        ("solitaire_1", *pair), ("solitaire_2", *pair)]
    page = (out / "similarity" / "pair-001.html").read_text(encoding="utf-8")
    assert f"<title>solitaire_1: {pair[0]} and {pair[1]}</title>" in page
    blot = "\u2592"
    # Zoë Ångström (12 characters) on both sides, Łukasz Wójcik (13) on his: blotted one for one
    assert page.count(f"# {blot * 12}, assignment 1") == 2
    assert page.count(f"AUTHOR = &#39;{blot * 12}&#39;") == 2
    assert page.count(f"# {blot * 13}\n") == 1


def test_the_summary_names_pseudonyms_in_their_order_and_links_their_pages(anonymous_class):
    _, _, _, out, _ = anonymous_class
    summary = (out / "summary.html").read_text(encoding="utf-8")
    linked = re.findall(r'<a href="students/(Student-[0-9A-Z]{4})/feedback.html">'
                        r'(Student [0-9A-Z]{4})</a>', summary)
    assert [name for _, name in linked] == sorted(name for _, name in linked)
    assert all(folder == name.replace(" ", "-") for folder, name in linked) and len(linked) == 5
    assert "Students are named by pseudonym (anonymous marking)" in summary


def test_a_re_run_keeps_the_pseudonyms_and_a_new_student_gets_a_new_one(anonymous_class,
                                                                        tmp_path):
    root, klass, assignment, out, _ = anonymous_class
    again, klass_again = tmp_path / "marked", tmp_path / "class"
    shutil.copytree(out, again)
    shutil.copytree(klass, klass_again)
    shutil.copytree(klass / ZOE, klass_again / "Chloé Dubois")
    mark(klass_again, assignment, again, "--anonymous")
    before = read_csv(out / "instructor" / "pseudonyms.csv")
    after = read_csv(again / "instructor" / "pseudonyms.csv")
    assert after[:5] == before
    (new,) = after[5:]
    assert new["student"] == "Chloé Dubois" and PSEUDONYM.fullmatch(new["pseudonym"])
    assert new["pseudonym"] not in {row["pseudonym"] for row in before}
    assert names_in(again, {**ENTRIES, "Chloé Dubois": "Chloé Dubois"}) == []


def test_a_run_by_name_into_the_same_out_removes_the_pseudonyms_pages_and_back_again(
        anonymous_class, tmp_path):
    """By name: the pseudonyms' folders go (stale), the key stays; anonymous again: the
    names' folders go (they would sit beside the pseudonyms'), the same pseudonyms come back."""
    _, klass, assignment, out, _ = anonymous_class
    again = tmp_path / "marked"
    shutil.copytree(out, again)
    key = (again / "instructor" / "pseudonyms.csv").read_bytes()
    named = mark(klass, assignment, again)
    folders = sorted(path.name for path in (again / "students").iterdir())
    assert len(folders) == 5 and not any(folder.startswith("Student-") for folder in folders)
    assert f"removed 5 folder(s) of pages an earlier anonymous run wrote from " \
           f"{again / 'students'}" in named.stderr
    assert (again / "instructor" / "pseudonyms.csv").read_bytes() == key
    back = mark(klass, assignment, again, "--anonymous")
    assert f"anonymous marking: removed 5 folder(s) of pages an earlier run wrote under " \
           f"students' names from {again / 'students'}" in back.stderr
    assert sorted(path.name for path in (again / "students").iterdir()) == sorted(
        row["pseudonym"].replace(" ", "-") for row in read_csv(out / "instructor" /
                                                               "pseudonyms.csv"))
    assert names_in(again, ENTRIES) == []


OVERRIDES = ("student,what,mark,reason,who\n"
             "bob smith,solitaire_1/seed_43,pass,Bob Smith's output is right: a typo in the "
             "case,Dr Jones\n"
             "bob smith,solitaire_2,2,bob asked: typo,Zoë's tutor\n"
             "bob smith,total,pass,as agreed,Dr Jones\n")


def test_an_override_s_reason_and_who_are_said_by_pseudonym_or_left_off_its_page(
        anonymous_class, tmp_path):
    """The instructor's words name bob and a classmate (Zoë); his page says his name by his
    pseudonym, leaves off what still names someone, and shows the rest as written;
    grades.csv keeps every word. A re-run of the same class: everyone kept, overrides applied."""
    _, klass, assignment, out, _ = anonymous_class
    again = tmp_path / "marked"
    shutil.copytree(out, again)
    (tmp_path / "ov.csv").write_text(OVERRIDES, encoding="utf-8")
    mark(klass, assignment, again, "--anonymous", "--overrides", str(tmp_path / "ov.csv"))
    assert names_in(again, ENTRIES) == []
    key = {row["student"]: row["pseudonym"] for row in read_csv(again / "instructor" /
                                                                "pseudonyms.csv")}
    page = (again / "students" / key[BOB].replace(" ", "-") / "feedback.txt").read_text("utf-8")
    withheld = anonymous.WITHHELD
    # solitaire_2 not handed in (a look-alike): 0 of its 2 marks before. The total before its
    # own: seed_0 2 + seed_27 0 (one word wrong) + the 2 hidden cases 2 + 2 + solitaire_2 2 = 8
    assert [line for line in page.splitlines() if "overridden" in line or "hidden case" in line
            ] == [f"- a hidden case's mark was changed by your instructor: {key[BOB]}'s output "
                  "is right: a typo in the case",
                  f"- overridden: solitaire_2 0.00 → 2.00 ({withheld}, by {withheld})",
                  "- overridden: total 8.00 → 10.00 (as agreed, by Dr Jones)"]
    html = (again / "students" / key[BOB].replace(" ", "-") / "feedback.html").read_text("utf-8")
    assert html.count(f"<li>overridden: solitaire_2 0.00 → 2.00 ({withheld}, by {withheld})"
                      "</li>") == 1
    grades = {row["student"]: row for row in read_csv(again / "grades.csv")}
    assert "overridden: solitaire_2 0.00 → 2.00 (bob asked: typo, by Zoë's tutor)" in \
        grades[BOB]["note"]
    assert "(Bob Smith's output is right: a typo in the case, by Dr Jones)" in \
        grades[BOB]["note"]


@pytest.fixture(scope="module")
def anonymous_download(tmp_path_factory):
    """tests/test_class_platforms.py's download (a team of three, two students named Ann
    Lee, Zoë Martin with a note naming her older file, Dee No listed with no hand-in) marked
    anonymously; the platform hands each page back as Moodle's feedback zip does."""
    root = tmp_path_factory.mktemp("anonymous-platform")
    download, out = download_of(root), root / "marked"
    handed = {}

    def write_feedback_zip(out, download, pages, context):
        handed.update({person: page.relative_to(out).as_posix() for person, page in pages.items()})
        return None, set(pages)

    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(platform_class.PLATFORMS, "fake", FAKE)
        patch.setattr(platform_fake, "write_feedback_zip", write_feedback_zip, raising=False)
        status, said, errors = run([download, "--from", "fake", "--assignment",
                                    assignment_file(root), "--out", out, "--jobs", "2",
                                    "--anonymous"])
    assert status == 0, errors
    return out, handed


PLATFORM_NAMES = {"Zoë Martin": "zoe_501", "Ann Tan": "Team Rocket", "Bob O'Neil": "rocket.zip",
                  "Cy Wu": "Cy Wu", "Ann Lee": "ann301", "Dee No": "Dee No"}


def test_a_platform_s_class_is_anonymous_its_team_counted_and_its_ids_in_the_key_only(
        anonymous_download):
    out, _ = anonymous_download
    assert names_in(out, PLATFORM_NAMES) == []
    assert names_in(out, {person_id: person_id for person_id in (
        "501", "201", "202", "203", "301", "302", "401")}) == []  # as words: no id
    key = {row["id"]: row for row in read_csv(out / "instructor" / "pseudonyms.csv")}
    assert sorted(key) == ["", "201; 202; 203", "301", "302", "501"]  # a team: its members'
    assert key[""]["student"] == "stray.txt"  # what the download refused: no one's id
    assert key["201; 202; 203"]["student"] == "Team Rocket"
    team = (out / "students" / key["201; 202; 203"]["pseudonym"].replace(" ", "-")
            / "feedback.txt").read_text(encoding="utf-8")
    assert team.splitlines()[1:3] == [f"Student: {key['201; 202; 203']['pseudonym']}",
                                      "Team: a team of 3: each gets this mark"]
    zoe = (out / "students" / key["501"]["pseudonym"].replace(" ", "-")
           / "feedback.txt").read_text(encoding="utf-8")
    assert f"- {anonymous.WITHHELD}\n" in zoe  # "not zoe_501_solitaire_1-old.py": her name
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert ("1 student listed by the platform handed nothing in (0 in grades.csv, not "
            "counted in the mean or the chart).</p>") in summary


def test_a_platform_s_feedback_goes_to_each_person_with_their_pseudonym_s_page(
        anonymous_download):
    out, handed = anonymous_download
    key = {row["id"]: row["pseudonym"].replace(" ", "-")
           for row in read_csv(out / "instructor" / "pseudonyms.csv")}
    grades = {row["id"]: row for row in read_csv(out / "grades.csv")}
    assert handed == {person_id: f"students/{key[person_id]}" for person_id in ("301", "302",
                                                                                 "501")} | {
        member: f"students/{key['201; 202; 203']}" for member in ("201", "202", "203")}
    assert {person_id: grades[person_id]["page"] for person_id in handed} == handed
    assert grades["202"]["student"] == "Bob O'Neil"


def student(name: str, entry: str = None, **given) -> Student:
    return Student(name, Path("class") / (entry or name), "folder",
                   folder=folder_name(entry or name), **given)


def test_a_key_gives_a_student_the_same_pseudonym_by_id_else_by_name(tmp_path):
    key = Key(tmp_path / "pseudonyms.csv")
    zoe, ann = key.of(student("Zoë", id="501")), key.of(student("Ann"))
    key.write()
    again = Key(tmp_path / "pseudonyms.csv")
    assert again.of(student("Zoë Martin", id="501")) == Pseudonym(zoe.pseudonym, "Zoë Martin",
                                                                 "501")  # renamed: same id
    assert again.of(student("Ann")).pseudonym == ann.pseudonym
    assert again.of(student("Ann", id="777")).pseudonym not in (zoe.pseudonym, ann.pseudonym)


def test_a_key_s_cell_a_spreadsheet_would_run_is_written_as_text_and_read_back(tmp_path):
    key = Key(tmp_path / "pseudonyms.csv")
    made = key.of(student("=HYPERLINK(1)", id="-3000"))
    key.write()
    assert "'=HYPERLINK(1),'-3000" in (tmp_path / "pseudonyms.csv").read_text("utf-8")
    assert Key(tmp_path / "pseudonyms.csv").of(student("=HYPERLINK(1)", id="-3000")) == made


@pytest.mark.parametrize("text, said", [
    ("pseudonym,student,id\nStudent 7QX4,Ann,\nStudent 7qx4,Bob,\n",
     "line 3: the pseudonym Student 7qx4 is given twice"),
    ("pseudonym,student,id\nStudent 7QX4,Ann,\nStudent 8QX4,Ann,\n",
     "line 3: Ann has a pseudonym already"),
    ("pseudonym,student,id\n../Ann,Ann,\n", "line 2: '../Ann' is not a pseudonym"),
    ("pseudonym,student,id\nann,Ann,\n", "line 2: the pseudonym 'ann' holds a word of the "
     "student's name"),
    ("pseudonym,student,id\nStudent Zoe,Zoë Ångström,\n", "line 2: the pseudonym 'Student Zoe' "
     "holds a word of the student's name"),
    ("student,id\nAnn,\n", "not a CSV with the columns pseudonym, student and id")])
def test_a_key_the_runs_could_not_keep_apart_is_refused_in_one_line(tmp_path, text, said):
    (tmp_path / "pseudonyms.csv").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        Key(tmp_path / "pseudonyms.csv")
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_pseudonyms_are_a_code_with_no_vowel_and_a_digit_none_twice():
    drawn = set()
    for _ in range(3000):  # about 11 would collide by chance: 3000**2 / 2 / (27**4 - 19**4)
        drawn.add(anonymous.draw(drawn))
    assert len(drawn) == 3000
    assert all(PSEUDONYM.fullmatch(name) and re.search(r"\d", name[8:]) for name in drawn)


def test_a_note_says_the_student_by_pseudonym_or_is_left_off():
    mask = mask_of(Student("Zoë Martin", Path("download/501"), "handin", id="501",
                           members=[Person("501", "Zoë Martin", "zoe@uni.example")],
                           folder="Zoe_Martin-1a2b3c4d"),
                   Pseudonym("Student 7QX4", "Zoë Martin", "501"), Path("download"))
    assert mask.said("team T: handed in by Zoe Martin") == "team T: handed in by Student 7QX4"
    assert mask.said("the copy /tmp/x/Zoe_Martin-1a2b3c4d failed") == \
        "the copy /tmp/x/Student 7QX4 failed"
    assert mask.said("handed in again: not martin_zoe_old.py") == anonymous.WITHHELD
    assert mask.said("more than 5 days late") == "more than 5 days late"
    classmates = frozenset({"ann", "lee"})  # an override's words are held to the class's names
    assert mask.said("Zoe Martin asked, Lee's tutor", classmates) == anonymous.WITHHELD
    assert mask.said("Zoe Martin asked, the tutor", classmates) == "Student 7QX4 asked, the tutor"
    an = mask_of(student("an"), Pseudonym("Student 7QX4", "an"), Path("class"))
    assert an.said("an entry named so") == anonymous.WITHHELD  # "an": never replaced, left off
    blot = "\u2592"
    assert mask.blotted("# ZOË, zoe@uni.example; Martin's\n") == \
        f"# {blot * 3}, {blot * 3}@uni.example; {blot * 6}'s\n"
    classmate = frozenset({("ann", "lee")})
    assert mask.blotted("# thanks to Ann\nLee, not Ann; Annlee\n", classmate) == \
        f"# thanks to {blot * 3}\n{blot * 3}, not Ann; Annlee\n"


def test_a_name_written_as_one_word_or_joined_is_blotted_out_of_code():
    """A name as code writes it: one word ("CalSmith", any case), or joined by "_", "." or
    "-"; blotted in the student's own code and in a classmate's (Zoë's, who thanks him). A
    longer word holding it ("calsmithy") is not a name; "Cal" alone is blotted in his own
    code only, where it is a word of his name (a classmate's is blotted as a full name)."""
    cal = mask_of(student("Cal Smith"), Pseudonym("Student 7QX4", "Cal Smith"), Path("class"))
    zoe = mask_of(student("Zoë Ångström"), Pseudonym("Student 8QX4", "Zoë Ångström"),
                  Path("class"))
    blotted = anonymous.blotters([cal, zoe])
    code = ("# CalSmith, cal_smith, CAL.SMITH, cal-smith, thanks to ZoeAngstrom\n"
            "calSmith = calsmithy  # Cal\n")
    blot = "\u2592"
    assert blotted["Student 7QX4"](code) == (
        f"# {blot * 8}, {blot * 9}, {blot * 9}, {blot * 9}, thanks to {blot * 11}\n"
        f"{blot * 8} = calsmithy  # {blot * 3}\n")
    assert blotted["Student 8QX4"](code) == (
        f"# {blot * 8}, {blot * 9}, {blot * 9}, {blot * 9}, thanks to {blot * 11}\n"
        f"{blot * 8} = calsmithy  # Cal\n")


def test_anonymous_from_make_is_the_flag_and_0_is_not(monkeypatch):
    parse = mark_class.parser()
    monkeypatch.setenv("MARK_ANONYMOUS", "1")
    assert from_make.arguments(parse, flags=[("MARK_ANONYMOUS", "--anonymous")]) == \
        ["--anonymous"]
    monkeypatch.setenv("MARK_ANONYMOUS", "0")
    assert from_make.arguments(parse, flags=[("MARK_ANONYMOUS", "--anonymous")]) == []


def test_a_run_into_an_out_whose_key_cannot_be_read_is_refused_before_marking(tmp_path):
    (tmp_path / "class" / "ann").mkdir(parents=True)
    (tmp_path / "out" / "instructor").mkdir(parents=True)
    (tmp_path / "out" / "instructor" / "pseudonyms.csv").write_text(
        "pseudonym,student\nStudent 7QX4,ann\nStudent 7QX4,bob\n", encoding="utf-8")
    status, _, errors = run([tmp_path / "class", "--assignment", "seeded", "--out",
                             tmp_path / "out"])  # without --anonymous too: it clears by the key
    assert status == 2
    assert errors.splitlines()[-1] == (
        f"exactmark class: error: {tmp_path / 'out' / 'instructor' / 'pseudonyms.csv'}, line 3: "
        "the pseudonym Student 7QX4 is given twice")
    assert not (tmp_path / "out" / "grades.csv").exists()
