"""The shortcuts of the executor's argument check give what the full path gives.

Each shortcut is compared with the computation it skips: the JSON copy with ``copy.deepcopy``,
a skipped coercion with ``coerce_arguments``, a skipped null restore with ``restore_defaults``,
the identity conversion with pydantic's own conversion.
"""

from __future__ import annotations

import copy
import json
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import AfterValidator

import toolwire
from toolwire.executor import ToolExecutor, _copy_arguments
from toolwire.schema.coerce import coerce_arguments, may_coerce
from toolwire.schema.from_function import convert_arguments
from toolwire.schema.strict import restore_defaults
from toolwire.types import ToolCall

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=25,
)


def _walk(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)
    else:
        yield value


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=4), json_values, max_size=5))
def test_the_json_copy_equals_a_deep_copy_and_reports_nulls_and_floats(arguments):
    copied, has_none, has_float = _copy_arguments(arguments)
    assert copied == copy.deepcopy(arguments)
    assert json.dumps(copied, sort_keys=True) == json.dumps(arguments, sort_keys=True)
    leaves = list(_walk(arguments))
    assert has_none == any(v is None for v in leaves)
    assert has_float == any(type(v) is float for v in leaves)
    # nothing shared: changing the copy leaves the original alone
    stack = [(copied, arguments)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, (dict, list)):
            assert a is not b
            pairs = zip(a.values(), b.values()) if isinstance(a, dict) else zip(a, b)
            stack.extend(pairs)


def test_values_that_are_not_json_are_deep_copied_and_count_as_both():
    class Thing:
        def __init__(self) -> None:
            self.items = [1]

    original = {"t": Thing(), "tup": (1, 2)}
    copied, has_none, has_float = _copy_arguments(original)
    assert copied["t"] is not original["t"] and copied["t"].items == [1]
    assert copied["tup"] == (1, 2) and has_none and has_float


SCHEMAS = [
    {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string", "enum": ["a", "b"]}}},
    {"type": "object", "properties": {"k": {"enum": [1, 2, "x"]}}},
    {"type": "object", "properties": {"k": {"const": 3}}},
    {"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}, "$defs": {"X": {"enum": [True, False]}}},
    {"type": "object", "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}},
]


@pytest.mark.parametrize("schema", SCHEMAS)
@settings(max_examples=100, deadline=None)
@given(
    arguments=st.dictionaries(
        st.sampled_from(["n", "s", "k", "x", "v", "other"]),
        json_values | st.sampled_from(["1", "2", "3", "true", "false", "a"]),
        max_size=4,
    )
)
def test_a_skipped_coercion_would_have_changed_nothing(schema, arguments):
    _, _, has_float = _copy_arguments(arguments)
    if not may_coerce(schema, has_float):
        assert coerce_arguments(schema, arguments) == arguments


def test_may_coerce_sees_floats_non_string_enums_and_a_schema_changed_in_place():
    schema = {"type": "object", "properties": {"s": {"enum": ["a", "b"]}}}
    assert not may_coerce(schema, False)
    assert may_coerce(schema, True)
    schema["properties"]["s"]["enum"].append(3)  # changed in place: derived again
    assert may_coerce(schema, False)
    assert coerce_arguments(schema, {"s": "3"}) == {"s": 3}


def test_a_null_is_still_restored_to_its_default():
    @toolwire.tool
    def f(q: str, lang: str = "en") -> str:
        """F."""
        return f"{q} {lang}"

    ex = ToolExecutor({"f": f}, run_id="r")
    ready = ex.check(ToolCall("c1", "f", {"q": "a", "lang": None}), 1)
    assert ready.arguments == {"q": "a", "lang": "en"}
    assert restore_defaults(f.input_schema, {"q": "a", "lang": None}) == {"q": "a", "lang": "en"}
    ready = ex.check(ToolCall("c2", "f", {"q": "a", "lang": "fr"}), 1)
    assert ready.arguments == {"q": "a", "lang": "fr"}


def _pydantic(model, arguments):
    validated = model.model_validate_json(json.dumps(arguments))
    return {k: getattr(validated, k) for k in arguments if k in model.model_fields}


def _typed(s: str, i: int, x: float, b: bool, lit: Literal["a", "b"] = "a") -> str:
    """Typed."""
    return ""


@pytest.mark.parametrize(
    "arguments",
    [
        {"s": "t", "i": 1, "x": 1.5, "b": True},
        {"s": "t", "i": 1, "x": 2, "b": False},  # an int for a float: pydantic gives 2.0
        {"s": "t", "i": 1, "x": 1.0, "b": True, "lit": "b"},  # Literal is not a plain type
    ],
)
def test_the_identity_conversion_gives_what_pydantic_gives(arguments):
    model = toolwire.tool(_typed).arguments_model
    fast = convert_arguments(model, arguments)
    assert fast == _pydantic(model, arguments)
    assert [type(v) for v in fast.values()] == [type(v) for v in _pydantic(model, arguments).values()]


def _shout(v: str) -> str:
    return v.upper()


def test_a_field_with_a_validator_is_always_converted_by_pydantic():
    def g(s: Annotated[str, AfterValidator(_shout)]) -> str:
        """G."""
        return s

    model = toolwire.tool(g).arguments_model
    assert convert_arguments(model, {"s": "abc"}) == {"s": "ABC"}


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
        max_leaves=40,
    )
)
def test_wire_json_copy_equals_a_deep_copy_at_any_depth(value):
    from toolwire.wire import json_copy

    deep: object = value
    for i in range(8):  # past the recursive fast path, into the loop that copies without recursion
        deep = {"k": [deep, i]}
    copied = json_copy(deep)
    assert copied == copy.deepcopy(deep) or copied != copied  # NaN inside: compare as JSON below
    assert json.dumps(copied) == json.dumps(deep)
    stack = [(copied, deep)]
    while stack:  # nothing shared
        a, b = stack.pop()
        if isinstance(a, (dict, list)):
            assert a is not b
            stack.extend(zip(a.values(), b.values()) if isinstance(a, dict) else zip(a, b))


def test_wire_json_copy_takes_nesting_deeper_than_deepcopy_can():
    from toolwire.wire import json_copy

    deep: object = 1
    for _ in range(5000):
        deep = {"a": [deep]}
    copied = json_copy(deep)
    depth = 0
    while isinstance(copied, dict):
        copied, depth = copied["a"][0], depth + 1
    assert (depth, copied) == (5000, 1)
