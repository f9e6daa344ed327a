"""The rules of Calculation apart from the console (docs/hoyle_cli.md §1-§2): cards,
foundations, moves, score."""

import pytest

from hoyle.model import (DECK, DrawCheck, FirstAction, Game, IllegalMove, foundation_ranks, is_card, rank,
                         rank_after, suit)

# The table of spec §2, as printed there.
SPEC_FOUNDATIONS = {
    1: "A 2 3 4 5 6 7 8 9 10 J Q K",
    2: "2 4 6 8 10 Q A 3 5 7 9 J K",
    3: "3 6 9 Q 2 5 8 J A 4 7 10 K",
    4: "4 8 Q 3 7 J 2 6 10 A 5 9 K",
}
RANK_OF_TEXT = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(n): n for n in range(2, 11)}}
A_CLUBS, TWO_HEARTS, THREE_HEARTS, FOUR_SPADES = 13, 27, 28, 42  # the worked examples' starting cards
A_DIAMONDS, TWO_DIAMONDS, TWO_CLUBS, KING_SPADES = 0, 1, 14, 51


def started() -> Game:
    game = Game()
    for foundation, card in enumerate((A_CLUBS, TWO_HEARTS, THREE_HEARTS, FOUR_SPADES)):
        game = game.start(foundation, card)
    return game


def test_cards_are_numbered_suit_by_suit_diamonds_clubs_hearts_spades():
    assert len(DECK) == 52
    assert [(rank(card), suit(card)) for card in (0, 12, 13, 27, 28, 42, 51)] == \
        [(1, 0), (13, 0), (1, 1), (2, 2), (3, 2), (4, 3), (13, 3)]
    assert [is_card(number) for number in (-1, 0, 51, 52)] == [False, True, True, False]


@pytest.mark.parametrize("step", [1, 2, 3, 4])
def test_each_foundation_follows_the_spec_table(step):
    expected = tuple(RANK_OF_TEXT[text] for text in SPEC_FOUNDATIONS[step].split())
    assert foundation_ranks(step) == expected
    assert sorted(expected) == list(range(1, 14)) and expected[-1] == 13


def test_ranks_wrap_after_the_king():
    assert rank_after(13, 1) == 1
    assert rank_after(12, 2) == 1
    assert rank_after(11, 3) == 1
    assert rank_after(10, 4) == 1
    assert rank_after(12, 4) == 3


def test_a_fresh_game_has_every_card_in_the_stock():
    game = Game()
    assert game.remaining == 52 and game.held is None
    assert game.foundations == ((), (), (), ()) and game.waste_piles == ((), (), (), ())


def test_starting_cards_leave_the_stock():
    game = started()
    assert game.remaining == 48 and game.score == 48
    assert [game.next_rank(foundation) for foundation in range(4)] == [2, 4, 6, 8]


def test_a_starting_card_must_have_the_foundations_first_rank():
    with pytest.raises(IllegalMove):
        Game().start(1, A_CLUBS)
    with pytest.raises(IllegalMove):
        Game().start(0, A_CLUBS).start(0, A_DIAMONDS)  # not empty any more


def test_draw_checks_come_in_the_spec_order():
    game = started()
    assert [game.check_draw(number) for number in (-1, 52, 2**31 - 1)] == [DrawCheck.NOT_A_CARD] * 3
    assert game.check_draw(A_CLUBS) is DrawCheck.ALREADY_DRAWN
    assert game.check_draw(TWO_CLUBS) is None
    drawn = game.draw(TWO_CLUBS).play_on_waste_pile(0)
    assert drawn.check_draw(TWO_CLUBS) is DrawCheck.ALREADY_DRAWN


def test_no_card_is_drawn_while_one_is_held():
    with pytest.raises(IllegalMove):
        started().draw(TWO_CLUBS).draw(A_DIAMONDS)


def test_a_held_card_is_not_counted_in_the_score():
    game = started().draw(TWO_CLUBS)
    assert game.held == TWO_CLUBS
    assert game.remaining == 47 and game.waste_cards == 0 and game.score == 47
    on_waste = game.play_on_waste_pile(2)
    assert on_waste.held is None and on_waste.waste_piles[2] == (TWO_CLUBS,)
    assert on_waste.score == 48


def test_a_foundation_takes_only_its_next_rank_suits_ignored():
    game = started().draw(TWO_DIAMONDS)
    assert game.accepts(0, TWO_DIAMONDS) and not game.accepts(1, TWO_DIAMONDS)
    with pytest.raises(IllegalMove):
        game.play_on_foundation(1)
    played = game.play_on_foundation(0)
    assert played.foundations[0] == (A_CLUBS, TWO_DIAMONDS) and played.held is None
    assert played.score == 47 and played.next_rank(0) == 3


def test_a_refused_move_leaves_the_game_as_it_was():
    game = started().draw(KING_SPADES)
    before = game
    with pytest.raises(IllegalMove):
        game.play_on_foundation(3)
    assert game == before


def test_only_the_top_of_a_waste_pile_moves_and_a_held_card_stays_held():
    game = started()
    for card in (TWO_CLUBS, KING_SPADES):  # 2♣ under K♠ on W1
        game = game.draw(card).play_on_waste_pile(0)
    game = game.draw(TWO_DIAMONDS).play_on_waste_pile(1).draw(A_DIAMONDS)
    assert not game.can_move(0, 0)  # K♠ on top
    assert not game.can_move(2, 0)  # an empty waste pile
    with pytest.raises(IllegalMove):
        game.move(0, 0)
    moved = game.move(1, 0)
    assert moved.foundations[0] == (A_CLUBS, TWO_DIAMONDS)
    assert moved.waste_piles == ((TWO_CLUBS, KING_SPADES), (), (), ())
    assert moved.held == A_DIAMONDS
    assert (game.score, moved.score) == (44 + 3, 44 + 2)  # four drawn, A♦ held


def test_item_one_plays_draws_or_finishes():
    game = started()
    assert game.first_action is FirstAction.DRAW
    assert game.draw(TWO_CLUBS).first_action is FirstAction.PLAY
    assert won_game(last_card_held=True).first_action is FirstAction.PLAY
    assert won_game().first_action is FirstAction.FINISH


def won_game(last_card_held: bool = False) -> Game:
    """Every card played straight onto a foundation, one foundation after the other: each
    foundation takes each rank once, so the four cards of each rank are just enough."""
    game = started()
    for foundation in range(4):
        while game.next_rank(foundation) is not None:
            card = min(card for card in game.stock if rank(card) == game.next_rank(foundation))
            game = game.draw(card)
            if last_card_held and not game.stock:
                return game
            game = game.play_on_foundation(foundation)
    return game


def test_a_won_game_scores_zero_with_every_foundation_complete():
    game = won_game()
    assert game.score == 0 and game.remaining == 0
    assert [len(cards) for cards in game.foundations] == [13] * 4
    assert [rank(cards[-1]) for cards in game.foundations] == [13] * 4
    assert [game.next_rank(foundation) for foundation in range(4)] == [None] * 4
    assert not any(game.accepts(foundation, KING_SPADES) for foundation in range(4))


def test_the_last_card_held_still_scores_zero():
    game = won_game(last_card_held=True)
    assert game.held is not None and game.remaining == 0 and game.score == 0


def test_waste_cards_count_in_the_score():
    game = started()
    for index, card in enumerate(sorted(game.stock)):
        game = game.draw(card).play_on_waste_pile(index % 4)
    assert game.remaining == 0 and game.waste_cards == 48 and game.score == 48
    assert game.first_action is FirstAction.FINISH
