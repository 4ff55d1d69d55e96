"""The OpenAI function-parameters dialect (both APIs), strict and not: repairs and checks.

Pure functions over JSON-ready dicts. :func:`translate_parameters` turns a canonical input
schema into what OpenAI accepts (reporting every change in a
:class:`~toolwire.schema.report.TranslationReport`); :func:`parameter_problems` checks an
already-encoded ``parameters`` object and returns ``(rule suffix, pointer, message)`` triples.
The rule ids, summaries and sources live in :mod:`toolwire_openai.profile`.
"""

from __future__ import annotations

import copy
from typing import Any, Iterator

from toolwire.errors import SchemaTranslationError
from toolwire.schema.report import TranslationReport, json_pointer
from toolwire.schema.strict import StrictDialect, make_strict

__all__ = [
    "OPENAI_STRICT",
    "STRICT_KEYWORDS",
    "STRICT_FORMATS",
    "translate_parameters",
    "parameter_problems",
    "strict_size",
    "STRICT_LIMITS",
    "StrictSize",
]

#: Keywords a strict OpenAI schema may carry (Structured Outputs, "Supported schemas": strings
#: pattern/format, numbers multipleOf/maximum/exclusiveMaximum/minimum/exclusiveMinimum, arrays
#: minItems/maxItems, plus the structural keywords and annotations).
STRICT_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "definitions",
        "description",
        "title",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    }
)
#: ``format`` values strict mode accepts (Structured Outputs, "Supported properties").
STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
#: OpenAI's strict mode as data for the vendor-neutral transform.
OPENAI_STRICT = StrictDialect(
    STRICT_KEYWORDS,
    STRICT_FORMATS,
    source="https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas",
    name="strict mode",
)

#: Structured Outputs size bounds for a strict schema (OpenAI "Structured Outputs — supported
#: schemas"): objects nested at most 10 deep, at most 5000 properties in all, at most 1000 enum
#: values in all, at most 120000 characters of property names, definition names, enum values and
#: const values together, and at most 15000 characters of values in one string enum of more
#: than 250 values.
STRICT_LIMITS = {
    "depth": 10,
    "properties": 5000,
    "enum_values": 1000,
    "total_chars": 120_000,
    "large_enum_values": 250,
    "large_enum_chars": 15_000,
}

#: Keywords OpenAI refuses at the top level of ``parameters`` (API error "schema must have type
#: 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level").
ROOT_FORBIDDEN = ("oneOf", "anyOf", "allOf", "enum", "not")


def _is_object(node: dict[str, Any]) -> bool:
    t = node.get("type")
    return (
        t == "object"
        or (isinstance(t, list) and "object" in t)
        or (t is None and isinstance(node.get("properties"), dict))
    )


# ------------------------------------------------------------------------------ translation


def _fold_root(schema: dict[str, Any], report: TranslationReport) -> dict[str, Any]:
    """Remove the top-level combinators OpenAI refuses, keeping what can be kept.

    - ``allOf``: each branch that is an object schema (``properties``/``required``, no
      conflicting property) is merged into the root (nothing is lost: every branch must hold
      anyway); any other branch is dropped and reported lossy;
    - ``anyOf``/``oneOf``: the properties of the object branches become optional root
      properties (the model still sees every field); the choice between the branches is not
      sent (lossy; argument validation still uses the original schema);
    - ``enum``/``not`` at the root: dropped (lossy).
    """
    out = dict(schema)
    props: dict[str, Any] = dict(out.get("properties") or {}) if isinstance(out.get("properties"), dict) else {}
    required: list[str] = list(out.get("required") or []) if isinstance(out.get("required"), list) else []
    all_of = out.pop("allOf", None)
    if all_of is not None:
        branches = all_of if isinstance(all_of, list) else [all_of]
        for i, branch in enumerate(branches):
            mergeable = (
                isinstance(branch, dict)
                and set(branch) <= {"type", "properties", "required", "description", "title", "additionalProperties"}
                and branch.get("type", "object") == "object"
                and isinstance(branch.get("properties", {}), dict)
                and all(props.get(k, v) == v for k, v in (branch.get("properties") or {}).items())
            )
            if mergeable:
                props.update(copy.deepcopy(branch.get("properties") or {}))
                required.extend(r for r in branch.get("required") or [] if r not in required)
                if branch.get("additionalProperties") is False and "additionalProperties" not in out:
                    out["additionalProperties"] = False
                report.add(f"/allOf/{i}", "inlined", "allOf", "top-level allOf branch merged into the root object")
            else:
                report.add(
                    f"/allOf/{i}",
                    "removed",
                    "allOf",
                    "top-level allOf branch that is not a plain object schema is not sent (OpenAI refuses allOf at the "
                    "top level); arguments are still validated against the original schema",
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
            f"top-level {key} is not sent (OpenAI refuses it at the top level); the properties of its object branches "
            "are offered as optional properties (one several branches define differently takes any of their "
            "definitions), only the names every branch requires stay required, and arguments are still validated "
            "against the original schema",
            lossy=True,
        )
    for key in ("enum", "not"):
        if key in out:
            out.pop(key)
            report.add(
                f"/{key}",
                "removed",
                key,
                f"top-level {key!r} is not sent (OpenAI refuses it at the top level); "
                "arguments are still validated against the original schema",
                lossy=True,
            )
    if props or "properties" in out:
        out["properties"] = props
    if required:
        out["required"] = required
    return out


