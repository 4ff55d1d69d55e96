"""A system or developer message inside the conversation, imported from one API
(``decode_request``) and sent to another through ``Model.send``: kept as the target API's own
message where it has one (OpenAI Chat ``system``/``developer`` messages, Responses input messages
of role ``system``/``developer``), else sent as a user message and named in the request's report
as a lossy change (rule ``conversation.system-message-as-user``). Before, every crossing was sent
as a plain user message without a word. Through the real adapters and SDKs, only the network
replaced."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import ImagePart, Message, TextPart
from toolwire.testing.conversation_rules import validate_request

from .answers import mock_model, text_answer

RULE = "conversation.system-message-as-user"
SAID = "Answer in French from now on."


def _imported(source: str) -> list[Message]:
    """A conversation whose last message but one is a system (or developer) message inside the
    conversation, imported from ``source``'s request body."""
    from toolwire_anthropic import AnthropicCodec
    from toolwire_openai import OpenAIChatCodec, OpenAIResponsesCodec

    if source == "anthropic":
        body = {
            "model": "claude-opus-4-8",
            "max_tokens": 64,
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "system", "content": SAID},
            ],
        }
        return AnthropicCodec().decode_request(body).messages
    if source == "openai-chat":
        body = {
            "model": "gpt-4.1",
            "messages": [
                {"role": "system", "content": "You are terse."},  # the instructions
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello."},
                {"role": "developer", "content": SAID},
                {"role": "user", "content": "Weather in Paris?"},
            ],
        }
        return OpenAIChatCodec().decode_request(body).messages
    body = {
        "model": "gpt-5",
        "input": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "Hello."},
            {"role": "system", "content": SAID},
            {"role": "user", "content": "Weather in Paris?"},
        ],
    }
    return OpenAIResponsesCodec().decode_request(body).messages


#: The role each source gave the message.
ROLE = {"anthropic": "system", "openai-chat": "developer", "openai": "system"}


def _send(
    api: str, messages: list[Message], model_id: str | None = None
) -> tuple[dict[str, Any], list[tuple[str, str, bool]]]:
    sent: list[dict[str, Any]] = []
    model = mock_model(api, [text_answer(api, "done")], sent, model_id=model_id)
    response = asyncio.run(model.send(model.build_request(messages)))
    assert response.text == "done" and len(sent) == 1
    assert validate_request(api, sent[0]) == []
    report = model.last_preflight
    assert report is not None
    return sent[0], [(c.rule, c.pointer, c.lossy) for c in report.changes]


def _where(messages: list[Message]) -> int:
    (i,) = [i for i, m in enumerate(messages) if any(isinstance(p, TextPart) and p.text == SAID for p in m.parts)]
    return i


