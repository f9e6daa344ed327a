"""A class folder's entries made into submission folders: each hostile archive
below is built here, member by member, and each is refused with a one-line
reason naming the member, leaving nothing behind, in the submission folder or
outside it."""

import io
import os
import stat
import struct
import tarfile
import time
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from exactmark.classroom.unpack import (ARCHIVE_KIND, FOLDER_KIND, REFUSED_KIND, STUDENT_ARCHIVES, entries,
                              student_name, unpack)
from exactmark.base.tree import Limits, Refused, copy_tree


@dataclass
class Member:
    kind: str  # file, folder, symlink, hardlink, fifo, device, socket
    name: str
    data: bytes = b""
    mode: int = 0o644
    target: str = ""


def file(name, data=b"", mode=0o644):
    return Member("file", name, data, mode)


def folder(name, mode=0o755):
    return Member("folder", name, mode=mode)


def symlink(name, target):
    return Member("symlink", name, target=target)


def hard_link(name, target):
    return Member("hardlink", name, target=target)


def fifo(name):
    return Member("fifo", name)


def device(name):
    return Member("device", name)


def socket(name):
    return Member("socket", name)


ZIP_TYPES = {"file": stat.S_IFREG, "folder": stat.S_IFDIR, "symlink": stat.S_IFLNK,
             "fifo": stat.S_IFIFO, "device": stat.S_IFCHR, "socket": stat.S_IFSOCK}
TAR_TYPES = {"file": tarfile.REGTYPE, "folder": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE,
             "hardlink": tarfile.LNKTYPE, "fifo": tarfile.FIFOTYPE, "device": tarfile.CHRTYPE}


