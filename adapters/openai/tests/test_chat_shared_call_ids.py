"""Chat Completions answers in which distinct tool calls share one id (compatible servers that
number every call alike: xorbitsai/inference#4237, MiMo/Kimi proxies in can1357/oh-my-pi#2055),
read through the real ``openai`` SDK (only the network replaced): each distinct call runs under an
id of its own, and the model sees every call it made answered. A repeat of the very same call
(LocalAI streams one call at two indexes, mudler/LocalAI#9722) still runs once."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from openai_wire import _make, chat_sse, completion, json_response, tool_call
from toolwire_openai import OpenAIChatModel

import toolwire

BASE = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4.1"}

ran: list[str] = []


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    ran.append(city)
    return f"{city}: sunny"


def whole(calls: list[tuple[str, str, dict[str, Any]]]) -> httpx2.Response:
    return json_response(
        completion({"tool_calls": [tool_call(i, n, json.dumps(a)) for i, n, a in calls]}, "tool_calls")
    )


def streamed(calls: list[tuple[str, str, dict[str, Any]]]) -> httpx2.Response:
    chunks = [
        {
            **BASE,
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": k,
                                "id": i,
                                "type": "function",
                                "function": {"name": n, "arguments": json.dumps(a)},
                            }
                        ]
                    },
                    "finish_reason": None,
                }
            ],
        }
        for k, (i, n, a) in enumerate(calls)
    ]
    chunks.append({**BASE, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return chat_sse(chunks)


def final(stream: bool) -> httpx2.Response:
    if stream:
        delta = {"role": "assistant", "content": "done"}
        return chat_sse([{**BASE, "choices": [{"index": 0, "delta": delta, "finish_reason": "stop"}]}])
    return json_response(completion({"content": "done"}))


def run(calls: list[tuple[str, str, dict[str, Any]]], stream: bool) -> tuple[toolwire.RunResult, Any]:
    ran.clear()
    answers = [(streamed if stream else whole)(calls), final(stream)]
    settings: dict[str, Any] = {"model_id": "gpt-4.1", "stream": stream}
    model = _make(OpenAIChatModel, lambda request: answers.pop(0), settings)
    return toolwire.run_sync(model, "Weather?", tools=[get_weather]), model


@pytest.mark.parametrize("stream", [False, True])
def test_distinct_calls_that_share_an_id_each_run_and_are_answered_under_ids_of_their_own(stream: bool) -> None:
    result, model = run(
        [
            ("call_0", "get_weather", {"city": "Paris"}),
            ("call_0", "get_weather", {"city": "Rome"}),
            ("call_0", "get_weather", {"city": "Oslo"}),
        ],
        stream,
    )
    assert sorted(ran) == ["Oslo", "Paris", "Rome"]
    assert result.tool_errors == 0
    ids = [r.call.id for r in result.tool_runs]
    assert ids[0] == "call_0" and len(set(ids)) == 3
    second = model.sent[1].json["messages"]
    assistant = second[1]
    assert [c["id"] for c in assistant["tool_calls"]] == ids
    assert [json.loads(c["function"]["arguments"]) for c in assistant["tool_calls"]] == [
        {"city": "Paris"},
        {"city": "Rome"},
        {"city": "Oslo"},
    ]
    assert second[2:] == [
        {"role": "tool", "tool_call_id": ids[0], "content": "Paris: sunny"},
        {"role": "tool", "tool_call_id": ids[1], "content": "Rome: sunny"},
        {"role": "tool", "tool_call_id": ids[2], "content": "Oslo: sunny"},
    ]
    assert result.text == "done"


@pytest.mark.parametrize("stream", [False, True])
def test_the_very_same_call_repeated_under_one_id_still_runs_once(stream: bool) -> None:
    result, model = run(
        [("call_0", "get_weather", {"city": "Paris"}), ("call_0", "get_weather", {"city": "Paris"})], stream
    )
    assert ran == ["Paris"]
    second = model.sent[1].json["messages"]
    assert [c["id"] for c in second[1]["tool_calls"]] == ["call_0"]
    assert second[2:] == [{"role": "tool", "tool_call_id": "call_0", "content": "Paris: sunny"}]
