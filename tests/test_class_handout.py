"""A class marked as its handout says (make mark-class with the `seeded` assignment): ten
students in every layout a learning platform gives, late by the handout's examples, marked
once and their pages written twice, before the deadline and after the late window.

    student  layout                 program                               submitted
    ann      a folder               the sample solutions                  on time (a minute early)
    bob      a folder in a folder   the sample solutions                  1 hour late
    cal      a zip of a folder      the sample solutions                  30 hours late
    dan      a tar.gz               the sample solutions                  51 hours late
    eve      a folder               solitaire_1 spells "Eigth"            119 hours late
    fay      a folder               the sample solutions                  121 hours late
    gus      a folder in a folder   solitaire_2.py saved as Solitaire_2.py  121 hours late
    hal      a zip of a folder      solitaire_1 of their own              at the deadline
    ivy      a tar.gz of a folder   hal's solitaire_1, names changed      1 second late
    jo       a folder               the sample solutions                  not in the times file

The handout: "The maximum mark obtainable reduces by 5% per full late day, for up to 5 days.
Thus if students A and B hand in assignments worth 12 and 11, both two days late (that is,
more than 24 hours late and no more than 48 hours late), then the maximum mark obtainable is
11.7". Days late are the ceiling of hours late / 24; 13 marks; at most 5 days.
"""

import csv
import io
import json
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tokenize
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("jinja2", reason="marking a class needs requirements-class.txt")

from exactmark.kit.cases import ROOT  # noqa: E402
from exactmark.kit.assignment import load  # noqa: E402
from exactmark.kit.bundle import write_all  # noqa: E402
from exactmark.kit.variants import read_variant  # noqa: E402
from tests.oracles import solitaire_1_oracle  # noqa: E402

SEEDED = load("seeded")
PROGRAMS = ("solitaire_1.py", "solitaire_2.py")
BEFORE, AFTER = "2027-03-01T12:00", "2027-03-15T09:00"  # the late window ends 2027-03-14 09:00
TIMES = ("\ufeffstudent,submitted\r\n"  # as Excel's "CSV UTF-8" saves it
         "ann,2027-03-09T08:59\r\n"
         "bob,2027-03-09T10:00\r\n"
         "cal,2027-03-10T15:00\r\n"
         "dan,2027-03-11T12:00\r\n"
         "eve,2027-03-14T08:00\r\n"
         "fay,2027-03-14T10:00\r\n"
         "gus,2027-03-14T10:00\r\n"
         "hal,2027-03-08T22:00Z\r\n"  # the deadline, in UTC
         "ivy,2027-03-09T09:00:01+11:00\r\n")
MARKING_TIMEOUT = 900
LATE_BEYOND = ("submitted 121 hours after the deadline: more than 5 days late (more than 120 "
               "hours), past what is accepted: 0")
GUS_MISSING = ("solitaire_2.py is not in the submission: 0 of 6.50 "
               "marks; `Solitaire_2.py` looks like it, but only the exact name solitaire_2.py "
               "is marked: rename it")

# A student's own solitaire_1: the kit's independent reading of the handout (an oracle) with
# the handout's input rules around it.
OWN_MAIN = '''

def simulate(n, i):
    sys.stdout.buffer.write(simulate_table(n, i))
    sys.stdout.flush()


def main():
    out = sys.stdout.buffer
    try:
        while True:
            line = input()
            try:
                seed = int(line)
            except ValueError:
                out.write(_PROMPT.encode())
                out.flush()
                print(f"Not an integer: {line!r}", file=sys.stderr)
                continue
            out.write(transcript(seed))
            return
    except EOFError:
        out.write(_PROMPT.encode())
        out.flush()
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
'''
DISGUISE = {"_play": "play_out", "_render": "draw_all", "_board": "board_lines", "_won": "has_won",
            "ace_at": "where_ace", "face_down": "backs", "face_up": "fronts", "kept": "keep",
            "discard": "thrown", "_NTH": "ORDINALS", "stages": "rounds", "out": "lines"}


