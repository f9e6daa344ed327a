"""The fast simulation and the exact distribution of solitaire_1 against the
plain rules: every place of the Aces, every shuffle of a small deck, and a
large simulation within sampling error."""

import math
from collections import Counter
from fractions import Fraction
from itertools import combinations, permutations

import solitaire_1 as game
from solitaire_1 import ACES, cards_left_if_won, play, shuffled_decks, win_probabilities

OTHERS = [card for card in game.DECK if not game.is_ace(card)]


def plain_outcome(deck):
    result = play(tuple(deck))
    return len(result.kept) if result.won else None


def deck_with_aces_at(places, size=len(game.DECK)):
    others = iter(OTHERS)
    aces = dict(zip(places, ACES))
    return [aces[place] if place in aces else next(others) for place in range(size)]


def test_the_marks_play_every_place_of_the_aces_as_the_rules_do():
    for places in combinations(range(32), 4):
        deck = deck_with_aces_at(places)
        assert cards_left_if_won(deck) == plain_outcome(deck), places


def test_counting_aces_places_is_every_shuffle_of_a_small_deck():
    """On 8 cards (four Aces, four others), all 8! orders against the 70 places of the Aces."""
    small = ACES + tuple(OTHERS[:4])
    by_shuffle = Counter(plain_outcome(order) for order in permutations(small))
    del by_shuffle[None]
    by_places = game.wins_over_every_aces_places(deck_size=len(small))
    orders, places = math.factorial(len(small)), math.comb(len(small), len(ACES))
    assert by_shuffle and {left: Fraction(count, orders) for left, count in by_shuffle.items()} == \
        {left: Fraction(count, places) for left, count in by_places.items()}


def test_the_exact_probabilities():
    assert win_probabilities() == {4: Fraction(6750, 35960), 5: Fraction(2198, 35960),
                                   6: Fraction(399, 35960)}


def test_a_large_simulation_agrees_within_sampling_error(capsys):
    games = 60000
    game.simulate(games, 424242)
    rows = capsys.readouterr().out.splitlines()[2:]
    seen = {int(row.split("|")[0]): float(row.split("|")[1].strip(" %")) / 100 for row in rows}
    for left, probability in win_probabilities().items():
        error = math.sqrt(probability * (1 - probability) / games)
        assert abs(seen[left] - probability) < 5 * error, (left, seen[left], float(probability))


def test_simulate_deals_as_the_game_does():
    for seed in (-7, 0, 99, 2**70):
        assert next(shuffled_decks(game.DECK, seed, 1)) == bytes(game.new_deck(seed))


def test_the_exact_table_is_printed_as_simulate_prints_and_with_its_fractions(capsys):
    game.exact_distribution()
    lines = capsys.readouterr().out.splitlines()
    assert lines[:5] == game.frequency_table(game.TABLE_LABEL, {4: 6750, 5: 2198, 6: 399}, 35960)
    assert lines[6:] == ["Exactly, over the 35960 equally likely places of the four aces:",
                         " 4 cards left: 675/3596", " 5 cards left: 1099/17980",
                         " 6 cards left: 399/35960", "          won: 9347/35960"]
