"""The Gradescope autograder (gradescope/), tested as the platform runs it: the zip is
built for a small assignment, unpacked into a root laid out as Gradescope's
(source/, submission/, results/), setup.sh's lock step is run on it, and
run_autograder marks a submission there; results.json is checked against the
JSON Schema written from Gradescope's specification.

setup.sh's install steps (apt-get, then pip into a venv) need the network, which
the tests never use: the root's venv/bin/python is instead a two-line launcher of
the interpreter running the tests, which holds requirements-mark.txt already (the
project's .venv is built from requirements-dev.txt, which includes it)."""

import ast
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import jsonschema
import pytest

from exactmark.diagnosis import feedback
from exactmark.diagnosis.known import SUFFIX as SIGNATURES_SUFFIX, knowledge
from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT, SUFFIXES, load_cases
from exactmark.distributed.shipment import diagnosis_files, student_case_files
from exactmark.gradescope import build
from exactmark.gradescope import run as autograder_run
from exactmark.kit.assignment import AssignmentError, load, names
from exactmark.kit.bundle import write_all, write_assignment
from exactmark.kit.rules import rule_map
from exactmark.marking.report import SUGGESTS_TEST, WHAT_IT_SUGGESTS
from exactmark.verify.marker import sample_solution, variants
from exactmark.verify.signatures import stale

VISIBLE, HIDDEN = ["seed_0", "seed_27"], ["seed_705"]
ASSIGNMENT = """title = "Gradescope's test"
marks = 6
cpu_seconds = 2
deadline = 2027-03-09T09:00:00
time_zone = "Australia/Sydney"

[late]
days = 5
cap_per_day = 0.1

[[programs]]
name = "solitaire_1"
kit_only = {kit_only}

  [[programs.groups]]
  name = "shown"
  marks = 4
  cases = {visible}
  visibility = "visible"

  [[programs.groups]]
  name = "kept back"
  marks = 2
  cases = {hidden}
  visibility = "hidden"
"""
NAME = "gs_test"
REPLICA = ["unshare", "--mount", "--propagation", "private", sys.executable, "-m",
           "tests.container"]