def own_solitaire_1() -> str:
    oracle = (ROOT / "tests" / "oracles" / "solitaire_1_oracle.py").read_text(encoding="utf-8")
    return "import sys\n" + oracle + OWN_MAIN


def disguised(code: str) -> str:
    """What a student who copied does: other names (never inside a string) and comments."""
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    renamed = [token._replace(string=DISGUISE.get(token.string, token.string))
               if token.type == tokenize.NAME else token for token in tokens]
    assert renamed != tokens
    return "# My solution to the Aces game.\n" + tokenize.untokenize(renamed)


def eighth_misspelt(text: str) -> str:
    variant = read_variant(ROOT / "tests" / "wrong" / "solitaire_1" / "eigth_misspelt.toml")
    return variant.applied_to({"solitaire_1.py": text})["solitaire_1.py"]


def put(folder: Path, files: dict) -> Path:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def zipped(path: Path, files: dict, inside: str) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(f"{inside}/{name}" if inside else name, text)


def tarred(path: Path, files: dict, inside: str) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode("utf-8")
            member = tarfile.TarInfo(f"{inside}/{name}" if inside else name)
            member.size, member.mode = len(data), 0o644
            archive.addfile(member, io.BytesIO(data))


def build_class(root: Path) -> Path:
    solutions = root / "solutions"
    write_all(solutions)
    sample = {name: (solutions / name).read_text(encoding="utf-8") for name in PROGRAMS}
    klass = root / "class"
    klass.mkdir()
    put(klass / "ann", sample)
    put(klass / "bob" / "bob", sample)
    zipped(klass / "cal.zip", sample, "cal")
    tarred(klass / "dan.tar.gz", sample, "")
    put(klass / "eve", {**sample, "solitaire_1.py": eighth_misspelt(sample["solitaire_1.py"])})
    put(klass / "fay", sample)
    put(klass / "gus" / "Assignment 1", {"solitaire_1.py": sample["solitaire_1.py"],
                                         "Solitaire_2.py": sample["solitaire_2.py"]})
    own = own_solitaire_1()
    zipped(klass / "hal.zip", {"solitaire_1.py": own, "solitaire_2.py": sample["solitaire_2.py"]},
           "hal")
    tarred(klass / "ivy.tar.gz", {"solitaire_1.py": disguised(own),
                                  "solitaire_2.py": sample["solitaire_2.py"]}, "submission")
    put(klass / "jo", sample)
    return klass


def mark_class(klass: Path, out: Path, times: Path, as_of: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "exactmark.classroom.mark_class", str(klass),
                           "--assignment", "seeded", "--out", str(out), "--times", str(times),
                           "--jobs", "2", "--as-of", as_of],
                          cwd=ROOT, capture_output=True, text=True, timeout=MARKING_TIMEOUT)


class Marked:
    def __init__(self, root: Path, klass: Path, out: Path, before: dict, after: dict, runs):
        self.root, self.klass, self.out, self.before, self.after = root, klass, out, before, after
        self.runs = runs


def student_folders(out: Path) -> dict:
    """Each student's folder as written: every file in it, as bytes."""
    return {folder.name: {path.relative_to(folder).as_posix(): path.read_bytes()
                          for path in sorted(folder.rglob("*")) if path.is_file()}
            for folder in sorted((out / "students").iterdir())}


@pytest.fixture(scope="module")
def marked(tmp_path_factory) -> Marked:
    """The class marked once (pages as of before the deadline), then the same command with
    --as-of after the late window: everyone kept, only the pages written again."""
    root = tmp_path_factory.mktemp("handout")
    klass = build_class(root)
    times = root / "times.csv"
    times.write_bytes(TIMES.encode("utf-8"))
    out = root / "marked"
    first = mark_class(klass, out, times, BEFORE)
    assert first.returncode == 0, first.stderr[-3000:]
    before = student_folders(out)
    second = mark_class(klass, out, times, AFTER)
    assert second.returncode == 0, second.stderr[-3000:]
    return Marked(root, klass, out, before, student_folders(out), (first, second))


