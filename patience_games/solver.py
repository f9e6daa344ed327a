"""A search for a winning line, on the rules engine: what `hint` and `solve` ask.

Depth-first, iterative (an explicit stack: lines run to hundreds of moves), with
a table of the positions already seen and a budget of positions expanded. The
solver knows no rule of any game: a candidate move is a `Move` for each pair of
piles (and each count a run may have), kept when the engine's `refusal` is None
and made with the engine's `play`; the stock command is the engine's `draw`.
So every line it returns is legal on the engine (`follow` replays one step), and
a won line is replayed once more before it is returned.

Verdicts: WON (with the line from the position to a won one), LOST (proven:
every position reachable was searched, or ruled out by the dead-end rule below,
and none is won), GAVE_UP (the budget of positions expanded was spent first).
The solver sees the whole position, the face-down cards and the stock's order
included, as the engine holds them: a verdict is about this deal, not about
what a player could know.

The table of positions seen (`position_key`) keys a position by its piles only,
neither the score nor the count of runs removed, which no rule reads. Two sound
reductions make positions that play alike share a key:

- A pile that cards never leave (`Leave.NEVER`, the stock excepted: a draw takes
  from it) counts only by its size and top card: `refusal` turns it down as a
  source before it looks at its cards, `takes` looks at its top card or its
  emptiness, and the win rules (`all_on`) count its cards. When all of the
  kind's builds take any suit (`Suits.ANY`), the top card counts by its rank.
  Golf's homecell and FreeCell's foundations are such piles: in Golf, playing
  5H 4C 5S or 5S 4C 5H meets again.
- Piles of one kind are interchangeable, so their keys are sorted: the engine's
  rules read a pile's kind, never its index, and the games' hooks (FreeCell's
  sequence limit, Spider's run removal, the win rules) treat piles of one kind
  alike. Only Spider's deal reads piles in board order (one card on each, left
  to right), so nothing is sorted while a game's stock still holds cards. This
  is what merges FreeCell's free cells, foundations and cascades, Little
  Spider's and Curds and Whey's tableau piles, and Spider's once its stock is
  dealt. (Golf's tableau piles never take a card: sorting merges nothing there.)

Speed, without changing what is legal: `refusal` without the game's move limit
reads only the move's two piles, so its answers are remembered by the piles'
contents, and a position's moves are its parent's but for the piles the last
step changed; a move limit (FreeCell's) only refuses more, and `refusal` itself
is asked of every move the limit could refuse. The stock (its draw, moves from
it) is tried last, and made only when the search comes back to a position.

A sound dead-end rule prunes Golf (`_ReachRule`): each card still on the tableau
needs a card of its own to go onto, never one lying below it in its pile (a
matching); and the cards played between two draws go one onto the other, so each
group of tableau cards linked that way (ranks in a row) needs a line of play of
its own, started by the homecell's top card or a stock card. When either fails,
the position is lost. Measured on Golf deals: the matching alone takes ten times
fewer positions for the median won deal and shrinks proofs that a deal is lost
5 to 100 times (seed 42: 1.6 million positions without it, 279,000 with it; seed
723: 26,000, 838); the pile order and the groups take seeds 1-200 at a budget of
20,000 from 944,575 positions to 799,888 (undecided: 27 to 21), seed 42's proof
to 254,000. The matching is the parent's, mended: a step changes one card.

The move ordering is heuristic only (it changes which win is found first and
how fast, never a verdict): see `_Search._ordering`. Depth-first lines wander,
so a won line is shortened (`_shortened`) before it is returned.
"""

import inspect
from dataclasses import dataclass, replace
from typing import Optional

from patience_games.engine import (
    Game, Leave, Move, Pile, Position, Refusal, Suits, all_on, draw, is_run, movable_count, play,
    refusal, takes)

WON = "won"
LOST = "lost"
GAVE_UP = "gave up"
DEFAULT_BUDGET = 200_000  # positions expanded: Golf up to ~25 s, the others minutes

