"""The Golf and Little Spider project's phase 1 (assignments/golf_tests.toml,
docs/golf_tests.md): a team hands in its test cases of both games and a patience.py that
passes them; each case is marked valid on the reference, the valid ones run on the
hidden wrong programs, and on the team's own program."""

import os
import shutil
from pathlib import Path

import pytest

from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT, Case
from exactmark.kit.assignment import load
from exactmark.kit.bundle import write_program
from tests.test_mark import TIMEOUT, mark, spun

GOLF_TESTS = load("golf_tests")
PATIENCE = GOLF_TESTS.programs["patience"]
GOLF, LITTLE_SPIDER = GOLF_TESTS.student_groups("patience")
CASE_FILES = (".in", ".args", ".out", ".status", ".err")
# Seed 1 deals the King of Hearts on top of tableau pile 4: a team that misreads "The
# stock's top card may always go onto it" as "any card may go on the empty homecell"
# expects `4 h` to put it there; the reference refuses it.
KING_ARGS = b"golf\n--seed\n1\n"
KING_INPUT = b"4 h\nquit\n"
KING_REFUSED = "> 🂾 cannot go on homecell h: only the stock's top card goes on the empty homecell."


def team(tmp_path: Path, golf=(), little_spider=(), program=True) -> Path:
    """A team's submission: the kit's golden cases named, as their cases of each game, and
    the sample solution as their patience.py."""
    folder = tmp_path / "team"
    for group, names in ((GOLF, golf), (LITTLE_SPIDER, little_spider)):
        (folder / group.folder).mkdir(parents=True)
        for name in names:
            for suffix in CASE_FILES:
                if (EXPECTED_OUTPUTS / "patience" / f"{name}{suffix}").exists():
                    shutil.copy(EXPECTED_OUTPUTS / "patience" / f"{name}{suffix}",
                                folder / group.folder / f"{name}{suffix}")
    if program:
        write_program(PATIENCE, folder)
    return folder


def printed_by(mistake: str, args: bytes, stdin: bytes, tmp_path: Path) -> bytes:
    """What the wrong program MISTAKE prints: what a team that makes that mistake expects."""
    import subprocess
    import sys

    from exactmark.kit.variants import read_variant

    solution = {path.name: path.read_text(encoding="utf-8")
                for path, _ in write_program(PATIENCE, tmp_path / "solution")}
    wrong = read_variant(GOLF.wrong_folder / f"{mistake}.toml").applied_to(solution)
    (tmp_path / "wrong.py").write_text(wrong["patience.py"], encoding="utf-8")
    return subprocess.run([sys.executable, str(tmp_path / "wrong.py"), *args.decode().split()],
                          input=stdin, capture_output=True, check=True).stdout


def write_case(folder: Path, name: str, **files: bytes) -> None:
    for suffix, data in files.items():
        (folder / f"{name}.{suffix}").write_bytes(data)


def test_a_case_expecting_a_king_on_the_empty_homecell_loses_its_validity_alone(tmp_path):
    """A team of few cases: the King case is invalid, and the reference's diff is in a test
    shown after the due date (before, the valid test says only that it is invalid, since
    each submission would otherwise show the team the reference's screens); the valid one
    catches some mistakes, and which is in a test shown after the due date too."""
    folder = team(tmp_path, golf=["golf_won_seed_4"], little_spider=["little_spider_won_seed_4"])
    write_case(folder / GOLF.folder, "king_on_the_empty_homecell", args=KING_ARGS,
               **{"in": KING_INPUT, "out": printed_by("golf_empty_homecell_takes_tableau_card",
                                                      KING_ARGS, KING_INPUT, tmp_path)})
    status, report, tests = mark(folder, assignment="golf_tests")
    assert status == 1, report
    valid = tests["patience: your Golf cases: valid"]
    assert (valid["score"], valid["max_score"]) == (round(2 / 6, 4), 2), \
        "1 of its 2 cases is valid, of the 6 asked for"
    assert ("invalid   cases/golf/king_on_the_empty_homecell: the reference: wrong output"
            in valid["output"].splitlines())
    drawn_refusal = f"+{KING_REFUSED}".replace(" ", "␠") + "⏎"
    assert "cannot go on homecell" not in valid["output"].replace("␠", " "), \
        "the valid test, shown at once, holds no line the reference prints"
    assert ('what the reference prints on each invalid case: in the test "patience: your Golf '
            'cases: what the reference prints", shown after the due date'
            in valid["output"].splitlines())
    printed = tests["patience: your Golf cases: what the reference prints"]
    assert printed["visibility"] == "after_due_date" and "max_score" not in printed  # no "0/0"
    assert drawn_refusal in printed["output"], "the reference's diff: it refuses the King"
    thorough = tests["patience: your Golf cases: thorough"]
    assert 0 < thorough["score"] < 5 and thorough["visibility"] == "visible"
    assert thorough["output"] == "15 of 31 mistakes caught, 53% of their weight"
    mistakes = tests["patience: your Golf cases: mistakes"]
    assert mistakes["visibility"] == "after_due_date"
    assert ("caught    golf_without_king_ace_wrap (by cases/golf/golf_won_seed_4): builds the "
            "Golf homecell one rank up or down without letting King and Ace follow each other"
            in mistakes["output"])
    assert "missed    golf_empty_homecell_takes_tableau_card: " in mistakes["output"]
    own = tests["patience: your Golf cases: own code"]
    assert (own["score"], own["output"].splitlines()[0]) == (
        round(3 / 6, 4), "your program passes 1 of your 1 valid case (shared over the 6 cases "
                         "asked for)"), "invalid cases are not run on it"


