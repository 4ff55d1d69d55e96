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


def _chat_body(**top):
    body = {
        "model": "gpt-4.1",
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "x"}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "lookup", "description": "Look up.", "parameters": copy.deepcopy(_SCHEMA)},
            }
        ],
        "stream": False,
    }
    body.update(top)
    return {k: v for k, v in body.items() if v is not None}


_CHAT_VARIANTS = [
    {},
    {"stream": True, "stream_options": {"include_usage": True}},
    {"stream": 1, "stream_options": {"include_usage": True}},
    {"logprobs": True, "top_logprobs": 2},
    {"logprobs": 1, "top_logprobs": 2},
    {"temperature": 1},
    {"temperature": True},
    {"temperature": 3.0},
    {"model": "o3", "temperature": 0.5, "max_tokens": 10},
    {"model": "gpt-5.1", "reasoning_effort": "low", "top_p": 0.5},
    {"tool_choice": {"type": "function", "function": {"name": "nope"}}},
    {"tools": [], "parallel_tool_calls": True, "tool_choice": "required"},
    {"stop": ["a", "b", "c", "d", "e"]},
    {"metadata": {"k": 1}},
]


@pytest.mark.parametrize("api", ["openai-chat", "openai"])
def test_openai_request_checks_reused_give_what_a_fresh_profile_gives(api):
    from toolwire_openai.profile import profile_for

    if api == "openai-chat":
        bodies = [_chat_body(**v) for v in _CHAT_VARIANTS]
    else:
        base = {"model": "gpt-5", "input": [{"role": "user", "content": "go"}]}
        variants = [
            {},
            {"previous_response_id": "resp_1", "store": False},
            {"previous_response_id": "resp_1", "store": 0},
            {"previous_response_id": "resp_1", "conversation": "conv_1"},
            {"temperature": True},
            {"temperature": 1},
            {"tools": [{"type": "function", "name": "bad name", "parameters": {"type": "object"}}]},
        ]
        bodies = [dict(base, **v) for v in variants]
    shared = profile_for(api)
    for body in bodies + bodies[::-1] + [b for pair in itertools.product(bodies[:5], repeat=2) for b in pair]:
        assert _found(shared, copy.deepcopy(body)) == _found(profile_for(api), copy.deepcopy(body))


def test_openai_request_checks_notice_a_change_in_place():
    from toolwire_openai.profile import profile_for

    profile = profile_for("openai-chat")
    body = _chat_body()
    assert _found(profile, body) == []
    body["tools"][0]["function"]["name"] = "bad name"
    assert [f[0] for f in _found(profile, body)] == ["openai-chat.tool.name"]
    body["tools"][0]["function"]["name"] = "lookup"
    body["stream_options"] = {"include_usage": True}
    body["stream"] = 1
    assert [f[0] for f in _found(profile, body)] == ["openai-chat.request.stream-options-without-stream"]
    body["stream"] = True
    assert _found(profile, body) == []


def test_openai_memoized_names_are_not_shared_with_the_caller():
    from toolwire_openai.profile import real_names, wire_tool_names

    from toolwire.tools import Tool

    first = wire_tool_names(["files.read", "ok"])
    assert first == {"files.read": "files_read"}
    first.clear()
    assert wire_tool_names(["files.read", "ok"]) == {"files.read": "files_read"}
    tools = [Tool("files.read", "", {"type": "object"}, imported_from="gemini"), Tool("ok", "", {"type": "object"})]
    back = real_names(tools)
    assert back == {"files_read": "files.read"}
    back["x"] = "y"
    assert real_names(tools) == {"files_read": "files.read"}


def test_openai_arguments_text_check_memo_gives_json_loads_answer():
    import json

    from toolwire_openai.profile import _json_object_text

    for text in ['{"a": 1}', "[1]", "{", "", "null", '{"a": 1} ', "x" * 5000, '{"k": "' + "v" * 5000 + '"}']:
        for _ in range(2):  # the second answer comes from the memo
            try:
                want = isinstance(json.loads(text), dict)
            except ValueError:
                want = False
            assert _json_object_text(text) is want
    assert _json_object_text(None) is False


