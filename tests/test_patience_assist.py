"""`hint`, `solve` and `patience.py simulate` at the console: a solved line is typed
back into the program and wins; FreeCell without its solver says what to install."""

import os
import subprocess
import sys

import pytest

from exactmark.kit.cases import ROOT
from patience_games import freecell_solver, messages as text
from patience_games.simulate import table
from patience_games import solver

NEEDS_FC_SOLVE = pytest.mark.skipif(not freecell_solver.available(), reason=freecell_solver.MISSING)


def patience(*args, stdin="", env=None, timeout=300):
    done = subprocess.run([sys.executable, str(ROOT / "patience.py"), *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def solved_commands(output: str) -> list:
    """The commands `solve` printed, in order: its `> COMMAND` lines."""
    after = output[output.index(text.SOLVING.split(":")[0]):]
    return [line[2:] for line in after.splitlines() if line.startswith("> ")]


@pytest.mark.parametrize("args", [("golf", "--seed", "1"), pytest.param(
    ("freecell", "--ms", "1"), marks=NEEDS_FC_SOLVE)], ids=["golf 1", "freecell 1"])
def test_a_solved_line_typed_back_into_the_program_wins(args):
    solved = patience(*args, stdin="solve\n")
    assert solved.stdout.rstrip().endswith(text.WON), solved.stdout[-500:]
    commands = solved_commands(solved.stdout)
    assert commands, solved.stdout[-500:]
    replayed = patience(*args, stdin="".join(f"{command}\n" for command in commands))
    assert replayed.stdout.rstrip().endswith(text.WON)
    assert replayed.returncode == 0


def test_a_hint_is_the_first_move_of_a_winning_line():
    hinted = patience("golf", "--seed", "1", stdin="hint\n")
    hint = next(line for line in hinted.stdout.splitlines() if "Hint: " in line)
    move = hint.split("Hint: ")[1]
    first = solved_commands(patience("golf", "--seed", "1", stdin="solve\n").stdout)[0]
    assert move == first


def test_freecell_without_its_solver_says_what_to_install(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))  # no fc-solve on this PATH
    done = patience("freecell", "--ms", "1", stdin="hint\nsolve\n", env=env)
    assert done.stdout.count(freecell_solver.MISSING) == 2


@NEEDS_FC_SOLVE
def test_simulate_tabulates_freecell_deals_as_the_assignment_s_simulate_does():
    done = patience("simulate", "freecell", "5", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:5] == [
        "Deals       |  Count | Frequency",
        "--------------------------------",
        "won         |      5 |   100.00%",
        "proven lost |      0 |     0.00%",
        "undecided   |      0 |     0.00%",
    ]
    assert lines[5].startswith("Time per deal: ")


def test_the_table_counts_every_outcome_over_all_deals():
    from collections import Counter

    lines = table(Counter({solver.WON: 3, solver.GAVE_UP: 1}), 4)
    assert lines[2:] == ["won         |      3 |    75.00%", "proven lost |      0 |     0.00%",
                         "undecided   |      1 |    25.00%"]


@pytest.mark.parametrize("args, said", [
    (("chess", "3", "1"), "unknown game 'chess'"),
    (("golf", "0", "1"), "N is the number of deals, a whole number from 1, not '0'"),
    (("golf", "9" * 5000, "1"), "N is the number of deals"),
    (("freecell", "3", "0"), "I is the first deal"),
    (("freecell", "2", "2147483647"), "I is the first deal"),
])
def test_simulate_refuses_what_it_cannot_tabulate(args, said):
    done = patience("simulate", *args)
    assert done.returncode == 2 and said in done.stderr, done.stderr
