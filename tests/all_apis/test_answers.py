"""Answers that are not what the API documents, on all four APIs alike, through the real SDKs
(``anthropic``, ``openai``, ``google-genai``) with only the network replaced by
``httpx2.MockTransport``. The rule set lives in the core module ``toolwire.transport``, shared by the adapters
package (checked here); the documented behaviour is on ``docs/adapters/*.md`` ("Answers that are
not what the API documents")."""

from __future__ import annotations

import asyncio
import gzip
import json
from typing import Any, Callable

import httpx2
import pytest

import toolwire
from toolwire import Message
from toolwire.errors import ProviderError, ResponseDecodeError

from .answers import APIS, text_answer

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_gemini")

PROVIDER = {"anthropic": "anthropic", "openai-chat": "openai-chat", "openai": "openai", "gemini": "gemini"}


# -- wire builders (the vendors' documented formats) ---------------------------------------------


def ok_events(api: str, text: str = "hello") -> list[tuple[str | None, dict[str, Any] | str]]:
    """``(event name, data)`` pairs of a streamed answer carrying ``text``."""
    if api == "anthropic":
        start = {
            "id": "msg_01A",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 3, "output_tokens": 0},
        }
        evs = [
            {"type": "message_start", "message": start},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
            {"type": "message_stop"},
        ]
        return [(e["type"], e) for e in evs]
    if api == "openai-chat":
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x"}
        return [
            (
                None,
                dict(
                    base, choices=[{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]
                ),
            ),
            (None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}])),
            (None, "[DONE]"),
        ]
    if api == "openai":
        resp = text_answer(api, text)
        item = resp["output"][0]
        evs = [
            {"type": "response.created", "sequence_number": 0, "response": dict(resp, status="in_progress", output=[])},
            {"type": "response.output_item.added", "output_index": 0, "item": item, "sequence_number": 1},
            {"type": "response.output_item.done", "output_index": 0, "item": item, "sequence_number": 2},
            {"type": "response.completed", "response": resp, "sequence_number": 3},
        ]
        return [(e["type"], e) for e in evs]
    return [(None, text_answer(api, text))]


def sse_bytes(events: list[tuple[str | None, Any]]) -> bytes:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {data if isinstance(data, str) else json.dumps(data)}\n\n")
    return "".join(out).encode()


def sse_response(content: bytes) -> httpx2.Response:
    return httpx2.Response(200, content=content, headers={"content-type": "text/event-stream"})


def make_model(
    api: str, handler: Callable[[httpx2.Request], httpx2.Response], stream: bool, sent: list | None = None
) -> Any:
    def respond(request: httpx2.Request) -> httpx2.Response:
        if sent is not None:
            sent.append(json.loads(request.content))
        return handler(request)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{PROVIDER[api]}:m-1", api_key="k", max_retries=0, http_client=client, stream=stream)


def send(model: Any) -> Any:
    return asyncio.run(model.send(model.build_request([Message.user("hi")])))


def stream_events(model: Any) -> list[Any]:
    async def go() -> list[Any]:
        req = model.build_request([Message.user("hi")])
        req.stream = True
        return [ev async for ev in model.send_stream(req)]

    return asyncio.run(go())


def raises(api: str, stream: bool, response: httpx2.Response, kind: type[Exception]) -> Exception:
    model = make_model(api, lambda r: response, stream)
    with pytest.raises(kind) as info:
        send(model)
    return info.value


both = pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
apis = pytest.mark.parametrize("api", APIS)


# -- 1. bodies that are not JSON ------------------------------------------------------------------


@apis
@both
@pytest.mark.parametrize(
    "content, headers, expected",
    [
        (
            b"<html>oops</html>",
            {"content-type": "application/json"},
            "the body is an HTML page (Expecting value at char 0; HTTP 200, content-type application/json): '<html>oops</html>'",
        ),
        (
            b"",
            {"content-type": "application/json"},
            "the body is empty (HTTP 200, content-type application/json); a JSON response was expected",
        ),
        (
            b"\x1f\x8b\x08\x00garbage",
            {"content-type": "application/json", "content-encoding": "gzip"},
            "the body is empty (HTTP 200, content-type application/json, content-encoding gzip); a compressed body that could not be decompressed",
        ),
        (
            b'{"id": 1',
            {"content-type": "application/json"},
            "the body is not JSON (Expecting ',' delimiter at char 8; HTTP 200, content-type application/json): '{\"id\": 1'",
        ),
        (b'"just a string"', {"content-type": "text/plain"}, "the body must be a JSON object"),
    ],
    ids=["html-as-json", "empty", "corrupt-gzip", "truncated-json", "json-string"],
)
def test_a_body_that_is_not_a_json_answer_is_a_response_decode_error(api, stream, content, headers, expected):
    err = raises(api, stream, httpx2.Response(200, content=content, headers=headers), ResponseDecodeError)
    assert err.api == api
    assert expected in str(err)


