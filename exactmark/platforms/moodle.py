"""Moodle: an assignment's "Download all submissions", read as it comes, with its grading
worksheet ("Download grading worksheet"); the marks written back into that worksheet for
"Upload grading worksheet", and the students' pages into a zip for "Upload multiple
feedback files in a zip".

How Moodle names what it gives, from its source (github.com/moodle/moodle):

- mod/assign/classes/downloader.php (commit da5455238d1a24a0246b11f4b682b73664993c0b),
  get_student_prefix and load_submissionplugin_filelist: a student's prefix is
  clean_filename(fullname with "_" made " ", "_", the participant id
  (get_uniqueid_for_user: the assignment's own number for the student, the one the
  worksheet's "Identifier" carries)); blind marking writes "Participant" for the name. A
  team submission's prefix is the group's name ("_" made " "), "_" and the group's id, or
  "Default group" with no id. Then "_assignsubmission_" and the plugin ("file",
  "onlinetext"): with "Download submissions in folders" on (the default) a folder of that
  name holds the files (Moodle 3.1 to 4.0 ended the folder's name with one more "_": its
  download_submissions in mod/assign/locallib.php, clean_filename($prefix . '_' . $subtype
  . '_' . $type . '_')) and the student's own subfolders; off, each file lies flat, named
  prefix + "_assignsubmission_file_" + its own name. Online text comes as onlinetext.html:
  never a program, so it is left out and said on the hand-in's notes.
  clean_filename (clean_param PARAM_FILE, lib/moodlelib.php) drops control characters and
  & < > " ` | ' : \\ /, so "O'Brien" comes as "OBrien": the worksheet has the name as written.
- mod/assign/gradingtable.php (commit 1494620bfbb33538251bc1a222027f665b7da2ea), the table
  downloaded as the worksheet: "Identifier" ("Participant " + the same id), "Full name"
  (absent under blind marking), the identity fields ("Email address"), "Status", "Group"
  (team submissions), "Grade", "Maximum Grade", "Grade can be changed", "Last modified
  (submission)" and "Last modified (grade)" (userdate: "Thursday, 11 March 2027, 2:30 PM" in
  English, in the downloading user's zone; "-" for none), then "Feedback comments".
  dataformat/csv/classes/writer.php (commit adab385387d6642cb74b21dbfe8eff35bde68374) writes
  it through Spout's CSV writer: a UTF-8 byte-order mark, PHP's fputcsv quoting, "\\n".
- mod/assign/feedback/offline/importgradeslib.php (commit
  9762977c028cbd1884ed311a94c49efbae87591b) and locallib.php (commit
  04975560d10b517e76e53b7936ca13ed7f3218be), the upload: it finds "Identifier", "Grade" and
  "Last modified (grade)" by header, matches a row by the number after "Participant ", and
  reads the feedback plugins' columns ("Feedback comments"). An empty grade, or one equal to
  Moodle's, is skipped; a grade whose "Last modified (grade)" is older than Moodle's is
  skipped unless "Allow updating records that have been modified more recently in Moodle than
  in the spreadsheet" is ticked; a grade Moodle says cannot be changed is skipped. So every
  cell the kit does not fill is written back byte for byte as Moodle gave it.

- mod/assign/feedback/file/importziplib.php, "Upload multiple feedback files in a zip" (the
  assignfeedback_file plugin), read at commit 0203d8f26027201de1d7d1ec8d8aa3cdcc4f5d5d and at
  commit 3769c65a97032618f944597d0d827ea2145c7cdc: is_valid_filename_for_import skips a folder,
  and a file whose own name starts with "." or "~"; it splits each part of the file's path at
  "_" (five parts at most) and takes the first part whose second piece is the number of a
  participant it lists (list_participants, in the current group) and whose third and fourth
  name a plugin ("assignsubmission", "file"); the rest of the path is the feedback file's
  name, kept with its folders. So "Full Name_12345_assignsubmission_file_/feedback.html" is
  participant 12345's feedback.html: the name Moodle 3.1 to 4.0 gave a folder, which the
  importer still reads ("resp. fullname_userid_plugintype_pluginname_ (as created by earlier
  versions)"), and an importer that wants five pieces reads too. import_zip_files gives that
  file to the participant as a feedback file (replacing one of the same name). In a team
  submission assignment, 3769c65's importer (get_participant_mapping) reads the number as
  the group's id, as the download wrote it, and gives the file to every member of the group;
  0203d8f's reads it as a participant's, and no group's folder can be safely named for it:
  the kit writes a team's page in the group's folder, as Moodle's download named it (never
  for "Default group", which has no id and whose students the importer skips).

The headers are Moodle's English ones: a worksheet downloaded in another language is refused
with one line naming the column it lacks.
"""

