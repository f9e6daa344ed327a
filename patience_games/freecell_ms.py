"""Microsoft FreeCell's numbered deals, so that deals players know can be replayed.

The generator (docs/patience.md, FreeCell): state = N; each draw sets
state = (state * 214013 + 2531011) mod 2^31 and returns state >> 16. The deck
starts AC AD AH AS 2C ... KS; while cards remain, draw r, swap card
r mod (cards remaining) with the last card and deal the last card.
"""

from common.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from patience_games.cards import RANKS, Card

MS_SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
COLUMNS = 8


def draws(number: int):
    state = number
    while True:
        state = (state * 214013 + 2531011) % 2 ** 31
        yield state >> 16


def dealt_cards(number: int) -> list:
    """The 52 cards in the order deal `number` deals them."""
    deck = [Card(MS_SUITS[i % 4], i // 4 + 1) for i in range(4 * RANKS)]
    dealt = []
    for draw in draws(number):
        if not deck:
            return dealt
        j = draw % len(deck)
        deck[j], deck[-1] = deck[-1], deck[j]
        dealt.append(deck.pop())
    return dealt


def ms_deck(number: int) -> list:
    """Deal `number` as a deck whose last element is its top, for `engine.deal`."""
    return dealt_cards(number)[::-1]


def layout(number: int) -> str:
    """The deal in the two-letter notation: rows of 8 cards, top row first."""
    cards = [card.two_letters for card in dealt_cards(number)]
    return "".join(" ".join(cards[row:row + COLUMNS]) + "\n"
                   for row in range(0, len(cards), COLUMNS))
