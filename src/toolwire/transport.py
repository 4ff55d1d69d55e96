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
  first :data:`SNIPPET_CHARS` characters; a 2xx body that is empty or JSON cut short raises its
  retryable kind :class:`~toolwire.errors.ResponseIncomplete`. An event's ``data`` that is not JSON does the same,
  except on an ``event: error``, which raises :class:`ProviderError` carrying the text.
- **Text the next request can carry.** JSON may spell a lone UTF-16 surrogate (``"\\ud83d"``,
  half an emoji) as a valid escape, but no UTF-8 request can hold it: echoed back in the
  conversation it would make every later request fail inside the SDK. Every lone surrogate in a
  decoded body or event is replaced with U+FFFD (the Unicode replacement character) when it is
  decoded; escaped surrogate *pairs* are one character and stay as they are.
- **Reading failures.** A timeout while reading → ``ProviderError(error_type="timeout")``; a body
  its ``Content-Encoding`` cannot decode → :class:`ResponseDecodeError`; any other exception
  raised by the HTTP layer (a dropped connection) → ``ProviderError(status=None,
  error_type="connection_error")`` whose message keeps the original exception's type and text;
  vcrpy refusing a request its cassette has no recording for is the same but not retryable, and
  says to record the cassette again.
"""

from __future__ import annotations

import abc
import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Container, Iterable, Iterator, Protocol, runtime_checkable

from toolwire.adapter import Model, ModelRequest
from toolwire.arguments import json_brackets, may_nest_past
from toolwire.errors import (
    ConfigurationError,
    ProviderError,
    ResponseBoundExceeded,
    ResponseDecodeError,
    ResponseIncomplete,
    ToolwireError,
    json_error_at,
)
from toolwire.stream import (
    ProviderToolDone,
    ReasoningDelta,
    ResponseStart,
    StopEvent,
    StreamAssembler,
    StreamEvent,
    SurrogatePairs,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
    carries_answer,
    cut_off,
    has_counts,
    note_failed_usage,
    reported_usage,
)
from toolwire.types import ProviderToolPart, ReasoningPart, Response, TextPart, ToolCall

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
    "StreamDecoder",
    "Transport",
    "stainless_error",
    "StainlessPost",
    "close_raw",
    "SKIP",
    "END",
    "repair_surrogates",
    "MAX_BODY_DEPTH",
    "DEEP_VALUE_LEFT_OUT",
    "bounded_json",
]

#: How many characters of an unreadable body an error message quotes.
SNIPPET_CHARS = 200

_SSE_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":")


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


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def repair_surrogates(value: Any, text: str | None = None, edges: Container[str] = ()) -> Any:
    """``value`` (decoded JSON) with every lone surrogate in its strings (keys included) replaced
    by U+FFFD. When the JSON ``text`` it came from is given and holds no ``\\uD800``-``\\uDFFF``
    escape, ``value`` is returned at once (strict UTF-8 cannot carry a surrogate otherwise).
    A string under a key in ``edges`` keeps a high surrogate that ends it and a low surrogate
    that starts it (half of a pair split over two stream events, joined by
    :class:`~toolwire.stream.StreamAssembler`). Iterative; containers are changed in place."""
    if text is not None and not _SURROGATE_ESCAPE.search(text):
        return value
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k in list(node):
                v = node[k]
                if isinstance(k, str) and _LONE_SURROGATE.search(k):
                    del node[k]
                    k = _LONE_SURROGATE.sub("\ufffd", k)
                    node[k] = v
                if isinstance(v, str):
                    if _LONE_SURROGATE.search(v):
                        node[k] = _keep_edges(v) if k in edges else _LONE_SURROGATE.sub("\ufffd", v)
                elif isinstance(v, (dict, list)):
                    stack.append(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, str):
                    if _LONE_SURROGATE.search(v):
                        node[i] = _LONE_SURROGATE.sub("\ufffd", v)
                elif isinstance(v, (dict, list)):
                    stack.append(v)
    return value


def _keep_edges(v: str) -> str:
    start = 1 if "\udc00" <= v[:1] <= "\udfff" else 0
    end = len(v) - 1 if "\ud800" <= v[-1:] <= "\udbff" else len(v)
    if end <= start:
        return v
    return v[:start] + _LONE_SURROGATE.sub("\ufffd", v[start:end]) + v[end:]


#: Deepest nesting of arrays and objects toolwire reads in a vendor body, stream event or JSON
#: chunk (the body itself is level 1). No documented answer comes near it (tool-call arguments
#: are bounded at 64 levels of their own, :data:`toolwire.arguments.MAX_ARGUMENT_DEPTH`); a
#: deeper value would make Python code that walks it recursively (``copy.deepcopy``, ``repr``,
#: ``==``, JSON encoding) raise ``RecursionError`` at a few hundred levels. A container that
#: opens deeper is replaced by :data:`DEEP_VALUE_LEFT_OUT` when it sits in a tool call's
#: arguments (the call is then answered with an ``is_error`` result: its arguments nest past
#: ``MAX_ARGUMENT_DEPTH``); anywhere else the answer raises
#: :class:`~toolwire.errors.ResponseBoundExceeded` naming the pointer.
MAX_BODY_DEPTH = 128

#: The text that stands for a value nested deeper than :data:`MAX_BODY_DEPTH` in tool-call
#: arguments (what the model reads back in its own call).
DEEP_VALUE_LEFT_OUT = (
    f"[left out: nested deeper than {MAX_BODY_DEPTH} levels of arrays and objects, the bound (MAX_BODY_DEPTH)]"
)
_LEFT_OUT_JSON = json.dumps(DEEP_VALUE_LEFT_OUT)


def _deeper_than(value: Any, bound: int) -> bool:
    """Whether decoded JSON ``value`` nests arrays and objects deeper than ``bound`` levels
    (``value`` itself is level 1). Iterative."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > bound:
            return True
        for child in node.values() if type(node) is dict else node:
            tc = type(child)
            if tc is dict or tc is list:
                stack.append((child, depth + 1))
    return False


def _pruned_text(text: str, bound: int) -> str:
    """JSON ``text`` with each array or object that opens deeper than ``bound`` levels replaced by
    the JSON string :data:`DEEP_VALUE_LEFT_OUT` (brackets inside strings do not count). Linear,
    no recursion; a container left open at the end is kept (the text then fails to parse)."""
    out: list[str] = []
    depth = 0
    start = -1
    last = 0
    for i, ch in json_brackets(text):
        if ch in "[{":
            depth += 1
            if depth == bound + 1:
                start = i
        elif ch in "]}":
            if depth == bound + 1 and start >= 0:
                out.append(text[last:start])
                out.append(_LEFT_OUT_JSON)
                last = i + 1
                start = -1
            depth -= 1
    out.append(text[last:])
    return "".join(out)


def _left_out_pointers(value: Any, bound: int = MAX_BODY_DEPTH) -> list[str]:
    """JSON pointers of every :data:`DEEP_VALUE_LEFT_OUT` string in ``value`` where
    :func:`_pruned_text` puts one (a value at level ``bound + 1``: the same text elsewhere, say in
    the model's own words, is not one), in document order. Linear; a pointer is spelled only for
    a string found."""
    found: list[str] = []
    # [node, its level, its key, its parent's entry, its pointer once spelled]
    stack: list[list[Any]] = [[value, 1, None, None, ""]]
    while stack:
        entry = stack.pop()
        node, level = entry[0], entry[1]
        tn = type(node)
        if tn is dict:
            children: Any = list(node.items())
        elif tn is list:
            children = list(enumerate(node))
        else:
            continue
        if level == bound:
            for k, v in children:
                if type(v) is str and v == DEEP_VALUE_LEFT_OUT:
                    found.append(_pointer_of(entry) + "/" + str(k).replace("~", "~0").replace("/", "~1"))
            continue
        below = level + 1
        stack.extend([v, below, k, entry, None] for k, v in reversed(children) if type(v) is dict or type(v) is list)
    return found


def _pointer_of(entry: list[Any]) -> str:
    """The JSON pointer of a :func:`_left_out_pointers` entry, spelled once per entry (and its parents)."""
    todo = []
    while entry[4] is None:
        todo.append(entry)
        entry = entry[3]
    pointer = entry[4]
    for e in reversed(todo):
        pointer = e[4] = pointer + "/" + str(e[2]).replace("~", "~0").replace("/", "~1")
    return pointer


#: ``deep_ok(value, pointer)``: whether the value at ``pointer`` of a decoded body or event
#: ``value`` lies in a tool call's arguments (see :meth:`Transport.in_call_arguments`).
DeepOk = Callable[[Any, str], bool]


