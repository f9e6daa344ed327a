"""A build's hostile submissions (issue #33): a file name the compiler's stages would read
as an option or a response file, and every way of turning the compiler's warnings off
that a regex on the source misses. Each is marked from a tiny C++ assignment whose
warnings cost a quarter of what its cases earn (greet, from test_mark_languages): an
attack that works scores 3.00; one that is seen costs its warnings, 2.25, and says why.
The judging itself (exactmark/marking/build.py's `silenced`) is shown on preprocessor output too."""

import shutil
import subprocess

import pytest

from exactmark.marking.build import LINE_MARKERS, RENAMED, SILENCING, SYSTEM_HEADER, silenced
from tests.test_mark_assignments import run_marker
from tests.test_mark_languages import GREET, SAMPLE, put, tiny_assignment

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")

NAME, CODE = GREET["cpp"]
UNUSED = "int unusedHelper() { int unusedVariable; return 0; }\n"  # -Wunused-variable
IGNORED = 'GCC diagnostic ignored "-Wunused-variable"'
TAKES_WARNINGS_OFF = {  # what is appended to greet.cpp, before UNUSED
    "a digraph, %:pragma": f"%:pragma {IGNORED}\n",
    "a comment inside, #/**/pragma": f"#/**/pragma {IGNORED}\n",
    "a backslash-newline inside pragma": f"#pra\\\ngma {IGNORED}\n",
    "_Pragma(#x) through a macro": f"#define QUIET(x) _Pragma(#x)\nQUIET({IGNORED})\n",
    "_Pragma(L\"...\")": '_Pragma(L"GCC diagnostic ignored \\"-Wunused-variable\\"")\n',
    "a #pragma guarded by __has_include of the built program":
        f'#if !__has_include("program")\n#pragma {IGNORED}\n#endif\n',
    "a #pragma guarded by a macro -Wpedantic drops (g++'s __cpp_runtime_arrays)":
        f"#ifdef __cpp_runtime_arrays\n#pragma {IGNORED}\n#endif\n",
    "a raw string whose lines read as a system header's marker and push":
        'const char *fakeMarkers = R"x(\n# 1 "/usr/include/stdio.h" 1 3 4\n'
        f'#pragma GCC diagnostic push\n)x";\n#pragma {IGNORED}\n',
}
STUDENT = "./greet.cpp"


def warned_greet(tmp_path, folder: str, extra: str, files: dict = None,
                 unused: str = UNUSED) -> tuple:
    """(report, results.json) of greet with `extra` and then an unused variable, and the
    other `files`, marked by an assignment where warnings cost 25%."""
    assignment = tiny_assignment(tmp_path, "cpp", extra="warnings = 0.25\n")
    submission = put(tmp_path / folder, {NAME: CODE + extra + unused, **(files or {})})
    _, report, _, written = run_marker(submission, assignment=assignment)
    return report, written


def costs_its_warnings(report: str, written: dict, note: str):
    assert "  build: built in " in report and ", with warnings" in report, report
    assert note in report, f"no note {note!r} in:\n{report}"
    assert "Score: 2.25/3.00" in report, report
    assert written["extra_data"]["programs"]["greet"]["build"]["warnings"] is True


@pytest.mark.parametrize("how", list(TAKES_WARNINGS_OFF))
def test_every_spelling_of_a_pragma_that_turns_warnings_off_costs_them(tmp_path, how):
    report, written = warned_greet(tmp_path, "pragma", TAKES_WARNINGS_OFF[how])
    costs_its_warnings(report, written, SILENCING.format(file=STUDENT))


def test_diagnostic_pragmas_that_turn_no_warning_off_cost_nothing(tmp_path):
    """push, pop, warning and error leave every warning on (error makes one an error):
    an honest student who writes them keeps full marks, and is not told they hid any."""
    stricter = ('#pragma GCC diagnostic push\n#pragma GCC diagnostic error "-Wreturn-type"\n'
                '#pragma GCC diagnostic warning "-Wextra"\n#pragma GCC diagnostic pop\n')
    report, written = warned_greet(tmp_path, "stricter", stricter, unused="")
    assert "Score: 3.00/3.00" in report and "counted as warnings" not in report, report
    assert written["extra_data"]["programs"]["greet"]["build"]["warnings"] is False


