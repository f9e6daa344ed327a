"""Spider's rules: the 104-card deck of 1, 2 or 4 suits, the deal with only top
cards face up, moves onto one rank higher, runs down in one suit, empty piles,
face-down cards turned up, complete runs removed, the stock deal (never with an
empty pile) and the score."""

from collections import Counter

import pytest

from common.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from common.deal import shuffled
from patience_games.engine import Pile, Reason, best_move, deal, draw, play
from patience_games.games import spider
from tests.test_patience_engine import cards, labelled_piles, move, pile, position, reason

GAME = spider(4)
TABLEAU = [str(n) for n in range(1, 11)]
KING_TO_TWO = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"


def full_table(**piles) -> dict:
    """Every tableau pile holds a card (so the stock may deal), some as given."""
    return {label: piles.get(f"p{label}", "9D") for label in TABLEAU}


# --- Setup ------------------------------------------------------------------------------------

@pytest.mark.parametrize("suits, expected", [
    (1, {SPADES: 104}), (2, {SPADES: 52, HEARTS: 52}),
    (4, {HEARTS: 26, DIAMONDS: 26, CLUBS: 26, SPADES: 26})])
def test_104_cards_each_rank_of_each_suit_equally_often(suits, expected):
    game = spider(suits)
    deck = [game.card(n) for n in range(104)]
    assert Counter(card.suit for card in deck) == expected
    assert Counter(card.rank for card in deck) == {rank: 8 for rank in range(1, 14)}


@pytest.mark.parametrize("seed", [0, 11])
def test_setup_6_6_6_6_then_5_cards_only_the_top_face_up_and_a_stock_of_50(seed):
    deck = [GAME.card(n) for n in shuffled(range(104), seed)]
    from_top = deck[::-1]
    dealt = deal(GAME, deck)
    by_label = dict(zip((spec.label for spec in GAME.piles), dealt.piles))
    for column, label in enumerate(TABLEAU):
        expected = tuple(from_top[column:54:10])
        assert by_label[label] == Pile(expected, face_down=len(expected) - 1)
        assert len(expected) == (6 if column < 4 else 5)
    assert by_label["s"] == Pile(tuple(from_top[54:][::-1]))
    assert dealt.score == 500 and dealt.runs_removed == 0


# --- Moves -------------------------------------------------------------------------------------

@pytest.mark.parametrize("top, card, legal", [
    ("6S", "5H", True), ("6H", "5H", True), ("6D", "5C", True),
    ("7S", "5H", False), ("4S", "5H", False), ("5S", "5H", False), ("AS", "KH", False)])
def test_a_card_goes_on_a_card_one_rank_higher_any_suit(top, card, legal):
    before = position(GAME, {"1": top, "2": card})
    assert reason(GAME, before, "2", "1") is (None if legal else Reason.CANNOT_ADD)


def test_a_run_down_in_one_suit_moves_together_in_part_or_whole():
    before = position(GAME, {"1": "9D 8H 7H 6H", "2": "9C", "3": "8C", "4": "7S"})
    assert reason(GAME, before, "1", "2", 3) is None
    assert reason(GAME, before, "1", "3", 2) is None
    assert reason(GAME, before, "1", "4", 1) is None


@pytest.mark.parametrize("names, count", [("8H 7S", 2), ("8H 7H 6S", 3), ("8H 6H", 2)])
def test_cards_that_are_not_a_run_in_one_suit_do_not_move_together(names, count):
    before = position(GAME, {"1": names, "2": "9C"})
    assert reason(GAME, before, "1", "2", count) is Reason.NOT_A_RUN


def test_face_down_cards_never_move():
    before = position(GAME, {"1": pile("8H 7H 6H", down=1), "2": "9C"})
    assert reason(GAME, before, "1", "2", 3) is Reason.TOO_FEW_CARDS
    assert reason(GAME, before, "1", "2", 2) is Reason.CANNOT_ADD  # 7H on 9C


@pytest.mark.parametrize("names", ["5H", "KS", "9D 8D 7D"])
def test_an_empty_pile_takes_any_card_or_run(names):
    before = position(GAME, {"1": f"2C {names}"})
    assert reason(GAME, before, "1", "2", len(names.split())) is None


