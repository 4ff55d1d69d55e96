"""One SDK client per event loop, closed on its own loop: a model used by ``run_sync`` from two
threads, then by ``asyncio.run``, then by ``run_sync`` again, over a loopback HTTP server (a
real connection pool), against the real SDKs.

Before, the model had one client at a time; the replaced one was garbage-collected while another
loop ran and the SDK's ``AsyncHttpxClientWrapper.__del__`` scheduled its ``aclose()`` there:
"Task exception was never retrieved ... RuntimeError: Event loop is closed" on stderr (and,
with ``-W error``, unclosed-socket ResourceWarnings). Nothing failed, but every loop switch
logged it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
from typing import Any

import pytest

import toolwire
from toolwire._sync import run_coroutine

SERVER = textwrap.dedent(
    """
    import http.server, json, socketserver, threading

    ANTHROPIC = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "stop_sequence": None,
                 "usage": {"input_tokens": 1, "output_tokens": 1}}
    GEMINI = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}],
              "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
    RESPONSES = {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5", "status": "completed",
                 "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                             "content": [{"type": "output_text", "text": "hi", "annotations": []}]}],
                 "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                 "usage": {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
                           "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the pool keeps the connection between runs

        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            p = self.path
            body = json.dumps(ANTHROPIC if "messages" in p else GEMINI if "generateContent" in p else RESPONSES)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    def serve():
        server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server.server_address[1]
    """
)

SCRIPT = SERVER + textwrap.dedent(
    """
    import asyncio, gc, sys, threading
    import toolwire

    port = serve()
    provider = sys.argv[1]
    base = f"http://127.0.0.1:{port}" + ("/v1" if provider.startswith("openai") else "")
    model = toolwire.model(provider, api_key="sk-test", base_url=base, max_retries=0, timeout=30)
    texts = [toolwire.run_sync(model, "Hi.").text]

    def other():
        texts.append(toolwire.run_sync(model, "Hi.").text)

    worker = threading.Thread(target=other)
    worker.start()
    worker.join(300)
    texts.append(toolwire.run_sync(model, "Hi.").text)
    texts.append(asyncio.run(toolwire.run(model, "Hi.")).text)
    texts.append(toolwire.run_sync(model, "Hi.").text)
    gc.collect()
    print(" ".join(texts))
    """
)


@pytest.mark.parametrize("provider", ["openai:gpt-5", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash"])
def test_switching_event_loops_logs_nothing(provider) -> None:
    done = subprocess.run(
        [sys.executable, "-W", "error::ResourceWarning", "-c", SCRIPT, provider],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hi"] * 5
    assert "Event loop is closed" not in done.stderr
    assert done.stderr == ""


@pytest.fixture
def loopback() -> Any:
    namespace: dict[str, Any] = {}
    exec(SERVER, namespace)
    return f"http://127.0.0.1:{namespace['serve']()}"


def test_each_loop_keeps_its_own_client_and_it_is_closed_when_the_loop_shuts_down(loopback) -> None:
    model = toolwire.model("anthropic:claude-sonnet-4-5", api_key="sk-test", base_url=loopback, max_retries=0)
    assert model._client is None  # outside a loop: nothing made yet

    async def client_of_this_loop() -> Any:
        await toolwire.run(model, "Hi.")
        return model._client

    assert toolwire.run_sync(model, "Hi.").text == "hi"
    first = run_coroutine(client_of_this_loop())
    seen: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: seen.update(client=run_coroutine(client_of_this_loop())))
    worker.start()
    worker.join(300)
    # the thread had a client of its own, closed when its loop shut down with the thread
    assert seen["client"] is not first and seen["client"].is_closed()
    # back on the first thread's loop: its own client again, not a new one
    assert run_coroutine(client_of_this_loop()) is first and not first.is_closed()
    # asyncio.run: a client for that loop, closed by asyncio.run's shutdown_asyncgens
    made = asyncio.run(client_of_this_loop())
    assert made is not first and made.is_closed() and not first.is_closed()
    # aclose() on a loop closes that loop's client; the next run there makes a new one
    run_coroutine(model.aclose())
    assert first.is_closed()
    again = run_coroutine(client_of_this_loop())
    assert again is not first and not again.is_closed()
    run_coroutine(model.aclose())
    assert again.is_closed()


def test_a_passed_http_client_is_one_object_and_never_closed_by_toolwire(loopback) -> None:
    import httpx2

    http_client = httpx2.AsyncClient()
    model = toolwire.model(
        "anthropic:claude-sonnet-4-5", api_key="sk-test", base_url=loopback, max_retries=0, http_client=http_client
    )

    async def client_of_this_loop() -> Any:
        await toolwire.run(model, "Hi.")
        return model._client

    async def twice() -> tuple[Any, Any]:
        return await client_of_this_loop(), await client_of_this_loop()

    first, second = asyncio.run(twice())  # asyncio.run shuts its loop down at the end
    assert first is second and not http_client.is_closed  # the caller's client belongs to the caller
    assert "_loop_clients" not in vars(model)


HAND_CLOSED = SERVER + textwrap.dedent(
    """
    import asyncio, gc, sys
    import toolwire

    port = serve()
    provider = sys.argv[1]
    base = f"http://127.0.0.1:{port}" + ("/v1" if provider.startswith("openai") else "")
    model = toolwire.model(provider, api_key="sk-test", base_url=base, max_retries=0, timeout=30)
    texts = []
    for _ in range(3):  # closed by hand, without loop.shutdown_asyncgens()
        loop = asyncio.new_event_loop()
        texts.append(loop.run_until_complete(toolwire.run(model, "Hi.")).text)
        loop.close()
        gc.collect()
    texts.append(asyncio.run(toolwire.run(model, "Hi.")).text)
    gc.collect()
    print(" ".join(texts))
    """
)


@pytest.mark.parametrize("provider", ["openai:gpt-5", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash"])
def test_a_loop_closed_by_hand_without_shutdown_asyncgens_closes_its_clients_first(provider) -> None:
    """``loop.close()`` without ``shutdown_asyncgens()``: the client made on that loop was left
    open and dropped on the next loop, where the SDK's ``__del__`` scheduled its ``aclose()``
    ("Task exception was never retrieved ... Event loop is closed", unclosed transports)."""
    done = subprocess.run(
        [sys.executable, "-W", "error::ResourceWarning", "-c", HAND_CLOSED, provider],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hi"] * 4
    assert "Event loop is closed" not in done.stderr
    assert done.stderr == ""


def test_a_hand_closed_loop_closes_the_client_made_on_it_and_keeps_its_close(loopback) -> None:
    model = toolwire.model("anthropic:claude-sonnet-4-5", api_key="sk-test", base_url=loopback, max_retries=0)

    async def client_of_this_loop() -> Any:
        await toolwire.run(model, "Hi.")
        return model._client

    loop = asyncio.new_event_loop()
    made = loop.run_until_complete(client_of_this_loop())
    again = loop.run_until_complete(client_of_this_loop())
    assert again is made and not made.is_closed()  # one client per loop, kept between runs
    loop.close()
    assert made.is_closed() and loop.is_closed()
    loop.close()  # closing twice stays a no-op
    # a loop shut down as asyncio.run does: the closer already ran, close() has nothing left
    other = asyncio.new_event_loop()
    second = other.run_until_complete(client_of_this_loop())
    other.run_until_complete(other.shutdown_asyncgens())
    assert second.is_closed() and second is not made
    other.close()
    assert other.is_closed()


AT_EXIT = SERVER + textwrap.dedent(
    """
    import atexit, sys
    import toolwire

    port = serve()
    provider = sys.argv[1]
    base = f"http://127.0.0.1:{port}" + ("/v1" if provider.startswith("openai") else "")
    model = toolwire.model(provider, api_key="sk-test", base_url=base, max_retries=0, timeout=30)
    print(toolwire.run_sync(model, "Hi.").text)
    ((client, _),) = model.__dict__["_loop_clients"].values()
    print("open" if not client.is_closed() else "closed")
    atexit._run_exitfuncs()  # what the interpreter runs at exit, before tearing modules down
    print("open" if not client.is_closed() else "closed")
    """
)


@pytest.mark.parametrize("provider", ["openai:gpt-5", "anthropic:claude-sonnet-4-5"])
def test_the_main_threads_run_sync_loop_is_shut_down_at_exit_closing_its_clients(provider) -> None:
    """The main thread's run_sync loop is shut down at interpreter exit (atexit), so the model's
    pooled keep-alive connection is closed on it; before, it was left to module teardown, where
    it could be dropped unclosed ("unclosed <socket ...>" under ``-W error::ResourceWarning``)."""
    done = subprocess.run(
        [sys.executable, "-W", "error::ResourceWarning", "-c", AT_EXIT, provider],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hi", "open", "closed"]
    assert done.stderr == ""
