"""A scripted answer's ``usage``: the counts a token limit reads. A misspelt or foreign counter
name or a count that is not a whole number is a ConfigurationError naming the item and what to
write (it was dropped silently, or a bare TypeError); a negative count (a vendor that sent one)
stops a token-limited run as unchecked (it was summed and let a run pass its limit); a usage that
gives some counts but not the one a limit needs says which is missing."""

from __future__ import annotations

from typing import Any

import pytest

import toolwire
from toolwire.errors import ConfigurationError, UsageLimitExceeded
from toolwire.testing import call


@toolwire.tool
def echo(x: int) -> int:
    """Echo x."""
    return x


def _run(usage: dict[str, Any], limit: int = 100) -> Any:
    model = toolwire.model("scripted", responses=[{"tool_calls": [call("echo", {"x": 1})], "usage": usage}, "done"])
    return toolwire.run_sync(model, "go", tools=[echo], limits=toolwire.Limits(max_total_tokens=limit))


@pytest.mark.parametrize(
    ("usage", "message"),
    [
        (
            {"input_token": 5, "output_tokens": 5},
            "scripted item 1: usage has no counter 'input_token'. Did you mean 'input_tokens'",
        ),
        (
            {"prompt_tokens": 5, "completion_tokens": 5},
            "scripted item 1: usage has no counter 'prompt_tokens'",
        ),
    ],
)
def test_a_usage_counter_that_is_not_one_is_refused_with_the_names(usage: dict[str, Any], message: str) -> None:
    """The unknown counter was dropped: the run then stopped saying the answer 'carries no usage'."""
    with pytest.raises(ConfigurationError) as info:
        _run(usage)
    text = str(info.value)
    assert text.startswith(message), text
    assert "input_tokens, output_tokens, cache_read_tokens" in text


@pytest.mark.parametrize("count", ["5", 5.0, True])
def test_a_usage_count_that_is_not_a_whole_number_is_a_configuration_error(count: Any) -> None:
    """It was Usage.from_dict's bare TypeError, raised out of the run."""
    with pytest.raises(ConfigurationError) as info:
        _run({"input_tokens": count, "output_tokens": 5})
    assert str(info.value).startswith(
        f"scripted item 1: usage: input_tokens must be a whole number of tokens or null, got {count!r}"
    ), str(info.value)


def test_a_negative_count_stops_a_token_limited_run_as_unchecked() -> None:
    """-500 was summed, so a run with max_total_tokens=100 went on past 300 tokens. A scripted
    answer may carry it (it stands for a vendor that sent one); the token limit cannot be checked
    on it, as on a missing count."""
    with pytest.raises(UsageLimitExceeded) as info:
        _run({"input_tokens": -500, "output_tokens": 5})
    assert "max_total_tokens=100 cannot be checked: the response reported a negative input token count (-500)" in str(
        info.value
    )


def test_a_usage_without_the_count_a_limit_needs_names_the_missing_counter() -> None:
    """It said 'the scripted answer carries no usage: give it one', of an answer that has one."""
    with pytest.raises(UsageLimitExceeded) as info:
        _run({"input_tokens": 10})
    text = str(info.value)
    assert "reported no output token count (the scripted answer's usage has no 'output_tokens'" in text, text
    assert "carries no usage" not in text


def test_a_scripted_usage_with_every_count_runs_as_before() -> None:
    result = _run({"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 0, "requests": 3})
    assert result.text == "done" and result.usage.total_tokens == 15
