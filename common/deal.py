"""Seeded deals, exactly as the assignments write them.

The specs fix the permutation as `seed(n); shuffle(cards)` from the `random`
module, which CPython keeps stable from 3.6 to 3.13; the global generator is
used so that a program's games and its `simulate` see the same state.
"""

import random


def shuffled(cards: list, seed: int) -> list:
    """A new list: `cards` shuffled after `random.seed(seed)`; its last element is the top."""
    deck = list(cards)
    random.seed(seed)
    random.shuffle(deck)
    return deck
