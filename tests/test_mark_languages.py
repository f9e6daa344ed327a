"""Programs in any language the kit's profiles know (exactmark/kit/languages.toml): a tiny C and a
tiny C++ program marked from an assignment made here, whose cases are written by hand;
a build that fails, warns, or reaches for what it may not; and the shipped C++
assignment, calculation_cpp, with its sample solution and a program that loops at the
end of input."""

import csv
import json
import re
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

from exactmark.kit.cases import ROOT
from exactmark.marking.report import KIND_WIDTH
from tests.interrupt import BACKSTOP_SECONDS, sigint_as_at_a_terminal, started_under
from tests.test_mark_assignments import run_marker
from exactmark.kit.variants import read_variant

SAMPLE = ROOT / "references" / "calculation_cpp"
needs = {language: pytest.mark.skipif(shutil.which(compiler) is None,
                                      reason=f"{compiler} is not installed")
         for language, compiler in (("c", "gcc"), ("cpp", "g++"))}

GREET = {  # language -> (file, a right program)
    "c": ("greet.c", """\
        #include <stdio.h>

        int main(void) {
            char name[100];
            printf("Name? ");
            if (scanf("%99s", name) != 1)
                return 0;
            printf("Hello, %s!\\n", name);
            return 0;
        }
        """),
    "cpp": ("greet.cpp", """\
        #include <iostream>
        #include <string>

        int main() {
            std::string name;
            std::cout << "Name? ";
            if (!(std::cin >> name))
                return 0;
            std::cout << "Hello, " << name << "!\\n";
            return 0;
        }
        """),
}
CASES = {"ada": ("Ada\n", "Name? Hello, Ada!\n"), "grace": ("  Grace Hopper\n", "Name? Hello, Grace!\n"),
         "nobody": ("", "Name? ")}


def put(folder, files: dict):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def tiny_assignment(tmp_path, language: str, extra: str = "") -> object:
    """An instructor's assignment outside the kit: greet, in `language`, its reference
    and its three cases (written by hand) beside the assignment file."""
    name, code = GREET[language]
    course = tmp_path / "course"
    put(course / "reference", {name: code})
    put(course / "cases", {f"{case}{suffix}": text for case, (stdin, stdout) in CASES.items()
                           for suffix, text in ((".in", stdin), (".out", stdout))})
    return put(course, {"greet.toml": f"""\
        title = "Greet, in {language}"
        marks = 3
        cpu_seconds = 5

        [[programs]]
        name = "greet"
        language = "{language}"
        reference = "reference"
        cases = "cases"
        {extra}
          [[programs.groups]]
          name = "everyone"
          marks = 3
          cases = ["*"]
          visibility = "visible"
        """}) / "greet.toml"


@pytest.mark.parametrize("language", [pytest.param(name, marks=needs[name]) for name in GREET])
def test_a_tiny_program_is_built_and_marked_in_its_language(tmp_path, language):
    assignment = tiny_assignment(tmp_path, language)
    name, code = GREET[language]
    right = put(tmp_path / "right", {name: code})
    status, report, stderr, written = run_marker(right, assignment=assignment)
    assert status == 0 and "Score: 3.00/3.00" in report, report + stderr
    assert "  build: built in " in report and "[build] greet: built in" in stderr
    limits = next(line for line in report.splitlines() if line.startswith("Limits per run: "))
    assert "Python" not in limits, f"a {language} program's runs name no interpreter: {limits}"
    build = written["extra_data"]["programs"]["greet"]["build"]
    assert build["ok"] and not build["warnings"] and build["seconds"] > 0
    assert [test["name"] for test in written["tests"]] == \
        ["greet: build", "greet/ada", "greet/grace", "greet/nobody"]

    wrong = put(tmp_path / "wrong", {name: code.replace("Hello, ", "Hello ")})
    status, report, _, written = run_marker(wrong, assignment=assignment)
    assert status == 1 and "Score: 1.00/3.00" in report, report
    assert "greet/ada: line 1: replace `Name? Hello Ada!` with `Name? Hello, Ada!`" in report
    assert "greet/grace: line 1: replace `Name? Hello Grace!` with `Name? Hello, Grace!`" in report
    reproduce = {"c": "gcc -std=c17 -O2 -Wall -o program *.c -lm && ./program < ",
                 "cpp": "g++ -std=c++17 -O2 -Wall -o program *.cpp && ./program < "}[language]
    assert f"reproduce, in the submission's folder: {reproduce}" in report, report


