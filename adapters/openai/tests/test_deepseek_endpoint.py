"""DeepSeek's API (``base_url`` on api.deepseek.com) through ``openai-chat`` in thinking mode (rule
``openai-chat.server.deepseek-reasoning-content``), with the real ``openai`` SDK and only the
network replaced: every tool-call turn carries the ``reasoning_content`` DeepSeek sent with it,
an empty one included ("The `reasoning_content` in the thinking mode must be passed back to the
API.", craft-ai-agents/craft-agents-oss#703), and a tool-call turn of another provider, which
has none, is refused before sending ("Missing `reasoning_content` field in the assistant message
at message index 2", continuedev/continue#11285) unless thinking is off."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from openai_wire import Server

import toolwire
from toolwire.profile import RequestRefused
from toolwire.types import Conversation, Message, ReasoningPart, ToolCall, ToolResult

DEEPSEEK = "https://api.deepseek.com"


def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def _json(message: dict[str, Any], finish: str = "stop") -> httpx2.Response:
    body = {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "deepseek-v4-flash",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))


def _sse(deltas: list[dict[str, Any]], finish: str) -> httpx2.Response:
    base = {"id": "cmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "deepseek-v4-flash"}
    chunks = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


CALL = {"id": "call_00_a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Turin"}'}}


def _model(server: Server, model_id: str = "deepseek-v4-flash", base_url: str = DEEPSEEK, **settings: Any) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    return toolwire.model(f"openai-chat:{model_id}", base_url=base_url, http_client=client, api_key="k", **settings)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_an_empty_reasoning_content_goes_back_on_its_tool_call_turn(stream: bool) -> None:
    """DeepSeek V4 sometimes reasons nothing before a call and sends reasoning_content "": the next
    request must carry it back on that turn (craft-ai-agents/craft-agents-oss#703)."""
    if stream:
        first = _sse(
            [{"role": "assistant", "content": None, "reasoning_content": ""}, {"tool_calls": [{**CALL, "index": 0}]}],
            "tool_calls",
        )
        second = _sse([{"role": "assistant", "content": "Sunny."}], "stop")
    else:
        first = _json({"content": None, "reasoning_content": "", "tool_calls": [CALL]}, "tool_calls")
        second = _json({"content": "Sunny.", "reasoning_content": "It is sunny."})
    server = Server(first, second)
    result = toolwire.run_sync(_model(server, stream=stream), "Weather in Turin?", tools=[get_weather])
    assert result.text == "Sunny."
    turn = server.bodies[1]["messages"][1]
    assert turn["tool_calls"][0]["id"] == "call_00_a"
    assert turn["reasoning_content"] == ""
    assert result.turns[-1].response.preflight is None or not [
        c for c in result.turns[-1].response.preflight if c.rule.startswith("openai-chat.server.deepseek")
    ]


def test_deepseek_gets_its_reasoning_back_on_every_answer_of_a_tool_turn() -> None:
    """Between two user messages with a tool call, the reasoning of every answer goes back (the
    final answer's too); without a tool call DeepSeek ignores it."""
    server = Server(
        _json({"content": None, "reasoning_content": "Look it up.", "tool_calls": [CALL]}, "tool_calls"),
        _json({"content": "Sunny.", "reasoning_content": "The tool says sunny."}),
        _json({"content": "Bye."}),
    )
    model = _model(server)
    result = toolwire.run_sync(model, "Weather in Turin?", tools=[get_weather])
    toolwire.run_sync(model, "Thanks!", conversation=result.conversation, tools=[get_weather])
    sent = [(m["role"], m.get("reasoning_content")) for m in server.bodies[2]["messages"]]
    assert sent == [
        ("user", None),
        ("assistant", "Look it up."),
        ("tool", None),
        ("assistant", "The tool says sunny."),
        ("user", None),
    ]


def _foreign_history() -> Conversation:
    """A tool turn another provider answered (its reasoning is not DeepSeek's to send)."""
    return Conversation(
        [
            Message.user("Weather in Turin?"),
            Message(
                "assistant",
                [
                    ReasoningPart(text="Claude's thinking.", provider="anthropic", signature="sig"),
                    ToolCall("toolu_01", "get_weather", {"city": "Turin"}),
                ],
            ),
            Message("user", [ToolResult("toolu_01", "sunny in Turin")]),
            Message.assistant("Sunny in Turin."),
        ]
    )


@pytest.mark.parametrize("model_id", ["deepseek-v4-flash", "deepseek-v4-pro", "deepseek-reasoner"])
def test_another_providers_tool_turn_is_refused_in_thinking_mode_before_sending(model_id: str) -> None:
    server = Server(_json({"content": "ok"}))
    with pytest.raises(RequestRefused) as exc:
        toolwire.run_sync(
            _model(server, model_id), "And in Rome?", conversation=_foreign_history(), tools=[get_weather]
        )
    (v,) = exc.value.violations
    assert (v.rule, v.pointer) == ("openai-chat.server.deepseek-reasoning-content", "/messages/1")
    assert "thinking={'type': 'disabled'}" in v.message
    assert server.bodies == []


@pytest.mark.parametrize(
    "model_id, settings",
    [
        ("deepseek-v4-flash", {"extra_body": {"thinking": {"type": "disabled"}}}),
        ("deepseek-v4-flash", {"thinking": {"type": "disabled"}}),
        ("deepseek-chat", {}),
    ],
    ids=["thinking-disabled-extra-body", "thinking-disabled", "deepseek-chat"],
)
def test_without_thinking_another_providers_tool_turn_is_sent(model_id: str, settings: dict[str, Any]) -> None:
    server = Server(_json({"content": "Cloudy in Rome."}))
    result = toolwire.run_sync(
        _model(server, model_id, **settings), "And in Rome?", conversation=_foreign_history(), tools=[get_weather]
    )
    assert result.text == "Cloudy in Rome."
    assert "reasoning_content" not in server.bodies[0]["messages"][1]
    wanted = (settings.get("extra_body") or settings).get("thinking")
    assert server.bodies[0].get("thinking") == wanted


def test_other_servers_are_not_affected() -> None:
    """The same history to another compatible server is sent (the rule is DeepSeek's host only)."""
    server = Server(_json({"content": "Cloudy in Rome."}))
    model = _model(server, base_url="http://localhost:8000/v1")
    result = toolwire.run_sync(model, "And in Rome?", conversation=_foreign_history(), tools=[get_weather])
    assert result.text == "Cloudy in Rome."


def test_a_null_reasoning_content_in_a_stream_is_no_field() -> None:
    """vLLM-style deltas carry reasoning_content null: nothing is sent back for it."""
    first = _sse(
        [{"role": "assistant", "content": None, "reasoning_content": None}, {"tool_calls": [{**CALL, "index": 0}]}],
        "tool_calls",
    )
    server = Server(first, _sse([{"role": "assistant", "content": "Sunny."}], "stop"))
    model = _model(server, base_url="http://localhost:8000/v1", stream=True)
    toolwire.run_sync(model, "Weather in Turin?", tools=[get_weather])
    assert "reasoning_content" not in server.bodies[1]["messages"][1]


@pytest.mark.parametrize(
    ("thinking", "sent"),
    [
        ({"type": "disabled"}, {"thinking": {"type": "disabled"}}),
        ({"type": "enabled"}, {"thinking": {"type": "enabled"}}),
        ({"type": "enabled", "effort": "max"}, {"thinking": {"type": "enabled"}, "reasoning_effort": "max"}),
        ({"effort": "high"}, {"reasoning_effort": "high"}),
        ({"effort": "none"}, {"thinking": {"type": "disabled"}}),
    ],
)
def test_the_thinking_setting_is_sent_as_deepseeks_own_switch(thinking: dict[str, Any], sent: dict[str, Any]) -> None:
    """DeepSeek turns thinking on and off with its own field, {"thinking": {"type":
    "enabled/disabled"}} in the OpenAI format, and sets its depth with reasoning_effort
    (api-docs.deepseek.com guides/thinking_mode); effort "none" is its Responses-format switch
    off. The canonical setting reaches the body in those fields (it was left out without a word)."""
    server = Server(_json({"content": "Hi."}))
    result = toolwire.run_sync(_model(server, thinking=thinking), "hello")
    assert result.text == "Hi."
    body = server.bodies[0]
    assert {k: body[k] for k in ("thinking", "reasoning_effort") if k in body} == sent


def test_deepseeks_own_field_in_extra_body_wins_over_the_setting() -> None:
    server = Server(_json({"content": "Hi."}))
    model = _model(server, thinking={"type": "enabled"}, extra_body={"thinking": {"type": "disabled"}})
    toolwire.run_sync(model, "hello")
    assert server.bodies[0]["thinking"] == {"type": "disabled"}


@pytest.mark.parametrize(
    ("base_url", "thinking", "named"),
    [
        (DEEPSEEK, {"type": "enabled", "budget_tokens": 2000}, "'budget_tokens'"),
        (DEEPSEEK, {"type": "on"}, "'type'"),
        (DEEPSEEK, {"effort": "high", "summary": "auto"}, "'summary'"),
        (None, {"type": "disabled"}, "'type'"),
        (None, {"budget": 1024, "include_thoughts": True}, "'budget', 'include_thoughts'"),
    ],
)
def test_a_thinking_form_the_server_does_not_read_is_refused_when_the_model_is_made(
    base_url: str | None, thinking: dict[str, Any], named: str
) -> None:
    """Another vendor's thinking form (Anthropic's type and budget_tokens, Gemini's budget) was
    left out of the body without a word; it is a ConfigurationError naming the keys, before
    anything is sent."""
    settings: dict[str, Any] = {"base_url": base_url} if base_url else {}
    with pytest.raises(toolwire.ConfigurationError) as info:
        toolwire.model(
            "openai-chat:deepseek-v4-flash" if base_url else "openai-chat:gpt-5",
            api_key="k",
            thinking=thinking,
            **settings,
        )
    message = str(info.value)
    assert f"does not read {named} here" in message
    assert "thinking={'effort': 'low'" in message


@pytest.mark.parametrize("thinking", [{"type": "enabled", "budget_tokens": 2000}, {"type": "disabled"}, {"budget": 10}])
def test_the_responses_api_refuses_a_thinking_form_it_does_not_read(thinking: dict[str, Any]) -> None:
    with pytest.raises(toolwire.ConfigurationError, match="the OpenAI Responses API does not read"):
        toolwire.model("openai:gpt-5", api_key="k", thinking=thinking)
    model = toolwire.model("openai:gpt-5", api_key="k", thinking={"effort": "low", "summary": "auto"})
    assert model.settings["thinking"] == {"effort": "low", "summary": "auto"}


@pytest.mark.parametrize("effort", [3, True, {"level": "high"}, "", "extreme", "budget"])
def test_an_effort_deepseek_does_not_take_is_refused_when_the_model_is_made(effort: Any) -> None:
    """DeepSeek's reasoning_effort takes minimal, low, medium, high, xhigh, max or ultra
    (api-docs.deepseek.com guides/thinking_mode); any other value (a number, a bool, a dict, an
    unknown word) was sent as reasoning_effort unchecked, for DeepSeek to refuse on every turn."""
    with pytest.raises(toolwire.ConfigurationError, match="is not one DeepSeek's API takes") as info:
        toolwire.model("openai-chat:deepseek-v4-flash", base_url=DEEPSEEK, api_key="k", thinking={"effort": effort})
    assert "'max'" in str(info.value)


@pytest.mark.parametrize(
    ("effort", "sent"),
    [
        ("HIGH", {"reasoning_effort": "high"}),
        (" Max ", {"reasoning_effort": "max"}),
        ("ultra", {"reasoning_effort": "ultra"}),
        ("NONE", {"thinking": {"type": "disabled"}}),
    ],
)
def test_an_effort_in_any_case_is_sent_to_deepseek_in_lower_case(effort: str, sent: dict[str, Any]) -> None:
    server = Server(_json({"content": "Hi."}))
    result = toolwire.run_sync(_model(server, thinking={"effort": effort}), "hello")
    assert result.text == "Hi."
    body = server.bodies[0]
    assert {k: body[k] for k in ("thinking", "reasoning_effort") if k in body} == sent


def test_effort_none_with_deepseeks_own_field_in_extra_body_sends_no_effort() -> None:
    """DeepSeek's OpenAI format takes efforts low/high/max (and the names it maps to them), not
    "none": with the switch given in extra_body, the effort "none" is not sent as reasoning_effort."""
    server = Server(_json({"content": "Hi."}))
    model = _model(server, thinking={"effort": "none"}, extra_body={"thinking": {"type": "enabled"}})
    toolwire.run_sync(model, "hello")
    assert server.bodies[0]["thinking"] == {"type": "enabled"}
    assert "reasoning_effort" not in server.bodies[0]
