"""Golden cases: what they hold, how they are written, run and compared."""
