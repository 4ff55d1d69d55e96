"""A minimal MCP server over stdio (JSON-RPC lines written by hand, so that it can send what a
careless server sends). Its tools answer:

- ``not_mcp``: a result the ``mcp`` SDK cannot read as a ``CallToolResult`` (``content`` is a
  string, not a list of content blocks);
- ``not_jsonrpc``: a reply whose ``result`` is a string, which is not a JSON-RPC result object;
- ``lone_surrogate``: a text with the JSON escape ``\\ud800`` (half of a UTF-16 surrogate pair,
  which is no character), once in a result and once (``lone_surrogate_error``) in an error result;
- ``huge_error``: an ``isError`` result whose text is 200,000 characters;
- ``huge_refusal``: a JSON-RPC error whose message is 200,000 characters;
- ``wrong_structured``: ``structuredContent`` that does not match the output schema the tool
  declares;
- ``deep_reply``: a result nested 5,000 levels deep (more than Python's JSON reader takes);
- ``deep_result``: a result nested 300 levels deep, which the ``mcp`` SDK reads but cannot check
  (its serializer's depth limit);
- ``cut_reply``: a reply cut off in the middle of its result (the line ends inside a string), as a
  server writes that crashes or is killed while writing;
- ``cut_refusal``: a JSON-RPC error cut off in its message;
- ``stray_line``: a line that is no JSON at all (a log line on stdout), then the real reply;
- ``logged_reply``: a log line quoting, after a prefix, the start of a reply to this very call (a
  proxy logging what it forwards), then the real reply;
- ``cut_other_ids``: cut-off replies naming ids no call waits for (negative, text, a fraction, a
  huge number), then the real reply;
- ``echo``: "echo done" (with an argument ``nest`` given, that too)."""

from __future__ import annotations

import json
import sys

NAMES = [
    "not_mcp",
    "not_jsonrpc",
    "lone_surrogate",
    "lone_surrogate_error",
    "huge_error",
    "huge_refusal",
    "silent_refusal",
    "deep_reply",
    "deep_result",
    "cut_reply",
    "cut_refusal",
    "stray_line",
    "logged_reply",
    "cut_other_ids",
    "echo",
]
TOOLS = [
    {"name": name, "description": f"The {name} tool.", "inputSchema": {"type": "object", "properties": {}}}
    for name in NAMES
] + [
    {
        "name": "wrong_structured",
        "description": "Answers with a count.",
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    }
]
HUGE = "x" * 200_000


def answer(mid: object, result: object = None, error: object = None) -> dict:
    if error is not None:
        return {"jsonrpc": "2.0", "id": mid, "error": error}
    return {"jsonrpc": "2.0", "id": mid, "result": result}


def reply(msg: dict) -> str | None:
    """The JSON text answering the JSON-RPC message ``msg``; ``None`` for a notification."""
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        return None
    if method == "initialize":
        info = {"name": "broken-reply", "version": "1"}
        version = msg["params"]["protocolVersion"]
        return json.dumps(answer(mid, {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}))
    if method == "tools/list":
        return json.dumps(answer(mid, {"tools": TOOLS}))
    if method != "tools/call":
        return json.dumps(answer(mid, {}))
    name = msg["params"]["name"]
    if name == "not_mcp":
        return json.dumps(answer(mid, {"content": "forty-two"}))
    if name == "not_jsonrpc":
        return json.dumps(answer(mid, "forty-two"))
    if name in ("lone_surrogate", "lone_surrogate_error"):
        # json.dumps writes the lone surrogate as the escape \ud800 (ensure_ascii), as a server
        # does that cuts a UTF-16 string between the two halves of a pair
        content = [{"type": "text", "text": "before \ud800 after"}]
        return json.dumps(answer(mid, {"content": content, "isError": name.endswith("error")}))
    if name == "wrong_structured":
        return json.dumps(
            answer(mid, {"content": [{"type": "text", "text": "n is x"}], "structuredContent": {"n": "x"}})
        )
    if name in ("deep_reply", "deep_result"):
        depth = 5_000 if name == "deep_reply" else 300
        nested = "[" * depth + "1" + "]" * depth
        head = json.dumps(answer(mid, {"content": [{"type": "text", "text": "deep"}], "structuredContent": {}}))
        return head.replace('"structuredContent": {}', f'"structuredContent": {{"a": {nested}}}')
    if name == "cut_reply":
        whole = json.dumps(answer(mid, {"content": [{"type": "text", "text": "a long answer " * 20}]}))
        return whole[: len(whole) // 2]
    if name == "cut_refusal":
        whole = json.dumps(answer(mid, error={"code": -32000, "message": "the disk is full " * 10}))
        return whole[: len(whole) // 2]
    if name == "stray_line":
        return "INFO starting the stray_line tool {id: 3}\n" + json.dumps(
            answer(mid, {"content": [{"type": "text", "text": "stray_line done"}]})
        )
    if name == "logged_reply":
        quoted = json.dumps(answer(mid, {"content": [{"type": "text", "text": "upstream said " * 20}]}))
        return f"DEBUG forwarding {quoted[:60]}\n" + json.dumps(
            answer(mid, {"content": [{"type": "text", "text": "logged_reply done"}]})
        )
    if name == "cut_other_ids":
        cut = [
            json.dumps(answer(other, {"content": [{"type": "text", "text": "not yours " * 10}]}))[:50]
            for other in (-1, "abc", 1.5, 10**30, 987654)
        ]
        return "\n".join([*cut, json.dumps(answer(mid, {"content": [{"type": "text", "text": "cut_other_ids done"}]}))])
    if name == "huge_error":
        return json.dumps(answer(mid, {"content": [{"type": "text", "text": HUGE}], "isError": True}))
    if name == "huge_refusal":
        return json.dumps(answer(mid, error={"code": -32000, "message": HUGE}))
    if name == "silent_refusal":
        return json.dumps(answer(mid, error={"code": -32000, "message": "", "data": {"why": 1}}))
    return json.dumps(answer(mid, {"content": [{"type": "text", "text": f"{name} done"}]}))


if __name__ == "__main__":
    for line in sys.stdin:
        text = reply(json.loads(line))
        if text is not None:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
