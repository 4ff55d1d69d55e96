"""Provider-tool settings that do not fit the vendor SDK's declaration type are refused before the
request is sent, on every vendor, with the same check ``toolwire lint`` runs (one implementation):
the message names the tool, the field, what the SDK type expects and the closest field name."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire import ProviderTool
from toolwire.design.lint import lint_tools

pytest.importorskip("anthropic")

CASES: dict[str, tuple[str, ProviderTool, str]] = {
    "anthropic-wrong-type": (
        "anthropic:claude-sonnet-4-5",
        ProviderTool("anthropic", "web_search_20250305", {"max_uses": "3"}),
        "provider tool 'web_search' (anthropic 'web_search_20250305'): its settings do not fit the vendor SDK's "
        "declaration type (anthropic.types.WebSearchTool20250305Param), so the request was not sent: max_uses: "
        "Input should be a valid integer. Correct the settings to that type's field names and value types.",
    ),
    "anthropic-misspelt": (
        "anthropic:claude-sonnet-4-5",
        ProviderTool("anthropic", "web_search_20250305", {"allowed_domain": ["example.org"]}),
        "provider tool 'web_search' (anthropic 'web_search_20250305'): its settings do not fit the vendor SDK's "
        "declaration type (anthropic.types.WebSearchTool20250305Param), so the request was not sent: unknown "
        "field 'allowed_domain'; did you mean 'allowed_domains'?. Correct the settings to that type's field "
        "names and value types.",
    ),
    "openai-wrong-type": (
        "openai:gpt-5-mini",
        ProviderTool("openai", "file_search", {"vector_store_ids": "vs_1"}),
        "provider tool 'file_search' (openai 'file_search'): its settings do not fit the vendor SDK's declaration "
        "type (openai.types.responses.FileSearchToolParam), so the request was not sent: vector_store_ids: Input "
        "should be a valid array. Correct the settings to that type's field names and value types.",
    ),
    "openai-enum": (
        "openai:gpt-5-mini",
        ProviderTool("openai", "web_search", {"search_context_size": "huge"}),
        "provider tool 'web_search' (openai 'web_search'): its settings do not fit the vendor SDK's declaration "
        "type (openai.types.responses.WebSearchToolParam), so the request was not sent: search_context_size: "
        "Input should be 'low', 'medium' or 'high'. Correct the settings to that type's field names and value "
        "types.",
    ),
    # the union members the SDK defines only inside openai.types.responses.tool_param (Mcp,
    # CodeInterpreter, ImageGeneration, LocalShell, ProgrammaticToolCalling) were never checked
    "openai-nested-type": (
        "openai:gpt-5-mini",
        ProviderTool("openai", "mcp", {"server_label": 5, "server_url": "https://mcp.example.org"}),
        "provider tool 'mcp' (openai 'mcp'): its settings do not fit the vendor SDK's declaration type "
        "(openai.types.responses.tool_param.Mcp), so the request was not sent: server_label: Input should be a "
        "valid string. Correct the settings to that type's field names and value types.",
    ),
    "openai-nested-misspelt": (
        "openai:gpt-5-mini",
        ProviderTool("openai", "image_generation", {"sizes": "1024x1024"}),
        "provider tool 'image_generation' (openai 'image_generation'): its settings do not fit the vendor SDK's "
        "declaration type (openai.types.responses.tool_param.ImageGeneration), so the request was not sent: "
        "unknown field 'sizes'; did you mean 'size'?. Correct the settings to that type's field names and value "
        "types.",
    ),
    "gemini-wrong-type": (
        "gemini:gemini-2.5-flash",
        ProviderTool("gemini", "googleSearch", {"timeRangeFilter": 5}),
        "provider tool 'googleSearch' (gemini 'googleSearch'): its settings do not fit the vendor SDK's "
        "declaration type (google.genai.types.Tool.google_search), so the request was not sent: timeRangeFilter: "
        "Input should be an object. Correct the settings to that type's field names and value types.",
    ),
    # google-genai's enumerations read a value with .upper(): an object, a list or a number raised
    # AttributeError out of settings_problems() and lint, and the send said "could not be encoded"
    "gemini-enum-not-text": (
        "gemini:gemini-2.5-flash",
        ProviderTool("gemini", "googleSearchRetrieval", {"dynamicRetrievalConfig": {"mode": {"name": "dynamic"}}}),
        "provider tool 'googleSearchRetrieval' (gemini 'googleSearchRetrieval'): its settings do not fit the "
        "vendor SDK's declaration type (google.genai.types.Tool.google_search_retrieval), so the request was not "
        "sent: dynamicRetrievalConfig/mode: Input should be one of 'MODE_UNSPECIFIED', 'MODE_DYNAMIC'. Correct "
        "the settings to that type's field names and value types.",
    ),
    "gemini-enum-list": (
        "gemini:gemini-2.5-flash",
        ProviderTool("gemini", "computerUse", {"environment": ["ENVIRONMENT_BROWSER"]}),
        "provider tool 'computerUse' (gemini 'computerUse'): its settings do not fit the vendor SDK's declaration "
        "type (google.genai.types.Tool.computer_use), so the request was not sent: environment: Input should be "
        "one of 'ENVIRONMENT_UNSPECIFIED', 'ENVIRONMENT_BROWSER', 'ENVIRONMENT_MOBILE', 'ENVIRONMENT_DESKTOP'. "
        "Correct the settings to that type's field names and value types.",
    ),
    "gemini-no-fields": (
        "gemini:gemini-2.5-flash",
        ProviderTool("gemini", "codeExecution", {"timeout": 5}),
        "provider tool 'codeExecution' (gemini 'codeExecution'): its settings do not fit the vendor SDK's "
        "declaration type (google.genai.types.Tool.code_execution), so the request was not sent: unknown field "
        "'timeout'; its fields: none. Correct the settings to that type's field names and value types.",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_settings_are_refused_before_sending(case: str, mock: Any) -> None:
    spec, tool, message = CASES[case]
    model, sent = mock(spec, [])
    with pytest.raises(toolwire.ConfigurationError) as caught:
        toolwire.run_sync(model, "Look it up.", tools=[tool])
    assert str(caught.value) == message
    assert sent == []  # nothing reached the vendor
    # the same sentences as toolwire lint's provider-tool-settings findings
    report = lint_tools([tool], [spec.partition(":")[0]])
    found = [f.message.split(" — ")[0] for f in report.findings if f.rule == "provider-tool-settings"]
    assert [f.partition(": ")[2] for f in found] == tool.settings_problems()
    assert tool.settings_problems() and all(p in message for p in tool.settings_problems())


def test_settings_changed_after_construction_are_checked_again(mock: Any) -> None:
    answer = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Done."}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 2},
    }
    tool = ProviderTool("anthropic", "web_search_20250305", {"max_uses": 3})
    model, sent = mock("anthropic:claude-sonnet-4-5", [answer])
    assert toolwire.run_sync(model, "Search.", tools=[tool]).text == "Done."
    assert sent[0]["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]
    tool.settings["max_uses"] = 2.5
    with pytest.raises(toolwire.ConfigurationError, match=r"max_uses: Input should be a valid integer"):
        toolwire.run_sync(model, "Search.", tools=[tool])
    assert len(sent) == 1


def test_lint_and_the_refusal_share_one_check(monkeypatch: pytest.MonkeyPatch, mock: Any) -> None:
    """Changing the profile's check changes both what lint reports and what is refused."""
    from toolwire import tools as tools_module
    from toolwire.registry import cached_profile

    prof = cached_profile("anthropic")
    monkeypatch.setattr(type(prof), "provider_tool_problems", lambda self, t, s: ["sentinel: planted problem"])
    tools_module._provider_tool_problems.cache_clear()
    try:
        tool = ProviderTool("anthropic", "web_search_20250305", {"max_uses": 3})
        report = lint_tools([tool], ["anthropic"])
        assert [f.message.split(" — ")[0] for f in report.findings if f.rule == "provider-tool-settings"] == [
            "anthropic web_search_20250305: sentinel: planted problem"
        ]
        model, sent = mock("anthropic:claude-sonnet-4-5", [])
        with pytest.raises(toolwire.ConfigurationError, match="sentinel: planted problem"):
            toolwire.run_sync(model, "Search.", tools=[tool])
        assert sent == []
    finally:
        tools_module._provider_tool_problems.cache_clear()


