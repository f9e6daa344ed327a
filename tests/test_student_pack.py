"""The student pack, as a student uses it: built for each of the kit's assignments,
unpacked beside their work and run with the system's python3 alone (no virtual
environment, nothing installed). It holds no byte of a case that is not visible, and
neither the reference nor a wrong program; it says every visible case of the sample
solutions passes; beside a wrong program it says what the marker says, sentence for
sentence, and names the mistake the marker names before the deadline, from the wrong
programs' signatures on the visible cases alone; it behaves at the edges (a sleeping or
looping program, Ctrl-C, the pack inside the student's folder, Windows, no compiler). Where
the students write cases (golf_tests), it refuses each case the marker refuses, in the
marker's words, and runs the team's own program on the others."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
import zipfile
from pathlib import Path

import pytest

from exactmark.diagnosis import diagnose, feedback
from exactmark.diagnosis.known import knowledge
from exactmark.kit.cases import ROOT, SUFFIXES, load_cases
from exactmark.kit.rules import rule_map
from exactmark.marking import records
from exactmark.marking.report import KIND_WIDTH, suggested
from exactmark.pack.manifest import WHAT_IT_SUGGESTS
from exactmark.kit.assignment import load
from exactmark.pack import build as pack_build
from exactmark.kit.bundle import write_assignment
from exactmark.kit.assignment import WRONG
from exactmark.verify.marker import assignment_of_each_program, sample_solution, submission_of, \
    variants
from exactmark.kit.variants import read_variants
from exactmark.verify.signatures import stale
from tests.interrupt import BACKSTOP_SECONDS, sigint_as_at_a_terminal

ASSIGNMENTS = ["seeded", "calculation", "calculation_cpp", "patience"]
PACKED = [*ASSIGNMENTS, "golf_tests"]  # golf_tests: no visible case, the cases a team writes
# The system's interpreter, as a student has it: not this virtual environment's.
SYSTEM_PYTHON = getattr(sys, "_base_executable", sys.executable)
LEAST_SEARCHED = 120  # bytes of a case's input or output: shorter ones occur by chance
SUMMARY = re.compile(r"^(\d+) of (\d+) visible cases pass; the marking also uses cases you "
                     r"cannot see, worth [0-9.]+ marks?(?:; \d+ of those are fresh cases, drawn "
                     r"for you when you are marked: no pack can hold them, .*)?$", re.MULTILINE)
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="calculation_cpp needs g++")


@pytest.fixture(scope="module")
def packs(tmp_path_factory):
    """Each assignment's pack, written as `make student-pack` writes it."""
    folder = tmp_path_factory.mktemp("packs")
    for name in PACKED:
        assert pack_build.main(["--assignment", name, str(folder / name)]) == 0
    return folder


def only_python(folder: Path, *more: str) -> dict:
    """An environment whose PATH holds python3 (the system's) and the `more` programs alone."""
    bin_folder = folder / "bin"
    bin_folder.mkdir(exist_ok=True)
    for name, target in [("python3", SYSTEM_PYTHON), *((m, shutil.which(m)) for m in more)]:
        if not (bin_folder / name).exists():
            (bin_folder / name).symlink_to(target)
    return {"PATH": str(bin_folder), "HOME": str(folder), "LANG": "C.UTF-8"}


def check(pack: Path, folder, env: dict, *options, cwd: Path = None):
    """`python3 exactmark/pack/check.py [OPTIONS] FOLDER`; without FOLDER (None), run from `cwd`."""
    return subprocess.run([SYSTEM_PYTHON, str(pack / "check.py"), *options,
                           *([] if folder is None else [str(folder)])], cwd=cwd or folder,
                          env=env, capture_output=True, text=True, timeout=600)


def every_file(pack: Path) -> dict:
    """Path -> bytes of every file of the pack, the zip's entries among them."""
    files = {str(path.relative_to(pack)): path.read_bytes()
             for path in pack.rglob("*") if path.is_file()}
    with zipfile.ZipFile(pack.with_name(pack.name + ".zip")) as zipped:
        files.update({f"zip:{name}": zipped.read(name) for name in zipped.namelist()})
    return files


def diagnosis_data(pack: Path) -> dict:
    """program -> what pack.json holds to name its mistakes (None where it holds nothing)."""
    data = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
    return {entry["name"]: entry["diagnosis"] for entry in data["programs"]}


@pytest.mark.parametrize("name", PACKED)
def test_the_pack_holds_no_byte_of_a_case_that_is_not_visible(packs, name):
    """No name, input or output of a case that is not visible, nor how a wrong program
    fails it (its digest); the visible cases and the worked examples of the cases students
    write are the pack's only cases. Each program with signatures whose wrong programs fail
    a visible case carries them on its visible cases alone (golf_tests' students write its
    cases, and show none of their own)."""
    assignment = load(name)
    files = every_file(packs / name)
    carried = diagnosis_data(packs / name)
    secret_digests = set()
    for program, marked in assignment.marked_cases.items():
        known = knowledge(assignment, assignment.programs[program])
        shown = [m.case.name for m in marked if m.visible]
        if known is None or assignment.student_groups(program):
            assert carried[program] is None, program
            continue
        restricted = known.restricted(shown).to_dict()
        assert carried[program] == {**restricted, "rules": {  # those it can say
            rule: said for rule, said in restricted["rules"].items()
            if rule in {wrong["rule"] for wrong in restricted["wrong"].values()}
            | {rule for rules in restricted["claims"].values() for rule in rules}}}, program
        assert carried[program]["wrong"] and set(carried[program]["cases"]) == set(shown)
        digests = {case: {failure.digest for signature in known.stored.signatures
                          for seen, failure in signature.failed.items() if seen == case}
                   for case in known.stored.cases}
        secret_digests |= set().union(*(digests[case] for case in digests if case not in shown)) \
            - set().union(*(digests[case] for case in shown)) - {""}
    assert any(carried.values()) == (name != "golf_tests")
    visible = [m.case for marked in assignment.marked_cases.values() for m in marked
               if m.visibility == "visible"] + [
        group.example for program in assignment.marked_cases
        for group in assignment.student_groups(program) if group.example]
    others = [m.case for marked in assignment.marked_cases.values() for m in marked
              if m.visibility != "visible"] + [c for cases in assignment.kit_only.values()
                                               for c in cases]
    assert visible and others
    visible_bytes = [case.file(suffix).read_bytes() for case in visible for suffix in SUFFIXES
                     if case.file(suffix).exists()]
    leaks = [f"the digest {digest} of a case not visible, in {path}" for digest in secret_digests
             for path, data in files.items() if digest.encode() in data]
    for case in others:
        if case.name in {shown.name for shown in visible}:
            continue
        token = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(case.name.encode())
                           + rb"(?![A-Za-z0-9_])")
        secrets = [data for data in (case.stdin, case.stdout, case.screen or b"")
                   if len(data) >= LEAST_SEARCHED
                   and not any(data in shown for shown in visible_bytes)]
        for path, data in files.items():
            if Path(path).stem == case.name or token.search(data):
                leaks.append(f"{case.id}: its name, in {path}")
            leaks += [f"{case.id}: {len(secret)} bytes of it, in {path}"
                      for secret in secrets if secret in data]
    assert not leaks, "\n".join(leaks)
    shown_names = sorted(Path(path).name for path in files if path.startswith("expected_outputs/"))
    assert shown_names == sorted(case.file(suffix).name for case in visible
                                 for suffix in pack_build.PACKED_SUFFIXES
                                 if case.file(suffix).exists())
    zipped = sorted(path.removeprefix(f"zip:{name}/") for path in files if path.startswith("zip:"))
    assert zipped == sorted(path for path in files if not path.startswith("zip:")), \
        "the zip holds the folder's files, in one folder"