import codecs
import os
import re
import shutil
import stat
import tempfile
import unicodedata
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from exactmark.base.spreadsheet import replaced, spreadsheet_text
from exactmark.base.visible import escaped
from exactmark.platforms.download import Download, Handin, Person, Refusal

NAME = "moodle"
WRITTEN = "moodle-worksheet.csv"
FEEDBACK_ZIP = "moodle-feedback.zip"
FEEDBACK_ZIP_SAID = "each student's page for Moodle's 'Upload multiple feedback files in a zip'"
# A zip member's folder as is_valid_filename_for_import matches it (the module's docstring).
FEEDBACK_FOLDER = "{name}_{id}_assignsubmission_file_"
# Of a name in a zip folder's: Moodle keeps a file's path in 255 characters (files.filepath).
FOLDER_NAME_MOST = 100
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # every member's: the same pages make the same zip
ZIP_MODE = 0o600 << 16  # a Unix mode on every member: the instructor's, as OUT is

# The worksheet's columns, as Moodle's English language pack heads them.
IDENTIFIER = "Identifier"
FULL_NAME = "Full name"
EMAIL = "Email address"
GROUP = "Group"
GRADE = "Grade"
MAXIMUM = "Maximum Grade"  # absent when the assignment is graded on a scale ("Scale")
CAN_CHANGE = "Grade can be changed"
SUBMITTED = "Last modified (submission)"
COMMENTS = "Feedback comments"
NO = "No"  # "Grade can be changed" when Moodle will not take a grade
# A worksheet's row is 100 to 200 bytes: 64 MiB is 300,000 students and more; a larger file
# is not a worksheet (and is read in a minute of CPU a gigabyte).
WORKSHEET_MOST = 64 << 20
# Columns only Moodle writes (the upload reads Identifier and Last modified (grade)): given
# back byte for byte. Every other cell may hold what a student wrote (a name, an email, a
# profile field) and is given back as text under the formula rule.
MOODLE_WRITES = frozenset({IDENTIFIER, "Status", GRADE, MAXIMUM, CAN_CHANGE, SUBMITTED,
                           "Last modified (grade)"})
NO_TIME = "-"  # userdate's place holder where there is no time
FILE_PLUGIN = "file"  # assignsubmission_file: the files a student uploaded

# prefix ("_" id)? "_assignsubmission_" plugin ("_" file's own name)?: the prefix holds no
# "_" of its own (Moodle made every one a space), so the first "_" ends the name.
ENTRY = re.compile(r"(?P<name>[^_]*)(?:_(?P<id>\d+))?_assignsubmission_(?P<plugin>[a-z0-9]+)"
                   r"(?:_(?P<file>.*))?", re.DOTALL)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
USERDATE = re.compile(rf"(?:{'|'.join(DAYS)}), (\d{{1,2}}) ({'|'.join(MONTHS)}) (\d{{4}}), "
                      r"(\d{1,2}):(\d{2}) (AM|PM)")
