"""Gradescope's "Export Submissions" read as it comes: one hand-in per submission folder, its
submitters and its time from submission_metadata.yml. Gradescope needs nothing back.

What the export is (Assignment > Review Grades > Export Submissions): a zip whose one top
folder ("assignment_<id>_export/") holds a folder per submission and submission_metadata.yml,
a YAML mapping that Gradescope's Ruby writes with symbol keys:

    submission_123456:
      :submitters:
      - :name: Ann Lee
        :sid: '1001'
        :email: ann@example.edu
      :created_at: 2026-03-01 23:59:30.123456000 -05:00
      :score: 10.0
      :history: [...]           # older submissions, programming assignments only

Relied on, each for the part it shows:
  - Gradescope's autograder documentation, "Submission Metadata"
    (https://gradescope-autograders.readthedocs.io/en/latest/submission_metadata/): the same
    record as the autograder sees it, in JSON: the time with its offset, "users" (several for a
    group submission) each with a name and an email, the older submissions.
  - ucbds-infra/otter-grader, test/sample-metadata/gradescope-export/submission_metadata.yml
    (commit 8c439a2acf51487ed530248378285de03c49d82b) and
    test/test-grade/gradescope-export/submission_metadata.yml (commit
    f02c8bfe79312bbcd6bc530fb8f15a1e25dd74c3): the YAML as Gradescope writes it: the keys
    ":submitters", ":name", ":email", ":sid" (quoted: '12345'), ":created_at" as Ruby writes a
    time ("2019-09-04 21:03:57.297916000 Z"), ":score"; a group of three submitters; a submitter
    with a key of its own (section_name); the keys of a PDF assignment's export naming files.
  - hazelgrove/hazel, src/haz3lschool/Gradescope-Utils-2023.02.17/bin/join.pl (commit
    4b387236f2c7c126e9e666cc287578e0c87c7d5c): the zip unpacks to "assignment*export/", which
    holds submission_metadata.yml and the folder named by each key; its author reads the email
    as the student's even when staff uploaded for them.
  - Tools read by meaning and not citable by repository: S. Pai's run_offline.py (keys
    "submission_<id>", a folder of that name per key, ":history" entries with ":created_at" and
    ":results", ":created_at" loaded as a datetime) and a class's homework reading ":history"
    with yaml.safe_load.
Checked here: yaml.safe_load gives the symbol keys as strings (":submitters") and a time with an
offset as an aware datetime ("Z" as UTC).

Assumed, and handled either way: ":sid" may be missing or empty (the person's id is then the
email); a time may come quoted (a string, read the same way) or without an offset (read in the
assignment's zone, said on the row); ":score", ":status", ":results" and ":history" are not read
(the kit marks afresh; the folder is taken to hold the active submission, the one Gradescope
marks, its older ones being in ":history" only).

What is read how:
  - The export's folder is the given folder when submission_metadata.yml is at its top, or its
    one subfolder that holds it (the zip's own top folder, or a folder the instructor unpacked
    it into).
  - One Handin per metadata entry: key, the submission id ("123456" of "submission_123456");
    members, its submitters (Person id = SID, else email); name, theirs joined (a team's names
    all); submitted, ":created_at" with its offset; files, every plain file under its folder.
  - An entry with no folder is a student who submitted and whose files the export lacks: a
    Handin with no files, said on the row, so the student keeps their row and time. An entry
    naming a file rather than a folder (a PDF assignment's export) is a Handin of that one file.
  - Refused, each on a row with why: a folder or file the metadata does not name, anything
    beside the export's folder, an entry whose name is no folder's name or whose submitters name
    no one. A student named by two submissions keeps the later; the older says so.
  - The roster is every submitter: Gradescope's export lists only those who submitted, so a
    student with no submission is not in it and gets no row from this download.
  - submission_metadata.yml is the platform's sheet but read as hostile: a size limit, no link,
    yaml.safe_load only (no Ruby or Python object is built), and a file it cannot read refused in
    one line that says where.
"""

import os
import re
import stat
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import yaml

from exactmark.base.tree import Refused
from exactmark.base.visible import escaped
from exactmark.platforms.download import Download, Handin, Person, Refusal

