"""The Anthropic transport: hands the codec's wire body to the installed ``anthropic`` SDK.

Design principle 9 (drive the SDK lean): the codec already produces the exact ``/v1/messages``
JSON, so :class:`AnthropicModel` sends it with the SDK client's documented low-level
``post()`` (``AsyncAnthropic.post(path, cast_to=object, body=...)``) instead of
``messages.create(**body)``. The SDK still supplies auth headers, ``anthropic-version``, retries
with backoff (``max_retries``), timeouts and its typed errors, which are mapped to
:class:`toolwire.errors.ProviderError`. Measured in ``adapters/anthropic/benchmarks/``.
"""

from __future__ import annotations

import os
from typing import Any, AsyncIterator

from toolwire.errors import ConfigurationError, ProviderError, ResponseDecodeError, ToolwireError
from toolwire.adapter import Model, ModelRequest
from toolwire.stream import StreamAssembler, StreamEvent
from toolwire.types import Response

from toolwire.transport import Answer, event_json, read_answer, response_events, transport_error
from .codec import API, DEFAULT_MAX_TOKENS, AnthropicCodec, StreamDecoder, _error_from_event, _RETRYABLE_ERROR_TYPES, check_tool_calls
from .profile import AnthropicProfile

__all__ = ["AnthropicModel", "provider_error_from_sdk"]

MESSAGES_PATH = "/v1/messages"

#: Settings read by the codec rather than sent as request fields.
_CODEC_SETTINGS = ("cache",)


def provider_error_from_sdk(exc: BaseException) -> ProviderError:
    """An ``anthropic`` SDK exception → :class:`ProviderError` (``provider="anthropic"``).

    - ``APIStatusError``: ``status`` = HTTP status, ``message`` = the vendor's ``error.message``,
      ``error_type`` = ``error.type`` (e.g. ``rate_limit_error``, ``overloaded_error``), ``body`` =
      the decoded error body. ``retryable`` follows the ``x-should-retry`` response header when the
      API sends it, else 408/409/429/5xx/529 are retryable.
    - An SSE ``error`` event mid-stream (the SDK raises it as an ``APIStatusError`` carrying the
      stream's HTTP 200): ``status=None``; retryable for ``overloaded_error``, ``api_error``,
      ``rate_limit_error`` and ``timeout_error``.
    - ``APITimeoutError`` / ``APIConnectionError``: ``status=None``, ``retryable=True``,
      ``error_type`` ``"timeout"`` / ``"connection_error"`` (the message names the underlying
      exception, e.g. vcrpy's ``CannotOverwriteExistingCassetteException`` and its text).
    - Any other exception: as :func:`toolwire.transport.transport_error`.
    """
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        body = exc.body
        etype = getattr(exc, "type", None)
        message = getattr(exc, "api_message", None) or exc.message
        if isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"]:
            message = body["error"]  # {"error": "<text>"} from a proxy
        status: int | None = exc.status_code
        if status is not None and status < 400:  # an SSE "error" event inside a 200 stream
            return ProviderError(API, message, status=None, retryable=etype in _RETRYABLE_ERROR_TYPES, error_type=etype, body=body)
        should = (exc.response.headers.get("x-should-retry") or "").lower()
        retryable = {"true": True, "false": False}.get(should, ProviderError.is_retryable_status(status))
        return ProviderError(API, message, status=status, retryable=retryable, error_type=etype, body=body)
    if isinstance(exc, anthropic.APITimeoutError):
        return ProviderError(API, exc.message or "request timed out", status=None, retryable=True, error_type="timeout")
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__
        detail = f"{exc.message} ({type(cause).__name__}: {cause})" if cause else exc.message
        return ProviderError(API, detail, status=None, retryable=True, error_type="connection_error")
    if isinstance(exc, anthropic.APIError):
        return ProviderError(API, exc.message, status=getattr(exc, "status_code", None), retryable=False, body=exc.body)
    return transport_error(API, exc)


