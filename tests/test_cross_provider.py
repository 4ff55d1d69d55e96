"""Switching provider mid-conversation: a history produced on one API is continued on another.

For all 12 ordered pairs of the four APIs: a realistic history written in the source API's wire
format (reasoning with its signature or encrypted content, text, two parallel tool calls, one
result and one error result) is imported with the source codec's ``decode_request`` and encoded
with the target codec's ``encode_request``. The body must pass the target vendor's conversation
rules (``toolwire.testing.conversation_rules``), carry no foreign reasoning material, keep both
calls with their arguments and pair each with its result, and flag the error the target's way.
"""

from __future__ import annotations

import json
import re

import pytest

from toolwire import registry
from toolwire.adapter import ModelRequest
from toolwire.testing.conversation_rules import validate_request

PROVIDER = {"anthropic": "anthropic", "openai-chat": "openai-chat", "openai": "openai", "gemini": "gemini"}
MODEL = {
    "anthropic": "claude-sonnet-4-5",
    "openai-chat": "gpt-4.1",
    "openai": "gpt-5",
    "gemini": "gemini-3-flash-preview",
}

WEATHER_TOOL_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

# Opaque reasoning material of each source; none of it may reach another vendor.
SECRETS = {
    "anthropic": ["EqQBCkYIARgCKkBAnthropicSig+/=="],
    "openai-chat": [],
    "openai": ["gAAAAABoOpenAIEncryptedReasoning=="],
    "gemini": ["CiQBVGhvdWdodFNpZ25hdHVyZUdlbWluaQ=="],
}

HISTORIES = {
    "anthropic": {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "Answer briefly.",
        "messages": [
            {"role": "user", "content": "Weather in Paris and in Atlantis?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "Two cities, two calls.",
                        "signature": "EqQBCkYIARgCKkBAnthropicSig+/==",
                    },
                    {"type": "text", "text": "Checking both."},
                    {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Atlantis"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "18°C, sunny"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01B",
                        "content": "ValueError: city not found",
                        "is_error": True,
                    },
                ],
            },
        ],
        "tools": [{"name": "get_weather", "description": "Weather for a city.", "input_schema": WEATHER_TOOL_SCHEMA}],
    },
    "openai-chat": {
        "model": "gpt-4.1",
        "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Weather in Paris and in Atlantis?"},
            {
                "role": "assistant",
                "content": "Checking both.",
                "tool_calls": [
                    {
                        "id": "call_A1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    },
                    {
                        "id": "call_B2",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Atlantis"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_A1", "content": "18°C, sunny"},
            {"role": "tool", "tool_call_id": "call_B2", "content": "Error: ValueError: city not found"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Weather for a city.",
                    "parameters": WEATHER_TOOL_SCHEMA,
                },
            }
        ],
    },
    "openai": {
        "model": "gpt-5",
        "instructions": "Answer briefly.",
        "input": [
            {"role": "user", "content": "Weather in Paris and in Atlantis?"},
            {
                "type": "reasoning",
                "id": "rs_01",
                "summary": [{"type": "summary_text", "text": "Two cities, two calls."}],
                "encrypted_content": "gAAAAABoOpenAIEncryptedReasoning==",
            },
            {
                "type": "message",
                "id": "msg_01",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Checking both.", "annotations": []}],
            },
            {
                "type": "function_call",
                "id": "fc_01",
                "call_id": "call_A1",
                "name": "get_weather",
                "arguments": '{"city":"Paris"}',
                "status": "completed",
            },
            {
                "type": "function_call",
                "id": "fc_02",
                "call_id": "call_B2",
                "name": "get_weather",
                "arguments": '{"city":"Atlantis"}',
                "status": "completed",
            },
            {"type": "function_call_output", "call_id": "call_A1", "output": "18°C, sunny"},
            {"type": "function_call_output", "call_id": "call_B2", "output": "Error: ValueError: city not found"},
        ],
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Weather for a city.",
                "parameters": WEATHER_TOOL_SCHEMA,
                "strict": False,
            }
        ],
        "include": ["reasoning.encrypted_content"],
        "store": False,
    },
    "gemini": {
        "systemInstruction": {"parts": [{"text": "Answer briefly."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris and in Atlantis?"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Two cities, two calls.", "thought": True},
                    {"text": "Checking both."},
                    {
                        "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                        "thoughtSignature": "CiQBVGhvdWdodFNpZ25hdHVyZUdlbWluaQ==",
                    },
                    {"functionCall": {"name": "get_weather", "args": {"city": "Atlantis"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_weather", "response": {"output": "18°C, sunny"}}},
                    {"functionResponse": {"name": "get_weather", "response": {"error": "ValueError: city not found"}}},
                ],
            },
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "description": "Weather for a city.",
                        "parametersJsonSchema": WEATHER_TOOL_SCHEMA,
                    }
                ]
            }
        ],
    },
}

PAIRS = [(a, b) for a in HISTORIES for b in HISTORIES if a != b]


