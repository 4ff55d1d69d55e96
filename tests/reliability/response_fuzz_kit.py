"""Pieces of the vendor-answer fuzz test (``test_fuzz_responses.py``): realistic answers of the
four APIs (canned here, and read from the shared recordings at test time), the vocabularies the
installed SDKs' types declare, Hypothesis mutations of those answers, and their serialisation
to the bytes a server sends (one JSON body, an event stream, a JSON-array stream), cut into
chunks at any byte.

An answer is a :class:`Seed`: its API, its form (``"json"``, ``"sse"`` or ``"array"``) and its
events — ``(event name or None, data)`` pairs; a JSON body is one event. The tool the answer
calls (its name, and its input schema where the recorded request declared one in JSON Schema)
rides along, so a run can offer exactly that tool.

Canned answers are written here from the SDKs' response types (``anthropic.types.Message`` and
``RawMessageStreamEvent``, ``openai.types.chat.ChatCompletion`` / ``ChatCompletionChunk``,
``openai.types.responses.Response`` / ``ResponseStreamEvent``,
``google.genai.types.GenerateContentResponse``) with the details the recordings show (a text
block before the calls, ``""`` as the first ``input_json_delta``, the usage chunk with empty
``choices``, a ``thoughtSignature`` beside a ``functionCall``), and text with multi-byte UTF-8
characters so that a cut can fall inside one.

Mutations (:func:`mutate`, one to three per answer): a field dropped, set to null, retyped
(:func:`_retyped`: string ↔ number ↔ object ↔ array) or emptied; an enum-like field
(:data:`ENUM_KEYS`) set to another value its SDK type declares (:func:`vocabulary`), to one it
does not (:data:`UNKNOWN`) or to a non-string (:data:`NOT_STRINGS`); a Gemini part retyped by
renaming its data key, an event renamed; a usage count made huge, negative, fractional, text
or boolean (:data:`BAD_COUNTS`); tool arguments made a non-object (:data:`NOT_OBJECTS`),
invalid JSON text (:data:`BAD_ARGUMENT_TEXT`) or wrong for the schema; a list item duplicated;
an index moved (gaps, negative, huge); stream events duplicated, swapped, moved, dropped or cut
off after any one. :func:`cuts` then cuts the bytes into chunks (whole, one byte at a time, or
at drawn offsets, inside multi-byte characters too); :func:`framings` writes a valid answer in
the other forms its format allows.
"""

from __future__ import annotations

import copy
import json
import types
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from hypothesis import strategies as st

APIS = ["anthropic", "openai-chat", "openai", "gemini"]

#: The tool every canned answer calls.
LOOKUP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["q"],
    "additionalProperties": False,
}
#: Text with 2-, 3- and 4-byte UTF-8 characters (a byte cut can fall inside each).
TEXT = "Je cherche « café » — 日本 🦩"
ARGS = {"q": "café 🦩 日本", "n": 2}

Event = tuple[str | None, Any]


@dataclass
class Seed:
    api: str
    name: str
    kind: Literal["json", "sse", "array"]
    events: list[Event]
    tool_name: str = "lookup"
    schema: dict[str, Any] = field(default_factory=lambda: dict(LOOKUP_SCHEMA))
    #: the body exactly as recorded (a recording), for the byte-split comparison
    raw: bytes | None = None

    def copy(self) -> Seed:
        return Seed(self.api, self.name, self.kind, copy.deepcopy(self.events), self.tool_name, self.schema, None)


# ------------------------------------------------------------------------------ canned answers


