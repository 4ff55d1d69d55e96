"""Checking input schemas and validating arguments with ``jsonschema`` (Draft 2020-12).

Bounds (each raises :class:`~toolwire.errors.SchemaBoundExceeded` naming it, before any
recursive work starts): an input schema nests at most :data:`MAX_SCHEMA_DEPTH` levels of JSON
objects and arrays and has at most :data:`MAX_SCHEMA_NODES` values in all. ``pattern`` and
``patternProperties`` are matched with RE2 (:mod:`toolwire.safe_regex`), which cannot
backtrack, so no pattern makes validation hang; a pattern RE2 cannot run (lookaround,
backreferences) is a :class:`~toolwire.errors.SchemaError` naming its JSON pointer.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..errors import SchemaBoundExceeded, SchemaError
from .report import json_pointer

__all__ = [
    "check_input_schema",
    "validate_arguments",
    "ArgumentError",
    "check_schema_bounds",
    "MAX_SCHEMA_DEPTH",
    "MAX_SCHEMA_NODES",
]

#: Deepest nesting of JSON objects and arrays in an input schema (the schema object is level 1;
#: each nested object property adds two levels: ``properties`` and the property's schema).
MAX_SCHEMA_DEPTH = 64
#: Most JSON values (objects, arrays, strings, numbers, ...) in one input schema.
MAX_SCHEMA_NODES = 20_000

_NOT_SCHEMAS = ("const", "enum", "default", "examples")
#: Keywords whose value maps names (data, not keywords) to schemas: a property named "default" or
#: "enum" is a schema like any other.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def check_schema_bounds(schema: Any, *, tool_name: str = "") -> None:
    """Raise :class:`SchemaBoundExceeded` when ``schema`` nests deeper than
    :data:`MAX_SCHEMA_DEPTH` or holds more than :data:`MAX_SCHEMA_NODES` values. Iterative,
    so any depth is safe to check."""
    who = f"tool {tool_name!r}: " if tool_name else ""
    nodes = 0
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            raise SchemaBoundExceeded(
                f"{who}input schema has more than {MAX_SCHEMA_NODES:,} values, the bound (MAX_SCHEMA_NODES)",
                bound="MAX_SCHEMA_NODES",
                limit=MAX_SCHEMA_NODES,
            )
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        else:
            continue
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaBoundExceeded(
                f"{who}input schema nests deeper than {MAX_SCHEMA_DEPTH} levels of objects and arrays, "
                "the bound (MAX_SCHEMA_DEPTH)",
                bound="MAX_SCHEMA_DEPTH",
                limit=MAX_SCHEMA_DEPTH,
            )
        stack.extend((c, depth + 1) for c in children)


def _patterns(node: Any, path: tuple[Any, ...]) -> list[tuple[str, str]]:
    """(JSON pointer, pattern) of every ``pattern`` and ``patternProperties`` key in a schema
    (bounded by :func:`check_schema_bounds` first)."""
    out: list[tuple[str, str]] = []
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            out.append((json_pointer([*path, "pattern"]), node["pattern"]))
        pp = node.get("patternProperties")
        if isinstance(pp, dict):
            out.extend((json_pointer([*path, "patternProperties", k]), k) for k in pp if isinstance(k, str))
        for k, v in node.items():
            if k in _SCHEMA_MAPS and isinstance(v, dict):
                for name, sub in v.items():
                    out.extend(_patterns(sub, (*path, k, name)))
            elif k not in _NOT_SCHEMAS:
                out.extend(_patterns(v, (*path, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_patterns(v, (*path, i)))
    return out


class ArgumentError:
    """One schema violation: ``pointer`` (JSON pointer into the arguments), ``rule`` (the failed
    keyword, e.g. ``required``, ``type``, ``enum``), ``message`` (jsonschema's text)."""

    __slots__ = ("pointer", "rule", "message", "schema_pointer")

    def __init__(self, pointer: str, rule: str, message: str, schema_pointer: str) -> None:
        self.pointer: str
        self.rule: str
        self.message: str
        self.schema_pointer: str
        self.pointer, self.rule, self.message, self.schema_pointer = pointer, rule, message, schema_pointer

    def __repr__(self) -> str:
        return f"ArgumentError({self.pointer!r}, {self.rule!r}, {self.message!r})"

    def render(self) -> str:
        """The problem as the model reads it in an invalid-arguments result:
        ``at <pointer>: <message> (rule: <rule>)``, the pointer ``/`` for the arguments object itself."""
        where = self.pointer or "/"
        return f"at {where}: {self.message} (rule: {self.rule})"


@functools.lru_cache(maxsize=1)
def _validator_cls() -> Any:
    """Draft 2020-12, with ``pattern``, ``patternProperties`` and ``additionalProperties`` (which
    consults ``patternProperties``) matched by RE2 instead of Python's backtracking ``re``."""
    import jsonschema
    from jsonschema.exceptions import ValidationError
    from jsonschema.validators import extend

    from ..safe_regex import UnsafePatternError, compile_pattern

    base = jsonschema.Draft202012Validator
    original_additional = base.VALIDATORS["additionalProperties"]

    def found(pattern: str, text: str) -> bool:
        try:
            return compile_pattern(pattern).search(text) is not None
        except UnsafePatternError as exc:
            raise SchemaError(f"input schema has a pattern RE2 cannot run: {exc}") from None

    def pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "string") and not found(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, pp: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in pp.items():
            for k, v in instance.items():
                if found(patrn, k):
                    yield from validator.descend(v, subschema, path=k, schema_path=patrn)

    def additional_properties(validator: Any, ap: Any, instance: Any, schema: Any) -> Any:
        pp = schema.get("patternProperties") if isinstance(schema, dict) else None
        if not pp or not validator.is_type(instance, "object"):
            yield from original_additional(validator, ap, instance, schema)
            return
        props = schema.get("properties", {})
        extras = {k for k in instance if k not in props and not any(found(p, k) for p in pp)}
        if validator.is_type(ap, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], ap, path=extra)
        elif not ap and extras:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            shown = ", ".join(repr(each) for each in sorted(pp))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {shown}")

    def multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "number") or not validator.is_type(divisor, "number"):
            return
        if not _is_multiple(instance, divisor):
            yield ValidationError(f"{instance!r} is not a multiple of {divisor!r}")

    return extend(
        base,
        {
            "pattern": pattern,
            "patternProperties": pattern_properties,
            "additionalProperties": additional_properties,
            "multipleOf": multiple_of,
        },
    )


