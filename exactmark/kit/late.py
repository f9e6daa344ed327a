"""The late rule as data: the shapes an assignment's `[late]` may take (a cap on the mark,
a deduction from it, no late submission at all; a grace period of minutes on any), the
term's bank of late days (`[late_days]`) spent before any of them, a student's own terms
(their own due date, or an extension of the deadline), and what a rule made of one
submission (`Late`), with its words.

Days late are the seed handout's: any part of 24 hours after the due date is a day, in
elapsed time (both instants in UTC, so a daylight-saving change between them counts its
real hours). Its sentence for today's rule stays word for word (CAP_SENTENCE).
"""

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

MARKS_DIGITS = 6  # marks are compared and shown rounded: a third of 13 never adds up exactly
DAY, HOUR = timedelta(days=1), timedelta(hours=1)
NEVER = datetime.max.replace(tzinfo=timezone.utc)  # the close of a window that does not close

# The sentences: the rule in the handout's words (the summary, pages, README). The seed
# handout's: "The maximum mark obtainable reduces by 5% per full late day, for up to 5
# days. Thus if students A and B hand in assignments worth 12 and 11, both two days late
# (that is, more than 24 hours late and no more than 48 hours late), then the maximum mark
# obtainable is 11.7". Its example is the definition: any part of a day counts as a day.
CAP_SENTENCE = ("The maximum mark obtainable reduces by {share:.0%} per late day, for up to "
                "{days} days; a day late is any part of 24 hours after the deadline (more than "
                "24 and at most 48 hours late is two days late).")
DEDUCT_SENTENCE = ("{deduct:g} marks are taken from the mark per late {per}, to no less than "
                   "0, for up to {accepted} {per}s; {one} late is any part of {length} after "
                   "the deadline; a later submission gets 0.")
NONE_SENTENCE = "No late submission is accepted."
GRACE_SENTENCE = ("A submission at most {minutes} minutes after the deadline is on time; a "
                  "later one is late from the deadline.")
BANK_SENTENCE = ("Each student has {free} late days for the term, spent on the days late "
                 "before any penalty, at most {most} on one assignment; the rule counts only "
                 "the days late beyond them.")
PER_WORDS = {"day": {"one": "a day", "length": "24 hours"},
             "hour": {"one": "an hour", "length": "an hour"}}

# A student's own terms.
EXTENSION_SAID = "extension of {extension}: due {due}"
OWN_DEADLINE_SAID = "own deadline: due {due}"
BAD_EXTENSION = ("{text!r} is not an extension such as \"3 days\", \"36 hours\", \"90 minutes\" "
                 "or \"1 day 12 hours\"")
EXTENSION_UNITS = {"day": DAY, "hour": HOUR, "minute": timedelta(minutes=1)}
MOST_EXTENSION = timedelta(days=99999)  # 273 years: more is a typing slip, and an extension
# past what timedelta holds would be a traceback
LONGEST_COUNT = 12  # digits: a longer count is too large, and int() refuses 4300 of them
EXTENSION_TOO_LARGE = "{text!r} is too large an extension: at most {most} days"

# A date the late rule cannot count from: elapsed time is counted in UTC, and Python's
# calendar holds years 1 to 9999 only, so a date whose UTC form (or its form in the
# assignment's time zone), or the end of its late window, falls outside them is refused.
UNCOUNTABLE = ("{said}: {what} falls outside the calendar (years 1 to 9999), so the late rule "
               "cannot count from it")
AS_UTC = "it, in UTC or in the assignment's time zone,"
LATER = "{later} after it"
DEADLINE_SAID = "the deadline {when}"  # what an extension pushes back

# What a rule made of one submission.
ON_TIME = "on time"
STANDS_ON_TIME = "on time: {raw:.2f} stands"
GRACED = "within the {minutes} minutes' grace, "  # then ON_TIME or STANDS_ON_TIME
LATE_BY = "submitted {elapsed} after the deadline: "
LATE_BY_OWN = "submitted {elapsed} after it: "  # after the terms said before it
TERMS_FIRST = "{terms}; "
DAYS_LATE = "{days} day{s} late{beyond} ({window})"
HOURS_LATE = "{hours} hour{s} late{beyond}"
BEYOND = " beyond them"  # the days late past those the bank paid for
FIRST_DAY = "at most 24 hours"
LATER_DAY = "more than {low}, at most {high} hours"
BANK = "{spent} of your {free} late days spent here, {left} left"
BANK_ASSUMED = " (no days spent before were given: the whole bank was assumed)"
COVERED = "{raw:.2f} stands"
COVERED_SHORT = "no penalty"
CAPPED = ("the maximum mark falls by {days} × {cap_per_day:.0%} to {cap:.2f}, so {raw:.2f} "
          "{becomes}")
