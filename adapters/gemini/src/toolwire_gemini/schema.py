"""Input-schema translation for Gemini ``FunctionDeclaration``s.

Two fields can carry a tool's input schema, never both (Gemini API reference,
``FunctionDeclaration``: ``parameters`` and ``parametersJsonSchema`` are mutually exclusive):

- ``parametersJsonSchema`` (``schema_mode="json_schema"``, the default): plain JSON Schema, sent
  unchanged ("passes the schema through unchanged").
- ``parameters`` (``schema_mode="openapi"``): the OpenAPI 3.0 subset ``Schema`` object. It has no
  ``$ref``/``$defs``, no ``additionalProperties``, string-only ``enum`` and ``nullable`` instead of
  a ``"null"`` type, so :func:`to_openapi_schema` rewrites the schema and reports every change.
"""

from __future__ import annotations

import copy
from typing import Any

from toolwire.schema.coerce import enum_string
from toolwire.schema.refs import inline_refs
from toolwire.schema.report import TranslationReport, json_pointer

__all__ = ["to_openapi_schema", "openapi_to_json_schema", "is_zero_parameter", "OPENAPI_KEYWORDS"]

#: Fields of the Gemini ``Schema`` object (REST reference, v1beta ``Schema``), in JSON spelling.
OPENAPI_KEYWORDS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "items",
        "properties",
        "required",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minProperties",
        "maxProperties",
        "minimum",
        "maximum",
        "pattern",
        "example",
        "default",
        "anyOf",
        "propertyOrdering",
    }
)

#: ``format`` values the ``Schema`` object documents per type; others are removed.
_FORMATS = {"string": {"enum", "date-time"}, "number": {"float", "double"}, "integer": {"int32", "int64"}}

_RULE = "Gemini FunctionDeclaration.parameters is an OpenAPI 3.0 subset Schema"


def is_zero_parameter(schema: Any) -> bool:
    """An object schema that accepts no arguments: no (or empty) ``properties``, no
    ``patternProperties`` and no open ``additionalProperties``."""
    if not isinstance(schema, dict):
        return True
    if schema.get("properties"):
        return False
    if schema.get("patternProperties"):
        return False
    extra = schema.get("additionalProperties", False)
    if extra not in (False, None):
        return False
    for key in ("anyOf", "oneOf", "allOf", "$ref", "items", "prefixItems"):
        if schema.get(key):
            return False
    return True


def to_openapi_schema(schema: dict[str, Any], report: TranslationReport) -> dict[str, Any]:
    """Rewrite a canonical JSON Schema into the Gemini ``parameters`` subset.

    Rewrites, each recorded in ``report`` with the JSON pointer of the node in the original:

    - ``$ref`` inlined and ``$defs``/``definitions`` removed (:func:`toolwire.schema.refs.inline_refs`;
      a recursive reference raises :class:`SchemaTranslationError` naming it);
    - ``type: [X, "null"]`` → ``type: X`` + ``nullable: true``; ``type: [X, Y]`` → ``anyOf``;
    - ``anyOf``/``oneOf`` with a ``{"type": "null"}`` branch → the other branch(es) + ``nullable``;
      ``oneOf`` → ``anyOf``; ``allOf`` of one schema merged, otherwise removed (lossy);
    - ``const: v`` → ``enum: [v]``;
    - non-string ``enum`` values stringified (``1`` → ``"1"``) and ``type`` set to ``string``; a
      ``null`` member becomes ``nullable``; the decoder converts answers back
      (:func:`toolwire.schema.coerce.coerce_arguments`);
    - the boolean schema ``true`` (any value) sent as ``{}`` is; a property or ``anyOf`` branch
      whose schema is ``false`` (no value) left out (the Schema object takes no booleans);
    - ``examples`` → ``example`` (first value);
    - ``format`` values the ``Schema`` object does not document for the type removed;
    - every other keyword (``additionalProperties``, ``patternProperties``, ``$schema``,
      ``exclusiveMinimum``, ``multipleOf``, ``uniqueItems``, ``not``, ``if``/``then``/``else``,
      ``prefixItems``, …) removed, marked lossy when it constrained values.

    The input is not modified.
    """
    inlined = inline_refs(schema, report)
    if isinstance(inlined, dict) and any(k in inlined for k in ("anyOf", "oneOf", "allOf")):
        inlined = _fold_root(inlined, report)
    return _convert(inlined, (), report)


