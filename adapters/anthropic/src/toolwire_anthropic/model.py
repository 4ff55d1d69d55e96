"""The Anthropic transport: hands the codec's wire body to the installed ``anthropic`` SDK.

Driving the SDK lean: the codec already produces the exact ``/v1/messages``
JSON, so :class:`AnthropicModel` sends it as the SDK client's documented low-level
``post()`` does (``AsyncAnthropic.post(path, cast_to=httpx2.Response, content=<the body's JSON
bytes>)``), through the same ``client.request()`` with the request options built once and copied
per request (:class:`toolwire.transport.StainlessPost`), instead of ``messages.create(**body)``;
given the bytes, the SDK does not walk and copy the whole body (the history grows every turn)
before sending it. A body with ``speed`` for a research-preview fast-mode model (Opus 5) goes
with the ``anthropic-beta: fast-mode-2026-02-01`` header the API needs for it. The SDK still
supplies auth headers,
``anthropic-version``, timeouts and its typed errors, which are mapped to
:class:`toolwire.errors.ProviderError`; its own retries are off (``max_retries=0``): toolwire
retries (:mod:`toolwire.retry`). Measured in ``adapters/anthropic/benchmarks/``.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar, Mapping

from toolwire.adapter import ModelRequest, body_json
from toolwire.errors import ConfigurationError, ProviderError, RequestRefused
from toolwire.profile import Violation
from toolwire.transport import SKIP, SSEEvent, StainlessPost, Transport, event_json, stainless_error
from toolwire.types import Response
from toolwire.wire import without_lone_surrogates

from .codec import (
    _RETRYABLE_ERROR_TYPES,
    API,
    EFFORT_BUDGETS,
    SPEND_LIMIT_ERROR_CODES,
    AnthropicCodec,
    StreamDecoder,
    _error_from_event,
    _note_not_billed,
)
from .profile import (
    REQUEST_MAX_BYTES,
    AnthropicProfile,
    body_betas,
    claude_api_endpoint,
    field_value_problems,
    model_id_problem,
    setting_type_problems,
    with_beta,
)

__all__ = ["AnthropicModel", "provider_error_from_sdk"]

MESSAGES_PATH = "/v1/messages"

#: Settings read by the codec rather than sent as request fields.
_CODEC_SETTINGS = ("cache",)


def _poster() -> StainlessPost:
    """The SDK's ``post()`` with its request options built from a kept template
    (:class:`toolwire.transport.StainlessPost`; the SDK's ``anthropic._models.FinalRequestOptions``)."""
    from anthropic._models import FinalRequestOptions

    return StainlessPost.of(FinalRequestOptions)


#: ``(_poster(), httpx2.Response, anthropic._streaming.AsyncStream[object])``, looked up by the
#: first request (the SDK loads when the adapter first sends, not when it is imported; an import
#: statement run per request costs microseconds)
_SENDING: tuple[StainlessPost, Any, Any] | None = None


def _sending() -> tuple[StainlessPost, Any, Any]:
    global _SENDING
    if _SENDING is None:
        import httpx2
        from anthropic._streaming import AsyncStream

        _SENDING = (_poster(), httpx2.Response, AsyncStream[object])
    return _SENDING


def provider_error_from_sdk(exc: BaseException) -> ProviderError:
    """An ``anthropic`` SDK exception → :class:`ProviderError` (``provider="anthropic"``).

    - ``APIStatusError``: ``status`` = HTTP status, ``message`` = the vendor's ``error.message``,
      ``error_type`` = ``error.type`` (e.g. ``rate_limit_error``, ``overloaded_error``), ``body`` =
      the decoded error body. ``retryable`` follows the ``x-should-retry`` response header when the
      API sends it, else 408/409/429/5xx/529 are retryable, except a 429 for a spend limit
      reached (``error.details.error_code`` in :data:`~toolwire_anthropic.codec.SPEND_LIMIT_ERROR_CODES`).
    - An SSE ``error`` event mid-stream (the SDK raises it as an ``APIStatusError`` carrying the
      stream's HTTP 200): ``status=None``; retryable for ``overloaded_error``, ``api_error``,
      ``rate_limit_error`` and ``timeout_error``.
    - ``APITimeoutError`` / ``APIConnectionError``: ``status=None``, ``retryable=True``,
      ``error_type`` ``"timeout"`` / ``"connection_error"`` (the message names the underlying
      exception, e.g. vcrpy's ``CannotOverwriteExistingCassetteException`` and its text).
    - Any other exception: as :func:`toolwire.transport.transport_error`.
    """
    import anthropic

    return stainless_error(
        API, exc, anthropic, stream_retryable_types=_RETRYABLE_ERROR_TYPES, quota_codes=SPEND_LIMIT_ERROR_CODES
    )


class AnthropicModel(Transport):
    """Anthropic Messages through the installed ``anthropic`` SDK (``AsyncAnthropic``).

    ``AnthropicModel(model_id, **settings)``; settings:

    - ``api_key`` (else ``ANTHROPIC_API_KEY``), ``base_url`` (else ``ANTHROPIC_BASE_URL``, default
      ``https://api.anthropic.com``; an empty or malformed one is a ``ConfigurationError`` when the
      model is made), ``http_client`` (an ``httpx2.AsyncClient``, e.g. with an
      ``httpx2.MockTransport`` in tests; not closed by :meth:`aclose`), ``timeout`` (seconds; SDK
      default 600), ``max_retries`` (retries after the first attempt, default 2) and ``retry``
      (a :class:`toolwire.retry.RetryPolicy`): toolwire's retries, the SDK's own are off;
    - ``max_tokens`` (output tokens; the API requires it: when unset, 4096 is sent, or, for
      ``thinking={"effort": E}`` sent as manual thinking, the effort's budget plus 4096 for the
      answer, at most the model's maximum output, reported on the preflight report), ``temperature``,
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
    #: what the codec writes on every request (``extra_body`` cannot replace it)
    always_written_fields: ClassVar[Mapping[str, str]] = {
        "model": "the model id",
        "messages": "the conversation",
        "max_tokens": "the max_tokens setting, 4096 when not set",
    }
    adapter_setting_names: ClassVar[frozenset[str]] = frozenset(_CODEC_SETTINGS)
    #: read by the SDK when no base_url is given, an empty one included (anthropic/_client.py:
    #: ``base_url = os.environ.get("ANTHROPIC_BASE_URL")`` when ``base_url is None``)
    base_url_env: ClassVar[str | None] = "ANTHROPIC_BASE_URL"
    #: the codec's decoders give answers of the declared types (the loop checks only stop reasons)
    typed_answers: ClassVar[bool] = True

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
        """Raises :class:`ConfigurationError` for a model id the Claude API would not find as
        written (rule ``anthropic.request.model-id``: spaces around it, or a Claude model id not in
        lower case sent to the Claude API itself), naming the id to write; and for a setting whose
        value the SDK does not type (``speed``, ``service_tier``, ``output_config.effort``,
        ``thinking`` type, display or effort: rules ``anthropic.request.field-values`` and
        ``anthropic.request.service-tier``), naming the values to use; and for a request-field
        setting whose value is not of the JSON type the SDK gives the field (``inference_geo=123``,
        ``context_management={"edits": [{"type": 5}]}``: rule ``anthropic.request.field-values``),
        naming the type to give (``extra_body`` is not checked)."""
        codec_settings = {k: settings.pop(k) for k in _CODEC_SETTINGS if k in settings}
        super().__init__(model_id, **settings)
        problem = model_id_problem(model_id, self.settings.get("base_url") or os.environ.get("ANTHROPIC_BASE_URL"))
        if problem:
            raise ConfigurationError(f"anthropic: {problem} [anthropic.request.model-id]")
        self._check_setting_values()
        self.codec_settings = codec_settings
        self.codec = AnthropicCodec(**codec_settings)
        # answers from the Claude API itself: a refusal before any output is not billed there
        self.codec.claude_api = claude_api_endpoint(
            self.settings.get("base_url") or os.environ.get("ANTHROPIC_BASE_URL")
        )
        self._client: Any = None

    def check_streamed(self, response: Response) -> Response:
        """The checks of a streamed response (:func:`toolwire.wire.check_tool_calls`), and, from
        the Claude API, a refusal before any output marked as not billed (as
        :meth:`~toolwire_anthropic.codec.AnthropicCodec.decode_response` marks a whole one)."""
        response = super().check_streamed(response)
        codec = self.codec
        if response.vendor_stop_reason == "refusal" and isinstance(codec, AnthropicCodec) and codec.claude_api:
            _note_not_billed(response)
        return response

    def _check_setting_values(self) -> None:
        """The settings sent as request fields, checked against the SDK's types before anything is
        sent (what a request would otherwise be refused for on every turn)."""
        given = {
            k: self.settings[k]
            for k in ("speed", "output_config", "cache_control", "diagnostics")
            if k in self.settings
        }
        thinking = self.settings.get("thinking")
        if isinstance(thinking, dict) and "type" in thinking:
            given["thinking"] = thinking
        problems = [(msg, "anthropic.request.field-values") for _, msg in field_value_problems(given, keys=True)]
        if isinstance(thinking, dict) and "type" not in thinking and "effort" in thinking:
            effort = thinking["effort"]
            others = [k for k in thinking if k != "effort"]
            if others:  # the codec sends the effort alone: another key would be left out unsaid
                problems.append(
                    (
                        f"thinking {thinking!r}: toolwire's {{'effort': E}} form takes no {', '.join(map(repr, others))} "
                        "on Anthropic, so it would not be sent; use thinking={'effort': E} alone, or Anthropic's own "
                        "{'type': 'enabled', 'budget_tokens': N, 'display': 'summarized'}",
                        "anthropic.request.field-values",
                    )
                )
            if not (isinstance(effort, str) and effort.strip().lower() in (*EFFORT_BUDGETS, "none")):
                problems.append(
                    (
                        f"thinking effort {effort!r} is not one toolwire knows: use one of none, "
                        f"{', '.join(EFFORT_BUDGETS)}, or Anthropic's own thinking object",
                        "anthropic.request.field-values",
                    )
                )
        problems += [(msg, "anthropic.request.field-values") for _, msg in setting_type_problems(self.settings)]
        tier = self.settings.get("service_tier", "auto")
        if tier not in ("auto", "standard_only"):
            problems.append(
                (
                    f"service_tier {tier!r} is not a value the API takes: use 'auto' or 'standard_only' "
                    "(anthropic.types.MessageCreateParamsBase.service_tier)",
                    "anthropic.request.service-tier",
                )
            )
        if problems:
            message, rule = problems[0]
            raise ConfigurationError(f"anthropic:{self.model_id}: {message} [{rule}]")

    @classmethod
    def make_profile(cls, **settings: Any) -> AnthropicProfile:
        """The Anthropic Messages profile (its rules are per request, so ``settings`` only travel
        along: ``model`` and the model settings)."""
        return AnthropicProfile(**settings)

    @classmethod
    def make_codec(cls, **settings: Any) -> AnthropicCodec:
        """The codec configured from ``settings`` (only ``cache`` is read)."""
        return AnthropicCodec(cache=bool(settings.get("cache", False)))

    def batch_api(self) -> Any:
        """Message Batches (:class:`~toolwire_anthropic.batch.AnthropicBatchAPI`) with this model's client."""
        from .batch import AnthropicBatchAPI

        return AnthropicBatchAPI(self)

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
        if self._client is None or self._client_on_other_loop():
            problem = self.credential_problem()
            if problem:
                raise ConfigurationError(f"anthropic: {problem}")
            import anthropic

            kwargs: dict[str, Any] = {"api_key": self._api_key()}
            for key in ("base_url", "http_client", "timeout"):
                if self.settings.get(key) is not None:
                    kwargs[key] = self.settings[key]
            # toolwire retries (toolwire.retry): the SDK's hidden retries would double them
            self._client = anthropic.AsyncAnthropic(max_retries=0, **kwargs)
            self._client_made()
        return self._client

    async def aclose(self) -> None:
        """Close the SDK client if this model created its HTTP client (a passed ``http_client``
        stays open: it belongs to the caller)."""
        if self._client is not None and self.settings.get("http_client") is None:
            await self._client.close()
        self._client = None

    # -- sending: the core Transport's send/send_stream over these hooks -----------------------
    async def post(self, body: dict[str, Any], *, stream: bool, request: ModelRequest) -> Any:
        """POST ``body`` as the SDK's ``post()`` does and return its raw ``httpx2.Response``
        (unread when ``stream``). The SDK applies auth, ``anthropic-version``, retries and
        timeouts and raises its typed errors for HTTP error statuses; the base maps every
        exception with :meth:`map_error`."""
        post, raw_response, sdk_stream_cls = _SENDING or _sending()
        client = self.client
        # the body is JSON-ready: sent as its JSON bytes (post(content=...)), serialized as the SDK
        # does (compact, UTF-8, no NaN), which spares the SDK's walk copying the whole history;
        # the earlier messages of a growing conversation are not re-encoded (body_json)
        content = body_json(self, body)
        if content is not None and len(content) > REQUEST_MAX_BYTES:
            raise RequestRefused(
                API,
                [
                    Violation(
                        "anthropic.request.size",
                        "",
                        f"the request body is {len(content):,} bytes; the Messages API takes at most 32 MB "
                        f"({REQUEST_MAX_BYTES:,} bytes): send fewer or smaller images and documents, or start a "
                        "new conversation with a summary",
                    )
                ],
            )
        sent: dict[str, Any] = {"body": body} if content is None else {"content": content}
        betas = body_betas(body)
        if betas:
            # rule anthropic.request.speed-model: a research-preview fast-mode model takes speed
            # only with its beta header; rule anthropic.request.thinking-block-binding: so does
            # thinking.block_binding (added to the betas the client sends already)
            sent["options"] = {"headers": with_beta(client, *betas)}
        if stream:
            sdk_stream = await post.post(
                client, MESSAGES_PATH, cast_to=object, stream=True, stream_cls=sdk_stream_cls, **sent
            )
            return sdk_stream.response  # read by toolwire's event-stream reader
        return await post.post(client, MESSAGES_PATH, cast_to=raw_response, **sent)

    def map_error(self, exc: BaseException) -> ProviderError:
        """SDK and transport exceptions → :class:`ProviderError` (:func:`provider_error_from_sdk`)."""
        return provider_error_from_sdk(exc)

    def stream_decoder(self, request: ModelRequest) -> StreamDecoder:
        """The Messages stream decoder (:class:`~toolwire_anthropic.codec.StreamDecoder`)."""
        codec = self.codec
        return StreamDecoder(request, codec=codec if isinstance(codec, AnthropicCodec) else None)

    def in_call_arguments(self, value: Any, pointer: str) -> bool:
        """Inside the ``input`` of a ``tool_use`` block of a whole answer
        (``/content/<i>/input/...``): the call's arguments object (Messages API, ``ToolUseBlock.input``);
        or of the ``tool_use`` block of a stream's ``content_block_start`` event
        (``/content_block/input/...``), where a compatible server may give the input whole."""
        parts = pointer.split("/")
        if parts[1:3] == ["content_block", "input"] and len(parts) > 3:
            block = value.get("content_block") if type(value) is dict else None
            return (
                type(value) is dict
                and value.get("type") == "content_block_start"
                and type(block) is dict
                and block.get("type") == "tool_use"
            )
        if len(parts) < 5 or parts[1] != "content" or parts[3] != "input" or not parts[2].isdigit():
            return False
        blocks = value.get("content") if type(value) is dict else None
        i = int(parts[2])
        return (
            type(blocks) is list and i < len(blocks) and type(blocks[i]) is dict and blocks[i].get("type") == "tool_use"
        )

    def event_data(self, sse: SSEEvent) -> Any:
        """``ping`` events are skipped; an ``error`` event raises :class:`ProviderError`
        (``status=None``; retryable for overloaded, API, rate-limit and timeout errors)."""
        if sse.event == "ping":
            return SKIP
        data = event_json(API, sse, deep_ok=self.in_call_arguments)
        if sse.event == "error" and data.get("type") != "error":
            raise _error_from_event(data)
        return data

    async def count_tokens(self, request: ModelRequest) -> int:
        """Input tokens the request would use (tools, system and messages), through the SDK's
        ``messages.count_tokens`` (``POST /v1/messages/count_tokens``; see
        :meth:`AnthropicProfile.count_tokens`). Live: it costs an API call but no output tokens.
        The body is preflighted like a sent request (:class:`~toolwire.errors.RequestRefused`
        before anything is sent). Returns ``MessageTokensCount.input_tokens``; raises
        :class:`ProviderError` like :meth:`send`."""
        body = without_lone_surrogates(self.prepare(request))  # the SDK serializes it: no lone surrogates
        count = await self.profile.count_tokens(body, client=self.client)
        assert count is not None
        return count
