"""The marker's walks over what a submission holds: a copy that follows no link
and stops at its limits, a removal that no depth or mode defeats."""

import os
from pathlib import Path

import pytest

from exactmark.base.tree import Limits, Refused, copy_tree, remove_tree


def tree(root: Path, files: dict) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return root


def listing(root: Path) -> list:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


def test_a_copy_holds_plain_files_and_folders_only(tmp_path):
    source = tree(tmp_path / "source", {"a.py": b"print(1)\n", "pkg/b.py": b"", ".git/HEAD": b"x"})
    (source / "link").symlink_to("/etc/hostname")
    (source / "pkg" / "folder_link").symlink_to(source)
    os.mkfifo(source / "pipe")
    target = tmp_path / "target"
    target.mkdir()
    copied = copy_tree(source, target, skip=lambda name: "hidden" if name.startswith(".") else None)
    assert listing(target) == ["a.py", "pkg", "pkg/b.py"]
    assert copied.left_out == {"hidden": 1, "link": 2, "not a plain file": 1}
    assert (copied.files, copied.bytes) == (3, 9)


def test_a_link_given_as_the_submission_is_refused(tmp_path):
    real = tree(tmp_path / "real", {"a.py": b""})
    (tmp_path / "alias").symlink_to(real)
    with pytest.raises(Refused, match="is a link; give the folder itself"):
        copy_tree(tmp_path / "alias", tmp_path)


@pytest.mark.parametrize("name, said", [
    ("ann.zip", "ann.zip is an archive, not a folder: unpack it and give its folder, or mark it "
                "with exactmark class"),
    ("ann.py", "ann.py is not a folder")])
def test_a_file_given_as_the_submission_is_refused_with_what_to_give(tmp_path, name, said):
    (tmp_path / name).write_bytes(b"PK\x05\x06" + bytes(18))
    with pytest.raises(Refused) as refused:
        copy_tree(tmp_path / name, tmp_path / "copy")
    assert str(refused.value).replace(f"{tmp_path}/", "").startswith(said), refused.value


@pytest.mark.parametrize("limits, files, message", [
    (Limits(files=3), {f"f{n}": b"" for n in range(4)}, "more than 3 files and folders"),
    (Limits(bytes=10), {"big": b"x" * 11}, "more than 0 MiB"),
    (Limits(depth=3), {"a/b/c/d": b""}, "nested more than 3 deep"),
])
def test_a_submission_past_the_limits_is_refused(tmp_path, limits, files, message):
    source = tree(tmp_path / "source", files)
    (tmp_path / "target").mkdir()
    with pytest.raises(Refused, match=message):
        copy_tree(source, tmp_path / "target", limits=limits)


def deep_folder(root: Path, depth: int, beside=None) -> Path:
    """`root`/d/d/... `depth` deep (deeper than a path can name), each level also
    holding a link to `beside` when given."""
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        if beside is not None:
            os.symlink(str(beside), "link", dir_fd=fd)
        child = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)
    return root


def test_a_deep_submission_is_refused_without_recursing(tmp_path):
    deep = deep_folder(tmp_path / "source", 1200)
    (tmp_path / "target").mkdir()
    with pytest.raises(Refused, match="nested more than 20 deep"):
        copy_tree(deep, tmp_path / "target")
    remove_tree(deep)  # pytest's own clean-up recurses, and would fail on it


def test_removal_reaches_any_depth_and_follows_no_link(tmp_path):
    keep = tree(tmp_path / "keep", {"precious": b"keep me"})
    doomed = deep_folder(tmp_path / "doomed", 3000, beside=keep)
    remove_tree(doomed)
    assert not doomed.exists()
    assert (keep / "precious").read_bytes() == b"keep me"


def test_removal_opens_up_folders_their_owner_locked(tmp_path):
    doomed = tree(tmp_path / "doomed", {"locked/inner/file": b"x"})
    (doomed / "locked" / "inner").chmod(0)
    (doomed / "locked").chmod(0)
    remove_tree(doomed)
    assert not doomed.exists()


def test_a_tree_s_bytes_are_its_plain_files(tmp_path):
    from exactmark.base.tree import tree_bytes

    source = tree(tmp_path / "source", {"a.py": b"12345", "pkg/b.py": b"678", "pkg/deep/c": b""})
    assert tree_bytes(source) == 8