def _sent_roles(api: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """``(role, text)`` of each entry of the body's conversation that holds :data:`SAID`."""
    if api == "gemini":
        entries = body["contents"]
    elif api == "openai":
        entries = body["input"]
    else:
        entries = body["messages"]
    out = []
    for e in entries:
        content = e.get("content", e.get("parts"))
        texts = [content] if isinstance(content, str) else [c.get("text") for c in content]
        if any(isinstance(t, str) and SAID in t for t in texts):
            out.append((e["role"], SAID))
    return out


@pytest.mark.parametrize(
    "source, target",
    [
        ("anthropic", "openai-chat"),
        ("anthropic", "openai"),
        ("openai-chat", "openai"),
        ("openai", "openai-chat"),
    ],
)
def test_kept_as_the_target_apis_own_system_or_developer_message(source: str, target: str) -> None:
    messages = _imported(source)
    body, changes = _send(target, messages)
    assert _sent_roles(target, body) == [(ROLE[source], SAID)]
    assert [c for c in changes if c[0] == RULE] == []


@pytest.mark.parametrize(
    "source, target",
    [
        ("anthropic", "gemini"),
        ("openai-chat", "gemini"),
        ("openai", "gemini"),
        ("openai-chat", "anthropic"),
        ("openai", "anthropic"),
    ],
)
def test_sent_as_a_user_message_and_reported_where_the_target_has_none(source: str, target: str) -> None:
    messages = _imported(source)
    body, changes = _send(target, messages)
    assert _sent_roles(target, body) == [("user", SAID)]
    assert [c for c in changes if c[0] == RULE] == [(RULE, f"/messages/{_where(messages)}", True)]


@pytest.mark.parametrize("source", ["anthropic", "openai-chat", "openai"])
def test_the_source_api_sends_its_own_message_back_unreported(source: str) -> None:
    messages = _imported(source)
    # (a Claude model that takes a system message inside the conversation)
    body, changes = _send(source, messages, "claude-opus-4-8" if source == "anthropic" else None)
    assert _sent_roles(source, body) == [(ROLE[source], SAID)]
    assert [c for c in changes if c[0] == RULE] == []


def test_a_developer_message_with_an_image_goes_to_chat_as_a_user_message_and_is_reported() -> None:
    # a Chat system / developer message holds text only (ChatCompletionDeveloperMessageParam.content)
    messages = _imported("openai")
    i = _where(messages)
    messages[i].parts.append(ImagePart(url="https://example.com/chart.png", media_type="image/png"))
    body, changes = _send("openai-chat", messages)
    assert _sent_roles("openai-chat", body) == [("user", SAID)]
    assert [c for c in changes if c[0] == RULE] == [(RULE, f"/messages/{i}", True)]


def _between_call_and_result(source: str) -> list[Message]:
    """A conversation with a system (or developer) message between a tool call and its result,
    imported from ``source``: the result is moved to sit right after its call
    (rule ``conversation.result-moved``), into the marked message."""
    from toolwire_anthropic import AnthropicCodec
    from toolwire_openai import OpenAIResponsesCodec

    if source == "anthropic":
        body = {
            "model": "claude-opus-4-8",
            "max_tokens": 64,
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "w", "input": {}}]},
                {"role": "system", "content": SAID},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "Sunny"}]},
            ],
            "tools": [{"name": "w", "input_schema": {"type": "object"}}],
        }
        return AnthropicCodec().decode_request(body).messages
    body = {
        "model": "gpt-5",
        "input": [
            {"role": "user", "content": "Weather in Paris?"},
            {"type": "function_call", "call_id": "call_1", "name": "w", "arguments": "{}"},
            {"role": "system", "content": SAID},
            {"type": "function_call_output", "call_id": "call_1", "output": "Sunny"},
        ],
        "tools": [{"type": "function", "name": "w", "parameters": {"type": "object"}}],
    }
    return OpenAIResponsesCodec().decode_request(body).messages


@pytest.mark.parametrize("source", ["anthropic", "openai"])
def test_a_result_moved_into_the_message_does_not_cost_it_its_role_on_chat(source: str) -> None:
    """The result goes out as the ``tool`` message, the text after it keeps its role. Before,
    the moved result made the message count as one holding more than text: Chat sent it as a
    user message, and reported nothing (the report was made before the move)."""
    body, changes = _send("openai-chat", _between_call_and_result(source))
    assert [(m["role"], m.get("content")) for m in body["messages"][-2:]] == [
        ("tool", "Sunny"),
        ("system", SAID),
    ]
    assert [c for c in changes if c[0] == RULE] == []


@pytest.mark.parametrize(
    "instructions", [5, True, {"text": "Be terse."}, [{"role": "developer", "content": "Be terse."}]]
)
def test_responses_instructions_that_are_not_text_are_refused_when_imported(instructions: Any) -> None:
    """``ResponseCreateParamsBase.instructions`` is ``Optional[str]``. Before, any value was taken
    as the instructions and sent as it came (``"instructions": 5`` to Responses, a Chat system
    message with content 5, a Gemini text part 5) for the API to refuse."""
    from toolwire_openai import OpenAIResponsesCodec

    from toolwire.errors import ResponseDecodeError

    with pytest.raises(ResponseDecodeError, match="/instructions must be a string"):
        OpenAIResponsesCodec().decode_request({"model": "gpt-5", "input": "hi", "instructions": instructions})
    request = OpenAIResponsesCodec().decode_request({"model": "gpt-5", "input": "hi", "instructions": None})
    assert request.instructions is None
