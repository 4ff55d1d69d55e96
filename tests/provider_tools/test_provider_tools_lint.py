"""``toolwire lint`` reviews provider tools: the settings against the vendor SDK's declaration type, the
vendor they belong to, and their tokens only where they can be sent (the cached-prefix saving with them)."""

from __future__ import annotations

import pytest

import toolwire
from toolwire import ProviderTool
from toolwire.cli import main
from toolwire.design.lint import lint_tools
from toolwire.tools import Tool

LOOKUP = Tool(
    "lookup",
    "Look a term up in the glossary. Use it when the user asks what a term means.",
    {
        "type": "object",
        "properties": {"term": {"type": "string", "description": "the term, e.g. 'idempotent'"}},
        "required": ["term"],
    },
)


def findings(report, rule):
    return [(f.tool, f.severity, f.provider, f.message.split(" — ")[0]) for f in report.findings if f.rule == rule]


def test_settings_are_checked_against_the_vendor_sdk_types() -> None:
    tools = [
        LOOKUP,
        # anthropic.types.WebSearchTool20250305Param has allowed_domains, and max_uses is an int
        ProviderTool("anthropic", "web_search_20250305", {"allowed_domain": ["example.org"], "max_uses": "3"}),
        # openai.types.responses.FileSearchToolParam requires vector_store_ids
        ProviderTool("openai", "file_search"),
        # google.genai.types.GoogleSearch has no field "bogus"
        ProviderTool("gemini", "googleSearch", {"bogus": True}),
        ProviderTool("gemini", "codeExecution"),  # fine
    ]
    report = lint_tools(tools)
    assert findings(report, "provider-tool-settings") == [
        (
            "web_search",
            "error",
            "anthropic",
            "anthropic web_search_20250305: unknown field 'allowed_domain'; did you mean 'allowed_domains'?",
        ),
        (
            "web_search",
            "error",
            "anthropic",
            "anthropic web_search_20250305: max_uses: Input should be a valid integer",
        ),
        ("file_search", "error", "openai", "openai file_search: vector_store_ids: Field required"),
        ("googleSearch", "error", "gemini", findings(report, "provider-tool-settings")[3][3]),
    ]
    assert findings(report, "provider-tool-settings")[3][3].startswith(
        "gemini googleSearch: unknown field 'bogus'; its fields: "
    )
    assert report.exit_code == 1


def test_well_formed_settings_give_no_finding() -> None:
    report = lint_tools(
        [
            ProviderTool("anthropic", "web_search_20250305", {"allowed_domains": ["example.org"], "max_uses": 3}),
            ProviderTool("anthropic", "code_execution_20250825"),
        ],
        ["anthropic"],
    )
    assert report.findings == [] or {f.rule for f in report.findings} <= {"token-cost"}
    assert report.exit_code == 0


def test_the_vendor_is_named_and_the_texts_the_vendor_wrote_are_not_reviewed() -> None:
    tools = [
        LOOKUP,
        ProviderTool("anthropic", "web_search_20250305"),
        ProviderTool("openai", "code_interpreter", {"container": {"type": "auto"}}),
    ]
    report = lint_tools(tools)
    # the vendor wrote name, description and schema: no description or translation findings for them
    about_provider_tools = {f.rule for f in report.findings if f.tool in ("web_search", "code_interpreter")}
    assert about_provider_tools == {"provider-tool-vendor", "provider-tool-settings", "token-cost"} - {
        "provider-tool-settings"
    }
    assert findings(report, "provider-tool-vendor") == [
        (
            "web_search",
            "warning",
            None,
            "'web_search' is anthropic's own tool (web_search_20250305): requests to openai, openai-chat, gemini "
            "with it are refused",
        ),
        (
            "code_interpreter",
            "warning",
            None,
            "'code_interpreter' is openai's own tool (code_interpreter): requests to anthropic, openai-chat, "
            "gemini with it are refused",
        ),
    ]
    # reviewed only for a provider that lacks it: an error
    only_chat = lint_tools([ProviderTool("openai", "web_search")], ["openai-chat"])
    assert findings(only_chat, "provider-tool-vendor") == [
        (
            "web_search",
            "error",
            None,
            "'web_search' is openai's own tool (web_search) and none of the providers reviewed has it: "
            "openai-chat refuse it",
        )
    ]


