"""A function whose ``__signature__`` carries the annotations (a wrapper, a generated function)
gets its input schema from the signature; the scripted model's "no response left" error says
what to add."""

from __future__ import annotations

import asyncio
import functools
import inspect

import pytest

import toolwire
from toolwire import Tool
from toolwire.errors import ConfigurationError, ToolDefinitionError


def _with_signature(fn, *params: inspect.Parameter):
    fn.__signature__ = inspect.Signature(list(params))
    return fn


def test_annotations_carried_by_the_signature_make_the_input_schema() -> None:
    def count(n):
        """Count to n."""
        return list(range(n))

    _with_signature(count, inspect.Parameter("n", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=int))
    assert Tool.from_function(count).input_schema == {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }

    def total(values):
        """Sum values."""
        return sum(values)

    _with_signature(total, inspect.Parameter("values", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="list[int]"))
    assert Tool.from_function(total).input_schema["properties"] == {
        "values": {"type": "array", "items": {"type": "integer"}}
    }


def test_a_wrapper_keeps_the_wrapped_function_annotations() -> None:
    def base(city: str, days: int = 1) -> str:
        """Forecast."""
        return f"{city} {days}"

    @functools.wraps(base)
    def wrapper(*args, **kwargs):
        return base(*args, **kwargs)

    del wrapper.__annotations__  # only inspect.signature (following __wrapped__) still sees them
    schema = Tool.from_function(wrapper).input_schema
    assert schema["properties"] == {"city": {"type": "string"}, "days": {"type": "integer", "default": 1}}
    assert schema["required"] == ["city"]


def test_no_hint_anywhere_says_what_was_looked_at() -> None:
    def f(x):
        """F."""

    with pytest.raises(ToolDefinitionError) as info:
        Tool.from_function(f)
    assert str(info.value) == (
        "tool 'f': parameter 'x' has no type hint (neither the function's __annotations__ nor its signature, "
        "inspect.signature(), which follows __signature__, carry one); add one so the input schema can say what "
        "to send"
    )


def test_a_script_that_runs_out_says_to_end_with_a_final_text_answer() -> None:
    @toolwire.tool
    def ping() -> str:
        """Ping."""
        return "pong"

    model = toolwire.model("scripted", responses=[toolwire.ToolCall("", "ping", {})])
    with pytest.raises(ConfigurationError) as info:
        asyncio.run(toolwire.run(model, "go", tools=[ping]))
    assert str(info.value) == (
        "scripted model has no response left for request 2 (the script has 1): each request takes the next "
        "item, and a run ends only on a response without tool calls, so end the script with a final text "
        'answer (e.g. "done") or add one item per extra request'
    )
