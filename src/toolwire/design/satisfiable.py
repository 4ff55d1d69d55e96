"""Which parts of an input schema no value can satisfy (the ``schema-unsatisfiable`` lint rule).

The analysis reads a JSON Schema (Draft 2020-12, as toolwire validates arguments) and, for each
subschema, over-approximates the JSON types a valid value may have: ``null``, ``boolean``,
``object``, ``array``, ``string``, and numbers split into ``integer`` and non-integer numbers.
A subschema is reported as unsatisfiable only when that set is provably empty, so whatever it
cannot decide (``if``/``then``/``else``, ``pattern`` against length bounds, overlapping
``oneOf`` branches, recursion through ``$ref``) counts as satisfiable: a finding is never a guess.

What empties the set, each reported at the JSON pointer of the subschema (or keyword) to change:

- ``false``, ``{"not": {}}`` (``not`` of a schema without assertions), ``"type": []``,
  ``"enum": []``, a ``const`` missing from ``enum``;
- numeric bounds that leave no number (``minimum > maximum``, ``exclusiveMinimum >=
  exclusiveMaximum``, mixed forms), no integer (for ``"type": "integer"``), or no multiple of
  ``multipleOf`` among the integers in range;
- ``minLength > maxLength``, ``minItems > maxItems``, ``minContains > maxContains``,
  ``minProperties > maxProperties``, more ``required`` names than ``maxProperties``;
- a required property whose schema is unsatisfiable, or that is not in ``properties`` while
  ``additionalProperties`` is ``false`` (and no ``patternProperties`` pattern matches it);
  an array that needs items (``minItems``, ``contains``) none of which can be valid;
- ``const`` or every ``enum`` value failing the subschema's own ``type``, bounds, lengths,
  ``multipleOf``, ``pattern`` or ``required``;
- types that do not intersect across ``type``, ``$ref``, ``allOf``, ``anyOf``/``oneOf`` and
  ``not: {"type": ...}``.

Satisfiability propagates upwards: a required property that can never be valid makes its object
unsatisfiable, and so on up to the arguments object (severity ``error``). An optional property
that can never be valid (``warning``) only loses that parameter; so do a dead ``anyOf``/``oneOf``
branch, ``items`` that leave only the empty array, ``enum`` values that can never pass, and a
declared type that bounds exclude (``"type": ["integer", "null"]`` with ``minimum > maximum``).

Local ``$ref`` targets are analysed once each (a reference met again while its target is being
analysed counts as satisfiable), and the work is bounded by :data:`MAX_STEPS` steps (a subschema,
an enum value, a pattern matched against a required name) and :data:`MAX_DEPTH` nested
subschemas; past either bound the rest counts as satisfiable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, TypeGuard

from .._words import plural
from ..schema.report import json_pointer

__all__ = ["Unsatisfiable", "unsatisfiable_parts", "MAX_STEPS", "MAX_DEPTH"]

#: Most steps of one analysis (a subschema, an enum value weighed by its size, a pattern matched
#: against a required name); past it the rest counts as satisfiable.
MAX_STEPS = 50_000
#: Deepest nesting of subschemas (through ``$ref`` too) one analysis follows.
MAX_DEPTH = 100

_NUM = frozenset({"integer", "fraction"})
_ALL = frozenset({"null", "boolean", "object", "array", "string", "integer", "fraction"})
_TYPE_ATOMS: dict[str, frozenset[str]] = {
    "null": frozenset({"null"}),
    "boolean": frozenset({"boolean"}),
    "object": frozenset({"object"}),
    "array": frozenset({"array"}),
    "string": frozenset({"string"}),
    "integer": frozenset({"integer"}),
    "number": _NUM,
}
#: Keywords that assert nothing about a value (a schema of only these accepts everything).
#: ``format`` is not one: toolwire validates arguments with a format checker.
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$comment",
        "$defs",
        "definitions",
        "$vocabulary",
        "title",
        "description",
        "default",
        "examples",
        "example",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
        "nullable",
        "discriminator",
    }
)


@dataclass(frozen=True)
class Unsatisfiable:
    """One finding: ``pointer`` (JSON pointer into the input schema), ``severity`` (``error``
    when no arguments object can be valid, else ``warning``), ``message`` (which part, why no
    value fits, what that costs) and ``fix`` (what to change)."""

    pointer: str
    severity: str
    message: str
    fix: str


@dataclass(frozen=True)
class _Cause:
    path: tuple[Any, ...]  # where to change (a subschema, or one of its keywords)
    reason: str
    fix: str
    keyword: int = 0  # how many trailing path items name a keyword, not the subschema


@dataclass
class _Res:
    types: frozenset[str]
    causes: list[_Cause] = field(default_factory=list)


_SAT = _Res(_ALL)


def _is_num(v: Any) -> TypeGuard[int | float]:
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, float) and math.isfinite(v))


def _is_count(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _atom(value: Any) -> str | None:
    """The type atom of a JSON value, as jsonschema types it (``2.0`` is an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "fraction"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return None


def _json_eq(a: Any, b: Any) -> bool:
    """JSON equality as JSON Schema's ``const``/``enum`` use it (``1 == 1.0``, ``true != 1``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_eq(a[k], b[k]) for k in a)
    if isinstance(a, (list, dict, str)) or isinstance(b, (list, dict, str)):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _names(atoms: Iterable[str]) -> str:
    """``"string or integer"`` for a set of atoms (``integer`` + ``fraction`` is ``number``)."""
    s = set(atoms)
    out = []
    for name in ("null", "boolean", "object", "array", "string"):
        if name in s:
            out.append(name)
    if _NUM <= s:
        out.append("number")
    elif "integer" in s:
        out.append("integer")
    elif "fraction" in s:
        out.append("non-integer number")
    return " or ".join(out) if out else "no type"


def _declared(types: frozenset[str]) -> list[str]:
    """The type names a set of atoms is made of (``number`` when both numeric atoms are in)."""
    out = [n for n in ("null", "boolean", "object", "array", "string") if n in types]
    if _NUM <= types:
        out.append("number")
    elif "integer" in types:
        out.append("integer")
    return out


def _show(value: Any) -> str:
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_of(value: Any) -> str:
    atom = _atom(value)
    return {
        "fraction": "a non-integer number",
        "integer": "an integer",
        "array": "an array",
        "object": "an object",
    }.get(atom or "", f"a {atom}" if atom else type(value).__name__)


class _Analysis:
    def __init__(self, root: dict[str, Any], prefix: str) -> None:
        self.root = root
        self.prefix = prefix
        self.steps = 0
        self.depth = 0
        self.memo: dict[str, _Res] = {}
        self.active: set[str] = set()
        # (cause, consequence, whole) for parts that lose a parameter, an option or a value but
        # leave the whole value satisfiable; whole: the cause's own subschema admits no value
        self.warnings: list[tuple[_Cause, str, bool]] = []

    def ptr(self, path: tuple[Any, ...]) -> str:
        return self.prefix + json_pointer(path) or "/"

    def subject(self, c: _Cause) -> str:
        """The pointer of the subschema a cause is about (its path without a keyword tail)."""
        return self.ptr(c.path[: len(c.path) - c.keyword])

    # -- one subschema ---------------------------------------------------------------------------

    def node(self, n: Any, path: tuple[Any, ...]) -> _Res:
        if n is True:
            return _SAT
        if n is False:
            return _Res(
                frozenset(),
                [
                    _Cause(
                        path,
                        "the schema is false, which no value satisfies",
                        "replace false with the schema of the values to accept, or remove it",
                    )
                ],
            )
        if not isinstance(n, dict):
            return _SAT  # malformed: schema-invalid reports it
        self.steps += 1
        if self.steps > MAX_STEPS or self.depth >= MAX_DEPTH:
            return _SAT
        self.depth += 1
        try:
            return self._schema(n, path)
        finally:
            self.depth -= 1

    def _schema(self, n: dict[str, Any], path: tuple[Any, ...]) -> _Res:
        types = _ALL
        shaped: list[tuple[str, frozenset[str]]] = []  # (where, the types it allows) for messages

        def narrow(where: str, allowed: frozenset[str]) -> None:
            nonlocal types
            if allowed != _ALL:
                shaped.append((where, allowed))
            types = types & allowed

        # "type"
        t = n.get("type")
        if isinstance(t, list) and not t:
            return self._unsat(
                path + ("type",),
                '"type": [] names no type, so no value has one of them',
                'name at least one type, e.g. "type": "string"',
                1,
            )
        names = [t] if isinstance(t, str) else t if isinstance(t, list) else None
        if names is not None and all(isinstance(x, str) and x in _TYPE_ATOMS for x in names):
            narrow('"type"', frozenset().union(*(_TYPE_ATOMS[x] for x in names)))

        # "$ref" (applies together with its siblings in 2020-12)
        ref = n.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            r = self.ref(ref)
            if not r.types:
                return _Res(frozenset(), r.causes)
            narrow(f'"$ref": {ref!r}', r.types)

        # "allOf": every branch
        branches = n.get("allOf")
        if isinstance(branches, list):
            for i, b in enumerate(branches):
                r = self.node(b, path + ("allOf", i))
                if not r.types:
                    return _Res(frozenset(), r.causes)
                narrow(f"allOf/{i}", r.types)

        # "anyOf" / "oneOf": at least one branch (oneOf's exclusivity is not analysed)
        for key in ("anyOf", "oneOf"):
            branches = n.get(key)
            if not isinstance(branches, list) or not branches:
                continue
            results = [self.node(b, path + (key, i)) for i, b in enumerate(branches)]
            live = frozenset().union(*(r.types for r in results))
            if not live:
                return _Res(frozenset(), [c for r in results for c in r.causes])
            for i, r in enumerate(results):
                if not r.types:
                    where = self.ptr(path + (key, i))
                    for c in r.causes:
                        self.warnings.append(
                            (c, f"Option {where} can therefore never match (the other options still can).", True)
                        )
            narrow(key, live)

        # "not": a schema that accepts everything, or only a "type"
        neg = n.get("not")
        if neg is True or (isinstance(neg, dict) and not (set(neg) - _ANNOTATIONS)):
            return self._unsat(
                path + ("not",),
                f'"not": {_show(neg)} refuses every value, since the schema inside accepts every value',
                'remove "not", or put inside it the schema of the values to refuse',
                1,
            )
        if isinstance(neg, dict) and set(neg) - _ANNOTATIONS == {"type"}:
            nt = neg["type"]
            nn = [nt] if isinstance(nt, str) else nt if isinstance(nt, list) else []
            if nn and all(isinstance(x, str) and x in _TYPE_ATOMS for x in nn):
                narrow('"not"', _ALL - frozenset().union(*(_TYPE_ATOMS[x] for x in nn)))

        if not types:
            parts = "; ".join(f"{where} allows {_names(allowed)}" for where, allowed in shaped)
            return self._unsat(
                path,
                f"the types its keywords allow do not intersect ({parts}), so no value is of a type all of them accept",
                "make them agree on a type (or use anyOf where any one of them should do)",
            )

        # keywords of one type each: a contradiction removes that type
        before = types
        removed: list[tuple[frozenset[str], list[_Cause]]] = []

        def drop(atoms: frozenset[str], causes: list[_Cause]) -> None:
            nonlocal types
            if types & atoms:
                removed.append((types & atoms, causes))
                types = types - atoms

        if types & _NUM:
            for atoms, cause in self._numbers(n, path, types):
                drop(atoms, [cause])
        if "string" in types:
            lo, hi = n.get("minLength"), n.get("maxLength")
            if _is_count(lo) and _is_count(hi) and lo > hi:
                drop(
                    frozenset({"string"}),
                    [
                        _Cause(
                            path,
                            f'"minLength": {lo} is greater than "maxLength": {hi}, so no string fits',
                            'make "minLength" at most "maxLength"',
                        )
                    ],
                )
        if "array" in types:
            causes = self._array(n, path)
            if causes:
                drop(frozenset({"array"}), causes)
        if "object" in types:
            causes = self._object_keywords(n, path)
            if causes:
                drop(frozenset({"object"}), causes)

        if not types:
            return _Res(frozenset(), [c for _atoms, cs in removed for c in cs])
        if before != _ALL:
            for atoms, cs in removed:
                lost = [name for name in _declared(before) if _TYPE_ATOMS[name] <= atoms]
                if lost:
                    for c in cs:
                        self.warnings.append(
                            (
                                c,
                                f"No {' or '.join(lost)} is valid at {self.ptr(path)}, only {_names(types)}: "
                                "a call that gives one fails argument validation.",
                                False,
                            )
                        )

        # "const" / "enum": the values that can pass the rest of the subschema
        return self._values(n, path, types)

    def _unsat(self, path: tuple[Any, ...], reason: str, fix: str, keyword: int = 0) -> _Res:
        return _Res(frozenset(), [_Cause(path, reason, fix, keyword)])

    # -- $ref --------------------------------------------------------------------------------------

    def ref(self, ref: str) -> _Res:
        if ref in self.memo:
            return self.memo[ref]
        if ref in self.active:
            return _SAT  # recursion: counted as satisfiable
        from ..errors import SchemaTranslationError
        from ..schema.refs import resolve_pointer

        try:
            target, tpath = resolve_pointer(self.root, ref)
        except SchemaTranslationError:
            return _SAT  # an anchor or a dangling reference: schema-invalid reports the latter
        self.active.add(ref)
        try:
            res = self.node(target, tpath)
        finally:
            self.active.discard(ref)
        self.memo[ref] = res
        return res

    # -- numbers -----------------------------------------------------------------------------------

    def _numbers(
        self, n: dict[str, Any], path: tuple[Any, ...], types: frozenset[str]
    ) -> Iterable[tuple[frozenset[str], _Cause]]:
        mn, mx = n.get("minimum"), n.get("maximum")
        emn, emx = n.get("exclusiveMinimum"), n.get("exclusiveMaximum")
        lows = [(v, False, "minimum") for v in (mn,) if _is_num(v)] + [
            (v, True, "exclusiveMinimum") for v in (emn,) if _is_num(v)
        ]
        highs = [(v, False, "maximum") for v in (mx,) if _is_num(v)] + [
            (v, True, "exclusiveMaximum") for v in (emx,) if _is_num(v)
        ]
        for lo, lo_ex, lo_kw in lows:
            for hi, hi_ex, hi_kw in highs:
                if lo > hi or (lo == hi and (lo_ex or hi_ex)):
                    rel = "greater than" if lo > hi else "equal to"
                    yield (
                        _NUM,
                        _Cause(
                            path,
                            f'"{lo_kw}": {_show(lo)} is {rel} "{hi_kw}": {_show(hi)}, so no number fits',
                            f'make "{lo_kw}" less than "{hi_kw}" (were they swapped?)'
                            if lo_ex or hi_ex
                            else f'make "{lo_kw}" at most "{hi_kw}" (were they swapped?)',
                        ),
                    )
                    return
        if "integer" not in types:
            return
        # the integers in range: [first, last]
        first = last = None
        for lo, lo_ex, _kw in lows:
            k = math.floor(lo) + 1 if lo_ex else math.ceil(lo)
            first = k if first is None else max(first, k)
        for hi, hi_ex, _kw in highs:
            k = math.ceil(hi) - 1 if hi_ex else math.floor(hi)
            last = k if last is None else min(last, k)
        bounds = ", ".join(f'"{kw}": {_show(v)}' for v, _e, kw in lows + highs)
        if first is not None and last is not None and first > last:
            yield (
                frozenset({"integer"}),
                _Cause(
                    path,
                    f"no integer lies within {bounds}",
                    'widen the bounds so they hold an integer, or use "type": "number"',
                ),
            )
            return
        m = n.get("multipleOf")
        if first is None or last is None or not _is_num(m) or m <= 0:
            return
        step = _integer_step(m)
        if step is None or max(abs(first), abs(last)) > 2**50 or step > 2**50:
            return
        lowest = -(-first // step) * step  # the least multiple of step that is >= first
        if lowest > last:
            shown = f"multiple of {_show(m)}" + (f" (every integer one is a multiple of {step})" if step != m else "")
            yield (
                frozenset({"integer"}),
                _Cause(
                    path,
                    f"no integer {shown} lies within {bounds} (the integers from {first} to {last})",
                    'widen the bounds to include a multiple, or change "multipleOf"',
                ),
            )

    # -- arrays ------------------------------------------------------------------------------------

    def _array(self, n: dict[str, Any], path: tuple[Any, ...]) -> list[_Cause]:
        lo, hi = n.get("minItems"), n.get("maxItems")
        lo = lo if _is_count(lo) else 0
        if _is_count(hi) and lo > hi:
            return [
                _Cause(
                    path,
                    f'"minItems": {lo} is greater than "maxItems": {hi}, so no array fits',
                    'make "minItems" at most "maxItems"',
                )
            ]
        contains = n.get("contains")
        cmin = n.get("minContains", 1)
        cmin = cmin if _is_count(cmin) else 1
        if "contains" in n:
            cmax = n.get("maxContains")
            if _is_count(cmax) and cmin > cmax:
                return [
                    _Cause(
                        path,
                        f'"minContains": {cmin} is greater than "maxContains": {cmax}, so no array fits',
                        'make "minContains" at most "maxContains"',
                    )
                ]
            if _is_count(hi) and cmin > hi:
                return [
                    _Cause(
                        path,
                        f'"contains" needs {plural(cmin, "matching item")} but "maxItems" is {hi}, so no array fits',
                        'lower "minContains" or raise "maxItems"',
                    )
                ]
        prefix = n.get("prefixItems")
        prefix = prefix if isinstance(prefix, list) else []
        items = n.get("items") if isinstance(n.get("items"), (dict, bool)) else True
        where = self.ptr(path)
        for i, sub in enumerate(prefix):
            r = self.node(sub, path + ("prefixItems", i))
            if not r.types:
                if i < lo:
                    return r.causes
                for c in r.causes:
                    self.warnings.append(
                        (c, f"The array at {where} can therefore hold at most {plural(i, 'item')}.", True)
                    )
                break
        else:
            if items is not True:
                r = self.node(items, path + ("items",))
                if not r.types:
                    if lo > len(prefix):
                        return r.causes
                    if not (items is False and prefix):  # "items": false closes a tuple on purpose
                        for c in r.causes:
                            at_most = (
                                f"can hold at most {plural(len(prefix), 'item')}" if prefix else "can only be empty"
                            )
                            self.warnings.append((c, f"The array at {where} therefore {at_most}.", True))
        if "contains" in n and cmin > 0:
            r = self.node(contains, path + ("contains",))
            if not r.types:
                return r.causes
        return []

    # -- objects -----------------------------------------------------------------------------------

    def _object_keywords(self, n: dict[str, Any], path: tuple[Any, ...]) -> list[_Cause]:
        lo, hi = n.get("minProperties"), n.get("maxProperties")
        if _is_count(lo) and _is_count(hi) and lo > hi:
            return [
                _Cause(
                    path,
                    f'"minProperties": {lo} is greater than "maxProperties": {hi}, so no object fits',
                    'make "minProperties" at most "maxProperties"',
                )
            ]
        req = n.get("required")
        required = list(dict.fromkeys(r for r in req if isinstance(r, str))) if isinstance(req, list) else []
        if _is_count(hi) and len(required) > hi:
            return [
                _Cause(
                    path + ("required",),
                    f'"required" names {len(required)} properties but "maxProperties" is {hi}, so no object fits',
                    'raise "maxProperties" to the number of required properties, or require fewer',
                    1,
                )
            ]
        raw_props, raw_patterns = n.get("properties"), n.get("patternProperties")
        props: dict[str, Any] = raw_props if isinstance(raw_props, dict) else {}
        patterns: dict[str, Any] = raw_patterns if isinstance(raw_patterns, dict) else {}
        additional = n.get("additionalProperties", True)
        found: list[_Cause] = []
        for name, sub in props.items():
            r = self.node(sub, path + ("properties", name))
            if r.types:
                continue
            if name in required:
                found.extend(r.causes)
            else:
                where = self.ptr(path + ("properties", name))
                for c in r.causes:
                    self.warnings.append(
                        (
                            c,
                            f"The optional parameter {name!r} ({where}) can therefore never be given: "
                            "a call that gives it fails argument validation.",
                            True,
                        )
                    )
        if found:
            return found
        for i, name in enumerate(req if isinstance(req, list) else []):
            if not isinstance(name, str):
                continue
            self.steps += 1 + len(patterns)  # each pattern is matched against the name
            if self.steps > MAX_STEPS:
                return []  # past the bound: the rest counts as satisfiable
            matched = [(p, s) for p, s in patterns.items() if _matches(p, name)]
            for p, s in matched:
                r = self.node(s, path + ("patternProperties", p))
                if not r.types:
                    return r.causes
            if name in props or matched or additional is True:
                continue
            if additional is False:
                declared = ", ".join(map(repr, props)) or "none"
                return [
                    _Cause(
                        path + ("required", i),
                        f'"required" names {name!r}, which "properties" does not declare (declared: {declared}), '
                        'while "additionalProperties": false refuses every undeclared key, so no object fits',
                        f'declare {name!r} under "properties" (check its spelling), or remove it from "required"',
                        2,
                    )
                ]
            r = self.node(additional, path + ("additionalProperties",))
            if not r.types:
                return r.causes
        return []

    # -- const / enum ------------------------------------------------------------------------------

    def _values(self, n: dict[str, Any], path: tuple[Any, ...], types: frozenset[str]) -> _Res:
        enum = n.get("enum")
        has_enum = isinstance(enum, list)
        has_const = "const" in n
        if not has_enum and not has_const:
            return _Res(types)
        if has_enum and not enum:
            return self._unsat(
                path + ("enum",),
                '"enum": [] lists no value, so none is allowed',
                'list the allowed values in "enum", or remove it',
                1,
            )
        candidates = list(enum) if has_enum else [n["const"]]
        if has_enum and has_const:
            const = n["const"]
            candidates = [v for v in candidates if _json_eq(v, const)]
            if not candidates:
                return self._unsat(
                    path + ("const",),
                    f'"const": {_show(const)} is not one of "enum", so no value is both',
                    'drop "const" or "enum", or make the const one of the enum values',
                    1,
                )
        req = n.get("required")
        required = req if isinstance(req, list) else []
        fits: list[Any] = []
        misfits: list[tuple[Any, str]] = []
        for v in candidates:
            self.steps += 1 + (len(v) if isinstance(v, (dict, list)) else 0) + len(required)
            if self.steps > MAX_STEPS:
                return _Res(types)  # past the bound: the rest counts as fitting
            atom = _atom(v)
            why = None if atom in types else f"is {_type_of(v)}, not {_names(types)}"
            if atom == "null" and why and n.get("nullable") is True:
                why += ' ("nullable" is not JSON Schema: add "null" to "type")'

            why = why or _value_misfit(n, v)
            if why is None:
                fits.append(v)
            else:
                misfits.append((v, why))
        kw = "enum" if has_enum else "const"
        shown = "; ".join(f"{_show(v)} {why}" for v, why in misfits[:5]) + ("; ..." if len(misfits) > 5 else "")
        if not fits:
            what = f'the only value of "{kw}" fails' if len(candidates) == 1 else f'every value of "{kw}" fails'
            return self._unsat(
                path + (kw,),
                f"{what} the rest of this schema ({shown}), so none is allowed",
                f'make the "{kw}" values match "type" and the bounds (e.g. "type": "string" for string values), or fix the values',
                1,
            )
        if misfits:
            self.warnings.append(
                (
                    _Cause(
                        path + (kw,),
                        f'"{kw}" values that fail the rest of this schema: {shown}',
                        f'remove them from "{kw}", or change "type" and the bounds so they pass',
                        1,
                    ),
                    "A model that picks one of them fails argument validation.",
                    False,
                )
            )
        return _Res(frozenset(a for a in (_atom(v) for v in fits) if a))


def _integer_step(m: float | int) -> int | None:
    """The least positive integer every integer multiple of ``m`` is a multiple of (``m`` for an
    integral ``m``, the numerator of ``m`` for a binary fraction such as ``2.5``), or ``None``
    where float division would make the answer uncertain (``0.1``)."""
    if isinstance(m, int) or m.is_integer():
        return int(m)
    frac = Fraction(m)
    if frac.denominator > 1024:
        return None
    return frac.numerator


def _matches(pattern: Any, name: str) -> bool:
    """Whether a ``patternProperties`` pattern matches ``name`` (RE2, as validation runs it);
    ``True`` when the pattern cannot be run, so the analysis stays on the safe side."""
    from ..safe_regex import UnsafePatternError, search

    if not isinstance(pattern, str):
        return True
    try:
        return bool(search(pattern, name))
    except (UnsafePatternError, TypeError, ValueError):
        return True


def _value_misfit(n: dict[str, Any], v: Any) -> str | None:
    """Why the value ``v`` fails the simple keywords of ``n`` (as jsonschema checks them), or
    ``None`` when it passes them (keywords it does not check count as passed)."""
    if _is_num(v):
        for kw, bad in (
            ("minimum", lambda b: v < b),
            ("maximum", lambda b: v > b),
            ("exclusiveMinimum", lambda b: v <= b),
            ("exclusiveMaximum", lambda b: v >= b),
        ):
            b = n.get(kw)
            if _is_num(b) and bad(b):
                return f'is outside "{kw}": {_show(b)}'
        m = n.get("multipleOf")
        if _is_num(m) and m > 0 and not _multiple(v, m):
            return f"is not a multiple of {_show(m)}"
    elif isinstance(v, str):
        lo, hi = n.get("minLength"), n.get("maxLength")
        if _is_count(lo) and len(v) < lo:
            return f'is shorter than "minLength": {lo}'
        if _is_count(hi) and len(v) > hi:
            return f'is longer than "maxLength": {hi}'
        p = n.get("pattern")
        if isinstance(p, str) and not _matches_strictly(p, v):
            return f'does not match "pattern": {_show(p)}'
    elif isinstance(v, list):
        lo, hi = n.get("minItems"), n.get("maxItems")
        if _is_count(lo) and len(v) < lo:
            return f'has fewer items than "minItems": {lo}'
        if _is_count(hi) and len(v) > hi:
            return f'has more items than "maxItems": {hi}'
    elif isinstance(v, dict):
        lo, hi = n.get("minProperties"), n.get("maxProperties")
        if _is_count(lo) and len(v) < lo:
            return f'has fewer properties than "minProperties": {lo}'
        if _is_count(hi) and len(v) > hi:
            return f'has more properties than "maxProperties": {hi}'
        req = n.get("required")
        missing = [r for r in req if isinstance(r, str) and r not in v] if isinstance(req, list) else []
        if missing:
            return f"lacks required {', '.join(map(repr, missing))}"
    return None


def _multiple(v: int | float, m: int | float) -> bool:
    """``multipleOf`` as toolwire's argument check computes it: in decimal, as the numbers are
    written (``0.3`` is a multiple of ``0.1``)."""
    from ..schema.validate import _is_multiple

    return _is_multiple(v, m)


def _matches_strictly(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches ``text``; ``True`` when it cannot be run (no finding then)."""
    from ..safe_regex import UnsafePatternError, search

    try:
        return bool(search(pattern, text))
    except (UnsafePatternError, TypeError, ValueError):
        return True


def unsatisfiable_parts(schema: Any, *, prefix: str = "") -> list[Unsatisfiable]:
    """The parts of the input schema ``schema`` no value can satisfy, one :class:`Unsatisfiable`
    per place to change, errors first. Pointers (in the findings and their messages) are JSON
    pointers into ``schema`` after ``prefix`` (``"/input_schema"`` for lint; ``"/"`` for the root
    when ``prefix`` is empty). An error means no arguments object is valid at all; a warning,
    that a parameter, an option, a type or an enum value can never be given. A ``schema`` that
    is not an object yields nothing."""
    if not isinstance(schema, dict):
        return []
    a = _Analysis(schema, prefix)
    root = a.node(schema, ())
    out: dict[str, Unsatisfiable] = {}
    for c in root.causes if not root.types else []:
        ptr = a.ptr(c.path)
        if ptr in out:
            continue
        tail = (
            "No arguments object is valid"
            if not c.path[: len(c.path) - c.keyword]
            else "A valid call cannot leave it out, so no arguments object is valid"
        )
        out[ptr] = Unsatisfiable(
            ptr,
            "error",
            f"no value satisfies {a.subject(c)}: {c.reason}. {tail}, and every call of the tool fails argument validation.",
            c.fix,
        )
    said: dict[str, list[str]] = {}
    first: dict[str, tuple[_Cause, bool]] = {}
    for c, consequence, whole in a.warnings:
        ptr = a.ptr(c.path)
        if ptr in out:
            continue  # an error already names this place
        first.setdefault(ptr, (c, whole))
        if consequence not in said.setdefault(ptr, []):
            said[ptr].append(consequence)
    for ptr, (c, whole) in first.items():
        these = said[ptr]
        tail = " ".join(these[:3]) + (f" And {len(these) - 3} more such places." if len(these) > 3 else "")
        lead = f"no value satisfies {a.subject(c)}" if whole else f"at {a.subject(c)}"
        out[ptr] = Unsatisfiable(ptr, "warning", f"{lead}: {c.reason}. {tail}", c.fix)
    return list(out.values())
