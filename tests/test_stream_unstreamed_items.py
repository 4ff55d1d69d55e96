"""Responses streams that stream some output items and leave others only in ``response.completed``.

Some OpenAI-compatible servers and proxies stream a message's text deltas but send a
``function_call`` item (or a reasoning item, or a second message) only in the completed
response's ``output``; the SDK's own stream helper takes that completed response as the final
answer (``openai.lib.streaming.responses``: ``get_final_response()``). Before, toolwire lost
those items: the call never ran, the reasoning never went back. Now every item of the completed
output the stream did not give is taken in its place, as its ``response.output_item.done`` would
have been; an item the stream gave is not taken twice.

The real SDK sends and reads every request; only the network is replaced (``httpx2.MockTransport``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire.errors import ResponseDecodeError
from toolwire.types import ProviderToolPart, ReasoningPart, TextPart, ToolCall

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_openai")

from toolwire_openai import OpenAIResponsesModel  # noqa: E402

RAN: list[str] = []


def get_weather(city: str) -> str:
    """Weather for a city."""
    RAN.append(city)
    return f"sunny in {city}"


class Server:
    def __init__(self, *answers: httpx2.Response) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return self.answers.pop(0)


def _sse(events: list[dict[str, Any]]) -> httpx2.Response:
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


BASE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 0,
    "model": "gpt-4.1",
    "output": [],
    "status": "in_progress",
}
USAGE = {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}


def _message(item_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _call(n: int, city: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"call_{n}",
        "name": "get_weather",
        "arguments": json.dumps({"city": city}),
        "status": "completed",
    }


REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Check the weather."}],
    "encrypted_content": "gAAAAB-opaque",
}


def _streamed_message(oi: int, item: dict[str, Any], *, done: bool = True, ids: bool = True) -> list[dict[str, Any]]:
    """A message streamed as text deltas (split in two), with or without its ``output_item.done``."""
    text = item["content"][0]["text"]
    key = {"item_id": item["id"]} if ids else {}
    events: list[dict[str, Any]] = [
        {
            "type": "response.output_item.added",
            "output_index": oi,
            "item": {**item, "content": [], "status": "in_progress", **({} if ids else {"id": None})},
        },
        {"type": "response.output_text.delta", "output_index": oi, "content_index": 0, **key, "delta": text[:4]},
        {"type": "response.output_text.delta", "output_index": oi, "content_index": 0, **key, "delta": text[4:]},
    ]
    if done:
        events.append({"type": "response.output_item.done", "output_index": oi, "item": item})
    return events


def _streamed_call(oi: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"type": "response.output_item.added", "output_index": oi, "item": {**item, "arguments": ""}},
        {
            "type": "response.function_call_arguments.delta",
            "output_index": oi,
            "item_id": item["id"],
            "delta": item["arguments"],
        },
        {"type": "response.output_item.done", "output_index": oi, "item": item},
    ]


def _completed(output: list[Any]) -> dict[str, Any]:
    return {"type": "response.completed", "response": {**BASE, "status": "completed", "output": output, "usage": USAGE}}


def _text_answer(text: str) -> httpx2.Response:
    msg = _message("msg_9", text)
    return _sse(
        [
            {"type": "response.created", "response": {**BASE, "id": "resp_2"}},
            *_streamed_message(0, msg),
            {
                "type": "response.completed",
                "response": {**BASE, "id": "resp_2", "status": "completed", "output": [msg], "usage": USAGE},
            },
        ]
    )


def _run(first: list[dict[str, Any]], name: str = "gpt-4.1") -> tuple[Any, Server]:
    RAN.clear()
    server = Server(_sse([{"type": "response.created", "response": BASE}, *first]), _text_answer("done"))
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    model = OpenAIResponsesModel(name, api_key="sk-test", http_client=client, stream=True, max_retries=0)
    return toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather]), server


def _outputs(body: dict[str, Any]) -> dict[str, str]:
    return {i["call_id"]: i["output"] for i in body["input"] if i.get("type") == "function_call_output"}


def _answer_items(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(type, call id, reasoning id or message text) of the items the second request sends back
    for the first answer."""
    return [
        (i["type"], "".join(c["text"] for c in i["content"]) if i["type"] == "message" else i.get("call_id") or i["id"])
        for i in body["input"]
        if i.get("type") not in ("function_call_output",) and i.get("role") != "user"
    ]


