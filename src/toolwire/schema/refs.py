"""Inlining of local ``$ref`` references in a JSON Schema (vendor-neutral).

Some vendor schema dialects have no references at all (Gemini's OpenAPI-subset ``Schema`` has
no ``$ref`` field), so an adapter that targets one replaces every reference by the
schema it points at. :func:`inline_refs` does that for every local reference form:

- ``#/$defs/Name`` (Draft 2019-09/2020-12) and ``#/definitions/Name`` (Draft 4-7, pydantic v1);
- any other local JSON pointer, nested or not (``#/$defs/A/properties/b``, ``#/properties/x``),
  RFC 6901 escapes (``~0``, ``~1``) and percent-encoding decoded;
- references inside referenced schemas (followed transitively);
- sibling keywords next to ``$ref`` (allowed since Draft 2019-09), kept: the referenced schema's
  keywords come first and a sibling overrides the keyword of the same name (a ``description`` or
  ``title`` beside a ``$ref`` describes the use site, which is what the model should read).

After inlining, the ``$defs``/``definitions`` containers are removed. Every change is recorded
in a :class:`~toolwire.schema.report.TranslationReport` with the JSON pointer of the node in the
*original* schema.

Errors (:class:`~toolwire.errors.SchemaTranslationError`, ``pointer`` set):

- a recursive reference (a schema that contains itself, directly or through other references):
  it has no finite inline form; ``pointer`` is the reference that closes the cycle, e.g.
  ``#/$defs/City``;
- a reference that does not resolve, or a remote one (``https://…``, ``other.json#/…``);
- an inlined form larger than ``max_nodes`` (default :data:`MAX_TRANSLATED_NODES`): references used
  many times, nested, expand into copies and can grow exponentially; ``pointer`` is the place in
  the original schema where the bound was passed.

Each reference target is expanded once and reused for every other use (memoised per reference).
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import unquote

from ..errors import SchemaTranslationError
from .report import TranslationReport, json_pointer

__all__ = ["inline_refs", "resolve_pointer", "has_refs", "DEFINITION_KEYS", "MAX_TRANSLATED_NODES"]

#: Bound on the size of an inlined schema, in JSON nodes (each object, array and scalar counts
#: one). Real tool schemas stay far below it; pydantic models that reuse one nested model at
#: every level can pass it.
MAX_TRANSLATED_NODES = 20_000

#: Keywords that hold reusable definitions and disappear once every reference is inlined.
DEFINITION_KEYS = ("$defs", "definitions")

_RULE = "the target dialect has no $ref: every reference is replaced by the schema it points at"


def resolve_pointer(root: Any, ref: str) -> tuple[Any, tuple[str, ...]]:
    """Resolve a local reference (``"#"`` or ``"#/a/b"``) against ``root``.

    Returns ``(node, path)`` where ``path`` is the decoded key path. Raises
    :class:`SchemaTranslationError` (``pointer=ref``) for a remote or unresolvable reference.
    """
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise SchemaTranslationError(
            f"$ref {ref!r} is not a local reference (only '#/...' pointers into the same schema can be inlined)",
            pointer=str(ref),
            rule=_RULE,
        )
    fragment = unquote(ref[1:])
    if fragment == "":
        return root, ()
    if not fragment.startswith("/"):
        raise SchemaTranslationError(
            f"$ref {ref!r} uses an anchor name, not a JSON pointer; anchors cannot be inlined",
            pointer=ref,
            rule=_RULE,
        )
    node = root
    path: list[str] = []
    for raw in fragment[1:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        path.append(key)
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            raise SchemaTranslationError(
                f"$ref {ref!r} does not resolve: no {key!r} at {json_pointer(path[:-1]) or '/'}",
                pointer=ref,
                rule=_RULE,
            )
    return node, tuple(path)


def has_refs(schema: Any) -> bool:
    """Whether ``schema`` contains a ``$ref`` keyword anywhere."""
    if isinstance(schema, dict):
        return "$ref" in schema or any(has_refs(v) for v in schema.values())
    if isinstance(schema, list):
        return any(has_refs(v) for v in schema)
    return False


# Keywords whose value is a map of name → schema (the names are data, not keywords).
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def inline_refs(
    schema: dict[str, Any], report: TranslationReport | None = None, *, max_nodes: int = MAX_TRANSLATED_NODES
) -> dict[str, Any]:
    """Return a copy of ``schema`` with every local ``$ref`` replaced by its target.

    ``schema`` is not modified. Changes are added to ``report`` when given: one ``inlined``
    change per ``$ref`` (pointer of the ``$ref`` node in the original schema, detail naming the
    target) and one ``removed`` change per ``$defs``/``definitions`` container. Each target is
    expanded once and copied for its other uses. Raises :class:`SchemaTranslationError` as
    described in the module docstring (a result past ``max_nodes`` JSON nodes included).
    """
    if not isinstance(schema, dict):
        return copy.deepcopy(schema)
    if not has_refs(schema):
        out = copy.deepcopy(schema)
        _drop_definitions(out, (), report)
        return out
    seen_reports: set[tuple[str, str]] = set()
    memo: dict[str, tuple[dict[str, Any], int]] = {}
    size = [0]

    def grow(n: int, path: tuple[Any, ...]) -> None:
        size[0] += n
        if size[0] > max_nodes:
            where = json_pointer(path) or "/"
            raise SchemaTranslationError(
                f"inlining the references of this schema passes {max_nodes} JSON nodes at {where} (a reference used "
                "many times expands into a copy each time); reuse fewer nested models, or send the schema in a "
                "dialect that supports $ref",
                pointer=where,
                rule="translated-size-bound",
            )

    def note(pointer: str, action: str, keyword: str, detail: str) -> None:
        if report is not None and (pointer, detail) not in seen_reports:
            seen_reports.add((pointer, detail))
            report.add(pointer, action, keyword, detail)

    def walk(node: Any, path: tuple[Any, ...], stack: tuple[str, ...]) -> Any:
        # ``path``: where ``node`` sits in the original schema; ``stack``: the references being
        # expanded around it (a repeat means the schema contains itself).
        if isinstance(node, list):
            grow(1, path)
            return [walk(v, path + (i,), stack) for i, v in enumerate(node)]
        if not isinstance(node, dict):
            grow(1, path)
            return copy.deepcopy(node)
        grow(1, path)
        if "$ref" in node:
            ref = node["$ref"]
            target, target_path = resolve_pointer(schema, ref)
            canonical = "#" + json_pointer(target_path)
            if canonical in stack or _is_prefix(target_path, path):
                where = json_pointer(path) or "/"
                raise SchemaTranslationError(
                    f"recursive $ref {ref} at {where}: the schema refers to itself, so it has no finite inline "
                    "form; remove the recursion (e.g. limit the depth) or send the schema in a dialect that "
                    "supports $ref",
                    pointer=ref,
                    rule=_RULE,
                )
            note(json_pointer(path) or "/", "inlined", "$ref", f"inlined {ref}")
            hit = memo.get(canonical)
            if hit is None:
                before = size[0]
                expanded = walk(target, target_path, stack + (canonical,))
                if isinstance(expanded, dict):
                    memo[canonical] = (expanded, size[0] - before)
            else:
                grow(hit[1], path)
                expanded = copy.deepcopy(hit[0])
            if not isinstance(expanded, dict):
                raise SchemaTranslationError(
                    f"$ref {ref} points at a {type(expanded).__name__}, not a schema", pointer=ref, rule=_RULE
                )
            merged = {k: v for k, v in expanded.items() if k not in DEFINITION_KEYS}
            for key, value in node.items():
                if key == "$ref":
                    continue
                if key in _SCHEMA_MAPS and isinstance(value, dict):
                    sibling: Any = {n: walk(s, path + (key, n), stack) for n, s in value.items()}
                else:
                    sibling = walk(value, path + (key,), stack)
                if (
                    key in merged
                    and merged[key] != sibling
                    and key not in ("description", "title", "default", "examples", "deprecated")
                ):
                    note(
                        json_pointer(path + (key,)),
                        "rewritten",
                        key,
                        f"sibling {key!r} of $ref {ref} overrides the referenced schema's {key!r}",
                    )
                merged[key] = sibling
            return merged
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in DEFINITION_KEYS and isinstance(value, dict):
                note(json_pointer(path + (key,)), "removed", key, f"{key} removed after inlining every reference")
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {n: walk(s, path + (key, n), stack) for n, s in value.items()}
            else:
                out[key] = walk(value, path + (key,), stack)
        return out

    return walk(schema, (), ())


def _is_prefix(prefix: tuple[str, ...], path: tuple[Any, ...]) -> bool:
    """A reference to an ancestor of the place it sits in (``#`` inside the root, …) is recursive."""
    if len(prefix) > len(path):
        return False
    return all(str(a) == str(b) for a, b in zip(prefix, path))


def _drop_definitions(node: Any, path: tuple[Any, ...], report: TranslationReport | None) -> None:
    if isinstance(node, dict):
        for key in list(node):
            if key in DEFINITION_KEYS and isinstance(node[key], dict):
                if report is not None:
                    report.add(json_pointer(path + (key,)), "removed", key, f"unused {key} removed")
                del node[key]
            elif key in _SCHEMA_MAPS and isinstance(node[key], dict):
                for name, sub in node[key].items():
                    _drop_definitions(sub, path + (key, name), report)
            else:
                _drop_definitions(node[key], path + (key,), report)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _drop_definitions(v, path + (i,), report)
