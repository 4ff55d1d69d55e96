"""Vendor answers nested deeper than ``MAX_BODY_DEPTH``: a typed error naming the bound and the
pointer (a kept vendor field, an unknown field), or, inside a tool call's parsed arguments, an
``is_error`` result for that call; never ``RecursionError``. Every answer goes through the real
SDK over ``httpx2.MockTransport``."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from fuzz_support import fuzz_settings, seeded
from hypothesis import given
from hypothesis import strategies as st
from reliability_wire import APIS, text_body, tool_body, tool_results_in

import toolwire
from toolwire.errors import ResponseBoundExceeded, ResponseDecodeError
from toolwire.tools import Tool
from toolwire.transport import DEEP_VALUE_LEFT_OUT, MAX_BODY_DEPTH, bounded_json

_MARK = '"__DEEP__"'


def deep_text(levels: int, kind: str = "dict") -> str:
    """JSON text of ``levels`` nested objects (``{"a": ...}``) or arrays around ``1``."""
    if kind == "list":
        return "[" * levels + "1" + "]" * levels
    return '{"a":' * levels + "1" + "}" * levels


def _body_text(body: dict[str, Any], levels: int, kind: str = "dict") -> bytes:
    return json.dumps(body).replace(_MARK, deep_text(levels, kind)).encode()


def _take() -> Tool:
    return Tool.from_schema(
        "take", "Accept any value. Use when told to.", {"type": "object", "properties": {"v": {}}}, lambda **kw: "ok"
    )


def _run(api: str, first: bytes, *, stream: bool = False, content_type: str = "application/json") -> Any:
    sent: list[dict[str, Any]] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        sent.append(body)
        if tool_results_in(api, body) == 0:
            return httpx2.Response(200, content=first, headers={"content-type": content_type})
        return httpx2.Response(200, json=text_body(api))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    model = toolwire.model(f"{api}:m-1", api_key="k", max_retries=2, http_client=client, stream=stream)
    return toolwire.run_sync(model, "go", tools=[_take()]), sent


def _with_kept_field(api: str) -> dict[str, Any]:
    """A tool-call answer with a field toolwire keeps for the next request (or an unknown one)
    holding the deep value: Responses ``caller`` of a function call, an Anthropic block of a type
    toolwire does not know (kept as a provider part), Gemini ``groundingMetadata``, a Chat
    tool call's extra field."""
    body = tool_body(api, [("c1", "take", {"v": 1})])
    if api == "openai":
        body["output"][0]["caller"] = "__DEEP__"
    elif api == "anthropic":
        body["content"].insert(0, {"type": "mystery_block", "x": "__DEEP__"})
    elif api == "gemini":
        body["candidates"][0]["groundingMetadata"] = "__DEEP__"
    else:
        body["choices"][0]["message"]["tool_calls"][0]["extra"] = "__DEEP__"
    return body


_KEPT_POINTER = {
    "openai": "/output/0/caller/",
    "anthropic": "/content/0/x/",
    "gemini": "/candidates/0/groundingMetadata/",
    "openai-chat": "/choices/0/message/tool_calls/0/extra/",
}


@pytest.mark.parametrize("kind", ["dict", "list"])
@pytest.mark.parametrize("levels", [600, 900, 5000])
@pytest.mark.parametrize("api", APIS)
def test_a_kept_field_nested_too_deep_is_a_typed_error_naming_bound_and_pointer(api, levels, kind):
    # before: RecursionError out of copy.deepcopy (Responses caller 500-990 levels, an unknown
    # Anthropic block, Gemini groundingMetadata), or a ResponseDecodeError naming no bound
    with pytest.raises(ResponseBoundExceeded) as info:
        _run(api, _body_text(_with_kept_field(api), levels, kind))
    exc = info.value
    assert isinstance(exc, ResponseDecodeError) and exc.api == api
    assert exc.bound == "MAX_BODY_DEPTH" and exc.limit == MAX_BODY_DEPTH == 128
    assert exc.pointer.startswith(_KEPT_POINTER[api])
    # the pointer names the first value past the bound: the body is level 1
    assert exc.pointer.count("/") == MAX_BODY_DEPTH
    assert "nests deeper than 128 levels of arrays and objects, the bound (MAX_BODY_DEPTH)" in str(exc)
    assert "steps more)" in str(exc)  # a long pointer is shortened in the text
    assert exc.run_state is not None and exc.run_state.status == "failed"


@pytest.mark.parametrize("api", APIS)
def test_a_kept_field_below_the_bound_goes_back_unchanged(api):
    body = _with_kept_field(api)
    depth_of_field = _KEPT_POINTER[api].count("/") - 1  # levels above the value
    levels = MAX_BODY_DEPTH - depth_of_field
    result, sent = _run(api, _body_text(body, levels, "list"))
    assert result.stop_reason == "end_turn" and [r.is_error for r in result.tool_runs] == [False]
    if api == "openai":  # the caller goes back on the function call (and its output)
        (item,) = [i for i in sent[1]["input"] if i.get("type") == "function_call"]
        assert item["caller"] == json.loads(deep_text(levels, "list"))
    json.loads(result.to_json())


