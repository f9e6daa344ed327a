"""The five games, declared on the engine: their pile kinds, layouts and win
rules, and the few rules that are not pile data: Spider's run removal and
stock deal, FreeCell's sequence limit, Golf's draw."""

from dataclasses import replace

from common.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from common.deal import shuffled
from patience_games import messages as text
from patience_games.cards import ACE, KING, RANKS, Card
from patience_games.engine import (
    TAKES_ANY_CARD, Empty, Game, Leave, Move, PileKind, PileSpec, Position, Reason, Refusal,
    Show, Suits, after_move, all_on, build, deal, play, refusal)
from patience_games.freecell_ms import ms_deck

ONE_ABOVE_OR_BELOW_WRAPPING = build(+1, -1, wrap=True)
ONE_BELOW = build(-1)
ONE_BELOW_IN_SUIT = build(-1, suits=Suits.SAME)
ONE_ABOVE_IN_SUIT = build(+1, suits=Suits.SAME)
ONE_BELOW_OTHER_COLOUR = build(-1, suits=Suits.OTHER_COLOUR)
SAME_RANK_OTHER_SUIT = build(0, suits=Suits.OTHER)


def labelled(kind: PileKind, labels, **deal) -> tuple:
    return tuple(PileSpec(kind, str(label), **deal) for label in labels)


# --- Golf ----------------------------------------------------------------------------

GOLF_STOCK = PileKind(text.STOCK, text.STOCK_TAKES, leaving=text.GOLF_STOCK_LEAVING,
                      show=Show.FACE_DOWN)
GOLF_HOMECELL = PileKind(text.HOMECELL, text.GOLF_HOMECELL_TAKES, text.GOLF_EMPTY_HOMECELL_TAKES,
                         builds=(ONE_ABOVE_OR_BELOW_WRAPPING,), leaves=Leave.NEVER,
                         leaving=text.GOLF_HOMECELL_LEAVING, always_takes_from=(GOLF_STOCK,),
                         show=Show.SQUARED)
GOLF_TABLEAU = PileKind(text.TABLEAU_PILE, text.GOLF_TABLEAU_TAKES, leaving=text.ONE_CARD_LEAVING)


def golf_draw(game: Game, position: Position):
    """The stock's top card onto the homecell."""
    move = Move(game.index("s"), game.index("h"))
    return refusal(game, position, move) or play(game, position, move)


GOLF_GAME = Game(
    text.GOLF,
    piles=(PileSpec(GOLF_STOCK, "s", rest=True), PileSpec(GOLF_HOMECELL, "h"),
           *labelled(GOLF_TABLEAU, range(1, 8), dealt=5)),
    won=all_on(52, GOLF_HOMECELL),
    draw=golf_draw,
    rules=text.GOLF_RULES,
    draw_help=text.GOLF_DRAW,
)


# --- Little Spider ---------------------------------------------------------------------

LITTLE_SPIDER_TABLEAU = PileKind(text.TABLEAU_PILE, text.LITTLE_SPIDER_TABLEAU_TAKES,
                                 text.LITTLE_SPIDER_EMPTY_TABLEAU_TAKES,
                                 builds=(ONE_ABOVE_OR_BELOW_WRAPPING,),
                                 leaving=text.ONE_CARD_LEAVING)
UP_HOMECELL = PileKind(text.HOMECELL, text.LITTLE_SPIDER_UP_TAKES, builds=(ONE_ABOVE_IN_SUIT,),
                       leaves=Leave.TOP_CARD_NOT_LAST,
                       leaving=text.LITTLE_SPIDER_HOMECELL_LEAVING, show=Show.SQUARED)
DOWN_HOMECELL = replace(UP_HOMECELL, takes=text.LITTLE_SPIDER_DOWN_TAKES,
                        builds=(ONE_BELOW_IN_SUIT,))

LITTLE_SPIDER_GAME = Game(
    text.LITTLE_SPIDER,
    piles=(PileSpec(UP_HOMECELL, "h1", base=(Card(DIAMONDS, ACE),)),
           PileSpec(UP_HOMECELL, "h2", base=(Card(HEARTS, ACE),)),
           PileSpec(DOWN_HOMECELL, "h3", base=(Card(CLUBS, KING),)),
           PileSpec(DOWN_HOMECELL, "h4", base=(Card(SPADES, KING),)),
           *labelled(LITTLE_SPIDER_TABLEAU, range(1, 9), dealt=6)),
    won=all_on(52, UP_HOMECELL, DOWN_HOMECELL),
    aliases={"h": ("h1", "h2", "h3", "h4")},
    rules=text.LITTLE_SPIDER_RULES,
)