def test_a_pragma_in_a_macro_expanded_inside_a_function_costs_the_warnings(tmp_path):
    quiet = '#define QUIET _Pragma("GCC diagnostic ignored \\"-Wunused-variable\\"")\n'
    extra = quiet + "int quietHelper() { QUIET int unusedInside; return 0; }\n"
    report, written = warned_greet(tmp_path, "macro", extra)
    costs_its_warnings(report, written, SILENCING.format(file=STUDENT))


@pytest.mark.parametrize("marker", ['# 1 "x.h" 3', '%: 1 "x.h" 3',
                                    '#include <stdio.h>\n# 1 "/usr/include/stdio.h" 1 3'],
                         ids=["a line marker", "a digraph line marker",
                              "a line marker opening a real system header"])
def test_a_line_marker_that_makes_the_rest_a_system_header_costs_the_warnings(tmp_path, marker):
    """`# 1 "x.h" 3` makes the rest of the file a system header, whose warnings gcc
    hides: no #pragma at all."""
    report, written = warned_greet(tmp_path, "marker", marker + "\n")
    costs_its_warnings(report, written, LINE_MARKERS.format(file=STUDENT))


@pytest.mark.parametrize("include", ['"quiet.h"', "<../../proc/self/cwd/quiet.h>"],
                         ids=["#pragma GCC system_header", "an include through a system folder"])
def test_a_student_s_header_made_a_system_header_costs_the_warnings(tmp_path, include):
    """A header of the student's own that is a system header hides its warnings: by
    `#pragma GCC system_header`, or when it is found through /usr/include (`..` back to
    the build's folder), as gcc treats anything found there."""
    pragma = "#pragma GCC system_header\n" if include == '"quiet.h"' else ""
    header = {"quiet.h": pragma + "inline int headerHelper() { int unusedInHeader; return 0; }\n"}
    report, written = warned_greet(tmp_path, "header", f"#include {include}\n", header,
                                   unused="")
    assert "unusedInHeader" not in report, "the compiler hid the header's warning"
    costs_its_warnings(report, written, "quiet.h" + SYSTEM_HEADER.format(file=""))


def test_line_only_renames_the_file_and_hides_nothing(tmp_path):
    """#line names a system header's file but cannot make one (it takes no flags): the
    compiler's own warning is there, under that name, and nothing else is said."""
    report, _ = warned_greet(tmp_path, "line", '#line 1 "/usr/include/stdio.h"\n')
    assert "/usr/include/stdio.h:1:" in report and "unusedVariable" in report, report
    assert "counted as warnings" not in report and "Score: 2.25/3.00" in report, report


@pytest.mark.parametrize("option", ["-w", "-fplugin=./evil.h"])
def test_a_file_named_at_something_is_no_response_file(tmp_path, option):
    """g++ hands each source's base name to cc1plus as `-dumpbase NAME`, where @X.cpp
    is a response file: X.cpp's words, a comment's among them, become options (-w
    turns every warning off; -fplugin runs a submitted shared object, here evil.h,
    inside the compiler). Compiled as _@X.cpp, neither is read."""
    assignment = tiny_assignment(tmp_path, "cpp", extra="warnings = 0.25\n")
    folder = put(tmp_path / "at", {NAME: CODE, "@X.cpp": UNUSED, "X.cpp": f"// {option}\n"})
    plugin = tmp_path / "evil.c"
    plugin.write_text('#include <stdio.h>\nint plugin_is_GPL_compatible;\n'
                      'int plugin_init(void *a, void *b) '
                      '{ fputs("PLUGIN RAN IN THE COMPILER\\n", stderr); return 0; }\n')
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(folder / "evil.h"), str(plugin)],
                   check=True)
    status, report, _, written = run_marker(folder, assignment=assignment)
    assert "PLUGIN RAN" not in report, report
    note = RENAMED.format(name="@X.cpp", safe="_@X.cpp", first="@")
    assert f"    {note}" in report, report
    assert "_@X.cpp:1:" in report and "unusedVariable" in report, report
    assert "Score: 2.25/3.00" in report, report


