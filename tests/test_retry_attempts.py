"""The error that ends a request toolwire retried, on all four APIs, through the real SDKs with
only the network replaced (``httpx2.MockTransport``): ``attempts`` and its text say how many
attempts were made, or why a retryable error was not sent again, on every path (streamed or not,
sync or async, a run or the model's own ``send`` / ``send_stream``); the vendor's own fields are
kept."""

from __future__ import annotations

import asyncio
import pickle
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

import toolwire
from toolwire.errors import ProviderError

sys.path.insert(0, str(Path(__file__).parent))
from test_events_all_apis import TEXT2, _sse, get_weather, streamed
from test_stream_hostile import _error, _first_delta, _opening

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
NO_JITTER = {"initial_delay": 0.0, "jitter": 0.0}


def _busy() -> httpx2.Response:
    body = {"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE", "type": "overloaded_error"}}
    return httpx2.Response(503, json=body)


class Server:
    """Answers each request with the next answer: an ``httpx2.Response``, SSE bytes, a JSON body
    or a function making one; counts the requests."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.requests = 0

    def __call__(self, request: Any) -> Any:
        self.requests += 1
        answer = self.answers.pop(0)
        if callable(answer):
            answer = answer()
        if isinstance(answer, bytes):
            return httpx2.Response(200, content=answer, headers={"content-type": "text/event-stream"})
        if isinstance(answer, dict):
            return httpx2.Response(200, json=answer)
        return answer


def _model(api: str, server: Server, *, stream: bool, **settings: Any) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    settings.setdefault("retry", NO_JITTER)
    return toolwire.model(f"{api}:m-1", api_key="k", http_client=client, stream=stream, **settings)


async def _events_until_error(model: Any, **kwargs: Any) -> tuple[list[Any], Any, ProviderError | None]:
    stream = toolwire.run_stream(model, "Weather?", tools=[get_weather], **kwargs)
    got: list[Any] = []
    try:
        async for e in stream:
            got.append(e)
    except ProviderError as exc:
        return got, stream, exc
    return got, stream, None


# -- the final error -----------------------------------------------------------------------------


def _run(model: Any) -> Any:
    return asyncio.run(toolwire.run(model, "hi"))


def _run_sync(model: Any) -> Any:
    return toolwire.run_sync(model, "hi")


def _run_stream(model: Any) -> Any:
    async def go() -> Any:
        async with toolwire.run_stream(model, "hi") as stream:
            async for _ in stream:
                pass
        return stream.result

    return asyncio.run(go())


def _run_stream_sync(model: Any) -> Any:
    with toolwire.run_stream_sync(model, "hi") as stream:
        for _ in stream:
            pass
    return stream.result


def _send(model: Any) -> Any:
    return asyncio.run(model.send(model.build_request([toolwire.Message.user("hi")])))


def _send_stream(model: Any) -> Any:
    from toolwire.adapter import collect_stream

    async def go() -> Any:
        return await collect_stream(model.send_stream(model.build_request([toolwire.Message.user("hi")])), "x")

    return asyncio.run(go())


PATHS: dict[str, Callable[[Any], Any]] = {
    "run": _run,
    "run_sync": _run_sync,
    "run_stream": _run_stream,
    "run_stream_sync": _run_stream_sync,
    "send": _send,
    "send_stream": _send_stream,
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("api", APIS)
def test_the_last_error_says_how_many_attempts_failed(api: str, path: str, stream: bool) -> None:
    server = Server(_busy, _busy, _busy, _busy)
    model = _model(api, server, stream=stream)
    with pytest.raises(ProviderError) as info:
        PATHS[path](model)
    exc = info.value
    assert server.requests == 3
    assert (type(exc), exc.status, exc.retryable, exc.attempts) == (ProviderError, 503, True, 3)
    assert str(exc).endswith("(retryable); failed after 3 attempts (max_attempts=3)")
    assert "attempt" not in exc.message  # the vendor's own message is kept as it was
    if path.startswith("run"):
        state = exc.run_state
        assert state is not None and state.status == "failed"
        assert state.error == f"ProviderError: {exc}"


@pytest.mark.parametrize("api", APIS)
def test_a_stream_error_after_its_retries_says_how_many_attempts_failed(api: str) -> None:
    attempts = [_sse([*_opening(api), _error(api)]) for _ in range(4)]
    server = Server(*attempts)
    model = _model(api, server, stream=True, max_retries=3)
    with pytest.raises(ProviderError) as info:
        _run_stream_sync(model)
    assert server.requests == 4 and info.value.attempts == 4
    assert str(info.value).endswith("; failed after 4 attempts (max_attempts=4)")


def _chat(server: Server, **settings: Any) -> Any:
    return _model("openai-chat", server, stream=False, **settings)


def _error_json(status: int, message: str, etype: str, headers: dict[str, str] | None = None) -> Any:
    return lambda: httpx2.Response(status, json={"error": {"message": message, "type": etype}}, headers=headers)


def test_why_a_retryable_error_was_not_sent_again() -> None:
    # retries switched off
    with pytest.raises(ProviderError) as info:
        _run(_chat(Server(_busy), max_retries=0))
    assert info.value.attempts == 1 and str(info.value).endswith("(retryable); not retried: max_attempts=1")
    # a wait longer than the policy takes
    slow = _error_json(429, "quota", "rate_limit_exceeded", {"retry-after": "3600"})
    with pytest.raises(ProviderError) as info:
        _run(_chat(Server(slow)))
    assert info.value.attempts == 1
    assert str(info.value).endswith(
        "(retryable); not retried: the server asked to wait 3600 s, longer than max_retry_after=60 s"
    )
    # an error that is not retryable, after a retry
    server = Server(_busy, _error_json(400, "bad field", "invalid_request_error"))
    with pytest.raises(ProviderError) as info:
        _run(_chat(server))
    assert (info.value.status, info.value.attempts, server.requests) == (400, 2, 2)
    assert str(info.value).endswith(": bad field; failed after 2 attempts (this error is not retried)")


def test_an_error_that_is_not_retryable_keeps_its_text_on_the_first_attempt() -> None:
    with pytest.raises(ProviderError) as info:
        _run(_chat(Server(_error_json(400, "bad field", "invalid_request_error"))))
    assert info.value.attempts == 1
    assert str(info.value) == "openai-chat API error (HTTP 400, invalid_request_error): bad field"


@pytest.mark.parametrize("api", APIS)
def test_a_stream_error_after_part_of_the_answer_says_why_it_was_not_retried(api: str) -> None:
    server = Server(_sse([*_opening(api), _error(api)]), _sse([*_opening(api), *_first_delta(api), _error(api)]))
    _, _, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is not None and exc.attempts == 2 and server.requests == 2
    assert str(exc).endswith(
        "(retryable); failed after 2 attempts (part of the answer had already been streamed (what arrived cannot "
        "be taken back: send the request again for a whole answer; in a run, resume from the error's run_state))"
    )


def test_a_cut_stream_in_a_run_says_it_was_not_retried() -> None:
    api = "anthropic"
    server = Server(_sse([*_opening(api), *_first_delta(api)]))  # no message_stop: cut off
    _, stream, exc = asyncio.run(_events_until_error(_model(api, server, stream=True)))
    assert exc is not None and exc.attempts == 1 and server.requests == 1
    assert "the event stream ended before the response was complete" in str(exc)
    assert "(retryable); not retried: its events had already been streamed; the run's state keeps what " in str(exc)
    assert str(exc).endswith(
        "(the error's run_state, or stream.state): continue the run with run(model, tools=..., resume=that state), "
        "which asks the model again"
    )
    turn = stream.state.turns[0]
    assert (turn.interrupted, turn.response.text) == ("failed", "It is")
    # the advice works: resumed from that state, the run asks the model again and ends
    assert exc.run_state is stream.state
    server.answers.append(streamed(api, 2))
    result = toolwire.run_sync(_model(api, server, stream=True), tools=[get_weather], resume=exc.run_state)
    assert server.requests == 2 and result.text == TEXT2 and result.run_id == stream.state.run_id


def test_the_attempts_survive_pickle() -> None:
    server = Server(*[_sse([*_opening("anthropic"), _error("anthropic")]) for _ in range(3)])
    with pytest.raises(ProviderError) as info:
        _run_stream(_model("anthropic", server, stream=True))
    back = pickle.loads(pickle.dumps(info.value))
    assert (str(back), back.attempts, back.status, back.retryable) == (str(info.value), 3, None, True)
    assert str(back).endswith("Overloaded (retryable); failed after 3 attempts (max_attempts=3)")
