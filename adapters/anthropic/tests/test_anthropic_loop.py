"""The shared loop driving AnthropicModel end to end (real SDK, MockTransport network)."""

from __future__ import annotations

import pytest

import toolwire
from toolwire import tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: first addend
        b: second addend
    """
    return a + b


@tool
def fail(city: str) -> str:
    """Always fails.

    Args:
        city: a city
    """
    raise ValueError("city not found")


def test_loop_runs_tools_and_sends_results(mock_model, wire) -> None:
    first = wire.message_body(
        [
            {"type": "text", "text": "Computing."},
            {"type": "tool_use", "id": "toolu_L1", "name": "add", "input": {"a": 2, "b": 40}},
            {"type": "tool_use", "id": "toolu_L2", "name": "fail", "input": {"city": "Atlantis"}},
        ],
        stop_reason="tool_use",
        usage={"input_tokens": 300, "output_tokens": 40},
    )
    final = wire.message_body(
        [{"type": "text", "text": "42, and Atlantis was not found."}], usage={"input_tokens": 380, "output_tokens": 12}
    )
    model = mock_model([wire.json_response(first), wire.json_response(final)])
    result = toolwire.run_sync(model, "add 2 and 40, then look up Atlantis", tools=[add, fail])
    assert result.text == "42, and Atlantis was not found." and result.stop_reason == "end_turn"
    assert result.tool_errors == 1
    second = model.sent[1].json
    results = second["messages"][2]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_L1", "toolu_L2"]
    assert results[0]["content"] == "42" and "is_error" not in results[0]
    assert results[1]["is_error"] is True and "city not found" in results[1]["content"]
    assert second["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_L1",
        "name": "add",
        "input": {"a": 2, "b": 40},
    }
    assert result.usage.input_tokens == 680 and result.usage.output_tokens == 52 and result.usage.requests == 2


def _context_full_events(calls: list[tuple[str, str]]) -> list[dict]:
    """A streamed response that stops with model_context_window_exceeded: complete calls, then
    the last one cut off mid-arguments."""
    events: list[dict] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_CTX",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 199000, "output_tokens": 1},
            },
        }
    ]
    for i, (call_id, partial) in enumerate(calls):
        events += [
            {
                "type": "content_block_start",
                "index": i,
                "content_block": {"type": "tool_use", "id": call_id, "name": "add_logged", "input": {}},
            },
            {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": partial}},
            {"type": "content_block_stop", "index": i},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "model_context_window_exceeded", "stop_sequence": None},
            "usage": {"output_tokens": 900},
        },
        {"type": "message_stop"},
    ]
    return events


@pytest.mark.parametrize("stream", [False, True])
def test_a_full_context_window_stops_the_run_with_every_call_answered(mock_model, wire, stream) -> None:
    ran: list[int] = []

    @tool
    def add_logged(a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: first addend
            b: second addend
        """
        ran.append(a + b)
        return a + b

    calls = [("toolu_C1", '{"a": 1, "b": 2}'), ("toolu_C2", '{"a": 3, "b"')]
    if stream:
        answer = wire.sse_response(_context_full_events(calls))
    else:
        content = [
            {"type": "tool_use", "id": "toolu_C1", "name": "add_logged", "input": {"a": 1, "b": 2}},
            {"type": "tool_use", "id": "toolu_C2", "name": "add_logged", "input": {"a": 3}},
        ]
        answer = wire.json_response(wire.message_body(content, stop_reason="model_context_window_exceeded"))
    model = mock_model(
        [answer, wire.json_response(wire.message_body([{"type": "text", "text": "never"}]))], stream=stream
    )
    with pytest.raises(toolwire.ContextWindowExceeded) as info:
        toolwire.run_sync(model, "add", tools=[add_logged])
    assert len(model.sent) == 1 and ran == []  # no second request into a full context, no tool run
    result = info.value.result
    assert (result.stop_reason, result.turns[0].response.vendor_stop_reason) == (
        "max_tokens",
        "model_context_window_exceeded",
    )
    answered = result.conversation.messages[-1].tool_results
    assert [r.tool_call_id for r in answered] == ["toolu_C1", "toolu_C2"]
    assert all(r.is_error and "context window" in r.text and "output-token" not in r.text for r in answered)
    assert "shorten or summarise" in str(info.value)
    # the conversation is valid to continue with: the next request sends both results
    model2 = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))])
    again = toolwire.run_sync(model2, conversation=result.conversation, tools=[add_logged])
    sent = model2.sent[0].json["messages"]
    assert again.text == "ok" and [b["tool_use_id"] for b in sent[-1]["content"][:2]] == ["toolu_C1", "toolu_C2"]


