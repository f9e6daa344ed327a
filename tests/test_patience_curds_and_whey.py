"""Curds and Whey's rules: building on the same suit one rank higher or on the
same rank in another suit; suit sequences and same-rank groups moving as units
in part or whole, a pile mixing both not moving as one unit; the empty pile
taking only a King or a King-led sequence, and (where docs/patience.md is
silent, as PySolFC's pysollib/games/curdsandwhey.py) a group of Kings; and the win."""

import pytest

from common.deal import shuffled
from patience_games.cards import numbered
from patience_games.engine import Pile, Reason, best_move, deal, play
from patience_games.games import CURDS_AND_WHEY_GAME as GAME
from tests.test_patience_engine import labelled_piles, move, position, reason

SUITS = "HDCS"


def king_to_ace(suit: str) -> str:
    return " ".join(f"{rank}{suit}" for rank in "KQJT98765432A")


def test_setup_13_piles_of_4_face_up_row_by_row():
    deck = [numbered(n) for n in shuffled(range(52), 8)]
    by_label = dict(zip((spec.label for spec in GAME.piles), deal(GAME, deck).piles))
    for column in range(13):
        assert by_label[str(column + 1)] == Pile(tuple(deck[::-1][column::13]))


@pytest.mark.parametrize("top, card, legal", [
    ("8H", "7H", True), ("7H", "7S", True), ("7H", "7D", True),
    ("8H", "7S", False), ("8H", "7D", False), ("9H", "7H", False), ("6H", "7H", False),
    ("8H", "8H", False), ("AH", "KH", False), ("KH", "QH", True)])
def test_a_card_goes_on_its_suit_one_rank_higher_or_on_its_rank_in_another_suit(top, card, legal):
    before = position(GAME, {"1": top, "2": f"2C {card}"})
    assert reason(GAME, before, "2", "1") is (None if legal else Reason.CANNOT_ADD)


@pytest.mark.parametrize("count, onto", [(3, "9H"), (2, "8H"), (1, "7H"), (1, "6S")])
def test_a_suit_sequence_moves_as_a_unit_in_part_or_whole(count, onto):
    before = position(GAME, {"1": "2C 8H 7H 6H", "2": onto})
    assert reason(GAME, before, "1", "2", count) is None


@pytest.mark.parametrize("count, onto", [(3, "7C"), (2, "7H"), (1, "7S"), (1, "8D")])
def test_a_group_of_one_rank_moves_as_a_unit_in_part_or_whole(count, onto):
    before = position(GAME, {"1": "2C 7H 7S 7D", "2": onto})
    assert reason(GAME, before, "1", "2", count) is None


def test_a_sequence_that_follows_both_rules_at_once_does_not_move_as_a_unit():
    before = position(GAME, {"1": "2C 8H 7H 7S", "2": "9H", "3": "7D", "4": ""})
    assert reason(GAME, before, "1", "2", 3) is Reason.NOT_A_RUN
    assert reason(GAME, before, "1", "3", 2) is None  # its top part is a group
    assert reason(GAME, before, "1", "3", 3) is Reason.NOT_A_RUN


def test_the_most_cards_that_may_move_is_the_longest_unit_of_one_kind():
    before = position(GAME, {"1": "2C 8H 7H 7S", "3": "7D"})
    assert best_move(GAME, before, GAME.index("1"), GAME.index("3")) == move(GAME, "1", "3", 2)


def test_cards_out_of_step_are_no_unit():
    before = position(GAME, {"1": "2C 8H 6H", "2": "9H"})
    assert reason(GAME, before, "1", "2", 2) is Reason.NOT_A_RUN


@pytest.mark.parametrize("names, why", [
    ("KH", None), ("KH QH JH", None), ("QH", Reason.EMPTY_PILE_REFUSES),
    ("7H 7S", Reason.EMPTY_PILE_REFUSES), ("QH QS QD", Reason.EMPTY_PILE_REFUSES),
    ("AS", Reason.EMPTY_PILE_REFUSES), ("KH KS", None), ("KH KS KD KC", None)])
def test_an_empty_pile_takes_only_a_king_or_a_unit_led_by_a_king(names, why):
    before = position(GAME, {"1": f"2C {names}", "2": ""})
    assert reason(GAME, before, "1", "2", len(names.split())) is why


def test_a_group_of_kings_moves_onto_an_empty_pile_as_a_unit_in_part_or_whole():
    """PySolFC's CurdsAndWhey_RowStack checks only the first card against its
    base rank King: a group of Kings is a unit led by a King."""
    before = position(GAME, {"1": "2C KH KS KD"})
    assert best_move(GAME, before, GAME.index("1"), GAME.index("2")) == move(GAME, "1", "2", 3)
    after = play(GAME, before, move(GAME, "1", "2", 3))
    assert labelled_piles(GAME, after)["1"] == "2C" and labelled_piles(GAME, after)["2"] == "KH KS KD"
    assert reason(GAME, before, "1", "2", 2) is None


@pytest.mark.parametrize("names, count", [("KS KH QH", 3), ("KH QH QS", 3)])
def test_a_king_led_mix_of_a_group_and_a_sequence_is_no_unit_even_for_an_empty_pile(names, count):
    before = position(GAME, {"1": f"2C {names}"})
    assert reason(GAME, before, "1", "2", count) is Reason.NOT_A_RUN


@pytest.mark.parametrize("names, onto", [("7H 7S 7D", "8H"), ("7S 6S", "7H"), ("7S 6S 5S", "7D")])
def test_a_unit_goes_where_its_first_card_goes(names, onto):
    """As PySolFC: a group led by a card of the pile's suit one rank lower, or a
    suit sequence led by a card of the pile's rank."""
    before = position(GAME, {"1": f"2C {names}", "2": onto})
    assert reason(GAME, before, "1", "2", len(names.split())) is None


def test_the_help_names_the_pysolfc_file_followed_where_the_handout_is_silent():
    assert "pysollib/games/curdsandwhey.py" in " ".join(GAME.rules.split())


def test_won_when_the_table_shows_four_suit_sequences_king_to_ace():
    assert GAME.won(GAME, position(GAME, {str(n + 1): king_to_ace(suit) for n, suit in enumerate(SUITS)}))
    spread = {str(n + 5): king_to_ace(suit) for n, suit in enumerate(SUITS)}
    assert GAME.won(GAME, position(GAME, spread))


def test_not_won_with_a_card_out_of_place():
    piles = {str(n + 1): king_to_ace(suit) for n, suit in enumerate(SUITS)}
    piles["1"], piles["9"] = piles["1"][:-3], "AH"
    before = position(GAME, piles)
    assert not GAME.won(GAME, before)
    assert GAME.won(GAME, play(GAME, before, move(GAME, "9", "1")))


def test_not_won_when_suits_mix_in_a_king_to_ace_pile():
    piles = {str(n + 1): king_to_ace(suit) for n, suit in enumerate(SUITS)}
    piles["1"] = piles["1"].replace("AH", "AD")
    piles["2"] = piles["2"].replace("AD", "AH")
    assert not GAME.won(GAME, position(GAME, piles))
