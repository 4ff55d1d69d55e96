"""Helpers for the OpenAI adapter tests: the real ``openai`` SDK with only the network replaced.

``chat_model(handler, **settings)`` / ``responses_model(handler, **settings)`` build models whose
``http_client`` is an ``httpx2.AsyncClient`` over ``httpx2.MockTransport``; every outgoing request
is recorded on ``model.sent`` (method, URL, headers, parsed JSON body). Handlers return
``httpx2.Response`` objects; the helpers below write bodies in the exact OpenAI wire format.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import httpx2


class Sent:
    def __init__(self, request: httpx2.Request) -> None:
        self.method = request.method
        self.url = str(request.url)
        self.headers = dict(request.headers)
        raw = request.content
        self.json = json.loads(raw) if raw else None


class Server:
    """A MockTransport handler answering each request with the next of ``answers`` and keeping
    every JSON body sent (``bodies``)."""

    def __init__(self, *answers: httpx2.Response) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return self.answers.pop(0)


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.Response(
        status, headers={"content-type": "application/json", **(headers or {})}, text=json.dumps(body)
    )


def chat_sse(chunks: list[dict[str, Any]], done: bool = True) -> httpx2.Response:
    """Chat Completions SSE: ``data: <chunk>`` blocks, then ``data: [DONE]``."""
    text = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks) + (
        "data: [DONE]\n\n" if done else ""
    )
    return httpx2.Response(200, headers={"content-type": "text/event-stream; charset=utf-8"}, text=text)


def responses_sse(events: list[dict[str, Any]]) -> httpx2.Response:
    """Responses SSE: ``event: <type>`` then ``data: <json>`` per event."""
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events)
    return httpx2.Response(200, headers={"content-type": "text/event-stream; charset=utf-8"}, text=text)


def completion(
    message: dict[str, Any],
    finish_reason: str = "stop",
    usage: dict[str, Any] | None = None,
    model: str = "gpt-4o-2024-08-06",
    cid: str = "chatcmpl-TEST1",
) -> dict[str, Any]:
    """A ``ChatCompletion`` body with one choice."""
    return {
        "id": cid,
        "object": "chat.completion",
        "created": 1747163251,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "refusal": None, "annotations": [], **message},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": usage
        or {
            "prompt_tokens": 50,
            "completion_tokens": 12,
            "total_tokens": 62,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_test",
    }


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def response_body(
    output: list[dict[str, Any]],
    status: str = "completed",
    incomplete: str | None = None,
    usage: dict[str, Any] | None = None,
    rid: str = "resp_TEST1",
    model: str = "gpt-5.5-2026-04-23",
) -> dict[str, Any]:
    """A Responses ``Response`` body."""
    return {
        "id": rid,
        "object": "response",
        "created_at": 1760000000,
        "status": status,
        "error": None,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage
        or {
            "input_tokens": 80,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 100,
        },
    }


def fc_item(call_id: str, name: str, arguments: str, item_id: str) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "function_call",
        "status": "completed",
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
    }


def _make(cls: type, handler: Callable[[httpx2.Request], httpx2.Response], settings: dict[str, Any]) -> Any:
    sent: list[Sent] = []

    def wrapped(request: httpx2.Request) -> httpx2.Response:
        sent.append(Sent(request))
        return handler(request)

    settings.setdefault("api_key", "sk-test")
    settings.setdefault("max_retries", 0)
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(wrapped))
    model = cls(settings.pop("model_id", "gpt-4o"), http_client=client, **settings)
    model.sent = sent
    return model
