"""Gemini's own tools in an imported request (``googleSearch``, ``codeExecution``, ``urlContext``):
kept as provider tools and sent back, and a forced function-calling mode beside them is sent as
the API took it. Through the real ``google-genai`` SDK with only the network replaced."""

from __future__ import annotations

import asyncio
import copy
import json

import httpx2
import pytest
from toolwire_gemini import GeminiCodec

from toolwire import ProviderTool
from toolwire.profile import RequestRefused

# the shape of a recorded request (gemini-3-pro-image-preview, HTTP 200): mode ANY with an empty
# allowedFunctionNames and only the googleSearch tool
SEARCH_ONLY = {
    "contents": [{"role": "user", "parts": [{"text": "Chart the 5-day forecast for Mexico City."}]}],
    "generationConfig": {"responseModalities": ["TEXT", "IMAGE"]},
    "toolConfig": {"functionCallingConfig": {"allowedFunctionNames": [], "mode": "ANY"}},
    "tools": [{"googleSearch": {}}],
}
ANSWER = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "Here is the chart."}]}, "finishReason": "STOP", "index": 0}
    ],
    "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 4, "totalTokenCount": 16},
    "modelVersion": "gemini-3-pro-image-preview",
}


def _answer(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(ANSWER))


def test_builtin_tools_are_imported_and_sent_back(mock_model) -> None:
    body = copy.deepcopy(SEARCH_ONLY)
    body["tools"] = [
        {"functionDeclarations": [{"name": "lookup", "description": "Look up.", "parameters": {"type": "OBJECT"}}]},
        {"codeExecution": {}},
        {"urlContext": {}},
    ]
    body["toolConfig"] = {"functionCallingConfig": {"mode": "AUTO"}}
    req = GeminiCodec().decode_request(body)
    provider = [t for t in req.tools if isinstance(t, ProviderTool)]
    assert [(t.vendor, t.type) for t in provider] == [("gemini", "codeExecution"), ("gemini", "urlContext")]
    model = mock_model(_answer, model_id="gemini-3-flash-preview")  # (2.5 takes no built-in tool beside functions)
    resp = asyncio.run(model.send(req))
    assert resp.text == "Here is the chart."
    sent = model.sent[0].json["tools"]
    assert [sorted(t) for t in sent] == [["functionDeclarations"], ["codeExecution"], ["urlContext"]]


def test_a_forced_mode_beside_only_a_builtin_tool_is_sent_as_the_api_took_it(mock_model) -> None:
    req = GeminiCodec().decode_request(copy.deepcopy(SEARCH_ONLY))
    model = mock_model(_answer, model_id="gemini-3-pro-image-preview")
    resp = asyncio.run(model.send(req))
    assert resp.text == "Here is the chart."
    sent = model.sent[0].json
    assert sent["tools"] == [{"googleSearch": {}}]
    assert sent["toolConfig"] == SEARCH_ONLY["toolConfig"]


def test_a_forced_mode_without_any_tool_is_still_refused(mock_model) -> None:
    body = copy.deepcopy(SEARCH_ONLY)
    del body["tools"]
    req = GeminiCodec().decode_request(body)
    model = mock_model(_answer, model_id="gemini-3-pro-image-preview")
    with pytest.raises(RequestRefused, match="tool-config-without-tools"):
        asyncio.run(model.send(req))
    assert model.sent == []