# What PHP's fputcsv quotes a cell for: the kit's cells are quoted the same way (and for the
# worksheet's own separator, when a spreadsheet saved it with another).
NEEDS_QUOTES = re.compile(r'[,"\r\n\t \\]')
# What Moodle's upload form lets the worksheet be separated by (assignfeedback/offline/
# uploadgradesform.php: comma, semicolon, tab, colon): Moodle writes ",", Excel in many
# languages saves ";". The one that makes Identifier a column of the first line is the one.
SEPARATORS = (",", ";", "\t", ":")
# format_string's replace_ampersands_not_followed_by_entity (lib/weblib.php), on a group's name.
BARE_AMPERSAND = re.compile(r"&(?![a-zA-Z0-9#]{1,8};)")
# clean_param(PARAM_FILE): what Moodle drops from a name before it names a file.
NOT_IN_FILE_NAMES = re.compile(r"[\x00-\x1f\x7f&<>\"`|':\\/]")

NOT_MOODLE = "not named as Moodle names a submission (name_id_assignsubmission_plugin)"
FOLDER_AS_FILE = "a folder where Moodle puts a file (name_id_assignsubmission_plugin_file)"
FILE_AS_FOLDER = "a file named as Moodle names a student's folder, with no file name after it"
TWICE = "the same file as {first}: Moodle gives each file once"
NOT_IN_WORKSHEET = "participant {id} is not in the grading worksheet (one from another assignment?)"
NO_SUCH_GROUP = "the grading worksheet names no one in the group {group}"
TWO_GROUPS = ("two of Moodle's groups are named {group} ({ids}): the worksheet cannot tell "
              "their members apart")
DEFAULT_NEEDS_WORKSHEET = ("Moodle's team submission of those in no group: the grading "
                           "worksheet (--worksheet) says who they are")
NOT_A_PROGRAM = "Moodle's {plugin} submission ({names}) is not a program: left out"
NO_SUBMISSION_TIME = "Moodle's grading worksheet gives no submission time"
UNREADABLE_TIME = ("Moodle's grading worksheet gives the submission time as {text}, not a time "
                   "as Moodle writes one in English (Thursday, 11 March 2027, 2:30 PM)")
LOCKED = "Moodle says this grade cannot be changed: its upload will skip it"
NOT_POINTS = ("{path}: the assignment is graded on a scale in Moodle (no Maximum Grade column): "
              "the kit's marks are points; grade it out of points in Moodle and download the "
              "worksheet again")
OTHER_MAXIMUM = ("{path}: Moodle's maximum grade is {moodle}, the kit marks out of {kit}: Moodle's "
                 "upload would skip every mark above its maximum and take the rest as they are; "
                 "make them the same and download the worksheet again")
NO_WORKSHEET = ("moodle-worksheet.csv needs Moodle's grading worksheet, its class list too (no "
                "row for who handed nothing in without it): download it (Download grading "
                "worksheet) and give it with --worksheet")
NOT_WRITTEN = NO_WORKSHEET  # write_back writes nothing without the worksheet

BAD_SHEET = "{path}: {problem}"
BAD_ROW = "{path}, line {line}: {problem}"
NOT_TEXT = "not UTF-8 text, as Moodle writes its worksheet"
UNREADABLE = "cannot be read: {problem}"
NOT_A_FILE = "not a plain file: give the CSV Moodle's Download grading worksheet gives"
TOO_LARGE = "{size:,} bytes, more than {most:,}: not Moodle's grading worksheet"
EMPTY = "empty: not Moodle's grading worksheet"
NO_COLUMN = "no {column} column: not Moodle's grading worksheet (in English)"
CELLS = "{count} cells where the header has {header}"
UNCLOSED = "a quoted cell that never ends"
AFTER_QUOTE = "text after a quoted cell's closing quote"
NO_NUMBER = "the {column} cell {cell} has no participant number"
SAME_ID = "participant {id} again (first on line {first})"