def grades(out: Path) -> dict:
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def results_of(out: Path, student: str) -> dict:
    return json.loads((out / "instructor" / student / "results.json").read_text(encoding="utf-8"))


def eve_raw(out: Path) -> float:
    """eve loses exactly the cases whose expected output spells "Eighth": from the golden
    files, and for her fresh games (named in her results.json, drawn for her) from the
    independent oracle's transcript, not from the marker."""
    lost = [marked.marks for marked in SEEDED.marked_cases["solitaire_1"]
            if b"Eighth" in marked.case.stdout]
    fresh = SEEDED.fresh_groups("solitaire_1")[0]
    drawn = [case["name"] for case in results_of(out, "eve")["extra_data"]["cases"]
             if case["group"] == fresh.name]
    assert len(drawn) == fresh.count
    lost += [fresh.marks / fresh.count for name in drawn if name.startswith("fresh_seed_")
             and b"Eighth" in solitaire_1_oracle.transcript(int(name.rsplit("_", 1)[1]))]
    assert lost
    return 13 - sum(lost), len(lost)


# --- grades.csv, cell by cell ------------------------------------------------------------------

def test_the_class_is_marked_once_and_its_pages_written_twice(marked):
    first, second = marked.runs
    assert "10 student(s) unchanged since the last run" in second.stderr, second.stderr[-2000:]
    assert "the times file does not name 1 student(s), marked without the late rule: jo" \
        in first.stderr


def test_the_grade_sheet_applies_the_handout_s_late_rule(marked):
    rows = grades(marked.out)
    assert list(rows) == ["ann", "bob", "cal", "dan", "eve", "fay", "gus", "hal", "ivy", "jo"]
    full = ["6.50", "6.50", "13.00"]
    every = sum(SEEDED.case_count(program) for program in SEEDED.programs)  # fresh ones too
    passed, gus_passed = f"{every}/{every}", "{0}/{0}".format(SEEDED.case_count("solitaire_1"))
    expected = {  # solitaire_1, solitaire_2, raw total, days late, mark, status, cases passed
        "ann": [*full, "0", "13.00", "marked", passed],
        "bob": [*full, "1", "12.35", "marked", passed],
        "cal": [*full, "2", "11.70", "marked", passed],
        "dan": [*full, "3", "11.05", "marked", passed],
        "fay": [*full, "6", "0.00", "late beyond the limit", passed],
        "gus": ["6.50", "0.00", "6.50", "6", "0.00", "late beyond the limit; missing program",
                gus_passed],  # solitaire_2 not handed in: said in the note, not counted
        "hal": [*full, "0", "13.00", "marked", passed],
        "ivy": [*full, "1", "12.35", "marked", passed],
        "jo": [*full, "", "13.00", "no submission time", passed],
    }
    columns = ["solitaire_1", "solitaire_2", "raw total", "days late", "mark", "status",
               "cases passed"]
    for student, cells in expected.items():
        assert [rows[student][column] for column in columns] == cells, student
    raw, lost = eve_raw(marked.out)
    assert [rows["eve"][column] for column in columns] == [
        f"{raw - 6.5:.2f}", "6.50", f"{raw:.2f}", "5", f"{min(raw, 9.75):.2f}", "marked",
        f"{every - lost}/{every}"]


def test_every_reason_reaches_the_note(marked):
    rows = grades(marked.out)
    assert rows["fay"]["note"] == LATE_BEYOND
    assert rows["gus"]["note"] == f"{LATE_BEYOND}; {GUS_MISSING}"
    assert rows["jo"]["note"] == ("the times file does not name this student: marked without "
                                  "the late rule")
    assert all(rows[student]["note"] == "" for student in ("ann", "bob", "cal", "dan", "eve",
                                                          "hal", "ivy"))