def _parts(response: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for p in response.parts:
        if isinstance(p, TextPart):
            out.append(("text", p.text))
        elif isinstance(p, ToolCall):
            out.append(("call", p.id))
        elif isinstance(p, ReasoningPart):
            out.append(("reasoning", p.text))
        elif isinstance(p, ProviderToolPart):
            out.append(("provider", str(p.raw.get("type"))))
    return out


def test_a_function_call_only_in_the_completed_output_runs_once() -> None:
    """The message's text is streamed; the call comes only in ``response.completed``: it runs
    once and its output is in the next request, after the message and the call it answers."""
    msg = _message("msg_1", "Let me check.")
    result, server = _run([*_streamed_message(0, msg), _completed([msg, _call(1, "Paris")])])
    assert RAN == ["Paris"]
    first = result.turns[0].response
    assert _parts(first) == [("text", "Let me check."), ("call", "call_1")]
    assert first.stop_reason == "tool_use" and first.tool_calls[0].arguments == {"city": "Paris"}
    second = server.bodies[1]
    assert _outputs(second) == {"call_1": "sunny in Paris"}
    assert _answer_items(second) == [("message", "Let me check."), ("function_call", "call_1")]
    assert result.text == "done"


def test_unstreamed_items_keep_their_order_and_streamed_text_is_not_repeated() -> None:
    """Reasoning, a call and a second message only in the completed output, around a streamed
    message (whose ``output_item.done`` never came): each in its place, the streamed text once,
    the reasoning's encrypted content sent back."""
    msg, msg2 = _message("msg_1", "Let me check."), _message("msg_2", "One moment.")
    # the stream numbers items as the completed output does: the message is output_index 1
    result, server = _run(
        [*_streamed_message(1, msg, done=False), _completed([REASONING, msg, _call(2, "Paris"), msg2])], "o4-mini"
    )
    assert RAN == ["Paris"]
    first = result.turns[0].response
    assert _parts(first) == [
        ("reasoning", "Check the weather."),
        ("text", "Let me check."),
        ("call", "call_2"),
        ("text", "One moment."),
    ]
    second = server.bodies[1]
    assert _answer_items(second) == [
        ("reasoning", "rs_1"),
        ("message", "Let me check."),
        ("function_call", "call_2"),
        ("message", "One moment."),
    ]
    reasoning = next(i for i in second["input"] if i.get("type") == "reasoning")
    assert reasoning["encrypted_content"] == "gAAAAB-opaque"
    assert _outputs(second) == {"call_2": "sunny in Paris"}


def test_streamed_items_are_not_taken_twice() -> None:
    """Everything streamed (a message and a call, each with its ``output_item.done``) and listed
    again in the completed output: one text, one call run once."""
    msg, call = _message("msg_1", "Let me check."), _call(1, "Paris")
    result, server = _run([*_streamed_message(0, msg), *_streamed_call(1, call), _completed([msg, call])])
    assert RAN == ["Paris"]
    first = result.turns[0].response
    assert _parts(first) == [("text", "Let me check."), ("call", "call_1")]
    assert _answer_items(server.bodies[1]) == [("message", "Let me check."), ("function_call", "call_1")]


@pytest.mark.parametrize("case", ["no-ids-in-stream", "other-id-in-completed"])
def test_a_streamed_item_is_matched_by_output_index_when_the_ids_do_not_say(case: str) -> None:
    """A stream whose deltas carry no item ids, or a completed output that gives the streamed
    message another id (a proxy that makes its own): the message at the streamed output index is
    the streamed one, its text is not repeated; the call beside it is taken once."""
    msg = _message("msg_1", "Let me check.")
    listed = msg if case == "no-ids-in-stream" else {**msg, "id": "msg_other"}
    result, server = _run(
        [
            *_streamed_message(0, msg, done=False, ids=case != "no-ids-in-stream"),
            _completed([listed, _call(1, "Paris")]),
        ]
    )
    assert RAN == ["Paris"]
    assert _parts(result.turns[0].response) == [("text", "Let me check."), ("call", "call_1")]


def test_an_item_at_a_position_the_stream_used_for_another_goes_after_every_item() -> None:
    """A server that numbered its streamed items without the unstreamed call (the second message
    streamed at output index 1, listed at 2): the call is not lost nor run twice, and no text is
    repeated; it goes after the streamed items."""
    msg, msg2 = _message("msg_1", "Let me check."), _message("msg_2", "One moment.")
    result, server = _run(
        [*_streamed_message(0, msg), *_streamed_message(1, msg2), _completed([msg, _call(1, "Paris"), msg2])]
    )
    assert RAN == ["Paris"]
    assert _parts(result.turns[0].response) == [("text", "Let me check."), ("text", "One moment."), ("call", "call_1")]
    assert _outputs(server.bodies[1]) == {"call_1": "sunny in Paris"}


def test_an_unstreamed_item_of_an_unknown_type_is_kept_and_one_without_a_type_left_out() -> None:
    """As in a whole (non-streamed) response: an item of a type this SDK does not know is kept
    and sent back as it came; one without a ``type`` is left out (the API refuses it as input)."""
    msg = _message("msg_1", "Let me check.")
    future = {"type": "future_item", "id": "fi_1", "payload": {"x": [1, 2]}}
    result, server = _run(
        [*_streamed_message(0, msg), _completed([msg, future, {"id": "odd_1", "note": "no type"}, _call(3, "Paris")])]
    )
    assert RAN == ["Paris"]
    assert _parts(result.turns[0].response) == [
        ("text", "Let me check."),
        ("provider", "future_item"),
        ("call", "call_3"),
    ]
    second = server.bodies[1]
    assert [i for i in second["input"] if i.get("type") == "future_item"] == [future]
    assert _answer_items(second) == [
        ("message", "Let me check."),
        ("future_item", "fi_1"),
        ("function_call", "call_3"),
    ]


@pytest.mark.parametrize(
    "bad, pointer",
    [
        (42, "/response/output/1"),
        ({"type": "message", "id": "msg_2", "content": "not a list"}, "/response/output/1/content"),
        ({"type": "reasoning", "id": "rs_2", "summary": [{"type": "summary_text", "text": 7}]}, None),
    ],
)
def test_a_malformed_unstreamed_item_is_a_decode_error(bad: Any, pointer: str | None) -> None:
    msg = _message("msg_1", "Let me check.")
    with pytest.raises(ResponseDecodeError) as info:
        _run([*_streamed_message(0, msg), _completed([msg, bad, _call(2, "Paris")])])
    assert info.value.api == "openai"
    if pointer is not None:
        assert info.value.pointer == pointer
    else:
        assert info.value.pointer.startswith("/response/output/1/")
    assert RAN == []


def test_a_streamed_reasoning_item_without_its_done_takes_the_encrypted_content_of_the_completed_copy() -> None:
    """Reasoning summary deltas streamed, its ``output_item.done`` never sent: the completed
    output's copy finishes it (the encrypted content, sent back with the next request), its text
    is not repeated."""
    msg = _message("msg_1", "Let me check.")
    events = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "reasoning", "id": "rs_1", "summary": []},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "summary_index": 0,
            "item_id": "rs_1",
            "delta": "Check the weather.",
        },
        *_streamed_message(1, msg),
        *_streamed_call(2, _call(2, "Paris")),
        _completed([REASONING, msg, _call(2, "Paris")]),
    ]
    result, server = _run(events, "o4-mini")
    assert RAN == ["Paris"]
    first = result.turns[0].response
    assert _parts(first) == [("reasoning", "Check the weather."), ("text", "Let me check."), ("call", "call_2")]
    reasoning = [i for i in server.bodies[1]["input"] if i.get("type") == "reasoning"]
    assert [(i["id"], i["encrypted_content"]) for i in reasoning] == [("rs_1", "gAAAAB-opaque")]