SCHEMA = json.loads((ROOT / "exactmark" / "gradescope" / "results.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
AS_ROOT = os.geteuid() == 0
HOSTILE = """import os, sys
root = {root!r}
for path in (root + "/submission_metadata.json", root + "/results"):
    try:
        open(path).read() if path.endswith(".json") else os.listdir(path)
        print("LEAK:", path)
    except OSError:
        pass
try:
    with open(root + "/results/results.json", "w") as file:
        file.write('{{"score": 1000}}')
    print("LEAK: results written")
except OSError:
    pass
for path in (root + "/source/expected_outputs/solitaire_1/seed_27.out",
             "../source/expected_outputs/solitaire_1/seed_27.out",
             "/autograder/source/expected_outputs/solitaire_1/seed_27.out"):
    try:
        with open(path) as file:
            sys.stdout.write(file.read())
        break
    except OSError:
        pass
else:
    print("the golden output stays out of reach")
"""


def valid(results: dict) -> dict:
    errors = [error.message for error in VALIDATOR.iter_errors(results)]
    assert not errors, errors
    return results


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """The assignment file, its zip, and the sample solution."""
    folder = tmp_path_factory.mktemp("gradescope")
    others = [case.name for case in load_cases("solitaire_1") if case.name not in VISIBLE + HIDDEN]
    assignment = folder / f"{NAME}.toml"
    assignment.write_text(ASSIGNMENT.format(kit_only=json.dumps(others),
                                            visible=json.dumps(VISIBLE), hidden=json.dumps(HIDDEN)),
                          encoding="utf-8")
    out = folder / "autograder.zip"
    done = subprocess.run([sys.executable, "-m", "exactmark.gradescope.build", str(assignment), "--out",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    solutions = folder / "solutions"
    write_all(solutions)
    return assignment, out, solutions


@pytest.fixture
def autograder(kit):
    """Make a root laid out as Gradescope's (/autograder: open to all, as there), unpack the
    zip into source/ as unzip does (modes kept), lock it with setup.sh's own step, and
    give a function that marks a submission there with run_autograder."""
    _, archive, _ = kit
    made = []

    def make(files: dict = None, metadata: dict = None, python: str = None, zipped: Path = None):
        root = Path(tempfile.mkdtemp(prefix="autograder-"))
        made.append(root)
        root.chmod(0o755)
        source, submission = root / "source", root / "submission"
        for folder in (source, submission, root / "results", root / "venv" / "bin"):
            folder.mkdir(parents=True)
        with zipfile.ZipFile(zipped or archive) as unpacked:
            for info in unpacked.infolist():
                unpacked.extract(info, source)
                (source / info.filename).chmod(info.external_attr >> 16 & 0o777)
        launcher = root / "venv" / "bin" / "python"
        launcher.write_text(f"#!/bin/sh\nexec {python or sys.executable} \"$@\"\n")
        launcher.chmod(0o755)
        for name, text in (files or {}).items():
            (submission / name).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                (submission / name).write_bytes(text)
            else:
                (submission / name).write_text(text, encoding="utf-8")
        if metadata is not None:
            (root / "submission_metadata.json").write_text(json.dumps(metadata))
        setup(root, "lock")
        return root

    def run(root: Path, replica: bool = False, **environment):
        """(results.json, checked, or None where the autograder failed and left none; the
        run's output, the log Gradescope shows instructors); with `replica`, in the stand-in
        for Gradescope's container (tests/container.py: no namespaces, no control group)."""
        inside = [*REPLICA, "--"] if replica else []
        done = subprocess.run([*inside, "bash", str(root / "source" / "run_autograder")],
                              cwd=root if not replica else ROOT,
                              env={**os.environ, "AUTOGRADER_ROOT": str(root), **environment},
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        path = root / "results" / "results.json"
        if not path.exists():
            return None, done
        assert path.stat().st_size <= autograder_run.MOST_RESULTS_BYTES
        return valid(json.loads(path.read_text(encoding="utf-8"))), done

    yield make, run
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


def setup(root: Path, *steps):
    return subprocess.run(["bash", str(root / "source" / "setup.sh"), *steps],
                          env={**os.environ, "AUTOGRADER_ROOT": str(root)}, capture_output=True,
                          text=True, timeout=120, check=True)


def solution(kit, change=None) -> dict:
    text = (kit[2] / "solitaire_1.py").read_text(encoding="utf-8")
    return {"solitaire_1.py": change(text) if change else text}


def by_name(results: dict) -> dict:
    return {test["name"]: test for test in results["tests"]}


# The zip


def test_the_zip_holds_the_marker_its_assignment_and_only_that_programs_cases(kit):
    assignment, archive, _ = kit
    with zipfile.ZipFile(archive) as unpacked:
        infos = {info.filename: info for info in unpacked.infolist()}
        names_in = set(infos)
        cases = {name for name in names_in if name.startswith("expected_outputs/")}
        golden = {f"expected_outputs/solitaire_1/{path.name}"
                  for path in (EXPECTED_OUTPUTS / "solitaire_1").iterdir()
                  if path.suffix in SUFFIXES}
        assert cases == golden  # every case file of the program (kit_only ones too)
        assert all(unpacked.read(name) == (ROOT / name).read_bytes() for name in sorted(cases))
        code = names_in - cases
        assert {"setup.sh", "run_autograder", f"assignments/{NAME}.toml",
                "assignments/assignment.schema.json", "requirements-mark.txt",
                "exactmark/gradescope/run.py", "exactmark/gradescope/results.schema.json", "exactmark/gradescope/autograder.json",
                "exactmark/marking/mark.py", "exactmark/sandbox/sandbox.py", "exactmark/sandbox/launcher.py",
                "exactmark/kit/cases.py"} <= code
        assert {name.split("/")[0] for name in code} == {
            "setup.sh", "run_autograder", "assignments", "requirements-mark.txt", "exactmark"}
        assert not any(name.startswith("tests/") or "__pycache__" in name or "/README" in name
                       for name in names_in)
        marker = [top.replace(".", "/") for top in build.MARKER_FLOORS]
        tools = [path.relative_to(ROOT).as_posix() for path in (ROOT / "exactmark").rglob("*.py")
                 if path.parent.relative_to(ROOT).as_posix() not in marker]
        assert code & set(tools) == {"exactmark/__init__.py", "exactmark/gradescope/__init__.py",
                                     "exactmark/gradescope/run.py"}  # the tools stay out
        assert "assignments/seeded.toml" not in code
        for script in ("setup.sh", "run_autograder"):
            data = unpacked.read(script)
            assert data.startswith(b"#!/usr/bin/env bash\n") and b"\r" not in data
            assert infos[script].external_attr >> 16 == 0o100755
        assert b"set -euo pipefail" in unpacked.read("setup.sh")
        assert all(info.date_time == build.FIXED_TIME for info in infos.values())
        assert list(infos) == sorted(infos)
        settings = json.loads(unpacked.read("exactmark/gradescope/autograder.json"))
    assert settings["programs"] == {"solitaire_1": 6} and settings["python"] is None
    for script in ("setup.sh", "run_autograder"):
        with zipfile.ZipFile(archive) as unpacked:
            text = unpacked.read(script).decode()
        assert subprocess.run(["bash", "-n"], input=text, text=True).returncode == 0, script


def test_the_zip_holds_every_module_of_the_kit_its_code_imports():
    """Every import in the zip's code, at the top of a module or inside a function (the
    marker's floors import some only when needed), of a module of the kit (the package, or
    the kit's own packages outside it) finds that module in the zip. The reference's files
    (which seeded's fresh cases need) are the bundler's text, which it writes out as one
    sample solution: never imported there."""
    files = build.entries(load("seeded"), build.DEFAULT_BUDGET)
    references = set(student_case_files(load("seeded")))
    assert "solitaire_1.py" in references
    missing = set()
    for path in [path for path in files if path.endswith(".py") and path not in references]:
        for node in ast.walk(ast.parse(files[path][0])):
            named = ([alias.name for alias in node.names] if isinstance(node, ast.Import) else
                     [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
                     if isinstance(node, ast.ImportFrom) and node.module else [])
            for module in named:
                parts = module.split(".")
                for depth in range(1, len(parts) + 1):
                    for file in ("/".join(parts[:depth]) + ".py",
                                 "/".join(parts[:depth]) + "/__init__.py"):
                        if (ROOT / file).is_file() and file not in files:
                            missing.add(f"{path} imports {module}: {file}")
    assert not missing


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """seeded's autograder, as `make gradescope ASSIGNMENT=seeded` writes it: its programs'
    signatures stand for the checkout, so it ships them."""
    out = tmp_path_factory.mktemp("seeded") / "autograder.zip"
    done = subprocess.run([sys.executable, "-m", "exactmark.gradescope.build", "seeded", "--out",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return out


READS_KNOWLEDGE = """import json
from exactmark.diagnosis.known import knowledge
from exactmark.kit.assignment import load
from exactmark.kit.cases import ROOT
assignment = load("assignments/seeded.toml")
print(json.dumps({"root": str(ROOT), "known": {
    name: knowledge(assignment, program).to_dict()
    for name, program in assignment.programs.items()}}))
"""


def test_the_zip_holds_each_program_s_signatures_where_the_marker_reads_them(seeded, tmp_path):
    """Each program's signatures, its rule map and the handout it quotes, where the kit
    keeps them: unzipped, the marker reads there what it reads here."""
    assignment = load("seeded")
    with zipfile.ZipFile(seeded) as unpacked:
        shipped = {name: path for program in assignment.programs.values()
                   for name, path in diagnosis_files(assignment, program).items()}
        assert {"docs/rules/solitaire_1.signatures.json", "docs/rules/solitaire_1.toml",
                "docs/solitaire_1.md", "docs/rules/solitaire_2.signatures.json"} <= set(shipped)
        assert all(unpacked.read(name) == path.read_bytes() for name, path in shipped.items())
        unpacked.extractall(tmp_path)
    done = subprocess.run([sys.executable, "-c", READS_KNOWLEDGE], cwd=tmp_path,
                          env={"PATH": os.environ["PATH"]}, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    assert read["root"] == str(tmp_path), done.stderr
    assert read["known"] == {name: knowledge(assignment, program).to_dict()
                             for name, program in assignment.programs.items()}


def test_stale_signatures_stay_out_of_the_zip_with_a_warning_naming_the_command(kit, tmp_path,
                                                                              capsys):
    """gs_test marks three of solitaire_1's cases: the kit's signatures were written from
    seeded's file, not this one. The zip is built, without them, and the warning names the
    command that writes them again."""
    assignment, archive, _ = kit
    why = stale(load(str(assignment)), load(str(assignment)).programs["solitaire_1"])
    assert f"make signatures ASSIGNMENT={assignment} PROGRAM=solitaire_1" in why
    assert build.main([str(assignment), "--out", str(tmp_path / "a.zip")]) == 0
    assert capsys.readouterr().err.splitlines() == [
        build.STALE_SIGNATURES.format(program="solitaire_1", why=why)]
    assert not any(name.startswith("docs/") for name in zipfile.ZipFile(archive).namelist())


def test_the_same_assignment_gives_the_same_bytes(kit, tmp_path):
    assignment, archive, _ = kit
    again = tmp_path / "again.zip"
    build.main([str(assignment), "--out", str(again)])
    assert again.read_bytes() == archive.read_bytes()


def test_cases_students_write_ship_the_sample_solutions_sources_and_the_named_wrong_programs():
    """golf_tests marks the cases teams write: the zip holds what the marker makes the
    reference and the wrong programs from, and of the wrong programs only those its groups
    name (a freecell one, say, stays out); no handout, since its groups name their mistakes."""
    assignment = load("golf_tests")
    files = build.entries(assignment, build.DEFAULT_BUDGET)
    named = {mistake for group in assignment.every_student_group for mistake in group.mistakes}
    assert {path for path in files if path.startswith("tests/")} == {
        f"tests/wrong/patience/{mistake}.toml" for mistake in named}
    assert (ROOT / "tests" / "wrong" / "patience" / "freecell_cascades_any_colour.toml").is_file()
    assert {"patience.py", "patience_games/engine.py", "common/deal.py", "exactmark/kit/bundle.py",
            "exactmark/kit/variants.py"} <= set(files)
    assert not any(path.startswith("docs/") or path in ("exactmark/verify/__main__.py",
                                                         "solitaire_1.py") for path in files)
    assert all(files[path][0] == (ROOT / path).read_bytes() for path in files
               if path.startswith(("tests/", "patience", "standalone/")))
    settings = json.loads(files["exactmark/gradescope/autograder.json"][0])
    assert settings["student_groups"] == {"patience": {
        group.name: list(group.mistakes) for group in assignment.every_student_group}}
    assert settings["programs"] == {"patience": 20}


@pytest.mark.parametrize("name", [name for name in names() if name != "golf_tests"])
def test_each_shipped_assignment_ships_its_own_programs_cases_only(name):
    assignment = load(name)
    files = build.entries(assignment, build.DEFAULT_BUDGET)
    folders = {path.rsplit("/", 1)[0] for path in files if path.startswith("expected_outputs/")}
    assert folders == {program.cases_folder.relative_to(ROOT).as_posix()
                       for program in assignment.programs.values()}
    made = {program for program in assignment.marked_cases  # its reference makes what they
            if assignment.fresh_groups(program)}  # expect: it ships, as golf_tests' does
    assert not any(path.endswith(f"/{program}.py") or path == f"{program}.py"
                   for path in files for program in set(assignment.marked_cases) - made)
    assert all(f"{program}.py" in files for program in made)
    assert not any(path.startswith("references/") for path in files), "a reference in the autograder"
    diagnosed = {path for program in assignment.marked_cases
                 for path in diagnosis_files(assignment, assignment.programs[program])}
    assert {path for path in files if path.startswith("docs/")} == diagnosed, \
        "a handout in the autograder, but to quote the rules a mistake breaks"
    assert {path for path in diagnosed if path.endswith(SIGNATURES_SUFFIX)} == {
        f"docs/rules/{program}{SIGNATURES_SUFFIX}" for program in assignment.marked_cases}
    assert set(path for path in files if path.startswith("assignments/")) == {
        "assignments/assignment.schema.json", f"assignments/{name}.toml"}
    script = files["run_autograder"][0].decode()  # no results of its own: see the failures
    assert "FALLBACK" not in script and 'rm -f "$results"' in script


def test_an_assignment_file_whose_name_would_reach_a_script_is_refused(kit, tmp_path):
    assignment, _, _ = kit
    odd = tmp_path / "hw1$(reboot).toml"
    odd.write_text(assignment.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(SystemExit) as refused:
        build.main([str(odd), "--out", str(tmp_path / "odd.zip")])
    assert refused.value.code == 2 and not (tmp_path / "odd.zip").exists()


def test_an_interpreter_the_assignment_names_is_the_one_setup_installs():
    class Named:
        python = "3.11"

        def __init__(self, assignment):
            self.assignment = assignment

        def __getattr__(self, name):
            return getattr(self.assignment, name)

    files = build.entries(Named(load("calculation")), build.DEFAULT_BUDGET)
    setup_text = files["setup.sh"][0].decode()
    assert "\npython=python3.11\n" in setup_text and "Python 3.11" in setup_text
    assert "time_zone=''" in setup_text  # no deadline: no tzdata
    assert json.loads(files["exactmark/gradescope/autograder.json"][0])["python"] == "3.11"
    plain = build.entries(load("seeded"), build.DEFAULT_BUDGET)["setup.sh"][0].decode()
    assert "\npython=python3\n" in plain and "names no interpreter" in plain
    assert "time_zone=yes" in plain


def test_setup_checks_the_assignment_and_leaves_the_source_to_root_alone(autograder):
    make, _ = autograder
    root = make()
    assert "check: ready to mark gs_test (3 cases, 6 marks)" in setup(root, "check").stdout
    for folder, folders, files in os.walk(root / "source"):
        for path in [Path(folder), *(Path(folder) / name for name in files)]:
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path


def test_the_schema_is_draft_2020_12_and_refuses_what_gradescope_would():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert "gradescope-autograders.readthedocs.io/en/latest/specs" in SCHEMA["description"]
    assert not VALIDATOR.is_valid({"output": "no score anywhere"})
    assert not VALIDATOR.is_valid({"tests": [{"name": "no score", "status": "passed"}]})
    assert not VALIDATOR.is_valid({"score": 1, "tests": [{"status": "ok"}]})
    assert not VALIDATOR.is_valid({"score": 1, "output_format": "markdown"})
    assert not VALIDATOR.is_valid({"score": 1, "visibilty": "hidden"})
    assert VALIDATOR.is_valid({"tests": [{"score": 1, "max_score": 1, "name": "a", "number": "1.1",
                                          "status": "passed", "visibility": "after_published",
                                          "tags": ["x"], "output_format": "ansi"}],
                               "leaderboard": [{"name": "Time", "value": 1.5, "order": "asc"}]})


# Marking, as the platform runs it


def test_a_perfect_submission_scores_every_mark_less_the_late_rule(autograder, kit):
    make, run = autograder
    # 30 hours late: two days late (more than 24, at most 48 hours), so at most 80% of 6
    root = make(solution(kit), metadata={"created_at": "2027-03-10T15:00:00.365935+11:00"})
    results, done = run(root)
    assert results["score"] == 4.8
    assert all(test["status"] == "passed" for test in results["tests"])
    tests = by_name(results)
    assert tests["solitaire_1/seed_705"]["visibility"] == "hidden"
    assert tests["solitaire_1/seed_27"]["visibility"] == "visible"
    assert results["output_format"] == "md" and results["stdout_visibility"] == "hidden"
    summary = results["output"]
    assert "**Visible tests: 4.00 of 4 marks.** 1 more test (2 marks) counts too" in summary
    assert ("Late rule: submitted 30 hours 1 second after the deadline: 2 days late (more than "
            "24, at most 48 hours); the mark is capped at 4.80 of 6.00") in summary, summary
    assert "4.8" not in summary.split("Late rule")[0]
    assert "Isolation" not in summary and "run_autograder: Isolation: " in done.stdout
    assert ("1 more test (2 marks) counts too: Gradescope never shows it to students."
            in summary), summary
    assert "when the assignment's settings allow" not in summary
    assert results["extra_data"]["late"]["days"] == 2


def test_a_wrong_word_fails_with_the_near_miss_and_the_diff(autograder, kit):
    make, run = autograder
    wrong = solution(kit, lambda text: text.replace('"Eighth"', '"Eigth"'))
    root = make({f"my [work](x)\x1b/{name}": text for name, text in wrong.items()})
    results, _ = run(root)
    seed_27 = by_name(results)["solitaire_1/seed_27"]
    assert seed_27["status"] == "failed" and seed_27["score"] == 0
    assert "replace" in seed_27["output"] and "-Eighth␠" in seed_27["output"]
    assert "+Eigth␠" in seed_27["output"]
    assert results["score"] < 6
    summary = results["output"]  # the folder's name, escaped twice: control bytes, then Markdown
    assert "\x1b" not in summary
    assert "my \\[work\\](x)⟨U+001B⟩: marking what it holds" in summary


ACE = "solitaire_1/ace_position_one_too_far"
FROWN = "solitaire_2/frown_without_variation_selector"


def test_a_mistake_is_named_to_every_student_from_the_visible_cases_and_never_in_hidden_tests(
        autograder, seeded, tmp_path):
    """A student whose solitaire_1 counts the Ace's position one too far, and whose
    solitaire_2 prints the frown without its variation selector: the output every student
    sees names each mistake, the first with the handout's sentence, from the visible cases
    alone, the mistakes before the rules the failures break (a cut output keeps them);
    what more cases say waits in tests shown after the due date; no test Gradescope never
    shows says what the failures suggest, and nothing said names a hidden case."""
    assignment = load("seeded")
    wrong = {variant.id: variant for variant in variants([assignment])[0]}
    files = {name: text for chosen in (wrong[ACE], wrong[FROWN]) for name, text in
             chosen.applied_to(sample_solution(assignment.programs[chosen.program],
                                               tmp_path)).items()}
    make, run = autograder
    results, _ = run(make(files, zipped=seeded))
    output = results["output"]
    rule = rule_map(assignment.programs["solitaire_1"]).rules[wrong[ACE].rule]
    assert autograder_run.SUGGESTS_HEAD == f"**{WHAT_IT_SUGGESTS}**"  # the marker's words
    said = output[output.index(autograder_run.SUGGESTS_HEAD):].splitlines()
    assert said[1] == "- solitaire_1: " + autograder_run.shown(feedback.NAMED.format(
        cases="3 cases (seed_0, seed_27, seed_705)", mistake=wrong[ACE].mistake)), output
    assert said[2] == "- solitaire_1: " + autograder_run.shown(feedback.HANDOUT.format(
        section=feedback.section_of(rule.section), quote=" ".join(rule.quote.split())))
    assert said[3].startswith("- solitaire_2: ") and \
        autograder_run.shown(wrong[FROWN].mistake) in said[3]  # before the rules, all of them
    hidden = [marked.case.name for marked in assignment.marked_cases["solitaire_2"]
              if marked.visibility == "hidden"]
    assert hidden and not [case for case in hidden if case in output]
    later = [test for test in results["tests"] if test["name"] in {
        SUGGESTS_TEST.format(program=program) for program in assignment.programs}]
    assert later and {test["visibility"] for test in later} == {"after_due_date"}
    assert not [case for test in later for case in hidden if case in test["output"]]
    quiet = [test for test in results["tests"] if test["visibility"] == "hidden"]
    assert quiet and not [test["name"] for test in quiet if "The handout (" in test["output"]
                          or wrong[FROWN].mistake in test["output"]]


def test_a_missing_program_scores_0_and_says_so_at_the_top(autograder):
    make, run = autograder
    results, _ = run(make({"Solitaire_1.py": "print()\n"}))
    assert results["score"] == 0
    missing = by_name(results)["solitaire_1.py"]
    assert missing["status"] == "failed" and "not in the submission" in missing["output"]
    assert ("**solitaire_1.py is not in the submission: 0 of 6.00 marks; "
            "\\`Solitaire_1.py\\` looks like it, but only the exact name solitaire_1.py is "
            "marked: rename it**") in results["output"], results["output"]


@pytest.mark.parametrize("isolation", ["auto", "fallback"])
def test_a_hostile_submission_reaches_no_golden_output_and_no_results(autograder, isolation):
    if not AS_ROOT:  # as on Gradescope, where run_autograder is root's
        pytest.skip("without root there is no throwaway user: the runs share your user id, and "
                    "without namespaces they can read the source you own")
    make, run = autograder
    root = make(metadata={"created_at": "2027-03-01T10:00:00Z"})
    (root / "submission" / "solitaire_1.py").write_text(HOSTILE.format(root=str(root)))
    results, done = run(root, AUTOGRADER_ISOLATION=isolation)
    seed_27 = by_name(results)["solitaire_1/seed_27"]
    assert seed_27["status"] == "failed" and seed_27["score"] == 0
    assert results["score"] == 0
    assert "got U+0074 LATIN SMALL LETTER T" in seed_27["output"]  # "the golden output stays..."
    assert "LEAK" not in json.dumps(results) and "LEAK" not in done.stdout
    held = "Isolation: FALLBACK" if isolation == "fallback" else "Isolation: "
    assert held in done.stdout and held in "".join(results["extra_data"]["isolation"])
    assert "Isolation" not in results["output"]  # the sandbox's limits: for the instructor
    assert "Sandbox" not in results["output"]  # and how it is made
    assert "other users can read" not in done.stdout  # the marker finds the golden cases locked


def test_a_program_that_never_ends_times_out_in_each_test(autograder):
    make, run = autograder
    results, _ = run(make({"solitaire_1.py": "while True:\n    pass\n"}))
    assert results["score"] == 0
    for test in results["tests"]:
        assert test["status"] == "failed" and test["score"] == 0
        if test["visibility"] == "visible":
            assert test["output"].startswith("timeout"), test["output"]
    assert results["extra_data"]["autograder"]["marker_exit"] == 1


def test_the_time_budget_stops_the_marker_and_keeps_valid_results(autograder):
    make, run = autograder
    root = make({"solitaire_1.py": "while True:\n    pass\n"})
    results, _ = run(root, AUTOGRADER_BUDGET_SECONDS="3")
    assert results["score"] == 0
    assert all(test["status"] == "failed" for test in results["tests"])
    assert "time budget (3 s)" in results["output"]
    assert results["extra_data"]["autograder"]["stopped_at_budget"]


@pytest.mark.skipif(not AS_ROOT or shutil.which("unshare") is None,
                    reason="the container replica is built as root")
def test_in_gradescope_s_container_a_sleeper_ends_once_idle(autograder):
    """No control group there: the CPU times of the run's processes, read from /proc, end
    each case of a program that sleeps after its idle allowance (2 s, its CPU limit), not
    at the wall-clock cap (8 s); and the log, not the student's summary, says what measures
    the time."""
    make, run = autograder
    results, done = run(make({"solitaire_1.py": "import time\ntime.sleep(600)\n"}), replica=True)
    assert results["score"] == 0
    for test in results["tests"]:
        assert test["output"].startswith("timeout: next to no CPU time used for 2 s"), \
            test["output"][:300]
    assert "read from /proc: no cgroup counts them" in done.stdout, done.stdout
    assert "Sandbox:" not in results["output"] and "A budget of" not in results["output"]


def test_the_marker_is_given_budgets_within_the_autograder_s_time(monkeypatch, tmp_path):
    """What the marker's runs may use (half of RUNS_SHARE of the time budget each, on each
    core, for CPU and for waiting) reaches its command: it cuts a part that hangs itself,
    before the time budget would stop it and lose every case left."""
    seen = []
    monkeypatch.setattr(autograder_run, "run_marker",
                        lambda command, budget: seen.append(command) or (2, "", "", False, []))
    monkeypatch.setattr(autograder_run, "cpus", lambda: 2.0)
    monkeypatch.setenv("AUTOGRADER_BUDGET_SECONDS", "100")
    autograder_run.mark(autograder_run.Paths(tmp_path), {"assignment": "seeded"}, 0.0)
    command = seen[0]
    cpu = float(command[command.index("--student-budget") + 1])
    waiting = float(command[command.index("--waiting-budget") + 1])
    assert cpu == waiting == 100 * autograder_run.RUNS_SHARE * 2 / 2
    assert autograder_run.marker_budgets(540, 1.0, 1) == (216, 216)
    assert autograder_run.marker_budgets(540, 0.5, 1) == (108, 216)  # a CPU second takes two
    assert autograder_run.marker_budgets(2340, 64.0, 64) == (autograder_run.MOST_MARKER_BUDGET,
                                                             autograder_run.MOST_MARKER_BUDGET)


def test_the_summary_says_what_the_visible_cases_suggest_the_mistakes_first():
    """Of the record's diagnoses, the visible level's alone (the later ones wait in tests
    of their own), every program's mistakes before any program's rules, in Markdown that
    shows the handout's backticks as they are."""
    def diagnosis(program, level, said, by_rule):
        return {"program": program, "level": level, "mistakes": [], "rules": [],
                "said": said, "by_rule": by_rule}
    results = {"tests": [], "score": 0, "output": "", "extra_data": {"cases": [], "diagnoses": [
        diagnosis("one", "visible", ["one's mistake", "its `sentence`"], ["one's rule"]),
        diagnosis("one", "after_due_date", ["said after the due date"], []),
        diagnosis("two", "visible", ["two's mistake"], ["two's rule"])]}}
    output = autograder_run.summarised(results, {"marks": 10}, 1, None)["output"]
    assert output.splitlines()[-6:] == [
        autograder_run.SUGGESTS_HEAD, "- one: one's mistake", "- one: its \\`sentence\\`",
        "- two: two's mistake", "- one: one's rule", "- two: two's rule"]
    quiet = {**results, "extra_data": {"cases": [], "diagnoses": []}}
    assert "suggest" not in autograder_run.summarised(quiet, {"marks": 10}, 1, None)["output"]


def test_the_stop_message_counts_the_groups_counts_that_did_not_run():
    """Stopped at the time budget while a team's program ran: its own-code test and its
    thorough one (a wrong program's run) did not run, and the summary counts them."""
    verdict = {"mode": "pipe", "kind": "not run", "how": "", "regions": [], "input": "",
               "reproduce": "", "diff": ""}
    group = {"program": "patience", "group": "your Golf cases", "folder": "cases/golf",
             "visibility": "visible", "marks": {}, "earned": {}, "said": {},
             "cases": [{"name": "won", "valid": True, "refused": "",
                        "reference": {**verdict, "kind": "pass"}, "own": verdict}],
             "mistakes": [{"name": "m", "mistake": "", "weight": 1, "caught_by": "",
                           "undecided": "not run: the marking was interrupted"}]}
    tests = [{"name": f"patience: your Golf cases: {count}", "score": 0, "max_score": 1}
             for count in ("valid", "thorough", "own code", "mistakes", "what the reference "
                                                                        "prints")]
    results = {"tests": tests, "score": 0, "output": "",
               "extra_data": {"cases": [], "student_groups": [group]}}
    output = autograder_run.summarised(results, {"marks": 10}, 130, 540)["output"]
    assert "540 s): 2 of 5 tests did not run and count 0." in output, output


def test_the_build_says_what_a_short_budget_would_cut_and_the_limits_that_fit(kit, tmp_path,
                                                                              capsys):
    """gs_test: 3 cases of 2 s of CPU. At a budget of 10 s, on one core, the runs get 4 s
    of CPU: were each to run out of time, the third would not run; 15 s holds them."""
    assignment, _, _ = kit
    assert build.main([str(assignment), "--out", str(tmp_path / "a.zip"), "--budget", "10"]) == 0
    said = capsys.readouterr().out.splitlines()[1:]
    assert said == [build.TOO_LITTLE_TIME.format(budget=10, cores=1, cpu=4, waiting=4, limit=2,
                                                 idle=2),
                    build.CUT_LINE.format(part="solitaire_1", cut=1, runs=3),
                    build.LIMITS_THAT_FIT.format(offers=build.BUDGET_FITS.format(seconds=15))]
    assert build.main([str(assignment), "--out", str(tmp_path / "a.zip"), "--budget", "15"]) == 0
    assert "warning" not in capsys.readouterr().out


def test_the_build_counts_a_group_s_runs_per_count():
    """A group's reference and own-code runs, one per case it may hold; a run per wrong
    program (one that runs out of time fails its case, which catches it)."""
    golf_tests = load("golf_tests")
    golf = golf_tests.student_groups("patience")[0]
    cut, fits, cpu_fits = build.cut_at_limits(golf_tests, build.DEFAULT_BUDGET)
    assert cut[f"patience: {golf.name}: thorough"][0] == len(golf.mistakes)
    assert cut[f"patience: {golf.name}: own code"][0] == golf.most
    assert fits is None and cpu_fits is None  # 2 s of idle a run is more than a share holds


def test_a_refused_submission_gets_the_reason_and_0(autograder):
    make, run = autograder
    root = make({f"f{number}.txt": "" for number in range(2001)})
    results, _ = run(root)
    assert results["score"] == 0 and results["extra_data"]["autograder"]["marker_exit"] == 2
    assert results["output"].startswith("The marker refused this submission: ")
    assert "2000" in results["output"]
    assert [test["name"] for test in results["tests"]] == ["solitaire_1: not marked"]


def test_an_assignment_the_marker_refuses_gives_the_reason_and_0(autograder, kit):
    make, run = autograder
    root = make(solution(kit))
    toml = root / "source" / "assignments" / f"{NAME}.toml"
    toml.write_text(toml.read_text().replace("marks = 6", "marks = 7"))
    results, _ = run(root)
    assert results["score"] == 0
    assert [(test["name"], test["status"], test["score"], test["max_score"])
            for test in results["tests"]] == [("solitaire_1: not marked", "failed", 0, 6)]
    said = results["output"]
    assert said.startswith("The marker refused this submission: ") and "add up" in said


@pytest.mark.parametrize("breakage", ["unimportable marker", "no python", "planted results"])
def test_a_failing_autograder_leaves_no_results_so_gradescope_says_it_failed(
        autograder, kit, breakage):
    """Not a 0 that looks like a mark: Gradescope says "The autograder failed to execute
    correctly" when there is no valid results.json; the log says why."""
    make, run = autograder
    root = make(solution(kit), python="/nonexistent/python" if breakage == "no python" else None)
    (root / "source" / "exactmark" / "marking" / "report.py").unlink()
    if breakage == "planted results":
        (root / "results" / "results.json").write_text('{"score": 6}')
    results, done = run(root)
    assert results is None, results
    if breakage == "no python":
        assert "run.py did not end normally" in done.stdout
    else:
        assert "ModuleNotFoundError" in done.stdout  # the log, for the instructor
        assert ("the autograder failed (exit status 1, and no valid results): leaving no "
                "results.json") in done.stdout


def test_an_unreadable_submission_time_is_said_never_skipped(autograder, kit):
    make, run = autograder
    results, done = run(make(solution(kit), metadata={"created_at": "yesterday at noon"}))
    assert "submission time could not be read, so the late rule was not applied" in \
        results["output"], results["output"]
    assert "late" not in results["extra_data"] or results["extra_data"]["late"] is None


@pytest.mark.parametrize("seconds, accepted", [("10", True), ("2340", True), ("2341", False),
                                               ("3600", False), ("soon", False)])
def test_the_budget_stays_within_gradescope_s_40_minutes(seconds, accepted):
    if accepted:
        assert build.budget_seconds(seconds) == float(seconds)
    else:
        with pytest.raises(Exception, match="Gradescope stops an autograder at 2400 s"):
            build.budget_seconds(seconds)


def test_the_student_packs_url_reaches_each_students_results(kit, tmp_path):
    assignment, _, _ = kit
    out = tmp_path / "autograder.zip"
    url = "https://course.example/cs101/seeded-pack.zip"
    done = subprocess.run([sys.executable, "-m", "exactmark.gradescope.build", str(assignment), "--out",
                           str(out), "--pack-url", url], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    config = json.loads(zipfile.ZipFile(out).read(build.SETTINGS))
    summary = autograder_run.summarised({"tests": [], "score": 0, "output": ""}, config, 0,
                                        None)["output"]
    assert (f"- Check your work before you submit: download the student pack from <{url}> and "
            "unzip it; then, in the folder that holds your work, run `python3 PACK/check.py` "
            "(PACK: the pack's folder)") in summary, summary


@pytest.mark.parametrize("url", ["javascript:alert(1)", "https://x.example/a<b>c",
                                 "https://x.example/a b", "https://x.example/[x](y)",
                                 "https://x.example/`code`", "ftp://x.example/pack.zip",
                                 "https://x.example/pack.zip."])
def test_a_pack_url_that_a_page_could_read_as_more_is_refused(url):
    done = subprocess.run([sys.executable, "-m", "exactmark.gradescope.build", "seeded", "--pack-url", url],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "is not a URL a page can show safely" in done.stderr.splitlines()[-1]


# The cases students write, as the platform marks them

WRITTEN = """title = "Gradescope's test of the cases students write"
marks = 10
cpu_seconds = 5

[[programs]]
name = "patience"
kit_only = ["*"]

  [[programs.groups]]
  name = "your Golf cases"
  kind = "student_cases"
  folder = "cases/golf"
  most = 3{mistakes}
  marks = {{ valid = 2, thorough = 5, own_code = 3 }}
  visibility = "after_due_date"
"""
# Of the three, the kit's won game of Golf catches two: it never tries a tableau card on
# the empty homecell (test_golf_tests shows the same with all of Golf's mistakes).
THREE = ["golf_empty_homecell_takes_tableau_card", "golf_homecell_built_in_suit",
         "prompt_without_space"]
WON = "golf_won_seed_1"
# The team's program tries each way to the reference, the wrong programs and the results
# before it plays: whatever it reaches, it prints, and its own case then fails with it.
PEEK = '''import glob as _glob
for _path in [{root!r} + "/source/patience.py", {root!r} + "/source/tests/wrong/patience/"
              "prompt_without_space.toml", *_glob.glob("/tmp/*/student-cases-*/*/patience.py"),
              *_glob.glob("/tmp/*/*/student-cases-*/*/patience.py")]:
    try:
        with open(_path) as _file:
            print("LEAK", _path, _file.read()[:40])
    except OSError:
        pass
try:
    with open({root!r} + "/results/results.json", "w") as _file:
        _file.write('{{"score": 1000}}')
    print("LEAK: results written")
except OSError:
    pass
'''


def written_assignment(folder: Path, mistakes) -> Path:
    """An instructor's own assignment of Golf cases, in `folder`, with its wrong programs
    beside it (wrong/patience/), copied from the kit's: the three named, or, with
    `mistakes` None, all of patience's, of which the loader takes Golf's."""
    wrong = folder / "wrong" / "patience"
    wrong.mkdir(parents=True)
    for path in sorted((ROOT / "tests" / "wrong" / "patience").glob("*.toml")):
        if mistakes is None or path.stem in mistakes:
            shutil.copy(path, wrong)
    path = folder / "gs_written.toml"
    path.write_text(WRITTEN.format(mistakes="" if mistakes is None else
                                   f"\n  mistakes = {json.dumps(mistakes)}"), encoding="utf-8")
    return path


def built(assignment: Path) -> Path:
    out = assignment.with_suffix(".zip")
    done = subprocess.run([sys.executable, "-m", "exactmark.gradescope.build", str(assignment), "--out",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "1 group of cases students write" in done.stdout, done.stdout
    return out


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The zip of an instructor's own assignment of three Golf mistakes, and a team's
    submission: the sample solution, the kit's won game of Golf as its case, a case whose
    first line is a word off, and a case that is a link to the reference."""
    folder = tmp_path_factory.mktemp("written")
    archive = built(written_assignment(folder, THREE))
    solution_folder = folder / "solution"
    write_all(solution_folder)
    files = {"patience.py": (solution_folder / "patience.py").read_text(encoding="utf-8")}
    for path in sorted(EXPECTED_OUTPUTS.glob(f"patience/{WON}.*")):
        if path.suffix != ".tty":
            files[f"cases/golf/won{path.suffix}"] = path.read_bytes()
    files["cases/golf/off_by_a_word.args"] = files["cases/golf/won.args"]
    files["cases/golf/off_by_a_word.in"] = files["cases/golf/won.in"]
    files["cases/golf/off_by_a_word.out"] = files["cases/golf/won.out"].replace(
        b"Golf, seed 1\n", b"Golf, deal 1\n", 1)
    files["cases/golf/peek.in"] = b"quit\n"
    return archive, files


def test_an_instructors_own_wrong_programs_land_where_the_loader_looks(written):
    archive, _ = written
    names_in = set(zipfile.ZipFile(archive).namelist())
    assert {name for name in names_in if name.startswith(("tests/", "wrong/", "assignments/"))} \
        == {f"tests/wrong/patience/{mistake}.toml" for mistake in THREE} | {
            "assignments/gs_written.toml", "assignments/assignment.schema.json"}


@pytest.mark.parametrize("isolation", ["auto", "fallback"])
def test_a_team_s_cases_are_marked_on_the_platform_and_reach_nothing_hidden(
        autograder, written, isolation):
    """Valid, thorough and own code, as a class run marks them; the mistakes, and what the
    reference prints on the invalid case, in tests shown after the due date; the link
    refused; and the team's program, run on its valid case, reaches neither the reference,
    the wrong programs nor the results."""
    if not AS_ROOT:
        pytest.skip("without root there is no throwaway user: the runs share your user id, and "
                    "without namespaces they can read the source you own")
    archive, files = written
    make, run = autograder
    root = make(files, zipped=archive)
    (root / "submission" / "patience.py").write_text(
        PEEK.format(root=str(root)) + files["patience.py"], encoding="utf-8")
    (root / "submission" / "cases" / "golf" / "peek.out").symlink_to(
        root / "source" / "patience.py")
    assert "1 group of students' cases" in setup(root, "check").stdout
    results, done = run(root, AUTOGRADER_ISOLATION=isolation)
    tests = by_name(results)
    group = "patience: your Golf cases"
    valid = tests[f"{group}: valid"]
    assert (valid["score"], valid["max_score"]) == (1, 2), valid["output"]
    lines = valid["output"].splitlines()
    assert "invalid   cases/golf/off_by_a_word: the reference: wrong output" in lines
    assert ("refused   cases/golf/peek: peek.out is a link: the marker follows no link, so its "
            "copy of the submission left it out") in lines
    assert "deal 1" not in valid["output"] and "seed 1" not in valid["output"]
    printed = tests[f"{group}: what the reference prints"]
    assert printed["visibility"] == "after_due_date" and "Golf,␠seed␠1" in printed["output"]
    thorough = tests[f"{group}: thorough"]
    assert (round(thorough["score"], 4), thorough["output"]) == (
        round(5 * 2 / 3, 4), "2 of 3 mistakes caught"), thorough["output"]
    mistakes = tests[f"{group}: mistakes"]
    assert mistakes["visibility"] == "after_due_date"
    assert ("missed    golf_empty_homecell_takes_tableau_card: lets the empty Golf homecell "
            "take any card") in mistakes["output"]
    own = tests[f"{group}: own code"]
    assert (own["score"], own["output"].splitlines()[0]) == (
        3, "your program passes 1 of your 1 valid case"), own["output"]
    assert results["score"] == round(1 + 5 * 2 / 3 + 3, 4)
    assert "LEAK" not in json.dumps(results) and "LEAK" not in done.stdout
    assert "**Visible tests: " in results["output"]  # two tests wait for the due date


def test_a_group_whose_mistakes_are_its_game_s_chooses_the_same_ones_on_the_platform(
        autograder, tmp_path):
    """Without `mistakes`, a group's are its game's, chosen by the handout's rule list: the
    zip holds the list and the handout, and setup's check fails the build when what the
    loader chooses there differs from what it chose when the zip was built."""
    assignment = written_assignment(tmp_path, None)
    wrong = tmp_path / "wrong" / "patience"
    shutil.copy(wrong / "golf_homecell_built_in_suit.toml", wrong / "homecell_in_suit_only.toml")
    chosen = load(str(assignment)).every_student_group[0].mistakes
    assert "golf_without_king_ace_wrap" in chosen and "freecell_cascades_any_colour" not in chosen
    assert "homecell_in_suit_only" in chosen, "not named for Golf: its rule is in Golf's section"
    archive = built(assignment)
    names_in = set(zipfile.ZipFile(archive).namelist())
    assert {"exactmark/kit/rules.py", "docs/patience.md", "docs/rules/patience.toml"} <= names_in
    assert {name for name in names_in if name.startswith("tests/")} == {
        f"tests/wrong/patience/{mistake}.toml" for mistake in chosen}
    make, _ = autograder
    root = make(zipped=archive)
    assert "1 group of students' cases" in setup(root, "check").stdout
    rules = root / "source" / "docs" / "rules" / "patience.toml"
    rules.chmod(0o600)
    rules.write_text("", encoding="utf-8")  # no rules: Golf's mistakes are those named so
    with pytest.raises(subprocess.CalledProcessError) as failed:
        setup(root, "check")
    assert "are not those the autograder was built with" in failed.value.stdout


def test_golf_tests_on_the_platform_gives_a_team_of_the_kits_own_cases_full_marks(
        autograder, tmp_path):
    """The shipped assignment, built and run as Gradescope runs it: a team whose cases are
    the kit's own of Golf and Little Spider, beside the sample solution, earns all 20. The
    worked examples are not counted, nor golf_tableau_and_stock_take_nothing_seed_1, which
    replays 39 of their moves; the others, more than the 6 asked for, are all valid and
    catch every mistake."""
    assignment = load("golf_tests")
    archive = tmp_path / "golf_tests.zip"
    assert build.main(["golf_tests", "--out", str(archive)]) == 0
    write_assignment(assignment, tmp_path / "solution")
    files = {"patience.py": (tmp_path / "solution" / "patience.py").read_text(encoding="utf-8")}
    for group in assignment.every_student_group:
        for name in group.kit_cases[:group.most]:
            for path in sorted(EXPECTED_OUTPUTS.glob(f"patience/{name}.*")):
                if path.suffix != ".tty":
                    files[f"{group.folder}/{path.name}"] = path.read_bytes()
    make, run = autograder
    root = make(files, zipped=archive, metadata={"created_at": "2027-04-16T16:59:00+10:00"})
    results, _ = run(root)
    assert results["score"] == 20, [(test["name"], test["output"][:300])
                                    for test in results["tests"] if test["status"] != "passed"]
    tests = by_name(results)
    golf, little_spider = assignment.student_groups("patience")
    copies = {golf.name: [golf.example.name, "golf_tableau_and_stock_take_nothing_seed_1"],
              little_spider.name: [little_spider.example.name]}
    for group in (golf, little_spider):
        count = len(group.kit_cases) - len(copies[group.name])
        assert count >= group.asked
        valid = tests[f"patience: {group.name}: valid"]["output"].splitlines()
        assert valid[0] == f"{count} of {count} cases expect exactly what the reference gives"
        for name in copies[group.name]:
            assert (f"not counted {group.folder}/{name}: three quarters of its .out or more are "
                    f"the worked example {group.example.name}'s (the start of its .out, or runs "
                    "of 10 lines or more it shows in a row): a worked example counts for "
                    "nothing as your case") in valid
    assert tests["patience: your Golf cases: thorough"]["output"] == (
        "31 of 31 mistakes caught, 100% of their weight")
    assert tests["patience: your Little Spider cases: thorough"]["output"] == (
        "24 of 24 mistakes caught, 100% of their weight")
    # Its tests' maxima add up to its 20 marks; those worth nothing show no "0/0".
    assert sum(test.get("max_score", 0) for test in results["tests"]) == 20
    shown = tests["patience: your Golf cases: mistakes"]
    assert "score" not in shown and "max_score" not in shown and shown["status"] == "passed"
    assert "- This submission counts: 1 of the 3 that may count in any 24 hours\n" in \
        results["output"], results["output"]


# The platform's sizes and sums

# Every other line the sample solution prints becomes a flood: control characters, bytes
# that are not UTF-8, drawn characters; each region that differs is drawn in the diff.
FLOOD = r'''import io, sys
class _Flood(io.TextIOBase):
    line = 0
    def write(self, text):
        for part in text.splitlines(keepends=True):
            data = part.encode()
            if part.endswith("\n"):
                self.line += 1
                if self.line % 2:
                    data = b"\x1b[2J\x00\x07\xff\xfe\xc3" * 600 + "é⟨".encode() * 300 + b"\n"
            sys.__stdout__.buffer.write(data)
        return len(text)
    def flush(self):
        sys.__stdout__.buffer.flush()
    def reconfigure(self, **options):
        pass
sys.stdout = _Flood()
sys.stderr.write("E\x00" * 300000)
'''


def test_a_flooding_program_s_results_stay_under_the_stated_sizes(autograder, kit):
    """Megabytes of output, long lines, bytes that are not UTF-8, control characters: each
    test's output within MOST_TEST_CHARS and a line saying what was cut, no second copy of
    a diff in extra_data, the whole (checked by `run`) under MOST_RESULTS_BYTES."""
    make, run = autograder
    results, _ = run(make(solution(kit, lambda text: FLOOD + text)))
    assert results["score"] == 0
    said = autograder_run.CUT_OUTPUT.split(":")[0]
    for test in results["tests"]:
        head, _, cut_line = test["output"].rpartition("\n")
        assert len(head) <= autograder_run.MOST_TEST_CHARS, test["name"]
        assert cut_line.startswith(said), (test["name"], cut_line)
        assert head.count("⟨") == head.count("⟩"), "an escape cut in half"
    verdicts = [verdict for case in results["extra_data"]["cases"] for verdict in case["verdicts"]]
    assert verdicts and all(verdict["diff"] == "" and verdict["diff_lines"] is None
                            for verdict in verdicts)


@pytest.mark.parametrize("text, most, shown", [
    ("line one\nline two\nline three\n", 20,  # at a line's end
     "line one\nline two\n… the autograder cut the rest: 11 more characters, 1 more line"),
    ("abc⟨U+001B⟩def", 8,  # never inside a drawn escape
     "abc\n… the autograder cut the rest: 11 more characters, 1 more line"),
    ("ab⟨\\xff⟩cd⟨U+0007⟩", 12, "ab⟨\\xff⟩cd\n… the autograder cut the rest: 8 more characters, "
                                "1 more line"),
    ("⟨ is a character a program may print" * 2, 70,  # not an escape: kept
     ("⟨ is a character a program may print" * 2)[:70]
     + "\n… the autograder cut the rest: 2 more characters, 1 more line"),
    ("short", 10, "short")])
def test_an_output_is_cut_at_a_line_or_before_an_escape_and_says_so(text, most, shown):
    assert autograder_run.cut(text, most) == shown


def test_too_many_tests_for_the_whole_cut_every_output_shorter():
    """Where capping each test is not enough, each is cut shorter, down to the line alone,
    and extra_data keeps only the autograder's record: the whole still fits, and is valid."""
    tests = [{"name": f"t{number}", "score": 0, "max_score": 1, "status": "failed",
              "output": "⟨\\xff⟩" * 5000} for number in range(400)]
    results = autograder_run.bounded({"score": 0, "output": "summary", "tests": tests,
                                      "extra_data": {"cases": [{"verdicts": [{"diff": "d" * 9}]}],
                                                     "autograder": {"counted": True},
                                                     "blob": "b" * 2_000_000}})
    valid(results)
    assert autograder_run.size(results) <= autograder_run.MOST_RESULTS_BYTES
    assert results["extra_data"]["autograder"]["counted"] is True
    assert all(len(test["output"]) < 1_600 for test in results["tests"])


def test_the_summary_says_what_the_marker_found_in_the_submission_and_nothing_of_the_sandbox():
    """Of the marker's header, the student reads the folder entered and what the copy left
    out; the sandbox (how it is made per student, its limits) and the runs are the log's."""
    header = ["Marking /autograder/submission against gs_test: Gradescope's test (6 marks)",
              "Isolation: namespaces (bubblewrap)", "Reach: the run sees only its own files",
              "Limits per run: 2 s of CPU", "The submission folder holds one folder, z1234567: "
              "marking what it holds", "Left out of the copy: 1 link",
              "3 cases, 2 at once, and the cases the student wrote, of patience/tests",
              "Sandbox: one per student and program (bubblewrap, its control group and its user, "
              "entered once)", "Score: 6.00/6.00 in 0.5 s"]
    results = {"score": 6, "output": "\n".join(header), "tests": [],
               "extra_data": {"isolation": header[1:4], "programs": {}, "notes": header[4:6]}}
    summary = autograder_run.summarised(results, {"marks": 6}, 0, None)["output"]
    assert summary == ("**Score: 6.00 of 6**\n\n- The submission folder holds one folder, "
                       "z1234567: marking what it holds\n- Left out of the copy: 1 link\n")


def every_case_failing(name: str):
    """The marker's results for a submission of `name` whose every case failed (its fresh
    cases too, as drawn for a student "ann")."""
    from exactmark.marking.fresh_cases import drawn_for, marked as fresh_case
    from exactmark.marking.report import CaseResult, Results
    assignment = load(name)
    drawn = drawn_for(assignment, "ann")
    return Results(assignment, [], {program: [CaseResult(marked, []) for marked in [
        *cases, *(fresh_case(one, Path()) for one in drawn.get(program, ()))]]
                                    for program, cases in assignment.marked_cases.items()})


@pytest.mark.parametrize("name", [name for name in names() if name != "golf_tests"])
def test_the_tests_maxima_add_up_exactly_to_the_assignment_s_marks(name):
    """As Gradescope adds them, in floats, in any order (13 marks over 92 cases of seeded
    added up to 13.0005 when each was rounded to 4 decimals); golf_tests' below."""
    from exactmark.marking.report import gradescope
    results = gradescope(every_case_failing(name), {})
    maxima = [test["max_score"] for test in results["tests"]]
    marks = load(name).marks
    assert sum(maxima) == marks and sum(reversed(maxima)) == marks and sum(sorted(maxima)) == marks
    assert max(abs(test["max_score"] - case.marks) for test, case in zip(
        results["tests"], [marked.marked for cases in every_case_failing(name).programs.values()
                           for marked in cases])) < 1e-3


@pytest.mark.parametrize("marks", [7.3, 0.3, 999.99])
def test_an_instructor_s_marks_that_are_no_multiple_of_the_quantum_add_up_too(tmp_path, marks):
    """Three cases share 7.3 marks: a maximum of 2.4333 each, the largest less by what the
    quantum cannot make (7.300048828125 before), so that they add up to 7.3 in any order."""
    from exactmark.marking.report import CaseResult, Results, gradescope
    from tests.test_mark_languages import tiny_assignment
    path = tiny_assignment(tmp_path, "c")
    path.write_text(path.read_text(encoding="utf-8").replace("marks = 3", f"marks = {marks}"),
                    encoding="utf-8")
    assignment = load(str(path))
    results = gradescope(Results(assignment, [], {
        program: [CaseResult(marked, []) for marked in cases]
        for program, cases in assignment.marked_cases.items()}), {})
    maxima = [test["max_score"] for test in results["tests"]]
    assert (sum(maxima), sum(reversed(maxima)), sum(sorted(maxima))) == (marks, marks, marks)
    assert max(abs(most - marks / 3) for most in maxima) < 1e-4


# Submission limits ([submissions]), from Gradescope's previous_submissions

LIMITS = '\n[submissions]\nmost = 2\nwindow = "24 hours"\nfeedback_first = 2\n'
FIRST, SECOND = "2027-03-01T10:00:00+11:00", "2027-03-01T16:30:20.5+11:00"


@pytest.fixture(scope="module")
def limited(kit, tmp_path_factory):
    """gs_test's zip with 2 submissions counting in any 24 hours, the first 2 with
    their tests shown before the due date."""
    assignment, _, _ = kit
    folder = tmp_path_factory.mktemp("limited")
    path = folder / f"{NAME}.toml"
    path.write_text(assignment.read_text(encoding="utf-8") + LIMITS, encoding="utf-8")
    out = folder / "autograder.zip"
    assert build.main([str(path), "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("section", ["", 'window = "24 hours"', "most = 0",
                                     'most = 2\nwindow = "a day"', "feedback_first = 1.5"])
def test_a_limit_that_says_no_number_of_submissions_is_refused(kit, tmp_path, section):
    path = tmp_path / "limited.toml"
    path.write_text(kit[0].read_text(encoding="utf-8") + f"\n[submissions]\n{section}\n",
                    encoding="utf-8")
    with pytest.raises(AssignmentError, match=": submissions"):
        load(str(path))


def submitted(when: str, results) -> dict:
    return {"submission_time": when, "score": results and results.get("score"),
            "results": results}


def test_the_second_of_two_submissions_within_the_limit_says_so_and_the_third_is_not_marked(
        autograder, kit, limited):
    make, run = autograder
    first, _ = run(make(solution(kit), zipped=limited, metadata={"created_at": FIRST}))
    assert ("- This submission counts: 1 of the 2 that may count in any 24 hours\n"
            in first["output"]), first["output"]
    assert "- Submission 1 of the first 2, which show their tests" in first["output"]
    wrong = solution(kit, lambda text: text.replace('"Eighth"', '"Eigth"'))
    second, _ = run(make(wrong, zipped=limited, metadata={
        "created_at": SECOND, "previous_submissions": [submitted(FIRST, first)]}))
    assert ("- This submission counts: 2 of the 2 that may count in any 24 hours; your next "
            "submission counts from 2027-03-02 10:00 (Australia/Sydney)") in second["output"]
    assert second["score"] < first["score"] and second["extra_data"]["autograder"]["counted"]
    # The third, a day's last minute later, is over the limit: not marked, the second's stand.
    third, done = run(make(solution(kit), zipped=limited, metadata={
        "created_at": "2027-03-02T09:59:00+11:00", "previous_submissions": [
            submitted(FIRST, first), submitted(SECOND, second),
            submitted("2027-03-01T12:00:00+11:00", None)]}))  # the autograder failed: not counted
    assert "exactmark.marking.mark" not in done.stdout
    assert third["output"].startswith(
        "**This submission was not marked and does not count:** 2 submissions count already "
        "in any 24 hours, the most that may. Your next submission counts from 2027-03-02 10:00 "
        "(Australia/Sydney). The results below are those of your submission of 2027-03-01 16:30 "
        "(Australia/Sydney), which stand."), third["output"]
    assert third["score"] == second["score"] and not third["extra_data"]["autograder"]["counted"]
    assert [(test["name"], test["score"], test["visibility"]) for test in third["tests"]] == [
        (test["name"], test["score"], test["visibility"]) for test in second["tests"]]
    assert all(test["output"].startswith("Not marked again") for test in third["tests"])


def test_past_the_first_submissions_tests_and_score_wait_for_the_due_date(
        autograder, kit, limited):
    """A day later the window is free, so the third counts; but only the first 2 show their
    tests before the due date: its every test waits for it, the summary says nothing more."""
    make, run = autograder
    earlier = {"score": 6, "tests": [], "extra_data": {"autograder": {"counted": True}}}
    results, _ = run(make(solution(kit), zipped=limited, metadata={
        "created_at": "2027-03-03T10:00:00+11:00", "previous_submissions": [
            submitted(FIRST, earlier), submitted(SECOND, earlier),
            submitted("2027-03-04T10:00:00+11:00", earlier)]}))  # later: a regrade's view
    assert results["output"].startswith("**This submission is marked and counts, but its tests "
                                        "and score show only after the due date:**")
    assert "Score" not in results["output"] and "Visible tests" not in results["output"]
    assert "1 of the 2 that may count" in results["output"]
    assert {test["visibility"] for test in results["tests"]} == {"after_due_date", "hidden"}
    assert results["score"] == 6


@pytest.mark.parametrize("results, counts", [
    ({"score": 6, "extra_data": {"autograder": {"counted": True}}}, True),
    ({"score": 6, "extra_data": {"autograder": {"counted": False}}}, False),
    ({"score": 4.5, "tests": []}, True),  # marked before the limit, by the marker
    ({"score": 0, "extra_data": {"autograder": {"fallback": "refused", "marker_exit": 2}}},
     False),  # refused before the limit: the old fallback said no more
    ({}, False), (None, False), ({"score": True}, False)],
    ids=["counted", "over the limit", "marked before limits", "an old fallback",
         "an autograder failure's empty results", "no results", "a score that is no number"])
def test_a_previous_submission_counts_by_its_own_results(results, counts):
    """Gradescope keeps a score (0.0) beside an autograder failure's results: only the
    results' own say whether the submission was marked."""
    assert autograder_run.counted(results) is counts


@pytest.mark.parametrize("history", ["not json", {"created_at": FIRST, "previous_submissions": 7},
                                     {"created_at": FIRST, "previous_submissions": [
                                         {"submission_time": "yesterday", "score": 1,
                                          "results": {"score": 1}}]},
                                     {"previous_submissions": []}])
def test_a_history_that_cannot_be_read_marks_nothing_and_the_autograder_fails(
        autograder, kit, limited, history):
    """No limit can be applied, and applying none would let a team through: Gradescope
    shows the submission as failed, for the instructor."""
    make, run = autograder
    root = make(solution(kit), zipped=limited, metadata={})
    (root / "submission_metadata.json").write_text(
        history if isinstance(history, str) else json.dumps(history))
    results, done = run(root)
    assert results is None and "[submissions] cannot be applied" in done.stdout, done.stdout
    assert "exactmark.marking.mark" not in done.stdout
