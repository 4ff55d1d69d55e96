"""The declarations of a whole tool list kept as one (DeclarationMemo.unchanged_list /
remember_list): each request's tools are exactly what a codec that never saw the tools encodes,
on every API, whatever the caller edits in place between requests (a description, a schema, a
default from 1 to True or 1.0, the order of keys, the list's order or members), and the
declarations handed out are fresh copies (editing one does not reach the next request)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
from toolwire.adapter import DeclarationMemo, ModelRequest
from toolwire.tools import Tool
from toolwire.types import Message, TextPart

SPECS = ["anthropic:claude-sonnet-4-5", "openai:gpt-4.1", "openai-chat:gpt-4.1", "gemini:gemini-2.5-flash"]


def _tools(n: int) -> list[Tool]:
    return [
        Tool(
            f"tool_{i}",
            f"Tool number {i}.",
            {
                "type": "object",
                "properties": {"q": {"type": "string", "description": "query"}, "k": {"type": "integer", "default": 1}},
                "required": ["q"],
            },
        )
        for i in range(n)
    ]


def _request(tools: list[Tool]) -> ModelRequest:
    return ModelRequest("m-1", [Message("user", [TextPart("hi")])], tools=tools)


def _fresh_encoding(spec: str, tools: list[Tool]) -> str:
    """What a model built now, which never saw these tools, encodes (the oracle)."""
    codec: Any = toolwire.model(spec, api_key="k").codec
    return json.dumps(codec.encode_request(_request(copy.deepcopy(tools))))


def _encoding(codec: Any, tools: list[Tool]) -> str:
    return json.dumps(codec.encode_request(_request(tools)))


EDITS = st.sampled_from(
    ["description", "default-true", "default-float", "default-int", "reorder", "swap", "drop", "same"]
)


@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=25, deadline=None)
@given(edits=st.lists(st.tuples(EDITS, st.integers(0, 3)), min_size=1, max_size=6))
def test_every_request_encodes_the_tools_as_a_fresh_codec_does(spec: str, edits: list[tuple[str, int]]) -> None:
    codec: Any = toolwire.model(spec, api_key="k").codec
    tools = _tools(4)
    assert _encoding(codec, tools) == _fresh_encoding(spec, tools)
    for edit, i in edits:
        i %= len(tools)
        t = tools[i]
        if edit == "description":
            t.description += " More."
        elif edit.startswith("default"):
            t.input_schema["properties"]["k"]["default"] = {"default-true": True, "default-float": 1.0}.get(edit, 1)
        elif edit == "reorder":
            props = t.input_schema["properties"]
            t.input_schema["properties"] = dict(reversed(list(props.items())))
        elif edit == "swap" and len(tools) > 1:
            tools = tools[1:] + tools[:1]
        elif edit == "drop" and len(tools) > 2:
            tools = tools[:i] + tools[i + 1 :]
        # the same list twice in a row: the second is the kept list's copy
        assert _encoding(codec, tools) == _fresh_encoding(spec, tools)
        assert _encoding(codec, tools) == _fresh_encoding(spec, tools)


@pytest.mark.parametrize("spec", SPECS)
def test_edits_of_a_sent_body_do_not_reach_the_next_request(spec: str) -> None:
    codec: Any = toolwire.model(spec, api_key="k").codec
    tools = _tools(3)
    first = codec.encode_request(_request(tools))
    second = codec.encode_request(_request(tools))  # from the kept list
    expected = json.dumps(second)
    # a repair (or a caller) changing the body deep inside, after the list was kept
    for body in (first, second):
        for decl in body["tools"]:
            target = (
                decl.get("input_schema") or decl.get("parameters") or (decl.get("function") or {}).get("parameters")
            )
            if target is None:  # Gemini: one entry holding the function declarations
                for fd in decl["functionDeclarations"]:
                    fd["description"] = "changed"
                    fd.get("parameters", fd.get("parametersJsonSchema", {}))["properties"].clear()
            else:
                target["properties"].clear()
                decl["description" if "description" in decl else "type"] = "changed"
    assert json.dumps(codec.encode_request(_request(tools))) == expected
    assert tools[0].input_schema["properties"]["q"] == {"type": "string", "description": "query"}


def test_the_list_is_kept_once_and_checked_as_one() -> None:
    calls: list[str] = []

    def translate(tool: Tool) -> tuple[dict[str, Any], None]:
        calls.append(tool.name)
        return {"name": tool.name, "description": tool.description, "schema": copy.deepcopy(tool.input_schema)}, None

    memo = DeclarationMemo()
    tools = _tools(3)
    assert memo.unchanged_list(tools) is None  # never seen
    decls = [memo.declaration(t, translate) for t in tools]
    memo.remember_list(tools)
    again = memo.unchanged_list(tools)
    assert again is not None
    assert again == decls and all(a is not b for a, b in zip(again, decls))
    assert calls == ["tool_0", "tool_1", "tool_2"]
    assert memo.unchanged_list(list(reversed(tools))) is None  # another list
    assert memo.unchanged_list(_tools(3)) is None  # other tool objects, equal fields
    tools[1].input_schema["properties"]["k"]["default"] = True  # == 1, declared anew
    assert memo.unchanged_list(tools) is None
    assert memo.unchanged_list(tools[:1]) is None  # one tool: the per-tool memo is enough


def test_a_tool_that_has_run_stays_on_the_fast_path() -> None:
    """What toolwire notes on a tool once its function was looked at (whether it is async) is no
    field of its declaration: the tool stays on the serialized-bytes path, and its list is kept
    as one. The note made the tool's fields unserializable, so every later request compared a
    type-strict copy and copied the declaration field by field, and no list was kept."""
    calls: list[str] = []

    def translate(tool: Tool) -> tuple[dict[str, Any], None]:
        calls.append(tool.name)
        return {"name": tool.name, "description": tool.description}, None

    def fn(q: str) -> str:
        return q

    tools = [Tool("a", "A.", {"type": "object", "properties": {}}, function=fn) for _ in range(2)]
    tools[1].name = "b"
    memo = DeclarationMemo()
    assert all(t.is_async is False for t in tools)  # the note is made
    decls = [memo.declaration(t, translate) for t in tools]
    memo.remember_list(tools)
    assert memo._memo[id(tools[0])][3] is True  # kept as bytes
    assert memo.unchanged_list(tools) == decls
    tools[0].description = "Changed."
    assert memo.unchanged_list(tools) is None
    assert memo.declaration(tools[0], translate)["description"] == "Changed."
    assert calls == ["a", "b", "a"]


def test_threads_encoding_with_one_codec_never_fail_on_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads sharing a model's codec fill and trim the memo at once: the oldest entry one
    of them drops may be gone already (a KeyError before), and every request still gets its own
    tools' declarations."""
    import threading

    codec: Any = toolwire.model("anthropic:claude-sonnet-4-5", api_key="k").codec
    monkeypatch.setattr(DeclarationMemo, "size", 2)  # every new tool or list trims
    monkeypatch.setattr(DeclarationMemo, "list_size", 1)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(300):
                tools = _tools(2)
                for t in tools:
                    t.name = f"t{k}_{i}_{t.name}"
                body = codec.encode_request(_request(tools))
                assert [d["name"] for d in body["tools"]] == [t.name for t in tools]
        except BaseException as exc:  # reported below
            errors.append(exc)

    import sys

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two bytecodes: the race shows
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
