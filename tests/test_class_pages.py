"""The pages a class's marking writes (exactmark/classroom/pages.py, classroom/templates/), as examples:
every page is well-formed HTML, what a student wrote (their folder's name, their program's
output) reaches a page escaped, and a browser shows each student their name, their mark and
the visible diff.

One small class is marked once for the whole module (25 s on an idle machine, 50 s busy):

    ann          the sample solutions, unchanged: full marks
    bob          solitaire_1.py prints "Eigth" for "Eighth" (the kit's wrong program
                 solitaire_1/eigth_misspelt): one visible case fails, and 9 shown later
    cy           the same slip as bob's, made in code of cy's own: the same wrong output,
                 which the similarity scan cannot see in the code
    <b>eve<b>    a hostile folder name; solitaire_1.py prints `</pre><script>alert(1)</script>`
                 and a line of 400 characters first, and solitaire_2.py is missing

(A folder cannot be called `<b>eve</b>`: "/" separates folders. `<b>eve<b>` is as hostile:
unescaped, it would open two <b> elements that nothing closes.)

The browser tests run headless Chromium, about 1.2 s a page:

    chromium --headless=new --no-sandbox --disable-gpu --user-data-dir=DIR \
             --dump-dom | --screenshot=FILE --window-size=1000,2000  file:///.../page.html

--no-sandbox because Chromium's sandbox refuses to run as root (as in a CI container);
--user-data-dir a fresh profile, so that no run shares or leaves state in ~/.config/chromium.
--dump-dom needs JavaScript on, and an alert() then waits for a click forever: a page whose
source holds a <script> is not opened, and a render that hangs fails after CHROMIUM_TIMEOUT.
They are skipped where no `chromium` is installed (.ci/run installs it). The screenshots are
kept under pytest's temporary folder and their paths printed (pytest -s shows them).
"""

import csv
import html
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("jinja2", reason="the class's pages need jinja2: "
                    "pip install -r requirements-class.txt")

from exactmark.classroom import same_output  # noqa: E402
from exactmark.classroom import mark_class  # noqa: E402
from exactmark.diagnosis.feedback import section_of  # noqa: E402
from exactmark.kit.assignment import WRONG  # noqa: E402
from exactmark.kit.cases import ROOT  # noqa: E402
from exactmark.kit.bundle import write_all  # noqa: E402
from exactmark.kit.rules import rule_map  # noqa: E402
from exactmark.kit.variants import read_variants  # noqa: E402

HOSTILE_NAME = "<b>eve<b>"
LONG_LINE = "a line far wider than any window " * 12  # wrapped on a page, never scrolled
HOSTILE_LINE = "</pre><script>alert(1)</script>"
ESCAPED_NAME = "&lt;b&gt;eve&lt;b&gt;"
ESCAPED_LINE = "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
PROGRAMS = ("solitaire_1.py", "solitaire_2.py")
PACK_URL = "https://course.example/cs101/seeded-pack.zip?v=2&lang=en"
PACK_SAID = ("Check your work before you submit: download the student pack from {url} and unzip "
             "it; then, in the folder that holds your work, run `python3 PACK/check.py` (PACK: "
             "the pack's folder).")
MARKING_TIMEOUT = 300  # seconds; it takes 25-50 s on 2 cores
AS_OF = "2027-01-01T09:00"  # before the deadline, whenever the tests run: visible cases alone
BOBS_SLIP = next(variant for variant in read_variants(WRONG)
                 if variant.id == "solitaire_1/eigth_misspelt")
# cy's slip: the same output as bob's, from other code than his (and than the reference's)
CYS_LINE = ("    return template.format(position=POSITION_ORDINALS[len(stack.discarded)], "
            "stack=ordinal)\n")
CYS_LINES = ("    position = POSITION_ORDINALS[len(stack.discarded)].replace(\"hth\", \"th\")\n"
             "    return template.format(position=position, stack=ordinal)\n")

WINDOW = (1000, 2600)  # tall enough that bob's diff, below the marks of 12 groups and what
# his failures suggest, is in it
BAR = (74, 114, 176)  # #4a72b0, the histogram's bars (templates/summary.html)
DIFF_BACKGROUND = (246, 246, 246)  # #f6f6f6, a <pre>'s background (templates/base.html)
REMOVED, ADDED = (253, 226, 226), (220, 245, 220)  # #fde2e2 and #dcf5dc: the expected, the got
FEWEST_COLOURS = 50  # a blank page has 1; text alone brings hundreds (anti-aliasing)
CHROMIUM_TIMEOUT = 30  # seconds; a page takes 1-2 s

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
ONCE = ("html", "head", "body", "title")


# --- what pages are: a small well-formedness checker, and the text a browser shows ---------

