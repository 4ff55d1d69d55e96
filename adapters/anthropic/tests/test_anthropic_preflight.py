"""Preflight on the Anthropic adapter, through the real SDK over ``httpx2.MockTransport``: a request
that breaks a rule is repaired (and arrives repaired, the repair on the turn) or refused before
anything reaches the network. Includes case B25 with its exact values."""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from toolwire_anthropic import AnthropicCodec, AnthropicModel

import toolwire
from toolwire import Conversation, Message, Tool, ToolCall, ToolResult
from toolwire.profile import RequestRefused

B25_ALLOF = {"type": "object", "allOf": [{"properties": {"tag": {"type": "string"}}, "required": ["tag"]}]}
B25_ANYOF = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}},
    "anyOf": [{"required": ["id"]}, {"required": ["tag"]}],
}


def run(coro):
    return asyncio.run(coro)


def test_b25_root_combinators_never_reach_the_wire(mock_model, wire) -> None:
    tag = Tool.from_schema("tag_item", "Tag an item.", B25_ALLOF, lambda **kw: "tagged")
    find = Tool.from_schema("find_item", "Find an item by id or tag.", B25_ANYOF, lambda **kw: "found")
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))])
    run(model.send(model.build_request([Message.user("go")], tools=[tag, find])))
    sent = {t["name"]: t["input_schema"] for t in model.sent[0].json["tools"]}
    assert sent["tag_item"] == {"type": "object", "properties": {"tag": {"type": "string"}}, "required": ["tag"]}
    assert sent["find_item"] == {"type": "object", "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}}}
    for schema in sent.values():
        assert not {"oneOf", "anyOf", "allOf"} & set(schema)
    # the user's schemas are untouched (the loop validates against them)
    assert tag.input_schema == B25_ALLOF and find.input_schema == B25_ANYOF


def test_b25_translate_tool_reports_the_lossy_change_at_its_pointer() -> None:
    codec = AnthropicCodec()
    _, folded = codec.translate_tool(Tool.from_schema("tag_item", "Tag an item.", B25_ALLOF))
    assert [(c.pointer, c.lossy) for c in folded] == [("/allOf/0", False)] and not folded.lossy
    _, dropped = codec.translate_tool(Tool.from_schema("find_item", "Find an item.", B25_ANYOF))
    assert [(c.pointer, c.action, c.keyword, c.lossy) for c in dropped] == [("/anyOf", "removed", "anyOf", True)]
    assert dropped.tool == "find_item" and dropped.api == "anthropic"


def test_b25_loop_still_validates_against_the_original_schema(mock_model, wire) -> None:
    calls: list[dict] = []
    find = Tool.from_schema(
        "find_item", "Find an item by id or tag.", B25_ANYOF, lambda **kw: calls.append(kw) or "found"
    )
    first = wire.message_body(
        [
            {"type": "tool_use", "id": "toolu_B25a", "name": "find_item", "input": {}},
            {"type": "tool_use", "id": "toolu_B25b", "name": "find_item", "input": {"tag": "red"}},
        ],
        stop_reason="tool_use",
    )
    final = wire.message_body([{"type": "text", "text": "done"}])
    model = mock_model([wire.json_response(first), wire.json_response(final)])
    result = toolwire.run_sync(model, "find it", tools=[find])
    assert calls == [{"tag": "red"}]  # {} breaks the original anyOf and is not run
    results = {b["tool_use_id"]: b for b in model.sent[1].json["messages"][2]["content"]}
    assert results["toolu_B25a"]["is_error"] is True and results["toolu_B25b"]["content"] == "found"
    assert result.tool_errors == 1


def test_refused_request_is_never_sent(mock_model, wire) -> None:
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "never"}]))],
        thinking={"type": "enabled", "budget_tokens": 2048},
        max_tokens=4096,
    )
    weather = Tool.from_schema(
        "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}}
    )
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("x")], tools=[weather], tool_choice="required")))
    assert model.sent == []
    assert [(v.rule, v.pointer) for v in info.value.violations] == [
        ("anthropic.request.thinking-forced-tool", "/tool_choice")
    ]
    assert "anthropic.request.thinking-forced-tool" in str(info.value) and "/tool_choice" in str(info.value)


@pytest.mark.parametrize(
    ("settings", "rule", "pointer"),
    [
        ({"temperature": 1.5}, "anthropic.request.sampling-range", "/temperature"),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 4096}, "max_tokens": 4096},
            "anthropic.request.thinking-budget",
            "/thinking/budget_tokens",
        ),
        (
            {"thinking": {"type": "adaptive"}, "temperature": 0.3},
            "anthropic.request.thinking-temperature",
            "/temperature",
        ),
        ({"temperature": 0.5, "top_p": 0.9}, "anthropic.request.temperature-and-top-p", "/top_p"),
    ],
)
def test_settings_refused_before_sending_stream_too(mock_model, wire, settings, rule, pointer) -> None:
    model = mock_model([], **settings)

    async def consume():
        return [ev async for ev in model.send_stream(model.build_request([Message.user("x")]))]

    for call in (lambda: run(model.send(model.build_request([Message.user("x")]))), lambda: run(consume())):
        with pytest.raises(RequestRefused) as info:
            call()
        assert (rule, pointer) in [(v.rule, v.pointer) for v in info.value.violations]
    assert model.sent == []


