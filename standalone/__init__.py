"""Single-file sample solutions of the reference programs (`make standalone`)."""