class WellFormed(HTMLParser):
    """Problems of an HTML page: a <!DOCTYPE html> first; every non-void element closed, in
    order; one each of <html>, <head>, <body> and <title> (an SVG shape's own <title>, its
    tooltip, aside). Stricter than HTML, which lets a browser guess where an element ends: our
    templates should never make it guess."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems, self.open, self.doctypes, self.seen = [], [], 0, dict.fromkeys(ONCE, 0)
        self.started = False

    def where(self) -> str:
        line, column = self.getpos()
        return f"line {line}, column {column + 1}"

    def in_svg(self) -> bool:
        return any(name == "svg" for name, _ in self.open)

    def handle_decl(self, decl):
        if decl.lower() == "doctype html":
            self.doctypes += 1
            if self.started:
                self.problems.append(f"{self.where()}: <!DOCTYPE html> after the first element")
        else:
            self.problems.append(f"{self.where()}: unexpected declaration <!{decl}>")

    def handle_starttag(self, tag, attrs):
        self.started = True
        if tag in self.seen and not self.in_svg():  # an SVG shape may have its own <title>
            self.seen[tag] += 1
        if tag not in VOID:
            self.open.append((tag, self.where()))

    def handle_startendtag(self, tag, attrs):
        # <x/>: fine for a void element, and for anything inside <svg> (foreign content)
        self.started = True
        if tag not in VOID and not self.in_svg():
            self.problems.append(f"{self.where()}: <{tag}/> is not a void element")

    def handle_endtag(self, tag):
        if tag in VOID:
            self.problems.append(f"{self.where()}: </{tag}> closes a void element")
        elif tag not in (name for name, _ in self.open):
            self.problems.append(f"{self.where()}: </{tag}> closes nothing")
        else:
            name, opened = self.open.pop()
            if name != tag:
                self.problems.append(f"{self.where()}: </{tag}> but <{name}> (opened at "
                                     f"{opened}) is still open")
                while self.open.pop()[0] != tag:
                    pass

    def close(self):
        super().close()
        self.problems += [f"<{name}> (opened at {opened}) is never closed"
                          for name, opened in self.open]
        if self.doctypes != 1:
            self.problems.append(f"{self.doctypes} <!DOCTYPE html>, not 1")
        self.problems += [f"{count} <{tag}>, not 1" for tag, count in self.seen.items()
                          if count != 1]


def html_problems(text: str) -> list:
    checker = WellFormed()
    checker.feed(text)
    checker.close()
    return checker.problems


@dataclass
class Dom:
    """What a page holds as a browser sees it: its text, its elements, its table rows, the
    text of each <pre class="diff"> and where each link goes."""
    text: str = ""
    tags: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    diffs: list = field(default_factory=list)
    links: dict = field(default_factory=dict)  # a link's text -> its href
    scripted: list = field(default_factory=list)  # (tag, attribute) for onclick=, javascript:


class DomReader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.dom, self.texts, self.row, self.cell, self.diff, self.link = Dom(), [], None, None, \
            None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.dom.tags.append(tag)
        self.dom.scripted += [(tag, name) for name, value in attrs.items() if name.startswith("on")
                              or (value or "").strip().lower().startswith("javascript:")]
        if tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "pre" and "diff" in (attrs.get("class") or "").split():
            self.diff = []
        elif tag == "a":
            self.link = (attrs.get("href"), [])

    def handle_endtag(self, tag):
        if tag == "tr" and self.row is not None:
            self.dom.rows.append(self.row)
            self.row = None
        elif tag in ("td", "th") and self.cell is not None:
            if self.row is not None:
                self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "pre" and self.diff is not None:
            self.dom.diffs.append("".join(self.diff))
            self.diff = None
        elif tag == "a" and self.link is not None:
            href, text = self.link
            self.dom.links["".join(text).strip()] = href
            self.link = None

    def handle_data(self, data):
        self.texts.append(data)
        for part in (self.cell, self.diff, self.link and self.link[1]):
            if part is not None:
                part.append(data)

    def close(self):
        super().close()
        self.dom.text = "".join(self.texts)


def read_dom(html: str) -> Dom:
    reader = DomReader()
    reader.feed(html)
    reader.close()
    return reader.dom


# --- the class, marked once ------------------------------------------------------------------

@dataclass
class Marked:
    out: Path
    grades: dict  # student -> their row of grades.csv
    pages: dict  # student -> their feedback.html, found by the summary's link
    seconds: float


def sample_solutions(folder: Path) -> None:
    """The reference programs, as a student who copied them would hand them in."""
    write_all(folder)
    for path in folder.iterdir():
        if path.name not in PROGRAMS:
            path.unlink()


def build_class(root: Path) -> Path:
    ann, bob, cy, eve = (root / name for name in ("ann", "bob", "cy", HOSTILE_NAME))
    for student in (ann, bob, cy, eve):
        sample_solutions(student)
    program = bob / "solitaire_1.py"
    program.write_text(BOBS_SLIP.applied_to({program.name: program.read_text(encoding="utf-8")})[
        program.name], encoding="utf-8")
    program = cy / "solitaire_1.py"
    text = program.read_text(encoding="utf-8")
    assert text.count(CYS_LINE) == 1
    program.write_text(text.replace(CYS_LINE, CYS_LINES), encoding="utf-8")
    program = eve / "solitaire_1.py"
    text = program.read_text(encoding="utf-8")
    assert text.count("def main() -> None:\n") == 1
    program.write_text(text.replace("def main() -> None:\n", "def main() -> None:\n"
                                    f"    print({HOSTILE_LINE!r})\n"
                                    f"    print({LONG_LINE!r})\n"), encoding="utf-8")
    (eve / "solitaire_2.py").unlink()
    return root


@pytest.fixture(scope="module")
def marked(tmp_path_factory) -> Marked:
    submissions = build_class(tmp_path_factory.mktemp("class"))
    out = tmp_path_factory.mktemp("marked")
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "exactmark.classroom.mark_class", str(submissions),
                           "--assignment", "seeded", "--out", str(out), "--jobs", "2",
                           "--pack-url", PACK_URL, "--as-of", AS_OF],
                          cwd=ROOT, capture_output=True, text=True, timeout=MARKING_TIMEOUT)
    seconds = time.monotonic() - start
    assert done.returncode == 0, f"mark_class: status {done.returncode}\n{done.stderr[-3000:]}"
    print(f"\nmarked the class in {seconds:.1f} s: {out}")
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        grades = {row["student"]: row for row in csv.DictReader(file)}
    assert set(grades) == {"ann", "bob", "cy", HOSTILE_NAME}
    links = read_dom((out / "summary.html").read_text(encoding="utf-8")).links
    pages = {student: out / links[student] for student in grades if student in links}
    return Marked(out, grades, pages, seconds)


def all_pages(marked: Marked) -> list:
    return sorted(marked.out.rglob("*.html"))


# --- the checker itself ----------------------------------------------------------------------

GOOD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>t</title></head>
<body><p>a<br>b</p><svg><rect width="1" height="1"/><rect><title>1 to 2</title></rect></svg>
<pre class="diff">&lt;/pre&gt;</pre></body></html>"""


