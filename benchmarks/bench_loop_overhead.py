"""toolwire's own cost per turn of the shared loop, per provider. Not a test: run it by hand.

    uv run python benchmarks/bench_loop_overhead.py

A scripted vendor (an ``httpx2.MockTransport`` answering instantly in each API's wire format)
asks for one tool call per turn for N turns, then answers with text. The tool returns at once.
What is timed is everything toolwire and the vendor SDK do per turn: building the request from
the growing conversation, encoding it, the SDK's request/response handling, decoding, validating
arguments (jsonschema), running the tool and appending the result. Reported: the median over R
runs of (total run time / turns), in milliseconds, at several conversation lengths, plus the
``scripted`` provider (no SDK, no HTTP) as the floor of the loop itself.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time

import httpx2

import toolwire
from toolwire.testing import ScriptedModel, call


@toolwire.tool
def lookup(q: str, n: int = 1) -> str:
    """Look something up. Use when you need a fact.

    Args:
        q: What to look up.
        n: How many results.
    """
    return f"result for {q} ({n})"


def _anthropic(turn: int, last: bool) -> dict:
    content = (
        [{"type": "text", "text": "done"}]
        if last
        else [{"type": "tool_use", "id": f"toolu_{turn}", "name": "lookup", "input": {"q": f"step {turn}"}}]
    )
    return {
        "id": f"msg_{turn}",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": content,
        "stop_reason": "end_turn" if last else "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _chat(turn: int, last: bool) -> dict:
    msg = (
        {"role": "assistant", "content": "done"}
        if last
        else {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{turn}",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": json.dumps({"q": f"step {turn}"})},
                }
            ],
        }
    )
    return {
        "id": f"chatcmpl-{turn}",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-x",
        "choices": [{"index": 0, "message": msg, "finish_reason": "stop" if last else "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _responses(turn: int, last: bool) -> dict:
    item = (
        {
            "id": f"msg_{turn}",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}],
        }
        if last
        else {
            "id": f"fc_{turn}",
            "type": "function_call",
            "call_id": f"call_{turn}",
            "name": "lookup",
            "arguments": json.dumps({"q": f"step {turn}"}),
            "status": "completed",
        }
    )
    return {
        "id": f"resp_{turn}",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "gpt-x",
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _gemini(turn: int, last: bool) -> dict:
    part = {"text": "done"} if last else {"functionCall": {"name": "lookup", "args": {"q": f"step {turn}"}}}
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-x",
        "responseId": f"r{turn}",
    }


PROVIDERS = {
    "anthropic": ("anthropic:claude-x", _anthropic),
    "openai-chat": ("openai-chat:gpt-x", _chat),
    "openai": ("openai:gpt-x", _responses),
    "gemini": ("gemini:gemini-x", _gemini),
}


async def one_run(provider: str, turns: int) -> float:
    if provider == "scripted":
        m = ScriptedModel(responses=[[call("lookup", {"q": f"step {t}"})] for t in range(turns - 1)] + ["done"])
        start = time.perf_counter()
        await toolwire.run(m, "go", tools=[lookup], max_turns=turns)
        return time.perf_counter() - start
    name, make = PROVIDERS[provider]
    state = {"turn": 0}

    def handler(request: httpx2.Request) -> httpx2.Response:
        state["turn"] += 1
        body = make(state["turn"], state["turn"] >= turns)
        return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    m = toolwire.model(name, api_key="bench", http_client=client, max_retries=0)
    start = time.perf_counter()
    await toolwire.run(m, "go", tools=[lookup], max_turns=turns)
    elapsed = time.perf_counter() - start
    await client.aclose()
    return elapsed


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    lengths = (1, 10, 50)
    print(f"ms per turn (median of {repeats} runs); columns: conversation length in turns")
    print(f"{'provider':<14}" + "".join(f"{n:>10}" for n in lengths))
    for provider in ("scripted", *PROVIDERS):
        row = []
        for n in lengths:
            asyncio.run(one_run(provider, n))  # warm-up: imports, caches
            times = [asyncio.run(one_run(provider, n)) / n * 1000 for _ in range(repeats)]
            row.append(statistics.median(times))
        print(f"{provider:<14}" + "".join(f"{v:>10.2f}" for v in row))


if __name__ == "__main__":
    main()
