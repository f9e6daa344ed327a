"""FreeCell's rules: cascades down in alternating colours, foundations up in
suit from the Ace, one card per free cell, the sequence limit (N + 1) × 2^M
not counting the destination, and Microsoft's deals 1 and 617 as
docs/patience.md prints them."""

import pytest

from common.deal import shuffled
from patience_games.cards import numbered
from patience_games.engine import Pile, Reason, deal, play, refusal
from patience_games.freecell_ms import layout, ms_deck
from patience_games.games import FREECELL_GAME as GAME
from tests.test_patience_engine import labelled_piles, move, position, reason

DEAL_1 = """\
JD 2D 9H JC 5D 7H 7C 5H
KD KC 9S 5S AD QC KH 3H
2S KS 9D QD JS AS AH 3C
4C 5C TS QH 4H AC 4D 7S
3S TD 4S TH 8H 2C JH 7D
6D 8S 8D QS 6C 3D 8C TC
6S 9C 2H 6H
"""
DEAL_617 = """\
7D AD 5C 3S 5S 8C 2D AH
TD 7S QD AC 6D 8H AS KH
TH QC 3H 9D 6S 8D 3D TC
KD 5H 9S 3C 8S 7H 4D JS
4C QS 9C 9H 7C 6H 2C 2S
4S TS 2H 5D JC 6C JH QH
JD KS KC 4H
"""
CASCADES = [str(n) for n in range(1, 9)]
FREE_CELLS = list("abcd")


# --- Deals ---------------------------------------------------------------------------------

@pytest.mark.parametrize("number, spec_layout", [(1, DEAL_1), (617, DEAL_617)])
def test_microsoft_deals_as_the_spec_prints_them(number, spec_layout):
    assert layout(number).encode() == spec_layout.encode()


@pytest.mark.parametrize("number, spec_layout", [(1, DEAL_1), (617, DEAL_617)])
def test_a_microsoft_deal_fills_the_cascades_row_by_row(number, spec_layout):
    rows = [row.split() for row in spec_layout.splitlines()]
    piles = labelled_piles(GAME, deal(GAME, ms_deck(number)))
    for column, label in enumerate(CASCADES):
        assert piles[label] == " ".join(row[column] for row in rows if column < len(row))
    assert all(piles[label] == "" for label in FREE_CELLS + ["h1", "h2", "h3", "h4"])


def test_a_seeded_deal_gives_7_7_7_7_6_6_6_6_cards_row_by_row():
    deck = [numbered(n) for n in shuffled(range(52), 3)]
    by_label = dict(zip((spec.label for spec in GAME.piles), deal(GAME, deck).piles))
    for column, label in enumerate(CASCADES):
        assert by_label[label] == Pile(tuple(deck[::-1][column::8]))
    assert [len(by_label[label].cards) for label in CASCADES] == [7, 7, 7, 7, 6, 6, 6, 6]


# --- Cascades ------------------------------------------------------------------------------------

@pytest.mark.parametrize("top, card, legal", [
    ("6S", "5H", True), ("6C", "5D", True), ("6H", "5S", True), ("6D", "5C", True),
    ("6D", "5H", False), ("6S", "5C", False), ("7S", "5H", False), ("4S", "5H", False),
    ("AS", "KH", False)])
def test_cascades_are_built_down_in_alternating_colours(top, card, legal):
    before = position(GAME, {"1": top, "2": f"9C {card}"})
    assert reason(GAME, before, "2", "1") is (None if legal else Reason.CANNOT_ADD)


@pytest.mark.parametrize("source, setup", [("a", {"a": "KH"}), ("2", {"2": "3C 9D"})])
def test_an_empty_cascade_takes_any_card(source, setup):
    assert reason(GAME, position(GAME, setup), source, "1") is None


@pytest.mark.parametrize("names, count", [("9H 8H", 2), ("9H 7S", 2), ("9H 8S 7S", 3)])
def test_only_a_sequence_down_in_alternating_colours_moves_together(names, count):
    before = position(GAME, {"1": names, "2": "TC"})
    assert reason(GAME, before, "1", "2", count) is Reason.NOT_A_RUN


# --- Free cells ---------------------------------------------------------------------------------

def test_a_free_cell_holds_one_card():
    before = position(GAME, {"a": "5H", "1": "9C 8D"})
    assert reason(GAME, before, "1", "b") is None
    assert reason(GAME, before, "1", "a") is Reason.CANNOT_ADD


def test_a_sequence_does_not_go_into_a_free_cell():
    assert reason(GAME, position(GAME, {"1": "9C 8D"}), "1", "b", 2) is Reason.EMPTY_PILE_REFUSES