def test_gemini_model_major_memo():
    from toolwire_gemini.profile import model_major

    for _ in range(2):
        assert model_major("gemini-2.5-flash") == 2
        assert model_major("models/gemini-3-pro") == 3
        assert model_major("other") is None
        assert model_major(None) is None
        assert model_major("") is None


def _responses_stream():
    yield {
        "type": "response.created",
        "response": {"id": "resp_1", "model": "gpt-5", "output": [], "status": "in_progress"},
    }
    yield {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
    }
    for text in ("Hel", "", "lo", None):
        yield {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "item_id": "msg_1",
            "delta": text,
        }
    yield {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1", "delta": "!"}
    yield {
        "type": "response.output_text.delta",
        "output_index": 0,
        "content_index": 1,
        "item_id": "msg_1",
        "delta": "b",
    }
    yield {
        "type": "response.output_item.added",
        "output_index": 1,
        "item": {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": ""},
    }
    for frag in ('{"a"', "", ": 1}"):
        yield {"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": frag}
    yield {"type": "response.function_call_arguments.delta", "output_index": 5, "item_id": "fc_x", "delta": "x"}


def test_responses_stream_fast_path_gives_the_events_of_the_full_path():
    from toolwire_openai.responses import ResponsesStreamDecoder

    fast, full = ResponsesStreamDecoder(), ResponsesStreamDecoder()
    for ev in _responses_stream():
        assert fast.feed(copy.deepcopy(ev)) == list(full._feed(copy.deepcopy(ev)))
    assert fast.text_seen == full.text_seen and fast.kinds == full.kinds


@pytest.mark.parametrize(
    ("event", "pointer"),
    [
        ({"type": "response.output_text.delta", "output_index": 1, "delta": "x"}, "/output_index"),  # a call item
        ({"type": "response.output_text.delta", "output_index": 0, "delta": 5}, "/delta"),
        ({"type": "response.output_text.delta", "output_index": True, "delta": "x"}, "/output_index"),
        (
            {"type": "response.output_text.delta", "output_index": 0, "content_index": 1000, "delta": "x"},
            "/content_index",
        ),
        ({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "x"}, "/output_index"),
        ({"type": "response.function_call_arguments.delta", "output_index": 1, "delta": 1}, "/delta"),
        ({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": "x"}, "/output_index"),  # done
    ],
)
def test_responses_stream_fast_path_refuses_what_it_refused(event, pointer):
    from toolwire_openai.responses import ResponsesStreamDecoder

    dec = ResponsesStreamDecoder()
    for ev in list(_responses_stream())[:9]:
        dec.feed(ev)
    dec.feed(
        {
            "type": "response.output_item.done",
            "output_index": 2,
            "item": {"id": "fc_2", "type": "function_call", "call_id": "call_2", "name": "f", "arguments": "{}"},
        }
    )
    with pytest.raises(ResponseDecodeError) as err:
        dec.feed(event)
    assert err.value.pointer == pointer


def _chat_chunks():
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1"}
    yield dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
    yield dict(base, choices=[{"index": 0, "delta": {"content": "Hi"}, "finish_reason": None}])
    yield dict(
        base,
        choices=[
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}
                    ]
                },
            }
        ],
    )
    yield dict(base, choices=[{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"a"'}}]}}])
    yield dict(base, choices=[{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}}])
    yield dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])
    yield dict(base, choices=[], usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5})


