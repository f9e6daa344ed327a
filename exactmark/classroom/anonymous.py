"""Anonymous marking (`exactmark class --anonymous`, `make mark-class ANONYMOUS=1`): whoever
reads the pages, the summary and the similarity pages sees each student as a pseudonym
("Student 7QX4"), never a name.

The key that maps a pseudonym back is OUT/instructor/pseudonyms.csv (pseudonym, student, id),
the instructor's alone, as grades.csv (whose `page` column names the pseudonym's folder).
A pseudonym is drawn at random (`secrets`) the first time a student is marked, then kept in
the key: the same student keeps it over every run and re-mark, a new student gets a new one,
and nobody can work a pseudonym out from a class list, as they could a hash of the name. Its
code has no vowel and holds a digit, so it never spells a name or a word.

What a page says besides the marks can carry a name too: a refused entry's reason quotes its
file name, a platform's notes name a team's members, a marker's failure quotes the copy's
path. Each such line is said by pseudonym (every form of the student's name replaced), and a
line that still holds a word of a name is left off the page, said so: grades.csv keeps it. An
override's reason and who (`--overrides`) are the instructor's own words, free to name anyone:
each is left off too where it holds a word of any name of the class."""

import csv
import functools
import re
import secrets
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

from exactmark.base.spreadsheet import replaced, spreadsheet_text
from exactmark.base.visible import escaped
from exactmark.base.instructor_csv import read_table
from exactmark.classroom.roster import ascii_spelling
from exactmark.classroom.unpack import FOLDER_KIND, student_name
from exactmark.marking import overrides
from exactmark.platforms.download import Person

KEY = "pseudonyms.csv"  # in OUT/instructor/
COLUMNS = ("pseudonym", "student", "id")
PSEUDONYM = "Student {code}"
CODE_SYMBOLS = "BCDFGHJKMNPQRSTVWXZ23456789"  # no vowel (nor Y): no word; no 0/O, 1/I/L
CODE_LENGTH = 4  # 27**4 - 19**4 = 401120 codes with a digit: plenty for a course's students
PLAIN_PSEUDONYM = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,60}")
SHORTEST_NAME_WORD = 2  # "Li", "Ng": a word of a name, left off a page wherever it stands
SHORTEST_FORM = 3  # a shorter name ("an") is not replaced where it may be a word: left off
SHORTEST_ID_WORD = 4  # an id shorter than this is a number a note may hold for other reasons
WORD = re.compile(r"[^\W_]+")  # a word of a name: letters and digits
BLOT = "\u2592"  # what stands for each character of a name in a student's code (▒)

ENTRY = "{pseudonym}'s hand-in"  # the entry's file name, as a refusal quotes it
WITHHELD = ("a note that would name a student, left off this page (anonymous marking): "
            "grades.csv has it")
NO_KEY = "{path}: not a CSV with the columns pseudonym, student and id"
BAD_PSEUDONYM = ("{path}, line {line}: {pseudonym} is not a pseudonym: letters, digits, spaces, "
                 "'.', '_' or '-', as \"Student 7QX4\"")
NAMES_THEM = ("{path}, line {line}: the pseudonym {pseudonym} holds a word of the student's "
              "name: it would name them on their pages")
PSEUDONYM_TWICE = "{path}, line {line}: the pseudonym {pseudonym} is given twice"
STUDENT_TWICE = "{path}, line {line}: {student} has a pseudonym already"
REMOVED_NAMED = ("anonymous marking: removed {count} folder(s) of pages an earlier run wrote "
                 "under students' names from {folder}")
REMOVED_ANONYMOUS = ("removed {count} folder(s) of pages an earlier anonymous run wrote from "
                     "{folder} (the key keeps their pseudonyms for the next)")