def bounded_json(api: str, text: str, what: str = "the body", deep_ok: DeepOk | None = None) -> Any:
    """``json.loads(text)`` within :data:`MAX_BODY_DEPTH`: a container nested deeper becomes
    :data:`DEEP_VALUE_LEFT_OUT` when ``deep_ok(value, pointer)`` says it lies in a tool call's
    arguments, else :class:`~toolwire.errors.ResponseBoundExceeded` is raised naming its pointer.
    Text that is not JSON raises ``ValueError`` as ``json.loads`` does."""
    if not may_nest_past(text, MAX_BODY_DEPTH):
        return json.loads(text)
    try:
        value = json.loads(text)
        if not _deeper_than(value, MAX_BODY_DEPTH):
            return value
    except RecursionError:
        pass
    try:
        value = json.loads(_pruned_text(text, MAX_BODY_DEPTH))
    except RecursionError as exc:  # a container left open that deep: the text is cut as well
        raise ResponseBoundExceeded(
            api,
            f"{what} nests deeper than {MAX_BODY_DEPTH} levels of arrays and objects, the bound (MAX_BODY_DEPTH), "
            f"and is not complete JSON: {snippet(text)}; {_BOUND_ADVICE}",
            bound="MAX_BODY_DEPTH",
            limit=MAX_BODY_DEPTH,
        ) from exc
    for pointer in _left_out_pointers(value):
        if deep_ok is None or not deep_ok(value, pointer):
            raise ResponseBoundExceeded(
                api,
                f"{what} nests deeper than {MAX_BODY_DEPTH} levels of arrays and objects, the bound "
                "(MAX_BODY_DEPTH), outside any tool call's arguments; no documented answer does: the server "
                f"(or a proxy before it) sent a broken answer; {_BOUND_ADVICE}",
                pointer,
                bound="MAX_BODY_DEPTH",
                limit=MAX_BODY_DEPTH,
            )
    return value


#: The keys of streamed text, reasoning and tool-call argument deltas, whose strings keep a
#: surrogate at their edges (:func:`event_json`): Anthropic ``content_block_delta`` ``delta.text``
#: / ``delta.thinking`` / ``delta.partial_json`` (https://docs.anthropic.com/en/docs/build-with-claude/streaming);
#: Chat Completions ``choices[].delta.content`` / ``tool_calls[].function.arguments`` (and
#: ``reasoning_content`` / ``reasoning`` of compatible servers; ``ChatCompletionChunk``);
#: Responses ``response.output_text.delta`` / ``...arguments.delta`` / ``...reasoning_*.delta``
#: ``delta`` (``ResponseStreamEvent``); Gemini ``candidates[].content.parts[].text``.
STREAM_DELTA_KEYS = frozenset(
    {"text", "thinking", "partial_json", "content", "arguments", "reasoning_content", "reasoning", "delta"}
)


def _describe(status: int | None, content_type: str | None, encoding: str | None) -> str:
    bits = [f"HTTP {status}" if status is not None else "no HTTP status", f"content-type {content_type or 'absent'}"]
    if encoding:
        bits.append(f"content-encoding {encoding}")
    return ", ".join(bits)


def parse_json_body(
    api: str,
    data: bytes,
    *,
    status: int | None = 200,
    content_type: str | None = None,
    content_encoding: str | None = None,
    deep_ok: DeepOk | None = None,
) -> Any:
    """A whole body → its JSON value. Raises :class:`ResponseDecodeError` for an empty body (a body
    that failed to decompress, or holds only a UTF-8 byte order mark, reads as empty), invalid
    UTF-8, or text that is not JSON (quoting it), and :class:`~toolwire.errors.ResponseBoundExceeded` for one nesting deeper than
    :data:`MAX_BODY_DEPTH` outside tool-call arguments (``deep_ok``, see :func:`bounded_json`)."""
    where = _describe(status, content_type, content_encoding)
    if not data.removeprefix(b"\xef\xbb\xbf").strip():  # a UTF-8 byte order mark alone is empty too
        extra = "; a compressed body that could not be decompressed also reads as empty" if content_encoding else ""
        message = f"the body is empty ({where}){extra}; a JSON response was expected"
        if status is not None and 200 <= status < 300:
            raise ResponseIncomplete(api, f"{message}. {_INCOMPLETE_ADVICE}", status=status)
        raise ResponseDecodeError(api, message)
    text = decode_utf8(api, data)
    cut = f"it ends inside an object, array or string after {len(data):,} bytes, cut short. {_INCOMPLETE_ADVICE}"
    try:
        value = bounded_json(api, text, f"the body ({where})", deep_ok)
        # a top-level array is a JSON-array stream (Gemini without alt=sse): its chunks are deltas,
        # whose text keeps a surrogate at its edges (as :func:`_quick_json` reads it)
        return repair_surrogates(value, text, STREAM_DELTA_KEYS if type(value) is list else ())
    except ResponseBoundExceeded as exc:
        # a body that ends open past the bound (cut inside deeply nested tool-call arguments): cut
        # short like any other, so retried (a complete body past the bound parses, pruned, and
        # does not end open)
        if status is not None and 200 <= status < 300 and _ends_open(text):
            raise ResponseIncomplete(
                api,
                f"the body is not JSON (it nests deeper than {MAX_BODY_DEPTH} levels of arrays and objects where it "
                f"ends; {where}): {snippet(text)}; {cut}",
                status=status,
            ) from exc
        raise
    except ResponseDecodeError:
        raise
    except RecursionError as exc:
        raise ResponseDecodeError(api, f"the body nests too deeply to decode ({where}): {snippet(text)}") from exc
    except ValueError as exc:
        reason = json_error_at(exc, f"char {exc.pos}") if isinstance(exc, json.JSONDecodeError) else str(exc)
        if status is not None and 200 <= status < 300 and _ends_open(text):
            raise ResponseIncomplete(
                api,
                f"the body is not JSON ({reason}; {where}): {snippet(text)}; {cut}",
                status=status,
            ) from exc
        if text.lstrip()[:1] == "<":
            raise ResponseDecodeError(
                api,
                f"the body is an HTML page ({reason}; {where}): {snippet(text)}; a web page answered instead of the "
                "API: check base_url and any proxy between toolwire and the API (not retried: the same page is likely "
                "to answer again)",
            ) from exc
        raise ResponseDecodeError(api, f"the body is not JSON ({reason}; {where}): {snippet(text)}") from exc


#: What a body nested past MAX_BODY_DEPTH tells the reader to do (it is a ResponseDecodeError,
#: which the retry policy does not retry).
_BOUND_ADVICE = (
    "not retried (the same answer would likely come again): check base_url, any proxy between toolwire and the "
    "API, and the server"
)

#: What an incomplete 2xx body's error tells the reader to do.
_INCOMPLETE_ADVICE = (
    "The connection or a proxy cut the answer; sending the request again may get the whole answer (the "
    "model's retry policy, max_retries / retry, does so while attempts remain). If it keeps happening, check "
    "the network path and any proxy before the API (base_url)"
)


def _ends_open(text: str) -> bool:
    """Whether JSON ``text`` that starts an object or array ends inside one, or inside a string
    (what a body cut short looks like); brackets inside strings do not count."""
    if text.lstrip()[:1] not in ("{", "["):
        return False
    depth = 0
    for _, ch in json_brackets(text):
        if ch == '"':  # the text ends inside a string
            return True
        if ch in "[{":
            depth += 1
        elif depth == 0:
            return False  # a close with nothing open: not a cut, a broken body
        else:
            depth -= 1
    return depth > 0


@dataclass
class SSEEvent:
    """One dispatched server-sent event: ``event`` (``None`` when the event had no ``event:``
    field) and ``data`` (its ``data:`` lines joined with ``\\n``)."""

    event: str | None
    data: str


