"""The Gemini profile: one test per rule (repairs keep the meaning and are reported; what cannot be
repaired is refused naming the rule, the JSON pointer and the tool or call), case B27 with its
exact numbers in a whole body and at the end of a stream (through the real google-genai SDK,
only the network replaced), stop reasons, token estimate and live counting, and every recorded
request passing the checks unchanged."""

from __future__ import annotations

import asyncio
import base64
import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from gemini_wire_helpers import candidate_body, json_response, sse_response
from toolwire_gemini import GeminiCodec, GeminiModel
from toolwire_gemini.profile import (
    FAILED_FINISH_REASONS,
    RULES,
    SKIP_SIGNATURE,
    GeminiProfile,
    openapi_schema_problems,
    rules_for,
)

import toolwire
from toolwire.adapter import ModelRequest
from toolwire.errors import ToolNameError
from toolwire.profile import RequestReport
from toolwire.schema.report import TranslationReport
from toolwire.testing.cassettes import load_cassette, recordings_dir
from toolwire.tools import Tool
from toolwire.types import Message, ToolCall, ToolResult

JSON = GeminiProfile()
OPENAPI = GeminiProfile("openapi")
SIG = "Es0DCsoDAQw51sf4ceGEX2Y8/rpMeG6cdLuYkNMby8I4y/ZkN+Vblkw8fRaWFN9Jf682+NRuWI5DKFLlNOsiNIapxOgU"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def repair(body: dict[str, Any], profile: GeminiProfile = JSON) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    report = RequestReport("gemini")
    out = profile.repair_request(body, report)
    return out, [(c.rule, c.pointer) for c in report.changes]


def violations(body: dict[str, Any], profile: GeminiProfile = JSON, start: int = 0) -> list[tuple[str, str]]:
    return [(v.rule, v.pointer) for v in profile.check_request(body, start=start)]


def user(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def call(name: str = "get_weather", id: str | None = None, args: Any = None, sig: str | None = None) -> dict[str, Any]:
    fc: dict[str, Any] = {"name": name, "args": {"city": "Paris"} if args is None else args}
    if id is not None:
        fc["id"] = id
    part: dict[str, Any] = {"functionCall": fc}
    if sig is not None:
        part["thoughtSignature"] = sig
    return part


def response(name: str = "get_weather", id: str | None = None, value: Any = None) -> dict[str, Any]:
    fr: dict[str, Any] = {"name": name, "response": {"output": "18C"} if value is None else value}
    if id is not None:
        fr["id"] = id
    return {"functionResponse": fr}


WEATHER_DECL = {
    "name": "get_weather",
    "parametersJsonSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
TOOLS = [{"functionDeclarations": [WEATHER_DECL]}]


# ------------------------------------------------------------------ B27: thinking tokens are output


B27_META = {"promptTokenCount": 1200, "candidatesTokenCount": 150, "thoughtsTokenCount": 600, "totalTokenCount": 1950}


def test_b27_usage_in_a_whole_body_through_the_sdk(mock_model: Any) -> None:
    model = mock_model([json_response(candidate_body([{"text": "Done."}], usage=B27_META))])
    resp = run(model.send(model.build_request([Message.user("Think hard.")])))
    u = resp.usage
    assert (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.total_tokens, u.vendor_total_tokens) == (
        1200,
        750,
        600,
        1950,
        1950,
    )


def test_b27_usage_at_the_end_of_a_stream_through_the_sdk(mock_model: Any) -> None:
    chunks = [
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": "Do"}]}}],
            "modelVersion": "gemini-2.5-pro",
            "usageMetadata": {"promptTokenCount": 1200, "totalTokenCount": 1200},
        },
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": "ne."}]}, "finishReason": "STOP"}],
            "modelVersion": "gemini-2.5-pro",
            "usageMetadata": B27_META,
        },
    ]
    model = mock_model([sse_response(chunks)], model_id="gemini-2.5-pro", stream=True)
    resp = run(model.send(model.build_request([Message.user("Think hard.")])))
    assert model.sent[0].url.endswith(":streamGenerateContent?alt=sse")
    u = resp.usage
    assert resp.text == "Done."
    assert (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.total_tokens, u.vendor_total_tokens) == (
        1200,
        750,
        600,
        1950,
        1950,
    )


def test_usage_tool_use_prompt_is_input_and_cache_reads_are_a_part_of_it() -> None:
    u = JSON.usage(
        {
            "promptTokenCount": 100,
            "cachedContentTokenCount": 60,
            "toolUsePromptTokenCount": 25,
            "candidatesTokenCount": 10,
            "thoughtsTokenCount": 5,
            "totalTokenCount": 140,
        }
    )
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens, u.reasoning_tokens, u.tool_use_prompt_tokens) == (
        125,
        60,
        15,
        5,
        25,
    )
    assert u.total_tokens == u.vendor_total_tokens == 140  # prompt + tool-use prompt + candidates + thoughts


# ------------------------------------------------------------------ the rule table


def test_every_rule_has_a_source_and_an_action_and_ids_are_unique() -> None:
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    for r in RULES:
        assert r.id.startswith("gemini.") and r.summary and r.source and r.action in ("repair", "report", "refuse")
    # both modes hold every rule: an imported declaration keeps its own schema field
    assert set(rules_for("openapi")) == set(rules_for("json_schema")) == set(ids) == set(JSON.rules)


# ------------------------------------------------------------------ names


@pytest.mark.parametrize(
    "name, ok",
    [
        ("get_weather", True),
        ("files.read:v2", True),
        ("_x-1", True),
        ("a" * 64, True),
        ("a" * 65, False),
        ("1abc", False),
        ("", False),
        ("has space", False),
        ("naïve", False),
    ],
)
def test_function_name_rule(name: str, ok: bool) -> None:
    assert (JSON.tool_name_error(name) is None) is ok


def test_a_declared_name_gemini_refuses_raises_before_encoding() -> None:
    imported = Tool(
        "1st_tool", "x", {"type": "object", "properties": {"q": {"type": "string"}}}, imported_from="openai-chat"
    )
    with pytest.raises(ToolNameError, match="gemini") as info:
        GeminiCodec().translate_tool(imported)
    assert "'1'" in str(info.value) and "a letter or '_' first" in str(info.value)


def test_check_refuses_an_invalid_declaration_name_naming_tool_and_pointer() -> None:
    body = {"contents": [user()], "tools": [{"functionDeclarations": [{"name": "9lives"}]}]}
    (v,) = JSON.check_request(body)
    assert (v.rule, v.pointer, v.tool) == ("gemini.name.function", "/tools/0/functionDeclarations/0/name", "9lives")


def test_parameter_names_outside_the_rule_are_reported_not_changed() -> None:
    body = {
        "contents": [user()],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "f", "parameters": {"type": "object", "properties": {"file-path": {"type": "string"}}}}
                ]
            }
        ],
    }
    out, changes = repair(body, OPENAPI)
    assert out == body
    assert changes == [("gemini.name.parameter", "/tools/0/functionDeclarations/0/parameters/properties/file-path")]
    assert repair(body, JSON)[1] == changes  # the rule is on the `parameters` field, whichever mode wrote it
    as_json = {
        "contents": [user()],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "f",
                        "parametersJsonSchema": {"type": "object", "properties": {"file-path": {"type": "string"}}},
                    }
                ]
            }
        ],
    }
    assert repair(as_json, JSON)[1] == []  # documented for `parameters` only


def test_history_call_with_a_name_gemini_refuses_is_sent_under_the_placeholder() -> None:
    codec = GeminiCodec()
    body = codec.encode_request(
        ModelRequest(
            model="gemini-2.5-flash",
            messages=[
                Message.user("x"),
                Message("assistant", [ToolCall("c1", "bad name!", {}, invalid="unknown tool")]),
                Message("user", [ToolResult("c1", "refused", is_error=True, name="bad name!")]),
            ],
        )
    )
    assert body["contents"][1]["parts"][0]["functionCall"]["name"] == "invalid_tool_name"
    assert body["contents"][2]["parts"][0]["functionResponse"]["name"] == "invalid_tool_name"
    assert violations(body) == []
    broken = json.loads(json.dumps(body).replace("invalid_tool_name", "bad name!"))
    assert ("gemini.name.call-in-history", "/contents/1/parts/0/functionCall/name") in violations(broken)


# ------------------------------------------------------------------ schema, both modes


def test_both_schema_fields_on_one_declaration_are_refused() -> None:
    decl = {
        "name": "f",
        "parameters": {"type": "object", "properties": {"a": {"type": "string"}}},
        "parametersJsonSchema": {"type": "object", "properties": {"a": {"type": "string"}}},
    }
    vs = JSON.check_request({"contents": [user()], "tools": [{"functionDeclarations": [decl]}]})
    assert [(v.rule, v.pointer, v.tool) for v in vs] == [
        ("gemini.schema.one-field", "/tools/0/functionDeclarations/0/parametersJsonSchema", "f")
    ]


def test_a_root_schema_that_is_not_an_object_is_refused() -> None:
    body = {
        "contents": [user()],
        "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "string"}}]}],
    }
    assert violations(body) == [("gemini.schema.root-object", "/tools/0/functionDeclarations/0/parametersJsonSchema")]


def test_zero_parameter_tools_are_declared_without_a_schema_field() -> None:
    decl, report = GeminiCodec(schema_mode="openapi").translate_tool(
        Tool.from_schema("now", "The time.", {"type": "object", "properties": {}})
    )
    assert decl == {"name": "now", "description": "The time."}
    assert [c.keyword for c in report] == ["parameters"]


# ------------------------------------------------------------------ schema, openapi mode


def test_imported_parameters_with_unknown_keywords_are_rewritten_and_reported() -> None:
    body = {
        "contents": [user()],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "f",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"a": {"type": "STRING", "const": "x"}, "b": {"type": ["string", "null"]}},
                            "additionalProperties": False,
                            "required": ["a", "ghost"],
                        },
                    }
                ]
            }
        ],
    }
    before = violations(body, OPENAPI)
    assert (
        "gemini.schema.openapi.keywords",
        "/tools/0/functionDeclarations/0/parameters/additionalProperties",
    ) in before
    assert ("gemini.schema.openapi.const", "/tools/0/functionDeclarations/0/parameters/properties/a/const") in before
    assert ("gemini.schema.openapi.type-list", "/tools/0/functionDeclarations/0/parameters/properties/b/type") in before
    assert ("gemini.schema.openapi.required-defined", "/tools/0/functionDeclarations/0/parameters/required/1") in before
    out, changes = repair(body, OPENAPI)
    params = out["tools"][0]["functionDeclarations"][0]["parameters"]
    assert params["properties"]["a"] == {"type": "string", "enum": ["x"]}
    assert params["properties"]["b"] == {"type": "string", "nullable": True}
    assert params["required"] == ["a"] and "additionalProperties" not in params
    assert {r for r, _ in changes} == {
        "gemini.schema.openapi.keywords",
        "gemini.schema.openapi.const",
        "gemini.schema.openapi.type-list",
        "gemini.schema.openapi.required-defined",
    }
    assert violations(out, OPENAPI) == []


def test_enum_only_for_string_type_values_stringified_and_type_added() -> None:
    report = TranslationReport("gemini")
    out = OPENAPI.translate_schema(
        {
            "type": "object",
            "properties": {"level": {"type": "integer", "enum": [1, 2, 3]}, "color": {"enum": ["red", "blue"]}},
        },
        report,
    )
    assert out["properties"]["level"] == {"type": "string", "enum": ["1", "2", "3"]}
    assert out["properties"]["color"] == {"enum": ["red", "blue"], "type": "string"}
    body = {"contents": [user()], "tools": [{"functionDeclarations": [{"name": "f", "parameters": out}]}]}
    assert violations(body, OPENAPI) == []


def test_enum_on_a_non_string_type_is_a_violation_when_sent() -> None:
    body = {
        "contents": [user()],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "f",
                        "parameters": {"type": "object", "properties": {"n": {"type": "INTEGER", "enum": ["1"]}}},
                    }
                ]
            }
        ],
    }
    assert (
        "gemini.schema.openapi.enum-string",
        "/tools/0/functionDeclarations/0/parameters/properties/n/enum",
    ) in violations(body, OPENAPI)


def test_refs_are_inlined_and_a_type_name_gemini_lacks_is_refused() -> None:
    report = TranslationReport("gemini")
    out = OPENAPI.translate_schema(
        {
            "type": "object",
            "$defs": {"P": {"type": "object", "properties": {"x": {"type": "number", "format": "uuid"}}}},
            "properties": {"p": {"$ref": "#/$defs/P"}, "t": {"type": "array", "items": [{"type": "string"}]}},
        },
        report,
    )
    assert out["properties"]["p"] == {"type": "object", "properties": {"x": {"type": "number"}}}
    # the tuple form of items is not a Schema: its element schema becomes items (Gemini requires items)
    assert out["properties"]["t"] == {"type": "array", "items": {"type": "string"}} and "$defs" not in out
    bad = {
        "contents": [user()],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "f", "parameters": {"type": "object", "properties": {"k": {"type": "enum"}}}}
                ]
            }
        ],
    }
    assert violations(repair(bad, OPENAPI)[0], OPENAPI) == [
        ("gemini.schema.openapi.type-names", "/tools/0/functionDeclarations/0/parameters/properties/k/type")
    ]