def test_repair_arrives_repaired_and_is_on_the_turn(mock_model, wire) -> None:
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))])
    conv = [
        Message.user("go"),
        Message("assistant", [ToolCall("toolu_E", "lookup", {})]),
        Message("user", [ToolResult("toolu_E", "", is_error=True)]),
    ]
    lookup = Tool.from_schema("lookup", "Look up.", {"type": "object", "properties": {}})
    resp = run(model.send(model.build_request(conv, tools=[lookup])))
    sent = model.sent[0].json["messages"][2]["content"][0]
    assert sent == {
        "type": "tool_result",
        "tool_use_id": "toolu_E",
        "content": "error: the tool failed without a message",
        "is_error": True,
    }
    assert [(c.rule, c.pointer) for c in resp.preflight] == [
        ("anthropic.conversation.tool-result-error-content", "/messages/2/content/0/content")
    ]


def test_thinking_left_out_for_a_tool_loop_from_another_provider(mock_model, wire) -> None:
    # an OpenAI turn (no thinking block) whose call is being answered, then a switch to Anthropic with thinking
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))],
        thinking={"type": "enabled", "budget_tokens": 1024},
        max_tokens=4096,
    )
    conv = [
        Message.user("go"),
        Message("assistant", [ToolCall("call_abc123", "lookup", {"q": "x"})]),
        Message("user", [ToolResult("call_abc123", "42")]),
    ]
    resp = run(
        model.send(
            model.build_request(
                conv,
                tools=[
                    Tool.from_schema("lookup", "Look up.", {"type": "object", "properties": {"q": {"type": "string"}}})
                ],
            )
        )
    )
    assert "thinking" not in model.sent[0].json
    change = next(c for c in resp.preflight if c.rule == "anthropic.conversation.thinking-in-tool-loop")
    assert change.pointer == "/thinking" and change.lossy


def test_foreign_tool_names_renamed_consistently_and_calls_run_the_real_tool(mock_model, wire) -> None:
    # tools imported from a Gemini history keep names Anthropic refuses ('.' and ':')
    ran: list[tuple[str, dict]] = []
    read = Tool(
        "files.read",
        "Read a file.",
        {"type": "object", "properties": {"path": {"type": "string"}}},
        function=lambda **kw: ran.append(("files.read", kw)) or "text",
        imported_from="gemini",
    )
    read2 = Tool(
        "files:read",
        "Read a file (v2).",
        {"type": "object", "properties": {}},
        function=lambda **kw: ran.append(("files:read", kw)) or "v2",
        imported_from="gemini",
    )
    history = [
        Message.user("read a.txt"),
        Message("assistant", [ToolCall("fc_1", "files.read", {"path": "old.txt"})]),
        Message("user", [ToolResult("fc_1", "old")]),
    ]
    first = wire.message_body(
        [{"type": "tool_use", "id": "toolu_R1", "name": "files_read", "input": {"path": "a.txt"}}],
        stop_reason="tool_use",
    )
    final = wire.message_body([{"type": "text", "text": "done"}])
    model = mock_model([wire.json_response(first), wire.json_response(final)])
    result = toolwire.run_sync(model, "again", tools=[read, read2], conversation=Conversation(history))
    sent = model.sent[0].json
    names = [t["name"] for t in sent["tools"]]
    assert names[0] == "files_read" and names[1].startswith("files_read_") and len(set(names)) == 2
    assert sent["messages"][1]["content"][0]["name"] == "files_read"  # the history agrees with the declaration
    assert model.sent[1].json["tools"] == sent["tools"]  # the same names on every turn
    assert ran == [("files.read", {"path": "a.txt"})] and result.text == "done"


def test_renamed_tool_in_tool_choice_and_stream(mock_model, wire) -> None:
    read = Tool("files.read", "Read a file.", {"type": "object", "properties": {}}, imported_from="gemini")
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_S",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_S", "name": "files_read", "input": {}},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ]
    model = mock_model([wire.sse_response(events)], stream=True)
    resp = run(
        model.send(
            model.build_request([Message.user("x")], tools=[read], tool_choice={"type": "tool", "name": "files.read"})
        )
    )
    assert model.sent[0].json["tool_choice"] == {"type": "tool", "name": "files_read"}
    assert [c.name for c in resp.tool_calls] == ["files.read"]


