"""A toolwire MCP server whose tools return long results: one text of ``n`` characters
(``BEGIN`` ... ``END``), and text parts around an image. Run: ``python big_result_server.py``."""

from __future__ import annotations

import asyncio

import toolwire
import toolwire.mcp
from toolwire.types import ImagePart, TextPart

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


@toolwire.tool
def dump(n: int) -> str:
    """Return the whole table as text.

    Args:
        n: How many characters the table has.
    """
    return "BEGIN" + "x" * (n - 8) + "END"


@toolwire.tool
def report(n: int) -> list:
    """Return the report: a text of n characters, the chart, then two more texts of n characters.

    Args:
        n: Characters per text.
    """
    return [TextPart("a" * n), ImagePart(data=PNG, media_type="image/png"), TextPart("b" * n), TextPart("c" * n)]


if __name__ == "__main__":
    asyncio.run(toolwire.mcp.serve([dump, report], name="big"))
