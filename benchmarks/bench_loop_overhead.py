"""toolwire's own cost per turn of the shared loop, per provider. Not a test: run it by hand.

    uv run python benchmarks/bench_loop_overhead.py [repeats] [--cpu]

A scripted vendor (an ``httpx2.MockTransport`` answering instantly in each API's wire format,
the canned answers of ``benchmarks/suite.py``) asks for one tool call per turn for N turns, then
answers with text. The tool returns at once. What is timed is everything toolwire and the vendor
SDK do per turn: building the request from the growing conversation, encoding it, preflight, the
SDK's request/response handling, decoding, validating arguments, running the tool and appending
the result; one model (and SDK client) per provider serves every run, as an application keeps
it, so building the SDK's client is not timed. Reported: the median over R runs of (total run time / turns), in milliseconds, at
several conversation lengths, plus the ``scripted`` provider (no SDK, no HTTP) as the floor of
the loop itself. ``benchmarks/suite.py`` is the standing benchmark with ratios; this script is
the quick per-turn view. toolwire runs as a user gets it (its default retry policy on), as in
the suite; ``--cpu`` times CPU time instead of wall time (a loaded machine).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

try:
    import httpx2
except ModuleNotFoundError as exc:  # not the project's environment (python3 instead of uv run)
    sys.exit(f"{exc}: run it in the project's environment: uv run python benchmarks/bench_loop_overhead.py")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from suite import ANSWERS, MODELS, Canned, lookup

import toolwire
from toolwire.testing import ScriptedModel, call

#: wall time, or the process's CPU time with ``--cpu``
CLOCK = time.perf_counter


async def one_run(provider: str, turns: int, models: dict[str, Any]) -> float:
    if provider == "scripted":
        m = ScriptedModel(responses=[[call("lookup", {"q": f"step {t}"})] for t in range(turns - 1)] + ["done"])
        start = CLOCK()
        await toolwire.run(m, "go", tools=[lookup], max_turns=turns)
        return CLOCK() - start
    # one model (and SDK client) per provider for all runs, as an application keeps it: what is
    # timed is the run, not building the vendor SDK's client (tens of milliseconds for some)
    hit = models.get(provider)
    if hit is None:
        canned = Canned(provider)
        client = httpx2.AsyncClient(transport=canned.transport)
        hit = models[provider] = (
            canned,
            toolwire.model(f"{provider}:{MODELS[provider]}", api_key="bench", http_client=client),
        )
    canned, m = hit
    canned.reset(turns)
    start = CLOCK()
    await toolwire.run(m, "go", tools=[lookup], max_turns=turns)
    return CLOCK() - start


async def measure(repeats: int, lengths: tuple[int, ...]) -> None:
    models: dict[str, Any] = {}
    for provider in ("scripted", *ANSWERS):
        row = []
        for n in lengths:
            await one_run(provider, n, models)  # warm-up: imports, caches, the SDK client
            times = [await one_run(provider, n, models) / n * 1000 for _ in range(repeats)]
            row.append(statistics.median(times))
        print(f"{provider:<14}" + "".join(f"{v:>10.2f}" for v in row))


def main(argv: list[str] | None = None) -> None:
    global CLOCK
    import argparse

    parser = argparse.ArgumentParser(
        prog="uv run python benchmarks/bench_loop_overhead.py",
        description="toolwire's own cost per turn of the shared loop, per provider (ms per turn).",
    )
    parser.add_argument("repeats", nargs="?", default="5", help="runs per figure, their median is shown (default 5)")
    parser.add_argument("--cpu", action="store_true", help="CPU time of the process instead of wall time")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        repeats = int(args.repeats)
    except ValueError:
        parser.error(f"repeats takes a whole number of runs, such as 5 (got {args.repeats!r})")
    if repeats < 1:
        parser.error("repeats takes at least 1 run")
    if args.cpu:
        CLOCK = time.process_time
    lengths = (1, 10, 50)
    clock = "CPU time" if args.cpu else "wall time"
    print(
        f"ms per turn ({clock}, median of {repeats} run{'s' if repeats != 1 else ''}); columns: conversation length in turns"
    )
    print(f"{'provider':<14}" + "".join(f"{n:>10}" for n in lengths))
    asyncio.run(measure(repeats, lengths))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
