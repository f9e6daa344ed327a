// calculation.h - Calculation (Goren's Hoyle): the cards, the state of a game and
// its rules, the boards, and the stats file.
// Specification: docs/hoyle_cli.md (the section numbers below are its own).
#ifndef CALCULATION_H
#define CALCULATION_H

#include <string>

const int SUITS = 4;
const int RANKS = 13;
const int DECK_SIZE = SUITS * RANKS;  // cards 0..51: number = 13 * suit + rank - 1 (§1)
const int PILES = 4;                  // four foundations, and four waste piles
const int NO_CARD = -1;               // an empty pile's top card, or no card held

// A pile of cards, bottom first: cards[count - 1] is the top card.
// Any pile fits in a whole deck, so one size serves foundations and waste piles.
struct Pile {
    int cards[DECK_SIZE];
    int count;
};

// One game of Calculation (§2).
struct Game {
    bool inStock[DECK_SIZE];  // true while the card is neither on a pile nor drawn
    int remaining;            // how many cards the stock holds
    Pile foundations[PILES];
    Pile wastePiles[PILES];
    int heldCard;             // the drawn card not played yet, or NO_CARD
};

// --- Cards and bytes (§1, §6) ---
int rankOf(int card);       // 1 (Ace) .. 13 (King)
int suitOf(int card);       // 0 diamonds, 1 clubs, 2 hearts, 3 spades
bool isCard(int number);
std::string rankText(int rank);
std::string cardText(int card);
bool isWhitespace(char byte);  // space, TAB, LF, VT, FF, CR: what cin skips
bool isDigit(char byte);       // ASCII 0-9 only

// --- Rules (§2) ---
void resetGame(Game& game);
int topCard(const Pile& pile);  // NO_CARD for an empty pile
void addToPile(Pile& pile, int card);
int takeTopCard(Pile& pile);
int nextRank(const Game& game, int foundation);  // 0 once the foundation is complete
std::string nextRankText(const Game& game, int foundation);
bool foundationTakes(const Game& game, int foundation, int card);
void takeFromStock(Game& game, int card);
void drawFromStock(Game& game, int card);
int scoreOf(const Game& game);

// --- Boards (§4.3, §4.4, §4.9) ---
void printBoard(const Game& game, bool asciiCards);
void printWastePile(const Pile& pile, bool asciiCards);

// --- Stats file (§7) ---
std::string statsFilePath();
void appendScore(const std::string& path, int score);
void printStats(const std::string& path);

#endif
