"""One way for every test to compare bytes: equal, or fail with a visible diff that names the case."""

import pytest

from exactmark.base.visible import visible_diff


def expect_same(got: bytes, want: bytes, label: str) -> None:
    if got != want:
        pytest.fail(visible_diff(got, want, label), pytrace=False)


def expect_case_passes(run, case, who: str) -> None:
    """A piped run of `case` ended as the case says: stdout, and the exit status and
    stderr where the case gives them."""
    assert not run.timed_out, f"{case.id}: no answer in time"
    expect_same(run.stdout, case.stdout, f"{case.id} stdout of {who}, stdin piped")
    if case.status is not None:
        assert run.status == case.status, f"{case.id}: exit status {run.status}, want {case.status}"
    if case.stderr is not None:
        expect_same(run.stderr, case.stderr, f"{case.id} stderr of {who}, stdin piped")
