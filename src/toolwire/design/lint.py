"""Tool-definition review: ``toolwire lint`` and :func:`lint_tools`.

Each rule is a general check of what a model reads (name, description, input schema, the notes
toolwire generates) or of what a provider's adapter will do with it. Every finding says why it
costs the model and how to fix it; its ``pointer`` is a JSON pointer into the tool's canonical
spec (``{"name", "description", "input_schema"}``). The rule list is :data:`RULES`; add a rule
with :func:`register_rule`, extend the ambiguous parameter names with ``ambiguous_names=``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..errors import ConfigurationError, ToolDefinitionError, ToolNameError
from ..schema.report import json_pointer
from ..tools import Tool
from .results import CapSpec, Page, paging_note

__all__ = [
    "Finding",
    "Rule",
    "LintReport",
    "RULES",
    "AMBIGUOUS_NAMES",
    "DEFAULT_PROVIDERS",
    "check_providers",
    "lint_tools",
    "load_tools",
    "resolve_local_ref",
    "register_rule",
]

SEVERITIES = ("error", "warning", "info")

#: Parameter names with more than one honest reading, each with the readings a model may pick.
#: Extend per call with ``lint_tools(..., ambiguous_names={...})`` or ``--ambiguous NAME``.
AMBIGUOUS_NAMES: dict[str, str] = {
    "script": "a file path to run, or the script's source text",
    "file": "a path, a file name, or the file's content",
    "query": "a search string, a SQL statement, or a URL query string",
    "target": "a file, a URL, a host, a person or a branch",
    "data": "any payload at all: text, JSON, base64, a path",
    "input": "text to process, a file to read, or stdin for a program",
    "id": "which object's id, in which format",
    "path": "relative or absolute, to a file or a directory",
    "source": "a path, a URL, source code, or a citation",
    "content": "text, a path to the text, or encoded bytes",
    "value": "any value of any type",
    "name": "a file name, a display name or an identifier",
    "url": "absolute or relative, with or without a scheme",
    "text": "plain text, markdown, or a pattern",
    "body": "a request body, an email body, JSON or text",
    "args": "a list, a string to split, or key=value pairs",
    "params": "a dict, a query string or a list",
    "code": "source code, an error code or a country code",
    "filename": "a bare name or a path, relative or absolute",
    "dir": "relative or absolute directory",
    "directory": "relative or absolute directory",
    "location": "a path, a URL, or a place",
    "key": "a dict key, an API key or a sort key",
    "date": "which date format and time zone",
    "time": "which format, unit and time zone",
    "timeout": "seconds or milliseconds",
    "size": "bytes, lines, items or pixels",
}

#: Words in a path parameter's description that say how the path is read.
_PATH_HINT = re.compile(r"\b(relative|absolute|root|cwd|working directory|workspace)\b", re.I)
_PATH_NAMES = {
    "path",
    "file",
    "filename",
    "filepath",
    "file_path",
    "dir",
    "directory",
    "folder",
    "src",
    "dst",
    "source_path",
    "target_path",
}

#: Phrases that say *when* to call a tool (or when not to).
_WHEN = re.compile(
    r"\b(when|whenever|before|after|if|unless|instead|rather than|only for|first|"
    r"use (this|it|when|for|to|before|after|instead|only)|call (this|it|when|before|after|first|only))\b",
    re.I,
)

#: Providers checked when none is selected — also every provider ``lint_tools`` accepts.
DEFAULT_PROVIDERS = ("anthropic", "openai", "openai-chat", "gemini")


def check_providers(providers: Iterable[str]) -> list[str]:
    """``providers`` as a list, each one of :data:`DEFAULT_PROVIDERS` (duplicates dropped, order
    kept). Raises :class:`~toolwire.errors.ConfigurationError` naming an unknown provider and
    listing the known ones."""
    from ..errors import ConfigurationError

    out: list[str] = []
    for p in providers:
        if p not in DEFAULT_PROVIDERS:
            import difflib

            from ..registry import _PROVIDER_ALIASES

            low = str(p).strip().lower()
            near = difflib.get_close_matches(low, DEFAULT_PROVIDERS, n=1, cutoff=0.75)
            close = _PROVIDER_ALIASES.get(low) or (near[0] if near else None)
            hint = f" (did you mean {close!r}?)" if close else ""
            raise ConfigurationError(
                f"unknown provider {p!r} for lint{hint}; known providers: {', '.join(DEFAULT_PROVIDERS)}"
            )
        if p not in out:
            out.append(p)
    return out


@dataclass
class Finding:
    """One problem: ``rule`` id, ``severity`` (error/warning/info), ``tool`` name, ``pointer``
    (JSON pointer into the tool's canonical spec), ``message`` (what and why it costs the
    model) and ``fix``. ``provider`` is set for provider-specific findings."""

    rule: str
    severity: str
    tool: str
    pointer: str
    message: str
    fix: str
    provider: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"rule", "severity", "tool", "pointer", "message", "fix": str}``, plus ``"provider"`` (str)
        for a provider-specific finding."""
        d = {
            "rule": self.rule,
            "severity": self.severity,
            "tool": self.tool,
            "pointer": self.pointer,
            "message": self.message,
            "fix": self.fix,
        }
        if self.provider:
            d["provider"] = self.provider
        return d


@dataclass
class Rule:
    """A lint rule: stable ``id``, default ``severity``, ``why`` (the cost to the model),
    ``fix``, and ``check(tool, ctx) -> iterable of Finding`` (``per_set`` rules get the list)."""

    id: str
    severity: str
    why: str
    fix: str
    check: Callable[..., Iterable[Finding]]
    per_set: bool = False