@pytest.mark.parametrize("done", [True, False], ids=["with-done", "without-done"])
def test_streamed_items_listed_again_in_another_order_with_other_ids_are_not_taken_twice(done: bool) -> None:
    """A proxy that streams a call then a message and lists them in ``response.completed`` in the
    other order, each with an item id of its own: neither the id nor the position says which
    streamed item each is. The call is its ``call_id`` and the message its text; before, both
    were taken again (the text twice in the answer and in the next request, a second call with
    the same id in the answer)."""
    msg, call = _message("msg_1", "Let me check."), _call(1, "Paris")
    streamed = [*_streamed_call(0, call), *_streamed_message(1, msg, done=done)]
    result, server = _run([*streamed, _completed([{**msg, "id": "msg_proxy"}, {**call, "id": "fc_proxy"}])])
    assert RAN == ["Paris"]
    assert _parts(result.turns[0].response) == [("call", "call_1"), ("text", "Let me check.")]
    assert _answer_items(server.bodies[1]) == [("function_call", "call_1"), ("message", "Let me check.")]


def test_an_unstreamed_message_beside_a_streamed_one_listed_elsewhere_is_kept() -> None:
    """Matching by text takes only the message with the streamed text: a second message listed
    before it (not streamed) is still taken, and the streamed one not twice."""
    msg, other = _message("msg_1", "Let me check."), _message("msg_2", "Also this.")
    result, server = _run(
        [
            *_streamed_message(0, msg, ids=False),
            _completed([_call(1, "Paris"), other, {**msg, "id": "msg_proxy"}]),
        ]
    )
    assert RAN == ["Paris"]
    texts = [t for kind, t in _parts(result.turns[0].response) if kind == "text"]
    assert sorted(texts) == ["Also this.", "Let me check."]


