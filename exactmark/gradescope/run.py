"""run_autograder's entry, on Gradescope: mark the submission with this autograder's
assignment and leave a valid results.json, whatever the submission does.

    cd /autograder/source && /autograder/venv/bin/python -m exactmark.gradescope.run [--check]

It asks the marker (`python -m exactmark.marking.mark`, by exactmark.marking.request) to
mark /autograder/submission against assignments/NAME.toml into
/autograder/results/results.json, with --jobs N --student-budget S --waiting-budget S
(N: the cores this container may use; S: what of the time budget the runs may use, see
`marker_budgets`), and touches nothing of the submission itself: the marker copies it,
following no link.
The marker's results.json, once checked against results.schema.json, gets a short
Markdown summary at the top (the score, or only the visible tests' score while some
tests are not shown; the late rule; what the failures of the visible cases suggest: the
marker's diagnoses, which its record holds), and is cut to results.json's sizes (`bounded`);
the isolation that held goes to the log, which only instructors read. When the marker
refuses the submission, or runs out of time with nothing marked, a fallback takes its
place: score 0, a clear message, a failed test per program. When the marker itself
fails, or this file does, there is no results.json: Gradescope then shows the
submission as failed ("The autograder failed to execute correctly"), not as a 0, and
the log says why. The marker is stopped (and what it marked kept, the rest counting 0)
at the autograder's time budget, before Gradescope's own timeout would leave no
results at all. It exits 0, unless it could not write results.json.

A student's own terms (#37). submission_metadata.json gives, beside the assignment's due
date (`assignment.due_date`), each member's own (`users[].assignment.due_date` and
`late_due_date`): Gradescope's documentation of the file
(https://gradescope-autograders.readthedocs.io/en/latest/submission_metadata/) lists no
per-user dates, but the files Gradescope writes hold them, as posted in
https://github.com/gradescope/autograder_samples/issues/60 ("Submission Metadata format
has diverged from documented", 2021) and in github.com/burturt/go-autograder-example's
submission_metadata.json (2025). Where the student's due date is not the assignment's
(an extension granted on Gradescope), the marker is asked with --due; of a group, the
latest of its members' due dates counts: the metadata names every member and not who pressed
submit, the mark is one for the whole group, and an extension granted to one member
covers the work they share (okpy's rule, github.com/okpy/ok/issues/710). Else the
extensions file built into the zip (exactmark/gradescope/terms.py, EXTENSIONS_NAME) may
name a member: --due or --extension, and --late-days-left (the least any member has
left). Where both give a due date, Gradescope's wins, and the log says so: it is the one
Gradescope showed the student and took the submission by, and an extension granted
there after the zip was built needs no new zip. A member's `late_due_date` is
Gradescope's alone: it decides whether Gradescope takes the submission; the late rule
counts from the due date. When `after_due_date` tests are shown is Gradescope's
decision, not the kit's: see SHOWN_WHEN.

This file needs the standard library, and of the kit only modules that need no more
(the exit statuses, the marker's request and messages): it must work when nothing else
does.
Environment: AUTOGRADER_ROOT (default /autograder), AUTOGRADER_ISOLATION (auto,
namespaces or fallback; default auto), AUTOGRADER_BUDGET_SECONDS (default: the budget
the zip was built with).
"""

import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from exactmark.base.exits import Exit
from exactmark.base.messages import MESSAGES_FD, Refusal, read_message
from exactmark.marking.request import MarkRequest, marker_environment

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parents[1]  # the unzipped autograder: the marker runs from here
SETTINGS_NAME = "autograder.json"
SCHEMA = HERE / "results.schema.json"
ISOLATIONS = ("auto", "namespaces", "fallback")
MARKED = (Exit.PASSED, Exit.FAILED)  # the marker's normal ends: all passed, or not
GRACE_SECONDS = 60  # after the budget, for the marker to stop its runs and write what it marked
RUNS_SHARE = 0.8  # of the time budget, what the marker's runs may take: the rest copies, builds
# and reports
MOST_MARKER_BUDGET = 3600  # exactmark.marking.mark's most seconds for --student-budget and --waiting-budget
MOST_SHOWN = 600  # characters of a refusal shown to the student
MARKDOWN_SPECIAL = set("\\`*[]<>")  # what could make a link, an image, HTML, code or emphasis

# What the student reads when the marker did not mark (no byte of theirs unescaped).
REFUSED_MESSAGE = "The marker refused this submission: {reason}"
NO_REASON = "no reason given"
NOT_RUN = "not run"  # exactmark.marking.verdicts.Kind.NOT_RUN, as results.json says it
NO_RESULTS = "exit status {status}, and no valid results"
OUT_OF_TIME = ("The marking did not finish within the autograder's time budget ({budget:g} s) and "
               "left no results: a program that never ends, or waits, uses its whole time limit "
               "in every test.")
STOPPED = ("**The marking was stopped at the autograder's time budget ({budget:g} s): {not_run} of "
           "{total} tests did not run and count 0.** A program that never ends, or waits, uses "
           "its whole time limit in every test.")
NOT_MARKED_TEST = "Not marked: {message}"
SCORE_LINE = "**Score: {score:.2f} of {marks:g}**"
VISIBLE_LINE = ("**Visible tests: {earned:.2f} of {most:g} marks.** {others} more test{s} "
                "({marks:g} marks) count{verb} too: {when}.")
# When Gradescope shows a test of each visibility to a student, in its specification's words
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/, "Controlling Test Case
# Visibility": after_due_date, "shown after the assignment's due date has passed. If late
# submission is allowed, then test will be shown only after the late due date"). Gradescope
# decides it, on its own dates: results.json says only the visibility, the same for every
# student. It does not say whether a student's own extension moves it for them, nor holds
# the tests back from the class while a student with an extension is still working: an
# instructor who must be sure of that sets those groups to after_published.
SHOWN_WHEN = {"after_due_date": ("Gradescope shows {them} after the due date (the late due "
                                 "date, where late submissions are allowed)"),
              "after_published": "Gradescope shows {them} once your instructor publishes the grades",
              "hidden": "Gradescope never shows {them} to students"}
