"""Golf, pile by pile: the setup, every way a card may or may not leave each
pile, every way a card may or may not be added, the draw and the win."""

import pytest

from common.deal import shuffled
from patience_games.cards import numbered
from patience_games.engine import Pile, Reason, deal, draw, play
from patience_games.games import GOLF_GAME as GOLF
from tests.test_patience_engine import labelled_piles, move, position, reason


# --- Setup ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 5, -3])
def test_setup_7_piles_of_5_face_up_dealt_row_by_row_then_the_stock_and_an_empty_homecell(seed):
    deck = [numbered(n) for n in shuffled(range(52), seed)]
    from_top = deck[::-1]
    dealt = deal(GOLF, deck)
    by_label = dict(zip((spec.label for spec in GOLF.piles), dealt.piles))
    for column in range(7):
        assert by_label[str(column + 1)] == Pile(tuple(from_top[column:35:7]))
    assert by_label["s"] == Pile(tuple(from_top[35:][::-1]))  # its top: the 36th card from the top
    assert by_label["h"] == Pile()
    assert len(by_label["s"].cards) == 17


# --- Removing a card --------------------------------------------------------------------------

def test_the_top_card_of_a_tableau_pile_leaves_it():
    before = position(GOLF, {"1": "9C 4S 6H", "h": "5D"})
    after = play(GOLF, before, move(GOLF, "1", "h"))
    assert labelled_piles(GOLF, after)["1"] == "9C 4S" and labelled_piles(GOLF, after)["h"] == "5D 6H"


def test_only_one_card_leaves_a_tableau_pile_at_a_time():
    assert reason(GOLF, position(GOLF, {"1": "7C 6H", "h": "5D"}), "1", "h", 2) is Reason.ONE_CARD_AT_A_TIME


def test_nothing_leaves_an_empty_tableau_pile():
    assert reason(GOLF, position(GOLF, {"h": "5D"}), "1", "h") is Reason.EMPTY_SOURCE


@pytest.mark.parametrize("destination", ["1", "s"])
def test_cards_never_leave_the_homecell(destination):
    assert reason(GOLF, position(GOLF, {"h": "5D 6H", "1": "7C"}), "h", destination) is Reason.NEVER_LEAVES


def test_the_stock_top_card_leaves_it_for_the_homecell():
    after = play(GOLF, position(GOLF, {"s": "KC 2H", "h": "9D"}), move(GOLF, "s", "h"))
    assert labelled_piles(GOLF, after)["s"] == "KC" and labelled_piles(GOLF, after)["h"] == "9D 2H"


def test_only_the_top_card_of_the_stock_leaves_it():
    assert reason(GOLF, position(GOLF, {"s": "3H 2H", "h": "AD"}), "s", "h", 2) is Reason.ONE_CARD_AT_A_TIME


def test_nothing_leaves_an_empty_stock():
    assert reason(GOLF, position(GOLF, {"h": "AD"}), "s", "h") is Reason.EMPTY_SOURCE


def test_a_card_never_moves_onto_its_own_pile():
    assert reason(GOLF, position(GOLF, {"1": "5H"}), "1", "1") is Reason.SAME_PILE


# --- Adding a card ---------------------------------------------------------------------------

@pytest.mark.parametrize("top, card, legal", [
    ("5H", "6S", True), ("5H", "4D", True), ("5H", "6H", True), ("5H", "4H", True),
    ("5H", "5S", False), ("5H", "7C", False), ("5H", "3C", False), ("5H", "TC", False),
    ("KH", "AS", True), ("AS", "KD", True), ("KH", "QC", True), ("AH", "2C", True),
    ("QH", "AS", False), ("2H", "KC", False), ("KH", "KS", False), ("AH", "AS", False)])
def test_the_homecell_takes_a_tableau_card_one_rank_above_or_below_any_suit_wrapping(top, card, legal):
    before = position(GOLF, {"h": f"9D {top}", "4": f"8C {card}"})
    assert reason(GOLF, before, "4", "h") is (None if legal else Reason.CANNOT_ADD)


def test_the_empty_homecell_takes_no_tableau_card():
    assert reason(GOLF, position(GOLF, {"1": "5H", "s": "2C"}), "1", "h") is Reason.EMPTY_PILE_REFUSES


def test_the_empty_homecell_takes_the_stock_top_card():
    assert reason(GOLF, position(GOLF, {"1": "5H", "s": "2C"}), "s", "h") is None


@pytest.mark.parametrize("top, card", [("5H", "9C"), ("5H", "5S"), ("KH", "2C"), ("AH", "AS"), ("5H", "6D")])
def test_the_stock_top_card_may_always_go_on_the_homecell(top, card):
    assert reason(GOLF, position(GOLF, {"h": top, "s": f"7H {card}"}), "s", "h") is None


@pytest.mark.parametrize("source, setup", [
    ("2", {"1": "6H", "2": "5C"}), ("2", {"1": "6H", "2": "7C"}), ("s", {"1": "6H", "s": "5C"})])
def test_cards_are_never_added_to_a_tableau_pile(source, setup):
    assert reason(GOLF, position(GOLF, setup), source, "1") is Reason.CANNOT_ADD


def test_an_empty_tableau_pile_takes_nothing_either():
    assert reason(GOLF, position(GOLF, {"2": "5C"}), "2", "1") is Reason.EMPTY_PILE_REFUSES


@pytest.mark.parametrize("card", ["4C", "6C", "9C"])
def test_nothing_is_added_to_the_stock(card):
    assert reason(GOLF, position(GOLF, {"1": card, "s": "5C"}), "1", "s") is Reason.CANNOT_ADD
    assert reason(GOLF, position(GOLF, {"1": card}), "1", "s") is Reason.EMPTY_PILE_REFUSES


# --- The draw and the win ---------------------------------------------------------------------

def test_draw_turns_the_stock_top_card_onto_the_homecell():
    after = draw(GOLF, position(GOLF, {"s": "KC 2H", "h": "9D"}))
    assert labelled_piles(GOLF, after)["h"] == "9D 2H" and labelled_piles(GOLF, after)["s"] == "KC"


def test_draw_from_an_empty_stock_is_refused():
    assert draw(GOLF, position(GOLF, {"h": "9D"})).reason is Reason.EMPTY_SOURCE


def test_won_when_all_52_cards_are_on_the_homecell():
    every_card = " ".join(numbered(n).two_letters for n in range(52))
    assert GOLF.won(GOLF, position(GOLF, {"h": every_card}))
    last_one = every_card.split()
    assert not GOLF.won(GOLF, position(GOLF, {"h": " ".join(last_one[:-1]), "3": last_one[-1]}))


def test_the_last_tableau_card_onto_the_homecell_wins():
    every_card = [numbered(n).two_letters for n in range(52)]
    before = position(GOLF, {"h": " ".join(every_card[:-1]), "7": every_card[-1]})
    assert not GOLF.won(GOLF, before)
    assert GOLF.won(GOLF, play(GOLF, before, move(GOLF, "7", "h")))