@dataclass
class Pseudonym:
    """One row of the key: the pseudonym, the student as grades.csv names them, and the
    platform's id (a team's: its members' ids; a class folder's student: none)."""
    pseudonym: str
    student: str
    id: str = ""

    @property
    def folder(self) -> str:
        """The pseudonym's folder of pages under OUT/students/."""
        return self.pseudonym.replace(" ", "-")


def identity(student) -> str:
    """What the key knows a student by besides the name: the platform's id of a student,
    every member's of a team (a hand-in's own key changes as its members hand in again)."""
    if len(student.members) > 1:
        return "; ".join(sorted(person.id for person in student.members))
    return student.id


def draw(taken: set) -> str:
    """A new pseudonym, at random, none of `taken` (compared whatever their case)."""
    taken = {pseudonym.casefold() for pseudonym in taken}
    while True:
        code = "".join(secrets.choice(CODE_SYMBOLS) for _ in range(CODE_LENGTH))
        pseudonym = PSEUDONYM.format(code=code)
        if any(symbol.isdigit() for symbol in code) and pseudonym.casefold() not in taken:
            return pseudonym


class Key:
    """OUT/instructor/pseudonyms.csv: read once, each student of the run given their
    pseudonym (an earlier run's, or a new one), written back whole."""

    def __init__(self, path: Path):
        self.path, self.rows = path, []
        if path.exists():
            self.rows = read_key(path)

    def of(self, student) -> Pseudonym:
        """The student's pseudonym: found by the platform's id where they have one, else by
        name among the rows without one; else a new one, added to the key."""
        known, name = identity(student), spreadsheet_text(student.name).strip()
        for row in self.rows:
            if (row.id == spreadsheet_text(known).strip() if known
                    else not row.id and row.student == name):
                row.student = name  # a platform's name may change: the key says today's
                return row
        row = Pseudonym(draw({row.pseudonym for row in self.rows}), name,
                        spreadsheet_text(known).strip())
        self.rows.append(row)
        return row

    def write(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with replaced(self.path) as file:
            sheet = csv.writer(file)
            sheet.writerow(COLUMNS)
            for row in self.rows:
                sheet.writerow([spreadsheet_text(cell)
                                for cell in (row.pseudonym, row.student, row.id)])


def read_key(path: Path) -> list:
    """The key's rows; ValueError with one line saying where, on a row the runs could not
    keep apart (a pseudonym twice, a student twice, a pseudonym that is no folder name)."""
    rows, pseudonyms, students = [], set(), set()
    for line, cells in read_table(path, COLUMNS[:2], NO_KEY):
        row = Pseudonym(cells["pseudonym"], cells["student"], cells.get("id", ""))
        if not PLAIN_PSEUDONYM.fullmatch(row.pseudonym):
            raise ValueError(BAD_PSEUDONYM.format(path=path, line=line,
                                                  pseudonym=repr(escaped(row.pseudonym))))
        if any(word in folded(row.student).split() for word in folded(row.pseudonym).split()
               if len(word) >= SHORTEST_FORM and word not in folded(PSEUDONYM).split()):
            raise ValueError(NAMES_THEM.format(path=path, line=line,
                                               pseudonym=repr(escaped(row.pseudonym))))
        if row.pseudonym.casefold() in pseudonyms:
            raise ValueError(PSEUDONYM_TWICE.format(path=path, line=line,
                                                    pseudonym=row.pseudonym))
        who = row.id or f"\0{row.student}"
        if who in students:
            raise ValueError(STUDENT_TWICE.format(path=path, line=line,
                                                  student=escaped(row.id or row.student)))
        pseudonyms.add(row.pseudonym.casefold())
        students.add(who)
        rows.append(row)
    return rows


def folded(text: str) -> str:
    """Text as names are compared: accents and case gone (Zoë Ång: zoe ang)."""
    return ascii_spelling(unicodedata.normalize("NFC", text)).casefold()


def spellings(text: str) -> set:
    """The ways a page may write `text`: as given, composed and decomposed, escaped, and in
    ASCII letters."""
    found = {text, unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text),
             ascii_spelling(text)}
    return {form for each in found for form in (each, escaped(each)) if form.strip()}


