"""Responses streams whose server never sends ``response.output_item.done`` for a function call.

Some OpenAI-compatible servers and proxies announce a call (``response.output_item.added``),
stream its arguments (``response.function_call_arguments.delta``/``.done``) and then end the
response with ``response.completed``, without the item's ``response.output_item.done``; the
``response.completed`` body then carries the whole output, or an empty ``output`` list
("Some OpenAI-compatible backends/proxies omit per-item done events on a successful
completion", NousResearch/hermes-agent#92764; anomalyco/opencode#37159). Before, the call stayed
open and toolwire never ran it. Now the call the completed response settles is the complete
call, exactly once. A stream cut before ``response.completed`` stays a retryable
:class:`~toolwire.errors.ProviderError`, as every cut stream is.

The real SDK sends and reads every request; only the network is replaced (``httpx2.MockTransport``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire.errors import ProviderError

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


def _item(oi: int, args: str = "", status: str = "in_progress") -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{oi}",
        "call_id": f"call_{oi}",
        "name": "get_weather",
        "arguments": args,
        "status": status,
    }


def _call_events(oi: int, city: str, *, args_done: bool = True) -> list[dict[str, Any]]:
    text = json.dumps({"city": city})
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": oi, "item": _item(oi)},
        {
            "type": "response.function_call_arguments.delta",
            "output_index": oi,
            "item_id": f"fc_{oi}",
            "delta": text[:5],
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": oi,
            "item_id": f"fc_{oi}",
            "delta": text[5:],
        },
    ]
    if args_done:
        events.append(
            {
                "type": "response.function_call_arguments.done",
                "output_index": oi,
                "item_id": f"fc_{oi}",
                "arguments": text,
            }
        )
    return events


def _completed(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "response.completed", "response": {**BASE, "status": "completed", "output": output, "usage": USAGE}}


def _text_answer(text: str) -> httpx2.Response:
    msg = {
        "type": "message",
        "id": "msg_2",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return _sse(
        [
            {"type": "response.created", "response": {**BASE, "id": "resp_2"}},
            {"type": "response.output_item.added", "output_index": 0, "item": {**msg, "content": []}},
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "content_index": 0,
                "item_id": "msg_2",
                "delta": text,
            },
            {"type": "response.output_item.done", "output_index": 0, "item": msg},
            {
                "type": "response.completed",
                "response": {**BASE, "id": "resp_2", "status": "completed", "output": [msg], "usage": USAGE},
            },
        ]
    )


def _run(first: list[dict[str, Any]]) -> tuple[Any, Server]:
    RAN.clear()
    server = Server(_sse([{"type": "response.created", "response": BASE}, *first]), _text_answer("done"))
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    model = OpenAIResponsesModel("gpt-4.1", api_key="sk-test", http_client=client, stream=True, max_retries=0)
    return toolwire.run_sync(model, "Weather in Paris and Rome?", tools=[get_weather]), server


def _outputs(body: dict[str, Any]) -> dict[str, str]:
    return {i["call_id"]: i["output"] for i in body["input"] if i.get("type") == "function_call_output"}


def _calls(body: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (i["call_id"], i["name"], json.loads(i["arguments"])) for i in body["input"] if i.get("type") == "function_call"
    ]


COMPLETED_OUTPUTS = {
    # the completed response carries the whole output (the finished items)
    "full-output": [_item(0, '{"city": "Paris"}', "completed"), _item(1, '{"city": "Rome"}', "completed")],
    # the completed response carries no output at all
    "empty-output": [],
}


@pytest.mark.parametrize("case", sorted(COMPLETED_OUTPUTS))
def test_calls_without_their_item_done_are_run_once(case: str) -> None:
    events = [*_call_events(0, "Paris"), *_call_events(1, "Rome"), _completed(COMPLETED_OUTPUTS[case])]
    result, server = _run(events)
    assert sorted(RAN) == ["Paris", "Rome"]  # (each once; the two run in parallel threads)
    assert result.text == "done"
    calls = result.turns[0].response.tool_calls
    assert [(c.id, c.name, c.arguments, c.incomplete, c.invalid) for c in calls] == [
        ("call_0", "get_weather", {"city": "Paris"}, False, None),
        ("call_1", "get_weather", {"city": "Rome"}, False, None),
    ]
    second = server.bodies[1]
    assert _calls(second) == [("call_0", "get_weather", {"city": "Paris"}), ("call_1", "get_weather", {"city": "Rome"})]
    assert _outputs(second) == {"call_0": "sunny in Paris", "call_1": "sunny in Rome"}


def test_a_call_without_arguments_done_is_settled_from_its_deltas() -> None:
    events = [*_call_events(0, "Paris", args_done=False), _completed([])]
    result, server = _run(events)
    assert RAN == ["Paris"]
    assert _outputs(server.bodies[1]) == {"call_0": "sunny in Paris"}


def test_the_completed_item_is_authoritative_over_the_deltas() -> None:
    """The finished item in ``response.completed`` gives the arguments, as its
    ``output_item.done`` would have."""
    events = [*_call_events(0, "Par", args_done=False), _completed([_item(0, '{"city": "Paris"}', "completed")])]
    result, server = _run(events)
    assert RAN == ["Paris"]


def test_a_call_with_and_one_without_item_done_each_run_once() -> None:
    done = {"type": "response.output_item.done", "output_index": 0, "item": _item(0, '{"city": "Paris"}', "completed")}
    events = [
        *_call_events(0, "Paris"),
        done,
        *_call_events(1, "Rome"),
        _completed([_item(0, '{"city": "Paris"}', "completed"), _item(1, '{"city": "Rome"}', "completed")]),
    ]
    result, server = _run(events)
    assert sorted(RAN) == ["Paris", "Rome"]  # (each once; the two run in parallel threads)
    assert len(result.turns[0].response.tool_calls) == 2


def test_a_stream_cut_before_response_completed_is_a_provider_error() -> None:
    """No ``response.completed``: nothing says the call is complete; the stream is cut, a
    retryable ProviderError, and nothing runs."""
    RAN.clear()
    server = Server(_sse([{"type": "response.created", "response": BASE}, *_call_events(0, "Paris")]))
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    model = OpenAIResponsesModel("gpt-4.1", api_key="sk-test", http_client=client, stream=True, max_retries=0)
    with pytest.raises(ProviderError) as info:
        toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather])
    assert info.value.retryable and "ended before the response was complete" in str(info.value)
    assert RAN == []


def test_a_stream_that_sends_only_the_completed_response_gives_its_whole_output() -> None:
    """A server (or proxy) that answers a streamed request with ``response.created`` and then
    ``response.completed`` holding the whole output, no item or delta before: the completed
    output is the answer (text and calls), as the SDK's own stream helper takes it. Before,
    the answer was empty and nothing ran."""
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Let me check.", "annotations": []}],
    }
    result, server = _run(
        [_completed([message, _item(1, '{"city": "Paris"}', "completed"), _item(2, '{"city": "Rome"}', "completed")])]
    )
    assert sorted(RAN) == ["Paris", "Rome"]  # (each once; the two run in parallel threads)
    first = result.turns[0].response
    assert first.text == "Let me check." and first.stop_reason == "tool_use"
    assert [(c.id, c.arguments) for c in first.tool_calls] == [
        ("call_1", {"city": "Paris"}),
        ("call_2", {"city": "Rome"}),
    ]
    assert _outputs(server.bodies[1]) == {"call_1": "sunny in Paris", "call_2": "sunny in Rome"}
    assert result.text == "done"


def test_a_completed_only_stream_of_text_is_that_text_once() -> None:
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Sunny everywhere.", "annotations": []}],
    }
    RAN.clear()
    server = Server(_sse([{"type": "response.created", "response": BASE}, _completed([message])]))
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    model = OpenAIResponsesModel("gpt-4.1", api_key="sk-test", http_client=client, stream=True, max_retries=0)
    result = toolwire.run_sync(model, "Weather?", tools=[get_weather])
    assert (result.text, len(result.turns), RAN) == ("Sunny everywhere.", 1, [])
    assert result.turns[0].response.stop_reason == "end_turn"


_MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Let me check.", "annotations": []}],
}
_TEXT_DELTA = {
    "type": "response.output_text.delta",
    "output_index": 0,
    "content_index": 0,
    "item_id": "msg_1",
    "delta": "Let me check.",
}
TEXT_THEN_COMPLETED = {
    # the message item announced, its text streamed and finished; the call only in response.completed
    "message-items": [
        {"type": "response.output_item.added", "output_index": 0, "item": {**_MESSAGE, "content": []}},
        _TEXT_DELTA,
        {"type": "response.output_item.done", "output_index": 0, "item": _MESSAGE},
    ],
    # only the text deltas, no item event at all
    "text-deltas-only": [_TEXT_DELTA],
}


@pytest.mark.parametrize("case", sorted(TEXT_THEN_COMPLETED))
def test_a_call_sent_only_in_the_completed_output_after_streamed_text_is_run(case: str) -> None:
    """A server that streams the answer's text but sends its function call only in
    ``response.completed``'s output: the call is read from there, run once and answered. Before,
    the turn ended with the text, stop reason ``tool_use`` and no call (the call was lost)."""
    events = [*TEXT_THEN_COMPLETED[case], _completed([_MESSAGE, _item(1, '{"city": "Paris"}', "completed")])]
    result, server = _run(events)
    assert RAN == ["Paris"]
    first = result.turns[0].response
    assert (first.text, first.stop_reason) == ("Let me check.", "tool_use")
    assert [(c.id, c.name, c.arguments, c.invalid) for c in first.tool_calls] == [
        ("call_1", "get_weather", {"city": "Paris"}, None)
    ]
    assert _outputs(server.bodies[1]) == {"call_1": "sunny in Paris"}
    assert result.text == "done"


def test_a_call_streamed_without_ids_is_not_read_again_from_the_completed_output() -> None:
    """A call announced without ``call_id`` or item ``id`` (it gets a synthesized id) and listed
    with ids in the completed output at the same index is one call: it runs once."""
    bare = {k: v for k, v in _item(0).items() if k not in ("id", "call_id")}
    events = [
        {"type": "response.output_item.added", "output_index": 0, "item": bare},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"city": "Paris"}'},
        _completed([_item(0, '{"city": "Paris"}', "completed")]),
    ]
    result, server = _run(events)
    assert RAN == ["Paris"]
    assert len(result.turns[0].response.tool_calls) == 1