def bundled_sources() -> str:
    """The text of every module the checker may be bundled from."""
    return "\n".join(path.read_text(encoding="utf-8") for package in pack_build.PACKAGES
                     for path in sorted((ROOT / package).rglob("*.py")))


@pytest.mark.parametrize("name", PACKED)
def test_the_pack_holds_neither_the_reference_nor_a_wrong_program(packs, name, tmp_path):
    """No file of the reference (the sample solution a student hands in: patience.py for
    golf_tests), no line of it that is its own (not the kit's checker code's, nor printed
    by a case the pack shows), and nothing of tests/wrong: no wrong program's file, nor
    the name or mistake of one, but in pack.json's signatures of a wrong program that
    fails a visible case, which the checker names as the marker does. The reference and
    the wrong programs are what the marking judges the cases students write with: a pack
    that held them would make every case valid, and every mistake known (golf_tests' pack
    names none)."""
    assignment = load(name)
    files = every_file(packs / name)
    names = {Path(path).name for path in files}
    reference = {path.name: path.read_text(encoding="utf-8")
                 for path, _ in write_assignment(assignment, tmp_path / "reference")}
    assert not names & set(reference), f"the pack holds {sorted(names & set(reference))}"
    sources = bundled_sources()  # and what the cases it shows print (the rules' help text)
    shown = b"\n".join(data for path, data in files.items() if path.startswith("expected_outputs/"))
    own = sorted({line.strip() for text in reference.values() for line in text.splitlines()
                  if len(line.strip()) >= 40 and line.strip() not in sources
                  and line.strip().encode() not in shown})
    assert own, f"{name}: no line of its reference to look for"
    everything = b"\n".join(files.values())
    found = [line for line in own if line.encode() in everything]
    assert not found, f"{len(found)} lines of the reference are in the pack, the first: {found[0]}"
    wrong = [variant for variant in read_variants(WRONG) if variant.program in assignment.programs]
    assert wrong, f"{name}: no wrong program of its programs in {WRONG}"
    named = {variant for data in diagnosis_data(packs / name).values() if data
             for variant in data["wrong"]}
    assert bool(named) == (name != "golf_tests")
    leaks = []
    for variant in wrong:
        token = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(variant.name.encode())
                           + rb"(?![A-Za-z0-9_])")
        where = {path: data for path, data in files.items()
                 if variant.id not in named or Path(path).name != pack_build.manifest.MANIFEST}
        leaks += [f"{variant.id}: its name, in {path}" for path, data in where.items()
                  if variant.name in path or token.search(data)]
        leaks += [f"{variant.id}: its mistake, in {path}" for path, data in where.items()
                  if variant.mistake.encode() in data]
    assert not leaks, "\n".join(leaks)
    # The checker's copy of kit/rules.py says what tests/wrong/ is for: no file in it.
    assert not any("tests/wrong" in path or re.search(rb"tests/wrong/\w", data)
                   for path, data in files.items()), "the pack names a file of tests/wrong"


SHOWN_AND_WRITTEN = """title = "Golf: a case shown, and the cases a team writes"
marks = 11
cpu_seconds = 5

[[programs]]
name = "patience"
kit_only = {kit_only}

  [[programs.groups]]
  name = "shown"
  marks = 1
  cases = ["golf_won_seed_4"]
  visibility = "visible"

  [[programs.groups]]
  name = "your Golf cases"
  kind = "student_cases"
  folder = "cases/golf"
  most = 3
  mistakes = ["prompt_without_space"]
  marks = {{ valid = 2, thorough = 5, own_code = 3 }}
  visibility = "after_due_date"
"""


def test_where_students_write_cases_the_pack_names_no_mistake(tmp_path):
    """Patience's wrong programs fail its visible case, but they are what a team's cases
    are marked against (thorough): a pack that listed their mistakes would tell the team
    what to catch. So it carries none of them, and warns of nothing."""
    (tmp_path / "wrong" / "patience").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "wrong" / "patience" / "prompt_without_space.toml",
                tmp_path / "wrong" / "patience")
    path = tmp_path / "shown_and_written.toml"
    path.write_text(SHOWN_AND_WRITTEN.format(kit_only=json.dumps(
        [case.name for case in load_cases("patience") if case.name != "golf_won_seed_4"])))
    assignment = load(str(path))
    known = knowledge(assignment, assignment.programs["patience"])
    assert known.restricted(["golf_won_seed_4"]).stored.signatures
    assert pack_build.known_mistakes(assignment) == ({}, [])
    data = json.loads(pack_build.contents(assignment)["pack.json"])
    assert [entry["diagnosis"] for entry in data["programs"]] == [None]


STALE = """title = "The first three of solitaire_1's worked examples"
marks = 3
cpu_seconds = 30

[[programs]]
name = "solitaire_1"
kit_only = {kit_only}

  [[programs.groups]]
  name = "shown"
  marks = 3
  cases = ["seed_0", "seed_27", "seed_705"]
  visibility = "visible"
"""


def test_stale_signatures_stay_out_of_the_pack_with_a_warning_naming_the_command(
        tmp_path, capsys):
    """The kit's signatures of solitaire_1 were written from seeded's file, not this one:
    the pack is built, without them, and the warning names the command that writes them."""
    path = tmp_path / "three.toml"
    path.write_text(STALE.format(kit_only=json.dumps(
        [case.name for case in load_cases("solitaire_1")
         if case.name not in ("seed_0", "seed_27", "seed_705")])))
    assignment = load(str(path))
    why = stale(assignment, assignment.programs["solitaire_1"])
    assert f"make signatures ASSIGNMENT={path} PROGRAM=solitaire_1" in why
    assert pack_build.main(["--assignment", str(path), str(tmp_path / "pack")]) == 0
    warned = capsys.readouterr().err.splitlines()
    assert warned == [pack_build.STALE.format(program="solitaire_1", why=why)]
    assert diagnosis_data(tmp_path / "pack") == {"solitaire_1": None}


CITED = re.compile(r"expected_outputs/(\w+)/([\w-]+\.(?:in|out|args|err|status|stats|head))\b")


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_every_case_file_a_handout_cites_is_in_the_pack(packs, name):
    """The handouts cite their worked examples as expected_outputs/PROGRAM/NAME.*: in the
    pack they resolve, from the pack's folder."""
    cited = [(handout, folder, file) for program in load(name).programs.values()
             for handout in [program.handout] if handout
             for folder, file in CITED.findall(handout.read_text(encoding="utf-8"))]
    assert cited, f"{name}: its handouts cite no case file"
    missing = [f"{handout.name}: expected_outputs/{folder}/{file}" for handout, folder, file in cited
               if not (packs / name / "expected_outputs" / folder / file).is_file()]
    assert not missing, missing


def test_the_checker_is_one_file_of_the_standard_library(packs):
    source = (packs / "seeded" / "check.py").read_text(encoding="utf-8")
    imported = {match.split(".")[0] for match in re.findall(
        r"^(?:import|from) ([\w.]+)", source, re.MULTILINE)}
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)
    assert not {"exactmark", "jsonschema", "tomllib"} & imported


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_beside_the_sample_solutions_every_visible_case_passes(packs, name, tmp_path):
    assignment = load(name)
    if any(program.built for program in assignment.programs.values()) and not shutil.which("g++"):
        pytest.skip("needs g++")
    pack = shutil.copytree(packs / name, tmp_path / "pack")
    work = tmp_path / "work"
    write_assignment(assignment, work)
    before = sorted(path.name for path in work.rglob("*"))
    env = only_python(tmp_path, *(["g++", "gcc", "as", "ld"] if name == "calculation_cpp" else []))
    done = check(pack, None, env, cwd=work)
    visible = sum(m.visibility == "visible" for marked in assignment.marked_cases.values()
                  for m in marked)
    assert done.returncode == 0, done.stdout + done.stderr
    assert SUMMARY.search(done.stdout).groups() == (str(visible), str(visible)), done.stdout
    assert WHAT_IT_SUGGESTS not in done.stdout, "a diagnosis of no failure"
    assert sorted(path.name for path in work.rglob("*")) == before, "it wrote into the folder"
    for program in assignment.programs:  # once, its build (if any) under it
        assert len(re.findall(rf"^{program}:", done.stdout, re.M)) == 1, done.stdout