# ------------------------------------------------------------------ schema, json_schema mode


def test_ref_with_siblings_is_wrapped_in_anyof_in_json_schema_mode() -> None:
    schema = {
        "type": "object",
        "$defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "properties": {"pet": {"$ref": "#/$defs/Pet", "description": "The pet."}, "other": {"$ref": "#/$defs/Pet"}},
    }
    report = TranslationReport("gemini")
    out = JSON.translate_schema(schema, report)
    assert out["properties"]["pet"] == {"anyOf": [{"$ref": "#/$defs/Pet"}], "description": "The pet."}
    assert out["properties"]["other"] == {"$ref": "#/$defs/Pet"}
    assert [(c.pointer, c.keyword) for c in report] == [("/properties/pet", "$ref")]
    assert schema["properties"]["pet"] == {"$ref": "#/$defs/Pet", "description": "The pet."}  # input untouched
    plain = {"type": "object", "properties": {"a": {"type": "string", "additionalProperties": False}}}
    assert JSON.translate_schema(plain, TranslationReport("gemini")) == plain  # B01: passed through unchanged


# ------------------------------------------------------------------ request settings


def test_tool_config_without_declarations_is_left_out() -> None:
    body = GeminiCodec().encode_request(
        ModelRequest(model="gemini-2.5-flash", messages=[Message.user("x")], tool_choice="none")
    )
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "NONE"}}
    assert violations(body) == [("gemini.request.tool-config-without-tools", "/toolConfig/functionCallingConfig")]
    out, changes = repair(body)
    assert "toolConfig" not in out and changes == [
        ("gemini.request.tool-config-without-tools", "/toolConfig/functionCallingConfig")
    ]
    assert violations(out) == []


@pytest.mark.parametrize("choice", ["required", {"type": "tool", "name": "lookup"}])
def test_a_forced_call_without_declarations_is_refused_as_on_the_other_apis(choice: Any) -> None:
    # mode ANY forces a function call no declared function can answer: left out, the run would
    # silently end with text; Anthropic and OpenAI refuse the same request
    body = GeminiCodec().encode_request(
        ModelRequest(model="gemini-2.5-flash", messages=[Message.user("x")], tool_choice=choice)
    )
    assert body["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"
    out, changes = repair(body)
    assert out["toolConfig"]["functionCallingConfig"]["mode"] == "ANY" and changes == []
    assert ("gemini.request.tool-config-without-tools", "/toolConfig/functionCallingConfig") in violations(out)


def test_calling_mode_outside_the_enum_is_refused() -> None:
    body = {"contents": [user()], "tools": TOOLS, "toolConfig": {"functionCallingConfig": {"mode": "REQUIRED"}}}
    assert violations(body) == [("gemini.request.calling-mode", "/toolConfig/functionCallingConfig/mode")]


def test_allowed_names_must_be_declared() -> None:
    body = {
        "contents": [user()],
        "tools": TOOLS,
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather", "get_time"]}},
    }
    (v,) = JSON.check_request(body)
    assert (v.rule, v.pointer, v.tool) == (
        "gemini.request.allowed-names-declared",
        "/toolConfig/functionCallingConfig/allowedFunctionNames/1",
        "get_time",
    )


def test_allowed_names_with_mode_auto_are_reported_and_sent() -> None:
    body = {
        "contents": [user()],
        "tools": TOOLS,
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO", "allowedFunctionNames": ["get_weather"]}},
    }
    out, changes = repair(body)
    assert out == body and changes == [
        ("gemini.request.allowed-names-mode", "/toolConfig/functionCallingConfig/allowedFunctionNames")
    ]
    assert violations(out) == []


def test_mode_any_declares_parameterless_functions_with_an_empty_object() -> None:
    body = GeminiCodec().encode_request(
        ModelRequest(
            model="gemini-2.5-flash",
            messages=[Message.user("x")],
            tool_choice="required",
            tools=[Tool.from_schema("now", "The time.", {"type": "object", "properties": {}})],
        )
    )
    assert body["tools"][0]["functionDeclarations"][0] == {"name": "now", "description": "The time."}
    out, changes = repair(body)
    assert out["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"] == {"type": "object", "properties": {}}
    assert changes == [
        ("gemini.request.any-mode-parameterless", "/tools/0/functionDeclarations/0/parametersJsonSchema")
    ]
    auto = dict(body, toolConfig={"functionCallingConfig": {"mode": "AUTO"}})
    assert repair(auto)[1] == []


def test_stream_function_call_arguments_is_left_out() -> None:
    body = {
        "contents": [user()],
        "tools": TOOLS,
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO", "streamFunctionCallArguments": True}},
    }
    out, changes = repair(body)
    assert out["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
    assert changes == [
        ("gemini.request.stream-arguments", "/toolConfig/functionCallingConfig/streamFunctionCallArguments")
    ]


def test_json_mode_with_tools_is_refused_on_gemini_2_and_allowed_on_gemini_3() -> None:
    body = {"contents": [user()], "tools": TOOLS, "generationConfig": {"responseMimeType": "application/json"}}
    (v,) = GeminiProfile(model="gemini-2.5-flash").check_request(body)
    assert (v.rule, v.pointer) == ("gemini.request.json-mode-with-tools", "/generationConfig/responseMimeType")
    assert GeminiProfile(model="gemini-3-flash-preview").check_request(body) == []
    assert GeminiProfile().check_request(body) == []  # model unknown: not applied


def test_json_mode_with_built_in_tools_is_refused_on_gemini_2_and_allowed_on_gemini_3() -> None:
    body = {
        "contents": [user()],
        "tools": [{"code_execution": {}}],
        "generationConfig": {"response_mime_type": "application/json"},
    }
    (v,) = GeminiProfile(model="gemini-2.0-flash").check_request(body)
    assert (v.rule, v.pointer) == ("gemini.request.json-mode-with-server-tools", "/generationConfig/response_mime_type")
    assert GeminiProfile(model="gemini-3-pro-preview").check_request(body) == []
    assert GeminiProfile().check_request(body) == []  # model unknown: not applied
    plain = {"contents": [user()], "tools": [{"code_execution": {}}]}
    assert GeminiProfile(model="gemini-2.0-flash").check_request(plain) == []


def test_built_in_tools_with_functions_refused_on_gemini_2_and_flagged_on_gemini_3() -> None:
    for search in ({"googleSearch": {}}, {"code_execution": {}}, {"urlContext": {}}):
        body = {"contents": [user()], "tools": [*TOOLS, search]}
        (v,) = GeminiProfile(model="gemini-2.5-flash").check_request(body)
        assert (v.rule, v.pointer) == ("gemini.request.server-tools-with-functions", f"/tools/1/{next(iter(search))}")
        p3 = GeminiProfile(model="gemini-3-pro-preview")
        out, changes = repair(body, p3)
        assert out["toolConfig"] == {"includeServerSideToolInvocations": True}
        assert changes == [("gemini.request.server-tool-invocations", "/toolConfig/includeServerSideToolInvocations")]
        assert p3.check_request(out) == []
        # without the flag (repairs skipped) the check names it; an explicit false is refused, not flipped
        assert [v.rule for v in p3.check_request(body)] == ["gemini.request.server-tool-invocations"]
        off = {**body, "toolConfig": {"includeServerSideToolInvocations": False}}
        out, changes = repair(off, p3)
        assert changes == [] and [v.rule for v in p3.check_request(out)] == ["gemini.request.server-tool-invocations"]
    # only built-in tools, or only functions, or computer use (answered by the application): nothing
    for tools in ([{"googleSearch": {}}], TOOLS, [*TOOLS, {"computerUse": {"environment": "ENVIRONMENT_BROWSER"}}]):
        body = {"contents": [user()], "tools": tools}
        for model in ("gemini-2.5-flash", "gemini-3-pro-preview"):
            assert repair(body, GeminiProfile(model=model))[1] == []
            assert GeminiProfile(model=model).check_request(body) == []
    assert GeminiProfile().check_request({"contents": [user()], "tools": [*TOOLS, {"googleSearch": {}}]}) == []


def test_response_schemas_one_at_a_time_and_mime_type_added() -> None:
    both = {
        "contents": [user()],
        "generationConfig": {
            "responseSchema": {"type": "object"},
            "responseJsonSchema": {"type": "object"},
            "responseMimeType": "application/json",
        },
    }
    assert violations(both) == [("gemini.request.response-schema-one", "/generationConfig/responseJsonSchema")]
    bare = {"contents": [user()], "generationConfig": {"responseJsonSchema": {"type": "object"}}}
    out, changes = repair(bare)
    assert out["generationConfig"]["responseMimeType"] == "application/json"
    assert changes == [("gemini.request.response-schema-mime", "/generationConfig/responseMimeType")]


def _thinking(
    config: dict[str, Any], model: str
) -> tuple[dict[str, Any], list[tuple[str, str]], list[tuple[str, str]]]:
    p = GeminiProfile(model=model)
    body = {"contents": [user()], "generationConfig": {"thinkingConfig": config}}
    out, changes = repair(body, p)
    return out["generationConfig"].get("thinkingConfig"), changes, violations(out, p)


def test_thinking_budget_and_level_together_are_refused() -> None:
    assert _thinking({"thinkingBudget": 1024, "thinkingLevel": "LOW"}, "gemini-3-pro-preview")[2] == [
        ("gemini.request.thinking-one-control", "/generationConfig/thinkingConfig")
    ]


def test_thinking_level_outside_the_enum_is_refused() -> None:
    assert _thinking({"thinkingLevel": "ULTRA"}, "gemini-3-flash")[2] == [
        ("gemini.request.thinking-level-values", "/generationConfig/thinkingConfig/thinkingLevel")
    ]


def test_thinking_level_on_gemini_2_5_is_sent_as_a_budget() -> None:
    config, changes, left = _thinking({"thinkingLevel": "low", "includeThoughts": True}, "gemini-2.5-flash")
    assert config == {"includeThoughts": True, "thinkingBudget": 1024}
    assert (
        changes == [("gemini.request.thinking-level-family", "/generationConfig/thinkingConfig/thinkingBudget")]
        and left == []
    )
    assert _thinking({"thinkingLevel": "LOW"}, "gemini-3-flash")[0] == {"thinkingLevel": "LOW"}


def test_thinking_level_minimal_on_gemini_3_pro_is_sent_as_low() -> None:
    config, changes, _ = _thinking({"thinkingLevel": "MINIMAL"}, "gemini-3.1-pro-preview")
    assert config == {"thinkingLevel": "LOW"} and changes == [
        ("gemini.request.thinking-level-pro", "/generationConfig/thinkingConfig/thinkingLevel")
    ]
    assert _thinking({"thinkingLevel": "MINIMAL"}, "gemini-3-flash")[0] == {"thinkingLevel": "MINIMAL"}


@pytest.mark.parametrize(
    "model, budget, sent",
    [
        ("gemini-2.5-pro", 0, 128),
        ("gemini-2.5-pro", 52428, 32768),
        ("gemini-2.5-flash", 52428, 24576),
        ("gemini-2.5-flash", 0, 0),
        ("gemini-2.5-flash-lite", 100, 512),
        ("gemini-2.5-flash-lite", 0, 0),
        ("gemini-2.5-pro", -1, -1),
    ],
)
def test_thinking_budget_moved_into_the_models_range(model: str, budget: int, sent: int) -> None:
    config, changes, _ = _thinking({"thinkingBudget": budget}, model)
    assert config == {"thinkingBudget": sent}
    assert changes == (
        []
        if sent == budget
        else [("gemini.request.thinking-budget-range", "/generationConfig/thinkingConfig/thinkingBudget")]
    )


def test_thinking_budget_zero_on_gemini_3_pro_becomes_level_low() -> None:
    config, changes, _ = _thinking({"thinkingBudget": 0}, "gemini-3-pro-preview")
    assert config == {"thinkingLevel": "LOW"}
    assert changes == [("gemini.request.thinking-budget-range", "/generationConfig/thinkingConfig/thinkingLevel")]


def test_thinking_config_left_out_for_models_that_do_not_think() -> None:
    config, changes, _ = _thinking({"thinkingBudget": 1024}, "gemini-2.0-flash")
    assert config is None and changes == [("gemini.request.thinking-unsupported", "/generationConfig/thinkingConfig")]
    assert _thinking({"thinkingBudget": 1024}, "gemini-2.0-flash-thinking-exp")[0] == {"thinkingBudget": 1024}


@pytest.mark.parametrize(
    "model, config, sent",
    [
        # thinking off: no thoughts to include (the API: "Thinking_config.include_thoughts is only
        # enabled when thinking is enabled.")
        ("gemini-2.5-flash", {"thinkingBudget": 0, "includeThoughts": True}, {"thinkingBudget": 0}),
        ("gemini-2.5-flash-lite", {"thinkingBudget": 0, "includeThoughts": True}, {"thinkingBudget": 0}),
        # Flash-Lite thinks only when given a budget
        ("gemini-2.5-flash-lite", {"includeThoughts": True}, None),
        ("gemini-2.5-flash-lite-preview-06-17", {"includeThoughts": True}, None),
    ],
)
def test_include_thoughts_left_out_when_the_model_does_not_think(
    model: str, config: dict[str, Any], sent: dict[str, Any] | None
) -> None:
    out, changes, left = _thinking(config, model)
    assert out == sent and left == []
    assert changes == [
        ("gemini.request.include-thoughts-without-thinking", "/generationConfig/thinkingConfig/includeThoughts")
    ]


@pytest.mark.parametrize(
    "model, config",
    [
        ("gemini-2.5-flash", {"includeThoughts": True}),  # thinks by default
        ("gemini-2.5-flash-lite", {"thinkingBudget": 1024, "includeThoughts": True}),
        ("gemini-2.5-flash-lite", {"thinkingBudget": -1, "includeThoughts": True}),
        ("gemini-2.5-flash", {"thinkingBudget": 0, "includeThoughts": False}),
        ("gemini-3-flash-preview", {"thinkingLevel": "MINIMAL", "includeThoughts": True}),  # always thinks
    ],
)
def test_include_thoughts_kept_when_the_model_thinks(model: str, config: dict[str, Any]) -> None:
    assert _thinking(dict(config), model)[:2] == (config, [])


def test_include_thoughts_kept_after_a_zero_budget_is_raised_on_gemini_2_5_pro() -> None:
    out, changes, _ = _thinking({"thinkingBudget": 0, "includeThoughts": True}, "gemini-2.5-pro")
    assert out == {"thinkingBudget": 128, "includeThoughts": True}
    assert [r for r, _ in changes] == ["gemini.request.thinking-budget-range"]


@pytest.mark.parametrize(
    "model_id, thinking, sent",
    [
        ("gemini-2.5-flash", {"effort": "none", "include_thoughts": True}, {"thinkingConfig": {"thinkingBudget": 0}}),
        ("gemini-2.5-flash", {"budget": 0, "include_thoughts": True}, {"thinkingConfig": {"thinkingBudget": 0}}),
        ("gemini-2.5-flash-lite", {"include_thoughts": True}, {}),
    ],
)
def test_include_thoughts_without_thinking_through_the_sdk(
    mock_model: Any, model_id: str, thinking: dict[str, Any], sent: dict[str, Any] | None
) -> None:
    model = mock_model([json_response(candidate_body([{"text": "x"}]))], model_id=model_id, thinking=thinking)
    resp = run(model.send(model.build_request([Message.user("hi")])))
    body = model.sent[0].json
    assert body.get("generationConfig") == sent
    assert [(c.rule, c.pointer, c.lossy) for c in resp.preflight.changes] == [
        (
            "gemini.request.include-thoughts-without-thinking",
            "/generationConfig/thinkingConfig/includeThoughts",
            False,
        )
    ]


# ------------------------------------------------------------------ conversation


def test_roles_other_than_user_and_model_are_mapped() -> None:
    body = {
        "contents": [
            {"role": "system", "parts": [{"text": "a"}]},
            {"role": "assistant", "parts": [{"text": "b"}]},
            {"role": "function", "parts": [{"text": "c"}]},
        ]
    }
    assert ("gemini.conversation.roles", "/contents/0/role") in violations(body)
    out, changes = repair(body)
    assert [c["role"] for c in out["contents"]] == ["user", "model", "user"]
    assert [r for r, _ in changes] == ["gemini.conversation.roles"] * 3
    assert violations(out) == []


def test_contents_without_parts_and_parts_without_data_are_left_out() -> None:
    body = {
        "contents": [
            user("a"),
            {"role": "model", "parts": []},
            {"role": "user", "parts": [{}, {"text": "b"}]},
            {"role": "model"},
        ]
    }
    assert ("gemini.conversation.parts-non-empty", "/contents/1/parts") in violations(body)
    assert ("gemini.conversation.empty-parts", "/contents/2/parts/0") in violations(body)
    out, changes = repair(body)
    assert out["contents"] == [user("a"), {"role": "user", "parts": [{"text": "b"}]}]
    assert ("gemini.conversation.parts-non-empty", "/contents/1") in changes and (
        "gemini.conversation.empty-parts",
        "/contents/2/parts/0",
    ) in changes
    # an empty text part is sent as is (recorded requests carry one and were accepted), and so is a signed one
    kept = {"contents": [user(""), {"role": "model", "parts": [{"text": "", "thoughtSignature": SIG}]}]}
    assert repair(kept) == (kept, []) and violations(kept) == []


def test_a_part_with_two_data_fields_is_split_in_order() -> None:
    part = {"text": "see", "inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}, "thoughtSignature": SIG}
    body = {"contents": [{"role": "model", "parts": [part]}]}
    assert violations(body) == [("gemini.conversation.one-data-field", "/contents/0/parts/0")]
    out, changes = repair(body)
    assert out["contents"][0]["parts"] == [
        {"text": "see", "thoughtSignature": SIG},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
    ]
    assert changes == [("gemini.conversation.one-data-field", "/contents/0/parts/0")]


def test_a_leading_call_turn_gets_a_user_turn_and_consecutive_model_turns_merge() -> None:
    body = {
        "contents": [
            {"role": "model", "parts": [call()]},
            {"role": "user", "parts": [response()]},
            {"role": "model", "parts": [{"text": "Let me check again."}]},
            {"role": "model", "parts": [call()]},
            {"role": "user", "parts": [response()]},
        ]
    }
    before = violations(body)
    assert ("gemini.conversation.call-turn-placement", "/contents/0") in before
    assert ("gemini.conversation.call-turn-placement", "/contents/3") in before
    out, changes = repair(body)
    assert [c["role"] for c in out["contents"]] == ["user", "model", "user", "model", "user"]
    assert out["contents"][3]["parts"] == [{"text": "Let me check again."}, call()]
    assert [r for r, _ in changes] == ["gemini.conversation.call-turn-placement"] * 2
    assert violations(out) == []


def test_model_turns_without_calls_before_a_call_turn_merge_with_it() -> None:
    """A run of model turns (a note, a thought, then the calls; or the calls, then a note) is one
    model turn, so the function response turn comes right after the calls. Only the turn right
    before a call turn was merged, so a note two turns before the calls left the call turn after
    a model turn (refused: call-turn-placement); and a note after the calls was not merged at
    all (refused: response-count). Found by a cross-API conversation fuzz."""
    note, thought = {"text": "Let me see."}, {"text": "hmm", "thought": True}
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [note]},
            {"role": "model", "parts": [thought]},
            {"role": "model", "parts": [call()]},
            {"role": "model", "parts": [{"text": "Still looking."}]},
            {"role": "user", "parts": [response()]},
        ]
    }
    out, changes = repair(body)
    assert [c["role"] for c in out["contents"]] == ["user", "model", "user"]
    assert out["contents"][1]["parts"] == [note, thought, call(), {"text": "Still looking."}]
    assert [r for r, _ in changes] == ["gemini.conversation.call-turn-placement"] * 3
    assert violations(out) == []


