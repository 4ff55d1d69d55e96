"""A minimal MCP server over stdio (JSON-RPC lines written by hand) whose tool list is paged the
way a careless server pages it: the second page lists ``echo`` again and names itself as the
next page, for ever. Its tool ``refuse`` answers every call with a JSON-RPC error of code -32000
(the start of JSON-RPC's range of server errors), ``echo`` and ``other`` answer "<name> done"."""

from __future__ import annotations

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tool(name: str) -> dict:
    return {"name": name, "description": f"The {name} tool.", "inputSchema": {"type": "object", "properties": {}}}


PAGES = {None: ([tool("echo"), tool("refuse")], "p2"), "p2": ([tool("echo"), tool("other")], "p2")}

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
                    "serverInfo": {"name": "paging", "version": "1"},
                },
            }
        )
    elif method == "tools/list":
        tools, cursor = PAGES[(msg.get("params") or {}).get("cursor")]
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": tools, "nextCursor": cursor}})
    elif method == "tools/call":
        name = msg["params"]["name"]
        if name == "refuse":
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32000, "message": "disk quota exceeded"}})
        else:
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": f"{name} done"}]}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