def test_without_a_count_the_longest_run_goes_to_an_empty_pile():
    before = position(GAME, {"1": "2C 9D 8D 7D", "3": "8S"})
    assert best_move(GAME, before, GAME.index("1"), GAME.index("2")) == move(GAME, "1", "2", 3)
    assert best_move(GAME, before, GAME.index("1"), GAME.index("3")) == move(GAME, "1", "3", 1)


def test_a_face_down_card_that_becomes_the_top_card_is_turned_up():
    after = play(GAME, position(GAME, {"1": pile("KC QD 5H", down=2), "2": "6S"}, score=500),
                 move(GAME, "1", "2"))
    assert after.piles[GAME.index("1")] == Pile(cards("KC QD"), face_down=1)


def test_the_stock_gives_cards_only_by_dealing_and_takes_none():
    before = position(GAME, {"s": "5H 6H", "1": "7S", "2": "6C"})
    assert reason(GAME, before, "s", "1") is Reason.NEVER_LEAVES
    assert reason(GAME, before, "2", "s") is Reason.CANNOT_ADD


# --- Complete runs, score ------------------------------------------------------------------------

def test_a_complete_run_in_one_suit_is_removed_and_scores_100():
    before = position(GAME, {"1": pile(f"4D 9C {KING_TO_TWO}", down=2), "2": "AS"}, score=480)
    after = play(GAME, before, move(GAME, "2", "1"))
    assert after.piles[GAME.index("1")] == Pile(cards("4D 9C"), face_down=1)
    assert after.score == 480 - 1 + 100 and after.runs_removed == 1


def test_a_run_moved_onto_a_pile_can_complete_it():
    before = position(GAME, {"1": "KS QS JS TS 9S 8S 7S", "2": "6S 5S 4S 3S 2S AS"}, score=400)
    after = play(GAME, before, move(GAME, "2", "1", 6))
    assert labelled_piles(GAME, after)["1"] == "" and after.runs_removed == 1 and after.score == 499


@pytest.mark.parametrize("run", ["KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2H", "QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"])
def test_a_run_that_is_not_king_to_ace_in_one_suit_stays(run):
    after = play(GAME, position(GAME, {"1": run, "2": "AS"}, score=500), move(GAME, "2", "1"))
    assert labelled_piles(GAME, after)["1"] == f"{run} AS" and after.runs_removed == 0


def test_every_move_costs_a_point():
    after = play(GAME, position(GAME, {"1": "6S", "2": "5H"}, score=500), move(GAME, "2", "1"))
    assert after.score == 499


# --- The stock deal -----------------------------------------------------------------------------

def test_the_deal_puts_one_stock_card_on_each_pile_from_the_top_left_to_right():
    stock = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"  # its top is KH
    after = draw(GAME, position(GAME, {"s": stock, **full_table()}, score=500))
    piles = labelled_piles(GAME, after)
    assert [piles[label] for label in TABLEAU] == [f"9D {card}" for card in
                                                    "KH QH JH TH 9H 8H 7H 6H 5H 4H".split()]
    assert piles["s"] == "2H 3H" and after.score == 499


def test_no_deal_while_a_pile_is_empty():
    table = full_table()
    del table["7"]
    refused = draw(GAME, position(GAME, {"s": "2H 3H 4H 5H 6H 7H 8H 9H TH JH", **table}, score=500))
    assert refused.reason is Reason.EMPTY_PILE_BLOCKS_DEAL


def test_no_deal_from_an_empty_stock():
    assert draw(GAME, position(GAME, full_table(), score=500)).reason is Reason.STOCK_EMPTY


def test_a_deal_can_complete_a_run():
    table = full_table(p10=KING_TO_TWO)
    after = draw(GAME, position(GAME, {"s": "AS 2H 3H 4H 5H 6H 7H 8H 9H TH", **table}, score=500))
    assert labelled_piles(GAME, after)["10"] == "" and after.score == 599 and after.runs_removed == 1


# --- The win ---------------------------------------------------------------------------------------

def test_won_when_the_table_is_empty():
    assert GAME.won(GAME, position(GAME, {}, score=1300))
    assert not GAME.won(GAME, position(GAME, {"4": "AS"}, score=1300))
    assert not GAME.won(GAME, position(GAME, {"s": "AS"}, score=1300))
    last = play(GAME, position(GAME, {"1": KING_TO_TWO, "2": "AS"}, score=900), move(GAME, "2", "1"))
    assert GAME.won(GAME, last)
