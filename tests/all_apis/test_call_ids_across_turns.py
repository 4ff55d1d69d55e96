"""A vendor id repeated from an earlier turn is re-numbered ``<id>_<n>``; that new id must not be
one a later call of the same answer carries, or that distinct call is refused as a duplicate."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire.tools import Tool

from .answers import mock_model, text_answer

RAN: list[str] = []


def _weather(city: str) -> str:
    RAN.append(city)
    return f"sunny in {city}"


WEATHER = Tool.from_schema(
    "get_weather",
    "Weather of a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    _weather,
)


def _calls_answer(api: str, calls: list[tuple[str, str]]) -> dict[str, Any]:
    """An answer of ``api`` whose tool calls are ``(id, city)`` calls of get_weather."""
    if api == "anthropic":
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "tool_use", "id": i, "name": "get_weather", "input": {"city": c}} for i, c in calls],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 2},
        }
    if api == "openai-chat":
        tool_calls = [
            {"id": i, "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": c})}}
            for i, c in calls
        ]
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-x",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None, "tool_calls": tool_calls},
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
    parts = [{"functionCall": {"id": i, "name": "get_weather", "args": {"city": c}}} for i, c in calls]
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
    }


def _pairs(api: str, body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The ids of the calls and of the results a request sends, in order."""
    if api == "anthropic":
        blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
        return [b["id"] for b in blocks if b["type"] == "tool_use"], [
            b["tool_use_id"] for b in blocks if b["type"] == "tool_result"
        ]
    if api == "openai-chat":
        msgs = body["messages"]
        return [t["id"] for m in msgs for t in m.get("tool_calls") or []], [
            m["tool_call_id"] for m in msgs if m["role"] == "tool"
        ]
    parts = [p for c in body["contents"] for p in c["parts"]]
    return [p["functionCall"]["id"] for p in parts if "functionCall" in p], [
        p["functionResponse"]["id"] for p in parts if "functionResponse" in p
    ]


@pytest.mark.parametrize("api", ["anthropic", "openai-chat", "gemini"])
def test_a_call_whose_id_is_the_renumbered_id_of_a_repeated_one_still_runs(api: str) -> None:
    """Turn 1 calls X; turn 2 calls X again and X_2. The repeated X became X_2, and the call the
    vendor named X_2 was refused as "duplicate tool call id X_2 in one response": never run."""
    sent: list[dict[str, Any]] = []
    answers = [
        _calls_answer(api, [("X", "A")]),
        _calls_answer(api, [("X", "B"), ("X_2", "C")]),
        text_answer(api, "done"),
    ]
    RAN.clear()
    result = toolwire.run_sync(mock_model(api, answers, sent), "hi", tools=[WEATHER])
    assert sorted(RAN) == ["A", "B", "C"]
    runs = [(r.call.id, r.call.arguments, r.result.is_error) for r in result.tool_runs]
    assert runs == [("X", {"city": "A"}, False), ("X_3", {"city": "B"}, False), ("X_2", {"city": "C"}, False)]
    calls, results = _pairs(api, sent[-1])
    assert calls == results == ["X", "X_3", "X_2"]
