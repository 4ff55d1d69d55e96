"""What a Responses stream's terminal event carries in its ``response.output``.

Every terminal event of the stream (``response.completed``, ``response.incomplete``,
``response.failed``: ``ResponseCompletedEvent``/``ResponseIncompleteEvent``/``ResponseFailedEvent``
in ``openai.types.responses.response_stream_event``) holds the whole ``Response``, whose
``output`` is the list of every output item (``Response.output: List[ResponseOutputItem]``).
Some servers and proxies stream only part of the answer and leave the rest in that list. The
streamed answer is the same as the non-streamed answer of the terminal response, whichever the
terminal event, and a terminal ``output`` of the wrong JSON type is a ``ResponseDecodeError`` as
in a whole body. The real ``openai`` SDK sends and reads every request; only the network is
replaced (``httpx2.MockTransport``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from openai_wire import json_response, response_body, responses_sse

import toolwire
from toolwire.errors import ResponseDecodeError
from toolwire.tools import Tool
from toolwire.types import Message, ReasoningPart, Response, TextPart

RAN: list[str] = []


def get_weather(city: str) -> str:
    """Weather for a city."""
    RAN.append(city)
    return f"sunny in {city}"


WEATHER = Tool.from_function(get_weather)


def _message(item_id: str, text: str, status: str = "completed") -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": status,
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _call(arguments: str, status: str = "completed") -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": arguments,
        "status": status,
    }


REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Check the weather."}],
    "encrypted_content": "gAAAAB-opaque",
}

CREATED = {"type": "response.created", "sequence_number": 0, "response": response_body([], status="in_progress")}

#: (terminal event type, response status, incomplete_details.reason, stop_reason, vendor_stop_reason)
TERMINALS = [
    ("response.incomplete", "incomplete", "max_output_tokens", "max_tokens", "incomplete:max_output_tokens"),
    ("response.incomplete", "incomplete", "content_filter", "refusal", "incomplete:content_filter"),
    # a failed response without an error object (error: null): its output is still the answer
    ("response.failed", "failed", None, "error", "failed"),
    ("response.completed", "completed", None, "end_turn", "completed"),
]
IDS = ["incomplete-max_output_tokens", "incomplete-content_filter", "failed", "completed"]


def _terminal(kind: str, output: Any, status: str, reason: str | None, seq: int = 1) -> dict[str, Any]:
    body = response_body([], status=status, incomplete=reason)
    body["output"] = output
    return {"type": kind, "sequence_number": seq, "response": body}


def _model(responses_model: Any, *answers: Any, stream: bool = True) -> Any:
    queue = list(answers)
    return responses_model(lambda request: queue.pop(0), model_id="gpt-5", stream=stream, max_retries=0)


def _answer(responses_model: Any, answer: Any, stream: bool = True) -> Response:
    """The one answer of the model to one request (streamed and assembled when ``stream``)."""
    model = _model(responses_model, answer, stream=stream)
    return asyncio.run(model.send(model.build_request([Message.user("q")], tools=[WEATHER])))


@pytest.mark.parametrize("kind,status,reason,stop,vendor", TERMINALS, ids=IDS)
def test_items_only_in_the_terminal_output_are_the_answer(
    responses_model: Any, kind: str, status: str, reason: str | None, stop: str, vendor: str
) -> None:
    """A stream that gives nothing of the output before its terminal event: the terminal
    response's output is the answer, with the stop reason of its status and
    ``incomplete_details.reason``, as the non-streamed answer of the same body. Before, every
    terminal event but ``response.completed`` gave an empty answer."""
    output = [REASONING, _message("msg_1", "Partial answer")]
    terminal = _terminal(kind, output, status, reason)
    streamed = toolwire.run_sync(_model(responses_model, responses_sse([CREATED, terminal])), "q")
    whole = toolwire.run_sync(_model(responses_model, json_response(terminal["response"]), stream=False), "q")
    for result in (streamed, whole):
        resp = result.turns[0].response
        assert resp.text == "Partial answer"
        assert (resp.stop_reason, resp.vendor_stop_reason) == (stop, vendor)
        (thought,) = [p for p in resp.parts if isinstance(p, ReasoningPart)]
        assert thought.text == "Check the weather." and thought.encrypted == "gAAAAB-opaque"
    assert [type(p).__name__ for p in streamed.turns[0].response.parts] == ["ReasoningPart", "TextPart"]


def _streamed_text(oi: int, item: dict[str, Any], seq: int) -> list[dict[str, Any]]:
    """A message streamed as two text deltas under its item id, without its ``output_item.done``."""
    text = item["content"][0]["text"]
    base = {"output_index": oi, "item_id": item["id"], "content_index": 0}
    return [
        {
            "type": "response.output_item.added",
            "sequence_number": seq,
            "output_index": oi,
            "item": {**item, "content": [], "status": "in_progress"},
        },
        {"type": "response.output_text.delta", "sequence_number": seq + 1, **base, "delta": text[:5]},
        {"type": "response.output_text.delta", "sequence_number": seq + 2, **base, "delta": text[5:]},
    ]


@pytest.mark.parametrize("reason,stop", [("max_output_tokens", "max_tokens"), ("content_filter", "refusal")])
def test_a_cut_off_call_only_in_the_incomplete_output_is_kept_and_never_run(
    responses_model: Any, reason: str, stop: str
) -> None:
    """Streamed text, then a ``response.incomplete`` whose output also holds a ``function_call``
    the stream never gave, cut off mid-arguments (``status: incomplete``): the text once, the
    call kept as the non-streamed answer keeps it (incomplete, with why), and never run."""
    message = _message("msg_1", "Let me check.")
    call = _call('{"city": "Par', status="incomplete")
    terminal = _terminal("response.incomplete", [message, call], "incomplete", reason, seq=4)
    streamed = _answer(responses_model, responses_sse([CREATED, *_streamed_text(0, message, 1), terminal]))
    whole = _answer(responses_model, json_response(terminal["response"]), stream=False)
    for resp in (streamed, whole):
        assert resp.text == "Let me check." and resp.stop_reason == stop
        (got,) = resp.tool_calls
        assert (got.id, got.name, got.incomplete) == ("call_1", "get_weather", True)
        assert got.invalid is not None and got.invalid.startswith("cut off by the output-token limit")
        assert got.raw_arguments == '{"city": "Par'
    assert streamed.tool_calls[0].invalid == whole.tool_calls[0].invalid


def test_streamed_items_listed_under_proxy_ids_in_the_incomplete_output_come_once(responses_model: Any) -> None:
    """A proxy that gives the terminal items ids of its own and its own order: the streamed
    message is known by its text (as at ``response.completed``) and comes once; the reasoning
    item only in the output is added."""
    message = _message("msg_stream", "Half of the an")
    listed = [REASONING, {**_message("msg_proxy", "Half of the an"), "status": "incomplete"}]
    terminal = _terminal("response.incomplete", listed, "incomplete", "max_output_tokens", seq=4)
    result = toolwire.run_sync(
        _model(responses_model, responses_sse([CREATED, *_streamed_text(0, message, 1), terminal])), "q"
    )
    resp = result.turns[0].response
    assert [p.text for p in resp.parts if isinstance(p, TextPart)] == ["Half of the an"]
    assert [p.encrypted for p in resp.parts if isinstance(p, ReasoningPart)] == ["gAAAAB-opaque"]
    assert resp.stop_reason == "max_tokens"


def test_a_call_streamed_and_finished_before_response_incomplete_is_not_taken_twice(responses_model: Any) -> None:
    """A call the stream gave whole (its ``output_item.done``) and that the incomplete output
    lists again: one call, complete, with the arguments it streamed."""
    call = _call('{"city": "Paris"}')
    events = [
        CREATED,
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": {**call, "arguments": ""},
        },
        {"type": "response.output_item.done", "sequence_number": 2, "output_index": 0, "item": call},
        _terminal("response.incomplete", [call], "incomplete", "max_output_tokens", seq=3),
    ]
    (got,) = _answer(responses_model, responses_sse(events)).tool_calls
    assert (got.id, got.arguments, got.incomplete) == ("call_1", {"city": "Paris"}, False)


# ------------------------------------------------------------------ output of the wrong type


@pytest.mark.parametrize("kind,status,reason,stop,vendor", TERMINALS, ids=IDS)
@pytest.mark.parametrize("output", ["not a list", {"0": {"type": "message"}}, 7], ids=["string", "object", "number"])
def test_a_terminal_output_that_is_not_an_array_is_a_decode_error(
    responses_model: Any, kind: str, status: str, reason: str | None, stop: str, vendor: str, output: Any
) -> None:
    """``Response.output`` is a list (openai SDK type): a string, object or number there is a
    ResponseDecodeError naming ``/response/output``, as the non-streamed body's ``/output`` is.
    Before, the stream gave an empty answer."""
    terminal = _terminal(kind, output, status, reason)
    with pytest.raises(ResponseDecodeError) as streamed:
        toolwire.run_sync(_model(responses_model, responses_sse([CREATED, terminal])), "q")
    assert streamed.value.pointer == "/response/output"
    assert "an array" in str(streamed.value)
    with pytest.raises(ResponseDecodeError) as whole:
        toolwire.run_sync(_model(responses_model, json_response(terminal["response"]), stream=False), "q")
    assert whole.value.pointer == "/output"


@pytest.mark.parametrize("missing", ["null", "absent"])
@pytest.mark.parametrize(
    "kind,status,reason",
    [("response.completed", "completed", None), ("response.incomplete", "incomplete", "max_output_tokens")],
)
def test_a_terminal_without_output_keeps_the_streamed_items(
    responses_model: Any, missing: str, kind: str, status: str, reason: str | None
) -> None:
    """A proxy that streams every item and leaves the final list out (``null`` or no key): the
    streamed items are the answer."""
    message = _message("msg_1", "Streamed whole.")
    terminal = _terminal(kind, None, status, reason, seq=4)
    if missing == "absent":
        del terminal["response"]["output"]
    result = toolwire.run_sync(
        _model(responses_model, responses_sse([CREATED, *_streamed_text(0, message, 1), terminal])), "q"
    )
    assert result.text == "Streamed whole."


@pytest.mark.parametrize("missing", ["null", "absent"])
def test_a_terminal_without_output_after_a_stream_that_gave_nothing_is_a_decode_error(
    responses_model: Any, missing: str
) -> None:
    """No output item streamed and no ``output`` in ``response.completed``: there is no answer to
    use (a whole body without ``output`` is not an empty answer either), a ResponseDecodeError at
    ``/response/output``, not a silent empty answer. The run's earlier turns are kept in the
    error's ``run_state``."""
    RAN.clear()
    call = _call('{"city": "Paris"}')
    first = responses_sse(
        [
            CREATED,
            {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": call},
            {"type": "response.output_item.done", "sequence_number": 2, "output_index": 0, "item": call},
            _terminal("response.completed", [call], "completed", None, seq=3),
        ]
    )
    terminal = _terminal("response.completed", None, "completed", None)
    if missing == "absent":
        del terminal["response"]["output"]
    model = _model(responses_model, first, responses_sse([CREATED, terminal]))
    with pytest.raises(ResponseDecodeError) as info:
        toolwire.run_sync(model, "q", tools=[get_weather])
    assert info.value.pointer == "/response/output"
    assert RAN == ["Paris"]
    state = info.value.run_state
    assert state is not None and state.status == "failed"
    assert [t.interrupted for t in state.turns] == [None, "failed"]
    assert [r.result.content for r in state.turns[0].tool_runs] == ["sunny in Paris"]
    results = [m for m in state.conversation.messages if m.role == "user" and m.tool_results]
    assert [r.content for m in results for r in m.tool_results] == ["sunny in Paris"]
    # the second request carried the call and its result
    assert [i["type"] for i in model.sent[1].json["input"][1:]] == ["function_call", "function_call_output"]
    assert json.loads(model.sent[1].json["input"][1]["arguments"]) == {"city": "Paris"}


def test_a_failed_response_without_output_or_error_is_an_error_stop(responses_model: Any) -> None:
    """``response.failed`` with neither ``output`` nor an ``error`` object: as the whole body, an
    answer whose stop reason is ``error`` (status ``failed``), not a decode error."""
    terminal = _terminal("response.failed", None, "failed", None)
    resp = toolwire.run_sync(_model(responses_model, responses_sse([CREATED, terminal])), "q").turns[0].response
    assert (resp.stop_reason, resp.vendor_stop_reason, resp.parts) == ("error", "failed", [])
    whole = toolwire.run_sync(_model(responses_model, json_response(terminal["response"]), stream=False), "q")
    assert (whole.turns[0].response.stop_reason, whole.turns[0].response.parts) == ("error", [])


def _open_call(arguments: str, seq: int = 1) -> list[dict[str, Any]]:
    """A ``function_call`` announced and given its argument deltas, without its ``output_item.done``."""
    call = _call(arguments)
    return [
        {
            "type": "response.output_item.added",
            "sequence_number": seq,
            "output_index": 0,
            "item": {**call, "arguments": "", "status": "in_progress"},
        },
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": seq + 1,
            "output_index": 0,
            "item_id": "fc_1",
            "delta": arguments,
        },
    ]


