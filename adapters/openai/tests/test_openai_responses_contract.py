"""Responses contract tests: the real ``openai`` SDK, only the network replaced; hand-written
bodies in the exact Responses wire format; the outgoing JSON is asserted."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from openai_wire import fc_item, json_response, response_body, responses_sse

from toolwire.adapter import ModelRequest
from toolwire.errors import ProviderError, RequestRefused
from toolwire.tools import Tool
from toolwire.types import ImagePart, Message, ReasoningPart, TextPart, ToolCall, ToolResult

LOOKUP = Tool(
    "db_lookup",
    "Look up a value by key.",
    {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
)
ENC = "gAAAAABp-r_nDEFD_pLd6MEzoOCG8OKekq-Ev8vnbPTkSie4RovCRsX1uArYsm0yKKyAAEYh8tRzZVKUfeKd6HTY=="


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def reasoning_item(
    rid: str = "rs_01", enc: str | None = ENC, summary: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    item: dict[str, Any] = {"id": rid, "type": "reasoning", "summary": summary or []}
    if enc is not None:
        item["encrypted_content"] = enc
    return item


def test_single_call_body_and_decoding(responses_model: Any) -> None:
    body = response_body(
        [
            reasoning_item(summary=[{"type": "summary_text", "text": "Need the start key."}]),
            fc_item("call_R1", "db_lookup", '{"key":"start"}', "fc_01"),
        ],
        usage={
            "input_tokens": 120,
            "input_tokens_details": {"cached_tokens": 64},
            "output_tokens": 300,
            "output_tokens_details": {"reasoning_tokens": 256},
            "total_tokens": 420,
        },
    )
    model = responses_model(
        lambda r: json_response(body),
        model_id="gpt-5.5",
        max_tokens=2000,
        thinking={"effort": "high"},
        store=False,
        include=["reasoning.encrypted_content"],
    )
    resp = run(
        model.send(
            model.build_request(
                [Message.user("Solve it.")], instructions="Be exact.", tools=[LOOKUP], tool_choice="auto"
            )
        )
    )
    assert resp.stop_reason == "tool_use" and resp.vendor_stop_reason == "completed"
    (call,) = resp.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_R1", "db_lookup", {"key": "start"})
    assert call.provider_data["openai"]["item_id"] == "fc_01"
    reasoning = resp.parts[0]
    assert isinstance(reasoning, ReasoningPart) and reasoning.provider == "openai"
    assert reasoning.encrypted == ENC and reasoning.text == "Need the start key."
    u = resp.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.reasoning_tokens) == (120, 300, 64, 256)
    assert resp.provider_data == {"openai": {"response_id": "resp_TEST1"}}
    sent = model.sent[0]
    assert sent.url == "https://api.openai.com/v1/responses"
    assert sent.json == {
        "model": "gpt-5.5",
        "input": [{"role": "user", "content": "Solve it."}],
        "instructions": "Be exact.",
        "tools": [
            {
                "type": "function",
                "name": "db_lookup",
                "description": "Look up a value by key.",
                "parameters": LOOKUP.input_schema,
                "strict": False,
            }
        ],
        "tool_choice": "auto",
        "max_output_tokens": 2000,
        "reasoning": {"effort": "high"},
        "stream": False,
        "store": False,
        "include": ["reasoning.encrypted_content"],
    }


def test_reasoning_carried_across_turns_byte_equal(responses_model: Any) -> None:
    first = response_body(
        [reasoning_item("rs_A", ENC), fc_item("call_A", "db_lookup", '{"key": "start"}', "fc_A")], rid="resp_1"
    )
    second = response_body(
        [
            reasoning_item("rs_B", ENC[::-1]),
            {
                "id": "msg_B",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "phase": "final_answer",
                "content": [{"type": "output_text", "text": "42", "annotations": [], "logprobs": []}],
            },
        ],
        rid="resp_2",
    )
    bodies = [first, second]
    model = responses_model(
        lambda r: json_response(bodies.pop(0)), model_id="gpt-5", store=False, include=["reasoning.encrypted_content"]
    )
    r1 = run(model.send(model.build_request([Message.user("go")], tools=[LOOKUP])))
    history = [Message.user("go"), r1.to_message(), Message("user", [ToolResult("call_A", "Begin with 7.")])]
    r2 = run(model.send(model.build_request(history, tools=[LOOKUP])))
    assert r2.text == "42" and r2.stop_reason == "end_turn"
    sent_input = model.sent[1].json["input"]
    assert sent_input == [
        {"role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_A", "summary": [], "encrypted_content": ENC},
        {
            "type": "function_call",
            "call_id": "call_A",
            "name": "db_lookup",
            "arguments": '{"key": "start"}',
            "id": "fc_A",
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "call_A", "output": "Begin with 7."},
    ]
    # the message item of turn 2 goes back whole (id, phase, annotations) on a third turn
    third = model.codec.encode_request(ModelRequest("gpt-5", history + [r2.to_message(), Message.user("thanks")]))
    assert third["input"][4:] == [
        {"type": "reasoning", "id": "rs_B", "summary": [], "encrypted_content": ENC[::-1]},
        {
            "type": "message",
            "id": "msg_B",
            "status": "completed",
            "role": "assistant",
            "phase": "final_answer",
            "content": [{"type": "output_text", "text": "42", "annotations": [], "logprobs": []}],
        },
        {"role": "user", "content": "thanks"},
    ]


def test_previous_response_id_sends_only_new_items(responses_model: Any) -> None:
    first = response_body([fc_item("call_A", "db_lookup", '{"key":"a"}', "fc_A")], rid="resp_1")
    second = response_body(
        [
            {
                "id": "msg_2",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "done", "annotations": []}],
            }
        ],
        rid="resp_2",
    )
    bodies = [first, second]
    model = responses_model(lambda r: json_response(bodies.pop(0)), continuation="previous_response_id")
    r1 = run(model.send(model.build_request([Message.user("go")], instructions="Short.", tools=[LOOKUP])))
    history = [Message.user("go"), r1.to_message(), Message("user", [ToolResult("call_A", "value a")])]
    run(model.send(model.build_request(history, instructions="Short.", tools=[LOOKUP])))
    sent = model.sent[1].json
    assert sent["previous_response_id"] == "resp_1"
    assert sent["input"] == [{"type": "function_call_output", "call_id": "call_A", "output": "value a"}]
    assert sent["instructions"] == "Short."  # not carried over by the server
    assert "continuation" not in sent


def test_streamed_call_with_interleaved_arguments(responses_model: Any) -> None:
    resp_obj = {
        "id": "resp_S",
        "object": "response",
        "status": "in_progress",
        "model": "gpt-4o-2024-08-06",
        "output": [],
    }
    fc1 = {
        "id": "fc_1",
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": "call_1",
        "name": "db_lookup",
    }
    fc2 = {
        "id": "fc_2",
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": "call_2",
        "name": "db_lookup",
    }
    done1 = {**fc1, "status": "completed", "arguments": '{"key":"Zoë"}'}
    done2 = {**fc2, "status": "completed", "arguments": '{"key":"b"}'}
    final = {
        **resp_obj,
        "status": "completed",
        "output": [done1, done2],
        "usage": {
            "input_tokens": 40,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 30,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 70,
        },
    }
    events = [
        {"type": "response.created", "sequence_number": 0, "response": resp_obj},
        {"type": "response.output_item.added", "output_index": 0, "item": fc1, "sequence_number": 1},
        {"type": "response.output_item.added", "output_index": 1, "item": fc2, "sequence_number": 2},
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 0,
            "delta": '{"key":',
            "sequence_number": 3,
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_2",
            "output_index": 1,
            "delta": '{"key":"b"}',
            "sequence_number": 4,
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 0,
            "delta": '"Zoë"}',
            "sequence_number": 5,
        },
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "output_index": 0,
            "arguments": '{"key":"Zoë"}',
            "sequence_number": 6,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": done1, "sequence_number": 7},
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_2",
            "output_index": 1,
            "arguments": '{"key":"b"}',
            "sequence_number": 8,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": done2, "sequence_number": 9},
        {"type": "response.completed", "response": final, "sequence_number": 10},
    ]
    model = responses_model(lambda r: responses_sse(events), stream=True)
    resp = run(model.send(model.build_request([Message.user("x")], tools=[LOOKUP])))
    assert [(c.id, c.arguments, c.provider_data["openai"]["item_id"]) for c in resp.tool_calls] == [
        ("call_1", {"key": "Zoë"}, "fc_1"),
        ("call_2", {"key": "b"}, "fc_2"),
    ]
    assert resp.tool_calls[0].provider_data["openai"]["item"] == {"status": "completed"}
    assert resp.stop_reason == "tool_use" and resp.vendor_stop_reason == "completed"
    assert resp.usage.input_tokens == 40 and resp.response_id == "resp_S"
    assert model.sent[0].json["stream"] is True


def test_streamed_reasoning_and_text(responses_model: Any) -> None:
    msg_added = {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    msg_done = {
        **msg_added,
        "status": "completed",
        "content": [{"type": "output_text", "text": "Hello there", "annotations": []}],
    }
    rs_done = reasoning_item("rs_9", ENC, [{"type": "summary_text", "text": "Greet."}])
    final = {
        "id": "resp_T",
        "status": "completed",
        "model": "gpt-5.5",
        "output": [rs_done, msg_done],
        "usage": {"input_tokens": 5, "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 4}},
    }
    events = [
        {
            "type": "response.created",
            "response": {"id": "resp_T", "model": "gpt-5.5", "status": "in_progress", "output": []},
        },
        {"type": "response.output_item.added", "output_index": 0, "item": {**rs_done, "encrypted_content": None}},
        {"type": "response.output_item.done", "output_index": 0, "item": rs_done},
        {"type": "response.output_item.added", "output_index": 1, "item": msg_added},
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "content_index": 0,
            "item_id": "msg_1",
            "delta": "Hello",
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "content_index": 0,
            "item_id": "msg_1",
            "delta": " there",
        },
        {"type": "response.output_item.done", "output_index": 1, "item": msg_done},
        {"type": "response.completed", "response": final},
    ]
    model = responses_model(lambda r: responses_sse(events), stream=True)
    resp = run(model.send(model.build_request([Message.user("hi")])))
    assert resp.text == "Hello there" and resp.stop_reason == "end_turn"
    assert resp.parts[0].encrypted == ENC and resp.parts[0].text == "Greet."
    assert resp.usage.reasoning_tokens == 4
    # the streamed response goes back exactly like a non-streamed one
    items = model.codec.encode_request(ModelRequest("gpt-5.5", [Message.user("hi"), resp.to_message()]))["input"]
    assert items[1] == {
        "type": "reasoning",
        "id": "rs_9",
        "summary": [{"type": "summary_text", "text": "Greet."}],
        "encrypted_content": ENC,
    }
    assert items[2] == {
        "type": "message",
        "id": "msg_1",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hello there", "annotations": []}],
    }


@pytest.mark.parametrize(
    "raw,arguments,ok",
    [
        ("", {}, True),
        ("null", {}, True),
        ("{}", {}, True),
        ('{"key": "st', None, False),
        ("{key}", None, False),
        ("[1]", None, False),
    ],
    ids=["empty", "null", "empty-object", "truncated", "invalid", "array"],
)
def test_malformed_arguments(responses_model: Any, raw: str, arguments: Any, ok: bool) -> None:
    body = response_body([fc_item("call_M", "db_lookup", raw, "fc_M")])
    model = responses_model(lambda r: json_response(body))
    (call,) = run(model.send(model.build_request([Message.user("x")], tools=[LOOKUP]))).tool_calls
    assert call.arguments == arguments and call.is_valid is ok and call.raw_arguments == raw
    item = model.codec.encode_request(ModelRequest("gpt-4o", [Message("assistant", [call])]))["input"][0]
    assert item["arguments"] == ("{}" if raw in ("", "null") or not ok else raw)


def test_incomplete_max_output_tokens(responses_model: Any) -> None:
    body = response_body(
        [fc_item("call_C", "db_lookup", '{"key": "lo', "fc_C") | {"status": "incomplete"}],
        status="incomplete",
        incomplete="max_output_tokens",
    )
    model = responses_model(lambda r: json_response(body))
    resp = run(model.send(model.build_request([Message.user("x")], tools=[LOOKUP])))
    assert resp.stop_reason == "max_tokens" and resp.vendor_stop_reason == "incomplete:max_output_tokens"
    (call,) = resp.tool_calls
    assert call.incomplete and not call.is_valid


def test_image_and_error_results(responses_model: Any) -> None:
    model = responses_model(lambda r: json_response(response_body([])))
    history = [
        Message.user("x"),
        Message("assistant", [ToolCall("call_1", "chart", {}), ToolCall("call_2", "db_lookup", {"key": "k"})]),
        Message(
            "user",
            [
                ToolResult(
                    "call_1", [TextPart("Q3 chart"), ImagePart(data=b"\x89PNG\r\n\x1a\n", media_type="image/png")]
                ),
                ToolResult("call_2", "KeyError: 'k'", is_error=True),
            ],
        ),
    ]
    run(model.send(ModelRequest("gpt-4o", history)))
    items = model.sent[0].json["input"]
    assert items[3] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": [
            {"type": "input_text", "text": "Q3 chart"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"},
        ],
    }
    assert items[4] == {"type": "function_call_output", "call_id": "call_2", "output": "Error: KeyError: 'k'"}


def test_other_vendor_reasoning_dropped_and_plain_text_as_easy_message() -> None:
    from toolwire_openai import OpenAIResponsesCodec

    msg = Message(
        "assistant",
        [
            ReasoningPart("hmm", signature="c2ln", provider="gemini"),
            TextPart("Checking."),
            ToolCall("toolu_9", "db_lookup", {"key": "z"}),
        ],
    )
    answer = Message("user", [ToolResult("toolu_9", "found")])
    items = OpenAIResponsesCodec().encode_request(ModelRequest("gpt-4o", [msg, answer]))["input"]
    assert items == [
        {"role": "assistant", "content": "Checking."},
        {"type": "function_call", "call_id": "toolu_9", "name": "db_lookup", "arguments": '{"key":"z"}'},
        {"type": "function_call_output", "call_id": "toolu_9", "output": "found"},
    ]


def test_failed_response_and_stream_error_raise(responses_model: Any) -> None:
    failed = response_body([], status="failed") | {
        "error": {"code": "server_error", "message": "The server had an error."}
    }
    model = responses_model(lambda r: json_response(failed))
    with pytest.raises(ProviderError) as info:
        run(model.send(model.build_request([Message.user("x")])))
    assert info.value.retryable and info.value.error_type == "server_error" and info.value.status is None
    events = [
        {"type": "response.created", "response": {"id": "resp_E", "status": "in_progress", "output": []}},
        {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.", "param": None},
    ]
    model = responses_model(lambda r: responses_sse(events), stream=True)
    with pytest.raises(ProviderError) as info:
        run(model.send(model.build_request([Message.user("x")])))
    assert info.value.message == "Slow down." and info.value.retryable


def test_http_error_mapping(responses_model: Any) -> None:
    err = {
        "error": {
            "message": "Invalid schema for function 'db_lookup'",
            "type": "invalid_request_error",
            "param": "tools[0]",
            "code": "invalid_function_parameters",
        }
    }
    model = responses_model(lambda r: json_response(err, status=400))
    with pytest.raises(ProviderError) as info:
        run(model.send(model.build_request([Message.user("x")])))
    e = info.value
    assert (e.provider, e.status, e.error_type, e.retryable) == ("openai", 400, "invalid_request_error", False)
    assert e.message == "Invalid schema for function 'db_lookup'"


def test_count_tokens_live_endpoint(responses_model: Any) -> None:
    model = responses_model(
        lambda r: json_response({"object": "response.input_tokens", "input_tokens": 311}), store=False, max_tokens=100
    )
    n = run(model.count_tokens(model.build_request([Message.user("hello")], instructions="Be brief.", tools=[LOOKUP])))
    assert n == 311
    sent = model.sent[0]
    assert sent.url == "https://api.openai.com/v1/responses/input_tokens"
    assert sent.json == {
        "model": "gpt-4o",
        "input": [{"role": "user", "content": "hello"}],
        "instructions": "Be brief.",
        "tools": [
            {
                "type": "function",
                "name": "db_lookup",
                "description": "Look up a value by key.",
                "parameters": LOOKUP.input_schema,
                "strict": False,
            }
        ],
    }


# --- custom (free-text) tool calls: never run, sent back as themselves -------------------------

CUSTOM_ITEM = {
    "type": "custom_tool_call",
    "id": "ctc_0a1",
    "call_id": "call_sql1",
    "name": "execute_sql",
    "input": "SELECT * FROM users;",
    "status": "completed",
}


def _custom_history(resp: Any) -> list[Message]:
    return [
        Message.user("Show me all users"),
        resp.to_message(),
        Message("user", [ToolResult("call_sql1", "tool not available", is_error=True)]),
    ]


def test_custom_tool_call_is_invalid_and_goes_back_as_custom_items() -> None:
    from toolwire_openai import OpenAIResponsesCodec

    codec = OpenAIResponsesCodec()
    body = {
        "id": "resp_c1",
        "status": "completed",
        "model": "gpt-5-2025-08-07",
        "output": [{"type": "reasoning", "id": "rs_c1", "summary": [], "encrypted_content": ENC}, CUSTOM_ITEM],
    }
    resp = codec.decode_response(body)
    (call,) = resp.tool_calls
    assert (call.id, call.name, call.raw_arguments) == ("call_sql1", "execute_sql", "SELECT * FROM users;")
    assert call.invalid is not None and "custom" in call.invalid
    sent = codec.encode_request(ModelRequest("gpt-5", _custom_history(resp)))["input"]
    assert sent[2] == CUSTOM_ITEM  # the same item, input text unchanged (not a function_call with "{}")
    assert sent[3] == {"type": "custom_tool_call_output", "call_id": "call_sql1", "output": "Error: tool not available"}


def test_streamed_custom_tool_call_is_kept_and_marked_like_the_plain_one() -> None:
    from toolwire_openai import OpenAIResponsesCodec
    from toolwire_openai._common import check_tool_calls

    from toolwire.stream import assemble

    codec = OpenAIResponsesCodec()
    started = {**CUSTOM_ITEM, "input": "", "status": "in_progress"}
    events = [
        {
            "type": "response.created",
            "response": {"id": "resp_c2", "model": "gpt-5-2025-08-07", "status": "in_progress"},
        },
        {"type": "response.output_item.added", "output_index": 0, "item": started},
        {
            "type": "response.custom_tool_call_input.delta",
            "output_index": 0,
            "item_id": "ctc_0a1",
            "delta": "SELECT * ",
        },
        {
            "type": "response.custom_tool_call_input.delta",
            "output_index": 0,
            "item_id": "ctc_0a1",
            "delta": "FROM users;",
        },
        {
            "type": "response.custom_tool_call_input.done",
            "output_index": 0,
            "item_id": "ctc_0a1",
            "input": "SELECT * FROM users;",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": CUSTOM_ITEM},
        {
            "type": "response.completed",
            "response": {
                "id": "resp_c2",
                "status": "completed",
                "output": [CUSTOM_ITEM],
                "usage": {"input_tokens": 61, "output_tokens": 148},
            },
        },
    ]
    resp = check_tool_calls(
        assemble(codec.decode_stream(events, ModelRequest("gpt-5", [Message.user("q")], stream=True)))
    )
    (call,) = resp.tool_calls  # before the fix a streamed custom call vanished and the turn looked final
    assert (call.id, call.raw_arguments, resp.stop_reason) == ("call_sql1", "SELECT * FROM users;", "tool_use")
    assert call.invalid is not None and "custom" in call.invalid
    assert codec.encode_request(ModelRequest("gpt-5", _custom_history(resp)))["input"][1]["type"] == "custom_tool_call"


def _reasoning_turn_events(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    final = {"id": "resp_R1", "status": "completed", "model": "gpt-5.5", "output": output}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**final, "status": "in_progress", "output": []}}
    ]
    for i, item in enumerate(output):
        events.append({"type": "response.output_item.added", "output_index": i, "item": item})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    events.append({"type": "response.completed", "response": final})
    return events


_DB_LOOKUP = Tool(
    "db_lookup",
    "Look up a value by key.",
    {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
    function=lambda key: f"value of {key}",
)
_DONE = response_body(
    [
        {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "a is 1", "annotations": []}],
        }
    ]
)


def _reasoning_run(responses_model: Any, turn: list[dict[str, Any]], model_id: str, stream: bool) -> Any:
    """A run on ``model_id`` whose first answer is ``turn`` (streamed or not), then "a is 1"."""
    import toolwire

    answers = iter(
        [
            responses_sse(_reasoning_turn_events(turn)) if stream else json_response(response_body(turn)),
            json_response(_DONE),
        ]
    )
    model = responses_model(lambda r: next(answers), model_id=model_id, stream=stream)
    result = toolwire.run_sync(model, "a?", tools=[_DB_LOOKUP])
    assert result.text == "a is 1"
    return model, result


@pytest.mark.parametrize("stream", [False, True])
def test_encrypted_reasoning_is_not_sent_to_another_endpoint(responses_model: Any, stream: bool) -> None:
    import toolwire

    tool, done = _DB_LOOKUP, _DONE
    turn = [reasoning_item("rs_1", ENC), fc_item("call_1", "db_lookup", '{"key": "a"}', "fc_1")]
    first, result = _reasoning_run(responses_model, turn, "gpt-5.5", stream)
    assert result.text == "a is 1"
    # (the same endpoint sends it back, with the ids of its turn)
    assert [x.get("id") for x in first.sent[1].json["input"] if x.get("type") in ("reasoning", "function_call")] == [
        "rs_1",
        "fc_1",
    ]

    reports: list[Any] = []

    def continued(**settings: Any) -> list[dict[str, Any]]:
        model = responses_model(lambda r: json_response(done), model_id="gpt-5.5", **settings)
        run = toolwire.run_sync(model, "and b?", conversation=result.conversation, tools=[tool])
        reports.append([(c.rule, c.pointer) for c in run.turns[-1].response.preflight or []])
        return model.sent[0].json["input"]

    same = continued()
    assert [x.get("encrypted_content") for x in same if x.get("type") == "reasoning"] == [ENC]
    # another endpoint (an Azure deployment) cannot decrypt it: 400 invalid_encrypted_content
    other = continued(base_url="https://example-resource.openai.azure.com/openai/v1")
    assert [x for x in other if x.get("type") == "reasoning"] == []
    call = next(x for x in other if x.get("type") == "function_call")
    assert "id" not in call and call["call_id"] == "call_1"  # without its reasoning item, no item id
    output = next(x for x in other if x.get("type") == "function_call_output")
    assert output["call_id"] == "call_1" and output["output"] == "value of a"
    assert reports == [[], [("openai.conversation.reasoning-left-out", "/messages/1/parts/0")]]
    # a conversation from before the endpoint was recorded, or imported, is sent as it is
    for part in (p for m in result.conversation.messages for p in m.parts if isinstance(p, ReasoningPart)):
        del part.provider_data["openai"]["origin"]
    legacy = continued(base_url="https://example-resource.openai.azure.com/openai/v1")
    assert [x.get("id") for x in legacy if x.get("type") == "reasoning"] == ["rs_1"]


@pytest.mark.parametrize("stream", [False, True])
def test_reasoning_is_not_sent_to_a_model_that_does_not_reason(responses_model: Any, stream: bool) -> None:
    """gpt-5 reasons and calls a tool; the conversation goes on with gpt-4.1, which refuses reasoning
    items ("Reasoning input items can only be provided to a reasoning or computer use model")."""
    import toolwire

    search = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "a"},
    }
    turn = [reasoning_item("rs_1", ENC), search, fc_item("call_1", "db_lookup", '{"key": "a"}', "fc_1")]
    _, result = _reasoning_run(responses_model, turn, "gpt-5", stream)

    left_out: dict[str, list[tuple[str, str, bool]]] = {}

    def continued(model_id: str) -> list[dict[str, Any]]:
        # a capitalised id goes through a gateway: to api.openai.com it is refused when the model is
        # made (rule openai.request.model-id), and the rules read it in any case either way
        gateway = {"base_url": "https://llm-gateway.example/v1"} if model_id != model_id.lower() else {}
        model = responses_model(lambda r: json_response(_DONE), model_id=model_id, **gateway)
        run = toolwire.run_sync(model, "and b?", conversation=result.conversation, tools=[_DB_LOOKUP])
        changes = run.turns[-1].response.preflight
        left_out[model_id] = [
            (c.rule, c.pointer, c.lossy) for c in changes or [] if c.rule == "openai.conversation.reasoning-left-out"
        ]
        return model.sent[0].json["input"]

    non_reasoning = ("gpt-4.1", "gpt-4o-mini", "openai/gpt-4o", "gpt-5.3-chat-latest", "gpt-4.5-preview")
    for model_id in (*non_reasoning, "ft:gpt-4o-mini:org::abc123", "openai/ft:gpt-4.1-nano:org:x:y", "OpenAI/GPT-4o"):
        sent = continued(model_id)
        assert [x for x in sent if x.get("type") == "reasoning"] == [], model_id
        # the hosted call needs its id, and its id needs the reasoning: left out with it
        assert [x for x in sent if x.get("type") == "web_search_call"] == [], model_id
        call = next(x for x in sent if x.get("type") == "function_call")
        assert "id" not in call and call["call_id"] == "call_1"  # without its reasoning item, no item id
        assert next(x for x in sent if x.get("type") == "function_call_output")["output"] == "value of a"
        # each item left out is on the turn's preflight report, at its place in the conversation
        assert left_out[model_id] == [
            ("openai.conversation.reasoning-left-out", "/messages/1/parts/0", True),
            ("openai.conversation.reasoning-left-out", "/messages/1/parts/1", True),
        ], model_id
    # reasoning models, and names toolwire does not know (a deployment's alias), get it back
    for model_id in ("gpt-5-mini", "o4-mini", "gpt-5.2", "computer-use-preview", "my-deployment", "ft:o4-mini:org::x"):
        sent = continued(model_id)
        assert [x.get("id") for x in sent if x.get("type") == "web_search_call"] == ["ws_1"], model_id
        assert [(x.get("id"), x.get("encrypted_content")) for x in sent if x.get("type") == "reasoning"] == [
            ("rs_1", ENC)
        ], model_id
        assert left_out[model_id] == [], model_id


def test_previous_response_id_with_store_false_is_refused_when_the_model_is_made() -> None:
    import toolwire
    from toolwire.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="continuation='stateless'"):
        toolwire.model("openai:gpt-5", api_key="k", continuation="previous_response_id", store=False)
    # each alone is fine
    toolwire.model("openai:gpt-5", api_key="k", continuation="previous_response_id")
    toolwire.model("openai:gpt-5", api_key="k", store=False)


def test_the_jpg_spelling_is_sent_as_image_jpeg_on_both_openai_apis(responses_model: Any, chat_model: Any) -> None:
    import json as _json

    from openai_wire import completion

    image = ImagePart(data=b"\xff\xd8\xff fake", media_type="image/jpg")
    resp = responses_model(lambda r: json_response(response_body([])))
    run(resp.send(resp.build_request([Message("user", [TextPart("look"), image])])))
    chat = chat_model(lambda r: json_response(completion({"content": "ok"})))
    run(chat.send(chat.build_request([Message("user", [TextPart("look"), image])])))
    for body in (resp.sent[0].json, chat.sent[0].json):
        text = _json.dumps(body)
        assert "data:image/jpeg;base64," in text and "image/jpg" not in text
    assert image.media_type == "image/jpg"  # the part itself is not changed


def test_reasoning_left_out_is_reported_on_every_turn_of_a_long_conversation(responses_model: Any) -> None:
    """From 16 messages on, later requests reuse the earlier entries: the reasoning item left out
    for a model that does not reason is still on each turn's report."""
    import toolwire
    from toolwire.types import TextPart

    history: list[Message] = []
    for k in range(9):
        history += [Message.user(f"q{k}"), Message("assistant", [TextPart(f"a{k}")])]
    earlier = ReasoningPart(
        text="",
        encrypted=ENC,
        provider="openai",
        provider_data={"openai": {"item_id": "rs_9", "item": {"summary": []}}},
    )
    history[3] = Message("assistant", [earlier, TextPart("a1")])
    answers = iter(
        [json_response(response_body([fc_item("call_1", "db_lookup", '{"key": "a"}', "fc_1")])), json_response(_DONE)]
    )
    model = responses_model(lambda r: next(answers), model_id="gpt-4.1")
    result = toolwire.run_sync(model, "go", conversation=toolwire.Conversation(history), tools=[_DB_LOOKUP])
    assert [[(c.rule, c.pointer) for c in t.response.preflight or []] for t in result.turns] == [
        [("openai.conversation.reasoning-left-out", "/messages/3/parts/0")]
    ] * 2
    assert all(x.get("type") != "reasoning" for sent in model.sent for x in sent.json["input"])


