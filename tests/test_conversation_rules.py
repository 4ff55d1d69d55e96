"""The vendor conversation-rule validator: accepts every recorded (vendor-accepted) request and
names each kind of broken history."""

from __future__ import annotations

import pytest

from toolwire.testing.cassettes import load_cassette, recordings_dir
from toolwire.testing.conversation_rules import validate_request


def _recorded_requests():
    root = recordings_dir()
    if root is None:
        return []
    return [(f"{p.parent.name}/{p.name}", it) for p in sorted(root.glob("*/*.yaml")) for it in load_cassette(p)]


@pytest.mark.parametrize("name,interaction", _recorded_requests() or [pytest.param(None, None, marks=pytest.mark.skip(reason="../shared/recordings absent"))])
def test_every_recorded_request_is_valid(name, interaction):
    assert validate_request(interaction.api, interaction.request_json) == []


def test_anthropic_rules():
    use = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}
    assert validate_request("anthropic", {"messages": [{"role": "user", "content": "hi"}, use]}) == []
    bad_order = {"role": "user", "content": [{"type": "text", "text": "and?"}, {"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}
    assert validate_request("anthropic", {"messages": [{"role": "user", "content": "hi"}, use, bad_order]}) == [
        "messages[2]: tool_result blocks must come before other content"
    ]
    missing = {"role": "user", "content": "next"}
    assert validate_request("anthropic", {"messages": [{"role": "user", "content": "hi"}, use, missing]}) == [
        "tool_use 't1' (messages[1]) has no tool_result in messages[2]"
    ]
    foreign = {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}, {"type": "text", "text": "y"}]}
    assert validate_request("anthropic", {"messages": [{"role": "user", "content": "hi"}, foreign]}) == [
        "messages[1] thinking block without signature (foreign or altered reasoning)"
    ]
    twice = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    assert validate_request("anthropic", {"messages": twice}) == ["messages[1] repeats role 'user' (merge consecutive same-role messages)"]


def test_chat_rules():
    call = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                                                {"id": "c2", "type": "function", "function": {"name": "f", "arguments": "null"}}]}
    body = {"messages": [{"role": "user", "content": "hi"}, call, {"role": "tool", "tool_call_id": "c1", "content": "x"},
                         {"role": "user", "content": "img"}, {"role": "tool", "tool_call_id": "c2", "content": "y"}]}
    assert validate_request("openai-chat", body) == [
        "messages[1] tool call 'c2': arguments 'null' is not a JSON object string",
        "tool call 'c2' (messages[1]) has no role:tool message directly after it",
        "messages[4] is a role:tool message that does not follow an assistant message with tool_calls",
    ]


def test_responses_rules():
    body = {"input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_2", "output": "x"},
        {"role": "user", "content": "more"},
    ]}
    assert validate_request("openai", body) == [
        "input[2] function_call_output 'call_2' answers no earlier function_call",
        "function_call 'call_1' (input[1]) has no function_call_output",
    ]


def test_gemini_rules():
    model = {"role": "model", "parts": [{"functionCall": {"name": "w", "args": {"c": "a"}}}, {"functionCall": {"id": "fc_9", "name": "w", "args": {}}}]}
    split = [{"role": "user", "parts": [{"functionResponse": {"name": "w", "response": {"output": 1}}}]},
             {"role": "user", "parts": [{"functionResponse": {"name": "w", "response": {"output": 2}}}]}]
    assert validate_request("gemini", {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, model, *split]}) == [
        "contents[1] has 2 functionCall parts but contents[2] has 1 functionResponse parts"
    ]
    joined = {"role": "user", "parts": [{"functionResponse": {"name": "w", "response": {"output": 1}}},
                                         {"functionResponse": {"name": "w", "response": {"output": 2}}}]}
    assert validate_request("gemini", {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, model, joined]}) == [
        "contents[2] functionResponse 1 id None does not echo call id 'fc_9'"
    ]
