"""The Python the runs use: found among the candidates, each asked what it is, proven to
start whole as a fallback run where there are no namespaces, and given a clean
environment of its own to start the runs from."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from exactmark.running.limits import scrubbed_environment
from exactmark.sandbox import launcher
from exactmark.sandbox.cgroups import kill_user
from exactmark.sandbox.errors import SandboxError
from exactmark.sandbox.mounts import under

# What an interpreter says it is (Identity's fields): asked as root, then as a fallback
# run's user, which must see the same (the version and the standard library's place included).
IDENTITY = ("import json, os, sys; print(json.dumps([os.path.realpath(sys.executable), "
            "sys.base_prefix, sys.base_exec_prefix, sys.version, os.__file__, "
            "'%d.%d' % sys.version_info[:2]]))")

NO_INTERPRETER = "no Python interpreter that the sandbox can run; give --python"
INTERPRETER_FAILS = "{python} does not run in the sandbox"
INTERPRETER_IN_KIT = "{python} lives inside the kit, which the sandbox hides: give another --python"
LANDLOCK_STOPS_PYTHON = "the interpreter does not start under it"


class Identity(NamedTuple):
    """An interpreter as it describes itself (IDENTITY)."""
    executable: str
    base_prefix: str
    base_exec_prefix: str
    version: str  # sys.version, whole
    os_module: str  # where its standard library's os.py lies
    minor: str  # "3.11"


def interpreters(python, hidden: list):
    """(interpreter, the folders it needs, what it says it is), asked of each candidate
    itself when the one before would not do: `python` alone when given; never a virtual
    environment's (its folder may lie inside the kit, which is `hidden`)."""
    candidates = [python] if python else [getattr(sys, "_base_executable", sys.executable),
                                          sys.executable, "/usr/local/bin/python3",
                                          "/usr/bin/python3"]
    found = set()
    for candidate in dict.fromkeys(candidates):
        try:
            done = subprocess.run([candidate, "-I", "-S", "-c", IDENTITY], capture_output=True,
                                  timeout=30, env=scrubbed_environment("/"), cwd="/")
            identity = Identity(*json.loads(done.stdout))
            executable, prefixes = identity.executable, identity[1:3]
        except (OSError, ValueError, TypeError, subprocess.SubprocessError):
            continue
        folders = {Path(os.path.realpath(prefix)) for prefix in prefixes}
        folders.add(Path(executable).parent.parent)
        if any(under(folder, kept) for folder in folders for kept in hidden):
            raise SandboxError(INTERPRETER_IN_KIT.format(python=candidate))
        if executable not in found:
            found.add(executable)
            yield executable, sorted(folders), identity


def none_runs(python) -> SandboxError:
    """The refusal when no candidate will do: the one given, or any."""
    return SandboxError(INTERPRETER_FAILS.format(python=python) if python else NO_INTERPRETER)


def runs_in_fallback(sandbox, python: str, identity: Identity) -> bool:
    """Whether `python` starts whole as a fallback run of `sandbox`: its user, its limits,
    its layers, and the same interpreter as the marker saw (where its user cannot read the
    installation, as under a 0700 /root, the dynamic loader may take another one's
    library, and that one's standard library). Should Landlock be what stops it, the
    fallback goes on without Landlock, and says so."""
    home = tempfile.mkdtemp(prefix="probe-", dir=sandbox.scratch)
    try:
        if _starts(sandbox, python, sandbox.access(Path(home), None, home, home), identity):
            return True
    finally:
        os.rmdir(home)
    confinement = sandbox.confinement
    if confinement.abi and _starts(sandbox, python, None, identity):
        confinement.abi, confinement.why_no_landlock = 0, LANDLOCK_STOPS_PYTHON
        return True
    return False


def _starts(sandbox, python: str, access, identity: Identity) -> bool:
    uid = sandbox.new_user()
    entering = sandbox.confinement.entering(access)
    try:
        done = subprocess.run(launcher.argv("/", uid, sandbox.limits(uid),
                                            [python, "-I", "-S", "-c", IDENTITY]),
                              capture_output=True, timeout=30, preexec_fn=entering,
                              env={**scrubbed_environment("/"),
                                   **launcher.environment("", "")}, cwd="/")
    finally:
        kill_user(uid)
    try:
        return done.returncode == 0 and Identity(*json.loads(done.stdout)) == identity
    except (ValueError, TypeError):
        return False


def clean_environment(folder: Path, python: str, version: str) -> Path:
    """A virtual environment over `python` with no package of its own: site.py then puts
    only its empty site-packages on sys.path (not the installation's, whose .pth files cost
    each run tens of milliseconds and whose packages a student's machine lacks), while
    sys.flags, exit() and the program's own folder on sys.path stay as `python3 file.py`
    has them. Readable by every user: a fallback run's user starts from it."""
    name = Path(python).name
    (folder / "lib" / f"python{version}" / "site-packages").mkdir(parents=True)
    (folder / "bin").mkdir()
    (folder / "bin" / name).symlink_to(python)
    if name != "python3":
        (folder / "bin" / "python3").symlink_to(name)
    (folder / "pyvenv.cfg").write_text(f"home = {Path(python).parent}\n"
                                       "include-system-site-packages = false\n"
                                       f"version = {version}\n", encoding="utf-8")
    for path in (folder, *folder.rglob("*")):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return folder
