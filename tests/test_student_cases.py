"""Cases a student writes, read from the marker's own copy of the submission: each case
that breaks a rule, and each file that makes no case, is refused with its reason, and
the rest are marked."""

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from exactmark.kit.assignment import StudentCases
from exactmark.marking.student_cases import in_words_to_match, judged_from_the_case
from exactmark.marking.verdicts import PIPE, Kind, Rules
from exactmark.running.record import Ran
from exactmark.kit.written_cases import left_out_below, read_cases
from exactmark.kit.submission import skip_reason
from exactmark.base.tree import Limits, copy_tree

GOLF = StudentCases("patience", "your Golf cases", "cases/golf",
                    {"valid": 2, "thorough": 5, "own_code": 3}, "after_due_date",
                    frozenset({"status", "stderr"}), ("golf_without_king_ace_wrap",), Path("."),
                    {}, most=3, most_bytes=100)


def copied(student: Path, tmp_path: Path):
    """The marker's copy of the student's folder, and what it left out."""
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    copy = copy_tree(student, snapshot, skip=skip_reason, limits=Limits())
    return snapshot, left_out_below(copy.named, Path())


def cases_folder(tmp_path: Path, files: dict) -> Path:
    student = tmp_path / "student"
    (student / "cases" / "golf").mkdir(parents=True)
    for name, data in files.items():
        (student / "cases" / "golf" / name).write_bytes(data)
    return student


def read(tmp_path, files: dict, group=GOLF, change=lambda student: None):
    student = cases_folder(tmp_path, files)
    change(student)
    snapshot, left_out = copied(student, tmp_path)
    found = read_cases(snapshot, group, left_out)
    return [case.name for case in found.cases], {r.name: r.why for r in found.refused}, found


def test_a_case_is_its_input_and_expected_output_in_name_order(tmp_path):
    names, refused, found = read(tmp_path, {
        "won.in": b"d\n", "won.args": b"golf\n--seed\n1\n", "won.out": b"...\n",
        "bad_game.args": b"chess\n", "bad_game.out": b"", "bad_game.status": b"2\n",
        "bad_game.err": b"usage\n"})
    assert names == ["bad_game", "won"] and refused == {}
    won = found.cases[1]
    assert (won.stdin, won.args, won.stdout) == (b"d\n", ["golf", "--seed", "1"], b"...\n")
    assert won.id == "cases/golf/won" and won.folder.parent.parent.name == "snapshot", \
        "read from the marker's copy, never from the student's folder"


def test_what_is_no_case_is_refused_with_its_reason(tmp_path):
    _, refused, _ = read(tmp_path, {
        "notes.txt": b"", "game.tty": b"", "my case.in": b"", "my case.out": b"x",
        "a.b.in": b"", "a.b.out": b"x", "x" * 101 + ".in": b"", "\u00fcber.in": b"",
        "only_out.out": b"x", "only_in.in": b"", "simulate_1_2.out": b"x",
        "simulate_1_2.in": b"", "bad_status.in": b"", "bad_status.out": b"x",
        "bad_status.status": b"300\n", "nul.args": b"golf\0", "nul.out": b"x",
        "empty.in": b"quit\n", "empty.out": b"", "\x1b[31mred.in": b""},
        change=lambda student: (student / "cases" / "golf" / "more").mkdir())
    assert refused == {
        "notes.txt": "not a case file: a case is NAME.in (or NAME.args) with NAME.out, and "
                     "optionally NAME.args, NAME.status and NAME.err",
        "game.tty": refused["notes.txt"],
        "more": "a folder: a group's cases sit in its folder itself",
        "my case.in": "not a plain name: a case's name is letters, digits, _ and -, at most "
                      "100 of them",
        "my case.out": refused["my case.in"], "a.b.in": refused["my case.in"],
        "a.b.out": refused["my case.in"], "x" * 101 + ".in": refused["my case.in"],
        "\u00fcber.in": refused["my case.in"],
        "⟨U+001B⟩[31mred.in": refused["my case.in"],  # escaped: no byte of it reaches a terminal
        "only_out": "no only_out.in or only_out.args: the case's input",
        "only_in": "no only_in.out: what the program must print",
        "simulate_1_2": "named as the kit's simulate(n, i) calls are: name it otherwise",
        "bad_status": "bad_status.status is not an exit status: a whole number from 0 to 255",
        "nul": "nul.args is not UTF-8 text without NUL bytes",
        "empty": "an empty empty.out needs empty.status or empty.err too: else an empty "
                 "program passes"}


def test_a_case_over_the_size_limit_is_refused_alone(tmp_path):
    names, refused, _ = read(tmp_path, {"big.in": b"d\n" * 51, "big.out": b"x",
                                        "small.in": b"d\n", "small.out": b"x"})
    assert names == ["small"]
    assert refused == {"big": "big.in holds 102 bytes, more than the 100 a case's file may"}