def _summary_stream(rs_done: dict[str, Any], deltas: list[tuple[str, int, str]]) -> list[dict[str, Any]]:
    """A streamed turn: a reasoning item whose text arrives as ``(event type, part index, delta)``
    events, finished as ``rs_done``, then a one-word answer."""
    msg = {
        "id": "msg_R",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Done", "annotations": []}],
    }
    final = {"id": "resp_R", "status": "completed", "model": "gpt-5", "output": [rs_done, msg]}
    field = {"response.reasoning_summary_text.delta": "summary_index", "response.reasoning_text.delta": "content_index"}
    return [
        {"type": "response.created", "response": {"id": "resp_R", "model": "gpt-5", "status": "in_progress"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "rs_R", "type": "reasoning", "summary": []},
        },
        *(
            {"type": kind, "item_id": "rs_R", "output_index": 0, field[kind]: i, "delta": d, "sequence_number": 2 + n}
            for n, (kind, i, d) in enumerate(deltas)
        ),
        {"type": "response.output_item.done", "output_index": 0, "item": rs_done},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**msg, "status": "in_progress", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "content_index": 0,
            "item_id": "msg_R",
            "delta": "Done",
        },
        {"type": "response.output_item.done", "output_index": 1, "item": msg},
        {"type": "response.completed", "response": final},
    ]


