"""What the marker and the checker say of a program that is not handed in
(exactmark/kit/programs.py, Program.files), as examples: a link is named only where one
stands in the program's place."""

from pathlib import Path

from exactmark.base.tree import Limits, copy_tree
from exactmark.kit.languages import language
from exactmark.kit.programs import Program, Submitted
from exactmark.kit.submission import skip_reason, why_missing

ECHO = Program("echo", language("python3"), (Submitted("echo.py"),), entry="echo.py")
GREET = Program("greet", language("cpp"), (Submitted("*.cpp", 1, 50),))


def test_a_program_not_handed_in_says_so_and_nothing_of_links(tmp_path):
    (tmp_path / "notes.txt").write_text("echo\n")
    assert ECHO.files(tmp_path) == ([], ["echo.py is not in the submission"])
    assert GREET.files(tmp_path) == ([], ["no *.cpp file is in the submission"])


def test_a_link_in_the_programs_place_is_named_as_not_counting(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "echo.py").write_text("print(input())\n")
    (tmp_path / "echo.py").symlink_to(tmp_path / "elsewhere" / "echo.py")
    assert ECHO.files(tmp_path)[1] == [
        "echo.py is not in the submission (`echo.py` is a link, and a link does not count)"]
    for name in ("a.cpp", "b\x1b[31m.cpp"):
        (tmp_path / name).symlink_to(tmp_path / "elsewhere" / "echo.py")
    assert GREET.files(tmp_path)[1] == [
        "no *.cpp file is in the submission (`a.cpp` and `b⟨U+001B⟩[31m.cpp` are each "
        "a link, and a link does not count)"]


def test_a_link_the_marker_s_copy_left_out_is_named_as_not_counting(tmp_path):
    """The marker and the checker look for programs in a copy that holds no link: what
    the copy left out says where one stood."""
    student, copy = tmp_path / "student", tmp_path / "copy"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "echo.py").write_text("print(input())\n")
    student.mkdir()
    (student / "echo.py").symlink_to(tmp_path / "elsewhere" / "echo.py")
    copy.mkdir()
    copied = copy_tree(student, copy, skip=skip_reason, limits=Limits())
    assert not (copy / "echo.py").exists()
    assert why_missing(copy, ECHO, [ECHO], copied.named) == (
        ["echo.py is not in the submission (`echo.py` is a link, and a link does not count)"], [])
    assert why_missing(copy, ECHO, [ECHO]) == (["echo.py is not in the submission"], [])
    assert Path("echo.py") in copied.named
