"""Bringing decoded tool-call arguments back to the types of the canonical input schema.

Two vendor habits make arguments differ from what the schema says although the model meant the
right value (vendor-neutral here; adapters call :func:`coerce_arguments` when decoding):

1. **Integers as floats**. Gemini carries ``args`` in a protobuf ``Struct``, whose
   numbers are all doubles, so ``3`` can arrive as ``3.0``. Where the canonical schema says
   ``integer`` (and not also ``number``), a float with an integral value becomes an ``int``.
   ``3.0`` under ``number`` stays a float; ``3.5`` under ``integer`` stays ``3.5`` so validation
   rejects it and names the argument.
2. **Stringified enum values.** A dialect that only allows string enums (Gemini's OpenAPI
   ``Schema``) gets ``enum: ["1", "2"]`` for ``enum: [1, 2]``; the model answers ``"2"``.
   Where the value is a string that is not itself an allowed value but equals the string form
   (:func:`enum_string`) of exactly one allowed value, it becomes that value. ``const`` likewise.
   Under ``anyOf``/``oneOf`` the value is read through the first branch that takes it: whose
   ``enum``/``const`` holds it, whose type fits, and (for an object) whose ``const``/``enum``
   properties (a discriminator such as ``kind``) hold the values the object carries.

Nothing else is changed: wrong types stay wrong so that validation reports them.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["coerce_arguments", "enum_string", "may_coerce"]

_MAX_DEPTH = 64


def enum_string(value: Any) -> str:
    """The string form of an enum value in a string-only enum dialect.

    Strings stay as they are; ``True``/``False``/``None`` become ``"true"``/``"false"``/``"null"``;
    numbers and other JSON values become their compact JSON text (``1`` → ``"1"``, ``2.5`` →
    ``"2.5"``, ``[1]`` → ``"[1]"``), with literal UTF-8.
    """
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def coerce_arguments(schema: dict[str, Any] | None, arguments: Any) -> Any:
    """Return ``arguments`` with integral floats turned into ``int`` and stringified enum values
    turned back into the canonical enum values, wherever ``schema`` (the canonical input schema,
    JSON Schema Draft 2020-12, local ``$ref``s followed) asks for them.

    ``arguments`` is not modified; a new object is returned (the same object when nothing
    changed is not guaranteed). ``None`` or a non-dict schema returns ``arguments`` unchanged.
    Never raises on odd input: what cannot be coerced is left for validation to report.
    """
    if not isinstance(schema, dict):
        return arguments
    if type(arguments) is dict:
        # a flat object with no float (nothing to make an integer) under a schema with no
        # non-string enum / const (no stringified value to turn back): the walk would only copy it
        for v in arguments.values():
            t = type(v)
            if not (t is str or t is int or t is bool or v is None):
                break
        else:
            if not may_coerce(schema, False):
                return dict(arguments)
    return _coerce(schema, arguments, schema, 0, ())


def may_coerce(schema: Any, has_float: bool) -> bool:
    """``False`` when :func:`coerce_arguments` is sure to leave arguments as they are: they hold
    no float (``has_float``: nothing to turn into an integer) and ``schema`` has no ``enum`` or
    ``const`` with a value that is not a string (no stringified value to turn back). The
    schema's answer is derived once per schema (and again when it changes)."""
    if has_float:
        return True
    if not isinstance(schema, dict):
        return False
    global _schema_derived
    if _schema_derived is None:
        from .._derived import schema_derived

        _schema_derived = schema_derived
    return bool(_schema_derived(schema, "coerce-enum", lambda: _non_string_enum(schema, 0)))


_schema_derived: Any = None


def _non_string_enum(node: Any, depth: int) -> bool:
    """Whether an ``enum`` / ``const`` anywhere in ``node`` allows a value that is not a string
    (conservative: any key of that name, at any depth, counts)."""
    if depth > _MAX_DEPTH:
        return True
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "enum" and isinstance(v, list) and any(not isinstance(e, str) for e in v):
                return True
            if k == "const" and not isinstance(v, str):
                return True
            if isinstance(v, (dict, list)) and _non_string_enum(v, depth + 1):
                return True
        return False
    if isinstance(node, list):
        return any(isinstance(v, (dict, list)) and _non_string_enum(v, depth + 1) for v in node)
    return False


def _types(node: dict[str, Any]) -> set[str]:
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return set()


def _resolve(root: dict[str, Any], node: Any, seen: tuple[str, ...]) -> tuple[Any, tuple[str, ...]]:
    from .refs import resolve_pointer

    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        if ref in seen:
            return {k: v for k, v in node.items() if k != "$ref"}, seen
        try:
            target, _ = resolve_pointer(root, ref)
        except Exception:
            return {k: v for k, v in node.items() if k != "$ref"}, seen
        seen = seen + (ref,)
        if isinstance(target, dict):
            merged = dict(target)
            merged.update({k: v for k, v in node.items() if k != "$ref"})
            node = merged
        else:
            return {k: v for k, v in node.items() if k != "$ref"}, seen
    return node, seen