def test_a_response_turn_without_its_call_turn_is_refused_naming_the_call() -> None:
    body = {"contents": [user(), {"role": "user", "parts": [response(id="c9")]}]}
    (v,) = JSON.check_request(body)
    assert (v.rule, v.pointer, v.tool, v.call_id) == (
        "gemini.conversation.response-turn-placement",
        "/contents/1/parts/0",
        "get_weather",
        "c9",
    )


def test_every_call_answered_exactly_once() -> None:
    calls = {"role": "model", "parts": [call(id="c1"), call("get_time", id="c2", args={})]}
    body = {"contents": [user(), calls, {"role": "user", "parts": [response(id="c1")]}]}
    (v,) = JSON.check_request(body)
    assert (v.rule, v.pointer, v.tool, v.call_id) == (
        "gemini.conversation.response-count",
        "/contents/2/parts",
        "get_time",
        "c2",
    )
    twice = {
        "contents": [
            user(),
            calls,
            {"role": "user", "parts": [response(id="c1"), response("get_time", id="c2"), response(id="c1")]},
        ]
    }
    assert [v.rule for v in JSON.check_request(twice)] == ["gemini.conversation.response-count"]
    ok = {"contents": [user(), calls, {"role": "user", "parts": [response(id="c1"), response("get_time", id="c2")]}]}
    assert violations(ok) == []


def test_responses_match_their_calls_and_missing_ids_are_filled_in() -> None:
    calls = {"role": "model", "parts": [call(id="c1"), call("get_time", id="c2", args={})]}
    body = {"contents": [user(), calls, {"role": "user", "parts": [response(), response("get_time", id="c2")]}]}
    assert violations(body) == [("gemini.conversation.response-match", "/contents/2/parts/0/functionResponse/id")]
    out, changes = repair(body)
    assert out["contents"][2]["parts"][0]["functionResponse"]["id"] == "c1"
    assert changes == [("gemini.conversation.response-match", "/contents/2/parts/0/functionResponse/id")]
    assert violations(out) == []
    swapped = {
        "contents": [user(), calls, {"role": "user", "parts": [response("get_time", id="c2"), response(id="c1")]}]
    }
    got = JSON.check_request(repair(swapped)[0])
    assert {(v.rule, v.call_id) for v in got} == {
        ("gemini.conversation.response-match", "c1"),
        ("gemini.conversation.response-match", "c2"),
    }


def test_a_response_that_is_not_an_object_is_wrapped_as_output() -> None:
    body = {
        "contents": [user(), {"role": "model", "parts": [call()]}, {"role": "user", "parts": [response(value=[1, 2])]}]
    }
    assert violations(body) == [
        ("gemini.conversation.response-object", "/contents/2/parts/0/functionResponse/response")
    ]
    out, changes = repair(body)
    assert out["contents"][2]["parts"][0]["functionResponse"]["response"] == {"output": [1, 2]}
    assert changes == [("gemini.conversation.response-object", "/contents/2/parts/0/functionResponse/response")]


def test_response_parts_hold_only_inline_or_file_data() -> None:
    fr = response()
    fr["functionResponse"]["parts"] = [
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
        {"text": "caption"},
    ]
    body = {"contents": [user(), {"role": "model", "parts": [call()]}, {"role": "user", "parts": [fr]}]}
    assert violations(body) == [("gemini.conversation.response-parts", "/contents/2/parts/0/functionResponse/parts/1")]


def test_call_arguments_must_be_an_object() -> None:
    body = {
        "contents": [
            user(),
            {"role": "model", "parts": [call(args="city=Paris")]},
            {"role": "user", "parts": [response()]},
        ]
    }
    assert violations(body) == [("gemini.conversation.call-args-object", "/contents/1/parts/0/functionCall/args")]


def test_call_and_response_shapes() -> None:
    body = {
        "contents": [
            user(),
            {"role": "model", "parts": [{"functionCall": {"name": "", "args": {}, "id": 7}}]},
            {"role": "user", "parts": [{"functionResponse": {"response": {"output": "x"}}}]},
        ]
    }
    got = JSON.check_request(body)
    assert ("gemini.conversation.call-shape", "/contents/1/parts/0/functionCall") in [(v.rule, v.pointer) for v in got]
    assert ("gemini.conversation.response-shape", "/contents/2/parts/0/functionResponse/name") in [
        (v.rule, v.pointer) for v in got
    ]


def test_a_request_ending_on_unanswered_calls_is_refused() -> None:
    body = {"contents": [user(), {"role": "model", "parts": [call(id="c1")]}]}
    (v,) = JSON.check_request(body)
    assert (v.rule, v.pointer, v.tool, v.call_id) == (
        "gemini.conversation.trailing-calls",
        "/contents/1",
        "get_weather",
        "c1",
    )


def test_unknown_part_fields_are_left_out_and_inline_data_is_checked() -> None:
    body = {
        "contents": [
            {
                "role": "user",
                "parts": [{"text": "hi", "id": "m1"}, {"inlineData": {"mimeType": "image/png", "data": "not base64!"}}],
            }
        ]
    }
    before = violations(body)
    assert ("gemini.conversation.part-fields", "/contents/0/parts/0/id") in before
    assert ("gemini.conversation.inline-data", "/contents/0/parts/1/inlineData") in before
    out, changes = repair(body)
    assert out["contents"][0]["parts"][0] == {"text": "hi"} and changes == [
        ("gemini.conversation.part-fields", "/contents/0/parts/0/id")
    ]
    assert violations(out) == [("gemini.conversation.inline-data", "/contents/0/parts/1/inlineData")]
    ok = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {
                        "inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="},
                        "media_resolution": {"level": "x"},
                    }
                ],
            }
        ]
    }
    assert violations(ok) == [] and repair(ok)[1] == []


