"""Prompt caching: the exact request bodies of ``cache=...`` on every vendor (through the real
SDKs over MockTransport)."""

from __future__ import annotations

import asyncio

import pytest

import toolwire
from toolwire.errors import ConfigurationError
from toolwire.types import Message

EPH = {"type": "ephemeral"}


@toolwire.tool
def lookup(q: str) -> str:
    """Look a word up in the glossary. Use it for every unknown term.

    Args:
        q: the word
    """
    return "a definition"


LOOKUP_ANTHROPIC = {
    "name": "lookup",
    "description": "Look a word up in the glossary. Use it for every unknown term.",
    "input_schema": {
        "type": "object",
        "properties": {"q": {"type": "string", "description": "the word"}},
        "required": ["q"],
    },
}


def anthropic_text(text: str = "ok") -> dict:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 5,
            "output_tokens": 1,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def history() -> list[Message]:
    call = toolwire.ToolCall(id="toolu_01", name="lookup", arguments={"q": "idempotent"})
    return [
        Message.user("What does idempotent mean?"),
        Message(role="assistant", parts=[call]),
        Message(role="user", parts=[toolwire.ToolResult(tool_call_id="toolu_01", content="same result when repeated")]),
    ]


def send(model, messages, **kw):
    return asyncio.run(model.send(model.build_request(messages, **kw)))


def test_anthropic_breakpoints_exact_body(mock) -> None:
    model, sent = mock("anthropic:claude-sonnet-4-5", [anthropic_text()], cache=True, max_tokens=100)
    send(model, history(), instructions="Answer briefly.", tools=[lookup])
    assert sent[0] == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "messages": [
            # the previous request's cache point: read back whatever the turn added
            {"role": "user", "content": [{"type": "text", "text": "What does idempotent mean?", "cache_control": EPH}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_01", "name": "lookup", "input": {"q": "idempotent"}}],
            },
            # the newest message: the whole prefix written for the next turn
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01",
                        "content": "same result when repeated",
                        "cache_control": EPH,
                    }
                ],
            },
        ],
        "system": [{"type": "text", "text": "Answer briefly.", "cache_control": EPH}],
        "tools": [LOOKUP_ANTHROPIC | {"cache_control": EPH}],
    }


def test_anthropic_breakpoints_stay_within_four_with_the_callers_own(mock) -> None:
    model, sent = mock(
        "anthropic:claude-sonnet-4-5",
        [anthropic_text()],
        cache=True,
        system_cache_control={"type": "ephemeral", "ttl": "1h"},
    )
    other = toolwire.Tool(
        "other",
        "Other tool. Use it never.",
        {"type": "object", "properties": {}},
        provider_data={"anthropic": {"cache_control": EPH}},
    )
    send(model, history(), instructions="Answer briefly.", tools=[other, lookup])
    body = sent[0]
    marked = [b for m in body["messages"] for b in m["content"] if "cache_control" in b]
    marked += [t for t in body["tools"] if "cache_control" in t] + [s for s in body["system"] if "cache_control" in s]
    assert len(marked) == 4  # the caller's 2 kept, 2 placed: the newest message and the previous turn
    assert body["system"] == [
        {"type": "text", "text": "Answer briefly.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    ]
    # the caller's 5-minute breakpoint on a tool comes before the 1-hour system one: the API refuses a
    # longer TTL after a shorter one, so it is sent with the hour too
    assert body["tools"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert "cache_control" not in body["tools"][1]
    assert body["messages"][2]["content"][0]["cache_control"] == EPH
    assert body["messages"][0]["content"][0]["cache_control"] == EPH


def test_anthropic_breakpoints_before_a_one_hour_one_take_the_hour(mock) -> None:
    """cache=True marks the last tool (5 minutes) and system_cache_control asks 1 hour on the system
    prompt, read after the tools: Anthropic refuses a longer TTL after a shorter one. The tool's
    breakpoint takes the hour; the messages' (read after the system prompt) keep 5 minutes."""
    model, sent = mock(
        "anthropic:claude-sonnet-4-5",
        [anthropic_text()],
        cache=True,
        system_cache_control={"type": "ephemeral", "ttl": "1h"},
    )
    send(model, [Message.user("hi")], instructions="Answer briefly.", tools=[lookup])
    body = sent[0]
    order = [t.get("cache_control") for t in body["tools"]] + [b.get("cache_control") for b in body["system"]]
    order += [b.get("cache_control") for m in body["messages"] for b in m["content"]]
    ttls = [cc.get("ttl", "5m") for cc in order if cc]
    assert ttls == ["1h", "1h", "5m"]
    assert ttls == sorted(ttls, key=lambda t: t != "1h")  # no 1h after a 5m


def test_anthropic_first_turn_and_thinking_blocks(mock) -> None:
    model, sent = mock("anthropic:claude-sonnet-4-5", [anthropic_text()], cache=True)
    send(model, [Message.user("hi")], tools=[lookup])
    assert sent[0]["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": EPH}]}]
    assert sent[0]["tools"][-1]["cache_control"] == EPH and "system" not in sent[0]


