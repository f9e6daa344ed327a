"""The class as the marker sees it: one `Student` per entry of the class folder, each
with the folder name its results go under and, when a times file is given, when they
submitted. Nothing here runs a student's code or reads their files."""

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from exactmark.classroom.unpack import entries, name_key, student_name
from exactmark.kit.late import Terms

PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}")
HASHED = re.compile(r"-[0-9a-f]{8}$")  # what `folder_name` adds: a plain name may not end so
# The letters NFKD leaves whole (no base letter and a mark): their usual ASCII spelling, so
# that a folder keeps a name readable (Łukasz Wójcik: Lukasz_Wojcik-...).
SPELLED = str.maketrans({"Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d", "Ð": "D",
                         "ð": "d", "ß": "ss", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe",
                         "Þ": "Th", "þ": "th", "Ħ": "H", "ħ": "h", "ı": "i", "Ŋ": "N", "ŋ": "n",
                         "ĸ": "k", "Ŧ": "T", "ŧ": "t"})
NO_TIME_GIVEN = ("the times file gives this student terms and no submission time: marked "
                 "without the late rule")


@dataclass
class Student:
    name: str  # as every page and sheet shows it: invisible characters drawn
    entry: Path
    kind: str  # folder, archive or refused
    reason: str = ""
    folder: str = ""  # their folder under OUT/students/ and OUT/instructor/
    submitted: datetime = None
    untimed: bool = False  # a times file was given, and it does not name them
    untimed_note: str = ""  # why, when not the times file's silence (sheet.NO_TIME)
    # A platform's hand-in (exactmark/classroom/platform_class.py): kind "handin".
    id: str = ""  # the platform's id: the student's, or a team's submission's
    members: list = field(default_factory=list)  # exactmark.platforms.download.Person
    files: dict = None  # name in the submission folder -> the file in the download
    notes: list = field(default_factory=list)  # what the row says of how it was read
    terms: Terms = None  # their own deadline or extension, and late days left; None: the common


def folder_name(name: str, hashed: bool = False) -> str:
    """A folder for a student's files: their name where it is plain, else (or when
    `hashed`) a plain form of it and a hash of the whole name. No two names get one
    folder: a plain name is kept only when it cannot be mistaken for a hashed one."""
    if not hashed and PLAIN.fullmatch(name) and not HASHED.search(name):
        return name
    plain = re.sub(r"[^A-Za-z0-9._-]+", "_", ascii_spelling(name))[:40].strip("._") or "student"
    return f"{plain}-{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"


def ascii_spelling(name: str) -> str:
    """`name` with each accented or special Latin letter as its ASCII letters (Zoë: Zoe);
    what has no such spelling stays, for folder_name to replace."""
    parts = unicodedata.normalize("NFKD", name.translate(SPELLED))
    return "".join(char for char in parts if not unicodedata.combining(char))


def class_of(folder: Path, times: dict = None) -> list:
    """The students of `folder`, in name order. `times` (from `exactmark.classroom.times`) maps a
    name key to its row (Timed); None when no times file was given."""
    students = [Student(name, path, kind, reason) for name, path, kind, reason in entries(folder)]
    _give_folders(students)
    for student in students:
        if times is None:
            continue
        found = times.get(name_key(student_name(student.entry)))
        student.submitted = found.submitted if found else None
        student.terms = found.terms if found else None
        student.untimed = student.submitted is None and student.kind != "refused"
        if found is not None and student.untimed:
            student.untimed_note = NO_TIME_GIVEN
    return students


def unknown_in_times(students: list, times: dict) -> list:
    """The names a times file gives that no student of the class has."""
    keys = {name_key(student_name(student.entry)) for student in students}
    return sorted(timed.student for key, timed in times.items() if key not in keys)


def _give_folders(students: list) -> None:
    """Each student's folder: from their name, and from their entry's whole name where
    two would otherwise share one (`ann` and `ann.zip`; `Ann` and `ann` on a file system
    that ignores case)."""
    by_folder = {}
    for student in students:
        student.folder = folder_name(student_name(student.entry))
        by_folder.setdefault(student.folder.casefold(), []).append(student)
    for sharing in by_folder.values():
        if len(sharing) > 1:
            for student in sharing:
                student.folder = folder_name(student.entry.name, hashed=True)
