"""Gemini answers: the one-pass decoding of the usual answer gives what the stream path gives.

``GeminiCodec.decode_response`` decodes the usual answer (text and ``functionCall`` parts, one
candidate, camelCase fields) in one pass and hands anything else to the stream decoder and the
canonical assembler. Both are compared here over random answers near the usual shape (every
field that may be missing, null, of another type, snake_case, or an extra field): the same
``Response`` (parts, ids, arguments, stop reason, usage, ``provider_data``, all types alike) or
the same error.
"""

from __future__ import annotations

import copy

import toolwire_gemini.codec as gemini_codec
from hypothesis import given, settings
from hypothesis import strategies as st
from toolwire_gemini.codec import GeminiCodec, _decode_usual

from toolwire import Tool
from toolwire.adapter import ModelRequest
from toolwire.types import Message, TextPart, ToolCall

_SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}}
_REQUEST = ModelRequest(
    model="gemini-2.5-flash",
    messages=[Message("user", [TextPart("go")])],
    tools=[Tool("lookup", "d", _SCHEMA, None), Tool("other", "d", {"type": "object", "properties": {}}, None)],
)

_GOOD_SIG = st.sampled_from(["c2lnbmF0dXJl", "abc=", "c2ln"])
_SIG = st.one_of(_GOOD_SIG, _GOOD_SIG, st.sampled_from(["a", "not base64!", 5, None]))
_ARGS = st.one_of(
    st.fixed_dictionaries(
        {}, optional={"q": st.sampled_from(["x", 3, None]), "n": st.sampled_from([1, 1.0, "2", True])}
    ),
    st.fixed_dictionaries({}, optional={"q": st.just("x")}),
    st.sampled_from([None, [], "text", 3]),
)
_GOOD_CALL = st.fixed_dictionaries(
    {"name": st.sampled_from(["lookup", "other", "unknown"])},
    optional={"args": _ARGS, "id": st.sampled_from(["id1", "id2", ""])},
)
_CALL = st.one_of(
    _GOOD_CALL,
    _GOOD_CALL,
    st.fixed_dictionaries(
        {"name": st.sampled_from(["lookup", "", None, 3])},
        optional={"args": _ARGS, "id": st.sampled_from([None, 7, "id1"]), "extra": st.just(1)},
    ),
)
_GOOD_PART = st.one_of(
    st.fixed_dictionaries({"text": st.sampled_from(["hi", ""])}),
    st.fixed_dictionaries({"functionCall": _CALL}),
)
_NEAR_PART = st.one_of(
    st.fixed_dictionaries({"text": st.sampled_from([None, 3])}),
    st.fixed_dictionaries({"functionCall": st.sampled_from([None, "x", {}])}),
    st.fixed_dictionaries({"function_call": _GOOD_CALL}),
    st.just({"text": "t", "thought": True}),
    st.just({"text": "t", "thought": False}),
    st.just({"inlineData": {"mimeType": "image/png", "data": "aGk="}}),
    st.just({"executableCode": {"code": "1", "language": "PYTHON"}}),
    st.just({}),
    st.sampled_from([None, "s", 3]),
)


def _signed(part: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        part,
        st.tuples(part, st.sampled_from(["thoughtSignature", "thoughtSignature", "thought_signature"]), _SIG).map(
            lambda t: {**t[0], t[1]: t[2]} if isinstance(t[0], dict) else t[0]
        ),
    )


_PARTS = st.one_of(
    st.lists(st.one_of(_GOOD_PART, _signed(_GOOD_PART)), max_size=4),
    st.lists(st.one_of(_signed(_GOOD_PART), _NEAR_PART), max_size=4),
)

#: Near-miss edits of a usual answer (each one either keeps it usual or sends it down the stream path).
_EDITS = [
    lambda b: b.update(promptFeedback={"blockReason": "SAFETY"}),
    lambda b: b.update(responseId=""),
    lambda b: b.update(responseId=None),
    lambda b: b.update(responseId=5),
    lambda b: b.update(responseId="r/2 x"),
    lambda b: b.pop("responseId"),
    lambda b: b.update(response_id="snake"),
    lambda b: b.update(modelVersion=3),
    lambda b: b.update(modelVersion=""),
    lambda b: b.pop("modelVersion"),
    lambda b: b.update(usageMetadata=None),
    lambda b: b.update(usageMetadata=3),
    lambda b: b.update(usageMetadata={}),
    lambda b: b.pop("usageMetadata"),
    lambda b: b["usageMetadata"].update(promptTokenCount=-1, thoughtsTokenCount=4, cachedContentTokenCount="2"),
    lambda b: b["usageMetadata"].pop("totalTokenCount"),
    lambda b: b.update(error={"code": 400, "message": "bad"}),
    lambda b: b.update(candidates=[]),
    lambda b: b.update(candidates=None),
    lambda b: b["candidates"].append(copy.deepcopy(b["candidates"][0])),
    lambda b: b["candidates"].__setitem__(0, "x"),
    lambda b: b["candidates"][0].update(finishMessage="m"),
    lambda b: b["candidates"][0].update(groundingMetadata={"webSearchQueries": ["q"]}),
    lambda b: b["candidates"][0].update(safetyRatings=[]),
    lambda b: b["candidates"][0].update(finish_reason="STOP"),
    lambda b: b["candidates"][0].update(finishReason="MAX_TOKENS"),
    lambda b: b["candidates"][0].update(finishReason="SAFETY"),
    lambda b: b["candidates"][0].update(finishReason=""),
    lambda b: b["candidates"][0].update(finishReason=None),
    lambda b: b["candidates"][0].update(finishReason="OTHER_NEW"),
    lambda b: b["candidates"][0].update(finishReason=3),
    lambda b: b["candidates"][0].pop("finishReason"),
    lambda b: b["candidates"][0].pop("content"),
    lambda b: b["candidates"][0].update(content=None),
    lambda b: b["candidates"][0]["content"].update(parts=None),
    lambda b: b["candidates"][0]["content"].update(parts="p"),
    lambda b: b["candidates"][0]["content"].update(extra=1),
    lambda b: b["candidates"][0]["content"].pop("role"),
]


