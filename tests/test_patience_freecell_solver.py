"""FreeCell's solver, Freecell Solver's fc-solve run by patience_games/freecell_solver.py,
checked against known results: Microsoft FreeCell deals 1 to 32,000 are all won
except 11982. Here a sample: deals 1-100 and 617 are WON, each line legal move
by move on the engine and ending in a won position (deal 1's also through the
program, to its win announcement); 11982 is LOST, never WON. The whole table is
bench/freecell_table.py. Without fc-solve these tests skip, saying what to install."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from patience_games import freecell_solver as solver
from patience_games import messages as text
from patience_games.engine import Move, deal, play, refusal
from patience_games.freecell_ms import ms_deck
from patience_games.games import FREECELL_GAME as GAME
from tests.test_patience_engine import position

ROOT = Path(__file__).resolve().parent.parent
needs_fc_solve = pytest.mark.skipif(not solver.available(), reason=solver.MISSING)
DEALER = "make-microsoft-freecell-board"  # fc-solve's own dealer, in the same Debian package
SAMPLE = range(1, 101)
NOT_WON = 11982  # the one deal of 1-32,000 that cannot be won


def ms(number: int):
    return deal(GAME, ms_deck(number))


def replayed(start, line: tuple):
    """The position after the line, each move checked by the engine first."""
    for step, move in enumerate(line, 1):
        assert refusal(GAME, start, move) is None, f"move {step} {move} is refused"
        start = play(GAME, start, move)
    return start


def cascades(board: str) -> list:
    """The cascade lines of a board text, without the colons."""
    return [line.lstrip(":").strip() for line in board.splitlines()
            if not line.startswith(("Foundations:", "Freecells:"))]


# --- Without fc-solve ----------------------------------------------------------------------

def test_without_fc_solve_solving_says_what_to_install(monkeypatch):
    monkeypatch.setattr(solver.shutil, "which", lambda name: None)
    assert not solver.available()
    assert "apt-get install freecell-solver-bin" in solver.MISSING
    with pytest.raises(solver.NotInstalled, match="freecell-solver-bin"):
        solver.solve_freecell(GAME, ms(1))


def test_the_board_text_of_deal_1():
    """Hand-checked against docs/patience.md's deal 1, read down its columns."""
    assert solver.board_text(GAME, ms(1)) == (
        "Foundations: H-0 C-0 D-0 S-0\n"
        "Freecells: - - - -\n"
        ": JD KD 2S 4C 3S 6D 6S\n"
        ": 2D KC KS 5C TD 8S 9C\n"
        ": 9H 9S 9D TS 4S 8D 2H\n"
        ": JC 5S QD QH TH QS 6H\n"
        ": 5D AD JS 4H 8H 6C\n"
        ": 7H QC AS AC 2C 3D\n"
        ": 7C KH AH 4D JH 8C\n"
        ": 5H 3H 3C 7S 7D TC\n")


def test_the_board_text_shows_free_cells_in_place_foundations_by_suit_and_empty_cascades():
    before = position(GAME, {"b": "KH", "d": "QS", "h1": "AC 2C", "h3": "AH",
                             "1": "KD QC", "3": "5S"})
    lines = solver.board_text(GAME, before).splitlines()
    assert lines[:2] == ["Foundations: H-A C-2 D-0 S-0", "Freecells: - KH - QS"]
    assert lines[2:] == [": KD QC", ":", ": 5S", ":", ":", ":", ":", ":"]


def test_fc_solve_s_moves_become_the_engine_s():
    before = position(GAME, {"a": "AH", "b": "9C", "1": "KS QH", "2": "TD", "3": "2H"})
    assert solver.engine_move(GAME, before, "Move a card from freecell 0 to the foundations") \
        == Move(GAME.index("a"), GAME.index("h1"))
    assert solver.engine_move(GAME, before, "Move a card from stack 1 to freecell 2") \
        == Move(GAME.index("2"), GAME.index("c"))
    assert solver.engine_move(GAME, before, "Move 1 cards from stack 1 to stack 3") \
        == Move(GAME.index("2"), GAME.index("4"))
    assert solver.engine_move(GAME, before, "Move a card from freecell 1 to stack 1") \
        == Move(GAME.index("b"), GAME.index("2"))
    assert solver.engine_move(GAME, before, "Move 2 cards from stack 0 to stack 5") \
        == Move(GAME.index("1"), GAME.index("6"), 2)


def test_to_the_foundations_means_the_first_foundation_that_takes_the_card():
    before = position(GAME, {"h1": "AC", "h2": "AH", "1": "2H"})
    assert solver.engine_move(GAME, before, "Move a card from stack 0 to the foundations") \
        == Move(GAME.index("1"), GAME.index("h2"))


@pytest.mark.parametrize("said, why", [
    ("Move a card from stack 0 to stack 1", "refuse"),  # QH onto TD
    ("Move 3 cards from stack 0 to stack 7", "refuse"),  # only 2 cards there
    ("Move a card from stack 2 to the foundations", "refuse"),  # 2H with no AH out
    ("Move a card from stack 9 to freecell 0", "pile this game does not have"),
    ("Move the sequence on top of Stack 1 to the foundations", "not one this program knows"),
])
def test_a_move_the_rules_refuse_is_no_move(said, why):
    before = position(GAME, {"1": "KS QH", "2": "TD", "3": "2H"})
    assert why in solver.engine_move(GAME, before, said)