def _deep_arguments_body(api: str) -> dict[str, Any]:
    body = tool_body(api, [("c1", "take", {"v": 1}), ("c2", "take", {"v": "__DEEP__"})])
    return body


@pytest.mark.parametrize("levels", [200, 990, 10_000])
@pytest.mark.parametrize("api", ["anthropic", "gemini"])
def test_parsed_arguments_nested_too_deep_are_an_error_result_and_the_other_call_runs(api, levels):
    # before: the whole answer failed (ResponseDecodeError "nests too deeply to decode" from 990
    # levels on), so the model was never told
    result, sent = _run(api, _body_text(_deep_arguments_body(api), levels))
    first, second = result.tool_runs
    assert not first.is_error and first.result.text == "ok"
    assert second.is_error
    assert second.result.text.startswith("Invalid arguments for tool 'take': arguments nest deeper than 64 levels")
    assert result.stop_reason == "end_turn"
    assert len(sent) == 2 and tool_results_in(api, sent[1]) == 2  # the model was told
    json.loads(result.to_json())


@pytest.mark.parametrize("api", ["anthropic", "gemini"])
def test_the_left_out_text_in_the_models_own_words_is_not_taken_for_a_left_out_value(api):
    """The model reads DEEP_VALUE_LEFT_OUT back in its own call; quoted in its text next to a
    call nested too deep, the whole answer was refused (ResponseBoundExceeded at the text's
    pointer, /content/0/text, nested nowhere near the bound)."""
    body = _deep_arguments_body(api)
    if api == "anthropic":
        body["content"].insert(0, {"type": "text", "text": DEEP_VALUE_LEFT_OUT})
    else:
        body["candidates"][0]["content"]["parts"].insert(0, {"text": DEEP_VALUE_LEFT_OUT})
    result, sent = _run(api, _body_text(body, 300))
    assert [r.is_error for r in result.tool_runs] == [False, True]
    assert len(sent) == 2 and tool_results_in(api, sent[1]) == 2


def test_left_out_values_are_found_where_pruning_puts_them_in_document_order():
    past = "[" * 10 + "1" + "]" * 10
    text = json.dumps({"x": DEEP_VALUE_LEFT_OUT, "a/b~": "__P__", "z": ["__P__"]}).replace('"__P__"', past)
    text = "[" * (MAX_BODY_DEPTH - 3) + text + "]" * (MAX_BODY_DEPTH - 3)
    seen: list[str] = []
    value = bounded_json("x", text, deep_ok=lambda _v, p: seen.append(p) or True)
    prefix = "/0" * (MAX_BODY_DEPTH - 3)
    assert seen == [prefix + "/a~1b~0/0/0", prefix + "/z/0/0"]
    inner = value
    for _ in range(MAX_BODY_DEPTH - 3):
        (inner,) = inner
    assert inner["x"] == DEEP_VALUE_LEFT_OUT and inner["z"] == [[DEEP_VALUE_LEFT_OUT]]


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    out = []
    for name, data in events:
        out.append((f"event: {name}\n" if name else "") + "data: " + json.dumps(data) + "\n\n")
    return "".join(out).encode()


def test_streamed_gemini_arguments_nested_too_deep_are_an_error_result():
    chunk = _deep_arguments_body("gemini")
    data = _sse([(None, chunk)]).replace(_MARK.encode(), deep_text(3000).encode())
    result, _ = _run("gemini", data, stream=True, content_type="text/event-stream")
    first, second = result.tool_runs
    assert not first.is_error and second.is_error
    assert "(MAX_ARGUMENT_DEPTH)" in second.result.text


def test_streamed_anthropic_input_given_whole_at_block_start_nested_too_deep_is_an_error_result():
    """A compatible server may give a tool_use block's input whole in content_block_start (the
    stream decoder reads it); nested past the bound the whole answer was refused
    (ResponseBoundExceeded at /content_block/input/...), where a whole answer gives the call an
    is_error result."""
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
        },
    }
    events: list[tuple[str | None, dict[str, Any]]] = [("message_start", start)]
    for i, v in enumerate([1, "__DEEP__"]):
        block = {"type": "tool_use", "id": f"c{i}", "name": "take", "input": {"v": v}}
        events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": block}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    delta = {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}}
    events += [("message_delta", {**delta, "usage": {"output_tokens": 3}}), ("message_stop", {"type": "message_stop"})]
    data = _sse(events).replace(_MARK.encode(), deep_text(3000).encode())
    result, sent = _run("anthropic", data, stream=True, content_type="text/event-stream")
    first, second = result.tool_runs
    assert not first.is_error and first.result.text == "ok"
    assert second.is_error and "(MAX_ARGUMENT_DEPTH)" in second.result.text
    assert len(sent) == 2 and tool_results_in("anthropic", sent[1]) == 2
    # a block of another type there is still refused
    other = data.replace(b'"type": "tool_use", "id": "c1"', b'"type": "mystery", "id": "c1"')
    with pytest.raises(ResponseBoundExceeded) as info:
        _run("anthropic", other, stream=True, content_type="text/event-stream")
    assert info.value.pointer.startswith("/content_block/input/v/a/a")