S = "response.reasoning_summary_text.delta"


@pytest.mark.parametrize(
    "summary,deltas,live,text",
    [
        # two summary parts streamed: live deltas, joined by a blank line as the finished item's parts
        (
            ["Plan the call.", "Then answer."],
            [(S, 0, "Plan "), (S, 0, "the call."), (S, 1, "Then "), (S, 1, "answer.")],
            ["Plan ", "the call.", "\n\nThen ", "answer."],
            "Plan the call.\n\nThen answer.",
        ),
        # the finished item holds more than the deltas gave: the rest comes at the end
        (["Plan the call."], [(S, 0, "Plan ")], ["Plan ", "the call."], "Plan the call."),
        # the finished item differs from the deltas: its text is the part's text
        (["Something else."], [(S, 0, "Plan ")], ["Plan "], "Something else."),
        # a finished item without summary text keeps the streamed text
        ([], [("response.reasoning_text.delta", 0, "raw thought")], ["raw thought"], "raw thought"),
    ],
)
def test_streamed_reasoning_summary_arrives_live(
    responses_model: Any, summary: list[str], deltas: list[tuple[str, int, str]], live: list[str], text: str
) -> None:
    import toolwire
    from toolwire.events import ReasoningDelta, TextDelta

    rs_done = {"id": "rs_R", "type": "reasoning", "summary": [{"type": "summary_text", "text": t} for t in summary]}
    model = responses_model(lambda r: responses_sse(_summary_stream(rs_done, deltas)), stream=True)

    async def go() -> tuple[list[Any], Any]:
        seen: list[Any] = []
        async with toolwire.run_stream(model, "hi") as stream:
            async for ev in stream:
                if isinstance(ev, (ReasoningDelta, TextDelta)):
                    seen.append(ev)
        return seen, stream.result

    seen, result = run(go())
    reasoning = [e.text for e in seen if isinstance(e, ReasoningDelta)]
    assert reasoning == live
    # the reasoning came before the answer's text, as it streamed
    assert isinstance(seen[-1], TextDelta) and seen[-1].text == "Done"
    part = result.turns[0].response.parts[0]
    assert isinstance(part, ReasoningPart) and part.text == text
    # it goes back as the finished item, whatever streamed
    item = model.codec.encode_request(ModelRequest("gpt-5", result.conversation.messages))["input"][1]
    assert item == rs_done


