"""The validator's small framework: rules registered per API, violations with JSON pointers.

Written independently of toolwire's profiles and preflight (it imports nothing from
``toolwire`` and no ``toolwire_*`` adapter): each rule is this module's own reading of the
vendor's SDK request types, documents and the error texts users quote.

A rule is a generator ``fn(body) -> Iterable[(pointer, message)]`` over an arbitrary
JSON-shaped value; it must never raise, whatever it is given (the fuzz test holds it to that).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

Finding = tuple[str, str]
RuleFn = Callable[[Any], Iterable[Finding]]


@dataclass(frozen=True)
class Violation:
    rule: str
    pointer: str
    message: str

    def __str__(self) -> str:  # pragma: no cover - for assertion messages
        return f"[{self.rule}] {self.pointer or '/'}: {self.message}"


@dataclass(frozen=True)
class Rule:
    id: str
    summary: str
    source: str
    fn: RuleFn = field(repr=False, compare=False)


class RuleSet:
    """The rules of one API, in registration order."""

    def __init__(self, api: str) -> None:
        self.api = api
        self.rules: dict[str, Rule] = {}

    def rule(self, id: str, summary: str, source: str) -> Callable[[RuleFn], RuleFn]:
        if not id.startswith(self.api + "."):
            raise ValueError(f"rule id {id!r} must start with {self.api!r}")

        def deco(fn: RuleFn) -> RuleFn:
            if id in self.rules:
                raise ValueError(f"duplicate rule id {id!r}")
            self.rules[id] = Rule(id, summary, source, fn)
            return fn

        return deco

    def validate(self, body: Any, *, disabled: Iterable[str] = ()) -> list[Violation]:
        off = set(disabled)
        unknown = off - set(self.rules)
        if unknown:
            raise KeyError(f"unknown rule ids {sorted(unknown)}")
        out: list[Violation] = []
        for r in self.rules.values():
            if r.id in off:
                continue
            for pointer, message in r.fn(body):
                out.append(Violation(r.id, pointer, message))
        return out


# --- JSON helpers: total functions over any value -------------------------------------------


def esc(token: Any) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def ptr(*tokens: Any) -> str:
    """RFC 6901 pointer from tokens (``ptr("messages", 2, "content")`` -> ``/messages/2/content``)."""
    return "".join("/" + esc(t) for t in tokens)


def join(base: str, *tokens: Any) -> str:
    return base + ptr(*tokens)


def is_obj(x: Any) -> bool:
    return isinstance(x, dict)


def obj(x: Any) -> dict[str, Any]:
    """``x`` if it is a JSON object, else an empty one (callers report shape problems separately)."""
    return x if isinstance(x, dict) else {}


def arr(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def is_str(x: Any) -> bool:
    return isinstance(x, str)


def is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def short(x: Any, n: int = 60) -> str:
    try:
        s = json.dumps(x, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        s = repr(x)
    return s if len(s) <= n else s[: n - 1] + "…"


def json_object_text(value: Any) -> bool:
    """A string holding a JSON object."""
    if not isinstance(value, str):
        return False
    try:
        return isinstance(json.loads(value), dict)
    except (ValueError, RecursionError):
        return False


def hashable(x: Any) -> Any:
    """A key usable in a set/dict for any JSON value (ids of the wrong type included)."""
    try:
        hash(x)
        return x
    except TypeError:
        return ("unhashable", short(x, 200))


def walk_schema(node: Any, base: str, depth: int = 0) -> Iterator[tuple[str, dict[str, Any], int]]:
    """Every subschema object of a JSON Schema, with its pointer and object-nesting depth.

    Follows the applicator keywords of draft 2020-12 (and draft-07's ``definitions``/array
    ``items``); stops at 200 levels so a pathological input cannot exhaust the stack.
    """
    if not isinstance(node, dict) or depth > 200:
        return
    yield base, node, depth
    for key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
        sub = node.get(key)
        if isinstance(sub, dict):
            for name, s in sub.items():
                yield from walk_schema(s, join(base, key, name), depth + 1)
    for key in (
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
    ):
        sub = node.get(key)
        if isinstance(sub, dict):
            yield from walk_schema(sub, join(base, key), depth + 1)
        elif key == "items" and isinstance(sub, list):
            for i, s in enumerate(sub):
                yield from walk_schema(s, join(base, key, i), depth + 1)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for i, s in enumerate(arr(node.get(key))):
            yield from walk_schema(s, join(base, key, i), depth + 1)


class Names(frozenset):
    """A set of names whose membership test is total: a non-string (a list, a dict) is simply
    not a member, where a plain set would raise ``TypeError: unhashable type``."""

    def __contains__(self, x: object) -> bool:
        return isinstance(x, str) and frozenset.__contains__(self, x)

    def __or__(self, other: Any) -> Names:
        return Names(frozenset(self) | frozenset(other))


def names(*xs: str) -> Names:
    return Names(xs)
