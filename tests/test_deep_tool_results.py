"""A tool returning a value nested past the interpreter's recursion limit (no JSON and no ``str()``
can be made of it) answers its call with an ``is_error`` result that says so; the run goes on. A
value nested a few hundred levels is written as JSON text, as any other value."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire.testing import ScriptedModel, call
from toolwire.types import ToolResult


def _nested(kind: str, depth: int) -> Any:
    v: Any = [] if kind == "list" else {}
    for _ in range(depth):
        v = [v] if kind == "list" else {"a": v}
    return v


def _result(value: Any) -> tuple[ToolResult, str | None]:
    def produce(q: str) -> object:
        """Produce the value."""
        return value

    model = ScriptedModel(responses=[[call("produce", {"q": "x"})], "done"])
    run = toolwire.run_sync(model, "go", tools=[produce], max_turns=2)
    (result,) = [p for m in run.conversation.messages for p in m.parts if isinstance(p, ToolResult)]
    return result, run.text


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_a_value_nested_past_the_recursion_limit_is_an_error_result_that_says_so(kind: str) -> None:
    result, output = _result(_nested(kind, 5000))
    assert result.is_error
    text = result.content if isinstance(result.content, str) else ""
    assert "nested too deeply" in text and "flatter value" in text
    assert "RecursionError" not in text
    assert output == "done"


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_a_value_nested_a_few_hundred_levels_is_json_text(kind: str) -> None:
    value = _nested(kind, 300)
    result, output = _result(value)
    assert not result.is_error
    assert isinstance(result.content, str) and json.loads(result.content) == value
    assert output == "done"
