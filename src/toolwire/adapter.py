"""The adapter protocol: the canonical request, the codec interface and the model (transport) base.

An adapter is three things:

1. a **codec** of pure functions — ``encode_request``, ``decode_response``, ``decode_stream``,
   ``decode_request`` — speaking the wire format as JSON-ready dicts (the same form as the
   vendor's API reference and the recordings), no I/O, no clocks, no globals;
2. a thin **transport**, a :class:`Model` subclass that hands the encoded body to the vendor SDK
   and feeds the answer back through the codec;
3. a **profile** (:class:`toolwire.profile.Profile`, from :meth:`Model.make_profile`): the
   vendor's rules, checked on every encoded body before it is sent (preflight).

Preflight runs in the :class:`Model` base for every adapter: ``send`` and ``send_stream`` of every
subclass are wrapped so that, before the subclass's code runs, the request is encoded with
``self.codec``, repaired and checked against ``self.profile``; a body that still breaks a rule
raises :class:`~toolwire.errors.RequestRefused` and nothing is sent. The transport then takes the
checked body with :meth:`Model.prepare` (the same dict, no second encode). A transport that
encodes by itself instead still gets the check (refusals), not the repairs.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TypedDict, Union, cast, runtime_checkable

from .errors import ConfigurationError, UnsupportedToolChoice
from .stream import StopEvent, StreamAssembler, StreamEvent
from .tools import Tool
from .types import Message, ProviderToolPart, Response

if TYPE_CHECKING:  # pragma: no cover
    from .profile import Profile, RequestReport
    from .schema.report import TranslationReport

__all__ = [
    "COMMON_SETTINGS",
    "Codec",
    "Model",
    "ModelRequest",
    "NamedToolChoice",
    "ToolChoice",
    "ToolChoiceInput",
    "check_settings",
    "collect_stream",
    "normalize_tool_choice",
    "report_dropped_provider_tool_parts",
]


class NamedToolChoice(TypedDict):
    """The canonical choice of one named tool: ``{"type": "tool", "name": N}``."""

    type: Literal["tool"]
    name: str


#: Canonical tool choice: ``"auto"``, ``"required"``, ``"none"`` or ``{"type": "tool", "name": N}``.
ToolChoice = Union[Literal["auto", "required", "none"], NamedToolChoice]

#: What a user may pass as ``tool_choice``: a :data:`ToolChoice`, ``"any"`` (same as
#: ``"required"``), ``"tool:<name>"``, ``{"name": N}`` or the OpenAI form
#: ``{"type": "function", "function": {"name": N}}``; ``None`` leaves the vendor default.
ToolChoiceInput = Union[ToolChoice, Literal["any"], str, Mapping[str, Any], None]


def normalize_tool_choice(choice: ToolChoiceInput | Any) -> ToolChoice | None:
    """Normalise a user's tool choice to the canonical form.

    Accepts ``None`` (vendor default), ``"auto"``, ``"required"`` (also ``"any"``), ``"none"``,
    ``{"type": "tool", "name": N}``, ``{"name": N}``, ``"tool:N"`` and the OpenAI form
    ``{"type": "function", "function": {"name": N}}``. Anything else raises
    :class:`UnsupportedToolChoice`; nothing ever falls back to ``auto`` silently.
    """
    if choice is None:
        return None
    if isinstance(choice, str):
        if choice in ("auto", "required", "none"):
            return choice
        if choice == "any":
            return "required"
        if choice.startswith("tool:") and len(choice) > 5:
            return {"type": "tool", "name": choice[5:]}
        raise UnsupportedToolChoice(f"tool choice {choice!r} is not one of 'auto', 'required', 'none' or 'tool:<name>'")
    if isinstance(choice, Mapping):
        if choice.get("type") in ("tool", None) and isinstance(choice.get("name"), str):
            return {"type": "tool", "name": choice["name"]}
        fn = choice.get("function")
        if choice.get("type") == "function" and isinstance(fn, dict) and isinstance(fn.get("name"), str):
            return {"type": "tool", "name": fn["name"]}
        if choice.get("type") == "function" and isinstance(choice.get("name"), str):
            return {"type": "tool", "name": choice["name"]}
    raise UnsupportedToolChoice(
        f"tool choice {choice!r} is not a form toolwire can express; use 'auto', 'required', 'none' "
        "or {'type': 'tool', 'name': <tool name>}"
    )


@dataclass
class ModelRequest:
    """Everything one model request needs, vendor-neutral.

    - ``model``: the vendor's model id (without the ``provider:`` prefix).
    - ``messages`` / ``instructions``: the conversation and the system prompt.
    - ``tools``: :class:`~toolwire.tools.Tool` specs (functions are not needed to encode).
    - ``tool_choice``: canonical (see :func:`normalize_tool_choice`); ``None`` = vendor default.
    - ``parallel_tool_calls``: ``False`` asks for at most one call per turn; ``None`` = default.
    - ``max_tokens`` (output tokens), ``temperature``, ``stream``.
    - ``thinking``: canonical reasoning settings or ``None``; the adapters document what they read
      (e.g. ``{"type": "enabled", "budget_tokens": 2048}`` for Anthropic,
      ``{"effort": "low"}`` for OpenAI, ``{"budget": 1024, "include_thoughts": True}`` for Gemini).
    - ``settings``: request fields without a canonical home, by vendor wire name (each adapter
      documents its map, e.g. Anthropic ``metadata``, OpenAI ``store``); ``encode_request``
      copies them into the body and ``decode_request`` fills them.
    """

    model: str
    messages: list[Message] = field(default_factory=list)
    instructions: str | None = None
    tools: list[Tool[..., Any]] = field(default_factory=list)
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    stream: bool = False
    thinking: dict[str, Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)

    def tool(self, name: str) -> Tool[..., Any] | None:
        for t in self.tools:
            if t.name == name:
                return t
        return None


@runtime_checkable
class Codec(Protocol):
    """The pure half of an adapter. ``api`` names the wire API (``"anthropic"``,
    ``"openai-chat"``, ``"openai"``, ``"gemini"``)."""

    api: str

    def encode_request(self, request: ModelRequest) -> dict[str, Any]:
        """Canonical request → the vendor's JSON request body (a JSON-ready dict)."""
        ...

    def decode_response(self, body: dict[str, Any], request: ModelRequest | None = None) -> Response:
        """The vendor's JSON response body → canonical :class:`Response`. ``request`` (when
        given) supplies the tools' canonical schemas (e.g. Gemini integer coercion)."""
        ...

    def decode_stream(
        self, events: Iterable[dict[str, Any]], request: ModelRequest | None = None
    ) -> Iterator[StreamEvent]:
        """The vendor's parsed stream events (SSE ``data`` objects / chunks, in order) →
        canonical stream events for :class:`~toolwire.stream.StreamAssembler`."""
        ...

    def decode_request(self, body: dict[str, Any]) -> ModelRequest:
        """A vendor-shaped request body → canonical request (import a recorded history)."""
        ...

    def translate_tool(self, tool: Tool) -> tuple[dict[str, Any], TranslationReport]:
        """The tool's wire declaration for this API (exactly what ``encode_request`` puts in the
        body's tool list) and the report of every schema rewrite or drop it made. Used by
        ``toolwire lint`` (translation findings and per-provider token cost)."""
        ...


