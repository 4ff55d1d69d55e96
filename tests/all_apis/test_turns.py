"""The same turn behaviour on all four APIs (cut-off calls, failed turns, unanswered calls in a
supplied history), through the real adapters and SDKs with only the network replaced."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire import Conversation, Message, TextPart, ToolCall, ToolResult
from toolwire.turns import CUT_OFF, NOT_ANSWERED, answer_unanswered, settle_calls
from toolwire.types import Response

from .answers import APIS, text_answer

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")


def cut_off_body(api: str, args_text: str) -> dict[str, Any]:
    """A response stopped by the output-token limit whose last part is a call with ``args_text``."""
    if api == "anthropic":
        return {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "model": "m-1",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": json.loads(args_text or "{}")}
            ],
            "stop_reason": "max_tokens",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 9},
        }
    if api == "openai-chat":
        return {
            "id": "c2",
            "object": "chat.completion",
            "created": 1,
            "model": "m-1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "length",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": args_text},
                            }
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
        }
    if api == "openai":
        return {
            "id": "resp_2",
            "object": "response",
            "created_at": 1,
            "model": "m-1",
            "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": [
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "get_weather",
                    "arguments": args_text,
                    "status": "completed",
                }
            ],
            "usage": {"input_tokens": 3, "output_tokens": 9, "total_tokens": 12},
        }
    return {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "get_weather", "args": json.loads(args_text or "{}")}}],
                },
                "finishReason": "MAX_TOKENS",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 9, "totalTokenCount": 12},
    }


def make_model(api: str, answers: list[dict[str, Any]], sent: list[dict[str, Any]]) -> Any:
    queue = list(answers)

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=queue.pop(0))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client)


RAN: list[dict[str, Any]] = []


@toolwire.tool
def get_weather(city: str = "Paris") -> str:
    """Weather for a city."""
    RAN.append({"city": city})
    return "sunny"


def _texts(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("args_text", ["", "{}", '{"city": "Paris"}'])
def test_b_item4_cut_off_call_is_answered_and_never_run(api: str, args_text: str) -> None:
    if api in ("anthropic", "gemini") and args_text == "":
        args_text = "{}"  # these APIs carry arguments as a JSON object: the blank form is {}
    RAN.clear()
    sent: list[dict[str, Any]] = []
    m = make_model(api, [cut_off_body(api, args_text), text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, "weather?", tools=[get_weather], max_turns=3)
    assert RAN == []
    assert result.text == "done" and len(sent) == 2
    run = result.turns[0].tool_runs[0]
    assert run.result.is_error and "cut off by the output-token limit" in str(run.result.content)
    # the second request carries the cut-off answer to the vendor
    assert "cut off by the output-token limit" in _texts(sent[1])


@pytest.mark.parametrize("api", APIS)
def test_b_item4_unanswered_call_in_supplied_history_is_answered(api: str) -> None:
    RAN.clear()
    history = Conversation(
        [
            Message("user", [TextPart("weather?")]),
            Message("assistant", [ToolCall("call_9", "get_weather", {"city": "Rome"})]),
            Message("user", [TextPart("never mind, say done")]),
        ]
    )
    sent: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, conversation=history, tools=[get_weather])
    assert RAN == [] and result.text == "done"
    body = _texts(sent[0])
    assert "was not answered in the conversation history" in body
    # the history the caller passed is unchanged; the run's conversation has the answer
    assert history.messages[2].parts == [TextPart("never mind, say done")]
    results = [r for msg in result.conversation.messages for r in msg.tool_results]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("call_9", True)]
    # decoded back from the body sent, the answer is paired with the call
    decoded = toolwire.registry.codec(api).decode_request(sent[0])
    pairs = [(r.tool_call_id, r.name) for msg in decoded.messages for r in msg.tool_results]
    assert len(pairs) == 1 and (pairs[0][0] == "call_9" or pairs[0][1] == "get_weather")


@pytest.mark.parametrize("api", APIS)
def test_b_item4_failed_turn_calls_are_answered_not_run(api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever vendor stop reason the profile calls failed: its calls are answered, not run."""
    RAN.clear()
    m = make_model(api, [], [])
    prof = m.profile
    monkeypatch.setattr(prof, "turn_failed", lambda reason: True)
    resp = Response(
        parts=[ToolCall("c1", "get_weather", {"city": "Oslo"})], stop_reason="tool_use", vendor_stop_reason="X_FAILED"
    )
    assert [c.id for c in settle_calls(resp, prof)] == ["c1"]
    assert "X_FAILED" in (resp.tool_calls[0].invalid or "") and not resp.tool_calls[0].is_valid


