"""A learning platform's download marked as a class (`exactmark class DOWNLOAD --from
canvas|moodle|gradescope`): the download unpacked safely, read by its platform's module
(exactmark/platforms/: NAME, looks_like, read, write_back, as download.py says), each
hand-in made one student of the class, and the marks handed back in the platform's format.

The platforms are listed here, by module name, and imported only when a run needs them: the
class folder's marking never loads a platform's code, and the class marker is the only user
of the list (a platform module knows its own format, never the others'). A platform module
reads names and its own sheets; everything that copies, unpacks or runs is here and in
mark_class.py, with the checks the class folder's entries get.
"""

import dataclasses
import errno
import importlib
import unicodedata
from datetime import timezone
from pathlib import Path
from typing import NamedTuple

from exactmark.base.tree import Limits, Refused, copy_file
from exactmark.base.visible import escaped
from exactmark.classroom import sheet
from exactmark.classroom.roster import Student, folder_name
from exactmark.base.instructor_csv import read_table
from exactmark.classroom.times import terms_of
from exactmark.classroom.unpack import STUDENT_ARCHIVES, name_key, unpack
from exactmark.kit.submission import skip_reason
from exactmark.platforms.download import Context, Person, Refusal, Returned

class Platform(NamedTuple):
    """A platform --from names: the module that reads its download, how the run calls it,
    and where it keeps its submission times (said when none came)."""
    module: str
    label: str
    times_from: str
    looks: str  # what its download holds, said when a download does not look like it


PLATFORMS = {
    "canvas": Platform("exactmark.platforms.canvas", "Canvas",
                       "Canvas keeps them in its API (--canvas-url, --canvas-course, "
                       "--canvas-assignment)",
                       "files named sortablename_[LATE_]userid_attachmentid_file"),
    "moodle": Platform("exactmark.platforms.moodle", "Moodle",
                       "Moodle's are in its grading worksheet (--worksheet)",
                       "folders or files named Full Name_participantid_assignsubmission_file"),
    "gradescope": Platform("exactmark.platforms.gradescope_export", "Gradescope",
                           "Gradescope's are in submission_metadata.yml",
                           "submission_metadata.yml beside a folder submission_ID per "
                           "submission")}
CANVAS_API = "exactmark.platforms.canvas_api"  # its REST API, for the times the zip lacks
HANDIN = "handin"  # a Student's kind: a platform's hand-in, copied from the download
# A whole class's download, unpacked before any student's: 500 students' worth of the usual
# hand-in (a few files of a few kB to 1 MB) fits many times over, 2 GiB stops a runaway; two
# levels deeper than one student's limit (the platform's folder per student, then theirs).
CLASS_LIMITS = Limits(files=20_000, depth=Limits().depth + 2, bytes=2 << 30)
DOWNLOAD_FOLDER = "download"  # in the run's scratch folder
MAC_RESOURCES = "__MACOSX"  # what a Mac's zip holds beside the files: never a student's
SHOWN_MOST = 200  # characters of a name shown

READ_AS = "read as a {platform} download"
DETECTED = "read as a {platform} download (detected): --from {name} to say so"
AMBIGUOUS = ("{path} looks like a download of {platforms}: read as a class folder (one entry "
             "per student); --from NAME to read it as one")
NOT_LIKE = ("{path} does not look like a {platform} download ({looks}): give the download as "
            "it came")
LOOKS_LIKE = "; it looks like a {platforms} download"
ARCHIVE_AMBIGUOUS = "{path} looks like a download of {platforms}: say which with --from NAME"
NO_PLATFORM_SEEN = ("{path} is an archive, and no platform's download as it comes: --from "
                    "canvas|moodle|gradescope says why not; a class folder (an entry per "
                    "student) is given unpacked")
CLASS_REFUSED = "{path}: {reason}"
NAME_LEFT_OUT = ("a file of the download whose name is not plain text (a control character, or "
                 "not UTF-8): left out, so that the rest of the class is marked")