@needs["cpp"]
def test_a_file_that_does_not_compile_gets_nothing_and_the_compiler_s_first_errors(tmp_path):
    broken = put(tmp_path / "broken", {"main.cpp": """\
        #include <iostream>
        int main() {
            std::cout << "Welcome \x1b[2J" << std::endl
            return 0;
        }
        """})
    status, report, _, written = run_marker(broken, assignment="calculation_cpp")
    assert status == 1 and "Score: 0.00/20.00" in report
    assert "  build: did not build (the compiler's exit status 1)" in report
    assert re.search(r"main\.cpp:3:\d+: error: expected .;. before .return.", report), report
    assert "\x1b" not in report and "Welcome ⟨U+001B⟩[2J" in report, \
        "the compiler's echo of the source is escaped"
    cases = len(written["tests"]) - 1
    assert f"  {'not built':<{KIND_WIDTH}} (all {cases} cases: 0)" in report
    build, *tests = written["tests"]
    assert build["name"] == "calculation_cpp: build" and build["status"] == "failed"
    assert "error: expected" in build["output"] and "\x1b" not in json.dumps(written)
    assert all(test["status"] == "failed" and test["score"] == 0
               and test["output"].startswith("not built: ") for test in tests)
    assert written["extra_data"]["programs"]["calculation_cpp"]["build"]["ok"] is False


@needs["c"]
@pytest.mark.parametrize("how", ["warned", "silenced"])
def test_warnings_are_shown_and_cost_what_the_assignment_says(tmp_path, how):
    """A warning, or a #pragma that turns the warnings off, costs the stated share of what
    the cases earn: said in the report, the build's test scoring minus that."""
    assignment = tiny_assignment(tmp_path, "c", extra="warnings = 0.25\n")
    name, code = GREET["c"]
    pragma = '#pragma GCC diagnostic ignored "-Wunused-variable"\n' if how == "silenced" else ""
    warned = put(tmp_path / how, {name: pragma + code.replace(
        "char name[100];", "char name[100];\n    int unused;")})
    status, report, _, written = run_marker(warned, assignment=assignment)
    assert "  build: built in " in report and ", with warnings" in report
    if how == "warned":
        assert re.search(r"warning: unused variable .unused.", report), report
    else:
        assert "a #pragma turns the compiler's warnings off: counted as warnings" in report
    assert "greet: 3/3 cases pass, 2.25 of 3.00 marks" in report and "Score: 2.25/3.00" in report
    assert "  build: its warnings cost 25% of what the program's cases earn: -0.75" in report
    build = written["tests"][0]
    assert (build["name"], build["score"], build["max_score"]) == ("greet: build", -0.75, 0)
    assert sum(test["score"] for test in written["tests"]) == pytest.approx(written["score"])
    assert written["extra_data"]["programs"]["greet"]["build"]["warnings"] is True


@needs["cpp"]
def test_the_build_sees_the_program_s_files_alone(tmp_path):
    """A file handed in that the assignment does not name is not there for the compiler:
    what is compiled is what the marker marks and the similarity scan reads."""
    assignment = tiny_assignment(tmp_path, "cpp")
    name, code = GREET["cpp"]
    folder = put(tmp_path / "smuggled", {name: '#include "extra.inc"\n' + code,
                                         "extra.inc": "// more code\n"})
    status, report, _, _ = run_marker(folder, assignment=assignment)
    assert "  build: did not build (the compiler's exit status 1)" in report
    assert re.search(r"extra\.inc: No such file or directory", report), report