def _same(value: Any, option: Any) -> bool:
    """JSON equality: ``1 == 1.0`` (one number), ``True != 1`` and ``"1" != 1`` (other types)."""
    if isinstance(value, bool) or isinstance(option, bool):
        return type(value) is type(option) and value == option
    if isinstance(value, (int, float)) and isinstance(option, (int, float)):
        return value == option
    return value == option and type(value) is type(option)


def _accepts(node: dict[str, Any], value: Any, root: dict[str, Any] | None = None) -> bool:
    """A cheap check used to pick an ``anyOf``/``oneOf`` branch: the branch's ``enum`` /
    ``const`` holds the value (whatever its ``type`` says), its type takes it, and for an object
    the properties the value carries that the branch fixes with a ``const`` / ``enum`` (a
    discriminator such as ``kind``) hold their values."""
    if isinstance(node.get("enum"), list) and not any(_same(value, e) for e in node["enum"]):
        return False
    if "const" in node and not _same(value, node["const"]):
        return False
    if isinstance(value, dict) and isinstance(node.get("properties"), dict):
        for key, sub in node["properties"].items():
            if key not in value:
                continue
            sub, _ = _resolve(root, sub, ()) if root is not None else (sub, ())
            if not isinstance(sub, dict):
                continue
            if isinstance(sub.get("enum"), list) and not any(_same(value[key], e) for e in sub["enum"]):
                return False
            if "const" in sub and not _same(value[key], sub["const"]):
                return False
    types = _types(node)
    if not types:
        return True
    checks = {
        "null": value is None,
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "string": isinstance(value, str),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }
    return any(checks.get(t, False) for t in types)


def _from_enum(options: list[Any], value: str) -> tuple[bool, Any]:
    if any(value == o and isinstance(o, str) for o in options):
        return False, value
    matches = [o for o in options if not isinstance(o, str) and enum_string(o) == value]
    if len(matches) == 1:
        return True, matches[0]
    return False, value


def _coerce(node: Any, value: Any, root: dict[str, Any], depth: int, seen: tuple[str, ...]) -> Any:
    if depth > _MAX_DEPTH or not isinstance(node, dict):
        return value
    node, seen = _resolve(root, node, seen)
    if not isinstance(node, dict):
        return value

    # enum / const: stringified values back to the canonical ones
    if isinstance(value, str):
        if isinstance(node.get("enum"), list):
            changed, new = _from_enum(node["enum"], value)
            if changed:
                return new
        if "const" in node and not isinstance(node["const"], str) and enum_string(node["const"]) == value:
            return node["const"]

    types = _types(node)
    if isinstance(value, float) and "integer" in types and "number" not in types:
        if math.isfinite(value) and value.is_integer():
            value = int(value)

    # combinators
    for key in ("allOf",):
        if isinstance(node.get(key), list):
            for sub in node[key]:
                value = _coerce(sub, value, root, depth + 1, seen)
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list) and branches:
            for sub in branches:
                resolved, sub_seen = _resolve(root, sub, seen)
                if not isinstance(resolved, dict):
                    continue
                candidate = _coerce(resolved, value, root, depth + 1, sub_seen)
                if _accepts(resolved, candidate, root):
                    value = candidate
                    break

    if isinstance(value, dict):
        props = p if isinstance(p := node.get("properties"), dict) else {}
        additional = node.get("additionalProperties")
        pattern_props = pp if isinstance(pp := node.get("patternProperties"), dict) else {}
        out: dict[str, Any] = {}
        for k, v in value.items():
            if k in props:
                out[k] = _coerce(props[k], v, root, depth + 1, seen)
                continue
            matched = False
            if pattern_props:
                import re

                for pattern, sub in pattern_props.items():
                    try:
                        if re.search(pattern, k):
                            v = _coerce(sub, v, root, depth + 1, seen)
                            matched = True
                    except re.error:
                        continue
            if not matched and isinstance(additional, dict):
                v = _coerce(additional, v, root, depth + 1, seen)
            out[k] = v
        return out
    if isinstance(value, list):
        items = node.get("items")
        prefix = pi if isinstance(pi := node.get("prefixItems"), list) else []
        out_list = []
        for i, v in enumerate(value):
            if i < len(prefix):
                out_list.append(_coerce(prefix[i], v, root, depth + 1, seen))
            elif isinstance(items, dict):
                out_list.append(_coerce(items, v, root, depth + 1, seen))
            elif isinstance(items, list) and i < len(items):  # Draft 4-7 tuple form
                out_list.append(_coerce(items[i], v, root, depth + 1, seen))
            else:
                out_list.append(v)
        return out_list
    return value
