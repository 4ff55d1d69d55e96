"""A small MCP server (stdio) that publishes the kinds of tool name and schema MCP servers are
known to get wrong, for ``toolwire lint`` and the adapters to find. Run: ``python awkward_server.py``.

It also answers with every MCP content kind, so the client's result mapping can be checked, and
changes its tool list when asked (``notifications/tools/list_changed``)."""

from __future__ import annotations

import asyncio
import base64

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()

TOOLS = [
    # a dotted name, as many servers publish
    types.Tool(
        name="files.read",
        description="Read a file by path.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
    # a combinator at the root of the input schema
    types.Tool(
        name="lookup",
        description="Look a record up by id or by tag.",
        input_schema={
            "type": "object",
            "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}},
            "anyOf": [{"required": ["id"]}, {"required": ["tag"]}],
        },
    ),
    # a huge enum, $defs/$ref and additionalProperties
    types.Tool(
        name="set_country",
        description="Set the country.",
        input_schema={
            "type": "object",
            "$defs": {"code": {"type": "string", "enum": [f"C{i:03d}" for i in range(600)]}},
            "properties": {
                "country": {"$ref": "#/$defs/code"},
                "extra": {"type": "object", "additionalProperties": True},
            },
            "required": ["country"],
        },
    ),
    # every content kind in one result
    types.Tool(
        name="everything",
        description="Answer with every MCP content kind.",
        input_schema={"type": "object", "properties": {}},
    ),
    types.Tool(name="fail", description="Always fails.", input_schema={"type": "object", "properties": {}}),
    types.Tool(
        name="fail_shot", description="Fails, with a screenshot.", input_schema={"type": "object", "properties": {}}
    ),
    types.Tool(
        name="grow",
        description="Adds a tool and says the list changed.",
        input_schema={"type": "object", "properties": {}},
    ),
]

EXTRA = types.Tool(
    name="late_tool", description="Published after grow was called.", input_schema={"type": "object", "properties": {}}
)
state = {"grown": False}


async def on_list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS + ([EXTRA] if state["grown"] else []))


async def on_call_tool(ctx, params):
    name = params.name
    args = params.arguments or {}
    if name == "files.read":
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"contents of {args.get('path')}")])
    if name == "lookup":
        return types.CallToolResult(content=[], structured_content={"found": args})
    if name == "set_country":
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"country={args.get('country')}")])
    if name == "everything":
        return types.CallToolResult(
            content=[
                types.TextContent(type="text", text="plain text"),
                types.ImageContent(type="image", data=PNG, mime_type="image/png"),
                types.EmbeddedResource(
                    type="resource", resource=types.TextResourceContents(uri="file:///notes.txt", text="note body")
                ),
                types.EmbeddedResource(
                    type="resource",
                    resource=types.BlobResourceContents(
                        uri="file:///a.bin", blob="AAEC", mime_type="application/octet-stream"
                    ),
                ),
                types.ResourceLink(type="resource_link", name="readme", uri="file:///README.md"),
                types.AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
            ]
        )
    if name == "fail":
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="disk full; free space and retry")], is_error=True
        )
    if name == "fail_shot":
        return types.CallToolResult(
            content=[
                types.TextContent(type="text", text="render failed"),
                types.ImageContent(type="image", data=PNG, mime_type="image/png"),
            ],
            is_error=True,
        )
    if name == "grow":
        state["grown"] = True
        await bus.publish(ToolsListChanged())  # 2026-07-28 sessions: to subscriptions/listen streams
        await ctx.session.send_tool_list_changed()  # earlier sessions: a spontaneous notification
        return types.CallToolResult(content=[types.TextContent(type="text", text="grown")])
    if name == "late_tool":
        return types.CallToolResult(content=[types.TextContent(type="text", text="late")])
    raise ValueError(f"unknown tool {name}")


bus = InMemorySubscriptionBus()
server = Server(
    "awkward", on_list_tools=on_list_tools, on_call_tool=on_call_tool, on_subscriptions_listen=ListenHandler(bus)
)


async def main() -> None:
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
