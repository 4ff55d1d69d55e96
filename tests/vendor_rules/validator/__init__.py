"""An independent validator of encoded request bodies, one module per vendor API.

``validate(api, body, disabled=()) -> list[Violation]``: every violation (rule id, RFC 6901
pointer into ``body``, message) of the API's rules; empty when the body is valid. ``disabled``
turns rules off by id (the mutation test uses it). Never raises on a JSON-shaped ``body``.

Independent of toolwire's profiles and preflight: nothing here imports ``toolwire`` or an
adapter. Test-only code.
"""

from __future__ import annotations

from typing import Any, Iterable

from . import anthropic, gemini, openai_chat, openai_responses
from ._base import Rule, RuleSet, Violation

__all__ = ["validate", "RULESETS", "API_ALIASES", "Rule", "Violation", "ruleset"]

RULESETS: dict[str, RuleSet] = {
    "anthropic": anthropic.rules,
    "openai-chat": openai_chat.rules,
    "openai": openai_responses.rules,
    "gemini": gemini.rules,
}
#: Old provider labels still found in saved data and recordings folders.
API_ALIASES = {"openai-responses": "openai"}


def ruleset(api: str) -> RuleSet:
    api = API_ALIASES.get(api, api)
    try:
        return RULESETS[api]
    except KeyError:
        raise ValueError(f"unknown api {api!r}; expected one of {sorted(RULESETS)}") from None


def validate(api: str, body: Any, *, disabled: Iterable[str] = ()) -> list[Violation]:
    return ruleset(api).validate(body, disabled=disabled)
