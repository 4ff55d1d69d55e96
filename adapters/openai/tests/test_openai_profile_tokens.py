"""The OpenAI profiles' token estimate (exact harmony rendering, moved from the core) and live
count (``POST /responses/input_tokens`` through the real SDK over MockTransport)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from toolwire_openai import OpenAIChatCodec, OpenAIResponsesCodec
from toolwire_openai.profile import OpenAIChatProfile, OpenAIResponsesProfile
from toolwire_openai.tokens import chat_body_as_responses, render_openai_tools

from toolwire import Tool
from toolwire.errors import ProviderError

WEATHER = Tool.from_schema(
    "get_weather",
    "Current weather for a city. Use it when the user asks about weather.",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        },
        "required": ["city"],
    },
)
NOW = Tool.from_schema("get_time", "Current UTC time. Use it before scheduling.", {"type": "object", "properties": {}})

RENDERED = (
    "# Tools\n\n## functions\n\nnamespace functions {\n\n"
    "// Current weather for a city. Use it when the user asks about weather.\n"
    "type get_weather = (_: {\n"
    "// City name, e.g. Paris\n"
    "city: string,\n"
    'unit?: "celsius" | "fahrenheit", // default: celsius\n'
    "}) => any;\n\n"
    "// Current UTC time. Use it before scheduling.\n"
    "type get_time = () => any;\n"
    "\n} // namespace functions"
)


@pytest.mark.parametrize(
    "codec,profile",
    [(OpenAIChatCodec(), OpenAIChatProfile()), (OpenAIResponsesCodec(), OpenAIResponsesProfile())],
    ids=["chat", "responses"],
)
def test_estimate_on_wire_declarations(codec: Any, profile: Any) -> None:
    decls = [codec.translate_tool(t)[0] for t in (WEATHER, NOW)]
    assert render_openai_tools(decls) == RENDERED
    assert profile.estimate_tokens(decls) == 86  # 85 tokens of the block + 1 once for the set
    assert profile.estimate_tokens([]) == 0
    assert profile.token_estimate_exact is True


def _counting(seen: list[Any], answer: Any, status: int = 200) -> httpx2.AsyncClient:
    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append((str(request.url), json.loads(request.content)))
        return httpx2.Response(status, json=answer)

    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))


def test_responses_live_count_through_the_sdk() -> None:
    seen: list[Any] = []
    body = {
        "model": "gpt-5",
        "input": [{"role": "user", "content": "hi"}],
        "tools": [OpenAIResponsesCodec().translate_tool(NOW)[0]],
        "stream": False,
        "store": False,
    }
    n = asyncio.run(
        OpenAIResponsesProfile().count_tokens(
            body,
            api_key="sk-test",
            max_retries=0,
            http_client=_counting(seen, {"object": "response.input_tokens", "input_tokens": 57}),
        )
    )
    assert n == 57
    url, sent = seen[0]
    assert url.endswith("/responses/input_tokens")
    assert sent == {
        "model": "gpt-5",
        "input": [{"role": "user", "content": "hi"}],
        "tools": body["tools"],
    }  # stream/store not sent


def test_chat_live_count_rewrites_the_body_as_a_responses_request() -> None:
    seen: list[Any] = []
    body = {
        "model": "gpt-4.1",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        ],
        "tools": [OpenAIChatCodec().translate_tool(WEATHER)[0]],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
    }
    n = asyncio.run(
        OpenAIChatProfile().count_tokens(
            body,
            api_key="sk-test",
            max_retries=0,
            http_client=_counting(seen, {"object": "response.input_tokens", "input_tokens": 99}),
        )
    )
    assert n == 99
    sent = seen[0][1]
    assert sent["input"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "weather?"},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
    ]
    assert sent["tools"][0]["name"] == "get_weather" and sent["tools"][0]["type"] == "function"
    assert sent["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert chat_body_as_responses(body) == {k: v for k, v in sent.items()}


def test_live_count_errors_are_provider_errors() -> None:
    seen: list[Any] = []
    client = _counting(
        seen, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}, status=401
    )
    with pytest.raises(ProviderError) as err:
        asyncio.run(
            OpenAIResponsesProfile().count_tokens(
                {"model": "gpt-5", "input": "hi"}, api_key="sk-bad", max_retries=0, http_client=client
            )
        )
    assert err.value.status == 401 and "Incorrect API key" in str(err.value)


def test_the_live_chat_count_carries_a_pdf_file_part() -> None:
    # a Chat file part (a PDF a tool returned, in the user message after the tool messages) is
    # counted as the same file: an input_file of the /responses/input_tokens request (it was left
    # out of the count)
    file = {"filename": "q3.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}
    body = {
        "model": "gpt-4.1",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Read:"}, {"type": "file", "file": file}]}],
    }
    assert chat_body_as_responses(body)["input"] == [
        {
            "role": "user",
            "content": [{"type": "input_text", "text": "Read:"}, {"type": "input_file", **file}],
        }
    ]
