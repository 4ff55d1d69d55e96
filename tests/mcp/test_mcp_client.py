"""MCP tools in the loop: real MCP servers started over stdio (the reference ``mcp-server-time``
and ``mcp-server-git`` from PyPI, and a small server of our own), driven by the scripted provider."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import toolwire
import toolwire.mcp as twm
from toolwire.errors import ToolDefinitionError
from toolwire.testing.providers import call
from toolwire.types import ImagePart, TextPart

HERE = Path(__file__).parent
AWKWARD = [sys.executable, str(HERE / "awkward_server.py")]


@contextlib.asynccontextmanager
async def _awkward(**kwargs):
    """A session with the awkward server, asserting the rename warning its ``files.read`` tool
    gives on connect (the tool-name rule allows no '.')."""
    async with contextlib.AsyncExitStack() as stack:
        with pytest.warns(twm.MCPNameWarning, match=r"MCP tool 'files\.read' of 'awkward' is named 'files_read'"):
            ts = await stack.enter_async_context(twm.connect(AWKWARD, **kwargs))
        yield ts


TIME = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]

pytestmark = pytest.mark.anyio


def _closed_port() -> int:
    """A loopback port nothing listens on (bound to a free port, then closed): no fixed port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "PATH": "/usr/bin:/bin",
    }
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "notes.txt").write_text("first line\n")
    subprocess.run(["git", "-C", str(repo), "add", "notes.txt"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", "add notes"], check=True, env=env)
    (repo / "notes.txt").write_text("first line\nsecond line\n")
    return repo


async def test_loop_over_two_real_mcp_servers(git_repo: Path) -> None:
    async with (
        twm.connect(TIME) as time_tools,
        twm.connect([sys.executable, "-m", "mcp_server_git", "--repository", str(git_repo)]) as git_tools,
    ):
        assert time_tools.server_name == "mcp-time"
        assert {"get_current_time", "convert_time"} <= {t.name for t in time_tools}
        assert {"git_status", "git_diff_unstaged", "git_log"} <= {t.name for t in git_tools}
        model = toolwire.model(
            "scripted",
            responses=[
                [
                    call("convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
                    call("git_diff_unstaged", {"repo_path": str(git_repo)}),
                    call("get_current_time", {"timezone": "Not/AZone"}),
                    call("git_status", {}),
                ],  # missing required repo_path: refused by toolwire's validation
                "done",
            ],
        )
        result = await toolwire.run(model, "convert, diff and status", tools=twm.combine(time_tools, git_tools))
    runs = {r.call.name: r for r in result.tool_runs}
    assert result.text == "done" and result.stop_reason == "end_turn"
    convert = runs["convert_time"].result
    assert not convert.is_error and '"datetime": "' in convert.text and "21:00" in convert.text  # Tokyo is UTC+9
    diff = runs["git_diff_unstaged"].result
    assert not diff.is_error and "+second line" in diff.text
    bad_zone = runs["get_current_time"].result
    assert bad_zone.is_error and "Invalid timezone" in bad_zone.text
    status = runs["git_status"].result
    assert status.is_error and "repo_path" in status.text  # validated against the server's own schema, never sent
    assert result.tool_errors == 2


async def test_result_mapping_names_and_errors_from_our_awkward_server() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with twm.connect(AWKWARD) as ts:
            names = [t.name for t in ts]
            assert names == ["files_read", "lookup", "set_country", "everything", "fail", "fail_shot", "grow"]
            assert ts.renames == {"files_read": "files.read"}
            assert [str(w.message) for w in caught if issubclass(w.category, twm.MCPNameWarning)] == [
                "MCP tool 'files.read' of 'awkward' is named 'files_read' for the model "
                "(toolwire's tool-name rule: letters, digits, '_' and '-', at most 64 characters)"
            ]
            by = {t.name: t for t in ts}
            assert await by["files_read"].call({"path": "a.txt"}) == "contents of a.txt"  # reached under its own name
            assert await by["lookup"].call({"tag": "x"}) == '{"found": {"tag": "x"}}'
            parts = await by["everything"].call({})
            assert [type(p).__name__ for p in parts] == [
                "TextPart",
                "ImagePart",
                "TextPart",
                "TextPart",
                "TextPart",
                "TextPart",
            ]
            assert parts[0] == TextPart("plain text")
            assert (
                isinstance(parts[1], ImagePart)
                and parts[1].media_type == "image/png"
                and parts[1].data[:4] == b"\x89PNG"
            )
            assert [p.text for p in parts[2:]] == [
                "resource file:///notes.txt:\nnote body",
                "[binary resource file:///a.bin (application/octet-stream) left out]",
                "resource link: readme <file:///README.md>",
                "[audio (audio/wav) left out: the model's API does not take audio in tool results]",
            ]
            with pytest.raises(toolwire.ToolError, match="disk full; free space and retry"):
                await by["fail"].call({})
            shot = await by["fail_shot"].call({})  # an error that shows something keeps its image
            assert isinstance(shot, toolwire.ToolResult) and shot.is_error
            assert [type(p).__name__ for p in shot.content] == ["TextPart", "ImagePart"]
            assert shot.content[0] == TextPart("render failed")


async def test_tool_list_refreshed_when_the_server_says_it_changed() -> None:
    import asyncio

    async with _awkward() as ts:
        before = ts.refreshes
        grow = next(t for t in ts if t.name == "grow")
        assert await grow.call({}) == "grown"
        deadline = time.monotonic() + 60  # the refresh runs when the notification arrives
        while "late_tool" not in {t.name for t in ts} and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert "late_tool" in {t.name for t in ts} and ts.refreshes > before


async def test_name_collisions_get_the_server_prefix_and_remaining_ones_raise() -> None:
    async with _awkward(prefix="one") as a, _awkward(prefix="two") as b:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", twm.MCPNameWarning)
            tools = twm.combine(a, b)
        assert [t.name for t in tools][:3] == ["one_files_read", "one_lookup", "one_set_country"]
        assert a.renames["one_files_read"] == "files.read" and b.renames["two_lookup"] == "lookup"
        by_name = {t.name: t for t in tools}
        assert (
            await by_name["two_files_read"].call({"path": "p"}) == "contents of p"
        )  # still 'files.read' on the server
    async with _awkward(prefix="same") as a, _awkward(prefix="same") as b:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", twm.MCPNameWarning)
            with pytest.raises(ToolDefinitionError, match="two tools are named 'same_files_read'"):
                twm.combine(a, b)


async def test_a_closed_session_answers_with_an_error_result_and_the_server_process_ends() -> None:
    async with _awkward() as ts:
        tool = ts.tools[0]
    with pytest.raises(toolwire.ToolError, match="no longer connected"):
        await tool.call({"path": "x"})


async def test_a_server_that_cannot_start_is_a_configuration_error() -> None:
    with pytest.raises(toolwire.ConfigurationError, match="could not connect to the MCP server"):
        async with twm.connect([sys.executable, "-c", "import sys; sys.exit(3)"]):
            pass


def test_tool_name_rule() -> None:
    assert twm.tool_name_for("get_time") == "get_time"
    assert twm.tool_name_for("files.read/v2") == "files_read_v2"
    assert twm.tool_name_for("9lives") == "_9lives"
    long = "a." * 40
    new = twm.tool_name_for(long)
    assert len(new) == 64 and new.startswith("a_a_") and new[55] == "_"


async def test_bad_connect_arguments_are_configuration_errors() -> None:
    with pytest.raises(toolwire.ConfigurationError, match="cannot read the MCP server command"):
        twm.connect("python 'unterminated")
    # before: pydantic's ValidationError for StdioServerParameters, and "No such file or directory:
    # '/nowhere'" on entering, which reads as the command missing
    for env in ({"LEVEL": 5}, "LEVEL=5"):
        with pytest.raises(toolwire.ConfigurationError) as info:
            twm.connect(AWKWARD, env=env)  # type: ignore[arg-type]
        assert str(info.value) == (
            f"env must map names to text (e.g. {{'LOG_LEVEL': 'debug'}}), got {env!r}: give each value as a str"
        )
    for headers, shown in (({"X-Team": 5}, "['X-Team']"), ("Authorization: x", "'str'"), ({"X": "a\nb"}, "['X']")):
        with pytest.raises(toolwire.ConfigurationError) as info:  # (before: TypeError, ValueError, or sent)
            twm.connect("http://127.0.0.1:9/mcp", headers=headers)  # type: ignore[arg-type]
        assert str(info.value) == (
            f"headers must map header names to text on one line (e.g. {{'Authorization': 'Bearer ...'}}), got {shown}"
        )
    with pytest.raises(toolwire.ConfigurationError, match=r"^cwd must be a folder path \(text\), got 5$"):
        twm.connect(AWKWARD, cwd=5)  # type: ignore[arg-type]
    with pytest.raises(toolwire.ConfigurationError) as info:
        twm.connect(AWKWARD, cwd="/nowhere/at/all")
    assert str(info.value) == "cwd '/nowhere/at/all' is not a folder: give the folder to start the server in"
    for bad in (0, -1, float("nan"), True, "5"):
        with pytest.raises(toolwire.ConfigurationError, match="timeout must be a number of seconds > 0"):
            twm.connect(AWKWARD, timeout=bad)
    with pytest.raises(toolwire.ConfigurationError) as info:
        async with twm.connect(f"http://127.0.0.1:{_closed_port()}/mcp", timeout=5):
            pass
    assert "ExceptionGroup" not in str(info.value)


def test_a_prefix_that_is_not_text_and_a_toolset_that_is_not_a_list_are_named() -> None:
    """Before: prefix=5 raised a raw TypeError from re.sub when combine() met a collision, prefix=''
    was passed over for the server's name without a word, and combine(None) raised TypeError
    "'NoneType' object is not iterable"."""
    for bad in (5, "", "   ", b"gh"):
        with pytest.raises(toolwire.ConfigurationError) as info:
            twm.connect(AWKWARD, prefix=bad)  # type: ignore[arg-type]
        assert str(info.value) == (
            "prefix must be non-empty text (the start of the tool names on a collision, e.g. 'github'), or None "
            f"for the server's name; got {bad!r}"
        )
    for bad in (None, 5, "add"):
        with pytest.raises(toolwire.ToolDefinitionError) as info:
            twm.combine(bad)  # type: ignore[arg-type]
        assert str(info.value) == (
            f"combine() takes toolsets and lists of tools or typed functions, got {type(bad).__name__}"
        )


async def test_combine_takes_plain_functions_too() -> None:
    def add(a: int, b: int = 1) -> int:
        """Add two numbers."""
        return a + b

    async with _awkward() as ts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", twm.MCPNameWarning)
            tools = twm.combine(ts, [add])
    assert tools[-1].name == "add" and tools[-1](2, 3) == 5


def test_bytes_that_are_not_utf8_on_a_servers_stdout_do_not_end_the_session() -> None:
    """With the SDK's strict decoding, one such line killed the reader silently: that call and
    every later one waited out the timeout while the session still looked connected."""
    import asyncio

    server = [sys.executable, str(Path(__file__).parent / "binary_stdout_server.py")]

    async def go() -> list[str]:
        async with twm.connect(server, timeout=10) as tools:
            by_name = {t.name: t for t in tools}
            first = await asyncio.wait_for(by_name["dump"].call({}), 15)
            second = await asyncio.wait_for(by_name["ping_tool"].call({}), 15)
            return [str(first), str(second)]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert asyncio.run(go()) == ["dump done", "ping_tool done"]


def test_names_that_rewrite_to_one_name_stay_distinct() -> None:
    """files.read and "files read" both rewrite to files_read, the name of a third tool: all three
    were files_read (one rename recorded, the run refused). Each keeps its own name and reaches
    its own tool."""
    import asyncio

    names = ["files.read", "files_read", "files read"]
    server = [sys.executable, str(Path(__file__).parent / "binary_stdout_server.py"), *names]

    async def go() -> tuple[list[str], dict[str, str], list[str]]:
        async with twm.connect(server, timeout=10) as tools:
            answers = [str(await asyncio.wait_for(t.call({}), 15)) for t in tools]
            return [t.name for t in tools], dict(tools.renames), answers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, renames, answers = asyncio.run(go())
    assert len(set(got)) == 3 and got[1] == "files_read"
    assert all(twm.tool_name_for(n) == n for n in got)  # each fits the tool-name rule
    assert {renames[n] for n in got if n in renames} == {"files.read", "files read"}
    assert answers == [f"{n} done" for n in names]


def test_a_call_that_times_out_or_a_server_that_dies_is_said_as_such() -> None:
    """The SDK reports its own read timeout and a closed connection as JSON-RPC errors (-32001,
    -32000); they were answered "the MCP server refused the call ... Check the tool name and
    arguments", which sends the model after its arguments."""
    import asyncio

    from toolwire.errors import ToolError

    server = [sys.executable, str(Path(__file__).parent / "binary_stdout_server.py"), "hang", "crash"]

    async def go() -> list[ToolError]:
        errors: list[ToolError] = []
        async with twm.connect(server, timeout=1) as tools:
            by_name = {t.name: t for t in tools}
            for name in ("hang", "crash"):
                try:
                    await asyncio.wait_for(by_name[name].call({}), 20)
                except ToolError as exc:
                    errors.append(exc)
        return errors

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        timed_out, closed = asyncio.run(go())
    assert "did not answer within 1 s" in str(timed_out) and not timed_out.retryable  # (no annotations: see below)
    assert "closed the connection" in str(closed) and not closed.retryable
    assert "Check the tool name" not in str(timed_out) + str(closed)


def test_a_timeout_says_to_call_again_only_a_tool_the_server_marks_safe_to_repeat() -> None:
    """MCP's defaults (readOnlyHint false, idempotentHint false) mean a call may change something
    and a second call may change it again; every timeout said "Try again once" (retryable)."""
    import asyncio

    from toolwire.errors import ToolError

    names = ["hang", "hang_read", "hang_idem"]
    server = [sys.executable, str(Path(__file__).parent / "binary_stdout_server.py"), *names]

    async def go() -> list[ToolError]:
        errors: list[ToolError] = []
        async with twm.connect(server, timeout=1) as tools:
            by_name = {t.name: t for t in tools}
            for name in names:
                with pytest.raises(ToolError) as info:
                    await asyncio.wait_for(by_name[name].call({}), 20)
                errors.append(info.value)
        return errors

    plain, read_only, idempotent = asyncio.run(go())
    assert plain.render() == (
        "the MCP server did not answer within 1 s; the call may still have been carried out\n"
        "Check whether it took effect (for example with a tool that reads it) before calling it again: the server "
        "does not mark this tool read-only or idempotent, so a second call may do it twice."
    )
    for safe in (read_only, idempotent):
        assert str(safe) == "the MCP server did not answer within 1 s" and safe.retryable
        assert "Try again once, or answer without this tool." in safe.render()