NEEDS_DOWNLOAD = "{option} needs a platform's download (--from, or one detected)"
NEEDS_CANVAS = "{option} is for a Canvas download (--from canvas)"
NEEDS_MOODLE = "{option} is Moodle's grading worksheet, for a Moodle download (--from moodle)"
CANVAS_PARTS = ("--canvas-url and --canvas-course ask Canvas's API with --canvas-assignment: give "
                "all three (or --canvas-assignment alone, to name the sheet's column)")
ROSTER_COLUMNS = ("student", "id", "team")  # and email, deadline, extension, when given
NO_ROSTER = ("{path}: not a CSV with the columns student, id and team (email, deadline and "
             "extension may follow)")
ROSTER_TWICE = "{path}, line {line}: {id} is already in team {team}"
# On a row.
SAME_NAME = "{name} ({id})"  # two students of one name, told apart by the platform's id
OLDER = "handed in again: the newest is marked, not {names}"
PLATFORM_UNTIMED = ("{platform} gives no submission time for this hand-in: marked without the "
                    "late rule")
LATE_BUT_ON_TIME = "{platform} marks this hand-in late, yet its time is before the deadline"
NO_TIMES_GIVEN = ("no hand-in has a submission time: {source}, or --times; marked without the "
                  "late rule")
LATE_UNTIMED = ("{platform} marks this hand-in late, and no time for it is given (the "
                "platform's, or --times): marked without the late rule")
ON_TIME_BUT_LATE = "{platform} does not mark this hand-in late, yet its time is after the deadline"
TEAM_HANDED_IN = "team {team}: handed in by {names}"
TEAM_ALSO = "team {team}: also handed in by {name}, replaced by the latest"
TEAM_ROW = "the mark of {team}, shared by its members"
TEAM_OF_ONE = "handed in as {team}, of which this student is the one member"
COMMENT_PAGE = "{page}/feedback.html"
COMMENT_ATTACHED = "your feedback page is attached as a feedback file (feedback.html)"
# A student with terms of their own who has handed nothing in while their window is open.
STILL_OPEN_NOTE = "nothing handed in yet, and a submission is accepted until {closes}: no mark yet"
# Why a hand-in's files are not copied (the student's row says it).
BAD_FILE_NAME = "the download names a file {name}: not a plain path below the submission"
FILE_AGAIN = "the hand-in names {name} twice, or as a file and a folder"
FILE_NOT_COPIED = "{name} cannot be copied from the download: {why}"
TOO_MANY_FILES = "the hand-in holds more than {most} files and folders"
TOO_DEEP = "{name} is nested more than {most} levels deep"
TOO_LARGE = "the hand-in holds more than {most_mib} MiB"


@dataclasses.dataclass
class Taken:
    """A download as the class marker takes it: its platform, what the platform read, and
    the class it makes."""
    name: str  # --from's name of the platform
    module: object
    download: object  # exactmark.platforms.download.Download, as the platform read it
    context: Context
    said: str  # the run's first line
    everyone: list  # Person: the platform's roster and the roster file's, each once
    handins: list  # Handin, teams from the roster file made one
    terms: dict = dataclasses.field(default_factory=dict)  # id -> Terms: a student's own
    # (the roster file's, then the times file's, which wins)

    @property
    def platform(self) -> str:
        return PLATFORMS[self.name].label


def platform_module(name: str):
    """The module of --from NAME, imported only now: a class folder's run loads none."""
    return importlib.import_module(PLATFORMS[name].module)


def is_download_archive(path: Path) -> bool:
    return (path.is_file() and not path.is_symlink()
            and path.name.lower().endswith(STUDENT_ARCHIVES))


