"""Measure what the Gemini preflight costs per request (not a test; no network):

    uv run python adapters/gemini/benchmarks/bench_profile.py [--turns 200] [--repeat 30]

For a history of N tool-calling turns encoded by the codec it times, median over --repeat runs:

- ``repair``: ``GeminiProfile.repair_request`` on the whole body (done every turn: repairs are
  deterministic, so the prefix is repaired the same way each time);
- ``check full``: ``check_request(body, start=0)``;
- ``check new``: ``check_request(body, start=len(contents) - 2)`` — what an incremental preflight
  checks on the next turn;
- ``encode``: ``GeminiCodec.encode_request`` for comparison.
"""

from __future__ import annotations

import argparse
import statistics
import time

from toolwire_gemini import GeminiCodec
from toolwire_gemini.profile import GeminiProfile

from toolwire.adapter import ModelRequest
from toolwire.profile import RequestReport
from toolwire.tools import Tool
from toolwire.types import Message, ToolCall, ToolResult

SIG = "Es0DCsoDAQw51sf4ceGEX2Y8/rpMeG6cdLuYkNMby8I4y/ZkN+Vblkw8fRaWFN9Jf682+NRuWI5DKFLlNOsiNIapxOgU"


def history(turns: int) -> ModelRequest:
    tool = Tool.from_schema(
        "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    )
    msgs = [Message.user("Plan a trip.")]
    for i in range(turns):
        call = ToolCall(
            f"c{i}", "get_weather", {"city": f"City {i}"}, provider_data={"gemini": {"thoughtSignature": SIG}}
        )
        msgs.append(Message("assistant", [call], {"gemini": {}}))
        msgs.append(Message("user", [ToolResult(f"c{i}", f"{i} C, sunny", name="get_weather")]))
    return ModelRequest(model="gemini-3-flash-preview", messages=msgs, tools=[tool])


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    codec, profile = GeminiCodec(), GeminiProfile(model="gemini-3-flash-preview")
    request = history(args.turns)
    body = codec.encode_request(request)
    n = len(body["contents"])
    assert profile.check_request(body) == []
    rows = [
        ("encode", median_ms(lambda: codec.encode_request(request), args.repeat)),
        ("repair", median_ms(lambda: profile.repair_request(body, RequestReport("gemini")), args.repeat)),
        ("check full", median_ms(lambda: profile.check_request(body), args.repeat)),
        ("check new", median_ms(lambda: profile.check_request(body, start=n - 2), args.repeat)),
    ]
    print(f"{args.turns} tool-calling turns ({n} contents), median of {args.repeat}:")
    for name, ms in rows:
        print(f"  {name:<11} {ms:8.2f} ms")


if __name__ == "__main__":
    main()
