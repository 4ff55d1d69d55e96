"""``@tool(blocking=False)``: a synchronous function called directly on the event loop, with
the same results, errors and ordering as one run in a worker thread."""

from __future__ import annotations

import threading

import pytest

import toolwire
from toolwire import ToolDefinitionError, ToolError
from toolwire.testing import ScriptedModel, call


def where(q: str) -> str:
    """Says which thread runs it."""
    return f"{q} on {threading.current_thread().name}"


def test_a_non_blocking_tool_runs_on_the_loop_thread_and_a_default_one_does_not():
    inline = toolwire.tool(where, name="inline", blocking=False)
    threaded = toolwire.tool(where, name="threaded")
    assert inline.meta == {"blocking": False} and inline.runs_inline
    assert threaded.meta == {} and not threaded.runs_inline
    script = [[call("inline", {"q": "a"}, id="c1"), call("threaded", {"q": "b"}, id="c2")], "done"]
    r = toolwire.run_sync(ScriptedModel(responses=script), "go", tools=[inline, threaded])
    here = threading.current_thread().name
    assert [t.result.text for t in r.tool_runs] == [f"a on {here}", r.tool_runs[1].result.text]
    assert r.tool_runs[1].result.text.startswith("b on toolwire-tool-")


def test_non_blocking_calls_of_one_response_are_all_answered_in_call_order():
    order: list[int] = []

    @toolwire.tool(blocking=False)
    def step(i: int) -> str:
        """Records its turn."""
        order.append(i)
        return f"step {i}"

    calls = [call("step", {"i": i}, id=f"c{i}") for i in range(5)]
    r = toolwire.run_sync(ScriptedModel(responses=[calls, "done"]), "go", tools=[step])
    assert [t.result.text for t in r.tool_runs] == [f"step {i}" for i in range(5)]
    assert [t.call.id for t in r.tool_runs] == [f"c{i}" for i in range(5)]
    assert sorted(order) == list(range(5))


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (ValueError("bad value"), "ValueError: bad value"),
        (ToolError("no such city", hint="Ask for another city."), "no such city"),
        (SystemExit(3), "SystemExit: 3"),
    ],
)
def test_failures_of_a_non_blocking_tool_become_is_error_results(raised, expected):
    @toolwire.tool(blocking=False)
    def fails(q: str) -> str:
        """Fails."""
        raise raised

    r = toolwire.run_sync(ScriptedModel(responses=[call("fails", {"q": "a"}), "done"]), "go", tools=[fails])
    result = r.tool_runs[0].result
    assert result.is_error and result.text.startswith(expected)
    assert r.text == "done"


def test_the_same_failure_text_as_a_threaded_tool():
    def fails(q: str) -> bytes:
        """Returns bytes that are not UTF-8."""
        return b"\xff\xfe"

    texts = []
    for blocking in (True, False):
        t = toolwire.tool(fails, blocking=blocking)
        r = toolwire.run_sync(ScriptedModel(responses=[call("fails", {"q": "a"}), "done"]), "go", tools=[t])
        texts.append((r.tool_runs[0].result.is_error, r.tool_runs[0].result.text))
    assert texts[0] == texts[1] and texts[0][0] is True


def test_keyboard_interrupt_in_a_non_blocking_tool_reaches_the_caller():
    @toolwire.tool(blocking=False)
    def stop(q: str) -> str:
        """Interrupts."""
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        toolwire.run_sync(ScriptedModel(responses=[call("stop", {"q": "a"}), "done"]), "go", tools=[stop])
    assert toolwire.run_sync(ScriptedModel(responses=["ok"]), "go").text == "ok"


def test_blocking_must_be_a_bool_and_is_refused_for_async_functions():
    with pytest.raises(ToolDefinitionError, match="blocking"):
        toolwire.tool(where, blocking="no")  # type: ignore[arg-type]

    async def later(q: str) -> str:
        """Async."""
        return q

    with pytest.raises(ToolDefinitionError) as caught:
        toolwire.tool(later, blocking=False)
    assert str(caught.value) == (
        "tool 'later': blocking=False is for synchronous functions; "
        "an async function already runs on the event loop. Remove blocking=False."
    )
    assert not toolwire.tool(later).runs_inline


def test_a_non_blocking_tool_still_gets_its_context():
    @toolwire.tool(blocking=False)
    def ctx_tool(q: str, ctx: toolwire.ToolContext) -> str:
        """Reads its context."""
        return f"{ctx.tool_call_id} {ctx.state['k']}"

    r = toolwire.run_sync(
        ScriptedModel(responses=[call("ctx_tool", {"q": "a"}, id="c9"), "done"]), "go", tools=[ctx_tool], state={"k": 1}
    )
    assert r.tool_runs[0].result.text == "c9 1"


def test_is_async_is_read_again_when_the_function_changes():
    t = toolwire.tool(where)
    assert not t.is_async and not t.is_async

    async def later(q: str) -> str:
        """Async."""
        return q

    t.function = later  # type: ignore[assignment]
    assert t.is_async and not t.runs_inline
    t.function = where
    assert not t.is_async