REPLAY = """import sys
OUT = {OUT!r}
sys.stdin.read()
sys.stdout.write(OUT[sys.argv[1]])
"""


def test_the_worked_examples_handed_in_with_a_program_that_replays_them_earn_nothing(tmp_path):
    """The pack's two worked examples, renamed, one with `quit` put after its last command,
    and a patience.py that prints their transcripts: no case counts, so no mark."""
    folder = tmp_path / "team"
    replayed = {}
    for group, example, name in ((GOLF, "golf_won_seed_1", "my_golf"),
                                 (LITTLE_SPIDER, "little_spider_won_seed_5", "my_spider")):
        (folder / group.folder).mkdir(parents=True)
        for suffix in CASE_FILES:
            shutil.copy(EXPECTED_OUTPUTS / "patience" / f"{example}{suffix}",
                        folder / group.folder / f"{name}{suffix}")
        replayed[group.folder.split("/")[1]] = (
            EXPECTED_OUTPUTS / "patience" / f"{example}.out").read_text(encoding="utf-8")
    with open(folder / GOLF.folder / "my_golf.in", "a", encoding="utf-8") as typed:
        typed.write("quit\n")
    (folder / "patience.py").write_text(REPLAY.replace("{OUT!r}", repr(replayed)),
                                        encoding="utf-8")
    status, report, tests = mark(folder, assignment="golf_tests")
    assert "Score: 0.00/20.00" in report, report
    for group, name, example in ((GOLF, "my_golf", "golf_won_seed_1"),
                                 (LITTLE_SPIDER, "my_spider", "little_spider_won_seed_5")):
        valid = tests[f"patience: {group.name}: valid"]["output"].splitlines()
        assert valid == ["no case counts: each shows mostly what another shows (below)",
                         f"not counted {group.folder}/{name}: three quarters of its .out or more "
                         f"are the worked example {example}'s (the start of its .out, or runs "
                         "of 10 lines or more it shows in a row): a worked example counts for "
                         "nothing as your case"]
        assert [tests[f"patience: {group.name}: {count}"]["score"]
                for count in ("valid", "thorough", "own code")] == [0, 0, 0]


def test_hostile_cases_are_refused_alone_or_marked_without_harm(tmp_path):
    """A 2 MiB case is refused alone, a link is never followed, and a case whose input
    makes the reference run out of time is invalid; the rest are marked."""
    folder = team(tmp_path, golf=["golf_won_seed_4"], little_spider=[])
    golf = folder / GOLF.folder
    write_case(golf, "huge", args=KING_ARGS, **{"in": b"d\n" * (1 << 20), "out": b"x"})
    secret = tmp_path / "secret.out"
    secret.write_bytes(b"what the marker must never read\n")
    write_case(golf, "linked", args=KING_ARGS, **{"in": KING_INPUT})
    os.symlink(secret, golf / "linked.out")
    spider = folder / LITTLE_SPIDER.folder
    write_case(spider, "solve_it", args=b"little_spider\n--seed\n3\n",
               **{"in": b"solve\n", "out": b"a win\n"})
    status, report, tests = mark(folder, assignment="golf_tests")
    assert status == 1, report
    valid = tests["patience: your Golf cases: valid"]["output"].splitlines()
    assert valid[0] == ("1 of 1 case expects exactly what the reference gives (shared over the "
                        "6 cases asked for)")
    assert ("refused   cases/golf/huge: huge.in holds 2097152 bytes, more than the 65536 a "
            "case's file may") in valid
    assert ("refused   cases/golf/linked: linked.out is a link: the marker follows no link, so "
            "its copy of the submission left it out") in valid
    spider_valid = tests["patience: your Little Spider cases: valid"]
    assert spider_valid["score"] == 0 and any(
        f"invalid   cases/little_spider/solve_it: the reference: {timeout}" in spider_valid["output"]
        for timeout in spun(TIMEOUT)), spider_valid["output"]
    assert tests["patience: your Little Spider cases: thorough"]["output"] == (
        "no valid case: nothing to catch a mistake with, or to run your program on")
    assert "what the marker must never read" not in report + str(tests)