BECOMES = "becomes {mark:.2f}"
STANDS = "stands"
CAPPED_SHORT = "the mark is capped at {cap:.2f} of {marks:.2f}"
DEDUCTED = ("{units} × {deduct:g} marks taken: {raw:.2f} becomes {mark:.2f}")
DEDUCTED_SHORT = "{units} × {deduct:g} marks taken from the mark"
REFUSED = "more than {most} day{s} late{beyond} (more than {hours} hours), past what is accepted: 0"
REFUSED_HOURS = "more than {most} hour{s} late{beyond}, past what is accepted: 0"
NONE_ACCEPTED = "late submissions are not accepted: 0"
DURATION_PARTS = (("hour", HOUR), ("minute", timedelta(minutes=1)),  # no days: the rule
                  ("second", timedelta(seconds=1)))  # counts hours
SAID_PARTS = (("day", DAY), ("hour", HOUR), ("minute", timedelta(minutes=1)))


def spoken(duration: timedelta, units: tuple) -> str:
    """A duration as people say it, in `units` ((name, timedelta), largest first), zero
    parts left out: "30 hours", "24 hours 1 second", "1 day 12 hours"."""
    left, parts = duration, []
    for unit, length in units:
        count, left = divmod(left, length)
        if count:
            parts.append(f"{count} {unit}{plural(count)}")
    return " ".join(parts) or f"0 {units[-1][0]}s"


def elapsed(duration: timedelta) -> str:
    """How late, in hours (the rule counts hours, not days), to the second above."""
    return spoken(timedelta(seconds=math.ceil(duration.total_seconds())), DURATION_PARTS)


def days_window(days: int) -> str:
    """What `days` days late means in hours, in the handout's words."""
    if days == 1:
        return FIRST_DAY
    return LATER_DAY.format(low=24 * (days - 1), high=24 * days)