def test_parallel_false_without_tools_sends_no_tool_choice(mock_model, wire) -> None:
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))], parallel_tool_calls=False
    )
    resp = run(model.send(model.build_request([Message.user("x")])))
    assert "tool_choice" not in model.sent[0].json and resp.preflight is None


@pytest.mark.parametrize(
    ("instructions", "settings"),
    [("", {}), ("  \n", {}), ("", {"system_cache_control": {"type": "ephemeral"}}), ("\n", {"cache": True})],
)
def test_blank_instructions_never_reach_the_wire(mock_model, wire, instructions, settings) -> None:
    # the Messages API answers a blank system prompt with 400 "system: text content blocks must be non-empty"
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))] * 2, **settings)
    result = toolwire.run_sync(model, "hi", instructions=instructions)
    assert result.text == "ok"
    sent = model.sent[0].json
    assert "system" not in sent and sent["messages"][0]["content"][0]["text"] == "hi"
    # real instructions still go out as they are
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))])
    toolwire.run_sync(model, "hi", instructions=" Be brief.")
    assert model.sent[0].json["system"] == " Be brief."


@pytest.mark.parametrize(
    ("model_id", "asked", "sent"),
    [
        ("claude-sonnet-4-5-20250929", 200_000, 64_000),
        ("claude-opus-4-1", 64_000, 32_000),
        ("claude-3-5-haiku-latest", 10_000, 8_192),
        ("us.anthropic.claude-haiku-4-5-20251001-v1:0", 65_000, 64_000),
        ("claude-sonnet-4-6", 128_000, 128_000),  # at the limit: unchanged
        ("claude-sonnet-4-5", 4_096, 4_096),
        ("my-proxy-alias", 500_000, 500_000),  # an id toolwire does not know: sent as asked
    ],
)
def test_max_tokens_above_the_model_maximum_is_lowered_to_it(mock_model, wire, model_id, asked, sent) -> None:
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))], model_id=model_id, max_tokens=asked
    )
    resp = run(model.send(model.build_request([Message.user("go")])))
    assert model.sent[0].json["max_tokens"] == sent
    changes = [(c.rule, c.pointer) for c in resp.preflight or []]
    if sent < asked:
        assert changes == [("anthropic.request.max-tokens-model", "/max_tokens")]
        assert f"max_tokens {asked} sent as {sent}" in next(iter(resp.preflight)).detail
    else:
        assert changes == []


def test_a_thinking_budget_above_the_lowered_max_tokens_is_refused(mock_model, wire) -> None:
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))],
        model_id="claude-opus-4-1",
        max_tokens=100_000,
        thinking={"type": "enabled", "budget_tokens": 40_000},
    )
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("go")])))
    assert [v.rule for v in info.value.violations] == ["anthropic.request.thinking-budget"]
    assert "40000" in str(info.value) and "32000" in str(info.value)
    assert model.sent == []


@pytest.mark.parametrize(
    "effort, max_tokens, thinking",
    [
        ("high", 16_000, {"type": "enabled", "budget_tokens": 4096}),
        ("LOW", 16_000, {"type": "enabled", "budget_tokens": 1024}),
        ("max", 8_000, {"type": "enabled", "budget_tokens": 7_999}),  # kept below max_tokens
        ("none", 16_000, {"type": "disabled"}),
    ],
)
def test_cross_provider_effort_is_sent_as_anthropic_thinking(mock_model, wire, effort, max_tokens, thinking) -> None:
    """``thinking={"effort": ...}`` (what the OpenAI and Gemini adapters take) was sent to
    Anthropic as ``{"effort": ...}``, which has no ``type`` (``ThinkingConfigParam`` is
    enabled / adaptive / disabled)."""
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))],
        max_tokens=max_tokens,
        thinking={"effort": effort},
    )
    run(model.send(model.build_request([Message.user("go")])))
    assert model.sent[0].json["thinking"] == thinking


def test_effort_with_too_few_max_tokens_is_refused_naming_the_budget(mock_model, wire) -> None:
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))],
        max_tokens=1000,
        thinking={"effort": "low"},
    )
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("go")])))
    assert [v.rule for v in info.value.violations] == ["anthropic.request.thinking-budget"]
    assert model.sent == []


@pytest.mark.parametrize(
    "model_id, effort, thinking, output_config",
    [
        ("claude-opus-4-7", "high", {"type": "adaptive"}, {"effort": "high"}),
        ("claude-fable-5", "minimal", {"type": "adaptive"}, {"effort": "low"}),
        ("us.anthropic.claude-opus-4-7-v1:0", "medium", {"type": "adaptive"}, {"effort": "medium"}),
        ("claude-opus-4-6", "max", {"type": "adaptive"}, {"effort": "max"}),
        ("claude-sonnet-4-5", "high", {"type": "enabled", "budget_tokens": 4096}, None),
    ],
)
def test_effort_takes_the_thinking_form_each_model_takes(
    mock_model, wire, model_id, effort, thinking, output_config
) -> None:
    """Claude 4.7 and later refuse manual thinking ('"thinking.type.enabled" is not supported for
    this model. Use "thinking.type.adaptive" and "output_config.effort"'); models before 4.6 have
    no adaptive thinking."""
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))],
        model_id=model_id,
        max_tokens=16_000,
        thinking={"effort": effort},
    )
    run(model.send(model.build_request([Message.user("go")])))
    sent = model.sent[0].json
    assert sent["thinking"] == thinking
    assert sent.get("output_config") == output_config


