"""Schema translation (cases B01, B02, B03), $ref inlining, and argument coercion (B24)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from toolwire_gemini import GeminiCodec

from toolwire.adapter import ModelRequest
from toolwire.errors import SchemaTranslationError
from toolwire.schema.coerce import coerce_arguments, enum_string
from toolwire.schema.refs import inline_refs
from toolwire.schema.report import TranslationReport
from toolwire.schema.validate import validate_arguments
from toolwire.tools import Tool
from toolwire.types import Message

OPENAPI = GeminiCodec(schema_mode="openapi")
JSONSCHEMA = GeminiCodec()


def changes(report: TranslationReport) -> list[tuple[str, str, str]]:
    return [(c.pointer, c.action, c.keyword) for c in report]


# ------------------------------------------------------------------ B01


B01_INPUT = {
    "type": "object",
    "properties": {"ops": {"type": "array", "items": {"type": "object", "additionalProperties": True}}},
    "required": ["ops"],
}


def test_b01_additional_properties_removed_in_openapi_mode_with_its_path() -> None:
    decl, report = OPENAPI.translate_tool(Tool.from_schema("apply_ops", "Apply operations.", B01_INPUT))
    assert decl == {
        "name": "apply_ops",
        "description": "Apply operations.",
        "parameters": {
            "type": "object",
            "properties": {"ops": {"type": "array", "items": {"type": "object"}}},
            "required": ["ops"],
        },
    }
    assert changes(report) == [("/properties/ops/items", "removed", "additionalProperties")]
    assert report.changes[0].lossy is True
    assert "additionalProperties" not in json.dumps(decl)


def test_b01_json_schema_mode_passes_the_schema_unchanged_and_never_both_fields() -> None:
    decl, report = JSONSCHEMA.translate_tool(Tool.from_schema("apply_ops", "Apply operations.", B01_INPUT))
    assert decl == {"name": "apply_ops", "description": "Apply operations.", "parametersJsonSchema": B01_INPUT}
    assert len(report) == 0
    for codec in (OPENAPI, JSONSCHEMA):
        d, _ = codec.translate_tool(Tool.from_schema("apply_ops", "x", B01_INPUT))
        assert len({"parameters", "parametersJsonSchema", "parameters_json_schema"} & set(d)) == 1


# ------------------------------------------------------------------ B02 and every $ref form

B02_INPUT = {
    "type": "object",
    "$defs": {"City": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
    "properties": {"city": {"$ref": "#/$defs/City", "description": "target"}},
    "required": ["city"],
}
B02_OUTPUT = {
    "type": "object",
    "properties": {
        "city": {
            "type": "object",
            "description": "target",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        }
    },
    "required": ["city"],
}


def test_b02_ref_inlined_with_sibling_description_kept() -> None:
    decl, report = OPENAPI.translate_tool(Tool.from_schema("weather", "Weather.", B02_INPUT))
    assert decl["parameters"] == B02_OUTPUT
    assert ("/properties/city", "inlined", "$ref") in changes(report)
    assert ("/$defs", "removed", "$defs") in changes(report)


def test_b02_recursive_ref_raises_naming_the_pointer() -> None:
    recursive = {
        "type": "object",
        "$defs": {
            "City": {"type": "object", "properties": {"name": {"type": "string"}, "twin": {"$ref": "#/$defs/City"}}}
        },
        "properties": {"city": {"$ref": "#/$defs/City"}},
    }
    with pytest.raises(SchemaTranslationError) as info:
        OPENAPI.translate_tool(Tool.from_schema("weather", "Weather.", recursive))
    assert info.value.pointer == "#/$defs/City"
    assert "#/$defs/City" in str(info.value)


def test_recursion_through_two_definitions_and_through_root_is_detected() -> None:
    mutual = {
        "type": "object",
        "definitions": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}},
        },
        "properties": {"a": {"$ref": "#/definitions/A"}},
    }
    with pytest.raises(SchemaTranslationError) as info:
        inline_refs(mutual)
    assert info.value.pointer == "#/definitions/A"
    with pytest.raises(SchemaTranslationError) as info:
        inline_refs({"type": "object", "properties": {"self": {"$ref": "#"}}})
    assert info.value.pointer == "#"


def test_definitions_nested_pointer_escapes_and_transitive_refs() -> None:
    schema = {
        "type": "object",
        "definitions": {
            "Unit": {"type": "string", "enum": ["c", "f"]},
            "Reading": {
                "type": "object",
                "properties": {"unit": {"$ref": "#/definitions/Unit"}, "v": {"type": "number"}},
            },
            "a/b": {"type": "integer"},
        },
        "properties": {
            "reading": {"$ref": "#/definitions/Reading", "title": "Reading"},
            "unit_again": {"$ref": "#/definitions/Reading/properties/unit"},
            "escaped": {"$ref": "#/definitions/a~1b"},
            "pct": {"$ref": "#/definitions/a~1b".replace("/a~1b", "/a%7E1b")},
        },
    }
    report = TranslationReport("gemini")
    out = inline_refs(schema, report)
    assert out == {
        "type": "object",
        "properties": {
            "reading": {
                "type": "object",
                "properties": {"unit": {"type": "string", "enum": ["c", "f"]}, "v": {"type": "number"}},
                "title": "Reading",
            },
            "unit_again": {"type": "string", "enum": ["c", "f"]},
            "escaped": {"type": "integer"},
            "pct": {"type": "integer"},
        },
    }
    assert ("/definitions/Reading/properties/unit", "inlined", "$ref") in changes(report)
    assert ("/definitions", "removed", "definitions") in changes(report)
    assert schema["properties"]["reading"] == {"$ref": "#/definitions/Reading", "title": "Reading"}  # input untouched


def test_unresolvable_and_remote_refs_raise() -> None:
    with pytest.raises(SchemaTranslationError) as info:
        inline_refs({"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}})
    assert info.value.pointer == "#/$defs/Missing"
    with pytest.raises(SchemaTranslationError):
        inline_refs({"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}})


def test_property_named_defs_is_data_not_a_keyword() -> None:
    schema = {"type": "object", "properties": {"$defs": {"type": "string"}}}
    assert inline_refs(schema) == schema


# ------------------------------------------------------------------ B03


def test_b03_zero_parameter_tool_declared_without_parameters_in_both_modes() -> None:
    tool = Tool.from_schema("list_cameras", "List the cameras.", {"type": "object", "properties": {}, "required": []})
    for codec in (OPENAPI, JSONSCHEMA):
        decl, report = codec.translate_tool(tool)
        assert decl == {"name": "list_cameras", "description": "List the cameras."}
        assert changes(report) == [("", "removed", "parameters")]
    # with mode ANY naming it, the declaration is still without parameters
    body = OPENAPI.encode_request(
        ModelRequest(
            model="gemini-2.5-flash",
            messages=[Message.user("cams?")],
            tools=[tool],
            tool_choice={"type": "tool", "name": "list_cameras"},
        )
    )
    assert body["tools"] == [{"functionDeclarations": [{"name": "list_cameras", "description": "List the cameras."}]}]
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["list_cameras"]}}


def test_b03_imported_zero_parameter_declaration_keeps_what_it_had() -> None:
    recorded = {
        "contents": [{"role": "user", "parts": [{"text": "run bar"}]}],
        "tools": [
            {
                "functionDeclarations": [
                    {"description": "", "name": "bar", "parameters": {"properties": {}, "type": "OBJECT"}}
                ]
            }
        ],
    }
    request = OPENAPI.decode_request(recorded)
    assert request.tools[0].input_schema == {"properties": {}, "type": "object"}
    assert OPENAPI.encode_request(request)["tools"] == recorded["tools"]


# ------------------------------------------------------------------ other OpenAPI rewrites


def test_nullable_from_type_list_and_from_anyof_null() -> None:
    schema = {
        "type": "object",
        "properties": {
            "note": {"type": ["string", "null"], "description": "optional note"},
            "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}], "description": "time"},
            "either": {"type": ["string", "integer"]},
        },
    }
    decl, report = OPENAPI.translate_tool(Tool.from_schema("t", "d", schema))
    assert decl["parameters"]["properties"] == {
        "note": {"type": "string", "description": "optional note", "nullable": True},
        "when": {"type": "string", "format": "date-time", "description": "time", "nullable": True},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    }
    assert ("/properties/note", "nullable", "type") in changes(report)
    assert ("/properties/when", "nullable", "anyOf") in changes(report)
    assert ("/properties/either", "rewritten", "type") in changes(report)


def test_non_string_enum_stringified_and_answers_converted_back() -> None:
    schema = {
        "type": "object",
        "properties": {
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "flag": {"enum": [True, False, None]},
            "mode": {"const": 7},
        },
        "required": ["level"],
    }
    tool = Tool.from_schema("set_level", "Set the level.", schema)
    decl, report = OPENAPI.translate_tool(tool)
    props = decl["parameters"]["properties"]
    assert props["level"] == {"type": "string", "enum": ["1", "2", "3"]}
    assert props["flag"] == {"type": "string", "enum": ["true", "false"], "nullable": True}
    assert props["mode"] == {"type": "string", "enum": ["7"]}
    assert ("/properties/level", "stringified", "enum") in changes(report)
    assert ("/properties/mode", "rewritten", "const") in changes(report)
    # the model answers with the strings; decoding converts back with the canonical schema
    request = ModelRequest(model="gemini-2.5-flash", tools=[tool])
    body = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "set_level", "args": {"level": "2", "flag": "false", "mode": "7"}}}
                    ],
                },
                "finishReason": "STOP",
            }
        ],
        "responseId": "r-enum",
    }
    call = OPENAPI.decode_response(body, request).tool_calls[0]
    assert call.arguments == {"level": 2, "flag": False, "mode": 7}
    assert validate_arguments(schema, call.arguments) == []


def test_unsupported_keywords_removed_and_reported_with_paths() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "n": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 2},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "minItems": 1},
            "url": {"type": "string", "format": "uri", "pattern": "^https://"},
            "shape": {"oneOf": [{"type": "string"}, {"type": "number"}]},
            "ex": {"type": "string", "examples": ["a", "b"]},
        },
    }
    decl, report = OPENAPI.translate_tool(Tool.from_schema("t", "d", schema))
    assert decl["parameters"] == {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "url": {"type": "string", "pattern": "^https://"},
            "shape": {"anyOf": [{"type": "string"}, {"type": "number"}]},
            "ex": {"type": "string", "example": "a"},
        },
    }
    got = changes(report)
    for expected in [
        ("/", "removed", "$schema"),
        ("/", "removed", "additionalProperties"),
        ("/properties/n", "removed", "exclusiveMinimum"),
        ("/properties/n", "removed", "multipleOf"),
        ("/properties/tags", "removed", "uniqueItems"),
        ("/properties/url", "removed", "format"),
        ("/properties/shape", "rewritten", "oneOf"),
        ("/properties/ex", "rewritten", "examples"),
    ]:
        assert expected in got
    lossy = {(c.pointer, c.keyword): c.lossy for c in report}
    assert lossy[("/", "additionalProperties")] is False  # false only forbids extra keys: nothing the model needs
    assert lossy[("/properties/n", "exclusiveMinimum")] is True


def test_every_array_gets_items_in_openapi_mode() -> None:
    # Gemini: "...parameters.properties[tags].items: missing field" for an array without items
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "description": "tags"},
            "rows": {"type": "array", "items": {"type": "array"}},
            "maybe": {"type": ["array", "null"]},
            "bbox": {"type": "array", "prefixItems": [{"type": "integer"}] * 4, "minItems": 4, "maxItems": 4},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "typed": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["tags"],
    }
    decl, report = OPENAPI.translate_tool(Tool.from_schema("t", "d", schema))
    props = decl["parameters"]["properties"]
    assert props["tags"] == {"type": "array", "description": "tags", "items": {}}
    assert props["rows"] == {"type": "array", "items": {"type": "array", "items": {}}}
    assert props["maybe"] == {"type": "array", "items": {}, "nullable": True}
    assert props["bbox"] == {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4}
    assert props["pair"] == {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}
    assert props["typed"] == {"type": "array", "items": {"type": "string"}}
    got = changes(report)
    for pointer in ("/properties/tags", "/properties/rows/items", "/properties/maybe", "/properties/bbox"):
        assert (pointer, "added", "items") in got
    assert ("/properties/bbox", "removed", "prefixItems") in got  # the positions: reported lossy with the removal
    assert ("/properties/typed", "added", "items") not in got

    # every array node of the declaration has items
    def arrays_without_items(node: object) -> int:
        if isinstance(node, dict):
            own = node.get("type") == "array" and "items" not in node
            return own + sum(arrays_without_items(v) for v in node.values())
        if isinstance(node, list):
            return sum(arrays_without_items(v) for v in node)
        return 0

    assert arrays_without_items(decl) == 0
    # the default mode sends the JSON Schema as it is (parametersJsonSchema takes arrays without items)
    plain, _ = JSONSCHEMA.translate_tool(Tool.from_schema("t", "d", schema))
    assert plain["parametersJsonSchema"]["properties"]["tags"] == {"type": "array", "description": "tags"}


# ------------------------------------------------------------------ B24 and coercion


def test_b24_integer_floats_become_ints_only_where_the_schema_says_integer() -> None:
    schema = {"type": "object", "properties": {"depth": {"type": "integer"}, "ratio": {"type": "number"}}}
    out = coerce_arguments(schema, {"depth": 3.0, "ratio": 0.5})
    assert out == {"depth": 3, "ratio": 0.5} and type(out["depth"]) is int
    assert json.dumps(out) == '{"depth": 3, "ratio": 0.5}'
    kept = coerce_arguments(schema, {"depth": 3, "ratio": 3.0})
    assert type(kept["ratio"]) is float
    bad = coerce_arguments(schema, {"depth": 3.5})
    assert bad == {"depth": 3.5}
    errors = validate_arguments(schema, bad)
    assert errors and errors[0].pointer == "/depth"


def test_coercion_follows_refs_arrays_nullable_and_anyof() -> None:
    schema = {
        "type": "object",
        "$defs": {"P": {"type": "object", "properties": {"x": {"type": "integer"}}}},
        "properties": {
            "points": {"type": "array", "items": {"$ref": "#/$defs/P"}},
            "maybe": {"type": ["integer", "null"]},
            "alt": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "ok": {"type": "boolean"},
        },
    }
    out = coerce_arguments(schema, {"points": [{"x": 1.0}, {"x": 2.5}], "maybe": 4.0, "alt": 5.0, "ok": True})
    assert out == {"points": [{"x": 1}, {"x": 2.5}], "maybe": 4, "alt": 5, "ok": True}
    assert type(out["points"][0]["x"]) is int and type(out["alt"]) is int
    assert enum_string(1.5) == "1.5" and enum_string("é") == "é"


# ------------------------------------------- Schema shapes the API refuses in openapi mode


def test_anyof_is_alone_in_its_node_with_the_other_fields_moved_into_its_branches() -> None:
    """A pydantic ``Union`` field: ``anyOf`` with ``description``/``title``/``default`` beside it.
    The API refuses that ("When using any_of, it must be the only field set.")."""
    schema = {
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"type": "integer"}, {"type": "number"}], "description": "The first number.", "title": "A"},
            "b": {
                "anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}],
                "default": None,
                "description": "Label or id.",
            },
        },
        "required": ["a"],
    }
    decl, report = OPENAPI.translate_tool(Tool.from_schema("calc", "Add.", schema))
    props = decl["parameters"]["properties"]
    assert props["a"] == {
        "anyOf": [
            {"type": "integer", "description": "The first number."},
            {"type": "number", "description": "The first number."},
        ]
    }
    assert props["b"] == {
        "anyOf": [
            {"type": "string", "description": "Label or id.", "nullable": True},
            {"type": "integer", "description": "Label or id.", "nullable": True},
        ]
    }
    assert ("/properties/a", "removed", "title") in changes(report)
    assert ("/properties/b", "rewritten", "nullable") in changes(report)


def test_object_fields_of_a_type_list_go_to_the_object_branch_and_leave_other_types() -> None:
    """``properties``/``required`` only on OBJECT nodes ("properties: only allowed for OBJECT type")."""
    either = {"type": ["object", "string"], "properties": {"id": {"type": "string"}}, "required": ["id"]}
    text = {"type": "string", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    schema = {"type": "object", "properties": {"either": either, "text": text}}
    decl, report = OPENAPI.translate_tool(Tool.from_schema("update", "Update.", schema))
    props = decl["parameters"]["properties"]
    assert props["either"] == {
        "anyOf": [{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}, {"type": "string"}]
    }
    assert props["text"] == {"type": "string"}
    lossy = [(c.pointer, c.keyword) for c in report if c.lossy]
    assert lossy == [("/properties/text", "properties"), ("/properties/text", "required")]


def test_empty_enum_member_removed_in_openapi_mode() -> None:
    """ "enum[3]: cannot be empty" for a ``""`` member."""
    schema = {"type": "object", "properties": {"action": {"type": "string", "enum": ["list", "open", ""]}}}
    decl, report = OPENAPI.translate_tool(Tool.from_schema("excel", "Excel.", schema))
    assert decl["parameters"]["properties"]["action"] == {"type": "string", "enum": ["list", "open"]}
    assert [(c.pointer, c.keyword, c.lossy) for c in report] == [("/properties/action", "enum", True)]
    only_empty = {"type": "object", "properties": {"x": {"type": "string", "enum": [""]}}}
    decl, _ = OPENAPI.translate_tool(Tool.from_schema("t", "T.", only_empty))
    assert decl["parameters"]["properties"]["x"] == {"type": "string"}


def test_fields_beside_anyof_reach_nested_anyof_branches_and_keep_the_array_items() -> None:
    nested = {"description": "d", "anyOf": [{"anyOf": [{"type": "integer"}, {"type": "number"}]}, {"type": "string"}]}
    both = {"type": ["object", "array"], "properties": {"a": {"type": "string"}}, "items": {"type": "string"}}
    schema = {"type": "object", "properties": {"n": nested, "b": both, "c": {"const": ""}}}
    decl, _ = OPENAPI.translate_tool(Tool.from_schema("t", "T.", schema))
    props = decl["parameters"]["properties"]
    assert props["n"] == {
        "anyOf": [
            {"anyOf": [{"type": "integer", "description": "d"}, {"type": "number", "description": "d"}]},
            {"type": "string", "description": "d"},
        ]
    }
    assert props["b"] == {
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "array", "items": {"type": "string"}},
        ]
    }
    assert props["c"] == {"type": "string"}


def test_typeless_properties_become_an_object_and_nullable_never_sits_beside_anyof() -> None:
    schema = {
        "type": "object",
        "properties": {
            "data": {"properties": {"page_id": {"type": "string"}}, "required": ["page_id"]},
            "v": {"anyOf": [{"type": ["string", "integer"]}, {"type": "null"}]},
        },
    }
    decl, _ = OPENAPI.translate_tool(Tool.from_schema("t", "T.", schema))
    props = decl["parameters"]["properties"]
    assert props["data"]["type"] == "object"
    assert props["v"] == {"anyOf": [{"type": "string", "nullable": True}, {"type": "integer", "nullable": True}]}


# ------------------------------------------------------------ boolean schemas (openapi mode)


def test_boolean_subschemas_are_sent_as_schema_objects_in_openapi_mode(mock_model) -> None:
    """JSON Schema allows ``true`` (any value) and ``false`` (no value) wherever a schema goes;
    the ``parameters`` Schema takes only objects. ``true`` is sent like ``{}`` (the JSON kinds),
    a ``false`` property (a key that must not be sent) and a ``false`` branch are left out; the
    request is sent, not refused. Found by the schema fuzz test."""
    from gemini_wire_helpers import candidate_body, json_response

    from toolwire import run_sync
    from toolwire.schema.validate import validate_arguments

    schema = {
        "type": "object",
        "properties": {
            "payload": True,
            "legacy": False,
            "pick": {"anyOf": [{"type": "integer"}, True, False]},
            "q": {"type": "string"},
        },
        "required": ["q"],
    }
    seen: list[Any] = []
    tool = Tool.from_schema("store", "Store a payload.", schema, lambda **kw: seen.append(kw) or "ok")
    answers = [
        json_response(
            candidate_body(
                [{"functionCall": {"name": "store", "args": {"q": "x", "payload": {"a": [1.0]}, "pick": 2.0}}}]
            )
        ),
        json_response(candidate_body([{"text": "stored"}])),
    ]
    model = mock_model(answers, schema_mode="openapi")
    result = run_sync(model, "store it", tools=[tool])
    assert result.text == "stored"
    params = model.sent[0].json["tools"][0]["functionDeclarations"][0]["parameters"]
    any_value = [
        {"type": "string"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "object"},
        {"type": "array", "items": {"type": "string"}},
    ]
    assert params == {
        "type": "object",
        "properties": {
            "payload": {"anyOf": any_value},
            "pick": {"anyOf": [{"type": "integer"}, {"anyOf": any_value}]},
            "q": {"type": "string"},
        },
        "required": ["q"],
    }
    assert seen == [{"q": "x", "payload": {"a": [1.0]}, "pick": 2}]
    assert validate_arguments(schema, seen[0]) == []
    _, report = OPENAPI.translate_tool(tool)
    assert ("/properties/legacy", "removed", "properties") in changes(report)
    assert ("/properties/pick/anyOf/2", "removed", "anyOf") in changes(report)


def test_ref_siblings_wrapped_under_properties_named_like_data_keywords(mock_model) -> None:
    """A property may be called ``default``, ``enum`` or ``examples``: under ``properties`` those
    are names, not keywords, so a ``$ref`` with a ``description`` there is wrapped like any other
    (rule gemini.schema.json.ref-siblings). Found by the schema fuzz test."""
    from gemini_wire_helpers import candidate_body, json_response

    from toolwire import run_sync

    schema = {
        "type": "object",
        "properties": {"default": {"$ref": "#/$defs/Mode", "description": "the mode used when none is given"}},
        "$defs": {"Mode": {"type": "string", "enum": ["fast", "safe"]}},
    }
    tool = Tool.from_schema("configure", "Configure.", schema, lambda **kw: "ok")
    model = mock_model([json_response(candidate_body([{"text": "done"}]))])
    run_sync(model, "configure", tools=[tool])
    sent = model.sent[0].json["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]
    assert sent["properties"]["default"] == {
        "anyOf": [{"$ref": "#/$defs/Mode"}],
        "description": "the mode used when none is given",
    }


def test_stringified_enum_answer_converted_back_through_the_branch_that_holds_it(mock_model) -> None:
    """In openapi mode a non-string enum is sent as strings, and the answer is converted back.
    Under ``oneOf``/``anyOf`` the branch that takes the answer must be the one whose enum holds
    it (not the first branch of the same type), and among object branches the one whose
    ``const`` discriminator matches. Found by the schema fuzz test."""
    from gemini_wire_helpers import candidate_body, json_response

    from toolwire import run_sync

    schema = {
        "type": "object",
        "properties": {
            "size": {"oneOf": [{"type": "string", "enum": ["small", "large"]}, {"type": "number", "enum": [0.5, 1]}]},
            "shape": {
                "anyOf": [
                    {"type": "object", "properties": {"kind": {"const": "box"}, "side": {"type": "string"}}},
                    {"type": "object", "properties": {"kind": {"const": "ball"}, "radius": {"enum": [1, 2]}}},
                ]
            },
        },
    }
    seen: list[Any] = []
    tool = Tool.from_schema("make", "Make a thing.", schema, lambda **kw: seen.append(kw) or "ok")
    args = {"size": "1", "shape": {"kind": "ball", "radius": "2"}}
    model = mock_model(
        [
            json_response(candidate_body([{"functionCall": {"name": "make", "args": args}}])),
            json_response(candidate_body([{"text": "made"}])),
        ],
        schema_mode="openapi",
    )
    result = run_sync(model, "make it", tools=[tool])
    assert result.tool_runs[0].result.is_error is False, result.tool_runs[0].result.content
    assert seen == [{"size": 1, "shape": {"kind": "ball", "radius": 2}}]
