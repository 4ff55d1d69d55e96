"""Contract tests: toolwire → the real ``anthropic`` SDK → ``httpx2.MockTransport``.

Only the network is replaced. Fixtures are hand-written in the exact Messages wire format; every
test asserts the JSON the SDK actually put on the wire and the canonical values decoded back.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest

from toolwire import ImagePart, Message, ReasoningPart, TextPart, Tool, ToolCall, ToolResult
from toolwire.adapter import ModelRequest

WEATHER = Tool(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
CLOCK = Tool("get_time", "The current time (no arguments).", {"type": "object", "properties": {}})
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_single_call_then_result(mock_model, wire) -> None:
    first = wire.message_body(
        [
            {"type": "text", "text": "Let me check."},
            {
                "type": "tool_use",
                "id": "toolu_01A",
                "name": "get_weather",
                "input": {"city": "Paris"},
                "caller": {"type": "direct"},
            },
        ],
        stop_reason="tool_use",
        usage={
            "input_tokens": 412,
            "output_tokens": 61,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    )
    final = wire.message_body([{"type": "text", "text": "It is 18°C in Paris."}])
    model = mock_model([wire.json_response(first), wire.json_response(final)])
    conv = [Message.user("Weather in Paris?")]
    req = model.build_request(conv, instructions="Be brief.", tools=[WEATHER])
    resp = run(model.send(req))

    sent = model.sent[0]
    assert sent.method == "POST" and sent.url == "https://api.anthropic.com/v1/messages"
    assert sent.headers["authorization"] == "Bearer sk-ant-test"  # the SDK's auth, kept
    assert "anthropic-version" in sent.headers
    assert sent.json == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]}],
        "tools": [
            {"name": "get_weather", "description": "Current weather for a city.", "input_schema": WEATHER.input_schema}
        ],
    }
    assert resp.stop_reason == "tool_use" and resp.vendor_stop_reason == "tool_use"
    assert resp.text == "Let me check."
    [call] = resp.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_01A", "get_weather", {"city": "Paris"})
    assert resp.usage.input_tokens == 412 and resp.usage.output_tokens == 61 and resp.usage.requests == 1

    conv += [resp.to_message(), Message("user", [ToolResult("toolu_01A", "18°C, cloudy")])]
    resp2 = run(model.send(model.build_request(conv, instructions="Be brief.", tools=[WEATHER])))
    assert model.sent[1].json["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {
                    "type": "tool_use",
                    "id": "toolu_01A",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                    "caller": {"type": "direct"},
                },
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "18°C, cloudy"}]},
    ]
    assert resp2.text == "It is 18°C in Paris." and resp2.stop_reason == "end_turn"


def test_parallel_calls_answered_in_one_user_message(mock_model, wire) -> None:
    body = wire.message_body(
        [
            {"type": "tool_use", "id": "toolu_P1", "name": "get_weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "toolu_P2", "name": "get_weather", "input": {"city": "Lima"}},
            {"type": "tool_use", "id": "toolu_P3", "name": "get_time", "input": {}},
        ],
        stop_reason="tool_use",
    )
    model = mock_model(
        [wire.json_response(body), wire.json_response(wire.message_body([{"type": "text", "text": "done"}]))],
        parallel_tool_calls=True,
    )
    conv = [Message.user("Oslo, Lima and the time")]
    resp = run(model.send(model.build_request(conv, tools=[WEATHER, CLOCK], tool_choice="auto")))
    assert [(c.id, c.arguments) for c in resp.tool_calls] == [
        ("toolu_P1", {"city": "Oslo"}),
        ("toolu_P2", {"city": "Lima"}),
        ("toolu_P3", {}),
    ]
    assert model.sent[0].json["tool_choice"] == {"type": "auto"}
    # results returned out of order, split over two canonical messages: re-joined in one message
    conv += [
        resp.to_message(),
        Message("user", [ToolResult("toolu_P2", "warm")]),
        Message("user", [ToolResult("toolu_P3", "12:00"), ToolResult("toolu_P1", "cold")]),
    ]
    run(model.send(model.build_request(conv, tools=[WEATHER, CLOCK])))
    last = model.sent[1].json["messages"][-1]
    assert last == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_P2", "content": "warm"},
            {"type": "tool_result", "tool_use_id": "toolu_P3", "content": "12:00"},
            {"type": "tool_result", "tool_use_id": "toolu_P1", "content": "cold"},
        ],
    }
    assert len(model.sent[1].json["messages"]) == 3


def test_parallel_tool_calls_off_and_forced_choices(mock_model, wire) -> None:
    ok = wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))
    model = mock_model([ok, ok, ok, ok], parallel_tool_calls=False)
    conv = [Message.user("hi")]
    for choice, wire_choice in [
        (None, {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", {"type": "any", "disable_parallel_tool_use": True}),
        ("tool:get_weather", {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True}),
        ("none", {"type": "none"}),
    ]:
        run(model.send(model.build_request(conv, tools=[WEATHER], tool_choice=choice)))
        assert model.sent[-1].json["tool_choice"] == wire_choice


def test_zero_argument_tool(mock_model, wire) -> None:
    body = wire.message_body(
        [{"type": "tool_use", "id": "toolu_Z", "name": "get_time", "input": {}}], stop_reason="tool_use"
    )
    model = mock_model(
        [wire.json_response(body), wire.json_response(wire.message_body([{"type": "text", "text": "noon"}]))]
    )
    conv = [Message.user("time?")]
    resp = run(model.send(model.build_request(conv, tools=[CLOCK])))
    assert model.sent[0].json["tools"] == [
        {
            "name": "get_time",
            "description": "The current time (no arguments).",
            "input_schema": {"type": "object", "properties": {}},
        }
    ]
    [call] = resp.tool_calls
    assert call.arguments == {} and call.is_valid
    conv += [resp.to_message(), Message("user", [ToolResult("toolu_Z", "12:00")])]
    run(model.send(model.build_request(conv, tools=[CLOCK])))
    assert model.sent[1].json["messages"][1]["content"] == [
        {"type": "tool_use", "id": "toolu_Z", "name": "get_time", "input": {}}
    ]


def test_image_tool_result(mock_model, wire) -> None:
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "A bar chart."}]))])
    conv = [
        Message.user("Show the Q3 chart"),
        Message("assistant", [ToolCall("toolu_IMG", "chart", {"quarter": "Q3"})]),
        Message("user", [ToolResult("toolu_IMG", [TextPart("Q3 chart"), ImagePart(data=PNG, media_type="image/png")])]),
    ]
    run(model.send(model.build_request(conv)))
    assert model.sent[0].json["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_IMG",
                "content": [
                    {"type": "text", "text": "Q3 chart"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()},
                    },
                ],
            }
        ],
    }


def test_error_tool_result(mock_model, wire) -> None:
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "Sorry."}]))])
    conv = [
        Message.user("Weather in Atlantis?"),
        Message("assistant", [ToolCall("toolu_E", "get_weather", {"city": "Atlantis"})]),
        Message("user", [ToolResult("toolu_E", "ValueError: city not found", is_error=True)]),
    ]
    run(model.send(model.build_request(conv, tools=[WEATHER])))
    assert model.sent[0].json["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_E", "content": "ValueError: city not found", "is_error": True}
    ]


SIG = "EqEECkYICxgCKkAo3UA4WwDbB8ihhpykVCsPx6iMzwNTNP8dePIgYjNp+/=="
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"


def test_thinking_round_trip_byte_equal(mock_model, wire) -> None:
    thinking_text = 'The user wants the weather.\n\nI should call get_weather with "Paris".'
    body = wire.message_body(
        [
            {"type": "thinking", "thinking": thinking_text, "signature": SIG},
            {"type": "redacted_thinking", "data": REDACTED},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_T", "name": "get_weather", "input": {"city": "Paris"}},
        ],
        stop_reason="tool_use",
        usage={
            "input_tokens": 398,
            "output_tokens": 155,
            "output_tokens_details": {"thinking_tokens": 97},
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    )
    thinking = {"type": "enabled", "budget_tokens": 2048}
    model = mock_model(
        [wire.json_response(body), wire.json_response(wire.message_body([{"type": "text", "text": "18°C"}]))],
        thinking=thinking,
        max_tokens=8000,
    )
    conv = [Message.user("Weather in Paris?")]
    resp = run(model.send(model.build_request(conv, tools=[WEATHER])))
    assert model.sent[0].json["thinking"] == thinking and model.sent[0].json["max_tokens"] == 8000
    r1, r2 = [p for p in resp.parts if isinstance(p, ReasoningPart)]
    assert (r1.text, r1.signature, r1.provider) == (thinking_text, SIG, "anthropic")
    assert (r2.encrypted, r2.provider) == (REDACTED, "anthropic")
    assert resp.usage.reasoning_tokens == 97
    conv += [resp.to_message(), Message("user", [ToolResult("toolu_T", "18°C")])]
    run(model.send(model.build_request(conv, tools=[WEATHER])))
    assistant = model.sent[1].json["messages"][1]
    assert assistant["content"][:2] == [
        {"type": "thinking", "thinking": thinking_text, "signature": SIG},
        {"type": "redacted_thinking", "data": REDACTED},
    ]
    assert assistant["content"] == body["content"]  # the whole assistant turn goes back unchanged


def _stream_events() -> list[dict[str, Any]]:
    return [
        {
            "type": "message_start",
            "message": {
                "id": "msg_01S",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 501,
                    "output_tokens": 3,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Need two "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "lookups."}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": SIG}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Looking "}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "both up."}},
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_S1", "name": "get_weather", "input": {}},
        },
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"ci'}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": 'ty": "Zoë'}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '"}'}},
        {"type": "content_block_stop", "index": 2},
        {
            "type": "content_block_start",
            "index": 3,
            "content_block": {"type": "tool_use", "id": "toolu_S2", "name": "get_time", "input": {}},
        },
        {"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_stop", "index": 3},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 88, "output_tokens_details": {"thinking_tokens": 12}},
        },
        {"type": "message_stop"},
    ]


def _same_message_non_streamed() -> dict[str, Any]:
    return {
        "id": "msg_01S",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "thinking", "thinking": "Need two lookups.", "signature": SIG},
            {"type": "text", "text": "Looking both up."},
            {"type": "tool_use", "id": "toolu_S1", "name": "get_weather", "input": {"city": "Zoë"}},
            {"type": "tool_use", "id": "toolu_S2", "name": "get_time", "input": {}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 501,
            "output_tokens": 88,
            "output_tokens_details": {"thinking_tokens": 12},
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def test_streamed_equals_non_streamed(mock_model, wire) -> None:
    streamed = mock_model([wire.sse_response(_stream_events())], stream=True)
    plain = mock_model([wire.json_response(_same_message_non_streamed())])
    conv = [Message.user("Weather for Zoë, and the time")]
    r_stream = run(streamed.send(streamed.build_request(conv, tools=[WEATHER, CLOCK])))
    r_plain = run(plain.send(plain.build_request(conv, tools=[WEATHER, CLOCK])))
    assert streamed.sent[0].json["stream"] is True
    assert "stream" not in plain.sent[0].json
    assert [(c.id, c.name, c.arguments) for c in r_stream.tool_calls] == [
        ("toolu_S1", "get_weather", {"city": "Zoë"}),
        ("toolu_S2", "get_time", {}),
    ]
    assert r_stream.tool_calls[0].raw_arguments == '{"city": "Zoë"}'
    for a, b in zip(r_stream.parts, r_plain.parts):
        assert type(a) is type(b)
        if isinstance(a, ToolCall):
            assert (a.id, a.name, a.arguments, a.is_valid) == (b.id, b.name, b.arguments, b.is_valid)
        else:
            assert a == b
    assert len(r_stream.parts) == len(r_plain.parts) == 4
    assert (
        (r_stream.stop_reason, r_stream.vendor_stop_reason)
        == (r_plain.stop_reason, r_plain.vendor_stop_reason)
        == ("tool_use", "tool_use")
    )
    assert r_stream.usage == r_plain.usage
    assert (
        r_stream.usage.input_tokens == 501
        and r_stream.usage.output_tokens == 88
        and r_stream.usage.reasoning_tokens == 12
    )
    assert (r_stream.response_id, r_stream.model) == (r_plain.response_id, r_plain.model)


def test_send_stream_yields_events_incrementally(mock_model, wire) -> None:
    model = mock_model([wire.sse_response(_stream_events())])

    async def collect() -> list[Any]:
        return [ev async for ev in model.send_stream(model.build_request([Message.user("x")], tools=[WEATHER, CLOCK]))]

    events = run(collect())
    names = [type(e).__name__ for e in events]
    assert names[0] == "ResponseStart" and names[-1] == "StopEvent"
    assert names.count("ToolCallStart") == 2 and names.count("ToolCallEnd") == 2
    assert model.sent[0].json["stream"] is True


def test_strict_sent_only_when_set(mock_model, wire) -> None:
    ok = wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))
    model = mock_model([ok])
    strict = Tool(
        "lookup",
        "Look up.",
        {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": False},
        strict=True,
    )
    loose = Tool("other", "Other.", {"type": "object", "properties": {}}, strict=False)
    run(model.send(model.build_request([Message.user("x")], tools=[strict, loose, WEATHER])))
    tools = model.sent[0].json["tools"]
    assert tools[0]["strict"] is True and tools[1]["strict"] is False and "strict" not in tools[2]


def test_prompt_caching_breakpoints(mock_model, wire) -> None:
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))], cache=True)
    conv = [Message.user("first"), Message.assistant("reply"), Message.user("second")]
    req = model.build_request(conv, instructions="sys", tools=[WEATHER, CLOCK])
    assert "cache" not in req.settings  # a codec setting, never a request field
    run(model.send(req))
    body = model.sent[0].json
    assert "cache_control" not in body["tools"][0]
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1] == {
        "type": "text",
        "text": "second",
        "cache_control": {"type": "ephemeral"},
    }
    # the previous turn's cache point (the user message before the newest assistant turn)
    assert body["messages"][0]["content"][-1] == {
        "type": "text",
        "text": "first",
        "cache_control": {"type": "ephemeral"},
    }
    assert "cache_control" not in body["messages"][1]["content"][-1]
    assert body["system"] == [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]
    assert "cache" not in body


def test_count_tokens(mock_model, wire) -> None:
    model = mock_model([wire.json_response({"input_tokens": 1234})], max_tokens=999, temperature=0.2)
    n = run(
        model.count_tokens(
            model.build_request([Message.user("hello")], instructions="sys", tools=[WEATHER], tool_choice="required")
        )
    )
    assert n == 1234
    sent = model.sent[0]
    assert sent.url == "https://api.anthropic.com/v1/messages/count_tokens"
    assert sent.json == {
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hello"}]}],
        "system": "sys",
        "tools": [
            {"name": "get_weather", "description": "Current weather for a city.", "input_schema": WEATHER.input_schema}
        ],
        "tool_choice": {"type": "any"},
    }


def test_credential_problem(monkeypatch) -> None:
    from toolwire_anthropic import AnthropicModel

    from toolwire.errors import ConfigurationError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    m = AnthropicModel("claude-sonnet-4-5")
    assert m.credential_problem() == "set ANTHROPIC_API_KEY (or pass api_key=...)"
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        run(m.send(ModelRequest(model="claude-sonnet-4-5", messages=[Message.user("x")])))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    assert m.credential_problem() is None
    assert AnthropicModel("x", api_key="k").credential_problem() is None


def test_registry_and_settings() -> None:
    from toolwire_anthropic import AnthropicCodec, AnthropicModel

    import toolwire

    m = toolwire.model("anthropic:claude-haiku-4-5", api_key="k", cache=True)
    assert isinstance(m, AnthropicModel) and m.name == "anthropic:claude-haiku-4-5"
    # no max_tokens setting: the codec sends 4096, or room for an effort's thinking budget
    assert "max_tokens" not in m.settings and m.codec.cache is True
    assert m.prepare(m.build_request([toolwire.Message.user("hi")]))["max_tokens"] == 4096
    c = toolwire.registry.codec("anthropic", cache=True)
    assert isinstance(c, AnthropicCodec) and c.api == "anthropic" and c.cache is True


@pytest.mark.parametrize(
    "part",
    [
        ReasoningPart("I should check.", provider="anthropic"),
        ReasoningPart("I should check.", signature="", provider="anthropic"),
        ReasoningPart(encrypted="", provider="anthropic"),
    ],
    ids=["no signature", "empty signature", "redacted without data"],
)
def test_unsigned_thinking_is_left_out_and_reported(mock_model, wire, part: ReasoningPart) -> None:
    """An Anthropic thinking part that lost its signature (a history saved or edited without it):
    the API takes thinking back only with the signature it returned
    (anthropic.types.ThinkingBlockParam.signature; "thinking.signature: Field required"). It was
    left out unsaid when the signature was None and sent, then refused, when it was "" (found by
    the conversation fuzz test); now it is left out either way and reported as lossy (rule
    anthropic.conversation.thinking-unsigned)."""
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "Sure."}]))])
    messages = [
        Message.user("hi"),
        Message("assistant", [part, TextPart("Hello.")]),
        Message.user("more"),
    ]
    response = run(model.send(model.build_request(messages)))
    assert response.text == "Sure."
    assert model.sent[0].json["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}
    assert [(c.rule, c.pointer, c.lossy) for c in response.preflight] == [
        ("anthropic.conversation.thinking-unsigned", "/messages/1/parts/0", True)
    ]


def test_a_history_of_only_blank_text_is_refused_saying_what_to_send(mock_model, wire) -> None:
    """Every message empty or whitespace-only text: each block is left out (Anthropic refuses
    them), so no message is left. The refusal said only "messages must be a non-empty list",
    though the caller passed messages (found by the conversation fuzz test); it now says why
    they are gone and what to send."""
    import toolwire

    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "Hi."}]))])
    history = toolwire.Conversation([Message("user", [TextPart("  \n")]), Message("user", [])])
    with pytest.raises(toolwire.RequestRefused, match="whitespace-only text is left out.*send a message with text"):
        toolwire.run_sync(model, conversation=history)
    assert model.sent == []
