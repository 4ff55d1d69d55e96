"""Property keys a vendor refuses: renamed on the wire, read back in every place a schema can put
an object (toolwire.schema.keys)."""

from __future__ import annotations

from typing import Any

from toolwire.schema.keys import KEY_PATTERN, rename_schema_keys, schema_wire_keys, unwire_arguments, wire_keys


def _keys(node: Any) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        out.extend(k for k in (node.get("properties") or {}))
        for v in node.values():
            out.extend(_keys(v))
    elif isinstance(node, list):
        for v in node:
            out.extend(_keys(v))
    return out


def test_one_name_per_key_across_branches_so_every_branch_reads_back() -> None:
    schema = {
        "type": "object",
        "properties": {
            "o": {
                "anyOf": [
                    {"type": "object", "properties": {"a b": {"type": "string"}, "a@b": {"type": "string"}}},
                    {"type": "object", "properties": {"a@b": {"type": "integer"}, "a_b": {"type": "integer"}}},
                ]
            },
            "tup": {"type": "array", "prefixItems": [{"type": "object", "properties": {"x y": {"type": "string"}}}]},
            "m": {
                "type": "object",
                "additionalProperties": {"type": "object", "properties": {"x y": {"type": "string"}}},
            },
            "l": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Row"}}, {"type": "null"}]},
        },
        "$defs": {"Row": {"type": "object", "properties": {"x y": {"type": "string"}}}},
    }
    wire = rename_schema_keys(schema)
    assert all(KEY_PATTERN.fullmatch(k) for k in _keys(wire))
    names = schema_wire_keys(schema)
    # "a_b" is an accepted key of the schema, so no renamed key takes it; one name per key everywhere
    assert names == {"a b": "a_b_2", "a@b": "a_b_3", "x y": "x_y"}
    branch0, branch1 = wire["properties"]["o"]["anyOf"]
    assert list(branch0["properties"]) == ["a_b_2", "a_b_3"] and list(branch1["properties"]) == ["a_b_3", "a_b"]
    sent = {"o": {"a_b_3": 5}, "tup": [{"x_y": "v"}], "m": {"k": {"x_y": "w"}}, "l": [{"x_y": "z"}]}
    assert unwire_arguments(schema, sent) == {
        "o": {"a@b": 5},
        "tup": [{"x y": "v"}],
        "m": {"k": {"x y": "w"}},
        "l": [{"x y": "z"}],
    }
    # an accepted key is never taken for another: branch 1's own "a_b" reads as itself
    assert unwire_arguments(schema, {"o": {"a_b": 1}}) == {"o": {"a_b": 1}}
    # the schema's own names pass unchanged; a key sent under both names keeps both (nothing dropped)
    assert unwire_arguments(schema, {"o": {"a b": "s"}}) == {"o": {"a b": "s"}}
    assert unwire_arguments(schema, {"o": {"a b": "orig", "a_b_2": "wire"}}) == {"o": {"a b": "orig", "a_b_2": "wire"}}
    # the given schema and arguments are not changed
    assert "a b" in schema["properties"]["o"]["anyOf"][0]["properties"]


def test_many_keys_that_sanitise_to_one_name_get_distinct_names() -> None:
    keys = ["a b" + " " * i for i in range(4000)]
    names = wire_keys(keys)
    assert len(set(names.values())) == 4000 and all(KEY_PATTERN.fullmatch(n) for n in names.values())
    assert names["a b"] == "a_b" and names["a b "] == "a_b_" and wire_keys(keys) == names  # the same every time


def test_keys_of_free_form_maps_are_data_and_never_renamed() -> None:
    """A map's keys are the caller's data: a key that happens to equal a wire name of a declared
    property stays as sent; declared properties (also through $ref and inside map values) map back."""
    schema = {
        "type": "object",
        "properties": {
            "$select": {"type": "string"},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
            "rows": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Row"}},
            "headers": {"type": "object", "patternProperties": {"^X-": {"$ref": "#/$defs/Row"}}},
        },
        "$defs": {"Row": {"type": "object", "properties": {"@odata.type": {"type": "string"}}}},
    }
    assert schema_wire_keys(schema) == {"$select": "_select", "@odata.type": "_odata.type"}
    sent = {
        "_select": "name",
        "metadata": {"_select": "keep-me", "_odata.type": "mine"},
        "rows": {"_select": {"_odata.type": "r"}},
        "headers": {"X-A": {"_odata.type": "h"}},
    }
    assert unwire_arguments(schema, sent) == {
        "$select": "name",
        "metadata": {"_select": "keep-me", "_odata.type": "mine"},
        "rows": {"_select": {"@odata.type": "r"}},
        "headers": {"X-A": {"@odata.type": "h"}},
    }


def test_maps_and_properties_inside_branches_and_refs_read_back() -> None:
    """Optional[dict[str, Model]] (a map inside anyOf), a name several branches define, and
    properties beside a $ref: declared names map back, map keys stay data."""
    schema = {
        "type": "object",
        "properties": {
            "where": {
                "anyOf": [{"type": "object", "additionalProperties": {"$ref": "#/$defs/Cond"}}, {"type": "null"}]
            },
            "f": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {"$filter": {"type": "object", "properties": {"$in": {"type": "array"}}}},
                    },
                    {"type": "object", "properties": {"$filter": {"type": "string"}}},
                ]
            },
            "r": {"$ref": "#/$defs/Cond", "properties": {"$ne": {"type": "string"}}},
            "free": {},
        },
        "$defs": {"Cond": {"type": "object", "properties": {"$eq": {"type": "string"}}}},
    }
    sent = {
        "where": {"name": {"_eq": "Ada"}, "_eq": {"_eq": "key-is-data"}},
        "f": {"_filter": {"_in": [1]}},
        "r": {"_eq": "a", "_ne": "b"},
        "free": {"_eq": "x"},
    }
    assert unwire_arguments(schema, sent) == {
        "where": {"name": {"$eq": "Ada"}, "_eq": {"$eq": "key-is-data"}},
        "f": {"$filter": {"$in": [1]}},
        "r": {"$eq": "a", "$ne": "b"},
        "free": {"$eq": "x"},  # a schema that says nothing about keys: read as before
    }