@needs["cpp"]
def test_a_flood_of_compiler_messages_is_capped_and_said(tmp_path):
    assignment = tiny_assignment(tmp_path, "cpp")
    name, code = GREET["cpp"]
    flood = "".join(f"undeclared_{number} = 1;\n" for number in range(30000))
    folder = put(tmp_path / "flood", {name: code + "void f() {\n" + flood + "}\n"})
    status, report, _, written = run_marker(folder, assignment=assignment)
    assert "  build: did not build (the compiler wrote more than 1 MiB of messages)" in report
    assert "... " in report and "more lines" in report and len(report) < 20000


@needs["cpp"]
def test_a_program_larger_than_a_run_s_file_limit_still_builds(tmp_path):
    assignment = tiny_assignment(tmp_path, "cpp")
    name, code = GREET["cpp"]
    folder = put(tmp_path / "large", {name: "char big[20 << 20] = {1};\n" + code})
    status, report, _, _ = run_marker(folder, assignment=assignment)
    assert status == 0 and "Score: 3.00/3.00" in report, report


@needs["cpp"]
def test_ctrl_c_during_a_build_ends_the_marking_cleanly(tmp_path):
    """A slow build stopped by Ctrl-C: no case is "not built", none counted, the report
    says the marking was interrupted, and no traceback."""
    name, code = GREET["cpp"]
    slow = "".join(f"int f{n}(int x) {{ return x * {n} + (x >> {n % 7}) - {n}; }}\n"
                   for n in range(40000))
    folder = put(tmp_path / "slow", {name: slow + code})
    assignment = tiny_assignment(tmp_path, "cpp")
    process = subprocess.Popen([sys.executable, "-m", "exactmark.marking.mark", str(folder),
                                "--assignment", str(assignment)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=sigint_as_at_a_terminal)
    started_under(process, name)  # the compiler is at work on it
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=BACKSTOP_SECONDS)
    assert b"Traceback" not in err, err.decode()
    assert process.returncode == 130, (process.returncode, out.decode(), err.decode())
    report = out.decode()
    assert "not built" not in report and "Interrupted" in report, report


def test_a_file_counts_for_the_first_kind_it_matches():
    from exactmark.kit.languages import language
    from exactmark.kit.programs import Program, Submitted

    program = Program("game", language("cpp"), (Submitted("main.cpp"), Submitted("*.cpp", 0, 1)))
    folder = ROOT / "references" / "calculation_cpp"
    assert program.files(folder) == (["main.cpp", "calculation.cpp"], [])


@pytest.mark.parametrize("submit, said", [
    ('[{ files = "main.py" }]', "its entry greet.py is none of the files it must submit"),
    ('[{ files = "greet.py", most = 2 }]', "greet.py: at least 1 and at most 2 cannot be"),
    ('[{ files = "*.py", least = 3, most = 2 }]', "*.py: at least 3 and at most 2 cannot be"),
])
def test_a_submit_list_that_cannot_be_met_is_refused_when_the_assignment_loads(tmp_path, submit,
                                                                                said):
    from exactmark.kit.assignment import AssignmentError, load

    assignment = tiny_assignment(tmp_path, "c")
    text = assignment.read_text().replace('language = "c"', f'language = "python3"\nsubmit = {submit}')
    assignment.write_text(text)
    with pytest.raises(AssignmentError, match=re.escape(said)):
        load(str(assignment))


@needs["cpp"]
def test_only_files_the_assignment_names_are_compiled_and_a_link_is_none(tmp_path):
    assignment = tiny_assignment(tmp_path, "cpp")
    name, code = GREET["cpp"]
    folder = put(tmp_path / "linked", {"notes.txt": "int main() { return 1; }\n"})
    (folder / name).symlink_to(tmp_path / "course" / "reference" / name)
    status, report, _, _ = run_marker(folder, assignment=assignment)
    assert status == 1 and (f"no *.cpp file is in the submission (`{name}` is a link, and a "
                            "link does not count)") in report, report
    folder = put(tmp_path / "two", {name: code, "other.cpp": "int main() { return 1; }\n"})
    status, report, _, _ = run_marker(folder, assignment=assignment)
    assert "  build: did not build (the compiler's exit status 1)" in report
    assert "multiple definition of" in report, report


