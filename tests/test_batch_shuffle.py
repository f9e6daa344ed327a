"""The batched deal against `random.seed(s); random.shuffle(deck)` itself: row
for row, on thousands of seeds, every key length, seeds whose shuffle needs
many more outputs than usual, decks longer than a generator state; and the
module imports where numpy is not installed."""

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import common.batch_shuffle as batch
from common.deal import shuffled

ROOT = Path(__file__).resolve().parent.parent
DECKS = {32: list(range(32)), 48: sorted(set(range(52)) - {6, 19, 32, 45}), 52: list(range(52))}
EDGES = [0, 1, -1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, -(2**32), 2**63 - 1, -(2**63), 2**63,
         2**64 - 1, 2**64, 2**64 + 1, -(2**64), 10**40, -(10**40), 2**(32 * 623) + 5,
         2**(32 * 624) + 7, -(3**14000)]  # the last three: keys of 624, 625, 694 words


@pytest.fixture(scope="module")
def np():
    return pytest.importorskip("numpy")


def rows_differing(cards, seeds):
    dealt = batch.shuffled_batch(cards, seeds)
    assert dealt.shape == (len(seeds), len(cards))
    return [seed for seed, row in zip(seeds, dealt) if row.tolist() != shuffled(cards, seed)]


class CountingRandom(random.Random):
    """random.Random that counts the outputs `shuffle` draws (getrandbits calls)."""
    draws = 0

    def getrandbits(self, k):
        self.draws += 1
        return super().getrandbits(k)


def outputs_drawn(size, seed):
    generator = CountingRandom(seed)
    generator.shuffle(list(range(size)))
    return generator.draws


@pytest.mark.parametrize("size", sorted(DECKS))
def test_thousands_of_seeds_deal_as_random_shuffle(np, size):
    assert rows_differing(DECKS[size], range(-1500, 2500)) == []


@pytest.mark.parametrize("size", sorted(DECKS))
def test_every_key_length_mixed_in_one_batch(np, size):
    """Zero, one word, two words, the 2**32 and 2**64 borders, and keys as long as
    the state and longer, in any order among ordinary seeds."""
    seeds = EDGES + list(range(100, 140)) + EDGES[::-1]
    random.Random(7).shuffle(seeds)
    assert rows_differing(DECKS[size], seeds) == []


def test_random_seeds_of_many_sizes(np):
    generator = random.Random(2024)
    seeds = [generator.getrandbits(generator.randrange(1, 200)) * generator.choice((1, -1))
             for _ in range(2000)]
    assert rows_differing(DECKS[32], seeds) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(), max_size=40), st.integers(0, 60))
def test_any_ints_any_deck(np, seeds, size):
    assert rows_differing(list(range(size)), seeds) == []


@pytest.mark.parametrize("size, seed", [(32, 4780061), (48, 2037900)])
def test_a_seed_that_needs_many_rejections(np, size, seed):
    """Found by search: more outputs than the 2 * size + 16 made ready for each
    seed (about 1 seed in 2 million), so it is shuffled again with more."""
    assert outputs_drawn(size, seed) > 2 * size + 16
    seeds = list(range(seed - 20, seed + 20))
    assert rows_differing(DECKS[size], seeds) == []


def test_a_deck_longer_than_a_state_draws_across_twists(np):
    """700 cards draw more than 624 outputs: the generator twists again."""
    assert outputs_drawn(700, 1) > 624
    assert rows_differing(list(range(700)), range(-30, 30)) == []


@pytest.mark.parametrize("size", [0, 1, 2, 3])
def test_tiny_decks(np, size):
    assert rows_differing(list(range(size)), range(-200, 200)) == []


def test_chunks_and_their_padding(np, monkeypatch):
    monkeypatch.setattr(batch, "CHUNK", 97)
    assert rows_differing(DECKS[32], list(range(1000)) + EDGES) == []


def test_cards_of_any_kind(np):
    seeds = [5, -5, 2**70]
    for cards in (["A♥", "7♣", "K♠"] * 4, [(suit, rank) for suit in range(4) for rank in range(8)],
                  [(1, 2), (3,), "x", 7, None, True], [-3, 1000, 7, 0], [2**70, -1, 5], [0.5, 1.5, 2.5]):
        dealt = batch.shuffled_batch(cards, seeds)
        for seed, row in zip(seeds, dealt):
            expected = shuffled(cards, seed)
            assert row.tolist() == expected
            assert [type(card) for card in row.tolist()] == [type(card) for card in expected]


def test_int_cards_come_in_the_smallest_type(np):
    dealt = batch.shuffled_batch(DECKS[48], range(3))
    assert dealt.dtype == np.uint8
    assert [list(row.tobytes()) for row in dealt] == [shuffled(DECKS[48], seed) for seed in range(3)]
    assert batch.shuffled_batch([-1, 200], [0]).dtype == np.int16
    assert batch.shuffled_batch(np.arange(32, dtype=np.uint16), [0]).dtype == np.uint8


def test_seeds_as_a_numpy_array(np):
    seeds = np.arange(-50, 50, dtype=np.int64)
    assert (batch.shuffled_batch(DECKS[32], seeds) == batch.shuffled_batch(DECKS[32], range(-50, 50))).all()


def test_no_seeds(np):
    assert batch.shuffled_batch(DECKS[32], []).shape == (0, 32)


def test_a_seed_that_is_not_an_int_is_refused(np):
    """random.seed would hash a float: refused rather than truncated."""
    with pytest.raises(TypeError):
        batch.shuffled_batch(DECKS[32], [1, 2.5])


def test_the_module_imports_without_numpy():
    code = ("import sys; sys.modules['numpy'] = None\n"
            "import common.batch_shuffle as batch\n"
            "print(batch.available())")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                            capture_output=True, text=True, check=True)
    assert result.stdout == "False\n"


class ScriptedRandom(random.Random):
    """random.Random whose 32-bit outputs are given: `shuffle` draws getrandbits(k) as
    the top k bits of the next output, as CPython's does."""

    def __init__(self, outputs):
        super().__init__(0)
        self.outputs = iter(outputs)

    def getrandbits(self, k):
        return next(self.outputs) >> (32 - k)


def test_a_draw_exactly_at_its_limit_is_rejected_and_a_zero_after_the_last_changes_nothing(np):
    """Outputs no seed of a marked case draws (each about 1 seed in 10**8): a draw whose
    top bits are exactly i + 1 (rejected: j would be past i), and 0 drawn by a seed whose
    shuffle is done (the batch reads on while another seed still draws; ignored)."""
    size = 32
    limits = [(i + 1) << (32 - (i + 1).bit_length()) for i in range(size - 1, 0, -1)]
    at_the_limit = [value for limit in limits for value in (limit, limit - 1)]
    done_early = [limit - 1 for limit in limits] + [0] * (len(at_the_limit) - len(limits))
    for column, stream in enumerate((at_the_limit, done_early)):
        expected = list(range(size))
        ScriptedRandom(stream).shuffle(expected)
        outputs = np.array([at_the_limit, done_early], dtype=np.uint32).T
        permutations, unfinished = batch._fisher_yates(np, outputs, size, np.uint8)
        assert permutations[column].tolist() == expected and unfinished.size == 0
