"""combine() keeps its renames across a server's tool-list refresh, and the MCP handshake has a
documented timeout: both against real MCP servers started over stdio."""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import toolwire
import toolwire.mcp as twm
from toolwire.testing.providers import call

HERE = Path(__file__).parent
AWKWARD = [sys.executable, str(HERE / "awkward_server.py")]
SERVER_TOOLS = ["files_read", "lookup", "set_country", "everything", "fail", "fail_shot", "grow"]

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _until(check, what: str, deadline: float = 60.0) -> None:
    """Poll ``check()`` until it is true (a refresh runs when the server's notification arrives)."""
    end = time.monotonic() + deadline
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"not within {deadline:g} s: {what}")
        await asyncio.sleep(0.05)


async def test_combine_applies_its_renames_again_after_a_refresh() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", twm.MCPNameWarning)
        async with twm.connect(AWKWARD, prefix="one") as a, twm.connect(AWKWARD, prefix="two") as b:
            tools = twm.combine(a, b)
            names = lambda: [t.name for t in tools]  # noqa: E731
            assert names() == [f"one_{n}" for n in SERVER_TOOLS] + [f"two_{n}" for n in SERVER_TOOLS]
            # server one publishes a new tool: no collision, so it keeps its own name
            by = {t.name: t for t in tools}
            assert await by["one_grow"].call({}) == "grown"
            await _until(lambda: "late_tool" in names(), "server one's new tool in the combined list")
            assert sorted(names()) == sorted(
                [f"one_{n}" for n in SERVER_TOOLS] + [f"two_{n}" for n in SERVER_TOOLS] + ["late_tool"]
            )
            # the refresh rebuilt server one's renames: combine's prefixes are in them again
            assert a.renames["one_files_read"] == "files.read" and a.renames["one_grow"] == "grow"
            assert "late_tool" not in a.renames and "one_late_tool" not in a.renames
            # server two publishes the same tool: now both are prefixed, on both sides
            assert await {t.name: t for t in tools}["two_grow"].call({}) == "grown"
            await _until(lambda: "two_late_tool" in names(), "server two's new tool, prefixed")
            assert "one_late_tool" in names() and "late_tool" not in names()
            assert a.renames["one_late_tool"] == "late_tool" and b.renames["two_late_tool"] == "late_tool"
            assert b.renames["two_lookup"] == "lookup"
            # a run over the refreshed list calls the renamed tool on its server, under its own name
            model = toolwire.model("scripted", responses=[[call("one_late_tool", {})], "done"])
            result = await toolwire.run(model, "use the new tool", tools=tools)
    assert result.text == "done"
    assert [(r.call.name, r.result.text, r.result.is_error) for r in result.tool_runs] == [
        ("one_late_tool", "late", False)
    ]


async def test_a_refresh_that_leaves_an_unresolvable_collision_keeps_the_previous_list() -> None:
    empty = {"type": "object", "properties": {}}
    plain = [
        toolwire.Tool("late_tool", "A plain tool.", empty, lambda: "plain"),
        toolwire.Tool("one_late_tool", "Another plain tool.", empty, lambda: "plain too"),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", twm.MCPNameWarning)
        async with twm.connect(AWKWARD, prefix="one") as a:
            tools = twm.combine(a, plain)
            before = list(tools)
            assert [t.name for t in before] == SERVER_TOOLS + ["late_tool", "one_late_tool"]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", twm.MCPNameWarning)
                assert await {t.name: t for t in tools}["grow"].call({}) == "grown"
                await _until(lambda: "late_tool" in [t.name for t in a.tools], "server one's refresh")
                await _until(lambda: any("was not updated" in str(w.message) for w in caught), "the warning")
            # the server's new late_tool would be 'one_late_tool', which a plain tool holds: kept as it was
            assert tools == before
            found = next(str(w.message) for w in caught if "was not updated" in str(w.message))
            assert "two tools are named 'one_late_tool'" in found and "prefix=" in found


async def test_a_server_that_never_answers_the_handshake_is_a_clear_configuration_error(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    # the shell writes the process id before Python starts (the same process, by exec), so it is
    # known even when a loaded machine has not started the interpreter within the timeout
    script = f'echo $$ > "$1"; exec "{sys.executable}" "{HERE / "silent_server.py"}" "$1"'
    silent = ["/bin/sh", "-c", script, "sh", str(pid_file)]
    with pytest.raises(toolwire.ConfigurationError) as info:
        async with twm.connect(silent, handshake_timeout=1):
            pass
    message = str(info.value)
    assert "did not complete the MCP handshake (initialize and tools/list) within 1 s" in message
    assert "the server was stopped" in message and "handshake_timeout=SECONDS" in message
    assert "silent_server.py" in message
    # the server process was stopped (reaped: no zombie left either)
    await _until(pid_file.exists, "the server wrote its pid", deadline=60)
    pid = int(pid_file.read_text())

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    await _until(gone, "the silent server process ended", deadline=60)


async def test_handshake_timeout_must_be_seconds() -> None:
    for bad in (0, -1, float("inf"), float("nan"), True, "5", None):
        with pytest.raises(toolwire.ConfigurationError, match="handshake_timeout must be a number of seconds > 0"):
            twm.connect(AWKWARD, handshake_timeout=bad)  # type: ignore[arg-type]
    assert twm.connect(AWKWARD).handshake_timeout == twm.DEFAULT_HANDSHAKE_TIMEOUT == 30.0


async def test_cancelling_a_connect_stops_the_server(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    silent = [sys.executable, str(HERE / "silent_server.py"), str(pid_file)]

    async def enter() -> None:
        async with twm.connect(silent, handshake_timeout=600):
            pass

    task = asyncio.get_running_loop().create_task(enter())
    await _until(pid_file.exists, "the server wrote its pid", deadline=60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = int(pid_file.read_text())

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    await _until(gone, "the silent server process ended", deadline=60)


async def test_the_handshake_timeout_shows_the_command_quoted_so_it_can_be_copied() -> None:
    """The command was shown joined with spaces ('python -c import time; time.sleep(60)'), which
    a shell runs as other commands."""
    argv = [sys.executable, "-c", "import time; time.sleep(60)"]
    with pytest.raises(toolwire.ConfigurationError) as info:
        async with twm.connect(argv, handshake_timeout=1):
            pass
    shown = shlex.join(argv)
    assert shown.endswith(" -c 'import time; time.sleep(60)'")
    assert f"the MCP server {shown!r} did not complete the MCP handshake" in str(info.value)