def event_json(api: str, ev: SSEEvent, objects_only: bool = True, deep_ok: DeepOk | None = None) -> Any:
    """The JSON value of an event's data. Data that is not JSON raises :class:`ProviderError`
    (``status=None``, ``body`` = the text) on an ``error`` event, else :class:`ResponseDecodeError`;
    so does JSON that is not an object when ``objects_only`` (every documented event is one).
    Data nesting deeper than :data:`MAX_BODY_DEPTH` outside tool-call arguments (``deep_ok``, see
    :func:`bounded_json`) raises :class:`~toolwire.errors.ResponseBoundExceeded`."""
    try:
        name = f" {ev.event!r}" if ev.event else ""
        value = bounded_json(api, ev.data, f"the data of stream event{name}", deep_ok)
        if _SURROGATE_ESCAPE.search(ev.data) is not None:  # as repair_surrogates(value, ev.data)
            # a delta's text keeps a surrogate at its edges: the other half may be the next event's
            value = repair_surrogates(value, edges=STREAM_DELTA_KEYS)
    except ResponseDecodeError:
        raise
    except (ValueError, RecursionError) as exc:
        reason = json_error_at(exc, f"char {exc.pos}") if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        if ev.event == "error":
            raise ProviderError(
                api,
                f"the stream's error event is not JSON: {snippet(ev.data)}",
                status=None,
                retryable=False,
                body=ev.data,
            ) from exc
        name = f" {ev.event!r}" if ev.event else ""
        raise ResponseDecodeError(
            api, f"the data of stream event{name} is not JSON ({reason}): {snippet(ev.data)}"
        ) from exc
    if objects_only and not isinstance(value, dict):
        if ev.event == "error":
            raise ProviderError(
                api,
                f"the stream's error event is not an object: {snippet(ev.data)}",
                status=None,
                retryable=False,
                body=value,
            )
        name = f" {ev.event!r}" if ev.event else ""
        raise ResponseDecodeError(api, f"the data of stream event{name} must be a JSON object, got {snippet(ev.data)}")
    return value


async def sse_events(api: str, chunks: AsyncIterator[bytes]) -> AsyncIterator[SSEEvent]:
    """Server-sent events from a byte stream (WHATWG "event stream interpretation"): lines end at
    CRLF, LF or CR; ``field: value`` with one optional space; ``:`` starts a comment; a blank line
    dispatches the event; ``id``/``retry``/unknown fields are ignored, except an ``error:`` line
    (llama.cpp servers before ggml-org/llama.cpp#16109 sent their mid-stream errors so), read as
    an ``error`` event with that data; an event whose data is
    empty is not dispatched. At the end of the stream an event missing only its blank line is
    dispatched when its data is complete JSON (or ``[DONE]``); an event cut mid-data is dropped,
    so the stream decoder reports the stream as cut off. Invalid UTF-8 raises
    :class:`ResponseDecodeError`; a stream that ends before its first event (an empty 200 answer,
    or one of keep-alive comments only) raises a retryable :class:`ProviderError` (``status``
    ``None``): nothing of the answer came, so the request may be sent again."""
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
                api,
                f"the event stream is not valid UTF-8 (byte 0x{line[exc.start]:02x} at offset {at + exc.start}): {snippet(line)}",
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
        elif field == "error":  # not an SSE field: older llama.cpp servers' mid-stream error line
            data, event = [value], "error"
        return None

    pending: list[bytes] = []  # the unfinished line, in pieces (joined once a line end arrives)
    async for chunk in chunks:
        pending.append(chunk)
        if b"\n" not in chunk and b"\r" not in chunk:
            continue
        block = b"".join(pending) if len(pending) > 1 else chunk
        pending = []
        if b"\r" not in block:
            # the usual stream: lines end at LF only. The whole lines are decoded at once (a line
            # end byte is never inside a UTF-8 sequence, so this is each line decoded alone) and
            # read here as take() reads them; invalid UTF-8 goes line by line below, for its offset
            cut = block.rfind(b"\n") + 1
            try:
                text = block[:cut].decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None:
                if cut < len(block):
                    pending.append(block[cut:])
                lines_text = text.split("\n")
                lines_text.pop()  # the empty text after the last line end
                if offset == 0 and lines_text[0][:1] == "\ufeff":
                    lines_text[0] = lines_text[0][1:]
                offset += cut
                for line in lines_text:
                    if not line:
                        if data and any(data):
                            out = SSEEvent(event, "\n".join(data))
                            data, event = [], None
                            dispatched += 1
                            yield out
                        else:
                            data, event = [], None
                        continue
                    if line[0] == ":":
                        continue
                    field, _, value = line.partition(":")
                    if value[:1] == " ":
                        value = value[1:]
                    if field == "data":
                        data.append(value)
                    elif field == "event":
                        event = value
                    elif field == "error":  # older llama.cpp: "error: {...}" mid-stream, then [DONE]
                        data, event = [value], "error"
                continue
        lines = block.splitlines(True)  # bytes split only at CRLF, LF and CR
        tail = lines[-1]
        if not tail.endswith(b"\n"):  # no full line yet, or a CR that may be the first half of CRLF
            pending.append(tail)
            lines.pop()
        for raw in lines:
            end = 2 if raw.endswith(b"\r\n") else 1
            ev = take(raw[:-end], offset)
            offset += len(raw)
            if ev is not None:
                dispatched += 1
                yield ev
    buf = b"".join(pending)
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
        # the server closed the stream after its headers (or a keep-alive comment): cut before any
        # part of the answer, so the same request may be answered whole (retried, as a cut after
        # the opening events is)
        raise ProviderError(
            api,
            f"the event stream ended before its first event ({offset + len(buf)} bytes read); nothing of the "
            "answer arrived",
            status=None,
            retryable=True,
        )


#: What ``json.dumps`` (the SDKs' body encoders) says of a value JSON cannot carry
#: (``json.encoder``: "Object of type bytes is not JSON serializable", "Out of range float values
#: are not JSON compliant", "Circular reference detected", "keys must be str, int, float, bool or
#: None, not tuple").
_JSON_REFUSALS = ("is not JSON serializable", "not JSON compliant", "Circular reference detected", "keys must be str")


def json_refusal(exc: BaseException) -> str | None:
    """What to tell the caller when ``exc`` is the SDK's JSON encoder refusing a value of the
    request body (a ``bytes`` or NaN in a message, a tool call's arguments or a setting), else
    ``None``."""
    text = str(exc)
    if not isinstance(exc, (TypeError, ValueError)) or not any(r in text for r in _JSON_REFUSALS):
        return None
    return (
        f"the body holds a value JSON cannot carry ({type(exc).__name__}: {text}); give messages, tool call "
        "arguments, tool results and settings only JSON values (str, int, finite float, bool, None, lists, "
        "dicts with string keys), e.g. bytes as base64 text"
    )


def _cassette_miss(api: str, exc: BaseException) -> ProviderError | None:
    """A request a replaying vcrpy cassette has no answer for (vcrpy's
    ``CannotOverwriteExistingCassetteException``, raised in the HTTP layer, maybe wrapped by the
    SDK as its connection error) → a ``ProviderError`` that is not retried (the cassette answers
    the same way every time), saying how to record; ``None`` for any other exception. vcrpy's own
    advice names its options (``allow_playback_repeats``, ``record_mode``), which
    :func:`toolwire.testing.pytest_plugin.cassette` does not take."""
    seen: set[int] = set()
    each: BaseException | None = exc
    while each is not None and id(each) not in seen:
        seen.add(id(each))
        if type(each).__name__ == "CannotOverwriteExistingCassetteException":
            first = str(each).strip().splitlines()[0] if str(each).strip() else ""
            return ProviderError(
                api,
                "the cassette has no recorded answer for this request"
                + (f" (vcrpy: {first})" if first else "")
                + "; the code now sends a different or an extra request: record the cassette again with an API key, "
                "cassette(path, record=True) (in pytest: pytest --toolwire-record)",
                status=None,
                retryable=False,
                error_type="connection_error",
            )
        each = each.__cause__ or each.__context__
    return None


def transport_error(api: str, exc: BaseException) -> ProviderError:
    """An exception from the HTTP layer that is not one of the SDK's API errors →
    ``ProviderError(status=None, retryable=True)``: ``error_type="timeout"`` for timeouts, else
    ``"connection_error"``; the message keeps ``<ExceptionType>: <text>``. A request a replaying
    vcrpy cassette cannot answer is not retryable (see :func:`_cassette_miss`)."""
    import asyncio

    try:
        import httpx2

        timeouts: tuple[type[BaseException], ...] = (httpx2.TimeoutException, asyncio.TimeoutError, TimeoutError)
    except ImportError:  # pragma: no cover - every SDK depends on httpx2
        timeouts = (asyncio.TimeoutError, TimeoutError)
    miss = _cassette_miss(api, exc)
    if miss is not None:
        return miss
    detail = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, timeouts):
        return ProviderError(api, f"request timed out ({detail})", status=None, retryable=True, error_type="timeout")
    return ProviderError(
        api, f"connection error ({detail})", status=None, retryable=True, error_type="connection_error"
    )


