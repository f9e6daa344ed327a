"""Marking submissions against the golden cases, isolated from them."""
