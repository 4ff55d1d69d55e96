"""A request body imported with ``decode_request`` whose ``tools`` hold an entry of the wrong JSON
shape — not an array, an entry that is not an object, a tool without a ``type`` (or one that is
not text), an Anthropic server tool without the name its type fixes, an OpenAI Chat function tool
whose ``function`` is not an object, a Gemini ``functionDeclarations`` that is not a list of
objects with a name — raises a typed error saying where, on each API. Before, Anthropic, Chat and
Responses kept such an entry verbatim and sent it for the API to refuse (a ``tools`` string was
even sent as a list of its characters), and Gemini left it out without a word. Tool types toolwire
does not know are still kept and sent (a newer API's tools). Through the real adapters and SDKs,
only the network replaced."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire.errors import ConfigurationError, ResponseDecodeError, ToolNameError

from .answers import mock_model, text_answer


def _body(api: str, tools: Any) -> dict[str, Any]:
    if api == "anthropic":
        return {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": tools,
        }
    if api == "openai-chat":
        return {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
    if api == "openai":
        return {"model": "gpt-5", "input": "hi", "tools": tools}
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": tools}


# (api, tools, error type, the start of its message); refused when the request is sent
SEND_REFUSED = {
    "anthropic-number": (
        "anthropic",
        [5],
        "the anthropic tool at /tools/0 of the imported request is a JSON number, not an object",
    ),
    "anthropic-type-number": (
        "anthropic",
        [{"type": 5, "name": "x"}],
        "the anthropic tool at /tools/0 of the imported request has the type 5 (a tool of your own needs a "
        "name and an input_schema)",
    ),
    "anthropic-custom-without-schema": (
        "anthropic",
        [{"name": "lookup", "description": "Look it up."}],
        "the anthropic tool at /tools/0 of the imported request has no type (a tool of your own needs a name "
        "and an input_schema)",
    ),
    "anthropic-server-tool-without-name": (
        "anthropic",
        [{"type": "bash_20250124"}],
        "the anthropic provider tool 'bash_20250124' at /tools/0 of the imported request has no name; the API "
        "takes it only as name 'bash'",
    ),
    "anthropic-server-tool-misnamed": (
        "anthropic",
        [{"type": "web_search_20250305", "name": "search"}],
        "the anthropic provider tool 'web_search_20250305' at /tools/0 of the imported request is named "
        "\"search\"; the API takes it only as name 'web_search'",
    ),
    "openai-number": (
        "openai",
        [{"type": "web_search"}, 5],
        "the openai tool at /tools/1 of the imported request is a JSON number, not an object",
    ),
    "openai-no-type": ("openai", [{}], "the openai tool at /tools/0 of the imported request has no type"),
    "openai-empty-type": (
        "openai",
        [{"type": ""}],
        'the openai tool at /tools/0 of the imported request has the type ""',
    ),
    "openai-chat-number": (
        "openai-chat",
        [None],
        "the openai-chat tool at /tools/0 of the imported request is a JSON null, not an object",
    ),
    "openai-chat-no-type": (
        "openai-chat",
        [{"custom": {"name": "c"}, "type": 7}],
        "the openai-chat tool at /tools/0 of the imported request has the type 7",
    ),
    "openai-chat-function-not-object": (
        "openai-chat",
        [{"type": "function", "function": "lookup"}],
        "the openai-chat function tool at /tools/0 of the imported request has a function that is not an object",
    ),
}


@pytest.mark.parametrize("case", sorted(SEND_REFUSED))
def test_a_malformed_imported_tool_is_refused_before_sending(case: str) -> None:
    api, tools, message = SEND_REFUSED[case]
    sent: list[dict[str, Any]] = []
    model = mock_model(api, [text_answer(api)], sent)
    request = model.codec.decode_request(_body(api, tools))
    with pytest.raises(ConfigurationError) as caught:
        asyncio.run(model.send(request))
    assert str(caught.value).startswith(message), str(caught.value)
    assert "Correct" in str(caught.value)
    assert sent == []


DECODE_REFUSED = {
    "anthropic-tools-text": ("anthropic", "abc", ResponseDecodeError, "/tools must be an array, got a JSON string"),
    "gemini-tools-text": ("gemini", "abc", ResponseDecodeError, "/tools must be an array, got a JSON string"),
    "gemini-entry-number": ("gemini", [5], ResponseDecodeError, "/tools/0 must be an object, got a JSON number"),
    # (one object is read as a one-item list: proto3 JSON, which the Gemini API reads, takes one
    # value for a repeated field)
    "gemini-declarations-text": (
        "gemini",
        [{"functionDeclarations": "f"}],
        ResponseDecodeError,
        "/tools/0/functionDeclarations must be an array, got a JSON string",
    ),
    "gemini-declaration-text": (
        "gemini",
        [{"functionDeclarations": ["lookup"]}],
        ResponseDecodeError,
        "/tools/0/functionDeclarations/0 must be an object, got a JSON string",
    ),
    # (google.genai.types.FunctionDeclaration.name: Optional[str]; was a ToolNameError not naming
    # the field's place)
    "gemini-name-number": (
        "gemini",
        [{"functionDeclarations": [{"name": 5}]}],
        ResponseDecodeError,
        "malformed body at /tools/0/functionDeclarations/0/name",
    ),
    "gemini-no-name": (
        "gemini",
        [{"functionDeclarations": [{"description": "Look it up."}]}],
        ToolNameError,
        "a tool name is a string, got NoneType",
    ),
}


@pytest.mark.parametrize("case", sorted(DECODE_REFUSED))
def test_a_malformed_tools_list_is_refused_when_imported(case: str) -> None:
    api, tools, error, message = DECODE_REFUSED[case]
    sent: list[dict[str, Any]] = []
    model = mock_model(api, [], sent)
    with pytest.raises(error) as caught:
        model.codec.decode_request(_body(api, tools))
    assert message in str(caught.value)


KEPT = {
    # tool types newer than the installed SDK: kept and sent as they came
    "anthropic": [{"type": "frobnicate_20990101", "name": "frobnicate", "level": 3}],
    "openai": [{"type": "frobnicate", "level": 3}],
    "openai-chat": [{"type": "custom", "custom": {"name": "notes", "description": "Free text."}}],
}


@pytest.mark.parametrize("api", sorted(KEPT))
def test_a_well_formed_tool_of_an_unknown_type_is_still_sent(api: str) -> None:
    sent: list[dict[str, Any]] = []
    model = mock_model(api, [text_answer(api)], sent)
    asyncio.run(model.send(model.codec.decode_request(_body(api, KEPT[api]))))
    assert sent[0]["tools"] == KEPT[api]
