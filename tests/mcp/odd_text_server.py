"""A toolwire MCP server whose tools write text UTF-8 cannot carry: a lone UTF-16 surrogate (a file
name decoded with ``surrogateescape``, half of an emoji) in a result, in a ``ToolError``, in a
description and in an input schema. Run: ``python odd_text_server.py``."""

from __future__ import annotations

import asyncio

import toolwire
import toolwire.mcp
from toolwire.tools import Tool


@toolwire.tool
def file_names() -> str:
    """List the file names of the archive (one holds a byte that is not UTF-8)."""
    return "report.txt\n" + b"caf\xe9.txt".decode("utf-8", "surrogateescape")


@toolwire.tool
def half_emoji() -> str:
    """Fail with a message cut inside an emoji."""
    raise toolwire.ToolError("the note ends in \ud83d", hint="Ask for another note.")


@toolwire.tool
def plain(word: str = "") -> str:
    """Echo the word.

    Args:
        word: The word to echo.
    """
    return f"plain {word}"


odd_listing = Tool(
    "odd_listing",
    "A description cut inside an emoji \ud83d.",
    {"type": "object", "properties": {"q": {"type": "string", "description": "caf\udce9"}}},
    lambda q="": f"listed {q}",
)

if __name__ == "__main__":
    asyncio.run(toolwire.mcp.serve([file_names, half_emoji, plain, odd_listing], name="odd-text"))
