"""What mutation analysis speaks of, whatever the tool that made the mutants: a mutant (one
small change to one file of a reference) and the verdict on it. Helper modules (the Python
maker, the C and C++ maker) return Mutants; the runner gives each a Verdict."""

import hashlib
from dataclasses import dataclass, replace
from enum import Enum


@dataclass(frozen=True)
class Mutant:
    program: str  # the program's name (solitaire_1)
    file: str  # path relative to the reference's root, posix (common/deal.py)
    line: int  # 1-based line of the change in the unmutated file
    operator: str  # cosmic-ray's operator name, or the C tool's rule name
    occurrence: int  # the tool's own index (to re-make it)
    before: str  # the changed line, stripped, as it was
    after: str  # the same line as the mutant has it
    rank: int = 0  # mutants of the same file, operator and line text before it (ranked())

    @property
    def id(self) -> str:
        """Stable when unrelated lines move: the line's text, not its number."""
        digest = hashlib.sha256(self.before.encode("utf-8")).hexdigest()[:10]
        return f"{self.file}:{self.operator}:{digest}:{self.rank}"


class Verdict(Enum):
    KILLED_TWICE = "killed by ≥ 2 cases"
    PINNED_ONCE = "pinned once"
    SURVIVED = "survived"
    EQUIVALENT = "equivalent"
    UNMARKED = "unmarked"  # survived in code the reviewed file says no marked case may pin


def ranked(mutants: list) -> list:
    """The mutants, each ranked among those of its file, operator and line text, in the
    order given (a maker's order: by file, then occurrence)."""
    seen, found = {}, []
    for mutant in mutants:
        key = (mutant.file, mutant.operator, mutant.before)
        found.append(replace(mutant, rank=seen.get(key, 0)))
        seen[key] = seen.get(key, 0) + 1
    return found