def test_streamed_event_nested_too_deep_elsewhere_is_a_typed_error():
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
            "extra": "__DEEP__",
        },
    }
    data = _sse([("message_start", start)]).replace(_MARK.encode(), deep_text(3000, "list").encode())
    with pytest.raises(ResponseBoundExceeded) as info:
        _run("anthropic", data, stream=True, content_type="text/event-stream")
    assert info.value.pointer.startswith("/message/extra/0/0")
    assert "the data of stream event 'message_start' nests deeper than 128" in str(info.value)


# -- the bound itself -------------------------------------------------------------------------


def test_bound_is_exact():
    assert bounded_json("x", deep_text(MAX_BODY_DEPTH, "list")) == json.loads(deep_text(MAX_BODY_DEPTH, "list"))
    with pytest.raises(ResponseBoundExceeded) as info:
        bounded_json("x", deep_text(MAX_BODY_DEPTH + 1, "list"))
    assert info.value.pointer == "/0" * MAX_BODY_DEPTH


def test_brackets_in_strings_do_not_count_and_the_left_out_part_is_in_place():
    tricky = '"[[{{\\"]]}}\\\\"'  # a string holding brackets, an escaped quote and a backslash
    text = '{"args": ' + "[" * 200 + tricky + "]" * 200 + ', "s": ' + tricky + "}"
    value = bounded_json("x", text, deep_ok=lambda _v, p: p.startswith("/args/"))
    inner = value["args"]
    for _ in range(MAX_BODY_DEPTH - 2):
        (inner,) = inner
    assert inner == [DEEP_VALUE_LEFT_OUT]
    assert value["s"] == json.loads(tricky)


def test_a_cut_body_past_the_bound_is_a_typed_error():
    with pytest.raises(ResponseBoundExceeded, match="is not complete JSON"):
        bounded_json("x", "[" * 5000)


_json_leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.text(alphabet='[]{}"\\ab\u00e9', max_size=6))
_json_values = st.recursive(
    _json_leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\k', max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


def _depth(value: Any) -> int:
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((c, level + 1) for c in (node.values() if isinstance(node, dict) else node))
    return deepest


@seeded
@fuzz_settings(300)
@given(value=_json_values, wrap=st.integers(0, 300), as_dict=st.booleans())
def test_any_value_is_read_whole_within_the_bound_and_refused_past_it(value, wrap, as_dict):
    text = json.dumps(value)
    for _ in range(wrap):
        text = '{"w": ' + text + "}" if as_dict else "[" + text + "]"
    depth = _depth(value) + wrap
    if depth <= MAX_BODY_DEPTH:
        assert bounded_json("x", text) == json.loads(text)
    else:
        with pytest.raises(ResponseBoundExceeded):
            bounded_json("x", text)
        # inside arguments the value is read with the part past the bound left out
        kept = bounded_json("x", text, deep_ok=lambda _v, _p: True)
        assert _depth(kept) == MAX_BODY_DEPTH


@pytest.mark.parametrize("text", ["[" * 5000, "[" * 200 + "]" * 200], ids=["cut", "whole"])
def test_a_body_past_the_bound_says_it_is_not_retried_and_what_to_check(text):
    """The text ended "...sent a broken answer" (or "is not complete JSON"), saying neither that
    it is not retried nor what to check."""
    with pytest.raises(ResponseBoundExceeded) as info:
        bounded_json("x", text)
    assert str(info.value).endswith(
        "; not retried (the same answer would likely come again): check base_url, any proxy between toolwire "
        "and the API, and the server"
    )


def test_a_pair_split_over_gemini_array_chunks_stays_whole_beside_deep_arguments():
    # a JSON-array stream (Gemini without alt=sse) whose text splits an emoji's surrogate pair
    # over two chunks, with a call nested past the bound: read on the deep path, the halves were
    # each replaced by U+FFFD; the shallow path keeps them for the assembler to join
    text = lambda t: {"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}, "index": 0}]}  # noqa: E731
    last = tool_body("gemini", [("c1", "take", {"v": 1}), ("c2", "take", {"v": "__DEEP__"})])
    chunks = json.dumps([text("hi \ud83c"), text("\udf0d there"), last])
    assert "\\ud83c" in chunks and "\\udf0d" in chunks  # the halves arrive as escapes, one per chunk
    data = chunks.replace(_MARK, deep_text(300)).encode()
    result, _ = _run("gemini", data, stream=True, content_type="application/json")
    first, second = result.tool_runs
    assert not first.is_error and second.is_error
    said = result.turns[0].response.text
    assert said == "hi \U0001f30d there" and "\ufffd" not in said
