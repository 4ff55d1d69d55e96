"""Canonical stream events and the one shared assembler.

Each adapter's ``decode_stream(events)`` turns the vendor's parsed stream events (SSE ``data``
objects, Gemini chunks) into these canonical events; :class:`StreamAssembler` builds the same
:class:`~toolwire.types.Response` a non-streamed call would give.

``index`` identifies a part within the response (Anthropic content-block index, Responses
``output_index``, …). Adapters pick indexes so that sorting by index gives the vendor's order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Union, cast

from .arguments import parse_arguments
from .errors import ResponseDecodeError
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
    "assemble",
]


@dataclass
class ResponseStart:
    response_id: str | None = None
    model: str | None = None
    provider_data: dict[str, Any] = field(default_factory=dict)


@dataclass
class TextDelta:
    index: int
    text: str
    provider_data: dict[str, Any] | None = None  # merged into the part's provider_data


@dataclass
class ReasoningDelta:
    """Reasoning text (appended) and/or opaque material: ``signature`` and ``encrypted`` replace
    the part's earlier value (Anthropic sends one ``signature_delta``; Responses the whole
    ``encrypted_content`` at ``output_item.done``)."""

    index: int
    text: str = ""
    signature: str | None = None
    encrypted: str | None = None
    provider: str | None = None
    provider_data: dict[str, Any] | None = None


@dataclass
class ToolCallStart:
    index: int
    id: str
    name: str
    id_synthesized: bool = False
    provider_data: dict[str, Any] | None = None


@dataclass
class ToolCallDelta:
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
    invalid: str | None = None  # the call is unusable for this reason (kept on the assembled ToolCall)
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
    the assembled :attr:`Response.preflight <toolwire.types.Response.preflight>`). ``preflight``
    takes no part in equality."""

    stop_reason: str
    vendor_stop_reason: str | None = None
    provider_data: dict[str, Any] | None = None
    preflight: Any = field(default=None, compare=False, repr=False)


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


@dataclass
class _Slot:
    kind: str
    part: Any
    fragments: list[str] = field(default_factory=list)
    ended: bool = False


