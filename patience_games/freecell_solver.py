"""FreeCell's solver: Freecell Solver's `fc-solve` (Debian package
freecell-solver-bin), an optional extra like numpy, run as a subprocess.

The position goes to fc-solve as text (`board_text`); its moves come back in
its words ("Move 3 cards from stack 1 to stack 5", "Move a card from freecell 0
to the foundations"), become our engine's `Move`s, and each is checked by the
engine (`refusal`, then `play`) before it joins the line: the rules are the
engine's alone, and a move the engine refuses ends the search as GAVE_UP with
the reason, never as a wrong line. A line is WON only when the engine calls
its last position won.

Two scans, within one budget of `iterations` (fc-solve's states checked):
1. fc-solve's "looking-glass" preset (shipped in its package), a race of
   meta-move scans with Horne's prune (safe moves to the foundations, printed
   as moves like the others): fast (Microsoft deals 1-32,000 in 199 states a
   deal on average, where fc-solve's default scan needs more than a million
   for some, such as deal 9), and its sequence moves keep within the limit
   (free cells + 1) x 2^(empty cascades other than the destination), as ours
   do; but when it finds no solution, that proves nothing: it leaves moves out.
2. when the first scan finds no solution, or the engine refuses one of its
   moves, the atomic scan (`--tests-order 01ABCDE`: every single-card move
   there is, to the foundations, the free cells, a parent card or an empty
   cascade): slower, its moves are one card each, and when it has searched
   every position reachable ("I could not solve this game.", told apart
   from "Iterations count exceeded." by `-sel`) the position is LOST.
"""

import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from patience_games.engine import Move, play, refusal
from patience_games.solver import GAVE_UP, LOST, WON, Outcome


FC_SOLVE = "fc-solve"
MISSING = ("FreeCell's solver is Freecell Solver, which is not installed: "
           "apt-get install freecell-solver-bin (Debian, Ubuntu), "
           "or put its fc-solve program on the PATH.")
DEFAULT_ITERATIONS = 1_000_000  # states fc-solve checks, over both scans
TIMEOUT_SECONDS = 120  # per scan

FREE_CELLS = ("a", "b", "c", "d")  # fc-solve's freecells 0-3
FOUNDATIONS = ("h1", "h2", "h3", "h4")
CASCADES = tuple(str(n) for n in range(1, 9))  # fc-solve's stacks 0-7
FC_SUITS = "HCDS"  # the order fc-solve writes its Foundations line in

# Both scans: FreeCell as our rules have it, said out loud rather than left to
# fc-solve's defaults (which are the same): 4 free cells, 8 cascades, built down
# in alternating colours, any card on an empty cascade, sequence moves limited
# by the free cells and empty cascades. -m prints the moves (not the positions),
# -sel says "Iterations count exceeded." when the budget ran out.
VARIANT = ("--freecells-num", "4", "--stacks-num", "8", "--decks-num", "1",
           "--sequences-are-built-by", "alternate_color", "--sequence-move", "limited",
           "--empty-stacks-filled-by", "all")
OUTPUT = ("-m", "-sel")
META_SCAN = ("--load-config", "looking-glass")  # "lg" for short
ATOMIC_SCAN = ("--tests-order", "01ABCDE")

SOLVED = "This game is solveable."
NOT_SOLVED = "I could not solve this game."
EXCEEDED = "Iterations count exceeded."
STATES_CHECKED = re.compile(r"^Total number of states checked is (\d+)\.$")
MOVE = re.compile(r"^Move (?:a card|(?P<count>\d+) cards) from (?P<source>stack|freecell) "
                  r"(?P<source_number>\d+) to (?:(?P<destination>stack|freecell) "
                  r"(?P<destination_number>\d+)|(?P<foundations>the foundations))$")


class NotInstalled(RuntimeError):
    """fc-solve is not on the PATH; the message says what to install."""


def available() -> bool:
    return shutil.which(FC_SOLVE) is not None


# --- The position as fc-solve reads it ------------------------------------------------------

def board_text(game, position) -> str:
    """The position in fc-solve's board format: a Foundations line (each suit's
    highest card there, 0 for none), a Freecells line (- for an empty one, in the
    order a-d), then a line per cascade 1-8, its bottom card first, after a colon
    (so that an empty cascade is a line too)."""
    def pile(label):
        return position.piles[game.index(label)].cards

    highest = {suit: "0" for suit in FC_SUITS}
    for label in FOUNDATIONS:
        cards = pile(label)
        if cards:
            suit, rank = cards[-1].two_letters[1], cards[-1].two_letters[0]
            highest[suit] = rank
    foundations = " ".join(f"{suit}-{highest[suit]}" for suit in FC_SUITS)
    cells = " ".join(pile(label)[-1].two_letters if pile(label) else "-" for label in FREE_CELLS)
    lines = [f"Foundations: {foundations}", f"Freecells: {cells}"]
    lines += [(": " + " ".join(card.two_letters for card in pile(label))).rstrip()
              for label in CASCADES]
    return "\n".join(lines) + "\n"


