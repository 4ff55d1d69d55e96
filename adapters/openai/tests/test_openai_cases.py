"""Bug cases B06, B07, B08 (OpenAI part), B22 (OpenAI part) and B23 from ``shared/cases``,
plus the strict-mode transform's rules (``toolwire.schema.strict``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai_wire import completion, json_response, tool_call
from pydantic import BaseModel
from toolwire_openai import OpenAIChatCodec, OpenAIResponsesCodec
from toolwire_openai._dialect import OPENAI_STRICT

from toolwire.adapter import ModelRequest
from toolwire.errors import ToolNameError
from toolwire.schema.strict import make_strict, restore_defaults
from toolwire.tools import Tool
from toolwire.types import Message, ToolCall, ToolResult

B06_INPUT = {
    "type": "object",
    "properties": {
        "note": {"type": ["object", "null"], "properties": {"text": {"type": "string"}}},
        "lang": {"type": "string", "default": "en"},
    },
}
B06_STRICT = {
    "type": "object",
    "properties": {
        "note": {
            "type": ["object", "null"],
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        },
        "lang": {"type": ["string", "null"]},
    },
    "required": ["note", "lang"],
    "additionalProperties": False,
}
OPEN_MAP = {
    "type": "object",
    "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}},
    "required": ["tags"],
}


# ------------------------------------------------------------------------------------------ B06
def test_b06_exact_strict_schema() -> None:
    out, report = make_strict(B06_INPUT, api="openai-chat", tool="note", dialect=OPENAI_STRICT)
    assert out == B06_STRICT
    assert report.strict_possible is True
    actions = {(c.pointer, c.action) for c in report}
    assert ("/properties/lang/default", "removed") in actions
    assert ("/properties/lang", "nullable") in actions
    assert ("/additionalProperties", "added") in actions and (
        "/properties/note/additionalProperties",
        "added",
    ) in actions
    assert B06_INPUT["properties"]["lang"] == {"type": "string", "default": "en"}  # input untouched


def test_b06_null_restored_to_default() -> None:
    assert restore_defaults(B06_INPUT, {"note": None, "lang": None}) == {"note": None, "lang": "en"}
    assert restore_defaults(B06_INPUT, {"note": {"text": "hi"}, "lang": "fr"}) == {"note": {"text": "hi"}, "lang": "fr"}
    # a null the original schema rejects, for an optional property without a default: "not given"
    assert restore_defaults(B06_INPUT, {"note": {"text": None}, "lang": "de"}) == {"note": {}, "lang": "de"}


@pytest.mark.parametrize("codec", [OpenAIChatCodec(), OpenAIResponsesCodec()], ids=["chat", "responses"])
def test_b06_strict_tool_on_the_wire(codec: Any) -> None:
    decl, report = codec.translate_tool(Tool("note", "Save a note.", B06_INPUT, strict=True))
    fn = decl.get("function", decl)
    assert fn["strict"] is True and fn["parameters"] == B06_STRICT and report.strict_possible is True


@pytest.mark.parametrize("codec", [OpenAIChatCodec(), OpenAIResponsesCodec()], ids=["chat", "responses"])
def test_b06_open_map_sent_non_strict_never_invalid_strict(codec: Any) -> None:
    decl, report = codec.translate_tool(Tool("tagger", "Tag things.", OPEN_MAP, strict=True))
    fn = decl.get("function", decl)
    assert fn["strict"] is False and fn["parameters"] == OPEN_MAP
    assert report.strict_possible is False
    assert [c.pointer for c in report if c.action == "unsupported"] == ["/properties/tags/additionalProperties"]


def test_strict_nested_defaults_refs_and_anyof() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Unit": {"type": "string", "enum": ["c", "f"]},
            "Place": {
                "type": "object",
                "properties": {"name": {"type": "string", "minLength": 1}},
                "required": ["name"],
            },
        },
        "properties": {
            "place": {"$ref": "#/$defs/Place", "description": "where"},
            "unit": {"$ref": "#/$defs/Unit", "default": "c"},
            "days": {"type": "integer", "default": 3, "minimum": 1},
            "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
            "extra": {"anyOf": [{"type": "string"}, {"type": "integer"}], "default": 0},
            "opt": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"k": {"type": "string", "default": "x"}}},
            },
        },
        "required": ["place"],
    }
    out, report = make_strict(schema, dialect=OPENAI_STRICT)
    assert report.strict_possible is True
    p = out["properties"]
    assert p["place"] == {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "description": "where",
        "additionalProperties": False,
    }
    assert p["unit"] == {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}]}
    assert p["days"] == {"type": ["integer", "null"], "minimum": 1}
    assert p["mode"] == {"type": ["string", "null"], "enum": ["fast", "slow", None]}
    assert p["extra"] == {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
    assert p["opt"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert p["items"]["items"] == {
        "type": "object",
        "properties": {"k": {"type": ["string", "null"]}},
        "required": ["k"],
        "additionalProperties": False,
    }
    assert out["required"] == list(schema["properties"])
    assert any(c.keyword == "minLength" and c.lossy for c in report)
    args = {
        "place": {"name": "Oslo"},
        "unit": None,
        "days": None,
        "mode": None,
        "extra": None,
        "opt": None,
        "items": [{"k": None}, {"k": "y"}],
    }
    assert restore_defaults(schema, args) == {
        "place": {"name": "Oslo"},
        "unit": "c",
        "days": 3,
        "mode": "fast",
        "extra": 0,
        "opt": None,
        "items": [{"k": "x"}, {"k": "y"}],
    }


@pytest.mark.parametrize(
    "schema,keyword",
    [
        (
            {
                "type": "object",
                "properties": {"a": {"type": "object", "patternProperties": {"^x": {"type": "string"}}}},
            },
            "patternProperties",
        ),
        ({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, {"maxLength": 3}]}}}, "allOf"),
        ({"type": "object", "properties": {"a": {"not": {"type": "string"}}}}, "not"),
        ({"type": "object", "properties": {"a": {}}}, "type"),
        ({"type": "object", "additionalProperties": True, "properties": {}}, "additionalProperties"),
        (
            {"type": "object", "properties": {"a": {"type": "array", "prefixItems": [{"type": "string"}]}}},
            "prefixItems",
        ),
    ],
)
def test_strict_impossible_reports_reason(schema: dict[str, Any], keyword: str) -> None:
    out, report = make_strict(schema, dialect=OPENAI_STRICT)
    assert out is None and report.strict_possible is False
    assert keyword in {c.keyword for c in report if c.action == "unsupported"}


def test_strict_is_idempotent_on_a_strict_schema() -> None:
    out, _ = make_strict(B06_STRICT, dialect=OPENAI_STRICT)
    assert out == B06_STRICT
    assert make_strict(out, dialect=OPENAI_STRICT)[0] == B06_STRICT


def test_recursive_ref_with_siblings_does_not_loop() -> None:
    schema = {
        "type": "object",
        "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node", "description": "next"}}}},
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
    }
    out, report = make_strict(schema, dialect=OPENAI_STRICT)
    assert report.strict_possible is True
    assert out["$defs"]["Node"]["properties"]["child"]["properties"]["child"] == {"$ref": "#/$defs/Node"}


# ------------------------------------------------------------------------------------------ B07
@pytest.mark.parametrize("name", ["github.create_issue", "Google Search", "2fa_check", "x" * 70])
def test_b07_core_rejects_names_every_vendor_does_not_accept(name: str) -> None:
    with pytest.raises(ToolNameError, match="must match"):
        Tool(name, "d")


def test_b07_imported_names_follow_the_vendors_own_rule() -> None:
    # OpenAI accepts a leading digit (^[a-zA-Z0-9_-]{1,64}$); a history OpenAI accepted must import
    # (the name is checked against OpenAI's rule, kept as is and sent back unchanged), while a name
    # OpenAI itself rejects raises ToolNameError naming the tool and OpenAI's rule.
    body = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"type": "function", "function": {"name": "2fa_check", "parameters": {"type": "object", "properties": {}}}}
        ],
    }
    req = OpenAIChatCodec().decode_request(body)
    assert [(t.name, t.imported_from) for t in req.tools] == [("2fa_check", "openai-chat")]
    assert OpenAIChatCodec().encode_request(req)["tools"][0]["function"]["name"] == "2fa_check"
    resp_req = OpenAIResponsesCodec().decode_request(
        {
            "model": "gpt-4o",
            "input": "hi",
            "tools": [{"type": "function", "name": "2fa_check", "parameters": None, "strict": None}],
        }
    )
    assert resp_req.tools[0].name == "2fa_check"
    bad = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "Google Search", "parameters": {"type": "object"}}}],
    }
    with pytest.raises(ToolNameError, match=r"'Google Search'.*openai-chat rule"):
        OpenAIChatCodec().decode_request(bad)


def test_b07_model_calling_an_unknown_name_is_decoded_not_crashed() -> None:
    resp = OpenAIChatCodec().decode_response(
        completion({"tool_calls": [tool_call("call_1", "github.create_issue", '{"t": 1}')]}, "tool_calls")
    )
    assert resp.tool_calls[0].name == "github.create_issue" and resp.tool_calls[0].arguments == {"t": 1}


# ------------------------------------------------------------------------------------------ B08
@pytest.mark.parametrize("raw", ["", "null", "{}", "  null  "])
def test_b08_empty_argument_forms_decode_to_empty_object_and_replay_as_braces(raw: str) -> None:
    codec = OpenAIChatCodec()
    resp = codec.decode_response(completion({"tool_calls": [tool_call("call_Z", "magic", raw)]}, "tool_calls"))
    (call,) = resp.tool_calls
    assert (call.id, call.name, call.arguments, call.is_valid) == ("call_Z", "magic", {}, True)
    wire = codec.encode_request(ModelRequest("gpt-4o", [Message.user("go"), resp.to_message()]))
    assert wire["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_b08_streamed_zero_argument_call() -> None:
    base = {"id": "c", "object": "chat.completion.chunk", "model": "m"}
    chunks = [
        {
            **base,
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_0",
                                "type": "function",
                                "function": {"name": "magic", "arguments": ""},
                            }
                        ]
                    },
                    "finish_reason": None,
                }
            ],
        },
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    from toolwire.stream import assemble

    resp = assemble(OpenAIChatCodec().decode_stream(chunks), "openai-chat")
    assert [c.to_dict() for c in resp.tool_calls] == [
        {"type": "tool_call", "id": "call_0", "name": "magic", "arguments": {}, "raw_arguments": ""}
    ]


def test_b08_invalid_call_from_another_vendor_replayed_as_braces() -> None:
    bad = ToolCall("toolu_1", "magic", None, raw_arguments='{"a": ', invalid="arguments are not valid JSON")
    for codec in (OpenAIChatCodec(), OpenAIResponsesCodec()):
        wire = json.dumps(codec.encode_request(ModelRequest("gpt-4o", [Message("assistant", [bad])])))
        assert '"arguments": "{}"' in wire and '"null"' not in wire


# ------------------------------------------------------------------------------------------ B22
def test_b22_error_result_text_on_both_apis() -> None:
    history = [
        Message("assistant", [ToolCall("t1", "weather", {"city": "X"})]),
        Message("user", [ToolResult("t1", "ValueError: city not found", is_error=True)]),
    ]
    chat = OpenAIChatCodec().encode_request(ModelRequest("gpt-4o", history))["messages"]
    assert chat[1] == {"role": "tool", "tool_call_id": "t1", "content": "Error: ValueError: city not found"}
    resp = OpenAIResponsesCodec().encode_request(ModelRequest("gpt-4o", history))["input"]
    assert resp[1] == {"type": "function_call_output", "call_id": "t1", "output": "Error: ValueError: city not found"}


# ------------------------------------------------------------------------------------------ B23
def test_b23_unicode_arguments_round_trip() -> None:
    args = {"msg": "やあ 🌍", "to": "Zoë"}
    # a call from Gemini (dict arguments, no text) goes to OpenAI as literal UTF-8
    call = ToolCall("fc_9", "send", dict(args))
    for codec, path in (
        (OpenAIChatCodec(), ("messages", 0, "tool_calls", 0, "function", "arguments")),
        (OpenAIResponsesCodec(), ("input", 0, "arguments")),
    ):
        wire: Any = codec.encode_request(ModelRequest("gpt-4o", [Message("assistant", [call])]))
        for key in path:
            wire = wire[key]
        assert wire == '{"msg":"やあ 🌍","to":"Zoë"}'
    # canonical → OpenAI wire → canonical returns the same value
    text = '{"msg":"やあ 🌍","to":"Zoë"}'
    back = (
        OpenAIChatCodec()
        .decode_response(completion({"tool_calls": [tool_call("c", "send", text)]}, "tool_calls"))
        .tool_calls[0]
    )
    assert back.arguments == args
    # the model's own text (even with \\u escapes) is re-sent byte-exact
    escaped = '{"msg": "\\u3084\\u3042 \\ud83c\\udf0d", "to": "Zo\\u00eb"}'
    call2 = (
        OpenAIChatCodec()
        .decode_response(completion({"tool_calls": [tool_call("c2", "send", escaped)]}, "tool_calls"))
        .tool_calls[0]
    )
    assert call2.arguments == args
    wire2 = OpenAIChatCodec().encode_request(ModelRequest("gpt-4o", [Message("assistant", [call2])]))
    assert wire2["messages"][0]["tool_calls"][0]["function"]["arguments"] == escaped


def test_b23_multibyte_split_across_stream_chunks() -> None:
    from toolwire.stream import assemble

    base = {"id": "c", "object": "chat.completion.chunk", "model": "m"}

    def ch(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [
        ch(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "send", "arguments": '{"msg":"や'},
                    }
                ]
            }
        ),
        ch({"tool_calls": [{"index": 0, "function": {"arguments": 'あ 🌍","to":"Zo'}}]}),
        ch({"tool_calls": [{"index": 0, "function": {"arguments": 'ë"}'}}]}),
        ch({}, "tool_calls"),
    ]
    resp = assemble(OpenAIChatCodec().decode_stream(chunks), "openai-chat")
    assert resp.tool_calls[0].arguments == {"msg": "やあ 🌍", "to": "Zoë"}
    assert "\ufffd" not in resp.tool_calls[0].raw_arguments


def test_b22_imported_error_text_becomes_the_flag_and_round_trips() -> None:
    chat_body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "assistant", "tool_calls": [tool_call("t1", "weather", '{"city":"X"}')]},
            {"role": "tool", "tool_call_id": "t1", "content": "Error: ValueError: city not found"},
        ],
    }
    req = OpenAIChatCodec().decode_request(chat_body)
    (result,) = req.messages[1].tool_results
    assert (result.content, result.is_error) == ("ValueError: city not found", True)
    assert OpenAIChatCodec().encode_request(req)["messages"] == chat_body["messages"]
    resp_body = {
        "model": "gpt-4o",
        "input": [
            {"type": "function_call", "call_id": "t1", "name": "weather", "arguments": '{"city":"X"}'},
            {"type": "function_call_output", "call_id": "t1", "output": "Error: ValueError: city not found"},
        ],
    }
    req = OpenAIResponsesCodec().decode_request(resp_body)
    (result,) = req.messages[1].tool_results
    assert (result.content, result.is_error) == ("ValueError: city not found", True)
    assert OpenAIResponsesCodec().encode_request(req)["input"] == resp_body["input"]


def test_hosted_tools_and_unknown_items_round_trip_opaque() -> None:
    body = {
        "model": "gpt-5.5",
        "input": [
            {"role": "user", "content": "search then look up"},
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "x"},
            },
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
            {"type": "function_call", "call_id": "call_1", "name": "db_lookup", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "v"},
            {"type": "item_reference", "id": "msg_old"},
        ],
        "tools": [
            {"type": "web_search_preview"},
            {
                "type": "function",
                "name": "db_lookup",
                "description": "d",
                "parameters": {"type": "object", "properties": {}},
                "strict": False,
            },
        ],
    }
    codec = OpenAIResponsesCodec()
    req = codec.decode_request(body)
    assert [t.name for t in req.tools] == ["db_lookup"]
    assert codec.encode_request(req) | {"stream": None} == body | {"stream": None}
    chat = {
        "model": "gpt-5",
        "messages": [{"role": "user", "content": "x"}],
        "tools": [
            {"type": "custom", "custom": {"name": "grammar_tool", "format": {"type": "text"}}},
            {
                "type": "function",
                "function": {"name": "f", "description": "", "parameters": {"type": "object", "properties": {}}},
            },
        ],
    }
    creq = OpenAIChatCodec().decode_request(chat)
    assert [t.name for t in creq.tools] == ["f"]
    assert OpenAIChatCodec().encode_request(creq) | {"stream": None} == chat | {"stream": None}


def test_strict_top_level_optional_arguments_stay_omittable(chat_model: Any) -> None:
    """Strict mode needs every property required; a top-level argument without a default (a
    Python ``x: int | None = None``, an MCP tool's optional field) becomes nullable, and a null
    from the model leaves it out, so the function's own default applies."""
    import toolwire
    from toolwire.tools import Tool

    got: list[dict[str, Any]] = []

    def search(query: str, limit: int | None = None, page: int = 1) -> str:
        """Search the catalogue.

        Args:
            query: Text to search for.
            limit: Maximum number of hits; leave out for no limit.
            page: Page number.
        """
        got.append({"query": query, "limit": limit, "page": page})
        return "3 hits"

    tool = Tool.from_function(search, strict=True)
    args = json.dumps({"query": "lamp", "limit": None, "page": None})
    answers = iter(
        [
            completion({"tool_calls": [tool_call("call_1", "search", args)]}, "tool_calls"),
            completion({"content": "Found 3."}),
        ]
    )
    model = chat_model(lambda r: json_response(next(answers)))
    result = toolwire.run_sync(model, "lamps?", tools=[tool])
    params = model.sent[0].json["tools"][0]["function"]
    assert params["strict"] is True
    props = params["parameters"]["properties"]
    assert props["limit"]["type"] == ["integer", "null"] and props["page"]["type"] == ["integer", "null"]
    assert params["parameters"]["required"] == ["query", "limit", "page"]
    assert result.text == "Found 3." and got == [{"query": "lamp", "limit": None, "page": 1}]
    # an "id or email" root anyOf: both offered, each nullable; the original schema still decides
    schema = {
        "type": "object",
        "anyOf": [
            {"properties": {"id": {"type": "integer"}}, "required": ["id"]},
            {"properties": {"email": {"type": "string"}}, "required": ["email"]},
        ],
    }
    strict, _ = make_strict(
        {"type": "object", "properties": {"id": {"type": "integer"}, "email": {"type": "string"}}},
        dialect=OPENAI_STRICT,
    )
    assert strict is not None and strict["properties"] == {
        "id": {"type": ["integer", "null"]},
        "email": {"type": ["string", "null"]},
    }
    assert restore_defaults(schema, {"id": 5, "email": None}) == {"id": 5}
    # an optional property without a default inside a nested object is required, not nullable
    nested, _ = make_strict(
        {"type": "object", "properties": {"note": {"type": "object", "properties": {"text": {"type": "string"}}}}},
        dialect=OPENAI_STRICT,
    )
    assert nested is not None and nested["properties"]["note"]["properties"] == {"text": {"type": "string"}}


# ----------------------------------------------------- strict: required names without a property

UNDECLARED_REQUIRED = {
    "type": "object",
    "properties": {"query": {"type": "string"}},
    "required": ["query", "cursor"],  # "cursor": any value, but it must be there
}


def test_strict_impossible_when_a_required_name_has_no_property() -> None:
    """Strict mode closes every object (``additionalProperties: false``), so a required name no
    property declares could never be sent: every call would fail validation against the
    original schema. The schema cannot be strict. Found by the schema fuzz test."""
    out, report = make_strict(UNDECLARED_REQUIRED, dialect=OPENAI_STRICT)
    assert out is None and report.strict_possible is False
    assert ("/required", "unsupported", "required") in {(c.pointer, c.action, c.keyword) for c in report}


def test_required_name_without_property_sent_non_strict_and_the_call_runs(chat_model: Any) -> None:
    from toolwire import run_sync

    seen: list[dict[str, Any]] = []
    tool = Tool.from_schema(
        "search", "Search the index.", UNDECLARED_REQUIRED, lambda **kw: seen.append(kw) or "ok", strict=True
    )
    answers = [
        json_response(
            completion(
                {"tool_calls": [tool_call("call_1", "search", json.dumps({"query": "q", "cursor": 7}))]},
                finish_reason="tool_calls",
            )
        ),
        json_response(completion({"content": "found"})),
    ]
    model = chat_model(lambda request: answers.pop(0))
    result = run_sync(model, "search", tools=[tool])
    fn = model.sent[0].json["tools"][0]["function"]
    assert fn["strict"] is False
    assert fn["parameters"] == UNDECLARED_REQUIRED
    assert seen == [{"query": "q", "cursor": 7}]
    assert result.text == "found"


# ------------------------------------------- a null default on a type that does not take null


class ShipTo(BaseModel):
    city: str


def ship(name: str, to: ShipTo = None, note: str = None) -> str:  # type: ignore[assignment]
    """Ship a parcel."""
    return f"{name} -> {to.city if to else 'depot'} ({note})"


def test_null_for_a_parameter_whose_default_is_null_but_type_is_not_reaches_its_default(chat_model: Any) -> None:
    """``to: ShipTo = None`` (implicit Optional, common Python) gives ``{"$ref": ..., "default":
    null}``: the strict schema makes it nullable and the model sends ``null`` for "not given".
    Putting the default back (``null``) made the arguments invalid for the original schema on
    every call; the key is dropped instead, so the function's own default applies. Found by
    the schema fuzz test."""
    from toolwire import run_sync

    tool = Tool.from_function(ship, strict=True)
    assert tool.input_schema["properties"]["note"] == {"default": None, "type": "string"}
    args = {"name": "kit", "to": None, "note": None}
    answers = [
        json_response(
            completion({"tool_calls": [tool_call("call_1", "ship", json.dumps(args))]}, finish_reason="tool_calls")
        ),
        json_response(completion({"content": "shipped"})),
    ]
    model = chat_model(lambda request: answers.pop(0))
    result = run_sync(model, "ship the kit", tools=[tool])
    fn = model.sent[0].json["tools"][0]["function"]
    assert fn["strict"] is True
    assert fn["parameters"]["properties"]["note"] == {"type": ["string", "null"]}
    run = result.tool_runs[0]
    assert run.result.is_error is False
    assert run.result.content == "kit -> depot (None)"
    assert restore_defaults(tool.input_schema, args) == {"name": "kit"}
