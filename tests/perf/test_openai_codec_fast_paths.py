"""The OpenAI codecs' cheaper encode/decode steps give what the plain ones gave.

- ``copied`` (the codecs' copy of provider_data item fields) equals ``copy.deepcopy`` and
  shares no container with its input;
- the usage mappings (counters decided inline, ``Usage`` built positionally) give, field by
  field, what :func:`toolwire.wire.usage_int` gives for every counter;
- the tool-name renaming's shortcut (names already known to meet the rule) renames exactly what
  :func:`wire_tool_names` renames, also after many valid names were seen;
- decoded responses: calls to renamed tools map back to the tool's own name, a repeated id is
  invalid, a response without calls is left alone, and nothing decoded shares a container with
  the body (a later edit of the body does not reach the response).
"""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from toolwire_openai._common import copied
from toolwire_openai.chat import OpenAIChatCodec, chat_usage
from toolwire_openai.profile import OpenAIChatProfile, OpenAIResponsesProfile, wire_tool_names
from toolwire_openai.responses import OpenAIResponsesCodec, responses_usage

from toolwire import Tool
from toolwire.adapter import ModelRequest
from toolwire.types import Message, TextPart, ToolCall, Usage
from toolwire.wire import usage_int

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3) | st.tuples(inner, inner)
    ),
    max_leaves=30,
)


def _containers(value: object) -> list[object]:
    out: list[object] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (dict, list)):
            out.append(v)
            stack.extend(v.values() if isinstance(v, dict) else v)
        elif isinstance(v, tuple):
            stack.extend(v)
    return out


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_copied_equals_deepcopy_and_shares_no_container(value: object) -> None:
    got = copied(value)
    assert got == copy.deepcopy(value)
    assert repr(got) == repr(value)  # same types all the way down (1 stays 1, True stays True)
    mine = {id(c) for c in _containers(value)}
    assert not any(id(c) in mine for c in _containers(got))


def test_copied_handles_deep_and_cyclic_values_by_deepcopy() -> None:
    deep: list = []
    cur = deep
    for _ in range(50):
        nxt: list = []
        cur.append(nxt)
        cur = nxt
    assert copied(deep) == deep and copied(deep) is not deep
    cyclic: dict = {"a": {"b": {"c": {"d": {}}}}}
    cyclic["a"]["b"]["c"]["d"]["back"] = cyclic
    got = copied(cyclic)
    assert got is not cyclic and got["a"]["b"]["c"]["d"]["back"]["a"] is not cyclic["a"]


_COUNTER = st.sampled_from([0, 1, 7, 10**12, -1, True, False, 12.0, 12.5, "12", None, [], {}])


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "prompt_tokens": _COUNTER,
            "completion_tokens": _COUNTER,
            "total_tokens": _COUNTER,
            "prompt_tokens_details": st.one_of(
                st.fixed_dictionaries({}, optional={"cached_tokens": _COUNTER, "cache_write_tokens": _COUNTER}),
                st.sampled_from([None, 3, "x"]),
            ),
            "completion_tokens_details": st.one_of(
                st.fixed_dictionaries({}, optional={"reasoning_tokens": _COUNTER}), st.sampled_from([None, []])
            ),
        },
    )
)
def test_chat_usage_is_usage_int_of_each_counter(u: dict) -> None:
    pt = d if isinstance(d := u.get("prompt_tokens_details"), dict) else {}
    ct = d if isinstance(d := u.get("completion_tokens_details"), dict) else {}
    expected = Usage(
        input_tokens=usage_int(u.get("prompt_tokens")),
        output_tokens=usage_int(u.get("completion_tokens")),
        cache_read_tokens=usage_int(pt.get("cached_tokens")),
        cache_write_tokens=usage_int(pt.get("cache_write_tokens")),
        reasoning_tokens=usage_int(ct.get("reasoning_tokens")),
        requests=1,
        vendor_total_tokens=usage_int(u.get("total_tokens")),
    )
    got = chat_usage(u)
    assert got == expected
    assert [type(v) for v in got.to_dict().values()] == [type(v) for v in expected.to_dict().values()]


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "input_tokens": _COUNTER,
            "output_tokens": _COUNTER,
            "total_tokens": _COUNTER,
            "input_tokens_details": st.one_of(
                st.fixed_dictionaries({}, optional={"cached_tokens": _COUNTER, "cache_write_tokens": _COUNTER}),
                st.sampled_from([None, 3]),
            ),
            "output_tokens_details": st.one_of(
                st.fixed_dictionaries({}, optional={"reasoning_tokens": _COUNTER}), st.none()
            ),
        },
    )
)
def test_responses_usage_is_usage_int_of_each_counter(u: dict) -> None:
    it = d if isinstance(d := u.get("input_tokens_details"), dict) else {}
    ot = d if isinstance(d := u.get("output_tokens_details"), dict) else {}
    expected = Usage(
        input_tokens=usage_int(u.get("input_tokens")),
        output_tokens=usage_int(u.get("output_tokens")),
        cache_read_tokens=usage_int(it.get("cached_tokens")),
        cache_write_tokens=usage_int(it.get("cache_write_tokens")),
        reasoning_tokens=usage_int(ot.get("reasoning_tokens")),
        requests=1,
        vendor_total_tokens=usage_int(u.get("total_tokens")),
    )
    got = responses_usage(u)
    assert got == expected
    assert [type(v) for v in got.to_dict().values()] == [type(v) for v in expected.to_dict().values()]


