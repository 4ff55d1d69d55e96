"""Malformed and adversarial Anthropic bodies: every one gives a toolwire error naming the field, or
a response whose unusable tool calls are marked (never a raw KeyError/TypeError/AttributeError).

Bodies and SSE events are hand-written in the Messages wire format; the transport tests go through
the real ``anthropic`` SDK with only the network replaced (``mock_model`` fixture).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from toolwire_anthropic import AnthropicCodec
from toolwire_anthropic.codec import NAME_INVALID, check_tool_calls

import toolwire
from toolwire.adapter import ModelRequest
from toolwire.errors import ProviderError, ResponseDecodeError
from toolwire.stream import assemble
from toolwire.testing import ScriptedModel
from toolwire.tools import Tool
from toolwire.types import Message

CODEC = AnthropicCodec()
CALLS: list[str] = []


def _weather(city: str) -> str:
    CALLS.append(city)
    return f"sunny in {city}"


WEATHER = Tool.from_schema(
    "get_weather",
    "Weather for a city. Use when asked about weather.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    function=_weather,
)


def body(content: Any, **extra: Any) -> dict[str, Any]:
    b = {
        "id": "msg_01R",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 9, "output_tokens": 4},
    }
    b.update(extra)
    return b


def tool_use(call_id: Any, name: Any = "get_weather", city: str = "Paris") -> dict[str, Any]:
    block = {"type": "tool_use", "name": name, "input": {"city": city}}
    if call_id is not ...:
        block["id"] = call_id
    return block


# ------------------------------------------------------------------ malformed bodies


@pytest.mark.parametrize(
    "wire, pointer",
    [
        (None, ""),
        (5, ""),
        ({"content": 5}, "/content"),
        ({"content": {"type": "text"}}, "/content"),
        ({"content": [5]}, "/content/0"),
        ({"content": [{"type": "text", "text": 5}]}, "/content/0/text"),
        ({"content": [{"type": "thinking", "thinking": ["x"], "signature": "s"}]}, "/content/0/thinking"),
        ({"content": [{"type": "redacted_thinking", "data": 7}]}, "/content/0/data"),
        ({"content": [], "stop_reason": ["x"]}, "/stop_reason"),
        ({"content": [], "stop_reason": {"a": 1}}, "/stop_reason"),
        ({"content": [], "id": 5}, "/id"),
        ({"content": [], "model": ["m"]}, "/model"),
    ],
)
def test_malformed_response_raises_response_decode_error(wire: Any, pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        CODEC.decode_response(wire)
    err = info.value
    assert err.api == "anthropic" and err.pointer == pointer
    assert isinstance(err, ValueError)
    assert str(err).startswith("anthropic: malformed body")


def test_error_body_is_still_a_provider_error() -> None:
    with pytest.raises(ProviderError) as info:
        CODEC.decode_response({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    assert info.value.retryable and info.value.error_type == "overloaded_error"


def test_usage_counters_of_the_wrong_type_are_dropped_not_passed_through() -> None:
    resp = CODEC.decode_response(
        body(
            [{"type": "text", "text": "hi"}],
            stop_reason="end_turn",
            usage={
                "input_tokens": "12",
                "output_tokens": 3,
                "cache_read_input_tokens": -1,
                "cache_creation_input_tokens": 2.0,
                "output_tokens_details": {"thinking_tokens": True},
            },
        )
    )
    u = resp.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, u.reasoning_tokens) == (
        None,
        3,
        None,
        2,
        None,
    )
    assert CODEC.decode_response(body([], usage="x")).usage.input_tokens is None
    # the loop sums usage across turns: no TypeError
    result = toolwire.run_sync(ScriptedModel(responses=[resp]), "hi")
    assert result.usage.output_tokens == 3


def test_stream_usage_of_the_wrong_type_keeps_the_earlier_count() -> None:
    events = [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "model": "c", "content": [], "usage": {"input_tokens": 30, "output_tokens": 1}},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"input_tokens": "31", "output_tokens": 6},
        },
        {"type": "message_stop"},
    ]
    resp = assemble(CODEC.decode_stream(events), "anthropic")
    assert (resp.usage.input_tokens, resp.usage.output_tokens) == (30, 6)


# ------------------------------------------------------------------ tool names


@pytest.mark.parametrize("name, kept", [(None, ""), ("", ""), (5, "5"), ([], "[]"), ({"a": 1}, '{"a": 1}')])
def test_tool_call_without_a_string_name_is_invalid_never_a_crash(name: Any, kept: str) -> None:
    resp = CODEC.decode_response(body([tool_use("toolu_N", name=name)]))
    call = resp.tool_calls[0]
    assert (call.name, call.invalid, call.is_valid) == (kept, NAME_INVALID, False)
    CALLS.clear()
    result = toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[WEATHER])
    assert CALLS == []
    assert [r.result.is_error for r in result.tool_runs] == [True]


def test_streamed_tool_call_without_a_name_is_marked_by_check_tool_calls() -> None:
    events = [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "model": "c", "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}},
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": None, "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Rome"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]
    resp = check_tool_calls(assemble(CODEC.decode_stream(events), "anthropic"))
    call = resp.tool_calls[0]
    assert (call.name, call.arguments, call.invalid) == ("", {"city": "Rome"}, NAME_INVALID)


# ------------------------------------------------------------------ ids


def test_tool_use_without_an_id_gets_a_unique_synthesized_id() -> None:
    wire = body([tool_use(...), tool_use(None, city="Rome"), tool_use(7, city="Oslo")])
    first = CODEC.decode_response(wire, ModelRequest(model="c", messages=[Message.user("hi")]))
    ids = [c.id for c in first.tool_calls]
    assert len(set(ids)) == 3 and all(c.id_synthesized for c in first.tool_calls)
    assert all(re.fullmatch(r"toolu_tw[0-9a-f]{16}_[0-2]", i) for i in ids)
    assert [i[-1] for i in ids] == ["0", "1", "2"]
    # the same body decoded on a later turn (more messages in the request) gets other ids
    later = CODEC.decode_response(wire, ModelRequest(model="c", messages=[Message.user("hi")] * 3))
    assert not set(ids) & {c.id for c in later.tool_calls}
    # and deterministic: the same inputs give the same ids
    assert [
        c.id for c in CODEC.decode_response(wire, ModelRequest(model="c", messages=[Message.user("hi")])).tool_calls
    ] == ids


def test_distinct_calls_sharing_an_id_get_ids_of_their_own_and_each_is_answered() -> None:
    # Claude on Bedrock has put the tool's name in the id of two distinct calls
    # (bvcyber/Cyber-AutoAgent-ng#72): each is a call the model made, so each runs
    wire = body([tool_use("toolu_1", city="A"), tool_use("toolu_1", city="B"), tool_use("toolu_2", city="C")])
    resp = CODEC.decode_response(wire)
    calls = resp.tool_calls
    assert [(c.id, c.arguments, c.invalid) for c in calls] == [
        ("toolu_1", {"city": "A"}, None),
        ("toolu_1_1", {"city": "B"}, None),
        ("toolu_2", {"city": "C"}, None),
    ]
    CALLS.clear()
    result = toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[WEATHER])
    assert sorted(CALLS) == ["A", "B", "C"]  # run in parallel: in any order
    assert [(r.call.id, r.result.is_error) for r in result.tool_runs] == [
        ("toolu_1", False),
        ("toolu_1_1", False),
        ("toolu_2", False),
    ]
    sent = CODEC.encode_request(
        ModelRequest(model="c", messages=result.conversation.messages, tools=[WEATHER], max_tokens=64)
    )
    assistant, answers = sent["messages"][1], sent["messages"][2]
    assert [(b["id"], b["input"]) for b in assistant["content"]] == [
        ("toolu_1", {"city": "A"}),
        ("toolu_1_1", {"city": "B"}),
        ("toolu_2", {"city": "C"}),
    ]
    assert [(b["tool_use_id"], b["content"]) for b in answers["content"]] == [
        ("toolu_1", "sunny in A"),
        ("toolu_1_1", "sunny in B"),
        ("toolu_2", "sunny in C"),
    ]


def test_the_very_same_call_repeated_under_one_id_is_invalid_and_each_id_answered_once() -> None:
    wire = body([tool_use("toolu_1", city="A"), tool_use("toolu_1", city="A"), tool_use("toolu_2", city="C")])
    resp = CODEC.decode_response(wire)
    calls = resp.tool_calls
    assert [c.invalid for c in calls] == [None, "duplicate tool call id toolu_1 in one response", None]
    CALLS.clear()
    result = toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[WEATHER])
    assert sorted(CALLS) == ["A", "C"]  # the two valid calls run in parallel: in either order
    assert [(r.call.id, r.result.is_error) for r in result.tool_runs] == [
        ("toolu_1", False),
        ("toolu_1", True),
        ("toolu_2", False),
    ]
    sent = CODEC.encode_request(
        ModelRequest(model="c", messages=result.conversation.messages, tools=[WEATHER], max_tokens=64)
    )
    assistant, answers = sent["messages"][1], sent["messages"][2]
    assert [(b["id"], b["input"]) for b in assistant["content"]] == [
        ("toolu_1", {"city": "A"}),
        ("toolu_2", {"city": "C"}),
    ]
    assert [(b["tool_use_id"], b["content"]) for b in answers["content"]] == [
        ("toolu_1", "sunny in A"),
        ("toolu_2", "sunny in C"),
    ]


# ------------------------------------------------------------------ streams: index misuse


def _start(i: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": i, "content_block": block}


MSG_START = {
    "type": "message_start",
    "message": {"id": "msg_S", "model": "c", "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}},
}
TEXT0 = [
    _start(0, {"type": "text", "text": ""}),
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
    {"type": "content_block_stop", "index": 0},
]


@pytest.mark.parametrize(
    "events, message",
    [
        (
            TEXT0 + [_start(0, {"type": "tool_use", "id": "t1", "name": "f", "input": {}})],
            "content block 0 was started twice",
        ),
        (
            [
                _start(0, {"type": "text", "text": ""}),
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": "{}"},
                },
            ],
            "a input_json_delta arrived for content block 0, which is a text block",
        ),
        (
            [
                _start(0, {"type": "tool_use", "id": "t1", "name": "f", "input": {}}),
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}},
            ],
            "a text_delta arrived for content block 0, which is a tool_use block",
        ),
        (
            [{"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "x"}}],
            "content block 3, which was never started",
        ),
        (TEXT0 + [{"type": "content_block_stop", "index": 0}], "content block 0 was stopped twice"),
        (
            TEXT0 + [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}],
            "after its content_block_stop",
        ),
        ([{"type": "content_block_stop", "index": 2}], "content block 2, which was never started"),
    ],
)
def test_stream_index_misuse_raises_response_decode_error(events: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        assemble(CODEC.decode_stream([MSG_START, *events]), "anthropic")
    assert info.value.api == "anthropic"
    assert message in str(info.value)
    assert "stream index" not in str(info.value)


@pytest.mark.parametrize(
    "event, pointer",
    [
        ({"type": "content_block_start", "index": "0", "content_block": {"type": "text", "text": ""}}, "/index"),
        ({"type": "content_block_start", "index": -1, "content_block": {"type": "text", "text": ""}}, "/index"),
        ({"type": "content_block_start", "index": 0, "content_block": "text"}, "/content_block"),
        (
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": 5}},
            "/content_block/text",
        ),
        ({"type": "message_delta", "delta": {"stop_reason": 3}}, "/delta/stop_reason"),
        ({"type": "message_start", "message": "x"}, "/message"),
    ],
)
def test_stream_fields_of_the_wrong_type(event: dict[str, Any], pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        list(CODEC.decode_stream([event]))
    assert info.value.pointer == pointer


# ------------------------------------------------------------------ streams cut off


def test_stream_cut_off_inside_a_tool_call_is_incomplete_and_not_run() -> None:
    ran: list[str] = []

    @toolwire.tool
    def deploy(env: str = "production") -> str:
        """Deploy the service. Use when asked to deploy."""
        ran.append(env)
        return f"deployed to {env}"

    events = [MSG_START, _start(0, {"type": "tool_use", "id": "toolu_D", "name": "deploy", "input": {}})]
    resp = assemble(CODEC.decode_stream(events), "anthropic")
    call = resp.tool_calls[0]
    assert (resp.stop_reason, resp.vendor_stop_reason) == ("error", None)
    assert call.incomplete and not call.is_valid
    toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[deploy])
    assert ran == []


def test_stream_cut_off_after_a_closed_call_keeps_the_call_but_says_error() -> None:
    events = [
        MSG_START,
        _start(0, {"type": "tool_use", "id": "toolu_D", "name": "get_weather", "input": {}}),
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'},
        },
        {"type": "content_block_stop", "index": 0},
    ]
    resp = assemble(CODEC.decode_stream(events), "anthropic")
    assert (resp.stop_reason, resp.vendor_stop_reason) == ("error", None)
    assert resp.tool_calls[0].is_valid and resp.tool_calls[0].arguments == {"city": "Oslo"}


def test_stream_with_max_tokens_but_no_message_stop_keeps_the_vendor_reason() -> None:
    events = [
        MSG_START,
        _start(0, {"type": "tool_use", "id": "toolu_D", "name": "get_weather", "input": {}}),
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Os'},
        },
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 20}},
    ]
    resp = assemble(CODEC.decode_stream(events), "anthropic")
    assert (resp.stop_reason, resp.vendor_stop_reason) == ("max_tokens", "max_tokens")
    assert resp.tool_calls[0].incomplete


def test_message_stop_without_a_stop_reason_maps_by_content() -> None:
    events = [MSG_START, *TEXT0, {"type": "message_stop"}]
    resp = assemble(CODEC.decode_stream(events), "anthropic")
    assert (resp.stop_reason, resp.vendor_stop_reason, resp.text) == ("end_turn", None, "hi")


# ------------------------------------------------------------------ decode_request


@pytest.mark.parametrize(
    "wire, pointer",
    [
        ([], ""),
        ({"messages": 5}, "/messages"),
        ({"messages": ["hi"]}, "/messages/0"),
        ({"messages": [{"role": "developer", "content": "x"}]}, "/messages/0/role"),
        ({"messages": [{"role": "user", "content": 5}]}, "/messages/0/content"),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": None}]}]}, "/messages/0/content/0/text"),
    ],
)
def test_malformed_request_raises_response_decode_error(wire: Any, pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        CODEC.decode_request(wire)
    assert info.value.pointer == pointer and isinstance(info.value, ValueError)


# ------------------------------------------------------------------ through the SDK


def test_transport_streamed_send_reissues_shared_ids_marks_duplicates_and_raises_decode_errors(
    mock_model: Any, wire: Any
) -> None:
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_T",
                "type": "message",
                "role": "assistant",
                "model": "c",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        },
        _start(0, {"type": "tool_use", "id": "toolu_X", "name": "get_weather", "input": {"city": "A"}}),
        {"type": "content_block_stop", "index": 0},
        _start(1, {"type": "tool_use", "id": "toolu_X", "name": "get_weather", "input": {"city": "B"}}),
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 12}},
        {"type": "message_stop"},
    ]
    model = mock_model([wire.sse_response(events)], stream=True)
    resp = asyncio.run(model.send(model.build_request([Message.user("hi")], tools=[WEATHER])))
    assert [(c.id, c.arguments, c.invalid) for c in resp.tool_calls] == [
        ("toolu_X", {"city": "A"}, None),
        ("toolu_X_1", {"city": "B"}, None),
    ]
    same = [
        *events[:3],
        _start(1, {"type": "tool_use", "id": "toolu_X", "name": "get_weather", "input": {"city": "A"}}),
        *events[4:],
    ]
    model = mock_model([wire.sse_response(same)], stream=True)
    resp = asyncio.run(model.send(model.build_request([Message.user("hi")], tools=[WEATHER])))
    assert [(c.id, c.arguments, c.invalid) for c in resp.tool_calls] == [
        ("toolu_X", {"city": "A"}, None),
        ("toolu_X", {"city": "A"}, "duplicate tool call id toolu_X in one response"),
    ]

    bad = [events[0], _start(0, {"type": "text", "text": ""}), _start(0, {"type": "text", "text": ""})]
    model = mock_model([wire.sse_response(bad)], stream=True)
    with pytest.raises(ResponseDecodeError) as info:
        asyncio.run(model.send(model.build_request([Message.user("hi")])))
    assert "content block 0 was started twice" in str(info.value)


# ------------------------------------------------------------------ answers the next request must carry


@pytest.mark.parametrize(
    "block",
    [
        {"type": "thinking", "thinking": "Let me look.", "signature": ""},
        {"type": "redacted_thinking", "data": ""},
    ],
    ids=["empty-signature", "empty-redacted-data"],
)
def test_a_thinking_block_with_an_empty_signature_is_not_sent_back(mock_model: Any, wire: Any, block: Any) -> None:
    # proxies write "signature": "" when they have none (dwgx/WindsurfAPI#228); the API requires
    # the signature it returned ("messages.1.content.0.thinking.signature: Field required"), so the
    # block is left out of the next request as one without a signature is, not sent to be refused
    call = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
    model = mock_model(
        [
            wire.json_response(wire.message_body([block, call], stop_reason="tool_use")),
            wire.json_response(wire.message_body([{"type": "text", "text": "Sunny."}])),
        ]
    )
    result = toolwire.run_sync(model, "Weather in Paris?", tools=[WEATHER])
    assert result.text == "Sunny."
    assert [r.result.is_error for r in result.tool_runs] == [False]
    sent_back = model.sent[1].json["messages"][1]["content"]  # type: ignore[attr-defined]
    assert [b["type"] for b in sent_back] == ["tool_use"]


@pytest.mark.parametrize(
    "content, extra",
    [
        ([tool_use("toolu_X", city="A"), tool_use("toolu_X", city="A")], {}),  # the same call again: invalid
        ([tool_use("toolu_X", city="A"), {**tool_use("toolu_Y"), "input": ["Paris"]}], {}),  # input not an object
        ([tool_use("toolu_X", city="A")], {"id": ""}),
        (
            [tool_use("toolu_X", city="A"), tool_use("toolu_X", city="A"), tool_use("toolu_Y", city="C")],
            {"stop_reason": "max_tokens"},  # the repeated id is not the call max_tokens cut
        ),
    ],
    ids=["repeated-id", "input-not-an-object", "empty-message-id", "repeated-id-at-max-tokens"],
)
def test_a_json_answer_to_a_streamed_request_gives_the_unstreamed_response(
    mock_model: Any, wire: Any, content: Any, extra: Any
) -> None:
    # a streamed request answered with one JSON body is decoded as that body: the same Response
    # as unstreamed -- the call marked invalid keeps the arguments the model wrote (or none),
    # an empty message id stays ""
    responses = {}
    for stream in (False, True):
        model = mock_model(
            [
                wire.json_response(body(content, **extra)),
                wire.json_response(body([{"type": "text", "text": "Done."}], stop_reason="end_turn")),
            ],
            stream=stream,
        )
        CALLS.clear()
        result = toolwire.run_sync(model, "hi", tools=[WEATHER])
        assert CALLS == ["A"]
        responses[stream] = result.turns[0].response
    assert responses[True] == responses[False]
    assert responses[True].tool_calls[-1].is_valid is (len(content) == 1)
    assert [c.incomplete for c in responses[True].tool_calls][:2] == [False, False][: len(content)]


@pytest.mark.parametrize("kind", [["tool_use"], {"type": "text"}])
@pytest.mark.parametrize("stream", [False, True])
def test_a_content_block_whose_type_is_not_a_string_is_a_decode_error(
    mock_model: Any, wire: Any, kind: Any, stream: bool
) -> None:
    # a block of an unknown type is kept whole and sent back; one whose type is not even a
    # string (the Messages API types every block with a string "type") was kept from a stream,
    # and the next request of the run then failed inside toolwire with a raw TypeError
    # ("unhashable type: 'list'"); it is now reported where it is, as the unstreamed body is
    block = {"type": kind, "text": "x"}
    call = tool_use("toolu_1", city="Paris")
    if stream:
        events = [
            {"type": "message_start", "message": {**body([]), "stop_reason": None}},
            _start(0, block),
            {"type": "content_block_stop", "index": 0},
            _start(1, call),
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 3}},
            {"type": "message_stop"},
        ]
        answer = wire.sse_response(events)
    else:
        answer = wire.json_response(body([block, call]))
    model = mock_model([answer, wire.json_response(body([], stop_reason="end_turn"))], stream=stream)
    with pytest.raises(ResponseDecodeError) as info:
        toolwire.run_sync(model, "hi", tools=[WEATHER])
    assert info.value.pointer == ("/content_block/type" if stream else "/content/0/type")
    assert len(model.sent) == 1  # type: ignore[attr-defined]