@dataclass
class Record:
    """One line of the worksheet as Moodle wrote it: its cells' values, their text exactly as
    written (quotes and all), and the line ending, so that a cell the kit leaves alone goes
    back byte for byte."""
    values: list
    raw: list
    end: str
    line: int

    def blank(self) -> bool:
        return self.values == [""]


@dataclass
class Worksheet:
    path: Path
    bom: bool
    records: list  # Record: the header first
    columns: dict  # header -> index
    rows: dict = field(default_factory=dict)  # participant id -> Record
    separator: str = ","

    def cell(self, record: Record, column: str) -> str:
        index = self.columns.get(column)
        return "" if index is None else record.values[index]


def looks_like(folder: Path) -> bool:
    """Whether any entry at the top of `folder` is named as Moodle names a submission
    (name_id_assignsubmission_plugin, or "Default group_assignsubmission_plugin"): no other
    platform writes "_assignsubmission_"."""
    return any(ENTRY.fullmatch(entry.name) for entry in Path(folder).iterdir())


def parse_time(text: str, zone):
    """A time as Moodle's userdate writes it in English, in `zone` (the zone of whoever
    downloaded the worksheet); None for Moodle's "-". Raises ValueError for anything else."""
    if text.strip() in ("", NO_TIME):
        return None
    match = USERDATE.fullmatch(text.strip())
    if not match:
        raise ValueError(text)
    day, month, year, hour, minute, half = match.groups()
    hour = int(hour) % 12 + (12 if half == "PM" else 0)
    return datetime(int(year), MONTHS.index(month) + 1, int(day), hour, int(minute), tzinfo=zone)


def read_worksheet(path: Path) -> Worksheet:
    """Moodle's grading worksheet, every record kept as written. Raises ValueError with one
    line saying where and why: a mark must never go back on half a worksheet."""
    path = Path(path)
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise ValueError(BAD_SHEET.format(path=path, problem=NOT_A_FILE))
        with open(path, "rb") as file:
            data = file.read(WORKSHEET_MOST + 1)
            size = max(len(data), os.fstat(file.fileno()).st_size)
        if size > WORKSHEET_MOST:
            raise ValueError(BAD_SHEET.format(path=path, problem=TOO_LARGE.format(
                size=size, most=WORKSHEET_MOST)))
    except OSError as problem:
        raise ValueError(BAD_SHEET.format(path=path, problem=UNREADABLE.format(
            problem=problem.strerror or problem))) from None
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        text = data[len(codecs.BOM_UTF8) if bom else 0:].decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(BAD_SHEET.format(path=path, problem=NOT_TEXT)) from None
    header = text.partition("\n")[0]
    separator = next((separator for separator in SEPARATORS if IDENTIFIER in (
        cell.strip().strip('"') for cell in header.split(separator))), ",")
    records = _records(text, path, separator)
    if not records or records[0].blank():
        raise ValueError(BAD_SHEET.format(path=path, problem=EMPTY))
    columns = {}
    for index, header in enumerate(records[0].values):
        columns.setdefault(header, index)
    if IDENTIFIER not in columns:
        raise ValueError(BAD_SHEET.format(path=path, problem=NO_COLUMN.format(column=IDENTIFIER)))
    sheet = Worksheet(path, bom, records, columns, separator=separator)
    width = len(records[0].values)
    for record in records[1:]:
        if record.blank():
            continue
        if len(record.values) != width:
            raise ValueError(BAD_ROW.format(path=path, line=record.line, problem=CELLS.format(
                count=len(record.values), header=width)))
        identifier = sheet.cell(record, IDENTIFIER)
        number = participant(identifier)
        if not number:
            raise ValueError(BAD_ROW.format(path=path, line=record.line, problem=NO_NUMBER.format(
                column=IDENTIFIER, cell=escaped(identifier))))
        if number in sheet.rows:
            raise ValueError(BAD_ROW.format(path=path, line=record.line, problem=SAME_ID.format(
                id=number, first=sheet.rows[number].line)))
        sheet.rows[number] = record
    return sheet


