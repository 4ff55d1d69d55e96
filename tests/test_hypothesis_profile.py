"""The suite's property-based tests repeat their examples (the root conftest.py's profile):
a test run passes or fails the same way every time unless exploring is asked for."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SEEN: list[list[int]] = []


@pytest.mark.skipif(os.environ.get("TOOLWIRE_HYPOTHESIS") == "explore", reason="exploring on purpose")
def test_the_default_profile_repeats_examples() -> None:
    assert settings.default.derandomize is True
    assert settings.default.database is None


@pytest.mark.skipif(os.environ.get("TOOLWIRE_HYPOTHESIS") == "explore", reason="exploring on purpose")
def test_a_test_with_its_own_settings_still_repeats_its_examples() -> None:
    runs: list[list[int]] = []
    for _ in range(2):
        drawn: list[int] = []

        @settings(max_examples=15, deadline=None)
        @given(st.integers())
        def probe(n: int) -> None:
            drawn.append(n)

        probe()
        runs.append(drawn)
    assert runs[0] == runs[1] and len(runs[0]) == 15
