"""Text UTF-8 cannot carry (a lone UTF-16 surrogate) between toolwire and real MCP processes over
stdio: the session lives on, and the character is sent as U+FFFD, as the loop sends it to a model."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import toolwire.mcp as twm

HERE = Path(__file__).parent


def _text(result: Any) -> str:
    """The text of the first content block of an MCP ``CallToolResult``."""
    return result.content[0].text


def test_a_toolwire_server_sends_lone_surrogates_as_u_fffd_and_keeps_serving() -> None:
    """Before, the server's writer died on the first such text (a tools/list holding one, a tool's
    result or error): every client then got 'Connection closed'."""
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    async def go() -> None:
        params = StdioServerParameters(command=sys.executable, args=[str(HERE / "odd_text_server.py")])
        async with Client(params, read_timeout_seconds=20) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert listed["odd_listing"].description == "A description cut inside an emoji \ufffd."
            assert listed["odd_listing"].input_schema["properties"]["q"]["description"] == "caf\ufffd"
            names = await client.call_tool("file_names", {})
            assert (names.is_error, _text(names)) == (False, "report.txt\ncaf\ufffd.txt")
            failed = await client.call_tool("half_emoji", {})
            assert failed.is_error
            assert _text(failed).splitlines()[:2] == ["the note ends in \ufffd", "Ask for another note."]
            after = await client.call_tool("plain", {"word": "still here"})
            assert (after.is_error, _text(after)) == (False, "plain still here")

    asyncio.run(go())


def test_arguments_holding_a_lone_surrogate_are_sent_and_the_session_lives_on() -> None:
    """Before, the client's writer died on such arguments: this call and every later one were
    answered 'closed the connection'."""

    async def go() -> tuple[object, object]:
        async with twm.connect([sys.executable, str(HERE / "odd_text_server.py")], timeout=20) as ts:
            plain = {t.name: t for t in ts}["plain"].function
            assert plain is not None
            first = await plain(word="a\ud800b")
            second = await plain(word="again")
        return first, second

    assert asyncio.run(go()) == ("plain a\ufffdb", "plain again")
