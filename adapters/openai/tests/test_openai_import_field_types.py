"""An imported Chat Completions or Responses request body (``decode_request``) whose top-level
fields have the wrong JSON type raises a typed error naming the field (its JSON pointer).

The kinds come from the SDK's request types (``CompletionCreateParamsBase``,
``ResponseCreateParamsBase``): ``metadata: Optional[Metadata]`` is an object,
``max_completion_tokens: Optional[int]`` an integer, ``tool_choice`` text or an object, ... A
value of another kind was dropped (``tool_choice: 5`` on Responses, ``parameters: 5`` of a
function tool, which became an empty schema, a ``messages`` / ``input`` entry that is not an
object) or carried along for the API to refuse; a tool whose name or description had the wrong
type raised an error that did not say where.
"""

from __future__ import annotations

from typing import Any

import pytest
from toolwire_openai.chat import OpenAIChatCodec
from toolwire_openai.responses import OpenAIResponsesCodec

from toolwire.errors import ResponseDecodeError, ToolDefinitionError

CHAT: dict[str, Any] = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
RESP: dict[str, Any] = {"model": "gpt-4.1", "input": "hi"}

CHAT_WRONG = {
    "tool_choice-number": ("tool_choice", 5, "/tool_choice"),
    "response_format-string": ("response_format", "json", "/response_format"),
    "parallel_tool_calls-string": ("parallel_tool_calls", "yes", "/parallel_tool_calls"),
    "max_completion_tokens-string": ("max_completion_tokens", "100", "/max_completion_tokens"),
    "temperature-string": ("temperature", "hot", "/temperature"),
    "stream-string": ("stream", "yes", "/stream"),
    "model-number": ("model", 5, "/model"),
    "reasoning_effort-number": ("reasoning_effort", 5, "/reasoning_effort"),
    "metadata-string": ("metadata", "u1", "/metadata"),
    "stop-number": ("stop", 5, "/stop"),
    "messages-entry-number": ("messages", [{"role": "user", "content": "hi"}, 5], "/messages/1"),
    "tool-parameters-number": (
        "tools",
        [{"type": "function", "function": {"name": "f", "parameters": 5}}],
        "/tools/0/function/parameters",
    ),
    "tool-description-number": (
        "tools",
        [{"type": "function", "function": {"name": "f", "description": 5}}],
        "/tools/0/function/description",
    ),
}

RESP_WRONG = {
    "tool_choice-number": ("tool_choice", 5, "/tool_choice"),
    "text-string": ("text", "json", "/text"),
    "reasoning-string": ("reasoning", "high", "/reasoning"),
    "reasoning-effort-number": ("reasoning", {"effort": 5}, "/reasoning/effort"),
    "parallel_tool_calls-string": ("parallel_tool_calls", "yes", "/parallel_tool_calls"),
    "max_output_tokens-string": ("max_output_tokens", "100", "/max_output_tokens"),
    "temperature-string": ("temperature", "hot", "/temperature"),
    "stream-string": ("stream", "yes", "/stream"),
    "model-number": ("model", 5, "/model"),
    "include-string": ("include", "reasoning.encrypted_content", "/include"),
    "previous_response_id-number": ("previous_response_id", 5, "/previous_response_id"),
    "input-entry-number": ("input", [{"role": "user", "content": "hi"}, 5], "/input/1"),
    "tool-parameters-number": ("tools", [{"type": "function", "name": "f", "parameters": 5}], "/tools/0/parameters"),
    "tool-description-number": ("tools", [{"type": "function", "name": "f", "description": 5}], "/tools/0/description"),
}


