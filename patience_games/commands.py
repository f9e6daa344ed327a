"""What a typed line means: a command as data, or the reason it means nothing.
Piles are named by their labels (game data); words and labels ignore case."""

from dataclasses import dataclass
from typing import Optional

from patience_games import messages as text
from patience_games.engine import Game

HELP_WORDS = ("help", "?")
QUIT_WORDS = ("quit", "q")
UNDO_WORDS = ("undo", "u")
DRAW_WORDS = ("draw", "deal", "d")
HINT_WORDS = ("hint",)
SOLVE_WORDS = ("solve",)


@dataclass(frozen=True)
class Help:
    pass


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Undo:
    pass


@dataclass(frozen=True)
class Draw:
    pass


@dataclass(frozen=True)
class Hint:
    pass


@dataclass(frozen=True)
class Solve:
    pass


@dataclass(frozen=True)
class Nothing:
    """An empty line."""


@dataclass(frozen=True)
class MoveCards:
    """From the pile labelled `source` to the first of `destinations` that takes
    the cards (an alias such as h names several); `count` None: the most that may move."""
    source: int
    destinations: tuple
    count: Optional[int] = None


@dataclass(frozen=True)
class NotUnderstood:
    message: str


WORDS = {**{word: Help() for word in HELP_WORDS}, **{word: Quit() for word in QUIT_WORDS},
         **{word: Undo() for word in UNDO_WORDS}, **{word: Draw() for word in DRAW_WORDS},
         **{word: Hint() for word in HINT_WORDS}, **{word: Solve() for word in SOLVE_WORDS}}


# The most digits a number may have, leading zeros counted: int() converts this
# many whatever the interpreter's limit on converting long integers (4300 digits
# by default, PYTHONINTMAXSTRDIGITS may lower it to 640:
# sys.int_info.str_digits_check_threshold), so no word makes it raise.
LONGEST_NUMBER = 640
SHOWN_LENGTH = 40  # a longer word is shown by its start and its length


def whole_number(word: str, least: int = 1, most: Optional[int] = None):
    """The number a word writes in ASCII digits (at most LONGEST_NUMBER of them),
    when it is from `least` to `most` (no upper bound when None); else None."""
    if not (word.isascii() and word.isdigit()) or len(word) > LONGEST_NUMBER:
        return None
    number = int(word)
    return number if number >= least and (most is None or number <= most) else None


def shown(word: str) -> str:
    """A word as a message quotes it: a long one by its start and its length."""
    if len(word) <= SHOWN_LENGTH:
        return word
    return text.LONG_WORD.format(start=word[:SHOWN_LENGTH // 2], length=len(word))


def piles_named(game: Game, label: str):
    """The indexes of the piles a label names, or None."""
    labels = [spec.label for spec in game.piles]
    if label in labels:
        return (labels.index(label),)
    if label in game.aliases:
        return tuple(labels.index(each) for each in game.aliases[label])
    return None


def unknown_pile(game: Game, label: str) -> NotUnderstood:
    labels = ", ".join([spec.label for spec in game.piles] + list(game.aliases))
    return NotUnderstood(text.UNKNOWN_PILE.format(label=label, game=game.name, labels=labels))


def parse(game: Game, line: str):
    words = line.lower().split()
    if not words:
        return Nothing()
    if len(words) == 1 and words[0] in WORDS:
        return WORDS[words[0]]
    if len(words) not in (2, 3):
        return NotUnderstood(text.UNKNOWN_COMMAND.format(text=line.strip()))
    sources, destinations = piles_named(game, words[0]), piles_named(game, words[1])
    if sources is None:
        return unknown_pile(game, words[0])
    if len(sources) != 1:
        return NotUnderstood(text.SEVERAL_SOURCES.format(label=words[0],
                                                         labels=", ".join(game.aliases[words[0]])))
    if destinations is None:
        return unknown_pile(game, words[1])
    count = None
    if len(words) == 3:
        count = whole_number(words[2])
        if count is None:
            return NotUnderstood(text.BAD_COUNT.format(text=shown(words[2])))
    return MoveCards(sources[0], destinations, count)
