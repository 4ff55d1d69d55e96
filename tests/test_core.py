"""Canonical model, tools from Python, registry, stream assembler, argument parsing."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Literal

import pytest
from pydantic import BaseModel, Field

import toolwire
from toolwire import (
    AdapterNotInstalled,
    ConfigurationError,
    Conversation,
    ImagePart,
    Message,
    ProviderNotFound,
    ReasoningPart,
    Response,
    SchemaError,
    TextPart,
    Tool,
    ToolCall,
    ToolDefinitionError,
    ToolNameError,
    ToolResult,
    UnsupportedToolChoice,
    Usage,
    tool,
)
from toolwire.adapter import normalize_tool_choice
from toolwire.arguments import dumps_arguments, parse_arguments
from toolwire.stream import (
    StopEvent,
    StreamAssembler,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)

# -- canonical model ----------------------------------------------------------------------------


def test_conversation_json_round_trip_is_exact():
    conv = Conversation(
        [
            Message(
                "user",
                [
                    TextPart("hi"),
                    ImagePart(data=b"\x00\x01\xff", media_type="image/png"),
                    ImagePart(url="https://x/y.png"),
                ],
            ),
            Message(
                "assistant",
                [
                    ReasoningPart("hmm", signature="c2ln", provider="anthropic"),
                    ReasoningPart("", encrypted="ENC", provider="openai", provider_data={"openai": {"id": "rs_1"}}),
                    TextPart("calling", provider_data={"gemini": {"thoughtSignature": "AAA="}}),
                    ToolCall("t1", "f", {"x": 1, "s": "やあ 🌍"}, raw_arguments='{"x":1}'),
                    ToolCall("t2", "f", None, raw_arguments="{", invalid="bad", incomplete=True, id_synthesized=True),
                ],
            ),
            Message(
                "user",
                [
                    ToolResult("t1", [TextPart("Q3"), ImagePart(data=b"png", media_type="image/png")], name="f"),
                    ToolResult("t2", "Error text", is_error=True),
                ],
            ),
        ],
        instructions="be brief",
    )
    text = conv.to_json()
    again = Conversation.from_json(text)
    assert again == conv
    assert json.loads(text)["messages"][0]["parts"][1] == {
        "type": "image",
        "data_base64": "AAH/",
        "media_type": "image/png",
    }
    assert "やあ 🌍" in text  # literal UTF-8, not \\u escapes (case B23)


def test_usage_adds_and_keeps_none():
    a = Usage(10, 2, None, 3, None, requests=1)
    b = Usage(5, 1, 4, None, None, requests=1)
    s = a + b
    assert (
        s.input_tokens,
        s.output_tokens,
        s.cache_read_tokens,
        s.cache_write_tokens,
        s.reasoning_tokens,
        s.requests,
    ) == (15, 3, 4, 3, None, 2)


def test_response_text_and_calls():
    r = Response([ReasoningPart("x"), TextPart("a"), ToolCall("1", "f", {}), TextPart("b")])
    assert r.text == "ab"
    assert [c.id for c in r.tool_calls] == ["1"]
    assert Response.from_dict(r.to_dict()) == r


def test_image_part_needs_data_or_url():
    with pytest.raises(ValueError):
        ImagePart()
    with pytest.raises(ValueError, match="media_type"):
        ImagePart(data=b"x")


def test_unknown_part_type():
    with pytest.raises(ValueError, match="unknown part type 'video'"):
        Message.from_dict({"role": "user", "parts": [{"type": "video"}]})


# -- tools from Python --------------------------------------------------------------------------


class Address(BaseModel):
    street: str
    city: str = Field(description="City name")


def test_google_docstring_schema_defaults_defs_no_titles():
    @tool
    def ship(order_id: str, address: Address, express: bool = False, mode: Literal["air", "sea"] = "sea") -> str:
        """Ship an order. Use after the order is paid.

        Args:
            order_id: The order's id as shown on the invoice, e.g. "A-12".
            address: Where to ship.
            express: Whether to use the express service.
            mode: Transport mode.

        Returns:
            The tracking number.
        """
        return "T1"

    assert ship.name == "ship"
    assert ship.description == "Ship an order. Use after the order is paid."
    assert ship.returns == "The tracking number."
    assert ship.input_schema == {
        "type": "object",
        "properties": {
            "order_id": {"description": 'The order\'s id as shown on the invoice, e.g. "A-12".', "type": "string"},
            "address": {"$ref": "#/$defs/Address", "description": "Where to ship."},
            "express": {"default": False, "description": "Whether to use the express service.", "type": "boolean"},
            "mode": {"default": "sea", "description": "Transport mode.", "enum": ["air", "sea"], "type": "string"},
        },
        "required": ["order_id", "address"],
        "$defs": {
            "Address": {
                "properties": {"street": {"type": "string"}, "city": {"description": "City name", "type": "string"}},
                "required": ["street", "city"],
                "type": "object",
            }
        },
    }
    assert ship.model_description() == "Ship an order. Use after the order is paid.\n\nReturns: The tracking number."


def test_numpy_and_sphinx_docstrings():
    @tool
    def np_style(count: int) -> int:
        """Count things.

        Parameters
        ----------
        count : int
            How many things.
        """
        return count

    @tool
    def sphinx_style(count: int) -> int:
        """Count things.

        :param count: How many things.
        :returns: the count
        """
        return count

    assert np_style.input_schema["properties"]["count"] == {"description": "How many things.", "type": "integer"}
    assert sphinx_style.input_schema["properties"]["count"] == {"description": "How many things.", "type": "integer"}
    assert sphinx_style.returns == "the count"


def test_missing_type_hint_and_varargs_are_errors():
    with pytest.raises(ToolDefinitionError, match="parameter 'x' has no type hint"):

        @tool
        def f(x):
            """F."""

    with pytest.raises(ToolDefinitionError, match=r"\*args is not allowed"):

        @tool
        def g(*args: int) -> None:
            """G."""


@pytest.mark.parametrize(
    "name,detail",
    [
        ("github.create_issue", "it contains '.'"),
        ("Google Search", "it contains ' '"),
        ("2fa_check", "it starts with a digit"),
        ("a" * 70, "it is 70 characters long"),
    ],
)
def test_tool_name_rule_case_b07(name, detail):
    with pytest.raises(ToolNameError) as info:
        Tool.from_schema(name, "d", {"type": "object", "properties": {}})
    assert name in str(info.value)
    assert r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$" in str(info.value)
    assert detail in str(info.value)


def test_tool_name_rule_accepts_64_chars():
    assert Tool.from_schema("_" + "a" * 63, "d", {"type": "object"}).name == "_" + "a" * 63


@pytest.mark.parametrize(
    "schema,match",
    [
        ({"type": "array"}, 'must have "type": "object"'),
        ([], "must be a JSON object"),
        ({"type": "object", "properties": {"a": {"type": "strin"}}}, "not valid JSON Schema"),
        ({"type": "object", "required": "a"}, "not valid JSON Schema"),
    ],
)
def test_from_schema_checks_draft_2020_12_object(schema, match):
    with pytest.raises(SchemaError, match=match):
        Tool.from_schema("t", "d", schema)


# -- tool choice --------------------------------------------------------------------------------


def test_tool_choice_forms_case_b19():
    assert normalize_tool_choice("none") == "none"
    assert normalize_tool_choice("required") == "required"
    assert normalize_tool_choice({"type": "function", "function": {"name": "get_weather"}}) == {
        "type": "tool",
        "name": "get_weather",
    }
    assert normalize_tool_choice("tool:get_weather") == {"type": "tool", "name": "get_weather"}
    with pytest.raises(UnsupportedToolChoice):
        normalize_tool_choice("sometimes")
    with pytest.raises(UnsupportedToolChoice):
        normalize_tool_choice({"type": "allowed_tools"})


# -- registry -----------------------------------------------------------------------------------


def test_model_by_string_mapping_and_env(monkeypatch):
    assert toolwire.model("test").provider == "test"
    m = toolwire.model({"model": "scripted", "settings": {"responses": ["x"]}})
    assert m.provider == "scripted"
    monkeypatch.setenv("TOOLWIRE_MODEL", "test")
    assert toolwire.model().name == "test"


def test_unknown_provider_lists_known():
    with pytest.raises(ProviderNotFound) as info:
        toolwire.model("mistral:large")
    for name in ("anthropic", "gemini", "openai", "openai-chat", "test"):
        assert name in str(info.value)


def test_known_provider_without_adapter_names_extra(monkeypatch):
    from toolwire import _install, registry

    monkeypatch.setattr(registry, "_entry_points", lambda: {})
    monkeypatch.setattr(_install, "_direct_url", lambda: None)  # as if installed from an index
    monkeypatch.setattr(_install, "installer", lambda: "pip install")
    with pytest.raises(AdapterNotInstalled, match=r'pip install "toolwire\[gemini\]"'):
        toolwire.model("gemini:gemini-2.5-flash")


def test_malformed_model_names():
    with pytest.raises(ConfigurationError, match="has no provider"):
        toolwire.model("claude-sonnet")
    with pytest.raises(ConfigurationError, match="unknown keys"):
        toolwire.model({"model": "test", "extra": 1})


# -- arguments and stream assembly --------------------------------------------------------------


@pytest.mark.parametrize("raw", ["", "null", "{}", "  ", " null ", None])
def test_empty_argument_forms_mean_empty_object_case_b08(raw):
    assert parse_arguments(raw) == ({}, None)


def test_non_object_and_broken_arguments_are_invalid():
    assert parse_arguments("[1]") == (None, "arguments must be a JSON object, got a JSON array")
    args, why = parse_arguments('{"a": ')
    assert args is None and "not valid JSON" in why and "line 1, column 7" in why


def test_dumps_arguments_literal_utf8_case_b23():
    assert dumps_arguments({"msg": "やあ 🌍", "to": "Zoë"}) == '{"msg":"やあ 🌍","to":"Zoë"}'
    assert dumps_arguments(None) == "{}"


def test_assembler_joins_fragments_and_overwrites_usage():
    asm = StreamAssembler("anthropic")
    asm.feed(TextDelta(0, "Hel"))
    asm.feed(ToolCallStart(1, "toolu_A", "magic"))
    asm.feed(ToolCallDelta(1, ""))
    asm.feed(ToolCallStart(2, "toolu_B", "pw"))
    asm.feed(ToolCallDelta(2, '{"passwo'))
    asm.feed(TextDelta(0, "lo"))
    asm.feed(ToolCallDelta(2, 'rd": "mellon"}'))
    asm.feed(ToolCallEnd(1))
    asm.feed(ToolCallEnd(2))
    asm.feed(UsageUpdate(Usage(input_tokens=410, output_tokens=1)))
    asm.feed(UsageUpdate(Usage(output_tokens=57)))
    asm.feed(StopEvent("tool_use", "tool_use"))
    r = asm.response()
    assert r.text == "Hello"
    assert [(c.id, c.name, c.arguments) for c in r.tool_calls] == [
        ("toolu_A", "magic", {}),
        ("toolu_B", "pw", {"password": "mellon"}),
    ]
    assert (r.usage.input_tokens, r.usage.output_tokens) == (410, 57)


def test_assembler_marks_cut_off_call_incomplete():
    asm = StreamAssembler()
    asm.feed(ToolCallStart(0, "c", "write"))
    asm.feed(ToolCallDelta(0, '{"text": "abc'))
    asm.feed(StopEvent("max_tokens", "length"))
    call = asm.response().tool_calls[0]
    assert call.incomplete and call.arguments is None and call.raw_arguments == '{"text": "abc'


def test_import_is_light():
    code = (
        "import sys, toolwire; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'anthropic','openai','google','pydantic','jsonschema','httpx2','rich','typer','yaml'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_imported_tools_follow_their_vendors_name_rule():
    assert Tool("get.weather", "d", imported_from="gemini").name == "get.weather"  # Gemini allows '.'
    assert Tool("a" * 100, "d", imported_from="anthropic").name == "a" * 100  # Anthropic allows 128
    with pytest.raises(ToolNameError, match="anthropic rule"):
        Tool("get.weather", "d", imported_from="anthropic")
    with pytest.raises(ToolNameError, match="must match"):
        Tool("get.weather", "d")  # built here: the common rule
    t = Tool("get.weather", "d", imported_from="gemini")
    assert Tool.from_dict(t.to_dict()) == t


@pytest.mark.parametrize(
    "schema,value",
    [
        ({"type": "number", "maximum": 0.5}, 0.5),
        ({"type": "integer", "exclusiveMinimum": 5, "multipleOf": 4}, 8),
        ({"type": "integer", "maximum": -2}, -2),
    ],
)
def test_test_provider_arguments_respect_number_bounds(schema, value):
    from toolwire.testing import example_arguments

    assert example_arguments({"type": "object", "properties": {"x": schema}, "required": ["x"]}) == {"x": value}


def test_sse_events_keep_the_last_event_with_bare_cr_line_endings():
    import asyncio as _asyncio

    from toolwire.transport import sse_events

    async def source():
        yield b'data: {"a": 1}\r\rdata: {"b": 2}\r'

    async def collect():
        return [ev.data async for ev in sse_events("test", source())]

    assert _asyncio.run(collect()) == ['{"a": 1}', '{"b": 2}']


def test_saved_conversation_with_the_old_responses_label_loads_under_the_provider_name() -> None:
    """Earlier versions labelled the Responses API ``openai-responses``; saved data still loads."""
    from toolwire.types import Message, ReasoningPart, Response

    old = {
        "role": "assistant",
        "parts": [
            {
                "type": "reasoning",
                "text": "",
                "encrypted": "ENC",
                "provider": "openai-responses",
                "provider_data": {"openai-responses": {"id": "rs_1"}},
            }
        ],
        "provider_data": {"openai-responses": {"response_id": "resp_1"}},
    }
    msg = Message.from_dict(old)
    part = msg.parts[0]
    assert isinstance(part, ReasoningPart)
    assert (part.provider, part.provider_data, msg.provider_data) == (
        "openai",
        {"openai": {"id": "rs_1"}},
        {"openai": {"response_id": "resp_1"}},
    )
    resp = Response.from_dict(
        {"parts": [], "provider": "openai-responses", "provider_data": {"openai-responses": {"response_id": "r"}}}
    )
    assert (resp.provider, resp.provider_data) == ("openai", {"openai": {"response_id": "r"}})
