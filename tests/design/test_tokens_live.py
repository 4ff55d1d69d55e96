"""Live token counts through the vendors' real SDKs (asked of each API's profile), with only the
network replaced."""

import json

import pytest

from toolwire import Tool
from toolwire.design.tokens import count_tool_tokens_live

httpx2 = pytest.importorskip("httpx2")

A = Tool.from_schema(
    "get_weather",
    "Weather for a city. Use it when asked about weather.",
    {"type": "object", "properties": {"city": {"type": "string", "description": "City name."}}, "required": ["city"]},
)
B = Tool.from_schema("get_time", "UTC time. Use it before scheduling.", {"type": "object", "properties": {}})


def _fake_count(tools: list) -> int:
    # a stand-in server: 10 tokens for the message, 100 + name length per tool
    return 10 + sum(100 + len(t.get("name") or t.get("function", {}).get("name", "")) for t in tools)


def _client(handler):
    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))


def test_anthropic_count_tokens_endpoint():
    pytest.importorskip("toolwire_anthropic")
    seen = []

    def handler(request):
        body = json.loads(request.content)
        seen.append((request.url.path, body))
        return httpx2.Response(200, json={"input_tokens": _fake_count(body.get("tools") or [])})

    cost = count_tool_tokens_live(
        [A, B], "anthropic", "claude-sonnet-4-5", api_key="test", http_client=_client(handler)
    )
    assert {p for p, _ in seen} == {"/v1/messages/count_tokens"}
    assert seen[0][1]["model"] == "claude-sonnet-4-5" and "tools" not in seen[0][1]
    assert seen[1][1]["tools"][0]["name"] == "get_weather" and seen[1][1]["tools"][0]["input_schema"] == A.input_schema
    assert {c.tool: c.tokens for c in cost.tools} == {"get_weather": 111, "get_time": 108}
    assert cost.tokens == 219 and cost.overhead == 0 and cost.exact


def test_openai_responses_input_tokens_endpoint():
    pytest.importorskip("toolwire_openai")
    seen = []

    def handler(request):
        body = json.loads(request.content)
        seen.append((request.url.path, body))
        return httpx2.Response(
            200, json={"object": "response.input_tokens", "input_tokens": _fake_count(body.get("tools") or [])}
        )

    cost = count_tool_tokens_live([A, B], "openai", "gpt-5", api_key="test", http_client=_client(handler))
    assert {p for p, _ in seen} == {"/v1/responses/input_tokens"}
    assert [t["name"] for t in seen[1][1]["tools"]] == ["get_weather"] and seen[1][1]["tools"][0]["type"] == "function"
    assert cost.tokens == 219 and {c.tool: c.tokens for c in cost.tools} == {"get_weather": 111, "get_time": 108}


def test_gemini_counts_through_its_profile():
    pytest.importorskip("toolwire_gemini")
    seen = []

    def handler(request):
        body = json.loads(request.content)
        seen.append((request.url.path, body))
        req = body.get("generateContentRequest") or body
        decls = [d for t in req.get("tools") or [] for d in t.get("functionDeclarations") or []]
        return httpx2.Response(200, json={"totalTokens": _fake_count(decls)})

    cost = count_tool_tokens_live([A, B], "gemini", "gemini-2.5-flash", api_key="test", http_client=_client(handler))
    assert all(p.endswith("/models/gemini-2.5-flash:countTokens") for p, _ in seen) and len(seen) == 4
    assert cost.tokens == 219 and {c.tool: c.tokens for c in cost.tools} == {"get_weather": 111, "get_time": 108}


def test_provider_without_adapter_has_no_live_count():
    with pytest.raises(NotImplementedError, match="no token-cost model"):
        count_tool_tokens_live([A], "nope", "m")