def test_token_costs_count_a_provider_tool_only_where_it_can_be_sent() -> None:
    search = ProviderTool("anthropic", "web_search_20250305", {"max_uses": 3})
    report = lint_tools([LOOKUP, search])
    costs = report.summary["token_cost"]
    assert list(costs["anthropic"]["tools"]) == ["lookup", "web_search (anthropic/web_search_20250305)"]
    for p in ("openai", "openai-chat", "gemini"):
        assert list(costs[p]["tools"]) == ["lookup"], p
    # the anthropic set cost, by the profile's estimate over the codec's own wire declarations
    codec = toolwire.registry.codec("anthropic")
    prof = toolwire.registry.profile("anthropic")
    decls = [codec.translate_tool(t)[0] for t in (LOOKUP, search)]
    assert decls[1] == {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    assert costs["anthropic"]["tokens"] == prof.estimate_tokens(decls)
    # and the cached prefix reads exactly those tokens on every later request
    assert report.summary["prompt_cache"]["anthropic"]["tokens"] == prof.estimate_tokens(decls)
    assert report.summary["prompt_cache"]["openai"]["tokens"] == costs["openai"]["tokens"]


def test_cli_lints_provider_tools_in_a_module(capsys, tmp_path) -> None:
    mod = tmp_path / "mytools.py"
    mod.write_text(
        "from toolwire import ProviderTool\n"
        "search = ProviderTool('anthropic', 'web_search_20250305', {'max_use': 3})\n"
        "fetch = ProviderTool('anthropic', 'web_fetch_20250910')\n"
    )
    with pytest.raises(SystemExit) as info:
        main(["lint", str(mod), "--provider", "anthropic"])
    out = " ".join(capsys.readouterr().out.split())
    assert info.value.code == 1
    assert "provider-tool-settings" in out and "did you mean 'max_uses'?" in out
    assert (
        "Prompt caching (setting cache=True): the tool definitions alone are under the minimum cached prefix (anthropic "
        in out
    )


def test_two_vendors_tools_with_one_name_are_told_apart_in_the_token_table(capsys, tmp_path) -> None:
    """Anthropic's and OpenAI's web search are both named "web_search": each row is labelled
    (vendor/type) and carries only its own vendor's tokens."""
    mod = tmp_path / "searches.py"
    mod.write_text(
        "from toolwire import ProviderTool\n"
        "claude_search = ProviderTool('anthropic', 'web_search_20250305', {'max_uses': 3})\n"
        "openai_search = ProviderTool('openai', 'web_search')\n"
    )
    report = lint_tools(
        [ProviderTool("anthropic", "web_search_20250305", {"max_uses": 3}), ProviderTool("openai", "web_search")],
        ["anthropic", "openai"],
    )
    costs = report.summary["token_cost"]
    assert list(costs["anthropic"]["tools"]) == ["web_search (anthropic/web_search_20250305)"]
    assert list(costs["openai"]["tools"]) == ["web_search (openai/web_search)"]
    token_findings = sorted((f.provider, f.tool) for f in report.findings if f.rule == "token-cost")
    assert token_findings == [("anthropic", "web_search"), ("openai", "web_search")]  # one each, not two each
    with pytest.raises(SystemExit):
        main(["lint", str(mod), "--provider", "anthropic", "--provider", "openai"])
    out = capsys.readouterr().out
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
        for line in out.splitlines()
        if line.startswith("│") and "(" in line.split("│")[1]
    }
    a = str(costs["anthropic"]["tools"]["web_search (anthropic/web_search_20250305)"])
    o = str(costs["openai"]["tools"]["web_search (openai/web_search)"])
    assert rows == {
        "web_search (anthropic/web_search_20250305)": [a, ""],
        "web_search (openai/web_search)": ["", o],
    }