def test_the_checker_passes_a_well_formed_page():
    assert html_problems(GOOD) == []


@pytest.mark.parametrize("broken, problem", [
    (GOOD.replace("<!DOCTYPE html>\n", ""), "0 <!DOCTYPE html>"),
    (GOOD.replace("</p>", ""), "</body> but <p>"),
    (GOOD.replace("<p>a", "<p><b>a"), "</p> but <b>"),
    (GOOD.replace("</body>", "</body></body>"), "</body> closes nothing"),
    (GOOD.replace("</body></html>", ""), "<body> (opened at line 3, column 1) is never closed"),
    (GOOD.replace("<title>t</title>", ""), "0 <title>"),
    (GOOD.replace("<body>", "<body><body>").replace("</body>", "</body></body>"), "2 <body>"),
    (GOOD.replace("<br>", "<br></br>"), "</br> closes a void element"),
    (GOOD.replace("<br>", "<p/>"), "<p/> is not a void element"),
    # what an unescaped student would do to a page
    (GOOD.replace("&lt;/pre&gt;", HOSTILE_LINE), "</pre> closes nothing"),
    (GOOD.replace("<p>a", f"<p>{HOSTILE_NAME}"), "</p> but <b>"),
], ids=["no doctype", "unclosed p", "misnested", "stray end tag", "never closed", "no title",
        "two bodies", "void end tag", "self-closed p", "hostile output", "hostile name"])
def test_the_checker_finds_a_broken_page(broken, problem):
    problems = html_problems(broken)
    assert any(problem in found for found in problems), problems


# --- the pages as files ----------------------------------------------------------------------

def test_each_student_has_a_feedback_page_linked_from_the_summary(marked):
    assert set(marked.pages) == set(marked.grades)
    for student, page in marked.pages.items():
        assert page.name == "feedback.html" and page.is_file(), (student, page)
    assert marked.pages["bob"] == marked.out / "students" / "bob" / "feedback.html"


def test_each_students_pages_say_where_the_student_pack_is_and_how_to_run_it(marked):
    for student, page in marked.pages.items():
        source = page.read_text(encoding="utf-8")
        link = f'<a href="{html.escape(PACK_URL)}"'
        assert link in source, f"{student}: no link to the pack"
        shown = PACK_SAID.format(url=PACK_URL).replace("`", "")  # the command, as code
        assert html.unescape(re.sub(r"<[^>]+>", "", source)).count(shown) == 1
        assert "<code>python3 PACK/check.py</code>" in source
        text = page.with_name("feedback.txt").read_text(encoding="utf-8")
        assert PACK_SAID.format(url=PACK_URL) in text, student


def test_every_page_is_well_formed(marked):
    pages = all_pages(marked)
    assert marked.out / "summary.html" in pages
    assert set(marked.pages.values()) <= set(pages)
    for page in pages:
        problems = html_problems(page.read_text(encoding="utf-8"))
        assert problems == [], f"{page.relative_to(marked.out)}:\n" + "\n".join(problems)


def test_no_page_holds_a_students_markup_raw(marked):
    for page in all_pages(marked):
        html = page.read_text(encoding="utf-8")
        where = page.relative_to(marked.out)
        assert HOSTILE_LINE not in html and "<script" not in html, where
        assert HOSTILE_NAME not in html, where


def test_what_a_student_wrote_is_there_escaped(marked):
    summary = (marked.out / "summary.html").read_text(encoding="utf-8")
    eve = marked.pages[HOSTILE_NAME].read_text(encoding="utf-8")
    assert ESCAPED_NAME in summary
    assert f'<strong class="student">{ESCAPED_NAME}</strong>' in eve
    assert "<title>" in eve and f"{ESCAPED_NAME}</title>" in eve
    assert ESCAPED_LINE in eve


# --- what the class's failures suggest ---------------------------------------------------------

