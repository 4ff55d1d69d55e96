"""Findings of the adversarial pass over the public API with bad input (session breaker 8): each
test failed on the code before its fix.

Vendor requests go through the real SDKs over ``httpx2.MockTransport``; the rest runs the
offline ``scripted`` provider (``toolwire.testing``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire import Conversation, Message, TextPart, ToolCall, ToolResult
from toolwire.errors import ConfigurationError

from .all_apis.answers import APIS, text_answer

httpx2 = pytest.importorskip("httpx2")


@toolwire.tool
def echo(text: str) -> str:
    """Say the text back."""
    return text


def _vendor_model(api: str, sent: list[dict[str, Any]]) -> Any:
    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=text_answer(api))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client)


# ----------------------------------------------------------------------------------------------
# 1. conversation= and the messages it holds are checked before anything is sent

HI = Message("user", [TextPart("hi")])
CALL = Message("assistant", [ToolCall("c1", "echo", {"text": "x"})])

BAD_CONVERSATIONS: dict[str, tuple[Any, str]] = {
    "a list of messages": ([HI], "Conversation(messages)"),
    "one message": (HI, "Conversation"),
    "saved JSON text": (Conversation([HI]).to_json(), "Conversation.from_json"),
    "a saved dict": (Conversation([HI]).to_dict(), "Conversation.from_dict"),
    "vendor-format dicts": ([{"role": "user", "content": "hi"}], "Conversation"),
    "a number": (5, "Conversation"),
    "messages None": (Conversation(None), "messages"),  # type: ignore[arg-type]
    "messages text": (Conversation("hello"), "messages"),  # type: ignore[arg-type]
    "a dict message": (Conversation([{"role": "user", "content": "hi"}]), "Message"),  # type: ignore[list-item]
    "a None message": (Conversation([None]), "Message"),  # type: ignore[list-item]
    "instructions not text": (Conversation([HI], 5), "instructions"),  # type: ignore[arg-type]
    "role system": (Conversation([Message("system", [TextPart("be brief")])]), "instructions="),  # type: ignore[arg-type]
    "role tool": (Conversation([HI, CALL, Message("tool", [ToolResult("c1", "x")])]), "'user'"),  # type: ignore[arg-type]
    "parts text": (Conversation([Message("user", "hi")]), "TextPart"),  # type: ignore[arg-type]
    "parts None": (Conversation([Message("user", None)]), "list"),  # type: ignore[arg-type]
    "a str part": (Conversation([Message("user", ["hi"])]), "TextPart"),  # type: ignore[list-item]
    "a dict part": (Conversation([Message("user", [{"type": "text", "text": "hi"}])]), "part_from_dict"),  # type: ignore[list-item]
    "a call in a user message": (Conversation([Message("user", [ToolCall("c1", "echo", {"text": "x"})])]), "assistant"),
    "a result in an assistant message": (Conversation([HI, Message("assistant", [ToolResult("c1", "x")])]), "user"),
    "provider_data None": (Conversation([Message("user", [TextPart("hi")], None)]), "provider_data"),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("case", sorted(BAD_CONVERSATIONS))
@pytest.mark.parametrize("api", ["scripted", *APIS])
def test_a_malformed_conversation_is_a_configuration_error_before_any_request(api: str, case: str) -> None:
    conversation, words = BAD_CONVERSATIONS[case]
    sent: list[dict[str, Any]] = []
    model = toolwire.model("scripted", responses=["done"]) if api == "scripted" else _vendor_model(api, sent)
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(model, conversation=conversation, tools=[echo])
    assert words in str(info.value)
    assert sent == []


@pytest.mark.parametrize(
    ("prompt", "words"),
    [
        (Message("system", [TextPart("be brief")]), "instructions="),  # type: ignore[arg-type]
        (Message("user", None), "list"),  # type: ignore[arg-type]
        (Message("user", ["hi"]), "TextPart"),  # type: ignore[list-item]
        (Message("assistant", [ToolResult("c1", "x")]), "user"),
    ],
)
def test_a_malformed_prompt_message_is_a_configuration_error(prompt: Message, words: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(toolwire.model("scripted", responses=["done"]), prompt, tools=[echo])
    assert words in str(info.value)


@pytest.mark.parametrize("api", APIS)
def test_instructions_that_are_not_text_are_a_configuration_error(api: str) -> None:
    sent: list[dict[str, Any]] = []
    with pytest.raises(ConfigurationError, match="instructions must be text"):
        toolwire.run_sync(_vendor_model(api, sent), "hi", instructions=5)  # type: ignore[arg-type]
    assert sent == []


@pytest.mark.parametrize("api", ["scripted", *APIS])
def test_well_formed_conversations_still_run(api: str) -> None:
    sent: list[dict[str, Any]] = []
    model = toolwire.model("scripted", responses=["done"]) if api == "scripted" else _vendor_model(api, sent)
    history = Conversation(
        [HI, CALL, Message("user", [ToolResult("c1", "x"), TextPart("and now?")])], instructions="Be brief."
    )
    result = toolwire.run_sync(model, conversation=history, tools=[echo])
    assert result.text
    assert len(result.conversation.messages) == 4


# ----------------------------------------------------------------------------------------------
# 2. Gemini generation settings out of the API's ranges are refused before sending, as on the
#    other APIs


@pytest.mark.parametrize(
    ("setting", "field"),
    [
        ({"max_tokens": 0}, "maxOutputTokens"),
        ({"max_tokens": -1}, "maxOutputTokens"),
        ({"max_tokens": "5"}, "maxOutputTokens"),
        ({"max_tokens": 5.5}, "maxOutputTokens"),
        ({"max_tokens": True}, "maxOutputTokens"),
        ({"temperature": "hot"}, "temperature"),
        ({"temperature": -1}, "temperature"),
        ({"temperature": 5}, "temperature"),
        ({"temperature": True}, "temperature"),
        ({"generation_config": {"topP": 1.5}}, "topP"),
        ({"generation_config": {"top_k": -3}}, "top_k"),
    ],
)
def test_gemini_generation_settings_out_of_range_are_refused_before_sending(setting: dict, field: str) -> None:
    sent: list[dict[str, Any]] = []

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=text_answer("gemini"))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    model = toolwire.model("gemini:gemini-2.5-flash", api_key="k", max_retries=0, http_client=client, **setting)
    with pytest.raises(toolwire.errors.RequestRefused) as info:
        toolwire.run_sync(model, "hi")
    assert [v.rule for v in info.value.violations] == ["gemini.request.sampling-range"]
    assert info.value.violations[0].pointer.endswith(f"/{field}")
    assert sent == []


@pytest.mark.parametrize("setting", [{"max_tokens": 1}, {"temperature": 0}, {"temperature": 2.0}, {"temperature": 0.7}])
def test_gemini_generation_settings_in_range_are_sent(setting: dict) -> None:
    sent: list[dict[str, Any]] = []

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=text_answer("gemini"))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    model = toolwire.model("gemini:gemini-2.5-flash", api_key="k", max_retries=0, http_client=client, **setting)
    assert toolwire.run_sync(model, "hi").text == "hello"
    assert len(sent) == 1


# ----------------------------------------------------------------------------------------------
# 3. Client settings of the wrong type are refused when the model is made


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ({"extra_body": 5}, "extra_body"),
        ({"extra_body": [1]}, "extra_body"),
        ({"base_url": 5}, "base_url"),
        ({"timeout": "x"}, "timeout"),
        ({"timeout": -1}, "timeout"),
        ({"timeout": True}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"max_retries": "3"}, "max_retries"),
        ({"retry": 5}, "retry"),
    ],
)
@pytest.mark.parametrize("api", [*APIS, "test"])
def test_client_settings_of_the_wrong_type_are_refused_when_the_model_is_made(
    api: str, setting: dict, words: str
) -> None:
    sent: list[Any] = []

    def respond(request: Any) -> Any:
        sent.append(request)
        return httpx2.Response(500, json={"error": {"message": "boom"}})

    with pytest.raises(ConfigurationError) as info:
        if api == "test":
            toolwire.model("test", **setting)
        else:
            client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
            toolwire.model(f"{api}:m-1", api_key="k", http_client=client, **setting)
    assert words in str(info.value)
    assert sent == []


def test_a_model_variant_and_a_model_mapping_check_their_settings_too() -> None:
    base = toolwire.model("openai:gpt-5", api_key="k")
    with pytest.raises(ConfigurationError, match="extra_body"):
        toolwire.model(base, extra_body="x")
    with pytest.raises(ConfigurationError, match="'settings' must be a table"):
        toolwire.model({"model": "openai:gpt-5", "settings": 5})


def test_client_settings_of_the_right_type_are_taken() -> None:
    model = toolwire.model(
        "openai:gpt-5", api_key="k", base_url="http://localhost:1/v1", timeout=2.5, max_retries=0, extra_body={"a": 1}
    )
    assert model.settings["timeout"] == 2.5


# ----------------------------------------------------------------------------------------------
# 4. The scripted provider says what is wrong with an item instead of crashing (or dropping it)


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


@toolwire.tool
def take(data: dict) -> str:
    """Take an object."""
    return "ok"


@pytest.mark.parametrize(
    ("item", "words"),
    [
        ({"text": 5}, "'text' must be text"),
        ({"usage": [1]}, "'usage' must be a dict"),
        ({"txt": "hello"}, "unknown keys ['txt']"),
        ({"tool_calls": "echo"}, "'tool_calls' must be a list"),
        ({"tool_calls": [{"arguments": {}}]}, "needs 'name'"),
        ({"tool_calls": ["echo"]}, "must be a ToolCall or a dict"),
        # a stop reason toolwire does not know gave a state that could not be loaded again
        ({"text": "x", "stop_reason": "length"}, "'stop_reason' must be one of end_turn, tool_use, max_tokens"),
    ],
)
def test_a_malformed_scripted_item_is_a_configuration_error(item: Any, words: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(toolwire.model("scripted", responses=[item, "done"]), "hi", tools=[echo])
    assert words in str(info.value)


@pytest.mark.parametrize("as_response", [False, True])
def test_a_scripted_call_with_arguments_thousands_of_levels_deep_is_answered_as_an_error(as_response: bool) -> None:
    from toolwire.testing import call
    from toolwire.types import Response, Usage

    tool_call = call("take", {"data": _deep(5000)})
    item: Any = (
        Response([tool_call], "tool_use", "tool_use", Usage(requests=1), "scripted", "r1", "scripted")
        if as_response
        else [tool_call]
    )
    result = toolwire.run_sync(toolwire.model("scripted", responses=[item, "done"]), "hi", tools=[take])
    assert result.text == "done"
    assert result.tool_runs[0].result.is_error
    assert "MAX_ARGUMENT_DEPTH" in str(result.tool_runs[0].result.content)


@pytest.mark.parametrize("name", ["parallel_tool_calls", "stream"])
@pytest.mark.parametrize("value", ["no", "false", 0, 1, [False]])
def test_boolean_settings_that_are_not_booleans_are_refused_when_the_model_is_made(name, value):
    from toolwire.errors import ConfigurationError

    for spec in ("anthropic:claude-sonnet-4-5", "openai-chat:gpt-4.1", "openai:gpt-5", "gemini:gemini-2.5-flash"):
        with pytest.raises(ConfigurationError, match=f"{name} for .* must be True or False"):
            toolwire.model(spec, api_key="k", **{name: value})
    assert toolwire.model("openai-chat:gpt-4.1", api_key="k", **{name: False}) is not None


@pytest.mark.parametrize("name", ["", 5])
def test_an_empty_or_non_text_tool_name_is_refused(name):
    from toolwire.errors import ToolDefinitionError

    def lookup(q: str) -> str:
        """Look up."""
        return q

    with pytest.raises(ToolDefinitionError, match="name must be non-empty text"):
        toolwire.tool(lookup, name=name)