class StreamAssembler:
    """Feed canonical events with :meth:`feed`; call :meth:`response` at the end.

    Text, reasoning and tool-call argument fragments are kept per index and joined once, in
    :meth:`response` (linear in the length; arguments parsed once, empty buffer → ``{}``).
    A tool call never ended, or whose text does not parse while the stop reason is
    ``max_tokens``, is marked ``incomplete`` and will not be run by the loop.
    """

    def __init__(self, provider: str | None = None) -> None:
        self.provider = provider
        self._slots: dict[int, _Slot] = {}
        self._order: list[int] = []
        self.response_id: str | None = None
        self.model: str | None = None
        self.usage = Usage()
        self.stop_reason: str | None = None
        self.vendor_stop_reason: str | None = None
        self.provider_data: dict[str, Any] = {}
        self.preflight: Any = None

    def _slot(self, index: int, kind: str, factory: Any) -> _Slot:
        slot = self._slots.get(index)
        if slot is None:
            slot = _Slot(kind, factory())
            self._slots[index] = slot
            self._order.append(index)
        elif slot.kind != kind:
            raise ResponseDecodeError(
                self.provider or "stream", f"a {kind} event arrived for a part that is a {slot.kind} part"
            )
        return slot

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
        if isinstance(event, ResponseStart):
            self.response_id = event.response_id or self.response_id
            self.model = event.model or self.model
            self._merge_pd(self, event.provider_data)
        elif isinstance(event, TextDelta):
            slot = self._slot(event.index, "text", lambda: TextPart(""))
            slot.fragments.append(event.text)  # joined once in response(): linear in the text's length
            self._merge_pd(slot.part, event.provider_data)
        elif isinstance(event, ReasoningDelta):
            slot = self._slot(event.index, "reasoning", lambda: ReasoningPart(provider=event.provider or self.provider))
            slot.fragments.append(event.text)
            if event.signature is not None:
                slot.part.signature = event.signature
            if event.encrypted is not None:
                slot.part.encrypted = event.encrypted
            self._merge_pd(slot.part, event.provider_data)
        elif isinstance(event, ToolCallStart):
            slot = self._slot(event.index, "tool_call", lambda: ToolCall(id=event.id, name=event.name, arguments=None))
            slot.part.id = event.id or slot.part.id
            slot.part.name = event.name or slot.part.name
            slot.part.id_synthesized = event.id_synthesized
            self._merge_pd(slot.part, event.provider_data)
        elif isinstance(event, ToolCallDelta):
            slot = self._slots.get(event.index)
            if slot is None or slot.kind != "tool_call":
                raise ResponseDecodeError(
                    self.provider or "stream", "tool call arguments arrived before the tool call started"
                )
            slot.fragments.append(event.arguments_fragment)
        elif isinstance(event, ToolCallEnd):
            slot = self._slots.get(event.index)
            if slot is None or slot.kind != "tool_call":
                raise ResponseDecodeError(self.provider or "stream", "a tool call ended before it started")
            call: ToolCall = slot.part
            if event.arguments is not None:
                call.arguments, call.invalid = dict(event.arguments), None
                call.raw_arguments = event.raw_arguments
            else:
                raw = event.raw_arguments if event.raw_arguments is not None else "".join(slot.fragments)
                call.raw_arguments = raw
                call.arguments, call.invalid = parse_arguments(raw)
            if event.invalid is not None:
                call.invalid = event.invalid
            if event.incomplete:
                call.incomplete = True
            self._merge_pd(call, event.provider_data)
            slot.ended = True
        elif isinstance(event, UsageUpdate):
            for name, value in event.usage.to_dict().items():
                if value is not None and name != "requests":
                    setattr(self.usage, name, value)
        elif isinstance(event, ProviderToolDone):
            slot = self._slot(event.index, "provider_tool", lambda: event.part)
            slot.part = event.part
        elif isinstance(event, StopEvent):
            self.stop_reason = event.stop_reason
            self.vendor_stop_reason = event.vendor_stop_reason
            if event.preflight is not None:
                self.preflight = event.preflight
            self._merge_pd(self, event.provider_data)
        elif isinstance(event, RetryNotice):
            pass  # the transport will send the request again: nothing was received yet
        else:  # pragma: no cover - defensive
            raise TypeError(f"not a stream event: {event!r}")

    def response(self) -> Response:
        parts = []
        stop = self.stop_reason or "end_turn"
        for index in sorted(self._order):
            slot = self._slots[index]
            part = slot.part
            if slot.kind in ("text", "reasoning"):
                part.text = "".join(slot.fragments)
            if slot.kind == "tool_call" and not slot.ended:
                # the vendor never closed this call: whatever its text, it is not safe to run
                raw = "".join(slot.fragments)
                part.raw_arguments = raw
                part.arguments, _ = parse_arguments(raw)
                part.incomplete = True
                part.invalid = (
                    "the output-token limit cut this tool call off"
                    if stop == "max_tokens"
                    else "the stream ended before this tool call was complete"
                )
            if slot.kind == "tool_call" and stop == "max_tokens" and part.invalid is not None:
                part.incomplete = True
            parts.append(part)
        if self.usage.requests == 0:
            self.usage.requests = 1
        return Response(
            parts=parts,
            stop_reason=cast(StopReason, stop),
            vendor_stop_reason=self.vendor_stop_reason,
            usage=self.usage,
            model=self.model,
            response_id=self.response_id,
            provider=self.provider,
            provider_data=self.provider_data,
            preflight=self.preflight,
        )


def assemble(events: Iterable[StreamEvent], provider: str | None = None) -> Response:
    """Build a :class:`Response` from canonical stream events."""
    asm = StreamAssembler(provider)
    for ev in events:
        asm.feed(ev)
    return asm.response()
