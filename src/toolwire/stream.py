"""Canonical stream events and the one shared assembler.

Each adapter's ``decode_stream(events)`` turns the vendor's parsed stream events (SSE ``data``
objects, Gemini chunks) into these canonical events; :class:`StreamAssembler` builds the same
:class:`~toolwire.types.Response` a non-streamed call would give.

``index`` identifies a part within the response (Anthropic content-block index, Responses
``output_index``, …). Adapters pick indexes so that sorting by index gives the vendor's order.
"""

from __future__ import annotations

import json
import re
from copy import copy as _shallow_copy
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Union, cast

from ._words import plural
from .arguments import MAX_ARGUMENT_CHARS, parse_arguments
from .errors import ProviderError, ResponseDecodeError
from .retry import RetryNotice
from .types import ProviderToolPart, ReasoningPart, Response, StopReason, TextPart, ToolCall, Usage

__all__ = [
    "ResponseStart",
    "TextDelta",
    "ReasoningDelta",
    "ToolCallStart",
    "ToolCallDelta",
    "ToolCallEnd",
    "UsageUpdate",
    "ProviderToolDone",
    "StopEvent",
    "StreamEvent",
    "StreamAssembler",
    "SurrogatePairs",
    "assemble",
    "carries_answer",
    "reported_usage",
    "has_counts",
    "note_failed_usage",
]


@dataclass
class ResponseStart:
    """The start of a streamed response: the vendor's ``response_id`` and ``model`` (``None`` when
    it sent none; a value set earlier is then kept) and opaque ``provider_data``, merged into the
    response's per API name."""

    response_id: str | None = None
    model: str | None = None
    provider_data: dict[str, Any] = field(default_factory=dict)


@dataclass
class TextDelta:
    """Visible text appended to the text part at ``index`` (the first delta makes the part).
    ``provider_data``, when given, is merged into the part's per API name."""

    index: int
    text: str
    provider_data: dict[str, Any] | None = None  # merged into the part's provider_data


@dataclass
class ReasoningDelta:
    """Reasoning text (appended) and/or opaque material: ``signature`` and ``encrypted`` replace
    the part's earlier value (Anthropic sends one ``signature_delta``; Responses the whole
    ``encrypted_content`` at ``output_item.done``). ``final_text``, when given, is the part's
    whole text and replaces what the earlier deltas gave (Responses: the finished item's summary
    when it differs from the streamed summary deltas)."""

    index: int
    text: str = ""
    signature: str | None = None
    encrypted: str | None = None
    provider: str | None = None
    provider_data: dict[str, Any] | None = None
    final_text: str | None = None


@dataclass
class ToolCallStart:
    """A tool call starts at ``index``: its ``id`` (``id_synthesized`` when toolwire made it because
    the vendor sent none) and ``name``; an empty ``id`` or ``name`` keeps the value an earlier
    start gave. ``provider_data`` is merged into the call's per API name."""

    index: int
    id: str
    name: str
    id_synthesized: bool = False
    provider_data: dict[str, Any] | None = None


@dataclass
class ToolCallDelta:
    """A fragment of the argument text (JSON) of the tool call at ``index``, appended; the joined text
    is parsed at its :class:`ToolCallEnd`. Before the call's :class:`ToolCallStart` it is out of
    order (:class:`~toolwire.errors.ResponseDecodeError` from the assembler)."""

    index: int
    arguments_fragment: str


@dataclass
class ToolCallEnd:
    """The call at ``index`` is complete. ``arguments`` is given when the vendor sent an object
    (Gemini); otherwise the joined fragments are parsed. ``raw_arguments`` overrides the joined
    fragments when the vendor sends the final text (Responses ``.done``)."""

    index: int
    arguments: dict[str, Any] | None = None
    raw_arguments: str | None = None
    provider_data: dict[str, Any] | None = None
    # the call is unusable for this reason (kept on the assembled ToolCall; with no arguments,
    # no raw text and no fragments, the call keeps arguments None)
    invalid: str | None = None
    incomplete: bool = False


