"""The solver behind `hint` and `solve` (patience_games/solver.py), by example:
hand-built positions with an obvious win or none, lines replayed on the engine
move by move, the budget, the table of positions seen, and Golf deals: some
known lost, and a sample of 200 against the published rate of winnable deals."""

import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import pytest

from patience_games.cards import numbered
from patience_games.engine import Pile, Position, Refusal, draw, play, refusal
from patience_games.games import (
    CURDS_AND_WHEY_GAME as CURDS, FREECELL_GAME as FREECELL, GOLF_GAME as GOLF,
    LITTLE_SPIDER_GAME as LITTLE_SPIDER, dealt, spider)
from patience_games.solver import (
    DRAW, GAVE_UP, LOST, WON, Outcome, follow, hint, position_key, solve)
from tests.test_patience_engine import cards, move, pile, position

SPIDER_1 = spider(1)


def golf_deal(seed: int) -> Position:
    """Deal `seed` as `patience.py golf --seed` deals it."""
    return dealt("golf", seed=seed)[1]


def replayed(game, start: Position, line: tuple) -> Position:
    """Each step of the line, checked legal by the engine, then made by the engine."""
    position = start
    for step in line:
        if step is DRAW:
            position = draw(game, position)
            assert not isinstance(position, Refusal), step
        else:
            assert refusal(game, position, step) is None, step
            position = play(game, position, step)
    return position


def golf_with(homecell: str, piles: dict) -> Position:
    """A Golf position holding all 52 cards: `piles` by label (bottom card first),
    the homecell's top cards `homecell`, and every other card below them on the
    homecell."""
    named = set(cards(homecell + " " + " ".join(piles.values())))
    below = tuple(card for card in map(numbered, range(52)) if card not in named)
    return position(GOLF, {**piles, "h": Pile(below + cards(homecell))})


# --- Golf by hand -----------------------------------------------------------------------------

def test_a_nearly_won_golf_position_is_won_by_the_obvious_line():
    # 6H and 7C go up from the 5D; then the stock's 8D ends the game.
    start = golf_with("5D", {"1": "7C 6H", "s": "8D"})
    outcome = solve(GOLF, start)
    assert outcome.verdict == WON
    assert outcome.line == (move(GOLF, "1", "h"), move(GOLF, "1", "h"), DRAW)
    assert GOLF.won(GOLF, replayed(GOLF, start, outcome.line))


def test_a_won_position_needs_no_move():
    assert solve(GOLF, golf_with("5D", {})) == Outcome(WON, (), 0)


def test_a_dead_golf_position_is_lost_when_the_whole_tree_is_searched():
    # The 6S goes on the 5D and nothing follows it; drawing the 2C first lets the
    # 3H and then the 4C go, and nothing follows them: the 7H waits for a 6 or an 8.
    start = golf_with("5D", {"1": "4C 6S", "2": "7H 3H", "s": "2C"})
    outcome = solve(GOLF, start)
    assert (outcome.verdict, outcome.line) == (LOST, ())


def test_each_tableau_card_needs_a_card_of_its_own_to_go_onto():
    # Four Sevens wait on the tableau; the only Sixes and Eights left to play them
    # on are the 6H and 8S, two of them: each card goes on one card only.
    start = golf_with("KC", {"1": "7C 6H 7S", "2": "7D 8S 7H", "s": "QD"})
    assert solve(GOLF, start) == Outcome(LOST, (), 0)
    # The 6H and the 4C both need the 5D, which takes one of them.
    assert solve(GOLF, golf_with("5D", {"1": "9C 6H", "2": "8S 4C"})) == Outcome(LOST, (), 0)


def test_a_card_never_goes_onto_a_card_below_it_in_its_pile():
    # The 5H could go on the 4C or the 6S, but both lie under it: they are still
    # there when the 5H leaves, and the 5D takes neither Five.
    assert solve(GOLF, golf_with("5D", {"1": "6S 4C 5H"})) == Outcome(LOST, (), 0)


def test_cards_apart_from_the_rest_need_a_head_of_their_own():
    # Between two draws the cards played go one onto the other, by ranks in a row;
    # with no Five left on the tableau, the Threes-and-Fours and the Six are apart,
    # and only the homecell's 5D starts a line of play (no stock is left).
    assert solve(GOLF, golf_with("5D", {"1": "4C 6S", "2": "3H"})) == Outcome(LOST, (), 0)


def test_hint_gives_the_first_step_of_a_winning_line():
    start = golf_with("5D", {"1": "7C 6H", "s": "8D"})
    assert hint(GOLF, start) == Outcome(WON, (move(GOLF, "1", "h"),), solve(GOLF, start).nodes)
    assert hint(GOLF, golf_with("5D", {"1": "9C 6H", "2": "8S 4C"})).verdict == LOST


def test_follow_makes_a_step_or_gives_the_engines_refusal():
    start = golf_with("5D", {"1": "7C 6H", "s": "8D"})
    assert follow(GOLF, start, move(GOLF, "1", "h")) == play(GOLF, start, move(GOLF, "1", "h"))
    assert follow(GOLF, start, DRAW) == draw(GOLF, start)
    assert isinstance(follow(GOLF, start, move(GOLF, "h", "1")), Refusal)


