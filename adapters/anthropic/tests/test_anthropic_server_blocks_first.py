"""An assistant answer may open with server-side tool blocks and think after them (Claude ran a
server tool, then thought about its result). Anthropic produced such answers and accepted them
back: the thinking-order rules must not refuse or strip them. Through the real SDK over
``httpx2.MockTransport``."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import Message, Tool, ToolResult
from toolwire.profile import RequestRefused

SIG = "EtsBCmMIDxgCKkC4iv3XpcZDIo0mRSYFR4q6kyrKTDa6YhUVAa6uOKMR9+K5Xh5IY0CtaYfKDCRCpB4yyFr2eLic"

# the shape of a recorded claude-sonnet-5 answer with the code-execution tool: the model ran a
# command, thought about its output, ran another, then answered
SERVER_FIRST = [
    {
        "type": "server_tool_use",
        "id": "srvtoolu_01A",
        "name": "bash_code_execution",
        "input": {"command": "cat data.csv"},
    },
    {
        "type": "bash_code_execution_tool_result",
        "tool_use_id": "srvtoolu_01A",
        "content": {
            "type": "bash_code_execution_result",
            "stdout": "item,value\napple,30\nbanana,70\n",
            "stderr": "",
            "return_code": 0,
            "content": [],
        },
    },
    {"type": "thinking", "thinking": "", "signature": SIG},
    {
        "type": "server_tool_use",
        "id": "srvtoolu_01B",
        "name": "bash_code_execution",
        "input": {"command": "python3 -c 'print(30+70)'"},
    },
    {
        "type": "bash_code_execution_tool_result",
        "tool_use_id": "srvtoolu_01B",
        "content": {
            "type": "bash_code_execution_result",
            "stdout": "100\n",
            "stderr": "",
            "return_code": 0,
            "content": [],
        },
    },
]


def run(coro):
    return asyncio.run(coro)


def _answer(model):
    """The assistant message toolwire keeps for the model's first canned answer."""
    first = model.build_request([Message.user("Sum the value column.")])
    return run(model.send(first)).to_message()


def test_server_blocks_before_thinking_are_sent_back_as_answered(mock_model, wire) -> None:
    body = wire.message_body([*SERVER_FIRST, {"type": "text", "text": "The sum is 100."}], model="claude-sonnet-5")
    ok = wire.message_body([{"type": "text", "text": "Again: 100."}], model="claude-sonnet-5")
    model = mock_model([wire.json_response(body), wire.json_response(ok)], model_id="claude-sonnet-5")
    answer = _answer(model)
    conv = [Message.user("Sum the value column."), answer, Message.user("Use the tool again to check.")]
    resp = run(model.send(model.build_request(conv)))
    assert resp.text == "Again: 100."
    sent = model.sent[1].json["messages"][1]["content"]
    assert [b["type"] for b in sent] == [
        "server_tool_use",
        "bash_code_execution_tool_result",
        "thinking",
        "server_tool_use",
        "bash_code_execution_tool_result",
        "text",
    ]
    assert sent[2]["signature"] == SIG
    assert [c.rule for c in (resp.preflight or []) if c.rule.startswith("anthropic.conversation.thinking")] == []


def test_server_blocks_before_thinking_keep_manual_thinking_in_a_tool_loop(mock_model, wire) -> None:
    # the same opening, then a client tool call: with manual thinking the message whose call is
    # answered holds its thinking block after the server blocks, so thinking stays on
    lookup = {"type": "tool_use", "id": "toolu_01C", "name": "lookup", "input": {"q": "apple"}}
    body = wire.message_body([*SERVER_FIRST, lookup], stop_reason="tool_use")
    ok = wire.message_body([{"type": "text", "text": "done"}])
    model = mock_model(
        [wire.json_response(body), wire.json_response(ok)],
        thinking={"type": "enabled", "budget_tokens": 1024},
        max_tokens=4096,
    )
    tools = [Tool.from_schema("lookup", "Look up.", {"type": "object", "properties": {"q": {"type": "string"}}})]
    first = run(model.send(model.build_request([Message.user("go")], tools=tools)))
    conv = [Message.user("go"), first.to_message(), Message("user", [ToolResult("toolu_01C", "30")])]
    resp = run(model.send(model.build_request(conv, tools=tools)))
    assert model.sent[1].json["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert [c.rule for c in (resp.preflight or []) if c.rule.startswith("anthropic.conversation.thinking")] == []


def test_text_before_thinking_is_still_refused(mock_model, wire) -> None:
    # the client-side reorder Anthropic refuses ("If an assistant message contains any thinking
    # blocks, the first block must be thinking or redacted_thinking. Found text.")
    body = wire.message_body(
        [
            {"type": "text", "text": "Let me think."},
            {"type": "thinking", "thinking": "", "signature": SIG},
            {"type": "text", "text": "100"},
        ]
    )
    model = mock_model([wire.json_response(body)])
    answer = run(model.send(model.build_request([Message.user("go")]))).to_message()
    with pytest.raises(RequestRefused, match="thinking-first"):
        run(model.send(model.build_request([Message.user("go"), answer, Message.user("again")])))
    assert len(model.sent) == 1
