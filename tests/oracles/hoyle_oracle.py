"""Independent reading of docs/hoyle_cli.md ("Calculation"), used only by tests.

A clean-room second implementation for differential testing: it was written
from the specification and its worked examples alone, without looking at the
project's code. Nothing touches the real world: stdin is one bytes object
walked by a cursor, stdout is a list of text pieces, the stats file is a bytes
value (None while it does not exist). The game is plain lists: ``piles[0..3]``
are the foundations, ``piles[4..7]`` the waste piles (last element = top),
``stock`` a list of 52 flags.

    transcript(stdin, stats) -> (stdout bytes, stats bytes or None)
"""

WHITESPACE = b" \t\n\x0b\x0c\r"
DIGITS = b"0123456789"
INT_MIN, INT_MAX = -2**31, 2**31 - 1
DISCARD_LIMIT = 1000

RANK_TEXT = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUIT_GLYPH = ["\u2666", "\u2663", "\u2665", "\u2660"]

MAIN_ITEMS = "1. Start Game\n2. Options\n3. Quit\n"
WELCOME = "Welcome to Calculation!\n" + MAIN_ITEMS
NOT_VALID_CHOICE = "That is not a valid choice.\n"
READY = "Are you ready to play? "
YES_NO = "I don't understand.  I was expecting Y or N.\n"
AGAIN = "Would you like to play again? "
PLAY_ON_A = "Do you want to play on a: \nF. Foundation Pile\nW. Waste Pile\n"
F_OR_W = "I do not understand. I am expecting an F or W.\n"
BAD_PILE = "That is not a valid pile.\n"
NO_NUMBER = "You did not enter a number.\n"

TOP_EDGE = "\u250c" + "\u2500" * 9 + "\u2510"
BOTTOM_EDGE = "\u2514" + "\u2500" * 9 + "\u2518"
BAR = "\u2502"
CARD_BACK = [TOP_EDGE] + [BAR + "\u2591" * 9 + BAR] * 5 + [BOTTOM_EDGE]


class EndOfInput(Exception):
    """A read found nothing left while skipping whitespace: the program stops."""


class Tape:
    """stdin as one byte string and a cursor: C++ ``cin`` reads, as in spec section 6."""

    def __init__(self, data: bytes):
        self.data = data
        self.at = 0

    def _skip_blanks(self):
        while self.at < len(self.data) and self.data[self.at] in WHITESPACE:
            self.at += 1
        if self.at >= len(self.data):
            raise EndOfInput

    def char(self) -> int:
        """One byte after whitespace, with a-z upper-cased."""
        self._skip_blanks()
        byte = self.data[self.at]
        self.at += 1
        return byte - 32 if 0x61 <= byte <= 0x7A else byte

    def int(self):
        """(ok, value held). A failed read is followed by the discard."""
        self._skip_blanks()
        negative = False
        if self.data[self.at] in b"+-":
            negative = self.data[self.at] == 0x2D
            self.at += 1
        first = self.at
        while self.at < len(self.data) and self.data[self.at] in DIGITS:
            self.at += 1
        digits = self.data[first:self.at].lstrip(b"0")
        if first == self.at:
            self._discard()
            return False, 0
        if len(digits) > 10 or (digits and int(digits) > 2**31 - (0 if negative else 1)):
            self._discard()
            return False, INT_MIN if negative else INT_MAX
        value = int(digits) if digits else 0
        return True, -value if negative else value

    def _discard(self):
        stop = min(len(self.data), self.at + DISCARD_LIMIT)
        newline = self.data.find(b"\n", self.at, stop)
        self.at = stop if newline < 0 else newline + 1


# ---------------------------------------------------------------- cards


def rank_of(card):
    return card % 13 + 1