def report_dropped_provider_tool_parts(request: ModelRequest, report: RequestReport) -> None:
    """Record in ``report`` every :class:`~toolwire.types.ProviderToolPart` of ``request`` that
    another API produced (``part.provider != report.api``): the encoder leaves it out, since a
    vendor's server-tool blocks mean nothing to another vendor. Each is one lossy change, rule
    ``provider-tool.dropped``, its pointer the part's place in the canonical conversation
    (``/messages/<i>/parts/<j>``). Response-level metadata parts (``kind="metadata"``) are never
    sent to any vendor and are not reported."""
    for i, m in enumerate(request.messages):
        for j, p in enumerate(m.parts):
            if isinstance(p, ProviderToolPart) and p.provider != report.api and p.kind != "metadata":
                what = f"{p.vendor_type} block" + (f" ({p.summary})" if p.summary else "")
                report.add(
                    "provider-tool.dropped",
                    f"/messages/{i}/parts/{j}",
                    f"the {p.provider} {what} was left out: a provider tool's blocks go back only to "
                    f"the provider that produced them (the text the model wrote from them is kept)",
                    tool=p.name,
                    call_id=p.call_id,
                    lossy=True,
                )


#: Settings every adapter honours (see :class:`Model`). ``extra_body`` (and its older spelling
#: ``settings``) is the escape hatch: a dict of request-body fields sent as given, unchecked.
COMMON_SETTINGS: frozenset[str] = frozenset(
    {
        "max_tokens",
        "temperature",
        "stream",
        "thinking",
        "parallel_tool_calls",
        "api_key",
        "base_url",
        "http_client",
        "timeout",
        "max_retries",
        "retry",
        "extra_body",
        "settings",
    }
)


