"""solitaire_1 against tests/oracles/solitaire_1_oracle.py, an implementation
written from its specification, docs/solitaire_1.md, alone: thousands of seeds,
every golden case."""

import random

import pytest

import solitaire_1 as game
from common.console import SEED_PROMPT
from exactmark.kit.cases import load_cases
from tests.bytes_check import expect_same
from tests.oracles import solitaire_1_oracle as oracle

SPECIAL_SEEDS = [-1, -12345, 2**31 - 1, 2**32 + 7, 2**64 + 1, 10**30, -(10**40)]
SEEDS_PER_BATCH = 1000
BATCHES = [range(0, SEEDS_PER_BATCH), range(10**6, 10**6 + SEEDS_PER_BATCH),
           [random.Random(2026).randrange(-2**70, 2**70) for _ in range(SEEDS_PER_BATCH)]]


def transcript(seed: int) -> str:
    """What `main` prints with the seed piped: the prompt, print(), the narration."""
    return f"{SEED_PROMPT}\n" + "\n".join(game.narrate(game.play(game.new_deck(seed)))) + "\n"


@pytest.mark.parametrize("seeds", BATCHES + [SPECIAL_SEEDS],
                         ids=["0..999", "10^6..", "random 70-bit", "special"])
def test_every_seed_narrates_as_the_oracle(seeds):
    for seed in seeds:
        expect_same(transcript(seed).encode(), oracle.transcript(seed), f"seed {seed}")


def test_outcomes_agree_over_many_seeds():
    for seed in range(20000):
        assert game.cards_left_if_won(game.new_deck(seed)) == oracle.outcome(seed), seed


@pytest.mark.parametrize("case", [case for case in load_cases("solitaire_1")
                                  if case.name.startswith("seed_")], ids=lambda case: case.name)
def test_seed_cases_are_what_the_oracle_prints(case):
    seed = int(case.stdin)
    expect_same(case.stdout, oracle.transcript(seed), f"{case.id} against the oracle")


@pytest.mark.parametrize("case", [case for case in load_cases("solitaire_1") if case.simulate],
                         ids=lambda case: case.name)
def test_simulate_cases_are_what_the_oracle_prints(case):
    expect_same(case.stdout, oracle.simulate_table(*case.simulate), f"{case.id} against the oracle")