@apis
def test_the_quoted_start_of_the_body_is_at_most_200_characters(api):
    body = ("<html>" + "x" * 194 + "TAIL" + "y" * 300).encode()
    err = raises(
        api, False, httpx2.Response(200, content=body, headers={"content-type": "text/html"}), ResponseDecodeError
    )
    quoted = str(err).split("content-type text/html): ", 1)[1].split("; a web page answered instead of the API", 1)[0]
    assert quoted == repr(body.decode()[:200]) + "…"
    assert "TAIL" not in quoted


@apis
def test_a_gzipped_json_body_is_decoded(api):
    content = gzip.compress(json.dumps(text_answer(api, "zipped")).encode())
    model = make_model(
        api,
        lambda r: httpx2.Response(
            200, content=content, headers={"content-type": "application/json", "content-encoding": "gzip"}
        ),
        False,
    )
    assert send(model).text == "zipped"


# -- 2. invalid UTF-8: one rule for every API -------------------------------------------------------


@apis
def test_invalid_utf8_in_a_body_is_refused_not_replaced(api):
    good = json.dumps(text_answer(api, "AB")).encode()
    bad = good.replace(b"AB", b"A\xff")
    offset = bad.index(b"\xff")
    err = raises(
        api, False, httpx2.Response(200, content=bad, headers={"content-type": "application/json"}), ResponseDecodeError
    )
    assert f"the body is not valid UTF-8 (byte 0xff at offset {offset})" in str(err)


@apis
def test_invalid_utf8_in_an_event_stream_is_refused_not_replaced(api):
    good = sse_bytes(ok_events(api, "AB"))
    bad = good.replace(b"AB", b"A\xff", 1)
    err = raises(api, True, sse_response(bad), ResponseDecodeError)
    assert "the event stream is not valid UTF-8 (byte 0xff at offset" in str(err)
    assert err.api == api


@apis
def test_valid_utf8_text_survives_byte_by_byte(api):
    text = "Zürich 東京 🙂"
    model = make_model(api, lambda r: sse_response(sse_bytes(ok_events(api, text))), True)
    assert send(model).text == text


# -- 3. stream events that are not JSON ---------------------------------------------------------------


@apis
def test_event_data_that_is_not_json_is_a_response_decode_error(api):
    content = b"event: message_start\ndata: {{not json\n\n"
    err = raises(api, True, sse_response(content), ResponseDecodeError)
    assert str(err) == (
        f"{api}: malformed body: the data of stream event 'message_start' is not JSON "
        "(Expecting property name enclosed in double quotes at char 1): '{{not json'"
    )


@apis
@pytest.mark.parametrize(
    "data, reason",
    [
        (b'{"type": "message_start", "id": "abc', "Unterminated string starting at char 32"),
        (b'{"type": "a\tb"}', "Invalid control character at char 11"),
    ],
    ids=["unterminated-string", "control-character"],
)
def test_a_json_reason_ending_in_at_does_not_say_at_twice(api, data, reason):
    """The decoder's messages "Unterminated string starting at" and "Invalid control character
    at" were followed by " at char N": "... starting at at char 32"."""
    err = raises(api, True, sse_response(b"event: message_start\ndata: " + data + b"\n\n"), ResponseDecodeError)
    assert f"is not JSON ({reason}): " in str(err)
    assert " at at " not in str(err)


@apis
def test_event_data_that_is_json_but_not_an_object_is_a_response_decode_error(api):
    err = raises(api, True, sse_response(b"data: 42\n\n"), ResponseDecodeError)
    assert "the data of stream event must be a JSON object, got '42'" in str(err)


@apis
def test_an_error_event_carrying_html_is_a_provider_error(api):
    err = raises(api, True, sse_response(b"event: error\ndata: <html>oops</html>\n\n"), ProviderError)
    assert (err.provider, err.status) == (api, None)
    assert err.message == "the stream's error event is not JSON: '<html>oops</html>'"


@apis
def test_an_event_stream_without_any_event_is_not_an_empty_answer(api):
    # a stream cut before any part of its answer: a retryable error, not an empty answer
    err = raises(api, True, sse_response(b": keep-alive\n\n"), ProviderError)
    assert "the event stream ended before its first event (14 bytes read)" in str(err)
    assert (err.retryable, err.status) == (True, None)