def test_settle_calls_only_the_last_call_of_a_cut_off_response() -> None:
    first, last = ToolCall("a", "t", {}), ToolCall("b", "t", {})
    resp = Response(parts=[first, last], stop_reason="max_tokens")
    assert settle_calls(resp) == [last]
    assert first.is_valid and last.incomplete and last.invalid == CUT_OFF
    # text after the call: the call was finished before the limit hit
    done = ToolCall("c", "t", {})
    assert settle_calls(Response(parts=[done, TextPart("and")], stop_reason="max_tokens")) == [] and done.is_valid
    # other stop reasons leave calls alone
    ok = ToolCall("d", "t", {})
    assert settle_calls(Response(parts=[ok], stop_reason="tool_use")) == [] and ok.is_valid


def test_answer_unanswered_places_results_first_in_the_next_user_message() -> None:
    calls = [ToolCall("a", "t", {}), ToolCall("b", "t", {})]
    msgs = [
        Message("user", [TextPart("q")]),
        Message("assistant", calls),
        Message("user", [TextPart("more"), ToolResult("a", "1")]),
        Message("assistant", [ToolCall("c", "t", {})]),
    ]
    out, done = answer_unanswered(msgs)
    assert [c.id for c in done] == ["b", "c"]
    assert [type(p).__name__ for p in out[2].parts] == ["ToolResult", "ToolResult", "TextPart"]
    assert [p.tool_call_id for p in out[2].tool_results] == ["a", "b"]
    assert out[4].role == "user" and out[4].tool_results[0].content == NOT_ANSWERED and out[4].tool_results[0].is_error
    assert msgs[2].parts[0] == TextPart("more")  # the input is not changed
    same, none = answer_unanswered(out)
    assert same is out and none == []


def failed_turn_body(api: str) -> dict[str, Any]:
    """A response with a tool call whose stop reason the API's profile calls a failed turn."""
    if api == "anthropic":
        return {
            "id": "msg_3",
            "type": "message",
            "role": "assistant",
            "model": "m-1",
            "content": [{"type": "tool_use", "id": "toolu_9", "name": "get_weather", "input": {"city": "Oslo"}}],
            "stop_reason": "refusal",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 9},
        }
    if api == "openai-chat":
        return {
            "id": "c3",
            "object": "chat.completion",
            "created": 1,
            "model": "m-1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "content_filter",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_9",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                            }
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
        }
    if api == "openai":
        return {
            "id": "resp_3",
            "object": "response",
            "created_at": 1,
            "model": "m-1",
            "status": "incomplete",
            "incomplete_details": {"reason": "content_filter"},
            "output": [
                {
                    "type": "function_call",
                    "id": "fc_9",
                    "call_id": "call_9",
                    "name": "get_weather",
                    "arguments": '{"city": "Oslo"}',
                    "status": "completed",
                }
            ],
            "usage": {"input_tokens": 3, "output_tokens": 9, "total_tokens": 12},
        }
    return {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}],
                },
                "finishReason": "SAFETY",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 9, "totalTokenCount": 12},
    }


