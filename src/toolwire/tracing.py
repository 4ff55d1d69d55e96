"""OpenTelemetry traces of every run, by the GenAI semantic conventions (the ``tracing`` extra).

Turn it on for every run, or for one::

    from opentelemetry.sdk.trace import TracerProvider
    import toolwire.tracing

    toolwire.tracing.instrument(tracer_provider=TracerProvider(...))          # every run
    result = await toolwire.run(model, prompt, tools=tools,
                                tracing=toolwire.tracing.Tracing(provider))  # this run only

Without a ``tracer_provider`` the global one (``opentelemetry.trace.get_tracer_provider()``) is
used. toolwire configures no exporter and no backend: the application does that.

The attribute names follow the OpenTelemetry GenAI semantic conventions as published in
``opentelemetry-semantic-conventions`` **0.66b2** (``gen_ai.provider.name``, not the older
``gen_ai.system``; ``gen_ai.usage.input_tokens`` / ``output_tokens``, not ``prompt_tokens`` /
``completion_tokens``). One span per run, per model request and per tool call:

===================  ==========================  ============================================
span                 name                        attributes
===================  ==========================  ============================================
the run              ``invoke_agent``            ``gen_ai.operation.name="invoke_agent"``,
                                                 ``gen_ai.provider.name``, ``gen_ai.request.model``,
                                                 ``gen_ai.conversation.id`` (the run id), usage sums,
                                                 ``toolwire.run.stop_reason``, ``toolwire.run.turns``,
                                                 ``toolwire.run.tool_errors``
a model request      ``chat <model id>``         ``gen_ai.operation.name="chat"``,
(kind CLIENT)                                    ``gen_ai.provider.name``, ``gen_ai.request.model``,
                                                 ``gen_ai.request.max_tokens`` / ``temperature``
                                                 (when set), ``gen_ai.response.model``,
                                                 ``gen_ai.response.id``,
                                                 ``gen_ai.response.finish_reasons`` (the vendor's
                                                 stop reason), ``gen_ai.usage.input_tokens``,
                                                 ``gen_ai.usage.output_tokens``,
                                                 ``gen_ai.usage.cache_read.input_tokens``,
                                                 ``gen_ai.usage.cache_creation.input_tokens``,
                                                 ``gen_ai.usage.reasoning.output_tokens``,
                                                 ``toolwire.turn``; a ``toolwire.retry`` event per
                                                 retry (``toolwire.retry.attempt``, ``.delay_s``,
                                                 ``.error``, and the failed attempt's reported
                                                 counts as ``gen_ai.usage.*``, in no total)
a tool call          ``execute_tool <tool name>``  ``gen_ai.operation.name="execute_tool"``,
                                                 ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
                                                 ``gen_ai.tool.type="function"``, ``toolwire.turn``
===================  ==========================  ============================================

A tool function runs with its ``execute_tool`` span as the current context, so the spans the
tool makes itself are its children.

Token counts carry toolwire's meaning (input with cache reads and writes, output with reasoning),
the same on every vendor. Failures: a tool result with ``is_error`` sets the tool span's status
to ERROR with ``error.type="tool_error"`` (its description is the error text only with
``capture_content=True``, else the ``ToolRun.status``); a vendor error or any exception that stops the run sets
the open request span and the run span to ERROR with ``error.type`` = the exception's class name
and records the exception; a cancelled run ends its spans with ``error.type="cancelled"``.

Message and argument content is recorded only when ``capture_content=True``: then the request span
gets ``gen_ai.input.messages`` / ``gen_ai.output.messages`` / ``gen_ai.system_instructions`` (JSON
in toolwire's canonical form) and the tool span ``gen_ai.tool.call.arguments`` /
``gen_ai.tool.call.result``. Known credentials are scrubbed from recorded content. A lone
surrogate is written as a JSON escape in content and as U+FFFD elsewhere, so every exporter can
encode the spans. A tracing set-up that raises never stops the run: one warning per run is logged
on the ``toolwire.tracing`` logger.

``gen_ai.provider.name`` comes from the adapter's profile (``Profile.telemetry_provider_name``:
``anthropic``, ``openai``, ``gcp.gemini``); a provider whose profile sets none is named by its
toolwire provider name.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

__all__ = ["Tracing", "instrument", "uninstrument", "SEMCONV_VERSION"]

#: The version of ``opentelemetry-semantic-conventions`` whose GenAI attribute names are used.
SEMCONV_VERSION = "0.66b2"
_SCOPE = "toolwire"

_global: Tracing | None = None


def _require_otel() -> Any:
    try:
        from opentelemetry import trace
    except ImportError as exc:
        from .errors import ConfigurationError

        raise ConfigurationError('tracing needs the OpenTelemetry API: pip install "toolwire[tracing]"') from exc
    return trace


@dataclass
class Tracing:
    """Where a run's spans go. ``tracer_provider``: an OpenTelemetry ``TracerProvider`` (default:
    the global one); ``capture_content``: also record messages, tool arguments and tool results
    (off by default: they can hold personal data)."""

    tracer_provider: Any = None
    capture_content: bool = False

    def __post_init__(self) -> None:
        if self.tracer_provider is not None and not callable(getattr(self.tracer_provider, "get_tracer", None)):
            from .errors import ConfigurationError

            raise ConfigurationError(
                f"tracer_provider must be an OpenTelemetry TracerProvider (something with get_tracer()), "
                f"got {type(self.tracer_provider).__name__}"
            )

    def tracer(self) -> Any:
        """The OpenTelemetry tracer the spans are made with: scope ``toolwire`` at the installed
        toolwire version, from ``tracer_provider`` or else the global provider.
        :class:`~toolwire.errors.ConfigurationError` when OpenTelemetry is not installed."""
        trace = _require_otel()
        from . import __version__

        provider = self.tracer_provider or trace.get_tracer_provider()
        return provider.get_tracer(_SCOPE, __version__)

    def observer(self, stream: Any, model: Any) -> _RunObserver:
        """What turns the events of one run into spans: made by the loop once per run, for its event
        ``stream`` (the :class:`~toolwire.loop.RunStream`) and ``model``. A tracer that raises
        never stops the run: it is logged once per run as a warning.
        :class:`~toolwire.errors.ConfigurationError` when OpenTelemetry is not installed (as
        :meth:`tracer`), so a run given ``tracing=`` without it stops before it starts."""
        return _RunObserver(self, stream, model)


def instrument(tracer_provider: Any = None, *, capture_content: bool = False) -> Tracing:
    """Trace every run from now on (until :func:`uninstrument`); returns the :class:`Tracing`.
    A run given its own ``tracing=`` uses that one instead."""
    global _global
    _require_otel()
    _global = Tracing(tracer_provider, capture_content)
    return _global


def uninstrument() -> None:
    """Stop tracing runs that were not given ``tracing=`` themselves."""
    global _global
    _global = None


def active(explicit: Tracing | None) -> Tracing | None:
    """The tracing a new run uses: its own, else the global one, else none."""
    return explicit if explicit is not None else _global


def _provider_name(model: Any) -> str:
    provider = getattr(model, "provider", "") or ""
    try:
        from .registry import profile

        name = getattr(profile(provider), "telemetry_provider_name", None)
    except Exception:
        name = None
    return name or provider


def _scrubbed_str(exc: BaseException, limit: int | None = None) -> str:
    """``str(exc)`` with known credentials replaced (an error message may quote a key: "auth
    failed for sk-..."), cut to ``limit`` characters; a ``__str__`` that raises gives the class name."""
    from .secrets import scrub

    try:
        text = str(exc)
    except Exception:
        text = type(exc).__name__
    text = scrub(text)
    return text if limit is None else text[:limit]


def _record_exception(span: Any, exc: BaseException) -> None:
    """The OpenTelemetry ``exception`` event (the semantic-convention attributes
    ``exception.type``/``message``/``stacktrace``), written here rather than by
    ``span.record_exception`` so that known credentials are scrubbed from the message and the
    stack trace (which shows the message again)."""
    import traceback

    from .secrets import scrub

    try:
        trace_text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    except Exception:
        trace_text = type(exc).__name__
    span.add_event(
        "exception",
        _attrs(
            {
                "exception.type": type(exc).__qualname__,
                "exception.message": _scrubbed_str(exc),
                "exception.stacktrace": scrub(trace_text),
                "exception.escaped": False,
            }
        ),
    )


def _text(value: str) -> str:
    """``value`` as text every exporter can encode: a lone surrogate (half an emoji a model or a
    tool sent) cannot be UTF-8, and the OTLP exporter's protobuf refuses it, dropping the whole
    batch of spans; it becomes U+FFFD (a surrogate pair becomes its character)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def _attr(value: Any) -> Any:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, (list, tuple)):
        return [_text(v) if isinstance(v, str) else v for v in value]
    return value


def _attrs(attrs: dict[str, Any]) -> dict[str, Any]:
    return {k: _attr(v) for k, v in attrs.items()}


def _json(value: Any) -> str:
    """JSON text of recorded content, credentials scrubbed; literal UTF-8, or ASCII escapes when
    the content holds a lone surrogate (which still reads back to the same text)."""
    from .secrets import scrub  # content may carry a key a tool printed

    text = json.dumps(value, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, default=str)
    return scrub(text)


def _usage_attributes(usage: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr, field in (
        ("gen_ai.usage.input_tokens", "input_tokens"),
        ("gen_ai.usage.output_tokens", "output_tokens"),
        ("gen_ai.usage.cache_read.input_tokens", "cache_read_tokens"),
        ("gen_ai.usage.cache_creation.input_tokens", "cache_write_tokens"),
        ("gen_ai.usage.reasoning.output_tokens", "reasoning_tokens"),
    ):
        value = getattr(usage, field, None)
        if value is not None:
            out[attr] = int(value)
    return out


class _RunObserver:
    """Turns the events of one run into spans (one observer per run).

    Tracing never stops a run: an exception from the tracing set-up (a provider whose
    ``get_tracer`` raises, a span processor that raises in ``on_start``/``on_end``, which the SDK
    does not catch) is caught here and logged once per run as a warning on the
    ``toolwire.tracing`` logger; the run goes on, its spans as far as the tracer still records
    them."""

    def __init__(self, tracing: Tracing, stream: Any, model: Any) -> None:
        trace = _require_otel()  # not installed: the ConfigurationError with the install hint
        from opentelemetry import context

        self._trace = trace
        self._otel_context = context
        self._warned = False
        self._content = tracing.capture_content
        self._stream = stream
        self._model = model
        self._run_span: Any = None
        self._run_ctx: Any = None
        self._turn_span: Any = None
        self._tools: dict[str, Any] = {}
        self._ended = False
        try:
            self._tracer = tracing.tracer()
        except Exception as exc:
            self._broke(exc)
            self._tracer = trace.NoOpTracer()
        self._provider = _provider_name(model)

    def _broke(self, exc: BaseException) -> None:
        """A tracing call raised: say so once for this run (credentials scrubbed), go on."""
        if self._warned:
            return
        self._warned = True
        import logging

        logging.getLogger("toolwire.tracing").warning(
            "tracing failed (%s: %s); the run goes on, its spans may be incomplete",
            type(exc).__name__,
            _scrubbed_str(exc, 500),
        )

    # -- events ------------------------------------------------------------------------------
    def __call__(self, event: Any) -> None:
        kind = type(event).__name__
        handler = getattr(self, "_on_" + kind, None)
        if handler is not None:
            try:
                handler(event)
            except Exception as exc:
                self._broke(exc)

    def _common(self) -> dict[str, Any]:
        return {"gen_ai.provider.name": self._provider, "gen_ai.request.model": self._model.model_id}

    def _start(self, name: str, attrs: dict[str, Any], **kwargs: Any) -> Any:
        return self._tracer.start_span(_text(name), attributes=_attrs(attrs), **kwargs)

    def _on_RunStarted(self, event: Any) -> None:
        attrs = {"gen_ai.operation.name": "invoke_agent", **self._common(), "gen_ai.conversation.id": event.run_id}
        if event.resumed:
            attrs["toolwire.run.resumed"] = True
        self._run_span = self._start("invoke_agent", attrs)
        self._run_ctx = self._trace.set_span_in_context(self._run_span)

    def _on_TurnStarted(self, event: Any) -> None:
        self._end_turn_span()
        settings = getattr(self._model, "settings", {}) or {}
        attrs = {"gen_ai.operation.name": "chat", **self._common(), "toolwire.turn": event.turn}
        if isinstance(settings.get("max_tokens"), int):
            attrs["gen_ai.request.max_tokens"] = settings["max_tokens"]
        if isinstance(settings.get("temperature"), (int, float)):
            attrs["gen_ai.request.temperature"] = float(settings["temperature"])
        if self._content:
            conv = self._stream.state.conversation
            attrs["gen_ai.input.messages"] = _json([m.to_dict() for m in conv.messages])
            if conv.instructions:
                attrs["gen_ai.system_instructions"] = _json([{"type": "text", "content": conv.instructions}])
        self._turn_span = self._start(
            f"chat {self._model.model_id}", attrs, context=self._run_ctx, kind=self._trace.SpanKind.CLIENT
        )

    def _on_RetryScheduled(self, event: Any) -> None:
        if self._turn_span is not None:
            attrs = {
                "toolwire.retry.attempt": event.attempt,
                "toolwire.retry.delay_s": float(event.delay),
                "toolwire.retry.error": event.error,
            }
            if event.usage is not None:  # what the failed attempt reported (in no total)
                attrs.update(_usage_attributes(event.usage))
            self._turn_span.add_event("toolwire.retry", _attrs(attrs))

    def _on_ResponseFinished(self, event: Any) -> None:
        span = self._turn_span
        if span is None:
            return
        resp = event.response
        attrs: dict[str, Any] = {}
        if resp.model:
            attrs["gen_ai.response.model"] = resp.model
        if resp.response_id:
            attrs["gen_ai.response.id"] = resp.response_id
        attrs["gen_ai.response.finish_reasons"] = [resp.vendor_stop_reason or resp.stop_reason]
        attrs["toolwire.stop_reason"] = resp.stop_reason
        attrs.update(_usage_attributes(resp.usage))
        if self._content:
            attrs["gen_ai.output.messages"] = _json([resp.to_message().to_dict()])
        try:
            span.set_attributes(_attrs(attrs))
        finally:
            self._end_turn_span()

    def _provider_tool(self, event: Any) -> None:
        part = event.part
        if self._turn_span is not None:
            attrs = {
                "gen_ai.tool.name": str(part.name or part.vendor_type),
                "gen_ai.tool.type": "extension",  # semconv: a tool run by the agent's provider
                "toolwire.provider_tool.type": part.vendor_type,
                "toolwire.provider_tool.kind": part.kind,
            }
            if part.call_id:
                attrs["gen_ai.tool.call.id"] = part.call_id
            if self._content and part.summary:
                attrs["toolwire.provider_tool.summary"] = part.summary
            self._turn_span.add_event("toolwire.provider_tool", _attrs(attrs))

    _on_ProviderToolCalled = _provider_tool
    _on_ProviderToolResult = _provider_tool

    def _tool_span(self, turn: int, call: Any) -> Any:
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": str(call.name),
            "gen_ai.tool.call.id": str(call.id),
            "gen_ai.tool.type": "function",
            "toolwire.turn": turn,
        }
        if self._content:
            attrs["gen_ai.tool.call.arguments"] = _json(
                call.arguments if call.arguments is not None else call.raw_arguments
            )
        return self._start(f"execute_tool {call.name}", attrs, context=self._run_ctx)

    @contextmanager
    def tool_scope(self, call: Any, turn: int) -> Iterator[None]:
        """Around the tool function of ``call`` (the executor's ``scope``): its ``execute_tool``
        span, started here, is the current OpenTelemetry context while the function runs, so what
        the tool traces itself (a query, an HTTP call) is a child of it. The span is ended by
        ``ToolFinished`` (or by :meth:`failed`). A tracer that raises here leaves the function
        to run without its span."""
        token = None
        try:
            span = self._tools.get(call.id)
            if span is None:
                span = self._tools[call.id] = self._tool_span(turn, call)
            token = self._otel_context.attach(self._trace.set_span_in_context(span, self._run_ctx))
        except Exception as exc:
            self._broke(exc)
        try:
            yield
        finally:
            if token is not None:
                self._otel_context.detach(token)

    def _on_ToolStarted(self, event: Any) -> None:
        if event.call.id not in self._tools:  # (tool_scope started it when the function began)
            self._tools[event.call.id] = self._tool_span(event.turn, event.call)

    def _on_ToolFinished(self, event: Any) -> None:
        from .secrets import scrub

        run = event.run
        span = self._tools.pop(run.call.id, None)
        attrs: dict[str, Any] = {}
        if span is None:  # answered without running (invalid, denied, a limit): a span all the same
            span = self._tool_span(event.turn, run.call)
            attrs["toolwire.tool.ran"] = False
        try:
            if self._content:
                attrs["gen_ai.tool.call.result"] = _json(run.result.to_dict().get("content"))
            if run.result.is_error:
                attrs["error.type"] = "tool_error"
                # the result's text is content (it often quotes the arguments): only when captured
                why = (
                    _text(scrub(run.result.text[:200]))
                    if self._content
                    else f"the tool call was answered with an error (status: {run.status})"
                )
                span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, why))
            span.set_attributes(_attrs(attrs))
        finally:
            span.end()

    def _on_RunFinished(self, event: Any) -> None:
        result = event.result
        span = self._run_span
        if span is None:
            return
        try:
            attrs = _usage_attributes(result.usage)
            attrs["toolwire.run.stop_reason"] = str(result.stop_reason)
            attrs["toolwire.run.turns"] = len(result.turns)
            attrs["toolwire.run.tool_errors"] = int(result.tool_errors)
            if event.error is not None:
                attrs["error.type"] = type(event.error).__name__
                span.set_status(
                    self._trace.Status(self._trace.StatusCode.ERROR, _text(_scrubbed_str(event.error, 200)))
                )
            span.set_attributes(_attrs(attrs))
        finally:
            self._finish()

    # -- ends --------------------------------------------------------------------------------
    def _end_turn_span(self) -> None:
        span, self._turn_span = self._turn_span, None
        if span is not None:
            span.end()

    def failed(self, exc: BaseException) -> None:
        """The run stopped with ``exc`` (an error, or a cancellation): end every open span as failed."""
        import asyncio

        if self._ended:
            return
        cancelled = isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt, GeneratorExit))
        error_type = "cancelled" if cancelled else type(exc).__name__
        status = self._trace.Status(
            self._trace.StatusCode.ERROR, error_type if cancelled else _text(_scrubbed_str(exc, 200))
        )
        tools = list(self._tools.values())
        self._tools.clear()
        turn, self._turn_span = self._turn_span, None
        for span in [turn, *tools, self._run_span]:
            if span is None:
                continue
            try:
                span.set_attribute("error.type", error_type)
                if not cancelled:
                    _record_exception(span, exc)
                span.set_status(status)
                if span is not self._run_span:
                    span.end()
            except Exception as err:
                self._broke(err)
        self._finish()

    def closed(self) -> None:
        """The event stream ended (normally after ``RunFinished``, or closed early)."""
        if not self._ended and self._run_span is not None:
            self.failed(GeneratorExit("the event stream was closed before the run finished"))

    def _finish(self) -> None:
        if not self._ended:
            self._ended = True
            if self._run_span is not None:
                try:
                    self._run_span.end()
                except Exception as exc:
                    self._broke(exc)
