"""Gradescope's autograder for an assignment: `make gradescope ASSIGNMENT=NAME`.

    exactmark gradescope NAME|FILE.toml [--out autograder.zip] [--budget SECONDS]
                         [--extensions CSV]

The zip holds, and holds only: setup.sh and run_autograder (Gradescope's two
entry points), the marker (the kit's marking code and what it imports, whole), the autograder's
runtime (its entry, the results schema, the autograder's settings), the assignment
file and its schema, requirements-mark.txt, and the golden case files of the
assignment's programs (no other program's, no kit tests). No tool the autograder
never runs (the class marker, verify, the student pack, this builder), and no
reference program either, unless the assignment marks cases students write: then
it holds what the marker makes the reference and the wrong programs from (the
sample solution's sources, the wrong programs its groups name, and where a group's
mistakes are its game's, the rule lists and handouts that say which). Where a
program's cases are marked and its wrong programs' signatures stand for the checkout, it
holds them, with the rule map and the handouts they quote, so that the results name a
student's mistake as the marker does (`diagnosis_shipped`). setup.sh leaves all of it to
root alone. Entries are sorted, with fixed times and modes: the
same kit and assignment give the same bytes. With --extensions, the students' own terms
(an email or Gradescope's user id, and a deadline or an extension, and the late days left)
go in too, beside the autograder's settings: an extension granted on Gradescope needs none.
"""

import argparse
import io
import json
import math
import os
import re
import shlex
import sys
import tempfile
import zipfile
from pathlib import Path

from exactmark.kit.cases import PACKAGE_HOME, ROOT
from exactmark.base import from_make
from exactmark.diagnosis.known import knowledge
from exactmark.marking import student_cases
from exactmark.kit.assignment import AssignmentError, load, names
from exactmark.running.limits import IDLE_FLOOR_SECONDS, time_caps
from exactmark.marking.mark import FIRST_PASS_FRACTION, FIRST_PASS_SECONDS, budget_parts, first_pass_cap, \
    shares
from exactmark.pack.published import CHECK_YOUR_WORK, pack_url
from exactmark.distributed.shipment import DATA, EXECUTABLE, FIXED_TIME, PLAIN, assignment_files, \
    diagnosis_files, marker_files, student_case_files
from exactmark.distributed import shipment
from exactmark.gradescope import run, terms
from exactmark.verify.signatures import stale
PACKAGE = Path(__file__).resolve().parent.relative_to(PACKAGE_HOME).as_posix()
MARKER_FLOORS = shipment.MARKER_FLOORS  # the floors whose modules the zip's marker is
RUNTIME = [f"{PACKAGE}/__init__.py", f"{PACKAGE}/run.py", f"{PACKAGE}/results.schema.json"]
SETTINGS = f"{PACKAGE}/{run.SETTINGS_NAME}"
# Gradescope's default timeout for a whole submission is 10 minutes: the marker is
# stopped a minute before, so that results.json is written in time.
DEFAULT_BUDGET = 540
PLATFORM_MOST_SECONDS = 2400  # Gradescope stops any autograder at 40 minutes
MOST_BUDGET = PLATFORM_MOST_SECONDS - run.GRACE_SECONDS  # the marker's minute to stop, within it
LEAST_BUDGET = 10
BAD_BUDGET = (f"seconds from {LEAST_BUDGET} to {MOST_BUDGET}: Gradescope stops an autograder at "
              f"{PLATFORM_MOST_SECONDS} s, and the marker needs {run.GRACE_SECONDS} s after its "
              "budget to write what it marked")
IMAGE_PYTHON = "python3"
NO_INTERPRETER_NAMED = ("the assignment names no interpreter: the submission runs on the image's "
                        "python3 (Python 3.10 on Gradescope's default image, Ubuntu 22.04)")
INTERPRETER_NAMED = "the submission runs on Python {version}, as the assignment names"
PLATFORM_CORES = 1  # what the build counts on: Gradescope's default machine has one CPU
TOO_LITTLE_TIME = ("warning: a budget of {budget:g} s cannot hold the handout's limits: on {cores} "
                   "core, the runs get {cpu:g} s of CPU and {waiting:g} s of waiting, shared in "
                   "proportion to marks; were every run to end at its CPU limit ({limit:g} s) or "
                   "idle ({idle:g} s), these would not run and would count 0:")
FIRST_PASS_LINE = ("  (each run has {cap:g} s of CPU first, those {cap:g} s counted; only those "
                   "that need more run again, with the whole limit, while their part's share "
                   "lasts)")
