"""A Responses answer whose ``status`` is ``failed`` — a whole body, or the ``response`` of a
streamed ``response.failed`` — may carry the ``usage`` of the failed response
(``ResponseFailedEvent.response`` is a ``Response``, whose ``usage`` is optional, openai
``types/responses/``). Those counts go with the error (``ProviderError.usage``) and the retry's
event, never into the answer's usage. The real ``openai`` SDK, only the network replaced."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openai_wire import json_response, response_body, responses_sse

import toolwire
from toolwire import events as ev
from toolwire.errors import ProviderError

FAILED_USAGE = {
    "input_tokens": 55,
    "input_tokens_details": {"cached_tokens": 5},
    "output_tokens": 3,
    "output_tokens_details": {"reasoning_tokens": 2},
    "total_tokens": 58,
}
MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
}


def _failed_body() -> dict[str, Any]:
    return response_body([], status="failed", usage=FAILED_USAGE, rid="resp_F") | {
        "error": {"code": "server_error", "message": "The server had an error."}
    }


def _failed_stream() -> Any:
    created = response_body([], status="in_progress", rid="resp_F") | {"usage": None}
    return responses_sse(
        [
            {"type": "response.created", "sequence_number": 0, "response": created},
            {"type": "response.failed", "sequence_number": 1, "response": _failed_body()},
        ]
    )


def _answer_stream() -> Any:
    final = response_body([MESSAGE])
    return responses_sse(
        [
            {"type": "response.created", "sequence_number": 0, "response": final | {"status": "in_progress"}},
            {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": MESSAGE},
            {"type": "response.output_item.done", "sequence_number": 2, "output_index": 0, "item": MESSAGE},
            {"type": "response.completed", "sequence_number": 3, "response": final},
        ]
    )


def _model(responses_model: Any, answers: list[Any], stream: bool) -> Any:
    answers = list(answers)
    return responses_model(
        lambda request: answers.pop(0), stream=stream, max_retries=2, retry={"initial_delay": 0.0, "jitter": 0.0}
    )


async def _events(model: Any) -> tuple[list[Any], Any, ProviderError | None]:
    stream = toolwire.run_stream(model, "hi")
    got: list[Any] = []
    try:
        async for e in stream:
            got.append(e)
    except ProviderError as exc:
        return got, stream, exc
    return got, stream, None


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_failed_response_s_usage_goes_with_its_retry_not_into_the_answer(responses_model: Any, stream: bool) -> None:
    failed = _failed_stream() if stream else json_response(_failed_body())
    answer = _answer_stream() if stream else json_response(response_body([MESSAGE]))
    events, run, exc = asyncio.run(_events(_model(responses_model, [failed, answer], stream)))
    assert exc is None
    (retry,) = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert retry.usage is not None
    u = retry.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.reasoning_tokens, u.requests) == (55, 3, 5, 2, 1)
    usage = run.result.usage  # the answer's alone
    assert (usage.input_tokens, usage.output_tokens, usage.requests) == (80, 20, 1)
    assert run.result.text == "Done."


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_last_failed_response_s_usage_is_on_the_error(responses_model: Any, stream: bool) -> None:
    failed = _failed_stream if stream else lambda: json_response(_failed_body())
    events, run, exc = asyncio.run(_events(_model(responses_model, [failed(), failed(), failed()], stream)))
    assert exc is not None and exc.attempts == 3 and exc.error_type == "server_error"
    assert str(exc).endswith("The server had an error. (retryable); failed after 3 attempts (max_attempts=3)")
    assert exc.usage is not None and (exc.usage.input_tokens, exc.usage.output_tokens) == (55, 3)
    assert [(e.usage.input_tokens if e.usage else None) for e in events if isinstance(e, ev.RetryScheduled)] == [
        55,
        55,
    ]
    assert run.state.usage.total_tokens == 0 and run.state.usage.requests == 0
