"""A search for a winning line, on the rules engine: what `hint` and `solve` ask.

Depth-first, iterative (an explicit stack: lines run to hundreds of moves), with
a table of the positions already seen and a budget of positions expanded. The
solver knows no rule of any game: a candidate move is a `Move` for each pair of
piles (and each count a run may have), kept when the engine's `refusal` is None
and made with the engine's `play`; the stock command is the engine's `draw`.
So every line it returns is legal on the engine (`follow` replays one step).

Verdicts: WON (with the line from the position to a won one), LOST (proven:
every position reachable was searched and none is won), GAVE_UP (the budget
of positions expanded was spent first). The solver sees the whole position, the
face-down cards and the stock's order included, as the engine holds them: a
verdict is about this deal, not about what a player could know.

The table of positions seen (`position_key`) keys a position by its piles only,
neither the score nor the count of runs removed, which no rule reads. Two sound
reductions make positions that play alike share a key:

- A pile that cards never leave (`Leave.NEVER`, the stock excepted: a draw takes
  from it) counts only by its size and top card: `refusal` turns it down as a
  source before it looks at its cards, `takes` looks at its top card or its
  emptiness, and the win rules (`all_on`) count its cards. Golf's homecell and
  FreeCell's foundations are such piles: in Golf, playing 5 4 5' or 5' 4 5 meets
  again.
- Piles of one kind are interchangeable, so their keys are sorted: the engine's
  rules read a pile's kind, never its index, and the games' hooks (FreeCell's
  sequence limit, Spider's run removal, the win rules) treat piles of one kind
  alike. Only Spider's deal reads piles in board order (one card on each, left
  to right), so nothing is sorted while a game's stock still holds cards. This
  is what merges FreeCell's free cells and cascades, Little Spider's and Curds
  and Whey's tableau piles, and Spider's once its stock is dealt. (Golf's tableau
  piles never take a card, so sorting them merges nothing there.)

The move ordering is heuristic only (it changes which win is found first and
how fast, never a verdict): see `_ordering`.
"""

import inspect
from dataclasses import dataclass
from typing import Optional

from patience_games.engine import (
    Game, Leave, Move, Pile, Position, Refusal, Suits, all_on, draw, movable_count, play, refusal,
    takes)

WON = "won"
LOST = "lost"
GAVE_UP = "gave up"
DEFAULT_BUDGET = 200_000  # positions expanded: a few seconds of search


class _Draw:
    """The stock command as a step of a line (the engine's `draw`)."""

    def __repr__(self) -> str:
        return "DRAW"

    def __reduce__(self):  # one instance, even through pickle and copy
        return "DRAW"


DRAW = _Draw()


@dataclass(frozen=True)
class Outcome:
    verdict: str  # WON, LOST (proven: the whole tree was searched), or GAVE_UP (budget spent)
    line: tuple = ()  # the steps (engine `Move`s and DRAW) from the position to a win, when WON
    nodes: int = 0  # positions expanded


def follow(game: Game, position: Position, step):
    """The position after one step of a line (a `Move` or DRAW), by the engine; the
    engine's `Refusal` when the step is illegal there."""
    if step is DRAW:
        return draw(game, position)
    return refusal(game, position, step) or play(game, position, step)


def solve(game: Game, position: Position, budget: int = DEFAULT_BUDGET) -> Outcome:
    """A winning line from `position`, or the proof there is none, or GAVE_UP when
    `budget` positions have been expanded first (nodes never exceeds budget)."""
    if game.won(game, position):
        return Outcome(WON, (), 0)
    search = _Search(game, position)
    codes = search.codes(position)
    if search.hopeless(codes):
        return Outcome(LOST, (), 0)
    if budget < 1:
        return Outcome(GAVE_UP, (), 0)
    seen = {search.key(codes)}
    nodes = 1
    stack = [search.children(position, codes, seen)]
    line = []  # line[i]: the step from the position of stack[i] to that of stack[i + 1]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            if line:
                line.pop()
            continue
        step, after, codes, key = child
        if key in seen:
            continue
        seen.add(key)
        if game.won(game, after):
            return Outcome(WON, tuple(line) + (step,), nodes)
        if nodes >= budget:
            return Outcome(GAVE_UP, (), nodes)
        nodes += 1
        line.append(step)
        stack.append(search.children(after, codes, seen))
    return Outcome(LOST, (), nodes)