CUT_LINE = "  {part}: {cut} of {runs} runs"
LIMITS_THAT_FIT = "  limits that fit: {offers}"
BUDGET_FITS = "--budget {seconds:g} (Gradescope's timeout above it)"
CPU_FITS = "cpu_seconds = {seconds:g} in the assignment file"
NOTHING_FITS = ("none: no budget up to {most:g} s holds them, nor does any cpu_seconds (a run "
                "may wait {idle:g} s at least before it is idle)")
WROTE = ("wrote {out}: {name}, {cases} marked cases of {programs}{groups}, {files} files; "
         "{interpreter}")
NO_ASSIGNMENT = ("say which assignment: make gradescope ASSIGNMENT=NAME (or FILE.toml); "
                 "the assignments are: {names}")
# The assignment's name goes into the scripts and a path: letters, digits, _ and - only.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
BAD_NAME = ("{name!r}: name the assignment file with letters, digits, _ and - only "
            "(its name goes into the autograder's scripts)")
STALE_SIGNATURES = "warning: {program}: the autograder names none of its mistakes: {why}"
WROTE_EXTENSIONS = "; the own terms of {students} student{s} from {path}"
WROTE_GROUPS = " and {groups} group{s} of cases students write ({mistakes} wrong programs)"
EXAMPLE = "example: exactmark gradescope seeded --out autograder.zip --budget 1200"

SETUP = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root and with the network, while it builds the
# autograder's image (Ubuntu 22.04). It installs what marking @NAME@ needs and
# nothing else, then makes the marker and its golden cases readable by root only.
#
#   bash setup.sh [system] [venv] [check] [lock]    (no step given: all four, in order)
#
# AUTOGRADER_ROOT (default /autograder) moves the whole layout, for a test.
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
source_dir="$root/source"
venv="$root/venv"
# Interpreter: @INTERPRETER@.
python=@PYTHON@
time_zone=@TIME_ZONE@  # non-empty: the deadline is in a time zone, which needs tzdata
language_packages=(@LANGUAGE_PACKAGES@)  # what the assignment's languages build with
compilers=(@COMPILERS@)

system() {
  # bubblewrap: the marker's namespace sandbox. Without it, or where the container
  # refuses namespaces, the marker uses its hardened fallback and says so: an
  # apt-get failure is not fatal. The interpreter and its venv module are.
  local packages=(bubblewrap libseccomp2 "${language_packages[@]}")
  [[ -z "$time_zone" ]] || packages+=(tzdata)
  if ! command -v "$python" >/dev/null || ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
    packages+=("$python" "$python-venv")
  fi
  if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
           "${packages[@]}" >/dev/null; }; then
    echo "setup.sh: apt-get could not install ${packages[*]}; going on without" >&2
  fi
  command -v "$python" >/dev/null || { echo "setup.sh: no $python: cannot mark" >&2; exit 1; }
  for compiler in "${compilers[@]}"; do
    command -v "$compiler" >/dev/null || { echo "setup.sh: no $compiler: cannot build" >&2; exit 1; }
  done
}

venv() {
  # The marker's own packages (requirements-mark.txt), apart from the system's.
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
    -r "$source_dir/requirements-mark.txt"
}

check() {
  # The marker loads the assignment here, as it will for each submission, and says what
  # confines each run: a time zone or an interpreter that is missing, or a layer of
  # isolation the assignment requires (require = [...]) that this image lacks, fails the
  # build, not the students.
  (cd "$source_dir" && "$venv/bin/python" -m @RUNNER@ --check)
}

lock() {
  # The marker's source and the golden cases: root's alone. Submissions run as
  # other users (a throwaway user per run), in namespaces or in the fallback.
  chmod -R go-rwx "$source_dir"
}

