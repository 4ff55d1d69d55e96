"""Enum fields sent as numbers (real SDK, MockTransport network). A client may ask for proto3
enums as numbers (``$alt=json;enum-encoding=int``, which google-cloud-aiplatform's REST transport
sends on every Vertex AI call); ``"finishReason": 1`` was refused as "must be a string, got a JSON
number". Numbers both APIs give the same name are read; a larger one is refused naming the field."""

from __future__ import annotations

import json

import pytest
from test_gemini_continuation import _answer, _hop

import toolwire
from toolwire.errors import ResponseDecodeError


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("number", "name", "stop"),
    [(1, "STOP", "end_turn"), (2, "MAX_TOKENS", "max_tokens")],
)
def test_a_finish_reason_sent_as_its_number_is_read_as_its_name(mock_model, stream, number, name, stop) -> None:
    body = _hop([{"text": "I'm on a seafood diet."}], "STOP", (11, 17))
    body["candidates"][0]["finishReason"] = number
    model = mock_model([_answer(body, stream=stream)], stream=stream)
    result = toolwire.run_sync(model, "Tell me a joke")
    response = result.turns[0].response
    assert (result.text, response.stop_reason, response.vendor_stop_reason) == ("I'm on a seafood diet.", stop, name)


@pytest.mark.parametrize("stream", [False, True])
def test_a_finish_reason_number_the_two_apis_name_differently_is_refused_naming_it(mock_model, stream) -> None:
    """6 is BLOCKLIST on Vertex AI and LANGUAGE on the Gemini API: not guessed."""
    body = _hop([{"text": "x"}], "STOP", (1, 1))
    body["candidates"][0]["finishReason"] = 6
    model = mock_model([_answer(body, stream=stream)], stream=stream)
    with pytest.raises(ResponseDecodeError) as exc:
        toolwire.run_sync(model, "hi")
    assert "/candidates/0/finishReason is the enum number 6" in str(exc.value)
    assert "it should be the value's name, a string" in str(exc.value)


def test_a_negative_finish_reason_number_is_refused_without_saying_the_apis_name_it(mock_model) -> None:
    """-1 names no value on either API; the message said it named different ones on the two."""
    body = _hop([{"text": "x"}], "STOP", (1, 1))
    body["candidates"][0]["finishReason"] = -1
    model = mock_model([_answer(body, stream=False)], stream=False)
    with pytest.raises(ResponseDecodeError) as exc:
        toolwire.run_sync(model, "hi")
    text = str(exc.value)
    assert "/candidates/0/finishReason is the enum number -1, which toolwire does not read" in text
    assert "a negative one none" in text


def test_a_block_reason_sent_as_its_number_is_read_as_its_name(mock_model) -> None:
    import httpx2

    body = {"promptFeedback": {"blockReason": 1}, "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 3}}
    answer = httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))
    model = mock_model([answer])
    result = toolwire.run_sync(model, "hi")
    response = result.turns[0].response
    assert (response.stop_reason, response.vendor_stop_reason) == ("refusal", "blockReason:SAFETY")


def test_a_request_schema_type_sent_as_its_number_is_imported_as_its_name(mock_model) -> None:
    """The same clients write the request's enums as numbers: ``"parameters": {"type": 6, ...}``,
    which Vertex AI answered (recorded 200). It was imported as ``{"type": 6}`` and the request
    refused ("the parameters schema must describe an object (type object), got {"type": 6 ...")."""
    from toolwire.registry import codec

    recorded = {
        "contents": [{"role": "user", "parts": [{"text": "Weather in Delhi?"}]}],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "get_current_weather",
                        "description": "Get the current weather",
                        "parameters": {
                            "type": 6,
                            "properties": {
                                "location": {"type": 1, "description": "The city"},
                                "days": {"type": 5, "items": {"type": 3}},
                                "any": {"type": 0},
                            },
                        },
                    }
                ]
            }
        ],
    }
    request = codec("gemini").decode_request(recorded)
    (tool,) = request.tools
    assert tool.input_schema == {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "The city"},
            "days": {"type": "array", "items": {"type": "integer"}},
            "any": {},
        },
    }
    model = mock_model([_answer(_hop([{"text": "Sunny."}], "STOP", (5, 2)), stream=False)])
    result = toolwire.run_sync(model, "Weather in Delhi?", tools=request.tools)
    assert result.text == "Sunny."
    sent = model.sent[0].json  # type: ignore[attr-defined]
    params = sent["tools"][0]["functionDeclarations"][0]["parameters"]
    assert (params["type"], params["properties"]["location"]["type"]) == ("object", "string")


@pytest.mark.parametrize("reason", ["SAFETY", 1])
def test_a_block_reason_in_the_sdks_snake_case_spelling_is_read(reason) -> None:
    """The google-genai SDK's own dump of a blocked answer spells the field ``block_reason``
    (``GenerateContentResponsePromptFeedback.block_reason``), as it spells ``prompt_feedback`` and
    ``finish_reason``, which the codec reads. The block was read as a cut-off answer: ``"error"``,
    no vendor reason."""
    from google.genai import types

    from toolwire.registry import codec

    answer = types.GenerateContentResponse(
        prompt_feedback=types.GenerateContentResponsePromptFeedback(block_reason=types.BlockedReason.SAFETY),
        usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=3, total_token_count=3),
    ).model_dump(mode="json", exclude_none=True)
    answer["prompt_feedback"]["block_reason"] = reason
    response = codec("gemini").decode_response(answer)
    assert (response.stop_reason, response.vendor_stop_reason) == ("refusal", "blockReason:SAFETY")
