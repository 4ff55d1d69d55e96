"""coerce_arguments' shortcut for a flat object with nothing to coerce gives what the walk gives
(an equal object, a new one), and still coerces whenever the walk would."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.schema import coerce as coerce_mod
from toolwire.schema.coerce import coerce_arguments

_prop = st.sampled_from(
    [
        {"type": "integer"},
        {"type": "number"},
        {"type": "string"},
        {"type": "boolean"},
        {"enum": ["a", "b"]},
        {"enum": [1, 2]},
        {"const": 3},
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        {"type": "array", "items": {"type": "integer"}},
    ]
)
_schema = st.builds(
    lambda props: {"type": "object", "properties": props}, st.dictionaries(st.sampled_from("abc"), _prop, max_size=3)
)
_value = (
    st.none()
    | st.booleans()
    | st.integers(-2, 3)
    | st.sampled_from([2.0, 2.5, "1", "2", "a", "x"])
    | st.lists(st.sampled_from([1, 2.0, "2"]), max_size=2)
)


@settings(max_examples=400, deadline=None)
@given(_schema, st.dictionaries(st.sampled_from("abcd"), _value, max_size=4))
def test_the_shortcut_equals_the_walk(schema, arguments):
    want = coerce_mod._coerce(schema, arguments, schema, 0, ())
    got = coerce_arguments(schema, arguments)
    assert got == want and [type(v) for v in got.values()] == [type(v) for v in want.values()]
    assert got is not arguments


def test_a_flat_object_is_copied_and_an_integral_float_still_coerced():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "q": {"type": "string"}}}
    args = {"n": 2, "q": "x"}
    out = coerce_arguments(schema, args)
    assert out == args and out is not args
    assert coerce_arguments(schema, {"n": 2.0}) == {"n": 2} and type(coerce_arguments(schema, {"n": 2.0})["n"]) is int
    enum_schema = {"type": "object", "properties": {"k": {"enum": [1, 2]}}}
    assert coerce_arguments(enum_schema, {"k": "2"}) == {"k": 2}
