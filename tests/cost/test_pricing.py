"""Cost from genai-prices: hand calculations, recorded responses, unknown models, updates."""

from __future__ import annotations

import json
import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

import toolwire
from toolwire.pricing import Cost, price, run_cost
from toolwire.testing.providers import call
from toolwire.types import Usage

D = Decimal
MTOK = D(1_000_000)


def test_prices_pinned() -> None:
    """The numbers below are the rates of the pinned price data: a new genai-prices must be
    looked at, not absorbed."""
    import genai_prices

    assert genai_prices.__version__ == "0.2.3"


def test_one_response_by_hand_per_vendor() -> None:
    # claude-sonnet-4-5: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million
    c = price(
        Usage(input_tokens=10_000, output_tokens=500, cache_read_tokens=6_000, cache_write_tokens=1_000),
        "anthropic:claude-sonnet-4-5",
    )
    assert c.priced and c.model == "claude-sonnet-4-5"
    assert c.cache_read_usd == D(6_000) * D("0.3") / MTOK
    assert c.cache_write_usd == D(1_000) * D("3.75") / MTOK
    assert c.input_usd == (D(3_000) * 3 + D(6_000) * D("0.3") + D(1_000) * D("3.75")) / MTOK
    assert c.output_usd == D(500) * 15 / MTOK
    assert c.total_usd == c.input_usd + c.output_usd == D("0.02205")
    # gpt-4.1 on Chat: $2 input, $0.50 cached, $8 output
    c = price(Usage(input_tokens=2_000, output_tokens=100, cache_read_tokens=1_024), "openai-chat:gpt-4.1")
    assert c.total_usd == (D(976) * 2 + D(1_024) * D("0.5") + D(100) * 8) / MTOK
    # gemini-2.5-flash: $0.30 input, $2.50 output (thinking included in output)
    c = price(Usage(input_tokens=1_200, output_tokens=750, reasoning_tokens=600), "gemini:gemini-2.5-flash")
    assert c.total_usd == (D(1_200) * D("0.3") + D(750) * D("2.5")) / MTOK == D("0.002235")


def test_a_dated_served_model_is_priced_and_an_unknown_one_is_unpriced_not_free() -> None:
    served = price(Usage(input_tokens=1000, output_tokens=10), "openai:gpt-5", served_model="gpt-5-2025-08-07")
    assert served.priced and served.total_usd == (D(1000) * D("1.25") + D(10) * 10) / MTOK
    unknown = price(
        Usage(input_tokens=1000, output_tokens=10),
        "openai-chat:qwen2.5-0.5b-instruct",
        base_url="http://127.0.0.1:8080/v1",
    )
    assert not unknown.priced and unknown.total_usd is None and unknown.input_usd is None
    assert "qwen2.5-0.5b-instruct" in (unknown.reason or "")
    assert not price(Usage(), "anthropic:claude-sonnet-4-5").priced  # no counts: no price either
    assert not (Cost.zero() + unknown).priced


@toolwire.tool
def read_log() -> str:
    """Read the log. Use it first."""
    return "x" * 3000


@toolwire.tool
def read_conf() -> str:
    """Read the config. Use it first."""
    return "y" * 1000


def test_run_cost_turns_total_and_tool_attribution() -> None:
    m = toolwire.model(
        "scripted:claude-sonnet-4-5",
        responses=[
            {
                "tool_calls": [call("read_log"), call("read_conf")],
                "usage": {"input_tokens": 1_000, "output_tokens": 40},
            },
            {
                "tool_calls": [call("read_conf")],
                "usage": {"input_tokens": 2_040, "output_tokens": 20, "cache_read_tokens": 1_000},
            },
            {"text": "done", "usage": {"input_tokens": 2_310, "output_tokens": 10, "cache_read_tokens": 2_040}},
        ],
    )
    result = toolwire.run_sync(m, "look", tools=[read_log, read_conf])
    rc = run_cost(result)
    rates = (D(3), D("0.3"), D(15))
    turn = [
        (D(1_000) * rates[0] + D(40) * rates[2]) / MTOK,
        (D(1_040) * rates[0] + D(1_000) * rates[1] + D(20) * rates[2]) / MTOK,
        (D(270) * rates[0] + D(2_040) * rates[1] + D(10) * rates[2]) / MTOK,
    ]
    assert [c.total_usd for c in rc.turns] == turn
    assert rc.total.total_usd == sum(turn) == rc.priced_usd
    assert rc.total.cache_read_usd == D(3_040) * rates[1] / MTOK
    # turn 1's results added 2040 - 1000 - 40 = 1000 tokens, split 3:1 by text length; re-sent twice
    log, conf1, conf2 = rc.tool_calls
    assert (log.name, log.tokens, log.requests, conf1.tokens, conf2.tokens) == ("read_log", 750, 2, 250, 250)
    in2 = rc.turns[1].input_usd / D(2_040)
    in3 = rc.turns[2].input_usd / D(2_310)
    assert log.usd == D(750) * in2 + D(750) * in3
    assert conf2.usd == D(250) * in3 and conf2.requests == 1
    assert result.cost == rc


