"""The rules engine. A game is mostly data: each pile has a kind that says what
it takes (`Build`s, and what it takes when empty), what may leave it (`Leave`)
and how it is shown; the game lists its piles with how the deal fills them.
A `Position` is the cards on the piles; `refusal` says why a move is illegal,
`play` makes a legal one. Nothing here prints.
"""

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Callable, Optional

from patience_games.cards import RANKS, Card, numbered


# --- What a pile takes -------------------------------------------------------

class Suits(Enum):
    """How the suit of an added card compares with the suit of the card it goes on."""
    ANY = "any"
    SAME = "same"
    OTHER = "other"
    OTHER_COLOUR = "other colour"


@dataclass(frozen=True)
class Build:
    """One way a card goes on a top card: its rank minus the top card's rank is one
    of `steps` (counted round the 13 ranks when King and Ace `wrap`), and the suits
    compare as `suits` says."""

    steps: frozenset
    suits: Suits = Suits.ANY
    wrap: bool = False

    def allows(self, top: Card, card: Card) -> bool:
        step = card.rank - top.rank
        steps = self.steps
        if self.wrap:
            step, steps = step % RANKS, {each % RANKS for each in steps}
        return step in steps and self._suits_match(top, card)

    def _suits_match(self, top: Card, card: Card) -> bool:
        if self.suits is Suits.SAME:
            return card.suit == top.suit
        if self.suits is Suits.OTHER:
            return card.suit != top.suit
        if self.suits is Suits.OTHER_COLOUR:
            return card.red != top.red
        return True


def build(*steps: int, suits: Suits = Suits.ANY, wrap: bool = False) -> Build:
    return Build(frozenset(steps), suits, wrap)


def builds_on(builds: tuple, top: Card, card: Card) -> bool:
    return any(way.allows(top, card) for way in builds)


@dataclass(frozen=True)
class Empty:
    """What an empty pile takes: nothing, or a first card of `ranks` (any rank when
    None); the cards moved with it must follow `then` (the pile's own builds when None)."""

    takes: bool = True
    ranks: Optional[frozenset] = None
    then: Optional[tuple] = None


TAKES_NOTHING = Empty(takes=False)
TAKES_ANY_CARD = Empty()


# --- What may leave a pile ---------------------------------------------------

class Leave(Enum):
    NEVER = "never"
    TOP_CARD = "top card"
    TOP_CARD_NOT_LAST = "top card, never the last card"
    RUN = "a run"  # the top card, or several cards that follow the kind's `runs`


class Show(Enum):
    """How the board draws a pile."""
    SPREAD = "every card, face-down ones as ]"
    SQUARED = "the top card over a [ per covered card"
    FACE_DOWN = "a ] per card"


@dataclass(frozen=True)
class PileKind:
    """A kind of pile and its rules, as data. The texts name the rules in refusals."""

    name: str
    takes: str  # how a card is added, in words
    takes_when_empty: str = ""  # what the empty pile takes, in words (`takes` when blank)
    builds: tuple = ()
    empty: Empty = TAKES_NOTHING
    leaves: Leave = Leave.TOP_CARD
    leaving: str = ""  # what may leave, in words
    runs: tuple = ()  # builds that several cards leaving together must follow
    runs_of_one_kind: bool = False  # True: all of a run follows the same one of `runs`
    always_takes_from: tuple = ()  # kinds whose top card it takes whatever its own top card
    show: Show = Show.SPREAD


@dataclass(frozen=True)
class PileSpec:
    """One pile of a game's layout: its kind, the label a player types, and its deal:
    `dealt` cards of which the top `face_up` are face up (all when None), or, for
    `rest`, the cards left after the deal; `base` cards are set up before the deal."""

    kind: PileKind
    label: str
    dealt: int = 0
    face_up: Optional[int] = None
    rest: bool = False
    base: tuple = ()

    @property
    def title(self) -> str:
        return f"{self.kind.name} {self.label}"


# --- Positions -----------------------------------------------------------------

@dataclass(frozen=True)
class Pile:
    cards: tuple = ()
    face_down: int = 0  # how many bottom cards are face down

    @property
    def top(self) -> Optional[Card]:
        return self.cards[-1] if self.cards else None

    @property
    def face_up(self) -> tuple:
        return self.cards[self.face_down:]


