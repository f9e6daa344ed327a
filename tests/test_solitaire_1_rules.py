"""The rules of solitaire_1 on hand-built decks: dealing, turning over, the kept pile, the win."""

import pytest

import solitaire_1 as game
from solitaire_1 import Stage, TurnedStack, deal, is_ace, play, turn_over

ACE_H, SEVEN_H, EIGHT_H, KING_H = 0, 1, 2, 7
ACE_D, ACE_C, ACE_S = 8, 16, 24


def test_cards_are_numbered_by_suit_then_rank():
    assert [game.character(card) for card in (0, 1, 7, 8, 16, 24, 31)] == \
        ["🂱", "🂷", "🂾", "🃁", "🃑", "🂡", "🂮"]
    assert [card for card in game.DECK if is_ace(card)] == list(game.ACES)


def test_the_knight_is_never_drawn():
    knights = {chr(base + 0xC) for base in (0x1F0B0, 0x1F0C0, 0x1F0D0, 0x1F0A0)}
    assert not knights & {game.character(card) for card in game.DECK}


def test_deal_takes_the_top_card_first_round_robin():
    pile = (10, 11, 12, 13, 14, 15, 16)  # 16 is the top
    assert deal(pile, 3) == [(16, 13, 10), (15, 12), (14, 11)]


@pytest.mark.parametrize("cards, sizes", [(32, [8, 8, 8, 8]), (11, [4, 4, 3]),
                                          (10, [4, 3, 3]), (9, [3, 3, 3]), (5, [3, 2])])
def test_the_first_stacks_get_the_extra_cards(cards, sizes):
    stacks = 4 if cards == 32 else 3 if cards > 5 else 2
    assert [len(stack) for stack in deal(tuple(range(cards)), stacks)] == sizes


def test_turning_over_discards_the_cards_before_the_first_ace():
    assert turn_over((SEVEN_H, KING_H, ACE_D, EIGHT_H, ACE_C)) == \
        TurnedStack(discarded=(SEVEN_H, KING_H), kept=(ACE_D, EIGHT_H, ACE_C))


def test_a_stack_without_ace_is_discarded_entirely():
    turned = turn_over((SEVEN_H, KING_H))
    assert turned == TurnedStack(discarded=(SEVEN_H, KING_H), kept=())
    assert not turned.has_ace


def test_each_stack_keeps_its_part_above_the_earlier_ones():
    stage = Stage((turn_over((ACE_H, SEVEN_H)), turn_over((KING_H,)), turn_over((EIGHT_H, ACE_D))))
    assert stage.kept == (ACE_H, SEVEN_H, ACE_D)


def test_the_next_stage_deals_the_kept_pile_from_its_top():
    # Stage 1 keeps everything (each stack starts with an Ace) ...
    stacks = [(ACE_H, *range(1, 8)), (ACE_D, *range(9, 16)), (ACE_C, *range(17, 24)),
              (ACE_S, *range(25, 32))]
    deck = tuple(card for round_ in zip(*stacks) for card in round_)[::-1]
    assert deal(deck, 4) == stacks
    stage_1 = play(deck).stages[0]
    assert stage_1.kept == sum(stacks, ())
    # ... so stage 2's first stack starts with the top kept card, the King of Spades.
    assert play(deck).stages[1].stacks[0].discarded[0] == 31


def test_won_when_the_four_bottom_kept_cards_are_the_aces():
    won = game.Game((Stage((turn_over((ACE_H, ACE_D, ACE_C, ACE_S, KING_H)),)),))
    lost = game.Game((Stage((turn_over((ACE_H, ACE_D, KING_H, ACE_C, ACE_S)),)),))
    assert won.won and not lost.won


def test_a_game_always_keeps_the_four_aces():
    for seed in range(200):
        kept = play(game.new_deck(seed)).kept
        assert sorted(card for card in kept if is_ace(card)) == list(game.ACES)


def test_same_seed_same_deal_and_the_top_is_the_last_card():
    assert game.new_deck(0) == game.new_deck(0)
    assert sorted(game.new_deck(0)) == list(game.DECK)
    assert game.new_deck(0) != game.new_deck(1)
