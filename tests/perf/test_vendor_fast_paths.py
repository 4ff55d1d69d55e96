"""The vendor adapters' per-request shortcuts give what the full computation gives.

- the Anthropic profile reuses its checks of a request's fields other than the conversation while
  they are equal (types included): a profile that checked other bodies before gives the very
  violations a fresh profile gives, and a change (in place, or ``True`` for ``1``) is noticed;
- the memoized tool wire names are never shared with a caller;
- the stream decoders' fast paths for the usual deltas still refuse what they refused.
"""

from __future__ import annotations

import copy
import itertools

import pytest
from toolwire_anthropic.codec import StreamDecoder, wire_tool_names
from toolwire_anthropic.profile import AnthropicProfile

from toolwire.errors import ResponseDecodeError

_SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def _anthropic_body(**top):
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]},
        ],
        "tools": [{"name": "lookup", "description": "Look up.", "input_schema": copy.deepcopy(_SCHEMA)}],
    }
    body.update(top)
    return {k: v for k, v in body.items() if v is not None}


_VARIANTS = [
    {},
    {"max_tokens": True},
    {"max_tokens": 1},
    {"max_tokens": 1.0},
    {"max_tokens": -1},
    {"temperature": 1},
    {"temperature": True},
    {"temperature": 1.0, "top_p": 0.5},
    {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 2048},
    {"thinking": {"type": "enabled", "budget_tokens": True}, "max_tokens": 2048},
    {"thinking": {"type": "enabled", "budget_tokens": 1024.0}, "max_tokens": 2048},
    {"tool_choice": {"type": "tool", "name": "nope"}},
    {"tool_choice": {"type": "none", "disable_parallel_tool_use": True}},
    {"tools": [{"name": "bad name", "description": "", "input_schema": {"type": "string"}}]},
    {"tools": [], "tool_choice": {"type": "any"}},
    {"system": [{"type": "image"}]},
    {"system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}] * 5},
]


def _found(profile, body):
    return [(v.rule, v.pointer, v.message, v.tool, v.call_id) for v in profile.check_request(body)]


@pytest.mark.parametrize("order", [0, 1, 2])
def test_anthropic_settings_checks_reused_give_what_a_fresh_profile_gives(order):
    bodies = [_anthropic_body(**v) for v in _VARIANTS]
    sequence = {0: bodies, 1: bodies[::-1], 2: [b for pair in itertools.product(bodies[:6], repeat=2) for b in pair]}[
        order
    ]
    shared = AnthropicProfile()
    for body in sequence:
        assert _found(shared, copy.deepcopy(body)) == _found(AnthropicProfile(), copy.deepcopy(body))


def test_anthropic_settings_checks_notice_a_change_in_place():
    profile = AnthropicProfile()
    body = _anthropic_body()
    assert _found(profile, body) == []
    body["tools"][0]["input_schema"]["type"] = "string"  # the same objects, changed after the check
    assert [f[0] for f in _found(profile, body)] == ["anthropic.schema.root-type-object"]
    body["tools"][0]["input_schema"]["type"] = "object"
    body["max_tokens"] = True
    assert [f[0] for f in _found(profile, body)] == ["anthropic.request.max-tokens"]
    body["max_tokens"] = 1
    assert _found(profile, body) == []


def test_anthropic_wire_names_are_not_shared_with_the_caller():
    first = wire_tool_names(["files.read", "ok"])
    assert first == {"files.read": "files_read"}
    first["files.read"] = "changed"
    first["other"] = "x"
    assert wire_tool_names(["files.read", "ok"]) == {"files.read": "files_read"}
    assert wire_tool_names(["ok", "fine"]) == {}


def _started(kind_block):
    dec = StreamDecoder()
    dec.feed({"type": "message_start", "message": {"id": "msg_1", "model": "m", "content": []}})
    dec.feed({"type": "content_block_start", "index": 0, "content_block": kind_block})
    return dec


@pytest.mark.parametrize(
    ("block", "event", "pointer"),
    [
        (
            {"type": "text", "text": ""},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
            "/delta/text",
        ),
        (
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 5}},
            "/delta/partial_json",
        ),
        (
            {"type": "text", "text": ""},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{"}},
            "/delta/type",
        ),
        (
            {"type": "text", "text": ""},
            {"type": "content_block_delta", "index": True, "delta": {"type": "text_delta", "text": "a"}},
            "/index",
        ),
        (
            {"type": "text", "text": ""},
            {"type": "content_block_delta", "index": -1, "delta": {"type": "text_delta", "text": "a"}},
            "/index",
        ),
        (
            {"type": "text", "text": ""},
            {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "a"}},
            "/index",
        ),
        ({"type": "text", "text": ""}, {"type": "content_block_delta", "index": 0, "delta": "text"}, "/delta"),
    ],
)
def test_anthropic_stream_fast_path_refuses_what_it_refused(block, event, pointer):
    dec = _started(block)
    with pytest.raises(ResponseDecodeError) as err:
        dec.feed(event)
    assert err.value.pointer == pointer


def test_anthropic_stream_fast_path_events():
    dec = _started({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}})
    out = [
        dec.feed({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": f}})
        for f in ("  ", '{"a"', ": 1}")
    ]
    assert [e[0].arguments_fragment for e in out] == ["  ", '{"a"', ": 1}"]
    (end,) = dec.feed({"type": "content_block_stop", "index": 0})
    assert end.arguments is None  # joined by the assembler from the fragments
    dec = _started({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"x": 1}})
    dec.feed({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": " "}})
    (end,) = dec.feed({"type": "content_block_stop", "index": 0})
    assert end.arguments == {"x": 1}  # only blank fragments: the input given whole at the start
