"""The alternatives of a top-level ``anyOf``/``oneOf`` offered as one object's properties.

Anthropic, OpenAI and Gemini's Schema refuse a combinator at the top of a tool's input schema.
What the adapters send instead is one object: every alternative's properties, optional; a
property several alternatives define differently takes any of their definitions (a
discriminator's consts, an id of either type), never only the first one's; and only the names
every alternative requires stay required. Arguments are still validated against the original
schema.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["offered_alternatives"]


def offered_alternatives(base: dict[str, Any], alternatives: list[Any]) -> tuple[dict[str, Any], list[Any]]:
    """``(properties, required names)`` of the object that offers ``alternatives`` (schema
    objects; other entries are ignored) on top of the root's own properties ``base`` (whose
    definitions win): the ``properties`` map to send and the names to add to ``required``, in
    the order the alternatives list them. The given schemas are not modified."""
    props = dict(base)
    variants: dict[str, list[Any]] = {}
    for alt in alternatives:
        alt_props = alt.get("properties") if isinstance(alt, dict) else None
        for name, sub in alt_props.items() if isinstance(alt_props, dict) else ():
            if name in base:
                continue
            seen = variants.setdefault(name, [])
            if sub not in seen:
                seen.append(copy.deepcopy(sub))
    for name, seen in variants.items():
        props[name] = seen[0] if len(seen) == 1 else {"anyOf": seen}
    shared: set[Any] | None = None
    for alt in alternatives:
        req = alt.get("required") if isinstance(alt, dict) else None
        names = set(req) if isinstance(req, list) else set()
        shared = names if shared is None else shared & names
    required = (
        list(
            dict.fromkeys(
                n for alt in alternatives if isinstance(alt, dict) for n in alt.get("required") or () if n in shared
            )
        )
        if shared
        else []
    )
    return props, required