def _request_url(exc: BaseException) -> str | None:
    """The URL the failed request went to (``scheme://host[:port]/path``, without credentials,
    query or fragment), from the ``request`` of the exception or of its cause; ``None`` if unknown."""
    for each in (exc, exc.__cause__, exc.__context__):
        if each is None:
            continue
        try:
            request = getattr(each, "request", None)  # httpx2.RequestError.request raises when unset
        except Exception:
            request = None
        url = getattr(request, "url", None)
        if url is None:
            continue
        try:
            from urllib.parse import urlsplit, urlunsplit

            parts = urlsplit(str(url))
            host = parts.hostname or ""
            netloc = f"[{host}]" if ":" in host else host
            if parts.port is not None:
                netloc += f":{parts.port}"
            return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        except ValueError:
            return None
    return None


def with_server(err: ProviderError, exc: BaseException) -> ProviderError:
    """``err`` with the server's URL added to its message when it is a connection error or a
    timeout (so a wrong ``base_url`` shows), e.g. ``connection error (ConnectError: ...) (server:
    http://127.0.0.1:8080/v1/chat/completions)``; any other error unchanged."""
    if err.error_type not in ("connection_error", "timeout") or err.status is not None:
        return err
    url = _request_url(exc)
    if url is None or url in err.message:
        return err
    return ProviderError(
        err.provider,
        f"{err.message} (server: {url})",
        status=err.status,
        retryable=err.retryable,
        error_type=err.error_type,
        body=err.body,
        retry_after=err.retry_after,
    )


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
    try:
        while True:
            try:
                chunk = await it.__anext__()
            except StopAsyncIteration:
                return
            except ToolwireError:
                raise
            except Exception as exc:
                raise _read_error(api, exc) from exc
            if chunk:
                yield bytes(chunk)
    finally:  # closed at once, on this task (not left to the garbage collector)
        await _aclose(it)


async def _aclose(it: Any) -> None:
    close = getattr(it, "aclose", None)
    if close is not None:
        try:
            await close()
        except Exception:  # pragma: no cover - best effort, as close_raw
            pass


