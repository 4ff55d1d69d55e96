"""@capped keeps its promise of a bounded answer whatever the function returns: one huge line, a
list of lines, a dict; parts and ToolResults pass as they are."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import tool
from toolwire.design.results import capped
from toolwire.errors import ToolDefinitionError
from toolwire.executor import ToolExecutor
from toolwire.types import ImagePart, ToolCall, ToolResult

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def _call(t: Any, **arguments: Any) -> ToolResult:
    async def go() -> ToolResult:
        run = await ToolExecutor({t.name: t}, run_id="r").run_call(
            ToolCall(id="1", name=t.name, arguments=arguments), 0
        )
        return run.result

    return asyncio.run(go())


def test_one_huge_line_is_cut_and_says_so() -> None:
    """Before: a 5,000,000-character line went to the model whole under a 200-line cap."""

    @capped(lines=200, offset="start_line", limit="max_lines")
    @tool
    def build_log(start_line: int = 1, max_lines: int = 200) -> str:
        """Return the build log. Use it after a failed build.

        Args:
            start_line: 1-based number of the first line to return.
            max_lines: How many lines to return, at most 200.
        """
        return "x" * 5_000_000 + "\r\nsecond line\n"

    result = _call(build_log)
    assert not result.is_error
    assert result.text == "x" * 2_000 + " [... line cut at 2,000 of 5,000,000 characters]\r\nsecond line\n"
    assert _call(build_log, start_line=2).text == "second line\n"


def test_line_chars_sets_the_cut_and_is_checked() -> None:
    @capped(lines=5, line_chars=10)
    @tool
    def rows(offset: int = 1, limit: int = 5) -> str:
        """Return rows. Use it to see the table.

        Args:
            offset: First row.
            limit: How many rows.
        """
        return "short\n" + "y" * 25

    assert _call(rows).text == "short\n" + "y" * 10 + " [... line cut at 10 of 25 characters]"
    with pytest.raises(ToolDefinitionError, match="line_chars must be a whole number > 0, got 0"):
        capped(lines=5, line_chars=0)


def test_a_list_of_lines_and_other_values_are_paged_as_text() -> None:
    """Before: a capped tool returning a list of 100,000 strings answered 1,388,890 characters."""

    @capped(lines=3)
    @tool
    def names(offset: int = 1, limit: int = 3) -> list[str]:
        """Return the names. Use it before renaming.

        Args:
            offset: First name.
            limit: How many names.
        """
        return [f"name {i}" for i in range(1, 100_001)]

    assert _call(names).text == (
        "name 1\nname 2\nname 3\n[Showing lines 1-3 of 100,000. To read on, call names again with offset=4 "
        "(limit up to 3).]"
    )

    @capped(chars=20)
    @tool
    def record(offset: int = 0, limit: int = 20) -> dict:
        """Return the record. Use it to see every field.

        Args:
            offset: First character.
            limit: How many characters.
        """
        return {"id": 1, "notes": "n" * 100}

    assert _call(record).text == (
        '{"id": 1, "notes": "\n[Showing characters 0-20 of 122. To read on, call record again with offset=20 '
        "(limit up to 20).]"
    )


def test_parts_and_tool_results_pass_as_they_are() -> None:
    @capped(lines=3)
    @tool
    def shot(offset: int = 1, limit: int = 3) -> Any:
        """Return the screenshot. Use it after a change to the page.

        Args:
            offset: Unused.
            limit: Unused.
        """
        return [ImagePart(data=PNG, media_type="image/png")]

    result = _call(shot)
    assert isinstance(result.content, list) and isinstance(result.content[0], ImagePart)

    @capped(lines=3)
    @tool
    def failing(offset: int = 1, limit: int = 3) -> Any:
        """Fail. Use it never.

        Args:
            offset: Unused.
            limit: Unused.
        """
        return ToolResult(content="it failed", is_error=True)

    assert (_call(failing).is_error, _call(failing).text) == (True, "it failed")
