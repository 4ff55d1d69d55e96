"""A minimal MCP server over stdio (JSON-RPC lines written by hand) whose tool list holds, among
good tools, entries that are not valid MCP, as careless servers publish them: an ``inputSchema``
whose ``type`` is not ``"object"``, a tool without ``inputSchema``, a name that is a number, a
description that is a number and a ``null`` entry. With the argument ``page``, ``tools`` is not a
list at all. Run: ``python bad_listing_server.py [page]``."""

from __future__ import annotations

import json
import sys

GOOD = [
    {"name": "lookup", "description": "Look a word up.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "count", "description": "Count the words.", "inputSchema": {"type": "object", "properties": {}}},
]
BAD = [
    {"name": "by_title", "description": "A schema of type string.", "inputSchema": {"type": "string"}},
    {"name": "no_schema", "description": "No input schema."},
    {"name": 5, "description": "A number for a name.", "inputSchema": {"type": "object"}},
    {"name": "numbered", "description": 7, "inputSchema": {"type": "object"}},
    None,
]


def reply(msg: dict) -> str | None:
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        return None
    if method == "initialize":
        version = msg["params"]["protocolVersion"]
        info = {"name": "bad-listing", "version": "1"}
        result: object = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
    elif method == "tools/list":
        result = {"tools": {"lookup": GOOD[0]}} if sys.argv[1:] == ["page"] else {"tools": [GOOD[0], *BAD, GOOD[1]]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": f"{msg['params']['name']} done"}]}
    else:
        result = {}
    return json.dumps({"jsonrpc": "2.0", "id": mid, "result": result})


if __name__ == "__main__":
    for line in sys.stdin:
        text = reply(json.loads(line))
        if text is not None:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
