"""What the model is told when an MCP server (a real one, over stdio) has gone away."""

from __future__ import annotations

import asyncio
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import toolwire
import toolwire.mcp as twm
from toolwire.testing.providers import call

HERE = Path(__file__).parent
RAW = [sys.executable, str(HERE / "binary_stdout_server.py"), "crash", "ok"]


def test_a_server_that_is_gone_is_not_answered_with_change_the_arguments() -> None:
    """A crashed server (and a closed session) were answered with retryable=False, whose rendered
    advice is "Retrying the same call will fail again; change the arguments." after "Answer
    without this tool." — no argument can bring the server back."""

    async def go() -> list[str]:
        async with twm.connect(RAW, timeout=10) as ts:
            model = toolwire.model("scripted", responses=[[call("crash", {})], [call("ok", {})], "done"])
            result = await asyncio.wait_for(toolwire.run(model, "go", tools=ts), 30)
            texts = [r.result.text for r in result.tool_runs]
            tool = ts.tools[1]
        try:
            await tool.call({})
        except toolwire.ToolError as exc:
            texts.append(exc.render())
        return texts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        texts = asyncio.run(go())
    assert len(texts) == 3
    assert "closed the connection" in texts[0] and "no longer connected" in texts[2]
    for text in texts:
        assert "change the arguments" not in text
        assert "Do not call the tools of this MCP server again" in text
