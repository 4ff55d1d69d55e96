"""Contract tests through the real google-genai SDK, only the network replaced (httpx2.MockTransport).

Every test asserts the JSON the SDK actually put on the wire and/or the canonical values decoded
from hand-written responses in the exact Gemini REST format. Cases B12, B16, B17, B19, B21, B22,
B23, B24 are here with their right values.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from gemini_wire_helpers import candidate_body, error_response, json_response, sse_response
from toolwire_gemini import GeminiCodec

from toolwire.errors import ConfigurationError, ProviderError, UnsupportedToolChoice
from toolwire.testing.conversation_rules import validate_request
from toolwire.tools import Tool
from toolwire.types import ImagePart, Message, ReasoningPart, TextPart, ToolCall, ToolResult

WEATHER = Tool.from_schema(
    "get_weather",
    "Weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def send(model: Any, messages: list[Message], **kwargs: Any) -> Any:
    return run(model.send(model.build_request(messages, **kwargs)))


def answer(response: Any, texts: list[str]) -> Message:
    return Message("user", [ToolResult(c.id, t, name=c.name) for c, t in zip(response.tool_calls, texts)])


# ------------------------------------------------------------------ parallel calls without ids (B12, B16)


def test_a_model_note_after_the_call_turn_is_one_model_turn_with_it(mock_model: Any) -> None:
    """An assistant message with a call, then one with text only (a note written while the tool
    ran), then the result: the two model turns are one (as on Anthropic, whose API merges them;
    OpenAI Chat sends the result right after the call instead), so the result follows the calls
    of that turn. Only a later model turn *with* calls was merged, so the request was refused
    (response-count, response-turn-placement)."""
    model = mock_model([json_response(candidate_body([{"text": "Done."}]))])
    messages = [
        Message.user("weather in Paris?"),
        Message("assistant", [ToolCall("x", "get_weather", {"city": "Paris"})]),
        Message("assistant", [TextPart("Checking the forecast.")]),
        Message("user", [ToolResult("x", "18C", name="get_weather"), TextPart("and?")]),
    ]
    response = send(model, messages, tools=[WEATHER])
    assert response.text == "Done."
    body = model.sent[0].json
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    call, note = body["contents"][1]["parts"]
    assert call["functionCall"] == {"name": "get_weather", "args": {"city": "Paris"}}
    assert note == {"text": "Checking the forecast."}
    assert body["contents"][2]["parts"][0]["functionResponse"]["response"] == {"output": "18C"}
    assert validate_request("gemini", body) == []
    assert [c.rule for c in response.preflight.changes] == ["gemini.conversation.call-turn-placement"]


def test_answers_to_consecutive_model_messages_follow_the_calls_of_both(mock_model: Any) -> None:
    """Two assistant messages in a row, each with calls (a history built by hand, or a turn split
    in two), then the results in call order: the preflight merges the two model turns into one
    (gemini.conversation.call-turn-placement) and the responses must follow all its calls in
    order (FunctionResponse.name: each response names its call, by position when there are no
    ids). The codec ordered the results after the last message's calls only, so the answer to
    the first message's call went last and the request was refused (response-match). Found by
    the conversation fuzz test."""
    search = Tool.from_schema("search_files", "Find files.", {"type": "object", "properties": {}})
    model = mock_model([json_response(candidate_body([{"text": "Done."}]))])
    messages = [
        Message.user("weather in Paris, then search"),
        Message("assistant", [ToolCall("x", "get_weather", {"city": "Paris"})]),
        Message("assistant", [ToolCall("a", "get_weather", {"city": "Oslo"}), ToolCall("b", "search_files", {})]),
        Message(
            "user",
            [
                ToolResult("x", "18C", name="get_weather"),
                ToolResult("a", "4C", name="get_weather"),
                ToolResult("b", "2 files", name="search_files"),
            ],
        ),
    ]
    assert send(model, messages, tools=[WEATHER, search]).text == "Done."
    body = model.sent[0].json
    calls = [p["functionCall"]["name"] for p in body["contents"][1]["parts"]]
    answers = [(p["functionResponse"]["name"], p["functionResponse"]["response"]) for p in body["contents"][2]["parts"]]
    assert calls == ["get_weather", "get_weather", "search_files"]
    assert answers == [
        ("get_weather", {"output": "18C"}),
        ("get_weather", {"output": "4C"}),
        ("search_files", {"output": "2 files"}),
    ]
    assert validate_request("gemini", body) == []


def test_parallel_calls_without_ids_synthesised_and_never_sent(mock_model: Any) -> None:
    parts = [{"functionCall": {"name": "get_weather", "args": {"city": c}}} for c in ("Paris", "Oslo", "Lima")]
    model = mock_model(
        [
            json_response(candidate_body(parts, response_id="wOd8ab")),
            json_response(candidate_body([{"text": "Sunny."}])),
        ]
    )
    first = send(model, [Message.user("Weather in Paris, Oslo, Lima?")], tools=[WEATHER])
    assert first.stop_reason == "tool_use" and first.vendor_stop_reason == "STOP"
    assert [(c.id, c.name, c.arguments, c.id_synthesized) for c in first.tool_calls] == [
        ("gemini-wOd8ab-0", "get_weather", {"city": "Paris"}, True),
        ("gemini-wOd8ab-1", "get_weather", {"city": "Oslo"}, True),
        ("gemini-wOd8ab-2", "get_weather", {"city": "Lima"}, True),
    ]
    # the loop answers in any order; Gemini gets them in call order in ONE Content (B12)
    results = answer(first, ["18C", "4C", "20C"])
    results.parts.reverse()
    second = send(model, [Message.user("Weather in Paris, Oslo, Lima?"), first.to_message(), results], tools=[WEATHER])
    assert second.text == "Sunny." and second.stop_reason == "end_turn"
    body = model.sent[1].json
    assert body["contents"][1] == {
        "role": "model",
        "parts": [{"functionCall": {"name": "get_weather", "args": {"city": c}}} for c in ("Paris", "Oslo", "Lima")],
    }
    assert body["contents"][2] == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"output": t}}} for t in ("18C", "4C", "20C")
        ],
    }
    assert len(body["contents"]) == 3
    assert validate_request("gemini", body) == []
    assert (
        model.sent[0].url == "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    )
    assert model.sent[0].headers["x-goog-api-key"] == "test-key"


def test_b12_results_spread_over_two_messages_still_one_content(mock_model: Any) -> None:
    codec = GeminiCodec()
    calls = [
        ToolCall(f"gemini-r-{i}", "get_weather", {"city": c}, id_synthesized=True, provider_data={"gemini": {}})
        for i, c in enumerate(("Paris", "Oslo", "Lima"))
    ]
    from toolwire.adapter import ModelRequest

    body = codec.encode_request(
        ModelRequest(
            model="gemini-2.5-flash",
            tools=[WEATHER],
            messages=[
                Message.user("w?"),
                Message("assistant", list(calls), {"gemini": {}}),
                Message("user", [ToolResult("gemini-r-2", "20C", name="get_weather")]),
                Message(
                    "user",
                    [
                        ToolResult("gemini-r-0", "18C", name="get_weather"),
                        ToolResult("gemini-r-1", "4C", name="get_weather"),
                    ],
                ),
            ],
        )
    )
    assert [p["functionResponse"]["response"]["output"] for p in body["contents"][2]["parts"]] == ["18C", "4C", "20C"]
    assert len(body["contents"]) == 3


# ------------------------------------------------------------------ calls with ids (B16)


def test_b16_vendor_id_echoed_synthesised_id_never_sent(mock_model: Any) -> None:
    lookup = Tool.from_schema("lookup", "Look up.", {"type": "object", "properties": {"q": {"type": "string"}}})
    parts = [
        {"functionCall": {"id": "fc_9", "name": "lookup", "args": {"q": "x"}}},
        {"functionCall": {"name": "lookup", "args": {"q": "y"}}},
    ]
    model = mock_model(
        [json_response(candidate_body(parts, response_id="r16")), json_response(candidate_body([{"text": "done"}]))]
    )
    first = send(model, [Message.user("look up x and y")], tools=[lookup])
    assert [(c.id, c.id_synthesized) for c in first.tool_calls] == [("fc_9", False), ("gemini-r16-1", True)]
    send(model, [Message.user("look up x and y"), first.to_message(), answer(first, ["X", "Y"])], tools=[lookup])
    body = model.sent[1].json
    assert body["contents"][1]["parts"] == [
        {"functionCall": {"id": "fc_9", "name": "lookup", "args": {"q": "x"}}},
        {"functionCall": {"name": "lookup", "args": {"q": "y"}}},
    ]
    assert body["contents"][2]["parts"] == [
        {"functionResponse": {"id": "fc_9", "name": "lookup", "response": {"output": "X"}}},
        {"functionResponse": {"name": "lookup", "response": {"output": "Y"}}},
    ]
    assert "gemini-r16-1" not in json.dumps(body)


# ------------------------------------------------------------------ thought signatures (B17), streamed calls


def test_b17_streamed_thought_signature_round_trip(mock_model: Any) -> None:
    news = Tool.from_schema("news", "News.", {"type": "object", "properties": {}})
    chunks = [
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "Checking the news", "thought": True}]}, "index": 0}
            ],
            "responseId": "r17",
            "modelVersion": "gemini-3-pro-preview",
        },
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "news", "args": {}}, "thoughtSignature": "c2lnMQ=="}],
                    },
                    "index": 0,
                }
            ],
            "responseId": "r17",
        },
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}],
                    },
                    "index": 0,
                }
            ],
            "responseId": "r17",
        },
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {
                "promptTokenCount": 30,
                "candidatesTokenCount": 20,
                "thoughtsTokenCount": 55,
                "totalTokenCount": 105,
            },
            "responseId": "r17",
        },
    ]
    model = mock_model(
        [sse_response(chunks), json_response(candidate_body([{"text": "ok"}]))],
        model_id="gemini-3-pro-preview",
        stream=True,
        thinking={"include_thoughts": True},
    )
    first = send(model, [Message.user("news and weather")], tools=[news, WEATHER])
    assert model.sent[0].url.endswith("/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse")
    assert model.sent[0].json["generationConfig"] == {"thinkingConfig": {"includeThoughts": True}}
    kinds = [type(p).__name__ for p in first.parts]
    assert kinds == ["ReasoningPart", "ToolCall", "ToolCall"]
    assert first.parts[0].text == "Checking the news" and first.parts[0].provider == "gemini"
    assert first.tool_calls[0].provider_data["gemini"] == {"thoughtSignature": "c2lnMQ=="}
    assert "thoughtSignature" not in first.tool_calls[1].provider_data["gemini"]
    assert [c.id for c in first.tool_calls] == ["gemini-r17-0", "gemini-r17-1"]
    assert (
        first.stop_reason == "tool_use" and first.usage.reasoning_tokens == 55 and first.usage.output_tokens == 75
    )  # 20 candidates + 55 thoughts
    model.settings["stream"] = False
    send(
        model,
        [Message.user("news and weather"), first.to_message(), answer(first, ["headline", "22C"])],
        tools=[news, WEATHER],
    )
    body = model.sent[1].json
    assert body["contents"][1] == {
        "role": "model",
        "parts": [
            {"text": "Checking the news", "thought": True},
            {"functionCall": {"name": "news", "args": {}}, "thoughtSignature": "c2lnMQ=="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
        ],
    }
    assert validate_request("gemini", body) == []


def test_streamed_calls_appended_never_concatenated(mock_model: Any) -> None:
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me"}]}}], "responseId": "rs"},
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": " check."},
                            {"functionCall": {"name": "get_weather", "args": {"city": "A"}}},
                        ],
                    }
                }
            ],
            "responseId": "rs",
        },
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "B"}}}],
                    }
                }
            ],
            "responseId": "rs",
        },
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "C"}}}],
                    },
                    "finishReason": "STOP",
                }
            ],
            "responseId": "rs",
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 30},
        },
    ]
    model = mock_model([sse_response(chunks)], stream=True)
    resp = send(model, [Message.user("w")], tools=[WEATHER])
    assert resp.text == "Let me check."
    assert [(c.id, c.arguments) for c in resp.tool_calls] == [
        ("gemini-rs-0", {"city": "A"}),
        ("gemini-rs-1", {"city": "B"}),
        ("gemini-rs-2", {"city": "C"}),
    ]
    assert [type(p).__name__ for p in resp.parts] == ["TextPart", "ToolCall", "ToolCall", "ToolCall"]
    # streamed and non-streamed decoding agree on ids
    whole = candidate_body(
        [{"text": "Let me check."}] + [{"functionCall": {"name": "get_weather", "args": {"city": c}}} for c in "ABC"],
        response_id="rs",
    )
    assert [c.id for c in GeminiCodec().decode_response(whole).tool_calls] == [c.id for c in resp.tool_calls]


# ------------------------------------------------------------------ zero-argument tool, error and image results


def test_zero_argument_tool_round_trip(mock_model: Any) -> None:
    tool = Tool.from_schema("list_cameras", "List cameras.", {"type": "object", "properties": {}})
    model = mock_model(
        [
            json_response(candidate_body([{"functionCall": {"name": "list_cameras", "args": {}}}], response_id="z")),
            json_response(candidate_body([{"text": "2 cameras"}])),
        ]
    )
    first = send(model, [Message.user("cams")], tools=[tool], tool_choice="required")
    # mode ANY: a parameterless function is declared with an explicit empty object (python-genai#981)
    assert model.sent[0].json["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "list_cameras",
                    "description": "List cameras.",
                    "parametersJsonSchema": {"type": "object", "properties": {}},
                }
            ]
        }
    ]
    assert model.sent[0].json["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert [c.rule for c in first.preflight.changes] == ["gemini.request.any-mode-parameterless"]
    assert first.tool_calls[0].arguments == {} and first.tool_calls[0].is_valid
    send(model, [Message.user("cams"), first.to_message(), answer(first, ["front, back"])], tools=[tool])
    assert model.sent[1].json["tools"] == [
        {"functionDeclarations": [{"name": "list_cameras", "description": "List cameras."}]}
    ]
    assert model.sent[1].json["contents"][1]["parts"] == [{"functionCall": {"name": "list_cameras", "args": {}}}]


def test_b22_error_result_sent_as_error_key(mock_model: Any) -> None:
    model = mock_model([json_response(candidate_body([{"text": "Sorry."}]))])
    call = ToolCall("t1", "get_weather", {"city": "Atlantis"}, provider_data={"gemini": {}})
    history = [
        Message.user("w"),
        Message("assistant", [call], {"gemini": {}}),
        Message("user", [ToolResult("t1", "ValueError: city not found", is_error=True, name="get_weather")]),
    ]
    send(model, history, tools=[WEATHER])
    assert model.sent[0].json["contents"][2] == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "id": "t1",
                    "name": "get_weather",
                    "response": {"error": "ValueError: city not found"},
                }
            }
        ],
    }


def test_b21_image_result_output_text_plus_parts(mock_model: Any) -> None:
    """Gemini 3 takes the image in functionResponse.parts (Gemini 2.x does not: see the next test)."""
    png = b"\x89PNG\r\n\x1a\nfake-bytes"
    model = mock_model([json_response(candidate_body([{"text": "Nice chart."}]))], model_id="gemini-3-pro-preview")
    call = ToolCall("gemini-r-0", "chart", {}, id_synthesized=True, provider_data={"gemini": {}})
    history = [
        Message.user("chart"),
        Message("assistant", [call], {"gemini": {}}),
        Message(
            "user",
            [
                ToolResult(
                    "gemini-r-0", [TextPart("Q3 chart"), ImagePart(data=png, media_type="image/png")], name="chart"
                )
            ],
        ),
    ]
    send(model, history, tools=[Tool.from_schema("chart", "Chart.", {"type": "object", "properties": {}})])
    assert model.sent[0].json["contents"][2]["parts"] == [
        {
            "functionResponse": {
                "name": "chart",
                "response": {"output": "Q3 chart"},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgpmYWtlLWJ5dGVz"}}],
            }
        }
    ]


# ------------------------------------------------------------------ tool choice (B19)


@pytest.mark.parametrize(
    "choice, expected",
    [
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        ("auto", {"mode": "AUTO"}),
        (
            {"type": "function", "function": {"name": "get_weather"}},
            {"mode": "ANY", "allowedFunctionNames": ["get_weather"]},
        ),
    ],
)
def test_b19_tool_choice_modes(mock_model: Any, choice: Any, expected: dict[str, Any]) -> None:
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))])
    send(model, [Message.user("w")], tools=[WEATHER], tool_choice=choice)
    assert model.sent[0].json["toolConfig"] == {"functionCallingConfig": expected}


@pytest.mark.parametrize(
    "images, said",
    [(1, "[1 image the tool returned was not sent"), (2, "[2 images the tool returned were not sent")],
)
def test_b21_image_result_on_gemini_2_is_left_out_and_said(mock_model: Any, images: int, said: str) -> None:
    """Gemini 2.5 answers 400 "`function_response.parts` is not supported for this model": the
    image is left out, the response says so (the model read "1 image(s) ... were"), and the
    report marks it lossy."""
    png = b"\x89PNG\r\n\x1a\nfake-bytes"
    model = mock_model([json_response(candidate_body([{"text": "Nice chart."}]))], model_id="gemini-2.5-flash")
    history = [
        Message.user("chart"),
        Message("assistant", [ToolCall("c1", "chart", {})]),
        Message(
            "user",
            [
                ToolResult(
                    "c1", [TextPart("Q3 chart")] + [ImagePart(data=png, media_type="image/png")] * images, name="chart"
                )
            ],
        ),
    ]
    resp = send(model, history, tools=[Tool.from_schema("chart", "Chart.", {"type": "object", "properties": {}})])
    (part,) = model.sent[0].json["contents"][2]["parts"]
    fr = part["functionResponse"]
    assert "parts" not in fr
    assert fr["response"]["output"].startswith(f"Q3 chart\n{said}: gemini-2.5-flash takes no images")
    changes = [(c.rule, c.pointer, c.detail, c.lossy) for c in resp.preflight or []]
    assert (
        "gemini.conversation.function-response-parts-model",
        "/contents/2/parts/0/functionResponse/parts",
        f"{images} image part{'s' if images > 1 else ''} of a function response left out: gemini-2.5-flash takes "
        "images in function responses from Gemini 3 on",
        True,
    ) in changes


def test_b19_unknown_tool_choice_raises_never_auto() -> None:
    from toolwire.adapter import ModelRequest

    codec = GeminiCodec()
    for bad in ("sometimes", {"type": "allowed_tools"}, {"type": "tool", "name": "nope"}):
        with pytest.raises(UnsupportedToolChoice):
            codec.encode_request(
                ModelRequest(model="gemini-2.5-flash", messages=[Message.user("x")], tools=[WEATHER], tool_choice=bad)
            )


# ------------------------------------------------------------------ unicode (B23), integers (B24)


def test_b23_unicode_arguments_untouched(mock_model: Any) -> None:
    send_tool = Tool.from_schema(
        "send", "Send.", {"type": "object", "properties": {"msg": {"type": "string"}, "to": {"type": "string"}}}
    )
    model = mock_model(
        [
            json_response(
                candidate_body([{"functionCall": {"name": "send", "args": {"msg": "やあ 🌍", "to": "Zoë"}}}])
            ),
            json_response(candidate_body([{"text": "sent"}])),
        ]
    )
    first = send(model, [Message.user("greet")], tools=[send_tool])
    assert first.tool_calls[0].arguments == {"msg": "やあ 🌍", "to": "Zoë"}
    from toolwire.arguments import dumps_arguments

    assert dumps_arguments(first.tool_calls[0].arguments) == '{"msg":"やあ 🌍","to":"Zoë"}'
    send(model, [Message.user("greet"), first.to_message(), answer(first, ["✓ envoyé"])], tools=[send_tool])
    body = model.sent[1].json
    assert body["contents"][1]["parts"][0]["functionCall"]["args"] == {"msg": "やあ 🌍", "to": "Zoë"}
    assert body["contents"][2]["parts"][0]["functionResponse"]["response"] == {"output": "✓ envoyé"}


def test_b24_floats_coerced_through_the_sdk(mock_model: Any) -> None:
    dig = Tool.from_schema(
        "dig", "Dig.", {"type": "object", "properties": {"depth": {"type": "integer"}, "ratio": {"type": "number"}}}
    )
    model = mock_model(
        [json_response(candidate_body([{"functionCall": {"name": "dig", "args": {"depth": 3.0, "ratio": 0.5}}}]))]
    )
    call = send(model, [Message.user("dig")], tools=[dig]).tool_calls[0]
    assert call.arguments == {"depth": 3, "ratio": 0.5} and type(call.arguments["depth"]) is int


# ------------------------------------------------------------------ foreign history policy


def test_calls_from_another_vendor_get_placeholder_on_gemini_3_and_reasoning_dropped() -> None:
    from toolwire.adapter import ModelRequest

    call = ToolCall("toolu_01A", "get_weather", {"city": "Paris"})
    call2 = ToolCall("toolu_01B", "get_weather", {"city": "Oslo"})
    history = [
        Message.user("w"),
        Message(
            "assistant",
            [ReasoningPart("thinking...", signature="EqQB", provider="anthropic"), TextPart("Checking."), call, call2],
        ),
        Message(
            "user",
            [ToolResult("toolu_01A", "18C", name="get_weather"), ToolResult("toolu_01B", "4C", name="get_weather")],
        ),
    ]
    body3 = GeminiCodec().encode_request(
        ModelRequest(model="gemini-3-flash-preview", messages=history, tools=[WEATHER])
    )
    assert body3["contents"][1]["parts"] == [
        {"text": "Checking."},
        {
            "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
            "thoughtSignature": "skip_thought_signature_validator",
        },
        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
    ]
    assert body3["contents"][2]["parts"][0] == {
        "functionResponse": {"name": "get_weather", "response": {"output": "18C"}}
    }
    body25 = GeminiCodec().encode_request(ModelRequest(model="gemini-2.5-flash", messages=history, tools=[WEATHER]))
    assert "thoughtSignature" not in json.dumps(body25)
    none = GeminiCodec(foreign_thought_signature="none").encode_request(
        ModelRequest(model="gemini-3-pro", messages=history)
    )
    assert "thoughtSignature" not in json.dumps(none)


# ------------------------------------------------------------------ request fields, errors, tokens, credentials


def test_system_instruction_generation_config_and_settings(mock_model: Any) -> None:
    model = mock_model(
        [json_response(candidate_body([{"text": "ok"}]))],
        max_tokens=256,
        temperature=0.2,
        thinking={"budget": 1024, "include_thoughts": True},
        safetySettings=[{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        schema_mode="openapi",
    )
    send(model, [Message.user("hi")], instructions="Be brief.", tools=[WEATHER])
    body = model.sent[0].json
    assert body["systemInstruction"] == {"role": "user", "parts": [{"text": "Be brief."}]}
    assert body["generationConfig"] == {
        "maxOutputTokens": 256,
        "temperature": 0.2,
        "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": True},
    }
    assert body["safetySettings"] == [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
    assert body["tools"][0]["functionDeclarations"][0]["parameters"] == WEATHER.input_schema
    assert "schema_mode" not in body and "schemaMode" not in body


@pytest.mark.parametrize(
    "finish, stop",
    [
        ("MAX_TOKENS", "max_tokens"),
        ("SAFETY", "refusal"),
        ("RECITATION", "refusal"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("STOP", "end_turn"),
        ("SOMETHING_NEW", "error"),
    ],
)
def test_finish_reason_table(finish: str, stop: str) -> None:
    resp = GeminiCodec().decode_response(candidate_body([{"text": "x"}], finish=finish))
    assert (resp.stop_reason, resp.vendor_stop_reason) == (stop, finish)


def test_prompt_blocked_and_usage_fields() -> None:
    blocked = GeminiCodec().decode_response(
        {
            "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
            "usageMetadata": {"promptTokenCount": 7},
            "responseId": "b",
        }
    )
    assert (blocked.stop_reason, blocked.vendor_stop_reason, blocked.parts) == (
        "refusal",
        "blockReason:PROHIBITED_CONTENT",
        [],
    )
    usage = (
        GeminiCodec()
        .decode_response(
            candidate_body(
                [{"text": "x"}],
                usage={
                    "promptTokenCount": 100,
                    "candidatesTokenCount": 20,
                    "cachedContentTokenCount": 60,
                    "thoughtsTokenCount": 33,
                    "toolUsePromptTokenCount": 5,
                    "totalTokenCount": 158,
                },
            )
        )
        .usage
    )
    assert (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.reasoning_tokens,
        usage.tool_use_prompt_tokens,
    ) == (105, 53, 60, 33, 5)  # input 100 prompt + 5 tool-use prompt; output 20 + 33 thoughts


def test_api_error_mapped_to_provider_error(mock_model: Any) -> None:
    model = mock_model(
        [
            error_response(
                400,
                "INVALID_ARGUMENT",
                "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: should be non-empty for OBJECT type",
            )
        ]
    )
    with pytest.raises(ProviderError) as info:
        send(model, [Message.user("x")], tools=[WEATHER])
    err = info.value
    assert (err.provider, err.status, err.error_type, err.retryable) == ("gemini", 400, "INVALID_ARGUMENT", False)
    assert "should be non-empty for OBJECT type" in err.message
    model = mock_model([error_response(429, "RESOURCE_EXHAUSTED", "Quota exceeded")])
    with pytest.raises(ProviderError) as info:
        send(model, [Message.user("x")])
    assert (info.value.status, info.value.retryable, info.value.message) == (429, True, "Quota exceeded")


def test_sdk_retries_a_503_then_succeeds(mock_model: Any) -> None:
    model = mock_model(
        [error_response(503, "UNAVAILABLE", "overloaded"), json_response(candidate_body([{"text": "fine"}]))],
        retry_options={"attempts": 2, "initial_delay": 0.01, "max_delay": 0.02, "jitter": 0},
    )
    assert send(model, [Message.user("x")]).text == "fine"
    assert len(model.sent) == 2 and model.sent[0].json == model.sent[1].json


def test_stream_error_chunk_raises(mock_model: Any) -> None:
    model = mock_model(
        [sse_response([{"error": {"code": 500, "message": "internal", "status": "INTERNAL"}}])], stream=True
    )
    with pytest.raises(ProviderError) as info:
        send(model, [Message.user("x")])
    assert info.value.status == 500 and info.value.retryable


def test_count_tokens_counts_the_whole_request_tools_included(mock_model: Any) -> None:
    model = mock_model([json_response({"totalTokens": 17})])
    n = run(model.count_tokens(model.build_request([Message.user("how many?")], instructions="sys", tools=[WEATHER])))
    assert n == 17
    assert model.sent[0].url.endswith("/v1beta/models/gemini-2.5-flash:countTokens")
    assert model.sent[0].json == {
        "generateContentRequest": {
            "model": "models/gemini-2.5-flash",
            "contents": [{"parts": [{"text": "how many?"}], "role": "user"}],
            "systemInstruction": {"role": "user", "parts": [{"text": "sys"}]},
            "tools": [
                {
                    "functionDeclarations": [
                        {
                            "name": "get_weather",
                            "description": "Weather for a city.",
                            "parametersJsonSchema": {
                                "type": "object",
                                "properties": {"city": {"type": "string"}},
                                "required": ["city"],
                            },
                        }
                    ]
                }
            ],
        }
    }


def test_credentials_and_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire_gemini import GeminiModel

    import toolwire

    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    model = toolwire.registry.model("gemini:gemini-2.5-flash")
    assert isinstance(model, GeminiModel)
    assert "GEMINI_API_KEY" in (model.credential_problem() or "")
    with pytest.raises(ConfigurationError, match=r"^gemini: set GEMINI_API_KEY"):  # as "anthropic: ..." / "openai: ..."
        model.client()
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key")
    assert model.credential_problem() is None
    codec = toolwire.registry.codec("gemini", schema_mode="openapi")
    assert isinstance(codec, GeminiCodec) and codec.schema_mode == "openapi"
    with pytest.raises(ConfigurationError):
        GeminiCodec(schema_mode="both")


def test_count_tokens_sends_no_escape_of_a_lone_surrogate(mock_model: Any) -> None:
    """The count goes through the SDK's own json.dumps, which escapes a lone surrogate as
    "\\ud800" — refused by servers ("no low surrogate in string"): it is sent as U+FFFD."""
    model = mock_model([json_response({"totalTokens": 5})])
    n = run(model.count_tokens(model.build_request([Message.user("file a\ud800b.txt \ud83d\ude00")])))
    assert n == 5
    sent = model.sent[0].json["generateContentRequest"]["contents"][0]["parts"][0]["text"]
    assert sent == "file a\ufffdb.txt \U0001f600"
