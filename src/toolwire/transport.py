"""Reading a vendor's HTTP answer: one rule set shared by every toolwire adapter's transport.

Vendor-neutral (no SDK is imported here; ``import toolwire`` does not load this module). The
transports hand it the SDK's raw ``httpx2.Response`` (after the SDK has applied auth, retries,
timeouts and its HTTP-status errors) and decode what it returns.

Rules (documented on every adapter page, "Answers that are not what the API documents"):

- **The answer is read as what it is, not as what was asked.** ``Content-Type:
  text/event-stream`` is a server-sent event stream; a JSON type is one JSON body; any other or
  no type is decided by the first bytes (``data:``, ``event:``, ``id:``, ``retry:`` or ``:`` →
  event stream, anything else → JSON body). A streamed request answered with one JSON body is
  decoded as that body; a non-streamed request answered with an event stream is assembled from it.
- **UTF-8, strictly** (RFC 8259 §8.1 for JSON, the WHATWG event-stream format for SSE): an
  invalid byte raises :class:`ResponseDecodeError` naming its offset — bytes are never replaced.
  A leading byte-order mark is dropped.
- **JSON or an error.** An empty body, or one that is not JSON (an HTML error page sent with
  status 200, a body that failed to decompress), raises :class:`ResponseDecodeError` quoting the
  first :data:`SNIPPET_CHARS` characters. An event's ``data`` that is not JSON does the same,
  except on an ``event: error``, which raises :class:`ProviderError` carrying the text.
- **Reading failures.** A timeout while reading → ``ProviderError(error_type="timeout")``; a body
  its ``Content-Encoding`` cannot decode → :class:`ResponseDecodeError`; any other exception
  raised by the HTTP layer (a dropped connection, a test double such as vcrpy refusing a request
  it has no recording for) → ``ProviderError(status=None, error_type="connection_error")`` whose
  message keeps the original exception's type and text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterable

from toolwire.errors import ProviderError, ResponseDecodeError, ToolwireError
from toolwire.stream import ReasoningDelta, ResponseStart, StopEvent, StreamEvent, TextDelta, ToolCallEnd, ToolCallStart, UsageUpdate
from toolwire.types import ReasoningPart, Response, TextPart, ToolCall

__all__ = [
    "SNIPPET_CHARS",
    "SSEEvent",
    "Answer",
    "snippet",
    "decode_utf8",
    "parse_json_body",
    "event_json",
    "sse_events",
    "read_answer",
    "transport_error",
    "error_in_body",
    "response_events",
]

#: How many characters of an unreadable body an error message quotes.
SNIPPET_CHARS = 200

_SSE_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":")
_LINE_END = re.compile(rb"\r\n|\r|\n")


def snippet(data: bytes | str) -> str:
    """The first :data:`SNIPPET_CHARS` characters of ``data`` as a Python string literal (invalid
    UTF-8 shown as U+FFFD, control characters escaped), ``…`` appended when cut."""
    text = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else str(data)
    shown = repr(text[:SNIPPET_CHARS])
    return shown + ("…" if len(text) > SNIPPET_CHARS else "")


def decode_utf8(api: str, data: bytes, what: str = "the body") -> str:
    """``data`` as text, strictly UTF-8 (a leading BOM dropped). Raises
    :class:`ResponseDecodeError` naming the offset of the first invalid byte and quoting ``data``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResponseDecodeError(
            api, f"{what} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}): {snippet(data)}"
        ) from exc
    return text[1:] if text.startswith("\ufeff") else text


def _describe(status: int | None, content_type: str | None, encoding: str | None) -> str:
    bits = [f"HTTP {status}" if status is not None else "no HTTP status", f"content-type {content_type or 'absent'}"]
    if encoding:
        bits.append(f"content-encoding {encoding}")
    return ", ".join(bits)


