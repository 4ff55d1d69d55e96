"""Anthropic-compatible servers that write ``input_tokens: 0`` in ``message_delta``.

The Messages API's ``message_delta.usage`` counters are cumulative: its input-side counters repeat
the ``message_start`` values (``anthropic.types.MessageDeltaUsage``). Some compatible servers
write ``0`` there instead: SGLang's ``/v1/messages`` ("Set ``input_tokens=0`` in ``message_delta``
usage", sgl-project/sglang#20830; "The message_delta event typically has input_tokens=0 ... which
overwrites the correct input token count", envoyproxy/ai-gateway#1631). toolwire took the delta's
counters as they came, so such a streamed turn reported 0 input tokens (and 0 cache reads).

Now a 0 in ``message_delta`` does not replace an input-side count ``message_start`` gave; a
real count there (a server that sends 0 in ``message_start`` and the count at the end) still
replaces it. The real ``anthropic`` SDK reads the stream; only the network is replaced.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from toolwire_anthropic import AnthropicModel

from toolwire.adapter import collect_stream
from toolwire.types import Message


def _events(start_usage: dict[str, Any], delta_usage: dict[str, Any]) -> httpx2.Response:
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": start_usage,
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": delta_usage},
        {"type": "message_stop"},
    ]
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def _usage(answer: httpx2.Response) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda request: answer))
    model = AnthropicModel("claude-sonnet-4-5", api_key="k", http_client=client, max_retries=0, stream=True)
    request = model.build_request([Message.user("hi")])
    return asyncio.run(collect_stream(model.send_stream(request), model.provider)).usage


@pytest.mark.parametrize(
    "delta_usage",
    [
        {"input_tokens": 0, "output_tokens": 9},  # SGLang
        {"input_tokens": 0, "output_tokens": 9, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
    ],
)
def test_a_zero_in_message_delta_keeps_the_message_start_counts(delta_usage: dict[str, Any]) -> None:
    start = {"input_tokens": 15, "output_tokens": 1, "cache_read_input_tokens": 40, "cache_creation_input_tokens": 5}
    usage = _usage(_events(start, delta_usage))
    assert usage.input_tokens == 15 + 40 + 5  # toolwire's input includes the cache reads and writes
    assert (usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens) == (40, 5, 9)


def test_a_count_at_the_end_replaces_a_zero_at_the_start() -> None:
    # servers that know the prompt's size only at the end (sgl-project/sglang#20678, ollama/ollama#13934)
    usage = _usage(_events({"input_tokens": 0, "output_tokens": 0}, {"input_tokens": 74, "output_tokens": 62}))
    assert (usage.input_tokens, usage.output_tokens) == (74, 62)


def test_the_api_s_repeated_counts_are_taken_as_they_are() -> None:
    start = {"input_tokens": 8, "output_tokens": 1, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    delta = {"input_tokens": 8, "output_tokens": 16, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    usage = _usage(_events(start, delta))
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (8, 16, 0)
