"""The board as lines: one line per pile, its kind and label (what a player
types) then its cards, bottom card first, as the kit draws piles."""

from common.piles import face_down, face_up
from patience_games import messages as text
from patience_games.cards import characters
from patience_games.engine import Game, Pile, PileKind, Position, Reason, Refusal, Show


def pile_text(show: Show, pile: Pile) -> str:
    if show is Show.FACE_DOWN:
        return face_down(len(pile.cards))
    if show is Show.SQUARED:
        return face_up(len(pile.cards), pile.top.character if pile.cards else "")
    shown = [card.character for card in pile.face_up]
    return " ".join(([face_down(pile.face_down)] if pile.face_down else []) + shown)


def board(game: Game, position: Position) -> list:
    titles = [f"{spec.title}:" for spec in game.piles]
    width = max(len(title) for title in titles)
    lines = [f"{title.ljust(width)} {pile_text(spec.kind.show, pile)}".rstrip()
             for title, spec, pile in zip(titles, game.piles, position.piles)]
    if position.score is not None:
        lines.append(text.SCORE.format(score=position.score, runs=position.runs_removed))
    return lines


def refusal_text(game: Game, position: Position, refusal: Refusal) -> str:
    """The refusal in words: what was tried, and the rule that forbids it."""
    fields = {"game": game.name}
    move = refusal.move
    if move is not None:
        source, destination = game.piles[move.source], game.piles[move.destination]
        fields.update(source=source.title, destination=destination.title, count=move.count,
                      leaving=source.kind.leaving, takes=takes_text(destination.kind, refusal.reason),
                      cards=characters(position.piles[move.source].cards[-move.count:]))
    return text.REFUSALS[refusal.reason].format(*refusal.facts, **fields)


def refusals_text(game: Game, position: Position, refusals: list) -> str:
    """Refusals of one move tried on several piles in turn (an alias such as h):
    when none of them takes the cards, name all their rules at once."""
    adding = (Reason.CANNOT_ADD, Reason.EMPTY_PILE_REFUSES)
    if len(refusals) == 1 or any(each.reason not in adding for each in refusals):
        return refusal_text(game, position, refusals[0])
    move = refusals[0].move
    rules = dict.fromkeys(takes_text(game.piles[each.move.destination].kind, each.reason)
                          for each in refusals)
    return text.NONE_TAKES.format(
        cards=characters(position.piles[move.source].cards[-move.count:]),
        labels=", ".join(game.piles[each.move.destination].label for each in refusals),
        takes=text.RULES_JOINED.join(rules))


def takes_text(kind: PileKind, reason: Reason) -> str:
    """The rule an added card broke: the empty pile's when the pile was empty."""
    if reason is Reason.EMPTY_PILE_REFUSES and kind.takes_when_empty:
        return kind.takes_when_empty
    return kind.takes


def pile_names(game: Game) -> str:
    """The labels to type, kind by kind: `s (stock), h (homecell), 1-7 (tableau piles)`."""
    groups = []
    for spec in game.piles:
        if groups and groups[-1][0] == spec.kind.name:
            groups[-1][1].append(spec.label)
        else:
            groups.append((spec.kind.name, [spec.label]))
    return ", ".join(
        text.PILE_GROUP.format(labels=labels[0], name=name) if len(labels) == 1 else
        text.PILE_GROUP.format(labels=text.PILE_RANGE.format(first=labels[0], last=labels[-1]),
                               name=text.PLURAL.format(name=name))
        for name, labels in groups)


def help_lines(game: Game) -> list:
    return text.COMMANDS.format(draw=game.draw_help, piles=pile_names(game),
                                rules=game.rules).split("\n")