@pytest.mark.parametrize(
    "model_id, thinking",
    [("claude-opus-4-7", {"type": "enabled", "budget_tokens": 2048}), ("claude-sonnet-4-5", {"type": "adaptive"})],
)
def test_a_thinking_type_the_model_does_not_take_is_refused_before_sending(
    mock_model, wire, model_id, thinking
) -> None:
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))],
        model_id=model_id,
        max_tokens=16_000,
        thinking=thinking,
    )
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("go")])))
    assert [v.rule for v in info.value.violations] == ["anthropic.request.thinking-type-model"]
    assert model.sent == []


def test_claude_5_family_names_are_read_for_the_prefill_rule() -> None:
    from toolwire_anthropic.profile import claude_version, takes_prefill

    assert claude_version("claude-fable-5") == (5, 0) and claude_version("claude-mythos-preview") == (5, 0)
    assert not takes_prefill("claude-fable-5-2") and not takes_prefill("claude-mythos-5")
    assert takes_prefill("claude-sonnet-4-5") and takes_prefill("some-proxy-alias")


def test_temperature_with_top_p_is_accepted_for_claude_3_on_bedrock_too() -> None:
    """Claude 3 takes both samplers; its Bedrock id (``anthropic.claude-3-...``) was refused."""
    from toolwire_anthropic.profile import AnthropicProfile

    profile = AnthropicProfile()
    for model_id, refused in (
        ("anthropic.claude-3-haiku-20240307-v1:0", False),
        ("claude-3-5-haiku@20241022", False),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
    ):
        body = {"model": model_id, "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
        body.update(temperature=0.2, top_p=0.9)
        rules = [v.rule for v in profile.check_request(body)]
        assert rules == (["anthropic.request.temperature-and-top-p"] if refused else []), model_id


@pytest.mark.parametrize(
    "model_id, settings, left_out, lossy",
    [
        ("claude-opus-4-7", {"temperature": 0.2}, ["temperature"], [True]),
        ("claude-opus-4-8", {"top_p": 0.9, "top_k": 5}, ["top_p", "top_k"], [True, True]),
        ("anthropic.claude-opus-4-7-v1:0", {"temperature": 1}, ["temperature"], [False]),
        ("claude-sonnet-5", {"temperature": 0.5}, ["temperature"], [True]),
        ("claude-fable-5", {"temperature": 0.0, "thinking": {"effort": "high"}}, ["temperature"], [True]),
        ("claude-opus-4-6", {"temperature": 0.2}, [], []),
        ("claude-sonnet-4-5", {"top_k": 5}, [], []),
    ],
)
def test_sampling_parameters_are_left_out_for_models_that_removed_them(
    mock_model, wire, model_id, settings, left_out, lossy
) -> None:
    """Claude models after Opus 4.6 answer "`temperature` is deprecated for this model." to any
    temperature, top_p or top_k: a provider swapped by config keeps working, the change reported."""
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))],
        model_id=model_id,
        max_tokens=16_000,
        **settings,
    )
    resp = run(model.send(model.build_request([Message.user("go")])))
    sent = model.sent[0].json
    for key in ("temperature", "top_p", "top_k"):
        if key in settings and key not in left_out:
            assert sent[key] == settings[key]
        else:
            assert key not in sent
    changes = [(c.pointer, c.lossy) for c in resp.preflight or [] if c.rule == "anthropic.request.sampling-model"]
    assert changes == [(f"/{k}", flag) for k, flag in zip(left_out, lossy)]


@pytest.mark.parametrize(
    "model_id, settings, sent",
    [
        # toolwire's own effort: xhigh goes to output_config on 4.6, which takes low to high and max
        ("claude-opus-4-6", {"thinking": {"effort": "xhigh"}}, {"effort": "high"}),
        ("claude-sonnet-4-6", {"output_config": {"effort": "xhigh"}}, {"effort": "high"}),
        ("claude-opus-4-5", {"output_config": {"effort": "max"}}, {"effort": "high"}),
        ("claude-sonnet-4-5", {"output_config": {"effort": "low"}}, None),
        ("claude-opus-4-7", {"thinking": {"effort": "xhigh"}}, {"effort": "xhigh"}),
    ],
)
def test_effort_is_sent_at_a_level_the_model_takes(mock_model, wire, model_id, settings, sent) -> None:
    """ "This model does not support the effort parameter." (Sonnet 4.5), and 400 for xhigh on the 4.6
    models and for max on Opus 4.5: the effort is lowered to the model's highest level at or below
    it, or left out, and the change is reported as lossy."""
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))],
        model_id=model_id,
        max_tokens=16_000,
        **settings,
    )
    resp = run(model.send(model.build_request([Message.user("go")])))
    assert model.sent[0].json.get("output_config") == sent
    changes = [(c.pointer, c.lossy) for c in resp.preflight or [] if c.rule == "anthropic.request.effort-model"]
    given = settings.get("output_config") or {"effort": settings["thinking"]["effort"]}
    assert changes == ([] if sent == given else [("/output_config/effort", True)])


