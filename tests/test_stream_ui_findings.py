"""Findings of driving run_stream as a chat UI would (approval dialogs, closing the stream early,
cancelling, sync streams): each test failed before its fix."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import Approved, Denied, RunState, tool
from toolwire import events as ev

sys.path.insert(0, str(Path(__file__).parent))
from streaming_helpers import GatedModel, calls, text


def _tools(log: list[Any]) -> list[Any]:
    @tool
    def look(q: str) -> str:
        """Look something up."""
        log.append(("look", q))
        return f"found {q}"

    @tool
    def pay(amount: int) -> str:
        """Pay."""
        log.append(("pay", amount))
        return f"paid {amount}"

    return [look, pay]


async def _read_until(stream: Any, stop: Any) -> list[Any]:
    """Read events until ``stop(event)``, then close the stream (an approval dialog opens)."""
    seen: list[Any] = []
    async with stream:
        async for e in stream:
            seen.append(e)
            if stop(e):
                break
    return seen


# -- 1. a call about to run when the stream is closed is listed as interrupted --------------------


@pytest.mark.parametrize("stop_at", ["ToolCallPending", "ToolFinished"])
def test_closed_before_the_batch_started_lists_the_calls_still_to_run(stop_at: str):
    """Closing the stream at the ToolCallPending (or at the ToolFinished of an invalid call) that
    comes before the turn's other calls start: those calls are interrupted, listed in
    ``state.pending``, and a resume runs them (before, they were answered "Not run" for good)."""
    log: list[Any] = []
    tools = _tools(log)
    script = [
        calls(("c1", "look", {"q": "a"}), ("c2", "pay", {"amount": 3}), ("c3", "look", {"q": 5})),
        text("done"),
    ]

    async def main() -> tuple[RunState, Any]:
        s = toolwire.run_stream(GatedModel(script, stream=True), "go", tools=tools, approval={"pay"})
        await asyncio.wait_for(_read_until(s, lambda e: type(e).__name__ == stop_at), 5)
        st = s.state
        done = await asyncio.wait_for(
            toolwire.run(
                GatedModel([text("ok")]),
                tools=tools,
                approval={"pay"},
                resume=RunState.from_json(st.to_json()),
                decisions={"c2": Approved()},
            ),
            5,
        )
        return st, done

    st, done = asyncio.run(main())
    assert st.status == "cancelled"
    assert [(p.call.id, p.kind) for p in st.pending] == [("c1", "interrupted"), ("c2", "approval")]
    runs = {r.call.id: r for r in st.turns[-1].tool_runs}
    assert runs["c1"].result.text.startswith("Cancelled") or runs["c1"].result.text.startswith(
        "Not run: the run was stopped (cancelled)"
    )
    assert runs["c3"].status == "invalid"
    assert done.stop_reason == "end_turn"
    assert sorted(log) == [("look", "a"), ("pay", 3)]
    assert {r.call.id: r.status for r in done.tool_runs} == {"c1": "ran", "c2": "ran", "c3": "invalid"}


def test_closed_while_decisions_are_applied_keeps_the_approved_calls_pending():
    """A resume with decisions, its stream closed at the ToolFinished of a denied call: the
    approved call has not run yet and stays pending (approved), so the next resume runs it without
    asking again (before, it was dropped: no pending call, answered "waiting for approval")."""
    log: list[Any] = []
    tools = _tools(log)

    async def main() -> tuple[RunState, Any]:
        first = await toolwire.run(
            GatedModel([calls(("c1", "pay", {"amount": 1}), ("c2", "pay", {"amount": 3}))]),
            "go",
            tools=tools,
            approval={"pay"},
        )
        s = toolwire.run_stream(
            GatedModel([text("done")]),
            tools=tools,
            approval={"pay"},
            resume=first,
            decisions={"c1": Denied("no"), "c2": Approved()},
        )
        await asyncio.wait_for(_read_until(s, lambda e: isinstance(e, ev.ToolFinished)), 5)
        again = await asyncio.wait_for(
            toolwire.run(GatedModel([text("done")]), tools=tools, approval={"pay"}, resume=s.state), 5
        )
        return s.state, again

    st, again = asyncio.run(main())
    assert st.status == "cancelled"
    assert [(p.call.id, p.kind, p.approved) for p in st.pending] == [("c2", "interrupted", True)]
    assert again.stop_reason == "end_turn" and log == [("pay", 3)]
    assert {r.call.id: r.status for r in again.tool_runs} == {"c1": "refused", "c2": "ran"}


# -- 2. an approved call with edited arguments, interrupted, runs again with the edit -------------


@pytest.mark.parametrize("via_json", [False, True], ids=["state", "json"])
def test_interrupted_call_approved_with_edited_arguments_runs_again_with_the_edit(via_json: bool):
    """``Approved(arguments=...)``, the run stopped while the tool ran: the next resume runs the
    call again without asking (as for any approved call) — with the person's arguments, never the
    model's (before, it ran with the model's ``amount=1000``)."""
    log: list[Any] = []

    async def main() -> tuple[RunState, Any]:
        gate = asyncio.Event()

        @tool
        async def pay(amount: int) -> str:
            """Pay."""
            log.append(("start", amount))
            await gate.wait()
            return f"paid {amount}"

        first = await toolwire.run(
            GatedModel([calls(("c1", "pay", {"amount": 1000}))]), "go", tools=[pay], approval={"pay"}
        )
        s = toolwire.run_stream(
            GatedModel([text("done")]),
            tools=[pay],
            approval={"pay"},
            resume=first,
            decisions={"c1": Approved(arguments={"amount": 3})},
        )
        await asyncio.wait_for(_read_until(s, lambda e: isinstance(e, ev.ToolStarted)), 5)
        gate.set()
        st = RunState.from_json(s.state.to_json()) if via_json else s.state
        again = await asyncio.wait_for(
            toolwire.run(GatedModel([text("done")]), tools=[pay], approval={"pay"}, resume=st), 5
        )
        return st, again

    st, again = asyncio.run(main())
    [p] = st.pending
    assert (p.kind, p.approved, p.arguments) == ("interrupted", True, {"amount": 3})
    assert p.call.arguments == {"amount": 1000}  # the call as the model sent it
    assert log == [("start", 3), ("start", 3)]
    assert again.tool_runs[0].call.arguments == {"amount": 3} and again.tool_runs[0].result.text == "paid 3"


# -- 3. a stream closed before its first event says how the run ended ----------------------------


def test_stream_closed_before_its_first_event_says_cancelled():
    """The browser left before the first event was read (``async with`` left, ``aclose()``, a sync
    stream closed or dropped): the state says ``"cancelled"`` like any closed stream (before, it
    kept saying ``"running"``), and ``finish()`` names that state."""

    async def main() -> list[Any]:
        out = []
        s = toolwire.run_stream(GatedModel([text("hi")]), "go")
        async with s:
            pass
        out.append((s.state.status, s.state.error))
        with pytest.raises(RuntimeError, match="'cancelled'"):
            await s.finish()
        s = toolwire.run_stream(GatedModel([text("hi")]), "go")
        await s.aclose()
        out.append((s.state.status, s.state.error))
        return out

    closed = ("cancelled", "the event stream was closed")
    assert asyncio.run(main()) == [closed, closed]
    with toolwire.run_stream_sync(GatedModel([text("hi")]), "go") as sync:
        pass
    assert (sync.state.status, sync.state.error) == closed
    assert toolwire.run_stream_sync(GatedModel([text("hi")]), "go").finish().text == "hi"  # (unchanged)


# -- 4. a wrong decision is an argument error of run_stream, before any event --------------------


def test_wrong_decisions_raise_from_run_stream_before_any_event():
    """A decision for a call that is not pending, or of the wrong kind, raises
    ``ConfigurationError`` from ``run_stream()`` itself, as its other argument errors do (before,
    the stream yielded ``RunStarted`` and then failed, its state saying ``"failed"``)."""
    log: list[Any] = []
    look, pay = _tools(log)
    first = toolwire.run_sync(
        GatedModel([calls(("c1", "pay", {"amount": 1}), ("c2", "look", {"q": "x"}))]),
        "go",
        tools=[look, pay],
        approval={"pay"},
        deferred=["look"],
    )
    assert [(p.call.id, p.kind) for p in first.pending] == [("c1", "approval"), ("c2", "deferred")]
    bad: list[tuple[dict[str, Any], str]] = [
        ({"zzz": Approved()}, r"not pending: \['zzz'\]; pending: \['c1', 'c2'\]"),
        ({"c1": "yes"}, "must be toolwire.Approved"),
        ({"c2": Approved()}, "is deferred: supply its result"),
        ({"c1": Approved(arguments=[1])}, r"Approved\(arguments=...\) takes a dict"),  # type: ignore[arg-type]
    ]
    for decisions, message in bad:
        with pytest.raises(toolwire.ConfigurationError, match=message):
            toolwire.run_stream_sync(
                GatedModel([text("x")]),
                tools=[look, pay],
                approval={"pay"},
                deferred=["look"],
                resume=first,
                decisions=decisions,
            )
    assert log == []