@pytest.mark.parametrize("field,value,pointer", CHAT_WRONG.values(), ids=CHAT_WRONG.keys())
def test_chat_top_level_field_of_the_wrong_type_is_a_decode_error(field: str, value: Any, pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIChatCodec().decode_request({**CHAT, field: value})
    assert info.value.pointer == pointer


@pytest.mark.parametrize("field,value,pointer", RESP_WRONG.values(), ids=RESP_WRONG.keys())
def test_responses_top_level_field_of_the_wrong_type_is_a_decode_error(field: str, value: Any, pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIResponsesCodec().decode_request({**RESP, field: value})
    assert info.value.pointer == pointer


@pytest.mark.parametrize(
    "codec,body,where",
    [
        (
            OpenAIChatCodec(),
            {**CHAT, "tools": [{"type": "function", "function": {"name": 5}}]},
            "/tools/0/function/name",
        ),
        (
            OpenAIChatCodec(),
            {**CHAT, "tools": [{"type": "function", "function": {"name": "a b"}}]},
            "/tools/0/function/name",
        ),
        (OpenAIResponsesCodec(), {**RESP, "tools": [{"type": "function", "name": 5}]}, "/tools/0/name"),
        (OpenAIResponsesCodec(), {**RESP, "tools": [{"type": "function", "name": "a b"}]}, "/tools/0/name"),
    ],
    ids=["chat-number", "chat-space", "responses-number", "responses-space"],
)
def test_a_tool_name_error_names_its_place(codec: Any, body: dict[str, Any], where: str) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        codec.decode_request(body)
    assert where in str(info.value)


def test_the_right_types_still_import() -> None:
    chat = OpenAIChatCodec().decode_request(
        {
            **CHAT,
            "tool_choice": "auto",
            "response_format": {"type": "json_object"},
            "max_completion_tokens": 100,
            "temperature": 1,
            "metadata": {"k": "v"},
            "reasoning_effort": "max",  # (a value a compatible server may take: only the kind is checked)
            "stop": ["END"],
            "tools": [
                {"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}
            ],
        }
    )
    assert chat.tool_choice == "auto" and chat.max_tokens == 100 and chat.settings["metadata"] == {"k": "v"}
    assert [t.name for t in chat.tools] == ["f"]
    resp = OpenAIResponsesCodec().decode_request(
        {**RESP, "tool_choice": "required", "text": {"format": {"type": "text"}}, "reasoning": {"effort": "low"}}
    )
    assert resp.tool_choice == "required" and resp.thinking == {"effort": "low"}


# A Chat assistant message's tool calls: ChatCompletionMessageFunctionToolCallParam (openai SDK)
# types ``id`` and ``function.name`` as text. A call entry that was not an object was left out,
# an ``id`` of 1 became "" and a ``name`` of 5 became the tool name "5".
_CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
_RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "ok"}
ASSISTANT_CALLS_WRONG = {
    "entry-number": ([5], "/messages/1/tool_calls/0"),
    "id-number": ([{**_CALL, "id": 1}], "/messages/1/tool_calls/0/id"),
    "name-number": ([{**_CALL, "function": {"name": 5, "arguments": "{}"}}], "/messages/1/tool_calls/0/function/name"),
    "second-name-object": (
        [_CALL, {**_CALL, "id": "call_2", "function": {"name": {}, "arguments": "{}"}}],
        "/messages/1/tool_calls/1/function/name",
    ),
}


@pytest.mark.parametrize("calls,pointer", ASSISTANT_CALLS_WRONG.values(), ids=ASSISTANT_CALLS_WRONG.keys())
def test_a_chat_tool_call_with_a_wrong_typed_id_or_name_is_a_decode_error(calls: list[Any], pointer: str) -> None:
    body = {
        **CHAT,
        "messages": [*CHAT["messages"], {"role": "assistant", "content": None, "tool_calls": calls}, _RESULT],
    }
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIChatCodec().decode_request(body)
    assert info.value.pointer == pointer


def test_a_chat_tool_call_with_text_id_and_name_still_imports() -> None:
    body = {
        **CHAT,
        "messages": [*CHAT["messages"], {"role": "assistant", "content": None, "tool_calls": [_CALL]}, _RESULT],
    }
    request = OpenAIChatCodec().decode_request(body)
    (call,) = request.messages[1].tool_calls
    assert (call.id, call.name, call.arguments) == ("call_1", "f", {})


# Responses ``function_call`` / ``function_call_output`` items: ResponseFunctionToolCallParam and
# FunctionCallOutput (openai SDK) type ``call_id`` and ``name`` as text.
_FC = {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}
_FCO = {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
RESP_ITEMS_WRONG = {
    "call-call_id-number": ([{**_FC, "call_id": 5}, {**_FCO}], "/input/1/call_id"),
    "call-name-number": ([{**_FC, "name": 5}, _FCO], "/input/1/name"),
    "output-call_id-list": ([_FC, {**_FCO, "call_id": ["call_1"]}], "/input/2/call_id"),
}


@pytest.mark.parametrize("items,pointer", RESP_ITEMS_WRONG.values(), ids=RESP_ITEMS_WRONG.keys())
def test_a_responses_call_item_with_a_wrong_typed_id_or_name_is_a_decode_error(items: list[Any], pointer: str) -> None:
    body = {**RESP, "input": [{"role": "user", "content": "hi"}, *items]}
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIResponsesCodec().decode_request(body)
    assert info.value.pointer == pointer


def test_a_responses_call_item_with_text_fields_still_imports() -> None:
    body = {**RESP, "input": [{"role": "user", "content": "hi"}, _FC, _FCO]}
    request = OpenAIResponsesCodec().decode_request(body)
    (call,) = request.messages[1].tool_calls
    assert (call.id, call.name) == ("call_1", "f")
