"""The Gemini codec: canonical requests/responses ⇄ the Gemini REST JSON (``generateContent``).

Pure functions of their inputs (no I/O, clocks or globals). The wire form is
the REST JSON of the Gemini API reference (``v1beta``): camelCase field names
(``functionCall``, ``thoughtSignature``, ``functionDeclarations``), exactly what the recorded
clients sent and received. Decoding also accepts the snake_case spellings (proto3 JSON parsers
accept both the lowerCamelCase ``json_name`` and the original field name), so histories written
by clients such as llm-gemini (``function_call``) import too.

See ``docs/adapters/gemini.md`` for the policies (ids, thought signatures, schema modes,
finish-reason and usage tables).
"""

from __future__ import annotations

import ast
import base64
import copy
import dataclasses
import functools
import hashlib
import json
import re
from typing import Any, Iterable, Iterator

from toolwire.adapter import (
    DeclarationMemo,
    ModelRequest,
    given_thinking,
    normalize_tool_choice,
    tool_choice_setting_change,
)
from toolwire.arguments import MAX_ARGUMENT_DEPTH
from toolwire.errors import (
    ConfigurationError,
    ProviderError,
    ResponseDecodeError,
    SchemaTranslationError,
    ToolNameError,
    UnsupportedToolChoice,
)
from toolwire.schema.coerce import coerce_arguments
from toolwire.schema.report import TranslationReport
from toolwire.stream import (
    ProviderToolDone,
    ReasoningDelta,
    ResponseStart,
    StopEvent,
    StreamEvent,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)
from toolwire.tools import ProviderTool, Tool
from toolwire.transport import error_in_body
from toolwire.turns import (
    answer_request,
    duplicate_changes,
    readable_tool_result,
    system_as_user_changes,
    tool_image_changes,
)
from toolwire.types import (
    DocumentPart,
    ImagePart,
    Message,
    Part,
    ProviderToolPart,
    ReasoningPart,
    Response,
    TextPart,
    ToolCall,
    ToolResult,
    Usage,
    url_scheme,
)
from toolwire.wire import (
    NAME_INVALID,
    Shape,
    check_tool_calls,
    duplicate_id_invalid,
    json_copy,
    json_kind,
    mark_duplicate_ids,
    tool_name,
    usage_int,
)

from .profile import (
    CACHED_CONTENT_EXCLUDES,
    FUNCTION_NAME_RULE,
    IMAGE_MEDIA_TYPES,
    INVALID_NAME_PLACEHOLDER,
    SKIP_SIGNATURE,
    GeminiProfile,
    fetches_image_url,
    is_base64,
    model_major,
)
from .profile import usage_from_metadata as _profile_usage
from .schema import is_zero_parameter, openapi_to_json_schema

__all__ = [
    "GeminiCodec",
    "API",
    "SKIP_SIGNATURE",
    "FINISH_REASONS",
    "map_finish_reason",
    "usage_from_metadata",
    "GeminiStreamDecoder",
    "NAME_INVALID",
    "duplicate_id_invalid",
    "mark_duplicate_ids",
    "check_tool_calls",
]

API = "gemini"

#: ``SKIP_SIGNATURE`` (from :mod:`toolwire_gemini.profile`): the placeholder Google documents for
#: model turns that Gemini did not produce (thought signatures page, "FAQ: transferring a
#: conversation from another model"): the API skips signature validation for a part carrying it.

#: ``finishReason`` → canonical stop reason (``STOP`` with function calls → ``tool_use``).
FINISH_REASONS: dict[str, str] = {
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "RECITATION": "refusal",
    "LANGUAGE": "refusal",
    "BLOCKLIST": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "SPII": "refusal",
    "IMAGE_SAFETY": "refusal",
    "IMAGE_PROHIBITED_CONTENT": "refusal",
    "IMAGE_RECITATION": "refusal",
    "MODEL_ARMOR": "refusal",
    "ESCALATION": "refusal",
    "PUP_LIMITED_DISABLED": "refusal",
    "MALFORMED_FUNCTION_CALL": "error",
    "UNEXPECTED_TOOL_CALL": "error",
    "TOO_MANY_TOOL_CALLS": "error",
    "MISSING_THOUGHT_SIGNATURE": "error",
    "MALFORMED_RESPONSE": "error",
    "OTHER": "error",
    "FINISH_REASON_UNSPECIFIED": "error",
    "IMAGE_OTHER": "error",
    "NO_IMAGE": "error",
    "CONTINUATION": "max_tokens",
}


_SCHEMA_MODES = ("json_schema", "openapi")
_SIGNATURE_POLICIES = ("auto", "placeholder", "none")


# --------------------------------------------------------------------------------------------
# small helpers


