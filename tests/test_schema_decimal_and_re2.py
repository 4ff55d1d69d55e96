"""Arguments checked as JSON Schema means them: ``multipleOf`` in decimal (``0.3`` is a multiple
of ``0.1``) and ``format: regex`` / ``pattern`` in RE2, the engine toolwire matches patterns with
(``\\p{L}`` is a valid pattern)."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field

import toolwire
from toolwire import SchemaError, Tool
from toolwire.schema.validate import validate_arguments
from toolwire.testing import ScriptedModel, call

MULTIPLE = {"type": "object", "properties": {"x": {"type": "number", "multipleOf": 0.1}}}


@pytest.mark.parametrize("x", [0.3, 0.7, 1.1, 3, 0, -0.2, 12.5, 1e-1])
def test_decimal_multiples_are_multiples(x: float) -> None:
    assert validate_arguments(MULTIPLE, {"x": x}) == []


@pytest.mark.parametrize("x", [0.35, 0.01, 1.15])
def test_other_numbers_are_not(x: float) -> None:
    errors = validate_arguments(MULTIPLE, {"x": x})
    assert [e.rule for e in errors] == ["multipleOf"] and errors[0].pointer == "/x"


def test_integer_divisors_unchanged() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 5}}}
    assert validate_arguments(schema, {"n": 15}) == []
    assert [e.rule for e in validate_arguments(schema, {"n": 12})] == ["multipleOf"]


def test_a_pydantic_multiple_of_tool_runs_with_a_decimal_multiple() -> None:
    seen: list[float] = []

    @toolwire.tool
    def set_level(level: Annotated[float, Field(multiple_of=0.1, ge=0, le=1)]) -> str:
        """Set the dimmer level."""
        seen.append(level)
        return f"level {level}"

    model = ScriptedModel(responses=[[call("set_level", {"level": 0.3})], "done"])
    result = toolwire.run_sync(model, "dim it", tools=[set_level])
    assert seen == [0.3]
    assert result.turns[0].tool_runs[0].result.content == "level 0.3"


def test_re2_patterns_are_valid_patterns() -> None:
    schema = {
        "type": "object",
        "properties": {"word": {"type": "string", "pattern": "^\\p{L}+$"}, "rx": {"type": "string", "format": "regex"}},
    }
    tool = Tool.from_schema("t", "d", schema)  # was refused: "'^\\p{L}+$' is not a 'regex'"
    assert validate_arguments(tool.input_schema, {"word": "héllo", "rx": "\\p{Lu}\\d+"}) == []
    assert [e.rule for e in validate_arguments(tool.input_schema, {"word": "h3llo"})] == ["pattern"]
    assert [e.rule for e in validate_arguments(tool.input_schema, {"rx": "(unclosed"})] == ["format"]


def test_a_pattern_re2_cannot_run_is_still_refused_with_the_reason() -> None:
    with pytest.raises(SchemaError, match="pattern at /properties/w/pattern that RE2 cannot run"):
        Tool.from_schema("t", "d", {"type": "object", "properties": {"w": {"type": "string", "pattern": "(a)\\1"}}})


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "number", "enum": [0.3], "multipleOf": 0.1},
        {"type": "number", "multipleOf": 0.1, "minimum": 0.3, "maximum": 0.3},
        {"type": "string", "pattern": "^\\p{L}+$"},
    ],
)
def test_lint_agrees_with_the_argument_check(prop: dict) -> None:
    """What the argument check accepts, lint does not call unsatisfiable or invalid."""
    from toolwire.design import lint as lint_mod
    from toolwire.design.lint import lint_tools

    schema = {"type": "object", "properties": {"x": {**prop, "description": "the value"}}, "required": ["x"]}
    t = lint_mod._spec_tool("t", "Do t. Use it when asked.", schema, None)
    findings = lint_tools(
        [t], ["openai"], select=["schema-unsatisfiable", "schema-invalid"], token_costs=False
    ).findings
    assert [(f.rule, f.message) for f in findings] == []


def test_huge_divisors_and_values_are_exact() -> None:
    """``multipleOf`` with numbers too big for a float: exact, no OverflowError (argument check and
    lint alike)."""
    from toolwire.design.satisfiable import unsatisfiable_parts

    schema = {"type": "object", "properties": {"x": {"type": "number", "multipleOf": 10**400}}, "required": ["x"]}
    assert validate_arguments(schema, {"x": 10**400}) == []
    assert validate_arguments(schema, {"x": 3 * 10**400}) == []
    assert [e.rule for e in validate_arguments(schema, {"x": 1.5})] == ["multipleOf"]
    with_enum = {
        "type": "object",
        "properties": {"x": {"type": "number", "enum": [1.5, 10**400], "multipleOf": 10**400}},
        "required": ["x"],
    }
    parts = unsatisfiable_parts(with_enum)
    assert [(p.pointer, p.severity) for p in parts] == [("/properties/x/enum", "warning")]