def test_a_signature_that_is_not_base64_is_left_out_and_both_alphabets_are_accepted() -> None:
    urlsafe = SIG.replace("+", "-").replace("/", "_")
    body = {
        "contents": [
            user(),
            {"role": "model", "parts": [call(sig="claude#abc:def")]},
            {"role": "user", "parts": [response()]},
            {"role": "model", "parts": [call(sig=urlsafe)]},
            {"role": "user", "parts": [response()]},
        ]
    }
    assert violations(body) == [
        ("gemini.conversation.thought-signature-base64", "/contents/1/parts/0/thoughtSignature")
    ]
    out, changes = repair(body, GeminiProfile(model="gemini-2.5-flash"))
    assert "thoughtSignature" not in out["contents"][1]["parts"][0]
    assert out["contents"][3]["parts"][0]["thoughtSignature"] == urlsafe
    assert changes == [("gemini.conversation.thought-signature-base64", "/contents/1/parts/0/thoughtSignature")]


def test_gemini_3_call_turns_without_a_signature_get_the_placeholder() -> None:
    body = {
        "contents": [
            user(),
            {"role": "model", "parts": [call(), call("get_time", args={})]},
            {"role": "user", "parts": [response(), response("get_time")]},
            {"role": "model", "parts": [call(sig=SIG), call("get_time", args={})]},
            {"role": "user", "parts": [response(), response("get_time")]},
        ]
    }
    out, changes = repair(body, GeminiProfile(model="gemini-3-pro-preview"))
    assert out["contents"][1]["parts"][0]["thoughtSignature"] == SKIP_SIGNATURE
    assert "thoughtSignature" not in out["contents"][1]["parts"][1]
    assert out["contents"][3]["parts"] == body["contents"][3]["parts"]  # already signed: untouched
    assert changes == [("gemini.conversation.thought-signature-required", "/contents/1/parts/0/thoughtSignature")]
    assert repair(body, GeminiProfile(model="gemini-2.5-flash"))[1] == []
    assert repair(body, GeminiProfile(model="gemini-3-pro-preview", foreign_thought_signature="none"))[1] == []


def test_thought_parts_and_signatures_in_a_user_turn_are_left_out() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "musing", "thought": True}, {"text": "hi", "thoughtSignature": SIG}]}
        ]
    }
    assert violations(body) == [
        ("gemini.conversation.thoughts-in-model-turns", "/contents/0/parts/0"),
        ("gemini.conversation.thoughts-in-model-turns", "/contents/0/parts/1/thoughtSignature"),
    ]
    out, changes = repair(body)
    assert out["contents"] == [user("hi")]
    assert changes == [
        ("gemini.conversation.thoughts-in-model-turns", "/contents/0/parts/0"),
        ("gemini.conversation.thoughts-in-model-turns", "/contents/0/parts/1/thoughtSignature"),
    ]


def test_incremental_check_looks_at_new_contents_only() -> None:
    broken = {"contents": [{"role": "user", "parts": [{}]}, user("ok"), {"role": "model", "parts": [{"text": "fine"}]}]}
    assert violations(broken) == [("gemini.conversation.empty-parts", "/contents/0/parts/0")]
    assert violations(broken, start=1) == []
    pair = {
        "contents": [
            user(),
            {"role": "model", "parts": [call(id="c1")]},
            {"role": "user", "parts": [response(id="c2")]},
        ]
    }
    assert violations(pair, start=2) == [
        ("gemini.conversation.response-match", "/contents/2/parts/0/functionResponse/id")
    ]


def test_a_conversation_toolwire_produced_passes_unchanged(mock_model: Any) -> None:
    weather = Tool.from_schema(
        "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    )
    model = mock_model(
        [
            json_response(candidate_body([call(sig=SIG), call(args={"city": "Oslo"})], response_id="r1")),
            json_response(candidate_body([{"text": "Sunny."}])),
        ],
        model_id="gemini-3-flash-preview",
    )
    first = run(model.send(model.build_request([Message.user("Paris and Oslo?")], tools=[weather])))
    msgs = [
        Message.user("Paris and Oslo?"),
        first.to_message(),
        Message("user", [ToolResult(c.id, "18C", name=c.name) for c in first.tool_calls]),
    ]
    request = model.build_request(msgs, tools=[weather])
    body = model.codec.encode_request(request)
    profile = GeminiModel.make_profile(model="gemini-3-flash-preview")
    assert repair(body, profile) == (body, []) and violations(body, profile) == []


# ------------------------------------------------------------------ stop reasons


def test_failed_turn_stop_reasons() -> None:
    for reason in (
        "SAFETY",
        "RECITATION",
        "MALFORMED_FUNCTION_CALL",
        "UNEXPECTED_TOOL_CALL",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "OTHER",
        "LANGUAGE",
        "TOO_MANY_TOOL_CALLS",
        "MISSING_THOUGHT_SIGNATURE",
        "blockReason:SAFETY",
    ):
        assert JSON.turn_failed(reason), reason
    for reason in ("STOP", "MAX_TOKENS", "CONTINUATION", None, "SOMETHING_NEW"):
        assert not JSON.turn_failed(reason), reason
    from google.genai import types

    known = {m.value for m in types.FinishReason}
    assert FAILED_FINISH_REASONS <= known  # every listed reason exists in the SDK's enum
    assert known - FAILED_FINISH_REASONS == {"STOP", "MAX_TOKENS", "CONTINUATION"}


# ------------------------------------------------------------------ tokens


def test_offline_estimate_counts_each_declarations_json() -> None:

    from toolwire.design.tokens import encoding

    decl = {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parametersJsonSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    text = json.dumps(decl, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    assert JSON.estimate_tokens([decl]) == len(encoding().encode(text)) > 10
    assert JSON.estimate_tokens([decl, decl]) == 2 * JSON.estimate_tokens([decl])
    assert JSON.estimate_tokens([]) == 0


def test_live_count_sends_the_whole_request_through_the_sdk() -> None:
    seen: list[Any] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append((str(request.url), json.loads(request.content), request.headers.get("x-goog-api-key")))
        return httpx2.Response(
            200, json={"totalTokens": 87, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 87}]}
        )

    body = {
        "contents": [user("Weather in Paris?")],
        "tools": TOOLS,
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
    }
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    assert run(JSON.count_tokens(body, model="gemini-2.5-flash", api_key="k", http_client=client)) == 87
    url, sent, key = seen[0]
    assert url == "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens" and key == "k"
    assert sent == {"generateContentRequest": {"model": "models/gemini-2.5-flash", **body}}


# ------------------------------------------------------------------ recorded requests


def _recorded() -> list[Any]:
    root = recordings_dir()
    folder = root / "gemini" if root else None
    if folder is None or not folder.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="shared/recordings/gemini not found"))]
    return [pytest.param(f, id=f.name) for f in sorted(folder.glob("*.yaml"))]


@pytest.mark.parametrize("path", _recorded())
def test_every_recorded_request_passes_and_needs_no_repair(path: Path) -> None:
    checked = 0
    for inter in load_cassette(path):
        body = inter.request_json
        if not isinstance(body, dict):
            continue
        model = inter.uri.split("/models/")[1].split(":")[0]
        for mode in ("json_schema", "openapi"):
            profile = GeminiProfile(mode, model=model)
            assert profile.check_request(body) == [], (path.name, mode)
            assert repair(body, profile) == (body, []), (path.name, mode)
        checked += 1
    assert checked > 0


# ------------------------------------------------------------------ preflight through the SDK


def test_a_refused_request_is_never_sent_and_names_rule_and_pointer(mock_model: Any) -> None:
    from toolwire.errors import RequestRefused

    model = mock_model(
        [json_response(candidate_body([{"text": "x"}]))],
        model_id="gemini-3-pro-preview",
        thinking={"budget": 1024, "level": "LOW"},
    )
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent == []
    (v,) = info.value.violations
    assert (v.rule, v.pointer) == ("gemini.request.thinking-one-control", "/generationConfig/thinkingConfig")
    assert "gemini.request.thinking-one-control" in str(info.value) and "/generationConfig/thinkingConfig" in str(
        info.value
    )


def test_repairs_are_applied_before_sending_and_reported_on_the_turn(mock_model: Any) -> None:
    model = mock_model(
        [json_response(candidate_body([{"text": "x"}]))], model_id="gemini-2.5-pro", thinking={"type": "disabled"}
    )
    resp = run(model.send(model.build_request([Message.user("hi")], tool_choice="none")))
    sent = model.sent[0].json
    assert "toolConfig" not in sent and sent["generationConfig"]["thinkingConfig"] == {"thinkingBudget": 128}
    assert [(c.rule, c.pointer, c.lossy) for c in resp.preflight.changes] == [
        ("gemini.request.tool-config-without-tools", "/toolConfig/functionCallingConfig", False),
        ("gemini.request.thinking-budget-range", "/generationConfig/thinkingConfig/thinkingBudget", True),
    ]


def test_openapi_mode_profile_comes_from_the_model_settings(mock_model: Any) -> None:
    model = mock_model([json_response(candidate_body([{"text": "x"}]))], schema_mode="openapi")
    assert model.profile.schema_mode == "openapi" and model.profile.model == "gemini-2.5-flash"
    assert "gemini.schema.openapi.enum-string" in model.profile.rules
    import toolwire

    assert toolwire.registry.profile("gemini", schema_mode="openapi").schema_mode == "openapi"


def test_incremental_check_follows_repairs_that_move_contents() -> None:
    from toolwire.profile import PreflightState, preflight

    profile = GeminiProfile(model="gemini-2.5-flash")
    state = PreflightState()
    first = {"contents": [{"role": "model", "parts": [call()]}, {"role": "user", "parts": [response()]}]}
    sent, report = preflight(profile, first, state=state)
    assert [c["role"] for c in sent["contents"]] == ["user", "model", "user"] and len(report) == 1
    # next turn: the same history plus a model call turn answered by a mismatched response
    second = {
        "contents": first["contents"]
        + [{"role": "model", "parts": [call(id="c7")]}, {"role": "user", "parts": [response(id="c8")]}]
    }
    assert state.start(profile, second) == 2
    from toolwire.errors import RequestRefused

    with pytest.raises(RequestRefused) as info:
        preflight(profile, second, state=state)
    assert [(v.rule, v.pointer) for v in info.value.violations] == [
        ("gemini.conversation.response-match", "/contents/4/parts/0/functionResponse/id")
    ]


# ------------------------------------------------------------------ docs


def test_the_docs_page_lists_every_rule_with_its_action() -> None:
    page = Path(__file__).resolve().parents[3] / "docs" / "rules" / "gemini.md"
    if not page.exists():
        pytest.skip("docs not found")
    text = page.read_text()
    for r in RULES:
        row = next((line for line in text.splitlines() if line.startswith(f"| `{r.id}` |")), None)
        assert row is not None, r.id
        assert row.rstrip().endswith(f"| {r.action} |"), r.id


# ------------------------------------------------------------------ robustness


def test_repair_and_check_never_crash_on_json_shaped_bodies() -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    keys = st.sampled_from(
        [
            "contents",
            "parts",
            "role",
            "text",
            "functionCall",
            "functionResponse",
            "name",
            "id",
            "args",
            "response",
            "thoughtSignature",
            "thought",
            "tools",
            "functionDeclarations",
            "parameters",
            "parametersJsonSchema",
            "type",
            "properties",
            "enum",
            "required",
            "items",
            "anyOf",
            "toolConfig",
            "functionCallingConfig",
            "mode",
            "allowedFunctionNames",
            "generationConfig",
            "thinkingConfig",
            "thinkingBudget",
            "thinkingLevel",
            "responseMimeType",
            "inlineData",
            "data",
            "mimeType",
            "model",
            "user",
            "x",
        ]
    )
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 70000),
        st.text(max_size=8),
        st.sampled_from(["user", "model", "ANY", "AUTO", "OBJECT", "object", "LOW", SIG, "get_weather"]),
    )
    value = st.recursive(
        leaf,
        lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=4)),
        max_leaves=25,
    )
    profiles = [
        GeminiProfile(model="gemini-2.5-pro"),
        GeminiProfile("openapi", model="gemini-3-pro-preview"),
        GeminiProfile(),
    ]

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.dictionaries(keys, value, max_size=5), st.integers(0, 3))
    def check(body: dict[str, Any], start: int) -> None:
        for p in profiles:
            out = p.repair_request(body, RequestReport("gemini"), start=start)
            assert isinstance(out, dict)
            for v in p.check_request(out, start=start):
                assert v.rule in p.rules, v
                assert v.pointer == "" or v.pointer.startswith("/")

    check()


def test_more_than_512_function_declarations_are_refused(mock_model: Any) -> None:
    from toolwire_gemini.profile import MAX_FUNCTION_DECLARATIONS

    import toolwire
    from toolwire.profile import RequestRefused

    def decls(n: int) -> list[dict[str, Any]]:
        return [{"functionDeclarations": [{"name": f"tool_{i}", "description": "d"} for i in range(n)]}]

    assert MAX_FUNCTION_DECLARATIONS == 512
    assert GeminiProfile().check_request({"contents": [user()], "tools": decls(512)}) == []
    (v,) = GeminiProfile().check_request({"contents": [user()], "tools": decls(513)})
    assert (v.rule, v.pointer) == ("gemini.request.declaration-count", "/tools") and "513" in v.message
    # through the SDK: nothing is sent
    tools = [Tool.from_schema(f"tool_{i}", "d", {"type": "object", "properties": {}}) for i in range(513)]
    model = mock_model([])
    with pytest.raises(RequestRefused):
        toolwire.run_sync(model, "hi", tools=tools)
    assert model.sent == []


