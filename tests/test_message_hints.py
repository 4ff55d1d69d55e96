"""Messages a new user met that named the problem but not the next step (each test failed on the
code before its fix): a misspelt tool name in ``approval=``, ``deferred=``, a named
``tool_choice`` and ``Limits.max_calls_per_tool`` now gets the closest tool names; a keyword
``Limits`` does not have (``max_tokens=``) is a ``ConfigurationError`` naming the closest fields
and all of them, where it was Python's bare ``TypeError``."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
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


_FIELDS = (
    "Its fields: max_tool_calls, max_input_tokens, max_output_tokens, max_total_tokens, tool_timeout, "
    "max_concurrent_tools, max_calls_per_tool, max_cost_usd."
)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"max_tokens": 5},
            "Limits has no field 'max_tokens'. Did you mean 'max_input_tokens', 'max_total_tokens' or "
            "'max_output_tokens'? The output tokens of one response are a model setting: "
            "toolwire.model('provider:model-id', max_tokens=1024); Limits bound the whole run. " + _FIELDS,
        ),
        (
            {"max_tool_call": 3, "max_turns": 2},
            "Limits has no field 'max_tool_call'. Did you mean 'max_tool_calls'? " + _FIELDS,
        ),
        ({"budget": 1}, "Limits has no field 'budget'. " + _FIELDS),
    ],
)
def test_an_unknown_limits_field_is_a_configuration_error_naming_the_fields(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.Limits(**kwargs)
    assert str(info.value) == message


def test_a_limits_mapping_given_to_run_gets_the_closest_field() -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync("test", "hi", limits={"max_tool_call": 3})
    assert str(info.value) == (
        "limits has no field 'max_tool_call'; the fields are max_calls_per_tool, max_concurrent_tools, "
        "max_cost_usd, max_input_tokens, max_output_tokens, max_tool_calls, max_total_tokens, tool_timeout. "
        "Did you mean 'max_tool_calls'?"
    )


def test_limits_stays_a_plain_dataclass() -> None:
    limits = toolwire.Limits(max_total_tokens=1000, max_calls_per_tool={"add": 2})
    assert toolwire.Limits(None, 10) == toolwire.Limits(max_input_tokens=10)  # positional still works
    assert dataclasses.is_dataclass(limits)
    assert dataclasses.replace(limits, max_tool_calls=3) == toolwire.Limits(
        max_tool_calls=3, max_total_tokens=1000, max_calls_per_tool={"add": 2}
    )
    assert pickle.loads(pickle.dumps(limits)) == limits
    assert copy.deepcopy(limits) == limits and copy.copy(limits) == limits
    assert list(inspect.signature(toolwire.Limits).parameters) == [f.name for f in dataclasses.fields(limits)]
    with pytest.raises(ConfigurationError, match="Limits has no field 'max_tokens'"):
        dataclasses.replace(limits, max_tokens=5)  # type: ignore[call-arg]
    # (answers with usage: a token limit stops an offline answer without counts, as a vendor's)
    model = toolwire.model(
        "scripted",
        responses=[
            {
                "tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}],
                "usage": {"input_tokens": 9, "output_tokens": 4},
            },
            {"text": "5", "usage": {"input_tokens": 15, "output_tokens": 1}},
        ],
    )
    result = toolwire.run_sync(model, "add 2 and 3", tools=[add], limits=limits)
    assert pickle.loads(pickle.dumps(result.state)).status == result.state.status == "finished"
    assert result.text == "5" and result.usage.total_tokens == 29


@pytest.mark.parametrize(
    "name, suggestion",
    [
        ("gpt-5", "did you mean 'openai:gpt-5' (or 'openai-chat:gpt-5')?"),
        ("chatgpt-4o-latest", "did you mean 'openai:chatgpt-4o-latest' (or 'openai-chat:chatgpt-4o-latest')?"),
        ("o1", "did you mean 'openai:o1' (or 'openai-chat:o1')?"),
        ("o3-mini", "did you mean 'openai:o3-mini' (or 'openai-chat:o3-mini')?"),
        ("o4-mini", "did you mean 'openai:o4-mini' (or 'openai-chat:o4-mini')?"),
        ("claude-sonnet-4-5", "did you mean 'anthropic:claude-sonnet-4-5'?"),
        ("gemini-2.5-flash", "did you mean 'gemini:gemini-2.5-flash'?"),
        ("gemma-3-27b-it", "did you mean 'gemini:gemma-3-27b-it'?"),
    ],
)
def test_a_model_id_without_a_provider_gets_the_provider_of_its_family(name: str, suggestion: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.model(name)
    assert str(info.value) == (
        f"model {name!r} has no provider; {suggestion} toolwire model names are 'provider:model-id'"
    )


@pytest.mark.parametrize("name", ["llama3", "o5", "omni-moderation-latest", "mistral-large"])
def test_a_model_id_of_no_known_family_gets_the_general_form(name: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.model(name)
    assert str(info.value) == (
        f"model {name!r} has no provider; write it as 'provider:model-id', e.g. 'anthropic:claude-sonnet-4-5' "
        "(providers: anthropic, gemini, openai, openai-chat, scripted, test)"
    )


@pytest.mark.parametrize(
    ("spec", "wanted"),
    [
        ("gpt-5:latest", "did you mean 'openai:gpt-5:latest' (or 'openai-chat:gpt-5:latest')?"),
        ("ft:gpt-4o-mini:acme::abc123", "did you mean 'openai:ft:gpt-4o-mini:acme::abc123'"),
    ],
)
def test_a_bare_model_id_with_a_colon_of_its_own_gets_its_provider(spec: str, wanted: str) -> None:
    """A model id holding a colon ('gpt-5:latest', a fine-tuned 'ft:...' id) given without its
    provider read its first part as an unknown provider, with no suggestion."""
    from toolwire import ProviderNotFound

    with pytest.raises(ProviderNotFound) as info:
        toolwire.model(spec, api_key="k")
    assert wanted in str(info.value)


def test_a_very_long_model_string_is_shown_cut() -> None:
    from toolwire import ProviderNotFound

    with pytest.raises(ProviderNotFound) as info:
        toolwire.model("y" * 5000 + ":z", api_key="k")
    assert len(str(info.value)) < 400
