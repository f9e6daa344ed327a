// main.cpp - Calculation (Goren's Hoyle), the console game: menus, prompts, turns and
// the end of a game. Specification: docs/hoyle_cli.md (section numbers below).
#include "calculation.h"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

using namespace std;

const int END_GAME = -1;  // the -1 rule of the action menu (§4.5)

// ===================================================================== Reading input (§6)

// The program ends at once, quietly, with status 0 (§8): at the end of input, on Ctrl-C,
// and when stdout's reader has gone (a closed pipe raises SIGPIPE at the next write).
void endQuietly(int) {
    _Exit(0);
}

// Shows everything printed so far, so that the prompt is on the screen before the
// program waits, then skips whitespace up to the next answer. When the input runs out
// first, the program ends: nothing more is printed, a game in progress is not scored.
void waitForAnswer() {
    cout.flush();
    cin >> ws;
    if (cin.eof()) {
        exit(0);
    }
}

// `cin >> number`. After a failed read, the rest of the line is thrown away (at most 1000
// bytes), so that the next read starts afresh. `number` holds what cin left in it either
// way: 0 when there was no digit, the int's limit after an overflow (the echo shows it).
bool readInt(int& number) {
    waitForAnswer();
    if (cin >> number) {
        return true;
    }
    cin.clear();
    cin.ignore(1000, '\n');
    return false;
}

// `cin >> letter`, upper-cased: one byte, whatever it is. Only a-z change, as toupper()
// does in the C locale; a byte above 127 is an answer of its own.
char readLetter() {
    waitForAnswer();
    char letter;
    cin >> letter;
    if (letter >= 'a' && letter <= 'z') {
        letter = letter - 'a' + 'A';
    }
    return letter;
}

// Reads until the number is one of first..last, printing `complaint` after each other answer.
int readChoice(int first, int last, const string& complaint) {
    int choice;
    while (!readInt(choice) || choice < first || choice > last) {
        cout << complaint;
    }
    return choice;
}

// Y or N; `lineAfterRead` prints a newline after every read (the play-again prompt does).
bool askYesOrNo(const string& prompt, bool lineAfterRead) {
    while (true) {
        cout << prompt;
        char answer = readLetter();
        if (lineAfterRead) {
            cout << "\n";
        }
        if (answer == 'Y') {
            return true;
        }
        if (answer == 'N') {
            return false;
        }
        cout << "I don't understand.  I was expecting Y or N.\n";
    }
}

// A pile number 1..4, returned as an index 0..3. With `echo`, the value of the first read
// is printed back (§4.7), whatever it was; the re-reads are silent.
int readPile(const string& prompt, bool echo) {
    cout << prompt;
    int number;
    bool ok = readInt(number);
    if (echo) {
        cout << number << "\n";
    }
    while (!ok || number < 1 || number > PILES) {
        cout << "That is not a valid pile.\n" << prompt;
        ok = readInt(number);
    }
    return number - 1;
}

// ===================================================================== A game (§4)

// The starting card of an empty foundation: a card of the rank the foundation starts with.
int readStartingCard(const Game& game, int foundation) {
    string rank = nextRankText(game, foundation);
    while (true) {
        cout << "Enter the card number for the starting " << rank << ": ";
        int number;
        bool ok = readInt(number);
        cout << "\n";
        if (!ok) {
            cout << "You did not enter a number.\n";
        } else if (!isCard(number) || !foundationTakes(game, foundation, number)) {
            cout << "The card chosen is not a(n) " << rank << "\n";
        } else {
            return number;
        }
    }
}

// §4.6: the checks come in this order.
void drawCard(Game& game) {
    while (true) {
        cout << "Enter the card number for the drawn card: ";
        int number;
        bool ok = readInt(number);
        cout << "\n";
        if (!ok) {
            cout << "You did not enter a number.\n";
        } else if (!isCard(number)) {
            cout << "That is not a valid card.\n";
        } else if (!game.inStock[number]) {
            cout << "That card has already been drawn.\n";
        } else {
            drawFromStock(game, number);
            return;
        }
    }
}

void printInvalidPlay(const Game& game, int foundation) {
    cout << "That is an invalid play. The next card for that pile is a " << nextRankText(game, foundation)
         << "\n";
}

// §4.7: the held card onto a foundation that takes it, or onto any waste pile.
void playHeldCard(Game& game) {
    char where;
    while (true) {
        cout << "Do you want to play on a: \nF. Foundation Pile\nW. Waste Pile\n";
        where = readLetter();
        if (where == 'F' || where == 'W') {
            break;
        }
        cout << "I do not understand. I am expecting an F or W.\n";
    }
    if (where == 'W') {
        int pile = readPile("Which waste pile (1-4) do you want to play on? ", true);
        addToPile(game.wastePiles[pile], game.heldCard);
        game.heldCard = NO_CARD;
        return;
    }
    int foundation = readPile("Which foundation pile (1-4) do you want to play on? ", true);
    if (foundationTakes(game, foundation, game.heldCard)) {
        addToPile(game.foundations[foundation], game.heldCard);
        game.heldCard = NO_CARD;
    } else {
        printInvalidPlay(game, foundation);  // the card stays held
    }
}

