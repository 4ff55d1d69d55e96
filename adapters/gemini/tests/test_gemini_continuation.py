"""Answers the Gemini API cuts at its per-request token limit (finish reason ``CONTINUATION``,
``google.genai.types.FinishReason``: "The model response can be continued via a subsequent request
using the returned `continuation_token`"), through the real SDK over MockTransport. Before, the run
ended there as ``max_tokens`` with half an answer; the SDK's own ``generate_content`` continues it
by default (``automatic_continuation``)."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire import tool


@tool
def lookup(city: str) -> str:
    """Look a city up.

    Args:
        city: a city
    """
    return f"{city}: 12 C"


def _hop(parts: list[dict[str, Any]], finish: str, usage: tuple[int, int], token: str | None = None) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
    if token is not None:
        cand["continuationToken"] = token
    return {
        "candidates": [cand],
        "usageMetadata": {
            "promptTokenCount": usage[0],
            "candidatesTokenCount": usage[1],
            "totalTokenCount": sum(usage),
        },
        "modelVersion": "gemini-3-flash",
        "responseId": f"r-{finish}",
    }


def _answer(body: dict[str, Any], stream: bool) -> httpx2.Response:
    if not stream:
        return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))
    cand = body["candidates"][0]
    chunks = []
    for i, part in enumerate(cand["content"]["parts"]):
        last = i == len(cand["content"]["parts"]) - 1
        c = {"content": {"role": "model", "parts": [part]}, "index": 0}
        if last:
            c.update({k: v for k, v in cand.items() if k not in ("content", "index")})
        chunks.append({"candidates": [c], "modelVersion": body["modelVersion"], "responseId": body["responseId"]})
    chunks[-1]["usageMetadata"] = body["usageMetadata"]
    text = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


@pytest.mark.parametrize("stream", [False, True])
def test_an_answer_cut_with_continuation_is_continued(mock_model, stream) -> None:
    first = _hop([{"text": "The long answer, part one; "}], "CONTINUATION", (100, 50), token="Q09OVElOVUUx")
    second = _hop([{"text": "part two; "}], "CONTINUATION", (100, 40), token="Q09OVElOVUUy")
    third = _hop([{"text": "the end."}], "STOP", (100, 10))
    model = mock_model([_answer(first, stream), _answer(second, stream), _answer(third, stream)], stream=stream)
    result = toolwire.run_sync(model, "write it all", tools=[lookup])
    assert result.text == "The long answer, part one; part two; the end."
    assert result.stop_reason == "end_turn" and len(result.turns) == 1
    response = result.turns[0].response
    assert (response.stop_reason, response.vendor_stop_reason) == ("end_turn", "STOP")
    assert (response.usage.input_tokens, response.usage.output_tokens) == (300, 100)  # each request billed
    bodies = [s.json for s in model.sent]
    assert len(bodies) == 3
    # the same request again, with the token of the answer it continues (a top-level field, as the SDK sends it)
    assert "continuationToken" not in bodies[0]
    assert bodies[1]["continuationToken"] == "Q09OVElOVUUx" and bodies[2]["continuationToken"] == "Q09OVElOVUUy"
    assert bodies[1]["contents"] == bodies[0]["contents"] == bodies[2]["contents"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_call_after_a_continuation_runs_and_the_history_holds_one_model_turn(mock_model, stream) -> None:
    first = _hop([{"text": "Let me look. "}], "CONTINUATION", (100, 50), token="Q09OVElOVUUx")
    second = _hop([{"functionCall": {"name": "lookup", "args": {"city": "Paris"}, "id": "c1"}}], "STOP", (100, 5))
    final = _hop([{"text": "12 C."}], "STOP", (120, 3))
    model = mock_model([_answer(first, stream), _answer(second, stream), _answer(final, stream)], stream=stream)
    result = toolwire.run_sync(model, "weather in Paris?", tools=[lookup])
    assert result.text.endswith("12 C.")
    bodies = [s.json for s in model.sent]
    assert len(bodies) == 3 and "continuationToken" not in bodies[2]
    model_turns = [c for c in bodies[2]["contents"] if c["role"] == "model"]
    assert model_turns == [
        {
            "role": "model",
            "parts": [
                {"text": "Let me look. "},
                {"functionCall": {"name": "lookup", "args": {"city": "Paris"}, "id": "c1"}},
            ],
        }
    ]
