// calculation.cpp - the cards, the rules, the boards and the stats file of Calculation.
// Specification: docs/hoyle_cli.md.
#include "calculation.h"

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

using namespace std;

const string RANK_TEXTS[RANKS] = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"};
const string SUIT_GLYPHS[SUITS] = {"♦", "♣", "♥", "♠"};  // U+2666 U+2663 U+2665 U+2660, in suit order

// ===================================================================== Cards and bytes

int rankOf(int card) {
    return card % RANKS + 1;
}

int suitOf(int card) {
    return card / RANKS;
}

bool isCard(int number) {
    return number >= 0 && number < DECK_SIZE;
}

string rankText(int rank) {
    return RANK_TEXTS[rank - 1];
}

string cardText(int card) {
    return rankText(rankOf(card)) + SUIT_GLYPHS[suitOf(card)];
}

bool isWhitespace(char byte) {
    return byte == ' ' || byte == '\t' || byte == '\n' || byte == '\v' || byte == '\f' || byte == '\r';
}

bool isDigit(char byte) {
    return byte >= '0' && byte <= '9';
}

// ===================================================================== Rules

// Every game starts from a full reset (§4.1), however it was started.
void resetGame(Game& game) {
    for (int card = 0; card < DECK_SIZE; card++) {
        game.inStock[card] = true;
    }
    game.remaining = DECK_SIZE;
    for (int pile = 0; pile < PILES; pile++) {
        game.foundations[pile].count = 0;
        game.wastePiles[pile].count = 0;
    }
    game.heldCard = NO_CARD;
}

int topCard(const Pile& pile) {
    if (pile.count == 0) {
        return NO_CARD;
    }
    return pile.cards[pile.count - 1];
}

void addToPile(Pile& pile, int card) {
    pile.cards[pile.count] = card;
    pile.count++;
}

int takeTopCard(Pile& pile) {
    pile.count--;
    return pile.cards[pile.count];
}

// Foundation k (0..3) starts with rank k + 1 and goes up by k + 1 each time, wrapping
// after the King; it is complete with 13 cards, and then takes nothing (0).
int nextRank(const Game& game, int foundation) {
    const Pile& pile = game.foundations[foundation];
    int step = foundation + 1;
    if (pile.count == 0) {
        return step;
    }
    if (pile.count == RANKS) {
        return 0;
    }
    return (rankOf(topCard(pile)) + step - 1) % RANKS + 1;
}

// A complete foundation's next rank is written as one space (§2).
string nextRankText(const Game& game, int foundation) {
    int rank = nextRank(game, foundation);
    if (rank == 0) {
        return " ";
    }
    return rankText(rank);
}

bool foundationTakes(const Game& game, int foundation, int card) {
    return rankOf(card) == nextRank(game, foundation);
}

void takeFromStock(Game& game, int card) {
    game.inStock[card] = false;
    game.remaining--;
}

// The card leaves the stock and is held until it is played.
void drawFromStock(Game& game, int card) {
    takeFromStock(game, card);
    game.heldCard = card;
}

// Cards on the waste piles plus cards in the stock; a held card lies on neither,
// so it does not count (§2). 0 is a win.
int scoreOf(const Game& game) {
    int score = game.remaining;
    for (int pile = 0; pile < PILES; pile++) {
        score += game.wastePiles[pile].count;
    }
    return score;
}

// ===================================================================== Boards

void printStockLine(const Game& game) {
    if (game.heldCard == NO_CARD) {
        cout << "Remaining Cards (" << game.remaining << ")\n";
    } else {
        cout << "Drawn Card: " << cardText(game.heldCard) << "\n";
    }
}

// Text mode (§4.3): each entry is followed by 5 spaces; an empty waste pile is 7 spaces.
void printTextBoard(const Game& game) {
    for (int pile = 0; pile < PILES; pile++) {
        cout << "F" << pile + 1 << ":  " << cardText(topCard(game.foundations[pile])) << "     ";
    }
    cout << "\n";
    for (int pile = 0; pile < PILES; pile++) {
        cout << "W" << pile + 1 << ":  ";
        if (game.wastePiles[pile].count == 0) {
            cout << "       ";
        } else {
            cout << cardText(topCard(game.wastePiles[pile])) << "     ";
        }
    }
    cout << "\n";
    printStockLine(game);
}

// Line `line` (0..6) of a card's picture with its trailing space; NO_CARD draws an
// empty pile (§4.4).
string faceLine(int card, int line) {
    if (line == 0) {
        return "┌─────────┐ ";
    }
    if (line == 6) {
        return "└─────────┘ ";
    }
    if (card == NO_CARD || line == 2 || line == 4) {
        return "│         │ ";
    }
    string rank = rankText(rankOf(card));
    string padding(8 - rank.size(), ' ');
    if (line == 1) {
        return "│ " + rank + padding + "│ ";
    }
    if (line == 3) {
        return "│    " + SUIT_GLYPHS[suitOf(card)] + "    │ ";
    }
    return "│" + padding + rank + " │ ";
}

// The original program printed one more trailing space after the rank line.
void endPictureLine(int line) {
    if (line == 1) {
        cout << " ";
    }
    cout << "\n";
}

// The top cards of four piles side by side, each numbered under its bottom-left corner.
void printBlock(const Pile piles[]) {
    for (int line = 0; line < 7; line++) {
        for (int pile = 0; pile < PILES; pile++) {
            if (line == 6) {
                cout << pile + 1 << " ";
            } else {
                cout << "  ";
            }
            cout << faceLine(topCard(piles[pile]), line);
        }
        endPictureLine(line);
    }
}