@dataclass
class LintReport:
    """The findings for a tool set plus a summary (counts and per-provider token costs)."""

    findings: list[Finding]
    summary: dict[str, Any]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def exit_code(self) -> int:
        """1 when there is an error finding, else 0."""
        return 1 if self.errors else 0

    def rules(self) -> set[str]:
        """The ids of the rules that found something (each once)."""
        return {f.rule for f in self.findings}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"findings": [objects], "summary": object}`` (each :meth:`Finding.to_dict`). The
        summary: ``tools``, ``errors``, ``warnings``, ``infos`` (int), ``providers`` and ``rules``
        (lists of str), ``token_cost`` (per provider: a :class:`~toolwire.design.tokens.SetCost`
        dict, or ``{"error": str}``) and ``prompt_cache`` (per provider: :func:`prompt_cache_savings`)."""
        return {"findings": [f.to_dict() for f in self.findings], "summary": self.summary}


@dataclass
class _Ctx:
    providers: list[str]
    ambiguous: dict[str, str]
    token_costs: dict[str, Any] = field(default_factory=dict)


RULES: dict[str, Rule] = {}


def register_rule(
    id: str, severity: str, why: str, fix: str, *, per_set: bool = False
) -> Callable[[Callable[..., Iterable[Finding]]], Callable[..., Iterable[Finding]]]:
    """Decorator: add a check to :data:`RULES` under ``id`` (replacing one with that id)."""
    if severity not in SEVERITIES:
        raise ValueError(f"severity must be one of {SEVERITIES}")

    def deco(fn: Callable[..., Iterable[Finding]]) -> Callable[..., Iterable[Finding]]:
        RULES[id] = Rule(id, severity, why, fix, fn, per_set)
        return fn

    return deco


def _f(
    rule: str,
    tool: str,
    pointer: str,
    message: str,
    *,
    fix: str | None = None,
    severity: str | None = None,
    provider: str | None = None,
) -> Finding:
    r = RULES[rule]
    return Finding(rule, severity or r.severity, tool, pointer, f"{message} — {r.why}", fix or r.fix, provider)


def _props(tool: Tool) -> dict[str, Any]:
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    props = schema.get("properties") or {}
    return props if isinstance(props, dict) else {}


def _walk_props(
    schema: Any, path: tuple[Any, ...] = ("input_schema",)
) -> Iterable[tuple[tuple[Any, ...], str, dict[str, Any]]]:
    """(pointer path, property name, property schema) for every named property, nested too.
    Malformed parts (``properties`` that is not an object, ``anyOf`` that is not a list) are
    passed over here; ``schema-invalid`` reports them."""
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            if isinstance(sub, dict):
                yield path + ("properties", name), str(name), sub
                yield from _walk_props(sub, path + ("properties", name))
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _walk_props(items, path + ("items",))
    for key in ("$defs", "definitions"):
        defs = schema.get(key)
        if isinstance(defs, dict):
            for dname, sub in defs.items():
                yield from _walk_props(sub, path + (key, dname))
    for key in ("anyOf", "oneOf", "allOf"):
        subs = schema.get(key)
        if isinstance(subs, list):
            for i, sub in enumerate(subs):
                yield from _walk_props(sub, path + (key, i))


#: Keywords whose values are data, not subschemas: a ``"$ref"`` key inside them is not a reference.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "example"})


def _refs(node: Any, path: tuple[Any, ...] = ()) -> Iterable[tuple[tuple[Any, ...], str]]:
    """(pointer path inside the schema, value) of every ``$ref`` keyword in ``node``."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                yield path + ("$ref",), v
            elif k in _DATA_KEYWORDS:
                continue
            elif k == "properties" and isinstance(v, dict):
                for name, sub in v.items():  # a property may be *named* "$ref"
                    yield from _refs(sub, path + (k, name))
            else:
                yield from _refs(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _refs(v, path + (i,))


def _anchors(node: Any, found: set[str] | None = None) -> set[str]:
    """Every ``$anchor`` / ``$dynamicAnchor`` name defined in ``node``."""
    found = set() if found is None else found
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("$anchor", "$dynamicAnchor") and isinstance(v, str):
                found.add(v)
            elif k not in _DATA_KEYWORDS:
                _anchors(v, found)
    elif isinstance(node, list):
        for v in node:
            _anchors(v, found)
    return found


def resolve_local_ref(schema: Any, ref: str) -> tuple[bool, str]:
    """Whether the local ``$ref`` ``ref`` (``"#"``, ``"#/$defs/Name"``, ``"#anchor"``) points at
    something in ``schema``, and if not, why. JSON pointer tokens are percent-decoded, then
    ``~1`` -> ``/`` and ``~0`` -> ``~`` (RFC 6901, as a URI fragment)."""
    found, _node, why = _local_ref_target(schema, ref)
    return found, why


_ANCHOR = object()  # the target of an "#anchor" reference (anchors are not followed)


def _local_ref_target(schema: Any, ref: str) -> tuple[bool, Any, str]:
    """``(found, node, why not)`` for the local ``$ref`` ``ref``, as :func:`resolve_local_ref`
    reads it; ``node`` is the schema it points at (:data:`_ANCHOR` for an ``#anchor``)."""
    from urllib.parse import unquote

    frag = unquote(ref[1:])
    if frag == "":
        return True, schema, ""
    if not frag.startswith("/"):
        found = frag in _anchors(schema)
        return found, _ANCHOR, "" if found else f'no "$anchor": {frag!r} is defined in the schema'
    node = schema
    walked = ""
    for raw in frag[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False, None, f"{('#' + walked) if walked else 'the schema root'} has no {token!r}"
        walked += "/" + raw
    if not isinstance(node, (dict, bool)):
        return False, None, f"it leads to a {type(node).__name__}, not a schema"
    return True, node, ""


# -- rules --------------------------------------------------------------------------------------


@register_rule(
    "schema-invalid",
    "error",
    "the input schema is not one every provider and toolwire's own argument validation accept, so a request with this tool is rejected or its calls fail at run time",
    'make the top level {"type": "object", "properties": {...}}, use only Draft 2020-12 keywords with valid values, and point every "$ref" at a definition in the schema (e.g. "#/$defs/Name")',
)
def _r_schema_invalid(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    from ..errors import SchemaError
    from ..schema.validate import check_input_schema

    beyond = tool.meta.get("lint_schema_beyond_bounds")
    if beyond:
        yield _f("schema-invalid", tool.name, "/input_schema", beyond)
        return
    schema = tool.input_schema
    try:
        check_input_schema(schema, tool_name=tool.name)
    except SchemaError as exc:
        msg = str(exc)
        if " has a $ref at " in msg:
            msg = ""  # every $ref is reported below, each at its own pointer
        m = re.search(r" at (/\S*):", msg)
        if m and m.group(1) != "/":
            pointer = "/input_schema" + m.group(1)
        elif isinstance(schema, dict) and schema.get("type") != "object":
            pointer = "/input_schema/type"
        else:
            pointer = "/input_schema"
        if msg:
            yield _f("schema-invalid", tool.name, pointer, msg)
    if not isinstance(schema, dict):
        return
    try:
        json.dumps(schema, allow_nan=False)
    except ValueError:  # NaN or an infinity (a default of float("inf")): no request can carry it
        yield _f(
            "schema-invalid",
            tool.name,
            "/input_schema",
            "the input schema holds NaN or an infinity (e.g. a default of float('inf')), which JSON cannot carry: "
            "every request with this tool is refused before sending; use a finite value or no default",
        )
    except (TypeError, RecursionError):
        pass
    for path, ref in _refs(schema):
        pointer = json_pointer(("input_schema",) + path)
        if not ref.startswith("#"):
            yield _f(
                "schema-invalid",
                tool.name,
                pointer,
                f'"$ref": {ref!r} points outside this input schema, which no provider fetches and toolwire cannot resolve',
            )
            continue
        ok, why = resolve_local_ref(schema, ref)
        if not ok:
            yield _f("schema-invalid", tool.name, pointer, f'"$ref": {ref!r} points nowhere ({why})')
            continue
        loop = _ref_loop(schema, ref)
        if loop:
            yield _f(
                "schema-invalid",
                tool.name,
                pointer,
                f'"$ref": {ref!r} leads back to itself without describing a value ({" -> ".join(loop)}): '
                "validating an argument against it never ends, so every call of the tool fails",
            )
    for path, node in _objects_requiring_undefined(schema):
        props = node.get("properties") or {}
        for i, name in enumerate(node["required"]):
            if isinstance(name, str) and name not in props and name not in _pattern_matches(node, name):
                yield _f(
                    "schema-invalid",
                    tool.name,
                    json_pointer(("input_schema", *path, "required", i)),
                    f"required names {name!r}, which is not a property of this object "
                    f"(its properties: {', '.join(map(repr, props)) or 'none'}): a model that follows the schema "
                    "never sends it, so every call fails validation",
                )


def _objects_requiring_undefined(schema: Any) -> Iterable[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Object schemas in ``schema`` (walked through every keyword) whose ``required`` lists a name
    their ``properties`` do not define, with ``properties`` given and no ``additionalProperties``
    keyword: ``(path, node)``. Such an object is satisfiable (the name may come as an extra
    key), but a model that follows the schema never sends it. With ``"additionalProperties":
    false`` no object fits at all, which ``schema-unsatisfiable`` reports. The branches of
    combinators and conditions are not checked: their ``required`` may name a property of the
    object they refine."""
    stack: list[tuple[tuple[Any, ...], Any, bool]] = [((), schema, False)]
    seen = 0
    while stack and seen < 10_000:
        path, node, in_branch = stack.pop()
        seen += 1
        if isinstance(node, dict):
            req, props = node.get("required"), node.get("properties")
            if (
                not in_branch  # a branch's required may name its parent's properties (a discriminated variant)
                and isinstance(req, list)
                and isinstance(props, dict)
                and "additionalProperties" not in node  # false: schema-unsatisfiable reports it
                and any(isinstance(r, str) and r not in props for r in req)
            ):
                yield path, node
            for k, v in node.items():
                if k in ("enum", "const", "default", "examples"):
                    continue
                # below a combinator or a condition the object is its parent's (checked there);
                # below properties/items/$defs a value of its own starts
                branch = k in _BRANCH_KEYWORDS or (
                    in_branch and k not in ("properties", "items", "$defs", "definitions")
                )
                stack.append(((*path, k), v, branch))
        elif isinstance(node, list):
            stack.extend(((*path, i), v, in_branch) for i, v in enumerate(node))


_BRANCH_KEYWORDS = frozenset(
    {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}
)


def _pattern_matches(node: dict[str, Any], name: str) -> list[str]:
    """``[name]`` when one of ``node``'s ``patternProperties`` patterns matches ``name``."""
    for pattern in node.get("patternProperties") or {}:
        try:
            if re.search(pattern, name):
                return [name]
        except (re.error, TypeError):
            continue
    return []


def _ref_loop(schema: dict[str, Any], ref: str) -> list[str]:
    """The chain of ``$ref``s from ``ref`` that comes back to one of them through nodes' own
    ``$ref`` alone (``a -> b -> a``, or ``a -> a``): a schema that never reaches a description of
    a value, on which validation recurses for ever. ``[]`` when the chain ends (a recursive
    schema that goes through ``properties`` or ``items`` is fine: each level describes a value)."""
    chain: list[str] = []
    current: Any = ref
    while isinstance(current, str) and current.startswith("#"):
        if current in chain:
            return [*chain, current]
        chain.append(current)
        _found, node, _why = _local_ref_target(schema, current)
        current = node.get("$ref") if isinstance(node, dict) else None
    return []


@register_rule(
    "schema-unsatisfiable",
    "error",
    "a call that gives the part a value comes back as a validation error; when no arguments object fits the schema (an error), every call of the tool does, and the tool never runs",
    "change the schema at the pointer so some value fits it",
)
def _r_schema_unsatisfiable(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    """Parts of the input schema no value can satisfy (:mod:`toolwire.design.satisfiable`): an
    error when no arguments object can be valid, a warning when a parameter, an option, a type
    or an enum value can never be given."""
    from .satisfiable import unsatisfiable_parts

    if tool.meta.get("lint_schema_beyond_bounds"):
        return  # schema-invalid reports the bound; the schema was not kept
    for part in unsatisfiable_parts(tool.input_schema, prefix="/input_schema"):
        yield _f("schema-unsatisfiable", tool.name, part.pointer, part.message, fix=part.fix, severity=part.severity)


@register_rule(
    "description-missing",
    "error",
    "the model picks tools by their description; with none it guesses from the name alone and calls the tool at the wrong time or never",
    "write one or two sentences: what the tool does, what it returns, and when to call it",
)
def _r_desc_missing(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    if not tool.model_description().strip():
        yield _f("description-missing", tool.name, "/description", f"tool {tool.name!r} has no description")


@register_rule(
    "description-one-word",
    "warning",
    "a one-word description repeats the name and tells the model nothing about inputs, results or when to use it",
    "replace it with a sentence that says what the tool does and when to call it",
)
def _r_desc_one_word(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    d = tool.model_description().strip()
    if d and len(re.findall(r"[A-Za-z0-9_']+", d)) <= 1:
        yield _f(
            "description-one-word", tool.name, "/description", f"tool {tool.name!r} is described by one word ({d!r})"
        )


@register_rule(
    "description-no-when",
    "warning",
    "a description that says what a tool does but never when to call it leaves the choice between similar tools, and the order of calls, to chance",
    'add when to call it ("Call it before ...", "Use it when ...", "Use X instead for ...")',
)
def _r_desc_when(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    d = tool.model_description().strip()
    if d and len(re.findall(r"[A-Za-z0-9_']+", d)) > 1 and not _WHEN.search(d):
        yield _f(
            "description-no-when",
            tool.name,
            "/description",
            f"tool {tool.name!r} says what it does but not when to call it",
        )


@register_rule(
    "param-ambiguous-name",
    "warning",
    "a parameter name with more than one honest reading gets filled with the wrong kind of value (a script's source instead of its path, an absolute path instead of a relative one), and each such call is wasted",
    "rename it to the one reading (e.g. script -> script_path, query -> sql) or describe it, with an enum or a format where one fits",
)
def _r_param_ambiguous(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    for path, name, sub in _walk_props(tool.input_schema):
        low = name.lower()
        desc = d if isinstance(d := sub.get("description"), str) else ""
        pointer = json_pointer(path)
        if (
            low in ctx.ambiguous
            and not desc.strip()
            and "enum" not in sub
            and "format" not in sub
            and "const" not in sub
        ):
            yield _f(
                "param-ambiguous-name",
                tool.name,
                pointer,
                f"parameter {name!r} has no description, enum or format, and could mean {ctx.ambiguous[low]}",
            )
        elif low in _PATH_NAMES and desc.strip() and not _PATH_HINT.search(desc) and "format" not in sub:
            yield _f(
                "param-ambiguous-name",
                tool.name,
                pointer,
                f"path parameter {name!r} does not say whether it is relative (to what) or absolute",
                fix='say it in the description, e.g. "relative to the project root"',
            )


@register_rule(
    "param-undescribed",
    "info",
    "without a description the model infers a parameter's meaning and units from its name alone",
    "describe it in the docstring's Args section (or the schema's description)",
)
def _r_param_undescribed(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    for path, name, sub in _walk_props(tool.input_schema):
        if name.lower() in ctx.ambiguous:
            continue  # param-ambiguous-name covers it
        if (
            not (isinstance(sub.get("description"), str) and sub["description"].strip())
            and "enum" not in sub
            and "const" not in sub
        ):
            yield _f("param-undescribed", tool.name, json_pointer(path), f"parameter {name!r} has no description")


_NAMED_PARAM = [
    re.compile(r"\b([a-z_][a-z0-9_]*)\s*=\s*(?:[-0-9\"'\[{]|true\b|false\b|null\b|None\b)"),  # offset=201
    # `start_line`, `offset=...`: a backticked single word (`grep`, `json`) is as often a program
    # or a format as a parameter, so only snake_case names and assignments count
    re.compile(r"`([a-z][a-z0-9]*_[a-z0-9_]*)`"),
    re.compile(r"`([a-z_][a-z0-9_]*)\s*="),
    re.compile(r"\b(?i:pass|set|give|send|provide|increase|raise)\s+`([a-z_][a-z0-9_]*)`"),  # pass `cursor`
    re.compile(r"\b(?:the|its|a|an)\s+[`'\"]?([a-z_][a-z0-9_]*)[`'\"]?\s+(?:parameter|argument|field|option)\b", re.I),
    re.compile(r"\b(?:parameter|argument)\s+[`'\"]?([a-z_][a-z0-9_]*)[`'\"]?", re.I),
    re.compile(
        r"\b(?:pass|set|give|increase|raise)\s+[`'\"]?([a-z_]+_[a-z0-9_]*)[`'\"]?", re.I
    ),  # pass start_line (snake_case only)
]
_COMMON_WORDS = {
    "the",
    "a",
    "an",
    "it",
    "this",
    "that",
    "true",
    "false",
    "null",
    "none",
    "and",
    "or",
    "to",
    "of",
    "for",
    "parameter",
    "parameters",
    "argument",
    "arguments",
    "field",
    "option",
    "value",
    "values",
    "name",
    "names",
}


def _named_params(text: str) -> set[str]:
    found: set[str] = set()
    for rx in _NAMED_PARAM:
        for m in rx.finditer(text):
            w = m.group(1)
            if w.lower() not in _COMMON_WORDS:
                found.add(w)
    return found


def _all_prop_names(tool: Tool) -> set[str]:
    return {name for _, name, _ in _walk_props(tool.input_schema)}


@register_rule(
    "undeclared-parameter",
    "error",
    "the model follows text it is shown: a description or a paging note that tells it to send a parameter the schema does not declare produces calls that fail validation, or silently lose the value",
    "name the parameter the schema declares, or add the parameter to the schema",
)
def _r_undeclared(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    declared = _all_prop_names(tool)
    other_tools = ctx.__dict__.get("tool_names", set())
    texts: list[tuple[str, str]] = [("/description", tool.model_description())]
    for path, _name, sub in _walk_props(tool.input_schema):
        if isinstance(sub.get("description"), str):
            texts.append((json_pointer(path + ("description",)), sub["description"]))
    for pointer, text in texts:
        for w in sorted(_named_params(text) - declared - other_tools):
            yield _f(
                "undeclared-parameter",
                tool.name,
                pointer,
                f"text names {w!r}, which tool {tool.name!r} does not declare (declared: {', '.join(sorted(declared)) or 'none'})",
            )
    spec = CapSpec.from_meta(tool.meta.get("cap"))
    if spec is not None:
        props = _props(tool)
        missing = [p for p in spec.parameters() if p not in props]
        note = paging_note(Page("", spec.unit, 1, spec.size, spec.size * 3, True, spec.size + 1), tool.name, spec)
        if missing:
            yield _f(
                "undeclared-parameter",
                tool.name,
                "/input_schema/properties",
                f"the generated paging note ({note!r}) names {', '.join(repr(m) for m in missing)}, which the schema does not declare",
            )


@register_rule(
    "translation-change",
    "info",
    "the provider's adapter rewrites or drops this part of the schema; the model sees the rewritten form",
    "nothing to do unless the rewritten form misleads; keep schemas within the common subset to avoid it",
)
def _r_translation(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    return ()  # reported by _translation_findings (needs the provider loop)


@register_rule(
    "translation-lossy",
    "warning",
    "the provider's adapter drops information the model would have used (a constraint, a format, a union), so it will send values the schema meant to forbid",
    "move the constraint into the description, or simplify the schema to what the provider keeps",
)
def _r_translation_lossy(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    return ()


@register_rule(
    "translation-error",
    "error",
    "the provider's adapter cannot translate this schema, so a request with this tool fails before it is sent",
    "change the schema at the pointer as the message says",
)
def _r_translation_error(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    return ()


@register_rule(
    "translation-unavailable",
    "info",
    "the provider's adapter could not report its schema changes here, so rewrites for this provider are not shown",
    'install the adapter (pip install "toolwire[<provider>]") or upgrade it',
)
def _r_translation_unavailable(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    return ()


@register_rule(
    "provider-name",
    "error",
    "the provider rejects the whole request when a tool name breaks its naming rule",
    "rename it to letters, digits, '_' and '-' (a letter first), at most 64 characters",
)
def _r_provider_name(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    from ..registry import cached_profile

    for provider in ctx.providers:
        prof = cached_profile(provider)
        reason = prof.tool_name_error(tool.name) if prof is not None else None
        if reason:
            yield _f(
                "provider-name",
                tool.name,
                "/name",
                f"tool name {tool.name!r} breaks {provider}'s rule: {reason}",
                fix=f"rename it so that {provider} accepts it ({reason})",
                provider=provider,
            )


@register_rule(
    "provider-rule",
    "error",
    "a request with this tool breaks a rule of the provider's API (its profile says so before anything is sent), so toolwire refuses to send it",
    "change the tool as the message says; the rule id names the provider's rule (see the provider's page under Vendor rules)",
)
def _r_provider_rule(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    return ()  # produced by the preflight of a probe request (see _preflight_findings)


@register_rule(
    "preflight-repair",
    "info",
    "before sending, the provider's profile rewrites part of a request with this tool (the model still sees what the tool means)",
    "nothing to do; change the tool if you would rather send it as it is",
)
def _r_preflight_repair(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    return ()  # produced by the preflight of a probe request (see _preflight_findings)


#: The lint rules that review a vendor's own tool (:class:`~toolwire.tools.ProviderTool`): the
#: vendor wrote its name, description and input schema, so the rules about those texts skip it.
PROVIDER_TOOL_RULES = frozenset({"provider-tool-vendor", "provider-tool-settings", "token-cost", "text-too-long"})


def _is_provider_tool(tool: Any) -> bool:
    from ..tools import ProviderTool

    return isinstance(tool, ProviderTool)


@register_rule(
    "provider-tool-vendor",
    "warning",
    "a vendor's own tool exists only on that vendor: a request to another provider with it is refused before it is sent (ProviderToolUnsupported)",
    "send this tool only to its vendor's models, or give each provider its own tool list",
)
def _r_provider_tool_vendor(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    if not _is_provider_tool(tool):
        return
    vendor, wire_type = getattr(tool, "vendor", ""), getattr(tool, "type", "")
    others = [p for p in ctx.providers if p != vendor]
    if not others:
        return
    where = f"{vendor}'s own tool ({wire_type})"
    if vendor not in ctx.providers:
        yield _f(
            "provider-tool-vendor",
            tool.name,
            "",
            f"{tool.name!r} is {where} and none of the providers reviewed has it: {', '.join(others)} refuse it",
            severity="error",
        )
        return
    yield _f(
        "provider-tool-vendor",
        tool.name,
        "",
        f"{tool.name!r} is {where}: requests to {', '.join(others)} with it are refused",
    )


@register_rule(
    "provider-tool-settings",
    "error",
    "the vendor rejects a declaration whose fields its API does not define (a misspelt field, a value of the wrong type), so the whole request fails",
    "correct the settings to the vendor's field names and types (the message names the SDK's closest field)",
)
def _r_provider_tool_settings(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    if not _is_provider_tool(tool):
        return
    vendor = getattr(tool, "vendor", "")
    # the same check that refuses the tool before a request is sent (ProviderTool.check_for)
    for problem in tool.settings_problems():  # type: ignore[attr-defined]
        yield _f(
            "provider-tool-settings",
            tool.name,
            "/settings",
            f"{vendor} {getattr(tool, 'type', '')}: {problem}",
            provider=vendor,
        )


@register_rule(
    "duplicate-name",
    "error",
    "two tools with one name: every provider rejects the request, or the model's call reaches the wrong function",
    "give each tool its own name",
    per_set=True,
)
def _r_duplicates(tools: Sequence[Tool], ctx: _Ctx) -> Iterable[Finding]:
    seen: dict[str, int] = {}
    for t in tools:
        seen[t.name] = seen.get(t.name, 0) + 1
    for name, n in seen.items():
        if n > 1:
            yield _f("duplicate-name", name, "/name", f"{n} tools are named {name!r}")


@register_rule(
    "token-cost",
    "info",
    "every tool definition is sent with every request, so its tokens are paid on each turn of a run",
    "shorten descriptions that repeat the schema, drop parameters the model never needs, split rarely used tools into another set",
)
def _r_token_cost(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    from .tokens import tool_label

    for provider, cost in ctx.token_costs.items():
        if isinstance(cost, str):
            continue
        per = {c.tool: c for c in cost.tools}
        c = per.get(tool_label(tool))
        if c is not None:
            kind = "exact (o200k_base)" if c.exact else "estimate"
            yield _f(
                "token-cost", tool.name, "", f"{c.tokens} tokens per turn for {provider} ({kind})", provider=provider
            )


# -- translation through the adapters ----------------------------------------------------------


def _translation_findings(tool: Tool, provider: str, cache: dict[str, Any]) -> Iterable[Finding]:
    if provider not in cache:
        try:
            from ..registry import codec

            cache[provider] = codec(provider)
        except Exception as exc:  # adapter missing, not written yet, or failing to import
            cache[provider] = exc
    c = cache[provider]
    if isinstance(c, Exception):
        yield _f(
            "translation-unavailable",
            tool.name,
            "",
            f"no translation report for {provider}: {type(c).__name__}: {c}",
            provider=provider,
        )
        return
    try:
        _decl, report = c.translate_tool(tool)
    except (NotImplementedError, AttributeError, ImportError) as exc:
        yield _f(
            "translation-unavailable",
            tool.name,
            "",
            f"no translation report for {provider}: {type(exc).__name__}: {exc}",
            provider=provider,
        )
        return
    except ToolNameError:
        return  # the provider-name rule reports it
    except Exception as exc:
        from ..errors import SchemaTranslationError

        pointer = "/input_schema" + (exc.pointer if isinstance(exc, SchemaTranslationError) and exc.pointer else "")
        yield _f("translation-error", tool.name, pointer, f"{provider} cannot take this tool: {exc}", provider=provider)
        return
    for change in report:
        rule = "translation-lossy" if change.lossy else "translation-change"
        ptr = change.pointer if change.pointer.startswith("/input_schema") else "/input_schema" + change.pointer
        yield _f(
            rule, tool.name, ptr, f"{provider}: {change.action} {change.keyword}: {change.detail}", provider=provider
        )


def _preflight_findings(tool: Tool, provider: str, cache: dict[str, Any]) -> Iterable[Finding]:
    """The preflight of a one-message request with ``tool`` for ``provider``: each violation of
    the API's rules (``provider-rule``) and each repair (``preflight-repair``); the pointer of
    each into the encoded request is in the message."""
    c = cache.get(provider)
    if c is None or isinstance(c, Exception):
        return
    from ..adapter import ModelRequest
    from ..errors import RequestRefused, ToolwireError
    from ..profile import preflight
    from ..registry import cached_profile
    from ..types import Message, TextPart

    prof = cached_profile(provider)
    if prof is None:
        return
    try:
        body = c.encode_request(
            ModelRequest(model="lint-probe", messages=[Message("user", [TextPart("Hi")])], tools=[tool])
        )
    except ToolwireError:
        return  # a name or schema the codec refuses: provider-name / translation-error report it
    except Exception:
        return
    try:
        _body, report = preflight(prof, body)
    except RequestRefused as exc:
        for v in exc.violations:
            yield _f(
                "provider-rule",
                tool.name,
                "",
                f"{provider}: {v.message} (rule {v.rule}, at {v.pointer or '/'} of the request)",
                provider=provider,
            )
        return
    except Exception as exc:
        yield _f(
            "translation-unavailable",
            tool.name,
            "",
            f"{provider}'s profile could not check a request: {type(exc).__name__}: {exc}",
            provider=provider,
        )
        return
    for change in report:
        yield _f(
            "preflight-repair",
            tool.name,
            "",
            f"{provider}: {change.detail} (rule {change.rule}, at {change.pointer or '/'} of the request)",
            provider=provider,
        )


def _run_rule(rule: Rule, subject: Any, tool_name: str, ctx: _Ctx) -> list[Finding]:
    """The rule's findings; a rule that raises (a schema shaped in a way it did not expect)
    becomes one error finding under its id instead of aborting the whole review."""
    try:
        return list(rule.check(subject, ctx))
    except Exception as exc:
        return [
            Finding(
                rule.id,
                "error",
                tool_name,
                "",
                f"this check could not run: {type(exc).__name__}: {_one_line(exc)}",
                "fix what schema-invalid reports for this tool, or report the crash as a toolwire bug",
            )
        ]


# -- bounded work ---------------------------------------------------------------------------------

#: Longest text (a tool description, its returns note, a parameter description) lint reviews, in
#: characters; a longer one is reviewed (and its token cost counted) up to this bound, and the
#: ``text-too-long`` finding says so.
MAX_LINT_TEXT_CHARS = 100_000


@register_rule(
    "text-too-long",
    "warning",
    "every character of a description is sent with every request; a text this long costs more tokens than most conversations",
    "move reference material out of the description (into a tool the model calls when it needs it) and keep the description to what, when and how",
)
def _r_text_too_long(tool: Tool, ctx: _Ctx) -> Iterable[Finding]:
    for pointer, length in tool.meta.get("lint_cut", ()):
        yield _f(
            "text-too-long",
            tool.name,
            pointer,
            f"the text is {length:,} characters; lint reviewed and priced the first {MAX_LINT_TEXT_CHARS:,} (MAX_LINT_TEXT_CHARS)",
        )


def _bounded(tool: Tool) -> Tool:
    """``tool`` itself, or a copy whose texts are cut at :data:`MAX_LINT_TEXT_CHARS` with
    ``meta["lint_cut"]`` listing (pointer, original length) of each cut text."""
    import copy

    from ..errors import SchemaError
    from ..schema.validate import check_schema_bounds

    cap = MAX_LINT_TEXT_CHARS
    cut: list[tuple[str, int]] = []

    def trim(node: Any, path: tuple[Any, ...]) -> Any:
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                if k == "description" and isinstance(v, str) and len(v) > cap:
                    cut.append((json_pointer(["input_schema", *path, k]), len(v)))
                    v = v[:cap]
                else:
                    v = trim(v, (*path, k))
                out[k] = v
            return out
        if isinstance(node, list):
            return [trim(v, (*path, i)) for i, v in enumerate(node)]
        return node

    description = tool.description if isinstance(tool.description, str) else ""
    returns = tool.returns if isinstance(tool.returns, str) else None
    if len(description) > cap:
        cut.append(("/description", len(description)))
    if returns is not None and len(returns) > cap:
        cut.append(("/returns", len(returns)))
    schema = tool.input_schema
    beyond: str | None = None
    try:
        check_schema_bounds(schema, tool_name=tool.name)
        schema = trim(schema, ())
    except SchemaError as exc:  # past its bounds: no rule walks it; schema-invalid reports the bound
        beyond = str(exc)
        schema = {"type": "object", "properties": {}}
    if not cut and beyond is None:
        return tool
    clone = copy.copy(tool)
    clone.description = description[:cap]
    clone.returns = returns[:cap] if returns is not None else None
    clone.input_schema = schema
    clone.meta = {**tool.meta, "lint_cut": cut}
    if beyond is not None:
        clone.meta["lint_schema_beyond_bounds"] = beyond
    return clone


# -- entry point --------------------------------------------------------------------------------


def lint_tools(
    tools: Iterable[Tool],
    providers: Sequence[str] | None = None,
    *,
    ambiguous_names: dict[str, str] | Iterable[str] | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    token_costs: bool = True,
) -> LintReport:
    """Run every rule of :data:`RULES` on ``tools``.

    - ``providers``: which providers' adapters, name rules and token costs to check
      (default :data:`DEFAULT_PROVIDERS`); a name outside it raises
      :class:`~toolwire.errors.ConfigurationError` listing the known ones (see
      :func:`check_providers`);
    - ``ambiguous_names``: more parameter names to treat as ambiguous (a mapping name -> readings,
      or just names), on top of :data:`AMBIGUOUS_NAMES`;
    - ``select``/``ignore``: rule ids to run only / to skip; an id that is not in :data:`RULES`
      (a misspelt one would select or skip nothing without a word) raises
      :class:`~toolwire.errors.ConfigurationError` with the closest ids;
    - ``token_costs``: compute per-provider token costs (``token-cost`` findings and the
      summary's ``token_cost``).

    Returns a :class:`LintReport` whose findings are ordered by tool, then rule.
    """
    from ..tools import provider_tool_settings_reviewed

    select = None if select is None else [select] if isinstance(select, str) else list(select)
    ignore = None if ignore is None else [ignore] if isinstance(ignore, str) else list(ignore)
    for what, ids in (("select", select), ("ignore", ignore)):
        for rule_id in ids or ():
            if rule_id not in RULES:
                from .suggest import did_you_mean

                hint = did_you_mean(str(rule_id), RULES) if isinstance(rule_id, str) else None
                raise ConfigurationError(
                    f"{what}: no lint rule {rule_id!r}.{' ' + hint if hint else ''} The rules: {', '.join(RULES)}"
                )

    # the provider-tool-settings rule reports bad settings; translating such a tool for the
    # translation and token-cost reviews must not refuse it as a request would
    with provider_tool_settings_reviewed():
        return _lint_tools(
            tools, providers, ambiguous_names=ambiguous_names, select=select, ignore=ignore, token_costs=token_costs
        )


def _lint_tools(
    tools: Iterable[Tool],
    providers: Sequence[str] | None = None,
    *,
    ambiguous_names: dict[str, str] | Iterable[str] | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    token_costs: bool = True,
) -> LintReport:
    """:func:`lint_tools` itself."""
    from .tokens import COST_PROVIDERS, tool_costs

    tools = [_bounded(t) for t in tools]  # texts past MAX_LINT_TEXT_CHARS are reviewed up to it
    provs: list[str] = check_providers(providers) if providers else list(DEFAULT_PROVIDERS)
    amb = dict(AMBIGUOUS_NAMES)
    if ambiguous_names:
        if isinstance(ambiguous_names, dict):
            amb.update({k.lower(): v for k, v in ambiguous_names.items()})
        else:
            amb.update({k.lower(): "more than one thing" for k in ambiguous_names})
    ctx = _Ctx(provs, amb)
    ctx.__dict__["tool_names"] = {t.name for t in tools}
    selected = set(select) if select else set(RULES)
    skipped = set(ignore or ())
    active = [r for r in RULES.values() if r.id in selected and r.id not in skipped]
    summary_costs: dict[str, Any] = {}
    if token_costs:
        for p in provs:
            if p in COST_PROVIDERS:
                try:  # a vendor's own tool costs tokens only where it can be sent
                    ctx.token_costs[p] = tool_costs([t for t in tools if _sendable(t, p)], p)
                    summary_costs[p] = ctx.token_costs[p].to_dict()
                except Exception as exc:  # pragma: no cover - tokenizer damaged
                    summary_costs[p] = {"error": str(exc)}
            else:
                summary_costs[p] = {"error": f"no offline token-cost model for {p}"}
    findings: list[Finding] = []
    cache: dict[str, Any] = {}
    for t in tools:
        for r in active:
            if r.per_set or (_is_provider_tool(t) and r.id not in PROVIDER_TOOL_RULES):
                continue
            findings.extend(_run_rule(r, t, t.name, ctx))
        if any(r.id.startswith("translation-") or r.id in ("provider-rule", "preflight-repair") for r in active):
            for p in provs:
                if not _sendable(t, p):
                    continue  # provider-tool-vendor reports it
                findings.extend(
                    f for f in _translation_findings(t, p, cache) if f.rule in selected and f.rule not in skipped
                )
                findings.extend(
                    f for f in _preflight_findings(t, p, cache) if f.rule in selected and f.rule not in skipped
                )
    for r in active:
        if r.per_set:
            findings.extend(_run_rule(r, tools, "", ctx))
    order = {n: i for i, n in enumerate(t.name for t in tools)}
    findings.sort(
        key=lambda f: (order.get(f.tool, 0), SEVERITIES.index(f.severity), f.rule, f.provider or "", f.pointer)
    )
    counts = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
    summary = {
        "tools": len(tools),
        "providers": provs,
        "errors": counts["error"],
        "warnings": counts["warning"],
        "infos": counts["info"],
        "rules": sorted({f.rule for f in findings}),
        "token_cost": summary_costs,
        "prompt_cache": prompt_cache_savings(summary_costs),
    }
    return LintReport(findings, summary)


def _sendable(tool: Tool, provider: str) -> bool:
    """Whether ``tool`` can go to ``provider``: any tool of yours, a vendor's own only to it."""
    return not _is_provider_tool(tool) or getattr(tool, "vendor", None) == provider


def prompt_cache_savings(token_costs: dict[str, Any]) -> dict[str, Any]:
    """What a cached prefix saves on the tool definitions, per provider, from the summary's
    ``token_cost``: ``{"tokens": N, "min_prefix_tokens": M, "cacheable_alone": bool}``.

    With prompt caching on (the model setting ``cache``), every request after the first of a run
    reads the tool definitions (``N`` input tokens, the set's per-turn cost) from the vendor's
    cache, billed at the cache-read rate instead of the input rate. The vendor caches only a
    prefix of at least ``M`` tokens (:meth:`~toolwire.profile.Profile.cache_min_tokens` of the
    provider's profile, default model); ``cacheable_alone`` says whether the tool definitions
    reach it by themselves (else the instructions and history must add the rest). Providers
    without prompt caching or without an offline token count are left out."""
    from ..registry import cached_profile

    out: dict[str, Any] = {}
    for provider, cost in token_costs.items():
        if not isinstance(cost, dict) or "tokens" not in cost:
            continue
        prof = cached_profile(provider)
        minimum = prof.cache_min_tokens() if prof is not None else None
        if minimum is None:
            continue
        out[provider] = {
            "tokens": cost["tokens"],
            "min_prefix_tokens": minimum,
            "cacheable_alone": cost["tokens"] >= minimum,
        }
    return out


# -- loading targets ----------------------------------------------------------------------------


def _tools_in(obj: Any) -> list[Tool] | None:
    if isinstance(obj, Tool):
        return [obj]
    if isinstance(obj, (list, tuple)) and obj and all(isinstance(x, Tool) for x in obj):
        return list(obj)
    return None


def _from_module(mod: Any) -> list[Tool]:
    out: list[Tool] = []
    for name, value in vars(mod).items():
        if name.startswith("__"):
            continue
        if isinstance(value, Tool) and all(value is not o for o in out):
            out.append(value)
    return out


def load_tools(target: str) -> list[Tool]:
    """:func:`load_tools_noting_functions` without the list of functions left out."""
    return load_tools_noting_functions(target)[0]


def load_tools_noting_functions(target: str) -> tuple[list[Tool], list[str]]:
    """Tools named by ``target``, and the names of the public functions a module or file target
    defines that are not among them (found by the module name alone, only functions decorated
    with ``@toolwire.tool`` are tools; ``module:a,b`` names the others). Targets:

    - ``pkg.module``: every :class:`Tool` the module defines at top level;
    - ``pkg.module:attr``: a Tool, a list of Tools, a typed function (a tool as ``@toolwire.tool``
      would make it; one that takes no parameters is called as a factory), or a callable
      returning a Tool or a list of Tools (``mytools:make``); ``pkg.module:a,b`` names several;
    - ``path/to/file.py``: every top-level Tool of that file (``file.py:attr`` and
      ``file.py:a,b`` also work);
    - ``path/to/tools.json``: a list of canonical specs ``{"name", "description", "input_schema"}``
      (also accepted: ``{"tools": [...]}``, and OpenAI ``{"type":"function","function":{...}}``
      or ``parameters`` keys).

    Raises :class:`ToolDefinitionError` with what was found instead (a missing file, module or
    name with the closest existing one: "did you mean ...?").
    """
    t = target.strip()
    if t.endswith(".json"):
        if Path(t).is_file():
            return _from_json(Path(t)), []
        raise ToolDefinitionError(f"lint target {target!r}: no such file{_file_hint(Path(t))}")
    names: list[str] = []
    base = t
    m = re.match(r"^(.+?):([A-Za-z0-9_.,\s]*)$", t)
    if m and not re.match(r"^[A-Za-z]:[\\/]", t):
        base, attr = m.group(1), m.group(2)
        names = [n.strip() for n in attr.split(",")]
        bad = [n for n in names if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", n)]
        if bad:
            what = "an empty name" if "" in bad else f"{bad[0]!r}, not a Python name"
            raise ToolDefinitionError(
                f"lint target {target!r}: {what} after ':' (write {base}:name or {base}:name1,name2)"
            )
    if base.endswith(".py") or Path(base).is_file():
        p = Path(base).resolve()
        if not p.is_file():
            raise ToolDefinitionError(f"lint target {base!r}: no such file{_file_hint(Path(base))}")
        name = f"_toolwire_lint_{abs(hash(str(p)))}"
        spec = importlib.util.spec_from_file_location(name, p)
        if spec is None or spec.loader is None:
            raise ToolDefinitionError(f"lint target {base!r} cannot be imported as Python")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        sys.path.insert(0, str(p.parent))
        try:
            _guarded(target, f"importing {base!r}", spec.loader.exec_module, mod)
        except ToolDefinitionError:
            sys.modules.pop(name, None)
            raise
        finally:
            sys.path.remove(str(p.parent))
    else:
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        try:
            mod = _guarded(target, f"importing module {base!r}", importlib.import_module, base)
        except ToolDefinitionError as exc:
            cause = exc.__cause__ or exc.__context__
            if (
                isinstance(cause, ModuleNotFoundError)
                and cause.name
                and (base == cause.name or base.startswith(cause.name + "."))
            ):
                raise ToolDefinitionError(
                    f"lint target {target!r}: no module named {base!r} on the import path"
                    f"{_module_hint(cause.name)} (give a file path, or run from the directory that holds the package)"
                ) from None
            raise
    if not names:
        tools = _from_module(mod)
        if not tools:
            plain = _plain_functions(mod)
            named = f"{base}:{','.join(plain[:2])}" if plain else f"{base}:ATTR"
            listed = f"; its functions: {', '.join(plain)}" if plain else ""
            raise ToolDefinitionError(
                f"lint target {target!r} defines no Tool at top level (only functions decorated with "
                f"@toolwire.tool are found by the module name alone); name them: {named}{listed}"
            )
        wrapped = {id(getattr(t, "function", None)) for t in tools}
        skipped = [n for n in _plain_functions(mod) if id(getattr(mod, n)) not in wrapped]
        return tools, skipped
    found: list[Tool] = []
    for one in names:
        for tool in _tools_named(target, mod, one):
            if all(tool is not o for o in found):
                found.append(tool)
    return found, []


def _plain_functions(mod: Any) -> list[str]:
    """The public functions a module defines itself (not imported ones)."""
    import inspect

    return [
        n
        for n, v in vars(mod).items()
        if not n.startswith("_") and inspect.isfunction(v) and v.__module__ == mod.__name__
    ]


def _tools_named(target: str, mod: Any, name: str) -> list[Tool]:
    """The tools of one ``name`` (dotted: an attribute path) in ``mod``; a missing name raises
    :class:`ToolDefinitionError` listing the module's tools and functions with the closest one."""
    import inspect

    obj: Any = mod
    for part in name.split("."):
        if not hasattr(obj, part):
            where = "the module" if obj is mod else repr(name.rsplit(".", 1)[0])
            candidates = (
                [
                    n
                    for n, v in vars(obj).items()
                    if not n.startswith("_")
                    and (isinstance(v, (Tool, list, tuple)) or inspect.isfunction(v) or inspect.isclass(v))
                ]
                if hasattr(obj, "__dict__")
                else []
            )
            hint = _hint(part, candidates)
            tools_here = [
                n for n in candidates if isinstance(getattr(obj, n), Tool) or inspect.isfunction(getattr(obj, n))
            ]
            listed = f" Its tools and functions: {', '.join(tools_here)}." if tools_here else ""
            end = "" if hint.endswith(("?", ".")) or not listed else "."
            raise ToolDefinitionError(f"lint target {target!r}: {where} has no {part!r}{hint}{end}{listed}")
        obj = getattr(obj, part)
    found = _tools_in(obj)
    if found is not None:
        return found
    if isinstance(obj, (list, tuple)) and obj and all(isinstance(x, Tool) or inspect.isfunction(x) for x in obj):
        return [x if isinstance(x, Tool) else _guarded(target, f"reading {name}", Tool.from_function, x) for x in obj]
    if callable(obj) and not isinstance(obj, Tool) and not inspect.isclass(obj) and _parameters(obj) != 0:
        # a function (method, partial, callable object) that takes parameters is a tool, as toolwire
        # run --tools takes it: it is read, never called (linting runs nothing of the user's)
        return [_guarded(target, f"reading {name!r} as a tool", Tool.from_function, obj)]
    if callable(obj) and not isinstance(obj, Tool):
        made = _guarded(target, f"calling {name}()", obj)
        found = _tools_in(made)
        if found is None:
            raise ToolDefinitionError(
                f"lint target {target!r}: {name}() returned a {type(made).__name__}, not a Tool or a list of Tools "
                "(a function without parameters is called as a factory; decorate it with @toolwire.tool "
                "to lint it as a tool)"
            )
        return found
    raise ToolDefinitionError(
        f"lint target {target!r}: {name!r} is a {type(obj).__name__}, not a Tool or a list of Tools"
    )


def _parameters(fn: Any) -> int | None:
    """How many parameters ``fn`` takes (defaulted ones included; ``None`` when its signature
    cannot be read). Only a callable that takes none is called, as a factory of tools."""
    import inspect

    try:
        return len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None


def _file_hint(path: Path) -> str:
    """``"; did you mean 'tools.py'?"`` for the closest file of the same suffix in the folder."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        names = [c.name for c in folder.iterdir() if c.is_file() and c.suffix == path.suffix]
    except OSError:
        return ""
    return _hint(path.name, names)


def _hint(name: str, candidates: Iterable[str]) -> str:
    """``"; did you mean 'a'?"`` (or ``'a' or 'b'``) for the closest candidates, else ``""``."""
    from .suggest import closest

    found = closest(name, candidates, n=2)
    return f"; did you mean {' or '.join(repr(f) for f in found)}?" if found else ""


def _module_hint(missing: str) -> str:
    """``"; did you mean 'mytools'?"`` for the closest importable module: a submodule of the
    package that exists, else a top-level module or a ``.py`` file in the current folder."""
    import pkgutil

    parent, _, leaf = missing.rpartition(".")
    try:
        if parent:
            pkg = sys.modules.get(parent) or importlib.import_module(parent)
            names = [m.name for m in pkgutil.iter_modules(getattr(pkg, "__path__", []))]
        else:
            names = [m.name for m in pkgutil.iter_modules([str(Path.cwd())])]
            if not _hint(leaf, names):
                names += [m.name for m in pkgutil.iter_modules()]
    except Exception:  # a hint only
        return ""
    if parent:
        names = [f"{parent}.{n}" for n in names]
        leaf = missing
    return _hint(leaf, names)


def _guarded(target: str, doing: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with everything it may throw (``SystemExit`` included) turned into a
    one-line :class:`ToolDefinitionError`; what it prints goes to stderr, so ``--json`` output
    stays parseable. ``KeyboardInterrupt`` passes through."""
    import contextlib

    try:
        with contextlib.redirect_stdout(sys.stderr):
            return fn(*args)
    except SystemExit as exc:
        raise ToolDefinitionError(
            f"lint target {target!r}: {doing} called sys.exit({exc.code!r}); "
            "a tool module must not exit when imported (guard it with if __name__ == '__main__':)"
        ) from exc
    except ToolDefinitionError as exc:
        raise ToolDefinitionError(f"lint target {target!r}: {doing} failed: {_one_line(exc)}") from exc
    except Exception as exc:
        where = ""
        tb = exc.__traceback__
        while tb is not None:  # the innermost frame with a real file (not importlib's frozen code)
            fname = tb.tb_frame.f_code.co_filename
            if not fname.startswith("<") and Path(fname).resolve() != Path(__file__).resolve():
                where = f" ({Path(fname).name}, line {tb.tb_lineno})"
            tb = tb.tb_next
        raise ToolDefinitionError(
            f"lint target {target!r}: {doing} failed: {type(exc).__name__}: {_one_line(exc)}{where}"
        ) from exc


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:300] + " ..."


def _from_json(p: Path) -> list[Tool]:
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: JSONDecodeError and UnicodeDecodeError
        raise ToolDefinitionError(f"lint target {str(p)!r}: not readable JSON ({_one_line(exc)})") from None
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if not isinstance(data, list):
        raise ToolDefinitionError(
            f'lint target {str(p)!r} must hold a list of tool specs (or {{"tools": [...]}}), got {type(data).__name__}'
        )
    tools = []
    for i, spec in enumerate(data):
        if not isinstance(spec, dict):
            raise ToolDefinitionError(f"lint target {str(p)!r}: item {i} is a {type(spec).__name__}, not an object")
        if spec.get("type") == "function" and isinstance(spec.get("function"), dict):
            spec = spec["function"]
        name = spec.get("name")
        if not isinstance(name, str):
            raise ToolDefinitionError(f'lint target {str(p)!r}: item {i} has no "name" string')
        description = spec.get("description")
        if description is not None and not isinstance(description, str):
            raise ToolDefinitionError(
                f'lint target {str(p)!r}: item {i} ({name!r}): "description" must be a string, '
                f"got {type(description).__name__}"
            )
        schema = spec.get("input_schema", spec.get("parameters"))
        if schema is None or schema == {}:
            schema = {"type": "object", "properties": {}}
        if not isinstance(schema, dict):
            raise ToolDefinitionError(
                f"lint target {str(p)!r}: item {i} ({name!r}): the input schema must be an object, "
                f"got {type(schema).__name__}"
            )
        tools.append(_spec_tool(name, description or "", schema, spec.get("meta")))
    return tools


class _LintTool(Tool):
    """A Tool read from JSON for review only: its name is checked by the lint rules (so a name
    one provider rejects becomes a finding, not an exception)."""

    def __post_init__(self) -> None:  # no name check: lint reports it
        pass


def _spec_tool(name: str, description: str, schema: dict[str, Any], meta: Any) -> Tool:
    t = _LintTool(name, description, schema)
    if isinstance(meta, dict):
        t.meta.update(meta)
    return t