# -- 4. SDK and transport exceptions never escape raw -------------------------------------------------


@pytest.mark.parametrize(
    "chunk, message, error_type",
    [
        ({"error": {"message": "backend unavailable", "status": "UNAVAILABLE"}}, "backend unavailable", "UNAVAILABLE"),
        (
            {"error": {"message": "quota", "code": "429x", "status": "RESOURCE_EXHAUSTED"}},
            "quota",
            "RESOURCE_EXHAUSTED",
        ),
    ],
)
def test_gemini_error_chunk_without_a_numeric_code(chunk, message, error_type):
    err = raises("gemini", True, sse_response(sse_bytes([(None, chunk)])), ProviderError)
    assert (err.status, err.message, err.error_type) == (None, message, error_type)


class CassetteRefused(Exception):
    """Stands in for vcrpy's CannotOverwriteExistingCassetteException (a plain Exception)."""


@apis
@both
def test_a_transport_exception_becomes_a_connection_provider_error(api, stream):
    def refuse(request):
        raise CassetteRefused(
            "Can't play back this request: it matches 2 recorded interactions, but they have all been played back."
        )

    model = make_model(api, refuse, stream)
    with pytest.raises(ProviderError) as info:
        send(model)
    err = info.value
    assert (err.provider, err.status, err.error_type) == (api, None, "connection_error")
    assert "CassetteRefused: Can't play back this request: it matches 2 recorded interactions" in err.message


@apis
def test_a_read_timeout_while_streaming_is_a_timeout_provider_error(api):
    class Stalls(httpx2.AsyncByteStream):
        async def __aiter__(self):
            yield sse_bytes(ok_events(api))[:20]
            raise httpx2.ReadTimeout("read timed out")

    model = make_model(
        api, lambda r: httpx2.Response(200, stream=Stalls(), headers={"content-type": "text/event-stream"}), True
    )
    with pytest.raises(ProviderError) as info:
        send(model)
    assert (info.value.status, info.value.error_type, info.value.retryable) == (None, "timeout", True)
    assert "ReadTimeout: read timed out" in info.value.message


# -- 5. empty answers are never reported as success ---------------------------------------------------


@pytest.mark.parametrize("api", ["openai-chat", "openai", "anthropic", "gemini"])
@both
def test_an_error_object_sent_with_status_200_is_a_provider_error(api, stream):
    body = {"error": {"message": "Upstream provider failed", "code": 502}}
    err = raises(api, stream, httpx2.Response(200, json=body), ProviderError)
    assert (err.provider, err.message, err.status, err.retryable) == (api, "Upstream provider failed", 502, True)
    assert err.body == body


@pytest.mark.parametrize("api", ["openai-chat", "openai", "anthropic", "gemini"])
@both
def test_an_error_object_with_an_integer_status_field_takes_it_as_the_http_status(api, stream):
    # Azure OpenAI's error object puts the HTTP status in ``error.status`` (an integer) and a
    # string in ``error.code`` (openllmetry cassette
    # packages/opentelemetry-instrumentation-openai/tests/traces/cassettes/test_azure/test_prompt_content_filtering.yaml:
    # ``"type": null, "param": "prompt", "code": "content_filter", "status": 400``); Google's puts
    # the status name there (``"status": "INVALID_ARGUMENT"``) and the integer in ``error.code``
    message = "The response was filtered due to the prompt triggering Azure Content management policy."
    body = {"error": {"message": message, "type": None, "param": "prompt", "code": "content_filter", "status": 400}}
    err = raises(api, stream, httpx2.Response(200, json=body), ProviderError)
    assert (err.message, err.status, err.error_type, err.retryable) == (message, 400, "content_filter", False)
    assert str(err) == f"{api} API error (HTTP 400, content_filter): {message}"
    body = {"error": {"message": "The server had an error", "type": None, "code": "server_error", "status": 503}}
    err = raises(api, stream, httpx2.Response(200, json=body), ProviderError)
    assert (err.status, err.error_type, err.retryable) == (503, "server_error", True)
    body = {"error": {"code": 400, "message": "Invalid JSON payload", "status": "INVALID_ARGUMENT"}}
    err = raises(api, stream, httpx2.Response(200, json=body), ProviderError)
    assert (err.status, err.error_type, err.retryable) == (400, "INVALID_ARGUMENT", False)


