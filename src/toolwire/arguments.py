"""Parsing of tool-call argument text, shared by every adapter that receives text.

OpenAI sends ``arguments`` as a JSON *string* that "may not be valid JSON"; Anthropic streams
``input_json_delta.partial_json`` fragments. Both end here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = [
    "parse_arguments",
    "EMPTY_ARGUMENT_TEXTS",
    "dumps_arguments",
    "MAX_ARGUMENT_DEPTH",
    "MAX_ARGUMENT_CHARS",
    "argument_bounds",
]

#: Deepest nesting of arrays and objects accepted in tool-call arguments (the arguments object
#: itself is level 1). Deeper arguments are refused before any tool of the turn runs.
MAX_ARGUMENT_DEPTH = 64
#: Longest argument text accepted, in characters.
MAX_ARGUMENT_CHARS = 10_000_000

_JSON_TOKENS = re.compile(r'["\\\[\]{}]')

#: Argument texts that mean "no arguments": an empty buffer (Anthropic streams a lone ``""``
#: for a zero-parameter tool), JSON ``null`` and ``{}``.
EMPTY_ARGUMENT_TEXTS = frozenset({"", "null", "{}"})


class _NonStandardNumber(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonStandardNumber(name)


class _OverflowingNumber(ValueError):
    pass


def _finite_float(text: str) -> float:
    """A JSON number literal as a float, refusing one a 64-bit float cannot hold (``1e999``
    parses to infinity, which no JSON body can carry back to the vendor)."""
    value = float(text)
    if value - value != 0.0:  # inf - inf is NaN
        raise _OverflowingNumber(text)
    return value


def overflow_reason(literal: str) -> str:
    """The ``invalid`` reason for arguments holding a number a 64-bit float cannot hold."""
    return (
        f"arguments hold the number {literal[:40]}, which is too large for a 64-bit float (it would "
        "become infinity, which JSON cannot carry): send a finite number"
    )


#: ``json.loads(text, parse_constant=_reject_constant)`` builds a decoder per call; this one is
#: built once (its ``raw_decode`` is the public entry point ``loads`` ends in)
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


def parse_arguments(raw: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Parse argument text into ``(arguments, invalid_reason)``.

    Returns ``({}, None)`` for ``None``, ``""``, ``"null"`` and ``"{}"`` (surrounding white space
    ignored), ``(dict, None)`` for a JSON object, and ``(None, reason)`` otherwise, where the reason
    quotes the parse error with its line/column/character position, names the JSON type that
    was sent instead of an object, or names the bound exceeded (:data:`MAX_ARGUMENT_CHARS`
    characters, :data:`MAX_ARGUMENT_DEPTH` levels of nesting — checked on the text before it is
    parsed, so no nesting depth can raise ``RecursionError``). Never raises.
    """
    if raw is None:
        return {}, None
    text = raw.strip()
    if text in EMPTY_ARGUMENT_TEXTS:
        return {}, None
    size = len(raw)
    if size > MAX_ARGUMENT_CHARS:
        return None, (
            f"arguments are {size:,} characters long, more than the bound of {MAX_ARGUMENT_CHARS:,} "
            "(MAX_ARGUMENT_CHARS)"
        )
    # the nesting cannot exceed the number of opening brackets: a short text (or one with few
    # brackets) needs no walk
    if may_nest_past(raw, MAX_ARGUMENT_DEPTH):
        depth = _text_depth(raw, MAX_ARGUMENT_DEPTH)
        if depth > MAX_ARGUMENT_DEPTH:
            return None, _depth_reason()
    value: Any = _MISSING
    if text is raw:  # no white space around it: decoded in one step (an error: decoded again below)
        try:
            value, end = _DECODER.raw_decode(raw)
        except (ValueError, RecursionError):
            value = _MISSING
        else:
            if end != size:  # "Extra data": worded by json.loads below
                value = _MISSING
    try:
        if value is _MISSING:
            value = json.loads(raw, parse_constant=_reject_constant, parse_float=_finite_float)
    except _NonStandardNumber as exc:
        return None, f"arguments are not valid JSON: {exc} is not a JSON number (JSON has no NaN or Infinity)"
    except _OverflowingNumber as exc:
        return None, overflow_reason(str(exc))
    except json.JSONDecodeError as exc:
        return None, (
            f"arguments are not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}, "
            f"character {exc.pos} of {len(raw)})"
        )
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more digits than Python converts
        return None, f"arguments cannot be read: {str(exc)[:200]}; send smaller numbers"
    if "\\u" in raw:  # a lone surrogate escape cannot be sent back in UTF-8: U+FFFD, as for answers
        from .transport import repair_surrogates

        value = repair_surrogates(value, raw)
    if type(value) is not dict and not isinstance(value, dict):
        kind = type(value).__name__
        kind = {"list": "array", "str": "string", "int": "number", "float": "number", "bool": "boolean"}.get(kind, kind)
        return None, f"arguments must be a JSON object, got a JSON {kind}"
    return value, None


