"""A minimal MCP server over stdio (JSON-RPC lines written by hand, so that it can misbehave the way
a real server does): its tool ``dump`` first writes bytes that are not UTF-8 to stdout — a print of
binary data — and then answers normally; ``ping_tool`` just answers. Given arguments, it offers
tools of those names instead (each answers "<name> done"; a tool whose name starts with ``hang``
never answers, one named ``crash`` ends the process; a name ending in ``_read`` is annotated
``readOnlyHint: true``, one ending in ``_idem`` ``idempotentHint: true``)."""

from __future__ import annotations

import json
import os
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


HINTS = {"_read": {"readOnlyHint": True}, "_idem": {"readOnlyHint": False, "idempotentHint": True}}


def tool(name: str) -> dict:
    spec = {"name": name, "description": f"The {name} tool.", "inputSchema": {"type": "object", "properties": {}}}
    for end, hint in HINTS.items():
        if name.endswith(end):
            spec["annotations"] = hint
    return spec


TOOLS = [tool(name) for name in (sys.argv[1:] or ["dump", "ping_tool"])]

for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": mid,
                "result": {
                    "protocolVersion": msg["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "binary-stdout", "version": "1"},
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = msg["params"]["name"]
        if name.startswith("hang"):  # never answers
            continue
        if name == "crash":  # the process ends mid-call
            os._exit(1)
        if name == "dump":
            sys.stdout.buffer.write(b"\xff\xfe binary \x80\n")
            sys.stdout.flush()
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": f"{name} done"}]}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
