"""Tool calls whose name Gemini would refuse (empty, missing, not a string, breaking its rule):
the loop answers them with an ``is_error`` result and the next request still has a valid body —
the call and its result go out under ``invalid_tool_name`` — whichever provider made the call.
Through the real ``google-genai`` SDK with ``httpx2.MockTransport``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from gemini_wire_helpers import candidate_body, json_response
from toolwire_gemini.codec import INVALID_NAME_PLACEHOLDER, wire_function_name

import toolwire
from toolwire import Conversation, Message
from toolwire.testing.conversation_rules import validate_request


@toolwire.tool
def get_weather(city: str) -> str:
    """Forecast for a city. Use when the user asks about the weather.

    Args:
        city: City name.
    """
    return f"sunny in {city}"


def _run(mock_model, first_call: dict[str, Any]) -> tuple[Any, Any]:
    answers = [
        json_response(candidate_body([{"functionCall": first_call}])),
        json_response(candidate_body([{"text": "done"}])),
    ]
    model = mock_model(answers)
    result = asyncio.run(toolwire.run(model, "Weather in Paris?", tools=[get_weather]))
    return model, result


@pytest.mark.parametrize(
    "call, kept_name",
    [
        ({"name": "", "args": {"city": "Paris"}}, ""),
        ({"args": {"city": "Paris"}}, ""),
        ({"name": 7, "args": {"city": "Paris"}}, "7"),
        ({"name": {"x": 1}, "args": {"city": "Paris"}}, '{"x": 1}'),
    ],
    ids=["empty", "missing", "number", "object"],
)
def test_a_nameless_gemini_call_is_answered_and_the_run_goes_on(mock_model, call, kept_name):
    model, result = _run(mock_model, call)
    assert len(model.sent) == 2 and result.text == "done" and result.stop_reason == "end_turn"
    run = result.tool_runs[0]
    assert run.result.is_error and run.call.invalid == "the tool name is missing or not a string"
    assert run.call.name == kept_name and run.result.name == kept_name  # the name as sent, kept in the conversation
    body = model.sent[1].json
    assert validate_request("gemini", body) == []
    model_turn, answer_turn = body["contents"][1], body["contents"][2]
    assert model_turn == {
        "role": "model",
        "parts": [{"functionCall": {"name": "invalid_tool_name", "args": {"city": "Paris"}}}],
    }
    assert answer_turn == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "invalid_tool_name", "response": {"error": run.result.text}}}],
    }


def test_a_nameless_call_from_another_provider_continues_on_gemini(mock_model):
    """An Anthropic ``tool_use`` with an empty name, answered by the loop, then the conversation
    continues on Gemini: the pair is sent under the placeholder, the real call keeps its name."""
    pytest.importorskip("toolwire_anthropic")
    body = {
        "id": "msg_01X",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "stop_reason": "tool_use",
        "content": [
            {"type": "tool_use", "id": "toolu_01A", "name": "", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Oslo"}},
        ],
        "usage": {"input_tokens": 5, "output_tokens": 5},
    }

    def anthropic_answer(request):
        return httpx2.Response(200, json=body)

    claude = toolwire.model(
        "anthropic:claude-x",
        api_key="k",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(anthropic_answer)),
    )
    conv = Conversation()
    with pytest.raises(toolwire.errors.MaxTurnsExceeded) as info:
        asyncio.run(toolwire.run(claude, "Weather?", tools=[get_weather], conversation=conv, max_turns=1))
    conv = info.value.conversation
    gemini = mock_model([json_response(candidate_body([{"text": "done"}]))])
    result = asyncio.run(toolwire.run(gemini, "And now?", tools=[get_weather], conversation=conv))
    assert result.text == "done"
    sent = gemini.sent[0].json
    assert validate_request("gemini", sent) == []
    calls = [p["functionCall"]["name"] for c in sent["contents"] for p in c["parts"] if "functionCall" in p]
    answers = [
        (p["functionResponse"]["name"], next(iter(p["functionResponse"]["response"])))
        for c in sent["contents"]
        for p in c["parts"]
        if "functionResponse" in p
    ]
    assert calls == ["invalid_tool_name", "get_weather"]
    assert [name for name, _ in answers] == ["invalid_tool_name", "get_weather"] and answers[0][1] == "error"


@pytest.mark.parametrize(
    "name, wire",
    [
        ("get_weather", "get_weather"),
        ("ns.tool:v1-2", "ns.tool:v1-2"),
        ("_x", "_x"),
        ("", INVALID_NAME_PLACEHOLDER),
        ("9lives", INVALID_NAME_PLACEHOLDER),
        ("get weather", INVALID_NAME_PLACEHOLDER),
        ("a" * 64, "a" * 64),
        ("a" * 65, INVALID_NAME_PLACEHOLDER),
        (None, INVALID_NAME_PLACEHOLDER),
        ('{"x": 1}', INVALID_NAME_PLACEHOLDER),
    ],
)
def test_wire_function_name_follows_geminis_rule(name, wire):
    assert wire_function_name(name) == wire


def test_an_orphan_result_without_a_name_is_still_a_configuration_error():
    from toolwire_gemini import GeminiCodec

    from toolwire.adapter import ModelRequest
    from toolwire.errors import ConfigurationError
    from toolwire.types import ToolResult

    req = ModelRequest(
        model="gemini-x", messages=[Message.user("hi"), Message("user", [ToolResult("nowhere", "x", name="")])]
    )
    with pytest.raises(ConfigurationError, match="answers no tool call of the conversation and has no name"):
        GeminiCodec().encode_request(req)
    req.messages[1].parts[0].name = "bad name!"
    fr = GeminiCodec().encode_request(req)["contents"][1]["parts"][0]["functionResponse"]
    assert fr["name"] == INVALID_NAME_PLACEHOLDER and json.dumps(fr["response"]) == '{"output": "x"}'
