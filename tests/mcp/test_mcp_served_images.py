"""Images a toolwire MCP server sends: typed by their bytes, and bytes that are no image said in
text (a client's model API refuses such an image, and every later request that holds it)."""

from __future__ import annotations

import asyncio
import base64
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from image_server import JPEG, PNG  # noqa: E402


def _results() -> dict[str, Any]:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    async def go() -> dict[str, Any]:
        params = StdioServerParameters(command=sys.executable, args=[str(HERE / "image_server.py")])
        async with Client(params, read_timeout_seconds=20) as client:
            return {name: await client.call_tool(name, {}) for name in ("error_page_chart", "photo", "chart")}

    return asyncio.run(go())


def test_an_error_page_is_text_and_a_mislabelled_image_gets_its_type() -> None:
    """Before: the HTML page went out as an image/png ImageContent and the JPEG as image/png."""
    got = _results()
    page = got["error_page_chart"]
    assert not page.is_error and [b.type for b in page.content] == ["text"]
    assert page.content[0].text == (
        "[the tool returned an image declared image/png holding bytes that are not an image (they begin "
        "'<!DOCTYPE html><...'); it is not sent. The file or download may be an error page, empty or cut short.]"
    )
    photo = got["photo"].content[0]
    assert (photo.type, photo.mime_type, base64.b64decode(photo.data)) == ("image", "image/jpeg", JPEG)
    chart = got["chart"].content[0]
    assert (chart.type, chart.mime_type, base64.b64decode(chart.data)) == ("image", "image/png", PNG)
