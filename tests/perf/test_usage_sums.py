"""Usage sums: ``+`` adds every field (``None + None`` stays ``None``), and the loop's running
total, checked against the token limits after each response, equals the sum over all turns."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
from toolwire.testing import ScriptedModel, call
from toolwire.types import Usage

counts = st.none() | st.integers(min_value=0, max_value=10**9)
usages = st.builds(
    Usage,
    input_tokens=counts,
    output_tokens=counts,
    cache_read_tokens=counts,
    cache_write_tokens=counts,
    reasoning_tokens=counts,
    tool_use_prompt_tokens=counts,
    requests=st.integers(min_value=0, max_value=100),
    vendor_total_tokens=counts,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(usages, min_size=1, max_size=6))
def test_adding_usages_adds_each_field(items):
    total = items[0]
    for u in items[1:]:
        total = total + u
    for f in dataclasses.fields(Usage):
        values = [getattr(u, f.name) for u in items]
        expected = None if all(v is None for v in values) else sum(v or 0 for v in values)
        assert getattr(total, f.name) == expected, f.name


def test_the_running_total_equals_the_sum_over_turns_and_stops_at_the_limit():
    script = [
        {"tool_calls": [call("x", {})], "usage": {"input_tokens": 100 * (i + 1), "output_tokens": 7}} for i in range(5)
    ] + ["done"]
    r = toolwire.run_sync(ScriptedModel(responses=script), "go", max_turns=10)
    by_hand = Usage()
    for t in r.turns:
        by_hand = by_hand + t.usage
    assert r.usage == by_hand and r.usage.input_tokens == 1500 and r.usage.requests == 6

    # the limit sees the same running total: 100 + 200 + 300 = 600 > 500 after the third response
    try:
        toolwire.run_sync(
            ScriptedModel(responses=script), "go", max_turns=10, limits=toolwire.Limits(max_input_tokens=500)
        )
    except toolwire.UsageLimitExceeded as exc:
        assert len(exc.result.turns) == 3 and exc.result.usage.input_tokens == 600
    else:  # pragma: no cover
        raise AssertionError("the limit did not stop the run")