def _is_multiple(value: Any, divisor: Any) -> bool:
    """Whether ``value`` is a multiple of ``divisor`` as the numbers are written in JSON: exactly,
    in decimal, so ``0.3`` is a multiple of ``0.1`` (binary floating point, as a plain ``value /
    divisor`` check computes it, says it is not — pydantic's ``multiple_of=0.1`` and every JSON
    Schema user mean the decimal numbers), and ``10**400`` is handled without overflow."""
    from fractions import Fraction

    try:
        d = Fraction(repr(divisor)) if isinstance(divisor, float) else Fraction(divisor)
        v = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    except (ValueError, TypeError, OverflowError):  # inf, nan: not numbers that divide
        return True
    if d <= 0:
        return True  # left to the schema check (multipleOf must be > 0)
    return (v / d).denominator == 1


@functools.lru_cache(maxsize=2)
def _format_checker(without_regex: bool) -> Any:
    """jsonschema's format checker with ``"regex"`` checked as toolwire runs patterns: by RE2
    (``\\p{L}`` and other RE2 syntax Python's ``re`` lacks are valid patterns), or not at all
    (``without_regex``: the schema check, which compiles every pattern with RE2 itself and says
    which one fails and why)."""
    import jsonschema

    from ..safe_regex import UnsafePatternError, compile_pattern

    checker = jsonschema.FormatChecker(
        [f for f in jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers if f != "regex"]
    )
    if not without_regex:

        @checker.checks("regex", raises=UnsafePatternError)
        def _regex(value: Any) -> bool:
            if isinstance(value, str):
                compile_pattern(value)
            return True

    return checker