def _records(text: str, path: Path, separator: str = ",") -> list:
    """The CSV's records, each cell's value and its text as written (`separator` between
    cells; a cell quoted with '"', '""' inside for one; a record ends at \\n, \\r\\n or \\r)."""
    records, at, line = [], 0, 1
    while at < len(text):
        values, raw, first = [], [], line
        while True:
            if text.startswith('"', at):
                end, line = _quoted_end(text, at, line, path, first, separator)
                values.append(text[at + 1:end - 1].replace('""', '"'))
            else:
                end = at
                while end < len(text) and text[end] not in (separator, "\r", "\n"):
                    end += 1
                values.append(text[at:end])
            raw.append(text[at:end])
            at = end
            if text.startswith(separator, at):
                at += 1
                continue
            ending = "\r\n" if text.startswith("\r\n", at) else text[at:at + 1]
            at += len(ending)
            line += 1
            records.append(Record(values, raw, ending, first))
            break
    return records


def _quoted_end(text: str, at: int, line: int, path: Path, first: int,
                separator: str) -> tuple:
    """Where the quoted cell starting at `at` ends (just past its closing quote), and the
    line reached."""
    scan = at + 1
    while True:
        close = text.find('"', scan)
        if close < 0:
            raise ValueError(BAD_ROW.format(path=path, line=first, problem=UNCLOSED))
        if text.startswith('""', close):
            scan = close + 2
            continue
        end = close + 1
        if end < len(text) and text[end] not in (separator, "\r", "\n"):
            raise ValueError(BAD_ROW.format(path=path, line=first, problem=AFTER_QUOTE))
        cell = text[at:end]
        return end, line + cell.count("\n") + cell.replace("\r\n", "\n").count("\r")


@dataclass
class _Entry:
    """What the download gives under one participant's (or group's) id, or under "Default
    group": one submission, in folders, flat, or both."""
    name: str  # the name part of the prefix, as Moodle cleaned it
    id: str  # the participant's (or group's) id; "" for "Default group"
    files: dict = field(default_factory=dict)
    other: dict = field(default_factory=dict)  # plugin -> its files' names
    shown: list = field(default_factory=list)  # the download's entries, for a refusal


def read(folder: Path, context) -> Download:
    """One hand-in per participant (or team) in Moodle's download, folders or flat files;
    the roster, names, emails and submission times from the worksheet when it is given."""
    folder = Path(folder)
    sheet = read_worksheet(context.worksheet) if context.worksheet else None
    if sheet is not None and context.marks is not None:
        _check_maximum(sheet, {number: context.marks for number in sheet.rows})
    team = sheet is not None and GROUP in sheet.columns
    entries, refused = _entries(folder, sheet)
    roster = {} if sheet is None else {
        number: _person(sheet, number, record) for number, record in sheet.rows.items()}
    handins = []
    for entry in entries.values():
        if team or not entry.id:
            handin = _team_handin(entry, entries, sheet, roster, context)
        elif sheet is None:
            handin = Handin(key=entry.id, name=entry.name,
                            members=[Person(id=entry.id, name=entry.name)], files=entry.files)
        elif entry.id in roster:
            handin = _handin(entry, [entry.id], roster[entry.id].name, sheet, roster, context)
        else:
            handin = Refusal(", ".join(entry.shown), NOT_IN_WORKSHEET.format(id=entry.id))
        if isinstance(handin, Refusal):
            refused.append(handin)
        else:
            handin.notes[:0] = _other_notes(entry)
            handins.append(handin)
    refused.sort(key=lambda refusal: refusal.name)  # in the download's order, as listed
    return Download(platform=NAME, handins=handins, refused=refused,
                    roster=list(roster.values()), sheet=sheet)


