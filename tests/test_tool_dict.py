"""``Tool.to_dict`` / ``Tool.from_dict``: a saved tool (hand-edited, or written by other code) is
checked on load as strictly as ``Tool.from_schema`` checks a tool, with a typed error naming the
tool and the field; and what a tool can keep as JSON survives the round trip (``meta``: result
caps, ``blocking=False``, approval and deferral flags; a provider tool's vendor, type and settings)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire import ProviderTool, Tool
from toolwire.design.results import CapSpec
from toolwire.errors import ConfigurationError, SchemaError, ToolDefinitionError


def _saved(**changes: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "name": "lookup",
        "description": "Look a word up.",
        "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
    }
    d.update(changes)
    return d


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        (
            {"type": "string"},
            """tool 'lookup': input schema must have "type": "object" at the top level, got 'string'""",
        ),
        ([], "tool 'lookup': input schema must be a JSON object (dict), got list"),
        ({}, """tool 'lookup': input schema must have "type": "object" at the top level, got None"""),
        (
            {"type": "object", "properties": {"n": {"type": "integer", "minimum": "zero"}}},
            "tool 'lookup': input schema is not valid JSON Schema (Draft 2020-12) at /properties/n/minimum",
        ),
        (
            {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}},
            "tool 'lookup': input schema has a $ref at /properties/n to '#/$defs/N', which points nowhere",
        ),
    ],
)
def test_a_saved_input_schema_is_checked_as_from_schema_checks_it(schema: Any, words: str) -> None:
    """``{"type": "string"}`` loaded as the tool's schema, and ``[]`` (or ``{}``) was silently
    replaced by an empty object schema."""
    with pytest.raises(SchemaError) as info:
        Tool.from_dict(_saved(input_schema=schema))
    assert str(info.value).startswith(words), str(info.value)
    with pytest.raises(SchemaError) as same:  # the same check as from_schema
        Tool.from_schema("lookup", "d", schema)
    assert str(same.value) == str(info.value)


def test_a_missing_or_null_input_schema_is_the_empty_object_schema() -> None:
    assert Tool.from_dict(_saved(meta=None)).meta == {}
    d = _saved()
    del d["input_schema"]
    assert Tool.from_dict(d).input_schema == {"type": "object", "properties": {}}
    assert Tool.from_dict(_saved(input_schema=None)).input_schema == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        (
            {"provider_data": [1, 2]},
            "tool 'lookup': provider_data must be an object (API name to that API's data), got list",
        ),
        (
            {"provider_data": "x"},
            "tool 'lookup': provider_data must be an object (API name to that API's data), got str",
        ),
        ({"provider_data": {"anthropic": 5}}, "tool 'lookup': provider_data['anthropic'] must be an object"),
        ({"meta": [1]}, "tool 'lookup': meta must be an object, got list"),
        ({"description": 5}, "tool 'lookup': description must be text, got int"),
        ({"strict": "yes"}, "tool 'lookup': strict must be True, False or None, got str 'yes'"),
        ({"timeout": "30"}, "tool 'lookup': timeout must be a number of seconds > 0 or None, got str '30'"),
    ],
)
def test_a_bad_saved_field_is_a_tool_definition_error_naming_it(changes: dict[str, Any], words: str) -> None:
    """``provider_data`` went through ``dict()``: a list of pairs raised a raw ``TypeError`` or
    ``ValueError`` (``[1, 2]``), a string the same."""
    with pytest.raises(ToolDefinitionError) as info:
        Tool.from_dict(_saved(**changes))
    assert str(info.value).startswith(words), str(info.value)


def test_a_saved_tool_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="a saved tool must be an object, got list"):
        Tool.from_dict([("name", "lookup")])  # type: ignore[arg-type]


def test_meta_survives_the_round_trip_through_json() -> None:
    """``to_dict`` left ``meta`` out: a tool's result cap, ``blocking=False``, approval and
    deferral flags and call limit were lost in a round trip."""

    def lookup(word: str) -> str:
        """Look a word up."""
        return word

    t = toolwire.tool(lookup, blocking=False)
    t.meta.update(
        {
            "cap": CapSpec("lines", 50, "offset", "limit").to_dict(),
            "requires_approval": True,
            "deferred": True,
            "max_calls": 3,
            "non_repeatable": True,
            "mcp": {"server": "words", "name": "lookup"},
        }
    )
    loaded = Tool.from_dict(json.loads(json.dumps(t.to_dict())))
    assert loaded.meta == t.meta
    assert loaded.meta["blocking"] is False
    assert CapSpec.from_meta(loaded.meta["cap"]) == CapSpec("lines", 50, "offset", "limit")
    assert (loaded.name, loaded.description, loaded.input_schema) == (t.name, t.description, t.input_schema)
    assert loaded.function is None


def test_meta_entries_that_are_not_json_values_are_left_out_and_tuples_become_lists() -> None:
    def policy(call: Any) -> bool:
        return True

    t = Tool("lookup", "d", meta={"requires_approval": policy, "lint_cut": [("/description", 900)], "n": float("nan")})
    d = t.to_dict()
    assert d["meta"] == {"lint_cut": [["/description", 900]]}
    json.dumps(d, allow_nan=False)
    assert "meta" not in Tool("lookup", "d", meta={"requires_approval": policy}).to_dict()
    assert "meta" not in Tool("lookup", "d").to_dict()


def test_to_dict_does_not_share_meta_with_the_tool() -> None:
    t = Tool("lookup", "d", meta={"mcp": {"server": "a"}})
    t.to_dict()["meta"]["mcp"]["server"] = "b"
    assert t.meta == {"mcp": {"server": "a"}}


def test_a_provider_tool_round_trips_as_a_provider_tool() -> None:
    """A ``ProviderTool`` was saved as a plain function tool (the vendor's input schema, no vendor,
    type or settings), so it loaded as a function tool named ``web_search``."""
    pytest.importorskip("toolwire_anthropic")
    t = ProviderTool("anthropic", "web_search_20250305", {"max_uses": 3})
    t.meta["deferred"] = True
    loaded = Tool.from_dict(json.loads(json.dumps(t.to_dict())))
    assert isinstance(loaded, ProviderTool)
    assert (loaded.vendor, loaded.type, loaded.settings, loaded.name) == (
        "anthropic",
        "web_search_20250305",
        {"max_uses": 3},
        t.name,
    )
    assert loaded == t and loaded.meta == {"deferred": True}


@pytest.mark.parametrize(
    ("provider_tool", "error", "words"),
    [
        (
            [],
            ToolDefinitionError,
            "tool 'web_search': provider_tool must be an object (vendor, type, settings), got list",
        ),
        ({"vendor": "anthropic"}, ConfigurationError, "ProviderTool: type must be the tool's wire type"),
        (
            {"vendor": "anthropic", "type": "web_search_20250305", "settings": [1]},
            ConfigurationError,
            "settings must be a dict",
        ),
    ],
)
def test_a_bad_saved_provider_tool_is_refused(provider_tool: Any, error: type[Exception], words: str) -> None:
    pytest.importorskip("toolwire_anthropic")
    with pytest.raises(error) as info:
        Tool.from_dict({"name": "web_search", "provider_tool": provider_tool})
    assert words in str(info.value), str(info.value)


def test_provider_tool_from_dict_of_a_plain_tool_is_refused() -> None:
    """``ProviderTool.from_dict`` of a plain tool's dict passed its name as the vendor."""
    with pytest.raises(ToolDefinitionError, match="tool 'lookup': provider_tool must be an object"):
        ProviderTool.from_dict(_saved())
