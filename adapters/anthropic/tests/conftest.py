"""Fixtures for the Anthropic adapter tests: the real SDK with only the network replaced.

``mock_model(handler, **settings)`` builds an :class:`AnthropicModel` whose ``http_client`` is an
``httpx2.AsyncClient`` over ``httpx2.MockTransport``; every outgoing request is recorded (method,
URL, headers, JSON body) on ``model.sent``. Handlers return ``httpx2.Response`` objects; the
helpers below build bodies in the exact Anthropic wire format.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import httpx2
import pytest
from toolwire_anthropic import AnthropicModel


def sse_text(events: list[dict[str, Any]]) -> str:
    """SSE text as Anthropic sends it: ``event: <type>`` then ``data: <json>``, blank line after."""
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def sse_response(events: list[dict[str, Any]], status: int = 200) -> httpx2.Response:
    return httpx2.Response(status, headers={"content-type": "text/event-stream; charset=utf-8"}, text=sse_text(events))


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.Response(
        status, headers={"content-type": "application/json", **(headers or {})}, text=json.dumps(body)
    )


def message_body(
    content: list[dict[str, Any]],
    stop_reason: str = "end_turn",
    usage: dict[str, Any] | None = None,
    model: str = "claude-sonnet-4-5-20250929",
    msg_id: str = "msg_01TEST",
) -> dict[str, Any]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage
        or {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    }


def error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}, "request_id": "req_011TEST"}


class Sent:
    def __init__(self, request: httpx2.Request) -> None:
        self.method = request.method
        self.url = str(request.url)
        self.headers = dict(request.headers)
        raw = request.content
        self.json = json.loads(raw) if raw else None


@pytest.fixture
def mock_model() -> Callable[..., AnthropicModel]:
    def make(
        handler: Callable[[httpx2.Request], httpx2.Response] | list[httpx2.Response], **settings: Any
    ) -> AnthropicModel:
        sent: list[Sent] = []
        queue = list(handler) if isinstance(handler, list) else None

        def respond(request: httpx2.Request) -> httpx2.Response:
            sent.append(Sent(request))
            if queue is not None:
                return queue.pop(0)
            return handler(request)  # type: ignore[operator]

        settings.setdefault("api_key", "sk-ant-test")
        settings.setdefault("max_retries", 0)
        model = AnthropicModel(
            settings.pop("model_id", "claude-sonnet-4-5"),
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
            **settings,
        )
        model.sent = sent  # type: ignore[attr-defined]
        return model

    return make


class Wire:
    """The wire-format builders above, handed to tests as the ``wire`` fixture."""

    sse_text = staticmethod(sse_text)
    sse_response = staticmethod(sse_response)
    json_response = staticmethod(json_response)
    message_body = staticmethod(message_body)
    error_body = staticmethod(error_body)


@pytest.fixture
def wire() -> type[Wire]:
    return Wire
