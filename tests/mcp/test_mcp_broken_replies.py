"""What the model is told when a real MCP server (over stdio) answers a call with something the
``mcp`` SDK cannot read, with text holding lone surrogates, or with a huge error text."""

from __future__ import annotations

import asyncio
import json
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
from toolwire.testing.providers import call

HERE = Path(__file__).parent
SERVER = [sys.executable, str(HERE / "broken_reply_server.py")]


def _run(*names: str, timeout: float = 20) -> tuple[list[toolwire.ToolResult], float]:
    """Call ``names`` one after the other (then ``echo``) in a scripted run; the results and the
    seconds the calls took."""

    async def go() -> tuple[list[toolwire.ToolResult], float]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            async with twm.connect(SERVER, timeout=timeout) as ts:
                model = toolwire.model(
                    "scripted", responses=[*([call(n, {})] for n in names), [call("echo", {})], "done"]
                )
                start = time.monotonic()
                result = await asyncio.wait_for(toolwire.run(model, "go", tools=ts), 60)
                took = time.monotonic() - start
        return [r.result for r in result.tool_runs], took

    return asyncio.run(go())


def test_a_reply_that_is_not_valid_mcp_is_not_blamed_on_the_arguments() -> None:
    """A result the SDK cannot read (``content`` a string) was reported as "the MCP server refused
    the call (1 validation error for CallToolResult ...) Check the tool name and arguments against
    the tool's input schema", sending the model after arguments that were fine, as was a result
    whose structuredContent does not match the tool's declared output schema; a reply whose
    ``result`` is no JSON object was dropped by the SDK, and the call waited out its timeout."""
    results, took = _run("not_mcp", "not_jsonrpc", "wrong_structured")
    not_mcp, not_jsonrpc, wrong_structured, echo = results
    assert not_mcp.is_error and not_jsonrpc.is_error
    assert not_mcp.text == (
        "the MCP server 'broken-reply' sent a reply that is not a valid MCP tool result "
        "(content: Input should be a valid list); the call may have run, but its result cannot be read\n"
        "This is a fault of the server, not of the arguments: do not call this tool again with other "
        "arguments. Answer without it, or tell the user that the server sent a malformed reply."
    )
    assert not_jsonrpc.text.startswith(
        "the MCP server 'broken-reply' sent a reply that is not a valid MCP tool result (result: Input should be "
        "a valid dictionary); the call may have run, but its result cannot be read\n"
    )
    assert wrong_structured.is_error and wrong_structured.text.startswith(
        "the MCP server 'broken-reply' sent a result that does not match the output schema it declared for the "
        "tool (Invalid structured content returned by tool wrong_structured: 'x' is not of type 'integer'); "
        "the call may have run, but its result cannot be read\nThis is a fault of the server, not of the arguments"
    )
    for result in (not_mcp, not_jsonrpc, wrong_structured):
        assert "arguments against the tool's input schema" not in result.text
    assert took < 10  # answered at once, not after the 20 s call timeout
    assert (echo.is_error, echo.text) == (False, "echo done")


def test_lone_surrogates_in_a_reply_are_replaced_and_said_so() -> None:
    """A reply with the JSON escape \\ud800 (no character: half of a surrogate pair) failed the
    SDK's JSON parser; the SDK dropped it and the call waited out its timeout."""
    results, took = _run("lone_surrogate", "lone_surrogate_error")
    ok, failed, echo = results
    note = (
        "[the MCP server's reply held 1 lone UTF-16 surrogate escape (such as \\ud800), which stands for no "
        "character; it was replaced with U+FFFD]"
    )
    assert (ok.is_error, ok.text) == (False, f"before \ufffd after\n{note}")
    assert failed.is_error and failed.text == f"before \ufffd after\n{note}"
    assert took < 10
    assert (echo.is_error, echo.text) == (False, "echo done")


