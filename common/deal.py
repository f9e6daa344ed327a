"""Seeded deals, exactly as the assignments write them.

The specs fix the permutation as `seed(n); shuffle(cards)` from the `random`
module, which CPython keeps stable from 3.6 to 3.13; the global generator is
used so that a program's games and its `simulate` see the same state.
"""

import random

from common import batch_shuffle

# From 2,000 games simulate deals with numpy, so that the marked simulate cases of 2,000
# games and more reach the batch path and pin it bit for bit to random.shuffle. Batched
# deals take a quarter to a half of the time (bench/simulate.py --crossover, in
# docs/guide/maintaining.md), but importing numpy costs a run 0.06 to 0.1 s: below about
# 10,000 games a run takes up to that much longer than dealing one by one.
BATCH_FROM = 2_000
BATCH_SIZE = 1 << 16  # seeds shuffled together: a few MB of decks at a time


def shuffled(cards: list, seed: int) -> list:
    """A new list: `cards` shuffled after `random.seed(seed)`; its last element is the top."""
    deck = list(cards)
    random.seed(seed)
    random.shuffle(deck)
    return deck


def decks_one_by_one(cards: tuple, first: int, count: int):
    """The decks of seeds first, first+1, ..., first+count-1, each as bytes (one
    card, below 256, a byte), `shuffled` one seed at a time: the standard
    library's way, and the one a standalone sample solution keeps."""
    for seed in range(first, first + count):
        yield bytes(shuffled(cards, seed))


def shuffled_decks(cards: tuple, first: int, count: int):
    """The same decks as `decks_one_by_one`: numpy's batch shuffle does them bit
    for bit when it is installed and they are many."""
    if count < BATCH_FROM or not batch_shuffle.available():
        return decks_one_by_one(cards, first, count)
    return batched_decks(cards, first, count)


def batched_decks(cards: tuple, first: int, count: int):
    size = len(cards)
    end = first + count
    for start in range(first, end, BATCH_SIZE):
        dealt = batch_shuffle.shuffled_batch(cards, range(start, min(start + BATCH_SIZE, end)))
        dealt = dealt.astype("uint8").tobytes()
        for offset in range(0, len(dealt), size):
            yield dealt[offset:offset + size]