@pytest.mark.parametrize(
    "model_id, settings, thinking, output_config",
    [
        # the cross-provider "no reasoning" setting (OpenAI's reasoning_effort none) is thinking disabled
        ("claude-opus-5-5", {"thinking": {"effort": "none"}}, {"type": "adaptive"}, None),
        ("claude-fable-5-2", {"thinking": {"type": "disabled"}}, {"type": "adaptive"}, None),
        ("claude-sonnet-5-5", {"thinking": {"effort": "none"}}, {"type": "between_tools"}, None),
        (
            "claude-opus-5",
            {"thinking": {"type": "disabled"}, "output_config": {"effort": "max"}},
            {"type": "disabled"},
            {"effort": "high"},
        ),
    ],
)
def test_thinking_off_is_sent_in_the_form_the_model_takes(
    mock_model, wire, model_id, settings, thinking, output_config
):
    """'"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and
    "output_config.effort" to control thinking behavior.' (Opus 5.5; the Fable and Mythos 5 models
    likewise); Sonnet 5.5 turns up-front thinking off with between_tools; Opus 5 takes disabled at
    effort high or below. Through the real SDK: the body as sent, and the loss reported."""
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))], model_id=model_id, **settings
    )
    resp = run(model.send(model.build_request([Message.user("go")])))
    assert model.sent[0].json["thinking"] == thinking
    assert model.sent[0].json.get("output_config") == output_config
    changes = [(c.pointer, c.lossy) for c in resp.preflight or [] if c.rule == "anthropic.request.thinking-off-model"]
    assert changes == [("/output_config/effort" if output_config else "/thinking", True)]


@pytest.mark.parametrize("model_id", ["claude-opus-5-5", "claude-sonnet-5-5"])
def test_forced_tool_choice_is_refused_on_the_5_5_models(mock_model, wire, model_id) -> None:
    """ "tool_choice: type \"tool\" and \"any\" are not supported for this model." on Opus 5.5 and
    Sonnet 5.5 (their what's-new pages: "Forced tool use returns an error"): refused before anything
    is sent, naming what to do; tool_choice auto goes through."""
    weather = Tool.from_schema(
        "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}}
    )
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))], model_id=model_id)
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("x")], tools=[weather], tool_choice="required")))
    assert model.sent == []
    assert [(v.rule, v.pointer) for v in info.value.violations] == [
        ("anthropic.request.forced-tool-choice-model", "/tool_choice/type")
    ]
    assert "tool_choice 'auto'" in str(info.value)
    run(model.send(model.build_request([Message.user("x")], tools=[weather], tool_choice="auto")))
    assert model.sent[0].json["tool_choice"] == {"type": "auto"}


@pytest.mark.parametrize(
    "model_id, speed, sent, beta, lossy",
    [
        # documented with fast mode (the fast-mode docs, 2026-12): sent as asked; Opus 5 (research
        # preview) takes speed only with the fast-mode-2026-02-01 beta header, which toolwire adds
        ("claude-opus-5-5", "fast", "fast", None, None),
        ("claude-fable-5-2", "fast", "fast", None, None),
        ("claude-mythos-5-2", "fast", "fast", None, None),
        ("claude-opus-5", "fast", "fast", "fast-mode-2026-02-01", None),
        ("claude-opus-5", "standard", "standard", "fast-mode-2026-02-01", None),
        # no fast mode: left out, lossy for "fast" (the answer comes at standard speed)
        ("claude-opus-4-8", "fast", None, None, True),  # removed 2026-11-30: the API errors
        ("claude-opus-4-7", "fast", None, None, True),
        ("claude-opus-4-6", "fast", None, None, True),  # the API answers at standard speed
        ("claude-sonnet-5", "fast", None, None, True),
        ("claude-sonnet-5-5", "fast", None, None, True),
        ("claude-haiku-5-5", "fast", None, None, True),
        ("claude-fable-5-1", "fast", None, None, True),
        ("claude-mythos-preview", "fast", None, None, True),
        ("claude-sonnet-5", "standard", None, None, False),
        # a Microsoft Foundry fast-mode deployment id: the id selects fast mode, speed is left out
        ("claude-opus-5-5-fast", "fast", None, None, False),
        # newer than toolwire knows in a family with fast mode, or not a Claude id: sent as asked
        ("claude-opus-6", "fast", "fast", None, None),
        ("my-gateway-model", "fast", "fast", None, None),
    ],
)
def test_speed_goes_only_to_models_with_fast_mode(mock_model, wire, model_id, speed, sent, beta, lossy) -> None:
    """Fast mode is on Opus 5.5, Fable 5.2, Mythos 5.2 and (research preview, beta header) Opus 5;
    "Sending speed: fast with an unsupported model returns an error" ("'claude-opus-4-7' does not
    support the `speed` parameter."). A shared speed setting is left out for every other model,
    reported as lossy for "fast"; through the real SDK, the request body and headers as sent."""
    model = mock_model(
        [wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))], model_id=model_id, speed=speed
    )
    resp = run(model.send(model.build_request([Message.user("go")])))
    assert model.sent[0].json.get("speed") == sent
    assert model.sent[0].headers.get("anthropic-beta") == beta
    changes = [(c.pointer, c.lossy) for c in resp.preflight or [] if c.rule == "anthropic.request.speed-model"]
    assert changes == ([] if lossy is None else [("/speed", lossy)])