async def _chain(head: bytes, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    try:
        if head:
            yield head
        async for chunk in rest:
            yield chunk
    finally:
        await _aclose(rest)


@dataclass
class Answer:
    """What :func:`read_answer` found: ``kind`` ``"json"`` with the decoded ``body``, or ``"sse"``
    with the ``events`` still to be read."""

    kind: str
    body: Any = None
    events: AsyncIterator[SSEEvent] | None = None
    #: the byte stream ``events`` reads (closed by :meth:`aclose`)
    source: AsyncIterator[bytes] | None = None

    async def aclose(self) -> None:
        """Close the events (an async generator stopped early stays suspended until the garbage
        collector finalizes it, possibly after its event loop ends) and the byte stream under them."""
        if self.events is not None:
            await _aclose(self.events)
        if self.source is not None:
            await _aclose(self.source)


def _read_already(response: Any) -> bytes | None:
    """The body of an ``httpx2.Response`` that was read whole already (``None`` for a response
    still to be read: streamed, or another client's)."""
    if not hasattr(response, "aiter_bytes") or not getattr(response, "is_stream_consumed", False):
        return None
    try:
        content = response.content
    except Exception:  # not read after all (closed unread): read it the usual way, which reports it
        return None
    return content if isinstance(content, bytes) else None


async def _no_chunks() -> AsyncIterator[bytes]:
    return
    yield b""  # pragma: no cover - makes this an async generator


def _header(response: Any, name: str) -> str | None:
    try:
        value = response.headers.get(name)
    except Exception:
        return None
    return str(value) if value is not None else None


_NOT_QUICK = object()


def _quick_json(data: bytes) -> Any:
    """The JSON value of a body :func:`parse_json_body` would accept (the same value), or
    ``_NOT_QUICK`` when it would raise or leave out a value nested too deeply (it is then asked,
    to word the error or to leave the value out)."""
    try:
        text = data.decode("utf-8")
        if text[:1] == "\ufeff":
            text = text[1:]
        value = json.loads(text)
        if may_nest_past(text, MAX_BODY_DEPTH) and _deeper_than(value, MAX_BODY_DEPTH):
            return _NOT_QUICK
    except Exception:
        return _NOT_QUICK
    # a top-level array is a JSON-array stream (Gemini without alt=sse): its chunks are deltas
    return repair_surrogates(value, text, STREAM_DELTA_KEYS if type(value) is list else ())


async def read_answer(api: str, response: Any, arrays: bool = False, deep_ok: DeepOk | None = None) -> Answer:
    """Read ``response`` (an ``httpx2.Response``, or an ``aiohttp.ClientResponse``) by the rules of
    this module: an event stream is returned unread (``kind="sse"``), any other body is read
    whole and decoded as JSON (``kind="json"``); JSON that is not an object (or an array, when
    ``arrays``) raises :class:`ResponseDecodeError` quoting it; ``deep_ok`` as for
    :func:`bounded_json`. Other errors as the module docstring says."""
    content_type = _header(response, "content-type")
    ctype = (content_type or "").lower()
    data = _read_already(response) if "text/event-stream" not in ctype else None
    if data is not None:  # the SDK read the whole body already (a request that was not streamed)
        if "json" not in ctype and data.lstrip().lstrip(b"\xef\xbb\xbf").startswith(_SSE_STARTS):
            return Answer("sse", events=sse_events(api, _chain(data, _no_chunks())))
    else:
        chunks = _body_chunks(api, response)
        if "text/event-stream" in ctype:
            return Answer("sse", events=sse_events(api, chunks), source=chunks)
        head = b""
        if "json" not in ctype:
            async for chunk in chunks:
                head += chunk
                if head.strip():
                    break
            if head.lstrip().lstrip(b"\xef\xbb\xbf").startswith(_SSE_STARTS):
                source = _chain(head, chunks)
                return Answer("sse", events=sse_events(api, source), source=source)
        data = head + b"".join([c async for c in chunks])
    body = _quick_json(data)
    if type(body) is dict:  # the usual answer (an object): nothing more to check
        return Answer("json", body=body)
    status = getattr(response, "status_code", None) or getattr(response, "status", None)
    if body is _NOT_QUICK:  # empty, not UTF-8, not JSON: parse_json_body says why
        body = parse_json_body(
            api,
            data,
            status=status if isinstance(status, int) else None,
            content_type=content_type,
            content_encoding=_header(response, "content-encoding"),
            deep_ok=deep_ok,
        )
    if not isinstance(body, dict) and not (arrays and isinstance(body, list)):
        shape = "a JSON object or array" if arrays else "a JSON object"
        raise ResponseDecodeError(
            api,
            f"the body must be {shape} ({_describe(status if isinstance(status, int) else None, content_type, None)}), "
            f"got {snippet(data.decode('utf-8', 'replace'))}",
        )
    return Answer("json", body=body)


def error_in_body(
    api: str, body: Any, answer_keys: Iterable[str], retryable_types: Iterable[str] = ()
) -> ProviderError | None:
    """A JSON object that carries a non-empty ``error`` and none of the API's ``answer_keys`` (an
    error sent with status 200, as OpenRouter and some proxies do) → :class:`ProviderError`, else
    ``None``. ``message`` = ``error.message`` (or the error's JSON text); ``error_type`` =
    ``error.type``, else a string ``error.status``, else a string ``error.code``; ``status`` = an
    integer ``error.code`` that is an HTTP error status (400-599: OpenRouter and Google put the
    upstream status there), else such an integer ``error.status`` (Azure OpenAI's place for it),
    else ``None``; ``retryable`` as :func:`toolwire.retry.classify` says for the
    status and message (408, 409, 429, a 5xx whose message does not say the request itself cannot
    be served) — the same answer as for that error sent with its HTTP status — and, without a
    status, when the type or a string code is in ``retryable_types`` (and the message does not
    say the request cannot be served)."""
    if not isinstance(body, dict) or body.get("error") in (None, False, "", {}, []):
        return None
    if any(key in body for key in answer_keys):
        return None
    err = body["error"]
    code: Any = None
    etype: Any = None
    message: Any = None
    named_status: Any = None
    if isinstance(err, dict):
        message, code, named_status = err.get("message"), err.get("code"), err.get("status")
        # Google: "status": "INVALID_ARGUMENT" (a name) beside "code": 400; Azure OpenAI:
        # "status": 400 (the HTTP status) beside "code": "content_filter" — a number is no type
        etype = (
            err.get("type")
            or (named_status if isinstance(named_status, str) else None)
            or (code if isinstance(code, str) else None)
        )
    else:
        message = err
    if not isinstance(message, str) or not message:
        message = json.dumps(err, ensure_ascii=False, sort_keys=True, default=str)

    def http_status(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) and 400 <= value < 600 else None

    status = http_status(code) or http_status(named_status)
    from .retry import classify

    transient = set(retryable_types)
    # an HTTP status decides with its message (a 500 that says the request cannot be served is
    # final, whatever its type); without one, a transient type or code does
    named = (isinstance(etype, str) and etype in transient) or (isinstance(code, str) and code in transient)
    # (classify(500, message): whether a server failure with this message may pass on a retry)
    retryable = classify(status, message) if status is not None else named and classify(500, message)
    return ProviderError(
        api, message, status=status, retryable=retryable, error_type=None if etype is None else str(etype), body=body
    )


def response_events(resp: Response) -> list[StreamEvent]:
    """A decoded :class:`Response` as canonical stream events (for a streamed request answered with
    one JSON body): assembling them gives the same parts, usage and stop reason. The stop event
    is marked ``whole``: the body came complete, so it is not taken for a cut-off stream."""
    events: list[StreamEvent] = [ResponseStart(resp.response_id, resp.model, dict(resp.provider_data))]
    for i, part in enumerate(resp.parts):
        if isinstance(part, TextPart):
            events.append(TextDelta(i, part.text, part.provider_data or None))
        elif isinstance(part, ReasoningPart):
            events.append(
                ReasoningDelta(i, part.text, part.signature, part.encrypted, part.provider, part.provider_data or None)
            )
        elif isinstance(part, ToolCall):
            events.append(ToolCallStart(i, part.id, part.name, part.id_synthesized, part.provider_data or None))
            events.append(
                ToolCallEnd(
                    i,
                    part.arguments if isinstance(part.arguments, dict) else None,  # an invalid call's too
                    part.raw_arguments,
                    invalid=part.invalid,
                    incomplete=part.incomplete,
                )
            )
        elif isinstance(part, ProviderToolPart):
            events.append(ProviderToolDone(i, part))
    events.append(UsageUpdate(resp.usage))
    events.append(StopEvent(resp.stop_reason, resp.vendor_stop_reason, preflight=resp.preflight, whole=True))
    return events


# -- the transport base and the stream-decoder protocol -------------------------------------------


@runtime_checkable
class StreamDecoder(Protocol):
    """One signature for every API's incremental stream decoder: :meth:`feed` takes one parsed
    stream event (an SSE ``data`` object, or one chunk of a JSON-array stream) and returns the
    canonical events it completes; :meth:`finish` returns what the end of the stream completes
    (a cut-off call, the stop event). A stream that ended before the vendor's stop event is not
    an error of :meth:`finish`: the built-in decoders return ``StopEvent("error")`` with
    ``vendor_stop_reason=None`` for it (the assembled response is then a cut-off one), and raise
    nothing there; a malformed event raises from :meth:`feed`."""

    def feed(self, data: Any, /) -> Iterable[StreamEvent]:
        """The canonical events one parsed stream event completes, in order (none while a fragment waits
        for more). A decoder may raise :class:`~toolwire.errors.ProviderError` for an error the vendor
        sent in the stream and :class:`~toolwire.errors.ResponseDecodeError` for a malformed event."""
        ...

    def finish(self) -> Iterable[StreamEvent]:
        """The canonical events the end of the stream completes, asked once after the last :meth:`feed`:
        calls still open and the closing :class:`~toolwire.stream.StopEvent` when :meth:`feed` has not
        given it (``"error"`` for a stream cut off before the vendor's stop)."""
        ...


def stainless_error(
    api: str,
    exc: Any,
    sdk: Any,
    *,
    stream_retryable_types: Iterable[str] = (),
    quota_codes: Container[str] = (),
) -> ProviderError:
    """An exception of a Stainless-generated SDK (``anthropic`` and ``openai`` share these error
    classes) → :class:`ProviderError` with ``provider=api``. ``sdk`` is the SDK module (the
    adapter passes it; the core imports none).

    - ``sdk.APIStatusError``: ``status`` = HTTP status; ``message`` = the body's ``error.message``
      (or a string ``error``, or the body when the SDK unwrapped it to text; without any, the SDK's
      text and the first characters of the body, e.g. an HTML page from a gateway);
      ``error_type`` = ``error.type`` or ``error.code``, else the exception's ``type``; ``body`` =
      the decoded body; ``retryable`` = :func:`toolwire.retry.classify` of the status and message,
      overridden by an ``x-should-retry`` response header when sent (except for a 5xx whose
      message says the request cannot be served); ``retry_after`` from ``retry-after-ms`` /
      ``retry-after``. A 429 whose error type or code (``error.type``, ``error.code``,
      ``error.details.error_code``) is in ``quota_codes`` (the adapter's: a used-up quota or
      spend limit, not a rate limit) is not retryable unless ``x-should-retry: true`` says so.
      An error sent as
      an event inside a 200 stream (the SDK raises it with the stream's status) has
      ``status=None`` and is retryable when its type is in ``stream_retryable_types``.
    - ``sdk.APITimeoutError`` / ``sdk.APIConnectionError``: ``status=None``, ``retryable=True``,
      ``error_type`` ``"timeout"`` / ``"connection_error"`` (the message names the cause).
    - any other ``sdk.APIError``: ``status`` when it has one, not retryable, message and body kept.
    - anything else: :func:`transport_error`.
    """
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, sdk.APIStatusError):
        body = exc.body
        err = body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), dict) else body
        message: Any = None
        etype: Any = None
        if isinstance(err, dict):
            message = err.get("message")
            etype = err.get("type") or err.get("code")
        elif isinstance(body, dict) and isinstance(body.get("error"), str):
            message = body["error"]
        elif isinstance(body, str):
            message = body
        etype = etype or getattr(exc, "type", None)
        if not isinstance(message, str) or not message:
            try:
                text = exc.response.text
            except Exception:
                text = ""
            message = f"{exc.message}: {snippet(text)}" if text.strip() else exc.message
        etype = etype if etype is None or isinstance(etype, str) else str(etype)
        status = exc.status_code
        if isinstance(status, int) and status < 400:  # an error event inside a 200 stream
            return ProviderError(
                api,
                str(message),
                status=None,
                retryable=etype in set(stream_retryable_types),
                error_type=etype,
                body=body,
            )
        from .retry import classify, retry_after_seconds

        headers = getattr(exc.response, "headers", None)
        should = str((headers.get("x-should-retry") if headers is not None else None) or "").lower()
        retryable = classify(status, str(message))
        if status == 429 and quota_codes and isinstance(err, dict):
            details = err.get("details")
            codes = (etype, err.get("code"), details.get("error_code") if isinstance(details, dict) else None)
            if any(isinstance(c, str) and c in quota_codes for c in codes):
                retryable = False  # a used-up quota or spend limit: the same request fails again
        if should in ("true", "false") and not (500 <= status <= 599 and not retryable):
            retryable = should == "true"  # the vendor's own word, unless the body says it will repeat
        return ProviderError(
            api,
            str(message),
            status=status,
            retryable=retryable,
            error_type=etype,
            body=body,
            retry_after=retry_after_seconds(headers),
        )
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderError(api, exc.message or "request timed out", status=None, retryable=True, error_type="timeout")
    if isinstance(exc, sdk.APIConnectionError):
        miss = _cassette_miss(api, exc)
        if miss is not None:
            return miss
        cause = exc.__cause__
        detail = f"{exc.message} ({type(cause).__name__}: {cause})" if cause else exc.message
        return ProviderError(api, detail, status=None, retryable=True, error_type="connection_error")
    if isinstance(exc, sdk.APIError):  # e.g. an error object inside a stream
        status = getattr(exc, "status_code", None)
        body = getattr(exc, "body", None)
        etype = getattr(exc, "type", None)
        if isinstance(body, dict):
            inner = e if isinstance(e := body.get("error"), dict) else body
            etype = inner.get("type") or inner.get("code") or etype
        etype = etype if etype is None or isinstance(etype, str) else str(etype)
        return ProviderError(
            api,
            exc.message,
            status=status if isinstance(status, int) and status >= 400 else None,
            retryable=False,
            error_type=etype,
            body=body,
        )
    return transport_error(api, exc)


async def close_raw(response: Any) -> None:
    """Release a raw HTTP response (``httpx2.Response.aclose`` or ``aiohttp``'s ``release``)."""
    try:
        if hasattr(response, "aclose"):
            if getattr(response, "is_closed", False) is True:  # httpx2: read whole, closed already
                return
            await response.aclose()
        elif hasattr(response, "release"):
            response.release()
    except Exception:  # pragma: no cover - best effort
        pass


