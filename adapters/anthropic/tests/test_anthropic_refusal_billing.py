"""A request Claude refuses before generating any output is not billed on the Claude API ("When a
refusal arrives before Claude generates any output, you are not billed for the request on the
Claude API, and the usage counts in that response are informational only": Anthropic, "Streaming
refusals"). Its turn costs $0 (the counts are still reported as usage); a refusal after some output
is billed as usual. Through the real ``anthropic`` SDK, only the network replaced."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Callable

import pytest

import toolwire

_STOP_DETAILS = {"type": "refusal", "category": "cyber", "explanation": "declined"}


def _refusal(wire: Any, content: list[dict[str, Any]], output_tokens: int) -> dict[str, Any]:
    body = wire.message_body(
        content,
        stop_reason="refusal",
        usage={"input_tokens": 412, "output_tokens": output_tokens},
        model="claude-sonnet-4-5-20250929",
    )
    body["stop_details"] = _STOP_DETAILS
    return body


def _stream(body: dict[str, Any]) -> list[dict[str, Any]]:
    start = {**body, "content": [], "stop_reason": None, "usage": {"input_tokens": 412, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for i, block in enumerate(body["content"]):
        events.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
        events.append(
            {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}}
        )
        events.append({"type": "content_block_stop", "index": i})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "refusal", "stop_sequence": None, "stop_details": _STOP_DETAILS},
            "usage": {"output_tokens": body["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events


@pytest.mark.parametrize("content", [[], [{"type": "text", "text": ""}]], ids=["no-block", "empty-text-block"])
@pytest.mark.parametrize("stream", [False, True])
def test_a_refusal_before_any_output_costs_nothing(
    mock_model: Callable[..., Any], wire: Any, stream: bool, content: list[dict[str, Any]]
) -> None:
    body = _refusal(wire, content, 0)
    answer = wire.sse_response(_stream(body)) if stream else wire.json_response(body)
    model = mock_model([answer], stream=stream)
    result = toolwire.run_sync(model, "hi")
    assert result.stop_reason == "refusal"
    usage = result.turns[0].response.usage
    assert usage.input_tokens == 412  # reported, informational
    cost = result.cost.total
    assert cost.priced is True
    assert cost.total_usd == Decimal(0) and cost.input_usd == Decimal(0)
    assert "does not bill a request refused before any output" in (result.cost.turns[0].reason or "")


@pytest.mark.parametrize("stream", [False, True])
def test_a_refusal_after_some_output_is_billed(mock_model: Callable[..., Any], wire: Any, stream: bool) -> None:
    body = _refusal(wire, [{"type": "text", "text": "Hello.."}], 3)
    answer = wire.sse_response(_stream(body)) if stream else wire.json_response(body)
    model = mock_model([answer], stream=stream)
    result = toolwire.run_sync(model, "hi")
    assert result.stop_reason == "refusal"
    assert result.text == "Hello.."
    cost = result.cost.total
    assert cost.priced is True and cost.total_usd is not None and cost.total_usd > 0
    assert result.cost.turns[0].reason is None


def test_a_refusal_through_another_endpoint_is_priced_as_usual(mock_model: Callable[..., Any], wire: Any) -> None:
    """The rule is the Claude API's: a request sent elsewhere (a gateway, a cloud platform) is
    priced from its counts as any other."""
    model = mock_model([wire.json_response(_refusal(wire, [], 0))], base_url="https://gateway.example.com")
    result = toolwire.run_sync(model, "hi")
    cost = result.cost.turns[0]
    assert cost.reason is None
    assert cost.priced is True and cost.total_usd is not None and cost.total_usd > 0