NAME = "gradescope"
NOT_WRITTEN = ""  # Gradescope takes nothing back
METADATA = "submission_metadata.yml"
# A programming assignment's metadata carries every test's output of every submission, older
# ones too: tens of megabytes for a large class (300 students, 20 tests, 5 older submissions each:
# 17 MB). safe_load is pure Python (its C twin crashes on deep nesting) and took 0.7 s of CPU a
# megabyte here, so the limit also bounds the wait to under a minute.
METADATA_MOST = 64 << 20
SUBMISSION_KEY = re.compile(r"submission_(\d+)")
# A time as YAML (and Ruby) write it, for one that comes quoted.
TIME_TEXT = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt]|[ \t]+)(\d{1,2}):(\d{2}):(\d{2})"
                       r"(?:\.(\d+))?[ \t]*(?:(Z)|([-+])(\d{1,2})(?::?(\d{2}))?)?")

SUBMITTERS = ":submitters"
SUBMITTER_NAME = ":name"
SUBMITTER_SID = ":sid"
SUBMITTER_EMAIL = ":email"
CREATED_AT = ":created_at"

# The export refused as a whole (raised as Refused: one line for the person marking).
NO_METADATA = ("{folder} holds no submission_metadata.yml, at its top or one folder down: give "
               "the zip (or its folder) that Gradescope's Export Submissions gives")
SEVERAL_EXPORTS = "{folder} holds several Gradescope exports ({names}): give one"
METADATA_LINK = "{file} is a link: give the export itself"
METADATA_NOT_A_FILE = "{file} is not a plain file"
METADATA_UNREADABLE = "{file} cannot be read: {reason}"
METADATA_TOO_LARGE = "{file} is {size:,} bytes, more than {most:,}: is it Gradescope's?"
METADATA_MALFORMED = "{file} is not YAML, at line {line}, column {column}: {problem}"
METADATA_UNDECODABLE = "{file} is not YAML, at character {position}: {problem}"
METADATA_TOO_DEEP = "{file} is nested too deeply to be Gradescope's"
METADATA_NOT_MAPPING = "{file} is not a mapping from each submission to its submitters"
METADATA_EXPANDS = ("{file} repeats its parts (YAML aliases) into more than {most:,} values, one a "
                    "byte of the file: not Gradescope's")

# Why something in the export is no student's (Refusal.reason).
UNNAMED_FOLDER = "a folder that submission_metadata.yml does not name: no one's submission"
STRAY_FILE = ("a file that is no submission: the export holds submission folders and "
              "submission_metadata.yml")
BESIDE_EXPORT = "beside Gradescope's export folder {export}, not in it: no one's submission"
NOT_A_FOLDER_NAME = "its name in submission_metadata.yml is not a folder's name"
LINKED_ENTRY = "a link: the export holds plain folders and files"
NOT_AN_ENTRY = "its entry in submission_metadata.yml is not a mapping"
NO_SUBMITTERS = "submission_metadata.yml names no submitter for it"
NO_ONE = "submitter {number} in submission_metadata.yml has neither an SID nor an email"
ALL_SUBMITTED_LATER = "every submitter of it submitted again later ({later})"

# What a row says about how its hand-in was read (Handin.notes).
NO_FOLDER = "Gradescope's export has no folder for this submission: no files"
ONE_FILE = "Gradescope exported this submission as one file, not a folder"
LEFT_OUT = "{name} is a link or not a plain file: left out"
NO_TIME = "Gradescope's metadata gives no time for this submission"
NOT_A_TIME = "Gradescope's time {value} is not a time"
NO_OFFSET = "Gradescope's time {value} has no offset: read in {zone}"
SUBMITTED_LATER = "{person} submitted again later ({later}): marked there, not here"


def looks_like(folder: Path) -> bool:
    """Whether `folder` is a Gradescope export: submission_metadata.yml at its top or one down."""
    return bool(_exports(Path(folder)))


def export_folder(folder: Path) -> Path:
    """The folder holding submission_metadata.yml and the submission folders."""
    folder = Path(folder)
    found = _exports(folder)
    if not found:
        raise Refused(NO_METADATA.format(folder=escaped(str(folder))))
    if len(found) > 1:
        names = ", ".join(escaped(path.name) for path in found)
        raise Refused(SEVERAL_EXPORTS.format(folder=escaped(str(folder)), names=names))
    return found[0]


