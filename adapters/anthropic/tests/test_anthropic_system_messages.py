"""System messages inside the conversation (``role: "system"`` in ``messages``, taken by Claude Opus
4.8 and later Opus, Fable and Mythos models): imported, sent back in place, never merged with the
turns around them; sent as user text to a model that takes none; refused where the API refuses
them. Through the real SDK over ``httpx2.MockTransport``."""

from __future__ import annotations

import asyncio
import copy

import pytest
from toolwire_anthropic import AnthropicCodec

from toolwire import Message, TextPart
from toolwire.profile import RequestRefused

REVIEW = {
    "model": "claude-opus-4-8",
    "max_tokens": 1024,
    "system": "You are a code reviewer.",
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Review `def add(a, b): return a + b`."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Looks fine."}]},
        {"role": "user", "content": [{"type": "text", "text": "Review it again."}]},
        {
            "role": "system",
            "content": [
                {
                    "type": "text",
                    "text": "From now on, every suggestion must include explicit type annotations.",
                    "cache_control": {"type": "ephemeral", "ttl": "5m"},
                }
            ],
        },
        {"role": "system", "content": [{"type": "text", "text": "Also always state the time complexity."}]},
    ],
}


def run(coro):
    return asyncio.run(coro)


def _send(mock_model, wire, body, model_id):
    req = AnthropicCodec().decode_request(copy.deepcopy(body))
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))], model_id=model_id)
    resp = run(model.send(model.build_request(req.messages, instructions=req.instructions)))
    return model.sent[0].json["messages"], resp


def test_imported_system_messages_are_sent_back_in_place(mock_model, wire) -> None:
    req = AnthropicCodec().decode_request(copy.deepcopy(REVIEW))
    assert [(m.role, m.provider_data) for m in req.messages] == [
        ("user", {}),
        ("assistant", {}),
        ("user", {}),
        ("user", {"anthropic": {"role": "system"}}),
        ("user", {"anthropic": {"role": "system"}}),
    ]
    sent, resp = _send(mock_model, wire, REVIEW, "claude-opus-4-8")
    assert sent == REVIEW["messages"]  # two system messages, in order, the cache breakpoint kept
    assert resp.text == "ok"
    assert [c.rule for c in resp.preflight or []] == []


def test_a_user_message_after_a_system_message_stays_a_turn_of_its_own(mock_model, wire) -> None:
    body = copy.deepcopy(REVIEW)
    body["messages"] = body["messages"][:4] + [
        {"role": "assistant", "content": [{"type": "text", "text": "def add(a: int, b: int) -> int: ..."}]},
        {"role": "user", "content": [{"type": "text", "text": "Now `mul`."}]},
    ]
    sent, _ = _send(mock_model, wire, body, "claude-opus-4-8")
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "system", "assistant", "user"]
    assert sent == body["messages"]


def test_a_model_without_system_messages_gets_them_as_user_text(mock_model, wire) -> None:
    sent, resp = _send(mock_model, wire, REVIEW, "claude-sonnet-4-6")
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert [b["text"] for b in sent[2]["content"]] == [
        "Review it again.",
        "From now on, every suggestion must include explicit type annotations.",
        "Also always state the time complexity.",
    ]
    lossy = [(c.rule, c.pointer, c.lossy) for c in resp.preflight if c.rule.endswith("system-message-model")]
    assert lossy == [
        ("anthropic.conversation.system-message-model", "/messages/3/role", True),
        ("anthropic.conversation.system-message-model", "/messages/4/role", True),
    ]


@pytest.mark.parametrize(
    ("model_id", "kept"),
    [
        ("claude-opus-4-8", True),
        ("claude-opus-5-5", True),
        ("claude-fable-5-1", True),
        ("claude-mythos-preview", True),
        ("claude-opus-4-7", False),
        ("claude-sonnet-5", False),
        ("claude-haiku-4-5", False),
    ],
)
def test_which_models_take_system_messages(mock_model, wire, model_id, kept) -> None:
    sent, _ = _send(mock_model, wire, REVIEW, model_id)
    assert ("system" in [m["role"] for m in sent]) is kept


def test_a_system_message_after_an_assistant_message_is_refused(mock_model, wire) -> None:
    conv = [
        Message.user("Review it."),
        Message("assistant", [TextPart("Looks fine.")]),
        Message("user", [TextPart("Use type annotations.")], {"anthropic": {"role": "system"}}),
    ]
    model = mock_model([], model_id="claude-opus-4-8")
    with pytest.raises(RequestRefused, match="system-message-placement") as err:
        run(model.send(model.build_request(conv)))
    assert "after an assistant message" in str(err.value)
    assert model.sent == []


def test_a_system_message_first_or_with_an_image_is_refused(mock_model, wire) -> None:
    body = {
        "model": "claude-opus-4-8",
        "max_tokens": 64,
        "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": "hi"},
        ],
    }
    model = mock_model([], model_id="claude-opus-4-8")
    req = AnthropicCodec().decode_request(body)
    with pytest.raises(RequestRefused, match="the first message"):
        run(model.send(model.build_request(req.messages)))
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    body["messages"] = [{"role": "user", "content": "hi"}, {"role": "system", "content": [image]}]
    req = AnthropicCodec().decode_request(body)
    with pytest.raises(RequestRefused, match="text blocks only, found 'image'"):
        run(model.send(model.build_request(req.messages)))
    assert model.sent == []


def test_a_tool_addition_directive_rides_in_the_system_message(mock_model, wire) -> None:
    directive = {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "lookup_refund_policy"}}
    body = {
        "model": "claude-opus-4-8",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Refund for order A-4417?"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "I can check that."}]},
            {"role": "user", "content": [{"type": "text", "text": "."}]},
            {"role": "system", "content": [directive]},
        ],
    }
    sent, _ = _send(mock_model, wire, body, "claude-opus-4-8")
    assert sent[3] == {"role": "system", "content": [directive]}
    sent, resp = _send(mock_model, wire, body, "claude-sonnet-4-6")
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]  # nothing left to send: dropped
    assert any(c.detail.endswith("; its 1 tool_addition / tool_removal block left out") for c in resp.preflight)
    body["messages"][3]["content"] = [directive, {**directive, "type": "tool_removal"}]
    sent, resp = _send(mock_model, wire, body, "claude-sonnet-4-6")
    assert any(c.detail.endswith("; its 2 tool_addition / tool_removal blocks left out") for c in resp.preflight)


def test_whitespace_text_in_a_system_message_is_left_out_as_in_a_user_message(mock_model, wire) -> None:
    # a user message's whitespace-only text is left out (the API refuses it); a system message's
    # was refused instead, and a system message left with nothing is dropped, not sent empty
    conv = [
        Message.user("Review it."),
        Message("user", [TextPart("  \n")], {"anthropic": {"role": "system"}}),
        Message("user", [TextPart("Be terse."), TextPart(" ")], {"anthropic": {"role": "system"}}),
        Message.user("Again."),
    ]
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))], model_id="claude-opus-4-8"
    )
    resp = run(model.send(model.build_request(conv)))
    assert resp.text == "ok"
    assert model.sent[0].json["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Review it."}]},
        {"role": "system", "content": [{"type": "text", "text": "Be terse."}]},
        {"role": "user", "content": [{"type": "text", "text": "Again."}]},
    ]
    assert [(c.rule, c.pointer) for c in resp.preflight if not c.lossy] == [
        ("anthropic.conversation.empty-text", "/messages/1/content/0"),
        ("anthropic.conversation.empty-text", "/messages/2/content/1"),
        ("anthropic.conversation.empty-content", "/messages/1"),
    ]
