"""Archives read as hostile: a student's .zip or .tar.gz, and a job or a result that came
from another machine (exactmark.distributed), unpacked by the same checks.

Each member is checked before anything is written for it (a name of plain text, no absolute
path, no '..' (a '\\' in a zip member's name is a folder separator, as Windows's tools
write it), no link, no device, FIFO or socket), every file and folder is
created relative to a descriptor of the folder it goes in and never through a
link, the limits of exactmark/base/tree.py count what is really written (an archive's
claimed sizes can lie), and a refusal leaves nothing behind. `zipfile` and
`tarfile` only decode; their own extraction (and its filters, which Python
3.10 and 3.11 may lack) is never used, so the same checks hold in every version.
"""

import errno
import gzip
import os
import stat
import tarfile
import unicodedata
import zipfile
import zlib
from pathlib import Path

from exactmark.base.tree import CHUNK, FILE, FOLDER, NEW_FILE, Limits, Refused, remove_tree

STUDENT_ARCHIVES = (".zip", ".tar.gz", ".tgz")

# Why an archive is refused as a whole.
UNKNOWN_ARCHIVE = "{archive} is not named .zip, .tar.gz or .tgz"
ARCHIVE_LINK = "{archive} is a link: give the archive itself"
ARCHIVE_NOT_A_FILE = "{archive} is not a plain file"
ARCHIVE_UNREADABLE = "{archive} cannot be read: {reason}"
ARCHIVE_TOO_LARGE = ("{archive} is {size:,} bytes, more than any submission within the limits "
                     "needs ({most:,})")
NOT_AN_ARCHIVE = "{archive} is not a valid {kind} archive: {detail}"
NOT_ONE_AT_ALL = "{archive} is not a {kind} archive"
# How the decoders begin their message for bytes that are no such archive at all: said
# after NOT_AN_ARCHIVE, the refusal would say it twice ("... not a valid zip archive: File
# is not a zip file").
SAYS_NOT_AN_ARCHIVE = ("File is not a zip file", "Not a gzipped file")
TOO_MANY_MEMBERS = ("{archive} holds {count} members, more than {most} files and folders "
                    "(from member {member})")
CONTENTS_TOO_LARGE = ("{archive} has a table of contents of {size:,} bytes, more than {most} "
                      "files and folders need")
EXPANDS_TOO_FAR = ("{archive} unpacks to more than {most:,} bytes of headers and data: "
                   "more than any submission within the limits needs")

# Why one member of an archive is refused (the whole archive is then refused).
MEMBER_NOT_TEXT = "member {member} has a name that is not UTF-8 text"
MEMBER_ZIP_NAME_NOT_TEXT = "a member has a name that is not UTF-8 text: {member}"
MEMBER_CONTROL = "member {member} has a control character in its name"
MEMBER_NAMES_NOTHING = "member {member} names no file"
MEMBER_ABSOLUTE = "member {member} is an absolute path"
MEMBER_CLIMBS = "member {member} climbs out of the submission with '..'"
MEMBER_LINK = "member {member} is a symbolic link: a submission holds plain files and folders"
MEMBER_HARD_LINK = "member {member} is a hard link: a submission holds plain files and folders"
MEMBER_DEVICE = "member {member} is a device: a submission holds plain files and folders"
MEMBER_FIFO = "member {member} is a FIFO: a submission holds plain files and folders"
MEMBER_SOCKET = "member {member} is a socket: a submission holds plain files and folders"
MEMBER_SPECIAL = "member {member} is not a plain file or folder ({what})"
MEMBER_FILTERED = "member {member} is refused by tarfile's data filter: {detail}"
MEMBER_AGAIN = "member {member} names a file or folder the archive already holds"
MEMBER_THROUGH = "member {member} goes through something that is not a folder"
MEMBER_UNWRITABLE = "member {member} cannot be written: {reason}"
MEMBER_UNREADABLE = "member {member} cannot be read: {detail}"
TOO_MANY_FILES = "{archive} holds more than {most} files and folders (at member {member})"
TOO_DEEP = ("member {member} is nested more than {most} levels deep (the submission folder "
            "is the first, as when a submission folder is copied)")
