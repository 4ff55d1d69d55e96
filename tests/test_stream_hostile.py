"""Hostile streams on all four APIs, through the real SDKs with only the network replaced
(``httpx2.MockTransport``): a vendor's error event that comes after the events that only open a
stream (before any part of the answer) is retried like one that comes first."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import events as ev

sys.path.insert(0, str(Path(__file__).parent))
from test_events_all_apis import TEXT2, _sse, get_weather, streamed

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
NO_JITTER = {"initial_delay": 0.0, "jitter": 0.0}


def _opening(api: str) -> list[tuple[str | None, Any]]:
    """The events each API sends before the first part of an answer: Anthropic's
    ``message_start``, a ``ping`` and an empty text block; Responses ``response.created`` and
    ``response.in_progress``; a Chat chunk with its role and an empty content; a Gemini chunk of
    usage alone."""
    if api == "anthropic":
        message = {
            "id": "msg_0",
            "type": "message",
            "role": "assistant",
            "model": "m-1",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 999, "output_tokens": 1, "cache_read_tokens": 0},
        }
        return [
            ("message_start", {"type": "message_start", "message": message}),
            ("ping", {"type": "ping"}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
        ]
    if api == "openai-chat":
        head = {"id": "c0", "object": "chat.completion.chunk", "created": 1, "model": "m-0"}
        return [(None, {**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})]
    if api == "openai":
        base = {"id": "resp_0", "object": "response", "created_at": 1, "model": "m-0", "output": []}
        return [
            ("response.created", {"type": "response.created", "response": {**base, "status": "in_progress"}}),
            ("response.in_progress", {"type": "response.in_progress", "response": {**base, "status": "in_progress"}}),
        ]
    return [(None, {"usageMetadata": {"promptTokenCount": 999}, "modelVersion": "m-0", "responseId": "r0"})]


def _error(api: str) -> tuple[str | None, Any]:
    """Each vendor's own retryable error event: Anthropic's streamed ``error`` event with
    ``overloaded_error``; Responses ``error`` with code ``server_error``; a Chat chunk with an
    ``error`` object with a 503 code; a Gemini ``error`` chunk ``UNAVAILABLE``."""
    if api == "anthropic":
        return ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    if api == "openai-chat":
        return (None, {"error": {"code": 503, "message": "The server is overloaded", "type": "server_error"}})
    if api == "openai":
        return (
            "error",
            {
                "type": "error",
                "code": "server_error",
                "message": "The server had an error while processing your request.",
                "param": None,
                "sequence_number": 2,
            },
        )
    return (None, {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}})


def _first_delta(api: str) -> list[tuple[str | None, Any]]:
    """One text delta, "It is"."""
    if api == "anthropic":
        return [
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "It is"}},
            )
        ]
    if api == "openai-chat":
        chunk = {"id": "c0", "object": "chat.completion.chunk", "created": 1, "model": "m-0"}
        return [(None, {**chunk, "choices": [{"index": 0, "delta": {"content": "It is"}}]})]
    if api == "openai":
        item = {"type": "message", "id": "msg_0", "role": "assistant", "status": "in_progress", "content": []}
        delta = {"type": "response.output_text.delta", "item_id": "msg_0", "output_index": 0, "content_index": 0}
        return [
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
            ("response.output_text.delta", {**delta, "delta": "It is"}),
        ]
    return [(None, {"candidates": [{"content": {"role": "model", "parts": [{"text": "It is"}]}, "index": 0}]})]


def _model(api: str, answers: list[bytes], seen: list[Any]) -> Any:
    def respond(request: Any) -> Any:
        seen.append(json.loads(request.content))
        return httpx2.Response(200, content=answers.pop(0), headers={"content-type": "text/event-stream"})

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{api}:m-1", api_key="k", retry=NO_JITTER, http_client=client, stream=True)


@pytest.mark.parametrize("api", APIS)
def test_an_error_event_after_the_opening_events_is_retried(api: str) -> None:
    seen: list[Any] = []
    model = _model(api, [_sse([*_opening(api), _error(api)]), streamed(api, 2)], seen)

    async def main() -> tuple[list[Any], Any]:
        stream = toolwire.run_stream(model, "Weather?", tools=[get_weather])
        return [e async for e in stream], stream

    events, stream = asyncio.run(main())
    assert len(seen) == 2
    retries = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert [(r.turn, r.attempt) for r in retries] == [(1, 2)]
    result = stream.result
    assert result.text == TEXT2 and len(result.turns) == 1
    # the answer is the second attempt's alone: its id, model and usage, none of the failed one's
    response = result.turns[0].response
    assert (response.usage.input_tokens, response.usage.output_tokens) == (20, 7)
    assert response.usage.cache_read_tokens is None
    assert response.model == (None if api == "gemini" else "m-1")  # (the second answer names none on Gemini)
    assert response.response_id not in ("msg_0", "c0", "resp_0", "r0")
    assert "".join(e.text for e in events if isinstance(e, ev.TextDelta)) == TEXT2


@pytest.mark.parametrize("api", APIS)
def test_an_error_event_after_a_part_of_the_answer_is_raised_with_the_part_kept(api: str) -> None:
    seen: list[Any] = []
    model = _model(api, [_sse([*_opening(api), *_first_delta(api), _error(api)]), streamed(api, 2)], seen)

    async def main() -> tuple[list[Any], Any, toolwire.errors.ProviderError | None]:
        stream = toolwire.run_stream(model, "Weather?", tools=[get_weather])
        got: list[Any] = []
        try:
            async for e in stream:
                got.append(e)
        except toolwire.errors.ProviderError as exc:
            return got, stream, exc
        return got, stream, None

    events, stream, exc = asyncio.run(main())
    assert exc is not None and exc.retryable and len(seen) == 1  # retryable, but not sent again
    assert [e.text for e in events if isinstance(e, ev.TextDelta)] == ["It is"]
    state = stream.state
    assert state.status == "failed" and [t.response.text for t in state.turns] == ["It is"]
    assert state.turns[0].interrupted is not None


#: OpenAI's error objects sent without an HTTP status (in a stream, or in a 200 body) with the
#: type or code of a transient failure (``openai.types.responses.ResponseError.code``
#: ``server_error`` / ``rate_limit_exceeded``; a 429's body has ``type: "requests"``,
#: ``code: "rate_limit_exceeded"``)
OPENAI_TRANSIENT = [
    {"message": "The server had an error while processing your request.", "type": "server_error", "param": None},
    {"message": "Rate limit reached for requests", "type": "requests", "param": None, "code": "rate_limit_exceeded"},
]


def _openai_error_first(api: str, err: dict[str, Any]) -> bytes:
    if api == "openai-chat":  # the chunk the openai SDK reads as an error: {"error": {...}}
        return _sse([(None, {"error": err})])
    return _sse([("error", {"type": "error", "sequence_number": 0, "error": err})])


@pytest.mark.parametrize("err", OPENAI_TRANSIENT, ids=["server_error", "rate_limit_exceeded"])
@pytest.mark.parametrize("api", ["openai-chat", "openai"])
def test_openai_transient_error_objects_without_a_status_are_retried_on_both_apis(api: str, err: Any) -> None:
    seen: list[Any] = []
    model = _model(api, [_openai_error_first(api, err), streamed(api, 2)], seen)
    result = asyncio.run(toolwire.run(model, "Weather?", tools=[get_weather]))
    assert result.text == TEXT2 and len(seen) == 2
    # the same error as a 200 body: the same answer
    from toolwire_openai.chat import OpenAIChatCodec
    from toolwire_openai.responses import OpenAIResponsesCodec

    codec = OpenAIChatCodec() if api == "openai-chat" else OpenAIResponsesCodec()
    with pytest.raises(toolwire.errors.ProviderError) as info:
        codec.decode_response({"error": err})
    assert info.value.retryable and info.value.status is None


def test_a_statusless_server_error_that_says_the_request_cannot_be_served_is_not_retried() -> None:
    # llama.cpp's final 500 text, in a chunk without the code: its message decides, as with the code
    message = "The model produced output that does not match the expected Hermes 2 Pro format"
    seen: list[Any] = []
    model = _model("openai-chat", [_sse([(None, {"error": {"message": message, "type": "server_error"}})])], seen)
    with pytest.raises(toolwire.errors.ProviderError) as info:
        asyncio.run(toolwire.run(model, "Weather?", tools=[get_weather]))
    assert not info.value.retryable and info.value.message == message and len(seen) == 1


# -- approval policies that misbehave ----------------------------------------------------------


class _NoTruth:
    """A value whose truth cannot be told (as a numpy array of several values)."""

    def __bool__(self) -> bool:
        raise ValueError("The truth value of an array with more than one element is ambiguous.")


def _bank(ran: list[str]) -> list[Any]:
    @toolwire.tool
    def balance() -> str:
        """Read the balance."""
        ran.append("balance")
        return "100"

    @toolwire.tool
    def transfer(amount: int) -> str:
        """Move money."""
        ran.append("transfer")
        return "moved"

    return [balance, transfer]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (
            _NoTruth(),
            "the approval policy raised ValueError: The truth value of an array with more than one element is "
            "ambiguous. (telling whether its answer _NoTruth is true); decide this call yourself",
        ),
        (
            toolwire.Approved(),
            "the approval policy returned Approved(arguments=None), not true, false or a reason text (a policy says "
            "which calls wait; decisions= answers them); decide this call yourself",
        ),
        (
            toolwire.Denied("too much"),
            "the approval policy returned Denied(reason='too much'), not true, false or a reason text (a policy says "
            "which calls wait; decisions= answers them); decide this call yourself",
        ),
    ],
    ids=["no-truth-value", "Approved", "Denied"],
)
def test_an_approval_policy_answer_that_is_no_truth_value_fails_closed(answer: Any, reason: str) -> None:
    from toolwire.testing import ScriptedModel, call

    ran: list[str] = []
    result = toolwire.run_sync(
        ScriptedModel(responses=[[call("balance", {}, id="c1"), call("transfer", {"amount": 500}, id="c2")], "ok"]),
        "pay",
        tools=_bank(ran),
        approval=lambda c: answer if c.name == "transfer" else False,
    )
    assert result.stop_reason == "pending" and ran == ["balance"]
    assert [(p.call.id, p.kind, p.reason) for p in result.pending] == [("c2", "approval", reason)]