def word(text: str) -> re.Pattern:
    """`text` as a word: not inside a longer run of letters and digits."""
    return re.compile(rf"(?<![^\W_]){re.escape(text)}(?![^\W_])", re.IGNORECASE)


@dataclass
class Mask:
    """One student's pseudonym and the forms of their name it stands for."""
    pseudonym: Pseudonym
    entry: set  # the entry's file name (an archive's, a refused file's), as a refusal quotes it
    forms: set  # the name, the folder it was given, the platform's ids and names, ...
    words: set  # each word of the name and of the members' names, folded; the ids
    names: list  # the name, the members' names

    def said(self, text: str, others: frozenset = frozenset()) -> str:
        """`text` with every form of the name replaced by the pseudonym; a text that still
        holds a word of the name, or one of `others` (class_words: a classmate's), is
        withheld."""
        for forms, by in ((self.entry, ENTRY.format(pseudonym=self.pseudonym.pseudonym)),
                          (self.forms, self.pseudonym.pseudonym)):
            for form in sorted(forms, key=len, reverse=True):
                text = word(form).sub(lambda _: by, text)
        rest = folded(text.replace(self.pseudonym.pseudonym, " "))
        return WITHHELD if any(word(each).search(rest) for each in self.words | others) \
            else text

    def blotted(self, text: str, everyone: frozenset = frozenset()) -> str:
        """A student's code as a page shows it: each word of their name blotted out, and
        their name and each of `everyone` (full_names: a classmate thanked in a comment)
        however its words are joined (runs), character for character, so that what is
        marked where stays where it was."""
        return blot(text, everyone | {run for name in self.names for run in runs(name)}
                    | {(each,) for each in self.words})


def blotters(masks: list) -> dict:
    """{pseudonym: what blots names out of their code}, for the similarity scan."""
    everyone = full_names(masks)
    return {mask.pseudonym.pseudonym: functools.partial(mask.blotted, everyone=everyone)
            for mask in masks}


def full_names(masks) -> frozenset:
    """Every name of the class, as the runs of folded words blot() looks for."""
    return frozenset(run for mask in masks for name in mask.names for run in runs(name))


def runs(name: str) -> set:
    """The runs of folded words that write `name` in code: its words however they are
    joined ("Cal Smith", "cal_smith", "cal.smith", "cal-smith": WORD splits them), and its
    words written as one ("CalSmith", "calsmith", "CALSMITH")."""
    words = tuple(WORD.findall(folded(name)))
    return {words, ("".join(words),)} if words else set()


def class_words(masks) -> frozenset:
    """Every word of every name and id of the class, folded, as Mask.said's `others`."""
    return frozenset(part for mask in masks for part in mask.words)


def blot(text: str, names: set) -> str:
    """`text` with each run of words that is one of `names` (tuples of folded words)
    blotted out, the longest first; each character stands where it was, line ends kept."""
    found = list(WORD.finditer(text))
    keys = [folded(each[0]) for each in found]
    longest = max((len(name) for name in names), default=0)
    pieces, at, start = [], 0, 0
    while at < len(found):
        size = next((size for size in range(min(longest, len(found) - at), 0, -1)
                     if tuple(keys[at:at + size]) in names), 0)
        if size:
            begin, end = found[at].start(), found[at + size - 1].end()
            pieces += [text[start:begin], re.sub(r"[^\n]", BLOT, text[begin:end])]
            start = end
        at += size or 1
    return "".join(pieces) + text[start:]


