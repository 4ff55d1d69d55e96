"""How an Anthropic stream ends when its opening never came.

A message stream opens with ``message_start`` (the SDK's own accumulator refuses any other event
first: ``anthropic.lib.streaming._messages``, 'Unexpected event order, got ... before
"message_start"'). A ``message_stop`` with nothing before it (no ``message_start``, no block, no
stop reason) delivered nothing of an answer: a stream cut before its answer, retried as one, never
an empty answer. A stream that opened and stopped without content is the model's empty answer, as
before. The real ``anthropic`` SDK reads every request; only the network is replaced.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire.errors import ProviderError
from toolwire.types import Message

START = {
    "type": "message_start",
    "message": {
        "id": "msg_01END",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1},
    },
}
TEXT = [
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}},
    {"type": "content_block_stop", "index": 0},
]
DELTA = {
    "type": "message_delta",
    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
    "usage": {"output_tokens": 3},
}
STOP = {"type": "message_stop"}
PING = {"type": "ping"}

NOTHING_BEFORE_STOP = {"stop-only": [STOP], "ping-then-stop": [PING, STOP]}


@pytest.mark.parametrize("events", NOTHING_BEFORE_STOP.values(), ids=NOTHING_BEFORE_STOP.keys())
def test_message_stop_with_nothing_before_it_is_a_cut_stream(mock_model: Any, wire: Any, events: list[Any]) -> None:
    """Before, such a stream was an empty answer (stop reason ``end_turn``)."""
    model = mock_model([wire.sse_response(events)], stream=True)
    with pytest.raises(ProviderError, match="ended before the response was complete") as info:
        toolwire.run_sync(model, "hi")
    assert info.value.retryable and info.value.run_state is not None


@pytest.mark.parametrize("events", NOTHING_BEFORE_STOP.values(), ids=NOTHING_BEFORE_STOP.keys())
def test_message_stop_with_nothing_before_it_is_retried(mock_model: Any, wire: Any, events: list[Any]) -> None:
    answers = [wire.sse_response(events), wire.sse_response([START, *TEXT, DELTA, STOP])]
    model = mock_model(answers, stream=True, max_retries=1, retry={"initial_delay": 0.0, "jitter": 0.0})
    assert toolwire.run_sync(model, "hi").text == "Hello"
    assert len(model.sent) == 2


@pytest.mark.parametrize(
    "events,stop",
    [([START, DELTA, STOP], "end_turn"), ([START, STOP], "end_turn"), ([START, *TEXT, DELTA], "end_turn")],
    ids=["start-delta-stop", "start-stop", "no-message_stop"],
)
def test_a_stream_that_opened_is_the_answer(mock_model: Any, wire: Any, events: list[Any], stop: str) -> None:
    """An opened message that stops without content is the model's (empty) answer, and one with a
    stop reason but no ``message_stop`` is complete, as before."""
    model = mock_model([wire.sse_response(events)], stream=True)
    resp = asyncio.run(model.send(model.build_request([Message.user("hi")])))
    assert resp.stop_reason == stop and resp.response_id == "msg_01END"
    assert resp.text == ("Hello" if TEXT[0] in events else "")