@dataclass
class UsageUpdate:
    """Usage so far. Fields that are not ``None`` overwrite (vendors report cumulative counts,
    e.g. Anthropic ``message_delta.usage``); they are never added."""

    usage: Usage


@dataclass
class ProviderToolDone:
    """A complete block of one of the vendor's own server-side tools (its call or its result,
    :class:`~toolwire.types.ProviderToolPart`) at ``index``; it arrives whole."""

    index: int
    part: ProviderToolPart


@dataclass
class StopEvent:
    """The end of a streamed response: the canonical ``stop_reason``, the vendor's own
    ``vendor_stop_reason``, opaque ``provider_data``, and ``preflight``: the
    :class:`~toolwire.profile.RequestReport` of the repairs preflight made to the request (set by
    the :class:`~toolwire.adapter.Model` base on the stream's stop event when there were any;
    the assembled :attr:`Response.preflight <toolwire.types.Response.preflight>`). ``whole``:
    the events replay one whole body (a streamed request answered with a JSON body), so the
    response is never taken for a cut-off stream (:func:`cut_off`). ``preflight`` and ``whole``
    take no part in equality."""

    stop_reason: str
    vendor_stop_reason: str | None = None
    provider_data: dict[str, Any] | None = None
    preflight: Any = field(default=None, compare=False, repr=False)
    whole: bool = field(default=False, compare=False, repr=False)


StreamEvent = Union[
    ResponseStart,
    TextDelta,
    ReasoningDelta,
    ToolCallStart,
    ToolCallDelta,
    ToolCallEnd,
    UsageUpdate,
    ProviderToolDone,
    StopEvent,
]


#: Fragments kept as objects before they are joined into one chunk (each byte is copied twice in
#: all: once into its chunk, once into the final text; at most this many small objects are held).
_JOIN_EVERY = 512


class _Slot:
    """One part of the response being assembled: its ``kind``, the ``part`` object and, for text,
    reasoning and tool-call arguments, the text so far: the latest ``frags`` (at most
    :data:`_JOIN_EVERY`) and the ``chunks`` they were joined into before."""

    __slots__ = ("kind", "part", "frags", "chunks", "ended", "snapshot")

    def __init__(self, kind: str, part: Any) -> None:
        self.kind = kind
        self.part = part
        self.frags: list[str] = []
        self.chunks: list[str] = []
        self.ended = False
        #: tool-call arguments: the last fragment while every non-empty fragment so far repeats
        #: or extends the one before it (a server resending the whole text each time), else None
        self.snapshot: str | None = ""

    def fold(self) -> None:
        self.chunks.append("".join(self.frags))
        self.frags.clear()

    def text(self) -> str:
        if not self.chunks:
            return "".join(self.frags)
        return "".join(self.chunks) + "".join(self.frags)


_RAW_DECODER = json.JSONDecoder()


def _resent_arguments(text: str, snapshot: str | None) -> str | None:
    """The argument text of a call whose server sent it more than once, or ``None``.

    Called only when ``text`` (the joined fragments, or the vendor's final text) is not one JSON
    object. OpenAI-compatible servers are reported to send a call's arguments *cumulatively*,
    each fragment the whole text so far (DeepSeek and Baidu Qianfan endpoints: "resend the full
    arguments-so-far in every stream chunk ... producing {...}{...}{...}",
    NousResearch/hermes-agent#35718), or to send the whole text again after streaming it
    ("Each tool call produces 3 SSE chunks instead of 2", lidge-jun/opencodex#361; GLM through
    local servers, anomalyco/opencode#17339; a gateway's consolidated chunk, elizaOS/eliza#16973).
    The call the model made is then ``snapshot`` (the last fragment, when every fragment repeated
    or extended the one before it) if that is one JSON object, else the first of the JSON
    objects ``text`` consists of when they are all equal. Anything else stays invalid."""
    if snapshot and snapshot != text and parse_arguments(snapshot)[1] is None:
        return snapshot
    if len(text) > MAX_ARGUMENT_CHARS:
        return None
    values: list[Any] = []
    first = ""
    pos, size = 0, len(text)
    try:
        while pos < size:
            while pos < size and text[pos] in " \t\r\n":
                pos += 1
            if pos == size:
                break
            value, end = _RAW_DECODER.raw_decode(text, pos)
            if not isinstance(value, dict) or (values and value != values[0]):
                return None
            if not values:
                first = text[pos:end]
            values.append(value)
            pos = end
    except (ValueError, RecursionError):
        return None
    return first if len(values) > 1 else None


