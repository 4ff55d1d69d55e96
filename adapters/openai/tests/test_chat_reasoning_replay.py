"""Gemini 3 behind an OpenAI-compatible endpoint needs its thought signatures back on the next
request ("Function call is missing a thought_signature in functionCall parts"): OpenRouter
carries them in the assistant message's ``reasoning_details``, Google's own endpoint in each tool
call's ``extra_content.google.thought_signature``. toolwire sends both back exactly as received
to the server that sent them (streamed or not), and to no other server (which would refuse the
unknown fields). Real ``openai`` SDK, network replaced."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

import toolwire

OPENROUTER = "https://openrouter.ai/api/v1"
GOOGLE = "https://generativelanguage.googleapis.com/v1beta/openai"

DETAILS = [
    {"type": "reasoning.text", "text": "Need the weather.", "format": "google-gemini-v1", "index": 0},
    {"type": "reasoning.encrypted", "data": "CiQBjz1rX", "id": "tool_0", "format": "google-gemini-v1", "index": 0},
]
EXTRA = {"google": {"thought_signature": "CiQBjz1rXsig"}}


def lookup(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def _call_message() -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "reasoning": "Need the weather.",
        "reasoning_details": DETAILS,
        "tool_calls": [
            {
                "id": "tool_0",
                "type": "function",
                "index": 0,
                "function": {"name": "lookup", "arguments": '{"city": "Paris"}'},
                "extra_content": EXTRA,
            }
        ],
    }


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "gen-1",
        "object": "chat.completion",
        "created": 0,
        "model": "google/gemini-3-flash-preview",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _sse(chunks: list[dict[str, Any]]) -> httpx2.Response:
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def _streamed_call() -> httpx2.Response:
    base = {"id": "gen-1", "object": "chat.completion.chunk", "created": 0, "model": "google/gemini-3-flash-preview"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    return _sse(
        [
            chunk(
                {
                    "role": "assistant",
                    "reasoning": "Need the ",
                    "reasoning_details": [{**DETAILS[0], "text": "Need the "}],
                }
            ),
            chunk({"reasoning": "weather.", "reasoning_details": [{**DETAILS[0], "text": "weather."}]}),
            chunk(
                {
                    "reasoning_details": [DETAILS[1]],
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "tool_0",
                            "type": "function",
                            "function": {"name": "lookup", "arguments": '{"city": '},
                            "extra_content": EXTRA,
                        }
                    ],
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
            chunk({}, "tool_calls"),
        ]
    )


def _text(text: str, stream: bool) -> httpx2.Response:
    if stream:
        base = {"id": "gen-2", "object": "chat.completion.chunk", "created": 0, "model": "m"}
        return _sse(
            [
                {
                    **base,
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}],
                },
                {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            ]
        )
    return httpx2.Response(200, json=_completion({"role": "assistant", "content": text}, "stop"))


class Server:
    def __init__(self, *answers: httpx2.Response) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return self.answers.pop(0)


def _model(server: Server, base_url: str, stream: bool) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    return toolwire.model(
        "openai-chat:google/gemini-3-flash-preview",
        api_key="k",
        base_url=base_url,
        http_client=client,
        max_retries=0,
        stream=stream,
    )


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("base_url", [OPENROUTER, GOOGLE])
def test_reasoning_details_and_extra_content_go_back_to_the_server_that_sent_them(base_url: str, stream: bool) -> None:
    first = _streamed_call() if stream else httpx2.Response(200, json=_completion(_call_message(), "tool_calls"))
    server = Server(first, _text("Sunny.", stream))
    result = toolwire.run_sync(_model(server, base_url, stream), "Weather in Paris?", tools=[lookup])
    assert result.text == "Sunny."
    assistant = server.bodies[1]["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["reasoning_details"] == DETAILS  # streamed pieces folded back into the same two entries
    assert assistant["tool_calls"][0]["extra_content"] == EXTRA
    assert assistant["tool_calls"][0]["function"] == {"name": "lookup", "arguments": '{"city": "Paris"}'}


def test_they_are_not_sent_to_another_server() -> None:
    server = Server(httpx2.Response(200, json=_completion(_call_message(), "tool_calls")), _text("Sunny.", False))
    first = toolwire.run_sync(_model(server, OPENROUTER, False), "Weather in Paris?", tools=[lookup])
    other = Server(_text("ok", False))
    toolwire.run_sync(
        _model(other, "http://127.0.0.1:8080/v1", False), "more", conversation=first.conversation, tools=[lookup]
    )
    assistant = other.bodies[0]["messages"][1]
    assert "reasoning_details" not in assistant and "extra_content" not in assistant["tool_calls"][0]
    assert assistant["tool_calls"][0]["id"] == "tool_0"


def test_a_saved_conversation_keeps_them() -> None:
    server = Server(httpx2.Response(200, json=_completion(_call_message(), "tool_calls")), _text("Sunny.", False))
    first = toolwire.run_sync(_model(server, OPENROUTER, False), "Weather in Paris?", tools=[lookup])
    loaded = toolwire.Conversation.from_dict(json.loads(json.dumps(first.conversation.to_dict())))
    again = Server(_text("ok", False))
    toolwire.run_sync(_model(again, OPENROUTER, False), "more", conversation=loaded, tools=[lookup])
    assert again.bodies[0]["messages"][1]["reasoning_details"] == DETAILS


def test_litellm_thinking_blocks_go_back_too() -> None:
    blocks = [{"type": "thinking", "thinking": "Check Paris.", "signature": "EqQBCkYIBxgC"}]
    message = {**_call_message(), "thinking_blocks": blocks}
    del message["reasoning_details"]
    server = Server(httpx2.Response(200, json=_completion(message, "tool_calls")), _text("Sunny.", False))
    toolwire.run_sync(_model(server, "http://localhost:4000", False), "Weather in Paris?", tools=[lookup])
    assistant = server.bodies[1]["messages"][1]
    assert assistant["thinking_blocks"] == blocks and "reasoning_details" not in assistant


def test_codec_decode_stream_records_the_server_too() -> None:
    """The codec's own ``decode_stream`` (used to decode recorded streams) marks what it decodes
    with the codec's server, as the model's streamed path does, so it goes back to that server."""
    from toolwire.adapter import ModelRequest
    from toolwire.stream import StreamAssembler
    from toolwire.types import Message

    model = _model(Server(), OPENROUTER, True)
    codec = model.codec
    assert codec.origin is not None  # set from base_url
    chunks = [json.loads(line[6:]) for line in _streamed_call().text.splitlines() if line.startswith("data: {")]
    asm = StreamAssembler("openai-chat")
    for ev in codec.decode_stream(chunks):
        asm.feed(ev)
    message = asm.response().to_message()
    body = codec.encode_request(ModelRequest("google/gemini-3-flash-preview", [Message.user("hi"), message]))
    assistant = body["messages"][1]
    assert assistant["reasoning_details"] == DETAILS
    assert assistant["tool_calls"][0]["extra_content"] == EXTRA