def read(folder: Path, context) -> Download:
    folder = Path(folder)
    export = export_folder(folder)
    refused = []
    if export != folder:
        beside = BESIDE_EXPORT.format(export=escaped(export.name))
        refused += [Refusal(escaped(name), beside) for name in sorted(os.listdir(folder))
                    if name != export.name]
    # An unquoted number as a key is its digits, as for an SID.
    metadata = {_text(key) or key: entry
                for key, entry in load_metadata(export / METADATA).items()}
    present = {name: export / name for name in os.listdir(export) if name != METADATA}
    handins = []
    for key, entry in metadata.items():
        handin = _handin(key, entry, present, metadata, context)
        if isinstance(handin, Refusal):
            refused.append(handin)
        else:
            handins.append(handin)
    named = {key for key in metadata if isinstance(key, str)}
    for name in sorted(set(present) - named):
        path = present[name]
        reason = UNNAMED_FOLDER if path.is_dir() and not path.is_symlink() else STRAY_FILE
        refused.append(Refusal(escaped(name), reason))
    handins, dropped = _one_each(handins)
    refused += dropped
    roster = list({person.id: person for handin in handins for person in handin.members}.values())
    return Download(platform=NAME, handins=handins, refused=refused, roster=roster)


def write_back(out, download, returned, context):
    """Gradescope needs none: a course re-marking offline enters the marks it changes by hand,
    reading them from grades.csv."""
    return None


def load_metadata(path: Path) -> dict:
    """submission_metadata.yml read as hostile: a plain file, within the limit, safe_load only."""
    shown = escaped(str(path))
    if path.is_symlink():
        raise Refused(METADATA_LINK.format(file=shown))
    try:
        # Not blocking: a FIFO in its place would wait forever for a writer.
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        raise Refused(METADATA_UNREADABLE.format(file=shown, reason=error.strerror)) from None
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(stream.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise Refused(METADATA_NOT_A_FILE.format(file=shown))
        size = status.st_size
        data = stream.read(METADATA_MOST + 1)
    if max(size, len(data)) > METADATA_MOST:
        raise Refused(METADATA_TOO_LARGE.format(file=shown, size=max(size, len(data)),
                                                most=METADATA_MOST))
    try:
        metadata = yaml.safe_load(data)
    except yaml.YAMLError as error:
        raise Refused(_malformed(error, shown)) from None
    except RecursionError:
        raise Refused(METADATA_TOO_DEEP.format(file=shown)) from None
    if not isinstance(metadata, dict):
        raise Refused(METADATA_NOT_MAPPING.format(file=shown))
    if not _within(metadata, len(data)):
        raise Refused(METADATA_EXPANDS.format(file=shown, most=len(data)))
    return metadata


def _within(document, most: int) -> bool:
    """Whether the document, each alias counted every time it is used, holds at most `most`
    values: safe_load shares an aliased part, but everything after reads it once per use
    (billion laughs). Without aliases a document has fewer values than bytes."""
    waiting, count = [document], 0
    while waiting:
        value = waiting.pop()
        count += 1
        if count > most:
            return False
        if isinstance(value, dict):
            waiting += [*value.keys(), *value.values()]
        elif isinstance(value, list):
            waiting += value
    return True


def _malformed(error, shown: str) -> str:
    """A YAML error in one line, with where: the line and column, or the character."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if mark is not None:
        problem = error.problem or error.context or ""
        return METADATA_MALFORMED.format(file=shown, line=mark.line + 1, column=mark.column + 1,
                                         problem=escaped(problem))
    return METADATA_UNDECODABLE.format(file=shown, position=getattr(error, "position", 0),
                                       problem=escaped(getattr(error, "reason", str(error))))


def _exports(folder: Path) -> list:
    if (folder / METADATA).exists() or (folder / METADATA).is_symlink():
        return [folder]
    try:
        below = sorted(entry for entry in folder.iterdir()
                       if entry.is_dir() and not entry.is_symlink())
    except OSError:
        return []
    return [entry for entry in below if (entry / METADATA).exists()]


def _handin(key, entry, present: dict, metadata: dict, context):
    """One metadata entry as a Handin, or the Refusal that says why it is no one's."""
    shown = escaped(str(key))
    if not _folder_name(key):
        return Refusal(shown, NOT_A_FOLDER_NAME)
    path = present.get(key)
    if path is not None and path.is_symlink():
        return Refusal(shown, LINKED_ENTRY)
    if not isinstance(entry, dict):
        return Refusal(shown, NOT_AN_ENTRY)
    submitters = entry.get(SUBMITTERS)
    if not isinstance(submitters, list) or not submitters:
        return Refusal(shown, NO_SUBMITTERS)
    members = {}
    for number, submitter in enumerate(submitters, 1):
        person = _person(submitter)
        if person is None:
            return Refusal(shown, NO_ONE.format(number=number))
        members.setdefault(person.id, person)
    members = list(members.values())
    notes = []
    if path is None:
        files = {}
        notes.append(NO_FOLDER)
    elif path.is_dir():
        files = _files(path, notes)
    else:
        files = {key: path}
        notes.append(ONE_FILE)
    submitted = _time(entry.get(CREATED_AT), context.zone, notes)
    match = SUBMISSION_KEY.fullmatch(key)
    # The submission id is the key unless another entry is named by the very digits.
    return Handin(key=match.group(1) if match and match.group(1) not in metadata else key,
                  name=", ".join(person.name or person.id for person in members),
                  members=members, files=files, submitted=submitted, notes=notes)


def _folder_name(key) -> bool:
    return (isinstance(key, str) and key not in ("", ".", "..") and not key.startswith(".")
            and key != METADATA and not any(char in key for char in "/\\\0"))


def _person(submitter):
    if not isinstance(submitter, dict):
        return None
    name = _text(submitter.get(SUBMITTER_NAME))
    sid = _text(submitter.get(SUBMITTER_SID))
    email = _text(submitter.get(SUBMITTER_EMAIL))
    if not (sid or email):
        return None
    return Person(id=sid or email, name=name, email=email)


def _text(value) -> str:
    """A YAML scalar as the text Gradescope meant: an unquoted number is its digits."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return ""


def _files(folder: Path, notes: list) -> dict:
    """Every plain file under a submission folder, by its name there; links left out, said."""
    files = {}
    for top, folders, names in os.walk(folder):
        here = Path(top)
        for name in sorted(folders):
            if (here / name).is_symlink():
                relative = (here / name).relative_to(folder).as_posix()
                notes.append(LEFT_OUT.format(name=escaped(relative)))
        for name in sorted(names):
            path = here / name
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink() or not path.is_file():
                notes.append(LEFT_OUT.format(name=escaped(relative)))
            else:
                files[relative] = path
    return dict(sorted(files.items()))


def _time(value, zone, notes: list):
    """":created_at" as an aware datetime with Gradescope's offset, or None (said why)."""
    if value is None:
        notes.append(NO_TIME)
        return None
    when = value if isinstance(value, datetime) else _time_text(value)
    if when is None:
        notes.append(NOT_A_TIME.format(value=escaped(str(value))))
        return None
    if when.tzinfo is None:
        notes.append(NO_OFFSET.format(value=escaped(str(value)), zone=zone))
        return when.replace(tzinfo=zone)
    return when


def _time_text(value):
    if isinstance(value, date) or not isinstance(value, str):
        return None
    match = TIME_TEXT.fullmatch(value.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, utc, sign, hours, minutes = match.groups()
    zone = None
    if utc:
        zone = timezone.utc
    elif sign:
        offset = timedelta(hours=int(hours), minutes=int(minutes or 0))
        if offset >= timedelta(hours=24):
            return None
        zone = timezone(-offset if sign == "-" else offset)
    try:
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second),
                        int((fraction or "0")[:6].ljust(6, "0")), tzinfo=zone)
    except ValueError:
        return None


