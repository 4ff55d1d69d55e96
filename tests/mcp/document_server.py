"""A toolwire MCP server whose tools return documents: a plain-text one and a PDF. Run:
``python document_server.py``."""

from __future__ import annotations

import asyncio

import toolwire
import toolwire.mcp
from toolwire.types import DocumentPart, TextPart

PDF = b"%PDF-1.4\n%%EOF\n"


@toolwire.tool
def notes() -> list:
    """Return the meeting notes, a plain-text document."""
    return [TextPart("the notes:"), DocumentPart("café at 10\n".encode(), "text/plain", filename="notes.txt")]


@toolwire.tool
def report() -> DocumentPart:
    """Return the report, a PDF."""
    return DocumentPart(PDF, "application/pdf", filename="q3.pdf")


if __name__ == "__main__":
    asyncio.run(toolwire.mcp.serve([notes, report], name="documents"))