def hint(game: Game, position: Position, budget: int = DEFAULT_BUDGET) -> Outcome:
    """One step from which the game can still be won (the first of a winning line),
    or the verdict LOST or GAVE_UP; an empty line when the position is won already."""
    outcome = solve(game, position, budget)
    return Outcome(outcome.verdict, outcome.line[:1], outcome.nodes)


def position_key(game: Game, position: Position):
    """The key of `position` in the table of positions seen (see the module's words)."""
    search = _Search(game, position)
    return search.key(search.codes(position))


class _Search:
    """What one search precomputes about the game; its positions' codes, keys and
    children. A position's codes: each pile as (face-down count, its cards' codes
    as bytes)."""

    def __init__(self, game: Game, root: Position):
        self.game = game
        specs = game.piles
        kinds = [spec.kind for spec in specs]
        # A card's code: equal cards (Spider's two decks) share one. Cards are never
        # made during a search, only moved, so a card object's id names it for the
        # search's length (the root position keeps them all alive).
        numbers, self.card_codes, self.cards = {}, {}, []
        for pile in root.piles:
            for card in pile.cards:
                code = numbers.get((card.suit, card.rank))
                if code is None:
                    code = numbers[card.suit, card.rank] = len(self.cards)
                    self.cards.append(card)
                self.card_codes[id(card)] = code
        self.stocks = [i for i, spec in enumerate(specs) if spec.rest]
        self.summarised = [spec.kind.leaves is Leave.NEVER and not spec.rest for spec in specs]
        self.by_rank = [kind.builds and all(way.suits is Suits.ANY for way in kind.builds)
                        for kind in kinds]
        groups = {}
        for i, kind in enumerate(kinds):
            groups.setdefault(id(kind), []).append(i)
        self.groups = [group for group in groups.values() if len(group) > 1]
        # Piles that may be a move's source or destination, read off the kinds' data;
        # `refusal` still decides every move (these only skip pairs it always refuses).
        leaving = [i for i, kind in enumerate(kinds) if kind.leaves is not Leave.NEVER]
        self.sources = [i for i in leaving if not specs[i].rest]
        self.stock_sources = [i for i in leaving if specs[i].rest]
        self.destinations = [i for i, kind in enumerate(kinds)
                             if kind.builds or kind.empty.takes or kind.always_takes_from]
        self.runs = [kind.leaves is Leave.RUN for kind in kinds]
        # Goal piles: the ones cards go to and stay on (homecells, foundations).
        self.goals = [i for i, spec in enumerate(specs)
                      if spec.kind.leaves in (Leave.NEVER, Leave.TOP_CARD_NOT_LAST)
                      and not spec.rest and i in self.destinations]
        # `refusal` reads the move's two piles and the kinds, and the game's move
        # limit when it has one: without one, its answers are remembered by piles.
        self.legal_moves = {} if game.move_limit is None else None
        self.reach = _ReachRule.of(game, root, self)

    # --- Codes and keys ---

    def codes(self, position: Position, parent: Optional[Position] = None,
              parent_codes: tuple = ()) -> tuple:
        """The position's codes, reusing the parent's where a pile is the parent's own
        object (the engine keeps the piles a move does not touch)."""
        code = self.card_codes.__getitem__
        if parent is None:
            return tuple((pile.face_down, bytes(map(code, map(id, pile.cards))))
                         for pile in position.piles)
        return tuple(before_code if pile is before else
                     (pile.face_down, bytes(map(code, map(id, pile.cards))))
                     for pile, before, before_code in zip(position.piles, parent.piles, parent_codes))

    def key(self, codes: tuple):
        """The position's key in the table of positions seen (the module's words say why
        it is sound)."""
        codes = list(codes)
        for i, summarised in enumerate(self.summarised):
            if summarised:
                cards = codes[i][1]
                top = cards[-1] if cards else -1
                if cards and self.by_rank[i]:
                    top = 64 + self.cards[top].rank  # the kind's builds ignore suits
                codes[i] = (len(cards), top)
        if not any(codes[i][1] for i in self.stocks):
            for group in self.groups:
                for i, code in zip(group, sorted(codes[i] for i in group)):
                    codes[i] = code
        return tuple(codes)

    def _pile_code(self, codes: tuple, i: int):
        """What `refusal` may read of a pile: all of it, or for a pile no card leaves,
        its size and top card."""
        if self.summarised[i]:
            cards = codes[i][1]
            return len(cards), cards[-1:]
        return codes[i]

    # --- Moves ---

    def legal(self, position: Position, codes: tuple, move: Move) -> bool:
        """Does the engine's `refusal` allow `move`? (Remembered when it reads only the
        two piles.)"""
        if self.legal_moves is None:
            return refusal(self.game, position, move) is None
        asked = (move.source, move.destination, move.count,
                 self._pile_code(codes, move.source), self._pile_code(codes, move.destination))
        answer = self.legal_moves.get(asked)
        if answer is None:
            answer = self.legal_moves[asked] = refusal(self.game, position, move) is None
        return answer

    def moves(self, position: Position, codes: tuple, sources: list):
        """Every legal move from these piles: each destination, each count a run may have."""
        game, piles = self.game, position.piles
        for source in sources:
            if not piles[source].cards:
                continue
            longest = movable_count(game, position, source) if self.runs[source] else 1
            for destination in self.destinations:
                if destination != source:
                    for count in range(longest, 0, -1):
                        move = Move(source, destination, count)
                        if self.legal(position, codes, move):
                            yield move

    def children(self, position: Position, codes: tuple, seen: set):
        """The positions after each legal step, not seen yet and not hopeless, one per
        key, best first: the moves between piles, ordered; then the stock (its draw,
        then moves from it), made only when the search comes back to this position."""
        game, found = self.game, {}
        for move in self.moves(position, codes, self.sources):
            self._add(found, move, play(game, position, move), position, codes, seen)
        yield from sorted(found.values(), key=lambda child: self._ordering(position, codes, child))
        stock = {}
        if game.draw is not None:
            after = draw(game, position)
            if not isinstance(after, Refusal):
                self._add(stock, DRAW, after, position, codes, seen)
        for move in self.moves(position, codes, self.stock_sources):
            self._add(stock, move, play(game, position, move), position, codes, seen)
        yield from stock.values()

    def _add(self, found: dict, step, after: Position, before: Position, codes: tuple, seen: set):
        after_codes = self.codes(after, before, codes)
        key = self.key(after_codes)
        if key not in seen and key not in found and not self.hopeless(after_codes):
            found[key] = (step, after, after_codes, key)

    def hopeless(self, codes: tuple) -> bool:
        return self.reach is not None and self.reach.hopeless(codes)

    # --- Move ordering ---

    def _ordering(self, before: Position, before_codes: tuple, child) -> tuple:
        """Smaller first. Moves to a homecell or foundation first; then moves that turn
        up a face-down card, empty a pile or lengthen a run; other moves; moves that
        break a run or take a card back from a homecell; last, a whole pile moved to
        an empty pile (it only relabels the piles). Among moves to a homecell (Golf's
        only choice), first those after which some card can follow it there (keeps
        options), then the taller source first (its buried cards need the chances);
        among others, the taller source first."""
        step, after, after_codes, key = child
        source, destination, count = step.source, step.destination, step.count
        height = len(before.piles[source].cards)
        if destination in self.goals:
            return (0, not self._goal_options(after, after_codes), -height)
        if source in self.goals:
            return (4, 0, -height)
        if height == count and not before.piles[destination].cards:
            return (5, 0, -height)
        if self.runs[source] and count < movable_count(self.game, before, source):
            return (4, 0, -height)
        turns_up = after.piles[source].face_down < before.piles[source].face_down
        lengthens = self.runs[destination] and movable_count(self.game, after, destination) > count
        if turns_up or height == count or lengthens:
            return (1, not turns_up, -height)
        return (2, 0, -height)

    def _goal_options(self, position: Position, codes: tuple) -> bool:
        """Could some pile's top card go to a goal pile now (the engine says)?"""
        piles = position.piles
        return any(self.legal(position, codes, Move(source, goal))
                   for source in self.sources if piles[source].cards for goal in self.goals)


