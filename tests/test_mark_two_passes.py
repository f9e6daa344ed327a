"""The two passes of a part's runs (exactmark.marking.mark.Marking.two_passes): with a budget, every
case first runs with the first pass's short CPU cap, most marks first; then those the cap
stopped run again with the whole limit, in the same order, while the part's budget lasts.
A program that spins in some cases is decided on all the others before its spinning runs
spend the budget. The sandbox here is a stand-in that runs nothing: it says how each run
ended, and records the CPU cap each was given."""

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from exactmark.running.record import Limit, Ran
from exactmark.kit.assignment import load
from exactmark.running.limits import Budget
from exactmark.marking.mark import Marking, Share, first_pass_cap
from exactmark.marking.verdicts import BUDGET_SPENT, PIPE, Kind, Rules

LIMIT = 30  # calculation_cpp's cpu_seconds
CAP = first_pass_cap(LIMIT)


class Named:
    """A program whose command is its case's name, so that the stand-in knows the case."""

    def run_argv(self, case, home, python):
        return [case.id]


class Spinning:
    """A sandbox stand-in: its program passes every case but those in `spins`, where it
    uses all the CPU it is given."""

    def __init__(self, spins: set):
        self.budget = Budget(LIMIT, 10 * LIMIT, 5)
        self.stopping = threading.Event()
        self.python = "python3"
        self.spins, self.runs = spins, []

    def run(self, snapshot, command, stdin, files, environment=None, terminal=False,
            head=None, budget=None):
        case_id = command(Path("/home"))[0]
        given = budget or self.budget
        self.runs.append((case_id, given.cpu_seconds))
        if case_id in self.spins:
            return Ran(b"", limit=Limit.CPU, cpu_seconds=given.cpu_seconds)
        case = next(marked.case for marked in CASES if marked.case.id == case_id)
        return Ran(case.stdout, case.stderr or b"", case.status or 0, cpu_seconds=0.01)


CASES = sorted(load("calculation_cpp").marked_cases["calculation_cpp"], key=lambda m: -m.marks)


def marked_with(spins: set, cpu: float):
    """Each case's verdicts and the runs, in the order they started, of a marking whose
    golden cases have `cpu` seconds of budget."""
    sandbox = Spinning(spins)
    budget = {"calculation_cpp": Share("calculation_cpp", cpu, 1000.0)}
    marking = Marking(sandbox, {"calculation_cpp": Path("/nowhere")},
                      {"calculation_cpp": Named()}, [PIPE],
                      lambda marked: Rules(marked.compare, cpu_seconds=LIMIT), budget=budget)
    with ThreadPoolExecutor(1) as pool:
        results = marking.in_two_passes(pool, lambda marked, first, earlier: marking.case(
            marked, first=first, earlier=earlier), CASES)
    return {marked.case.id: result.verdicts for marked, result in zip(CASES, results)}, \
        sandbox.runs


def test_the_first_pass_s_cap_is_short_and_never_above_the_limit():
    assert CAP < LIMIT / 5
    assert first_pass_cap(2) == 2  # a limit this short: one pass


def test_a_spinner_s_passing_cases_are_all_decided_before_its_spinning_ones_spend_the_budget():
    """calculation_cpp's 50 cases, eight of the end-of-input ones spinning, with 216 s of
    CPU (Gradescope's 540 s on one core): every other case passes, each run once with the
    short cap; the spinners run again with 30 s, most marks first, until the budget is gone."""
    spins = {marked.case.id for marked in CASES if "/eof_" in marked.case.id}
    spins = set(sorted(spins)[:8])
    verdicts, runs = marked_with(spins, 216.0)
    wrong = {case_id: [str(verdict.kind) for verdict in said] for case_id, said in verdicts.items()
             if case_id not in spins and [verdict.kind for verdict in said] != [Kind.PASS]}
    assert not wrong, wrong
    assert runs[:len(CASES)] == [(marked.case.id, CAP) for marked in CASES]
    again = [marked.case.id for marked in CASES if marked.case.id in spins]
    # The first pass spends 8 × 3 s and 36 × 0.01 s: 24.36 s; then 30 s a run, each
    # started while less than 216 s is spent: seven (the seventh at 204.36 s).
    ran = 7
    assert CAP == 3
    assert runs[len(CASES):] == [(case_id, LIMIT) for case_id in again[:ran]], runs[len(CASES):]
    assert all(verdicts[case_id][0].kind == Kind.TIMEOUT for case_id in again[:ran])
    spent = BUDGET_SPENT.format(part="calculation_cpp", seconds=216.0)
    assert [verdicts[case_id][0].detail for case_id in again[ran:]] == [spent] * (8 - ran)
    assert all(verdict is not None for said in verdicts.values() for verdict in said)


def test_without_a_budget_every_run_has_the_whole_limit_at_once():
    sandbox = Spinning(set())
    marking = Marking(sandbox, {"calculation_cpp": Path("/nowhere")},
                      {"calculation_cpp": Named()}, [PIPE],
                      lambda marked: Rules(marked.compare, cpu_seconds=LIMIT))
    with ThreadPoolExecutor(1) as pool:
        marking.in_two_passes(pool, lambda marked, first, earlier: marking.case(
            marked, first=first, earlier=earlier), CASES[:3])
    assert sandbox.runs == [(marked.case.id, LIMIT) for marked in CASES[:3]]


def test_make_gradescope_counts_each_run_s_first_pass_in_what_it_says_is_cut():
    """calculation_cpp at Gradescope's default 540 s (216 s of CPU): were every one of the 50
    runs to need its 30 s, the first pass spends 50 x 3 s and leaves 66 s, three runs of
    30 s (the third starts within it): 47 cut. A limit of 3 s needs no second pass, and
    50 runs of it fit."""
    from exactmark.gradescope import build
    cut, fits, cpu_fits = build.cut_at_limits(load("calculation_cpp"), 540)
    assert cut == {"calculation_cpp": (50, 47)} and fits is None and cpu_fits == CAP