def test_tool_attribution_does_not_subtract_reasoning_tokens() -> None:
    """Reasoning is billed as output but not sent back as input: subtracting it from the next
    request's input gave a tool result 0 tokens (1550 - 1000 - 5000 clamped)."""
    m = toolwire.model(
        "scripted:gpt-5",
        responses=[
            {
                "tool_calls": [call("read_log")],
                "usage": {"input_tokens": 1_000, "output_tokens": 5_000, "reasoning_tokens": 4_950},
            },
            {"text": "done", "usage": {"input_tokens": 1_550, "output_tokens": 10}},
        ],
    )
    (log,) = run_cost(toolwire.run_sync(m, "look", tools=[read_log])).tool_calls
    assert (log.name, log.tokens, log.requests) == ("read_log", 500, 1)  # 1550 - 1000 - (5000 - 4950)


def test_unpriced_model_run_is_reported_unpriced() -> None:
    m = toolwire.model(
        "scripted:my-own-finetune", responses=[{"text": "hi", "usage": {"input_tokens": 5, "output_tokens": 1}}]
    )
    rc = toolwire.run_sync(m, "x").cost
    assert not rc.total.priced and rc.total.total_usd is None and rc.unpriced_turns == 1 and rc.priced_usd == 0


# -- recorded responses ---------------------------------------------------------------------------


def _recorded_responses() -> list[tuple[str, Any]]:
    from toolwire.registry import codec
    from toolwire.stream import assemble
    from toolwire.testing.cassettes import load_cassette, recordings_dir

    root = recordings_dir()
    if root is None:
        pytest.skip("shared/recordings not found")
    out = []
    for path in sorted(root.glob("*/*.yaml")):
        for inter in load_cassette(path):
            if inter.api is None or inter.request_json is None:
                continue
            c = codec(inter.api)
            try:
                if inter.stream_format:
                    chunks = inter.stream_chunks
                    if inter.stream_format == "sse" and inter.api in ("anthropic", "openai"):
                        chunks = [e.data for e in inter.sse_events if isinstance(e.data, dict)]
                    resp = assemble(c.decode_stream(chunks))
                else:
                    resp = c.decode_response(inter.response_json)
            except Exception:
                continue
            out.append((f"{path.parent.name}/{path.name}#{inter.index}", (inter.api, resp)))
    return out


def test_every_recorded_response_is_priced_or_unpriced_by_model() -> None:
    priced = unpriced = 0
    for where, (api, resp) in _recorded_responses():
        c = price(resp.usage, f"{api}:{resp.model}")
        if c.priced:
            priced += 1
            assert c.total_usd is not None and c.total_usd >= 0 and c.total_usd == c.input_usd + c.output_usd, where
        else:
            unpriced += 1
            assert c.total_usd is None, where
    assert priced >= 90 and unpriced <= 10, (priced, unpriced)


@pytest.mark.parametrize(
    "name,rates",
    [
        ("anthropic/pai_mixed_strict_tool_run.yaml#0", (D(3), D(15))),  # claude-sonnet-4-5
        ("openai-chat/pai_instructions_with_tool_calls.yaml#0", (D("0.4"), D("1.6"))),  # gpt-4.1-mini
        ("openai-responses/pai_thinking_with_tool_calls.yaml#0", (D("1.25"), D(10))),  # gpt-5
        ("gemini/pai_model_retry.yaml#0", (D("1.25"), D(10))),  # gemini-2.5-pro
    ],
)
def test_recorded_response_by_hand(name: str, rates: tuple[Decimal, Decimal]) -> None:
    found = dict(_recorded_responses())
    api, resp = found[name]
    u = resp.usage
    c = price(u, f"{api}:{resp.model}")
    assert c.total_usd == (D(u.input_tokens) * rates[0] + D(u.output_tokens) * rates[1]) / MTOK, (u, c)


# -- refreshing the prices without a toolwire release ---------------------------------------------