@functools.lru_cache(maxsize=512)
def _snake(name: str) -> str:
    """``name`` in snake_case (memoized: only the API's structural keys are looked up)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _given_calling_config(raw: Any) -> dict[str, Any] | None:
    """The ``functionCallingConfig`` (either spelling) of a ``tool_config`` setting, or ``None``."""
    if not isinstance(raw, dict):
        return None
    given = raw.get("functionCallingConfig", raw.get("function_calling_config"))
    return given if isinstance(given, dict) else None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _g(d: Any, name: str, default: Any = None) -> Any:
    """``d[name]`` in camelCase or snake_case spelling (structural keys only, never user data)."""
    if not isinstance(d, dict):
        return default
    if name in d:
        return d[name]
    snake = _snake(name)
    if snake in d:
        return d[snake]
    return default


#: ``FUNCTION_NAME_RULE`` and ``INVALID_NAME_PLACEHOLDER`` come from :mod:`toolwire_gemini.profile`
#: (rules ``gemini.name.function`` and ``gemini.name.call-in-history``): a letter or ``_`` first,
#: then letters, digits, ``_``, ``.``, ``:`` or ``-``, at most 64 characters; a tool call whose
#: name Gemini would refuse is sent, with its result, under ``"invalid_tool_name"``.


def wire_function_name(name: Any) -> str:
    """The ``functionCall.name`` / ``functionResponse.name`` to send for a tool call: its name
    when Gemini accepts it (:data:`FUNCTION_NAME_RULE`), else :data:`INVALID_NAME_PLACEHOLDER`.
    Such a call is invalid (never run) and answered by the loop with an ``is_error`` result;
    sending the pair under the placeholder keeps the conversation valid for Gemini and tells the
    model its call was refused, whichever provider produced the call."""
    return name if isinstance(name, str) and FUNCTION_NAME_RULE.fullmatch(name) else INVALID_NAME_PLACEHOLDER


def _has(d: Any, name: str) -> bool:
    return isinstance(d, dict) and (name in d or _snake(name) in d)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_S = Shape(API)
_bad, _obj, _opt_obj, _opt_list, _opt_str, _guarded = _S.bad, _S.obj, _S.opt_obj, _S.opt_list, _S.opt_str, _S.guarded
_json_kind, _counter, _tool_name = json_kind, usage_int, tool_name


def map_finish_reason(finish: str | None, has_calls: bool) -> str:
    """Canonical stop reason for a Gemini ``finishReason``.

    Gemini ends a function-calling turn with ``STOP`` like any other, so tool use is recognised
    from the parts: ``STOP`` (or no finish reason) with at least one ``functionCall`` part →
    ``tool_use``. Unknown values map to ``error`` (the raw value is always kept beside it).
    """
    if finish in (None, "", "STOP"):
        return "tool_use" if has_calls else "end_turn"
    return FINISH_REASONS.get(finish, "error") if isinstance(finish, str) else "error"


def usage_from_metadata(meta: Any) -> Usage:
    """``usageMetadata`` → :class:`Usage` (tokens), as the profile maps it (rule
    ``gemini.usage.mapping``, :func:`toolwire_gemini.profile.usage_from_metadata`):
    ``output_tokens`` = ``candidatesTokenCount`` + ``thoughtsTokenCount``, ``reasoning_tokens`` =
    ``thoughtsTokenCount``, ``input_tokens`` = ``promptTokenCount`` (cached content included) +
    ``toolUsePromptTokenCount``, ``cache_read_tokens`` = ``cachedContentTokenCount``.
    A counter that is not a non-negative integer is left ``None``; a missing prompt or
    candidates count in a report that carries ``totalTokenCount`` is 0 (proto3 JSON leaves out
    zero values)."""
    return _profile_usage(meta)


def _signature_pd(sig: str | None) -> dict[str, Any]:
    return {API: {"thoughtSignature": sig}} if sig is not None else {}


def _decode_blob(blob: dict[str, Any]) -> ImagePart | None:
    data, mime = _g(blob, "data"), _g(blob, "mimeType")
    if not isinstance(data, str) or not isinstance(mime, str) or not mime:
        return None
    try:
        raw = base64.b64decode(data + "=" * (-len(data) % 4), altchars=b"-_" if ("-" in data or "_" in data) else None)
    except Exception:
        return None
    return ImagePart(data=raw, media_type=mime)


def _decode_file_image(part: Any) -> ImagePart | None:
    """An image given by URL: a part that is exactly ``{"fileData": {"mimeType": ..., "fileUri":
    ...}}`` (``google.genai.types.FileData``: ``file_uri``, ``mime_type``) with an image type Gemini
    reads and an http(s) ``fileUri`` that is no Files API URI (another API fetches a web URL; an
    uploaded file is Gemini's own). It decodes to ``ImagePart(url=...)``, which goes back to Gemini
    as the same ``fileData`` (see :func:`_image_wire`); ``None`` for any other part (kept whole)."""
    # (the SDK's snake_case field names are read as the API's camelCase, as for inline data)
    if not isinstance(part, dict) or len(part) != 1 or not ({"fileData", "file_data"} & set(part)):
        return None
    fd = part.get("fileData", part.get("file_data"))
    if not isinstance(fd, dict) or len(fd) != 2:
        return None
    mime, uri = fd.get("mimeType", fd.get("mime_type")), fd.get("fileUri", fd.get("file_uri"))
    if {"mimeType", "mime_type"}.isdisjoint(fd) or {"fileUri", "file_uri"}.isdisjoint(fd):
        return None
    if not isinstance(mime, str) or mime not in IMAGE_MEDIA_TYPES or not isinstance(uri, str):
        return None
    if url_scheme(uri) not in ("http", "https"):
        return None
    from urllib.parse import urlsplit

    try:
        host = urlsplit(uri).hostname
    except ValueError:
        return None
    # (a Files API URI; the host lower case, a fully qualified name's final dot taken off)
    if not host or host.rstrip(".") == "generativelanguage.googleapis.com":
        return None
    try:
        image = ImagePart(url=uri, media_type=mime)
    except (TypeError, ValueError):
        return None
    return image if _image_wire(image) == {"fileData": {"mimeType": mime, "fileUri": uri}} else None


def _decode_document(blob: Any, pd: dict[str, Any] | None = None) -> DocumentPart | None:
    """An ``inlineData`` blob of exactly ``mimeType`` ``application/pdf`` or ``text/plain`` (UTF-8)
    and canonical base64 ``data`` → :class:`DocumentPart` (``provider_data`` ``pd``; plain text is
    marked to go back to Gemini as ``inlineData``, as it came); ``None`` otherwise (another type,
    other fields, bytes that are no PDF or no UTF-8: then decoded as before)."""
    if not isinstance(blob, dict) or set(blob) != {"mimeType", "data"} or blob["mimeType"] not in _INLINE_DOCUMENTS:
        return None
    data = blob["data"]
    if not isinstance(data, str):
        return None
    try:
        doc = DocumentPart(base64.b64decode(data, validate=True), blob["mimeType"])
    except ValueError:  # not base64, no bytes, not a PDF, not UTF-8
        return None
    if doc.base64 != data:
        return None
    merged = copy.deepcopy(pd) if pd else {}
    if doc.media_type == "text/plain":
        merged.setdefault(API, {})["inline"] = True
    if merged:
        doc.provider_data = merged
    return doc


#: The ``inlineData`` types an imported request's blob decodes to a :class:`DocumentPart` from:
#: Gemini takes plain text inline as well as PDFs ("other types ... such as TXT ... will be
#: extracted as pure text", https://ai.google.dev/gemini-api/docs/document-processing).
_INLINE_DOCUMENTS = ("application/pdf", "text/plain")


def _document_wire(part: DocumentPart) -> dict[str, Any]:
    """A document as a Gemini part: a PDF as ``inlineData`` (document understanding takes PDFs
    inline), plain text as a text part headed by its name, or as the ``inlineData`` it was
    imported from."""
    if part.media_type == "text/plain" and not (part.provider_data.get(API) or {}).get("inline"):
        return {"text": _document_text(part)}
    return {"inlineData": {"mimeType": part.media_type, "data": part.base64}}


def _document_text(part: DocumentPart) -> str:
    return f"{part.name}:\n{part.text}"


#: ``provider_data`` of a PDF decoded from an imported ``functionResponse.parts``: it goes back there.
_IN_RESPONSE = {API: {"in_response_parts": True}}


def _in_response_parts(part: DocumentPart) -> bool:
    return bool((part.provider_data.get(API) or {}).get("in_response_parts"))


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _image_wire(part: ImagePart) -> dict[str, Any]:
    if part.data is not None:
        # the declared type: a type its bytes contradict is corrected and reported by the preflight
        # (rule gemini.conversation.image-media-type-data)
        return {"inlineData": {"mimeType": part.declared_wire_media_type, "data": part.base64}}
    d: dict[str, Any] = {"fileUri": part.url}
    if part.media_type:
        d["mimeType"] = part.wire_media_type
    else:
        # ``FileData.mime_type`` is "Required" in the SDK; the Gemini API reads a Files API or
        # YouTube URI's own type without it (sources disagree: Vertex AI refuses "an empty mimeType
        # parameter in fileData", GoogleCloudPlatform/generative-ai#1390). An image URL whose path
        # names an image type gets that type; any other is sent without one, as before.
        guessed = _image_type_of_url(part.url)
        if guessed is not None:
            d["mimeType"] = guessed
    return {"fileData": d}


def _image_type_of_url(url: Any) -> str | None:
    """``image/...`` for a URL whose path ends in an image file extension (``.png``, ``.jpg``,
    ``.webp``, ...; query and fragment ignored), else ``None``."""
    if not isinstance(url, str):
        return None
    import mimetypes
    from urllib.parse import urlsplit

    try:
        path = urlsplit(url).path
    except ValueError:
        return None
    guessed = mimetypes.guess_type(path, strict=False)[0]
    return guessed if isinstance(guessed, str) and guessed.startswith("image/") else None


def _synth_id(response_key: str, position: int) -> str:
    """``gemini-<key>-<n>`` restricted to ``[A-Za-z0-9_-]`` so the id is valid for every vendor
    (Anthropic's ``tool_use.id`` pattern) when the conversation moves elsewhere."""
    return f"gemini-{re.sub(r'[^A-Za-z0-9_-]', '_', str(response_key))}-{position}"


def _content_key(body: Any, request: ModelRequest | None = None) -> str:
    """16 hex digits of a SHA-256 of ``body`` and the number of messages in ``request``: the same
    body decoded on another turn of a conversation gets another key."""
    turn = len(request.messages) if request is not None else None
    text = json.dumps([body, turn], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _gemini_major(model: str | None) -> int | None:
    return model_major(model)


# --------------------------------------------------------------------------------------------
# the codec


class GeminiCodec:
    """Codec for the Gemini API ``generateContent`` / ``streamGenerateContent`` REST JSON.

    - ``schema_mode``: ``"json_schema"`` (default) sends input schemas unchanged as
      ``parametersJsonSchema``; ``"openapi"`` sends the OpenAPI-subset ``parameters`` with the
      rewrites of :func:`toolwire_gemini.schema.to_openapi_schema`. Never both fields.
    - ``foreign_thought_signature``: what a model turn that Gemini did not produce (calls from
      another vendor, hand-written history) gets on its first ``functionCall`` part:
      ``"auto"`` (default) the :data:`SKIP_SIGNATURE` placeholder when the request's model is
      Gemini 3 or later or cannot be told, nothing for ``gemini-1.x``/``gemini-2.x``;
      ``"placeholder"`` always; ``"none"`` never.

    Raises :class:`ConfigurationError` for an unknown setting value.
    """

    api = API

    def __init__(
        self, schema_mode: str = "json_schema", foreign_thought_signature: str = "auto", *, cache: bool | str = False
    ) -> None:
        if schema_mode not in _SCHEMA_MODES:
            raise ConfigurationError(f"gemini schema_mode must be one of {_SCHEMA_MODES}, got {schema_mode!r}")
        if foreign_thought_signature not in _SIGNATURE_POLICIES:
            raise ConfigurationError(
                f"gemini foreign_thought_signature must be one of {_SIGNATURE_POLICIES}, got {foreign_thought_signature!r}"
            )
        self.schema_mode = schema_mode
        self.foreign_thought_signature = foreign_thought_signature
        if not isinstance(cache, (bool, str)) or (isinstance(cache, str) and not cache.startswith("cachedContents/")):
            raise ConfigurationError(
                f"gemini cache must be True/False (implicit caching) or a cached content name 'cachedContents/<id>', got {cache!r}"
            )
        #: prompt caching: ``True`` relies on Gemini's implicit caching (nothing is sent: the body
        #: keeps the stable prefix first); ``"cachedContents/<id>"`` names a cache the caller
        #: created, sent as ``cachedContent`` without the fields the cache holds
        self.cache = cache
        #: The rules of this schema mode (:class:`toolwire_gemini.profile.GeminiProfile`).
        self.profile: GeminiProfile = GeminiProfile(schema_mode, foreign_thought_signature=foreign_thought_signature)

    def __repr__(self) -> str:
        return f"GeminiCodec(schema_mode={self.schema_mode!r})"

    @property
    def plain_history_sent_whole(self) -> bool:
        """Whether :meth:`left_out_parts` reports nothing for a plain history (text, tool calls
        answered in the next message, text results: :func:`toolwire.turns.plain_history`), so the
        preflight skips it for one: not with a cached content, whose held settings it reports."""
        return not isinstance(self.cache, str)

    # ---------------------------------------------------------------- incremental encoding

    @staticmethod
    def concatenates_history(request: ModelRequest) -> bool:
        """Whether ``contents`` is the encoding of a closed prefix of the conversation followed by
        that of the rest (see ``toolwire.adapter``): yes (the answers to one model turn are
        joined only within the messages after it)."""
        return True

    @staticmethod
    def history_lead(request: ModelRequest) -> int:
        """Entries ``contents`` holds whatever the conversation: none (``systemInstruction`` is a field)."""
        return 0

    @staticmethod
    def history_boundary(last: Any, first: Any) -> bool:
        """Whether a prefix may end at ``last`` when the rest starts at ``first``: not between two
        Contents of one role (or without one), which the repairs may join."""
        return not (isinstance(last, dict) and isinstance(first, dict)) or last.get("role") == first.get("role")

    # ---------------------------------------------------------------- tools

    def translate_tool(self, tool: Tool) -> tuple[dict[str, Any], TranslationReport]:
        """The tool's ``FunctionDeclaration`` JSON and the report of what the translation changed.

        - A tool imported by :meth:`decode_request` whose name, description and input schema are
          unchanged is sent exactly as imported (same schema field, same spelling).
        - A zero-parameter tool (no properties) is sent without any schema field.
        - ``json_schema`` mode: ``{"name", "description", "parametersJsonSchema": <schema>}``.
        - ``openapi`` mode: ``{"name", "description", "parameters": <rewritten schema>}``.

        Raises :class:`~toolwire.errors.ToolNameError` for a name Gemini refuses (rule
        ``gemini.name.function``: an imported name another vendor allowed fails here, clearly) and
        :class:`~toolwire.errors.SchemaTranslationError` for an input schema whose top-level type is
        not ``object`` (rule ``gemini.schema.root-object``, both modes) and (openapi mode) for a
        recursive or unresolvable ``$ref``.
        """
        if isinstance(tool, ProviderTool):
            tool.check_for(API)  # one of Gemini's own tools: a Tool entry {type: settings}
            return {tool.type: copy.deepcopy(tool.settings)}, TranslationReport(API, tool.name)
        problem = self.profile.tool_name_error(tool.name)
        if problem is not None:
            raise ToolNameError(str(tool.name), problem, api=API, rule="^" + FUNCTION_NAME_RULE.pattern + "$")
        report = TranslationReport(API, tool.name)
        imported = (tool.provider_data.get(API) or {}).get("declaration")
        if isinstance(imported, dict) and self._unchanged_import(tool, imported):
            return copy.deepcopy(imported), report
        decl: dict[str, Any] = {"name": tool.name}
        description = tool.model_description()
        if description:
            decl["description"] = description
        schema = tool.input_schema or {"type": "object", "properties": {}}
        root = schema.get("type") if isinstance(schema, dict) else None
        if root is not None and not (root == "object" or (isinstance(root, list) and "object" in root)):
            # rule gemini.schema.root-object: arguments are an object; a {"type": "string"} schema
            # has no properties, so it would otherwise be sent as a zero-parameter declaration
            raise SchemaTranslationError(
                f"the input schema of tool {tool.name!r} has top-level type {root!r}; Gemini takes only an "
                "object schema there (wrap the value in an object property)",
                "/type",
                rule="gemini.schema.root-object",
            )
        if is_zero_parameter(schema):
            report.add(
                "",
                "removed",
                "parameters",
                "zero-parameter tool declared without a schema field (an empty OBJECT schema is rejected: "
                "'should be non-empty for OBJECT type'; FunctionDeclaration allows leaving it unset)",
            )
            return decl, report
        field = "parametersJsonSchema" if self.schema_mode == "json_schema" else "parameters"
        decl[field] = self.profile.translate_schema(schema, report)
        return decl, report

    @staticmethod
    def _declaration_schema(decl: dict[str, Any]) -> tuple[str | None, Any]:
        # a null field is not set (google.genai.types.FunctionDeclaration: parameters and
        # parameters_json_schema are Optional, and model_dump() writes the unset one as null)
        for key in ("parametersJsonSchema", "parameters_json_schema", "parameters"):
            if decl.get(key) is not None:
                return key, decl[key]
        return None, None

    def _canonical_schema(self, decl: dict[str, Any]) -> dict[str, Any]:
        key, schema = self._declaration_schema(decl)
        if key is None or not isinstance(schema, dict):
            return {"type": "object", "properties": {}}
        if key == "parameters":
            return openapi_to_json_schema(schema)
        return copy.deepcopy(schema)

    def _unchanged_import(self, tool: Tool, decl: dict[str, Any]) -> bool:
        desc = decl.get("description")
        return (
            decl.get("name") == tool.name
            and (desc if isinstance(desc, str) else "") == tool.model_description()
            and self._canonical_schema(decl) == tool.input_schema
        )

    # ---------------------------------------------------------------- encode

    def left_out_parts(self, request: ModelRequest, messages: Any, offset: int) -> list[tuple[Any, ...]]:
        """What :meth:`encode_request` leaves out of ``request``'s body for a reason of its own, for
        the preflight report: with ``cache="cachedContents/..."`` the request's own tool choice and
        instructions (the cached content holds its own; rule ``gemini.request.cache-held-settings``).
        Reported once per request (at ``offset`` 0: the whole conversation or its first part).
        Also the images tools returned in a format Gemini does not read, sent as a note (rule
        ``gemini.conversation.tool-result-image-type``), and results answering a call already
        answered and calls repeating an id in one response (each call is answered once:
        :func:`toolwire.turns.duplicate_changes`), and another API's system or developer message
        inside the conversation, sent as a user turn (rule ``conversation.system-message-as-user``:
        Gemini has no such message there)."""
        out: list[tuple[Any, ...]] = list(
            tool_image_changes(
                messages, offset, API, IMAGE_MEDIA_TYPES, fetches_image_url, "gemini.conversation.file-uri"
            )
        )
        out += duplicate_changes(messages, offset)
        # another API's system or developer message inside the conversation: a Content's role is
        # "user" or "model" only (google.genai.types.Content.role), the system instruction is one
        # for the whole request, so it goes as a user turn (rule conversation.system-message-as-user)
        out += system_as_user_changes(messages, offset, API)
        if not isinstance(self.cache, str) or offset:
            return out
        if request.tool_choice not in (None, "auto"):
            out.append(
                (
                    "gemini.request.cache-held-settings",
                    "/toolConfig",
                    f"tool choice {request.tool_choice!r} not sent: the cached content {self.cache} holds the tool config",
                    None,
                    None,
                )
            )
        if request.instructions:
            out.append(
                (
                    "gemini.request.cache-held-settings",
                    "/systemInstruction",
                    f"instructions not sent: the cached content {self.cache} holds the system instruction",
                    None,
                    None,
                )
            )
        return out

    def encode_request(self, request: ModelRequest) -> dict[str, Any]:
        """Canonical request → ``GenerateContentRequest`` JSON (the body of
        ``POST /v1beta/models/{model}:generateContent``; the model id goes in the URL).

        - ``contents``: one ``Content`` per message; assistant → ``role: "model"`` with ``text``,
          ``thought`` and ``functionCall`` parts in their original order, each
          ``thoughtSignature`` back on the part that carried it; a user message's tool
          results → ``functionResponse`` parts, all answers to one model turn in one Content in
          call order, before any other part of that message; ``response`` is
          ``{"output": text}`` or ``{"error": text}``, images go in ``functionResponse.parts``.
          Vendor call ids are echoed in ``functionCall.id`` and ``functionResponse.id``;
          synthesised ids are never sent. Reasoning parts of other vendors are dropped.
          A tool call whose name Gemini would refuse (empty, not a string, breaking
          :data:`FUNCTION_NAME_RULE`) is sent, with its result, under
          :data:`INVALID_NAME_PLACEHOLDER` (``"invalid_tool_name"``).
          A call repeating an id already sent (a duplicate id in one response, decoded as
          invalid) is left out together with its result, so each id is answered once.
        - ``systemInstruction``, ``tools`` (one ``functionDeclarations`` list), ``toolConfig``
          (``AUTO``/``ANY``/``NONE``, ``allowedFunctionNames`` for a named tool),
          ``generationConfig`` (``maxOutputTokens``, ``temperature``, ``thinkingConfig``), then
          ``request.settings`` by wire name (``generationConfig`` entries merged).

        Raises :class:`UnsupportedToolChoice` for a tool choice Gemini cannot express or a named
        tool that is not in ``tools``; :class:`ConfigurationError` for a tool result whose call
        is unknown and that has no ``name``.
        """
        request, _ = answer_request(request)  # unanswered calls: answered "not run", as on every API
        body: dict[str, Any] = {"contents": self._encode_contents(request)}
        raw_si = (request.settings or {}).get("systemInstruction")
        if request.instructions:
            if isinstance(raw_si, dict) and _instruction_text(raw_si) == request.instructions:
                body["systemInstruction"] = copy.deepcopy(raw_si)  # imported shape, unchanged
            else:
                body["systemInstruction"] = {"role": "user", "parts": [{"text": request.instructions}]}
        functions = [t for t in request.tools if not isinstance(t, ProviderTool)]
        if functions:
            memo = DeclarationMemo.of(self)
            same = memo.unchanged_list(functions)
            if same is None:
                same = [memo.declaration(t, self.translate_tool) for t in functions]
                memo.remember_list(functions)
            body["tools"] = [{"functionDeclarations": same}]
        for t in request.tools:
            if isinstance(t, ProviderTool):  # Gemini's own tools: one Tool entry each, after the functions
                body.setdefault("tools", []).append(DeclarationMemo.of(self).declaration(t, self.translate_tool))
                t.require_function("toolwire_gemini.computer_use(function)")
        settings = {(_camel(k) if "_" in k else k): v for k, v in (request.settings or {}).items()}
        settings.pop("systemInstruction", None)
        tool_config = self._encode_tool_config(request, settings.pop("toolConfig", None))
        if tool_config is not None:
            body["toolConfig"] = tool_config
        gen_setting = settings.pop("generationConfig", None)
        gen = dict(gen_setting) if isinstance(gen_setting, dict) else {}
        if request.max_tokens is not None:
            gen["maxOutputTokens"] = request.max_tokens
        if request.temperature is not None:
            gen["temperature"] = request.temperature
        thinking = self._encode_thinking(given_thinking(request.thinking))  # {"effort": None}: no setting
        if thinking is not None:
            gen["thinkingConfig"] = thinking
        if gen or gen_setting is not None:
            body["generationConfig"] = gen
        for key, value in settings.items():
            body.setdefault(key, copy.deepcopy(value))
        if isinstance(self.cache, str) and "cachedContent" not in body:
            body["cachedContent"] = self.cache
        if isinstance(self.cache, str) and body.get("cachedContent") == self.cache:
            # the cache holds the instructions, tools and tool config; the API refuses a request
            # repeating them (CACHED_CONTENT_EXCLUDES)
            for key in CACHED_CONTENT_EXCLUDES:
                body.pop(key, None)
        return body

    @staticmethod
    def _encode_thinking(thinking: dict[str, Any] | None) -> dict[str, Any] | None:
        """Canonical thinking settings → ``thinkingConfig``.

        Reads ``budget`` (or ``budget_tokens``) → ``thinkingBudget`` (0 disables, -1 automatic),
        ``include_thoughts`` → ``includeThoughts``, ``level`` → ``thinkingLevel`` (as given) or
        ``effort`` → ``thinkingLevel`` upper-cased (``"none"`` → budget 0, ``"max"`` → ``XHIGH``,
        Gemini's highest), ``{"type": "disabled"}`` → budget 0,
        ``{"type": "enabled", ...}`` → ``includeThoughts: true`` unless set; other keys (and
        another ``type``) are copied as wire names (the preflight refuses one ``ThinkingConfig`` has no field for, rule
        ``gemini.request.thinking-config-fields``)."""
        if not thinking:
            return None
        out: dict[str, Any] = {}
        for key, value in thinking.items():
            if key in ("budget", "budget_tokens"):
                out["thinkingBudget"] = value
            elif key == "include_thoughts":
                out["includeThoughts"] = value
            elif key == "level":
                out["thinkingLevel"] = value
            elif key == "effort":
                if isinstance(value, str) and value.strip().lower() == "none":
                    # OpenAI's "none" (no reasoning): budget 0, which the preflight raises to the
                    # least a model takes where it cannot turn thinking off (gemini-2.5-pro: 128;
                    # Gemini 3 Pro: thinkingLevel LOW)
                    out["thinkingBudget"] = 0
                else:
                    level = str(value).strip().upper()
                    # the cross-API effort scale tops out at "max" (Anthropic's highest effort);
                    # Gemini's highest level is XHIGH (google.genai.types.ThinkingLevel)
                    out["thinkingLevel"] = "XHIGH" if level == "MAX" else level
            elif key == "type" and value in ("enabled", "adaptive", "disabled"):
                if value == "disabled":
                    out["thinkingBudget"] = 0
                else:
                    out.setdefault("includeThoughts", True)
            else:  # another type stays, for the preflight to refuse (it was left out unsaid)
                out[_camel(key) if isinstance(key, str) and "_" in key else key] = value
        if thinking.get("type") in ("enabled", "adaptive") and "include_thoughts" in thinking:
            out["includeThoughts"] = thinking["include_thoughts"]
        return out

    @staticmethod
    def _encode_tool_config(request: ModelRequest, raw: Any) -> dict[str, Any] | None:
        choice = normalize_tool_choice(request.tool_choice)
        if choice is None:
            return copy.deepcopy(raw) if isinstance(raw, dict) else None
        config = copy.deepcopy(raw) if isinstance(raw, dict) else {}
        given = _given_calling_config(raw)
        if choice == "auto" and given is not None and str(given.get("mode", "")).upper() in ("AUTO", "VALIDATED"):
            # the setting's own automatic mode (VALIDATED: function calls checked against their
            # schemas) is what "auto" asks for: kept, also when the loop relaxes a forced first
            # request to "auto" (rule gemini.request.tool-choice-setting)
            fcc: dict[str, Any] = copy.deepcopy(given)
        elif choice == "auto":
            fcc = {"mode": "AUTO"}
        elif choice == "required":
            fcc = {"mode": "ANY"}
        elif choice == "none":
            fcc = {"mode": "NONE"}
        elif isinstance(choice, dict) and choice.get("type") == "tool":
            name = choice["name"]
            if request.tools and request.tool(name) is None:
                raise UnsupportedToolChoice(
                    f"tool choice names {name!r}, which is not among the request's tools "
                    f"({', '.join(t.name for t in request.tools)})"
                )
            fcc = {"mode": "ANY", "allowedFunctionNames": [name]}
        else:  # pragma: no cover - normalize_tool_choice already raised
            raise UnsupportedToolChoice(f"tool choice {choice!r} cannot be expressed for Gemini")
        config.pop("function_calling_config", None)
        config["functionCallingConfig"] = fcc
        return config

    @staticmethod
    def setting_changes(request: ModelRequest, body: dict[str, Any]) -> list[tuple[Any, ...]]:
        """The changes :meth:`encode_request` made to ``request``'s settings, for the preflight
        report (``body`` as repaired): a ``functionCallingConfig`` of the ``tool_config`` setting
        (or ``extra_body`` ``toolConfig``) replaced by the request's own tool choice (rule
        ``gemini.request.tool-choice-setting``, lossy). A setting's ``AUTO`` or ``VALIDATED``
        mode is kept under tool choice ``"auto"``, so only a forcing or disabling choice, or an
        ``"auto"`` over a forcing setting, is reported."""
        settings = request.settings or {}
        raw = settings.get("toolConfig", settings.get("tool_config"))
        given = _given_calling_config(raw)
        tc = body.get("toolConfig")
        sent = tc.get("functionCallingConfig") if isinstance(tc, dict) else None
        return tool_choice_setting_change(
            request, "gemini.request.tool-choice-setting", "/toolConfig/functionCallingConfig", given, sent
        )

    def _signature_policy_applies(self, model: str | None) -> bool:
        if self.foreign_thought_signature == "none":
            return False
        if self.foreign_thought_signature == "placeholder":
            return True
        major = _gemini_major(model)
        return major is None or major >= 3

    def _encode_contents(self, request: ModelRequest) -> list[dict[str, Any]]:
        contents: list[dict[str, Any]] = []
        calls: dict[str, tuple[ToolCall, bool]] = {}  # id → (call, came from Gemini)
        answered: set[str] = set()
        last_call_order: list[str] = []
        placeholder = self._signature_policy_applies(request.model)
        previous_results_content: dict[str, Any] | None = None
        previous_results: list[ToolResult] = []
        # with the computerUse tool declared, a call of a name no function declaration has is one of
        # its predefined functions (click_at, navigate, ...): answered as computer use is
        computer = (
            {t.name for t in request.tools if not isinstance(t, ProviderTool)}
            if any(isinstance(t, ProviderTool) and t.type == "computerUse" for t in request.tools)
            else None
        )

        after_model = False  # the last message was an assistant message
        for message in request.messages:
            if message.role == "assistant":
                previous_results_content = None
                from_gemini_message = API in message.provider_data
                parts: list[dict[str, Any]] = []
                first_call_index: int | None = None
                foreign_calls = False
                if not after_model:
                    # consecutive assistant messages are one model turn (the preflight merges
                    # them, rule gemini.conversation.call-turn-placement): their answers follow
                    # the calls of all of them, in order
                    last_call_order = []
                after_model = True
                for part in message.parts:
                    if isinstance(part, ToolCall) and part.id in calls:
                        continue  # a later call repeating an id already sent: left out with its result
                    wire = self._encode_model_part(part)
                    if wire is None:
                        continue
                    if isinstance(part, ToolCall):
                        from_gemini = from_gemini_message or API in part.provider_data
                        calls[part.id] = (part, from_gemini)
                        last_call_order.append(part.id)
                        if not from_gemini:
                            foreign_calls = True
                            wire["functionCall"].pop("id", None)
                        if first_call_index is None:
                            first_call_index = len(parts)
                    parts.append(wire)
                if foreign_calls and placeholder and first_call_index is not None:
                    if "thoughtSignature" not in parts[first_call_index]:
                        parts[first_call_index]["thoughtSignature"] = SKIP_SIGNATURE
                if parts:
                    contents.append({"role": "model", "parts": parts})
                continue

            results = []
            for p in message.parts:
                if isinstance(p, ToolResult) and p.tool_call_id not in answered:
                    answered.add(p.tool_call_id)  # a second result for one id (a duplicate-id call): not sent
                    results.append(p)
            others = [p for p in message.parts if not isinstance(p, ToolResult)]
            order = {cid: i for i, cid in enumerate(last_call_order)}
            if results and not others and previous_results_content is not None:
                # more answers to the same model turn in a later message: one Content
                results = previous_results + results
                contents.pop()
            results.sort(key=lambda r: order.get(r.tool_call_id, len(order)))
            parts = [self._encode_result(r, calls, computer) for r in results]
            # rule gemini.conversation.tool-result-document: the PDFs tools returned, after the function
            # responses of the Content (whose text names them)
            parts += [_document_wire(d) for r in results for d in _sibling_documents(r)]
            for p in others:
                wire = self._encode_user_part(p)
                if wire is not None:
                    parts.append(wire)
            if not parts:
                continue  # nothing sent: the model turns around it are one
            after_model = False
            role = (message.provider_data.get(API) or {}).get("role", "user")
            content = {"role": role, "parts": parts} if role else {"parts": parts}
            contents.append(content)
            if results and not others:
                previous_results_content, previous_results = content, results
            else:
                previous_results_content, previous_results = None, []
        return contents

    @staticmethod
    def _encode_model_part(part: Part) -> dict[str, Any] | None:
        if isinstance(part, TextPart):
            pd = part.provider_data.get(API) or {}
            raw = pd.get("part")
            if isinstance(raw, dict) and _raw_matches(raw, part.text):
                return copy.deepcopy(raw)
            wire: dict[str, Any] = {"text": part.text}
            if pd.get("thoughtSignature") is not None:
                wire["thoughtSignature"] = pd["thoughtSignature"]
            return wire
        if isinstance(part, ReasoningPart):
            if part.provider != API:
                return None  # another vendor's reasoning: dropped (docs/adapters/gemini.md)
            raw = (part.provider_data.get(API) or {}).get("part")
            if (
                isinstance(raw, dict)
                and (raw.get("text") or "") == part.text
                and _g(raw, "thoughtSignature") == part.signature
            ):
                return copy.deepcopy(raw)
            wire = {"text": part.text, "thought": True}
            if part.signature is not None:
                wire["thoughtSignature"] = part.signature
            return wire
        if isinstance(part, ToolCall):
            fc: dict[str, Any] = {
                "name": wire_function_name(part.name),
                "args": json_copy(part.arguments) if isinstance(part.arguments, dict) else {},
            }
            if not part.id_synthesized and part.id:
                fc["id"] = part.id
            wire = {"functionCall": fc}
            sig = (part.provider_data.get(API) or {}).get("thoughtSignature")
            if sig is not None:
                wire["thoughtSignature"] = sig
            return wire
        if isinstance(part, ImagePart):
            return _image_wire(part)
        if isinstance(part, ProviderToolPart):
            # this API's server-tool part goes back as received; another provider's is left out
            # (reported by the preflight); metadata is not a Content part and is never sent
            return copy.deepcopy(part.raw) if part.provider == API and part.kind != "metadata" else None
        return None

    @staticmethod
    def _encode_user_part(part: Part) -> dict[str, Any] | None:
        if isinstance(part, TextPart):
            raw = (part.provider_data.get(API) or {}).get("part")
            return copy.deepcopy(raw) if isinstance(raw, dict) and _raw_matches(raw, part.text) else {"text": part.text}
        if isinstance(part, ImagePart):
            return _image_wire(part)
        if isinstance(part, DocumentPart):
            return _document_wire(part)
        if isinstance(part, ProviderToolPart):
            # a part of an imported user turn kept whole: back to Gemini as it came (another
            # provider's is left out, reported by the preflight)
            return copy.deepcopy(part.raw) if part.provider == API and part.kind != "metadata" else None
        return None  # reasoning or tool calls never sit in a user turn

    @staticmethod
    def _encode_result(
        result: ToolResult, calls: dict[str, tuple[ToolCall, bool]], computer: set[str] | None = None
    ) -> dict[str, Any]:
        call, from_gemini = calls.get(result.tool_call_id, (None, False))
        name = (
            wire_function_name(call.name)
            if call is not None
            else (wire_function_name(result.name) if result.name else result.name)
        )
        if not name:
            raise ConfigurationError(
                f"tool result for call {result.tool_call_id!r} answers no tool call of the conversation and has no "
                "name; Gemini's functionResponse needs the function name"
            )
        pd = result.provider_data.get(API) or {}
        # rules gemini.conversation.tool-result-image-type and gemini.conversation.file-uri: a note in
        # place of an image Gemini cannot read or fetch
        result = readable_tool_result(result, IMAGE_MEDIA_TYPES, fetches_image_url)
        images: list[dict[str, Any]] = []
        text = result.text
        if isinstance(result.content, list):
            images = [_image_wire(p) for p in result.content if isinstance(p, ImagePart)]
            documents = [p for p in result.content if isinstance(p, DocumentPart)]
            # a PDF imported from functionResponse.parts goes back there; any other document is a
            # part after the function responses (rule gemini.conversation.tool-result-document),
            # named in the response's text, and plain text is in that text
            images += [_document_wire(p) for p in documents if _in_response_parts(p)]
            extra = [_document_text(p) for p in documents if p.media_type == "text/plain" and not _in_response_parts(p)]
            sibling = _sibling_documents(result)
            if sibling:
                names = ", ".join(repr(p.name) for p in sibling)
                extra.append(f"(the document(s) {names} follow the function responses)")
            if extra:
                text = "\n".join([text, *extra] if text else extra)
        raw = pd.get("response")
        shown = _json_object(text) if computer is not None and call is not None and call.name not in computer else None
        if raw is not None and _json_text(raw) == text:
            response = json_copy(raw)
        elif shown is not None and not result.is_error:
            # a computer-use action: the response object the docs give, {"url": ..., maybe
            # "safety_acknowledgement": "true"}, with the screenshot in parts
            # (https://ai.google.dev/gemini-api/docs/computer-use)
            response = shown
        else:
            response = {"error" if result.is_error else "output": text}
        fr: dict[str, Any] = {"name": name, "response": response}
        send_id = call is not None and from_gemini and not call.id_synthesized and not pd.get("omit_id")
        if call is None and not pd.get("omit_id") and pd.get("id") is not None:
            fr["id"] = pd["id"]
        elif send_id and call is not None:
            fr["id"] = call.id
        kept = pd.get("response_parts")
        if isinstance(kept, list) and kept:
            # imported entries no canonical part carries, back at their place among the images
            for entry in kept:
                if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], dict):
                    pos = entry[0] if isinstance(entry[0], int) and not isinstance(entry[0], bool) else len(images)
                    images.insert(min(max(pos, 0), len(images)), copy.deepcopy(entry[1]))
        if images:
            fr["parts"] = images
        for key, value in (pd.get("extra") or {}).items():
            fr.setdefault(key, copy.deepcopy(value))
        return {"functionResponse": fr}

    # ---------------------------------------------------------------- decode response

    @_guarded("the Gemini response body")
    def decode_response(self, body: dict[str, Any], request: ModelRequest | None = None) -> Response:
        """``GenerateContentResponse`` JSON → canonical :class:`Response`.

        Parts of ``candidates[0].content`` in order: ``thought: true`` → :class:`ReasoningPart`
        (``provider="gemini"``, ``thoughtSignature`` as ``signature``); ``text`` →
        :class:`TextPart` (a ``thoughtSignature`` kept in ``provider_data["gemini"]``; an empty
        text part without one carries nothing and is left out, as in a stream);
        ``functionCall`` → :class:`ToolCall` (vendor ``id`` or a synthesised
        ``gemini-<responseId>-<n>`` with ``id_synthesized=True``; ``args`` coerced to the
        canonical schema of ``request``'s tool); server-side tool parts
        (``executableCode``, ``codeExecutionResult``, ``toolCall``, ``toolResponse``) →
        :class:`~toolwire.types.ProviderToolPart` (:func:`server_tool_part`), and the candidate's
        ``groundingMetadata`` / ``urlContextMetadata`` → a ``kind="metadata"`` one after the other
        parts; any other part (an image the model made, with its signature) → a ``ProviderToolPart``
        kept whole for Gemini (:func:`kept_part`), sent back as received, left out and reported
        elsewhere. Stop reason from ``finishReason`` and the parts
        (:func:`map_finish_reason`); a body with no ``finishReason`` maps by its parts, and one with
        neither a ``finishReason`` nor any output (``"candidates": []``, which Gemini sends when
        the model gave no output, or only empty text) is ``"error"`` (``vendor_stop_reason=None``),
        as the same body streamed; usage from ``usageMetadata`` (:func:`usage_from_metadata`).

        Tool calls that cannot be run are kept but marked invalid (:func:`check_tool_calls`): a
        ``name`` that is missing or not a string (:data:`NAME_INVALID`), a later call repeating
        an earlier call's ``id``. Synthesised ids are distinct within one response (their
        position) and, without a ``responseId``, between turns (the key hashes the body and the
        request's message count). Usage counters that are not non-negative integers are ``None``.

        Raises :class:`ProviderError` when the body is an error object, and
        :class:`~toolwire.errors.ResponseDecodeError` (``api="gemini"``, JSON pointer of the
        field) when the body is not an object, ``candidates``/``content``/``parts`` have the wrong
        JSON type, a part is not an object, ``functionCall`` is not an object, ``text`` or
        ``finishReason`` is not a string, or a part could not be sent back as it came
        (``inlineData`` that is not a Blob with a ``mimeType`` and base64 ``data``, a
        ``functionResponse`` whose ``response`` is not an object).
        """
        body = _obj(body, "")
        if not isinstance(body.get("error"), dict):
            err = error_in_body(API, body, ("candidates", "promptFeedback", "prompt_feedback"))
            if err is not None:
                raise err
        if not any(_has(body, key) for key in ("candidates", "promptFeedback", "error")):
            raise ResponseDecodeError(
                API,
                "the body has neither candidates nor promptFeedback: it is not a GenerateContentResponse",
                "/candidates",
            )
        if isinstance(body.get("error"), dict):
            err = body["error"]
            status, etype = _error_status(err)
            raise ProviderError(
                API,
                str(err.get("message", err)),
                status=status,
                retryable=ProviderError.is_retryable_status(status if status is not None else 500),
                error_type=etype,
                body=body,
            )
        usual = _decode_usual(body, request)
        response = usual if usual is not None else self._decode_by_events(body, request)
        if response.vendor_stop_reason is None and response.stop_reason == "end_turn" and not _any_output(response):
            # no finishReason and nothing the model produced (Gemini answers ``"candidates": []``
            # when the model gave no output): what the same body gives streamed, not an empty end_turn
            response.stop_reason = "error"
        return check_tool_calls(response)

    def _decode_by_events(self, body: dict[str, Any], request: ModelRequest | None) -> Response:
        """The whole body through the stream decoder and the canonical assembler (every shape)."""
        decoder = GeminiStreamDecoder(
            self, request, synth_key=None if _g(body, "responseId") else _content_key(body, request)
        )
        events = decoder.feed(body, merge_text=False) + decoder.finish(whole_body=True)
        from toolwire.stream import assemble

        response = assemble(events, API)
        for position, call in enumerate(response.tool_calls):
            if position in decoder.bad_names:  # the name as sent (JSON text), as the other codecs keep it
                call.name, call.invalid = decoder.bad_names[position], NAME_INVALID
        return response

    # ---------------------------------------------------------------- decode stream

    def decode_stream(
        self, events: Iterable[dict[str, Any]], request: ModelRequest | None = None
    ) -> Iterator[StreamEvent]:
        """Streamed ``GenerateContentResponse`` chunks (``alt=sse`` ``data`` objects, or the
        elements of a JSON-array stream) → canonical stream events.

        Each chunk's parts are new increments: text runs continue across chunks (a part that
        carries a ``thoughtSignature`` starts a new part so the signature stays where the
        vendor put it), every ``functionCall`` is a new tool call appended after the others
        (indexes continue across chunks; calls are never concatenated; one without an id that
        repeats the name and arguments of a call an earlier chunk delivered is kept with
        ``invalid`` set, never run: :meth:`GeminiStreamDecoder._repeat`), empty text parts
        without a signature are dropped. Usage is the last ``usageMetadata`` (cumulative), the
        stop reason the last ``finishReason``; a stream that ended without any ``finishReason``
        (cut off) gives ``"error"`` with ``vendor_stop_reason=None`` (a prompt blocked by
        ``promptFeedback.blockReason`` gives ``refusal``). Calls arrive whole, so each one is
        started and ended at once. An ``{"error": ...}`` chunk raises :class:`ProviderError`; a
        malformed chunk raises :class:`~toolwire.errors.ResponseDecodeError` (see
        :meth:`decode_response`). Pass the assembled response through :func:`check_tool_calls`
        to mark unnamed and duplicate-id calls (the transport does).
        """
        decoder = GeminiStreamDecoder(self, request)
        for chunk in events:
            yield from decoder.feed(chunk)
        yield from decoder.finish()

    # ---------------------------------------------------------------- decode request

    @_guarded("the Gemini request body")
    def decode_request(self, body: dict[str, Any]) -> ModelRequest:
        """A Gemini ``GenerateContentRequest`` (camelCase or snake_case keys) → canonical request.

        - ``contents``: ``model`` turns → assistant messages (parts as in :meth:`decode_response`;
          a ``functionCall`` without id gets ``gemini-import-<content>-<part>``, marked
          synthesised; a call in pieces, ``willContinue`` / ``partialArgs``, is one call with the
          assembled arguments); ``user``/``function`` turns → user messages; ``functionResponse`` →
          :class:`ToolResult` matched to its call by ``id``, else by name and order.
          ``response`` ``{"output": s}`` → content ``s``; ``{"error": s}`` → ``is_error`` with
          content ``s``; any other object (``{"return_value": …}``, ``{"result": …}``, a
          non-string output) → content is its compact JSON text and the object itself is kept
          in ``provider_data["gemini"]["response"]`` so it goes back unchanged;
          ``functionResponse.parts`` images → :class:`ImagePart` in the content list (inline
          ones as bytes; a ``fileData`` of exactly ``mimeType`` and an http(s) ``fileUri``, an
          image type Gemini reads and no Files API URI, as ``ImagePart(url=...)``, also as a part
          of a user turn; any other ``fileData`` is kept whole for Gemini); the
          ``inlineData`` PDFs right after the function responses that a response's text names
          with the note the encoder writes → :class:`DocumentPart` at the end of that result's
          content (note removed), any other PDF staying a part of the user message. A part of a
          user turn that is not an object or has no data field (``{}``, a lone
          ``thoughtSignature``) is left out (the API refuses it); one with a field toolwire does
          not know is kept whole and sent back as it came.
        - ``systemInstruction`` text parts → ``instructions`` (joined with a blank line).
        - ``tools[].functionDeclarations`` → :class:`Tool` (input schema as JSON Schema; the
          declaration kept in ``provider_data["gemini"]["declaration"]`` and re-sent as is while
          unchanged).
        - ``toolConfig``: ``AUTO``/``NONE``/``ANY``/``ANY`` with one allowed name → canonical tool
          choice; any other form (``VALIDATED``, several names, extra fields) is kept raw in
          ``settings["toolConfig"]``.
        - ``generationConfig``: ``maxOutputTokens``, ``temperature``, ``thinkingConfig`` →
          canonical fields; the rest in ``settings["generationConfig"]``; other top-level fields
          in ``settings`` (camelCase).
        - ``model``: the body's ``model`` field without ``models/`` when present, else ``""``
          (the REST body has none: the model id is in the URL).

        Raises :class:`~toolwire.errors.ResponseDecodeError` (a ``ValueError``) for a body that is
        not an object or ``contents``/``parts``/``tools`` of the wrong JSON type or a call piece
        whose ``jsonPath`` or value cannot be read, and
        :class:`~toolwire.errors.ConfigurationError` (a ``ValueError``) for a built-in tool whose
        value is not an object (``{"googleSearch": 5}``; the message names the tool and the
        object it takes) and for a ``tools`` entry that names no tool (not an object, ``{}``, or
        every field ``null``: ``{"googleSearch": null}``; a ``null`` field is not set, as in
        ``google.genai.types.Tool``, so ``{"googleSearch": {}, "codeExecution": null}`` is the
        search tool alone).
        """
        body = _with_repeated_lists(_obj(body, ""))
        _check_import_types(body)
        model = body.get("model") or ""
        if isinstance(model, str) and model.startswith("models/"):
            model = model[len("models/") :]
        tool_entries = _opt_list(_g(body, "tools"), "/tools")
        tools = self._decode_tools(tool_entries)
        messages = self._decode_contents(_opt_list(_g(body, "contents"), "/contents"), tools)
        instructions = None
        settings: dict[str, Any] = {}
        si = _g(body, "systemInstruction")
        if isinstance(si, dict):
            instructions = _instruction_text(si)
            if si != {"role": "user", "parts": [{"text": instructions}]}:
                settings["systemInstruction"] = copy.deepcopy(si)  # re-sent as is while the text is unchanged
        elif isinstance(si, str):
            instructions = si

        tool_choice = None
        tc = _g(body, "toolConfig")
        if isinstance(tc, dict):
            tool_choice = self._decode_tool_config(tc)
            if tool_choice is None:
                settings["toolConfig"] = copy.deepcopy(tc)

        max_tokens = temperature = thinking = None
        gen = _g(body, "generationConfig")
        if isinstance(gen, dict):
            rest = {}
            for key, value in gen.items():
                ck = _camel(key) if "_" in key else key
                if ck == "maxOutputTokens":
                    max_tokens = value
                elif ck == "temperature":
                    temperature = value
                elif ck == "thinkingConfig" and isinstance(value, dict):
                    thinking = self._decode_thinking(value)
                else:
                    rest[ck] = copy.deepcopy(value)
            settings["generationConfig"] = rest

        for key, value in body.items():
            ck = _camel(key) if "_" in key else key
            if ck in ("contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "model"):
                continue
            settings[ck] = copy.deepcopy(value)

        return ModelRequest(
            model=model,
            messages=messages,
            instructions=instructions,
            tools=[*tools, *self._decode_provider_tools(tool_entries)],
            tool_choice=tool_choice,
            max_tokens=max_tokens,
            temperature=temperature,
            thinking=thinking,
            settings=settings,
        )

    @staticmethod
    def _decode_thinking(tc: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in tc.items():
            ck = _camel(key) if "_" in key else key
            if ck == "thinkingBudget":
                out["budget"] = value
            elif ck == "includeThoughts":
                out["include_thoughts"] = value
            elif ck == "thinkingLevel":
                out["level"] = value
            else:
                out[ck] = value
        return out

    @staticmethod
    def _decode_tool_config(tc: dict[str, Any]) -> Any:
        if set(tc) - {"functionCallingConfig", "function_calling_config"}:
            return None
        fcc = _g(tc, "functionCallingConfig")
        if not isinstance(fcc, dict) or set(fcc) - {"mode", "allowedFunctionNames", "allowed_function_names"}:
            return None
        mode = fcc.get("mode")
        names = _g(fcc, "allowedFunctionNames")
        if names is None:
            return {"AUTO": "auto", "ANY": "required", "NONE": "none"}.get(mode) if isinstance(mode, str) else None
        if mode == "ANY" and isinstance(names, list) and len(names) == 1 and isinstance(names[0], str):
            return {"type": "tool", "name": names[0]}
        return None

    @staticmethod
    def _decode_provider_tools(tools: list[Any]) -> list[ProviderTool]:
        """Gemini's own server-side tools in a request's ``tools`` (an entry's fields other than
        ``functionDeclarations``: ``googleSearch``, ``codeExecution``, ``urlContext``, ...; the
        fields of ``google.genai.types.Tool``) as :class:`ProviderTool` values, sent back by
        :meth:`encode_request` as one entry each. ``computerUse``, which the application answers
        with its own function, is left out (import it with ``toolwire_gemini.computer_use``).

        A field whose value is ``null`` is not set, as in the SDK (``google.genai.types.Tool``:
        every field is ``Optional``, default ``None``; the SDK's request converter
        ``_Tool_to_mldev`` writes a field only when it is not ``None``): ``{"googleSearch": {},
        "codeExecution": null}`` (what ``Tool.model_dump()`` gives) is the search tool alone.
        Raises :class:`ConfigurationError` naming the entry for an entry that names no tool (not
        an object, ``{}``, or every field ``null``, e.g. ``{"googleSearch": null}``): the API
        refuses it ("tools[0].tool_type: required one_of 'tool_type' must have one initialized
        field", quoted in 0xPlaygrounds/rig#588 and ShishirPatil/gorilla#770); the message says
        to write ``{"googleSearch": {}}`` for the tool with no settings."""
        from .profile import gemini_provider_tools

        known = gemini_provider_tools()
        out: list[ProviderTool] = []
        for i, entry in enumerate(tools):
            if not isinstance(entry, dict) or all(value is None for value in entry.values()):
                raise ConfigurationError(_no_tool_error(i, entry))
            for spelled, value in entry.items():
                key = spelled if spelled in known or not isinstance(spelled, str) else _camel(spelled)
                if key in known and value is not None and not isinstance(value, dict):
                    # every built-in tool's settings are an object (google.genai.types.Tool:
                    # googleSearch: GoogleSearch, codeExecution: ToolCodeExecution, computerUse:
                    # ComputerUse, ...; {} for none); another value was sent as {} without a
                    # word, or (computerUse, which is imported with its function) left out
                    raise ConfigurationError(_builtin_tool_shape_error(key, value, i))
            for spelled, value in entry.items():
                # either spelling, as everywhere in a request body (google.genai.types.Tool's
                # google_search / code_execution / url_context are the same fields as
                # googleSearch / codeExecution / urlContext): sent back in camelCase
                key = spelled if spelled in known or not isinstance(spelled, str) else _camel(spelled)
                info = known.get(key)
                if info is None or info.side != "server" or not isinstance(value, dict):
                    # functionDeclarations (decoded above), computerUse, an unknown field, or a
                    # field that is not set (null)
                    continue
                out.append(ProviderTool(API, key, copy.deepcopy(value) if value else None))
        return out

    def _decode_tools(self, tools: list[Any]) -> list[Tool]:
        """The function declarations of a request's ``tools``. Each entry is a
        ``google.genai.types.Tool`` object and its ``functionDeclarations`` a list of
        ``FunctionDeclaration`` objects, each with a ``name``: anything else raises (an entry or
        a declaration that is not an object, a list that is not one :class:`ResponseDecodeError`,
        a name that is not text :class:`ToolNameError`), as on the other APIs; they were left out
        without a word."""
        out: list[Tool] = []
        for ti, entry in enumerate(tools):
            entry = _obj(entry, f"/tools/{ti}")
            at = f"/tools/{ti}/functionDeclarations"
            decls = _opt_list(_g(entry, "functionDeclarations"), at)
            for di, decl in enumerate(decls):
                decl = _obj(decl, f"{at}/{di}")
                desc = decl.get("description")
                out.append(
                    Tool(
                        decl.get("name"),  # type: ignore[arg-type] - a name that is not text raises ToolNameError
                        desc if isinstance(desc, str) else "",
                        self._canonical_schema(decl),
                        None,
                        provider_data={API: {"declaration": copy.deepcopy(decl)}},
                        imported_from=API,
                    )
                )
        return out

    def _decode_contents(self, contents: list[Any], tools: list[Tool]) -> list[Message]:
        schemas = {t.name: t.input_schema for t in tools}
        messages: list[Message] = []
        pending: list[ToolCall] = []
        for ci, content in enumerate(contents):
            content = _obj(content, f"/contents/{ci}")  # (google.genai.types.Content; one was left out)
            raw_role = content.get("role")
            role = raw_role or "user"
            parts = _opt_list(content.get("parts"), f"/contents/{ci}/parts")
            role_pd = {} if raw_role in ("user", "model") else {API: {"role": raw_role}}
            if role == "model":
                msg_parts: list[Part] = []
                pending = []
                parts = _joined_pieces(parts, f"/contents/{ci}/parts")
                for pi, part in enumerate(parts):
                    decoded = _decode_part(
                        part, lambda: f"gemini-import-{ci}-{pi}", schemas, f"/contents/{ci}/parts/{pi}"
                    )
                    if decoded is None:
                        continue
                    if isinstance(decoded, ToolCall):
                        pending.append(decoded)
                    elif isinstance(decoded, ImagePart) and not str(decoded.media_type).lower().startswith("image/"):
                        # inline data of another type in a model turn (a PDF, audio): no image, kept
                        # whole for Gemini as a response's such part is (reported where left out)
                        decoded = kept_part(part)
                    msg_parts.append(decoded)
                messages.append(Message("assistant", msg_parts, {API: {}}))
                continue
            msg_parts = []
            for part in parts:
                if not isinstance(part, dict) or set(part) <= _PART_META:
                    # not an object, or a part without a data field ({}, a lone thoughtSignature):
                    # left out. Sent back it would be refused: "contents[1].parts[0].data: required
                    # oneof field 'data' must have one initialized field" (Gemini API, HTTP 400)
                    continue
                fr = _g(part, "functionResponse")
                if isinstance(fr, dict):
                    msg_parts.append(_decode_function_response(fr, pending))
                    continue
                text = part.get("text")
                if isinstance(text, str) and set(part) <= {"text"}:
                    msg_parts.append(TextPart(text))
                    continue
                if isinstance(text, str):
                    msg_parts.append(TextPart(text, {API: {"part": copy.deepcopy(part)}}))
                    continue
                by_url = _decode_file_image(part)
                if by_url is not None:
                    msg_parts.append(by_url)
                    continue
                blob = _g(part, "inlineData")
                if isinstance(blob, dict) and set(part) <= {"inlineData", "inline_data"}:
                    doc = _decode_document(blob)
                    if doc is not None:
                        msg_parts.append(doc)
                        continue
                    img = _decode_blob(blob)
                    if (
                        img is not None
                        and img.base64 == blob.get("data")
                        and set(blob) == {"mimeType", "data"}
                        and str(img.media_type).lower().startswith("image/")
                    ):
                        msg_parts.append(img)
                        continue
                # a file, a video, audio, a blob typed as a PDF whose bytes are none: kept whole for
                # Gemini (another API leaves it out and reports it), not taken for an image
                msg_parts.append(kept_part(part))
            messages.append(Message("user", _fold_sibling_documents(msg_parts), role_pd))
        return messages


#: The fields of the usual answer (``GenerateContentResponse``, its first ``Candidate`` and
#: ``Content``) that :func:`_decode_usual` reads; an answer with any other field is decoded by the
#: stream decoder.
_USUAL_TOP = frozenset({"candidates", "usageMetadata", "modelVersion", "responseId"})
#: ``Candidate.FinishReason`` by number: a client may ask for enums as numbers
#: (``$alt=json;enum-encoding=int``, which google-cloud-aiplatform's REST transport sends on every
#: Vertex AI call), and proto3 JSON readers take either the name or the number. Numbers 0-5 name
#: the same reason on Vertex AI (google/cloud/aiplatform/v1beta1/content.proto) and on the Gemini
#: API (google/ai/generativelanguage/v1beta/generative_service.proto); from 6 on the two enums
#: differ (6 is BLOCKLIST on Vertex AI, LANGUAGE on the Gemini API), so a larger number is refused
#: as unreadable, not guessed. Seen: Arize-ai/openinference openinference-instrumentation-langchain
#: tests/cassettes/test_instrumentor/test_gemini_token_counts.yaml (``"finishReason": 1``).
_FINISH_REASON_NUMBERS = {
    0: "FINISH_REASON_UNSPECIFIED",
    1: "STOP",
    2: "MAX_TOKENS",
    3: "SAFETY",
    4: "RECITATION",
    5: "OTHER",
}

#: ``PromptFeedback.BlockReason`` by number, 0-4 alike on both APIs (the same protos as above).
_BLOCK_REASON_NUMBERS = {
    0: "BLOCK_REASON_UNSPECIFIED",
    1: "SAFETY",
    2: "OTHER",
    3: "BLOCKLIST",
    4: "PROHIBITED_CONTENT",
}


def _enum_name(value: Any, numbers: dict[int, str], where: str) -> str | None:
    """An enum field's name: the text as sent, the name of a number both APIs give the same name
    (see :data:`_FINISH_REASON_NUMBERS`), ``None`` when absent; else ResponseDecodeError at ``where``."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value in numbers:
            return numbers[value]
        raise ResponseDecodeError(
            API,
            f"{where} is the enum number {value}, which toolwire does not read: only {min(numbers)}-{max(numbers)} "
            "name the same value on Vertex AI and the Gemini API (a higher number names different values on "
            "the two, a negative one none); it should be the value's name, a string",
            where,
        )
    return _opt_str(value, where)


_USUAL_CANDIDATE = frozenset({"content", "finishReason", "index"})
_USUAL_CONTENT = frozenset({"role", "parts"})
_USUAL_CALL = frozenset({"name", "args", "id"})


def _decode_usual(body: dict[str, Any], request: ModelRequest | None) -> Response | None:
    """The usual answer decoded in one pass, or ``None`` for any other (then the stream decoder
    and the assembler decode it, raising for a bad shape). Usual: camelCase fields of
    :data:`_USUAL_TOP` with a non-empty string ``responseId``, a string ``modelVersion``, an
    object ``usageMetadata``; one candidate of :data:`_USUAL_CANDIDATE` fields with a string
    ``finishReason``; a ``content`` of ``role`` and ``parts``; parts that are ``{"text": str}`` or
    ``{"functionCall": {"name": non-empty str, "args": object, "id"?: str}}``, each with an optional
    base64 ``thoughtSignature``. It gives what the stream path gives for such an answer: the same
    parts, stop reason (:func:`map_finish_reason`), usage (:func:`usage_from_metadata`), ids
    (a call without an id gets ``gemini-<responseId>-<position>``), arguments (coerced to the
    request's tool schema) and ``provider_data`` (``{"gemini": {"usageMetadata": ...}}``)."""
    if not body.keys() <= _USUAL_TOP:
        return None
    rid, model, meta, candidates = body.get("responseId"), body.get("modelVersion"), None, body.get("candidates")
    if type(rid) is not str or not rid or not (model is None or type(model) is str):
        return None
    if "usageMetadata" in body:
        meta = body["usageMetadata"]
        if type(meta) is not dict:
            return None
    if type(candidates) is not list or len(candidates) != 1:
        return None
    cand = candidates[0]
    if type(cand) is not dict or not cand.keys() <= _USUAL_CANDIDATE:
        return None
    finish = cand.get("finishReason")
    content = cand.get("content")
    if not (finish is None or type(finish) is str) or type(content) is not dict or not content.keys() <= _USUAL_CONTENT:
        return None
    raw_parts = content.get("parts")
    if type(raw_parts) is not list:
        return None
    schemas = {t.name: t.input_schema for t in request.tools} if request is not None and request.tools else {}
    parts: list[Any] = []
    calls = 0
    for part in raw_parts:
        if type(part) is not dict:
            return None
        sig = part.get("thoughtSignature")
        n = len(part)
        if sig is not None:
            if type(sig) is not str:
                return None
            try:
                _S.opt_base64(sig, "")
            except ResponseDecodeError:
                return None  # the stream path raises it, with the part's pointer
            n -= 1
        elif "thoughtSignature" in part:
            n -= 1  # a null signature: none
        if n != 1:
            return None
        text = part.get("text")
        if type(text) is str:
            if text or sig is not None:  # an empty text part without a signature carries nothing
                parts.append(TextPart(text, {API: {"thoughtSignature": sig}} if sig is not None else {}))
            continue
        fc = part.get("functionCall")
        if type(fc) is not dict or not fc.keys() <= _USUAL_CALL:
            return None
        name, args, vid = fc.get("name"), fc.get("args"), fc.get("id")
        if type(name) is not str or not name or not (vid is None or type(vid) is str):
            return None
        if args is None:
            args = {}
        elif type(args) is not dict:
            return None
        args = coerce_arguments(schemas.get(name), args)
        the_id = vid if vid else _synth_id(rid, calls)
        calls += 1
        pd = {"thoughtSignature": sig} if sig is not None else {}
        # positional, in ToolCall's field order (id, name, arguments, raw_arguments, invalid,
        # incomplete, id_synthesized, provider_data)
        parts.append(ToolCall(the_id, name, dict(args), None, None, False, not vid, {API: pd}))
    stop = map_finish_reason(finish or None, calls > 0)
    usage = usage_from_metadata(meta) if meta is not None else Usage(requests=1)
    provider_data: dict[str, Any] = {API: {"usageMetadata": meta} if meta is not None else {}}
    # positional, in Response's field order (parts, stop_reason, vendor_stop_reason, usage,
    # model, response_id, provider, provider_data)
    return Response(parts, stop, finish or None, usage, model or None, rid, API, provider_data)  # type: ignore[arg-type]


def _any_output(response: Response) -> bool:
    """Whether ``response`` carries anything the model produced: a part other than an empty
    text part without vendor data."""
    return any(type(p) is not TextPart or p.text or p.provider_data for p in response.parts)


def _one_as_list(d: dict[str, Any], name: str) -> dict[str, Any]:
    """``d``, or a copy of it whose field ``name`` (either spelling) that held one object holds
    it as a one-item list."""
    for key in (name, _snake(name)):
        if isinstance(d.get(key), dict):
            d = {**d, key: [d[key]]}
    return d


def _with_repeated_lists(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with each repeated field toolwire reads (``contents``, a content's ``parts``,
    ``systemInstruction.parts``, ``tools``, a tool's ``functionDeclarations``,
    ``safetySettings``) that holds one
    object instead of a list turned into a one-item list; the caller's body is not changed.

    The Gemini API reads JSON by the proto3 mapping and takes a single value for a repeated
    field: a recorded request whose ``tools`` was one object (``{"function_declarations": [...]}``,
    pydantic-ai cassette test_openai/test_multiple_agent_tool_calls) was answered HTTP 200 with a
    call of the tool it declares, and Vertex AI's REST samples write ``"contents": {"role":
    "user", "parts": {"text": ...}}``. The google-genai SDK's pydantic types want lists; toolwire
    sends lists."""
    out = _one_as_list(_one_as_list(_one_as_list(body, "contents"), "tools"), "safetySettings")
    for name, inner in (("contents", "parts"), ("tools", "functionDeclarations")):
        for key in (name, _snake(name)):
            entries = out.get(key)
            if isinstance(entries, list):
                fixed = [_one_as_list(e, inner) if isinstance(e, dict) else e for e in entries]
                if any(a is not b for a, b in zip(fixed, entries)):
                    out = {**out, key: fixed}
    for key in ("systemInstruction", "system_instruction"):
        if isinstance(out.get(key), dict):
            out = {**out, key: _one_as_list(out[key], "parts")}
    return out


def _check_import_types(body: dict[str, Any]) -> None:
    """Raises :class:`ResponseDecodeError` at the first top-level field of an imported request
    body of a JSON type the API does not take there (either spelling; they were dropped, such as
    a ``toolConfig`` of ``"AUTO"``, or carried along for the API to refuse): ``systemInstruction``
    is a ``google.genai.types.Content`` (an object whose ``parts`` are ``Part`` objects; plain
    text is taken too, as before), ``model`` text; ``generationConfig`` (its ``thinkingConfig``
    too), ``toolConfig``, ``safetySettings``, ``cachedContent`` and the other fields are checked
    against the SDK's types as proto3 JSON (:func:`toolwire_gemini.profile.setting_type_problems`).
    ``contents`` and ``tools`` have their own checks."""
    from .profile import setting_type_problems

    for key, value in body.items():
        ck = _camel(key) if isinstance(key, str) and "_" in key else key
        if value is None:
            continue
        if ck == "systemInstruction" and not isinstance(value, str):
            si = _obj(value, f"/{key}")
            for pi, part in enumerate(_opt_list(si.get("parts"), f"/{key}/parts")):
                part = _obj(part, f"/{key}/parts/{pi}")
                _opt_str(part.get("text"), f"/{key}/parts/{pi}/text")
        elif ck == "model":
            _opt_str(value, f"/{key}")
        elif ck in ("toolConfig", "generationConfig"):
            _obj(value, f"/{key}")
    camel: dict[Any, tuple[Any, Any]] = {}
    for k, v in body.items():
        ck = _camel(k) if isinstance(k, str) and "_" in k else k
        if ck not in ("contents", "tools", "model", "systemInstruction"):
            camel[ck] = (k, v)
    problems = setting_type_problems({ck: v for ck, (_, v) in camel.items()}) or _nested_type_problems(body)
    if problems:
        pointer, message = problems[0]
        first = pointer.split("/")[1] if pointer.count("/") >= 1 else ""
        spelled = camel.get(first, (first, None))[0]
        raise _S.error("/" + "/".join([str(spelled), *pointer.split("/")[2:]]), message)


def _nested_type_problems(body: dict[str, Any]) -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each value inside ``contents`` and ``tools`` of an imported
    request body (either spelling) whose JSON type is not the one the SDK gives it, read as proto3
    JSON (:func:`toolwire.profile.value_type_problems`): ``contents`` is a list of
    ``google.genai.types.Content`` (``role`` text, ``parts`` of ``Part``: ``functionCall.args`` an
    object, ``FunctionCall.args: Optional[dict[str, Any]]``, its ``name``/``id`` text;
    ``functionResponse.response`` an object; ``thought`` a boolean; ``inlineData.data`` base64
    text ...), ``tools`` a list of ``google.genai.types.Tool`` (``functionDeclarations[i].parameters``
    a ``Schema`` object, ``name``/``description`` text ...). Such values were read as invalid calls,
    the name ``"5"``, a result of ``'"ok"'`` or a declaration re-sent as it came for the API to
    refuse. A field the SDK does not type is left to the codec (kept whole), and so are those it
    reads with rules of its own: the shape of ``contents``, ``tools`` and ``functionDeclarations``
    themselves, a tool's built-in tool fields (``googleSearch``: :class:`ConfigurationError` naming the tool), a call's
    ``partialArgs`` pieces and ``willContinue`` (read as the SDK's pydantic model reads it:
    ``"true"`` is true)."""
    from toolwire.profile import value_type_problems

    fields: dict[str, Any] = {}
    contents = body.get("contents")
    if isinstance(contents, list):
        fields["contents"] = contents
    tools = body.get("tools")
    if isinstance(tools, list):
        fields["tools"] = [
            {
                k: [d if isinstance(d, dict) else {} for d in v]
                for k, v in t.items()
                if k in ("functionDeclarations", "function_declarations") and isinstance(v, list)
            }
            if isinstance(t, dict)
            else {}
            for t in tools
        ]
    if not fields:
        return []
    return [
        (pointer, message)
        for pointer, message in value_type_problems(fields, _import_body_type(), proto_json=True)
        if not _OWN_RULES.intersection(pointer.split("/"))
    ]


#: Fields of an imported part the codec checks with rules of its own (:func:`_nested_type_problems`).
_OWN_RULES = frozenset({"partialArgs", "partial_args", "willContinue", "will_continue"})


@functools.lru_cache(maxsize=1)
def _import_body_type() -> Any:
    """``contents`` and ``tools`` of a ``generateContent`` body as a ``TypedDict`` of the SDK's
    types (``google.genai.types.GenerateContentParameters`` takes far more than the REST body)."""
    from typing import TypedDict

    from google.genai import types

    return TypedDict("GenerateContentImport", {"contents": list[types.Content], "tools": list[types.Tool]}, total=False)


def _instruction_text(si: dict[str, Any]) -> str:
    return "\n\n".join(p.get("text", "") for p in (si.get("parts") or []) if isinstance(p, dict))


def _raw_matches(raw: dict[str, Any], text: str) -> bool:
    """An opaque part is replayed while its text is unchanged (or it had no text at all, or its
    text is the transcription of its audio: :func:`_transcript`)."""
    return raw.get("text") == text if isinstance(raw.get("text"), str) else text in ("", _transcript(raw))


def _transcript(part: dict[str, Any]) -> str:
    """The text of a part's ``audioTranscription`` ("Output only. The transcription of the audio
    part", ``google.genai.types.Part.audio_transcription``, asked for with
    ``audioTranscriptionConfig``): what the model said in its audio answer, else ``""``."""
    transcription = _g(part, "audioTranscription")
    text = transcription.get("text") if isinstance(transcription, dict) else None
    return text if isinstance(text, str) else ""


def _decode_function_response(fr: dict[str, Any], pending: list[ToolCall]) -> ToolResult:
    name = fr.get("name")
    rid = fr.get("id")
    call: ToolCall | None = None
    if rid is not None:
        call = next((c for c in pending if c.id == rid), None)
    if call is None:
        call = next((c for c in pending if c.name == name and (rid is None)), None)
    pd: dict[str, Any] = {}
    if call is not None:
        pending.remove(call)
        call_id = call.id
        if rid is None and not call.id_synthesized:
            pd["omit_id"] = True
    else:
        call_id = rid if isinstance(rid, str) else f"gemini-orphan-{name}"
        if rid is not None:
            pd["id"] = rid
    response = fr.get("response")
    is_error = False
    text: str
    if isinstance(response, dict) and set(response) == {"output"} and isinstance(response["output"], str):
        text = response["output"]
    elif isinstance(response, dict) and set(response) == {"error"} and isinstance(response["error"], str):
        text, is_error = response["error"], True
    else:
        text = _json_text(response)
        pd["response"] = copy.deepcopy(response)
    images: list[Any] = []
    kept: list[list[Any]] = []  # [position, part] of the entries no canonical part carries
    raw_parts = fr.get("parts")
    if isinstance(raw_parts, dict):
        # one FunctionResponsePart for the repeated field: proto3 JSON, which the API reads, takes
        # it as a one-item list (as _with_repeated_lists); its image was dropped without a word
        raw_parts = [raw_parts]
    for i, p in enumerate(raw_parts if isinstance(raw_parts, list) else []):
        img = None
        if isinstance(p, dict) and _has(p, "inlineData"):
            blob = _g(p, "inlineData")
            img = _decode_document(blob, _IN_RESPONSE)
            if img is None and isinstance(blob, dict):
                image = _decode_blob(blob)  # an image; other data (audio, video) is kept whole below
                img = image if image is not None and str(image.media_type).lower().startswith("image/") else None
        if img is None:
            img = _decode_file_image(p)  # an image by URL
        if img is not None:
            images.append(img)
        elif isinstance(p, dict):
            # a fileData reference, an inlineData of a type toolwire does not read: kept whole for
            # Gemini (google.genai.types.FunctionResponsePart), reported where another API leaves it out
            kept.append([i, copy.deepcopy(p)])
    if kept:
        pd["response_parts"] = kept
        pd["kept_content"] = [_kept_response_part(p) for _, p in kept]
    content: Any = text
    if images:
        content = ([TextPart(text)] if text else []) + images
    extra = {k: v for k, v in fr.items() if k not in ("name", "id", "response", "parts")}
    if extra:
        pd["extra"] = copy.deepcopy(extra)
    return ToolResult(call_id, content, is_error, name, {API: pd} if pd else {})


def _kept_response_part(part: dict[str, Any]) -> str:
    """How a kept ``functionResponse.parts`` entry is named in a report: ``"fileData part
    (application/pdf https://...)"``."""
    kind = next((k for k in part if isinstance(k, str)), "part")
    inner = part.get(kind)
    mime = _g(inner, "mimeType") if isinstance(inner, dict) else None
    uri = _g(inner, "fileUri") if isinstance(inner, dict) else None
    about = " ".join(str(v)[:120] for v in (mime, uri) if isinstance(v, str) and v)
    return f"{kind} part" + (f" ({about})" if about else "")


#: The note :meth:`GeminiCodec._encode_result` ends a response's text with when the result's PDFs
#: follow the function responses: its names (each ``repr``, joined by ``", "``) as group 1.
_SIBLING_NOTE = re.compile(r"(?:\A|\n)\(the document\(s\) ([^\n]+) follow the function responses\)\Z")


def _sibling_names(text: str) -> tuple[str, list[str]] | None:
    """``(text before the note, the names it gives)`` when ``text`` ends with the note naming a
    result's PDFs that follow the function responses, written as toolwire writes it; else ``None``."""
    m = _SIBLING_NOTE.search(text)
    if m is None:
        return None
    try:
        names = ast.literal_eval(f"({m.group(1)},)")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
        return None
    named: list[str] = list(names)
    if ", ".join(repr(n) for n in named) != m.group(1):
        return None
    return text[: m.start()], named


def _fold_sibling_documents(parts: list[Any]) -> list[Any]:
    """An imported user turn's ``parts`` with the PDFs the encoder sent after the function
    responses (rule ``gemini.conversation.tool-result-document``) put back into the results whose
    text names them, in order, with those names as filenames (none for the made-up
    ``document.pdf``), the note removed. Unchanged when the turn does not hold them as toolwire
    writes them (a PDF of the user's own, a note naming PDFs that are not there)."""
    n = next((i for i, p in enumerate(parts) if not isinstance(p, ToolResult)), len(parts))
    pos, out = n, list(parts)
    for i, result in enumerate(parts[:n]):
        content = result.content
        texts = [p for p in content if isinstance(p, TextPart)] if isinstance(content, list) else None
        if texts is not None and (len(texts) != 1 or content[0] is not texts[0] or texts[0].provider_data):
            continue
        found = _sibling_names(content if isinstance(content, str) else texts[0].text if texts else "")
        if found is None:
            continue
        before, names = found
        docs = parts[pos : pos + len(names)]
        if len(docs) != len(names) or not all(
            type(d) is DocumentPart and d.media_type == "application/pdf" and not d.provider_data for d in docs
        ):
            return parts
        pos += len(names)
        named = [
            DocumentPart(d.data, d.media_type, None if name == DocumentPart(d.data).name else name)
            for d, name in zip(docs, names)
        ]
        rest = [p for p in content if not isinstance(p, TextPart)] if isinstance(content, list) else []
        out[i] = dataclasses.replace(result, content=[*([TextPart(before)] if before else []), *rest, *named])
    return out[:n] + parts[pos:]


def _sibling_documents(result: ToolResult) -> list[DocumentPart]:
    """The PDFs of ``result`` sent as parts after the function responses (all but those imported
    from ``functionResponse.parts``)."""
    if isinstance(result.content, str):
        return []
    return [
        p
        for p in result.content
        if isinstance(p, DocumentPart) and p.media_type != "text/plain" and not _in_response_parts(p)
    ]


def _check_replayable(part: dict[str, Any], at: str) -> None:
    """Raise :class:`ResponseDecodeError` for a model part whose data the next request could not
    carry back (every part of an answer is sent back as it came): ``inlineData`` that is not a
    ``google.genai.types.Blob`` with a ``mimeType`` string and base64 ``data`` (rule
    ``gemini.conversation.inline-data``), a ``functionResponse`` that is not an object whose
    ``response`` is an object (``FunctionResponse.response``; rule
    ``gemini.conversation.response-object``). Kept, such a part would make every later request
    of the run refused."""
    for name in ("inlineData", "functionResponse"):
        if not _has(part, name):
            continue
        key = name if name in part else _snake(name)
        value = part[key]
        if name == "inlineData":
            if not (
                isinstance(value, dict) and isinstance(_g(value, "mimeType"), str) and is_base64(value.get("data"))
            ):
                raise _S.error(
                    f"{at}/{key}",
                    f"{key} must be a Blob object with a mimeType string and base64 data, got {_short(_json_text(value))}",
                )
        elif not isinstance(value, dict):
            raise _bad(f"{at}/{key}", "an object", value)
        elif not isinstance(value.get("response"), dict):
            raise _bad(f"{at}/{key}/response", "an object", value.get("response"))


def _set_fields(part: dict[str, Any]) -> dict[str, Any]:
    """``part`` without its fields set to null: a field set to null is a field not set (proto3
    JSON: "null is accepted for all field types and treated as the default value"). The
    google-genai SDK's own ``Part.model_dump(mode="json")`` writes every field it does not set as
    null (``"inline_data": null`` beside ``"text"``), which a model part's checks refused as an
    inlineData or functionCall that is not an object (a user part's were read already). A part
    left with no data field (``{"functionCall": null}``) is kept as it came, to be refused naming
    that field (Gemini: "required oneof field 'data' must have one initialized field")."""
    if None not in part.values():
        return part
    kept = {k: v for k, v in part.items() if v is not None}
    return kept if kept.keys() - {"thought", "thoughtSignature", "thought_signature"} else part


def _decode_part(part: Any, synth: Any, schemas: dict[str, Any], at: str = "") -> Part | None:
    """One model ``Part`` → canonical part (``synth()`` gives the id for a call without one).

    Raises :class:`ResponseDecodeError` (pointer ``at`` + the field) when ``functionCall`` is
    present but not an object, ``text``/``thoughtSignature`` is not a string, or a field the
    part goes back with could not be sent back (:func:`_check_replayable`)."""
    if not isinstance(part, dict):
        raise _bad(at, "an object", part)
    part = _set_fields(part)
    sig = _S.opt_base64(_g(part, "thoughtSignature"), f"{at}/thoughtSignature")  # sent back as is: must be base64
    if "text" in part:
        _opt_str(part["text"], f"{at}/text")
    _check_replayable(part, at)
    if _has(part, "functionCall"):
        fc = _obj(_g(part, "functionCall"), f"{at}/functionCall")
        args = fc.get("args")
        if args is None:
            args = {}
        name, name_invalid = _tool_name(fc.get("name"))
        vid = fc.get("id")
        invalid = name_invalid
        if not isinstance(args, dict):
            invalid, args = invalid or f"arguments must be a JSON object, got a JSON {_json_kind(args)}", None
        else:
            args = coerce_arguments(schemas.get(name) if name_invalid is None else None, args)
        pd: dict[str, Any] = {API: {"thoughtSignature": sig} if sig is not None else {}}
        return ToolCall(
            id=vid if isinstance(vid, str) and vid else synth(),
            name=name,
            arguments=args,
            invalid=invalid,
            id_synthesized=not (isinstance(vid, str) and vid),
            provider_data=pd,
        )
    keys = set(part) - {"thoughtSignature", "thought_signature"}
    if part.get("thought") is True:
        reasoning = ReasoningPart(text=part.get("text") or "", signature=sig, provider=API)
        if not isinstance(part.get("text"), str) or keys - {"text", "thought"}:
            reasoning.provider_data = {API: {"part": copy.deepcopy(part)}}
        return reasoning
    if keys <= {"text"}:
        return TextPart(part.get("text") or "", _signature_pd(sig))
    if isinstance(part.get("text"), str) and not (
        keys & {"inlineData", "inline_data", "fileData", "file_data", "functionResponse", "function_response"}
    ):
        pd = _signature_pd(sig)
        pd.setdefault(API, {})["part"] = copy.deepcopy(part)
        return TextPart(part["text"], pd)  # e.g. {"text": ..., "thought": false}: text kept, part replayed as is
    server = server_tool_part(part)
    if server is not None:
        return server
    blob = _g(part, "inlineData")
    if isinstance(blob, dict) and keys <= {"inlineData", "inline_data"} and sig is None:
        img = _decode_blob(blob)
        if img is not None and img.base64 == blob.get("data"):
            return img
    # an audio answer's transcription is its text (as the Chat adapter reads an audio answer's
    # transcript), the part kept whole for Gemini; any other part toolwire has no form for is kept
    # whole as a ProviderToolPart that another API leaves out with a report
    transcript = _transcript(part)
    if transcript:
        return TextPart(transcript, {API: {"part": copy.deepcopy(part)}})
    return kept_part(part)


#: ``Part`` fields of the server-side tools (``google.genai.types.Part``: ``executable_code`` and
#: ``code_execution_result`` of code execution; ``tool_call`` / ``tool_response``, "a predicted
#: server-side ToolCall ... the client should pass this ToolCall back to the API in a subsequent
#: turn ... along with the corresponding ToolResponse"), with the kind of block each is.
SERVER_TOOL_FIELDS: dict[str, str] = {
    "executableCode": "call",
    "codeExecutionResult": "result",
    "toolCall": "call",
    "toolResponse": "result",
}

#: ``Candidate`` fields about a server-side tool's work (``google.genai.types.Candidate``):
#: ``grounding_metadata`` (Google Search) and ``url_context_metadata`` (URL context). They are
#: response metadata, not ``Content`` parts, so the API takes nothing back for them.
SERVER_TOOL_METADATA: dict[str, str] = {"groundingMetadata": "googleSearch", "urlContextMetadata": "urlContext"}


def _short(text: Any, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _error_status(err: dict[str, Any]) -> tuple[int | None, str | None]:
    """The HTTP status and the error type of an ``error`` object sent in a 200 body or a stream
    chunk: Google's ``{"code": 400, "status": "INVALID_ARGUMENT"}`` gives ``(400,
    "INVALID_ARGUMENT")``; a gateway's OpenAI-style object with the status as an integer
    ``status`` and a string ``code`` (Azure OpenAI: ``{"code": "content_filter", "status": 400}``)
    gives ``(400, "content_filter")`` — a number in ``status`` is no type."""
    code, named = err.get("code"), err.get("status")

    def http(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    status = http(code) if http(code) is not None else http(named)
    etype = named if isinstance(named, str) else err.get("type") if isinstance(err.get("type"), str) else None
    if etype is None and isinstance(code, str):
        etype = code
    return status, etype


def _no_tool_error(i: int, entry: Any) -> str:
    """The message of the :class:`~toolwire.errors.ConfigurationError` for entry ``i`` of an
    imported request's ``tools`` that names no tool (see ``GeminiCodec._decode_provider_tools``)."""
    shown = repr(entry) if len(repr(entry)) <= 200 else repr(entry)[:200] + "…"
    if not isinstance(entry, dict):
        why = f"it is a JSON {json_kind(entry)}, not an object (google.genai.types.Tool)"
    elif entry:
        why = (
            "every field is null, which is 'not set' (google.genai.types.Tool; the SDK leaves a None "
            "field out of the request)"
        )
    else:
        why = "it is empty"
    first = next(iter(entry), None) if isinstance(entry, dict) else None
    name = _camel(first) if isinstance(first, str) and "_" in first else first
    example = (
        f'{{"{name}": {{}}}}' if isinstance(name, str) and name != "functionDeclarations" else '{"googleSearch": {}}'
    )
    return (
        f"gemini: tools[{i}] is {shown}, which names no tool: {why}, and the API refuses an entry "
        f"without a tool (\"required one_of 'tool_type' must have one initialized field\"); write "
        f"{example} for a built-in tool with no settings, or leave the entry out"
    )


def _builtin_tool_shape_error(key: str, value: Any, i: int) -> str:
    """The message of the :class:`~toolwire.errors.ConfigurationError` for a built-in tool
    (``google.genai.types.Tool`` field ``key`` of ``tools`` entry ``i``) whose value is not an object."""
    import typing

    from google.genai import types

    field = next((f for n, f in types.Tool.model_fields.items() if (f.alias or n) == key), None)
    sdk = next((a for a in typing.get_args(field.annotation) if a is not type(None)), None) if field else None
    item = typing.get_args(sdk)[0] if typing.get_origin(sdk) is list and typing.get_args(sdk) else None
    got = f"{value!r} ({type(value).__name__})"
    if item is not None:  # mcpServers: a list, which a ProviderTool's settings (an object) cannot hold
        return (
            f"gemini: tools[{i}].{key}: the built-in tool {key!r} is {got}; toolwire imports a built-in tool only when its "
            f"settings are an object, and {key!r} is a list of google.genai.types.{item.__name__}: leave it "
            "out of the imported request"
        )
    name = f"google.genai.types.{sdk.__name__}" if isinstance(sdk, type) else "the tool's settings"
    return (
        f"gemini: tools[{i}].{key}: the built-in tool {key!r} is {got}; it takes an object ({name}), e.g. "
        f'{{"{key}": {{}}}} for the tool with no settings'
    )


def server_tool_part(part: dict[str, Any]) -> ProviderToolPart | None:
    """A model ``Part`` holding one of :data:`SERVER_TOOL_FIELDS` as a :class:`ProviderToolPart`
    (``raw`` a copy of the whole part, its ``thoughtSignature`` included; ``call_id`` the
    block's ``id`` when given); ``None`` for any other part. Summary: the code and language,
    the outcome and output, or the tool type and arguments."""
    for field, kind in SERVER_TOOL_FIELDS.items():
        block = _g(part, field)
        if not isinstance(block, dict):
            continue
        if field == "executableCode":
            summary = _short(f"{block.get('language') or 'code'}: {block.get('code') or ''}")
            name: Any = "codeExecution"
        elif field == "codeExecutionResult":
            summary = _short(f"{block.get('outcome') or 'result'}: {block.get('output') or ''}")
            name = "codeExecution"
        else:
            name = _g(block, "toolType")
            body = _g(block, "args") if field == "toolCall" else _g(block, "response")
            summary = _short(f"{name or field} {json.dumps(body, ensure_ascii=False, sort_keys=True)}")
        cid = block.get("id")
        return ProviderToolPart(
            provider=API,
            vendor_type=field,
            raw=copy.deepcopy(part),
            kind=kind,  # type: ignore[arg-type]
            name=name if isinstance(name, str) else None,
            call_id=cid if isinstance(cid, str) else None,
            summary=summary,
        )
    return None


#: ``Part`` fields that are not its data (``google.genai.types.Part``), in both spellings.
_PART_META = frozenset(
    {
        "thought",
        "thoughtSignature",
        "thought_signature",
        "videoMetadata",
        "video_metadata",
        "mediaResolution",
        "media_resolution",
        "partMetadata",
        "part_metadata",
    }
)


def kept_part(part: dict[str, Any]) -> ProviderToolPart:
    """A model ``Part`` toolwire has no canonical part for, as a :class:`ProviderToolPart` kept
    whole for Gemini: an image the model made (``inlineData``, with the ``thoughtSignature`` an
    image model puts on it; ``fileData``), or any other part. ``raw`` is a copy of the whole part,
    sent back to Gemini as received; ``vendor_type`` its data field; ``kind`` ``"result"``. Another
    API leaves it out and the preflight report says so (rule ``provider-tool.dropped``): a
    ``TextPart("")`` holding it, as toolwire kept it before, was left out without a word."""
    field = next((k for k in part if k not in _PART_META), None) or "part"
    data = part.get(field)
    summary = ""
    if field in ("inlineData", "inline_data") and isinstance(data, dict):
        mime = _g(data, "mimeType")
        size = len(data["data"]) * 3 // 4 if isinstance(data.get("data"), str) else 0
        summary = f"{mime or 'data'}, about {size} bytes"
    elif field in ("fileData", "file_data") and isinstance(data, dict):
        summary = _short(f"{_g(data, 'mimeType') or 'file'} {_g(data, 'fileUri') or ''}")
    return ProviderToolPart(provider=API, vendor_type=field, raw=copy.deepcopy(part), kind="result", summary=summary)


def _as_list(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def server_tool_metadata_part(field: str, meta: dict[str, Any]) -> ProviderToolPart:
    """A candidate's ``groundingMetadata`` / ``urlContextMetadata`` (:data:`SERVER_TOOL_METADATA`)
    as a ``kind="metadata"`` :class:`ProviderToolPart` (never sent back: ``Content`` has no such
    field). Summary: the search queries and the sources' titles and URIs, or each URL's
    retrieval status."""
    bits: list[str] = []
    if field == "groundingMetadata":
        queries = [q for q in _as_list(_g(meta, "webSearchQueries")) if isinstance(q, str)]
        if queries:
            bits.append("searched: " + "; ".join(queries))
        webs = [_g(c, "web") for c in _as_list(_g(meta, "groundingChunks")) if isinstance(_g(c, "web"), dict)]
        if webs:
            shown = "; ".join(f"{w.get('title') or ''} <{w.get('uri')}>".strip() for w in webs[:3])
            bits.append(f"{len(webs)} source{'s' if len(webs) != 1 else ''}: {shown}{' ...' if len(webs) > 3 else ''}")
    else:
        for u in _as_list(_g(meta, "urlMetadata")):
            if isinstance(u, dict):
                bits.append(f"{_g(u, 'retrievedUrl')} {_g(u, 'urlRetrievalStatus') or ''}".strip())
    return ProviderToolPart(
        provider=API,
        vendor_type=field,
        raw=copy.deepcopy(meta),
        kind="metadata",
        name=SERVER_TOOL_METADATA[field],
        summary=_short(" - ".join(bits)),
    )


#: FunctionCall fields of a call streamed in pieces (google.genai.types.FunctionCall.partial_args /
#: will_continue, "not supported in Gemini API": Vertex AI with streamFunctionCallArguments)
_PIECE_FIELDS = frozenset({"willContinue", "will_continue", "partialArgs", "partial_args"})
#: RFC 9535 member-name shorthand: name-first = ALPHA / "_" / %x80-D7FF / %xE000-10FFFF, name-char =
#: name-first / DIGIT (``$.città`` is a path); "-" is taken too
_PATH_STEP = re.compile(
    r"""\.([A-Za-z_\u0080-\ud7ff\ue000-\U0010ffff][\w\u0080-\ud7ff\ue000-\U0010ffff-]*)"""
    r"""|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]"""
)
#: the largest array index a streamed argument path may name (a bigger one is refused, not padded)
_MAX_PATH_INDEX = 10_000


def _json_path_steps(path: Any) -> list[str | int] | None:
    """``$.a.b[0]['c d']`` → ``["a", "b", 0, "c d"]`` (the RFC 9535 forms the streamed
    arguments use: member names and array indexes); ``None`` for any other text."""
    if not isinstance(path, str) or not path.startswith("$"):
        return None
    steps: list[str | int] = []
    pos = 1
    while pos < len(path):
        m = _PATH_STEP.match(path, pos)
        if m is None:
            return None
        name, index, single, double = m.groups()
        if index is not None:
            if int(index) > _MAX_PATH_INDEX:
                return None
            steps.append(int(index))
        else:
            text = name if name is not None else single if single is not None else double
            steps.append(re.sub(r"\\(.)", r"\1", text) if name is None else text)
        pos = m.end()
    return steps or None


#: the strings pydantic reads as a bool (case-insensitive, nothing stripped). google-genai reads
#: each response with its pydantic models (``BaseModel._from_response`` → ``model_validate``, lax
#: mode), which type ``FunctionCall.will_continue`` and ``PartialArg.will_continue`` as
#: ``Optional[bool]``: pydantic's conversion table takes these strings and the numbers 0 and 1
#: for a bool and refuses anything else ("Input should be a valid boolean")
_FLAG_TEXT = {
    **dict.fromkeys(("1", "on", "t", "true", "y", "yes"), True),
    **dict.fromkeys(("0", "off", "f", "false", "n", "no"), False),
}


def _will_continue(d: Any) -> tuple[bool, str | None]:
    """Whether the ``FunctionCall`` or ``PartialArg`` object ``d`` says more follows
    (``willContinue``, read as the SDK's pydantic model reads it: ``"true"`` or ``1`` is true,
    absent or null is false), and what is wrong with the field, else ``None``. A value the SDK
    refuses (``"maybe"``, ``2``, an object) counts as "more follows", so the pieces after it stay
    with their call, which is answered with the problem (never run, no piece dropped)."""
    value = _g(d, "willContinue")
    if value is None or type(value) is bool:
        return bool(value), None
    if type(value) in (int, float) and value in (0, 1):
        return bool(value), None
    if type(value) is str and value.lower() in _FLAG_TEXT:
        return _FLAG_TEXT[value.lower()], None
    return True, (
        f"has a willContinue that is a JSON {_json_kind(value)} ({_short(repr(value), 60)}), not a boolean "
        "(google.genai.types.FunctionCall.will_continue / PartialArg.will_continue are Optional[bool])"
    )


@dataclasses.dataclass
class _StreamedCall:
    """A call whose arguments arrive in ``partialArgs`` pieces, being assembled."""

    call: ToolCall
    index: int
    args: dict[str, Any]
    problem: str | None = None
    #: paths (as their steps, so ``$.city`` and ``$['city']`` are one) whose string value goes on
    #: in the next piece (``PartialArg.will_continue``)
    open_strings: set[tuple[str | int, ...]] = dataclasses.field(default_factory=set)

    def apply(self, piece: Any) -> str | None:
        """Set one ``PartialArg`` into :attr:`args`; what is wrong with it, else ``None``.

        The fields are read as google.genai.types.PartialArg types them: ``json_path``
        ``Optional[str]`` ("Required. A JSON Path (RFC 9535)"), ``string_value`` ``Optional[str]``,
        ``number_value`` ``Optional[float]``, ``bool_value`` ``Optional[bool]``, ``null_value``
        ``Optional[Literal['NULL_VALUE']]`` (JSON null in the proto JSON form); a value field
        that is null is not set. A value of another JSON type is a problem, never guessed at."""
        if not isinstance(piece, dict):
            return f"is a JSON {_json_kind(piece)}, not an object"
        path = _g(piece, "jsonPath")
        if path is None:
            return "has no jsonPath (google.genai.types.PartialArg.json_path is required: e.g. '$.items[0].name')"
        if not isinstance(path, str):
            return (
                f"has a jsonPath that is a JSON {_json_kind(path)}, not a string "
                "(google.genai.types.PartialArg.json_path: an RFC 9535 path such as '$.items[0].name')"
            )
        steps = _json_path_steps(path)
        if steps is None:
            return f"has a jsonPath toolwire cannot read ({_short(repr(path))}; expected e.g. '$.items[0].name')"
        if len(steps) > MAX_ARGUMENT_DEPTH:
            # arguments never nest deeper (MAX_ARGUMENT_DEPTH); built, they would only be refused,
            # and a short body could make them deep enough to break the encoder
            return (
                f"has a jsonPath {len(steps)} levels deep, deeper than {MAX_ARGUMENT_DEPTH} levels arguments "
                "may nest (MAX_ARGUMENT_DEPTH)"
            )
        more, flag_problem = _will_continue(piece)
        if flag_problem is not None:
            return flag_problem
        key = tuple(steps)
        if _g(piece, "stringValue") is not None:
            value = _g(piece, "stringValue")
            if not isinstance(value, str):
                return f"has a stringValue that is a JSON {_json_kind(value)}, not a string"
            if key in self.open_strings:
                so_far = _get_path(self.args, steps)
                value = (so_far if isinstance(so_far, str) else "") + value
        elif _g(piece, "numberValue") is not None:
            value = _g(piece, "numberValue")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return f"has a numberValue that is a JSON {_json_kind(value)}, not a number"
        elif _g(piece, "boolValue") is not None:
            value = _g(piece, "boolValue")
            if not isinstance(value, bool):
                return f"has a boolValue that is a JSON {_json_kind(value)}, not a boolean"
        elif _has(piece, "nullValue"):
            marker = _g(piece, "nullValue")
            if marker not in (None, "NULL_VALUE"):
                return f"has a nullValue that is a JSON {_json_kind(marker)}, not null or 'NULL_VALUE'"
            value = None
        else:
            return None  # a piece with no value (only the path): nothing to set
        if more:
            self.open_strings.add(key)
        else:
            self.open_strings.discard(key)
        return _set_path(self.args, steps, value)


def _get_path(root: Any, steps: list[str | int]) -> Any:
    node = root
    for step in steps:
        if isinstance(step, int):
            node = node[step] if isinstance(node, list) and step < len(node) else None
        else:
            node = node.get(step) if isinstance(node, dict) else None
    return node


def _set_path(root: dict[str, Any], steps: list[str | int], value: Any) -> str | None:
    """Set ``value`` at ``steps`` in ``root``, making the objects and arrays on the way (an array
    shorter than an index is filled with nulls); what conflicts, else ``None``."""
    node: Any = root
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        fresh: Any = None if last else ([] if isinstance(steps[i + 1], int) else {})
        if isinstance(step, int):
            if not isinstance(node, list):
                return f"indexes [{step}] into a value that is not an array"
            while len(node) <= step:
                node.append(None)
            if last:
                node[step] = value
            elif node[step] is None:
                node[step] = fresh
        else:
            if not isinstance(node, dict):
                return f"names member {step!r} of a value that is not an object"
            if last:
                node[step] = value
            elif node.get(step) is None:
                node[step] = fresh
        if not last:
            node = node[step]  # pyright: ignore[reportCallIssue, reportArgumentType] - a list for an int step, a dict for a str one
    return None


def _is_piece_call(fc: Any) -> bool:
    """Whether the ``functionCall`` ``fc`` opens a call in pieces (or carries its one piece): a
    name, and ``willContinue`` true or ``partialArgs``."""
    return (
        type(fc) is dict
        and (_will_continue(fc)[0] or _g(fc, "partialArgs") is not None)
        and isinstance(_g(fc, "name"), str)
        and bool(_g(fc, "name"))
    )


def _joined_pieces(parts: list[Any], at: str) -> list[Any]:
    """The parts of an imported model turn with each call in pieces (``FunctionCall.partial_args``
    / ``will_continue``, as a client that stored a streamed answer's parts holds them) made one
    ``functionCall`` part: name, id, the assembled ``args`` and the first thought signature a
    piece carried, at the place of its first part. A call left open at the end of the turn ends
    there. Raises :class:`ResponseDecodeError` at the piece's pointer for a path or value that
    cannot be read (the stream decoder answers such a call instead; a request's history has no
    answer to give)."""
    if not any(
        type(p) is dict and type(fc := _g(p, "functionCall")) is dict and any(k in fc for k in _PIECE_FIELDS)
        for p in parts
    ):
        return parts
    out: list[Any] = []
    current: tuple[dict[str, Any], _StreamedCall] | None = None

    def feed(part: dict[str, Any], fc: dict[str, Any], pi: int) -> bool:
        """Apply the part's pieces; whether the call goes on."""
        assert current is not None
        whole, s = current
        more, flag_problem = _will_continue(fc)
        if flag_problem is not None:
            raise ResponseDecodeError(
                API, f"a streamed call's part {flag_problem}", f"{at}/{pi}/functionCall/willContinue"
            )
        sig = _g(part, "thoughtSignature")
        if sig is not None and "thoughtSignature" not in whole:
            whole["thoughtSignature"] = _S.opt_base64(sig, f"{at}/{pi}/thoughtSignature")
        pieces = _g(fc, "partialArgs")
        if pieces is not None:
            if not isinstance(pieces, list):
                raise _bad(f"{at}/{pi}/functionCall/partialArgs", "an array", pieces)
            for k, piece in enumerate(pieces):
                problem = s.apply(piece)
                if problem is not None:
                    raise ResponseDecodeError(
                        API, f"a streamed argument {problem}", f"{at}/{pi}/functionCall/partialArgs/{k}"
                    )
        return more

    for pi, part in enumerate(parts):
        fc = _g(part, "functionCall") if type(part) is dict else None
        if current is not None:
            if type(fc) is dict and not _g(fc, "name"):
                if not feed(part, fc, pi):
                    current = None
                continue
            current = None  # another part: the call in pieces has ended
        if type(part) is dict and _is_piece_call(fc):
            assert type(fc) is dict
            base = _g(fc, "args")
            whole_fc = {k: v for k, v in fc.items() if k not in _PIECE_FIELDS}
            whole_fc["args"] = copy.deepcopy(base) if isinstance(base, dict) else {}
            whole = {k: v for k, v in part.items() if k not in ("thoughtSignature", "thought_signature")}
            whole = {**whole, "functionCall": whole_fc}
            out.append(whole)
            current = (whole, _StreamedCall(ToolCall("", whole_fc["name"], None), 0, whole_fc["args"]))
            if not feed(part, fc, pi):
                current = None
            continue
        out.append(part)
    return out


class GeminiStreamDecoder:
    """Incremental decoder: :meth:`feed` one ``GenerateContentResponse`` chunk at a time (the
    whole body for a non-streamed response), then :meth:`finish`. Used by
    :meth:`GeminiCodec.decode_stream` and by the transport's async stream."""

    def __init__(self, codec: GeminiCodec, request: ModelRequest | None = None, synth_key: str | None = None) -> None:
        self.codec = codec
        self.schemas: dict[str, dict[str, Any]] = {t.name: t.input_schema for t in (request.tools if request else [])}
        self.index: int = -1
        self.run: str | None = None  # "text" / "thought" when the current part can continue
        self.calls: int = 0
        self.response_id: str | None = None
        self.synth_key = synth_key
        self.finish_reason: str | None = None
        self.started = False
        self.meta: dict[str, Any] = {}
        self.request = request
        self.bad_names: dict[int, str] = {}  # call position → the JSON text of a name that is not a string
        self.tool_meta: dict[str, dict[str, Any]] = {}  # groundingMetadata / urlContextMetadata
        #: (name, arguments as JSON text) → the id of the first call without a vendor id that
        #: earlier chunks delivered, and the calls of the chunk being read (see :meth:`_repeat`)
        self.earlier_calls: dict[tuple[str, str], str] = {}
        self.chunk_calls: dict[tuple[str, str], str] = {}
        #: the call whose arguments are arriving in pieces (``FunctionCall.partial_args``), else None
        self.streamed: _StreamedCall | None = None

    def _key(self, part: dict[str, Any]) -> str:
        if self.response_id:
            return self.response_id
        if self.synth_key is None:
            self.synth_key = _content_key(part, self.request)
        return self.synth_key

    @_guarded("a Gemini response chunk")
    def feed(self, chunk: dict[str, Any], merge_text: bool = True) -> list[StreamEvent]:
        """The canonical events of one ``GenerateContentResponse`` chunk (a non-object chunk
        gives none). Raises :class:`ProviderError` for an error chunk and
        :class:`ResponseDecodeError` for a malformed one."""
        events: list[StreamEvent] = []
        if not isinstance(chunk, dict):
            return events
        if isinstance(chunk.get("error"), dict):
            err = chunk["error"]
            code, etype = _error_status(err)
            raise ProviderError(
                API,
                str(err.get("message", err)),
                status=code,
                retryable=ProviderError.is_retryable_status(code),
                error_type=etype,
                body=chunk,
            )
        rid = _opt_str(_g(chunk, "responseId"), "/responseId")
        model = _opt_str(_g(chunk, "modelVersion"), "/modelVersion")
        if rid and not self.response_id:
            self.response_id = rid
        if not self.started or rid or model:
            self.started: bool = True
            events.append(ResponseStart(rid, model or None, {API: {}}))  # "" as no model, as decode_response reads it
        if _has(chunk, "promptFeedback"):
            self.meta["promptFeedback"] = _g(chunk, "promptFeedback")
        if _has(chunk, "modelStatus"):
            # the model's stage and retirement time (google.genai.types.ModelStatus: "used to
            # indicate the stage of the underlying model and the retirement time if applicable")
            self.meta["modelStatus"] = _g(chunk, "modelStatus")
        candidates = _opt_list(_g(chunk, "candidates"), "/candidates")
        cand = _obj(candidates[0], "/candidates/0") if candidates else {}
        if len(candidates) > 1 or _g(cand, "index") not in (None, 0):
            # several candidates (candidateCount > 1, refused by the preflight): only the first
            # (index 0) is read, never another candidate's text mixed into it
            first = [c for c in candidates if isinstance(c, dict) and _g(c, "index") in (None, 0)]
            cand = first[0] if first else {}
        content = _opt_obj(_g(cand, "content"), "/candidates/0/content")
        for pi, part in enumerate(_opt_list(content.get("parts"), "/candidates/0/content/parts")):
            events.extend(self._part(part, merge_text, f"/candidates/0/content/parts/{pi}"))
        if self.chunk_calls:
            for key, call_id in self.chunk_calls.items():
                self.earlier_calls.setdefault(key, call_id)
            self.chunk_calls.clear()
        finish = _enum_name(_g(cand, "finishReason"), _FINISH_REASON_NUMBERS, "/candidates/0/finishReason")
        if finish:
            self.finish_reason = finish
        if _has(cand, "finishMessage"):
            self.meta["finishMessage"] = _g(cand, "finishMessage")
        if isinstance(lp := _g(cand, "logprobsResult"), dict):
            # what the responseLogprobs setting asks for (google.genai.types.LogprobsResult): a
            # stream's chunks each carry their own decoding steps, joined in order
            kept = self.meta.setdefault("logprobsResult", {})
            for key, value in lp.items():
                so_far = kept.get(key)
                if isinstance(value, list):
                    kept[key] = [*so_far, *value] if isinstance(so_far, list) else list(value)
                elif isinstance(value, (int, float)) and not isinstance(value, bool) and key == "logProbabilitySum":
                    kept[key] = so_far + value if isinstance(so_far, (int, float)) else value
                elif value is not None:
                    kept[key] = value
        if _has(cand, "continuationToken"):
            # "returned when finish_reason is CONTINUATION": the next request continues the answer
            # with it (google.genai.types.Candidate.continuation_token; GeminiModel does)
            self.meta["continuationToken"] = _g(cand, "continuationToken")
        for field in ("safetyRatings", "citationMetadata", "avgLogprobs"):
            # why an answer was blocked (the harm categories) and what it recited (its sources)
            if _has(cand, field):
                self.meta[field] = _g(cand, field)
        for field in SERVER_TOOL_METADATA:
            if isinstance(_g(cand, field), dict):
                self.tool_meta[field] = _g(cand, field)  # the latest chunk's (a stream repeats or completes it)
        meta = _g(chunk, "usageMetadata")
        if isinstance(meta, dict):
            self.meta["usageMetadata"] = meta
            events.append(UsageUpdate(usage_from_metadata(meta)))
        return events

    def _part(self, part: Any, merge_text: bool, at: str) -> list[StreamEvent]:
        if self.streamed is not None:
            fc = _g(part, "functionCall") if type(part) is dict else None
            if type(fc) is dict and not _g(fc, "name"):
                return self._streamed_piece(part, fc, at)
            # another part (or the next call) begins: the call in pieces has ended
            return [*self._close_streamed(), *self._part(part, merge_text, at)]
        if type(part) is dict and len(part) == 1 and type(part.get("text")) is str:
            # a plain text part (most stream chunks): what _decode_part gives it, without its checks
            text = part["text"]
            if text == "":
                return []  # an empty text part (a stream's closing one) carries nothing, streamed or not
            if not (merge_text and self.run == "text"):
                self.index += 1
            self.run = "text"
            return [TextDelta(self.index, text, None)]
        if not isinstance(part, dict):
            raise _bad(at, "an object", part)
        part = _set_fields(part)
        sig = _S.opt_base64(_g(part, "thoughtSignature"), f"{at}/thoughtSignature")
        if _has(part, "functionCall"):
            fc = _g(part, "functionCall")
            if _is_piece_call(fc):
                assert type(fc) is dict
                # a call in pieces, or one whose only piece is this part (its partialArgs are its
                # arguments; without willContinue it ends here)
                return self._open_streamed(part, fc, sig, at)
            position = self.calls
            call = _decode_part(part, lambda: _synth_id(self._key(part), position), self.schemas, at)
            if not isinstance(call, ToolCall):  # pragma: no cover - _decode_part raised already
                raise _bad(f"{at}/functionCall", "an object", _g(part, "functionCall"))
            self.calls += 1
            self.index += 1
            self.run = None
            # a call arrives whole: started and ended at once. A nameless call starts with name ""
            # (check_tool_calls marks it invalid); arguments that are not an object go as their
            # JSON text so the assembler reports the JSON type.
            name = call.name
            if call.invalid == NAME_INVALID:
                name = ""
                self.bad_names[position] = call.name
            raw_args = _g(part, "functionCall").get("args")
            end_raw = None if call.arguments is not None else _json_text(raw_args)
            return [
                ToolCallStart(self.index, call.id, name, call.id_synthesized, call.provider_data),
                ToolCallEnd(self.index, call.arguments, end_raw, invalid=self._repeat(call)),
            ]
        decoded = _decode_part(part, lambda: "", self.schemas, at)
        if isinstance(decoded, ProviderToolPart):
            self.index += 1
            self.run = None
            return [ProviderToolDone(self.index, decoded)]
        if isinstance(decoded, ReasoningPart):
            if decoded.provider_data:
                self.index += 1
                self.run = None
                return [
                    ReasoningDelta(
                        self.index, decoded.text, signature=sig, provider=API, provider_data=decoded.provider_data
                    )
                ]
            if not (merge_text and self.run == "thought" and sig is None):
                self.index += 1
            self.run = "thought"
            return [ReasoningDelta(self.index, decoded.text, signature=sig, provider=API)]
        if isinstance(decoded, TextPart):
            raw_part = (decoded.provider_data.get(API) or {}).get("part")
            if raw_part is not None:
                self.index += 1
                self.run = None
                return [TextDelta(self.index, decoded.text, decoded.provider_data)]
            if decoded.text == "" and sig is None:
                return []  # an empty text part (a stream's closing one) carries nothing, streamed or not
            if not (merge_text and self.run == "text" and sig is None):
                self.index += 1
            self.run = "text"
            return [TextDelta(self.index, decoded.text, decoded.provider_data or None)]
        if isinstance(decoded, ImagePart):
            # an image the model made arrives whole: kept whole for Gemini (the stream has no image
            # event), left out and reported elsewhere, as any part without a canonical form
            self.index += 1
            self.run = None
            return [ProviderToolDone(self.index, kept_part(part))]
        return []

    def _open_streamed(self, part: dict[str, Any], fc: dict[str, Any], sig: str | None, at: str) -> list[StreamEvent]:
        """The first piece of a call whose arguments are streamed (Vertex AI's
        ``streamFunctionCallArguments``; google.genai.types.FunctionCall.will_continue: "Whether
        this is the last part of the FunctionCall. If true, another partial message for the
        current FunctionCall is expected to follow"): ``{"name", "willContinue": true}`` with an
        optional id and thought signature. The call starts here; its arguments arrive in the
        following parts' ``partialArgs`` (:meth:`_streamed_piece`)."""
        whole = dict(part)
        whole["functionCall"] = {k: v for k, v in fc.items() if k not in _PIECE_FIELDS}
        position = self.calls
        call = _decode_part(whole, lambda: _synth_id(self._key(part), position), self.schemas, at)
        if not isinstance(call, ToolCall):  # pragma: no cover - a functionCall part always decodes to a call
            raise _bad(f"{at}/functionCall", "an object", fc)
        self.calls += 1
        self.index += 1
        self.run = None
        self.streamed = _StreamedCall(call, self.index, call.arguments if isinstance(call.arguments, dict) else {})
        events: list[StreamEvent] = [
            ToolCallStart(self.index, call.id, call.name, call.id_synthesized, call.provider_data)
        ]
        # its pieces, if it carries any, and whether it goes on (read as the later pieces are)
        events.extend(self._streamed_piece(part, {k: v for k, v in fc.items() if k != "name"}, at))
        return events

    def _streamed_piece(self, part: dict[str, Any], fc: dict[str, Any], at: str) -> list[StreamEvent]:
        """A later piece of the call in pieces: its ``partialArgs`` (``PartialArg``: a
        ``jsonPath`` such as ``$.items[0].name`` and one of ``stringValue`` / ``numberValue`` /
        ``boolValue`` / ``nullValue``; a string whose ``willContinue`` is true goes on in the next
        piece for the same path and is joined) are set into the arguments. A piece whose
        ``willContinue`` is not true ends the call (the recorded streams end one with
        ``{"functionCall": {}}`` or with a last ``partialArgs`` piece). A path or value that cannot
        be read leaves the call marked invalid (answered, never run)."""
        s = self.streamed
        assert s is not None
        sig = _g(part, "thoughtSignature")
        if isinstance(sig, str) and sig and "thoughtSignature" not in (s.call.provider_data.get(API) or {}):
            _S.opt_base64(sig, f"{at}/thoughtSignature")
            s.call.provider_data.setdefault(API, {})["thoughtSignature"] = sig
        more, flag_problem = _will_continue(fc)
        if flag_problem is not None and s.problem is None:
            s.problem = f"its streamed part {at}/functionCall {flag_problem}"
        pieces = _g(fc, "partialArgs")
        if pieces is not None and s.problem is None:
            if not isinstance(pieces, list):
                s.problem = f"its streamed partialArgs is a JSON {_json_kind(pieces)}, not an array"
            else:
                for k, piece in enumerate(pieces):
                    problem = s.apply(piece)
                    if problem is not None:
                        s.problem = f"its streamed argument {at}/functionCall/partialArgs/{k} {problem}"
                        break
        if more:
            return []
        return self._close_streamed()

    def _close_streamed(self, cut_off: bool = False) -> list[StreamEvent]:
        s, self.streamed = self.streamed, None
        if s is None:
            return []
        call = s.call
        if s.problem is not None:
            return [
                ToolCallEnd(s.index, None, None, invalid=f"the call's arguments could not be assembled: {s.problem}")
            ]
        args = s.args
        if call.invalid is None:
            args = coerce_arguments(self.schemas.get(call.name), args)
        if cut_off:
            return [ToolCallEnd(s.index, args, None, incomplete=True)]
        # (no repeat check: the pieces delimit each call, so two equal calls in pieces are two calls)
        return [ToolCallEnd(s.index, args, None)]

    def _repeat(self, call: ToolCall) -> str | None:
        """Why ``call`` is not run when it repeats a call of an earlier chunk, else ``None``.

        In Gemini streams (``GenerateContentResponse`` chunks of ``generate_content_stream``)
        each ``functionCall`` part comes whole inside one chunk and each chunk's parts are new
        increments (what the recorded streams show); ``FunctionCall.id`` is optional ("the unique id of the
        function call. If populated, the client to execute the ``function_call`` and return the
        response with the matching ``id``", google.genai.types.FunctionCall). A call without an
        id whose name and arguments equal those of a call an *earlier chunk* delivered is either
        a repeat (a degenerate generation streaming "the same complete function call once per
        chunk", kcaldas/genie#12; a proxy re-sending a chunk) or a second call the model meant
        (models also send parallel calls each in a chunk of its own). Nothing in the stream
        tells them apart, so the repeat is not run (a call run twice does its side effect twice)
        but answered: the model learns that the earlier call was run and can call again. Calls
        in one chunk (parallel calls come together: the recorded streams) and calls the vendor
        gave ids are distinct and all run."""
        if not call.id_synthesized or call.invalid is not None or call.arguments is None:
            return None
        key = (call.name, json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str))
        first = self.earlier_calls.get(key)
        if first is None:
            self.chunk_calls.setdefault(key, call.id)
            return None
        return (
            f"it repeats the call {first} that an earlier chunk of this streamed response delivered with the "
            "same tool and input and no call id; that call is the one answered, this repeat was not run (the "
            "stream may have sent it twice)"
        )

    @_guarded("a Gemini response stream")
    def finish(self, whole_body: bool = False) -> list[StreamEvent]:
        """The closing :class:`StopEvent`. A stream (``whole_body=False``) that never carried a
        ``finishReason`` was cut off: ``"error"`` with ``vendor_stop_reason=None`` unless the
        prompt was blocked. A whole (non-streamed) body without one maps by its parts."""
        cut_off = self.finish_reason is None and not whole_body
        s = self.streamed
        if s is not None and not cut_off and s.problem is None and self.finish_reason != "MAX_TOKENS":
            # the answer ended while its last piece said more was to follow
            # (google.genai.types.FunctionCall.will_continue: "If true, another partial message
            # for the current FunctionCall is expected to follow"): the arguments are cut short.
            # (MAX_TOKENS marks the call cut off by the token limit, as any call there.)
            s.problem = (
                "the answer ended while the call was still arriving in pieces (its last piece said "
                "willContinue: more was to follow), so its arguments are incomplete"
            )
        pieces = self._close_streamed(cut_off=cut_off)
        stop = map_finish_reason(self.finish_reason, self.calls > 0)
        if self.finish_reason is None and not whole_body:
            stop = "error"
        vendor = self.finish_reason
        if self.finish_reason is None and isinstance(self.meta.get("promptFeedback"), dict):
            # either spelling, as finishReason is read (_g): the google-genai SDK's dump of its
            # GenerateContentResponsePromptFeedback writes ``block_reason``
            block = _enum_name(
                _g(self.meta["promptFeedback"], "blockReason"), _BLOCK_REASON_NUMBERS, "/promptFeedback/blockReason"
            )
            if block:
                stop, vendor = "refusal", f"blockReason:{block}"
        pd = {k: v for k, v in self.meta.items()}
        out: list[StreamEvent] = pieces
        for field, meta in self.tool_meta.items():
            self.index += 1
            out.append(ProviderToolDone(self.index, server_tool_metadata_part(field, meta)))
        return [*out, StopEvent(stop, vendor, {API: pd})]
