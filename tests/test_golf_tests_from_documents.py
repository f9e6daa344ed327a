"""A team of golf_tests that has only what teams receive, the student pack and the
handouts, read as text here: docs/patience.md's deal and rules, docs/solitaire_2.md's card
characters, the worked examples' boards and docs/golf_tests.md's console (its help, its
refusals and messages). It plays its own deals with a model of the two games written from
them (checked first against the worked examples' every screen), and writes one case per
mistake each group names; the marker finds every case valid and counted, and every
mistake caught. No reference program is run to write a case."""

import heapq
import json
import random
import re
import shutil

import pytest

from exactmark.kit.cases import ROOT
from exactmark.kit.assignment import load
from exactmark.pack.build import contents
from tests.test_mark import mark

GOLF_TESTS = load("golf_tests")
GOLF, LITTLE_SPIDER = GOLF_TESTS.student_groups("patience")
PACK = {path: data.decode("utf-8") for path, data in contents(GOLF_TESTS).items()
        if path.startswith("expected_outputs/")}
HANDOUT = (ROOT / "docs" / "golf_tests.md").read_text(encoding="utf-8")
RULES = (ROOT / "docs" / "patience.md").read_text(encoding="utf-8")
CARDS = (ROOT / "docs" / "solitaire_2.md").read_text(encoding="utf-8")
TAKEN = {"golf": 1, "little_spider": 5}  # the worked examples' deals: counted for nothing
HEARTS, DIAMONDS, CLUBS, SPADES = range(4)
RED = (HEARTS, DIAMONDS)
WIDTH = 16  # the board's labels, as the worked examples pad them
WON = PACK["expected_outputs/patience/golf_won_seed_1.out"].splitlines()[-1]  # its last line
GAME_WORD = {game: PACK[f"expected_outputs/patience/{example}.args"].splitlines()[0]
             for game, example in (("golf", "golf_won_seed_1"),
                                   ("little_spider", "little_spider_won_seed_5"))}
CONSOLE = HANDOUT[HANDOUT.index("## The console"):HANDOUT.index("## How your cases are marked")]


def shown(phrase: str) -> str:
    """The one line of the handout's console that holds `phrase`."""
    found = [line for line in CONSOLE.splitlines() if phrase in line]
    assert len(found) == 1, (phrase, found)
    return found[0]


