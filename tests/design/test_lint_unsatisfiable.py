"""The ``schema-unsatisfiable`` lint rule: parts of an input schema no value can satisfy.

Every flagged schema is checked against ``jsonschema`` (Draft 2020-12, what toolwire validates
arguments with): candidate arguments that give the flagged part a value of every JSON type are
all rejected, and for a warning the arguments without that part are accepted. Near misses and
real generated schemas stay silent, and ``jsonschema`` accepts a witness for each near miss.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Optional, Union

import jsonschema
import pytest
from pydantic import BaseModel, Field
from typer.testing import CliRunner

import toolwire
import toolwire.cli.lint_cmd  # registers the lint command on the app
from toolwire.cli import app
from toolwire.design import lint as lint_mod
from toolwire.design import satisfiable
from toolwire.design.files import file_tools
from toolwire.design.lint import lint_tools

RULE = "schema-unsatisfiable"

#: Values of every JSON type (and the numbers, strings and containers near the bounds used below).
CANDIDATES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    2,
    3,
    4,
    5,
    -1,
    1.5,
    1.2,
    1.8,
    2.0,
    -2.5,
    "",
    "a",
    "b",
    "c",
    "ab",
    "abc",
    "1",
    [],
    [1],
    ["a"],
    ["a", "b"],
    [None],
    {},
    {"a": 1},
    {"b": "x"},
    {"c": "x"},
    {"x_a": "x"},
]


def _findings(schema: dict[str, Any], *, select: str = RULE) -> list[tuple[str, str]]:
    t = lint_mod._spec_tool("t", "Do t. Use it when asked.", schema, None)
    return [(f.severity, f.pointer) for f in lint_tools([t], ["openai"], select=[select], token_costs=False).findings]


def _valid(schema: dict[str, Any], args: Any) -> bool:
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).is_valid(args)


def _obj(
    props: dict[str, Any], required: list[str] | None = None, *, defs: dict[str, Any] | None = None, **more: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, **more}
    if required is not None:
        out["required"] = required
    if defs is not None:
        out["$defs"] = defs
    return out


# (schema, expected findings, place: candidate value -> arguments, arguments without the part or None)
FLAGGED = [
    pytest.param(
        _obj({"x": {"enum": []}}, ["x"]),
        [("error", "/input_schema/properties/x/enum")],
        lambda v: {"x": v},
        None,
        id="enum-empty-required",
    ),
    pytest.param(
        _obj({"x": {"enum": []}, "y": {"type": "string"}}, ["y"]),
        [("warning", "/input_schema/properties/x/enum")],
        lambda v: {"y": "ok", "x": v},
        {"y": "ok"},
        id="enum-empty-optional",
    ),
    pytest.param(
        _obj({"x": False}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="false-required",
    ),
    pytest.param(
        _obj({"x": {"not": {}}}, ["x"]),
        [("error", "/input_schema/properties/x/not")],
        lambda v: {"x": v},
        None,
        id="not-empty-required",
    ),
    pytest.param(
        _obj({"x": {"not": {"description": "anything"}}}),
        [("warning", "/input_schema/properties/x/not")],
        lambda v: {"x": v},
        {},
        id="not-annotation-only-optional",
    ),
    pytest.param(
        _obj({"x": {"type": "integer", "minimum": 5, "maximum": 3}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="minimum-above-maximum",
    ),
    pytest.param(
        _obj({"x": {"type": "number", "exclusiveMinimum": 2, "exclusiveMaximum": 2}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="exclusive-equal",
    ),
    pytest.param(
        _obj({"x": {"type": "number", "minimum": 2, "exclusiveMaximum": 2}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="minimum-equal-exclusive-maximum",
    ),
    pytest.param(
        _obj({"x": {"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="no-integer-between-exclusive-bounds",
    ),
    pytest.param(
        _obj({"x": {"type": "integer", "minimum": 1.2, "maximum": 1.8}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="no-integer-in-range",
    ),
    pytest.param(
        _obj({"x": {"type": "integer", "minimum": 1, "maximum": 4, "multipleOf": 5}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="multipleOf-no-multiple-in-integer-range",
    ),
    pytest.param(
        _obj({"x": {"type": "integer", "minimum": 1, "maximum": 4, "multipleOf": 2.5}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="multipleOf-fraction-no-integer-multiple",
    ),
    pytest.param(
        _obj({"x": {"type": "string", "minLength": 3, "maxLength": 1}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="minLength-above-maxLength",
    ),
    pytest.param(
        _obj({"x": {"type": "array", "minItems": 2, "maxItems": 1}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="minItems-above-maxItems",
    ),
    pytest.param(
        _obj({"x": {"type": "object", "minProperties": 2, "maxProperties": 1}}),
        [("warning", "/input_schema/properties/x")],
        lambda v: {"x": v},
        {},
        id="minProperties-above-maxProperties-optional",
    ),
    pytest.param(
        {"type": "object", "minProperties": 3, "maxProperties": 1},
        [("error", "/input_schema")],
        lambda v: v,
        None,
        id="root-minProperties-above-maxProperties",
    ),
    pytest.param(
        _obj({"a": {}, "b": {}}, ["a", "b"], maxProperties=1),
        [("error", "/input_schema/required")],
        lambda v: {"a": v, "b": v},
        None,
        id="more-required-than-maxProperties",
    ),
    pytest.param(
        _obj({"b": {"type": "string"}}, ["c"], additionalProperties=False),
        [("error", "/input_schema/required/0")],
        lambda v: {"b": "x", "c": v},
        None,
        id="root-required-undeclared-additional-false",
    ),
    pytest.param(
        _obj({"x": _obj({"b": {"type": "string"}}, ["c"], additionalProperties=False)}),
        [("warning", "/input_schema/properties/x/required/0")],
        lambda v: {"x": {"b": "x", "c": v}},
        {},
        id="nested-optional-required-undeclared",
    ),
    pytest.param(
        _obj({}, ["y_a"], patternProperties={"^x_": {"type": "string"}}, additionalProperties=False),
        [("error", "/input_schema/required/0")],
        lambda v: {"y_a": v},
        None,
        id="required-matched-by-no-pattern",
    ),
    pytest.param(
        _obj({"x": {"type": "integer", "enum": ["a", "b"]}}, ["x"]),
        [("error", "/input_schema/properties/x/enum")],
        lambda v: {"x": v},
        None,
        id="enum-values-not-of-type",
    ),
    pytest.param(
        _obj({"x": {"type": "string", "const": 1}}, ["x"]),
        [("error", "/input_schema/properties/x/const")],
        lambda v: {"x": v},
        None,
        id="const-not-of-type",
    ),
    pytest.param(
        _obj({"x": {"const": "c", "enum": ["a", "b"]}}, ["x"]),
        [("error", "/input_schema/properties/x/const")],
        lambda v: {"x": v},
        None,
        id="const-not-in-enum",
    ),
    pytest.param(
        _obj({"x": {"type": "integer", "minimum": 10, "enum": [1, 2, 3]}}, ["x"]),
        [("error", "/input_schema/properties/x/enum")],
        lambda v: {"x": v},
        None,
        id="enum-values-below-minimum",
    ),
    pytest.param(
        _obj({"x": {"allOf": [{"type": "string"}, {"type": "integer"}]}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="allOf-types-disjoint",
    ),
    pytest.param(
        _obj(
            {"x": {"type": ["string", "null"], "allOf": [{"$ref": "#/$defs/N"}]}},
            ["x"],
            defs={"N": {"type": "integer"}},
        ),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="type-and-ref-disjoint",
    ),
    pytest.param(
        _obj({"x": {"type": "string", "not": {"type": "string"}}}, ["x"]),
        [("error", "/input_schema/properties/x")],
        lambda v: {"x": v},
        None,
        id="not-its-own-type",
    ),
    pytest.param(
        _obj({"x": {"anyOf": [{"enum": []}, False]}}, ["x"]),
        [("error", "/input_schema/properties/x/anyOf/0/enum"), ("error", "/input_schema/properties/x/anyOf/1")],
        lambda v: {"x": v},
        None,
        id="anyOf-every-branch-dead",
    ),
    pytest.param(
        _obj(
            {"x": {"type": "array", "items": {"type": "string", "minLength": 3, "maxLength": 1}, "minItems": 1}}, ["x"]
        ),
        [("error", "/input_schema/properties/x/items")],
        lambda v: {"x": [v]},
        None,
        id="items-needed-none-fits",
    ),
    pytest.param(
        _obj({"x": {"type": "array", "contains": {"enum": []}}}, ["x"]),
        [("error", "/input_schema/properties/x/contains/enum")],
        lambda v: {"x": [v]},
        None,
        id="contains-none-fits",
    ),
    pytest.param(
        # deep: a required object in a required array item in a $def, at three levels
        {
            "type": "object",
            "$defs": {
                "Line": _obj({"qty": {"type": "integer", "minimum": 1, "maximum": 0}}, ["qty"]),
                "Order": _obj(
                    {"lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}, "minItems": 1}}, ["lines"]
                ),
            },
            "properties": {"order": {"$ref": "#/$defs/Order"}},
            "required": ["order"],
        },
        [("error", "/input_schema/$defs/Line/properties/qty")],
        lambda v: {"order": {"lines": [{"qty": v}]}},
        None,
        id="deep-through-refs",
    ),
]


@pytest.mark.parametrize("schema, expected, place, without", FLAGGED)
def test_flagged_schemas_are_ones_jsonschema_rejects(schema, expected, place, without):
    assert _findings(schema) == expected
    jsonschema.Draft202012Validator.check_schema(schema)
    rejected = [v for v in CANDIDATES if _valid(schema, place(v))]
    assert rejected == [], f"jsonschema accepts {rejected}"
    if without is not None:  # a warning: the rest of the tool still works
        assert {s for s, _ in expected} == {"warning"}
        assert _valid(schema, without)
    else:
        assert {s for s, _ in expected} == {"error"}


# (schema, arguments jsonschema accepts)
NEAR_MISSES = [
    pytest.param(_obj({"x": {"type": "integer", "minimum": 3, "maximum": 3}}, ["x"]), {"x": 3}, id="min-equals-max"),
    pytest.param(
        _obj({"x": {"type": "number", "exclusiveMinimum": 1, "exclusiveMaximum": 2}}, ["x"]),
        {"x": 1.5},
        id="number-between-exclusive-bounds",
    ),
    pytest.param(
        _obj({"x": {"type": "number", "minimum": 1.2, "maximum": 1.8}}, ["x"]), {"x": 1.5}, id="number-no-integer-fine"
    ),
    pytest.param(
        _obj({"x": {"type": "integer", "minimum": 1, "maximum": 5, "multipleOf": 5}}, ["x"]),
        {"x": 5},
        id="multipleOf-at-the-bound",
    ),
    pytest.param(
        _obj({"x": {"type": "integer", "minimum": 1, "maximum": 4, "multipleOf": 0.5}}, ["x"]),
        {"x": 2},
        id="multipleOf-half",
    ),
    pytest.param(
        _obj({"x": {"type": "number", "minimum": 1.2, "maximum": 1.8, "multipleOf": 0.5}}, ["x"]),
        {"x": 1.5},
        id="multipleOf-number-between-integers",
    ),
    pytest.param(_obj({"x": {"minimum": 5, "maximum": 3}}, ["x"]), {"x": "any string"}, id="bounds-without-type"),
    pytest.param(
        _obj({"x": {"type": "string", "minLength": 2, "maxLength": 2}}, ["x"]), {"x": "ab"}, id="length-equal"
    ),
    pytest.param(
        _obj({"b": {"type": "string"}}, ["b"], additionalProperties=False), {"b": "x"}, id="required-declared-closed"
    ),
    pytest.param(
        _obj({}, ["x_a"], patternProperties={"^x_": {"type": "string"}}, additionalProperties=False),
        {"x_a": "v"},
        id="required-matched-by-pattern",
    ),
    pytest.param(
        {"type": "object", "required": ["kind"], "oneOf": [_obj({"a": {}}, ["a"])]},
        {"kind": 1, "a": 1},
        id="branch-requires-parent-key",
    ),
    pytest.param(_obj({"x": {"type": "integer", "enum": [1.0, 2]}}, ["x"]), {"x": 1}, id="float-integer-enum"),
    pytest.param(_obj({"x": {"type": "string", "const": "c"}}, ["x"]), {"x": "c"}, id="const-of-type"),
    pytest.param(
        _obj({"x": {"allOf": [{"type": ["string", "null"]}, {"type": ["null", "integer"]}]}}, ["x"]),
        {"x": None},
        id="allOf-types-meet-in-null",
    ),
    pytest.param(
        _obj({"x": {"allOf": [{"type": "number"}, {"type": "integer"}]}}, ["x"]), {"x": 2}, id="allOf-number-integer"
    ),
    pytest.param(_obj({"x": {"type": "integer", "not": {"type": "string"}}}, ["x"]), {"x": 1}, id="not-another-type"),
    pytest.param(_obj({"x": {"not": {"type": "string", "minLength": 3}}}, ["x"]), {"x": "ab"}, id="not-partial"),
    pytest.param(
        _obj({"x": {"type": "array", "prefixItems": [{"type": "string"}], "items": False, "minItems": 1}}, ["x"]),
        {"x": ["a"]},
        id="closed-tuple",
    ),
    pytest.param(
        _obj({"x": {"type": "array", "contains": {"enum": []}, "minContains": 0}}, ["x"]),
        {"x": [1]},
        id="contains-min-zero",
    ),
    pytest.param(
        _obj({"x": {"if": {"type": "string"}, "then": False}}, ["x"]), {"x": 1}, id="if-then-false-not-judged"
    ),
    pytest.param(
        _obj({"x": {"$ref": "#/$defs/N"}}, ["x"], defs={"N": _obj({"next": {"$ref": "#/$defs/N"}})}),
        {"x": {"next": {}}},
        id="recursive-ref",
    ),
]


@pytest.mark.parametrize("schema, witness", NEAR_MISSES)
def test_near_misses_stay_silent(schema, witness):
    assert _findings(schema) == []
    if witness:
        assert _valid(schema, witness)


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: Annotated[int, Field(ge=0, le=9)] = 9


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool = True


class Tree(BaseModel):
    name: str
    children: list[Tree] = []


class Order(BaseModel):
    items: Annotated[list[str], Field(min_length=1, max_length=10)]
    qty: Annotated[int, Field(gt=0, lt=100, multiple_of=5)] = 5
    price: Annotated[float, Field(ge=0, le=1e6, multiple_of=0.01)] = 1.0
    pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]
    tags: dict[str, int] = {}
    pair: tuple[int, str] = (1, "a")
    tree: Optional[Tree] = None
    mixed: Literal[1, "a", None] = None
    only: Literal["only"] = "only"


@toolwire.tool
def place_order(order: Order, note: Optional[str] = None, count: Annotated[int, Field(ge=1, le=1)] = 1) -> str:
    """Place an order. Use it when the user confirms the basket."""
    return "ok"


@toolwire.tool
def grow(tree: Tree, mode: Literal["a", "b"] | None = None, scores: list[float] | None = None) -> str:
    """Grow a tree. Use it when asked."""
    return "ok"


#: OpenAI's strict function-calling form: every property required, nullable ones as a type list.
OPENAI_STRICT = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "City and country"},
        "units": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", None]},
        "days": {"type": ["integer", "null"], "minimum": 1, "maximum": 14},
        "filters": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {"rain": {"type": "boolean"}, "wind": {"type": ["number", "null"]}},
                    "required": ["rain", "wind"],
                    "additionalProperties": False,
                },
                {"type": "null"},
            ]
        },
    },
    "required": ["location", "units", "days", "filters"],
    "additionalProperties": False,
}


def test_real_schemas_stay_silent():
    """pydantic schemas ($defs/$ref, anyOf with null, discriminated unions, recursion, bounds),
    the strict and vendor forms the adapters make of them, an OpenAI strict schema, and the file
    tools: no finding."""
    tools = [place_order, grow, *file_tools(".")]
    tools.append(lint_mod._spec_tool("weather", "Get the weather. Use it when asked.", OPENAI_STRICT, None))
    report = lint_tools(tools, select=[RULE], token_costs=False)
    assert report.findings == []
    from toolwire.registry import codec

    declared = []
    for provider in ("openai", "openai-chat", "anthropic", "gemini"):
        for t in (place_order, grow):
            declared.append(codec(provider).translate_tool(t)[0])
    schemas = [s for d in declared for s in _schemas_in(d)]
    assert len(schemas) == 8
    assert [p for s in schemas for p in satisfiable.unsatisfiable_parts(s)] == []
    assert _valid(OPENAI_STRICT, {"location": "Oslo", "units": None, "days": None, "filters": None})


def _schemas_in(decl: Any) -> list[dict[str, Any]]:
    if isinstance(decl, dict):
        for k in ("parameters", "input_schema", "parametersJsonSchema", "parameters_json_schema"):
            if isinstance(decl.get(k), dict):
                return [decl[k]]
        return [s for v in decl.values() for s in _schemas_in(v)]
    if isinstance(decl, list):
        return [s for v in decl for s in _schemas_in(v)]
    return []


def test_messages_say_where_why_and_what_to_change():
    schema = {
        "type": "object",
        "$defs": {"Unit": {"type": "integer", "enum": ["a", "b"]}},
        "properties": {
            "count": {"type": "integer", "minimum": 10, "maximum": 1, "description": "How many."},
            "unit": {"$ref": "#/$defs/Unit"},
        },
        "required": ["count"],
    }
    t = lint_mod._spec_tool("t", "Do t. Use it when asked.", schema, None)
    got = [f.to_dict() for f in lint_tools([t], ["openai"], select=[RULE], token_costs=False).findings]
    why = lint_mod.RULES[RULE].why
    assert got == [
        {
            "rule": RULE,
            "severity": "error",
            "tool": "t",
            "pointer": "/input_schema/properties/count",
            "message": 'no value satisfies /input_schema/properties/count: "minimum": 10 is greater than '
            '"maximum": 1, so no number fits. A valid call cannot leave it out, so no arguments object is '
            f"valid, and every call of the tool fails argument validation. — {why}",
            "fix": 'make "minimum" at most "maximum" (were they swapped?)',
        },
        {
            "rule": RULE,
            "severity": "warning",
            "tool": "t",
            "pointer": "/input_schema/$defs/Unit/enum",
            "message": 'no value satisfies /input_schema/$defs/Unit: every value of "enum" fails the rest of '
            'this schema ("a" is a string, not integer; "b" is a string, not integer), so none is allowed. '
            "The optional parameter 'unit' (/input_schema/properties/unit) can therefore never be given: "
            f"a call that gives it fails argument validation. — {why}",
            "fix": 'make the "enum" values match "type" and the bounds (e.g. "type": "string" for string values), '
            "or fix the values",
        },
    ]


@pytest.mark.parametrize(
    "schema, expected",
    [
        (
            _obj({"x": {"type": ["integer", "null"], "minimum": 5, "maximum": 3}}, ["x"]),
            "No integer is valid at /input_schema/properties/x, only null",
        ),
        (
            _obj({"x": {"anyOf": [{"type": "string", "enum": []}, {"type": "null"}]}}, ["x"]),
            "Option /input_schema/properties/x/anyOf/0 can therefore never match",
        ),
        (
            _obj({"x": {"type": "array", "items": {"enum": []}}}, ["x"]),
            "The array at /input_schema/properties/x therefore can only be empty",
        ),
        (
            _obj({"x": {"type": "string", "enum": ["a", None], "nullable": True}}, ["x"]),
            'null is a null, not string ("nullable" is not JSON Schema: add "null" to "type")',
        ),
    ],
)
def test_parts_that_lose_an_option_are_warnings(schema, expected):
    t = lint_mod._spec_tool("t", "Do t. Use it when asked.", schema, None)
    found = lint_tools([t], ["openai"], select=[RULE], token_costs=False).findings
    assert [f.severity for f in found] == ["warning"]
    assert expected in found[0].message


def test_required_but_closed_out_is_reported_once():
    """schema-invalid used to report this too; now only the rule that says no value fits does."""
    schema = _obj({"email": {"type": "string", "description": "Their email."}}, ["emial"], additionalProperties=False)
    t = lint_mod._spec_tool("signup", "Sign a user up. Use it when someone asks to join.", schema, None)
    found = [(f.rule, f.severity, f.pointer) for f in lint_tools([t], ["openai"], token_costs=False).findings]
    assert [x for x in found if x[2] == "/input_schema/required/0"] == [(RULE, "error", "/input_schema/required/0")]


def test_bounded_work_on_large_schemas(monkeypatch):
    # the work is counted, not timed: each subschema visited, enum value read and pattern matched
    # against a required name is one call counted here; unbounded, the patterns below alone make
    # 25 million matches and the shared enum 30 million reads
    calls = {"node": 0, "atom": 0, "match": 0}

    def counting(key, fn):
        def wrapper(*args, **kwargs):
            calls[key] += 1
            return fn(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(satisfiable._Analysis, "node", counting("node", satisfiable._Analysis.node))
    monkeypatch.setattr(satisfiable, "_atom", counting("atom", satisfiable._atom))
    monkeypatch.setattr(satisfiable, "_matches", counting("match", satisfiable._matches))
    # a chain of 300 $defs, each requiring the next (deeper than MAX_DEPTH): no RecursionError
    defs = {f"D{i}": _obj({"n": {"$ref": f"#/$defs/D{i + 1}"}}, ["n"]) for i in range(300)}
    defs["D300"] = {"enum": []}
    chain = _obj({"x": {"$ref": "#/$defs/D0"}}, ["x"], defs=defs)
    # one $def used by 2,000 properties, and an enum of 15,000 values of the wrong type
    shared = _obj(
        {f"p{i}": {"$ref": "#/$defs/S"} for i in range(2000)},
        defs={"S": {"type": "integer", "enum": [str(i) for i in range(15_000)]}},
    )
    # 5,000 required names, each matched against 5,000 patternProperties (25 million matches)
    names = [f"n{i}" for i in range(5000)]
    patterns = _obj({}, names, patternProperties={f"^n{i}$": {} for i in range(5000)}, additionalProperties=False)
    for schema in (chain, shared, patterns):
        for key in calls:
            calls[key] = 0
        parts = satisfiable.unsatisfiable_parts(schema)
        assert sum(calls.values()) <= 2 * satisfiable.MAX_STEPS, calls
    assert satisfiable.unsatisfiable_parts(patterns) == []
    parts = satisfiable.unsatisfiable_parts(shared)
    assert [(p.severity, p.pointer) for p in parts] == [("warning", "/$defs/S/enum")]
    assert "And 1997 more such places." in parts[0].message
    assert satisfiable.unsatisfiable_parts(chain) == []  # past MAX_DEPTH: counted as satisfiable


def test_cli_reports_the_rule(tmp_path):
    p = tmp_path / "tools.json"
    p.write_text(
        json.dumps(
            [
                {
                    "name": "set_volume",
                    "description": "Set the speaker volume. Use it when the user asks for louder or quieter.",
                    "input_schema": _obj(
                        {"level": {"type": "integer", "minimum": 11, "maximum": 0, "description": "Volume, 0-10."}},
                        ["level"],
                    ),
                }
            ]
        )
    )
    res = CliRunner().invoke(app, ["lint", str(p), "--json", "-p", "anthropic"])
    assert res.exit_code == 1
    found = [f for f in json.loads(res.stdout)["findings"] if f["rule"] == RULE]
    assert [(f["severity"], f["pointer"]) for f in found] == [("error", "/input_schema/properties/level")]
