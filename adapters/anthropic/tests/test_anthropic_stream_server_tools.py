"""Streamed server-tool and opaque blocks, and their round trip into the next request (real SDK,
MockTransport network): a streamed response must give the same next request as the same
message returned whole."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire import tool


@tool
def lookup(city: str) -> str:
    """Look a city up.

    Args:
        city: a city
    """
    return f"{city}: 12 C"


def _events(body: dict[str, Any], deltas: dict[int, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    """``body`` as the API streams it: text and tool input as deltas, other blocks whole at their
    start unless ``deltas`` gives the start block and its deltas for an index."""
    deltas = deltas or {}
    head = {k: v for k, v in body.items() if k not in ("content", "stop_reason", "stop_sequence", "container")}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**head, "content": [], "stop_reason": None, "stop_sequence": None}}
    ]
    for i, block in enumerate(body["content"]):
        if i in deltas:
            start, more = deltas[i][0], deltas[i][1:]
        elif block["type"] == "text":
            start, more = {"type": "text", "text": ""}, [{"type": "text_delta", "text": block["text"]}]
        elif block["type"] in ("tool_use", "server_tool_use"):
            start = {**block, "input": {}}
            more = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}] if block["input"] else []
        else:
            start, more = block, []
        events.append({"type": "content_block_start", "index": i, "content_block": start})
        events += [{"type": "content_block_delta", "index": i, "delta": d} for d in more]
        events.append({"type": "content_block_stop", "index": i})
    delta: dict[str, Any] = {"stop_reason": body["stop_reason"], "stop_sequence": None}
    if body.get("container") is not None:
        delta["container"] = body["container"]
    events += [
        {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 20}},
        {"type": "message_stop"},
    ]
    return events


def _answer(wire: Any, body: dict[str, Any], stream: bool, deltas: dict[int, list[dict[str, Any]]] | None = None):
    return wire.sse_response(_events(body, deltas)) if stream else wire.json_response(body)


# -- compaction blocks: their summary arrives in compaction_delta events -----------------------------


def _compaction_body(wire: Any) -> dict[str, Any]:
    return wire.message_body(
        [
            {
                "type": "compaction",
                "content": "The user asked about Paris weather; it was 12 C.",
                "encrypted_content": "EpcBCkgIBhABGAIiQL",
                "signature": "sigC1",
            },
            {"type": "text", "text": "Continuing."},
        ]
    )


@pytest.mark.parametrize("stream", [False, True])
def test_a_compaction_block_goes_back_with_its_summary(mock_model, wire, stream) -> None:
    body = _compaction_body(wire)
    # beta streaming (anthropic.lib.streaming._beta_messages): the block starts without its summary,
    # which arrives in compaction_delta events (BetaCompactionContentBlockDelta{content, encrypted_content});
    # content may come in several deltas (anthropics/anthropic-sdk-python#1830), a null leaves it as it was
    deltas = {
        0: [
            {"type": "compaction", "content": None, "encrypted_content": None, "signature": "sigC1"},
            {"type": "compaction_delta", "content": "The user asked about Paris ", "encrypted_content": None},
            {"type": "compaction_delta", "content": "weather; it was 12 C.", "encrypted_content": "EpcBCkgIBhABGAIiQL"},
            {"type": "compaction_delta", "content": None, "encrypted_content": None},
        ]
    }
    model = mock_model(
        [_answer(wire, body, stream, deltas), wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))],
        stream=stream,
    )
    first = toolwire.run_sync(model, "weather?", tools=[lookup])
    assert first.text == "Continuing."
    toolwire.run_sync(model, "and now?", conversation=first.conversation, tools=[lookup])
    assistant = model.sent[1].json["messages"][1]
    assert assistant["content"][0] == body["content"][0]  # the block as the API gave it, summary included


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("model_id", ["claude-opus-4-6", "claude-sonnet-4-5"])
def test_a_turn_stopped_for_compaction_is_continued(mock_model, wire, stream, model_id) -> None:
    """``pause_after_compaction``: the API hands the turn back with stop reason ``compaction``
    (``anthropic.types.beta.BetaStopReason``) holding only the ``compaction`` block, before the
    model answers; the next request sends that turn back as it is and the model continues it
    (the SDK's own tool runner: ``_STOP_REASON_STEPS["compaction"] == "resume"``). Before, the run
    ended there as ``end_turn`` with no answer; on Claude 4.6+ the continuation is not a refused
    prefill."""
    paused = wire.message_body(
        [{"type": "compaction", "content": "Earlier: Paris is 12 C.", "encrypted_content": "Ep1", "signature": "s1"}],
        stop_reason="compaction",
    )
    final = wire.message_body([{"type": "text", "text": "It is 12 C in Paris."}])
    model = mock_model([_answer(wire, paused, stream), _answer(wire, final, stream)], stream=stream, model_id=model_id)
    result = toolwire.run_sync(model, "weather in Paris?", tools=[lookup], max_turns=3)
    assert result.text == "It is 12 C in Paris."
    assert result.stop_reason == "end_turn" and len(model.sent) == 2
    assert result.turns[0].response.stop_reason == "pause_turn"
    assert result.turns[0].response.vendor_stop_reason == "compaction"
    second = model.sent[1].json["messages"]
    assert second[-1] == {"role": "assistant", "content": paused["content"]}  # the paused turn, last, as it came


@pytest.mark.parametrize("stream", [False, True])
def test_the_tokens_of_a_compaction_count_in_usage(mock_model, wire, stream) -> None:
    """A compaction's own request is reported in ``usage.iterations`` only: "A `compaction`
    entry's tokens are not included in the top-level `usage` fields"
    (``anthropic.types.beta.BetaIterationsUsage``), yet it is billed. Before, its 1,600 input and
    300 output tokens were left out of the run's usage (and cost)."""
    iterations = [
        {
            "type": "compaction",
            "input_tokens": 1500,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 0,
            "output_tokens": 300,
        },
        {
            "type": "message",
            "input_tokens": 20,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "output_tokens": 8,
        },
    ]
    usage = {"input_tokens": 20, "output_tokens": 8, "iterations": iterations}
    compaction = {
        "type": "compaction",
        "content": "Earlier: Paris is 12 C.",
        "encrypted_content": "Ep1",
        "signature": "s1",
    }
    body = wire.message_body([compaction, {"type": "text", "text": "12 C."}], usage=usage)
    if stream:
        events = _events(body)
        events[0]["message"]["usage"] = {"input_tokens": 20, "output_tokens": 1}
        events[-2]["usage"] = usage  # message_delta: the final, cumulative usage with its iterations
        answer = wire.sse_response(events)
    else:
        answer = wire.json_response(body)
    model = mock_model([answer], stream=stream)
    result = toolwire.run_sync(model, "weather in Paris?", tools=[lookup])
    assert result.text == "12 C."
    u = result.turns[0].response.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens) == (20 + 1500 + 100, 8 + 300, 100)
    assert result.usage.total_tokens == 1928


