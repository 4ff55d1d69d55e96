"""Switching provider in the middle of a run's conversation, driven end to end: a tool loop on
API A (canned answers in A's wire format, with reasoning, server-tool blocks, parallel calls)
continued with ``toolwire.run_sync`` on API B through the real SDK, the bodies read from the
``httpx2.MockTransport``."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire.testing.conversation_rules import validate_request

from .all_apis.answers import APIS, mock_model, text_answer

pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai-chat": "gpt-4.1",
    "openai": "gpt-5",
    "gemini": "gemini-3-flash-preview",
}

# opaque reasoning material of each API (base64 text, as the vendors send it)
ANTHROPIC_SIG = "QU5USFJPUElDX1NJR05BVFVSRQ=="
OPENAI_ENC = "T1BFTkFJX0VOQ1JZUFRFRA=="
GEMINI_SIG = "R0VNSU5JX1NJR05BVFVSRQ=="
SECRETS = {"anthropic": [ANTHROPIC_SIG], "openai-chat": [], "openai": [OPENAI_ENC], "gemini": [GEMINI_SIG]}
#: the APIs whose answers below carry reasoning (Chat Completions from OpenAI carries none)
REASONS = ("anthropic", "openai", "gemini")


def reasoning_call_answer(api: str) -> dict[str, Any]:
    """An answer of ``api`` with reasoning, text and two parallel calls of ``get_weather``."""
    if api == "anthropic":
        return {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [
                {"type": "thinking", "thinking": "Two cities.", "signature": ANTHROPIC_SIG},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Oslo"}},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 9},
        }
    if api == "openai-chat":
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-x",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": "Checking.",
                        "tool_calls": [
                            {
                                "id": f"call_{i}",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": json.dumps({"city": c})},
                            }
                            for i, c in enumerate(("Paris", "Oslo"))
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
    if api == "openai":
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "gpt-x",
            "status": "completed",
            "output": [
                {
                    "type": "reasoning",
                    "id": "rs_1",
                    "summary": [{"type": "summary_text", "text": "Two cities."}],
                    "encrypted_content": OPENAI_ENC,
                },
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
                },
            ]
            + [
                {
                    "type": "function_call",
                    "id": f"fc_{i}",
                    "call_id": f"call_{i}",
                    "name": "get_weather",
                    "arguments": json.dumps({"city": c}),
                    "status": "completed",
                }
                for i, c in enumerate(("Paris", "Oslo"))
            ],
            "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
        }
    return {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Two cities.", "thought": True},
                        {"text": "Checking."},
                        {
                            "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                            "thoughtSignature": GEMINI_SIG,
                        },
                        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
                    ],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
    }


def make_model(api: str, answers: list[dict[str, Any]], sent: list[dict[str, Any]]) -> Any:
    """:func:`mock_model` with this file's model ids (a Gemini 3 model: thought signatures)."""
    return mock_model(api, answers, sent, model_id=MODELS[api])


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"{city}: sunny"


def run_on(api: str) -> toolwire.RunResult:
    sent: list[dict[str, Any]] = []
    model = make_model(api, [reasoning_call_answer(api), text_answer(api, "done")], sent)
    return toolwire.run_sync(model, "Weather in Paris and Oslo?", tools=[get_weather])


PAIRS = [(a, b) for a in APIS for b in APIS if a != b]


@pytest.mark.parametrize("source,target", PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_another_vendors_reasoning_is_dropped_and_reported(source: str, target: str) -> None:
    first = run_on(source)
    sent: list[dict[str, Any]] = []
    model = make_model(target, [text_answer(target, "ok")], sent)
    result = toolwire.run_sync(model, "next", conversation=first.conversation, tools=[get_weather])
    assert result.text == "ok"
    (body,) = sent
    assert validate_request(target, body) == []
    for secret in SECRETS[source]:
        assert secret not in json.dumps(body)
    report = result.turns[0].response.preflight
    dropped = [c for c in (report.changes if report is not None else []) if c.rule == "reasoning.dropped"]
    if source in REASONS:
        # the reasoning part of the source's answer: one lossy entry, pointing at it
        assert [(c.pointer, c.lossy) for c in dropped] == [("/messages/1/parts/0", True)], report
        assert source in dropped[0].detail
    else:
        assert dropped == []


def call_answer(api: str) -> dict[str, Any]:
    """``api``'s answer with one call of ``get_weather`` (ids in ``api``'s own format)."""
    body = reasoning_call_answer(api)
    if api == "anthropic":
        body["content"] = body["content"][1:3]
        body["content"][1]["id"] = "toolu_02C"
    elif api == "openai-chat":
        body["choices"][0]["message"]["tool_calls"] = body["choices"][0]["message"]["tool_calls"][:1]
        body["choices"][0]["message"]["tool_calls"][0]["id"] = "call_9"
    elif api == "openai":
        body["output"] = [body["output"][1], {**body["output"][2], "id": "fc_9", "call_id": "call_9"}]
        body["output"][0] = {**body["output"][0], "id": "msg_9"}
    else:
        body["candidates"][0]["content"]["parts"] = body["candidates"][0]["content"]["parts"][1:3]
    return body


@pytest.mark.parametrize("source,target", PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_the_drop_is_reported_on_every_request_of_a_long_conversation(source: str, target: str) -> None:
    # a conversation long enough for the preflight to check only the new messages of a later request
    first = run_on(source)
    conversation = toolwire.Conversation()
    for i in range(8):
        conversation.append(toolwire.Message.user(f"q{i}"))
        conversation.append(toolwire.Message.assistant(f"a{i}"))
    for m in first.conversation.messages:
        conversation.append(m)
    sent: list[dict[str, Any]] = []
    model = make_model(target, [call_answer(target), text_answer(target, "ok")], sent)
    result = toolwire.run_sync(model, "next", conversation=conversation, tools=[get_weather])
    assert result.text == "ok" and len(sent) == 2
    for body, turn in zip(sent, result.turns):
        assert validate_request(target, body) == []
        report = turn.response.preflight
        dropped = [c.pointer for c in (report.changes if report is not None else []) if c.rule == "reasoning.dropped"]
        assert dropped == (["/messages/17/parts/0"] if source in REASONS else [])
