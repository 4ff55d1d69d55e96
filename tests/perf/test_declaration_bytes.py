"""DeclarationMemo keyed by the tool fields' strict bytes: the same declarations as translating
every time, every edit of a declared field noticed (type-strict), nothing shared with the caller."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapter import DeclarationMemo
from toolwire.tools import Tool


def _translate(calls: list[str]) -> Any:
    def translate(tool: Tool) -> tuple[dict[str, Any], None]:
        calls.append(tool.name)
        # an independent deep copy: what a codec's translate_tool gives (a new dict each time)
        return {"name": tool.name, "description": tool.description, "schema": copy.deepcopy(tool.input_schema)}, None

    return translate


def test_nested_edits_of_the_returned_declaration_do_not_reach_the_memo() -> None:
    calls: list[str] = []
    tool = Tool("t", "d", {"type": "object", "properties": {"x": {"type": "integer", "enum": [1, 2]}}})
    memo = DeclarationMemo()
    first = memo.declaration(tool, _translate(calls))
    first["schema"]["properties"]["x"]["enum"].append(3)  # a repair changing the caller's copy deep inside
    again = memo.declaration(tool, _translate(calls))
    assert again["schema"]["properties"]["x"]["enum"] == [1, 2] and calls == ["t"]
    again["schema"]["properties"].clear()
    assert memo.declaration(tool, _translate(calls))["schema"]["properties"]["x"]["enum"] == [1, 2]
    assert tool.input_schema["properties"]["x"]["enum"] == [1, 2]  # the user's schema is never touched
    assert calls == ["t"]


def test_a_float_default_changed_to_an_equal_int_is_declared_anew() -> None:
    calls: list[str] = []
    tool = Tool("t", "d", {"type": "object", "properties": {"x": {"type": "number", "default": 1.0}}})
    memo = DeclarationMemo()
    memo.declaration(tool, _translate(calls))
    tool.input_schema["properties"]["x"]["default"] = 1  # == 1.0, but encodes as 1
    out = memo.declaration(tool, _translate(calls))
    assert calls == ["t", "t"] and type(out["schema"]["properties"]["x"]["default"]) is int


def test_keys_reordered_in_place_still_give_the_current_declaration() -> None:
    calls: list[str] = []
    tool = Tool("t", "d", {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}})
    memo = DeclarationMemo()
    memo.declaration(tool, _translate(calls))
    props = tool.input_schema["properties"]
    tool.input_schema["properties"] = {"b": props["b"], "a": props["a"]}
    out = memo.declaration(tool, _translate(calls))
    assert list(out["schema"]["properties"]) == ["b", "a"] and calls == ["t", "t"]


class _Opaque:
    """A field value the strict serialization does not take (compared with ==)."""

    def __init__(self, v: int) -> None:
        self.v = v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Opaque) and other.v == self.v

    __hash__ = None  # type: ignore[assignment]


@dataclass
class _ToolWithObject(Tool):
    extra: Any = None


def test_a_tool_field_holding_an_object_falls_back_to_compared_copies() -> None:
    calls: list[str] = []
    tool = _ToolWithObject("t", "d", {"type": "object", "properties": {}}, extra=_Opaque(1))
    memo = DeclarationMemo()
    first = memo.declaration(tool, _translate(calls))
    assert memo.declaration(tool, _translate(calls)) == first and calls == ["t"]
    tool.extra.v = 2  # changed in place: noticed by the compared copy
    memo.declaration(tool, _translate(calls))
    assert calls == ["t", "t"]
    tool.input_schema["properties"]["y"] = {"type": "string"}
    assert memo.declaration(tool, _translate(calls))["schema"]["properties"] == {"y": {"type": "string"}}


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2, allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(schemas=st.lists(st.dictionaries(st.text(max_size=3), _json, max_size=3), min_size=1, max_size=5))
def test_the_memo_gives_what_translating_gives_for_every_edit(schemas: list[dict[str, Any]]) -> None:
    """One tool object whose input schema is replaced, or edited in place, by each value in turn:
    the memo's declaration is always the fresh translation, byte for byte (types and key order)."""
    memo = DeclarationMemo()
    calls: list[str] = []
    tool = Tool("t", "d", {"type": "object", "properties": {}})
    for i, schema in enumerate(schemas):
        if i % 2:
            tool.input_schema.clear()
            tool.input_schema.update(copy.deepcopy(schema))  # in place
        else:
            tool.input_schema = copy.deepcopy(schema)
        for _ in range(2):
            got = memo.declaration(tool, _translate(calls))
            want = _translate([])(tool)[0]
            assert json.dumps(got) == json.dumps(want)
            assert repr(got) == repr(want)  # 1, 1.0 and True apart
            got["schema"]["added"] = [1]  # the caller's copy
        assert "added" not in tool.input_schema