def rows_under(dom: Dom, header: list) -> list:
    """The rows of the table whose header row is `header`: those after it as long as it."""
    at = dom.rows.index(header)
    rows = []
    for row in dom.rows[at + 1:]:
        if len(row) != len(header):
            break
        rows.append(row)
    return rows


SAME_OUTPUT = ["students", "score", "the cases, and how many students gave that output",
               "their code's similarity (the scan above)"]
RULES = ["section", "the handout says", "rule", "students"]


def test_the_summary_lists_a_pair_that_shares_a_rare_wrong_output_while_their_code_differs(
        marked):
    """bob and cy print "Eigth" alike, on every case where an Ace is eighth in its stack, and
    no one else does; their code differs where the slip is, and the similarity scan lists
    nothing of theirs."""
    bob, cy = (marked.out / mark_class.INSTRUCTOR / name / mark_class.PROGRAMS / "solitaire_1"
               for name in ("bob", "cy"))  # as the similarity scan read them
    assert bob.read_text(encoding="utf-8") != cy.read_text(encoding="utf-8")
    with open(marked.out / "similarity.csv", newline="", encoding="utf-8") as file:
        assert not any({row["student_a"], row["student_b"]} == {"bob", "cy"}
                       for row in csv.DictReader(file))
    summary = read_dom((marked.out / "summary.html").read_text(encoding="utf-8"))
    pairs = rows_under(summary, SAME_OUTPUT)
    assert [row[0] for row in pairs] == ["bob and cy"], pairs
    _, score, cases, code = pairs[0]
    shared = cases.split("; ")
    assert "solitaire_1/seed_27: only these two" in shared, shared  # the visible case bob fails
    assert all(case.endswith(": only these two") for case in shared), shared
    assert float(score) == len(shared) and code == same_output.NO_CODE_SIMILAR
    assert same_output.FLAG in summary.text


def test_the_summary_ranks_the_rules_the_class_breaks_with_the_handouts_sentence(marked):
    """bob's and cy's slip breaks one rule: 2 of the 4 students who handed solitaire_1 in."""
    rule = rule_map(SEEDED.programs["solitaire_1"]).rules[BOBS_SLIP.rule]
    summary = read_dom((marked.out / "summary.html").read_text(encoding="utf-8"))
    ranked = rows_under(summary, RULES)
    assert ranked and ranked[0] == [section_of(rule.section), " ".join(rule.quote.split()),
                                    rule.id, "2 of 4 (50%)"], ranked


def test_bobs_page_names_his_slip_from_the_visible_case_alone(marked):
    """Before the deadline his page rests on seed_27, the one visible case he fails, and
    names none of the 9 cases shown after it."""
    page = marked.pages["bob"].with_name("feedback.txt").read_text(encoding="utf-8")
    suggested = page.partition("What your failures suggest:\n")[2].partition("\n\n")[0]
    assert f"as does a program that {BOBS_SLIP.mistake}." in suggested, page
    later = {marked_case.case.name for marked_case in SEEDED.marked_cases["solitaire_1"]
             if marked_case.visibility != "visible"}
    words = set(re.findall(r"\w+", suggested))
    assert "seed_27" in words and not words & later, suggested


# --- the pages in a browser ------------------------------------------------------------------

SHOWN = {"summary": None, "bob": "bob", "eve": HOSTILE_NAME}  # page -> the student it is for


@dataclass
class Rendered:
    dom: Dom
    html: str
    screenshot: Path


@pytest.fixture(scope="module")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip("no chromium binary on PATH: the browser tests need headless Chromium "
                    "(apt-get install chromium; .ci/run installs it)")
    return found


def run_chromium(binary: str, profile: Path, page: Path, *options: str) -> str:
    command = [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={profile}", "--hide-scrollbars", *options, page.as_uri()]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"chromium {' '.join(options)}: still rendering {page} after "
                    f"{CHROMIUM_TIMEOUT} s (a script's alert() waits for a click forever)")
    assert done.returncode == 0, f"chromium: status {done.returncode}\n{done.stderr[-3000:]}"
    return done.stdout


class Browser:
    """The pages of SHOWN as Chromium renders them (the DOM after rendering, and a screenshot),
    each rendered once, when a test first asks for it."""

    def __init__(self, binary: str, pages: dict, shots: Path, profile: Path):
        self.binary, self.pages, self.shots, self.profile = binary, pages, shots, profile
        self.done, self.failed = {}, {}

    def __getitem__(self, key: str) -> Rendered:
        if key in self.failed:
            pytest.fail(self.failed[key])
        if key not in self.done:
            try:
                self.done[key] = self.render(key)
            except pytest.fail.Exception as failure:
                self.failed[key] = str(failure)
                raise
        return self.done[key]

    def render(self, key: str) -> Rendered:
        page = self.pages[key]
        if "<script" in page.read_text(encoding="utf-8").lower():
            # Chromium would run it: an alert() would hold the page open until the timeout
            pytest.fail(f"{page} holds a <script>: not opened in a browser")
        start = time.monotonic()
        html = run_chromium(self.binary, self.profile, page, "--dump-dom")
        middle = time.monotonic()
        screenshot = self.shots / f"{key}.png"
        run_chromium(self.binary, self.profile, page, f"--screenshot={screenshot}",
                     "--window-size={},{}".format(*WINDOW))
        end = time.monotonic()
        print(f"\n{key}: DOM in {middle - start:.1f} s, screenshot in {end - middle:.1f} s: "
              f"{screenshot}")
        return Rendered(read_dom(html), html, screenshot)


