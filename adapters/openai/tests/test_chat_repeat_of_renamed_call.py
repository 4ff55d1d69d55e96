"""Chat Completions: calls sharing one id (``call_B`` for Paris, then Rome, then Rome again, as
servers that give every call of an answer one id send them): the Rome call gets ``call_B_2`` and
runs once; its exact repeat is a duplicate *of call_B_2*, under that id (it stayed ``call_B``,
and its text said "duplicate tool call id call_B", the id of the Paris call). Through the real
SDK, only the network replaced."""

from __future__ import annotations

import json

from openai_wire import Server, completion, json_response, tool_call

import toolwire
from toolwire.tools import Tool

RAN: list[str] = []

WEATHER = Tool.from_schema(
    "get_weather",
    "Weather for a city. Use when asked about weather.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    function=lambda city: RAN.append(city) or f"sunny in {city}",
)


def test_an_exact_repeat_of_a_renamed_call_is_a_duplicate_of_its_new_id(chat_model) -> None:
    calls = [
        tool_call("call_A", "get_weather", json.dumps({"city": "Oslo"})),
        tool_call("call_B", "get_weather", json.dumps({"city": "Paris"})),
        tool_call("call_B", "get_weather", json.dumps({"city": "Rome"})),
        tool_call("call_B", "get_weather", json.dumps({"city": "Rome"})),
    ]
    server = Server(
        json_response(completion({"tool_calls": calls}, finish_reason="tool_calls")),
        json_response(completion({"content": "All sunny."})),
    )
    RAN.clear()
    result = toolwire.run_sync(chat_model(server), "Weather in Oslo, Paris and Rome?", tools=[WEATHER])
    assert sorted(RAN) == ["Oslo", "Paris", "Rome"]
    assert [(r.call.id, r.call.invalid) for r in result.tool_runs] == [
        ("call_A", None),
        ("call_B", None),
        ("call_B_2", None),
        ("call_B_2", "duplicate tool call id call_B_2 in one response"),
    ]
    assert result.tool_runs[3].result.content == (
        "Tool call 'get_weather' was not run: duplicate tool call id call_B_2 in one response (it repeats the "
        "earlier call call_B_2 of this response, which is the one answered).\nMake a new tool call if you still "
        "need the result."
    )
    sent = server.bodies[1]["messages"]
    assert [c["id"] for c in sent[1]["tool_calls"]] == ["call_A", "call_B", "call_B_2"]
    assert [(m["tool_call_id"], m["content"]) for m in sent[2:]] == [
        ("call_A", "sunny in Oslo"),
        ("call_B", "sunny in Paris"),
        ("call_B_2", "sunny in Rome"),
    ]
