"""Breaker 3: hooks and approval, resuming hand-edited saved runs, odd tool fields and values,
MCP servers that misbehave. Each bad input gets a typed toolwire error or an ``is_error`` result
that says what to do next, never an internal exception from inside toolwire."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import toolwire
from toolwire import Limits, Tool, ToolDefinitionError
from toolwire.errors import ConfigurationError

from .all_apis.answers import APIS, text_answer

httpx2 = pytest.importorskip("httpx2")


def _call_answer(api: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A finished answer of ``api`` calling ``name`` with ``args``."""
    text = json.dumps(args)
    if api == "anthropic":
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m-1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": args}],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 9},
        }
    if api == "openai-chat":
        call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}
        return {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "m-1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
        }
    if api == "openai":
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "m-1",
            "status": "completed",
            "output": [
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": name,
                    "arguments": text,
                    "status": "completed",
                }
            ],
            "usage": {"input_tokens": 3, "output_tokens": 9, "total_tokens": 12},
        }
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"functionCall": {"name": name, "args": args}}]}, "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 9, "totalTokenCount": 12},
    }


def _model(api: str, answers: list[dict[str, Any]], sent: list[dict[str, Any]]) -> Any:
    queue = list(answers)

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=queue.pop(0))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client)


def _thing() -> str:
    """Do the thing."""
    return "done it"


# ----------------------------------------------------------------------------------------------
# 1. A Tool's fields are checked when it is made and when a run starts


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"timeout": -1}, "timeout must be a number of seconds > 0"),
        ({"timeout": 0}, "timeout must be a number of seconds > 0"),
        ({"timeout": math.nan}, "timeout must be a number of seconds > 0"),
        ({"timeout": "5"}, "timeout must be a number of seconds > 0 or None, got str '5'"),
        ({"timeout": True}, "timeout must be a number of seconds > 0 or None, got bool"),
        pytest.param({"timeout": 10**400}, "that a float holds", id="timeout-huge-int"),
        ({"description": 5}, "description must be text"),
        ({"input_schema": 5}, "input_schema must be a JSON Schema object"),
        ({"function": 5}, "function must be a function"),
        ({"strict": "yes"}, "strict must be True, False or None"),
        ({"returns": 5}, "returns must be text or None"),
        ({"provider_data": None}, "provider_data must be a dict"),
        ({"meta": None}, "meta must be a dict"),
    ],
)
def test_a_tool_field_of_the_wrong_type_is_a_tool_definition_error(fields: dict[str, Any], words: str) -> None:
    base: dict[str, Any] = {"description": "Do the thing.", "function": _thing}
    with pytest.raises(ToolDefinitionError) as info:
        Tool("thing", **{**base, **fields})
    assert words in str(info.value) and "'thing'" in str(info.value)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("timeout", "5"),
        pytest.param("timeout", 10**400, id="timeout-huge-int"),
        ("returns", 5),
        ("provider_data", None),
    ],
)
def test_a_tool_field_set_after_the_tool_was_made_is_refused_before_any_request(
    api: str, field: str, value: Any
) -> None:
    thing = toolwire.tool(_thing, name="thing")
    setattr(thing, field, value)
    sent: list[dict[str, Any]] = []
    with pytest.raises(ToolDefinitionError, match=field):
        toolwire.run_sync(_model(api, [_call_answer(api, "thing", {}), text_answer(api)], sent), "go", tools=[thing])
    assert sent == []


def test_usable_timeouts_still_work() -> None:
    assert Tool("thing", "d", function=_thing, timeout=math.inf).timeout == math.inf
    assert Tool("thing", "d", function=_thing, timeout=2).timeout == 2
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(
        _model("anthropic", [_call_answer("anthropic", "thing", {}), text_answer("anthropic", "ok")], sent),
        "go",
        tools=[toolwire.tool(_thing, name="thing", timeout=30)],
        limits=Limits(tool_timeout=math.inf),
    )
    assert result.tool_runs[0].result.content == "done it" and result.text == "ok"


def test_a_tool_timeout_limit_too_large_for_a_float_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="that a float holds"):
        Limits(tool_timeout=10**400)