def test_a_head_or_tty_file_beside_a_case_is_refused_and_never_read(tmp_path):
    """A golden case may compare only the first K bytes printed (NAME.head); a team's may
    not: its .head is refused as no case file, and the whole output is compared, so a case
    of a screen's first bytes is invalid, however many programs print those bytes."""
    folder = team(tmp_path, golf=["golf_won_seed_4"], little_spider=[])
    golf = folder / GOLF.folder
    rules = EXPECTED_OUTPUTS / "patience" / "golf_rules_seed_5"
    write_case(golf, "first_byte", head=b"300\n", tty=b"no screen\n",
               **{suffix: rules.with_suffix(f".{suffix}").read_bytes() for suffix in ("args", "in")},
               out=rules.with_suffix(".out").read_bytes()[:300])
    status, report, tests = mark(folder, assignment="golf_tests")
    valid = tests["patience: your Golf cases: valid"]["output"].splitlines()
    assert valid[0] == ("1 of 2 cases expect exactly what the reference gives (shared over the "
                        "6 cases asked for)"), report
    assert "invalid   cases/golf/first_byte: the reference: wrong output" in valid
    for suffix in ("head", "tty"):
        assert f"refused   cases/golf/first_byte.{suffix}: not a case file: a case is NAME.in " \
               "(or NAME.args) with NAME.out, and optionally NAME.args, NAME.status and " \
               "NAME.err" in valid, valid


def test_a_submission_over_the_marker_s_limits_is_refused_whole_and_results_json_says_why(
        tmp_path):
    folder = team(tmp_path, golf=["golf_won_seed_4"])
    with open(folder / GOLF.folder / "big.in", "wb") as big:
        big.truncate(100_000_000)
    status, report, tests = mark(folder, assignment="golf_tests")
    results = (folder.parent / "results.json").read_text()
    assert status == 2 and tests == {}
    assert "holds more than 64 MiB: leave out the data the programs do not need" in results


def test_a_team_without_its_program_still_gets_its_cases_marked(tmp_path):
    folder = team(tmp_path, golf=["golf_won_seed_4"], program=False)
    status, report, tests = mark(folder, assignment="golf_tests")
    assert tests["patience: your Golf cases: valid"]["score"] == round(2 / 6, 4), \
        "1 valid case of the 6 asked for"
    assert tests["patience: your Golf cases: thorough"]["score"] > 0
    own = tests["patience: your Golf cases: own code"]
    assert (own["score"], own["output"]) == (0, "patience.py is not in the submission")


@pytest.mark.parametrize("group", [GOLF, LITTLE_SPIDER], ids=lambda group: group.folder)
def test_each_game_s_mistakes_are_its_rules_misread_and_the_console_s_words(group):
    """Enough mistakes per game that no single case catches them all: several rules of the
    game, each misread by a wrong program, and what every game's console says besides."""
    rules = [name for name in group.mistakes if name.startswith(group.folder.split("/")[1])]
    assert len(rules) >= 4 and len(group.mistakes) > len(rules)
    assert group.example is not None and group.example.name in group.kit_cases