def test_anthropic_profile_cache_facts() -> None:
    prof = toolwire.registry.profile("anthropic")
    assert prof.cache_min_tokens("claude-sonnet-4-5") == 1024
    assert prof.cache_min_tokens("claude-opus-4-5-20251101") == 4096
    assert prof.cache_min_tokens("claude-3-5-haiku-latest") == 2048


OPENAI_LOOKUP_CHAT = {
    "type": "function",
    "function": {
        "name": "lookup",
        "description": "Look a word up in the glossary. Use it for every unknown term.",
        "parameters": {
            "type": "object",
            "properties": {"q": {"type": "string", "description": "the word"}},
            "required": ["q"],
        },
    },
}


def chat_answer() -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }


def responses_answer() -> dict:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-4.1",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
        "usage": {
            "input_tokens": 5,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 6,
        },
    }


def test_openai_chat_prompt_cache_key_exact_body(mock) -> None:
    model, sent = mock("openai-chat:gpt-4.1", [chat_answer(), chat_answer()], cache=True)
    send(model, [Message.user("hi")], instructions="Answer briefly.", tools=[lookup])
    send(model, history(), instructions="Answer briefly.", tools=[lookup])
    key = sent[0]["prompt_cache_key"]
    assert key.startswith("toolwire-") and len(key) == len("toolwire-") + 32
    assert sent[1]["prompt_cache_key"] == key  # same tools and instructions: same key, whatever the history
    assert sent[0] == {
        "model": "gpt-4.1",
        "messages": [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "hi"}],
        "tools": [OPENAI_LOOKUP_CHAT],
        "stream": False,
        "prompt_cache_key": key,
    }
    # another prefix gets another key; a key string is sent as given; an explicit field wins
    model2, sent2 = mock("openai-chat:gpt-4.1", [chat_answer(), chat_answer()], cache=True)
    send(model2, [Message.user("hi")], instructions="Answer at length.", tools=[lookup])
    assert sent2[0]["prompt_cache_key"] not in (key, None)
    model3, sent3 = mock("openai-chat:gpt-4.1", [chat_answer()], cache="agent-7")
    send(model3, [Message.user("hi")])
    assert sent3[0]["prompt_cache_key"] == "agent-7"
    model4, sent4 = mock("openai-chat:gpt-4.1", [chat_answer()], cache=True, prompt_cache_key="mine")
    send(model4, [Message.user("hi")])
    assert sent4[0]["prompt_cache_key"] == "mine"


def test_openai_chat_without_cache_sends_no_key(mock) -> None:
    model, sent = mock("openai-chat:gpt-4.1", [chat_answer()])
    send(model, [Message.user("hi")])
    assert "prompt_cache_key" not in sent[0]


def test_openai_responses_prompt_cache_key_exact_body(mock) -> None:
    model, sent = mock("openai:gpt-4.1", [responses_answer()], cache="user-42")
    send(model, [Message.user("hi")], instructions="Answer briefly.", tools=[lookup])
    assert sent[0] == {
        "model": "gpt-4.1",
        "input": [{"role": "user", "content": "hi"}],
        "instructions": "Answer briefly.",
        "tools": [
            {
                "type": "function",
                "name": "lookup",
                "description": "Look a word up in the glossary. Use it for every unknown term.",
                "parameters": OPENAI_LOOKUP_CHAT["function"]["parameters"],
                "strict": False,
            }
        ],
        "stream": False,
        "prompt_cache_key": "user-42",
    }


def gemini_answer() -> dict:
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6},
        "modelVersion": "gemini-2.5-flash",
    }


def test_gemini_implicit_caching_sends_the_prefix_unchanged(mock) -> None:
    plain, sent_plain = mock("gemini:gemini-2.5-flash", [gemini_answer()])
    cached, sent_cached = mock("gemini:gemini-2.5-flash", [gemini_answer()], cache=True)
    send(plain, [Message.user("hi")], instructions="Answer briefly.", tools=[lookup])
    send(cached, [Message.user("hi")], instructions="Answer briefly.", tools=[lookup])
    assert sent_cached[0] == sent_plain[0]
    assert list(sent_cached[0]) == ["contents", "systemInstruction", "tools"]


def test_gemini_cached_content_reference_exact_body(mock) -> None:
    model, sent = mock("gemini:gemini-2.5-flash", [gemini_answer()], cache="cachedContents/abc123", max_tokens=50)
    send(model, [Message.user("hi")], instructions="Answer briefly.", tools=[lookup], tool_choice="auto")
    assert sent[0] == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {"maxOutputTokens": 50},
        "cachedContent": "cachedContents/abc123",
    }


def test_gemini_cache_setting_is_checked() -> None:
    with pytest.raises(ConfigurationError, match="cachedContents/<id>"):
        toolwire.model("gemini:gemini-2.5-flash", api_key="k", cache="abc123")
    prof = toolwire.registry.profile("gemini")
    assert prof.cache_min_tokens("gemini-2.5-pro") == 4096 and prof.cache_min_tokens("gemini-2.5-flash") == 1024
    assert toolwire.registry.profile("openai").cache_min_tokens("gpt-4.1") == 1024