def _root_repairs(schema: Any, report: TranslationReport) -> dict[str, Any]:
    """The repairs of the non-strict dialect (the root and shape of ``parameters``)."""
    if not isinstance(schema, dict):
        raise SchemaTranslationError(
            f"the input schema of tool {report.tool!r} is not a JSON object",
            "",
            rule=f"{report.api}.schema.root-not-object",
        )
    out = copy.deepcopy(schema)
    if any(k in out for k in ROOT_FORBIDDEN):
        out = _fold_root(out, report)
    t = out.get("type")
    if t is None:
        out["type"] = "object"
        report.add(
            "/type",
            "added",
            "type",
            "'type': 'object' added at the top level (OpenAI requires an object schema "
            "there; tool arguments are always an object)",
        )
    elif t != "object":
        if isinstance(t, list) and "object" in t:
            out["type"] = "object"
            report.add(
                "/type",
                "rewritten",
                "type",
                f"top-level type {t!r} narrowed to 'object' (tool arguments are always an object)",
            )
        else:
            raise SchemaTranslationError(
                f"the input schema of tool {report.tool!r} has top-level type {t!r}; OpenAI accepts only an object schema "
                "there (wrap the value in an object property)",
                "/type",
                rule=f"{report.api}.schema.root-not-object",
            )
    if "properties" in out and not isinstance(out["properties"], dict):
        if out["properties"] in ([], None):
            out["properties"] = {}
            report.add("/properties", "rewritten", "properties", "empty 'properties' array/null written as {}")
        else:
            raise SchemaTranslationError(
                f"the input schema of tool {report.tool!r} has a 'properties' that is not an object",
                "/properties",
                rule=f"{report.api}.schema.shape",
            )
    if "properties" not in out:
        out["properties"] = {}
        report.add(
            "/properties",
            "added",
            "properties",
            "'properties': {} added (OpenAI answers 'object schema missing properties' without it)",
        )
    if "required" in out and out["required"] is None:
        out.pop("required")
        report.add("/required", "removed", "required", "'required': null removed (it must be an array)")
    for node, path in _walk_all(out, ()):
        if _array_without_items(node):
            node["items"] = {}
            report.add(
                json_pointer((*path, "items")),
                "added",
                "items",
                "'items': {} (any element) added: OpenAI answers 'array schema missing items' without it "
                "(in strict mode such an array cannot be strict)",
            )
    return out


def _array_without_items(node: dict[str, Any]) -> bool:
    """An array schema without ``items`` (nor the tuple form ``prefixItems``), which OpenAI refuses
    in both modes."""
    t = node.get("type")
    return (
        (t == "array" or (isinstance(t, list) and "array" in t)) and "items" not in node and "prefixItems" not in node
    )


def _strict_post(node: Any, path: tuple[Any, ...], report: TranslationReport) -> None:
    """After :func:`~toolwire.schema.strict.make_strict`: every object schema gets
    ``properties`` (and ``required``), which strict mode demands even when empty."""
    if isinstance(node, list):
        for i, sub in enumerate(node):
            _strict_post(sub, (*path, i), report)
        return
    if not isinstance(node, dict):
        return
    if _is_object(node) and "properties" not in node and "$ref" not in node:
        node["properties"] = {}
        node["required"] = []
        report.add(
            json_pointer((*path, "properties")),
            "added",
            "properties",
            "'properties': {} and 'required': [] added (strict mode needs both on every object)",
        )
        # keep additionalProperties last for readable output
        if "additionalProperties" in node:
            node["additionalProperties"] = node.pop("additionalProperties")
    for key in ("properties", "$defs", "definitions"):
        if isinstance(node.get(key), dict):
            for name, sub in node[key].items():
                _strict_post(sub, (*path, key, name), report)
    for key in ("items", "anyOf"):
        if key in node:
            _strict_post(node[key], (*path, key), report)


