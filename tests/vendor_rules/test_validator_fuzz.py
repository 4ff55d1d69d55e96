"""The validator never crashes on malformed input (issue 10, item 7): anything JSON-shaped, wrong
types included, gives a list of violations and no exception.

Budget: 250 examples per test (derandomized), two tests per API — about 2 000 bodies in all.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vendor_rules.corpus import CASES, VALID
from vendor_rules.validator import RULESETS, Violation, validate

BUDGET = settings(max_examples=250, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
APIS = sorted(RULESETS)

#: Keys the rules look up, so random objects reach the deep code paths often.
KEYS = sorted(
    {
        "model",
        "max_tokens",
        "messages",
        "role",
        "content",
        "type",
        "text",
        "id",
        "name",
        "input",
        "tool_use_id",
        "is_error",
        "source",
        "media_type",
        "data",
        "url",
        "tools",
        "input_schema",
        "tool_choice",
        "thinking",
        "budget_tokens",
        "signature",
        "system",
        "tool_calls",
        "function",
        "arguments",
        "tool_call_id",
        "parameters",
        "strict",
        "parallel_tool_calls",
        "image_url",
        "call_id",
        "output",
        "summary",
        "encrypted_content",
        "previous_response_id",
        "contents",
        "parts",
        "functionCall",
        "functionResponse",
        "args",
        "response",
        "thoughtSignature",
        "thought",
        "inlineData",
        "mimeType",
        "functionDeclarations",
        "parametersJsonSchema",
        "toolConfig",
        "functionCallingConfig",
        "mode",
        "allowedFunctionNames",
        "properties",
        "required",
        "additionalProperties",
        "$ref",
        "$defs",
        "anyOf",
        "oneOf",
        "allOf",
        "items",
        "enum",
        "not",
        "if",
    }
)
ROLE_LIKE = st.sampled_from(
    [
        "user",
        "assistant",
        "model",
        "tool",
        "system",
        "function",
        "tool_use",
        "tool_result",
        "function_call",
        "function_call_output",
        "reasoning",
        "message",
        "object",
        "OBJECT",
        "ANY",
    ]
)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3000), st.floats(allow_nan=True), st.text(max_size=8), ROLE_LIKE
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=5)), inner, max_size=5),
    ),
    max_leaves=30,
)


def _paths(x: Any, at: tuple = ()) -> list[tuple]:
    out = [at]
    if isinstance(x, dict):
        for k, v in x.items():
            out += _paths(v, at + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out += _paths(v, at + (i,))
    return out


def _replace(body: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    body = copy.deepcopy(body)
    node = body
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return body


def _check(api: str, body: Any) -> None:
    found = validate(api, body)
    assert isinstance(found, list)
    assert all(isinstance(v, Violation) and isinstance(v.pointer, str) and isinstance(v.message, str) for v in found)


@pytest.mark.parametrize("api", APIS)
@BUDGET
@given(body=JSON)
def test_random_json_never_crashes(api, body):
    _check(api, body)


SEEDS = [(a if a != "openai-responses" else "openai", b) for a, _, b in VALID] + [(c.api, c.body) for c in CASES]


@pytest.mark.parametrize("api", APIS)
@BUDGET
@given(data=st.data())
def test_corrupted_bodies_never_crash(api, data):
    """A valid or broken corpus body with one value anywhere in it replaced by random JSON."""
    seeds = [b for a, b in SEEDS if a == api]
    body = data.draw(st.sampled_from(seeds))
    path = data.draw(st.sampled_from(_paths(body)))
    _check(api, _replace(body, path, data.draw(JSON)))
