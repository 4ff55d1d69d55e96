"""parse_arguments' shortcuts (one prebuilt decoder, no bracket walk for a text that cannot nest
past the bound) give exactly what the plain path gives: the same value or the same reason."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.arguments import MAX_ARGUMENT_DEPTH, _depth_reason, _reject_constant, _text_depth, parse_arguments


def reference(raw):
    """The plain path: strip, bounds walk, ``json.loads`` with the constant check."""
    if raw is None:
        return {}, None
    if raw.strip() in ("", "null", "{}"):
        return {}, None
    if _text_depth(raw, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH:
        return None, _depth_reason()
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            return None, (
                f"arguments are not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}, "
                f"character {exc.pos} of {len(raw)})"
            )
        return None, f"arguments are not valid JSON: {exc} is not a JSON number (JSON has no NaN or Infinity)"
    return value, None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)
texts = (
    st.builds(json.dumps, st.dictionaries(st.text(max_size=4), json_values, max_size=4))
    | st.builds(lambda v, pad: pad + json.dumps(v) + pad, json_values, st.sampled_from(["", " ", "\n", "\t "]))
    | st.builds(lambda v, junk: json.dumps(v) + junk, json_values, st.sampled_from(["x", " {}", "]", ",", "\u00a0"]))
    | st.builds(lambda n: "[" * n + "]" * n, st.integers(60, 70))
    | st.builds(lambda n: '{"a":' * n + "1" + "}" * n, st.integers(60, 70))
    | st.sampled_from(['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', "{'a': 1}", '{"a":', '"[[[["'])
    | st.text(alphabet='{}[]",:1a \\', max_size=80)
)


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(max_examples=600, deadline=None)
@given(texts)
def test_parse_arguments_equals_the_plain_path(raw):
    got, want = parse_arguments(raw), reference(raw)
    if "\\u" in raw:  # surrogate repair is applied on top of both alike
        return
    if want[1] is not None:  # refused: the same reason
        assert got == (None, want[1])
    elif isinstance(want[0], dict):
        assert got[1] is None and _same(got[0], want[0])
    else:  # valid JSON but not an object: the reason names the JSON type sent
        assert got[0] is None and got[1].startswith("arguments must be a JSON object, got a JSON ")


def test_a_deeply_nested_text_is_still_refused_before_parsing():
    deep = "[" * (MAX_ARGUMENT_DEPTH + 1) + "]" * (MAX_ARGUMENT_DEPTH + 1)
    assert parse_arguments('{"a": ' + deep + "}") == (None, _depth_reason())
    at_bound = '{"a": ' + "[" * (MAX_ARGUMENT_DEPTH - 1) + "]" * (MAX_ARGUMENT_DEPTH - 1) + "}"
    value, reason = parse_arguments(at_bound)
    assert reason is None and isinstance(value, dict)
    # brackets inside strings do not count (the walk still decides when there are many)
    many_in_string = json.dumps({"a": "[" * 200})
    assert parse_arguments(many_in_string) == ({"a": "[" * 200}, None)


def test_trailing_data_and_padding_are_worded_as_before():
    assert (
        parse_arguments('{"a": 1} x')[1]
        == "arguments are not valid JSON: Extra data (line 1, column 10, character 9 of 10)"
    )
    assert parse_arguments(' {"a": 1} ') == ({"a": 1}, None)
    assert parse_arguments('{"a": NaN}')[1] == (
        "arguments are not valid JSON: NaN is not a JSON number (JSON has no NaN or Infinity)"
    )
