"""Malformed and adversarial Gemini bodies: every one gives a toolwire error naming the field, or a
response whose unusable tool calls are marked (never a raw KeyError/TypeError/AssertionError).

Bodies and chunks are hand-written in the Gemini REST format (``gemini_wire_helpers.py``); the
transport tests go through the real ``google-genai`` SDK with only the network replaced.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from gemini_wire_helpers import candidate_body, sse_response
from toolwire_gemini import GeminiCodec
from toolwire_gemini.codec import NAME_INVALID

import toolwire
from toolwire.adapter import ModelRequest
from toolwire.errors import ProviderError, ResponseDecodeError
from toolwire.stream import assemble
from toolwire.testing import ScriptedModel
from toolwire.tools import Tool
from toolwire.types import Message

CODEC = GeminiCodec()
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


def fc(name: Any = "get_weather", city: str = "Paris", call_id: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"name": name, "args": {"city": city}}
    if call_id is not None:
        call["id"] = call_id
    return {"functionCall": call}


@pytest.mark.parametrize(
    "wire, pointer",
    [
        (None, ""),
        ([], ""),
        ({"candidates": {"0": {}}}, "/candidates"),
        ({"candidates": ["x"]}, "/candidates/0"),
        ({"candidates": [{"content": "x"}]}, "/candidates/0/content"),
        ({"candidates": [{"content": {"parts": {"text": "x"}}}]}, "/candidates/0/content/parts"),
        ({"candidates": [{"content": {"parts": ["x"]}}]}, "/candidates/0/content/parts/0"),
        (
            {"candidates": [{"content": {"parts": [{"functionCall": None}]}}]},
            "/candidates/0/content/parts/0/functionCall",
        ),
        (
            {"candidates": [{"content": {"parts": [{"functionCall": "get_weather"}]}}]},
            "/candidates/0/content/parts/0/functionCall",
        ),
        ({"candidates": [{"content": {"parts": [{"text": 5}]}}]}, "/candidates/0/content/parts/0/text"),
        (
            {"candidates": [{"content": {"parts": [{"text": "x", "thought": True, "thoughtSignature": 5}]}}]},
            "/candidates/0/content/parts/0/thoughtSignature",
        ),
        (
            {"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": ["STOP"]}]},
            "/candidates/0/finishReason",
        ),
        ({"candidates": [], "responseId": 5}, "/responseId"),
    ],
)
def test_malformed_response_raises_response_decode_error(wire: Any, pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        CODEC.decode_response(wire)
    assert (info.value.api, info.value.pointer) == ("gemini", pointer)
    assert isinstance(info.value, ValueError)


def test_error_body_is_still_a_provider_error() -> None:
    with pytest.raises(ProviderError) as info:
        CODEC.decode_response({"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}})
    assert info.value.status == 429 and info.value.retryable


def test_usage_counters_of_the_wrong_type_are_dropped_not_passed_through() -> None:
    body = candidate_body(
        [{"text": "x"}],
        usage={
            "promptTokenCount": "12",
            "candidatesTokenCount": 5,
            "thoughtsTokenCount": -3,
            "cachedContentTokenCount": 4.0,
            "toolUsePromptTokenCount": {"n": 1},
        },
    )
    resp = CODEC.decode_response(body)
    u = resp.usage
    assert (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.cache_read_tokens, u.tool_use_prompt_tokens) == (
        None,
        5,
        None,
        4,
        None,
    )
    result = toolwire.run_sync(ScriptedModel(responses=[resp]), "hi")  # the loop sums usage: no TypeError
    assert result.usage.output_tokens == 5


@pytest.mark.parametrize(
    "name, kept", [(None, ""), ("", ""), (5, "5"), ([None], "[null]"), ({"type": "x"}, '{"type": "x"}')]
)
def test_function_call_without_a_string_name_is_invalid(name: Any, kept: str) -> None:
    resp = CODEC.decode_response(candidate_body([fc(name)]), ModelRequest(model="gemini-2.5-flash", tools=[WEATHER]))
    call = resp.tool_calls[0]
    assert (call.name, call.invalid, call.is_valid) == (kept, NAME_INVALID, False)
    CALLS.clear()
    result = toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[WEATHER])
    assert CALLS == [] and [r.result.is_error for r in result.tool_runs] == [True]


def test_synthesized_ids_distinct_within_a_response_and_across_turns() -> None:
    body = candidate_body([fc(city="A"), fc(city="A")], response_id=None)
    first = CODEC.decode_response(body, ModelRequest(model="gemini-2.5-flash", messages=[Message.user("hi")]))
    ids = [c.id for c in first.tool_calls]
    assert len(set(ids)) == 2 and all(c.id_synthesized and c.invalid is None for c in first.tool_calls)
    # the identical body on the next turn (a retried call) gets other ids
    later = CODEC.decode_response(body, ModelRequest(model="gemini-2.5-flash", messages=[Message.user("hi")] * 3))
    assert not set(ids) & {c.id for c in later.tool_calls}
    # with a responseId the ids are gemini-<responseId>-<n>
    with_rid = CODEC.decode_response(candidate_body([fc(), fc()], response_id="r9"))
    assert [c.id for c in with_rid.tool_calls] == ["gemini-r9-0", "gemini-r9-1"]


def test_distinct_calls_sharing_a_vendor_id_get_ids_of_their_own_and_each_is_answered() -> None:
    resp = CODEC.decode_response(candidate_body([fc(city="A", call_id="g1"), fc(city="B", call_id="g1")]))
    assert [(c.id, c.invalid) for c in resp.tool_calls] == [("g1", None), ("g1_1", None)]
    CALLS.clear()
    result = toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[WEATHER])
    assert sorted(CALLS) == ["A", "B"]
    sent = CODEC.encode_request(
        ModelRequest(model="gemini-2.5-flash", messages=result.conversation.messages, tools=[WEATHER])
    )
    model_turn, answers = sent["contents"][1], sent["contents"][2]
    assert [p["functionCall"] for p in model_turn["parts"]] == [
        {"name": "get_weather", "args": {"city": "A"}, "id": "g1"},
        {"name": "get_weather", "args": {"city": "B"}, "id": "g1_1"},
    ]
    assert [p["functionResponse"] for p in answers["parts"]] == [
        {"name": "get_weather", "response": {"output": "sunny in A"}, "id": "g1"},
        {"name": "get_weather", "response": {"output": "sunny in B"}, "id": "g1_1"},
    ]


def test_the_very_same_call_repeated_under_a_vendor_id_is_invalid_and_answered_once() -> None:
    resp = CODEC.decode_response(candidate_body([fc(city="A", call_id="g1"), fc(city="A", call_id="g1")]))
    assert [c.invalid for c in resp.tool_calls] == [None, "duplicate tool call id g1 in one response"]
    CALLS.clear()
    result = toolwire.run_sync(ScriptedModel(responses=[resp, "done"]), "hi", tools=[WEATHER])
    assert CALLS == ["A"]
    sent = CODEC.encode_request(
        ModelRequest(model="gemini-2.5-flash", messages=result.conversation.messages, tools=[WEATHER])
    )
    model_turn, answers = sent["contents"][1], sent["contents"][2]
    assert [p["functionCall"] for p in model_turn["parts"]] == [
        {"name": "get_weather", "args": {"city": "A"}, "id": "g1"}
    ]
    assert [p["functionResponse"] for p in answers["parts"]] == [
        {"name": "get_weather", "response": {"output": "sunny in A"}, "id": "g1"}
    ]


def test_streamed_duplicate_and_nameless_calls_checked() -> None:
    from toolwire_gemini.codec import check_tool_calls

    chunks = [
        candidate_body([fc(call_id="g1")], finish=None),
        candidate_body([fc(call_id="g1"), fc(None)], finish="STOP"),
    ]
    resp = check_tool_calls(assemble(CODEC.decode_stream(chunks), "gemini"))
    assert [(c.name, c.invalid) for c in resp.tool_calls] == [
        ("get_weather", None),
        ("get_weather", "duplicate tool call id g1 in one response"),
        ("", NAME_INVALID),
    ]


def test_stream_without_a_finish_reason_was_cut_off() -> None:
    chunks = [candidate_body([{"text": "Let me "}], finish=None), candidate_body([fc(city="Oslo")], finish=None)]
    resp = assemble(CODEC.decode_stream(chunks), "gemini")
    assert (resp.stop_reason, resp.vendor_stop_reason, resp.text) == ("error", None, "Let me ")
    # a Gemini call arrives whole: started and ended together, so it is complete
    assert resp.tool_calls[0].is_valid and resp.tool_calls[0].arguments == {"city": "Oslo"}
    finished = assemble(CODEC.decode_stream([*chunks, candidate_body([{"text": ""}], finish="STOP")]), "gemini")
    assert (finished.stop_reason, finished.vendor_stop_reason) == ("tool_use", "STOP")
    # a whole (non-streamed) body without finishReason maps by its parts, as before
    assert CODEC.decode_response(candidate_body([{"text": "hi"}], finish=None)).stop_reason == "end_turn"


def test_malformed_stream_chunk() -> None:
    with pytest.raises(ResponseDecodeError) as info:
        list(
            CODEC.decode_stream(
                [
                    candidate_body([{"text": "a"}], finish=None),
                    {"candidates": [{"content": {"parts": [{"functionCall": None}]}}]},
                ]
            )
        )
    assert info.value.pointer == "/candidates/0/content/parts/0/functionCall"


@pytest.mark.parametrize(
    "wire, pointer",
    [
        ("x", ""),
        ({"contents": "hi"}, "/contents"),
        ({"contents": [{"role": "user", "parts": "hi"}]}, "/contents/0/parts"),
        ({"contents": [{"role": "model", "parts": [{"functionCall": None}]}]}, "/contents/0/parts/0/functionCall"),
    ],
)
def test_malformed_request(wire: Any, pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        CODEC.decode_request(wire)
    assert info.value.pointer == pointer


def test_transport_stream_decode_error_is_not_turned_into_a_provider_error(mock_model: Any) -> None:
    model = mock_model([sse_response([candidate_body([{"text": 5}], finish="STOP")])], stream=True)
    with pytest.raises(ResponseDecodeError) as info:
        asyncio.run(model.send(model.build_request([Message.user("x")])))
    assert info.value.pointer == "/candidates/0/content/parts/0/text"


def test_transport_stream_reissues_shared_ids_and_marks_duplicates(mock_model: Any) -> None:
    model = mock_model(
        [sse_response([candidate_body([fc(city="A", call_id="g1"), fc(city="B", call_id="g1")])])], stream=True
    )
    resp = asyncio.run(model.send(model.build_request([Message.user("x")], tools=[WEATHER])))
    assert [(c.id, c.invalid) for c in resp.tool_calls] == [("g1", None), ("g1_1", None)]
    model = mock_model(
        [sse_response([candidate_body([fc(city="A", call_id="g1"), fc(city="A", call_id="g1")])])], stream=True
    )
    resp = asyncio.run(model.send(model.build_request([Message.user("x")], tools=[WEATHER])))
    assert [(c.id, c.invalid) for c in resp.tool_calls] == [
        ("g1", None),
        ("g1", "duplicate tool call id g1 in one response"),
    ]


@pytest.mark.parametrize(
    "body",
    [
        {"candidates": [], "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 3}, "responseId": "r1"},
        {"candidates": [{"index": 0}], "responseId": "r1"},  # a candidate with no content, no finishReason
        {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}}]},
    ],
)
def test_a_whole_body_with_no_output_and_no_finish_reason_is_an_error_as_streamed(mock_model: Any, body: Any) -> None:
    # Gemini answers "candidates": [] when the model gave no output: not an empty end_turn
    whole = CODEC.decode_response(body)
    streamed = assemble(CODEC.decode_stream([body]), "gemini")
    assert (whole.stop_reason, whole.vendor_stop_reason, whole.text) == ("error", None, "")
    assert (streamed.stop_reason, streamed.vendor_stop_reason) == ("error", None)
    # through the SDK, in a run: the run ends with stop reason "error", not a silent end_turn
    model = mock_model([httpx2.Response(200, json=body)])
    result = toolwire.run_sync(model, "hi")
    assert (result.stop_reason, result.text, len(model.sent)) == ("error", "", 1)


def test_a_whole_body_with_no_output_answering_a_streamed_request_ends_as_unstreamed(mock_model: Any) -> None:
    # a streamed request answered with one JSON body is decoded as that body: the run ends with
    # stop reason "error" as above, not with the retryable "the event stream ended before the
    # response was complete" ProviderError of a cut stream (the body came whole)
    body = {"candidates": [], "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 3}, "responseId": "r1"}
    model = mock_model([httpx2.Response(200, json=body)], stream=True)
    result = toolwire.run_sync(model, "hi")
    assert (result.stop_reason, result.text, len(model.sent)) == ("error", "", 1)
    assert result.turns[0].response.usage.input_tokens == 3
    # an event stream that ends so is still cut off
    model = mock_model([sse_response([body])], stream=True)
    with pytest.raises(ProviderError, match="the event stream ended before the response was complete"):
        toolwire.run_sync(model, "hi")


def test_a_blocked_prompt_with_empty_candidates_is_still_a_refusal() -> None:
    body = {"candidates": [], "promptFeedback": {"blockReason": "SAFETY"}}
    resp = CODEC.decode_response(body)
    assert (resp.stop_reason, resp.vendor_stop_reason) == ("refusal", "blockReason:SAFETY")


@pytest.mark.parametrize(
    "part, pointer",
    [
        ({"inlineData": "iVBORw0KGgo="}, "/inlineData"),
        ({"inlineData": {"data": "iVBORw0KGgo="}}, "/inlineData"),
        ({"inlineData": {"mimeType": "image/png", "data": "not base64!"}}, "/inlineData"),
        ({"thought": True, "inline_data": {}}, "/inline_data"),
        ({"functionResponse": "Paris"}, "/functionResponse"),
        ({"functionResponse": {"name": "get_weather", "response": "sunny"}}, "/functionResponse/response"),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_a_part_that_cannot_be_sent_back_is_a_decode_error_not_a_refused_next_request(
    mock_model: Any, part: Any, pointer: str, stream: bool
) -> None:
    # a model part kept to go back as it came must be one the API takes back: an inlineData
    # without a mimeType and base64 data (google.genai.types.Blob), a functionResponse whose
    # response is not an object (FunctionResponse.response, "Invalid value at
    # 'contents[3].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct)")
    # would make every later request of the run refused; the answer itself is reported instead
    body = candidate_body([part, fc(city="Paris")])
    model = mock_model([sse_response([body]) if stream else httpx2.Response(200, json=body)] * 2, stream=stream)
    with pytest.raises(ResponseDecodeError) as info:
        toolwire.run_sync(model, "weather in Paris?", tools=[WEATHER])
    assert info.value.pointer == "/candidates/0/content/parts/0" + pointer
    assert len(model.sent) == 1


MALFORMED = {
    "candidates": [
        {
            "finishReason": "MALFORMED_FUNCTION_CALL",
            "finishMessage": "Malformed function call: print(default_api.get_weather(city='Paris'))",
            "index": 0,
        }
    ],
    "usageMetadata": {"promptTokenCount": 40, "totalTokenCount": 40},
    "responseId": "resp-M1",
}


@pytest.mark.parametrize("stream", [False, True])
def test_an_unparsed_call_is_fed_back_and_the_model_asked_again(mock_model: Any, stream: bool) -> None:
    CALLS.clear()
    wrap = (lambda b: sse_response([b])) if stream else (lambda b: httpx2.Response(200, json=b))
    model = mock_model(
        [wrap(MALFORMED), wrap(candidate_body([fc(city="Paris")])), wrap(candidate_body([{"text": "Sunny."}]))],
        stream=stream,
    )
    result = toolwire.run_sync(model, "weather in Paris?", tools=[WEATHER])
    assert (result.stop_reason, result.text, CALLS, len(model.sent)) == ("end_turn", "Sunny.", ["Paris"], 3)
    second = model.sent[1].json["contents"]
    # the empty model turn is not sent; the feedback quotes the API's finishMessage and says what to do
    assert [c["role"] for c in second] == ["user", "user"]
    feedback = second[1]["parts"][0]["text"]
    assert "MALFORMED_FUNCTION_CALL" in feedback and "print(default_api.get_weather(city='Paris'))" in feedback
    assert "Call the function again" in feedback
    assert result.turns[0].response.stop_reason == "error"


def test_unparsed_calls_are_fed_back_twice_in_a_row_then_the_run_ends_with_error(mock_model: Any) -> None:
    model = mock_model([httpx2.Response(200, json=MALFORMED)] * 4)
    result = toolwire.run_sync(model, "weather in Paris?", tools=[WEATHER])
    assert (result.stop_reason, len(model.sent), len(result.turns)) == ("error", 3, 3)
    # within max_turns: with one request allowed there is no second
    model = mock_model([httpx2.Response(200, json=MALFORMED)] * 2)
    result = toolwire.run_sync(model, "weather in Paris?", tools=[WEATHER], max_turns=1)
    assert (result.stop_reason, len(model.sent)) == ("error", 1)


def test_other_error_stops_are_not_fed_back(mock_model: Any) -> None:
    # an empty answer or UNEXPECTED_TOOL_CALL: no call the API failed to parse, the run ends
    for body in ({"candidates": [], "responseId": "r1"}, candidate_body([], finish="UNEXPECTED_TOOL_CALL")):
        model = mock_model([httpx2.Response(200, json=body)] * 2)
        result = toolwire.run_sync(model, "hi", tools=[WEATHER])
        assert (result.stop_reason, len(model.sent)) == ("error", 1)


@pytest.mark.parametrize(
    "model_id",
    ["x?key=evil", "../../v1beta/files", "a\x00b", "gemini 2.5", "a#b", "models//x", "%2e%2e/files", "/gemini"],
)
def test_a_model_id_that_would_change_the_url_is_refused(model_id: str) -> None:
    import toolwire
    from toolwire.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="is not a Gemini model name"):
        toolwire.model(f"gemini:{model_id}", api_key="k")


@pytest.mark.parametrize(
    "model_id", ["gemini-2.5-flash", "models/gemini-2.5-flash", "tunedModels/my-model-1", "gemini-3-pro-preview"]
)
def test_model_ids_as_the_api_names_them_are_taken(model_id: str) -> None:
    import toolwire

    assert toolwire.model(f"gemini:{model_id}", api_key="k").model_id == model_id
