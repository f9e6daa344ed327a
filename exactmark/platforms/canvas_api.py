"""What Canvas's download lacks, asked of its REST API through canvasapi (the maintained
client, pinned in requirements-class.txt): each submission's time, Canvas's own late flag,
the attempt and the group; every student of the course (submitted or not) with what the
gradebook import matches on; the assignment's name and points.

The token comes from the environment variable CANVAS_TOKEN only: never a command line, a
file the kit writes, or a message (every message below is a constant that cannot hold it).
Requests, as canvasapi makes them (canvas.py, course.py, assignment.py, paginated_list.py):

    GET /api/v1/courses/:course                                  the course
    GET /api/v1/courses/:course/assignments/:assignment          name, points_possible
    GET /api/v1/courses/:course/assignments/:assignment/submissions?include[]=user&include[]=group
    GET /api/v1/courses/:course/search_users?enrollment_type[]=student
        &include[]=enrollments&include[]=email                   the roster
    GET /api/v1/courses/:course/sections                         section names

each list paged by its Link header (rel="next"). A server error (5xx) or a dropped
connection is tried again, RETRIES times in all, with a short backoff; then one line. The
server is not trusted further than that: an error's body is never shown (it may echo the
request's Authorization header), and a run asks at most MOST_REQUESTS times (a Link that
pages for ever) and reads at most MOST_ANSWER_BYTES of an answer (a huge one).
"""

import os
import time
import warnings
from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import urlsplit

import requests
from canvasapi import Canvas
from canvasapi.exceptions import CanvasException, ResourceDoesNotExist
from requests.adapters import HTTPAdapter
from urllib3.exceptions import HTTPError as TransportError
from urllib3.util.retry import Retry

from exactmark.base.visible import escaped
from exactmark.platforms.canvas import CanvasAssignment, number
from exactmark.platforms.download import Download, Person

TOKEN_VARIABLE = "CANVAS_TOKEN"
RETRIES = 3
BACKOFF = 0.5  # seconds, doubled each try (urllib3's backoff_factor)
SERVER_ERRORS = (500, 502, 503, 504)
TIMEOUT = 60  # seconds for a connection or an answer: canvasapi sets none, so waits forever
# Canvas gives 10 items a page unless asked for more: 5,000 requests are a course of 20,000
# students, each list paged; an answer of a page of 100 students is a few hundred kB.
MOST_REQUESTS = 5_000
MOST_ANSWER_BYTES = 64 << 20
MOST_ANSWER_SECONDS = 5 * TIMEOUT  # for one answer's body, however slowly each byte comes
CHUNK = 64 << 10

NO_TOKEN = f"Canvas: set {TOKEN_VARIABLE} in the environment to a Canvas access token"
URL_NOT_PLAIN = ("--canvas-url: give Canvas's address alone (https://canvas.example.edu), with "
                 f"no user name, password, query or fragment: the token goes in {TOKEN_VARIABLE}")
TOKEN_NOT_TEXT = (f"Canvas: {TOKEN_VARIABLE} holds a character no Canvas access token has (a "
                  "control, invisible or non-ASCII one): set it again, copied as Canvas shows it")
NOT_HTTPS = (f"--canvas-url {{url}} is not an https:// address: the token in {TOKEN_VARIABLE} "
             "would cross the network unencrypted; give Canvas's https:// address")
LOOPBACK = ("127.0.0.1", "::1", "localhost")  # http allowed: the token never leaves the machine
HTTP_WARNING = "Canvas may respond unexpectedly"  # canvasapi's warning for an http:// address
REFUSED = (f"Canvas refused the token in {TOKEN_VARIABLE} (HTTP {{status}}): it is wrong, "
           "expired, or not a teacher's of this course")
RATE_LIMITED = "Canvas refused the requests as too many (HTTP 403, rate limit): try again later"
RATE_LIMIT_WORDS = "Rate Limit Exceeded"  # the body of Canvas's 403 when throttled
NOT_FOUND = "Canvas has no course {course} with an assignment {assignment} at {url}"
SERVER_FAILED = f"Canvas at {{url}} answered with a server error {RETRIES} times: try again later"
UNREACHABLE = f"Canvas at {{url}} did not answer after {RETRIES} tries ({{why}})"
FAILED = "Canvas at {url} answered with an error: {why}"
NOT_CANVAS = "Canvas at {url} answered, but not as Canvas's API does ({why})"
FAILED_STATUS = "HTTP {status}"  # FAILED's why: never the body, which may echo the token
TOO_MANY_REQUESTS = ("Canvas at {url} was asked {most} times and still had more pages: stopped "
                     "(a server that pages for ever?)")
TOO_LARGE = "Canvas at {url} answered with more than {most:,} bytes: stopped"
TOO_SLOW = "Canvas at {url} took more than {most} seconds to give one answer: stopped"
LATE_DISAGREES = ("Canvas's download marks this submission {download}, its API {api}: "
                  "handed in again since the download?")