def _fold_root(schema: dict[str, Any], report: TranslationReport) -> dict[str, Any]:
    """The root combinators folded into one object schema (``parameters`` must be an object:
    "functionDeclaration parameters schema should be of type OBJECT"): the object members of
    an ``allOf`` merged (properties and ``required`` joined; a member that conflicts or is not
    an object schema is left out, lossy); an ``anyOf``/``oneOf`` of object schemas offered as
    optional properties (a property several alternatives define differently takes any of
    their definitions; only the names every alternative requires stay required; lossy: the
    choice between the alternatives is not sent). Arguments are still validated against the
    original schema."""
    out = dict(schema)
    props: dict[str, Any] = dict(out["properties"]) if isinstance(out.get("properties"), dict) else {}
    required: list[Any] = list(out["required"]) if isinstance(out.get("required"), list) else []
    members = out.pop("allOf", None)
    if members is not None:
        for i, m in enumerate(members if isinstance(members, list) else [members]):
            plain = (
                isinstance(m, dict)
                and set(m) <= {"type", "properties", "required", "description", "title"}
                and m.get("type", "object") == "object"
                and isinstance(m.get("properties", {}), dict)
                and all(props.get(k, v) == v for k, v in (m.get("properties") or {}).items())
            )
            if plain:
                props.update(copy.deepcopy(m.get("properties") or {}))
                required.extend(r for r in m.get("required") or [] if r not in required)
                report.add(f"/allOf/{i}", "inlined", "allOf", "top-level allOf member merged into the root object")
            else:
                report.add(
                    f"/allOf/{i}",
                    "removed",
                    "allOf",
                    "top-level allOf member that is not a plain object schema is not sent (parameters must be an "
                    "object); arguments are still validated against the original schema",
                    lossy=True,
                )
    for key in ("anyOf", "oneOf"):
        alts = out.pop(key, None)
        if alts is None:
            continue
        from toolwire.schema.alternatives import offered_alternatives

        props, shared = offered_alternatives(props, alts if isinstance(alts, list) else [alts])
        required.extend(r for r in shared if r not in required)
        report.add(
            f"/{key}",
            "removed",
            key,
            f"top-level {key} is not sent (parameters must be an object); the alternatives' properties are offered "
            "as optional properties and only the names every alternative requires stay required (arguments are "
            "still validated against the original schema)",
            lossy=True,
        )
    out.setdefault("type", "object")
    if props or "properties" in out:
        out["properties"] = props
    if required:
        out["required"] = required
    return out


_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "$anchor",
        "readOnly",
        "writeOnly",
        "deprecated",
        "contentMediaType",
        "contentEncoding",
        "$vocabulary",
        "$dynamicAnchor",
    }
)