def _copy_pd(pd: dict[str, Any]) -> dict[str, Any]:
    """``pd`` with each API's dict copied (what :meth:`StreamAssembler._merge_pd` updates in place)."""
    return {api: dict(v) if isinstance(v, dict) else v for api, v in pd.items()}


def _copy(value: Any) -> Any:
    """A shallow copy of a part or usage whose ``provider_data`` is copied one level deeper."""
    c = _shallow_copy(value)
    pd = getattr(c, "provider_data", None)
    if pd:
        c.provider_data = _copy_pd(pd)
    return c


class StreamAssembler:
    """Feed canonical events with :meth:`feed`; call :meth:`response` at the end.

    Text, reasoning and tool-call argument fragments are kept per index and joined in
    :meth:`response`, linear in the length: every few hundred fragments are joined into one chunk
    as they arrive, so a long stream of small deltas holds its text, not one object per delta
    (arguments parsed once, empty text → ``{}``). :meth:`response` may also
    be called mid-stream (a partial response); feeding may go on after it.
    A tool call never ended, or whose text does not parse while the stop reason is
    ``max_tokens``, is marked ``incomplete`` and will not be run by the loop. A call whose server
    sent its argument text more than once (cumulative fragments, or the whole text again) is
    read as sent once when the joined text is not one JSON object (:func:`_resent_arguments`).

    Raises :class:`~toolwire.errors.ResponseDecodeError` for events out of order (arguments
    before their tool call started, an end without a start, an event of another kind for an
    index already used) and ``TypeError`` for an object that is not a stream event.
    """

    def __init__(self, provider: str | None = None) -> None:
        self.provider = provider
        self._slots: dict[int, _Slot] = {}
        self.response_id: str | None = None
        self.model: str | None = None
        self.usage: Usage = Usage()
        self.stop_reason: str | None = None
        self.vendor_stop_reason: str | None = None
        self.provider_data: dict[str, Any] = {}
        self.preflight: Any = None
        #: the stop event said the events replay one whole body (never a cut-off stream)
        self.whole = False

    def _new(self, index: int, kind: str, part: Any) -> _Slot:
        slot = self._slots[index] = _Slot(kind, part)
        return slot

    def _wrong_kind(self, kind: str, slot: _Slot) -> ResponseDecodeError:
        return ResponseDecodeError(
            self.provider or "stream", f"a {kind} event arrived for a part that is a {slot.kind} part"
        )

    @staticmethod
    def _merge_pd(part: Any, pd: dict[str, Any] | None) -> None:
        if not pd:
            return
        for api, value in pd.items():
            if isinstance(value, dict) and isinstance(part.provider_data.get(api), dict):
                part.provider_data[api].update(value)
            else:
                part.provider_data[api] = value

    def feed(self, event: StreamEvent) -> None:
        """Take one canonical event. A :class:`RetryNotice` starts the response over: the
        request is sent again, and nothing of the answer had arrived (:func:`carries_answer`)."""
        # one dictionary look-up per event, by its exact class (a subclass is looked up once by
        # its bases): the handlers of the many small deltas do no other dispatch
        handler = _HANDLERS.get(type(event))
        if handler is None:
            handler = _handler_for(type(event), event)
        handler(self, event)

    def _on_start(self, event: ResponseStart) -> None:
        if event.response_id is not None:  # ("" as sent: the same as the whole body decoded)
            self.response_id = event.response_id
        if event.model is not None:
            self.model = event.model
        self._merge_pd(self, event.provider_data)

    def _on_text(self, event: TextDelta) -> None:
        slot = self._slots.get(event.index)
        if slot is None:
            slot = self._new(event.index, "text", TextPart(""))
        elif slot.kind != "text":
            raise self._wrong_kind("text", slot)
        frags = slot.frags
        frags.append(event.text)  # joined once in response(), a chunk at a time
        if len(frags) >= _JOIN_EVERY:
            slot.fold()
        if event.provider_data:
            self._merge_pd(slot.part, event.provider_data)

    def _on_reasoning(self, event: ReasoningDelta) -> None:
        slot = self._slots.get(event.index)
        if slot is None:
            slot = self._new(event.index, "reasoning", ReasoningPart(provider=event.provider or self.provider))
        elif slot.kind != "reasoning":
            raise self._wrong_kind("reasoning", slot)
        frags = slot.frags
        if event.final_text is not None:
            slot.chunks.clear()
            frags[:] = [event.final_text]
        frags.append(event.text)
        if len(frags) >= _JOIN_EVERY:
            slot.fold()
        if event.signature is not None:
            slot.part.signature = event.signature
        if event.encrypted is not None:
            slot.part.encrypted = event.encrypted
        if event.provider_data:
            self._merge_pd(slot.part, event.provider_data)

    def _on_call_start(self, event: ToolCallStart) -> None:
        slot = self._slots.get(event.index)
        if slot is None:
            slot = self._new(event.index, "tool_call", ToolCall(id=event.id, name=event.name, arguments=None))
        elif slot.kind != "tool_call":
            raise self._wrong_kind("tool_call", slot)
        slot.part.id = event.id or slot.part.id
        slot.part.name = event.name or slot.part.name
        slot.part.id_synthesized = event.id_synthesized
        self._merge_pd(slot.part, event.provider_data)

    def _on_call_delta(self, event: ToolCallDelta) -> None:
        slot = self._slots.get(event.index)
        if slot is None or slot.kind != "tool_call":
            raise ResponseDecodeError(
                self.provider or "stream", "tool call arguments arrived before the tool call started"
            )
        frags = slot.frags
        frag = event.arguments_fragment
        frags.append(frag)
        last = slot.snapshot
        if last is not None and frag and (len(frag) < len(last) or not frag.startswith(last)):
            slot.snapshot = None  # an ordinary piece: the fragments are joined
        elif last is not None and frag:
            slot.snapshot = frag
        if len(frags) >= _JOIN_EVERY:
            slot.fold()

    def _on_call_end(self, event: ToolCallEnd) -> None:
        slot = self._slots.get(event.index)
        if slot is None or slot.kind != "tool_call":
            raise ResponseDecodeError(self.provider or "stream", "a tool call ended before it started")
        call: ToolCall = slot.part
        if event.arguments is not None:
            call.arguments, call.invalid = dict(event.arguments), None
            call.raw_arguments = event.raw_arguments
        elif event.invalid is not None and event.raw_arguments is None and not slot.frags and not slot.chunks:
            # a call already found unusable, with no argument text at all (a whole body whose
            # arguments were not an object): nothing to parse, it keeps no arguments
            call.arguments, call.raw_arguments = None, None
        else:
            raw = event.raw_arguments if event.raw_arguments is not None else slot.text()
            arguments, invalid = parse_arguments(raw)
            if invalid is not None:
                resent = _resent_arguments(raw, slot.snapshot if event.raw_arguments is None else None)
                if resent is not None:
                    raw, (arguments, invalid) = resent, parse_arguments(resent)
            call.raw_arguments = raw
            call.arguments, call.invalid = arguments, invalid
        if event.invalid is not None:
            call.invalid = event.invalid
        if event.incomplete:
            call.incomplete = True
        self._merge_pd(call, event.provider_data)
        slot.ended = True

    def _on_usage(self, event: UsageUpdate) -> None:
        for name, value in event.usage.to_dict().items():
            if value is not None and name != "requests":
                setattr(self.usage, name, value)

    def _on_provider_tool(self, event: ProviderToolDone) -> None:
        slot = self._slots.get(event.index)
        if slot is None:
            self._new(event.index, "provider_tool", event.part)
        elif slot.kind != "provider_tool":
            raise self._wrong_kind("provider_tool", slot)
        else:
            slot.part = event.part

    def _on_stop(self, event: StopEvent) -> None:
        self.stop_reason = event.stop_reason
        self.vendor_stop_reason = event.vendor_stop_reason
        self.whole: bool = event.whole
        if event.preflight is not None:
            self.preflight = event.preflight
        self._merge_pd(self, event.provider_data)

    def _on_retry(self, event: RetryNotice) -> None:
        # the transport sends the request again: what came before belonged to the failed
        # attempt (at most the events that open a stream: an id, usage, an empty part;
        # carries_answer), and the new attempt's answer is assembled from nothing
        self.__init__(self.provider)  # type: ignore[misc]

    def response(self) -> Response:
        """The :class:`~toolwire.types.Response` of the events fed so far: parts in index order,
        ``stop_reason`` ``"end_turn"`` when no stop event came, ``usage.requests`` at least 1,
        ``provider`` the assembler's. A tool call not yet ended is marked ``incomplete`` with
        ``invalid`` saying why (the output-token limit, or the stream ended before it was complete)."""
        parts = []
        stop = self.stop_reason or "end_turn"
        # before the stop event (mid-stream, or a stream that broke off) the response is a
        # snapshot: its parts are copies, so feeding on neither changes it nor inherits the
        # "incomplete" mark it gives a call still open
        snapshot = self.stop_reason is None
        for index in sorted(self._slots):
            slot = self._slots[index]
            part = _copy(slot.part) if snapshot else slot.part
            if slot.kind in ("text", "reasoning"):
                part.text = slot.text()
            if slot.kind == "tool_call" and not slot.ended:
                # the vendor never closed this call: whatever its text, it is not safe to run
                raw = slot.text()
                part.raw_arguments = raw
                part.arguments, _ = parse_arguments(raw)
                part.incomplete = True
                part.invalid = (
                    "the output-token limit cut this tool call off"
                    if stop == "max_tokens"
                    else "the stream ended before this tool call was complete"
                )
            if slot.kind == "tool_call" and stop == "max_tokens" and part.invalid is not None and not self.whole:
                part.incomplete = True  # (a whole body's calls came with their own incomplete flag)
            parts.append(part)
        if self.usage.requests == 0:
            self.usage.requests = 1
        return Response(
            parts=parts,
            stop_reason=cast(StopReason, stop),
            vendor_stop_reason=self.vendor_stop_reason,
            usage=_copy(self.usage) if snapshot else self.usage,
            model=self.model,
            response_id=self.response_id,
            provider=self.provider,
            provider_data=_copy_pd(self.provider_data) if snapshot else self.provider_data,
            preflight=self.preflight,
        )


