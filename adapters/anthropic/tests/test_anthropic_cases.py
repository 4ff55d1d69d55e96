"""Bug cases B08, B13, B20, B21, B22 from ``shared/cases/README.md`` with their right values."""

from __future__ import annotations

import asyncio
import base64

from toolwire_anthropic import AnthropicCodec

from toolwire import ImagePart, Message, TextPart, ToolCall, ToolResult
from toolwire.adapter import ModelRequest
from toolwire.stream import assemble

codec = AnthropicCodec()


def _start(usage):
    return {
        "type": "message_start",
        "message": {
            "id": "msg_B",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        },
    }


def test_b08_zero_argument_call_in_stream() -> None:
    events = [
        _start({"input_tokens": 50, "output_tokens": 1}),
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_A", "name": "magic", "input": {}},
        },
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
    ]
    resp = assemble(codec.decode_stream(events), "anthropic")
    assert [(c.id, c.name, c.arguments) for c in resp.tool_calls] == [("toolu_A", "magic", {})]
    assert resp.tool_calls[0].is_valid and resp.stop_reason == "tool_use"
    # on replay Anthropic gets input: {}
    body = codec.encode_request(
        ModelRequest("m", [Message.user("go"), resp.to_message(), Message("user", [ToolResult("toolu_A", "done")])])
    )
    assert body["messages"][1]["content"] == [{"type": "tool_use", "id": "toolu_A", "name": "magic", "input": {}}]


def test_b08_invalid_call_replays_empty_object() -> None:
    call = ToolCall("toolu_I", "magic", arguments=None, raw_arguments='{"a": ', invalid="arguments are not valid JSON")
    body = codec.encode_request(
        ModelRequest(
            "m",
            [
                Message.user("go"),
                Message("assistant", [call]),
                Message("user", [ToolResult("toolu_I", "bad", is_error=True)]),
            ],
        )
    )
    assert body["messages"][1]["content"][0]["input"] == {}


def test_b13_tool_result_first_in_next_user_message() -> None:
    conv = [
        Message.user("What time is it?"),
        Message("assistant", [ToolCall("t1", "get_time", {})]),
        Message("user", [ToolResult("t1", "12:00")]),
        Message.user("and in Paris?"),
    ]
    body = codec.encode_request(ModelRequest("m", conv))
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "What time is it?"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_time", "input": {}}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "12:00"},
                {"type": "text", "text": "and in Paris?"},
            ],
        },
    ]


def test_b13_text_before_result_in_one_message_is_reordered() -> None:
    conv = [
        Message("assistant", [ToolCall("t1", "get_time", {})]),
        Message("user", [TextPart("and in Paris?"), ToolResult("t1", "12:00")]),
    ]
    body = codec.encode_request(ModelRequest("m", [Message.user("time?")] + conv))
    assert [b["type"] for b in body["messages"][2]["content"]] == ["tool_result", "text"]


def test_b20a_usage_not_double_counted() -> None:
    events = [
        _start({"input_tokens": 410, "output_tokens": 1}),
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"x": 1}'}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_2", "name": "f", "input": {}},
        },
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"x": 2}'}},
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 57},
        },
        {"type": "message_stop"},
    ]
    usage = assemble(codec.decode_stream(events), "anthropic").usage
    assert (usage.input_tokens, usage.output_tokens, usage.requests) == (410, 57, 1)
    # input null in the delta also leaves 410
    events[-2]["usage"] = {"input_tokens": None, "output_tokens": 57}
    usage = assemble(codec.decode_stream(events), "anthropic").usage
    assert (usage.input_tokens, usage.output_tokens) == (410, 57)


def test_b20b_cumulative_input_in_delta_overwrites() -> None:
    events = [
        _start({"input_tokens": 410, "output_tokens": 1, "cache_read_input_tokens": 0}),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"input_tokens": 980, "output_tokens": 57, "cache_read_input_tokens": 300},
        },
    ]
    usage = assemble(codec.decode_stream(events), "anthropic").usage
    # input_tokens means every input token (cache reads included): 980 + 300
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (1280, 57, 300)
    # per request, not per event: two such responses add up to 2 requests
    total = usage + assemble(codec.decode_stream(events), "anthropic").usage
    assert (total.input_tokens, total.output_tokens, total.requests) == (2560, 114, 2)


def test_b27_family_usage_means_the_same_cache_counters_from_message_start_kept() -> None:
    # the delta repeats input_tokens but not the cache counters: the sum keeps message_start's
    events = [
        _start(
            {
                "input_tokens": 12,
                "output_tokens": 1,
                "cache_read_input_tokens": 2048,
                "cache_creation_input_tokens": 512,
            }
        ),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"input_tokens": 12, "output_tokens": 340, "output_tokens_details": {"thinking_tokens": 200}},
        },
    ]
    usage = assemble(codec.decode_stream(events), "anthropic").usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (2572, 2048, 512)
    assert (usage.output_tokens, usage.reasoning_tokens) == (340, 200)


def test_b21_image_tool_result_is_a_block_list() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    conv = [
        Message.user("chart"),
        Message("assistant", [ToolCall("t1", "chart", {})]),
        Message("user", [ToolResult("t1", [TextPart("Q3 chart"), ImagePart(data=png, media_type="image/png")])]),
    ]
    body = codec.encode_request(ModelRequest("m", conv))
    assert body["messages"][2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "t1",
            "content": [
                {"type": "text", "text": "Q3 chart"},
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": base64.b64encode(png).decode("ascii"),
                    },
                },
            ],
        }
    ]
    # and it decodes back to the same canonical parts
    back = codec.decode_request(body).messages[2].parts[0]
    assert isinstance(back, ToolResult) and back.content == [
        TextPart("Q3 chart"),
        ImagePart(data=png, media_type="image/png"),
    ]


def test_b22_error_flag_passed_on() -> None:
    conv = [
        Message.user("weather in nowhere"),
        Message("assistant", [ToolCall("t1", "get_weather", {"city": "nowhere"})]),
        Message("user", [ToolResult("t1", "ValueError: city not found", is_error=True)]),
    ]
    body = codec.encode_request(ModelRequest("m", conv))
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "ValueError: city not found"}
    ]
    back = codec.decode_request(body).messages[2].parts[0]
    assert isinstance(back, ToolResult) and back.is_error is True and back.content == "ValueError: city not found"


def test_b22_unanswered_call_is_always_answered() -> None:
    """A call with no result anywhere still gets exactly one (is_error) result in the next message."""
    conv = [
        Message.user("go"),
        Message("assistant", [ToolCall("t1", "a", {}), ToolCall("t2", "b", {})]),
        Message("user", [ToolResult("t2", "ok")]),
    ]
    content = codec.encode_request(ModelRequest("m", conv))["messages"][2]["content"]
    assert [(b["tool_use_id"], b.get("is_error", False)) for b in content] == [("t2", False), ("t1", True)]
    assert "not answered in the conversation history" in content[1]["content"]  # toolwire.turns.NOT_ANSWERED


def test_cases_through_the_async_model(mock_model, wire) -> None:
    """B13 holds on the wire too (through the SDK), not only in the codec."""
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "14:00"}]))])
    conv = [
        Message.user("time?"),
        Message("assistant", [ToolCall("t1", "get_time", {})]),
        Message("user", [ToolResult("t1", "12:00")]),
        Message.user("and in Paris?"),
    ]
    asyncio.run(model.send(model.build_request(conv)))
    assert [b["type"] for b in model.sent[0].json["messages"][2]["content"]] == ["tool_result", "text"]
    assert len(model.sent[0].json["messages"]) == 3