@pytest.mark.parametrize("kind,status,reason,stop", [t[:4] for t in TERMINALS[:3]], ids=IDS[:3])
def test_a_call_left_open_is_ended_by_its_finished_item_in_the_terminal_output(
    responses_model: Any, kind: str, status: str, reason: str | None, stop: str
) -> None:
    """A call whose deltas came but not its ``output_item.done``, then a terminal event that is not
    ``response.completed`` (the answer was cut later, in a message) whose output lists the call
    finished (``status: completed``): the call is complete, as in the non-streamed answer. Before,
    the stream marked it incomplete ("the output-token limit cut this tool call off")."""
    cut = {**_message("msg_1", "And th"), "status": "incomplete"}
    terminal = _terminal(kind, [_call('{"city": "Paris"}'), cut], status, reason, seq=3)
    streamed = _answer(responses_model, responses_sse([CREATED, *_open_call('{"city": "Paris"}'), terminal]))
    whole = _answer(responses_model, json_response(terminal["response"]), stream=False)
    for resp in (streamed, whole):
        assert resp.stop_reason == stop
        (got,) = resp.tool_calls
        assert (got.id, got.arguments, got.incomplete, got.invalid) == ("call_1", {"city": "Paris"}, False, None)
    assert streamed.text == whole.text == "And th"