def parse_json_body(api: str, data: bytes, *, status: int | None = 200, content_type: str | None = None,
                    content_encoding: str | None = None) -> Any:
    """A whole body → its JSON value. Raises :class:`ResponseDecodeError` for an empty body (a body
    that failed to decompress reads as empty), invalid UTF-8, or text that is not JSON (quoting it)."""
    where = _describe(status, content_type, content_encoding)
    if not data.strip():
        extra = "; a compressed body that could not be decompressed also reads as empty" if content_encoding else ""
        raise ResponseDecodeError(api, f"the body is empty ({where}){extra}; a JSON response was expected")
    text = decode_utf8(api, data)
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ResponseDecodeError(api, f"the body nests too deeply to decode ({where}): {snippet(text)}") from exc
    except ValueError as exc:
        reason = f"{exc.msg} at char {exc.pos}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        kind = "an HTML page" if text.lstrip()[:1] == "<" else "not JSON"
        raise ResponseDecodeError(api, f"the body is {kind} ({reason}; {where}): {snippet(text)}") from exc


@dataclass
class SSEEvent:
    """One dispatched server-sent event: ``event`` (``None`` when the event had no ``event:``
    field) and ``data`` (its ``data:`` lines joined with ``\\n``)."""

    event: str | None
    data: str


def event_json(api: str, ev: SSEEvent, objects_only: bool = True) -> Any:
    """The JSON value of an event's data. Data that is not JSON raises :class:`ProviderError`
    (``status=None``, ``body`` = the text) on an ``error`` event, else :class:`ResponseDecodeError`;
    so does JSON that is not an object when ``objects_only`` (every documented event is one)."""
    try:
        value = json.loads(ev.data)
    except (ValueError, RecursionError) as exc:
        reason = f"{exc.msg} at char {exc.pos}" if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        if ev.event == "error":
            raise ProviderError(api, f"the stream's error event is not JSON: {snippet(ev.data)}", status=None,
                                retryable=False, body=ev.data) from exc
        name = f" {ev.event!r}" if ev.event else ""
        raise ResponseDecodeError(api, f"the data of stream event{name} is not JSON ({reason}): {snippet(ev.data)}") from exc
    if objects_only and not isinstance(value, dict):
        if ev.event == "error":
            raise ProviderError(api, f"the stream's error event is not an object: {snippet(ev.data)}", status=None,
                                retryable=False, body=value)
        name = f" {ev.event!r}" if ev.event else ""
        raise ResponseDecodeError(api, f"the data of stream event{name} must be a JSON object, got {snippet(ev.data)}")
    return value


async def sse_events(api: str, chunks: AsyncIterator[bytes]) -> AsyncIterator[SSEEvent]:
    """Server-sent events from a byte stream (WHATWG "event stream interpretation"): lines end at
    CRLF, LF or CR; ``field: value`` with one optional space; ``:`` starts a comment; a blank line
    dispatches the event; ``id``/``retry``/unknown fields are ignored; an event whose data is
    empty is not dispatched. At the end of the stream an event missing only its blank line is
    dispatched when its data is complete JSON (or ``[DONE]``); an event cut mid-data is dropped,
    so the stream decoder reports the stream as cut off. Invalid UTF-8, and a stream that ends
    before its first event (an empty 200 answer), raise :class:`ResponseDecodeError`."""
    buf = b""
    offset = 0
    data: list[str] = []
    event: str | None = None
    dispatched = 0

    def take(line: bytes, at: int) -> SSEEvent | None:
        nonlocal data, event
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ResponseDecodeError(
                api, f"the event stream is not valid UTF-8 (byte 0x{line[exc.start]:02x} at offset {at + exc.start}): {snippet(line)}"
            ) from exc
        if at == 0 and text.startswith("\ufeff"):
            text = text[1:]
        if not text:
            out = SSEEvent(event, "\n".join(data)) if data and any(data) else None
            data, event = [], None
            return out
        if text.startswith(":"):
            return None
        field, _, value = text.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
        return None

    async for chunk in chunks:
        buf += chunk
        while True:
            m = _LINE_END.search(buf)
            if m is None or (m.group() == b"\r" and m.end() == len(buf)):
                break  # no full line yet, or a CR that may be the first half of CRLF
            line, buf = buf[: m.start()], buf[m.end():]
            ev = take(line, offset)
            offset += m.end()
            if ev is not None:
                dispatched += 1
                yield ev
    if buf:
        ev = take(buf.rstrip(b"\r"), offset)
        if ev is not None:
            dispatched += 1
            yield ev
    if data and any(data):
        last = SSEEvent(event, "\n".join(data))
        dispatched += 1
        if last.data.strip().startswith("[DONE]"):
            yield last
        else:
            try:
                json.loads(last.data)
            except (ValueError, RecursionError):
                return  # cut off mid-event
            yield last
    if not dispatched:
        raise ResponseDecodeError(api, f"the event stream ended before its first event ({offset + len(buf)} bytes read)")


