"""The cost limit in Limits and the cost shown by ``toolwire run``."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

import toolwire
from toolwire.errors import ConfigurationError, UsageLimitExceeded
from toolwire.testing.providers import call


@toolwire.tool
def ping() -> str:
    """Ping. Use it to check."""
    return "pong"


def _script(n: int) -> list:
    return [
        {"tool_calls": [call("ping")], "usage": {"input_tokens": 100_000, "output_tokens": 1_000}} for _ in range(n)
    ] + [{"text": "done", "usage": {"input_tokens": 100_000, "output_tokens": 10}}]


def test_cost_limit_stops_the_run_after_the_response_that_passes_it() -> None:
    # claude-sonnet-4-5: 100k in + 1k out = $0.30 + $0.015 = $0.315 per turn
    m = toolwire.model("scripted:claude-sonnet-4-5", responses=_script(5))
    with pytest.raises(UsageLimitExceeded) as info:
        toolwire.run_sync(m, "go", tools=[ping], limits=toolwire.Limits(max_cost_usd=0.5))
    result = info.value.result
    assert len(result.turns) == 2 and result.stop_reason == "usage_limit"
    assert str(info.value) == (
        "usage limit reached: cost $0.630000 exceeded the limit of $0.5 (Limits.max_cost_usd); to go on, continue "
        "the run with run(model, tools=..., conversation=exc.conversation) and a higher Limits.max_cost_usd if it "
        "needs more"
    )
    assert result.cost.total.total_usd == Decimal("0.63")
    # the conversation stays valid: the second turn's call was answered without running
    assert [r.result.is_error for r in result.tool_runs] == [False, True]


def test_cost_limit_not_reached_and_unpriced_models_are_stopped_not_run_unpriced() -> None:
    m = toolwire.model("scripted:claude-sonnet-4-5", responses=_script(1))
    assert toolwire.run_sync(m, "go", tools=[ping], limits={"max_cost_usd": 5}).text == "done"
    m = toolwire.model("scripted:my-own-model", responses=_script(3))
    with pytest.raises(
        UsageLimitExceeded, match="cost limit of \\$5 cannot be checked: the price data has no model 'my-own-model'"
    ):
        toolwire.run_sync(m, "go", tools=[ping], limits={"max_cost_usd": 5})
    for bad in (-1, "x", True, float("nan")):
        with pytest.raises(ConfigurationError, match="Limits.max_cost_usd must be a number of US dollars"):
            toolwire.Limits(max_cost_usd=bad)


def test_toolwire_run_shows_the_cost(tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(
        'import toolwire\n\n@toolwire.tool\ndef ping() -> str:\n    """Ping. Use it to check."""\n    return \'pong\'\n'
    )
    out = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "run", "--model", "test", "--tools", str(tools), "--json", "ping"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["cost"]["total"] == {
        "priced": False,
        "input_usd": None,
        "output_usd": None,
        "cache_read_usd": None,
        "cache_write_usd": None,
        "total_usd": None,
        "model": None,
        "reason": "the offline 'test' provider has no price",
    }
    text = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "run", "--model", "test", "--tools", str(tools), "ping"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert text.returncode == 0, text.stderr
    assert "cost unpriced" in text.stdout


def test_the_bare_scripted_provider_under_a_cost_limit_says_how_to_price_it_offline() -> None:
    # docs/cost.md: a scripted model named after a vendor model is priced as that model. The
    # bare 'scripted' provider's "has no price" now says so, which is what an offline test of
    # max_cost_usd needs next.
    m = toolwire.model("scripted", responses=_script(1))
    with pytest.raises(UsageLimitExceeded) as info:
        toolwire.run_sync(m, "go", tools=[ping], limits=toolwire.Limits(max_cost_usd=0.5))
    assert "the offline 'scripted' provider has no price" in str(info.value)
    assert "'scripted:claude-sonnet-4-5'" in str(info.value)
    reason = toolwire.pricing.price(toolwire.Usage(input_tokens=1, output_tokens=1), "scripted").reason
    assert reason is not None and "scripted:claude-sonnet-4-5" in reason
