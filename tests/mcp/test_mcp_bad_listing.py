"""A real MCP server (stdio) whose tool list holds tools that are not valid MCP: the others are
still used, each one left out is said, and a list that is not MCP at all is named as such."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import toolwire
import toolwire.mcp as twm
from toolwire.errors import ConfigurationError
from toolwire.testing.providers import call

HERE = Path(__file__).parent
SERVER = [sys.executable, str(HERE / "bad_listing_server.py")]

LEFT_OUT = {
    "by_title": "inputSchema.type: Input should be 'object'",
    "no_schema": "inputSchema: Field required",
    "#4 (name 5)": "name: Input should be a valid string",
    "numbered": "description: Input should be a valid string",
    "#6 (null)": "Input should be a valid dictionary or instance of Tool",
}


def test_tools_that_are_not_valid_mcp_are_left_out_and_the_others_used() -> None:
    """Before, connect() failed for the whole server ('ValidationError: 5 validation errors for
    ListToolsResult'), so none of its tools could be used."""

    async def go() -> tuple[list[str], dict[str, str], list[warnings.WarningMessage], toolwire.RunResult]:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            async with twm.connect(SERVER, timeout=20) as ts:
                model = toolwire.model("scripted", responses=[[call("lookup", {}), call("count", {})], "done"])
                result = await toolwire.run(model, "go", tools=ts)
                return [t.name for t in ts], dict(ts.left_out), list(seen), result

    names, left_out, seen, result = asyncio.run(go())
    assert names == ["lookup", "count"]
    assert left_out == LEFT_OUT
    said = [w.message for w in seen if isinstance(w.message, twm.MCPListingWarning)]
    assert {(w.tool, w.problem) for w in said} == set(LEFT_OUT.items())
    first = next(str(w) for w in said if w.tool == "by_title")
    assert first == (
        "the MCP server 'bad-listing' lists a tool 'by_title' whose definition is not valid MCP (inputSchema.type: "
        "Input should be 'object'); it was left out, the server's other tools are used. Fix the tool's definition "
        "in the server to use it"
    )
    assert [(r.call.name, r.result.text, r.result.is_error) for r in result.tool_runs] == [
        ("lookup", "lookup done", False),
        ("count", "count done", False),
    ]


def test_over_streamable_http_too() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, str(HERE / "broken_reply_http_server.py"), str(port), "bad_listing_server"],
        stdout=subprocess.PIPE,
        cwd=HERE,
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == b"ready"

        async def go() -> tuple[list[str], dict[str, str], str]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", twm.MCPListingWarning)
                async with twm.connect(f"http://127.0.0.1:{port}/mcp", timeout=20) as ts:
                    lookup = {t.name: t for t in ts}["lookup"]
                    return [t.name for t in ts], dict(ts.left_out), str(await lookup.call({}))

        names, left_out, answer = asyncio.run(go())
    finally:
        server.kill()
        server.wait()
    assert (names, left_out, answer) == (["lookup", "count"], LEFT_OUT, "lookup done")


def test_a_tool_list_that_is_not_mcp_at_all_is_named_as_such() -> None:
    async def go() -> None:
        async with twm.connect([*SERVER, "page"], timeout=20):
            pass

    with pytest.raises(ConfigurationError) as info:
        asyncio.run(go())
    assert str(info.value) == (
        f"could not connect to the MCP server '{' '.join([*SERVER, 'page'])}': it answered the handshake (initialize "
        "or tools/list) with a reply that is not valid MCP (tools: Input should be a valid list); the server must be "
        "fixed (or updated) before its tools can be used"
    )


def test_lint_reports_the_tools_left_out_as_errors() -> None:
    target = "mcp:" + " ".join(SERVER)
    text = subprocess.run(
        [sys.executable, "-m", "toolwire", "lint", target, "--provider", "anthropic"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert text.returncode == 1, text.stderr
    assert (
        "error mcp-left-out by_title: its definition is not valid MCP (inputSchema.type: Input should be 'object'); "
        "the tool is left out of every run, the others are used. Fix its definition in the server"
    ) in " ".join(text.stdout.split())
    as_json = subprocess.run(
        [sys.executable, "-m", "toolwire", "lint", target, "--provider", "anthropic", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert as_json.returncode == 1, as_json.stderr
    summary = json.loads(as_json.stdout)["summary"]
    assert summary["mcp_left_out"] == LEFT_OUT
    assert summary["tools"] == 2