def test_image_types_gemini_reads_and_the_jpg_spelling(mock_model: Any) -> None:
    import toolwire
    from toolwire.profile import RequestRefused
    from toolwire.types import ImagePart, TextPart

    def shot(kind: str, data: bytes = b"\xff\xd8\xff\xe0 fake") -> Any:
        return ImagePart(data=data, media_type=kind)

    # image/jpg (an unregistered spelling Gemini refuses) goes as image/jpeg, in a user turn and a tool
    # result (Gemini 3: a function response takes images)
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], model_id="gemini-3-pro-preview")
    conv = [
        Message("user", [TextPart("look"), shot("image/jpg")]),
        Message("assistant", [ToolCall(id="c1", name="snap", arguments={})]),
        Message("user", [ToolResult("c1", [shot("IMAGE/JPG")], name="snap")]),
    ]
    toolwire.run_sync(model, conversation=toolwire.Conversation(conv))
    sent = json.dumps(model.sent[0].json)
    assert "image/jpg" not in sent.lower() and sent.count('"mimeType": "image/jpeg"') == 2
    # a type Gemini does not read is refused before sending, with its pointer
    for kind in ("image/bmp", "image/tiff", "image/svg+xml"):
        model = mock_model([])
        with pytest.raises(RequestRefused) as info:
            toolwire.run_sync(
                model, conversation=toolwire.Conversation([Message("user", [TextPart("look"), shot(kind, b"BM fake")])])
            )
        assert model.sent == []
        assert [(v.rule, v.pointer) for v in info.value.violations] == [
            ("gemini.conversation.image-media-type", "/contents/0/parts/1/inlineData/mimeType")
        ]
    # other inline data (a PDF document) is not an image: not this rule's
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))])
    pdf = ImagePart(data=b"%PDF-1.4", media_type="application/pdf")
    toolwire.run_sync(model, conversation=toolwire.Conversation([Message("user", [TextPart("read"), pdf])]))
    assert len(model.sent) == 1


_PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def test_an_image_declared_another_type_than_its_bytes_is_sent_as_its_bytes_and_reported(mock_model: Any) -> None:
    """Rule gemini.conversation.image-media-type-data: a PNG declared image/jpeg (in a user turn
    and in a function response, Gemini 3) is sent as image/png and the correction is on the
    report (not lossy), as on Anthropic and OpenAI; it was corrected silently before."""
    import base64

    import toolwire
    from toolwire.types import ImagePart, TextPart

    png = base64.b64decode(_PNG_1PX)
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], model_id="gemini-3-pro-preview")
    conv = [
        Message("user", [TextPart("look"), ImagePart(data=png, media_type="image/jpeg")]),
        Message("assistant", [ToolCall(id="c1", name="snap", arguments={})]),
        Message("user", [ToolResult("c1", [ImagePart(data=png, media_type="application/octet-stream")], name="snap")]),
    ]
    result = toolwire.run_sync(model, conversation=toolwire.Conversation(conv))
    sent = model.sent[0].json
    assert sent["contents"][0]["parts"][1]["inlineData"] == {"mimeType": "image/png", "data": _PNG_1PX}
    response_parts = sent["contents"][2]["parts"][0]["functionResponse"]["parts"]
    assert response_parts[0]["inlineData"]["mimeType"] == "image/png"
    changes = [(c.rule, c.pointer, c.detail, c.lossy) for c in result.turns[0].response.preflight.changes]
    assert changes == [
        (
            "gemini.conversation.image-media-type-data",
            "/contents/0/parts/1/inlineData/mimeType",
            "media type 'image/jpeg' sent as 'image/png': the image's bytes are PNG",
            False,
        ),
        (
            "gemini.conversation.image-media-type-data",
            "/contents/2/parts/0/functionResponse/parts/0/inlineData/mimeType",
            "media type 'application/octet-stream' sent as 'image/png': the image's bytes are PNG",
            False,
        ),
    ]
    # only the function response holds an image (the turns before it need no repair): still corrected
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], model_id="gemini-3-pro-preview")
    result = toolwire.run_sync(model, conversation=toolwire.Conversation([Message.user("look"), *conv[1:]]))
    assert model.sent[0].json["contents"][2]["parts"][0]["functionResponse"]["parts"][0]["inlineData"] == {
        "mimeType": "image/png",
        "data": _PNG_1PX,
    }
    assert [(c.rule, c.pointer) for c in result.turns[0].response.preflight.changes] == [
        (
            "gemini.conversation.image-media-type-data",
            "/contents/2/parts/0/functionResponse/parts/0/inlineData/mimeType",
        )
    ]
    # a body imported or built by hand with the mismatch: check_request names it, the repair fixes it
    body = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/jpeg", "data": _PNG_1PX}}]}]}
    assert [(v.rule, v.pointer) for v in model.profile.check_request(body)] == [
        ("gemini.conversation.image-media-type-data", "/contents/0/parts/0/inlineData/mimeType")
    ]


def test_inline_data_that_is_no_image_is_refused_with_its_pointer_and_call() -> None:
    """Rule gemini.conversation.image-bytes on a body built or imported by hand: an HTML page
    declared image/jpeg in a prompt and image/png in a function response is refused, the
    response's naming its call; a HEIC, a PDF and audio are not judged by their bytes, and an
    empty blob is rule inline-data's alone."""
    html = base64.b64encode(b"<html>404 not found</html>").decode()
    fr = response(id="c1")
    fr["functionResponse"]["parts"] = [{"inlineData": {"mimeType": "image/png", "data": html}}]
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "look"}, {"inline_data": {"mime_type": "image/jpeg", "data": html}}]},
            {"role": "model", "parts": [call(id="c1")]},
            {"role": "user", "parts": [fr]},
        ]
    }
    found = JSON.check_request(body)
    assert [(v.rule, v.pointer, v.call_id) for v in found] == [
        ("gemini.conversation.image-bytes", "/contents/0/parts/1/inline_data/data", None),
        ("gemini.conversation.image-bytes", "/contents/2/parts/0/functionResponse/parts/0/inlineData/data", "c1"),
    ]
    assert "holds bytes that are not an image (they begin '<html>404 not fo...')" in found[0].message
    # the repair leaves it as it is: refused
    out, _changes = repair(copy.deepcopy(body))
    assert [v for v, _p in violations(out)] == ["gemini.conversation.image-bytes"] * 2
    for mime in ("image/heic", "application/pdf", "audio/wav"):
        other = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": mime, "data": html}}]}]}
        assert violations(other) == [], mime
    empty = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": ""}}]}]}
    assert violations(empty) == [("gemini.conversation.inline-data", "/contents/0/parts/0/inlineData")]


@pytest.mark.parametrize(
    "model_id, asked, sent",
    [
        ("gemini-2.5-pro", 100_000, 65_536),
        ("gemini-2.0-flash-001", 65_536, 8_192),
        ("gemini-3-flash-preview", 65_537, 65_536),
        ("gemini-2.5-flash", 65_536, 65_536),  # at the limit: unchanged
        ("gemini-2.5-flash-image", 65_536, 65_536),  # a variant toolwire does not know: as asked
    ],
)
def test_max_output_tokens_above_the_model_limit_is_lowered_on_the_wire(
    mock_model: Any, model_id: str, asked: int, sent: int
) -> None:
    model = mock_model([json_response(candidate_body([{"text": "x"}]))], model_id=model_id, max_tokens=asked)
    resp = run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["generationConfig"]["maxOutputTokens"] == sent
    changes = [(c.rule, c.pointer) for c in resp.preflight.changes] if resp.preflight else []
    assert changes == (
        [] if sent == asked else [("gemini.request.max-tokens-model", "/generationConfig/maxOutputTokens")]
    )


def test_max_output_tokens_in_snake_case_is_lowered_too() -> None:
    profile = GeminiProfile(model="models/gemini-1.5-flash")
    body, changes = repair({"contents": [user()], "generation_config": {"max_output_tokens": 10_000}}, profile)
    assert body["generation_config"] == {"max_output_tokens": 8192}
    assert changes == [("gemini.request.max-tokens-model", "/generation_config/max_output_tokens")]


def test_gemma_3_gets_the_system_instruction_in_the_first_user_turn(mock_model: Any) -> None:
    """ "Developer instruction is not enabled for models/gemma-3-27b-it": the instruction's text
    goes first in the first user turn; a Gemini model keeps ``systemInstruction``."""
    for model_id, moved in (("gemma-3-27b-it", True), ("models/gemma-3n-e4b-it", True), ("gemini-2.5-flash", False)):
        model = mock_model([json_response(candidate_body([{"text": "ok"}]))], model_id=model_id)
        resp = run(model.send(model.build_request([Message.user("Weather in Paris?")], instructions="Be brief.")))
        sent = model.sent[0].json
        changes = [c.rule for c in resp.preflight.changes] if resp.preflight else []
        if moved:
            assert "systemInstruction" not in sent
            assert sent["contents"][0] == {
                "role": "user",
                "parts": [{"text": "Be brief."}, {"text": "Weather in Paris?"}],
            }
            assert changes == ["gemini.request.system-instruction-model"]
        else:
            assert sent["systemInstruction"]["parts"] == [{"text": "Be brief."}]
            assert changes == []


def test_gemma_3_with_tools_is_refused_before_sending_and_gemma_4_is_not(mock_model: Any) -> None:
    """ "Function calling is not enabled for models/gemma-3-12b-it"."""
    from toolwire.errors import RequestRefused

    weather = Tool.from_schema(
        "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}}
    )
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], model_id="gemma-3-12b-it")
    with pytest.raises(RequestRefused, match="gemini.request.function-calling-model"):
        run(model.send(model.build_request([Message.user("hi")], tools=[weather])))
    assert model.sent == []
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], model_id="gemma-4-31b-it")
    run(model.send(model.build_request([Message.user("hi")], tools=[weather])))
    assert model.sent[0].json["tools"][0]["functionDeclarations"][0]["name"] == "get_weather"


def test_two_declarations_with_one_name_are_refused_before_sending(mock_model: Any) -> None:
    from toolwire.errors import RequestRefused

    web = Tool.from_schema("search", "Search web.", {"type": "object", "properties": {"q": {"type": "string"}}})
    files = Tool.from_schema("search", "Search files.", {"type": "object", "properties": {"q": {"type": "string"}}})
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))])
    with pytest.raises(RequestRefused, match="gemini.request.unique-declaration-names"):
        run(model.send(model.build_request([Message.user("hi")], tools=[web, files])))
    assert model.sent == []


@pytest.mark.parametrize(
    "model_id, config",
    [
        ("gemini-2.5-flash", {"thinkingBudget": 0}),
        ("gemini-2.5-pro", {"thinkingBudget": 128}),  # cannot turn thinking off: its least budget
        ("gemini-3-pro-preview", {"thinkingLevel": "LOW"}),
    ],
)
def test_effort_none_turns_thinking_off_or_to_the_least_the_model_takes(
    mock_model: Any, model_id: str, config: Any
) -> None:
    """``thinking={"effort": "none"}`` (OpenAI's value for no reasoning) was sent as
    ``thinkingLevel: "NONE"``, not a ThinkingLevel, and refused."""
    model = mock_model(
        [json_response(candidate_body([{"text": "ok"}]))], model_id=model_id, thinking={"effort": "none"}
    )
    run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["generationConfig"]["thinkingConfig"] == config


def test_an_image_url_without_a_media_type_gets_the_type_its_path_names() -> None:
    from toolwire_gemini.codec import _image_wire

    from toolwire.types import ImagePart

    assert _image_wire(ImagePart(url="https://example.com/a/Cat.JPG?size=2")) == {
        "fileData": {"fileUri": "https://example.com/a/Cat.JPG?size=2", "mimeType": "image/jpeg"}
    }
    assert _image_wire(ImagePart(url="gs://bucket/chart.png"))["fileData"]["mimeType"] == "image/png"
    # a Files API URI (its type is stored with the file) and a page: no guess
    files = "https://generativelanguage.googleapis.com/v1beta/files/abc123"
    assert _image_wire(ImagePart(url=files)) == {"fileData": {"fileUri": files}}
    assert "mimeType" not in _image_wire(ImagePart(url="https://example.com/page.html"))["fileData"]
    # a given media type wins
    assert _image_wire(ImagePart(url="https://example.com/x.png", media_type="image/webp"))["fileData"]["mimeType"] == (
        "image/webp"
    )