steps=("$@")
((${#steps[@]})) || steps=(system venv check lock)
for step in "${steps[@]}"; do
  case "$step" in
    system|venv|check|lock) "$step" ;;
    *) echo "setup.sh: no step $step (system, venv, check, lock)" >&2; exit 2 ;;
  esac
done
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this as root for each submission. It marks /autograder/submission
# with the assignment @NAME@: @PACKAGE@/run.py writes /autograder/results/results.json,
# the marker's results or, when the marker refuses the submission, a score of 0 and
# why. When the autograder itself fails (the marker, run.py, or Python), it leaves no
# results.json, so that Gradescope says the autograder failed rather than show a 0.
# No `set -e`: this script must reach its end.
set -uo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
results="$root/results/results.json"
python="$root/venv/bin/python"
[[ -x "$python" ]] || python=python3
mkdir -p "$root/results"
(cd "$root/source" && "$python" -m @RUNNER@)
status=$?
if ((status)); then
  echo "run_autograder: @PACKAGE@/run.py did not end normally (status $status): no results.json"
  rm -f "$results"
fi
exit 0
"""


def filled(template: str, **values) -> str:
    """The template with each @NAME@ replaced (bash keeps its own braces and dollars)."""
    for name, value in values.items():
        template = template.replace(f"@{name}@", value)
    left = re.findall(r"@[A-Z_]+@", template)
    assert not left, f"unfilled: {left}"
    return template


def settings(assignment, budget: float, pack_url: str = None) -> dict:
    """autograder.json: what the run reads; `pack_said`, the Markdown line on the student
    pack, written here, where the URL was checked (exactmark/gradescope/run.py imports nothing);
    `submissions`, how many count, with the time zone their times are said in."""
    limit = assignment.submissions
    return {"assignment": assignment.name, "title": assignment.title, "marks": assignment.marks,
            "pack_said": CHECK_YOUR_WORK.format(url=f"<{pack_url}>") if pack_url else "",
            "cpu_seconds": assignment.cpu_seconds,
            "deadline": assignment.deadline.isoformat() if assignment.deadline else None,
            "python": interpreter_of(assignment),
            "budget_seconds": int(budget) if budget == int(budget) else budget,
            "programs": {program: assignment.program_marks(program)
                         for program in assignment.marked_cases},
            "student_groups": assignment.chosen_mistakes(),
            "submissions": limit.settings() if limit else None,
            "time_zone": getattr(assignment.deadline.tzinfo, "key", None)
            if assignment.deadline else None}


def interpreter_of(assignment):
    """The Python version the assignment names (an optional `python = "3.11"`), or None."""
    return getattr(assignment, "python", None)


def diagnosis_shipped(assignment) -> tuple:
    """({name in the zip: path}, warnings): what the marker names each program's mistakes
    from (shipment.diagnosis_files), for each program whose cases are marked and that has
    signatures. Stale ones (exactmark.verify.signatures.stale) stay out, each with a
    warning naming the command that writes them again, and the build goes on: they were
    written from other cases, another reference or other wrong programs than the
    autograder marks with, so a mistake they name may be one the student did not make, in
    every student's results, where saying nothing beats a wrong guess; the marks do not
    rest on them, so an autograder that must ship tonight still can."""
    files, warnings = {}, []
    for name, marked in assignment.marked_cases.items():
        program = assignment.programs[name]
        if not marked or knowledge(assignment, program) is None:
            continue
        why = stale(assignment, program)
        if why:
            warnings.append(STALE_SIGNATURES.format(program=name, why=why))
        else:
            files.update(diagnosis_files(assignment, program))
    return files, warnings


def entries(assignment, budget: float, pack_url: str = None, extensions: dict = None,
            diagnosis: dict = None) -> dict:
    """{name in the zip: (bytes, mode)}; `extensions`, the students' own terms
    (terms.read_extensions), or None; `diagnosis`, what names the mistakes
    (`diagnosis_shipped`), found here when not given."""
    if not SAFE_NAME.fullmatch(assignment.name):
        raise ValueError(BAD_NAME.format(name=assignment.name))
    if diagnosis is None:
        diagnosis = diagnosis_shipped(assignment)[0]
    files = {}
    for name in [*marker_files(), *RUNTIME]:
        files[name] = ((PACKAGE_HOME / name).read_bytes(), PLAIN)
    for name in DATA:
        files[name] = ((ROOT / name).read_bytes(), PLAIN)
    own = assignment_files(assignment)
    for name, path in [*own.items(), *student_case_files(assignment).items(),
                       *diagnosis.items()]:
        files[name] = (path.read_bytes(), PLAIN)
    config = settings(assignment, budget, pack_url)
    config["assignment_file"] = next(name for name, path in own.items()
                                     if path == assignment.path)
    config["extensions"] = None
    if extensions is not None:
        data = terms.extensions_bytes(extensions)
        files[f"{PACKAGE}/{run.EXTENSIONS_NAME}"] = (data, PLAIN)
        config["extensions"] = terms.record(data, extensions)
    files[SETTINGS] = (json.dumps(config, indent=2, sort_keys=True).encode() + b"\n", PLAIN)
    version = interpreter_of(assignment)
    interpreter = (INTERPRETER_NAMED.format(version=version) if version else NO_INTERPRETER_NAMED)
    languages = {program.language.name: program.language
                 for program in assignment.programs.values()}
    packages = sorted({package for language in languages.values()
                       for package in language.packages})
    compilers = sorted({language.compile[0] for language in languages.values() if language.built})
    files["setup.sh"] = (filled(
        SETUP, NAME=assignment.name, RUNNER=run.__name__, INTERPRETER=interpreter,
        PYTHON=shlex.quote(f"python{version}" if version else IMAGE_PYTHON),
        TIME_ZONE="yes" if assignment.deadline is not None else "''",
        LANGUAGE_PACKAGES=" ".join(map(shlex.quote, packages)),
        COMPILERS=" ".join(map(shlex.quote, compilers))).encode(), EXECUTABLE)
    files["run_autograder"] = (filled(RUN_AUTOGRADER, NAME=assignment.name,
                                      PACKAGE=PACKAGE, RUNNER=run.__name__).encode(), EXECUTABLE)
    return files


def zip_bytes(files: dict) -> bytes:
    """The zip of `files`, sorted, with fixed times and modes: the same files, the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(files):
            data, mode = files[name]
            if name.endswith((".sh", "run_autograder")):
                data = data.replace(b"\r\n", b"\n")
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.create_system = 3  # unix: the modes below are read
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data, compresslevel=9)
    return buffer.getvalue()


