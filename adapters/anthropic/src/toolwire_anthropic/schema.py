"""Anthropic's ``input_schema`` dialect: the repairs :class:`~toolwire_anthropic.profile.AnthropicProfile`
makes to a tool's input schema before it is sent.

Pure functions over JSON-ready dicts: the input schema is never modified (the loop keeps
validating arguments against the user's original schema); the returned copy is what goes on the
wire, and every change is recorded in the :class:`~toolwire.schema.report.TranslationReport` with
the JSON pointer of the node in the *original* schema.

Rules applied (each with its source; ids as in :data:`toolwire_anthropic.profile.RULES`):

- ``anthropic.schema.root-combinator``: ``oneOf``/``anyOf``/``allOf`` are refused at the top
  level (API error text: "input_schema does not support oneOf, allOf, or anyOf at the top level").
  A root ``allOf`` of object schemas is folded into the root (same meaning); a root
  ``anyOf``/``oneOf`` is removed from what is sent, its alternatives' properties offered as
  optional properties and the ``required`` names every alternative shares kept (a lossy change:
  the "one of these shapes" constraint is no longer told to the model; arguments are still
  validated against the original schema).
- ``anthropic.schema.root-ref``: a root ``$ref`` (pydantic ``RootModel``, hand-written
  ``{"$ref": "#/$defs/Args", "$defs": ...}``) leaves the root without ``"type": "object"``
  (SDK ``InputSchemaTyped.type: Required[Literal["object"]]``): the referenced schema is
  merged into the root, ``$defs`` kept for the other references.
- ``anthropic.schema.strict-subset`` (only for tools sent with ``strict: true``): the subset of
  JSON Schema grammar-constrained sampling accepts, as the installed SDK's
  ``anthropic.lib._parse._transform.transform_schema`` states it and the structured-outputs
  docs (https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations)
  describe it: every object gets ``additionalProperties: false``; ``oneOf`` becomes ``anyOf``;
  string ``format`` only from :data:`STRICT_FORMATS`; ``minItems`` only 0 or 1; ``enum``/``const``
  only of primitives; every other keyword is moved into the node's ``description`` (as the SDK
  does) so the model still reads it. A schema that cannot be strict at all (a recursive ``$ref``)
  is sent without ``strict`` (reported, lossy).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from toolwire.schema.report import TranslationReport, json_pointer

__all__ = [
    "ROOT_COMBINATORS",
    "STRICT_FORMATS",
    "STRICT_KEYWORDS",
    "repair_root",
    "strict_subset",
    "strict_problems",
    "is_recursive",
    "strict_narrowed",
]

#: Keywords refused at the root of ``input_schema`` (API error text).
ROOT_COMBINATORS = ("allOf", "anyOf", "oneOf")

#: String formats strict tools accept (SDK ``transform_schema``: ``SupportedStringFormats``).
STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)

#: Keywords a strict schema node may carry (SDK ``transform_schema`` keeps only these).
STRICT_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "anyOf",
        "allOf",
        "$ref",
        "$defs",
        "description",
        "title",
        "properties",
        "additionalProperties",
        "required",
        "format",
        "items",
        "minItems",
    }
)

#: Keywords whose value maps names (data: any string, "enum" and "default" included) to schemas.
_NAME_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")

#: Keywords of a root ``allOf`` member that fold into the root without further thought.
_FOLD_MERGED = ("properties", "required")


def _fmt(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# ---------------------------------------------------------------------------------------------
# the root of input_schema
# ---------------------------------------------------------------------------------------------


def _local(root: dict[str, Any], ref: Any) -> Any:
    """The node a local ``#/...`` reference points at, or ``None``."""
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    node: Any = root
    for raw in ref[2:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return None
    return node


def _member(root: dict[str, Any], member: Any) -> dict[str, Any] | None:
    """A combinator member as a plain dict, a local ``$ref`` member resolved (one level)."""
    if not isinstance(member, dict):
        return None
    if "$ref" in member:
        target = _local(root, member["$ref"])
        if not isinstance(target, dict) or "$ref" in target:
            return None
        merged = {**copy.deepcopy(target), **{k: v for k, v in member.items() if k != "$ref"}}
        return merged
    return member


def _fold_into(out: dict[str, Any], member: dict[str, Any]) -> str | None:
    """Fold one ``allOf`` member into ``out`` (same meaning); return why it cannot be, or ``None``."""
    mtype = member.get("type")
    if mtype not in (None, "object"):
        return f"it is not an object schema (type {mtype!r})"
    if any(k in member for k in ROOT_COMBINATORS):
        return "it holds a combinator itself"
    for key, value in member.items():
        if key in _FOLD_MERGED or key in ("type", "description", "title", "$defs", "$comment", "examples"):
            continue
        if key in out and out[key] != value:
            return f"its {key!r} ({_fmt(value)}) conflicts with the root's ({_fmt(out[key])})"
    props = member.get("properties") or {}
    if not isinstance(props, dict):
        return "its properties are not an object"
    for name, sub in props.items():
        existing = (out.get("properties") or {}).get(name)
        if existing is not None and existing != sub:
            # both constrain the property: it must satisfy both (a nested allOf is accepted)
            out.setdefault("properties", {})[name] = {"allOf": [existing, copy.deepcopy(sub)]}
        else:
            out.setdefault("properties", {})[name] = copy.deepcopy(sub)
    req = member.get("required") or []
    if req:
        out["required"] = list(dict.fromkeys([*(out.get("required") or []), *req]))
    for key, value in member.items():
        if (
            key not in _FOLD_MERGED
            and key not in ("type", "description", "title", "$defs", "$comment", "examples")
            and key not in out
        ):
            out[key] = copy.deepcopy(value)
    if "description" in member and "description" not in out:
        out["description"] = member["description"]
    return None


def repair_root(schema: dict[str, Any], report: TranslationReport) -> dict[str, Any]:
    """The top level of ``schema`` made acceptable to Anthropic (rules ``anthropic.schema.root-ref``
    and ``anthropic.schema.root-combinator``); ``schema`` itself is not modified.

    - root ``$ref`` → the referenced schema merged into the root (``$defs`` kept);
    - root ``allOf`` → each object member folded into the root (properties joined, ``required``
      joined, a property both constrain becomes a nested ``allOf`` of the two); a member that
      cannot fold (not an object, conflicting keywords) is removed and reported lossy at
      ``/allOf/<i>``;
    - root ``anyOf`` / ``oneOf`` → a single alternative folds like ``allOf``; otherwise the
      combinator is removed (lossy, reported at ``/anyOf`` or ``/oneOf``), the alternatives'
      properties are offered as optional properties (a property several alternatives define
      differently becomes a nested ``anyOf`` of them) and ``required`` keeps the names every
      alternative requires.
    """
    out = copy.deepcopy(schema)
    if "$ref" in out:
        ref = out.pop("$ref")
        target = _local(schema, ref)
        if isinstance(target, dict) and "$ref" not in target:
            for key, value in target.items():
                if key == "$defs":
                    continue
                out.setdefault(key, copy.deepcopy(value))
            report.add(
                "/$ref",
                "inlined",
                "$ref",
                f'the root $ref {ref!r} is merged into the root: Anthropic needs "type": "object" at the top level',
            )
        else:
            out["$ref"] = ref  # left for the check to refuse with its pointer
    if "allOf" in out:
        members = out.pop("allOf")
        for i, raw in enumerate(members if isinstance(members, list) else []):
            member = _member(schema, raw)
            why = "it is not a schema object" if member is None else _fold_into(out, member)
            if why is None:
                report.add(
                    f"/allOf/{i}",
                    "rewritten",
                    "allOf",
                    "folded into the root (Anthropic refuses allOf at the top level of input_schema)",
                )
            else:
                report.add(
                    f"/allOf/{i}",
                    "removed",
                    "allOf",
                    f"removed from what is sent: {why}; Anthropic refuses allOf at the top level of input_schema "
                    "(arguments are still validated against the original schema)",
                    lossy=True,
                )
    for key in ("anyOf", "oneOf"):
        if key not in out:
            continue
        alts = out.pop(key)
        alts = alts if isinstance(alts, list) else []
        members = [_member(schema, a) for a in alts]
        if len(members) == 1 and members[0] is not None and _fold_into(out, members[0]) is None:
            report.add(
                f"/{key}/0",
                "rewritten",
                key,
                f"the only alternative is folded into the root (Anthropic refuses {key} at the top level of input_schema)",
            )
            continue
        _offer_alternatives(out, [m for m in members if m is not None], key)
        report.add(
            f"/{key}",
            "removed",
            key,
            f"removed from what is sent: Anthropic refuses {key} at the top level of input_schema; the "
            f"{len(alts)} alternatives' properties are offered as optional properties and only the names every "
            "alternative requires stay required (arguments are still validated against the original schema)",
            lossy=True,
        )
    return out


def _offer_alternatives(out: dict[str, Any], members: list[dict[str, Any]], key: str) -> None:
    from toolwire.schema.alternatives import offered_alternatives

    props, shared = offered_alternatives(dict(out.get("properties") or {}), members)
    if props or "properties" in out:
        out["properties"] = props
    if shared:
        out["required"] = list(dict.fromkeys([*(out.get("required") or []), *shared]))


# ---------------------------------------------------------------------------------------------
# strict tool use
# ---------------------------------------------------------------------------------------------


def is_recursive(schema: dict[str, Any]) -> str | None:
    """The pointer of a ``$ref`` that closes a cycle (a recursive schema), or ``None``."""

    def walk(node: Any, path: tuple[Any, ...], stack: tuple[str, ...]) -> str | None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                if ref in stack:
                    return json_pointer(list(path)) + "/$ref"
                target = _local(schema, ref) if ref != "#" else schema
                if ref == "#":
                    return json_pointer(list(path)) + "/$ref"
                if isinstance(target, dict):
                    found = walk(target, path, (*stack, ref))
                    if found:
                        return found
            for k, v in node.items():
                if k in ("$defs", "definitions", "enum", "const", "default", "examples"):
                    continue
                if k in _NAME_MAPS and isinstance(v, dict):
                    # names to schemas: a property called "default" or "enum" is a schema too
                    for name, sub in v.items():
                        found = walk(sub, (*path, k, name), stack)
                        if found:
                            return found
                    continue
                found = walk(v, (*path, k), stack)
                if found:
                    return found
        elif isinstance(node, list):
            for i, v in enumerate(node):
                found = walk(v, (*path, i), stack)
                if found:
                    return found
        return None

    return walk(schema, (), ())


def strict_narrowed(schema: dict[str, Any]) -> tuple[str, str] | None:
    """``(pointer, keyword)`` of the first node the strict-tool subset would narrow to empty
    values: ``patternProperties``, an ``additionalProperties`` schema, or ``additionalProperties:
    true`` on an object without properties (a map: strict objects take ``additionalProperties:
    false`` only, so no key could be sent), ``prefixItems`` (a tuple: its items are not in the
    subset), or a ``required`` name no property declares on an object that was not closed (the
    closed object could never hold it, so no value would be valid); ``None`` when there is none."""

    def walk(node: Any, path: tuple[Any, ...], depth: int) -> tuple[str, str] | None:
        if depth > 64:
            return None
        if isinstance(node, dict):
            for key in ("patternProperties", "prefixItems"):
                if key in node:
                    return json_pointer([*path, key]), key
            extra = node.get("additionalProperties")
            if isinstance(extra, dict) or (extra is True and not node.get("properties")):
                return json_pointer([*path, "additionalProperties"]), "additionalProperties"
            found = node.get("properties")
            props: dict[str, Any] = found if isinstance(found, dict) else {}
            required = node.get("required")
            if (
                extra is not False
                and isinstance(required, list)
                and any(isinstance(r, str) and r not in props for r in required)
            ):
                return json_pointer([*path, "required"]), "required"
            for k, v in node.items():
                if k in ("enum", "const", "default", "examples"):
                    continue
                if k in _NAME_MAPS and isinstance(v, dict):
                    for name, sub in v.items():  # names to schemas, whatever the names
                        found = walk(sub, (*path, k, name), depth + 1)
                        if found:
                            return found
                    continue
                found = walk(v, (*path, k), depth + 1)
                if found:
                    return found
        elif isinstance(node, list):
            for i, v in enumerate(node):
                found = walk(v, (*path, i), depth + 1)
                if found:
                    return found
        return None

    return walk(schema, (), 0)


def _primitive(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def strict_subset(schema: dict[str, Any], report: TranslationReport) -> dict[str, Any]:
    """``schema`` rewritten into the strict-tool subset (see the module docstring); pure.

    Changes are reported at their pointer in ``schema``: ``additionalProperties`` forced to
    ``false`` (lossy when the original allowed extra properties), ``oneOf`` → ``anyOf``, unsupported
    keywords moved into ``description`` (not lossy: the model still reads them; the loop validates
    them)."""

    def node(s: Any, path: tuple[Any, ...]) -> Any:
        if not isinstance(s, dict):
            return s
        at = json_pointer(list(path))
        out: dict[str, Any] = {}
        moved: dict[str, Any] = {}
        for key, value in s.items():
            if key == "$defs" and isinstance(value, dict):
                out[key] = {n: node(v, (*path, key, n)) for n, v in value.items()}
            elif key == "properties" and isinstance(value, dict):
                out[key] = {n: node(v, (*path, key, n)) for n, v in value.items()}
            elif key == "items" and isinstance(value, dict):
                out[key] = node(value, (*path, key))
            elif key in ("anyOf", "allOf") and isinstance(value, list):
                out[key] = [node(v, (*path, key, i)) for i, v in enumerate(value)]
            elif key == "oneOf" and isinstance(value, list):
                out.setdefault("anyOf", []).extend(node(v, (*path, key, i)) for i, v in enumerate(value))
                report.add(
                    f"{at}/oneOf",
                    "rewritten",
                    "oneOf",
                    "sent as anyOf: strict tools accept anyOf, not oneOf (SDK transform_schema)",
                )
            elif key == "enum":
                if isinstance(value, list) and value and all(_primitive(v) for v in value):
                    out[key] = value
                else:
                    moved[key] = value
            elif key == "const":
                if _primitive(value):
                    out[key] = value
                else:
                    moved[key] = value
            elif key == "format":
                if value in STRICT_FORMATS:
                    out[key] = value
                else:
                    moved[key] = value
            elif key == "minItems":
                if value in (0, 1) and not isinstance(value, bool):
                    out[key] = value
                else:
                    moved[key] = value
            elif key == "additionalProperties":
                continue  # set below for objects
            elif key in STRICT_KEYWORDS:
                out[key] = copy.deepcopy(value)
            else:
                moved[key] = value
        is_object = (
            s.get("type") == "object"
            or (isinstance(s.get("type"), list) and "object" in s["type"])
            or "properties" in s
        )
        if is_object:
            before = s.get("additionalProperties", True)
            if before is not False:
                report.add(
                    f"{at}/additionalProperties",
                    "rewritten",
                    "additionalProperties",
                    f"sent as false (was {_fmt(before)}): strict tools need additionalProperties: false on every object",
                    lossy=before is not None and before is not False and "additionalProperties" in s,
                )
            out["additionalProperties"] = False
        if moved:
            text = "{" + ", ".join(f"{k}: {_fmt(v)}" for k, v in moved.items()) + "}"
            desc = out.get("description")
            out["description"] = f"{desc}\n\n{text}" if isinstance(desc, str) and desc else text
            for k in moved:
                report.add(
                    f"{at}/{k}",
                    "rewritten",
                    k,
                    f"moved into the description: strict tools do not support {k}={_fmt(moved[k])} (SDK transform_schema)",
                )
        return out

    return node(schema, ())


def strict_problems(schema: Any, path: tuple[Any, ...] = ()) -> list[tuple[str, str]]:
    """``(pointer, what)`` for every node of ``schema`` outside the strict-tool subset (used by the
    check on the encoded request; :func:`strict_subset` output has none)."""
    out: list[tuple[str, str]] = []
    if not isinstance(schema, dict):
        return out
    at = json_pointer(list(path))
    for key, value in schema.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            for n, v in value.items():
                out.extend(strict_problems(v, (*path, key, n)))
        elif key == "items" and isinstance(value, dict):
            out.extend(strict_problems(value, (*path, key)))
        elif key in ("anyOf", "allOf") and isinstance(value, list):
            for i, v in enumerate(value):
                out.extend(strict_problems(v, (*path, key, i)))
        elif key == "format" and value not in STRICT_FORMATS:
            out.append(
                (
                    f"{at}/format",
                    f"format {value!r} is not one strict tools support ({', '.join(sorted(STRICT_FORMATS))})",
                )
            )
        elif key == "minItems" and value not in (0, 1):
            out.append((f"{at}/minItems", f"minItems {value!r}: strict tools support only 0 or 1"))
        elif key == "enum" and not (isinstance(value, list) and value and all(_primitive(v) for v in value)):
            out.append((f"{at}/enum", "strict tools accept enum values of strings, numbers, booleans and null only"))
        elif key not in STRICT_KEYWORDS:
            out.append((f"{at}/{key}", f"keyword {key!r} is not in the strict-tool subset"))
    is_object = schema.get("type") == "object" or "properties" in schema
    if is_object and schema.get("additionalProperties") is not False:
        out.append(
            (
                f"{at}/additionalProperties" if "additionalProperties" in schema else at or "/",
                "strict tools need additionalProperties: false on every object",
            )
        )
    return out
