"""The engine on its own: builds (rank steps, wrap, suits), runs, what a pile
takes, the deal's order, and turning up face-down cards. The helpers at the top
build hand-made positions for the rule tests of each game."""

from dataclasses import replace

import pytest

from common.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from patience_games.cards import Card, named, numbered
from patience_games.engine import (
    TAKES_ANY_CARD, TAKES_NOTHING, Empty, Game, Leave, Move, Pile, PileKind, PileSpec, Position,
    Reason, Suits, all_on, best_move, build, deal, is_run, refusal, takes, turn_up_top_cards)


def cards(names: str) -> tuple:
    """`"AH 2H"` -> the cards, bottom first."""
    return tuple(named(name) for name in names.split())


def pile(names: str = "", down: int = 0) -> Pile:
    return Pile(cards(names), down)


def position(game: Game, piles: dict, score=None) -> Position:
    """A hand-made position: `piles` by label; a pile not named is empty."""
    unknown = set(piles) - {spec.label for spec in game.piles}
    assert not unknown, f"no such piles: {unknown}"
    as_piles = {label: value if isinstance(value, Pile) else pile(value)
                for label, value in piles.items()}
    return Position(tuple(as_piles.get(spec.label, Pile()) for spec in game.piles), score)


def move(game: Game, source: str, destination: str, count: int = 1) -> Move:
    return Move(game.index(source), game.index(destination), count)


def reason(game: Game, before: Position, source: str, destination: str, count: int = 1):
    """None when the move is legal, else the reason of its refusal."""
    refused = refusal(game, before, move(game, source, destination, count))
    return None if refused is None else refused.reason


def labelled_piles(game: Game, after: Position) -> dict:
    return {spec.label: " ".join(card.two_letters for card in pile.cards)
            for spec, pile in zip(game.piles, after.piles)}


# --- Builds -------------------------------------------------------------------------

@pytest.mark.parametrize("top, card, allowed", [
    ("5H", "6S", True), ("5H", "4D", True), ("5H", "5S", False), ("5H", "7H", False),
    ("5H", "3C", False), ("KH", "AS", True), ("AS", "KD", True), ("KH", "QC", True),
    ("QH", "AS", False), ("2H", "KC", False), ("AH", "2C", True)])
def test_one_above_or_below_wrapping_any_suit(top, card, allowed):
    assert build(+1, -1, wrap=True).allows(named(top), named(card)) is allowed


@pytest.mark.parametrize("top, card, allowed", [
    ("5H", "4H", True), ("5H", "6H", True), ("5H", "7H", False), ("AH", "KH", False),
    ("KH", "AH", False)])
def test_without_wrap_king_and_ace_are_not_neighbours(top, card, allowed):
    assert build(-1, +1).allows(named(top), named(card)) is allowed


@pytest.mark.parametrize("suits, top, card, allowed", [
    (Suits.SAME, "8H", "7H", True), (Suits.SAME, "8H", "7D", False),
    (Suits.OTHER_COLOUR, "8H", "7S", True), (Suits.OTHER_COLOUR, "8H", "7C", True),
    (Suits.OTHER_COLOUR, "8H", "7D", False), (Suits.OTHER_COLOUR, "8S", "7C", False),
    (Suits.ANY, "8H", "7H", True), (Suits.ANY, "8H", "7S", True)])
def test_suit_rules(suits, top, card, allowed):
    assert build(-1, suits=suits).allows(named(top), named(card)) is allowed


@pytest.mark.parametrize("card, allowed", [("7S", True), ("7D", True), ("7H", False), ("8S", False)])
def test_same_rank_another_suit(card, allowed):
    assert build(0, suits=Suits.OTHER).allows(named("7H"), named(card)) is allowed


# --- Runs and what a pile takes -------------------------------------------------------------

DOWN_IN_SUIT, SAME_RANK = build(-1, suits=Suits.SAME), build(0, suits=Suits.OTHER)
MIXED = PileKind("pile", "rule", runs=(DOWN_IN_SUIT, SAME_RANK), leaves=Leave.RUN)
ONE_KIND = PileKind("pile", "rule", runs=(DOWN_IN_SUIT, SAME_RANK), leaves=Leave.RUN,
                    runs_of_one_kind=True)


@pytest.mark.parametrize("names, mixed, one_kind", [
    ("8H", True, True), ("8H 7H 6H", True, True), ("7H 7S 7D", True, True),
    ("8H 7H 7S", True, False), ("8H 7S", False, False), ("8H 6H", False, False)])
def test_a_run_follows_its_builds_pair_by_pair_or_one_build_throughout(names, mixed, one_kind):
    assert is_run(MIXED, cards(names)) is mixed
    assert is_run(ONE_KIND, cards(names)) is one_kind


