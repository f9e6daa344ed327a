"""Every text the program prints, once each (docs/hoyle_cli.md §3-§7). Lines end with
their LF; prompts have none, since the read follows them at once."""

# --- Main menu and options (§3) ---------------------------------------------
WELCOME = "Welcome to Calculation!\n"
MAIN_MENU_ITEMS = "1. Start Game\n2. Options\n3. Quit\n"
NOT_A_VALID_CHOICE = "That is not a valid choice.\n"
OPTIONS_TITLE = "Options Menu:\n"
ENABLE_ASCII_ITEM = "1. Enable ASCII Cards\n"
DISABLE_ASCII_ITEM = "1. Disable ASCII Cards \n"
DISPLAY_STATS_ITEM = "2. Display Stats\n"
STATS = "Games Won: {won}\nGames Lost: {lost}\nAverage Score: {average}\n"
READY_PROMPT = "Are you ready to play? "
EXPECTING_Y_OR_N = "I don't understand.  I was expecting Y or N.\n"

# --- Starting cards and drawing (§4.1, §4.6) ----------------------------------
STARTING_CARD_PROMPT = "Enter the card number for the starting {rank}: "
NOT_A_NUMBER = "You did not enter a number.\n"
NOT_OF_RANK = "The card chosen is not a(n) {rank}\n"
DRAW_PROMPT = "Enter the card number for the drawn card: "
NOT_A_CARD = "That is not a valid card.\n"
ALREADY_DRAWN = "That card has already been drawn.\n"

# --- Boards (§4.3, §4.4) -------------------------------------------------------
FOUNDATION_ENTRY = "F{number}:  {card}     "
WASTE_ENTRY = "W{number}:  {card}     "
DRAWN_CARD = "Drawn Card: {card}\n"  # the ASCII board's heading is this line without the card
REMAINING = "Remaining Cards ({remaining})\n"
FOUNDATION_PILES = "Foundation Piles:\n"
WASTE_PILES = "Waste Piles:\n"

# --- Action menu and moves (§4.5-§4.9) -----------------------------------------
ACTION_TITLE = "What would you like to do: (Enter -1 to quit)\n"
PLAY_DRAWN_ITEM = "1. Play Drawn Card\n"
DRAW_ITEM = "1. Draw Card\n"
FINISH_ITEM = "1. Finish Game and Calculate Score\n"
WASTE_ITEMS = "2. Play Card from Waste Pile\n3. Display an entire waste pile\n"
INVALID_ACTION = "That is an invalid choice\n"
WHERE_TO_PLAY = "Do you want to play on a: \nF. Foundation Pile\nW. Waste Pile\n"
EXPECTING_F_OR_W = "I do not understand. I am expecting an F or W.\n"
FOUNDATION_TO_PLAY_ON = "Which foundation pile (1-4) do you want to play on? "
WASTE_TO_PLAY_ON = "Which waste pile (1-4) do you want to play on? "
ECHO = "{value}\n"
NOT_A_PILE = "That is not a valid pile.\n"
INVALID_PLAY = "That is an invalid play. The next card for that pile is a {next}\n"
WASTE_TO_PLAY_FROM = "Which waste pile (1-4) do you want to play from? "
FOUNDATION_TO_MOVE_TO = "Which foundation pile(1-4) do you want to play on? "
WASTE_TO_SEE = "Which waste pile (1-4) do you want to see? "

# --- End of game (§4.10) --------------------------------------------------------
WON = "You Won! You scored {score} points.\n"
LOST = "Game Over! You scored {score} points.\n"
PLAY_AGAIN_PROMPT = "Would you like to play again? "
END_OF_LINE = "\n"  # what the program prints after the starting-card, draw and play-again reads
