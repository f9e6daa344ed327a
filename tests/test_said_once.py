"""Each mistake said once: one word a student changed ("You won!" printed as "You win!")
makes the same difference in every case that prints it, at another line in each; the
report's "What differs" and the student's page say it once, with how many cases and which.

The submission is marked once for the module (solitaire_1's seeds: a few seconds)."""

import datetime
import html
import re
from pathlib import Path

import pytest

from exactmark.kit.assignment import load
from tests.test_mark import submission
from tests.test_mark_assignments import run_marker

pytest.importorskip("jinja2", reason="the class's pages need jinja2: "
                    "pip install -r requirements-class.txt")

from exactmark.classroom import pages  # noqa: E402
from exactmark.classroom.mark_class import Outcome  # noqa: E402
from exactmark.classroom.roster import Student  # noqa: E402

WON, WIN = "You won!", "You win!"


@pytest.fixture(scope="module")
def one_word(tmp_path_factory):
    """(the cases that print WON, the report, results.json) of solitaire_1 printing WIN."""
    folder = submission(tmp_path_factory.mktemp("one_word"), "solitaire_1.py",
                        f'WON = "{WON}"', f'WON = "{WIN}"')
    status, report, _, written = run_marker(folder, "--only", "solitaire_1/seed_*")
    assert status == 1, report
    seeded = load("seeded")
    winners = [marked.case.id for marked in seeded.marked_cases["solitaire_1"]
               if marked.case.name.startswith("seed_") and WON in marked.case.stdout.decode()]
    return winners, report, written


def what_differs(report: str) -> str:
    return report.partition("\nWhat differs\n")[2]


def test_one_wrong_word_across_its_cases_is_one_way_of_failing_in_the_report(one_word):
    winners, report, _ = one_word
    assert len(winners) == 13, winners  # the seeds whose game is won
    differs = what_differs(report)
    assert differs.count("--- expected") == 1, differs
    heads = [line for line in differs.splitlines() if line and not line.startswith((" ", "@", "-", "+"))]
    assert heads[0] == f"13 cases differ the same way: {', '.join(winners)}", differs
    assert re.search(rf"^  as in {re.escape(winners[0])}: line [0-9]+: replace `{WIN}` "
                     rf"with `{WON}`$", differs, re.M), differs


def test_one_wrong_word_across_its_cases_is_one_section_of_the_page(one_word, tmp_path):
    winners, _, written = one_word
    seeded = load("seeded")
    student = Student("ann", tmp_path, "folder")
    outcome = Outcome(student, written)
    view = pages.View(seeded, seeded.deadline + datetime.timedelta(days=30), published=True)
    row = pages.grade_row(outcome, seeded)
    folder = tmp_path / "ann"
    pages.write_feedback(folder, outcome, row, view)
    page = (folder / "feedback.html").read_text(encoding="utf-8")
    text = (folder / "feedback.txt").read_text(encoding="utf-8")
    said = f"13 cases fail the same way: {', '.join(winners)}"
    assert page.count('<pre class="diff">') == 1, page
    assert f'<h3 class="failed">{html.escape(said)}</h3>' in page, page
    assert f"- {said}\n  As in {winners[0]} (" in text, text
    assert text.count("--- expected") == 1, text
    for case in winners:  # its files, to reproduce any of them
        assert (folder / "expected_outputs" / Path(case).parent.name / f"{Path(case).name}.in").exists()


@pytest.fixture(scope="module")
def debug_line(tmp_path_factory):
    """(the report, results.json) of solitaire_1 printing its seed on stderr in each game."""
    folder = submission(tmp_path_factory.mktemp("debug_line"), "solitaire_1.py",
                        "    seed = console.read_seed()\n",
                        "    seed = console.read_seed()\n"
                        "    print('DEBUG: seed is', seed, file=__import__('sys').stderr)\n")
    status, report, _, written = run_marker(folder, "--only", "solitaire_1/seed_*")
    assert status == 1, report
    return report, written


def test_a_debug_line_on_stderr_in_every_case_is_one_way_of_failing(debug_line):
    """The seeded cases expect an empty stderr; the line differs in every case (its seed),
    and is one line to remove: one group, said with why stderr counts."""
    report, written = debug_line
    seeds = [test["name"] for test in written["tests"] if test["name"].startswith("solitaire_1/seed_")]
    differs = what_differs(report)
    assert differs.count("--- expected") == 1, differs
    assert differs.startswith(f"\n{len(seeds)} cases differ the same way: {', '.join(seeds)}\n"), \
        differs
    assert re.search(r"^  as in solitaire_1/seed_0: 1 line on stderr, where the case expects "
                     r"none \(stderr is checked too\): `DEBUG: seed is 0`$", differs, re.M), differs
    groups = {verdict["difference"] for case in written["extra_data"]["cases"]
              for verdict in case["verdicts"]}
    assert len(groups) == 1, groups
