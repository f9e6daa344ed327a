"""A Moodle "Download all submissions" and its grading worksheet, built as Moodle builds
them, for tests: never by the code under test.

The naming is Moodle's, from github.com/moodle/moodle:
- mod/assign/classes/downloader.php (commit da5455238d1a24a0246b11f4b682b73664993c0b):
  get_student_prefix: clean_filename(fullname with "_" made " " + "_" + participant id),
  "Participant" for the name under blind marking; a team's prefix is
  clean_filename(group name with "_" made " " + "_" + group id), or "Default group".
  load_submissionplugin_filelist: in folders, prefix + "_assignsubmission_file" is a folder
  holding the file's own path; flat, prefix + "_assignsubmission_file_" + the file's name.
- lib/moodlelib.php clean_param PARAM_FILE: drops control characters and & < > " ` | ' : \\ /.
- mod/assign/gradingtable.php (commit 1494620bfbb33538251bc1a222027f665b7da2ea): the
  worksheet's columns in order; userdate's default format (langconfig strftimedaydatetime,
  "%A, %d %B %Y, %I:%M %p", the leading zeros of the day and hour dropped).
- dataformat/csv/classes/writer.php (commit adab385387d6642cb74b21dbfe8eff35bde68374):
  Spout's CSV writer: a UTF-8 byte-order mark, then PHP's fputcsv (a cell quoted when it
  holds a comma, quote, backslash, space, tab or line end; "\\n" after each row).
"""

import re
import zipfile
from pathlib import Path

NOT_IN_FILE_NAMES = re.compile(r"[\x00-\x1f\x7f&<>\"`|':\\/]")
BARE_AMPERSAND = re.compile(r"&(?![a-zA-Z0-9#]{1,8};)")
FPUTCSV_QUOTES = re.compile(r'[,"\\ \t\r\n]')
BOM = b"\xef\xbb\xbf"

# The worksheet's columns for an assignment with file submissions and feedback comments.
INDIVIDUAL = ("Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
              "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
              "Feedback comments")
TEAM = INDIVIDUAL[:4] + ("Group",) + INDIVIDUAL[4:]
BLIND = ("Identifier",) + INDIVIDUAL[3:]  # a marker who may not see the names


def clean_filename(text: str) -> str:
    """Moodle's clean_filename (clean_param PARAM_FILE)."""
    return NOT_IN_FILE_NAMES.sub("", text)


def student_prefix(full_name: str, participant: int, blind: bool = False) -> str:
    """downloader.php get_student_prefix, an individual submission."""
    name = "Participant" if blind else full_name
    return clean_filename(name.replace("_", " ") + "_" + str(participant))


def team_prefix(group: str = None, group_id: int = None) -> str:
    """downloader.php get_student_prefix, a team submission: no group is "Default group".
    The group's name goes through format_string first, which makes a bare "&" "&amp;"
    (replace_ampersands_not_followed_by_entity, lib/weblib.php)."""
    if group is None:
        return clean_filename("Default group")
    group = BARE_AMPERSAND.sub("&amp;", group)
    return clean_filename(group.replace("_", " ") + "_" + str(group_id))


def entries(prefix: str, files: dict, folders: bool = True, plugin: str = "file",
            before_4_1: bool = False) -> dict:
    """The download's entries for one submission: {path in the zip: bytes}. `files` maps
    the student's own paths ("a.py", "src/b.c") to their bytes; flat, a file keeps only its
    own name (clean_param PARAM_PATH cleans each part of a folder's path). `before_4_1`: a
    folder as Moodle 3.1 to 4.0 named it, one "_" more (mod/assign/locallib.php,
    download_submissions: clean_filename($prefix . '_' . $subtype . '_' . $type . '_'))."""
    if folders:
        folder = clean_filename(f"{prefix}_assignsubmission_{plugin}" + "_" * before_4_1)
        return {"/".join([folder, *map(clean_filename, name.split("/"))]): data
                for name, data in files.items()}
    return {clean_filename(f"{prefix}_assignsubmission_{plugin}_{Path(name).name}"): data
            for name, data in files.items()}


def write_folder(root: Path, download: dict) -> Path:
    """The download unpacked into `root`, as the class marker would leave it."""
    for name, data in download.items():
        path = Path(root, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return Path(root)


def write_zip(path: Path, download: dict) -> Path:
    """The download as Moodle's zip (UTF-8 names)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in download.items():
            archive.writestr(name, data)
    return Path(path)


def userdate(when) -> str:
    """userdate(when) in English: "Thursday, 11 March 2027, 2:30 PM" (`when` already in the
    downloading user's zone)."""
    hour = when.hour % 12 or 12
    return (f"{when:%A}, {when.day} {when:%B} {when.year}, {hour}:{when:%M} "
            f"{'PM' if when.hour >= 12 else 'AM'}")


def fputcsv(cells) -> bytes:
    """One row as PHP's fputcsv writes it."""
    def quoted(cell: str) -> str:
        return f'"{cell.replace(chr(34), chr(34) * 2)}"' if FPUTCSV_QUOTES.search(cell) else cell
    return (",".join(quoted(str(cell)) for cell in cells) + "\n").encode("utf-8")


def worksheet(rows: list, columns=INDIVIDUAL, bom: bool = True) -> bytes:
    """The grading worksheet: `rows` are dicts by column ("Identifier": "Participant 12345",
    ...); a column a row leaves out is empty, or "-" for a time."""
    body = fputcsv(columns)
    for row in rows:
        body += fputcsv(row.get(column, "-" if column.startswith("Last modified") else "")
                        for column in columns)
    return (BOM if bom else b"") + body