LATE_WORDS = {True: "late", False: "on time"}
GROUP_NOTE = "Canvas group {group}: {members}"
OTHER_POINTS = ("Canvas's assignment {name} ({id}) is out of {canvas} points, the kit marks out "
                "of {kit}: its import would take each mark as points of {canvas}; make them the "
                "same")


@dataclass(frozen=True)
class Submitted:
    """One student's submission as the API has it."""
    user: Person
    submitted_at: datetime  # aware; None when the student has not submitted
    late: bool
    attempt: int  # None when the student has not submitted
    group_id: str = ""  # "" outside a group assignment
    group_name: str = ""


@dataclass(frozen=True)
class Fetched:
    assignment_id: str
    name: str
    points: float
    submissions: dict  # user id -> Submitted
    roster: list  # Person, every student of the course, in Canvas's sortable-name order


def token(environ=os.environ) -> str:
    """The token, taken out of the environment: no process started after (each student's
    marker copies the class marker's environment) ever holds it."""
    value = environ.pop(TOKEN_VARIABLE, "").strip()
    if not value:
        raise ValueError(NO_TOKEN)
    if not (value.isascii() and value.isprintable()):
        raise ValueError(TOKEN_NOT_TEXT)  # requests would say it, with the offending part
    return value


class Refused(Exception):
    """An answer stopped as it arrives, before canvasapi reads its body: a 401 or 403, any
    other error, one answer too many or too large. said(url) is the line to say."""

    def __init__(self, template: str, **fields):
        super().__init__(template)
        self.template, self.fields = template, fields

    def said(self, url: str) -> str:
        return self.template.format(url=url, **self.fields)


def fetch(url: str, course_id: str, assignment_id: str, environ=os.environ,
          backoff: float = BACKOFF) -> Fetched:
    """Everything with_times needs, or ValueError with one line that never holds the token.
    The token goes over https only (or to this machine itself: a test's Canvas, a tunnel);
    canvasapi's own warning about http, a Python warning, is said so instead."""
    parts = urlsplit(url)
    if "@" in parts.netloc or parts.query or parts.fragment:
        raise ValueError(URL_NOT_PLAIN)  # a password replaces the token; both are shown
    if parts.scheme != "https" and parts.hostname not in LOOPBACK:
        raise ValueError(NOT_HTTPS.format(url=url))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", HTTP_WARNING, UserWarning)
        canvas = Canvas(url.rstrip("/"), token(environ))
    guarded(canvas, backoff)
    try:
        return ask(canvas, course_id, assignment_id)
    except Refused as refused:
        raise ValueError(refused.said(url)) from None
    except ResourceDoesNotExist:
        raise ValueError(NOT_FOUND.format(course=course_id, assignment=assignment_id,
                                          url=url)) from None
    except requests.exceptions.RetryError:
        raise ValueError(SERVER_FAILED.format(url=url)) from None
    except (requests.exceptions.RequestException, TransportError) as error:
        raise ValueError(UNREACHABLE.format(url=url, why=type(error).__name__)) from None
    except CanvasException as error:
        raise ValueError(FAILED.format(url=url, why=type(error).__name__)) from None
    except (AttributeError, KeyError, TypeError, ValueError) as error:  # JSON of another shape
        raise ValueError(NOT_CANVAS.format(url=url, why=type(error).__name__)) from None


def guarded(canvas: Canvas, backoff: float) -> None:
    """canvasapi sends every request through one requests session and has no retry of its
    own: mount urllib3's on it (GET only; a 5xx or a dropped connection), and say a refused
    token from the status alone (canvasapi would parse the body, which need not be JSON),
    every answer read here within MOST_ANSWER_BYTES and counted against MOST_REQUESTS.
    The session is a private attribute of the pinned canvasapi: the retry tests fail if a
    new version moves it."""
    retry = Retry(total=RETRIES - 1, status_forcelist=SERVER_ERRORS, backoff_factor=backoff,
                  allowed_methods=frozenset({"GET"}), raise_on_status=True)
    session = canvas._Canvas__requester._session
    adapter = Patient(max_retries=retry)
    for scheme in ("http://", "https://"):
        session.mount(scheme, adapter)
    session.hooks["response"].extend([bounded, refusing])


class Patient(HTTPAdapter):
    """An adapter that waits TIMEOUT for Canvas, never forever, and asks it at most
    MOST_REQUESTS times (canvasapi follows a next page for ever)."""

    asked = 0

    def send(self, request, **kwargs):
        if self.asked >= MOST_REQUESTS:
            raise Refused(TOO_MANY_REQUESTS, most=MOST_REQUESTS)
        self.asked += 1
        kwargs["timeout"] = kwargs.get("timeout") or TIMEOUT
        return super().send(request, **kwargs)