def test_a_reply_nested_too_deeply_is_a_bad_reply_and_the_session_goes_on() -> None:
    """A reply nested 5,000 levels deep: the SDK's parser refuses it, and toolwire's second reading
    (json.loads) raised RecursionError inside the SDK's reader, which closed the session: that
    call and every later one were answered "the MCP server closed the connection". A reply
    nested 300 levels deep, which the SDK reads but its check of the result cannot serialize
    ("Maximum serialization depth exceeded"), was "the MCP server refused the call ... Check the
    tool name and arguments". Each is now a reply that is not a valid MCP tool result, answered at
    once, and the server's other tools still answer."""
    results, took = _run("deep_reply", "deep_result")
    deep_reply, deep_result, echo = results
    head = "the MCP server 'broken-reply' sent a reply that is not a valid MCP tool result ("
    assert deep_reply.is_error and deep_reply.text.startswith(head + "it is nested too deeply to read")
    assert deep_result.is_error and deep_result.text.startswith(head + "Maximum serialization depth exceeded)")
    for result in (deep_reply, deep_result):
        assert result.text.endswith("tell the user that the server sent a malformed reply.")
    assert took < 10
    assert (echo.is_error, echo.text) == (False, "echo done")


def test_a_reply_cut_off_mid_line_is_a_bad_reply_answered_at_once() -> None:
    """A reply (or a refusal) cut off in the middle of the line, as a server writes that crashes
    or is killed mid-write: the SDK cannot parse the line and drops it, so the call waited out its
    whole timeout and was then told the server "did not answer". Its ``id`` is readable at the
    start of the line, so the call is now answered at once that the reply could not be read; a
    line that is no JSON-RPC at all (a log line on stdout) is still passed over, and the reply
    after it answers; the server's other tools still answer."""
    results, took = _run("cut_reply", "cut_refusal", "stray_line", timeout=15)
    cut_reply, cut_refusal, stray, echo = results
    head = "the MCP server 'broken-reply' sent a reply that is not a valid MCP tool result ("
    for result in (cut_reply, cut_refusal):
        assert result.is_error
        assert result.text.startswith(head + "it is not valid JSON: the line ends before the reply does"), result.text
        assert result.text.endswith("tell the user that the server sent a malformed reply.")
    assert (stray.is_error, stray.text) == (False, "stray_line done")
    assert took < 10  # (each cut reply waited the 15 s timeout before)
    assert (echo.is_error, echo.text) == (False, "echo done")


def test_a_log_line_quoting_a_reply_is_not_taken_for_a_cut_reply() -> None:
    """A line that does not start with ``{`` but quotes the start of a reply to the running call
    after a prefix (a proxy server logging what it forwards) is a log line, passed over: the call
    gets its real reply. Before, it was read as a cut-off reply and the call was answered at once
    that the server's reply was not valid JSON. Cut-off replies naming ids no call waits for
    (negative, text, fractional, huge) change nothing and hold nothing up."""
    results, took = _run("logged_reply", "cut_other_ids", timeout=15)
    logged, others, echo = results
    assert (logged.is_error, logged.text) == (False, "logged_reply done")
    assert (others.is_error, others.text) == (False, "cut_other_ids done")
    assert took < 10
    assert (echo.is_error, echo.text) == (False, "echo done")


def test_arguments_nested_too_deeply_to_send_are_not_a_refusal_of_the_server() -> None:
    """Arguments the ``mcp`` SDK cannot serialize (nested 300 levels deep) never reach the server:
    the call was answered "the MCP server refused the call"."""
    nest: object = 1
    for _ in range(300):
        nest = [nest]

    async def go() -> tuple[str, str]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            async with twm.connect(SERVER, timeout=20) as ts:
                echo = {t.name: t for t in ts.tools}["echo"]
                try:
                    await echo.call({"nest": nest})
                except toolwire.ToolError as exc:
                    refused = exc.render()
                else:
                    raise AssertionError("the call was sent")
                return refused, str(await echo.call({}))

    refused, after = asyncio.run(go())
    assert refused.startswith(
        "the call was not sent to the MCP server 'broken-reply': its arguments could not be written as JSON "
        "(Maximum serialization depth exceeded)"
    )
    assert "refused" not in refused and "Send arguments nested less deeply" in refused
    assert after == "echo done"


