"""Translation is bounded: repeated references are expanded once (memoised) and a translated
schema past the documented size bound raises SchemaTranslationError naming the pointer."""

from __future__ import annotations

import json

import pytest

from toolwire.errors import SchemaTranslationError
from toolwire.schema.refs import MAX_TRANSLATED_NODES, inline_refs
from toolwire.schema.report import TranslationReport
from toolwire.schema.strict import StrictDialect, make_strict


def doubling(levels: int) -> dict:
    """L0 → two uses of L1 → two uses of L2 …: the inlined form has 2**levels leaves."""
    defs = {
        f"L{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/L{i + 1}"}, "b": {"$ref": f"#/$defs/L{i + 1}"}},
        }
        for i in range(levels)
    }
    defs[f"L{levels}"] = {"type": "string", "description": "leaf"}
    return {"type": "object", "properties": {"root": {"$ref": "#/$defs/L0"}}, "$defs": defs}


def test_repeated_reference_inlined_into_independent_equal_copies() -> None:
    schema = {
        "type": "object",
        "$defs": {"City": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "properties": {f"c{i}": {"$ref": "#/$defs/City"} for i in range(30)},
    }
    report = TranslationReport("test")
    out = inline_refs(schema, report)
    assert all(
        out["properties"][f"c{i}"] == {"type": "object", "properties": {"name": {"type": "string"}}} for i in range(30)
    )
    out["properties"]["c0"]["properties"]["name"]["type"] = "integer"  # copies are independent
    assert out["properties"]["c1"]["properties"]["name"]["type"] == "string"
    assert sum(1 for c in report if c.action == "inlined") == 30  # every use still reported
    assert "$defs" not in out


def test_moderate_doubling_still_inlines() -> None:
    out = inline_refs(doubling(8))
    leaf = out["properties"]["root"]
    for _ in range(8):
        leaf = leaf["properties"]["b"]
    assert leaf == {"type": "string", "description": "leaf"}


def test_inlining_past_the_bound_names_the_pointer() -> None:
    with pytest.raises(SchemaTranslationError) as info:
        inline_refs(doubling(40))  # 2**40 leaves: must stop at the bound, quickly
    err = info.value
    assert err.rule == "translated-size-bound"
    assert err.pointer.startswith("/$defs/L") or err.pointer.startswith("/properties/root")
    assert str(MAX_TRANSLATED_NODES) in str(err) and err.pointer in str(err)


def test_inline_bound_is_a_parameter() -> None:
    with pytest.raises(SchemaTranslationError, match="passes 50 JSON nodes"):
        inline_refs(doubling(6), max_nodes=50)
    assert inline_refs(doubling(3), max_nodes=200)


DIALECT = StrictDialect(
    frozenset(
        {
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "anyOf",
            "$ref",
            "$defs",
            "description",
            "title",
        }
    ),
    frozenset(),
    source="test dialect",
)


def test_strict_reuses_the_transform_of_an_annotated_reference() -> None:
    defs = {"Addr": {"type": "object", "properties": {"street": {"type": "string", "minLength": 1}}}}
    schema = {
        "type": "object",
        "$defs": defs,
        "properties": {f"a{i}": {"$ref": "#/$defs/Addr", "description": f"address {i}"} for i in range(20)},
        "required": [f"a{i}" for i in range(20)],
    }
    out, report = make_strict(schema, dialect=DIALECT)
    assert out is not None
    for i in range(20):
        got = out["properties"][f"a{i}"]
        assert got["description"] == f"address {i}"
        assert got["properties"] == {"street": {"type": "string"}} and got["additionalProperties"] is False
    # minLength removed: reported once for the shared target, not once per use
    assert sum(1 for c in report if c.keyword == "minLength") == 2  # in $defs and at the first use


def test_strict_dialect_decides_keywords_and_formats() -> None:
    schema = {
        "type": "object",
        "properties": {"d": {"type": "string", "format": "date", "pattern": "^x"}},
        "required": ["d"],
    }
    out, report = make_strict(schema, dialect=DIALECT)
    assert out["properties"]["d"] == {"type": "string"}
    wide = StrictDialect(DIALECT.keywords | {"format", "pattern"}, frozenset({"date"}))
    out2, _ = make_strict(schema, dialect=wide)
    assert out2["properties"]["d"] == {"type": "string", "format": "date", "pattern": "^x"}


def test_strict_past_the_bound_names_the_pointer() -> None:
    schema = doubling(30)
    for d in schema["$defs"].values():
        for p in d.get("properties", {}).values():
            p["description"] = "x"  # annotated references: inlined by the strict transform
    with pytest.raises(SchemaTranslationError) as info:
        make_strict(schema, dialect=DIALECT, max_nodes=5000)
    assert info.value.rule == "translated-size-bound" and info.value.pointer.startswith("/")
    assert len(json.dumps(make_strict(doubling(4), dialect=DIALECT)[0])) > 0