def test_make_mark_gives_the_same_figure_as_the_class(marked):
    """results.json's score is the mark after the late rule, as the class's sheet says."""
    rows = grades(marked.out)
    for student in rows:
        assert f"{results_of(marked.out, student)['score']:.2f}" == rows[student]["mark"], student


# --- similarity.csv ----------------------------------------------------------------------------

def test_the_disguised_copy_is_found_whatever_the_layout(marked):
    with open(marked.out / "similarity.csv", newline="", encoding="utf-8") as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["program", "student_a", "student_b", "score", "share_in_full",
                       "also_high_in"]
    assert rows[1][:3] == ["solitaire_1", "hal", "ivy"], rows[:3]
    assert 0.7 < float(rows[1][3]) <= 1 and len(rows[1][3].split(".")[1]) >= 3
    assert float(rows[1][3]) <= float(rows[1][4]) and rows[1][5] == ""
    assert len(rows) == 2, "the sample solutions are shared code: no other pair shares more"


def test_the_summary_says_whose_programs_were_compared(marked):
    """gus's Solitaire_2.py is marked as missing, but compared in its place, and said."""
    summary = (marked.out / "summary.html").read_text(encoding="utf-8")
    assert "solitaire_1</td><td>ann, bob, cal, dan, eve, fay, gus, hal, ivy, jo</td>" in summary
    assert ("solitaire_2</td><td>ann, bob, cal, dan, eve, fay, gus (Solitaire_2.py, taken for "
            "solitaire_2.py: the same name but for letter case, spaces, punctuation or a copy "
            "mark such as (1)), hal, ivy, jo</td><td>none</td>") in summary


# --- the pages, as the clock says --------------------------------------------------------------

def shown_files(folder: dict) -> set:
    return {name for name in folder if name.startswith("expected_outputs/")}


def case_files(case_ids) -> set:
    found = set()
    for marked_cases in SEEDED.marked_cases.values():
        for marked in marked_cases:
            if marked.case.id in case_ids:
                for suffix in (".in", ".args", ".out", ".err", ".status", ".stats", ".head"):
                    if marked.case.file(suffix).exists():
                        found.add(f"expected_outputs/{marked.case.program}/"
                                  f"{marked.case.name}{suffix}")
    return found


def fresh_files(out: Path, student: str) -> set:
    """The files of the student's fresh cases, as their marking's results.json names them."""
    return {f"expected_outputs/{case['program']}/{case['name']}{suffix}"
            for case in results_of(out, student)["extra_data"]["cases"]
            for suffix in case.get("files") or ()}


def after_due_date_count() -> int:
    """The cases a page says are shown once the late window closes: golden and fresh."""
    return len(ids({"after_due_date"})) + sum(
        group.count for program in SEEDED.programs for group in SEEDED.fresh_groups(program)
        if group.visibility == "after_due_date")


def ids(visibility: set) -> set:
    return {marked.case.id for cases in SEEDED.marked_cases.values() for marked in cases
            if marked.visibility in visibility}


def test_a_student_s_folder_holds_only_what_they_may_see(marked):
    for pages in (marked.before, marked.after):
        for student, files in pages.items():
            assert {name for name in files if "/" not in name} == {"feedback.html",
                                                                   "feedback.txt"}, student
    for student in marked.before:
        folder = marked.out / "instructor" / student
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert {"report.txt", "results.json"} <= {path.name for path in folder.iterdir()}
    assert stat.S_IMODE((marked.out / "instructor").stat().st_mode) == 0o700


