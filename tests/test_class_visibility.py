"""Which cases a student's page shows, and from when: each visibility read at the time the
pages are written (exactmark/classroom/visibility.py), as examples."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from exactmark.classroom.visibility import is_shown, shown_from, when_shown
from exactmark.kit.assignment import load
from exactmark.kit.late import Terms

SEEDED = load("seeded")  # due 2027-03-09 09:00 in Sydney; accepted up to 5 days late
SYDNEY = ZoneInfo("Australia/Sydney")
LATE_WINDOW_ENDS = datetime(2027, 3, 14, 9, 0, tzinfo=SYDNEY)


def test_after_due_date_cases_appear_once_no_late_submission_can_be_accepted():
    assert shown_from(SEEDED) == LATE_WINDOW_ENDS
    assert not is_shown("after_due_date", SEEDED, LATE_WINDOW_ENDS - timedelta(seconds=1), False)
    assert is_shown("after_due_date", SEEDED, LATE_WINDOW_ENDS, False)
    assert not is_shown("after_due_date", SEEDED, SEEDED.deadline + timedelta(days=1), False), \
        "a student may still hand in late: the cases stay hidden from everyone"


@pytest.mark.parametrize("visibility, before, after, published", [
    ("visible", True, True, True),
    ("after_due_date", False, True, True),
    ("after_published", False, False, True),
    ("hidden", False, False, False),
])
def test_each_visibility(visibility, before, after, published):
    early, late = SEEDED.deadline - timedelta(days=7), LATE_WINDOW_ENDS + timedelta(days=7)
    assert is_shown(visibility, SEEDED, early, False) == before
    assert is_shown(visibility, SEEDED, late, False) == after
    assert is_shown(visibility, SEEDED, early, True) == published, "--published: at once"


def test_without_a_deadline_after_due_date_cases_wait_for_publishing():
    patience = load("patience")
    now = datetime(2030, 1, 1, tzinfo=ZoneInfo("UTC"))
    assert shown_from(patience) is None
    assert not is_shown("after_due_date", patience, now, False)
    assert is_shown("after_due_date", patience, now, True)


def test_a_page_says_from_when():
    early = SEEDED.deadline
    assert when_shown("after_due_date", SEEDED, early, False) == (
        "shown from 2027-03-14 09:00 (Australia/Sydney), once no late submission can be "
        "accepted")
    assert when_shown("after_published", SEEDED, early, False) == (
        "shown once your instructor publishes them")
    assert when_shown("hidden", SEEDED, early, True) == "never shown"
    assert when_shown("visible", SEEDED, early, False) == "shown"


def test_a_student_due_at_the_end_of_time_holds_the_cases_back_until_published():
    """A deadline of 9999-12-31 23:59 (a spreadsheet's "no deadline") closes no window: the
    cases wait for --published, and the page says so, never an error."""
    never = (Terms(due=datetime(9999, 12, 31, 23, 59, tzinfo=SYDNEY)),)
    late = LATE_WINDOW_ENDS + timedelta(days=365)
    assert shown_from(SEEDED, never) is None
    assert not is_shown("after_due_date", SEEDED, late, False, never)
    assert is_shown("after_due_date", SEEDED, late, True, never)
    assert when_shown("after_due_date", SEEDED, late, False, never) == (
        "shown once your instructor publishes them")
