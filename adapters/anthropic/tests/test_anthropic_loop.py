"""The shared loop driving AnthropicModel end to end (real SDK, MockTransport network)."""

from __future__ import annotations

import toolwire
from toolwire import tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: first addend
        b: second addend
    """
    return a + b


@tool
def fail(city: str) -> str:
    """Always fails.

    Args:
        city: a city
    """
    raise ValueError("city not found")


def test_loop_runs_tools_and_sends_results(mock_model, wire) -> None:
    first = wire.message_body(
        [
            {"type": "text", "text": "Computing."},
            {"type": "tool_use", "id": "toolu_L1", "name": "add", "input": {"a": 2, "b": 40}},
            {"type": "tool_use", "id": "toolu_L2", "name": "fail", "input": {"city": "Atlantis"}},
        ],
        stop_reason="tool_use",
        usage={"input_tokens": 300, "output_tokens": 40},
    )
    final = wire.message_body(
        [{"type": "text", "text": "42, and Atlantis was not found."}], usage={"input_tokens": 380, "output_tokens": 12}
    )
    model = mock_model([wire.json_response(first), wire.json_response(final)])
    result = toolwire.run_sync(model, "add 2 and 40, then look up Atlantis", tools=[add, fail])
    assert result.text == "42, and Atlantis was not found." and result.stop_reason == "end_turn"
    assert result.tool_errors == 1
    second = model.sent[1].json
    results = second["messages"][2]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_L1", "toolu_L2"]
    assert results[0]["content"] == "42" and "is_error" not in results[0]
    assert results[1]["is_error"] is True and "city not found" in results[1]["content"]
    assert second["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_L1",
        "name": "add",
        "input": {"a": 2, "b": 40},
    }
    assert result.usage.input_tokens == 680 and result.usage.output_tokens == 52 and result.usage.requests == 2
