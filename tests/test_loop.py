"""The shared loop: every failure path has an exact is_error text, parallel calls, limits."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import toolwire
from toolwire import Limits, MaxTurnsExceeded, Message, RunResult, ToolCall, ToolError, UsageLimitExceeded, tool
from toolwire.testing import ScriptedModel, call


@tool
def get_weather(city: str, days: int = 1) -> str:
    """Forecast for a city. Use when the user asks about weather.

    Args:
        city: City name, e.g. "Paris".
        days: Number of days to forecast, 1 to 7.
    """
    if city == "Nowhere":
        raise ValueError("city not found")
    return f"sunny in {city} for {days} day(s)"


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def scripted(*items):
    return ScriptedModel("scripted", responses=list(items))


def run(model, tools=(get_weather, add), **kw):
    return toolwire.run_sync(model, "go", tools=list(tools), **kw)


def only_result(result: RunResult):
    assert len(result.tool_runs) == 1
    return result.tool_runs[0].result


def test_exception_becomes_error_result_with_type_and_message():
    r = run(scripted(call("get_weather", {"city": "Nowhere"}), "ok"))
    res = only_result(r)
    assert res.is_error is True
    assert res.content == "ValueError: city not found"
    assert r.tool_errors == 1
    assert r.text == "ok"


def test_unknown_tool_lists_valid_names_and_suggests_closest():
    r = run(scripted(call("get_wether", {"city": "Paris"}), "ok"))
    res = only_result(r)
    assert res.is_error
    assert res.content == (
        "Unknown tool 'get_wether'.\nDid you mean 'get_weather'? Call one of the available tools: add, get_weather."
    )


def test_unknown_tool_without_close_match():
    res = only_result(run(scripted(call("zzz", {}), "ok")))
    assert res.content == "Unknown tool 'zzz'.\nCall one of the available tools: add, get_weather."


def test_invalid_json_arguments_quote_parse_position():
    from toolwire.arguments import parse_arguments

    args, invalid = parse_arguments('{"city": "Par')
    bad = ToolCall("c1", "get_weather", args, raw_arguments='{"city": "Par', invalid=invalid)
    res = only_result(run(scripted([bad], "ok")))
    assert res.is_error
    assert res.content == (
        "Invalid arguments for tool 'get_weather': arguments are not valid JSON: Unterminated string starting at "
        "(line 1, column 10, character 9 of 13).\n"
        "Send the arguments again as one JSON object that matches the tool's input schema."
    )


def test_schema_violation_names_pointer_and_rule():
    res = only_result(run(scripted(call("get_weather", {"city": "Paris", "days": "three"}), "ok")))
    assert res.content == (
        "Invalid arguments for tool 'get_weather': at /days: 'three' is not of type 'integer' (rule: type).\n"
        "Fix the arguments to match the tool's input schema and call it again."
    )


def test_missing_required_argument():
    res = only_result(run(scripted(call("get_weather", {}), "ok")))
    assert res.content == (
        "Invalid arguments for tool 'get_weather': at /: 'city' is a required property (rule: required).\n"
        "Fix the arguments to match the tool's input schema and call it again."
    )


def test_timeout_names_the_limit():
    @tool(timeout=0.05)
    async def slow() -> str:
        """Sleep."""
        await asyncio.sleep(5)
        return "late"

    res = only_result(run(scripted(call("slow"), "ok"), tools=[slow]))
    assert res.is_error
    assert res.content == (
        "Tool 'slow' timed out after 0.05 seconds and was stopped.\n"
        "Try a smaller request (narrower arguments), or a different approach."
    )


def test_tool_error_renders_message_then_hint():
    @tool
    def lookup(key: str) -> str:
        """Look up a key."""
        raise ToolError(
            f"no key {key!r}", hint="Call list_keys to see the keys.", retryable=False, valid_values=["a", "b"]
        )

    res = only_result(run(scripted(call("lookup", {"key": "x"}), "ok"), tools=[lookup]))
    assert res.content == (
        "no key 'x'\nCall list_keys to see the keys.\nValid values: a, b\n"
        "Retrying the same call will fail again; change the arguments."
    )
    assert res.is_error


def test_incomplete_call_is_not_run():
    ran = []

    @tool
    def write(text: str) -> str:
        """Write."""
        ran.append(text)
        return "ok"

    cut = ToolCall("c1", "write", None, raw_arguments='{"text": "abc', invalid="cut off", incomplete=True)
    res = only_result(run(scripted([cut], "ok"), tools=[write]))
    assert ran == []
    assert res.content.startswith(
        "Tool call 'write' was cut off by the output-token limit before its arguments were complete, so it was not run.\n"
    )


def test_parallel_calls_run_concurrently_and_keep_call_order():
    barrier = threading.Barrier(3, timeout=60)  # generous: thread start-up on a loaded machine

    @tool
    def wait(n: int) -> int:
        """Wait at a barrier that needs three callers."""
        barrier.wait()  # deadlocks (BrokenBarrierError after 5 s) unless all three run at once
        time.sleep(0.01 * (3 - n))
        return n

    r = run(scripted([call("wait", {"n": 1}), call("wait", {"n": 2}), call("wait", {"n": 3})], "ok"), tools=[wait])
    assert [x.result.content for x in r.tool_runs] == ["1", "2", "3"]
    assert [x.call.id for x in r.tool_runs] == ["call_1", "call_2", "call_3"]
    results_msg = r.conversation.messages[2]
    assert [p.tool_call_id for p in results_msg.tool_results] == ["call_1", "call_2", "call_3"]
    assert not r.tool_errors


def test_max_turns_raises_with_valid_conversation():
    m = scripted(call("add", {"a": 1, "b": 2}), call("add", {"a": 3, "b": 4}))
    with pytest.raises(MaxTurnsExceeded) as info:
        run(m, max_turns=2)
    res = info.value.result
    assert res.stop_reason == "max_turns"
    assert info.value.conversation.unanswered_tool_calls() == []
    last = res.conversation.messages[-1]
    assert last.role == "user"
    assert last.tool_results[0].is_error
    assert last.tool_results[0].content == "Not run: the run reached its limit of 2 model requests (max_turns)."
    assert [x.result.content for x in res.tool_runs][0] == "3"
    assert str(info.value) == (
        "the model still asked for tools after 2 requests (max_turns=2); to go on, continue the run with "
        "run(model, tools=..., conversation=exc.conversation) and a higher max_turns if it needs more"
    )


def test_tool_call_limit_answers_every_call():
    m = scripted([call("add", {"a": 1, "b": 1}), call("add", {"a": 2, "b": 2}), call("add", {"a": 3, "b": 3})])
    with pytest.raises(UsageLimitExceeded) as info:
        run(m, limits=Limits(max_tool_calls=2))
    res = info.value.result
    assert [x.result.content for x in res.tool_runs] == [
        "2",
        "4",
        "Not run: the run reached its limit of 2 tool calls (max_tool_calls).",
    ]
    assert res.conversation.unanswered_tool_calls() == []
    assert str(info.value).endswith(
        "(max_tool_calls); to go on, continue the run with run(model, tools=..., conversation=exc.conversation) "
        "and a higher Limits.max_tool_calls if it needs more"
    )


def test_token_limit_stops_and_answers_calls():
    m = scripted({"tool_calls": [call("add", {"a": 1, "b": 1})], "usage": {"input_tokens": 900, "output_tokens": 200}})
    with pytest.raises(UsageLimitExceeded) as info:
        run(m, limits=Limits(max_total_tokens=1000))
    res = info.value.result
    assert (
        res.tool_runs[0].result.content
        == "Not run: the run stopped because total tokens 1100 exceeded the limit of 1000."
    )
    assert res.conversation.unanswered_tool_calls() == []
    assert str(info.value) == (
        "usage limit reached: total tokens 1100 exceeded the limit of 1000 (Limits.max_total_tokens); to go on, "
        "continue the run with run(model, tools=..., conversation=exc.conversation) and a higher "
        "Limits.max_total_tokens if it needs more"
    )
    # the advice works: the conversation goes on in a new run
    again = run(scripted("done"), conversation=info.value.conversation, limits=Limits(max_total_tokens=5000))
    assert again.text == "done"


def test_usage_adds_up_across_turns():
    m = scripted(
        {
            "tool_calls": [call("add", {"a": 1, "b": 1})],
            "usage": {"input_tokens": 100, "output_tokens": 10, "cache_read_tokens": 5},
        },
        {"text": "2", "usage": {"input_tokens": 130, "output_tokens": 3}},
    )
    r = run(m)
    assert r.usage.input_tokens == 230
    assert r.usage.output_tokens == 13
    assert r.usage.cache_read_tokens == 5
    assert r.usage.reasoning_tokens is None
    assert r.usage.requests == 2
    assert [t.usage.input_tokens for t in r.turns] == [100, 130]


def test_run_result_json_round_trip_is_exact():
    from toolwire import ImagePart, TextPart

    @tool
    def chart() -> list:
        """Return a chart."""
        return [TextPart("Q3 chart"), ImagePart(data=b"\x89PNG\r\n", media_type="image/png")]

    m = scripted(
        {
            "reasoning": "think",
            "text": "calling",
            "tool_calls": [call("chart"), call("get_weather", {"city": "Nowhere"})],
            "usage": {"input_tokens": 7, "output_tokens": 2},
        },
        "done ✓ Zoë",
    )
    r = run(m, tools=[chart, get_weather])
    again = RunResult.from_json(r.to_json())
    assert again == r
    assert again.tool_runs[0].result.content[1].data == b"\x89PNG\r\n"
    assert again.text == "done ✓ Zoë"


def test_required_tool_choice_only_forces_first_request():
    m = scripted(call("add", {"a": 1, "b": 2}), "3")
    run(m, tool_choice="required")
    assert [req.tool_choice for req in m.requests] == ["required", "auto"]


def test_resume_conversation():
    first = run(scripted("hello"))
    m = scripted("again")
    second = toolwire.run_sync(m, "more", conversation=first.conversation)
    assert [msg.role for msg in second.conversation.messages] == ["user", "assistant", "user", "assistant"]
    assert m.requests[0].messages[0].text == "go"


def test_test_provider_calls_every_tool_then_reports():
    r = toolwire.run_sync("test", "x", tools=[get_weather, add])
    assert [x.call.name for x in r.tool_runs] == ["get_weather", "add"]
    assert [x.call.arguments for x in r.tool_runs] == [{"city": "example"}, {"a": 1, "b": 1}]
    assert r.text == "Tool results:\nget_weather: sunny in example for 1 day(s)\nadd: 2"
    assert len(r.turns) == 2


def test_duplicate_tool_names_rejected():
    from toolwire import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match="two tools are named 'add'"):
        run(scripted("x"), tools=[add, add])


def test_prompt_as_message():
    m = scripted("ok")
    toolwire.run_sync(m, Message.user("hi there"))
    assert m.requests[0].messages[0].text == "hi there"


# -- hardening found by adversarial testing -------------------------------------------------------


def test_tool_raising_builtin_timeout_error_is_not_a_toolwire_timeout():
    @tool
    def fetch(url: str) -> str:
        """Fetch a URL."""
        raise TimeoutError("connect to db.internal timed out")

    assert (
        only_result(run(scripted(call("fetch", {"url": "x"}), "ok"), tools=[fetch])).content
        == "TimeoutError: connect to db.internal timed out"
    )
    assert only_result(
        run(scripted(call("fetch", {"url": "x"}), "ok"), tools=[fetch], limits=Limits(tool_timeout=30))
    ).content == ("TimeoutError: connect to db.internal timed out")


def test_sync_tool_past_its_timeout_does_not_block_the_run():
    release = threading.Event()
    returned = threading.Event()

    @tool(timeout=0.1)
    def stuck() -> str:
        """Block until released."""
        release.wait(120)
        returned.set()
        return "late"

    res = only_result(run(scripted(call("stuck"), "ok"), tools=[stuck]))
    # the run returned while the thread was still blocked (no wall-clock bound needed)
    still_blocked = not returned.is_set()
    release.set()
    assert res.content == (
        "Tool 'stuck' timed out after 0.1 seconds; its result was discarded (a synchronous function cannot be "
        "interrupted and may still be running).\nTry a smaller request (narrower arguments), or a different approach."
    )
    assert still_blocked  # run_sync did not wait for the blocked thread


def test_system_exit_and_self_cancellation_become_error_results():
    @tool
    def legacy(args: str) -> str:
        """Run a legacy main()."""
        raise SystemExit(2)

    @tool
    async def fetch(url: str) -> str:
        """Fetch."""
        raise asyncio.CancelledError()

    assert only_result(run(scripted(call("legacy", {"args": "x"}), "ok"), tools=[legacy])).content == "SystemExit: 2"
    assert (
        only_result(run(scripted(call("fetch", {"url": "x"}), "ok"), tools=[fetch])).content
        == "CancelledError: the tool cancelled itself"
    )


def test_call_without_a_string_name_is_answered():
    bad = ToolCall("c1", None, {})  # type: ignore[arg-type]
    r = run(scripted([bad], "ok"))
    assert only_result(r).content == (
        "The tool call has no valid tool name (got None).\nCall one of the available tools: add, get_weather."
    )


def test_unresolvable_ref_is_rejected_at_definition():
    from toolwire import SchemaError, Tool

    with pytest.raises(SchemaError, match=r"\$ref at /properties/a to '#/\$defs/Missing', which points nowhere"):
        Tool.from_schema("t", "d", {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}})


@pytest.mark.parametrize("name", ["default", "enum", "examples", "const"])
def test_schema_checks_reach_properties_named_like_data_keywords(name):
    """A property called "default" (or "enum", ...) is a schema like any other: a dangling $ref
    or a pattern RE2 cannot run inside it is found when the tool is defined."""
    from toolwire import SchemaError, Tool

    with pytest.raises(SchemaError, match=rf"\$ref at /properties/{name} to '#/\$defs/Missing', which points nowhere"):
        Tool.from_schema("t", "d", {"type": "object", "properties": {name: {"$ref": "#/$defs/Missing"}}})
    with pytest.raises(SchemaError, match=rf"pattern at /\$defs/{name}/pattern that RE2 cannot run"):
        Tool.from_schema(
            "t",
            "d",
            {
                "type": "object",
                "$defs": {name: {"type": "string", "pattern": "(a)\\1"}},
                "properties": {"x": {"$ref": f"#/$defs/{name}"}},
            },
        )


def test_integral_float_reaches_int_parameter_as_int():
    seen = []

    @tool
    def repeat(text: str, times: int) -> str:
        """Repeat text."""
        seen.append(type(times))
        return text * times

    assert only_result(run(scripted(call("repeat", {"text": "a", "times": 2.0}), "ok"), tools=[repeat])).content == "aa"
    assert seen == [int]


def test_unexpected_argument_names_the_valid_ones():
    assert only_result(run(scripted(call("get_weather", {"city": "Paris", "unit": "c"}), "ok"))).content == (
        "Invalid arguments for tool 'get_weather': unexpected property 'unit' (valid: city, days).\n"
        "Fix the arguments to match the tool's input schema and call it again."
    )


def test_continuing_a_run_leaves_the_first_result_unchanged():
    first = run(scripted("hello"))
    before = first.to_json()
    toolwire.run_sync(scripted("again"), "more", conversation=first.conversation)
    assert first.to_json() == before
    assert len(first.conversation.messages) == 2


def test_pause_turn_at_max_turns_raises():
    m = scripted({"text": "", "stop_reason": "pause_turn"}, {"text": "", "stop_reason": "pause_turn"})
    with pytest.raises(MaxTurnsExceeded):
        run(m, max_turns=2)


def test_bad_run_arguments_are_configuration_errors():
    from toolwire import ConfigurationError

    for kwargs in ({"max_turns": None}, {"max_turns": 0}, {"limits": Limits(max_tool_calls=1).to_dict() | {"nope": 1}}):
        with pytest.raises((ConfigurationError, TypeError)):
            run(scripted("x"), **kwargs)
    with pytest.raises(ConfigurationError, match="tool_timeout"):
        Limits(tool_timeout=-1)
    with pytest.raises(ConfigurationError, match="prompt list"):
        toolwire.run_sync(scripted("x"), [{"type": "text"}])
    with pytest.raises(ValueError, match="not a saved toolwire RunResult"):
        RunResult.from_json('{"text": 1}')


def test_lone_surrogate_still_saves_and_loads():
    r = run(scripted(call("get_weather", {"city": "\ud83d"}), "ok"))
    text = r.to_json()
    text.encode("utf-8")
    assert RunResult.from_json(text) == r


def test_synthesized_ids_never_collide_within_a_conversation():
    first = ToolCall("gemini-x-0", "add", {"a": 1, "b": 1}, id_synthesized=True)
    again = ToolCall("gemini-x-0", "add", {"a": 2, "b": 2}, id_synthesized=True)
    r = run(scripted([first], [again], "ok"))
    ids = [x.call.id for x in r.tool_runs]
    assert ids == ["gemini-x-0", "gemini-x-0-2"]
    assert r.conversation.unanswered_tool_calls() == []


def test_the_same_call_repeated_under_one_vendor_id_in_one_response_is_refused_not_run():
    ran = []

    @tool
    def note(text: str) -> str:
        """Write a note."""
        ran.append(text)
        return "ok"

    r = run(
        scripted([ToolCall("t1", "note", {"text": "a"}), ToolCall("t1", "note", {"text": "a"})], "done"), tools=[note]
    )
    assert ran == ["a"]
    assert [x.result.content for x in r.tool_runs] == [
        "ok",
        "Tool call 'note' was not run: duplicate tool call id t1 in one response (it repeats the earlier call t1 of "
        "this response, which is the one answered).\nMake a new tool call if you still need the result.",
    ]


def test_distinct_calls_sharing_a_vendor_id_in_one_response_each_run_under_ids_of_their_own():
    # as the adapters' decoders do: a scripted (or custom) provider's response gets the same
    ran = []

    @tool
    def note(text: str) -> str:
        """Write a note."""
        ran.append(text)
        return f"noted {text}"

    bad = ToolCall("t1_1", "note", None, raw_arguments="{", invalid="bad JSON")  # an id the new one must not take
    r = run(
        scripted([ToolCall("t1", "note", {"text": "a"}), bad, ToolCall("t1", "note", {"text": "b"})], "done"),
        tools=[note],
    )
    assert sorted(ran) == ["a", "b"]
    assert [(x.call.id, x.result.is_error) for x in r.tool_runs] == [("t1", False), ("t1_1", True), ("t1_2", False)]
    answers = r.conversation.messages[2].tool_results
    assert [(a.tool_call_id, a.content) for a in answers][::2] == [("t1", "noted a"), ("t1_2", "noted b")]


def test_a_distinct_call_sharing_the_id_of_an_invalid_earlier_call_runs_under_an_id_of_its_own():
    # the Anthropic and Gemini decoders give such a call <id>_<position> and run it; a scripted
    # provider's was refused as "duplicate tool call id t1 in one response", never run
    ran = []

    @tool
    def note(text: str) -> str:
        """Write a note."""
        ran.append(text)
        return f"noted {text}"

    bad = ToolCall("t1", "note", None, raw_arguments="{", invalid="bad JSON")
    again = ToolCall("t1", "note", None, raw_arguments="{", invalid="bad JSON")
    r = run(scripted([bad, ToolCall("t1", "note", {"text": "b"}), again], "done"), tools=[note])
    assert ran == ["b"]
    assert [(x.call.id, x.result.is_error) for x in r.tool_runs][:2] == [("t1", True), ("t1_1", False)]
    answers = r.conversation.messages[2].tool_results
    assert [(a.tool_call_id, a.is_error) for a in answers][:2] == [("t1", True), ("t1_1", False)]
    assert answers[1].content == "noted b"
    assert r.conversation.unanswered_tool_calls() == []


def test_vendor_id_repeated_in_a_later_turn_is_renumbered():
    r = run(
        scripted([ToolCall("call_0", "add", {"a": 1, "b": 1})], [ToolCall("call_0", "add", {"a": 2, "b": 2})], "done")
    )
    assert [(x.call.id, x.result.content) for x in r.tool_runs] == [("call_0", "2"), ("call_0_2", "4")]
    assert r.tool_runs[1].call.provider_data["toolwire"] == {"vendor_id": "call_0"}
    assert r.conversation.messages[4].tool_results[0].tool_call_id == "call_0_2"


def test_stream_cut_call_says_the_stream_ended():
    from toolwire.stream import StopEvent, StreamAssembler, ToolCallDelta, ToolCallStart

    asm = StreamAssembler("anthropic")
    asm.feed(ToolCallStart(0, "toolu_1", "get_weather"))
    asm.feed(ToolCallDelta(0, '{"city": "Par'))
    asm.feed(StopEvent("error", None))
    cut = asm.response()
    res = only_result(run(scripted(cut, "ok")))
    assert res.content == (
        "Tool call 'get_weather' was cut off before its arguments were complete (the response stream "
        "ended early), so it was not run.\nCall the tool again with the complete arguments."
    )


import datetime  # noqa: E402
import enum  # noqa: E402

from pydantic import BaseModel  # noqa: E402


class Point(BaseModel):
    lat: float
    lon: float


class Unit(enum.Enum):
    C = "c"
    F = "f"


def test_arguments_reach_the_function_as_the_annotated_types():
    seen = []

    @tool
    def weather(at: Point, day: datetime.date, unit: Unit = Unit.C) -> str:
        """Weather at a point on a day."""
        seen.append((at, day, unit))
        return "ok"

    r = run(
        scripted(call("weather", {"at": {"lat": 1, "lon": 2}, "day": "2026-01-02", "unit": "f"}), "done"),
        tools=[weather],
    )
    assert only_result(r).content == "ok"
    assert seen == [(Point(lat=1.0, lon=2.0), datetime.date(2026, 1, 2), Unit.F)]
    assert r.tool_runs[0].call.arguments == {
        "at": {"lat": 1, "lon": 2},
        "day": "2026-01-02",
        "unit": "f",
    }  # the call keeps its JSON


def test_run_sync_errors_are_not_chained_to_the_event_loop_check():
    from toolwire import ConfigurationError

    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(scripted("x"), "hi", max_turns=0)
    assert info.value.__context__ is None


# -- code-review findings -----------------------------------------------------------------------


def test_stop_iteration_in_a_sync_tool_is_an_error_result():
    @tool
    def first_even(n: int) -> int:
        """First even number in range(n)."""
        return next(x for x in range(n) if x % 2 == 0 and x > 100)

    assert only_result(
        run(scripted(call("first_even", {"n": 3}), "ok"), tools=[first_even], limits=Limits(tool_timeout=20))
    ).content == ("RuntimeError: StopIteration")


def test_a_tool_changing_its_arguments_does_not_change_the_recorded_call():
    @tool
    def sort_items(data: dict) -> str:
        """Sort the items in place."""
        data["items"].sort()
        return "sorted"

    r = run(scripted(call("sort_items", {"data": {"items": [3, 1, 2]}}), "ok"), tools=[sort_items])
    assert r.tool_runs[0].call.arguments == {"data": {"items": [3, 1, 2]}}
    assert r.conversation.messages[1].tool_calls[0].arguments == {"data": {"items": [3, 1, 2]}}


def test_malformed_schema_is_answered_not_raised():
    from toolwire import Tool

    bad = Tool("lookup", "Look up.", {"type": "object", "properties": [{"q": {"type": "string"}}]}, lambda **kw: "x")
    res = only_result(run(scripted(call("lookup", {"q": "a"}), "ok"), tools=[bad]))
    assert res.is_error and res.content.startswith(
        "Tool 'lookup' cannot check its arguments: its input schema is unusable"
    )


def test_model_with_settings_is_a_variant():
    base = toolwire.model("test")
    variant = toolwire.model(base, final_text="x")
    assert base.settings == {} and variant.settings == {"final_text": "x"} and variant is not base


def test_a_parameter_pydantic_reserves_is_named_in_the_error():
    from toolwire import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match="'model_config' cannot be used.*rename the parameter"):

        @tool
        def configure(model_config: dict) -> str:
            """Configure."""
            return "ok"

    @tool
    def post_init(model_post_init: int) -> int:  # another model_ name pydantic takes as a field
        """Post init."""
        return model_post_init

    assert "model_post_init" in post_init.input_schema["properties"]


def test_positional_only_parameters_are_refused_at_definition():
    from toolwire import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match="positional-only"):

        @tool
        def f(x: int, /) -> int:
            """F."""
            return x


def test_nan_arguments_are_invalid_and_conversations_save_with_surrogates():
    from toolwire import Conversation, Message
    from toolwire.arguments import parse_arguments

    assert parse_arguments('{"x": NaN}') == (
        None,
        "arguments are not valid JSON: NaN is not a JSON number (JSON has no NaN or Infinity)",
    )
    conv = Conversation([Message.user("half \ud83d emoji")])
    conv.to_json().encode("utf-8")
    assert Conversation.from_json(conv.to_json()) == conv


def test_default_send_stream_keeps_reasoning_and_invalid_calls():
    from toolwire import ReasoningPart, Response
    from toolwire import ToolCall as TC
    from toolwire.adapter import collect_stream

    resp = Response(
        [
            ReasoningPart("think", signature="sig", provider="anthropic"),
            TC("c1", "add", None, raw_arguments="{", invalid="bad JSON"),
            TC("c1", "add", {"a": 1, "b": 2}, invalid="duplicate tool call id c1 in one response"),
        ],
        "tool_use",
        "tool_use",
    )
    m = scripted(resp)
    req = m.build_request([toolwire.Message.user("x")])
    out = asyncio.run(collect_stream(m.send_stream(req), "scripted"))
    assert [type(p).__name__ for p in out.parts] == ["ReasoningPart", "ToolCall", "ToolCall"]
    assert out.parts[0].signature == "sig"
    assert [c.is_valid for c in out.tool_calls] == [False, False]


def test_final_answer_past_a_token_limit_is_returned():
    m = scripted({"text": "the answer", "usage": {"input_tokens": 900, "output_tokens": 200}})
    r = run(m, limits=Limits(max_total_tokens=1000))
    assert (r.text, r.stop_reason, r.usage.total_tokens) == ("the answer", "end_turn", 1100)


class StrictBooking(BaseModel):
    model_config = {"strict": True}
    day: datetime.date
    unit: Unit


def test_strict_pydantic_types_accept_their_json_forms():
    seen = []

    @tool
    def book(b: StrictBooking) -> str:
        """Book a day."""
        seen.append(b)
        return "booked"

    assert (
        only_result(run(scripted(call("book", {"b": {"day": "2026-01-02", "unit": "c"}}), "ok"), tools=[book])).content
        == "booked"
    )
    assert seen == [StrictBooking(day=datetime.date(2026, 1, 2), unit=Unit.C)]


from typing import Annotated  # noqa: E402

from pydantic import Field, SecretStr  # noqa: E402


def test_non_repeatable_dedupe_uses_the_json_the_model_sent():
    from toolwire.design.idempotent import non_repeatable

    ran = []

    @non_repeatable
    @tool
    def set_password(user: str, password: SecretStr) -> str:
        """Set a user's password."""
        ran.append(password.get_secret_value())
        return "password set"

    r = run(
        scripted(
            call("set_password", {"user": "bob", "password": "hunter2"}),
            call("set_password", {"user": "bob", "password": "correct horse"}),
            call("set_password", {"user": "bob", "password": "correct horse"}),
            "ok",
        ),
        tools=[set_password],
    )
    assert ran == ["hunter2", "correct horse"]
    assert [x.deduplicated for x in r.tool_runs] == [False, False, True]


