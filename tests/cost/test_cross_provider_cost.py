"""A run saved on one vendor and resumed on another: each turn is priced as the vendor and model
that answered it, in ``result.cost`` and in the ``max_cost_usd`` check (real adapters, canned
HTTP answers through the vendor SDKs)."""

from __future__ import annotations

from decimal import Decimal

import httpx2
import pytest

import toolwire
from toolwire.errors import UsageLimitExceeded
from toolwire.pricing import price


@toolwire.tool
def ping() -> str:
    """Ping. Use it to check."""
    return "pong"


ANTHROPIC_CALL = {  # anthropic.types.Message: a tool call, 100k input tokens
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "tool_use", "id": "toolu_1", "name": "ping", "input": {}}],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 100_000, "output_tokens": 1_000},
}

OPENAI_ANSWER = {  # openai.types.responses.Response: the final answer
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "status": "completed",
    "model": "gpt-4o-2024-08-06",
    "output": [
        {
            "type": "message",
            "id": "msg_2",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "pong it is", "annotations": []}],
        }
    ],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "usage": {
        "input_tokens": 100_050,
        "output_tokens": 10,
        "total_tokens": 100_060,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    },
}


OPENAI_CALL = {  # the same answer asking for the tool again
    **OPENAI_ANSWER,
    "output": [
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_2",
            "name": "ping",
            "arguments": "{}",
            "status": "completed",
        }
    ],
}


def _client(body: dict) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.MockTransport(lambda request: httpx2.Response(200, json=body)))


def _saved_on_anthropic() -> toolwire.RunState:
    model = toolwire.model("anthropic:claude-sonnet-4-5", api_key="k", http_client=_client(ANTHROPIC_CALL))
    with pytest.raises(toolwire.MaxTurnsExceeded) as info:
        toolwire.run_sync(model, "ping it", tools=[ping], max_turns=1)
    return toolwire.RunState.from_json(info.value.result.state.to_json())


def test_turns_of_another_vendor_are_priced_as_that_vendor() -> None:
    """Before, every turn was priced with the resumed run's model: the Anthropic turn cost
    gpt-4o's $2.50/M input instead of claude-sonnet-4-5's $3/M."""
    state = _saved_on_anthropic()
    model = toolwire.model("openai:gpt-4o", api_key="k", http_client=_client(OPENAI_ANSWER))
    result = toolwire.run_sync(model, tools=[ping], resume=state)
    assert result.text == "pong it is" and result.model == "openai:gpt-4o"
    first, second = result.cost.turns
    # claude-sonnet-4-5: 100k in at $3/M + 1k out at $15/M
    assert (first.model, first.total_usd) == ("claude-sonnet-4-5", Decimal("0.315"))
    # gpt-4o: 100,050 in at $2.50/M + 10 out at $10/M
    assert (second.model, second.total_usd) == ("gpt-4o", Decimal("0.250225"))
    assert result.cost.total.total_usd == Decimal("0.565225")
    # price() agrees, given the vendor the turn came from
    usage = toolwire.Usage(input_tokens=100_000, output_tokens=1_000)
    assert price(usage, "anthropic:claude-sonnet-4-5").total_usd == Decimal("0.315")


def test_the_cost_limit_of_a_resumed_run_counts_earlier_turns_at_their_own_price() -> None:
    """$0.315 (Anthropic turn) + $0.250225 = $0.565225 passes a $0.56 limit at the second turn;
    priced as gpt-4o the first turn was $0.26, so the run went on to a third request."""
    state = _saved_on_anthropic()
    model = toolwire.model("openai:gpt-4o", api_key="k", http_client=_client(OPENAI_CALL))
    with pytest.raises(UsageLimitExceeded, match=r"cost \$0\.565225 exceeded the limit of \$0\.56") as info:
        toolwire.run_sync(model, tools=[ping], resume=state, limits=toolwire.Limits(max_cost_usd=0.56))
    assert len(info.value.result.turns) == 2
