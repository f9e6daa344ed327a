"""The cards, the rules and the score of Calculation, as data (docs/hoyle_cli.md §1-§2).

A `Game` is immutable: every move returns a new one, so a move that the rules
refuse can be asked about (`accepts`, `check_draw`) before it is made, and a
refused move never half-changes a game.
"""

from dataclasses import dataclass, replace
from enum import Enum
from typing import Optional

SUITS = 4
RANKS = 13
DECK = frozenset(range(SUITS * RANKS))
PILES = 4  # foundations, and waste piles
STEPS = (1, 2, 3, 4)  # foundation k starts with rank k and is built by adding k


def rank(card: int) -> int:
    """1 (Ace) ... 13 (King)."""
    return card % RANKS + 1


def suit(card: int) -> int:
    """0 diamonds, 1 clubs, 2 hearts, 3 spades."""
    return card // RANKS


def is_card(number: int) -> bool:
    return 0 <= number < len(DECK)


def rank_after(previous: int, step: int) -> int:
    """The rank that follows `previous` on a foundation built by `step`, wrapping after the King."""
    return (previous + step - 1) % RANKS + 1


def foundation_ranks(step: int) -> tuple:
    """The thirteen ranks of the foundation built by `step`, bottom to top."""
    ranks = [step]
    while len(ranks) < RANKS:
        ranks.append(rank_after(ranks[-1], step))
    return tuple(ranks)


class DrawCheck(Enum):
    """Why a number cannot be drawn, in the order the console checks it (§4.6)."""

    NOT_A_CARD = "not a card"
    ALREADY_DRAWN = "already drawn"


class FirstAction(Enum):
    """What item 1 of the action menu does (§4.5)."""

    PLAY = "play the held card"
    DRAW = "draw"
    FINISH = "finish the game"


class IllegalMove(ValueError):
    """A move the rules refuse; the console asks before it moves, so this is a bug if raised."""


@dataclass(frozen=True)
class Game:
    stock: frozenset = DECK
    foundations: tuple = ((),) * PILES  # bottom to top
    waste_piles: tuple = ((),) * PILES  # bottom to top
    held: Optional[int] = None

    # --- What the board shows ---------------------------------------------

    @property
    def remaining(self) -> int:
        return len(self.stock)

    @property
    def waste_cards(self) -> int:
        return sum(len(pile) for pile in self.waste_piles)

    @property
    def score(self) -> int:
        """Cards on the waste piles and in the stock; a held card is on neither, so it is not counted."""
        return self.waste_cards + self.remaining

    @property
    def has_waste_cards(self) -> bool:
        return self.waste_cards > 0

    @property
    def first_action(self) -> FirstAction:
        if self.held is not None:
            return FirstAction.PLAY
        return FirstAction.DRAW if self.remaining else FirstAction.FINISH

    def next_rank(self, foundation: int) -> Optional[int]:
        """The rank foundation `foundation` (0..3) takes next; None once it holds all thirteen."""
        built = self.foundations[foundation]
        ranks = foundation_ranks(STEPS[foundation])
        return ranks[len(built)] if len(built) < RANKS else None

    def accepts(self, foundation: int, card: int) -> bool:
        return rank(card) == self.next_rank(foundation)

    def check_draw(self, number: int) -> Optional[DrawCheck]:
        """None when `number` can be drawn."""
        if not is_card(number):
            return DrawCheck.NOT_A_CARD
        if number not in self.stock:
            return DrawCheck.ALREADY_DRAWN
        return None

    # --- Moves --------------------------------------------------------------

    def start(self, foundation: int, card: int) -> "Game":
        """Put a starting card, of the foundation's first rank, on the empty foundation."""
        if self.foundations[foundation] or card not in self.stock or not self.accepts(foundation, card):
            raise IllegalMove(f"{card} cannot start foundation {foundation}")
        return replace(self, stock=self.stock - {card},
                             foundations=_push(self.foundations, foundation, card))

    def draw(self, card: int) -> "Game":
        if self.held is not None or self.check_draw(card) is not None:
            raise IllegalMove(f"{card} cannot be drawn")
        return replace(self, stock=self.stock - {card}, held=card)

    def play_on_foundation(self, foundation: int) -> "Game":
        """The held card onto a foundation that takes its rank."""
        if self.held is None or not self.accepts(foundation, self.held):
            raise IllegalMove(f"the held card cannot go on foundation {foundation}")
        return replace(self, foundations=_push(self.foundations, foundation, self.held), held=None)

    def play_on_waste_pile(self, pile: int) -> "Game":
        """The held card onto any waste pile."""
        if self.held is None:
            raise IllegalMove("no card is held")
        return replace(self, waste_piles=_push(self.waste_piles, pile, self.held), held=None)

    def can_move(self, pile: int, foundation: int) -> bool:
        """Whether waste pile `pile` has a top card that foundation `foundation` takes."""
        cards = self.waste_piles[pile]
        return bool(cards) and self.accepts(foundation, cards[-1])

    def move(self, pile: int, foundation: int) -> "Game":
        """The top card of a waste pile onto a foundation; a held card stays held."""
        if not self.can_move(pile, foundation):
            raise IllegalMove(f"waste pile {pile} has no card for foundation {foundation}")
        card = self.waste_piles[pile][-1]
        waste_piles = tuple(cards[:-1] if index == pile else cards
                            for index, cards in enumerate(self.waste_piles))
        return replace(self, waste_piles=waste_piles,
                             foundations=_push(self.foundations, foundation, card))


def _push(piles: tuple, index: int, card: int) -> tuple:
    return tuple(cards + (card,) if position == index else cards
                 for position, cards in enumerate(piles))
