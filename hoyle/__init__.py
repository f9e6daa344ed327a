"""Calculation (Goren's Hoyle), the console game of hoyle_cli.py, one concern per module:

    model     the cards, the rules and the score, as data
    cin       C++-style `cin >>` reads over a buffer of bytes
    messages  every text the program prints, in one place
    render    cards, boards and waste piles as text or ASCII art
    stats     the stats file: one score per finished game, and what it says
    session   the conversation: menus, prompts, turns, end of game

Specification: docs/hoyle_cli.md.
"""