@pytest.mark.parametrize("api", ["openai-chat", "openai"])
def test_openrouter_error_in_200_is_retryable_by_its_code(api):
    err = raises(
        api, False, httpx2.Response(200, json={"error": {"message": "Rate limited", "code": 429}}), ProviderError
    )
    assert (err.retryable, err.status) == (True, 429)
    err = raises(api, False, httpx2.Response(200, json={"error": {"message": "bad key", "code": 401}}), ProviderError)
    assert (err.retryable, err.status) == (False, 401)
    err = raises(api, False, httpx2.Response(200, json={"error": "no choices today"}), ProviderError)
    assert (err.message, err.status, err.error_type) == ("no choices today", None, None)


@apis
def test_an_empty_object_is_not_an_empty_answer(api):
    err = raises(api, False, httpx2.Response(200, json={}), ResponseDecodeError)
    pointer = {"anthropic": "/content", "openai-chat": "/choices", "openai": "/output", "gemini": "/candidates"}[api]
    assert err.pointer == pointer


@apis
def test_a_streamed_request_answered_with_one_json_body_keeps_the_answer(api):
    sent: list = []
    model = make_model(api, lambda r: httpx2.Response(200, json=text_answer(api, "The answer is 42.")), True, sent)
    resp = send(model)
    assert (resp.text, resp.stop_reason, resp.usage.input_tokens, resp.usage.output_tokens) == (
        "The answer is 42.",
        "end_turn",
        3,
        2,
    )
    if api != "gemini":  # Gemini streams by URL (alt=sse), not by a body field
        assert sent[0]["stream"] is True
    events = stream_events(
        make_model(api, lambda r: httpx2.Response(200, json=text_answer(api, "via send_stream")), True)
    )
    assert "".join(getattr(e, "text", "") for e in events if type(e).__name__ == "TextDelta") == "via send_stream"
    assert type(events[-1]).__name__ == "StopEvent" and events[-1].stop_reason == "end_turn"


@apis
def test_a_plain_request_answered_with_an_event_stream_is_assembled(api):
    model = make_model(api, lambda r: sse_response(sse_bytes(ok_events(api, "streamy"))), False)
    resp = send(model)
    assert (resp.text, resp.stop_reason) == ("streamy", "end_turn")


@apis
def test_an_event_stream_without_content_type_is_recognised_by_its_first_bytes(api):
    model = make_model(api, lambda r: httpx2.Response(200, content=sse_bytes(ok_events(api, "sniffed"))), True)
    assert send(model).text == "sniffed"


@apis
def test_json_sent_as_text_plain_is_decoded(api):
    content = json.dumps(text_answer(api, "plain")).encode()
    model = make_model(
        api, lambda r: httpx2.Response(200, content=content, headers={"content-type": "text/plain"}), False
    )
    assert send(model).text == "plain"


@apis
def test_an_html_page_answering_a_streamed_request_is_an_error(api):
    page = b"<html><h1>Cloudflare: 200 OK interstitial</h1></html>"
    err = raises(
        api, True, httpx2.Response(200, content=page, headers={"content-type": "text/html"}), ResponseDecodeError
    )
    assert "'<html><h1>Cloudflare: 200 OK interstitial</h1></html>'" in str(err)


def test_gemini_json_array_stream_is_decoded_chunk_by_chunk():
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}, "index": 0}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "lo"}]}, "finishReason": "STOP", "index": 0}]},
    ]
    model = make_model("gemini", lambda r: httpx2.Response(200, json=chunks), True)
    assert send(model).text == "Hello"
    err = raises("gemini", True, httpx2.Response(200, json=[]), ResponseDecodeError)
    assert "the JSON-array stream is empty" in str(err)


@pytest.mark.parametrize("api", ["anthropic", "openai-chat", "openai"])
def test_http_error_without_vendor_message_quotes_the_body(api):
    page = b"<html><body>502 Bad Gateway</body></html>"
    err = raises(api, False, httpx2.Response(502, content=page, headers={"content-type": "text/html"}), ProviderError)
    assert err.status == 502 and err.retryable is True
    assert "<html><body>502 Bad Gateway</body></html>" in err.message


# -- the shared module ---------------------------------------------------------------------------------


def test_every_adapter_is_a_thin_transport_on_the_core_base():
    """One adapter contract: every model is a core Transport; send and send_stream (preflight,
    reading the answer, decoding, releasing) are the base's, the adapter only supplies hooks."""
    from toolwire_anthropic import AnthropicModel
    from toolwire_gemini import GeminiModel
    from toolwire_openai import OpenAIChatModel, OpenAIResponsesModel

    from toolwire.transport import StreamDecoder, Transport

    for cls in (AnthropicModel, GeminiModel, OpenAIChatModel, OpenAIResponsesModel):
        assert issubclass(cls, Transport)
        assert cls.send is Transport.send and cls.send_stream is Transport.send_stream, cls
        assert cls.post is not Transport.post and cls.stream_decoder is not Transport.stream_decoder
        model = toolwire.model(f"{cls.provider}:m-1", api_key="k")
        from toolwire.adapter import ModelRequest

        assert isinstance(model.stream_decoder(ModelRequest(model="m-1")), StreamDecoder)