# --- The budget -------------------------------------------------------------------------------

# Winning a deal takes 52 steps (17 draws, 35 cards played), each made from a
# position expanded: with a budget under 52 no deal is won, and seed 2 (won, see
# the sample below) cannot be proven lost.
@pytest.mark.parametrize("budget", [0, 1, 10, 50])
def test_the_budget_of_positions_expanded_is_honoured(budget):
    outcome = solve(GOLF, golf_deal(2), budget)
    assert outcome == Outcome(GAVE_UP, (), budget)


def test_hint_says_when_the_search_gave_up():
    assert hint(GOLF, golf_deal(2), 50) == Outcome(GAVE_UP, (), 50)


# --- The other games: the lines found are the engine's ------------------------------------------

def test_little_spider_nearly_won():
    homecells = {"h1": "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
                 "h2": "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
                 "h3": "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
                 "h4": "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"}
    start = position(LITTLE_SPIDER, {**homecells, "1": "AC KH", "2": "KD", "3": "AS"})
    outcome = solve(LITTLE_SPIDER, start)
    assert outcome.verdict == WON and len(outcome.line) == 4  # each card goes up once
    assert LITTLE_SPIDER.won(LITTLE_SPIDER, replayed(LITTLE_SPIDER, start, outcome.line))


def test_curds_and_whey_moves_a_run_of_two():
    start = position(CURDS, {"1": "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H", "2": "2H AH",
                             "3": "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D AD",
                             "4": "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C AC",
                             "5": "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S AS"})
    outcome = solve(CURDS, start)
    assert outcome.line == (move(CURDS, "2", "1", 2),)
    assert CURDS.won(CURDS, replayed(CURDS, start, outcome.line))


def test_freecell_nearly_won():
    up_to_queen = " 2{s} 3{s} 4{s} 5{s} 6{s} 7{s} 8{s} 9{s} T{s} J{s} Q{s}"
    foundations = {label: ("A{s}" + up_to_queen).format(s=suit)
                   for label, suit in zip(("h1", "h2", "h3", "h4"), "HDCS")}
    start = position(FREECELL, {**foundations, "1": "KD KC", "a": "KS", "5": "KH"})
    outcome = solve(FREECELL, start)
    assert outcome.verdict == WON and len(outcome.line) == 4  # each King goes up once
    assert FREECELL.won(FREECELL, replayed(FREECELL, start, outcome.line))


def test_spider_turns_up_a_card_and_removes_a_run():
    # The AS goes to an empty pile, which turns up the 2S; the 2S goes on the 3S and
    # the AS on it: the run King to Ace is removed and the table is empty.
    start = Position((pile(""), pile("KS QS JS TS 9S 8S 7S 6S 5S 4S 3S"), pile("2S AS", down=1))
                     + (pile(""),) * 8, 500)
    outcome = solve(SPIDER_1, start)
    assert outcome.verdict == WON and len(outcome.line) == 3
    assert follow(SPIDER_1, start, outcome.line[0]).piles[2] == pile("2S")  # turned up
    won = replayed(SPIDER_1, start, outcome.line)
    assert SPIDER_1.won(SPIDER_1, won) and won.runs_removed == 1


def test_a_spider_deal_is_won_dealing_the_whole_stock_and_its_line_replays():
    # Every card must end in a removed run, so a win deals all five rows of the stock.
    start = dealt("spider", seed=1, suits=1)[1]
    outcome = solve(SPIDER_1, start, 5_000)
    assert outcome.verdict == WON and outcome.line.count(DRAW) == 5
    assert SPIDER_1.won(SPIDER_1, replayed(SPIDER_1, start, outcome.line))


# --- The table of positions seen ------------------------------------------------------------------

def test_golf_homecell_counts_by_its_size_and_top_rank():
    # Cards never leave the homecell and it builds whatever the suits: below the top
    # card, and the top card's suit, change nothing to come.
    one = position(GOLF, {"1": "9C", "h": "4C 5D 6H 7C"})
    other = position(GOLF, {"1": "9C", "h": "6H 5D 4C 7S"})
    assert position_key(GOLF, one) == position_key(GOLF, other)
    another_top = position(GOLF, {"1": "9C", "h": "4C 5D 7C 6H"})
    assert position_key(GOLF, one) != position_key(GOLF, another_top)


def test_freecell_free_cells_and_cascades_are_interchangeable():
    one = position(FREECELL, {"a": "KS", "1": "9H 8C", "2": "QD"})
    other = position(FREECELL, {"c": "KS", "2": "9H 8C", "7": "QD"})
    assert position_key(FREECELL, one) == position_key(FREECELL, other)