@dataclass(frozen=True)
class Position:
    piles: tuple
    score: Optional[int] = None
    runs_removed: int = 0

    def with_pile(self, index: int, pile: Pile) -> "Position":
        return replace(self, piles=self.piles[:index] + (pile,) + self.piles[index + 1:])


@dataclass(frozen=True)
class Move:
    """Move the top `count` cards of pile `source` onto pile `destination` (indexes)."""
    source: int
    destination: int
    count: int = 1


class Reason(Enum):
    SAME_PILE = "same pile"
    EMPTY_SOURCE = "source is empty"
    NEVER_LEAVES = "cards never leave"
    ONE_CARD_AT_A_TIME = "only the top card leaves"
    KEEPS_LAST_CARD = "the last card stays"
    TOO_FEW_CARDS = "fewer face-up cards than asked"
    NOT_A_RUN = "the cards do not move together"
    CANNOT_ADD = "the destination does not take them"
    EMPTY_PILE_REFUSES = "the empty destination does not take them"
    OVER_LIMIT = "more cards than may move at once"
    NO_STOCK = "no stock"
    STOCK_EMPTY = "the stock is empty"
    EMPTY_PILE_BLOCKS_DEAL = "a pile is empty"


@dataclass(frozen=True)
class Refusal:
    """Why a move or a deal is illegal; `facts` are numbers its message shows."""
    reason: Reason
    move: Optional[Move] = None
    facts: tuple = ()


@dataclass(frozen=True)
class Game:
    """A game: its piles, how its deck is made, when it is won, and the hooks for
    the rules that are not pile data (all optional)."""

    name: str
    piles: tuple  # of PileSpec, in board order; the deal fills them in this order
    won: Callable  # (Game, Position) -> bool
    deck: int = 52  # cards numbered 0 .. deck-1 are shuffled
    card: Callable = numbered  # number -> Card
    aliases: dict = field(default_factory=dict)  # label -> labels it stands for, tried in turn
    settle: Callable = None  # Position -> Position, after every move and deal
    move_limit: Callable = None  # (Game, Position, Move) -> Refusal or None
    draw: Callable = None  # (Game, Position) -> Position or Refusal: the stock command
    start_score: Optional[int] = None
    move_score: int = 0
    rules: str = ""  # the help's words on the rules, and on what docs/patience.md leaves silent
    draw_help: str = ""  # the help's line on the stock command, when the game has one

    def index(self, label: str) -> int:
        return [spec.label for spec in self.piles].index(label)

    def indexes(self, kind: PileKind) -> list:
        return [i for i, spec in enumerate(self.piles) if spec.kind == kind]


# --- The deal ------------------------------------------------------------------

def deal(game: Game, cards: list) -> Position:
    """Set up the base cards, then deal from the top of `cards` (its last element)
    row by row, left to right; the first card a pile receives is its bottom card.
    A `rest` pile (the stock) takes what is left, in the same order."""
    bases = [card for spec in game.piles for card in spec.base]
    remaining = [card for card in cards if card not in bases]
    contents = [list(spec.base) for spec in game.piles]
    for row in range(max(spec.dealt for spec in game.piles)):
        for index, spec in enumerate(game.piles):
            if spec.dealt > row:
                contents[index].append(remaining.pop())
    for index, spec in enumerate(game.piles):
        if spec.rest:
            contents[index], remaining = remaining, []
    piles = tuple(Pile(tuple(cards), 0 if spec.face_up is None else len(cards) - spec.face_up)
                  for spec, cards in zip(game.piles, contents))
    return Position(piles, game.start_score)


# --- Rules of a move -------------------------------------------------------------

def is_run(kind: PileKind, cards: tuple) -> bool:
    """Do these cards (bottom first) follow the kind's runs, and so leave together?"""
    pairs = list(zip(cards, cards[1:]))
    if kind.runs_of_one_kind:
        return any(all(way.allows(below, above) for below, above in pairs) for way in kind.runs)
    return all(builds_on(kind.runs, below, above) for below, above in pairs)


def takes(kind: PileKind, pile: Pile, cards: tuple, source: PileKind) -> bool:
    """Does a pile of this kind take these cards (bottom first) from a pile of kind `source`?"""
    if source in kind.always_takes_from:
        return True
    if pile.cards:
        if not builds_on(kind.builds, pile.top, cards[0]):
            return False
        then = kind.builds
    else:
        empty = kind.empty
        if not empty.takes or (empty.ranks is not None and cards[0].rank not in empty.ranks):
            return False
        then = kind.builds if empty.then is None else empty.then
    return all(builds_on(then, below, above) for below, above in zip(cards, cards[1:]))


