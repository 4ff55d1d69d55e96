"""Hypothesis strategies for the generative suite (issue 10, item 8b).

Two families of inputs:

- **reasonably written** — input schemas pydantic emits from type hints (through toolwire's own
  ``Tool.from_function``), and conversations toolwire itself produced: every assistant turn is a
  synthetic vendor response decoded by that vendor's real codec (so ``provider_data``, ids,
  signatures and cut-off calls are what toolwire really keeps), each followed by the results the
  loop would append. The source vendor changes from turn to turn (provider switches).
- **anything a user may hand over** — hand-written / MCP-style schemas (root combinators,
  ``$ref``/``$defs``, huge enums, formats, nullable types, ...) and hand-built canonical histories
  (foreign ids and names, missing or duplicate results, cut-off calls, reasoning from anywhere).
"""

from __future__ import annotations

import base64
import enum
import inspect
import json
import keyword
import string
from typing import Any, Literal, Optional, Union

import pydantic
from hypothesis import strategies as st

from toolwire import registry
from toolwire.tools import Tool
from toolwire.types import ImagePart, Message, ReasoningPart, TextPart, ToolCall, ToolResult

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
MODEL_IDS = {
    "anthropic": "claude-sonnet-4-5",
    "openai-chat": "gpt-4.1",
    "openai": "gpt-5",
    "gemini": "gemini-2.5-flash",
}
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

ALNUM = string.ascii_letters + string.digits
_RESERVED = set(keyword.kwlist) | set(dir(pydantic.BaseModel))
IDENT = st.from_regex(r"[a-z][a-z0-9_]{0,14}", fullmatch=True).filter(
    lambda s: s not in _RESERVED and not s.startswith("model_")
)
TEXT = st.one_of(st.text(max_size=40), st.sampled_from(["", " ", "\n", "Paris", "ok", "ünïcödé ✓"]))
B64 = st.binary(min_size=1, max_size=24).map(lambda b: base64.b64encode(b).decode())


def _token(prefix: str, n: int = 24) -> st.SearchStrategy[str]:
    return st.text(ALNUM, min_size=n, max_size=n).map(lambda s: prefix + s)


# =============================================================================================
# input schemas
# =============================================================================================

_enum_counter = iter(range(10**9))


def _make_enum(values: list[str]) -> type[enum.Enum]:
    return enum.Enum(f"Choice{next(_enum_counter)}", {f"v{i}": v for i, v in enumerate(values)})


_model_counter = iter(range(10**9))


def _type_hint(depth: int) -> st.SearchStrategy[Any]:
    scalars = st.sampled_from([int, float, str, bool])
    literal = st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3, unique=True).map(
        lambda xs: Literal[tuple(xs)]
    )
    enums = st.lists(st.text(string.ascii_lowercase, min_size=1, max_size=6), min_size=1, max_size=5, unique=True).map(
        _make_enum
    )
    leaf = st.one_of(scalars, literal, enums)
    if depth <= 0:
        return leaf
    inner = _type_hint(depth - 1)
    return st.one_of(
        leaf,
        inner.map(lambda t: Optional[t]),
        st.tuples(inner, inner).map(lambda ab: Union[ab[0], ab[1]]),
        inner.map(lambda t: list[t]),
        inner.map(lambda t: dict[str, t]),
        _model(depth - 1),
    )


def _model(depth: int) -> st.SearchStrategy[type]:
    @st.composite
    def build(draw: Any) -> type:
        names = draw(st.lists(IDENT, min_size=1, max_size=4, unique=True))
        fields: dict[str, Any] = {}
        for n in names:
            hint = draw(_type_hint(depth))
            fields[n] = (
                (hint, pydantic.Field(description=draw(st.sampled_from([None, "A field."]))))
                if draw(st.booleans())
                else (hint, ...)
            )
            if draw(st.booleans()):
                fields[n] = (Optional[hint], None)
        return pydantic.create_model(f"Model{next(_model_counter)}", **fields)

    return build()