def test_cases_beyond_the_most_are_refused_each_with_the_reason(tmp_path):
    files = {f"case_{n}{suffix}": b"x\n" for n in range(5) for suffix in (".in", ".out")}
    names, refused, _ = read(tmp_path, files)
    assert names == ["case_0", "case_1", "case_2"]
    assert refused == {name: "beyond the 3 cases this group marks (the first 3 in name order "
                             "are)" for name in ("case_3", "case_4")}


def test_a_link_is_never_followed_and_the_refusal_says_so(tmp_path):
    secret = tmp_path / "secret.out"
    secret.write_bytes(b"the marker's own file\n")

    def links(student):
        golf = student / "cases" / "golf"
        os.symlink(secret, golf / "linked.out")
        os.symlink(secret, golf / "stray")
        (golf / ".hidden.in").write_bytes(b"")
    names, refused, found = read(tmp_path, {"linked.in": b"d\n", "fine.in": b"d\n",
                                            "fine.out": b"x"}, change=links)
    link = "a link: the marker follows no link, so its copy of the submission left it out"
    assert names == ["fine"]
    assert refused == {"linked": f"linked.out is {link}", "stray": link,
                       ".hidden.in": "hidden: the marker's copy of the submission leaves "
                                     "hidden files out"}


def test_a_linked_folder_of_cases_is_read_as_no_case(tmp_path):
    elsewhere = cases_folder(tmp_path / "elsewhere", {"won.in": b"d\n", "won.out": b"x"})
    student = tmp_path / "student"
    (student / "cases").mkdir(parents=True)
    os.symlink(elsewhere / "cases" / "golf", student / "cases" / "golf")
    snapshot, left_out = copied(student, tmp_path)
    found = read_cases(snapshot, GOLF, left_out)
    assert found.cases == () and found.missing == (
        "no case is read: cases/golf is a link: the marker follows no link, so its copy of "
        "the submission left it out")


def test_no_folder_no_case(tmp_path):
    (tmp_path / "student").mkdir()
    snapshot, left_out = copied(tmp_path / "student", tmp_path)
    assert read_cases(snapshot, GOLF, left_out).missing == (
        "the submission has no folder cases/golf: no case to mark")


@pytest.mark.parametrize("top", [Path(), Path("ann")])
def test_what_the_copy_left_out_is_named_from_the_folder_marked(top):
    named = {top / "cases" / "golf" / "x.out": "link", Path("other") / "y": "link"}
    assert left_out_below(named, top) == {Path("cases/golf/x.out"): "link",
                                          **({Path("other/y"): "link"} if top == Path() else {})}


def marked(name: str, valid: bool, own: Kind = Kind.PASS):
    from exactmark.kit.written_cases import Written
    from exactmark.marking.student_cases import Marked
    from exactmark.marking.verdicts import Verdict

    case = Written("patience", name, Path("."), f"cases/golf/{name}")
    reference = Verdict(case.id, "stdout, stdin piped", Kind.PASS if valid else Kind.WRONG,
                        "line 9: replace X with Y")
    verdict = Verdict(case.id, "stdout, stdin piped", own, credit=float(own == Kind.PASS))
    return Marked(case, reference, verdict if valid else None)


def test_the_three_counts_share_their_marks():
    """Validity is shared by the cases marked; thoroughness is the weighed share of the
    mistakes caught; own code the share of the valid cases the team's program passes."""
    from exactmark.kit.written_cases import Read
    from exactmark.marking.student_cases import GroupResult, Hunted

    group = StudentCases("patience", "your Golf cases", "cases/golf",
                         {"valid": 2, "thorough": 5, "own_code": 3}, "after_due_date",
                         frozenset(), ("golf_a", "golf_b", "prompt"), Path("."), {"golf_a": 2})
    result = GroupResult(group, Read(refused=()), [
        marked("won", True), marked("king", False), marked("undo", True, Kind.WRONG),
        marked("help", True)], [Hunted("golf_a", "...", 2, by="won"), Hunted("golf_b", "...", 1),
                                Hunted("prompt", "...", 1, by="won")])
    assert result.earned() == {"valid": 2 * 3 / 4, "thorough": 5 * 3 / 4, "own_code": 3 * 2 / 3}
    assert result.said() == {"valid": "3 of 4 cases expect exactly what the reference gives",
                             "thorough": "2 of 3 mistakes caught, 75% of their weight",
                             "own_code": "your program passes 2 of your 3 valid cases"}
    assert result.case_lines(own=False)[1] == ("invalid   cases/golf/king: the reference: wrong "
                                               "output; for your case to match it, line 9: "
                                               "replace X with Y")
    nothing_valid = GroupResult(group, Read(), [marked("king", False)],
                                [Hunted("golf_b", "...", 1, by="king")])
    assert nothing_valid.earned() == {"valid": 0, "thorough": 0, "own_code": 0}, \
        "no valid case: nothing to catch a mistake with, or to run the program on"


