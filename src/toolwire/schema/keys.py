"""Property keys a vendor refuses in an input schema, renamed on the wire and mapped back.

Anthropic accepts only property keys matching ``^[a-zA-Z0-9_.-]{1,64}$`` (API error
"tools.N.custom.input_schema.properties: Property keys should match pattern
'^[a-zA-Z0-9_.-]{1,64}$'"), while JSON Schema, MCP servers (``filter[id]``, ``$top``,
``@odata.type``) and Python (``città``) allow any string. An adapter that must rename sends
:func:`rename_schema_keys`'s schema; the model then answers with the renamed keys, and
:func:`unwire_arguments` (which the loop applies before validating a tool's arguments) maps them
back to the schema's own names, so the function receives the names it declared.

The renaming is a pure function of the schema's keys (:func:`schema_wire_keys`: one name per key
for the whole schema), so the mapping back needs no state: it is computed again from the tool's
own input schema.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from .report import TranslationReport, json_pointer

__all__ = [
    "KEY_PATTERN",
    "key_ok",
    "wire_keys",
    "schema_wire_keys",
    "has_refused_keys",
    "rename_schema_keys",
    "unwire_arguments",
]

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


def wire_keys(keys: Iterable[Any], taken: Iterable[str] = ()) -> dict[str, str]:
    """``{key: wire key}`` for the keys that :data:`KEY_PATTERN` refuses (the others are absent):
    each character outside the pattern becomes ``_``, the result is cut to 64 characters, and a
    name already taken (by an accepted key of ``keys``, by ``taken``, or by an earlier rename)
    gets ``_2``, ``_3``, ... The same keys always give the same names."""
    keys = list(dict.fromkeys(k for k in keys if isinstance(k, str)))
    used = {k for k in keys if key_ok(k)} | set(taken)
    out: dict[str, str] = {}
    counters: dict[str, int] = {}
    for k in keys:
        if key_ok(k):
            continue
        base = _NOT_KEY.sub("_", k)[:_MAX] or "_"
        name = base
        if name in used:
            n = counters.get(base, 2)
            while True:
                suffix = f"_{n}"
                name = base[: _MAX - len(suffix)] + suffix
                n += 1
                if name not in used:
                    break
            counters[base] = n
        used.add(name)
        out[k] = name
    return out


def _all_keys(schema: Any) -> list[str]:
    """Every property key of ``schema``, at every depth, in document order (each once)."""
    out: dict[str, None] = {}
    stack = [schema]
    seen = 0
    while stack and seen < 200_000:
        node = stack.pop()
        seen += 1
        if not isinstance(node, dict):
            continue
        props = node.get("properties")
        if isinstance(props, dict):
            for k in props:
                if isinstance(k, str):
                    out.setdefault(k)
        stack.extend(reversed([sub for _, sub in _children(node)]))
    return list(out)


def schema_wire_keys(schema: Any) -> dict[str, str]:
    """``{key: wire key}`` for every refused property key of ``schema``, one name per key for the
    whole schema (the same key gets the same name in every object, branch and definition, and no
    wire name is an accepted key anywhere in it), so a wire name reads back the same wherever it
    appears. Cached by the schema's JSON text."""
    try:
        text = json.dumps(schema, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return wire_keys(_all_keys(schema))
    hit = _TABLES.get(text)
    if hit is None:
        hit = wire_keys(_all_keys(schema))
        if len(_TABLES) >= 64:
            _TABLES.pop(next(iter(_TABLES)))
        _TABLES[text] = hit
    return hit


_TABLES: dict[str, dict[str, str]] = {}


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
    return not all(map(key_ok, _all_keys(schema)))


def rename_schema_keys(schema: dict[str, Any], report: TranslationReport | None = None) -> dict[str, Any]:
    """``schema`` with every refused property key renamed (:func:`wire_keys`) in ``properties``
    and ``required``, at every depth; each rename is recorded in ``report`` (action
    ``rewritten``, keyword ``properties``, the pointer of the property in ``schema``). Returns
    ``schema`` itself when nothing is renamed; never modifies it."""
    names = schema_wire_keys(schema)
    return _rename(schema, (), report, names) if names else schema


def _rename(node: Any, path: tuple[Any, ...], report: TranslationReport | None, names: dict[str, str]) -> Any:
    if isinstance(node, list):
        return [_rename(sub, (*path, i), report, names) for i, sub in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out = dict(node)
    props = node.get("properties")
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
            new_props[wire] = _rename(sub, (*path, "properties", k), report, names)
        out["properties"] = new_props
        if isinstance(node.get("required"), list):
            out["required"] = [names.get(r, r) if isinstance(r, str) else r for r in node["required"]]
    for key in _ONE:
        if isinstance(node.get(key), dict):
            out[key] = _rename(node[key], (*path, key), report, names)
    for key in _MANY:
        if isinstance(node.get(key), list):
            out[key] = _rename(node[key], (*path, key), report, names)
    for key in _MAPS:
        if isinstance(node.get(key), dict):
            out[key] = {k: _rename(sub, (*path, key, k), report, names) for k, sub in node[key].items()}
    return out


def unwire_arguments(schema: Any, arguments: Any) -> Any:
    """``arguments`` (a tool call's, as the model sent them) with the wire names of renamed
    property keys (:func:`schema_wire_keys` of ``schema``, the tool's own input schema) mapped
    back to the schema's names in every object whose schema declares the name as a property, at
    every depth (properties, ``allOf``/``anyOf``/``oneOf`` branches, local ``$ref``, items, tuple
    items, the values of maps). The keys of a free-form map (``additionalProperties``,
    ``patternProperties``) are the caller's data and are never renamed. Keys that are not wire
    names are left as they are, so arguments in the schema's own names pass unchanged; an
    object that holds both a key and its wire name keeps both (the wire name is then an
    unexpected property, reported as such, nothing is dropped). Returns ``arguments`` itself
    when ``schema`` renames nothing."""
    names = schema_wire_keys(schema) if isinstance(schema, dict) else None
    if not names:
        return arguments
    return _unwire(arguments, schema, schema, {w: k for k, w in names.items()}, 0)


def _target(ref: str, root: Any) -> Any:
    """The node a local ``$ref`` (``#/...``) points at, or ``None``."""
    if not ref.startswith("#"):
        return None
    target: Any = root
    for token in ref[1:].split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and token in target:
            target = target[token]
        elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        else:
            return None
    return target


class _View:
    """What a schema says about the keys of an object value: its declared properties (every
    definition of a name, from the schema, its ``$ref`` target and its ``allOf``/``anyOf``/
    ``oneOf`` branches) and its maps (``patternProperties``; ``additionalProperties`` when a
    schema or ``true``)."""

    __slots__ = ("declared", "patterns", "extra", "is_map")

    def __init__(self) -> None:
        self.declared: dict[str, list[Any]] = {}
        self.patterns: list[tuple[str, Any]] = []
        self.extra: list[Any] = []  # additionalProperties schemas
        self.is_map = False

    def sub(self, name: Any) -> Any:
        """The schema of the value under a declared ``name`` (several different definitions: any
        of them), else ``None``."""
        found = self.declared.get(name)
        if not found:
            return None
        return found[0] if len(found) == 1 else {"anyOf": found}

    def map_value(self, key: Any) -> Any:
        """The schema of a map's value under ``key``: the first ``patternProperties`` pattern it
        matches, else an ``additionalProperties`` schema, else ``None``."""
        if isinstance(key, str):
            for pattern, sub in self.patterns:
                try:
                    if re.search(pattern, key):
                        return sub
                except (re.error, TypeError):
                    continue
        return self.extra[0] if self.extra else None


def _view(schema: Any, root: Any) -> _View | None:
    """The :class:`_View` of ``schema``, or ``None`` when it says nothing about keys (no schema,
    ``{}``, a schema of another kind): the keys there are read as before, every wire name as its
    schema name."""
    view = _View()
    seen: set[int] = set()

    def collect(node: Any, depth: int) -> None:
        if not isinstance(node, dict) or depth > 32 or id(node) in seen:
            return
        seen.add(id(node))
        ref = node.get("$ref")
        if isinstance(ref, str):
            collect(_target(ref, root), depth + 1)  # the target, and the keywords beside the $ref
        props = node.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                subs = view.declared.setdefault(name, [])
                if sub not in subs:
                    subs.append(sub)
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict) and patterns:
            view.patterns.extend(patterns.items())
            view.is_map = True
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) or extra is True:
            view.is_map = True
            if isinstance(extra, dict):
                view.extra.append(extra)
        for key in ("allOf", "anyOf", "oneOf"):
            branches = node.get(key)
            for branch in branches if isinstance(branches, list) else ():
                collect(branch, depth + 1)

    collect(schema, 0)
    return view if view.declared or view.is_map else None


