"""An imported Anthropic request body (``AnthropicCodec.decode_request``) whose top-level fields
have the wrong JSON type raises :class:`ResponseDecodeError` naming the field.

``system`` is ``Union[str, Iterable[TextBlockParam]]`` (anthropic.types.MessageCreateParamsBase;
``TextBlockParam``: ``type: Literal["text"]``, ``text: str``): a number, an object, or a list
holding something other than text blocks was dropped without a word (the request went without
its system prompt). ``tool_choice``, ``thinking``, ``metadata``, ``max_tokens``... of a type the
SDK does not give them were dropped or carried along for the API to refuse.
"""

from __future__ import annotations

from typing import Any

import pytest
from toolwire_anthropic import AnthropicCodec

from toolwire.errors import ResponseDecodeError

BASE: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hi"}],
}

WRONG = {
    "system-number": ("system", 5, "/system"),
    "system-object": ("system", {"type": "text", "text": "be brief"}, "/system"),
    "system-true": ("system", True, "/system"),
    "system-list-of-strings": ("system", ["be brief"], "/system/0"),
    "system-image-block": (
        "system",
        [{"type": "text", "text": "a"}, {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}],
        "/system/1",
    ),
    "system-text-not-text": ("system", [{"type": "text", "text": 5}], "/system/0/text"),
    "tool_choice-string": ("tool_choice", "auto", "/tool_choice"),
    "tool_choice-number": ("tool_choice", 5, "/tool_choice"),
    "thinking-string": ("thinking", "enabled", "/thinking"),
    "thinking-budget-text": ("thinking", {"type": "enabled", "budget_tokens": "lots"}, "/thinking/budget_tokens"),
    "metadata-string": ("metadata", "user-1", "/metadata"),
    "max_tokens-text": ("max_tokens", "100", "/max_tokens"),
    "temperature-text": ("temperature", "hot", "/temperature"),
    "stream-text": ("stream", "yes", "/stream"),
    "model-number": ("model", 5, "/model"),
    "stop_sequences-string": ("stop_sequences", "END", "/stop_sequences"),
}


@pytest.mark.parametrize("field,value,pointer", WRONG.values(), ids=WRONG.keys())
def test_a_top_level_field_of_the_wrong_type_is_a_decode_error(field: str, value: Any, pointer: str) -> None:
    body = {**BASE, field: value}
    with pytest.raises(ResponseDecodeError) as info:
        AnthropicCodec().decode_request(body)
    assert info.value.pointer == pointer
    assert info.value.api == "anthropic"


def test_the_right_types_still_import() -> None:
    body = {
        **BASE,
        "system": [
            {"type": "text", "text": "a"},
            {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}},
        ],
        "tool_choice": {"type": "auto"},
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "metadata": {"user_id": "u1"},
        "stop_sequences": ["END"],
        "temperature": 1,
        "stream": True,
    }
    req = AnthropicCodec().decode_request(body)
    assert req.instructions == "a\n\nb"
    assert req.tool_choice == "auto"
    assert req.thinking == {"type": "enabled", "budget_tokens": 2048}
    assert req.settings["metadata"] == {"user_id": "u1"}
    assert req.max_tokens == 100 and req.stream is True
    assert AnthropicCodec().decode_request({**BASE, "system": "plain"}).instructions == "plain"


# ToolResultBlockParam (anthropic SDK): ``tool_use_id: str``, ``content`` text or a list of
# blocks. A ``tool_use_id`` of 1 became the id "1"; ``content: 5`` became an empty result.
_USE = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}


@pytest.mark.parametrize(
    "result,pointer",
    [
        ({"type": "tool_result", "tool_use_id": 1, "content": "ok"}, "/messages/2/content/0/tool_use_id"),
        ({"type": "tool_result", "tool_use_id": "toolu_1", "content": 5}, "/messages/2/content/0/content"),
        (
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": {"type": "text"}},
            "/messages/2/content/0/content",
        ),
    ],
    ids=["tool_use_id-number", "content-number", "content-object"],
)
def test_a_tool_result_with_a_wrong_typed_field_is_a_decode_error(result: dict[str, Any], pointer: str) -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [_USE]}]
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "messages": [*messages, {"role": "user", "content": [result]}],
    }
    with pytest.raises(ResponseDecodeError) as info:
        AnthropicCodec().decode_request(body)
    assert info.value.pointer == pointer
