"""Request checks on bodies whose tool names are not strings (found by the type checker: the
declared-name set took ``None`` and sorting it for the tool-choice message raised TypeError)."""

from toolwire_openai.profile import OpenAIChatProfile, OpenAIResponsesProfile


def _messages(violations):
    return [(v.rule, v.pointer, v.message) for v in violations]


def test_chat_unnamed_tool_and_unknown_forced_tool_are_reported_not_raised():
    body = {
        "model": "gpt-4.1",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"type": "function", "function": {"parameters": {"type": "object"}}},
            {"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}},
        ],
        "tool_choice": {"type": "function", "function": {"name": "b"}},
    }
    assert _messages(OpenAIChatProfile().check_request(body)) == [
        (
            "openai-chat.tool.name",
            "/tools/0/function/name",
            "tool name None breaks the rule: a tool name is a string, got NoneType",
        ),
        (
            "openai-chat.request.tool-choice-unknown-tool",
            "/tool_choice",
            "tool choice names 'b', which is not among the declared tools ['a']",
        ),
    ]


def test_responses_unnamed_tool_and_unknown_forced_tool_are_reported_not_raised():
    body = {
        "model": "gpt-5",
        "input": "hi",
        "tools": [
            {"type": "function", "parameters": {"type": "object"}},
            {"type": "function", "name": "a", "parameters": {"type": "object"}},
        ],
        "tool_choice": {"type": "function", "name": "b"},
    }
    assert _messages(OpenAIResponsesProfile().check_request(body)) == [
        ("openai.tool.name", "/tools/0/name", "tool name None breaks the rule: a tool name is a string, got NoneType"),
        (
            "openai.request.tool-choice-unknown-tool",
            "/tool_choice",
            "tool choice names 'b', which is not among the declared tools ['a']",
        ),
    ]


def test_chat_call_id_that_is_not_a_string_is_left_to_the_checks():
    body = {
        "model": "gpt-4.1",
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": 7, "type": "function", "function": {"name": "a", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": 7, "content": "ok"},
        ],
        "tools": [{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}],
    }
    repaired = OpenAIChatProfile().repair_request(body, None)
    assert repaired["messages"][1]["tool_calls"][0]["id"] == 7
    assert repaired["messages"][2]["tool_call_id"] == 7
