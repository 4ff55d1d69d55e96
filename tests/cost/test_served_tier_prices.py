"""A request is priced at the rate of how the vendor says it served it: Anthropic fast mode
(``usage.speed == "fast"``) and OpenAI's ``service_tier`` (``flex``, ``priority``) change the price;
genai-prices records those rates. Real SDKs, network replaced; 1M input and 1M output tokens so the
totals read as per-million prices (the genai-prices data bundled with this version)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx2
import pytest

import toolwire

M = 1_000_000


def _anthropic(speed: str | None, stream: bool) -> httpx2.Response:
    usage: dict[str, Any] = {"input_tokens": M, "output_tokens": M}
    if speed is not None:
        usage["speed"] = speed
    if not stream:
        body = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-5",
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "usage": usage,
        }
        return httpx2.Response(200, json=body)
    start = {"input_tokens": M, "output_tokens": 1, **({"speed": speed} if speed else {})}
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-opus-5",
                    "content": [],
                    "stop_reason": None,
                    "usage": start,
                },
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": M}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    text = "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in events)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def _chat(tier: str | None, stream: bool) -> httpx2.Response:
    usage = {"prompt_tokens": M, "completion_tokens": M, "total_tokens": 2 * M}
    extra = {"service_tier": tier} if tier is not None else {}
    if not stream:
        body = {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-5",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            "usage": usage,
            **extra,
        }
        return httpx2.Response(200, json=body)
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "gpt-5", **extra}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {**base, "choices": [], "usage": usage},
    ]
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def _responses(tier: str | None, stream: bool) -> httpx2.Response:
    msg = {
        "id": "msg_1",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "ok", "annotations": []}],
    }
    body = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "model": "gpt-5",
        "output": [msg],
        "usage": {"input_tokens": M, "output_tokens": M, "total_tokens": 2 * M},
        **({"service_tier": tier} if tier is not None else {}),
    }
    if not stream:
        return httpx2.Response(200, json=body)
    events = [
        {"type": "response.created", "response": {**body, "status": "in_progress", "output": [], "usage": None}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**msg, "status": "in_progress", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "item_id": "msg_1",
            "delta": "ok",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": msg},
        {"type": "response.completed", "response": body},
    ]
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


CASES = [
    # provider, answer, served, expected total (USD per 1M in + 1M out)
    ("anthropic:claude-opus-5", _anthropic, None, Decimal("30")),
    ("anthropic:claude-opus-5", _anthropic, "fast", Decimal("60")),
    ("anthropic:claude-opus-5", _anthropic, "standard", Decimal("30")),
    ("openai-chat:gpt-5", _chat, None, Decimal("11.25")),
    ("openai-chat:gpt-5", _chat, "default", Decimal("11.25")),
    ("openai-chat:gpt-5", _chat, "flex", Decimal("5.625")),
    ("openai-chat:gpt-5", _chat, "priority", Decimal("22.5")),
    ("openai:gpt-5", _responses, "flex", Decimal("5.625")),
    ("openai:gpt-5", _responses, "priority", Decimal("22.5")),
    ("openai:gpt-5", _responses, None, Decimal("11.25")),
]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(("provider", "answer", "served", "total"), CASES)
def test_cost_is_the_rate_of_the_tier_that_served_the_request(provider, answer, served, total, stream) -> None:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: answer(served, stream)))
    model = toolwire.model(provider, api_key="k", http_client=client, max_retries=0, stream=stream)
    result = toolwire.run_sync(model, "hi")
    assert result.text == "ok"
    assert result.cost.total.total_usd == total
    # the same rate as price() gives with the context the adapter recorded on the response
    response = result.turns[0].response
    context = toolwire.pricing.response_price_context(response)
    assert context == (
        {"speed": "fast"} if served == "fast" else {"service_tier": served} if served in ("flex", "priority") else None
    )
    assert toolwire.pricing.price(response.usage, provider, price_context=context).total_usd == total