def _codec(api):
    try:
        return registry.codec(PROVIDER[api])
    except Exception as exc:  # pragma: no cover - adapter not installed
        pytest.fail(f"adapter for {api} unavailable: {exc}")


def _calls_and_results(api: str, body: dict) -> tuple[list[tuple[str, dict]], list[tuple[str, bool]]]:
    """(name, arguments) of every call and (result text, is_error flag) of every result, in order."""
    calls, results = [], []
    if api == "anthropic":
        for m in body["messages"]:
            for b in m["content"] if isinstance(m["content"], list) else []:
                if b["type"] == "tool_use":
                    calls.append((b["name"], b["input"]))
                elif b["type"] == "tool_result":
                    c = b["content"]
                    text = c if isinstance(c, str) else "".join(x.get("text", "") for x in c)
                    results.append((text, bool(b.get("is_error"))))
    elif api == "openai-chat":
        for m in body["messages"]:
            for c in m.get("tool_calls") or []:
                calls.append((c["function"]["name"], json.loads(c["function"]["arguments"])))
            if m["role"] == "tool":
                c = m["content"]
                text = c if isinstance(c, str) else "".join(x.get("text", "") for x in c)
                results.append((text, text.startswith("Error: ")))
    elif api == "openai":
        for it in body["input"]:
            if it.get("type") == "function_call":
                calls.append((it["name"], json.loads(it["arguments"])))
            elif it.get("type") == "function_call_output":
                o = it["output"]
                text = o if isinstance(o, str) else "".join(x.get("text", "") for x in o)
                results.append((text, text.startswith("Error: ")))
    else:
        for c in body["contents"]:
            for p in c["parts"]:
                if "functionCall" in p:
                    calls.append((p["functionCall"]["name"], p["functionCall"].get("args", {})))
                elif "functionResponse" in p:
                    r = p["functionResponse"]["response"]
                    results.append((r.get("error", r.get("output")), "error" in r))
    return calls, results


@pytest.mark.parametrize("source,target", PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_continue_conversation_on_another_provider(source, target):
    src, dst = _codec(source), _codec(target)
    imported: ModelRequest = src.decode_request(json.loads(json.dumps(HISTORIES[source])))
    imported.model = MODEL[target]
    body = dst.encode_request(imported)
    text = json.dumps(body, ensure_ascii=False)

    assert validate_request(target, body) == [], json.dumps(body, indent=1, ensure_ascii=False)
    for secret in SECRETS[source]:
        assert secret not in text, f"{source} reasoning material leaked into the {target} request"
    calls, results = _calls_and_results(target, body)
    assert calls == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Atlantis"})]
    assert len(results) == 2
    assert results[0] == ("18°C, sunny", False)
    assert results[1][1] is True, f"the error result lost its flag on {target}: {results[1]}"
    assert "ValueError: city not found" in results[1][0]
    assert "Checking both." in text
    assert "Answer briefly." in text
    if target == "anthropic":
        ids = [
            b["id"]
            for m in body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b["type"] == "tool_use"
        ]
        assert all(re.fullmatch(r"[A-Za-z0-9_-]+", i) for i in ids), ids  # Anthropic's tool_use id pattern
        assert len(set(ids)) == 2
    if target == "gemini":
        model_turn = next(c for c in body["contents"] if c["role"] == "model")
        assert all("id" not in p.get("functionCall", {}) or p["functionCall"]["id"] for p in model_turn["parts"])
        # Gemini 3 needs a thought signature on the first call of a turn: foreign turns get the documented placeholder
        first_call = next(p for p in model_turn["parts"] if "functionCall" in p)
        assert first_call.get("thoughtSignature") == "skip_thought_signature_validator"


@pytest.mark.parametrize("api", list(HISTORIES))
def test_same_provider_keeps_reasoning_byte_for_byte(api):
    codec = _codec(api)
    body = codec.encode_request(codec.decode_request(json.loads(json.dumps(HISTORIES[api]))))
    text = json.dumps(body, ensure_ascii=False)
    for secret in SECRETS[api]:
        assert secret in text
    assert validate_request(api, body) == []


def test_an_imported_name_the_target_vendor_refuses_fails_clearly():
    body = json.loads(json.dumps(HISTORIES["gemini"]))
    body["tools"][0]["functionDeclarations"][0]["name"] = "files.read:v2"
    imported = _codec("gemini").decode_request(body)
    assert imported.tools[0].name == "files.read:v2"
    # both OpenAI APIs send it renamed too (declaration, history and tool choice agree; their
    # adapters decode the model's calls back to the real name)
    chat = _codec("openai-chat").encode_request(imported)
    assert [t["function"]["name"] for t in chat["tools"]] == ["files_read_v2"]
    resp = _codec("openai").encode_request(imported)
    assert [t["name"] for t in resp["tools"]] == ["files_read_v2"]
    # Anthropic sends it renamed, the same way in the declaration and the history (its adapter
    # decodes the model's calls back to the real name)
    sent = _codec("anthropic").encode_request(imported)
    assert [t["name"] for t in sent["tools"]] == ["files_read_v2"]
