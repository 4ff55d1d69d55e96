import asyncio

import pytest

from toolwire import Tool, tool
from toolwire.design.results import (
    CapSpec,
    Page,
    cap_of,
    capped,
    count_note,
    format_size,
    page_chars,
    page_lines,
    paging_note,
)
from toolwire.errors import ToolDefinitionError

TEXT = "".join(f"row {i}\n" for i in range(1, 451))


def test_page_lines():
    p = page_lines(TEXT, 1, None, 200)
    assert (p.start, p.end, p.total, p.truncated, p.next_offset) == (1, 200, 450, True, 201)
    assert p.text.splitlines()[0] == "row 1" and p.text.splitlines()[-1] == "row 200"
    p = page_lines(TEXT, 401, 500, 200)
    assert (p.start, p.end, p.truncated, p.next_offset) == (401, 450, False, None)
    p = page_lines(TEXT, 10, 5, 200)
    assert p.text == "row 10\nrow 11\nrow 12\nrow 13\nrow 14\n" and p.next_offset == 15
    p = page_lines(TEXT, 999, None, 200)
    assert p.text == "" and p.total == 450 and not p.truncated


def test_page_chars():
    p = page_chars("abcdefghij", 0, None, 4)
    assert (p.text, p.start, p.end, p.total, p.next_offset) == ("abcd", 0, 4, 10, 4)
    p = page_chars("abcdefghij", 8, 4, 4)
    assert (p.text, p.truncated, p.next_offset) == ("ij", False, None)


def test_cost_hint_helpers():
    assert format_size(812) == "812 bytes"
    assert format_size(238_112) == "238,112 bytes (233 KiB)"
    assert format_size(5 * 1024 * 1024) == "5,242,880 bytes (5.0 MiB)"
    assert count_note(3, 3, "match") == "3 matches"
    assert count_note(1, 1, "match") == "1 match"
    assert (
        count_note(100, 1342, "match", how_to_narrow="narrow the pattern")
        == "showing 100 of 1,342 matches; narrow the pattern"
    )
    assert count_note(5, 9, "entry") == "showing 5 of 9 entries"


def test_capped_tool_pages_and_names_only_declared_parameters():
    @capped(lines=200, offset="start_line", limit="max_lines")
    @tool
    def dump_log(start_line: int = 1, max_lines: int = 200) -> str:
        """Return the build log. Use it after a failed build.

        Args:
            start_line: 1-based first line.
            max_lines: Lines to return, at most 200.
        """
        return TEXT

    assert cap_of(dump_log) == CapSpec("lines", 200, "start_line", "max_lines")
    assert dump_log.meta["cap"] == {"unit": "lines", "size": 200, "offset": "start_line", "limit": "max_lines"}
    out = dump_log()
    assert out.endswith(
        "[Showing lines 1-200 of 450. To read on, call dump_log again with start_line=201 (max_lines up to 200).]"
    )
    assert "offset" not in out and "limit" not in out
    out = asyncio.run(dump_log.call({"start_line": 201, "max_lines": 300}))
    assert out.startswith("row 201\n") and "start_line=401" in out
    assert dump_log(start_line=401).endswith("row 450\n")  # the last page has no note


def test_capped_async_and_chars():
    @capped(chars=5, offset="offset", limit=None)
    @tool
    async def blob(offset: int = 0) -> str:
        """Return the blob as text. Use it only after list_blobs."""
        return "0123456789abc"

    out = asyncio.run(blob.call({}))
    assert out == "01234\n[Showing characters 0-5 of 13. To read on, call blob again with offset=5.]"


def test_cap_with_undeclared_paging_parameter_fails_at_definition():
    with pytest.raises(ToolDefinitionError, match=r"does not declare 'page'"):

        @capped(lines=100, offset="page", limit=None)
        @tool
        def rows(offset: int = 0) -> str:
            """Rows. Use it to read a table."""
            return ""

    with pytest.raises(ToolDefinitionError, match=r"does not declare 'limit'"):
        capped(lines=100)(Tool.from_schema("t", "d", {"type": "object", "properties": {"offset": {"type": "integer"}}}))

    with pytest.raises(ToolDefinitionError, match="must be an integer"):
        capped(lines=10, limit=None)(
            Tool.from_schema("t", "d", {"type": "object", "properties": {"offset": {"type": "string"}}})
        )

    with pytest.raises(ToolDefinitionError, match="exactly one"):
        capped(lines=10, chars=10)


def test_paging_note_text():
    spec = CapSpec("lines", 50, "offset", "limit")
    page = Page("", "lines", 51, 100, 1234, True, 101)
    assert (
        paging_note(page, "read_file", spec)
        == "[Showing lines 51-100 of 1,234. To read on, call read_file again with offset=101 (limit up to 50).]"
    )
    assert paging_note(Page("", "lines", 1, 3, 3, False, None), "read_file", spec) == ""


def test_capped_offset_past_the_end_is_a_tool_error():
    from toolwire.errors import ToolError

    @capped(lines=3, offset="start_line", limit="max_lines")
    @tool
    def build_log(start_line: int = 1, max_lines: int = 3) -> str:
        """Return the build log. Use it after a failed build.

        Args:
            start_line: 1-based first line.
            max_lines: How many lines, at most 3.
        """
        return "\n".join(f"line {i}" for i in range(1, 11))

    with pytest.raises(ToolError) as ei:
        asyncio.run(build_log.call({"start_line": 500}))
    assert ei.value.message == "start_line 500 is past the end (total 10 lines)"
    assert ei.value.hint == "Call build_log again with start_line between 1 and 10." and ei.value.retryable is False
    assert asyncio.run(build_log.call({"start_line": 10})) == "line 10"

    @capped(chars=4, offset="at", limit=None)
    @tool
    def blob(at: int = 0) -> str:
        """Return the blob text. Use it when asked.

        Args:
            at: 0-based first character.
        """
        return "abcdefghij"

    with pytest.raises(ToolError, match=r"^at 10 is past the end \(total 10 characters\)$"):
        asyncio.run(blob.call({"at": 10}))
    assert asyncio.run(blob.call({"at": 9})) == "j"

    @capped(lines=3)
    @tool
    def empty(offset: int = 1, limit: int = 3) -> str:
        """Return nothing. Use it when asked.

        Args:
            offset: 1-based first line.
            limit: How many lines.
        """
        return ""

    assert asyncio.run(empty.call({})) == ""  # an empty text read from its start is not an error
    with pytest.raises(ToolError, match=r"^offset 2 is past the end \(total 0 lines\)$"):
        asyncio.run(empty.call({"offset": 2}))


def test_capped_past_the_end_reaches_the_model_as_an_error_result():
    import toolwire
    from toolwire.testing import ScriptedModel, call

    @capped(lines=3, offset="start_line", limit="max_lines")
    @toolwire.tool
    def build_log(start_line: int = 1, max_lines: int = 3) -> str:
        """Return the build log. Use it after a failed build.

        Args:
            start_line: 1-based first line.
            max_lines: How many lines, at most 3.
        """
        return "\n".join(f"line {i}" for i in range(1, 11))

    r = toolwire.run_sync(
        ScriptedModel(responses=[[call("build_log", {"start_line": 500})], "done"]), "hi", tools=[build_log]
    )
    res = r.tool_runs[0].result
    assert res.is_error is True
    assert res.text.startswith("start_line 500 is past the end (total 10 lines)\n")
