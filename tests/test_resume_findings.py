"""Stopping and resuming: cases found by trying to break the streaming, approval and resume
paths (each failed before its fix)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire import Approved, Denied, ToolResult
from toolwire.testing import ScriptedModel, call


def test_a_tool_exception_whose_str_raises_is_an_error_result_not_a_crash() -> None:
    class Odd(Exception):
        def __str__(self) -> str:
            raise RuntimeError("str boom")

    @toolwire.tool
    def bad(x: int) -> str:
        """Fail oddly."""
        raise Odd()

    @toolwire.tool
    def good(x: int) -> str:
        """Work."""
        return f"ok {x}"

    result = toolwire.run_sync(
        ScriptedModel(responses=[[call("bad", {"x": 1}), call("good", {"x": 2})], "done"]),
        "go",
        tools=[bad, good],
    )
    assert result.text == "done"
    bad_run, good_run = result.tool_runs
    assert bad_run.result.is_error and "Odd" in bad_run.result.text and "could not be read" in bad_run.result.text
    assert (good_run.result.is_error, good_run.result.text) == (False, "ok 2")


@pytest.mark.parametrize("decision", [b"\xff\xfe", "object whose str raises"])
def test_a_deferred_decision_without_a_text_form_is_an_error_result(decision: Any) -> None:
    class NoText:
        def __str__(self) -> str:
            raise RuntimeError("no text")

    value = NoText() if decision == "object whose str raises" else decision

    @toolwire.tool
    def clip() -> str:
        """Read the clipboard (the client does it)."""
        return ""

    first = toolwire.run_sync(ScriptedModel(responses=[[call("clip", {})]]), "go", tools=[clip], deferred=["clip"])
    cid = first.state.pending[0].call.id
    result = toolwire.run_sync(
        ScriptedModel(responses=["ok"]), tools=[clip], deferred=["clip"], resume=first, decisions={cid: value}
    )
    assert result.text == "ok"
    (run,) = [r for r in result.tool_runs if r.call.id == cid]
    assert run.result.is_error
    assert ("UnicodeDecodeError" if isinstance(value, bytes) else "RuntimeError") in run.result.text


def test_resuming_a_run_whose_on_turn_failed_after_the_final_answer_asks_nothing() -> None:
    """The final answer was already in the conversation: the resume sent it back, which Claude
    4.6 and later refuse (prefill) and other models answer as a continuation."""
    seen: list[int] = []

    def on_turn(turn: Any) -> None:
        seen.append(turn.number)
        if len(seen) == 1:
            raise RuntimeError("on_turn bug")

    async def first() -> toolwire.RunState:
        stream = toolwire.run_stream(ScriptedModel(responses=["The answer is 4."]), "2+2?", on_turn=on_turn)
        with pytest.raises(RuntimeError, match="on_turn bug"):
            async for _ in stream:
                pass
        return toolwire.RunState.from_json(stream.state.to_json())

    saved = asyncio.run(first())
    assert saved.status == "failed" and saved.conversation.messages[-1].role == "assistant"
    never = ScriptedModel(responses=["a second answer that must not be asked for"])
    result = toolwire.run_sync(never, resume=saved, on_turn=on_turn)
    assert (result.text, result.stop_reason, len(result.turns)) == ("The answer is 4.", "end_turn", 1)
    assert seen == [1, 1]  # the failed notification is delivered again on resume
    again = toolwire.run_sync(never, resume=result)  # a finished run resumed without a prompt: the same
    assert (again.text, len(again.turns), seen) == ("The answer is 4.", 1, [1, 1])
    more = toolwire.run_sync(ScriptedModel(responses=["8."]), "and 4+4?", resume=result)
    assert (more.text, len(more.turns)) == ("8.", 2)


def test_an_approved_call_interrupted_while_running_is_not_asked_about_again() -> None:
    ran: list[int] = []

    @toolwire.tool
    async def pay(x: int) -> str:
        """Pay."""
        ran.append(x)
        await asyncio.sleep(2)
        return "paid"

    async def scenario() -> toolwire.RunResult:
        first = await toolwire.run(
            ScriptedModel(responses=[[call("pay", {"x": 1})]]), "go", tools=[pay], approval={"pay"}
        )
        cid = first.state.pending[0].call.id
        stream = toolwire.run_stream(
            ScriptedModel(responses=["done"]), tools=[pay], approval={"pay"}, resume=first, decisions={cid: Approved()}
        )
        with pytest.raises((TimeoutError, asyncio.TimeoutError)):
            await asyncio.wait_for(stream.finish(), 0.3)
        saved = toolwire.RunState.from_json(stream.state.to_json())
        assert [(p.kind, p.approved) for p in saved.pending] == [("interrupted", True)]
        return await asyncio.wait_for(
            toolwire.run(ScriptedModel(responses=["done"]), tools=[pay], approval={"pay"}, resume=saved), 10
        )

    result = asyncio.run(scenario())
    assert (result.stop_reason, result.text, result.state.pending, ran) == ("end_turn", "done", [], [1, 1])


def test_denied_without_a_reason_says_no_reason() -> None:
    @toolwire.tool
    def wipe() -> str:
        """Wipe."""
        return "wiped"

    first = toolwire.run_sync(ScriptedModel(responses=[[call("wipe", {})]]), "go", tools=[wipe], approval={"wipe"})
    cid = first.state.pending[0].call.id
    result = toolwire.run_sync(
        ScriptedModel(responses=["ok"]),
        tools=[wipe],
        approval={"wipe"},
        resume=first,
        decisions={cid: Denied(None)},  # type: ignore[arg-type]
    )
    text = [r for r in result.tool_runs if r.call.id == cid][0].result.text
    assert "refused" in text and "None" not in text and "Reason" not in text


@pytest.mark.parametrize("flag, kept", [(True, True), (False, False), (None, False), (1, True)])
def test_tool_result_is_error_is_a_bool(flag: Any, kept: bool) -> None:
    assert ToolResult("c", "x", flag).is_error is kept


def test_tool_result_is_error_of_another_type_is_refused() -> None:
    with pytest.raises(TypeError, match="is_error must be True or False"):
        ToolResult("c", "hello", "no")  # type: ignore[arg-type]


def test_a_run_state_from_a_newer_format_is_refused_naming_the_version() -> None:
    import json

    result = toolwire.run_sync(ScriptedModel(responses=["hi"]), "go")
    saved = json.loads(result.state.to_json())
    assert saved["version"] == 1
    saved["version"] = 99
    with pytest.raises(ValueError, match="format version 99"):
        toolwire.RunState.from_json(json.dumps(saved))