def test_results_json_names_the_mistakes_in_a_test_of_the_group_s_visibility():
    from exactmark.kit.assignment import load
    from exactmark.kit.written_cases import Read
    from exactmark.marking.student_cases import GroupResult, Hunted

    golf_tests = load("golf_tests")
    group = golf_tests.student_groups("patience")[0]
    result = GroupResult(group, Read(), [marked("won", True)],
                         [Hunted(name, f"the mistake {name}", group.weight(name),
                                 by="won" if name.startswith("golf") else "")
                          for name in group.mistakes])
    tests = {test["name"]: test for test in result.tests(golf_tests.programs["patience"])}
    thorough = tests["patience: your Golf cases: thorough"]
    assert (thorough["visibility"], thorough["output"]) == (
        "visible", "22 of 31 mistakes caught, 83% of their weight")
    mistakes = tests["patience: your Golf cases: mistakes"]
    assert (mistakes["visibility"], mistakes["max_score"]) == ("after_due_date", 0)
    assert ("caught    golf_empty_homecell_takes_tableau_card (by cases/golf/won): the mistake "
            "golf_empty_homecell_takes_tableau_card") in mistakes["output"].splitlines()
    assert "missed    prompt_without_space: the mistake prompt_without_space" in mistakes["output"]


def test_a_misread_rule_of_the_game_weighs_twice_a_misworded_message():
    """The handout: a mistake that breaks a rule of the sections Terms, Golf or Little
    Spider weighs 2, one of the console 1; which is which is each wrong program's `rule`,
    the section of the rule map it quotes, not a list in the assignment."""
    from exactmark.kit.assignment import load
    from exactmark.kit.rules import rule_map
    from exactmark.kit.variants import read_variant

    golf_tests = load("golf_tests")
    sections = {rule: entry.section
                for rule, entry in rule_map(golf_tests.programs["patience"]).rules.items()}
    for group, game in zip(golf_tests.student_groups("patience"), ("Golf", "Little Spider")):
        for name in group.mistakes:
            section = sections[read_variant(group.wrong_folder / f"{name}.toml").rule]
            assert group.weight(name) == (2 if section in ("Terms", game) else 1), (name, section)
    golf, spider = golf_tests.student_groups("patience")
    assert (golf.weight("golf_homecell_takes_same_rank"), golf.weight("nothing_to_undo_reworded"),
            golf.weight("ms_accepted_for_golf")) == (2, 1, 1)
    assert sum(map(golf.weight, golf.mistakes)) == 22 * 2 + 9
    assert sum(map(spider.weight, spider.mistakes)) == 20 * 2 + 4


def test_valid_and_own_code_are_shared_over_the_cases_the_handout_asks_for():
    """docs/golf_tests.md's worked arithmetic, read from it: 5 cases, 4 valid, 3 passed;
    8 cases, 7 valid, 7 passed."""
    import re

    from exactmark.kit.cases import ROOT
    from exactmark.kit.assignment import load
    from exactmark.kit.written_cases import Read
    from exactmark.marking.student_cases import GroupResult

    handout = " ".join((ROOT / "docs" / "golf_tests.md").read_text(encoding="utf-8").split())
    said = re.search(r"For instance, (\d+) cases of Golf of which (\d+) are valid, your program "
                     r"passing (\d+) of those \d+, earn 2 × \d+ ÷ (\d+) = ([\d.]+) for validity "
                     r"and 3 × \d+ ÷ \d+ = ([\d.]+) for your code; (\d+) cases of which (\d+) are "
                     r"valid, your program passing all \d+, earn 2 × \d+ ÷ \d+ = ([\d.]+) and "
                     r"3 × \d+ ÷ \d+ = ([\d.]+)\.", handout)
    assert said, "the handout's worked example of the arithmetic"
    cases, valid, passed, asked, valid_marks, own_marks = said.groups()[:6]
    golf = load("golf_tests").student_groups("patience")[0]
    assert golf.asked == int(asked) and f"at least {golf.asked} and at most" in handout
    for cases, valid, passed, valid_marks, own_marks in (
            (cases, valid, passed, valid_marks, own_marks),
            (said[7], said[8], said[8], said[9], said[10])):
        result = GroupResult(golf, Read(), [
            marked(f"case_{n}", n < int(valid), Kind.PASS if n < int(passed) else Kind.WRONG)
            for n in range(int(cases))])
        earned = result.earned()
        assert (f"{earned['valid']:.2f}", f"{earned['own_code']:.2f}") == (valid_marks, own_marks)
    few = GroupResult(golf, Read(), [marked("won", True)])
    assert few.said()["valid"] == ("1 of 1 case expects exactly what the reference gives "
                                   "(shared over the 6 cases asked for)")
    assert few.said()["own_code"] == ("your program passes 1 of your 1 valid case (shared over "
                                      "the 6 cases asked for)")


