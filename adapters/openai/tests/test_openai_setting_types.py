"""A request-field setting whose value is not of the JSON type the installed SDK's request type
gives that field (``CompletionCreateParamsBase`` for Chat, ``ResponseCreateParamsBase`` for
Responses) is a ConfigurationError when the model is made (rule ``request.field-values``), naming
the type to give and the SDK field: OpenAI answers it with a 400 ("Invalid type for 'user':
expected a string, but got an integer instead.") on every request. Through the real SDK over
``httpx2.MockTransport``: a refused setting sends nothing, a right-typed one (an integer where a
number is typed, null where the field is optional) is sent as given; ``extra_body`` and a
compatible server's settings are not checked."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire.errors import ConfigurationError

_CHAT = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-5",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}
_RESPONSES = {
    "id": "resp_1",
    "object": "response",
    "created_at": 0,
    "model": "gpt-5",
    "status": "completed",
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "hi", "annotations": []}],
        }
    ],
    "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
}


def _attempt(spec: str, settings: dict[str, Any]) -> tuple[ConfigurationError | None, list[dict[str, Any]]]:
    """Make the model with ``settings`` and run one turn; the refusal (if any) and the bodies sent."""
    sent: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=_CHAT if spec.startswith("openai-chat:") else _RESPONSES)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    try:
        model = toolwire.model(spec, api_key="k", http_client=client, **settings)
        assert toolwire.run_sync(model, "hello").text == "hi"
    except ConfigurationError as exc:
        return exc, sent
    return None, sent


@pytest.mark.parametrize(
    ("spec", "settings", "named"),
    [
        # scalars: CompletionCreateParamsBase.user is str, .store Optional[bool], .top_logprobs Optional[int]
        ("openai-chat:gpt-5", {"user": 5}, ["user 5 is an integer", "a string", "CompletionCreateParamsBase.user"]),
        ("openai-chat:gpt-5", {"store": "yes"}, ["store 'yes' is a string", "true or false or null"]),
        ("openai-chat:gpt-5", {"top_logprobs": True}, ["top_logprobs True is a boolean", "an integer or null"]),
        # inside objects: ChatCompletionStreamOptionsParam.include_usage bool, JSONSchema.name str
        (
            "openai-chat:gpt-5",
            {"stream_options": {"include_usage": "yes"}},
            ["stream_options.include_usage 'yes' is a string", "ChatCompletionStreamOptionsParam.include_usage"],
        ),
        (
            "openai-chat:gpt-5",
            {"response_format": {"type": "json_schema", "json_schema": {"name": 5, "schema": {}}}},
            ["response_format.json_schema.name 5 is an integer", "a string", "JSONSchema.name"],
        ),
        ("openai-chat:gpt-5", {"metadata": {"run": 7}}, ["metadata.run 7 is an integer", "a string"]),
        # Responses: ResponseCreateParamsBase.safety_identifier Optional[str], .max_tool_calls Optional[int]
        ("openai:gpt-5", {"safety_identifier": 5}, ["safety_identifier 5 is an integer", "a string or null"]),
        ("openai:gpt-5", {"max_tool_calls": "3"}, ["max_tool_calls '3' is a string", "an integer or null"]),
        (
            "openai:gpt-5",
            {"text": {"format": {"type": "json_schema", "name": 5, "schema": {}}}},
            ["text.format.name 5 is an integer", "ResponseFormatTextJSONSchemaConfigParam.name"],
        ),
        (
            "openai:gpt-5",
            {"prompt": {"id": "pmpt_1", "variables": {"city": 5}}},
            ["prompt.variables.city 5 is an integer", "ResponsePromptParam.variables"],
        ),
    ],
)
def test_a_setting_of_the_wrong_type_is_refused_before_sending(
    spec: str, settings: dict[str, Any], named: list[str]
) -> None:
    refused, sent = _attempt(spec, settings)
    assert refused is not None, "the setting was sent"
    message = str(refused)
    for text in named:
        assert text in message
    assert message.endswith("request.field-values]")
    assert sent == []


def test_right_typed_chat_settings_are_sent_as_given() -> None:
    settings = {
        "frequency_penalty": 1,  # Optional[float]: an integer is a number
        "presence_penalty": None,  # Optional[float]: null
        "seed": 3,
        "stop": ["END"],
        "user": "u1",
        "stream_options": {"include_usage": True},
    }
    refused, sent = _attempt("openai-chat:gpt-4o", settings)  # (gpt-5 takes no penalties)
    assert refused is None
    body = sent[0]
    assert body["frequency_penalty"] == 1 and type(body["frequency_penalty"]) is int
    assert body["presence_penalty"] is None
    assert body["seed"] == 3 and body["stop"] == ["END"] and body["user"] == "u1"


def test_right_typed_responses_settings_are_sent_as_given() -> None:
    settings = {
        "top_p": 1,  # Optional[float]: an integer is a number
        "safety_identifier": None,
        "max_tool_calls": 2,
        # ResponseTextConfigParam.verbosity is Optional[Literal[...]]: null inside an object
        "text": {"format": {"type": "json_schema", "name": "out", "schema": {"type": "object"}}, "verbosity": None},
        "prompt": {"id": "pmpt_1", "variables": {"city": "Paris"}},
    }
    refused, sent = _attempt("openai:gpt-5", settings)
    assert refused is None
    body = sent[0]
    assert body["top_p"] == 1
    assert body["safety_identifier"] is None
    assert body["max_tool_calls"] == 2
    assert body["text"]["format"]["name"] == "out" and body["text"]["verbosity"] is None
    assert body["prompt"] == {"id": "pmpt_1", "variables": {"city": "Paris"}}


def test_extra_body_and_a_compatible_server_stay_unchecked() -> None:
    refused, sent = _attempt("openai-chat:gpt-5", {"extra_body": {"user": 5}})
    assert refused is None and sent[0]["user"] == 5
    model = toolwire.model("openai-chat:local", base_url="http://localhost:8080/v1", api_key="k", seed="7")
    assert model.settings["seed"] == "7"


def test_a_setting_of_none_is_sent_as_before() -> None:
    # CompletionCreateParamsBase.user is str, not Optional: None stays the unset it was, not a refusal
    refused, sent = _attempt("openai-chat:gpt-5", {"user": None})
    assert refused is None and len(sent) == 1


def test_a_str_enum_member_of_an_allowed_value_is_sent_as_its_string_on_chat() -> None:
    # reasoning_effort is Optional[Literal[...]] (openai.types.shared.ReasoningEffort); a str Enum
    # member is a JSON string, sent as its value
    import enum

    class Effort(enum.StrEnum):
        LOW = "low"

    refused, sent = _attempt("openai-chat:gpt-5", {"reasoning_effort": Effort.LOW})
    assert refused is None
    assert sent[0]["reasoning_effort"] == "low"