class _ReachRule:
    """A sound dead end, for games like Golf: the game is won when all cards are on
    the goal piles (its win rule is the engine's `all_on`), goal piles keep their
    cards, and every other pile takes no card, so a card leaves its pile only for a
    goal pile, onto a top card the goal's kind builds on (the engine's `takes`).
    A goal pile's future top cards are its top card now and cards not on the goal
    piles yet; a card that builds on none of them (and that no goal takes whatever
    its top, like Golf's stock cards) can never leave: the position cannot be won.
    (Golf: a Seven on a tableau pile when the homecell's top and every card off the
    homecell are neither Six nor Eight.) The stock command is taken to move only
    the stock's own cards."""

    @classmethod
    def of(cls, game: Game, root: Position, search: _Search):
        if getattr(game.won, "__code__", None) is not all_on(0).__code__:
            return None
        rule = inspect.getclosurevars(game.won).nonlocals
        total, goal_kinds = rule.get("total"), rule.get("kinds", ())
        if total != sum(len(pile.cards) for pile in root.piles):
            return None
        specs = game.piles
        goals = [i for i, spec in enumerate(specs) if spec.kind in goal_kinds]
        others = [i for i, spec in enumerate(specs) if spec.kind not in goal_kinds]
        if (not goals or any(specs[i].kind.leaves is not Leave.NEVER for i in goals)
                or any(specs[i].kind.builds or specs[i].kind.empty.takes for i in others)):
            return None
        return cls(game, search, goals, others)

    def __init__(self, game: Game, search: _Search, goals: list, others: list):
        self.game, self.search, self.goals, self.others = game, search, goals, others
        specs = game.piles
        self.watched = [i for i in others if not any(
            specs[i].kind in specs[goal].kind.always_takes_from for goal in goals)]
        self.partners = {}  # (card code, pile kind's index) -> codes of the cards it builds on

    def partners_of(self, card: int, pile: int) -> frozenset:
        asked = (card, id(self.game.piles[pile].kind))
        known = self.partners.get(asked)
        if known is None:
            cards, kind = self.search.cards, self.game.piles[pile].kind
            known = self.partners[asked] = frozenset(
                below for below, top in enumerate(cards)
                if any(takes(self.game.piles[goal].kind, Pile((top,)), (cards[card],), kind)
                       for goal in self.goals))
        return known

    def hopeless(self, codes: tuple) -> bool:
        if any(not codes[goal][1] for goal in self.goals):
            return False  # an empty goal pile may take a card of its own: not judged
        pool = b"".join(codes[i][1] for i in self.others) + bytes(
            codes[goal][1][-1] for goal in self.goals)
        present = set(pool)
        for pile in self.watched:
            for card in set(codes[pile][1]):
                partners = self.partners_of(card, pile)
                if present.isdisjoint(partners):
                    return True
                if partners & present == {card} and pool.count(card) < 2:
                    return True  # its only partner is itself: another copy is needed
        return False
