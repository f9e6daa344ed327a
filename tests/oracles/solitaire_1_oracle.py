"""Independent reading of docs/solitaire_1.md, used only by tests.

A clean-room second implementation of the 32-card "Aces" game, written from
the specification alone (never from solitaire_1.py), for differential
testing.  The game is first played physically (`_play` returns, per stage,
the stacks as dealt), then every board is drawn directly from the wording of
spec section 4 (`_render`).
"""
import random
from collections import Counter

_BASE = (0x1F0B0, 0x1F0C0, 0x1F0D0, 0x1F0A0)     # Hearts, Diamonds, Clubs, Spades
_OFFSET = (0x1, 0x7, 0x8, 0x9, 0xA, 0xB, 0xD, 0xE)  # Ace, 7, 8, 9, 10, J, Q, K
_PROMPT = "Please enter an integer to feed the seed() function: "
_WHICH = ("first", "second", "third", "fourth")
_NTH = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh",
        "Eighth", "Ninth", "Tenth", "Eleventh")
_ANNOUNCE = {4: "Distributing the cards in the deck into 4 stacks.",
             3: "Distributing the cards that have been kept into 3 stacks.",
             2: "Distributing the cards that have been kept into 2 stacks."}


def face(card):
    return chr(_BASE[card // 8] + _OFFSET[card % 8])


def is_ace(card):
    return card % 8 == 0


def face_down(size):
    return "]" * size


def face_up(size, visible):
    """A face-up pile of `size` cards whose visible card is `visible`."""
    return "[" * (size - 1) + face(visible) if size else ""


def ace_at(stack):
    """Index (from 0, dealing order) of the first Ace of a stack, or None."""
    return next((p for p, c in enumerate(stack) if is_ace(c)), None)


def _play(seed):
    """Play the game; return ([stage stacks as dealt, per stage], kept, discard).

    Piles are bottom-to-top lists: the last element is the top card."""
    deck = list(range(32))
    random.seed(seed)
    random.shuffle(deck)
    stages, pile, discard = [], deck, []
    for k in (4, 3, 2):
        stacks = [[] for _ in range(k)]
        turn = 0
        while pile:                       # deal from the top, round robin
            stacks[turn % k].append(pile.pop())
            turn += 1
        kept = []
        for stack in stacks:
            a = ace_at(stack)
            if a is None:
                discard += stack
            else:
                discard += stack[:a]
                kept += stack[a:]
        stages.append(stacks)
        pile = kept
    return stages, pile, discard


def _won(kept):
    return all(is_ace(c) for c in kept[:4])


def _board(out, columns, under, discard, kept_count):
    out.append("".join(col.ljust(12) for col in columns).rstrip(" "))
    out.append(under)
    out.append(face_up(len(discard), discard[-1] if discard else None))
    out.append(face_down(kept_count))
    out.append("")


def _render(stages, kept, discard_final):
    out = [_PROMPT, "Deck shuffled, ready to start!", face_down(32), ""]
    discard = []
    for stacks in stages:
        k = len(stacks)
        out.append(_ANNOUNCE[k])
        kept_here = 0
        _board(out, [face_down(len(s)) for s in stacks], "", discard, 0)
        for i, stack in enumerate(stacks):
            a = ace_at(stack)
            before = stack if a is None else stack[:a]
            after = [] if a is None else stack[a:]   # the Ace and what follows
            if a is None:
                out.append("No ace in %s stack, after it has been turned over." % _WHICH[i])
            else:
                last = " (and last)" if a == len(stack) - 1 else ""
                out.append("%s%s card in %s stack, after it has been turned over, is an ace."
                           % (_NTH[a], last, _WHICH[i]))
            columns = ([""] * i + [face_up(len(after), after[0]) if after else ""]
                       + [face_down(len(s)) for s in stacks[i + 1:]])
            under = " " * (12 * i) + face_up(len(before), before[-1]) if before else ""
            _board(out, columns, under, discard, kept_here)
            if before:
                verb = "Adding to the cards that have been discarded" if discard else "Discarding"
                if a is None:
                    what = "all cards in the stack."
                elif len(before) == 1:
                    what = "the card before the ace."
                else:
                    what = "the %d cards before the ace." % len(before)
                out.append(verb + " " + what)
            if after:
                verb = "Also keeping" if kept_here else "Keeping"
                r = len(after)
                if r == 1:
                    what = "the ace, turning it over."
                elif r == 2:
                    what = "the ace and the card after, turning them over."
                else:
                    what = "the ace and the %d cards after, turning them over." % (r - 1)
                out.append(verb + " " + what)
            discard = discard + before
            kept_here += len(after)
            _board(out, [""] * (i + 1) + [face_down(len(s)) for s in stacks[i + 1:]],
                   "", discard, kept_here)
    assert discard == discard_final
    out.append("Displaying the %d cards that have been kept." % len(kept))
    out.append("You won!" if _won(kept) else "You lost!")
    out += ["", "", face_up(len(discard), discard[-1] if discard else None),
            "".join(face(c) for c in reversed(kept))]
    return ("\n".join(out) + "\n").encode("utf-8")


def transcript(seed: int) -> bytes:
    """Exact stdout of solitaire_1.py for `seed` with stdin piped."""
    return _render(*_play(seed))


def outcome(seed):
    """Number of kept cards if the game seeded `seed` is won, else None."""
    _, kept, _ = _play(seed)
    return len(kept) if _won(kept) else None


def simulate_table(n: int, i: int) -> bytes:
    """Exact stdout of simulate(n, i)."""
    wins = Counter(outcome(s) for s in range(i, i + n))
    wins.pop(None, None)
    lines = ["Number of cards left when winning | Frequency", "-" * 45]
    lines += [f"{k:>33} | {wins[k] / n * 100:>8.2f}%" for k in sorted(wins)]
    return ("\n".join(lines) + "\n").encode("utf-8")