def test_a_call_left_open_with_its_arguments_done_is_complete_at_response_incomplete(responses_model: Any) -> None:
    """``function_call_arguments.done`` gives the final arguments
    (``ResponseFunctionCallArgumentsDoneEvent.arguments``): the call is complete even when the
    incomplete output leaves it out."""
    done = {
        "type": "response.function_call_arguments.done",
        "sequence_number": 3,
        "output_index": 0,
        "item_id": "fc_1",
        "arguments": '{"city": "Paris"}',
    }
    terminal = _terminal("response.incomplete", [], "incomplete", "max_output_tokens", seq=4)
    resp = _answer(responses_model, responses_sse([CREATED, *_open_call('{"city": "Paris"}'), done, terminal]))
    (got,) = resp.tool_calls
    assert (got.arguments, got.incomplete) == ({"city": "Paris"}, False)


@pytest.mark.parametrize("listed", ["absent", "cut"])
def test_a_call_left_open_with_only_its_deltas_stays_cut_off_at_response_incomplete(
    responses_model: Any, listed: str
) -> None:
    """Only deltas, and the incomplete output leaves the call out or lists it cut off
    (``status: incomplete``): incomplete, never run, as before."""
    output = [] if listed == "absent" else [_call('{"city": "Pa', status="incomplete")]
    terminal = _terminal("response.incomplete", output, "incomplete", "max_output_tokens", seq=3)
    resp = _answer(responses_model, responses_sse([CREATED, *_open_call('{"city": "Pa'), terminal]))
    (got,) = resp.tool_calls
    assert got.incomplete and got.arguments is None and got.raw_arguments == '{"city": "Pa'
    assert resp.stop_reason == "max_tokens"