@pytest.fixture(scope="module")
def rendered(chromium, marked, tmp_path_factory) -> Browser:
    pages = {key: marked.pages[student] if student else marked.out / "summary.html"
             for key, student in SHOWN.items()}
    return Browser(chromium, pages, tmp_path_factory.mktemp("screenshots"),
                   tmp_path_factory.mktemp("chromium-profile"))


def test_the_summary_shows_every_students_name_and_mark(marked, rendered):
    summary = rendered["summary"].dom
    header = next(row for row in summary.rows if row[:1] == ["student"])
    for student, grades in marked.grades.items():
        assert student in summary.text
        rows = [row for row in summary.rows if row and row[0] == student]
        assert len(rows) == 1, (student, summary.rows)
        shown = dict(zip(header, rows[0]))
        assert [shown[column] for column in ("solitaire_1", "solitaire_2", "mark")] == [
            grades["solitaire_1"], grades["solitaire_2"], grades["mark"]], (student, shown)
        assert summary.links[student] == marked.pages[student].relative_to(marked.out).as_posix()


@pytest.mark.parametrize("key", ["bob", "eve"])
def test_a_feedback_page_shows_the_students_name_and_mark(marked, rendered, key):
    student = SHOWN[key]
    dom = rendered[key].dom
    assert student in dom.text
    assert f"Mark: {marked.grades[student]['mark']} / " in dom.text, dom.text[:500]
    # a name such as <b>eve<b> is text on the page, never an element
    assert "b" not in dom.tags


def test_a_browser_shows_the_pair_that_gives_the_same_wrong_output(rendered):
    assert [row[0] for row in rows_under(rendered["summary"].dom, SAME_OUTPUT)] == ["bob and cy"]


def test_bobs_page_shows_his_diff(rendered):
    lines = [line for diff in rendered["bob"].dom.diffs for line in diff.splitlines()]
    assert any(line.startswith("-Eighth") for line in lines), lines
    assert any(line.startswith("+Eigth") for line in lines), lines


def test_eves_page_shows_her_output_as_text(rendered):
    assert any(HOSTILE_LINE in diff for diff in rendered["eve"].dom.diffs), rendered["eve"].dom
    assert "missing program" in rendered["eve"].dom.text


@pytest.mark.parametrize("key", list(SHOWN))
def test_no_page_runs_a_script(rendered, key):
    assert "script" not in rendered[key].dom.tags
    assert "<script" not in rendered[key].html
    assert rendered[key].dom.scripted == []  # nor onerror=..., href="javascript:..."


def pixels(screenshot: Path) -> dict:
    """colour -> how many pixels have it."""
    from PIL import Image
    with Image.open(screenshot) as image:
        assert image.size == WINDOW, (screenshot, image.size)
        return {colour: count for count, colour in
                image.convert("RGB").getcolors(maxcolors=WINDOW[0] * WINDOW[1])}


@pytest.mark.parametrize("key", list(SHOWN))
def test_the_screenshot_is_the_window_and_not_blank(rendered, key):
    colours = pixels(rendered[key].screenshot)
    assert len(colours) >= FEWEST_COLOURS, (rendered[key].screenshot, len(colours))


def test_the_histogram_is_drawn(rendered):
    screenshot = rendered["summary"].screenshot
    assert pixels(screenshot).get(BAR, 0) >= 1000, screenshot


def test_bobs_diff_has_its_background(rendered):
    screenshot = rendered["bob"].screenshot
    assert pixels(screenshot).get(DIFF_BACKGROUND, 0) >= 10000, screenshot


def test_the_expected_and_the_got_lines_have_their_colours(rendered):
    screenshot = rendered["bob"].screenshot
    colours = pixels(screenshot)
    assert colours.get(REMOVED, 0) >= 5000 and colours.get(ADDED, 0) >= 5000, screenshot


def test_spaces_are_drawn_only_where_they_matter(rendered):
    """bob's lines differ in a letter: their single spaces are spaces, not dots."""
    lines = [line for diff in rendered["bob"].dom.diffs for line in diff.splitlines()]
    assert "-Eighth (and last) card in second stack" in "\n".join(lines), lines


