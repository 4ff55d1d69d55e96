"""An MCP server (a real one, over stdio) that lists a tool twice, pages its list for ever, or
answers a call with a JSON-RPC server error: the run goes on, and the model is told the truth."""

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

SERVER = [sys.executable, str(Path(__file__).parent / "paging_server.py")]


def test_a_tool_listed_twice_and_a_cursor_served_again_give_one_tool_each() -> None:
    """The same name on two pages made every run fail (ToolDefinitionError: two tools are named
    'echo'); a page naming itself as the next one was asked for 1000 times."""

    async def go() -> tuple[list[str], list[str], list[str]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            async with twm.connect(SERVER, timeout=10) as ts:
                names = [t.name for t in ts.tools]
                model = toolwire.model("scripted", responses=[[call("echo", {}), call("other", {})], "done"])
                result = await asyncio.wait_for(toolwire.run(model, "go", tools=ts), 30)
                refreshes = ts.refreshes
        assert refreshes == 1
        notes = [str(w.message) for w in caught if issubclass(w.category, twm.MCPNameWarning)]
        return names, [r.result.text for r in result.tool_runs], notes

    names, texts, notes = asyncio.run(go())
    assert names == ["echo", "refuse", "other"]
    assert texts == ["echo done", "other done"]
    assert notes == ["the MCP server 'paging' lists a tool named 'echo' more than once; the first one listed is used"]


def test_a_server_error_of_code_32000_is_a_refusal_not_a_closed_connection() -> None:
    """-32000 is also the mcp SDK's own code for a closed connection; a server's answer with that
    code was reported as 'closed the connection ... Do not call the tools of this MCP server
    again', though the server was there and its other tools worked."""

    async def go() -> list[str]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            async with twm.connect(SERVER, timeout=10) as ts:
                model = toolwire.model("scripted", responses=[[call("refuse", {})], [call("echo", {})], "done"])
                result = await asyncio.wait_for(toolwire.run(model, "go", tools=ts), 30)
        return [r.result.text for r in result.tool_runs]

    refused, echoed = asyncio.run(go())
    assert refused.startswith("the MCP server refused the call (code -32000: disk quota exceeded)")
    assert "closed the connection" not in refused and "Do not call the tools of this MCP server" not in refused
    assert echoed == "echo done"
