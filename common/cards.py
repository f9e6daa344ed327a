"""Unicode playing-card characters, shared by every program that draws cards.

The Playing Cards block (U+1F0A0..U+1F0FF) has one row per suit; within a row
the offset is the rank (Ace = 1 ... Jack = 11), except that the Knight sits at
0xC, so Queen and King are one further on.
"""

HEARTS, DIAMONDS, CLUBS, SPADES = 0, 1, 2, 3

SUIT_BASE = {HEARTS: 0x1F0B0, DIAMONDS: 0x1F0C0, CLUBS: 0x1F0D0, SPADES: 0x1F0A0}

KNIGHT_OFFSET = 0xC


def card_character(suit: int, rank: int) -> str:
    """The character of the card of `suit` and `rank` (1 = Ace ... 13 = King)."""
    return chr(SUIT_BASE[suit] + (rank if rank < KNIGHT_OFFSET else rank + 1))