# --- Running fc-solve ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Scan:
    """What one run of fc-solve said: its verdict line (SOLVED, NOT_SOLVED,
    EXCEEDED, or why there is none), its move lines and the states it checked."""
    verdict: str
    moves: tuple
    nodes: int


def run_fc_solve(board: str, scan: tuple, iterations: int,
                 timeout: float = TIMEOUT_SECONDS) -> Scan:
    command = [FC_SOLVE, *VARIANT, *OUTPUT, *scan, "-mi", str(iterations), "-"]
    environment = dict(os.environ, FREECELL_SOLVER_QUIET="1")
    try:
        done = subprocess.run(command, input=board, capture_output=True, text=True,
                              timeout=timeout, env=environment, check=False)
    except FileNotFoundError:
        raise NotInstalled(MISSING) from None
    except subprocess.TimeoutExpired:
        return Scan(f"fc-solve took more than {timeout:g} seconds", (), 0)
    lines = [line.strip() for line in done.stdout.splitlines()]
    nodes = next((int(match.group(1)) for match in map(STATES_CHECKED.match, lines) if match), 0)
    moves = tuple(line for line in lines if line.startswith("Move "))
    for verdict in (SOLVED, NOT_SOLVED, EXCEEDED):
        if verdict in lines:
            return Scan(verdict, moves, nodes)
    said = " ".join(done.stderr.split()) or f"exit status {done.returncode}"
    return Scan(f"fc-solve gave no verdict ({said})", (), nodes)


# --- fc-solve's moves as the engine's ---------------------------------------------------------

def engine_move(game, position, text: str):
    """fc-solve's move `text` as our Move, or why it is not one (a string): an
    unknown move, or the engine's refusal."""
    match = MOVE.match(text)
    if not match:
        return f"fc-solve's move is not one this program knows: {text!r}"
    labels = {"stack": CASCADES, "freecell": FREE_CELLS}
    try:
        source = game.index(labels[match["source"]][int(match["source_number"])])
        count = int(match["count"] or 1)
        if match["foundations"]:
            destinations = [game.index(label) for label in FOUNDATIONS]
        else:
            pile = labels[match["destination"]][int(match["destination_number"])]
            destinations = [game.index(pile)]
    except IndexError:
        return f"fc-solve's move names a pile this game does not have: {text!r}"
    # To the foundations: the first foundation that takes the card (its suit's,
    # or for an Ace the first empty one), as the command `h` chooses.
    refusals = []
    for destination in destinations:
        move = Move(source, destination, count)
        refused = refusal(game, position, move)
        if refused is None:
            return move
        refusals.append(refused)
    return f"the rules refuse fc-solve's move {text!r}: {refusals[0].reason.value}"


def checked_line(game, position, moves: tuple):
    """The engine's moves for fc-solve's, each checked and played: (line, None)
    when the line ends in a won position, else ((), why not)."""
    line = []
    for number, text in enumerate(moves, 1):
        move = engine_move(game, position, text)
        if isinstance(move, str):
            return (), f"move {number} of {len(moves)}: {move}"
        position = play(game, position, move)
        line.append(move)
    if not game.won(game, position):
        return (), f"fc-solve's {len(moves)} moves do not end in a won position"
    return tuple(line), None


# --- Solving ------------------------------------------------------------------------------------

def solve_and_explain(game, position, iterations: int = DEFAULT_ITERATIONS):
    """`solve`'s Outcome, and why it is not WON or LOST ("" when it is)."""
    if not available():
        raise NotInstalled(MISSING)
    board = board_text(game, position)
    nodes, reasons = 0, []
    for scan in (META_SCAN, ATOMIC_SCAN):
        budget = iterations - nodes
        if budget <= 0:
            reasons.append(f"the budget of {iterations} states is spent")
            break
        said = run_fc_solve(board, scan, budget)
        nodes += said.nodes
        if said.verdict == SOLVED:
            line, refused = checked_line(game, position, said.moves)
            if refused is None:
                return Outcome(WON, line, nodes), ""
            reasons.append(refused)
        elif said.verdict == NOT_SOLVED and scan == ATOMIC_SCAN:
            return Outcome(LOST, (), nodes), ""
        elif said.verdict == EXCEEDED:
            reasons.append(f"no solution within {budget} states")
        elif said.verdict != NOT_SOLVED:
            reasons.append(said.verdict)
    return Outcome(GAVE_UP, (), nodes), "; ".join(reasons)


def solve_freecell(game, position, iterations: int = DEFAULT_ITERATIONS) -> Outcome:
    """FreeCell from `position`: WON with a line of legal moves that ends in the
    win, LOST when fc-solve has searched every position reachable, or GAVE_UP
    (the budget of `iterations` states spent, a timeout, or a move the rules
    refuse). Raises NotInstalled, with MISSING, when fc-solve is absent."""
    return solve_and_explain(game, position, iterations)[0]