@pytest.mark.parametrize("api", APIS)
def test_b_item4_failed_turn_with_the_vendors_own_stop_reason(api: str) -> None:
    RAN.clear()
    sent: list[dict[str, Any]] = []
    m = make_model(api, [failed_turn_body(api), text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, "weather in Oslo?", tools=[get_weather], max_turns=3)
    assert RAN == []  # answered, never run
    first = result.turns[0]
    assert m.profile.turn_failed(first.response.vendor_stop_reason)
    assert "turn failed" in str(first.response.tool_calls[0].invalid)
    (run,) = first.tool_runs
    # each of these is a refusal (a filtered or declined answer): the run ends with it, as a
    # refusal without calls does, and the conversation stays valid (the call answered)
    assert run.result.is_error and "refusal" in str(run.result.content) and "not run" in str(run.result.content)
    assert (result.stop_reason, len(sent), len(result.turns)) == ("refusal", 1, 1)
    assert result.conversation.messages[-1].tool_results[0].tool_call_id == first.response.tool_calls[0].id


@pytest.mark.parametrize("api", APIS)
def test_a_call_id_reused_by_a_later_turn_is_renumbered_not_dropped(api: str) -> None:
    """OpenAI-compatible servers number each response's calls call_0, call_1, ...: a saved history
    reuses ids across turns. Both calls and both results must reach the vendor, each id once."""
    conv = Conversation(
        [
            Message.user("look up a then b"),
            Message("assistant", [ToolCall(id="call_0", name="get_weather", arguments={"city": "A"})]),
            Message("user", [ToolResult("call_0", "result A", name="get_weather")]),
            Message(
                "assistant", [TextPart("now b"), ToolCall(id="call_0", name="get_weather", arguments={"city": "B"})]
            ),
            Message("user", [ToolResult("call_0", "result B", name="get_weather")]),
        ]
    )
    sent: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, conversation=conv, tools=[get_weather])
    assert result.text == "done"
    body = _texts(sent[0])
    assert "result A" in body and "result B" in body and "now b" in body
    # the run's own conversation is not changed; the request carries a new id for the later call
    assert [c.id for msg in result.conversation.messages for c in msg.tool_calls] == ["call_0", "call_0"]
    assert "call_0_t3" in body or api == "gemini"  # Gemini pairs by order, without ids
    if api == "anthropic":
        uses = [
            b["id"]
            for msg in sent[0]["messages"]
            for b in msg["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use"
        ]
        results = [
            b["tool_use_id"]
            for msg in sent[0]["messages"]
            for b in msg["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
        assert uses == results and len(set(uses)) == 2


@pytest.mark.parametrize("between", ["empty", "other-call"])
@pytest.mark.parametrize("api", APIS)
def test_a_reused_id_answered_after_another_assistant_message_keeps_its_result(api: str, between: str) -> None:
    """A call reusing an earlier call's id, then another assistant message (an empty one, or one
    holding another call), then the results: the later result answers the renumbered call. It
    was taken for a second answer to the earlier call and left out, unsaid, and the call was
    answered "not run" instead (found by the conversation fuzz test)."""
    later: list[Any] = (
        [ToolCall(id="call_x", name="get_weather", arguments={"city": "C"})] if between != "empty" else []
    )
    results: list[Any] = [ToolResult("call_0", "result B", name="get_weather")]
    if later:
        results.append(ToolResult("call_x", "result C", name="get_weather"))
    conv = Conversation(
        [
            Message.user("look up a, b and c"),
            Message("assistant", [ToolCall(id="call_0", name="get_weather", arguments={"city": "A"})]),
            Message("user", [ToolResult("call_0", "result A", name="get_weather")]),
            Message("assistant", [ToolCall(id="call_0", name="get_weather", arguments={"city": "B"})]),
            Message("assistant", later),
            Message("user", results),
        ]
    )
    sent: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "done")], sent)
    try:
        result = toolwire.run_sync(m, conversation=conv, tools=[get_weather])
    except toolwire.RequestRefused as exc:
        # Chat Completions takes the results only directly after their assistant message
        # (rule openai-chat.conversation.calls-answered); before the fix it sent result B's call
        # answered "not run" instead
        assert api == "openai-chat" and not sent and "calls-answered" in str(exc)
        return
    body = _texts(sent[0])
    assert "result A" in body and "result B" in body and ("result C" in body or not later), body
    assert NOT_ANSWERED.splitlines()[0] not in body
    assert "conversation.unanswered-call" not in [c.rule for c in result.turns[0].response.preflight or []]


def test_renumber_reused_ids_pairs_each_result_with_its_own_call() -> None:
    from toolwire.turns import renumber_reused_ids

    msgs = [
        Message.user("x"),
        Message("assistant", [ToolCall(id="c", name="t", arguments={}), ToolCall(id="c_2", name="t", arguments={})]),
        Message("user", [ToolResult("c", "1"), ToolResult("c_2", "2")]),
        Message("assistant", [ToolCall(id="c", name="t", arguments={})]),
        Message("user", [ToolResult("c", "3")]),
        Message("assistant", [ToolCall(id="c", name="t", arguments={})]),
        Message("user", [ToolResult("c", "4")]),
    ]
    out, renamed = renumber_reused_ids(msgs)
    pairs = [
        (p.id if isinstance(p, ToolCall) else p.tool_call_id)
        for m in out
        for p in m.parts
        if not isinstance(p, TextPart)
    ]
    assert pairs == ["c", "c_2", "c", "c_2", "c_t3", "c_t3", "c_t5", "c_t5"]
    assert renamed == {"c": ["c_t3", "c_t5"]}
    # the same new ids when the conversation has grown (stable wire ids: a prompt cache still matches)
    grown = [
        *msgs,
        Message("assistant", [ToolCall(id="c", name="t", arguments={})]),
        Message("user", [ToolResult("c", "5")]),
    ]
    assert renumber_reused_ids(grown)[1] == {"c": ["c_t3", "c_t5", "c_t7"]}
    assert [p.id for p in msgs[3].parts] == ["c"]  # the given messages are not changed
    unique = [Message.user("x"), Message("assistant", [ToolCall(id="a", name="t", arguments={})])]
    assert renumber_reused_ids(unique)[0] is unique


