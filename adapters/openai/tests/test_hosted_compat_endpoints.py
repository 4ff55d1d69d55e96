"""Hosted OpenAI-compatible endpoints reached through ``openai-chat`` with their ``base_url``:
the fields and values they refuse that OpenAI itself takes, repaired before sending (and reported
on ``Response.preflight``) for that host only; api.openai.com gets the body it always got.

The real ``openai`` SDK sends every request; only the network is replaced.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

import toolwire

MISTRAL = "https://api.mistral.ai/v1"


def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


class Server:
    """Answers each request with the next of ``answers`` and keeps every body sent."""

    def __init__(self, *answers: httpx2.Response) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return self.answers.pop(0)


def _json(body: dict[str, Any]) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))


def _sse(chunks: list[dict[str, Any]]) -> httpx2.Response:
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def _completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "mistral-small-latest",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _text_chunks(text: str) -> list[dict[str, Any]]:
    base = {"id": "cmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "mistral-small-latest"}
    return [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
        {
            **base,
            "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}],
            # Mistral reports usage in the last chunk without being asked
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        },
    ]


def _model(server: Server, base_url: str | None = MISTRAL, **settings: Any) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    if base_url is not None:
        settings["base_url"] = base_url
    return toolwire.model("openai-chat:mistral-small-latest", http_client=client, api_key="k", **settings)


def _rules(result: Any) -> list[str]:
    return [c.rule for t in result.turns for c in (t.response.preflight or [])]


# ----------------------------------------------------------------------------- Mistral


def test_a_streamed_request_to_mistral_carries_no_stream_options() -> None:
    """Mistral's API refuses ``stream_options`` with 422 "Extra inputs are not permitted"
    (``loc: ["body", "stream_options", "include_usage"]``; avante-corp/avante.nvim#2347,
    dnakov/anon-kode#53) and reports usage in its last chunk anyway."""
    server = Server(_sse(_text_chunks("hi")))
    result = toolwire.run_sync(_model(server, stream=True), "hi")
    assert "stream_options" not in server.bodies[0] and server.bodies[0]["stream"] is True
    assert result.text == "hi" and result.usage.input_tokens == 10
    assert _rules(result) == ["openai-chat.server.mistral-stream-options"]
    # OpenAI and other compatible servers still get it
    for base in (None, "http://127.0.0.1:8080/v1"):
        other = Server(_sse(_text_chunks("hi")))
        again = toolwire.run_sync(_model(other, base, stream=True), "hi")
        assert other.bodies[0]["stream_options"] == {"include_usage": True}
        assert _rules(again) == []


def test_the_profile_flags_stream_options_for_mistral_only() -> None:
    from toolwire_openai.profile import OpenAIChatProfile

    body = {
        "model": "mistral-small-latest",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    found = [v.rule for v in OpenAIChatProfile(base_url=MISTRAL).check_request(body)]
    assert found == ["openai-chat.server.mistral-stream-options"]
    for base in ("https://api.openai.com/v1", "https://api.groq.com/openai/v1", None):
        assert OpenAIChatProfile(base_url=base).check_request(body) == []
