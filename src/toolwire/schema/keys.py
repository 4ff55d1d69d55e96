"""Property keys a vendor refuses in an input schema, renamed on the wire and mapped back.

Anthropic accepts only property keys matching ``^[a-zA-Z0-9_.-]{1,64}$`` (API error
"tools.N.custom.input_schema.properties: Property keys should match pattern
'^[a-zA-Z0-9_.-]{1,64}$'"), while JSON Schema, MCP servers (``filter[id]``, ``$top``,
``@odata.type``) and Python (``città``) allow any string. An adapter that must rename sends
:func:`rename_schema_keys`'s schema; the model then answers with the renamed keys, and
:func:`unwire_arguments` (which the loop applies before validating a tool's arguments) maps them
back to the schema's own names, so the function receives the names it declared.

The renaming is a pure function of one ``properties`` object's keys (:func:`wire_keys`), so the
mapping back needs no state: it is computed again from the tool's own input schema.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from .report import TranslationReport, json_pointer

__all__ = ["KEY_PATTERN", "key_ok", "wire_keys", "has_refused_keys", "rename_schema_keys", "unwire_arguments"]

#: The property keys every vendor accepts (Anthropic's pattern, the strictest).
KEY_PATTERN = re.compile(r"[a-zA-Z0-9_.-]{1,64}")
_NOT_KEY = re.compile(r"[^a-zA-Z0-9_.-]")
_MAX = 64
#: Schema keywords whose value is a schema, a list of schemas or a map of schemas.
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAPS = ("$defs", "definitions", "patternProperties", "dependentSchemas")


def key_ok(key: Any) -> bool:
    """Whether ``key`` matches :data:`KEY_PATTERN`."""
    return isinstance(key, str) and KEY_PATTERN.fullmatch(key) is not None


def wire_keys(keys: Iterable[Any]) -> dict[str, str]:
    """``{key: wire key}`` for the keys of one ``properties`` object that :data:`KEY_PATTERN`
    refuses (the others are absent): each character outside the pattern becomes ``_``, the
    result is cut to 64 characters, and a name already taken gets ``_2``, ``_3``, ... The same
    keys always give the same names."""
    keys = [k for k in keys if isinstance(k, str)]
    taken = {k for k in keys if key_ok(k)}
    out: dict[str, str] = {}
    for k in keys:
        if k in taken:
            continue
        base = _NOT_KEY.sub("_", k)[:_MAX] or "_"
        name, n = base, 2
        while name in taken:
            suffix = f"_{n}"
            name, n = base[: _MAX - len(suffix)] + suffix, n + 1
        taken.add(name)
        out[k] = name
    return out


def _children(node: dict[str, Any]) -> Iterable[tuple[tuple[Any, ...], Any]]:
    props = node.get("properties")
    if isinstance(props, dict):
        for k, sub in props.items():
            yield ("properties", k), sub
    for key in _ONE:
        if isinstance(node.get(key), dict):
            yield (key,), node[key]
    for key in _MANY:
        if isinstance(node.get(key), list):
            for i, sub in enumerate(node[key]):
                yield (key, i), sub
    for key in _MAPS:
        if isinstance(node.get(key), dict):
            for k, sub in node[key].items():
                yield (key, k), sub


def has_refused_keys(schema: Any) -> bool:
    """Whether any ``properties`` object in ``schema`` has a key :data:`KEY_PATTERN` refuses."""
    stack = [schema]
    seen = 0
    while stack and seen < 100_000:
        node = stack.pop()
        seen += 1
        if not isinstance(node, dict):
            continue
        props = node.get("properties")
        if isinstance(props, dict) and not all(map(key_ok, props)):
            return True
        stack.extend(sub for _, sub in _children(node))
    return False


def rename_schema_keys(schema: dict[str, Any], report: TranslationReport | None = None) -> dict[str, Any]:
    """``schema`` with every refused property key renamed (:func:`wire_keys`) in ``properties``
    and ``required``, at every depth; each rename is recorded in ``report`` (action
    ``rewritten``, keyword ``properties``, the pointer of the property in ``schema``). Returns
    ``schema`` itself when nothing is renamed; never modifies it."""
    if not has_refused_keys(schema):
        return schema
    return _rename(schema, (), report)


def _rename(node: Any, path: tuple[Any, ...], report: TranslationReport | None) -> Any:
    if isinstance(node, list):
        return [_rename(sub, (*path, i), report) for i, sub in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out = dict(node)
    props = node.get("properties")
    names = wire_keys(props) if isinstance(props, dict) else {}
    if isinstance(props, dict):
        new_props = {}
        for k, sub in props.items():
            wire = names.get(k, k)
            if wire != k and report is not None:
                report.add(
                    json_pointer((*path, "properties", k)),
                    "rewritten",
                    "properties",
                    f"property key {k!r} is sent as {wire!r} (the API accepts only ^[a-zA-Z0-9_.-]{{1,64}}$); "
                    f"the model's {wire!r} reaches the tool as {k!r}",
                )
            new_props[wire] = _rename(sub, (*path, "properties", k), report)
        out["properties"] = new_props
        if isinstance(node.get("required"), list):
            out["required"] = [names.get(r, r) if isinstance(r, str) else r for r in node["required"]]
    for key in _ONE:
        if isinstance(node.get(key), dict):
            out[key] = _rename(node[key], (*path, key), report)
    for key in _MANY:
        if isinstance(node.get(key), list):
            out[key] = _rename(node[key], (*path, key), report)
    for key in _MAPS:
        if isinstance(node.get(key), dict):
            out[key] = {k: _rename(sub, (*path, key, k), report) for k, sub in node[key].items()}
    return out


def unwire_arguments(schema: Any, arguments: Any) -> Any:
    """``arguments`` (a tool call's, as the model sent them) with the wire names of renamed
    property keys (:func:`wire_keys` of each ``properties`` object of ``schema``, the tool's own
    input schema) mapped back to the schema's names, at every depth the schema describes
    (``properties``, ``items``, local ``$ref``, the object branches of ``anyOf``/``oneOf``/
    ``allOf``). Keys that are not wire names are left as they are, so arguments in the schema's
    own names pass unchanged. Returns ``arguments`` itself when ``schema`` renames nothing."""
    if not isinstance(schema, dict) or not has_refused_keys(schema):
        return arguments
    return _unwire(schema, arguments, schema, 0)


def _deref(node: Any, root: dict[str, Any]) -> Any:
    for _ in range(32):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#/")):
            return node
        target: Any = root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            return node
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _properties(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """The properties ``node`` describes: its own, then those of its object branches."""
    props: dict[str, Any] = {}
    if isinstance(node.get("properties"), dict):
        props.update(node["properties"])
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in node.get(key) or [] if isinstance(node.get(key), list) else []:
            branch = _deref(branch, root)
            if isinstance(branch, dict) and isinstance(branch.get("properties"), dict):
                for k, sub in branch["properties"].items():
                    props.setdefault(k, sub)
    return props


def _unwire(schema: Any, value: Any, root: dict[str, Any], depth: int) -> Any:
    if depth > 64 or not isinstance(schema, dict):
        return value
    schema = _deref(schema, root)
    if isinstance(value, dict):
        props = _properties(schema, root)
        if not props:
            return value
        back: dict[Any, str] = {w: k for k, w in wire_keys(props).items()}
        out: dict[Any, Any] = {}
        for k, v in value.items():
            name: Any = k if k in props else back.get(k, k)
            out[name] = _unwire(props.get(name), v, root, depth + 1)
        return out
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            return [_unwire(items, v, root, depth + 1) for v in value]
    return value
