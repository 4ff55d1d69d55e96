"""Measure what the Anthropic preflight costs per request (not a test; no network):

    uv run python adapters/anthropic/benchmarks/bench_profile.py [--turns 200] [--repeat 30]

For a history of N tool-calling turns (each with a signed thinking block, as a thinking model
returns them) encoded by the codec it times, median over --repeat runs:

- ``encode``: ``AnthropicCodec.encode_request``, for comparison;
- ``repair``: ``AnthropicProfile.repair_request`` on the whole body (done every turn: repairs are
  deterministic, so the prefix is repaired the same way each time);
- ``check full``: ``check_request(body, start=0)``;
- ``check new``: ``check_request(body, start=len(messages) - 2)``, what the incremental preflight
  checks on the next turn;
- ``preflight``: ``toolwire.profile.preflight`` with a state that already holds the history
  before the last turn (repair + incremental check, as on every turn of a run).
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

from toolwire_anthropic import AnthropicCodec
from toolwire_anthropic.profile import AnthropicProfile

from toolwire.adapter import ModelRequest
from toolwire.profile import PreflightState, RequestReport, preflight
from toolwire.tools import Tool
from toolwire.types import Message, ReasoningPart, TextPart, ToolCall, ToolResult

SIG = "EqEECkYICxgCKkAo3UA4WwDbB8ihhpykVCsPx6iMzwNTNP8dePIgYjNpu2EWrt5JbApWWONEZaf5w46939Vu1SDU1//mDyr2/Vw+Egz"


def history(turns: int) -> ModelRequest:
    tool = Tool.from_schema(
        "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    )
    msgs = [Message.user("Plan a trip.")]
    for i in range(turns):
        msgs.append(
            Message(
                "assistant",
                [
                    ReasoningPart(text=f"step {i}", signature=SIG, provider="anthropic"),
                    TextPart("Checking."),
                    ToolCall(f"toolu_{i:04d}", "get_weather", {"city": f"City {i}"}),
                ],
            )
        )
        msgs.append(Message("user", [ToolResult(f"toolu_{i:04d}", f"{i} C, sunny")]))
    return ModelRequest(
        model="claude-sonnet-4-5",
        messages=msgs,
        tools=[tool],
        thinking={"type": "enabled", "budget_tokens": 2048},
        max_tokens=8192,
    )


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
    codec, profile = AnthropicCodec(), AnthropicProfile(model="claude-sonnet-4-5")
    request = history(args.turns)
    body = codec.encode_request(request)
    n = len(body["messages"])
    assert profile.check_request(body) == []
    checked = copy.deepcopy(body["messages"][:-2])  # what the state holds after the previous turn

    def warm_preflight() -> None:
        s = PreflightState()
        s.checked = list(checked)
        preflight(profile, copy.deepcopy(body), state=s)

    deep = median_ms(lambda: copy.deepcopy(body), args.repeat)
    rows = [
        ("encode", median_ms(lambda: codec.encode_request(request), args.repeat)),
        (
            "repair",
            median_ms(lambda: profile.repair_request(copy.deepcopy(body), RequestReport("anthropic")), args.repeat)
            - deep,
        ),
        ("check full", median_ms(lambda: profile.check_request(body), args.repeat)),
        ("check new", median_ms(lambda: profile.check_request(body, start=n - 2), args.repeat)),
        ("preflight", median_ms(warm_preflight, args.repeat) - deep),
    ]
    print(
        f"{args.turns} tool-calling turns ({n} messages), median of {args.repeat} (deep copies of the body subtracted):"
    )
    for name, ms in rows:
        print(f"  {name:<11} {ms:8.2f} ms")


if __name__ == "__main__":
    main()
