"""How a Chat Completions stream ends: ``data: [DONE]`` after chunks that never carried a choice.

``[DONE]`` closes a stream that gave its answer without a ``finish_reason`` (some servers send
none), but it is not an answer by itself: a stream of ``[DONE]`` alone, or of usage chunks with
empty ``choices`` then ``[DONE]``, delivered nothing of the answer (a whole body without choices
is refused: "the response has no choices"). It is a stream cut before its answer, retried as one,
never an empty answer. The real ``openai`` SDK reads every request; only the network is replaced.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openai_wire import chat_sse

import toolwire
from toolwire.errors import ProviderError
from toolwire.types import Message

BASE = {"id": "chatcmpl-E1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
USAGE_ONLY = {**BASE, "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 0, "total_tokens": 12}}
#: Azure OpenAI's first chunk: no choice, the prompt's filter results
PROMPT_FILTER = {**BASE, "choices": [], "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}]}
ANSWER = [
    {**BASE, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hello"}, "finish_reason": None}]},
    {**BASE, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
]

EMPTY_STREAMS = {"done-only": [], "usage-only": [USAGE_ONLY], "prompt-filter-only": [PROMPT_FILTER, USAGE_ONLY]}


@pytest.mark.parametrize("chunks", EMPTY_STREAMS.values(), ids=EMPTY_STREAMS.keys())
def test_done_after_no_choice_is_a_cut_stream_not_an_empty_answer(chat_model: Any, chunks: list[Any]) -> None:
    """Before, such a stream was an empty answer (stop reason ``end_turn``) and the run ended
    with no text."""
    model = chat_model(lambda r: chat_sse(chunks), stream=True, max_retries=0)
    with pytest.raises(ProviderError, match="ended before the response was complete") as info:
        toolwire.run_sync(model, "hi")
    assert info.value.retryable
    assert info.value.run_state is not None


@pytest.mark.parametrize("chunks", EMPTY_STREAMS.values(), ids=EMPTY_STREAMS.keys())
def test_done_after_no_choice_is_retried_and_the_next_answer_used(chat_model: Any, chunks: list[Any]) -> None:
    answers = [chat_sse(chunks), chat_sse(ANSWER)]
    model = chat_model(
        lambda r: answers.pop(0), stream=True, max_retries=1, retry={"initial_delay": 0.0, "jitter": 0.0}
    )
    result = toolwire.run_sync(model, "hi")
    assert result.text == "Hello" and len(model.sent) == 2


def test_done_after_a_choice_without_finish_reason_is_still_the_answer(chat_model: Any) -> None:
    """A choice's deltas, then ``[DONE]`` with no ``finish_reason`` (NVIDIA NIM, some gateways):
    the answer, as before."""
    chunks = [ANSWER[0], USAGE_ONLY]
    model = chat_model(lambda r: chat_sse(chunks), stream=True, max_retries=0)
    resp = asyncio.run(model.send(model.build_request([Message.user("hi")])))
    assert (resp.text, resp.stop_reason, resp.vendor_stop_reason) == ("Hello", "end_turn", None)
    assert resp.usage.input_tokens == 12