def test_before_the_deadline_only_the_worked_examples_are_shown(marked):
    visible = ids({"visible"})
    assert len(visible) == 8  # the handouts' worked examples, simulate's among them
    for student, files in marked.before.items():
        if student in ("gus",):
            continue
        assert shown_files(files) == case_files(visible), student
    page = marked.before["ann"]["feedback.txt"].decode()
    assert (f"{after_due_date_count()} cases (solitaire_1, input and its end; solitaire_1, "
            "more games; solitaire_1, simulate; solitaire_1, fresh games and simulations; "
            "solitaire_2, input and its end; solitaire_2, more games; solitaire_2, fresh games; "
            "solitaire_2, simulate) shown from 2027-03-14 09:00 (Australia/Sydney), once no late "
            "submission can be accepted") in page
    assert "12 cases (solitaire_2, the viewer) never shown, now or later" in page


def test_after_the_late_window_the_after_due_date_cases_are_shown(marked):
    shown = ids({"visible", "after_due_date"})
    assert len(shown) == len(ids({"visible", "after_due_date", "hidden"})) - 12  # not the viewer's
    drawn = fresh_files(marked.out, "ann")
    assert len(drawn) == 2 * 4 + 2 * 3 + 2 * 4  # .in (none for a simulate), .out, .status, .err
    assert shown_files(marked.after["ann"]) == case_files(shown) | drawn
    eve = marked.after["eve"]["feedback.html"].decode()
    failing = [marked_case.case.id for marked_case in SEEDED.marked_cases["solitaire_1"]
               if b"Eighth" in marked_case.case.stdout and marked_case.visibility != "visible"]
    headings = re.findall(r'<h3 class="failed">(.*?)</h3>', eve)
    assert failing and all(any(re.search(rf"\b{re.escape(case)}\b", heading)
                               for heading in headings) for case in failing), headings
    assert "12 cases (solitaire_2, the viewer) never shown, now or later" in \
        marked.after["eve"]["feedback.txt"].decode()


def test_no_hidden_case_reaches_a_student_s_folder(marked):
    """Searched in every file of every student's folder, before and after: the hidden cases'
    names and their expected outputs (those of 120 bytes or more, not part of a shown case's)."""
    hidden = [marked.case for cases in SEEDED.marked_cases.values() for marked in cases
              if marked.visibility == "hidden"]
    shown = b"\0".join(marked.case.stdout for cases in SEEDED.marked_cases.values()
                       for marked in cases if marked.visibility != "hidden")
    secrets = [case.name.encode() for case in hidden] + [
        case.stdout for case in hidden if len(case.stdout) >= 120 and case.stdout not in shown]
    assert len(secrets) > len(hidden)
    for pages in (marked.before, marked.after):
        for student, files in pages.items():
            for name, data in files.items():
                for secret in secrets:
                    assert secret not in data, (student, name, secret[:60])


def test_the_marks_of_every_group_are_on_the_page(marked):
    eve = marked.after["eve"]["feedback.txt"].decode()
    for program, cases in SEEDED.marked_cases.items():
        for group in {marked_case.group for marked_case in cases}:
            assert f"  {program}, {group}: " in eve, (program, group)
    assert "solitaire_2, the viewer: 12 of 12 cases passed, 1.00 / 1.00 (never shown)" in eve


def test_the_reproduce_command_shows_the_difference_from_the_students_folder(marked, tmp_path):
    """Pasted in a folder holding eve's programs and her page's expected_outputs/."""
    for name in PROGRAMS:
        shutil.copy(marked.klass / "eve" / name, tmp_path / name)
    shutil.copytree(marked.out / "students" / "eve" / "expected_outputs",
                    tmp_path / "expected_outputs")
    data = results_of(marked.out, "eve")
    case = next(case for case in data["extra_data"]["cases"] if case["case"] ==
                "solitaire_1/seed_27")
    command = case["verdicts"][0]["reproduce"]
    assert command == ("python3 solitaire_1.py < expected_outputs/solitaire_1/seed_27.in | "
                       "diff - expected_outputs/solitaire_1/seed_27.out")
    assert command in marked.after["eve"]["feedback.txt"].decode()
    done = subprocess.run(["sh", "-c", command], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1, done
    assert "< Eigth (and last)" in done.stdout and "> Eighth (and last)" in done.stdout
