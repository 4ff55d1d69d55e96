"""What a new user following the README met (each test failed on the code before its fix): a
run limit given to run() itself, the input schema's keyword in Tool.from_schema, a price for a
model written with a space after the colon, and a provider alias given to lint."""

from __future__ import annotations

import pytest

import toolwire
from toolwire import Limits, Tool
from toolwire.design.lint import check_providers
from toolwire.errors import ConfigurationError
from toolwire.pricing import price
from toolwire.types import Usage


@pytest.mark.parametrize("name", ["max_cost_usd", "max_tool_calls", "max_output_tokens"])
def test_a_limit_given_to_run_points_at_limits(name: str) -> None:
    assert name in {f for f in Limits.__dataclass_fields__}
    with pytest.raises(TypeError) as info:
        toolwire.run_sync("test", "hi", **{name: 1})
    assert f"'{name}' (a Limits field: limits=toolwire.Limits({name}=...))" in str(info.value)
    assert "did you mean 'max_turns'" not in str(info.value)


def test_from_schema_takes_input_schema_by_its_name() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    by_name = Tool.from_schema(name="search", description="Search.", input_schema=schema)
    by_position = Tool.from_schema("search", "Search.", schema)
    by_old_name = Tool.from_schema("search", "Search.", schema=schema)
    assert by_name.input_schema == by_position.input_schema == by_old_name.input_schema == schema
    with pytest.raises(TypeError, match="both input_schema and schema"):
        Tool.from_schema("search", "Search.", schema, schema=schema)
    with pytest.raises(TypeError, match="needs the input schema of tool 'search'"):
        Tool.from_schema("search", "Search.")


def test_price_reads_a_model_written_with_a_space_after_the_colon() -> None:
    usage = Usage(input_tokens=1000, output_tokens=100)
    spaced = price(usage, "anthropic: claude-sonnet-4-5")
    plain = price(usage, "anthropic:claude-sonnet-4-5")
    assert spaced.priced and spaced.total_usd == plain.total_usd and (plain.total_usd or 0) > 0


def test_lint_suggests_the_provider_an_alias_means() -> None:
    with pytest.raises(ConfigurationError, match=r"unknown provider 'google' for lint \(did you mean 'gemini'\?\)"):
        check_providers(["google"])
    with pytest.raises(
        ConfigurationError, match=r"unknown provider 'anthropc' for lint \(did you mean 'anthropic'\?\)"
    ):
        check_providers(["anthropc"])
    with pytest.raises(ConfigurationError, match=r"unknown provider 'nope' for lint; known"):
        check_providers(["nope"])  # nothing near it: no guess
    assert check_providers(["gemini", "openai", "gemini"]) == ["gemini", "openai"]


def test_the_scripted_provider_without_a_script_points_at_the_test_provider() -> None:
    with pytest.raises(ConfigurationError, match=r"use the 'test' provider \(--model test\)"):
        toolwire.model("scripted")