def take(options, assignment, scratch: Path):
    """The download SUBMISSIONS is, read by its platform: by --from, or by the one platform
    that recognises it. None: a class folder, marked as ever. ValueError: a line to say
    (a platform's module says what it cannot read so too)."""
    submissions = options.submissions
    archive = is_download_archive(submissions)
    folder, left_out = submissions, []
    if archive:
        folder = scratch / DOWNLOAD_FOLDER
        try:
            unpack(submissions, folder, CLASS_LIMITS, left_out)
        except Refused as problem:
            raise ValueError(CLASS_REFUSED.format(path=escaped(str(submissions)),
                                                  reason=problem)) from None
    inner = wrapped(folder)
    if options.platform:
        name, module = options.platform, platform_module(options.platform)
        if not module.looks_like(folder) and inner and module.looks_like(inner):
            folder = inner
        if not module.looks_like(folder):
            others = [PLATFORMS[other].label for other, _ in detected(folder)]
            raise ValueError(NOT_LIKE.format(path=escaped(str(submissions)),
                                             platform=PLATFORMS[name].label,
                                             looks=PLATFORMS[name].looks) + (LOOKS_LIKE.format(
                                                 platforms=" and ".join(others))
                                                 if others else ""))
        said = READ_AS.format(platform=PLATFORMS[name].label)
    else:
        found = detected(folder)
        if not found and inner:
            found, folder = detected(inner), inner
        if len(found) != 1:
            shown = escaped(str(submissions))
            platforms = " and ".join(PLATFORMS[name].label for name, _ in found)
            if archive:
                raise ValueError((ARCHIVE_AMBIGUOUS if found else NO_PLATFORM_SEEN).format(
                    path=shown, platforms=platforms))
            check_options(options, None)
            if found:
                raise Ambiguous(AMBIGUOUS.format(path=shown, platforms=platforms))
            return None
        (name, module), = found
        said = DETECTED.format(platform=PLATFORMS[name].label, name=name)
    check_options(options, name)
    zone = assignment.deadline.tzinfo if assignment.deadline else timezone.utc
    context = Context(expected=frozenset(file for program in assignment.programs.values()
                                         for file in program.exact_names()),
                      zone=zone, assignment=assignment.name, worksheet=options.worksheet,
                      platform_assignment=options.canvas_assignment or "",
                      marks=float(assignment.marks))
    download = module.read(folder, context)
    download.refused += [Refusal(name, NAME_LEFT_OUT) for name in left_out]
    if options.canvas_url:
        api = importlib.import_module(CANVAS_API)
        download = api.with_times(download, api.fetch(options.canvas_url, options.canvas_course,
                                                      options.canvas_assignment),
                                  marks=context.marks)
    teams = read_teams(options.roster) if options.roster else {}
    handins = teamed(download, teams)
    everyone = list({person.id: person for person in [*download.roster, *(
        person for members in teams.values() for person in members)]}.values())
    return Taken(name, module, download, context, said, everyone, handins,
                 roster_terms(options.roster, zone, assignment.deadline)
                 if options.roster and assignment.deadline else {})


def wrapped(folder: Path):
    """The one folder a download was zipped in again (Windows' "Compressed folder" of the
    unpacked download: `Assignment 1 Submissions/...`), or None. A Mac's `__MACOSX` and
    hidden entries beside it do not count."""
    inside = [entry for entry in folder.iterdir()
              if not entry.name.startswith(".") and entry.name != MAC_RESOURCES]
    if len(inside) == 1 and inside[0].is_dir() and not inside[0].is_symlink():
        return inside[0]
    return None


class Ambiguous(Exception):
    """More than one platform recognises a class folder: it is marked as a class folder,
    and the run says so."""


def detected(folder: Path) -> list:
    """(name, module) of each platform whose module recognises the folder."""
    found = []
    for name in PLATFORMS:
        module = platform_module(name)
        if module.looks_like(folder):
            found.append((name, module))
    return found


def check_options(options, name) -> None:
    """The options a download needs given only with one (`name`: its platform's, None for
    a class folder); ValueError: the line to say."""
    canvas = (options.canvas_url, options.canvas_course, options.canvas_assignment)
    if (options.canvas_url or options.canvas_course) and not all(canvas):
        raise ValueError(CANVAS_PARTS)
    for option, given in (("--worksheet", options.worksheet), ("--roster", options.roster),
                          ("--canvas-url", options.canvas_url),
                          ("--canvas-assignment", options.canvas_assignment)):
        if given and name is None:
            raise ValueError(NEEDS_DOWNLOAD.format(option=option))
    if options.canvas_assignment and name != "canvas":
        raise ValueError(NEEDS_CANVAS.format(option="--canvas-url" if options.canvas_url
                                             else "--canvas-assignment"))
    if options.worksheet and name != "moodle":
        raise ValueError(NEEDS_MOODLE.format(option="--worksheet"))