class AnthropicModel(Model):
    """Anthropic Messages through the installed ``anthropic`` SDK (``AsyncAnthropic``).

    ``AnthropicModel(model_id, **settings)``; settings:

    - ``api_key`` (else ``ANTHROPIC_API_KEY``), ``base_url`` (else ``ANTHROPIC_BASE_URL``, default
      ``https://api.anthropic.com``), ``http_client`` (an ``httpx2.AsyncClient``, e.g. with an
      ``httpx2.MockTransport`` in tests; not closed by :meth:`aclose`), ``timeout`` (seconds; SDK
      default 600), ``max_retries`` (SDK default 2);
    - ``max_tokens`` (output tokens, default 4096: the API requires it), ``temperature``,
      ``stream`` (use SSE and assemble), ``thinking`` (Anthropic's ``thinking`` object, e.g.
      ``{"type": "enabled", "budget_tokens": 2048}`` or ``{"type": "adaptive"}``),
      ``parallel_tool_calls`` (``False`` → ``disable_parallel_tool_use``);
    - ``cache`` (bool, default off): prompt-caching breakpoints on the last tool definition and
      on the conversation prefix (see :class:`AnthropicCodec`);
    - a request field by wire name (``metadata``, ``stop_sequences``, ``top_k``, ...; the list is
      :meth:`request_fields`) is sent as is; any other name raises ``ConfigurationError`` with the
      closest known one, and ``extra_body={...}`` sends fields unchecked.
    """

    provider = API
    adapter_setting_names = frozenset(_CODEC_SETTINGS)

    @classmethod
    def request_fields(cls) -> frozenset[str]:
        """Request-body fields accepted as settings: the keys of the SDK's
        ``anthropic.types.MessageCreateParamsBase`` and of :data:`~toolwire_anthropic.codec.SETTINGS_MAP`
        (fields toolwire fills itself, such as ``messages`` and ``tools``, are left out)."""
        from anthropic.types import message_create_params

        from .codec import _CANONICAL_FIELDS, SETTINGS_MAP

        sdk = set(message_create_params.MessageCreateParamsBase.__annotations__)
        return frozenset((sdk | set(SETTINGS_MAP)) - _CANONICAL_FIELDS)

    def __init__(self, model_id: str, **settings: Any) -> None:
        codec_settings = {k: settings.pop(k) for k in _CODEC_SETTINGS if k in settings}
        super().__init__(model_id, **settings)
        if self.settings.get("max_tokens") is None:
            self.settings["max_tokens"] = DEFAULT_MAX_TOKENS
        self.codec_settings = codec_settings
        self.codec = AnthropicCodec(**codec_settings)
        self._client: Any = None

    @classmethod
    def make_profile(cls, **settings: Any) -> AnthropicProfile:
        """The Anthropic Messages profile (its rules are per request, so ``settings`` only travel
        along: ``model`` and the model settings)."""
        return AnthropicProfile(**settings)

    @classmethod
    def make_codec(cls, **settings: Any) -> AnthropicCodec:
        """The codec configured from ``settings`` (only ``cache`` is read)."""
        return AnthropicCodec(cache=bool(settings.get("cache", False)))

    def _api_key(self) -> str | None:
        return self.settings.get("api_key") or os.environ.get("ANTHROPIC_API_KEY") or None

    def credential_problem(self) -> str | None:
        """``None`` when an API key is available, else which variable to set."""
        return None if self._api_key() else "set ANTHROPIC_API_KEY (or pass api_key=...)"

    # -- the SDK client -------------------------------------------------------------------------
    @property
    def client(self) -> Any:
        """The ``anthropic.AsyncAnthropic`` client, created on first use. Raises
        :class:`ConfigurationError` naming ``ANTHROPIC_API_KEY`` when no key is available."""
        if self._client is None:
            problem = self.credential_problem()
            if problem:
                raise ConfigurationError(f"anthropic: {problem}")
            import anthropic

            kwargs: dict[str, Any] = {"api_key": self._api_key()}
            for key in ("base_url", "http_client", "timeout", "max_retries"):
                if self.settings.get(key) is not None:
                    kwargs[key] = self.settings[key]
            self._client = anthropic.AsyncAnthropic(**kwargs)
        return self._client

    async def aclose(self) -> None:
        """Close the SDK client if this model created its HTTP client (a passed ``http_client``
        stays open: it belongs to the caller)."""
        if self._client is not None and self.settings.get("http_client") is None:
            await self._client.close()
        self._client = None

    # -- sending --------------------------------------------------------------------------------
    async def _post(self, body: dict[str, Any], stream: bool) -> Any:
        """POST ``body`` through the SDK and return its raw ``httpx2.Response`` (unread when
        ``stream``). The SDK applies auth, ``anthropic-version``, retries and timeouts and raises
        its typed errors for HTTP error statuses (mapped by :func:`provider_error_from_sdk`); any
        other exception of the HTTP layer becomes ``ProviderError(error_type="connection_error")``."""
        import anthropic
        import httpx2
        from anthropic._streaming import AsyncStream

        client = self.client
        try:
            if stream:
                sdk_stream = await client.post(MESSAGES_PATH, cast_to=object, body=body, stream=True, stream_cls=AsyncStream[object])
                return sdk_stream.response  # read below by toolwire's event-stream reader
            return await client.post(MESSAGES_PATH, cast_to=httpx2.Response, body=body)
        except anthropic.APIError as exc:
            raise provider_error_from_sdk(exc) from exc
        except ToolwireError:
            raise
        except Exception as exc:  # noqa: BLE001 - a transport-level failure outside the SDK's own errors
            raise transport_error(API, exc) from exc

    async def _events(self, request: ModelRequest, answer: Answer) -> AsyncIterator[StreamEvent]:
        """Canonical events of an answer: an event stream through :class:`StreamDecoder`, or one
        JSON body (a streamed request answered without streaming) decoded and replayed."""
        if answer.kind == "json":
            for ev in response_events(self.codec.decode_response(answer.body, request)):
                yield ev
            return
        decoder = StreamDecoder(request)
        assert answer.events is not None
        async for sse in answer.events:
            if sse.event == "ping":
                continue
            data = event_json(API, sse)
            if sse.event == "error" and data.get("type") != "error":
                raise _error_from_event(data)
            for ev in decoder.feed(data):
                yield ev
        for ev in decoder.finish():
            yield ev

    async def send(self, request: ModelRequest) -> Response:
        """Send one request (streamed when ``request.stream``) and return the canonical response.

        The answer is read as what it is (``docs/adapters/anthropic.md``, "Answers that are not
        what the API documents"): a JSON body is decoded by :meth:`AnthropicCodec.decode_response`,
        an event stream is assembled, whichever was asked for.

        Raises :class:`ProviderError` for vendor errors (see :func:`provider_error_from_sdk`), an
        error object sent with status 200, an ``error`` event, timeouts and connection failures;
        :class:`~toolwire.errors.ResponseDecodeError` for a body or event that is empty, not UTF-8
        or not JSON (quoting its first 200 characters) or not of the documented shape;
        :class:`ConfigurationError` for a missing key or settings the API cannot combine.
        """
        body = dict(self.prepare(request))  # encoded, repaired and checked against the profile
        if request.stream:
            body["stream"] = True
        response = await self._post(body, bool(request.stream))
        try:
            answer = await read_answer(API, response)
            if answer.kind == "json":
                return self.codec.decode_response(answer.body, request)
            asm = StreamAssembler(API)
            async for ev in self._events(request, answer):
                asm.feed(ev)
            return check_tool_calls(asm.response())
        finally:
            await response.aclose()

    async def send_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Yield canonical stream events as the SSE events arrive (``stream: true`` is set on the
        body). toolwire reads the event stream itself (strict UTF-8, JSON data, ``ping`` skipped);
        an ``error`` event raises :class:`ProviderError` with ``status=None``; a JSON body
        answering the streamed request is decoded and replayed as events. Errors as :meth:`send`."""
        body = dict(self.prepare(request))  # encoded, repaired and checked against the profile
        body["stream"] = True
        response = await self._post(body, True)
        try:
            answer = await read_answer(API, response)
            async for ev in self._events(request, answer):
                yield ev
        finally:
            await response.aclose()

    async def count_tokens(self, request: ModelRequest) -> int:
        """Input tokens the request would use (tools, system and messages), through the SDK's
        ``messages.count_tokens`` (``POST /v1/messages/count_tokens``; see
        :meth:`AnthropicProfile.count_tokens`). Live: it costs an API call but no output tokens.
        The body is preflighted like a sent request (:class:`~toolwire.errors.RequestRefused`
        before anything is sent). Returns ``MessageTokensCount.input_tokens``; raises
        :class:`ProviderError` like :meth:`send`."""
        body = self.prepare(request)
        count = await self.profile.count_tokens(body, client=self.client)
        assert count is not None
        return count
