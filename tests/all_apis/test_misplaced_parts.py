"""Parts in a message of the wrong role, sent through ``Model.send`` (``toolwire.run`` refuses such a
history up front): a tool call in a user message, a tool result in an assistant message (after its
call, before it, or answering no call), a reasoning part in a user message. Every API treats each the
same way, and every part not sent as given is named in the request's report
(``model.last_preflight``); the report is checked against the body actually sent, through the real
adapters and SDKs with only the network replaced."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from toolwire import Message, ReasoningPart, TextPart, ToolCall, ToolResult
from toolwire.testing.conversation_rules import validate_request

from .answers import APIS
from .test_turns import _order, get_weather, make_model, text_answer

httpx2 = pytest.importorskip("httpx2")

CALL_IN_USER = "conversation.call-in-user-message"
RESULT_IN_ASSISTANT = "conversation.result-in-assistant-message"
MOVED = "conversation.result-moved"


def _send(api: str, messages: list[Message]) -> tuple[dict[str, Any], list[tuple[str, str, str | None, bool]]]:
    """The body ``Model.send`` sent for ``messages`` and its report's changes
    (``(rule, pointer, call_id, lossy)``)."""
    sent: list[dict[str, Any]] = []
    model = make_model(api, [text_answer(api, "done")], sent)
    response = asyncio.run(model.send(model.build_request(messages, tools=[get_weather])))
    assert response.text == "done" and len(sent) == 1
    assert validate_request(api, sent[0]) == []
    report = model.last_preflight
    assert report is not None and response.preflight is (report if report.changes else None)
    return sent[0], [(c.rule, c.pointer, c.call_id, c.lossy) for c in report.changes]


def _marker(part: Any) -> str | None:
    """The text that shows a part in a body: a result's content, a call's city, reasoning's text."""
    if isinstance(part, ToolResult):
        return str(part.content)
    if isinstance(part, ToolCall):
        return str((part.arguments or {})["city"])
    if isinstance(part, (ReasoningPart, TextPart)):
        return part.text
    return None


def _assert_report_matches_body(messages: list[Message], body: dict[str, Any], changes: list[Any]) -> None:
    """Each part a lossy change points at is absent from ``body``; every other part is in it."""
    lost = {pointer for _, pointer, _, lossy in changes if lossy}
    text = json.dumps(body, ensure_ascii=False)
    for i, m in enumerate(messages):
        for j, p in enumerate(m.parts):
            marker = _marker(p)
            assert marker is not None
            pointer = f"/messages/{i}/parts/{j}"
            if pointer in lost:
                assert marker not in text, f"{pointer} is reported left out but was sent"
            else:
                assert marker in text, f"{pointer} was left out unreported"


@pytest.mark.parametrize("answered", [False, True], ids=["unanswered", "answered later"])
@pytest.mark.parametrize("api", APIS)
def test_a_tool_call_in_a_user_message_is_left_out_and_reported(api: str, answered: bool) -> None:
    """The model never made a call written in a user message, so no API is told it did: the call
    is left out, with any result answering it (which would answer no call of the body). Both
    were left out without a word, and a result answering it made every API refuse the request."""
    messages = [Message("user", [TextPart("weather?"), ToolCall("call_u", "get_weather", {"city": "Uppsala"})])]
    if answered:
        messages += [
            Message.assistant("checking"),
            Message("user", [ToolResult("call_u", "R-user", name="get_weather")]),
        ]
    body, changes = _send(api, messages)
    expected = [(CALL_IN_USER, "/messages/0/parts/1", "call_u", True)]
    if answered:
        expected.append((CALL_IN_USER, "/messages/2/parts/0", "call_u", True))
    assert changes == expected
    assert [x for x in _order(api, body) if not x.startswith("text:")] == []
    _assert_report_matches_body(messages, body, changes)


