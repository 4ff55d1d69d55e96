"""OpenAI-compatible servers (llama.cpp's llama-server, Ollama, vLLM) through ``openai-chat``
with a custom ``base_url``: the forms they read, a forced tool they cannot express, 401 hints.

The real ``openai`` SDK sends every request; only the network is replaced.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire.errors import ProviderError

BASE = "http://127.0.0.1:8080/v1"


def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def get_time(zone: str) -> str:
    """Local time in a time zone."""
    return f"12:00 in {zone}"


RAN: list[str] = []


def record_weather(city: str) -> str:
    """Weather for a city."""
    RAN.append(f"weather:{city}")
    return f"sunny in {city}"


def record_time(zone: str) -> str:
    """Local time in a time zone."""
    RAN.append(f"time:{zone}")
    return f"12:00 in {zone}"


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "smollm2",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _call(name: str, arguments: str, call_id: str = "call_1") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


class Server:
    def __init__(self, *answers: httpx2.Response) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        self.headers.append(dict(request.headers))
        return self.answers.pop(0)


def _ok(body: dict[str, Any], status: int = 200) -> httpx2.Response:
    return httpx2.Response(status, headers={"content-type": "application/json"}, text=json.dumps(body))


def _model(server: Server, base_url: str | None = BASE, **settings: Any) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    if base_url is not None:
        settings["base_url"] = base_url
    return toolwire.model("openai-chat:smollm2", http_client=client, **settings)


def test_a_compatible_server_gets_max_tokens_and_openai_gets_max_completion_tokens() -> None:
    local = Server(_ok(_completion({"content": "hi"}, "stop")))
    asyncio.run(toolwire.run(_model(local, max_tokens=64), "hi"))
    assert local.bodies[0]["max_tokens"] == 64 and "max_completion_tokens" not in local.bodies[0]
    openai = Server(_ok(_completion({"content": "hi"}, "stop")))
    asyncio.run(toolwire.run(_model(openai, base_url=None, api_key="sk-test", max_tokens=64), "hi"))
    assert openai.bodies[0]["max_completion_tokens"] == 64 and "max_tokens" not in openai.bodies[0]
    chosen = Server(_ok(_completion({"content": "hi"}, "stop")))
    asyncio.run(toolwire.run(_model(chosen, max_tokens=64, max_tokens_field="max_completion_tokens"), "hi"))
    assert chosen.bodies[0]["max_completion_tokens"] == 64


def test_a_forced_tool_is_sent_as_required_with_only_that_tool_to_a_compatible_server() -> None:
    server = Server(
        _ok(_completion({"content": None, "tool_calls": [_call("get_time", '{"zone": "UTC"}')]}, "tool_calls")),
        _ok(_completion({"content": "done"}, "stop")),
    )
    toolwire.run_sync(
        _model(server), "time?", tools=[get_weather, get_time], tool_choice={"type": "tool", "name": "get_time"}
    )
    first = server.bodies[0]
    assert first["tool_choice"] == "required"
    assert [t["function"]["name"] for t in first["tools"]] == ["get_time"]
    # the next request is back to auto with every tool declared
    assert server.bodies[1]["tool_choice"] == "auto"
    assert [t["function"]["name"] for t in server.bodies[1]["tools"]] == ["get_weather", "get_time"]


def test_openai_itself_gets_the_named_object() -> None:
    server = Server(
        _ok(_completion({"content": None, "tool_calls": [_call("get_time", '{"zone": "UTC"}')]}, "tool_calls")),
        _ok(_completion({"content": "done"}, "stop")),
    )
    toolwire.run_sync(
        _model(server, base_url=None, api_key="sk-test"),
        "time?",
        tools=[get_weather, get_time],
        tool_choice={"type": "tool", "name": "get_time"},
    )
    assert server.bodies[0]["tool_choice"] == {"type": "function", "function": {"name": "get_time"}}
    assert len(server.bodies[0]["tools"]) == 2
    forced = Server(_ok(_completion({"content": "x"}, "stop")))
    toolwire.run_sync(
        _model(forced, named_tool_choice="object"),
        "time?",
        tools=[get_weather, get_time],
        tool_choice={"type": "tool", "name": "get_time"},
    )
    assert forced.bodies[0]["tool_choice"] == {"type": "function", "function": {"name": "get_time"}}


def test_a_call_that_contradicts_the_forced_choice_is_never_run() -> None:
    """The server ignores the forced choice (llama.cpp does for the object form) and the model
    calls the other tool: the call is answered with an error result, not run."""
    RAN.clear()
    server = Server(
        _ok(_completion({"content": None, "tool_calls": [_call("record_weather", '{"city": "Paris"}')]}, "tool_calls")),
        _ok(_completion({"content": "sorry"}, "stop")),
    )
    result = toolwire.run_sync(
        _model(server, named_tool_choice="object"),
        "time?",
        tools=[record_weather, record_time],
        tool_choice={"type": "tool", "name": "record_time"},
    )
    assert RAN == []
    (run,) = result.tool_runs
    assert run.status == "invalid" and run.result.is_error is True
    assert run.result.content == (
        "Not run: this request forced the tool 'record_time' (tool_choice), but the model called 'record_weather'; "
        "the server did not apply the forced choice. Call 'record_time' instead."
    )
    sent_back = server.bodies[1]["messages"][-1]
    assert sent_back["role"] == "tool" and sent_back["tool_call_id"] == "call_1"
    assert sent_back["content"].startswith("Error: Not run: this request forced the tool 'record_time'")


def test_empty_arguments_a_server_substituted_fail_validation_visibly() -> None:
    """llama.cpp forwards a model's non-object arguments (an array) as "{}": toolwire cannot see
    the original, but the call fails the input schema and the model is told what is missing."""
    RAN.clear()
    server = Server(
        _ok(_completion({"content": None, "tool_calls": [_call("record_weather", "{}")]}, "tool_calls")),
        _ok(_completion({"content": "ok"}, "stop")),
    )
    result = toolwire.run_sync(_model(server), "weather?", tools=[record_weather])
    assert RAN == []
    (run,) = result.tool_runs
    assert run.status == "invalid" and run.call.arguments == {} and run.call.raw_arguments == "{}"
    assert "'city' is a required property" in run.result.content


def test_a_401_from_a_compatible_server_says_which_key_was_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-local")
    denied = {"error": {"code": 401, "message": "Invalid API Key", "type": "authentication_error"}}
    server = Server(_ok(denied, 401))
    with pytest.raises(ProviderError) as info:
        toolwire.run_sync(_model(server), "hi")
    assert info.value.status == 401 and info.value.retryable is False
    assert info.value.message == (
        "Invalid API Key (toolwire sent no API key (OPENAI_API_KEY is not sent to a base_url other than "
        "api.openai.com) to http://127.0.0.1:8080/v1; pass the server's key with api_key=... or name its "
        "variable with api_key_env=...)"
    )
    assert "authorization" not in server.headers[0]
    monkeypatch.setenv("LLAMA_KEY", "local-secret")
    server = Server(_ok(denied, 401))
    with pytest.raises(ProviderError) as info:
        toolwire.run_sync(_model(server, api_key_env="LLAMA_KEY"), "hi")
    assert "toolwire sent the key in $LLAMA_KEY to http://127.0.0.1:8080/v1" in info.value.message
    assert server.headers[0]["authorization"] == "Bearer local-secret"
