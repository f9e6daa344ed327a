"""The 32-card "Aces" game: a seeded deal played out in three stages, narrated
board by board, and `simulate(n, i)` for probability tables.

Specification: docs/solitaire_1.md. The rules below return data (stacks, piles,
turned-over stacks); the narration turns that data into lines; only `main`
reads and prints.
"""

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb

from common import console
from common.cards import card_character
from common.deal import shuffled, shuffled_decks
from common.piles import face_down, face_up, face_up_cards
from common.tables import frequency_table

# --- Cards -----------------------------------------------------------------

DECK = tuple(range(32))
ACES = (0, 8, 16, 24)
RANKS = (1, 7, 8, 9, 10, 11, 12, 13)  # Ace, Seven ... King, as Playing Cards ranks


def is_ace(card: int) -> bool:
    return card % 8 == 0


def character(card: int) -> str:
    return card_character(card // 8, RANKS[card % 8])


# --- Rules -----------------------------------------------------------------

STACKS_PER_STAGE = (4, 3, 2)


def deal(pile: tuple, stacks: int) -> list:
    """Deal the pile from its top (its last card) round robin to the stacks;
    the first card a stack receives is its bottom card."""
    from_top = pile[::-1]
    return [from_top[i::stacks] for i in range(stacks)]


@dataclass(frozen=True)
class TurnedStack:
    """A stack turned over, its cards in dealing order: those before its first
    Ace are discarded, the Ace and the cards after it are kept."""

    discarded: tuple
    kept: tuple

    @property
    def has_ace(self) -> bool:
        return bool(self.kept)

    @property
    def size(self) -> int:
        return len(self.discarded) + len(self.kept)


def turn_over(stack: tuple) -> TurnedStack:
    for position, card in enumerate(stack):
        if is_ace(card):
            return TurnedStack(tuple(stack[:position]), tuple(stack[position:]))
    return TurnedStack(tuple(stack), ())


@dataclass(frozen=True)
class Stage:
    stacks: tuple  # of TurnedStack, left to right

    @property
    def kept(self) -> tuple:
        """The stage's kept pile, bottom to top: each stack's kept part above the earlier ones'."""
        return sum((stack.kept for stack in self.stacks), ())


@dataclass(frozen=True)
class Game:
    stages: tuple

    @property
    def kept(self) -> tuple:
        return self.stages[-1].kept

    @property
    def won(self) -> bool:
        """Won when the four Aces are consecutive in the kept pile: its four bottom cards."""
        return all(is_ace(card) for card in self.kept[:4])


def play(deck: tuple) -> Game:
    """The three stages, each dealing the kept pile of the one before."""
    pile, stages = tuple(deck), []
    for stacks in STACKS_PER_STAGE:
        stage = Stage(tuple(turn_over(stack) for stack in deal(pile, stacks)))
        stages.append(stage)
        pile = stage.kept
    return Game(tuple(stages))


def new_deck(seed: int) -> tuple:
    return tuple(shuffled(DECK, seed))


# --- Messages --------------------------------------------------------------

DECK_SHUFFLED = "Deck shuffled, ready to start!"
ANNOUNCEMENTS = {
    4: "Distributing the cards in the deck into 4 stacks.",
    3: "Distributing the cards that have been kept into 3 stacks.",
    2: "Distributing the cards that have been kept into 2 stacks.",
}
STACK_ORDINALS = ("first", "second", "third", "fourth")
POSITION_ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth",
                     "Seventh", "Eighth", "Ninth", "Tenth", "Eleventh")
