"""One answer per API, in each vendor's documented wire format, and a model of each API that
answers with canned answers; shared by the tests of this folder and others."""

from __future__ import annotations

import json
from typing import Any

APIS = ["anthropic", "openai-chat", "openai", "gemini"]

#: The model id :func:`mock_model` uses on each API.
MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai-chat": "gpt-4.1",
    "openai": "gpt-5",
    "gemini": "gemini-2.5-flash",
}


def mock_model(
    api: str, answers: list[dict[str, Any]], sent: list[dict[str, Any]], *, model_id: str | None = None, **settings: Any
) -> Any:
    """The model ``api:model_id`` (default ``MODELS[api]``) through the real vendor SDK, with API
    key ``"k"``, no retries and an ``httpx2.MockTransport`` that answers each request with the next
    of ``answers`` (JSON, status 200) and appends the request's JSON body to ``sent``; ``settings``
    go to ``toolwire.model``."""
    import httpx2

    import toolwire

    queue = list(answers)

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=queue.pop(0))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    model = f"{api}:{model_id or MODELS[api]}"
    return toolwire.model(model, api_key="k", max_retries=0, http_client=client, **settings)


def text_answer(api: str, text: str = "hello") -> dict[str, Any]:
    """A finished answer of ``api`` carrying ``text`` (a Messages ``Message``, a ``ChatCompletion``,
    a ``Response``, a ``GenerateContentResponse``), usage 3 in / 2 out."""
    if api == "anthropic":
        return {
            "id": "msg_01A",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 2},
        }
    if api == "openai-chat":
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-x",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
    if api == "openai":
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "gpt-x",
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
            "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
        }
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
        "modelVersion": "gemini-x",
    }