void printSingleCard(int card) {
    for (int line = 0; line < 7; line++) {
        cout << faceLine(card, line);
        endPictureLine(line);
    }
}

void printCardBack() {
    cout << "┌─────────┐\n";
    for (int line = 0; line < 5; line++) {
        cout << "│░░░░░░░░░│\n";
    }
    cout << "└─────────┘\n";
}

void printAsciiBoard(const Game& game) {
    cout << "Foundation Piles:\n";
    printBlock(game.foundations);
    cout << "\n";
    cout << "Waste Piles:\n";
    printBlock(game.wastePiles);
    cout << "\n";
    if (game.heldCard == NO_CARD) {
        cout << "Remaining Cards (" << game.remaining << ")\n";
        printCardBack();
    } else {
        cout << "Drawn Card: \n";
        printSingleCard(game.heldCard);
        cout << "\n";
    }
}

void printBoard(const Game& game, bool asciiCards) {
    if (asciiCards) {
        printAsciiBoard(game);
    } else {
        printTextBoard(game);
    }
}

// A whole waste pile, from its top card down (§4.9).
void printWastePile(const Pile& pile, bool asciiCards) {
    for (int i = pile.count - 1; i >= 0; i--) {
        if (asciiCards) {
            printSingleCard(pile.cards[i]);
        } else {
            cout << cardText(pile.cards[i]) << "\n";
        }
    }
}

// ===================================================================== Stats file

string statsFilePath() {
    const char* path = getenv("HOYLE_STATS_FILE");
    if (path == nullptr || path[0] == '\0') {
        return "hoyle_stats.txt";
    }
    return path;
}

// The file's bytes; nothing when it is missing or cannot be read (no games).
string readWholeFile(const string& path) {
    ifstream file(path, ios::binary);
    string content;
    char byte;
    while (file.get(byte)) {
        content += byte;
    }
    return content;
}

// One line per finished game. A last line without its LF is ended first, so that the
// new score never joins it. ios::app opens the file for appending (created when
// missing); a file that cannot be opened is ignored: the game goes on.
void appendScore(const string& path, int score) {
    string content = readWholeFile(path);
    string line = to_string(score) + "\n";
    if (!content.empty() && content[content.size() - 1] != '\n') {
        line = "\n" + line;
    }
    ofstream file(path, ios::app | ios::binary);
    file << line;
}

// The line without the whitespace at either end.
string stripped(const string& line) {
    size_t first = 0;
    size_t last = line.size();
    while (first < last && isWhitespace(line[first])) {
        first++;
    }
    while (last > first && isWhitespace(line[last - 1])) {
        last--;
    }
    return line.substr(first, last - first);
}

// A line counts when it is one or more ASCII digits (§7).
bool isScore(const string& text) {
    if (text.empty()) {
        return false;
    }
    for (size_t i = 0; i < text.size(); i++) {
        if (!isDigit(text[i])) {
            return false;
        }
    }
    return true;
}

bool isZero(const string& digits) {
    return digits.find_first_not_of('0') == string::npos;
}

// A score may have any number of digits, more than any integer type holds, so the
// total is kept as a string of decimal digits, added the way it is done on paper.
string addDecimals(const string& a, const string& b) {
    string reversedSum;
    int carry = 0;
    int i = (int)a.size() - 1;
    int j = (int)b.size() - 1;
    while (i >= 0 || j >= 0 || carry > 0) {
        int digit = carry;
        if (i >= 0) {
            digit += a[i] - '0';
            i--;
        }
        if (j >= 0) {
            digit += b[j] - '0';
            j--;
        }
        reversedSum += (char)('0' + digit % 10);
        carry = digit / 10;
    }
    return string(reversedSum.rbegin(), reversedSum.rend());
}

// total / games rounded to the nearest double, as the handout's `total / count` is:
// long division writes the quotient in decimal, and strtod rounds a decimal correctly.
// 80 digits after the point are more than the rounding can need; a last 1 stands for
// the digits that would follow, so that a remainder is never taken for a tie.
double averageOf(const string& total, long long games) {
    string quotient;
    long long remainder = 0;
    for (size_t i = 0; i < total.size(); i++) {
        remainder = remainder * 10 + (total[i] - '0');
        quotient += (char)('0' + remainder / games);
        remainder %= games;
    }
    quotient += '.';
    for (int place = 0; place < 80 && remainder != 0; place++) {
        remainder *= 10;
        quotient += (char)('0' + remainder / games);
        remainder %= games;
    }
    if (remainder != 0) {
        quotient += '1';
    }
    return strtod(quotient.c_str(), nullptr);  // inf when too large for a double
}

void printStats(const string& path) {
    string content = readWholeFile(path);
    long long won = 0;
    long long lost = 0;
    string total = "0";
    size_t start = 0;
    while (start <= content.size()) {
        size_t end = content.find('\n', start);
        if (end == string::npos) {
            end = content.size();
        }
        string text = stripped(content.substr(start, end - start));
        if (isScore(text)) {
            if (isZero(text)) {
                won++;
            } else {
                lost++;
            }
            total = addDecimals(total, text);
        }
        start = end + 1;
    }
    double average = 0.0;
    if (won + lost > 0) {
        average = averageOf(total, won + lost);
    }
    ostringstream averageText;
    averageText << fixed << setprecision(2) << average;  // printf's %.2f: inf stays inf
    cout << "Games Won: " << won << "\n";
    cout << "Games Lost: " << lost << "\n";
    cout << "Average Score: " << averageText.str() << "\n";
}
