"""Provider errors through the real SDK: every failure surfaces as ``ProviderError`` with the HTTP
status, the vendor's own message, its error type and whether a retry could help."""

from __future__ import annotations

import asyncio

import httpx2
import pytest

from toolwire import Message
from toolwire.errors import ProviderError


def _send(model, stream: bool = False):
    req = model.build_request([Message.user("hi")])
    req.stream = stream
    return asyncio.run(model.send(req))


@pytest.mark.parametrize(
    "status, error_type, message, retryable",
    [
        (
            400,
            "invalid_request_error",
            "messages.1.content.0: tool_use ids were found without tool_result blocks immediately after: toolu_X",
            False,
        ),
        (401, "authentication_error", "invalid x-api-key", False),
        (403, "permission_error", "Your API key does not have permission to use the specified resource.", False),
        (404, "not_found_error", "model: claude-nope", False),
        (413, "request_too_large", "Request exceeds the maximum allowed number of bytes.", False),
        (429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", True),
        (500, "api_error", "Internal server error", True),
        (529, "overloaded_error", "Overloaded", True),
    ],
)
def test_http_errors(mock_model, wire, status, error_type, message, retryable) -> None:
    model = mock_model([wire.json_response(wire.error_body(error_type, message), status=status)])
    with pytest.raises(ProviderError) as info:
        _send(model)
    err = info.value
    assert (err.provider, err.status, err.error_type, err.message, err.retryable) == (
        "anthropic",
        status,
        error_type,
        message,
        retryable,
    )
    assert err.body == wire.error_body(error_type, message)
    assert len(model.sent) == 1  # max_retries=0: exactly one attempt


def test_x_should_retry_header_wins(mock_model, wire) -> None:
    model = mock_model(
        [
            wire.json_response(
                wire.error_body("api_error", "do not retry this one"), status=500, headers={"x-should-retry": "false"}
            )
        ]
    )
    with pytest.raises(ProviderError) as info:
        _send(model)
    assert info.value.status == 500 and info.value.retryable is False


def test_toolwire_retries_not_the_sdk(mock_model, wire) -> None:
    """``max_retries`` is toolwire's: a 529 then a success is one answer after two attempts, and
    each attempt is a first attempt for the SDK (its own retries are off)."""
    overloaded = wire.json_response(
        wire.error_body("overloaded_error", "Overloaded"), status=529, headers={"retry-after-ms": "1"}
    )
    ok = wire.json_response(wire.message_body([{"type": "text", "text": "fine"}]))
    model = mock_model([overloaded, ok], max_retries=1)
    resp = _send(model)
    assert resp.text == "fine" and len(model.sent) == 2
    assert [r.headers.get("x-stainless-retry-count") for r in model.sent] == ["0", "0"]


def test_connection_error(mock_model) -> None:
    def refuse(request):
        raise httpx2.ConnectError("connection refused", request=request)

    with pytest.raises(ProviderError) as info:
        _send(mock_model(refuse))
    err = info.value
    assert err.status is None and err.retryable is True and err.error_type == "connection_error"
    assert "connection refused" in err.message


def test_timeout(mock_model) -> None:
    def slow(request):
        raise httpx2.ReadTimeout("read timed out", request=request)

    with pytest.raises(ProviderError) as info:
        _send(mock_model(slow, timeout=1.5))
    err = info.value
    assert err.status is None and err.retryable is True and err.error_type == "timeout"


def test_error_event_mid_stream(mock_model, wire) -> None:
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_E",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 20, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    model = mock_model([wire.sse_response(events)])
    with pytest.raises(ProviderError) as info:
        _send(model, stream=True)
    err = info.value
    assert (err.status, err.error_type, err.message, err.retryable) == (None, "overloaded_error", "Overloaded", True)
    assert err.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def test_invalid_request_error_mid_stream_not_retryable(mock_model, wire) -> None:
    events = [{"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long"}}]
    with pytest.raises(ProviderError) as info:
        _send(mock_model([wire.sse_response(events)]), stream=True)
    assert info.value.retryable is False and info.value.error_type == "invalid_request_error"


def test_http_error_on_streamed_request(mock_model, wire) -> None:
    model = mock_model([wire.json_response(wire.error_body("rate_limit_error", "slow down"), status=429)])
    with pytest.raises(ProviderError) as info:
        _send(model, stream=True)
    assert (info.value.status, info.value.retryable, info.value.message) == (429, True, "slow down")


def test_count_tokens_error(mock_model, wire) -> None:
    model = mock_model([wire.json_response(wire.error_body("authentication_error", "invalid x-api-key"), status=401)])
    with pytest.raises(ProviderError) as info:
        asyncio.run(model.count_tokens(model.build_request([Message.user("x")])))
    assert info.value.status == 401 and info.value.retryable is False


@pytest.mark.parametrize("code", ["enforced_spend_limit_reached", "contract_spend_limit_reached"])
def test_a_429_for_a_spend_limit_reached_is_not_retried(mock_model, wire, code) -> None:
    """A 429 whose ``error.details.error_code`` says a spend limit is reached
    (``anthropic._error_classes.ERROR_CLASSES[(429, code)]``: "The organization has crossed the
    monthly API usage threshold of its API tier" / "has reached the spend limit of its contract")
    is no rate limit: the same request fails again, so it is raised at once, not retried."""
    body = wire.error_body("rate_limit_error", "You have reached your specified API usage limits.")
    body["error"]["details"] = {"error_code": code}
    model = mock_model([wire.json_response(body, status=429)] * 3, max_retries=2)
    with pytest.raises(ProviderError) as info:
        _send(model)
    assert (info.value.status, info.value.retryable, info.value.error_type) == (429, False, "rate_limit_error")
    assert len(model.sent) == 1


def test_a_429_for_a_ramp_limit_is_retried(mock_model, wire) -> None:
    """``ramp_limit_exceeded``: "Retry after the time in the `retry-after` header" (the SDK's
    RampLimitExceededErrorDetails): a rate limit, retried as before."""
    body = wire.error_body("rate_limit_error", "ramp limit")
    body["error"]["details"] = {"error_code": "ramp_limit_exceeded"}
    ok = wire.json_response(wire.message_body([{"type": "text", "text": "hi"}]))
    model = mock_model([wire.json_response(body, status=429, headers={"retry-after": "0"}), ok], max_retries=1)
    assert _send(model).text == "hi" and len(model.sent) == 2