@pytest.mark.parametrize("api", APIS)
def test_a_stream_that_ends_before_the_vendors_stop_finishes_with_an_error_stop_not_an_exception(api: str) -> None:
    """What the ``StreamDecoder`` protocol says of ``finish``, on each built-in decoder: a stream
    cut off before the vendor's stop event gives ``StopEvent("error")`` with no vendor stop reason
    (the loop then treats the response as cut off); ``finish`` does not raise."""
    from toolwire.adapter import ModelRequest
    from toolwire.stream import StopEvent, TextDelta

    if api == "gemini":
        early: list[Any] = [{"candidates": [{"content": {"role": "model", "parts": [{"text": "hel"}]}, "index": 0}]}]
    else:
        cut = {"anthropic": 3, "openai-chat": 1, "openai": 2}[api]
        early = [data for _, data in ok_events(api)[:cut]]
    model: Any = toolwire.model(f"{PROVIDER[api]}:m-1", api_key="k")  # a Transport: it has stream_decoder
    decoder = model.stream_decoder(ModelRequest(model="m-1"))
    events = [ev for data in early for ev in decoder.feed(data)]
    closing = list(decoder.finish())
    assert closing[-1] == StopEvent("error", None, closing[-1].provider_data)
    assert not any(isinstance(ev, StopEvent) for ev in events + closing[:-1])
    if api != "openai":  # the Responses items added carry no text delta before their done event
        assert any(isinstance(ev, TextDelta) for ev in events)


def _events(chunks: list[bytes]) -> list[tuple[str | None, str]]:
    from toolwire.transport import sse_events

    async def source():
        for c in chunks:
            yield c

    async def go():
        return [(e.event, e.data) async for e in sse_events("openai-chat", source())]

    return asyncio.run(go())


def test_sse_reader_line_endings_split_across_chunks():
    # CRLF split between chunks, CR alone, LF alone; a comment; multi-line data; id/retry ignored
    chunks = [b"event: a\r", b'\ndata: {"x":', b" 1}\r\r", b': comment\nid: 7\nretry: 10\ndata:{"y"\ndata: :2}\n\n']
    assert _events(chunks) == [("a", '{"x": 1}'), (None, '{"y"\n:2}')]


def test_sse_reader_end_of_stream():
    # a last event missing only its blank line is kept; one cut mid-data is dropped (the decoder reports the cut)
    assert _events([b'data: {"a": 1}\n\ndata: {"b": 2}']) == [(None, '{"a": 1}'), (None, '{"b": 2}')]
    assert _events([b'data: {"a": 1}\n\ndata: {"b": ']) == [(None, '{"a": 1}')]
    assert _events([b"data: [DONE]"]) == [(None, "[DONE]")]


def test_sse_reader_skips_events_with_empty_data_and_drops_a_bom():
    assert _events([b"\xef\xbb\xbfdata:\n\nevent: ping\ndata: {}\n\n"]) == [("ping", "{}")]


@pytest.mark.parametrize("api", ["anthropic", "openai", "gemini"])
def test_count_tokens_maps_bad_answers_and_transport_exceptions(api):
    def count(model):
        return asyncio.run(model.count_tokens(model.build_request([Message.user("hi")])))

    html = make_model(
        api,
        lambda r: httpx2.Response(200, content=b"<html>x</html>", headers={"content-type": "application/json"}),
        False,
    )
    with pytest.raises(ResponseDecodeError, match="the token count answer is not a"):
        count(html)

    def refuse(request):
        raise CassetteRefused("no recording for this request")

    with pytest.raises(ProviderError) as info:
        count(make_model(api, refuse, False))
    assert (
        info.value.error_type == "connection_error"
        and "CassetteRefused: no recording for this request" in info.value.message
    )


@pytest.mark.parametrize("choices", [[], None], ids=["empty", "null"])
def test_adv10_a_chat_completion_without_choices_is_a_response_decode_error(choices):
    body = text_answer("openai-chat")
    body["choices"] = choices
    err = raises("openai-chat", False, httpx2.Response(200, json=body), ResponseDecodeError)
    assert "the response has no choices" in str(err)


def test_adv10_a_response_with_null_output_is_a_response_decode_error():
    body = text_answer("openai")
    body["output"] = None
    err = raises("openai", False, httpx2.Response(200, json=body), ResponseDecodeError)
    assert "no output array" in str(err)
