"""toolwire's portable thinking={"effort": E} on a model with manual thinking only (before Claude
4.6): max_tokens room for the budget, the budget lowered under a max_tokens the user set (and
reported), and refusals worded in the user's settings. Through the anthropic SDK over
httpx2.MockTransport."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire.profile import RequestRefused

RULE = "anthropic.request.thinking-effort-budget"
ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "Hi."}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 5, "output_tokens": 3},
}


@toolwire.tool
def lookup(city: str) -> str:
    """Look up a city."""
    return city


def _model(sent: list[dict[str, Any]], model: str = "claude-sonnet-4-5", **settings: Any) -> Any:
    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json={**ANSWER, "model": model})

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return toolwire.model(f"anthropic:{model}", api_key="k", http_client=client, **settings)


@pytest.mark.parametrize(
    ("effort", "budget", "max_tokens"),
    [("high", 4096, 8192), ("xhigh", 8192, 12288), ("max", 16384, 20480), ("medium", 2048, 6144)],
)
def test_an_effort_without_max_tokens_gets_room_for_its_budget_and_an_answer(
    effort: str, budget: int, max_tokens: int
) -> None:
    """With toolwire's default max_tokens (4096), high/xhigh/max all went as budget_tokens 4095,
    leaving one token for the answer, and nothing was reported."""
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(_model(sent, thinking={"effort": effort}), "hi")
    assert result.text == "Hi."
    assert sent[0]["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert sent[0]["max_tokens"] == max_tokens
    report = result.turns[0].response.preflight
    assert report is not None
    (change,) = [c for c in report.changes if c.rule == RULE]
    assert change.pointer == "/max_tokens" and change.lossy is False
    assert f"max_tokens sent as {max_tokens}" in change.detail and f"'effort': '{effort}'" in change.detail
    assert "max_tokens was not set" in change.detail


def test_the_raised_max_tokens_stays_within_the_models_maximum_output() -> None:
    # Opus 4 writes at most 32000 output tokens; the max effort's 16384 + 4096 fits, as on every
    # Claude model with manual thinking (the bound is the max-tokens-model table)
    sent: list[dict[str, Any]] = []
    toolwire.run_sync(_model(sent, "claude-opus-4-0", thinking={"effort": "max"}), "hi")
    assert (sent[0]["max_tokens"], sent[0]["thinking"]["budget_tokens"]) == (20480, 16384)


def test_a_max_tokens_the_user_set_is_kept_and_the_lowered_budget_is_reported_as_lossy() -> None:
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(_model(sent, thinking={"effort": "high"}, max_tokens=4096), "hi")
    assert sent[0]["max_tokens"] == 4096
    assert sent[0]["thinking"] == {"type": "enabled", "budget_tokens": 4095}
    report = result.turns[0].response.preflight
    assert report is not None
    (change,) = [c for c in report.changes if c.rule == RULE]
    assert change.pointer == "/thinking/budget_tokens" and change.lossy is True
    for words in (
        "'effort': 'high'",
        "budget_tokens 4096",
        "sent as 4095",
        "max_tokens 4096",
        "leaves 1 token for the answer",
    ):
        assert words in change.detail


def test_a_max_tokens_the_user_set_that_fits_the_budget_reports_nothing() -> None:
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(_model(sent, thinking={"effort": "high"}, max_tokens=10000), "hi")
    assert (sent[0]["max_tokens"], sent[0]["thinking"]["budget_tokens"]) == (10000, 4096)
    report = result.turns[0].response.preflight
    assert report is None or not [c for c in report.changes if c.rule == RULE]


@pytest.mark.parametrize("max_tokens", [1024, 600])
def test_no_room_for_any_budget_is_refused_in_the_users_settings(max_tokens: int) -> None:
    """Even effort 'low' was refused as "thinking.budget_tokens (1024) must be less than
    max_tokens": a field the user never wrote."""
    sent: list[dict[str, Any]] = []
    with pytest.raises(RequestRefused) as info:
        toolwire.run_sync(_model(sent, thinking={"effort": "low"}, max_tokens=max_tokens), "hi")
    (v,) = info.value.violations
    assert v.rule == "anthropic.request.thinking-budget" and v.pointer == "/max_tokens"
    assert "thinking={'effort': 'low'}" in v.message and f"max_tokens is {max_tokens}" in v.message
    assert "budget_tokens" not in v.message
    assert sent == []


