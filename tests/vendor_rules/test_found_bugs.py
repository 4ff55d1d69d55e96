"""Bugs the generative suite found, each as a minimal plain test (owner in the docstring).

Every case is encoded with the real codec and passed through the real preflight; the
independent validator judges the body that would be sent.
"""

from __future__ import annotations

import pytest

from toolwire.adapter import ModelRequest
from toolwire.errors import RequestRefused, ToolwireError
from toolwire.tools import Tool
from toolwire.types import Message, TextPart, ToolCall, ToolResult
from vendor_rules.strategies import APIS, MODEL_IDS
from vendor_rules.test_generative import send
from vendor_rules.validator import validate

WEATHER = Tool("get_weather", "Forecast for a city.", {"type": "object", "properties": {"city": {"type": "string"}}})
ASK = Message("user", [TextPart("Weather in Paris?")])
CALL = Message("assistant", [ToolCall("call_1", "get_weather", {"city": "Paris"})])


def outcome(api: str, messages: list[Message], tools: list[Tool]) -> str:
    """``"refused"`` (a typed error before sending) or ``"sent"`` — and a sent body must be valid."""
    try:
        body = send(api, ModelRequest(model=MODEL_IDS[api], tools=tools, messages=messages))
    except RequestRefused:
        return "refused"
    found = validate(api, body)
    assert found == [], f"{api} sent an invalid body: {[str(v) for v in found]}"
    return "sent"


HISTORIES = {
    "trailing": [ASK, CALL],  # the supplied history ends on the model's unanswered call
    "middle": [ASK, CALL, Message("user", [TextPart("Never mind, what about Rome?")])],
}


@pytest.mark.xfail(
    strict=True,
    reason="known bug, owner rules-core (issue 10 item 4): Anthropic answers an unanswered "
    "supplied call with an is_error result, Chat/Responses/Gemini refuse it — one behaviour must be chosen",
)
@pytest.mark.parametrize("where", sorted(HISTORIES))
def test_bug10_unanswered_call_in_a_supplied_history_is_handled_the_same_on_every_api(where):
    """Issue 10 item 4 (owner: rules-core): an unanswered call in a supplied history is handled
    the same way on all four APIs — answered or refused. Found: Anthropic answers it with an
    ``is_error`` result and sends; Chat Completions, Responses and Gemini refuse it."""
    got = {api: outcome(api, HISTORIES[where], [WEATHER]) for api in APIS}
    assert len(set(got.values())) == 1, got


@pytest.mark.parametrize("api", APIS)  # fixed for Anthropic: rule anthropic.request.tool-blocks-need-tools (repair)
def test_bug10_history_with_tool_calls_but_no_tools_declared_is_never_sent_invalid(api):
    """Owner: rules-anthropic. A history holding a tool call and its result, sent with no tools
    declared (a last summarising turn without tools). Anthropic refuses such a request ('Requests
    which include tool_use or tool_result blocks must define tools.', anthropic-sdk-python#494);
    toolwire sends it. Expected: repaired (e.g. the tools declared again, or the blocks turned to
    text) or refused before sending."""
    history = [ASK, CALL, Message("user", [ToolResult("call_1", "sunny")]), Message("user", [TextPart("Summarise.")])]
    try:
        body = send(api, ModelRequest(model=MODEL_IDS[api], tools=[], messages=history))
    except ToolwireError:
        return
    assert [str(v) for v in validate(api, body)] == []
