"""A toolwire MCP server: toolwire tools (a typed function, one that raises ToolError, and the
confined file toolset) published with ``toolwire.mcp.serve``. Run: ``python toolwire_server.py ROOT``."""

from __future__ import annotations

import asyncio
import sys

import toolwire
import toolwire.mcp
from toolwire.design.files import file_tools


@toolwire.tool
def add(a: int, b: int = 1) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


@toolwire.tool
def reserve(seat: str) -> str:
    """Reserve a seat such as "12A"."""
    if seat != "12A":
        raise toolwire.ToolError(f"seat {seat!r} is taken", hint="Try seat '12A'.", valid_values=["12A"])
    return "reserved 12A"


if __name__ == "__main__":
    root = sys.argv[1]
    asyncio.run(toolwire.mcp.serve([add, reserve, *file_tools(root)], name="toolwire-test"))
