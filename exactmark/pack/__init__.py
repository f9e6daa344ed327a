"""The student pack: the visible cases and a checker that runs them as the marker does."""