def test_a_huge_error_text_is_cut_and_says_how_much() -> None:
    """An ``isError`` result (or a JSON-RPC error message) of 200,000 characters went to the model
    whole."""
    results, _ = _run("huge_error", "huge_refusal")
    huge, refusal, _echo = results
    cap = 20_000  # toolwire.mcp.MAX_ERROR_CHARS
    assert huge.is_error and refusal.is_error
    # 20,000 characters in all: the first 17,933, a 67-character line, the last 2,000
    assert (
        huge.text
        == "x" * 17_933 + "\n[error text cut: 180,067 of its 200,000 characters left out here]\n" + "x" * 2_000
    )
    head = "the MCP server refused the call (code -32000: "
    # the message is cut on its own (a ToolError's next step follows it whole): its beginning
    # gives up the 68 characters of the next step
    step = "\nCheck the tool name and arguments against the tool's input schema."
    assert refusal.text.startswith(head + "x" * (17_933 - len(step) - len(head)) + "\n[error text cut: 180,")
    # the end is kept: the message's close and the next step
    assert refusal.text.endswith("x" * 1_999 + ")" + step)
    assert len(refusal.text) == cap
    assert twm.MAX_ERROR_CHARS == cap


def test_a_reply_the_http_transport_cannot_parse_is_not_blamed_on_the_arguments() -> None:
    """Over streamable HTTP the SDK answers a reply it cannot parse with its own JSON-RPC error
    (code -32700, "Failed to parse JSON response: ..."); it was reported as "the MCP server refused
    the call (...) Check the tool name and arguments against the tool's input schema"."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, str(HERE / "broken_reply_http_server.py"), str(port)], stdout=subprocess.PIPE, cwd=HERE
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == b"ready"

        async def go() -> list[str]:
            texts = []
            async with twm.connect(f"http://127.0.0.1:{port}/mcp", timeout=20) as ts:
                tools = {t.name: t for t in ts.tools}
                for name in ("not_jsonrpc", "lone_surrogate", "echo"):
                    try:
                        texts.append(str(await asyncio.wait_for(tools[name].call({}), 10)))
                    except toolwire.ToolError as exc:
                        texts.append(exc.render())
            return texts

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            not_jsonrpc, surrogate, echo = asyncio.run(go())
    finally:
        server.kill()
        server.wait()
    head = "the MCP server 'broken-reply' sent a reply that is not a valid MCP tool result (Failed to parse JSON response: "
    assert not_jsonrpc.startswith(head) and "JSONRPCResponse.result Input should be an object" in not_jsonrpc
    assert surrogate.startswith(head) and "Invalid JSON: unexpected end of hex escape" in surrogate
    for text in (not_jsonrpc, surrogate):
        assert "input_value" not in text and "arguments against the tool's input schema" not in text
        assert text.endswith("tell the user that the server sent a malformed reply.")
    assert echo == "echo done"


def test_a_refusal_without_a_message_says_so() -> None:
    """A JSON-RPC error with an empty message read "refused the call (code -32000: )"."""
    results, _ = _run("silent_refusal")
    refusal, _echo = results
    assert refusal.is_error
    assert refusal.text.startswith("the MCP server refused the call (code -32000: it gave no message)")


def test_a_reply_with_a_control_character_names_the_character_once() -> None:
    """The decoder's "Invalid control character at" was followed by " at character N"."""
    from toolwire.mcp import _not_json

    line = '{"jsonrpc": "2.0", "id": 7, "result": {"text": "a\tb"}}'
    try:
        json.loads(line)
    except ValueError as exc:
        reply = _not_json(line, exc, exc)
    error = reply.message.error
    assert error.message == "invalid reply: it is not valid JSON: Invalid control character at character 49"
