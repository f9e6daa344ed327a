"""One way for every test to compare bytes: equal, or fail with a visible diff that names the case."""

import pytest

from golden.visible import visible_diff


def expect_same(got: bytes, want: bytes, label: str) -> None:
    if got != want:
        pytest.fail(visible_diff(got, want, label), pytrace=False)
