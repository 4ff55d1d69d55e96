"""Anthropic ``cache=True``: only content blocks, tool definitions and system blocks carrying
``cache_control`` are breakpoints. A tool parameter named ``cache_control`` (its schema under
``input_schema.properties``) or a tool call whose arguments hold a ``cache_control`` key is not,
and must not use up the four breakpoints (through the real SDK over MockTransport)."""

from __future__ import annotations

import asyncio

import toolwire
from toolwire.types import Message

EPH = {"type": "ephemeral"}


def anthropic_text() -> dict:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }


@toolwire.tool
def fetch_url(url: str, cache_control: str = "no-cache") -> str:
    """Fetch a web page. Use it for every link the user gives.

    Args:
        url: the address
        cache_control: the Cache-Control request header to send
    """
    return "<html></html>"


def breakpoints(body: dict) -> list:
    found = [t["cache_control"] for t in body.get("tools", []) if "cache_control" in t]
    found += [b["cache_control"] for b in body.get("system", []) if "cache_control" in b]
    found += [b["cache_control"] for m in body["messages"] for b in m["content"] if "cache_control" in b]
    return found


def test_a_cache_control_parameter_or_argument_is_not_a_breakpoint(mock) -> None:
    model, sent = mock("anthropic:claude-sonnet-4-5", [anthropic_text()], cache=True, max_tokens=100)
    call = toolwire.ToolCall(
        id="toolu_01", name="fetch_url", arguments={"url": "https://example.com", "cache_control": "no-store"}
    )
    messages = [
        Message.user("Fetch https://example.com"),
        Message(role="assistant", parts=[call]),
        Message(role="user", parts=[toolwire.ToolResult(tool_call_id="toolu_01", content="<html></html>")]),
    ]
    asyncio.run(model.send(model.build_request(messages, instructions="Answer briefly.", tools=[fetch_url])))
    body = sent[0]
    # the four of an ordinary request: the newest message, the previous turn, the last tool, the system prompt
    assert breakpoints(body) == [EPH, EPH, EPH, EPH]
    assert body["tools"][0]["input_schema"]["properties"]["cache_control"]["type"] == "string"
    assert body["messages"][1]["content"][0]["input"] == {"url": "https://example.com", "cache_control": "no-store"}


def test_a_cache_control_parameter_does_not_take_an_hour(mock) -> None:
    """The 1-hour rule rewrites breakpoints only: a tool schema whose ``cache_control`` property
    looks like a breakpoint (``{"type": "ephemeral"}``, an enum-less string schema would not) is
    left as declared."""
    tool = toolwire.Tool(
        "configure",
        "Configure the cache. Use it when asked.",
        {
            "type": "object",
            "properties": {"cache_control": {"type": "object", "description": "the policy"}},
        },
    )
    model, sent = mock(
        "anthropic:claude-sonnet-4-5",
        [anthropic_text()],
        cache=True,
        max_tokens=100,
        system_cache_control={"type": "ephemeral", "ttl": "1h"},
    )
    asyncio.run(model.send(model.build_request([Message.user("hi")], instructions="Be brief.", tools=[tool])))
    body = sent[0]
    assert body["tools"][0]["input_schema"]["properties"]["cache_control"] == {
        "type": "object",
        "description": "the policy",
    }
    assert body["tools"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
