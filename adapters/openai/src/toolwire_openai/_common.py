"""Helpers shared by the Chat Completions and Responses codecs (pure functions, no I/O)."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from typing import Any, Callable, Collection, Iterable, Mapping

from toolwire.adapter import ModelRequest
from toolwire.arguments import EMPTY_ARGUMENT_TEXTS, dumps_arguments, parse_arguments
from toolwire.errors import ProviderError
from toolwire.schema.report import TranslationReport
from toolwire.tools import Tool
from toolwire.types import DocumentPart, Response, TextPart, ToolCall, ToolResult, Usage
from toolwire.wire import NAME_INVALID, json_copy, json_kind, mark_duplicate_ids, usage_int

from .profile import (
    PARALLEL_BARE_NAME,
    PARALLEL_PSEUDO_TOOL,
    PARALLEL_WRAPPER_NAMES,
    RESERVED_TOOL_NAMES,
    TOOL_NAME_RULE,
    wire_tool_names,
)
from .profile import real_names as _real_names

#: Prefix of an error tool result on the OpenAI APIs, which have no error flag.
ERROR_PREFIX = "Error: "


def arguments_text(call: ToolCall) -> str:
    """The ``arguments`` string to re-send for ``call``.

    The raw text the model produced is re-sent unchanged when it is a valid arguments object
    that still equals ``call.arguments`` (byte-exact replay, literal UTF-8 stays
    literal). Otherwise — an invalid call, arguments changed since decoding, or an empty form
    (``""``/``"null"``) — :func:`toolwire.arguments.dumps_arguments` is used, which writes
    ``"{}"`` for ``None`` and never ``"null"`` and keeps non-ASCII text literal.
    """
    raw = call.raw_arguments
    if raw is not None and call.invalid is None and raw.strip() not in EMPTY_ARGUMENT_TEXTS - {"{}"}:
        parsed, invalid = parse_arguments(raw)
        if invalid is None and parsed == call.arguments:
            return raw
    return dumps_arguments(call.arguments if call.invalid is None else None, finite=True)


#: The codecs' copy of ``provider_data`` item fields (:func:`toolwire.wire.json_copy`).
copied = json_copy


def usage_of(inp: Any, out: Any, cached: Any, written: Any, reasoning: Any, total: Any) -> Usage:
    """:class:`Usage` of one request from the vendor's counters (input, output, cache read,
    cache write, reasoning, vendor total), each by :func:`toolwire.wire.usage_int`'s rule with its
    common case (a non-negative int) decided inline; built positionally, in ``Usage``'s field
    order (half the cost of keywords)."""
    return Usage(
        inp if type(inp) is int and inp >= 0 else usage_int(inp),
        out if type(out) is int and out >= 0 else usage_int(out),
        cached if type(cached) is int and cached >= 0 else usage_int(cached),
        written if type(written) is int and written >= 0 else usage_int(written),
        reasoning if type(reasoning) is int and reasoning >= 0 else usage_int(reasoning),
        None,
        1,
        total if type(total) is int and total >= 0 else usage_int(total),
    )


#: ``service_tier`` values that price a request differently from the default tier (genai-prices
#: prices OpenAI's ``flex`` and ``priority`` processing, and ``fast``, by ``service_tier``).
PRICED_TIERS = frozenset({"flex", "priority", "fast"})


def record_price_context(response: Response, body: Any, api: str) -> None:
    """Record in ``response.provider_data[api]["price_context"]`` the tier the answer says served
    the request (``service_tier`` of a Chat completion, a chunk, or a Responses response:
    "the processing type actually used", which may differ from the one asked for), where it
    changes the price (:data:`PRICED_TIERS`); read by :func:`toolwire.pricing.response_price_context`."""
    tier = body.get("service_tier") if type(body) is dict else None
    if isinstance(tier, str) and tier in PRICED_TIERS:
        own = response.provider_data.get(api)
        if not isinstance(own, dict):
            own = response.provider_data[api] = {}
        own["price_context"] = {"service_tier": tier}


def blank_type(entry: dict[str, Any], key: str = "type") -> bool:
    """Whether ``entry`` (an object of an imported request body) has a ``key`` that is present and
    not ``null`` but empty or not a string: a discriminator no item, message or content part has
    (the SDK's params are told apart by a literal ``type``, or a Chat message by its ``role``).
    Import refuses such an entry (:func:`check_discriminator`), as it refuses an entry that is not
    an object."""
    value = entry.get(key)
    return value is not None and not (isinstance(value, str) and value)


def check_discriminator(shape: Any, entry: dict[str, Any], key: str, at: str, what: str) -> None:
    """Raises :class:`~toolwire.errors.ResponseDecodeError` at ``at``/``key`` when ``entry``'s
    ``key`` is blank (:func:`blank_type`: ``""``, ``5``, ``["user"]``). The SDK's params are told
    apart by a literal string there (``ResponseInputItemParam`` and the content part params by
    ``type``, ``ChatCompletionMessageParam`` by ``role``); such an entry was left out without a
    word (a message and its text lost), where an entry that is not an object is refused."""
    if blank_type(entry, key):
        raise shape.error(
            f"{at}/{key}",
            f"{at}/{key} must be the {what}'s {key}, a non-empty string, got {json.dumps(entry[key])[:60]}",
        )


def untyped_part(content: Any) -> int | None:
    """The index of the first entry of a ``content`` list (or a ``function_call_output``'s
    ``output`` list) that is an object without a ``type`` (absent or ``null``), else ``None``.
    Every content part of either API is told apart by a required literal ``type``: the API
    refuses such a part ("Missing required parameter: 'messages[1].content[0].type'."), and
    import refuses it naming it."""
    if not isinstance(content, list):
        return None
    for i, entry in enumerate(content):
        if isinstance(entry, dict) and entry.get("type") is None:
            return i
    return None


def without_blank_parts(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` (an imported message or item) without the ``content`` entries import leaves out
    (not an object, or a blank ``type``: :func:`blank_type`; both refused now), so its replay overrides do not put
    them back."""
    content = entry.get("content")
    if not isinstance(content, list):
        return entry
    return {**entry, "content": [c for c in content if isinstance(c, dict) and not blank_type(c)]}


def error_text(text: str) -> str:
    """``"Error: <text>"`` (not doubled when the text already starts with ``Error:``)."""
    return text if text.startswith("Error:") else ERROR_PREFIX + text


def mark_error(result: ToolResult) -> ToolResult:
    """Read an imported result back: text starting ``"Error: "`` (what :func:`error_text` writes)
    → ``is_error=True`` with the prefix removed, so the error survives a switch to a vendor with
    an error flag and re-encoding gives the same text."""
    if isinstance(result.content, str):
        if result.content == ERROR_PREFIX.strip():
            # an error result without text (result_text_parts: "an empty error result still
            # says Error:")
            result.content = ""
            result.is_error = True
        elif result.content.startswith(ERROR_PREFIX):
            result.content = result.content[len(ERROR_PREFIX) :]
            result.is_error = True
    elif result.content and isinstance(first := result.content[0], TextPart) and first.text.startswith(ERROR_PREFIX):
        first.text = first.text[len(ERROR_PREFIX) :]
        result.is_error = True
    elif (
        len(result.content) > 1
        and isinstance(first := result.content[0], TextPart)
        and first.text == ERROR_PREFIX.strip()
        and not any(isinstance(p, TextPart) for p in result.content[1:])
    ):
        # an error result of images/documents only: "Error:" before them
        result.content = result.content[1:]
        result.is_error = True
    return result


def result_text_parts(result: ToolResult) -> list[str]:
    """The text pieces of a result, with the ``Error: `` prefix on the first one when it is an
    error result (an empty error result still says ``Error:``)."""
    if isinstance(result.content, str):
        texts = [result.content]
    else:
        texts = [p.text for p in result.content if isinstance(p, TextPart)]
    if result.is_error:
        if texts:
            texts[0] = error_text(texts[0])
        else:
            texts = [ERROR_PREFIX.strip()]
    return texts


def apply_overrides(decl: dict[str, Any], pd: dict[str, Any] | None) -> dict[str, Any]:
    """Apply the wire overrides an imported declaration/message recorded in ``provider_data``:
    ``{"set": {key: value}, "omit": [key, ...]}`` (e.g. ``description: null`` or an absent
    ``description`` kept as the client sent it)."""
    if not pd:
        return decl
    for key, value in (pd.get("set") or {}).items():
        decl[key] = copied(value)
    for key in pd.get("omit") or ():
        decl.pop(key, None)
    return decl


def overrides_for(wire: dict[str, Any], canonical: dict[str, Any], known: set[str]) -> dict[str, Any]:
    """The ``{"set", "omit"}`` overrides that turn the canonical encoding ``canonical`` back into
    ``wire`` for the keys in ``known`` plus every key outside it (kept verbatim)."""
    set_: dict[str, Any] = {}
    omit: list[str] = []
    for key, value in wire.items():
        if key not in canonical or canonical[key] != value:
            set_[key] = copy.deepcopy(value)
    for key in canonical:
        if key not in wire:
            omit.append(key)
    out: dict[str, Any] = {}
    if set_:
        out["set"] = set_
    if omit:
        out["omit"] = omit
    return out


def wire_name(name: Any, report: TranslationReport) -> Any:
    """The name a tool is declared under on the wire: its own when OpenAI accepts it, else the
    renamed form (:func:`toolwire_openai.profile.wire_tool_names`), reported under the keyword
    ``name``. A request renames its whole tool set collision-safely (the profile's
    ``repair_names``) and the codecs map the model's calls back to the real name."""
    if not isinstance(name, str) or (TOOL_NAME_RULE.fullmatch(name) and name not in RESERVED_TOOL_NAMES):
        return name
    wire = wire_tool_names([name])[name]
    if name in RESERVED_TOOL_NAMES:
        why = "OpenAI keeps that function name for its models' own tool"
    else:
        why = "OpenAI allows only ^[a-zA-Z0-9_-]{1,64}$"
    report.add(
        "",
        "rewritten",
        "name",
        f"the tool name {name!r} is sent as {wire!r}: {why}; the model's calls to {wire!r} run {name!r}",
    )
    return wire


def real_call_names(response: Response, request: ModelRequest | None, calls: list[ToolCall] | None = None) -> Response:
    """Map the calls of ``response`` to renamed tools (see :func:`wire_name`) back to the tools'
    own names. ``calls``: ``response.tool_calls`` when the caller has that list already.
    Returns ``response``."""
    if request is None or not request.tools:
        return response
    back = _real_names(request.tools)
    if back:
        for call in response.tool_calls if calls is None else calls:
            if isinstance(call.name, str) and call.name in back:
                call.name = back[call.name]
    return response


def strict_parameters(tool: Tool, api: str) -> tuple[dict[str, Any], bool | None, TranslationReport]:
    """``(parameters, strict_flag, report)`` for a tool, translated by the API's profile
    (:meth:`toolwire_openai.profile.OpenAIChatProfile.translate_schema`): the top-level repairs
    of both modes, and with ``tool.strict`` True the strict transform. When the schema cannot be
    strict the non-strict translation is sent with ``strict: false`` (never an invalid strict
    schema) and the report says why (``strict_possible=False``). Raises
    :class:`~toolwire.errors.SchemaTranslationError` for a schema no OpenAI dialect accepts (a
    top-level type other than object), naming the pointer and the rule."""
    from .profile import profile_for

    strict = tool.strict is True
    report = TranslationReport(api=api, tool=tool.name)
    parameters = profile_for(api, strict=strict).translate_schema(tool.input_schema, report)
    if strict:
        return parameters, bool(report.strict_possible), report
    return parameters, tool.strict, report


# ------------------------------------------------------------------------------- shape checks


def check_tool_calls(response: Response, calls: list[ToolCall] | None = None) -> Response:
    """Mark the tool calls of a finished response that cannot be run: no usable name →
    :data:`NAME_INVALID`; a repeated id → :func:`duplicate_id_invalid`; a Responses
    ``custom_tool_call`` (``provider_data[...]["custom"]``) → not supported. Returns ``response``.
    The codecs' ``decode_response`` and the transports' streamed ``send`` call it; a stream
    assembled by hand from ``decode_stream`` can be passed through it. ``calls``:
    ``response.tool_calls`` when the caller has that list already."""
    if calls is None:
        calls = response.tool_calls
    for call in calls:
        for api_data in call.provider_data.values():
            if isinstance(api_data, dict) and api_data.get("custom"):
                # a Responses custom (free-text) tool call, also when assembled from a stream
                call.invalid = "custom (free-text) tool calls are not supported by toolwire; declare a function tool"
        if (not isinstance(call.name, str) or not call.name) and call.invalid is None:
            call.name = call.name if isinstance(call.name, str) else str(call.name)
            call.invalid = NAME_INVALID
    mark_duplicate_ids(calls)
    return response


#: What the model is told to do instead when its ``multi_tool_use.parallel`` call cannot be split.
_PARALLEL_FIX = (
    "Call each tool directly as its own function call, or send the arguments "
    '{"tool_uses": [{"recipient_name": "functions.<tool name>", "parameters": {<that tool\'s arguments>}}, ...]}.'
)


def _parallel_uses(call: ToolCall) -> tuple[list[tuple[str, dict[str, Any], str]] | None, str | None]:
    """``(uses, None)``: the ``(tool name, arguments, recipient_name as sent)`` of each use of a
    ``multi_tool_use.parallel`` call; ``(None, why)`` for such a call that cannot be split (``why``
    names the field to fix: an invalid or cut-off call, arguments without a non-empty
    ``tool_uses`` list of objects each with a string ``recipient_name`` and an object
    ``parameters``); ``(None, None)`` for a call of another name. A call named ``parallel``
    (:data:`PARALLEL_BARE_NAME`) is the wrapper only in its exact shape (every ``recipient_name``
    ``functions.<tool>``) and when the request declares no tool of that name (the decoders mark
    such a call ``provider_data["toolwire"]["declared"]``); otherwise it is an ordinary call."""
    if call.name != PARALLEL_PSEUDO_TOOL:
        if call.name != PARALLEL_BARE_NAME:
            return None, None
        own = call.provider_data.get("toolwire")
        if isinstance(own, dict) and own.get("declared"):
            return None, None
        uses, _why = _wrapper_uses(call)
        if uses is None or not all(recipient.startswith("functions.") for _, _, recipient in uses):
            return None, None
        return uses, None
    return _wrapper_uses(call)


def declares_parallel(request: ModelRequest | None) -> bool:
    """Whether ``request`` declares a tool named ``parallel`` (then a call of that name is that
    tool's, never the wrapper: :data:`PARALLEL_BARE_NAME`)."""
    return request is not None and any(t.name == PARALLEL_BARE_NAME for t in request.tools)


def mark_declared_parallel(calls: Iterable[ToolCall], request: ModelRequest | None) -> None:
    """Mark the calls of a tool ``parallel`` that ``request`` declares, so that
    :func:`split_parallel_calls` leaves them whole."""
    if declares_parallel(request):
        for call in calls:
            if call.name == PARALLEL_BARE_NAME:
                own = call.provider_data.setdefault("toolwire", {})
                if isinstance(own, dict):
                    own["declared"] = True


def _wrapper_uses(call: ToolCall) -> tuple[list[tuple[str, dict[str, Any], str]] | None, str | None]:
    if call.invalid is not None or call.incomplete:
        return None, f"its arguments are not usable ({call.invalid or 'cut off'})"
    args = call.arguments
    if type(args) is not dict:
        return None, f"its arguments are a JSON {json_kind(args)}, not an object with a tool_uses list"
    if "tool_uses" not in args:
        return None, "its arguments have no tool_uses list"
    uses = args["tool_uses"]
    if type(uses) is not list:
        return None, f"tool_uses is a JSON {json_kind(uses)}, not a list"
    if not uses:
        return None, "tool_uses is an empty list"
    out = []
    for i, use in enumerate(uses):
        if type(use) is not dict:
            return None, f"tool_uses[{i}] is a JSON {json_kind(use)}, not an object"
        recipient, params = use.get("recipient_name"), use.get("parameters")
        if type(recipient) is not str:
            return None, f"tool_uses[{i}].recipient_name is a JSON {json_kind(recipient)}, not a string"
        if type(params) is not dict:
            return None, f"tool_uses[{i}].parameters is a JSON {json_kind(params)}, not an object"
        name = recipient[len("functions.") :] if recipient.startswith("functions.") else recipient
        if not name:
            return None, f"tool_uses[{i}].recipient_name {recipient!r} names no tool"
        out.append((name, params, recipient))
    return out, None


def split_parallel_calls(
    response: Response,
    calls: list[ToolCall] | None = None,
    record: Callable[[ToolCall, int, str], dict[str, Any]] | None = None,
) -> list[ToolCall] | None:
    """Replace each ``multi_tool_use.parallel`` call of ``response`` (:data:`PARALLEL_PSEUDO_TOOL`)
    by the tool calls it names, in its place and in its order: call ``k`` (1-based) of the call
    with id ``X`` gets the id ``X_p<k>``, the name after ``functions.`` in its ``recipient_name``
    (a tool renamed on the wire mapped back to its own name when the call carries the request's
    ``provider_data["toolwire"]["real_names"]``, as a stream decoder records it) and its
    ``parameters`` as arguments, and ``provider_data["toolwire"]["parallel_of"] = X``; ``record``
    (given by the Responses codec) returns further ``provider_data`` for call ``k`` from the
    original call, ``k`` and the ``recipient_name`` as sent. Each is then an ordinary call: a
    declared tool runs, an undeclared one is answered as any unknown tool (``is_error``). A call
    of that name that cannot be split (arguments that are not an object with a non-empty
    ``tool_uses`` list of ``{"recipient_name": str, "parameters": object}``) stays one call,
    answered as an unknown tool whose ``is_error`` text says which field to fix
    (``provider_data["toolwire"]["unknown_tool"]``). ``calls``: the response's tool calls when the
    caller has them. Returns the response's new ``tool_calls`` when a call was split, else
    ``None``."""
    for call in response.tool_calls if calls is None else calls:
        if call.name in PARALLEL_WRAPPER_NAMES:
            break
    else:
        return None  # (the usual answer: one name comparison per call)
    split = False
    parts: list[Any] = []
    for part in response.parts:
        if not isinstance(part, ToolCall):
            parts.append(part)
            continue
        uses, why = _parallel_uses(part)
        own = part.provider_data.get("toolwire")
        names = own.pop("real_names", None) if isinstance(own, dict) else None
        if isinstance(own, dict):
            own.pop("declared", None)
        if uses is None:
            if why is not None:
                own = part.provider_data.setdefault("toolwire", {})
                if isinstance(own, dict):
                    own["unknown_tool"] = f"This {part.name} call was not split into tool calls: {why}. {_PARALLEL_FIX}"
            elif isinstance(own, dict) and not own:
                del part.provider_data["toolwire"]
            parts.append(part)
            continue
        split = True
        for k, (name, params, recipient) in enumerate(uses, 1):
            if isinstance(names, dict) and isinstance(real := names.get(name), str):
                name = real
            sub = ToolCall(
                f"{part.id}_p{k}",
                name,
                copy.deepcopy(params),
                json.dumps(params, ensure_ascii=False),
                id_synthesized=part.id_synthesized,
                provider_data={"toolwire": {"parallel_of": part.id}},
            )
            if record is not None:
                sub.provider_data.update(record(part, k, recipient))
            parts.append(sub)
    if not split:
        return None
    response.parts = parts
    return response.tool_calls


def synth_call_id(seed: Any, request: ModelRequest | None, position: int) -> str:
    """An id for a tool call the vendor sent without one: ``call_tw<16 hex>_<position>``, the hex
    a SHA-256 of ``seed`` (the response id, or the whole body when it has none) and the number of
    messages in ``request`` (so the same body decoded on a later turn gets other ids). It cannot
    collide with the ``call_<n>`` ids some compatible servers number their calls with."""
    turn = len(request.messages) if request is not None else None
    text = json.dumps([seed, turn], sort_keys=True, ensure_ascii=False, default=str)
    return f"call_tw{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}_{position}"


def unique_wire_calls(calls: Iterable[ToolCall], sent: set[str]) -> list[ToolCall]:
    """The calls to put on the wire: a call whose id is already in ``sent`` (a duplicate id in one
    response, or an id repeated from an earlier turn) is left out, so each id is sent and
    answered once. ``sent`` is updated."""
    out = []
    for call in calls:
        if call.id in sent:
            continue
        sent.add(call.id)
        out.append(call)
    return out


#: The error ``type`` or ``code`` values of an OpenAI error object that say the failure is
#: transient, read where the error comes without an HTTP status (a Chat stream chunk
#: ``{"error": {...}}``, a Responses ``error`` event or failed response, an error object in a 200
#: body): ``server_error`` and ``rate_limit_exceeded`` (``openai.types.responses.ResponseError.code``;
#: the same values as ``type`` of a 500 and ``code`` of a 429 in OpenAI's error-codes guide),
#: ``too_many_requests`` (compatible servers). Such an error is retried, as the same error sent
#: with its HTTP status (500, 429) is, on both APIs.
TRANSIENT_ERROR_CODES = ("server_error", "rate_limit_exceeded", "too_many_requests")

#: ``type`` / ``code`` of a 429 that is no rate limit but a used-up quota, which a retry does not
#: lift: ``insufficient_quota``, "You exceeded your current quota, please check your plan and
#: billing details" (OpenAI's error-codes guide; retrying it only delays the error:
#: langchain-ai/langchainjs#1929).
QUOTA_ERROR_CODES = frozenset({"insufficient_quota"})


def provider_error_from_sdk(exc: BaseException, api: str) -> ProviderError:
    """An ``openai`` SDK exception → :class:`ProviderError` (``provider=api``).

    - ``APIStatusError``: ``status`` = HTTP status; ``message`` = the vendor's ``error.message``
      (or a string ``error``; without either, ``"Error code: <status>: '<first 200 characters of
      the body>'"``, e.g. for an HTML page from a gateway);
      ``error_type`` = ``error.type`` or else ``error.code`` (e.g. ``invalid_request_error``,
      ``rate_limit_exceeded``); ``body`` = the decoded error body; ``retryable`` follows an
      ``x-should-retry`` header when sent, else 408/409/429/5xx, except a 429 for a used-up
      quota (:data:`QUOTA_ERROR_CODES`).
    - ``APITimeoutError`` / ``APIConnectionError``: ``status=None``, ``retryable=True``,
      ``error_type`` ``"timeout"`` / ``"connection_error"``.
    - Any other ``APIError`` (e.g. an ``error`` object inside a stream): ``status=None``, not
      retryable, the vendor message and body kept.
    - Any other exception (the HTTP layer failed outside the SDK's errors, e.g. vcrpy refusing a
      request it has no recording for): ``status=None``, ``error_type="connection_error"``, the
      message ``connection error (<ExceptionType>: <text>)``.
    """
    import openai

    from toolwire.transport import stainless_error

    return stainless_error(api, exc, openai, quota_codes=QUOTA_ERROR_CODES)


def prompt_cache_key(cache: Any, body: dict[str, Any]) -> str | None:
    """The ``prompt_cache_key`` to send for the model setting ``cache`` (Chat Completions
    ``CompletionCreateParams.prompt_cache_key``, Responses ``ResponseCreateParams.prompt_cache_key``):

    - a string: that key, as given (the caller's own grouping, e.g. one per user or per agent);
    - ``True``: ``"toolwire-"`` + the first 32 hex digits of the SHA-256 of the stable prefix
      (the model id, the tool declarations and the instructions, as compact JSON), so requests
      that share tools and instructions share a key and every other request does not;
    - ``False``/``None``: no key.
    """
    if cache is None or cache is False:
        return None
    if isinstance(cache, str):
        return cache
    prefix = {
        "model": body.get("model"),
        "tools": body.get("tools") or [],
        "instructions": body.get("instructions"),
        "system": [
            m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") in ("system", "developer")
        ][:1],
    }
    digest = hashlib.sha256(
        json.dumps(prefix, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()
    return "toolwire-" + digest[:32]


def document_from_data_url(
    data: str, name: str | None, extra: dict[str, Any], api: str, key: str, media_types: tuple[str, ...]
) -> DocumentPart | None:
    """A :class:`~toolwire.types.DocumentPart` from a file's base64 ``data:`` URL (``data``) of one
    of ``media_types``, named ``name``, the wire part's other fields ``extra`` kept in
    ``provider_data[api][key]`` (Chat ``file`` parts and Responses ``input_file`` parts both carry
    files so); ``None`` for another type, data that is not base64 or no such document,
    or base64 that would not go back byte-equal (the caller then keeps the part whole)."""
    head, sep, b64 = data.partition(";base64,")
    if not sep or head[5:] not in media_types or not head.startswith("data:"):
        return None
    try:
        doc = DocumentPart(base64.b64decode(b64, validate=True), head[5:], name)
    except ValueError:  # not base64, no bytes, not a PDF, not UTF-8
        return None
    if doc.data_url != data:
        return None  # not canonical base64: kept whole so it goes back byte-equal
    if extra:
        doc.provider_data = {api: {key: copy.deepcopy(extra)}}
    return doc


#: The JSON kinds other than text that the importers take in a call's ``arguments`` (which the
#: SDK types ``str``): an object is the call's arguments, as some compatible servers and gateways
#: send them (Portkey-AI/gateway#768); an array, number or boolean makes the call invalid, naming
#: the kind, as the answer decoders do (the model is told, never the tool run with it). A ``null``
#: is refused, naming the field: it is no call's arguments (the SDK's type is not ``Optional``), and
#: it was read as ``{}``, a call without arguments.
ARGUMENT_KINDS = ("an object", "an array", "an integer", "a number", "a boolean")


def check_import_types(
    shape: Any,
    body: dict[str, Any],
    params: Any,
    skip: Iterable[str] = (),
    also: Mapping[str, Collection[str]] | None = None,
) -> None:
    """Raises :class:`~toolwire.errors.ResponseDecodeError` (through ``shape``, the codec's
    :class:`toolwire.wire.Shape`) at the first place of an imported request body whose JSON kind
    the SDK's request type ``params`` (``CompletionCreateParamsBase`` /
    ``ResponseCreateParamsBase``) does not allow there, top-level fields and what they hold
    (a message's ``content``, a call's ``arguments``, a ``tool_choice``'s function ``name``, ...),
    walked through the SDK's nested param types (:func:`toolwire.profile.nested_kind_problems`:
    the kind only, so a compatible server's own values of a field pass, and an object of a type
    the SDK does not know is not looked into); ``stream`` is a boolean (``Literal[True]`` /
    ``Literal[False]`` in the SDK's Streaming / NonStreaming params). Such a value was dropped
    (a ``tool_choice`` of 5), turned into something else (a tool message's ``content: 5`` became
    the text ``"5"``) or carried along for the API to refuse. ``skip``: the fields the codec
    checks itself; ``also``: SDK field → the kinds the codec takes there beyond the SDK's
    (:func:`~toolwire.profile.nested_kind_problems`). Import only: no request sent runs it."""
    from toolwire.profile import nested_kind_problems

    shape.field_types(
        body,
        None,
        tuple(skip),
        problems=lambda fields: nested_kind_problems(fields, params, also=also),
    )
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise shape.bad("/stream", "a boolean", stream)


def check_as_user_message(shape: Any, entry: dict[str, Any], sdk_type: Any, at: tuple[str | int, ...]) -> None:
    """Raises :class:`~toolwire.errors.ResponseDecodeError` at the first field of ``entry``, a
    message without a ``role`` (which the importers read as a user message), of a JSON kind the
    SDK's user message type ``sdk_type`` (``ChatCompletionUserMessageParam``,
    ``EasyInputMessageParam``) does not allow there; :func:`check_import_types` leaves such an
    entry alone, as it fits none of the SDK's messages by its tags. Its ``content: 5`` became an
    empty user message."""
    from toolwire.profile import nested_kind_problems

    problems = nested_kind_problems(entry, sdk_type, at=at)
    if problems:
        raise shape.error(*problems[0])


def check_function_decl(shape: Any, fn: dict[str, Any], at: str) -> None:
    """Raises :class:`~toolwire.errors.ResponseDecodeError` at ``at``/<field> for a function
    declaration field of the wrong JSON type (``description: str``, ``parameters:
    FunctionParameters`` = ``Dict[str, object]``, ``strict: Optional[bool]``: the openai SDK's
    ``shared_params.FunctionDefinition`` and ``responses.FunctionToolParam``): a ``parameters``
    that was not an object became an empty schema, a ``strict`` that was not a boolean was
    dropped."""
    for key, ok, expected in (
        ("description", lambda v: isinstance(v, str), "a string"),
        ("parameters", lambda v: isinstance(v, dict), "an object (a JSON Schema)"),
        ("strict", lambda v: isinstance(v, bool), "a boolean"),
    ):
        value = fn.get(key)
        if value is not None and not ok(value):
            raise shape.bad(f"{at}/{key}", expected, value)


def tool_at(make: Callable[[], Tool], at: str) -> Tool:
    """``make()`` with a :class:`~toolwire.errors.ToolDefinitionError` it raises (a name of the
    wrong type or outside the rule) naming the declaration's place ``at`` in the imported body."""
    from toolwire.errors import ToolDefinitionError

    try:
        return make()
    except ToolDefinitionError as err:
        if err.args and isinstance(err.args[0], str):
            err.args = (f"{err.args[0]} (at {at})", *err.args[1:])
        raise