@pytest.mark.parametrize("call_id", ["call_0", ""])
@pytest.mark.parametrize("api", APIS)
def test_a_call_id_repeated_inside_one_hand_built_message_keeps_both_calls_and_results(api: str, call_id: str) -> None:
    """A history built by hand or imported from a server that gives every call the same id (or
    none): both calls and both results reach the vendor, paired in order, each id once."""
    conv = Conversation(
        [
            Message.user("look up a and b"),
            Message(
                "assistant",
                [
                    ToolCall(id=call_id, name="get_weather", arguments={"city": "A"}),
                    ToolCall(id=call_id, name="get_weather", arguments={"city": "B"}),
                ],
            ),
            Message(
                "user",
                [
                    ToolResult(call_id, "result A", name="get_weather"),
                    ToolResult(call_id, "result B", name="get_weather"),
                ],
            ),
        ]
    )
    sent: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, conversation=conv, tools=[get_weather])
    assert result.text == "done"
    body = sent[0]
    if api == "anthropic":
        blocks = [b for msg in body["messages"] for b in msg["content"] if isinstance(b, dict)]
        calls = [(b["id"], b["input"]["city"]) for b in blocks if b["type"] == "tool_use"]
        results = [(b["tool_use_id"], b["content"]) for b in blocks if b["type"] == "tool_result"]
    elif api == "openai-chat":
        calls = [
            (c["id"], json.loads(c["function"]["arguments"])["city"])
            for msg in body["messages"]
            for c in msg.get("tool_calls") or []
        ]
        results = [(msg["tool_call_id"], msg["content"]) for msg in body["messages"] if msg["role"] == "tool"]
    elif api == "openai":
        calls = [
            (i["call_id"], json.loads(i["arguments"])["city"])
            for i in body["input"]
            if i.get("type") == "function_call"
        ]
        results = [(i["call_id"], i["output"]) for i in body["input"] if i.get("type") == "function_call_output"]
    else:
        parts = [p for c in body["contents"] for p in c["parts"]]
        calls = [(p["functionCall"].get("id"), p["functionCall"]["args"]["city"]) for p in parts if "functionCall" in p]
        results = [
            (p["functionResponse"].get("id"), p["functionResponse"]["response"]["output"])
            for p in parts
            if "functionResponse" in p
        ]
    assert [c for _, c in calls] == ["A", "B"]
    assert [r for _, r in results] == ["result A", "result B"]
    ids = [i for i, _ in calls]
    assert [i for i, _ in results] == ids
    if api != "gemini":  # Gemini pairs by order; an id it never gave is not sent
        assert len(set(ids)) == 2 and all(ids)


_PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63fccf3c50000004850180849a98210000000049454e44ae426082"
)


def _sent_image_types(api: str, body: dict[str, Any]) -> list[str]:
    text = json.dumps(body)
    if api in ("openai-chat", "openai"):
        import re

        return re.findall(r"data:([^;]+);base64,", text)
    if api == "gemini":
        return [p["inlineData"]["mimeType"] for c in body["contents"] for p in c["parts"] if "inlineData" in p]
    return [
        b["source"]["media_type"]
        for m in body["messages"]
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "image"
    ]