def check_settings(model_cls: type[Model], settings: Mapping[str, Any], *, shown: str | None = None) -> None:
    """Refuse a setting ``model_cls`` does not know, with the closest known name.

    Known names are :data:`COMMON_SETTINGS`, the class's :attr:`Model.adapter_setting_names` and its
    :meth:`Model.request_fields` (the vendor request-body fields it accepts by wire name). A class
    whose ``request_fields()`` is ``None`` (the default: an adapter that declares nothing) accepts
    any name. Names starting with ``_`` are private and never checked.

    Raises :class:`~toolwire.errors.ConfigurationError`, e.g. ``unknown setting 'max_tokenz' for
    openai:gpt-5; did you mean 'max_tokens'? To send a request field toolwire does not know, pass it
    in extra_body={'max_tokenz': ...}``.
    """
    fields = model_cls.request_fields()
    if fields is None:
        return
    known = COMMON_SETTINGS | model_cls.adapter_setting_names | fields
    unknown = [k for k in settings if k not in known and not k.startswith("_")]
    if not unknown:
        return
    import difflib

    name = unknown[0]
    where = shown or model_cls.provider or model_cls.__name__
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else "known settings: " + ", ".join(sorted(known - {"settings"}))
    more = f" (also unknown: {', '.join(repr(k) for k in unknown[1:])})" if unknown[1:] else ""
    raise ConfigurationError(
        f"unknown setting {name!r} for {where}; {hint}{more}{'' if hint.endswith('?') else '.'} "
        f"To send a request field toolwire does not know, pass it in extra_body={{{name!r}: ...}}"
    )


