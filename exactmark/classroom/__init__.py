"""Marking a whole class: `make mark-class`."""