def test_snake_case_builtin_tools_are_imported_too(mock_model) -> None:
    # a body in the SDK's snake_case spelling (google.genai.types.Tool.google_search): the
    # built-in tool was dropped on import, and the forced mode then refused for want of a tool
    body = copy.deepcopy(SEARCH_ONLY)
    body["tools"] = [{"google_search": {}}, {"url_context": {}}]
    body["tool_config"] = {"function_calling_config": {"allowed_function_names": [], "mode": "ANY"}}
    del body["toolConfig"]
    req = GeminiCodec().decode_request(body)
    provider = [t for t in req.tools if isinstance(t, ProviderTool)]
    assert [(t.vendor, t.type) for t in provider] == [("gemini", "googleSearch"), ("gemini", "urlContext")]
    model = mock_model(_answer, model_id="gemini-3-pro-image-preview")
    resp = asyncio.run(model.send(req))
    assert resp.text == "Here is the chart."
    assert model.sent[0].json["tools"] == [{"googleSearch": {}}, {"urlContext": {}}]


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        ({"googleSearch": 5}, "'googleSearch' is 5 (int); it takes an object (google.genai.types.GoogleSearch)"),
        (
            {"code_execution": "yes"},
            "'codeExecution' is 'yes' (str); it takes an object (google.genai.types.ToolCodeExecution)",
        ),
        ({"urlContext": [1]}, "'urlContext' is [1] (list); it takes an object (google.genai.types.UrlContext)"),
        ({"mcpServers": [{"name": "x"}]}, "'mcpServers' is [{'name': 'x'}] (list); toolwire imports"),
    ],
)
def test_a_builtin_tool_that_is_not_an_object_is_a_configuration_error(mock_model, entry, named) -> None:
    # the value was sent as {} without a word (the tool switched on with no settings)
    from toolwire.errors import ConfigurationError

    body = copy.deepcopy(SEARCH_ONLY)
    body["tools"] = [entry]
    with pytest.raises(ConfigurationError) as err:
        GeminiCodec().decode_request(body)
    assert named in str(err.value)


def test_a_builtin_tool_with_object_settings_is_still_imported(mock_model) -> None:
    body = copy.deepcopy(SEARCH_ONLY)
    body["tools"] = [{"googleSearch": {"timeRangeFilter": {"startTime": "2026-01-01T00:00:00Z"}}}]
    req = GeminiCodec().decode_request(body)
    model = mock_model(_answer, model_id="gemini-3-pro-image-preview")
    asyncio.run(model.send(req))
    assert model.sent[0].json["tools"] == body["tools"]


@pytest.mark.parametrize(
    ("entry", "why", "write"),
    [
        ({"googleSearch": None}, "every field is null, which is 'not set'", '{"googleSearch": {}}'),
        ({"code_execution": None}, "every field is null, which is 'not set'", '{"codeExecution": {}}'),
        ({"urlContext": None, "functionDeclarations": None}, "every field is null", '{"urlContext": {}}'),
        ({}, "it is empty", '{"googleSearch": {}}'),
    ],
)
def test_an_entry_that_names_no_tool_is_a_configuration_error(entry, why, write) -> None:
    # google.genai.types.Tool treats None as "not set" (its request converter writes a field only
    # when it is not None): {"googleSearch": null} names no tool, and the API refuses an entry
    # without one; it was imported as the search tool with no settings (or, {}, dropped)
    from toolwire.errors import ConfigurationError

    body = copy.deepcopy(SEARCH_ONLY)
    body["tools"] = [{"googleSearch": {}}, entry]
    with pytest.raises(ConfigurationError) as err:
        GeminiCodec().decode_request(body)
    text = str(err.value)
    assert text.startswith(f"gemini: tools[1] is {entry!r}, which names no tool: {why}"), text
    assert f"write {write} for a built-in tool with no settings" in text


def test_null_fields_of_a_dumped_sdk_tool_name_no_tool(mock_model) -> None:
    """An entry written by the SDK's own ``Tool(google_search=GoogleSearch()).model_dump()``
    carries every other field as null: the search tool alone, not also code execution, URL
    context, ... (each was imported and sent as a tool with no settings)."""
    from google.genai import types

    entry = types.Tool(google_search=types.GoogleSearch()).model_dump()
    assert entry["code_execution"] is None and entry["url_context"] is None  # (the dump's nulls)
    body = copy.deepcopy(SEARCH_ONLY)
    body["tools"] = [entry]
    req = GeminiCodec().decode_request(body)
    assert [(t.vendor, t.type) for t in req.tools if isinstance(t, ProviderTool)] == [("gemini", "googleSearch")]
    model = mock_model(_answer, model_id="gemini-3-pro-image-preview")
    resp = asyncio.run(model.send(req))
    assert resp.text == "Here is the chart."
    # one tool, the search (its settings as dumped: null fields, which the API reads as not set)
    assert [list(t) for t in model.sent[0].json["tools"]] == [["googleSearch"]]