def _convert(node: Any, path: tuple[Any, ...], report: TranslationReport) -> Any:
    if node is True:
        # the boolean schema ``true`` (any value): sent as ``{}`` is (the Schema takes objects only)
        node = {}
    if not isinstance(node, dict):
        return copy.deepcopy(node)
    here = json_pointer(path) or "/"
    node = dict(node)
    out: dict[str, Any] = {}

    # allOf: a single member is merged; more cannot be expressed
    if "allOf" in node:
        members = node.pop("allOf")
        if isinstance(members, list) and len(members) == 1 and isinstance(members[0], dict):
            for k, v in members[0].items():
                node.setdefault(k, v)
            report.add(here, "rewritten", "allOf", "allOf with one schema merged into its parent")
        else:
            report.add(here, "removed", "allOf", f"allOf is not supported ({_RULE})", lossy=True)

    if "oneOf" in node:
        if "anyOf" in node:
            report.add(here, "removed", "oneOf", "oneOf beside anyOf is not supported", lossy=True)
            node.pop("oneOf")
        else:
            node["anyOf"] = node.pop("oneOf")
            report.add(here, "rewritten", "oneOf", "oneOf sent as anyOf (Schema has no oneOf)")

    nullable = False
    # type arrays
    t = node.get("type")
    if isinstance(t, list):
        kinds = [x for x in t if x != "null"]
        if "null" in t:
            nullable = True
        if len(kinds) == 1:
            node["type"] = kinds[0]
            if nullable:
                report.add(here, "nullable", "type", f"type {t} sent as type {kinds[0]!r} with nullable: true")
        elif not kinds:
            node["type"] = "null"
        else:
            node.pop("type")
            branches = [{"type": k} for k in kinds]
            if "anyOf" in node:
                report.add(here, "removed", "type", f"type {t} beside anyOf cannot be expressed", lossy=True)
            else:
                node["anyOf"] = branches
                report.add(here, "rewritten", "type", f"type {t} sent as anyOf of single types")

    # anyOf with a null branch
    if isinstance(node.get("anyOf"), list):
        branches = node["anyOf"]
        non_null = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null" and len(b) == 1)]
        if len(non_null) != len(branches):
            nullable = True
            if len(non_null) == 1 and isinstance(non_null[0], dict):
                node.pop("anyOf")
                merged = dict(non_null[0])
                for k, v in node.items():
                    if k in ("description", "title", "default") or k not in merged:
                        merged[k] = v
                node = merged
                report.add(here, "nullable", "anyOf", "anyOf [X, null] sent as X with nullable: true")
                # the merged branch may itself carry a type list
                if isinstance(node.get("type"), list):
                    inner = _convert(node, path, report)
                    inner["nullable"] = True
                    if isinstance(inner.get("anyOf"), list):
                        _anyof_alone(inner, here, report)  # nullable goes into the branches too
                    return inner
            else:
                node["anyOf"] = non_null
                report.add(here, "nullable", "anyOf", "null branch of anyOf sent as nullable: true")

    if "const" in node:
        const = node.pop("const")
        if "enum" not in node:
            node["enum"] = [const]
            report.add(here, "rewritten", "const", f"const {const!r} sent as a one-value enum")
        else:
            report.add(here, "removed", "const", "const beside enum removed")

    if isinstance(node.get("enum"), list):
        values = node["enum"]
        if None in values:
            nullable = True
            values = [v for v in values if v is not None]
            report.add(here, "nullable", "enum", "null in enum sent as nullable: true")
        if any(not isinstance(v, str) for v in values):
            strings = []
            for v in values:
                s = enum_string(v)
                if s not in strings:
                    strings.append(s)
            collided = len(strings) < len(values)  # 1 and "1", True and "true": one string for two values
            report.add(
                here,
                "stringified",
                "enum",
                f"enum values {values!r} sent as strings {strings!r} (Schema enums are strings); answers are converted back"
                + (
                    "; values that write as the same string cannot be told apart (only one of them can be answered)"
                    if collided
                    else ""
                ),
                lossy=collided,
            )
            if node.get("type") not in (None, "string"):
                report.add(
                    here,
                    "rewritten",
                    "type",
                    f"type {node.get('type')!r} sent as 'string' because of the stringified enum",
                )
            node["type"] = "string"
            if "default" in node and not isinstance(node["default"], str):
                node["default"] = enum_string(node["default"])
            node.pop("format", None)
            values = strings
        if "" in values:
            # 'enum[3]: cannot be empty' (API error for a "" member)
            values = [v for v in values if v != ""]
            report.add(
                here,
                "removed",
                "enum",
                "the empty string removed from enum (Schema enum members cannot be empty)",
                lossy=True,
            )
        node["enum"] = values
        if not values:
            node.pop("enum")
        if node.get("type") is None:
            node["type"] = "string"
            report.add(
                here,
                "added",
                "type",
                "type 'string' added to an enum without a type (enum: only allowed for STRING type)",
            )

    if "examples" in node:
        examples = node.pop("examples")
        if "example" not in node and isinstance(examples, list) and examples:
            node["example"] = examples[0]
            report.add(here, "rewritten", "examples", "examples sent as example (first value)")
        else:
            report.add(here, "removed", "examples", f"examples is not supported ({_RULE})")

    fmt = node.get("format")
    if fmt is not None and fmt not in _FORMATS.get(
        node.get("type") if isinstance(node.get("type"), str) else "", set()
    ):
        node.pop("format")
        report.add(
            here,
            "removed",
            "format",
            f"format {fmt!r} is not supported for type {node.get('type')!r} in Schema",
            lossy=True,
        )

    for key, value in node.items():
        if key in ("nullable",):
            out[key] = value
            continue
        if key not in OPENAPI_KEYWORDS:
            lossy = key not in _ANNOTATIONS and not (key == "additionalProperties" and value is False)
            report.add(here, "removed", key, f"{key} is not supported ({_RULE})", lossy=lossy)
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {}
            for name, sub in value.items():
                if sub is False:  # a key that must not be sent: not offered
                    report.add(
                        json_pointer(path + (key, name)),
                        "removed",
                        key,
                        f"property {name!r} has the schema false (it must not be sent): not offered",
                    )
                    continue
                out[key][name] = _convert(sub, path + (key, name), report)
        elif key == "items":
            if isinstance(value, dict) or value is True:
                out[key] = _convert(value, path + (key,), report)
            else:
                what = "items: false (no element past the tuple's)" if value is False else "tuple-form items"
                report.add(here, "removed", key, f"{what} is not supported", lossy=True)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = []
            for i, sub in enumerate(value):
                if sub is False:  # a branch no value matches
                    report.add(json_pointer(path + (key, i)), "removed", key, "anyOf branch false (no value) left out")
                    continue
                out[key].append(_convert(sub, path + (key, i), report))
        else:
            out[key] = copy.deepcopy(value)
    if out.get("type") == "array" and "items" not in out:
        _add_items(node, out, path, here, report)
    if nullable:
        out["nullable"] = True
    if "type" not in out and "anyOf" not in out and ("properties" in out or "required" in out):
        # properties without a type: an object ("properties: only allowed for OBJECT type")
        out["type"] = "object"
        report.add(here, "added", "type", "type 'object' added to a node with properties and no type")
    if path and "type" not in out and "anyOf" not in out and "enum" not in out:
        # any value ({}, Any, a keyword that was dropped): a Schema names its type ("type: must
        # be specified when not using one_of, any_of or all_of fields"): the JSON kinds instead
        out["anyOf"] = [dict(b) for b in _ANY_VALUE]
        report.add(
            here,
            "added",
            "type",
            "a schema without a type (any value) sent as anyOf string, number, boolean, object and array of "
            "strings (the Schema object needs a type); an array of other items cannot be sent there",
            lossy=True,
        )
        if len(out) > 1:
            _anyof_alone(out, here, report)
    elif isinstance(out.get("anyOf"), list) and len(out) > 1:
        _anyof_alone(out, here, report)
    elif isinstance(out.get("type"), str) and out["type"] != "object":
        for key in _FOR_TYPE["object"]:
            if key in out:
                out.pop(key)
                report.add(
                    here, "removed", key, f"{key} is only allowed for type object, not {out['type']!r}", lossy=True
                )
    if isinstance(out.get("required"), list) and isinstance(out.get("properties"), dict):
        missing = [r for r in out["required"] if r not in out["properties"]]
        if missing:
            out["required"] = [r for r in out["required"] if r in out["properties"]]
            report.add(
                json_pointer(path + ("required",)),
                "removed",
                "required",
                f"required names without a property removed: {missing}",
                lossy=True,
            )
    return out