@needs["cpp"]
@pytest.mark.parametrize("tty", [False, True], ids=["piped", "at a terminal"])
def test_the_cpp_sample_solution_gets_full_marks(tmp_path, tty):
    folder = tmp_path / "sample"
    shutil.copytree(SAMPLE, folder)
    status, report, _, written = run_marker(folder, *(["--tty"] if tty else []),
                                            assignment="calculation_cpp")
    assert status == 0 and "Score: 20.00/20.00" in report, report
    assert written["score"] == 20


@needs["cpp"]
def test_a_cpp_program_that_spins_at_the_end_of_input_ends_by_its_time_limit(tmp_path):
    """The sample with the check for the end of input taken out (a wrong variant of
    tests/wrong/): each case that ends at the end of input runs to its CPU limit
    (--timeout 3, here) and says "timeout", or, where it prints a prompt again and again,
    stops at the output cap; the marking finishes with its report."""
    sources = {path.name: path.read_text(encoding="utf-8") for path in SAMPLE.iterdir()}
    variant = read_variant(ROOT / "tests" / "wrong" / "calculation_cpp" / "spins_at_end_of_input.toml")
    folder = put(tmp_path / "spins", variant.applied_to(sources))
    status, report, _, written = run_marker(folder, "--only", "calculation_cpp/eof_at_*",
                                            "--only", "calculation_cpp/short_game",
                                            assignment="calculation_cpp")
    assert status == 1 and report.rstrip().splitlines()[-1].startswith("Score: ")
    tests = {test["name"]: test for test in written["tests"]}
    eof = [name for name in tests if name.startswith("calculation_cpp/eof_at_")]
    assert len(eof) >= 8
    kinds = {name: tests[name]["output"].split(":", 1)[0] for name in eof}
    assert set(kinds.values()) <= {"timeout", "output too large"}, kinds
    assert sum(kind == "timeout" for kind in kinds.values()) >= 5, kinds
    assert tests["calculation_cpp/short_game"]["status"] == "passed"


@needs["cpp"]
def test_a_cpp_class_is_marked_and_a_student_whose_program_does_not_build_is_told_why(tmp_path):
    submissions = tmp_path / "class"
    shutil.copytree(SAMPLE, submissions / "Zoë Sample")
    put(submissions / "broken", {"main.cpp": "int main() { return 0 }\n"})
    out = tmp_path / "marked"
    done = subprocess.run([sys.executable, "-m", "exactmark.classroom.mark_class", str(submissions),
                           "--assignment", "calculation_cpp", "--out", str(out), "--jobs", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    with open(out / "grades.csv", newline="", encoding="utf-8") as file:
        grades = {row["student"]: row for row in csv.DictReader(file)}
    assert (grades["Zoë Sample"]["mark"], grades["Zoë Sample"]["status"]) == ("20.00", "marked")
    assert (grades["broken"]["mark"], grades["broken"]["status"]) == ("0.00", "did not build")
    feedback = (out / "students" / "broken" / "feedback.txt").read_text(encoding="utf-8")
    assert "calculation_cpp build: did not build (the compiler's exit status 1): none of its " \
           "50 cases ran" in feedback
    assert re.search(r"main\.cpp:1:\d+: error: expected .;. before .}.", feedback), feedback
    assert "6 cases of calculation_cpp, not listed: it did not build" in feedback
    page = (out / "students" / "broken" / "feedback.html").read_text(encoding="utf-8")
    assert '<pre class="build">' in page and "error: expected" in page


def test_make_expected_refuses_simulate_for_a_program_that_is_not_imported(tmp_path, capsys):
    from exactmark.expected import main

    assignment = tiny_assignment(tmp_path, "c")
    with pytest.raises(SystemExit) as ended:
        main(["greet", "--assignment", str(assignment), "--simulate", "1", "1"])
    assert ended.value.code == 2
    assert "--simulate calls simulate(n, i) by import, which C (gcc, C17) does not have" \
        in capsys.readouterr().err