_HANDLERS: dict[type, Any] = {
    ResponseStart: StreamAssembler._on_start,
    TextDelta: StreamAssembler._on_text,
    ReasoningDelta: StreamAssembler._on_reasoning,
    ToolCallStart: StreamAssembler._on_call_start,
    ToolCallDelta: StreamAssembler._on_call_delta,
    ToolCallEnd: StreamAssembler._on_call_end,
    UsageUpdate: StreamAssembler._on_usage,
    ProviderToolDone: StreamAssembler._on_provider_tool,
    StopEvent: StreamAssembler._on_stop,
    RetryNotice: StreamAssembler._on_retry,
}


def carries_answer(event: Any) -> bool:
    """Whether a canonical stream event carries part of the answer: text or reasoning (its text,
    signature or encrypted content), a tool call (its start, arguments or end), a server-side
    tool's block, or the stop. The events that only open a stream (:class:`ResponseStart`,
    :class:`UsageUpdate`, a text or reasoning delta with nothing in it: Anthropic's
    ``message_start`` and an empty ``content_block_start``, Responses ``response.created``, a
    Chat chunk with only the role, a Gemini chunk with only usage) do not. A transport sends a
    request again after a retryable error only while no event of its stream carried the answer
    (:meth:`toolwire.transport.Transport.send_stream`)."""
    cls = type(event)
    if cls is TextDelta or isinstance(event, TextDelta):
        return bool(event.text)
    if cls is ReasoningDelta or isinstance(event, ReasoningDelta):
        return bool(event.text or event.signature or event.encrypted or event.final_text)
    if isinstance(event, ToolCallDelta):
        return bool(event.arguments_fragment)
    return isinstance(event, (ToolCallStart, ToolCallEnd, ProviderToolDone, StopEvent))


