"""The loop awaits a request and a lone synchronous tool call without tasks of their own: the
request's coroutine is driven step by step (retry notices between the steps), a worker thread's
future is awaited directly. These tests check that nothing observable changed: events, their
order, cancellation, timeouts, context variables and the state after a stop."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest

import toolwire
import toolwire.events as ev
from toolwire.errors import ProviderError
from toolwire.retry import RetryNotice, RetryPolicy, notify
from toolwire.retry import _listener as retry_listener
from toolwire.testing import ScriptedModel, call


class Retrying(ScriptedModel):
    """A scripted model whose first request announces a retry and waits ``wait`` seconds (a
    transport's retry) before answering; ``cleaned`` records that the wait's cleanup ran."""

    def __init__(self, *responses: Any, wait: float = 0.0) -> None:
        super().__init__("scripted", responses=list(responses))
        self.retry_policy = RetryPolicy(max_attempts=3)
        self.wait = wait
        self.waiting = asyncio.Event()
        self.cleaned: list[str] = []
        self.sent = 0

    async def send(self, request: Any) -> Any:
        self.sent += 1
        if self.sent == 1:
            notify(RetryNotice(2, self.wait, ProviderError("scripted", "busy", retryable=True)))
            self.waiting.set()
            try:
                await asyncio.sleep(self.wait)
            except asyncio.CancelledError:
                self.cleaned.append("cancelled")
                await asyncio.sleep(0)  # cleanup that awaits
                raise
            finally:
                self.cleaned.append("finally")
        return await super().send(request)


def test_a_retry_is_announced_before_its_wait_and_the_listener_stays_inside_the_request() -> None:
    async def go() -> tuple[list[Any], list[Any]]:
        m = Retrying("ok", wait=0.0)
        seen_listener: list[Any] = []
        out: list[Any] = []
        async for e in toolwire.run_stream(m, "hi"):
            out.append(e)
            seen_listener.append(retry_listener.get())  # the consumer's own context
        return out, seen_listener

    events, listeners = asyncio.run(go())
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("TurnStarted") < kinds.index("RetryScheduled") < kinds.index("TextDelta")
    retry = next(e for e in events if isinstance(e, ev.RetryScheduled))
    assert (retry.turn, retry.attempt, retry.delay) == (1, 2, 0.0)
    assert retry.error == "ProviderError: scripted API error (no HTTP status): busy (retryable)"
    assert events[-1].result.text == "ok"
    assert listeners == [None] * len(events)


def test_closing_the_stream_at_a_retry_cancels_the_waiting_request_and_lets_it_clean_up() -> None:
    async def go() -> tuple[Retrying, Any]:
        m = Retrying("ok", wait=60.0)
        stream = toolwire.run_stream(m, "hi")
        async for e in stream:
            if isinstance(e, ev.RetryScheduled):
                break
        await stream.aclose()
        return m, stream.state

    m, state = asyncio.run(go())
    assert m.cleaned == ["cancelled", "finally"]
    assert state.status == "cancelled" and state.error == "the event stream was closed"
    assert m.sent == 1


def test_cancelling_the_run_while_its_request_waits_cancels_the_request() -> None:
    async def go() -> tuple[Retrying, Any, bool]:
        m = Retrying("ok", wait=60.0)
        stream = toolwire.run_stream(m, "hi")
        task = asyncio.ensure_future(stream.finish())
        await m.waiting.wait()
        task.cancel()
        try:
            await task
            cancelled = False
        except asyncio.CancelledError:
            cancelled = True
        return m, stream.state, cancelled

    m, state, cancelled = asyncio.run(go())
    assert cancelled
    assert m.cleaned == ["cancelled", "finally"]
    assert state.status == "cancelled" and state.error == "CancelledError"
    assert state.conversation.messages[-1].role == "user"  # nothing half-answered


def test_a_request_error_after_a_retry_is_raised_by_the_run() -> None:
    class Failing(Retrying):
        async def send(self, request: Any) -> Any:
            notify(RetryNotice(2, 0.0, ProviderError("scripted", "busy", retryable=True)))
            await asyncio.sleep(0)
            raise ProviderError("scripted", "still busy")

    async def go() -> tuple[list[Any], Any]:
        stream = toolwire.run_stream(Failing("ok"), "hi")
        out: list[Any] = []
        with pytest.raises(ProviderError, match="still busy"):
            async for e in stream:
                out.append(e)
        return out, stream.state

    events, state = asyncio.run(go())
    assert [type(e).__name__ for e in events] == ["RunStarted", "TurnStarted", "RetryScheduled"]
    assert state.status == "failed" and "still busy" in (state.error or "")


# -- one synchronous tool call, awaited without a task ----------------------------------------------

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("test_direct_calls_var", default="unset")


def test_a_lone_sync_tool_sees_the_callers_context_and_runs_in_a_worker_thread() -> None:
    seen: list[tuple[str, bool]] = []

    @toolwire.tool
    def where() -> str:
        """Say where it runs."""
        seen.append((VAR.get(), threading.current_thread() is threading.main_thread()))
        return "here"

    async def go() -> Any:
        VAR.set("caller")
        return await toolwire.run(ScriptedModel("scripted", responses=[call("where"), "ok"]), "go", tools=[where])

    result = asyncio.run(go())
    assert seen == [("caller", False)]
    assert result.tool_runs[0].result.content == "here" and result.tool_runs[0].status == "ran"


def test_events_of_a_lone_sync_tool_call_are_those_of_a_batch() -> None:
    @toolwire.tool
    def one(x: int) -> int:
        """Echo."""
        return x

    @toolwire.tool
    async def one_async(x: int) -> int:
        """Echo."""
        return x

    def kinds(tool: Any, name: str) -> list[str]:
        async def go() -> list[str]:
            m = ScriptedModel("scripted", responses=[call(name, {"x": 3}), "ok"])
            return [type(e).__name__ for e in [e async for e in toolwire.run_stream(m, "go", tools=[tool])]]

        return asyncio.run(go())

    # the async tool runs as a task (the path the direct call must look like)
    assert kinds(one, "one") == kinds(one_async, "one_async")
    assert (
        kinds(one, "one")
        == (
            "RunStarted TurnStarted ToolCallStarted ResponseFinished ToolCallReady ToolStarted ToolFinished TurnFinished "
            "TurnStarted TextDelta ResponseFinished TurnFinished RunFinished"
        ).split()
    )


def test_cancelling_the_run_during_a_lone_sync_tool_leaves_it_interrupted_and_drops_its_late_result() -> None:
    release = threading.Event()
    entered = threading.Event()
    returned = threading.Event()

    @toolwire.tool
    def block() -> str:
        """Block until released."""
        entered.set()
        release.wait(60)
        returned.set()
        return "late"

    async def go() -> tuple[Any, list[Any]]:
        loop = asyncio.get_running_loop()
        problems: list[Any] = []
        loop.set_exception_handler(lambda _loop, context: problems.append(context))
        m = ScriptedModel("scripted", responses=[call("block"), "ok"])
        stream = toolwire.run_stream(m, "go", tools=[block])
        task = asyncio.ensure_future(stream.finish())
        while not entered.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()
        while not returned.is_set():  # the thread's late outcome reaches the loop
            await asyncio.sleep(0.01)
        for _ in range(5):
            await asyncio.sleep(0)
        return stream.state, problems

    state, problems = asyncio.run(go())
    assert problems == []
    assert state.status == "cancelled"
    run = state.turns[-1].tool_runs[0]
    assert run.status == "cancelled"
    assert run.result.content.startswith("Cancelled: the run was stopped (cancelled) while tool 'block' was running")
    assert [(p.call.name, p.kind) for p in state.pending] == [("block", "interrupted")]
    assert state.conversation.messages[-1].parts[0] is run.result


def test_closing_the_stream_at_tool_started_leaves_the_call_not_run() -> None:
    ran: list[int] = []

    @toolwire.tool
    def act() -> str:
        """Do it."""
        ran.append(1)
        return "done"

    async def go() -> Any:
        stream = toolwire.run_stream(ScriptedModel("scripted", responses=[call("act"), "ok"]), "go", tools=[act])
        async for e in stream:
            if isinstance(e, ev.ToolStarted):
                break
        await stream.aclose()
        return stream.state

    state = asyncio.run(go())
    assert ran == []
    run = state.turns[-1].tool_runs[0]
    assert run.status == "cancelled"
    assert run.result.content == "Not run: the run was stopped (cancelled) before tool 'act' started."
    assert [(p.call.name, p.kind) for p in state.pending] == [("act", "interrupted")]


def test_a_sync_function_returning_an_awaitable_is_awaited_within_its_timeout() -> None:
    async def later(x: int) -> str:
        await asyncio.sleep(0)
        return f"awaited {x}"

    async def forever() -> str:
        await asyncio.sleep(60)
        return "never"

    @toolwire.tool
    def gives(x: int) -> Any:
        """Return an awaitable."""
        return later(x)

    @toolwire.tool(timeout=0.05)
    def stalls() -> Any:
        """Return an awaitable that never ends."""
        return forever()

    r = toolwire.run_sync(ScriptedModel("scripted", responses=[call("gives", {"x": 2}), "ok"]), "go", tools=[gives])
    assert r.tool_runs[0].result.content == "awaited 2" and not r.tool_runs[0].is_error
    r = toolwire.run_sync(ScriptedModel("scripted", responses=[call("stalls"), "ok"]), "go", tools=[stalls])
    assert r.tool_runs[0].result.content == (
        "Tool 'stalls' timed out after 0.05 seconds; its result was discarded (a synchronous function cannot be "
        "interrupted and may still be running).\nTry a smaller request (narrower arguments), or a different approach."
    )


@pytest.mark.parametrize(
    ("raised", "text"),
    [
        (ValueError("bad"), "ValueError: bad"),
        (SystemExit(4), "SystemExit: 4"),
        (StopIteration("over"), "RuntimeError: StopIteration: over"),
        (asyncio.CancelledError(), "CancelledError: the tool cancelled itself"),
    ],
)
def test_what_a_lone_sync_tool_raises_is_its_error_result(raised: BaseException, text: str) -> None:
    @toolwire.tool
    def fails() -> str:
        """Fail."""
        raise raised

    r = toolwire.run_sync(ScriptedModel("scripted", responses=[call("fails"), "ok"]), "go", tools=[fails])
    assert r.tool_runs[0].result.content == text and r.tool_runs[0].is_error
    assert r.text == "ok"


def test_keyboard_interrupt_in_a_lone_sync_tool_stops_the_run() -> None:
    @toolwire.tool
    def interrupt() -> str:
        """Ctrl-C."""
        raise KeyboardInterrupt

    async def go() -> Any:
        stream = toolwire.run_stream(
            ScriptedModel("scripted", responses=[call("interrupt"), "ok"]), "go", tools=[interrupt]
        )
        with pytest.raises(KeyboardInterrupt):
            await stream.finish()
        return stream.state

    state = asyncio.run(go())
    assert state.status == "cancelled" and state.error == "KeyboardInterrupt"
    assert [(p.call.name, p.kind) for p in state.pending] == [("interrupt", "interrupted")]


# -- per-turn bookkeeping skipped when nothing reads it ------------------------------------------------


def test_the_depth_of_arguments_is_checked_once_and_a_restored_default_is_checked_again() -> None:
    from toolwire.arguments import MAX_ARGUMENT_DEPTH
    from toolwire.executor import ToolExecutor
    from toolwire.schema.validate import validate_arguments, validate_bounded_arguments
    from toolwire.types import ToolCall

    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer", "minimum": 1}, "tags": {"type": "array"}},
        "required": ["q"],
    }
    for args in ({"q": "x"}, {"q": 1}, {"n": 0}, {"q": "x", "tags": [[1, [2]], {"a": None}]}, [], "text"):

        def facts(errors: list[Any]) -> list[tuple[str, str, str, str]]:
            return [(e.pointer, e.rule, e.message, e.schema_pointer) for e in errors]

        assert facts(validate_bounded_arguments(schema, args)) == facts(validate_arguments(schema, args))
        assert facts(validate_arguments(schema, args)) != [] or args == {"q": "x"} or "tags" in args

    def nested(levels: int, leaf: Any) -> Any:
        for _ in range(levels):
            leaf = {"child": leaf}
        return leaf

    # a recursive schema whose nodes take a default nesting 30 levels; arguments 40 levels deep
    node = {
        "type": "object",
        "properties": {"child": {"$ref": "#/$defs/node"}, "v": {"type": "object", "default": nested(30, {})}},
    }
    schema2 = {"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}}, "$defs": {"node": node}}
    tree = toolwire.Tool("tree", "Walk a tree.", schema2, lambda root=None: "walked")
    ex = ToolExecutor({"tree": tree}, run_id="r")
    ok = ex.check(ToolCall("c1", "tree", {"root": nested(40, {})}), 1)
    assert not isinstance(ok, toolwire.ToolRun)
    # the model's own arguments past the bound: refused before they are copied
    too_deep = ex.check(ToolCall("c2", "tree", {"root": nested(MAX_ARGUMENT_DEPTH + 1, {})}), 1)
    assert isinstance(too_deep, toolwire.ToolRun) and too_deep.status == "invalid"
    assert "nest" in too_deep.result.text
    # a null restored to a default that takes the arguments past the bound: checked again after restoring
    restored = ex.check(ToolCall("c3", "tree", {"root": nested(40, {"v": None})}), 1)
    assert isinstance(restored, toolwire.ToolRun) and restored.status == "invalid"
    assert "maxDepth" in restored.result.text


def test_token_limits_still_count_every_turn_and_a_resumed_runs_earlier_turns() -> None:
    from toolwire import Limits, UsageLimitExceeded
    from toolwire.types import Response, TextPart, Usage

    def answer(text: str, tokens: int, calls: list[Any] | None = None) -> Response:
        parts: list[Any] = list(calls or []) or [TextPart(text)]
        stop = "tool_use" if calls else "end_turn"
        return Response(parts, stop, usage=Usage(input_tokens=tokens, output_tokens=1))

    @toolwire.tool
    def ping() -> str:
        """Ping."""
        return "pong"

    m = ScriptedModel("scripted", responses=[answer("", 40, [call("ping")]), answer("", 40, [call("ping")]), "ok"])
    with pytest.raises(UsageLimitExceeded, match="input tokens 80 exceeded the limit of 79"):
        toolwire.run_sync(m, "go", tools=[ping], limits=Limits(max_input_tokens=79))
    m = ScriptedModel("scripted", responses=[answer("", 40, [call("ping")]), "ok"])
    first = toolwire.run_sync(m, "go", tools=[ping], approval=True)
    assert first.stop_reason == "pending"
    m2 = ScriptedModel("scripted", responses=[answer("", 40, [call("ping")]), "ok"])
    with pytest.raises(UsageLimitExceeded, match="input tokens 80 exceeded the limit of 79"):
        toolwire.run_sync(
            m2,
            tools=[ping],
            resume=first,
            decisions={first.pending[0].call.id: toolwire.Approved()},
            limits=Limits(max_input_tokens=79),
        )
    # no limit: the run's usage is still the sum of its turns
    m3 = ScriptedModel("scripted", responses=[answer("", 40, [call("ping")]), answer("ok", 7)])
    r = toolwire.run_sync(m3, "go", tools=[ping])
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.requests) == (47, 2, 2)