def counted(late: timedelta, unit: timedelta) -> int:
    """Units late, any part of one a whole one: the ceiling, in whole microseconds."""
    return max(0, -(-late // unit))


def plural(count: int) -> str:
    return "s" * (count != 1)


class LateRule:
    """A shape of `[late]`. Each says how long late is still accepted (`accepted`, in its
    `unit`), what a submission `units` late gets (`penalised`), and its sentence; the
    counting, the grace and the bank are `judge`'s, the same for every shape."""
    unit = DAY
    grace_minutes = 0
    accepted = 0  # units late still accepted

    def penalised(self, units: int, raw: float, marks: float) -> tuple:
        """(the highest mark it may get, the mark) of a submission `units` late, accepted."""
        raise NotImplementedError

    def said(self, units: int, raw: float, cap: float, mark: float, marks: float) -> str:
        """The penalty's arithmetic; without the raw score (None), its short form."""
        raise NotImplementedError

    def sentence(self) -> str:
        raise NotImplementedError

    @property
    def grace(self) -> timedelta:
        return timedelta(minutes=self.grace_minutes)

    def window(self) -> timedelta:
        """How long after the due date a submission is still accepted."""
        return max(self.grace, self.accepted * self.unit)

    def units_late(self, late: timedelta) -> int:
        """0 within the grace; else counted from the due date, grace or none."""
        return 0 if late <= self.grace else counted(late, self.unit)

    def late_words(self, units: int, beyond: str) -> str:
        if self.unit == HOUR:
            return HOURS_LATE.format(hours=units, s=plural(units), beyond=beyond)
        return DAYS_LATE.format(days=units, s=plural(units), beyond=beyond,
                                window=days_window(units))

    def refused(self, beyond: str) -> str:
        most = self.accepted
        if not most:
            return NONE_ACCEPTED
        if self.unit == HOUR:
            return REFUSED_HOURS.format(most=most, s=plural(most), beyond=beyond)
        return REFUSED.format(most=most, s=plural(most), hours=24 * most, beyond=beyond)


@dataclass(frozen=True)
class Cap(LateRule):
    """Today's rule, the seed handout's: accepted up to `days` days late; the maximum mark
    falls by `cap_per_day` of the marks per day late, and the mark is held under it."""
    days: int
    cap_per_day: float
    grace_minutes: int = 0

    @property
    def accepted(self) -> int:
        return self.days

    def penalised(self, units: int, raw: float, marks: float) -> tuple:
        cap = round(max(0.0, marks * (1 - self.cap_per_day * units)), MARKS_DIGITS)
        return cap, round(min(raw, cap), MARKS_DIGITS)

    def said(self, units, raw, cap, mark, marks) -> str:
        if raw is None:
            return CAPPED_SHORT.format(cap=cap, marks=marks)
        return CAPPED.format(days=units, cap_per_day=self.cap_per_day, cap=cap, raw=raw,
                             becomes=BECOMES.format(mark=mark) if raw > cap else STANDS)

    def sentence(self) -> str:
        if not self.days:
            return NONE_SENTENCE
        return CAP_SENTENCE.format(share=self.cap_per_day, days=self.days)


@dataclass(frozen=True)
class Deduct(LateRule):
    """`deduct` marks taken from the mark per day (or hour, `per`) late, any part of one a
    whole one, never below 0; accepted up to `accepted` days (or hours) late."""
    per: str
    deduct: float
    accepted: int
    grace_minutes: int = 0

    @property
    def unit(self) -> timedelta:
        return HOUR if self.per == "hour" else DAY

    def penalised(self, units: int, raw: float, marks: float) -> tuple:
        cap = round(max(0.0, marks - self.deduct * units), MARKS_DIGITS)
        return cap, round(max(0.0, raw - self.deduct * units), MARKS_DIGITS)

    def said(self, units, raw, cap, mark, marks) -> str:
        if raw is None:
            return DEDUCTED_SHORT.format(units=units, deduct=self.deduct)
        return DEDUCTED.format(units=units, deduct=self.deduct, raw=raw, mark=mark)

    def sentence(self) -> str:
        return DEDUCT_SENTENCE.format(deduct=self.deduct, per=self.per, accepted=self.accepted,
                                      **PER_WORDS[self.per])


@dataclass(frozen=True)
class NoLate(LateRule):
    """No late submission accepted (past the grace, if any): what a deadline without
    `[late]` means."""
    grace_minutes: int = 0

    def penalised(self, units: int, raw: float, marks: float) -> tuple:
        return 0.0, 0.0  # never reached: nothing late is accepted

    def said(self, units, raw, cap, mark, marks) -> str:
        return NONE_ACCEPTED

    def sentence(self) -> str:
        return NONE_SENTENCE


NO_LATE_SUBMISSIONS = NoLate()  # a deadline without a late rule


@dataclass(frozen=True)
class LateDays:
    """A term's bank of late days (`[late_days]`): `free` for the whole term, spent on the
    days late before any penalty, at most `most` on one assignment."""
    free: int
    most: int

    def sentence(self) -> str:
        return BANK_SENTENCE.format(free=self.free, most=self.most)

    def left_before(self, terms: "Terms") -> int:
        """The days left to this student before this assignment: the whole bank when no
        ledger says otherwise."""
        return self.free if terms.late_days_left is None else max(0, terms.late_days_left)


def sentence(rule: LateRule, bank: LateDays = None) -> str:
    """The rule in the handout's words, its grace and the bank after it."""
    said = [rule.sentence()]
    if rule.grace_minutes:
        said.append(GRACE_SENTENCE.format(minutes=rule.grace_minutes))
    if bank is not None:
        said.append(bank.sentence())
    return " ".join(said)


def rule_of(data: dict) -> LateRule:
    """The `[late]` table (its schema checked) as its shape; without `rule`, a cap."""
    grace = data.get("grace_minutes", 0)
    shape = data.get("rule", "cap")
    if shape == "deduct":
        return Deduct(data["per"], data["deduct"], data["accepted"], grace)
    if shape == "none":
        return NoLate(grace)
    return Cap(data["days"], data["cap_per_day"], grace)


def instant(text: str, zone) -> datetime:
    """A date and time an instructor writes: ISO 8601 (a `Z` for UTC too, which Python 3.10
    does not read), in `zone` unless it says its own offset. ValueError when it is none."""
    when = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    return when if when.tzinfo else when.replace(tzinfo=zone)


class ExtensionTooLarge(ValueError):
    """An extension well formed but longer than MOST_EXTENSION: said as such by every reader,
    not as a malformed one."""


def extension_of(text: str) -> timedelta:
    """An extension as an instructor writes it: "3 days", "36 hours", "90 minutes",
    "1 day 12 hours" (a number, then its unit, each unit once). "2d" is not one."""
    words = text.split()
    pairs = list(zip(words[::2], words[1::2]))
    units = [unit.lower().removesuffix("s") for _, unit in pairs]
    if (not words or len(words) % 2 or len(set(units)) != len(units)
            or not all(re.fullmatch(r"[0-9]+", count) and unit in EXTENSION_UNITS
                       for (count, _), unit in zip(pairs, units))):
        raise ValueError(BAD_EXTENSION.format(text=text))
    counts = [int(count) if len(count.lstrip("0")) <= LONGEST_COUNT else math.inf
              for count, _ in pairs]
    minutes = sum(count * (EXTENSION_UNITS[unit] // timedelta(minutes=1))  # whole numbers:
                  for count, unit in zip(counts, units))  # timedelta would overflow
    if minutes > MOST_EXTENSION // timedelta(minutes=1):
        raise ExtensionTooLarge(EXTENSION_TOO_LARGE.format(text=text, most=MOST_EXTENSION.days))
    return timedelta(minutes=minutes)


def extension_said(extension: timedelta) -> str:
    """"3 days", "1 day 12 hours"."""
    return spoken(extension, SAID_PARTS)


def when_said(when: datetime) -> str:
    """"12 March 2027 9:00", as the times are said on the pages."""
    return f"{when.day} {when:%B %Y} {when.hour}:{when:%M}"


@dataclass(frozen=True)
class Terms:
    """One student's own terms. The default Terms() is the assignment's."""
    due: datetime = None  # their own due date, aware; None: the assignment's deadline
    extension: timedelta = None  # set when `due` came from an extension of the deadline
    late_days_left: int = None  # the term's bank left to this student before this
    # assignment; None: no ledger known (the whole bank)

    def said(self, zone) -> str:
        """"extension of 3 days: due 12 March 2027 9:00", "own deadline: due ...", or ""
        for the common terms; the due date in `zone` (the assignment's)."""
        if self.due is None:
            return ""
        due = when_said(self.due.astimezone(zone) if zone else self.due)
        if self.extension is not None:
            return EXTENSION_SAID.format(extension=extension_said(self.extension), due=due)
        return OWN_DEADLINE_SAID.format(due=due)


def extended(deadline: datetime, extension: timedelta, late_days_left: int = None) -> Terms:
    """The terms of an extension of `deadline`: in elapsed time, so that an extension of 3
    days is 72 hours even across a daylight-saving change (9:00 on 2 April in Sydney, 3
    days on, is 8:00 on 5 April: the clocks went back an hour between). ValueError
    (UNCOUNTABLE) when the due date it gives falls outside the calendar."""
    countable(deadline, DEADLINE_SAID.format(when=when_said(deadline)), deadline.tzinfo,
              extension)
    due = (deadline.astimezone(timezone.utc) + extension).astimezone(deadline.tzinfo)
    return Terms(due, extension, late_days_left)


def countable(when: datetime, said: str, zone, after: timedelta = timedelta(0)) -> datetime:
    """`when` (aware), if the late rule can count from it: it exists in UTC and in `zone`
    (the assignment's), and so does the moment `after` it (an assignment's deadline: its
    longest late window; a deadline pushed back: the extension). Else ValueError, one line
    starting with `said` (the date as the instructor gave it), for each reader to place. A
    student's own due date needs no `after`: a window past the calendar's end never closes
    (NEVER)."""
    try:
        utc(when).astimezone(zone)
    except OverflowError:
        raise ValueError(UNCOUNTABLE.format(said=said, what=AS_UTC)) from None
    try:
        (utc(when) + after).astimezone(zone)
    except OverflowError:
        raise ValueError(UNCOUNTABLE.format(said=said, what=LATER.format(
            later=extension_said(after)))) from None
    return when


def longest_window(rule: LateRule, bank: LateDays) -> timedelta:
    """The longest any student may still be accepted after their due date: the most days of
    the bank one assignment may spend, then the rule's window."""
    return (bank.most * DAY if bank else timedelta(0)) + rule.window()


def utc(when: datetime) -> datetime:
    return when.astimezone(timezone.utc)


@dataclass(frozen=True)
class Late:
    """A late rule applied to one submission."""
    rule: LateRule
    late: timedelta  # after the student's due date; negative: early
    days: int  # days late, as the handout counts them: any part of a day is a day
    cap: float  # the highest mark it may get
    mark: float
    accepted: bool
    marks: float  # the assignment's
    due: datetime = None  # the student's due date, aware
    terms_said: str = ""  # Terms.said, or "" for the common terms
    days_spent: int = 0  # late days from the bank spent here; 0 without a bank
    days_left: int = None  # the bank left after this one; None without a bank
    free: int = None  # the bank's size; None without a bank
    units: int = 0  # the days (or hours) late the rule counts, beyond the days spent
    bank_assumed: bool = False  # no days left were given: the whole bank was assumed

    def explain(self, raw: float, terms: bool = True) -> str:
        """The arithmetic, raw score included: for whoever may see the raw score; without
        the student's terms first where they are said beside it (a sheet's note)."""
        return self._said(raw, terms)

    def summary(self) -> str:
        """The same without the raw score, for a page that does not show every case."""
        return self._said(None)

    def _said(self, raw, terms: bool = True) -> str:
        first = TERMS_FIRST.format(terms=self.terms_said) if self.terms_said and terms else ""
        on_time = ON_TIME if raw is None else STANDS_ON_TIME.format(raw=raw)
        if self.late <= timedelta(0):
            return first + on_time
        said = first + (LATE_BY_OWN if self.terms_said else LATE_BY).format(
            elapsed=elapsed(self.late))
        if not self.days:
            return said + GRACED.format(minutes=self.rule.grace_minutes) + on_time
        clauses, beyond = [], ""
        if self.free is not None:
            clauses += [DAYS_LATE.format(days=self.days, s=plural(self.days), beyond="",
                                         window=days_window(self.days)),
                        BANK.format(spent=self.days_spent, free=self.free, left=self.days_left)
                        + (BANK_ASSUMED if self.bank_assumed else "")]
            beyond = BEYOND
        if not self.accepted:
            clauses.append(self.rule.refused(beyond))
        elif not self.units:
            clauses.append(COVERED_SHORT if raw is None else COVERED.format(raw=raw))
        else:
            clauses += [self.rule.late_words(self.units, beyond),
                        self.rule.said(self.units, raw, self.cap, self.mark, self.marks)]
        return said + "; ".join(clauses)


def judge(rule: LateRule, bank: LateDays, raw: float, marks: float, due: datetime,
          submitted: datetime, terms: Terms, zone=None) -> Late:
    """The rule applied to a submission of raw score `raw` out of `marks`, due at `due`.
    With a bank, the days late (as the rule counts them) are first spent from it:
    min(days late, its `most`, the days left); the rule then counts from the due date
    pushed back by the days spent. A submission refused even so spends none."""
    late = utc(submitted) - utc(due)
    days = 0 if late <= rule.grace else counted(late, DAY)
    spent, left = 0, None
    if bank is not None:
        before = bank.left_before(terms)
        spent = min(days, bank.most, before)
        left = before - spent
    units = rule.units_late(late - spent * DAY)
    if not units:
        cap, mark, accepted = float(marks), round(min(raw, float(marks)), MARKS_DIGITS), True
    elif units > rule.accepted:  # refused: no day of the bank is spent on a 0
        cap, mark, accepted = 0.0, 0.0, False
        if bank is not None:
            spent, left = 0, before
    else:
        (cap, mark), accepted = rule.penalised(units, raw, marks), True
    return Late(rule, late, days, cap, mark, accepted, marks, due, terms.said(zone), spent,
                left, bank.free if bank else None, units,
                bank is not None and terms.late_days_left is None)


def closes(rule: LateRule, bank: LateDays, due: datetime, terms: Terms) -> datetime:
    """The last moment a submission can still be accepted: the due date, the bank's days
    this student may spend here, then the rule's window (or its grace, the longer)."""
    spendable = 0 if bank is None else min(bank.most, bank.left_before(terms))
    try:
        return (utc(due) + spendable * DAY + rule.window()).astimezone(due.tzinfo)  # elapsed
    except OverflowError:  # a due date at the end of time (9999-12-31, "no deadline"): never
        return NEVER