NO_ACE = "No ace in {stack} stack, after it has been turned over."
ACE_AT = "{position} card in {stack} stack, after it has been turned over, is an ace."
ACE_LAST = "{position} (and last) card in {stack} stack, after it has been turned over, is an ace."
FIRST_DISCARD = "Discarding"
LATER_DISCARD = "Adding to the cards that have been discarded"
DISCARD_ALL = "{prefix} all cards in the stack."
DISCARD_ONE = "{prefix} the card before the ace."
DISCARD_MANY = "{prefix} the {count} cards before the ace."
FIRST_KEEP = "Keeping"
LATER_KEEP = "Also keeping"
KEEP_ACE = "{prefix} the ace, turning it over."
KEEP_ACE_AND_ONE = "{prefix} the ace and the card after, turning them over."
KEEP_ACE_AND_MANY = "{prefix} the ace and the {count} cards after, turning them over."
DISPLAYING = "Displaying the {count} cards that have been kept."
WON = "You won!"
LOST = "You lost!"
TABLE_LABEL = "Number of cards left when winning"
EXACT_HEADING = "Exactly, over the {places} equally likely places of the four aces:"
EXACT_ROW = "{left:>2} cards left: {fraction}"
EXACT_WON = "          won: {fraction}"

COLUMN_WIDTH = 12


# --- Narration -------------------------------------------------------------

def board(columns: list, under: str, discard_pile: tuple, kept: int) -> list:
    stacks_line = "".join(column.ljust(COLUMN_WIDTH) for column in columns).rstrip(" ")
    return [stacks_line, under, face_up_cards(discard_pile, character), face_down(kept), ""]


def turned_over_line(stack: TurnedStack, ordinal: str) -> str:
    if not stack.has_ace:
        return NO_ACE.format(stack=ordinal)
    template = ACE_LAST if len(stack.kept) == 1 else ACE_AT
    return template.format(position=POSITION_ORDINALS[len(stack.discarded)], stack=ordinal)


def discarding_line(stack: TurnedStack, first_discard: bool) -> str:
    prefix = FIRST_DISCARD if first_discard else LATER_DISCARD
    count = len(stack.discarded)
    if not stack.has_ace:
        return DISCARD_ALL.format(prefix=prefix)
    return (DISCARD_ONE if count == 1 else DISCARD_MANY).format(prefix=prefix, count=count)


def keeping_line(stack: TurnedStack, first_keep: bool) -> str:
    prefix = FIRST_KEEP if first_keep else LATER_KEEP
    after = len(stack.kept) - 1
    template = KEEP_ACE if after == 0 else KEEP_ACE_AND_ONE if after == 1 else KEEP_ACE_AND_MANY
    return template.format(prefix=prefix, count=after)


def narrate_stage(stage: Stage, discard_pile: tuple) -> tuple:
    """The stage's lines, and the discard pile after it."""
    stacks = stage.stacks
    face_down_columns = [face_down(stack.size) for stack in stacks]
    lines = [ANNOUNCEMENTS[len(stacks)], *board(face_down_columns, "", discard_pile, 0)]
    kept = 0
    for index, stack in enumerate(stacks):
        done, waiting = [""] * index, face_down_columns[index + 1:]
        turned = face_up(len(stack.kept), character(stack.kept[0])) if stack.has_ace else ""
        under = " " * (COLUMN_WIDTH * index) + face_up_cards(stack.discarded, character) if stack.discarded else ""
        lines.append(turned_over_line(stack, STACK_ORDINALS[index]))
        lines += board([*done, turned, *waiting], under, discard_pile, kept)
        if stack.discarded:
            lines.append(discarding_line(stack, first_discard=not discard_pile))
            discard_pile += stack.discarded
        if stack.has_ace:
            lines.append(keeping_line(stack, first_keep=kept == 0))
            kept += len(stack.kept)
        lines += board([*done, "", *waiting], "", discard_pile, kept)
    return lines, discard_pile


def narrate(game: Game) -> list:
    """Every line the game prints after the seed is read."""
    lines = [DECK_SHUFFLED, face_down(len(DECK)), ""]
    discard_pile = ()
    for stage in game.stages:
        stage_lines, discard_pile = narrate_stage(stage, discard_pile)
        lines += stage_lines
    kept = game.kept
    lines += [
        DISPLAYING.format(count=len(kept)),
        WON if game.won else LOST,
        "",
        "",
        face_up_cards(discard_pile, character),
        "".join(character(card) for card in reversed(kept)),
    ]
    return lines