def test_update_prices_from_a_local_stand_in_for_the_published_data() -> None:
    from genai_prices import data_snapshot

    data = [
        {
            "id": "openai",
            "name": "OpenAI",
            "api_pattern": "https://api\\.openai\\.com",
            "model_match": {"starts_with": "gpt"},
            "models": [
                {"id": "gpt-4.1", "match": {"equals": "gpt-4.1"}, "prices": {"input_mtok": 100, "output_mtok": 200}}
            ],
        }
    ]
    body = json.dumps(data).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    try:
        assert price(usage, "openai:gpt-4.1").total_usd == D(10)  # bundled: $2 + $8
        source = toolwire.pricing.update_prices(f"http://127.0.0.1:{server.server_port}/data.json", timeout=20)
        assert "updated" in source
        assert price(usage, "openai:gpt-4.1").total_usd == D(300)
    finally:
        data_snapshot.set_custom_snapshot(None)  # back to the pinned bundled data for the other tests
        server.shutdown()
    assert price(usage, "openai:gpt-4.1").total_usd == D(10)


def test_update_prices_failure_is_a_configuration_error() -> None:
    import socket

    with socket.socket() as sock:  # a free loopback port, closed again: nothing listens on it
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    with pytest.raises(toolwire.ConfigurationError, match=f"could not update prices from {url}"):
        toolwire.pricing.update_prices(f"{url}data.json", timeout=10)


def test_usage_the_price_data_cannot_take_is_unpriced_not_an_exception() -> None:
    m = "anthropic:claude-sonnet-4-5"
    for usage, reason in [
        (Usage(input_tokens=-5, output_tokens=10), "not whole numbers"),
        (Usage(input_tokens=10, output_tokens=0, cache_read_tokens=1000), "exceed the input tokens"),
        (Usage(input_tokens=None, output_tokens=100), "no input token count"),
        (Usage(input_tokens=100, output_tokens=None), "no output token count"),
    ]:
        c = price(usage, m)
        assert not c.priced and c.total_usd is None and reason in (c.reason or ""), (usage, c)
    assert not price(Usage(input_tokens=1, output_tokens=1), None).priced  # type: ignore[arg-type]
    # a run whose vendor sent a negative count still finishes (a final answer is returned even past
    # a limit), and its cost reads as unpriced instead of raising
    bad = toolwire.model(
        "scripted:claude-sonnet-4-5", responses=[{"text": "done", "usage": {"input_tokens": -5, "output_tokens": 10}}]
    )
    result = toolwire.run_sync(bad, "hi", limits=toolwire.Limits(max_cost_usd=1))
    assert result.text == "done" and not result.cost.total.priced


def test_one_hour_cache_writes_are_priced_at_the_one_hour_rate() -> None:
    """Anthropic bills a 1-hour cache write at twice the input rate ($6 per million on
    claude-sonnet-4-5) and a 5-minute one at 1.25 times ($3.75): the usage keeps the 1-hour part
    (``cache_creation.ephemeral_1h_input_tokens``) and the price uses it."""
    from toolwire_anthropic.codec import usage_from_wire

    wire = {
        "input_tokens": 100,
        "output_tokens": 50,
        "cache_creation_input_tokens": 3_000,
        "cache_creation": {"ephemeral_5m_input_tokens": 1_000, "ephemeral_1h_input_tokens": 2_000},
    }
    usage = usage_from_wire(wire)
    assert (usage.input_tokens, usage.cache_write_tokens, usage.cache_write_1h_tokens) == (3_100, 3_000, 2_000)
    c = price(usage, "anthropic:claude-sonnet-4-5")
    assert c.cache_write_usd == (D(1_000) * D("3.75") + D(2_000) * 6) / MTOK
    assert c.input_usd == (D(100) * 3 + D(1_000) * D("3.75") + D(2_000) * 6) / MTOK
    assert c.total_usd == c.input_usd + D(50) * 15 / MTOK
    # all writes at 5 minutes: the 5-minute rate, as before
    five = price(Usage(input_tokens=3_100, output_tokens=50, cache_write_tokens=3_000), "anthropic:claude-sonnet-4-5")
    assert five.cache_write_usd == D(3_000) * D("3.75") / MTOK
    # summed over turns, the 1-hour part adds up like the other counters
    assert (usage + usage).cache_write_1h_tokens == 4_000
    # a 1-hour part larger than the writes contradicts the usage: unpriced, not guessed
    bad = price(
        Usage(input_tokens=10, output_tokens=1, cache_write_tokens=5, cache_write_1h_tokens=6),
        "anthropic:claude-sonnet-4-5",
    )
    assert not bad.priced and "exceed" in (bad.reason or "")
    # a decoder never reports more 1-hour writes than writes, nor a count of the wrong type
    assert (
        usage_from_wire({**wire, "cache_creation": {"ephemeral_1h_input_tokens": 9_999}}).cache_write_1h_tokens is None
    )
    assert usage_from_wire({**wire, "cache_creation": "x"}).cache_write_1h_tokens is None
