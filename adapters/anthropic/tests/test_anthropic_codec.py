"""The pure codec: edge behaviour of encode/decode that the contract tests do not reach."""

from __future__ import annotations

import hashlib
import json

import pytest
from toolwire_anthropic import AnthropicCodec, map_stop_reason, usage_from_wire
from toolwire_anthropic.profile import AnthropicProfile

from toolwire import DocumentPart, Message, ReasoningPart, TextPart, Tool, ToolCall, ToolResult
from toolwire.adapter import Codec, ModelRequest
from toolwire.errors import ProviderError, UnsupportedToolChoice
from toolwire.stream import assemble

codec = AnthropicCodec()
T = Tool("get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}})


def test_is_a_codec() -> None:
    assert isinstance(codec, Codec) and codec.api == "anthropic"


@pytest.mark.parametrize(
    "raw, canonical",
    [
        ("end_turn", "end_turn"),
        ("tool_use", "tool_use"),
        ("max_tokens", "max_tokens"),
        ("stop_sequence", "stop_sequence"),
        ("refusal", "refusal"),
        ("pause_turn", "pause_turn"),
        ("model_context_window_exceeded", "max_tokens"),
    ],
)
def test_stop_reason_mapping(raw, canonical) -> None:
    resp = codec.decode_response(
        {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": "x"}],
            "stop_reason": raw,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    assert (resp.stop_reason, resp.vendor_stop_reason) == (canonical, raw)


def test_unknown_stop_reason_keeps_raw() -> None:
    assert map_stop_reason("brand_new_reason", has_tool_calls=True) == "tool_use"
    assert map_stop_reason("brand_new_reason") == "end_turn"
    assert map_stop_reason(None) == "end_turn"


def test_usage_mapping() -> None:
    u = usage_from_wire(
        {
            "input_tokens": 12,
            "output_tokens": 340,
            "cache_read_input_tokens": 2048,
            "cache_creation_input_tokens": 512,
            "cache_creation": {"ephemeral_5m_input_tokens": 512, "ephemeral_1h_input_tokens": 0},
            "output_tokens_details": {"thinking_tokens": 200},
            "service_tier": "standard",
        },
        requests=1,
    )
    # input_tokens is every input token: Anthropic's 12 after the cache breakpoint + 2048 read + 512 written
    assert (
        u.input_tokens,
        u.output_tokens,
        u.cache_read_tokens,
        u.cache_write_tokens,
        u.reasoning_tokens,
        u.requests,
    ) == (2572, 340, 2048, 512, 200, 1)
    assert (
        usage_from_wire({"output_tokens": 5, "cache_read_input_tokens": 7}).input_tokens is None
    )  # a delta without input


@pytest.mark.parametrize(
    "choice, parallel, wire",
    [
        ("auto", None, {"type": "auto"}),
        ("required", None, {"type": "any"}),
        ("any", None, {"type": "any"}),
        ({"type": "tool", "name": "get_weather"}, None, {"type": "tool", "name": "get_weather"}),
        ({"type": "function", "function": {"name": "get_weather"}}, None, {"type": "tool", "name": "get_weather"}),
        ("none", None, {"type": "none"}),
        ("none", False, {"type": "none"}),
        ("auto", False, {"type": "auto", "disable_parallel_tool_use": True}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        (None, True, None),
        (None, None, None),
    ],
)
def test_tool_choice_mapping(choice, parallel, wire) -> None:
    body = codec.encode_request(
        ModelRequest("m", [Message.user("x")], tools=[T], tool_choice=choice, parallel_tool_calls=parallel)
    )
    assert body.get("tool_choice") == wire
    if wire is not None:
        back = codec.decode_request(body)
        assert codec.encode_request(back)["tool_choice"] == wire


def test_unknown_tool_choice_raises() -> None:
    with pytest.raises(UnsupportedToolChoice):
        codec.encode_request(ModelRequest("m", [Message.user("x")], tool_choice="sometimes"))
    with pytest.raises(UnsupportedToolChoice):
        codec.decode_request({"model": "m", "max_tokens": 5, "messages": [], "tool_choice": {"type": "mystery"}})


@pytest.mark.parametrize("choice", ["required", {"type": "tool", "name": "get_weather"}])
def test_manual_thinking_with_forced_tool_is_refused_by_the_profile(choice) -> None:
    req = ModelRequest(
        "m",
        [Message.user("x")],
        tools=[T],
        tool_choice=choice,
        thinking={"type": "enabled", "budget_tokens": 2048},
        max_tokens=4096,
    )
    body = codec.encode_request(req)
    assert [(v.rule, v.pointer) for v in AnthropicProfile().check_request(body)] == [
        ("anthropic.request.thinking-forced-tool", "/tool_choice")
    ]


@pytest.mark.parametrize(
    "thinking, choice",
    [
        ({"type": "enabled", "budget_tokens": 2048}, "auto"),
        ({"type": "enabled", "budget_tokens": 2048}, "none"),
        ({"type": "adaptive"}, "required"),
        ({"type": "disabled"}, {"type": "tool", "name": "get_weather"}),
    ],
)
def test_other_thinking_combinations_allowed(thinking, choice) -> None:
    body = codec.encode_request(
        ModelRequest("m", [Message.user("x")], tools=[T], tool_choice=choice, thinking=thinking)
    )
    assert body["thinking"] == thinking


def test_reasoning_from_other_providers_is_dropped() -> None:
    conv = [
        Message.user("q"),
        Message(
            "assistant",
            [
                ReasoningPart("openai summary", encrypted="gAAAA...", provider="openai"),
                ReasoningPart("", signature="c2lnMQ==", provider="gemini"),
                ReasoningPart("no provider"),
                ReasoningPart("unsigned anthropic", provider="anthropic"),
                ReasoningPart("kept", signature="EqSig==", provider="anthropic"),
                TextPart("answer"),
            ],
        ),
        Message.user("next"),
    ]
    content = codec.encode_request(ModelRequest("m", conv))["messages"][1]["content"]
    assert content == [
        {"type": "thinking", "thinking": "kept", "signature": "EqSig=="},
        {"type": "text", "text": "answer"},
    ]


def test_synthesized_gemini_id_is_paired_as_is() -> None:
    conv = [
        Message.user("q"),
        Message("assistant", [ToolCall("call_gem_0_lookup", "lookup", {"q": "x"}, id_synthesized=True)]),
        Message("user", [ToolResult("call_gem_0_lookup", "found", name="lookup")]),
    ]
    msgs = codec.encode_request(ModelRequest("m", conv))["messages"]
    assert msgs[1]["content"][0]["id"] == "call_gem_0_lookup"
    assert msgs[2]["content"][0]["tool_use_id"] == "call_gem_0_lookup"


def test_id_outside_anthropic_pattern_is_mapped_consistently() -> None:
    conv = [
        Message.user("q"),
        Message("assistant", [ToolCall("fc:9/a", "lookup", {})]),
        Message("user", [ToolResult("fc:9/a", "ok")]),
    ]
    msgs = codec.encode_request(ModelRequest("m", conv))["messages"]
    assert (
        msgs[1]["content"][0]["id"]
        == msgs[2]["content"][0]["tool_use_id"]
        == "fc_9_a_" + hashlib.sha256(b"fc:9/a").hexdigest()[:8]
    )
    # two ids that differ only in characters Anthropic refuses stay distinct, on every encode
    conv2 = [
        Message.user("q"),
        Message("assistant", [ToolCall("c.1", "lookup", {}), ToolCall("c:1", "lookup", {})]),
        Message("user", [ToolResult("c.1", "a"), ToolResult("c:1", "b")]),
    ]
    first = codec.encode_request(ModelRequest("m", conv2))["messages"]
    ids = [b["id"] for b in first[1]["content"]]
    assert len(set(ids)) == 2 and [b["tool_use_id"] for b in first[2]["content"]] == ids
    assert codec.encode_request(ModelRequest("m", conv2))["messages"] == first


def test_consecutive_same_role_messages_merged_and_empty_text_dropped() -> None:
    conv = [Message.user("a"), Message.user("b"), Message.assistant(""), Message.assistant("c"), Message.assistant("d")]
    assert codec.encode_request(ModelRequest("m", conv))["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "c"}, {"type": "text", "text": "d"}]},
    ]


def test_default_max_tokens_and_settings_copied() -> None:
    body = codec.encode_request(
        ModelRequest(
            "m", [Message.user("x")], settings={"metadata": {"user_id": "u1"}, "stop_sequences": ["END"], "top_k": 5}
        )
    )
    assert body["max_tokens"] == 4096
    assert (body["metadata"], body["stop_sequences"], body["top_k"]) == ({"user_id": "u1"}, ["END"], 5)


SERVER_RESPONSE = {
    "id": "msg_WS",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "text", "text": "Searching."},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "toolwire"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://example.org",
                    "title": "Ex",
                    "encrypted_content": "Eo8=",
                    "page_age": None,
                }
            ],
        },
        {
            "type": "text",
            "text": "Found it.",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "url": "https://example.org",
                    "title": "Ex",
                    "encrypted_index": "Eo9=",
                    "cited_text": "toolwire",
                }
            ],
        },
        {"type": "tool_use", "id": "toolu_C", "name": "get_weather", "input": {"city": "Oslo"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 900, "output_tokens": 80, "server_tool_use": {"web_search_requests": 1}},
}


