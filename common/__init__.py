"""What the programs of the kit really share: card characters, seeded deals,
pile drawing, probability tables, the console edge, and the golden cases."""