TOO_LARGE = "{archive} unpacks to more than {most:,} bytes (at member {member})"

# Generous room per member for what is not file data: headers, long names, padding.
MEMBER_OVERHEAD = 16 << 10
ARCHIVE_OVERHEAD = 128 << 10
CENTRAL_ENTRY_MOST = 8 << 10  # a zip's directory entry: 46 bytes, a name, small extras
SHOWN_MOST = 200
UTF8_FLAG = 0x800  # a zip member's general purpose bit 11: its name is UTF-8

# Errors a name from the archive can cause when written: the archive's fault.
NAME_ERRNOS = {errno.ENAMETOOLONG, errno.EINVAL, errno.EILSEQ, errno.ENOTDIR, errno.ELOOP,
               errno.EEXIST, errno.EISDIR}
# What the decoders raise for a damaged archive (never a Refused: it is checked first).
DAMAGED = (zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, EOFError, OSError,
           zlib.error, ValueError, NotImplementedError, RuntimeError, LookupError, OverflowError)

_FILE, _FOLDER = "file", "folder"



def unpack(archive: Path, into: Path, limits: Limits = Limits(), left_out: list = None) -> None:
    """Extract `archive` (.zip, .tar.gz or .tgz) into the new folder `into`, or
    raise `Refused` with a one-line reason and leave no `into` behind. `into`
    must not exist yet (FileExistsError: the caller's mistake, not the student's).
    `left_out`, a list, for a platform's download of a whole class (where one student's
    name must not stop the class): a member whose name is not plain text is left out,
    its name as shown added to the list, where it would refuse the archive."""
    shown = _shown(archive.name)
    suffix = _archive_suffix(archive.name)
    if suffix is None:
        raise Refused(UNKNOWN_ARCHIVE.format(archive=shown))
    with _open_archive(archive, shown, limits) as source:
        os.mkdir(into, 0o700)
        try:
            root = os.open(into, FOLDER)
            try:
                os.fchmod(root, 0o700)
                writer = _Writer(root, into, shown, limits, left_out)
                if suffix == ".zip":
                    _unpack_zip(source, writer)
                else:
                    _unpack_tar(source, writer)
            finally:
                os.close(root)
        except BaseException:
            remove_tree(into)
            raise


def _archive_suffix(name: str):
    lowered = name.lower()
    return next((suffix for suffix in STUDENT_ARCHIVES
                 if lowered.endswith(suffix) and len(name) > len(suffix)), None)


def _most_archive_bytes(limits: Limits) -> int:
    """The most bytes an archive (or a tar stream) of a submission within the
    limits can take: its data plus generous headers and padding per member."""
    return limits.bytes + (limits.files + 1) * MEMBER_OVERHEAD + ARCHIVE_OVERHEAD


def _open_archive(archive: Path, shown: str, limits: Limits):
    """The archive opened without following a link, refused when it is no plain
    file or is larger than a submission within the limits could make it."""
    try:
        fd = os.open(archive, FILE)
    except OSError as error:
        if error.errno == errno.ELOOP or os.path.islink(archive):
            raise Refused(ARCHIVE_LINK.format(archive=shown)) from None
        raise Refused(ARCHIVE_UNREADABLE.format(archive=shown, reason=error.strerror)) from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise Refused(ARCHIVE_NOT_A_FILE.format(archive=shown))
        most = _most_archive_bytes(limits)
        if status.st_size > most:
            raise Refused(ARCHIVE_TOO_LARGE.format(archive=shown, size=status.st_size, most=most))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _unpack_zip(source, writer: "_Writer") -> None:
    """Each member of a zip, checked, then written by `writer`."""
    _check_central_directory(source, writer)
    try:
        archive = zipfile.ZipFile(source)
    except UnicodeDecodeError as error:  # a name flagged UTF-8 that is not
        raise Refused(MEMBER_ZIP_NAME_NOT_TEXT.format(member=_shown(error.object))) from None
    except DAMAGED as error:
        raise writer.damaged("zip", error) from None
    with archive:
        members = archive.infolist()
        if len(members) > writer.limits.files:
            raise Refused(TOO_MANY_MEMBERS.format(
                archive=writer.shown, count=len(members), most=writer.limits.files,
                member=_shown(members[writer.limits.files].filename)))
        for info in members:
            meant = _zip_name(info)
            if writer.leaves_out(info.orig_filename, meant):  # orig: before a NUL cut it
                continue
            _check_text(info.orig_filename)
            _check_text(meant)
            name = meant.replace("\\", "/")  # Windows tools write '\' between folders
            shown = _shown(meant)
            parts = _parts(name, shown)
            kind = _zip_kind(info, name, shown)
            writer.place(parts, kind, shown, lambda: archive.open(info))