def card_text(card):
    return RANK_TEXT[rank_of(card)] + SUIT_GLYPH[card // 13]


def wanted_rank(foundation_number, cards_on_it):
    """Rank that foundation k (1..4) takes next, 0 when it is complete."""
    if cards_on_it >= 13:
        return 0
    return (foundation_number * (cards_on_it + 1) - 1) % 13 + 1


def wanted_text(foundation_number, cards_on_it):
    rank = wanted_rank(foundation_number, cards_on_it)
    return RANK_TEXT[rank] if rank else " "


# ---------------------------------------------------------------- ASCII art


def cell_rows(card, number):
    """The seven 14-character cells of one pile of a block (card None: empty pile)."""
    if card is None:
        r = s = None
    else:
        r, s = RANK_TEXT[rank_of(card)], SUIT_GLYPH[card // 13]
    blank = "  " + BAR + " " * 9 + BAR + " "
    return [
        "  " + TOP_EDGE + " ",
        blank if r is None else "  " + BAR + " " + r.ljust(8) + BAR + " ",
        blank,
        blank if s is None else "  " + BAR + "    " + s + "    " + BAR + " ",
        blank,
        blank if r is None else "  " + BAR + r.rjust(8) + " " + BAR + " ",
        str(number) + " " + BOTTOM_EDGE + " ",
    ]


def block(tops):
    columns = [cell_rows(card, n) for n, card in enumerate(tops, start=1)]
    out = []
    for row in range(7):
        line = "".join(column[row] for column in columns)
        out.append(line + (" " if row == 1 else "") + "\n")
    return "".join(out)


def single_card(card):
    rows = [cell[2:] for cell in cell_rows(card, 0)]
    rows[1] += " "
    return "".join(row + "\n" for row in rows)


# ---------------------------------------------------------------- stats


def _digits_value(raw: bytes) -> int:
    """Any number of ASCII digits, without int()'s 4300-digit limit."""
    value = 0
    for start in range(0, len(raw), 1000):
        chunk = raw[start:start + 1000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def stats_report(stats):
    won = lost = 0
    total = 0
    for line in (stats or b"").split(b"\n"):
        line = line.strip(WHITESPACE)
        if not line or any(byte not in DIGITS for byte in line):
            continue
        value = _digits_value(line)
        total += value
        if value == 0:
            won += 1
        else:
            lost += 1
    count = won + lost
    if count == 0:
        average = "0.00"
    else:
        try:
            average = f"{total / count:.2f}"
        except OverflowError:
            average = "inf"
    return f"Games Won: {won}\nGames Lost: {lost}\nAverage Score: {average}\n"


def appended(stats, score):
    before = stats or b""
    glue = b"\n" if before and not before.endswith(b"\n") else b""
    return before + glue + str(score).encode() + b"\n"


# ---------------------------------------------------------------- the session


class Session:
    def __init__(self, stdin: bytes, stats):
        self.tape = Tape(stdin)
        self.out = []
        self.stats = stats
        self.ascii = False

    def say(self, text):
        self.out.append(text)

    # ---- reads with their checks

    def pile_number(self, prompt, echo=False):
        """1..4 from the prompt's read, re-asked on a failed or out-of-range read."""
        self.say(prompt)
        ok, value = self.tape.int()
        if echo:
            self.say(f"{value}\n")
        while not ok or not 1 <= value <= 4:
            self.say(BAD_PILE + prompt)
            ok, value = self.tape.int()
        return value

    def yes_or_no(self, prompt, newline_after):
        self.say(prompt)
        while True:
            answer = self.tape.char()
            if newline_after:
                self.say("\n")
            if answer in b"YN":
                return answer == ord("Y")
            self.say(YES_NO + prompt)

    # ---- menus

    def run(self):
        self.say(WELCOME)
        while True:
            ok, choice = self.tape.int()
            if not ok or choice not in (1, 2, 3):
                self.say(NOT_VALID_CHOICE + MAIN_ITEMS)
                continue
            if choice == 3:
                return
            if choice == 2:
                self.options()
            elif self.yes_or_no(READY, newline_after=False):
                while True:
                    self.play_one_game()
                    if not self.yes_or_no(AGAIN, newline_after=True):
                        break
            self.say(WELCOME)

    def options(self):
        label = "1. Disable ASCII Cards \n" if self.ascii else "1. Enable ASCII Cards\n"
        self.say("Options Menu:\n" + label + "2. Display Stats\n")
        while True:
            ok, choice = self.tape.int()
            if ok and choice == 1:
                self.ascii = not self.ascii
                return
            if ok and choice == 2:
                self.say(stats_report(self.stats))
                return
            self.say(NOT_VALID_CHOICE)

    # ---- one game

    def play_one_game(self):
        stock = [True] * 52
        piles = [[], [], [], [], [], [], [], []]
        held = None

        for k in range(1, 5):
            rank_name = RANK_TEXT[k]
            number = self.card_number(
                f"Enter the card number for the starting {rank_name}: ",
                lambda n, k=k, name=rank_name: None if 0 <= n <= 51 and rank_of(n) == k
                else f"The card chosen is not a(n) {name}\n")
            stock[number] = False
            piles[k - 1].append(number)

        while True:
            remaining = stock.count(True)
            waste_cards = sum(len(pile) for pile in piles[4:])
            self.show_board(piles, held, remaining)
            if held is not None:
                first_item = "1. Play Drawn Card\n"
            elif remaining:
                first_item = "1. Draw Card\n"
            else:
                first_item = "1. Finish Game and Calculate Score\n"
            self.say("What would you like to do: (Enter -1 to quit)\n" + first_item)
            if waste_cards:
                self.say("2. Play Card from Waste Pile\n3. Display an entire waste pile\n")
            allowed = (1, 2, 3) if waste_cards else (1,)

            ok, choice = self.tape.int()
            if ok and choice == -1:
                break
            while not ok or choice not in allowed:
                self.say("That is an invalid choice\n")
                ok, choice = self.tape.int()

            if choice == 1 and held is None and remaining == 0:
                break
            if choice == 1 and held is None:
                held = self.draw(stock)
            elif choice == 1:
                held = self.play_held(held, piles)
            elif choice == 2:
                source = self.pile_number("Which waste pile (1-4) do you want to play from? ")
                target = self.pile_number("Which foundation pile(1-4) do you want to play on? ")
                waste, foundation = piles[3 + source], piles[target - 1]
                if waste and rank_of(waste[-1]) == wanted_rank(target, len(foundation)):
                    foundation.append(waste.pop())
                else:
                    self.invalid_play(target, foundation)
            else:
                seen = self.pile_number("Which waste pile (1-4) do you want to see? ")
                for card in reversed(piles[3 + seen]):
                    self.say(single_card(card) if self.ascii else card_text(card) + "\n")

        score = stock.count(True) + sum(len(pile) for pile in piles[4:])
        if score == 0:
            self.say("You Won! You scored 0 points.\n")
        else:
            self.say(f"Game Over! You scored {score} points.\n")
        self.stats = appended(self.stats, score)

    def card_number(self, prompt, problem):
        """Ask until an int read succeeds and `problem(number)` has nothing to say."""
        self.say(prompt)
        while True:
            ok, number = self.tape.int()
            self.say("\n")
            complaint = NO_NUMBER if not ok else problem(number)
            if complaint is None:
                return number
            self.say(complaint + prompt)

    def draw(self, stock):
        number = self.card_number(
            "Enter the card number for the drawn card: ",
            lambda n: "That is not a valid card.\n" if not 0 <= n <= 51
            else "That card has already been drawn.\n" if not stock[n] else None)
        stock[number] = False
        return number

    def play_held(self, held, piles):
        """Returns what is held afterwards."""
        self.say(PLAY_ON_A)
        while True:
            where = self.tape.char()
            if where in b"FW":
                break
            self.say(F_OR_W + PLAY_ON_A)
        if where == ord("W"):
            target = self.pile_number("Which waste pile (1-4) do you want to play on? ", echo=True)
            piles[3 + target].append(held)
            return None
        target = self.pile_number("Which foundation pile (1-4) do you want to play on? ", echo=True)
        foundation = piles[target - 1]
        if rank_of(held) == wanted_rank(target, len(foundation)):
            foundation.append(held)
            return None
        self.invalid_play(target, foundation)
        return held

    def invalid_play(self, target, foundation):
        self.say("That is an invalid play. The next card for that pile is a "
                 + wanted_text(target, len(foundation)) + "\n")

    def show_board(self, piles, held, remaining):
        tops = [pile[-1] if pile else None for pile in piles]
        if not self.ascii:
            row1 = "".join(f"F{i}:  {card_text(tops[i - 1])}     " for i in range(1, 5))
            row2 = "".join(f"W{i}:  " + (card_text(tops[3 + i]) + "     " if tops[3 + i] is not None
                                          else " " * 7) for i in range(1, 5))
            last = f"Drawn Card: {card_text(held)}" if held is not None else f"Remaining Cards ({remaining})"
            self.say(row1 + "\n" + row2 + "\n" + last + "\n")
            return
        self.say("Foundation Piles:\n" + block(tops[:4]) + "\n")
        self.say("Waste Piles:\n" + block(tops[4:]) + "\n")
        if held is None:
            self.say(f"Remaining Cards ({remaining})\n" + "".join(row + "\n" for row in CARD_BACK))
        else:
            self.say("Drawn Card: \n" + single_card(held) + "\n")


def transcript(stdin: bytes, stats=None):
    """(stdout bytes, stats file bytes or None) of one run with ``stdin`` piped."""
    session = Session(stdin, stats)
    try:
        session.run()
    except EndOfInput:
        pass
    return "".join(session.out).encode("utf-8"), session.stats