OVERFLOW_PROBE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>probe</title></head><body style="margin:0">
<iframe id="page" src="{page}" style="width:{width}px; height:{height}px; border:0"></iframe>
<pre id="overflow"></pre>
<script>
function probe() {{
  var doc = document.getElementById("page").contentDocument, found = [];
  var root = doc.scrollingElement;
  if (root.scrollWidth > root.clientWidth) found.push("the page: " + root.scrollWidth + " px wide");
  doc.querySelectorAll("body *").forEach(function (element) {{
    var style = getComputedStyle(element);
    if (style.overflowX !== "visible" && element.scrollWidth > element.clientWidth + 1)
      found.push(element.tagName.toLowerCase() + "." + element.className + ": " +
                 element.scrollWidth + " px in " + element.clientWidth);
  }});
  document.getElementById("overflow").textContent = JSON.stringify(found);
}}
document.getElementById("page").addEventListener("load", probe);
</script></body></html>
"""


@pytest.mark.parametrize("key", list(SHOWN))
def test_nothing_on_a_page_scrolls_sideways_at_1280_px(chromium, rendered, key, tmp_path):
    """Lines wrap: neither the page nor any box on it (a diff, a command) is wider than the
    window, so no sentence is cut off by a scroll bar. Measured by a probe page of the test's
    own that frames the page and reads its layout (the page itself runs no script)."""
    probe = tmp_path / "probe.html"
    probe.write_text(OVERFLOW_PROBE.format(page=rendered.pages[key].as_uri(), width=1280,
                                           height=1400), encoding="utf-8")
    dom = run_chromium(chromium, tmp_path / "profile", probe, "--dump-dom",
                       "--allow-file-access-from-files", "--window-size=1300,1500")
    found = re.search(r'<pre id="overflow">(.*?)</pre>', dom, re.S)
    assert found and found[1], f"the probe did not run:\n{dom[-2000:]}"
    assert json.loads(html.unescape(found[1])) == [], rendered.pages[key]


# --- what the pages say, from markings made up here (no run) -----------------------------------

from datetime import datetime, timezone  # noqa: E402

from exactmark.classroom import pages as class_pages  # noqa: E402
from exactmark.classroom.mark_class import Outcome  # noqa: E402
from exactmark.classroom.roster import Student  # noqa: E402
from exactmark.classroom.similarity import Pair, Scan  # noqa: E402
from exactmark.diagnosis.diagnose import Diagnosis  # noqa: E402
from exactmark.kit.rules import Rule  # noqa: E402
from exactmark.kit.assignment import MarkedCase, load  # noqa: E402
from exactmark.kit.cases import Case  # noqa: E402
from exactmark.marking import records  # noqa: E402
from exactmark.marking.verdicts import Kind  # noqa: E402

SEEDED = load("seeded")
BEFORE_THE_DEADLINE = class_pages.View(SEEDED, datetime(2027, 1, 1, tzinfo=timezone.utc), False)
AFTER_THE_WINDOW = class_pages.View(SEEDED, datetime(2027, 4, 1, tzinfo=timezone.utc), False)
PUBLISHED = class_pages.View(SEEDED, datetime(2027, 1, 1, tzinfo=timezone.utc), True)
QUOTING = "line 3: replace `<b>Eigth</b>` with `Eighth`"


def made_up(name: str, handed_in=("solitaire_1", "solitaire_2"), refused: str = "",
            failing: str = "", printed: str = "", diagnoses=()) -> Outcome:
    """A student's outcome as the marker would record it: every case of the programs
    `handed_in` passes (their fresh cases among them), but `failing` (a case id), whose
    sentence quotes two lines, and whose output changed line 3 of the expected; `printed`:
    its digest; `diagnoses`: the record's (diagnose.Diagnosis)."""
    student = Student(name, Path(name), "refused" if refused else "folder", folder=name)
    if refused:
        return Outcome(student, refused=refused)
    cases, programs = [], {}
    for program, marked_cases in SEEDED.marked_cases.items():
        marks = SEEDED.program_marks(program)
        if program not in handed_in:
            programs[program] = records.Program(marks, 0.0, False,
                                                missing=f"{program}.py is not in the submission")
            continue
        drawn = [(Case(program, f"fresh_{group.name}_{index}", Path()), group.marks / group.count,
                  group.name, group.visibility)
                 for group in SEEDED.fresh_groups(program) for index in range(group.count)]
        for marked in [*marked_cases, *(MarkedCase(*fresh, frozenset()) for fresh in drawn)]:
            failed = marked.case.id == failing
            verdicts = (records.Verdict("stdout, stdin piped", Kind.WRONG, QUOTING, (), "", "", ""),
                        ) if failed else ()
            cases.append(records.Case(marked.case.id, program, marked.case.name, marked.group,
                                      marked.visibility, marked.marks,
                                      0.0 if failed else marked.marks, not failed,
                                      Kind.WRONG if failed else Kind.PASS, "", "", verdicts,
                                      digest=printed if failed else "",
                                      lines=((2, 3),) if failed else ()))
        programs[program] = records.Program(marks, sum(c.earned for c in cases
                                                       if c.program == program), True)
    data = records.MarkingRecord("seeded", (), "", (), (), sum(p.earned for p in programs.values()),
                                 programs, None, tuple(cases), diagnoses=tuple(diagnoses))
    return Outcome(student, {"score": data.raw_score, "extra_data": data.to_dict()})


def page_of(outcome: Outcome, name: str = "feedback.txt", view=BEFORE_THE_DEADLINE) -> str:
    row = class_pages.grade_row(outcome, SEEDED)
    return class_pages.TEMPLATES.get_template(name).render(
        **class_pages.feedback_of(outcome, row, view))


def test_a_program_not_handed_in_is_said_once_and_its_cases_not_counted():
    outcome = made_up("gus", handed_in=("solitaire_1",))
    cases = SEEDED.case_count("solitaire_1")  # 4 of them fresh
    assert class_pages.grade_row(outcome, SEEDED).cases == cases
    page = page_of(outcome)
    assert f"Status: missing program. Cases passed: {cases} of {cases}.\n" in page
    assert "  solitaire_2, the worked examples: 3 cases, none run, 0.00 / 1.50 (shown)\n" in page
    assert "  solitaire_1, the worked examples: 3 of 3 cases passed, 1.50 / 1.50 (shown)\n" in page
    assert ("4 cases of solitaire_2, not listed: it was not handed in (it is named above).\n"
            in page), page
    every = sum(SEEDED.case_count(program) for program in SEEDED.programs)
    assert "0 of 3 cases passed" not in page and f"of {every}" not in page


