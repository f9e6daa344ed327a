"""What a worker and the coordinator compare before a student is marked: the kit's identity
(its commit and the digest of its code), the assignment's fingerprint, a host's facts (name,
CPU model, Python, bubblewrap, the isolation layers its sandbox gives) and the reference's
CPU time on the assignment's marked cases (the calibration behind --host-margin).

`python -m exactmark.distributed.identity --assignment FILE` prints them as JSON: the worker
runs it from the unpacked kit (PYTHONPATH and working folder the kit), so that the facts are
those of the code and the assignment that will mark, not of the process that asks.
"""

import argparse
import functools
import hashlib
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from exactmark.base.tree import remove_tree
from exactmark.kit.assignment import REQUIREMENTS, AssignmentError, load
from exactmark.kit.bundle import write_assignment, write_program
from exactmark.kit.cases import PACKAGE_HOME
from exactmark.marking.request import MarkRequest
from exactmark.sandbox.errors import SandboxError
from exactmark.sandbox.sandbox import Sandbox
from exactmark.distributed.shipment import KIT_FILE, code_files

# Of results.json as kept: a kit that reads it otherwise marks again (3: a fresh case's files).
RESULTS_FORMAT = 3
UNKNOWN = "unknown"  # a commit no checkout says, a CPU model /proc/cpuinfo does not name
NO_BWRAP = "none"
CPUINFO = Path("/proc/cpuinfo")
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")  # new at each boot of a machine
GIT_SECONDS = 10
PROBE_SECONDS = 1  # the sandbox probed with a run's CPU limit it never uses
READ_MOST = 1 << 20  # bytes of a kit's KIT_FILE, of the facts a kit prints
CALIBRATION_RUNS = 3  # marked runs of the reference (the first compiles): the fewest CPU seconds


def assignment_fingerprint(assignment) -> str:
    """The assignment file and every golden case it marks, and where it marks cases the
    students write or fresh cases, the reference (and the wrong programs the students'
    cases run on): a regrade changes it, and a worker whose kit gives another refuses."""
    digest = hashlib.sha256(assignment.path.read_bytes())
    digest.update(str(RESULTS_FORMAT).encode())
    for cases in assignment.marked_cases.values():
        for marked in cases:
            for path in sorted(marked.case.folder.glob(f"{marked.case.name}.*")):
                digest.update(path.name.encode() + path.read_bytes())
    for program, declared in assignment.programs.items():
        groups = assignment.student_groups(program)
        if groups or assignment.fresh_groups(program):
            with tempfile.TemporaryDirectory(prefix="fingerprint-") as folder:
                for path, _ in write_program(declared, Path(folder)):
                    digest.update(path.name.encode() + path.read_bytes())
            for folder, name in sorted({(group.wrong_folder, name) for group in groups
                                        for name in group.mistakes}):
                digest.update(name.encode() + (folder / f"{name}.toml").read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def kit_identity(home: Path = PACKAGE_HOME) -> dict:
    """{"commit", "digest"} of the kit whose package lies in `home`: the commit its KIT_FILE
    says (an unpacked worker kit), else git's HEAD of a checkout, else UNKNOWN; the digest,
    sha256 of its code (shipment.code_files), names and bytes. Once per process: the code
    a process runs is the code it found first, whatever is edited after."""
    digest = hashlib.sha256()
    for name in code_files(home):
        data = (home / name).read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode() + data)
    return {"commit": commit_of(home), "digest": digest.hexdigest()}