def reported_usage(seen: Usage | None, update: Usage) -> Usage:
    """The counts an attempt has reported so far: ``seen`` (``None`` before the first) with the
    counts of ``update`` that are not ``None`` written over it, as :class:`StreamAssembler`
    reads a :class:`UsageUpdate` (vendors send cumulative counts); ``requests`` is 1. A new
    :class:`Usage`; neither argument is changed."""
    merged = Usage(requests=1) if seen is None else Usage(**seen.to_dict())
    for name, value in update.to_dict().items():
        if value is not None and name != "requests":
            setattr(merged, name, value)
    return merged


def has_counts(usage: Usage) -> bool:
    """Whether ``usage`` holds any reported token count (``requests`` aside)."""
    return any(v is not None for k, v in usage.to_dict().items() if k != "requests")


def note_failed_usage(error: Any, seen: Usage | None) -> None:
    """Give the :class:`~toolwire.errors.ProviderError` (or ``ResponseDecodeError``) ``error`` the
    counts its failed attempt reported (its ``usage``): ``seen`` (the stream's usage updates before
    it failed) with the counts the error itself carries over them (e.g. a Responses ``response.failed`` body's
    ``usage``, set by the decoder); left ``None`` when no count was reported."""
    own = getattr(error, "usage", None)
    if seen is None:
        if own is not None and own.requests == 0:
            own.requests = 1  # one request, as every usage toolwire reports
        return
    merged = seen if own is None else reported_usage(seen, own)
    if has_counts(merged):
        error.usage = merged


