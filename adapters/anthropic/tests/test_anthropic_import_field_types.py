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


# -- fields inside messages, tools and tool_choice ------------------------------------------------
# Checked against the SDK's types (toolwire.profile.value_type_problems, walked through the
# unions by each block's and tool's ``type``): ToolUseBlockParam (``id: str``, ``name: str``,
# ``input: Dict[str, object]``), ToolParam (``name: str``, ``description: str``, ``input_schema``
# an object), ToolChoiceToolParam (``name: str``), ImageBlockParam (``source`` an object),
# ToolResultBlockParam.content (text blocks: ``text: str``). Before, an ``input`` list or string
# became an invalid call, an ``id`` of 5 a synthesized id, a ``name`` of 5 the name "5", a tool
# ``name``/``input_schema`` of the wrong type a ToolNameError/ToolDefinitionError without the
# field's place, ``tool_choice.name: 5`` was kept as {"type": "tool", "name": 5}, an image
# ``source`` of 5 was kept whole for the API to refuse.
def _conversation(block: dict[str, Any], role: str = "assistant") -> dict[str, Any]:
    return {**BASE, "messages": [{"role": "user", "content": "hi"}, {"role": role, "content": [block]}]}


def _tool(**fields: Any) -> dict[str, Any]:
    return {**BASE, "tools": [{"name": "f", "input_schema": {"type": "object"}, **fields}]}


NESTED = {
    "tool_choice-name-number": ({**BASE, "tool_choice": {"type": "tool", "name": 5}}, "/tool_choice/name"),
    "tool_choice-disable-text": (
        {**BASE, "tool_choice": {"type": "auto", "disable_parallel_tool_use": "yes"}},
        "/tool_choice/disable_parallel_tool_use",
    ),
    "tool-input_schema-string": (_tool(input_schema="{}"), "/tools/0/input_schema"),
    "tool-input_schema-list": (_tool(input_schema=[]), "/tools/0/input_schema"),
    "tool-name-number": (_tool(name=5), "/tools/0/name"),
    "tool-description-number": (_tool(description=5), "/tools/0/description"),
    "custom-tool-name-number": (_tool(type="custom", name=5), "/tools/0/name"),
    "tool_use-input-list": (_conversation({**_USE, "input": [1]}), "/messages/1/content/0/input"),
    "tool_use-input-string": (_conversation({**_USE, "input": '{"a": 1}'}), "/messages/1/content/0/input"),
    "tool_use-id-number": (_conversation({**_USE, "id": 5}), "/messages/1/content/0/id"),
    "tool_use-name-number": (_conversation({**_USE, "name": 5}), "/messages/1/content/0/name"),
    "image-source-number": (_conversation({"type": "image", "source": 5}, "user"), "/messages/1/content/0/source"),
}


@pytest.mark.parametrize("body,pointer", NESTED.values(), ids=NESTED.keys())
def test_a_nested_field_of_the_wrong_type_is_a_decode_error(body: dict[str, Any], pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        AnthropicCodec().decode_request(body)
    assert info.value.pointer == pointer
    assert info.value.api == "anthropic"
    assert "the SDK types it anthropic.types." in str(info.value)


def test_a_tool_use_input_list_names_the_field_and_what_it_takes() -> None:
    with pytest.raises(ResponseDecodeError) as info:
        AnthropicCodec().decode_request(_conversation({**_USE, "input": [1]}))
    assert "messages[1].content[0].input [1] is an array, but the API takes an object there" in str(info.value)
    assert "ToolUseBlockParam.input" in str(info.value)


def test_blocks_tools_and_choices_of_types_the_sdk_does_not_list_are_still_kept() -> None:
    """A block, tool or tool_choice of a ``type`` newer than the SDK is not checked (kept whole);
    nor a provider tool (refused when sent if it does not fit: its own check)."""
    from toolwire.errors import UnsupportedToolChoice

    body = {
        **_conversation({"type": "frobnicate_block", "text": 5, "input": []}),
        "tools": [
            {"name": "f", "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}}},
            {"type": "frobnicate_20990101", "name": 5, "input_schema": "x"},
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        ],
        "tool_choice": {"type": "tool", "name": "f", "disable_parallel_tool_use": True},
    }
    req = AnthropicCodec().decode_request(body)
    assert [t.name for t in req.tools] == ["f"]
    assert [s["tool"]["type"] for s in req.settings["server_tools"]] == ["frobnicate_20990101", "web_search_20250305"]
    assert req.messages[-1].parts[0].raw == {"type": "frobnicate_block", "text": 5, "input": []}  # type: ignore[union-attr]
    assert req.tool_choice == {"type": "tool", "name": "f"} and req.parallel_tool_calls is False
    with pytest.raises(UnsupportedToolChoice):
        AnthropicCodec().decode_request({**BASE, "tool_choice": {"type": "frobnicate", "name": 5}})


def test_right_typed_nested_fields_still_import() -> None:
    body = _conversation({**_USE, "input": {"a": [1, {"b": None}]}, "cache_control": {"type": "ephemeral"}})
    body["messages"].append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "ok"}]},
                {"type": "image", "source": {"type": "url", "url": "https://example.org/a.png"}},
            ],
        }
    )
    body["tools"] = [{"name": "f", "description": "d", "input_schema": {"type": "object"}, "strict": True}]
    req = AnthropicCodec().decode_request(body)
    (call,) = req.messages[1].parts
    assert call.arguments == {"a": [1, {"b": None}]} and call.invalid is None  # type: ignore[union-attr]
    assert req.tools[0].name == "f" and req.tools[0].strict is True