def test_speed_beta_header_also_on_count_tokens(mock_model, wire) -> None:
    """``count_tokens`` sends ``speed`` too (``MessageCountTokensParams.speed``): the beta header goes
    with it for Opus 5, and speed is left out for a model without fast mode."""
    model = mock_model(
        [wire.json_response({"input_tokens": 12}), wire.json_response({"input_tokens": 12})],
        model_id="claude-opus-5",
        speed="fast",
    )
    assert run(model.count_tokens(model.build_request([Message.user("go")]))) == 12
    assert model.sent[0].url.endswith("/v1/messages/count_tokens")
    assert model.sent[0].json["speed"] == "fast"
    assert model.sent[0].headers.get("anthropic-beta") == "fast-mode-2026-02-01"
    other = mock_model([wire.json_response({"input_tokens": 12})], model_id="claude-sonnet-5", speed="fast")
    assert run(other.count_tokens(other.build_request([Message.user("go")]))) == 12
    assert "speed" not in other.sent[0].json and "anthropic-beta" not in other.sent[0].headers


_PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63fccf3c50000004850180849a98210000000049454e44ae426082"
)


@pytest.mark.parametrize(
    "declared, data, sent",
    [
        ("image/jpeg", _PNG_1PX, "image/png"),
        ("image/webp", b"\xff\xd8\xff\xe0" + bytes(60), "image/jpeg"),
        ("image/png", b"GIF89a" + bytes(60), "image/gif"),
        ("image/png", _PNG_1PX, "image/png"),
        # bytes of no known format that are not markup or JSON text: left to the API
        ("image/png", b"not an image at all, just some bytes", "image/png"),
    ],
)
def test_an_image_whose_bytes_are_another_format_is_sent_with_their_media_type(
    mock_model, wire, declared, data, sent
) -> None:
    """The API refuses "Image does not match the provided media type image/png": a screenshot
    saved as .jpg but holding PNG bytes fails the whole request."""
    from toolwire import ImagePart, TextPart

    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))])
    msg = Message("user", [TextPart("what is this?"), ImagePart(data=data, media_type=declared)])
    resp = run(model.send(model.build_request([msg])))
    source = model.sent[0].json["messages"][0]["content"][1]["source"]
    assert source["media_type"] == sent
    changes = [c for c in resp.preflight or [] if c.rule == "anthropic.conversation.image-media-type-data"]
    assert [(c.pointer, c.lossy) for c in changes] == (
        [("/messages/0/content/1/source/media_type", False)] if sent != declared else []
    )


def test_a_body_over_the_32_mb_request_limit_is_refused_before_it_is_posted(mock_model, wire) -> None:
    """The Messages API takes at most 32 MB per request (413 "request_too_large"); toolwire knows
    the size of the JSON it is about to post and refuses it there, saying what to do."""
    from toolwire_anthropic.profile import REQUEST_MAX_BYTES

    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))] * 2)
    big = "x" * (REQUEST_MAX_BYTES - 1000)
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user(big + "x" * 2000)])))
    assert info.value.rules == ["anthropic.request.size"]
    assert "32 MB" in str(info.value) and "fewer or smaller images" in str(info.value)
    assert model.sent == []
    # just under the limit is sent
    run(model.send(model.build_request([Message.user(big[:-2000])])))
    assert len(model.sent) == 1


