"""Hosted OpenAI-compatible endpoints reached through ``openai-chat`` with their ``base_url``:
the fields and values they refuse that OpenAI itself takes, repaired before sending (and reported
on ``Response.preflight``) for that host only; api.openai.com gets the body it always got.

The real ``openai`` SDK sends every request; only the network is replaced.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2

import toolwire
from toolwire.types import Conversation, Message, TextPart, ToolCall, ToolResult

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


def _history(call_id: str) -> Conversation:
    return Conversation(
        [
            Message("user", [TextPart("Weather in Paris?")]),
            Message("assistant", [ToolCall(call_id, "get_weather", {"city": "Paris"})]),
            Message("user", [ToolResult(call_id, "sunny in Paris")]),
        ]
    )


def test_call_ids_mistral_refuses_are_sent_as_nine_alphanumeric_characters() -> None:
    """Mistral refuses any other tool call id: "Tool call id was call_0fypS1hVX but must be a-z,
    A-Z, 0-9, with a length of 9." (karthink/gptel#1203; langchain-ai/langchain#24668 maps ids
    from other vendors the same way). A history from another vendor (``toolu_...``), or one with
    an id toolwire synthesized, goes to Mistral with each id replaced by a stable one, the same in
    the call and in its result; Mistral's own ids go as they are."""
    for foreign in ("toolu_01A09q90qw90lq917835lq9", "call_tw1f2e3d4c_0", "abc", ""):
        server = Server(_json(_completion({"content": "It is sunny."})))
        result = toolwire.run_sync(_model(server), "And now?", conversation=_history(foreign), tools=[get_weather])
        messages = server.bodies[0]["messages"]
        call_id = messages[1]["tool_calls"][0]["id"]
        assert re.fullmatch(r"[a-zA-Z0-9]{9}", call_id), call_id
        assert messages[2] == {"role": "tool", "tool_call_id": call_id, "content": "sunny in Paris"}
        assert "openai-chat.server.mistral-call-id" in _rules(result)
        # stable: the same id maps to the same id on the next request
        server2 = Server(_json(_completion({"content": "It is sunny."})))
        toolwire.run_sync(_model(server2), "And now?", conversation=_history(foreign), tools=[get_weather])
        assert server2.bodies[0]["messages"][1]["tool_calls"][0]["id"] == call_id
    own = Server(_json(_completion({"content": "It is sunny."})))
    result = toolwire.run_sync(_model(own), "And now?", conversation=_history("D681PevKs"), tools=[get_weather])
    assert own.bodies[0]["messages"][1]["tool_calls"][0]["id"] == "D681PevKs"
    assert _rules(result) == []
    # OpenAI itself gets the id as it is
    openai = Server(_json(_completion({"content": "It is sunny."})))
    toolwire.run_sync(_model(openai, None), "And now?", conversation=_history("toolu_01A09q90"), tools=[get_weather])
    assert openai.bodies[0]["messages"][1]["tool_calls"][0]["id"] == "toolu_01A09q90"


def test_a_mistral_tool_loop_answers_under_the_id_mistral_sent() -> None:
    server = Server(
        _json(
            _completion(
                {
                    "content": "",
                    "tool_calls": [
                        {"id": "D681PevKs", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
                    ],
                },
                "tool_calls",
            )
        ),
        _json(_completion({"content": "done"})),
    )
    toolwire.run_sync(_model(server), "Weather?", tools=[get_weather])
    assert server.bodies[1]["messages"][-1]["tool_call_id"] == "D681PevKs"
