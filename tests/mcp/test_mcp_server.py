"""toolwire tools published as an MCP server, used by the official ``mcp`` client and by
toolwire's own MCP client in the loop."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import toolwire
import toolwire.mcp as twm
from toolwire.testing.providers import call
from toolwire.types import ImagePart, TextPart, ToolResult

HERE = Path(__file__).parent
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "data.txt").write_text("alpha\nbeta\n")
    (tmp_path / "secret.txt").write_text("outside the root\n")
    return root


def _params(root: Path):
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[str(HERE / "toolwire_server.py"), str(root)])


async def test_the_official_mcp_client_uses_a_toolwire_server(project: Path) -> None:
    from mcp.client import Client

    async with Client(_params(project)) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert list(listed) == ["add", "reserve", "list_dir", "read_file", "search_files", "run_command", "edit_file"]
        assert listed["add"].input_schema["properties"]["a"] == {"type": "integer", "description": "The first number."}
        assert listed["add"].input_schema["required"] == ["a"]
        ok = await client.call_tool("add", {"a": 2, "b": 40})
        assert (ok.is_error, ok.content[0].text) == (False, "42")
        # toolwire's validation and its error texts with a next step, over MCP
        bad = await client.call_tool("add", {"a": "two"})
        assert bad.is_error and bad.content[0].text.startswith("Invalid arguments for tool 'add'")
        taken = await client.call_tool("reserve", {"seat": "1C"})
        assert taken.is_error and taken.content[0].text.splitlines()[0] == "seat '1C' is taken"
        assert "Try seat '12A'." in taken.content[0].text
        # confined paths hold over MCP too
        escape = await client.call_tool("read_file", {"path": "../secret.txt"})
        assert escape.is_error and "outside the root" not in escape.content[0].text
        read = await client.call_tool("read_file", {"path": "data.txt"})
        assert not read.is_error and "beta" in read.content[0].text
        unknown = await client.call_tool("nope", {})
        assert unknown.is_error and "Unknown tool 'nope'" in unknown.content[0].text


async def test_round_trip_toolwire_tools_through_its_own_mcp_server_and_client(project: Path) -> None:
    async with twm.connect([sys.executable, str(HERE / "toolwire_server.py"), str(project)]) as served:
        assert served.server_name == "toolwire-test"
        model = toolwire.model(
            "scripted",
            responses=[
                [call("add", {"a": 1}), call("reserve", {"seat": "2B"}), call("search_files", {"pattern": "beta"})],
                "finished",
            ],
        )
        result = await toolwire.run(model, "go", tools=served)
    runs = {r.call.name: r.result for r in result.tool_runs}
    assert runs["add"].text == "2" and not runs["add"].is_error  # default b=1 applied by the served tool
    assert runs["reserve"].is_error and runs["reserve"].text.startswith("seat '2B' is taken")
    assert "data.txt" in runs["search_files"].text
    assert result.text == "finished" and result.tool_errors == 1


async def test_in_process_server_object() -> None:
    @toolwire.tool
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    server = twm.create_server([shout], name="inproc")
    async with twm.connect(server) as ts:
        assert [t.name for t in ts] == ["shout"]
        assert await ts.tools[0].call({"text": "hi"}) == "HI"


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def _spoiled(kind: str) -> object:
    """A part a tool made right and then changed (nothing checks a field set after construction)."""
    if kind == "text":
        part: object = TextPart("ok")
        part.text = 42  # type: ignore[attr-defined]
        return part
    image = ImagePart(url="https://example.com/a.png") if kind == "url" else ImagePart(data=PNG, media_type="image/png")
    setattr(
        image,
        {"data-str": "data", "data-list": "data", "media-int": "media_type", "url": "url"}[kind],
        {"data-str": "iVBORw0KGgo=", "data-list": [1, 2], "media-int": 5, "url": 7}[kind],
    )
    return image


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        (
            "data-str",
            "ImagePart.data must be the image's bytes, not str (base64 text: decode it with base64.b64decode)",
        ),
        ("data-list", "ImagePart.data must be the image's bytes, not list"),
        ("media-int", "ImagePart.media_type must be a str such as 'image/png', not int"),
        ("url", "ImagePart.url must be a str, not int"),
        ("text", "TextPart.text must be a str, not int"),
    ],
)
@pytest.mark.parametrize("as_result", [False, True], ids=["returned", "in-a-ToolResult"])
async def test_a_part_with_fields_of_the_wrong_type_is_an_error_result(kind: str, says: str, as_result: bool) -> None:
    """Was an "Internal server error" (a TypeError in the handler) or "Invalid request parameters"
    (a pydantic error building the MCP content) for the client, or ``image: 7`` sent as text."""
    from mcp.client import Client

    @toolwire.tool
    def picture() -> object:
        """Draw the chart."""
        parts = [TextPart("the chart:"), _spoiled(kind)]
        return ToolResult("ignored", parts) if as_result else parts

    @toolwire.tool
    def fine() -> str:
        """Still works."""
        return "yes"

    async with Client(twm.create_server([picture, fine], name="inproc")) as client:
        bad = await client.call_tool("picture", {})
        assert bad.is_error and len(bad.content) == 1 and bad.content[0].type == "text"
        assert bad.content[0].text == (
            f"Tool 'picture' ran, but its result cannot be sent over MCP: {says}. The tool must return "
            "text, TextPart(text) and ImagePart(data=<image bytes>, media_type='image/png') or "
            "ImagePart(url='https://...') parts; do not call it again for the same result."
        )
        ok = await client.call_tool("fine", {})
        assert ok.content[0].type == "text" and (ok.is_error, ok.content[0].text) == (False, "yes")


async def test_a_good_image_still_goes_as_image_content() -> None:
    from mcp.client import Client

    @toolwire.tool
    def picture() -> ImagePart:
        """Draw the chart."""
        return ImagePart(data=PNG, media_type="image/png")

    async with Client(twm.create_server([picture], name="inproc")) as client:
        got = await client.call_tool("picture", {})
    assert not got.is_error and got.content[0].type == "image"
    assert (got.content[0].mime_type, got.content[0].data) == ("image/png", "iVBORw0KGgoAAAANSUhEUg==")