def test_a_run_stopped_by_a_full_context_window_saves_loads_and_resumes(mock_model, wire, tmp_path) -> None:
    """The run stops with ContextWindowExceeded (status "stopped", the response's own stop reason
    "max_tokens"): its state is one a real run leaves, so it saves, loads and resumes (a state
    check took "stopped" for limits only and refused it)."""

    @tool
    def add_logged(a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: first addend
            b: second addend
        """
        return a + b

    content = [{"type": "tool_use", "id": "toolu_C1", "name": "add_logged", "input": {"a": 1, "b": 2}}]
    answer = wire.json_response(wire.message_body(content, stop_reason="model_context_window_exceeded"))
    with pytest.raises(toolwire.ContextWindowExceeded) as info:
        toolwire.run_sync(mock_model([answer]), "add", tools=[add_logged])
    state = info.value.run_state
    assert state is not None and (state.status, state.stop_reason) == ("stopped", "max_tokens")
    path = tmp_path / "run.json"
    state.save(path)
    loaded = toolwire.RunState.load(path)
    assert loaded == state
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "shorter now"}]))])
    again = toolwire.run_sync(model, tools=[add_logged], resume=loaded)
    assert again.text == "shorter now" and again.stop_reason == "end_turn"
    assert [b["tool_use_id"] for b in model.sent[0].json["messages"][-1]["content"]] == ["toolu_C1"]


def test_a_full_context_window_without_calls_ends_the_run_normally(mock_model, wire) -> None:
    answer = wire.message_body(
        [{"type": "text", "text": "The summary is"}], stop_reason="model_context_window_exceeded"
    )
    model = mock_model([wire.json_response(answer)])
    result = toolwire.run_sync(model, "summarise", tools=[add])
    assert (result.stop_reason, result.text, len(model.sent)) == ("max_tokens", "The summary is", 1)


def test_the_output_token_limit_still_answers_the_cut_off_call_and_continues(mock_model, wire) -> None:
    content = [{"type": "tool_use", "id": "toolu_M1", "name": "add", "input": {"a": 3}}]
    model = mock_model(
        [
            wire.json_response(wire.message_body(content, stop_reason="max_tokens")),
            wire.json_response(wire.message_body([{"type": "text", "text": "retrying later"}])),
        ]
    )
    result = toolwire.run_sync(model, "add", tools=[add])
    assert len(model.sent) == 2 and result.text == "retrying later"
    answered = model.sent[1].json["messages"][-1]["content"][0]
    assert answered["is_error"] is True and "output-token limit" in answered["content"]


def test_property_keys_anthropic_refuses_are_renamed_and_mapped_back(mock_model, wire) -> None:
    from toolwire.schema.keys import KEY_PATTERN
    from toolwire.tools import Tool

    got: list[dict] = []
    long_key = "k" * 70
    schema = {
        "type": "object",
        "properties": {
            "filter[id]": {"type": "string"},
            "$top": {"type": "integer"},
            "Account Number": {"type": "string"},
            long_key: {"type": "boolean"},
            "body": {"type": "object", "properties": {"@odata.type": {"type": "string"}}, "required": ["@odata.type"]},
            "rows": {"type": "array", "items": {"type": "object", "properties": {"a b": {"type": "integer"}}}},
            "filter_id_": {"type": "string"},  # already a valid name: the renamed key must not take it
        },
        "required": ["filter[id]"],
    }
    graph = Tool.from_schema("list_users", "List users.", schema, function=lambda **kw: got.append(kw) or "2 users")
    call_input = {
        "filter_id__2": "u1",
        "_top": 5,
        "Account_Number": "A-1",
        "k" * 64: True,
        "body": {"_odata.type": "#user"},
        "rows": [{"a_b": 1}],
        "filter_id_": "plain",
    }
    first = wire.message_body(
        [{"type": "tool_use", "id": "toolu_K1", "name": "list_users", "input": call_input}], stop_reason="tool_use"
    )
    model = mock_model(
        [wire.json_response(first), wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))]
    )
    result = toolwire.run_sync(model, "users?", tools=[graph])
    sent = model.sent[0].json["tools"][0]["input_schema"]

    def keys(node):
        if isinstance(node, dict):
            for k, v in (node.get("properties") or {}).items():
                yield k
                yield from keys(v)
            yield from keys(node.get("items"))

    assert all(KEY_PATTERN.fullmatch(k) for k in keys(sent))
    assert sent["required"] == ["filter_id__2"]
    assert result.text == "ok" and result.tool_errors == 0
    assert got == [
        {
            "filter[id]": "u1",
            "$top": 5,
            "Account Number": "A-1",
            long_key: True,
            "body": {"@odata.type": "#user"},
            "rows": [{"a b": 1}],
            "filter_id_": "plain",
        }
    ]


def test_a_python_parameter_name_anthropic_refuses_reaches_the_function(mock_model, wire) -> None:
    @tool
    def lookup(città: str) -> str:
        """Look up a city.

        Args:
            città: the city
        """
        return f"found {città}"

    first = wire.message_body(
        [{"type": "tool_use", "id": "toolu_K2", "name": "lookup", "input": {"citt_": "Roma"}}], stop_reason="tool_use"
    )
    model = mock_model(
        [wire.json_response(first), wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))]
    )
    result = toolwire.run_sync(model, "Roma?", tools=[lookup])
    assert list(model.sent[0].json["tools"][0]["input_schema"]["properties"]) == ["citt_"]
    assert result.tool_runs[0].result.content == "found Roma"
    # the same tool's own names, as another API's model sends them, pass unchanged
    from toolwire.schema.keys import unwire_arguments

    assert unwire_arguments(lookup.input_schema, {"città": "Roma"}) == {"città": "Roma"}