def translate_parameters(schema: dict[str, Any], report: TranslationReport, *, strict: bool) -> dict[str, Any]:
    """The ``parameters`` to send for a canonical input schema (not modified).

    Non-strict: the root repairs (:func:`_root_repairs`). Strict (``strict=True``): the same,
    then :func:`~toolwire.schema.strict.make_strict`, then ``properties`` on every object and the
    size bounds (:data:`STRICT_LIMITS`). When the schema cannot be strict (an open map, a
    keyword strict mode cannot express, a bound passed) ``report.strict_possible`` is False,
    every reason is in the report, and the non-strict translation is returned — the adapter
    then sends ``strict: false``. Raises :class:`~toolwire.errors.SchemaTranslationError`
    (naming the pointer and the rule) for a schema no OpenAI dialect accepts (a top-level type
    other than object)."""
    base = _root_repairs(schema, report)
    if not strict:
        return base
    strict_schema, strict_report = make_strict(base, api=report.api, tool=report.tool, dialect=OPENAI_STRICT)
    report.changes.extend(strict_report.changes)
    if strict_schema is None:
        report.strict_possible = False
        return base
    _strict_post(strict_schema, (), report)
    size = strict_size(strict_schema)
    over = size.over()
    if over:
        for what in over:
            report.add(
                "", "unsupported", "size", f"strict mode bound passed: {what}; sent with strict: false", lossy=True
            )
        report.strict_possible = False
        return base
    report.strict_possible = True
    return strict_schema


# ------------------------------------------------------------------------------------ checks


class StrictSize:
    """Sizes of a schema measured the way the strict-mode bounds are stated."""

    def __init__(self) -> None:
        self.depth = 0
        self.properties = 0
        self.enum_values = 0
        self.total_chars = 0
        self.large_enum_chars = 0

    def over(self) -> list[str]:
        """The bounds of :data:`STRICT_LIMITS` this size passes, in words."""
        lim = STRICT_LIMITS
        out = []
        if self.depth > lim["depth"]:
            out.append(f"objects nested {self.depth} deep (at most {lim['depth']})")
        if self.properties > lim["properties"]:
            out.append(f"{self.properties} properties (at most {lim['properties']})")
        if self.enum_values > lim["enum_values"]:
            out.append(f"{self.enum_values} enum values (at most {lim['enum_values']})")
        if self.total_chars > lim["total_chars"]:
            out.append(f"{self.total_chars} characters of names and enum/const values (at most {lim['total_chars']})")
        if self.large_enum_chars > lim["large_enum_chars"]:
            out.append(
                f"{self.large_enum_chars} characters in one enum of more than {lim['large_enum_values']} values "
                f"(at most {lim['large_enum_chars']})"
            )
        return out