@pytest.mark.parametrize(
    "declared, data, sent",
    [
        ("application/octet-stream", _PNG_1PX, "image/png"),
        ("image/jpeg", _PNG_1PX, "image/png"),
        ("image/png", b"\xff\xd8\xff\xe0" + bytes(40), "image/jpeg"),
        # (bytes of no image under an image type are refused: rule <api>.conversation.image-bytes)
        ("image/jpg", b"\xff\xd8\xff\xdb" + bytes(40), "image/jpeg"),
    ],
)
@pytest.mark.parametrize("api", APIS)
def test_an_inline_image_goes_out_with_the_type_its_bytes_are(api: str, declared: str, data: bytes, sent: str) -> None:
    """PNG bytes declared as JPEG or as application/octet-stream (a file saved under the wrong
    name, an image another API answered with a wrong mimeType) are refused by every API that
    checks: sent with the type the bytes' signature names."""
    from toolwire import ImagePart

    out: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "a dot")], out)
    conv = Conversation([Message("user", [TextPart("what is this?"), ImagePart(data=data, media_type=declared)])])
    result = toolwire.run_sync(m, conversation=conv)
    assert result.text == "a dot"
    assert _sent_image_types(api, out[0]) == [sent]
    # the conversation keeps what the user gave
    assert result.conversation.messages[0].parts[1].media_type == declared


@pytest.mark.parametrize("api", APIS)
def test_tool_arguments_nested_600_levels_deep_are_sent_on_every_api(api: str) -> None:
    """Gemini's encoder copied arguments with copy.deepcopy, which raises RecursionError below
    500 levels, where the other APIs sent them."""
    deep: Any = 1
    for _ in range(600):
        deep = {"a": deep}
    conv = Conversation(
        [
            Message.user("go"),
            Message("assistant", [ToolCall(id="c1", name="get_weather", arguments={"city": "x", "extra": deep})]),
            Message("user", [ToolResult("c1", "done", name="get_weather")]),
        ]
    )
    out: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "ok")], out)
    assert toolwire.run_sync(m, conversation=conv, tools=[get_weather]).text == "ok"
    import re

    # (OpenAI carries arguments as JSON text: its quotes are escaped in the body)
    assert len(re.findall(r'\\?"a\\?":', json.dumps(out[0]))) == 600


@pytest.mark.parametrize("api", APIS)
def test_an_image_given_as_a_data_url_is_sent_inline_on_every_api(api: str) -> None:
    """ImagePart(url="data:image/png;base64,...") went to Anthropic as a url source and to Gemini
    as fileData, which fetch only http(s) URLs; it is held as inline bytes."""
    import base64

    from toolwire import ImagePart

    url = "data:image/png;base64," + base64.b64encode(_PNG_1PX).decode()
    part = ImagePart(url=url)
    assert (part.url, part.data, part.media_type) == (None, _PNG_1PX, "image/png")
    out: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "a dot")], out)
    toolwire.run_sync(m, ["what is this?", part])
    assert _sent_image_types(api, out[0]) == ["image/png"]
    assert base64.b64encode(_PNG_1PX).decode() in json.dumps(out[0])
    assert "fileData" not in json.dumps(out[0]) and '"type": "url"' not in json.dumps(out[0])


@pytest.mark.parametrize("api", APIS)
def test_a_data_url_with_percent_encoded_base64_is_sent_inline_on_every_api(api: str) -> None:
    """A data: URL whose base64 is percent-encoded (``+`` as ``%2B``, ``/`` as ``%2F``, as
    ``encodeURIComponent`` writes it; RFC 2397 data is URL-encoded) was read as base64 that does
    not decode, so the image stayed a URL and every API's preflight refused it as holding no bytes."""
    import base64
    from urllib.parse import quote

    from toolwire import ImagePart

    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    encoded = quote(base64.b64encode(png).decode(), safe="")
    assert "%2B" in encoded and "%3D" in encoded
    part = ImagePart(url="data:image/png;base64," + encoded)
    assert (part.url, part.data, part.media_type) == (None, png, "image/png")
    out: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "a dot")], out)
    toolwire.run_sync(m, ["what is this?", part])
    assert _sent_image_types(api, out[0]) == ["image/png"]
    assert base64.b64encode(png).decode() in json.dumps(out[0])