def test_server_tool_blocks_decoded_and_replayed_in_place() -> None:
    resp = codec.decode_response(SERVER_RESPONSE)
    assert [type(p).__name__ for p in resp.parts] == [
        "TextPart",
        "ProviderToolPart",
        "ProviderToolPart",
        "TextPart",
        "ToolCall",
    ]
    assert [c.id for c in resp.tool_calls] == ["toolu_C"]  # the server tool use is not a client call
    use, result = resp.provider_tool_parts
    assert (use.kind, use.name, use.call_id, use.raw) == (
        "call",
        "web_search",
        "srvtoolu_1",
        SERVER_RESPONSE["content"][1],
    )
    assert (result.kind, result.name, result.call_id) == ("result", "web_search", "srvtoolu_1")
    assert result.summary == "1 result: Ex <https://example.org>"
    assert resp.parts[3].provider_data == {"anthropic": {"citations": SERVER_RESPONSE["content"][3]["citations"]}}
    assert "blocks" not in resp.provider_data.get("anthropic", {})
    conv = [Message.user("find toolwire"), resp.to_message(), Message("user", [ToolResult("toolu_C", "cold")])]
    sent = codec.encode_request(ModelRequest("m", conv))["messages"][1]["content"]
    assert sent == SERVER_RESPONSE["content"]