def test_the_handout_s_worked_example_is_a_valid_case(tmp_path):
    """docs/golf_tests.md shows a case's files; the reference gives exactly its .out; as a
    team's case it counts for nothing, being mostly the won Golf game's screens (its deal,
    and the board after its first move, d)."""
    import re
    import subprocess
    import sys

    handout = (ROOT / "docs" / "golf_tests.md").read_text(encoding="utf-8")
    files = dict(re.findall(r"`cases/golf/empty_homecell_seed_1\.(\w+)`(?:(?!```|`cases/|\n#).)*?"
                            r"```\n(.*?)```", handout, re.DOTALL))
    assert set(files) == {"args", "in", "out"}, files
    from exactmark.marking.student_cases import copied, examples_of

    (tmp_path / "empty_homecell_seed_1.out").write_bytes(files["out"].encode()[:-1])
    assert copied(Case("patience", "empty_homecell_seed_1", tmp_path),
                  examples_of(GOLF)) == GOLF.example, "it shows the won game's deal and first move"
    out = files["out"].encode()
    assert out.endswith(b"> \n"), "the block shows the last prompt on a line of its own"
    done = subprocess.run([sys.executable, str(ROOT / "patience.py"),
                           *files["args"].splitlines()], input=files["in"].encode(),
                          capture_output=True)
    assert done.stdout == out[:-1], "the last prompt has no line end"
    assert done.returncode == 0 and "`cases/golf/empty_homecell_seed_1.status` holds `0`" in handout


def test_verify_shows_each_group_s_kit_cases_catch_every_mistake_it_names(tmp_path, capsys):
    """make verify hands in a group's kit cases as a team's: a wrong program none of them
    fails (a Spider mistake, named for Golf) could never be caught by all, so the thorough
    mark could never be full. Each group names two of its mistakes here, not all 55
    (without the weights, which name the others): that the kit's cases catch every one is
    make verify's own check of the shipped file."""
    import re

    import exactmark.verify.__main__ as verify

    shutil.copytree(GOLF.wrong_folder, tmp_path / "wrong" / "patience")
    text = GOLF_TESTS.path.read_text(encoding="utf-8")
    for first, named in (("golf_*", '"golf_without_king_ace_wrap", "spider_king_on_ace"'),
                         ("little_spider_*", '"little_spider_game_goes_on_after_win", '
                                             '"prompt_without_space"')):
        text, count = re.subn(rf'  mistakes = \["{re.escape(first)}", [^]]*\]',
                              f"  mistakes = [{named}]", text)
        assert count == 1, first
    text, count = re.subn(r"\n    \[programs\.groups\.weights\][^[]*?(?=\n\n|\n*\Z)", "", text)
    assert count == 2, text
    (tmp_path / "golf_tests.toml").write_text(text, encoding="utf-8")
    assert verify.main(["--assignment", str(tmp_path / "golf_tests.toml")]) == 1
    said = capsys.readouterr().out
    assert "FAILS   cases       your Golf cases (golf_tests)             8/8 kit cases valid, " \
           "1/2 mistakes caught" in said
    assert ("          not handed in: golf_won_seed_1: a worked example, or mostly one, which "
            "counts for nothing as a student's case") in said.splitlines()
    assert ("caught by none of its kit cases: spider_king_on_ace: reuses Golf's wrapping rank "
            "check in Spider, so a King may be put on an Ace") in said
    assert "ok      cases       your Little Spider cases (golf_tests)" in said


@pytest.fixture(scope="module")
def marked_class(tmp_path_factory):
    """both: two of the kit's Golf cases, which between them catch the two mistakes the
    summary's rows below name; few: Golf's won game and a King expected on the empty
    homecell. Marked once before the late submissions close, and the pages written again
    after."""
    from tests.test_mark_class import mark_class

    root = tmp_path_factory.mktemp("golf_class")
    klass = root / "class"
    klass.mkdir()
    team(root / "both", golf=["golf_won_seed_4", "golf_empty_homecell_and_wrap_seed_1"]).rename(
        klass / "both")
    few = team(root / "few", golf=["golf_won_seed_4"])
    write_case(few / GOLF.folder, "king_on_the_empty_homecell", args=KING_ARGS,
               **{"in": KING_INPUT, "out": printed_by("golf_empty_homecell_takes_tableau_card",
                                                      KING_ARGS, KING_INPUT, root)})
    few.rename(klass / "few")
    before, after = root / "before", root / "after"
    done = mark_class(klass, GOLF_TESTS.path, before, "--as-of", "2027-04-17T09:00")
    assert done.returncode == 0, done.stderr
    shutil.copytree(before, after)
    again = mark_class(klass, GOLF_TESTS.path, after, "--as-of", "2027-04-22T09:00")
    assert again.returncode == 0 and "2 student(s) unchanged" in again.stderr, again.stderr
    return before, after


