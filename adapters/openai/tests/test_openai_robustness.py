"""Malformed and adversarial Chat Completions and Responses bodies: every one gives a toolwire error
naming the field, or a response whose unusable tool calls are marked (never a raw Python error).

Bodies, chunks and SSE events are hand-written in the OpenAI wire formats (``openai_wire.py``);
the transport tests go through the real ``openai`` SDK with only the network replaced.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from openai_wire import chat_sse, completion, fc_item, json_response, response_body, responses_sse, tool_call
from toolwire_openai import OpenAIChatCodec, OpenAIResponsesCodec
from toolwire_openai._common import NAME_INVALID, check_tool_calls

import toolwire
from toolwire.adapter import ModelRequest
from toolwire.errors import ProviderError, ResponseDecodeError
from toolwire.stream import assemble
from toolwire.testing import ScriptedModel
from toolwire.tools import Tool
from toolwire.types import Message

CHAT = OpenAIChatCodec()
RESP = OpenAIResponsesCodec()
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


def chat_calls(*calls: dict[str, Any], cid: str = "chatcmpl-R") -> dict[str, Any]:
    return completion({"tool_calls": list(calls)}, finish_reason="tool_calls", cid=cid)


def chunk(delta: dict[str, Any], finish: str | None = None, cid: str = "chatcmpl-S") -> dict[str, Any]:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def frag(index: int, call_id: str | None = None, name: str | None = None, arguments: str = "") -> dict[str, Any]:
    f: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if call_id is not None:
        f["id"], f["type"] = call_id, "function"
    if name is not None:
        f["function"]["name"] = name
    return {"tool_calls": [f]}


# ================================================================== Chat Completions


@pytest.mark.parametrize(
    "wire, pointer",
    [
        (None, ""),
        ("x", ""),
        ({"choices": {"a": 1}}, "/choices"),
        ({"choices": ["x"]}, "/choices/0"),
        ({"choices": [{"message": "x"}]}, "/choices/0/message"),
        ({"choices": [{"message": {"tool_calls": 5}}]}, "/choices/0/message/tool_calls"),
        ({"choices": [{"message": {"tool_calls": ["c"]}}]}, "/choices/0/message/tool_calls/0"),
        (
            {"choices": [{"message": {"tool_calls": [{"id": "c", "function": "x"}]}}]},
            "/choices/0/message/tool_calls/0/function",
        ),
        ({"choices": [{"message": {"content": 5}}]}, "/choices/0/message/content"),
        ({"choices": [{"message": {"content": [{"type": "text", "text": 5}]}}]}, "/choices/0/message/content/0/text"),
        ({"choices": [{"message": {}, "finish_reason": ["stop"]}]}, "/choices/0/finish_reason"),
        ({"choices": [{"message": {"refusal": 1}}]}, "/choices/0/message/refusal"),
        ({"id": 3, "choices": []}, "/id"),
    ],
)
def test_chat_malformed_response(wire: Any, pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        CHAT.decode_response(wire)
    assert (info.value.api, info.value.pointer) == ("openai-chat", pointer)
    assert isinstance(info.value, ValueError)


def test_chat_usage_counters_of_the_wrong_type_are_dropped() -> None:
    body = completion(
        {"content": "hi"},
        usage={
            "prompt_tokens": "12",
            "completion_tokens": 4.0,
            "total_tokens": 16,
            "prompt_tokens_details": {"cached_tokens": -2},
            "completion_tokens_details": {"reasoning_tokens": [1]},
        },
    )
    u = CHAT.decode_response(body).usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.reasoning_tokens) == (None, 4, None, None)


@pytest.mark.parametrize("name, kept", [(None, ""), ("", ""), (5, "5"), ([], "[]"), (True, "true")])
def test_chat_tool_call_without_a_string_name_is_invalid(name: Any, kept: str) -> None:
    body = chat_calls({"id": "call_1", "type": "function", "function": {"name": name, "arguments": "{}"}})
    resp = CHAT.decode_response(body, ModelRequest(model="m", tools=[WEATHER]))
    call = resp.tool_calls[0]
    assert (call.name, call.invalid) == (kept, NAME_INVALID)
    result = toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[WEATHER])
    assert [r.result.is_error for r in result.tool_runs] == [True]


def test_chat_generated_ids_never_collide_with_vendor_ids() -> None:
    body = chat_calls(
        {"type": "function", "function": {"name": "get_weather", "arguments": '{"city":"P"}'}},
        tool_call("call_0", "get_weather", '{"city":"Q"}'),
        {"id": "", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"R"}'}},
    )
    resp = CHAT.decode_response(body, ModelRequest(model="m", messages=[Message.user("hi")]))
    calls = resp.tool_calls
    assert calls[1].id == "call_0" and not calls[1].id_synthesized
    assert re.fullmatch(r"call_tw[0-9a-f]{16}_0", calls[0].id) and re.fullmatch(r"call_tw[0-9a-f]{16}_2", calls[2].id)
    assert calls[0].id_synthesized and calls[2].id_synthesized
    assert len({c.id for c in calls}) == 3 and all(c.invalid is None for c in calls)
    later = CHAT.decode_response(body, ModelRequest(model="m", messages=[Message.user("hi")] * 3))
    assert later.tool_calls[0].id != calls[0].id


def test_chat_duplicate_vendor_ids_answered_once() -> None:
    # distinct calls under one id (servers that number every call alike) each get an id of their
    # own; the very same call repeated under one id runs once
    resp = CHAT.decode_response(
        chat_calls(
            tool_call("call_0", "get_weather", '{"city":"A"}'),
            tool_call("call_0", "get_weather", '{"city":"B"}'),
            tool_call("call_0", "get_weather", '{"city":"A"}'),
        )
    )
    assert [(c.id, c.invalid) for c in resp.tool_calls] == [
        ("call_0", None),
        ("call_0_1", None),
        ("call_0", "duplicate tool call id call_0 in one response"),
    ]
    CALLS.clear()
    result = toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[WEATHER])
    assert CALLS == ["A", "B"]
    sent = CHAT.encode_request(ModelRequest(model="m", messages=result.conversation.messages, tools=[WEATHER]))
    assistant = sent["messages"][1]
    assert [(c["id"], c["function"]["arguments"]) for c in assistant["tool_calls"]] == [
        ("call_0", '{"city":"A"}'),
        ("call_0_1", '{"city":"B"}'),
    ]
    tools = [(m["tool_call_id"], m["content"]) for m in sent["messages"] if m["role"] == "tool"]
    assert tools == [("call_0", "sunny in A"), ("call_0_1", "sunny in B")]


def test_chat_stream_cut_off_without_finish_reason() -> None:
    ran: list[str] = []

    @toolwire.tool
    def deploy(env: str = "production") -> str:
        """Deploy the service. Use when asked to deploy."""
        ran.append(env)
        return env

    chunks = [chunk({"role": "assistant", "content": None}), chunk(frag(0, "call_1", "deploy"))]
    resp = assemble(CHAT.decode_stream(chunks), "openai-chat")
    assert (resp.stop_reason, resp.vendor_stop_reason) == ("error", None)
    assert resp.tool_calls[0].incomplete and not resp.tool_calls[0].is_valid
    toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[deploy])
    assert ran == []
    # with a finish_reason the same call is complete
    done = assemble(CHAT.decode_stream([*chunks, chunk({}, "tool_calls")]), "openai-chat")
    assert (done.stop_reason, done.tool_calls[0].is_valid, done.tool_calls[0].arguments) == ("tool_use", True, {})


def test_chat_stream_calls_sharing_an_index_with_different_ids_are_two_calls() -> None:
    chunks = [
        chunk(frag(0, "call_a", "get_weather", '{"city":')),
        chunk(frag(0, arguments='"A"}')),
        chunk(frag(0, "call_b", "get_weather", '{"city":"B"}')),
        chunk({}, "tool_calls"),
    ]
    resp = assemble(CHAT.decode_stream(chunks), "openai-chat")
    assert [(c.id, c.arguments) for c in resp.tool_calls] == [("call_a", {"city": "A"}), ("call_b", {"city": "B"})]


def test_chat_stream_ids_synthesized_and_names_checked() -> None:
    chunks = [chunk(frag(0, None, "get_weather", "{}")), chunk(frag(1, None, None, "{}")), chunk({}, "tool_calls")]
    resp = check_tool_calls(assemble(CHAT.decode_stream(chunks, ModelRequest(model="m")), "openai-chat"))
    a, b = resp.tool_calls
    assert a.id_synthesized and b.id_synthesized and a.id != b.id and a.id.startswith("call_tw")
    assert (a.invalid, b.name, b.invalid) == (None, "", NAME_INVALID)


@pytest.mark.parametrize(
    "bad, pointer",
    [
        ({"id": "c", "choices": {"0": {}}}, "/choices"),
        ({"id": "c", "choices": [{"index": 0, "delta": "x"}]}, "/choices/0/delta"),
        ({"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": {"index": 0}}}]}, "/choices/0/delta/tool_calls"),
        (
            {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": -1, "id": "x"}]}}]},
            "/choices/0/delta/tool_calls/0/index",
        ),
        (
            {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": "0", "id": "x"}]}}]},
            "/choices/0/delta/tool_calls/0/index",
        ),
        ({"id": "c", "choices": [{"index": 0, "delta": {"content": 5}}]}, "/choices/0/delta/content"),
        ({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": 1}]}, "/choices/0/finish_reason"),
    ],
)
def test_chat_stream_malformed_chunks(bad: dict[str, Any], pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        list(CHAT.decode_stream([bad]))
    assert (info.value.api, info.value.pointer) == ("openai-chat", pointer)


def test_chat_malformed_request() -> None:
    with pytest.raises(ResponseDecodeError) as info:
        CHAT.decode_request({"messages": {"role": "user"}})
    assert info.value.pointer == "/messages"
    with pytest.raises(ResponseDecodeError):
        CHAT.decode_request(None)  # type: ignore[arg-type]


# ================================================================== Responses


@pytest.mark.parametrize(
    "wire, pointer",
    [
        (None, ""),
        ({"output": 5}, "/output"),
        ({"output": ["x"]}, "/output/0"),
        (
            {"output": [{"type": "reasoning", "summary": [{"type": "summary_text", "text": 5}]}]},
            "/output/0/summary/0/text",
        ),
        ({"output": [{"type": "reasoning", "summary": 3}]}, "/output/0/summary"),
        (
            {"output": [{"type": "message", "content": [{"type": "output_text", "text": ["x"]}]}]},
            "/output/0/content/0/text",
        ),
        ({"output": [{"type": "message", "content": "hi"}]}, "/output/0/content"),
        ({"output": [], "status": ["completed"]}, "/status"),
        ({"output": [], "status": "incomplete", "incomplete_details": {"reason": {}}}, "/incomplete_details/reason"),
        ({"output": [], "model": 5}, "/model"),
    ],
)
def test_responses_malformed_response(wire: Any, pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        RESP.decode_response(wire)
    assert (info.value.api, info.value.pointer) == ("openai", pointer)


def test_responses_arguments_sent_as_an_object_are_the_arguments() -> None:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": {"city": "Paris"},
    }
    call = RESP.decode_response(response_body([item])).tool_calls[0]
    assert (call.arguments, call.invalid, call.raw_arguments) == ({"city": "Paris"}, None, None)
    # re-sent as the JSON string the API takes
    sent = RESP.encode_request(ModelRequest(model="m", messages=[Message("assistant", [call])]))
    assert sent["input"][0]["arguments"] == '{"city":"Paris"}'
    bad = RESP.decode_response(response_body([{**item, "arguments": [1]}])).tool_calls[0]
    assert (bad.arguments, bad.invalid) == (None, "arguments must be a JSON object, got a JSON array")


def test_responses_streamed_object_arguments_taken_at_output_item_done() -> None:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": {"city": "Rome"},
        "status": "completed",
    }
    events = [
        {"type": "response.created", "response": {"id": "resp_1", "model": "m", "status": "in_progress"}},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [item]}},
    ]
    resp = assemble(RESP.decode_stream(events), "openai")
    assert resp.tool_calls[0].arguments == {"city": "Rome"} and resp.stop_reason == "tool_use"


@pytest.mark.parametrize("name, kept", [(None, ""), (7, "7"), ({}, "{}")])
def test_responses_tool_call_without_a_string_name_is_invalid(name: Any, kept: str) -> None:
    call = RESP.decode_response(response_body([{**fc_item("call_1", "x", "{}", "fc_1"), "name": name}])).tool_calls[0]
    assert (call.name, call.invalid) == (kept, NAME_INVALID)


def test_responses_duplicate_call_ids_answered_once() -> None:
    resp = RESP.decode_response(
        response_body(
            [
                fc_item("call_1", "get_weather", '{"city":"A"}', "fc_1"),
                fc_item("call_1", "get_weather", '{"city":"B"}', "fc_2"),
            ]
        )
    )
    assert [c.invalid for c in resp.tool_calls] == [None, "duplicate tool call id call_1 in one response"]
    CALLS.clear()
    result = toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[WEATHER])
    assert CALLS == ["A"]
    sent = RESP.encode_request(ModelRequest(model="m", messages=result.conversation.messages, tools=[WEATHER]))
    calls = [(i["call_id"], i["id"]) for i in sent["input"] if i.get("type") == "function_call"]
    outputs = [(i["call_id"], i["output"]) for i in sent["input"] if i.get("type") == "function_call_output"]
    assert calls == [("call_1", "fc_1")] and outputs == [("call_1", "sunny in A")]


_RS = {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAAA"}
_MSG = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Looking.", "annotations": []}],
}
_WEB = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "x"}}


_FC1 = fc_item("call_1", "get_weather", '{"city":"A"}', "fc_1")


@pytest.mark.parametrize(
    "output,kinds",
    [
        ([_RS, _RS, _FC1], ["reasoning", "function_call"]),
        ([_WEB, _WEB, _FC1], ["web_search_call", "function_call"]),
        ([_FC1, fc_item("call_2", "get_weather", '{"city":"B"}', "fc_1")], ["function_call", "function_call"]),
        ([_MSG, _FC1, _MSG], ["message", "function_call", "message"]),
    ],
    ids=["reasoning", "hosted-item", "function-call", "message"],
)
def test_responses_item_id_repeated_in_one_answer_is_sent_once(responses_model: Any, output: Any, kinds: Any) -> None:
    # the API refuses an input holding an item id twice ("Duplicate item found with id rs_...",
    # vercel/ai#7883): an answer that repeats one must not make every later request refused; a
    # later reasoning / hosted item is left out, a later call or message is sent without its id
    answers = [json_response(response_body(output)), json_response(response_body([_MSG], rid="resp_2"))]
    model = responses_model(lambda request: answers.pop(0), model_id="gpt-5")  # a model that takes reasoning
    CALLS.clear()
    result = toolwire.run_sync(model, "hi", tools=[WEATHER])
    assert result.text == "Looking."
    assert sorted(CALLS) == (["A", "B"] if len(result.tool_runs) == 2 else ["A"])
    sent = model.sent[1].json["input"]  # type: ignore[attr-defined]
    assert [
        i.get("type") for i in sent if i.get("type") in ("reasoning", "web_search_call", "function_call", "message")
    ] == kinds
    ids = [i["id"] for i in sent if "id" in i]
    assert len(ids) == len(set(ids)) >= 1


def test_responses_message_part_of_an_unknown_type_does_not_stop_the_next_request(responses_model: Any) -> None:
    # an assistant message takes only output_text and refusal parts back (API error "Invalid
    # value: 'input_text'. Supported values are: 'output_text' and 'refusal'."): a part of another
    # type in an answer goes back as output_text with its text, or is left out, reported lossy
    msg = {
        **_MSG,
        "content": [
            {"type": "output_text", "text": "Looking", "annotations": []},
            {"type": "output_note", "text": " it up."},
            {"type": "output_audio", "data": "UklGRg==", "transcript": None},
        ],
    }
    answers = [json_response(response_body([msg, _FC1])), json_response(response_body([_MSG], rid="resp_2"))]
    model = responses_model(lambda request: answers.pop(0))
    CALLS.clear()
    result = toolwire.run_sync(model, "hi", tools=[WEATHER])
    assert (result.text, CALLS) == ("Looking.", ["A"])
    sent = model.sent[1].json["input"][1]  # type: ignore[attr-defined]
    assert sent["content"] == [
        {"type": "output_text", "text": "Looking", "annotations": []},
        {"type": "output_text", "text": " it up.", "annotations": []},
    ]
    (change,) = [
        c for c in result.turns[1].response.preflight.changes if c.rule == "openai.conversation.assistant-parts"
    ]
    assert change.lossy and "'output_audio', 'output_note'" in change.detail


def test_responses_call_without_any_id_gets_a_synthesized_one() -> None:
    item = {"type": "function_call", "name": "get_weather", "arguments": "{}"}
    a, b = RESP.decode_response(response_body([item, item])).tool_calls
    assert a.id != b.id and a.id_synthesized and re.fullmatch(r"call_tw[0-9a-f]{16}_1", b.id)


def _ev(kind: str, **kw: Any) -> dict[str, Any]:
    return {"type": kind, **kw}


CREATED = _ev("response.created", response={"id": "resp_S", "model": "gpt-5", "status": "in_progress"})
FC_ADDED = _ev(
    "response.output_item.added",
    output_index=1,
    item={"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": ""},
)
MSG_ADDED = _ev(
    "response.output_item.added",
    output_index=0,
    item={"type": "message", "id": "msg_1", "role": "assistant", "content": []},
)


@pytest.mark.parametrize(
    "events, message",
    [
        (
            [
                MSG_ADDED,
                _ev("response.output_text.delta", output_index=0, content_index=0, delta="hi"),
                _ev(
                    "response.output_item.added",
                    output_index=0,
                    item={"type": "function_call", "call_id": "c", "name": "f"},
                ),
            ],
            "output_index 0 was added twice",
        ),
        (
            [FC_ADDED, _ev("response.output_text.delta", output_index=1, content_index=0, delta="hi")],
            "response.output_text.delta for output_index 1, which is a function_call item, not a message item",
        ),
        (
            [MSG_ADDED, _ev("response.function_call_arguments.delta", output_index=0, delta="{")],
            "for output_index 0, which is a message item, not a function_call item",
        ),
        (
            [FC_ADDED, _ev("response.output_item.done", output_index=1, item={"type": "message", "content": []})],
            "for output_index 1, which is a function_call item, not a message item",
        ),
        (
            [
                FC_ADDED,
                _ev("response.output_item.done", output_index=1, item={**FC_ADDED["item"], "arguments": "{}"}),
                _ev("response.output_item.done", output_index=1, item={**FC_ADDED["item"], "arguments": "{}"}),
            ],
            "output_index 1 was finished twice",
        ),
        (
            [MSG_ADDED, _ev("response.output_text.delta", output_index=0, content_index=1000, delta="x")],
            "content_index 1000 is out of range",
        ),
    ],
)
def test_responses_stream_index_misuse(events: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        assemble(RESP.decode_stream([CREATED, *events]), "openai")
    assert info.value.api == "openai" and message in str(info.value)
    assert "stream index" not in str(info.value) and "1000 is a" not in str(info.value)


def test_responses_stream_cut_off_before_output_item_done() -> None:
    events = [CREATED, FC_ADDED, _ev("response.function_call_arguments.delta", output_index=1, delta='{"city":"Oslo"}')]
    resp = assemble(RESP.decode_stream(events), "openai")
    assert (resp.stop_reason, resp.vendor_stop_reason) == ("error", None)
    assert resp.tool_calls[0].incomplete and not resp.tool_calls[0].is_valid
    # the item finished but response.completed never came: the call is complete, the stop says error
    done = _ev("response.output_item.done", output_index=1, item={**FC_ADDED["item"], "arguments": '{"city":"Oslo"}'})
    resp = assemble(RESP.decode_stream([*events, done]), "openai")
    assert (
        resp.stop_reason == "error" and resp.tool_calls[0].is_valid and resp.tool_calls[0].arguments == {"city": "Oslo"}
    )


@pytest.mark.parametrize(
    "bad, pointer",
    [
        (_ev("response.output_item.added", output_index="1", item={}), "/output_index"),
        (_ev("response.output_item.added", output_index=1, item="x"), "/item"),
        (_ev("response.output_text.delta", output_index=0, content_index=0, delta=5), "/delta"),
        (_ev("response.completed", response={"status": 5}), "/response/status"),
    ],
)
def test_responses_stream_malformed_events(bad: dict[str, Any], pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        list(RESP.decode_stream([CREATED, bad]))
    assert info.value.pointer == pointer


def test_responses_malformed_request() -> None:
    with pytest.raises(ResponseDecodeError) as info:
        RESP.decode_request({"input": 5})
    assert info.value.pointer == "/input"


# ================================================================== through the SDK


def test_chat_transport_stream_marks_duplicates_and_raises_decode_errors(chat_model: Any) -> None:
    chunks = [
        chunk(frag(0, "call_x", "get_weather", '{"city":"A"}')),
        chunk(frag(1, "call_x", "get_weather", '{"city":"B"}')),
        chunk(frag(2, "call_x", "get_weather", '{"city":"A"}')),
        chunk({}, "tool_calls"),
    ]
    model = chat_model(lambda request: chat_sse(chunks), stream=True)
    resp = asyncio.run(model.send(model.build_request([Message.user("hi")], tools=[WEATHER])))
    assert [(c.id, c.invalid) for c in resp.tool_calls] == [
        ("call_x", None),
        ("call_x_1", None),
        ("call_x", "duplicate tool call id call_x in one response"),
    ]
    model = chat_model(lambda request: chat_sse([chunk({"content": 5})]), stream=True)
    with pytest.raises(ResponseDecodeError) as info:
        asyncio.run(model.send(model.build_request([Message.user("hi")])))
    assert info.value.pointer == "/choices/0/delta/content"


def test_responses_transport_stream_cut_off(responses_model: Any) -> None:
    events = [CREATED, FC_ADDED, _ev("response.function_call_arguments.delta", output_index=1, delta='{"city":')]
    model = responses_model(lambda request: responses_sse(events), stream=True, retry=False)
    with pytest.raises(ProviderError, match="ended before the response was complete") as info:
        asyncio.run(model.send(model.build_request([Message.user("hi")], tools=[WEATHER])))
    assert info.value.retryable


# a message object put inside a content list (a client bug: crewAI cassette
# test_custom_llm_within_crew, which the Chat API answered HTTP 400 "Missing required parameter:
# 'messages[1].content[0].type'."): a content part without a type


_UNTYPED = {"role": "system", "content": "You are Say Hi."}
_SAY_HI = {"role": "user", "content": "Say hi."}


@pytest.mark.parametrize(
    ("codec", "body", "pointer"),
    [
        # two parts: imported as kept parts and sent back as they came, to the API's refusal
        (
            OpenAIChatCodec(),
            {"model": "gpt-4o", "messages": [{"role": "user", "content": [_UNTYPED, _SAY_HI]}]},
            "/messages/0/content/0/type",
        ),
        # one part, after a system message read as the instructions: a KeyError inside the import
        (
            OpenAIChatCodec(),
            {
                "model": "gpt-4o",
                "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": [_SAY_HI]}],
            },
            "/messages/1/content/0/type",
        ),
        (
            OpenAIResponsesCodec(),
            {"model": "gpt-4o", "input": [{"role": "user", "content": [{"type": "input_text", "text": "a"}, _SAY_HI]}]},
            "/input/0/content/1/type",
        ),
        (
            OpenAIResponsesCodec(),
            {
                "model": "gpt-4o",
                "input": [{"role": "developer", "content": "s"}, {"role": "user", "content": [_SAY_HI]}],
            },
            "/input/1/content/0/type",
        ),
        # the content of a tool message / the output of a function_call_output: sent back as it came
        (
            OpenAIChatCodec(),
            {
                "model": "gpt-4o",
                "messages": [
                    _SAY_HI,
                    {"role": "assistant", "content": None, "tool_calls": [tool_call("c1", "w", "{}")]},
                    {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "a"}, _SAY_HI]},
                ],
            },
            "/messages/2/content/1/type",
        ),
        (
            OpenAIResponsesCodec(),
            {
                "model": "gpt-4o",
                "input": [
                    _SAY_HI,
                    {"type": "function_call", "call_id": "c1", "name": "w", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "c1", "output": [_SAY_HI]},
                ],
            },
            "/input/2/output/0/type",
        ),
    ],
)
def test_an_imported_content_part_without_a_type_is_refused_naming_it(codec, body, pointer):
    """Every content part of either API has a required literal ``type`` (openai SDK
    ChatCompletionContentPartParam, ResponseInputContentParam); the API refuses a part without
    one. Import refuses it naming the part, as the Anthropic import refuses a block without a
    type: it was kept whole and sent back (two parts) or failed on an internal KeyError (one)."""
    with pytest.raises(ResponseDecodeError) as info:
        codec.decode_request(body)
    assert info.value.pointer == pointer
    assert info.value.detail == f"the content part at {pointer.removesuffix('/type')} has no type"
