"""Measure the SDK's own cost per call: ``messages.create(**body)`` vs the low-level ``post()``.

Design principle 9 asks each adapter to hand the already-encoded body to the SDK's leanest
documented entry point. This script builds a 50-turn tool-calling history (each turn: an
assistant text + tool_use, a user tool_result), encodes it once with ``AnthropicCodec``, and then
times, through the real ``AsyncAnthropic`` client over an ``httpx2.MockTransport`` (no network):

- ``create``: ``client.messages.create(**body)`` (parameter transformation + response parsing into
  pydantic ``Message`` objects);
- ``post``: ``client.post("/v1/messages", cast_to=object, body=body)`` (what ``AnthropicModel``
  does: JSON in, JSON dict out; auth, retries and typed errors still the SDK's).

Run: ``uv run python adapters/anthropic/benchmarks/sdk_entry_points.py [turns] [repeats]``.
Prints the median and p90 per call in milliseconds. Not a test: timings depend on the machine.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time

import anthropic
import httpx2
from toolwire_anthropic import AnthropicCodec

from toolwire import Message, TextPart, Tool, ToolCall, ToolResult
from toolwire.adapter import ModelRequest

RESPONSE = {
    "id": "msg_bench",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [
        {"type": "text", "text": "Checking the next file."},
        {
            "type": "tool_use",
            "id": "toolu_bench",
            "name": "read_file",
            "input": {"path": "src/app.py", "max_lines": 200},
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 25000,
        "output_tokens": 60,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    },
}


def history(turns: int) -> ModelRequest:
    tools = [
        Tool(
            "read_file",
            "Read a file.",
            {
                "type": "object",
                "properties": {"path": {"type": "string"}, "max_lines": {"type": "integer"}},
                "required": ["path"],
            },
        ),
        Tool(
            "search",
            "Search the code.",
            {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        ),
    ]
    msgs = [Message.user("Review the repository and summarise the risky parts.")]
    for i in range(turns):
        msgs.append(
            Message(
                "assistant",
                [
                    TextPart(f"Step {i}: reading the next file to look for problems."),
                    ToolCall(f"toolu_{i:04d}", "read_file", {"path": f"src/mod_{i}.py", "max_lines": 200}),
                ],
            )
        )
        msgs.append(
            Message("user", [ToolResult(f"toolu_{i:04d}", "\n".join(f"line {j}: code = {j} * 2" for j in range(40)))])
        )
    return ModelRequest(
        "claude-haiku-4-5", msgs, instructions="You are a careful reviewer.", tools=tools, max_tokens=4096
    )


async def bench(turns: int, repeats: int) -> None:
    body = AnthropicCodec().encode_request(history(turns))
    payload = json.dumps(RESPONSE).encode()
    transport = httpx2.MockTransport(
        lambda r: httpx2.Response(200, headers={"content-type": "application/json"}, content=payload)
    )
    client = anthropic.AsyncAnthropic(
        api_key="sk-bench", http_client=httpx2.AsyncClient(transport=transport), max_retries=0
    )

    async def via_create() -> None:
        await client.messages.create(**body)

    async def via_post() -> None:
        await client.post("/v1/messages", cast_to=object, body=body)

    results = {}
    for name, fn in (("create", via_create), ("post", via_post)):
        for _ in range(5):  # warm up
            await fn()
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            await fn()
            samples.append((time.perf_counter() - t0) * 1000)
        samples.sort()
        results[name] = (statistics.median(samples), samples[int(len(samples) * 0.9) - 1])
    size = len(json.dumps(body))
    print(f"history: {turns} turns, {len(body['messages'])} messages, body {size / 1024:.0f} KiB, {repeats} calls each")
    for name, (med, p90) in results.items():
        print(f"  {name:7s} median {med:7.3f} ms   p90 {p90:7.3f} ms")
    await client.close()


if __name__ == "__main__":
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    asyncio.run(bench(turns, repeats))
