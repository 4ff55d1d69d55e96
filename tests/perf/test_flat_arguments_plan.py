"""The executor's per-tool plan: a flat arguments object of the right types is taken as valid
without jsonschema, null restoring, coercion or pydantic. Checked against the whole path it
skips (the same Ready arguments, or the same is_error text), against jsonschema itself, and for
every change the plan is keyed on (schema edited in place or replaced, function or argument
model replaced)."""

from __future__ import annotations

import enum
from typing import Any, Literal

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
from toolwire import executor as ex_mod
from toolwire.executor import Ready, ToolExecutor, ToolRun, _flat_copy, _plan_of
from toolwire.schema.validate import flat_schema, validate_arguments
from toolwire.tools import Tool
from toolwire.types import ToolCall

#: The incremental encoding runs from a conversation's second request (see conftest.py).
pytestmark = pytest.mark.usefixtures("incremental_from_start")

# -- strategies ------------------------------------------------------------------------------

_names = st.sampled_from(["a", "b", "c", "d"])
_type_names = st.sampled_from(["string", "integer", "number", "boolean", "null"])
_property = st.fixed_dictionaries(
    {},
    optional={
        "type": _type_names | st.lists(_type_names, min_size=1, max_size=3),
        "enum": st.lists(st.sampled_from(["x", "y", "1"]), min_size=1, max_size=3)
        | st.lists(st.sampled_from([1, True, None, "x"]), min_size=1, max_size=2),
        "description": st.just("d"),
        "default": st.sampled_from([1, "x", None]),
        "minimum": st.just(0),  # outside the flat subset: the plan must step aside
        "format": st.just("date"),  # likewise
    },
)
_schema = st.builds(
    lambda props, required, extra: {
        "type": "object",
        "properties": props,
        **({"required": required} if required is not None else {}),
        **({"additionalProperties": extra} if extra is not None else {}),
    },
    st.dictionaries(_names, _property, max_size=4),
    st.none() | st.lists(_names, max_size=3, unique=True),
    st.none() | st.booleans(),
)
_value = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.5, 2.0, float("nan")])
    | st.sampled_from(["x", "y", "1", ""])
    | st.lists(st.integers(), max_size=2)
    | st.dictionaries(st.just("k"), st.integers(), max_size=1)
)
_arguments = st.dictionaries(_names, _value, max_size=4)


def _outcome(result: Ready | ToolRun) -> Any:
    if isinstance(result, ToolRun):
        return ("invalid", result.result.text)
    return ("ready", [(k, type(v), v if v == v else "nan") for k, v in result.arguments.items()])


def _whole_path(monkeypatch: pytest.MonkeyPatch, tool: Tool, call: ToolCall) -> Any:
    with monkeypatch.context() as m:
        m.setattr(ex_mod, "_flat_copy", lambda plan, arguments: None)
        return _outcome(ToolExecutor({tool.name: tool}, run_id="r").check(call, 1))


# -- the shortcut agrees with jsonschema and with the whole check ----------------------------


@settings(max_examples=400, deadline=None)
@given(_schema, _arguments)
def test_a_flat_copy_is_only_made_for_arguments_jsonschema_finds_valid(schema, arguments):
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return
    tool = Tool.from_schema("t", "d", schema)
    plan = _plan_of(tool)
    copied = _flat_copy(plan, arguments)
    if copied is not None:
        assert validate_arguments(schema, arguments) == []
        assert copied == arguments and copied is not arguments
    if flat_schema(schema) is None:
        assert plan.keys is None


@settings(max_examples=300, deadline=None)
@given(_schema, _arguments)
def test_the_check_with_the_plan_equals_the_check_without_it(schema, arguments):
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return
    tool = Tool.from_schema("t", "d", schema)
    with pytest.MonkeyPatch.context() as mp:
        want = _whole_path(mp, tool, ToolCall("c1", "t", dict(arguments)))
    got = _outcome(ToolExecutor({"t": tool}, run_id="r").check(ToolCall("c1", "t", dict(arguments)), 1))
    assert got == want


class Color(enum.Enum):
    RED = "red"


def typed(q: str, n: int = 1, ratio: float = 0.5, on: bool = False, mode: Literal["a", "b"] = "a") -> str:
    """Typed.

    Args:
        q: text.
        n: count.
        ratio: share.
        on: flag.
        mode: mode.
    """
    return q


def with_enum(color: Color, q: str = "") -> str:
    """Enum-typed."""
    return q


def with_kwargs(q: str, **rest: Any) -> str:
    """Takes more."""
    return q


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["typed", "with_enum", "with_kwargs"]),
    st.dictionaries(st.sampled_from(["q", "n", "ratio", "on", "mode", "color", "extra"]), _value, max_size=5),
)
def test_typed_functions_get_the_same_ready_arguments_with_and_without_the_plan(which, arguments):
    if which == "with_kwargs":  # a function taking **kwargs, with a raw schema (no argument model)
        schema = {"type": "object", "properties": {"q": {"type": "string"}, "extra": {"type": "integer"}}}
        tool = Tool.from_schema("with_kwargs", "d", schema, with_kwargs)
    else:
        tool = toolwire.tool(typed if which == "typed" else with_enum)
    with pytest.MonkeyPatch.context() as mp:
        want = _whole_path(mp, tool, ToolCall("c1", tool.name, dict(arguments)))
    got = _outcome(ToolExecutor({tool.name: tool}, run_id="r").check(ToolCall("c1", tool.name, dict(arguments)), 1))
    assert got == want


