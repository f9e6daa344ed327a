"""A card as the rules see it: a suit and a rank; its character and name for people."""

from dataclasses import dataclass

from common.cards import CLUBS, DIAMONDS, HEARTS, SPADES, card_character

ACE, KING = 1, 13
RANKS = 13
RED_SUITS = (HEARTS, DIAMONDS)
RANK_LETTERS = "A23456789TJQK"
SUIT_LETTERS = {CLUBS: "C", DIAMONDS: "D", HEARTS: "H", SPADES: "S"}


@dataclass(frozen=True)
class Card:
    suit: int  # common.cards: HEARTS, DIAMONDS, CLUBS, SPADES
    rank: int  # ACE = 1 ... KING = 13

    @property
    def red(self) -> bool:
        return self.suit in RED_SUITS

    @property
    def character(self) -> str:
        return card_character(self.suit, self.rank)

    @property
    def two_letters(self) -> str:
        """The name card players write: `AC`, `TD`, `KS`."""
        return RANK_LETTERS[self.rank - 1] + SUIT_LETTERS[self.suit]


def numbered(number: int) -> Card:
    """Card `number` of the specs' numbering: 0-12 Hearts, 13-25 Diamonds, 26-38 Clubs,
    39-51 Spades, each from Ace to King."""
    return Card(number // RANKS, number % RANKS + 1)


def characters(cards) -> str:
    return "".join(card.character for card in cards)


def named(two_letters: str) -> Card:
    """The card of a two-letter name (`AC`, `TD`, `KS`): the inverse of `two_letters`."""
    rank, suit = two_letters.upper()
    suits = {letter: suit for suit, letter in SUIT_LETTERS.items()}
    return Card(suits[suit], RANK_LETTERS.index(rank) + 1)
