"""Chat Completions contract tests: the real ``openai`` SDK, only the network replaced
(``httpx2.MockTransport``); fixtures are hand-written bodies in the exact Chat wire format, and
the outgoing JSON is asserted."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openai_wire import chat_sse, completion, json_response, tool_call
from toolwire_openai import ChatStreamDecoder

from toolwire.adapter import ModelRequest
from toolwire.errors import ConfigurationError, ProviderError, UnsupportedToolChoice
from toolwire.tools import Tool
from toolwire.types import ImagePart, Message, ReasoningPart, TextPart, ToolCall, ToolResult

WEATHER = Tool(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def req(messages: list[Message], **kw: Any) -> ModelRequest:
    return ModelRequest(model="gpt-4o", messages=messages, tools=kw.pop("tools", [WEATHER]), **kw)


def test_single_call_and_outgoing_body(chat_model: Any) -> None:
    body = completion({"tool_calls": [tool_call("call_A1", "get_weather", '{"city":"Paris"}')]}, "tool_calls")
    model = chat_model(lambda r: json_response(body), max_tokens=300, temperature=0.2, parallel_tool_calls=False)
    request = model.build_request(
        [Message.user("Weather in Paris?")], instructions="Be brief.", tools=[WEATHER], tool_choice="required"
    )
    resp = run(model.send(request))
    assert resp.stop_reason == "tool_use" and resp.vendor_stop_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in resp.tool_calls] == [("call_A1", "get_weather", {"city": "Paris"})]
    assert resp.usage.input_tokens == 50 and resp.usage.output_tokens == 12 and resp.usage.cache_read_tokens == 0
    sent = model.sent[0]
    assert sent.url == "https://api.openai.com/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.json == {
        "model": "gpt-4o",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parameters": WEATHER.input_schema,
                },
            }
        ],
        "tool_choice": "required",
        "parallel_tool_calls": False,
        "max_completion_tokens": 300,
        "temperature": 0.2,
        "stream": False,
    }


def test_parallel_calls_results_follow_assistant_directly(chat_model: Any) -> None:
    body = completion(
        {
            "tool_calls": [
                tool_call("call_P1", "get_weather", '{"city": "Oslo"}'),
                tool_call("call_P2", "get_weather", '{"city": "Lima"}'),
            ]
        },
        "tool_calls",
    )
    final = completion({"content": "Oslo 3C, Lima 19C."}, "stop", cid="chatcmpl-TEST2")
    bodies = [body, final]
    model = chat_model(lambda r: json_response(bodies.pop(0)))
    first = run(model.send(req([Message.user("Oslo and Lima?")])))
    assert [c.id for c in first.tool_calls] == ["call_P1", "call_P2"]
    history = [
        Message.user("Oslo and Lima?"),
        first.to_message(),
        Message(
            "user", [ToolResult("call_P1", "3C", name="get_weather"), ToolResult("call_P2", "19C", name="get_weather")]
        ),
    ]
    second = run(model.send(req(history)))
    assert second.text == "Oslo 3C, Lima 19C." and second.stop_reason == "end_turn"
    msgs = model.sent[1].json["messages"]
    assert msgs[1] == {
        "role": "assistant",
        "tool_calls": [
            {"id": "call_P1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
            {"id": "call_P2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Lima"}'}},
        ],
    }
    assert msgs[2:] == [
        {"role": "tool", "tool_call_id": "call_P1", "content": "3C"},
        {"role": "tool", "tool_call_id": "call_P2", "content": "19C"},
    ]


@pytest.mark.parametrize(
    "raw,arguments,invalid_fragment",
    [
        ("", {}, None),
        ("null", {}, None),
        ("{}", {}, None),
        ('{"city": "Par', None, "not valid JSON"),
        ("{city: Paris}", None, "not valid JSON"),
        ('["Paris"]', None, "got a JSON array"),
    ],
    ids=["empty", "null", "empty-object", "truncated", "invalid", "array"],
)
def test_malformed_argument_forms(chat_model: Any, raw: str, arguments: Any, invalid_fragment: str | None) -> None:
    body = completion({"tool_calls": [tool_call("call_M", "get_weather", raw)]}, "tool_calls")
    model = chat_model(lambda r: json_response(body))
    resp = run(model.send(req([Message.user("x")])))
    (call,) = resp.tool_calls
    assert call.arguments == arguments
    assert call.raw_arguments == raw
    assert not call.incomplete
    if invalid_fragment is None:
        assert call.invalid is None and call.is_valid
    else:
        assert invalid_fragment in call.invalid and not call.is_valid
    # replay: never "null", never the broken text where an object belongs (case B08)
    encoded = model.codec.encode_request(req([Message.user("x"), resp.to_message()]))
    assert encoded["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_length_cut_off_marks_call_incomplete(chat_model: Any) -> None:
    body = completion(
        {
            "tool_calls": [
                tool_call("call_L1", "get_weather", '{"city": "Paris"}'),
                tool_call("call_L2", "get_weather", '{"city": "Ber'),
            ]
        },
        "length",
    )
    model = chat_model(lambda r: json_response(body))
    resp = run(model.send(req([Message.user("x")])))
    assert resp.stop_reason == "max_tokens" and resp.vendor_stop_reason == "length"
    first, second = resp.tool_calls
    assert first.is_valid and not first.incomplete
    assert second.incomplete and second.arguments is None and "output-token limit" in second.invalid


def test_interleaved_streamed_deltas_for_two_calls(chat_model: Any) -> None:
    base = {"id": "chatcmpl-S1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-2024-08-06"}

    def ch(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            **base,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": None,
        }

    chunks = [
        ch({"role": "assistant", "content": None}),
        ch(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_S0",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        ),
        ch(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_S1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        ),
        ch({"tool_calls": [{"index": 0, "function": {"arguments": '{"ci'}}]}),
        ch({"tool_calls": [{"index": 1, "function": {"arguments": '{"city": "Zo'}}]}),
        ch({"tool_calls": [{"index": 0, "function": {"arguments": 'ty": "Kyō'}}]}),
        ch({"tool_calls": [{"index": 1, "function": {"arguments": 'ë"}'}}]}),
        ch({"tool_calls": [{"index": 0, "function": {"arguments": 'to"}'}}]}),
        ch({}, "tool_calls"),
        {
            **base,
            "choices": [],
            "usage": {
                "prompt_tokens": 70,
                "completion_tokens": 33,
                "total_tokens": 103,
                "prompt_tokens_details": {"cached_tokens": 64},
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
        },
    ]
    model = chat_model(lambda r: chat_sse(chunks), stream=True)
    resp = run(model.send(model.build_request([Message.user("x")], tools=[WEATHER])))
    assert [(c.id, c.arguments) for c in resp.tool_calls] == [
        ("call_S0", {"city": "Kyōto"}),
        ("call_S1", {"city": "Zoë"}),
    ]
    assert resp.stop_reason == "tool_use" and resp.vendor_stop_reason == "tool_calls"
    assert (resp.usage.input_tokens, resp.usage.output_tokens, resp.usage.cache_read_tokens) == (70, 33, 64)
    assert resp.response_id == "chatcmpl-S1"
    sent = model.sent[0].json
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}


def test_stream_cut_before_finish_leaves_calls_incomplete(chat_model: Any) -> None:
    base = {"id": "chatcmpl-S2", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
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
                                "id": "call_X",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": '{"city":'},
                            }
                        ]
                    },
                    "finish_reason": None,
                }
            ],
        }
    ]
    model = chat_model(lambda r: chat_sse(chunks, done=False), stream=True, retry=False)
    # the transport does not return the partial answer: a retryable error (Model.send retries it)
    with pytest.raises(ProviderError, match="ended before the response was complete") as info:
        run(model.send(model.build_request([Message.user("x")], tools=[WEATHER])))
    assert info.value.retryable
    # the decoder's own reading of it: the call is incomplete, the stop reason "error"
    from toolwire.stream import assemble

    decoder = ChatStreamDecoder()
    events = [ev for c in chunks for ev in decoder.feed(c)] + decoder.finish()
    resp = assemble(events, "openai-chat")
    (call,) = resp.tool_calls
    assert call.incomplete and not call.is_valid and resp.stop_reason == "error"


def test_image_result_goes_in_one_user_message_after_all_tool_messages(chat_model: Any) -> None:
    model = chat_model(lambda r: json_response(completion({"content": "ok"})))
    call1 = ToolCall("call_I1", "chart", {"q": "Q3"}, raw_arguments='{"q": "Q3"}')
    call2 = ToolCall("call_I2", "chart", {"q": "Q4"}, raw_arguments='{"q": "Q4"}')
    history = [
        Message.user("charts"),
        Message("assistant", [call1, call2]),
        Message(
            "user",
            [
                ToolResult(
                    "call_I1", [TextPart("Q3 chart"), ImagePart(data=PNG, media_type="image/png")], name="chart"
                ),
                ToolResult("call_I2", "no data for Q4"),
            ],
        ),
    ]
    run(model.send(req(history, tools=[])))
    msgs = model.sent[0].json["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "tool", "user"]
    assert msgs[2] == {"role": "tool", "tool_call_id": "call_I1", "content": "Q3 chart"}
    assert msgs[3] == {"role": "tool", "tool_call_id": "call_I2", "content": "no data for Q4"}
    b64 = "iVBORw0KGgoAAAAAAAAAAA=="
    assert msgs[4] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Image(s) returned by tool call call_I1 (chart):"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64}"}},
        ],
    }


def test_error_result_is_text_with_error_prefix(chat_model: Any) -> None:
    # case B22 (OpenAI part): no flag on this API
    model = chat_model(lambda r: json_response(completion({"content": "sorry"})))
    call = ToolCall("t1", "get_weather", {"city": "Atlantis"}, raw_arguments='{"city": "Atlantis"}')
    history = [
        Message.user("x"),
        Message("assistant", [call]),
        Message("user", [ToolResult("t1", "ValueError: city not found", is_error=True)]),
    ]
    run(model.send(req(history)))
    tool_msg = model.sent[0].json["messages"][2]
    assert tool_msg == {"role": "tool", "tool_call_id": "t1", "content": "Error: ValueError: city not found"}


def test_reasoning_from_other_vendors_is_dropped(chat_model: Any) -> None:
    model = chat_model(lambda r: json_response(completion({"content": "ok"})))
    call = ToolCall("toolu_1", "get_weather", {"city": "Rome"})
    history = [
        Message.user("x"),
        Message(
            "assistant",
            [ReasoningPart("thinking...", signature="sig", provider="anthropic"), TextPart("Let me check."), call],
        ),
        Message("user", [ToolResult("toolu_1", "sunny")]),
    ]
    run(model.send(req(history)))
    assert model.sent[0].json["messages"][1] == {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'}}
        ],
    }


def test_compatible_server_via_base_url_without_key(chat_model: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-key")
    body = completion(
        {
            "content": None,
            "reasoning_content": "The user wants weather.",
            "tool_calls": [tool_call("call_v1", "get_weather", {"city": "Turin"})],
        },
        "stop",
        model="qwen3:8b",
    )
    model = chat_model(
        lambda r: json_response(body),
        api_key=None,
        base_url="http://localhost:11434/v1",
        max_tokens=64,
        max_tokens_field="max_tokens",
        model_id="qwen3:8b",
    )
    assert model.credential_problem() is None
    resp = run(model.send(model.build_request([Message.user("x")], tools=[WEATHER])))
    sent = model.sent[0]
    assert sent.url == "http://localhost:11434/v1/chat/completions"
    assert "authorization" not in sent.headers  # the OpenAI key is never sent to another server
    assert sent.json["max_tokens"] == 64 and "max_completion_tokens" not in sent.json
    assert "max_tokens_field" not in sent.json
    # the server sent an object instead of a string and finish_reason "stop" with a call
    assert resp.tool_calls[0].arguments == {"city": "Turin"} and resp.stop_reason == "tool_use"
    assert resp.parts[0].type == "reasoning" and resp.parts[0].text == "The user wants weather."


def test_openrouter_style_key_from_named_variable(chat_model: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-key")
    model = chat_model(
        lambda r: json_response(completion({"content": "hi"})),
        api_key=None,
        base_url="https://openrouter.ai/api/v1",
        api_key_env="OPENROUTER_API_KEY",
    )
    run(model.send(model.build_request([Message.user("x")])))
    assert model.sent[0].headers["authorization"] == "Bearer or-key"
    assert "api_key_env" not in model.sent[0].json


def test_missing_key_names_the_variable(monkeypatch: Any) -> None:
    from toolwire_openai import OpenAIChatModel

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    model = OpenAIChatModel("gpt-4o")
    assert model.credential_problem() == "set OPENAI_API_KEY (or pass api_key=...)"
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        model.client


@pytest.mark.parametrize(
    "status,etype,retryable",
    [(400, "invalid_request_error", False), (429, "rate_limit_exceeded", True), (500, "server_error", True)],
)
def test_errors_are_provider_errors(chat_model: Any, status: int, etype: str, retryable: bool) -> None:
    err = {"error": {"message": f"boom {status}", "type": etype, "param": None, "code": None}}
    model = chat_model(lambda r: json_response(err, status=status))
    with pytest.raises(ProviderError) as info:
        run(model.send(req([Message.user("x")])))
    e = info.value
    assert (e.provider, e.status, e.message, e.error_type, e.retryable) == (
        "openai-chat",
        status,
        f"boom {status}",
        etype,
        retryable,
    )
    assert e.body == err["error"]  # the SDK hands over the error object


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_a_429_for_a_used_up_quota_is_not_retried(chat_model: Any, responses_model: Any, api: str) -> None:
    """``insufficient_quota`` comes with 429 but is no rate limit: "You exceeded your current
    quota, please check your plan and billing details" fails again on every retry (retrying it
    only delays the error: langchain-ai/langchainjs#1929). Raised at once, not retryable."""
    quota = {
        "error": {
            "message": "You exceeded your current quota, please check your plan and billing details.",
            "type": "insufficient_quota",
            "param": None,
            "code": "insufficient_quota",
        }
    }
    answers = [json_response(quota, status=429)] * 3
    make = chat_model if api == "chat" else responses_model
    model = make(lambda r: answers.pop(0), max_retries=2)
    with pytest.raises(ProviderError) as info:
        run(model.send(req([Message.user("x")])))
    assert (info.value.status, info.value.retryable, info.value.error_type) == (429, False, "insufficient_quota")
    assert len(model.sent) == 1