STOCK = PileKind("stock", "nothing")
DOWN_ANY = PileKind("pile", "rule", builds=(build(-1),), empty=TAKES_ANY_CARD)


@pytest.mark.parametrize("kind, on, names, source, taken", [
    (DOWN_ANY, "9S", "8H", DOWN_ANY, True),
    (DOWN_ANY, "9S", "8H 7C", DOWN_ANY, True),
    (DOWN_ANY, "9S", "8H 6C", DOWN_ANY, False),  # the rest follows the pile's builds too
    (DOWN_ANY, "", "QH JS", DOWN_ANY, True),
    (PileKind("pile", "rule", empty=TAKES_NOTHING), "", "KH", DOWN_ANY, False),
    (PileKind("pile", "rule", empty=Empty(ranks=frozenset({13}))), "", "QH", DOWN_ANY, False),
    (PileKind("pile", "rule", empty=Empty(ranks=frozenset({13}))), "", "KH", DOWN_ANY, True),
    (PileKind("pile", "rule", builds=(DOWN_IN_SUIT, SAME_RANK),
              empty=Empty(ranks=frozenset({13}), then=(DOWN_IN_SUIT,))), "", "KH KS", DOWN_ANY, False),
    (PileKind("pile", "rule", always_takes_from=(STOCK,)), "5H", "9C", STOCK, True),
    (PileKind("pile", "rule", always_takes_from=(STOCK,)), "5H", "9C", DOWN_ANY, False),
])
def test_what_a_pile_takes(kind, on, names, source, taken):
    assert takes(kind, pile(on), cards(names), source) is taken


# --- The deal ------------------------------------------------------------------------------------

TWO_ROWS = Game("test", piles=(PileSpec(STOCK, "s", rest=True),
                               PileSpec(DOWN_ANY, "1", dealt=3, face_up=1),
                               PileSpec(DOWN_ANY, "2", dealt=2),
                               PileSpec(PileKind("home", "rule"), "h", base=(Card(SPADES, 1),))),
                won=all_on(1))


def test_the_deal_goes_row_by_row_from_the_top_after_the_base_cards():
    deck = [numbered(n) for n in range(10)] + [Card(SPADES, 1)] + [numbered(n) for n in range(20, 24)]
    dealt = deal(TWO_ROWS, deck)
    # top of the deck is 23: row 1 gets 23 (pile 1), 22 (pile 2); row 2: 21, 20; row 3: 9 (pile 1 only)
    assert dealt.piles[1] == Pile((numbered(23), numbered(21), numbered(9)), face_down=2)
    assert dealt.piles[2] == Pile((numbered(22), numbered(20)), face_down=0)
    assert dealt.piles[3] == Pile((Card(SPADES, 1),))
    assert dealt.piles[0] == Pile(tuple(numbered(n) for n in range(9)))  # the rest, 8 on top


def test_card_numbers_follow_the_spec():
    """docs/patience.md, Terms: numbering as in docs/solitaire_2.md, 13 a suit, Ace to King."""
    assert [numbered(n) for n in (0, 12, 13, 26, 51)] == [
        Card(HEARTS, 1), Card(HEARTS, 13), Card(DIAMONDS, 1), Card(CLUBS, 1), Card(SPADES, 13)]


def test_a_face_down_card_that_becomes_the_top_card_is_turned_up():
    turned = turn_up_top_cards(Position((pile("5H 6S", down=2), pile("5H 6S", down=1), Pile())))
    assert [each.face_down for each in turned.piles] == [1, 1, 0]


def test_best_move_moves_the_most_cards_that_may_move():
    runs = replace(DOWN_ANY, leaves=Leave.RUN, runs=(DOWN_IN_SUIT,))
    game = Game("test", piles=(PileSpec(runs, "1"), PileSpec(DOWN_ANY, "2")),
                won=all_on(1))
    before = position(game, {"1": "9H 8H 7H", "2": ""})
    assert best_move(game, before, 0, 1) == Move(0, 1, 3)
    assert best_move(game, position(game, {"1": "9H 8H 7H", "2": "8S"}), 0, 1) == Move(0, 1, 1)
    refused = best_move(game, position(game, {"1": "9H 8H 7H", "2": "5S"}), 0, 1)
    assert refused.reason is Reason.CANNOT_ADD and refused.move.count == 3


def test_the_helpers_build_what_they_say():
    game = TWO_ROWS
    before = position(game, {"1": pile("KH QS", down=1), "h": "AS"})
    assert labelled_piles(game, before) == {"s": "", "1": "KH QS", "2": "", "h": "AS"}
    assert reason(game, before, "1", "1") is Reason.SAME_PILE