def refusal(game: Game, position: Position, move: Move) -> Optional[Refusal]:
    """Why `move` is illegal in `position`, or None when it is legal."""
    source, destination = game.piles[move.source].kind, game.piles[move.destination].kind
    pile = position.piles[move.source]
    count = move.count
    if move.source == move.destination:
        return Refusal(Reason.SAME_PILE, move)
    if not pile.cards:
        return Refusal(Reason.EMPTY_SOURCE, move)
    if source.leaves is Leave.NEVER:
        return Refusal(Reason.NEVER_LEAVES, move)
    if count > 1 and source.leaves is not Leave.RUN:
        return Refusal(Reason.ONE_CARD_AT_A_TIME, move)
    if source.leaves is Leave.TOP_CARD_NOT_LAST and len(pile.cards) == 1:
        return Refusal(Reason.KEEPS_LAST_CARD, move)
    if count > len(pile.face_up):
        return Refusal(Reason.TOO_FEW_CARDS, move, (len(pile.face_up),))
    cards = pile.cards[-count:]
    if not is_run(source, cards):
        return Refusal(Reason.NOT_A_RUN, move)
    target = position.piles[move.destination]
    if not takes(destination, target, cards, source):
        return Refusal(Reason.CANNOT_ADD if target.cards else Reason.EMPTY_PILE_REFUSES, move)
    return game.move_limit(game, position, move) if game.move_limit else None


def play(game: Game, position: Position, move: Move) -> Position:
    """The position after the legal `move`. (Built directly, not with `replace`: the
    solver plays millions of moves; the piles the move leaves alone stay the same
    objects.)"""
    piles = list(position.piles)
    source, destination, count = piles[move.source], piles[move.destination], move.count
    piles[move.source] = Pile(source.cards[:-count], source.face_down)
    piles[move.destination] = Pile(destination.cards + source.cards[-count:], destination.face_down)
    return after_move(game, Position(tuple(piles), position.score, position.runs_removed))


def after_move(game: Game, position: Position) -> Position:
    """Score the move, apply the game's settling rule, and turn up face-down top cards."""
    if position.score is not None:
        position = replace(position, score=position.score + game.move_score)
    if game.settle:
        position = game.settle(position)
    return turn_up_top_cards(position)


def turn_up_top_cards(position: Position) -> Position:
    """A face-down card that becomes a top card is turned up (the other piles are kept:
    the searches reuse what they know of a pile that is the same object)."""
    piles = tuple(replace(pile, face_down=len(pile.cards) - 1)
                  if pile.cards and pile.face_down >= len(pile.cards) else pile
                  for pile in position.piles)
    return replace(position, piles=piles)


def movable_count(game: Game, position: Position, source: int) -> int:
    """How many top cards of the pile could leave it together, by its own rules."""
    kind, pile = game.piles[source].kind, position.piles[source]
    if kind.leaves is not Leave.RUN:
        return 1
    up = pile.face_up
    count = 1
    while count < len(up) and is_run(kind, up[-count - 1:]):
        count += 1
    return count


def best_move(game: Game, position: Position, source: int, destination: int):
    """The move of the most cards from `source` to `destination` that is legal, or
    the refusal of moving all the cards that could leave together."""
    longest = movable_count(game, position, source)
    for count in range(longest, 0, -1):
        move = Move(source, destination, count)
        if refusal(game, position, move) is None:
            return move
    return refusal(game, position, Move(source, destination, longest))


def draw(game: Game, position: Position):
    """The stock command: the position after it, or its refusal."""
    if game.draw is None:
        return Refusal(Reason.NO_STOCK)
    return game.draw(game, position)


def all_on(total: int, *kinds: PileKind) -> Callable:
    """A win rule: all `total` cards are on the piles of these kinds."""
    chosen = [None, ()]  # the last game's piles, and which of them are of these kinds

    def won(game: Game, position: Position) -> bool:
        if chosen[0] is not game.piles:  # the kinds compare by value: asked once a layout
            chosen[:] = game.piles, [i for i, spec in enumerate(game.piles) if spec.kind in kinds]
        piles = position.piles
        return sum(len(piles[i].cards) for i in chosen[1]) == total
    return won