# --- Spider ------------------------------------------------------------------------------

SPIDER_STOCK = PileKind(text.STOCK, text.STOCK_TAKES, leaves=Leave.NEVER,
                        leaving=text.SPIDER_STOCK_LEAVING, show=Show.FACE_DOWN)
SPIDER_TABLEAU = PileKind(text.TABLEAU_PILE, text.SPIDER_TABLEAU_TAKES, builds=(ONE_BELOW,),
                          empty=TAKES_ANY_CARD, leaves=Leave.RUN, leaving=text.SPIDER_RUN,
                          runs=(ONE_BELOW_IN_SUIT,))
SPIDER_SUIT_SETS = {1: (SPADES,), 2: (HEARTS, SPADES), 4: (HEARTS, DIAMONDS, CLUBS, SPADES)}
SPIDER_RUN_SCORE = 100


def is_king_to_ace(cards: tuple) -> bool:
    """A complete sequence: King down to Ace in one suit."""
    return (len(cards) == RANKS and cards[0].rank == KING
            and all(ONE_BELOW_IN_SUIT.allows(below, above) for below, above in zip(cards, cards[1:])))


def remove_complete_runs(position: Position) -> Position:
    """A complete run King to Ace in one suit on top of a pile is removed, +100."""
    for index, pile in enumerate(position.piles):
        if len(pile.face_up) >= RANKS and is_king_to_ace(pile.cards[-RANKS:]):
            position = position.with_pile(index, replace(pile, cards=pile.cards[:-RANKS]))
            position = replace(position, score=position.score + SPIDER_RUN_SCORE,
                               runs_removed=position.runs_removed + 1)
    return position


def spider_deal(game: Game, position: Position):
    """One card from the stock's top onto each tableau pile, left to right; only
    when no tableau pile is empty."""
    stock_index, tableau = game.index("s"), game.indexes(SPIDER_TABLEAU)
    stock = position.piles[stock_index]
    if not stock.cards:
        return Refusal(Reason.STOCK_EMPTY)
    if any(not position.piles[index].cards for index in tableau):
        return Refusal(Reason.EMPTY_PILE_BLOCKS_DEAL)
    dealt = stock.cards[::-1][:len(tableau)]
    position = position.with_pile(stock_index, replace(stock, cards=stock.cards[:-len(dealt)]))
    for index, card in zip(tableau, dealt):
        pile = position.piles[index]
        position = position.with_pile(index, replace(pile, cards=pile.cards + (card,)))
    return after_move(game, position)


def table_empty(game: Game, position: Position) -> bool:
    return not any(pile.cards for pile in position.piles)