def transport_error(api: str, exc: BaseException) -> ProviderError:
    """An exception from the HTTP layer that is not one of the SDK's API errors →
    ``ProviderError(status=None, retryable=True)``: ``error_type="timeout"`` for timeouts, else
    ``"connection_error"``; the message keeps ``<ExceptionType>: <text>`` (e.g. vcrpy's
    explanation of a request its cassette cannot answer)."""
    import asyncio

    try:
        import httpx2

        timeouts: tuple[type[BaseException], ...] = (httpx2.TimeoutException, asyncio.TimeoutError, TimeoutError)
    except ImportError:  # pragma: no cover - every SDK depends on httpx2
        timeouts = (asyncio.TimeoutError, TimeoutError)
    detail = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, timeouts):
        return ProviderError(api, f"request timed out ({detail})", status=None, retryable=True, error_type="timeout")
    return ProviderError(api, f"connection error ({detail})", status=None, retryable=True, error_type="connection_error")


def _read_error(api: str, exc: BaseException) -> ToolwireError:
    try:
        import httpx2

        if isinstance(exc, httpx2.DecodingError):
            return ResponseDecodeError(api, f"the body could not be decoded as its content-encoding says ({exc})")
    except ImportError:  # pragma: no cover
        pass
    return transport_error(api, exc)


async def _body_chunks(api: str, response: Any) -> AsyncIterator[bytes]:
    if hasattr(response, "aiter_bytes"):  # httpx2.Response
        source = response.aiter_bytes()
    else:  # aiohttp.ClientResponse (google-genai uses aiohttp when it is installed)
        source = response.content.iter_any()
    it = source.__aiter__()
    while True:
        try:
            chunk = await it.__anext__()
        except StopAsyncIteration:
            return
        except ToolwireError:
            raise
        except Exception as exc:  # noqa: BLE001 - every reading failure is mapped
            raise _read_error(api, exc) from exc
        if chunk:
            yield bytes(chunk)


