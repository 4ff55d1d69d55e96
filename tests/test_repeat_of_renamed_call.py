"""A scripted (or custom) provider's answer with calls ``t1: a``, ``t1: b``, ``t1: b``: the
second runs as ``t1_1``, and the third, repeating it exactly, is a duplicate of ``t1_1`` — named
so in its ``invalid`` text and its error result (it said "duplicate tool call id t1", the id of
the ``a`` call it does not repeat). The loop's own pass does this for providers whose decoder
does not (``toolwire.wire.reissue_shared_ids``)."""

from __future__ import annotations

import toolwire
from toolwire.testing import ScriptedModel
from toolwire.types import Response, ToolCall
from toolwire.wire import check_tool_calls, reissue_shared_ids


def test_the_loop_names_the_renamed_id_a_repeat_duplicates() -> None:
    ran: list[str] = []

    @toolwire.tool
    def note(text: str) -> str:
        """Write a note."""
        ran.append(text)
        return "ok"

    calls = [ToolCall("t1", "note", {"text": "a"}), ToolCall("t1", "note", {"text": "b"})]
    calls.append(ToolCall("t1", "note", {"text": "b"}))
    result = toolwire.run_sync(ScriptedModel(responses=[calls, "done"]), "notes", tools=[note])
    assert sorted(ran) == ["a", "b"]  # "b" once
    assert [(r.call.id, r.call.invalid) for r in result.tool_runs] == [
        ("t1", None),
        ("t1_1", None),
        ("t1_1", "duplicate tool call id t1_1 in one response"),
    ]
    assert result.tool_runs[2].result.content == (
        "Tool call 'note' was not run: duplicate tool call id t1_1 in one response (it repeats the earlier call t1_1 "
        "of this response, which is the one answered).\nMake a new tool call if you still need the result."
    )
    assert result.conversation.unanswered_tool_calls() == []


def test_reissue_then_check_on_a_decoded_answer() -> None:
    calls = [ToolCall("x", "f", {"n": 1}), ToolCall("x", "f", {"n": 2}), ToolCall("x", "f", {"n": 1})]
    calls += [ToolCall("x", "f", {"n": 2}), ToolCall("x", "g", {})]
    check_tool_calls(Response(list(calls), "tool_use"))
    assert [(c.id, c.invalid) for c in calls] == [
        ("x", None),
        ("x_1", None),
        ("x", "duplicate tool call id x in one response"),
        ("x_1", "duplicate tool call id x_1 in one response"),
        ("x_4", None),
    ]
    again = [ToolCall("x", "f", {"n": 1}), ToolCall("x", "f", {"n": 2}), ToolCall("x", "f", {"n": 2})]
    reissue_shared_ids(again, valid_only=True)
    assert [c.id for c in again] == ["x", "x_1", "x_1"]