@pytest.mark.parametrize("where", ["after its call", "before its call"])
@pytest.mark.parametrize("api", APIS)
def test_a_result_in_its_calls_assistant_message_is_sent_after_the_call(api: str, where: str) -> None:
    """A result in the assistant message holding its call is sent where every API takes it, first
    in the user message after the call, and reported as moved (not lossy). Anthropic sent it so
    but, placed before the call, reported it as left out; the other APIs dropped it unsaid and
    then refused the request for the call's missing result."""
    call = ToolCall("call_1", "get_weather", {"city": "Oslo"})
    result = ToolResult("call_1", "R-4C", name="get_weather")
    parts: list[Any] = [call, result] if where == "after its call" else [result, call]
    messages = [Message.user("weather?"), Message("assistant", parts), Message.user("and now?")]
    body, changes = _send(api, messages)
    pointer = "/messages/1/parts/1" if where == "after its call" else "/messages/1/parts/0"
    assert changes == [(MOVED, pointer, "call_1", False)]
    ids = ("call:Oslo", "result:R-4C") if api == "gemini" else ("call:call_1", "result:call_1")
    assert _order(api, body) == ["text:weather?", *ids, "text:and now?"]
    _assert_report_matches_body(messages, body, changes)


@pytest.mark.parametrize("api", APIS)
def test_a_result_in_a_later_assistant_message_is_sent_after_its_call(api: str) -> None:
    """An assistant message right after the call's holding its result (no user message between):
    sent after the call, reported as moved; the APIs that merge the two assistant messages into
    one turn did not move it, and their codecs dropped it."""
    messages = [
        Message.user("weather?"),
        Message("assistant", [ToolCall("call_1", "get_weather", {"city": "Oslo"})]),
        Message("assistant", [TextPart("note"), ToolResult("call_1", "R-4C", name="get_weather")]),
    ]
    body, changes = _send(api, messages)
    assert changes == [(MOVED, "/messages/2/parts/1", "call_1", False)]
    ids = ("call:Oslo", "result:R-4C") if api == "gemini" else ("call:call_1", "result:call_1")
    assert _order(api, body)[:3] == ["text:weather?", *ids]
    _assert_report_matches_body(messages, body, changes)


@pytest.mark.parametrize("api", APIS)
def test_a_result_in_its_own_message_gives_way_to_one_in_a_later_message(api: str) -> None:
    """A call answered both in its own assistant message and in the user message after it: the
    user message's result is sent (the one placed where results go), the other is reported as a
    second result left out."""
    messages = [
        Message.user("weather?"),
        Message(
            "assistant",
            [ToolCall("call_1", "get_weather", {"city": "Oslo"}), ToolResult("call_1", "R-own", name="get_weather")],
        ),
        Message("user", [ToolResult("call_1", "R-user", name="get_weather")]),
    ]
    body, changes = _send(api, messages)
    assert changes == [("conversation.duplicate-result", "/messages/1/parts/1", "call_1", True)]
    _assert_report_matches_body(messages, body, changes)


@pytest.mark.parametrize("call_later", [False, True], ids=["no call", "call in a later message"])
@pytest.mark.parametrize("api", APIS)
def test_a_result_in_an_assistant_message_answering_no_earlier_call_is_reported(api: str, call_later: bool) -> None:
    """A result in an assistant message that answers no call made at or before it cannot be put
    anywhere a result is taken: every API leaves it out, and now reports it (lossy); it was left
    out without a word (Anthropic reported the one before a later call as ``result-before-call``
    only by chance of its placement)."""
    messages = [
        Message.user("weather?"),
        Message("assistant", [TextPart("note"), ToolResult("call_9", "R-orphan", name="get_weather")]),
        Message.user("and now?"),
    ]
    if call_later:
        messages += [
            Message("assistant", [ToolCall("call_9", "get_weather", {"city": "Oslo"})]),
            Message("user", [ToolResult("call_9", "R-late", name="get_weather")]),
        ]
    body, changes = _send(api, messages)
    assert changes == [(RESULT_IN_ASSISTANT, "/messages/1/parts/1", "call_9", True)]
    _assert_report_matches_body(messages, body, changes)


