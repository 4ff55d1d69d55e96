"""A saved run whose parts disagree in a way no run leaves behind (a paused run with the model's
stop reason, a tool run recorded on another turn, a pending call of a turn that does not exist)
is refused on load with a ValueError that says what is wrong and what to do, and on resume with
a ConfigurationError; every state a real run leaves (paused, finished, failed part-way, stopped
at a limit, cancelled) still saves and loads to the same state."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import Approved
from toolwire.errors import ConfigurationError, MaxTurnsExceeded, ToolwireError, UsageLimitExceeded
from toolwire.testing import ScriptedModel, call


def _add(ran: list[Any]) -> toolwire.Tool:
    @toolwire.tool
    def add(a: int, b: int) -> int:
        """Add."""
        ran.append((a, b))
        return a + b

    return add


def _paused(ran: list[Any]) -> dict[str, Any]:
    """A saved paused run of two turns: c1 ran in turn 1, c2 (turn 2) waits for approval."""
    result = toolwire.run_sync(
        ScriptedModel(responses=[[call("add", {"a": 1, "b": 2}, id="c1")], [call("add", {"a": 3, "b": 4}, id="c2")]]),
        "add",
        tools=[_add(ran)],
        approval=lambda c: c.id == "c2",
    )
    assert (result.stop_reason, [p.call.id for p in result.pending]) == ("pending", ["c2"])
    ran.clear()
    return json.loads(result.state.to_json())


def _load_error(d: dict[str, Any]) -> str:
    with pytest.raises(ValueError) as info:
        toolwire.RunState.from_json(json.dumps(d))
    return str(info.value)


# -- refused on load -------------------------------------------------------------------------


@pytest.mark.parametrize("stop", ["end_turn", "tool_use", "max_tokens", "refusal"])
def test_a_paused_run_with_a_model_stop_reason_is_refused_on_load(stop: str) -> None:
    d = _paused([])
    d["stop_reason"] = stop
    assert _load_error(d) == (
        "not a saved toolwire RunState: ValueError: run state: status is 'paused' (tool calls wait for a decision) "
        f"but its stop_reason is the model's {stop!r}; a paused run's stop_reason is 'pending'. Set it to 'pending' "
        "(and status 'finished' with no pending calls if the run really ended)"
    )


@pytest.mark.parametrize("stop", ["end_turn", None, "pending"])
def test_a_stopped_run_without_its_limit_is_refused_on_load(stop: Any) -> None:
    d = _paused([])
    d["status"], d["stop_reason"] = "stopped", stop
    assert f"status is 'stopped' (a limit stopped the run) but its stop_reason is {stop!r}" in _load_error(d)


@pytest.mark.parametrize(
    ("turn", "shown"),
    [(-1, "int -1"), (0, "int 0"), (1, "int 1"), (3, "int 3"), (99, "int 99")],
)
def test_a_tool_run_recorded_on_another_turn_is_refused_on_load(turn: int, shown: str) -> None:
    d = _paused([])
    d["turns"][1]["tool_runs"][0]["turn"] = turn  # c2's run, of turn 2
    assert _load_error(d) == (
        "not a saved toolwire RunState: ValueError: at turns[1].tool_runs[0]: tool run: turn must be 2 (the number "
        f"of the turn that holds it: a tool run answers a call of its own turn), got {shown}; set it to 2"
    )


@pytest.mark.parametrize(
    ("turn", "shown"), [(True, "bool True"), ("1", "str '1'"), (1.0, "float 1.0"), (None, "NoneType None")]
)
def test_a_tool_run_turn_that_is_no_whole_number_is_refused_on_load(turn: Any, shown: str) -> None:
    d = _paused([])
    d["turns"][0]["tool_runs"][0]["turn"] = turn
    message = _load_error(d)
    assert "at turns[0].tool_runs[0]" in message and shown in message, message


def test_a_pending_call_of_a_turn_after_the_last_is_refused_on_load() -> None:
    d = _paused([])
    d["pending"][0]["turn"] = 3
    assert _load_error(d) == (
        "not a saved toolwire RunState: ValueError: run state: at pending[0]: pending call: turn is 3, but the last "
        "turn is 2; a pending call belongs to a turn of the run (the one whose tool call it is): set its turn to "
        "that turn's number"
    )


def test_a_saved_run_result_with_pending_calls_and_a_model_stop_reason_is_refused_on_load() -> None:
    result = toolwire.run_sync(
        ScriptedModel(responses=[[call("add", {"a": 1, "b": 2}, id="c1")]]), "add", tools=[_add([])], approval=True
    )
    d = json.loads(result.to_json())
    d["stop_reason"] = "end_turn"
    with pytest.raises(ValueError, match=r"status is 'paused' .* but its stop_reason is the model's 'end_turn'"):
        toolwire.RunResult.from_json(json.dumps(d))
    d["stop_reason"], d["turns"][0]["tool_runs"][0]["turn"] = "pending", 7
    with pytest.raises(ValueError, match=r"at turns\[0\]\.tool_runs\[0\]: tool run: turn must be 1"):
        toolwire.RunResult.from_json(json.dumps(d))


# -- refused on resume (a state changed in code after loading) ------------------------------


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (
            lambda st: setattr(st, "stop_reason", "end_turn"),
            "cannot resume: the saved run's status is 'paused' (tool calls wait for a decision) but its stop_reason "
            "is the model's 'end_turn' (was the state edited?); a paused run's stop_reason is 'pending'.",
        ),
        (
            lambda st: setattr(st.turns[1].tool_runs[0], "turn", -1),
            "cannot resume: the saved run's turns[1].tool_runs[0]: tool run: turn must be 2 (the number of the turn "
            "that holds it: a tool run answers a call of its own turn), got int -1; set it to 2 (was the state edited?)",
        ),
        (
            lambda st: setattr(st.pending[0], "turn", 5),
            "cannot resume: the saved run's pending[0]: pending call: turn is 5, but the last turn is 2 (was the "
            "state edited?); a pending call belongs to a turn of the run",
        ),
    ],
    ids=["paused-end_turn", "tool-run-turn", "pending-turn"],
)
def test_such_a_state_put_together_in_code_is_refused_on_resume_before_anything_runs(edit: Any, words: str) -> None:
    ran: list[Any] = []
    state = toolwire.RunState.from_json(json.dumps(_paused(ran)))
    edit(state)
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(
            ScriptedModel(responses=["done"]),
            tools=[_add(ran)],
            approval=lambda c: c.id == "c2",
            resume=state,
            decisions={"c2": Approved()},
        )
    assert str(info.value).startswith(words), str(info.value)
    assert ran == []


# -- every state a real run leaves still loads ----------------------------------------------


def _round_trip(state: toolwire.RunState, tmp_path: Path) -> toolwire.RunState:
    path = tmp_path / "run.json"
    state.save(path)
    loaded = toolwire.RunState.load(path)
    assert loaded == state
    assert toolwire.RunState.from_json(state.to_result().to_json()).turns == state.turns
    return loaded


def test_a_paused_run_saves_loads_and_resumes(tmp_path: Path) -> None:
    ran: list[Any] = []
    state = toolwire.RunState.from_json(json.dumps(_paused(ran)))
    loaded = _round_trip(state, tmp_path)
    assert (loaded.status, loaded.stop_reason, [p.turn for p in loaded.pending]) == ("paused", "pending", [2])
    done = toolwire.run_sync(
        ScriptedModel(responses=["done"]),
        tools=[_add(ran)],
        approval=lambda c: c.id == "c2",
        resume=loaded,
        decisions={"c2": Approved()},
    )
    assert (done.text, ran) == ("done", [(3, 4)])
    finished = _round_trip(done.state, tmp_path)
    assert (finished.status, finished.stop_reason, [r.turn for r in finished.tool_runs]) == (
        "finished",
        "end_turn",
        [1, 2],
    )


def test_a_run_that_failed_part_way_saves_and_loads(tmp_path: Path) -> None:
    # the script has no second answer: the second request fails after the first turn's call ran
    with pytest.raises(ToolwireError) as info:
        toolwire.run_sync(ScriptedModel(responses=[[call("add", {"a": 1, "b": 2})]]), "add", tools=[_add([])])
    state = info.value.run_state
    assert state is not None and state.status == "failed"
    loaded = _round_trip(state, tmp_path)
    assert (loaded.stop_reason, [r.turn for r in loaded.tool_runs]) == (None, [1])


def test_runs_stopped_at_a_limit_save_and_load_with_their_results(tmp_path: Path) -> None:
    with pytest.raises(MaxTurnsExceeded) as turns:
        toolwire.run_sync(
            ScriptedModel(responses=[[call("add", {"a": 1, "b": 2})]] * 3), "add", tools=[_add([])], max_turns=2
        )
    with pytest.raises(UsageLimitExceeded) as calls:
        # one call allowed and waiting for approval, the second refused: stopped with a pending call
        toolwire.run_sync(
            ScriptedModel(responses=[[call("add", {"a": 1, "b": 2}), call("add", {"a": 3, "b": 4})]]),
            "add",
            tools=[_add([])],
            approval=True,
            limits=toolwire.Limits(max_tool_calls=1),
        )
    for err, stop in ((turns.value, "max_turns"), (calls.value, "usage_limit")):
        state = err.run_state
        assert state is not None and (state.status, state.stop_reason) == ("stopped", stop)
        _round_trip(state, tmp_path)
        result = err.result
        assert result is not None
        _round_trip(result.state, tmp_path)  # (paused when calls are pending)
        assert toolwire.RunResult.from_json(result.to_json()) == result


def test_a_cancelled_run_saves_and_loads(tmp_path: Path) -> None:
    @toolwire.tool
    async def slow(x: int) -> str:
        """Wait."""
        await asyncio.sleep(30)
        return "late"

    async def scenario() -> toolwire.RunState:
        stream = toolwire.run_stream(ScriptedModel(responses=[[call("slow", {"x": 1})]]), "go", tools=[slow])

        async def drain() -> None:
            async for _ in stream:
                pass

        task = asyncio.ensure_future(drain())
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return stream.state

    state = asyncio.run(scenario())
    assert state.status == "cancelled" and [p.kind for p in state.pending] == ["interrupted"]
    loaded = _round_trip(state, tmp_path)
    assert [(p.turn, r.turn) for p in loaded.pending for r in loaded.tool_runs] == [(1, 1)]


def test_a_cancelled_or_failed_run_turned_into_a_result_and_back_keeps_its_status() -> None:
    # RunState.to_result() writes the status as the result's stop reason; RunResult.state used to
    # read it back as "finished" (or "paused"), so the run could no longer be resumed
    with pytest.raises(ToolwireError) as info:
        toolwire.run_sync(ScriptedModel(responses=[[call("add", {"a": 1, "b": 2})]]), "add", tools=[_add([])])
    failed = info.value.run_state
    assert failed is not None and failed.status == "failed"
    back = failed.to_result().state
    assert (back.status, back.stop_reason, back.resumable) == ("failed", None, True)
    assert toolwire.RunState.from_json(back.to_json()).status == "failed"

    @toolwire.tool
    async def slow(x: int) -> str:
        """Wait."""
        await asyncio.sleep(30)
        return "late"

    async def scenario() -> toolwire.RunState:
        stream = toolwire.run_stream(ScriptedModel(responses=[[call("slow", {"x": 1})]]), "go", tools=[slow])

        async def drain() -> None:
            async for _ in stream:
                pass

        task = asyncio.ensure_future(drain())
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return stream.state

    cancelled = asyncio.run(scenario())
    assert cancelled.status == "cancelled"
    back = cancelled.to_result().state
    assert (back.status, back.resumable, [p.call.id for p in back.pending]) == (
        "cancelled",
        True,
        [p.call.id for p in cancelled.pending],
    )
    # a finished run's result still reads back as finished
    done = toolwire.run_sync(ScriptedModel(responses=["hi"]), "go")
    assert (done.state.status, done.state.to_result().state.status) == ("finished", "finished")
