"""An imported request body's entry whose discriminator is blank — a Responses input item or
content part with ``"type": ""`` (or a type that is not a string), a Chat message with ``"role":
""`` (or 5), a Chat content part with ``"type": ""`` — is refused by ``decode_request`` naming it,
as an entry that is not an object is (it was left out, its text lost without a word). A Gemini
user part without a data field (``{}``, a lone ``thoughtSignature``) is left out. Kept (as they were), they went back
to the vendor as they came, in a request the vendor refuses. Anthropic refuses such a content
block with a typed error naming it, as it refuses a block that is not an object.

Each imported history is then run through the real SDK (only the network replaced): the body sent
holds the good entries and none of the blank ones."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire.errors import ResponseDecodeError
from toolwire.types import Conversation, TextPart

from .answers import mock_model, text_answer

#: (api, imported body, the texts of the user messages decode_request keeps, in order)
CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "gemini",
        {
            "contents": [
                {"role": "user", "parts": [{"text": "first"}, {}, {"thoughtSignature": "c2ln"}, {"thought": True}]},
            ]
        },
        ["first"],
    ),
]


def _blank(entry: Any, key: str) -> bool:
    value = entry.get(key) if isinstance(entry, dict) else None
    return value is not None and not (isinstance(value, str) and value)


def _walk(value: Any):
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


@pytest.mark.parametrize(("api", "body", "texts"), CASES, ids=[c[0] for c in CASES])
def test_an_imported_entry_with_a_blank_discriminator_is_left_out_and_never_sent(api, body, texts):
    imported = toolwire.registry.codec(api).decode_request(json.loads(json.dumps(body)))
    assert [m.role for m in imported.messages] == ["user"] * len(texts)
    assert [[p for p in m.parts] for m in imported.messages] == [[TextPart(t)] for t in texts]

    sent: list[dict[str, Any]] = []
    model = mock_model(api, [text_answer(api, "done")], sent)
    result = toolwire.run_sync(model, conversation=Conversation(imported.messages))
    assert result.text == "done"
    (wire,) = sent
    entries = list(_walk(wire.get("input") or wire.get("messages") or wire.get("contents")))
    assert not [e for e in entries if _blank(e, "type") or _blank(e, "role")]
    if api == "gemini":
        assert wire["contents"] == [{"role": "user", "parts": [{"text": "first"}]}]
    sent_text = json.dumps(wire)
    for gone in ("typed empty", "typed a number", "typed a list", "role empty", "role a number", "c2ln"):
        assert gone not in sent_text


#: (api, the list's key, a good first entry, the blank entry, the pointer the error names)
BLANK: list[tuple[str, str, dict[str, Any], dict[str, Any], str]] = [
    ("openai", "input", {"role": "user", "content": "first"}, {"type": ""}, "/input/1/type"),
    (
        "openai",
        "input",
        {"role": "user", "content": "first"},
        {"type": 5, "role": "user", "content": "x"},
        "/input/1/type",
    ),
    (
        "openai",
        "input",
        {"role": "user", "content": "first"},
        {"type": ["message"], "role": "user", "content": "x"},
        "/input/1/type",
    ),
    (
        "openai",
        "input",
        {"role": "user", "content": "first"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "second"}, {"type": 7}]},
        "/input/1/content/1/type",
    ),
    ("openai-chat", "messages", {"role": "user", "content": "first"}, {"role": "", "content": "x"}, "/messages/1/role"),
    ("openai-chat", "messages", {"role": "user", "content": "first"}, {"role": 5, "content": "x"}, "/messages/1/role"),
    (
        "openai-chat",
        "messages",
        {"role": "user", "content": "first"},
        {"role": ["user"], "content": "x"},
        "/messages/1/role",
    ),
    (
        "openai-chat",
        "messages",
        {"role": "user", "content": "first"},
        {"role": "user", "content": [{"type": "text", "text": "second"}, {"type": ""}]},
        "/messages/1/content/1/type",
    ),
]


@pytest.mark.parametrize(("api", "key", "first", "blank", "pointer"), BLANK)
def test_an_imported_openai_entry_with_a_blank_discriminator_is_refused_naming_it(api, key, first, blank, pointer):
    # ResponseInputItemParam and the content part params are told apart by a literal ``type``,
    # ChatCompletionMessageParam by its literal ``role`` (openai SDK types); an entry that is not an
    # object is refused at its place, and so is one whose discriminator is blank
    body = {"model": "gpt-4.1", key: [first, blank]}
    with pytest.raises(ResponseDecodeError) as info:
        toolwire.registry.codec(api).decode_request(json.loads(json.dumps(body)))
    assert info.value.pointer == pointer
    assert f"{pointer} must be the " in str(info.value) and "a non-empty string" in str(info.value)


@pytest.mark.parametrize("block", [{"type": ""}, {"type": "", "text": "x"}, {"type": 5}])
def test_anthropic_refuses_an_imported_content_block_with_a_blank_type_naming_it(block):
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, block]}],
    }
    with pytest.raises(ResponseDecodeError) as info:
        toolwire.registry.codec("anthropic").decode_request(body)
    assert "/messages/0/content/1/type" in str(info.value)
