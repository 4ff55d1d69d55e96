"""Conversations with unusual but realistic content, run on one API over canned answers (the real
SDKs, ``httpx2.MockTransport``) and continued on the same or another API: every request sent is
checked by the API's profile (``validate_request``) and by the independent validator of
``tests/vendor_rules/validator``, and must not be refused by toolwire itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire.testing.conversation_rules import validate_request

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
from vendor_rules.validator import validate  # noqa: E402

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai-chat": "gpt-4.1",
    "openai": "gpt-5",
    "gemini": "gemini-2.5-flash",
}


def text_answer(api: str, text: str) -> dict[str, Any]:
    if api == "anthropic":
        return {
            "id": "msg_t",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 2},
        }
    if api == "openai-chat":
        return chat_answer({"content": text}, "stop")
    if api == "openai":
        item = {
            "type": "message",
            "id": "msg_t",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return responses_answer([item])
    return gemini_answer([{"text": text}])


def chat_answer(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-x",
        "choices": [
            {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": None, **message}}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def responses_answer(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-x",
        "status": "completed",
        "output": output,
        "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    }


def gemini_answer(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [{"finishReason": "STOP", "index": 0, "content": {"role": "model", "parts": parts}}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
        "modelVersion": "gemini-x",
    }


def call_answer(api: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One call of ``name`` as ``api`` answers it."""
    if api == "anthropic":
        body = text_answer(api, "")
        body["content"] = [{"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments}]
        body["stop_reason"] = "tool_use"
        return body
    if api == "openai-chat":
        call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        return chat_answer({"tool_calls": [call]}, "tool_calls")
    if api == "openai":
        item = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": name,
            "arguments": json.dumps(arguments),
            "status": "completed",
        }
        return responses_answer([item])
    return gemini_answer([{"functionCall": {"name": name, "args": arguments}}])


class Vendor:
    """A model of ``api`` over a mock transport giving ``answers`` in turn; ``sent`` holds each
    request body as the SDK sent it."""

    def __init__(self, api: str, answers: list[dict[str, Any]]) -> None:
        self.api, self.answers = api, list(answers)
        self.sent: list[dict[str, Any]] = []

        def respond(request: Any) -> Any:
            self.sent.append(json.loads(request.content))
            return httpx2.Response(200, json=self.answers.pop(0))

        client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
        self.model = toolwire.model(f"{api}:{MODELS[api]}", api_key="k", max_retries=0, http_client=client)


def problems(api: str, body: dict[str, Any]) -> list[str]:
    return [f"profile: {v}" for v in validate_request(api, body)] + [f"validator: {v}" for v in validate(api, body)]


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"{city}: sunny"


def wire_calls(api: str, body: dict[str, Any]) -> list[str]:
    """The names of the tool calls of the history in ``body``."""
    if api == "openai-chat":
        return [c["function"]["name"] for m in body["messages"] for c in m.get("tool_calls") or []]
    if api == "openai":
        return [it["name"] for it in body["input"] if it.get("type") == "function_call"]
    if api == "anthropic":
        return [
            b["name"]
            for m in body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_use"
        ]
    return [p["functionCall"]["name"] for c in body["contents"] for p in c["parts"] if "functionCall" in p]


# -- a call of a name no tool has, which the API refuses, close to a declared tool's name ------------------------------

SWITCHES = [(s, t) for s in APIS for t in APIS]


@pytest.mark.parametrize("source,target", SWITCHES, ids=[f"{s}->{t}" for s, t in SWITCHES])
def test_a_hallucinated_call_name_close_to_a_declared_tool_is_sent_back_under_a_name_the_api_takes(
    source: str, target: str
) -> None:
    # The model called 'get weather' (a space, no tool has that name) while 'get_weather' is
    # declared: the call is answered with an error result, and the next request carries the call
    # under a name the API takes - but not 'get_weather', which would tell the model it called
    # that tool - instead of toolwire refusing its own request (OpenAI's rule: "Must be a-z, A-Z,
    # 0-9, or contain underscores and dashes", openai.types.shared_params.FunctionDefinition.name).
    first = Vendor(source, [call_answer(source, "get weather", {"city": "Paris"}), text_answer(source, "sorry")])
    one = toolwire.run_sync(first.model, "Weather in Paris?", tools=[get_weather])
    assert one.text == "sorry"
    for body in first.sent:
        assert problems(source, body) == []
    other = Vendor(target, [text_answer(target, "ok")])
    two = toolwire.run_sync(other.model, "And now?", tools=[get_weather], conversation=one.conversation)
    assert two.text == "ok"
    (body,) = other.sent
    assert problems(target, body) == []
    (name,) = wire_calls(target, body)
    assert name != "get_weather"
    if target.startswith("openai"):
        assert name.startswith("get_weather_") and len(name) <= 64