def test_parameter_aliases_and_trailing_newlines_are_refused():
    from toolwire import Tool, ToolDefinitionError, ToolNameError

    with pytest.raises(ToolDefinitionError, match="has an alias"):

        @tool
        def greet(user_name: Annotated[str, Field(alias="userName")]) -> str:
            """Greet."""
            return user_name

    with pytest.raises(ToolNameError):
        Tool("get_weather\n", "d")
    with pytest.raises(ToolNameError, match="gemini rule"):
        Tool("lookup\n", "d", imported_from="gemini")


def test_text_of_a_paused_turn_is_part_of_the_final_answer():
    r = run(scripted({"text": "Searching… ", "stop_reason": "pause_turn"}, {"text": "found it."}))
    assert r.text == "Searching… found it."
    r2 = run(scripted({"text": "Let me check. ", "tool_calls": [call("add", {"a": 1, "b": 1})]}, "It is 2."))
    assert r2.text == "It is 2."


def test_schema_violations_are_all_shown_up_to_five():
    from toolwire import Tool

    schema = {
        "type": "object",
        "properties": {k: {"type": "integer"} for k in "abcdefg"},
        "required": list("abcdefg"),
    }
    two = Tool("two", "", schema, function=lambda **kw: "ok")
    res = only_result(run(scripted(call("two", {k: 1 for k in "abcde"}), "ok"), tools=[two]))
    assert res.content == (
        "Invalid arguments for tool 'two': at /: 'f' is a required property (rule: required); "
        "at /: 'g' is a required property (rule: required).\n"
        "Fix the arguments to match the tool's input schema and call it again."
    )
    res = only_result(run(scripted(call("two", {k: "x" for k in "abcdefg"}), "ok"), tools=[two]))
    shown = "; ".join(f"at /{k}: 'x' is not of type 'integer' (rule: type)" for k in "gabcd")
    assert res.content == (  # jsonschema's best match first, then the rest by relevance
        f"Invalid arguments for tool 'two': {shown}; and 2 more problems.\n"
        "Fix the arguments to match the tool's input schema and call it again."
    )


