"""The independent request validator against its breakage corpus (issue 10, item 7).

- every broken body is flagged by exactly the rule(s) it breaks, with a well-formed pointer;
- every valid body passes;
- mutation test: turning any single rule off lets at least one corpus body through unflagged,
  so every rule is exercised and none is redundant for the corpus;
- the validator is independent of what it checks: it imports nothing from toolwire.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from vendor_rules.corpus import CASES, VALID
from vendor_rules.validator import RULESETS, validate

ALL_RULES = sorted((api, rid) for api, rs in RULESETS.items() for rid in rs.rules)


@pytest.mark.parametrize("api,name,body", VALID, ids=[f"{a}:{n}" for a, n, _ in VALID])
def test_valid_body_passes(api, name, body):
    assert validate(api, body) == []


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_broken_body_is_flagged_by_its_rule(case):
    found = validate(case.api, case.body)
    assert {v.rule for v in found} == case.expected, [str(v) for v in found]
    for v in found:
        assert v.pointer == "" or v.pointer.startswith("/"), v
        assert v.message


def test_every_rule_has_a_breakage_case():
    covered = {c.rule for c in CASES} | {r for c in CASES for r in c.also}
    missing = [rid for _, rid in ALL_RULES if rid not in covered]
    assert missing == []


def test_rules_state_summary_and_source():
    for api, rs in RULESETS.items():
        for rid, r in rs.rules.items():
            assert rid.startswith(api + "."), rid
            assert r.summary.strip() and r.source.strip(), rid


@pytest.mark.parametrize("api,rule", ALL_RULES, ids=[r for _, r in ALL_RULES])
def test_mutation_rule_turned_off_lets_a_breakage_through(api, rule):
    """With ``rule`` disabled, some broken body of the corpus is no longer caught at all."""
    escaped = [
        c.id for c in CASES if c.api == api and validate(api, c.body) and not validate(api, c.body, disabled={rule})
    ]
    assert escaped, f"no corpus case depends on {rule}: the rule is unexercised or redundant"


def test_unknown_rule_cannot_be_disabled():
    with pytest.raises(KeyError):
        validate("anthropic", {}, disabled={"anthropic.no-such-rule"})


def test_old_responses_label_is_accepted():
    body = {"model": "gpt-5", "input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]}
    assert [v.rule for v in validate("openai-responses", body)] == ["openai.function_call.trailing"]


def test_validator_imports_nothing_from_toolwire():
    root = Path(__file__).parent / "validator"
    bad = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            bad += [f"{path.name}: {n}" for n in names if n == "toolwire" or n.startswith(("toolwire.", "toolwire_"))]
    assert bad == []
