"""Copying a submission and removing what a run wrote, safely against the
submission's own tricks: every walk holds a file descriptor of the folder it
is in and opens the next name relative to it without following a link, so no
link swapped in at any depth leads the marker elsewhere; and every walk is a
loop, not a recursion, so no depth crashes the marker."""

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO must not wait for a writer; it is then left out.
FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
CHUNK = 1 << 20
MOST_NAMED = 2_000  # left-out paths a copy names, as many as the files it may hold

LINK = "link"
NOT_PLAIN = "not a plain file"
UNREADABLE_FILE = "unreadable"
LINK_REFUSED = "{path} is a link; give the folder itself"
NOT_A_FOLDER = "{path} is not a folder"
AN_ARCHIVE = ("{path} is an archive, not a folder: unpack it and give its folder, or mark "
              "it with exactmark class, which unpacks each student's archive")
ARCHIVES = (".zip", ".tar.gz", ".tgz")  # what a learning platform hands in
UNREADABLE = "{path} cannot be read: {reason}"
TOO_MANY_FILES = "{path} holds more than {most} files and folders: leave out what the programs do not need"
TOO_DEEP = "{path} has folders nested more than {most} deep: no submission needs that"
TOO_LARGE = "{path} holds more than {most_mib} MiB: leave out the data the programs do not need"


class Refused(ValueError):
    """A submission the marker will not copy, with a message for the person marking."""


@dataclass(frozen=True)
class Limits:
    files: int = 2_000
    depth: int = 20
    bytes: int = 64 << 20


@dataclass
class Copied:
    """What a copy holds, and what it left out and why: counted, and named (the first
    MOST_NAMED), so that what reads the copy can say why a file it looks for is not there."""
    files: int = 0
    bytes: int = 0
    left_out: dict = field(default_factory=dict)  # reason -> count
    named: dict = field(default_factory=dict)  # path relative to the copy's top -> reason

    def leave_out(self, reason: str, path: Path = None) -> None:
        self.left_out[reason] = self.left_out.get(reason, 0) + 1
        if path is not None and len(self.named) < MOST_NAMED:
            self.named[path] = reason

    def described(self) -> str:
        """What was left out, as a report says it: "2 hidden, 1 link"."""
        return ", ".join(f"{count} {reason}" for reason, count in sorted(self.left_out.items()))


def open_folder(path: Path) -> int:
    """A descriptor of `path`, refused when it is a link or not a folder."""
    try:
        return os.open(path, FOLDER)
    except OSError as error:
        if os.path.islink(path):
            raise Refused(LINK_REFUSED.format(path=path)) from None
        if error.errno == errno.ENOTDIR and str(path).lower().endswith(ARCHIVES):
            raise Refused(AN_ARCHIVE.format(path=path)) from None
        if error.errno in (errno.ENOTDIR, errno.ENOENT):
            raise Refused(NOT_A_FOLDER.format(path=path)) from None
        raise Refused(UNREADABLE.format(path=path, reason=error.strerror)) from None


def copy_tree(source: Path, target: Path, skip=lambda name: None, limits: Limits = Limits(),
              file_mode=lambda mode: mode & 0o700 | 0o600) -> Copied:
    """Copy the plain files and folders under `source` into the existing folder
    `target`: links, FIFOs, sockets and devices are left out, and so is every
    name for which `skip(name)` gives a reason. Past the limits: `Refused`."""
    copied = Copied()
    source_fd, target_fd = open_folder(source), os.open(target, FOLDER)
    frames = [(source_fd, target_fd, _entries(source_fd), Path())]
    try:
        while frames:
            source_fd, target_fd, entries, below = frames[-1]
            entry = next(entries, None)
            if entry is None:
                os.close(source_fd)
                os.close(target_fd)
                frames.pop()
                continue
            reason = skip(entry.name)
            if reason:
                copied.leave_out(reason, below / entry.name)
                continue
            copied.files += 1
            if copied.files > limits.files:
                raise Refused(TOO_MANY_FILES.format(path=source, most=limits.files))
            if entry.is_dir(follow_symlinks=False):
                if len(frames) >= limits.depth:
                    raise Refused(TOO_DEEP.format(path=source, most=limits.depth))
                child = _open_child(entry.name, source_fd, FOLDER)
                if child is None:
                    copied.files -= 1
                    copied.leave_out(UNREADABLE_FILE, below / entry.name)
                    continue
                os.mkdir(entry.name, 0o700, dir_fd=target_fd)
                frames.append((child, os.open(entry.name, FOLDER, dir_fd=target_fd),
                               _entries(child), below / entry.name))
            elif entry.is_file(follow_symlinks=False):
                size = _copy_file(entry.name, source_fd, target_fd, file_mode,
                                  limits.bytes - copied.bytes)
                if isinstance(size, str):
                    copied.files -= 1
                    copied.leave_out(size, below / entry.name)
                elif copied.bytes + size > limits.bytes:
                    raise Refused(TOO_LARGE.format(path=source, most_mib=limits.bytes >> 20))
                else:
                    copied.bytes += size
            else:
                copied.files -= 1
                copied.leave_out(LINK if entry.is_symlink() else NOT_PLAIN, below / entry.name)
    finally:
        for source_fd, target_fd, _, _ in frames:
            os.close(source_fd)
            os.close(target_fd)
    return copied


