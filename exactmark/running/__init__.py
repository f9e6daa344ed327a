"""Running one program: the run's record, its limits, its supervision, the terminal."""
