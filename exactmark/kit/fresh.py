"""Fresh cases (a group of `kind = "fresh"`): inputs drawn for each student at marking time
from a generator the assignment declares, so that no stored answer passes them. A program
that prints the table of a stored `simulate(500, 10)`, or a stored seed's transcript,
passes any case written from that answer; a case no one has seen before it is marked is
passed only by a program that plays.

The draw is the student's own and the same every time: a random.Random seeded with a
sha256 of the assignment's title (not its file's fingerprint: a regrade that corrects a
mark must draw the same cases), the program, the group and the student's key. Its inputs
are distinct, and none is a stored case's input. What a fresh case expects is made by the
reference at marking time (exactmark/marking/fresh_cases.py).

The generators (`generator` of the group, a table; each named one gives the group's
draws in turn, in the table's order):

    seeds = {from = A, to = B}          a seed line, A <= seed <= B, then end of input
    seeds = {from = A, to = B, then = ["1--{lines}", "q"], lines = 'There are (\\d+) lines'}
                                        the seed line, then these lines; {lines} is what
                                        the regular expression `lines` finds first (its
                                        group) in the reference's output on the seed alone
    simulate = {n = {from = A, to = B}, i = {from = C, to = D}}
                                        the call simulate(n, i)
"""

import hashlib
import json
import random
import re
from dataclasses import dataclass

SEEDS, SIMULATE = "seeds", "simulate"
LINES = "{lines}"  # in a `then` line: the number of collected lines the reference states
NAME_SEED = "fresh_seed_{seed}"
NAME_SIMULATE = "fresh_simulate_{n}_{i}"
BACKWARDS = "{path}: {program}: group {group!r}: {generator}: {what} from {low} to {high} is empty"
TOO_FEW = ("{path}: {program}: group {group!r}: {generator} gives {draws} of its {count} cases "
           "but holds only {left} inputs no stored case has")
NO_LINES_PATTERN = ("{path}: {program}: group {group!r}: seeds: a `then` line holds {{lines}}, "
                    "so `lines` must say where the reference states it: a regular "
                    "expression with one group")
BAD_LINES_PATTERN = "{path}: {program}: group {group!r}: seeds: lines: {problem}"
NO_SIMULATE = ("{path}: {program}: group {group!r}: simulate draws simulate(n, i) cases, and "
               "{language} programs have none")


@dataclass(frozen=True)
class Seeds:
    """Seed lines from `low` to `high` (inclusive), each followed by the lines `then`;
    `lines`, the pattern whose group gives {lines} in the reference's output on the seed."""
    low: int
    high: int
    then: tuple = ()
    lines: str = ""

    def size(self) -> int:
        return self.high - self.low + 1

    def pick(self, rng: random.Random):
        return rng.randint(self.low, self.high)


@dataclass(frozen=True)
class Simulate:
    """simulate(n, i) calls, n and i each from its range (inclusive)."""
    n: tuple  # (low, high)
    i: tuple

    def size(self) -> int:
        return (self.n[1] - self.n[0] + 1) * (self.i[1] - self.i[0] + 1)

    def pick(self, rng: random.Random):
        return rng.randint(*self.n), rng.randint(*self.i)


@dataclass(frozen=True)
class FreshGroup:
    """A group of fresh cases: `count` drawn per student, of equal weight within `marks`."""
    program: str
    name: str
    marks: float
    visibility: str
    compare: frozenset  # of exactmark.kit.assignment.COMPARED
    count: int
    generators: tuple  # of Seeds and Simulate, in the file's order


@dataclass(frozen=True)
class Drawn:
    """One fresh input: a seed (its line and the lines after it) or a simulate(n, i) call."""
    group: FreshGroup
    name: str
    seed: int = None
    then: tuple = ()
    simulate: tuple = None  # (n, i)
    lines: str = ""  # the Seeds' pattern for {lines}

    @property
    def id(self) -> str:
        return f"{self.group.program}/{self.name}"

    @property
    def seed_line(self) -> bytes:
        return f"{self.seed}\n".encode()

    def stdin(self, lines: int = None) -> bytes:
        """The case's stdin: the seed line and the lines after it, {lines} as given."""
        return self.seed_line + "".join(f"{line.replace(LINES, str(lines))}\n"
                                        for line in self.then).encode("utf-8")

    @property
    def counts_lines(self) -> bool:
        """Whether a line after the seed needs the number of lines the reference states."""
        return any(LINES in line for line in self.then)