@st.composite
def pydantic_tool(draw: Any, name: str) -> Tool:
    """A tool built the way users build one: a typed Python function read by ``Tool.from_function``
    (pydantic emits the input schema: models, Optional, Union, Literal, enums, nested models,
    lists, dicts, defaults)."""
    params = draw(st.lists(IDENT, min_size=0, max_size=4, unique=True))
    sig_params = []
    annotations: dict[str, Any] = {}
    for p in params:
        hint = draw(_type_hint(draw(st.sampled_from([0, 1, 1, 2]))))
        annotations[p] = hint
        default = inspect.Parameter.empty
        if draw(st.integers(0, 3)) == 0:
            annotations[p] = Optional[hint]
            default = None
        sig_params.append(
            inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotations[p])
        )

    def fn(**kwargs: Any) -> str:
        return "ok"

    fn.__name__ = name
    fn.__doc__ = "A generated tool. Use it when asked."
    fn.__signature__ = inspect.Signature(sig_params, return_annotation=str)  # type: ignore[attr-defined]
    fn.__annotations__ = {**annotations, "return": str}
    return Tool.from_function(fn, strict=draw(st.sampled_from([None, None, True, False])))


def _json_leaf() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.sampled_from(
            [
                {"type": "string"},
                {"type": "integer"},
                {"type": "number"},
                {"type": "boolean"},
                {"type": "null"},
                {"type": "string", "format": "email"},
                {"type": "string", "format": "uri"},
                {"type": "string", "format": "date-time"},
                {"type": "string", "format": "phone"},
                {"type": ["string", "null"]},
                {"type": "string", "nullable": True},
                {"const": "fixed"},
                {"type": "integer", "minimum": 0, "exclusiveMaximum": 10, "multipleOf": 2},
                {"type": "string", "pattern": "^[a-z]+$", "minLength": 1, "maxLength": 5},
                {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "minItems": 2},
                {"type": "object", "additionalProperties": {"type": "integer"}},
                {"type": "object", "patternProperties": {"^x-": {"type": "string"}}},
                {},
                {"description": "anything"},
            ]
        ),
        st.integers(1, 1500).map(lambda n: {"type": "string", "enum": [f"value_{i}" for i in range(n)]}),
        st.lists(st.one_of(st.integers(), st.text(max_size=3), st.none()), min_size=1, max_size=5).map(
            lambda xs: {"enum": xs}
        ),
    )


def _json_node(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    if depth <= 0:
        return _json_leaf()
    inner = _json_node(depth - 1)
    return st.one_of(
        _json_leaf(),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: {"anyOf": xs}),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: {"oneOf": xs}),
        st.lists(inner, min_size=1, max_size=2).map(lambda xs: {"allOf": xs}),
        inner.map(lambda s: {"type": "array", "items": s}),
        st.dictionaries(IDENT, inner, min_size=1, max_size=3).map(
            lambda p: {"type": "object", "properties": p, "required": sorted(p)[:1]}
        ),
        inner.map(lambda s: {**s, "description": "Described.", "title": "T", "default": None}),
    )


@st.composite
def handwritten_schema(draw: Any) -> dict[str, Any]:
    """An object schema as people and MCP servers write them."""
    props = draw(
        st.dictionaries(
            st.one_of(IDENT, st.sampled_from(["user-id", "$meta", "x.y", "a b", "ünï"])), _json_node(2), max_size=5
        )
    )
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if props and draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from(sorted(props)), unique=True))
    extra = draw(
        st.sampled_from(
            ["none", "defs", "recursive", "root-anyof", "root-oneof", "root-allof", "additional", "schema-uri", "not"]
        )
    )
    if extra == "defs":
        schema["$defs"] = {"Item": draw(_json_node(1))}
        schema["properties"]["item"] = {"$ref": "#/$defs/Item", "description": "An item."}
    elif extra == "recursive":
        schema["$defs"] = {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
            }
        }
        schema["properties"]["tree"] = {"$ref": "#/$defs/Node"}
    elif extra.startswith("root-"):
        schema[{"root-anyof": "anyOf", "root-oneof": "oneOf", "root-allof": "allOf"}[extra]] = [
            {"required": [k]} for k in sorted(props)[:2]
        ] or [{"properties": {}}]
    elif extra == "additional":
        schema["additionalProperties"] = draw(st.sampled_from([True, False, {"type": "string"}]))
    elif extra == "schema-uri":
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    elif extra == "not":
        schema["not"] = {"required": ["forbidden"]}
    return schema