def _entries(folder: Path, sheet) -> tuple:
    """The download's entries gathered by prefix, and the entries that are no one's."""
    entries, refused = {}, []
    worksheet = sheet.path.resolve() if sheet else None
    for path in sorted(folder.iterdir()):
        if worksheet is not None and path.resolve() == worksheet:
            continue
        shown = escaped(path.name)
        match = ENTRY.fullmatch(path.name)
        if not match:
            refused.append(Refusal(shown, NOT_MOODLE))
            continue
        own = match["file"] or None  # "": a folder as Moodle 3.1 to 4.0 named it, "..._file_"
        if path.is_dir() and own is not None:
            refused.append(Refusal(shown, FOLDER_AS_FILE))
            continue
        if not path.is_dir() and own is None:
            refused.append(Refusal(shown, FILE_AS_FOLDER))
            continue
        entry = entries.setdefault(match["id"] or match["name"],
                                   _Entry(match["name"], match["id"] or ""))
        entry.shown.append(shown)
        found = ({own: path} if own is not None else {
            inner.relative_to(path).as_posix(): inner
            for inner in sorted(path.rglob("*")) if inner.is_file()})
        if match["plugin"] != FILE_PLUGIN:
            entry.other.setdefault(match["plugin"], []).extend(found)
            continue
        for name, where in found.items():
            if name in entry.files:
                refused.append(Refusal(escaped(str(where.relative_to(folder))),
                                       TWICE.format(first=escaped(str(
                                           entry.files[name].relative_to(folder))))))
            else:
                entry.files[name] = where
    return entries, refused


def _person(sheet: Worksheet, number: str, record: Record) -> Person:
    return Person(id=number, name=sheet.cell(record, FULL_NAME) or sheet.cell(record, IDENTIFIER),
                  email=sheet.cell(record, EMAIL))


def _team_handin(entry: _Entry, entries: dict, sheet, roster: dict, context):
    """A team submission: its members are the worksheet's rows whose Group, cleaned as Moodle
    cleans a prefix, is the entry's name."""
    shown = ", ".join(entry.shown)
    if sheet is None:
        return Refusal(shown, DEFAULT_NEEDS_WORKSHEET)
    namesakes = sorted(other.id for other in entries.values()
                       if _same(other.name, entry.name))
    if len(namesakes) > 1:
        return Refusal(shown, TWO_GROUPS.format(group=escaped(entry.name),
                                                ids=", ".join(namesakes)))
    members = [number for number, record in sheet.rows.items()
               if _same(_cleaned(sheet.cell(record, GROUP)), entry.name)]
    if not members:
        return Refusal(shown, NO_SUCH_GROUP.format(group=escaped(entry.name)))
    name = sheet.cell(sheet.rows[members[0]], GROUP)
    return _handin(entry, members, name, sheet, roster, context)


def _handin(entry: _Entry, members: list, name: str, sheet: Worksheet, roster: dict,
            context) -> Handin:
    """The hand-in of these members, its time the latest the worksheet gives them (a team's
    members all show the team's), and what the worksheet says that Moodle will do."""
    handin = Handin(key=entry.id or entry.name, name=name,
                    members=[roster[number] for number in members], files=entry.files)
    times, unread = [], []
    for number in members:
        text = sheet.cell(sheet.rows[number], SUBMITTED)
        try:
            when = parse_time(text, context.zone)
        except ValueError:
            unread.append(text)
            continue
        if when is not None:
            times.append(when)
    if times:
        handin.submitted = max(times)
    elif unread:
        handin.notes.append(UNREADABLE_TIME.format(text=escaped(unread[0])))
    elif SUBMITTED in sheet.columns:
        handin.notes.append(NO_SUBMISSION_TIME)
    if any(sheet.cell(sheet.rows[number], CAN_CHANGE) == NO for number in members):
        handin.notes.append(LOCKED)
    return handin