def _one_each(handins: list) -> tuple:
    """A student in two submissions is marked in the later one only (Gradescope's export keeps
    one active submission per student; two mean a team and a solo one, or a metadata fault)."""
    latest = {}
    for handin in handins:
        for person in handin.members:
            best = latest.get(person.id)
            if best is None or _order(handin) > _order(best):
                latest[person.id] = handin
    kept, refused = [], []
    for handin in handins:
        later = [(person, latest[person.id]) for person in handin.members
                 if latest[person.id] is not handin]
        if not later:
            kept.append(handin)
        elif len(later) == len(handin.members):
            keys = ", ".join(sorted({other.key for _, other in later}))
            refused.append(Refusal(escaped(handin.key), ALL_SUBMITTED_LATER.format(later=keys)))
        else:
            for person, other in later:
                handin.notes.append(SUBMITTED_LATER.format(
                    person=escaped(person.name or person.id), later=escaped(other.key)))
            gone = {person.id for person, _ in later}
            handin.members = [person for person in handin.members if person.id not in gone]
            handin.name = ", ".join(person.name or person.id for person in handin.members)
            kept.append(handin)
    return kept, refused


def _order(handin) -> tuple:
    when = handin.submitted
    return (when is not None, when or datetime.min.replace(tzinfo=timezone.utc),
            len(handin.key), handin.key)