#: What a schema without a type (any JSON value) is sent as in the ``parameters`` dialect.
_ANY_VALUE: tuple[dict[str, Any], ...] = (
    {"type": "string"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "object"},
    {"type": "array", "items": {"type": "string"}},
)

#: The Schema fields that apply to one type only (the rest apply to any node).
_FOR_TYPE = {
    "object": ("properties", "required", "minProperties", "maxProperties", "propertyOrdering"),
    "array": ("items", "minItems", "maxItems"),
    "string": ("minLength", "maxLength", "pattern", "format", "enum"),
    "number": ("minimum", "maximum", "format"),
    "integer": ("minimum", "maximum", "format"),
}


def _anyof_alone(out: dict[str, Any], here: str, report: TranslationReport) -> None:
    """``anyOf`` must be the only field of its node (API error "schema specified other fields
    alongside any_of. When using any_of, it must be the only field set."): every other field
    moves into the branches it applies to (``description``, ``nullable`` and ``example`` into
    every branch; ``properties``/``required`` into the object branches, ``items`` into the array
    branches, ...), ``title`` and ``default`` are left out. A field no branch takes is removed
    (lossy). ``out`` is changed in place."""
    branches = _leaf_branches(out["anyOf"])
    for key in [k for k in out if k != "anyOf"]:
        value = out.pop(key)
        if key in ("title", "default"):
            report.add(here, "removed", key, f"{key} beside anyOf left out (anyOf must be the only field)")
            continue
        typed = [t for t, keys in _FOR_TYPE.items() if key in keys]
        targets = [b for b in branches if not typed or b.get("type") in typed]
        for b in targets:
            if key not in b or (key == "items" and b[key] == {}):  # ({} : the any-element items a branch got)
                b[key] = copy.deepcopy(value)
        if targets:
            report.add(here, "rewritten", key, f"{key} beside anyOf moved into {len(targets)} of its branches")
        else:
            report.add(here, "removed", key, f"{key} beside anyOf fits none of its branches", lossy=True)