def _other_notes(entry: _Entry) -> list:
    return [NOT_A_PROGRAM.format(plugin=plugin, names=", ".join(escaped(name) for name in names))
            for plugin, names in sorted(entry.other.items())]


def _cleaned(group: str) -> str:
    """A group's name as Moodle writes it into a file name (get_student_prefix: format_string
    makes a bare "&" "&amp;", then clean_filename drops the "&")."""
    return NOT_IN_FILE_NAMES.sub("", BARE_AMPERSAND.sub("&amp;", group).replace("_", " "))


def _same(one: str, other: str) -> bool:
    """One name, whether a zip tool gave it composed or decomposed."""
    return unicodedata.normalize("NFC", one) == unicodedata.normalize("NFC", other)


def write_back(out: Path, download: Download, returned: list, context):
    """OUT/moodle-worksheet.csv: the worksheet as Moodle gave it, every row and column, with
    the Grade and Feedback comments cells of each returned student filled in (Grade left
    empty where no mark stands: Moodle's upload then keeps the grade it has), and a cell of
    a student's that a spreadsheet would run made text (MOODLE_WRITES). None when no
    worksheet was given: NO_WORKSHEET says what to do. Raises ValueError, writing nothing,
    where Moodle's upload would not take the marks as they are (a scale, another maximum)."""
    sheet = download.sheet
    if sheet is None:
        return None
    if GRADE not in sheet.columns:
        raise ValueError(BAD_SHEET.format(path=sheet.path, problem=NO_COLUMN.format(column=GRADE)))
    grade, comments = sheet.columns[GRADE], sheet.columns.get(COMMENTS)
    back = {item.person.id: item for item in returned}
    _check_maximum(sheet, {number: item.possible for number, item in back.items()})
    rows = {id(record): number for number, record in sheet.rows.items()}
    theirs = [index for index, column in enumerate(sheet.records[0].values)
              if column not in MOODLE_WRITES]
    path = Path(out) / WRITTEN
    with replaced(path) as file:
        file.write("\ufeff" if sheet.bom else "")
        for record in sheet.records:
            raw = list(record.raw)
            if id(record) in rows:
                for index in theirs:
                    if spreadsheet_text(record.values[index]) != record.values[index]:
                        raw[index] = _cell(record.values[index], sheet.separator)
            item = back.get(rows.get(id(record)))
            if item is not None:
                raw[grade] = _cell("" if item.mark is None else _number(item.mark),
                                   sheet.separator)
                if comments is not None:
                    raw[comments] = _cell(item.comment, sheet.separator)
            file.write(sheet.separator.join(raw) + record.end)
    return path


def _check_maximum(sheet: Worksheet, possible: dict):
    """Refuse marks out of a total Moodle would not take as they are (`possible`: the kit's
    total per participant id): its upload neither scales a grade nor says it skipped one
    above its maximum. Checked as the worksheet is read (Context.marks), so that a class is
    never marked for marks that cannot go back, and again as they go back."""
    if MAXIMUM not in sheet.columns:
        raise ValueError(NOT_POINTS.format(path=sheet.path))
    for number, total in possible.items():
        record = sheet.rows.get(number)
        if record is None:
            continue
        maximum = sheet.cell(record, MAXIMUM)
        try:
            same = float(maximum.replace(",", ".")) == float(total)
        except ValueError:
            same = False
        if not same:
            raise ValueError(OTHER_MAXIMUM.format(path=sheet.path, moodle=escaped(maximum),
                                                  kit=_number(total)))


def _number(mark: float) -> str:
    """A mark as Moodle's upload reads it (unformat_float): a point, no exponent; to the two
    decimals grades.csv and the student's page show."""
    return f"{mark:.2f}".rstrip("0").rstrip(".")