class Model(abc.ABC):
    """A configured model: provider + model id + settings, able to send a :class:`ModelRequest`.

    Subclasses (the transports) implement :meth:`send` (and optionally :meth:`send_stream`).
    Entry points in the ``toolwire.adapters`` group name a subclass; toolwire calls
    ``Subclass(model_id, **settings)``.

    Common settings every adapter honours (:data:`COMMON_SETTINGS`): ``max_tokens``,
    ``temperature``, ``stream`` (use the streaming API and assemble), ``thinking``,
    ``parallel_tool_calls``, ``api_key``, ``base_url``, ``http_client`` (an ``httpx2`` client,
    e.g. with a ``MockTransport`` in tests), ``timeout`` (seconds), ``max_retries`` and ``retry``
    (toolwire's retry policy, :mod:`toolwire.retry`), and
    ``extra_body`` (a dict of request-body fields sent unchecked, by the vendor's wire name).
    Any other setting must be one of the adapter's :attr:`adapter_setting_names` or
    :meth:`request_fields`, or :class:`~toolwire.errors.ConfigurationError` is raised with the
    closest known name (see :func:`check_settings`).
    """

    provider: str = ""
    codec: Codec | None = None
    #: Setting names the adapter reads itself (codec or transport options such as Anthropic's
    #: ``cache``), beyond :data:`COMMON_SETTINGS`. Adapters fill it.
    adapter_setting_names: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, model_id: str, **settings: Any) -> None:
        from .secrets import install_log_scrubbing, register_settings

        check_settings(type(self), settings, shown=f"{self.provider}:{model_id}" if self.provider else None)
        self.model_id = model_id
        self.settings = dict(settings)
        register_settings(self.settings)  # api_key= and credential headers are scrubbed everywhere
        install_log_scrubbing()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("send", "send_stream"):
            fn = cls.__dict__.get(name)
            if fn is not None and not getattr(fn, "_toolwire_preflight", False):
                setattr(cls, name, _with_preflight(fn, stream=(name == "send_stream")))

    # -- the profile and preflight ---------------------------------------------------------------
    @classmethod
    def make_profile(cls, **settings: Any) -> Profile:
        """The :class:`~toolwire.profile.Profile` of this API for ``settings`` (the model's
        settings; ``model`` is the model id when known). Adapters override it; the default asks
        the codec (``codec.make_profile(**settings)`` when it has one) and otherwise returns a
        permissive :class:`~toolwire.profile.Profile` named after :attr:`provider`. Used by the
        preflight, ``toolwire lint``, replay and :func:`toolwire.registry.profile`."""
        from .profile import Profile

        codec = cls.__dict__.get("codec") or getattr(cls, "codec", None)
        maker = getattr(codec, "make_profile", None)
        if callable(maker):
            return cast("Profile", maker(**settings))
        return Profile(api=cls.provider or None, **settings)

    @property
    def profile(self) -> Profile:
        """This model's profile (built once from its settings by :meth:`make_profile`)."""
        prof = vars(self).get("_profile")
        if prof is None:
            prof = type(self).make_profile(model=self.model_id, **self.settings)
            vars(self)["_profile"] = prof
        return prof

    def prepare(self, request: ModelRequest) -> dict[str, Any]:
        """The wire body to send for ``request``: ``self.codec.encode_request(request)``, repaired
        and checked by :func:`toolwire.profile.preflight`. Inside ``send``/``send_stream`` it returns
        the body the base already checked for this request (one encode per request). Raises
        :class:`~toolwire.errors.RequestRefused` (nothing sent) and whatever ``encode_request``
        raises (:class:`~toolwire.errors.ToolNameError`, :class:`~toolwire.errors.ConfigurationError`, ...)."""
        pending = vars(self).get("_prepared")
        if pending is not None:
            hit = pending.get(id(request))
            if hit is not None and hit[0] is request:
                return hit[1]
        body, report = self._preflight(request)
        vars(self)["_last_report"] = report
        return body

    def before_encode(self, request: ModelRequest, *, stream: bool) -> ModelRequest:
        """The request as the transport will encode it, called by the base before preflight
        (``stream`` is ``True`` for :meth:`send_stream`). Transports that adjust a request before
        encoding (a continuation id, forced streaming) override it and call ``super()``. Default:
        a copy with ``stream=True`` for :meth:`send_stream`, else ``request`` itself."""
        if stream and not request.stream:
            return dataclasses.replace(request, stream=True)
        return request

    def _preflight(self, request: ModelRequest) -> tuple[dict[str, Any], RequestReport]:
        from .profile import PreflightState, preflight
        from .turns import answer_request, report_unanswered

        codec = self.codec
        if codec is None:
            raise NotImplementedError(f"{type(self).__name__} has no codec to encode with")
        # a tool call the history leaves unanswered is answered "not run" (the same on every API)
        request, answered = answer_request(request)
        body = codec.encode_request(request)
        state = vars(self).get("_preflight_state")
        if state is None:
            state = vars(self)["_preflight_state"] = PreflightState()
        profile = self.profile
        body, report = preflight(profile, body, state=state)
        if answered:
            report_unanswered(report, answered, f"/{profile.messages_key}" if profile.messages_key else "")
        report_dropped_provider_tool_parts(request, report)
        return body, report

    @property
    def last_preflight(self) -> RequestReport | None:
        """The :class:`~toolwire.profile.RequestReport` of the last request this model prepared
        (``None`` before the first, or for a model without a codec)."""
        return vars(self).get("_last_report")

    @classmethod
    def request_fields(cls) -> frozenset[str] | None:
        """The vendor request-body fields this adapter accepts as settings, by wire name (e.g.
        ``metadata``, ``stop_sequences``); they are copied into the body. ``None`` (the default)
        means the adapter declares none and any setting name is passed through unchecked."""
        return None

    @classmethod
    def make_codec(cls, **settings: Any) -> Codec:
        """The codec this model uses, configured from ``settings`` (e.g. Gemini's schema field).
        Adapters override; used by ``toolwire lint`` and ``toolwire replay`` without a model id."""
        if cls.codec is None:
            raise NotImplementedError(f"{cls.__name__} has no codec")
        return cls.codec

    def batch_api(self) -> Any:
        """The vendor batch API of this model (a :class:`toolwire.batch.BatchAPI`: submit many
        prepared requests as one job, poll it, read its results), or ``None`` when the API has no
        batch mode (the default). Used by :func:`toolwire.batch.run_batch`."""
        return None

    def credential_problem(self) -> str | None:
        """``None`` when credentials are available, else a sentence naming the variable to set
        (e.g. ``"set ANTHROPIC_API_KEY or pass api_key=..."``). Checked by the CLI before a live run."""
        return None

    @property
    def name(self) -> str:
        """``"provider:model-id"`` (just ``"provider"`` for the offline ``test``/``scripted`` models)."""
        if self.model_id == self.provider:
            return self.provider
        return f"{self.provider}:{self.model_id}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def build_request(
        self,
        messages: list[Message],
        *,
        instructions: str | None = None,
        tools: list[Tool] | None = None,
        tool_choice: ToolChoiceInput = None,
    ) -> ModelRequest:
        """A :class:`ModelRequest` with this model's settings applied."""
        s = self.settings
        known = COMMON_SETTINGS
        extra = dict(s.get("settings") or {}) | dict(s.get("extra_body") or {})
        return ModelRequest(
            model=self.model_id,
            messages=list(messages),
            instructions=instructions,
            tools=list(tools or []),
            tool_choice=normalize_tool_choice(tool_choice),
            parallel_tool_calls=s.get("parallel_tool_calls"),
            max_tokens=s.get("max_tokens"),
            temperature=s.get("temperature"),
            stream=bool(s.get("stream", False)),
            thinking=s.get("thinking"),
            settings=extra | {k: v for k, v in s.items() if k not in known and not k.startswith("_")},
        )

    @abc.abstractmethod
    async def send(self, request: ModelRequest) -> Response:
        """Send one request; return the canonical response. Raises
        :class:`~toolwire.errors.ProviderError` on vendor errors."""

    async def send_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Yield canonical stream events. Default: one non-streamed :meth:`send`, replayed as events
        that assemble into the same response (reasoning, invalid and cut-off calls included)."""
        from .transport import response_events

        resp = await self.send(request)
        for event in response_events(resp):
            yield event

    def check_streamed(self, response: Response) -> Response:
        """The checks :meth:`send` applies to a response it assembles from a stream, for a response
        the loop assembled from :meth:`send_stream` events (so both give the same
        :class:`Response`). Default: :func:`toolwire.wire.check_tool_calls` (unnamed and
        duplicate-id calls marked invalid); an adapter with further rules overrides it."""
        from .wire import check_tool_calls

        return check_tool_calls(response)

    async def aclose(self) -> None:
        """Release HTTP clients the model created (not ones the user passed in)."""


def _with_preflight(fn: Any, *, stream: bool) -> Any:
    """Wrap a subclass's ``send`` / ``send_stream``: preflight the request before its code runs."""

    def enter(self: Model, request: Any) -> tuple[bool, Any]:
        if self.codec is None or not isinstance(request, ModelRequest):
            return False, None
        pending = vars(self).setdefault("_prepared", {})
        hit = pending.get(id(request))
        if hit is not None and hit[0] is request:  # an outer wrapper (super().send) already did it
            return False, hit[2]
        body, report = self._preflight(self.before_encode(request, stream=stream))
        pending[id(request)] = (request, body, report)
        vars(self)["_last_report"] = report
        return True, report

    def leave(self: Model, request: Any, owner: bool) -> None:
        if owner:
            vars(self).get("_prepared", {}).pop(id(request), None)

    if stream:

        @functools.wraps(fn)
        async def send_stream(
            self: Model, request: ModelRequest, *args: Any, **kwargs: Any
        ) -> AsyncIterator[StreamEvent]:
            owner, report = enter(self, request)
            attach = report is not None and len(report) > 0
            try:
                async for ev in fn(self, request, *args, **kwargs):
                    if attach and isinstance(ev, StopEvent) and ev.preflight is None:
                        # the streamed turn carries the report too (Response.preflight once assembled)
                        ev = dataclasses.replace(ev, preflight=report)
                    yield ev
            finally:
                leave(self, request, owner)

        send_stream._toolwire_preflight = True  # type: ignore[attr-defined]
        return send_stream

    @functools.wraps(fn)
    async def send(self: Model, request: ModelRequest, *args: Any, **kwargs: Any) -> Response:
        owner, report = enter(self, request)
        try:
            response = await fn(self, request, *args, **kwargs)
        finally:
            leave(self, request, owner)
        if report is not None and len(report) and isinstance(response, Response) and response.preflight is None:
            response.preflight = report
        return response

    send._toolwire_preflight = True  # type: ignore[attr-defined]
    return send


async def collect_stream(events: AsyncIterator[StreamEvent], provider: str | None) -> Response:
    """Assemble an async stream of canonical events into a :class:`Response`."""
    asm = StreamAssembler(provider)
    async for ev in events:
        asm.feed(ev)
    return asm.response()