def test_settings_that_fit_are_sent_unchanged_on_every_vendor(mock: Any) -> None:
    tool = ProviderTool("gemini", "googleSearch")
    answer = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Found."}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6},
    }
    model, sent = mock("gemini:gemini-2.5-flash", [answer])
    assert toolwire.run_sync(model, "Search.", tools=[tool]).text == "Found."
    assert sent[0]["tools"] == [{"googleSearch": {}}]
    assert tool.settings_problems() == []


IMPORTED: dict[str, tuple[str, dict[str, Any], str]] = {
    "anthropic": (
        "anthropic:claude-sonnet-4-5",
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "messages": [{"role": "user", "content": "Look it up."}],
            "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": "three"}],
        },
        "the anthropic provider tool 'web_search_20250305' at /tools/0 of the imported request does not fit the "
        "vendor SDK's declaration type, which the API refuses, so the request was not sent: max_uses: Input should "
        "be a valid integer. Correct the declaration in the request you imported.",
    ),
    "gemini-enum": (
        "gemini:gemini-2.5-flash",
        {
            "contents": [{"role": "user", "parts": [{"text": "Look it up."}]}],
            "tools": [{"googleSearchRetrieval": {"dynamicRetrievalConfig": {"mode": ["MODE_DYNAMIC"]}}}],
        },
        "provider tool 'googleSearchRetrieval' (gemini 'googleSearchRetrieval'): its settings do not fit the "
        "vendor SDK's declaration type (google.genai.types.Tool.google_search_retrieval), so the request was not "
        "sent: dynamicRetrievalConfig/mode: Input should be one of 'MODE_UNSPECIFIED', 'MODE_DYNAMIC'. Correct "
        "the settings to that type's field names and value types.",
    ),
    "openai-nested": (
        "openai:gpt-5-mini",
        {
            "model": "gpt-5-mini",
            "input": "Draw it.",
            "tools": [{"type": "web_search"}, {"type": "image_generation", "size": 1024}],
        },
        "the openai provider tool 'image_generation' at /tools/1 of the imported request does not fit the vendor "
        "SDK's declaration type, which the API refuses, so the request was not sent: size/str: Input should be a "
        "valid string; size/literal['1024x1024','1024x1536','1536x1024','auto']: Input should be '1024x1024', "
        "'1024x1536', '1536x1024' or 'auto'. Correct the declaration in the request you imported.",
    ),
    "openai": (
        "openai:gpt-5-mini",
        {"model": "gpt-5-mini", "input": "Look it up.", "tools": [{"type": "file_search", "vector_store_ids": "vs_1"}]},
        "the openai provider tool 'file_search' at /tools/0 of the imported request does not fit the vendor SDK's "
        "declaration type, which the API refuses, so the request was not sent: vector_store_ids: Input should be a "
        "valid array. Correct the declaration in the request you imported.",
    ),
}