def _handler_for(cls: type, event: Any) -> Any:
    """The handler of an event class not in :data:`_HANDLERS` (a subclass of an event): its
    nearest event base's, remembered for the class."""
    for base in cls.__mro__[1:]:
        handler = _HANDLERS.get(base)
        if handler is not None:
            _HANDLERS[cls] = handler
            return handler
    raise TypeError(f"not a stream event: {event!r}")


_DELTA_TEXT = {TextDelta: "text", ReasoningDelta: "text", ToolCallDelta: "arguments_fragment"}


class SurrogatePairs:
    """Joins UTF-16 surrogate pairs split over two deltas, for a stream that holds surrogates.

    Some servers stream an astral character (an emoji) as a JSON surrogate-pair escape split over
    two events (``"\\ud83d"``, then ``"\\ude00"``). The transport keeps a surrogate at the edge of
    a delta's text (:func:`toolwire.transport.event_json`; every other lone one is U+FFFD
    already) and passes the stream's canonical events through :meth:`fix`: a high surrogate that
    ends a text, reasoning or argument delta is held back; the next delta of the same part starts
    with the whole character when it begins with the low half, else with U+FFFD; a low surrogate
    without its high half is U+FFFD; a held half that nothing completes (another event of its part
    or of the whole answer comes, or the stream ends: :meth:`finish`) is sent as a delta of its
    own, U+FFFD; deltas of other parts may come in between (parallel tool calls whose argument
    deltas interleave). So any split of a text
    gives the text the unsplit stream gives, and no delta carries half a pair. Delta events are
    changed in place (their ``provider_data`` too: lone surrogates there are U+FFFD)."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held: dict[tuple[type, int], str] = {}  # (delta class, index) -> a high surrogate

    def fix(self, events: Iterable[StreamEvent]) -> Iterator[StreamEvent]:
        """``events`` passed on in order (a generator), delta events changed in place: a high surrogate
        ending a delta is held back and joined to the low half that starts the next delta of its part;
        a half nothing completes comes out as a U+FFFD delta of its own. Call :meth:`finish` at the
        end of the stream for the halves still held."""
        for ev in events:
            attr = _DELTA_TEXT.get(type(ev))
            index = getattr(ev, "index", None)
            key = (type(ev), index)
            if self.held and any(k != key for k in self.held):
                if index is None:  # an event of the whole answer (stop, usage): every part's half
                    yield from self._flush(lambda k: True)
                else:  # another event of the same part; deltas of other parts may interleave
                    yield from self._flush(lambda k: k[1] == index and k != key)
            if attr is None:
                yield ev
                continue
            text = getattr(ev, attr)
            if not text:
                yield ev  # an empty delta keeps what is held back
                continue
            high = self.held.pop(key, "")  # type: ignore[arg-type]
            if high:
                first = text[0]
                if "\udc00" <= first <= "\udfff":
                    text = chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(first) - 0xDC00)) + text[1:]
                else:
                    text = "\ufffd" + text
            last = text[-1]
            if "\ud800" <= last <= "\udbff":
                self.held[key] = last  # type: ignore[index]
                text = text[:-1]
            if re.search("[\ud800-\udfff]", text) is not None:  # a low one at the start, or one inside
                text = re.sub("[\ud800-\udfff]", "\ufffd", text)
            setattr(ev, attr, text)
            pd = getattr(ev, "provider_data", None)
            if pd:  # e.g. Gemini's copy of the part: no request could carry a lone half back
                from .transport import repair_surrogates

                repair_surrogates(pd)
            yield ev

    def finish(self) -> Iterator[StreamEvent]:
        """The held halves nothing completed, each as a U+FFFD delta (at the end of the stream)."""
        return self._flush(lambda k: True)

    def _flush(self, which: Any) -> Iterator[StreamEvent]:
        for key in [k for k in self.held if which(k)]:
            del self.held[key]
            cls, index = key
            yield cls(index, "\ufffd")


def cut_off(response: Response, provider: str | None = None) -> ProviderError | None:
    """The :class:`~toolwire.errors.ProviderError` for a response assembled from a stream that
    ended before the vendor's end (every decoder then gives ``stop_reason="error"`` with
    ``vendor_stop_reason=None``: no Anthropic ``message_stop``/``stop_reason``, no Chat
    ``finish_reason``, no Responses ``response.completed``, no Gemini ``finishReason``);
    ``None`` for a complete response. Retryable: the same request may be answered whole."""
    if response.stop_reason != "error" or response.vendor_stop_reason is not None:
        return None
    chars = sum(len(p.text) for p in response.parts if type(p) is TextPart)
    calls = len(response.tool_calls)
    return ProviderError(
        provider or response.provider or "stream",
        f"the event stream ended before the response was complete (no stop reason or end event; "
        f"{plural(chars, 'character')} of text and {plural(calls, 'tool call')} had arrived); the partial response is not used",
        status=None,
        retryable=True,
    )


def assemble(events: Iterable[StreamEvent], provider: str | None = None) -> Response:
    """Build a :class:`Response` from canonical stream events."""
    asm = StreamAssembler(provider)
    for ev in events:
        asm.feed(ev)
    return asm.response()
