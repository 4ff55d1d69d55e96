"""The Anthropic codec's one-pass decoding of the usual answer gives what the full decoding gives.

``AnthropicCodec.decode_response`` first tries ``_decode_usual`` (text and ``tool_use`` blocks
with no opaque field), which returns ``None`` for anything else; these tests compare it with the
full decoding (the shortcut switched off) over random answers built around the usual shape and
the values next to it: the same ``Response`` (parts, stop reason, usage, ids, provider data) or
the same error; a renamed tool's calls carry the real name either way.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolwire_anthropic import codec as anthropic_codec
from toolwire_anthropic.codec import AnthropicCodec

from toolwire.adapter import ModelRequest
from toolwire.tools import Tool
from toolwire.types import Message, TextPart


def _tool(name: str) -> Tool:
    tool = Tool(name="lookup", description="Look up.", input_schema={"type": "object"}, function=lambda **kw: "x")
    tool.name = name  # as a tool imported from another provider's history may be named
    return tool


#: a request whose tool Anthropic would refuse by name (sent renamed: files_read_v2)
RENAMED = ModelRequest(
    model="claude-sonnet-4-5", messages=[Message("user", [TextPart("go")])], tools=[_tool("files.read:v2")]
)
PLAIN = ModelRequest(model="claude-sonnet-4-5", messages=[Message("user", [TextPart("go")])], tools=[_tool("lookup")])

_ANY = st.sampled_from([None, "", "x", 3, True, [], {}, {"a": 1}, "toolu_1"])


#: One change next to the usual block, per block type (fields set together; None: removed).
NEAR: dict[str, list[dict[str, Any]]] = {
    "text": [
        {"text": ""},
        {"text": 3},
        {"text": None},
        {"citations": [{"type": "char_location"}]},
        {"citations": None},
        {"cache_control": {"type": "ephemeral"}},
        {"other": 1},
    ],
    "tool_use": [
        {"id": ""},
        {"id": 5},
        {"id": None},
        {"id": "toolu_1"},
        {"name": ""},
        {"name": 7},
        {"name": None},
        {"name": "files_read_v2"},
        {"input": None},
        {"input": "x"},
        {"input": [1]},
        {"caller": {"type": "direct"}},
        {"caller": None},
        {"cache_control": {"type": "ephemeral"}},
        {"toolset_name": "files"},
        {"other": 1},
    ],
}
_counter = iter(range(10**9))


@st.composite
def _block(draw: Any) -> Any:
    kind = draw(st.sampled_from(["text", "text", "tool_use", "tool_use", "tool_use", "thinking", "odd"]))
    if kind == "thinking":
        return {"type": "thinking", "thinking": "hm", "signature": "sig"}
    if kind == "odd":
        return draw(st.sampled_from(["text", 1, None, {"type": "image"}, {"type": "server_tool_use", "id": "s"}]))
    if kind == "text":
        b: dict[str, Any] = {"type": "text", "text": draw(st.sampled_from(["done", " "]))}
    else:
        b = {"type": "tool_use", "id": f"toolu_x{next(_counter)}", "name": "lookup", "input": {"q": "a"}}
    if draw(st.booleans()):
        change = draw(st.sampled_from(NEAR[kind]))
        for key, value in change.items():
            if value is None and draw(st.booleans()):
                b.pop(key, None)
            else:
                b[key] = copy.deepcopy(value)
    return b


@st.composite
def answers(draw: Any) -> Any:
    if draw(st.integers(0, 30)) == 0:
        return draw(st.sampled_from([[], "x", None, {"type": "error", "error": {"type": "api_error"}}]))
    body: dict[str, Any] = {
        "id": draw(st.sampled_from(["msg_1", None, 3])),
        "type": draw(st.sampled_from(["message", "message", "error", None])),
        "role": "assistant",
        "model": draw(st.sampled_from(["claude-sonnet-4-5", None, 1])),
        "content": [draw(_block()) for _ in range(draw(st.integers(0, 3)))],
        "stop_reason": draw(st.sampled_from(["tool_use", "end_turn", "max_tokens", "pause_turn", "new_one", None, 2])),
        "stop_sequence": draw(st.sampled_from([None, "END"])),
        "usage": draw(
            st.sampled_from(
                [
                    {"input_tokens": 10, "output_tokens": 5},
                    {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 3},
                    {"input_tokens": "10", "output_tokens": -1, "cache_creation_input_tokens": 2.0},
                    {"input_tokens": 1, "output_tokens": 2, "output_tokens_details": {"thinking_tokens": 1}},
                    None,
                    "x",
                ]
            )
        ),
    }
    for key in draw(st.lists(st.sampled_from(["id", "type", "model", "content", "stop_reason", "usage"]), max_size=2)):
        body.pop(key, None)
    if draw(st.integers(0, 8)) == 0:
        body[draw(st.sampled_from(["container", "stop_details", "error"]))] = draw(_ANY)
    if draw(st.integers(0, 10)) == 0:
        body["content"] = draw(st.sampled_from([None, "x", {"type": "text"}]))
    return body


def _decode(body: Any, request: Any) -> Any:
    try:
        return AnthropicCodec().decode_response(copy.deepcopy(body), request)
    except Exception as exc:  # the error itself is compared
        return (type(exc), str(exc))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers(), st.sampled_from([None, PLAIN, RENAMED]))
def test_the_one_pass_decoding_gives_the_response_of_the_full_decoding(body: Any, request: Any) -> None:
    fast = _decode(body, request)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(anthropic_codec, "_decode_usual", lambda body, request: None)
        full = _decode(body, request)
    assert fast == full
    if not isinstance(full, tuple):
        assert repr(fast) == repr(full)  # the fields compare=False leaves out too


def test_the_usual_answer_takes_the_one_pass_and_keeps_nothing_of_the_body() -> None:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "toolu_1", "name": "files_read_v2", "input": {"q": "a"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    response = anthropic_codec._decode_usual(body, RENAMED)
    assert response is not None
    call = response.parts[1]
    assert (call.name, call.arguments, response.stop_reason, response.usage.input_tokens) == (
        "files.read:v2",
        {"q": "a"},
        "tool_use",
        10,
    )
    call.arguments["q"] = "changed"  # the call's arguments are its own, not the body's
    assert body["content"][1]["input"] == {"q": "a"}
    # a cut-off call at max_tokens is marked as the full decoding marks it
    cut = dict(body, stop_reason="max_tokens")
    last = anthropic_codec._decode_usual(cut, PLAIN).parts[-1]
    assert last.incomplete and "max_tokens" in last.invalid
    # two calls with one id: the second is marked invalid (check_tool_calls)
    twice = dict(body, content=[body["content"][1], dict(body["content"][1])])
    calls = anthropic_codec._decode_usual(twice, PLAIN).tool_calls
    assert calls[0].invalid is None and calls[1].invalid is not None


def _canonical_answer() -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "a"}},
            {"type": "tool_use", "id": "toolu_2", "name": "files_read_v2", "input": {}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


#: One change next to the usual answer's own fields (None: removed).
HEAD_NEAR: list[dict[str, Any]] = [
    {"id": None},
    {"id": 3},
    {"type": "error"},
    {"type": None},
    {"model": None},
    {"model": 1},
    {"stop_reason": None},
    {"stop_reason": "max_tokens"},
    {"stop_reason": "refusal"},
    {"stop_reason": "new_one"},
    {"stop_reason": 2},
    {"stop_sequence": "END"},
    {"stop_details": {"category": "x"}},
    {"container": {"id": "c"}},
    {"error": {"type": "api_error", "message": "m"}},
    {"usage": None},
    {"usage": {"input_tokens": 1, "output_tokens": 2, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 4}},
    {"usage": {"input_tokens": "1", "output_tokens": 2.0, "output_tokens_details": {"thinking_tokens": 1}}},
    {"content": None},
    {"content": []},
    {"content": "x"},
]


def _near_answers() -> list[Any]:
    out = []
    for change in HEAD_NEAR:
        for drop in (False, True):
            body = _canonical_answer()
            for key, value in change.items():
                if value is None and drop:
                    body.pop(key, None)
                else:
                    body[key] = copy.deepcopy(value)
            out.append(pytest.param(body, id=f"head-{change}-{'drop' if drop else 'set'}"))
    for bi, block in enumerate(_canonical_answer()["content"]):
        for change in NEAR[block["type"]]:
            for drop in (False, True):
                body = _canonical_answer()
                for key, value in change.items():
                    if value is None and drop:
                        body["content"][bi].pop(key, None)
                    else:
                        body["content"][bi][key] = copy.deepcopy(value)
                out.append(pytest.param(body, id=f"b{bi}-{change}-{'drop' if drop else 'set'}"))
    return out


@pytest.mark.parametrize("body", _near_answers())
def test_every_near_miss_answer_is_decoded_as_the_full_decoding_does(body: dict[str, Any]) -> None:
    for request in (None, PLAIN, RENAMED):
        fast = _decode(body, request)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(anthropic_codec, "_decode_usual", lambda body, request: None)
            full = _decode(body, request)
        assert fast == full
        assert repr(fast) == repr(full)


def test_parts_of_subclasses_are_encoded_as_their_part_class() -> None:
    """The encoders dispatch a part of exactly a part class on its class, and any other part by
    isinstance in their own order: a subclass instance is encoded as its base class's part, and a
    part in the wrong role is dropped as before."""
    from toolwire.types import ReasoningPart, ToolCall, ToolResult

    class MyText(TextPart):
        pass

    class MyCall(ToolCall):
        pass

    class MyResult(ToolResult):
        pass

    def conversation(text: Any, call: Any, result: Any) -> list[Message]:
        return [
            Message("user", [text("go"), call(id="toolu_9", name="lookup", arguments={})]),  # a call in a user turn
            Message(
                "assistant",
                [
                    ReasoningPart(text="hm", signature="sig", provider="anthropic"),
                    text("calling"),
                    call(id="toolu_1", name="lookup", arguments={"q": "a"}),
                    result("toolu_0", "misplaced"),  # a result in an assistant turn
                ],
            ),
            Message("user", [result("toolu_1", "ok"), text("thanks")]),
        ]

    def encode(msgs: list[Message]) -> Any:
        return AnthropicCodec().encode_request(
            ModelRequest(model="claude-sonnet-4-5", messages=msgs, tools=[_tool("lookup")])
        )

    base = encode(conversation(TextPart, ToolCall, ToolResult))
    assert encode(conversation(MyText, MyCall, MyResult)) == base
    assert [b["type"] for b in base["messages"][1]["content"]] == ["thinking", "text", "tool_use"]
    assert [b["type"] for b in base["messages"][2]["content"]] == ["tool_result", "text"]