def _anthropic() -> list[Seed]:
    usage = {
        "input_tokens": 412,
        "cache_creation_input_tokens": 100,
        "cache_read_input_tokens": 2048,
        "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 87,
        "service_tier": "standard",
    }
    message = {
        "id": "msg_01Fz",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "thinking", "thinking": "The user wants café.", "signature": "EqQBCkYIBhgCIkA="},
            {"type": "text", "text": TEXT},
            {"type": "tool_use", "id": "toolu_01A", "name": "lookup", "input": ARGS},
            {"type": "tool_use", "id": "toolu_01B", "name": "lookup", "input": {"q": "x"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": usage,
    }
    start = dict(message, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
    args = json.dumps(ARGS, ensure_ascii=False)
    evs: list[dict[str, Any]] = [
        {"type": "message_start", "message": start},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {"type": "ping"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The user "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "wants café."}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "EqQBCkYIBhgCIkA="},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": TEXT[:12]}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": TEXT[12:]}},
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_01A", "name": "lookup", "input": {}},
        },
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": args[:9]}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": args[9:]}},
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {
                "input_tokens": 412,
                "cache_creation_input_tokens": 100,
                "cache_read_input_tokens": 2048,
                "output_tokens": 87,
            },
        },
        {"type": "message_stop"},
    ]
    return [
        Seed("anthropic", "canned message", "json", [(None, message)]),
        Seed("anthropic", "canned stream", "sse", [(e["type"], e) for e in evs]),
    ]


def _chat() -> list[Seed]:
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 40,
        "total_tokens": 160,
        "prompt_tokens_details": {"cached_tokens": 64, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 16, "audio_tokens": 0},
    }
    completion = {
        "id": "chatcmpl-Bx",
        "object": "chat.completion",
        "created": 1744000000,
        "model": "gpt-4.1-mini-2025-04-14",
        "system_fingerprint": "fp_1",
        "service_tier": "default",
        "choices": [
            {
                "index": 0,
                "logprobs": None,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": TEXT,
                    "refusal": None,
                    "annotations": [],
                    "tool_calls": [
                        {
                            "id": "call_A",
                            "type": "function",
                            "function": {"name": "lookup", "arguments": json.dumps(ARGS, ensure_ascii=False)},
                        },
                        {"id": "call_B", "type": "function", "function": {"name": "lookup", "arguments": '{"q":"x"}'}},
                    ],
                },
            }
        ],
        "usage": usage,
    }
    base = {
        "id": "chatcmpl-Bx",
        "object": "chat.completion.chunk",
        "created": 1744000000,
        "model": "gpt-4.1-mini-2025-04-14",
        "system_fingerprint": "fp_1",
    }
    args = json.dumps(ARGS, ensure_ascii=False)

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return dict(base, choices=[{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}])

    evs: list[Event] = [
        (None, chunk({"role": "assistant", "content": "", "refusal": None})),
        (None, chunk({"content": TEXT[:12]})),
        (None, chunk({"content": TEXT[12:]})),
        (
            None,
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_A",
                            "type": "function",
                            "function": {"name": "lookup", "arguments": ""},
                        }
                    ]
                }
            ),
        ),
        (None, chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[:9]}}]})),
        (None, chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[9:]}}]})),
        (
            None,
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 1,
                            "id": "call_B",
                            "type": "function",
                            "function": {"name": "lookup", "arguments": ""},
                        }
                    ]
                }
            ),
        ),
        (None, chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"q":"x"}'}}]})),
        (None, chunk({}, "tool_calls")),
        (None, dict(base, choices=[], usage=usage)),
        (None, "[DONE]"),
    ]
    return [
        Seed("openai-chat", "canned completion", "json", [(None, completion)]),
        Seed("openai-chat", "canned stream", "sse", evs),
    ]