def test_toolwire_retries_a_503(chat_model: Any) -> None:
    answers = [
        json_response(
            {"error": {"message": "busy", "type": "server_error"}}, status=503, headers={"retry-after-ms": "1"}
        ),
        json_response(completion({"content": "ok"})),
    ]
    model = chat_model(lambda r: answers.pop(0), max_retries=1)
    assert run(model.send(req([Message.user("x")]))).text == "ok"
    assert len(model.sent) == 2


def test_tool_choice_forms() -> None:
    from toolwire_openai import OpenAIChatCodec

    codec = OpenAIChatCodec()
    for choice, wire in [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ({"type": "tool", "name": "get_weather"}, {"type": "function", "function": {"name": "get_weather"}}),
    ]:
        assert codec.encode_request(req([Message.user("x")], tool_choice=choice))["tool_choice"] == wire
    with pytest.raises(UnsupportedToolChoice):
        codec.encode_request(req([Message.user("x")], tool_choice="sometimes"))


def test_content_filter_and_refusal_map_to_refusal() -> None:
    from toolwire_openai import OpenAIChatCodec

    codec = OpenAIChatCodec()
    r = codec.decode_response(completion({"content": None, "refusal": "I can't help with that."}))
    assert r.stop_reason == "refusal" and r.text == "I can't help with that."
    assert codec.decode_response(completion({"content": "partial"}, "content_filter")).stop_reason == "refusal"
    # finish_reason "function_call" without a call: nothing to run, so the turn ended
    assert (
        codec.decode_response(completion({"content": "old", "function_call": None}, "function_call")).stop_reason
        == "end_turn"
    )
    # the deprecated single function call is a tool call (an id of toolwire's own)
    legacy = codec.decode_response(
        completion(
            {"content": None, "function_call": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            "function_call",
        )
    )
    assert legacy.stop_reason == "tool_use"
    assert [(c.name, c.arguments, c.id_synthesized) for c in legacy.tool_calls] == [
        ("get_weather", {"city": "Paris"}, True)
    ]


def test_usage_mapping_with_reasoning_and_cache_write() -> None:
    from toolwire_openai import OpenAIChatCodec

    usage = {
        "prompt_tokens": 2000,
        "completion_tokens": 900,
        "total_tokens": 2900,
        "prompt_tokens_details": {"cached_tokens": 1536, "cache_write_tokens": 128},
        "completion_tokens_details": {"reasoning_tokens": 640},
    }
    u = OpenAIChatCodec().decode_response(completion({"content": "x"}, usage=usage)).usage
    assert (
        u.input_tokens,
        u.output_tokens,
        u.cache_read_tokens,
        u.cache_write_tokens,
        u.reasoning_tokens,
        u.requests,
    ) == (2000, 900, 1536, 128, 640, 1)


def test_reasoning_from_another_server_is_left_out_and_reported(chat_model: Any) -> None:
    """A tool turn of a compatible server that sends its reasoning as reasoning_content (DeepSeek,
    Qwen), continued on another Chat Completions server: the reasoning goes back only to the server
    that sent it (no other takes the field), so it is left out. It was left out without a word
    (both are provider "openai-chat", so no reasoning.dropped); found by the conversation fuzz
    test. Now reported (rule openai-chat.conversation.reasoning-left-out, lossy)."""
    body = completion(
        {
            "content": None,
            "reasoning_content": "The user wants weather.",
            "tool_calls": [tool_call("call_v1", "get_weather", {"city": "Turin"})],
        },
        "tool_calls",
        model="deepseek-chat",
    )
    first = chat_model(lambda r: json_response(body), base_url="https://api.deepseek.com/v1", model_id="deepseek-chat")
    turn = run(first.send(first.build_request([Message.user("weather in Turin?")], tools=[WEATHER])))
    history = [
        Message.user("weather in Turin?"),
        turn.to_message(),
        Message("user", [ToolResult("call_v1", "sunny", name="get_weather")]),
    ]
    # the same server gets its reasoning back on the tool-call turn, and no report
    same = chat_model(
        lambda r: json_response(completion({"content": "Sunny."})),
        base_url="https://api.deepseek.com/v1",
        model_id="deepseek-chat",
    )
    response = run(same.send(same.build_request(history, tools=[WEATHER])))
    assert same.sent[0].json["messages"][1]["reasoning_content"] == "The user wants weather."
    assert [c.rule for c in response.preflight or []] == []
    # another server does not
    other = chat_model(lambda r: json_response(completion({"content": "Sunny."})))
    response = run(other.send(other.build_request(history, tools=[WEATHER])))
    assert "reasoning_content" not in other.sent[0].json["messages"][1]
    assert [(c.rule, c.pointer, c.lossy) for c in response.preflight] == [
        ("openai-chat.conversation.reasoning-left-out", "/messages/1/parts/0", True)
    ]
