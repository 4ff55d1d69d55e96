"""Live token counts through the vendors' real SDKs, with only the network replaced."""

import json

import pytest

from toolwire import Tool
from toolwire.design.tokens import count_tool_tokens_live

httpx2 = pytest.importorskip("httpx2")

A = Tool.from_schema("get_weather", "Weather for a city. Use it when asked about weather.",
                     {"type": "object", "properties": {"city": {"type": "string", "description": "City name."}}, "required": ["city"]})
B = Tool.from_schema("get_time", "UTC time. Use it before scheduling.", {"type": "object", "properties": {}})


def _fake_count(body: dict) -> int:
    # a stand-in server: 10 tokens for the message, 100 + name length per tool
    return 10 + sum(100 + len(t["name"]) for t in body.get("tools") or [])


def test_anthropic_count_tokens_endpoint():
    anthropic = pytest.importorskip("anthropic")
    seen = []

    def handler(request):
        body = json.loads(request.content)
        seen.append((request.url.path, body))
        return httpx2.Response(200, json={"input_tokens": _fake_count(body)})

    client = anthropic.Anthropic(api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    cost = count_tool_tokens_live([A, B], "anthropic", "claude-sonnet-4-5", client=client)
    assert {p for p, _ in seen} == {"/v1/messages/count_tokens"}
    assert seen[0][1] == {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Hi"}]}
    assert seen[1][1]["tools"][0]["name"] == "get_weather" and seen[1][1]["tools"][0]["input_schema"] == A.input_schema
    assert {c.tool: c.tokens for c in cost.tools} == {"get_weather": 111, "get_time": 108}
    assert cost.tokens == 219 and cost.overhead == 0 and cost.exact


def test_openai_responses_input_tokens_endpoint():
    openai = pytest.importorskip("openai")
    seen = []

    def handler(request):
        body = json.loads(request.content)
        seen.append((request.url.path, body))
        return httpx2.Response(200, json={"object": "response.input_tokens", "input_tokens": _fake_count(body)})

    client = openai.OpenAI(api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    cost = count_tool_tokens_live([A, B], "openai", "gpt-5", client=client)
    assert {p for p, _ in seen} == {"/v1/responses/input_tokens"}
    assert seen[1][1]["tools"] == [{"type": "function", "name": "get_weather", "description": A.description,
                                    "parameters": A.input_schema, "strict": False}]
    assert cost.tokens == 219 and {c.tool: c.tokens for c in cost.tools} == {"get_weather": 111, "get_time": 108}


def test_gemini_has_no_live_tool_count():
    with pytest.raises(NotImplementedError, match="countTokens does not accept tools"):
        count_tool_tokens_live([A], "gemini", "gemini-2.5-flash")
