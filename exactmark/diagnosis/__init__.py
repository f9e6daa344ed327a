"""Feedback that names the mistake: a student's failures matched to the kit's wrong programs
(their signatures), the handout's sentences, and the class's rules (issue #40)."""