@pytest.mark.parametrize("stream", [False, True])
def test_the_answers_to_diagnostics_and_context_management_are_kept(mock_model, wire, stream) -> None:
    """What the ``diagnostics`` and ``context_management`` settings ask the API to report
    (``anthropic.types.Message.diagnostics``; ``anthropic.types.beta.BetaMessage.context_management``,
    streamed in ``message_delta``) and the usage fields ``Usage`` has no counter for (billed
    server-tool requests, the tier, ``anthropic.types.beta.BetaUsage``) are kept in
    ``provider_data["anthropic"]``; before, they were dropped, so the settings had no visible effect."""
    diagnostics = {"cache_miss_reason": {"type": "system_changed", "cache_missed_input_tokens": 900}}
    edits = {
        "applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": 4000}]
    }
    usage = {
        "input_tokens": 10,
        "output_tokens": 5,
        "server_tool_use": {"web_search_requests": 2, "web_fetch_requests": 0},
        "service_tier": "priority",
    }
    body = wire.message_body([{"type": "text", "text": "Hi."}], usage=usage)
    body["diagnostics"], body["context_management"] = diagnostics, edits
    if stream:
        events = _events(body)  # message_start carries the message's fields, diagnostics included
        del events[0]["message"]["context_management"]
        events[-2]["context_management"] = edits  # message_delta: the edits applied
        answer = wire.sse_response(events)
    else:
        answer = wire.json_response(body)
    model = mock_model([answer], stream=stream, diagnostics={"previous_message_id": "msg_0"})
    result = toolwire.run_sync(model, "hi", tools=[lookup])
    own = result.turns[0].response.provider_data["anthropic"]
    assert own["diagnostics"] == diagnostics
    assert own["context_management"] == edits
    assert own["usage"] == {
        "server_tool_use": {"web_search_requests": 2, "web_fetch_requests": 0},
        "service_tier": "priority",
    }


def test_a_streamed_block_of_an_unknown_type_keeps_what_its_unknown_deltas_carry(mock_model, wire) -> None:
    """A future block type streamed with a future delta type: kept whole, the delta folded in as
    every documented delta is (a string appended to the field of its name), never dropped."""
    whole = {"type": "digest", "text": "first half, second half", "ref": {"n": 2}}
    body = wire.message_body([whole, {"type": "text", "text": "Done."}])
    deltas = {
        0: [
            {"type": "digest", "text": "", "ref": None},
            {"type": "digest_delta", "text": "first half, "},
            {"type": "digest_delta", "text": "second half", "ref": {"n": 2}},
        ]
    }
    model = mock_model(
        [
            wire.sse_response(_events(body, deltas)),
            wire.json_response(wire.message_body([{"type": "text", "text": "ok"}])),
        ],
        stream=True,
    )
    first = toolwire.run_sync(model, "digest", tools=[lookup])
    toolwire.run_sync(model, "more", conversation=first.conversation, tools=[lookup])
    assert model.sent[1].json["messages"][1]["content"] == body["content"]