def test_a_refused_submission_counts_no_case_and_says_none_ran():
    page = page_of(made_up("dan", refused="dan.zip: not a zip archive"))
    assert "Status: refused.\n- dan.zip: not a zip archive\n" in page
    assert "Cases passed" not in page and "cases passed" not in page, page
    assert "No case ran: the submission was refused (why is above).\n" in page
    assert "No case of this assignment is shown yet" not in page


def test_a_group_never_shown_is_named_and_what_never_means_is_said():
    page = page_of(made_up("ann"))
    assert ("12 cases (solitaire_2, the viewer) never shown, now or later: neither their input "
            "nor their output; how many pass and what they earn are in their groups above.\n"
            in page), page
    after_due_date = sum(marked.visibility == "after_due_date"
                         for cases in SEEDED.marked_cases.values() for marked in cases) + sum(
        group.count for program in SEEDED.programs for group in SEEDED.fresh_groups(program))
    assert (f"{after_due_date} cases (solitaire_1, input and its end; solitaire_1, more games; "
            "solitaire_1, simulate; solitaire_1, fresh games and simulations; solitaire_2, input "
            "and its end; solitaire_2, more games; solitaire_2, fresh games; solitaire_2, "
            "simulate) shown from 2027-03-14 09:00 (Australia/Sydney), once no late submission "
            "can be accepted; their marks are counted in their groups above.\n") in page, page


def test_a_sentences_quotes_are_code_on_the_page_and_what_they_quote_is_escaped():
    page = page_of(made_up("bob", failing="solitaire_1/seed_27"), "feedback.html")
    assert ("wrong output</strong>: line 3: replace <code>&lt;b&gt;Eigth&lt;/b&gt;</code> with "
            "<code>Eighth</code></p>") in page
    assert "`" not in read_dom(page).text and html_problems(page) == []
    assert QUOTING in page_of(made_up("bob", failing="solitaire_1/seed_27")), \
        "a text page keeps the backticks"


@pytest.mark.parametrize("text, shown", [
    ("replace `a` with `b`", "replace <code>a</code> with <code>b</code>"),
    ("`` a quote holding ` ``", "<code> a quote holding ` </code>"),
    ("a lone ` stays", "a lone ` stays"),
    ("`<script>`", "<code>&lt;script&gt;</code>"),
])
def test_a_quote_is_read_as_markdown_reads_it(text, shown):
    assert class_pages.code_spans(text) == shown


def test_the_summary_says_what_it_counts_in_words_that_fit_the_numbers(tmp_path):
    ann = made_up("ann")
    row = class_pages.grade_row(ann, SEEDED)
    scanned = Scan(pairs=[], cut={}, left_out={}, taken={})
    class_pages.write_summary(tmp_path, [ann], [row], scanned, BEFORE_THE_DEADLINE,
                              {"ann": "students/ann"}, 0.5)
    page = (tmp_path / "summary.html").read_text(encoding="utf-8")
    assert html_problems(page) == []
    text = read_dom(page).text
    assert "1 student marked; mean mark 13.00 / 13.00." in text
    assert ("No pair shares code beyond it with a score of at least 0.5: similarity.csv lists "
            "none.") in text and "all 0" not in text
    assert "<th></th>" not in page
    edges = re.findall(r'<text x="[0-9.]+" y="228"[^>]*>([^<]*)</text>', page)
    assert edges == ["0.00", "1.30", "2.60", "3.90", "5.20", "6.50", "7.80", "9.10", "10.40",
                     "11.70", "13.00"], "each bar between its two edges"
    assert "<title>0.00 to under 1.30: 0</title>" in page
    assert "<title>11.70 to 13.00: 1</title>" in page


def test_entries_refused_count_in_neither_the_mean_nor_the_chart(tmp_path):
    """A stray notes.txt in the class folder is listed, refused, with 0: it is no student's
    mark, so the class's mean is that of the students marked."""
    outcomes = [made_up("ann"), made_up("bob", handed_in=("solitaire_1",)),
                made_up("notes.txt", refused="'notes.txt' is neither a folder nor an archive")]
    rows = [class_pages.grade_row(outcome, SEEDED) for outcome in outcomes]
    scanned = Scan(pairs=[], cut={}, left_out={}, taken={})
    class_pages.write_summary(tmp_path, outcomes, rows, scanned, BEFORE_THE_DEADLINE,
                              {row.student: f"students/{row.student}" for row in rows}, 0.5)
    page = (tmp_path / "summary.html").read_text(encoding="utf-8")
    mean = (rows[0].mark + rows[1].mark) / 2
    assert (f"2 students marked; mean mark {mean:.2f} / 13.00; 1 entry refused, below, not "
            "counted in the mean or the chart.") in read_dom(page).text
    assert sum(int(count) for count in re.findall(r"<title>[^<]*: (\d+)</title>", page)) == 2


# --- what the failures suggest, from diagnoses made up here ----------------------------------