def _entries(folder):  # a descriptor or a path
    with os.scandir(folder) as listing:
        yield from listing


def _open_child(name: str, folder_fd: int, flags: int):
    try:
        return os.open(name, flags, dir_fd=folder_fd)
    except OSError:
        return None


def copy_file(source: Path, target: Path, room: int,
              file_mode=lambda mode: mode & 0o700 | 0o600):
    """Copy the plain file `source` to the new name `target` in an existing folder, as
    copy_tree copies each file (its folder opened without following a link, nor the file
    itself), reading at most `room` + 1 bytes: the bytes read, or why it was left out."""
    source_fd, target_fd = open_folder(source.parent), os.open(target.parent, FOLDER)
    try:
        return _copy_file(source.name, source_fd, target_fd, file_mode, room, target.name)
    finally:
        os.close(source_fd)
        os.close(target_fd)


def _copy_file(name: str, source_fd: int, target_fd: int, file_mode, room: int,
               target: str = None):
    """Copy one plain file (to the name `target`, else its own), reading at most `room` + 1
    bytes (its size as read, not as listed, is what counts); or why it was left out."""
    fd = _open_child(name, source_fd, FILE)
    if fd is None:
        return UNREADABLE_FILE
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped for something else since it was listed
            return NOT_PLAIN
        written = 0
        out = os.open(target or name, NEW_FILE, file_mode(stat.S_IMODE(mode)),
                      dir_fd=target_fd)
        try:
            while written <= room and (chunk := os.read(fd, CHUNK)):
                written += len(chunk)
                os.write(out, chunk)
        finally:
            os.close(out)
        return written
    finally:
        os.close(fd)


def tree_bytes(folder: Path) -> int:
    """The bytes of the plain files under a folder the marker made (no link in it)."""
    total, pending = 0, [folder]
    while pending:
        for entry in _entries(pending.pop()):
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            else:
                total += entry.stat(follow_symlinks=False).st_size
    return total


def remove_tree(path: Path) -> None:
    """Remove `path` and all below it, however deep, never following a link.
    Meant for a folder that nothing writes to any more."""
    try:
        parent = os.open(path.parent, FOLDER)
    except OSError:
        return
    try:
        if not _is_folder(path.name, parent):
            _unlink(path.name, parent)
            return
        _empty_and_remove(path.name, parent)
    finally:
        os.close(parent)


def _is_folder(name: str, folder_fd: int) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _unlink(name: str, folder_fd: int) -> None:
    try:
        os.unlink(name, dir_fd=folder_fd)
    except FileNotFoundError:
        pass


def _empty_and_remove(top: str, parent: int) -> None:
    """Descend one folder at a time, holding one descriptor; climb back by '..',
    which nothing can redirect once no process writes there."""
    names = [top]
    fd = _open_to_empty(top, parent)
    try:
        while True:
            deeper, removed = None, False
            for entry in _entries(fd):
                if entry.is_dir(follow_symlinks=False):
                    deeper = deeper or entry.name
                else:
                    _unlink(entry.name, fd)
                    removed = True
            if deeper is not None:
                child = _open_to_empty(deeper, fd)
                os.close(fd)
                fd = child
                names.append(deeper)
            elif not removed:  # a pass that found nothing: this folder is empty
                name = names.pop()
                up = os.open("..", FOLDER, dir_fd=fd) if names else os.dup(parent)
                os.close(fd)
                fd = up
                os.rmdir(name, dir_fd=fd)
                if not names:
                    return
    finally:
        os.close(fd)


def _open_to_empty(name: str, folder_fd: int) -> int:
    """Open a folder to empty it; one its owner made unreadable, or read-only, is opened
    up first (root needs no such help, the owner does: a student's checker runs as them)."""
    try:
        fd = os.open(name, FOLDER, dir_fd=folder_fd)
    except PermissionError:
        if not _is_folder(name, folder_fd):
            raise
        os.chmod(name, 0o700, dir_fd=folder_fd)
        return os.open(name, FOLDER, dir_fd=folder_fd)
    if os.geteuid() != 0:
        try:
            os.fchmod(fd, 0o700)  # by its descriptor: no link is followed
        except OSError:
            pass  # not ours: what we may not remove stays
    return fd