def _unwire(value: Any, schema: Any, root: Any, back: dict[str, str], depth: int) -> Any:
    """``value`` read against ``schema``: a wire key becomes the schema's name where the schema
    declares that name; the keys of a free-form map (``additionalProperties``,
    ``patternProperties``) are the caller's data and stay as they are; where the schema says
    nothing about keys (none known, ``{}``), every wire name reads as its schema name."""
    if depth > 256:
        return value
    if isinstance(value, dict):
        view = _view(schema, root)
        out: dict[Any, Any] = {}
        for k, v in value.items():
            wire = back.get(k) if isinstance(k, str) else None
            name = k
            if wire is not None and wire not in value:
                if view is None or wire in view.declared or (k not in view.declared and not view.is_map):
                    name = wire
            if view is None:
                sub = None
            elif name in view.declared:
                sub = view.sub(name)
            else:
                sub = view.map_value(k)
            out[name] = _unwire(v, sub, root, back, depth + 1)
        return out
    if isinstance(value, list):
        array = _array_schema(schema, root)
        if array is None:
            return [_unwire(v, None, root, back, depth + 1) for v in value]
        prefix: list[Any] = array["prefixItems"] if isinstance(array.get("prefixItems"), list) else []
        items = array.get("items")
        rest = items if isinstance(items, dict) else None
        return [_unwire(v, prefix[i] if i < len(prefix) else rest, root, back, depth + 1) for i, v in enumerate(value)]
    return value


def _array_schema(schema: Any, root: Any, depth: int = 0) -> dict[str, Any] | None:
    """The schema (``schema`` itself, its ``$ref`` target, or one of its ``anyOf``/``oneOf``/
    ``allOf`` branches) that says what an array's items are, or ``None``."""
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth <= 32:
        found = _array_schema(_target(schema["$ref"], root), root, depth + 1)
        if found is not None:
            return found
    if not isinstance(schema, dict) or depth > 32:
        return None
    if isinstance(schema.get("items"), dict) or isinstance(schema.get("prefixItems"), list):
        return schema
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key)
        for branch in branches if isinstance(branches, list) else ():
            found = _array_schema(branch, root, depth + 1)
            if found is not None:
                return found
    return None