def test_spider_piles_are_interchangeable_only_once_the_stock_is_dealt():
    # Spider's deal puts one card on each pile in board order: while the stock holds
    # cards, which pile is which matters.
    def spider_position(stock, first, second):
        piles = [pile(stock), pile(first), pile(second)] + [pile("KS")] * 8
        return Position(tuple(piles), 500)

    assert position_key(SPIDER_1, spider_position("", "5S", "9S")) == position_key(
        SPIDER_1, spider_position("", "9S", "5S"))
    assert position_key(SPIDER_1, spider_position("AS", "5S", "9S")) != position_key(
        SPIDER_1, spider_position("AS", "9S", "5S"))


def test_the_score_is_not_part_of_a_position_for_the_search():
    start = Position((pile(""), pile("5S"), pile("9S")) + (pile("KS"),) * 8, 500)
    assert position_key(SPIDER_1, start) == position_key(SPIDER_1, replace(start, score=321))


# --- Golf deals ---------------------------------------------------------------------------------

# Lost, each confirmed by a full search of a separate model of Golf's rules written
# without the solver's dead-end rule. Seed 723's proof is small for any sound
# search (that model: 26,000 positions), so it must be found; seeds 42 and 74
# need more than the budget may allow, but must never be WON.
@pytest.mark.parametrize("seed, budget, proven", [(723, 30_000, True), (74, 20_000, False),
                                                  (42, 20_000, False)])
def test_golf_deals_known_lost_are_never_won(seed, budget, proven):
    outcome = solve(GOLF, golf_deal(seed), budget)
    assert outcome.verdict in ((LOST,) if proven else (LOST, GAVE_UP)), (seed, outcome.verdict)


def replays_to_a_win(game, start: Position, line: tuple) -> bool:
    """Is each step legal by the engine, and the last position won?"""
    position = start
    for step in line:
        position = follow(game, position, step)
        if isinstance(position, Refusal):
            return False
    return game.won(game, position)


SAMPLE = range(1, 121)  # seeds, dealt as `patience.py golf --seed N` deals them: enough that
# the level's acceptance keeps an upper bound (from 112 deals on); seeds 1-200 took 118 s
# of CPU, these 68.
# Positions per deal: about the least that leaves no more than 5% undecided (5 of
# the 120; of seeds 1-200, 9 at 80,000 and 11 at 75,000), each costing some 5.5 s.
SAMPLE_BUDGET = 80_000


def sample_verdict(seed: int) -> tuple:
    """(seed, verdict, does a won line replay to a win)."""
    start = golf_deal(seed)
    outcome = solve(GOLF, start, SAMPLE_BUDGET)
    return seed, outcome.verdict, (
        outcome.verdict != WON or replays_to_a_win(GOLF, start, outcome.line))


def two_sided_binomial(count: int, deals: int, rate: float) -> float:
    """The two-sided p-value of `count` successes in `deals` trials of probability
    `rate`: twice the smaller exact tail (math.comb), at most 1."""
    def probability(k):
        return math.comb(deals, k) * rate ** k * (1 - rate) ** (deals - k)
    below = sum(probability(k) for k in range(count + 1))
    above = sum(probability(k) for k in range(count, deals + 1))
    return min(1.0, 2 * min(below, above))


KNOWN_RATES = [rate / 1000 for rate in range(910, 935)]  # 92.2% +- 1.2%, per mille
LEVEL = 0.001


def test_golf_deals_are_won_at_the_known_rate():
    """Golf with King-Ace wrap-around, as ours, is won on 92.2% +- 1.2% of random
    deals (black-hole-solver). The sample's count of winnable deals is known only to
    lie between the deals won and those won or undecided; the test passes when some
    count there and some rate in 91.0%..93.4% agree at the two-sided level 0.001.
    It catches a solver that misses many wins or proves winnable deals lost, a Golf
    whose rules drifted (without wrap-around, seeds 1-100 gave 39 won and 37 proven
    lost), and, by replaying each won line on the engine, a win by an illegal step.
    With 120 deals the level accepts 98 to 119 winnable deals: it guards against
    gross errors, not a deal or two."""
    with ProcessPoolExecutor(os.cpu_count()) as pool:
        verdicts = list(pool.map(sample_verdict, SAMPLE))
    illegal = [seed for seed, _, replays in verdicts if not replays]
    assert not illegal, f"won lines that do not replay to a win, seeds {illegal}"
    won = sum(verdict == WON for _, verdict, _ in verdicts)
    undecided = [seed for seed, verdict, _ in verdicts if verdict == GAVE_UP]
    lost = [seed for seed, verdict, _ in verdicts if verdict == LOST]
    deals = len(SAMPLE)
    numbers = (f"{deals} deals: {won} won, lost {lost}, undecided {undecided} "
               f"(budget {SAMPLE_BUDGET:,} positions)")
    assert len(undecided) <= deals * 0.05, f"too many undecided to judge: {numbers}"
    agreeing = [(count, rate) for count in range(won, won + len(undecided) + 1)
                for rate in KNOWN_RATES if two_sided_binomial(count, deals, rate) >= LEVEL]
    assert agreeing, f"no winnable count agrees with 92.2% +- 1.2% at level {LEVEL}: {numbers}"
