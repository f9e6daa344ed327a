"""Little Spider, pile by pile: the homecells set up first, then 8 tableau piles
of 6; every way a card may or may not leave or join a tableau pile and each
kind of homecell, the homecell's last card, the h alias, and the win."""

import pytest

from common.deal import shuffled
from patience_games.cards import named, numbered
from patience_games.engine import Pile, Reason, deal, play
from patience_games.games import LITTLE_SPIDER_GAME as GAME
from patience_games.session import Session
from tests.test_patience_engine import labelled_piles, move, position, reason

HOMECELL_BASES = {"h1": "AD", "h2": "AH", "h3": "KC", "h4": "KS"}


# --- Setup ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_setup_four_homecells_first_then_8_piles_of_6_from_the_rest_row_by_row(seed):
    deck = [numbered(n) for n in shuffled(range(52), seed)]
    bases = [named(name) for name in HOMECELL_BASES.values()]
    from_top = [card for card in deck[::-1] if card not in bases]
    by_label = dict(zip((spec.label for spec in GAME.piles), deal(GAME, deck).piles))
    for label, base in HOMECELL_BASES.items():
        assert by_label[label] == Pile((named(base),))
    for column in range(8):
        assert by_label[str(column + 1)] == Pile(tuple(from_top[column::8]))
    assert len(from_top) == 48


# --- Tableau piles ---------------------------------------------------------------------------

@pytest.mark.parametrize("top, card, legal", [
    ("6S", "5H", True), ("4S", "5H", True), ("6H", "5H", True), ("4D", "5D", True),
    ("5S", "5H", False), ("7S", "5H", False), ("3S", "5H", False),
    ("AS", "KH", True), ("KS", "AH", True), ("QS", "KC", True), ("2C", "AD", True),
    ("QS", "AH", False), ("2C", "KD", False)])
def test_a_tableau_pile_takes_one_rank_above_or_below_any_suit_wrapping(top, card, legal):
    before = position(GAME, {"1": f"9C {top}", "2": f"9D {card}"})
    assert reason(GAME, before, "2", "1") is (None if legal else Reason.CANNOT_ADD)


@pytest.mark.parametrize("card", ["KH", "AS", "7C"])
def test_an_empty_tableau_pile_takes_nothing(card):
    assert reason(GAME, position(GAME, {"2": card}), "2", "1") is Reason.EMPTY_PILE_REFUSES


def test_only_the_top_card_leaves_a_tableau_pile():
    before = position(GAME, {"1": "6S", "2": "9D 5H 4C"})
    assert reason(GAME, before, "2", "1", 2) is Reason.ONE_CARD_AT_A_TIME
    after = play(GAME, position(GAME, {"1": "3S", "2": "9D 5H 4C"}), move(GAME, "2", "1"))
    assert labelled_piles(GAME, after)["1"] == "3S 4C" and labelled_piles(GAME, after)["2"] == "9D 5H"


def test_nothing_leaves_an_empty_tableau_pile():
    assert reason(GAME, position(GAME, {"1": "6S"}), "2", "1") is Reason.EMPTY_SOURCE


# --- Homecells ---------------------------------------------------------------------------------

@pytest.mark.parametrize("homecell, top, card, legal", [
    ("h1", "AD", "2D", True), ("h1", "AD", "3D", False), ("h1", "AD", "2H", False),
    ("h1", "5D", "4D", False), ("h1", "QD", "KD", True), ("h1", "KD", "AD", False),
    ("h2", "AH", "2H", True), ("h2", "AH", "2D", False), ("h2", "AH", "2C", False),
    ("h2", "JH", "QH", True), ("h2", "JH", "KH", False),
    ("h3", "KC", "QC", True), ("h3", "KC", "QS", False), ("h3", "KC", "JC", False),
    ("h3", "3C", "2C", True), ("h3", "3C", "4C", False), ("h3", "KC", "QH", False),
    ("h4", "KS", "QS", True), ("h4", "KS", "QC", False), ("h4", "2S", "AS", True),
    ("h4", "AS", "KS", False)])
def test_red_homecells_build_up_in_suit_black_homecells_down_in_suit_without_wrap(homecell, top, card, legal):
    base = HOMECELL_BASES[homecell]
    stack = base if top == base else f"{base} {top}"
    before = position(GAME, {homecell: stack, "5": f"9C {card}"})
    assert reason(GAME, before, "5", homecell) is (None if legal else Reason.CANNOT_ADD)


def test_a_homecell_top_card_may_go_back_to_a_tableau_pile():
    before = position(GAME, {"h1": "AD 2D 3D", "3": "4S"})
    after = play(GAME, before, move(GAME, "h1", "3"))
    assert labelled_piles(GAME, after)["h1"] == "AD 2D" and labelled_piles(GAME, after)["3"] == "4S 3D"


def test_a_homecell_top_card_follows_the_tableau_rule():
    assert reason(GAME, position(GAME, {"h1": "AD 2D 3D", "3": "7S"}), "h1", "3") is Reason.CANNOT_ADD


@pytest.mark.parametrize("homecell", ["h1", "h2", "h3", "h4"])
def test_the_last_card_of_a_homecell_never_leaves(homecell):
    base = HOMECELL_BASES[homecell]
    before = position(GAME, {homecell: base, "1": "2S"})
    assert reason(GAME, before, homecell, "1") is Reason.KEEPS_LAST_CARD


def test_only_one_card_leaves_a_homecell_at_a_time():
    assert reason(GAME, position(GAME, {"h2": "AH 2H 3H", "1": "4S"}), "h2", "1", 2) is Reason.ONE_CARD_AT_A_TIME


def test_a_homecell_card_never_goes_on_a_homecell_of_another_suit():
    assert reason(GAME, position(GAME, {"h1": "AD 2D", "h2": "AH"}), "h1", "h2") is Reason.CANNOT_ADD


# --- The h alias, and the win ---------------------------------------------------------------------

def test_h_sends_the_card_to_the_homecell_that_takes_it():
    session = Session(GAME, position(GAME, {**HOMECELL_BASES, "1": "5S QC"}))
    session.respond("1 h")
    assert labelled_piles(GAME, session.position)["h3"] == "KC QC"


def test_won_when_the_homecells_hold_all_52_cards():
    red_up = {"h1": " ".join(f"{rank}D" for rank in "A23456789TJQK"),
              "h2": " ".join(f"{rank}H" for rank in "A23456789TJQK")}
    black_down = {"h3": " ".join(f"{rank}C" for rank in "KQJT98765432A"),
                  "h4": " ".join(f"{rank}S" for rank in "KQJT98765432A")}
    assert GAME.won(GAME, position(GAME, {**red_up, **black_down}))
    almost = {**black_down, "h4": black_down["h4"][:-3], "8": "AS"}
    last_move = position(GAME, {**red_up, **almost})
    assert not GAME.won(GAME, last_move)
    assert GAME.won(GAME, play(GAME, last_move, move(GAME, "8", "h4")))
