"""toolwire's own retries (toolwire.retry): one classification, the policy, the events.

Every request goes through the real vendor SDK with only the network replaced
(``httpx2.MockTransport``); the SDKs' own retries are off, so each attempt is one request here.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

import httpx2
import pytest

import toolwire
from toolwire import events as ev
from toolwire.errors import ConfigurationError, ProviderError
from toolwire.retry import (
    DEFAULT_POLICY,
    NO_RETRY,
    RetryNotice,
    RetryPolicy,
    classify,
    policy_from_settings,
    retry_after_seconds,
)

LLAMA_500 = "The model produced output that does not match the expected Hermes 2 Pro format"
NO_JITTER = {"initial_delay": 0.0, "jitter": 0.0}


# -- classification ------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 413, 422])
def test_errors_of_the_request_itself_are_not_retried(status: int) -> None:
    assert classify(status, "anything") is False


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_transient_errors_are_retried(status: int) -> None:
    assert classify(status, "busy") is True


def test_a_5xx_that_says_the_request_cannot_be_served_is_not_retried() -> None:
    assert classify(500, LLAMA_500) is False
    assert classify(500, "the request exceeds the available context size, try increasing it") is False
    assert classify(500, "Internal server error") is True
    assert classify(None, LLAMA_500) is False and classify(None, "x", default=True) is True


def test_retry_after_forms() -> None:
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2026 07:28:10 GMT"}, now=1792567680.0) == 10.0
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({"retry-after": "-1"}) is None
    assert retry_after_seconds({}) is None and retry_after_seconds(None) is None


# -- the policy ----------------------------------------------------------------------------------


def _err(status: int | None = 503, retryable: bool = True, retry_after: float | None = None) -> ProviderError:
    return ProviderError("openai-chat", "busy", status=status, retryable=retryable, retry_after=retry_after)


def test_backoff_doubles_up_to_the_cap() -> None:
    p = RetryPolicy(max_attempts=10, jitter=0.0)
    assert [p.backoff(a) for a in range(1, 8)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_jitter_stays_within_its_fraction() -> None:
    p = RetryPolicy(max_attempts=10)
    delays = [p.backoff(2) for _ in range(200)]
    assert min(delays) >= 0.75 and max(delays) <= 1.25 and len(set(delays)) > 1


def test_delay_for_counts_attempts_and_honours_retry_after() -> None:
    p = RetryPolicy(max_attempts=3, jitter=0.0)
    assert p.delay_for(_err(), 1) == 0.5
    assert p.delay_for(_err(), 2) == 1.0
    assert p.delay_for(_err(), 3) is None  # three attempts made
    assert p.delay_for(_err(retryable=False), 1) is None
    assert p.delay_for(_err(retry_after=7.0), 1) == 7.0
    assert p.delay_for(_err(retry_after=61.0), 1) is None  # a wait longer than max_retry_after
    assert RetryPolicy(honor_retry_after=False, jitter=0.0).delay_for(_err(retry_after=7.0), 1) == 0.5


def test_policy_from_settings() -> None:
    assert policy_from_settings({}) is DEFAULT_POLICY and DEFAULT_POLICY.max_attempts == 3
    assert policy_from_settings({"retry": False}) is NO_RETRY
    assert policy_from_settings({"max_retries": 0}).max_attempts == 1
    assert policy_from_settings({"max_retries": 5}).max_attempts == 6
    assert policy_from_settings({"retry": {"max_attempts": 4, "max_delay": 1}}).max_delay == 1
    mine = RetryPolicy(max_attempts=2)
    assert policy_from_settings({"retry": mine}) is mine
    with pytest.raises(ConfigurationError, match="max_attempts must be an integer from 1 to 100"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ConfigurationError, match="the fields are max_attempts"):
        policy_from_settings({"retry": {"attempts": 2}})
    with pytest.raises(ConfigurationError, match="max_retries must be an integer from 0 to 99"):
        policy_from_settings({"max_retries": -1})
    with pytest.raises(ConfigurationError, match="retry must be a RetryPolicy"):
        policy_from_settings({"retry": "often"})


# -- through the real SDKs -----------------------------------------------------------------------


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.Response(
        status, headers={"content-type": "application/json", **(headers or {})}, text=json.dumps(body)
    )


def _sse(chunks: list[dict[str, Any]]) -> httpx2.Response:
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def _completion(text: str = "ok") -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }


def _chunks(text: str = "ok") -> list[dict[str, Any]]:
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return [
        base | {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
        base | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        base | {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}},
    ]


LLAMA_ERROR = {"error": {"code": 500, "message": LLAMA_500, "type": "server_error"}}


class Server:
    """Answers in order; records every request that reached the network."""

    def __init__(self, *answers: httpx2.Response | Callable[[], httpx2.Response]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        return answer() if callable(answer) else answer


def _chat(server: Server, **settings: Any) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    return toolwire.model("openai-chat:m", base_url="http://127.0.0.1:8080/v1", http_client=client, **settings)


def _events(model: Any, prompt: str = "hi") -> list[Any]:
    async def go() -> list[Any]:
        out = []
        async with toolwire.run_stream(model, prompt) as stream:
            async for e in stream:
                out.append(e)
        return out

    return asyncio.run(go())


def _error_of(model: Any) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        asyncio.run(toolwire.run(model, "hi"))
    return info.value


def test_a_503_is_retried_after_its_retry_after_and_the_run_emits_retry_scheduled() -> None:
    server = Server(
        _json({"error": {"message": "busy", "type": "server_error"}}, 503, {"retry-after-ms": "1"}),
        _json(_completion()),
    )
    events = _events(_chat(server))
    retries = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert len(server.requests) == 2
    assert retries == [
        ev.RetryScheduled(
            turn=1,
            attempt=2,
            delay=0.001,
            error="ProviderError: openai-chat API error (HTTP 503, server_error): busy (retryable)",
        )
    ]
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("TurnStarted") < kinds.index("RetryScheduled") < kinds.index("TextDelta")
    assert events[-1].result.text == "ok"


def test_a_streamed_request_is_retried_before_its_first_event() -> None:
    server = Server(
        _json({"error": {"message": "slow down", "type": "rate_limit_exceeded"}}, 429), _sse(_chunks("fine"))
    )
    events = _events(_chat(server, stream=True, retry=NO_JITTER))
    retries = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert [(r.turn, r.attempt, r.delay) for r in retries] == [(1, 2, 0.0)]
    assert "HTTP 429" in retries[0].error and len(server.requests) == 2
    assert events[-1].result.text == "fine"
    assert all(json.loads(r.content)["stream"] is True for r in server.requests)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_errors_that_repeat_are_raised_after_one_request(status: int) -> None:
    server = Server(_json({"error": {"message": "no", "type": "invalid_request_error"}}, status))
    err = _error_of(_chat(server, retry=NO_JITTER))
    assert (err.status, err.retryable, len(server.requests)) == (status, False, 1)


def test_the_llama_cpp_format_500_is_not_retried() -> None:
    server = Server(_json(LLAMA_ERROR, 500))
    err = _error_of(_chat(server, retry=NO_JITTER))
    assert (err.status, err.error_type, err.message, err.retryable) == (500, "server_error", LLAMA_500, False)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "message",
    [
        # llama.cpp's server started without --jinja (tools/server/utils.hpp, HTTP 500 server_error)
        "tools param requires --jinja flag",
        "tool_choice param requires --jinja flag",
        # older llama.cpp builds, before --jinja existed, for the same request
        "Unsupported param: tools",
    ],
)
def test_a_server_that_cannot_take_tools_is_not_asked_again(message: str) -> None:
    # the server's set-up refuses the request: every retry gets the same 500, so one request only
    server = Server(
        _json({"error": {"code": 500, "message": message, "type": "server_error"}}, 500), _json(_completion())
    )
    err = _error_of(_chat(server, retry=NO_JITTER))
    assert (err.status, err.message, err.retryable, err.attempts) == (500, message, False, 1)
    assert len(server.requests) == 1 and "(retryable)" not in str(err)


def test_the_same_error_is_the_same_provider_error_as_status_body_or_stream_chunk() -> None:
    as_status = _error_of(_chat(Server(_json(LLAMA_ERROR, 500)), retry=NO_JITTER))
    as_body = _error_of(_chat(Server(_json(LLAMA_ERROR, 200)), retry=NO_JITTER))
    as_chunk = _error_of(_chat(Server(_sse([LLAMA_ERROR])), stream=True, retry=NO_JITTER))
    seen = {(e.provider, e.status, e.error_type, e.message, e.retryable) for e in (as_status, as_body, as_chunk)}
    assert seen == {("openai-chat", 500, "server_error", LLAMA_500, False)}
    # and a transient 5xx in a chunk is retried like the status: a chunk before any event
    server = Server(
        _sse([{"error": {"code": 503, "message": "loading model", "type": "unavailable_error"}}]), _sse(_chunks())
    )
    events = _events(_chat(server, stream=True, retry=NO_JITTER))
    assert [e.attempt for e in events if isinstance(e, ev.RetryScheduled)] == [2] and len(server.requests) == 2


def test_attempts_are_bounded_and_max_retries_zero_sends_once() -> None:
    busy = lambda: _json({"error": {"message": "busy"}}, 503)  # noqa: E731
    server = Server(busy, busy, busy, busy)
    err = _error_of(_chat(server, retry=NO_JITTER))
    assert err.status == 503 and err.retryable is True and len(server.requests) == 3
    server = Server(busy)
    _error_of(_chat(server, max_retries=0))
    assert len(server.requests) == 1


def test_a_retry_after_beyond_the_limit_is_not_waited_for() -> None:
    server = Server(_json({"error": {"message": "quota"}}, 429, {"retry-after": "3600"}))
    err = _error_of(_chat(server))
    assert err.retry_after == 3600.0 and len(server.requests) == 1


def test_send_stream_yields_the_notice_and_the_assembler_ignores_it() -> None:
    from toolwire.adapter import ModelRequest, collect_stream
    from toolwire.types import Message

    server = Server(_json({"error": {"message": "busy"}}, 502), _sse(_chunks("x")))
    model = _chat(server, retry=NO_JITTER)

    async def go() -> tuple[list[Any], Any]:
        seen: list[Any] = []

        async def tap():
            async for e in model.send_stream(ModelRequest("m", [Message.user("hi")])):
                seen.append(e)
                yield e

        return seen, await collect_stream(tap(), "openai-chat")

    seen, resp = asyncio.run(go())
    assert isinstance(seen[0], RetryNotice) and seen[0].attempt == 2 and seen[0].error.status == 502
    assert resp.text == "x"


@pytest.mark.parametrize("provider", ["anthropic", "gemini", "openai"])
def test_the_sdks_own_retries_are_off(provider: str) -> None:
    """With max_retries=0 a 503 is one request on every SDK: nothing retries behind toolwire."""
    server = Server(
        _json({"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE", "type": "overloaded_error"}}, 503)
    )
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    model = toolwire.model(f"{provider}:m-1", api_key="k", http_client=client, max_retries=0)
    err = _error_of(model)
    assert err.status == 503 and len(server.requests) == 1


def test_the_cli_status_line_shows_the_retry() -> None:
    from rich.console import Console

    from toolwire.cli.run_cmd import LiveView

    view = LiveView(Console(file=open("/dev/null", "w"), force_terminal=False))
    shown: list[str | None] = []
    view.set_status = shown.append  # type: ignore[method-assign]
    view.handle(ev.RetryScheduled(turn=1, attempt=2, delay=1.25, error="ProviderError: busy"))
    assert shown == ["retry 2 in 1.2 s after ProviderError: busy"]


@pytest.mark.parametrize(
    "spec,base_url,url",
    [
        ("openai-chat:m", "http://user:s3cret@127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/chat/completions"),
        ("openai:m", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/responses"),
        ("anthropic:m", "http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/messages"),
    ],
)
def test_a_connection_error_names_the_server_without_credentials(spec: str, base_url: str, url: str) -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("All connection attempts failed", request=request)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(refuse))
    model = toolwire.model(spec, base_url=base_url, http_client=client, api_key="k", max_retries=0)
    err = _error_of(model)
    assert err.error_type == "connection_error" and err.status is None
    assert err.message.endswith(f"(server: {url})")
    assert "s3cret" not in str(err) and "user" not in str(err)


def test_adv9_a_huge_multiplier_is_capped_without_overflow() -> None:
    policy = RetryPolicy(multiplier=1e300, max_delay=8.0, jitter=0, max_attempts=10)
    assert policy.backoff(1) == 0.5
    assert policy.backoff(2) == 8.0
    assert policy.backoff(9) == 8.0


@pytest.mark.parametrize(
    "fields",
    [
        {"initial_delay": float("nan")},
        {"max_retry_after": float("nan")},
        {"max_delay": float("inf")},
        {"multiplier": -1.0},
        {"max_attempts": 101},
    ],
)
def test_adv9_non_finite_negative_or_absurd_settings_are_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        RetryPolicy(**fields)


def test_adv9_an_absurd_max_retries_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="from 0 to 99"):
        policy_from_settings({"max_retries": 10**30})
    assert policy_from_settings({"max_retries": 99}).max_attempts == 100


def test_adv9_an_unreadable_retry_after_ms_falls_back_to_retry_after() -> None:
    assert retry_after_seconds({"retry-after-ms": "soon", "retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "nan", "retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "soon"}) is None
    assert retry_after_seconds({"retry-after": "inf"}) is None