@st.composite
def _body(draw: st.DrawFn) -> dict:
    body = {
        "candidates": [{"content": {"role": "model", "parts": draw(_PARTS)}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r1",
    }
    for edit in draw(st.one_of(st.just([]), st.lists(st.sampled_from(_EDITS), min_size=1, max_size=2))):
        try:
            edit(body)
        except (AttributeError, IndexError, KeyError, TypeError):
            pass  # an edit of a field an earlier edit removed
    return body


_BODY = _body()


def _both(body: dict, request: ModelRequest | None) -> tuple[object, object]:
    codec = GeminiCodec()
    gemini_codec._decode_usual = lambda body, request: None  # every answer by the stream path
    try:
        slow: object = codec.decode_response(copy.deepcopy(body), request)
    except Exception as exc:
        slow = (type(exc), str(exc))
    finally:
        gemini_codec._decode_usual = _decode_usual
    try:
        fast: object = codec.decode_response(copy.deepcopy(body), request)
    except Exception as exc:
        fast = (type(exc), str(exc))
    return fast, slow


@settings(max_examples=1500, deadline=None)
@given(_BODY, st.booleans())
def test_the_one_pass_decoding_gives_what_the_stream_path_gives(body: dict, with_request: bool) -> None:
    request = _REQUEST if with_request else None
    fast, slow = _both(body, request)
    assert fast == slow
    assert repr(fast) == repr(slow)  # the same types all the way down (1 vs 1.0, True vs 1)


def _usual(parts: list) -> dict:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r1",
    }


def test_the_usual_answers_take_the_one_pass_and_match() -> None:
    bodies = [
        _usual([{"text": "done"}]),
        _usual([{"functionCall": {"name": "lookup", "args": {"q": "x", "n": 2.0}}}]),
        _usual(
            [
                {"text": "calling", "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "lookup", "args": {"q": "x"}, "id": "fc1"}, "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "other"}},
                {"functionCall": {"name": "lookup", "args": {"q": "x"}, "id": "fc1"}},  # the same call again
            ]
        ),
        _usual([]),
    ]
    for body in bodies:
        assert _decode_usual(body, _REQUEST) is not None
        fast, slow = _both(body, _REQUEST)
        assert fast == slow and repr(fast) == repr(slow)
    r = GeminiCodec().decode_response(bodies[2], _REQUEST)
    assert [c.id for c in r.tool_calls] == ["fc1", "gemini-r1-1", "fc1"]
    assert [c.id_synthesized for c in r.tool_calls] == [False, True, False]
    assert r.tool_calls[2].invalid and "duplicate" in r.tool_calls[2].invalid
    assert r.stop_reason == "tool_use" and r.usage.input_tokens == 10
    assert GeminiCodec().decode_response(bodies[1], _REQUEST).tool_calls[0].arguments == {"q": "x", "n": 2}


def test_the_decoded_answer_shares_no_container_with_the_body_but_usage_metadata() -> None:
    body = _usual([{"functionCall": {"name": "lookup", "args": {"q": "x"}}}])
    r = GeminiCodec().decode_response(body, _REQUEST)
    body["candidates"][0]["content"]["parts"][0]["functionCall"]["args"]["q"] = "changed"
    assert r.tool_calls[0].arguments == {"q": "x"}
    # the stream path keeps the vendor's usageMetadata object as it came: so does the one pass
    assert r.provider_data["gemini"]["usageMetadata"] is body["usageMetadata"]


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=25,
    )
)
def test_an_encoded_call_carries_its_arguments_equal_typed_and_unshared(value: object) -> None:
    call = ToolCall("c1", "lookup", {"v": value, "w": [value]}, provider_data={"gemini": {}})
    request = ModelRequest(
        model="gemini-2.5-flash", messages=[Message("user", [TextPart("go")]), Message("assistant", [call])]
    )
    body = GeminiCodec().encode_request(request)
    args = body["contents"][1]["parts"][0]["functionCall"]["args"]
    assert args == call.arguments and repr(args) == repr(call.arguments)
    seen: list[object] = []
    stack: list[object] = [call.arguments]
    while stack:
        v = stack.pop()
        if isinstance(v, (dict, list)):
            seen.append(v)
            stack.extend(v.values() if isinstance(v, dict) else v)
    stack = [args]
    while stack:
        v = stack.pop()
        if isinstance(v, (dict, list)):
            assert not any(v is s for s in seen)
            stack.extend(v.values() if isinstance(v, dict) else v)
