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


# Nested fields of an imported body, each of a JSON kind the SDK's param types do not allow there
# (openai.types.chat.*Param, openai.types.responses.*Param, walked by
# toolwire.profile.nested_kind_problems). Before, such a value was turned into something else (a
# tool message's ``content: 5`` became the text "5", ``tool_call_id: 5`` the id 5, a user
# message's ``content: 5`` an empty message, ``arguments: null`` the arguments {}), dropped (a
# content entry that is not an object), carried along for the API to refuse (a ``tool_choice``
# naming the function 5, ``text.format: 5``), or failed without saying where (``tool_calls: 5``).
_ASK = {"role": "assistant", "content": None, "tool_calls": [_CALL]}
CHAT_NESTED_WRONG = {
    "assistant-tool_calls-number": ([{"role": "assistant", "tool_calls": 5}], "/messages/1/tool_calls"),
    "assistant-tool_calls-object": ([{"role": "assistant", "tool_calls": _CALL}], "/messages/1/tool_calls"),
    "assistant-content-number": ([{"role": "assistant", "content": 5}], "/messages/1/content"),
    "assistant-refusal-number": ([{"role": "assistant", "content": "x", "refusal": 5}], "/messages/1/refusal"),
    "assistant-function-number": (
        [{"role": "assistant", "tool_calls": [{**_CALL, "function": 5}]}, _RESULT],
        "/messages/1/tool_calls/0/function",
    ),
    "assistant-arguments-null": (
        [{"role": "assistant", "tool_calls": [{**_CALL, "function": {"name": "f", "arguments": None}}]}, _RESULT],
        "/messages/1/tool_calls/0/function/arguments",
    ),
    "user-content-number": ([{"role": "user", "content": 5}], "/messages/1/content"),
    "user-content-object": ([{"role": "user", "content": {"type": "text", "text": "x"}}], "/messages/1/content"),
    "user-content-entry-number": ([{"role": "user", "content": [5]}], "/messages/1/content/0"),
    "user-text-number": ([{"role": "user", "content": [{"type": "text", "text": 5}]}], "/messages/1/content/0/text"),
    "user-image_url-number": (
        [{"role": "user", "content": [{"type": "image_url", "image_url": 5}]}],
        "/messages/1/content/0/image_url",
    ),
    "user-image-url-number": (
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": 5}}]}],
        "/messages/1/content/0/image_url/url",
    ),
    "user-name-number": ([{"role": "user", "content": "x", "name": 5}], "/messages/1/name"),
    "system-content-number": ([{"role": "system", "content": 5}], "/messages/1/content"),
    "tool-content-number": ([_ASK, {**_RESULT, "content": 5}], "/messages/2/content"),
    "tool-content-null": ([_ASK, {**_RESULT, "content": None}], "/messages/2/content"),
    "tool-content-entry-number": ([_ASK, {**_RESULT, "content": [5]}], "/messages/2/content/0"),
    "tool-text-number": ([_ASK, {**_RESULT, "content": [{"type": "text", "text": 5}]}], "/messages/2/content/0/text"),
    "tool-tool_call_id-number": ([_ASK, {**_RESULT, "tool_call_id": 5}], "/messages/2/tool_call_id"),
}


@pytest.mark.parametrize("tail,pointer", CHAT_NESTED_WRONG.values(), ids=CHAT_NESTED_WRONG.keys())
def test_a_chat_message_field_of_the_wrong_kind_is_a_decode_error(tail: list[Any], pointer: str) -> None:
    body = {**CHAT, "messages": [*CHAT["messages"], *tail]}
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIChatCodec().decode_request(body)
    assert info.value.pointer == pointer
    assert pointer in str(info.value) and "but the API takes" in str(info.value)


def test_a_chat_error_says_the_kind_expected_and_the_sdk_type() -> None:
    body = {**CHAT, "messages": [*CHAT["messages"], _ASK, {**_RESULT, "content": 5}]}
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIChatCodec().decode_request(body)
    assert "messages[2].content 5 is an integer, but the API takes a string or an array there" in str(info.value)
    assert "ChatCompletionToolMessageParam.content" in str(info.value)


def test_a_chat_first_system_message_of_the_wrong_kind_is_a_decode_error() -> None:
    body = {**CHAT, "messages": [{"role": "system", "content": 5}, *CHAT["messages"]]}
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIChatCodec().decode_request(body)
    assert info.value.pointer == "/messages/0/content"


CHAT_SETTINGS_WRONG = {
    "tool_choice-name-number": (
        {"type": "function", "function": {"name": 5}},
        "tool_choice",
        "/tool_choice/function/name",
    ),
    "tool_choice-function-text": ({"type": "function", "function": "f"}, "tool_choice", "/tool_choice/function"),
    "response_format-json_schema-number": (
        {"type": "json_schema", "json_schema": 5},
        "response_format",
        "/response_format/json_schema",
    ),
    # a tag of the wrong kind (a ``type`` every member of the SDK's union types as a string
    # literal) fits no member: refused at the tag (an entry of a list with one is left out)
    "tool_choice-type-number": ({"type": 5}, "tool_choice", "/tool_choice/type"),
    "response_format-type-number": ({"type": 5}, "response_format", "/response_format/type"),
}


