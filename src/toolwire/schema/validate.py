"""Checking input schemas and validating arguments with ``jsonschema`` (Draft 2020-12)."""

from __future__ import annotations

import functools
import json
from typing import Any

from ..errors import SchemaError
from .report import json_pointer

__all__ = ["check_input_schema", "validate_arguments", "ArgumentError"]


class ArgumentError:
    """One schema violation: ``pointer`` (JSON pointer into the arguments), ``rule`` (the failed
    keyword, e.g. ``required``, ``type``, ``enum``), ``message`` (jsonschema's text)."""

    __slots__ = ("pointer", "rule", "message", "schema_pointer")

    def __init__(self, pointer: str, rule: str, message: str, schema_pointer: str) -> None:
        self.pointer, self.rule, self.message, self.schema_pointer = pointer, rule, message, schema_pointer

    def __repr__(self) -> str:
        return f"ArgumentError({self.pointer!r}, {self.rule!r}, {self.message!r})"

    def render(self) -> str:
        where = self.pointer or "/"
        return f"at {where}: {self.message} (rule: {self.rule})"


@functools.lru_cache(maxsize=1)
def _validator_cls() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator


@functools.lru_cache(maxsize=512)
def _compiled(schema_json: str) -> Any:
    cls = _validator_cls()
    return cls(json.loads(schema_json), format_checker=cls.FORMAT_CHECKER)


def check_input_schema(schema: Any, *, tool_name: str = "") -> None:
    """Raise :class:`SchemaError` unless ``schema`` is a valid Draft 2020-12 schema with top-level
    ``"type": "object"`` (every vendor requires an object at the top)."""
    who = f"tool {tool_name!r}: " if tool_name else ""
    if not isinstance(schema, dict):
        raise SchemaError(f"{who}input schema must be a JSON object (dict), got {type(schema).__name__}")
    if schema.get("type") != "object":
        raise SchemaError(f"{who}input schema must have \"type\": \"object\" at the top level, got {schema.get('type')!r}")
    import jsonschema

    try:
        _validator_cls().check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise SchemaError(
            f"{who}input schema is not valid JSON Schema (Draft 2020-12) at {json_pointer(list(exc.absolute_path)) or '/'}: {exc.message}"
        ) from None
    try:
        json.dumps(schema)
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"{who}input schema is not JSON-serialisable: {exc}") from None
    for pointer, ref in _local_refs(schema, ()):
        if not _resolves(schema, ref):
            raise SchemaError(f"{who}input schema has a $ref at {pointer or '/'} to {ref!r}, which points nowhere")


def _local_refs(node: Any, path: tuple[Any, ...]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            out.append((json_pointer(list(path)), ref))
        for k, v in node.items():
            if k not in ("const", "enum", "default", "examples"):
                out.extend(_local_refs(v, (*path, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_local_refs(v, (*path, i)))
    return out


def _resolves(root: Any, ref: str) -> bool:
    """Whether a local ``#/...`` JSON-pointer reference resolves inside ``root`` (anchors are
    left to jsonschema)."""
    if ref == "#":
        return True
    if not ref.startswith("#/"):
        return True
    node: Any = root
    for raw in ref[2:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return False
    return True


def validate_arguments(schema: dict[str, Any], arguments: Any) -> list[ArgumentError]:
    """Validate ``arguments`` against ``schema``; return the violations (empty when valid),
    most specific first (jsonschema's ``best_match`` order), with JSON pointers into the
    arguments. Formats are checked where ``jsonschema`` knows them."""
    from jsonschema.exceptions import best_match, relevance

    validator = _compiled(json.dumps(schema, sort_keys=True))
    errors = list(validator.iter_errors(arguments))
    if not errors:
        return []
    first = best_match(errors)
    ordered = [first] + sorted((e for e in errors if e is not first), key=relevance)
    out = []
    for e in ordered:
        out.append(ArgumentError(json_pointer(list(e.absolute_path)), str(e.validator), e.message, json_pointer(list(e.absolute_schema_path))))
    return out