SOME_OF_THEM = "{count} of them"
PROGRAM_LINE = "- {program}: {earned:.2f} of {marks:g} marks"
MISSING_LINE = "- **{program} is not in the submission**: 0 of {marks:g} marks"
LATE_LINE = "- Late rule: {said}"
# The marker's heading (exactmark/marking/report.py's WHAT_IT_SUGGESTS, which this file
# cannot import), over what its diagnoses of the visible cases say, a line each.
SUGGESTS_HEAD = "**What the failures suggest**"
SUGGESTS_LINE = "- {program}: {line}"
SUGGESTS_LEVEL = "visible"  # the diagnosis every student may read at once
NO_SUBMITTED_TIME = "submission_metadata.json gives no submission time that can be read: {problem}"
# setup.sh's check, in the build's log.
OTHER_MISTAKES = ("check: the wrong programs the groups of students' cases name here are not those "
                  "the autograder was built with: {here} against {built}")
READY = ("check: ready to mark {name} ({cases} cases{groups}, {marks:g} marks) with Python "
         "{python}; {cores} cases at once")
GROUPS = ", {groups} group{s} of students' cases"
# results.json's sizes: Gradescope documents none, so these are ours, well within what a
# page shows at once. A test's output is cut at a line's end (never inside a drawn ⟨...⟩,
# nor a character), and says what was cut; while the whole is still too large, every
# test's is cut shorter, down to the line alone.
MOST_TEST_CHARS = 10_000
TEST_CUTS = (MOST_TEST_CHARS, 4_000, 1_500, 500, 0)
MOST_SUMMARY_CHARS = 10_000
MOST_RESULTS_BYTES = 1_000_000
LONGEST_ESCAPE = 24  # characters of a drawn ⟨...⟩ (exactmark.base.visible's, "…⟨N more⟩" the longest)
CUT_OUTPUT = "… the autograder cut the rest: {chars} more character{cs}, {lines} more line{ls}"
RECORD_CUT = ("the marking's record did not fit in results.json beside the tests; the marker "
              "keeps none here: mark the submission with make mark for it")
# The autograder failed: no results.json, so that Gradescope says so ("The autograder
# failed to execute correctly") instead of a score of 0 that looks like a mark.
AUTOGRADER_FAILED = ("the autograder failed ({what}): leaving no results.json, so that "
                     "Gradescope shows the submission as failed, to be marked again")
# [submissions], from submission_metadata.json's previous_submissions. A submission over
# the limit is not marked: it keeps the results of the team's last counting one (its
# tests' scores and visibility, not their outputs), as Gradescope's documentation of
# rate limits advises. Times are said in the assignment's time zone.
MOST_METADATA_BYTES = 64 << 20  # past this, the history is not read: the autograder fails
TIME = "{time:%Y-%m-%d %H:%M} ({zone})"
COUNTED = "- This submission counts: {used} of the {most} that may count{within}{then}"
WITHIN = " in any {window}"
NEXT_COUNTS = "; your next submission counts from {time}"
NONE_MORE = "; no later submission counts"
OVER = ("**This submission was not marked and does not count:** {most} submissions count "
        "already{within}, the most that may.{next} The results below are those of your "
        "submission of {then}, which stand.")
OVER_NEXT = " Your next submission counts from {time}."
CARRIED_TEST = ("Not marked again: this is the result of your submission of {then}; its "
                "output is with it, in your submission history.")
CARRIED_KEYS = ("name", "number", "score", "max_score", "status", "visibility", "tags")
FEEDBACK_LEFT = "- Submission {used} of the first {first}, which show their tests before the due date"
WITHHELD = ("**This submission is marked and counts, but its tests and score show only after "
            "the due date:** only the first {first} submissions show them before it.")
HISTORY_TOO_LARGE = "submission_metadata.json is over {most} bytes"
NOT_A_LIST = "previous_submissions is not a list"
NOT_AN_OBJECT = "it is not a JSON object"
USERS_NOT_A_LIST = "users is not a list"
NO_MEMBER = "no user with an id or an email"
NO_OFFSET = "created_at {time!r} says no offset from UTC"
HISTORY_UNREAD = "[submissions] cannot be applied: {problem}"
CANNOT_CARRY = "[submissions]: the last counting submission's results cannot be kept: {problem}"
# A student's own terms (see the module's docstring), in the instructor's log.
EXTENSIONS_NAME = "extensions.json"  # the students' own terms, beside autograder.json
OWN_DUE = "own terms: due {due}, as Gradescope gives it for {who}"
FILE_TERMS = "own terms: {terms}, as {file} gives them for {who}"
PLATFORM_WINS = ("own terms: Gradescope's due date for {who} ({due}) counts, not {file}'s "
                 "({other})")
OTHER_DEADLINE = ("Gradescope's due date ({gradescope}) is not the assignment file's deadline "
                  "({deadline}): the late rule counts from the file's, and from a student's "
                  "own due date on Gradescope")
NO_USERS = "submission_metadata.json's users cannot be read, so no student's own due date: {problem}"
# Whose fresh cases are drawn (exactmark/marking/fresh_cases.py): the submission's members,
# each by their user id (else their email), so that a resubmission draws the same cases.
NO_STUDENT_KEY = ("submission_metadata.json names no user ({problem}): the fresh cases are "
                  "drawn for the submission folder's name, the same for every such submission")
