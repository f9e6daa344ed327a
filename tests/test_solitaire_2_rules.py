"""The rules of solitaire_2 on hand-built decks, checked move by move, and the
collected lines they give; then random deals checked against the rules as
docs/solitaire_2.md section 3 words them."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solitaire_2 as game
from common.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from solitaire_2 import (DECK, PLACED_FROM_PUT_ASIDE, PLACED_FROM_STACK, PUT_ASIDE,
                         STUCK_ON_PUT_ASIDE, collected_lines, play)


def card_of(suit, rank):
    """The card's number, as spec section 1 counts: 13 a suit, Ace to King."""
    return suit * 13 + rank - 1


def hearts(rank):
    return card_of(HEARTS, rank)


def deck(*top_first):
    """A hand-built deck written from its top down (play draws its last card first)."""
    return tuple(reversed(top_first))


def moves(played, round_number=1):
    return list(played.rounds[round_number - 1])


# --- Cards -----------------------------------------------------------------

def test_cards_are_numbered_by_suit_then_rank_and_the_sevens_are_taken_out():
    assert [card_of(suit, 7) for suit in (HEARTS, DIAMONDS, CLUBS, SPADES)] == list(game.SEVENS)
    assert sorted(DECK) == sorted(set(range(52)) - {6, 19, 32, 45})
    assert [game.character(card) for card in (0, 6, 12, 13, 25, 32, 39, 50, 51)] == \
        ["🂱", "🂷", "🂾", "🃁", "🃎", "🃗", "🂡", "🂭", "🂮"]


def test_the_first_placeable_cards_are_the_sixes_and_the_eights():
    assert game.PLACEABLE_AT_START == {card_of(suit, rank) for suit in range(4) for rank in (6, 8)}


@pytest.mark.parametrize("rank, unlocked", [(8, (9,)), (12, (13,)), (13, ()), (6, (5,)),
                                            (2, (1,)), (1, ()), (7, (6, 8))])
def test_placing_a_card_makes_the_next_one_away_from_the_seven_placeable(rank, unlocked):
    assert game.unlocked_by(card_of(SPADES, rank)) == tuple(card_of(SPADES, r) for r in unlocked)


# --- A round ---------------------------------------------------------------

def test_cards_are_placed_upwards_and_downwards_from_the_sevens():
    played = play(deck(hearts(8), hearts(9), card_of(CLUBS, 6), card_of(CLUBS, 5)))
    assert moves(played) == [(PLACED_FROM_STACK, hearts(8)), (PLACED_FROM_STACK, hearts(9)),
                             (PLACED_FROM_STACK, card_of(CLUBS, 6)),
                             (PLACED_FROM_STACK, card_of(CLUBS, 5))]
    assert played.won and len(played.rounds) == 1


def test_a_card_that_cannot_be_placed_is_put_aside_and_nothing_more_is_tried():
    played = play(deck(hearts(9), hearts(5), hearts(10), hearts(8)))
    assert moves(played)[:3] == [(PUT_ASIDE, hearts(9)), (PUT_ASIDE, hearts(5)),
                                 (PUT_ASIDE, hearts(10))]


def test_after_a_placement_the_put_aside_pile_is_placed_from_its_top_while_it_can():
    # Put aside, bottom first: 10, 9 (9 on top). Placing the 8 lets the 9 then the 10 follow.
    played = play(deck(hearts(10), hearts(9), hearts(8)))
    assert moves(played) == [(PUT_ASIDE, hearts(10)), (PUT_ASIDE, hearts(9)),
                             (PLACED_FROM_STACK, hearts(8)), (PLACED_FROM_PUT_ASIDE, hearts(9)),
                             (PLACED_FROM_PUT_ASIDE, hearts(10))]
    assert played.won


def test_the_cascade_stops_at_a_top_card_that_cannot_be_placed():
    # Put aside, bottom first: 10, King of Spades, 9. The 9 follows the 8; the King stops the cascade.
    king = card_of(SPADES, 13)
    played = play(deck(hearts(10), king, hearts(9), hearts(8)))
    assert moves(played)[3:] == [(PLACED_FROM_STACK, hearts(8)), (PLACED_FROM_PUT_ASIDE, hearts(9)),
                                 (STUCK_ON_PUT_ASIDE, king)]


def test_the_cascade_follows_every_placement_from_the_stack():
    # 9♦ waits put aside until the 8♦ is placed, after the unrelated 6♣.
    played = play(deck(card_of(DIAMONDS, 9), card_of(CLUBS, 6), card_of(DIAMONDS, 8)))
    assert moves(played) == [(PUT_ASIDE, card_of(DIAMONDS, 9)),
                             (PLACED_FROM_STACK, card_of(CLUBS, 6)),
                             (STUCK_ON_PUT_ASIDE, card_of(DIAMONDS, 9)),
                             (PLACED_FROM_STACK, card_of(DIAMONDS, 8)),
                             (PLACED_FROM_PUT_ASIDE, card_of(DIAMONDS, 9))]


# --- Rounds ----------------------------------------------------------------

def test_the_put_aside_pile_is_turned_over_the_card_put_aside_first_is_drawn_first():
    # Round 1 puts aside 9 then 10 (10 on top), places the 8, cannot place the 10.
    played = play(deck(hearts(9), hearts(10), hearts(8)))
    assert moves(played, 1)[-1] == (STUCK_ON_PUT_ASIDE, hearts(10))
    assert moves(played, 2) == [(PLACED_FROM_STACK, hearts(9)), (PLACED_FROM_STACK, hearts(10))]


def test_no_round_starts_after_a_win():
    assert len(play(deck(hearts(8))).rounds) == 1
    won_in_round_2 = play(deck(hearts(9), hearts(10), hearts(8)))
    assert won_in_round_2.won and len(won_in_round_2.rounds) == 2


