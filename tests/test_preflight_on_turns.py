"""``Response.preflight`` (what preflight repaired, and the calls a history left unanswered) on
every turn of every API, streamed or not, through the real adapters and SDKs with only the
network replaced; and an unanswered call answered the same way at every level (run, model, codec)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import Conversation, Message, ReasoningPart, TextPart, ToolCall, ToolResult
from toolwire.adapter import collect_stream
from toolwire.stream import StopEvent, StreamAssembler
from toolwire.turns import NOT_ANSWERED, UNANSWERED_RULE

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

sys.path.insert(0, str(Path(__file__).parent))
from test_events_all_apis import streamed, whole  # noqa: E402  (the per-API answer bodies)

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
STREAM = pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])


def make_model(api: str, stream: bool, sent: list[dict[str, Any]]) -> Any:
    """A model whose every request is answered with the API's text-only answer (turn 2 of the
    shared bodies), as one JSON body or as the API's event stream."""

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        if stream:
            return httpx2.Response(200, content=streamed(api, 2), headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=whole(api, 2))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client, stream=stream)


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    raise AssertionError("never run in these tests")


ASK = Message("user", [TextPart("Weather in Rome?")])
UNANSWERED = Message("assistant", [ToolCall("call_9", "get_weather", {"city": "Rome"})])


def _changes(response: Any) -> list[tuple[str, str | None, str | None]]:
    assert response.preflight is not None, "the turn carries no preflight report"
    return [(c.rule, c.tool, c.call_id) for c in response.preflight]


@STREAM
@pytest.mark.parametrize("api", APIS)
def test_run_reports_the_unanswered_call_it_answered_on_the_first_turn(api: str, stream: bool) -> None:
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(
        make_model(api, stream, sent), conversation=Conversation([ASK, UNANSWERED]), tools=[get_weather]
    )
    assert result.text == "It is sunny in Paris, 21 degrees." and len(sent) == 1
    assert _changes(result.turns[0].response) == [(UNANSWERED_RULE, "get_weather", "call_9")]
    assert NOT_ANSWERED.splitlines()[0] in json.dumps(sent[0])
    # the run's conversation holds the answer, right after the call
    answer = result.conversation.messages[2]
    assert answer.role == "user" and [(r.tool_call_id, r.is_error) for r in answer.tool_results] == [("call_9", True)]


@STREAM
@pytest.mark.parametrize("api", APIS)
def test_model_send_answers_and_reports_an_unanswered_call(api: str, stream: bool) -> None:
    """Without the loop: ``send`` / ``send_stream`` answer the call in the body they send and the
    turn reports it, the same on every API."""
    sent: list[dict[str, Any]] = []
    m = make_model(api, stream, sent)
    request = m.build_request([ASK, UNANSWERED], tools=[get_weather])

    async def main() -> Any:
        if stream:
            return await collect_stream(m.send_stream(request), m.provider)
        return await m.send(request)

    response = asyncio.run(main())
    assert _changes(response) == [(UNANSWERED_RULE, "get_weather", "call_9")]
    change = next(iter(response.preflight))
    assert change.pointer == {"anthropic": "/messages", "openai-chat": "/messages", "openai": "/input"}.get(
        api, "/contents"
    )
    decoded = toolwire.registry.codec(api).decode_request(sent[0])
    results = [r for msg in decoded.messages for r in msg.tool_results]
    assert len(results) == 1 and results[0].is_error and "Call the tool again" in str(results[0].content)
    assert request.messages == [ASK, UNANSWERED]  # the caller's request is not changed


def _repair_case(api: str) -> tuple[list[Message], list[Any], Any, str]:
    """A request each API's profile repairs (messages, tools, tool choice, the rule reported)."""
    if api == "anthropic":  # tool blocks in the history, no tools declared: declared again
        history = [ASK, UNANSWERED, Message("user", [ToolResult("call_9", "sunny")]), Message("user", [TextPart("ok")])]
        return history, [], None, "anthropic.request.tool-blocks-need-tools"
    rule = {"gemini": "gemini.request.tool-config-without-tools"}.get(api, f"{api}.request.tool-choice-without-tools")
    return [ASK], [], "none", rule


@STREAM
@pytest.mark.parametrize("api", APIS)
def test_every_turn_carries_the_profile_repairs_streamed_or_not(api: str, stream: bool) -> None:
    messages, tools, choice, rule = _repair_case(api)
    sent: list[dict[str, Any]] = []
    m = make_model(api, stream, sent)
    result = toolwire.run_sync(m, conversation=Conversation(messages), tools=tools, tool_choice=choice)
    response = result.turns[0].response
    assert [c.rule for c in response.preflight] == [rule]
    assert m.last_preflight is response.preflight
    assert len(sent) == 1


@STREAM
@pytest.mark.parametrize("api", APIS)
def test_a_request_needing_no_repair_leaves_preflight_unset(api: str, stream: bool) -> None:
    result = toolwire.run_sync(make_model(api, stream, []), "Weather?", tools=[get_weather])
    assert result.turns[0].response.preflight is None


def test_the_assembler_takes_the_report_from_the_stop_event_and_equality_ignores_it() -> None:
    report = object()
    asm = StreamAssembler("x")
    asm.feed(StopEvent("end_turn", "done", preflight=report))
    assert asm.response().preflight is report
    assert StopEvent("end_turn", "done", preflight=report) == StopEvent("end_turn", "done")
    assert StreamAssembler("x").response().preflight is None


@pytest.mark.parametrize("api", APIS)
def test_lossy_changes_point_into_the_messages_sent_even_when_an_answer_is_added(api: str) -> None:
    """``send`` answers an unanswered call by adding a user message after it; the pointers of the
    other changes (here another vendor's reasoning left out) still name the part in the
    messages the caller sent, not in that longer list (found by the conversation fuzz test: the
    pointer named the message after the part, which on a run's conversation is another one)."""
    sent: list[dict[str, Any]] = []
    m = make_model(api, False, sent)
    foreign = "gemini" if api != "gemini" else "anthropic"
    messages = [
        ASK,
        UNANSWERED,
        Message("assistant", [ReasoningPart("thinking...", provider=foreign), TextPart("Let me check.")]),
        Message("user", [TextPart("Go on.")]),
    ]
    response = asyncio.run(m.send(m.build_request(messages, tools=[get_weather])))
    lossy = [(c.rule, c.pointer) for c in response.preflight if c.lossy]
    assert lossy == [("reasoning.dropped", "/messages/2/parts/0")]
    assert isinstance(messages[2].parts[0], ReasoningPart)
