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
    "safetySettings-object": ("safetySettings", {"category": "x"}, "/safetySettings"),
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