def test_chat_stream_events():
    from toolwire_openai.chat import ChatStreamDecoder

    from toolwire.stream import StreamAssembler, TextDelta, ToolCallDelta, ToolCallStart

    dec = ChatStreamDecoder()
    events = [ev for chunk in _chat_chunks() for ev in dec.feed(chunk)] + dec.finish()
    assert [type(e).__name__ for e in events if isinstance(e, (TextDelta, ToolCallStart, ToolCallDelta))] == [
        "TextDelta",
        "ToolCallStart",
        "ToolCallDelta",
        "ToolCallDelta",
    ]
    asm = StreamAssembler("openai-chat")
    for ev in events:
        asm.feed(ev)
    response = asm.response()
    assert response.text == "Hi"
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [("call_1", "f", {"a": 1})]
    assert response.stop_reason == "tool_use" and response.usage.input_tokens == 3


@pytest.mark.parametrize(
    ("chunk", "pointer"),
    [
        ({"choices": {"index": 0}}, "/choices"),
        ({"choices": [5]}, "/choices/0"),
        ({"choices": [{"index": 0, "delta": "x"}]}, "/choices/0/delta"),
        ({"choices": [{"index": 0, "delta": {"content": 5}}]}, "/choices/0/delta/content"),
        ({"choices": [{"index": 0, "delta": {"refusal": 5}}]}, "/choices/0/delta/refusal"),
        ({"choices": [{"index": 0, "delta": {"tool_calls": {}}}]}, "/choices/0/delta/tool_calls"),
        ({"choices": [{"index": 0, "delta": {"tool_calls": [3]}}]}, "/choices/0/delta/tool_calls/0"),
        ({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": -1}]}}]}, "/choices/0/delta/tool_calls/0/index"),
        (
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": 1}]}}]},
            "/choices/0/delta/tool_calls/0/function",
        ),
        ({"choices": [{"index": 0, "delta": {}, "finish_reason": 3}]}, "/choices/0/finish_reason"),
    ],
)
def test_chat_stream_fast_path_refuses_what_it_refused(chunk, pointer):
    from toolwire_openai.chat import ChatStreamDecoder

    with pytest.raises(ResponseDecodeError) as err:
        ChatStreamDecoder().feed(dict(chunk, id="c", model="m"))
    assert err.value.pointer == pointer


def test_gemini_plain_text_part_fast_path_gives_the_full_paths_events():
    from toolwire_gemini.codec import GeminiStreamDecoder

    def chunks(extra):
        for text in ("Hel", "lo", ""):
            yield {
                "candidates": [{"content": {"role": "model", "parts": [{"text": text, **extra}]}}],
                "responseId": "r",
            }

    for merge in (True, False):
        fast, full = GeminiStreamDecoder(None, None), GeminiStreamDecoder(None, None)
        for a, b in zip(chunks({}), chunks({"thoughtSignature": None})):  # the second is not a plain part
            assert fast.feed(a, merge_text=merge) == full.feed(b, merge_text=merge)


def test_settings_check_memos_tell_nested_numbers_of_other_types_apart():
    """`==` cannot tell `True`, `1` and `1.0` apart, deep inside a tool's schema too: a memo hit
    needs every number of the same type, so the checks run again and give a fresh profile's answer."""
    from toolwire_openai.profile import profile_for

    anthropic = AnthropicProfile()
    body = _anthropic_body(tools=[{"name": "f", "description": "", "input_schema": {"type": "object"}, "strict": True}])
    first = _found(anthropic, body)
    for value in (1, True, 1.0, True):
        body["tools"][0]["strict"] = value  # in place, equal under ==
        assert _found(anthropic, body) == _found(AnthropicProfile(), copy.deepcopy(body))
    assert _found(anthropic, body) == first
    chat = profile_for("openai-chat")
    body = _chat_body()
    body["tools"][0]["function"]["strict"] = True
    body["tools"][0]["function"]["parameters"] = {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
        "additionalProperties": False,
    }
    for value in (False, 0, 0.0, False):
        body["tools"][0]["function"]["parameters"]["additionalProperties"] = value
        assert _found(chat, body) == _found(profile_for("openai-chat"), copy.deepcopy(body))