@pytest.mark.parametrize("api", APIS)
def test_an_image_in_an_assistant_message_is_sent_where_the_api_takes_it_and_said_elsewhere(api: str) -> None:
    """Anthropic refuses "'image' blocks are not permitted within assistant turns"; OpenAI takes
    images only from the user and the image was dropped silently. Gemini takes images in model
    turns (its own image output)."""
    from toolwire import ImagePart
    from toolwire.turns import ASSISTANT_IMAGE_NOTE

    conv = Conversation(
        [
            Message.user("draw a dot"),
            Message("assistant", [TextPart("here"), ImagePart(data=_PNG_1PX, media_type="image/png")]),
            Message.user("thanks"),
        ]
    )
    out: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "welcome")], out)
    assert toolwire.run_sync(m, conversation=conv).text == "welcome"
    sent = json.dumps(out[0])
    if api == "gemini":
        assert _sent_image_types(api, out[0]) == ["image/png"] and ASSISTANT_IMAGE_NOTE not in sent
    else:
        assert _sent_image_types(api, out[0]) == [] and sent.count(ASSISTANT_IMAGE_NOTE) == 1
        assert "here" in sent


def _lossy(result: Any) -> list[tuple[str, str, str | None]]:
    return [(c.rule, c.pointer, c.call_id) for c in result.turns[0].response.preflight or [] if c.lossy]


@pytest.mark.parametrize("where", ["same message", "later message"])
@pytest.mark.parametrize("api", APIS)
def test_a_second_result_for_one_call_is_left_out_and_reported(api: str, where: str) -> None:
    """Each call is answered once (Anthropic "each tool_use must have a single result"; Chat, one
    role:tool message per call id): every codec sends the first result and leaves a second one
    out. It was left out without a word (found by the conversation fuzz test); now the turn's
    preflight report names it (rule ``conversation.duplicate-result``, lossy)."""
    first = Message("user", [ToolResult("call_1", "first answer", name="get_weather")])
    second = ToolResult("call_1", "second answer", name="get_weather")
    messages = [
        Message.user("weather?"),
        Message("assistant", [ToolCall(id="call_1", name="get_weather", arguments={"city": "A"})]),
    ]
    if where == "same message":
        messages += [Message("user", [*first.parts, second]), Message.user("and now?")]
        pointer = "/messages/2/parts/1"
    else:
        messages += [first, Message.assistant("It is sunny."), Message("user", [second, TextPart("and now?")])]
        pointer = "/messages/4/parts/0"
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(make_model(api, [text_answer(api, "done")], sent), conversation=Conversation(messages))
    body = _texts(sent[0])
    assert "first answer" in body and "second answer" not in body and "and now?" in body
    assert _lossy(result) == [("conversation.duplicate-result", pointer, "call_1")]


@pytest.mark.parametrize("api", APIS)
def test_a_call_repeating_an_id_in_its_response_is_reported_when_left_out(api: str) -> None:
    """A response that gave two calls one id: the decoder marks the second invalid (never run) and
    every codec leaves it out with its error result, as before; the report now names both."""
    from toolwire.wire import duplicate_id_invalid

    messages = [
        Message.user("weather?"),
        Message(
            "assistant",
            [
                ToolCall(id="toolu_1", name="get_weather", arguments={"city": "A"}),
                ToolCall(
                    id="toolu_1", name="get_weather", arguments={"city": "B"}, invalid=duplicate_id_invalid("toolu_1")
                ),
            ],
        ),
        Message(
            "user",
            [
                ToolResult("toolu_1", "sunny in A", name="get_weather"),
                ToolResult("toolu_1", "error: not run, its id repeats", is_error=True, name="get_weather"),
            ],
        ),
    ]
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(make_model(api, [text_answer(api, "done")], sent), conversation=Conversation(messages))
    body = _texts(sent[0])
    assert "sunny in A" in body and "not run, its id repeats" not in body and '"B"' not in body.replace(" ", "")
    assert _lossy(result) == [
        ("conversation.duplicate-call", "/messages/1/parts/1", "toolu_1"),
        ("conversation.duplicate-result", "/messages/2/parts/1", "toolu_1"),
    ]


@pytest.mark.parametrize("later", [True, False], ids=["later result", "no later result"])
def test_anthropic_reports_a_result_placed_before_its_call(later: bool) -> None:
    """Anthropic's codec places every result after its call and leaves out one placed before
    it (the other APIs refuse such a request with their placement rule); it did so unsaid, and
    with no later result answered the call "not run". Now reported (rule
    ``conversation.result-before-call``, lossy)."""
    messages = [
        Message("user", [ToolResult("toolu_1", "early answer", name="get_weather"), TextPart("weather?")]),
        Message("assistant", [ToolCall(id="toolu_1", name="get_weather", arguments={"city": "A"})]),
        Message("user", [ToolResult("toolu_1", "late answer", name="get_weather")] if later else [TextPart("well?")]),
    ]
    sent: list[dict[str, Any]] = []
    m = make_model("anthropic", [text_answer("anthropic", "done")], sent)
    result = toolwire.run_sync(m, conversation=Conversation(messages))
    body = _texts(sent[0])
    assert "early answer" not in body and ("late answer" in body) is later
    assert _lossy(result) == [("conversation.result-before-call", "/messages/0/parts/0", "toolu_1")]


