"""Every way a run can stop, as one matrix: where it stops (waiting for the model, mid-stream,
while parallel tools run, inside a hook) × how (task cancellation, asyncio.timeout, a closed
stream, an exception in a hook). Each case checks the exact conversation left behind, that the
state survives JSON, and that a resume finishes the run without re-running finished tools.

The reliability suite extends ``STOP_POINTS`` / ``HOW`` with its fault kinds."""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

import toolwire
from toolwire import RunState, tool
from toolwire import events as ev

sys.path.insert(0, str(Path(__file__).parent))
from streaming_helpers import GatedModel, calls, conversation_shape, text


class Tools:
    """fast (returns at once), slow_a / slow_b (wait for ``release``); counts every start."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started: list[str] = []
        self.finished: list[str] = []

        @tool
        async def fast(x: int) -> str:
            """Fast tool."""
            self.started.append(f"fast{x}")
            self.finished.append(f"fast{x}")
            return f"fast {x}"

        @tool
        async def slow_a(x: int) -> str:
            """Slow tool A."""
            self.started.append(f"slow_a{x}")
            await self.release.wait()
            self.finished.append(f"slow_a{x}")
            return f"slow_a {x}"

        @tool
        async def slow_b(x: int) -> str:
            """Slow tool B."""
            self.started.append(f"slow_b{x}")
            await self.release.wait()
            self.finished.append(f"slow_b{x}")
            return f"slow_b {x}"

        self.list = [fast, slow_a, slow_b]


PARALLEL = calls(
    ("c1", "fast", {"x": 1}), ("c2", "slow_a", {"x": 2}), ("c3", "slow_b", {"x": 3}), say="Running three tools."
)


@dataclass
class Point:
    """Where the run is when it stops."""

    name: str
    script: Callable[[], list[Any]]
    stream: bool
    reached: Callable[[list[Any], GatedModel, Tools], bool]  # the run is at the point
    expected: Callable[[], list[Any]]  # the conversation left behind
    gates: Callable[[], dict[Any, asyncio.Event]]
    pending: list[str]
    hook: bool = False


def _at_model(events: list[Any], m: GatedModel, t: Tools) -> bool:
    return 2 in m.entered and m.entered[2].is_set()


def _mid_stream(events: list[Any], m: GatedModel, t: Tools) -> bool:
    return any(isinstance(e, ev.TextDelta) and e.turn == 2 for e in events)


def _tools_running(events: list[Any], m: GatedModel, t: Tools) -> bool:
    fin = [e for e in events if isinstance(e, ev.ToolFinished)]
    return len(fin) == 1 and {"slow_a2", "slow_b3"} <= set(t.started)


def _in_hook(events: list[Any], m: GatedModel, t: Tools) -> bool:
    finished = [e for e in events if isinstance(e, ev.ToolFinished)]
    return HOOK_ENTERED is not None and HOOK_ENTERED.is_set() and len(finished) == 1


HOOK_ENTERED: asyncio.Event | None = None
PROMPT = ("user", [("text", "go")])
TURN1 = [
    (
        "assistant",
        [
            ("text", "Running three tools."),
            ("call", "c1", "fast", {"x": 1}),
            ("call", "c2", "slow_a", {"x": 2}),
            ("call", "c3", "slow_b", {"x": 3}),
        ],
    )
]


def _cancelled_results(started_a: bool, started_b: bool, why: str = "cancelled") -> list[Any]:
    def r(cid: str, name: str, started: bool) -> Any:
        if started:
            t = f"Cancelled: the run was stopped ({why}) while tool {name!r} was running, so it has no result; it may have partly run."
        else:
            t = f"Not run: the run was stopped ({why}) before tool {name!r} started."
        return ("result", cid, t, True)

    return [("user", [("result", "c1", "fast 1", False), r("c2", "slow_a", started_a), r("c3", "slow_b", started_b)])]


STOP_POINTS = [
    # the first turn's tools finish; the run stops while request 2 waits for the model
    Point(
        "waiting_for_model",
        lambda: [calls(("c1", "fast", {"x": 1})), text("done")],
        False,
        _at_model,
        lambda: [
            PROMPT,
            ("assistant", [("call", "c1", "fast", {"x": 1})]),
            ("user", [("result", "c1", "fast 1", False)]),
        ],
        lambda: {2: asyncio.Event()},
        [],
    ),
    # request 2 streams: the first text chunk arrived, then the stream stalls
    Point(
        "mid_stream",
        lambda: [calls(("c1", "fast", {"x": 1})), text("Hello there, all done.")],
        True,
        _mid_stream,
        lambda: [
            PROMPT,
            ("assistant", [("call", "c1", "fast", {"x": 1})]),
            ("user", [("result", "c1", "fast 1", False)]),
        ],
        lambda: {(2, "mid"): asyncio.Event()},
        [],
    ),
    # three parallel calls: fast finished, slow_a and slow_b are running
    Point(
        "parallel_tools",
        lambda: [PARALLEL, text("done")],
        False,
        _tools_running,
        lambda: [PROMPT, *TURN1, *_cancelled_results(True, True)],
        lambda: {},
        ["c2", "c3"],
    ),
    # a before_tool_call hook is waiting for slow_a's call (fast finished; slow_b may have started)
    Point(
        "in_hook", lambda: [PARALLEL, text("done")], False, _in_hook, lambda: [], lambda: {}, ["c2", "c3"], hook=True
    ),
]


async def _cancel_task(task: asyncio.Task[Any], stream: Any) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()  # a cancelled task still ends cancelled


async def _close_stream(task: asyncio.Task[Any], stream: Any) -> None:
    task.cancel()  # stop the consumer first, then close the stream itself
    with pytest.raises(asyncio.CancelledError):
        await task


HOW = {"cancel": _cancel_task, "close": _close_stream}


async def _drive(point: Point, how: str) -> tuple[RunState, Tools, list[Any]]:
    global HOOK_ENTERED
    t = Tools()
    m = GatedModel(point.script(), stream=point.stream, gates=point.gates())
    hook_gate = asyncio.Event()
    HOOK_ENTERED = asyncio.Event()

    async def before(call: Any) -> None:
        if call.name == "slow_a":
            HOOK_ENTERED.set()
            await hook_gate.wait()
        return None

    stream = toolwire.run_stream(m, "go", tools=t.list, before_tool_call=before if point.hook else None)
    seen: list[Any] = []

    async def consume() -> None:
        async for e in stream:
            seen.append(e)

    task = asyncio.ensure_future(consume())
    deadline = time.monotonic() + 60  # generous: the machine may be loaded
    while not point.reached(seen, m, t):
        if time.monotonic() > deadline or task.done():
            raise AssertionError(f"the run never reached {point.name}")
        await asyncio.sleep(0.001)
    await HOW[how](task, stream)
    if how == "close":
        await stream.aclose()
    return stream.state, t, seen


@pytest.mark.parametrize("how", sorted(HOW))
@pytest.mark.parametrize("point", STOP_POINTS, ids=lambda p: p.name)
def test_a_stopped_run_leaves_a_valid_conversation_and_resumes_without_rerunning(point: Point, how: str):
    async def main() -> None:
        state, t, seen = await _drive(point, how)
        assert state.status == "cancelled"
        assert state.error == "CancelledError"
        # the exact conversation left behind
        shape = conversation_shape(state.conversation.messages)
        if point.name == "in_hook":
            # fast finished; slow_a never started (its hook was waiting); slow_b may have started
            started_b = "slow_b3" in t.started
            assert shape == [PROMPT, *TURN1, *_cancelled_results(False, started_b)]
        else:
            assert shape == point.expected()
        assert [p.call.id for p in state.pending] == point.pending
        assert all(p.kind == "interrupted" for p in state.pending)
        # every call answered exactly once
        calls_ = [c.id for msg in state.conversation.messages for c in msg.tool_calls]
        results = [r.tool_call_id for msg in state.conversation.messages for r in msg.tool_results]
        assert sorted(calls_) == sorted(results)
        if point.name == "mid_stream":
            partial = state.turns[-1]
            assert partial.interrupted == "cancelled" and partial.response.text == "Hel"
            assert [e.text for e in seen if isinstance(e, ev.TextDelta)] == ["Hel"]
        # through JSON, as after a process restart
        loaded = RunState.from_json(state.to_json())
        assert loaded == state
        finished_before = list(t.finished)
        started_before = list(t.started)
        t.release.set()
        m2 = GatedModel([text("done")])
        result = await toolwire.run(m2, tools=t.list, resume=loaded)
        assert result.text == "done" and result.stop_reason == "end_turn"
        # finished tools were not run again; the interrupted ones ran once more
        rerun = [s for s in t.started[len(started_before) :]]
        assert not set(rerun) & set(finished_before)
        assert sorted(rerun) == sorted({"c2": "slow_a2", "c3": "slow_b3"}[c] for c in point.pending)
        last_results = [r for msg in result.conversation.messages for r in msg.tool_results]
        assert all(not r.is_error for r in last_results), [r.text for r in last_results]
        assert result.run_id == state.run_id
        assert result.pending == []

    asyncio.run(main())


async def _until(check: Callable[[], bool], what: str) -> None:
    """Poll ``check()`` with a generous deadline (never a fixed sleep)."""
    deadline = time.monotonic() + 60
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within 60 s: {what}")
        await asyncio.sleep(0.005)


def test_timeout_around_run_leaves_the_state_on_the_stream():
    async def main() -> None:
        t = Tools()
        m = GatedModel([PARALLEL, text("done")])
        stream = toolwire.run_stream(m, "go", tools=t.list)

        async def expire_once_tools_run(cm: Any) -> None:
            # the timeout expires while both slow tools run and fast has finished, however loaded
            # the machine is (a fixed 0.2 s timeout could expire before the tools even started)
            await _until(lambda: {"slow_a2", "slow_b3"} <= set(t.started) and "fast1" in t.finished, "tools running")
            cm.reschedule(asyncio.get_running_loop().time())

        with pytest.raises(TimeoutError):
            async with asyncio.timeout(None) as cm:
                watcher = asyncio.ensure_future(expire_once_tools_run(cm))
                await stream.finish()
        await watcher
        st = stream.state
        assert st.status == "cancelled"
        assert conversation_shape(st.conversation.messages) == [PROMPT, *TURN1, *_cancelled_results(True, True)]
        t.release.set()
        result = await toolwire.run(GatedModel([text("done")]), tools=t.list, resume=st)
        assert [r.result.text for r in result.tool_runs] == ["fast 1", "slow_a 2", "slow_b 3"]
        assert t.started.count("fast1") == 1

    asyncio.run(main())


def test_an_exception_in_a_hook_stops_the_run_with_a_valid_state():
    async def main() -> None:
        t = Tools()

        seen: list[Any] = []

        def fast_done_and_slow_a_running() -> bool:
            fast = any(isinstance(e, ev.ToolFinished) and e.run.call.id == "c1" for e in seen)
            return fast and "slow_a2" in t.started

        async def before(call: Any) -> None:
            if call.name == "slow_b":
                # fast has finished, slow_a is running (waited for, not assumed after a sleep)
                await _until(fast_done_and_slow_a_running, "fast finished and slow_a running")
                raise ValueError("hook bug")

        stream = toolwire.run_stream(GatedModel([PARALLEL, text("done")]), "go", tools=t.list, before_tool_call=before)
        with pytest.raises(ValueError, match="hook bug"):
            async for e in stream:
                seen.append(e)
        st = stream.state
        assert st.status == "failed" and st.error == "ValueError: hook bug"
        assert conversation_shape(st.conversation.messages) == [
            PROMPT,
            *TURN1,
            *_cancelled_results(True, False, "ValueError: hook bug"),
        ]
        assert [p.call.id for p in st.pending] == ["c2", "c3"]
        t.release.set()
        result = await toolwire.run(GatedModel([text("done")]), tools=t.list, resume=RunState.from_json(st.to_json()))
        assert [r.result.text for r in result.tool_runs] == ["fast 1", "slow_a 2", "slow_b 3"]
        assert t.started.count("fast1") == 1 and t.started.count("slow_a2") == 2

    asyncio.run(main())


def test_a_provider_error_carries_the_partial_run():
    from toolwire import ProviderError

    class Failing(GatedModel):
        async def send(self, request: Any) -> Any:
            if len(self.requests) == 1:
                self.requests.append(request)
                raise ProviderError("scripted", "overloaded", status=529, retryable=True)
            return await super().send(request)

    t = Tools()
    with pytest.raises(ProviderError) as info:
        toolwire.run_sync(Failing([calls(("c1", "fast", {"x": 1}))]), "go", tools=t.list)
    st = info.value.run_state
    assert st.status == "failed" and st.error.startswith("ProviderError")
    assert conversation_shape(st.conversation.messages)[-1] == ("user", [("result", "c1", "fast 1", False)])


def test_ctrl_c_in_the_sync_stream_cancels_the_run_and_raises_keyboard_interrupt():
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():  # pragma: no cover
        pytest.skip("signals need the main thread")

    @tool
    async def wait_forever() -> str:
        """Waits."""
        # Ctrl-C from outside while the run waits for this tool
        threading.Timer(0.1, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)).start()
        await asyncio.sleep(30)
        return "never"

    # as in a terminal: Python's own SIGINT handler (a test run started in the background by a
    # shell without job control inherits SIGINT ignored, and the signal would go nowhere)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        s = toolwire.run_stream_sync(GatedModel([calls(("c1", "wait_forever", {}))]), "go", tools=[wait_forever])
        with pytest.raises(KeyboardInterrupt):
            for _ in s:
                pass
    finally:
        signal.signal(signal.SIGINT, before)
    assert s.state.status == "cancelled"
    assert (
        s.state.conversation.messages[-1]
        .tool_results[0]
        .text.startswith("Cancelled: the run was stopped (cancelled) while tool 'wait_forever' was running")
    )
    assert [p.call.id for p in s.state.pending] == ["c1"]


def test_closing_the_stream_early_while_tools_run_leaves_a_valid_state():
    async def main() -> None:
        t = Tools()
        stream = toolwire.run_stream(GatedModel([PARALLEL, text("done")]), "go", tools=t.list)
        seen: list[Any] = []
        async for e in stream:
            seen.append(e)
            if _tools_running(seen, None, t):  # type: ignore[arg-type]
                break
            await asyncio.sleep(0)
        else:
            raise AssertionError("the tools never ran")
        await stream.aclose()  # what `async with` does when the block is left early
        st = stream.state
        assert st.status == "cancelled" and st.error == "the event stream was closed"
        assert conversation_shape(st.conversation.messages) == [PROMPT, *TURN1, *_cancelled_results(True, True)]
        t.release.set()
        result = await toolwire.run(GatedModel([text("done")]), tools=t.list, resume=RunState.from_json(st.to_json()))
        assert [r.result.text for r in result.tool_runs] == ["fast 1", "slow_a 2", "slow_b 3"]
        assert t.started.count("fast1") == 1

    asyncio.run(main())


def test_stopping_between_the_response_and_its_answers_answers_every_call():
    """Closed right after ResponseFinished (before the calls were answered): every call gets a
    placeholder, and on resume a call that needs approval is asked about, not run."""

    async def main() -> None:
        t = Tools()
        t.release.set()
        stream = toolwire.run_stream(GatedModel([PARALLEL]), "go", tools=t.list, approval={"slow_b"})
        async for e in stream:
            if isinstance(e, ev.ResponseFinished):
                break
        await stream.aclose()
        st = stream.state
        assert st.status == "cancelled"
        results = st.conversation.messages[-1].tool_results
        assert [r.tool_call_id for r in results] == ["c1", "c2", "c3"] and all(r.is_error for r in results)
        assert [p.kind for p in st.pending] == ["interrupted"] * 3
        assert t.started == []
        again = await toolwire.run(
            GatedModel([]), tools=t.list, approval={"slow_b"}, resume=RunState.from_json(st.to_json())
        )
        assert again.stop_reason == "pending" and [(p.call.id, p.kind) for p in again.pending] == [("c3", "approval")]
        assert sorted(t.started) == ["fast1", "slow_a2"]
        assert (
            again.conversation.messages[-1]
            .tool_results[2]
            .text.startswith("Not run yet: this call to 'slow_b' is waiting")
        )

    asyncio.run(main())


def test_run_state_is_a_declared_attribute_of_every_toolwire_error() -> None:
    import pickle

    from toolwire.errors import ConfigurationError, ToolwireError
    from toolwire.testing import ScriptedModel

    # outside a run it is None (not an AttributeError); out of a run it is the failed partial run
    assert ConfigurationError("x").run_state is None
    model = ScriptedModel(responses=["one answer"])
    toolwire.run_sync(model, "hi")
    with pytest.raises(ToolwireError) as info:  # no answer left: raised inside the run
        toolwire.run_sync(model, "again")
    state = info.value.run_state
    assert state is not None and state.status == "failed"
    assert pickle.loads(pickle.dumps(info.value)).run_state.status == "failed"