def marked(folder: Path, assignment, cases: list, tmp_path: Path) -> records.MarkingRecord:
    """The marker's record of the `cases` alone."""
    results = tmp_path / "results.json"
    command = [sys.executable, "-m", "exactmark.marking.mark", str(folder), "--assignment",
               str(assignment.path), "--json", str(results), "--jobs", "2"]
    for case in cases:
        command += ["--only", case]
    subprocess.run(command, cwd=ROOT, capture_output=True, timeout=600)
    return records.MarkingRecord.from_dict(json.loads(results.read_text())["extra_data"])


def verdicts_in(record: records.MarkingRecord) -> dict:
    """case id -> (kind, sentence), as the marker says them of the piped run."""
    return {case.case: (str(verdict.kind), verdict.how) for case in record.cases
            for verdict in case.verdicts if verdict.mode == "stdout, stdin piped"}


def marker_verdicts(folder: Path, assignment, cases: list, tmp_path: Path) -> dict:
    return verdicts_in(marked(folder, assignment, cases, tmp_path))


def suggestions(stdout: str) -> list:
    """The lines under the checker's heading on what the failures suggest, up to the
    summary's blank line; [] without the heading."""
    lines = stdout.splitlines()
    if WHAT_IT_SUGGESTS not in lines:
        return []
    after = lines[lines.index(WHAT_IT_SUGGESTS) + 1:]
    return after[:after.index("")]


def checker_verdicts(pack: Path, folder: Path, env: dict, tmp_path: Path) -> tuple:
    said = tmp_path / "verdicts.json"
    done = check(pack, folder, env, "--json", str(said))
    return done, {case: (verdict["kind"], verdict["how"])
                  for case, verdict in json.loads(said.read_text()).items()}


@pytest.mark.parametrize("variant", [
    "solitaire_1/and_last_without_its_space", "solitaire_2/frown_without_variation_selector",
    "hoyle_cli/ready_prompt_without_space",
    pytest.param("calculation_cpp/prompts_end_with_endl", marks=needs_gxx)])
def test_beside_a_wrong_program_it_says_what_the_marker_says(packs, variant, tmp_path):
    wrong = {found.id: found for found in read_variants(WRONG)}
    if variant not in wrong:
        pytest.fail(f"no wrong variant {variant} in {WRONG}: the test names one that is there")
    chosen = wrong[variant]
    name = next(name for name in ASSIGNMENTS if chosen.program in load(name).marked_cases)
    assignment = load(name)
    folder = submission_of(chosen, sample_solution(assignment.programs[chosen.program], tmp_path),
                           tmp_path / "submission")
    done, said = checker_verdicts(packs / name, folder, os.environ.copy(), tmp_path)
    visible = [m.case.id for m in assignment.marked_cases[chosen.program] if m.visibility == "visible"]
    assert sorted(case for case in said if case.startswith(f"{chosen.program}/")) == sorted(visible)
    record = marked(folder, assignment, visible, tmp_path)
    marker = verdicts_in(record)
    assert {case: said[case] for case in visible} == marker
    failed = [case for case in visible if marker[case][0] != "pass"]
    assert failed, f"{variant} fails no visible case: pick one that does"
    for case in failed:
        assert f"{marker[case][0]:<{KIND_WIDTH}} {case}: {marker[case][1]}" in done.stdout
    assert done.returncode == 1
    assert suggestions(done.stdout) == suggested(record.diagnoses, diagnose.LEVELS[0])
    assert suggestions(done.stdout), f"{variant}: the marker names nothing: pick one it names"


def test_beside_a_wrong_program_it_names_the_mistake_and_the_handout_s_sentence(packs, tmp_path):
    """A student whose program counts the Ace's position one too far fails 3 of seeded's
    visible cases as that wrong program does: the checker names its mistake and quotes
    the handout's sentence it breaks, under its heading, after what differs."""
    assignment = assignment_of_each_program()["solitaire_1"]
    wrong, _ = variants([assignment])
    chosen = next(variant for variant in wrong
                  if variant.id == "solitaire_1/ace_position_one_too_far")
    folder = submission_of(chosen, sample_solution(assignment.programs["solitaire_1"], tmp_path),
                           tmp_path / "submission")
    done = check(packs / "seeded", folder, only_python(tmp_path))
    rule = rule_map(assignment.programs["solitaire_1"]).rules[chosen.rule]
    said = suggestions(done.stdout)
    assert said[0] == "solitaire_1:", done.stdout
    assert said[1] == "  " + feedback.NAMED.format(
        cases="3 cases (seed_0, seed_27, seed_705)", mistake=chosen.mistake)
    assert said[2] == "  " + feedback.HANDOUT.format(section=feedback.section_of(rule.section),
                                                     quote=" ".join(rule.quote.split()))
    assert done.stdout.index("What differs") < done.stdout.index(WHAT_IT_SUGGESTS)
    said = pack_build.SUGGESTS.format(heading=WHAT_IT_SUGGESTS)
    assert said in (packs / "seeded" / "README.md").read_text(encoding="utf-8")
    assert said not in (packs / "golf_tests" / "README.md").read_text(encoding="utf-8")


ECHO = '''\
import sys
line = sys.stdin.readline()
print("you said", line.strip())
'''
SLEEPER = '''\
import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "{token}"])
time.sleep(300)
'''
LOOPER = "while True:\n    pass\n"
OWN = '''\
title = "Echo"
marks = 2
cpu_seconds = 1
wall_seconds = 600  # a spinner ends at its CPU limit however loaded the machine

[[programs]]
name = "echo"
reference = "reference"
cases = "cases/echo"

  [[programs.groups]]
  name = "shown"
  marks = 1
  cases = ["hello"]
  visibility = "visible"

  [[programs.groups]]
  name = "not shown"
  marks = 1
  cases = ["xylophone"]
  visibility = "hidden"
'''


@pytest.fixture
def echo(tmp_path):
    """An instructor's own one-second assignment: a visible case and a hidden one; its
    pack, and a student's folder (a name with a space and an accent)."""
    course = tmp_path / "course"
    (course / "reference").mkdir(parents=True)
    (course / "reference" / "echo.py").write_text(ECHO)
    cases = course / "cases" / "echo"
    cases.mkdir(parents=True)
    for name, said in (("hello", "hello"), ("xylophone", "the hidden case's words")):
        (cases / f"{name}.in").write_text(f"{said}\n")
        (cases / f"{name}.out").write_text(f"you said {said}\n")
    (course / "echo.toml").write_text(OWN)
    assert pack_build.main(["--assignment", str(course / "echo.toml"), str(tmp_path / "pack")]) == 0
    student = tmp_path / "Zoë Ng"
    student.mkdir()
    return course, tmp_path / "pack", student


def test_a_pack_says_what_its_cases_leave_out_only_where_they_leave_something_out(
        echo, tmp_path):
    """Echo hides one case, worth 1 of its 2 marks: its README names the group and its
    checker the marks. With that case shown too, every case the marking runs is in the
    pack, and neither says there are cases a student cannot see."""
    course, pack, student = echo
    (student / "echo.py").write_text(ECHO)
    readme = (pack / "README.md").read_text(encoding="utf-8")
    assert ("the marking also uses\ncases you cannot see, worth 1 of the 2 marks:\n\n- echo, not "
            "shown: 1 mark, never shown: your feedback says how many pass, and what they "
            "earn\n") in readme
    done = check(pack, student, only_python(tmp_path))
    assert ("1 of 1 visible cases pass; the marking also uses cases you cannot see, worth 1.00 "
            "marks") in done.stdout.splitlines(), done.stdout
    (course / "all_seen.toml").write_text(OWN.replace('"hidden"', '"visible"'))
    assert pack_build.main(["--assignment", str(course / "all_seen.toml"),
                            str(tmp_path / "all_seen")]) == 0
    readme = (tmp_path / "all_seen" / "README.md").read_text(encoding="utf-8")
    assert "cannot see" not in readme
    assert "Every case the marking runs is in this pack" in readme
    done = check(tmp_path / "all_seen", student, only_python(tmp_path))
    assert "2 of 2 cases pass: the marking uses these cases and no others" in \
        done.stdout.splitlines(), done.stdout
    assert "cannot see" not in done.stdout and done.returncode == 0


