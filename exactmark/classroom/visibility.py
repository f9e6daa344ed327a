"""Which cases a student may see, and from when: each case's visibility (Gradescope's
words) read at the time the pages are written, so that a class marked before the
deadline shows its hidden-until-later cases once the pages are written again after it.

    visible          always
    after_due_date   once no student of the class can still hand in: the last window of
                     the class closed (each student's due date, their extension or own
                     deadline included, plus the late rule's days and the late days they
                     may spend); without a deadline, or before then, once published
    after_published  once the instructor says so (--published)
    hidden           never

A classmate's page must not show the cases a student still working could use: so one
student's extension holds them back from everyone's page, unless the instructor publishes.
"""

from datetime import datetime

from exactmark.kit.late import NEVER

VISIBLE, AFTER_DUE_DATE, AFTER_PUBLISHED, HIDDEN = (
    "visible", "after_due_date", "after_published", "hidden")

SHOWN_NOW = "shown"
SHOWN_FROM = "shown from {when}, once no late submission can be accepted"
SHOWN_WHEN_PUBLISHED = "shown once your instructor publishes them"
NEVER_SHOWN = "never shown"
WHEN = "%Y-%m-%d %H:%M"


def shown_from(assignment, terms=()):
    """When `after_due_date` cases appear: the last moment a submission of the class can
    still be accepted (Assignment.closes), over the common terms and each student's own
    in `terms` (None: the common); None when the assignment has no deadline, or a
    student's window never closes (a due date at the end of time): then once published."""
    if assignment.deadline is None:
        return None
    last = max(assignment.closes(each) for each in (None, *terms))
    return None if last == NEVER else last.astimezone(assignment.deadline.tzinfo)


def is_shown(visibility: str, assignment, as_of: datetime, published: bool,
             terms=()) -> bool:
    if visibility == VISIBLE:
        return True
    if visibility == AFTER_DUE_DATE:
        start = shown_from(assignment, terms)
        return published or (start is not None and as_of >= start)
    if visibility == AFTER_PUBLISHED:
        return published
    return False


def when_shown(visibility: str, assignment, as_of: datetime, published: bool,
               terms=()) -> str:
    """What a page says of a group of cases: shown, or from when."""
    if is_shown(visibility, assignment, as_of, published, terms):
        return SHOWN_NOW
    start = shown_from(assignment, terms) if visibility == AFTER_DUE_DATE else None
    if start is not None:
        return SHOWN_FROM.format(when=f"{start.strftime(WHEN)} ({start.tzinfo})")
    if visibility in (AFTER_DUE_DATE, AFTER_PUBLISHED):
        return SHOWN_WHEN_PUBLISHED
    return NEVER_SHOWN
