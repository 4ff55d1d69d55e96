"""``run()`` (and ``RunStream.finish()`` with no tracing observer) lets the loop skip building the
events no one can see: the run, its state and its result must be exactly those of the same run
whose every event is iterated, on every path (one call, several calls, invalid calls, limits,
streamed responses, finish() after a partial iteration); run_stream still yields every event."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import Limits, tool
from toolwire import events as ev
from toolwire.errors import RunLimitExceeded

sys.path.insert(0, str(Path(__file__).parent.parent))
from streaming_helpers import GatedModel, calls, text


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool(blocking=False)
def mul(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


def _scripts() -> dict[str, list[Any]]:
    return {
        "one call": [calls(("c1", "add", {"a": 1, "b": 2}), say="Adding."), text("3.")],
        "two calls, one invalid": [
            calls(("c1", "add", {"a": 1, "b": 2}), ("c2", "add", {"a": 3, "b": "x"})),
            text("done"),
        ],
        "inline and threaded": [calls(("c1", "mul", {"a": 2, "b": 5}), ("c2", "add", {"a": 1, "b": 1})), text("ok")],
        "unknown tool": [calls(("c1", "nope", {})), text("sorry")],
        "three turns": [
            calls(("c1", "add", {"a": 1, "b": 2})),
            calls(("c2", "mul", {"a": 3, "b": 4})),
            text("fine"),
        ],
    }


def _snapshot(result: Any) -> Any:
    d = result.to_dict()
    d.pop("run_id", None)
    for t in d.get("turns", []):
        for r in t.get("tool_runs", []):
            r.pop("duration", None)
    return d


async def _both(script: list[Any], stream: bool, **kw: Any) -> tuple[Any, Any, list[Any]]:
    quiet = await toolwire.run(GatedModel(script, stream=stream), "go", tools=[add, mul], **kw)
    s = toolwire.run_stream(GatedModel(script, stream=stream), "go", tools=[add, mul], **kw)
    events = [e async for e in s]
    return quiet, s.result, events


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("name", list(_scripts()))
def test_run_equals_the_fully_iterated_stream(name: str, stream: bool):
    quiet, loud, events = asyncio.run(_both(_scripts()[name], stream))
    assert _snapshot(quiet) == _snapshot(loud)
    assert quiet.text == loud.text and quiet.stop_reason == loud.stop_reason
    assert [r.status for r in quiet.tool_runs] == [r.status for r in loud.tool_runs]
    # the iterated stream still has every kind of event
    kinds = {type(e).__name__ for e in events}
    assert {"RunStarted", "TurnStarted", "ResponseFinished", "TurnFinished", "RunFinished"} <= kinds
    if any(r.status == "ran" for r in loud.tool_runs):
        assert {"ToolCallReady", "ToolStarted", "ToolFinished"} <= kinds


def test_a_limit_stop_is_the_same_in_both():
    script = [calls(("c1", "add", {"a": 1, "b": 2}), ("c2", "add", {"a": 2, "b": 2})), text("x")]

    async def main() -> tuple[Any, Any]:
        with pytest.raises(RunLimitExceeded) as quiet:
            await toolwire.run(GatedModel(script), "go", tools=[add], limits=Limits(max_tool_calls=1))
        s = toolwire.run_stream(GatedModel(script), "go", tools=[add], limits=Limits(max_tool_calls=1))
        with pytest.raises(RunLimitExceeded) as loud:
            await s.finish()
        return quiet.value, loud.value

    q, lo = asyncio.run(main())
    assert type(q) is type(lo) and str(q) == str(lo)
    assert _snapshot(q.result) == _snapshot(lo.result)


def test_finish_after_a_partial_iteration_gives_the_same_result():
    script = _scripts()["three turns"]

    async def main() -> tuple[list[Any], Any, Any]:
        s = toolwire.run_stream(GatedModel(script), "go", tools=[add, mul])
        seen = []
        async for e in s:
            seen.append(e)
            if isinstance(e, ev.ToolStarted):  # mid-turn: the rest is consumed by finish()
                break
        result = await s.finish()
        return seen, result, await toolwire.run(GatedModel(script), "go", tools=[add, mul])

    seen, result, whole = asyncio.run(main())
    assert isinstance(seen[-1], ev.ToolStarted)
    assert _snapshot(result) == _snapshot(whole)


def test_a_run_observed_by_tracing_still_sees_every_event():
    seen: list[str] = []

    class Observer:
        def __call__(self, event: Any) -> None:
            seen.append(type(event).__name__)

        def closed(self) -> None:
            pass

        def failed(self, exc: BaseException) -> None:
            pass

    class Tracing:
        def observer(self, stream: Any, model: Any) -> Observer:
            return Observer()

    asyncio.run(toolwire.run(GatedModel(_scripts()["one call"]), "go", tools=[add], tracing=Tracing()))
    assert seen[0] == "RunStarted" and seen[-1] == "RunFinished"
    assert {"TurnStarted", "TextDelta", "ResponseFinished", "ToolCallReady", "ToolStarted", "ToolFinished"} <= set(seen)


def test_the_placeholder_of_a_running_call_says_it_has_not_finished():
    """While a call runs, its answer in the conversation is the cancelled placeholder (what a
    stop at that point leaves, with the run's own reason)."""
    from toolwire.loop import _text_cancelled

    async def main() -> Any:
        s = toolwire.run_stream(GatedModel(_scripts()["one call"]), "go", tools=[add])
        async for e in s:
            if isinstance(e, ev.ToolStarted):
                last = s.state.conversation.messages[-1]
                placeholder = last.parts[0]
                await s.aclose()
                return placeholder, s.state

    placeholder, state = asyncio.run(main())
    want = _text_cancelled("add", False, "not finished")
    assert placeholder.text == want and placeholder.is_error and placeholder.tool_call_id == "c1"
    assert placeholder.name == "add" and placeholder.provider_data == {} and placeholder.type == "tool_result"
    # equal to one built the ordinary way (the placeholder skips only the scrubbing)
    assert placeholder == toolwire.ToolResult("c1", want, True, "add")
    assert state.status == "cancelled"


def test_a_run_id_is_a_version_4_uuid_in_hex():
    import uuid

    from toolwire.loop import _new_run_id

    ids = {_new_run_id() for _ in range(200)}
    assert len(ids) == 200
    for rid in ids:
        u = uuid.UUID(hex=rid)
        assert len(rid) == 32 and rid == u.hex and u.version == 4 and u.variant == uuid.RFC_4122
    r = toolwire.run_sync(GatedModel([text("hi")]), "go")
    assert uuid.UUID(hex=r.run_id).version == 4


@pytest.mark.parametrize("name", list(_scripts()))
def test_async_for_over_the_loops_generator_gives_what_anext_gives(name: str):
    """``async for`` over a stream with no observer iterates the loop's generator itself; the
    events, the result (set once ``RunFinished`` came, ``None`` before) and the state are those
    of a stream stepped with ``__anext__``."""
    script = _scripts()[name]

    async def main() -> tuple[list[Any], list[Any], Any, Any, list[Any]]:
        direct = toolwire.run_stream(GatedModel(script), "go", tools=[add, mul])
        assert direct.__aiter__() is not direct
        before: list[Any] = []
        got = []
        async for e in direct:
            before.append(direct.result)
            got.append(e)
        stepped = toolwire.run_stream(GatedModel(script), "go", tools=[add, mul])
        by_step = []
        while True:
            try:
                by_step.append(await stepped.__anext__())
            except StopAsyncIteration:
                break
        return got, by_step, direct, stepped, before

    got, by_step, direct, stepped, before = asyncio.run(main())
    assert [type(e).__name__ for e in got] == [type(e).__name__ for e in by_step]
    assert type(got[-1]) is ev.RunFinished and got[-1].result is direct.result
    assert before[:-1] == [None] * (len(got) - 1) and before[-1] is direct.result
    assert _snapshot(direct.result) == _snapshot(stepped.result)
    assert direct.state.status == stepped.state.status == "finished"


def test_with_an_observer_async_for_goes_through_the_stream():
    class Observer:
        def __init__(self) -> None:
            self.seen: list[str] = []

        def __call__(self, event: Any) -> None:
            self.seen.append(type(event).__name__)

        def closed(self) -> None:
            pass

        def failed(self, exc: BaseException) -> None:
            pass

    observer = Observer()

    class Tracing:
        def observer(self, stream: Any, model: Any) -> Observer:
            return observer

    async def main() -> Any:
        s = toolwire.run_stream(GatedModel(_scripts()["one call"]), "go", tools=[add], tracing=Tracing())
        # async for reads the tracing generator around the loop's (it calls the observer per event)
        assert s.__aiter__() is s._events and s._events.__qualname__ == "_observed"
        names = [type(e).__name__ async for e in s]
        return s, names

    s, names = asyncio.run(main())
    assert names == observer.seen and names[-1] == "RunFinished"
    assert s.result is not None and s.result.text == "3."
