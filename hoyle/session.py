"""The conversation of hoyle_cli.py: menus, prompts, turns and the end of a game
(docs/hoyle_cli.md §3-§5).

A `Session` reads through a `Cin` and writes text through a callable; it knows
nothing of files, terminals or exit statuses, so the tests can run it in-process.
Each method below is one screen of the spec; the rules are asked of `Game`.
"""

from typing import Callable, Optional

from hoyle import messages, render
from hoyle.cin import Cin, EndOfInput, IntRead
from hoyle.model import PILES, DrawCheck, FirstAction, Game, is_card
from hoyle.stats import append_score, read_stats

START, OPTIONS, QUIT = 1, 2, 3
TOGGLE_ASCII, DISPLAY_STATS = 1, 2
PLAY_OR_DRAW, PLAY_FROM_WASTE, SHOW_WASTE = 1, 2, 3
END_GAME = -1  # the -1 rule of the action menu (§4.5)
YES, NO, FOUNDATION, WASTE = (ord(letter) for letter in "YNFW")
DRAW_PROBLEMS = {DrawCheck.NOT_A_CARD: messages.NOT_A_CARD, DrawCheck.ALREADY_DRAWN: messages.ALREADY_DRAWN}


def upper(byte: int) -> int:
    """Upper-case `a`-`z` only, as toupper() does in the C locale."""
    return bytes([byte]).upper()[0]


