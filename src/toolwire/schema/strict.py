"""The strict-mode schema transform (vendor-neutral) and the default restorer that goes with it.

"Strict" tool declarations (a vendor's grammar-constrained ``strict: true`` mode) accept only a
subset of JSON Schema, and every object in it must be *closed* and *fully required*:

- every object has ``additionalProperties: false``;
- every property is listed in ``required``;
- ``default`` is not permitted;
- a ``$ref`` may not have sibling keywords;
- only the vendor's set of keywords and formats is understood: the adapter passes it as a
  :class:`StrictDialect`.

:func:`make_strict` rewrites a schema into that form and reports every change
(:class:`~toolwire.schema.report.TranslationReport`, pointers into the *original* schema). Its
rules, chosen so that any argument object valid for the strict schema is still valid for the
original one once :func:`restore_defaults` has run:

- an object without ``additionalProperties`` gets ``false``; one with ``true`` or a schema (an
  open map) cannot be strict;
- a property that is not in ``required`` is added to it. If it has a ``default``, or is a
  top-level argument (the function has its own default for it), and does not already accept
  ``null``, it becomes nullable — ``type: [X, "null"]``, ``null`` appended to ``enum``, or
  ``anyOf: [..., {"type": "null"}]`` (the way the vendors' strict-mode guides write an optional
  field). The model sends ``null`` to mean "use the default" (:func:`restore_defaults` puts the
  default back before validation) or "not given" (a top-level argument without a default: the
  key is removed, so the function gets its own default). An optional property without a default
  inside a nested object is simply required (the model must then always send it; the value it
  sends is valid for the original schema);
- ``default`` is removed everywhere;
- ``{"$ref": R, ...siblings}`` is replaced by the referenced schema merged with the siblings
  (siblings win), then transformed; a bare ``$ref`` stays, and ``$defs`` are transformed in place;
- ``oneOf`` becomes ``anyOf`` (reported; the loop still validates against the original schema,
  so exclusivity is enforced there); a one-element ``allOf`` is merged into its parent;
- constraint keywords the strict grammar does not express (``minLength``, ``maxLength``,
  ``uniqueItems``, ``contains``…, ``minProperties``, ``maxProperties``, ``propertyNames``, an
  unsupported ``format``) and non-whitelisted annotations (``examples``, ``deprecated``,
  ``$comment``…) are removed and reported (``lossy`` where the model loses information). The
  loop validates arguments against the *original* schema, so those constraints are still
  enforced — the model is just not forced to satisfy them up front;
- a ``required`` name no property declares (on an object that was not closed already) cannot
  be strict: the closed object could never hold it;
- keywords that change the *shape* of the accepted data (open maps, ``patternProperties``,
  ``unevaluatedProperties``, ``allOf`` with several entries, ``not``, ``if``/``then``/``else``,
  ``dependentRequired``, ``dependentSchemas``, ``prefixItems``, tuple ``items``) or a schema with
  no type at all (``{}``, "any value") make the schema impossible to express: :func:`make_strict`
  returns ``None`` with ``report.strict_possible = False`` and one ``unsupported`` change per
  reason. Adapters then send the tool with ``strict: false`` and the original schema — never an
  invalid strict schema.

The vendor's keyword and format subset is data the adapter passes in (:class:`StrictDialect`);
the API's own size limits (nesting depth, total property count, enum size) are checked by its
profile. The transform's own bound, :data:`MAX_TRANSLATED_NODES`, stops a schema whose repeated
references would expand past it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ..errors import SchemaTranslationError
from .refs import MAX_TRANSLATED_NODES
from .report import TranslationReport, json_pointer

__all__ = ["make_strict", "restore_defaults", "StrictDialect", "accepts_null"]


@dataclass(frozen=True)
class StrictDialect:
    """The facts of one vendor's strict mode, passed in by the adapter (the transform itself is
    vendor-neutral).

    - ``keywords``: the keywords a strict schema may carry; any other is removed (reported);
    - ``formats``: the ``format`` values it accepts; any other ``format`` is removed (reported);
    - ``source``: where these come from (vendor document URL or SDK type);
    - ``name``: how reports name the mode (``"strict mode"``).
    """

    keywords: frozenset[str]
    formats: frozenset[str] = frozenset()
    source: str = ""
    name: str = "strict mode"


#: Keywords that change which data is accepted and cannot be expressed: the schema cannot be strict.
_SHAPE_KEYWORDS = {
    "patternProperties": "pattern-keyed properties (an open map)",
    "unevaluatedProperties": "unevaluatedProperties",
    "unevaluatedItems": "unevaluatedItems",
    "not": "negation ('not')",
    "if": "conditional schema ('if'/'then'/'else')",
    "then": "conditional schema ('if'/'then'/'else')",
    "else": "conditional schema ('if'/'then'/'else')",
    "dependentRequired": "dependentRequired",
    "dependentSchemas": "dependentSchemas",
    "dependencies": "dependencies",
    "prefixItems": "tuple items ('prefixItems')",
}
#: Constraint keywords strict mode does not express; removed (the loop still validates them).
_CONSTRAINT_KEYWORDS = {
    "minLength",
    "maxLength",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "contentEncoding",
    "contentMediaType",
}
#: Annotations that carry information the model would have read (reported lossy when removed).
_INFORMATIVE_ANNOTATIONS = {"examples", "example", "deprecated"}


def accepts_null(schema: Any, root: dict[str, Any] | None = None) -> bool:
    """Whether ``schema`` accepts JSON ``null``: ``type`` containing ``"null"``, an ``enum`` with
    ``None``, ``const: None``, an ``anyOf``/``oneOf`` branch that accepts it, an empty schema or
    ``true``, or a local ``$ref`` (``#/...``, resolved in ``root``) whose target does."""
    if schema is True or schema == {}:
        return True
    if not isinstance(schema, dict):
        return False
    if root is not None:
        schema = _deref(schema, root)
    t = schema.get("type")
    if t is not None and t != "null" and not (isinstance(t, list) and "null" in t):
        return False
    if "enum" in schema and None not in (schema.get("enum") or []):
        return False
    if "const" in schema and schema["const"] is not None:
        return False
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches and not any(accepts_null(b, root) for b in branches):
            return False
    if t is None and not any(k in schema for k in ("enum", "const", "anyOf", "oneOf")):
        # no type information: an unresolved $ref or an object-shaped schema without "type"
        # is taken as not accepting null; a pure annotation ({"description": ...}) accepts anything
        return not any(k in schema for k in ("properties", "items", "required", "$ref"))
    return True


def _resolve(root: dict[str, Any], ref: str) -> Any:
    if not ref.startswith("#"):
        return None
    node: Any = root
    for raw in ref[1:].split("/")[1:] if ref.startswith("#/") else []:
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return None
    return node if ref.startswith("#/") or ref == "#" else None


def _is_object(schema: dict[str, Any]) -> bool:
    t = schema.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or ("properties" in schema and t is None)


#: Annotation keywords that may sit beside a ``$ref`` without changing what it accepts; such a
#: ``$ref`` is transformed once per target and reused (memoised per reference).
_ANNOTATION_SIBLINGS = frozenset({"description", "title"})


class _Strictifier:
    def __init__(self, root: dict[str, Any], report: TranslationReport, dialect: StrictDialect, max_nodes: int) -> None:
        self.root = root
        self.report = report
        self.dialect = dialect
        self.impossible: list[str] = []
        self.max_nodes = max_nodes
        self.nodes = 0
        #: ref → (strict target, reports it made, impossible reasons, node count)
        self.memo: dict[str, tuple[Any, list[Any], list[str], int]] = {}

    def count(self, n: int, path: tuple[Any, ...]) -> None:
        self.nodes += n
        if self.nodes > self.max_nodes:
            pointer = json_pointer(path) or "/"
            raise SchemaTranslationError(
                f"the strict form of this schema passes {self.max_nodes} nodes at {pointer} (repeated references "
                "expand into copies); simplify the schema or raise max_nodes",
                pointer=pointer,
                rule="translated-size-bound",
            )

    def fail(self, path: tuple[Any, ...], keyword: str, detail: str) -> None:
        pointer = json_pointer(path)
        self.report.add(pointer, "unsupported", keyword, detail, lossy=True)
        self.impossible.append(f"{pointer or '/'}: {detail}")

    def make_nullable(self, node: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
        """Return ``node`` changed to also accept ``null`` (caller checked it did not)."""
        t = node.get("type")
        if isinstance(t, str) and "const" not in node:
            node = dict(node)
            node["type"] = [t, "null"]
            if isinstance(node.get("enum"), list) and None not in node["enum"]:
                node["enum"] = [*node["enum"], None]
            return node
        if isinstance(t, list) and "const" not in node:
            node = dict(node)
            node["type"] = [*t, "null"]
            if isinstance(node.get("enum"), list) and None not in node["enum"]:
                node["enum"] = [*node["enum"], None]
            return node
        if set(node) <= {"anyOf", "description", "title"} and isinstance(node.get("anyOf"), list):
            node = dict(node)
            node["anyOf"] = [*node["anyOf"], {"type": "null"}]
            return node
        # $ref, const, enum without type...: wrap; keep the annotations outside
        outer: dict[str, Any] = {}
        inner = dict(node)
        for k in ("description", "title"):
            if k in inner and "$ref" not in inner:
                outer[k] = inner.pop(k)
        outer["anyOf"] = [inner, {"type": "null"}]
        return outer

    def walk(self, node: Any, path: tuple[Any, ...], ref_stack: tuple[str, ...] = ()) -> Any:
        if node is True:
            self.fail(path, "true", "a schema that accepts any value has no type; strict mode needs one")
            return node
        if not isinstance(node, dict):
            self.fail(path, "schema", f"not a schema object: {node!r}")
            return node
        node = dict(node)
        self.count(1 + sum(1 for v in node.values() if not isinstance(v, (dict, list))), path)

        if "default" in node:
            value = node.pop("default")
            self.report.add(
                json_pointer((*path, "default")),
                "removed",
                "default",
                f"strict mode does not permit 'default' (was {value!r}); restore_defaults() puts it back",
            )

        # $ref with siblings: inline the target, siblings win
        ref = node.get("$ref")
        if isinstance(ref, str) and len(node) > 1:
            target = _resolve(self.root, ref)
            if target is None or not isinstance(target, dict):
                self.fail(path, "$ref", f"$ref {ref!r} does not resolve to a schema inside this schema")
                return node
            if ref in ref_stack:
                dropped = sorted(k for k in node if k != "$ref")
                self.report.add(
                    json_pointer(path),
                    "removed",
                    "$ref",
                    f"recursive $ref {ref!r} cannot be inlined; sibling keywords {dropped} dropped",
                    lossy=True,
                )
                return {"$ref": ref}
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            self.report.add(
                json_pointer(path),
                "inlined",
                "$ref",
                f"$ref {ref!r} has sibling keywords; strict mode needs it inlined",
            )
            if set(siblings) <= _ANNOTATION_SIBLINGS:
                return self.walk_ref_memo(ref, target, siblings, path, ref_stack)
            merged = {**copy.deepcopy(target), **siblings}
            return self.walk(merged, path, (*ref_stack, ref))

        if "oneOf" in node:
            if "anyOf" in node:
                self.fail(path, "oneOf", "both oneOf and anyOf on one schema")
            else:
                node["anyOf"] = node.pop("oneOf")
                self.report.add(
                    json_pointer((*path, "oneOf")),
                    "rewritten",
                    "oneOf",
                    "oneOf rewritten as anyOf (strict mode has no oneOf; exclusivity is still checked by validation)",
                )
        all_of = node.get("allOf")
        if all_of is not None:
            if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
                node.pop("allOf")
                merged = {**all_of[0], **node}
                self.report.add(
                    json_pointer((*path, "allOf")), "inlined", "allOf", "one-element allOf merged into its parent"
                )
                return self.walk(merged, path, ref_stack)
            self.fail(
                (*path, "allOf"),
                "allOf",
                "allOf with several schemas (an intersection) is not supported in strict mode",
            )
            node.pop("allOf")

        if "items" in node and isinstance(node["items"], list):
            self.fail(
                (*path, "items"), "items", "tuple-form 'items' (a list of schemas) is not supported in strict mode"
            )
        for key in list(node):
            if key in _SHAPE_KEYWORDS:
                self.fail((*path, key), key, f"{_SHAPE_KEYWORDS[key]} is not supported in strict mode")
                node.pop(key)
            elif key in _CONSTRAINT_KEYWORDS:
                value = node.pop(key)
                self.report.add(
                    json_pointer((*path, key)),
                    "removed",
                    key,
                    f"strict mode does not support {key} ({value!r}); still enforced by argument validation",
                    lossy=True,
                )
            elif key == "format" and node[key] not in self.dialect.formats:
                value = node.pop(key)
                self.report.add(
                    json_pointer((*path, key)),
                    "removed",
                    key,
                    f"strict mode does not support format {value!r}; still enforced by argument validation",
                    lossy=True,
                )
            elif key not in self.dialect.keywords:
                value = node.pop(key)
                self.report.add(
                    json_pointer((*path, key)),
                    "removed",
                    key,
                    f"keyword {key!r} is not in the strict-mode subset",
                    lossy=key in _INFORMATIVE_ANNOTATIONS,
                )

        if not any(k in node for k in ("type", "anyOf", "$ref", "enum", "const")):
            self.fail(path, "type", "a schema without 'type' (any value) cannot be strict")
            return node

        for defs_key in ("$defs", "definitions"):
            defs = node.get(defs_key)
            if isinstance(defs, dict):
                node[defs_key] = {
                    name: self.walk(sub, (*path, defs_key, name), ref_stack) for name, sub in defs.items()
                }

        if isinstance(node.get("anyOf"), list):
            node["anyOf"] = [self.walk(sub, (*path, "anyOf", i), ref_stack) for i, sub in enumerate(node["anyOf"])]
        if isinstance(node.get("items"), dict):
            node["items"] = self.walk(node["items"], (*path, "items"), ref_stack)
        elif node.get("items") is True:
            self.fail((*path, "items"), "items", "array items of any type cannot be strict")

        if _is_object(node):
            self.close_object(node, path, ref_stack)
        return node

    def walk_ref_memo(
        self,
        ref: str,
        target: dict[str, Any],
        siblings: dict[str, Any],
        path: tuple[Any, ...],
        ref_stack: tuple[str, ...],
    ) -> Any:
        """A ``$ref`` with only annotation siblings: the target is transformed once per reference
        (the first use's changes are reported at that use; later uses reuse the result, each
        reported as one ``inlined`` change) and the annotations laid over a copy."""
        hit = self.memo.get(ref)
        if hit is None:
            before_changes, before_impossible, before_nodes = len(self.report.changes), len(self.impossible), self.nodes
            walked = self.walk(copy.deepcopy(target), path, (*ref_stack, ref))
            hit = (
                walked,
                self.report.changes[before_changes:],
                self.impossible[before_impossible:],
                self.nodes - before_nodes,
            )
            self.memo[ref] = hit
        else:
            self.count(hit[3], path)
            self.impossible.extend(hit[2])
        walked = copy.deepcopy(hit[0])
        if isinstance(walked, dict):
            walked.update(siblings)
        return walked

    def close_object(self, node: dict[str, Any], path: tuple[Any, ...], ref_stack: tuple[str, ...]) -> None:
        extra = node.get("additionalProperties", None)
        if "additionalProperties" not in node:
            node["additionalProperties"] = False
            self.report.add(
                json_pointer((*path, "additionalProperties")),
                "added",
                "additionalProperties",
                "additionalProperties: false added (strict mode needs every object closed)",
            )
        elif extra is not False:
            self.fail(
                (*path, "additionalProperties"),
                "additionalProperties",
                "an open map (additionalProperties is not false) cannot be expressed in strict mode",
            )
        props = node.get("properties")
        declared = props if isinstance(props, dict) else {}
        undeclared = [r for r in node.get("required") or [] if isinstance(r, str) and r not in declared]
        if undeclared and extra is not False:
            # the closed object could never hold them, so no call would be valid
            self.fail(
                (*path, "required"),
                "required",
                f"required names {undeclared} have no property: a strict object is closed, so they could never be sent",
            )
        if props is None:
            return
        if not isinstance(props, dict):
            self.fail((*path, "properties"), "properties", "properties is not an object")
            return
        required = list(node.get("required") or [])
        original_props = props
        new_props: dict[str, Any] = {}
        for name, sub in original_props.items():
            sub_path = (*path, "properties", name)
            had_default = isinstance(sub, dict) and "default" in sub
            was_nullable = accepts_null(sub, self.root)
            new_sub = self.walk(sub, sub_path, ref_stack)
            if name not in required:
                # a top-level argument without a default is nullable too: the function has its own
                # default for it, and the model must not be made to invent a value
                if not was_nullable and isinstance(new_sub, dict) and (had_default or not path):
                    new_sub = self.make_nullable(new_sub, sub_path)
                    meaning = "'use the default'" if had_default else "'not given' (the key is left out)"
                    self.report.add(
                        json_pointer(sub_path),
                        "nullable",
                        "type",
                        f"optional property {name!r} made nullable; null means {meaning}",
                    )
                self.report.add(
                    json_pointer(sub_path),
                    "required",
                    "required",
                    f"optional property {name!r} added to required (strict mode needs every property required)",
                )
            new_props[name] = new_sub
        node["properties"] = new_props
        node.pop("required", None)
        if new_props:
            node["required"] = list(new_props)
        # keep additionalProperties after required for readable output
        node["additionalProperties"] = node.pop("additionalProperties")


def make_strict(
    schema: dict[str, Any],
    *,
    dialect: StrictDialect,
    api: str = "strict",
    tool: str = "",
    max_nodes: int = MAX_TRANSLATED_NODES,
) -> tuple[dict[str, Any] | None, TranslationReport]:
    """Rewrite ``schema`` (a JSON Schema object schema, not modified) into the strict-mode subset.

    Returns ``(strict_schema, report)``: ``strict_schema`` is a new dict, or ``None`` when the
    schema cannot be strict; ``report.strict_possible`` says which, and ``report.changes`` lists
    every rewrite (``added``, ``required``, ``nullable``, ``removed``, ``inlined``, ``rewritten``)
    and every reason it is impossible (``unsupported``), each with the JSON pointer into the
    original ``schema``. ``api``/``tool`` label the report. ``dialect``: the vendor's keyword and
    format subset (:class:`StrictDialect`, passed by the adapter). A ``$ref`` with only
    ``description``/``title`` beside it is transformed once per target and reused. Raises
    :class:`~toolwire.errors.SchemaTranslationError` only when the result would pass
    ``max_nodes`` (:data:`MAX_TRANSLATED_NODES`), naming the pointer; otherwise never on a
    schema object. The rules are in the module docstring; example::

        # d: the adapter's StrictDialect (e.g. toolwire_openai's, from OpenAI's supported schemas)
        make_strict({"type": "object", "properties": {"lang": {"type": "string", "default": "en"}}}, dialect=d)[0]
        == {"type": "object", "properties": {"lang": {"type": ["string", "null"]}},
            "required": ["lang"], "additionalProperties": False}
    """
    report = TranslationReport(api=api, tool=tool)
    if not isinstance(schema, dict):
        report.add("", "unsupported", "schema", "the input schema is not a JSON object", lossy=True)
        report.strict_possible = False
        return None, report
    work = copy.deepcopy(schema)
    s = _Strictifier(work, report, dialect, max_nodes)
    out = s.walk(work, ())
    if isinstance(out, dict) and not _is_object(out):
        s.fail((), "type", "the top level of a strict schema must be an object")
    if s.impossible:
        report.strict_possible = False
        return None, report
    report.strict_possible = True
    return out, report


def restore_defaults(schema: dict[str, Any], arguments: Any) -> Any:
    """Undo the strict transform's nullability on model arguments (call before validation).

    ``schema`` is the *original* input schema (before :func:`make_strict`); ``arguments`` the
    arguments object the model sent. Wherever the model sent ``null`` for an optional property
    that has a ``default`` and whose original schema does not accept ``null`` — i.e. a property
    that is nullable only because the transform made it so — the default is put back (a deep
    copy); a ``null`` for an optional property without a default whose schema does not accept
    ``null`` (models send it for "not given", e.g. without strict mode) removes the key, and so
    does a ``null`` for one whose default is itself ``null`` (``x: Model = None`` in Python: the
    schema does not take the default it names, so the function's own default applies). Recurses
    into nested objects, array items, ``$ref`` targets and ``anyOf``/``oneOf``
    branches (a branch is used when it is the only object-typed one). Everything else, including
    a ``null`` the original schema allows, is left as sent. Returns a new object; ``arguments``
    is not modified; anything that is not a dict/list passes through unchanged.

    Example: schema property ``lang: {"type": "string", "default": "en"}``,
    arguments ``{"note": None, "lang": None}`` → ``{"note": None, "lang": "en"}``.
    """
    return _restore(schema, arguments, schema, frozenset())


def _object_branch(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            objs = []
            for b in branches:
                b = _deref(b, root)
                if isinstance(b, dict) and _is_object(b):
                    objs.append(b)
            if len(objs) == 1:
                return objs[0]
    return None


def _merged_branches(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    """For ``anyOf``/``oneOf`` of several object schemas (an "id or email" choice, offered in
    strict mode as one object with every property nullable): one object schema with the
    properties of them all (the first branch's schema of a name wins) and none required, so a
    ``null`` no branch accepts is read as "not given"; the original schema still decides which
    branch holds. ``None`` when there is no such choice."""
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if not isinstance(branches, list):
            continue
        props: dict[str, Any] = {}
        for b in branches:
            b = _deref(b, root)
            if not (isinstance(b, dict) and _is_object(b)):
                return None
            for name, sub in (b.get("properties") or {}).items():
                props.setdefault(name, sub)
        return {"type": "object", "properties": props} if props else None
    return None


def _deref(schema: Any, root: dict[str, Any], seen: frozenset[str] = frozenset()) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"] not in seen:
        ref = schema["$ref"]
        target = _resolve(root, ref)
        if not isinstance(target, dict):
            return schema
        seen = seen | {ref}
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _restore(schema: Any, value: Any, root: dict[str, Any], seen: frozenset[int]) -> Any:
    if not isinstance(schema, dict):
        return value
    schema = _deref(schema, root)
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        schema = {**_deref(all_of[0], root), **{k: v for k, v in schema.items() if k != "allOf"}}
    if isinstance(value, dict):
        if "properties" not in schema:
            branch = _object_branch(schema, root) or _merged_branches(schema, root)
            if branch is None:
                return dict(value)
            schema = branch
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub = props.get(key)
            if sub is None:
                out[key] = item
                continue
            sub_d = _deref(sub, root)
            if item is None and key not in required and isinstance(sub_d, dict) and not accepts_null(sub, root):
                if sub_d.get("default") is not None:
                    out[key] = copy.deepcopy(sub_d["default"])
                # else: an optional property without a default, or whose default is null although
                # its schema does not take null (``x: Model = None``: putting null back would fail
                # validation every time): null stands for "absent", the key is dropped
            else:
                out[key] = _restore(sub, item, root, seen)
        return out
    if isinstance(value, list):
        items = schema.get("items")
        if not isinstance(items, dict):
            branch = _object_branch(schema, root)
            return list(value) if branch is None else [_restore(branch, v, root, seen) for v in value]
        return [_restore(items, v, root, seen) for v in value]
    return value
