"""The usage of a request toolwire retried, on all four APIs, through the real SDKs with only the
network replaced (``httpx2.MockTransport``): a turn's usage is the attempt that answered, alone;
a failed attempt counts no token and no request anywhere (the turn, ``RunResult.usage``,
``RunState.usage``, the cost); what it had reported goes with its ``RetryScheduled`` event or
its error (``usage``)."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import events as ev
from toolwire.errors import ProviderError
from toolwire.types import Usage

sys.path.insert(0, str(Path(__file__).parent))
from test_events_all_apis import TEXT2, _sse, get_weather, streamed, whole
from test_retry_attempts import Server, _busy, _events_until_error, _model, _run_stream
from test_stream_hostile import _error, _first_delta, _opening

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

APIS = ["anthropic", "openai-chat", "openai", "gemini"]


def _opening_reporting(api: str, input_tokens: int) -> list[tuple[str | None, Any]]:
    """The events that open ``api``'s stream (``_opening``), reporting ``input_tokens`` where the
    API reports usage that early."""
    events = copy.deepcopy(_opening(api))
    if api == "anthropic":
        events[0][1]["message"]["usage"] = {"input_tokens": input_tokens, "output_tokens": 1}
    elif api == "gemini":
        events[0][1]["usageMetadata"] = {"promptTokenCount": input_tokens}
    return events


def _reported(api: str, input_tokens: int) -> tuple[int | None, int | None] | None:
    """(input, output) tokens a failed attempt of ``_opening_reporting(api, input_tokens)``
    reported, ``None`` for an API that reports nothing that early."""
    if api == "anthropic":
        return (input_tokens, 1)
    if api == "gemini":
        return (input_tokens, None)
    return None


def _counts(usage: Usage | None) -> tuple[int | None, int | None] | None:
    return None if usage is None else (usage.input_tokens, usage.output_tokens)


@pytest.mark.parametrize("api", APIS)
def test_a_stream_failing_every_attempt_counts_no_tokens_and_its_error_carries_them(api: str) -> None:
    attempts = [_sse([*_opening_reporting(api, 100 + k), _error(api)]) for k in (1, 2, 3)]
    server = Server(*attempts)
    events, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is not None and server.requests == 3
    state = stream.state
    # the failed turn keeps what arrived (nothing here) and counts nothing
    assert [t.interrupted for t in state.turns] == ["failed"]
    assert state.turns[0].usage == Usage(input_tokens=0, output_tokens=0, requests=0)
    assert (state.usage.input_tokens, state.usage.output_tokens, state.usage.requests) == (0, 0, 0)
    assert exc.run_state is state
    # the counts each failed attempt reported: the retried ones on their events, the last on the error
    retries = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert [_counts(r.usage) for r in retries] == [_reported(api, 101), _reported(api, 102)]
    assert _counts(exc.usage) == _reported(api, 103)
    if exc.usage is not None:
        assert exc.usage.requests == 1


@pytest.mark.parametrize("api", APIS)
def test_a_stream_failing_after_part_of_its_answer_keeps_the_text_and_counts_no_tokens(api: str) -> None:
    server = Server(_sse([*_opening_reporting(api, 77), *_first_delta(api), _error(api)]))
    events, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is not None and exc.retryable and server.requests == 1
    turn = stream.state.turns[0]
    assert (turn.interrupted, turn.response.text) == ("failed", "It is")
    assert turn.usage == Usage(input_tokens=0, output_tokens=0, requests=0)
    assert stream.state.usage.total_tokens == 0 and stream.state.usage.requests == 0
    assert _counts(exc.usage) == _reported(api, 77)


@pytest.mark.parametrize("api", APIS)
def test_a_retried_stream_counts_the_attempt_that_answered_alone(api: str) -> None:
    server = Server(_sse([*_opening_reporting(api, 500), _error(api)]), streamed(api, 2))
    events, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is None and server.requests == 2
    result = stream.result
    assert result.text == TEXT2 and len(result.turns) == 1
    usage = result.turns[0].usage
    assert (usage.input_tokens, usage.output_tokens, usage.requests) == (20, 7, 1)
    assert result.usage == usage  # no double count: the run's total is the one answer's
    assert [_counts(e.usage) for e in events if isinstance(e, ev.RetryScheduled)] == [_reported(api, 500)]


@pytest.mark.parametrize("api", APIS)
def test_unstreamed_retries_count_the_attempt_that_answered_alone(api: str) -> None:
    server = Server(_busy, whole(api, 2))
    events, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=False)))
    assert exc is None and server.requests == 2
    result = stream.result
    usage = result.turns[0].usage
    assert (usage.input_tokens, usage.output_tokens, usage.requests) == (20, 7, 1)
    assert result.usage == usage
    retries = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert [(r.attempt, r.usage) for r in retries] == [(2, None)]  # an HTTP error reports no usage


def test_a_resumed_run_prices_tool_results_against_the_turn_that_answered() -> None:
    """The turn that failed counts nothing and its request is not in the conversation: the
    tokens a tool result added are measured against the next turn that answered."""
    api = "anthropic"
    first = _model(
        api,
        Server(streamed(api, 1), _sse([*_opening_reporting(api, 999), *_first_delta(api), _error(api)])),
        stream=True,
    )
    with pytest.raises(ProviderError) as info:
        asyncio.run(toolwire.run(first, "Weather?", tools=[get_weather]))
    state = info.value.run_state
    assert state is not None and [t.interrupted for t in state.turns] == [None, "failed"]
    again = _model(api, Server(streamed(api, 2)), stream=True)
    result = asyncio.run(toolwire.run(again, tools=[get_weather], resume=state))
    assert [t.interrupted for t in result.turns] == [None, "failed", None]
    assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.requests) == (30, 14, 2)
    (tool,) = result.cost.tool_calls
    # turn 3 read 20 input tokens: turn 1's 10, its 7 output tokens and 3 for the tool result
    assert (tool.tokens, tool.requests) == (3, 1)


def test_a_cut_stream_in_a_run_counts_no_tokens_and_its_error_carries_them() -> None:
    api = "anthropic"
    server = Server(_sse([*_opening_reporting(api, 42), *_first_delta(api)]))  # no message_stop: cut off
    _, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is not None and _counts(exc.usage) == (42, 1)
    turn = stream.state.turns[0]
    assert (turn.interrupted, turn.response.text, turn.usage.total_tokens, turn.usage.requests) == (
        "failed",
        "It is",
        0,
        0,
    )


def test_the_usage_on_the_error_survives_pickle() -> None:
    server = Server(*[_sse([*_opening_reporting("anthropic", 5), _error("anthropic")]) for _ in range(3)])
    with pytest.raises(ProviderError) as info:
        _run_stream(_model("anthropic", server, stream=True))
    back = pickle.loads(pickle.dumps(info.value))
    assert (back.attempts, _counts(back.usage), back.usage.requests) == (3, (5, 1), 1)
    json.dumps(back.usage.to_dict())  # plain counts