def participant(identifier: str) -> str:
    """The participant number that ends an Identifier ("Participant 12345"), or "". Read
    by stripping, not a pattern: a long cell of digits is read in one pass."""
    text = identifier.rstrip()
    return text[len(text.rstrip("0123456789")):]


def _cell(text: str, separator: str = ",") -> str:
    """One of the kit's cells, safe from formulas, quoted where PHP's fputcsv would, or where
    it holds the worksheet's separator."""
    text = spreadsheet_text(text)
    quoted = NEEDS_QUOTES.search(text) or separator in text
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if quoted else text


def write_feedback_zip(out: Path, download: Download, pages: dict, context) -> tuple:
    """OUT/moodle-feedback.zip for "Upload multiple feedback files in a zip": each page's
    files (`pages`: a participant id -> the folder of their page, theirs to see) in the
    folder Moodle's importer gives to that participant (FEEDBACK_FOLDER); never a team
    submission's (_feedback_folders says why). Each folder is named from the platform's id and the name
    cleaned as Moodle cleans a prefix, never from a path a student wrote. Returns (the zip,
    or None when no page can go back so; the participant ids whose page is in it)."""
    folders, attached = _feedback_folders(download, pages)
    path = Path(out) / FEEDBACK_ZIP
    if not folders:
        path.unlink(missing_ok=True)  # an earlier run's: never another class's pages
        return None, attached
    members = sorted((f"{folder}/{name}", source) for folder, page in folders.items()
                     for name, source in _page_files(page))
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file, zipfile.ZipFile(file, "w") as archive:
            for name, source in members:
                info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = 3  # Unix, wherever the kit runs: the same bytes
                info.external_attr = ZIP_MODE
                with open(source, "rb") as given, archive.open(info, "w") as member:
                    shutil.copyfileobj(given, member)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return path, attached


def _feedback_folders(download: Download, pages: dict) -> tuple:
    """({zip folder: page folder}, the participant ids whose page is in one). None in a team
    submission assignment (the worksheet's Group column): Moodle's importer reads a
    folder's number as a group's id since it maps groups (get_participant_mapping), as a
    participant's before (commit 0203d8f26027201de1d7d1ec8d8aa3cdcc4f5d5d), and the kit
    cannot tell which Moodle it is: a team's page could reach a student of the same number.
    Those pages go back by hand; their comments name them."""
    sheet = download.sheet
    if sheet is not None and GROUP in sheet.columns:
        return {}, set()
    folders, attached = {}, set()
    known = {person.id: person for person in download.roster}
    for handin in download.handins:
        known.update((person.id, person) for person in handin.members
                     if person.id not in known)
    for number, page in pages.items():
        if number in known and _numeric(number):
            folders[FEEDBACK_FOLDER.format(name=_folder_name(known[number].name), id=number)] = page
            attached.add(number)
    return folders, attached


def _folder_name(name: str) -> str:
    """A name as Moodle writes it into a prefix (_cleaned: no "_", no "/" or "\\"), with no
    character Unicode calls a control or format either, and short: Moodle's importer reads
    only the number after it, and a path must fit Moodle's."""
    kept = "".join(character for character in unicodedata.normalize("NFC", _cleaned(name))
                   if not unicodedata.category(character).startswith("C"))
    return kept.strip()[:FOLDER_NAME_MOST]


def _numeric(text: str) -> bool:
    """A participant's (or group's) number as Moodle writes it: ASCII digits only."""
    return bool(text) and text.isascii() and text.isdigit()


def _page_files(page: Path) -> list:
    """(name inside the page, file) for each plain file of a page folder, never through a
    link: what the student may see, laid out as the page cites it."""
    page = Path(page)
    found = []
    for inside in sorted(page.rglob("*")):
        parents = inside.relative_to(page).parents
        if inside.is_symlink() or not inside.is_file() or any(
                (page / parent).is_symlink() for parent in parents if parent != Path(".")):
            continue
        found.append((inside.relative_to(page).as_posix(), inside))
    return found