@pytest.mark.parametrize("vendor", sorted(IMPORTED))
def test_an_imported_provider_tool_with_a_wrong_typed_field_is_refused_before_sending(vendor: str, mock: Any) -> None:
    # kept verbatim on import, the declaration was sent as it came, for the API to refuse
    spec, body, message = IMPORTED[vendor]
    model, sent = mock(spec, [])
    request = model.codec.decode_request(body)
    with pytest.raises(toolwire.ConfigurationError) as caught:
        asyncio.run(model.send(request))
    assert str(caught.value) == message
    assert sent == []


def test_an_imported_provider_tool_with_a_field_the_sdk_does_not_list_is_still_sent(mock: Any) -> None:
    # a newer API field the installed SDK may not know is not the importer's mistake
    from .test_provider_tools import anthropic_answer

    spec, body, _ = IMPORTED["anthropic"]
    body = {**body, "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3, "newer": True}]}
    model, sent = mock(spec, [anthropic_answer([{"type": "text", "text": "ok"}])])
    asyncio.run(model.send(model.codec.decode_request(body)))
    assert sent[0]["tools"] == body["tools"]


def test_a_gemini_enumeration_given_as_its_number_is_sent_unchanged(mock: Any) -> None:
    """proto3 JSON, which the Gemini API reads, takes an enumeration's integer value as well as its
    name ("Parsers accept both enum names and integer values", protobuf.dev/programming-guides/json):
    a number is not refused, and the other fields are still checked (google-genai's own validator
    stops at the number with AttributeError)."""
    answer = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Found."}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6},
    }
    tool = ProviderTool("gemini", "googleSearchRetrieval", {"dynamicRetrievalConfig": {"mode": 1}})
    assert tool.settings_problems() == []
    model, sent = mock("gemini:gemini-2.5-flash", [answer])
    assert toolwire.run_sync(model, "Search.", tools=[tool]).text == "Found."
    assert sent[0]["tools"] == [{"googleSearchRetrieval": {"dynamicRetrievalConfig": {"mode": 1}}}]
    tool.settings["dynamicRetrievalConfig"]["dynamicThreshold"] = "high"
    assert tool.settings_problems() == [
        "dynamicRetrievalConfig/dynamicThreshold: Input should be a valid number, unable to parse string as a number"
    ]
