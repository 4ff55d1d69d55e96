"""The core transport base (toolwire.transport.Transport) and the shared Stainless error mapping."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from toolwire.adapter import ModelRequest
from toolwire.errors import ProviderError, RequestRefused, ResponseDecodeError
from toolwire.profile import Profile, Violation
from toolwire.stream import StopEvent, TextDelta
from toolwire.transport import END, SKIP, SSEEvent, StreamDecoder, Transport, event_json, stainless_error
from toolwire.types import Message, Response, TextPart

httpx2 = pytest.importorskip("httpx2")


class _Codec:
    api = "acme"

    def encode_request(self, request: ModelRequest) -> dict[str, Any]:
        return {"model": request.model, "n": len(request.messages)}

    def decode_response(self, body: dict[str, Any], request: Any = None) -> Response:
        return Response(
            parts=[TextPart(body["text"])], stop_reason="end_turn", vendor_stop_reason="done", provider="acme"
        )


class _Decoder:
    def __init__(self) -> None:
        self.text = ""

    def feed(self, data: Any) -> list[Any]:
        self.text += data["t"]
        return [TextDelta(0, data["t"])]

    def finish(self) -> list[Any]:
        return [StopEvent("end_turn", "done")]


class AcmeTransport(Transport):
    provider = "acme"

    def __init__(self, answers: list[Any], **settings: Any) -> None:
        super().__init__("m1", **settings)
        self.codec = _Codec()
        self.answers = list(answers)
        self.posted: list[tuple[dict[str, Any], bool]] = []

    async def post(self, body: dict[str, Any], *, stream: bool, request: ModelRequest) -> Any:
        self.posted.append((dict(body), stream))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def stream_decoder(self, request: ModelRequest) -> StreamDecoder:
        return _Decoder()

    def event_data(self, sse: SSEEvent) -> Any:
        if sse.event == "ping":
            return SKIP
        if sse.event == "error":
            raise ProviderError("acme", sse.data, status=None)
        return END if sse.data == "[DONE]" else event_json("acme", sse)


def _json(body: Any) -> Any:
    return httpx2.Response(200, headers={"content-type": "application/json"}, content=json.dumps(body).encode())


def _sse(*events: tuple[str | None, str]) -> Any:
    text = "".join((f"event: {n}\n" if n else "") + f"data: {d}\n\n" for n, d in events)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=text.encode())


def _req(stream: bool = False) -> ModelRequest:
    return ModelRequest(model="m1", messages=[Message("user", [TextPart("hi")])], stream=stream)


def test_send_json_and_stream_answers_the_same_way() -> None:
    t = AcmeTransport(
        [
            _json({"text": "hello"}),
            _sse(("ping", "{}"), (None, '{"t": "hel"}'), (None, '{"t": "lo"}'), (None, "[DONE]"), (None, '{"t": "x"}')),
        ]
    )
    a = asyncio.run(t.send(_req()))
    b = asyncio.run(t.send(_req(stream=True)))  # streamed and assembled
    assert a.text == b.text == "hello"
    assert (
        [p[1] for p in t.posted] == [False, True]
        and t.posted[1][0]["stream"] is True
        and "stream" not in t.posted[0][0]
    )


def test_send_stream_yields_events_and_replays_a_json_answer() -> None:
    t = AcmeTransport([_sse((None, '{"t": "a"}'), (None, '{"t": "b"}')), _json({"text": "whole"})])

    async def go() -> list[Any]:
        return [ev async for ev in t.send_stream(_req())]

    evs = asyncio.run(go())
    assert [e.text for e in evs if isinstance(e, TextDelta)] == ["a", "b"] and isinstance(evs[-1], StopEvent)
    evs2 = asyncio.run(go())
    assert "".join(e.text for e in evs2 if isinstance(e, TextDelta)) == "whole"


def test_errors_are_mapped_and_error_events_raise() -> None:
    # max_retries=0: one attempt each (the retry policy itself is tested in tests/test_retry.py)
    t = AcmeTransport([OSError("connection reset"), _sse(("error", "overloaded")), _json([1, 2])], max_retries=0)
    with pytest.raises(ProviderError) as info:
        asyncio.run(t.send(_req()))
    assert info.value.error_type == "connection_error" and "connection reset" in str(info.value)
    with pytest.raises(ProviderError, match="overloaded"):
        asyncio.run(t.send(_req(stream=True)))
    with pytest.raises(ResponseDecodeError):
        asyncio.run(t.send(_req()))


def test_refused_request_is_never_posted(monkeypatch: pytest.MonkeyPatch) -> None:
    class Refuse(Profile):
        def check_request(self, body: dict[str, Any], *, start: int = 0) -> list[Violation]:
            return [Violation("acme.x", "/n", "planted")]

    monkeypatch.setattr(AcmeTransport, "make_profile", classmethod(lambda cls, **s: Refuse(api="acme")))
    t = AcmeTransport([_json({"text": "never"})])
    with pytest.raises(RequestRefused):
        asyncio.run(t.send(_req()))
    assert t.posted == []


# -- the Stainless mapping on both SDKs generated by the same tool ----------------------------------


def _status_error(sdk: Any, status: int, body: Any, headers: dict[str, str] | None = None) -> Any:
    req = httpx2.Request("POST", "https://api.example.test/v1/x")
    resp = httpx2.Response(status, headers=headers or {}, request=req, content=json.dumps(body).encode())
    return sdk.APIStatusError("sdk text", response=resp, body=body)


@pytest.mark.parametrize("sdk_name", ["anthropic", "openai"])
def test_stainless_mapping_is_the_same_on_both_sdks(sdk_name: str) -> None:
    sdk = pytest.importorskip(sdk_name)
    body = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    err = stainless_error("x", _status_error(sdk, 429, body), sdk)
    assert (err.status, err.message, err.error_type, err.retryable) == (429, "slow down", "rate_limit_error", True)
    err = stainless_error("x", _status_error(sdk, 500, body, {"x-should-retry": "false"}), sdk)
    assert err.retryable is False and err.status == 500
    err = stainless_error("x", _status_error(sdk, 400, {"error": {"code": "invalid_value", "message": "bad"}}), sdk)
    assert (err.error_type, err.retryable) == ("invalid_value", False)
    err = stainless_error("x", _status_error(sdk, 200, body), sdk, stream_retryable_types={"rate_limit_error"})
    assert err.status is None and err.retryable is True
    req = httpx2.Request("POST", "https://api.example.test/v1/x")
    err = stainless_error("x", sdk.APITimeoutError(request=req), sdk)
    assert (err.error_type, err.retryable, err.status) == ("timeout", True, None)
    conn = sdk.APIConnectionError(request=req)
    conn.__cause__ = OSError("reset by peer")
    err = stainless_error("x", conn, sdk)
    assert err.error_type == "connection_error" and "reset by peer" in err.message
    assert stainless_error("x", KeyError("odd"), sdk).error_type == "connection_error"
