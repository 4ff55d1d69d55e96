"""A stream cut before any part of its answer, on all four APIs, through the real SDKs with only
the network replaced (``httpx2.MockTransport``): a stream that stops after only the events that
open it — it ends early, the connection drops (``httpx2.ReadError``) or the peer closes it
mid-body (``httpx2.RemoteProtocolError``) — is sent again inside a run, as a failure before the
first byte is; the failed attempt's counts go with its ``RetryScheduled`` event or its error,
into no total. A stream cut after text or tool-call arguments is not retried."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

import toolwire
from toolwire import events as ev
from toolwire.errors import ProviderError

sys.path.insert(0, str(Path(__file__).parent))
from test_events_all_apis import TEXT2, _sse, get_weather, streamed
from test_retry_attempts import Server, _events_until_error, _model
from test_retry_usage import _counts, _opening_reporting, _reported
from test_stream_hostile import _first_delta, _opening

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

APIS = ["anthropic", "openai-chat", "openai", "gemini"]


class _CutBody(httpx2.AsyncByteStream):
    """A body that sends ``data`` and then fails with ``exc`` (the connection dropped)."""

    def __init__(self, data: bytes, exc: Exception) -> None:
        self.data, self.exc = data, exc

    async def __aiter__(self) -> Any:
        yield self.data
        raise self.exc

    async def aclose(self) -> None:
        pass


def _ended(data: bytes) -> Callable[[], Any]:
    """The stream ends cleanly after ``data``: no vendor end event."""
    return lambda: httpx2.Response(200, content=data, headers={"content-type": "text/event-stream"})


def _read_error(data: bytes) -> Callable[[], Any]:
    return lambda: httpx2.Response(
        200,
        stream=_CutBody(data, httpx2.ReadError("connection reset by peer")),
        headers={"content-type": "text/event-stream"},
    )


def _peer_closed(data: bytes) -> Callable[[], Any]:
    exc = httpx2.RemoteProtocolError(
        "peer closed connection without sending complete message body (incomplete chunked read)"
    )
    return lambda: httpx2.Response(200, stream=_CutBody(data, exc), headers={"content-type": "text/event-stream"})


CUTS: dict[str, Callable[[bytes], Callable[[], Any]]] = {
    "ended": _ended,
    "read_error": _read_error,
    "peer_closed": _peer_closed,
}


def _call_arguments(api: str) -> list[tuple[str | None, Any]]:
    """The start of a tool call and its first arguments fragment (Gemini: the whole call, as
    Gemini streams it, without a ``finishReason``)."""
    if api == "anthropic":
        block = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
        delta = {"type": "input_json_delta", "partial_json": '{"ci'}
        return [
            ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": delta}),
        ]
    if api == "openai-chat":
        head = {"id": "c0", "object": "chat.completion.chunk", "created": 1, "model": "m-0"}
        start = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
        more = {"index": 0, "function": {"arguments": '{"ci'}}
        return [
            (None, {**head, "choices": [{"index": 0, "delta": {"tool_calls": [start]}}]}),
            (None, {**head, "choices": [{"index": 0, "delta": {"tool_calls": [more]}}]}),
        ]
    if api == "openai":
        item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": ""}
        return [
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
            (
                "response.function_call_arguments.delta",
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_1",
                    "output_index": 0,
                    "delta": '{"ci',
                },
            ),
        ]
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
    return [(None, {"candidates": [{"content": {"role": "model", "parts": [call]}, "index": 0}]})]


@pytest.mark.parametrize("cut", list(CUTS))
@pytest.mark.parametrize("api", APIS)
def test_a_stream_cut_after_its_opening_events_is_retried_in_a_run(api: str, cut: str) -> None:
    server = Server(CUTS[cut](_sse(_opening_reporting(api, 500))), streamed(api, 2))
    events, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is None and server.requests == 2
    result = stream.result
    assert result.text == TEXT2 and [t.interrupted for t in result.turns] == [None]
    usage = result.turns[0].usage
    assert (usage.input_tokens, usage.output_tokens, usage.requests) == (20, 7, 1)
    assert result.usage == usage  # the cut attempt counts nothing
    (retry,) = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert (retry.turn, retry.attempt) == (1, 2)
    assert _counts(retry.usage) == _reported(api, 500)  # what the cut attempt had reported
    if cut == "ended":
        assert "the event stream ended before the response was complete" in retry.error
    else:
        assert "connection error" in retry.error
    # nothing of the cut attempt reached the user: the first text is the answer's
    deltas = "".join(e.text for e in events if isinstance(e, ev.TextDelta))
    assert deltas == TEXT2


@pytest.mark.parametrize("api", APIS)
def test_a_plain_run_retries_a_stream_that_ended_after_its_opening_events(api: str) -> None:
    server = Server(_ended(_sse(_opening(api))), streamed(api, 2))
    result = asyncio.run(toolwire.run(_model(api, server, stream=True), "Weather?", tools=[get_weather]))
    assert server.requests == 2 and result.text == TEXT2 and result.usage.requests == 1


@pytest.mark.parametrize("api", APIS)
def test_a_stream_cut_after_its_opening_events_on_every_attempt_fails_after_them(api: str) -> None:
    server = Server(*[_ended(_sse(_opening_reporting(api, 100 + k))) for k in (1, 2, 3)])
    events, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is not None and server.requests == 3
    assert (exc.retryable, exc.attempts, exc.status) == (True, 3, None)
    assert "the event stream ended before the response was complete" in str(exc)
    assert str(exc).endswith("(retryable); failed after 3 attempts (max_attempts=3)")
    retries = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert [_counts(r.usage) for r in retries] == [_reported(api, 101), _reported(api, 102)]
    assert _counts(exc.usage) == _reported(api, 103)
    state = stream.state
    assert [t.interrupted for t in state.turns] == ["failed"]
    assert (state.usage.total_tokens, state.usage.requests) == (0, 0)


@pytest.mark.parametrize("api", APIS)
def test_the_model_s_own_send_stream_retries_a_stream_that_ended_after_its_opening_events(api: str) -> None:
    from toolwire.adapter import collect_stream

    server = Server(_ended(_sse(_opening(api))), streamed(api, 2))
    model = _model(api, server, stream=True)

    async def go() -> Any:
        request = model.build_request([toolwire.Message.user("hi")])
        return await collect_stream(model.send_stream(request), api)

    response = asyncio.run(go())
    assert server.requests == 2 and response.text == TEXT2 and response.stop_reason == "end_turn"


@pytest.mark.parametrize("cut", list(CUTS))
@pytest.mark.parametrize("part", ["text", "tool_call"])
@pytest.mark.parametrize("api", APIS)
def test_a_stream_cut_after_part_of_its_answer_is_not_retried(api: str, part: str, cut: str) -> None:
    answered = _first_delta(api) if part == "text" else _call_arguments(api)
    server = Server(CUTS[cut](_sse([*_opening_reporting(api, 77), *answered])), streamed(api, 2))
    _, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is not None and server.requests == 1
    assert (exc.retryable, exc.attempts) == (True, 1)
    if cut == "ended":
        assert "(retryable); not retried: its events had already been streamed; the run's state keeps what " in str(exc)
        assert str(exc).endswith(
            "(the error's run_state, or stream.state): continue the run with run(model, tools=..., resume=that state), "
            "which asks the model again"
        )
    else:
        assert str(exc).endswith(
            "(retryable); not retried: part of the answer had already been streamed (what arrived cannot be taken "
            "back: send the request again for a whole answer; in a run, resume from the error's run_state)"
        )
    assert _counts(exc.usage) == _reported(api, 77)
    turn = stream.state.turns[0]
    assert turn.interrupted == "failed" and (turn.usage.total_tokens, turn.usage.requests) == (0, 0)
    if part == "text":
        assert turn.response.text == "It is"


def test_a_retried_cut_is_not_an_error_raised_through_the_sdk_s_retries() -> None:
    """The vendor SDK's own retries stay off: the cut attempt is sent again by toolwire alone,
    once per retry the policy allows (``max_retries=0``: not at all)."""
    api = "anthropic"
    server = Server(_ended(_sse(_opening(api))), streamed(api, 2))
    _, _, exc = asyncio.run(_events_until_error(_model(api, server, stream=True, max_retries=0)))
    assert isinstance(exc, ProviderError) and server.requests == 1
    assert str(exc).endswith("(retryable); not retried: max_attempts=1")


@pytest.mark.parametrize("body", [b"", b": keep-alive\n\n", b"\n\n"], ids=["empty", "comment", "blank"])
@pytest.mark.parametrize("api", APIS)
def test_a_stream_that_ends_before_its_first_event_is_retried(api: str, body: bytes) -> None:
    """A 200 event stream with no event at all (the server closed it after the headers, or
    after a keep-alive comment) is a stream cut before any part of its answer: retried, as the
    cut after the opening events is. It was a ResponseDecodeError, never retried."""
    server = Server(_ended(body), streamed(api, 2))
    events, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is None and server.requests == 2
    assert stream.result.text == TEXT2
    (retry,) = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert "the event stream ended before its first event" in retry.error
    assert retry.usage is None


@pytest.mark.parametrize("api", APIS)
def test_a_stream_without_any_event_on_every_attempt_fails_retryable(api: str) -> None:
    server = Server(*[_ended(b": keep-alive\n\n") for _ in range(3)])
    result_events, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is not None and server.requests == 3
    assert (exc.retryable, exc.attempts, exc.status, exc.usage) == (True, 3, None, None)
    assert "the event stream ended before its first event (14 bytes read)" in str(exc)
    assert str(exc).endswith("failed after 3 attempts (max_attempts=3)")
