"""The Gemini transport: hands the codec's wire body to the installed ``google-genai`` SDK.

Path chosen by measurement (the benchmark ``adapters/gemini/benchmarks/bench_transport.py``,
numbers in ``docs/adapters/gemini.md``): the SDK's ``models.generate_content`` validates the
whole history into pydantic models, converts it and serialises it again on every call, and
re-encodes ``thoughtSignature`` bytes in the URL-safe base64 alphabet. The transport instead
posts the codec's body through the SDK's API client (``client.aio._api_client.async_request`` /
``async_request_streamed``), which keeps everything the SDK is used for — API-key or Vertex auth
headers, base URL and API version resolution, ``HttpRetryOptions`` retries (tenacity), timeouts,
the ``httpx2`` client, SSE parsing and typed ``google.genai.errors.APIError`` — and skips the
per-call history transformation. ``_api_client`` is not a public SDK entry point: the adapter
pins ``google-genai>=3.6`` and its contract tests exercise exactly this path through the SDK's
real HTTP layer, so an SDK change breaks a test, not a user.

Automatic function calling never runs: only declarations are sent and the SDK's AFC lives in
``generate_content``, which this path does not call.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from toolwire.adapter import ModelRequest, body_json
from toolwire.errors import ConfigurationError, ProviderError, ResponseDecodeError, ToolwireError
from toolwire.transport import Transport, error_in_body, event_json, snippet, transport_error
from toolwire.types import Message
from toolwire.wire import without_lone_surrogates

from .codec import API, GeminiCodec, GeminiStreamDecoder
from .profile import model_id_problem

if TYPE_CHECKING:
    from .profile import GeminiProfile

__all__ = ["GeminiModel", "DEFAULT_API_VERSION"]

#: ``v1beta``: the version every recorded tool-calling exchange used. The SDK's own default is
#: ``v1``; whether ``v1`` accepts every field tool calling needs (``parametersJsonSchema``,
#: ``functionCall.id``, ``thinkingConfig`` levels, thought signatures) is not confirmed.
DEFAULT_API_VERSION = "v1beta"

#: Settings read by the transport/codec and never copied into the request body.
ADAPTER_SETTINGS = frozenset(
    {
        "schema_mode",
        "foreign_thought_signature",
        "api_version",
        "retry_options",
        "vertexai",
        "project",
        "location",
        "cache",
    }
)


#: Top-level ``generateContent`` body fields a setting may name (camelCase or snake_case).
REQUEST_FIELDS = frozenset(
    {
        "safetySettings",
        "systemInstruction",
        "toolConfig",
        "generationConfig",
        "cachedContent",
        "safety_settings",
        "system_instruction",
        "tool_config",
        "generation_config",
        "cached_content",
    }
)


#: A Gemini model id as the API names models (``gemini-2.5-flash``, ``models/...``,
#: ``tunedModels/...``): what the SDK may put in the URL path (``models/{model}:generateContent``).
_MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@/-]*")


class GeminiModel(Transport):
    """``gemini:<model-id>`` through ``google-genai``.

    Settings (all optional):

    - ``api_key``: defaults to ``$GEMINI_API_KEY``, then ``$GOOGLE_API_KEY``;
    - ``base_url`` (else ``$GOOGLE_GEMINI_BASE_URL`` when not empty, else the SDK's default; a
      malformed one is a ``ConfigurationError`` when the model is made), ``api_version``
      (default :data:`DEFAULT_API_VERSION`);
    - ``http_client``: an ``httpx2.AsyncClient`` (e.g. with ``httpx2.MockTransport``), used as is
      and not closed by :meth:`aclose`;
    - ``schema_mode``: ``"json_schema"`` (default, ``parametersJsonSchema``) or ``"openapi"``
      (``parameters``); ``foreign_thought_signature``: see :class:`GeminiCodec`;
    - ``max_tokens`` (``maxOutputTokens``), ``temperature``, ``thinking`` (see
      :meth:`GeminiCodec._encode_thinking`), ``stream`` (use ``streamGenerateContent?alt=sse``
      and assemble);
    - ``timeout`` (seconds; sent to the SDK in ms), ``max_retries`` (retries after the first
      attempt, default 2) and ``retry`` (a :class:`toolwire.retry.RetryPolicy`): toolwire's
      retries — the SDK is given one attempt (``HttpRetryOptions(attempts=1)``) so that none is
      hidden; ``retry_options`` (a dict of ``HttpRetryOptions`` fields) hands retrying back to the
      SDK's tenacity loop instead (then set ``max_retries=0`` too, or both retry);
    - ``cache`` (prompt caching): ``True`` relies on Gemini's implicit caching (on by default for
      Gemini 2.5 and newer; nothing is sent, the body keeps tools and instructions first);
      ``"cachedContents/<id>"`` (a cache the caller created with the SDK's ``caches.create``)
      is sent as ``cachedContent``, and ``systemInstruction``, ``tools`` and ``toolConfig`` are
      left out of the body (the cache holds them; the API refuses them next to it);
    - a request field by wire name (``safetySettings``, ``generationConfig``, …; the list is
      :meth:`request_fields`); any other name raises ``ConfigurationError`` with the closest known
      one, and ``extra_body={...}`` sends fields unchecked.
    """

    provider = "gemini"
    #: what the codec writes on every request (``extra_body`` cannot replace it)
    always_written_fields: ClassVar[Mapping[str, str]] = {"contents": "the conversation"}
    adapter_setting_names = ADAPTER_SETTINGS
    #: read by the SDK when no base_url is given, an empty one counting as unset
    #: (google/genai/_base_url.py get_base_url: ``os.getenv('GOOGLE_GEMINI_BASE_URL')``, used if truthy)
    base_url_env: ClassVar[str | None] = "GOOGLE_GEMINI_BASE_URL"
    #: the codec's decoders give answers of the declared types (the loop checks only stop reasons)
    typed_answers: ClassVar[bool] = True
    base_url_env_empty_is_unset: ClassVar[bool] = True

    @classmethod
    def request_fields(cls) -> frozenset[str]:
        """Request-body fields accepted as settings, by wire name or in snake_case: the
        ``models.generateContent`` request body (https://ai.google.dev/api/generate-content#request-body:
        ``safetySettings``, ``systemInstruction``, ``toolConfig``, ``generationConfig``,
        ``cachedContent``) less ``contents`` and ``tools``, which toolwire fills."""
        return REQUEST_FIELDS

    def __init__(self, model_id: str, **settings: Any) -> None:
        """Raises :class:`~toolwire.errors.ConfigurationError` for the Vertex AI settings
        (``vertexai``, ``project``, ``location``): requests go to the Gemini Developer API only;
        and for a model id that is not a resource name (letters, digits and ``-._/@``, no empty,
        ``.`` or ``..`` segment): the SDK puts it in the request's URL path, where ``?``, ``#``,
        ``%``, spaces or ``..`` would send the request somewhere else; and for a longer path than
        ``models/{model}`` or ``tunedModels/{model}`` (a Vertex AI name, a gateway's ``google/...``)
        sent to the Gemini API, which would not find it (rule ``gemini.request.model-id``)."""
        if not _MODEL_ID.fullmatch(model_id) or any(seg in ("", ".", "..") for seg in model_id.split("/")):
            raise ConfigurationError(
                f"gemini: model id {model_id!r} is not a Gemini model name (letters, digits and - . _ / @, e.g. "
                "'gemini-2.5-flash' or 'tunedModels/my-model'); it goes into the request URL as it is"
            )
        problem = model_id_problem(model_id, settings.get("base_url") or os.environ.get("GOOGLE_GEMINI_BASE_URL"))
        if problem:  # rule gemini.request.model-id
            raise ConfigurationError(f"gemini: {problem} [gemini.request.model-id]")
        self.adapter_settings: dict[str, Any] = {k: settings.pop(k) for k in list(settings) if k in ADAPTER_SETTINGS}
        vertex = [k for k in ("vertexai", "project", "location") if self.adapter_settings.get(k)]
        if vertex:
            raise ConfigurationError(
                f"gemini: {', '.join(vertex)} given, but Vertex AI is not supported yet: requests go to the "
                "Gemini Developer API (generativelanguage.googleapis.com) with an API key. Remove "
                f"{', '.join(vertex)} and set GEMINI_API_KEY."
            )
        for key in REQUEST_FIELDS & settings.keys():
            settings[key] = _wire_values(settings[key])
        super().__init__(model_id, **settings)
        _check_thinking(self.settings.get("thinking"), model_id)
        _check_config_settings(self.settings, model_id)
        self.codec = self.make_codec(**self.adapter_settings)
        # the profile of this schema mode and model (the base builds it from self.settings, which
        # do not carry the adapter settings)
        vars(self)["_profile"] = self.make_profile(model=model_id, **self.adapter_settings)
        self._client: Any = None

    @classmethod
    def make_codec(cls, **settings: Any) -> GeminiCodec:
        """A :class:`GeminiCodec` from ``schema_mode``, ``foreign_thought_signature`` and ``cache``."""
        return GeminiCodec(
            schema_mode=settings.get("schema_mode") or "json_schema",
            foreign_thought_signature=settings.get("foreign_thought_signature") or "auto",
            cache=settings.get("cache") or False,
        )

    @classmethod
    def make_profile(cls, **settings: Any) -> GeminiProfile:
        """The :class:`~toolwire_gemini.profile.GeminiProfile` of ``schema_mode`` (default
        ``"json_schema"``), for ``model`` (a model id; the thinking and JSON-mode rules depend on
        the Gemini generation) and ``foreign_thought_signature``."""
        from .profile import GeminiProfile

        return GeminiProfile(
            settings.pop("schema_mode", None) or "json_schema",
            model=settings.pop("model", None),
            foreign_thought_signature=settings.pop("foreign_thought_signature", None) or "auto",
            **settings,
        )

    def batch_api(self) -> Any:
        """Gemini batch mode (:class:`~toolwire_gemini.batch.GeminiBatchAPI`) with this model's
        client; ``None`` on Vertex AI (batch prediction jobs there read their input from Cloud
        Storage or BigQuery, not inline requests)."""
        if self.adapter_settings.get("vertexai"):
            return None
        from .batch import GeminiBatchAPI

        return GeminiBatchAPI(self)

    def _api_key(self) -> str | None:
        return (
            self.settings.get("api_key") or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY") or None
        )

    def credential_problem(self) -> str | None:
        if self._api_key():
            return None
        return "set GEMINI_API_KEY (or GOOGLE_API_KEY) or pass api_key=... for the Gemini API"

    # ------------------------------------------------------------------ SDK client

    def client(self) -> Any:
        """The ``google.genai.Client`` this model uses (created on first use)."""
        if self._client is not None and not self._client_on_other_loop():
            return self._client
        from google import genai
        from google.genai import types

        key = self._api_key()
        if not key:
            raise ConfigurationError(f"gemini: {self.credential_problem() or 'missing Gemini API key'}")
        options: dict[str, Any] = {"api_version": self.adapter_settings.get("api_version") or DEFAULT_API_VERSION}
        if self.settings.get("base_url"):
            options["base_url"] = self.settings["base_url"]
        if self.settings.get("timeout") is not None:
            options["timeout"] = int(float(self.settings["timeout"]) * 1000)
        retry: dict[str, Any] | None = self.adapter_settings.get("retry_options")
        if retry is None:
            retry = {"attempts": 1}  # toolwire retries (toolwire.retry); the SDK's would be hidden
        options["retry_options"] = types.HttpRetryOptions(**retry)
        if self.settings.get("http_client") is not None:
            options["httpx_async_client"] = self.settings["http_client"]
        # vertexai=False: GOOGLE_GENAI_USE_VERTEXAI in the environment would otherwise send the
        # requests to Vertex AI, which this adapter does not support
        self._client = genai.Client(vertexai=False, api_key=key, http_options=types.HttpOptions(**options))
        self._client_made()
        return self._client

    def build_request(self, messages: list[Message], **kwargs: Any) -> ModelRequest:
        request = super().build_request(messages, **kwargs)
        for key in ("schema_mode", "foreign_thought_signature"):
            request.settings.pop(key, None)
        return request

    @staticmethod
    def _path(model: str, stream: bool) -> str:
        name = model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"
        return f"{name}:streamGenerateContent?alt=sse" if stream else f"{name}:generateContent"

    # ------------------------------------------------------------------ requests

    # -- sending: the core Transport's send/send_stream over these hooks -----------------------
    #: ``streamGenerateContent`` without ``alt=sse`` answers with a JSON array of chunks.
    array_streams = True

    async def post(self, body: dict[str, Any], *, stream: bool, request: ModelRequest) -> Any:
        """POST the checked body through the SDK's API client and return the raw HTTP response
        (``httpx2.Response``, or ``aiohttp.ClientResponse`` when the SDK uses aiohttp), unread.
        The SDK applies auth, base URL and API version, ``HttpRetryOptions`` retries and timeouts,
        and raises ``google.genai.errors.APIError`` for HTTP error statuses (mapped by
        :meth:`map_error`)."""
        api_client = self.client().aio._api_client
        http_request = api_client._build_request("post", self._path(request.model or self.model_id, stream), body, None)
        if http_request.data is body:
            # ``HttpRequest.data`` is ``Union[dict, bytes]``: bytes are sent as they are, a dict as
            # ``json.dumps(data).encode('utf-8')`` (``BaseApiClient._async_request_once``). The
            # same bytes, made without re-encoding a growing conversation's earlier Contents
            # (body_json, compact=False: the defaults of json.dumps), after the SDK applied its
            # own changes to the dict (extra_body from its HttpOptions, private keys dropped)
            content = body_json(self, body, compact=False)
            if content is None:
                # a value JSON cannot carry: the SDK's json.dumps would write a NaN or infinity as
                # a bare ``NaN`` / ``Infinity`` literal (not JSON) and fail on the rest; raising
                # json's own error here lets the transport refuse the request with a
                # ConfigurationError that says what to send instead (nothing is posted)
                json.dumps(body, allow_nan=False)
            else:
                http_request.data = content
        raw = await api_client._async_request(http_request=http_request, http_options=None, stream=True)
        return raw.response_stream

    def stream_body(self, body: dict[str, Any], stream: bool) -> dict[str, Any]:
        """Gemini says "stream" in the URL (``:streamGenerateContent?alt=sse``), not in the body."""
        return body

    def continued_request(
        self, request: ModelRequest, vendor_stop_reason: str | None, provider_data: Any
    ) -> ModelRequest | None:
        """An answer that stopped with finish reason ``CONTINUATION`` ("the response reached the
        per-request token limit, but generation is not yet complete. The model response can be
        continued via a subsequent request using the returned `continuation_token`",
        ``google.genai.types.FinishReason``) is continued by the same request with the answer's
        ``continuationToken`` (kept by the stream decoder in ``provider_data["gemini"]``) as a
        top-level field, where ``google.genai.models._GenerateContentConfig_to_mldev`` puts the
        config's ``continuation_token``. The SDK's ``generate_content`` does this by default
        (``automatic_continuation``, ``_generate_content_with_continuation``); the base
        (:meth:`toolwire.transport.Transport.continued_request`) makes the hops one response."""
        own = provider_data.get(API) if isinstance(provider_data, dict) else None
        token = own.get("continuationToken") if vendor_stop_reason == "CONTINUATION" and isinstance(own, dict) else None
        if not (isinstance(token, str) and token):
            return None
        return dataclasses.replace(request, settings={**(request.settings or {}), "continuationToken": token})

    def map_error(self, exc: BaseException) -> ProviderError:
        return _provider_error(exc)

    def stream_decoder(self, request: ModelRequest) -> GeminiStreamDecoder:
        assert isinstance(self.codec, GeminiCodec)  # set in __init__ by make_codec
        return GeminiStreamDecoder(self.codec, request)

    def in_call_arguments(self, value: Any, pointer: str) -> bool:
        """Inside the ``args`` of a part's ``functionCall`` (``/candidates/<i>/content/parts/<j>/functionCall/args/...``,
        in a whole answer, an SSE chunk, or chunk ``<n>`` of a JSON-array stream): the call's arguments
        object (``FunctionCall.args``)."""
        parts = pointer.split("/")[1:]
        if parts[:1] and parts[0].isdigit():
            parts = parts[1:]
        return (
            len(parts) > 7
            and parts[0] == "candidates"
            and parts[2:4] == ["content", "parts"]
            and parts[5:7] == ["functionCall", "args"]
            and parts[1].isdigit()
            and parts[4].isdigit()
        )

    def event_data(self, sse: Any) -> Any:
        """The chunk of an SSE event; an error event, or a chunk whose ``error`` is not an object
        (an object is left to the stream decoder), raises :class:`ProviderError`."""
        data = event_json(API, sse, deep_ok=self.in_call_arguments)
        err = data.get("error")
        if (sse.event == "error" or err not in (None, False, "", {}, [])) and not isinstance(err, dict):
            raise error_in_body(
                API, data if err not in (None, False, "", {}, []) else {"error": data}, ()
            ) or ProviderError(API, f"the stream sent an error event: {snippet(sse.data)}", status=None, body=data)
        return data

    async def count_tokens(self, request: ModelRequest) -> int:
        """Input tokens of ``request`` as the API counts them: the request as :meth:`send` would
        post it (encoded and repaired by the preflight: contents, system instruction, tools, tool
        config) through :meth:`count_request_tokens` (``models.countTokens`` with
        ``generateContentRequest``). Raises :class:`~toolwire.errors.RequestRefused` for a request
        the preflight refuses; other errors as there."""
        assert self.codec is not None  # set in __init__; the base class allows a model without one
        body = dict(self.prepare(request))
        for key in ("generationConfig", "safetySettings", "cachedContent"):
            body.pop(key, None)  # not input; the count endpoint needs none of them
        return await self.count_request_tokens(body, request.model or None)

    async def count_request_tokens(self, body: dict[str, Any], model: str | None = None) -> int:
        """Input tokens of an encoded ``generateContent`` body, counted by the API: ``POST
        models/{model}:countTokens`` with ``{"generateContentRequest": body + model}`` (Gemini API
        reference, ``CountTokensRequest.generateContentRequest``: the prompt "as well as other
        model steering information like system instructions, and/or function declarations"), sent
        through the SDK's API client like :meth:`send`. Returns ``totalTokens``.

        Raises :class:`ProviderError` for API errors and transport failures and
        :class:`~toolwire.errors.ResponseDecodeError` for an answer without ``totalTokens``."""
        name = model or self.model_id
        name = name if name.startswith(("models/", "tunedModels/")) else f"models/{name}"
        # sent through the SDK's own json.dumps: a lone surrogate would go as an escape servers refuse
        request = without_lone_surrogates({k: v for k, v in body.items() if k != "model"})
        api_client = self.client().aio._api_client
        try:
            raw = await api_client.async_request(
                "post", f"{name}:countTokens", {"generateContentRequest": {"model": name, **request}}
            )
        except ToolwireError:
            raise
        except Exception as exc:
            raise _provider_error(exc) from exc
        try:
            data = json.loads(raw.body) if isinstance(raw.body, (str, bytes)) and raw.body else {}
        except ValueError as exc:
            raise ResponseDecodeError(
                API, f"the token count answer is not a CountTokensResponse (not JSON): {snippet(str(raw.body))}"
            ) from exc
        total = data.get("totalTokens") if isinstance(data, dict) else None
        if not isinstance(total, int) or isinstance(total, bool):
            raise ResponseDecodeError(
                API,
                f"the token count answer is not a CountTokensResponse (no totalTokens): {snippet(json.dumps(data))}",
                "/totalTokens",
            )
        return total

    async def aclose(self) -> None:
        if self._client is not None and self.settings.get("http_client") is None:
            try:
                await self._client.aio.aclose()
            except Exception:  # pragma: no cover - best effort
                pass
        self._client = None


async def _close(response: Any) -> None:
    """Release the raw response (``httpx2.Response.aclose`` or ``aiohttp``'s ``release``)."""
    try:
        if hasattr(response, "aclose"):
            await response.aclose()
        elif hasattr(response, "release"):
            response.release()
    except Exception:  # pragma: no cover - best effort
        pass


def _provider_error(exc: BaseException) -> ProviderError:
    """Map SDK and transport exceptions to :class:`ProviderError`.

    - ``google.genai.errors.APIError``: the vendor message, ``status`` = the HTTP status (``None``
      when the error carries no integer code), ``error_type`` = the API's ``error.status`` such as
      ``INVALID_ARGUMENT``, ``retryable`` by :func:`toolwire.retry.classify` (408/409/429 and a
      5xx whose message does not say the request cannot be served; also when the status is
      unknown), ``retry_after`` from the response's ``retry-after`` header, else from the body's
      ``google.rpc.RetryInfo`` ``retryDelay`` (:func:`retry_delay_of`);
    - anything else (a timeout, a dropped connection, a test double such as vcrpy refusing a
      request it has no recording for, an SDK failure on an odd answer): ``status=None``,
      ``retryable=True``, ``error_type`` ``"timeout"`` or ``"connection_error"``, the message
      keeping the original exception's type and text. Nothing is re-raised unmapped.
    """
    if isinstance(exc, ProviderError):
        return exc
    from google.genai import errors

    if isinstance(exc, errors.APIError):
        status = exc.code if isinstance(exc.code, int) and not isinstance(exc.code, bool) else None
        message = exc.message if isinstance(exc.message, str) and exc.message else None
        details = exc.details
        if message is None and isinstance(details, dict) and isinstance(details.get("error"), str) and details["error"]:
            message = details["error"]  # {"error": "<text>"}
        if message is None:  # no vendor message (an HTML page, an odd body): the body's start
            text = details if isinstance(details, str) else json.dumps(details, ensure_ascii=False, default=str)
            message = f"HTTP {status if status is not None else 'error'} without an error message: {snippet(text)}"
        etype = exc.status if isinstance(exc.status, str) else None
        from toolwire.retry import classify, retry_after_seconds

        return ProviderError(
            API,
            message,
            status=status,
            retryable=classify(status, message, default=True),
            error_type=etype,
            body=exc.details,
            retry_after=retry_after_seconds(getattr(getattr(exc, "response", None), "headers", None))
            or retry_delay_of(exc.details),
        )
    return transport_error(API, exc)


def retry_delay_of(details: Any) -> float | None:
    """Seconds an error body asks to wait: Gemini sends no ``retry-after`` header on a 429; the
    wait is a ``google.rpc.RetryInfo`` entry of ``error.details`` (``"retryDelay": "38s"``,
    dcdpr/jp#1061, googleapis/python-genai#2114). ``None`` when there is none."""
    error = details.get("error") if isinstance(details, dict) else None
    entries = error.get("details") if isinstance(error, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and str(entry.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = entry.get("retryDelay")
            m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)s\s*", delay) if isinstance(delay, str) else None
            if m:
                return float(m.group(1))
    return None


#: The keys of toolwire's ``thinking`` setting that hold a token budget (Gemini's
#: ``thinkingBudget``, an integer) or the include-thoughts flag (a bool), by any spelling the
#: codec reads (:meth:`GeminiCodec._encode_thinking`).
_BUDGET_KEYS = ("budget", "budget_tokens", "thinking_budget", "thinkingBudget")
_INCLUDE_KEYS = ("include_thoughts", "includeThoughts")
#: The cross-provider ``thinking={"effort": E}`` values (any case), as the Anthropic and OpenAI
#: adapters take them: ``none`` → ``thinkingBudget`` 0, ``max`` → ``thinkingLevel`` XHIGH, the
#: others → that ``thinkingLevel`` (:meth:`GeminiCodec._encode_thinking`); Gemini's levels are
#: MINIMAL, LOW, MEDIUM, HIGH and XHIGH (``google.genai.types.ThinkingLevel``).
PORTABLE_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


def _check_thinking(thinking: Any, model_id: str) -> None:
    """Raises :class:`ConfigurationError` for a ``thinking`` setting whose value would be left out
    or sent as something else without a word: a key that is not a string; a ``type`` other than
    ``"enabled"``/``"adaptive"`` (thoughts included) or ``"disabled"`` (budget 0), which the codec
    reads no other value of; an ``effort`` that is not one of :data:`PORTABLE_EFFORTS` (a
    non-string would go as the upper-cased text of the value, a misspelt level such as ``"hgh"``
    as ``thinkingLevel`` HGH, refused only when a request is sent); a budget that is not an integer (``google.genai.types.ThinkingConfig``
    types ``thinking_budget`` as ``int``); an ``include_thoughts`` that is not a bool."""
    if not isinstance(thinking, dict):
        return
    where = f"gemini:{model_id}: thinking {thinking!r}"
    todo = (
        "use thinking={'budget': N} (tokens; 0 off, -1 dynamic), {'effort': E} with E one of "
        f"{', '.join(PORTABLE_EFFORTS)} (any case), or "
        "{'level': 'LOW'|'HIGH'}, with 'include_thoughts': True to receive thought summaries"
    )
    for key, value in thinking.items():
        if not isinstance(key, str):
            raise ConfigurationError(f"{where}: key {key!r} is not a name: {todo}")
        if key == "type" and value not in ("enabled", "adaptive", "disabled"):
            raise ConfigurationError(
                f"{where}: type {value!r} is not one Gemini's thinking setting reads ('enabled' or 'adaptive' "
                f"include thoughts, 'disabled' sends budget 0): {todo}"
            )
        if key == "effort" and not (isinstance(value, str) and value.strip().lower() in PORTABLE_EFFORTS):
            raise ConfigurationError(f"{where}: effort {value!r} is not one toolwire knows: {todo}")
        if key in _BUDGET_KEYS and (type(value) is not int):
            raise ConfigurationError(
                f"{where}: {key} {value!r} is not an int (thinkingBudget is a whole number of tokens, sent as an integer): {todo}"
            )
        if key in _INCLUDE_KEYS and type(value) is not bool:
            raise ConfigurationError(f"{where}: {key} {value!r} is not True or False: {todo}")


def _wire_values(value: Any) -> Any:
    """``value`` (a request-field setting) with each ``google.genai.types`` object in it
    (``GenerationConfig(...)``, ``SafetySetting(...)``, ``ToolConfig(...)``, one nested in a dict
    or list) as the JSON object the SDK sends for it: its fields by their API names (camelCase),
    unset ones left out (``model_dump(mode="json", exclude_none=True, by_alias=True)``). Such an
    object was sent as ``{}`` or left out before. Anything else is returned as it is."""
    import pydantic

    if isinstance(value, pydantic.BaseModel) and type(value).__module__.startswith("google.genai"):
        return value.model_dump(mode="json", exclude_none=True, by_alias=True)
    if type(value) is dict:
        return {k: _wire_values(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return [_wire_values(v) for v in value]
    return value


def _check_config_settings(settings: dict[str, Any], model_id: str) -> None:
    """Raises :class:`ConfigurationError` for a key of the ``generation_config``, ``tool_config``
    (and its ``function_calling_config``) or ``safety_settings`` settings (either spelling) that the
    SDK's type for it has no field for (rule ``gemini.request.config-fields``): Gemini answers it
    with "Invalid JSON payload received. Unknown name ...: Cannot find field." on every request;
    and for a value of those settings or ``cached_content`` that is not of the type the SDK gives
    it (``generation_config={"response_mime_type": 5}``, rule ``gemini.request.config-values``).
    ``extra_body`` sends a field the installed SDK does not know yet unchecked."""
    from .profile import _config_field_problems, setting_type_problems

    body: dict[str, Any] = {}
    for snake, camel in (
        ("generation_config", "generationConfig"),
        ("tool_config", "toolConfig"),
        ("safety_settings", "safetySettings"),
    ):
        for name in (snake, camel):
            if name in settings:
                body[camel] = settings[name]
    problems = _config_field_problems(body)
    if problems:
        pointer, message = problems[0]
        raise ConfigurationError(f"gemini:{model_id}: at {pointer}: {message} [gemini.request.config-fields]")
    if "cached_content" in settings or "cachedContent" in settings:
        body["cachedContent"] = settings.get("cachedContent", settings.get("cached_content"))
    types = setting_type_problems(body)
    if types:
        raise ConfigurationError(f"gemini:{model_id}: {types[0][1]} [gemini.request.config-values]")