def said_at(level: str, said=None, by_rule=None) -> Diagnosis:
    """solitaire_1's diagnosis at `level`, its lines saying which level they are (a quote in
    them, as the handout's sentences have, and markup, which a page escapes)."""
    return Diagnosis("solitaire_1", level, ("solitaire_1/eigth_misspelt",), ("position-ordinals",),
                     (f"named at {level}: `<{level}>`",) if said is None else said,
                     (f"by rule at {level}",) if by_rule is None else by_rule)


EACH_LEVEL = tuple(said_at(level) for level in ("visible", "after_due_date", "hidden"))


@pytest.mark.parametrize("view, level", [(BEFORE_THE_DEADLINE, "visible"),
                                         (AFTER_THE_WINDOW, "after_due_date"),
                                         (PUBLISHED, "after_due_date")],
                         ids=["before the deadline", "after the window", "published"])
def test_a_page_says_the_diagnosis_of_the_cases_it_shows_and_of_no_other(view, level):
    """seeded has no case shown once published alone: published, a page shows the cases
    shown after the due date, and their diagnosis. The hidden cases' never."""
    outcome = made_up("bob", failing="solitaire_1/seed_27", diagnoses=EACH_LEVEL)
    text = page_of(outcome, view=view)
    assert (f"What your failures suggest:\n  solitaire_1:\n    named at {level}: `<{level}>`\n"
            f"    - by rule at {level}\n") in text, text
    page = page_of(outcome, "feedback.html", view)
    assert (f"<h3>solitaire_1</h3>\n<p>named at {level}: <code>&lt;{level}&gt;</code></p>\n"
            f'<ul class="by-rule">\n<li>by rule at {level}</li>\n</ul>') in page, page
    assert html_problems(page) == []
    for other in {"visible", "after_due_date", "hidden"} - {level}:
        assert f"at {other}" not in text and f"at {other}" not in page


def test_a_diagnosis_that_says_nothing_is_not_shown():
    outcome = made_up("bob", failing="solitaire_1/seed_27",
                      diagnoses=(said_at("visible", said=(), by_rule=()),))
    assert "suggest" not in page_of(outcome) and "suggest" not in page_of(outcome, "feedback.html")


def rule(rule_id: str) -> Rule:
    return Rule(rule_id, "5. Output, in order", f"the sentence of {rule_id}", Path("handout.md"))


def test_rules_are_ranked_by_the_students_who_break_them_each_counted_once():
    """b is a rule of both programs (one's rule list takes the other's): ann breaks it in
    both, and counts once; its share is of everyone who handed in either program. c and d,
    one student each, come in the handouts' order; a rule id no rule map has is left out."""
    a, b, c, d = (rule(rule_id) for rule_id in "abcd")
    rules = {"solitaire_1": {"a": a, "b": b, "c": c}, "solitaire_2": {"b": b, "d": d}}
    named = {"ann": {("solitaire_1", "b"), ("solitaire_2", "b")},
             "bob": {("solitaire_1", "b"), ("solitaire_1", "c")},
             "cy": {("solitaire_2", "d"), ("solitaire_1", "unmapped")}, "dee": set()}
    handed_in = {"solitaire_1": {"ann", "bob"}, "solitaire_2": {"ann", "cy", "dee"}}
    ranked = class_pages.ranked_rules(named, rules, handed_in)
    assert [(broken.rule, broken.students, broken.of) for broken in ranked] == [
        (b, 2, 4), (c, 1, 2), (d, 1, 3)]
    assert [broken.said for broken in ranked] == ["2 of 4 (50%)", "1 of 2 (50%)", "1 of 3 (33%)"]


def test_the_summary_ranks_the_rules_and_lists_the_same_wrong_output_with_names_escaped(
        tmp_path):
    slip = said_at("hidden")
    outcomes = [made_up("ann"),
                made_up("bob", failing="solitaire_1/seed_27", printed="5e1f" * 4,
                        diagnoses=(slip,)),
                made_up(HOSTILE_NAME, failing="solitaire_1/seed_27", printed="5e1f" * 4,
                        diagnoses=(slip,))]
    rows = [class_pages.grade_row(outcome, SEEDED) for outcome in outcomes]
    scanned = Scan(pairs=[Pair(HOSTILE_NAME, "bob", "solitaire_2", 0.42, "", 0.5)], cut={},
                   left_out={}, taken={})
    class_pages.write_summary(tmp_path, outcomes, rows, scanned, BEFORE_THE_DEADLINE,
                              {row.student: f"students/{row.student}" for row in rows})
    page = (tmp_path / "summary.html").read_text(encoding="utf-8")
    assert html_problems(page) == [] and HOSTILE_NAME not in page
    summary = read_dom(page)
    broken = rule_map(SEEDED.programs["solitaire_1"]).rules["position-ordinals"]
    assert rows_under(summary, RULES) == [[section_of(broken.section),
                                           " ".join(broken.quote.split()), "position-ordinals",
                                           "2 of 3 (67%)"]]
    assert rows_under(summary, SAME_OUTPUT) == [[f"{HOSTILE_NAME} and bob", "1.00",
                                                 "solitaire_1/seed_27: only these two",
                                                 "solitaire_2: 42.0%"]]
    assert f"<td>{ESCAPED_NAME} and bob</td>" in page
