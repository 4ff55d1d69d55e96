"""A streamed response is closed when its turn ends, fails or is stopped: on the run's own task,
before the run returns or raises, not left to the garbage collector.

Before, the byte stream under a streamed turn (the SDK's HTTP response and the generators reading
it) stayed suspended after a failed or stopped stream; it was finalized later, often after
``run_sync``'s loop had stopped or at interpreter exit ("Task was destroyed but it is pending",
"an error occurred during closing of asynchronous generator ... AsyncLibraryNotFoundError").
The vendor SDKs and their HTTP layer are real; only the network is replaced (a MockTransport
whose body is an async generator that records being closed, or a loopback HTTP server)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from typing import Any, AsyncIterator

import httpx2
import pytest

import toolwire
from toolwire.errors import ResponseDecodeError
from toolwire.events import TextDelta


def _chat_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n" if event else ""
    return (head + "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n").encode()


CHAT = [
    _sse(None, _chat_chunk({"role": "assistant", "content": "hi"})),
    _sse(None, _chat_chunk({"content": " there"})),
    _sse(None, _chat_chunk({}, "stop")) + b"data: [DONE]\n\n",
]
_MSG = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
ANTHROPIC = [
    _sse("message_start", {"type": "message_start", "message": _MSG})
    + _sse(
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    )
    + _sse(
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
    ),
    _sse(
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " there"}},
    ),
    _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
    + _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 2},
        },
    )
    + _sse("message_stop", {"type": "message_stop"}),
]
_RESP = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-4.1",
    "status": "in_progress",
    "output": [],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
}
_RESP_MSG = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
_RESP_PART = {"type": "output_text", "text": "", "annotations": []}
_RESP_DONE = {
    **_RESP,
    "status": "completed",
    "output": [
        {
            **_RESP_MSG,
            "status": "completed",
            "content": [{"type": "output_text", "text": "hi there", "annotations": []}],
        }
    ],
    "usage": {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 2,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 3,
    },
}


def _resp_delta(seq: int, text: str) -> bytes:
    return _sse(
        "response.output_text.delta",
        {
            "type": "response.output_text.delta",
            "sequence_number": seq,
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": text,
            "logprobs": [],
        },
    )


RESPONSES = [
    _sse("response.created", {"type": "response.created", "sequence_number": 0, "response": _RESP})
    + _sse(
        "response.output_item.added",
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": _RESP_MSG},
    )
    + _sse(
        "response.content_part.added",
        {
            "type": "response.content_part.added",
            "sequence_number": 2,
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "part": _RESP_PART,
        },
    )
    + _resp_delta(3, "hi"),
    _resp_delta(4, " there"),
    _sse("response.completed", {"type": "response.completed", "sequence_number": 5, "response": _RESP_DONE}),
]


def _gemini_chunk(text: str, finish: str | None = None) -> bytes:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}
    if finish:
        chunk["usageMetadata"] = {"promptTokenCount": 1, "candidatesTokenCount": 2, "totalTokenCount": 3}
    return _sse(None, chunk)


GEMINI = [_gemini_chunk("hi"), _gemini_chunk(" there"), _gemini_chunk("", "STOP")]
STREAMS = {
    "openai-chat:gpt-4.1": CHAT,
    "anthropic:claude-sonnet-4-5": ANTHROPIC,
    "openai:gpt-4.1": RESPONSES,
    "gemini:gemini-2.5-flash": GEMINI,
}


class Body:
    """A streamed HTTP body that records whether it was closed (its ``finally`` ran)."""

    def __init__(self, pieces: list[bytes], bad: bool = False) -> None:
        self.pieces = pieces
        self.bad = bad
        self.closed = False
        self.sent = 0

    async def __call__(self) -> AsyncIterator[bytes]:
        try:
            for i, piece in enumerate(self.pieces):
                if self.bad and i == 1:
                    yield b"data: {not json\n\n"
                self.sent += 1
                yield piece
        finally:
            self.closed = True


def _model(provider: str, body: Body) -> Any:
    def respond(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    return toolwire.model(
        provider,
        api_key="sk-test",
        max_retries=0,
        stream=True,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )


@pytest.mark.parametrize("provider", list(STREAMS))
def test_a_streamed_run_sync_closes_its_response_when_the_run_ends(provider) -> None:
    body = Body(STREAMS[provider])
    assert toolwire.run_sync(_model(provider, body), "go").text == "hi there"
    assert body.closed  # before run_sync returned: no garbage collection needed


@pytest.mark.parametrize("provider", list(STREAMS))
def test_a_streamed_run_that_fails_mid_stream_closes_its_response_before_raising(provider) -> None:
    body = Body(STREAMS[provider], bad=True)
    with pytest.raises(ResponseDecodeError, match="not JSON"):
        toolwire.run_sync(_model(provider, body), "go")
    assert body.closed and body.sent == 1  # stopped at the bad event, closed by the run


@pytest.mark.parametrize("provider", list(STREAMS))
def test_a_run_stream_stopped_after_its_first_delta_closes_the_response(provider) -> None:
    body = Body(STREAMS[provider])

    async def main() -> tuple[str, bool]:
        async with toolwire.run_stream(_model(provider, body), "go") as stream:
            async for ev in stream:
                if isinstance(ev, TextDelta):
                    break
            seen = ev.text
        return seen, body.closed

    seen, closed = asyncio.run(main())
    assert seen == "hi" and closed
    assert body.sent < len(body.pieces)  # it was stopped, not read to the end


FAILING_OVER_LOOPBACK = textwrap.dedent(
    """
    import http.server, json, socketserver, sys, threading
    import toolwire

    def chunk(delta, finish=None):
        return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            parts = ["data: " + json.dumps(chunk({"role": "assistant", "content": "hi"})), "data: {not json",
                     "data: " + json.dumps(chunk({}, "stop")), "data: [DONE]"]
            body = "".join(p + "\\n\\n" for p in parts).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    model = toolwire.model("openai-chat:gpt-4.1", api_key="sk-test", max_retries=0, stream=True,
                           base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", timeout=30)
    try:
        toolwire.run_sync(model, "go")
    except toolwire.errors.ResponseDecodeError as exc:
        print("raised", type(exc).__name__)
    """
)


def test_a_failed_streamed_run_sync_over_a_real_connection_logs_nothing_at_exit() -> None:
    done = subprocess.run(
        [sys.executable, "-W", "error::ResourceWarning", "-c", FAILING_OVER_LOOPBACK],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["raised", "ResponseDecodeError"]
    assert done.stderr == ""