@pytest.mark.parametrize("value,field,pointer", CHAT_SETTINGS_WRONG.values(), ids=CHAT_SETTINGS_WRONG.keys())
def test_a_chat_setting_with_a_nested_field_of_the_wrong_kind_is_a_decode_error(
    value: Any, field: str, pointer: str
) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIChatCodec().decode_request({**CHAT, field: value})
    assert info.value.pointer == pointer


def test_chat_messages_of_the_right_kinds_still_import() -> None:
    body = {
        **CHAT,
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "be brief"}]},
            {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "input_audio_v9", "x": 5}]},
            # a compatible server's own field (not in the SDK) and a null optional field
            {**_ASK, "reasoning_content": "thinking", "refusal": None, "name": "bot"},
            {**_RESULT, "content": [{"type": "text", "text": "ok"}]},
        ],
        "tool_choice": {"type": "function", "function": {"name": "f"}},
    }
    request = OpenAIChatCodec().decode_request(body)
    assert [m.role for m in request.messages] == ["user", "user", "assistant", "user"]
    assert request.tool_choice is not None
    (result,) = request.messages[3].parts
    assert result.tool_call_id == "call_1"  # type: ignore[union-attr]


_RA = {**_FC, "arguments": None}
RESP_NESTED_WRONG = {
    "call-arguments-null": ([_RA, _FCO], "/input/1/arguments"),
    "output-null": ([_FC, {**_FCO, "output": None}], "/input/2/output"),
    "output-number": ([_FC, {**_FCO, "output": 5}], "/input/2/output"),
    "output-object": ([_FC, {**_FCO, "output": {"type": "input_text", "text": "x"}}], "/input/2/output"),
    "output-entry-number": ([_FC, {**_FCO, "output": [5]}], "/input/2/output/0"),
    "output-text-number": ([_FC, {**_FCO, "output": [{"type": "input_text", "text": 5}]}], "/input/2/output/0/text"),
    "user-content-number": ([{"role": "user", "content": 5}], "/input/1/content"),
    "user-content-object": ([{"role": "user", "content": {"type": "input_text", "text": "x"}}], "/input/1/content"),
    "user-content-entry-number": ([{"role": "user", "content": [5]}], "/input/1/content/0"),
    "user-text-number": ([{"role": "user", "content": [{"type": "input_text", "text": 5}]}], "/input/1/content/0/text"),
    "assistant-content-number": ([{"role": "assistant", "content": 5}], "/input/1/content"),
    "assistant-output_text-number": (
        [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": 5}]}],
        "/input/1/content/0/text",
    ),
    "reasoning-summary-number": ([{"type": "reasoning", "id": "rs_1", "summary": 5}], "/input/1/summary"),
    # EasyInputMessageParam / ResponseInputItemParam.Message: role is a Literal string; one of
    # another kind was read as a user message that kept it (sent back as role 5)
    "message-role-number": ([{"role": 5, "content": "x"}], "/input/1/role"),
    "message-role-array": ([{"type": "message", "role": ["user"], "content": "x"}], "/input/1/role"),
    "message-role-object": ([{"role": {"a": 1}, "content": "x"}], "/input/1/role"),
    "message-role-empty": ([{"type": "message", "role": "", "content": "x"}], "/input/1/role"),
    "message-role-boolean": (
        [{"type": "message", "role": True, "content": [{"type": "input_text", "text": "x"}]}],
        "/input/1/role",
    ),
}


@pytest.mark.parametrize("items,pointer", RESP_NESTED_WRONG.values(), ids=RESP_NESTED_WRONG.keys())
def test_a_responses_item_field_of_the_wrong_kind_is_a_decode_error(items: list[Any], pointer: str) -> None:
    body = {**RESP, "input": [{"role": "user", "content": "hi"}, *items]}
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIResponsesCodec().decode_request(body)
    assert info.value.pointer == pointer
    assert pointer in str(info.value)


def test_a_responses_error_says_the_kind_expected_and_the_sdk_type() -> None:
    body = {**RESP, "input": [{"role": "user", "content": "hi"}, _FC, {**_FCO, "output": None}]}
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIResponsesCodec().decode_request(body)
    assert "input[2].output is null, but the API takes a string or an array there" in str(info.value)
    assert "FunctionCallOutput.output" in str(info.value)


RESP_SETTINGS_WRONG = {
    "text-format-number": ("text", {"format": 5}, "/text/format"),
    "tool_choice-name-number": ("tool_choice", {"type": "function", "name": 5}, "/tool_choice/name"),
    "text-format-type-number": ("text", {"format": {"type": 5}}, "/text/format/type"),
    "tool_choice-type-number": ("tool_choice", {"type": 5}, "/tool_choice/type"),
}


@pytest.mark.parametrize("field,value,pointer", RESP_SETTINGS_WRONG.values(), ids=RESP_SETTINGS_WRONG.keys())
def test_a_responses_setting_with_a_nested_field_of_the_wrong_kind_is_a_decode_error(
    field: str, value: Any, pointer: str
) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        OpenAIResponsesCodec().decode_request({**RESP, field: value})
    assert info.value.pointer == pointer


def test_responses_items_of_the_right_kinds_still_import() -> None:
    # FunctionCallOutput.output is text or a list of parts; ``status: null`` on a function_call is
    # what pydantic-ai sends and the API takes (recording pai_simple_response_with_tool_call); an
    # object as arguments is the call's arguments; other kinds make the call invalid (as on Chat)
    body = {
        **RESP,
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {**_FC, "status": None, "arguments": {"a": 1}},
            {**_FCO, "output": [{"type": "input_text", "text": "ok"}]},
            {**_FC, "call_id": "call_2", "arguments": 5},
            {**_FCO, "call_id": "call_2"},
        ],
        "text": {"format": {"type": "text"}},
        "tool_choice": {"type": "function", "name": "f"},
    }
    request = OpenAIResponsesCodec().decode_request(body)
    first, second = request.messages[1].tool_calls + request.messages[3].tool_calls
    assert first.arguments == {"a": 1} and first.invalid is None
    assert second.invalid is not None and "number" in second.invalid
    (result,) = request.messages[2].parts
    assert [p.text for p in result.content] == ["ok"]  # type: ignore[union-attr]


