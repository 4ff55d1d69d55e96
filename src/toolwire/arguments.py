"""Parsing of tool-call argument text, shared by every adapter that receives text.

OpenAI sends ``arguments`` as a JSON *string* that "may not be valid JSON"; Anthropic streams
``input_json_delta.partial_json`` fragments. Both end here.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_arguments", "EMPTY_ARGUMENT_TEXTS", "dumps_arguments"]

#: Argument texts that mean "no arguments": an empty buffer (Anthropic streams a lone ``""``
#: for a zero-parameter tool), JSON ``null`` and ``{}``.
EMPTY_ARGUMENT_TEXTS = frozenset({"", "null", "{}"})


class _NonStandardNumber(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonStandardNumber(name)


def parse_arguments(raw: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Parse argument text into ``(arguments, invalid_reason)``.

    Returns ``({}, None)`` for ``None``, ``""``, ``"null"`` and ``"{}"`` (surrounding white space
    ignored), ``(dict, None)`` for a JSON object, and ``(None, reason)`` otherwise, where the reason
    quotes the parse error with its line/column/character position, or names the JSON type that
    was sent instead of an object. Never raises.
    """
    if raw is None:
        return {}, None
    text = raw.strip()
    if text in EMPTY_ARGUMENT_TEXTS:
        return {}, None
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
    except _NonStandardNumber as exc:
        return None, f"arguments are not valid JSON: {exc} is not a JSON number (JSON has no NaN or Infinity)"
    except json.JSONDecodeError as exc:
        return None, (
            f"arguments are not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}, "
            f"character {exc.pos} of {len(raw)})"
        )
    if not isinstance(value, dict):
        kind = type(value).__name__
        kind = {"list": "array", "str": "string", "int": "number", "float": "number", "bool": "boolean"}.get(kind, kind)
        return None, f"arguments must be a JSON object, got a JSON {kind}"
    return value, None


def dumps_arguments(arguments: dict[str, Any] | None) -> str:
    """Arguments as compact JSON text with literal UTF-8 (``ensure_ascii=False``).

    ``None`` (an invalid call) is sent as ``{}``, never as the string ``"null"``.
    """
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False, separators=(",", ":"))
