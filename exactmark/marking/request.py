"""What a tool asks of the marker (`python -m exactmark.marking.mark`), typed: the one
place its command line is written. The class marker, verify and Gradescope's run ask
through it; a test holds its fields to the marker's options. Standard library only:
Gradescope's run imports it where nothing else may work.

A request travels on the marker's command line (`argv`), or, where no path may stand on
a command line, which every user can read (/proc/PID/cmdline), as JSON in the marker's
environment (`hidden`): the class marker's way, since a run in the fallback sandbox
shares the machine's processes. JSON carries any path whole: a byte that is not UTF-8
travels as its surrogate escape."""

import json
import os
import sys
from dataclasses import asdict, dataclass, fields

MARKER = "exactmark.marking.mark"
REQUEST = "MARK_REQUEST"  # the environment variable that holds a request, as JSON
MAKE_VARIABLES = "MARK_"  # what `make` hands the tools (exactmark.base.from_make): a marker
# that finds them reads them instead of its command line


@dataclass(frozen=True)
class MarkRequest:
    """The marker's options, each as its option says (None, False or empty: not given, the
    marker's default); `submission` its folder, none for --check-isolation."""
    assignment: str  # a name, or an assignment file's path
    submission: str = None
    json: str = None  # where results.json goes
    jobs: int = None
    markers: int = None
    isolation: str = None
    sandbox_per: str = None
    require: tuple = ()
    only: tuple = ()
    tty: bool = False
    timeout: float = None  # CPU seconds a case, instead of the assignment's
    submitted: str = None  # ISO 8601
    due: str = None  # ISO 8601: the student's own due date
    extension: str = None  # "3 days": their due date is the deadline and this
    late_days_left: int = None  # the term's late days left to them before this assignment
    student_budget: float = None
    waiting_budget: float = None
    check_isolation: bool = False
    named: str = None  # what the report calls the submission, when `submission` is a copy
    overrides: str = None  # an overrides file: its rows naming `student` applied
    student: str = None
    reuse: str = None  # an earlier results.json whose verdicts stand where a case's key is unchanged

    def options(self) -> list:
        """The marker's arguments: each option given, then `--` and the folder, so that a
        folder named like an option is still the folder."""
        found = []
        for field in fields(self):
            value, option = getattr(self, field.name), f"--{field.name.replace('_', '-')}"
            if field.name == "submission" or value is None or value is False:
                continue
            if value is True:
                found.append(option)
            elif isinstance(value, tuple):
                found += [part for each in value for part in (option, str(each))]
            else:
                found += [option, f"{value:g}" if isinstance(value, float) else str(value)]
        return found + (["--", str(self.submission)] if self.submission is not None else [])

    def argv(self) -> list:
        """The marker's command line, the request on it."""
        return [sys.executable, "-m", MARKER, *self.options()]

    def hidden(self, environment) -> tuple:
        """(command line, environment) with the request in the environment, off the
        command line: `environment` without make's variables, and with the request."""
        return [sys.executable, "-m", MARKER], {**marker_environment(environment),
                                                REQUEST: json.dumps(asdict(self))}

    @classmethod
    def from_json(cls, text: str) -> "MarkRequest":
        """The request `hidden` wrote; ValueError when `text` is none."""
        try:
            data = json.loads(text)
            return cls(**{name: tuple(value) if isinstance(value, list) else value
                          for name, value in data.items()})
        except (TypeError, AttributeError) as problem:
            raise ValueError(str(problem)) from None


def marker_environment(environment) -> dict:
    """`environment` for the marker: without make's variables, which it would read instead
    of what it is asked."""
    return {name: value for name, value in environment.items()
            if not name.startswith(MAKE_VARIABLES)}


def taken(environment=os.environ):
    """The request the marker's environment holds (removed from it: no process the marker
    starts inherits it), or None."""
    text = environment.pop(REQUEST, None)
    return None if text is None else MarkRequest.from_json(text)
