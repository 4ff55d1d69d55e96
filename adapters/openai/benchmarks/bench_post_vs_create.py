"""Measure the SDK's own cost per request: ``create(**body)`` vs the low-level ``post()``
(design principle 9). Not a test: run it by hand.

    uv run python adapters/openai/benchmarks/bench_post_vs_create.py

For a history of N tool turns (each: an assistant message with a tool call + its tool result),
the same wire body (from the codec) is sent through ``AsyncOpenAI`` with an ``httpx2.MockTransport``
that answers instantly, so what is timed is the SDK's request building (validation, transform,
JSON encoding, headers) and response parsing — no network. Reports the median of R repeats.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time

import httpx2
import openai
from toolwire_openai import OpenAIChatCodec, OpenAIResponsesCodec

from toolwire.adapter import ModelRequest
from toolwire.tools import Tool
from toolwire.types import Message, ToolCall, ToolResult

TOOLS = [
    Tool(
        f"tool_{i}",
        f"Tool number {i}: looks something up.",
        {
            "type": "object",
            "properties": {"q": {"type": "string", "description": "query"}, "n": {"type": "integer"}},
            "required": ["q"],
        },
    )
    for i in range(8)
]
CHAT_ANSWER = {
    "id": "chatcmpl-x",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}
RESP_ANSWER = {
    "id": "resp_x",
    "object": "response",
    "created_at": 1,
    "status": "completed",
    "model": "gpt-4o",
    "output": [
        {
            "id": "msg_x",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}],
        }
    ],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "usage": {
        "input_tokens": 1,
        "output_tokens": 1,
        "total_tokens": 2,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    },
}


def history(turns: int) -> list[Message]:
    msgs = [Message.user("Start the task.")]
    for t in range(turns):
        call = ToolCall(f"call_{t}", f"tool_{t % 8}", {"q": f"step {t} " + "x" * 80, "n": t})
        msgs.append(Message("assistant", [call]))
        msgs.append(Message("user", [ToolResult(f"call_{t}", "result text " * 30)]))
    return msgs


async def measure(api: str, turns: int, repeats: int) -> tuple[float, float]:
    answer = CHAT_ANSWER if api == "chat" else RESP_ANSWER
    transport = httpx2.MockTransport(
        lambda r: httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(answer))
    )
    client = openai.AsyncOpenAI(api_key="sk-bench", http_client=httpx2.AsyncClient(transport=transport), max_retries=0)
    codec = OpenAIChatCodec() if api == "chat" else OpenAIResponsesCodec()
    body = codec.encode_request(ModelRequest("gpt-4o", history(turns), tools=TOOLS))
    path = "/chat/completions" if api == "chat" else "/responses"
    create = client.chat.completions.create if api == "chat" else client.responses.create
    opts = {"security": {"bearer_auth": True}}
    t_create, t_post = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        await create(**body)
        t1 = time.perf_counter()
        await client.post(path, cast_to=object, body=body, options=opts)
        t2 = time.perf_counter()
        t_create.append(t1 - t0)
        t_post.append(t2 - t1)
    await client.close()
    return statistics.median(t_create) * 1000, statistics.median(t_post) * 1000


async def main() -> None:
    print(f"openai {openai.__version__}; median ms per request (SDK work only, MockTransport)")
    print(f"{'api':10} {'turns':>5} {'create()':>10} {'post()':>10}")
    for api in ("chat", "responses"):
        for turns in (1, 10, 25, 50):
            c, p = await measure(api, turns, repeats=30)
            print(f"{api:10} {turns:5d} {c:10.2f} {p:10.2f}")


if __name__ == "__main__":
    asyncio.run(main())