def _responses() -> list[Seed]:
    args = json.dumps(ARGS, ensure_ascii=False)
    reasoning = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Looking café up."}],
        "encrypted_content": "gAAAAB",
    }
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "phase": "commentary",
        "content": [{"type": "output_text", "text": TEXT, "annotations": [], "logprobs": []}],
    }
    call = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_A",
        "name": "lookup",
        "arguments": args,
        "status": "completed",
    }
    usage = {
        "input_tokens": 300,
        "input_tokens_details": {"cached_tokens": 128},
        "output_tokens": 50,
        "output_tokens_details": {"reasoning_tokens": 20},
        "total_tokens": 350,
    }
    response = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1744000000,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "model": "gpt-5-2025-08-07",
        "output": [reasoning, message, call],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage,
    }
    evs: list[dict[str, Any]] = [
        {"type": "response.created", "response": dict(response, status="in_progress", output=[], usage=None)},
        {"type": "response.in_progress", "response": dict(response, status="in_progress", output=[], usage=None)},
        {"type": "response.output_item.added", "output_index": 0, "item": dict(reasoning, summary=[])},
        {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": dict(message, status="in_progress", content=[]),
        },
        {
            "type": "response.content_part.added",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": TEXT[:12],
            "logprobs": [],
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": TEXT[12:],
            "logprobs": [],
        },
        {
            "type": "response.output_text.done",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "text": TEXT,
            "logprobs": [],
        },
        {
            "type": "response.content_part.done",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "part": message["content"][0],
        },
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": dict(call, arguments="", status="in_progress"),
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 2,
            "delta": args[:9],
            "obfuscation": "x1",
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 2,
            "delta": args[9:],
            "obfuscation": "x2",
        },
        {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 2, "arguments": args},
        {"type": "response.output_item.done", "output_index": 2, "item": call},
        {"type": "response.completed", "response": response},
    ]
    for i, e in enumerate(evs):
        e["sequence_number"] = i
    return [
        Seed("openai", "canned response", "json", [(None, response)]),
        Seed("openai", "canned stream", "sse", [(e["type"], e) for e in evs]),
    ]


def _gemini() -> list[Seed]:
    usage = {
        "promptTokenCount": 200,
        "candidatesTokenCount": 30,
        "thoughtsTokenCount": 25,
        "cachedContentTokenCount": 64,
        "toolUsePromptTokenCount": 5,
        "totalTokenCount": 260,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 200}],
    }
    parts = [
        {"text": "Thinking about café.", "thought": True},
        {"text": TEXT},
        {"functionCall": {"name": "lookup", "args": ARGS, "id": "w71i0cbt"}, "thoughtSignature": "CiQBjz1rX8Q="},
        {"functionCall": {"name": "lookup", "args": {"q": "x"}}},
    ]
    body = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash",
        "responseId": "Zx1",
    }
    chunks = []
    for i, part in enumerate([*parts, {"text": ""}]):
        c: dict[str, Any] = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
            "usageMetadata": dict(usage, candidatesTokenCount=min(30, 8 * (i + 1))),
            "modelVersion": "gemini-2.5-flash",
            "responseId": "Zx1",
        }
        if i == len(parts):
            c["candidates"][0]["finishReason"] = "STOP"
        chunks.append((None, c))
    return [
        Seed("gemini", "canned response", "json", [(None, body)]),
        Seed("gemini", "canned stream", "sse", chunks),
        Seed("gemini", "canned JSON-array stream", "array", copy.deepcopy(chunks)),
    ]


def canned(api: str) -> list[Seed]:
    return {"anthropic": _anthropic, "openai-chat": _chat, "openai": _responses, "gemini": _gemini}[api]()


# ------------------------------------------------------------------------------ recordings


def _tool_names(node: Any, out: list[str]) -> list[str]:
    """Names of client tool calls in an answer, in order (any of the four APIs)."""
    if isinstance(node, dict):
        if node.get("type") in ("tool_use", "function_call") and isinstance(node.get("name"), str):
            out.append(node["name"])
        fn = node.get("function")
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            out.append(fn["name"])
        fc = node.get("functionCall")
        if isinstance(fc, dict) and isinstance(fc.get("name"), str):
            out.append(fc["name"])
        for v in node.values():
            _tool_names(v, out)
    elif isinstance(node, list):
        for v in node:
            _tool_names(v, out)
    return out