def test_the_common_typed_call_takes_the_shortcut_and_the_copy_is_the_callers_own():
    tool = toolwire.tool(typed)
    assert _plan_of(tool).keys is not None
    args = {"q": "x", "n": 2, "ratio": 1.5, "on": True, "mode": "b"}
    call = ToolCall("c1", "typed", args)
    ready = ToolExecutor({"typed": tool}, run_id="r").check(call, 1)
    assert isinstance(ready, Ready) and ready.arguments == args and ready.arguments is not args
    ready.arguments["q"] = "changed"
    assert call.arguments["q"] == "x"
    # an int where the function takes a float, a bool where it takes an int: pydantic converts
    # (or refuses) them, so the whole path decides
    plan = _plan_of(tool)
    assert _flat_copy(plan, {"q": "x", "ratio": 1}) is None
    assert _flat_copy(plan, {"q": "x", "n": True}) is None
    assert _flat_copy(plan, {"q": "x", "mode": "c"}) is None
    assert _flat_copy(plan, {"n": 1}) is None  # required q missing


# -- what the plan is keyed on ---------------------------------------------------------------


def _check(ex: ToolExecutor, name: str, arguments: dict[str, Any]) -> Any:
    return _outcome(ex.check(ToolCall("c1", name, arguments), 1))


def test_a_schema_edited_in_place_is_noticed_by_the_next_check_of_the_same_run():
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    tool = Tool.from_schema("t", "d", schema)
    ex = ToolExecutor({"t": tool}, run_id="r")
    assert _check(ex, "t", {"q": "x"})[0] == "ready"
    schema["properties"]["q"]["type"] = "integer"  # in place
    assert _check(ex, "t", {"q": "x"})[0] == "invalid"
    schema["properties"]["q"]["enum"] = ["only"]
    schema["properties"]["q"]["type"] = "string"
    assert _check(ex, "t", {"q": "x"})[0] == "invalid"
    assert _check(ex, "t", {"q": "only"})[0] == "ready"
    schema["additionalProperties"] = False
    assert _check(ex, "t", {"q": "only", "z": 1})[0] == "invalid"


def test_a_replaced_schema_function_or_model_is_noticed():
    tool = toolwire.tool(typed)
    ex = ToolExecutor({"typed": tool}, run_id="r")
    assert _check(ex, "typed", {"q": "x", "n": 1})[0] == "ready"
    tool.input_schema = {"type": "object", "properties": {"q": {"type": "integer"}}}
    assert _check(ex, "typed", {"q": "x"})[0] == "invalid"

    def other(z: str) -> str:
        """Other."""
        return z

    tool2 = toolwire.tool(typed)
    ex2 = ToolExecutor({"typed": tool2}, run_id="r")
    assert _check(ex2, "typed", {"q": "x"})[0] == "ready"
    tool2.function = other  # the function no longer takes q
    outcome = _check(ex2, "typed", {"q": "x"})
    assert outcome[0] == "invalid" and "unexpected property 'q'" in outcome[1]

    tool3 = toolwire.tool(typed)
    ex3 = ToolExecutor({"typed": tool3}, run_id="r")
    assert _check(ex3, "typed", {"q": "x", "n": 1}) == ("ready", [("q", str, "x"), ("n", int, 1)])
    tool3.arguments_model = toolwire.tool(with_enum).arguments_model  # converts nothing it does not know
    assert ex3.check(ToolCall("c1", "typed", {"q": "x"}), 1).plan.model is tool3.arguments_model


def test_a_run_with_a_flat_tool_runs_it_with_the_arguments_sent():
    seen: list[dict[str, Any]] = []

    @toolwire.tool
    def look(q: str, n: int = 1) -> str:
        """Look."""
        seen.append({"q": q, "n": n})
        return f"{q}:{n}"

    from toolwire.testing import ScriptedModel, call

    script = [[call("look", {"q": "a", "n": 3}, id="c1")], [call("look", {"q": "b"}, id="c2")], "done"]
    r = toolwire.run_sync(ScriptedModel(responses=script), "go", tools=[look])
    assert seen == [{"q": "a", "n": 3}, {"q": "b", "n": 1}]
    assert [run.result.text for run in r.tool_runs] == ["a:3", "b:1"]
    assert [run.call.arguments for run in r.tool_runs] == [{"q": "a", "n": 3}, {"q": "b"}]


def test_the_plan_is_not_kept_on_the_tool_object():
    """A tool's attributes are its declaration's state (the adapters' declaration memo compares
    them): the executor's plan must not appear among them, or every request would re-declare."""

    @toolwire.tool
    def look(q: str) -> str:
        """Look."""
        return q

    from toolwire.testing import ScriptedModel, call

    before = set(vars(look))
    toolwire.run_sync(ScriptedModel(responses=[[call("look", {"q": "a"}, id="c1")], "done"]), "go", tools=[look])
    assert set(vars(look)) - before <= {"_is_async"}
    assert _plan_of(look) is _plan_of(look)  # kept elsewhere, and reused
