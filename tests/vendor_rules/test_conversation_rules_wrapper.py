"""``toolwire.testing.conversation_rules``: the public helper asks each adapter's profile through
the registry (the core keeps no vendor table). Checked against the recordings (vendor-accepted
requests) and cross-checked against the independent validator's breakage corpus."""

from __future__ import annotations

import pytest

from toolwire import registry
from toolwire.errors import ProviderNotFound
from toolwire.testing.cassettes import load_cassette, recordings_dir
from toolwire.testing.conversation_rules import RULES, validate_request
from vendor_rules.corpus import CASES, VALID

ROOT = recordings_dir()

#: Corpus breakages of the conversation rules that both the profiles and the independent
#: validator must catch (a tool call answered twice, not at all, in the wrong place, an orphan
#: result, a request ending on an unanswered call, misplaced or unsigned reasoning).
MUST_AGREE = [
    c
    for c in CASES
    if any(
        k in c.rule
        for k in (
            ".tool_use.answered",
            ".tool_result.orphan",
            ".tool_result.once",
            ".tool_result.first",
            ".tool-call.answered",
            ".tool-call.trailing",
            ".tool-message.",
            ".function_call.answered",
            ".function_call.trailing",
            ".function_call_output.orphan",
            ".function_call_output.once",
            ".function-response.",
            ".function-call.trailing",
            ".function-call.position",
            ".thinking.shape",
            ".thinking.first",
            ".reasoning.following-item",
        )
    )
]


def _recorded():
    if ROOT is None:
        return []
    return [
        pytest.param(it.api, it.request_json, id=f"{p.parent.name}/{p.name}#{it.index}")
        for p in sorted(ROOT.glob("*/*.yaml"))
        for it in load_cassette(p)
        if it.api
    ]


@pytest.mark.skipif(ROOT is None, reason="../shared/recordings is absent")
@pytest.mark.parametrize(
    "api,body", _recorded() or [pytest.param(None, None, marks=pytest.mark.skip(reason="no recordings"))]
)
def test_every_recorded_request_passes_its_profile(api, body):
    assert validate_request(api, body) == []


@pytest.mark.parametrize("api,name,body", VALID, ids=[f"{a}:{n}" for a, n, _ in VALID])
def test_valid_corpus_bodies_pass_their_profile(api, name, body):
    assert validate_request(api, body) == []


@pytest.mark.parametrize("case", MUST_AGREE, ids=[c.id for c in MUST_AGREE])
def test_profile_catches_the_conversation_breakages_the_validator_catches(case):
    problems = validate_request(case.api, case.body)
    assert problems, f"{case.api} profile accepts a body the independent validator flags for {case.rule}"


def test_validate_request_is_the_profile_check_as_text():
    case = next(c for c in CASES if c.rule == "anthropic.tool_result.first")
    expected = [str(v) for v in registry.profile("anthropic").check_request(case.body)]
    assert expected and validate_request("anthropic", case.body) == expected


def test_old_responses_label_and_unknown_provider():
    body = {"model": "gpt-5", "input": [{"role": "user", "content": "hi"}]}
    assert validate_request("openai-responses", body) == validate_request("openai", body) == []
    with pytest.raises(ProviderNotFound):
        validate_request("no-such-provider", {})


def test_rules_lists_the_installed_profiles_rules():
    assert {"anthropic", "openai", "openai-chat", "gemini"} <= set(RULES)
    assert "test" not in RULES  # the offline provider states no vendor rule
    for api in ("anthropic", "openai", "openai-chat", "gemini"):
        ids = {line.split(":", 1)[0] for line in RULES[api]}
        assert ids == set(registry.profile(api).rules)
    with pytest.raises(KeyError):
        RULES["no-such-provider"]