def test_openapi_mode_folds_root_alternatives_into_an_object() -> None:
    from toolwire_gemini.schema import to_openapi_schema

    from toolwire.schema.report import TranslationReport

    schema = {
        "type": "object",
        "anyOf": [
            {"properties": {"a": {"type": "string"}, "k": {"const": "x"}}, "required": ["a", "k"]},
            {"properties": {"b": {"type": "integer"}, "k": {"const": "y"}}, "required": ["b", "k"]},
        ],
    }
    report = TranslationReport("gemini", "t")
    out = to_openapi_schema(schema, report)
    assert out["type"] == "object" and "anyOf" not in out
    assert set(out["properties"]) == {"a", "b", "k"} and out["required"] == ["k"]
    assert [b.get("enum") for b in out["properties"]["k"]["anyOf"]] == [["x"], ["y"]]
    assert [c.lossy for c in report.changes if c.keyword == "anyOf" and c.pointer == "/anyOf"] == [True]
    # a Schema object without a type at the root is refused by the check (it would be by the API)
    body = {"contents": [user()], "tools": [{"functionDeclarations": [{"name": "t", "parameters": {"anyOf": []}}]}]}
    assert ("gemini.schema.root-object", "/tools/0/functionDeclarations/0/parameters") in violations(body)


def test_openapi_mode_reports_enum_values_that_collide_as_strings_as_lossy() -> None:
    from toolwire_gemini.schema import to_openapi_schema

    from toolwire.schema.report import TranslationReport

    report = TranslationReport("gemini", "t")
    out = to_openapi_schema({"type": "object", "properties": {"v": {"enum": [1, "1", True, "true"]}}}, report)
    assert out["properties"]["v"]["enum"] == ["1", "true"]
    assert [c.lossy for c in report.changes if c.keyword == "enum"] == [True]
    report = TranslationReport("gemini", "t")
    to_openapi_schema({"type": "object", "properties": {"v": {"enum": [1, 2]}}}, report)
    assert [c.lossy for c in report.changes if c.keyword == "enum"] == [False]


def test_openapi_mode_sends_any_value_as_an_anyof_of_the_json_kinds() -> None:
    from toolwire_gemini.schema import to_openapi_schema

    from toolwire.schema.report import TranslationReport

    report = TranslationReport("gemini", "t")
    out = to_openapi_schema({"type": "object", "properties": {"v": {}, "l": {"type": "array", "items": {}}}}, report)
    kinds = [b["type"] for b in out["properties"]["v"]["anyOf"]]
    assert kinds == ["string", "number", "boolean", "object", "array"]
    assert [b["type"] for b in out["properties"]["l"]["items"]["anyOf"]] == kinds
    assert all(c.lossy for c in report.changes if c.keyword == "type")
    assert openapi_schema_problems(out) == []
    # a hand-built declaration with a typeless property: found by the check, repaired by the preflight
    decl = {"name": "t", "parameters": {"type": "OBJECT", "properties": {"v": {"description": "anything"}}}}
    body = {"contents": [user()], "tools": [{"functionDeclarations": [decl]}]}
    assert ("gemini.schema.openapi.type-required", "/tools/0/functionDeclarations/0/parameters/properties/v/type") in (
        violations(body, OPENAPI)
    )
    fixed, changes = repair(body, OPENAPI)
    assert "gemini.schema.openapi.type-required" in [r for r, _ in changes]
    assert violations(fixed, OPENAPI) == []


def test_thinking_levels_gemini_3_pro_and_gemma() -> None:
    def sent(model: str, thinking: dict) -> tuple[dict, list[tuple[str, str]]]:
        body = {"contents": [user()], "generationConfig": {"thinkingConfig": dict(thinking)}}
        out, changes = repair(body, GeminiProfile(model=model))
        return out.get("generationConfig", {}).get("thinkingConfig"), changes

    tc, changes = sent("gemini-3-pro-preview", {"thinkingLevel": "MEDIUM"})
    assert tc == {"thinkingLevel": "HIGH"} and [r for r, _ in changes] == ["gemini.request.thinking-level-pro"]
    assert sent("gemini-3.1-pro-preview", {"thinkingLevel": "MEDIUM"}) == ({"thinkingLevel": "MEDIUM"}, [])
    assert sent("gemini-3-pro-preview", {"thinkingLevel": "MINIMAL"})[0] == {"thinkingLevel": "LOW"}
    assert sent("gemma-4-31b-it", {"thinkingBudget": 1024})[0] == {"thinkingLevel": "HIGH"}
    assert sent("gemma-4-31b-it", {"thinkingBudget": 0})[0] == {"thinkingLevel": "MINIMAL"}
    assert sent("gemma-4-31b-it", {"thinkingLevel": "LOW"})[0] == {"thinkingLevel": "MINIMAL"}
    assert sent("gemma-4-31b-it", {"thinkingLevel": "HIGH"}) == ({"thinkingLevel": "HIGH"}, [])
    assert sent("gemma-3-27b-it", {"thinkingBudget": 512}) == (
        None,
        [("gemini.request.thinking-gemma", "/generationConfig/thinkingConfig")],
    )


def test_candidate_count_and_cached_content_fields_are_refused() -> None:
    body = {"contents": [user()], "generationConfig": {"candidateCount": 2}}
    assert violations(body) == [("gemini.request.candidate-count", "/generationConfig/candidateCount")]
    assert violations({"contents": [user()], "generationConfig": {"candidateCount": 1}}) == []
    body = {
        "contents": [user()],
        "cachedContent": "cachedContents/abc",
        "tools": TOOLS,
        "systemInstruction": {"parts": [{"text": "s"}]},
    }
    assert sorted(violations(body)) == [
        ("gemini.request.cached-content-fields", "/systemInstruction"),
        ("gemini.request.cached-content-fields", "/tools"),
    ]


def test_the_retry_delay_of_a_429_body_is_the_wait() -> None:
    from toolwire_gemini.model import retry_delay_of

    body = {
        "error": {
            "code": 429,
            "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure"},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "38s"},
            ],
        }
    }
    assert retry_delay_of(body) == 38.0
    assert retry_delay_of({"error": {"details": [{"@type": "x.RetryInfo", "retryDelay": "soon"}]}}) is None
    assert retry_delay_of("not a body") is None


def test_the_cache_setting_reports_the_tool_choice_and_instructions_it_leaves_out() -> None:
    import toolwire
    from toolwire.types import Message

    tool = Tool.from_schema(
        "get", "Get.", {"type": "object", "properties": {"x": {"type": "string"}}}, lambda **a: "ok"
    )
    m = toolwire.model("gemini:gemini-2.5-flash", api_key="k", cache="cachedContents/abc")
    body = m.prepare(
        m.build_request(
            [Message.user("hi")], tools=[tool], tool_choice={"type": "tool", "name": "get"}, instructions="sys"
        )
    )
    assert sorted(body) == ["cachedContent", "contents"]
    assert [(c.rule, c.pointer, c.lossy) for c in m.last_preflight.changes] == [
        ("gemini.request.cache-held-settings", "/toolConfig", True),
        ("gemini.request.cache-held-settings", "/systemInstruction", True),
    ]
    plain = m.prepare(m.build_request([Message.user("hi")], tools=[tool]))
    assert "tools" not in plain and not (m.last_preflight and m.last_preflight.changes)


# ------------------------------------------------------------------ generation settings


def test_more_than_five_stop_sequences_are_refused() -> None:
    """ "the number of stop_sequences must not exceed 5" (continuedev/continue#2702)."""
    body = {"contents": [user()], "generationConfig": {"stopSequences": ["a", "b", "c", "d", "e", "f"]}}
    assert violations(body) == [("gemini.request.stop-sequences-count", "/generationConfig/stopSequences")]
    snake = {"contents": [user()], "generation_config": {"stop_sequences": [str(i) for i in range(10)]}}
    assert violations(snake) == [("gemini.request.stop-sequences-count", "/generation_config/stop_sequences")]
    for ok in (["a", "b", "c", "d", "e"], ["a"], [], "a"):
        assert violations({"contents": [user()], "generationConfig": {"stopSequences": ok}}) == []


def test_config_values_outside_the_sdk_enums_and_types_are_refused() -> None:
    """safetySettings categories the Gemini API does not take (the Vertex-only image categories,
    a misspelt one), an unknown threshold, the Vertex-only method field, and generationConfig
    values of the wrong type or outside the SDK's enums."""

    def body(**top: Any) -> dict[str, Any]:
        return {"contents": [user()], **top}

    rule = "gemini.request.config-values"
    ok = [
        {"category": c, "threshold": t}
        for c, t in (
            ("HARM_CATEGORY_HARASSMENT", "BLOCK_NONE"),
            ("HARM_CATEGORY_HATE_SPEECH", "OFF"),
            ("HARM_CATEGORY_SEXUALLY_EXPLICIT", "BLOCK_ONLY_HIGH"),
            ("HARM_CATEGORY_DANGEROUS_CONTENT", "BLOCK_LOW_AND_ABOVE"),
            ("HARM_CATEGORY_CIVIC_INTEGRITY", "BLOCK_MEDIUM_AND_ABOVE"),
        )
    ]
    assert violations(body(safetySettings=ok)) == []
    bad = [
        *ok,
        {"category": "HARM_CATEGORY_IMAGE_HATE", "threshold": "BLOCK_NONE"},
        {"category": "HARM_CATEGORY_HARASMENT", "threshold": "BLOCK_NONE"},
        {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ALL"},
        {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE", "method": "SEVERITY"},
    ]
    assert violations(body(safetySettings=bad)) == [
        (rule, "/safetySettings/5/category"),
        (rule, "/safetySettings/6/category"),
        (rule, "/safetySettings/7/threshold"),
        (rule, "/safetySettings/8/method"),
    ]
    assert violations(body(safety_settings={"category": "HARM_CATEGORY_HARASSMENT", "threshold": "OFF"})) == [
        (rule, "/safety_settings")
    ]
    gen = {
        "seed": 1.5,
        "logprobs": "three",  # (proto3 JSON takes "3" as the integer 3)
        "stopSequences": ["END", 7],
        "responseModalities": ["TEXT", "SMELL"],
        "mediaResolution": "ULTRA",
    }
    assert violations(body(generationConfig=gen)) == [
        (rule, "/generationConfig/seed"),
        (rule, "/generationConfig/logprobs"),
        (rule, "/generationConfig/stopSequences/1"),
        (rule, "/generationConfig/responseModalities/1"),
        (rule, "/generationConfig/mediaResolution"),
    ]
    good = {
        "seed": 7,
        "logprobs": 3,
        "stopSequences": ["END"],
        "responseModalities": ["TEXT"],
        "mediaResolution": "MEDIA_RESOLUTION_LOW",
    }
    assert violations(body(generationConfig=good)) == []


def test_config_values_are_refused_before_sending(mock_model: Any) -> None:
    from toolwire.errors import RequestRefused

    settings = [{"category": "HARM_CATEGORY_IMAGE_DANGEROUS_CONTENT", "threshold": "BLOCK_NONE"}]
    model = mock_model([], safety_settings=settings)
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent == []
    assert [(v.rule, v.pointer) for v in info.value.violations] == [
        ("gemini.request.config-values", "/safetySettings/0/category")
    ]
    assert "HARM_CATEGORY_DANGEROUS_CONTENT" in str(info.value)


def test_more_than_five_stop_sequences_are_refused_before_sending(mock_model: Any) -> None:
    from toolwire.errors import RequestRefused

    stops = ["\n\n", "END", "###", "</a>", "STOP", "Observation:"]
    model = mock_model([], generationConfig={"stopSequences": stops})
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent == []
    assert [(v.rule, v.pointer) for v in info.value.violations] == [
        ("gemini.request.stop-sequences-count", "/generationConfig/stopSequences")
    ]
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], generationConfig={"stopSequences": stops[:5]})
    run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["generationConfig"]["stopSequences"] == stops[:5]


@pytest.mark.parametrize(
    "model_id, dropped",
    [
        ("gemini-2.5-flash", True),
        ("models/gemini-2.5-pro", True),
        ("gemini-2.5-flash-preview-05-20", True),
        ("gemini-2.5-flash-lite", True),
        ("gemini-3-pro-preview", True),
        ("gemini-3.1-pro-preview", True),
        ("gemini-3-flash-preview", True),
        ("gemini-2.0-flash", False),  # takes penalties
        ("gemini-1.5-flash-002", False),
        ("gemma-4-31b-it", False),
        ("gemini-4-pro", False),  # a generation toolwire has no evidence about: sent as asked
        (None, False),
    ],
)
def test_penalties_are_left_out_for_models_that_refuse_them(model_id: str | None, dropped: bool) -> None:
    """ "Penalty is not enabled for models/gemini-2.5-flash" (vercel/ai#8943, BerriAI/litellm#32273);
    Gemini 3 the same (BerriAI/litellm#16907); gemini-2.0-flash takes them."""
    gen = {"presencePenalty": 0.5, "frequency_penalty": 0.0, "temperature": 0.7}
    body, changes = repair({"contents": [user()], "generationConfig": dict(gen)}, GeminiProfile(model=model_id))
    if dropped:
        assert body["generationConfig"] == {"temperature": 0.7}
        assert changes == [
            ("gemini.request.penalty-model", "/generationConfig/presencePenalty"),
            ("gemini.request.penalty-model", "/generationConfig/frequency_penalty"),
        ]
    else:
        assert body["generationConfig"] == gen and changes == []