def test_the_feedback_names_the_mistakes_only_once_the_late_submissions_close(marked_class):
    before, after = marked_class
    words = "builds the Golf homecell one rank up or down without letting King and Ace follow"
    early = (before / "students" / "few" / "feedback.txt").read_text(encoding="utf-8")
    assert ("Mistakes: 15 of 31 caught; which, shown from 2027-04-21 17:00 (Australia/Sydney), "
            "once no late submission can be accepted.") in early
    assert words not in early and "golf_without_king_ace_wrap" not in early
    assert words not in (before / "students" / "few" / "feedback.html").read_text(encoding="utf-8")
    late = (after / "students" / "few" / "feedback.txt").read_text(encoding="utf-8")
    assert f"caught by cases/golf/golf_won_seed_4: {words} each other" in late
    assert ("missed: lets the empty Golf homecell take any card, a tableau pile's top card "
            "too, not only the stock's") in late
    assert words in (after / "students" / "few" / "feedback.html").read_text(encoding="utf-8")


def test_an_invalid_case_s_diff_shows_once_late_submissions_close_beside_a_worked_example(
        marked_class):
    before, after = marked_class
    page = (before / "students" / "few" / "feedback.txt").read_text(encoding="utf-8")
    assert "Your cases: your Golf cases (cases/golf/), " in page
    assert ("  valid: 0.33 / 2.00, 1 of 2 cases expect exactly what the reference gives "
            "(shared over the 6 cases asked for)") in page
    assert "- cases/golf/king_on_the_empty_homecell: invalid: the reference: wrong output\n" in page
    assert ("  how it differs from what the reference prints: shown from 2027-04-21 17:00 "
            "(Australia/Sydney), once no late submission can be accepted.") in page
    assert "cannot go on homecell" not in page.replace("␠", " "), \
        "before the late submissions close, no line of what the reference prints"
    late = (after / "students" / "few" / "feedback.txt").read_text(encoding="utf-8")
    assert f"+{KING_REFUSED}".replace(" ", "␠") in late
    assert ("- cases/golf/king_on_the_empty_homecell: invalid: the reference: wrong output; for "
            "your case to match it, ") in late
    assert ("A worked example: expected_outputs/patience/golf_won_seed_1.* beside this file;"
            in page)
    example = before / "students" / "few" / "expected_outputs" / "patience"
    assert (example / "golf_won_seed_1.out").read_bytes() == (
        EXPECTED_OUTPUTS / "patience" / "golf_won_seed_1.out").read_bytes()
    html = (before / "students" / "few" / "feedback.html").read_text(encoding="utf-8")
    assert "how it differs from what the reference prints: shown from 2027-04-21" in html
    assert "cannot go on homecell" not in html
    html = (after / "students" / "few" / "feedback.html").read_text(encoding="utf-8")
    assert "what the reference prints" in html and '<pre class="diff">' in html


def test_the_summary_says_per_wrong_program_how_many_students_cases_caught_it(marked_class):
    before, _ = marked_class
    summary = (before / "summary.html").read_text(encoding="utf-8")
    assert "The mistakes the students' cases catch" in summary
    row = summary.index("<td>golf_empty_homecell_takes_tableau_card</td>")
    assert '<td class="number">1 of 2</td>' in summary[row:row + 300]
    row = summary.index("<td>golf_without_king_ace_wrap</td>")
    assert '<td class="number">2 of 2</td>' in summary[row:row + 300]