def read_teams(path: Path) -> dict:
    """The roster file's teams: team -> [Person], in the file's order. Columns student, id,
    team (and email), read as every instructor's CSV is (instructor_csv)."""
    teams, team_of = {}, {}
    for line, cells in read_table(path, ROSTER_COLUMNS, NO_ROSTER):
        if cells["id"] in team_of:
            raise ValueError(ROSTER_TWICE.format(path=path, line=line, id=escaped(cells["id"]),
                                                 team=escaped(team_of[cells["id"]])))
        team_of[cells["id"]] = cells["team"]
        teams.setdefault(cells["team"], []).append(
            Person(cells["id"], cells["student"], cells.get("email", "")))
    return teams


def roster_terms(path: Path, zone, deadline) -> dict:
    """id -> Terms of each roster row with a deadline or an extension of its own, read as
    the times file reads them (for an assignment with a deadline: one roster may serve a
    term's assignments, those without one too)."""
    found = {}
    for line, cells in read_table(path, ROSTER_COLUMNS, NO_ROSTER):
        terms = terms_of(path, line, cells, zone, deadline)
        if terms is not None:
            found[cells["id"]] = terms
    return found


def team_terms(terms: list):
    """A hand-in's terms from its members' own: the latest due date among them (a team
    hands in once; one member's extension is the team's), None when none has terms."""
    given = [each for each in terms if each is not None and each.due is not None]
    return max(given, key=lambda each: each.due) if given else None


def teamed(download, teams: dict) -> list:
    """The download's hand-ins with each roster team's made one: the latest of its members'
    (by the platform's time; the first by name when it gives none), for all its members, the
    others named on its row. A hand-in of no roster team stays as the platform gave it."""
    team_of = {person.id: team for team, members in teams.items() for person in members}
    known = {person.id: person for person in download.roster}
    by_team, handins = {}, []
    for handin in download.handins:
        team = next((team_of[person.id] for person in handin.members if person.id in team_of),
                    None)
        if team is None:
            handins.append(handin)
        else:
            by_team.setdefault(team, []).append(handin)
    for team, given in by_team.items():
        given.sort(key=lambda handin: handin.name)
        latest = max(given, key=lambda handin: handin.submitted.timestamp()
                     if handin.submitted else float("-inf"))  # the first, of equals
        handins.append(dataclasses.replace(
            latest, name=team,
            members=[known.get(person.id, person) for person in teams[team]],
            notes=[*latest.notes, TEAM_HANDED_IN.format(team=escaped(team),
                                                        names=escaped(latest.name))]
            + [TEAM_ALSO.format(team=escaped(team), name=escaped(handin.name))
               for handin in given if handin is not latest]))
    return handins


