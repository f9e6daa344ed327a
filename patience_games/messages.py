"""Every text the program prints, in one place: titles, prompts, refusals that
name the rule broken, the rules in words (quoted by the refusals) and the help."""

from patience_games.engine import Reason

# --- The console -----------------------------------------------------------------

PROMPT = "> "
NOT_A_GAME = "unknown game {name!r} (choose from {games})"
BAD_DEAL_NUMBER = "a Microsoft deal number is a whole number from 1 to {most}, not '{value}'"
BAD_SEED = "a seed is a whole number of at most {digits} digits, not '{value}'"
BAD_SUITS = "the number of suits is 1, 2 or 4, not '{value}'"
LONG_WORD = "{start}… ({length} characters)"
ONLY_FOR = "{option} is for {game} only"
SEED_AND_MS = "give --seed or --ms, not both"
TITLE_SEED = "{game}, seed {seed}"
TITLE_RANDOM_SEED = "{game}, seed {seed} (chosen at random)"
TITLE_MS = "{game}, Microsoft deal {number}"
TYPE_HELP = "Type help for the commands."
WON = "You won!"
SCORE = "score {score}, runs removed {runs}"
NOTHING_TO_UNDO = "There is no move to undo."
HINT = "Hint: {command}"
ALREADY_WON = "The game is won already."
CANNOT_BE_WON = "This position cannot be won: the search tried every line from it."
SEARCH_GAVE_UP = "The search gave up after {nodes} positions without finding a win."
SOLVING = "Solving: {moves} moves to the win."
SOLVE_STEP = "> {command}"

# --- patience.py simulate GAME N I --------------------------------------------------
TABLE_OUTCOME = "Deals"
TABLE_COUNT = "Count"
TABLE_FREQUENCY = "Frequency"
TABLE_WON = "won"
TABLE_LOST = "proven lost"
TABLE_UNDECIDED = "undecided"
TABLE_TIME = "Time per deal: {milliseconds:.1f} ms of search"
TABLE_PROGRESS = "{done}/{count} deals"
SIMULATE_USAGE = "patience.py simulate GAME N I: the deals I to I+N-1 (--ms numbers for FreeCell)"
BAD_DEAL_COUNT = "N is the number of deals, a whole number from 1, not '{value}'"
BAD_FIRST_DEAL = "I is the first deal, a whole number (1 to {most} for FreeCell), not '{value}'"
UNKNOWN_COMMAND = "Unknown command '{text}'. Type help for the commands."
UNKNOWN_PILE = "There is no pile '{label}' in {game}. The piles are: {labels}."
SEVERAL_SOURCES = "'{label}' names several piles; move from one of them: {labels}."
BAD_COUNT = "The number of cards to move must be a whole number from 1, not '{text}'."

# --- Game names --------------------------------------------------------------------

GOLF = "Golf"
LITTLE_SPIDER = "Little Spider"
SPIDER = "Spider ({suits})"
SPIDER_SUITS = {1: "1 suit", 2: "2 suits", 4: "4 suits"}
FREECELL = "FreeCell"
CURDS_AND_WHEY = "Curds and Whey"

# --- Pile kinds and their rules in words ---------------------------------------

TABLEAU_PILE = "tableau pile"
HOMECELL = "homecell"
STOCK = "stock"
FREE_CELL = "free cell"
FOUNDATION = "foundation"
CASCADE = "cascade"

STOCK_TAKES = "nothing is ever added to the stock"
GOLF_STOCK_LEAVING = "only the stock's top card moves, onto the homecell"
GOLF_HOMECELL_TAKES = ("a tableau pile's top card goes on the homecell when its rank is one "
                       "above or one below the homecell's top card, any suit, King and Ace "
                       "wrapping")
