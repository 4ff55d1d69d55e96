"""Rules on Anthropic's own tool declarations (web search domain lists, deferred loading), through
the real SDK over ``httpx2.MockTransport``: a declaration the API refuses is repaired before it is
sent (the repair on the turn) or refused before anything reaches the network."""

from __future__ import annotations

import pytest

import toolwire
from toolwire import ProviderTool, Tool
from toolwire.profile import RequestRefused

WEATHER = Tool.from_schema(
    "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}}, lambda **kw: "sunny"
)


def ok(wire):
    return [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))]


def test_web_search_with_both_domain_lists_is_refused_before_sending(mock_model, wire) -> None:
    model = mock_model(ok(wire))
    search = ProviderTool(
        "anthropic", "web_search_20250305", {"allowed_domains": ["example.org"], "blocked_domains": ["spam.example"]}
    )
    with pytest.raises(RequestRefused) as exc:
        toolwire.run_sync(model, "news?", tools=[search])
    assert [(v.rule, v.pointer) for v in exc.value.violations] == [
        ("anthropic.tool.web-search-domains-exclusive", "/tools/0/blocked_domains")
    ]
    assert model.sent == []


def test_web_search_with_one_domain_list_is_sent_as_given(mock_model, wire) -> None:
    model = mock_model(ok(wire))
    search = ProviderTool("anthropic", "web_search_20250305", {"allowed_domains": ["example.org"], "max_uses": 2})
    result = toolwire.run_sync(model, "news?", tools=[search])
    assert model.sent[0].json["tools"] == [
        {"type": "web_search_20250305", "name": "web_search", "allowed_domains": ["example.org"], "max_uses": 2}
    ]
    assert result.turns[0].response.preflight is None


def test_an_empty_blocked_domains_list_is_left_out_and_reported(mock_model, wire) -> None:
    model = mock_model(ok(wire))
    search = ProviderTool(
        "anthropic", "web_search_20250305", {"allowed_domains": ["example.org"], "blocked_domains": []}
    )
    result = toolwire.run_sync(model, "news?", tools=[search])
    assert model.sent[0].json["tools"] == [
        {"type": "web_search_20250305", "name": "web_search", "allowed_domains": ["example.org"]}
    ]
    changes = [(c.rule, c.pointer, c.lossy) for c in result.turns[0].response.preflight]
    assert changes == [("anthropic.tool.web-search-domains-empty", "/tools/0/blocked_domains", False)]
    assert search.settings["blocked_domains"] == []  # the declaration itself is not changed


def test_an_empty_allowed_domains_list_is_refused(mock_model, wire) -> None:
    model = mock_model(ok(wire))
    search = ProviderTool("anthropic", "web_search_20250305", {"allowed_domains": []})
    with pytest.raises(RequestRefused) as exc:
        toolwire.run_sync(model, "news?", tools=[search])
    assert [(v.rule, v.pointer) for v in exc.value.violations] == [
        ("anthropic.tool.web-search-domains-empty", "/tools/0/allowed_domains")
    ]
    assert model.sent == []


def deferred(tool: Tool) -> Tool:
    tool.provider_data = {"anthropic": {"defer_loading": True}}
    return tool


def test_cache_true_never_marks_a_deferred_tool(mock_model, wire) -> None:
    model = mock_model(ok(wire), cache=True)
    search = ProviderTool("anthropic", "web_search_20250305", {"defer_loading": True})
    finder = ProviderTool("anthropic", "tool_search_tool_regex_20251119")
    result = toolwire.run_sync(model, "news?", tools=[WEATHER, finder, search])
    tools = model.sent[0].json["tools"]
    assert [t.get("cache_control") for t in tools] == [None, {"type": "ephemeral"}, None]
    assert result.turns[0].response.preflight is None


def test_a_deferred_tool_s_own_breakpoint_moves_to_the_tool_before_it(mock_model, wire) -> None:
    model = mock_model(ok(wire))
    late = Tool.from_schema("late", "Late.", {"type": "object", "properties": {}}, lambda **kw: "x")
    late.provider_data = {"anthropic": {"defer_loading": True, "cache_control": {"type": "ephemeral"}}}
    finder = ProviderTool("anthropic", "tool_search_tool_regex_20251119")
    result = toolwire.run_sync(model, "go", tools=[WEATHER, finder, late])
    tools = model.sent[0].json["tools"]
    assert [t.get("cache_control") for t in tools] == [None, {"type": "ephemeral"}, None]
    assert tools[2]["defer_loading"] is True
    changes = [(c.rule, c.pointer, c.lossy) for c in result.turns[0].response.preflight]
    assert changes == [("anthropic.tool.defer-loading-cache-control", "/tools/2/cache_control", False)]


def test_every_tool_deferred_is_refused_before_sending(mock_model, wire) -> None:
    model = mock_model(ok(wire))
    with pytest.raises(RequestRefused) as exc:
        toolwire.run_sync(model, "go", tools=[deferred(Tool.from_schema("late", "Late.", {"type": "object"}))])
    assert [(v.rule, v.pointer) for v in exc.value.violations] == [("anthropic.tool.defer-loading-all", "/tools")]
    assert model.sent == []


@pytest.mark.parametrize("custom_first", [True, False], ids=["custom-first", "anthropic-first"])
def test_a_tool_named_like_anthropics_web_search_is_refused_before_sending(mock_model, wire, custom_first) -> None:
    """ "tools: Tool names must be unique." counts the fixed name of an Anthropic tool too. (A run
    refuses two tools of one name earlier, with ToolDefinitionError; a model's own send is checked
    by the preflight.)"""
    import asyncio

    from toolwire.types import Message

    model = mock_model(ok(wire))
    mine = Tool.from_schema(
        "web_search", "Search my index.", {"type": "object", "properties": {"q": {"type": "string"}}}, lambda **kw: ""
    )
    search = ProviderTool("anthropic", "web_search_20250305", {"max_uses": 2})
    tools = [mine, search] if custom_first else [search, mine]
    with pytest.raises(RequestRefused) as exc:
        asyncio.run(model.send(model.build_request([Message.user("news?")], tools=tools)))
    (v,) = exc.value.violations
    assert (v.rule, v.pointer, v.tool) == ("anthropic.tool.unique-names", "/tools/1/name", "web_search")
    assert "'web_search_20250305' has this name and no other: give your tool another name" in v.message
    assert model.sent == []


def test_a_tool_with_another_name_goes_beside_web_search(mock_model, wire) -> None:
    model = mock_model(ok(wire))
    search = ProviderTool("anthropic", "web_search_20250305", {"max_uses": 2})
    toolwire.run_sync(model, "news?", tools=[WEATHER, search])
    assert [t["name"] for t in model.sent[0].json["tools"]] == ["get_weather", "web_search"]