def bounded(response, *args, **kwargs):
    """An answer's body read now, within MOST_ANSWER_BYTES and MOST_ANSWER_SECONDS, and kept
    where requests keeps it (Response._content: what .content and .json() give, never read
    again): requests would read any length, for as long as each byte comes within TIMEOUT.
    A connection that breaks meanwhile raises urllib3's error (fetch says it)."""
    length = response.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > MOST_ANSWER_BYTES:
        stopped(response, TOO_LARGE, MOST_ANSWER_BYTES)
    deadline, body = time.monotonic() + MOST_ANSWER_SECONDS, bytearray()
    while chunk := response.raw.read1(CHUNK, decode_content=True):  # what has come
        body += chunk
        if len(body) > MOST_ANSWER_BYTES:
            stopped(response, TOO_LARGE, MOST_ANSWER_BYTES)
        if time.monotonic() > deadline:
            stopped(response, TOO_SLOW, MOST_ANSWER_SECONDS)
    response._content = bytes(body)
    return response


def stopped(response, template: str, most) -> None:
    response.close()  # hung up: the rest is never sent
    raise Refused(template, most=most)


def refusing(response, *args, **kwargs):
    status = response.status_code
    if status == 403 and RATE_LIMIT_WORDS in response.text:
        raise Refused(RATE_LIMITED)
    if status in (401, 403):
        raise Refused(REFUSED, status=status)
    if status >= 400 and status != 404 and status not in SERVER_ERRORS:
        raise Refused(FAILED, why=FAILED_STATUS.format(status=status))
    return response


def ask(canvas: Canvas, course_id: str, assignment_id: str) -> Fetched:
    course = canvas.get_course(course_id)
    assignment = course.get_assignment(assignment_id)
    sections = {section.id: section.name for section in course.get_sections()}
    roster = [person(user, sections) for user in course.get_users(
        enrollment_type=["student"], include=["enrollments", "email"])]
    submissions = {}
    for submission in assignment.get_submissions(include=["user", "group"]):
        group = getattr(submission, "group", None) or {}
        submissions[str(submission.user_id)] = Submitted(
            user=person(submission.user, sections) if hasattr(submission, "user")
            else Person(str(submission.user_id), str(submission.user_id)),
            submitted_at=moment(getattr(submission, "submitted_at", None)),
            late=bool(getattr(submission, "late", False)),
            attempt=getattr(submission, "attempt", None),
            group_id="" if group.get("id") is None else str(group["id"]),
            group_name=group.get("name") or "")
    return Fetched(str(assignment.id), assignment.name,
                   float(getattr(assignment, "points_possible", None) or 0), submissions,
                   roster)


def person(user, sections: dict) -> Person:
    """A student with what the gradebook export writes of them, for the import to match
    (a User of the users list, or the dict a submission's include[]=user gives)."""
    user = user if isinstance(user, dict) else vars(user)
    names = sorted({sections.get(enrollment.get("course_section_id"), "")
                    for enrollment in user.get("enrollments") or []} - {""})
    return Person(id=str(user["id"]), name=user.get("name") or str(user["id"]),
                  email=user.get("email") or user.get("login_id") or "",
                  extra=(("Student", user.get("sortable_name") or user.get("name") or ""),
                         ("SIS User ID", user.get("sis_user_id") or ""),
                         ("SIS Login ID", user.get("login_id") or ""),
                         ("Section", sentence(names))))


def sentence(names: list) -> str:
    """Rails' to_sentence, as the export joins a student's sections."""
    if len(names) < 3:
        return " and ".join(names)
    return f"{', '.join(names[:-1])}, and {names[-1]}"


def moment(text: str) -> datetime:
    """Canvas's ISO 8601 time ("2026-03-01T23:59:59Z"), aware; None for none."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def with_times(download: Download, fetched: Fetched, marks: float = None) -> Download:
    """The download with what only the API knows: each hand-in's time, its members (all of
    a group's students), the students' names and ids as Canvas has them, the roster, and a
    note where the download's LATE marker and the API's late flag disagree. ValueError
    when the assignment's points possible are not `marks`, the kit's total: Canvas's import
    takes a score as points of its own total, so 8 of 10 would go in as 8 of 20."""
    if marks is not None and fetched.points != marks:
        raise ValueError(OTHER_POINTS.format(name=fetched.name, id=fetched.assignment_id,
                                             canvas=number(fetched.points),
                                             kit=number(marks)))
    people = {p.id: p for p in fetched.roster}
    handins = []
    for handin in download.handins:
        submitted = fetched.submissions.get(handin.key)
        if submitted is None:
            handins.append(handin)
            continue
        notes = list(handin.notes)
        if handin.late is not None and submitted.submitted_at and handin.late != submitted.late:
            notes.append(LATE_DISAGREES.format(download=LATE_WORDS[handin.late],
                                               api=LATE_WORDS[submitted.late]))
        members = [people.get(member.id, submitted.user) for member in handin.members]
        name = members[0].name if len(members) == 1 else handin.name
        if submitted.group_id:
            members = [people.get(other.user.id, other.user)
                       for other in fetched.submissions.values()
                       if other.group_id == submitted.group_id]
            name = submitted.group_name or name
            notes.append(GROUP_NOTE.format(group=escaped(name), members=", ".join(
                escaped(member.name) for member in members)))
        handins.append(replace(handin, name=name, members=members,
                               submitted=submitted.submitted_at, notes=notes))
    return replace(download, handins=handins, roster=list(fetched.roster),
                   sheet=CanvasAssignment(fetched.assignment_id, fetched.name, fetched.points))