# The categories of moves in the search's order (`_Search._ordering`).
TO_GOAL, UNCOVERS, PROGRESS, OTHER, BACKWARDS, RELABELS = range(6)


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
    matching = search.matching(codes)
    if matching is None:
        return Outcome(LOST, (), 0)
    if budget < 1:
        return Outcome(GAVE_UP, (), 0)
    seen = {search.key(codes)}
    nodes = 1
    stack = [search.children(position, codes, seen, None, matching)]
    start, line = position, []  # line[i]: from the position of stack[i] to that of stack[i + 1]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            if line:
                line.pop()
            continue
        step, after, codes, key, parent, matching = child
        if key in seen:
            continue
        seen.add(key)
        if game.won(game, after):
            return Outcome(WON, _shortened(search, start, tuple(line) + (step,)), nodes)
        if nodes >= budget:
            return Outcome(GAVE_UP, (), nodes)
        nodes += 1
        line.append(step)
        stack.append(search.children(after, codes, seen, parent, matching))
    return Outcome(LOST, (), nodes)


def _shortened(search: "_Search", start: Position, line: tuple) -> tuple:
    """The line without its detours: from each of its positions, the one step (legal,
    by the engine) to the latest later position of the line it reaches. Depth-first
    lines wander (a card moved twice where once was enough); this keeps the win and
    costs one round of move generation per step kept. Replayed to check, else the
    line as found."""
    game, positions = search.game, [start]
    for step in line:
        positions.append(follow(game, positions[-1], step))
    latest = {search.codes(each): index for index, each in enumerate(positions)}
    short, index = [], 0
    while index < len(line):
        here = positions[index]
        codes = search.codes(here)
        best, via = index + 1, line[index]
        for step, after in search.steps(here, codes):
            reached = latest.get(search.codes(after, here, codes), -1)
            if reached > best:
                best, via = reached, step
        short.append(via)
        index = best
    position = start
    for step in short:
        position = follow(game, position, step)
        if isinstance(position, Refusal):
            return line
    return tuple(short) if game.won(game, position) else line


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
        # A card's code, the same in every position: 16 x suit + rank (equal cards,
        # like Spider's two decks, share one). Cards are never made during a search,
        # only moved, so a card object's id names it for the search's length (the
        # root position keeps them all alive).
        self.card_codes, self.cards = {}, {}
        for pile in root.piles:
            for card in pile.cards:
                code = _card_code(card)
                self.card_codes[id(card)] = code
                self.cards.setdefault(code, card)
        self.stocks = [i for i, spec in enumerate(specs) if spec.rest]
        self.summarised = [spec.kind.leaves is Leave.NEVER and not spec.rest for spec in specs]
        self.by_rank = [bool(kind.builds) and all(way.suits is Suits.ANY for way in kind.builds)
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
        # The game without its move limit, for `pile_rules_allow`, and its answers.
        self.pile_game = game if game.move_limit is None else replace(game, move_limit=None)
        self.pile_answers = {}
        self.movable_counts = {}
        self.goal_takes = {}
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
        return tuple([before_code if pile is before else
                      (pile.face_down, bytes(map(code, map(id, pile.cards))))
                      for pile, before, before_code
                      in zip(position.piles, parent.piles, parent_codes)])

    def key(self, codes: tuple):
        """The position's key in the table of positions seen (the module's words say why
        it is sound)."""
        codes = list(codes)
        for i, summarised in enumerate(self.summarised):
            if summarised:
                cards = codes[i][1]
                top = cards[-1] if cards else -1
                if cards and self.by_rank[i]:
                    top = 256 + self.cards[top].rank  # the kind's builds ignore suits
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
        """Does the engine's `refusal` allow `move`?"""
        return self.pile_rules_allow(position, codes, move) and (
            self.game.move_limit is None or refusal(self.game, position, move) is None)

    def pile_rules_allow(self, position: Position, codes: tuple, move: Move) -> bool:
        """Does `refusal` allow `move`, the game's move limit left aside? Then it reads
        the move's two piles and their kinds only, so its answers are remembered by
        the piles' codes. (A move limit only refuses more: `legal` asks it after.)"""
        source, destination = move.source, move.destination
        asked = (source, destination, move.count,
                 self._pile_code(codes, source) if self.summarised[source] else codes[source],
                 self._pile_code(codes, destination) if self.summarised[destination]
                 else codes[destination])
        answer = self.pile_answers.get(asked)
        if answer is None:
            answer = self.pile_answers[asked] = refusal(self.pile_game, position, move) is None
        return answer

    def movable(self, position: Position, codes: tuple, pile: int) -> int:
        """The engine's `movable_count`: it reads the pile and its kind only, so its
        answers are remembered by the pile's codes."""
        if not self.runs[pile]:
            return 1
        asked = (pile, codes[pile])
        answer = self.movable_counts.get(asked)
        if answer is None:
            answer = self.movable_counts[asked] = movable_count(self.game, position, pile)
        return answer

    def moves(self, position: Position, codes: tuple, sources: list, to: Optional[set] = None,
              allowed=None):
        """Every legal move from these piles (to these piles, when `to` says): each
        destination, each count a run may have; `allowed` (`legal` when None) judges."""
        piles = position.piles
        allowed = allowed or self.legal
        for source in sources:
            if not piles[source].cards:
                continue
            longest = self.movable(position, codes, source)
            for destination in self.destinations:
                if destination != source and (to is None or destination in to):
                    for count in range(longest, 0, -1):
                        move = Move(source, destination, count)
                        if allowed(position, codes, move):
                            yield move

    def steps(self, position: Position, codes: tuple):
        """Every legal step: (step, position after it)."""
        game = self.game
        for move in self.moves(position, codes, self.sources):
            yield move, play(game, position, move)
        if game.draw is not None:
            after = draw(game, position)
            if not isinstance(after, Refusal):
                yield DRAW, after
        for move in self.moves(position, codes, self.stock_sources):
            yield move, play(game, position, move)

    def table(self, position: Position, codes: tuple, parent) -> list:
        """The moves between piles that the pile rules allow (`pile_rules_allow`), in
        the order `moves` makes them. These read only a move's two piles, so the
        parent's (position, table) gives those between piles the last step left alone
        (the engine keeps them as they were, the same objects)."""
        allowed = self.pile_rules_allow
        if parent is None:
            return list(self.moves(position, codes, self.sources, None, allowed))
        before, before_table, _ = parent
        changed = {i for i, (pile, was) in enumerate(zip(position.piles, before.piles))
                   if pile is not was}
        if changed.issuperset(self.destinations):  # Golf's homecell: nothing to keep
            return list(self.moves(position, codes, self.sources, None, allowed))
        kept = [move for move in before_table
                if move.source not in changed and move.destination not in changed]
        fresh = [move for move in self.moves(position, codes, self.sources, changed, allowed)
                 if move.source not in changed]
        sources = sorted(changed & set(self.sources))
        moved = list(self.moves(position, codes, sources, None, allowed))
        return sorted(kept + fresh + moved,
                      key=lambda move: (move.source, move.destination, -move.count))

    def children(self, position: Position, codes: tuple, seen: set, parent, matching):
        """The positions after each legal step that are not seen yet nor lost by the
        dead-end rule, best first: the moves between piles, ordered; then the stock
        (its draw, then moves from it). Each is made only when the search comes to
        it. Each child: (step, position, codes, key, (this position, its moves, its
        codes), its matching for the dead-end rule)."""
        game = self.game
        table = self.table(position, codes, parent)
        mine = (position, table, codes)
        if game.move_limit is not None:
            table = [move for move in table if refusal(game, position, move) is None]
        made, wanted = {}, []  # moves the ordering made (position, codes); the cards goals take
        ranked = sorted((self._ordering(position, codes, move, made, wanted), index, move)
                        for index, move in enumerate(table))
        stock_done = False
        for rank, _, move in ranked:
            if rank[0] >= OTHER and not stock_done:
                stock_done = True
                yield from self._stock_children(position, codes, seen, mine, matching)
            after, after_codes = made.pop(move, None) or (play(game, position, move), None)
            child = self._child(move, after, position, codes, seen, mine, matching, after_codes)
            if child:
                yield child
        if not stock_done:
            yield from self._stock_children(position, codes, seen, mine, matching)

    def _stock_children(self, position: Position, codes: tuple, seen: set, mine, matching):
        game = self.game
        if game.draw is not None:
            after = draw(game, position)
            if not isinstance(after, Refusal):
                child = self._child(DRAW, after, position, codes, seen, mine, matching)
                if child:
                    yield child
        for move in self.moves(position, codes, self.stock_sources):
            child = self._child(move, play(game, position, move), position, codes, seen, mine,
                                matching)
            if child:
                yield child

    def _child(self, step, after: Position, before: Position, codes: tuple, seen: set, parent,
               matching, after_codes: tuple = None):
        after_codes = after_codes or self.codes(after, before, codes)
        key = self.key(after_codes)
        if key not in seen:
            after_matching = self.matching(after_codes, matching)
            if after_matching is not None:
                return step, after, after_codes, key, parent, after_matching
        return None

    def matching(self, codes: tuple, before: Optional[dict] = None) -> Optional[dict]:
        """The dead-end rule's matching for the position (from the parent's, `before`),
        or None when the rule finds the position lost."""
        return {} if self.reach is None else self.reach.matching(codes, before)

    # --- Move ordering ---

    def wanted(self, position: Position, codes: tuple) -> frozenset:
        """The codes of the cards some goal pile would take now (the engine's `takes`,
        remembered by what it reads of the goal pile)."""
        found = set()
        for goal in self.goals:
            asked = (goal, self._pile_code(codes, goal))
            takes_now = self.goal_takes.get(asked)
            if takes_now is None:
                kind, pile = self.game.piles[goal].kind, position.piles[goal]
                takes_now = self.goal_takes[asked] = frozenset(
                    code for code, card in self.cards.items() if takes(kind, pile, (card,), None))
            found |= takes_now
        return frozenset(found)

    def _ordering(self, before: Position, codes: tuple, move: Move, made: dict,
                  wanted: list) -> tuple:
        """Smaller first, by category (the stock's steps come just before OTHER):
        TO_GOAL, a move to a homecell or foundation; UNCOVERS, one that uncovers a
        card a goal pile takes now; PROGRESS, one that turns up a face-down card,
        empties a pile or lengthens a run; OTHER moves; BACKWARDS, one that breaks a
        run or takes a card back from a homecell; RELABELS, a whole pile moved to an
        empty pile (it only relabels the piles). Among moves to a goal (Golf's only
        choice), first those after which some card can follow there (keeps options:
        the move is made to see, and kept in `made`); among the others, those that
        bury a card the goals take least deep, and for OTHER, those that dig nearest
        to one; then the taller source first (its buried cards need the chances).
        Read off the piles; the engine's `is_run` says what lengthens a run, and
        `takes` what goals take (computed once per position, in `wanted`)."""
        source, destination, count = move.source, move.destination, move.count
        piles, game = before.piles, self.game
        height = len(piles[source].cards)
        if destination in self.goals:
            after = play(game, before, move)
            after_codes = self.codes(after, before, codes)
            made[move] = after, after_codes
            return (TO_GOAL, not self._goal_options(after, after_codes), 0, -height)
        if source in self.goals:
            return (BACKWARDS, 0, 0, -height)
        if height == count and not piles[destination].cards:
            return (RELABELS, 0, 0, -height)
        if count < self.movable(before, codes, source):
            return (BACKWARDS, 0, 0, -height)
        if not wanted:
            wanted.append(self.wanted(before, codes))
        goals_take = wanted[0]
        below = codes[source][1][:-count]
        if below and below[-1] in goals_take:
            return (UNCOVERS, 0, 0, -height)
        buries = _depth(codes[destination][1], goals_take)
        turns_up = 0 < piles[source].face_down == height - count
        target = piles[destination]
        lengthens = (self.runs[destination] and bool(target.face_up) and is_run(
            game.piles[destination].kind, (target.top,) + piles[source].cards[-count:]))
        if turns_up or height == count or lengthens:
            return (PROGRESS, not turns_up, -buries, -height)
        return (OTHER, _depth(below, goals_take), -buries, -height)

    def _goal_options(self, position: Position, codes: tuple) -> bool:
        """Could some pile's top card go to a goal pile now (the engine says)?"""
        piles = position.piles
        return any(self.legal(position, codes, Move(source, goal))
                   for source in self.sources if piles[source].cards for goal in self.goals)


def _depth(cards: bytes, wanted: frozenset) -> int:
    """How many cards lie above the topmost of `wanted` (99 when none is there)."""
    return next((depth for depth, code in enumerate(reversed(cards)) if code in wanted), 99)


def _card_code(card) -> int:
    if not (0 <= card.suit < 15 and 0 <= card.rank < 16):
        raise ValueError(f"no code for {card}")  # the engine's cards: suits 0-3, ranks 1-13
    return 16 * card.suit + card.rank


class _ReachRule:
    """A sound dead end, for games like Golf: the game is won when all cards are on
    the goal piles (its win rule is the engine's `all_on`), goal piles keep their
    cards, every other pile takes no card, and the tableau's cards leave one at a
    time from the top. So a tableau card leaves its pile only for a goal pile, onto
    a top card the goal's kind builds on (the engine's `takes`); the stock's cards
    go whatever the top (a goal always takes them), and the stock command is taken
    to move only the stock's own cards. The card a tableau card goes onto is then
    covered for good: it is the predecessor of that card alone. It is a goal pile's
    top card now, or a card not on a goal pile yet, but never one lying below the
    card in its own pile (that one is still covered when the card leaves). If the
    tableau's cards cannot each have a predecessor of their own (a matching), the
    position cannot be won. (Golf: four Sevens on the tableau, and only two Sixes
    and Eights left between the stock, the tableau and the homecell's top.) Nor
    can it when a group of tableau cards has no head (`_headed`)."""

    @classmethod
    def of(cls, game: Game, root: Position, search: _Search):
        if getattr(game.won, "__code__", None) is not all_on(0).__code__:
            return None
        rule = inspect.getclosurevars(game.won).nonlocals
        total, goal_kinds = rule.get("total"), rule.get("kinds", ())
        if total != sum(len(pile.cards) for pile in root.piles) or len(search.cards) != total:
            return None  # not all cards dealt, or equal cards (one code for two)
        specs = game.piles
        goals = [i for i, spec in enumerate(specs) if spec.kind in goal_kinds]
        others = [i for i, spec in enumerate(specs) if spec.kind not in goal_kinds]
        if (not goals or any(specs[i].kind.leaves is not Leave.NEVER for i in goals)
                or any(specs[i].kind.builds or specs[i].kind.empty.takes
                       or specs[i].kind.always_takes_from for i in others)):
            return None
        # The tableau: the piles whose cards no goal takes whatever its top. No card
        # joins them, so the root has all their cards, in their order for good.
        tableau = [i for i in others if not any(
            specs[i].kind in specs[goal].kind.always_takes_from for goal in goals)]
        if any(specs[i].kind.leaves is not Leave.TOP_CARD for i in tableau):
            return None  # a run leaving together goes onto a card below it
        return cls(game, root, search, goals, others, tableau)

    def __init__(self, game: Game, root: Position, search: _Search, goals: list, others: list,
                 tableau: list):
        self.goals, self.others, self.watched = goals, others, tableau
        specs, cards = game.piles, search.cards
        code = search.card_codes.__getitem__
        self.heads = [i for i in others if i not in self.watched]  # the stock
        self.onto = {}  # a tableau card's code -> the codes of the cards it may go onto
        reach = {}  # the same, its own pile aside
        for pile in self.watched:
            kind, column = specs[pile].kind, [code(id(card)) for card in root.piles[pile].cards]
            for height, card in enumerate(column):
                reach[card] = frozenset(
                    other for other, top in cards.items() if other != card
                    and any(takes(specs[goal].kind, Pile((top,)), (cards[card],), kind)
                            for goal in goals))
                below = set(column[:height])
                self.onto[card] = tuple(other for other in reach[card] if other not in below)
        # The groups rule reads classes of tableau cards, those that may go onto the
        # same cards (Golf: a rank), as bits; `linked`: the classes a class's cards go
        # onto or take, itself included; `starts`: the classes a card may start a chain of.
        classes = sorted(set(reach.values()), key=sorted)
        self.bit = [0] * 256
        for card, its in reach.items():
            self.bit[card] = 1 << classes.index(its)
        self.linked = [1 << n for n in range(len(classes))]
        self.starts = [0] * 256
        for n, its in enumerate(classes):
            for other in its:
                self.starts[other] |= 1 << n
                if other in reach:
                    self.linked[n] |= self.bit[other]
                    self.linked[classes.index(reach[other])] |= 1 << n
        self.verdicts = {}  # (classes on the tableau, the heads) -> do the groups have heads

    def matching(self, codes: tuple, before: Optional[dict] = None) -> Optional[dict]:
        """Each tableau card's predecessor (a dict: predecessor -> card), or None when
        there is no such matching. The parent's matching (`before`) is kept where it
        still holds: a step covers one predecessor and takes one card off the tableau,
        so at most one card looks for another predecessor (Kuhn's augmenting path)."""
        if any(not codes[goal][1] for goal in self.goals):
            return {}  # an empty goal pile may take a card of its own: not judged
        tableau = b"".join([codes[pile][1] for pile in self.watched])
        free = set(b"".join([codes[pile][1] for pile in self.others]))  # the predecessors left
        free.update([codes[goal][1][-1] for goal in self.goals])
        if before:
            on_tableau = set(tableau)
            served = {under: card for under, card in before.items()
                      if under in free and card in on_tableau}
        else:
            served = {}
        placed = set(served.values())
        for card in tableau:
            if card not in placed and not self._placed(card, free, served, set()):
                return None
        return served if self._headed(codes, tableau) else None

    def _headed(self, codes: tuple, tableau: bytes) -> bool:
        """Has each group of tableau cards a head of its own? Between two draws the
        cards played make a chain: it starts on a head (a goal's top card, or a stock
        card when it is drawn), each head starts one chain, and each card of the chain
        goes onto the card before. So a chain stays within one group of tableau cards
        linked by going onto one another (Golf: ranks in a row, none of them missing
        from the tableau), and each group needs a head that a card of it goes onto.
        (The matching alone lets a group's cards go onto one another in a ring.)"""
        bit, present = self.bit, 0
        for card in tableau:
            present |= bit[card]
        heads = b"".join([codes[pile][1] for pile in self.heads]) + bytes(
            [codes[goal][1][-1] for goal in self.goals])
        asked = present, heads
        verdict = self.verdicts.get(asked)
        if verdict is None:
            verdict = self.verdicts[asked] = _matched_groups(
                _groups(present, self.linked), [self.starts[head] for head in heads])
        return verdict

    def _placed(self, card: int, free: set, served: dict, tried: set) -> bool:
        """Kuhn's augmenting path: a predecessor for `card`, perhaps taken from a card
        that can have another one."""
        onto = self.onto[card]
        for other in onto:
            if other in free and other not in served:
                served[other] = card
                return True
        for other in onto:
            if other in free and other not in tried:
                tried.add(other)
                if self._placed(served[other], free, served, tried):
                    served[other] = card
                    return True
        return False


def _groups(present: int, linked: list) -> list:
    """The connected groups (bit masks) of the classes present (a bit mask)."""
    groups = []
    while present:
        group, grown = 0, present & -present
        while grown != group:
            group = grown
            for n in range(len(linked)):
                if group >> n & 1:
                    grown |= linked[n] & present
        groups.append(group)
        present &= ~group
    return groups


def _matched_groups(groups: list, starts: list) -> bool:
    """Can each group have a head of its own, a head starting the groups in `starts`
    (a bit mask per head)? Kuhn's augmenting paths, groups being few."""
    head_of = {}  # head -> group

    def placed(group: int, tried: set) -> bool:
        for head, its in enumerate(starts):
            if its & group and head not in tried:
                tried.add(head)
                if head not in head_of or placed(head_of[head], tried):
                    head_of[head] = group
                    return True
        return False

    return all(placed(group, set()) for group in groups)