@pytest.mark.parametrize("encrypted", [None, ""], ids=["no encrypted content", "empty encrypted content"])
def test_reasoning_without_an_id_or_encrypted_content_is_left_out_and_reported(
    responses_model: Any, encrypted: str | None
) -> None:
    """A Responses reasoning part with neither its item id nor encrypted content (a history saved
    or built without them) has nothing the API could take it back by
    (ResponseReasoningItemParam.id is required). The codec left it out without a word (no
    encrypted content) or sent an item without id for the preflight to drop (empty encrypted
    content), reporting a pointer into the body; found by the conversation fuzz test. Now it is
    left out and reported at its place in the conversation (rule openai.conversation.reasoning-fields)."""
    model = responses_model(lambda r: json_response(_DONE), model_id="gpt-5")
    messages = [
        Message.user("hi"),
        Message("assistant", [ReasoningPart("Let me think.", encrypted=encrypted, provider="openai"), TextPart("Hi.")]),
        Message.user("more"),
    ]
    response = run(model.send(model.build_request(messages)))
    assert [x.get("type", "message") for x in model.sent[0].json["input"]] == ["message", "message", "message"]
    assert [(c.rule, c.pointer, c.lossy) for c in response.preflight] == [
        ("openai.conversation.reasoning-fields", "/messages/1/parts/0", True)
    ]


def test_count_tokens_sends_the_preflighted_body(responses_model: Any) -> None:
    """The count goes through the same checks as a sent request: an image declared as JPEG whose
    bytes are PNG is counted as the PNG it is (openai.conversation.image-media-type-data), and a
    request the API would refuse is refused before the count is asked."""
    import base64

    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    model = responses_model(lambda r: json_response({"object": "response.input_tokens", "input_tokens": 90}))
    request = model.build_request([Message.user(["what is this?", ImagePart(data=png, media_type="image/jpeg")])])
    assert run(model.count_tokens(request)) == 90
    assert "data:image/png;base64," in json.dumps(model.sent[0].json)
    with pytest.raises(RequestRefused):
        run(model.count_tokens(model.build_request([Message.user(["x", ImagePart(url="file:///tmp/a.png")])])))
    assert len(model.sent) == 1
