"""Messages a new user met that named the problem but not the next step (each test failed on the
code before its fix): a misspelt tool name in ``approval=``, ``deferred=``, a named
``tool_choice`` and ``Limits.max_calls_per_tool`` now gets the closest tool names."""

from __future__ import annotations

from typing import Any

import pytest

import toolwire
from toolwire.errors import ConfigurationError


@toolwire.tool
def refund(order: str) -> str:
    """Refund an order."""
    return "refunded"


@toolwire.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"approval": {"refnd"}},
            "approval names 'refnd', which is not among the tools: ['add', 'refund']. Did you mean 'refund'?",
        ),
        (
            {"deferred": ["refnd"]},
            "deferred names 'refnd', which is not among the tools: ['add', 'refund']. Did you mean 'refund'?",
        ),
        (
            {"tool_choice": {"type": "tool", "name": "refnd"}},
            "tool_choice names 'refnd', which is not among the tools: ['add', 'refund']. Did you mean 'refund'?",
        ),
        (
            {"limits": toolwire.Limits(max_calls_per_tool={"ad": 1})},
            "Limits.max_calls_per_tool names 'ad', which is not among the tools: ['add', 'refund']. "
            "Did you mean 'add'?",
        ),
    ],
)
def test_a_misspelt_tool_name_in_a_setting_gets_the_closest_names(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync("test", "hi", tools=[refund, add], **kwargs)
    assert str(info.value) == message


def test_a_tool_name_close_to_none_gets_only_the_list() -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync("test", "hi", tools=[refund, add], approval={"weather"})
    assert str(info.value) == "approval names 'weather', which is not among the tools: ['add', 'refund']"