def test_a_message_given_whole_by_its_done_is_known_by_its_text_too() -> None:
    msg, call = _message("msg_1", "Let me check."), _call(1, "Paris")
    done_only = [{"type": "response.output_item.done", "output_index": 0, "item": msg}]
    result, server = _run([*done_only, _completed([{**call, "id": "fc_proxy"}, {**msg, "id": "msg_proxy"}])])
    assert RAN == ["Paris"]
    assert [t for kind, t in _parts(result.turns[0].response) if kind == "text"] == ["Let me check."]


@pytest.mark.parametrize("done", [True, False], ids=["with-done", "without-done"])
def test_a_streamed_reasoning_item_listed_again_under_another_id_elsewhere_is_not_taken_twice(done: bool) -> None:
    call = _call(1, "Paris")
    events: list[dict[str, Any]] = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "reasoning", "id": "rs_1", "summary": []},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "summary_index": 0,
            "item_id": "rs_1",
            "delta": "Check the weather.",
        },
    ]
    if done:
        events.append({"type": "response.output_item.done", "output_index": 0, "item": REASONING})
    events += [*_streamed_call(1, call), _completed([{**call, "id": "fc_p"}, {**REASONING, "id": "rs_proxy"}])]
    result, _ = _run(events, "o4-mini")
    assert RAN == ["Paris"]
    assert _parts(result.turns[0].response) == [("reasoning", "Check the weather."), ("call", "call_1")]
