"""A tool choice given twice: as the request's ``tool_choice`` and as the vendor's own field in the
model settings (Gemini's ``tool_config`` ``functionCallingConfig``, ``extra_body={"tool_choice": ...}``
on Anthropic and OpenAI). Users set the vendor field for what the canonical choice cannot say:
Gemini's ``VALIDATED`` mode (pydantic/pydantic-ai#5366, langchain-ai/langchainjs#11685), OpenAI's
``allowed_tools`` (microsoft/agent-framework#5322). The setting's choice must not be replaced
without a word, neither by the caller's ``tool_choice`` nor by the ``"auto"`` the loop sends after a
forced first call, nor (Anthropic) by the ``auto`` that ``parallel_tool_calls=False`` alone made.

Each test runs the loop through the real vendor SDK (only the network is an
``httpx2.MockTransport``) and checks the bodies sent (rules ``<api>.request.tool-choice-setting``,
docs/rules/<api>.md)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire

from .all_apis.answers import mock_model, text_answer

pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

RULE = "{api}.request.tool-choice-setting"


def weather(city: str) -> str:
    """Weather in a city."""
    return "sunny"


def call_answer(api: str) -> dict[str, Any]:
    """An answer of ``api`` calling ``weather(city="Paris")``."""
    if api == "anthropic":
        return {
            "id": "msg_01A",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 2},
        }
    if api == "openai-chat":
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-x",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
    if api == "openai":
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "gpt-x",
            "status": "completed",
            "output": [
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "weather",
                    "arguments": '{"city": "Paris"}',
                    "status": "completed",
                }
            ],
            "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
        }
    return {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "weather", "args": {"city": "Paris"}}}],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
    }


def make_model(api: str, sent: list[dict[str, Any]], **settings: Any) -> Any:
    """The model of ``api`` answering a call of ``weather``, then text (:func:`mock_model`)."""
    return mock_model(api, [call_answer(api), text_answer(api)], sent, **settings)


def choices(api: str, sent: list[dict[str, Any]]) -> list[Any]:
    if api == "gemini":
        return [(b.get("toolConfig") or {}).get("functionCallingConfig") for b in sent]
    return [b.get("tool_choice") for b in sent]


def changes(model: Any, api: str) -> list[tuple[str, str, bool]]:
    report = model.last_preflight
    return [(c.rule, c.pointer, c.lossy) for c in report.changes if c.rule == RULE.format(api=api)]


def preflight(model: Any, tool_choice: Any) -> tuple[dict[str, Any], Any]:
    request = model.build_request(
        [toolwire.Message.user("weather in Paris?")], tools=[weather], tool_choice=tool_choice
    )
    return model._preflight(request)


# ------------------------------------------------------------------ Gemini: VALIDATED kept


VALIDATED = {"functionCallingConfig": {"mode": "VALIDATED"}}


def test_gemini_validated_setting_holds_after_a_forced_first_call() -> None:
    sent: list[dict[str, Any]] = []
    model = make_model("gemini", sent, tool_config=VALIDATED)
    result = asyncio.run(toolwire.run(model, "weather in Paris?", tools=[weather], tool_choice="required"))
    assert result.text == "hello"
    # the forced first request sends ANY; the loop's "auto" afterwards is the setting's VALIDATED
    # (it was {"mode": "AUTO"}: the setting lost without a word)
    assert choices("gemini", sent) == [{"mode": "ANY"}, {"mode": "VALIDATED"}]


@pytest.mark.parametrize("spelling", ["functionCallingConfig", "function_calling_config"])
def test_gemini_auto_keeps_the_settings_validated_mode_and_names(spelling: str) -> None:
    fcc = {"mode": "VALIDATED", "allowedFunctionNames": ["weather"]}
    model = make_model("gemini", [], tool_config={spelling: fcc})
    body, report = preflight(model, "auto")
    assert body["toolConfig"] == {"functionCallingConfig": fcc}
    assert [c for c in report.changes if c.rule == "gemini.request.tool-choice-setting"] == []


def test_gemini_forcing_choice_replaces_the_setting_and_says_so() -> None:
    model = make_model("gemini", [], tool_config=VALIDATED)
    body, report = preflight(model, {"type": "tool", "name": "weather"})
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["weather"]}}
    (change,) = [c for c in report.changes if c.rule == "gemini.request.tool-choice-setting"]
    assert (change.pointer, change.lossy) == ("/toolConfig/functionCallingConfig", True)
    assert "'VALIDATED'" in change.detail and "'ANY'" in change.detail


def test_gemini_auto_over_a_forcing_setting_is_reported() -> None:
    model = make_model("gemini", [], extra_body={"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}})
    body, report = preflight(model, "auto")
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
    assert [(c.rule, c.pointer) for c in report.changes if c.rule.endswith("tool-choice-setting")] == [
        ("gemini.request.tool-choice-setting", "/toolConfig/functionCallingConfig")
    ]


def test_gemini_setting_alone_is_sent_unreported() -> None:
    model = make_model("gemini", [], tool_config=VALIDATED)
    body, report = preflight(model, None)
    assert body["toolConfig"] == VALIDATED
    assert [c for c in report.changes if c.rule.endswith("tool-choice-setting")] == []


# ------------------------------------------------------------------ OpenAI: allowed_tools kept

ALLOWED = {
    "openai-chat": {
        "type": "allowed_tools",
        "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "weather"}}]},
    },
    "openai": {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "weather"}]},
}


@pytest.mark.parametrize("api", ["openai-chat", "openai"])
def test_openai_allowed_tools_setting_holds_after_a_forced_first_call(api: str) -> None:
    sent: list[dict[str, Any]] = []
    model = make_model(api, sent, extra_body={"tool_choice": ALLOWED[api]})
    result = asyncio.run(toolwire.run(model, "weather in Paris?", tools=[weather], tool_choice="required"))
    assert result.text == "hello"
    # was ["required", "auto"]: the allowed_tools restriction dropped after the first turn
    assert choices(api, sent) == ["required", ALLOWED[api]]
    # the forced first request replaced the setting: reported on that request (the last one, the
    # loop's "auto", kept it and reports nothing)
    assert changes(model, api) == []
    _, report = preflight(model, "required")
    assert [(c.rule, c.pointer, c.lossy) for c in report.changes if c.rule == RULE.format(api=api)] == [
        (RULE.format(api=api), "/tool_choice", True)
    ]


@pytest.mark.parametrize("api", ["openai-chat", "openai"])
def test_openai_auto_over_a_required_setting_is_reported(api: str) -> None:
    model = make_model(api, [], extra_body={"tool_choice": "required"})
    body, report = preflight(model, "auto")
    assert body["tool_choice"] == "auto"
    (change,) = [c for c in report.changes if c.rule == RULE.format(api=api)]
    assert (change.pointer, change.lossy) == ("/tool_choice", True)
    assert "'required'" in change.detail and "'auto'" in change.detail
    body, report = preflight(model, None)  # the setting alone: sent, nothing to report
    assert body["tool_choice"] == "required"
    assert [c for c in report.changes if c.rule == RULE.format(api=api)] == []


# ------------------------------------------------------------------ Anthropic


def test_anthropic_forced_setting_is_not_turned_into_auto_by_parallel_false() -> None:
    model = make_model("anthropic", [], extra_body={"tool_choice": {"type": "any"}}, parallel_tool_calls=False)
    body, report = preflight(model, None)
    # was {"type": "auto", "disable_parallel_tool_use": True}: the forced choice lost without a word
    assert body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
    assert [c for c in report.changes if c.rule == "anthropic.request.tool-choice-setting"] == []


def test_anthropic_request_choice_over_the_setting_is_reported() -> None:
    model = make_model("anthropic", [], extra_body={"tool_choice": {"type": "any"}})
    body, report = preflight(model, "auto")
    assert body["tool_choice"] == {"type": "auto"}
    (change,) = [c for c in report.changes if c.rule == "anthropic.request.tool-choice-setting"]
    assert (change.pointer, change.lossy) == ("/tool_choice", True)


def test_anthropic_auto_keeps_the_settings_auto_with_its_fields() -> None:
    given = {"type": "auto", "disable_parallel_tool_use": True}
    model = make_model("anthropic", [], extra_body={"tool_choice": given})
    body, report = preflight(model, "auto")
    assert body["tool_choice"] == given
    assert [c for c in report.changes if c.rule == "anthropic.request.tool-choice-setting"] == []
