"""An imported Gemini request body (``GeminiCodec.decode_request``) whose top-level fields have
the wrong JSON type raises a typed error naming the field.

``systemInstruction`` (google.genai.types.Content), ``toolConfig`` (ToolConfig),
``generationConfig`` (GenerationConfig) and its ``thinkingConfig`` that were not objects were
dropped without a word; a ``contents`` entry that is not an object was left out; the computer
use tool with settings that are not an object (``{"computerUse": 5}``) was left out, where any
other built-in tool so written is a :class:`ConfigurationError`.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from toolwire_gemini import GeminiCodec

from toolwire.errors import ConfigurationError, ResponseDecodeError

BASE: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}

WRONG = {
    "systemInstruction-number": ("systemInstruction", 5, "/systemInstruction"),
    "systemInstruction-list": ("systemInstruction", [{"text": "be brief"}], "/systemInstruction"),
    "systemInstruction-parts-string": ("systemInstruction", {"parts": "be brief"}, "/systemInstruction/parts"),
    "systemInstruction-part-number": ("systemInstruction", {"parts": [5]}, "/systemInstruction/parts/0"),
    "systemInstruction-text-number": ("systemInstruction", {"parts": [{"text": 5}]}, "/systemInstruction/parts/0/text"),
    "system_instruction-number": ("system_instruction", 5, "/system_instruction"),
    "toolConfig-string": ("toolConfig", "AUTO", "/toolConfig"),
    "toolConfig-list": ("toolConfig", [], "/toolConfig"),
    "generationConfig-number": ("generationConfig", 5, "/generationConfig"),
    "thinkingConfig-number": ("generationConfig", {"thinkingConfig": 5}, "/generationConfig/thinkingConfig"),
    "maxOutputTokens-object": ("generationConfig", {"maxOutputTokens": {}}, "/generationConfig/maxOutputTokens"),
    "safetySettings-string": ("safetySettings", "BLOCK_NONE", "/safetySettings"),
    "cachedContent-number": ("cachedContent", 5, "/cachedContent"),
    "contents-entry-number": ("contents", [{"role": "user", "parts": [{"text": "hi"}]}, 5], "/contents/1"),
    "model-number": ("model", 5, "/model"),
}


@pytest.mark.parametrize("field,value,pointer", WRONG.values(), ids=WRONG.keys())
def test_a_top_level_field_of_the_wrong_type_is_a_decode_error(field: str, value: Any, pointer: str) -> None:
    body = {**copy.deepcopy(BASE), field: value}
    with pytest.raises(ResponseDecodeError) as info:
        GeminiCodec().decode_request(body)
    assert info.value.pointer == pointer
    assert info.value.api == "gemini"


@pytest.mark.parametrize("key", ["computerUse", "computer_use", "googleSearch"])
@pytest.mark.parametrize("value", [5, "on", [1]], ids=repr)
def test_a_tool_whose_settings_are_not_an_object_names_its_place(key: str, value: Any) -> None:
    body = {**copy.deepcopy(BASE), "tools": [{"functionDeclarations": [{"name": "f"}]}, {key: value}]}
    with pytest.raises(ConfigurationError) as info:
        GeminiCodec().decode_request(body)
    camel = "computerUse" if key.startswith("computer") else key
    assert f"tools[1].{camel}" in str(info.value)
    assert "it takes an object" in str(info.value)


def test_the_right_types_still_import() -> None:
    body = {
        **copy.deepcopy(BASE),
        "systemInstruction": {"parts": [{"text": "a"}, {"text": "b"}]},
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        "generationConfig": {"maxOutputTokens": "100", "thinkingConfig": {"thinkingBudget": 0}, "topK": 3},
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        "tools": [{"computerUse": {"environment": "ENVIRONMENT_BROWSER"}}],
        "model": "models/gemini-2.5-flash",
    }
    req = GeminiCodec().decode_request(body)
    assert req.instructions == "a\n\nb"
    assert req.tool_choice == "auto"
    assert req.thinking == {"budget": 0}
    assert req.settings["generationConfig"] == {"topK": 3}
    assert req.model == "gemini-2.5-flash"
    assert GeminiCodec().decode_request({**BASE, "systemInstruction": "plain"}).instructions == "plain"


# The Gemini API reads request JSON by the proto3 mapping, which takes one value for a repeated
# field: a recorded request (pydantic-ai's cassette test_openai/test_multiple_agent_tool_calls)
# sent ``"tools": {"function_declarations": [...]}`` and was answered HTTP 200 with a call of the
# tool it declares; Vertex AI's REST samples write ``"contents": {"role": "user", "parts":
# {"text": ...}}``. Such a body is read as the one-item lists it stands for.
_DECL = {"name": "get_capital", "description": "Get the capital.", "parameters": {"type": "object"}}


@pytest.mark.parametrize("snake", [False, True], ids=["camelCase", "snake_case"])
def test_one_object_in_a_repeated_field_is_read_as_a_one_item_list(snake: bool) -> None:
    body: dict[str, Any] = {
        "contents": {"role": "user", "parts": {"text": "What is the capital of France?"}},
        "tools": {"function_declarations" if snake else "functionDeclarations": _DECL},
        "system_instruction" if snake else "systemInstruction": {"parts": {"text": "Be brief."}},
        "safety_settings" if snake else "safetySettings": {
            "category": "HARM_CATEGORY_HARASSMENT",
            "threshold": "BLOCK_NONE",
        },
    }
    original = copy.deepcopy(body)
    request = GeminiCodec().decode_request(body)
    assert body == original  # the caller's body is not changed
    assert [t.name for t in request.tools] == ["get_capital"]
    assert request.tools[0].description == "Get the capital."
    assert request.instructions == "Be brief."
    assert len(request.messages) == 1
    assert request.messages[0].role == "user"
    assert [p.text for p in request.messages[0].parts] == ["What is the capital of France?"]  # type: ignore[attr-defined]
    sent = GeminiCodec().encode_request(request)
    assert sent["contents"] == [{"role": "user", "parts": [{"text": "What is the capital of France?"}]}]
    assert [d["name"] for d in sent["tools"][0]["functionDeclarations"]] == ["get_capital"]
    key = "safety_settings" if snake else "safetySettings"
    assert request.settings.get(key, request.settings.get("safetySettings")) == [
        {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}
    ]


# -- fields inside contents and functionDeclarations ------------------------------------------------
# Checked against the SDK's types as proto3 JSON (toolwire.profile.value_type_problems):
# google.genai.types.Content (``role: Optional[str]``, ``parts: list[Part]``), Part (``text``,
# ``thought: Optional[bool]``, ``inlineData.data`` bytes: base64 text), FunctionCall (``name``/``id``
# ``Optional[str]``, ``args: Optional[dict[str, Any]]``), FunctionResponse (``response:
# Optional[dict[str, Any]]``), FunctionDeclaration (``name``/``description`` text, ``parameters:
# Optional[Schema]``). Before, ``args`` given as a list or string became an invalid call, a call
# ``name`` of 5 the name "5", ``response: "ok"`` a result '"ok"', a declaration whose ``parameters``
# was a string a tool with an empty schema (its declaration re-sent for the API to refuse), a
# ``role`` of 5 a user turn.
_CALL = {"functionCall": {"name": "f", "args": {}}}


def _turns(*contents: dict[str, Any]) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, *contents]}


def _answer(fr: dict[str, Any], key: str = "functionResponse") -> dict[str, Any]:
    return _turns({"role": "model", "parts": [_CALL]}, {"role": "user", "parts": [{key: {"name": "f", **fr}}]})


def _declare(decl: dict[str, Any], key: str = "functionDeclarations") -> dict[str, Any]:
    return {**copy.deepcopy(BASE), "tools": [{key: [{"name": "f", **decl}]}]}


NESTED = {
    "args-list": (
        _turns({"role": "model", "parts": [{"functionCall": {"name": "f", "args": [1]}}]}),
        "/contents/1/parts/0/functionCall/args",
    ),
    "args-string": (
        _turns({"role": "model", "parts": [{"functionCall": {"name": "f", "args": "{}"}}]}),
        "/contents/1/parts/0/functionCall/args",
    ),
    "args-list-snake": (
        _turns({"role": "model", "parts": [{"function_call": {"name": "f", "args": [1]}}]}),
        "/contents/1/parts/0/function_call/args",
    ),
    "call-name-number": (
        _turns({"role": "model", "parts": [{"functionCall": {"name": 5, "args": {}}}]}),
        "/contents/1/parts/0/functionCall/name",
    ),
    "call-id-number": (
        _turns({"role": "model", "parts": [{"functionCall": {"name": "f", "id": 5}}]}),
        "/contents/1/parts/0/functionCall/id",
    ),
    "response-string": (_answer({"response": "ok"}), "/contents/2/parts/0/functionResponse/response"),
    "response-list-snake": (
        _answer({"response": ["ok"]}, "function_response"),
        "/contents/2/parts/0/function_response/response",
    ),
    "response-name-number": (_answer({"name": 5, "response": {}}), "/contents/2/parts/0/functionResponse/name"),
    "role-number": (_turns({"role": 5, "parts": [{"text": "a"}]}), "/contents/1/role"),
    "thought-text": (
        _turns({"role": "model", "parts": [{"text": "a", "thought": "yes"}]}),
        "/contents/1/parts/0/thought",
    ),
    "inlineData-data-number": (
        _turns({"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": 5}}]}),
        "/contents/1/parts/0/inlineData/data",
    ),
    "parameters-string": (_declare({"parameters": "{}"}), "/tools/0/functionDeclarations/0/parameters"),
    "parameters-string-snake": (
        _declare({"parameters": "{}"}, "function_declarations"),
        "/tools/0/function_declarations/0/parameters",
    ),
    "parameters-required-string": (
        _declare({"parameters": {"type": "OBJECT", "required": "a"}}),
        "/tools/0/functionDeclarations/0/parameters/required",
    ),
    "declaration-name-number": (_declare({"name": 5}), "/tools/0/functionDeclarations/0/name"),
    "declaration-description-number": (_declare({"description": 5}), "/tools/0/functionDeclarations/0/description"),
}


@pytest.mark.parametrize("body,pointer", NESTED.values(), ids=NESTED.keys())
def test_a_nested_field_of_the_wrong_type_is_a_decode_error(body: dict[str, Any], pointer: str) -> None:
    with pytest.raises(ResponseDecodeError) as info:
        GeminiCodec().decode_request(body)
    assert info.value.pointer == pointer
    assert info.value.api == "gemini"
    assert "the SDK types it google.genai.types." in str(info.value)


def test_args_given_as_a_list_names_the_field_and_what_it_takes() -> None:
    body = _turns({"role": "model", "parts": [{"functionCall": {"name": "f", "args": [1]}}]})
    with pytest.raises(ResponseDecodeError) as info:
        GeminiCodec().decode_request(body)
    assert "contents[1].parts[0].functionCall.args [1] is an array, but the API takes an object or null" in str(
        info.value
    )
    assert "google.genai.types.FunctionCall.args" in str(info.value)


def test_right_typed_nested_fields_still_import_in_either_spelling() -> None:
    # (proto3 JSON: an integer field takes text, an enum its name in any case the SDK reads, one
    # object a repeated field of objects; fields the SDK does not type are kept as they came)
    body = _answer({"response": {"output": "ok"}})
    body["contents"][1]["parts"] = [
        {"function_call": {"name": "f", "args": {"a": [1, None]}, "id": "c1"}, "thought_signature": "c2ln"}
    ]
    body["contents"][2]["parts"][0]["functionResponse"]["id"] = "c1"
    body["tools"] = [
        {
            "function_declarations": [
                {
                    "name": "f",
                    "description": "d",
                    "parameters": {
                        "type": "object",
                        "properties": {"a": {"type": "ARRAY", "items": {"type": "integer"}, "maxItems": "3"}},
                        "anyOf": {"type": "OBJECT"},
                        "required": ["a"],
                    },
                },
                {"name": "g", "parametersJsonSchema": {"type": "object"}},
            ]
        }
    ]
    req = GeminiCodec().decode_request(body)
    assert [t.name for t in req.tools] == ["f", "g"]
    (call,) = req.messages[1].parts
    assert call.arguments == {"a": [1, None]} and call.invalid is None  # type: ignore[union-attr]
    assert req.messages[2].parts[0].content == "ok"  # type: ignore[union-attr]


def test_one_function_response_part_given_as_an_object_is_read_as_a_one_item_list() -> None:
    # (proto3 JSON, as for the other repeated fields: the image was dropped without a word)
    from toolwire.types import ImagePart

    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    req = GeminiCodec().decode_request(_answer({"response": {"output": "the chart"}, "parts": image}))
    content = req.messages[2].parts[0].content  # type: ignore[union-attr]
    assert isinstance(content, list) and isinstance(content[-1], ImagePart)


def test_a_model_part_with_fields_set_to_null_is_read_as_without_them() -> None:
    """The google-genai SDK's ``model_dump(mode="json")`` writes every field a part does not set
    as null (proto3 JSON: "null is accepted for all field types and treated as the default
    value"). A user part so written was read; a model part was refused as "inline_data must be a
    Blob object ... got null" (import) or "functionCall must be an object, got a JSON null"
    (answer)."""
    from google.genai import types

    from toolwire.types import ReasoningPart, TextPart, ToolCall

    history = [
        types.Content(role="user", parts=[types.Part(text="What is 2+2?")]),
        types.Content(
            role="model",
            parts=[
                types.Part(text="Adding.", thought=True, thought_signature=b"sig"),
                types.Part(function_call=types.FunctionCall(name="add", args={"a": 2, "b": 2}, id="c1")),
            ],
        ),
        types.Content(
            role="user",
            parts=[types.Part(function_response=types.FunctionResponse(name="add", id="c1", response={"r": 4}))],
        ),
        types.Content(role="model", parts=[types.Part(text="4")]),
    ]
    body = {"contents": [c.model_dump(mode="json") for c in history]}
    assert body["contents"][1]["parts"][0]["inline_data"] is None  # (the SDK's dump, as sent)
    request = GeminiCodec().decode_request(body)
    thought, call = request.messages[1].parts
    assert isinstance(thought, ReasoningPart) and thought.text == "Adding."
    assert isinstance(call, ToolCall) and (call.name, call.arguments, call.id) == ("add", {"a": 2, "b": 2}, "c1")
    assert request.messages[3].parts == [TextPart("4")]

    answer = types.GenerateContentResponse(
        candidates=[types.Candidate(content=history[1], finish_reason=types.FinishReason.STOP)]
    ).model_dump(mode="json")
    response = GeminiCodec().decode_response(answer)
    assert [type(p) for p in response.parts] == [ReasoningPart, ToolCall]
    assert response.stop_reason == "tool_use"