def call_answer(api: str) -> dict[str, Any]:
    """An answer calling get_weather for Rome (id ``call_9``), finished normally."""
    body = cut_off_body(api, '{"city": "Rome"}')
    if api == "anthropic":
        body["stop_reason"] = "tool_use"
        body["content"][0]["id"] = "call_9"
    elif api == "openai-chat":
        body["choices"][0]["finish_reason"] = "tool_calls"
        body["choices"][0]["message"]["tool_calls"][0]["id"] = "call_9"
    elif api == "openai":
        body["status"], body["incomplete_details"] = "completed", None
        body["output"][0]["call_id"] = "call_9"
    else:
        body["candidates"][0]["finishReason"] = "STOP"
    return body


def _moved(result: Any, turn: int = 0) -> list[tuple[str, str, str | None, bool]]:
    return [
        (c.rule, c.pointer, c.call_id, c.lossy)
        for c in result.turns[turn].response.preflight or []
        if c.rule == "conversation.result-moved"
    ]


def _order(api: str, body: dict[str, Any]) -> list[str]:
    """The body's conversation as a list of markers: ``call:<id or name>``, ``result:<...>`` and
    ``text:<text>``, in the order the API reads them (read from the wire format here, not by
    toolwire's decoders)."""
    out: list[str] = []
    if api == "anthropic":
        for m in body["messages"]:
            content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
            for b in content:
                if b["type"] == "tool_use":
                    out.append(f"call:{b['id']}")
                elif b["type"] == "tool_result":
                    out.append(f"result:{b['tool_use_id']}")
                elif b["type"] == "text":
                    out.append(f"text:{b['text']}")
    elif api == "openai-chat":
        for m in body["messages"]:
            for c in m.get("tool_calls") or []:
                out.append(f"call:{c['id']}")
            if m["role"] == "tool":
                out.append(f"result:{m['tool_call_id']}")
            elif isinstance(m.get("content"), str):
                out.append(f"text:{m['content']}")
    elif api == "openai":
        for item in body["input"]:
            if item.get("type") == "function_call":
                out.append(f"call:{item['call_id']}")
            elif item.get("type") == "function_call_output":
                out.append(f"result:{item['call_id']}")
            elif isinstance(item.get("content"), str):
                out.append(f"text:{item['content']}")
    else:
        for c in body["contents"]:
            for p in c["parts"]:
                if "functionCall" in p:
                    out.append(f"call:{p['functionCall']['args']['city']}")
                elif "functionResponse" in p:
                    out.append(f"result:{p['functionResponse']['response']['output']}")
                elif "text" in p:
                    out.append(f"text:{p['text']}")
    return out


@pytest.mark.parametrize("api", APIS)
def test_a_result_after_a_user_message_is_sent_right_after_its_call(api: str) -> None:
    """A history in which a user message comes between a call and its result (typed while the
    tool ran, or a hand-built history): Anthropic's codec sent the result right after its call,
    Responses sent the items as they were, and OpenAI Chat and Gemini refused the request
    (their placement rules: "An assistant message with 'tool_calls' must be followed by tool
    messages responding to each 'tool_call_id'"; "Please ensure that function response turn
    comes immediately after a function call turn"), although nothing was missing. Now every API
    sends the result right after its call, the user's text after it, and reports the move (rule
    ``conversation.result-moved``, not lossy, pointing at the result where it was)."""
    from toolwire.testing.conversation_rules import validate_request

    messages = [
        Message.user("weather?"),
        Message("assistant", [ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})]),
        Message.user("and be quick"),
        Message("user", [ToolResult("call_1", "4C", name="get_weather")]),
    ]
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(
        make_model(api, [text_answer(api, "done")], sent), conversation=Conversation(messages), tools=[get_weather]
    )
    assert result.text == "done" and len(sent) == 1
    call, answer = ("call:Oslo", "result:4C") if api == "gemini" else ("call:call_1", "result:call_1")
    assert _order(api, sent[0]) == ["text:weather?", call, answer, "text:and be quick"]
    assert validate_request(api, sent[0]) == []
    assert _moved(result) == [("conversation.result-moved", "/messages/3/parts/0", "call_1", False)]
    assert [len(m.parts) for m in messages] == [1, 1, 1, 1]  # the caller's history is not changed