# --- Simulation ------------------------------------------------------------
#
# A game's outcome depends only on where the four Aces lie, so simulations play
# it on a pile of marks, b"A" for an Ace and b"." for any other card, with the
# same deal as above: bytes slicing keeps each game to a few C-level steps.

ACE_MARK, OTHER_MARK = b"A", b"."
MARKS = bytes.maketrans(bytes(DECK), b"".join(ACE_MARK if is_ace(card) else OTHER_MARK
                                             for card in DECK))
WON_MARKS = ACE_MARK * len(ACES)


def kept_marks(pile: bytes, stacks: int) -> bytes:
    """One stage on marks: deal as `deal` does, each stack keeps from its first Ace on."""
    from_top, kept = pile[::-1], []
    for first in range(stacks):
        stack = from_top[first::stacks]
        ace = stack.find(ACE_MARK)
        if ace >= 0:
            kept.append(stack[ace:])
    return b"".join(kept)


@lru_cache(maxsize=None)  # at most C(32, 4) = 35,960 piles of marks
def cards_left_if_won_marks(pile: bytes) -> int | None:
    """The size of the last kept pile when the Aces end up its bottom cards, else None."""
    return cards_left_after_stage_1(kept_marks(pile, STACKS_PER_STAGE[0]))


@lru_cache(maxsize=None)  # 4,096 different piles, over every place of the Aces
def cards_left_after_stage_1(pile: bytes) -> int | None:
    """The rest of the game from stage 1's kept pile, which far fewer games differ in."""
    for stacks in STACKS_PER_STAGE[1:]:
        pile = kept_marks(pile, stacks)
    return len(pile) if pile.startswith(WON_MARKS) else None


def cards_left_if_won(deck) -> int | None:
    """The size of the kept pile of a won game, else None."""
    return cards_left_if_won_marks(bytes(deck).translate(MARKS))


def simulate(n: int, i: int) -> None:
    """Play the n games seeded i, i+1, ..., i+n-1 silently and print how often
    each number of cards is left by a win."""
    wins = Counter(cards_left_if_won(deck) for deck in shuffled_decks(DECK, i, n))
    del wins[None]
    print("\n".join(frequency_table(TABLE_LABEL, wins, n)))


ACES_PLACES = comb(len(DECK), len(ACES))


def wins_over_every_aces_places(deck_size: int = len(DECK)) -> Counter:
    """Of the C(deck_size, 4) sets of places of the four Aces, all equally
    likely, how many win with each number of cards left."""
    wins = Counter()
    for aces in combinations(range(deck_size), len(ACES)):
        pile = bytearray(OTHER_MARK * deck_size)
        for place in aces:
            pile[place] = ACE_MARK[0]
        wins[cards_left_if_won_marks(bytes(pile))] += 1
    del wins[None]
    return wins


def win_probabilities() -> dict:
    """The exact probability of winning with each number of cards left."""
    wins = wins_over_every_aces_places()
    return {left: Fraction(wins[left], ACES_PLACES) for left in sorted(wins)}


def exact_distribution() -> None:
    """Print the exact table: simulate's format, then the fractions."""
    probabilities = win_probabilities()
    wins = {left: int(probability * ACES_PLACES) for left, probability in probabilities.items()}
    lines = frequency_table(TABLE_LABEL, wins, ACES_PLACES)
    lines += ["", EXACT_HEADING.format(places=ACES_PLACES)]
    lines += [EXACT_ROW.format(left=left, fraction=probability)
              for left, probability in probabilities.items()]
    lines.append(EXACT_WON.format(fraction=sum(probabilities.values())))
    print("\n".join(lines))


# --- Console ---------------------------------------------------------------

def main() -> None:
    seed = console.read_seed()
    print()
    print("\n".join(narrate(play(new_deck(seed)))))


if __name__ == "__main__":
    console.run(main)