@functools.lru_cache(maxsize=512)
def _compiled(schema_json: str) -> Any:
    cls = _validator_cls()
    schema = json.loads(schema_json)
    return cls(schema, format_checker=_format_checker(False))


def check_input_schema(schema: Any, *, tool_name: str = "") -> None:
    """Raise :class:`SchemaError` unless ``schema`` is a valid Draft 2020-12 schema with top-level
    ``"type": "object"`` (every vendor requires an object at the top)."""
    who = f"tool {tool_name!r}: " if tool_name else ""
    if not isinstance(schema, dict):
        raise SchemaError(f"{who}input schema must be a JSON object (dict), got {type(schema).__name__}")
    if schema.get("type") != "object":
        raise SchemaError(f'{who}input schema must have "type": "object" at the top level, got {schema.get("type")!r}')
    check_schema_bounds(schema, tool_name=tool_name)
    import jsonschema

    try:
        # the metaschema's "format": "regex" on pattern keywords is left to the RE2 check below
        _validator_cls().check_schema(schema, format_checker=_format_checker(True))
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
    from ..safe_regex import UnsafePatternError, compile_pattern

    for pointer, patrn in _patterns(schema, ()):
        try:
            compile_pattern(patrn)
        except UnsafePatternError as exc:
            raise SchemaError(
                f"{who}input schema has a pattern at {pointer} that RE2 cannot run: {exc.reason}"
            ) from None


def _local_refs(node: Any, path: tuple[Any, ...]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            out.append((json_pointer(list(path)), ref))
        for k, v in node.items():
            if k in _SCHEMA_MAPS and isinstance(v, dict):
                for name, sub in v.items():
                    out.extend(_local_refs(sub, (*path, k, name)))
            elif k not in _NOT_SCHEMAS:
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


_HELPERS: Any = None


def _helpers() -> Any:
    global _HELPERS
    if _HELPERS is None:
        from .._derived import schema_derived
        from ..arguments import argument_bounds

        _HELPERS = (schema_derived, argument_bounds)
    return _HELPERS


def _validator_for(schema: dict[str, Any]) -> Any:
    """The compiled validator of ``schema`` after its bounds check (raises
    :class:`SchemaBoundExceeded` past them, and then nothing is cached)."""
    check_schema_bounds(schema)
    return _compiled(json.dumps(schema, sort_keys=True))


def validate_arguments(schema: dict[str, Any], arguments: Any) -> list[ArgumentError]:
    """Validate ``arguments`` against ``schema``; return the violations (empty when valid),
    most specific first (jsonschema's ``best_match`` order), with JSON pointers into the
    arguments. Formats are checked where ``jsonschema`` knows them. Arguments nesting deeper
    than ``MAX_ARGUMENT_DEPTH`` give one violation with rule ``maxDepth``; a schema past its
    bounds raises :class:`SchemaBoundExceeded`."""
    schema_derived, argument_bounds = _helpers()
    # derived once per schema (object and contents): the bounds check, then the validator
    validator = schema_derived(schema, "validator", lambda: _validator_for(schema))
    too_deep = argument_bounds(arguments)
    if too_deep is not None:
        return [ArgumentError("", "maxDepth", too_deep, "")]
    return _violations(validator, arguments)


def validate_bounded_arguments(schema: dict[str, Any], arguments: Any) -> list[ArgumentError]:
    """:func:`validate_arguments` for ``arguments`` already within ``MAX_ARGUMENT_DEPTH`` (the
    tool executor checks that before copying them): the same violations, without walking the
    arguments for their depth a second time."""
    schema_derived = _helpers()[0]
    validator = schema_derived(schema, "validator", lambda: _validator_for(schema))
    return _violations(validator, arguments)


def _violations(validator: Any, arguments: Any) -> list[ArgumentError]:
    errors = list(validator.iter_errors(arguments))
    if not errors:
        return []
    from jsonschema.exceptions import best_match, relevance

    first = best_match(errors)
    ordered = [first] + sorted((e for e in errors if e is not first), key=relevance)
    out = []
    for e in ordered:
        out.append(
            ArgumentError(
                json_pointer(list(e.absolute_path)),
                str(e.validator),
                e.message,
                json_pointer(list(e.absolute_schema_path)),
            )
        )
    return out


# -- flat argument objects ---------------------------------------------------------------------
#: JSON Schema types of a flat property, as the Python types of parsed JSON that jsonschema
#: (Draft 2020-12) accepts for them with nothing else to check: ``integer`` is exactly ``int``
#: (``bool`` is not an integer; an integral float ``2.0`` is, but takes the general path),
#: ``number`` is ``int`` or ``float``. ``null`` is left out: a ``null`` argument takes the
#: general path, where it may be restored to its default.
_FLAT_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (),
}
#: Keywords that never make a value invalid (annotations).
_ANNOTATIONS = frozenset(
    ("description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly")
)


