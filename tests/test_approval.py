"""Approval (always / by policy), deferred tools, hooks and per-tool limits — round trips through
JSON as after a process restart."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import Approved, ConfigurationError, Denied, RunResult, RunState, Tool, ToolResult, tool
from toolwire import events as ev

sys.path.insert(0, str(Path(__file__).parent))
from streaming_helpers import GatedModel, calls, conversation_shape, text


class Bank:
    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []

        @tool
        def balance(account: str) -> str:
            """Balance of an account."""
            self.log.append(("balance", account))
            return f"{account}: 100"

        @tool
        def transfer(to: str, amount: int) -> str:
            """Send money."""
            self.log.append(("transfer", (to, amount)))
            return f"sent {amount} to {to}"

        self.tools = [balance, transfer]


THREE = calls(
    ("t1", "transfer", {"to": "ann", "amount": 5}),
    ("t2", "transfer", {"to": "bob", "amount": 7}),
    ("t3", "transfer", {"to": "cy", "amount": 9}),
    ("b1", "balance", {"account": "main"}),
    say="Paying.",
)


def test_approval_round_trip_through_json_approve_deny_edit():
    bank = Bank()
    first = toolwire.run_sync(GatedModel([THREE]), "pay", tools=bank.tools, approval={"transfer"})
    assert first.stop_reason == "pending"
    assert [(p.call.id, p.kind) for p in first.pending] == [("t1", "approval"), ("t2", "approval"), ("t3", "approval")]
    assert bank.log == [("balance", "main")]  # the call not needing approval ran
    # the conversation is valid already: every call answered (placeholders for the pending ones)
    last = conversation_shape(first.conversation.messages)[-1]
    assert last == (
        "user",
        [
            ("result", "t1", "Not run yet: this call to 'transfer' is waiting for the user's approval.", True),
            ("result", "t2", "Not run yet: this call to 'transfer' is waiting for the user's approval.", True),
            ("result", "t3", "Not run yet: this call to 'transfer' is waiting for the user's approval.", True),
            ("result", "b1", "main: 100", False),
        ],
    )
    saved = first.to_json()  # ... a process restart later ...
    loaded = RunResult.from_json(saved)
    assert loaded == first
    bank2 = Bank()
    done = toolwire.run_sync(
        GatedModel([text("Paid ann, bob refused, cy edited.")]),
        tools=bank2.tools,
        approval={"transfer"},
        resume=loaded,
        decisions={
            "t1": Approved(),
            "t2": Denied("bob is not a known payee"),
            "t3": Approved(arguments={"to": "cy", "amount": 3}),
        },
    )
    assert done.stop_reason == "end_turn" and done.pending == []
    # balance not run again; the two approved calls run in parallel, so in either order
    assert sorted(bank2.log, key=str) == [("transfer", ("ann", 5)), ("transfer", ("cy", 3))]
    results = {r.call.id: r for r in done.tool_runs}
    assert results["t1"].result.text == "sent 5 to ann" and not results["t1"].is_error
    assert results["t2"].is_error and results["t2"].status == "refused"
    assert results["t2"].result.text == (
        "Not run: the user refused this call to 'transfer'. Reason: bob is not a known payee\n"
        "Do not make the same call again; continue without it, or ask the user what to do instead."
    )
    assert results["t3"].result.text == "sent 3 to cy" and results["t3"].call.arguments == {"to": "cy", "amount": 3}
    assert results["b1"].result.text == "main: 100"
    # the model's call stays as it sent it in the conversation
    assert done.conversation.messages[1].tool_calls[2].arguments == {"to": "cy", "amount": 9}
    assert done.run_id == first.run_id and [t.number for t in done.turns] == [1, 2]
    # the saved result is unchanged by the resume
    assert RunResult.from_json(saved) == loaded


def test_edited_arguments_are_validated_again():
    bank = Bank()
    first = toolwire.run_sync(
        GatedModel([calls(("t1", "transfer", {"to": "ann", "amount": 5}))]), "pay", tools=bank.tools, approval=True
    )
    done = toolwire.run_sync(
        GatedModel([text("ok")]),
        tools=bank.tools,
        resume=first,
        decisions={"t1": Approved(arguments={"to": "ann", "amount": "lots"})},
    )
    run = done.tool_runs[0]
    assert run.is_error and run.status == "invalid"
    assert run.result.text.startswith("Invalid arguments for tool 'transfer': at /amount")
    assert bank.log == []


def test_approval_policy_function_sync_and_async_with_reason():
    bank = Bank()

    async def policy(call: Any) -> Any:
        await asyncio.sleep(0)
        return "large amount" if call.arguments.get("amount", 0) > 6 else False

    r = toolwire.run_sync(GatedModel([THREE, text("done")]), "pay", tools=bank.tools, approval=policy)
    assert [(p.call.id, p.reason) for p in r.pending] == [("t2", "large amount"), ("t3", "large amount")]
    assert sorted(bank.log, key=str) == [("balance", "main"), ("transfer", ("ann", 5))]  # run in parallel
    # a tool's own meta wins over the run-level policy
    strict = Tool.from_function(bank.tools[1].function)
    strict.meta["requires_approval"] = True
    r2 = toolwire.run_sync(GatedModel([calls(("t9", "transfer", {"to": "x", "amount": 1}))]), "pay", tools=[strict])
    assert [p.call.id for p in r2.pending] == ["t9"]


def test_undecided_calls_stay_pending_and_unknown_decisions_are_refused():
    bank = Bank()
    first = toolwire.run_sync(GatedModel([THREE]), "pay", tools=bank.tools, approval={"transfer"})
    with pytest.raises(ConfigurationError, match="not pending"):
        toolwire.run_sync(GatedModel([]), tools=bank.tools, resume=first, decisions={"zz": Approved()})
    part = toolwire.run_sync(GatedModel([]), tools=bank.tools, resume=first, decisions={"t1": Approved()})
    assert part.stop_reason == "pending" and [p.call.id for p in part.pending] == ["t2", "t3"]
    assert bank.log == [("balance", "main"), ("transfer", ("ann", 5))]
    with pytest.raises(ConfigurationError, match="pending tool calls"):
        toolwire.run_sync(GatedModel([]), "new prompt", tools=bank.tools, resume=part)


def test_deferred_tool_round_trip_through_json():
    browser = Tool(
        "read_clipboard",
        "Read the user's clipboard (runs in the browser).",
        {"type": "object", "properties": {"fmt": {"type": "string"}}, "required": ["fmt"]},
        None,
    )
    bank = Bank()
    script = [calls(("d1", "read_clipboard", {"fmt": "text"}), ("b1", "balance", {"account": "x"}))]

    async def main() -> tuple[list[Any], Any]:
        s = toolwire.run_stream(
            GatedModel(script), "what did I copy?", tools=[browser, *bank.tools], deferred=["read_clipboard"]
        )
        return [e async for e in s], s

    events, s = asyncio.run(main())
    pend = [e for e in events if isinstance(e, ev.ToolCallPending)]
    assert [(e.pending.call.id, e.pending.kind) for e in pend] == [("d1", "deferred")]
    st = s.state
    assert st.status == "paused" and st.stop_reason == "pending"
    text_json = st.to_json()
    loaded = RunState.from_json(text_json)
    done = toolwire.run_sync(
        GatedModel([text("You copied 'hello'.")]),
        tools=[browser, *bank.tools],
        deferred=["read_clipboard"],
        resume=loaded,
        decisions={"d1": "hello"},
    )
    assert done.text == "You copied 'hello'."
    runs = {r.call.id: r for r in done.tool_runs}
    assert runs["d1"].result.text == "hello" and runs["d1"].status == "deferred" and not runs["d1"].is_error
    assert bank.log == [("balance", "x")]
    # a failure supplied for a deferred call is an is_error result
    again = toolwire.run_sync(
        GatedModel([text("no")]),
        tools=[browser, *bank.tools],
        deferred=["read_clipboard"],
        resume=RunState.from_json(text_json),
        decisions={"d1": ToolResult("ignored", "clipboard empty", is_error=True)},
    )
    assert again.tool_runs[0].result.tool_call_id == "d1" and again.tool_runs[0].is_error
    with pytest.raises(ConfigurationError, match="deferred"):
        toolwire.run_sync(
            GatedModel([]),
            tools=[browser, *bank.tools],
            resume=RunState.from_json(text_json),
            decisions={"d1": Approved()},
        )


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_hooks_change_arguments_refuse_and_change_results(kind: str):
    bank = Bank()

    def before(call: Any) -> Any:
        if call.name == "transfer" and call.arguments["to"] == "bob":
            return Denied("bob is blocked by policy")
        if call.name == "transfer":
            return {**call.arguments, "amount": min(call.arguments["amount"], 6)}
        return None

    def after(run: Any) -> Any:
        if run.call.name == "balance":
            return run.result.text + " (cached)"
        return None

    if kind == "async":
        sync_before, sync_after = before, after

        async def before(call: Any) -> Any:  # type: ignore[no-redef]
            await asyncio.sleep(0)
            return sync_before(call)

        async def after(run: Any) -> Any:  # type: ignore[no-redef]
            await asyncio.sleep(0)
            return sync_after(run)

    r = toolwire.run_sync(
        GatedModel([THREE, text("ok")]), "pay", tools=bank.tools, before_tool_call=before, after_tool_call=after
    )
    runs = {x.call.id: x for x in r.tool_runs}
    assert runs["t1"].result.text == "sent 5 to ann"
    assert runs["t2"].status == "refused" and runs["t2"].result.text.startswith(
        "Not run: the call to 'transfer' was refused: bob is blocked by policy"
    )
    assert runs["t3"].result.text == "sent 6 to cy" and runs["t3"].call.arguments == {"to": "cy", "amount": 6}
    assert runs["b1"].result.text == "main: 100 (cached)"
    assert sorted(bank.log, key=str) == sorted(
        [("transfer", ("ann", 5)), ("transfer", ("cy", 6)), ("balance", "main")], key=str
    )


def test_hook_changing_arguments_is_validated_again():
    bank = Bank()
    r = toolwire.run_sync(
        GatedModel([calls(("t1", "transfer", {"to": "ann", "amount": 5})), text("ok")]),
        "pay",
        tools=bank.tools,
        before_tool_call=lambda c: {"to": "ann"},
    )
    assert r.tool_runs[0].status == "invalid" and "amount" in r.tool_runs[0].result.text
    assert bank.log == []


def test_per_tool_limit_answers_with_the_limit_and_the_run_goes_on():
    bank = Bank()
    script = [THREE, calls(("t4", "transfer", {"to": "dee", "amount": 1})), text("done")]
    r = toolwire.run_sync(GatedModel(script), "pay", tools=bank.tools, limits={"max_calls_per_tool": {"transfer": 2}})
    runs = {x.call.id: x for x in r.tool_runs}
    assert [runs[c].status for c in ("t1", "t2", "t3", "b1", "t4")] == ["ran", "ran", "limit", "ran", "limit"]
    assert runs["t3"].result.text == (
        "Not run: tool 'transfer' reached its limit of 2 calls in this run (max_calls_per_tool).\n"
        "Do not call 'transfer' again in this run; answer with the results you have."
    )
    assert r.text == "done" and r.stop_reason == "end_turn"
    # the count survives a resume: meta["max_calls"] on the tool sets the same
    t = Tool.from_function(bank.tools[1].function)
    t.meta["max_calls"] = 2
    first = toolwire.run_sync(
        GatedModel(
            [
                calls(
                    ("a", "transfer", {"to": "a", "amount": 1}),
                    ("b", "transfer", {"to": "b", "amount": 1}),
                    ("c", "transfer", {"to": "c", "amount": 1}),
                )
            ]
        ),
        "pay",
        tools=[t],
        approval=lambda c: c.id == "b",
    )
    assert [p.call.id for p in first.pending] == ["b"]
    done = toolwire.run_sync(
        GatedModel([text("ok")]),
        tools=[t],
        resume=RunState.from_json(first.state.to_json()),
        decisions={"b": Approved()},
    )
    assert [x.status for x in done.tool_runs] == ["ran", "limit", "ran"]


def test_bad_hook_and_approval_arguments_are_configuration_errors():
    bank = Bank()
    with pytest.raises(ConfigurationError, match="before_tool_call"):
        toolwire.run_stream(GatedModel([]), "x", tools=bank.tools, before_tool_call="nope")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="approval names 'nope'"):
        toolwire.run_stream(GatedModel([]), "x", tools=bank.tools, approval={"nope"})
    with pytest.raises(ConfigurationError, match="resume="):
        toolwire.run_stream(GatedModel([]), "x", tools=bank.tools, decisions={"a": Approved()})
    with pytest.raises(ConfigurationError, match="must return None"):
        toolwire.run_sync(
            GatedModel([calls(("b1", "balance", {"account": "x"}))]),
            "x",
            tools=bank.tools,
            before_tool_call=lambda c: 42,
        )


def test_save_load_resume_across_a_real_process_restart(tmp_path: Path):
    """Two separate Python processes: the first stops at the approval and saves the run; the
    second loads it, approves, and finishes — the approved call runs once, in the second one."""
    import subprocess

    script = tmp_path / "agent.py"
    script.write_text(
        textwrap.dedent('''
        import sys
        import toolwire
        from toolwire.testing import ScriptedModel, call

        RAN = []

        @toolwire.tool
        def transfer(to: str, amount: int) -> str:
            """Send money."""
            RAN.append(to)
            return f"sent {amount} to {to}"

        path = sys.argv[2]
        if sys.argv[1] == "start":
            m = ScriptedModel(responses=[[call("transfer", {"to": "ann", "amount": 5}, id="t1")]])
            r = toolwire.run_sync(m, "pay ann", tools=[transfer], approval=True)
            r.state.save(path)
            print(r.stop_reason, [p.call.id for p in r.pending], RAN)
        else:
            st = toolwire.RunState.load(path)
            m = ScriptedModel(responses=["Paid."])
            r = toolwire.run_sync(m, tools=[transfer], approval=True, resume=st, decisions={"t1": toolwire.Approved()})
            print(r.stop_reason, r.text, RAN, r.tool_runs[0].result.text)
    ''')
    )
    saved = tmp_path / "run.json"
    first = subprocess.run(
        [sys.executable, str(script), "start", str(saved)], capture_output=True, text=True, timeout=120
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "pending ['t1'] []"
    second = subprocess.run(
        [sys.executable, str(script), "resume", str(saved)], capture_output=True, text=True, timeout=120
    )
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "end_turn Paid. ['ann'] sent 5 to ann"


def test_max_calls_per_tool_naming_a_tool_the_run_lacks_is_a_configuration_error() -> None:
    """approval= and deferred= naming an unknown tool raise; max_calls_per_tool silently never
    applied (an MCP tool 'files.read' is 'files_read' for the model, and combine() prefixes)."""
    from toolwire.testing.providers import call

    @toolwire.tool
    def look(q: str) -> str:
        """Look."""
        return q

    model = toolwire.model("scripted", responses=[[call("look", {"q": "a"})], "done"])
    with pytest.raises(
        toolwire.ConfigurationError, match=r"max_calls_per_tool names 'files\.read', which is not among"
    ):
        toolwire.run_sync(model, "go", tools=[look], limits=toolwire.Limits(max_calls_per_tool={"files.read": 1}))
    model = toolwire.model("scripted", responses=[[call("look", {"q": "a"}), call("look", {"q": "b"})], "done"])
    result = toolwire.run_sync(model, "go", tools=[look], limits=toolwire.Limits(max_calls_per_tool={"look": 1}))
    assert [r.status for r in result.tool_runs] == ["ran", "limit"]


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_a_hook_denial_without_a_reason_reads_as_no_reason(reason: Any):
    """``Denied(None)`` from a before_tool_call hook reached the model as "... was refused: None"
    (and ``Denied("")`` as "was refused: " with nothing after it)."""
    bank = Bank()
    r = toolwire.run_sync(
        GatedModel([THREE, text("ok")]),
        "pay",
        tools=bank.tools,
        before_tool_call=lambda call: Denied(reason) if call.arguments.get("to") == "bob" else None,
    )
    refused = {x.call.id: x for x in r.tool_runs}["t2"]
    assert (refused.status, refused.result.is_error) == ("refused", True)
    assert refused.result.text == (
        "Not run: the call to 'transfer' was refused (no reason was given).\n"
        "Do not make the same call again; continue without it."
    )


@pytest.mark.parametrize("reason", [42, b"no", ["no"], RuntimeError("no")])
def test_a_denial_reason_that_is_not_text_is_refused_when_made(reason: Any):
    """``Denied(42)`` was accepted and the model read "refused: 42" (or the repr of a list)."""
    with pytest.raises(ConfigurationError) as info:
        Denied(reason)
    assert str(info.value) == (
        f"Denied(reason) takes the reason as text (what the model is told) or None, got {type(reason).__name__}; "
        'write Denied("why the call is refused")'
    )


@pytest.mark.parametrize("bad", ["1", 1.0, True, -1, [2]])
def test_a_tool_meta_max_calls_that_is_not_a_whole_number_is_refused_not_ignored(bad: Any) -> None:
    # docs/approval.md: `meta["max_calls"] = 5` on the tool sets its per-tool limit. Any other value
    # was silently no limit at all ("1", 1.0, True) or refused every call (-1); it is now a
    # ConfigurationError when the run starts, as Limits.max_calls_per_tool checks its values.
    from toolwire.testing import ScriptedModel, call

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    add.meta["max_calls"] = bad
    model = ScriptedModel(responses=[[call("add", {"a": 1, "b": 2})] * 2, "done"])
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(model, "go", tools=[add])
    text = str(info.value)
    assert "tool 'add'" in text and "meta['max_calls']" in text and "whole number ≥ 0" in text
    assert 'add.meta["max_calls"] = 5' in text
    assert model.requests == []  # refused before any request


def test_a_tool_meta_max_calls_of_none_leaves_the_limit_out() -> None:
    from toolwire.testing import ScriptedModel, call

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    add.meta["max_calls"] = None
    r = toolwire.run_sync(ScriptedModel(responses=[[call("add", {"a": 1, "b": 2})] * 2, "done"]), "go", tools=[add])
    assert [t.status for t in r.tool_runs] == ["ran", "ran"]


@pytest.mark.parametrize(
    ("key", "bad"),
    [
        ("deferred", "no"),
        ("deferred", 1),
        ("requires_approval", "yes"),
        # read as flags where they are used: "no" was true (a write never repeated, a tool
        # run on the event loop's thread or not, arguments not checked)
        ("non_repeatable", "no"),
        ("blocking", "no"),
        ("validate_arguments", 0),
    ],
)
def test_a_tool_meta_flag_of_the_wrong_type_is_refused_when_the_run_starts(key: str, bad: Any) -> None:
    # meta["deferred"] = "no" deferred the tool (read as true); meta["requires_approval"] = "yes"
    # failed only when the tool was first called, after other calls had run.
    from toolwire.testing import ScriptedModel, call

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    add.meta[key] = bad
    model = ScriptedModel(responses=[[call("add", {"a": 1, "b": 2})], "done"])
    with pytest.raises(ConfigurationError, match=rf"tool 'add': meta\['{key}'\] must be True, False") as info:
        toolwire.run_sync(model, "go", tools=[add])
    assert f'add.meta["{key}"] = ' in str(info.value)
    assert model.requests == []
