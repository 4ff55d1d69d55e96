"""Fuzzed vendor answers, through the real SDKs (only the network replaced by
``httpx2.MockTransport``): every mutated answer ends as a ``Response`` or a typed toolwire error
(``ToolwireError``), never a raw exception.

Budget (fixed, so CI time is fixed): :data:`EXAMPLES` examples per API and mode, plain and
streamed — 4 APIs × 2 modes × 150 = 1,200 answers per run, derandomized (the same examples every
run; set ``TOOLWIRE_FUZZ_SEED`` to explore others). Mutations: a value anywhere in the body (or in
one stream event) replaced by an arbitrary JSON value, a key deleted, a list item duplicated,
text with lone surrogates / control characters, an event dropped or repeated, the bytes cut at
any offset or one byte changed.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from typing import Any

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_wire import APIS, text_body, tool_body

import toolwire
from toolwire.errors import ToolwireError
from toolwire.tools import Tool
from toolwire.types import Message, Response

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

#: Examples per API and mode.
EXAMPLES = 150
SEED = os.environ.get("TOOLWIRE_FUZZ_SEED")
OUTCOMES: Counter[str] = Counter()

TOOL = Tool.from_schema(
    "lookup",
    "Look a word up. Use when asked.",
    {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}},
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["\ud83d", "\x00", "tool_use", "function_call", "STOP", "text", "", "{"]),
    lambda c: (
        st.lists(c, max_size=3)
        | st.dictionaries(
            st.text(max_size=8) | st.sampled_from(["type", "id", "name", "text", "arguments"]), c, max_size=3
        )
    ),
    max_leaves=6,
)


def answer(api: str) -> dict[str, Any]:
    body = tool_body(api, [("call_1", "lookup", {"q": "fuzz", "n": 2})])
    if api == "anthropic":
        body["content"].insert(0, {"type": "text", "text": "let me look"})
    elif api == "openai-chat":
        body["choices"][0]["message"]["content"] = "let me look"
    elif api == "openai":
        body["output"].insert(0, text_body(api, "let me look")["output"][0])
    else:
        body["candidates"][0]["content"]["parts"].insert(0, {"text": "let me look"})
    return body


def events(api: str) -> list[tuple[str | None, Any]]:
    """The streamed form of :func:`answer`: (event name, data) pairs."""
    if api == "anthropic":
        start = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 0},
        }
        evs = [
            {"type": "message_start", "message": start},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "let me look"}},
            {"type": "content_block_stop", "index": 0},
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"q": "fu'},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": 'zz", "n": 2}'},
            },
            {"type": "content_block_stop", "index": 1},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 9},
            },
            {"type": "message_stop"},
        ]
        return [(e["type"], e) for e in evs]
    if api == "openai-chat":
        base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x"}
        return [
            (
                None,
                dict(
                    base,
                    choices=[
                        {"index": 0, "delta": {"role": "assistant", "content": "let me look"}, "finish_reason": None}
                    ],
                ),
            ),
            (
                None,
                dict(
                    base,
                    choices=[
                        {
                            "index": 0,
                            "delta": {
                                "tool_calls": [
                                    {
                                        "index": 0,
                                        "id": "call_1",
                                        "type": "function",
                                        "function": {"name": "lookup", "arguments": '{"q": "fu'},
                                    }
                                ]
                            },
                            "finish_reason": None,
                        }
                    ],
                ),
            ),
            (
                None,
                dict(
                    base,
                    choices=[
                        {
                            "index": 0,
                            "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'zz", "n": 2}'}}]},
                            "finish_reason": "tool_calls",
                        }
                    ],
                ),
            ),
            (None, dict(base, choices=[], usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})),
            (None, "[DONE]"),
        ]
    if api == "openai":
        resp = answer(api)
        evs: list[dict[str, Any]] = [
            {"type": "response.created", "sequence_number": 0, "response": dict(resp, status="in_progress", output=[])}
        ]
        for i, item in enumerate(resp["output"]):
            evs.append(
                {"type": "response.output_item.added", "output_index": i, "item": item, "sequence_number": len(evs)}
            )
            evs.append(
                {"type": "response.output_item.done", "output_index": i, "item": item, "sequence_number": len(evs)}
            )
        evs.append({"type": "response.completed", "response": resp, "sequence_number": len(evs)})
        return [(e["type"], e) for e in evs]
    body = answer(api)
    first = json.loads(json.dumps(body))
    first["candidates"][0]["content"]["parts"] = first["candidates"][0]["content"]["parts"][:1]
    first["candidates"][0].pop("finishReason")
    second = json.loads(json.dumps(body))
    second["candidates"][0]["content"]["parts"] = second["candidates"][0]["content"]["parts"][1:]
    return [(None, first), (None, second)]


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, (*path, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, (*path, i)))
    return out


def mutate(data: st.DataObject, value: Any) -> Any:
    paths = _paths(value)
    path = data.draw(st.sampled_from(paths), label="path")
    op = data.draw(st.sampled_from(["replace", "delete", "duplicate"]), label="op")
    if not path:
        return data.draw(json_values, label="whole") if op == "replace" else value
    parent = value
    for p in path[:-1]:
        parent = parent[p]
    last = path[-1]
    if op == "replace":
        parent[last] = data.draw(json_values, label="new")
    elif op == "delete":
        del parent[last]
    elif isinstance(parent, list):
        parent.insert(last, json.loads(json.dumps(parent[last])))
    else:
        parent[last] = [parent[last], parent[last]]
    return value


def bytes_mutation(data: st.DataObject, raw: bytes) -> bytes:
    kind = data.draw(st.sampled_from(["none", "none", "cut", "byte"]), label="bytes")
    if kind == "cut":
        return raw[: data.draw(st.integers(0, len(raw)), label="cut at")]
    if kind == "byte" and raw:
        i = data.draw(st.integers(0, len(raw) - 1), label="offset")
        return raw[:i] + bytes([data.draw(st.integers(0, 255), label="byte")]) + raw[i + 1 :]
    return raw


def sse(evs: list[tuple[str | None, Any]]) -> bytes:
    out = []
    for name, d in evs:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {d if isinstance(d, str) else json.dumps(d)}\n\n")
    return "".join(out).encode()


_LOOP = asyncio.new_event_loop()
_MODELS: dict[tuple[str, bool], tuple[Any, dict[str, bytes]]] = {}


def _model(api: str, stream: bool) -> tuple[Any, dict[str, bytes]]:
    """One model per API and mode (building SDK clients is the slow part), answering with
    whatever ``holder["content"]`` holds."""
    key = (api, stream)
    if key not in _MODELS:
        holder: dict[str, bytes] = {}
        ctype = "text/event-stream" if stream else "application/json"
        client = httpx2.AsyncClient(
            transport=httpx2.MockTransport(
                lambda r: httpx2.Response(200, content=holder["content"], headers={"content-type": ctype})
            )
        )
        _MODELS[key] = (
            toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client, stream=stream),
            holder,
        )
    return _MODELS[key]


def outcome(api: str, stream: bool, content: bytes) -> str:
    model, holder = _model(api, stream)
    holder["content"] = content
    req = model.build_request([Message.user("look up fuzz")], tools=[TOOL])
    try:
        resp = _LOOP.run_until_complete(model.send(req))
    except ToolwireError as exc:
        return type(exc).__name__
    assert isinstance(resp, Response)
    json.dumps(resp.to_dict())  # what was decoded can be saved
    return "Response"


def _settings() -> Any:
    return settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=SEED is None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


@pytest.mark.parametrize("api", APIS)
def test_fuzzed_plain_answers_end_in_a_response_or_a_typed_error(api):
    @_settings()
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        body = mutate(data, answer(api))
        raw = bytes_mutation(data, json.dumps(body).encode())
        OUTCOMES[f"{api}/plain/{outcome(api, False, raw)}"] += 1

    check()


@pytest.mark.parametrize("api", APIS)
def test_fuzzed_streamed_answers_end_in_a_response_or_a_typed_error(api):
    @_settings()
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        evs = events(api)
        how = data.draw(st.sampled_from(["event", "event", "drop", "repeat"]), label="stream op")
        i = data.draw(st.integers(0, len(evs) - 1), label="event")
        if how == "drop":
            del evs[i]
        elif how == "repeat":
            evs.insert(i, evs[i])
        elif not isinstance(evs[i][1], str):
            evs[i] = (evs[i][0], mutate(data, json.loads(json.dumps(evs[i][1]))))
        raw = bytes_mutation(data, sse(evs))
        OUTCOMES[f"{api}/streamed/{outcome(api, True, raw)}"] += 1

    check()


def test_zz_report_fuzz_outcomes():
    """Prints the outcome counts of the fuzz tests above (run in the same session)."""
    if OUTCOMES:
        print("\nfuzz outcomes:", dict(sorted(OUTCOMES.items())))
