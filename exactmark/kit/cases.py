"""Golden cases: data, not code. This one definition serves the tests, `make
expected` and the marker.

A case NAME of PROGRAM is a set of files in expected_outputs/PROGRAM/:

    NAME.in     its stdin
    NAME.args   its command-line arguments, one per line (optional)
    NAME.out    the exact stdout when stdin is piped (what an automarker compares)
    NAME.tty    the exact terminal screen: typed input echoed where it was read,
                stdout and stderr together, `\\n` line endings (optional)
    NAME.stats  the stats file's content before the run (optional)
    NAME.status the exact exit status, in decimal (optional: compared only when given)
    NAME.err    the exact stderr when stdin is piped (optional: compared only when given)
    NAME.head   a byte count K (optional): stdout's reader takes K bytes and closes
                its end, as `| head -c K` does; .out holds those K bytes, and the
                program, whose output goes on, meets a closed pipe

A case whose stdout is empty must give .status or .err: else an empty
program would pass it.

A case named simulate_N_I (or, drawn at marking time, fresh_simulate_N_I) is the
call `simulate(N, I)` of the program's module and has no stdin.
"""

import re
from dataclasses import dataclass
from pathlib import Path

# The folder that holds the exactmark package: a checkout, or site-packages once installed.
PACKAGE_HOME = Path(__file__).resolve().parents[2]
# What a wheel carries of the kit, inside the package (setup.py copies it there).
INSTALLED_KIT = PACKAGE_HOME / "exactmark" / "kit_copy"
# The kit's data and programs: the checkout the package lies in, else the installed copy.
ROOT = PACKAGE_HOME if (PACKAGE_HOME / "assignments").is_dir() else INSTALLED_KIT
EXPECTED_OUTPUTS = ROOT / "expected_outputs"
# A fresh case drawn as simulate(n, i) (exactmark/kit/fresh.py) is named fresh_simulate_N_I.
SIMULATE_NAME = re.compile(r"(?:fresh_)?simulate_(-?\d+)_(-?\d+)")
SUFFIXES = (".in", ".args", ".out", ".tty", ".stats", ".status", ".err", ".head")
NOTES = "README.md"  # why each case is there, for the reviewer
# A case's .stats is the stats file's content before the run: the file a run finds in its
# folder, under this name, which the variable names (hoyle_cli's, docs/hoyle_cli.md).
STATS_FILE = "hoyle_stats.txt"
STATS_VARIABLE = "HOYLE_STATS_FILE"


class CaseError(ValueError):
    """A golden folder holds files that do not make a case."""


@dataclass(frozen=True)
class Case:
    program: str
    name: str
    folder: Path

    @property
    def id(self) -> str:
        return f"{self.program}/{self.name}"

    def file(self, suffix: str) -> Path:
        return self.folder / f"{self.name}{suffix}"

    def _optional(self, suffix: str):
        path = self.file(suffix)
        return path.read_bytes() if path.exists() else None

    @property
    def simulate(self):
        """(n, i) for a `simulate(n, i)` case, else None."""
        match = SIMULATE_NAME.fullmatch(self.name)
        return (int(match[1]), int(match[2])) if match else None

    @property
    def stdin(self) -> bytes:
        return self._optional(".in") or b""

    @property
    def args(self) -> list:
        text = self._optional(".args")
        return text.decode("utf-8").splitlines() if text else []

    @property
    def stdout(self) -> bytes:
        return self.file(".out").read_bytes()

    @property
    def screen(self):
        return self._optional(".tty")

    @property
    def stats(self):
        return self._optional(".stats")

    @property
    def status(self):
        """The exit status the case demands, or None when it demands none."""
        text = self._optional(".status")
        return None if text is None else int(text)

    @property
    def stderr(self):
        """The stderr the case demands, or None when it demands none."""
        return self._optional(".err")

    @property
    def head(self):
        """How many bytes of stdout are read before the reader closes its end, or None."""
        text = self._optional(".head")
        return None if text is None else int(text)

    def as_read(self, whole_stdout: bytes) -> bytes:
        """What the case's reader takes of a whole stdout: all of it, or its first K bytes."""
        return whole_stdout if self.head is None else whole_stdout[:self.head]


def programs(root: Path = EXPECTED_OUTPUTS) -> list:
    return sorted(folder.name for folder in root.iterdir() if folder.is_dir())


def load_cases(program: str, root: Path = EXPECTED_OUTPUTS, folder: Path = None) -> list:
    """Every case of the program, by name, from `folder` (by default root/PROGRAM); a folder
    that does not hold whole cases is an error."""
    folder = root / program if folder is None else Path(folder)
    names = {path.stem for path in folder.iterdir() if path.suffix in SUFFIXES}
    strays = sorted(path.name for path in folder.iterdir()
                    if path.suffix not in SUFFIXES and path.name != NOTES)
    cases = [Case(program, name, folder) for name in sorted(names)]
    problems = [f"{name}: not a case file" for name in strays]
    for case in cases:
        if not case.file(".out").exists():
            problems.append(f"{case.name}: no .out")
        elif case.simulate is None and not case.file(".in").exists():
            problems.append(f"{case.name}: no .in (and not named simulate_N_I)")
        elif case.simulate is not None and case.file(".in").exists():
            problems.append(f"{case.name}: a simulate case takes no .in")
        elif case.screen is not None and b"\r" in case.stdin:
            problems.append(f"{case.name}: a .tty for a stdin that holds a CR: a terminal makes "
                            "the CR a line end of its own, and the screen a race")
        elif case.head is not None and (case.head < 1 or len(case.stdout) != case.head
                                        or case.screen is not None):
            problems.append(f"{case.name}: a .head case reads K >= 1 bytes: its .out holds "
                            "exactly K bytes and it has no .tty")
        elif not case.stdout and case.status in (None, 0) and not case.stderr:
            problems.append(f"{case.name}: an empty .out needs a .status or .err, "
                            "else an empty program passes")
    if problems:
        raise CaseError(f"{folder}: " + "; ".join(problems))
    return cases