class Transport(Model):
    """The base of a thin transport: each adapter is a codec, a profile and one of these.

    A subclass sets :attr:`provider` and ``codec`` and implements two hooks:

    - :meth:`post` — hand the checked wire body to the vendor SDK's lowest documented entry point
      and return the raw HTTP response, unread (the SDK applies auth and timeouts; retries are
      the base's, by :attr:`retry_policy`, with the SDK's own switched off);
    - :meth:`stream_decoder` — the codec's incremental decoder (:class:`StreamDecoder`) for one
      request.

    and may override :meth:`map_error` (SDK exceptions → :class:`ProviderError`; Stainless SDKs
    use :func:`stainless_error`), :meth:`event_data` (which stream events to skip, which are
    errors), :meth:`stream_body` (how a body asks for streaming) and :attr:`array_streams`.

    The base supplies :meth:`send` and :meth:`send_stream`, the same on every API: the body comes
    from :meth:`~toolwire.adapter.Model.prepare` (encoded, repaired and checked against the
    profile: a refused request is never posted), the answer is read as what it is
    (:func:`read_answer`: a JSON body is decoded by ``codec.decode_response``, an event stream is
    decoded event by event), an assembled stream's tool calls are checked
    (:meth:`~toolwire.adapter.Model.check_streamed`) and the raw response is always released.
    """

    #: Whether a JSON array answer is a stream of chunks (Gemini without ``alt=sse``).
    array_streams: bool = False

    # -- hooks ---------------------------------------------------------------------------------
    @abc.abstractmethod
    async def post(self, body: dict[str, Any], *, stream: bool, request: ModelRequest) -> Any:
        """POST ``body`` through the SDK; return the raw HTTP response, unread. SDK errors may
        propagate: the base maps them with :meth:`map_error`."""

    @abc.abstractmethod
    def stream_decoder(self, request: ModelRequest) -> StreamDecoder:
        """A fresh incremental stream decoder for ``request``."""

    def map_error(self, exc: BaseException) -> ProviderError:
        """An exception raised while posting → :class:`ProviderError`. Default:
        :func:`transport_error` (``connection_error`` / ``timeout``)."""
        return transport_error(self.provider, exc)

    def event_data(self, sse: SSEEvent) -> Any:
        """The data of one SSE event for the decoder; :data:`SKIP` to skip it, :data:`END` to end
        the stream; raise :class:`ProviderError` for an error event. Default: ``[DONE]`` ends the
        stream, anything else is :func:`event_json`."""
        if sse.data.startswith("[DONE]"):
            return END
        return event_json(self.provider, sse, deep_ok=self.in_call_arguments)

    def in_call_arguments(self, value: Any, pointer: str) -> bool:
        """Whether ``pointer`` (a JSON pointer into a decoded body, stream event or JSON chunk
        ``value``) lies inside a tool call's parsed arguments, where a value nested deeper than
        :data:`MAX_BODY_DEPTH` is left out and the call answered with an ``is_error`` result.
        Default: ``False`` (APIs whose arguments arrive as text: the whole answer is refused)."""
        return False

    def stream_body(self, body: dict[str, Any], stream: bool) -> dict[str, Any]:
        """``body`` as sent for a streamed (or not) request. Default: ``"stream": true`` set when
        streaming (APIs that say it in the URL override this to return ``body``)."""
        if stream:
            body["stream"] = True
        return body

    # -- the shared path -----------------------------------------------------------------------
    async def _posted(self, request: ModelRequest, stream: bool) -> Any:
        body = self.stream_body(dict(self.prepare(request)), stream)
        try:
            return await self.post(body, stream=stream, request=request)
        except ToolwireError:
            raise
        except (TypeError, ValueError) as exc:
            refused = json_refusal(exc)
            if refused is not None:  # no attempt can send it: not a connection error to retry
                raise ConfigurationError(f"{self.provider}: request not sent: {refused}") from exc
            raise with_server(self.map_error(exc), exc) from exc
        except Exception as exc:
            raise with_server(self.map_error(exc), exc) from exc

    async def answer_events(self, request: ModelRequest, answer: Answer) -> AsyncIterator[StreamEvent]:
        """Canonical events of an answer: an event stream (or JSON-array stream) through
        :meth:`stream_decoder`, or one JSON body decoded and replayed as events."""
        codec = self.codec
        assert codec is not None
        if answer.kind == "json" and not (self.array_streams and isinstance(answer.body, list)):
            for ev in response_events(codec.decode_response(answer.body, request)):
                yield ev
            return
        decoder = self.stream_decoder(request)
        pairs: SurrogatePairs | None = None  # as in send_stream; a JSON-array stream always has one
        if answer.kind == "json":
            pairs = SurrogatePairs()
            if not answer.body:
                raise ResponseDecodeError(self.provider, "the JSON-array stream is empty: it has no chunk")
            for i, chunk in enumerate(answer.body):
                if not isinstance(chunk, dict):
                    raise ResponseDecodeError(
                        self.provider,
                        f"a chunk of a JSON-array stream must be an object, got {snippet(json.dumps(chunk))}",
                        f"/{i}",
                    )
                for ev in pairs.fix(decoder.feed(chunk)):
                    yield ev
        else:
            assert answer.events is not None
            async for sse in answer.events:
                data = self.event_data(sse)
                if data is SKIP:
                    continue
                if data is END:
                    _tell_ended(decoder)
                    break
                evs = decoder.feed(data)
                if pairs is None and "\\u" in sse.data and _SURROGATE_ESCAPE.search(sse.data):
                    pairs = SurrogatePairs()
                for ev in evs if pairs is None else pairs.fix(evs):
                    yield ev
        tail = decoder.finish()
        for ev in tail if pairs is None else _paired_end(pairs, tail):
            yield ev

    @property
    def retry_policy(self) -> Any:
        """The :class:`~toolwire.retry.RetryPolicy` of this model, from its ``retry`` and
        ``max_retries`` settings (:func:`~toolwire.retry.policy_from_settings`; built once)."""
        d: dict[str, Any] = self.__dict__  # type: ignore[assignment]
        policy = d.get("_retry_policy")
        if policy is None:
            from .retry import policy_from_settings

            policy = d["_retry_policy"] = policy_from_settings(self.settings)
        return policy

    async def _send_once(self, request: ModelRequest) -> Response:
        stream = bool(request.stream)
        raw = await self._posted(request, stream)
        answer = None
        try:
            answer = await read_answer(self.provider, raw, arrays=self.array_streams, deep_ok=self.in_call_arguments)
            if answer.kind == "json" and not (self.array_streams and isinstance(answer.body, list)):
                assert self.codec is not None
                return self.codec.decode_response(answer.body, request)
            asm = StreamAssembler(self.provider)
            try:
                async for ev in self.answer_events(request, answer):
                    asm.feed(ev)
            except (ProviderError, ResponseDecodeError) as exc:  # the counts reported go with the error
                note_failed_usage(exc, _seen_usage(asm))
                raise
            response = self.check_streamed(asm.response())
            cut = cut_off(response, self.provider)
            if cut is not None:  # retried by send() as any retryable error (nothing was seen of it)
                note_failed_usage(cut, _seen_usage(asm))
                raise cut
            return response
        finally:
            # (a JSON answer holds no stream to close; an httpx2 response read whole is closed already)
            if answer is not None and (answer.events is not None or answer.source is not None):
                await answer.aclose()
            if getattr(raw, "is_closed", False) is not True or not hasattr(raw, "aclose"):
                await close_raw(raw)

    #: At most this many continuation requests follow one answer (:meth:`continued_request`;
    #: each request is billed).
    max_continuations = 16

    def continued_request(
        self, request: ModelRequest, vendor_stop_reason: str | None, provider_data: Any
    ) -> ModelRequest | None:
        """Hook: the request that continues an answer the vendor cut short but lets the next
        request continue (Gemini's ``CONTINUATION`` with its ``continuationToken``), given the
        answer's ``vendor_stop_reason`` and ``provider_data``; ``None`` (the default) when the
        answer is complete. :meth:`send` and :meth:`send_stream` then send it and make the hops
        one response: the parts in order (a stream's part indices after the earlier hops'), the
        usage summed (each request is billed), the last hop's stop reason; at most
        :attr:`max_continuations` times."""
        return None

    async def send(self, request: ModelRequest) -> Response:
        """Send one request (streamed and assembled when ``request.stream``); return the canonical
        response. A retryable :class:`ProviderError` is retried by :attr:`retry_policy` (the
        vendor SDK's own retries are off): each retry is announced to the
        :func:`toolwire.retry.listening` callback before its wait. Raises
        :class:`~toolwire.errors.RequestRefused` before posting a body that breaks a rule of the
        profile; :class:`ProviderError` for vendor errors, error objects sent with status 200 or
        inside a stream, timeouts and connection failures (after the last attempt);
        :class:`ResponseDecodeError` for an answer that is not UTF-8, not JSON or not of the
        documented shape (never retried), and its retryable kind
        :class:`~toolwire.errors.ResponseIncomplete` for a 2xx body that is empty or cut short
        (retried as a retryable :class:`ProviderError`). The :class:`ProviderError` raised says how many
        attempts were made (``attempts``, and in its text when there was more than one, or why a
        retryable error was not sent again); its ``usage`` holds the counts the failed attempt's
        stream had reported, which the response of no attempt includes. An answer
        the vendor lets the next request continue (:meth:`continued_request`) is continued, and
        the hops are one response."""
        if getattr(self.error_answer, "__func__", None) is Transport.error_answer:
            response = await self._send_retrying(request)
        else:
            try:
                response = await self._send_retrying(request)
            except ProviderError as exc:
                answer = self.error_answer(exc, request)
                if answer is None:
                    raise
                return answer
        hook = self.continued_request
        if getattr(hook, "__func__", None) is Transport.continued_request:
            return response
        hops = 0
        while (
            hops < self.max_continuations
            and (nxt := hook(request, response.vendor_stop_reason, response.provider_data)) is not None
        ):
            hops += 1
            response = _joined(response, await self._send_retrying(nxt))
        return response

    def send_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Yield canonical stream events as the vendor's events arrive (a JSON body answering the
        streamed request is decoded and replayed as events). A retryable error before any part of
        the answer arrived (:func:`toolwire.stream.carries_answer`: the events that only open a
        stream, such as Anthropic's ``message_start`` or Responses ``response.created``, do not
        count) is retried by :attr:`retry_policy` — a stream cut then is one too: a dropped
        connection, or a stream that ends before the vendor's end (the retryable error of
        :func:`toolwire.stream.cut_off`) —: a :class:`toolwire.retry.RetryNotice` is
        yielded before each wait (:class:`~toolwire.stream.StreamAssembler` starts the response
        over at it); an error after a part of the answer is raised (what was delivered cannot be
        taken back). The usage updates of a failed attempt go with its error (``usage``; the
        notice's ``usage``), never into the answer. Errors as :meth:`send`. An answer the vendor
        lets the next request continue
        (:meth:`continued_request`) is continued: the next hop's events follow in the same stream
        (its part indices after the earlier hops', its usage added to theirs; its start and retry
        notices, which would start the response over, left out), and only the last hop's stop
        event ends it."""
        if getattr(self.continued_request, "__func__", None) is Transport.continued_request:
            events = self._stream_retrying(request)
        else:
            events = self._continued_stream(request)
        if getattr(self.error_answer, "__func__", None) is Transport.error_answer:
            return events
        return self._answering_stream(events, request)

    def error_answer(self, exc: ProviderError, request: ModelRequest) -> Response | None:
        """The model's answer made of a vendor error that is the model's output at fault rather
        than the request (a compatible server that checked the model's tool call and refused to
        hand it over), or ``None`` (the default: every error is raised). :meth:`send` returns
        it in place of raising ``exc``; :meth:`send_stream` ends the stream with it after the
        parts already streamed (a tool call already begun is that call, ended as refused with the
        error's message, not repeated). Adapters override it."""
        return None

    async def _answering_stream(
        self, events: AsyncIterator[StreamEvent], request: ModelRequest
    ) -> AsyncIterator[StreamEvent]:
        """``events``, and a :class:`ProviderError` that :meth:`error_answer` turns into an answer
        ending the stream as events."""
        from .retry import RetryNotice

        top = -1  # the highest part index streamed so far
        open_calls: dict[int, None] = {}  # calls started and not ended (in order)
        texted = False  # some text was streamed
        try:
            async for ev in events:
                at = getattr(ev, "index", None)
                if isinstance(at, int) and at > top:
                    top = at
                kind = type(ev)
                if kind is ToolCallStart:
                    open_calls[ev.index] = None  # type: ignore[union-attr]
                elif kind is ToolCallEnd:
                    open_calls.pop(ev.index, None)  # type: ignore[union-attr]
                elif kind is TextDelta:
                    texted = True
                elif kind is StopEvent or isinstance(ev, RetryNotice):
                    open_calls.clear()  # (a retry starts the answer over)
                    texted = False
                yield ev
        except ProviderError as exc:
            answer = self.error_answer(exc, request)
            if answer is None:
                raise
            pd = answer.provider_data
            if open_calls:
                # the refused call had begun to stream: it is that call, ended as refused (the
                # run answers it with the reason), not a second copy of it
                why = exc.message or answer.vendor_stop_reason or "refused"
                for at in open_calls:
                    yield ToolCallEnd(at, invalid=f"the server refused this tool call: {why}")
                yield StopEvent("tool_use", answer.vendor_stop_reason, pd)
                return
            for k, call in enumerate(answer.tool_calls):
                yield ToolCallStart(top + 1 + k, call.id, call.name, id_synthesized=call.id_synthesized)
                yield ToolCallEnd(top + 1 + k, raw_arguments=call.raw_arguments or "{}")
            if not answer.tool_calls and not texted:  # (text already streamed is the model's own)
                for part in answer.parts:
                    if isinstance(part, TextPart):
                        top += 1
                        yield TextDelta(top, part.text)
            yield StopEvent(answer.stop_reason, answer.vendor_stop_reason, pd)
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

    async def _continued_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        from .retry import RetryNotice

        hop_request, hops, offset, before = request, 0, 0, None
        while True:
            nxt, top, last = None, offset - 1, None
            hop: Any = self._stream_retrying(hop_request)
            try:
                async for ev in hop:
                    if isinstance(ev, StopEvent) and hops < self.max_continuations:
                        nxt = self.continued_request(request, ev.vendor_stop_reason, ev.provider_data)
                        if nxt is not None:
                            continue  # not the end of the answer (the hop's stream ends after it)
                    if isinstance(ev, UsageUpdate):
                        last = ev.usage
                        if before is not None:
                            ev = UsageUpdate(_usage_sum(before, ev.usage))
                    elif hops and isinstance(ev, (ResponseStart, RetryNotice)):
                        continue  # one response; a retry before this hop's first part took nothing back
                    elif (index := getattr(ev, "index", None)) is not None:
                        if hops:
                            ev = dataclasses.replace(ev, index=index + offset)
                        top = max(top, index + offset)
                    yield ev
            finally:  # a consumer that stops early closes this hop's response now
                await hop.aclose()
            if nxt is None:
                return
            hops, offset = hops + 1, top + 1
            if last is not None:
                before = last if before is None else _usage_sum(before, last)
            hop_request = self.before_encode(nxt, stream=True)

    async def _send_retrying(self, request: ModelRequest) -> Response:
        """One request (:meth:`send` without continuation), retried by :attr:`retry_policy`."""
        attempt = 1
        while True:
            try:
                return await self._send_once(request)
            except ProviderError as exc:
                policy = self.retry_policy
                delay = policy.delay_for(exc, attempt)
                if delay is None:
                    exc.gave_up(attempt, policy.why_not(exc, attempt))
                    raise
                import asyncio

                from .retry import RetryNotice, notify

                attempt += 1
                notify(RetryNotice(attempt, delay, exc))
                await asyncio.sleep(delay)

    async def _stream_retrying(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """One streamed request (:meth:`send_stream` without continuation), retried as it says."""
        attempt = 1
        while True:
            delivered = False
            seen = None  # the usage this attempt's stream reported so far
            try:
                raw = await self._posted(request, True)
                answer = None
                try:  # the events are yielded from here (one generator layer per event, not two)
                    answer = await read_answer(
                        self.provider, raw, arrays=self.array_streams, deep_ok=self.in_call_arguments
                    )
                    if answer.kind == "sse" and answer.events is not None:  # as answer_events
                        decoder = self.stream_decoder(request)
                        event_data = self.event_data
                        pairs = None  # a SurrogatePairs once the stream spells a surrogate
                        async for sse in answer.events:
                            data = event_data(sse)
                            if data is SKIP:
                                continue
                            if data is END:
                                _tell_ended(decoder)
                                break
                            evs = decoder.feed(data)
                            if pairs is None and "\\u" in sse.data and _SURROGATE_ESCAPE.search(sse.data):
                                pairs = SurrogatePairs()
                            for ev in evs if pairs is None else pairs.fix(evs):
                                if not delivered:
                                    delivered = _answer_or_cut(ev, self.provider)
                                if isinstance(ev, UsageUpdate):
                                    seen = reported_usage(seen, ev.usage)
                                yield ev
                        tail = decoder.finish()
                        for ev in tail if pairs is None else _paired_end(pairs, tail):
                            if not delivered:
                                delivered = _answer_or_cut(ev, self.provider)
                            if isinstance(ev, UsageUpdate):
                                seen = reported_usage(seen, ev.usage)
                            yield ev
                    else:
                        async for ev in self.answer_events(request, answer):
                            if not delivered:
                                delivered = _answer_or_cut(ev, self.provider)
                            if isinstance(ev, UsageUpdate):
                                seen = reported_usage(seen, ev.usage)
                            yield ev
                finally:  # a stream stopped early or failed is closed now, on this task
                    if answer is not None:
                        await answer.aclose()
                    await close_raw(raw)
                return
            except ProviderError as exc:
                note_failed_usage(exc, seen)
                policy = self.retry_policy
                delay = None if delivered else policy.delay_for(exc, attempt)
                if delay is None:
                    exc.gave_up(attempt, policy.why_not(exc, attempt, streamed=delivered))
                    raise
                from .retry import RetryNotice

                attempt += 1
                notice = RetryNotice(attempt, delay, exc)
            except ResponseDecodeError as exc:  # never retried; the counts reported before it go with it
                # (a ResponseIncomplete is a retryable ProviderError too: the clause above takes it)
                note_failed_usage(exc, seen)
                raise
            yield notice  # type: ignore[misc]
            import asyncio

            await asyncio.sleep(delay)


def _answer_or_cut(ev: Any, provider: str) -> bool:
    """:func:`carries_answer` for an event of an attempt that has delivered no part of its answer
    yet; raises the retryable ``ProviderError`` of :func:`cut_off` when ``ev`` is the stop of a
    stream that ended before the vendor's end (nothing of its answer had arrived: the request is
    sent again, as after a failure before the first byte)."""
    if isinstance(ev, StopEvent) and ev.stop_reason == "error" and ev.vendor_stop_reason is None and not ev.whole:
        cut = cut_off(Response(stop_reason="error", provider=provider), provider)
        assert cut is not None
        raise cut
    return carries_answer(ev)


def _seen_usage(asm: StreamAssembler) -> Any:
    """The counts the stream fed to ``asm`` had reported (``None`` when none)."""
    usage = asm.usage
    if not has_counts(usage):
        return None
    return reported_usage(None, usage)


def _usage_sum(a: Any, b: Any) -> Any:
    """``a + b`` with the ``requests`` of ``a`` (or ``b`` when ``a`` has none): one response."""
    total = a + b
    total.requests = a.requests or b.requests
    return total


def _joined(first: Response, nxt: Response) -> Response:
    """The response continued by ``nxt`` (:meth:`Transport.continued_request`): both hops' parts
    in order, the usage summed, the stop reason, model and provider data of the last hop."""
    return dataclasses.replace(
        nxt,
        parts=[*first.parts, *nxt.parts],
        usage=_usage_sum(first.usage, nxt.usage),
        model=nxt.model or first.model,
        response_id=first.response_id or nxt.response_id,
    )


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name: str = name

    def __repr__(self) -> str:
        return self.name


def _paired_end(pairs: SurrogatePairs, tail: Iterable[StreamEvent]) -> Iterator[StreamEvent]:
    yield from pairs.fix(tail)
    yield from pairs.finish()


#: :meth:`Transport.event_data` results: skip this event / the stream ends here.
SKIP = _Marker("SKIP")
END = _Marker("END")


def _tell_ended(decoder: Any) -> None:
    """Tell a stream decoder that the stream's own end marker arrived (Chat's ``data: [DONE]``),
    through its optional ``ended()``: a stream that ends so is complete even without a stop
    reason (some OpenAI-compatible servers send none)."""
    ended = getattr(decoder, "ended", None)
    if ended is not None:
        ended()


class StainlessPost:
    """``client.post(path, cast_to=..., content=... | body=..., options=..., stream=..., stream_cls=...)``
    of a Stainless-generated SDK (``anthropic``, ``openai``), with its per-request options built
    from a kept template.

    The SDKs' ``post()`` builds ``FinalRequestOptions.construct(method="post", url=path,
    json_data=body, content=content, files=None, **options)`` and hands it to
    ``client.request(cast_to, options, stream=..., stream_cls=...)``, which makes its own copy
    before reading or changing anything (``_copy_and_prepare``: ``model_copy(options)``, then
    ``json_data`` and ``params`` reassigned, never edited in place). pydantic's ``construct`` copies
    every field's default, about 20 µs per request on the project's machine. Here the options are
    constructed once per path and options mapping (told apart by their pickled bytes, taken each call: an
    edited mapping, ``1`` against ``1.0`` or another key order get their own), and each request gets a shallow copy of them
    (``model_copy(update=...)``) carrying its body and fresh copies of the mutable fields: the same
    options, in about 2 µs, through the same ``client.request``. An SDK whose options class or client
    lacks what this relies on (``construct``, ``model_copy``, ``request``) is sent through its
    ``post()`` unchanged. ``options_class`` is the SDK's ``FinalRequestOptions`` (the adapter imports
    it; the core imports no SDK)."""

    __slots__ = ("_options_class", "_templates")

    #: templates kept per instance (one per path and options mapping in practice)
    size = 8

    _by_class: dict[Any, StainlessPost] = {}

    @classmethod
    def of(cls, options_class: Any) -> StainlessPost:
        """The one instance for ``options_class`` (an SDK's ``FinalRequestOptions``), shared by
        every model of that SDK."""
        post = cls._by_class.get(options_class)
        if post is None:
            post = cls._by_class[options_class] = cls(options_class)
        return post

    def __init__(self, options_class: Any) -> None:
        self._options_class = options_class
        # (path, options as given, the constructed template, its names of dict-valued fields)
        self._templates: list[tuple[str, bytes, Any, tuple[str, ...]]] = []

    def _options(self, path: str, options: dict[str, Any], content: Any, body: Any) -> Any | None:
        import pickle

        try:  # the key: exact (1 and 1.0 apart, key order kept) and taken anew each call (an edited mapping is seen)
            key = pickle.dumps(options, 5)
        except Exception:
            return None
        hit = None
        for entry in self._templates:
            if entry[0] == path and entry[1] == key:
                hit = entry
                break
        if hit is None:
            made = self._options_class.construct(  # from a copy: the caller's mapping is never shared
                method="post", url=path, json_data=None, content=None, files=None, **pickle.loads(key)
            )
            names = tuple(k for k, v in vars(made).items() if isinstance(v, (dict, list)))
            if len(self._templates) >= self.size:
                del self._templates[0]
            hit = (path, key, made, names)
            self._templates.append(hit)
        template, mutable = hit[2], hit[3]
        fields = vars(template)
        update: dict[str, Any] = {k: copy_container(fields[k]) for k in mutable}
        update["content"] = content
        update["json_data"] = body
        return template.model_copy(update=update)

    async def post(
        self,
        client: Any,
        path: str,
        *,
        cast_to: Any,
        content: bytes | None = None,
        body: Any = None,
        options: dict[str, Any] | None = None,
        stream: bool = False,
        stream_cls: Any = None,
    ) -> Any:
        """What ``client.post(path, cast_to=cast_to, content=content, body=body, options=options,
        stream=stream, stream_cls=stream_cls)`` returns, and raises what it raises."""
        options = options or {}
        request = getattr(client, "request", None)
        if request is None or not hasattr(self._options_class, "model_copy"):
            return await client.post(
                path, cast_to=cast_to, content=content, body=body, options=options, stream=stream, stream_cls=stream_cls
            )
        if body is not None and content is not None:
            raise TypeError("Passing both `body` and `content` is not supported")  # as post() refuses it
        opts = self._options(path, options, content, body)
        if opts is None:  # options the pickler cannot take: constructed by post() itself
            return await client.post(
                path, cast_to=cast_to, content=content, body=body, options=options, stream=stream, stream_cls=stream_cls
            )
        if stream:
            return await request(cast_to, opts, stream=True, stream_cls=stream_cls)
        return await request(cast_to, opts)


def copy_container(value: Any) -> Any:
    """A shallow copy of a dict or list (another value as it is)."""
    t = type(value)
    if t is dict or t is list:
        return t(value)
    return value.copy() if isinstance(value, (dict, list)) else value
