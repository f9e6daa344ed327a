"""Cards, boards and waste piles as the text the console prints
(docs/hoyle_cli.md §1, §4.3, §4.4, §4.9).

Everything here returns strings; nothing prints.
"""

from typing import Optional, Sequence

from hoyle import messages
from hoyle.model import PILES, Game, rank, suit

RANK_TEXTS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_GLYPHS = ("\u2666", "\u2663", "\u2665", "\u2660")  # ♦ ♣ ♥ ♠, in suit order
COMPLETE = " "  # the next-rank text of a foundation that holds all thirteen ranks
EMPTY_WASTE_TEXT = " " * 2  # an empty waste pile is as wide as a card with a one-character rank

# --- ASCII art (§4.4) -----------------------------------------------------------
ACROSS = "\u2500" * 9  # ─
TOP = "\u250c" + ACROSS + "\u2510"  # ┌─────────┐
BOTTOM = "\u2514" + ACROSS + "\u2518"  # └─────────┘
SIDE = "\u2502"  # │
BLANK_ROW = SIDE + " " * 9 + SIDE
CARD_BACK = (TOP, *[SIDE + "\u2591" * 9 + SIDE] * 5, BOTTOM)  # ░, no trailing spaces
GAP = " "  # after every face row
MARGIN = " " * 2  # before each face row in a block; the bottom row has the pile number instead
ROWS = 7
RANK_ROW = 1  # the row that gets one more trailing space, in a block and in a single card


def rank_text(card: int) -> str:
    return RANK_TEXTS[rank(card) - 1]


def card_text(card: int) -> str:
    return rank_text(card) + SUIT_GLYPHS[suit(card)]


def next_rank_text(game: Game, foundation: int) -> str:
    next_rank = game.next_rank(foundation)
    return COMPLETE if next_rank is None else RANK_TEXTS[next_rank - 1]


def text_board(game: Game) -> str:
    foundations = "".join(messages.FOUNDATION_ENTRY.format(number=index + 1, card=card_text(cards[-1]))
                          for index, cards in enumerate(game.foundations))
    waste_piles = "".join(messages.WASTE_ENTRY.format(number=index + 1,
                                                      card=card_text(cards[-1]) if cards else EMPTY_WASTE_TEXT)
                          for index, cards in enumerate(game.waste_piles))
    return foundations + "\n" + waste_piles + "\n" + _stock_line(game)


def _remaining(game: Game) -> str:
    return messages.REMAINING.format(remaining=game.remaining)


def _stock_line(game: Game) -> str:
    """`Drawn Card: ...` while a card is held, else the remaining count."""
    return _remaining(game) if game.held is None else messages.DRAWN_CARD.format(card=card_text(game.held))


def face(card: Optional[int]) -> tuple:
    """The seven rows of a card's picture, each with its trailing space (a blank face for None)."""
    if card is None:
        middle = [BLANK_ROW] * 5
    else:
        corner = rank_text(card)
        middle = [SIDE + " " + corner.ljust(8) + SIDE, BLANK_ROW,
                  SIDE + " " * 4 + SUIT_GLYPHS[suit(card)] + " " * 4 + SIDE, BLANK_ROW,
                  SIDE + corner.rjust(8) + " " + SIDE]
    return tuple(row + GAP for row in (TOP, *middle, BOTTOM))


def _lines(rows: Sequence) -> str:
    """Rows as lines, the rank row with one more trailing space, as the C++ program printed it."""
    return "".join(row + (" " if index == RANK_ROW else "") + "\n" for index, row in enumerate(rows))


def single_card(card: int) -> str:
    return _lines(face(card))


def block(top_cards: Sequence) -> str:
    """Piles side by side, numbered 1..4 under their bottom-left corner; None is an empty pile."""
    faces = [face(card) for card in top_cards]
    rows = []
    for row in range(ROWS):
        margins = [f"{number} " if row == ROWS - 1 else MARGIN for number in range(1, PILES + 1)]
        rows.append("".join(margin + pile[row] for margin, pile in zip(margins, faces)))
    return _lines(rows)


def ascii_board(game: Game) -> str:
    foundations = block([cards[-1] for cards in game.foundations])
    waste_piles = block([cards[-1] if cards else None for cards in game.waste_piles])
    parts = [messages.FOUNDATION_PILES, foundations, "\n", messages.WASTE_PILES, waste_piles, "\n"]
    if game.held is None:
        parts += [_remaining(game), "".join(row + "\n" for row in CARD_BACK)]
    else:
        parts += [messages.DRAWN_CARD.format(card=""), single_card(game.held), "\n"]
    return "".join(parts)


def board(game: Game, ascii_cards: bool) -> str:
    return ascii_board(game) if ascii_cards else text_board(game)


def waste_pile(cards: Sequence, ascii_cards: bool) -> str:
    """A whole waste pile, from its top card down."""
    return "".join(single_card(card) if ascii_cards else card_text(card) + "\n" for card in reversed(cards))
