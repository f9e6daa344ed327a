"""How a pile of cards is drawn on one line, in every program of the kit."""

FACE_DOWN = "]"
HIDDEN_UNDER_TOP = "["


def face_down(size: int) -> str:
    """A face-down pile: one `]` per card."""
    return FACE_DOWN * size


def face_up(size: int, top: str) -> str:
    """A face-up pile: a `[` per covered card, then the visible card; empty when size is 0."""
    return HIDDEN_UNDER_TOP * (size - 1) + top if size else ""


def face_up_cards(cards, character) -> str:
    """A face-up pile of `cards`, bottom first: its last card is the visible one."""
    return face_up(len(cards), character(cards[-1])) if cards else ""
