"""A toolwire MCP server whose tools return images as careless code makes them: an HTML error page
saved as ``chart.png``, a JPEG declared ``image/png``, and a good PNG. Run: ``python image_server.py``."""

from __future__ import annotations

import asyncio

import toolwire
import toolwire.mcp
from toolwire.types import ImagePart

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
JPEG = bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffd9")


@toolwire.tool
def error_page_chart() -> ImagePart:
    """Return the chart (the download failed: it is the server's error page)."""
    return ImagePart(data=b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>", media_type="image/png")


@toolwire.tool
def photo() -> ImagePart:
    """Return the photo, a JPEG its code declares as PNG."""
    return ImagePart(data=JPEG, media_type="image/png")


@toolwire.tool
def chart() -> ImagePart:
    """Return the chart."""
    return ImagePart(data=PNG, media_type="image/png")


if __name__ == "__main__":
    asyncio.run(toolwire.mcp.serve([error_page_chart, photo, chart], name="images"))
