"""The 48-card "Sevens" game: a seeded deal played in up to three rounds, its
lines collected and read through the line viewer, and `simulate(n, i)` for
probability tables.

Specification: docs/solitaire_2.md. The rules below return data (the moves of each
round, the cards left); the narration turns the moves into lines; only `main`
reads and prints.
"""

from collections import Counter
from dataclasses import dataclass

from common import console, viewer
from common.cards import CLUBS, DIAMONDS, HEARTS, SPADES, card_character
from common.deal import shuffled, shuffled_decks
from common.piles import face_down, face_up_cards
from common.tables import frequency_table

# --- Cards -----------------------------------------------------------------

SEVEN, KING = 7, 13
SUIT_SIZE = 13
SEVENS = (6, 19, 32, 45)
DECK = tuple(card for card in range(4 * SUIT_SIZE) if card not in SEVENS)
COLUMNS = (DIAMONDS, CLUBS, SPADES, HEARTS)  # the table, left to right


def suit(card: int) -> int:
    return card // SUIT_SIZE


def rank(card: int) -> int:
    return card % SUIT_SIZE + 1


def character(card: int) -> str:
    return card_character(suit(card), rank(card))


# --- Rules -----------------------------------------------------------------

ROUNDS = 3


def unlocked_by(card: int) -> tuple:
    """The cards that become placeable once `card` is placed: the next rank
    away from the Seven in its suit, none after an Ace or a King."""
    if rank(card) > SEVEN:
        return (card + 1,) if rank(card) < KING else ()
    if rank(card) < SEVEN:
        return (card - 1,) if rank(card) > 1 else ()
    return (card - 1, card + 1)


PLACEABLE_AT_START = frozenset(card for seven in SEVENS for card in unlocked_by(seven))
NOTHING = 4 * SUIT_SIZE  # the flag that no card reads: what an Ace or a King unlocks


def unlocked_in_play(card: int) -> int:
    """The one card that placing a drawn card unlocks (Sevens are never drawn)."""
    unlocked = unlocked_by(card)
    return unlocked[0] if len(unlocked) == 1 else NOTHING


# Flags indexed by card, so that the game loop costs a few C-level steps a move.
UNLOCKS = bytes(unlocked_in_play(card) for card in range(4 * SUIT_SIZE))
PLACEABLE_FLAGS = bytes(card in PLACEABLE_AT_START for card in range(NOTHING + 1))

# The moves of a round, each recorded as (move, card).
PLACED_FROM_STACK = "placed from the stack"
PUT_ASIDE = "put aside"
PLACED_FROM_PUT_ASIDE = "placed from the put-aside pile"
STUCK_ON_PUT_ASIDE = "top of the put-aside pile cannot be placed"


@dataclass(frozen=True)
class Game:
    deck: tuple  # as shuffled, its last card on top
    rounds: tuple  # per round played, its moves in order
    left: tuple  # the put-aside pile at the end, bottom first: the cards not placed

    @property
    def won(self) -> bool:
        return not self.left


def play_rounds(deck, log: list = None) -> list:
    """Up to three rounds; returns the put-aside pile left (empty when won).
    The stack is drawn from its top (its last card); the card put aside last is
    on top of the put-aside pile. With a `log`, each round appends to it the
    list of its moves; without, nothing is recorded, for speed."""
    placeable = bytearray(PLACEABLE_FLAGS)
    stack = deck
    for _ in range(ROUNDS):
        put_aside, moves = [], []
        if log is not None:
            log.append(moves)
        for card in reversed(stack):
            if not placeable[card]:
                put_aside.append(card)
                if log is not None:
                    moves.append((PUT_ASIDE, card))
                continue
            placeable[UNLOCKS[card]] = True
            if log is not None:
                moves.append((PLACED_FROM_STACK, card))
            while put_aside:
                top = put_aside[-1]
                if not placeable[top]:
                    if log is not None:
                        moves.append((STUCK_ON_PUT_ASIDE, top))
                    break
                placeable[UNLOCKS[put_aside.pop()]] = True
                if log is not None:
                    moves.append((PLACED_FROM_PUT_ASIDE, top))
        if not put_aside:
            break
        stack = put_aside[::-1]  # turned over: the card put aside first is drawn first
    return put_aside


def play(deck) -> Game:
    rounds = []
    left = play_rounds(deck, rounds)
    return Game(tuple(deck), tuple(map(tuple, rounds)), tuple(left))


