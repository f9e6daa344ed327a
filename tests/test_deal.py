"""Many deals at once: numpy's batch shuffle and one seed at a time give the same decks."""

import pytest

from common import batch_shuffle, deal
from common.deal import shuffled, shuffled_decks

DECK_32 = tuple(range(32))
DECK_48 = tuple(card for card in range(52) if card not in (6, 19, 32, 45))


def one_at_a_time(cards, first, count):
    return [bytes(shuffled(cards, seed)) for seed in range(first, first + count)]


@pytest.mark.parametrize("cards", [DECK_32, DECK_48], ids=["32 cards", "48 cards"])
@pytest.mark.parametrize("first", [0, -30_000, 2**32 - 20_000, 2**64])
def test_batches_deal_what_one_seed_at_a_time_deals(monkeypatch, cards, first):
    pytest.importorskip("numpy")
    monkeypatch.setattr(deal, "BATCH_FROM", 5_000)
    monkeypatch.setattr(deal, "BATCH_SIZE", 1_700)  # several batches, the last one short
    count = 6_000
    assert list(shuffled_decks(cards, first, count)) == one_at_a_time(cards, first, count)


def test_without_numpy_decks_are_dealt_one_seed_at_a_time(monkeypatch):
    monkeypatch.setattr(batch_shuffle, "available", lambda: False)
    monkeypatch.setattr(deal, "BATCH_FROM", 10)
    monkeypatch.setattr(batch_shuffle, "shuffled_batch", None)  # would fail if called
    assert list(shuffled_decks(DECK_32, 5, 100)) == one_at_a_time(DECK_32, 5, 100)


def test_few_games_are_dealt_one_seed_at_a_time(monkeypatch):
    monkeypatch.setattr(batch_shuffle, "shuffled_batch", None)  # would fail if called
    assert list(shuffled_decks(DECK_32, 0, 3)) == one_at_a_time(DECK_32, 0, 3)


@pytest.mark.parametrize("program", ["solitaire_1", "solitaire_2"])
def test_simulate_prints_the_same_table_on_both_paths(monkeypatch, capsys, program):
    pytest.importorskip("numpy")
    simulate = __import__(program).simulate
    simulate(deal.BATCH_FROM, -777)
    with_numpy = capsys.readouterr().out
    monkeypatch.setattr(batch_shuffle, "available", lambda: False)
    simulate(deal.BATCH_FROM, -777)
    assert capsys.readouterr().out == with_numpy and with_numpy.count("\n") > 3