def test_a_case_that_repeats_a_worked_example_or_a_longer_case_is_not_counted(tmp_path):
    """A worked example renamed, with `quit` put after it, cut short, or with a refused
    move put before or after its moves, shows three quarters of its .out or more of the
    example's: not counted.
    Of the student's own, a case cut from a longer one is not counted, and of two equal
    ones the first in name order counts; an empty .out counts once per status and stderr.
    A case on an example's deal with moves of its own counts."""
    from exactmark.kit.cases import EXPECTED_OUTPUTS, Case
    from exactmark.marking.student_cases import counted
    from exactmark.kit.written_cases import Read, Written

    example = Case("patience", "golf_won_seed_1", EXPECTED_OUTPUTS / "patience")
    out = example.stdout
    cut = out.index(b"> ", len(out) // 3) + 2
    deal = out.index(b"\n> ") + 3  # the first prompt, after the deal
    refused = "🃑 cannot go on stock s: nothing is ever added to the stock.\n> ".encode()
    files = {"renamed": out, "quit_after": out, "cut_short": out[:cut],
             "refused_after": out[:cut] + refused,
             "refused_first": out[:deal] + refused + out[deal:],
             "own": b"Golf, seed 7\n" + b"x" * 300,
             "own_cut": b"Golf, seed 7\n" + b"x" * 200, "own_again": b"Golf, seed 7\n" + b"x" * 300,
             "own_and_more": b"Golf, seed 7\n" + b"x" * 100 + b"y" * 200,
             "bad_seed": b"", "bad_game": b"", "bad_ms": b"",
             "own_moves_on_its_deal": (EXPECTED_OUTPUTS / "patience"
                                       / "golf_empty_homecell_and_wrap_seed_1.out").read_bytes()}
    extra = {"bad_seed": {".status": b"2\n"}, "bad_game": {".status": b"2\n"},
             "bad_ms": {".status": b"2\n", ".err": b"--ms\n"}}
    for name, data in files.items():
        (tmp_path / f"{name}.out").write_bytes(data)
        for suffix, more in extra.get(name, {}).items():
            (tmp_path / f"{name}{suffix}").write_bytes(more)
    read = Read(tuple(Written("patience", name, tmp_path, f"cases/golf/{name}")
                      for name in sorted(files)))
    kept, repeated = counted(read, (example,))
    assert [case.name for case in kept.cases] == ["bad_game", "bad_ms", "own", "own_and_more",
                                                  "own_moves_on_its_deal"], \
        "a case of the won game's deal, with moves of its own: 1 h refused, six d, 5 h"
    why = {repeat.name: repeat.why for repeat in repeated}
    own = ("three quarters of its .out or more are the start of cases/golf/own's, which counts: "
           "a case counts when it shows mostly screens of its own")
    copy = ("three quarters of its .out or more are the worked example golf_won_seed_1's (the "
            "start of its .out, or runs of 10 lines or more it shows in a row): a worked "
            "example counts for nothing as your case")
    assert why == {"renamed": copy, "quit_after": copy, "cut_short": copy, "refused_after": copy,
                   "refused_first": copy,
                   "own_cut": own, "own_again": own,
                   "bad_seed": "its .out is empty, as cases/golf/bad_game's, which counts, "
                               "with the same exit status and stderr: it shows nothing more"}


@dataclass(frozen=True)
class TeamCase:
    """What judging reads of a case a team wrote: its files' bytes."""
    id: str
    stdout: bytes
    stderr: bytes = None
    status: int = None


@pytest.mark.parametrize("case, printed, said", [
    (TeamCase("cases/golf/won", b"Board\nYou win!\n"), Ran(b"Board\nYou won!\n", status=0),
     "line 2: replace `You win!` with `You won!`"),
    (TeamCase("cases/golf/extra", b"Board\nBoard\nYou won!\n"), Ran(b"Board\nYou won!\n"),
     "1 line too many at line 2, otherwise as expected: `Board`"),
    (TeamCase("cases/golf/ends", b"Board\n", status=0), Ran(b"Board\n", status=1),
     "exit status 0, want 1"),
], ids=["a word", "a line too many", "the exit status"])
def test_an_invalid_case_says_what_the_case_must_change_to(case, printed, said):
    """The team changes its case, not the reference: the sentence on an invalid case
    replaces the case's line with the reference's, never the other way round."""
    verdict = judged_from_the_case(case, PIPE, printed, Rules())
    assert verdict.kind != Kind.PASS
    assert in_words_to_match(verdict) == (f"the reference: {verdict.kind}; for your case to "
                                          f"match it, {said}")
