"""A Canvas "Download Submissions" built from Canvas's own naming, for the tests of the
reader and the class's end-to-end tests: never made by the code under test.

Canvas names each file in lib/content_zipper.rb (instructure/canvas-lms, commit
05e9653c12ef7afc65815ca84e5da7aa2e4c3bd3):

    get_filename              [users_name, "LATE" if late, id].compact.join("_"), then
                              sanitize_file_name: every character that is not [[:word:]]
                              (a letter, mark, decimal digit or connector punctuation)
                              removed; id is the user id, or "anon_<anonymous_id>" when the
                              assignment grades anonymously (and then there is no users_name)
    sanitize_user_name        the sortable name, /_(\\d+)_/ -> \\1, downcased
    add_upload_submission     "#{prefix}_#{attachment.id}_#{sanitize_attachment_filename(
                              display_name)}", where runs of [\\x00/\\\\:*?"<>|] become "_"
    add_text_or_url           "#{prefix}_text.html" (online_text_entry), "#{prefix}_link.html"
                              (online_url)
    add_attachment_to_zip     Attachment.make_unique_filename against the names already in
                              the zip

A file a student uploaded again under the same name carries Canvas's "-1", "-2" suffix in
its display name already (Attachment.make_unique_filename, app/models/attachment.rb, commit
145bcceff7cc99613a4e4e15aa368ec0790df8b6: "#{basename}-#{addition}#{extname}"): a test
writes that display name as Canvas would have stored it.
"""

import re
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

UPLOAD, TEXT, LINK = "online_upload", "online_text_entry", "online_url"


@dataclass
class Submitter:
    """One submission as Canvas holds it: files are (attachment id, display name, bytes)."""
    sortable_name: str
    user_id: int
    late: bool = False
    files: list = field(default_factory=list)
    kind: str = UPLOAD
    anonymous_id: str = None  # set: the assignment grades anonymously


def word_characters(text: str) -> str:
    """sanitize_file_name: Ruby's [[:word:]] is Letter, Mark, Decimal_Number and
    Connector_Punctuation."""
    return "".join(c for c in text
                   if unicodedata.category(c)[0] in "LM" or unicodedata.category(c) in ("Nd", "Pc"))


def prefix(submitter: Submitter) -> str:
    if submitter.anonymous_id is not None:
        parts = ["LATE" if submitter.late else None, f"anon_{submitter.anonymous_id}"]
    else:
        users_name = re.sub(r"_(\d+)_", r"\1", submitter.sortable_name).lower()
        parts = [users_name, "LATE" if submitter.late else None, str(submitter.user_id)]
    return word_characters("_".join(part for part in parts if part is not None))


def attachment_name(display_name: str) -> str:
    return re.sub(r'[\x00/\\:*?"<>|]+', "_", display_name)


def unique(name: str, taken: set) -> str:
    """Attachment.make_unique_filename, as add_attachment_to_zip calls it."""
    if name not in taken:
        return name
    path = PurePosixPath(name)
    addition = 1
    while f"{path.stem}-{addition}{path.suffix}" in taken:
        addition += 1
    return f"{path.stem}-{addition}{path.suffix}"


def entries(submitters: list) -> list:
    """Every (name in the zip, bytes) Canvas writes for these submissions, in its order."""
    taken, written = set(), []
    for submitter in submitters:
        called = prefix(submitter)
        if submitter.kind == UPLOAD:
            names = [(f"{called}_{attachment_id}_{attachment_name(display)}", data)
                     for attachment_id, display, data in submitter.files]
        else:
            page = "text" if submitter.kind == TEXT else "link"
            names = [(f"{called}_{page}.html", b"<html><body>a text entry</body></html>\n")]
        for name, data in names:
            name = unique(name, taken)
            taken.add(name)
            written.append((name, data))
    return written


def write_folder(folder: Path, submitters: list, decomposed: bool = False) -> Path:
    """The download as the class marker leaves it unpacked; decomposed: the names as a Mac
    writes them (NFD)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in entries(submitters):
        (folder / (unicodedata.normalize("NFD", name) if decomposed else name)).write_bytes(data)
    return folder


def write_zip(path: Path, submitters: list) -> Path:
    """The zip itself, its names UTF-8 (rubyzip writes them so)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries(submitters):
            archive.writestr(name, data)
    return path