# A message without a role is read as a user message (both importers), so it is checked as one:
# ChatCompletionUserMessageParam / EasyInputMessageParam (openai SDK). Its ``content: 5`` became an
# empty user message (the 5 kept only to be sent back).
ROLELESS_WRONG = {
    "chat-content-number": (OpenAIChatCodec(), "messages", {"content": 5}, "/messages/1/content"),
    "chat-entry-number": (OpenAIChatCodec(), "messages", {"content": [5]}, "/messages/1/content/0"),
    "chat-text-number": (
        OpenAIChatCodec(),
        "messages",
        {"content": [{"type": "text", "text": 5}]},
        "/messages/1/content/0/text",
    ),
    "responses-content-number": (OpenAIResponsesCodec(), "input", {"content": 5}, "/input/1/content"),
    "responses-message-content-object": (
        OpenAIResponsesCodec(),
        "input",
        {"type": "message", "content": {}},
        "/input/1/content",
    ),
    "responses-text-number": (
        OpenAIResponsesCodec(),
        "input",
        {"content": [{"type": "input_text", "text": 5}]},
        "/input/1/content/0/text",
    ),
}


@pytest.mark.parametrize("codec,key,entry,pointer", ROLELESS_WRONG.values(), ids=ROLELESS_WRONG.keys())
def test_a_message_without_a_role_is_checked_as_a_user_message(
    codec: Any, key: str, entry: dict[str, Any], pointer: str
) -> None:
    body = {**(CHAT if key == "messages" else RESP), key: [{"role": "user", "content": "hi"}, entry]}
    with pytest.raises(ResponseDecodeError) as info:
        codec.decode_request(body)
    assert info.value.pointer == pointer


def test_a_message_without_a_role_of_the_right_kinds_still_imports() -> None:
    chat = OpenAIChatCodec().decode_request({**CHAT, "messages": [{"content": "hi"}]})
    resp = OpenAIResponsesCodec().decode_request(
        {**RESP, "input": [{"content": [{"type": "input_text", "text": "hi"}]}]}
    )
    assert [m.role for m in chat.messages + resp.messages] == ["user", "user"]


def test_importing_many_function_calls_takes_work_in_proportion() -> None:
    """Each function_call item counted every call before it (for the id of one without a
    call_id), so importing n calls took n² steps: 20,000 took 5 s. Ten times the calls now take
    about ten times the work: counted (every Python and C function call the import makes, through
    ``sys.setprofile``), not timed, so the test does not depend on the machine."""
    import sys

    def work(body: dict[str, Any]) -> tuple[int, Any]:
        count = 0

        def profile(frame: Any, event: str, arg: Any) -> None:
            nonlocal count
            if event in ("call", "c_call"):
                count += 1

        sys.setprofile(profile)
        try:
            request = OpenAIResponsesCodec().decode_request(body)
        finally:
            sys.setprofile(None)
        return count, request

    def with_ids(n: int) -> dict[str, Any]:
        items = [
            entry
            for i in range(n)
            for entry in (
                {"type": "function_call", "call_id": f"call_{i}", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": f"call_{i}", "output": "ok"},
            )
        ]
        return {**RESP, "input": [{"role": "user", "content": "hi"}, *items]}

    def without_ids(n: int) -> dict[str, Any]:  # each call's id is made up from the calls before it
        return {**RESP, "input": [{"type": "function_call", "name": "f", "arguments": "{}"}] * n}

    for build in (with_ids, without_ids):
        small, request = work(build(300))
        assert sum(len(m.tool_calls) for m in request.messages) == 300
        large, request = work(build(3_000))
        calls = [c for m in request.messages for c in m.tool_calls]
        assert len(calls) == 3_000 and len({c.id for c in calls}) == 3_000
        assert large < 12 * small, (build.__name__, small, large)  # n²: about 100 times