def _as_stream(message: dict) -> list[dict]:
    events = [
        {
            "type": "message_start",
            "message": {
                **message,
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 900, "output_tokens": 1},
            },
        }
    ]
    for i, block in enumerate(message["content"]):
        if block["type"] in ("tool_use", "server_tool_use"):
            events.append({"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}})
            text = json.dumps(block["input"])
            for j in range(0, len(text), 4):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": text[j : j + 4]},
                    }
                )
        elif block["type"] == "text":
            events.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
            for c in block.get("citations") or []:
                events.append(
                    {"type": "content_block_delta", "index": i, "delta": {"type": "citations_delta", "citation": c}}
                )
            events.append(
                {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}}
            )
        else:
            events.append({"type": "content_block_start", "index": i, "content_block": block})
        events.append({"type": "content_block_stop", "index": i})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": message["usage"],
        }
    )
    events.append({"type": "message_stop"})
    return events


def test_server_tool_blocks_in_a_stream() -> None:
    streamed = assemble(codec.decode_stream(_as_stream(SERVER_RESPONSE)), "anthropic")
    plain = codec.decode_response(SERVER_RESPONSE)
    assert streamed.provider_data == plain.provider_data
    assert [(type(p).__name__, getattr(p, "text", None)) for p in streamed.parts] == [
        (type(p).__name__, getattr(p, "text", None)) for p in plain.parts
    ]
    assert streamed.parts[3].provider_data == plain.parts[3].provider_data
    assert streamed.provider_tool_parts == plain.provider_tool_parts  # the streamed input joined whole
    assert streamed.tool_calls[0].arguments == {"city": "Oslo"}


def test_max_tokens_marks_trailing_call_incomplete() -> None:
    body = {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "x"},
            {"type": "tool_use", "id": "toolu_M", "name": "write", "input": {"path": "a"}},
        ],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 1, "output_tokens": 4096},
    }
    call = codec.decode_response(body).tool_calls[0]
    assert call.incomplete and not call.is_valid
    events = [
        {
            "type": "message_start",
            "message": {"id": "m", "model": "x", "usage": {"input_tokens": 1, "output_tokens": 1}},
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_M", "name": "write", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"path": "a'},
        },
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 4096}},
    ]
    call = assemble(codec.decode_stream(events), "anthropic").tool_calls[0]
    assert call.incomplete and call.raw_arguments == '{"path": "a'


