"""run_stream: the event sequence, events-equal-result on the offline providers, the sync facade,
and the concurrency cap on tool calls."""

from __future__ import annotations

import asyncio
import sys
import threading
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import Limits, RunState, tool
from toolwire import events as ev

sys.path.insert(0, str(Path(__file__).parent))
from streaming_helpers import GatedModel, calls, fold, fold_of_result, same_fold, text


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _script() -> list[Any]:
    return [
        calls(("c1", "add", {"a": 1, "b": 2}), ("c2", "add", {"a": 3, "b": "x"}), say="Adding."),
        text("The sum is 3."),
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_event_sequence_of_a_two_turn_run(stream: bool):
    async def main() -> tuple[list[Any], Any]:
        s = toolwire.run_stream(GatedModel(_script(), stream=stream), "add", tools=[add])
        return [e async for e in s], s

    events, s = asyncio.run(main())
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "RunStarted" and kinds[1] == "TurnStarted" and kinds[-1] == "RunFinished"
    # turn 1: deltas, then the response, the two calls ready (one invalid), the tool run, turn end
    t1 = kinds[2 : kinds.index("TurnFinished") + 1]
    assert t1[:1] == ["TextDelta"] and "ResponseFinished" in t1
    after = t1[t1.index("ResponseFinished") :]
    assert after[:3] == ["ResponseFinished", "ToolCallReady", "ToolCallReady"]
    assert sorted(after[3:-1]) == [
        "ToolFinished",
        "ToolFinished",
        "ToolStarted",
    ]  # the invalid call is answered, not started
    ready = [e for e in events if isinstance(e, ev.ToolCallReady)]
    assert ready[0].valid and ready[1].error.startswith("Invalid arguments for tool 'add': at /b")
    args = "".join(e.text for e in events if isinstance(e, ev.ToolCallArgumentsDelta) and e.index == 1)
    assert args == '{"a": 1, "b": 2}'
    assert [e.name for e in events if isinstance(e, ev.ToolCallStarted)] == ["add", "add"]
    started = [e for e in events if isinstance(e, ev.ToolStarted)]
    assert [e.call.id for e in started] == ["c1"]
    finished = {e.run.call.id: e.run for e in events if isinstance(e, ev.ToolFinished)}
    assert finished["c1"].result.text == "3" and finished["c2"].status == "invalid"
    result = events[-1].result
    assert result is s.result and result.text == "The sum is 3." and result.stop_reason == "end_turn"
    same_fold(fold(events), fold_of_result(result))
    assert s.state.status == "finished" and s.state.stop_reason == "end_turn"
    if stream:  # text arrived in pieces
        assert [e.text for e in events if isinstance(e, ev.TextDelta) and e.turn == 2] == [
            "The",
            " su",
            "m i",
            "s 3",
            ".",
        ]


def test_run_equals_the_stream_consumed():
    r1 = toolwire.run_sync(GatedModel(_script()), "add", tools=[add], run_id="x")
    r2 = toolwire.run_stream_sync(GatedModel(_script(), stream=True), "add", tools=[add], run_id="x").finish()
    d1, d2 = r1.to_dict(), r2.to_dict()
    for d in (d1, d2):
        for t in d["turns"]:
            for r in t["tool_runs"]:
                r["duration"] = 0
    assert d1 == d2


def test_events_are_immutable():
    e = ev.TextDelta(1, 0, "hi")
    with pytest.raises(FrozenInstanceError):
        e.text = "no"  # type: ignore[misc]


def test_sync_facade_yields_the_same_events():
    s = toolwire.run_stream_sync(GatedModel(_script()), "add", tools=[add])
    kinds = [type(e).__name__ for e in s]
    assert kinds[0] == "RunStarted" and kinds[-1] == "RunFinished"
    assert s.result is not None and s.result.text == "The sum is 3."
    assert s.state.status == "finished"


def test_limit_stops_end_with_run_finished_then_run_raises():
    async def main() -> list[Any]:
        s = toolwire.run_stream(GatedModel([calls(("c1", "add", {"a": 1, "b": 2}))]), "add", tools=[add], max_turns=1)
        return [e async for e in s]

    events = asyncio.run(main())
    assert isinstance(events[-1], ev.RunFinished)
    assert isinstance(events[-1].error, toolwire.MaxTurnsExceeded) and events[-1].result.stop_reason == "max_turns"
    with pytest.raises(toolwire.MaxTurnsExceeded):
        toolwire.run_sync(GatedModel([calls(("c1", "add", {"a": 1, "b": 2}))]), "add", tools=[add], max_turns=1)


def test_on_turn_still_called_after_each_turn():
    seen: list[int] = []
    toolwire.run_sync(GatedModel(_script()), "add", tools=[add], on_turn=lambda t: seen.append(t.number))
    assert seen == [1, 2]


def test_concurrency_cap_queues_the_rest_and_keeps_call_order():
    running = 0
    peak = 0
    cap = 7
    lock = threading.Lock()
    full: asyncio.Event | None = None

    @tool
    async def work(i: int) -> str:
        """Work."""
        nonlocal running, peak, full
        if full is None:
            full = asyncio.Event()
        with lock:
            running += 1
            peak = max(peak, running)
            if running >= cap:
                full.set()
        # the first calls wait until `cap` of them run at once (so the peak is reached however
        # slowly the machine starts them, never by a sleep's luck); a cap below `cap` would
        # keep them waiting and the peak low (the wait is bounded)
        try:
            await asyncio.wait_for(full.wait(), 60)
        except TimeoutError:
            full.set()  # the cap is lower than expected: let the rest through (the peak assertion fails)
        with lock:
            running -= 1
        return f"done {i}"

    n = 300
    script = [calls(*[(f"c{i}", "work", {"i": i}) for i in range(n)]), text("ok")]
    result = toolwire.run_sync(GatedModel(script), "go", tools=[work], limits=Limits(max_concurrent_tools=7))
    assert peak == 7
    assert [r.result.text for r in result.tool_runs] == [f"done {i}" for i in range(n)]
    assert [r.tool_call_id for r in result.conversation.messages[-2].tool_results] == [f"c{i}" for i in range(n)]
    # the default cap is 16
    peak, cap, full = 0, 16, None
    toolwire.run_sync(GatedModel(script), "go", tools=[work])
    assert peak == 16


def test_limits_validate_the_new_fields():
    with pytest.raises(toolwire.ConfigurationError, match="max_concurrent_tools"):
        Limits(max_concurrent_tools=0)
    with pytest.raises(toolwire.ConfigurationError, match="max_calls_per_tool"):
        Limits(max_calls_per_tool={"add": -1})


def test_run_state_json_round_trip_and_old_run_results_load():
    r = toolwire.run_sync(GatedModel(_script()), "add", tools=[add])
    st = r.state
    assert RunState.from_json(st.to_json()) == st
    assert RunState.from_json(r.to_json()) == st  # a saved RunResult loads as a state
    with pytest.raises(ValueError, match="not a saved toolwire RunState"):
        RunState.from_json('{"nope": 1}')


def test_retry_event_type_exists_for_the_retry_policy():
    e = ev.RetryScheduled(turn=1, attempt=2, delay=0.5, error="ProviderError: overloaded")
    assert e.attempt == 2 and e.delay == 0.5
