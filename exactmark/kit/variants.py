"""Variants of a sample solution, as data: `tests/wrong/PROGRAM/NAME.toml` (a
mistake students make) and `tests/honest/PROGRAM/NAME.toml` (another faithful
reading of the handout). Each file says in words what the student did, then the
changes that turn the sample solution (`make standalone`) into that program:

    mistake = "Eighth (and last) printed without its space"
    rule = "stacks-line-ordinals"   # the handout's rule it breaks, alone (exactmark/kit/rules.py)
    [[change]]
    find = '" (and last)"'
    replace = '"(and last)"'

A `find` must occur exactly once in the solution as changed so far (or give
`count`, how many times it occurs, to change them all): a change that no longer
finds its text fails loudly instead of leaving a right program behind. Where the
solution is several files (a C++ program's main.cpp and calculation.cpp), each
change names its own: `file = "main.cpp"`. A variant whose output depends on more than
its input (memory it never wrote, in C++) says so in `undefined`: its output may differ
between any two runs that differ in anything, so no two of its runs are compared. A
variant that spins until the CPU limit ends it may give its own, lower `cpu_seconds`:
it is marked with that limit instead of the assignment's, which it reaches as surely.
"""

import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

NOT_FOUND = "{path}: change {index}: the text to find occurs {found} times, not {count}:\n{find}"
UNCHANGED = "{path}: the changes leave the sample solution as it was"
BAD_FILE = "{path}: {problem}"
NEEDS = "{path}: needs `mistake` (what the student did, in words) and at least one [[change]]"
BAD_CPU_SECONDS = "{path}: cpu_seconds must be a number of seconds above 0"
WHICH_FILE = "{path}: change {index}: say which file it changes (`file`), one of: {names}"


class VariantError(ValueError):
    pass


@dataclass(frozen=True)
class Variant:
    program: str
    name: str
    mistake: str
    changes: tuple  # of (file or None, find, replace, count)
    path: Path
    undefined: str = ""  # what, besides its input, its output depends on
    rule: str = ""  # the id of the one rule of the handout it breaks (exactmark/kit/rules.py)
    cpu_seconds: float = None  # its CPU limit when marked, where it is not the assignment's

    @property
    def id(self) -> str:
        return f"{self.program}/{self.name}"

    def applied_to(self, solution: dict) -> dict:
        """The variant's program: the changes made to the sample solution's files (name ->
        text), in order. A change without `file` is made in the solution's only file."""
        texts = dict(solution)
        for index, (name, find, replace, count) in enumerate(self.changes, 1):
            if name is None and len(texts) == 1:
                name = next(iter(texts))
            if name not in texts:
                raise VariantError(WHICH_FILE.format(path=self.path, index=index,
                                                     names=", ".join(sorted(texts))))
            found = texts[name].count(find)
            if found != count:
                raise VariantError(NOT_FOUND.format(path=self.path, index=index, found=found,
                                                    count=count, find=find))
            texts[name] = texts[name].replace(find, replace)
        if texts == solution:
            raise VariantError(UNCHANGED.format(path=self.path))
        return texts


def read_variant(path: Path) -> Variant:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as problem:
        raise VariantError(BAD_FILE.format(path=path, problem=problem)) from None
    changes = data.get("change", [])
    if not isinstance(data.get("mistake"), str) or not changes or not all(
            isinstance(c.get("find"), str) and isinstance(c.get("replace"), str)
            and isinstance(c.get("file", ""), str) for c in changes) \
            or not isinstance(data.get("undefined", ""), str) \
            or not isinstance(data.get("rule", ""), str):
        raise VariantError(NEEDS.format(path=path))
    cpu_seconds = data.get("cpu_seconds")
    if cpu_seconds is not None and (isinstance(cpu_seconds, bool)
                                    or not isinstance(cpu_seconds, (int, float))
                                    or cpu_seconds <= 0):
        raise VariantError(BAD_CPU_SECONDS.format(path=path))
    return Variant(program=path.parent.name, name=path.stem, mistake=data["mistake"],
                   changes=tuple((c.get("file"), c["find"], c["replace"], c.get("count", 1))
                                 for c in changes),
                   path=path, undefined=data.get("undefined", ""), rule=data.get("rule", ""),
                   cpu_seconds=cpu_seconds)


def read_variants(folder: Path) -> list:
    """Every variant under `folder` (one subfolder per program), in name order."""
    return [read_variant(path) for path in sorted(folder.glob("*/*.toml"))]