def write(out: Path, data: bytes) -> None:
    """A new file renamed over `out`: a link there is replaced, never followed."""
    out = out.absolute()
    fd, temporary = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def worst_runs(assignment) -> dict:
    """part (exactmark.marking.mark.Share's) -> the runs it has at most on Gradescope, were each to
    end at a limit: a program's cases; a group's reference runs and the student's program's
    on each case it may hold, and a run per wrong program (one at a limit fails the case,
    which catches it)."""
    runs = {program: assignment.case_count(program) for program in assignment.marked_cases
            if assignment.case_count(program)}  # golden and fresh
    for program in assignment.marked_cases:
        for group in assignment.student_groups(program):
            for count, many in (("valid", group.most), ("thorough", len(group.mistakes)),
                                ("own_code", group.most)):
                runs[student_cases.part(program, group, count)] = many
    return runs


def worst_cost(limit: float) -> float:
    """The CPU seconds of a run that needs its whole `limit`: the first pass's cap
    (exactmark.marking.mark.first_pass_cap), then the limit, where the cap is shorter."""
    cap = first_pass_cap(limit)
    return limit + cap if cap < limit else limit


def most_limit(each: float) -> float:
    """The largest CPU limit whose `worst_cost` is at most `each` seconds."""
    tried = (min(each, FIRST_PASS_SECONDS), each - FIRST_PASS_SECONDS,
             each / (1 + FIRST_PASS_FRACTION))
    return max(limit for limit in tried if 0 < limit and worst_cost(limit) <= each * (1 + 1e-9))


def cut_at_limits(assignment, budget: float, cores: int = PLATFORM_CORES) -> tuple:
    """(part -> (runs, runs not run) where some would not, the budget that holds every run at
    its limits or None, the cpu_seconds that does or None): what the marker's budget
    (exactmark.gradescope.run.marker_budgets, shared by exactmark.marking.mark.shares) leaves of a submission
    whose every run needs its whole CPU limit, or ends idle. Each part's runs go in two
    passes (exactmark.marking.mark.FIRST_PASS_SECONDS): all at the first pass's cap, then again with
    the whole limit, while the part's share lasts."""
    limit = assignment.cpu_seconds
    cap = first_pass_cap(limit)
    first = cap if cap < limit else 0.0  # what each run spends before its whole limit
    idle = time_caps(limit, assignment.wall_seconds)[1]
    runs = worst_runs(assignment)
    groups = {program: list(assignment.student_groups(program)) for program in assignment.marked_cases}
    present = dict.fromkeys(assignment.marked_cases, True)
    parts = budget_parts(assignment.marked_cases, groups, present)
    cpu, waiting = run.marker_budgets(budget, cores, cores)
    split = shares(parts, cpu, waiting)
    cut = {}
    for part, share in split.items():
        ran = min(max(0, math.ceil((share.cpu - runs[part] * first) / limit)),
                  math.ceil(share.waiting / idle))
        if runs[part] > ran:
            cut[part] = (runs[part], runs[part] - ran)
    # The share a part gets of each second of budget, and the seconds its runs need.
    unit = shares(parts, *run.marker_budgets(1.0, cores, cores))
    need = max(runs[part] * max(limit + first, idle) / unit[part].cpu for part in split)
    fits = need if need <= MOST_BUDGET else None
    each = min(share.cpu / runs[part] for part, share in split.items())
    cpu_fits = math.floor(most_limit(each) * 10) / 10 if each >= IDLE_FLOOR_SECONDS else None
    return cut, fits, cpu_fits