# -- the code-execution container: required back while code execution has pending tool uses ---------


def _paused_code_execution(wire: Any) -> dict[str, Any]:
    """A turn paused while code execution runs: a web fetch called from the sandbox (its caller the
    code execution tool) has no result yet."""
    body = wire.message_body(
        [
            {"type": "text", "text": "Let me fetch and filter that page."},
            {
                "type": "server_tool_use",
                "id": "srvtoolu_01CE",
                "name": "code_execution",
                "input": {"code": "print(fetch('https://example.com'))"},
            },
            {
                "type": "server_tool_use",
                "id": "srvtoolu_01WF",
                "name": "web_fetch",
                "input": {"url": "https://example.com"},
                "caller": {"type": "code_execution_20260120", "tool_id": "srvtoolu_01CE"},
            },
        ],
        stop_reason="pause_turn",
    )
    body["container"] = {"id": "container_011CPause", "expires_at": "2026-11-21T10:00:00Z"}
    return body


@pytest.mark.parametrize("stream", [False, True])
def test_a_paused_code_execution_turn_is_continued_in_its_container(mock_model, wire, stream) -> None:
    body = _paused_code_execution(wire)
    final = wire.message_body([{"type": "text", "text": "The page says hello."}])
    model = mock_model([_answer(wire, body, stream), _answer(wire, final, stream)], stream=stream)
    result = toolwire.run_sync(model, "what does example.com say?", tools=[lookup])
    assert result.text.endswith("The page says hello.") and len(model.sent) == 2
    second = model.sent[1].json
    assert second["messages"][-1]["content"] == body["content"]  # the paused turn, sent back as is
    # "container_id is required when there are pending tool uses generated by code execution with tools"
    assert second["container"] == "container_011CPause"


@pytest.mark.parametrize("stream", [False, True])
def test_a_client_call_beside_pending_sandbox_tool_uses_sends_the_container(mock_model, wire, stream) -> None:
    body = _paused_code_execution(wire)
    body["content"].append({"type": "tool_use", "id": "toolu_01LK", "name": "lookup", "input": {"city": "Paris"}})
    body["stop_reason"] = "tool_use"
    final = wire.message_body([{"type": "text", "text": "Done."}])
    model = mock_model([_answer(wire, body, stream), _answer(wire, final, stream)], stream=stream)
    toolwire.run_sync(model, "fetch, then look Paris up", tools=[lookup])
    second = model.sent[1].json
    assert second["messages"][-1]["content"][0]["tool_use_id"] == "toolu_01LK"
    assert second["container"] == "container_011CPause"


def test_direct_server_tool_calls_do_not_pin_the_container(mock_model, wire) -> None:
    """A client call after a server tool the model called itself (``caller: direct``), the code
    execution finished: nothing generated by code execution is pending, no container is sent."""
    body = wire.message_body(
        [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_02CE",
                "name": "code_execution",
                "input": {"code": "1+1"},
                "caller": {"type": "direct"},
            },
            {
                "type": "code_execution_tool_result",
                "tool_use_id": "srvtoolu_02CE",
                "content": {
                    "type": "code_execution_result",
                    "stdout": "2",
                    "stderr": "",
                    "return_code": 0,
                    "content": [],
                },
            },
            {"type": "tool_use", "id": "toolu_02LK", "name": "lookup", "input": {"city": "Oslo"}},
        ],
        stop_reason="tool_use",
    )
    body["container"] = {"id": "container_022Done", "expires_at": "2026-11-21T10:00:00Z"}
    model = mock_model(
        [wire.json_response(body), wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))]
    )
    toolwire.run_sync(model, "compute, then look Oslo up", tools=[lookup])
    assert "container" not in model.sent[1].json


@pytest.mark.parametrize("name", ["server_tool_use", "mcp_tool_use"])
def test_a_streamed_server_call_started_without_input_goes_back_with_an_empty_input(mock_model, wire, name) -> None:
    """ServerToolUseBlockParam.input and MCPToolUseBlockParam.input are required: a streamed call
    whose start has no input and whose fragments are empty goes back with {}, as a client
    tool_use does, and as the same message returned whole would."""
    start = {"type": name, "id": "srvtoolu_1", "name": "web_search"}
    if name == "mcp_tool_use":
        start["server_name"] = "docs"
    body = wire.message_body([{**start, "input": {}}, {"type": "text", "text": "Searched."}])
    deltas = {0: [start, {"type": "input_json_delta", "partial_json": ""}]}
    model = mock_model(
        [
            wire.sse_response(_events(body, deltas)),
            wire.json_response(wire.message_body([{"type": "text", "text": "ok"}])),
        ],
        stream=True,
    )
    first = toolwire.run_sync(model, "search", tools=[lookup])
    toolwire.run_sync(model, "more", conversation=first.conversation, tools=[lookup])
    assert model.sent[1].json["messages"][1]["content"][0] == {**start, "input": {}}
