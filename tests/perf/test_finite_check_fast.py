"""check_tool_calls' finite-number check with its shortcuts (a flat object of strings, integers,
booleans and nulls skips the encode; one C encoder built once): the same calls marked as the plain
``json.JSONEncoder(allow_nan=False).encode`` check marks, and nothing carried between calls."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.types import Response, ToolCall
from toolwire.wire import NON_FINITE_INVALID, check_tool_calls


def _reference_invalid(arguments: Any) -> bool:
    """An independent statement of the rule: the object holds a NaN or an infinity somewhere."""
    try:
        json.dumps(arguments, allow_nan=False)
    except ValueError as exc:
        return "Out of range float" in str(exc)
    return False


def _checked(arguments: Any) -> ToolCall:
    call = ToolCall("c1", "t", arguments)
    check_tool_calls(Response(parts=[call]))
    return call


def test_flat_and_nested_objects_are_marked_as_the_rule_says() -> None:
    assert _checked({"q": "x", "n": 2, "ok": True, "none": None}).invalid is None
    assert _checked({"q": "x", "big": 10**40}).invalid is None
    inf = _checked({"x": math.inf})
    assert inf.invalid == NON_FINITE_INVALID and inf.arguments == {"x": "Infinity"}
    nested = _checked({"a": [1, {"b": -math.inf}]})
    assert nested.invalid == NON_FINITE_INVALID and nested.arguments == {"a": [1, {"b": "-Infinity"}]}
    assert _checked({"x": math.nan}).arguments == {"x": "NaN"}
    assert _checked({"x": 1.5, "y": [2.5]}).invalid is None


def test_a_refused_value_leaves_nothing_behind_for_the_next_call() -> None:
    shared = {"v": [1.0]}
    bad = _checked({"a": shared, "b": [math.inf]})
    assert bad.invalid == NON_FINITE_INVALID
    # the same inner objects again, finite now: no stale circular-reference marker makes them fail
    again = _checked({"a": shared, "b": [2.0]})
    assert again.invalid is None and again.arguments == {"a": {"v": [1.0]}, "b": [2.0]}


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3) | st.floats(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(arguments=st.dictionaries(st.text(max_size=3), _values, min_size=1, max_size=4))
def test_the_check_marks_what_the_rule_says(arguments: dict[str, Any]) -> None:
    want = _reference_invalid(arguments)
    call = _checked(arguments)
    assert (call.invalid == NON_FINITE_INVALID) is want
    if want:
        json.dumps(call.arguments, allow_nan=False)  # the copy sent back is JSON