@pytest.mark.parametrize(
    "value, text, is_error",
    [
        (b"caf\xc3\xa9", "café", False),
        (bytearray(b"caf\xc3\xa9"), "café", False),
        (memoryview(b"caf\xc3\xa9"), "café", False),
        (bytearray(b"\xff\xfe"), "utf-8", True),
    ],
)
def test_binary_return_values_are_utf8_text_or_an_error_result(value, text, is_error) -> None:
    """bytes, bytearray and memoryview are the same bytes to a user: sent as their UTF-8 text (not
    as "bytearray(b'...')" or "<memory at 0x...>"), or an is_error result when not UTF-8."""

    @tool
    def read_blob() -> object:
        """Read the blob."""
        return value

    result = toolwire.run_sync(ScriptedModel(responses=[call("read_blob"), "done"]), "go", tools=[read_blob])
    (run,) = result.tool_runs
    assert run.result.is_error is is_error
    content = run.result.content if isinstance(run.result.content, str) else str(run.result.content)
    assert text in content
    assert "bytearray" not in content and "memory at" not in content


def test_parts_nested_in_a_list_inside_the_result_list_stay_images() -> None:
    """["caption", [image]] was sent as the repr of the whole list (the image lost, its bytes as
    text); parts at any depth of the returned list are kept as parts."""
    from toolwire import ImagePart, TextPart

    png = bytes.fromhex("89504e470d0a1a0a0000000d49484452")

    @tool
    def shoot() -> object:
        """Take screenshots."""
        return ["caption", [ImagePart(data=png, media_type="image/png"), ["deeper", None]]]

    result = toolwire.run_sync(ScriptedModel(responses=[call("shoot"), "done"]), "go", tools=[shoot])
    content = result.tool_runs[0].result.content
    assert [type(p).__name__ for p in content] == ["TextPart", "ImagePart", "TextPart"]
    # a list holding no parts is what it would be alone: its JSON text
    assert [p.text for p in content if isinstance(p, TextPart)] == ["caption", '["deeper", null]']
    assert content[1].data == png
