"""The messages a marker sends, as it marks, to the process that started it (`Progress`,
`Notice`, `Refusal`), as typed records: one JSON object a line, on the file descriptor
that process names in MARK_MESSAGES_FD. The marker's stderr says the same for people.
Here, below the sandbox, since the sandbox sends a Notice too (a full disk); standard
library only, since Gradescope's run reads them where nothing else may work."""

import functools
import json
import os
from dataclasses import asdict, dataclass

MESSAGES_FD = "MARK_MESSAGES_FD"
WARNING, DISK_FULL = "warning", "disk full"  # a Notice's kinds


@dataclass(frozen=True)
class Progress:
    """A case marked (or a program built: `total` 0)."""
    done: int
    total: int
    case: str
    kind: str


@dataclass(frozen=True)
class Notice:
    """A warning for whoever runs the marking (the class marker says each once), of its kind:
    a class run counts the students a full disk hit instead of saying it each time."""
    text: str
    kind: str = WARNING


@dataclass(frozen=True)
class Refusal:
    """Why the marker marks nothing: a bad option or a submission it refuses."""
    reason: str


MESSAGES = {record.__name__: record for record in (Progress, Notice, Refusal)}


def message_line(record) -> bytes:
    return (json.dumps({"message": type(record).__name__, **asdict(record)},
                       ensure_ascii=False) + "\n").encode("utf-8")


def read_message(line: bytes):
    """The record a line holds; None for a line that is not one."""
    try:
        data = json.loads(line)
        return MESSAGES[data.pop("message")](**data)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


@functools.cache
def listener():
    """The descriptor MARK_MESSAGES_FD names, kept from every process this one starts."""
    fd = os.environ.get(MESSAGES_FD, "")
    try:
        os.set_inheritable(int(fd), False)
    except (ValueError, OSError):
        return None
    return int(fd)


def send(record) -> None:
    """Tell the process that started this marker, where it listens."""
    fd = listener()
    if fd is None:
        return
    line = memoryview(message_line(record))
    try:
        while line:
            line = line[os.write(fd, line):]
    except OSError:
        pass  # nobody listens any more: the marking goes on