def spider(suits: int) -> Game:
    """Spider with 104 cards of 1, 2 or 4 suits: card n has rank n % 13 + 1 and the
    (n // 13)-th of the mode's suits, taken in turn."""
    names = SPIDER_SUIT_SETS[suits]
    return Game(
        text.SPIDER.format(suits=text.SPIDER_SUITS[suits]),
        piles=(PileSpec(SPIDER_STOCK, "s", rest=True),
               *labelled(SPIDER_TABLEAU, range(1, 5), dealt=6, face_up=1),
               *labelled(SPIDER_TABLEAU, range(5, 11), dealt=5, face_up=1)),
        won=table_empty,
        deck=2 * 52,
        card=lambda n: Card(names[n // RANKS % len(names)], n % RANKS + 1),
        settle=remove_complete_runs,
        draw=spider_deal,
        start_score=500,
        move_score=-1,
        rules=text.SPIDER_RULES,
        draw_help=text.SPIDER_DRAW,
    )


# --- FreeCell ----------------------------------------------------------------------------

FREECELL_FREE_CELL = PileKind(text.FREE_CELL, text.FREE_CELL_TAKES, empty=TAKES_ANY_CARD,
                              leaving=text.ONE_CARD_LEAVING, show=Show.SQUARED)
FREECELL_FOUNDATION = PileKind(text.FOUNDATION, text.FOUNDATION_TAKES,
                               text.EMPTY_FOUNDATION_TAKES, builds=(ONE_ABOVE_IN_SUIT,),
                               empty=Empty(ranks=frozenset({ACE})), leaves=Leave.NEVER,
                               leaving=text.FOUNDATION_LEAVING, show=Show.SQUARED)
FREECELL_CASCADE = PileKind(text.CASCADE, text.CASCADE_TAKES, builds=(ONE_BELOW_OTHER_COLOUR,),
                            empty=TAKES_ANY_CARD, leaves=Leave.RUN, leaving=text.CASCADE_RUN,
                            runs=(ONE_BELOW_OTHER_COLOUR,))


def sequence_limit(game: Game, position: Position, move: Move):
    """A sequence moves at once when it has at most (N + 1) × 2^M cards: N empty free
    cells, M empty cascades not counting the destination."""
    empty = [index for index, pile in enumerate(position.piles) if not pile.cards]
    free = sum(1 for index in empty if game.piles[index].kind == FREECELL_FREE_CELL)
    cascades = sum(1 for index in empty
                   if game.piles[index].kind == FREECELL_CASCADE and index != move.destination)
    limit = (free + 1) * 2 ** cascades
    return Refusal(Reason.OVER_LIMIT, move, (limit, free, cascades)) if move.count > limit else None


FREECELL_GAME = Game(
    text.FREECELL,
    piles=(*labelled(FREECELL_FREE_CELL, "abcd"),
           *labelled(FREECELL_FOUNDATION, ("h1", "h2", "h3", "h4")),
           *labelled(FREECELL_CASCADE, range(1, 5), dealt=7),
           *labelled(FREECELL_CASCADE, range(5, 9), dealt=6)),
    won=all_on(52, FREECELL_FOUNDATION),
    aliases={"h": ("h1", "h2", "h3", "h4")},
    move_limit=sequence_limit,
    rules=text.FREECELL_RULES,
)


# --- Curds and Whey ------------------------------------------------------------------------
# Where docs/patience.md is silent, as PySolFC's pysollib/games/curdsandwhey.py: an empty
# pile takes any unit led by a King (its CurdsAndWhey_RowStack checks only the first card
# against base_rank=KING), so a group of Kings too.

CURDS_TABLEAU = PileKind(text.TABLEAU_PILE, text.CURDS_TAKES, text.CURDS_EMPTY_TAKES,
                         builds=(ONE_BELOW_IN_SUIT, SAME_RANK_OTHER_SUIT),
                         empty=Empty(ranks=frozenset({KING})),
                         leaves=Leave.RUN, leaving=text.CURDS_RUN,
                         runs=(ONE_BELOW_IN_SUIT, SAME_RANK_OTHER_SUIT), runs_of_one_kind=True)


def four_suit_sequences(game: Game, position: Position) -> bool:
    """The table shows four piles, each King down to Ace in one suit: every pile with cards
    is one (all 52 cards stay on the table, so there are then four)."""
    return all(is_king_to_ace(pile.cards) for pile in position.piles if pile.cards)


CURDS_AND_WHEY_GAME = Game(
    text.CURDS_AND_WHEY,
    piles=labelled(CURDS_TABLEAU, range(1, 14), dealt=4),
    won=four_suit_sequences,
    rules=text.CURDS_AND_WHEY_RULES,
)


# --- By name -------------------------------------------------------------------------------

GAMES = {
    "golf": GOLF_GAME,
    "little-spider": LITTLE_SPIDER_GAME,
    "spider": spider(4),
    "freecell": FREECELL_GAME,
    "curds-and-whey": CURDS_AND_WHEY_GAME,
}
ALIASES = {"littlespider": "little-spider", "free-cell": "freecell",
           "curds": "curds-and-whey", "curdsandwhey": "curds-and-whey"}


def dealt(name: str, seed: int = None, ms: int = None, suits: int = 4) -> tuple:
    """The game `name` and its first position: Microsoft's deal `ms` (FreeCell), or
    the deck shuffled by `seed`; Spider with `suits` suits."""
    game = spider(suits) if name == "spider" else GAMES[name]
    cards = ms_deck(ms) if ms is not None else [
        game.card(number) for number in shuffled(range(game.deck), seed)]
    return game, deal(game, cards)