def test_a_refused_line_gives_up_with_the_reason_never_a_wrong_line(monkeypatch):
    bad = solver.Scan(solver.SOLVED, ("Move 5 cards from stack 0 to stack 1",), 7)
    monkeypatch.setattr(solver, "available", lambda: True)
    monkeypatch.setattr(solver, "run_fc_solve", lambda board, scan, iterations: bad)
    outcome, why = solver.solve_and_explain(GAME, ms(1))
    assert outcome == solver.Outcome(solver.GAVE_UP, (), 14)  # both scans tried
    assert "move 1 of 1" in why and "refuse" in why


def test_a_line_that_stops_short_of_the_win_gives_up(monkeypatch):
    short = solver.Scan(solver.SOLVED, ("Move a card from stack 4 to freecell 0",), 1)
    monkeypatch.setattr(solver, "available", lambda: True)
    monkeypatch.setattr(solver, "run_fc_solve", lambda board, scan, iterations: short)
    outcome, why = solver.solve_and_explain(GAME, ms(1))
    assert outcome.verdict == solver.GAVE_UP and outcome.line == ()
    assert "do not end in a won position" in why


def test_only_the_atomic_scan_searching_everything_makes_a_loss(monkeypatch):
    said = {solver.META_SCAN: solver.Scan(solver.NOT_SOLVED, (), 10),
            solver.ATOMIC_SCAN: solver.Scan(solver.EXCEEDED, (), 20)}
    monkeypatch.setattr(solver, "available", lambda: True)
    monkeypatch.setattr(solver, "run_fc_solve", lambda board, scan, iterations: said[scan])
    assert solver.solve_freecell(GAME, ms(1)) == solver.Outcome(solver.GAVE_UP, (), 30)
    said[solver.ATOMIC_SCAN] = solver.Scan(solver.NOT_SOLVED, (), 20)
    assert solver.solve_freecell(GAME, ms(1)) == solver.Outcome(solver.LOST, (), 30)


# --- With fc-solve -------------------------------------------------------------------------

@needs_fc_solve
@pytest.mark.skipif(shutil.which(DEALER) is None, reason=f"{DEALER} is not installed")
@pytest.mark.parametrize("number", [1, 617, NOT_WON, 32000])
def test_the_board_text_matches_fc_solve_s_own_dealing(number):
    dealt = subprocess.run([DEALER, "-t", str(number)], capture_output=True, text=True, check=True)
    assert cascades(solver.board_text(GAME, ms(number))) == dealt.stdout.splitlines()


@needs_fc_solve
def test_one_move_from_the_win():
    spades, clubs, diamonds = ("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
                               "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
                               "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD")
    before = position(GAME, {"h1": spades, "h2": "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
                             "h3": clubs, "h4": diamonds, "c": "KH"})
    outcome = solver.solve_freecell(GAME, before)
    assert outcome.verdict == solver.WON
    assert outcome.line == (Move(GAME.index("c"), GAME.index("h2")),)
    assert GAME.won(GAME, replayed(before, outcome.line))


@needs_fc_solve
def test_a_won_position_is_won_in_no_moves():
    suits = [" ".join(rank + suit for rank in "A23456789TJQK") for suit in "SCDH"]
    won = position(GAME, dict(zip(("h1", "h2", "h3", "h4"), suits)))
    assert solver.solve_freecell(GAME, won).verdict == solver.WON
    assert solver.solve_freecell(GAME, won).line == ()


@needs_fc_solve
@pytest.mark.parametrize("number", [*SAMPLE, 617])
def test_microsoft_deals_are_won_by_legal_lines(number):
    start = ms(number)
    outcome, why = solver.solve_and_explain(GAME, start)
    assert (outcome.verdict, why) == (solver.WON, "")
    assert outcome.nodes > 0
    assert GAME.won(GAME, replayed(start, outcome.line))


@needs_fc_solve
def test_deal_11982_is_lost():
    outcome = solver.solve_freecell(GAME, ms(NOT_WON))
    assert outcome.verdict == solver.LOST  # GAVE_UP would be honest too; WON never
    assert outcome.line == ()


@needs_fc_solve
def test_a_small_budget_gives_up():
    outcome, why = solver.solve_and_explain(GAME, ms(617), iterations=5)
    assert outcome.verdict == solver.GAVE_UP and outcome.line == ()
    assert "within 5 states" in why


def typed(move: Move) -> str:
    """The command a player types for the move: source, destination, count."""
    return f"{GAME.piles[move.source].label} {GAME.piles[move.destination].label} {move.count}"


@needs_fc_solve
def test_deal_1_s_line_typed_into_the_program_ends_with_its_win_announcement():
    outcome = solver.solve_freecell(GAME, ms(1))
    typing = "".join(typed(move) + "\n" for move in outcome.line)
    played = subprocess.run([sys.executable, "patience.py", "freecell", "--ms", "1"],
                            input=typing, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert played.returncode == 0, played.stderr
    assert played.stdout.rstrip().endswith(text.WON)
    assert played.stdout.count(text.WON) == 1