def students_of(taken: Taken, submissions: Path, times: dict, deadline) -> tuple:
    """(the class's Students: a hand-in each, then what the download refused, in name order;
    the names the times file gives that no hand-in has)."""
    label = taken.platform
    platform_timed = any(handin.submitted is not None for handin in taken.handins)
    keys = {}
    for handin in taken.handins:
        keys.setdefault(name_key(row_name(handin)), []).append(handin)
    students, used = [], set()
    for handin in taken.handins:
        alone = len(handin.members) == 1
        shown = shown_name(row_name(handin))
        student = Student(shown, submissions / handin.key, HANDIN,
                          id=handin.members[0].id if alone else handin.key,
                          members=list(handin.members), files=dict(handin.files),
                          notes=[*handin.notes])
        if len(keys[name_key(row_name(handin))]) > 1:
            student.name = SAME_NAME.format(name=shown, id=escaped(student.id, most=SHOWN_MOST))
        if row_name(handin) != handin.name:
            student.notes.append(TEAM_OF_ONE.format(team=shown_name(handin.name)))
        if handin.older:
            student.notes.append(OLDER.format(names=", ".join(
                escaped(Path(str(path)).name) for path in handin.older)))
        found = timed_by(times, handin) if times is not None else None
        student.terms = team_terms([taken.terms.get(person.id) for person in handin.members])
        if found is not None:
            used.add(found)
            student.terms = times[found].terms or student.terms
        if found is not None and times[found].submitted is not None:
            student.submitted = times[found].submitted
        elif deadline is not None:  # without one, no late rule: the platform's time is moot
            student.submitted = handin.submitted
        if student.submitted is None and deadline is not None:
            student.untimed = True
            student.untimed_note = (
                LATE_UNTIMED if handin.late else sheet.NO_TIME if times is not None
                else PLATFORM_UNTIMED if platform_timed else NO_TIMES_GIVEN).format(
                    platform=label, source=PLATFORMS[taken.name].times_from)
        if handin.late is not None and student.submitted is not None and deadline is not None:
            late = student.submitted > (student.terms.due if student.terms and student.terms.due
                                        else deadline)
            if late != handin.late:
                student.notes.append((LATE_BUT_ON_TIME if handin.late else ON_TIME_BUT_LATE)
                                     .format(platform=label))
        students.append(student)
    for refusal in taken.download.refused:
        students.append(Student(escaped(refusal.name, most=SHOWN_MOST), submissions, "refused",
                                escaped(refusal.reason)))
    give_folders(students)
    handed_in = {person.id for handin in taken.handins for person in handin.members}
    for person in taken.everyone:  # the terms of those who have not handed in yet
        found = found_in(times, [person.id, person.name]) \
            if times is not None and person.id not in handed_in else None
        if found is not None:
            used.add(found)
            taken.terms[person.id] = times[found].terms or taken.terms.get(person.id)
    unknown = sorted(timed.student for key, timed in (times or {}).items() if key not in used)
    return sorted(students, key=lambda student: (name_key(student.name), student.name)), unknown


def row_name(handin) -> str:
    """The name a hand-in's row goes by: its member's for a team of one (Moodle's "Default
    group" or a group, a Canvas group, with one student in it), else the platform's."""
    if len(handin.members) == 1 and handin.members[0].name \
            and handin.members[0].name != handin.name:
        return handin.members[0].name
    return handin.name


def shown_name(name: str) -> str:
    """A name as the platform writes it, for the sheet and the pages: composed (NFC: a Mac's
    decomposed Zoë is the Zoë typed elsewhere), then escaped as whatever a student wrote."""
    return escaped(unicodedata.normalize("NFC", name), most=SHOWN_MOST)


def timed_by(times: dict, handin):
    """The times file's key for a hand-in: by the platform's id of a member first (what no
    two students share), then by the name the platform writes for it or a member."""
    return found_in(times, [*(person.id for person in handin.members), handin.name,
                            *(person.name for person in handin.members)])


def found_in(times: dict, candidates: list):
    """The times file's key for the first of `candidates` (ids, names) it names, or None."""
    for candidate in candidates:
        if name_key(candidate) in times:
            return name_key(candidate)
    return None


def give_folders(students: list) -> None:
    """Each student's folder under OUT: from the name shown, and from the name and the
    platform's id where two would share one (a name twice, or in two cases)."""
    by_folder = {}
    for student in students:
        student.folder = folder_name(student.name)
        by_folder.setdefault(student.folder.casefold(), []).append(student)
    for sharing in by_folder.values():
        if len(sharing) > 1:
            for place, student in enumerate(sharing):
                student.folder = folder_name(f"{student.name} {student.id or place}", hashed=True)


