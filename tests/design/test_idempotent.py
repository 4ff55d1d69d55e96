"""Idempotent writes: a repeated identical call to a non-repeatable tool runs once per run.

The marker and the key are the design kit's; the dedupe itself lives in the loop's executor.
"""

from __future__ import annotations

import asyncio

import toolwire
from toolwire import ToolCall, tool
from toolwire.context import ToolContext
from toolwire.design.idempotent import call_key, is_non_repeatable, non_repeatable, write_once


def _ticket_tools(created: list[tuple[str, str]], reads: list[str]):
    @non_repeatable
    @tool
    def create_ticket(title: str, ctx: ToolContext) -> str:
        """Open a support ticket. Call it once per problem the user reports.

        Args:
            title: One-line summary shown in the ticket list.
        """
        created.append((title, ctx.idempotency_key))
        return f"created ticket #{len(created)}: {title}"

    @tool
    def count_tickets() -> str:
        """Count open tickets. Use it to check the effect of create_ticket."""
        reads.append("read")
        return f"{len(created)} open"

    return create_ticket, count_tickets


def test_marker_and_key():
    created: list = []
    t, r = _ticket_tools(created, [])
    assert t.meta["non_repeatable"] is True and is_non_repeatable(t)
    assert not is_non_repeatable(r)
    assert "ctx" not in t.input_schema["properties"]  # ToolContext is injected, never shown to the model
    assert write_once is non_repeatable
    assert call_key("a", {"x": 1, "y": [1, 2]}) == call_key("a", {"y": [1, 2], "x": 1})
    assert call_key("a", {"x": 1}) != call_key("a", {"x": 2}) != call_key("b", {"x": 2})


def test_repeated_identical_write_runs_once_reads_always_run():
    created: list[tuple[str, str]] = []
    reads: list[str] = []
    create_ticket, count_tickets = _ticket_tools(created, reads)
    script = [
        [ToolCall("c1", "create_ticket", {"title": "Login fails"}), ToolCall("r1", "count_tickets", {})],
        [ToolCall("c2", "create_ticket", {"title": "Login fails"}), ToolCall("r2", "count_tickets", {})],
        [ToolCall("c3", "create_ticket", {"title": "Export is slow"})],
        "done",
    ]
    model = toolwire.model("scripted", responses=script)
    result = asyncio.run(toolwire.run(model, "file tickets", tools=[create_ticket, count_tickets], run_id="run-7"))
    # the identical second call did not run the function again
    assert [c[0] for c in created] == ["Login fails", "Export is slow"]
    # the key comes from run id and call id
    assert created[0][1] == "run-7:c1" and created[1][1] == "run-7:c3"
    runs = {r.call.id: r for r in result.tool_runs}
    assert runs["c2"].deduplicated is True
    assert runs["c2"].result.content.startswith("created ticket #1: Login fails")
    assert "c1" in runs["c2"].result.content  # the note names the first call
    assert runs["c3"].result.content == "created ticket #2: Export is slow"
    # reads are never deduplicated
    assert reads == ["read", "read"]
    assert not runs["r2"].deduplicated


def test_a_default_spelled_out_or_a_whole_float_is_the_same_call():
    """{"title": "A"} then {"title": "A", "priority": 1} (1 is the default), and priority 1 then
    1.0: the same action, which ran twice."""
    created: list[tuple[str, int]] = []

    @non_repeatable
    @tool
    def create_ticket(title: str, priority: int = 1) -> str:
        """Open a support ticket. Call it once per problem the user reports."""
        created.append((title, priority))
        return f"created ticket #{len(created)}"

    script = [
        [ToolCall("c1", "create_ticket", {"title": "A"})],
        [ToolCall("c2", "create_ticket", {"title": "A", "priority": 1})],
        [ToolCall("c3", "create_ticket", {"title": "B", "priority": 2})],
        [ToolCall("c4", "create_ticket", {"title": "B", "priority": 2.0})],
        [ToolCall("c5", "create_ticket", {"title": "B", "priority": 3})],
        "done",
    ]
    result = asyncio.run(toolwire.run(toolwire.model("scripted", responses=script), "go", tools=[create_ticket]))
    assert created == [("A", 1), ("B", 2), ("B", 3)]
    assert [r.deduplicated for r in result.tool_runs] == [False, True, False, True, False]