def _declared_schema(api: str, request: Any, name: str) -> dict[str, Any]:
    """The JSON Schema the recorded request declared for tool ``name`` (``{"type": "object"}``
    when it declared none in JSON Schema, e.g. Gemini's OpenAPI ``parameters``)."""
    tools = request.get("tools") if isinstance(request, dict) else None
    for t in tools if isinstance(tools, list) else []:
        if not isinstance(t, dict):
            continue
        if api == "anthropic" and t.get("name") == name and isinstance(t.get("input_schema"), dict):
            return t["input_schema"]
        if api == "openai-chat" and (t.get("function") or {}).get("name") == name:
            params = t["function"].get("parameters")
            return params if isinstance(params, dict) else {"type": "object"}
        if api == "openai" and t.get("name") == name and isinstance(t.get("parameters"), dict):
            return t["parameters"]
        if api == "gemini":
            for d in t.get("functionDeclarations") or t.get("function_declarations") or []:
                if isinstance(d, dict) and d.get("name") == name:
                    js = d.get("parametersJsonSchema") or d.get("parameters_json_schema")
                    return js if isinstance(js, dict) else {"type": "object"}
    return {"type": "object"}


@cache
def recorded(api: str) -> tuple[Seed, ...]:
    """Every 200 answer of ``api`` in the shared recordings, read now (empty when the folder is
    absent). Bodies are decoded (gunzipped) and served without ``Content-Encoding``."""
    from toolwire.testing.cassettes import load_cassette, recordings_dir

    root = recordings_dir()
    if root is None:
        return ()
    folder = "openai-responses" if api == "openai" else api
    out: list[Seed] = []
    for path in sorted(Path(root, folder).glob("*.yaml")):
        for it in load_cassette(path):
            if it.status != 200 or not it.response_text:
                continue
            label = f"{folder}/{path.name}#{it.index}"
            if it.stream_format == "sse":
                evs: list[Event] = [(e.event, e.data) for e in it.sse_events]
                kind: Literal["json", "sse", "array"] = "sse"
            elif it.stream_format == "json-array":
                evs = [(None, c) for c in it.stream_chunks]
                kind = "array"
            else:
                evs = [(None, it.response_json)]
                kind = "json"
            names = _tool_names([d for _, d in evs], [])
            name = names[0] if names else "lookup"
            schema = _declared_schema(api, it.request_json, name) if names else dict(LOOKUP_SCHEMA)
            out.append(Seed(api, label, kind, evs, name, schema, it.response_text.encode()))
    return tuple(out)


# ------------------------------------------------------------------------------ SDK vocabularies


def _type_literals(tp: Any, out: list[str]) -> list[str]:
    """The ``type`` literals of every member of a (discriminated) union of SDK models."""
    origin = get_origin(tp)
    if origin is Annotated:
        return _type_literals(get_args(tp)[0], out)
    if origin is Union or origin is types.UnionType:
        for a in get_args(tp):
            _type_literals(a, out)
        return out
    fields = getattr(tp, "model_fields", None)
    if fields and "type" in fields and get_origin(fields["type"].annotation) is Literal:
        out.extend(str(v) for v in get_args(fields["type"].annotation))
    return out


def _literals(tp: Any) -> list[str]:
    if get_origin(tp) is Union or get_origin(tp) is types.UnionType:
        return [v for a in get_args(tp) for v in _literals(a)]
    return [str(v) for v in get_args(tp)] if get_origin(tp) is Literal else []