def copy_handin(student: Student, into: Path, limits: Limits) -> None:
    """A hand-in's files in the new folder `into`, under the names the platform gives them:
    a lone archive unpacked as a student's archive is, else each file copied as a copy of a
    folder copies it (never through a link, hidden files left out, within `limits`)."""
    files = student.files
    if len(files) == 1 and next(iter(files)).lower().endswith(STUDENT_ARCHIVES):
        unpack(next(iter(files.values())), into, limits)
        return
    into.mkdir(mode=0o700)
    made = written = 0
    for name, source in sorted(files.items()):
        shown = escaped(name, most=SHOWN_MOST)
        parts = name.split("/")
        if name.startswith("/") or any(part in ("", ".", "..") for part in parts):
            raise Refused(BAD_FILE_NAME.format(name=repr(shown)))
        if any(skip_reason(part) for part in parts):
            continue
        if len(parts) > limits.depth:
            raise Refused(TOO_DEEP.format(name=shown, most=limits.depth))
        folder = into
        try:
            for part in parts[:-1]:
                folder = folder / part
                if not folder.is_dir():
                    folder.mkdir(mode=0o700)
                    made += 1
            made += 1
            if made > limits.files:
                raise Refused(TOO_MANY_FILES.format(most=limits.files))
            size = copy_file(source, folder / parts[-1], limits.bytes - written)
        except OSError as problem:
            if problem.errno in (errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
                raise Refused(FILE_AGAIN.format(name=shown)) from None
            raise
        except Refused as problem:
            raise Refused(FILE_NOT_COPIED.format(name=shown, why=problem)) from None
        if isinstance(size, str):
            raise Refused(FILE_NOT_COPIED.format(name=shown, why=size))
        written += size
        if written > limits.bytes:
            raise Refused(TOO_LARGE.format(most_mib=limits.bytes >> 20))


def member_rows(taken: Taken, outcomes: list, rows: list, programs: list, assignment=None,
                as_of=None) -> list:
    """(Person or None, Row) for grades.csv and the platform: a row per member of each
    hand-in (a team's mark for each of its members), one per refusal (no one's), and one
    for everyone of the roster who handed nothing in, in name order. One of those with
    terms of their own whose window is still open at `as_of` gets no mark (STILL_OPEN)."""
    found, seen = [], set()
    for outcome, row in zip(outcomes, rows):
        members = outcome.student.members
        if len(members) <= 1:
            found.append((members[0] if members else None, row))
        for person in members if len(members) > 1 else ():
            found.append((person, dataclasses.replace(
                row, student=shown_name(person.name), id=person.id,
                statuses=list(row.statuses),
                notes=[*row.notes, TEAM_ROW.format(team=row.student)])))
        seen.update(person.id for person in members)
    for person in taken.everyone:
        if person.id not in seen:
            row = sheet.Row(shown_name(person.name), {program: 0 for program in programs},
                            statuses=[sheet.NO_SUBMISSION], id=person.id)
            terms = taken.terms.get(person.id)
            closes = assignment.closes(terms) if terms and terms.due and assignment else None
            if closes is not None and as_of is not None and as_of < closes:
                row.statuses.append(sheet.STILL_OPEN)
                row.terms.append(terms.said(assignment.deadline.tzinfo))
                row.notes.append(STILL_OPEN_NOTE.format(closes=closes.isoformat()))
            found.append((person, row))
    return sorted(found, key=lambda pair: (name_key(pair[1].student), pair[1].student,
                                           pair[1].id))


def feedback_files(taken: Taken, out: Path, pairs: list) -> tuple:
    """The students' pages written for the platform to hand back as feedback files, where
    its module can (write_feedback_zip: Moodle's): (the file written or None, the ids of
    those whose page is in it)."""
    write = getattr(taken.module, "write_feedback_zip", None)
    if write is None:
        return None, set()
    pages = {person.id: out / row.page for person, row in pairs
             if person is not None and row.page}
    return write(out, taken.download, pages, taken.context)


def returned(pairs: list, assignment, students: dict, attached=frozenset()) -> list:
    """A Returned per Person: the mark (None for a marker error, and for a window still
    open with nothing handed in), the assignment's total, and the comment: the status, the
    late rule's line (the student's terms in it) or the terms alone, the student's page
    (said attached for those in `attached`, whose page goes back as a feedback file).
    `students`: the Student (their time and terms) per page folder."""
    back = []
    for person, row in pairs:
        if person is None:
            continue
        student = students.get(row.page)
        late = assignment.mark_after_deadline(row.raw, student.submitted, student.terms) \
            if student else None
        comment = "; ".join(part for part in (
            row.status, late.summary() if late else "; ".join(row.terms),
            "" if not row.page else COMMENT_ATTACHED if person.id in attached
            else COMMENT_PAGE.format(page=row.page)) if part)
        back.append(Returned(person, None if row.no_mark else row.mark,
                             float(assignment.marks), comment))
    return back