def test_an_instructors_own_pack_leaves_its_hidden_case_out(echo):
    _, pack, _ = echo
    for path, data in every_file(pack).items():
        assert b"xylophone" not in data and b"hidden case" not in data, path
        assert "xylophone" not in path


@pytest.mark.parametrize("program, said", [
    (SLEEPER, f"{'timeout':<{KIND_WIDTH}} echo/hello: next to no CPU time used for 2 s: "
              "sleeping or waiting, not working"),
    (LOOPER, f"{'timeout':<{KIND_WIDTH}} echo/hello: over the CPU time limit of 1 s")])
def test_a_sleeping_or_looping_program_ends_at_the_marking_limit(echo, program, said, tmp_path):
    course, pack, student = echo
    (student / "echo.py").write_text(program.replace("{token}", "sleeper-of-" + tmp_path.name))
    done, verdicts = checker_verdicts(pack, student, only_python(tmp_path), tmp_path)
    assert said in done.stdout, done.stdout
    assert done.returncode == 1
    assert verdicts == marker_verdicts(student, load(str(course / "echo.toml")), ["echo/hello"],
                                       tmp_path)
    assert not own_processes("sleeper-of-" + tmp_path.name)


def own_processes(token: str) -> list:
    """Our processes whose command line holds `token`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == os.getuid() \
                    and token.encode() in (entry / "cmdline").read_bytes():
                found.append(entry.name)
        except OSError:
            continue
    return found


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM],
                         ids=["Ctrl-C", "the terminal closed", "kill"])
def test_a_stop_ends_the_check_and_its_program_and_leaves_nothing(echo, tmp_path, number):
    _, pack, student = echo
    token = "sleeper-of-" + tmp_path.name
    (student / "echo.py").write_text(SLEEPER.replace("{token}", token))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**only_python(tmp_path), "TMPDIR": str(scratch)}
    process = subprocess.Popen([SYSTEM_PYTHON, str(pack / "check.py"), str(student)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=sigint_as_at_a_terminal)
    deadline = time.monotonic() + BACKSTOP_SECONDS
    while not own_processes(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert own_processes(token), "the program never started"
    process.send_signal(number)
    out, err = process.communicate(timeout=BACKSTOP_SECONDS)
    assert process.returncode == 128 + number, out + err
    assert "Interrupted: 0 of 1 visible cases checked" in err and "Traceback" not in err
    assert not own_processes(token)
    assert not list(scratch.iterdir()), "its temporary folder is left behind"


LITTERER = """\
import os, sys, time
for number in range(1000):  # the checker's ending removes each
    open(f"litter-{number}", "w").close()
os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", "{token}"])
"""


def test_ctrl_c_held_down_ends_the_check_once_without_a_traceback(echo, tmp_path):
    """A held key repeats Ctrl-C every few ms: those that come while the checker ends (its
    sweep of what the run left, its temporary folder of 1,000 files) change nothing."""
    _, pack, student = echo
    token = "litterer-of-" + tmp_path.name
    (student / "echo.py").write_text(LITTERER.replace("{token}", token))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**only_python(tmp_path), "TMPDIR": str(scratch)}
    process = subprocess.Popen([SYSTEM_PYTHON, str(pack / "check.py"), str(student)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=sigint_as_at_a_terminal)
    deadline = time.monotonic() + BACKSTOP_SECONDS
    while not own_processes(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not own_processes(token):
        process.kill()
        pytest.fail(f"the program never littered:\n{process.communicate()[0]}")
    held = time.monotonic() + 3
    while process.poll() is None and time.monotonic() < held:
        process.send_signal(signal.SIGINT)
        time.sleep(0.005)
    out, err = process.communicate(timeout=BACKSTOP_SECONDS)
    assert "Traceback" not in err, err
    assert process.returncode == 128 + signal.SIGINT, out + err
    assert err == "\nInterrupted: 0 of 1 visible cases checked\n", err
    assert not own_processes(token)
    assert not list(scratch.iterdir()), "its temporary folder is left behind"


def test_the_pack_inside_the_students_folder_is_left_out(echo, tmp_path):
    _, pack, student = echo
    (student / "echo.py").write_text(ECHO)
    inside = shutil.copytree(pack, student / "pack")
    done = check(inside, None, only_python(tmp_path), cwd=student)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 of 1 visible cases pass" in done.stdout
    done = check(inside, None, only_python(tmp_path), cwd=inside)
    assert done.returncode == 2
    assert done.stderr.startswith(f"check.py: {inside} is the pack itself: give the folder that "
                                  "holds your work: python3 ")
    assert sorted(path.name for path in student.iterdir()) == ["echo.py", "pack"]


def test_a_folder_as_a_learning_platform_downloads_it_is_entered(echo, tmp_path):
    _, pack, student = echo
    (student / "Zoë Ng").mkdir()
    (student / "Zoë Ng" / "echo.py").write_text(ECHO)
    done = check(pack, student, only_python(tmp_path))
    assert "holds one folder, Zoë Ng: checking what it holds" in done.stdout
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_missing_program_is_said_as_the_marker_says_it(echo, tmp_path):
    _, pack, student = echo
    (student / "Echo.py").write_text(ECHO)
    done = check(pack, student, only_python(tmp_path))
    assert ("echo: missing: echo.py is not in the submission; "
            "`Echo.py` looks like it, but only the exact name echo.py is marked: rename it"
            in done.stdout), done.stdout
    assert done.returncode == 1


def test_on_windows_it_says_to_use_wsl_in_one_line(packs, tmp_path):
    code = textwrap.dedent(f"""\
        import sys
        sys.platform = "win32"
        path = {str(packs / "seeded" / "check.py")!r}
        exec(compile(open(path, encoding="utf-8").read(), path, "exec"),
             {{"__name__": "__main__", "__file__": path}})
        """)
    done = subprocess.run([SYSTEM_PYTHON, "-c", code], capture_output=True, text=True,
                          env=only_python(tmp_path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "WSL" in done.stderr, done.stderr


@needs_gxx
def test_without_the_compiler_it_says_so(packs, tmp_path):
    work = tmp_path / "work"
    write_assignment(load("calculation_cpp"), work)
    done = check(packs / "calculation_cpp", work, only_python(tmp_path))
    assert ("calculation_cpp: cannot be built here: g++ is not installed (the marking builds "
            "it with: g++ -std=c++17" in done.stdout), done.stdout
    assert "0 of 6 visible cases pass" in done.stdout
    assert done.returncode == 1


@pytest.mark.parametrize("given, said", [
    ("nowhere", "check.py: there is no folder {path}: give the folder that holds your work"),
    ("a file", "check.py: {path} is not a folder: give the folder that holds your work"),
    ("loop", "check.py: there is no folder {path}: give the folder that holds your work")])
def test_a_folder_that_cannot_be_checked_is_one_line(packs, tmp_path, given, said):
    (tmp_path / "a file").write_text("")
    (tmp_path / "loop").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop")
    done = check(packs / "seeded", tmp_path / given, only_python(tmp_path), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == said.format(path=tmp_path / given) + "\n"


def test_a_pack_without_its_data_or_with_broken_data_is_one_line(packs, tmp_path):
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(packs / "seeded" / "check.py", alone)
    done = check(alone, None, only_python(tmp_path), cwd=alone)
    assert done.returncode == 2 and done.stderr.startswith(f"check.py: no pack.json beside it in "
                                                           f"{alone}: run the check.py of an "
                                                           "unzipped student pack"), done.stderr
    (alone / "pack.json").write_text('{"format": 1, "programs": [{"language": []}]}')
    done = check(alone, tmp_path, only_python(tmp_path))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "is not a pack this checker reads" in done.stderr


def test_a_json_target_that_cannot_be_written_is_one_line(echo, tmp_path):
    _, pack, student = echo
    (student / "echo.py").write_text(ECHO)
    done = check(pack, student, only_python(tmp_path), "--json", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr == f"check.py: --json {tmp_path}: a folder\n"


def test_a_file_a_file_manager_leaves_among_the_cases_changes_nothing(packs, tmp_path):
    pack = shutil.copytree(packs / "seeded", tmp_path / "pack")
    (pack / "expected_outputs" / "solitaire_1" / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    (pack / "expected_outputs" / "solitaire_1" / "seed_0.out~").write_text("an editor's copy")
    work = tmp_path / "work"
    write_assignment(load("seeded"), work)
    done = check(pack, work, only_python(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_older_python_is_told_in_one_line(packs, tmp_path):
    code = textwrap.dedent(f"""\
        import sys
        sys.version_info = (3, 9, 6, "final", 0)
        path = {str(packs / "seeded" / "check.py")!r}
        exec(compile(open(path, encoding="utf-8").read(), path, "exec"),
             {{"__name__": "__main__", "__file__": path}})
        """)
    done = subprocess.run([SYSTEM_PYTHON, "-c", code], capture_output=True, text=True,
                          env=only_python(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "needs Python 3.10 or newer" in done.stderr


MANY_FILES = "files = [open('/dev/null') for _ in range(300)]\n" + ECHO
MANY_PROCESSES = ("import subprocess\n"
                  "kids = [subprocess.Popen(['sleep', '1']) for _ in range(40)]\n" + ECHO)
DAEMON = """\
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # holds stdout and stderr open, long after its parent
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)",
                                  "{token}"])
    os._exit(0)