# =============================================================================================
# conversations toolwire produced: synthetic vendor responses decoded by the real codecs
# =============================================================================================


@st.composite
def _turn_plan(draw: Any, tool_names: list[str]) -> dict[str, Any]:
    """What one model turn holds, vendor-neutral."""
    n_calls = draw(st.integers(0, 3)) if tool_names else 0
    calls = [
        (
            draw(st.sampled_from(tool_names)),
            draw(st.dictionaries(IDENT, st.one_of(st.integers(), TEXT, st.booleans()), max_size=3)),
        )
        for _ in range(n_calls)
    ]
    return {
        "reasoning": draw(st.sampled_from([None, None, "signed", "redacted"])),
        "reasoning_text": draw(TEXT),
        "text": draw(st.one_of(st.none(), TEXT)),
        "calls": calls,
        "cut": bool(calls) and draw(st.integers(0, 4)) == 0,  # the last call cut off by the output limit
        "sig": draw(B64),
        "with_gemini_id": draw(st.booleans()),
        "ids": [draw(st.text(ALNUM, min_size=8, max_size=24)) for _ in calls],
        "turn_id": draw(st.text(ALNUM, min_size=12, max_size=12)),  # vendors give every response and item its own id
    }


def _anthropic_response(p: dict[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if p["reasoning"] == "signed":
        content.append({"type": "thinking", "thinking": p["reasoning_text"], "signature": p["sig"]})
    elif p["reasoning"] == "redacted":
        content.append({"type": "redacted_thinking", "data": p["sig"]})
    if p["text"]:
        content.append({"type": "text", "text": p["text"]})
    for k, ((name, args), cid) in enumerate(zip(p["calls"], p["ids"])):
        cut = p["cut"] and k == len(p["calls"]) - 1
        content.append({"type": "tool_use", "id": "toolu_" + cid, "name": name, "input": {} if cut else args})
    stop = "max_tokens" if p["cut"] else "tool_use" if p["calls"] else "end_turn"
    return {
        "id": "msg_" + p["turn_id"],
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _chat_response(p: dict[str, Any]) -> dict[str, Any]:
    calls = []
    for k, ((name, args), cid) in enumerate(zip(p["calls"], p["ids"])):
        text = json.dumps(args)
        if p["cut"] and k == len(p["calls"]) - 1:
            text = text[: max(0, len(text) // 2)]
        calls.append({"id": "call_" + cid, "type": "function", "function": {"name": name, "arguments": text}})
    msg: dict[str, Any] = {"role": "assistant", "content": p["text"]}
    if calls:
        msg["tool_calls"] = calls
    finish = "length" if p["cut"] else "tool_calls" if calls else "stop"
    return {
        "id": "chatcmpl-" + p["turn_id"],
        "object": "chat.completion",
        "model": "gpt-4.1",
        "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _responses_response(p: dict[str, Any]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    if p["reasoning"]:
        out.append(
            {
                "type": "reasoning",
                "id": "rs_" + p["turn_id"],
                "status": "completed",
                "summary": [{"type": "summary_text", "text": p["reasoning_text"]}] if p["reasoning_text"] else [],
                "encrypted_content": p["sig"],
            }
        )
    if p["text"]:
        out.append(
            {
                "type": "message",
                "id": "msg_" + p["turn_id"],
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": p["text"], "annotations": []}],
            }
        )
    for k, ((name, args), cid) in enumerate(zip(p["calls"], p["ids"])):
        text = json.dumps(args)
        cut = p["cut"] and k == len(p["calls"]) - 1
        out.append(
            {
                "type": "function_call",
                "id": "fc_" + cid,
                "call_id": "call_" + cid,
                "name": name,
                "arguments": text[: len(text) // 2] if cut else text,
                "status": "incomplete" if cut else "completed",
            }
        )
    body: dict[str, Any] = {
        "id": "resp_" + p["turn_id"],
        "object": "response",
        "model": "gpt-5",
        "output": out,
        "status": "incomplete" if p["cut"] else "completed",
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    }
    if p["cut"]:
        body["incomplete_details"] = {"reason": "max_output_tokens"}
    return body


def _gemini_response(p: dict[str, Any]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if p["reasoning"] and p["reasoning_text"]:
        parts.append({"text": p["reasoning_text"], "thought": True})
    if p["text"]:
        parts.append({"text": p["text"]})
    calls = p["calls"][:-1] if p["cut"] else p["calls"]  # Gemini sends whole calls; a cut turn stops before the last
    for k, ((name, args), cid) in enumerate(zip(calls, p["ids"])):
        fc: dict[str, Any] = {"name": name, "args": args}
        if p["with_gemini_id"]:
            fc["id"] = cid
        part: dict[str, Any] = {"functionCall": fc}
        if k == 0 and p["reasoning"]:
            part["thoughtSignature"] = p["sig"]
        parts.append(part)
    if not parts:
        parts.append({"text": "done"})
    finish = "MAX_TOKENS" if p["cut"] else "STOP"
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash",
    }


RESPONSE_BUILDERS = {
    "anthropic": _anthropic_response,
    "openai-chat": _chat_response,
    "openai": _responses_response,
    "gemini": _gemini_response,
}


def _result_content(draw: Any) -> Any:
    kind = draw(st.sampled_from(["text", "text", "empty", "parts", "image-only"]))
    if kind == "text":
        return draw(TEXT)
    if kind == "empty":
        return ""
    if kind == "image-only":
        return [ImagePart(data=PNG, media_type="image/png")]
    return [TextPart(draw(TEXT)), ImagePart(data=PNG, media_type="image/png")]


def _user_prompt(draw: Any) -> Message:
    parts: list[Any] = [TextPart(draw(st.text(min_size=1, max_size=30).filter(str.strip)))]
    if draw(st.integers(0, 3)) == 0:
        parts.append(
            ImagePart(data=PNG, media_type="image/png")
            if draw(st.booleans())
            else ImagePart(url="https://example.com/a.png")
        )
    return Message("user", parts)


def _renumber_synthesized_ids(response: Any, conv: Any) -> None:
    """What the loop does to a decoded turn: an id toolwire synthesized (Gemini sent none) that
    collides with an earlier call's id gets a suffix, so every result pairs with one call."""
    seen = {c.id for m in conv.messages for c in m.tool_calls}
    for call in response.tool_calls:
        if call.id_synthesized and call.id in seen:
            n = 2
            while f"{call.id}-{n}" in seen:
                n += 1
            call.id = f"{call.id}-{n}"
        seen.add(call.id)


@st.composite
def produced_conversation(draw: Any, tool_names: list[str]) -> list[Message]:
    """A conversation as toolwire's loop builds it: a user prompt, then rounds of (a model turn
    decoded from a synthetic response of a randomly chosen vendor, the results the loop appends),
    sometimes a new user prompt; it always ends on a user message (a request to send)."""
    from toolwire.types import Conversation

    conv = Conversation(messages=[_user_prompt(draw)])
    for _ in range(draw(st.integers(0, 3))):
        source = draw(st.sampled_from(APIS))
        plan = draw(_turn_plan(tool_names))
        response = registry.codec(source).decode_response(RESPONSE_BUILDERS[source](plan))
        _renumber_synthesized_ids(response, conv)
        conv.append(response.to_message())
        calls = response.tool_calls
        if calls:
            results = []
            for c in calls:
                if not c.is_valid:
                    results.append(
                        ToolResult(
                            c.id, f"error: the call was not run: {c.invalid or 'cut off'}", is_error=True, name=c.name
                        )
                    )
                else:
                    results.append(ToolResult(c.id, _result_content(draw), is_error=draw(st.booleans()), name=c.name))
            conv.append(Message("user", results))
        else:
            conv.append(_user_prompt(draw))
    if conv.messages[-1].role != "user":
        conv.append(_user_prompt(draw))
    if draw(st.integers(0, 3)) == 0 and conv.messages[-1].tool_results:
        conv.append(_user_prompt(draw))  # a new prompt right after the results (two user messages in a row)
    return list(conv.messages)


# =============================================================================================
# hand-built canonical histories: anything a user may hand over
# =============================================================================================

FOREIGN_IDS = st.one_of(
    _token("toolu_", 22),
    _token("call_", 24),
    _token("fc_", 20),
    st.sampled_from(["function-call-1", "call|1", "tool:1", "a.b", "0", "x" * 300, "ünï"]),
    st.text(min_size=1, max_size=12),
)
FOREIGN_NAMES = st.sampled_from(["mcp.get:v2", "files.read", "1tool", "a" * 70, "get weather", "ünï", "ns/tool"])


@st.composite
def hand_built_conversation(draw: Any, tool_names: list[str]) -> list[Message]:
    msgs: list[Message] = [_user_prompt(draw)]
    for _ in range(draw(st.integers(0, 3))):
        parts: list[Any] = []
        for _ in range(draw(st.integers(0, 2))):
            parts.append(
                ReasoningPart(
                    text=draw(TEXT),
                    signature=draw(st.one_of(st.none(), B64, st.just("not base64!"))),
                    encrypted=draw(st.one_of(st.none(), B64)),
                    provider=draw(
                        st.sampled_from([None, "anthropic", "openai", "openai-responses", "gemini", "other"])
                    ),
                )
            )
        if draw(st.booleans()):
            parts.append(TextPart(draw(TEXT)))
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            name = (
                draw(st.one_of(st.sampled_from(tool_names or ["t"]), FOREIGN_NAMES))
                if draw(st.integers(0, 5)) == 0
                else draw(st.sampled_from(tool_names or ["t"]))
            )
            kind = draw(st.sampled_from(["ok", "ok", "ok", "invalid", "incomplete", "none"]))
            call = ToolCall(
                id=draw(FOREIGN_IDS),
                name=name,
                arguments=None
                if kind in ("invalid", "none")
                else draw(st.dictionaries(IDENT, st.integers(), max_size=2)),
                raw_arguments='{"a": ' if kind in ("invalid", "incomplete") else None,
                invalid="cut off" if kind == "invalid" else None,
                incomplete=kind == "incomplete",
                id_synthesized=draw(st.integers(0, 5)) == 0,
            )
            calls.append(call)
            parts.append(call)
        msgs.append(Message("assistant", parts))
        answer = draw(st.sampled_from(["all", "all", "all", "none", "some", "twice", "foreign", "split"]))
        results = [ToolResult(c.id, _result_content(draw), is_error=draw(st.booleans())) for c in calls]
        if answer == "none":
            results = []
        elif answer == "some":
            results = results[: len(results) // 2]
        elif answer == "twice":
            results = results + results[:1]
        elif answer == "foreign":
            results.append(ToolResult(draw(FOREIGN_IDS), "stray"))
        if answer == "split" and len(results) > 1:
            msgs += [Message("user", [r]) for r in results]
        elif results or not calls:
            msgs.append(Message("user", results or [TextPart(draw(TEXT))]))
    if msgs[-1].role != "user" and draw(st.booleans()):
        msgs.append(_user_prompt(draw))
    return msgs