@pytest.mark.parametrize("api", APIS)
def test_results_of_two_assistant_messages_in_a_row(api: str) -> None:
    """Two assistant messages in a row, each with a call, then both results: Anthropic and Gemini
    merge the two into one turn; OpenAI Chat keeps each assistant message apart, and refused the
    request (the first call's role:tool message must follow its own assistant message). Chat now
    sends each result right after its assistant message, as Anthropic's codec did unsaid, and
    both report the move; Gemini merges the two model turns (its own repair) and Responses sends
    the items as they are."""
    from toolwire.testing.conversation_rules import validate_request

    messages = [
        Message.user("weather?"),
        Message("assistant", [ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})]),
        Message("assistant", [ToolCall(id="call_2", name="get_weather", arguments={"city": "Rome"})]),
        Message(
            "user", [ToolResult("call_1", "4C", name="get_weather"), ToolResult("call_2", "20C", name="get_weather")]
        ),
    ]
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(
        make_model(api, [text_answer(api, "done")], sent), conversation=Conversation(messages), tools=[get_weather]
    )
    assert result.text == "done"
    assert validate_request(api, sent[0]) == []
    order = _order(api, sent[0])
    if api in ("openai-chat", "anthropic"):
        assert order == ["text:weather?", "call:call_1", "result:call_1", "call:call_2", "result:call_2"]
        assert _moved(result) == [("conversation.result-moved", "/messages/3/parts/0", "call_1", False)]
    else:
        assert order[-2:] == (["result:4C", "result:20C"] if api == "gemini" else ["result:call_1", "result:call_2"])
        assert _moved(result) == []


@pytest.mark.parametrize("api", APIS)
def test_a_late_result_in_a_long_history_is_moved_on_every_request(api: str) -> None:
    """The same move in a conversation long enough to be encoded incrementally (a request that
    extends the previous one encodes only the new messages): the late result sits in the older
    part of the history, and every request of the run sends it right after its call and
    reports the move."""
    from toolwire.testing.conversation_rules import validate_request

    messages = [Message.user("start")]
    for k in range(10):
        messages += [Message.assistant(f"note {k}"), Message.user(f"go on {k}")]
    messages += [
        Message("assistant", [ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})]),
        Message.user("and be quick"),
        Message("user", [ToolResult("call_1", "4C", name="get_weather")]),
    ]
    sent: list[dict[str, Any]] = []
    call_body = call_answer(api)
    m = make_model(api, [call_body, text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, conversation=Conversation(messages), tools=[get_weather], max_turns=3)
    assert result.text == "done" and len(sent) == 2
    for n, body in enumerate(sent):
        assert validate_request(api, body) == []
        order = _order(api, body)
        call, answer = ("call:Oslo", "result:4C") if api == "gemini" else ("call:call_1", "result:call_1")
        at = order.index(call)
        assert order[at + 1 : at + 3] == [answer, "text:and be quick"]
        assert _moved(result, n) == [("conversation.result-moved", "/messages/23/parts/0", "call_1", False)]


@pytest.mark.parametrize("api", APIS)
def test_a_data_url_missing_its_base64_marker_is_read_as_the_base64_image_it_holds(api: str) -> None:
    """``data:image/png,iVBORw0KGgo...`` (``;base64`` left out) was read, as RFC 2397 says, as the
    base64 text itself: those characters went out as the "PNG" bytes, and the API could not
    read the image. Text that is no image but whose base64 decoding is one is that image."""
    import base64

    from toolwire import ImagePart
    from toolwire.types import decode_data_url

    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    part = ImagePart(url="data:image/png," + base64.b64encode(png).decode())
    assert (part.url, part.data, part.media_type) == (None, png, "image/png")
    # text that is not base64 of an image stays the percent-decoded bytes (an SVG, say)
    assert decode_data_url("data:image/svg+xml,%3Csvg%3E%3C/svg%3E") == ("image/svg+xml", b"<svg></svg>")
    out: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "a dot")], out)
    toolwire.run_sync(m, ["what is this?", part])
    assert _sent_image_types(api, out[0]) == ["image/png"]
    assert base64.b64encode(png).decode() in json.dumps(out[0])
