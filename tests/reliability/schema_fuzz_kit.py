"""Pieces of the tool-schema fuzz test (``test_fuzz_schemas.py``): a Hypothesis strategy for the
input schemas tools are declared with in practice, a generator of argument values valid for a
schema, and checkers of what each vendor accepts.

The checkers are written from the vendors' own sources, not from toolwire's code:

- Anthropic: the API error "input_schema does not support oneOf, allOf, or anyOf at the top
  level"; the SDK's ``InputSchemaTyped.type: Required[Literal["object"]]``; the property-key
  pattern of the API error "Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'"; for
  ``strict: true`` the subset the SDK's ``anthropic.lib._parse._transform.transform_schema``
  keeps (every object closed, formats from ``SupportedStringFormats``, ``minItems`` 0 or 1,
  primitive ``enum``/``const`` only; no recursion).
- OpenAI (Chat and Responses): the API errors "schema must have type 'object' and not have
  'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level", "object schema missing properties",
  "array schema missing items"; for ``strict: true`` the Structured Outputs guide, "Supported
  schemas" (https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas):
  every object ``additionalProperties: false`` and every property in ``required``; string
  ``pattern``/``format`` (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid),
  number ``multipleOf``/``maximum``/``exclusiveMaximum``/``minimum``/``exclusiveMinimum``, array
  ``minItems``/``maxItems``; "Composition: allOf, not, dependentRequired, dependentSchemas, if,
  then, else" not supported; the root an object and not ``anyOf``; plus ``default`` refused
  ("'default' is not permitted", openai/openai-agents-python#4390) and a ``$ref`` with siblings
  refused (the SDK's ``to_strict_json_schema`` inlines such a ``$ref``).
- Gemini: ``parameters`` validates as the installed SDK's ``google.genai.types.Schema``
  (``extra='forbid'``) and uses only its fields that the REST API takes (the API answered
  'Unknown name "additionalProperties" ... Cannot find field' and 'Unknown name "ref"' for the
  SDK's ``additional_properties`` and ``ref``); the API errors "enum: only allowed for STRING
  type", "When using any_of, it must be the only field set", "type: must be specified when not
  using one_of, any_of or all_of fields", "required[0]: property is not defined", "items:
  missing field", "enum[3]: cannot be empty", "properties: only allowed for OBJECT type",
  "parameters schema should be of type OBJECT"; ``FunctionDeclaration.parameters_json_schema``
  ("mutually exclusive with ``parameters``", "The schema must describe an object") and the
  ``response_json_schema`` docstring ("If ``$ref`` is set on a sub-schema, no other properties,
  except for than those starting as a ``$``, may be set").
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import jsonschema
from hypothesis import strategies as st

# ------------------------------------------------------------------------------- schemas

#: Property names tools are declared with: plain, unicode, dotted, spaced, MCP/OData style,
#: names two of which sanitise to the same string, keyword look-alikes, empty, too long.
PROPERTY_NAMES = [
    "q",
    "city",
    "max_results",
    "a.b",
    "first name",
    "first_name",
    "città",
    "名前",
    "$top",
    "filter[id]",
    "@odata.type",
    "kebab-case",
    "2fa",
    "type",
    "properties",
    "$ref",
    "default",
    "enum",
    "",
    "x" * 70,
]

#: Definition names (pointer escapes: ``~0``, ``~1``, percent-encoding).
DEF_NAMES = ["City", "Node", "Tag", "a~b", "a/b", "Item Type"]

#: RE2- and ``re``-compatible patterns.
PATTERNS = ["^[a-z]+$", "^[0-9]{3}-[0-9]{4}$", "^[A-Z]", "[0-9]", "^\\S+@\\S+$"]

FORMATS = ["date-time", "date", "time", "email", "uri", "uuid", "ipv4", "hostname", "int32", "binary", "x-custom"]

ENUMS: list[list[Any]] = [
    ["a", "b"],
    [1, 2, 3],
    [1, "1"],
    [True, "true"],
    [None, "x"],
    ["", "a"],
    [1.5, 2],
    [[1], {"a": 1}],
    ["red", 2, None, False],
    [f"v{i}" for i in range(300)],
    ["é", "日本"],
]
SCALARS = st.sampled_from([0, 1, -5, 2.5, "x", "", "1", True, False, None])


def def_ref(name: str) -> str:
    return "#/$defs/" + name.replace("~", "~0").replace("/", "~1").replace(" ", "%20")


def annotate(draw: Any, node: Any) -> Any:
    """Annotations and neutral keywords schema generators emit."""
    if not isinstance(node, dict):
        return node
    node = dict(node)
    for key, value in (
        ("title", "A title"),
        ("description", "What it is. Use it well."),
        ("$comment", "generated"),
        ("deprecated", True),
        ("readOnly", False),
        ("examples", ["ex", 1]),
    ):
        if draw(st.integers(0, 9)) == 0:
            node[key] = value
    if draw(st.integers(0, 7)) == 0:
        node["default"] = draw(SCALARS)
    return node


@st.composite
def leaf(draw: Any) -> Any:
    kind = draw(
        st.sampled_from(
            [
                "string",
                "string",
                "integer",
                "number",
                "boolean",
                "null",
                "const",
                "enum",
                "typed-enum",
                "type-list",
                "nullable",
                "any",
                "true",
            ]
        )
    )
    if kind == "string":
        node: dict[str, Any] = {"type": "string"}
        if draw(st.booleans()):
            node["format"] = draw(st.sampled_from(FORMATS))
        if draw(st.integers(0, 3)) == 0:
            node["pattern"] = draw(st.sampled_from(PATTERNS))
        if draw(st.integers(0, 3)) == 0:
            node["minLength"] = draw(st.integers(0, 3))
        if draw(st.integers(0, 3)) == 0:
            node["maxLength"] = draw(st.integers(3, 40))
        return node
    if kind in ("integer", "number"):
        node = {"type": kind}
        for key in ("minimum", "maximum", "exclusiveMinimum", "multipleOf"):
            if draw(st.integers(0, 3)) == 0:
                node[key] = {"minimum": -10, "maximum": 100, "exclusiveMinimum": -20, "multipleOf": 2}[key]
        if kind == "integer" and draw(st.integers(0, 4)) == 0:
            node["format"] = "int64"
        return node
    if kind in ("boolean", "null"):
        return {"type": kind}
    if kind == "const":
        return {"const": draw(SCALARS)}
    if kind == "enum":
        return {"enum": draw(st.sampled_from(ENUMS))}
    if kind == "typed-enum":
        return draw(
            st.sampled_from(
                [
                    {"type": "integer", "enum": [1, 2]},
                    {"type": "string", "enum": ["a", "b"]},
                    {"type": ["string", "null"], "enum": ["a", None]},
                    {"type": "number", "enum": [0.5, 1]},
                ]
            )
        )
    if kind == "type-list":
        return {
            "type": draw(
                st.sampled_from(
                    [["string", "null"], ["integer", "string"], ["number", "integer"], ["null"], ["object", "null"]]
                )
            )
        }
    if kind == "nullable":  # OpenAPI 3.0 style, as some MCP servers publish
        return {"type": "string", "nullable": True}
    if kind == "true":
        return True
    return {}


def composite(children: Any, refs: list[str]) -> Any:
    @st.composite
    def build(draw: Any) -> Any:
        kind = draw(
            st.sampled_from(
                ["object", "object", "array", "anyOf", "anyOf-null", "oneOf", "allOf", "allOf-1", "ref", "cond"]
            )
        )
        if kind == "ref" and refs:
            node: dict[str, Any] = {"$ref": draw(st.sampled_from(refs))}
            if draw(st.booleans()):
                node["description"] = "the referenced thing"
            if draw(st.integers(0, 3)) == 0:
                node["default"] = None
            return node
        if kind in ("object", "ref"):
            names = draw(st.lists(st.sampled_from(PROPERTY_NAMES), max_size=4, unique=True))
            node = {"type": "object"} if draw(st.integers(0, 5)) else {}
            if names or draw(st.booleans()):
                node["properties"] = {n: draw(children) for n in names}
            if names and draw(st.booleans()):
                node["required"] = draw(st.lists(st.sampled_from(names), unique=True))
            extra = draw(st.integers(0, 7))
            if extra == 0:
                node["additionalProperties"] = True
            elif extra == 1:
                node["additionalProperties"] = False
            elif extra == 2:
                node["additionalProperties"] = draw(children)
            if draw(st.integers(0, 9)) == 0:
                node["patternProperties"] = {"^x-": {"type": "string"}}
            if draw(st.integers(0, 9)) == 0:
                node["propertyNames"] = {"maxLength": 80}
            if names and draw(st.integers(0, 9)) == 0:
                node["dependentRequired"] = {names[0]: names[1:]}
            if draw(st.integers(0, 9)) == 0:
                node["minProperties"] = 0
            return node
        if kind == "array":
            node = {"type": "array"}
            form = draw(st.sampled_from(["items", "items", "none", "prefix", "prefix-false", "items-true"]))
            if form == "items":
                node["items"] = draw(children)
            elif form == "prefix":
                node["prefixItems"] = [draw(children), draw(children)]
            elif form == "prefix-false":
                node["prefixItems"] = [draw(children)]
                node["items"] = False
            elif form == "items-true":
                node["items"] = True
            if draw(st.integers(0, 3)) == 0:
                node["minItems"] = draw(st.integers(0, 2))
            if draw(st.integers(0, 4)) == 0:
                node["maxItems"] = 5
            if draw(st.integers(0, 6)) == 0:
                node["uniqueItems"] = True
            return node
        if kind == "anyOf":
            return {"anyOf": [draw(children), draw(children)]}
        if kind == "anyOf-null":
            return {"anyOf": [draw(children), {"type": "null"}]}
        if kind == "oneOf":
            return {"oneOf": [draw(children), draw(children)]}
        if kind == "allOf":
            return {"allOf": [draw(children), draw(children)]}
        if kind == "allOf-1":
            return {"allOf": [draw(children)]}
        # if / then / else
        return {
            "type": "object",
            "properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "integer"}},
            "if": {"properties": {"kind": {"const": "a"}}},
            "then": {"required": ["n"]},
            "else": {},
        }

    return build()


def subschemas(refs: list[str]) -> Any:
    @st.composite
    def annotated(draw: Any, base: Any) -> Any:
        return annotate(draw, draw(base))

    return st.recursive(leaf(), lambda children: annotated(composite(children, refs)), max_leaves=6)


@st.composite
def input_schemas(draw: Any) -> dict[str, Any]:
    """A root input schema, in one of the shapes tools are published with."""
    def_names = draw(st.lists(st.sampled_from(DEF_NAMES), max_size=3, unique=True))
    defs_key = "$defs" if draw(st.integers(0, 5)) else "definitions"
    refs = [
        def_ref(n) if defs_key == "$defs" else "#/definitions/" + n.replace("~", "~0").replace("/", "~1")
        for n in def_names
    ]
    if refs and draw(st.integers(0, 5)) == 0:
        refs.append("#")  # root recursion
    children = subschemas(refs)
    names = draw(st.lists(st.sampled_from(PROPERTY_NAMES), max_size=5, unique=True))
    props = {n: draw(children) for n in names}
    shape = draw(
        st.sampled_from(
            [
                "plain",
                "plain",
                "plain",
                "no-type",
                "empty",
                "no-properties",
                "allOf",
                "anyOf-required",
                "anyOf-objects",
                "oneOf-objects",
                "root-ref",
                "open",
                "map",
            ]
        )
    )
    root: dict[str, Any] = {"type": "object", "properties": props}
    root_args: dict[str, Any] = {}
    if names and draw(st.booleans()):
        root["required"] = draw(st.lists(st.sampled_from(names), unique=True))
        if draw(st.integers(0, 9)) == 0:
            root["required"].append("not_declared")
    if shape == "no-type":
        root.pop("type")
    elif shape == "empty":
        root = {"type": "object", "properties": {}}
    elif shape == "no-properties":
        root = {"type": "object"}
    elif shape == "allOf":
        root["allOf"] = [
            {"type": "object", "properties": {"tag": draw(children)}, "required": ["tag"]},
            draw(
                st.sampled_from(
                    [{"properties": {"q": {"type": "string"}}}, {"required": names[:1]}, {"minProperties": 1}]
                )
            ),
        ]
    elif shape == "anyOf-required" and names:
        root["anyOf"] = [{"required": [n]} for n in names[:2]]
    elif shape in ("anyOf-objects", "oneOf-objects"):  # zod discriminated unions
        key = "anyOf" if shape == "anyOf-objects" else "oneOf"
        root = {
            key: [
                {
                    "type": "object",
                    "properties": {"kind": {"const": k}, "value": draw(children)},
                    "required": ["kind"],
                    "additionalProperties": False,
                }
                for k in ("a", "b")
            ]
        }
        if draw(st.booleans()):
            root["type"] = "object"
    elif shape == "root-ref":  # pydantic RootModel
        args = dict(root)
        def_names = [*def_names, "Args"]
        refs = [*refs]
        root = {"$ref": def_ref("Args")}
        defs_key = "$defs"
        props = {}
        root_args = args
    elif shape == "open":
        root["additionalProperties"] = draw(st.sampled_from([True, {"type": "integer"}]))
    elif shape == "map":
        root = {"type": "object", "patternProperties": {"^[a-z]+$": draw(children)}, "additionalProperties": False}
    if def_names:
        defs: dict[str, Any] = {}
        for n in def_names:
            if n == "Args":
                defs[n] = root_args
            elif n == "Node" and draw(st.booleans()):
                ref = def_ref("Node") if defs_key == "$defs" else "#/definitions/Node"
                defs[n] = {
                    "type": "object",
                    "properties": {
                        "value": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": ref}},
                    },
                    "required": ["value"],
                }
            else:
                defs[n] = draw(children)
        root[defs_key] = defs
    if draw(st.integers(0, 5)) == 0:
        root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    if draw(st.integers(0, 7)) == 0:
        root["$id"] = "https://example.com/tools/fuzz.json"
    if draw(st.integers(0, 9)) == 0:
        root["$comment"] = "published by an MCP server"
    if draw(st.integers(0, 9)) == 0:
        root["title"] = "Args"
    return root


# -------------------------------------------------------------------------------- values

_FORMAT_VALUES = {
    "date-time": "2024-05-06T07:08:09Z",
    "date": "2024-05-06",
    "time": "07:08:09Z",
    "email": "a@example.com",
    "uri": "https://example.com/x",
    "uuid": "12345678-1234-5678-1234-567812345678",
    "ipv4": "192.0.2.1",
    "hostname": "example.com",
}


def resolve(root: Any, ref: str) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    from urllib.parse import unquote

    node = root
    frag = unquote(ref[1:])
    if not frag:
        return root
    for raw in frag[1:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return None
    return node


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4),
    lambda c: st.lists(c, max_size=2) | st.dictionaries(st.text(max_size=3), c, max_size=2),
    max_leaves=4,
)


def values_for(schema: Any, root: Any, depth: int = 0) -> Any:
    """A strategy of values meant to be valid for ``schema`` (a hint: callers keep only the ones
    ``jsonschema`` accepts)."""
    if schema is True or schema == {}:
        return JSONISH if depth < 3 else st.none()
    if schema is False or not isinstance(schema, dict) or depth > 6:
        return st.none()
    if "$ref" in schema:
        target = resolve(root, schema["$ref"])
        return values_for(target, root, depth + 1) if target is not None else st.none()
    if "const" in schema:
        return st.just(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            base = {k: v for k, v in schema.items() if k not in (key, "allOf")}
            return st.one_of(
                [values_for({**b, **base} if isinstance(b, dict) else b, root, depth + 1) for b in schema[key]]
            )
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for m in schema["allOf"]:
            if isinstance(m, dict):
                for k, v in m.items():
                    if k == "properties" and isinstance(merged.get("properties"), dict):
                        merged["properties"] = {**merged["properties"], **v}
                    elif k == "required" and isinstance(merged.get("required"), list):
                        merged["required"] = [*merged["required"], *v]
                    else:
                        merged.setdefault(k, v)
        return values_for(merged, root, depth + 1)
    t = schema.get("type")
    if isinstance(t, list):
        return st.one_of([values_for({**schema, "type": x}, root, depth) for x in t] or [st.none()])
    if t is None:
        if "properties" in schema or "required" in schema:
            t = "object"
        elif "items" in schema or "prefixItems" in schema:
            t = "array"
        else:
            return JSONISH if depth < 3 else st.none()
    if t == "null":
        return st.none()
    if t == "boolean":
        return st.booleans()
    if t in ("integer", "number"):
        lo = schema.get("minimum", -1000)
        hi = schema.get("maximum", 1000)
        ints = st.integers(int(math.ceil(lo)), int(math.floor(hi))) if lo <= hi else st.nothing()
        if t == "integer":
            return ints
        return ints | st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    if t == "string":
        fmt = schema.get("format")
        if fmt in _FORMAT_VALUES:
            return st.just(_FORMAT_VALUES[fmt])
        if isinstance(schema.get("pattern"), str):
            # ECMA-262 ``$`` (JSON Schema's dialect, and RE2's) does not match before a final
            # newline, Python's does: such strings are left out
            return st.from_regex(
                schema["pattern"], alphabet=st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"])
            ).filter(lambda s: not s.endswith("\n"))
        return st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
    if t == "array":
        found = schema.get("prefixItems")
        prefix: list[Any] = found if isinstance(found, list) else []
        items = schema.get("items")
        head = st.tuples(*[values_for(p, root, depth + 1) for p in prefix]).map(list)
        if items is False or (prefix and items is None and depth > 3):
            return head
        rest = st.lists(
            values_for(items if items is not None else True, root, depth + 1), max_size=2 if depth < 3 else 0
        )
        return st.tuples(head, rest).map(lambda p: p[0] + p[1])
    if t == "object":
        declared = schema.get("properties")
        props: dict[str, Any] = declared if isinstance(declared, dict) else {}
        required = [r for r in schema.get("required") or [] if isinstance(r, str)]
        extra = schema.get("additionalProperties", True)

        @st.composite
        def obj(draw: Any) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for name, sub in props.items():
                if name in required or (depth < 3 and draw(st.booleans())):
                    out[name] = draw(values_for(sub, root, depth + 1))
            for name in required:
                if name not in out:
                    out[name] = draw(values_for(extra if isinstance(extra, dict) else True, root, depth + 1))
            return out

        return obj()
    return st.none()


_VALIDATORS: dict[str, Any] = {}


def valid(schema: Any, value: Any) -> bool:
    """Whether ``value`` is valid for ``schema`` (Draft 2020-12, formats asserted)."""
    cls = jsonschema.Draft202012Validator
    try:
        return cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(value)
    except Exception:
        return False


# ------------------------------------------------------------------------------ checkers


def walk(node: Any, path: str = "") -> Any:
    """Every schema node of a JSON Schema, with its pointer (keywords whose values are schemas)."""
    if not isinstance(node, dict):
        return
    yield node, path
    for key in ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas"):
        if isinstance(node.get(key), dict):
            for name, sub in node[key].items():
                yield from walk(sub, f"{path}/{key}/{name}")
    for key in ("items", "additionalProperties", "not", "if", "then", "else", "propertyNames", "contains"):
        if isinstance(node.get(key), dict):
            yield from walk(node[key], f"{path}/{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems", "items"):
        if isinstance(node.get(key), list):
            for i, sub in enumerate(node[key]):
                yield from walk(sub, f"{path}/{key}/{i}")


def json_schema_problems(schema: Any) -> list[str]:
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [f"not a valid Draft 2020-12 schema: {exc.message}"]
    return []


ANTHROPIC_KEY = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")
ANTHROPIC_STRICT_KEYS = {
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
ANTHROPIC_STRICT_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
}


def _is_object_node(node: dict[str, Any]) -> bool:
    t = node.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or (t is None and "properties" in node)


def _recursive(schema: dict[str, Any]) -> bool:
    def visit(node: Any, stack: tuple[str, ...]) -> bool:
        for sub, _ in walk(node):
            ref = sub.get("$ref")
            if isinstance(ref, str):
                if ref in stack:
                    return True
                target = resolve(schema, ref)
                if target is not None and visit(target, (*stack, ref)):
                    return True
        return False

    return visit({k: v for k, v in schema.items() if k not in ("$defs", "definitions")}, ())


def anthropic_problems(decl: dict[str, Any]) -> list[str]:
    out: list[str] = []
    schema = decl.get("input_schema")
    if not isinstance(schema, dict):
        return ["input_schema is not an object"]
    if schema.get("type") != "object":
        out.append(f"top-level type is {schema.get('type')!r}, not 'object'")
    for key in ("oneOf", "anyOf", "allOf"):
        if key in schema:
            out.append(f"top-level {key}")
    out += json_schema_problems(schema)
    for node, path in walk(schema):
        for name in node.get("properties") or {} if isinstance(node.get("properties"), dict) else {}:
            if not ANTHROPIC_KEY.match(name):
                out.append(f"{path}/properties: key {name!r} outside ^[a-zA-Z0-9_.-]{{1,64}}$")
    if decl.get("strict") is True:
        if _recursive(schema):
            out.append("strict: the schema is recursive")
        for node, path in walk(schema):
            for key in node:
                if key not in ANTHROPIC_STRICT_KEYS:
                    out.append(f"strict: {path}/{key} is not a keyword the SDK's transform_schema keeps")
            if _is_object_node(node) and node.get("additionalProperties") is not False:
                out.append(f"strict: {path} is an object without additionalProperties: false")
            if _is_object_node(node) and isinstance(node.get("required"), list):
                declared = node.get("properties") if isinstance(node.get("properties"), dict) else {}
                extra = [r for r in node["required"] if r not in declared]
                if extra:
                    out.append(f"strict: {path} requires names no property declares (a closed object): {extra}")
            if "format" in node and node["format"] not in ANTHROPIC_STRICT_FORMATS:
                out.append(f"strict: {path}/format {node['format']!r}")
            if "minItems" in node and node["minItems"] not in (0, 1):
                out.append(f"strict: {path}/minItems {node['minItems']!r}")
            for key in ("enum", "const"):
                vals = node.get(key) if key == "enum" else [node[key]] if key in node else []
                if any(isinstance(v, (dict, list)) for v in vals or []):
                    out.append(f"strict: {path}/{key} holds a non-primitive value")
    return out


OPENAI_STRICT_KEYS = {
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
OPENAI_STRICT_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}


def openai_problems(parameters: Any, strict: bool) -> list[str]:
    out: list[str] = []
    if parameters is None:
        return out
    if not isinstance(parameters, dict):
        return ["parameters is not an object"]
    if parameters.get("type") != "object":
        out.append(f"top-level type {parameters.get('type')!r}")
    for key in ("oneOf", "anyOf", "allOf", "enum", "not"):
        if key in parameters:
            out.append(f"top-level {key}")
    out += json_schema_problems(parameters)
    for node, path in walk(parameters):
        t = node.get("type")
        # (a tuple, ``prefixItems`` without ``items``, is taken as having items: no API error
        # found either way)
        if (
            (t == "array" or (isinstance(t, list) and "array" in t))
            and "items" not in node
            and "prefixItems" not in node
        ):
            out.append(f"{path}: array schema missing items")
        if t == "object" and not isinstance(node.get("properties"), dict) and not strict and path == "":
            out.append("object schema missing properties")
    if not strict:
        return out
    for node, path in walk(parameters):
        for key in node:
            if key not in OPENAI_STRICT_KEYS:
                out.append(f"strict: {path}/{key} is not in the supported subset")
        if "format" in node and node["format"] not in OPENAI_STRICT_FORMATS:
            out.append(f"strict: {path}/format {node['format']!r}")
        if "$ref" in node and len(node) > 1:
            out.append(f"strict: {path} has $ref with siblings")
        if not any(k in node for k in ("type", "anyOf", "$ref", "enum", "const")):
            out.append(f"strict: {path} has no type")
        if _is_object_node(node):
            if node.get("additionalProperties") is not False:
                out.append(f"strict: {path} object without additionalProperties: false")
            props = node.get("properties")
            if not isinstance(props, dict):
                out.append(f"strict: {path} object without properties")
            else:
                req = node.get("required") if isinstance(node.get("required"), list) else []
                missing = [k for k in props if k not in req]
                if missing:
                    out.append(f"strict: {path} properties not all required: {missing}")
                extra = [r for r in req if r not in props]
                if extra:
                    out.append(f"strict: {path} requires undeclared names {extra}")
    return out


def gemini_rest_keys() -> set[str]:
    from google.genai import types

    keys = {f.alias or n for n, f in types.Schema.model_fields.items()}
    return keys - {"additionalProperties", "ref", "defs"}


GEMINI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}


def gemini_openapi_problems(parameters: Any) -> list[str]:
    from google.genai import types

    out: list[str] = []
    try:
        types.Schema.model_validate(parameters)
    except Exception as exc:  # pydantic.ValidationError
        out.append(f"not a google.genai.types.Schema: {str(exc).splitlines()[0:3]}")
    rest = gemini_rest_keys()

    def visit(node: Any, path: str, top: bool) -> None:
        if not isinstance(node, dict):
            out.append(f"{path}: not an object")
            return
        for key in node:
            if key not in rest:
                out.append(f"{path}/{key}: not a field the REST Schema takes")
        t = node.get("type")
        tname = t.upper() if isinstance(t, str) else None
        if t is not None and tname not in GEMINI_TYPES:
            out.append(f"{path}/type {t!r}")
        if "anyOf" in node and len(node) > 1:
            out.append(f"{path}: anyOf beside {sorted(k for k in node if k != 'anyOf')}")
        if not top and t is None and "anyOf" not in node:
            out.append(f"{path}: no type")
        if "enum" in node:
            if tname != "STRING":
                out.append(f"{path}: enum with type {t!r}")
            if any(v == "" for v in node["enum"] or []):
                out.append(f"{path}: empty enum member")
        if "properties" in node and tname not in ("OBJECT", None):
            out.append(f"{path}: properties with type {t!r}")
        if isinstance(node.get("required"), list):
            declared = node.get("properties") if isinstance(node.get("properties"), dict) else {}
            undefined = [r for r in node["required"] if r not in declared]
            if undefined:
                out.append(f"{path}/required: property is not defined: {undefined}")
        if tname == "ARRAY" and "items" not in node:
            out.append(f"{path}: array without items")
        for name, sub in (node.get("properties") or {}).items() if isinstance(node.get("properties"), dict) else []:
            visit(sub, f"{path}/properties/{name}", False)
        if "items" in node:
            visit(node["items"], f"{path}/items", False)
        for i, sub in enumerate(node.get("anyOf") or []):
            visit(sub, f"{path}/anyOf/{i}", False)

    visit(parameters, "", True)
    if isinstance(parameters, dict) and str(parameters.get("type", "")).upper() != "OBJECT":
        out.append(f"top-level type {parameters.get('type')!r}, not OBJECT")
    return out


def gemini_json_problems(schema: Any) -> list[str]:
    out = json_schema_problems(schema)
    if not isinstance(schema, dict) or schema.get("type") != "object":
        out.append(
            f"parametersJsonSchema does not describe an object (type {schema.get('type') if isinstance(schema, dict) else schema!r})"
        )
    for node, path in walk(schema if isinstance(schema, dict) else {}):
        if "$ref" in node and any(not k.startswith("$") for k in node):
            out.append(f"{path}: $ref beside {sorted(k for k in node if not k.startswith('$'))}")
    return out


def gemini_declaration_problems(decl: dict[str, Any]) -> list[str]:
    fields = [k for k in ("parameters", "parametersJsonSchema", "parameters_json_schema") if k in decl]
    if len(fields) > 1:
        return [f"declaration carries {fields}"]
    if "parameters" in decl:
        return gemini_openapi_problems(decl["parameters"])
    for k in ("parametersJsonSchema", "parameters_json_schema"):
        if k in decl:
            return gemini_json_problems(decl[k])
    return []


# ------------------------------------------------------------------- what a model sends


def wire_names(value: Any, schema: Any, root: Any, names: dict[str, str], depth: int = 0) -> Any:
    """``value`` with the keys Anthropic's declaration renamed (``names``: schema key → wire key)
    written as the model sees them: only where ``schema`` declares the key as a property."""
    if depth > 40 or not isinstance(schema, dict):
        return value
    if "$ref" in schema:
        target = resolve(root, schema["$ref"])
        schema = {**(target if isinstance(target, dict) else {}), **{k: v for k, v in schema.items() if k != "$ref"}}
    if isinstance(value, dict):
        declared: dict[str, Any] = {}
        for node in [
            schema,
            *[b for k in ("allOf", "anyOf", "oneOf") for b in schema.get(k) or [] if isinstance(b, dict)],
        ]:
            if "$ref" in node and node is not schema:
                t = resolve(root, node["$ref"])
                node = t if isinstance(t, dict) else node
            if isinstance(node.get("properties"), dict):
                for k, s in node["properties"].items():
                    declared.setdefault(k, s)
        return {
            (names.get(k, k) if k in declared else k): wire_names(v, declared.get(k), root, names, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [wire_names(v, schema["items"], root, names, depth + 1) for v in value]
    return value


def gemini_wire_value(value: Any, sent: Any) -> Any:
    """``value`` as a Gemini model answers it under the sent ``parameters`` Schema: a value of a
    string enum written as one of its strings, numbers as floats (a protobuf ``Struct``)."""
    if isinstance(sent, dict) and isinstance(sent.get("anyOf"), list):
        for b in sent["anyOf"]:
            if _gemini_fits(value, b):
                return gemini_wire_value(value, b)
        return gemini_wire_value(value, None)
    if (
        isinstance(sent, dict)
        and isinstance(sent.get("enum"), list)
        and not isinstance(value, str)
        and value is not None
    ):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, dict):
        found = sent.get("properties") if isinstance(sent, dict) else None
        props: dict[str, Any] = found if isinstance(found, dict) else {}
        return {k: gemini_wire_value(v, props.get(k)) for k, v in value.items()}
    if isinstance(value, list):
        items = sent.get("items") if isinstance(sent, dict) else None
        return [gemini_wire_value(v, items) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _gemini_fits(value: Any, node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    if value is None:
        return bool(node.get("nullable")) or str(node.get("type", "")).upper() == "NULL"
    t = str(node.get("type", "")).upper()
    if isinstance(node.get("enum"), list):
        return gemini_wire_value(value, {"enum": []}) in node["enum"] or value in node["enum"]
    return {
        "STRING": isinstance(value, str),
        "BOOLEAN": isinstance(value, bool),
        "INTEGER": isinstance(value, int) and not isinstance(value, bool),
        "NUMBER": isinstance(value, (int, float)) and not isinstance(value, bool),
        "ARRAY": isinstance(value, list),
        "OBJECT": isinstance(value, dict),
    }.get(t, False)


def ints_as_floats(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ints_as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [ints_as_floats(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value
