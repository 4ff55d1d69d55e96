"""A run survives the death of its process: a child process runs a checkpointed run whose third
tool call is slow; the parent SIGKILLs it while that call runs, then resumes the run from the
SQLite store. The finished tool calls are not run again (each run leaves a line in a log file)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import toolwire
from toolwire.store import RunStore

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL")

CHILD = textwrap.dedent("""
    import asyncio, sys, time
    import toolwire
    from toolwire.store import RunStore
    sys.path.insert(0, sys.argv[3])
    from kill_resume_tools import make_tools, respond

    store = RunStore(sys.argv[1])
    tools = make_tools(sys.argv[2], slow_seconds=120)
    model = toolwire.model("scripted", respond=respond)
    asyncio.run(store.run(model, "do three steps", tools=tools, run_id="killed-run"))
""")

TOOLS = textwrap.dedent('''
    import time
    import toolwire
    from toolwire.types import ToolCall, ToolResult

    def respond(request):
        done = sum(1 for m in request.messages for p in m.parts if isinstance(p, ToolResult))
        if done == 0:
            return [ToolCall("c1", "step", {"n": 1}), ToolCall("c2", "step", {"n": 2})]
        if done == 2:
            return [ToolCall("c3", "slow_step", {"n": 3})]
        return "all three done"

    def make_tools(log, slow_seconds):
        @toolwire.tool
        def step(n: int) -> str:
            """Do a quick step. Use first."""
            with open(log, "a") as f:
                f.write(f"step {n}\\n")
            return f"step {n} ok"

        @toolwire.tool
        def slow_step(n: int) -> str:
            """Do the slow step. Use last."""
            with open(log, "a") as f:
                f.write(f"slow start {n}\\n")
            time.sleep(slow_seconds)
            with open(log, "a") as f:
                f.write(f"slow end {n}\\n")
            return f"slow {n} ok"

        return [step, slow_step]
''')


def test_sigkill_mid_run_then_resume_runs_nothing_twice(tmp_path):
    (tmp_path / "kill_resume_tools.py").write_text(TOOLS)
    (tmp_path / "child.py").write_text(CHILD)
    db, log = tmp_path / "runs.sqlite", tmp_path / "tool.log"
    child = subprocess.Popen([sys.executable, str(tmp_path / "child.py"), str(db), str(log), str(tmp_path)])
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if log.exists() and "slow start 3" in log.read_text():
                break
            assert child.poll() is None, "the child ended early"
            time.sleep(0.05)
        else:
            pytest.fail("the slow tool never started")
        time.sleep(0.2)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(30)
    # the two quick steps run at the same time (parallel tool calls), so their order is free
    lines = log.read_text().splitlines()
    assert sorted(lines[:2]) == ["step 1", "step 2"] and lines[2:] == ["slow start 3"]

    sys.path.insert(0, str(tmp_path))
    try:
        from kill_resume_tools import make_tools, respond
    finally:
        sys.path.remove(str(tmp_path))
    with RunStore(db) as store:
        saved = store.get("killed-run")
        assert saved.status == "running" and saved.tool_calls == 2 and saved.tool_errors == 0
        model = toolwire.model("scripted", respond=respond)
        import asyncio

        result = asyncio.run(store.resume("killed-run", model, tools=make_tools(str(log), slow_seconds=0)))
        assert result.text == "all three done"
        lines = log.read_text().splitlines()
        # only the unfinished call ran again
        assert sorted(lines[:2]) == ["step 1", "step 2"]
        assert lines[2:] == ["slow start 3", "slow start 3", "slow end 3"]
        assert [(c["call_id"], c["result"]) for c in store.tool_calls("killed-run")] == [
            ("c1", "step 1 ok"),
            ("c2", "step 2 ok"),
            ("c3", "slow 3 ok"),
        ]
        assert store.get("killed-run").status == "finished"
