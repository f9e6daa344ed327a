"""What a run in the fallback may write on the disk, and the marker's own room there.

Under namespaces a run writes in size-capped tmpfs mounts alone. In the fallback its home
and TMPDIR are folders on the marker's disk, and without Landlock it can write in the
folders every user may write to (/tmp, /var/tmp, /dev/shm...) too: a program that writes
until the disk is full would fail its neighbours' runs and the marker itself. No mount
caps them there (a container has no CAP_SYS_ADMIN; and a mount would cover neither the
shared folders nor a file held open once removed), so a `Watch` bounds each run: every
WATCH_SECONDS it reads how much the file systems the run can write to have grown since
it started (a few statvfs calls), and only once that growth passes the run's share does
it count what the run holds (its folders, what its user owns in the shared ones, the
removed files its processes hold open), and then again once they have grown by the room
it had left; over its share, the run is killed, and judged as its own limit
(exactmark.marking.verdicts), never as wrong output. Before each run, the marker makes sure the
disk has room for what every run at once may write (`ensure_room`); a disk that
has not, or that filled during a run, makes the case a marker error (`DiskFull`), marked
again by the next run, never the student's verdict."""

import errno
import os
import stat
import threading

from exactmark.base import messages
from exactmark.running.limits import mebibytes, processes_of

WATCH_SECONDS = 0.05  # how often the file systems' growth is read: a run may go over by this
FULL_ERRORS = (errno.ENOSPC, errno.EDQUOT)
LEAST_FREE_BYTES = 1 << 20  # below this, the disk filled during a run

DISK_FULL = ("the disk is full: {free} free where the marker keeps its runs, {need} needed "
             "for {runs} run(s) at once (fewer at once need less); marked again next run")
DISK_FILLED = "the disk filled during the run: marked again next run"
FULL_NOTICE = "the disk is full"  # a Notice of its own kind: a class run counts the
# students it hit


class DiskFull(OSError):
    """The disk has no room for a run: the marker's fault, never the student's."""

    def __init__(self, message: str):
        super().__init__(errno.ENOSPC, message)
        messages.send(messages.Notice(FULL_NOTICE, messages.DISK_FULL))

    def __str__(self) -> str:
        return self.strerror


def free(folder) -> tuple:
    """(bytes, files) an unprivileged user may still make on `folder`'s file system."""
    found = os.statvfs(folder)
    return found.f_bavail * found.f_frsize, found.f_favail if found.f_files else None


def ensure_room(folder, share: tuple, runs: int) -> None:
    """DiskFull unless `folder`'s file system has room for `runs` runs at once, each of
    `share` (bytes, files)."""
    room, files = free(folder)
    need_bytes, need_files = share[0] * runs, share[1] * runs
    if room < need_bytes or (files is not None and files < need_files):
        raise DiskFull(DISK_FULL.format(free=mebibytes(room), need=mebibytes(need_bytes),
                                        runs=runs))


def full_error(problem: OSError) -> bool:
    return problem.errno in FULL_ERRORS


class Watch:
    """Kills a run (`kill()`) once what it holds passes its share: `room` (bytes, files)
    beyond `start` (bytes, files: what its home held as it started). What it holds:
    everything in `own` (its home and tmp), what `uid` owns in `shared`, and the removed
    files its processes hold open. `scratch`: where the marker keeps its runs, whose free
    space it notes (`filled`). What a run holds grows no faster than the file systems it
    writes to: so it is counted only once they have grown by the room it had left at the
    last count (or at its start)."""

    def __init__(self, uid: int, own: list, shared: list, room: tuple, start: tuple, kill,
                 scratch):
        self.uid, self.own, self.shared, self.kill = uid, own, shared, kill
        self.room = room
        self.share_bytes, self.share_files = room[0] + start[0], room[1] + start[1]
        self.scratch_device = os.stat(scratch).st_dev
        self.over = self.filled = False
        self.systems = {}  # device -> a folder on it
        for folder in [*own, *shared]:
            try:
                self.systems.setdefault(os.stat(folder).st_dev, folder)
            except OSError:
                continue
        self.before = self._used()  # at the last count, or at the start
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def stop(self) -> bool:
        """Whether the run went over its share: counted once more as it ends, since a run
        can write its all between two looks, and the file systems' growth since the last
        count can hide behind what others removed on the same disk meanwhile."""
        self._stopping.set()
        self._thread.join()
        if not self.over:
            held_bytes, held_files = disk_usage(self.uid, self.own, self.shared, self.share_files)
            self.over = held_bytes > self.share_bytes or held_files > self.share_files
        return self.over

    def _used(self) -> dict:
        """device -> (bytes, files) in use, for each file system the run may write to."""
        used = {}
        for device, folder in self.systems.items():
            try:
                found = os.statvfs(folder)
            except OSError:
                continue
            used[device] = ((found.f_blocks - found.f_bfree) * found.f_frsize,
                            found.f_files - found.f_ffree if found.f_files else None)
            if device == self.scratch_device and found.f_bavail * found.f_frsize < LEAST_FREE_BYTES:
                self.filled = True
        return used

    def _grown(self, now: dict) -> bool:
        """Whether the file systems grew by more than the run's room since the last count
        (or cannot say how many files they hold)."""
        grown_bytes = grown_files = 0
        for device, (used, files) in now.items():
            before, files_before = self.before.get(device, (used, files))
            grown_bytes += max(0, used - before)
            if files is None or files_before is None:
                return True
            grown_files += max(0, files - files_before)
        return grown_bytes > self.room[0] or grown_files > self.room[1]

    def _watch(self) -> None:
        while not self._stopping.wait(WATCH_SECONDS):
            now = self._used()
            if not self._grown(now):
                continue
            held_bytes, held_files = disk_usage(self.uid, self.own, self.shared,
                                          self.share_files)
            if held_bytes > self.share_bytes or held_files > self.share_files:
                self.over = True
                self.kill()
                return
            self.before = now
            self.room = (self.share_bytes - held_bytes, self.share_files - held_files)


def disk_usage(uid: int, own: list, shared: list, most_files: int) -> tuple:
    """(bytes, files) of what a run holds: all in `own`, what `uid` owns in `shared`
    (at any depth below an entry of its), and the removed files its processes hold
    open; each file once, however many names it has. The walk reads names and sizes
    alone, follows no link it lists, and ends past `most_files`: a folder the run swaps
    for a link while it is walked can only make the count larger, its own loss."""
    seen, pending, total = set(), list(own), 0

    def count(info) -> None:
        nonlocal total
        key = (info.st_dev, info.st_ino)
        if key not in seen:
            seen.add(key)
            total += info.st_size if stat.S_ISREG(info.st_mode) else 0

    def listed(folder: str, owner: int = None):
        """Each entry of `folder` (of `owner`'s, when given) with what lstat says of it;
        an entry gone meanwhile is left out, never the rest of the folder."""
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if owner is None or info.st_uid == owner:
                        yield entry.path, info
        except OSError:
            return

    for folder in shared:
        for path, info in listed(folder, uid):
            count(info)
            if stat.S_ISDIR(info.st_mode):
                pending.append(path)
    while pending and len(seen) <= most_files:
        for path, info in listed(pending.pop()):
            count(info)
            if stat.S_ISDIR(info.st_mode):
                pending.append(path)
    for pid in processes_of(uid) if uid >= 0 else []:
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in descriptors:
            try:
                info = os.stat(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 0:
                count(info)
    return total, len(seen)