DAMAGED = ("{file} is not the one the autograder was built with ({problem}): build it again "
           "with --extensions")
DIGEST_DIFFERS = "its digest differs"
COUNT_DIFFERS = "it holds not the {students} students' terms built"
NOT_TERMS = "{file}: {key!r} holds no terms the build writes"
EXTENSIONS_READY = "check: the own terms of {students} student{s} ({file})"
UNREAD_TIME = ("- **The submission time could not be read, so the late rule was not applied**: "
               "your instructor can see why in the autograder's log")


class Paths:
    """Gradescope's layout, below AUTOGRADER_ROOT."""

    def __init__(self, root: Path):
        self.root = root
        self.submission = root / "submission"
        self.results_folder = root / "results"
        self.results = self.results_folder / "results.json"
        self.metadata = root / "submission_metadata.json"

    @classmethod
    def from_environment(cls):
        return cls(Path(os.environ.get("AUTOGRADER_ROOT") or "/autograder"))


def log(text: str) -> None:
    """run_autograder's stdout: Gradescope shows it to instructors only."""
    print(f"run_autograder: {text}", flush=True)


def shown(text: str, most: int = MOST_SHOWN) -> str:
    """`text` as one line a student may see: only printable characters (others as
    ⟨U+XXXX⟩), Markdown's special characters escaped, at most `most` characters."""
    text = str(text)
    cut = len(text) > most
    out = []
    for char in text[:most]:
        if char == "\n":
            out.append(" ")
        elif not char.isprintable():
            out.append(f"⟨U+{ord(char):04X}⟩")
        elif char in MARKDOWN_SPECIAL:
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out) + ("…" if cut else "")