def test_penalties_are_left_out_on_the_wire_for_gemini_2_5(mock_model: Any) -> None:
    model = mock_model(
        [json_response(candidate_body([{"text": "ok"}]))] * 2,
        generationConfig={"presencePenalty": 0.6, "frequencyPenalty": 0.4, "topP": 0.9},
    )
    resp = run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["generationConfig"] == {"topP": 0.9}
    assert resp.preflight is not None
    assert [(c.rule, c.lossy) for c in resp.preflight.changes] == [
        ("gemini.request.penalty-model", True),
        ("gemini.request.penalty-model", True),
    ]
    model = mock_model(
        [json_response(candidate_body([{"text": "ok"}]))], "gemini-2.0-flash", generationConfig={"presencePenalty": 0.6}
    )
    run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["generationConfig"] == {"presencePenalty": 0.6}


@pytest.mark.parametrize(
    "model_id, asked, sent",
    [
        ("gemini-1.5-flash", 50, 40),
        ("models/gemini-1.5-pro-002", 64, 40),
        ("gemini-2.0-flash", 100, 40),
        ("gemini-2.0-flash-exp", 41, 40),
        ("gemini-2.0-flash-lite-001", 40, 40),  # at the limit: unchanged
        ("gemini-2.5-flash", 64, 64),  # takes more: sent as asked
        ("gemini-3-pro-preview", 64, 64),
        (None, 100, 100),
    ],
)
def test_top_k_above_the_model_limit_is_lowered(model_id: str | None, asked: int, sent: int) -> None:
    """ "Unable to submit request because it has a topK value of 50 but the supported range is from 1
    (inclusive) to 41 (exclusive)" (genkit-ai/genkit#1397, gemini-1.5-flash; Robitx/gp.nvim#241)."""
    body, changes = repair({"contents": [user()], "generationConfig": {"topK": asked}}, GeminiProfile(model=model_id))
    assert body["generationConfig"] == {"topK": sent}
    assert changes == ([] if sent == asked else [("gemini.request.top-k-model", "/generationConfig/topK")])
    snake, changes = repair(
        {"contents": [user()], "generation_config": {"top_k": asked}}, GeminiProfile(model=model_id)
    )
    assert snake["generation_config"] == {"top_k": sent}


def test_top_k_above_the_model_limit_is_lowered_on_the_wire(mock_model: Any) -> None:
    model = mock_model(
        [json_response(candidate_body([{"text": "ok"}]))], "gemini-2.0-flash", generationConfig={"topK": 64}
    )
    resp = run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["generationConfig"] == {"topK": 40}
    assert resp.preflight is not None
    assert [(c.rule, c.pointer) for c in resp.preflight.changes] == [
        ("gemini.request.top-k-model", "/generationConfig/topK")
    ]


@pytest.mark.parametrize("top_k", [40.0, 1.0, 64])
def test_top_k_as_a_whole_float_is_not_refused(top_k: float) -> None:
    """google.genai.types.GenerationConfig.top_k is Optional[float]: a whole number written as a
    float (40.0) is a valid topK, not a sampling-range violation."""
    body = {"contents": [user()], "generationConfig": {"topK": top_k}}
    assert violations(body, GeminiProfile(model="gemini-2.5-flash")) == []


def test_top_k_with_a_fraction_is_still_refused() -> None:
    body = {"contents": [user()], "generationConfig": {"topK": 40.5}}
    assert violations(body) == [("gemini.request.sampling-range", "/generationConfig/topK")]


def test_top_k_as_a_float_above_the_model_limit_is_lowered() -> None:
    """topK=50.0 (a float, as the SDK types it) on Gemini 2.0 Flash is lowered like 50."""
    body, changes = repair(
        {"contents": [user()], "generationConfig": {"topK": 50.0}}, GeminiProfile(model="gemini-2.0-flash")
    )
    assert body["generationConfig"]["topK"] == 40
    assert changes == [("gemini.request.top-k-model", "/generationConfig/topK")]


# ------------------------------------------------------------------ model id spellings (gemini.request.model-id)


def _image_response() -> dict[str, Any]:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 16).decode()
    fr = {
        "name": "get_weather",
        "response": {"output": "map"},
        "parts": [{"inlineData": {"mimeType": "image/png", "data": png}}],
    }
    return {"functionResponse": fr}


#: Each model rule as a body that breaks it (every rule read from the profile's model id).
GEMINI_MODEL_RULE_BODIES: dict[str, Any] = {
    "thinking-budget-range": {"contents": [user()], "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}},
    "thinking-level-family": {"contents": [user()], "generationConfig": {"thinkingConfig": {"thinkingLevel": "LOW"}}},
    "thinking-level-pro": {"contents": [user()], "generationConfig": {"thinkingConfig": {"thinkingLevel": "MEDIUM"}}},
    "thinking-unsupported": {"contents": [user()], "generationConfig": {"thinkingConfig": {"thinkingBudget": 512}}},
    "penalty-model": {"contents": [user()], "generationConfig": {"presencePenalty": 0.5}},
    "top-k-model": {"contents": [user()], "generationConfig": {"topK": 64}},
    "max-tokens-model": {"contents": [user()], "generationConfig": {"maxOutputTokens": 1_000_000}},
    "system-instruction-model": {"contents": [user()], "systemInstruction": {"parts": [{"text": "Be brief."}]}},
    "function-calling-model": {"contents": [user()], "tools": TOOLS},
    "server-tool-invocations": {"contents": [user()], "tools": [*TOOLS, {"googleSearch": {}}]},
    "thought-signature-required": {
        "contents": [user(), {"role": "model", "parts": [call()]}, {"role": "user", "parts": [response()]}],
        "tools": TOOLS,
    },
    "function-response-parts-model": {
        "contents": [
            user(),
            {"role": "model", "parts": [call(sig=SIG)]},
            {"role": "user", "parts": [_image_response()]},
        ],
        "tools": TOOLS,
    },
}


def _gemini_outcome(model: str, body: dict[str, Any]) -> tuple[Any, ...]:
    profile = GeminiProfile(model=model)
    out, changes = repair(copy.deepcopy(body), profile)
    return violations(body, profile), out, changes, profile.cache_min_tokens()


@pytest.mark.parametrize(
    ("canonical", "spellings"),
    [
        ("gemini-2.5-pro", ["Gemini-2.5-Pro", "models/GEMINI-2.5-PRO", " gemini-2.5-pro "]),
        ("gemini-2.5-flash-lite", ["models/Gemini-2.5-Flash-Lite"]),
        ("gemini-2.0-flash", ["Gemini-2.0-Flash", "models/gemini-2.0-flash"]),
        ("gemini-3-pro-preview", ["Gemini-3-Pro-Preview", "models/gemini-3-pro-preview"]),
        ("gemini-3-flash", ["GEMINI-3-FLASH"]),
        ("gemma-3-27b-it", ["Gemma-3-27B-IT", "models/gemma-3-27b-it"]),
        ("gemma-4-31b-it", ["Gemma-4-31B-IT"]),
    ],
)
@pytest.mark.parametrize("rule", sorted(GEMINI_MODEL_RULE_BODIES))
def test_every_model_rule_reads_every_spelling_of_the_model_id(canonical: str, spellings: list[str], rule: str) -> None:
    body = GEMINI_MODEL_RULE_BODIES[rule]
    want = json.dumps(_gemini_outcome(canonical, body))
    for spelling in spellings:
        # (a note the repair writes names the model as written)
        assert json.dumps(_gemini_outcome(spelling, body)).replace(spelling, canonical) == want, (rule, spelling)


def test_model_lookups_read_every_spelling() -> None:
    from toolwire_gemini.profile import max_output_tokens, model_key, model_major

    assert model_key(" publishers/google/models/Gemini-3-Pro ") == "gemini-3-pro" and model_key(None) == ""
    for spelling in ("Gemini-3-Pro-Preview", "models/GEMINI-3-PRO-PREVIEW", " gemini-3-pro-preview"):
        assert model_major(spelling) == 3 and max_output_tokens(spelling) == 65536, spelling
        assert GeminiProfile(model=spelling).cache_min_tokens() == 4096, spelling


@pytest.mark.parametrize(
    ("model_id", "base_url", "problem"),
    [
        ("gemini-3-pro", None, None),
        ("models/gemini-3-pro", None, None),
        ("tunedModels/my-model-abc", None, None),
        ("Gemini-3-Pro", None, None),  # capitals: not documented either way, sent as written
        ("publishers/google/models/gemini-3-pro", None, "write 'gemini-3-pro'"),
        (
            "projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash",
            None,
            "write 'gemini-2.5-flash'",
        ),
        ("google/gemini-2.5-flash", "https://generativelanguage.googleapis.com", "write 'gemini-2.5-flash'"),
        ("google/gemini-2.5-flash", "https://llm-gateway.example", None),  # a proxy's own names
    ],
)
def test_model_id_refused_when_the_gemini_api_would_not_find_it(model_id: str, base_url: Any, problem: Any) -> None:
    from toolwire_gemini.profile import model_id_problem

    found = model_id_problem(model_id, base_url)
    assert (found is None) if problem is None else (found is not None and found.endswith(problem)), found


def test_model_id_spellings_through_the_sdk(mock_model: Any, monkeypatch: Any) -> None:
    """A capitalised or models/-prefixed id gets that model's rules and goes into the URL as
    written; a Vertex AI name is refused when the model is made."""
    from toolwire.errors import ConfigurationError

    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL", raising=False)
    model = mock_model(
        [json_response(candidate_body([{"text": "ok"}]))],
        model_id="models/Gemini-2.5-Pro",
        generationConfig={"thinkingConfig": {"thinkingBudget": 0}, "presencePenalty": 0.5},
    )
    resp = run(model.send(model.build_request([Message.user("hi")])))
    sent = model.sent[0]
    assert sent.url.split("?")[0].endswith("/models/Gemini-2.5-Pro:generateContent")
    # Gemini 2.5 Pro cannot turn thinking off (budget 128 at least) and takes no penalties
    assert sent.json["generationConfig"] == {"thinkingConfig": {"thinkingBudget": 128}}
    assert {c.rule for c in resp.preflight.changes} == {
        "gemini.request.thinking-budget-range",
        "gemini.request.penalty-model",
    }
    for vertex in (
        "publishers/google/models/gemini-3-pro",
        "projects/p/locations/l/publishers/google/models/gemini-3-pro",
    ):
        with pytest.raises(ConfigurationError, match=r"write 'gemini-3-pro' \[gemini.request.model-id\]"):
            mock_model([], model_id=vertex)
    assert toolwire.model("gemini: gemini-2.5-pro", api_key="k").model_id == "gemini-2.5-pro"


# ------------------------------------------------------------------ images by URL (fileData.fileUri)

_PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def _uri_body(uri: str, snake: bool = False) -> dict[str, Any]:
    fd = {"file_data": {"file_uri": uri, "mime_type": "image/png"}} if snake else {"fileData": {"fileUri": uri}}
    return {"contents": [{"role": "user", "parts": [{"text": "look"}, fd]}]}


@pytest.mark.parametrize(
    "uri",
    [
        "https://generativelanguage.googleapis.com/v1beta/files/abc123",
        "https://www.youtube.com/watch?v=9hE5-98ZeCg",
        "https://example.com/chart.png",
        "http://example.com/chart.png",
        "gs://bucket/chart.png",
        "files/abc123",
    ],
)
def test_file_uris_the_api_may_fetch_pass(uri: str) -> None:
    assert GeminiProfile().check_request(_uri_body(uri)) == []


@pytest.mark.parametrize(
    "uri",
    [
        "file:///tmp/chart.png",
        "/tmp/chart.png",
        "chart.png",
        "C:\\shots\\chart.png",
        "ftp://example.com/chart.png",
        "javascript:alert(1)",
        "data:image/png;base64,",
        "data:image/png;base64,@@@",
        "files/",
    ],
)
@pytest.mark.parametrize("snake", [False, True])
def test_file_uris_the_api_cannot_fetch_are_refused(uri: str, snake: bool) -> None:
    found = [(v.rule, v.pointer, v.message) for v in GeminiProfile().check_request(_uri_body(uri, snake))]
    where = "/contents/0/parts/1/file_data/file_uri" if snake else "/contents/0/parts/1/fileData/fileUri"
    assert [(r, p) for r, p, _ in found] == [("gemini.conversation.file-uri", where)]
    assert "pass its bytes" in found[0][2]


@pytest.mark.parametrize("snake", [False, True])
def test_a_data_url_file_uri_is_sent_as_inline_data(snake: bool) -> None:
    report = RequestReport("gemini")
    p = GeminiProfile()
    body = p.repair_request(_uri_body("data:image/png;base64," + _PNG_B64[:40] + "\n" + _PNG_B64[40:], snake), report)
    part = body["contents"][0]["parts"][1]
    if snake:
        assert part == {"inline_data": {"mime_type": "image/png", "data": _PNG_B64}}
    else:
        assert part == {"inlineData": {"mimeType": "image/png", "data": _PNG_B64}}
    assert [(c.rule, c.pointer, c.lossy) for c in report.changes] == [
        ("gemini.conversation.file-uri", "/contents/0/parts/1/" + ("file_data" if snake else "fileData"), False)
    ]
    assert p.check_request(body) == []


def test_a_file_uri_in_a_function_response_is_checked_and_repaired() -> None:
    p = GeminiProfile(model="gemini-3-flash-preview")

    def body(uri: str) -> dict[str, Any]:
        return {
            "contents": [
                {"role": "user", "parts": [{"text": "shot?"}]},
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "snap", "args": {}}, "thoughtSignature": "c2ln"}],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "name": "snap",
                                "response": {"output": "ok"},
                                "parts": [{"fileData": {"fileUri": uri, "mimeType": "image/png"}}],
                            }
                        }
                    ],
                },
            ]
        }

    assert [(v.rule, v.pointer, v.tool) for v in p.check_request(body("file:///tmp/shot.png"))] == [
        ("gemini.conversation.file-uri", "/contents/2/parts/0/functionResponse/parts/0/fileData/fileUri", "snap")
    ]
    report = RequestReport("gemini")
    fixed = p.repair_request(body("data:image/png;base64," + _PNG_B64), report)
    assert fixed["contents"][2]["parts"][0]["functionResponse"]["parts"] == [
        {"inlineData": {"mimeType": "image/png", "data": _PNG_B64}}
    ]
    assert p.check_request(fixed) == []


