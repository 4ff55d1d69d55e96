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