GOLF_EMPTY_HOMECELL_TAKES = "only the stock's top card goes on the empty homecell"
GOLF_HOMECELL_LEAVING = "cards never leave the homecell"
GOLF_TABLEAU_TAKES = "cards are never added to a tableau pile in Golf"
ONE_CARD_LEAVING = "only the top card of a pile moves"
LITTLE_SPIDER_TABLEAU_TAKES = ("a card goes on a tableau pile when its rank is one above or one "
                               "below the top card's, any suit, King and Ace wrapping")
LITTLE_SPIDER_EMPTY_TABLEAU_TAKES = "an empty tableau pile takes nothing"
LITTLE_SPIDER_UP_TAKES = ("a Heart or Diamond goes on its homecell when it has the top card's "
                          "suit and the rank one above")
LITTLE_SPIDER_DOWN_TAKES = ("a Club or Spade goes on its homecell when it has the top card's "
                            "suit and the rank one below")
LITTLE_SPIDER_HOMECELL_LEAVING = "the top card of a homecell may move, except its last card"
SPIDER_TABLEAU_TAKES = "a card goes on a card one rank higher, any suit"
SPIDER_RUN = "several cards move together only as a run down in one suit"
SPIDER_STOCK_LEAVING = "the stock deals with the command deal, one card on each tableau pile"
FREE_CELL_TAKES = "a free cell holds one card"
FOUNDATION_TAKES = "a foundation is built up in the suit of its Ace, one card at a time"
EMPTY_FOUNDATION_TAKES = "an empty foundation takes only an Ace"
FOUNDATION_LEAVING = "cards never leave a foundation"
CASCADE_TAKES = "a cascade is built down in alternating colours"
CASCADE_RUN = "several cards move together only as a sequence down in alternating colours"
CURDS_TAKES = ("a card goes on the card of its suit one rank higher, or on a card of its rank "
               "and another suit")
CURDS_EMPTY_TAKES = ("an empty pile takes only a King, a sequence starting with a King or a "
                     "group of Kings")
CURDS_RUN = ("several cards move together only as a sequence down in one suit or as a group "
             "of one rank, not as a mix of the two")

# --- Refusals ------------------------------------------------------------------------

REFUSALS = {
    Reason.SAME_PILE: "The cards are already on {source}.",
    Reason.EMPTY_SOURCE: "There is no card on {source}.",
    Reason.NEVER_LEAVES: "No card may leave {source}: {leaving}.",
    Reason.ONE_CARD_AT_A_TIME: "Only one card may leave {source}: {leaving}.",
    Reason.KEEPS_LAST_CARD: "The last card of {source} stays: {leaving}.",
    Reason.TOO_FEW_CARDS: "Cannot move {count} cards from {source}: it has only {0} face up.",
    Reason.NOT_A_RUN: "The top {count} cards of {source} do not move together: {leaving}.",
    Reason.CANNOT_ADD: "{cards} cannot go on {destination}: {takes}.",
    Reason.EMPTY_PILE_REFUSES: "{cards} cannot go on {destination}: {takes}.",
    Reason.OVER_LIMIT: ("Too many cards to move at once: the limit (N + 1) × 2^M is {0}, with "
                        "N = {1} (empty free cells) and M = {2} (empty cascades other than the "
                        "destination)."),
    Reason.NO_STOCK: "There is no stock in {game}.",
    Reason.STOCK_EMPTY: "The stock is empty.",
    Reason.EMPTY_PILE_BLOCKS_DEAL: "The stock deals only when no tableau pile is empty.",
}

NONE_TAKES = "{cards} cannot go on any of {labels}: {takes}."
RULES_JOINED = "; "

# --- Help ------------------------------------------------------------------------------

COMMANDS = """\
Commands, one per line:
  FROM TO      move from pile FROM to pile TO the top card, or as many cards
               as may legally move together (the most that may)
  FROM TO N    move the top N cards
{draw}  undo, u      take back the last move
  hint         a move from which the game can still be won
  solve        play a winning line to the end, move by move
  help, ?      this help
  quit, q      stop (end of input stops too; both exit with status 0)
Piles: {piles}.

{rules}"""
PILE_GROUP = "{labels} ({name})"
PILE_RANGE = "{first}-{last}"
PLURAL = "{name}s"
GOLF_DRAW = "  draw, d      turn the stock's top card onto the homecell (as: s h)\n"
SPIDER_DRAW = "  deal, d      deal one card from the stock onto each tableau pile\n"