def generators(path, program: str, group: dict, language, stored: list) -> tuple:
    """The group's generators, checked against the program's `stored` cases (their inputs
    are never drawn); AssignmentError's message, a line, as ValueError."""
    found, where = [], dict(path=path, program=program, group=group["name"])
    for name, spec in group["generator"].items():
        if name == SEEDS:
            made = Seeds(spec["from"], spec["to"], tuple(spec.get("then", ())),
                         spec.get("lines", ""))
            lines_pattern(made, where)
            ranges = {"seeds": (made.low, made.high)}
        else:
            if not language.simulate:
                raise ValueError(NO_SIMULATE.format(language=language.name, **where))
            made = Simulate((spec["n"]["from"], spec["n"]["to"]),
                            (spec["i"]["from"], spec["i"]["to"]))
            ranges = {"n": made.n, "i": made.i}
        for what, (low, high) in ranges.items():
            if low > high:
                raise ValueError(BACKWARDS.format(generator=name, what=what, low=low,
                                                  high=high, **where))
        found.append(made)
    for index, made in enumerate(found):
        draws = len(range(index, group["count"], len(found)))  # the generators take turns
        left = made.size() - len(taken_by(made, stored))
        if left < draws:
            raise ValueError(TOO_FEW.format(generator=SEEDS if isinstance(made, Seeds)
                                            else SIMULATE, draws=draws, count=group["count"],
                                            left=left, **where))
    return tuple(found)


def lines_pattern(seeds: Seeds, where: dict) -> None:
    """ValueError, a line, unless a `then` that needs {lines} has a pattern with a group."""
    if not any(LINES in line for line in seeds.then):
        return
    if not seeds.lines:
        raise ValueError(NO_LINES_PATTERN.format(**where))
    try:
        groups = re.compile(seeds.lines).groups
    except re.error as problem:
        raise ValueError(BAD_LINES_PATTERN.format(problem=problem, **where)) from None
    if groups < 1:
        raise ValueError(BAD_LINES_PATTERN.format(problem="it has no group", **where))


def taken_by(generator, stored: list) -> set:
    """The inputs of `generator`'s range that stored cases (exactmark.kit.cases.Case) have:
    a seed (the integer of a case's first line), or an (n, i)."""
    if isinstance(generator, Simulate):
        return {case.simulate for case in stored if case.simulate is not None
                and generator.n[0] <= case.simulate[0] <= generator.n[1]
                and generator.i[0] <= case.simulate[1] <= generator.i[1]}
    seeds = set()
    for case in stored:
        if case.simulate is not None:
            continue
        first = case.stdin.split(b"\n", 1)[0]
        try:
            seed = int(first.decode("utf-8"))
        except ValueError:
            continue
        if generator.low <= seed <= generator.high:
            seeds.add(seed)
    return seeds


def seed_of(title: str, program: str, group: str, student: str) -> int:
    """The draw's seed: a sha256 of what makes it this student's, in this group."""
    text = json.dumps([title, program, group, student], ensure_ascii=False)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogateescape")).digest(), "big")


def draw(group: FreshGroup, title: str, student: str, stored: list) -> list:
    """The group's `count` inputs for `student`: the generators in turn, each input new to
    the draw and no stored case's; the same every time."""
    rng = random.Random(seed_of(title, group.program, group.name, student))
    taken = {generator: taken_by(generator, stored) for generator in group.generators}
    drawn = []
    for index in range(group.count):
        generator = group.generators[index % len(group.generators)]
        picked = generator.pick(rng)
        while picked in taken[generator]:
            picked = generator.pick(rng)
        taken[generator].add(picked)
        if isinstance(generator, Seeds):
            drawn.append(Drawn(group, NAME_SEED.format(seed=picked), seed=picked,
                               then=generator.then, lines=generator.lines))
        else:
            drawn.append(Drawn(group, NAME_SIMULATE.format(n=picked[0], i=picked[1]),
                               simulate=picked))
    return drawn
