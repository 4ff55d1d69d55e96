"""An answer whose calls share one id — ``toolu_B`` for ``Paris``, then ``Rome``, then ``Rome``
again: the second gets an id of its own (``toolu_B_2``) and runs; the third, an exact repeat of
it, is a duplicate *of toolu_B_2*. It was left under ``toolu_B`` and its text said "duplicate tool
call id toolu_B", naming the Paris call it does not repeat. Through the real SDK, only the network
replaced (``mock_model``)."""

from __future__ import annotations

import pytest

import toolwire
from toolwire.tools import Tool

RAN: list[str] = []


def _weather(city: str) -> str:
    RAN.append(city)
    return f"sunny in {city}"


WEATHER = Tool.from_schema(
    "get_weather",
    "Weather for a city. Use when asked about weather.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    function=_weather,
)


def _tool_use(call_id: str, city: str) -> dict:
    return {"type": "tool_use", "id": call_id, "name": "get_weather", "input": {"city": city}}


def _sse_events(blocks: list[dict]) -> list[dict]:
    events: list[dict] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        }
    ]
    for i, b in enumerate(blocks):
        events.append({"type": "content_block_start", "index": i, "content_block": b})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 12}})
    events.append({"type": "message_stop"})
    return events


DUPLICATE_TEXT = (
    "Tool call 'get_weather' was not run: duplicate tool call id toolu_B_2 in one response (it repeats the earlier "
    "call toolu_B_2 of this response, which is the one answered).\nMake a new tool call if you still need the result."
)


@pytest.mark.parametrize("stream", [False, True])
def test_an_exact_repeat_of_a_renamed_call_is_a_duplicate_of_its_new_id(mock_model, wire, stream: bool) -> None:
    blocks = [_tool_use("toolu_A", "Oslo"), _tool_use("toolu_B", "Paris"), _tool_use("toolu_B", "Rome")]
    blocks.append(_tool_use("toolu_B", "Rome"))
    first = (
        wire.sse_response(_sse_events(blocks))
        if stream
        else wire.json_response(wire.message_body(blocks, stop_reason="tool_use"))
    )
    final = [{"type": "text", "text": "Oslo, Paris and Rome are sunny."}]
    last = wire.sse_response(_sse_events([])[:1] + [*_text_events(final[0]["text"])]) if stream else None
    model = mock_model([first, last or wire.json_response(wire.message_body(final))], stream=stream)
    RAN.clear()
    result = toolwire.run_sync(model, "Weather in Oslo, Paris and Rome?", tools=[WEATHER])
    assert sorted(RAN) == ["Oslo", "Paris", "Rome"]  # Rome once
    assert [(r.call.id, r.call.arguments["city"], r.call.invalid) for r in result.tool_runs] == [
        ("toolu_A", "Oslo", None),
        ("toolu_B", "Paris", None),
        ("toolu_B_2", "Rome", None),
        ("toolu_B_2", "Rome", "duplicate tool call id toolu_B_2 in one response"),
    ]
    dup = result.tool_runs[3].result
    assert (dup.tool_call_id, dup.is_error, dup.content) == ("toolu_B_2", True, DUPLICATE_TEXT)
    # the history kept holds the repeat under the id it repeats
    calls = result.conversation.messages[1].tool_calls
    assert [c.id for c in calls] == ["toolu_A", "toolu_B", "toolu_B_2", "toolu_B_2"]
    # what the model is sent back: each call once, each answered once
    second = model.sent[1].json["messages"]
    assert [(b["id"], b["input"]["city"]) for b in second[1]["content"]] == [
        ("toolu_A", "Oslo"),
        ("toolu_B", "Paris"),
        ("toolu_B_2", "Rome"),
    ]
    assert [(b["tool_use_id"], b["content"], b.get("is_error")) for b in second[2]["content"]] == [
        ("toolu_A", "sunny in Oslo", None),
        ("toolu_B", "sunny in Paris", None),
        ("toolu_B_2", "sunny in Rome", None),
    ]


def _text_events(text: str) -> list[dict]:
    return [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 8}},
        {"type": "message_stop"},
    ]
