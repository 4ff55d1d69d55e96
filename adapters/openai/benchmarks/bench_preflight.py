"""Measure the OpenAI preflight (profile repair + check) per request. Not a test: run it by hand.

    uv run python adapters/openai/benchmarks/bench_preflight.py

For a history of N tool turns (an assistant message with a tool call + its tool result each), the
codec's body is preflighted whole (``start=0``, what the first request of a resumed run pays) and
incrementally (``start`` = the entries checked on the previous turn, what every later turn of a
run pays through ``toolwire.profile.preflight`` with its state). Reports the best of R repeats
in milliseconds.
"""

from __future__ import annotations

import time

from toolwire_openai import OpenAIChatCodec, OpenAIResponsesCodec
from toolwire_openai.profile import OpenAIChatProfile, OpenAIResponsesProfile

from toolwire.adapter import ModelRequest
from toolwire.profile import RequestReport
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
        strict=bool(i % 2),
    )
    for i in range(8)
]
R = 50


def history(turns: int) -> list[Message]:
    msgs = [Message.user("Look things up.")]
    for t in range(turns):
        msgs.append(Message("assistant", [ToolCall(f"call_{t}", f"tool_{t % 8}", {"q": f"item {t}", "n": t})]))
        msgs.append(Message("user", [ToolResult(f"call_{t}", f"result {t} " * 20)]))
    return msgs


def median_ms(fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(R):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1000


def main() -> None:
    for codec, profile, key in (
        (OpenAIChatCodec(), OpenAIChatProfile(), "messages"),
        (OpenAIResponsesCodec(), OpenAIResponsesProfile(), "input"),
    ):
        print(f"{profile.api}:")
        for turns in (1, 10, 50, 200):
            body = codec.encode_request(ModelRequest(model="gpt-4.1", messages=history(turns), tools=TOOLS))
            last = len(body[key]) - 2  # the previous turn checked everything but the newest call and result

            # the codec's body needs no repair, so running the repair on it again and again measures the same work
            def full() -> None:
                profile.check_request(profile.repair_request(body, RequestReport(profile.api)))

            def incremental() -> None:
                profile.check_request(profile.repair_request(body, RequestReport(profile.api), start=last), start=last)

            print(
                f"  {turns:4d} turns ({len(body[key]):4d} entries): full {median_ms(full):7.3f} ms, "
                f"incremental {median_ms(incremental):7.3f} ms"
            )


if __name__ == "__main__":
    main()
