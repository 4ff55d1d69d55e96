"""Fuzzed tool input schemas, through the real SDKs (only the network replaced by
``httpx2.MockTransport``) on all four APIs and their schema modes (Anthropic with and without
``strict``, OpenAI Chat and Responses with and without ``strict``, Gemini ``parametersJsonSchema``
and ``parameters``).

The schemas are what pydantic, zod-to-json-schema and MCP servers publish, made awkward
(:func:`schema_fuzz_kit.input_schemas`): ``$defs``/``definitions`` with nested and recursive
references and escaped names, ``anyOf``/``oneOf``/``allOf`` with and without null, type lists,
``const``, mixed-type and huge enums, OpenAPI ``nullable``, formats, patterns, bounds, open and
typed maps, ``patternProperties``, tuples, ``items: false``, ``propertyNames``,
``dependentRequired``, ``if``/``then``/``else``, annotations, unicode / dotted / spaced / empty /
too-long property names, root combinators and root ``$ref``.

Invariants, each checked by :mod:`schema_fuzz_kit` from the vendors' own sources:

1. a run either sends the request or raises toolwire's :class:`SchemaTranslationError` (with a
   pointer) before sending; never another exception, never a refusal of the request by the
   preflight (the translation must produce what the profile accepts), never a hang (deadline);
2. what is sent is what the API accepts (``schema_fuzz_kit.*_problems``);
3. a strict tool is sent strict only when its schema obeys the strict rules; otherwise it is sent
   with strict off and the translation report says why;
4. arguments valid for the tool's original schema, as the model writes them on that API (renamed
   keys, Gemini's stringified enums and float numbers), reach the function unchanged; and on
   OpenAI strict, arguments valid for the *sent* strict schema are accepted by the loop.

Budget: :data:`EXAMPLES` (25) schemas × 8 API modes, about 10 s, derandomized (the same examples
every run; set ``TOOLWIRE_FUZZ_SEED`` to explore others, ``TOOLWIRE_FUZZ_EXAMPLES`` for more: a
few thousand examples ran clean when it was written). A deadline of 10 s per example and an alarm
at 60 s turn a hang into a failure.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import httpx2
import pytest
from fuzz_support import fuzz_settings, hang_guard, seeded
from hypothesis import given
from hypothesis import strategies as st
from reliability_wire import text_body, tool_body
from schema_fuzz_kit import (
    anthropic_problems,
    gemini_declaration_problems,
    gemini_wire_value,
    input_schemas,
    ints_as_floats,
    openai_problems,
    valid,
    values_for,
    wire_names,
)

import toolwire
from toolwire.errors import SchemaBoundExceeded, SchemaError, SchemaTranslationError
from toolwire.schema.keys import schema_wire_keys
from toolwire.tools import Tool

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

EXAMPLES = int(os.environ.get("TOOLWIRE_FUZZ_EXAMPLES", "25"))
OUTCOMES: Counter[str] = Counter()

#: (api, model settings, Tool.strict)
MODES: list[tuple[str, dict[str, Any], bool | None]] = [
    ("anthropic", {}, None),
    ("anthropic", {}, True),
    ("openai-chat", {}, None),
    ("openai-chat", {}, True),
    ("openai", {}, None),
    ("openai", {}, True),
    ("gemini", {"schema_mode": "json_schema"}, None),
    ("gemini", {"schema_mode": "openapi"}, None),
]

_MODELS: dict[int, tuple[Any, dict[str, Any]]] = {}


def _model(i: int) -> tuple[Any, dict[str, Any]]:
    """One model per mode (building SDK clients is the slow part); ``holder["handler"]`` answers."""
    if i not in _MODELS:
        api, extra, _ = MODES[i]
        holder: dict[str, Any] = {}
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: holder["handler"](r)))
        _MODELS[i] = (toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client, **extra), holder)
    return _MODELS[i]


def _declaration(api: str, body: dict[str, Any]) -> dict[str, Any]:
    tools = body.get("tools") or []
    if api == "gemini":
        return tools[0]["functionDeclarations"][0]
    if api == "openai-chat":
        return tools[0]["function"]
    return tools[0]


def run_mode(
    i: int, schema: dict[str, Any], value: Any, data: st.DataObject | None, strict_value: Any = None
) -> list[str]:
    """Run one turn of mode ``i`` with a tool declared by ``schema``; the model calls it with
    ``value`` (valid for ``schema``, or ``None``: no call) written the way that API's model
    writes it. Returns the invariant violations found."""
    api, extra, strict = MODES[i]
    label = f"{api}{'/strict' if strict else ''}{'/' + extra['schema_mode'] if extra else ''}"
    model, holder = _model(i)
    problems: list[str] = []
    got: list[dict[str, Any]] = []
    sent_value: list[Any] = []
    sent_params: list[Any] = []

    def function(**kwargs: Any) -> str:
        got.append(kwargs)
        return "ok"

    tool = Tool.from_schema("fuzz_tool", "Fuzz tool. Use it to test.", schema, function, strict=strict)
    state = {"n": 0}

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        state["n"] += 1
        if state["n"] > 1:
            return httpx2.Response(200, json=text_body(api))
        decl = _declaration(api, body)
        args = value
        if api == "anthropic":
            problems.extend(anthropic_problems(decl))
            names = schema_wire_keys(schema)
            args = wire_names(value, schema, schema, names) if names else value
        elif api in ("openai-chat", "openai"):
            params = decl.get("parameters")
            problems.extend(openai_problems(params, decl.get("strict") is True))
            if strict and decl.get("strict") is True and isinstance(params, dict):
                # a strict model writes only values of the sent schema; when the strict form
                # dropped nothing (no lossy change, no oneOf read as anyOf) each of them is
                # valid for the original schema
                _, report = model.codec.translate_tool(tool)
                lossless = not report.lossy and not any(c.keyword == "oneOf" for c in report.changes)
                args = value if value is not None and valid(params, value) else None
                if strict_value is not None and lossless and valid(params, strict_value):
                    args = strict_value
                for _ in range(3 if lossless and data is not None else 0):
                    assert data is not None
                    cand = data.draw(values_for(params, params), label="strict value")
                    if isinstance(cand, dict) and valid(params, cand):
                        args = cand
                        break
        else:
            problems.extend(gemini_declaration_problems(decl))
            if "parameters" in decl:
                sent_params.append(decl["parameters"])
                args = gemini_wire_value(value, decl["parameters"])
            else:
                args = ints_as_floats(value)
        if args is None or not isinstance(args, dict):
            return httpx2.Response(200, json=text_body(api))
        sent_value.append(args)
        return httpx2.Response(200, json=tool_body(api, [("call_1", "fuzz_tool", args)]))

    holder["handler"] = handler
    try:
        result = toolwire.run_sync(model, "go", tools=[tool], max_turns=2)
    except SchemaTranslationError as exc:
        OUTCOMES[f"{label}: SchemaTranslationError"] += 1
        if not isinstance(exc.pointer, str) or state["n"]:
            problems.append(f"SchemaTranslationError without a pointer or after sending: {exc!r}")
        return [f"{label}: {p}" for p in problems]
    except Exception as exc:  # every other exception is a finding
        OUTCOMES[f"{label}: {type(exc).__name__}"] += 1
        return [f"{label}: {type(exc).__name__}: {exc}"[:2000]]
    OUTCOMES[f"{label}: sent"] += 1
    if strict:
        decl, report = model.codec.translate_tool(tool)
        sent_strict = decl.get("strict", (decl.get("function") or {}).get("strict"))
        if sent_strict is not True and not any(c.action == "unsupported" for c in report.changes):
            problems.append("strict turned off without an 'unsupported' change saying why")
    if sent_value:
        runs = result.tool_runs
        if not runs:
            problems.append("the call was not run")
        elif runs[0].result.is_error:
            problems.append(f"valid arguments {sent_value[0]!r} refused: {runs[0].result.content!r}"[:2000])
        elif not (strict and api.startswith("openai")) and got and got[0] != value:
            # Gemini's Schema enums are strings: values that write as the same string (1 and "1")
            # arrive as one; the function gets what the wire could tell apart
            same = sent_params and gemini_wire_value(got[0], sent_params[0]) == sent_value[0]
            if not same:
                problems.append(f"the function got {got[0]!r}, the model meant {value!r}")
    return [f"{label}: {p}" for p in problems]


def test_fuzzed_input_schemas_translate_to_what_each_api_accepts():
    for i in range(len(MODES)):  # build the SDK clients before the timed examples
        _model(i)

    @seeded
    @fuzz_settings(EXAMPLES)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        with hang_guard(60, "one schema"):
            one_schema(data)

    check()


def one_schema(data: st.DataObject) -> None:
    """One drawn schema, run on every API mode; fails listing every invariant it breaks."""
    schema = data.draw(input_schemas(), label="schema")
    try:
        Tool.from_schema("fuzz_tool", "d", schema)
    except (SchemaError, SchemaBoundExceeded):
        OUTCOMES["schema refused by Tool.from_schema"] += 1
        return
    value = None
    for _ in range(3):
        cand = data.draw(values_for(schema, schema), label="value")
        if isinstance(cand, dict) and valid(schema, cand):
            value = cand
            break
    problems: list[str] = []
    for i in range(len(MODES)):
        problems.extend(run_mode(i, schema, value, data))
    assert not problems, json.dumps(schema, ensure_ascii=False) + "\n" + "\n".join(problems)


#: Schemas the fuzz test found toolwire getting wrong (minimised), with a value valid for each
#: and, where it matters, what a strict OpenAI model sends: run on every mode on every run.
FOUND: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]] = [
    # Gemini openapi: boolean subschemas refused by the preflight
    (
        {"type": "object", "properties": {"any": True, "never": False, "q": {"type": "string"}}, "required": ["q"]},
        {"q": "x", "any": [1, "a"]},
        None,
    ),
    # strict (OpenAI, Anthropic): a required name no property declares
    ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}, {"a": "x", "b": 1}, None),
    # OpenAI: arrays without items under oneOf / a definition's allOf
    (
        {
            "type": "object",
            "properties": {"v": {"oneOf": [{"type": "array"}, {"type": "string"}]}, "d": {"$ref": "#/$defs/T"}},
            "$defs": {"T": {"allOf": [{"type": "array"}]}},
        },
        {"v": "s", "d": []},
        None,
    ),
    # a null default on a type that does not take null (x: Model = None)
    (
        {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "to": {"$ref": "#/$defs/A", "default": None},
                "note": {"type": "string", "default": None},
            },
            "required": ["name"],
            "$defs": {"A": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        },
        {"name": "k"},
        {"name": "k", "to": None, "note": None},
    ),
    # properties named like data keywords: $ref siblings (Gemini), recursion (Anthropic strict)
    (
        {
            "type": "object",
            "properties": {"default": {"$ref": "#/$defs/M", "description": "d"}},
            "$defs": {"M": {"type": "string", "enum": ["a", "b"]}},
        },
        {"default": "a"},
        None,
    ),
    (
        {
            "type": "object",
            "properties": {"default": {"$ref": "#/$defs/Node"}},
            "$defs": {
                "Node": {"type": "object", "properties": {"enum": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
            },
        },
        {"default": {"enum": [{}]}},
        None,
    ),
    # Gemini openapi: a stringified enum answer under oneOf
    (
        {
            "type": "object",
            "properties": {
                "size": {"oneOf": [{"type": "string", "enum": ["s", "l"]}, {"type": "number", "enum": [0.5, 1]}]}
            },
        },
        {"size": 1},
        None,
    ),
]


@pytest.mark.parametrize("schema,value,strict_value", FOUND)
def test_schemas_found_by_the_fuzz_test_hold_every_invariant(schema, value, strict_value):
    assert valid(schema, value)
    problems = [p for i in range(len(MODES)) for p in run_mode(i, schema, value, None, strict_value)]
    assert not problems, "\n".join(problems)


def test_zz_report_schema_fuzz_outcomes():
    """Prints the outcome counts of the fuzz test above (run in the same session)."""
    if OUTCOMES:
        print("\nschema fuzz outcomes:", dict(sorted(OUTCOMES.items())))
