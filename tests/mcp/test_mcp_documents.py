"""PDFs over MCP: a server's embedded resource holding a PDF blob becomes a ``DocumentPart`` the
model reads (it was a line saying "[binary resource ... (application/pdf) left out]"), and a
served toolwire tool returning a ``DocumentPart`` answers with an embedded blob resource (it
answered "cannot be sent over MCP")."""

from __future__ import annotations

import base64
from typing import Any

import pytest

pytest.importorskip("mcp")

import toolwire
import toolwire.mcp as twm
from toolwire.types import DocumentPart, TextPart

pytestmark = pytest.mark.anyio

PDF = b"%PDF-1.7\n%%EOF\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _resource(uri: str, mime: str, blob: str) -> dict[str, object]:
    return {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "blob": blob}}


def test_an_embedded_pdf_resource_becomes_a_document() -> None:
    good = _resource("file:///reports/q3.pdf", "application/pdf", base64.b64encode(PDF).decode())
    html = _resource("https://x/q4.pdf", "application/pdf", base64.b64encode(b"<html>login</html>").decode())
    broken = _resource("file:///q5.pdf", "application/pdf", "%%% not base64")
    parts, is_error = twm.result_content({"content": [good, html, broken]})
    assert not is_error
    assert parts[0] == DocumentPart(PDF, "application/pdf", filename="q3.pdf")
    assert isinstance(parts[1], TextPart) and parts[1].text.startswith(
        "[resource https://x/q4.pdf (application/pdf) left out: DocumentPart declared 'application/pdf' holds "
        "bytes that are not a PDF (they begin '<html>login</htm'"
    )
    assert parts[2] == TextPart("[resource file:///q5.pdf: the server sent document data that is not base64; left out]")


async def test_a_served_tool_returning_a_document_answers_with_an_embedded_resource() -> None:
    from mcp.client import Client

    @toolwire.tool
    def report() -> list:
        """Fetch the report."""
        return [TextPart("the report:"), DocumentPart(PDF, "application/pdf", filename="q3 final.pdf")]

    async with Client(twm.create_server([report], name="inproc")) as client:
        got = await client.call_tool("report", {})
    assert not got.is_error and [c.type for c in got.content] == ["text", "resource"]
    second: Any = got.content[1]
    res = second.resource
    assert (str(res.uri), res.mime_type, res.blob) == (
        "file:///q3%20final.pdf",
        "application/pdf",
        base64.b64encode(PDF).decode(),
    )
    # and read back by toolwire's own client mapping: the same document
    parts, _ = twm.result_content(got)
    assert parts[1] == DocumentPart(PDF, "application/pdf", filename="q3 final.pdf")


async def test_an_error_result_keeps_its_document() -> None:
    # an MCP error result that shows a PDF (the failed report) keeps it after the error text, as it
    # keeps a screenshot (before, the document was dropped and only the text raised as a ToolError)
    @toolwire.tool
    def render() -> toolwire.ToolResult:
        """Render the report."""
        return toolwire.ToolResult(
            content=[TextPart("render failed"), DocumentPart(PDF, filename="failed.pdf")], is_error=True
        )

    async with twm.connect(twm.create_server([render], name="inproc")) as ts:
        (tool,) = list(ts)
        got = await tool.call({})
    assert isinstance(got, toolwire.ToolResult) and got.is_error
    assert got.content == [TextPart("render failed"), DocumentPart(PDF, "application/pdf", filename="failed.pdf")]


async def test_a_plain_text_document_from_a_server_subprocess_stays_a_document() -> None:
    # toolwire's server sends a text/plain DocumentPart as a blob resource; before, toolwire's
    # client read it as "[binary resource file:///notes.txt (text/plain) left out]"
    import sys
    from pathlib import Path

    server = Path(__file__).parent / "document_server.py"
    async with twm.connect(f"{sys.executable} {server}") as ts:
        tools = {t.name: t for t in ts}
        notes = await tools["notes"].call({})
        report = await tools["report"].call({})
    assert notes == [TextPart("the notes:"), DocumentPart("café at 10\n".encode(), "text/plain", filename="notes.txt")]
    assert report == [DocumentPart(b"%PDF-1.4\n%%EOF\n", "application/pdf", filename="q3.pdf")]


def test_blob_resources_of_other_document_types() -> None:
    text = base64.b64encode("café".encode()).decode()
    latin = base64.b64encode("café".encode("latin-1")).decode()
    parts, _ = twm.result_content(
        {
            "content": [
                _resource("file:///a/notes.txt", "text/plain; charset=utf-8", text),
                _resource("file:///old.txt", "text/plain", latin),
                _resource("https://x/dl/scan.pdf", "application/octet-stream", base64.b64encode(PDF).decode()),
                _resource("https://x/dl/blob.bin", "application/octet-stream", base64.b64encode(b"\x00\x01").decode()),
                _resource("file:///chart.png", "IMAGE/PNG", "%%%"),
            ]
        }
    )
    assert parts[0] == DocumentPart("café".encode(), "text/plain", filename="notes.txt")
    assert isinstance(parts[1], TextPart) and parts[1].text.startswith(
        "[resource file:///old.txt (text/plain) left out: DocumentPart declared 'text/plain' holds bytes that are "
        "not UTF-8 text"
    )
    assert parts[2] == DocumentPart(PDF, "application/pdf", filename="scan.pdf")
    assert parts[3] == TextPart("[binary resource https://x/dl/blob.bin (application/octet-stream) left out]")
    # an image type in capitals is read as an image (before: "[binary resource ... left out]")
    assert parts[4] == TextPart("[resource file:///chart.png: the server sent image data that is not base64; left out]")
