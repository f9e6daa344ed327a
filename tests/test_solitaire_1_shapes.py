"""The rare shapes of solitaire_1 each have a golden case: this table says which
seed shows which shape, and checks that it still does."""

import pytest

from exactmark.kit.cases import EXPECTED_OUTPUTS, Case
from solitaire_1 import is_ace, new_deck, play


def stage(number):
    return lambda game: game.stages[number - 1]


def some_stack(number, test):
    return lambda game: any(test(stack) for stack in stage(number)(game).stacks)


def ace_at(position, last=None):
    """The stack's Ace at this position; with `last`, also whether it is the stack's last card
    (what `(and last)` says)."""
    return lambda stack: (stack.has_ace and len(stack.discarded) + 1 == position
                          and (last is None or (len(stack.kept) == 1) == last))


def the_stack(number, index, test):
    """The stage's stack at this index (0: the `first` stack) passes the test."""
    return lambda game: test(stage(number)(game).stacks[index])


def won_with(cards):
    return lambda game: game.won and len(game.kept) == cards


SHAPES = [
    ("an Ace 9th (and last) in a stage-2 stack", 705, some_stack(2, ace_at(9))),
    ("an Ace 10th in a stage-2 stack", 3282, some_stack(2, ace_at(10))),
    ("an Ace 11th in a stage-2 stack of 11 cards", 4487, some_stack(2, ace_at(11))),
    ("stage-2 stacks of 9 and of 10 cards", 235,
     lambda game: {9, 10} <= {stack.size for stack in stage(2)(game).stacks}),
    ("a stage-2 stack of 11 cards", 4487, some_stack(2, lambda stack: stack.size == 11)),
    ("an Ace 9th in a stage-3 stack", 46310, some_stack(3, ace_at(9))),
    ("a stage-3 stack of 9 cards", 443, some_stack(3, lambda stack: stack.size == 9)),
    ("the first discard of the game in stage 2", 5712,
     lambda game: not any(stack.discarded for stack in stage(1)(game).stacks)),
    ("the Aces consecutive before stage 3", 1,
     lambda game: all(is_ace(card) for card in stage(2)(game).kept[:4])),
    ("the Aces consecutive before stage 3, negative seed", -1,
     lambda game: all(is_ace(card) for card in stage(2)(game).kept[:4])),
    ("won with 4 cards", 8, won_with(4)),
    ("won with 5 cards", 27, won_with(5)),
    ("won with 6 cards", 127, won_with(6)),
    ("lost with 16 cards kept", 5712, lambda game: not game.won and len(game.kept) == 16),
    ("a stage-2 stack of one card, not an Ace", 1533,
     some_stack(2, lambda stack: stack.size == 1 and not stack.has_ace)),
    ("a second seed with a stage-2 stack of one card, not an Ace", 1755,
     some_stack(2, lambda stack: stack.size == 1 and not stack.has_ace)),
    ("the last stage-2 stack a lone Ace", 322,
     lambda game: stage(2)(game).stacks[-1].size == 1 and stage(2)(game).stacks[-1].has_ace),
    ("all four Aces in the first stage-3 stack", 4,
     lambda game: not stage(3)(game).stacks[1].has_ace),
    ("a stage with nothing discarded", 10,
     lambda game: not any(stack.discarded for stack in stage(3)(game).stacks)),
    ("the first stage-1 stack without Ace, negative seed", -12345,
     lambda game: not stage(1)(game).stacks[0].has_ace),
    ("the first stage-2 stack without Ace, seed 10**30", 10**30,
     lambda game: not stage(2)(game).stacks[0].has_ace),
    ("a seed above 2**32", 2**32 + 7, lambda game: True),
    ("a seed above 2**64", 2**64 + 1, lambda game: True),
    # The `... card in ... stack` lines no other marked seed case prints (README: "Every
    # position line"): (stage, stack index, position, last).
    ("Sixth (and last) card in third stack, stage 2", 43, the_stack(2, 2, ace_at(6, last=True))),
    ("Fifth (and last) card in second stack, stage 3", 43, the_stack(3, 1, ace_at(5, last=True))),
    ("Fifth card in fourth stack, stage 1", 1183, the_stack(1, 3, ace_at(5, last=False))),
    ("Third (and last) card in third stack, stage 2", 1183, the_stack(2, 2, ace_at(3, last=True))),
    ("Second (and last) card in second stack, stage 3", 1183, the_stack(3, 1, ace_at(2, last=True))),
    ("Seventh (and last) card in first stack, stage 2", 1607, the_stack(2, 0, ace_at(7, last=True))),
    ("Seventh (and last) card in third stack, stage 2", 1607, the_stack(2, 2, ace_at(7, last=True))),
    ("Sixth card in second stack, stage 1", 2100, the_stack(1, 1, ace_at(6, last=False))),
    ("Third (and last) card in first stack, stage 2", 2100, the_stack(2, 0, ace_at(3, last=True))),
    ("Second (and last) card in third stack, stage 2", 2100, the_stack(2, 2, ace_at(2, last=True))),
    ("Ninth (and last) card in third stack, stage 2", 3062, the_stack(2, 2, ace_at(9, last=True))),
    ("Eighth card in second stack, stage 2", 3634, the_stack(2, 1, ace_at(8, last=False))),
    ("Seventh (and last) card in second stack, stage 3", 3634, the_stack(3, 1, ace_at(7, last=True))),
    ("Eighth (and last) card in third stack, stage 1", 6982, the_stack(1, 2, ace_at(8, last=True))),
    ("Eighth (and last) card in fourth stack, stage 1", 6982, the_stack(1, 3, ace_at(8, last=True))),
    ("First (and last) card in second stack, stage 2", 6982, the_stack(2, 1, ace_at(1, last=True))),
    ("Tenth (and last) card in first stack, stage 2", 31527, the_stack(2, 0, ace_at(10, last=True))),
    ("Seventh card in second stack, stage 2", 31527, the_stack(2, 1, ace_at(7, last=False))),
    ("Sixth (and last) card in first stack, stage 3", 31527, the_stack(3, 0, ace_at(6, last=True))),
    ("Eighth card in first stack, stage 2", 54057, the_stack(2, 0, ace_at(8, last=False))),
    ("Tenth (and last) card in third stack, stage 2", 54057, the_stack(2, 2, ace_at(10, last=True))),
    ("Sixth (and last) card in second stack, stage 3", 54057, the_stack(3, 1, ace_at(6, last=True))),
]


@pytest.mark.parametrize("description, seed, shape", SHAPES, ids=[row[0] for row in SHAPES])
def test_the_rare_shape_has_its_golden_case(description, seed, shape):
    case = Case("solitaire_1", f"seed_{seed}", EXPECTED_OUTPUTS / "solitaire_1")
    assert case.file(".out").exists() and case.screen is not None, f"no golden case seed_{seed}"
    assert case.stdin == f"{seed}\n".encode()
    assert shape(play(new_deck(seed))), f"seed {seed} no longer shows {description}"
