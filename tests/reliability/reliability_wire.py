"""Helpers for the reliability tests: the four vendors' documented wire formats (written here, not
copied from recordings) and a loopback HTTP server the real SDKs talk to over real sockets.

``Loopback(handler)`` runs an asyncio HTTP/1.1 server (keep-alive, Content-Length bodies) on
127.0.0.1 in a background thread; ``handler(method, path, headers, body_bytes)`` returns
``(status, content_type, body_bytes)``. ``model(api, base_url, **settings)`` builds a toolwire
model for one API pointed at it.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Callable

import toolwire

APIS = ["anthropic", "openai-chat", "openai", "gemini"]


def text_body(api: str, text: str = "done", n: int = 0) -> dict[str, Any]:
    if api == "anthropic":
        return {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 2},
        }
    if api == "openai-chat":
        return {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-x",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        }
    if api == "openai":
        return {
            "id": f"resp_{n}",
            "object": "response",
            "created_at": 1,
            "model": "gpt-x",
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": f"msg_{n}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
            "usage": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12},
        }
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
        "modelVersion": "gemini-x",
    }


def tool_body(api: str, calls: list[tuple[str, str, dict[str, Any]]], n: int = 0) -> dict[str, Any]:
    """A response asking for ``calls`` = [(call id, tool name, arguments)]."""
    if api == "anthropic":
        return {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "tool_use", "id": cid, "name": name, "input": args} for cid, name, args in calls],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    if api == "openai-chat":
        return {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-x",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                            for cid, name, args in calls
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
    if api == "openai":
        return {
            "id": f"resp_{n}",
            "object": "response",
            "created_at": 1,
            "model": "gpt-x",
            "status": "completed",
            "output": [
                {
                    "type": "function_call",
                    "id": f"fc_{cid}",
                    "call_id": cid,
                    "name": name,
                    "arguments": json.dumps(args),
                    "status": "completed",
                }
                for cid, name, args in calls
            ],
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        }
    return {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": name, "args": args}} for _cid, name, args in calls],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-x",
    }


def error_body(api: str, status: int, message: str) -> dict[str, Any]:
    if api == "anthropic":
        kind = {401: "authentication_error", 500: "api_error", 529: "overloaded_error"}.get(
            status, "invalid_request_error"
        )
        return {"type": "error", "error": {"type": kind, "message": message}}
    if api in ("openai-chat", "openai"):
        return {
            "error": {
                "message": message,
                "type": "invalid_request_error" if status < 500 else "server_error",
                "param": None,
                "code": "invalid_api_key" if status == 401 else None,
            }
        }
    return {"error": {"code": status, "message": message, "status": "UNAUTHENTICATED" if status == 401 else "INTERNAL"}}


def tool_results_in(api: str, body: dict[str, Any]) -> int:
    """How many tool results a request body carries (its conversation so far)."""
    if api == "anthropic":
        return sum(
            1
            for m in body.get("messages", [])
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        )
    if api == "openai-chat":
        return sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    if api == "openai":
        inp = body.get("input")
        return (
            sum(1 for it in inp if isinstance(it, dict) and it.get("type") == "function_call_output")
            if isinstance(inp, list)
            else 0
        )
    return sum(1 for c in body.get("contents", []) for p in c.get("parts", []) if "functionResponse" in p)


def path_of(api: str) -> str:
    return {"anthropic": "/v1/messages", "openai-chat": "/v1/chat/completions", "openai": "/v1/responses"}.get(
        api, ":generateContent"
    )


def model(api: str, base_url: str, **settings: Any) -> Any:
    settings.setdefault("api_key", "test-key-not-secret")
    settings.setdefault("max_retries", 0)
    if api in ("openai-chat", "openai"):
        return toolwire.model(f"{api}:gpt-x", base_url=base_url + "/v1", **settings)
    if api == "gemini":
        return toolwire.model("gemini:gemini-x", base_url=base_url, **settings)
    return toolwire.model("anthropic:claude-x", base_url=base_url, **settings)


Handler = Callable[[str, str, dict[str, str], bytes], "tuple[int, str, bytes]"]


class Loopback:
    """An HTTP/1.1 server on 127.0.0.1 (asyncio, one background thread). ``url`` is its base URL;
    ``requests`` counts the requests answered; use as a context manager."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests = 0
        self.peak_connections = 0
        self._open = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name="loopback-http", daemon=True)
        self.url = ""

    def __enter__(self) -> Loopback:
        self._thread.start()
        if not self._ready.wait(120):  # generous: a loaded machine starts threads slowly
            raise RuntimeError("the loopback server did not start within 120 s")
        return self

    def __exit__(self, *exc: Any) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(60)

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._serve())
        self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        self._tasks: set[asyncio.Task] = set()
        server = await asyncio.start_server(self._conn, "127.0.0.1", 0, backlog=4096)
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self._ready.set()
        async with server:
            await self._stop.wait()
            server.close()
            for t in list(self._tasks):
                t.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._open += 1
        self.peak_connections = max(self.peak_connections, self._open)
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    h = await reader.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
                status, ctype, data = self.handler(method, path, headers, body)
                self.requests += 1
                writer.write(
                    f"HTTP/1.1 {status} X\r\ncontent-type: {ctype}\r\ncontent-length: {len(data)}\r\n\r\n".encode()
                    + data
                )
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, asyncio.CancelledError):
            return
        finally:
            self._open -= 1
            self._tasks.discard(task)
            writer.close()
