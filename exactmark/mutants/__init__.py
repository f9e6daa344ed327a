"""Mutation analysis of the references: which behaviours of a reference no marked case pins
(docs/guide/mutants.md)."""