def test_usage_counters_land_in_their_own_fields() -> None:
    chat = chat_usage(
        {
            "prompt_tokens": 11,
            "completion_tokens": 22,
            "total_tokens": 33,
            "prompt_tokens_details": {"cached_tokens": 4, "cache_write_tokens": 5},
            "completion_tokens_details": {"reasoning_tokens": 6},
        }
    )
    assert chat.to_dict() == {
        "input_tokens": 11,
        "output_tokens": 22,
        "cache_read_tokens": 4,
        "cache_write_tokens": 5,
        "reasoning_tokens": 6,
        "tool_use_prompt_tokens": None,
        "requests": 1,
        "vendor_total_tokens": 33,
        "cache_write_1h_tokens": None,
    }
    resp = responses_usage(
        {
            "input_tokens": 11,
            "output_tokens": 22,
            "total_tokens": 33,
            "input_tokens_details": {"cached_tokens": 4, "cache_write_tokens": 5},
            "output_tokens_details": {"reasoning_tokens": 6},
        }
    )
    assert resp.to_dict() == chat.to_dict()


# -- tool names ------------------------------------------------------------------------------

_TOOL_NAMES = st.lists(
    st.sampled_from(["lookup", "other", "files.read:v2", "files_read_v2", "bad name", "x" * 65, "ok-1", ""]),
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(_TOOL_NAMES, _TOOL_NAMES)
def test_chat_renaming_after_valid_names_were_seen_is_the_plain_renaming(first: list, names: list) -> None:
    profile = OpenAIChatProfile()
    for batch in (first, names):  # the first body fills the known-good names
        body = {
            "tools": [{"type": "function", "function": {"name": n, "parameters": {}}} for n in batch],
            "messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": n}} for n in batch]}],
        }
        mapping = profile.repair_names(body)
        expected = wire_tool_names(batch)
        assert mapping == expected
        assert [t["function"]["name"] for t in body["tools"]] == [expected.get(n, n) for n in batch]
        assert [c["function"]["name"] for c in body["messages"][0]["tool_calls"]] == [expected.get(n, n) for n in batch]


@settings(max_examples=200, deadline=None)
@given(_TOOL_NAMES, _TOOL_NAMES)
def test_responses_renaming_after_valid_names_were_seen_is_the_plain_renaming(first: list, names: list) -> None:
    profile = OpenAIResponsesProfile()
    for batch in (first, names):
        body = {
            "tools": [{"type": "function", "name": n, "parameters": {}} for n in batch],
            "input": [{"type": "function_call", "call_id": "c", "name": n, "arguments": "{}"} for n in batch],
        }
        mapping = profile.repair_names(body)
        expected = wire_tool_names(batch)
        assert mapping == expected
        assert [t["name"] for t in body["tools"]] == [expected.get(n, n) for n in batch]
        assert [i["name"] for i in body["input"]] == [expected.get(n, n) for n in batch]


# -- decoded responses -----------------------------------------------------------------------