def _zip_name(info: zipfile.ZipInfo) -> str:
    """A member's name as its writer meant it. Flagged UTF-8 (bit 0x800), zipfile read it so;
    unflagged, it is UTF-8 when its bytes are (as Linux and macOS tools write it, flag or
    not), else cp437, the zip format's own encoding and what Windows's tools write (and
    what zipfile assumes of every unflagged name)."""
    if info.flag_bits & UTF8_FLAG:
        return info.filename
    raw = info.filename.encode("cp437")  # zipfile decoded the raw bytes as cp437: undone
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return info.filename


def _check_central_directory(source, writer: "_Writer") -> None:
    """Refuse a zip whose table of contents is too large for the member limit
    before zipfile reads all of it into memory (zipfile's own reading of the
    end record, where this Python has it)."""
    end_record = getattr(zipfile, "_EndRecData", None)
    size_field = getattr(zipfile, "_ECD_SIZE", None)
    if end_record is None or size_field is None:
        return
    try:
        record = end_record(source)
    except DAMAGED:
        return  # zipfile itself says what is wrong next
    finally:
        source.seek(0)
    most = (writer.limits.files + 1) * CENTRAL_ENTRY_MOST
    if record and record[size_field] > most:
        raise Refused(CONTENTS_TOO_LARGE.format(archive=writer.shown, size=record[size_field],
                                                most=writer.limits.files))


def _zip_kind(info: zipfile.ZipInfo, name: str, shown: str) -> str:
    """A file or a folder, from the Unix mode in the external attributes (a
    link there is refused, as is any other kind) and the trailing '/'."""
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        raise Refused(MEMBER_LINK.format(member=shown))
    if kind in (stat.S_IFCHR, stat.S_IFBLK):
        raise Refused(MEMBER_DEVICE.format(member=shown))
    if kind == stat.S_IFIFO:
        raise Refused(MEMBER_FIFO.format(member=shown))
    if kind == stat.S_IFSOCK:
        raise Refused(MEMBER_SOCKET.format(member=shown))
    if kind == stat.S_IFDIR or name.endswith("/"):
        return _FOLDER
    if kind in (0, stat.S_IFREG):
        return _FILE
    raise Refused(MEMBER_SPECIAL.format(member=shown, what=f"mode {kind:o}"))


class _Capped:
    """A stream that refuses to give more than `most` bytes: a tar.gz expands
    without bound, and tarfile reads a long header wholly into memory."""

    def __init__(self, stream, most: int, shown: str):
        self.stream, self.most, self.room, self.shown = stream, most, most, shown

    def read(self, size: int = -1) -> bytes:
        wanted = self.room + 1 if size is None or size < 0 else min(size, self.room + 1)
        data = self.stream.read(wanted)
        self.room -= len(data)
        if self.room < 0:
            raise Refused(EXPANDS_TOO_FAR.format(archive=self.shown, most=self.most))
        return data