def commit_of(home: Path) -> str:
    try:
        with open(home / KIT_FILE, "rb") as file:
            said = json.loads(file.read(READ_MOST)).get("commit")
        return said if isinstance(said, str) else UNKNOWN
    except (OSError, ValueError, AttributeError):
        pass
    if not (home / ".git").exists() or shutil.which("git") is None:
        return UNKNOWN
    try:
        done = subprocess.run(["git", "-C", str(home), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=GIT_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return UNKNOWN
    found = done.stdout.strip()
    return found if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", found) else UNKNOWN


def cpu_model() -> str:
    try:
        text = CPUINFO.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or UNKNOWN
    found = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return " ".join(found.group(1).split()) if found else (platform.processor() or UNKNOWN)


def bwrap_version() -> str:
    """bubblewrap's version ("0.8.0"), or NO_BWRAP."""
    found = shutil.which("bwrap")
    if found is None:
        return NO_BWRAP
    try:
        said = subprocess.run([found, "--version"], capture_output=True, text=True,
                              timeout=GIT_SECONDS).stdout
    except (OSError, subprocess.TimeoutExpired):
        return NO_BWRAP
    return said.split()[-1] if said.split() else NO_BWRAP


def machine_id() -> str:
    """This machine, as long as it runs: its name and its boot's id. A worker on the
    coordinator's own machine has the coordinator's speed: its CPU time is not compared."""
    try:
        boot = BOOT_ID.read_text(encoding="ascii").strip()
    except OSError:
        boot = UNKNOWN
    return f"{socket.gethostname()}:{boot}"


def host_facts(isolation: str = "auto") -> dict:
    """This host as a result names it (host, cpu, python, bwrap, layers), with what its
    sandbox gives (`fallback`: no namespaces; `has`: each requirement; `sandbox`: why none
    can be made, else "")."""
    facts = {"host": socket.gethostname(), "cpu": cpu_model(),
             "python": platform.python_version(), "bwrap": bwrap_version(), "layers": [],
             "fallback": True, "has": dict.fromkeys(REQUIREMENTS, False), "sandbox": ""}
    scratch = Path(tempfile.mkdtemp(prefix="identity-"))
    try:
        sandbox = Sandbox(PROBE_SECONDS, scratch, [], isolation=isolation or "auto")
        try:
            facts.update(layers=sandbox.layers(), fallback=not sandbox.namespaces,
                         has={name: sandbox.has(name) for name in REQUIREMENTS})
        finally:
            sandbox.close()
    except SandboxError as problem:
        facts["sandbox"] = str(problem)
    finally:
        remove_tree(scratch)
    return facts


def reference_cpu(assignment, home: Path = PACKAGE_HOME, isolation: str = None) -> float:
    """The CPU seconds of marking the reference (the sample solutions, as a submission) on
    the assignment's marked cases, with the marker of the kit at `home`: the marker's own
    and every process it waited for, its runs among them. The fewest of CALIBRATION_RUNS
    runs: a busy machine's contention (its caches, the other cores' work) only ever adds
    CPU time, so the fewest is closest to the machine's own speed."""
    scratch = Path(tempfile.mkdtemp(prefix="calibrate-"))
    try:
        submission = scratch / "reference"
        submission.mkdir()
        write_assignment(assignment, submission)
        asked = MarkRequest(str(assignment.path), str(submission), json=str(scratch / "r.json"),
                            jobs=1, isolation=isolation)
        command, environment = asked.hidden(os.environ)
        environment["PYTHONPATH"] = str(home)
        # Bytecode compiled once, the first run's, wherever the kit lies: a worker's
        # freshly unpacked kit and a checkout with its __pycache__ then time the same work.
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        environment["PYTHONPYCACHEPREFIX"] = str(scratch / "bytecode")
        return min(cpu_of(command, home, environment) for _ in range(CALIBRATION_RUNS))
    finally:
        remove_tree(scratch)


def cpu_of(command: list, home: Path, environment: dict) -> float:
    """The CPU seconds of one run of `command` and every process it waited for."""
    process = subprocess.Popen(command, cwd=home, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=environment)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0  # reaped above
    return usage.ru_utime + usage.ru_stime


def facts_of(assignment_path: Path, isolation: str = None, calibrate: bool = False) -> dict:
    """Everything the worker compares, of the code this process runs and the assignment at
    `assignment_path`: {"kit", "fingerprint", "host": host_facts, "cpu_seconds"}."""
    assignment = load(str(assignment_path))
    return {"kit": kit_identity(), "fingerprint": assignment_fingerprint(assignment),
            "host": host_facts(isolation),
            "cpu_seconds": reference_cpu(assignment, PACKAGE_HOME, isolation) if calibrate
            else None}


def main(argv=None) -> int:
    parse = argparse.ArgumentParser(prog="python -m exactmark.distributed.identity",
                                    description=__doc__)
    parse.add_argument("--assignment", required=True, type=Path)
    parse.add_argument("--isolation", choices=["auto", "namespaces", "fallback"])
    parse.add_argument("--calibrate", action="store_true",
                       help="and the reference's CPU seconds on the marked cases")
    options = parse.parse_args(argv)
    try:
        facts = facts_of(options.assignment, options.isolation, options.calibrate)
    except AssignmentError as problem:
        print(str(problem), file=sys.stderr)
        return 2
    print(json.dumps(facts, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
