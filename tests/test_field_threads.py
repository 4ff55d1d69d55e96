"""Tool-calling failures reported against other libraries, rebuilt for toolwire: each test names the
public thread it comes from, builds the same input in the vendor's wire format and checks the
body toolwire sends through the real vendor SDK (only the network is replaced by an
``httpx2.MockTransport``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
import toolwire.registry

from .all_apis.answers import mock_model, text_answer

pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")


def stock(ticker: str) -> str:
    """Price of a stock."""
    return "2077.65"


# -- Chat Completions history whose tool-call arguments are a JSON object, not its text ----------
#
# Some OpenAI-compatible servers and gateways return ``function.arguments`` as an object
# (Portkey-AI/gateway#768, FoundationAgents/OpenManus#1115), and such histories are then passed
# back; the API itself refuses the object form ("Invalid type for
# 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object instead.",
# aaif-goose/goose-mobile#20). toolwire's Chat response decoder and its Responses importer take
# the object as the arguments; the Chat importer must too, and send it back as JSON text.

CHAT_HISTORY = {
    "model": "gpt-4.1",
    "messages": [
        {"role": "user", "content": "What is the price of MELI?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "call_yobf", "type": "function", "function": {"name": "stock", "arguments": {"ticker": "MELI"}}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_yobf", "content": "2077.65"},
    ],
}


def test_chat_history_with_object_arguments_keeps_them() -> None:
    req = toolwire.registry.codec("openai-chat").decode_request(json.loads(json.dumps(CHAT_HISTORY)))
    (call,) = req.messages[1].tool_calls
    assert call.arguments == {"ticker": "MELI"}
    assert call.invalid is None


@pytest.mark.parametrize("api", ["openai-chat", "anthropic", "gemini", "openai"])
def test_chat_history_with_object_arguments_is_sent_with_them(api: str) -> None:
    req = toolwire.registry.codec("openai-chat").decode_request(json.loads(json.dumps(CHAT_HISTORY)))
    conversation = toolwire.Conversation(list(req.messages))
    sent: list[dict[str, Any]] = []
    m = mock_model(api, [text_answer(api)], sent)
    toolwire.run_sync(m, "And in euros?", conversation=conversation, tools=[stock])
    body = sent[0]
    if api == "openai-chat":
        call = body["messages"][1]["tool_calls"][0]
        assert call["function"]["arguments"] == '{"ticker":"MELI"}'  # text, as the API requires
    elif api == "anthropic":
        assert body["messages"][1]["content"] == [
            {"type": "tool_use", "id": "call_yobf", "name": "stock", "input": {"ticker": "MELI"}}
        ]
    elif api == "gemini":
        calls = [p["functionCall"] for p in body["contents"][1]["parts"] if "functionCall" in p]
        assert calls == [{"name": "stock", "args": {"ticker": "MELI"}}]
    else:
        (item,) = [i for i in body["input"] if i.get("type") == "function_call"]
        assert item["arguments"] == '{"ticker":"MELI"}'


@pytest.mark.parametrize("value", [[1, 2], 5, True, "x"])
def test_chat_history_with_arguments_of_another_json_type_is_an_invalid_call(value: Any) -> None:
    body = json.loads(json.dumps(CHAT_HISTORY))
    body["messages"][1]["tool_calls"][0]["function"]["arguments"] = value
    if isinstance(value, str):  # text that is not JSON: the existing parse error
        expect = "not valid JSON"
    else:
        expect = "must be a JSON object"
    req = toolwire.registry.codec("openai-chat").decode_request(body)
    (call,) = req.messages[1].tool_calls
    assert call.arguments is None
    assert call.invalid is not None and expect in call.invalid
