"""The interpreter a submission runs on: one installation, whole (its binary and its
standard library), seeing the standard library alone, as a student's own machine has it,
and behaving as `python3 file.py` does there: `exit()` exists (no -S), the program's own
folder comes first on sys.path so a sibling module imports (no -I, no -P)."""

import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from exactmark.kit.cases import ROOT
from exactmark.sandbox.errors import SandboxError
from exactmark.sandbox.mounts import SANDBOX_PYTHON
from exactmark.sandbox.sandbox import Sandbox
from tests.test_mark import open_scratch
from tests.test_mark_cpu_limit import BOTH

REPORT = """\
    import json, os, sys
    import helper
    print(json.dumps({"version": sys.version, "os": os.__file__, "path": sys.path,
                      "flags": [sys.flags.no_site, sys.flags.isolated,
                                getattr(sys.flags, "safe_path", False)],  # from 3.11
                      "helper": helper.WORD,
                      "packages": [os.listdir(path) for path in sys.path if "-packages" in path]}))
    exit(7)
    """


@pytest.fixture
def scratch():
    folder = open_scratch()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def reported(scratch: Path, isolation: str):
    snapshot = scratch / "snapshot"
    snapshot.mkdir()
    (snapshot / "prog.py").write_text(textwrap.dedent(REPORT), encoding="utf-8")
    (snapshot / "helper.py").write_text("WORD = 'from the sibling'\n", encoding="utf-8")
    with Sandbox(30, scratch, [ROOT], isolation=isolation) as box:
        return box, box.run(snapshot, lambda home: [box.python, str(home / "prog.py")], b"", {})


def test_an_interpreter_that_does_not_run_is_refused_by_name(scratch):
    """--python naming no interpreter: no sandbox is made, and its SandboxError (which
    the marker turns into a refusal) names the one given."""
    missing = scratch / "no-python-here"
    with pytest.raises(SandboxError, match=f"^{re.escape(str(missing))} does not run in the "
                                           "sandbox$"):
        Sandbox(30, scratch, [ROOT], python=str(missing))


@pytest.mark.parametrize("isolation", BOTH)
def test_a_program_calling_exit_and_importing_a_sibling_runs_as_python3_file_py(scratch,
                                                                               isolation):
    _, outcome = reported(scratch, isolation)
    assert outcome.status == 7, outcome
    said = json.loads(outcome.stdout)
    assert said["helper"] == "from the sibling"
    assert said["flags"] == [0, 0, False]  # site on, not isolated, the program's folder first


@pytest.mark.parametrize("isolation", BOTH)
def test_the_run_sees_the_standard_library_alone_of_one_installation(scratch, isolation):
    box, outcome = reported(scratch, isolation)
    said = json.loads(outcome.stdout)
    assert said["version"] == box.identity.version and said["os"] == box.identity.os_module, \
        "the binary of one installation ran with another one's standard library"
    packages = [path for path in said["path"] if "-packages" in path]
    own = box.environment if isolation == "fallback" else Path(SANDBOX_PYTHON)
    assert packages == [str(own / "lib" / f"python{box.identity.minor}" / "site-packages")], \
        said["path"]
    assert said["packages"] == [[]], "the environment's site-packages holds a package"
    assert f"Python {box.identity.version.split()[0]}, its standard library alone" in box.describe()[2]
