"""A Chat stream whose tool name comes in pieces, or again in full.

Chat Completions streams may split a call's ``function.name`` across deltas: "if your function is
called "get_weather", the first delta might have "get_" and the second might have "weather""
(openai/openai-agents-python#326, an OpenAI maintainer); Gemini's OpenAI-compatible endpoint
streams "edit_ex" + "isting_file" (continuedev/continue#5849), and the OpenAI SDK's own
accumulator joins the pieces. Other servers resend the whole name in every chunk (MiniMax through
NVIDIA NIM: "read_fileread_file", NousResearch/hermes-agent#8259). Before, toolwire kept the first
piece ("get_"), so the call was answered "Unknown tool 'get_'" and never ran.

Now a later piece is appended, a resent name (or one that extends the name so far) replaces it,
and the call runs under the whole name. The real ``openai`` SDK sends every request; only the
network is replaced.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from openai_wire import Server, chat_sse
from toolwire_openai import OpenAIChatModel

import toolwire

RAN: list[str] = []


def get_weather(city: str) -> str:
    """Weather for a city."""
    RAN.append(city)
    return f"sunny in {city}"


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "gemini-2.5-flash",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
    }


def _call(names: list[str], fragments: list[str]) -> httpx2.Response:
    first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": names[0], "arguments": ""}}
    chunks = [_chunk({"role": "assistant", "tool_calls": [first]})]
    for i, frag in enumerate(fragments):
        fn: dict[str, Any] = {"arguments": frag}
        if i + 1 < len(names):
            fn["name"] = names[i + 1]
        chunks.append(_chunk({"tool_calls": [{"index": 0, "function": fn}]}))
    return chat_sse([*chunks, _chunk({}, "tool_calls")])


def _text() -> httpx2.Response:
    return chat_sse([_chunk({"role": "assistant", "content": "done"}), _chunk({}, "stop")])


@pytest.mark.parametrize(
    "names",
    [
        ["get_", "weather"],  # pieces (openai-agents-python#326)
        ["get", "_wea", "ther"],
        ["get_weather", "get_weather", "get_weather"],  # resent in every chunk (hermes-agent#8259)
        ["get_", "get_weather"],  # the name so far, growing
    ],
    ids=["two-pieces", "three-pieces", "resent", "growing"],
)
def test_the_call_runs_under_the_whole_name(names: list[str]) -> None:
    RAN.clear()
    server = Server(_call(names, ['{"city":', ' "Paris"}', ""]), _text())
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    model = OpenAIChatModel("gemini-2.5-flash", api_key="k", http_client=client, stream=True, max_retries=0)
    result = toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather])
    assert RAN == ["Paris"]
    assert result.text == "done"
    sent = server.bodies[1]["messages"][1]["tool_calls"][0]
    assert sent["function"]["name"] == "get_weather"
    assert json.loads(sent["function"]["arguments"]) == {"city": "Paris"}
