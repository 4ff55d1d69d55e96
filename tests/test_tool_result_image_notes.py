"""The report of an image a tool returned that the API cannot read, for a result without a tool
name (a conversation built or stored by hand): it named 'tool None'."""

from __future__ import annotations

import pytest

import toolwire
from toolwire import Message
from toolwire.types import ImagePart, TextPart, ToolCall, ToolResult

pytest.importorskip("toolwire_openai")


@pytest.mark.parametrize(("name", "said"), [("shot", "returned by tool 'shot'"), (None, "returned by call 'c1'")])
def test_an_unreadable_tool_image_is_reported_by_its_tool_or_its_call(name: str | None, said: str) -> None:
    svg = ImagePart(data=b'<svg xmlns="http://www.w3.org/2000/svg"/>', media_type="image/svg+xml")
    conv = [
        Message.user("go"),
        Message(role="assistant", parts=[ToolCall("c1", "shot", {})]),
        Message(role="user", parts=[ToolResult("c1", [TextPart("a chart"), svg], name=name)]),
    ]
    model = toolwire.model("openai-chat:gpt-4.1-mini", api_key="k")
    model.prepare(model.build_request(conv))
    report = model.last_preflight
    assert report is not None
    (change,) = [c for c in report.changes if c.rule == "openai-chat.conversation.tool-result-image-type"]
    assert f"an image of type image/svg+xml {said} was sent as a note" in change.detail, change.detail
    assert "None" not in change.detail