_MISSING: Any = object()


def dumps_arguments(arguments: dict[str, Any] | None, *, finite: bool = False) -> str:
    """Arguments as compact JSON text with literal UTF-8 (``ensure_ascii=False``).

    ``None`` (an invalid call) is sent as ``{}``, never as the string ``"null"``. Raises
    :class:`~toolwire.errors.ConfigurationError` when JSON cannot carry a value (``bytes``, a
    tuple key, a cycle: a tool call built by hand or edited), and with ``finite=True`` (text to
    be sent to a vendor) also for a NaN or infinity, which json would write as a bare ``NaN`` /
    ``Infinity`` literal that is not JSON. Without it such a number is written as that literal,
    so that a model's call decoded from it stays an invalid call with its reason.
    """
    try:
        return json.dumps(
            arguments if arguments is not None else {}, ensure_ascii=False, separators=(",", ":"), allow_nan=not finite
        )
    except (TypeError, ValueError) as exc:
        from .errors import ConfigurationError

        raise ConfigurationError(
            f"tool call arguments hold a value JSON cannot carry ({type(exc).__name__}: {exc}); give the "
            "ToolCall's arguments only JSON values (str, int, finite float, bool, None, lists, dicts with string keys), "
            "e.g. bytes as base64 text"
        ) from exc


def _depth_reason() -> str:
    return (
        f"arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels of arrays and objects, the bound (MAX_ARGUMENT_DEPTH)"
    )


def json_brackets(text: str) -> Iterator[tuple[int, str]]:
    """The ``[``, ``]``, ``{`` and ``}`` of JSON ``text`` that stand outside strings, as
    ``(index, bracket)`` in order (a bracket, quote or backslash inside a string does not count);
    when the text ends inside a string, a last ``(len(text), '"')``. Linear in the number of
    brackets, quotes and backslashes; no recursion."""
    in_string = False
    skip = -1
    for m in _JSON_TOKENS.finditer(text):
        i = m.start()
        if i == skip:
            continue
        ch = text[i]
        if in_string:
            if ch == "\\":
                skip = i + 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        else:
            yield i, ch
    if in_string:
        yield len(text), '"'


def may_nest_past(text: str, bound: int) -> bool:
    """``False`` when ``text`` holds too few opening brackets to nest deeper than ``bound`` levels
    (the usual text: no walk needed); a text of at most ``bound`` characters is not scanned."""
    return len(text) > bound and text.count("{") + text.count("[") > bound


def _text_depth(text: str, stop: int) -> int:
    """Deepest ``[``/``{`` nesting of JSON ``text`` outside strings, counting stopped once past
    ``stop``."""
    depth = deepest = 0
    for _, ch in json_brackets(text):
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop:
                    return deepest
        elif ch != '"':
            depth -= 1
    return deepest


def argument_bounds(arguments: Any) -> str | None:
    """``None`` when parsed ``arguments`` nest at most :data:`MAX_ARGUMENT_DEPTH` levels, else
    the reason (naming the bound) to answer the tool call with. Iterative: any depth is safe."""
    stack: list[tuple[Any, int]] = [(arguments, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        else:
            continue
        if depth > MAX_ARGUMENT_DEPTH:
            return _depth_reason()
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list, tuple)))
    return None