@pytest.mark.parametrize("destination, setup", [
    ("1", {"1": "6S"}), ("2", {}), ("h1", {"h1": "AH 2H 3H 4H"}), ("b", {})])
def test_a_free_cell_card_moves_to_a_cascade_an_empty_free_cell_or_its_foundation(destination, setup):
    assert reason(GAME, position(GAME, {"a": "5H", **setup}), "a", destination) is None


# --- Foundations -----------------------------------------------------------------------------------

@pytest.mark.parametrize("on, card, legal, why", [
    ("", "AH", True, None), ("", "AS", True, None), ("", "2H", False, Reason.EMPTY_PILE_REFUSES),
    ("AH", "2H", True, None), ("AH", "2D", False, Reason.CANNOT_ADD),
    ("AH", "3H", False, Reason.CANNOT_ADD), ("AH 2H", "AS", False, Reason.CANNOT_ADD),
    ("AH", "KH", False, Reason.CANNOT_ADD)])
def test_foundations_are_built_up_in_suit_from_the_ace(on, card, legal, why):
    before = position(GAME, {"h2": on, "3": f"9C {card}"})
    assert reason(GAME, before, "3", "h2") is why


def test_a_sequence_does_not_go_onto_a_foundation_at_once():
    before = position(GAME, {"h1": "AH", "1": "3H 2S", "2": "3S 2H"})
    assert reason(GAME, before, "2", "h1", 2) is Reason.CANNOT_ADD


@pytest.mark.parametrize("destination", ["a", "1", "h2"])
def test_cards_never_leave_a_foundation(destination):
    before = position(GAME, {"h1": "AH 2H", "1": "3S"})
    assert reason(GAME, before, "h1", destination) is Reason.NEVER_LEAVES


# --- The sequence limit ----------------------------------------------------------------------------

SEQUENCE = "KC QH JC TH 9C 8H 7C 6H 5C 4H 3C 2H"  # 12 cards down in alternating colours
FULL = "9S"


def limit_position(free_cells: int, empty_cascades: int, destination_empty: bool):
    """The sequence on cascade 1; the destination cascade 2 holds KS unless empty;
    `free_cells` of the free cells and `empty_cascades` of cascades 3-8 are empty."""
    piles = {"1": SEQUENCE, "2": "" if destination_empty else "KS"}
    for index, label in enumerate(CASCADES[2:]):
        piles[label] = "" if index < empty_cascades else FULL
    for index, label in enumerate(FREE_CELLS):
        piles[label] = "" if index < free_cells else "9H"
    return position(GAME, piles)


@pytest.mark.parametrize("free_cells, empty_cascades, limit", [
    (0, 0, 1), (1, 0, 2), (3, 0, 4), (4, 0, 5), (0, 1, 2), (1, 1, 4), (2, 2, 12), (0, 3, 8)])
@pytest.mark.parametrize("destination_empty", [False, True])
def test_a_sequence_moves_when_at_most_n_plus_1_times_2_to_the_m_not_counting_the_destination(
        free_cells, empty_cascades, limit, destination_empty):
    before = limit_position(free_cells, empty_cascades, destination_empty)
    if destination_empty:  # then any length of sequence fits; only the limit matters
        fits = range(1, 13)
    else:
        fits = [11]  # on KS, only the 11 cards from QH up fit
    for count in fits:
        move_ = move(GAME, "1", "2", count)
        refused = refusal(GAME, before, move_)
        if count <= limit:
            assert refused is None, (count, refused)
        else:
            assert refused.reason is Reason.OVER_LIMIT
            assert refused.facts == (limit, free_cells, empty_cascades)


def test_moving_a_whole_cascade_does_not_count_its_own_emptiness():
    before = position(GAME, {"1": "8H 7C", "2": "9S", **{label: FULL for label in CASCADES[2:]},
                             **{label: "9H" for label in FREE_CELLS}})
    assert reason(GAME, before, "1", "2", 2) is Reason.OVER_LIMIT


def test_a_legal_sequence_move_keeps_the_order_of_the_cards():
    before = position(GAME, {"1": SEQUENCE, "2": "7S"})
    after = play(GAME, before, move(GAME, "1", "2", 5))
    assert labelled_piles(GAME, after)["2"] == "7S 6H 5C 4H 3C 2H"
    assert labelled_piles(GAME, after)["1"] == "KC QH JC TH 9C 8H 7C"


def test_moving_from_a_foundation_to_h_names_the_empty_foundation_not_itself():
    from patience_games.session import Session

    session = Session(GAME, deal(GAME, ms_deck(1)))
    assert session.respond("h1 h").lines == ["There is no card on foundation h1."]