def test_a_thinking_config_field_the_api_does_not_have_is_refused() -> None:
    """Gemini answers a thinkingConfig key it has no field for with "Invalid JSON payload
    received. Unknown name ...: Cannot find field." (NousResearch/hermes-agent#17426); the codec
    copies keys it does not map, so another vendor's form reached the API."""
    left = _thinking({"thinkingBudget": 1024, "budgetTokenz": 5, "summary": "auto"}, "gemini-2.5-flash")[2]
    assert left == [
        ("gemini.request.thinking-config-fields", "/generationConfig/thinkingConfig/budgetTokenz"),
        ("gemini.request.thinking-config-fields", "/generationConfig/thinkingConfig/summary"),
    ]
    for fine in (
        {"thinking_budget": 1024, "include_thoughts": True},
        {"thinkingLevel": "LOW", "includeThoughts": False},
    ):
        assert _thinking(fine, "gemini-3-flash")[2] == []


def test_a_thinking_setting_with_a_key_toolwire_does_not_map_is_refused_before_sending() -> None:
    import httpx2

    import toolwire
    from toolwire.profile import RequestRefused

    sent: list[Any] = []
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: sent.append(r) or httpx2.Response(500)))
    model = toolwire.model(
        "gemini:gemini-2.5-flash", api_key="k", http_client=client, thinking={"effort": "high", "summary": "auto"}
    )
    with pytest.raises(RequestRefused) as info:
        toolwire.run_sync(model, "hi")
    (v,) = info.value.violations
    assert (v.rule, v.pointer) == ("gemini.request.thinking-config-fields", "/generationConfig/thinkingConfig/summary")
    assert "includeThoughts, thinkingBudget, thinkingLevel" in v.message
    assert sent == []


@pytest.mark.parametrize(
    ("thinking", "named"),
    [
        ({"type": "ENABLED"}, "type 'ENABLED'"),
        ({"type": None}, "type None"),
        ({"type": "between_tools"}, "type 'between_tools'"),
        ({1: "x"}, "key 1"),
        ({"effort": 3}, "effort 3"),
        ({"budget": True}, "budget True"),
        ({"budget": 1024.5}, "budget 1024.5"),
        ({"budget_tokens": "2048", "type": "enabled"}, "budget_tokens '2048'"),
        ({"thinking_budget": None}, "thinking_budget None"),
        ({"include_thoughts": "yes"}, "include_thoughts 'yes'"),
    ],
)
def test_a_thinking_setting_the_codec_would_drop_or_garble_is_refused_when_the_model_is_made(
    thinking: dict[Any, Any], named: str
) -> None:
    """A type the codec reads no other value of was left out without a word (thinkingConfig {}),
    a non-string key crashed the encoder (a TypeError inside the ConfigurationError), an effort
    that is not a string went as its upper-cased text ("thinkingLevel 'NONE'" for None), and a
    budget that is no int (ThinkingConfig.thinking_budget is an int) reached the API."""
    import toolwire

    with pytest.raises(toolwire.ConfigurationError) as info:
        toolwire.model("gemini:gemini-2.5-flash", api_key="k", thinking=thinking)
    message = str(info.value)
    assert named in message
    assert "thinking={'budget': N}" in message


def test_a_thinking_type_the_codec_does_not_read_in_a_request_is_refused_not_dropped() -> None:
    """A request built by hand (no model settings check) with an unread type or a non-string key:
    the codec keeps it in thinkingConfig and the preflight refuses it, naming it (it was dropped,
    and an int key crashed the encoder)."""
    import httpx2

    import toolwire
    from toolwire.profile import RequestRefused
    from toolwire.types import Message

    sent: list[Any] = []
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: sent.append(r) or httpx2.Response(500)))
    model = toolwire.model("gemini:gemini-2.5-flash", api_key="k", http_client=client)
    for thinking, pointer in (({"type": "ENABLED"}, "type"), ({1: "x"}, "1")):
        request = dataclasses.replace(model.build_request([Message.user("hi")]), thinking=thinking)
        with pytest.raises(RequestRefused) as info:
            model.prepare(request)
        (v,) = info.value.violations
        assert (v.rule, v.pointer) == (
            "gemini.request.thinking-config-fields",
            f"/generationConfig/thinkingConfig/{pointer}",
        )
    assert sent == []


@pytest.mark.parametrize(
    ("thinking", "config"),
    [
        ({"type": "enabled", "budget_tokens": 2048}, {"includeThoughts": True, "thinkingBudget": 2048}),
        ({"type": "disabled"}, {"thinkingBudget": 0}),
        ({"budget": -1, "include_thoughts": False}, {"thinkingBudget": -1, "includeThoughts": False}),
    ],
)
def test_a_thinking_setting_gemini_reads_is_sent_through_the_sdk(
    thinking: dict[str, Any], config: dict[str, Any]
) -> None:
    import httpx2
    from gemini_wire_helpers import Sent, candidate_body, json_response

    import toolwire

    sent: list[Sent] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(Sent(request))
        return json_response(candidate_body([{"text": "Hi."}]))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    model = toolwire.model("gemini:gemini-2.5-flash", api_key="k", http_client=client, thinking=thinking)
    assert toolwire.run_sync(model, "hi").text == "Hi."
    body = sent[0].json
    assert body is not None
    assert body["generationConfig"]["thinkingConfig"] == config


@pytest.mark.parametrize("effort", ["hgh", "HGH", "ultra", "", "auto"])
def test_a_misspelt_portable_effort_is_refused_when_the_model_is_made(effort: str) -> None:
    """thinking={"effort": "hgh"} passed model creation and was refused only when a request was
    sent ("thinkingLevel 'HGH' is not one of ..."), unlike on Anthropic and OpenAI; now it is a
    ConfigurationError at creation naming the effort and the values toolwire takes."""
    import httpx2

    import toolwire

    sent: list[httpx2.Request] = []
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: sent.append(r) or httpx2.Response(500)))
    with pytest.raises(toolwire.ConfigurationError) as info:
        toolwire.model("gemini:gemini-3-flash-preview", api_key="k", http_client=client, thinking={"effort": effort})
    message = str(info.value)
    assert f"effort {effort!r} is not one toolwire knows" in message
    assert "none, minimal, low, medium, high, xhigh, max" in message
    assert sent == []


@pytest.mark.parametrize(("effort", "level"), [("high", "HIGH"), (" Minimal ", "MINIMAL"), ("XHIGH", "XHIGH")])
def test_each_portable_effort_goes_through_the_sdk_as_its_level(effort: str, level: str) -> None:
    import httpx2
    from gemini_wire_helpers import Sent, candidate_body, json_response

    import toolwire

    sent: list[Sent] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(Sent(request))
        return json_response(candidate_body([{"text": "Hi."}]))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    model = toolwire.model(
        "gemini:gemini-3-flash-preview", api_key="k", http_client=client, thinking={"effort": effort}
    )
    assert toolwire.run_sync(model, "hi").text == "Hi."
    body = sent[0].json
    assert body is not None
    assert body["generationConfig"]["thinkingConfig"] == {"thinkingLevel": level}


def test_effort_max_is_sent_as_geminis_highest_level() -> None:
    """The cross-API effort scale ends at "max" (Anthropic's highest); Gemini's ThinkingLevel ends
    at XHIGH, and "MAX" was refused as no level."""
    import toolwire
    from toolwire.types import Message, TextPart

    for effort in ("max", "MAX", " Max "):
        model = toolwire.model("gemini:gemini-3-flash-preview", api_key="k", thinking={"effort": effort})
        body = model.prepare(model.build_request([Message("user", [TextPart("hi")])]))
        assert body["generationConfig"]["thinkingConfig"] == {"thinkingLevel": "XHIGH"}


@pytest.mark.parametrize(
    ("settings", "pointer", "named"),
    [
        ({"generation_config": {"top_k": 3, "bogus": 1}}, "/generationConfig/bogus", "no field 'bogus'"),
        ({"generationConfig": {"topK": 3, "topk": 1}}, "/generationConfig/topk", "did you mean 'topP'?"),
        (
            {"safety_settings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE", "x": 1}]},
            "/safetySettings/0/x",
            "safetySettings has no field 'x'",
        ),
        (
            {"tool_config": {"function_calling_config": {"mode": "ANY", "allowed_names": ["a"]}}},
            "/toolConfig/function_calling_config/allowed_names",
            "did you mean 'allowedFunctionNames'?",
        ),
    ],
)
def test_a_config_setting_key_the_sdk_has_no_field_for_is_refused_when_the_model_is_made(
    settings: dict[str, Any], pointer: str, named: str
) -> None:
    """Gemini answers a field it does not have with "Invalid JSON payload received. Unknown name
    ...: Cannot find field." on every request (NousResearch/hermes-agent#17426); the settings'
    keys were sent as given (rule gemini.request.config-fields)."""
    import toolwire
    from toolwire.errors import ConfigurationError

    with pytest.raises(ConfigurationError) as info:
        toolwire.model("gemini:gemini-2.5-flash", api_key="k", **settings)
    message = str(info.value)
    assert f"at {pointer}:" in message and named in message and "[gemini.request.config-fields]" in message


def test_config_fields_the_sdk_types_and_extra_body_pass() -> None:
    import toolwire
    from toolwire.types import Message, TextPart

    model = toolwire.model(
        "gemini:gemini-2.5-flash",
        api_key="k",
        generation_config={"top_k": 3, "imageConfig": {"aspectRatio": "1:1"}, "responseModalities": ["TEXT"]},
        safety_settings=[{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
    )
    body = model.prepare(model.build_request([Message("user", [TextPart("hi")])]))
    assert body["generationConfig"]["imageConfig"] == {"aspectRatio": "1:1"}
    # extra_body is the way to send a field the installed SDK does not know yet
    model = toolwire.model("gemini:gemini-2.5-flash", api_key="k", extra_body={"generationConfig": {"newField": 1}})
    body = model.prepare(model.build_request([Message("user", [TextPart("hi")])]))
    assert body["generationConfig"] == {"newField": 1}


def test_an_empty_image_a_tool_returned_is_a_note_and_an_empty_inline_data_is_refused(mock_model: Any) -> None:
    """An ImagePart(data=b'') a tool returned (functionResponse.parts, Gemini 3) was sent as
    inlineData with data '' unchecked. It is sent as a note, reported as lossy, and the run goes
    on (as an image of a format the API does not read); a body holding such inlineData (built
    by hand) is refused under gemini.conversation.inline-data, as one in a user turn is."""
    from toolwire.turns import EMPTY_TOOL_IMAGE_NOTE
    from toolwire.types import ImagePart, TextPart

    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], model_id="gemini-3-pro-preview")
    conv = [
        Message.user("look"),
        Message("assistant", [ToolCall(id="c1", name="snap", arguments={})]),
        Message(
            "user", [ToolResult("c1", [TextPart("shot"), ImagePart(data=b"", media_type="image/png")], name="snap")]
        ),
    ]
    result = toolwire.run_sync(model, conversation=toolwire.Conversation(conv))
    assert result.text == "ok"
    assert EMPTY_TOOL_IMAGE_NOTE in json.dumps(model.sent[0].json)
    changes = [(c.rule, c.tool, c.lossy) for c in result.turns[0].response.preflight.changes]
    assert ("gemini.conversation.tool-result-image-type", "snap", True) in changes
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "look"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "snap", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "snap",
                            "response": {"output": "shot"},
                            "parts": [{"inlineData": {"mimeType": "image/png", "data": ""}}],
                        }
                    }
                ],
            },
        ]
    }
    found = [(v.rule, v.pointer) for v in GeminiProfile(model="gemini-3-pro-preview").check_request(body)]
    assert found == [("gemini.conversation.inline-data", "/contents/2/parts/0/functionResponse/parts/0/inlineData")]
