"""Resuming saved states that a crash or an edit left inconsistent: cases found by trying to
break the save / resume / approval paths through the public API (each failed before its fix)."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

import toolwire
from toolwire import Approved
from toolwire.errors import ConfigurationError
from toolwire.store import RunStore
from toolwire.testing import ScriptedModel, call


def _tools(ran: list[Any]) -> list[toolwire.Tool]:
    @toolwire.tool
    async def slow(x: int) -> str:
        """Work slowly."""
        ran.append(("slow", x))
        await asyncio.sleep(0.3)
        return "slow done"

    @toolwire.tool
    def fast(x: int) -> str:
        """Work fast."""
        ran.append(("fast", x))
        return "fast done"

    return [slow, fast]


def test_an_approved_call_running_when_the_process_died_is_not_dropped_on_resume(tmp_path) -> None:
    # A resume approves two calls; the store checkpoints after the fast one finished, and the
    # process dies while the slow one runs (its checkpoint is all that is left). Resuming that
    # checkpoint used to finish the run with the slow call never run and its "waiting for the
    # user's approval" placeholder left in the conversation, nothing pending.
    ran: list[Any] = []
    tools = _tools(ran)
    store = RunStore(tmp_path / "runs.sqlite")

    async def scenario() -> toolwire.RunResult:
        first = await store.run(
            ScriptedModel(responses=[[call("slow", {"x": 1}), call("fast", {"x": 2})]]),
            "go",
            tools=tools,
            approval=True,
            run_id="r1",
        )
        assert [p.call.id for p in first.pending] == ["call_1", "call_2"]
        stream = toolwire.run_stream(
            ScriptedModel(responses=["done"]),
            tools=tools,
            approval=True,
            resume=store.load_state("r1"),
            decisions={"call_1": Approved(), "call_2": Approved()},
        )
        async for event in stream:
            if type(event).__name__ == "ToolFinished":
                store.save(stream.state)  # what RunStore.drive writes at this event
                break  # the process dies here: the checkpoint is all that is left
        crashed = store.load_state("r1")
        await stream.aclose()
        assert crashed.status == "running"
        ran.clear()
        # after the crash nobody holds the approval: the call is asked about again, not lost
        again = await store.resume("r1", ScriptedModel(responses=["done"]), tools=tools, approval=True)
        assert (again.stop_reason, [(p.call.id, p.kind) for p in again.pending]) == (
            "pending",
            [("call_1", "approval")],
        )
        assert ran == []
        return await store.resume(
            "r1", ScriptedModel(responses=["done"]), tools=tools, approval=True, decisions={"call_1": Approved()}
        )

    result = asyncio.run(scenario())
    assert ran == [("slow", 1)]
    assert (result.stop_reason, result.text, result.pending) == ("end_turn", "done", [])
    assert [(r.call.id, r.status, r.result.text) for r in result.tool_runs] == [
        ("call_1", "ran", "slow done"),
        ("call_2", "ran", "fast done"),
    ]


def _paused_state() -> tuple[dict[str, Any], list[Any], list[toolwire.Tool]]:
    ran: list[Any] = []
    tools = _tools(ran)
    first = toolwire.run_sync(
        ScriptedModel(responses=[[call("fast", {"x": 1}), call("slow", {"x": 2})]]),
        "go",
        tools=tools,
        approval={"slow"},
    )
    assert [(p.call.id, p.kind) for p in first.pending] == [("call_2", "approval")]
    ran.clear()
    return first.state.to_dict(), ran, tools


def _resume(d: dict[str, Any], tools: list[toolwire.Tool], decisions: dict[str, Any] | None = None) -> Any:
    return toolwire.run_sync(
        ScriptedModel(responses=["done"]),
        tools=tools,
        approval={"slow"},
        resume=toolwire.RunState.from_json(json.dumps(d)),
        decisions=decisions,
    )


def test_a_pending_call_listed_twice_is_refused_not_run_twice() -> None:
    d, ran, tools = _paused_state()
    d["pending"].append(copy.deepcopy(d["pending"][0]))
    with pytest.raises(ConfigurationError, match=r"pending tool call call_2 is listed twice") as info:
        _resume(d, tools, {"call_2": Approved()})
    assert "was the state edited?" in str(info.value)
    assert ran == []


def test_a_pending_entry_for_a_call_that_already_has_its_result_is_refused() -> None:
    # call_1 ran in the saved run (its real result is in the conversation); an entry listing it
    # as interrupted used to run it a second time
    d, ran, tools = _paused_state()
    d["pending"].append({"call": d["turns"][0]["tool_runs"][0]["call"], "turn": 1, "kind": "interrupted"})
    with pytest.raises(ConfigurationError, match=r"pending tool call call_1 already has its result") as info:
        _resume(d, tools, {"call_2": Approved()})
    assert "never run again" in str(info.value)
    assert ran == []


def test_a_pending_entry_reusing_the_id_of_a_call_that_ran_is_refused() -> None:
    d, ran, tools = _paused_state()
    d["pending"][0]["call"]["id"] = "call_1"
    with pytest.raises(ConfigurationError, match=r"pending tool call call_1 already has its result"):
        _resume(d, tools, {"call_1": Approved()})
    assert ran == []


@pytest.mark.parametrize("status", ["paused", "running", "cancelled"])
def test_a_placeholder_whose_pending_entry_is_missing_is_asked_about_again_not_dropped(status: str) -> None:
    # a saved state whose pending list lost an entry (an edit, a truncated list): the call's
    # placeholder is still the conversation's answer, so the call has no result yet; it used
    # to be left unanswered for good, the run finishing without it
    d, ran, tools = _paused_state()
    d["pending"] = []
    d["status"] = status
    again = _resume(d, tools)
    assert (again.stop_reason, [(p.call.id, p.kind) for p in again.pending]) == ("pending", [("call_2", "approval")])
    assert ran == []
    done = toolwire.run_sync(
        ScriptedModel(responses=["done"]),
        tools=tools,
        approval={"slow"},
        resume=again,
        decisions={"call_2": Approved()},
    )
    assert ran == [("slow", 2)]
    assert [(r.call.id, r.status) for r in done.tool_runs] == [("call_1", "ran"), ("call_2", "ran")]


def _paused_pay() -> tuple[toolwire.RunResult, toolwire.Tool]:
    @toolwire.tool
    def pay(x: int) -> str:
        """Pay."""
        return "paid"

    first = toolwire.run_sync(ScriptedModel(responses=[[call("pay", {"x": 1})]]), "go", tools=[pay], approval=True)
    assert [p.call.id for p in first.pending] == ["call_1"]
    return first, pay


@pytest.mark.parametrize(
    ("decisions", "message"),
    [
        ([("call_1", Approved())], "decisions= takes a dict of tool call id to decision, got list"),
        ([{"call_1": Approved()}], "decisions= takes a dict of tool call id to decision, got list"),
        ("call_1", "decisions= takes a dict of tool call id to decision, got str"),
        ({"call_1"}, "decisions= takes a dict of tool call id to decision, got set"),
        (5, "decisions= takes a dict of tool call id to decision, got int"),
        ({1: Approved(), "x": Approved()}, "decisions= keys are tool call ids (text), got int 1"),
    ],
)
def test_decisions_that_are_no_dict_of_call_ids_are_a_configuration_error(decisions: Any, message: str) -> None:
    # a list of pairs, a set or a bare id used to raise TypeError or AttributeError, or to name
    # each character of the id as an unknown call
    first, pay = _paused_pay()
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(
            ScriptedModel(responses=["ok"]), tools=[pay], approval=True, resume=first, decisions=decisions
        )
    assert str(info.value).startswith(message)
    assert "{'call_1': toolwire.Approved()}" in str(info.value)


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("deferred", 5, "deferred= takes tool names (a list of text), got int"),
        ("deferred", [["pay"]], "deferred names ['pay'], which is not a tool name (text)"),
        ("approval", [["pay"]], "approval names ['pay'], which is not a tool name (text)"),
    ],
)
def test_approval_and_deferred_names_that_are_not_text_are_a_configuration_error(
    setting: str, value: Any, message: str
) -> None:
    _first, pay = _paused_pay()
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(ScriptedModel(responses=["ok"]), "go", tools=[pay], **{setting: value})
    assert str(info.value).startswith(message)