@cache
def vocabulary(api: str) -> dict[str, tuple[str, ...]]:
    """Known values of the enum-like fields of ``api``, from the installed SDK's types: a key
    name → the values the SDK declares for it."""
    if api == "anthropic":
        import anthropic.types as at

        kinds = (
            _type_literals(at.ContentBlock, [])
            + _type_literals(at.RawMessageStreamEvent, [])
            + _type_literals(at.RawContentBlockDelta, [])
        )
        return {
            "type": (*kinds, "ping", "error", "message"),
            "stop_reason": tuple(get_args(at.StopReason)),
            "role": ("assistant", "user"),
        }
    if api == "openai-chat":
        from openai.types.chat import chat_completion, chat_completion_chunk

        return {
            "finish_reason": tuple(_literals(chat_completion.Choice.model_fields["finish_reason"].annotation)),
            "role": tuple(_literals(chat_completion_chunk.ChoiceDelta.model_fields["role"].annotation)),
            "type": ("function", "custom"),
            "object": ("chat.completion", "chat.completion.chunk"),
        }
    if api == "openai":
        import openai.types.responses as rt

        return {
            "type": tuple(
                _type_literals(rt.ResponseOutputItem, [])
                + _type_literals(rt.ResponseStreamEvent, [])
                + ["output_text", "refusal", "summary_text", "reasoning_text"]
            ),
            "status": tuple(_literals(rt.Response.model_fields["status"].annotation)),
            "role": ("assistant", "user", "system", "developer"),
            "phase": ("commentary", "final_answer"),
            "reason": ("max_output_tokens", "content_filter"),
        }
    from google.genai import types as gt

    return {
        "finishReason": tuple(v.value for v in gt.FinishReason),
        "role": ("model", "user"),
        # a part is typed by which of these keys it has
        "part": tuple(
            f.alias or n for n, f in gt.Part.model_fields.items() if n not in ("thought", "thought_signature")
        ),
    }


# ------------------------------------------------------------------------------ mutations

#: Values a vendor never documented for an enum-like field.
UNKNOWN = ["future_kind", "", "TOOL_USE", "tool_use ", "unknown"]
#: An enum-like field that is not even a string.
NOT_STRINGS: list[Any] = [None, 0, True, ["tool_use"], {"type": "text"}]
#: Token counts no vendor should send: huge, negative, fractional, text, boolean.
BAD_COUNTS: list[Any] = [-1, -(2**31), 2**63, 2**64 + 1, 10**30, 1e308, 1.5, -0.5, "12", True, None, [], {}]
#: Argument values that are not a JSON object.
NOT_OBJECTS: list[Any] = [None, [], ["q", "x"], "x", 7, 2.5, True, ""]
#: Argument text that is not one JSON object (OpenAI ``arguments``, Anthropic ``partial_json``).
BAD_ARGUMENT_TEXT = [
    "",
    "{",
    '{"q": ',
    '{"q": "x"',
    "{q: 1}",
    "{'q': 'x'}",
    '{"q": "x",}',
    '{"q": "x"}{"q": "y"}',
    '{"q": "x"} trailing',
    "NaN",
    "null",
    "[]",
    '"x"',
    "7",
    '{"q": NaN}',
    '{"q": "\\ud83d"}',
    '{"q": 1e400}',
    '{"n": 99999999999999999999999}',
    '{"q": "x", "q": 5}',
    '{"q": "x", "n": "2"}',
    '{"q": "x", "extra": 1}',
    '{"n": 2}',
    '```json\n{"q": "x"}\n```',
    "[" * 2000,
]
USAGE_KEYS = {"usage", "usageMetadata"}
ENUM_KEYS = {"type", "stop_reason", "finish_reason", "finishReason", "role", "status", "phase", "reason", "object"}
ARG_KEYS = {"input", "arguments", "args", "partial_json"}
INDEX_KEYS = {"index", "output_index", "content_index", "sequence_number", "summary_index"}


def paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(paths(v, (*path, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(paths(v, (*path, i)))
    return out


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        root = root[p]
    return root


def _set(root: Any, path: tuple[Any, ...], value: Any) -> None:
    """Put a copy of ``value`` at ``path`` (the value lists above are shared between examples,
    and a later mutation may change what it put in place)."""
    _get(root, path[:-1])[path[-1]] = copy.deepcopy(value)


def _retyped(value: Any) -> list[Any]:
    """``value`` as the other JSON types (string ↔ number ↔ object ↔ array, and null/bool)."""
    out: list[Any] = [None, True, [value], {"value": value}]
    if isinstance(value, str):
        out += [0, 1.5, len(value), [], {}]
        try:
            out.append(json.loads(value))
        except ValueError:
            pass
    elif isinstance(value, bool):
        out += ["true", 1]
    elif isinstance(value, (int, float)):
        out += [str(value), [value], {}]
    elif isinstance(value, list):
        out += [json.dumps(value), value[0] if value else "", {str(i): v for i, v in enumerate(value)}]
    elif isinstance(value, dict):
        out += [json.dumps(value), list(value.values()), list(value.items())[:1], "object"]
    return out


def _empty(value: Any) -> Any:
    if isinstance(value, str):
        return ""
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    return 0


MUTATIONS = [
    "drop",
    "null",
    "retype",
    "empty",
    "enum",
    "part-kind",
    "usage",
    "arguments",
    "duplicate-item",
    "index-gap",
    "event-duplicate",
    "event-swap",
    "event-move",
    "event-drop",
    "truncate",
]
#: Mutations of the event sequence (not of one JSON body).
STREAM_MUTATIONS = {"event-duplicate", "event-swap", "event-move", "event-drop", "truncate"}


def mutate(data: st.DataObject, seed: Seed) -> list[str]:
    """Apply one mutation to ``seed`` (in place, on a copy the caller made); returns a label
    saying what was done (no-op mutations that found no place say so)."""
    api = seed.api
    ops = MUTATIONS if seed.kind != "json" else [m for m in MUTATIONS if m not in STREAM_MUTATIONS]
    op = data.draw(st.sampled_from(ops), label="mutation")
    evs = seed.events
    docs = [(i, p) for i, (_, d) in enumerate(evs) if not isinstance(d, str) for p in paths(d)]

    def pick(pred: Any) -> tuple[int, tuple[Any, ...]] | None:
        cands = [(i, p) for i, p in docs if p and pred(p, _get(evs[i][1], p))]
        return data.draw(st.sampled_from(cands), label="where") if cands else None

    if op in ("drop", "null", "retype", "empty"):
        at = pick(lambda p, v: True)
        if at is None:
            return [f"{op}: nowhere"]
        i, p = at
        doc = evs[i][1]
        if op == "drop":
            parent = _get(doc, p[:-1])
            del parent[p[-1]]
        elif op == "null":
            _set(doc, p, None)
        elif op == "retype":
            _set(doc, p, data.draw(st.sampled_from(_retyped(_get(doc, p))), label="as"))
        else:
            _set(doc, p, _empty(_get(doc, p)))
        return [f"{op} event {i} {p}"]
    if op == "enum":
        vocab = vocabulary(api)
        at = pick(lambda p, v: isinstance(p[-1], str) and p[-1] in ENUM_KEYS and isinstance(v, (str, type(None))))
        if at is None:
            return ["enum: nowhere"]
        i, p = at
        known = list(vocab.get(p[-1], ()))
        value = data.draw(st.sampled_from(known + UNKNOWN + NOT_STRINGS), label="value")
        _set(evs[i][1], p, value)
        if evs[i][0] is not None and p == ("type",) and data.draw(st.booleans(), label="rename event too"):
            evs[i] = (value if isinstance(value, str) and value else None, evs[i][1])
        return [f"enum event {i} {p} = {value!r}"]
    if op == "part-kind":  # Gemini: a part typed by another key; others: an SSE event renamed
        if api == "gemini":
            at = pick(lambda p, v: len(p) >= 2 and p[-2] == "parts" and isinstance(v, dict) and bool(v))
            if at is None:
                return ["part-kind: nowhere"]
            i, p = at
            part = _get(evs[i][1], p)
            old = data.draw(st.sampled_from(sorted(part)), label="key")
            new = data.draw(st.sampled_from([*vocabulary(api)["part"], "futurePart"]), label="as")
            part[new] = part.pop(old)
            return [f"part {i} {p} key {old} -> {new}"]
        named = [i for i, (n, _) in enumerate(evs) if n is not None]
        if not named:
            return ["part-kind: no event names"]
        i = data.draw(st.sampled_from(named), label="event")
        name = data.draw(st.sampled_from([*vocabulary(api).get("type", ()), *UNKNOWN]), label="name")
        evs[i] = (name or None, evs[i][1])
        return [f"event {i} named {name!r}"]
    if op == "usage":
        at = pick(
            lambda p, v: (
                any(k in USAGE_KEYS for k in p if isinstance(k, str))
                and isinstance(v, (int, float))
                and not isinstance(v, bool)
            )
        )
        if at is None:
            return ["usage: nowhere"]
        i, p = at
        value = data.draw(st.sampled_from(BAD_COUNTS), label="count")
        _set(evs[i][1], p, value)
        return [f"usage event {i} {p} = {value!r}"]
    if op == "arguments":
        at = pick(lambda p, v: isinstance(p[-1], str) and p[-1] in ARG_KEYS)
        if at is None:
            return ["arguments: nowhere"]
        i, p = at
        current = _get(evs[i][1], p)
        if isinstance(current, str):
            value = data.draw(st.sampled_from(BAD_ARGUMENT_TEXT + [json.dumps(v) for v in NOT_OBJECTS]), label="text")
        else:
            value = data.draw(
                st.sampled_from(
                    NOT_OBJECTS
                    + [
                        {"q": 5},
                        {"q": None},
                        {"q": "x", "n": "2"},
                        {"q": "x", "n": 2.5},
                        {"q": "x", "extra": 1},
                        {"n": 2},
                        {"q": {"nested": [1]}},
                    ]
                ),
                label="value",
            )
        _set(evs[i][1], p, value)
        return [f"arguments event {i} {p} = {value!r}"[:300]]
    if op == "duplicate-item":
        at = pick(lambda p, v: isinstance(v, list) and bool(v))
        if at is None:
            return ["duplicate-item: nowhere"]
        i, p = at
        lst = _get(evs[i][1], p)
        k = data.draw(st.integers(0, len(lst) - 1), label="item")
        lst.insert(k, copy.deepcopy(lst[k]))
        return [f"duplicate event {i} {p}[{k}]"]
    if op == "index-gap":
        at = pick(
            lambda p, v: (
                isinstance(p[-1], str) and p[-1] in INDEX_KEYS and isinstance(v, int) and not isinstance(v, bool)
            )
        )
        if at is None:
            return ["index-gap: nowhere"]
        i, p = at
        value = _get(evs[i][1], p) + data.draw(st.sampled_from([1, 2, 7, -1, 2**40]), label="gap")
        _set(evs[i][1], p, value)
        return [f"index event {i} {p} = {value}"]
    # stream-level mutations
    if len(evs) < 2 and op != "truncate":
        return [f"{op}: one event"]
    n = len(evs)
    if op == "event-duplicate":
        i = data.draw(st.integers(0, n - 1), label="event")
        evs.insert(i, copy.deepcopy(evs[i]))
        return [f"duplicate event {i}"]
    if op == "event-swap":
        i = data.draw(st.integers(0, n - 2), label="event")
        evs[i], evs[i + 1] = evs[i + 1], evs[i]
        return [f"swap events {i},{i + 1}"]
    if op == "event-move":
        i = data.draw(st.integers(0, n - 1), label="from")
        j = data.draw(st.integers(0, n - 1), label="to")
        evs.insert(j, evs.pop(i))
        return [f"move event {i} to {j}"]
    if op == "event-drop":
        i = data.draw(st.integers(0, n - 1), label="event")
        del evs[i]
        return [f"drop event {i}"]
    k = data.draw(st.integers(0, max(0, n - 1)), label="keep")
    del evs[k:]
    return [f"truncate to {k} events"]


# ------------------------------------------------------------------------------ bytes


def _dumps(data: Any) -> str:
    if isinstance(data, str):
        return data
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: sent as its JSON escape, as a server would
        text = json.dumps(data)
    return text


def serialise(seed: Seed, crlf: bool = False) -> tuple[bytes, str]:
    """The body a server sends for ``seed`` and its content type."""
    if seed.kind == "json":
        return _dumps(seed.events[0][1]).encode(), "application/json"
    if seed.kind == "array":
        return ("[" + ",\n".join(_dumps(d) for _, d in seed.events) + "]").encode(), "application/json"
    nl = "\r\n" if crlf else "\n"
    out = []
    for name, d in seed.events:
        head = f"event: {name}{nl}" if name else ""
        out.append(f"{head}data: {_dumps(d)}{nl}{nl}")
    return "".join(out).encode(), "text/event-stream"


def split(raw: bytes, cuts: list[int]) -> list[bytes]:
    """``raw`` cut at every offset in ``cuts``."""
    at = sorted({c for c in cuts if 0 < c < len(raw)})
    return [raw[a:b] for a, b in zip([0, *at], [*at, len(raw)])]


def utf8_inner_offsets(raw: bytes) -> list[int]:
    """Offsets that fall inside a multi-byte UTF-8 character (after a lead or a continuation
    byte, before a continuation byte)."""
    return [i for i in range(1, len(raw)) if raw[i] & 0xC0 == 0x80]


def cuts(raw: bytes) -> st.SearchStrategy[list[bytes]]:
    """Chunkings of ``raw``: whole, one byte at a time, or cut at a few offsets — some of them
    inside multi-byte characters."""
    inner = utf8_inner_offsets(raw)
    offsets = st.integers(0, len(raw))
    if inner:
        offsets = offsets | st.sampled_from(inner)
    return st.one_of(
        st.just([raw]),
        st.just([raw[i : i + 1] for i in range(len(raw))]),
        st.lists(offsets, max_size=12).map(lambda cs: split(raw, cs)),
    )


@st.composite
def framings(draw: Any, seed: Seed) -> bytes:
    """``seed`` (unchanged) written in any of the forms its format allows: JSON with other
    white space, ``\\u`` escapes or a byte-order mark; an event stream (WHATWG "Server-sent
    events", 9.2.6) with LF, CRLF or CR line ends, a BOM, comment lines, ``id:``/``retry:``/unknown
    fields, ``data:`` without its space, data on several lines, the ``event:`` line after the
    data, extra blank lines. Each form means the same answer."""
    ascii_ = draw(st.booleans(), label="\\u escapes")
    indent = draw(st.sampled_from([None, None, 0, 2]), label="indent")
    bom = "\ufeff" if draw(st.integers(0, 5), label="bom") == 0 else ""

    def dumps(d: Any, multiline: bool = False) -> str:
        if isinstance(d, str):
            return d
        text = json.dumps(d, ensure_ascii=ascii_, indent=indent if not multiline else 1)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = json.dumps(d, indent=indent)
        return text

    if seed.kind == "json":
        return (bom + dumps(seed.events[0][1])).encode()
    if seed.kind == "array":
        sep = draw(st.sampled_from([",", ",\n", ",\r\n", " , "]), label="separator")
        return (bom + "[" + sep.join(dumps(d) for _, d in seed.events) + "]").encode()
    nl = draw(st.sampled_from(["\n", "\r\n", "\r"]), label="line end")
    out = [bom]
    for name, d in seed.events:
        lines: list[str] = []
        if draw(st.integers(0, 5), label="comment") == 0:
            lines.append(": keep-alive")
        space = " " if draw(st.integers(0, 3), label="data space") else ""
        multiline = not isinstance(d, str) and draw(st.integers(0, 4), label="multi-line") == 0
        data_lines = [f"data:{space}{line}" for line in dumps(d, multiline).split("\n")]
        extra = draw(st.sampled_from([[], [], [], ["id: 7"], ["retry: 3000"], ["x-unknown: 1"]]), label="field")
        head = [f"event: {name}"] if name else []
        if draw(st.integers(0, 4), label="event after data") == 0:
            lines += extra + data_lines + head
        else:
            lines += head + extra + data_lines
        blank = nl * draw(st.sampled_from([1, 1, 1, 2]), label="blank lines")
        out.append(nl.join(lines) + nl + blank)
    return "".join(out).encode()