def test_count_tokens_sends_no_lone_surrogate_and_refuses_an_answer_without_a_count(mock_model, wire) -> None:
    from toolwire.errors import ResponseDecodeError

    model = mock_model(
        [wire.json_response({"input_tokens": 12}), wire.json_response({"input_tokens": None})],
    )
    request = model.build_request([Message.user("file a\ud800b.txt")])
    assert run(model.count_tokens(request)) == 12
    assert model.sent[0].json["messages"][0]["content"][0]["text"] == "file a\ufffdb.txt"
    with pytest.raises(ResponseDecodeError, match="input_tokens is None"):
        run(model.count_tokens(request))


def test_speed_beta_header_keeps_the_betas_the_client_sends(wire) -> None:
    """A user's HTTP client that already sends ``anthropic-beta`` (a beta the user opted into)
    keeps it: the fast-mode beta is added to it, not put in its place."""
    seen: list[httpx2.Request] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))

    client = httpx2.AsyncClient(
        transport=httpx2.MockTransport(respond), headers={"anthropic-beta": "context-1m-2025-08-07"}
    )
    model = AnthropicModel("claude-opus-5", api_key="sk-ant-test", max_retries=0, http_client=client, speed="fast")
    run(model.send(model.build_request([Message.user("go")])))
    assert seen[0].headers.get("anthropic-beta") == "context-1m-2025-08-07,fast-mode-2026-02-01"
    # a model without the research-preview beta sends the client's betas as they are
    model = AnthropicModel("claude-opus-5-5", api_key="sk-ant-test", max_retries=0, http_client=client, speed="fast")
    run(model.send(model.build_request([Message.user("go")])))
    assert seen[1].headers.get("anthropic-beta") == "context-1m-2025-08-07"


# -- model id spellings (rule anthropic.request.model-id) ---------------------------------------------

GATEWAY = "https://llm-gateway.example/anthropic"


def test_model_id_spellings_through_the_sdk(mock_model, wire, monkeypatch) -> None:
    """A gateway's mixed-case spelling of a Claude id gets that model's rules and goes as written;
    the same spelling to the Claude API itself is refused when the model is made."""
    from toolwire.errors import ConfigurationError

    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    ok = wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))
    model = mock_model(
        [ok], model_id="Claude-Opus-5-5", base_url=GATEWAY, thinking={"type": "disabled"}, temperature=0.5
    )
    run(model.send(model.build_request([Message.user("hi")])))
    sent = model.sent[0].json
    # Opus 5.5 cannot turn thinking off and takes no temperature: repaired as for claude-opus-5-5
    assert sent["model"] == "Claude-Opus-5-5" and sent["thinking"] == {"type": "adaptive"}
    assert "temperature" not in sent
    # forced tool use is refused on Opus 5.5 in any spelling, before anything is sent
    weather = Tool.from_schema("get_weather", "Weather.", {"type": "object", "properties": {}})
    model = mock_model([ok], model_id="anthropic/CLAUDE-OPUS-5.5", base_url=GATEWAY)
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("hi")], tools=[weather], tool_choice="required")))
    assert [v.rule for v in info.value.violations] == ["anthropic.request.forced-tool-choice-model"]
    assert model.sent == []
    # to the Claude API itself the id must be the lower-case one
    for model_id, base_url in (("Claude-Opus-5-5", None), ("Claude-Opus-5-5", "https://api.anthropic.com")):
        with pytest.raises(ConfigurationError, match=r"write 'claude-opus-5-5' \[anthropic.request.model-id\]"):
            mock_model([ok], model_id=model_id, **({"base_url": base_url} if base_url else {}))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", GATEWAY)
    assert mock_model([ok], model_id="Claude-Opus-5-5").model_id == "Claude-Opus-5-5"
    # spaces: refused when made directly, dropped by toolwire.model's "provider: model-id" parsing
    with pytest.raises(ConfigurationError, match="spaces around it"):
        mock_model([ok], model_id=" claude-opus-5-5")
    assert toolwire.model("anthropic: claude-opus-5-5 ", api_key="k").model_id == "claude-opus-5-5"


# -- values the SDK types as Literal (rules anthropic.request.field-values, service-tier) ----------


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"speed": "turbo"}, ["'standard'", "'fast'"]),
        ({"speed": "Fast"}, ["'standard'", "'fast'"]),
        ({"output_config": {"effort": "extreme"}}, ["'xhigh'", "'max'"]),
        ({"thinking": {"type": "on"}}, ["'adaptive'", "'between_tools'"]),
        ({"thinking": {"type": "adaptive", "display": "full"}}, ["'summarized'", "'omitted'"]),
        ({"thinking": {"effort": "turbo"}}, ["minimal", "max"]),
        ({"service_tier": "priority"}, ["'auto'", "'standard_only'"]),
        # an object field given as another kind of value (was sent unchecked)
        ({"output_config": "max"}, ["output_config 'max' is not an object", "{'effort'"]),
        ({"output_config": 1}, ["output_config 1 is not an object"]),
        # a key the SDK's OutputConfigParam does not have ("output_config.efort: Extra inputs are
        # not permitted"): it was sent
        ({"output_config": {"efort": "low"}}, ["no field 'efort'", "did you mean 'effort'?", "effort, format"]),
        ({"cache_control": {"type": "ephemeral", "tll": "1h"}}, ["no field 'tll'", "did you mean 'ttl'?"]),
        # values of the request-level cache_control (was sent: "cache_control.ttl: Input should be '5m' or '1h'")
        ({"cache_control": {"type": "ephemeral", "ttl": "2h"}}, ["'5m'", "'1h'"]),
        ({"cache_control": {"type": "persistent"}}, ["'ephemeral'"]),
    ],
)
def test_an_unknown_setting_value_is_a_configuration_error(mock_model, wire, settings, named) -> None:
    from toolwire.errors import ConfigurationError

    with pytest.raises(ConfigurationError) as info:
        mock_model([], model_id="claude-opus-5-5", **settings)
    for value in named:
        assert value in str(info.value)


