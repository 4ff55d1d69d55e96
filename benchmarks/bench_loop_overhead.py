"""toolwire's own cost per turn of the shared loop, per provider. Not a test: run it by hand.

    uv run python benchmarks/bench_loop_overhead.py [repeats]

A scripted vendor (an ``httpx2.MockTransport`` answering instantly in each API's wire format,
the canned answers of ``benchmarks/suite.py``) asks for one tool call per turn for N turns, then
answers with text. The tool returns at once. What is timed is everything toolwire and the vendor
SDK do per turn: building the request from the growing conversation, encoding it, preflight, the
SDK's request/response handling, decoding, validating arguments, running the tool and appending
the result. Reported: the median over R runs of (total run time / turns), in milliseconds, at
several conversation lengths, plus the ``scripted`` provider (no SDK, no HTTP) as the floor of
the loop itself. ``benchmarks/suite.py`` is the standing benchmark with ratios; this script is
the quick per-turn view.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))

from suite import ANSWERS, MODELS, lookup, transport_for

import toolwire
from toolwire.testing import ScriptedModel, call


async def one_run(provider: str, turns: int) -> float:
    if provider == "scripted":
        m = ScriptedModel(responses=[[call("lookup", {"q": f"step {t}"})] for t in range(turns - 1)] + ["done"])
        start = time.perf_counter()
        await toolwire.run(m, "go", tools=[lookup], max_turns=turns)
        return time.perf_counter() - start
    client = httpx2.AsyncClient(transport=transport_for(provider, turns))
    m = toolwire.model(f"{provider}:{MODELS[provider]}", api_key="bench", http_client=client, max_retries=0)
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
    for provider in ("scripted", *ANSWERS):
        row = []
        for n in lengths:
            asyncio.run(one_run(provider, n))  # warm-up: imports, caches
            times = [asyncio.run(one_run(provider, n)) / n * 1000 for _ in range(repeats)]
            row.append(statistics.median(times))
        print(f"{provider:<14}" + "".join(f"{v:>10.2f}" for v in row))


if __name__ == "__main__":
    main()
