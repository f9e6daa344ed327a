"""The rule map of a handout (exactmark/kit/rules.py): a rule is a sentence the handout says, a
case claims the rules it exercises, and `make verify` counts a claim only where a wrong
program breaking that rule alone fails the case. Tried on a tiny assignment of its own
(an echo program, its handout, its rules, its wrong programs), then on the kit's."""

import pytest

import exactmark.verify.__main__ as verify
from exactmark.kit.assignment import load, names
from exactmark.kit.rules import RuleError, rule_map, rules_file

HANDOUT = """# echo.py

## 1. Echo

The program prints each line it reads, as it reads it.

## 2. End

At the end of its input it prints `bye` and exits with status 0.
"""
REFERENCE = '''import sys
for line in sys.stdin:
    print(line, end="")
print("bye")
'''
RULES = '''
[[rule]]
id = "echo-each-line"
section = "1. Echo"
quote = """The program prints each line it reads,
as it reads it."""

[[rule]]
id = "bye-at-end"
section = "2. End"
quote = "At the end of its input it prints `bye`"

[cases]
one = ["echo-each-line", "bye-at-end"]
two = ["echo-each-line", "bye-at-end"]
three = ["echo-each-line"]
'''
ASSIGNMENT = '''
title = "Echo"
marks = 3
cpu_seconds = 5
[[programs]]
name = "echo"
reference = "reference"
cases = "cases"
handout = "echo.md"
  [[programs.groups]]
  name = "all"
  marks = 3
  cases = ["*"]
  visibility = "visible"
'''
CASES = {"one": "a\n", "two": "a\nb\n", "three": ""}
WRONG = {
    "b_line_twice": ('mistake = "a line b printed twice"\nrule = "echo-each-line"\n'
                     '[[change]]\nfind = \'print(line, end="")\'\n'
                     'replace = \'print(line * (2 if line == "b\\n" else 1), end="")\'\n'),
    "no_bye": ('mistake = "no bye at the end"\nrule = "bye-at-end"\n'
               '[[change]]\nfind = \'print("bye")\'\nreplace = \'pass\'\n'),
}


def line(verdict: str, rule: str, rest: str) -> str:
    """A line of the map as verify prints it: the verdict, the rule, what pins it."""
    return f"{verdict:<7} {rule:<42} {rest}"


def echo_assignment(tmp_path, rules=RULES, assignment=ASSIGNMENT, wrong=WRONG):
    """An instructor's own assignment, its handout, rule list and wrong programs beside it."""
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "echo.py").write_text(REFERENCE)
    (tmp_path / "cases").mkdir()
    for name, stdin in CASES.items():
        (tmp_path / "cases" / f"{name}.in").write_text(stdin)
        (tmp_path / "cases" / f"{name}.out").write_text(stdin + "bye\n")
    (tmp_path / "echo.md").write_text(HANDOUT)
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "echo.toml").write_text(rules)
    (tmp_path / "wrong" / "echo").mkdir(parents=True)
    for name, text in wrong.items():
        (tmp_path / "wrong" / "echo" / f"{name}.toml").write_text(text)
    (tmp_path / "own.toml").write_text(assignment)
    return tmp_path / "own.toml"


def test_a_rule_list_sits_beside_its_handout_and_quotes_it(tmp_path):
    path = echo_assignment(tmp_path)
    found = rule_map(load(str(path)).programs["echo"])
    assert rules_file(tmp_path / "echo.md") == tmp_path / "rules" / "echo.toml"
    assert list(found.rules) == ["echo-each-line", "bye-at-end"]
    assert found.cases_of("bye-at-end") == ["one", "two"]
    assert found.cases_of("echo-each-line") == ["one", "three", "two"]


@pytest.mark.parametrize("change, problem", [
    (("as it reads it.", "as it reads them."), "its quote is not in echo.md"),
    (('section = "2. End"', 'section = "2. The end"'), "echo.md has no section '2. The end'"),
    (('three = ["echo-each-line"]', 'three = ["echo-twice"]'),
     "case three claims echo-twice, which no rule list of echo has"),
    (('three = ', 'four = '), "four is not a case of echo"),
    (('id = "bye-at-end"', 'id = "echo-each-line"'), "rule echo-each-line is listed twice"),
])
def test_a_rule_list_that_misquotes_or_names_what_is_not_there_is_refused(tmp_path, change,
                                                                          problem):
    path = echo_assignment(tmp_path, rules=RULES.replace(*change))
    with pytest.raises(RuleError, match=problem.replace("(", r"\(")):
        rule_map(load(str(path)).programs["echo"])


def test_every_rule_pinned_by_two_cases_its_wrong_programs_fail(tmp_path, capsys):
    """no_bye fails one and two (and three, which does not claim its rule); b_line_twice
    is subtler."""
    path = echo_assignment(tmp_path)
    assert verify.main(["--assignment", str(path)]) == 1
    said = capsys.readouterr().out
    # b_line_twice doubles "b" alone: only case two shows it, so echo-each-line has
    # one case, two claims that none of its wrong programs support, and the wrong
    # program is marked on every case to show it is caught once only.
    assert line("SHORT", "echo-each-line", "1 of 3 claimed: two") in said
    assert "claimed, but no wrong program of echo-each-line fails: one, three" in said
    assert line("ok", "bye-at-end", "2 of 2 claimed: one, two") in said
    assert "rule echo/echo-each-line: pinned by 1 case(s), not 2" in said
    assert "MISSED  wrong       echo/b_line_twice" in said


def test_a_rule_the_assignment_leaves_unmarked_says_why(tmp_path, capsys):
    path = echo_assignment(
        tmp_path, wrong={"no_bye": WRONG["no_bye"]},
        assignment=ASSIGNMENT.replace('handout = "echo.md"', 'handout = "echo.md"\n'
                                      '[programs.unmarked_rules]\n'
                                      '"echo-each-line" = "the course marks the end alone"'))
    assert verify.main(["--assignment", str(path)]) == 0
    said = capsys.readouterr().out
    assert line("ok", "echo-each-line", "unmarked here: the course marks the end alone") in said
    assert line("ok", "bye-at-end", "2 of 2 claimed: one, two") in said


def test_a_wrong_program_must_name_the_rule_it_breaks(tmp_path, capsys):
    path = echo_assignment(tmp_path, wrong={"no_bye": WRONG["no_bye"].replace(
        'rule = "bye-at-end"\n', "")})
    assert verify.main(["--assignment", str(path)]) == 1
    assert "wrong echo/no_bye: its file names no `rule` of echo's rule map" in capsys.readouterr().out


@pytest.mark.parametrize("name", names())
def test_the_kit_s_rule_maps_read_and_every_marked_case_claims_a_rule(name):
    assignment = load(name)
    for program, declared in assignment.programs.items():
        found = rule_map(declared)
        assert found is not None, f"{program}: no rule list beside {declared.handout}"
        marked = {m.case.name for m in assignment.marked_cases[program]}
        silent = sorted(case for case in marked if not found.claims.get(case))
        assert not silent, f"{program}: marked cases that claim no rule: {silent}"
        unmarked = assignment.unmarked_rules.get(program, {})
        assert set(unmarked) <= set(found.rules), f"{program}: unmarked rules that are no rule"