def test_the_student_pack_shows_the_case_format_and_the_worked_examples_alone():
    """The pack holds each group's worked example, laid out as the handouts cite it, and
    says how a case is written, what its checker does with a team's cases (refuses what the
    marking refuses, runs their program on the rest) and what it cannot (judge validity or
    thoroughness); its pack.json says where each group's cases go and their limits, and
    nothing they are marked against. No other golden case, and no wrong program, is in it."""
    import json

    from exactmark.pack.build import contents

    files = contents(GOLF_TESTS)
    cases = {path.rsplit("/", 1)[1].split(".")[0] for path in files if path.startswith(
        "expected_outputs/")}
    assert cases == {"golf_won_seed_1", "little_spider_won_seed_5"}
    assert files["expected_outputs/patience/golf_won_seed_1.out"] == (
        EXPECTED_OUTPUTS / "patience" / "golf_won_seed_1.out").read_bytes()
    readme = files["README.md"].decode("utf-8")
    assert ("- your Golf cases: in `cases/golf/`, at least 6 and at most 25 cases, each file "
            "at most 65536 "
            "bytes; a worked example: `expected_outputs/patience/golf_won_seed_1.*` in this "
            "pack, which, copied into `cases/golf/`, is one such case, but counts for nothing "
            "in the marking, nor does a case that is mostly its screens") in readme
    assert "A case NAME is `NAME.in` (what is typed, one line per command)" in readme
    assert ("python3 patience.py golf --seed 1 < cases/golf/golf_won_seed_1.in | diff - "
            "cases/golf/golf_won_seed_1.out") in readme
    said = " ".join(readme.split())
    assert "This checker does not run your cases" not in said
    assert ("What the checker does with them: it reads each group's folder, in its copy of your "
            "work, with the marking's own code, so that it refuses each case and each file the "
            "marking would refuse, for the same reason and in the same words") in said
    assert ("Then it runs your program on each case it does not refuse, as it runs a visible "
            "case") in said
    assert ("What it cannot do: say whether a case is valid, or thorough. The marking checks "
            "each case against the reference, and runs the valid ones on the programs that make "
            "the mistakes; this pack holds neither. So a case your program passes may still be "
            "invalid (your program and your case may share a misreading of the handout), and a "
            "case your program fails is wrong in one of the two: the case or your program.") in said
    assert ("The exit status is 0 only when every visible case passes, and so does every case "
            "you write, none of them refused") in said
    groups = json.loads(files["pack.json"])["programs"][0]["groups"]
    assert groups == [{"name": group.name, "folder": group.folder, "most": group.most,
                       "most_bytes": group.most_bytes, "compare": sorted(group.compare),
                       "marks": 10, "asked": 6} for group in (GOLF, LITTLE_SPIDER)]
    assert "0 visible cases" not in readme and "cannot see" not in readme
    assert "- patience: no case of the marking's own; the cases you write (below)" in readme
    everything = b"".join(files.values())
    for group in (GOLF, LITTLE_SPIDER):
        for name in group.mistakes:
            assert name.encode() not in everything, f"the pack names the mistake {name}"
    hidden = [case for case in GOLF.kit_cases + LITTLE_SPIDER.kit_cases
              if case not in cases]
    assert hidden and not any(name.encode() in everything for name in hidden)


def test_the_handout_says_the_assignment_s_marks_and_mistakes():
    handout = " ".join((ROOT / "docs" / "golf_tests.md").read_text(encoding="utf-8").split())
    for group in (GOLF, LITTLE_SPIDER):
        marks = group.marks
        assert (marks["valid"], marks["thorough"], marks["own_code"]) == (2, 5, 3)
    assert ("Each game's cases earn 10 marks, 20 in all: writing them correctly earns 7, your "
            "code passing them 3.") in handout and GOLF_TESTS.marks == 20
    assert (f"{len(GOLF.mistakes)} for Golf and {len(LITTLE_SPIDER.mistakes)} for Little "
            "Spider") in handout
    rules = [sum(group.weight(name) == 2 for name in group.mistakes)
             for group in (GOLF, LITTLE_SPIDER)]
    assert (f"{rules[0]} of Golf's mistakes and {rules[1]} of Little Spider's are rules of "
            "the game") in handout
    assert ("your group will be graded on your writing the required test cases correctly AND "
            "that your code can then pass those tests") in handout
    assert f"at most {GOLF.most}" in handout and f"more than {GOLF.most_bytes >> 10} KiB" in handout


@pytest.mark.skipif(os.geteuid() != 0, reason="the container replica is built as root")
def test_a_team_whose_program_hangs_keeps_its_thorough_marks(tmp_path):
    """In the container (no control group), a team whose patience.py never ends: its runs
    spend their own count's share of the budget (own code, 3 of the group's 10 marks), and
    the reference's runs and the wrong programs' (which run first) keep theirs, so that the
    kit's cases still catch every mistake."""
    from tests.test_mark_platform import marked_in_replica

    folder = team(tmp_path, golf=GOLF.kit_cases, program=False)
    (folder / "patience.py").write_text("while True:\n    pass\n", encoding="utf-8")
    report, tests = marked_in_replica(folder, "--only", "patience/cases/golf", "--timeout", "2",
                                      "--student-budget", "30", assignment="golf_tests")
    thorough = tests[f"patience: {GOLF.name}: thorough"]
    assert thorough["score"] == thorough["max_score"] == 5, thorough["output"]
    caught = tests[f"patience: {GOLF.name}: mistakes"]["output"].splitlines()
    assert len(caught) == len(GOLF.mistakes) and all(line.startswith("caught ")
                                                     for line in caught), caught
    own = tests[f"patience: {GOLF.name}: own code"]
    assert own["score"] == 0 and "timeout" in own["output"], own["output"]
    assert "budget: the cases before it used their share" in own["output"], own["output"]
