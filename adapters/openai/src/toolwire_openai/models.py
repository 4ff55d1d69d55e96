"""The OpenAI transports: hand the codecs' wire bodies to the installed ``openai`` SDK.

Driving the SDK lean: ``chat.completions.create(**body)`` /
``responses.create(**body)`` re-validate and re-transform the whole history on every call
(``maybe_transform`` over the request TypedDicts), while the codec already produced the exact
JSON. Both models therefore send the body as the SDK client's documented low-level
``post(path, cast_to=httpx2.Response, content=<the body's JSON bytes>)`` does, through the same
``client.request()`` with the request options built once and copied per request
(:class:`toolwire.transport.StainlessPost`): the SDK still supplies the ``Authorization`` header,
timeouts and its typed errors, which are mapped to :class:`toolwire.errors.ProviderError`; its
own retries are off (``max_retries=0``): toolwire retries (:mod:`toolwire.retry`). The cost of both paths is measured by
``adapters/openai/benchmarks/bench_post_vs_create.py`` (numbers in ``docs/adapters/openai.md``).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar, Mapping

from toolwire.adapter import ModelRequest, body_json
from toolwire.errors import ConfigurationError, ProviderError
from toolwire.transport import END, SSEEvent, StainlessPost, Transport, error_in_body, event_json, snippet
from toolwire.types import Response
from toolwire.wire import reissue_shared_ids

from ._common import check_tool_calls, provider_error_from_sdk, split_parallel_calls
from .chat import API as CHAT_API
from .chat import ChatStreamDecoder, OpenAIChatCodec
from .responses import API as RESPONSES_API
from .responses import OpenAIResponsesCodec, ResponsesStreamDecoder, parallel_record

__all__ = ["OpenAIChatModel", "OpenAIResponsesModel", "OPENAI_BASE_URL"]

OPENAI_BASE_URL = "https://api.openai.com/v1"

#: Settings the transport reads (never sent as request fields).
_TRANSPORT_SETTINGS = (
    "api_key_env",
    "continuation",
    "organization",
    "project",
    "default_headers",
    "max_tokens_field",
    "named_tool_choice",
    "cache",
)


def _poster() -> StainlessPost:
    """The SDK's ``post()`` with its request options built from a kept template
    (:class:`toolwire.transport.StainlessPost`; the SDK's ``openai._models.FinalRequestOptions``)."""
    from openai._models import FinalRequestOptions

    return StainlessPost.of(FinalRequestOptions)


#: ``(_poster(), httpx2.Response, openai._streaming.AsyncStream[object])``, looked up by the first
#: request (the SDK loads when the adapter first sends, not when it is imported; an import
#: statement run per request costs microseconds)
_SENDING: tuple[StainlessPost, Any, Any] | None = None


def _sending() -> tuple[StainlessPost, Any, Any]:
    global _SENDING
    if _SENDING is None:
        import httpx2
        from openai._streaming import AsyncStream

        _SENDING = (_poster(), httpx2.Response, AsyncStream[object])
    return _SENDING


#: The reasoning efforts DeepSeek's API takes (api-docs.deepseek.com guides/thinking_mode: minimal
#: and low → low; medium, high and xhigh → high; max and ultra → max; "none" turns thinking off).
DEEPSEEK_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra")


class _OpenAIModel(Transport):
    api = ""
    path = ""
    adapter_setting_names: ClassVar[frozenset[str]] = frozenset(_TRANSPORT_SETTINGS)
    #: read by the SDK when no base_url is given, an empty one included (openai/lib/_client_auth.py:
    #: ``base_url = os.environ.get("OPENAI_BASE_URL")`` when ``base_url is None``)
    base_url_env: ClassVar[str | None] = "OPENAI_BASE_URL"
    #: the codec's decoders give answers of the declared types (the loop checks only stop reasons)
    typed_answers: ClassVar[bool] = True

    def __init__(self, model_id: str, **settings: Any) -> None:
        """Raises :class:`ConfigurationError` for a ``base_url`` (or, without one, an
        ``OPENAI_BASE_URL``) that is empty or not an ``http://``/``https://`` URL with a host, and for a model id OpenAI's API would not find as written (rule ``request.model-id``: spaces around it, or
        a base model not in lower case sent to api.openai.com), naming the id to write; and, for
        api.openai.com, for a setting whose value the SDK does not type (``service_tier``,
        ``reasoning_effort``, ``verbosity``, ``reasoning``, ``text``, ``truncation``,
        ``prompt_cache_retention``, ``thinking`` effort: rule ``request.field-values``)."""
        transport = {k: settings.pop(k) for k in _TRANSPORT_SETTINGS if k in settings}
        # base_url=, else OPENAI_BASE_URL (base_url_env), is checked by the core Model
        super().__init__(model_id, **settings)
        self.transport_settings = transport
        self._client: Any = None
        from .profile import model_id_problem

        problem = model_id_problem(model_id, self._base_url())
        if problem:  # rule request.model-id
            raise ConfigurationError(f"{self.api}: {problem} [{self.api}.request.model-id]")
        self._check_thinking_keys()
        if not self._custom_server():
            self._check_setting_values()

    def _check_thinking_keys(self) -> None:
        """Raises :class:`ConfigurationError` for a ``thinking`` setting with a key this API's
        codec does not send (another vendor's form, such as Anthropic's ``{"type": "enabled",
        "budget_tokens": N}`` or Gemini's ``{"budget": N}``), which would otherwise be left out
        without a word. Chat Completions reads ``effort`` (sent as ``reasoning_effort``), and on
        DeepSeek's API also ``type`` (``"enabled"``/``"disabled"``, sent as DeepSeek's
        ``thinking`` field); Responses reads ``effort`` and ``summary`` (sent in ``reasoning``)."""
        thinking = self.settings.get("thinking")
        if not isinstance(thinking, dict) or not thinking:
            return
        from .profile import CHAT, hosted_server

        chat = self.api == CHAT
        deepseek = chat and hosted_server(self.settings) == "deepseek"
        reads = ("effort", "type") if deepseek else ("effort",) if chat else ("effort", "summary")
        name = "DeepSeek's API" if deepseek else "OpenAI Chat Completions" if chat else "the OpenAI Responses API"
        unread = [k for k in thinking if k not in reads]
        if deepseek and "type" in thinking and thinking["type"] not in ("enabled", "disabled"):
            unread.insert(0, "type")
        effort = thinking.get("effort")
        if (
            deepseek
            and effort is not None
            and not (isinstance(effort, str) and effort.strip().lower() in DEEPSEEK_EFFORTS)
        ):
            # api-docs.deepseek.com guides/thinking_mode: reasoning_effort takes minimal, low,
            # medium, high, xhigh, max or ultra (mapped to low, high or max); "none" is the
            # switch off. A server toolwire knows gets no value it would refuse.
            raise ConfigurationError(
                f"{self.api}:{self.model_id}: thinking effort {effort!r} is not one DeepSeek's API takes: use one of "
                f"{', '.join(DEEPSEEK_EFFORTS)} (thinking={{'effort': 'max'}}), or thinking={{'type': 'disabled'}} "
                "to turn thinking off"
            )
        if not unread:
            return
        hint = ""
        if any(k in thinking for k in ("budget_tokens", "budget", "thinking_budget")):
            hint = f" ({'DeepSeek' if deepseek else 'OpenAI'} sets reasoning by effort, not by a token budget)"
        if thinking.get("type") == "disabled" and not deepseek:
            hint += "; for no reasoning leave thinking unset, or use {'effort': 'none'} on gpt-5.1 and later"
        forms = {
            True: "thinking={'effort': 'low'|'high'|'max'} or {'type': 'enabled'|'disabled'} (DeepSeek's thinking field)",
            False: "thinking={'effort': 'low'}" + ("" if chat else " with an optional 'summary': 'auto'"),
        }[deepseek]
        shown = ", ".join(repr(k) for k in dict.fromkeys(unread))
        raise ConfigurationError(
            f"{self.api}:{self.model_id}: thinking {thinking!r}: {name} does not read {shown} here, so it would not "
            f"be sent{hint}. It takes {forms}; a field toolwire has no setting for goes in extra_body={{...}}"
        )

    def _check_setting_values(self) -> None:
        """The settings sent as request fields, checked against the installed SDK's types (rule
        ``request.field-values``) before anything is sent; ``thinking={"effort": E}`` as the
        reasoning effort it is sent as (any case); a request-field setting whose value is not of the
        JSON type the SDK gives the field (``user=5``, ``reasoning={"effort": 5}``) is refused too,
        naming the type to give (``extra_body`` is not checked)."""
        from .profile import (
            CHAT,
            RESPONSES_FIELD_VALUE_PATHS,
            field_key_problems,
            field_value_problems,
            setting_type_problems,
        )

        chat = self.api == CHAT
        tops = {"reasoning_effort", "verbosity"} if chat else {p[0] for p in RESPONSES_FIELD_VALUE_PATHS}
        given = {k: self.settings[k] for k in tops | {"service_tier", "prompt_cache_retention"} if k in self.settings}
        thinking = self.settings.get("thinking")
        effort = thinking.get("effort") if isinstance(thinking, dict) else None
        if isinstance(effort, str):
            effort = effort.strip().lower()  # a known model's effort is sent in lower case
        if effort is not None:
            if chat:
                given.setdefault("reasoning_effort", effort)
            elif isinstance(given.get("reasoning", {}), dict):
                given["reasoning"] = {"effort": effort, **given.get("reasoning", {})}
        problems = (
            field_value_problems(given, self.api)
            + field_key_problems(self.settings, self.api)
            + setting_type_problems(self.settings, self.api)
        )
        if problems:
            raise ConfigurationError(f"{self.api}:{self.model_id}: {problems[0][1]} [{self.api}.request.field-values]")

    # -- credentials ----------------------------------------------------------------------------
    def _base_url(self) -> str | None:
        return self.settings.get("base_url") or os.environ.get("OPENAI_BASE_URL") or None

    def _custom_server(self) -> bool:
        """Whether the requests go to a server other than OpenAI's API (the host any case, with or
        without a trailing dot: :func:`~toolwire_openai.profile.to_openai_api`, as every rule reads it)."""
        from .profile import to_openai_api

        return not to_openai_api(self._base_url())

    def _api_key(self) -> str | None:
        """The key: ``api_key=``, else the variable named by ``api_key_env=``, else
        ``OPENAI_API_KEY`` — except that a ``base_url`` passed as a setting for another server does
        not pick up ``OPENAI_API_KEY`` (an OpenAI key is not sent to a third-party server)."""
        if self.settings.get("api_key"):
            return str(self.settings["api_key"])
        env = self.transport_settings.get("api_key_env")
        if env:
            return os.environ.get(env) or None
        if self.settings.get("base_url") and self._custom_server():
            return None
        return os.environ.get("OPENAI_API_KEY") or None

    def credential_problem(self) -> str | None:
        """``None`` when a key is available or a custom ``base_url`` is set (local servers such as
        vLLM, Ollama, llama.cpp and LM Studio need none; OpenRouter needs ``api_key=`` or
        ``api_key_env="OPENROUTER_API_KEY"``), else which variable to set."""
        if self._api_key() or self._custom_server():
            return None
        env = self.transport_settings.get("api_key_env") or "OPENAI_API_KEY"
        return f"set {env} (or pass api_key=...)"

    def batch_api(self) -> Any:
        """The OpenAI Batch API (:class:`~toolwire_openai.batch.OpenAIBatchAPI`) with this model's
        client; ``None`` for a compatible server (``base_url`` elsewhere than api.openai.com),
        which the Batch API is not part of."""
        if self._custom_server():
            return None
        from .batch import OpenAIBatchAPI

        return OpenAIBatchAPI(self)

    # -- the SDK client -------------------------------------------------------------------------
    @property
    def client(self) -> Any:
        """The ``openai.AsyncOpenAI`` client, created on first use. Raises
        :class:`ConfigurationError` naming ``OPENAI_API_KEY`` when no key is available for
        api.openai.com."""
        if self._client is None or self._client_on_other_loop():
            problem = self.credential_problem()
            if problem:
                raise ConfigurationError(f"{self.provider}: {problem}")
            import openai

            key = self._api_key()
            # the SDK refuses to build a client without some credential; a keyless local server
            # gets a placeholder that is never sent (requests go out without bearer auth)
            kwargs: dict[str, Any] = {"api_key": key or "no-key"}
            for name in ("base_url", "http_client", "timeout"):
                if self.settings.get(name) is not None:
                    kwargs[name] = self.settings[name]
            kwargs["max_retries"] = 0  # toolwire retries (toolwire.retry); the SDK's would double them
            for name in ("organization", "project", "default_headers"):
                if self.transport_settings.get(name) is not None:
                    kwargs[name] = self.transport_settings[name]
            self._client = openai.AsyncOpenAI(**kwargs)
            self._client_made()
        return self._client

    def _options(self) -> dict[str, Any]:
        """Per-request SDK options: bearer auth when there is a key; for a keyless compatible
        server the ``Authorization`` header is explicitly omitted (the SDK's documented way)."""
        if self._api_key():
            return {"security": {"bearer_auth": True}}
        import openai

        return {"security": {}, "headers": {"Authorization": openai.omit}}

    async def aclose(self) -> None:
        """Close the SDK client if this model created its HTTP client (a passed ``http_client``
        belongs to the caller and stays open)."""
        if self._client is not None and self.settings.get("http_client") is None:
            await self._client.close()
        self._client = None

    def build_request(self, messages: Any, **kwargs: Any) -> ModelRequest:
        request = super().build_request(messages, **kwargs)
        for key in _TRANSPORT_SETTINGS:
            request.settings.pop(key, None)
        return request

    def _decoder(self, request: ModelRequest | None = None) -> Any:
        raise NotImplementedError

    def _prepare(self, request: ModelRequest) -> ModelRequest:
        return request

    def before_encode(self, request: ModelRequest, *, stream: bool) -> ModelRequest:
        """Preflight encodes the request as :meth:`send` will (continuation id included)."""
        return super().before_encode(self._prepare(request), stream=stream)

    # -- sending: the core Transport's send/send_stream over these hooks -----------------------
    async def post(self, body: dict[str, Any], *, stream: bool, request: ModelRequest) -> Any:
        """POST ``body`` as the SDK's ``post()`` does and return its raw ``httpx2.Response``
        (unread when ``stream``). The SDK applies auth, retries and timeouts and raises its typed
        errors for HTTP error statuses; the base maps every exception with :meth:`map_error`."""
        post, raw_response, sdk_stream_cls = _SENDING or _sending()
        client = self.client
        # sent as its JSON bytes (post(content=...)), serialized as the SDK's post(body=...) does
        # (openai._utils._json.openapi_dumps: compact, UTF-8, no NaN), the earlier messages of a
        # growing conversation not re-encoded (body_json); a value JSON cannot take (a datetime, a
        # pydantic model in extra_body) goes as the dict, for the SDK's own encoder
        content = body_json(self, body)
        sent: dict[str, Any] = {"body": body} if content is None else {"content": content}
        if stream:
            sdk_stream = await post.post(
                client,
                self.path,
                cast_to=object,
                stream=True,
                stream_cls=sdk_stream_cls,
                options=self._options(),
                **sent,
            )
            return sdk_stream.response  # read by toolwire's event-stream reader
        return await post.post(client, self.path, cast_to=raw_response, options=self._options(), **sent)

    def stream_body(self, body: dict[str, Any], stream: bool) -> dict[str, Any]:
        """``"stream"`` is always sent, ``true`` or ``false``."""
        body["stream"] = bool(stream)
        return body

    def key_source(self) -> str:
        """Which key requests carry, in words: ``"no API key"``, ``"the key passed as api_key="``
        or ``"the key in $NAME"``."""
        if self.settings.get("api_key"):
            return "the key passed as api_key="
        env = self.transport_settings.get("api_key_env")
        if env:
            return f"the key in ${env}" if os.environ.get(env) else f"no API key (${env} is not set)"
        if self.settings.get("base_url") and self._custom_server():
            return "no API key (OPENAI_API_KEY is not sent to a base_url other than api.openai.com)"
        return "the key in $OPENAI_API_KEY" if os.environ.get("OPENAI_API_KEY") else "no API key"

    def map_error(self, exc: BaseException) -> ProviderError:
        """SDK and transport exceptions → :class:`ProviderError` (:func:`provider_error_from_sdk`).
        A 401 from a custom ``base_url`` also says which key was sent (:meth:`key_source`) and how
        to pass one."""
        err = provider_error_from_sdk(exc, self.api)
        if err.status == 401 and self._custom_server():
            hint = (
                f"toolwire sent {self.key_source()} to {self._base_url()}; pass the server's key with "
                "api_key=... or name its variable with api_key_env=..."
            )
            err = ProviderError(
                err.provider,
                f"{err.message} ({hint})",
                status=err.status,
                retryable=err.retryable,
                error_type=err.error_type,
                body=err.body,
                retry_after=err.retry_after,
            )
        return err

    def stream_decoder(self, request: ModelRequest) -> Any:
        return self._decoder(request)

    def _stream_error(self, sse: SSEEvent, data: Any) -> ProviderError | None:
        """The error an event carries, or ``None``: an ``event: error`` or a chunk with a non-empty
        ``error`` (OpenAI and OpenRouter send ``{"error": {...}}`` chunks). The Responses ``error``
        event and Chat's ``{"error": {...}}`` chunk are left to the codec's stream decoder."""
        if isinstance(data, dict) and self.api == RESPONSES_API and data.get("type") == "error":
            return None
        carries = isinstance(data, dict) and data.get("error") not in (None, False, "", {}, [])
        if sse.event != "error" and not carries:
            return None
        if self.api == CHAT_API and isinstance(data, dict) and isinstance(data.get("error"), dict):
            return None
        wrapped = data if carries else {"error": data}
        return error_in_body(self.api, wrapped, ()) or ProviderError(
            self.api, f"the stream sent an error event: {snippet(sse.data)}", status=None, retryable=False, body=data
        )

    def event_data(self, sse: SSEEvent) -> Any:
        """``[DONE]`` ends the stream; an error event or chunk raises :class:`ProviderError`
        (:meth:`_stream_error`)."""
        if sse.data.startswith("[DONE]"):
            return END
        data = event_json(self.api, sse)
        err = self._stream_error(sse, data)
        if err is not None:
            raise err
        return data

    def check_streamed(self, response: Response) -> Response:
        """The Chat/Responses checks of a streamed response (:func:`check_tool_calls`: also a
        Responses ``custom_tool_call`` is marked as not supported)."""
        return check_tool_calls(response)


class OpenAIChatModel(_OpenAIModel):
    """OpenAI Chat Completions (and compatible servers) through ``openai.AsyncOpenAI``.

    ``OpenAIChatModel(model_id, **settings)`` — provider ``"openai-chat"``; settings:

    - ``api_key`` (else the variable named by ``api_key_env``, else ``OPENAI_API_KEY``),
      ``base_url`` (else ``OPENAI_BASE_URL``, default ``https://api.openai.com/v1``; set it for
      vLLM ``http://localhost:8000/v1``, Ollama ``http://localhost:11434/v1``, llama.cpp
      ``http://localhost:8080/v1``, LM Studio ``http://localhost:1234/v1``, OpenRouter
      ``https://openrouter.ai/api/v1``), ``http_client`` (an ``httpx2.AsyncClient``),
      ``timeout`` (seconds), ``max_retries`` (retries after the first attempt, default 2) and
      ``retry`` (a :class:`toolwire.retry.RetryPolicy`) — toolwire's retries, the SDK's own are
      off — ``organization``, ``project``,
      ``default_headers`` (e.g. OpenRouter's ``HTTP-Referer``);
    - ``cache`` (prompt caching, default off): ``True`` sends a ``prompt_cache_key`` derived from
      the model, tools and instructions (requests sharing that prefix share the key), a string
      sends that key; OpenAI caches prompts of 1024 tokens or more by itself, the key keeps
      requests with one prefix on one cache; an explicit ``prompt_cache_key`` setting wins;
    - ``max_tokens`` (sent as ``max_completion_tokens`` to api.openai.com, which deprecated
      ``max_tokens``; sent as ``max_tokens`` to any other ``base_url``, the field every
      compatible server reads — llama.cpp, Ollama and vLLM; ``max_tokens_field=`` chooses),
      ``temperature``, ``stream`` (SSE with
      ``stream_options.include_usage``), ``thinking`` (``{"effort": "low"|"medium"|"high"|...}``
      → ``reasoning_effort``), ``parallel_tool_calls``;
    - a request field by wire name (``seed``, ``store``, ``metadata``, ``service_tier``, ``stop``,
      ...; the list is :meth:`request_fields`) is sent as is; any other name raises
      ``ConfigurationError`` with the closest known one; ``extra_body={...}`` sends fields
      unchecked (a compatible server's own options);
    - ``named_tool_choice``: how a forced tool is sent, ``"object"`` (OpenAI's form, the default
      for api.openai.com) or ``"required"`` (``tool_choice: "required"`` with only that tool
      declared: the default for any other ``base_url``, since llama.cpp ignores the object form;
      see :class:`~toolwire_openai.chat.OpenAIChatCodec`). Whatever the server does, the run
      loop never runs a call to another tool than the forced one (it is answered with an error
      result).
    """

    provider = CHAT_API
    #: what the codec writes on every request (``extra_body`` cannot replace it)
    always_written_fields: ClassVar[Mapping[str, str]] = {
        "model": "the model id",
        "messages": "the conversation",
        "stream": "the stream setting",
    }

    @classmethod
    def request_fields(cls) -> frozenset[str]:
        """Request-body fields accepted as settings: the keys of the SDK's
        ``openai.types.chat.completion_create_params.CompletionCreateParamsBase`` and the codec's
        own keys (:data:`~toolwire_openai.chat.CODEC_KEYS`). A compatible server's own fields
        (``top_k``, ``num_ctx``, ...) go in ``extra_body``."""
        from openai.types.chat import completion_create_params

        from .chat import CODEC_KEYS

        return frozenset(set(completion_create_params.CompletionCreateParamsBase.__annotations__) | CODEC_KEYS) - {
            "model",
            "messages",
            "tools",
            "tool_choice",
        }

    api = CHAT_API
    path = "/chat/completions"

    def error_answer(self, exc: ProviderError, request: ModelRequest) -> Response | None:
        """A tool call the server refused to hand over (Groq's HTTP 400, or streamed ``event:
        error``, ``tool_use_failed`` with the model's ``failed_generation``) as the model's
        answer: the call(s) it wrote, which the run checks against the tool's input schema and
        answers with an ``is_error`` result, or (no call in it) stop reason ``error``, after which
        the run tells the model what the server said and asks again. ``None`` for every other
        error (raised as before). See :meth:`Transport.error_answer
        <toolwire.transport.Transport.error_answer>`."""
        return _tool_use_failed_answer(exc, request)

    def __init__(self, model_id: str, **settings: Any) -> None:
        super().__init__(model_id, **settings)
        codec_settings = dict(self.transport_settings)
        if self._custom_server():  # an OpenAI-compatible server: the forms they all read
            codec_settings.setdefault("max_tokens_field", "max_tokens")
            codec_settings.setdefault("named_tool_choice", "required")
        self.codec = self.make_codec(**codec_settings)
        # the server, recorded on the reasoning_content it sends: only that server gets it back
        self.codec.origin = (self._base_url() or "https://api.openai.com/v1").rstrip("/")

    @classmethod
    def make_profile(cls, **settings: Any) -> Any:
        """The Chat Completions profile (:class:`~toolwire_openai.profile.OpenAIChatProfile`)."""
        from .profile import OpenAIChatProfile

        return OpenAIChatProfile(**settings)

    @classmethod
    def make_codec(cls, **settings: Any) -> OpenAIChatCodec:
        """The Chat codec (reads ``max_tokens_field``, ``named_tool_choice`` and ``cache``)."""
        return OpenAIChatCodec(
            max_tokens_field=settings.get("max_tokens_field") or "max_completion_tokens",
            named_tool_choice=settings.get("named_tool_choice") or "object",
            cache=settings.get("cache") or False,
        )

    def _decoder(self, request: ModelRequest | None = None) -> ChatStreamDecoder:
        return ChatStreamDecoder(request, getattr(self.codec, "origin", None))

    def check_streamed(self, response: Response) -> Response:
        """The checks of a streamed answer: distinct calls sharing one id get ids of their own
        (:func:`~toolwire.wire.reissue_shared_ids`), then :func:`check_tool_calls`."""
        calls = response.tool_calls
        calls = split_parallel_calls(response, calls) or calls
        reissue_shared_ids(calls)
        return check_tool_calls(response, calls)

    async def count_tokens(self, request: ModelRequest) -> int:
        """Estimated input tokens (``prompt_tokens``) of the request, offline: Chat Completions has
        no counting endpoint. Uses the ``o200k_base`` ranks shipped in toolwire (no download, no
        key, no network) and OpenAI's chat accounting — see
        :func:`toolwire_openai.tokens.estimate_chat_input_tokens`; measured error on the recorded
        requests: at most 6 % (mean 2 %), images not counted. For a compatible server running
        another model family the count is only indicative (different tokenizer)."""
        from .tokens import estimate_chat_input_tokens

        assert self.codec is not None  # set in __init__; the base class allows a model without one
        return estimate_chat_input_tokens(self.codec.encode_request(request))


class OpenAIResponsesModel(_OpenAIModel):
    """OpenAI Responses through ``openai.AsyncOpenAI`` — provider ``"openai"``.

    Settings as :class:`OpenAIChatModel` (``max_tokens`` → ``max_output_tokens``, ``thinking``
    ``{"effort", "summary"}`` → ``reasoning``), plus:

    - ``continuation``: ``"stateless"`` (default: every request carries the whole history,
      reasoning items included — with ``store=False`` ask for
      ``include=["reasoning.encrypted_content"]`` so reasoning can be carried) or
      ``"previous_response_id"`` (the request names the last response this model produced and
      sends only the items after it; needs ``store`` left at its default ``True``);
    - ``store``, ``include``, ``previous_response_id``, ``reasoning``, ``text``, ``truncation``,
      ``metadata``, ... are sent as request fields.
    """

    provider = "openai"
    #: what the codec writes on every request (``extra_body`` cannot replace it)
    always_written_fields: ClassVar[Mapping[str, str]] = {
        "model": "the model id",
        "input": "the conversation",
        "stream": "the stream setting",
    }

    @classmethod
    def request_fields(cls) -> frozenset[str]:
        """Request-body fields accepted as settings: the keys of the SDK's
        ``openai.types.responses.response_create_params.ResponseCreateParamsBase`` and the codec's
        own keys (:data:`~toolwire_openai.responses.CODEC_KEYS`)."""
        from openai.types.responses import response_create_params

        from .responses import CODEC_KEYS

        return frozenset(set(response_create_params.ResponseCreateParamsBase.__annotations__) | CODEC_KEYS) - {
            "model",
            "input",
            "tools",
            "tool_choice",
        }

    api = RESPONSES_API
    path = "/responses"

    def __init__(self, model_id: str, **settings: Any) -> None:
        super().__init__(model_id, **settings)
        mode = self.transport_settings.get("continuation", "stateless")
        if mode not in ("stateless", "previous_response_id"):
            raise ConfigurationError(
                f"openai: continuation must be 'stateless' or 'previous_response_id', got {mode!r}"
            )
        if mode == "previous_response_id" and self.settings.get("store") is False:
            # found here, not on the second request after the first turn's tools already ran
            # (rule openai.request.previous-without-store)
            raise ConfigurationError(
                "openai: continuation='previous_response_id' names a stored response, so it cannot be used with "
                "store=False; use continuation='stateless' (the default) with store=False, or leave store at True"
            )
        codec = self.make_codec(**self.transport_settings)
        # the endpoint, recorded on the reasoning it issues: its encrypted_content is not sent to another
        codec.origin = (self._base_url() or "https://api.openai.com/v1").rstrip("/")
        self.codec = codec

    @classmethod
    def make_profile(cls, **settings: Any) -> Any:
        """The Responses profile (:class:`~toolwire_openai.profile.OpenAIResponsesProfile`)."""
        from .profile import OpenAIResponsesProfile

        return OpenAIResponsesProfile(**settings)

    @classmethod
    def make_codec(cls, **settings: Any) -> OpenAIResponsesCodec:
        """The Responses codec (reads ``cache``)."""
        return OpenAIResponsesCodec(cache=settings.get("cache") or False)

    def _decoder(self, request: ModelRequest | None = None) -> ResponsesStreamDecoder:
        return ResponsesStreamDecoder(request, getattr(self.codec, "origin", None))

    def check_streamed(self, response: Response) -> Response:
        """The checks of a streamed answer, as :meth:`OpenAIResponsesCodec.decode_response
        <toolwire_openai.responses.OpenAIResponsesCodec.decode_response>` applies them: a
        ``multi_tool_use.parallel`` call split into the calls it names
        (:func:`~toolwire_openai._common.split_parallel_calls`), then :func:`check_tool_calls`."""
        calls = response.tool_calls
        calls = split_parallel_calls(response, calls, parallel_record) or calls
        return check_tool_calls(response, calls)

    def _prepare(self, request: ModelRequest) -> ModelRequest:
        """With ``continuation="previous_response_id"`` add the id of the last response found in
        the history (``Message.provider_data["openai"]["response_id"]``)."""
        if self.transport_settings.get("continuation") != "previous_response_id" or request.settings.get(
            "previous_response_id"
        ):
            return request
        for msg in reversed(request.messages):
            rid = (msg.provider_data.get(RESPONSES_API) or {}).get("response_id") if msg.role == "assistant" else None
            if rid:
                request.settings = dict(request.settings) | {"previous_response_id": rid}
                break
        return request

    async def count_tokens(self, request: ModelRequest) -> int:
        """Input tokens the request would use (instructions, input items, tools), through the
        SDK's ``responses.input_tokens.count`` (``POST /responses/input_tokens``). Live: it costs
        an API call but no output tokens. The body is preflighted like a sent request
        (:class:`~toolwire.errors.RequestRefused` before anything is sent; repairs such as an
        image's media type read from its bytes apply). Returns
        ``InputTokenCountResponse.input_tokens``; raises :class:`ProviderError` like :meth:`send`."""
        from .tokens import count_input_tokens

        body = self.prepare(self._prepare(request))
        return await count_input_tokens(body, api=self.api, client=self.client)


def _tool_use_failed_answer(exc: ProviderError, request: ModelRequest) -> Response | None:
    """The answer made of a tool call a Chat-compatible server refused to hand over
    (:func:`~toolwire_openai.chat.tool_use_failed`), or ``None`` for any other error. Its usage
    is unknown (the error reports none)."""
    from toolwire.types import Usage

    from .chat import TOOL_USE_FAILED, tool_use_failed, tool_use_failed_parts

    found = tool_use_failed(exc.body)
    if found is None:
        return None
    message, generation = found
    parts, stop, pd = tool_use_failed_parts(message, generation, [message, generation, len(request.messages)])
    response = Response(
        parts=parts,
        stop_reason=stop,  # type: ignore[arg-type]
        vendor_stop_reason=TOOL_USE_FAILED,
        usage=Usage(),
        model=request.model,
        provider=CHAT_API,
    )
    response.provider_data = pd
    return response
