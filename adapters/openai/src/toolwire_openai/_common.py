"""Helpers shared by the Chat Completions and Responses codecs (pure functions, no I/O)."""

from __future__ import annotations

import copy
from typing import Any

from toolwire.arguments import EMPTY_ARGUMENT_TEXTS, dumps_arguments, parse_arguments
from toolwire.errors import ProviderError
from toolwire.schema.report import TranslationReport
from toolwire.schema.strict import make_strict
from toolwire.tools import Tool
from toolwire.types import ToolCall, ToolResult

#: Prefix of an error tool result on the OpenAI APIs, which have no error flag (case B22).
ERROR_PREFIX = "Error: "


def arguments_text(call: ToolCall) -> str:
    """The ``arguments`` string to re-send for ``call``.

    The raw text the model produced is re-sent unchanged when it is a valid arguments object
    that still equals ``call.arguments`` (byte-exact replay, case B23: literal UTF-8 stays
    literal). Otherwise — an invalid call, arguments changed since decoding, or an empty form
    (``""``/``"null"``) — :func:`toolwire.arguments.dumps_arguments` is used, which writes
    ``"{}"`` for ``None`` and never ``"null"`` (case B08) and keeps non-ASCII text literal.
    """
    raw = call.raw_arguments
    if raw is not None and call.invalid is None and raw.strip() not in EMPTY_ARGUMENT_TEXTS - {"{}"}:
        parsed, invalid = parse_arguments(raw)
        if invalid is None and parsed == call.arguments:
            return raw
    return dumps_arguments(call.arguments if call.invalid is None else None)


def error_text(text: str) -> str:
    """``"Error: <text>"`` (not doubled when the text already starts with ``Error:``)."""
    return text if text.startswith("Error:") else ERROR_PREFIX + text


def mark_error(result: ToolResult) -> ToolResult:
    """Read an imported result back: text starting ``"Error: "`` (what :func:`error_text` writes)
    → ``is_error=True`` with the prefix removed, so the error survives a switch to a vendor with
    an error flag and re-encoding gives the same text."""
    if isinstance(result.content, str):
        if result.content.startswith(ERROR_PREFIX):
            result.content = result.content[len(ERROR_PREFIX):]
            result.is_error = True
    elif result.content and getattr(result.content[0], "type", None) == "text" and result.content[0].text.startswith(ERROR_PREFIX):
        result.content[0].text = result.content[0].text[len(ERROR_PREFIX):]
        result.is_error = True
    return result


def result_text_parts(result: ToolResult) -> list[str]:
    """The text pieces of a result, with the ``Error: `` prefix on the first one when it is an
    error result (an empty error result still says ``Error:``)."""
    if isinstance(result.content, str):
        texts = [result.content]
    else:
        texts = [p.text for p in result.content if getattr(p, "type", None) == "text"]
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
        decl[key] = copy.deepcopy(value)
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


def strict_parameters(tool: Tool, api: str) -> tuple[dict[str, Any], bool | None, TranslationReport]:
    """``(parameters, strict_flag, report)`` for a tool: with ``tool.strict`` True the schema goes
    through :func:`toolwire.schema.strict.make_strict`; when it cannot be strict the original
    schema is sent with ``strict: false`` (never an invalid strict schema) and the report says
    why (``strict_possible=False``)."""
    if tool.strict is True:
        strict_schema, report = make_strict(tool.input_schema, api=api, tool=tool.name)
        if strict_schema is not None:
            return strict_schema, True, report
        return copy.deepcopy(tool.input_schema), False, report
    return copy.deepcopy(tool.input_schema), tool.strict, TranslationReport(api=api, tool=tool.name)


def usage_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def provider_error_from_sdk(exc: BaseException, api: str) -> ProviderError:
    """An ``openai`` SDK exception → :class:`ProviderError` (``provider=api``).

    - ``APIStatusError``: ``status`` = HTTP status; ``message`` = the vendor's ``error.message``;
      ``error_type`` = ``error.type`` or else ``error.code`` (e.g. ``invalid_request_error``,
      ``rate_limit_exceeded``); ``body`` = the decoded error body; ``retryable`` follows an
      ``x-should-retry`` header when sent, else 408/409/429/5xx.
    - ``APITimeoutError`` / ``APIConnectionError``: ``status=None``, ``retryable=True``,
      ``error_type`` ``"timeout"`` / ``"connection_error"``.
    - Any other ``APIError`` (e.g. an ``error`` object inside a stream): ``status=None``, not
      retryable, the vendor message and body kept.
    """
    import openai

    if isinstance(exc, openai.APIStatusError):
        body = exc.body
        err = body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), dict) else body
        message = exc.message
        etype = None
        if isinstance(err, dict):
            message = err.get("message") or message
            etype = err.get("type") or err.get("code")
        status = exc.status_code
        should = (exc.response.headers.get("x-should-retry") or "").lower()
        retryable = {"true": True, "false": False}.get(should, ProviderError.is_retryable_status(status))
        return ProviderError(api, str(message), status=status, retryable=retryable, error_type=etype, body=body)
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError(api, exc.message or "request timed out", status=None, retryable=True, error_type="timeout")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        detail = f"{exc.message} ({type(cause).__name__}: {cause})" if cause else exc.message
        return ProviderError(api, detail, status=None, retryable=True, error_type="connection_error")
    if isinstance(exc, openai.APIError):
        body = exc.body
        etype = None
        if isinstance(body, dict):
            etype = body.get("type") or body.get("code")
        return ProviderError(api, exc.message, status=None, retryable=False, error_type=etype, body=body)
    return ProviderError(api, f"{type(exc).__name__}: {exc}", status=None, retryable=False)
