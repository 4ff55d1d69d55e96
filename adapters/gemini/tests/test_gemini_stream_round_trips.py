"""Streamed and non-streamed decoding of the same Gemini content give the same normalised
response and the same next request."""

from __future__ import annotations

from typing import Any

import pytest
from toolwire_gemini import GeminiCodec

from toolwire.adapter import ModelRequest
from toolwire.stream import assemble
from toolwire.tools import Tool
from toolwire.types import Message, Response, ToolResult
from toolwire.wire import check_tool_calls

CODEC = GeminiCodec()
NEWS = Tool.from_schema("news", "News.", {"type": "object", "properties": {}})
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


def _request() -> ModelRequest:
    return ModelRequest(model="gemini-2.5-flash", messages=[Message.user("hi")], tools=[NEWS])


def _chunk(
    parts: list[dict[str, Any]], finish: str | None = None, usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    chunk: dict[str, Any] = {"candidates": [cand], "responseId": "r1", "modelVersion": "gemini-2.5-flash"}
    if usage:
        chunk["usageMetadata"] = usage
    return chunk


def _streamed(parts: list[dict[str, Any]]) -> Response:
    chunks = [_chunk([p]) for p in parts[:-1]] + [_chunk(parts[-1:], "STOP", USAGE)]
    return check_tool_calls(assemble(CODEC.decode_stream(chunks, _request()), "gemini"))


def _next_body(response: Response) -> dict[str, Any]:
    messages = [*_request().messages, response.to_message()]
    if response.tool_calls:
        messages.append(Message("user", [ToolResult(c.id, "ok", name=c.name) for c in response.tool_calls]))
    else:
        messages.append(Message.user("and now?"))
    return CODEC.encode_request(ModelRequest(model="gemini-2.5-flash", messages=messages, tools=[NEWS]))


@pytest.mark.parametrize(
    "parts",
    [
        # an empty text part closing a turn (Gemini 2.5 sends one after a call, streamed or not)
        [{"text": "Let me look."}, {"functionCall": {"name": "news", "args": {}}}, {"text": ""}],
        # an answer of only an empty text part
        [{"text": ""}],
    ],
    ids=["after-a-call", "only"],
)
def test_an_empty_text_part_decodes_and_goes_back_the_same_streamed_or_not(parts: list[dict[str, Any]]) -> None:
    whole = CODEC.decode_response(_chunk(parts, "STOP", USAGE), _request())
    streamed = _streamed(parts)
    assert whole.parts == streamed.parts
    assert (whole.stop_reason, whole.vendor_stop_reason) == (streamed.stop_reason, streamed.vendor_stop_reason)
    assert _next_body(whole) == _next_body(streamed)
