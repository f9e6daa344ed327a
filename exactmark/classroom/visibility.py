"""Which cases a student may see, and from when: each case's visibility (Gradescope's
words) read at the time the pages are written, so that a class marked before the
deadline shows its hidden-until-later cases once the pages are written again after it.

    visible          always
    after_due_date   once no submission can still be accepted: the deadline plus the
                     late rule's days (without a deadline: once published)
    after_published  once the instructor says so (--published)
    hidden           never
"""

from datetime import datetime, timedelta

VISIBLE, AFTER_DUE_DATE, AFTER_PUBLISHED, HIDDEN = (
    "visible", "after_due_date", "after_published", "hidden")

SHOWN_NOW = "shown"
SHOWN_FROM = "shown from {when}, once no late submission can be accepted"
SHOWN_WHEN_PUBLISHED = "shown once your instructor publishes them"
NEVER_SHOWN = "never shown"
WHEN = "%Y-%m-%d %H:%M"


def shown_from(assignment):
    """When `after_due_date` cases appear: the deadline plus the days a late submission
    is still accepted; None when the assignment has no deadline."""
    if assignment.deadline is None:
        return None
    return assignment.deadline + timedelta(days=assignment.late.days if assignment.late else 0)


def is_shown(visibility: str, assignment, as_of: datetime, published: bool) -> bool:
    if visibility == VISIBLE:
        return True
    if visibility == AFTER_DUE_DATE:
        start = shown_from(assignment)
        return published if start is None else as_of >= start
    if visibility == AFTER_PUBLISHED:
        return published
    return False


def when_shown(visibility: str, assignment, as_of: datetime, published: bool) -> str:
    """What a page says of a group of cases: shown, or from when."""
    if is_shown(visibility, assignment, as_of, published):
        return SHOWN_NOW
    if visibility == AFTER_DUE_DATE and shown_from(assignment) is not None:
        start = shown_from(assignment)
        return SHOWN_FROM.format(when=f"{start.strftime(WHEN)} ({start.tzinfo})")
    if visibility in (AFTER_DUE_DATE, AFTER_PUBLISHED):
        return SHOWN_WHEN_PUBLISHED
    return NEVER_SHOWN
