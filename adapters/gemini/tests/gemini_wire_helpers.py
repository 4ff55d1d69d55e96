"""Helpers for the Gemini adapter tests: the real ``google-genai`` SDK with only the network
replaced by ``httpx2.MockTransport``.

``mock_model(handler, **settings)`` builds a :class:`GeminiModel` whose ``http_client`` is an
``httpx2.AsyncClient`` over a ``MockTransport``; every outgoing request is recorded on
``model.sent`` (method, URL, headers, parsed JSON body). The helpers build response bodies in
the exact Gemini REST format (camelCase, ``candidates[0].content.parts``, ``usageMetadata``).
"""

from __future__ import annotations

import json
from typing import Any

import httpx2


class Sent:
    def __init__(self, request: httpx2.Request) -> None:
        self.method = request.method
        self.url = str(request.url)
        self.headers = dict(request.headers)
        self.json = json.loads(request.content) if request.content else None


def candidate_body(
    parts: list[dict[str, Any]],
    finish: str | None = "STOP",
    usage: dict[str, Any] | None = None,
    response_id: str | None = "resp-A1",
    model: str = "gemini-2.5-flash",
) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish is not None:
        cand["finishReason"] = finish
    body: dict[str, Any] = {
        "candidates": [cand],
        "usageMetadata": usage or {"promptTokenCount": 40, "candidatesTokenCount": 12, "totalTokenCount": 52},
        "modelVersion": model,
    }
    if response_id is not None:
        body["responseId"] = response_id
    return body


def json_response(body: Any, status: int = 200) -> httpx2.Response:
    return httpx2.Response(
        status, headers={"content-type": "application/json; charset=UTF-8"}, text=json.dumps(body, ensure_ascii=False)
    )


def sse_response(chunks: list[dict[str, Any]]) -> httpx2.Response:
    """``alt=sse`` framing as the Gemini API sends it: ``data: <json>`` then ``\\r\\n\\r\\n``."""
    text = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\r\n\r\n" for c in chunks)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def error_response(code: int, status: str, message: str) -> httpx2.Response:
    return json_response({"error": {"code": code, "message": message, "status": status}}, status=code)