def character(card: int) -> str:
    """docs/solitaire_2.md: chr(base[suit] + (r if r <= 11 else r + 1)), docs/patience.md's
    numbering (0-12 Hearts, 13-25 Diamonds, 26-38 Clubs, 39-51 Spades, Ace to King)."""
    assert "base Hearts U+1F0B0,\nDiamonds U+1F0C0, Clubs U+1F0D0, Spades U+1F0A0" in CARDS
    base = {HEARTS: 0x1F0B0, DIAMONDS: 0x1F0C0, CLUBS: 0x1F0D0, SPADES: 0x1F0A0}[card // 13]
    return chr(base + (rank(card) if rank(card) <= 11 else rank(card) + 1))


def rank(card: int) -> int:
    return card % 13 + 1


def next_to(a: int, b: int) -> bool:
    """One rank above or below, King and Ace wrapping."""
    return (rank(a) - rank(b)) % 13 in (1, 12)


def shuffled(seed: int) -> list:
    assert "Deals: `cards = list(range(52)); seed(n); shuffle(cards)`" in RULES
    cards = list(range(52))
    random.seed(seed)
    random.shuffle(cards)
    return cards


class Game:
    """A position and the transcript so far, as the worked examples print it."""

    def __init__(self, game: str, seed: int):
        self.game, self.seed, self.over, self.commands = game, seed, False, []
        deck = shuffled(seed)
        if game == "golf":
            self.piles = [[] for _ in range(7)]
            for _ in range(5):  # row by row, from the top: the last element
                for pile in self.piles:
                    pile.append(deck.pop())
            self.stock, self.homecells = deck, [[]]
            title = f"Golf, seed {seed}"
        else:
            self.homecells = [[card] for card in (13, 0, 38, 51)]  # A♦, A♥, K♣, K♠
            deck = [card for card in deck if card not in (13, 0, 38, 51)]
            self.piles = [[] for _ in range(8)]
            for _ in range(6):
                for pile in self.piles:
                    pile.append(deck.pop())
            self.stock = None
            title = f"Little Spider, seed {seed}"
        self.out = f"{title}\nType help for the commands.\n\n{self.board()}> "

    def board(self) -> str:
        lines = []
        if self.stock is not None:
            lines.append(("stock s:".ljust(WIDTH) + "]" * len(self.stock)).rstrip())
        for number, cell in enumerate(self.homecells, 1):
            label = "homecell h:" if len(self.homecells) == 1 else f"homecell h{number}:"
            lines.append((label.ljust(WIDTH) + "[" * (len(cell) - 1)
                          + (character(cell[-1]) if cell else "")).rstrip())
        for number, pile in enumerate(self.piles, 1):
            lines.append(f"tableau pile {number}: " + " ".join(map(character, pile)))
        return "\n".join(line.rstrip() for line in lines) + "\n"

    def won(self) -> bool:
        return sum(map(len, self.homecells)) == 52

    def legal(self, source: str, target: str):
        """The card a move takes and the list it goes on, or None."""
        if self.game == "golf":
            if target != "h":
                return None
            if source in ("s", "d"):
                return (self.stock, self.homecells[0]) if self.stock else None
            pile = self.piles[int(source) - 1]
            home = self.homecells[0]
            return (pile, home) if pile and home and next_to(pile[-1], home[-1]) else None
        from_ = (self.homecells[int(source[1]) - 1] if source.startswith("h")
                 else self.piles[int(source) - 1])
        if not from_ or (source.startswith("h") and len(from_) == 1):
            return None
        card = from_[-1]
        if target.startswith("h"):
            home = self.homecells[int(target[1]) - 1]
            suit, step = home[-1] // 13, 1 if home[-1] // 13 in RED else -1
            ok = card // 13 == suit and rank(card) == rank(home[-1]) + step
            return (from_, home) if ok else None
        pile = self.piles[int(target) - 1]
        return (from_, pile) if pile and next_to(card, pile[-1]) else None

    def move(self, command: str) -> "Game":
        """A legal move, played and printed: an empty line, the board, the win."""
        source, target = ("s", "h") if command == "d" else command.split()
        found = self.legal(source, target)
        assert found and not self.over, (self.seed, command)
        found[1].append(found[0].pop())
        self.out += "\n" + self.board()
        self.commands.append(command)
        if self.won():
            self.out, self.over = self.out + WON + "\n", True
        else:
            self.out += "> "
        return self

    def says(self, command: str, line: str) -> "Game":
        """A command that leaves the board as it is, and what it prints: why a move is
        refused, the help."""
        self.commands.append(command)
        self.out += line + "\n> "
        return self

    def case(self, end: str = "quit") -> dict:
        """The case's files: quit, or the end of input (then a line end)."""
        typed = self.commands + ([end] if end == "quit" else [])  # after a win: not read
        out = self.out + ("\n" if end == "eof" and not self.over else "")
        return {"args": f"{GAME_WORD[self.game]}\n--seed\n{self.seed}\n", "in": "".join(
            f"{command}\n" for command in typed), "out": out, "status": "0\n", "err": ""}


def test_the_model_plays_the_worked_examples_screen_for_screen():
    """The team's model, written from the handouts, prints every screen of the pack's two
    worked examples: what it writes of its own deals is written as they are."""
    for game, example in (("golf", "golf_won_seed_1"),
                          ("little_spider", "little_spider_won_seed_5")):
        folder = "expected_outputs/patience/"
        played = Game(game, TAKEN[game])
        for command in PACK[f"{folder}{example}.in"].splitlines():
            source, _, target = command.partition(" ")
            if game == "little_spider" and target == "h":  # `h`: the homecell that takes it
                target = next(f"h{n}" for n in range(1, 5)
                              if played.legal(source, f"h{n}"))
            played.move(command if command == "d" else f"{source} {target}")
        assert played.out == PACK[f"{folder}{example}.out"], example


def block(after: str) -> str:
    """The handout console's code block that follows the words `after`, without its last
    line end."""
    text = CONSOLE[CONSOLE.index(after):]
    return text[text.index("```\n") + 4:text.index("\n```", text.index("```\n") + 4)]


def with_card(line: str, card: int, pile: str = None) -> str:
    """A refusal the handout prints for one card (and pile), said of another."""
    line = re.sub("^[\U0001F0A0-\U0001F0FF]", character(card), line)
    return re.sub(r"(tableau pile \d+|homecell h\d)(?=[:.])", pile, line, count=1) if pile else line


def golf_won(game: Game):
    """A winning line of Golf that clears the tableau with cards left in the stock (each
    then goes on with `d`), found by a search over the rules: the commands, or None."""
    piles, stock, seen = game.piles, game.stock, set()

    def search(top, heights, left, path):
        if not any(heights):
            return path + ["d"] * left if left else None
        if (top, heights, left) in seen or len(seen) > 50_000:
            return None
        seen.add((top, heights, left))
        for number, height in enumerate(heights):
            if height and top is not None and next_to(piles[number][height - 1], top):
                found = search(piles[number][height - 1],
                               heights[:number] + (height - 1,) + heights[number + 1:], left,
                               path + [f"{number + 1} h"])
                if found:
                    return found
        return search(stock[left - 1], heights, left - 1, path + ["d"]) if left else None
    return search(None, tuple(map(len, piles)), len(stock), [])


def blocked(piles, homes) -> int:
    """How far a position of Little Spider is from the win: the cards not on the homecells,
    and those lying on each homecell's next card."""
    score = 3 * (52 - sum(map(len, homes)))
    for home in homes:
        top = home[-1]
        step = 1 if top // 13 in RED else -1
        if rank(top) == (13 if step == 1 else 1):
            continue
        wanted = top + step
        for pile in piles:
            if wanted in pile:
                score += len(pile) - 1 - pile.index(wanted)
    return score


def spider_won(game: Game):
    """A winning line of Little Spider, found by a best-first search over the rules (the
    most cards on the homecells first): the commands, or None."""
    start = (tuple(map(tuple, game.piles)), tuple(map(tuple, game.homecells)))
    try:
        return _best_first(game, start)
    finally:
        game.piles, game.homecells = list(map(list, start[0])), list(map(list, start[1]))


def _best_first(game: Game, start: tuple):
    queue, seen, count = [(0, 0, start, ())], {start}, 0
    while queue and count < 100_000:
        _, _, (piles, homes), path = heapq.heappop(queue)
        if sum(map(len, homes)) == 52:
            return list(path)
        game.piles, game.homecells = list(map(list, piles)), list(map(list, homes))
        labels = [str(number) for number in range(1, 9)] + [f"h{home}" for home in range(1, 5)]
        for source in labels:
            for target in labels:
                if source == target or source[0] == target[0] == "h":
                    continue
                found = game.legal(source, target)
                if not found:
                    continue
                found[1].append(found[0].pop())
                after = (tuple(map(tuple, game.piles)), tuple(map(tuple, game.homecells)))
                found[0].append(found[1].pop())
                if after not in seen:
                    seen.add(after)
                    count += 1
                    heapq.heappush(queue, (blocked(*after) + len(path) // 4, -count, after,
                                           path + (f"{source} {target}",)))
    return None


# The console, as the handout gives it: each line said for one card and pile.
STOCK_TAKES = shown("cannot go on stock s:")
GOLF_TABLEAU_TAKES = shown("cards are never added to a tableau pile in Golf")
GOLF_RANKS = shown("cannot go on homecell h: a tableau pile's top card")
GOLF_EMPTY_HOMECELL = shown("only the stock's top card goes on the empty homecell")
GOLF_HOMECELL_KEEPS = shown("No card may leave homecell h")
NO_UNDO = shown("There is no move to undo.")
SAME_PILE = shown("The cards are already on")
SPIDER_TABLEAU_TAKES = shown("a card goes on a tableau pile when its rank")
SPIDER_EMPTY_TAKES = shown("an empty tableau pile takes nothing.")
SPIDER_RED_TAKES = shown("cannot go on homecell h1: a Heart or Diamond")
SPIDER_BLACK_TAKES = shown("cannot go on homecell h3: a Club or Spade")
SPIDER_LAST_STAYS = shown("The last card of homecell h1 stays")
HELP = {"golf": block("`help` (or `?`) prints in Golf:"),
        "little_spider": block("and in Little Spider:")}
USAGE = block("such as:") + "\n"
# The seeds a search over the rules found wins on quickly (docs/golf_tests.md: deals of
# your own); the wins themselves are found here.
GOLF_WINS, SPIDER_WINS = (7, 12, 14, 16, 17), (18, 19, 14, 16, 7, 17)


def tops(game: Game) -> dict:
    """label -> the top card of each tableau pile that has one."""
    return {str(number): pile[-1] for number, pile in enumerate(game.piles, 1) if pile}


def one_of(seeds, game: str, play):
    """The first deal of `seeds` on which `play` (a fresh game -> the game played, or None
    where the deal does not fit) plays."""
    for seed in seeds:
        played = play(Game(game, seed))
        if played is not None:
            return played
    raise AssertionError(f"no deal of {game} fits")


def draw_then(fits):
    """Golf: `d`, then the first tableau top card that `fits` (card, homecell top) onto the
    homecell."""
    def play(game):
        game.move("d")
        found = next((label for label, card in tops(game).items()
                      if next_to(card, game.homecells[0][-1])
                      and fits(card, game.homecells[0][-1])), None)
        return game.move(f"{found} h") if found else None
    return play


def won(game: Game, line) -> Game:
    for command in line or ():
        game.move(command)
    return game if line else None


def emptied(game: Game, line, then):
    """Along a winning line, the first position with an empty tableau pile where `then`
    (the game, the empty pile's label) plays."""
    for command in line or ():
        game.move(command)
        empty = next((label for label, pile in enumerate(game.piles, 1) if not pile), None)
        if empty is not None:
            played = then(game, str(empty))
            if played is not None:
                return played
    return None


def golf_cases() -> dict:
    """One case of Golf per mistake the group names, each on a deal of its own."""
    seeds = iter(seed for seed in range(2, 10_000) if seed != TAKEN["golf"]
                 and seed not in GOLF_WINS)
    deal = lambda: Game("golf", next(seeds))
    first = lambda fits: one_of(seeds, "golf", draw_then(fits))
    wins = iter(GOLF_WINS)
    win = lambda: one_of(wins, "golf", lambda game: won(game, golf_won(game)))

    def stock_refuses(game):
        for _ in range(len(game.stock)):
            game.move("d")
        return game.says("1 s", with_card(STOCK_TAKES, game.piles[0][-1]))

    def empty_pile_refuses(game, empty):
        label, card = next(iter(tops(game).items()))
        return game.says(f"{label} {empty}", with_card(GOLF_TABLEAU_TAKES, card,
                                                       f"tableau pile {empty}"))

    def same_rank(game):
        game.move("d")
        found = next((label for label, card in tops(game).items()
                      if rank(card) == rank(game.homecells[0][-1])), None)
        return game.says(f"{found} h", with_card(GOLF_RANKS, tops(game)[found])) if found else None

    def onto_a_tableau_pile(game):
        found = next(((a, b) for a in tops(game) for b in tops(game)
                      if a != b and next_to(tops(game)[a], tops(game)[b])), None)
        if found is None:
            return None
        return game.says(f"{found[0]} {found[1]}", with_card(
            GOLF_TABLEAU_TAKES, tops(game)[found[0]], f"tableau pile {found[1]}"))

    def eof():
        return deal().case("eof")

    played = {
        "golf_draw_turns_bottom_card": deal().move("d"),
        "golf_empty_homecell_takes_tableau_card": (lambda game: game.says(
            "1 h", with_card(GOLF_EMPTY_HOMECELL, game.piles[0][-1])))(deal()),
        "golf_empty_stock_takes_any_card": stock_refuses(deal()),
        "golf_empty_tableau_takes_any_card": one_of(
            wins, "golf", lambda game: emptied(game, golf_won(game), empty_pile_refuses)),
        "golf_first_stock_card_dealt_to_homecell": deal(),
        "golf_homecell_alternates_colours": first(
            lambda card, top: (card // 13 in RED) == (top // 13 in RED)),
        "golf_homecell_built_in_suit": first(lambda card, top: card // 13 != top // 13),
        "golf_homecell_gives_top_card": deal().move("d").says("h 1", GOLF_HOMECELL_KEEPS),
        "golf_homecell_one_above_only": first(lambda card, top: (rank(top) - rank(card)) % 13 == 1),
        "golf_homecell_refuses_same_suit": first(lambda card, top: card // 13 == top // 13),
        "golf_homecell_takes_same_rank": one_of(seeds, "golf", same_rank),
        "golf_stock_card_must_build": one_of(seeds, "golf", lambda game: game.move("d").move(
            "d") if not next_to(game.stock[-1], game.stock[-2]) else None),
        "golf_stock_card_must_follow_rank": deal().move("d"),
        "golf_stock_moves_only_by_draw": deal().move("s h"),
        "golf_stock_takes_any_card": (lambda game: game.says(
            "1 s", with_card(STOCK_TAKES, game.piles[0][-1])))(deal()),
        "golf_tableau_builds_like_homecell": one_of(seeds, "golf", onto_a_tableau_pile),
        "golf_tableau_face_down": deal(),
        "golf_win_not_checked_after_draw": win(),
        "golf_without_king_ace_wrap": first(lambda card, top: {rank(card), rank(top)} == {1, 13}),
        "golf_won_when_tableau_empty": win(),
        "golf_wraps_ace_onto_king_only": first(
            lambda card, top: (rank(card), rank(top)) == (13, 1)),
        "golf_wraps_king_onto_ace_only": first(
            lambda card, top: (rank(card), rank(top)) == (1, 13)),
        "nothing_to_undo_reworded": deal().says("undo", NO_UNDO),
        "same_pile_refusal_without_period": deal().says("4 4", SAME_PILE),
        "help_without_blank_line_before_rules": deal().says("help", HELP["golf"]),
        "win_announcement_reworded": win(),
        "prompt_without_space": deal(),
    }
    cases = {name: game.case() for name, game in played.items()}
    cases.update({name: eof() for name in ("exit_status_1_at_end_of_input",
                                           "no_line_end_at_end_of_input",
                                           "traceback_at_end_of_input")})
    cases["ms_accepted_for_golf"] = bad_arguments("golf")
    return cases


def bad_arguments(game: str) -> dict:
    """--ms with a game but FreeCell: nothing on stdout, the usage and error on stderr,
    status 2, as the handout shows it."""
    return {"args": f"{GAME_WORD[game]}\n--ms\n3\n", "in": "", "out": "", "status": "2\n",
            "err": USAGE}


def spider_cases() -> dict:
    """One case of Little Spider per mistake the group names, each on a deal of its own."""
    seeds = iter(seed for seed in range(2, 10_000) if seed != TAKEN["little_spider"]
                 and seed not in SPIDER_WINS)
    deal = lambda: Game("little_spider", next(seeds))
    wins = iter(SPIDER_WINS)
    win = lambda: one_of(wins, "little_spider", lambda game: won(game, spider_won(game)))

    def moved(fits):
        """The first move between tableau piles whose cards `fits` (card, top)."""
        def play(game):
            found = next(((a, b) for a in tops(game) for b in tops(game) if a != b
                          and next_to(tops(game)[a], tops(game)[b])
                          and fits(tops(game)[a], tops(game)[b])), None)
            return game.move(f"{found[0]} {found[1]}") if found else None
        return one_of(seeds, "little_spider", play)

    def homed(card_of, home, said=None):
        """A tableau top card `card_of` picks, onto homecell `home`: played, or refused."""
        def play(game):
            found = next((label for label, card in tops(game).items() if card_of(card)), None)
            if found is None:
                return None
            command = f"{found} {home}"
            return game.says(command, with_card(said, tops(game)[found], f"homecell {home}")) \
                if said else game.move(command)
        return one_of(seeds, "little_spider", play)

    def and_back(game):
        found = next(((label, f"h{home}") for label in tops(game) for home in range(1, 5)
                      if game.legal(label, f"h{home}")), None)
        if found is None:
            return None
        game.move(" ".join(found))
        back = next((label for label in tops(game) if game.legal(found[1], label)), None)
        return game.move(f"{found[1]} {back}") if back else None

    def last_card(home):
        def play(game):
            return game.says(f"{home} 1", SPIDER_LAST_STAYS.replace("h1", home))
        return play

    def empty_refuses(card_of):
        def then(game, empty):
            found = next((label for label, card in tops(game).items() if card_of(card)), None)
            return game.says(f"{found} {empty}", with_card(
                SPIDER_EMPTY_TAKES, tops(game)[found], f"tableau pile {empty}")) if found else None
        return lambda game: emptied(game, spider_won(game), then)

    played = {
        "little_spider_ace_of_hearts_first": deal(),
        "little_spider_black_homecells_any_suit": homed(
            lambda card: rank(card) == 12 and card // 13 != CLUBS, "h3", SPIDER_BLACK_TAKES),
        "little_spider_black_homecells_build_up": homed(lambda card: card == 37, "h3"),
        "little_spider_board_shows_a_stock": deal(),
        "little_spider_empty_tableau_takes_a_king": one_of(
            wins, "little_spider", empty_refuses(lambda card: rank(card) == 13)),
        "little_spider_empty_tableau_takes_any_card": one_of(
            wins, "little_spider", empty_refuses(lambda card: True)),
        "little_spider_game_goes_on_after_win": win(),
        "little_spider_homecell_cards_never_leave": one_of(seeds, "little_spider", and_back),
        "little_spider_homecell_gives_last_card": one_of(seeds, "little_spider", last_card("h1")),
        "little_spider_homecell_keeps_every_card": one_of(seeds, "little_spider", and_back),
        "little_spider_king_homecells_give_last_card": one_of(seeds, "little_spider",
                                                              last_card("h3")),
        "little_spider_red_homecells_any_suit": homed(
            lambda card: rank(card) == 2 and card // 13 != DIAMONDS, "h1", SPIDER_RED_TAKES),
        "little_spider_red_homecells_build_down": homed(lambda card: card == 14, "h1"),
        "little_spider_tableau_alternates_colours": moved(
            lambda card, top: (card // 13 in RED) == (top // 13 in RED)),
        "little_spider_tableau_one_below_only": moved(
            lambda card, top: (rank(card) - rank(top)) % 13 == 1),
        "little_spider_tableau_refuses_same_suit": moved(lambda card, top: card // 13 == top // 13),
        "little_spider_tableau_takes_same_rank": one_of(seeds, "little_spider", lambda game: next(
            (game.says(f"{a} {b}", with_card(SPIDER_TABLEAU_TAKES, tops(game)[a],
                                             f"tableau pile {b}"))
             for a in tops(game) for b in tops(game)
             if a != b and rank(tops(game)[a]) == rank(tops(game)[b])), None)),
        "little_spider_tableau_without_wrap": moved(
            lambda card, top: {rank(card), rank(top)} == {1, 13}),
        "little_spider_tableau_wraps_ace_onto_king_only": moved(
            lambda card, top: (rank(card), rank(top)) == (13, 1)),
        "little_spider_won_at_48_cards": win(),
        "help_without_blank_line_before_rules": deal().says("help", HELP["little_spider"]),
        "win_announcement_reworded": win(),
        "prompt_without_space": deal(),
    }
    cases = {name: game.case() for name, game in played.items()}
    cases["ms_accepted_for_golf"] = bad_arguments("little_spider")
    return cases


def shortest_first(cases: dict) -> list:
    """(its place, the mistake) of each case, the shortest first."""
    return list(enumerate(sorted(cases, key=lambda name: (len(cases[name]["out"]), name))))


@pytest.fixture(scope="module")
def written():
    return {GOLF.folder: golf_cases(), LITTLE_SPIDER.folder: spider_cases()}


def test_one_case_per_mistake_each_on_a_deal_of_its_own(written):
    for group in (GOLF, LITTLE_SPIDER):
        cases = written[group.folder]
        assert sorted(cases) == sorted(group.mistakes)
        deals = [case["args"] for case in cases.values()]
        assert len(set(deals)) == len(deals), "no case repeats another's deal"
        assert all(f"--seed\n{TAKEN[group.folder.split('/')[1]]}\n" not in deal for deal in deals)
        assert all(len(case["out"].encode()) <= group.most_bytes for case in cases.values())


def test_a_team_of_cases_written_from_the_documents_alone_catches_every_mistake(written,
                                                                                 tmp_path):
    """Marked as two teams (a group marks 25 cases at most), each against the mistakes of
    its own cases (an assignment file of its own, the kit's but for Golf's `mistakes`, so
    that no wrong program runs on the other team's cases): every case valid and counted,
    every mistake caught. Each case is named after its mistake, the shortest first (a wrong
    program runs the cases in name order until one fails it)."""
    golf = shortest_first(written[GOLF.folder])
    teams = [{GOLF.folder: golf[:len(golf) // 2],
              LITTLE_SPIDER.folder: shortest_first(written[LITTLE_SPIDER.folder])},
             {GOLF.folder: golf[len(golf) // 2:]}]
    caught = {GOLF.name: set(), LITTLE_SPIDER.name: set()}
    shutil.copytree(GOLF.wrong_folder, tmp_path / "wrong" / "patience")
    for number, team in enumerate(teams):
        folder = tmp_path / f"team_{number}"
        for group in (GOLF, LITTLE_SPIDER):
            (folder / group.folder).mkdir(parents=True)
            for number, name in team.get(group.folder, []):
                for suffix, text in written[group.folder][name].items():
                    (folder / group.folder / f"{number:02}_{name}.{suffix}").write_text(
                        text, encoding="utf-8")
        named = [name for _, name in team[GOLF.folder]]
        text = re.sub(r"mistakes = \[.*?\]", lambda _: f"mistakes = {json.dumps(named)}",
                      GOLF_TESTS.path.read_text(encoding="utf-8"), count=1, flags=re.DOTALL)
        for name in set(GOLF.mistakes) - set(named):  # nor weighs them
            text = re.sub(rf"^ *{name} = .*\n", "", text, flags=re.MULTILINE)
        (tmp_path / f"team_{number}.toml").write_text(text, encoding="utf-8")
        status, report, tests = mark(folder, assignment=tmp_path / f"team_{number}.toml")
        assert status in (0, 1), report
        for group in (GOLF, LITTLE_SPIDER):
            count = len(team.get(group.folder, []))
            if not count:
                continue
            valid = tests[f"patience: {group.name}: valid"]["output"].splitlines()
            assert valid[0].startswith(f"{count} of {count} case"), "\n".join(valid)
            assert len(valid) == 1 + count and all(line.startswith("valid ") for line in valid[1:])
            caught[group.name] |= {
                line.split()[1] for line in tests[f"patience: {group.name}: mistakes"]["output"]
                .splitlines() if line.startswith("caught ")}
    for group in (GOLF, LITTLE_SPIDER):
        assert sorted(set(group.mistakes) - caught[group.name]) == []
