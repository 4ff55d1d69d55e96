"""A malformed event in a stream, on all four APIs, through the real SDKs with only the network
replaced (``httpx2.MockTransport``): the ``ResponseDecodeError`` it raises carries the counts the
stream had reported before it (``usage``), as a failed attempt's ``ProviderError`` does; no
usage total counts them."""

from __future__ import annotations

import asyncio
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire.errors import ResponseDecodeError
from toolwire.types import Usage

sys.path.insert(0, str(Path(__file__).parent))
from test_events_all_apis import _sse, get_weather
from test_retry_attempts import Server, _model
from test_retry_usage import _counts, _opening_reporting
from test_stream_hostile import _first_delta, _opening

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
BAD = (None, "{this is not json")


def _reporting_then_bad(api: str) -> tuple[bytes, tuple[int | None, int | None] | None]:
    """A stream that reports usage, streams "It is", then sends an event that is not JSON; and the
    (input, output) counts reported before it (``None``: Responses reports usage only in its
    terminal event)."""
    if api == "openai-chat":  # usage in a content chunk, as servers with continuous usage send it
        head = {"id": "c0", "object": "chat.completion.chunk", "created": 1, "model": "m-0"}
        chunk = {
            **head,
            "choices": [{"index": 0, "delta": {"content": "It is"}}],
            "usage": {"prompt_tokens": 42, "completion_tokens": 2, "total_tokens": 44},
        }
        return _sse([*_opening(api), (None, chunk), BAD]), (42, 2)
    reported = {"anthropic": (42, 1), "gemini": (42, None), "openai": None}[api]
    return _sse([*_opening_reporting(api, 42), *_first_delta(api), BAD]), reported


def _responses_bad_after_usage() -> bytes:
    """A Responses stream whose ``response.completed`` (with its usage) is followed by an event
    that is not JSON."""
    base = {"id": "resp_0", "object": "response", "created_at": 1, "model": "m-0", "output": []}
    usage = {"input_tokens": 42, "output_tokens": 6, "total_tokens": 48}
    done = {"type": "response.completed", "response": {**base, "status": "completed", "usage": usage}}
    return _sse([*_opening("openai"), *_first_delta("openai"), ("response.completed", done), BAD])


def _cases() -> list[Any]:
    cases = [pytest.param(api, *_reporting_then_bad(api), id=api) for api in APIS]
    cases.append(pytest.param("openai", _responses_bad_after_usage(), (42, 6), id="openai-after-usage"))
    return cases


async def _run_stream(model: Any) -> tuple[Any, ResponseDecodeError]:
    stream = toolwire.run_stream(model, "Weather?", tools=[get_weather])
    with pytest.raises(ResponseDecodeError) as info:
        async for _ in stream:
            pass
    return stream, info.value


@pytest.mark.parametrize(("api", "body", "reported"), _cases())
def test_a_malformed_event_in_a_run_keeps_the_counts_reported_before_it(
    api: str, body: bytes, reported: tuple[int | None, int | None] | None
) -> None:
    server = Server(body, body)
    stream, exc = asyncio.run(_run_stream(_model(api, server, stream=True)))
    assert server.requests == 1  # never retried
    assert _counts(exc.usage) == reported
    if exc.usage is not None:
        assert exc.usage.requests == 1
    # counted in no total: the failed turn keeps its text and no tokens
    state = stream.state
    assert exc.run_state is state
    turn = state.turns[0]
    assert (turn.interrupted, turn.response.text) == ("failed", "It is")
    assert turn.usage == Usage(input_tokens=0, output_tokens=0, requests=0)
    assert (state.usage.total_tokens, state.usage.requests) == (0, 0)
    back = pickle.loads(pickle.dumps(exc))
    assert (str(back), _counts(back.usage)) == (str(exc), reported)


@pytest.mark.parametrize(("api", "body", "reported"), _cases())
def test_a_malformed_event_in_a_model_s_send_keeps_the_counts_reported_before_it(
    api: str, body: bytes, reported: tuple[int | None, int | None] | None
) -> None:
    from toolwire.adapter import collect_stream

    model = _model(api, Server(body, body), stream=True)
    request = model.build_request([toolwire.Message.user("hi")])
    with pytest.raises(ResponseDecodeError) as info:
        asyncio.run(model.send(request))
    assert _counts(info.value.usage) == reported
    with pytest.raises(ResponseDecodeError) as info:
        asyncio.run(collect_stream(model.send_stream(request), api))
    assert _counts(info.value.usage) == reported


def test_a_malformed_first_event_carries_no_usage() -> None:
    server = Server(_sse([BAD]))
    with pytest.raises(ResponseDecodeError) as info:
        asyncio.run(toolwire.run(_model("anthropic", server, stream=True), "hi"))
    assert info.value.usage is None
    assert "not json" in str(info.value).lower() or "json" in str(info.value)