def _leaf_branches(branches: list[Any]) -> list[dict[str, Any]]:
    """The branches of an ``anyOf``, with a branch that is itself an ``anyOf`` replaced by its own
    branches (a field moved into it must not sit beside its ``anyOf`` either)."""
    out: list[dict[str, Any]] = []
    for b in branches:
        if isinstance(b, dict) and isinstance(b.get("anyOf"), list):
            out.extend(_leaf_branches(b["anyOf"]))
        elif isinstance(b, dict):
            out.append(b)
    return out


def _add_items(
    node: dict[str, Any], out: dict[str, Any], path: tuple[Any, ...], here: str, report: TranslationReport
) -> None:
    """An array without ``items``: Gemini refuses it ("...parameters.properties[tags].items:
    missing field", kkrishnan90/gemini-desktop#7, router-for-me/CLIProxyAPI#5292), while JSON
    Schema allows it. A tuple (``prefixItems``, or the old list form of ``items``, both removed
    above) gives its element schemas (one, or an ``anyOf`` of the distinct ones: the positions
    are lost, reported with the removal); any other array gets ``items: {}``, any element, which
    is what the array without ``items`` meant."""
    key = "prefixItems" if isinstance(node.get("prefixItems"), list) else "items"
    found = node.get(key)
    members: list[Any] = found if isinstance(found, list) else []
    distinct: list[Any] = []
    for i, member in enumerate(members):
        if isinstance(member, dict):
            converted = _convert(member, path + (key, i), report)
            if converted not in distinct:
                distinct.append(converted)
    if distinct:
        out["items"] = distinct[0] if len(distinct) == 1 else {"anyOf": distinct}
        report.add(
            here, "added", "items", f"items made from the tuple's element schemas ({key}); Gemini requires items"
        )
    else:
        out["items"] = {}
        report.add(here, "added", "items", "items: {} (any element) added: Gemini refuses an array without items")


#: ``Schema.type`` by number: the ``Type`` enum, 0-6 alike on Vertex AI
#: (google/cloud/aiplatform/v1beta1/openapi.proto) and the Gemini API
#: (google/ai/generativelanguage/v1beta/content.proto). Recorded with the numbers and answered 200:
#: open-telemetry/opentelemetry-python-contrib instrumentation-genai/opentelemetry-instrumentation-vertexai
#: tests/cassettes/test_function_call_choice.yaml (``"parameters": {"type": 6, ...}``).
_TYPE_NUMBERS = {
    0: "type_unspecified",
    1: "string",
    2: "number",
    3: "integer",
    4: "boolean",
    5: "array",
    6: "object",
}


def openapi_to_json_schema(schema: Any) -> Any:
    """Turn a Gemini ``Schema`` (OpenAPI subset, from an imported request) into JSON Schema for
    the canonical tool: type names lower-cased, ``nullable: true`` → ``type: [X, "null"]``,
    ``format: enum`` dropped. Everything else is shared vocabulary and kept."""
    if isinstance(schema, list):
        return [openapi_to_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    nullable = bool(schema.get("nullable"))
    for key, value in schema.items():
        if key == "nullable":
            continue
        if key == "type" and isinstance(value, int) and not isinstance(value, bool) and value in _TYPE_NUMBERS:
            # the Type enum sent as its number: a client that asked for $alt=json;enum-encoding=int
            # (google-cloud-aiplatform's REST transport, on every Vertex AI call) writes the request's
            # enums as numbers too, and the API takes them (proto3 JSON)
            value = _TYPE_NUMBERS[value]
            if value == "type_unspecified":
                continue
        elif key == "type" and isinstance(value, str):
            value = value.lower()
            if value == "type_unspecified":
                continue
        elif key == "format" and value == "enum":
            continue
        elif key == "properties" and isinstance(value, dict):
            value = {n: openapi_to_json_schema(s) for n, s in value.items()}
        elif key in ("items", "anyOf"):
            value = openapi_to_json_schema(value)
        out[key] = value
    if nullable:
        t = out.get("type")
        if isinstance(t, str) and t != "null":
            out["type"] = [t, "null"]
        elif "anyOf" in out:
            out["anyOf"] = list(out["anyOf"]) + [{"type": "null"}]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = list(out["enum"]) + [None]
    return out