def archive(path: Path, *members: Member) -> Path:
    """A .zip or a .tar.gz holding exactly `members`, as a hostile tool could write it."""
    if path.name.endswith(".zip"):
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as made:
            for member in members:
                info = zipfile.ZipInfo(member.name, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = (ZIP_TYPES[member.kind] | member.mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                made.writestr(info, member.target.encode() if member.target else member.data)
    else:
        with tarfile.open(path, "w:gz", encoding="utf-8", errors="surrogateescape") as made:
            for member in members:
                made.addfile(tar_info(member), io.BytesIO(member.data))
    return path


def tar_info(member: Member) -> tarfile.TarInfo:
    info = tarfile.TarInfo(member.name)
    info.type = TAR_TYPES[member.kind]
    info.size = len(member.data)
    info.mode, info.linkname = member.mode, member.target
    info.mtime, info.uid, info.gid, info.uname = 0, 4242, 4242, "mallory"
    return info


def everything(root: Path) -> set:
    """Every name below `root`, links not followed."""
    found = set()
    for folder, folders, files in os.walk(root):
        found.update(os.path.relpath(os.path.join(folder, name), root) for name in folders + files)
    return found


def refused(tmp_path: Path, built: Path, mentions: str, limits: Limits = Limits()) -> str:
    """Unpack `built`, expecting a refusal whose one-line reason holds `mentions`,
    and nothing written anywhere."""
    into = tmp_path / "out" / "ann"
    into.parent.mkdir(exist_ok=True)
    before = everything(tmp_path)
    with pytest.raises(Refused) as refusal:
        unpack(built, into, limits)
    reason = str(refusal.value)
    assert mentions in reason
    assert "\n" not in reason
    assert not into.exists()
    assert everything(tmp_path) == before
    return reason


FORMATS = ["ann.zip", "ann.tar.gz"]


@pytest.fixture
def written(monkeypatch):
    """The bytes unpack really writes, counted at os.write."""
    count = {"bytes": 0}
    real_write = os.write

    def counting(fd, data):
        done = real_write(fd, data)
        count["bytes"] += done
        return done

    monkeypatch.setattr(os, "write", counting)
    return count


# What is unpacked, and how.

@pytest.mark.parametrize("name", FORMATS + ["ann.tgz"])
def test_an_archive_becomes_plain_files_and_folders_only_the_marker_can_read(tmp_path, name):
    built = archive(tmp_path / name,
                    file("hello.py", b"print('hi')\n", mode=0o4777),
                    folder("pkg/", mode=0o777),
                    file("pkg/util.py", b"x = 1\n", mode=0o755),
                    file("deep/er/no_folder_entry.py", b""))
    into = tmp_path / "ann"
    unpack(built, into)
    assert everything(into) == {"hello.py", "pkg", "pkg/util.py", "deep", "deep/er",
                                "deep/er/no_folder_entry.py"}
    assert (into / "hello.py").read_bytes() == b"print('hi')\n"
    assert (into / "pkg" / "util.py").read_bytes() == b"x = 1\n"
    for path in [into, *into.rglob("*")]:
        status = path.lstat()
        assert stat.S_IMODE(status.st_mode) == (0o700 if path.is_dir() else 0o600), path
        assert status.st_uid == os.getuid()  # never the archive's owner
        assert status.st_mtime > time.time() - 3600  # never the archive's time (1970, 1980)


def test_a_tar_made_from_inside_its_folder_names_its_members_dot_slash(tmp_path):
    built = archive(tmp_path / "ann.tgz", folder("."), file("./main.py", b"1"),
                    folder("./pkg"), file("./pkg/a.py"))
    unpack(built, tmp_path / "ann")
    assert everything(tmp_path / "ann") == {"main.py", "pkg", "pkg/a.py"}


def test_what_unpack_accepts_a_copy_accepts_at_the_same_limits(tmp_path):
    limits = Limits(files=4, depth=3)
    unpack(archive(tmp_path / "ann.zip", file("a/b/c.py"), file("d.py")), tmp_path / "ann", limits)
    (tmp_path / "copy").mkdir()
    copied = copy_tree(tmp_path / "ann", tmp_path / "copy", limits=limits)
    assert copied.files == 4


# Members that would land outside the submission folder.

@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("member", ["../escape", "a/../../b", "..", "a/.."])
def test_a_member_climbing_out_with_dot_dot_is_refused(tmp_path, name, member):
    reason = refused(tmp_path, archive(tmp_path / name, file("fine.py"), file(member, b"x")),
                     repr(member))
    assert "'..'" in reason


@pytest.mark.parametrize("name", FORMATS)
def test_a_member_with_an_absolute_path_is_refused(tmp_path, name):
    target = str(tmp_path / "planted.py")
    refused(tmp_path, archive(tmp_path / name, file(target, b"x")), repr(target))
    assert not Path(target).exists()


def test_a_zip_made_on_windows_cannot_climb_out_with_backslashes(tmp_path):
    refused(tmp_path, archive(tmp_path / "ann.zip", file("..\\escape", b"x")), repr("..\\escape"))


def test_a_zip_made_on_windows_has_its_backslashes_read_as_folders(tmp_path):
    unpack(archive(tmp_path / "ann.zip", file("pkg\\a.py", b"1")), tmp_path / "ann")
    assert everything(tmp_path / "ann") == {"pkg", "pkg/a.py"}


class RawName(zipfile.ZipInfo):
    """A member whose name is written as the given bytes, the UTF-8 flag (bit 0x800) clear:
    as Windows's own zip tools write a name (cp437), and as some Linux and macOS tools write
    a UTF-8 one."""

    def __init__(self, raw: bytes):
        super().__init__(raw.decode("cp437"), date_time=(1980, 1, 1, 0, 0, 0))
        self.raw = raw

    def _encodeFilenameFlags(self):  # what zipfile writes in both headers
        return self.raw, self.flag_bits & ~0x800


def raw_zip(path: Path, *members: tuple) -> Path:
    """A zip of (raw name, data) members, every name unflagged."""
    with zipfile.ZipFile(path, "w") as made:
        for raw, data in members:
            made.writestr(RawName(raw), data)
    with zipfile.ZipFile(path) as made:
        assert not any(info.flag_bits & 0x800 for info in made.infolist())
    return path


def test_a_zip_made_on_windows_has_its_cp437_names_and_backslashes_read_as_written(tmp_path):
    """Windows's "Send to compressed folder": names in cp437 (\x83 is â, \x82 is é), no
    UTF-8 flag, backslashes between folders."""
    built = raw_zip(tmp_path / "ann.zip", (b"T\x83che\\solitaire_1.py", b"1"),
                    (b"r\x82sum\x82 d'Ann.txt", b"2"))
    unpack(built, tmp_path / "ann")
    assert everything(tmp_path / "ann") == {"Tâche", "Tâche/solitaire_1.py", "résumé d'Ann.txt"}
    assert (tmp_path / "ann" / "Tâche" / "solitaire_1.py").read_bytes() == b"1"


def test_an_unflagged_name_whose_bytes_are_utf8_is_read_as_utf8(tmp_path):
    """macOS writes names decomposed (NFD: e and a combining accent), often with no flag."""
    name = unicodedata.normalize("NFD", "José O'Brien/solitaire_1 copy.py")
    unpack(raw_zip(tmp_path / "jose.zip", (name.encode("utf-8"), b"x")), tmp_path / "jose")
    assert everything(tmp_path / "jose") == {name.split("/")[0], name}


@pytest.mark.parametrize("raw, said", [(b"..\\\x82vasion.py", "climbs out"),
                                       (b"\\etc\\\x82vasion.py", "is an absolute path")])
def test_a_windows_name_that_climbs_or_is_absolute_is_still_refused(tmp_path, raw, said):
    reason = refused(tmp_path, raw_zip(tmp_path / "ann.zip", (raw, b"x")),
                     repr(raw.decode("cp437")))
    assert said in reason, reason


# Members that are not plain files or folders.

@pytest.mark.parametrize("name", FORMATS)
def test_a_symbolic_link_member_is_refused(tmp_path, name):
    reason = refused(tmp_path, archive(tmp_path / name, symlink("passwords", "/etc/passwd")),
                     "'passwords'")
    assert "symbolic link" in reason


@pytest.mark.parametrize("name", FORMATS)
def test_a_member_through_a_linked_folder_is_refused_at_the_link(tmp_path, name):
    outside = tmp_path / "outside"
    outside.mkdir()
    refused(tmp_path, archive(tmp_path / name, symlink("sub", str(outside)),
                              file("sub/planted.py", b"x")), "'sub'")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("name", FORMATS)
def test_a_member_through_a_file_is_refused(tmp_path, name):
    refused(tmp_path, archive(tmp_path / name, file("sub"), file("sub/a.py")), "'sub/a.py'")


def test_a_hard_link_member_is_refused(tmp_path):
    reason = refused(tmp_path, archive(tmp_path / "ann.tar.gz", file("a.py"),
                                       hard_link("b.py", "/etc/passwd")), "'b.py'")
    assert "hard link" in reason


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("member, said", [(fifo("pipe"), "FIFO"), (device("tty"), "device")])
def test_a_fifo_or_device_member_is_refused(tmp_path, name, member, said):
    reason = refused(tmp_path, archive(tmp_path / name, member), repr(member.name))
    assert said in reason


def test_a_zip_socket_member_is_refused(tmp_path):
    refused(tmp_path, archive(tmp_path / "ann.zip", socket("listen")), "'listen'")


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize("name", FORMATS)
def test_a_member_twice_is_refused(tmp_path, name):
    refused(tmp_path, archive(tmp_path / name, file("a.py", b"1"), file("a.py", b"2")), "'a.py'")


@pytest.mark.parametrize("name", FORMATS)
def test_a_member_name_too_long_for_the_file_system_is_refused(tmp_path, name):
    member = "x" * 300 + ".py"
    reason = refused(tmp_path, archive(tmp_path / name, file(member)), "'xxxxxxxx")
    assert "cannot be written: File name too long" in reason


# Names that are not plain text.

@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("member", ["line\nbreak.py", "bell\a.py", "esc\x1b[2J.py"])
def test_a_member_name_with_a_control_character_is_refused(tmp_path, name, member):
    reason = refused(tmp_path, archive(tmp_path / name, file(member)), repr(member))
    assert "control character" in reason


def test_a_zip_member_name_with_a_nul_is_refused(tmp_path):
    """zipfile cuts a name at its NUL (to 'evil_'): the name it read is checked."""
    built = archive(tmp_path / "ann.zip", file("evil_Xname.py", b"x"))
    built.write_bytes(built.read_bytes().replace(b"evil_Xname.py", b"evil_\0name.py"))
    refused(tmp_path, built, repr("evil_\0name.py"))


def test_a_tar_member_name_with_a_nul_is_refused(tmp_path):
    built = tmp_path / "ann.tar.gz"
    with tarfile.open(built, "w:gz", format=tarfile.PAX_FORMAT) as made:
        info = tar_info(file("evil_Xname.py"))
        info.pax_headers = {"path": "evil_\0name.py"}
        made.addfile(info, io.BytesIO())
    refused(tmp_path, built, repr("evil_\0name.py"))


def test_a_zip_member_name_flagged_utf8_that_is_not_is_refused(tmp_path):
    built = archive(tmp_path / "ann.zip", file("bad_\N{LATIN SMALL LETTER E WITH ACUTE}.py"))
    built.write_bytes(built.read_bytes().replace("\N{LATIN SMALL LETTER E WITH ACUTE}".encode(),
                                                 b"\xff\xfe"))
    refused(tmp_path, built, repr(b"bad_\xff\xfe.py"))


def test_a_tar_member_name_that_is_not_utf8_is_refused(tmp_path):
    built = archive(tmp_path / "ann.tar.gz", file("bad_\udcff.py"))
    refused(tmp_path, built, repr(b"bad_\xff.py"))


# Past the limits.

@pytest.mark.parametrize("name", FORMATS)
def test_more_files_than_the_limit_is_refused(tmp_path, name):
    members = [file(f"f{number}.py") for number in range(4)]
    reason = refused(tmp_path, archive(tmp_path / name, *members), "'f3.py'", Limits(files=3))
    assert "more than 3 files and folders" in reason


def test_folders_made_on_the_way_count_as_files(tmp_path):
    built = archive(tmp_path / "ann.tar.gz", file("a/b/c.py"), file("d.py"))
    refused(tmp_path, built, "'d.py'", Limits(files=3))


def test_a_folder_named_again_and_again_counts_against_the_limit(tmp_path):
    built = archive(tmp_path / "ann.tar.gz", folder("."), *[folder("a")] * 5)
    refused(tmp_path, built, "'a'", Limits(files=3))


@pytest.mark.parametrize("name", FORMATS)
def test_deeper_than_the_limit_is_refused(tmp_path, name):
    reason = refused(tmp_path, archive(tmp_path / name, file("a/b/c.py"), file("a/b/c/d.py")),
                     "'a/b/c/d.py'", Limits(depth=3))
    assert "more than 3 levels deep" in reason


def test_more_bytes_than_the_limit_is_refused_without_writing_past_it(tmp_path, written):
    limits = Limits(bytes=1 << 20)
    built = archive(tmp_path / "ann.tar.gz", file("a.bin", bytes(600 << 10)),
                    file("b.bin", bytes(600 << 10)))
    refused(tmp_path, built, "'b.bin'", limits)
    assert 0 < written["bytes"] <= limits.bytes


ZIP_BOMB_BYTES = 200 << 20


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory) -> bytes:
    """200 MB of zeros in one member, deflated to a few hundred KB."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as made:
        with made.open("zero", "w") as member:
            chunk = bytes(4 << 20)
            for _ in range(ZIP_BOMB_BYTES // len(chunk)):
                member.write(chunk)
    return path.read_bytes()


def test_a_zip_bomb_is_refused_at_the_limit(tmp_path, zip_bomb, written):
    assert len(zip_bomb) < 1 << 20
    built = tmp_path / "ann.zip"
    built.write_bytes(zip_bomb)
    reason = refused(tmp_path, built, "'zero'")
    assert "unpacks to more than" in reason
    assert 0 < written["bytes"] <= Limits().bytes


def test_a_zip_bomb_that_claims_a_small_size_is_refused(tmp_path, zip_bomb, written):
    """The claimed size is forged in both headers: zipfile reads no more than it
    claims, and then finds the data does not match its checksum."""
    claimed = 1000
    forged = bytearray(zip_bomb)
    assert struct.unpack_from("<I", forged, 22)[0] == ZIP_BOMB_BYTES  # the local header
    struct.pack_into("<I", forged, 22, claimed)
    central = forged.rindex(b"PK\x01\x02")
    assert struct.unpack_from("<I", forged, central + 24)[0] == ZIP_BOMB_BYTES
    struct.pack_into("<I", forged, central + 24, claimed)
    built = tmp_path / "ann.zip"
    built.write_bytes(forged)
    assert zipfile.ZipFile(built).getinfo("zero").file_size == claimed
    refused(tmp_path, built, "'zero'")
    assert written["bytes"] <= claimed


def test_a_tar_header_larger_than_any_submission_needs_is_refused_before_it_is_read(tmp_path):
    """tarfile reads a pax header whole: the tar stream is capped before that."""
    built = tmp_path / "ann.tar.gz"
    with tarfile.open(built, "w:gz", format=tarfile.PAX_FORMAT) as made:
        info = tar_info(file("a.py"))
        info.pax_headers = {"comment": "x" * (4 << 20)}
        made.addfile(info, io.BytesIO())
    reason = refused(tmp_path, built, "'ann.tar.gz'", Limits(bytes=1 << 20, files=10))
    assert "headers and data" in reason


def test_an_archive_larger_than_any_submission_within_the_limits_is_refused_unread(tmp_path):
    built = archive(tmp_path / "ann.zip", file("noise.bin", os.urandom(300 << 10)))
    reason = refused(tmp_path, built, "'ann.zip'", Limits(bytes=100 << 10, files=2))
    assert "more than any submission within the limits needs" in reason


def test_a_zip_table_of_contents_past_the_member_limit_is_refused_before_it_is_read(tmp_path):
    built = archive(tmp_path / "ann.zip", *[file(f"{number:04}.py") for number in range(400)])
    reason = refused(tmp_path, built, "'ann.zip'", Limits(files=1))
    assert "table of contents" in reason


# Not an archive at all.

@pytest.mark.parametrize("name, kind", [("ann.zip", "zip"), ("ann.tar.gz", "tar.gz"),
                                        ("ann.tgz", "tar.gz")])
def test_garbage_named_as_an_archive_is_refused_in_one_line_that_says_it_once(tmp_path, name,
                                                                             kind):
    (tmp_path / name).write_bytes(b"\x89PNG\r\n\x1a\n not an archive at all\n" * 10)
    reason = refused(tmp_path, tmp_path / name, repr(name))
    assert reason == f"{name!r} is not a {kind} archive", reason


def test_a_tar_cut_short_is_refused_and_what_it_began_is_removed(tmp_path):
    built = archive(tmp_path / "ann.tar.gz", file("a.py", b"1"),
                    file("b.bin", os.urandom(64 << 10)))
    built.write_bytes(built.read_bytes()[:-(32 << 10)])
    refused(tmp_path, built, "'b.bin'")


def test_an_archive_given_as_a_link_is_refused(tmp_path):
    real = archive(tmp_path / "real.zip", file("a.py"))
    (tmp_path / "ann.zip").symlink_to(real)
    refused(tmp_path, tmp_path / "ann.zip", "'ann.zip' is a link")


# The entries of a class folder.

def test_the_entries_of_a_class_folder_are_its_students_in_name_order(tmp_path):
    roster = tmp_path / "class"
    roster.mkdir()
    (roster / "dan").mkdir()
    archive(roster / "bea.zip", file("a.py"))
    archive(roster / "cal.tar.gz", file("a.py"))
    archive(roster / "ari.tgz", file("a.py"))
    (roster / ".DS_Store").write_bytes(b"")
    (roster / "notes.txt").write_text("marks later")
    (roster / "eli.zip").mkdir()  # a folder, whatever its name says
    assert [(name, path.name, kind, reason) for name, path, kind, reason in entries(roster)
            if name != ".DS_Store"] == [
        ("ari", "ari.tgz", ARCHIVE_KIND, ""), ("bea", "bea.zip", ARCHIVE_KIND, ""),
        ("cal", "cal.tar.gz", ARCHIVE_KIND, ""), ("dan", "dan", FOLDER_KIND, ""),
        ("eli", "eli.zip", FOLDER_KIND, ""),
        ("notes.txt", "notes.txt", REFUSED_KIND,
         "'notes.txt' is neither a folder nor a .zip, .tar.gz or .tgz archive")]
    hidden = next(entry for entry in entries(roster) if entry.path.name == ".DS_Store")
    assert hidden.kind == REFUSED_KIND and "'.DS_Store' is hidden" in hidden.reason


def test_a_linked_entry_of_a_class_folder_is_refused(tmp_path):
    roster = tmp_path / "class"
    roster.mkdir()
    (tmp_path / "elsewhere").mkdir()
    archive(tmp_path / "real.zip", file("a.py"))
    (roster / "eve").symlink_to(tmp_path / "elsewhere")
    (roster / "fay.zip").symlink_to(tmp_path / "real.zip")
    listed = entries(roster)
    assert [(entry.name, entry.kind) for entry in listed] == [("eve", "refused"),
                                                             ("fay", "refused")]
    assert [entry.reason for entry in listed] == [
        "'eve' is a link: give the folder or the archive itself",
        "'fay.zip' is a link: give the folder or the archive itself"]


def test_two_entries_for_one_student_are_both_refused(tmp_path):
    roster = tmp_path / "class"
    roster.mkdir()
    (roster / "ann").mkdir()
    archive(roster / "ann.zip", file("a.py"))
    archive(roster / "bob.tgz", file("a.py"))
    listed = entries(roster)
    assert [(entry.name, entry.path.name, entry.kind) for entry in listed] == [
        ("ann", "ann", "refused"), ("ann.zip", "ann.zip", "refused"),
        ("bob", "bob.tgz", "archive")]
    assert listed[0].reason == "'ann' and 'ann.zip' are for one student, 'ann': keep one"
    assert listed[1].reason == "'ann.zip' and 'ann' are for one student, 'ann': keep one"


def test_an_entry_whose_name_is_not_plain_text_is_refused_and_shown_escaped(tmp_path):
    roster = tmp_path / "class"
    roster.mkdir()
    (roster / "ann\nbob").mkdir()
    [entry] = entries(roster)
    assert (entry.name, entry.kind) == ("ann⟨U+000A⟩bob", "refused")
    assert "\n" not in entry.reason


@pytest.mark.parametrize("name, shown", [
    ("al\u200bice", "al⟨U+200B⟩ice"),  # a zero-width space
    ("\u202eecila", "⟨U+202E⟩ecila"),  # a right-to-left override
    ("Jose\u0301", "Jose⟨U+0301⟩"),  # a decomposed accent
    ("José García", "José García"),  # accents and a space, as most names have them
])
def test_a_name_is_shown_as_the_reports_show_output(tmp_path, name, shown):
    roster = tmp_path / "class"
    roster.mkdir()
    (roster / name).mkdir()
    [entry] = entries(roster)
    assert (entry.name, entry.kind) == (shown, FOLDER_KIND)


@pytest.mark.parametrize("first, second", [
    ("alice", "al\u200bice"), ("José", "Jose\u0301"), ("Ann Lee", "ann lee.zip"),
    ("bob", "ＢＯＢ"), ("cal", "c a l"),
])
def test_two_names_that_are_one_once_normalised_are_both_refused(tmp_path, first, second):
    roster = tmp_path / "class"
    roster.mkdir()
    (roster / first).mkdir()
    (roster / second).mkdir()
    listed = entries(roster)
    assert [entry.kind for entry in listed] == [REFUSED_KIND, REFUSED_KIND], listed
    assert len({entry.name for entry in listed}) == 2, "each row says whose it is"
    for entry in listed:
        assert "one name once accents, letter case, invisible characters and spaces are set " \
               "aside" in entry.reason, entry.reason


def test_a_name_that_spells_out_an_invisible_character_is_not_shown_as_another(tmp_path):
    roster = tmp_path / "class"
    roster.mkdir()
    (roster / "al\u200bice").mkdir()
    (roster / "al⟨U+200B⟩ice").mkdir()
    listed = entries(roster)
    assert [entry.kind for entry in listed] == [REFUSED_KIND, REFUSED_KIND]
    assert all("would be shown alike" in entry.reason for entry in listed)
    assert len({entry.name for entry in listed}) == 2, [entry.name for entry in listed]


def test_the_student_of_an_entry_is_its_name_without_the_archive_suffix():
    assert STUDENT_ARCHIVES == (".zip", ".tar.gz", ".tgz")
    assert [student_name(Path(name)) for name in ["ann.zip", "bob.tar.gz", "cal.TGZ", "dan",
                                                  "eve.gz"]] == ["ann", "bob", "cal", "dan",
                                                                 "eve.gz"]
