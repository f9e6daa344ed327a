"""Independent test oracles (clean-room re-implementations used only by tests)."""
