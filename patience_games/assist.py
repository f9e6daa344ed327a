"""`hint` and `solve` at the console: which search a game gets, and a step of a
winning line as the command a player would type. FreeCell asks Freecell Solver
(an optional extra: without it the reply says what to install); the other games
ask the kit's own depth-first search. Both lines are checked on the engine."""

from patience_games import freecell_solver, messages as text, solver
from patience_games.engine import Game

DRAW_COMMAND = "d"


def search(game: Game, position, budget: int = solver.DEFAULT_BUDGET):
    """(outcome, problem): a solver's outcome, or None and why no search could run."""
    if game.name == text.FREECELL:
        if not freecell_solver.available():
            return None, freecell_solver.MISSING
        return freecell_solver.solve_freecell(game, position), ""
    return solver.solve(game, position, budget), ""


def command_of(game: Game, step) -> str:
    """The line a player types for a step: `FROM TO`, `FROM TO N` for several cards,
    or the stock's `d`."""
    if step is solver.DRAW:
        return DRAW_COMMAND
    words = [game.piles[step.source].label, game.piles[step.destination].label]
    return " ".join(words + ([str(step.count)] if step.count > 1 else []))


def verdict_line(outcome) -> str:
    """What a search that found no line says."""
    if outcome.verdict == solver.LOST:
        return text.CANNOT_BE_WON
    return text.SEARCH_GAVE_UP.format(nodes=outcome.nodes)
