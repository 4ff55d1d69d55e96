"""Chat Completions refuses function tools to GPT-5.4 at a reasoning effort, and to GPT-5.5 and
GPT-5.6 unless the effort is 'none' ("Function tools with reasoning_effort are not supported for
gpt-5.4 in /v1/chat/completions. Please use /v1/responses instead."): rule
``openai-chat.request.tools-reasoning-effort-model``, through ``toolwire.model`` and the real
``openai`` SDK over ``httpx2.MockTransport``. A refused request is never sent; the same settings
on the Responses API are sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from openai_wire import completion, response_body

import toolwire
from toolwire.profile import RequestRefused
from toolwire.types import Message

RULE = "openai-chat.request.tools-reasoning-effort-model"


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return "sunny"


def _model(spec: str, **settings: Any) -> Any:
    sent: list[dict[str, Any]] = []
    if spec.startswith("openai-chat:"):
        answer = completion({"content": "Hello."})
    else:
        answer = response_body(
            [
                {
                    "id": "msg_1",
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Hello.", "annotations": []}],
                }
            ]
        )

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(answer))

    model: Any = toolwire.model(
        spec,
        api_key="sk-test",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        **settings,
    )
    model.sent = sent
    return model


def _send(model: Any, tools: list[Any] | None = None) -> Any:
    return asyncio.run(model.send(model.build_request([Message.user("Weather in Paris?")], tools=tools)))


@pytest.mark.parametrize(
    "model_id, effort, pointer",
    [
        ("gpt-5.4", "high", "/reasoning_effort"),
        ("gpt-5.4-mini", "low", "/reasoning_effort"),
        ("gpt-5.5", "medium", "/reasoning_effort"),
        ("gpt-5.5", None, "/tools"),  # reasons by default: refused without an effort too
        ("gpt-5.6-terra", "low", "/reasoning_effort"),
        ("gpt-5.6-luna", None, "/tools"),
        ("gpt-5.6-sol-2026-07-01", "xhigh", "/reasoning_effort"),
    ],
)
def test_refused_before_sending_saying_what_to_do(model_id: str, effort: str | None, pointer: str) -> None:
    settings = {"thinking": {"effort": effort}} if effort else {}
    model = _model(f"openai-chat:{model_id}", **settings)
    with pytest.raises(RequestRefused) as info:
        _send(model, [get_weather])
    assert model.sent == []
    (v,) = info.value.violations
    assert (v.rule, v.pointer) == (RULE, pointer)
    assert f"model 'openai:{model_id}'" in v.message and "thinking={'effort': 'none'}" in v.message


@pytest.mark.parametrize(
    "spec, effort, tools",
    [
        ("openai-chat:gpt-5.6-terra", "none", True),  # the API's own way out
        ("openai-chat:gpt-5.4", None, True),  # default effort 'none'
        ("openai-chat:gpt-5.5", "high", False),  # no tools: reasoning is fine
        ("openai-chat:gpt-5.5-chat-latest", None, True),  # the chat variant does not reason
        ("openai-chat:gpt-5.2", "high", True),  # no error text for 5.2: sent as asked
        ("openai-chat:openai/gpt-5.5", "high", True),  # a router's alias: the router decides
        ("openai:gpt-5.6-terra", "low", True),  # the Responses API takes both
        ("openai:gpt-5.5", None, True),
    ],
)
def test_sent_when_the_api_takes_it(spec: str, effort: str | None, tools: bool) -> None:
    settings = {"thinking": {"effort": effort}} if effort else {}
    model = _model(spec, **settings)
    assert _send(model, [get_weather] if tools else None).text == "Hello."
    (body,) = model.sent
    assert bool(body.get("tools")) is tools
    sent_effort = (
        body.get("reasoning_effort") if spec.startswith("openai-chat:") else body.get("reasoning", {}).get("effort")
    )
    assert sent_effort == effort


def test_a_run_with_tools_on_gpt_5_5_is_refused_and_never_posts() -> None:
    model = _model("openai-chat:gpt-5.5", thinking={"effort": "high"})
    with pytest.raises(RequestRefused, match="use the Responses API"):
        toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather])
    assert model.sent == []
