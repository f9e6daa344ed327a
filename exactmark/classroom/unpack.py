"""Each entry of a class folder made into one student's submission folder.

A learning platform's bulk download gives a folder or an archive per student.
An archive is the student's own work, so it is read as hostile, by
exactmark.base.archives (its checks, its limits, a refusal that leaves nothing behind);
here, which entries of a class folder are students, and what each is called.
"""

import os
from pathlib import Path
from typing import NamedTuple

from exactmark.base.archives import MEMBER_ABSOLUTE, MEMBER_AGAIN, MEMBER_CLIMBS, MEMBER_LINK, \
    SHOWN_MOST, STUDENT_ARCHIVES, TOO_LARGE, TOO_MANY_MEMBERS, _Writer, _archive_suffix, \
    _plain_text, _shown, unpack
from exactmark.base.instructor_csv import name_key
from exactmark.base.visible import escaped
from exactmark.base.tree import open_folder

# What the class's tools take from here: the entries, and the unpacker with the refusals it
# says of a student's archive (exactmark.base.archives').
__all__ = ["ARCHIVE_KIND", "FOLDER_KIND", "REFUSED_KIND", "STUDENT_ARCHIVES", "Entry", "entries",
           "name_key", "student_name", "unpack", "MEMBER_ABSOLUTE", "MEMBER_AGAIN",
           "MEMBER_CLIMBS", "MEMBER_LINK", "TOO_LARGE", "TOO_MANY_MEMBERS", "_Writer", "_shown"]

FOLDER_KIND = "folder"
ARCHIVE_KIND = "archive"
REFUSED_KIND = "refused"

# Why an entry of the class folder is no student's submission.
ENTRY_NAME_NOT_TEXT = "the name {name} is not plain text: rename it"
LINKED_ENTRY = "{name} is a link: give the folder or the archive itself"
NOT_A_SUBMISSION = "{name} is neither a folder nor a .zip, .tar.gz or .tgz archive"
SAME_STUDENT = "{name} and {others} are for one student, {student}: keep one"
ONE_NAME = ("{name} and {others} are one name once accents, letter case, invisible characters "
            "and spaces are set aside: rename all but one")
SHOWN_ALIKE = "{name} and {others} would be shown alike: rename all but one"
HIDDEN_ENTRY = ("{name} is hidden (its name starts with '.'): not marked; rename it if it is "
                "a student's submission")


class Entry(NamedTuple):
    """One student of a class folder: (name, path, kind, reason); kind is "folder",
    "archive" or "refused", and only a refused entry has a reason (for the grade sheet)."""
    name: str
    path: Path
    kind: str
    reason: str = ""


def student_name(entry: Path) -> str:
    """The student an entry is for: its name without the archive suffix."""
    name = entry.name
    for suffix in STUDENT_ARCHIVES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[:-len(suffix)]
    return name


def entries(folder: Path) -> list:
    """The students of a class folder in name order, each an `Entry`: a folder, an
    archive, or one refused with a reason. Every entry gets one, hidden ones included,
    so that nothing of the folder is passed over without a word. Names are shown as
    the reports show output (`al⟨U+200B⟩ice`), and two entries that are one name
    (`name_key`) are both refused, so that neither is marked as the other."""
    fd = open_folder(folder)
    try:
        with os.scandir(fd) as listing:
            found = [(entry.name, *_classify(entry)) for entry in listing]
    finally:
        os.close(fd)
    by_key = {}
    for name, _, _ in found:
        by_key.setdefault(name_key(student_name(Path(name))), []).append(name)
    listed = []
    for name, kind, reason in found:
        student = student_name(Path(name))
        others = sorted(other for other in by_key[name_key(student)] if other != name)
        if others:
            same = all(student_name(Path(other)) == student for other in others)
            kind, reason = REFUSED_KIND, (SAME_STUDENT if same else ONE_NAME).format(
                name=_shown(name), others=", ".join(_shown(other) for other in others),
                student=_shown(student))
        listed.append(Entry(escaped(name if others else student, most=SHOWN_MOST),
                            folder / name, kind, reason))
    return sorted(_shown_apart(listed), key=lambda entry: (entry.name, entry.path.name))


def _shown_apart(listed: list) -> list:
    """Entries whose names would be shown alike (a name that spells out `⟨U+200B⟩`
    beside one that holds the character) are refused, both of them, and shown by the
    Python literal of their names, which differ."""
    shown = {}
    for entry in listed:
        shown.setdefault(entry.name, []).append(entry)
    return [entry._replace(
                name=_shown(entry.path.name), kind=REFUSED_KIND, reason=SHOWN_ALIKE.format(
                    name=_shown(entry.path.name), others=", ".join(
                        _shown(other.path.name) for other in alike if other is not entry)))
            if len(alike) > 1 else entry
            for alike in shown.values() for entry in alike]


def _classify(entry: os.DirEntry) -> tuple:
    """What an entry of the class folder is, and why it is refused if it is,
    never following a link to tell."""
    name = entry.name
    if name.startswith("."):
        return REFUSED_KIND, HIDDEN_ENTRY.format(name=_shown(name))
    if not _plain_text(name):
        return REFUSED_KIND, ENTRY_NAME_NOT_TEXT.format(name=_shown(name))
    if entry.is_symlink():
        return REFUSED_KIND, LINKED_ENTRY.format(name=_shown(name))
    if entry.is_dir(follow_symlinks=False):
        return FOLDER_KIND, ""
    if entry.is_file(follow_symlinks=False) and _archive_suffix(name):
        return ARCHIVE_KIND, ""
    return REFUSED_KIND, NOT_A_SUBMISSION.format(name=_shown(name))
