"""Load: 500 concurrent three-turn runs per API against a loopback HTTP server, through the real
SDKs over real sockets. Each run's prompt names the run; the server puts that name into the tool
calls it asks for, so a result that crossed runs would show. Bounded in time (a generous
``wait_for``); wall time and peak memory (``resource.getrusage`` maximum resident set size) are
printed, never asserted."""

from __future__ import annotations

import asyncio
import json
import re
import resource
import sys
import time
from typing import Any

import pytest
from reliability_wire import APIS, Loopback, model, text_body, tool_body, tool_results_in

import toolwire

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

RUNS = 500
TURNS = 3  # two turns asking for a tool, then the answer
BOUND_SECONDS = 600


def first_user_text(api: str, body: dict[str, Any]) -> str:
    if api == "anthropic":
        c = body["messages"][0]["content"]
    elif api == "openai-chat":
        c = body["messages"][0]["content"]
    elif api == "openai":
        c = body["input"][0]["content"]
    else:
        c = body["contents"][0]["parts"][0]["text"]
    if isinstance(c, list):
        c = " ".join(p.get("text", "") for p in c if isinstance(p, dict))
    return c


def handler(api: str):
    def respond(method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, str, bytes]:
        body = json.loads(raw)
        name = re.search(r"run-\d+", first_user_text(api, body)).group(0)
        n = tool_results_in(api, body)
        if n < TURNS - 1:
            out = tool_body(api, [(f"call_{n}", "stamp", {"run": name, "step": n})], n)
        else:
            out = text_body(api, f"finished {name}", n)
        return 200, "application/json", json.dumps(out).encode()

    return respond


@toolwire.tool
async def stamp(run: str, step: int) -> str:
    """Stamp a step of a run. Use when asked to stamp."""
    await asyncio.sleep(0)
    return f"{run}:{step}"


def peak_rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


@pytest.mark.parametrize("api", APIS)
def test_500_concurrent_multi_turn_runs(api):
    with Loopback(handler(api)) as srv:
        m = model(api, srv.url, timeout=300)  # the server shares this process: connects wait for it

        async def main() -> list[Any]:
            runs = [toolwire.run(m, f"stamp twice for run-{i}", tools=[stamp]) for i in range(RUNS)]
            return await asyncio.wait_for(asyncio.gather(*runs, return_exceptions=True), BOUND_SECONDS)

        before = peak_rss_mib()
        start = time.perf_counter()
        results = asyncio.run(main())
        wall = time.perf_counter() - start
        requests, connections = srv.requests, srv.peak_connections
    errors = [r for r in results if isinstance(r, BaseException)]
    assert errors == []
    for i, r in enumerate(results):
        assert r.text == f"finished run-{i}"
        assert [tr.result.text for tr in r.tool_runs] == [f"run-{i}:0", f"run-{i}:1"]
        assert len(r.turns) == TURNS
    assert requests == RUNS * TURNS
    print(
        f"\nload {api}: {RUNS} concurrent runs x {TURNS} turns = {requests} requests in {wall:.1f} s wall "
        f"({requests / wall:.0f} requests/s), peak {connections} open connections, "
        f"peak RSS {peak_rss_mib():.0f} MiB (was {before:.0f} MiB before)"
    )
