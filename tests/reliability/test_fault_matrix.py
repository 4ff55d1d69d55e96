"""The fault matrix: every way a run can fail part-way × every API, through the real SDKs
(network replaced by ``httpx2.MockTransport``) and the SQLite checkpoint store on a real file.

Script per API: turn 1 asks for ``fast`` (call c1), turn 2 for ``slow`` (call c2), turn 3
answers ``done``. Faults: a server error after the SDK's retries on the second request, task
cancellation and a timeout around the run while ``slow`` runs, an exception in an
``after_tool_call`` hook, an exception in ``on_turn``, ``KeyboardInterrupt`` inside ``slow``.
After each fault the checkpoint holds a valid conversation (every call answered exactly once,
right after the message that made it), ``fast``'s real result and the usage so far; resuming
from the store finishes the run with the exact expected conversation and never runs ``fast``
again.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from reliability_wire import APIS, error_body, text_body, tool_body, tool_results_in

import toolwire
from toolwire.store import RunStore
from toolwire.types import ToolCall, ToolResult

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

FAULTS = ["server_error", "cancel", "timeout", "hook_error", "on_turn_error", "keyboard_interrupt"]


class Script:
    def __init__(self, api: str, fault: str) -> None:
        self.api, self.fault = api, fault
        self.healthy = False
        self.fast_runs = 0
        self.slow_runs = 0
        self.slow_started = asyncio.Event() if False else None

    def respond(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        n = tool_results_in(self.api, body)
        if n == 1 and self.fault == "server_error" and not self.healthy:
            return httpx2.Response(500, json=error_body(self.api, 500, "internal error"))
        if n == 0:
            out = tool_body(self.api, [("c1", "fast", {"x": 1})], 0)
        elif n == 1:
            out = tool_body(self.api, [("c2", "slow", {"x": 2})], 1)
        else:
            out = text_body(self.api, "done", 2)
        return httpx2.Response(200, json=out)


def tools_for(s: Script) -> list[Any]:
    @toolwire.tool
    def fast(x: int) -> str:
        """Fast step. Use first."""
        s.fast_runs += 1
        return f"fast-ok {x}"

    @toolwire.tool
    async def slow(x: int) -> str:
        """Slow step. Use second."""
        s.slow_runs += 1
        if not s.healthy:
            if s.fault in ("cancel", "timeout"):
                s.started.set()
                await asyncio.Event().wait()  # until cancelled
            if s.fault == "keyboard_interrupt":
                raise KeyboardInterrupt
        return f"slow-ok {x}"

    return [fast, slow]


def shape(conv: Any) -> list[tuple[str, list[str]]]:
    """The conversation as (role, parts) with each part as 'text:<t>', 'call:<name>' or
    'result:<text>' (ids left out: Gemini has none of its own)."""
    out = []
    for m in conv.messages:
        parts = []
        for p in m.parts:
            if isinstance(p, ToolCall):
                parts.append(f"call:{p.name}")
            elif isinstance(p, ToolResult):
                parts.append(f"result:{p.text.splitlines()[0] if p.text else ''}")
            elif getattr(p, "type", "") == "text":
                parts.append(f"text:{p.text}")
        out.append((m.role, parts))
    return out


def assert_valid(conv: Any) -> None:
    """Every tool call has exactly one result, in the message right after the one that made it."""
    msgs = conv.messages
    for i, m in enumerate(msgs):
        calls = [p.id for p in m.parts if isinstance(p, ToolCall)]
        if calls:
            assert i + 1 < len(msgs), "a call without a following message"
            answered = [p.tool_call_id for p in msgs[i + 1].parts if isinstance(p, ToolResult)]
            assert sorted(answered) == sorted(calls)
    all_results = [p.tool_call_id for m in msgs for p in m.parts if isinstance(p, ToolResult)]
    assert len(all_results) == len(set(all_results))


FINAL = [
    ("user", ["text:go"]),
    ("assistant", ["call:fast"]),
    ("user", ["result:fast-ok 1"]),
    ("assistant", ["call:slow"]),
    ("user", ["result:slow-ok 2"]),
    ("assistant", ["text:done"]),
]


async def _faulted(store: RunStore, m: Any, s: Script, tools: list[Any]) -> BaseException | None:
    kwargs: dict[str, Any] = {"tools": tools, "run_id": "run-1"}
    if s.fault == "hook_error":

        def after(run: Any) -> None:
            if run.call.name == "slow":
                raise RuntimeError("hook failed")

        kwargs["after_tool_call"] = after
    if s.fault == "on_turn_error":

        def on_turn(turn: Any) -> None:
            raise RuntimeError("on_turn failed")

        kwargs["on_turn"] = on_turn
    task = asyncio.ensure_future(store.run(m, "go", **kwargs))
    try:
        if s.fault == "cancel":
            await s.started.wait()
            task.cancel()
            await task
        elif s.fault == "timeout":
            await asyncio.wait_for(asyncio.shield(_after(s.started, task)), 60)
            await asyncio.wait_for(task, 0.05)
        else:
            await task
    except BaseException as exc:
        return exc
    return None


async def _after(ev: asyncio.Event, task: Any) -> None:
    await ev.wait()


SUMMARY: dict[str, str] = {}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("api", APIS)
def test_fault_leaves_a_valid_resumable_run(api, fault, tmp_path):
    s = Script(api, fault)
    tools = tools_for(s)
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(s.respond))
    m = toolwire.model(f"{api}:m-1", api_key="k", max_retries=1, http_client=client)
    store = RunStore(tmp_path / "runs.sqlite")

    async def first() -> BaseException | None:
        s.started = asyncio.Event()
        return await _faulted(store, m, s, tools)

    try:
        error = asyncio.run(first())
    except KeyboardInterrupt as exc:  # asyncio.run re-raises it after cancelling the loop
        error = exc
    assert error is not None, "the fault stopped the run"
    saved = store.load_state("run-1")
    assert_valid(saved.conversation)
    after_fault = shape(saved.conversation)
    assert after_fault[:3] == FINAL[:3]  # fast's real result is kept
    if fault in ("server_error", "on_turn_error"):  # stopped before slow was asked for
        assert after_fault == FINAL[:3]
    else:  # slow was asked for: its call is answered by a placeholder (or its result), never left open
        assert len(after_fault) == 5 and after_fault[3] == ("assistant", ["call:slow"])
        assert (
            after_fault[4][0] == "user" and len(after_fault[4][1]) == 1 and after_fault[4][1][0].startswith("result:")
        )
    assert saved.usage.input_tokens >= 10 and saved.status in ("failed", "cancelled")
    assert s.fast_runs == 1

    s.healthy = True
    result = asyncio.run(store.resume("run-1", m, tools=tools))
    assert shape(result.conversation) == FINAL
    assert_valid(result.conversation)
    assert s.fast_runs == 1, "a finished tool was run again"
    assert store.get("run-1").status == "finished"
    assert [c["name"] for c in store.tool_calls("run-1")] == ["fast", "slow"]
    store.close()
    SUMMARY[f"{api}/{fault}"] = f"{type(error).__name__}, {len(after_fault)} messages kept, {saved.status}"


def test_zz_fault_matrix_summary():
    if SUMMARY:
        print(f"\nfault matrix: {len(SUMMARY)} scenarios")
        for k, v in sorted(SUMMARY.items()):
            print(f"  {k}: {v}")