def _unpack_tar(source, writer: "_Writer") -> None:
    """Each member of a tar.gz, read as one stream (never seeking back), checked,
    then written by `writer`."""
    with gzip.GzipFile(fileobj=source, mode="rb") as unzipped:
        stream = _Capped(unzipped, _most_archive_bytes(writer.limits), writer.shown)
        archive = writer.decoding("tar.gz", lambda: tarfile.open(
            fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape"))
        with archive:
            while (member := writer.decoding("tar.gz", archive.next)) is not None:
                if writer.leaves_out(member.name):
                    continue
                _check_text(member.name)
                shown = _shown(member.name)
                parts = _parts(member.name, shown)
                kind = _tar_kind(member, shown)
                _data_filter(member, writer, shown)
                writer.place(parts, kind, shown, lambda: archive.extractfile(member))


def _tar_kind(member: tarfile.TarInfo, shown: str) -> str:
    """A file or a folder; a link of either kind, a device, a FIFO or anything
    else tar can hold is refused."""
    if member.issym():
        raise Refused(MEMBER_LINK.format(member=shown))
    if member.islnk():
        raise Refused(MEMBER_HARD_LINK.format(member=shown))
    if member.ischr() or member.isblk():
        raise Refused(MEMBER_DEVICE.format(member=shown))
    if member.isfifo():
        raise Refused(MEMBER_FIFO.format(member=shown))
    if member.isdir():
        return _FOLDER
    if member.isreg():
        return _FILE
    raise Refused(MEMBER_SPECIAL.format(member=shown, what=f"tar type {member.type!r}"))


def _data_filter(member: tarfile.TarInfo, writer: "_Writer", shown: str) -> None:
    """A second opinion where this Python has tarfile's "data" filter (3.12, and
    some 3.10 and 3.11 releases): the checks above never rely on it."""
    data_filter = getattr(tarfile, "data_filter", None)
    if data_filter is None:
        return
    try:
        data_filter(member, str(writer.into))
    except tarfile.TarError as error:
        raise Refused(MEMBER_FILTERED.format(member=shown, detail=_one_line(error))) from None


def _plain_text(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return not any(unicodedata.category(char) == "Cc" for char in name)


def _check_text(name: str) -> None:
    """A member name must be UTF-8 text with no control character (NUL, newline,
    escape...): it is shown in reports and on terminals."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(MEMBER_NOT_TEXT.format(member=_shown(name))) from None
    if not _plain_text(name):
        raise Refused(MEMBER_CONTROL.format(member=_shown(name)))


def _parts(name: str, shown: str) -> list:
    """The names of the path a member takes below the submission folder: never
    absolute, never '..'; '.' and empty parts ('./a', 'a//b') are dropped."""
    if name.startswith("/"):
        raise Refused(MEMBER_ABSOLUTE.format(member=shown))
    parts = name.split("/")
    if ".." in parts:
        raise Refused(MEMBER_CLIMBS.format(member=shown))
    return [part for part in parts if part not in ("", ".")]


def _shown(name) -> str:
    """A name as one line of plain text: quoted, escapes for what is not
    printable, undecodable bytes shown as bytes, cut when very long."""
    if isinstance(name, str):
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            try:
                name = name.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                name = ascii(name)
    shown = repr(name)
    return shown if len(shown) <= SHOWN_MOST else shown[:SHOWN_MOST] + "..."


def _one_line(error) -> str:
    """A decoder's message as one short line."""
    text = "".join(char if char.isprintable() else " " for char in str(error))
    text = text or type(error).__name__
    return text if len(text) <= SHOWN_MOST else text[:SHOWN_MOST] + "..."


class _Writer:
    """Writes the members of one archive below the descriptor `root`, counting
    what it creates against the limits as tree.copy_tree counts a copy: files
    and folders, folders deep, and bytes really written."""

    def __init__(self, root: int, into: Path, shown: str, limits: Limits, left_out=None):
        self.root, self.into, self.shown, self.limits = root, into, shown, limits
        self.left_out = left_out
        self.members = self.created = self.bytes = 0

    def leaves_out(self, *names) -> bool:
        """Whether a member is left out for a name that is not plain text: only when the
        caller collects them (`left_out`), each counted as a member is."""
        bad = next((name for name in names if not _plain_text(name)), None)
        if bad is None or self.left_out is None:
            return False
        self.members += 1
        if self.members > self.limits.files + 1:
            self._count(self.members, _shown(bad))
        self.left_out.append(_shown(bad))
        return True

    def damaged(self, kind: str, error: BaseException) -> Refused:
        """The refusal of a damaged archive, with the decoder's words when they say more
        than that it is no archive."""
        if str(error).startswith(SAYS_NOT_AN_ARCHIVE):
            return Refused(NOT_ONE_AT_ALL.format(archive=self.shown, kind=kind))
        return Refused(NOT_AN_ARCHIVE.format(archive=self.shown, kind=kind,
                                             detail=_one_line(error)))

    def decoding(self, kind: str, step):
        """`step()`, a damaged archive's error made a refusal."""
        try:
            return step()
        except Refused:
            raise
        except DAMAGED as error:
            raise self.damaged(kind, error) from None

    def place(self, parts: list, kind: str, shown: str, open_data) -> None:
        """Create one member: a folder, or a file with the data `open_data()` gives.
        Members are counted too, those that create nothing as well (a folder named
        again and again), with one more allowed: a tar's './' is the root itself."""
        self.members += 1
        if self.members > self.limits.files + 1:
            self._count(self.members, shown)
        if not parts:
            if kind == _FOLDER:
                return  # the submission folder itself ('.', './')
            raise Refused(MEMBER_NAMES_NOTHING.format(member=shown))
        folders = len(parts) if kind == _FOLDER else len(parts) - 1
        if folders >= self.limits.depth:
            raise Refused(TOO_DEEP.format(member=shown, most=self.limits.depth))
        if kind == _FOLDER:
            os.close(self._folder(parts, shown))
            return
        folder = self._folder(parts[:-1], shown)
        try:
            with _name_errors(shown):
                out = os.open(parts[-1], NEW_FILE, 0o600, dir_fd=folder)
        finally:
            os.close(folder)
        try:
            os.fchmod(out, 0o600)
            self.created += 1
            self._count(self.created, shown)
            self._copy(open_data, out, shown)
        finally:
            os.close(out)

    def _count(self, count: int, shown: str) -> None:
        if count > self.limits.files:
            raise Refused(TOO_MANY_FILES.format(archive=self.shown, most=self.limits.files,
                                                member=shown))

    def _folder(self, parts: list, shown: str) -> int:
        """A descriptor of the folder `parts` below the root, each missing folder
        made 0o700 on the way; a link or a file on the way is refused, never followed."""
        fd = os.dup(self.root)
        try:
            for part in parts:
                try:
                    with _name_errors(shown, exists_ok=True):
                        os.mkdir(part, 0o700, dir_fd=fd)
                    made = True
                except FileExistsError:
                    made = False  # there already: it must be a folder, as opened next
                try:
                    child = os.open(part, FOLDER, dir_fd=fd)
                except OSError as error:
                    if error.errno in NAME_ERRNOS:
                        raise Refused(MEMBER_THROUGH.format(member=shown)) from None
                    raise
                os.close(fd)
                fd = child
                if made:
                    os.fchmod(fd, 0o700)
                    self.created += 1
                    self._count(self.created, shown)
            return fd
        except BaseException:
            os.close(fd)
            raise

    def _copy(self, open_data, out: int, shown: str) -> None:
        """Copy a member's data, counting the bytes read, not the size claimed,
        and writing none past the limit."""
        data = self._reading(shown, open_data)
        try:
            while True:
                room = self.limits.bytes - self.bytes
                chunk = self._reading(shown, lambda: data.read(min(CHUNK, room + 1)))
                if not chunk:
                    return
                if len(chunk) > room:
                    raise Refused(TOO_LARGE.format(archive=self.shown, most=self.limits.bytes,
                                                   member=shown))
                view = memoryview(chunk)
                while view:
                    view = view[os.write(out, view):]
                self.bytes += len(chunk)
        finally:
            self._reading(shown, data.close)

    @staticmethod
    def _reading(shown: str, step):
        try:
            return step()
        except Refused:
            raise
        except DAMAGED as error:
            raise Refused(MEMBER_UNREADABLE.format(member=shown, detail=_one_line(error))) from None


class _name_errors:
    """An error the archive's names caused (too long, already there, not a
    folder) made a refusal; any other (a full disk) is the marker's and passes."""

    def __init__(self, shown: str, exists_ok: bool = False):
        self.shown, self.exists_ok = shown, exists_ok

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if self.exists_ok and isinstance(error, FileExistsError):
            return False
        if isinstance(error, OSError) and error.errno in NAME_ERRNOS:
            message = MEMBER_AGAIN if error.errno == errno.EEXIST else MEMBER_UNWRITABLE
            raise Refused(message.format(member=self.shown, reason=error.strerror)) from None
        return False
