"""Bugs the generative suite found, each as a minimal plain test (owner in the docstring).

Every case is encoded with the real codec and passed through the real preflight; the
independent validator judges the body that would be sent.
"""

from __future__ import annotations

import pytest

from toolwire import registry
from toolwire.adapter import ModelRequest
from toolwire.errors import RequestRefused, ToolwireError
from toolwire.tools import Tool
from toolwire.turns import NOT_ANSWERED
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


@pytest.mark.parametrize("where", sorted(HISTORIES))
def test_bug10_unanswered_call_in_a_supplied_history_is_handled_the_same_on_every_api(where):
    """Issue 10 item 4 (fixed): an unanswered call in a supplied history is handled the same way
    on all four APIs. Found: Anthropic answered it with an ``is_error`` result and sent; Chat
    Completions, Responses and Gemini refused it. Chosen: every codec answers it with the same
    ``is_error`` result (``toolwire.turns.NOT_ANSWERED``), first in the message after the call."""
    got = {api: outcome(api, HISTORIES[where], [WEATHER]) for api in APIS}
    assert got == dict.fromkeys(APIS, "sent")
    for api in APIS:
        body = send(api, ModelRequest(model=MODEL_IDS[api], tools=[WEATHER], messages=HISTORIES[where]))
        decoded = registry.codec(api).decode_request(body)
        roles = [m.role for m in decoded.messages]
        results = [(i, r) for i, m in enumerate(decoded.messages) for r in m.tool_results]
        assert len(results) == 1, (api, body)
        i, r = results[0]
        # the answer sits in the user message right after the call, and says the call was not run
        assert roles[i - 1] == "assistant" and decoded.messages[i - 1].tool_calls[0].name == "get_weather", api
        assert r.is_error and NOT_ANSWERED.splitlines()[0] in str(r.content), (api, r)
        assert "Call the tool again" in str(r.content), api
        if where == "middle":  # the user's own text follows the answer, in order
            assert decoded.messages[-1].text.endswith("what about Rome?"), (api, roles)


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