// §4.8: only a waste pile's top card moves, and only onto a foundation; a held card stays held.
void playFromWastePile(Game& game) {
    int pile = readPile("Which waste pile (1-4) do you want to play from? ", false);
    int foundation = readPile("Which foundation pile(1-4) do you want to play on? ", false);
    Pile& waste = game.wastePiles[pile];
    if (waste.count > 0 && foundationTakes(game, foundation, topCard(waste))) {
        addToPile(game.foundations[foundation], takeTopCard(waste));
    } else {
        printInvalidPlay(game, foundation);
    }
}

void showWastePile(const Game& game, bool asciiCards) {
    int pile = readPile("Which waste pile (1-4) do you want to see? ", false);
    printWastePile(game.wastePiles[pile], asciiCards);
}

bool hasWasteCards(const Game& game) {
    for (int pile = 0; pile < PILES; pile++) {
        if (game.wastePiles[pile].count > 0) {
            return true;
        }
    }
    return false;
}

// §4.5: only the first read takes -1; after one rejected entry, -1 is rejected too.
int chooseAction(const Game& game) {
    cout << "What would you like to do: (Enter -1 to quit)\n";
    if (game.heldCard != NO_CARD) {
        cout << "1. Play Drawn Card\n";
    } else if (game.remaining > 0) {
        cout << "1. Draw Card\n";
    } else {
        cout << "1. Finish Game and Calculate Score\n";
    }
    int last = 1;
    if (hasWasteCards(game)) {
        cout << "2. Play Card from Waste Pile\n3. Display an entire waste pile\n";
        last = 3;
    }
    int choice;
    bool ok = readInt(choice);
    if (ok && choice == END_GAME) {
        return END_GAME;
    }
    while (!ok || choice < 1 || choice > last) {
        cout << "That is an invalid choice\n";
        ok = readInt(choice);
    }
    return choice;
}

// One turn (§4.2): the board, the action menu, the choice carried out.
// Returns false once the game is over.
bool playTurn(Game& game, bool asciiCards) {
    printBoard(game, asciiCards);
    int choice = chooseAction(game);
    if (choice == END_GAME) {
        return false;
    }
    if (choice == 2) {
        playFromWastePile(game);
    } else if (choice == 3) {
        showWastePile(game, asciiCards);
    } else if (game.heldCard != NO_CARD) {
        playHeldCard(game);
    } else if (game.remaining > 0) {
        drawCard(game);
    } else {
        return false;  // 1. Finish Game and Calculate Score
    }
    return true;
}

void playGame(bool asciiCards) {
    Game game;
    resetGame(game);
    for (int foundation = 0; foundation < PILES; foundation++) {
        int card = readStartingCard(game, foundation);
        takeFromStock(game, card);
        addToPile(game.foundations[foundation], card);
    }
    while (playTurn(game, asciiCards)) {
    }
    int score = scoreOf(game);
    if (score == 0) {
        cout << "You Won! You scored 0 points.\n";
    } else {
        cout << "Game Over! You scored " << score << " points.\n";
    }
    appendScore(statsFilePath(), score);
}

// A new game at once after Y (§4.10): no main menu, no ready prompt.
void playGames(bool asciiCards) {
    do {
        playGame(asciiCards);
    } while (askYesOrNo("Would you like to play again? ", true));
}

// ===================================================================== Menus (§3)

void optionsMenu(bool& asciiCards) {
    cout << "Options Menu:\n";
    if (asciiCards) {
        cout << "1. Disable ASCII Cards \n";
    } else {
        cout << "1. Enable ASCII Cards\n";
    }
    cout << "2. Display Stats\n";
    if (readChoice(1, 2, "That is not a valid choice.\n") == 1) {
        asciiCards = !asciiCards;
    } else {
        printStats(statsFilePath());
    }
}

int main() {
    signal(SIGPIPE, endQuietly);
    signal(SIGINT, endQuietly);
    const string menuItems = "1. Start Game\n2. Options\n3. Quit\n";
    bool asciiCards = false;  // lasts for the whole run, across games
    while (true) {
        cout << "Welcome to Calculation!\n" << menuItems;
        int choice = readChoice(1, 3, "That is not a valid choice.\n" + menuItems);
        if (choice == 3) {
            return 0;
        }
        if (choice == 2) {
            optionsMenu(asciiCards);
        } else if (askYesOrNo("Are you ready to play? ", false)) {
            playGames(asciiCards);
        }
    }
}