def test_tools_that_are_neither_a_list_nor_one_object_are_a_decode_error() -> None:
    from toolwire.errors import ResponseDecodeError

    body = copy.deepcopy(SEARCH_ONLY)
    body["tools"] = "googleSearch"
    with pytest.raises(ResponseDecodeError) as err:
        GeminiCodec().decode_request(body)
    assert err.value.pointer == "/tools" and "must be an array, got a JSON string" in str(err.value)


def test_tools_given_as_one_object_are_that_one_entry() -> None:
    # (proto3 JSON: the API takes one value for a repeated field; a recorded request with
    # "tools": {...} was answered 200 with a call of the tool it declares)
    body = copy.deepcopy(SEARCH_ONLY)
    body["tools"] = {"googleSearch": {}}
    listed = copy.deepcopy(SEARCH_ONLY)
    listed["tools"] = [{"googleSearch": {}}]
    codec = GeminiCodec()
    assert codec.encode_request(codec.decode_request(body)) == codec.encode_request(codec.decode_request(listed))
    assert codec.encode_request(codec.decode_request(body))["tools"] == [{"googleSearch": {}}]


def test_an_entry_that_is_not_an_object_is_a_malformed_body() -> None:
    # (a tools entry of another JSON type: the body is malformed, as a tools value that is not
    # an array is; it was dropped without a word)
    from toolwire.errors import ResponseDecodeError

    body = copy.deepcopy(SEARCH_ONLY)
    body["tools"] = [{"googleSearch": {}}, 5]
    with pytest.raises(ResponseDecodeError) as err:
        GeminiCodec().decode_request(body)
    assert "/tools/1 must be an object, got a JSON number" in str(err.value)


# -- null schema fields of an imported declaration ---------------------------------------------------
# google.genai.types.FunctionDeclaration: parameters / parameters_json_schema are Optional (None:
# not set; "For function with no parameters, this can be left unset"), and FunctionDeclaration
# .model_dump() writes both, one of them null. A null field was read as the schema: the other
# field's schema was lost (toolwire checked the arguments against no schema, and another API got a
# tool without parameters), or the request was refused before sending ("the parameters schema must
# describe an object, got null", "declaration carries both parameters and parametersJsonSchema").

DUMPED = {
    "name": "lookup",
    "description": "Look up a city.",
    "parameters": None,
    "parametersJsonSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


@pytest.mark.parametrize(
    "decl",
    [
        DUMPED,
        {
            **DUMPED,
            "parametersJsonSchema": None,
            "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]},
        },
    ],
    ids=["parameters-null", "json-schema-null"],
)
def test_a_null_schema_field_of_a_declaration_is_not_its_schema(mock_model, decl) -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Weather?"}]}],
        "tools": [{"functionDeclarations": [decl]}],
    }
    req = GeminiCodec().decode_request(body)
    (tool,) = req.tools
    assert tool.input_schema["properties"] == {"city": {"type": "string"}}
    assert tool.input_schema["required"] == ["city"]
    model = mock_model(_answer)
    resp = asyncio.run(model.send(req))
    assert resp.text == "Here is the chart."
    assert model.sent[0].json["tools"] == [{"functionDeclarations": [decl]}]  # sent as it came


def test_a_declaration_whose_only_schema_field_is_null_has_no_parameters(mock_model) -> None:
    decl = {"name": "ping", "description": "Ping.", "parameters": None}
    body = {"contents": [{"role": "user", "parts": [{"text": "Ping?"}]}], "tools": [{"functionDeclarations": [decl]}]}
    req = GeminiCodec().decode_request(body)
    assert req.tools[0].input_schema == {"type": "object", "properties": {}}
    model = mock_model(_answer)
    assert asyncio.run(model.send(req)).text == "Here is the chart."
    (sent,) = model.sent[0].json["tools"][0]["functionDeclarations"]
    assert sent["name"] == "ping" and not sent.get("parameters") and not sent.get("parametersJsonSchema")
