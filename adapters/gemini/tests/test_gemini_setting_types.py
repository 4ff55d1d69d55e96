"""A value of the ``generation_config``, ``tool_config``, ``safety_settings`` or ``cached_content``
settings that is not of the type the installed SDK gives that field (``google.genai.types``'
``GenerationConfig``, ``ThinkingConfig``, ``FunctionCallingConfig``, ``GenerateContentConfig``) is a
ConfigurationError when the model is made (rule ``gemini.request.config-values``), naming the type
to give and the SDK field: the API refuses it ("Invalid value at
'generation_config.response_mime_type' (TYPE_STRING), 5") on every request. Read as proto3 JSON,
which takes an integer or number as text too. Through the real SDK over ``httpx2.MockTransport``: a
refused setting sends nothing, a right-typed one is sent as given, ``extra_body`` is unchecked."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire.errors import ConfigurationError

_ANSWER = {
    "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}],
    "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
}


def _attempt(settings: dict[str, Any]) -> tuple[ConfigurationError | None, list[dict[str, Any]]]:
    """Make the model with ``settings`` and run one turn; the refusal (if any) and the bodies sent."""
    sent: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=_ANSWER)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    try:
        model = toolwire.model("gemini:gemini-2.5-flash", api_key="k", http_client=client, **settings)
        assert toolwire.run_sync(model, "hello").text == "hi"
    except ConfigurationError as exc:
        return exc, sent
    return None, sent


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        # a scalar: GenerationConfig.response_mime_type is Optional[str]
        (
            {"generation_config": {"responseMimeType": 5}},
            [
                "generationConfig.responseMimeType 5 is an integer",
                "a string or null",
                "GenerationConfig.response_mime_type",
            ],
        ),
        # GenerateContentConfig.cached_content: Optional[str]
        ({"cached_content": 5}, ["cachedContent 5 is an integer", "a string or null"]),
        # inside nested objects: ThinkingConfig.include_thoughts Optional[bool], .thinking_budget Optional[int]
        (
            {"generation_config": {"thinkingConfig": {"includeThoughts": "yes"}}},
            ["thinkingConfig.includeThoughts 'yes' is a string", "true or false", "ThinkingConfig.include_thoughts"],
        ),
        (
            {"generation_config": {"thinking_config": {"thinking_budget": True}}},
            ["thinking_config.thinking_budget True is a boolean", "an integer or null"],
        ),
        (
            {"tool_config": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": "lookup"}}},
            ["allowedFunctionNames 'lookup' is a string", "an array", "FunctionCallingConfig.allowed_function_names"],
        ),
    ],
)
def test_a_setting_of_the_wrong_type_is_refused_before_sending(settings: dict[str, Any], named: list[str]) -> None:
    refused, sent = _attempt(settings)
    assert refused is not None, "the setting was sent"
    message = str(refused)
    for text in named:
        assert text in message
    assert message.endswith("[gemini.request.config-values]")
    assert sent == []


def test_right_typed_settings_are_sent_as_given() -> None:
    settings = {
        "generation_config": {
            "topP": 1,  # Optional[float]: an integer is a number
            "candidateCount": None,  # Optional[int]: null
            "responseMimeType": "text/plain",
            "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": True},
        },
        "tool_config": {"functionCallingConfig": {"mode": "AUTO"}},
        "cached_content": "cachedContents/abc",
    }
    refused, sent = _attempt(settings)
    assert refused is None
    body = sent[0]
    assert body["generationConfig"]["topP"] == 1
    assert body["generationConfig"]["responseMimeType"] == "text/plain"
    assert body["generationConfig"]["thinkingConfig"]["includeThoughts"] is True
    assert body["cachedContent"] == "cachedContents/abc"


def test_extra_body_stays_unchecked() -> None:
    refused, sent = _attempt({"extra_body": {"cachedContent": 5}})
    assert refused is None
    assert sent[0]["cachedContent"] == 5


def test_a_setting_of_none_is_sent_as_before() -> None:
    refused, sent = _attempt({"generation_config": None})
    assert refused is None and len(sent) == 1


def test_an_integral_number_or_exponent_text_for_an_integer_field_is_sent_as_given() -> None:
    # proto3 JSON (https://protobuf.dev/programming-guides/json/, int32/int64): "Either numbers or
    # strings are accepted ... Exponent notation (such as 1e2) is also accepted"; a number with an
    # integral value (1.0) parses as that integer. Only a fractional value is refused.
    settings = {"generation_config": {"candidateCount": 1.0, "thinkingConfig": {"thinkingBudget": "1e3"}}}
    refused, sent = _attempt(settings)
    assert refused is None
    gen = sent[0]["generationConfig"]
    assert gen["candidateCount"] == 1.0
    assert gen["thinkingConfig"]["thinkingBudget"] == "1e3"


def test_a_fractional_number_for_an_integer_field_is_still_refused() -> None:
    refused, sent = _attempt({"generation_config": {"candidateCount": 1.5}})
    assert refused is not None and "candidateCount 1.5 is a number" in str(refused)
    assert sent == []


def test_seed_and_logprobs_given_as_text_or_an_integral_number_are_sent_as_given() -> None:
    # proto3 JSON int32: numbers or strings are accepted; 7.0 is the integer 7
    refused, sent = _attempt({"generation_config": {"seed": "7", "logprobs": 3.0, "responseLogprobs": True}})
    assert refused is None
    assert sent[0]["generationConfig"]["seed"] == "7"
    assert sent[0]["generationConfig"]["logprobs"] == 3.0


def test_the_sdks_own_objects_as_settings_are_sent_as_their_json() -> None:
    # google.genai.types objects: GenerationConfig was sent as {}, then refused by the type check;
    # they are sent as the SDK writes them (the API's names, unset fields left out)
    from google.genai import types as gt

    refused, sent = _attempt(
        {
            "generation_config": gt.GenerationConfig(
                temperature=0.2, thinking_config=gt.ThinkingConfig(thinking_budget=0), response_mime_type="text/plain"
            ),
            "safety_settings": [gt.SafetySetting(category="HARM_CATEGORY_HATE_SPEECH", threshold="BLOCK_NONE")],
        }
    )
    assert refused is None, refused
    body = sent[0]
    assert body["generationConfig"] == {
        "temperature": 0.2,
        "thinkingConfig": {"thinkingBudget": 0},
        "responseMimeType": "text/plain",
    }
    assert body["safetySettings"] == [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}]
    # one nested in a plain dict
    refused, sent = _attempt(
        {"generation_config": {"topK": 3, "thinkingConfig": gt.ThinkingConfig(include_thoughts=True)}}
    )
    assert refused is None, refused
    assert sent[0]["generationConfig"]["thinkingConfig"] == {"includeThoughts": True}
    # a value of the wrong type inside one is still refused when the model is made
    refused, sent = _attempt(
        {"generation_config": {"thinkingConfig": gt.ThinkingConfig(thinking_budget=0), "seed": "x"}}
    )
    assert refused is not None and "seed" in str(refused) and sent == []