async def _chain(head: bytes, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    if head:
        yield head
    async for chunk in rest:
        yield chunk


@dataclass
class Answer:
    """What :func:`read_answer` found: ``kind`` ``"json"`` with the decoded ``body``, or ``"sse"``
    with the ``events`` still to be read."""

    kind: str
    body: Any = None
    events: AsyncIterator[SSEEvent] | None = None


def _header(response: Any, name: str) -> str | None:
    try:
        value = response.headers.get(name)
    except Exception:  # noqa: BLE001 - headers of an odd type: treated as absent
        return None
    return str(value) if value is not None else None


async def read_answer(api: str, response: Any, arrays: bool = False) -> Answer:
    """Read ``response`` (an ``httpx2.Response``, or an ``aiohttp.ClientResponse``) by the rules of
    this module: an event stream is returned unread (``kind="sse"``), any other body is read
    whole and decoded as JSON (``kind="json"``); JSON that is not an object (or an array, when
    ``arrays``) raises :class:`ResponseDecodeError` quoting it. Other errors as the module
    docstring says."""
    content_type = _header(response, "content-type")
    ctype = (content_type or "").lower()
    status = getattr(response, "status_code", None) or getattr(response, "status", None)
    chunks = _body_chunks(api, response)
    if "text/event-stream" in ctype:
        return Answer("sse", events=sse_events(api, chunks))
    head = b""
    if "json" not in ctype:
        async for chunk in chunks:
            head += chunk
            if head.strip():
                break
        if head.lstrip().lstrip(b"\xef\xbb\xbf").startswith(_SSE_STARTS):
            return Answer("sse", events=sse_events(api, _chain(head, chunks)))
    data = head + b"".join([c async for c in chunks])
    body = parse_json_body(api, data, status=status if isinstance(status, int) else None, content_type=content_type,
                           content_encoding=_header(response, "content-encoding"))
    if not isinstance(body, dict) and not (arrays and isinstance(body, list)):
        shape = "a JSON object or array" if arrays else "a JSON object"
        raise ResponseDecodeError(api, f"the body must be {shape} ({_describe(status if isinstance(status, int) else None, content_type, None)}), "
                                       f"got {snippet(data.decode('utf-8', 'replace'))}")
    return Answer("json", body=body)


def error_in_body(api: str, body: Any, answer_keys: Iterable[str], retryable_types: Iterable[str] = ()) -> ProviderError | None:
    """A JSON object that carries a non-empty ``error`` and none of the API's ``answer_keys`` (an
    error sent with status 200, as OpenRouter and some proxies do) → :class:`ProviderError`, else
    ``None``. ``message`` = ``error.message`` (or the error's JSON text); ``error_type`` =
    ``error.type``, else ``error.status``, else a string ``error.code``; ``status`` = an integer
    ``error.code`` that is an HTTP error status (400-599: OpenRouter and Google put the upstream
    status there), else ``None``; ``retryable`` when the type is in ``retryable_types`` or that
    status is retryable (408, 409, 429, 5xx)."""
    if not isinstance(body, dict) or body.get("error") in (None, False, "", {}, []):
        return None
    if any(key in body for key in answer_keys):
        return None
    err = body["error"]
    code: Any = None
    etype: Any = None
    message: Any = None
    if isinstance(err, dict):
        message, code = err.get("message"), err.get("code")
        etype = err.get("type") or err.get("status") or (code if isinstance(code, str) else None)
    else:
        message = err
    if not isinstance(message, str) or not message:
        message = json.dumps(err, ensure_ascii=False, sort_keys=True, default=str)
    status = code if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600 else None
    retryable = (isinstance(etype, str) and etype in set(retryable_types)) or (status is not None and ProviderError.is_retryable_status(status))
    return ProviderError(api, message, status=status, retryable=retryable, error_type=None if etype is None else str(etype), body=body)


def response_events(resp: Response) -> list[StreamEvent]:
    """A decoded :class:`Response` as canonical stream events (for a streamed request answered with
    one JSON body): assembling them gives the same parts, usage and stop reason."""
    events: list[StreamEvent] = [ResponseStart(resp.response_id, resp.model, dict(resp.provider_data))]
    for i, part in enumerate(resp.parts):
        if isinstance(part, TextPart):
            events.append(TextDelta(i, part.text, part.provider_data or None))
        elif isinstance(part, ReasoningPart):
            events.append(ReasoningDelta(i, part.text, part.signature, part.encrypted, part.provider, part.provider_data or None))
        elif isinstance(part, ToolCall):
            events.append(ToolCallStart(i, part.id, part.name, part.id_synthesized, part.provider_data or None))
            events.append(ToolCallEnd(i, part.arguments if part.invalid is None else None, part.raw_arguments,
                                      invalid=part.invalid, incomplete=part.incomplete))
    events.append(UsageUpdate(resp.usage))
    events.append(StopEvent(resp.stop_reason, resp.vendor_stop_reason))
    return events