@pytest.mark.parametrize(
    ("tool_choice", "named"), [("required", "'required'"), ({"type": "tool", "name": "lookup"}, "'lookup'")]
)
def test_an_effort_with_a_forced_tool_choice_is_refused_naming_the_effort_and_advice_that_works(
    tool_choice: Any, named: str
) -> None:
    """The message spoke of thinking.type 'enabled' (never written) and advised adaptive
    thinking, which claude-sonnet-4-5 refuses."""
    sent: list[dict[str, Any]] = []
    with pytest.raises(RequestRefused) as info:
        toolwire.run_sync(_model(sent, thinking={"effort": "high"}), "hi", tools=[lookup], tool_choice=tool_choice)
    (v,) = info.value.violations
    assert v.rule == "anthropic.request.thinking-forced-tool"
    assert "thinking={'effort': 'high'}" in v.message and named in v.message
    assert "drop thinking for this run" in v.message and "tool_choice 'auto'" in v.message
    assert "thinking.type" not in v.message and "adaptive" not in v.message
    assert sent == []


def test_anthropics_own_thinking_object_with_a_forced_tool_on_a_manual_model_is_not_told_to_use_adaptive() -> None:
    sent: list[dict[str, Any]] = []
    model = _model(sent, thinking={"type": "enabled", "budget_tokens": 2048})
    with pytest.raises(RequestRefused) as info:
        toolwire.run_sync(model, "hi", tools=[lookup], tool_choice="required")
    (v,) = info.value.violations
    assert v.rule == "anthropic.request.thinking-forced-tool"
    assert "thinking.type 'enabled'" in v.message and "leave thinking out" in v.message
    assert "adaptive" not in v.message


def test_the_forced_tool_rule_keeps_its_source() -> None:
    from toolwire_anthropic.profile import AnthropicProfile

    rule = AnthropicProfile.rules["anthropic.request.thinking-forced-tool"]
    assert rule.source == (
        'API error text "Thinking may not be enabled when tool_choice forces tool use." (mastra-ai/mastra#7507); '
        "adaptive thinking accepts forced tools (llm-exe/llm-exe#721, tested live)"
    )


def test_adaptive_models_and_anthropics_own_object_are_unchanged() -> None:
    sent: list[dict[str, Any]] = []
    toolwire.run_sync(_model(sent, "claude-sonnet-4-6", thinking={"effort": "high"}), "hi")
    assert sent[0]["max_tokens"] == 4096 and sent[0]["thinking"] == {"type": "adaptive"}
    toolwire.run_sync(_model(sent, thinking={"type": "enabled", "budget_tokens": 2048}), "hi")
    assert sent[1]["max_tokens"] == 4096 and sent[1]["thinking"] == {"type": "enabled", "budget_tokens": 2048}


@pytest.mark.parametrize("effort", ["low", "max"])
def test_an_effort_left_out_on_a_model_without_thinking_is_reported_as_the_user_wrote_it(effort: str) -> None:
    """The report quoted {'type': 'enabled', 'budget_tokens': 4095}, toolwire's translation of
    the effort, which the user never wrote."""
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(_model(sent, "claude-3-5-haiku-20241022", thinking={"effort": effort}), "hi")
    assert "thinking" not in sent[0] and sent[0]["max_tokens"] == 4096
    report = result.turns[0].response.preflight
    (change,) = [c for c in report.changes if c.pointer == "/thinking"]
    assert change.rule == "anthropic.request.thinking-model" and change.lossy
    assert change.detail.startswith(f"thinking={{'effort': '{effort}'}} left out: claude-3-5-haiku-20241022 has no")
    assert "budget_tokens" not in change.detail and "'type'" not in change.detail


@pytest.mark.parametrize("thinking", [{"effort": "high"}, {"type": "enabled", "budget_tokens": 2048}])
def test_a_negative_max_tokens_with_thinking_is_refused_once(thinking: dict[str, Any]) -> None:
    """max_tokens=-1 was refused twice: as not a non-negative integer, and again as leaving no
    room for the thinking budget."""
    sent: list[dict[str, Any]] = []
    with pytest.raises(RequestRefused) as info:
        toolwire.run_sync(_model(sent, thinking=thinking, max_tokens=-1), "hi")
    (v,) = info.value.violations
    assert v.rule == "anthropic.request.max-tokens" and v.pointer == "/max_tokens"
    assert v.message == "max_tokens must be a non-negative integer (the Messages API requires it), got -1"
    assert sent == []
