"""Hostile input ends in toolwire's typed errors at documented bounds, never in a raw
``RecursionError`` or a hang. Each test asserts the error type, the bound it names and the count
at which it starts; a generous hang guard (a thread joined with a long timeout) is the only use of
time, never a timing assertion."""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

import httpx2
import pytest
from reliability_wire import APIS, text_body, tool_body, tool_results_in

import toolwire
from toolwire.arguments import MAX_ARGUMENT_CHARS, MAX_ARGUMENT_DEPTH, parse_arguments
from toolwire.design.files import file_tools
from toolwire.design.lint import MAX_LINT_TEXT_CHARS, lint_tools
from toolwire.errors import SchemaBoundExceeded, SchemaError, ToolError
from toolwire.safe_regex import MAX_PATTERN_CHARS, UnsafePatternError, compile_pattern
from toolwire.schema.validate import MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, check_input_schema, validate_arguments
from toolwire.tools import Tool

HANG_GUARD_SECONDS = 120


def guarded(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` on a thread; fail (instead of hanging the suite) if it has not finished after
    :data:`HANG_GUARD_SECONDS`."""
    out: dict[str, Any] = {}

    def body() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:
            out["error"] = exc

    t = threading.Thread(target=body, daemon=True)
    t.start()
    t.join(HANG_GUARD_SECONDS)
    assert not t.is_alive(), f"still running after {HANG_GUARD_SECONDS} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


def nested_text(levels: int) -> str:
    """An arguments object nesting ``levels`` levels of objects (level 1 is the arguments object)."""
    return '{"v":' * (levels - 1) + '{"v": 1}' + "}" * (levels - 1)


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"v": 1}
    for _ in range(levels - 1):
        value = {"v": value}
    return value


# -- arguments ----------------------------------------------------------------------------------------


def test_argument_text_depth_bound_is_exact():
    assert parse_arguments(nested_text(MAX_ARGUMENT_DEPTH)) == (nested(MAX_ARGUMENT_DEPTH), None)
    args, reason = parse_arguments(nested_text(MAX_ARGUMENT_DEPTH + 1))
    assert (
        args is None
        and reason
        == f"arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels of arrays and objects, the bound (MAX_ARGUMENT_DEPTH)"
    )
    # brackets inside strings (escaped quotes included) do not count
    assert parse_arguments('{"a": "[[[[\\"[[[[{{{{", "b": ["]]]]"]}') == ({"a": '[[[["[[[[{{{{', "b": ["]]]]"]}, None)


def test_argument_text_a_hundred_thousand_levels_deep_is_refused_without_recursion():
    args, reason = guarded(lambda: parse_arguments("[" * 100_000 + "]" * 100_000))
    assert args is None and "(MAX_ARGUMENT_DEPTH)" in reason


def test_argument_text_size_bound():
    args, reason = parse_arguments('{"a": "' + "x" * MAX_ARGUMENT_CHARS + '"}')
    assert args is None and reason.startswith(f"arguments are {MAX_ARGUMENT_CHARS + 9:,} characters long")
    assert "(MAX_ARGUMENT_CHARS)" in reason


def _mock_model(api: str, handler: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    def respond(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=handler(json.loads(request.content)))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client)


def _raw_tool_body(api: str, calls: list[tuple[str, str, str]]) -> dict[str, Any]:
    """A response whose tool calls carry argument *text* (OpenAI) or parsed objects (others)."""
    body = tool_body(api, [(cid, name, {}) for cid, name, _ in calls])
    if api == "openai-chat":
        for tc, (_, _, raw) in zip(body["choices"][0]["message"]["tool_calls"], calls):
            tc["function"]["arguments"] = raw
    elif api == "openai":
        for item, (_, _, raw) in zip(body["output"], calls):
            item["arguments"] = raw
    elif api == "anthropic":
        for block, (_, _, raw) in zip(body["content"], calls):
            block["input"] = json.loads(raw)
    else:
        for part, (_, _, raw) in zip(body["candidates"][0]["content"]["parts"], calls):
            part["functionCall"]["args"] = json.loads(raw)
    return body


@pytest.mark.parametrize("api", APIS)
def test_deep_arguments_in_a_run_are_an_error_result_and_the_other_tools_run(api):
    pytest.importorskip("toolwire_anthropic")
    pytest.importorskip("toolwire_gemini")
    ran: list[int] = []

    def take(v: Any) -> str:
        """Accept any nested value. Use when told to."""
        ran.append(1)
        return "ok"

    tool = Tool.from_schema(
        "take", "Accept any value. Use when told to.", {"type": "object", "properties": {"v": {}}}, take
    )
    ok_args = nested_text(MAX_ARGUMENT_DEPTH)
    deep_args = nested_text(MAX_ARGUMENT_DEPTH + 1)

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        if tool_results_in(api, body) == 0:
            return _raw_tool_body(api, [("c1", "take", ok_args), ("c2", "take", deep_args)])
        return text_body(api)

    result = guarded(lambda: toolwire.run_sync(_mock_model(api, handler), "go", tools=[tool]))
    first, second = result.tool_runs
    assert not first.is_error and first.result.text == "ok"
    assert second.is_error and "(MAX_ARGUMENT_DEPTH)" in second.result.text
    assert second.result.text.startswith("Invalid arguments for tool 'take': arguments nest deeper than 64 levels")
    assert ran == [1]
    assert result.stop_reason == "end_turn"
    json.loads(result.to_json())  # the saved run is writable


@pytest.mark.parametrize("api", ["openai-chat", "openai"])
def test_argument_text_thousands_of_levels_deep_in_a_run(api):
    def handler(body: dict[str, Any]) -> dict[str, Any]:
        if tool_results_in(api, body) == 0:
            return _raw_tool_body(api, [("c1", "take", "[" * 5000 + "]" * 5000)])
        return text_body(api)

    tool = Tool.from_schema(
        "take", "Accept. Use when told to.", {"type": "object", "properties": {}}, lambda **kw: "ok"
    )
    result = guarded(lambda: toolwire.run_sync(_mock_model(api, handler), "go", tools=[tool]))
    (run,) = result.tool_runs
    assert run.is_error and "(MAX_ARGUMENT_DEPTH)" in run.result.text


# -- patterns -------------------------------------------------------------------------------------------

CATASTROPHIC = ["(a|a)*b", "(a+)+b", "(a|aa)*c", "((a*)*)*b", "(x+x+)+y"]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_search_pattern_from_the_model_finishes(tmp_path, pattern):
    (tmp_path / "a.txt").write_text(("a" * 5000 + "\n") * 20 + "x" * 5000 + "\n")
    search = {t.name: t for t in file_tools(tmp_path)}["search_files"]
    out = guarded(lambda: search.function(pattern=pattern))
    assert out == f"No matches for {pattern!r} in . (1 text files searched)."


def test_search_pattern_with_lookaround_is_a_tool_error_naming_re2(tmp_path):
    search = {t.name: t for t in file_tools(tmp_path)}["search_files"]
    with pytest.raises(ToolError) as info:
        search.function(pattern=r"foo(?=bar)")
    assert "not a valid regular expression for this tool (RE2 syntax)" in info.value.message
    assert "RE2, which never backtracks" in info.value.message


def test_pattern_length_bound():
    compile_pattern("a" * MAX_PATTERN_CHARS)
    with pytest.raises(UnsafePatternError) as info:
        compile_pattern("a" * (MAX_PATTERN_CHARS + 1))
    assert info.value.bound == "MAX_PATTERN_CHARS"


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_schema_pattern_is_validated_without_backtracking(pattern):
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": pattern}},
        "patternProperties": {pattern: {"type": "integer"}},
        "additionalProperties": False,
    }
    check_input_schema(schema)
    victim = "a" * 5000
    problems = guarded(lambda: validate_arguments(schema, {"s": victim, victim: 1}))
    rules = sorted(p.rule for p in problems)
    assert rules == ["additionalProperties", "pattern"]


def test_schema_pattern_re2_cannot_run_is_a_schema_error_with_its_pointer():
    with pytest.raises(SchemaError) as info:
        check_input_schema({"type": "object", "properties": {"s": {"type": "string", "pattern": r"(a)\1"}}})
    assert "at /properties/s/pattern that RE2 cannot run" in str(info.value)


# -- schemas -------------------------------------------------------------------------------------------


def deep_schema(json_levels: int) -> dict[str, Any]:
    """An object schema whose JSON nests exactly ``json_levels`` levels."""
    assert json_levels % 2 == 1
    schema: dict[str, Any] = {"type": "object"}
    for _ in range((json_levels - 1) // 2):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_schema_depth_bound_is_exact():
    check_input_schema(deep_schema(MAX_SCHEMA_DEPTH - 1))
    with pytest.raises(SchemaBoundExceeded) as info:
        check_input_schema(deep_schema(MAX_SCHEMA_DEPTH + 1))
    assert (info.value.bound, info.value.limit) == ("MAX_SCHEMA_DEPTH", 64)


@pytest.mark.parametrize("levels", [1001, 20001])
def test_very_deep_schemas_raise_the_bound_not_recursion_error(levels):
    schema = deep_schema(levels)
    for build in (
        lambda: check_input_schema(schema),
        lambda: Tool.from_schema("t", "d", schema),
        lambda: validate_arguments(schema, {}),
    ):
        with pytest.raises(SchemaBoundExceeded) as info:
            guarded(build)
        assert info.value.bound == "MAX_SCHEMA_DEPTH"


def test_schema_node_bound():
    # values (keys are not counted): the schema, "object", the properties object, the property schema, the enum list: 5
    def schema(values: int) -> dict[str, Any]:
        return {"type": "object", "properties": {"e": {"enum": list(range(values))}}}

    check_input_schema(schema(MAX_SCHEMA_NODES - 5))
    with pytest.raises(SchemaBoundExceeded) as info:
        check_input_schema(schema(MAX_SCHEMA_NODES - 4))
    assert (info.value.bound, info.value.limit) == ("MAX_SCHEMA_NODES", 20_000)


def test_deep_type_hints_end_in_the_schema_bound():
    hint: Any = int
    for _ in range(MAX_SCHEMA_DEPTH + 1):
        hint = list[hint]

    def f(x):
        return "ok"

    f.__annotations__ = {"x": hint}
    f.__doc__ = "Take a deeply nested list. Use when told to."
    with pytest.raises(SchemaBoundExceeded) as info:
        Tool.from_function(f)
    assert info.value.bound == "MAX_SCHEMA_DEPTH"


# -- lint ----------------------------------------------------------------------------------------------


def test_lint_of_a_twenty_megabyte_description_reviews_the_bound():
    tool = Tool.from_schema(
        "big",
        "Use it when asked. " + "a" * 20_000_000,
        {"type": "object", "properties": {"q": {"type": "string", "description": "x " * 100_000}}},
    )
    report = guarded(lambda: lint_tools([tool]))
    cut = [(f.pointer, f.message.split(" — ")[0]) for f in report.findings if f.rule == "text-too-long"]
    assert cut == [
        (
            "/description",
            f"the text is 20,000,019 characters; lint reviewed and priced the first {MAX_LINT_TEXT_CHARS:,} (MAX_LINT_TEXT_CHARS)",
        ),
        (
            "/input_schema/properties/q/description",
            f"the text is 200,000 characters; lint reviewed and priced the first {MAX_LINT_TEXT_CHARS:,} (MAX_LINT_TEXT_CHARS)",
        ),
    ]


def test_lint_of_a_schema_past_its_bounds_reports_the_bound():
    from toolwire.design.lint import _spec_tool

    report = guarded(lambda: lint_tools([_spec_tool("deep", "Use it when asked.", deep_schema(5001), None)]))
    invalid = [f for f in report.findings if f.rule == "schema-invalid"]
    assert len(invalid) == 1 and "(MAX_SCHEMA_DEPTH)" in invalid[0].message
    assert not [f for f in report.findings if "could not run" in f.message]