""" + ECHO


@pytest.fixture
def as_a_student(echo):
    """Run the echo pack's checker on a student's program as a student runs it: not as root
    (whom no folder's mode stops and no process limit holds); as root, as the user nobody,
    on copies that nobody may read. Gives run(program) -> (CompletedProcess, its verdicts,
    the temporary folder it was given, the copy of the student's folder it checked)."""
    _, pack, student = echo
    shared = Path(tempfile.mkdtemp(prefix="pack-test-"))
    shared.chmod(0o755)
    as_student, python = [], SYSTEM_PYTHON
    if os.geteuid() == 0:
        as_student = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        python = next((found for found in (SYSTEM_PYTHON, "/usr/bin/python3")
                       if runs_as_a_student(as_student, found)), None)
        if python is None:
            pytest.skip("no Python 3.10 or newer that another user may run")

    def run(program: str):
        (student / "echo.py").write_text(program)
        copies = [shutil.copytree(pack, shared / "pack"), shutil.copytree(student, shared / "work")]
        scratch, out = shared / "tmp", shared / "out"
        for folder in (scratch, out):
            folder.mkdir()
            folder.chmod(0o777)
        done = subprocess.run([*as_student, python, str(copies[0] / "check.py"), "--json",
                               str(out / "verdicts.json"), str(copies[1])],
                              capture_output=True, text=True, timeout=120,
                              env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                                   "TMPDIR": str(scratch)})
        verdicts = json.loads((out / "verdicts.json").read_text())
        return done, {case: (v["kind"], v["how"]) for case, v in verdicts.items()}, scratch, \
            copies[1]
    yield run
    subprocess.run(["chmod", "-R", "u+rwx", str(shared)])
    shutil.rmtree(shared)


def runs_as_a_student(as_student: list, python: str) -> bool:
    try:
        return subprocess.run([*as_student, python, "-c", "import subprocess, sys; "
                               "sys.exit(sys.version_info < (3, 10) or subprocess.run("
                               "[sys.executable, '-c', '']).returncode)"], capture_output=True,
                              timeout=60, cwd="/").returncode == 0
    except OSError:  # no setpriv
        return False


@pytest.mark.parametrize("program", [MANY_FILES, MANY_PROCESSES],
                         ids=["300 open files", "40 processes"])
def test_the_marking_limits_hold_here_too(echo, as_a_student, program, tmp_path):
    done, verdicts, _, work = as_a_student(program)
    assert verdicts["echo/hello"][0] == "crash", done.stdout + done.stderr
    assert verdicts == marker_verdicts(work, load(str(echo[0] / "echo.toml")), ["echo/hello"],
                                       tmp_path)


def test_a_daemon_left_holding_the_output_is_not_waited_for_and_is_ended(echo, tmp_path):
    course, pack, student = echo
    token = "daemon-of-" + tmp_path.name
    (student / "echo.py").write_text(DAEMON.replace("{token}", token))
    started = time.monotonic()
    done, verdicts = checker_verdicts(pack, student, only_python(tmp_path), tmp_path)
    assert time.monotonic() - started < 20, "it waited for the daemon"
    assert verdicts == {"echo/hello": ("pass", "")}, done.stdout
    assert verdicts == marker_verdicts(student, load(str(course / "echo.toml")), ["echo/hello"],
                                       tmp_path)
    assert not own_processes(token)


TRUTH = "0 of 1 visible cases pass; the marking also uses cases you cannot see, worth 1.00 marks"
LIE = "1 of 1 visible cases pass; the marking also uses cases you cannot see, worth 1.00 marks"
# A process a run leaves that has shed every mark the checker once found leftovers by (the
# run's session, process group and environment), renamed itself and ignores the polite
# signals; then it waits, one way or another, and prints a false summary on the checker's
# own stdout: argv[1] is that stdout, argv[2] the lie, argv[3] the test's token.
LEFT = """\
import ctypes, os, signal, sys, time
ctypes.CDLL(None).prctl(15, b"kworker/0:1", 0, 0, 0)  # PR_SET_NAME: a system thread's name
for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(number, signal.SIG_IGN)
os.setpgid(0, 0)  # a process group of its own, in a session of its own
{escape}
os.write(int(sys.argv[1]), sys.argv[2].encode() + b"\\n")
"""
ESCAPES = {
    "it sleeps": "time.sleep(2)",
    "it is stopped": "os.kill(os.getpid(), signal.SIGSTOP)",
    "it forks faster than it is killed": ("end = time.monotonic() + 2\n"
                                          "while time.monotonic() < end:\n"
                                          "    if os.fork():\n"
                                          "        os._exit(0)  # its child goes on"),
}
LIAR = """\
import os, sys
said = os.open(f"/proc/{os.getppid()}/fd/1", os.O_WRONLY)  # the checker's own stdout
os.set_inheritable(said, True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.execve(sys.executable, [sys.executable, "-c", {left}, str(said), {lie}, {token}], {})
    os._exit(0)
print("you said nothing")
"""


@pytest.mark.parametrize("escape", ESCAPES.values(), ids=ESCAPES.keys())
def test_nothing_a_run_left_outlives_the_check_or_prints_after_it(echo, tmp_path, escape):
    """The checker's stdout, read to its end (which comes once every process holding it is
    gone), ends with the checker's own summary, never the lie of a process its run left;
    and no such process is left running."""
    from exactmark.pack.check import NOT_KEPT

    _, pack, student = echo
    token = f"left-by-{uuid.uuid4().hex}"  # this run's alone, on a shared machine
    left = LEFT.replace("{escape}", escape)
    (student / "echo.py").write_text(LIAR.replace("{left}", repr(left))
                                     .replace("{lie}", repr(LIE)).replace("{token}", repr(token)))
    process = subprocess.Popen([SYSTEM_PYTHON, str(pack / "check.py"), str(student)],
                               env=only_python(tmp_path), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=sigint_as_at_a_terminal)
    try:
        out, err = process.communicate(timeout=BACKSTOP_SECONDS)
    except subprocess.TimeoutExpired:
        out, err = None, None
    left = own_processes(token)
    for pid in left:  # a failure leaves nothing behind on the shared machine
        os.kill(int(pid), signal.SIGKILL)
    process.kill()
    process.communicate()
    assert out is not None, \
        f"{BACKSTOP_SECONDS} s on, a process the run left still holds the checker's stdout"
    assert out.splitlines()[-1] == TRUTH, f"the checker's stdout ends with:\n{out}"
    assert LIE not in out and NOT_KEPT not in out, out
    assert (process.returncode, err) == (1, ""), err
    assert not left, f"left running: {left}"


def test_what_a_case_left_is_ended_before_the_next_case_runs(echo, tmp_path):
    """On the first case the program leaves a daemon that prints its lie 0.3 s later, while
    the second case (a program that waits 1 s) still runs: it is ended with its case."""
    course, _, student = echo
    (course / "echo.toml").write_text(OWN.replace('"hidden"', '"visible"'))
    pack = tmp_path / "both visible"
    assert pack_build.main(["--assignment", str(course / "echo.toml"), str(pack)]) == 0
    token = f"left-by-{uuid.uuid4().hex}"
    left = LEFT.replace("{escape}", "time.sleep(0.3)")
    (student / "echo.py").write_text(
        "import sys, time\n"
        "if sys.stdin.readline() == 'hello\\n':\n"
        + textwrap.indent(LIAR.replace("{left}", repr(left)).replace("{lie}", repr(LIE))
                          .replace("{token}", repr(token))
                          .replace('print("you said nothing")', 'print("you said hello")'), "    ")
        + "else:\n    time.sleep(1)\n    print(\"you said the hidden case's words\")\n")
    done = check(pack, student, only_python(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert LIE not in done.stdout, done.stdout
    assert done.stdout.splitlines()[-1] == ("2 of 2 cases pass: the marking uses these cases "
                                            "and no others"), done.stdout
    assert not own_processes(token)


def test_where_no_process_can_be_kept_it_says_so_and_ends_what_it_finds(echo, tmp_path):
    """Without prctl (macOS's C library has none; simulated here) the checker cannot keep
    a run's orphans: it says so in one line, checks as before, and still ends a daemon that
    keeps the run's environment, where Linux's /proc shows it."""
    from exactmark.pack.check import NOT_KEPT

    _, pack, student = echo
    token = f"daemon-of-{uuid.uuid4().hex}"
    (student / "echo.py").write_text(DAEMON.replace("{token}", token))
    code = textwrap.dedent(f"""\
        import ctypes, sys
        ctypes.CDLL = lambda *args, **kwargs: object()  # a C library without prctl
        path = {str(pack / "check.py")!r}
        sys.argv = [path, {str(student)!r}]
        exec(compile(open(path, encoding="utf-8").read(), path, "exec"),
             {{"__name__": "__main__", "__file__": path}})
        """)
    done = subprocess.run([SYSTEM_PYTHON, "-c", code], capture_output=True, text=True,
                          env=only_python(tmp_path), timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines().count(NOT_KEPT) == 1, done.stdout
    assert "1 of 1 visible cases pass" in done.stdout and done.stderr == "", done.stderr
    assert not own_processes(token)


READ_ONLY = """\
import atexit, os
os.makedirs("sub/deeper")
open("sub/deeper/f", "w").close()
atexit.register(lambda: [os.chmod(p, 0o500) for p in ("sub/deeper", "sub", ".")])
""" + ECHO


def test_a_program_that_makes_its_folders_read_only_is_cleaned_up(as_a_student):
    done, verdicts, scratch, _ = as_a_student(READ_ONLY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts == {"echo/hello": ("pass", "")}
    assert not list(scratch.iterdir()), "the run's folders are left behind"


def test_with_the_pack_inside_beside_one_folder_it_chooses_as_the_marker_does(echo, tmp_path):
    _, pack, student = echo
    (student / "work").mkdir()
    (student / "work" / "echo.py").write_text(ECHO)
    inside = shutil.copytree(pack, student / "pack")
    done, verdicts = checker_verdicts(inside, student, only_python(tmp_path), tmp_path)
    assert "holds one folder" not in done.stdout
    assert "`work/echo.py` looks like it" in done.stdout, done.stdout
    assert "Left out" not in done.stdout, "the pack's own cases are not the student's"


# The cases a team writes (golf_tests): read as the marker reads them, run on their program.
GOLF_TESTS = load("golf_tests")
GOLF, LITTLE_SPIDER = GOLF_TESTS.student_groups("patience")
GOLDEN = ROOT / "expected_outputs" / "patience"
WRITTEN_SUFFIXES = (".in", ".args", ".out", ".status", ".err")  # a team's case, piped
# Seed 1 deals the King of Hearts on top of tableau pile 4; a team that reads "any card may
# go on the empty homecell" expects `4 h` to put it there. The rules refuse it.
KING_INPUT = "4 h\nquit\n"
KING_REFUSED = "> 🂾 cannot go on homecell h: only the stock's top card goes on the empty homecell."


def a_team(folder: Path, cases, program: bool = True) -> Path:
    """A team's folder: the sample solution as their patience.py, and the golden cases
    named in `cases` ((group, names), ...) copied into the group's folder, as their own."""
    if program:
        write_assignment(GOLF_TESTS, folder)
    for group, names in cases:
        (folder / group.folder).mkdir(parents=True, exist_ok=True)
        for name in names:
            for suffix in WRITTEN_SUFFIXES:
                if (GOLDEN / f"{name}{suffix}").exists():
                    shutil.copy(GOLDEN / f"{name}{suffix}", folder / group.folder)
    return folder


def own_lines(stdout: str) -> list:
    """The lines on the team's own cases: a group's head, then a line per case."""
    return [line for line in stdout.splitlines() if line.startswith(("  your ", "    "))
            and not line.startswith("     ")]


def test_the_kit_s_own_cases_pass_beside_the_sample_solution(packs, tmp_path):
    """Each game's kit cases, handed in as a team's with the sample solution: every one
    passes, and the check says it cannot judge validity or thoroughness."""
    from exactmark.pack.check import CANNOT_JUDGE

    team = a_team(tmp_path / "team", [(GOLF, GOLF.kit_cases),
                                      (LITTLE_SPIDER, LITTLE_SPIDER.kit_cases)])
    for group in (GOLF, LITTLE_SPIDER):
        assert 1 < len(group.kit_cases) <= group.most, f"{group.name}: pick cases within `most`"
    done, said = checker_verdicts(packs / "golf_tests", team, only_python(tmp_path), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for group in (GOLF, LITTLE_SPIDER):
        count = len(group.kit_cases)
        assert (f"  {group.name} ({group.folder}/): {count} of {count} of your cases pass"
                in done.stdout.splitlines()), done.stdout
        for name in group.kit_cases:
            assert f"    {'pass':<{KIND_WIDTH}} {group.folder}/{name}" in done.stdout.splitlines(), \
                f"{group.folder}/{name}:\n{done.stdout}"
            assert said[f"{group.folder}/{name}"] == ("pass", ""), f"{group.folder}/{name}"
    assert len(said) == len(GOLF.kit_cases) + len(LITTLE_SPIDER.kit_cases), sorted(said)
    assert " ".join(CANNOT_JUDGE.split()) in " ".join(done.stdout.split())
    assert "a case your program passes may still be invalid" in CANNOT_JUDGE
    total = len(GOLF.kit_cases) + len(LITTLE_SPIDER.kit_cases)
    assert f"{total} of {total} of the cases you write pass on your program" in done.stdout
    assert "What differs" not in done.stdout and done.stderr == "", done.stderr


def test_a_case_expecting_a_king_on_the_empty_homecell_fails_and_shows_what_differs(
        packs, tmp_path):
    """A copy of a Golf case, its input `4 h` and its .out edited to put the King on the
    empty homecell: the sample solution refuses the move, so the case fails on it, drawn
    as a visible case's failure is (its input, the command that reproduces it, the diff)."""
    team = a_team(tmp_path / "team", [(GOLF, ["golf_empty_homecell_and_wrap_seed_1"]),
                                      (LITTLE_SPIDER, ["little_spider_won_seed_5"])])
    golf = team / GOLF.folder
    for suffix in (".args", ".status", ".err"):
        shutil.copy(golf / f"golf_empty_homecell_and_wrap_seed_1{suffix}",
                    golf / f"king_on_the_empty_homecell{suffix}")
    (golf / "king_on_the_empty_homecell.in").write_text(KING_INPUT, encoding="utf-8")
    dealt = (golf / "golf_empty_homecell_and_wrap_seed_1.out").read_text(
        encoding="utf-8").split("> ")[0]  # the deal of seed 1, and its first prompt
    king_there = (dealt.replace("homecell h:\n", "homecell h:     🂾\n")
                  .replace("tableau pile 4: 🂵 🃍 🂱 🂻 🂾", "tableau pile 4: 🂵 🃍 🂱 🂻"))
    assert king_there.count("🂾") == 1 and king_there != dealt
    (golf / "king_on_the_empty_homecell.out").write_text(f"{dealt}> \n{king_there}> ",
                                                         encoding="utf-8")
    done, said = checker_verdicts(packs / "golf_tests", team, only_python(tmp_path), tmp_path)
    case = f"{GOLF.folder}/king_on_the_empty_homecell"
    assert done.returncode == 1, done.stdout + done.stderr
    assert said[case][0] == "wrong output", said[case]
    assert f"  {GOLF.name} ({GOLF.folder}/): 1 of 2 of your cases pass" in done.stdout, done.stdout
    assert f"    {'wrong output':<{KIND_WIDTH}} {case}: {said[case][1]}" in \
        done.stdout.splitlines(), done.stdout
    differs = done.stdout[done.stdout.index("\nWhat differs\n"):]
    assert f"\n{case}: {said[case][1]}\n" in differs, differs
    assert "  input: '4 h\\nquit\\n'" in differs, differs
    assert (f"  reproduce, in your folder: python3 patience.py golf --seed 1 < {case}.in | "
            f"diff - {case}.out") in differs, differs
    assert f"+{KING_REFUSED}".replace(" ", "␠") + "⏎" in differs, differs
    assert said[f"{GOLF.folder}/golf_empty_homecell_and_wrap_seed_1"] == ("pass", "")


def test_the_cases_the_marker_refuses_are_refused_for_its_reasons_and_the_others_run(
        packs, tmp_path):
    """A linked case, a 2 MiB .out, names with a space and an accent, a case without its
    .out: each refused with the marker's reason; the team's good case still runs."""
    team = a_team(tmp_path / "team", [(GOLF, ["golf_won_seed_1"]),
                                      (LITTLE_SPIDER, ["little_spider_won_seed_5"])])
    golf, elsewhere = team / GOLF.folder, tmp_path / "elsewhere"
    shutil.copytree(golf, elsewhere)
    for suffix in (".args", ".in", ".out"):
        (golf / f"linked{suffix}").symlink_to(elsewhere / f"golf_won_seed_1{suffix}")
        for name in ("big", "my case", "café", "no_out"):
            shutil.copy(golf / f"golf_won_seed_1{suffix}", golf / f"{name}{suffix}")
    (golf / "big.out").write_bytes(b"x" * (2 << 20))
    (golf / "no_out.out").unlink()
    done, said = checker_verdicts(packs / "golf_tests", team, only_python(tmp_path), tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    linked = next((line for line in lines if line.startswith(
        f"    {'refused':<{KIND_WIDTH}} {GOLF.folder}/linked: ")), None)
    assert linked and ("linked.out is a link: the marker follows no link, so its copy of the "
                       "submission left it out") in linked, done.stdout
    not_plain = ("not a plain name: a case's name is letters, digits, _ and -, at most 100 of "
                 "them")
    for line in [
            f"    {'refused':<{KIND_WIDTH}} {GOLF.folder}/big: big.out holds 2097152 bytes, more than "
            "the 65536 a case's file may",
            *(f"    {'refused':<{KIND_WIDTH}} {GOLF.folder}/{name}{suffix}: {not_plain}"
              for name in ("café", "my case") for suffix in (".args", ".in", ".out")),
            f"    {'refused':<{KIND_WIDTH}} {GOLF.folder}/no_out: no no_out.out: what the program must "
            "print",
            f"    {'pass':<{KIND_WIDTH}} {GOLF.folder}/golf_won_seed_1",
            f"  {GOLF.name} ({GOLF.folder}/): 1 of 1 of your cases pass, 9 refused"]:
        assert line in lines, f"not said: {line}\n{done.stdout}"
    assert said[f"{GOLF.folder}/my case.in"] == ("refused", not_plain)
    assert said[f"{GOLF.folder}/no_out"] == ("refused",
                                             "no no_out.out: what the program must print")
    assert said[f"{GOLF.folder}/golf_won_seed_1"] == ("pass", "")
    assert "2 of 2 of the cases you write pass on your program; 9 refused" in done.stdout


def test_without_a_folder_of_cases_it_says_so_as_the_marker_does(packs, tmp_path):
    """The sample solution alone, no cases/: each group says what the marker says (its
    NO_FOLDER), and the check does not pass."""
    team = a_team(tmp_path / "team", [])
    done, said = checker_verdicts(packs / "golf_tests", team, only_python(tmp_path), tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    for group in (GOLF, LITTLE_SPIDER):
        why = f"the submission has no folder {group.folder}: no case to mark"
        assert f"  {group.name} ({group.folder}/): {why}" in done.stdout.splitlines(), done.stdout
        assert said[group.folder] == ("no case", why)
    assert "0 of 0 of the cases you write pass on your program; 2 groups without a case" \
        in done.stdout
    assert done.stderr == ""


def test_a_game_without_a_case_is_said_in_a_sentence_and_the_check_does_not_pass(packs, tmp_path):
    """Golf's cases all pass, Little Spider has none yet: the check says what that costs
    (the group earns nothing) and exits 1, since the team is not ready to submit. It marks
    no golden case, so it says nothing of visible or unseen ones."""
    team = a_team(tmp_path / "team", [])
    golf = team / GOLF.folder
    golf.mkdir(parents=True)
    for path in (packs / "golf_tests" / "expected_outputs" / "patience").glob("golf_won_seed_1.*"):
        (golf / path.name.replace("golf_won", "mine")).write_bytes(path.read_bytes())
    done = check(packs / "golf_tests", team, only_python(tmp_path))
    assert "1 of 1 of the cases you write pass on your program; 1 group without a case" \
        in done.stdout.splitlines(), done.stdout
    assert ("cases/little_spider/ (your Little Spider cases) has no case yet: as it is, the "
            "group earns none of its 10.00 marks, since each of its counts is a share of its cases; "
            "the handout asks for at least 6") in done.stdout.splitlines(), done.stdout
    assert "cases/golf/ (your Golf cases) has no case" not in done.stdout
    assert "visible case" not in done.stdout and "cannot see" not in done.stdout, done.stdout
    assert done.returncode == 1


def test_each_refusal_is_the_marker_s_own(packs, tmp_path):
    """Every way a case or a file can be refused, in one folder: the checker's refusals
    are exactmark.kit.written_cases.read_cases' on the marker's copy, reason for reason, word
    for word; the cases it keeps are the ones the checker runs."""
    from dataclasses import replace

    from exactmark.kit.written_cases import left_out_below, read_cases
    from exactmark.kit.submission import skip_reason
    from exactmark.base.tree import Limits, copy_tree

    pack = shutil.copytree(packs / "golf_tests", tmp_path / "pack")
    data = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
    data["programs"][0]["groups"][0]["most"] = 3  # so that a few cases are beyond it
    (pack / "pack.json").write_text(json.dumps(data), encoding="utf-8")
    group = replace(GOLF, most=3)
    team = a_team(tmp_path / "team", [(GOLF, ["golf_won_seed_1", "golf_won_seed_4",
                                              "golf_won_seed_10", "golf_rules_seed_5"]),
                                      (LITTLE_SPIDER, ["little_spider_won_seed_5"])])
    golf = team / GOLF.folder
    args = (golf / "golf_won_seed_1.args").read_bytes()
    cases = {"a b": {".in": b"q\n", ".out": b"x"}, "é": {".in": b"q\n", ".out": b"x"},
             "aa_big": {".in": b"q\n", ".out": b"x" * 70000}, "aa_no_out": {".in": b"q\n"},
             "aa_no_input": {".out": b"x"},
             "aa_status": {".in": b"q\n", ".out": b"x", ".status": b"minus one"},
             "aa_empty": {".in": b"q\n", ".out": b""},
             "aa_args": {".args": b"golf\0", ".out": b"x"},
             "simulate_1_2": {".args": args, ".out": b"x"},
             ".hidden": {".in": b"q\n", ".out": b"x"}}
    for name, files in cases.items():
        for suffix, content in files.items():
            (golf / f"{name}{suffix}").write_bytes(content)
    (golf / "notes.txt").write_text("what we meant to test\n")
    (golf / "sub").mkdir()
    (golf / "sub" / "deeper.in").write_text("q\n")
    (golf / "aa_linked.in").write_text("q\n")
    (golf / "aa_linked.out").symlink_to(golf / "golf_won_seed_1.out")
    (golf / "aa_linked_folder").symlink_to(tmp_path, target_is_directory=True)

    snapshot = tmp_path / "snapshot"  # the marker's copy, as exactmark/marking/mark.py makes it
    snapshot.mkdir()
    copied = copy_tree(team, snapshot, skip=skip_reason, limits=Limits())
    marker = read_cases(snapshot, group, left_out_below(copied.named, Path()))
    assert len(marker.refused) >= 14 and len(marker.cases) == 3, marker
    done, said = checker_verdicts(pack, team, only_python(tmp_path), tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    refused = [line for line in done.stdout.splitlines()
               if line.startswith(f"    {'refused':<{KIND_WIDTH}} {GOLF.folder}/")]
    assert refused == [f"    {'refused':<{KIND_WIDTH}} {GOLF.folder}/{refusal.name}: {refusal.why}"
                       for refusal in marker.refused], done.stdout
    assert {path: why for path, (kind, why) in said.items() if kind == "refused"} == {
        f"{GOLF.folder}/{refusal.name}": refusal.why for refusal in marker.refused}
    ran = sorted(path for path in said
                 if said[path][0] != "refused" and path.startswith(f"{GOLF.folder}/"))
    assert ran == sorted(case.id for case in marker.cases), ran
    reasons = " ".join(refusal.why for refusal in marker.refused)
    for words in ("not a plain name", "a link", "hidden", "more than the 65536", "no aa_no_out.out",
                  "no aa_no_input.in or aa_no_input.args", "beyond the 3 cases",
                  "not an exit status", "an empty aa_empty.out needs", "a folder: a group's",
                  "not a case file", "not UTF-8 text without NUL", "simulate(n, i)"):
        assert words in reasons, f"no refusal says {words!r}: {reasons}"


def test_a_sleeping_program_on_its_own_cases_ends_at_the_marking_limit(packs, tmp_path):
    """The team's own case runs as a visible case does: a patience.py that sleeps (and
    leaves a sleeping child) ends at the idle limit, and nothing of it is left."""
    team = a_team(tmp_path / "team", [(GOLF, ["golf_won_seed_1"])])
    token = "sleeper-of-" + tmp_path.name
    (team / "patience.py").write_text(SLEEPER.replace("{token}", token))
    started = time.monotonic()
    done, said = checker_verdicts(packs / "golf_tests", team, only_python(tmp_path), tmp_path)
    assert time.monotonic() - started < 60
    case = f"{GOLF.folder}/golf_won_seed_1"
    assert said[case][0] == "timeout" and said[case][1].startswith(
        "next to no CPU time used for 5 s: sleeping or waiting, not working"), said
    assert f"    {'timeout':<{KIND_WIDTH}} {case}: {said[case][1]}" in done.stdout, done.stdout
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert not own_processes(token)


def test_ctrl_c_on_its_own_cases_ends_the_check_in_one_line(packs, tmp_path):
    """Ctrl-C while the team's program runs on one of their cases: one line, the status
    of SIGINT, no traceback, no process left."""
    team = a_team(tmp_path / "team", [(GOLF, ["golf_won_seed_1", "golf_won_seed_4"])])
    token = "sleeper-of-" + tmp_path.name
    (team / "patience.py").write_text(SLEEPER.replace("{token}", token))
    process = subprocess.Popen([SYSTEM_PYTHON, str(packs / "golf_tests" / "check.py"), str(team)],
                               env=only_python(tmp_path), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=sigint_as_at_a_terminal)
    deadline = time.monotonic() + BACKSTOP_SECONDS
    while not own_processes(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert own_processes(token), "the program never started"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=BACKSTOP_SECONDS)
    assert process.returncode == 128 + signal.SIGINT, out + err
    assert err == "\nInterrupted: 0 of 2 of the cases you write checked\n", err
    assert not own_processes(token)


def test_without_the_program_its_cases_are_still_read_and_not_run(packs, tmp_path):
    """No patience.py: said once, as the marker says it; the cases are still read (and
    refused where the marker refuses them), and each is "not run"."""
    team = a_team(tmp_path / "team", [(GOLF, ["golf_won_seed_1"])], program=False)
    (team / GOLF.folder / "x y.in").write_text("q\n")
    done, said = checker_verdicts(packs / "golf_tests", team, only_python(tmp_path), tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert done.stdout.count("patience: missing: patience.py is not in the submission") == 1, \
        done.stdout
    case = f"{GOLF.folder}/golf_won_seed_1"
    assert said[case] == ("not run", "the program is not in the folder"), said
    assert f"    {'not run':<{KIND_WIDTH}} {case}: the program is not in the folder" in done.stdout
    assert said[f"{GOLF.folder}/x y.in"][0] == "refused"


def test_a_head_file_beside_a_case_is_refused_and_never_read(packs, tmp_path):
    """NAME.head is no file of a team's case: refused as such, and never read, as the
    marker never reads it. Else a case whose .out holds a screen's first byte, beside a
    .head of 1, would pass on any program that prints that byte."""
    team = a_team(tmp_path / "team", [(GOLF, ["golf_won_seed_1", "golf_won_seed_4"]),
                                      (LITTLE_SPIDER, ["little_spider_won_seed_5"])])
    out = team / GOLF.folder / "golf_won_seed_4.out"
    out.write_bytes(out.read_bytes()[:1])
    (team / GOLF.folder / "golf_won_seed_4.head").write_text("1\n")
    done, said = checker_verdicts(packs / "golf_tests", team, only_python(tmp_path), tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stderr
    case = f"{GOLF.folder}/golf_won_seed_4"
    assert said[case][0] == "wrong output", said
    assert said[f"{case}.head"][0] == "refused" and "not a case file" in said[f"{case}.head"][1]
    assert said[f"{GOLF.folder}/golf_won_seed_1"] == ("pass", "")
