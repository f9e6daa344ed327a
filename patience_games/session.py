"""One game at the console, without the console: a typed line in, the lines
to print out, and whether the game is over. The history makes undo exact."""

from dataclasses import dataclass

from patience_games import assist, commands, messages as text, solver
from patience_games.engine import Game, Move, Position, Refusal, best_move, draw, play, refusal
from patience_games.render import board, help_lines, refusal_text, refusals_text


@dataclass(frozen=True)
class Reply:
    lines: list
    finished: bool = False


def attempt(game: Game, position: Position, command: commands.MoveCards):
    """The position after the move to the first destination that takes it, or the
    refusals of all the destinations."""
    refusals = []
    others = [pile for pile in command.destinations if pile != command.source]
    for destination in others or command.destinations:  # `h1 h`: h means the other foundations
        if command.count is None:
            move = best_move(game, position, command.source, destination)
        else:
            move = Move(command.source, destination, command.count)
        refused = move if isinstance(move, Refusal) else refusal(game, position, move)
        if refused is None:
            return play(game, position, move)
        refusals.append(refused)
    return refusals


class Session:
    def __init__(self, game: Game, position: Position):
        self.game = game
        self.history = [position]

    @property
    def position(self) -> Position:
        return self.history[-1]

    def opening(self, title: str) -> list:
        return [title, text.TYPE_HELP, "", *board(self.game, self.position)]

    def respond(self, line: str) -> Reply:
        command = commands.parse(self.game, line)
        if isinstance(command, commands.Nothing):
            return Reply([])
        if isinstance(command, commands.NotUnderstood):
            return Reply([command.message])
        if isinstance(command, commands.Help):
            return Reply(help_lines(self.game))
        if isinstance(command, commands.Quit):
            return Reply([], finished=True)
        if isinstance(command, commands.Undo):
            if len(self.history) == 1:
                return Reply([text.NOTHING_TO_UNDO])
            self.history.pop()
            return Reply(["", *board(self.game, self.position)])
        if isinstance(command, commands.Hint):
            return Reply([self.hint()])
        if isinstance(command, commands.Solve):
            return self.solve()
        if isinstance(command, commands.Draw):
            outcome = draw(self.game, self.position)
            if isinstance(outcome, Refusal):
                return Reply([refusal_text(self.game, self.position, outcome)])
        else:
            outcome = attempt(self.game, self.position, command)
            if isinstance(outcome, list):
                return Reply([refusals_text(self.game, self.position, outcome)])
        self.history.append(outcome)
        lines = ["", *board(self.game, outcome)]
        if self.game.won(self.game, outcome):
            return Reply([*lines, text.WON], finished=True)
        return Reply(lines)

    def hint(self) -> str:
        if self.game.won(self.game, self.position):
            return text.ALREADY_WON
        outcome, problem = assist.search(self.game, self.position)
        if outcome is None:
            return problem
        if outcome.verdict != solver.WON:
            return assist.verdict_line(outcome)
        return text.HINT.format(command=assist.command_of(self.game, outcome.line[0]))

    def solve(self) -> Reply:
        """A winning line played on the board, each step as its command and the board
        after it; undo takes the steps back one by one."""
        outcome, problem = assist.search(self.game, self.position)
        if outcome is None:
            return Reply([problem])
        if outcome.verdict != solver.WON:
            return Reply([assist.verdict_line(outcome)])
        lines = [text.SOLVING.format(moves=len(outcome.line))]
        for step in outcome.line:
            self.history.append(solver.follow(self.game, self.position, step))
            lines += ["", text.SOLVE_STEP.format(command=assist.command_of(self.game, step)),
                      *board(self.game, self.position)]
        return Reply([*lines, text.WON], finished=True)