@pytest.mark.parametrize("provider", ["same", "other", None])
@pytest.mark.parametrize("api", APIS)
def test_reasoning_in_a_user_message_is_reported_when_left_out(api: str, provider: str | None) -> None:
    """Reasoning is the model's: no API takes it in a user message. Reasoning of the API's own was
    left out there unsaid (that of another API was reported as ``reasoning.dropped``); now each is."""
    who = {"same": api, "other": "gemini" if api != "gemini" else "anthropic", None: None}[provider]
    messages = [Message("user", [TextPart("weather?"), ReasoningPart("T-thinking", signature="c2ln", provider=who)])]
    body, changes = _send(api, messages)
    assert changes == [("reasoning.dropped", "/messages/0/parts/1", None, True)]
    _assert_report_matches_body(messages, body, changes)


@pytest.mark.parametrize("api", APIS)
def test_a_later_request_whose_new_messages_are_all_left_out_reports_them(api: str) -> None:
    """A conversation of 16 messages or more is encoded from the previous request's entries plus
    the new messages alone. When every new message is left out (here an assistant message holding
    only a result that answers no call), the request sent nothing new and its report named
    nothing: the lossy change a whole encode reports was missing. The body and the report now
    equal those of the same request encoded whole."""
    from toolwire import Conversation

    history = [Message.user("M-q0")]
    for k in range(8):
        history.append(Message("assistant", [ToolCall(f"call_{k}", "get_weather", {"city": f"M-c{k}"})]))
        history.append(Message("user", [ToolResult(f"call_{k}", f"M-r{k}", name="get_weather")]))
    messages = [*history, Message("assistant", [ToolResult("call_9", "M-orphan", name="get_weather")])]
    assert len(history) >= 16
    sent: list[dict[str, Any]] = []
    model = make_model(api, [text_answer(api, "one"), text_answer(api, "two")], sent)
    owner = Conversation()  # a run's conversation: its requests are encoded from the previous one's
    reports = []
    for msgs in (history, messages):
        request = model.build_request(msgs, tools=[get_weather])
        request.conversation = owner
        asyncio.run(model.send(request))
        reports.append(model.last_preflight)
    whole, whole_changes = _send(api, messages)
    assert sent[1] == whole
    expected = [(RESULT_IN_ASSISTANT, "/messages/17/parts/0", "call_9", True)]
    assert whole_changes == expected
    assert [(c.rule, c.pointer, c.call_id, c.lossy) for c in reports[1].changes] == expected
    _assert_report_matches_body(messages, sent[1], expected)


@pytest.mark.parametrize("calls", [1, 2])
@pytest.mark.parametrize("api", APIS)
def test_results_moved_out_of_a_message_they_filled_are_reported(api: str, calls: int) -> None:
    """An assistant message holding only the results of the calls just before it: they are sent
    in a new user message right after the calls, in the place of the message they leave empty.
    The conversation sent then has as many messages with as many parts as the one given, and the
    report was made on the conversation sent (where nothing sits late), so the moves went
    unreported; each is now reported as on any other history."""
    cities = ["M-oslo", "M-bergen"][:calls]
    messages = [
        Message.user("weather?"),
        Message("assistant", [*(ToolCall(f"call_{k}", "get_weather", {"city": c}) for k, c in enumerate(cities))]),
        Message("assistant", [ToolResult(f"call_{k}", f"M-r{k}", name="get_weather") for k in range(calls)]),
    ]
    body, changes = _send(api, messages)
    assert changes == [(MOVED, f"/messages/2/parts/{k}", f"call_{k}", False) for k in range(calls)]
    _assert_report_matches_body(messages, body, changes)
