"""`make verify`: the golden cases against right and wrong programs, the idea of
Kattis' verifyproblem. The reference programs and honest variants must pass every
marked case; every known-wrong program must fail at least two."""