def load_settings():
    try:
        return json.loads((HERE / SETTINGS_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError) as problem:
        log(f"cannot read {SETTINGS_NAME}: {problem}")
        return None


def fallback(config, message: str, reason: str, status, seconds: float) -> dict:
    """The results when the marker did not mark: score 0, the message (our own words,
    and escaped text only), a failed test per program."""
    programs = (config or {}).get("programs", {})
    tests = [{"name": f"{program}: not marked", "number": str(number), "score": 0,
              "max_score": marks, "status": "failed", "visibility": "visible",
              "output": NOT_MARKED_TEST.format(message=message), "output_format": "md"}
             for number, (program, marks) in enumerate(programs.items(), 1)]
    return {"score": 0, "execution_time": round(seconds, 3), "output": message,
            "output_format": "md", "visibility": "visible", "stdout_visibility": "hidden",
            "tests": tests,
            "extra_data": {"autograder": {"fallback": reason, "marker_exit": status,
                                          "counted": False}}}


def validator():
    """A function that gives the schema's complaints about a results object; None without
    jsonschema (then nothing the marker wrote is trusted: it needs jsonschema itself)."""
    try:
        import jsonschema
        schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
        check = jsonschema.Draft202012Validator(schema)
    except Exception as problem:  # no jsonschema, or an unreadable schema
        log(f"cannot check results.json: {type(problem).__name__}: {problem}")
        return None
    return lambda results: [error.message for error in check.iter_errors(results)]


def read_results(path: Path):
    """The marker's results.json, or None when there is none, or it is not valid."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as file:
            results = json.loads(file.read().decode("utf-8"))
    except (OSError, ValueError) as problem:
        log(f"no results from the marker: {problem}")
        return None
    complaints = validate(results)
    if complaints:
        log(f"the marker's results.json is not valid: {'; '.join(complaints[:5])}")
        return None
    return results


def validate(results) -> list:
    check = validator()
    return ["cannot be checked"] if check is None else check(results)


def write_results(path: Path, results: dict) -> None:
    """A new file renamed over results.json: a reader never sees half a file. (Not
    exactmark.marking.report's writer: this one must work when the marker cannot be imported.)"""
    fd, temporary = tempfile.mkstemp(prefix=".results.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(results, file, indent=2, ensure_ascii=False)
            file.write("\n")
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def root_only(path: Path, directory: bool) -> None:
    """Take every right of group and others away from a file of the platform's, through a
    descriptor that follows no link (as Gradescope's best practices advise for results/)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | (os.O_DIRECTORY if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        os.fchmod(fd, os.fstat(fd).st_mode & 0o700)
    except OSError as problem:
        log(f"cannot make {path} root's only: {problem}")
    finally:
        os.close(fd)


def cpus() -> float:
    """The CPUs this container may use: its affinity, under its cgroup's CPU quota (half a
    CPU, say, where Gradescope's container is given 0.5)."""
    try:
        count = float(len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        count = float(os.cpu_count() or 1)
    quotas = [("/sys/fs/cgroup/cpu.max", None),
              ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us")]
    for quota_file, period_file in quotas:
        try:
            if period_file is None:
                quota, period = Path(quota_file).read_text().split()[:2]
            else:
                quota, period = Path(quota_file).read_text(), Path(period_file).read_text()
            if quota.strip() not in ("max", "-1"):
                count = min(count, int(quota) / int(period))
            break
        except (OSError, ValueError, ZeroDivisionError):
            continue
    return max(0.01, min(count, 64.0))


def cores() -> int:
    """The cases marked at once: one per CPU this container may use, a part of one counting."""
    return max(1, min(math.ceil(cpus()), 64))


def submitted_at(paths: Paths, config: dict):
    """(Gradescope's submission time, submission_metadata.json's created_at, for the late
    rule; whether the assignment has a deadline and that time cannot be read). The time
    is None when there is no deadline or it cannot be read: the results then say so."""
    if not config.get("deadline"):
        return None, False
    try:
        fd = os.open(paths.metadata, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as file:
            text = json.loads(file.read().decode("utf-8"))["created_at"]
        return parsed_time(text).isoformat(), False
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as problem:
        log(NO_SUBMITTED_TIME.format(problem=problem))
        return None, True


def read_metadata(paths: Paths) -> dict:
    """submission_metadata.json, following no link; ValueError when it cannot be read."""
    try:
        fd = os.open(paths.metadata, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as file:
            data = file.read(MOST_METADATA_BYTES + 1)
        if len(data) > MOST_METADATA_BYTES:
            raise ValueError(HISTORY_TOO_LARGE.format(most=MOST_METADATA_BYTES))
        metadata = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as problem:
        raise ValueError(str(problem)) from None
    if not isinstance(metadata, dict):
        raise ValueError(NOT_AN_OBJECT)
    return metadata


def extensions_of(config: dict) -> dict:
    """The students' own terms built into the zip ({} without), as the build wrote them;
    ValueError when the file is not that one, or holds what the build never writes."""
    record = config.get("extensions")
    if not record:
        return {}
    try:
        data = (HERE / EXTENSIONS_NAME).read_bytes()
        if hashlib.sha256(data).hexdigest() != record["sha256"]:
            raise ValueError(DIGEST_DIFFERS)
        found = json.loads(data.decode("utf-8"))
        if not isinstance(found, dict) or len(found) != record["students"]:
            raise ValueError(COUNT_DIFFERS.format(students=record["students"]))
    except (OSError, ValueError, KeyError, TypeError) as problem:
        raise ValueError(DAMAGED.format(file=EXTENSIONS_NAME, problem=problem)) from None
    for key, terms in found.items():
        if not well_formed(terms):
            raise ValueError(NOT_TERMS.format(file=EXTENSIONS_NAME, key=key))
    return found


def well_formed(terms) -> bool:
    """Whether `terms` is what the build writes: a due date with its offset, the extension
    that gave it or none, the late days left or none."""
    if not isinstance(terms, dict) or set(terms) != {"due", "extension", "late_days_left"}:
        return False
    days, extension = terms["late_days_left"], terms["extension"]
    if days is not None and (type(days) is not int or days < 0):
        return False
    if extension is not None and (not isinstance(extension, str) or terms["due"] is None):
        return False
    if terms["due"] is None:
        return days is not None
    try:
        return parsed_time(terms["due"]).tzinfo is not None
    except (TypeError, ValueError, AttributeError):
        return False


def user_keys(user: dict) -> list:
    """How the extensions file names a member: their email casefolded, their user id."""
    keys = []
    if isinstance(user.get("email"), str):
        keys.append(user["email"].casefold())
    if type(user.get("id")) is int or (isinstance(user.get("id"), str) and user["id"].isdecimal()):
        keys.append(str(int(user["id"])))
    return keys


def who(user: dict) -> str:
    return str(user.get("email") or user.get("id") or "?")


def platform_due(metadata: dict, users: list, deadline: datetime):
    """(the latest of the members' due dates on Gradescope where it is not the
    assignment's, else None; the member whose it is). Logs where Gradescope's due date is
    not the assignment file's deadline."""
    try:
        common = parsed_time(metadata["assignment"]["due_date"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None, None
    if common.tzinfo is None:  # then no member's compares with it
        return None, None
    if common != deadline:
        log(OTHER_DEADLINE.format(gradescope=common.isoformat(), deadline=deadline.isoformat()))
    latest, whose = None, None
    for user in users:
        try:
            own = parsed_time(user["assignment"]["due_date"])
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        if own.tzinfo is not None and (latest is None or own > latest):
            latest, whose = own, user
    return (latest, whose) if latest is not None and latest != common else (None, None)


def student_key(paths: Paths):
    """Whose submission it is, for the draw of fresh cases: its members' user ids (else
    emails), sorted and joined with "+"; None, said in the log, when the metadata names none."""
    try:
        users = read_metadata(paths).get("users")
        if not isinstance(users, list):
            raise ValueError(USERS_NOT_A_LIST)
        keys = sorted({user_keys(user)[-1] for user in users
                       if isinstance(user, dict) and user_keys(user)})
        if not keys:
            raise ValueError(NO_MEMBER)
    except ValueError as problem:
        log(NO_STUDENT_KEY.format(problem=problem))
        return None
    return "+".join(keys)


def own_terms(paths: Paths, config: dict) -> dict:
    """MarkRequest's due, extension and late_days_left for this submission's students
    ({} for the assignment's own terms); ValueError when the extensions file built in
    cannot be trusted (then nothing is marked: the autograder fails)."""
    if not config.get("deadline"):
        return {}
    listed = extensions_of(config)
    deadline = parsed_time(config["deadline"])
    try:
        metadata = read_metadata(paths)
        users = metadata.get("users") or []
        if not isinstance(users, list):
            raise ValueError(USERS_NOT_A_LIST)
        users = [user for user in users if isinstance(user, dict)]
    except ValueError as problem:
        log(NO_USERS.format(problem=problem))
        metadata, users = {}, []
    due, whose = platform_due(metadata, users, deadline)
    named = []  # (member, their terms in the file)
    for user in users:
        key = next((key for key in user_keys(user) if key in listed), None)
        if key is not None:
            named.append((user, listed[key]))
    found = {}
    dated = [(parsed_time(terms["due"]), terms) for _, terms in named if terms["due"]]
    latest = max(dated, key=lambda entry: entry[0])[1] if dated else None
    if latest is not None:
        found = {"extension": latest["extension"]} if latest["extension"] else {"due": latest["due"]}
    left = [terms["late_days_left"] for _, terms in named if terms["late_days_left"] is not None]
    if left:
        found["late_days_left"] = min(left)
    if found:
        log(FILE_TERMS.format(terms=", ".join(f"{name} {value}" for name, value in found.items()),
                              file=EXTENSIONS_NAME, who=", ".join(who(user) for user, _ in named)))
    if due is not None:
        if latest is not None and parsed_time(latest["due"]) != due:
            log(PLATFORM_WINS.format(who=who(whose), due=due.isoformat(), file=EXTENSIONS_NAME,
                                     other=latest["extension"] or latest["due"]))
        found.pop("extension", None)
        found["due"] = due.isoformat()
        log(OWN_DUE.format(due=found["due"], who=who(whose)))
    return found


def parsed_time(text: str) -> datetime:
    """One of Gradescope's times ("2018-07-01T14:22:32.365935-07:00")."""
    text = text[:-1] + "+00:00" if text.endswith("Z") else text
    head, dot, rest = text.partition(".")
    if dot:  # Python 3.10 reads only 3 or 6 digits of a fraction of a second: make it 6
        digits = rest[:len(rest) - len(rest.lstrip("0123456789"))]
        text = f"{head}.{digits[:6].ljust(6, '0')}{rest[len(digits):]}"
    return datetime.fromisoformat(text)


class Limit:
    """The assignment's [submissions] as they apply to this submission: when it was made
    (`now`) and the team's earlier counting submissions (time, results), oldest first.
    A previous submission counts when its results say so (ours do), or, marked before
    the assignment had limits, when they hold a score and are no fallback (`counted`).
    Only those made before this one count, so that marking it again (Gradescope's
    "Regrade") gives the same."""

    def __init__(self, settings: dict, zone, now: datetime, earlier: list):
        self.most, self.first = settings.get("most"), settings.get("feedback_first")
        self.window = (timedelta(seconds=settings["window_seconds"])
                       if settings.get("window_seconds") else None)
        self.window_said, self.zone, self.now = settings.get("window") or "", zone, now
        self.earlier = earlier

    @classmethod
    def of(cls, paths: Paths, config: dict):
        """The limit, None without one; raises ValueError when the history cannot be read
        (then no limit can be applied, and nothing is marked: the autograder fails)."""
        settings = config.get("submissions")
        if not settings:
            return None
        try:
            metadata = read_metadata(paths)
            now = parsed_time(metadata["created_at"])
            if now.tzinfo is None:  # then no earlier time compares with it
                raise ValueError(NO_OFFSET.format(time=metadata["created_at"]))
            previous = metadata.get("previous_submissions") or []
            if not isinstance(previous, list):
                raise ValueError(NOT_A_LIST)
            earlier = []
            for entry in previous:
                results = entry.get("results")
                if counted(results):
                    when = parsed_time(entry["submission_time"])
                    if when < now:
                        earlier.append((when, results))
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as problem:
            raise ValueError(HISTORY_UNREAD.format(problem=problem)) from None
        return cls(settings, config.get("time_zone"), now, sorted(earlier, key=lambda e: e[0]))

    def inside(self, until: datetime) -> list:
        """The counting submissions' times within the window before `until`."""
        return [when for when, _ in self.earlier
                if self.window is None or when > until - self.window]

    @property
    def over(self) -> bool:
        return bool(self.most) and len(self.inside(self.now)) >= self.most

    @property
    def withheld(self) -> bool:
        return bool(self.first) and len(self.earlier) >= self.first

    def said(self, when: datetime, later: bool = False) -> str:
        """`when` in the assignment's time zone, to the minute (rounded up when `later`:
        a submission at the time said then counts)."""
        if later and (when.second or when.microsecond):
            when = when.replace(second=0, microsecond=0) + timedelta(minutes=1)
        try:
            zone, name = (ZoneInfo(self.zone), self.zone) if self.zone else (timezone.utc, "UTC")
        except (ZoneInfoNotFoundError, ValueError, OSError):  # no tzdata: as Gradescope gave it
            zone, name = when.tzinfo, f"UTC{when:%z}"
        return TIME.format(time=when.astimezone(zone), zone=name)

    def next_counts(self, times: list) -> str:
        """When a submission counts again, once `times` (the window's) are the most."""
        return self.said(times[-self.most] + self.window, later=True)

    def carried(self):
        """This submission's results, over the limit: not marked; the last counting one's
        score and tests stand, their outputs left with it. None (the autograder fails)
        when those results cannot be kept."""
        then, previous = self.earlier[-1]
        inside = self.inside(self.now)
        within = WITHIN.format(window=self.window_said) if self.window else ""
        message = OVER.format(most=self.most, within=within, then=self.said(then),
                              next=OVER_NEXT.format(time=self.next_counts(inside))
                              if self.window else "")
        try:
            tests = [{**{key: test[key] for key in CARRIED_KEYS if key in test},
                      "output": CARRIED_TEST.format(then=self.said(then))}
                     for test in previous.get("tests") or ()]
            earlier = previous.get("output")
            results = {"score": previous["score"], "output": message + (
                f"\n\n{earlier}" if isinstance(earlier, str) else "") + "\n",
                "output_format": "md", "visibility": previous.get("visibility", "visible"),
                "stdout_visibility": "hidden", "tests": tests,
                "extra_data": {"autograder": {"counted": False, "kept": then.isoformat()}}}
        except (KeyError, TypeError, AttributeError) as problem:
            log(CANNOT_CARRY.format(problem=problem))
            return None
        complaints = validate(results)
        if complaints:
            log(CANNOT_CARRY.format(problem="; ".join(complaints[:3])))
            return None
        return results

    def applied(self, results: dict) -> dict:
        """A counting submission's results, saying where it stands; past `feedback_first`,
        its tests and score shown after the due date only."""
        lines = []
        if self.most:
            inside = [*self.inside(self.now), self.now]
            then = (NEXT_COUNTS.format(time=self.next_counts(inside)) if self.window else
                    NONE_MORE) if len(inside) >= self.most else ""
            lines.append(COUNTED.format(used=len(inside), most=self.most, then=then,
                                        within=WITHIN.format(window=self.window_said)
                                        if self.window else ""))
        if self.withheld:
            for test in results.get("tests", []):
                if test.get("visibility", "visible") == "visible":
                    test["visibility"] = "after_due_date"
            results["visibility"] = "after_due_date"
            results["output"] = WITHHELD.format(first=self.first) + "\n"
        elif self.first:
            lines.append(FEEDBACK_LEFT.format(used=len(self.earlier) + 1, first=self.first))
        results["output"] = results.get("output", "") + "".join(f"{line}\n" for line in lines)
        return results


def counted(results) -> bool:
    """Whether a previous submission counts, by its results: as they say, or, written before
    they said (an autograder without limits), when they hold a score of their own and are
    no fallback (a refusal, a budget spent, a failure then given 0); an autograder that
    failed left none, whatever score Gradescope keeps beside them."""
    if not isinstance(results, dict):
        return False
    own = results.get("extra_data", {}).get("autograder") if isinstance(
        results.get("extra_data"), dict) else None
    if isinstance(own, dict) and "counted" in own:
        return own["counted"] is True
    if isinstance(own, dict) and "fallback" in own:
        return False
    return isinstance(results.get("score"), (int, float)) and not isinstance(
        results.get("score"), bool)


def assignment_file(config: dict) -> str:
    """The assignment's file in the autograder (an instructor's own keeps its folder)."""
    return config.get("assignment_file") or f"assignments/{config['assignment']}.toml"


def run_marker(command: list, budget: float):
    """(exit status, stdout, stderr, stopped at the budget, its messages). The marker's
    output is held until it ends, then logged: nothing of it reaches a file while
    submissions run. Its messages (exactmark.base.messages', one JSON object a line) come on a
    pipe of their own, read as they come."""
    reading, writing = os.pipe()
    try:
        process = subprocess.Popen(command, cwd=SOURCE, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env={**marker_environment(os.environ), MESSAGES_FD: str(writing)},
                                   pass_fds=(writing,), start_new_session=True)
    finally:
        os.close(writing)
    messages = []
    listening = threading.Thread(target=read_messages, args=(reading, messages), daemon=True)
    listening.start()
    stopped = False
    try:
        out, err = process.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        stopped = True
        log(f"the time budget ({budget:g} s) is spent: stopping the marker")
        # As Ctrl-C: once marking, it kills every run and writes what it marked; before,
        # KeyboardInterrupt still removes its folders.
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
    listening.join(GRACE_SECONDS)
    return process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), \
        stopped, messages


def read_messages(fd: int, messages: list) -> None:
    with os.fdopen(fd, "rb") as pipe:
        messages += filter(None, map(read_message, pipe))


def refusal(messages: list) -> str:
    """The marker's reason for refusing (its last Refusal)."""
    said = [message.reason for message in messages if isinstance(message, Refusal)]
    return said[-1] if said and said[-1] else NO_REASON


def budget_of(config: dict) -> float:
    try:
        return max(1.0, float(os.environ["AUTOGRADER_BUDGET_SECONDS"]))
    except (KeyError, ValueError):
        return float(config.get("budget_seconds") or 540)


def marker_budgets(budget: float, cpus: float, jobs: int) -> tuple:
    """(CPU seconds, seconds of waiting) that all of a submission's runs may use together:
    each half of RUNS_SHARE of the time budget, the CPU seconds on the `cpus` the container
    may use (on half a CPU, a second of CPU takes two), the waiting on the `jobs` runs at
    once, so that a submission that loops in some cases and sleeps in others still ends
    within it. The marker shares them by its programs and the counts of its groups of
    cases: a part that hangs loses its own cases, where the time budget would stop the
    marking and lose every case left."""
    half = budget * RUNS_SHARE / 2
    return min(MOST_MARKER_BUDGET, half * cpus), min(MOST_MARKER_BUDGET, half * jobs)


def mark(paths: Paths, config: dict, started: float) -> dict:
    root_only(paths.results_folder, directory=True)
    root_only(paths.metadata, directory=False)  # it holds earlier results, and who submitted
    try:
        paths.results.unlink()  # only what the marker writes now counts
    except FileNotFoundError:
        pass
    try:
        limit = Limit.of(paths, config)
    except ValueError as problem:
        log(AUTOGRADER_FAILED.format(what=problem))
        return None
    if limit is not None and limit.over:
        return limit.carried()
    isolation = os.environ.get("AUTOGRADER_ISOLATION", "auto")
    isolation = isolation if isolation in ISOLATIONS else "auto"
    try:
        terms = own_terms(paths, config)
    except ValueError as problem:
        log(AUTOGRADER_FAILED.format(what=problem))
        return None
    submitted, unread = submitted_at(paths, config)
    budget = budget_of(config)
    cpu, waiting = marker_budgets(budget, cpus(), cores())
    command = MarkRequest(assignment_file(config), str(paths.submission), json=str(paths.results),
                          jobs=cores(), isolation=isolation, submitted=submitted,
                          student_budget=cpu, waiting_budget=waiting,
                          student=student_key(paths), **terms).argv()
    log("$ " + " ".join(command))
    status, out, err, stopped, messages = run_marker(command, budget)
    print(out, end="", flush=True)
    print(err, end="", flush=True)
    log(f"the marker exited with status {status}")
    seconds = time.monotonic() - started
    if status in MARKED or (stopped and status == Exit.INTERRUPTED):
        results = read_results(paths.results)
        if results is not None:
            results = summarised(results, config, status, budget if stopped else None, unread)
            return limit.applied(results) if limit is not None else results
        if stopped:
            return fallback(config, OUT_OF_TIME.format(budget=budget), "budget", status, seconds)
        log(AUTOGRADER_FAILED.format(what=NO_RESULTS.format(status=status)))
        return None
    if stopped:
        return fallback(config, OUT_OF_TIME.format(budget=budget), "budget", status, seconds)
    if status == Exit.REFUSED:
        return fallback(config, REFUSED_MESSAGE.format(reason=shown(refusal(messages))), "refused",
                        status, seconds)
    what = ("it failed on a case" if status == Exit.MARKER_ERROR else
            f"killed by signal {-status}" if status < 0 else f"exit status {status}")
    log(AUTOGRADER_FAILED.format(what=f"the marker: {what}"))
    return None


def summarised(results: dict, config: dict, status: int, budget, unread_time: bool = False) -> dict:
    """The marker's results with a short Markdown summary on top, for Gradescope."""
    extra = results.setdefault("extra_data", {})
    tests = results.get("tests", [])
    lines = []
    if budget is not None:
        not_run = (sum(1 for case in extra.get("cases", []) if case.get("kind") == NOT_RUN)
                   + counts_not_run(extra.get("student_groups", [])))
        lines.append(STOPPED.format(budget=budget, not_run=not_run, total=len(tests)))
    shown_tests = [test for test in tests if test.get("visibility", "visible") == "visible"]
    others = [test for test in tests if test.get("visibility", "visible") != "visible"]
    if not others:
        lines.append(SCORE_LINE.format(score=results["score"], marks=config["marks"]))
    else:
        lines.append(VISIBLE_LINE.format(
            earned=sum(test.get("score", 0) for test in shown_tests),
            most=round(sum(test.get("max_score", 0) for test in shown_tests), 2),
            others=len(others), s="s" * (len(others) != 1), verb="" if len(others) != 1 else "s",
            marks=round(sum(test.get("max_score", 0) for test in others), 2),
            when=shown_when(others)))
    lines.append("")
    for program, data in extra.get("programs", {}).items():
        if not data.get("submitted", True):
            lines.append(f"- **{shown(data['missing'])}**" if data.get("missing")
                         else MISSING_LINE.format(program=shown(program), marks=data["marks"]))
        elif not others:
            lines.append(PROGRAM_LINE.format(program=shown(program), earned=data["earned"],
                                             marks=data["marks"]))
    late = extra.get("late")
    if late:
        lines.append(late_line(late, exact=not others))
    elif unread_time:
        lines.append(UNREAD_TIME)
    if config.get("pack_said"):
        lines.append(f"- {config['pack_said']}")  # our words and a URL checked when built
    for line in extra.get("isolation", []):
        log(line)  # the sandbox's limits: for the instructor, not a map for the student
    # Of the marker's header, its notes on the submission (the folder entered, what the copy
    # left out); the rest (the sandbox, the runs) is the log's, not a map for the student.
    lines += [f"- {shown(line, 1000)}" for line in extra.get("notes", [])]
    said = suggested(extra.get("diagnoses", []))
    if said:
        lines += ["", SUGGESTS_HEAD, *said]
    results["output"] = "\n".join(lines).strip() + "\n"
    results["output_format"] = "md"
    results["stdout_visibility"] = "hidden"
    extra["autograder"] = {"marker_exit": status, "stopped_at_budget": budget is not None,
                           "counted": True}
    return results


def suggested(diagnoses: list) -> list:
    """What the record's diagnoses of the visible cases say (each program's, at
    SUGGESTS_LEVEL), a Markdown line each: every program's mistakes named, then its
    failures by rule, which are many, so that a cut output (`bounded`) keeps the mistakes.
    What more cases say waits in the marker's tests of their visibility."""
    seen = [diagnosis for diagnosis in diagnoses if isinstance(diagnosis, dict)
            and diagnosis.get("level") == SUGGESTS_LEVEL]
    return [SUGGESTS_LINE.format(program=shown(diagnosis.get("program", "")),
                                 line=shown(line, 1000))
            for part in ("said", "by_rule") for diagnosis in seen
            for line in diagnosis.get(part, ())]


def shown_when(tests: list) -> str:
    """When Gradescope shows `tests` (none of them visible from the start) to a student."""
    counts = {}
    for test in tests:
        visibility = test.get("visibility") if test.get("visibility") in SHOWN_WHEN else "hidden"
        counts[visibility] = counts.get(visibility, 0) + 1
    return "; ".join(SHOWN_WHEN[visibility].format(
        them=SOME_OF_THEM.format(count=count) if len(counts) > 1 else "it" if count == 1 else "them")
        for visibility, count in counts.items())


def cut(text: str, most: int) -> str:
    """`text` in at most `most` characters and a line saying what was cut: at the last line
    end in its second half, else within the line, never inside a drawn ⟨...⟩."""
    if len(text) <= most:
        return text
    kept = text[:most]
    if kept.rfind("\n") >= most // 2:
        kept = kept[:kept.rfind("\n")]
    opened = kept.rfind("⟨")
    if opened > kept.rfind("⟩") and len(kept) - opened < LONGEST_ESCAPE:
        kept = kept[:opened]
    rest = text[len(kept):].lstrip("\n")
    if not rest:
        return kept
    lines = rest.count("\n") + (not rest.endswith("\n"))
    said = CUT_OUTPUT.format(chars=len(rest), cs="s" * (len(rest) != 1), lines=lines,
                             ls="s" * (lines != 1))
    return f"{kept}\n{said}" if kept else said


def size(results: dict) -> int:
    """results.json's bytes, as write_results writes it."""
    return len(json.dumps(results, indent=2, ensure_ascii=False).encode("utf-8", "replace")) + 1


def without_diffs(extra) -> None:
    """extra_data without the diffs (drawn, and as lines for a page) and the lines shown of
    an output too large: each failed test's output holds its own, and on Gradescope
    nothing reads them back."""
    if not isinstance(extra, dict):
        return
    verdicts = [verdict for case in extra.get("cases") or () if isinstance(case, dict)
                for verdict in case.get("verdicts") or ()]
    verdicts += [case.get(run) for group in extra.get("student_groups") or ()
                 if isinstance(group, dict) for case in group.get("cases") or ()
                 if isinstance(case, dict) for run in ("reference", "own")]
    for verdict in verdicts:
        if isinstance(verdict, dict):
            verdict["diff"], verdict["diff_lines"], verdict["runaway"] = "", None, []


def bounded(results: dict) -> dict:
    """results.json within MOST_RESULTS_BYTES: the summary within MOST_SUMMARY_CHARS, no
    second copy of the diffs, each test's output within the first of TEST_CUTS that makes
    the whole fit; and where even the lines alone do not, extra_data only the
    autograder's own record."""
    if isinstance(results.get("output"), str):
        results["output"] = cut(results["output"], MOST_SUMMARY_CHARS)
    without_diffs(results.get("extra_data"))
    tests = [test for test in results.get("tests") or () if isinstance(test, dict)]
    outputs = [test.get("output") for test in tests]
    for most in TEST_CUTS:
        for test, output in zip(tests, outputs):
            if isinstance(output, str):
                test["output"] = cut(output, most)
        if size(results) <= MOST_RESULTS_BYTES:
            return results
    extra = results.get("extra_data")
    own = extra.get("autograder") if isinstance(extra, dict) else None
    results["extra_data"] = {"autograder": {**(own if isinstance(own, dict) else {}),
                                            "cut": RECORD_CUT}}
    return results


def counts_not_run(groups: list) -> int:
    """The tests of groups of cases students wrote (one per count) that a run of theirs
    did not reach: the reference's on a case (valid), a wrong program's (thorough), the
    student's program's (own code)."""
    def not_run(verdict) -> bool:
        return bool(verdict) and verdict.get("kind") == NOT_RUN

    found = 0
    for group in groups:
        cases = group.get("cases", [])
        found += any(not_run(case.get("reference")) for case in cases)
        found += any(str(mistake.get("undecided", "")).startswith(NOT_RUN)
                     for mistake in group.get("mistakes", []))
        found += any(not_run(case.get("own")) for case in cases)
    return found


def late_line(late: dict, exact: bool) -> str:
    """The late rule as the marker says it: its arithmetic (which shows the raw score) only
    when every test is shown, else what it does to the mark."""
    said = late.get("explanation") if exact else late.get("summary")
    return LATE_LINE.format(said=shown(said or late.get("explanation", "")))


def check() -> int:
    """setup.sh's check: the marker loads this autograder's assignment here (its time zone,
    its cases), on the interpreter the assignment names."""
    config = load_settings()
    if config is None:
        return Exit.FAILED
    try:
        from exactmark.kit.assignment import load  # the marker's own, as each submission will use it
        assignment = load(assignment_file(config))
    except Exception as problem:
        print(f"check: the marker cannot load its assignment: {type(problem).__name__}: {problem}")
        return Exit.FAILED
    chosen = assignment.chosen_mistakes()
    if chosen != config.get("student_groups", {}):
        print(OTHER_MISTAKES.format(here=chosen, built=config.get("student_groups", {})))
        return Exit.FAILED
    try:
        students = len(extensions_of(config))
    except ValueError as problem:
        print(f"check: {problem}")
        return Exit.FAILED
    if config.get("extensions"):
        print(EXTENSIONS_READY.format(students=students, s="s" * (students != 1),
                                      file=EXTENSIONS_NAME))
    version = config.get("python")
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if version and running != version:
        print(f"check: Python {running} runs the marker, not {version} as the assignment names")
        return Exit.FAILED
    check_results = validator()
    if check_results is None or check_results(fallback(config, "check", "check", None, 0.0)):
        print("check: the fallback results do not pass results.schema.json")
        return Exit.FAILED
    isolation = subprocess.run(MarkRequest(assignment_file(config), jobs=cores(),
                                           check_isolation=True).argv(), cwd=SOURCE,
                               capture_output=True, text=True, env=marker_environment(os.environ))
    for line in (isolation.stdout + isolation.stderr).splitlines():
        print(f"check: {line}")
    if isolation.returncode:
        print("check: the marker would refuse every submission here")
        return Exit.FAILED
    cases = sum(map(assignment.case_count, assignment.marked_cases))
    groups = sum(len(named) for named in chosen.values())
    print(READY.format(name=assignment.name, cases=cases, marks=assignment.marks,
                       groups=GROUPS.format(groups=groups, s="s" * (groups != 1)) if groups else "",
                       python=running, cores=cores()))
    return Exit.PASSED


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--check"]:
        return check()
    started = time.monotonic()
    signal.signal(signal.SIGINT, signal.default_int_handler)  # not ignored: the marker inherits it
    paths = Paths.from_environment()
    config = load_settings()
    try:
        if config is None:
            log(AUTOGRADER_FAILED.format(what="its settings cannot be read"))
            results = None
        else:
            results = mark(paths, config, started)
    except BaseException:  # whatever it is, the log gets the trace
        traceback.print_exc(file=sys.stdout)
        log(AUTOGRADER_FAILED.format(what="run.py"))
        results = None
    try:
        if results is None:
            paths.results.unlink(missing_ok=True)
            return Exit.PASSED
        paths.results_folder.mkdir(parents=True, exist_ok=True)
        write_results(paths.results, bounded(results))
    except OSError as problem:
        log(f"cannot write {paths.results}: {problem}")  # run_autograder removes it
        return Exit.FAILED
    return Exit.PASSED


if __name__ == "__main__":
    sys.exit(main())