def test_won_in_the_third_round():
    played = play(deck(hearts(11), hearts(12), hearts(9), hearts(10), hearts(8)))
    assert played.won and len(played.rounds) == 3


def test_lost_after_the_third_round_the_put_aside_pile_is_left():
    # Round 1 places the 6 only; round 2 the 5; round 3 the 4 and the 3; the 2 and the Ace are left.
    played = play(deck(hearts(2), hearts(4), hearts(1), hearts(5), hearts(3), hearts(6)))
    assert len(played.rounds) == 3 and not played.won
    assert played.left == (hearts(2), hearts(1))
    assert [card for move, card in moves(played, 3) if move == PLACED_FROM_STACK] == \
        [hearts(4), hearts(3)]


# --- Collected lines -------------------------------------------------------

SMILE, FROWN = "\U0001F60A\uFE0F", "\u2639\uFE0F"
EIGHT_D, NINE_D = "\U0001F0C8", "\U0001F0C9"
SEVENS_ROW = "\t\U0001F0C7\t\U0001F0D7\t\U0001F0A7\t\U0001F0B7"


def table(**rows):
    """13 rows, King first; `rows` gives some of them by rank name."""
    ranks = ["K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "A"]
    drawn = {"7": SEVENS_ROW, **{name.lstrip("r"): row for name, row in rows.items()}}
    return [drawn.get(rank, "") for rank in ranks]


def test_the_collected_lines_of_a_small_game():
    lines = collected_lines(play(deck(card_of(DIAMONDS, 9), card_of(DIAMONDS, 8))))
    assert lines == [
        "All 7s removed and placed, rest of deck shuffled, ready to start!",
        "]]",
        "",
        *table(),
        "",
        "Starting first round...",
        "",
        f"Cannot place card from top of stack of cards left {FROWN}",
        "]",
        NINE_D,
        "",
        f"Placing card from top of stack of cards left {SMILE}",
        "",
        NINE_D,
        *table(r8="\t" + EIGHT_D),
        "",
        f"Placing card from top of stack of cards put aside {SMILE}",
        "",
        "",
        *table(r9="\t" + NINE_D, r8="\t" + EIGHT_D),
        "",
        "You placed all cards, you won \U0001F44D",
    ]


def test_a_lost_game_names_the_cards_left_and_two_empty_lines_precede_a_round():
    lines = collected_lines(play(deck(hearts(2), hearts(4), hearts(1), hearts(5), hearts(3),
                                      hearts(6))))
    assert lines[-1] == "You could not place 2 cards, you lost \U0001F44E"
    second = lines.index("Starting second round...")
    assert lines[second - 3:second + 2] == [
        f"Cannot place card from top of stack of cards put aside {FROWN}", "", "",
        "Starting second round...", ""]
    third = lines.index("Starting third round...")
    assert lines[third - 3:third + 2] == ["[[[\U0001F0B3", "", "", "Starting third round...", ""]


FIRST_MOVE = 19  # after the heading, STACK, ASIDE, 13 TABLE lines, and 3 lines for the first round


def test_the_put_aside_pile_is_drawn_with_a_bracket_per_covered_card():
    lines = collected_lines(play(deck(hearts(10), hearts(9), card_of(SPADES, 13), hearts(8))))
    assert lines[FIRST_MOVE - 2] == "Starting first round..."
    third_move = FIRST_MOVE + 2 * 4
    assert lines[third_move:third_move + 4] == [
        f"Cannot place card from top of stack of cards left {FROWN}", "]", "[[\U0001F0AE", ""]


def test_table_rows_keep_their_columns_and_lose_only_trailing_tabs():
    board = game.Board(0)
    for card in (card_of(DIAMONDS, 8), card_of(HEARTS, 6), card_of(SPADES, 8)):
        board.place(card)
    rows = board.table_lines()
    assert rows[5] == "\t\U0001F0C8\t\t\U0001F0A8"  # 8s: Diamonds and Spades, no Clubs, no Hearts
    assert rows[7] == "\t\t\t\t\U0001F0B6"  # 6s: Hearts only, in the fourth column


# --- Random deals, against the rules as spec section 3 words them ----------

def can_place(card, placed):
    """Rank r > 7 needs rank r - 1 of its suit placed, rank r < 7 needs rank r + 1."""
    suit, rank = card // 13, card % 13 + 1
    needed = rank - 1 if rank > 7 else rank + 1
    return suit * 13 + needed - 1 in placed


@settings(max_examples=200, deadline=None)
@given(st.permutations(DECK))
def test_every_move_of_a_random_deal_follows_the_rules(shuffled):
    played = play(shuffled)
    placed, stack = set(game.SEVENS), list(shuffled)
    for number, round_moves in enumerate(played.rounds, 1):
        put_aside = []
        for move, card in round_moves:
            if move in (PLACED_FROM_STACK, PUT_ASIDE):
                assert card == stack.pop()
            if move == PUT_ASIDE:
                assert not can_place(card, placed)
                put_aside.append(card)
            elif move == STUCK_ON_PUT_ASIDE:
                assert card == put_aside[-1] and not can_place(card, placed)
            else:
                if move == PLACED_FROM_PUT_ASIDE:
                    assert card == put_aside.pop()
                assert can_place(card, placed)
                placed.add(card)
        assert not stack
        if number < len(played.rounds):
            assert put_aside, "a round started after a win"
            stack = put_aside[::-1]
    assert len(played.rounds) <= 3
    assert played.left == tuple(put_aside)
    assert played.won == (len(placed) == 52)
    assert played.won or len(played.rounds) == 3
    assert len(played.left) != 1
