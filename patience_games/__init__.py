"""Five patience games on one rules engine: Golf, Little Spider, Spider,
FreeCell and Curds and Whey (specification: docs/patience.md).

- cards.py        a card, its character and its two-letter name
- engine.py       piles and their rules as data; positions, moves, refusals
- games.py        the five games as declarations, plus their few special rules
- freecell_ms.py  Microsoft FreeCell's numbered deals
- commands.py     what a typed line means
- render.py       the board as lines
- messages.py     every text the program prints
- session.py      one game at the console: a line in, lines out
"""
