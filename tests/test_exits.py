"""One table of exit statuses (exactmark/base/exits.py): the copies that cannot import it
(the driver runs from its source alone) and the statuses that come from elsewhere
(argparse's refusal, the launcher's shell) are pinned to it."""

import json
import subprocess
import sys

import pytest

from exactmark.base.exits import Exit
from exactmark.kit.cases import ROOT
from exactmark.marking import mark
from exactmark.sandbox import driver, launcher


def test_the_driver_s_copy_is_the_table_s():
    assert driver.ENTRY_FAILED == Exit.ENTRY_FAILED


def test_the_launcher_that_cannot_set_a_run_up_exits_with_the_table_s_status(tmp_path):
    """No such home: the launcher stops before the run's program, with the marker's status."""
    done = subprocess.run(launcher.argv(str(tmp_path / "no-such-home"), -1, [], ["true"]),
                          env=launcher.environment("", ""), capture_output=True)
    assert done.returncode == Exit.ENTRY_FAILED


def test_a_bad_option_is_refused_with_the_table_s_status():
    """argparse's own status for a refusal is the table's: the callers read it as one."""
    with pytest.raises(SystemExit) as ended:
        mark.parser().parse_args(["--jobs", "0"])
    assert ended.value.code == Exit.REFUSED


def test_gradescope_s_run_imports_of_the_kit_only_what_needs_the_standard_library_alone():
    """run.py must work when the marker does not: of the kit it imports the exit statuses,
    the marker's request and its messages (and the packages that hold them) alone."""
    ask = ("import json, sys, exactmark.gradescope.run; "
           "print(json.dumps(sorted(name for name in sys.modules if name.startswith('exactmark'))))")
    done = subprocess.run([sys.executable, "-c", ask], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout) == ["exactmark", "exactmark.base", "exactmark.base.exits",
                                       "exactmark.base.messages", "exactmark.gradescope",
                                       "exactmark.gradescope.run", "exactmark.marking",
                                       "exactmark.marking.request"]
