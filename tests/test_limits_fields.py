"""Every field of ``Limits`` is checked for its type and range when the limits are made (and again
when a run starts, for a field set afterwards): a ``ConfigurationError`` names the field, what it
got and what to write."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest

import toolwire
from toolwire import ConfigurationError, Limits
from toolwire.testing.providers import call


@pytest.mark.parametrize(
    "field, value, message",
    [
        (
            "max_cost_usd",
            "1",
            "Limits.max_cost_usd must be a number of US dollars ≥ 0 (an int, a float or a Decimal) or None, "
            "got str '1'; write e.g. Limits(max_cost_usd=0.5)",
        ),
        (
            "max_cost_usd",
            True,
            "Limits.max_cost_usd must be a number of US dollars ≥ 0 (an int, a float or a Decimal) or None, "
            "got bool True; write e.g. Limits(max_cost_usd=0.5)",
        ),
        (
            "max_cost_usd",
            math.nan,
            "Limits.max_cost_usd must be a number of US dollars ≥ 0 (finite) or None, got nan; "
            "write e.g. Limits(max_cost_usd=0.5)",
        ),
        (
            "max_cost_usd",
            Decimal("-0.01"),
            "Limits.max_cost_usd must be a number of US dollars ≥ 0 (finite) or None, got Decimal('-0.01'); "
            "write e.g. Limits(max_cost_usd=0.5)",
        ),
        (
            "max_cost_usd",
            Decimal("Infinity"),
            "Limits.max_cost_usd must be a number of US dollars ≥ 0 (finite) or None, got Decimal('Infinity'); "
            "write e.g. Limits(max_cost_usd=0.5)",
        ),
        (
            "max_tool_calls",
            "5",
            "Limits.max_tool_calls must be a whole number ≥ 0 or None, got str '5'; write e.g. Limits(max_tool_calls=50)",
        ),
        (
            "max_total_tokens",
            True,
            "Limits.max_total_tokens must be a whole number ≥ 0 or None, got bool True; "
            "write e.g. Limits(max_total_tokens=200000)",
        ),
        (
            "max_input_tokens",
            1.5,
            "Limits.max_input_tokens must be a whole number ≥ 0 or None, got float 1.5; "
            "write e.g. Limits(max_input_tokens=200000)",
        ),
        (
            "max_output_tokens",
            -1,
            "Limits.max_output_tokens must be a whole number ≥ 0 or None, got int -1; "
            "write e.g. Limits(max_output_tokens=200000)",
        ),
        (
            "tool_timeout",
            "30",
            "Limits.tool_timeout must be a number of seconds > 0 or None, got str '30'; write e.g. Limits(tool_timeout=30.0)",
        ),
        (
            "max_concurrent_tools",
            None,
            "Limits.max_concurrent_tools must be a whole number ≥ 1, got NoneType None; "
            "write e.g. Limits(max_concurrent_tools=16)",
        ),
        (
            "max_calls_per_tool",
            {1: 2},
            "Limits.max_calls_per_tool must map tool names (text) to whole numbers ≥ 0, got the key int 1; "
            'write e.g. Limits(max_calls_per_tool={"web_search": 5})',
        ),
        (
            "max_calls_per_tool",
            {"web_search": "5"},
            "Limits.max_calls_per_tool['web_search'] must be a whole number ≥ 0, got str '5'; "
            'write e.g. Limits(max_calls_per_tool={"web_search": 5})',
        ),
    ],
)
def test_a_bad_field_is_refused_naming_it_and_what_to_write(field: str, value: Any, message: str) -> None:
    """``Limits(max_cost_usd="1")`` was accepted (a string read as a number of dollars), and a
    tool-name key that is not text was reported as a bad count."""
    with pytest.raises(ConfigurationError) as info:
        Limits(**{field: value})
    assert str(info.value) == message
    with pytest.raises(ConfigurationError) as info:  # the same through run(limits={...})
        toolwire.run_sync(toolwire.model("scripted", responses=["done"]), "go", limits={field: value})
    assert str(info.value) == message


def test_good_values_are_kept() -> None:
    limits = Limits(
        max_cost_usd=Decimal("0.25"),
        max_tool_calls=0,
        max_total_tokens=10**12,
        tool_timeout=math.inf,
        max_concurrent_tools=1,
        max_calls_per_tool={"ping": 0},
    )
    assert (limits.max_cost_usd, limits.max_tool_calls, limits.tool_timeout) == (Decimal("0.25"), 0, math.inf)
    assert Limits(max_cost_usd=2).max_cost_usd == 2 and Limits(max_cost_usd=0.5).max_cost_usd == 0.5


def test_a_field_set_after_the_limits_were_made_is_checked_when_the_run_starts() -> None:
    """``limits.max_tool_calls = "5"`` after ``Limits()`` reached the loop unchecked."""
    ran: list[int] = []

    @toolwire.tool
    def ping() -> str:
        """Ping."""
        ran.append(1)
        return "pong"

    limits = Limits()
    limits.max_cost_usd = "1"  # type: ignore[assignment]
    model = toolwire.model("scripted", responses=[[call("ping", {})], "done"])
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(model, "go", tools=[ping], limits=limits)
    assert str(info.value).startswith("Limits.max_cost_usd must be a number of US dollars ≥ 0")
    assert ran == []


def test_to_dict_is_json_ready_and_from_dict_gives_the_same_limits() -> None:
    """``Limits.to_dict()`` held a ``Decimal`` ``max_cost_usd`` as it was, so ``json.dumps`` failed
    on it; and there was no way back from the dict to the same limits."""
    import json

    limits = Limits(max_cost_usd=Decimal("0.10"), max_tool_calls=5, max_calls_per_tool={"ping": 2}, tool_timeout=30.0)
    d = json.loads(json.dumps(limits.to_dict(), allow_nan=False))
    assert d["max_cost_usd"] == "0.10"  # the exact decimal text, as the cost reports write dollars
    loaded = Limits.from_dict(d)
    assert loaded == limits
    assert type(loaded.max_cost_usd) is Decimal and str(loaded.max_cost_usd) == "0.10"
    for cost in (0.5, 2, None):  # numbers stay numbers: the constructor and run(limits=...) take them too
        plain = Limits(max_cost_usd=cost, max_total_tokens=1000)
        d = json.loads(json.dumps(plain.to_dict(), allow_nan=False))
        assert Limits.from_dict(d) == plain == Limits(**d)


def test_to_dict_does_not_share_max_calls_per_tool() -> None:
    limits = Limits(max_calls_per_tool={"ping": 2})
    limits.to_dict()["max_calls_per_tool"]["ping"] = 99
    assert limits.max_calls_per_tool == {"ping": 2}


@pytest.mark.parametrize(
    ("d", "message"),
    [
        ([], "Limits.from_dict takes an object of Limits fields (what Limits.to_dict() writes), got list"),
        (
            {"max_cost_usd": "lots"},
            "Limits.max_cost_usd must be a number of US dollars ≥ 0 (in a saved dict, a number or a decimal string "
            "such as \"0.5\") or null, got str 'lots'",
        ),
        (
            {"max_cost_usd": "-1"},
            "Limits.max_cost_usd must be a number of US dollars ≥ 0 (finite) or None, got Decimal('-1'); "
            "write e.g. Limits(max_cost_usd=0.5)",
        ),
        ({"max_tool_calls": "5"}, "Limits.max_tool_calls must be a whole number ≥ 0 or None, got str '5'"),
        ({1: 2}, "Limits has no field 1: the fields are named by text"),
        ({"max_tokens": 5}, "Limits has no field 'max_tokens'."),
    ],
)
def test_from_dict_refuses_a_bad_saved_dict_naming_the_field(d: Any, message: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        Limits.from_dict(d)
    assert str(info.value).startswith(message), str(info.value)