def test_error_body_and_error_event_raise_provider_error() -> None:
    with pytest.raises(ProviderError) as info:
        codec.decode_response({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    assert info.value.retryable and info.value.error_type == "overloaded_error"
    with pytest.raises(ProviderError):
        list(codec.decode_stream([{"type": "error", "error": {"type": "api_error", "message": "boom"}}]))


def test_decode_request_really_decodes() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "temperature": 0.3,
        "top_p": 0.9,
        "metadata": {"user_id": "u"},
        "stop_sequences": ["###"],
        "system": [{"type": "text", "text": "Be kind.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather.",
                "input_schema": T.input_schema,
                "cache_control": {"type": "ephemeral"},
                "defer_loading": True,
            },
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "thinking": {"type": "adaptive"},
        "messages": [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "t", "signature": "S1"},
                    {"type": "redacted_thinking", "data": "R1"},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"city": "Oslo"},
                        "caller": {"type": "direct"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [
                            {"type": "text", "text": "cold"},
                            {
                                "type": "search_result",
                                "source": "https://x",
                                "title": "X",
                                "content": [{"type": "text", "text": "s"}],
                            },
                        ],
                        "cache_control": {"type": "ephemeral"},
                    },
                    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc"}},
                    {"type": "text", "text": "thanks"},
                ],
            },
        ],
    }
    req = codec.decode_request(body)
    assert (req.model, req.max_tokens, req.temperature, req.instructions) == (
        "claude-sonnet-4-5",
        1024,
        0.3,
        "Be kind.",
    )
    assert (req.tool_choice, req.parallel_tool_calls, req.thinking) == ("required", False, {"type": "adaptive"})
    assert req.settings == {
        "top_p": 0.9,
        "metadata": {"user_id": "u"},
        "stop_sequences": ["###"],
        "system_cache_control": {"type": "ephemeral", "ttl": "1h"},
        "server_tools": [{"position": 1, "tool": {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}}],
    }
    [tool] = req.tools
    assert tool.provider_data == {"anthropic": {"cache_control": {"type": "ephemeral"}, "defer_loading": True}}
    u0, a1, u2 = req.messages
    assert u0.parts == [TextPart("Weather?")]
    th, red, call = a1.parts
    assert (th.text, th.signature, th.provider, th.provider_data) == ("t", "S1", "anthropic", {})
    assert (red.encrypted, red.signature, red.text) == ("R1", None, "")
    assert (call.id, call.arguments, call.provider_data) == (
        "toolu_1",
        {"city": "Oslo"},
        {"anthropic": {"caller": {"type": "direct"}}},
    )
    result, document, text = u2.parts
    assert isinstance(result, ToolResult) and result.content == [TextPart("cold")]
    assert result.provider_data["anthropic"]["cache_control"] == {"type": "ephemeral"}
    # a plain-text document is a DocumentPart (sent on every provider); the search result of the
    # tool_result, with no canonical part, is kept whole at its place
    assert document == DocumentPart(b"doc", "text/plain")
    assert u2.provider_data == {}
    assert text == TextPart("thanks")
    again = codec.encode_request(req)
    body["messages"][0]["content"] = [{"type": "text", "text": "Weather?"}]  # N1
    assert again == body


def test_translate_tool_report() -> None:
    wire, report = codec.translate_tool(Tool("f", "Does f.", {"type": "object", "properties": {}}, returns="a number"))
    assert wire == {
        "name": "f",
        "description": "Does f.\n\nReturns: a number",
        "input_schema": {"type": "object", "properties": {}},
    }
    assert report.api == "anthropic" and report.tool == "f" and len(report) == 0
    # strict tools get the strict-tool subset: additionalProperties false on every object
    wire, report = codec.translate_tool(Tool("f", "Does f.", {"type": "object", "properties": {}}, strict=True))
    assert (
        wire["input_schema"] == {"type": "object", "properties": {}, "additionalProperties": False}
        and wire["strict"] is True
    )
    assert [(c.pointer, c.keyword, c.lossy) for c in report] == [
        ("/additionalProperties", "additionalProperties", False)
    ]


