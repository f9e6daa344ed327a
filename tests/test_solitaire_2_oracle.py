"""solitaire_2 against tests/oracles/solitaire_2_oracle.py, an implementation
written from its specification, docs/solitaire_2.md, alone: thousands of seeds,
every golden case."""

import random

import pytest

import solitaire_2 as game
from exactmark.kit.cases import load_cases
from tests.bytes_check import expect_same
from tests.oracles import solitaire_2_oracle as oracle

SEEDS = [*range(0, 300), *random.Random(7).sample(range(-2**40, 2**40), 100), 2**64 + 1, -(10**30)]


def lines_bytes(lines: list) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


@pytest.mark.parametrize("seed", SEEDS[:3] + [574, 3910])
def test_collected_lines_are_the_oracle_s(seed):
    expect_same(lines_bytes(game.collected_lines(game.play(game.new_deck(seed)))),
                lines_bytes(oracle.collected_lines(seed)), f"seed {seed}")


def test_collected_lines_agree_over_hundreds_of_seeds():
    for seed in SEEDS:
        assert game.collected_lines(game.play(game.new_deck(seed))) == oracle.collected_lines(seed), seed


def test_rounds_and_cards_left_agree_over_many_seeds():
    for seed in range(-1000, 2000):
        played = game.play(game.new_deck(seed))
        assert (len(played.rounds), len(played.left)) == oracle.outcome(seed), seed
        assert list(played.left) == game.play_rounds(game.new_deck(seed)), f"{seed}, unrecorded"


@pytest.mark.parametrize("case", load_cases("solitaire_2"), ids=lambda case: case.name)
def test_every_golden_case_is_what_the_oracle_prints(case):
    want = oracle.simulate_table(*case.simulate) if case.simulate else oracle.transcript(case.stdin)
    expect_same(case.stdout, want, f"{case.id} against the oracle")
