"""``answer_request`` remembers the last fully answered request, and notices any change to it."""

from __future__ import annotations

from toolwire.adapter import ModelRequest
from toolwire.turns import NOT_ANSWERED, answer_request
from toolwire.types import Message, ToolCall, ToolResult


def _history(n: int) -> list[Message]:
    msgs = [Message.user("go")]
    for i in range(n):
        msgs.append(Message("assistant", [ToolCall(f"c{i}", "lookup", {"q": "x"})]))
        msgs.append(Message("user", [ToolResult(f"c{i}", "r")]))
    return msgs


def test_the_same_answered_request_twice_is_itself_both_times():
    req = ModelRequest(model="m", messages=_history(3))
    assert answer_request(req) == (req, [])
    assert answer_request(req) == (req, [])


def test_a_message_replaced_in_place_is_noticed():
    req = ModelRequest(model="m", messages=_history(3))
    assert answer_request(req)[1] == []
    req.messages[3] = Message("assistant", [ToolCall("new", "lookup", {"q": "y"})])  # same length
    out, done = answer_request(req)
    assert [c.id for c in done] == ["new"]
    answered = {r.tool_call_id: r for m in out.messages for r in m.tool_results}
    assert answered["new"].text == NOT_ANSWERED and answered["new"].is_error


def test_a_part_added_to_a_message_in_place_is_noticed():
    req = ModelRequest(model="m", messages=_history(2))
    assert answer_request(req)[1] == []
    req.messages[-2].parts.append(ToolCall("extra", "lookup", {"q": "z"}))  # an assistant message gains a call
    out, done = answer_request(req)
    assert [c.id for c in done] == ["extra"]
    assert "extra" in {r.tool_call_id for m in out.messages for r in m.tool_results}


def test_another_request_with_the_same_messages_is_checked_afresh():
    msgs = _history(2)
    assert answer_request(ModelRequest(model="m", messages=msgs))[1] == []
    msgs.append(Message("assistant", [ToolCall("open", "lookup", {})]))
    _, done = answer_request(ModelRequest(model="m", messages=msgs))
    assert [c.id for c in done] == ["open"]