def test_consecutive_same_role_wire_messages_import_as_one_turn() -> None:
    # pydantic-ai sends a retry prompt as a second user message right after the first one; the API
    # combines consecutive same-role turns, and so must the import (the encoder merges them).
    doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}}
    body = {
        "model": "claude-haiku-4-5",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            {"role": "user", "content": [{"type": "text", "text": "Validation feedback: please return text."}, doc]},
        ],
    }
    req = codec.decode_request(body)
    assert [m.role for m in req.messages] == ["user"]
    *texts, document = req.messages[0].parts
    assert [p.text for p in texts] == ["Hi", "Validation feedback: please return text."]
    assert document == DocumentPart(b"notes", "text/plain")
    sent = codec.encode_request(req)["messages"]
    assert sent == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Hi"},
                {"type": "text", "text": "Validation feedback: please return text."},
                doc,
            ],
        }
    ]
    assert len(codec.decode_request({**body, "messages": sent}).messages) == 1


@pytest.mark.parametrize("stray_at", ["before the call", "in the call's message"])
def test_the_result_after_a_call_answers_it_not_a_stray_one_with_the_same_id(stray_at: str) -> None:
    """A hand-built history holding a second result with a call's id (before the call, or inside
    the assistant message) sent that one and dropped the real answer after the call."""
    call = ToolCall(id="a", name="f", arguments={})
    stray = ToolResult("a", "stray", name="f")
    if stray_at == "before the call":
        msgs = [Message.user("hi"), Message("user", [stray]), Message("assistant", [call])]
    else:
        msgs = [Message.user("hi"), Message("assistant", [call, stray])]
    msgs.append(Message("user", [ToolResult("a", "the answer", name="f")]))
    f = Tool(name="f", description="F.", input_schema={"type": "object"})
    body = codec.encode_request(ModelRequest(model="claude-sonnet-4-5", messages=msgs, tools=[f]))
    results = [b for m in body["messages"] for b in m["content"] if b.get("type") == "tool_result"]
    assert [(r["tool_use_id"], r["content"]) for r in results] == [("a", "the answer")]
    assert AnthropicProfile().check_request(body) == []


def test_strict_tool_with_a_required_name_no_property_declares_is_sent_without_strict(mock_model, wire) -> None:
    """A strict tool's objects are all closed (additionalProperties: false), so a required name
    no property declares could never be sent and no call would be valid: the tool is sent
    without ``strict`` (reported), and a call carrying the name runs. Found by the schema fuzz
    test."""
    from toolwire import run_sync

    schema = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query", "cursor"]}
    seen: list[dict] = []
    tool = Tool.from_schema("search", "Search.", schema, lambda **kw: seen.append(kw) or "ok", strict=True)
    _, report = codec.translate_tool(tool)
    assert report.strict_possible is False
    assert ("/required", "unsupported", "required") in {(c.pointer, c.action, c.keyword) for c in report}
    call = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"query": "q", "cursor": 7}}
    model = mock_model(
        [
            wire.json_response(wire.message_body([call], stop_reason="tool_use")),
            wire.json_response(wire.message_body([{"type": "text", "text": "found"}])),
        ]
    )
    result = run_sync(model, "search", tools=[tool])
    sent = model.sent[0].json["tools"][0]
    assert "strict" not in sent
    assert sent["input_schema"] == schema
    assert seen == [{"query": "q", "cursor": 7}]
    assert result.text == "found"


def test_strict_recursion_found_under_properties_named_like_data_keywords() -> None:
    """A property called ``enum`` or ``default`` is a name, not the keyword: a recursive
    ``$ref`` under it makes the schema recursive, so the tool is sent without ``strict`` (rule
    anthropic.schema.strict-recursive). Found by the schema fuzz test."""
    schema = {
        "type": "object",
        "properties": {"default": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {"type": "object", "properties": {"enum": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
        },
    }
    wire, report = codec.translate_tool(Tool.from_schema("tree", "Walk a tree.", schema, strict=True))
    assert report.strict_possible is False
    assert "strict" not in wire
    assert [c.keyword for c in report if c.action == "unsupported"] == ["$ref"]