@pytest.mark.parametrize("stops", [["END", 7], "END", [None]])
def test_stop_sequences_that_are_not_a_list_of_strings_are_refused(mock_model, wire, stops) -> None:
    from toolwire.errors import ConfigurationError

    # given as the setting, they are refused when the model is made (the SDK's Sequence[str]:
    # test_anthropic_setting_types.py); sent through extra_body, by this rule before sending
    with pytest.raises(ConfigurationError, match=r"stop_sequences.*anthropic\.request\.field-values"):
        mock_model([], model_id="claude-sonnet-4-5", stop_sequences=stops)
    model = mock_model([], model_id="claude-sonnet-4-5", extra_body={"stop_sequences": stops})
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("hi")])))
    assert {v.rule for v in info.value.violations} == {"anthropic.request.stop-sequences-type"}
    assert model.sent == []
    ok = wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))
    model = mock_model([ok], model_id="claude-sonnet-4-5", stop_sequences=["END", "###"])
    run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["stop_sequences"] == ["END", "###"]


def test_speed_values_through_the_sdk(mock_model, wire) -> None:
    ok = wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))
    # the values the SDK types are sent (Opus 5 with its research-preview beta header)
    model = mock_model([ok], model_id="claude-opus-5", speed="fast")
    run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["speed"] == "fast"
    assert model.sent[0].headers["anthropic-beta"] == "fast-mode-2026-02-01"
    # one that reaches the body unchecked (extra_body) is refused before anything is sent
    model = mock_model([ok], model_id="claude-sonnet-4-5", extra_body={"speed": "turbo"})
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("hi")])))
    assert [(v.rule, v.pointer) for v in info.value.violations] == [("anthropic.request.field-values", "/speed")]
    assert model.sent == []
    model = mock_model([ok], model_id="claude-sonnet-4-5", extra_body={"thinking": 1})
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("hi")])))
    assert [(v.rule, v.pointer) for v in info.value.violations] == [("anthropic.request.field-values", "/thinking")]
    assert model.sent == []


@pytest.mark.parametrize(
    ("thinking", "named"),
    [
        # Anthropic's own object with a field its type does not have: the API answers
        # "thinking.adaptive.effort: Extra inputs are not permitted" (Wei-Shaw/sub2api#1619)
        ({"type": "adaptive", "effort": "high"}, ["no field 'effort'", "output_config={'effort'"]),
        (
            {"type": "enabled", "budget_tokens": 2048, "summary": "auto"},
            ["no field 'summary'", "budget_tokens, display"],
        ),
        ({"type": "disabled", "display": "omitted"}, ["thinking.disabled.display"]),
        # toolwire's effort form with another key: the codec sends the effort alone, so the key
        # was left out without a word
        ({"effort": "high", "summary": "auto"}, ["takes no 'summary'"]),
        ({"effort": "low", "budget_tokens": 4000}, ["takes no 'budget_tokens'"]),
    ],
)
def test_a_thinking_field_anthropic_does_not_take_is_a_configuration_error(mock_model, thinking, named) -> None:
    from toolwire.errors import ConfigurationError

    with pytest.raises(ConfigurationError) as info:
        mock_model([], model_id="claude-opus-4-6", thinking=thinking)
    for value in named:
        assert value in str(info.value)


def test_a_thinking_field_anthropic_does_not_take_is_refused_before_sending(mock_model, wire) -> None:
    ok = wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))
    model = mock_model([ok], model_id="claude-opus-4-6", extra_body={"thinking": {"type": "adaptive", "effort": "max"}})
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user("hi")])))
    assert [(v.rule, v.pointer) for v in info.value.violations] == [
        ("anthropic.request.field-values", "/thinking/effort")
    ]
    assert model.sent == []
    # the fields each type has go through the SDK as given
    model = mock_model([ok], model_id="claude-opus-4-6", thinking={"type": "adaptive", "display": "summarized"})
    run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["thinking"] == {"type": "adaptive", "display": "summarized"}
