"""A tool function may return a ToolResult (to set is_error itself, or to answer with error
content that holds images); it answers its call as it is, with the call's id. An MCP error result
whose content holds an image keeps the image."""

from __future__ import annotations

import pytest

import toolwire
from toolwire import ImagePart, TextPart, ToolResult

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000105a8c2b40000000049454e44ae426082"
)


@pytest.mark.parametrize("blocking", [True, False])
@pytest.mark.parametrize("is_async", [False, True])
def test_a_returned_tool_result_answers_the_call(blocking: bool, is_async: bool) -> None:
    def check() -> ToolResult:
        """Check the page."""
        return ToolResult(
            "ignored-id", [TextPart("the page failed to render:"), ImagePart(data=PNG, media_type="image/png")], True
        )

    async def acheck() -> ToolResult:
        """Check the page."""
        return check()

    t = toolwire.tool(acheck, name="check") if is_async else toolwire.tool(check, blocking=blocking)
    r = toolwire.run_sync("test", "x", tools=[t])
    (run,) = r.tool_runs
    assert run.result.is_error is True
    assert run.result.tool_call_id == run.call.id != "ignored-id"
    assert run.result.name == "check"
    assert [type(p).__name__ for p in run.result.content] == ["TextPart", "ImagePart"]


def test_an_mcp_error_result_with_an_image_keeps_it() -> None:
    import base64

    from mcp import types as mt

    from toolwire.mcp import result_content

    result = mt.CallToolResult(
        content=[
            mt.TextContent(type="text", text="render failed"),
            mt.ImageContent(type="image", data=base64.b64encode(PNG).decode(), mimeType="image/png"),
        ],
        isError=True,
    )
    parts, is_error = result_content(result)
    assert is_error and [type(p).__name__ for p in parts] == ["TextPart", "ImagePart"]


def test_a_returned_tool_result_may_leave_out_the_call_id() -> None:
    """As docs/loop.md writes it: ``ToolResult(content=[...], is_error=True)``; it raised
    ``TypeError: missing ... 'tool_call_id'`` inside the tool, which the model got as the result."""

    @toolwire.tool
    def chart() -> ToolResult:
        """Draw the chart."""
        return ToolResult(content=["The chart failed:", ImagePart(data=PNG, media_type="image/png")], is_error=True)

    (run,) = toolwire.run_sync("test", "x", tools=[chart]).tool_runs
    assert (run.status, run.result.is_error, run.result.tool_call_id) == ("ran", True, run.call.id)
    assert run.result.text == "The chart failed:"
    assert [type(p).__name__ for p in run.result.content] == ["TextPart", "ImagePart"]