def mask_of(student, pseudonym: Pseudonym, root: Path) -> Mask:
    """The forms of `student`'s name a page could hold: the name shown, the entry's (unless
    the entry is the download itself, for what a platform's download refused), the folder
    the instructor's files are under, the platform's ids and names of each member."""
    people = list(student.members)
    names = [student.name, *(person.name for person in people)]
    ids = [identity(student), student.id, *(person.id for person in people)]
    entry = set()
    forms = {form for name in names for form in spellings(name)}
    forms |= {form for name in ids if len(name) >= SHORTEST_ID_WORD
              for form in spellings(name)}
    forms |= {person.email for person in people if person.email}
    forms |= spellings(student.folder) if student.folder else set()
    if student.entry != root:
        forms |= spellings(student_name(student.entry))
        if student.kind != FOLDER_KIND:  # a folder's name is the student's name
            entry = spellings(student.entry.name)
    words = {part for name in names for part in WORD.findall(folded(name))
             if len(part) >= SHORTEST_NAME_WORD}
    words |= {folded(name) for name in ids if len(name) >= SHORTEST_ID_WORD}
    return Mask(pseudonym, {form for form in entry if len(form) >= SHORTEST_FORM},
                {form for form in forms if len(form) >= SHORTEST_FORM}, words, names)


def masked(outcome, row, mask: Mask, everyone: frozenset = frozenset()):
    """(the outcome, the row) as the pages show them: the student is the pseudonym, their
    folder the pseudonym's, no id, a team's members only counted, no file of the download;
    each line that could name them said by pseudonym; an override's reason and who left off
    where they hold a word of `everyone` (class_words) too."""
    student = outcome.student
    shown = replace(student, name=mask.pseudonym.pseudonym, entry=Path(mask.pseudonym.folder),
                    folder=mask.pseudonym.folder, id="", files={},
                    members=[Person("", "") for _ in student.members],
                    notes=[mask.said(note) for note in student.notes],
                    reason=mask.said(student.reason) if student.reason else "",
                    untimed_note=mask.said(student.untimed_note)
                    if student.untimed_note else "")
    seen = replace(outcome, student=shown, results=results_said(outcome.results, mask, everyone),
                   refused=mask.said(outcome.refused) if outcome.refused else "",
                   failed=mask.said(outcome.failed) if outcome.failed else "")
    return (seen, replace(row, student=shown.name, id="",
                          notes=[mask.said(note) for note in row.notes],
                          overridden=[overrides.said(override)
                                      for override in seen.marking.overrides],
                          statuses=list(row.statuses), programs=dict(row.programs)))


def results_said(results, mask: Mask, everyone: frozenset = frozenset()):
    """A marking's results as the pages read them, each program's reason for counting 0 said
    by pseudonym: it names the look-alike files a submission holds (`Zoë Ång/solitaire_2.py`
    looks like it), and a folder in a submission may be named after its author; each
    override's reason and who too, and left off where they hold a word of `everyone` (the
    instructor's words: "bob asked", "cal's tutor"). results.json keeps them as written."""
    if not results:
        return results
    data = results.get("extra_data", {})
    return {**results, "extra_data": {**data, "programs": {
        name: {**program, "missing": mask.said(program.get("missing") or "")}
        for name, program in data.get("programs", {}).items()}, "overrides": [
        {**override, "reason": mask.said(override["reason"], everyone),
         "who": mask.said(override["who"], everyone)}
        for override in data.get("overrides", [])]}}


def stale_pages(students: Path, pages: set, key: Key, anonymous: bool) -> tuple:
    """The folders of pages under `students` an earlier run left that this one would not
    write again, and the line that says their removal: an anonymous run leaves no folder
    that is not a pseudonym's of this run (a name's would sit beside them); a run by name
    removes the folders the key's pseudonyms had."""
    if not students.is_dir():
        return [], ""
    theirs = {row.folder for row in key.rows} if key else set()
    found = sorted(entry for entry in students.iterdir()
                   if not entry.name.startswith(".") and entry.name not in pages
                   and (anonymous or entry.name in theirs))
    said = REMOVED_NAMED if anonymous else REMOVED_ANONYMOUS
    return found, said.format(count=len(found), folder=students) if found else ""