class Session:
    def __init__(self, cin: Cin, write: Callable[[str], None], stats_path: str):
        self.cin = cin
        self.write = write
        self.stats_path = stats_path
        self.ascii_cards = False
        self.game = Game()

    def run(self) -> None:
        """Until menu item 3, or the end of input."""
        try:
            self.main_menu()
        except EndOfInput:
            pass

    # --- Reads --------------------------------------------------------------

    def read_int(self) -> IntRead:
        """An int read; a failed one is followed by the discard, as in the C++ program."""
        read = self.cin.read_int()
        if not read.ok:
            self.cin.discard()
        return read

    def read_letter(self) -> int:
        return upper(self.cin.read_char())

    def choose(self, valid: range, invalid: str) -> int:
        """An int read again, after `invalid`, until it succeeds with a number in `valid`."""
        while True:
            read = self.read_int()
            if read.ok and read.value in valid:
                return read.value
            self.write(invalid)

    def read_pile(self, prompt: str, echo: bool = False) -> int:
        """A pile number 1..4 as an index 0..3; with `echo`, the first read's value is printed."""
        self.write(prompt)
        read = self.read_int()
        if echo:
            self.write(messages.ECHO.format(value=read.value))
        while not (read.ok and 1 <= read.value <= PILES):
            self.write(messages.NOT_A_PILE + prompt)
            read = self.read_int()
        return read.value - 1

    def yes_or_no(self, prompt: str, after_read: str = "") -> bool:
        while True:
            self.write(prompt)
            answer = self.read_letter()
            self.write(after_read)
            if answer in (YES, NO):
                return answer == YES
            self.write(messages.EXPECTING_Y_OR_N)

    # --- Menus (§3) -----------------------------------------------------------

    def main_menu(self) -> None:
        while True:
            self.write(messages.WELCOME + messages.MAIN_MENU_ITEMS)
            choice = self.choose(range(START, QUIT + 1), messages.NOT_A_VALID_CHOICE + messages.MAIN_MENU_ITEMS)
            if choice == QUIT:
                return
            if choice == OPTIONS:
                self.options_menu()
            elif self.yes_or_no(messages.READY_PROMPT):
                self.play_games()

    def options_menu(self) -> None:
        toggle = messages.DISABLE_ASCII_ITEM if self.ascii_cards else messages.ENABLE_ASCII_ITEM
        self.write(messages.OPTIONS_TITLE + toggle + messages.DISPLAY_STATS_ITEM)
        if self.choose(range(TOGGLE_ASCII, DISPLAY_STATS + 1), messages.NOT_A_VALID_CHOICE) == TOGGLE_ASCII:
            self.ascii_cards = not self.ascii_cards
        else:
            self.write(read_stats(self.stats_path).text())

    # --- Games (§4) -----------------------------------------------------------

    def play_games(self) -> None:
        """Games one after the other while the player wants to play again."""
        while True:
            self.play_game()
            if not self.yes_or_no(messages.PLAY_AGAIN_PROMPT, after_read=messages.END_OF_LINE):
                return

    def play_game(self) -> None:
        self.game = Game()
        for foundation in range(PILES):
            self.game = self.game.start(foundation, self.read_starting_card(foundation))
        while self.turn():
            pass
        score = self.game.score
        self.write((messages.LOST if score else messages.WON).format(score=score))
        append_score(self.stats_path, score)

    def read_starting_card(self, foundation: int) -> int:
        """A card of the rank the empty foundation starts with."""
        wanted = render.next_rank_text(self.game, foundation)
        while True:
            self.write(messages.STARTING_CARD_PROMPT.format(rank=wanted))
            read = self.read_int()
            self.write(messages.END_OF_LINE)
            if read.ok and is_card(read.value) and self.game.accepts(foundation, read.value):
                return read.value
            self.write(messages.NOT_OF_RANK.format(rank=wanted) if read.ok else messages.NOT_A_NUMBER)

    def turn(self) -> bool:
        """One board, one choice carried out; False once the game ends."""
        self.write(render.board(self.game, self.ascii_cards))
        choice = self.action_menu()
        if choice == END_GAME:
            return False
        if choice == PLAY_FROM_WASTE:
            self.play_from_waste_pile()
        elif choice == SHOW_WASTE:
            self.show_waste_pile()
        elif self.game.first_action is FirstAction.PLAY:
            self.play_held_card()
        elif self.game.first_action is FirstAction.DRAW:
            self.game = self.game.draw(self.read_drawn_card())
        else:
            return False
        return True

    def action_menu(self) -> int:
        first_item = {FirstAction.PLAY: messages.PLAY_DRAWN_ITEM, FirstAction.DRAW: messages.DRAW_ITEM,
                      FirstAction.FINISH: messages.FINISH_ITEM}[self.game.first_action]
        with_waste = self.game.has_waste_cards
        self.write(messages.ACTION_TITLE + first_item + (messages.WASTE_ITEMS if with_waste else ""))
        valid = range(PLAY_OR_DRAW, (SHOW_WASTE if with_waste else PLAY_OR_DRAW) + 1)
        read = self.read_int()
        if read.ok and read.value == END_GAME:
            return END_GAME
        if read.ok and read.value in valid:
            return read.value
        self.write(messages.INVALID_ACTION)
        return self.choose(valid, messages.INVALID_ACTION)

    def read_drawn_card(self) -> int:
        while True:
            self.write(messages.DRAW_PROMPT)
            read = self.read_int()
            self.write(messages.END_OF_LINE)
            problem = messages.NOT_A_NUMBER if not read.ok else self.draw_problem(read.value)
            if problem is None:
                return read.value
            self.write(problem)

    def draw_problem(self, number: int) -> Optional[str]:
        check = self.game.check_draw(number)
        return None if check is None else DRAW_PROBLEMS[check]

    def play_held_card(self) -> None:
        while True:
            self.write(messages.WHERE_TO_PLAY)
            where = self.read_letter()
            if where in (FOUNDATION, WASTE):
                break
            self.write(messages.EXPECTING_F_OR_W)
        if where == WASTE:
            self.game = self.game.play_on_waste_pile(self.read_pile(messages.WASTE_TO_PLAY_ON, echo=True))
            return
        foundation = self.read_pile(messages.FOUNDATION_TO_PLAY_ON, echo=True)
        if self.game.accepts(foundation, self.game.held):
            self.game = self.game.play_on_foundation(foundation)
        else:
            self.write_invalid_play(foundation)

    def play_from_waste_pile(self) -> None:
        pile = self.read_pile(messages.WASTE_TO_PLAY_FROM)
        foundation = self.read_pile(messages.FOUNDATION_TO_MOVE_TO)
        if self.game.can_move(pile, foundation):
            self.game = self.game.move(pile, foundation)
        else:
            self.write_invalid_play(foundation)

    def write_invalid_play(self, foundation: int) -> None:
        self.write(messages.INVALID_PLAY.format(next=render.next_rank_text(self.game, foundation)))

    def show_waste_pile(self) -> None:
        pile = self.read_pile(messages.WASTE_TO_SEE)
        self.write(render.waste_pile(self.game.waste_piles[pile], self.ascii_cards))
