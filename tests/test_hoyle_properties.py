"""Properties over random play (hypothesis): the rules keep every card somewhere and the score
honest; the console, fed random token streams in-process, never raises, never loops without
reading, and prints the score the board holds."""

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from hoyle.cin import Cin
from hoyle.model import DECK, Game, IllegalMove, foundation_ranks, rank
from hoyle.session import Session
from tests.test_hoyle_session import Lines

def cards_of(game: Game) -> list:
    held = [] if game.held is None else [game.held]
    return [*game.stock, *sum(game.foundations, ()), *sum(game.waste_piles, ()), *held]


def assert_every_card_once(game: Game) -> None:
    assert sorted(cards_of(game)) == sorted(DECK)


# --- The rules, move by move --------------------------------------------------------

class Moves(RuleBasedStateMachine):
    """Random moves, legal or not; the test keeps its own count of where the cards went."""

    @initialize(data=st.data())
    def start(self, data):
        self.game = Game()
        for foundation, step in enumerate((1, 2, 3, 4)):
            card = data.draw(st.sampled_from([card for card in DECK if rank(card) == step]))
            self.game = self.game.start(foundation, card)
        self.drawn = self.to_waste = self.from_waste = 0

    @rule(number=st.integers(-3, 55))
    def draw(self, number):
        if self.game.held is None and self.game.check_draw(number) is None:
            self.game = self.game.draw(number)
            self.drawn += 1
        else:
            self.refused(self.game.draw, number)

    @precondition(lambda self: self.game.held is not None)
    @rule(foundation=st.integers(0, 3))
    def play_on_foundation(self, foundation):
        if self.game.accepts(foundation, self.game.held):
            self.game = self.game.play_on_foundation(foundation)
        else:
            self.refused(self.game.play_on_foundation, foundation)

    @rule(pile=st.integers(0, 3))
    def play_on_waste_pile(self, pile):
        if self.game.held is None:
            self.refused(self.game.play_on_waste_pile, pile)
        else:
            self.game = self.game.play_on_waste_pile(pile)
            self.to_waste += 1

    @rule(pile=st.integers(0, 3), foundation=st.integers(0, 3))
    def move(self, pile, foundation):
        if self.game.can_move(pile, foundation):
            self.game = self.game.move(pile, foundation)
            self.from_waste += 1
        else:
            self.refused(self.game.move, pile, foundation)

    def refused(self, move, *arguments):
        before = self.game
        try:
            move(*arguments)
        except IllegalMove:
            assert self.game == before
        else:
            raise AssertionError(f"{move.__name__}{arguments} was allowed")

    @invariant()
    def every_card_is_somewhere_once(self):
        assert_every_card_once(self.game)

    @invariant()
    def the_score_is_the_waste_cards_plus_the_undrawn_cards(self):
        assert self.game.score == (48 - self.drawn) + (self.to_waste - self.from_waste)

    @invariant()
    def foundations_are_built_by_their_step(self):
        for foundation, cards in enumerate(self.game.foundations):
            assert tuple(map(rank, cards)) == foundation_ranks(foundation + 1)[:len(cards)]


Moves.TestCase.settings = settings(max_examples=150, stateful_step_count=60, deadline=None, database=None)
TestMoves = Moves.TestCase


# --- The console, fed random token streams ------------------------------------------

CARDS, PILES = st.integers(0, 51), st.integers(1, 4)


def draw_and_play(card: int, where: bytes, pile: int) -> bytes:
    return b"1 %d 1 %s %d" % (card, where, pile)


def early_foundation_play(foundation: int, built: int, suit: int) -> bytes:
    """Draw a card of the rank a foundation holding `built` cards needs, and play it there."""
    return draw_and_play(13 * suit + foundation_ranks(foundation)[built] - 1, b"f", foundation)


MOVES = st.one_of(  # whole answers to a turn, so that random games get somewhere
    st.builds(draw_and_play, CARDS, st.sampled_from([b"f", b"w", b"F", b"W"]), PILES),
    st.builds(early_foundation_play, PILES, st.integers(1, 4), st.integers(0, 3)),
    st.tuples(PILES, PILES).map(lambda move: b"2 %d %d" % move),
    PILES.map(lambda pile: b"3 %d" % pile),
    st.sampled_from([b"-1 n 1 y 13 27 28 42", b"-1 y 0 1 2 3", b"-1 Y 39 40 41 42", b"-1 n 2 1 1 y 0 14 28 42"]),
)
TOKENS = st.one_of(
    MOVES, MOVES, MOVES,
    st.integers(-2, 53).map(lambda number: str(number).encode()),
    st.integers(1, 4).map(lambda number: str(number).encode()),
    st.sampled_from([b"y", b"n", b"Y", b"N", b"f", b"w", b"F", b"W", b"yes", b"no", b"-1", b"1", b"2", b"3"]),
    st.sampled_from([b"abc", b"+", b"-", b"+-1", b"2x", b"007", b"+3", b"99999999999", b"-99999999999",
                     "é".encode(), b"\xff", b"\x00", b"9" * 5000]),
    st.binary(min_size=1, max_size=4),
)
SEPARATORS = st.sampled_from([b"\n", b" ", b"\t", b"\r\n", b"\x0b", b"\x0c", b"\n\n", b"  \n"])
PREAMBLES = st.sampled_from([b"", b"1\ny\n13 27 28 42\n", b"2\n1\n1\ny\n0 1 2 3\n", b"1 y 26 40 2 16\n"])
CONSOLE_SETTINGS = settings(max_examples=250, deadline=None, database=None,
                            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SCORE_LINE = re.compile(r"(?:You Won!|Game Over!) You scored (\d+) points\.\n")


@st.composite
def token_streams(draw) -> bytes:
    tokens = draw(st.lists(st.tuples(TOKENS, SEPARATORS), min_size=20, max_size=250))
    stream = draw(PREAMBLES) + b"".join(token + separator for token, separator in tokens)
    return stream.rstrip(b"\n") if draw(st.booleans()) else stream


@CONSOLE_SETTINGS
@given(stdin=token_streams())
def test_random_token_streams_play_without_error_and_score_what_the_board_holds(stdin, tmp_path_factory):
    stats = tmp_path_factory.mktemp("stats") / "hoyle_stats.txt"
    lines = Lines(stdin)
    line_count = len(lines.lines)
    fetched, writes, printed_scores = [], [], []
    most_writes = 50 * (len(stdin) + 10)  # every read prints a bounded amount: more means a loop

    def next_line():
        fetched.append(1)
        assert len(fetched) <= line_count + 1, "a line asked for after the end of input"
        return lines()

    def write(text):
        assert isinstance(text, str)
        text.encode("utf-8")
        writes.append(text)
        assert len(writes) <= most_writes, "output without reading"
        scored = SCORE_LINE.fullmatch(text)
        if scored:
            game = session.game
            assert_every_card_once(game)
            waste_cards = sum(len(pile) for pile in game.waste_piles)
            assert int(scored[1]) == waste_cards + len(game.stock)
            printed_scores.append(scored[1])

    session = Session(Cin(next_line), write, str(stats))
    session.run()
    written = stats.read_text() if stats.exists() else ""
    assert written == "".join(f"{score}\n" for score in printed_scores)
