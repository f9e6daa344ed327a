"""Five patience games at the terminal, one command per line, so that a game can
be scripted on stdin: `python3 patience.py GAME [--seed N]`, with `--ms N` for
FreeCell and `--suits 1|2|4` for Spider (specification: docs/patience.md).

The games live in the `patience_games` package; this file is the edge: the
arguments, and the loop that prints the board, reads a line and prints the
reply. End of input ends the game like `quit` (a line end, then status 0); Ctrl-C 130;
a closed stdout pipe quietly. `import patience` starts nothing.
"""

import argparse
import random
import sys

from common import console
from patience_games import messages as text
from patience_games.commands import LONGEST_NUMBER, shown, whole_number
from patience_games.games import ALIASES, GAMES, dealt
from patience_games.session import Session
from patience_games.simulate import simulate

RANDOM_SEEDS = 10 ** 6
MS_DEALS = 2 ** 31 - 1  # the generator takes its state mod 2^31: deal 2^31 + n would be deal n
USAGE_GAMES = ", ".join(GAMES)


def game_name(value: str) -> str:
    name = "-".join(value.lower().replace("_", " ").split())
    name = ALIASES.get(name.replace("-", ""), ALIASES.get(name, name))
    if name not in GAMES:
        raise argparse.ArgumentTypeError(text.NOT_A_GAME.format(name=value, games=USAGE_GAMES))
    return name


def deal_number(value: str) -> int:
    """--ms: a Microsoft deal, 1 to 2^31 - 1."""
    number = whole_number(value, 1, MS_DEALS)
    if number is None:
        raise argparse.ArgumentTypeError(text.BAD_DEAL_NUMBER.format(most=MS_DEALS,
                                                                     value=shown(value)))
    return number


def seed_number(value: str) -> int:
    """--seed: a whole number in ASCII digits, maybe negative, never too long to convert."""
    digits = value[1:] if value.startswith("-") else value
    number = whole_number(digits, 0)
    if number is None:
        raise argparse.ArgumentTypeError(text.BAD_SEED.format(digits=LONGEST_NUMBER,
                                                              value=shown(value)))
    return -number if value.startswith("-") else number


def suits_number(value: str) -> int:
    """--suits: a number in ASCII digits, for argparse to check against the choices."""
    number = whole_number(value, 0)
    if number is None:
        raise argparse.ArgumentTypeError(text.BAD_SUITS.format(value=shown(value)))
    return number


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="patience.py", description="Play a patience game, one command per line "
        "(type help in the game for the commands and the rules).")
    parser.add_argument("game", type=game_name, help=USAGE_GAMES)
    parser.add_argument("--seed", type=seed_number, help="the deal's seed (default: chosen at random and shown)")
    parser.add_argument("--ms", type=deal_number, metavar="N", help=f"FreeCell: Microsoft deal N, 1 to {MS_DEALS}")
    parser.add_argument("--suits", type=suits_number, choices=(1, 2, 4), help="Spider: 1, 2 or 4 suits (default 4)")
    options = parser.parse_args(argv)
    if options.ms is not None and options.game != "freecell":
        parser.error(text.ONLY_FOR.format(option="--ms", game="freecell"))
    if options.suits is not None and options.game != "spider":
        parser.error(text.ONLY_FOR.format(option="--suits", game="spider"))
    if options.ms is not None and options.seed is not None:
        parser.error(text.SEED_AND_MS)
    return options


def new_session(options: argparse.Namespace):
    """The game, its first position and its title line."""
    suits = options.suits or 4
    if options.ms is not None:
        game, position = dealt(options.game, ms=options.ms, suits=suits)
        return Session(game, position), text.TITLE_MS.format(game=game.name, number=options.ms)
    seed, title = options.seed, text.TITLE_SEED
    if seed is None:
        seed, title = random.SystemRandom().randrange(RANDOM_SEEDS), text.TITLE_RANDOM_SEED
    game, position = dealt(options.game, seed=seed, suits=suits)
    return Session(game, position), title.format(game=game.name, seed=seed)


def converse(options: argparse.Namespace) -> None:
    """One game at the console: the board, then a reply to each line typed."""
    session, title = new_session(options)
    print("\n".join(session.opening(title)))
    while True:
        try:
            line = console.read_line(text.PROMPT)
        except EOFError:
            print()  # the shell's prompt starts on a line of its own
            return
        reply = session.respond(line)
        if reply.lines:
            print("\n".join(reply.lines), flush=True)
        if reply.finished:
            return


def deal_count(value: str) -> int:
    number = whole_number(value, 1)
    if number is None:
        raise argparse.ArgumentTypeError(text.BAD_DEAL_COUNT.format(value=shown(value)))
    return number


def simulate_arguments(argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="patience.py simulate", description=text.SIMULATE_USAGE)
    parser.add_argument("game", type=game_name, help=f"one of: {USAGE_GAMES}")
    parser.add_argument("count", type=deal_count, metavar="N", help="how many deals")
    parser.add_argument("first", type=seed_number, metavar="I", help="the first deal's seed "
                        "(FreeCell: its Microsoft deal number)")
    options = parser.parse_args(argv)
    last = options.first + options.count - 1
    if options.game == "freecell" and not (1 <= options.first and last <= MS_DEALS):
        parser.error(text.BAD_FIRST_DEAL.format(most=MS_DEALS, value=options.first))
    return options


def tabulate(options: argparse.Namespace) -> None:
    """The table of `patience.py simulate` (the search runs in processes of its own)."""
    print("\n".join(simulate(options.game, options.count, options.first)), flush=True)


def kit_tool(argv):
    """`patience.py simulate ...` (the kit's tool beside the games, which the handout does
    not ask for) as a function to run, or None for a game."""
    if argv[:1] == ["simulate"]:
        return lambda: tabulate(simulate_arguments(argv[1:]))
    return None


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    console.run(kit_tool(argv) or (lambda: converse(arguments(argv))))


if __name__ == "__main__":
    main()
