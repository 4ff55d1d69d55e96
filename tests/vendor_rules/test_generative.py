"""Profiles tested as specifications (issue 10, item 8b).

For every API, hypothesis generates canonical requests, each is encoded with the real codec and
passed through the real preflight (``toolwire.profile.preflight`` with the adapter's profile from
``toolwire.registry.profile``), and the outcome is checked by the independent validator:

- the body passes the validator, or a typed toolwire error (``ToolwireError``: a refusal such as
  ``RequestRefused``, ``ToolNameError``, ``SchemaTranslationError``) was raised — never any other
  exception, never an invalid body;
- for reasonably written inputs (schemas pydantic emits from type hints, conversations toolwire
  itself produced on any API) there is no refusal at all.

Example budget (stated; ``derandomize=True``, no example database): ``EXAMPLES = 40`` per test and
target. Targets: the four APIs, plus Gemini in its OpenAPI schema mode for the two "reasonable"
tests — (5 + 5 + 4 + 4) x 40 = 720 generated requests per run. Measured on this 2-core machine
under load: the whole ``tests/vendor_rules`` directory (this suite, the validator's corpus,
mutation and fuzz tests, the recorded requests) takes about 3 minutes wall clock, about 60 s of
CPU.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import registry
from toolwire.adapter import ModelRequest
from toolwire.errors import ToolwireError
from toolwire.profile import preflight
from toolwire.tools import Tool
from toolwire.types import Message, TextPart
from vendor_rules import strategies as S
from vendor_rules.validator import validate

EXAMPLES = 40
BUDGET = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

TOOL_NAMES = ["get_weather", "search_files", "run_report"]


#: Targets: every API, Gemini in both schema modes (``parametersJsonSchema`` and the OpenAPI subset).
TARGETS = {api: (api, {}) for api in S.APIS} | {"gemini-openapi": ("gemini", {"schema_mode": "openapi"})}


def send(target: str, request: ModelRequest) -> dict[str, Any]:
    """Encode with the real codec and run the real preflight: the body that would be sent.
    Raises whatever they raise (a typed ``ToolwireError`` for a refusal)."""
    api, settings_ = TARGETS[target]
    body = registry.codec(api, **settings_).encode_request(request)
    body, _report = preflight(registry.profile(api, model=request.model, **settings_), body)
    return body


def explain(api: str, request: ModelRequest, body: Any, found: list) -> str:
    convo = json.dumps([m.to_dict() for m in request.messages], default=repr)[:3000]
    tools = json.dumps([t.spec() for t in request.tools], default=repr)[:2000]
    return (
        f"{api}: {[str(v) for v in found]}\n-- canonical messages: {convo}\n-- tools: {tools}\n"
        f"-- body: {json.dumps(body, default=repr)[:3000]}"
    )


def check_sent(target: str, request: ModelRequest, *, may_refuse: bool) -> None:
    api = TARGETS[target][0]
    try:
        body = send(target, request)
    except ToolwireError as exc:
        if may_refuse:
            return
        pytest.fail(
            f"{api}: refused a reasonably written request: {type(exc).__name__}: {exc}\n"
            + explain(api, request, None, [])
        )
    found = validate(api, body)
    assert found == [], explain(api, request, body, found)


def _tools(draw: Any) -> list[Tool]:
    n = draw(st.integers(1, 3))
    return [draw(S.pydantic_tool(TOOL_NAMES[i])) for i in range(n)]


@pytest.mark.parametrize("api", sorted(TARGETS))
@BUDGET
@given(data=st.data())
def test_pydantic_schemas_are_sent_valid_and_never_refused(api, data):
    tools = _tools(data.draw)
    request = ModelRequest(
        model=S.MODEL_IDS[TARGETS[api][0]],
        tools=tools,
        messages=[Message("user", [TextPart("Go.")])],
        tool_choice=data.draw(st.sampled_from([None, "auto"])),
    )
    check_sent(api, request, may_refuse=False)


@pytest.mark.parametrize("api", sorted(TARGETS))
@BUDGET
@given(data=st.data())
def test_conversations_toolwire_produced_are_sent_valid_and_never_refused(api, data):
    tools = _tools(data.draw)
    messages = data.draw(S.produced_conversation([t.name for t in tools]))
    request = ModelRequest(
        model=S.MODEL_IDS[TARGETS[api][0]],
        tools=tools,
        messages=messages,
        instructions=data.draw(st.sampled_from([None, "Be brief."])),
    )
    check_sent(api, request, may_refuse=False)


@pytest.mark.parametrize("api", S.APIS)
@BUDGET
@given(data=st.data())
def test_handwritten_schemas_are_sent_valid_or_refused_with_a_typed_error(api, data):
    try:
        tools = [
            Tool.from_schema(
                name,
                "A tool.",
                data.draw(S.handwritten_schema()),
                strict=data.draw(st.sampled_from([None, True, False])),
            )
            for name in TOOL_NAMES[: data.draw(st.integers(1, 3))]
        ]
    except ToolwireError:
        return  # refused when the tool is built (not a valid draft 2020-12 object schema): typed
    request = ModelRequest(
        model=S.MODEL_IDS[TARGETS[api][0]], tools=tools, messages=[Message("user", [TextPart("Go.")])]
    )
    check_sent(api, request, may_refuse=True)


@pytest.mark.parametrize("api", S.APIS)
@BUDGET
@given(data=st.data())
def test_hand_built_histories_and_settings_are_sent_valid_or_refused_with_a_typed_error(api, data):
    tools = _tools(data.draw)
    messages = data.draw(S.hand_built_conversation([t.name for t in tools]))
    declare = data.draw(st.integers(0, 5)) > 0
    if api == "anthropic" and not declare and any(m.tool_calls or m.tool_results for m in messages):
        # known bug, tracked by test_found_bugs.py::test_bug10_history_with_tool_calls_but_no_tools_declared...
        declare = True
    thinking = data.draw(
        st.sampled_from(
            [
                None,
                {"type": "enabled", "budget_tokens": 2048},
                {"effort": "low"},
                {"budget": 1024, "include_thoughts": True},
            ]
        )
    )
    request = ModelRequest(
        model=S.MODEL_IDS[api],
        tools=tools if declare else [],
        messages=messages,
        tool_choice=data.draw(
            st.sampled_from([None, "auto", "required", "none", {"type": "tool", "name": tools[0].name}])
        ),
        parallel_tool_calls=data.draw(st.sampled_from([None, True, False])),
        max_tokens=data.draw(st.sampled_from([None, 1024, 4096])),
        thinking=thinking,
    )
    check_sent(api, request, may_refuse=True)