def test_a_file_named_like_an_option_is_compiled_under_a_safe_name(tmp_path):
    """-greet.cpp, named so by mistake: compiled as _-greet.cpp (__-greet.cpp, when that
    name is taken), said in one line, its name escaped, and marked as any other."""
    assignment = tiny_assignment(tmp_path, "cpp")
    folder = put(tmp_path / "dash", {"-gr\x1beet.cpp": CODE, "_-gr\x1beet.cpp": "// taken\n"})
    status, report, _, _ = run_marker(folder, assignment=assignment)
    assert status == 0 and "Score: 3.00/3.00" in report, report
    assert "    " + RENAMED.format(name="-gr⟨U+001B⟩eet.cpp", safe="__-gr⟨U+001B⟩eet.cpp",
                                   first="-") in report, report
    assert "\x1b" not in report


def test_the_cpp_sample_builds_without_a_note_or_a_warning(tmp_path):
    """The honest sample: its system headers' own pragmas and their macros (SIGPIPE) count
    for nothing."""
    folder = tmp_path / "sample"
    shutil.copytree(SAMPLE, folder)
    status, report, _, written = run_marker(folder, "--only", "calculation_cpp/short_game",
                                            assignment="calculation_cpp")
    build = written["extra_data"]["programs"]["calculation_cpp"]["build"]
    assert build["ok"] and not build["warnings"] and build["messages"] == "", report
    assert status == 0 and "  build: built in " in report and "with warnings" not in report


PRELUDE = b'# 0 "./a.cpp"\n# 0 "<built-in>"\n# 0 "<command-line>"\n# 1 "./a.cpp"\n'
SYSTEM = b'# 1 "/usr/include/stdio.h" 1 3\n'
BACK = b'# 2 "./a.cpp" 2\n'


@pytest.mark.parametrize("lines, said", [
    (SYSTEM + b'#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored "-Wall"\n'
     b"#pragma GCC diagnostic pop\n" + BACK, ""),
    (SYSTEM + b'#pragma GCC diagnostic ignored "-Wall"\n' + BACK,
     SILENCING.format(file="/usr/include/stdio.h")),
    (SYSTEM + b"#pragma GCC diagnostic push\n#pragma GCC diagnostic push\n"
     b"#pragma GCC diagnostic pop\n" + BACK, SILENCING.format(file="./a.cpp")),
    (b'#pragma clang diagnostic ignored "-Wall"\n', SILENCING.format(file="./a.cpp")),
    (b'# 1 "/home/student/a.h" 1 3\n', SYSTEM_HEADER.format(file="/home/student/a.h")),
    (b'# 1 "/usr/include/../../home/student/a.h" 1 3\n',
     SYSTEM_HEADER.format(file="/usr/include/../../home/student/a.h")),
    (b'# 1 "/usr/bin/X11/../../proc/self/cwd/a.h" 1 3\n',
     SYSTEM_HEADER.format(file="/usr/bin/X11/../../proc/self/cwd/a.h")),
    (b'# 1 "/usr/lib/../include/stdio.h" 1 3\n#pragma GCC diagnostic push\n', ""),
    (b'const char *s = R"x(\n' + SYSTEM + b'#pragma GCC diagnostic push\n)x";\n'
     b'#pragma GCC diagnostic ignored "-Wall"\n', SILENCING.format(file="./a.cpp")),
    (b'auto text = R"(\n#pragma GCC diagnostic ignored "-Wall"\n# 1 "x.h" 3\n)" "R";\n', ""),
], ids=["a system header's push, ignored, pop", "a system header's ignored, never popped",
        "a push of a system header's left open", "clang's pragma",
        "a header in the build's folder, as a system header", "a system folder's ..",
        "through /proc", "a system header named with .. (clang's)",
        "a raw string's lines that read as a system header's",
        "a raw string's text that reads as a pragma and a marker (a program printing C++)"])
def test_a_pragma_counts_by_the_file_it_comes_from(lines, said):
    """Preprocessor output judged (its `#` lines and those that hold a `"`): a system
    header's own pragmas count only when they are left in force for a student's file (a
    student's macro expanded in a system header could put one there); a C++ raw string's
    lines are its text, whatever they read as."""
    assert silenced(PRELUDE + lines, b"./a.cpp", [b"/home/student", b"/home/student"]) == said