class FlatSchema:
    """What an input schema asks of a *flat* arguments object, when that is all it asks: a
    ``"type": "object"`` with ``properties`` whose schemas are only a ``type`` among string,
    integer, number, boolean, null and/or an ``enum`` of strings (plus annotations such as
    ``description`` and ``default``), ``required`` names and a boolean ``additionalProperties``.

    - ``properties``: ``{name: (Python types accepted, allowed strings or None)}``;
    - ``required``: the names that must be present; ``closed``: ``additionalProperties`` is false.

    An object of exactly these types (``dict`` of ``str``/``int``/``float``/``bool`` values) that
    passes :meth:`accepts` is valid for the schema by jsonschema's own rules; anything else is
    left to jsonschema. Built by :func:`flat_schema`."""

    __slots__ = ("properties", "required", "closed")

    def __init__(
        self,
        properties: dict[str, tuple[frozenset[type], frozenset[str] | None]],
        required: tuple[str, ...],
        closed: bool,
    ) -> None:
        self.properties: dict[str, tuple[frozenset[type], frozenset[str] | None]]
        self.required: tuple[str, ...]
        self.closed: bool
        self.properties, self.required, self.closed = properties, required, closed


def _flat_property(node: Any) -> tuple[frozenset[type], frozenset[str] | None] | None:
    if not isinstance(node, dict):
        return None
    if any(k not in _ANNOTATIONS and k not in ("type", "enum") for k in node):
        return None
    types: set[type] | None = None
    t = node.get("type")
    if t is not None:
        names = [t] if isinstance(t, str) else t
        if not isinstance(names, list) or not names or any(n not in _FLAT_TYPES for n in names):
            return None
        types = {py for n in names for py in _FLAT_TYPES[n]}
    strings: frozenset[str] | None = None
    if "enum" in node:
        enum = node["enum"]
        if not isinstance(enum, list) or not enum or any(type(e) is not str for e in enum):
            return None
        strings = frozenset(enum)
        types = {str} if types is None or str in types else set()
    if types is None:  # no type, no enum: any value (only the flat ones here)
        types = {str, int, float, bool}
    return frozenset(types), strings


def flat_schema(schema: Any) -> FlatSchema | None:
    """The :class:`FlatSchema` of an input schema, or ``None`` when it asks anything more (a
    nested object or array, a ``$ref``, a format, a pattern, a bound, a combinator, ...)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    if any(
        k not in _ANNOTATIONS and k not in ("type", "properties", "required", "additionalProperties") for k in schema
    ):
        return None
    props = schema.get("properties", {})
    required = schema.get("required", [])
    closed = schema.get("additionalProperties", True)
    if not isinstance(props, dict) or not isinstance(required, list) or type(closed) is not bool:
        return None
    if any(type(r) is not str for r in required) or any(type(k) is not str for k in props):
        return None
    out: dict[str, tuple[frozenset[type], frozenset[str] | None]] = {}
    for name, node in props.items():
        spec = _flat_property(node)
        if spec is None:
            return None
        out[name] = spec
    return FlatSchema(out, tuple(dict.fromkeys(required)), not closed)
