"""OpenAI strict-mode schema checks shared by Chat Completions and Responses.

Strict function calling uses the Structured Outputs subset of JSON Schema ("Supported schemas",
https://platform.openai.com/docs/guides/structured-outputs#supported-schemas). Each check yields
findings; the API modules register them under their own rule ids.
"""

from __future__ import annotations

from typing import Any, Iterator

from ._base import Finding, arr, is_obj, is_str, join, obj, short, walk_schema

#: Composition keywords the supported-schemas page lists as not supported.
UNSUPPORTED = ("allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else")
MAX_PROPERTIES = 5000
MAX_DEPTH = 10
MAX_ENUM_VALUES = 1000

SRC_DOCS = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"


def _is_object_schema(s: dict[str, Any]) -> bool:
    t = s.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or ("properties" in s and "type" not in s)


def root(schema: Any, at: str) -> Iterator[Finding]:
    s = obj(schema)
    if not is_obj(schema) or s.get("type") != "object":
        yield join(at, "type"), f"a strict schema's root must be {{type: 'object'}}, got type {short(s.get('type'))}"
    if "anyOf" in s:
        yield join(at, "anyOf"), "a strict schema's root must not be anyOf"


def additional_properties(schema: Any, at: str) -> Iterator[Finding]:
    for p, s, _ in walk_schema(schema, at):
        if _is_object_schema(s) and s.get("additionalProperties") is not False:
            yield join(p, "additionalProperties"), "'additionalProperties' is required to be supplied and to be false"


def required_all(schema: Any, at: str) -> Iterator[Finding]:
    for p, s, _ in walk_schema(schema, at):
        props = s.get("properties")
        if not is_obj(props):
            continue
        req = s.get("required")
        req_set = {r for r in arr(req) if is_str(r)}
        missing = [k for k in props if k not in req_set]
        if missing or (props and not isinstance(req, list)):  # no properties: nothing to require
            yield join(p, "required"), f"'required' must list every key in properties; missing {missing[:5]}"


def unsupported(schema: Any, at: str) -> Iterator[Finding]:
    for p, s, _ in walk_schema(schema, at):
        for k in UNSUPPORTED:
            if k in s:
                yield join(p, k), f"{k!r} is not supported in strict mode"


def refs(schema: Any, at: str) -> Iterator[Finding]:
    """A ``$ref`` has no sibling keywords and resolves to a place inside the schema."""
    for p, s, _ in walk_schema(schema, at):
        if "$ref" not in s:
            continue
        siblings = sorted(k for k in s if k != "$ref")
        if siblings:
            yield p, f"$ref cannot have keywords {siblings}"
        ref = s["$ref"]
        if not is_str(ref) or not _resolves(schema, ref):
            yield join(p, "$ref"), f"$ref {short(ref)} does not resolve inside the schema"


def _resolves(schema: Any, ref: str) -> bool:
    if ref == "#":
        return True
    if not ref.startswith("#/"):
        return False
    node = schema
    for tok in ref[2:].split("/"):
        tok = tok.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and tok in node:
            node = node[tok]
        elif isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
            node = node[int(tok)]
        else:
            return False
    return isinstance(node, dict)


def limits(schema: Any, at: str) -> Iterator[Finding]:
    props = 0
    enums = 0
    deepest = 0
    for p, s, _ in walk_schema(schema, at):
        if is_obj(s.get("properties")):
            props += len(s["properties"])
        enums += len(arr(s.get("enum")))
        deepest = max(deepest, _object_depth(schema, p, at))
    if props > MAX_PROPERTIES:
        yield at, f"{props} object properties in total; strict mode allows {MAX_PROPERTIES}"
    if enums > MAX_ENUM_VALUES:
        yield at, f"{enums} enum values in total; strict mode allows {MAX_ENUM_VALUES}"
    if deepest > MAX_DEPTH:
        yield at, f"objects nested {deepest} levels deep; strict mode allows {MAX_DEPTH}"


def _object_depth(schema: Any, pointer: str, at: str) -> int:
    """How many object schemas (``properties``/``items`` steps) lead to ``pointer``."""
    tokens = pointer[len(at) :].split("/")[1:]
    return sum(1 for t in tokens if t == "properties") + (1 if is_obj(schema) else 0)