GOLF_RULES = """\
Golf: move all 52 cards onto the homecell h.
- 7 tableau piles of 5 cards; the other 17 are the stock, face down.
- A tableau pile's top card goes on the homecell when its rank is one above or
  one below the homecell's top card, any suit. Ranks wrap: Ace follows King.
- The stock's top card may always go on the homecell.
- Cards are never added to a tableau pile and never leave the homecell.
Where the rules are silent: the homecell starts empty and then takes only the
stock's top card, as in the common game, whose first homecell card comes from
the stock."""

LITTLE_SPIDER_RULES = """\
Little Spider: move all 52 cards onto the homecells.
- Homecells h1 to h4 start with the Ace of Diamonds, the Ace of Hearts, the
  King of Clubs and the King of Spades; 8 tableau piles of 6 cards follow.
- A Heart or Diamond goes on its homecell one rank up, a Club or Spade one
  rank down, in the homecell's suit.
- A card goes on a tableau pile one rank above or below its top card, any
  suit, King and Ace wrapping. An empty tableau pile takes nothing.
- A homecell's top card may go back to a tableau pile, except its last card.
- Type h for the homecell that takes the card.
Where the rules are silent: the four homecell cards are taken out of the
shuffled deck; the other 48 are dealt in the order they are left in."""

SPIDER_RULES = """\
Spider: remove all 104 cards from the table as runs King to Ace in one suit.
- 10 tableau piles (6, 6, 6, 6 then 5 cards), only their top card face up;
  the other 50 cards are the stock. A face-down top card is turned up.
- A card goes on a card one rank higher, any suit. Several cards move together
  only as a run down in one suit. An empty pile takes any card or run.
- A complete run King to Ace in one suit is removed at once.
- deal puts one stock card on each pile, only when no pile is empty.
- Score: 500 at the start, -1 per move, +100 per run removed.
Where the rules are silent: a deal is a move (-1); undo restores the score
too; 4 suits unless --suits says 1 (Spades) or 2 (Spades and Hearts); the 104
cards are numbered 0 to 103, card n of rank n % 13 + 1 and of the (n // 13)-th
suit of the mode in turn, suits in the order Hearts, Diamonds, Clubs, Spades."""

FREECELL_RULES = """\
FreeCell: move all 52 cards onto the foundations.
- 4 free cells (a to d), 4 foundations (h1 to h4), 8 cascades (7, 7, 7, 7,
  then 6 cards), all face up.
- Cascades are built down in alternating colours; an empty cascade takes any
  card. Foundations are built up in suit from the Ace. A free cell holds one
  card.
- A sequence may move at once when it has at most (N + 1) × 2^M cards, with
  N empty free cells and M empty cascades, not counting the destination.
- Type h for the foundation that takes the card.
Where the rules are silent: as in Microsoft FreeCell, any empty foundation
takes any Ace and cards never leave a foundation; --seed deals the 52
numbered cards shuffled like the other games, --ms N Microsoft's deal N."""

CURDS_AND_WHEY_RULES = """\
Curds and Whey: build four sequences, each King down to Ace in one suit.
- 13 tableau piles of 4 cards, face up; no homecells.
- A card goes on the card of its suit one rank higher, or on a card of its
  rank and another suit.
- A sequence down in one suit, or a group of one rank, moves as a unit, in
  part or whole; a pile that mixes the two steps moves only its top part that
  follows one of them.
- An empty pile takes only a King or a sequence starting with a King.
- Won when the table shows the four suit sequences King to Ace.
Where the rules are silent: a group of Kings moves onto an empty pile as a
unit, like a sequence starting with a King. Rules as PySolFC's
pysollib/games/curdsandwhey.py where the handout is silent."""