def budget_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(BAD_BUDGET) from None
    if not LEAST_BUDGET <= value <= MOST_BUDGET:
        raise argparse.ArgumentTypeError(BAD_BUDGET)
    return value


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="exactmark gradescope", description=__doc__,
                                    epilog=EXAMPLE,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("assignment", nargs="?", metavar="NAME|FILE.toml",
                       help=f"one of: {', '.join(names())}; or an assignment file of your own")
    parse.add_argument("--out", type=Path, default=Path("autograder.zip"),
                       help="the zip to write (default autograder.zip)")
    parse.add_argument("--budget", type=budget_seconds, default=DEFAULT_BUDGET,
                       help="seconds the marker may take for one submission before it is stopped "
                            f"(default {DEFAULT_BUDGET}: Gradescope's default timeout is 600)")
    parse.add_argument("--pack-url", type=pack_url, metavar="URL",
                       help="where the assignment's student pack (make student-pack) is "
                            "published: each student's results say how to check with it")
    parse.add_argument("--extensions", type=Path, metavar="CSV",
                       help="students' own terms: the columns student (an email or Gradescope's "
                            "user id), deadline or extension (\"3 days\"), late_days_left "
                            "(optional); Gradescope's own extensions need none")
    return parse


def main(argv=None) -> int:
    parse = parser()
    options = parse.parse_args(argv)
    if not options.assignment:
        parse.error(NO_ASSIGNMENT.format(names=", ".join(names())))
    try:
        assignment = load(options.assignment)
    except AssignmentError as problem:
        parse.error(str(problem))
    if not options.out.parent.is_dir():
        parse.error(f"--out: no folder {options.out.parent}")
    try:
        extensions = (None if options.extensions is None
                      else terms.read_extensions(options.extensions, assignment))
        diagnosis, warnings = diagnosis_shipped(assignment)
        files = entries(assignment, options.budget, options.pack_url, extensions, diagnosis)
    except ValueError as problem:
        parse.error(str(problem))
    write(options.out, zip_bytes(files))
    cases = sum(map(assignment.case_count, assignment.marked_cases))
    version = interpreter_of(assignment)
    groups = assignment.every_student_group
    print(WROTE.format(out=options.out, name=assignment.name, cases=cases,
                       programs=", ".join(assignment.marked_cases), files=len(files),
                       groups=WROTE_GROUPS.format(
                           groups=len(groups), s="s" * (len(groups) != 1),
                           mistakes=len({(g.program, m) for g in groups for m in g.mistakes}))
                       if groups else "",
                       interpreter=INTERPRETER_NAMED.format(version=version) if version
                       else NO_INTERPRETER_NAMED)
          + (WROTE_EXTENSIONS.format(students=len(extensions), s="s" * (len(extensions) != 1),
                                     path=options.extensions) if extensions is not None else ""))
    for warning in warnings:
        print(warning, file=sys.stderr)
    warn_of_cuts(assignment, options.budget)
    return 0


def warn_of_cuts(assignment, budget: float) -> None:
    """Where Gradescope's budget cannot hold the handout's limits: which runs a submission
    that reaches them would lose, and the limits that would fit."""
    cut, fits, cpu_fits = cut_at_limits(assignment, budget)
    if not cut:
        return
    cpu, waiting = run.marker_budgets(budget, PLATFORM_CORES, PLATFORM_CORES)
    print(TOO_LITTLE_TIME.format(budget=budget, cores=PLATFORM_CORES, cpu=cpu, waiting=waiting,
                                 limit=assignment.cpu_seconds,
                                 idle=time_caps(assignment.cpu_seconds,
                                                assignment.wall_seconds)[1]))
    cap = first_pass_cap(assignment.cpu_seconds)
    if cap < assignment.cpu_seconds:
        print(FIRST_PASS_LINE.format(cap=cap))
    for part, (runs, lost) in cut.items():
        print(CUT_LINE.format(part=part, cut=lost, runs=runs))
    offers = ([BUDGET_FITS.format(seconds=max(LEAST_BUDGET, math.ceil(fits)))] if fits else []) + (
        [CPU_FITS.format(seconds=cpu_fits)] if cpu_fits else [])
    print(LIMITS_THAT_FIT.format(offers=" or ".join(offers) if offers
                                 else NOTHING_FITS.format(most=MOST_BUDGET, idle=IDLE_FLOOR_SECONDS)))


if __name__ == "__main__":
    sys.exit(main(from_make.arguments(parser(), [("MARK_OUT", "--out"),
                                                 ("MARK_EXTENSIONS", "--extensions")],
                                      "MARK_ASSIGNMENT")
                  if len(sys.argv) == 1 and "MARK_ASSIGNMENT" in os.environ else None))
