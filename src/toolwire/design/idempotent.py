"""Idempotent writes: mark tools whose effect must not happen twice.

A model that does not see a tool result (a lost stream, a retried turn, a confused plan) calls
the same write again. For a tool marked non-repeatable (``tool.meta["non_repeatable"] = True``)
the loop's executor answers a repeated identical call in the same run (same tool name and the
same canonical arguments, :func:`call_key`) with the first call's result and a note, instead of
running the function twice. Reads and commands are never deduplicated: running a report again
after an edit must really run it. A call that failed may be retried; one that timed out is not
(it may have made its change anyway), so an identical call after it is answered with an error
saying so.

A marked tool may also declare a parameter annotated :class:`~toolwire.context.ToolContext`;
the loop injects it (it is not part of the input schema) and its ``idempotency_key``
(``"<run_id>:<tool_call_id>"``) can be passed to an external API that accepts one, so a request
retried at the HTTP level is not applied twice either.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from ..tools import Tool

__all__ = ["non_repeatable", "write_once", "is_non_repeatable", "call_key", "REPEAT_NOTE"]

#: A note for tools that dedupe writes themselves (the loop's executor writes its own note when it
#: returns the first result of an identical non-repeatable call).
REPEAT_NOTE = (
    "[Not run again: this exact call already ran earlier in this run (tool call {first_id}); "
    "its result is repeated above. Change the arguments to make a different change.]"
)


def non_repeatable(target: Any = None) -> Any:
    """Mark a tool as a non-repeatable write. Use above ``@tool`` (or on a plain function,
    which becomes a :class:`Tool`); sets ``tool.meta["non_repeatable"] = True`` and returns
    the tool."""

    def apply(t: Any) -> Tool:
        tool_obj = t if isinstance(t, Tool) else Tool.from_function(t)
        tool_obj.meta["non_repeatable"] = True
        return tool_obj

    if target is None:
        return apply
    return apply(target)


#: Alias of :func:`non_repeatable`.
write_once: Callable[..., Any] = non_repeatable


def is_non_repeatable(tool: Tool) -> bool:
    """``True`` when ``tool.meta["non_repeatable"]`` is truthy."""
    return bool(tool.meta.get("non_repeatable"))


def same_call_arguments(schema: Any, arguments: dict[str, Any], null_defaults: Any = ()) -> dict[str, Any]:
    """``arguments`` as the identity of a call sees them: a top-level property the call left out
    takes the input schema's ``default`` (``{"title": "A"}`` and ``{"title": "A", "priority": 1}``
    mean the same call when ``priority`` defaults to 1), an explicit ``null`` of an optional
    property whose default is null (in the schema, or the function's ``None`` default named in
    ``null_defaults``) is the same as leaving it out (with no default, null and left out are two
    different actions: "clear it" and "keep it"), a stringified enum value is
    the value (``"2"`` and ``2`` for an integer enum), and a whole-valued float is its integer
    (``1.0`` and ``1`` are one number). Nested values deeper than 64 levels are kept as given."""
    from ..schema.coerce import coerce_arguments

    coerced = coerce_arguments(schema, arguments) if isinstance(schema, dict) else arguments
    out = dict(coerced) if isinstance(coerced, dict) else dict(arguments)
    props = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(props, dict):
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        for prop, spec in props.items():
            if (
                prop in out
                and out[prop] is None
                and prop not in required
                and isinstance(spec, dict)
                and (("default" in spec and spec["default"] is None) or prop in null_defaults)
            ):
                del out[prop]  # an explicit null of an optional property whose default is null: not given
            if prop not in out and isinstance(spec, dict) and "default" in spec and spec["default"] is not None:
                out[prop] = spec["default"]

    def norm(v: Any, depth: int) -> Any:
        if type(v) is float and v.is_integer() and abs(v) < 2**53:
            return int(v)
        if depth >= 64:
            return v
        if type(v) is dict:
            return {k: norm(x, depth + 1) for k, x in v.items()}
        if type(v) is list:
            return [norm(x, depth + 1) for x in v]
        return v

    return norm(out, 0)


def call_key(name: str, arguments: dict[str, Any]) -> str:
    """The canonical identity of a call: ``name`` + the arguments as JSON with sorted keys and
    no whitespace (so ``{"a":1,"b":2}`` and ``{"b":2,"a":1}`` are the same call). Values JSON
    cannot hold are rendered with ``repr``."""
    return (
        name + "\x00" + json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    )