def _request(*names: str) -> ModelRequest:
    # a name OpenAI refuses comes with a tool imported from another provider's history
    tools = [Tool(n, "d", {"type": "object", "properties": {}}, None, imported_from="gemini") for n in names]
    return ModelRequest(model="m", messages=[Message("user", [TextPart("go")])], tools=tools)


def test_chat_decode_maps_renamed_calls_marks_repeats_and_shares_nothing() -> None:
    request = _request("files.read:v2", "lookup")
    wire = wire_tool_names(["files.read:v2", "lookup"])["files.read:v2"]
    body = {
        "id": "r1",
        "model": "m",
        "choices": [
            {
                "finish_reason": "stop",  # calls to run mean tool_use whatever the vendor wrote
                "message": {
                    "role": "assistant",
                    "content": "hi",
                    "tool_calls": [
                        {"id": "a", "type": "function", "function": {"name": wire, "arguments": '{"x": [1]}'}},
                        {"id": "a", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},
                        {"type": "function", "function": {"name": None, "arguments": "{}"}},
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }
    kept = json.loads(json.dumps(body))
    r = OpenAIChatCodec().decode_response(body, request)
    assert r.stop_reason == "tool_use" and r.vendor_stop_reason == "stop"
    assert r.text == "hi" and r.response_id == "r1" and r.model == "m" and r.provider == "openai-chat"
    assert [c.name for c in r.tool_calls] == ["files.read:v2", "lookup", ""]
    assert [c.invalid is None for c in r.tool_calls] == [True, True, False]
    # another call under the same id: an id of its own (servers that number every call alike)
    assert [c.id for c in r.tool_calls[:2]] == ["a", "a_1"]
    assert r.tool_calls[2].id_synthesized and r.tool_calls[2].id.startswith("call_tw")
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.vendor_total_tokens) == (3, 4, 7)
    args = r.tool_calls[0].arguments
    assert args is not None
    args["x"].append(2)  # the response's arguments are its own
    assert body == kept


def test_chat_decode_without_calls_keeps_the_stop_reason() -> None:
    body = {"choices": [{"finish_reason": "length", "message": {"content": "cut"}}]}
    r = OpenAIChatCodec().decode_response(body, _request("lookup"))
    assert (r.stop_reason, r.tool_calls, r.text) == ("max_tokens", [], "cut")
    body = {"choices": [{"finish_reason": "stop", "message": {"content": "x", "tool_calls": []}}]}
    assert OpenAIChatCodec().decode_response(body, None).stop_reason == "end_turn"


def test_responses_decode_maps_renamed_calls_and_shares_nothing_with_the_body() -> None:
    request = _request("files.read:v2")
    wire = wire_tool_names(["files.read:v2"])["files.read:v2"]
    body = {
        "id": "resp_1",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "hi", "annotations": [{"type": "url", "n": [1]}]}],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "c1",
                "name": wire,
                "arguments": "{}",
                "status": "completed",
                "extra": {"deep": [1, {"x": 2}]},
            },
            {"type": "function_call", "id": "fc_2", "call_id": "c1", "name": wire, "arguments": "{}"},
        ],
        "usage": {"input_tokens": 5, "output_tokens": 6, "total_tokens": 11},
    }
    r = OpenAIResponsesCodec().decode_response(body, request)
    assert [c.name for c in r.tool_calls] == ["files.read:v2", "files.read:v2"]
    assert r.tool_calls[0].invalid is None and "duplicate tool call id c1" in (r.tool_calls[1].invalid or "")
    assert r.stop_reason == "tool_use" and r.provider_data == {"openai": {"response_id": "resp_1"}}
    text, call = r.parts[0], r.tool_calls[0]
    assert isinstance(text, TextPart) and isinstance(call, ToolCall)
    before = copy.deepcopy((text.provider_data, call.provider_data))
    body["output"][0]["content"][0]["annotations"][0]["n"].append(9)
    body["output"][0]["status"] = "changed"
    body["output"][1]["extra"]["deep"][1]["x"] = 3
    assert (text.provider_data, call.provider_data) == before
    assert r.tool_calls[0].provider_data["openai"]["item"] == {"status": "completed", "extra": {"deep": [1, {"x": 2}]}}
