"""Independent reading of docs/solitaire_2.md ("Sevens"), used only by tests.

A clean-room second implementation for differential testing: it was written from
the specification and its worked examples alone, without looking at the
project's code. The table is a dict suit -> set of placed ranks, the stack and
the put-aside pile are plain lists whose last element is the top card.
"""

import random
import re

SEVENS = (6, 19, 32, 45)
BASES = {0: 0x1F0B0, 1: 0x1F0C0, 2: 0x1F0D0, 3: 0x1F0A0}
COLUMNS = (1, 2, 3, 0)  # Diamonds, Clubs, Spades, Hearts
SMILE, FROWN = "\U0001F60A\uFE0F", "\u2639\uFE0F"
THUMBS_UP, THUMBS_DOWN = "\U0001F44D", "\U0001F44E"
ORDINALS = ("first", "second", "third")
PROMPT = "Please enter an integer to feed the seed() function: "
INDENT = " " * 7


def glyph(suit, rank):
    return chr(BASES[suit] + (rank if rank <= 11 else rank + 1))


def fits(table, suit, rank):
    if rank > 7:
        return rank - 1 in table[suit]
    return rank + 1 in table[suit]


def play(seed):
    """Return (collected lines, rounds played, cards left)."""
    deck = sorted(set(range(52)) - set(SEVENS))
    random.Random(seed).shuffle(deck)  # same as seed(n); shuffle(cards)
    stack = [(c // 13, c % 13 + 1) for c in deck]  # top = last
    aside = []  # top = last
    table = {s: {7} for s in range(4)}
    out = []

    def snapshot():
        out.append("]" * len(stack))
        out.append("[" * (len(aside) - 1) + glyph(*aside[-1]) if aside else "")
        for rank in range(13, 0, -1):
            cells = [glyph(s, rank) if rank in table[s] else "" for s in COLUMNS]
            out.append(("\t" + "\t".join(cells)).rstrip("\t"))

    def placed(heading):
        out.append(heading + " " + SMILE)
        snapshot()
        out.append("")

    out.append("All 7s removed and placed, rest of deck shuffled, ready to start!")
    snapshot()
    out.append("")
    rounds = 0
    for rounds in (1, 2, 3):
        if rounds > 1:
            out += ["", "Starting %s round..." % ORDINALS[rounds - 1], ""]
        else:
            out += ["Starting first round...", ""]
        while stack:
            card = stack.pop()
            if not fits(table, *card):
                aside.append(card)
                out.append("Cannot place card from top of stack of cards left " + FROWN)
                out.append("]" * len(stack))
                out.append("[" * (len(aside) - 1) + glyph(*aside[-1]))
                out.append("")
                continue
            table[card[0]].add(card[1])
            placed("Placing card from top of stack of cards left")
            while aside:
                if not fits(table, *aside[-1]):
                    out += ["Cannot place card from top of stack of cards put aside " + FROWN, ""]
                    break
                s, r = aside.pop()
                table[s].add(r)
                placed("Placing card from top of stack of cards put aside")
        if not aside:
            break
        if rounds < 3:
            stack, aside = aside[::-1], []
    if aside:
        out.append("You could not place %d cards, you lost %s" % (len(aside), THUMBS_DOWN))
    else:
        out.append("You placed all cards, you won " + THUMBS_UP)
    return out, rounds, len(aside)


def collected_lines(seed: int) -> list:
    return play(seed)[0]


def outcome(seed: int) -> tuple:
    _, rounds, left = play(seed)
    return rounds, left


def simulate_table(n: int, i: int) -> bytes:
    freq = {}
    for seed in range(i, i + n):
        left = outcome(seed)[1]
        freq[left] = freq.get(left, 0) + 1
    rows = ["Number of cards left | Frequency", "-" * 32]
    for k in sorted(freq, reverse=True):
        rows.append(f"{k:>20} | {freq[k] / n * 100:>8.2f}%")
    return ("\n".join(rows) + "\n").encode("utf-8")


# Viewer grammar, transcribed from spec section 6.
QUIT = re.compile(r"\s*q\s*")
LAST = re.compile(r"\s*([0-9]+)\s*")
FIRST = re.compile(r"\s*-([0-9]+)\s*")
RANGE = re.compile(r"\s*([0-9]+)\s*--\s*([0-9]+)\s*")


def number(digits):
    """Value of an ASCII digit string, huge values clamped (never int() on them)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 12 else 10 ** 12


def request(line, lines):
    """Slice of lines asked for by a viewer line, or None when incorrect."""
    total = len(lines)
    m = RANGE.fullmatch(line)
    if m:
        lo, hi = number(m[1]), number(m[2])
        return lines[lo - 1:hi] if 1 <= lo <= hi <= total else None
    m = FIRST.fullmatch(line)
    if m:
        k = number(m[1])
        return lines[total - k:] if 1 <= k <= total else None
    m = LAST.fullmatch(line)
    if m:
        k = number(m[1])
        return lines[:k] if 1 <= k <= total else None
    return None


def transcript(stdin: bytes) -> bytes:
    raw = stdin.split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    feed = iter(raw)
    out = []
    seed = None
    while seed is None:
        out.append(PROMPT)
        line = next(feed, None)
        if line is None:
            return "".join(out).encode("utf-8")
        try:
            seed = int(line.decode("utf-8", "surrogateescape"))
        except ValueError:
            seed = None
    lines = collected_lines(seed)
    total = len(lines)
    menu = (
        f"Enter: q to quit\n"
        f"{INDENT}a last line number (between 1 and {total})\n"
        f"{INDENT}a first line number (between -1 and -{total})\n"
        f"{INDENT}a range of line numbers (of the form m--n with 1 <= m <= n <= {total})\n"
        f"{INDENT}"
    )
    out.append(f"\nThere are {total} lines of output; what do you want me to do?\n\n")
    for line in feed:
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        out.append(menu)
        if text is not None and QUIT.fullmatch(text):
            break
        shown = request(text, lines) if text is not None else None
        out.append("\n")
        if shown is not None:
            out.append("".join(x + "\n" for x in shown) + "\n")
    else:
        out.append(menu)
    return "".join(out).encode("utf-8")