def strict_size(schema: Any) -> StrictSize:
    """Measure ``schema`` against :data:`STRICT_LIMITS` (iterative; ``$ref`` not followed —
    ``$defs`` are measured where they are written)."""
    size = StrictSize()
    stack: list[tuple[Any, int]] = [(schema, 1 if isinstance(schema, dict) and _is_object(schema) else 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict):
            continue
        size.depth = max(size.depth, depth)
        props = node.get("properties")
        if isinstance(props, dict):
            size.properties += len(props)
            size.total_chars += sum(len(str(k)) for k in props)
        for key in ("$defs", "definitions"):
            if isinstance(node.get(key), dict):
                size.total_chars += sum(len(str(k)) for k in node[key])
                stack.extend((sub, depth) for sub in node[key].values())
        enum = node.get("enum")
        if isinstance(enum, list):
            size.enum_values += len(enum)
            chars = sum(len(v) for v in enum if isinstance(v, str))
            size.total_chars += chars
            if len(enum) > STRICT_LIMITS["large_enum_values"] and all(isinstance(v, str) for v in enum):
                size.large_enum_chars = max(size.large_enum_chars, chars)
        if isinstance(node.get("const"), str):
            size.total_chars += len(node["const"])
        children: list[Any] = []
        if isinstance(props, dict):
            children.extend(props.values())
        if isinstance(node.get("items"), dict):
            children.append(node["items"])
        if isinstance(node.get("anyOf"), list):
            children.extend(node["anyOf"])
        for child in children:
            inc = 1 if isinstance(child, dict) and _is_object(child) else 0
            stack.append((child, depth + inc))
    return size


#: Keywords whose value is one schema, a list of schemas, or a map of name → schema.
_ONE_SCHEMA = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")


def _walk_all(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[dict[str, Any], tuple[Any, ...]]]:
    """Every schema object in ``node``, under any keyword that holds schemas (the API checks
    them all, e.g. for 'array schema missing items'), with its path."""
    stack = [(node, path)]
    while stack:
        cur, p = stack.pop()
        if not isinstance(cur, dict):
            continue
        yield cur, p
        for key in _SCHEMA_MAPS:
            if isinstance(cur.get(key), dict):
                stack.extend((sub, (*p, key, name)) for name, sub in cur[key].items())
        for key in _ONE_SCHEMA:
            if isinstance(cur.get(key), dict):
                stack.append((cur[key], (*p, key)))
        for key in _SCHEMA_LISTS:
            if isinstance(cur.get(key), list):
                stack.extend((sub, (*p, key, i)) for i, sub in enumerate(cur[key]))


def _walk(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[dict[str, Any], tuple[Any, ...]]]:
    stack = [(node, path)]
    while stack:
        cur, p = stack.pop()
        if not isinstance(cur, dict):
            continue
        yield cur, p
        for key in ("properties", "$defs", "definitions"):
            if isinstance(cur.get(key), dict):
                stack.extend((sub, (*p, key, name)) for name, sub in cur[key].items())
        if isinstance(cur.get("items"), dict):
            stack.append((cur["items"], (*p, "items")))
        if isinstance(cur.get("anyOf"), list):
            stack.extend((sub, (*p, "anyOf", i)) for i, sub in enumerate(cur["anyOf"]))


def parameter_problems(parameters: Any, *, strict: bool, base: str = "") -> list[tuple[str, str, str]]:
    """Rule breaches of an encoded ``parameters`` object: ``(rule suffix, pointer, message)``;
    ``base`` is the pointer of ``parameters`` in the request body. Rule suffixes:
    ``schema.root-not-object``, ``schema.root-combinator``, ``schema.shape``,
    ``schema.array-items`` (both modes);
    ``strict.closed-objects``, ``strict.all-required``, ``strict.no-default``,
    ``strict.keywords``, ``strict.formats``, ``strict.object-properties``, ``strict.ref-siblings``,
    ``strict.inexpressible`` and ``strict.size-limits`` (strict only)."""
    out: list[tuple[str, str, str]] = []
    if parameters is None:
        return out  # "Omitting parameters defines a function with an empty parameter list."
    if not isinstance(parameters, dict):
        return [("schema.root-not-object", base, "parameters must be a JSON Schema object")]
    if parameters.get("type") != "object":
        out.append(
            (
                "schema.root-not-object",
                f"{base}/type",
                f"the top level must be 'type': 'object', got {parameters.get('type')!r}",
            )
        )
    for key in ROOT_FORBIDDEN:
        if key in parameters:
            out.append(("schema.root-combinator", f"{base}/{key}", f"{key!r} is not accepted at the top level"))
    if "properties" in parameters and not isinstance(parameters["properties"], dict):
        out.append(("schema.shape", f"{base}/properties", "'properties' must be an object"))
    if "required" in parameters and not isinstance(parameters["required"], list):
        out.append(("schema.shape", f"{base}/required", "'required' must be an array"))
    for node, path in _walk_all(parameters, ()):
        if _array_without_items(node):
            out.append(("schema.array-items", base + json_pointer(path), "array schema missing items"))
    if not strict:
        return out
    for node, path in _walk(parameters, ()):
        at = base + json_pointer(path)
        for key in node:
            if key == "default":
                out.append(("strict.no-default", f"{at}/default", "'default' is not permitted in strict mode"))
            elif key not in STRICT_KEYWORDS:
                out.append(("strict.keywords", f"{at}/{key}", f"keyword {key!r} is not supported in strict mode"))
        if "format" in node and node["format"] not in STRICT_FORMATS:
            out.append(("strict.formats", f"{at}/format", f"format {node['format']!r} is not supported in strict mode"))
        if "$ref" in node and len(node) > 1:
            out.append(
                ("strict.ref-siblings", at, f"$ref cannot have keywords {sorted(k for k in node if k != '$ref')}")
            )
        if not any(k in node for k in ("type", "anyOf", "$ref", "enum", "const")):
            out.append(("strict.inexpressible", at, "schema must have a 'type' key in strict mode"))
        if _is_object(node) and "$ref" not in node:
            extra = node.get("additionalProperties", None)
            if "additionalProperties" in node and extra is not False:
                out.append(
                    (
                        "strict.inexpressible",
                        f"{at}/additionalProperties",
                        "an open map (additionalProperties is not false) cannot be expressed in strict mode",
                    )
                )
                continue
            if extra is not False:
                out.append(
                    (
                        "strict.closed-objects",
                        f"{at}/additionalProperties",
                        "'additionalProperties' is required to be supplied and to be false",
                    )
                )
            props = node.get("properties")
            if not isinstance(props, dict):
                out.append(("strict.object-properties", at, "object schema missing properties"))
            else:
                req = node.get("required") if isinstance(node.get("required"), list) else []
                missing = [k for k in props if k not in req]
                if missing:
                    out.append(
                        (
                            "strict.all-required",
                            f"{at}/required",
                            f"'required' must list every property; missing {missing}",
                        )
                    )
    over = strict_size(parameters).over()
    if over:
        out.append(("strict.size-limits", base, "; ".join(over)))
    return out