def new_deck(seed: int) -> list:
    return shuffled(DECK, seed)


# --- Messages --------------------------------------------------------------

SMILE = "\U0001F60A\uFE0F"
FROWN = "\u2639\uFE0F"
THUMBS_UP = "\U0001F44D"
THUMBS_DOWN = "\U0001F44E"

READY = "All 7s removed and placed, rest of deck shuffled, ready to start!"
STARTING_ROUND = "Starting {ordinal} round..."
ROUND_ORDINALS = ("first", "second", "third")
HEADINGS = {
    PLACED_FROM_STACK: f"Placing card from top of stack of cards left {SMILE}",
    PUT_ASIDE: f"Cannot place card from top of stack of cards left {FROWN}",
    PLACED_FROM_PUT_ASIDE: f"Placing card from top of stack of cards put aside {SMILE}",
    STUCK_ON_PUT_ASIDE: f"Cannot place card from top of stack of cards put aside {FROWN}",
}
WON = f"You placed all cards, you won {THUMBS_UP}"
LOST = "You could not place {count} cards, you lost " + THUMBS_DOWN
LINES_OF_OUTPUT = "There are {count} lines of output; what do you want me to do?"
TABLE_LABEL = "Number of cards left"


# --- Narration -------------------------------------------------------------

class Board:
    """What the lines draw, replayed move by move: the size of the stack, the
    put-aside pile and the table (one row of cells per rank, King first)."""

    def __init__(self, stack_size: int):
        self.stack_size = stack_size
        self.put_aside = []
        self.rows = [[""] * len(COLUMNS) for _ in range(KING)]
        for seven in SEVENS:
            self.place(seven)

    def place(self, card: int) -> None:
        self.rows[KING - rank(card)][COLUMNS.index(suit(card))] = character(card)

    def move(self, move: str, card: int) -> None:
        """The board after the move (a card stuck on the put-aside pile changes nothing)."""
        if move == PUT_ASIDE:
            self.stack_size -= 1
            self.put_aside.append(card)
        elif move == PLACED_FROM_STACK:
            self.stack_size -= 1
            self.place(card)
        elif move == PLACED_FROM_PUT_ASIDE:
            self.put_aside.pop()
            self.place(card)

    def turn_over(self) -> None:
        self.stack_size, self.put_aside = len(self.put_aside), []

    def stack_line(self) -> str:
        return face_down(self.stack_size)

    def put_aside_line(self) -> str:
        return face_up_cards(self.put_aside, character)

    def table_lines(self) -> list:
        return [("\t" + "\t".join(row)).rstrip("\t") for row in self.rows]


def block(board: Board, move: str) -> list:
    """The lines of one move, drawn after it: a placement shows the table too."""
    if move == STUCK_ON_PUT_ASIDE:
        return [HEADINGS[move], ""]
    lines = [HEADINGS[move], board.stack_line(), board.put_aside_line()]
    if move != PUT_ASIDE:
        lines += board.table_lines()
    return lines + [""]


def collected_lines(game: Game) -> list:
    """Every line the user can read in the viewer."""
    board = Board(len(game.deck))
    lines = [READY, board.stack_line(), board.put_aside_line(), *board.table_lines(), ""]
    for number, moves in enumerate(game.rounds):
        if number:
            board.turn_over()
            lines.append("")
        lines += [STARTING_ROUND.format(ordinal=ROUND_ORDINALS[number]), ""]
        for move, card in moves:
            board.move(move, card)
            lines += block(board, move)
    lines.append(WON if game.won else LOST.format(count=len(game.left)))
    return lines


# --- Simulation ------------------------------------------------------------

def simulate(n: int, i: int) -> None:
    """Play the n games seeded i, i+1, ..., i+n-1 silently and print how often
    each number of cards is left (0 when the game is won)."""
    left = Counter(len(play_rounds(deck)) for deck in shuffled_decks(DECK, i, n))
    print("\n".join(frequency_table(TABLE_LABEL, left, n, descending=True)))


# --- Console ---------------------------------------------------------------

def main() -> None:
    lines = collected_lines(play(new_deck(console.read_seed())))
    print()
    print(LINES_OF_OUTPUT.format(count=len(lines)))
    print()
    viewer.view(lines)


if __name__ == "__main__":
    console.run(main)
